#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Chooses the real labelled set of make bench-triage-real (issue 34).

usage: triage_select.py [--per-list N] MANIFEST INBOX-ROOT...

Each INBOX-ROOT holds public-inbox git epochs of vger lists, found as
read.py finds them (see inboxes.py).  For each list of LISTS, in that
order, the newest epoch found is read and its first-of-thread bug reports
are chosen by the rule below, which was fixed before the matcher was
tuned on any of them; candidates are taken in the order of the sha256 of
their commit id (a pseudo-random draw that depends neither on the date nor
on what the matcher makes of them) until N (default 20) pass.  A Message-ID already taken from a
list earlier in LISTS is skipped (cross-posts count once).

The rule (a report is the first mail of a thread that reports a problem):
  1. the Subject is not a reply or forward (Re:, Fwd:, AW:, ...), carries
     no [..PATCH..], [..PULL..], [..RFC..], [..ANNOUNCE..] tag, and is not a
     robot's digest or a stable-queue note (BUILD SUCCESS, BUILD
     REGRESSION, KernelCI's "N builds: ..."/"N boots: ..."/"N runs, ...",
     syzbot's "Reminder: N open syzbot bugs", "Patch ... has been added
     to", "FAILED: patch", "[GIT");
  2. the Subject names a problem: one of the words of PROBLEM_WORDS;
  3. the mail has neither In-Reply-To nor References (it starts a thread);
  4. its plain-text body (text/plain parts, inline or attached) has at
     least 100 characters and is not a patch: no "diff --git", no line
     "--- a/", no line starting "Signed-off-by:".
Bots are neither sought nor avoided: syzbot's and the kernel test robot's
reports are in at the share the draw gives them (the manifest's bot column
says which; the summary printed at the end gives the share).

The manifest (TAB-separated, one line per report):
  list  epoch  message-id  sha256-raw  sha256-text  commit  bot
sha256-raw is the stored mail's hash in the archive it was read from (the
commit the mail is in, as a hint for a faster read); sha256-text the hash
of what the matcher sees (report_text() of inboxes.py: Subject, a blank
line, the plain body), the same in any archive of the list.  The mails
stay out of the repository.
"""
import hashlib
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inboxes  # noqa: E402

PROBLEM_WORDS = re.compile(
    r"\b(bugs?|regressions?|oops|warn(ing|ings)?|crash(es|ed|ing)?|panics?|"
    r"hangs?|hung|freezes?|fail(s|ed|ure|ures|ing)?|broken|breaks?|errors?|"
    r"kasan|ubsan|kcsan|kmsan|lockdep|deadlock|null[- ]ptr|null pointer|"
    r"use-after-free|stalls?|lockups?|not working|stopped working|"
    r"(does ?n.t|does not|no longer) work|corrupt(ion|ed)?)\b", re.I)
REPLY = re.compile(r"^\s*(re|fwd?|aw|sv|antw|r)\s*(\[\d+\])?\s*:", re.I)
TAG = re.compile(r"\[[^\]]*\b(patch|pull|rfc|announce)\b[^\]]*\]", re.I)
NOT_REPORT = re.compile(r"BUILD SUCCESS|BUILD REGRESSION|has been added to the|"
                        r"FAILED: patch|^\s*\[GIT|^\s*Applied\b|\b\d+ (builds|boots|runs)[:,]|"
                        r"open syzbot bugs", re.I)
PATCH_BODY = re.compile(r"^(diff --git |--- a/|Signed-off-by:)", re.M)


def subject_ok(subject):
    return (not REPLY.match(subject) and not TAG.search(subject)
            and not NOT_REPORT.search(subject)
            and PROBLEM_WORDS.search(subject) is not None)


def candidates(git):
    """Commits (newest first) whose subject passes rules 1 and 2."""
    out = subprocess.run(["git", "--git-dir", git, "log", "--format=%H%x09%s"],
                         capture_output=True, check=True).stdout
    for line in out.decode("utf-8", "replace").splitlines():
        commit, _, subject = line.partition("\t")
        if subject_ok(subject):
            yield commit


def main(argv):
    per_list = 20
    if len(argv) > 1 and argv[1] == "--per-list":
        per_list = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) < 3:
        sys.exit(__doc__)
    manifest, roots = argv[1], argv[2:]
    taken, rows = set(), []
    for lst in inboxes.LISTS:
        found = inboxes.newest_epoch(roots, lst)
        if not found:
            print(f"select: no archive of {lst}, skipped", file=sys.stderr)
            continue
        epoch, git = found
        cands = sorted(candidates(git), key=lambda c: hashlib.sha256(c.encode()).hexdigest())
        kept, seen = [], 0
        with inboxes.Reader(git) as rd:
            for commit in cands:
                if len(kept) >= per_list:
                    break
                raw = rd.blob(commit)
                seen += 1
                if raw is None:
                    continue
                msg = inboxes.parse(raw)
                mid = inboxes.message_id(msg)
                if not mid or mid in taken:
                    continue
                if msg.get("In-Reply-To") or msg.get("References"):
                    continue
                subject = inboxes.subject(msg)
                if not subject_ok(subject):
                    continue
                body = inboxes.plain_body(msg)
                if len(body.strip()) < 100 or PATCH_BODY.search(body):
                    continue
                text = inboxes.report_text(msg)
                taken.add(mid)
                kept.append((lst, epoch, mid, hashlib.sha256(raw).hexdigest(),
                             hashlib.sha256(text.encode()).hexdigest(), commit,
                             inboxes.bot(msg)))
        print(f"select: {lst} epoch {epoch}: {len(cands)} subjects pass, "
              f"{seen} read, {len(kept)} kept", file=sys.stderr)
        rows.extend(kept)
    with open(manifest, "w", encoding="utf-8") as f:
        f.write("# list\tepoch\tmessage-id\tsha256-raw\tsha256-text\tcommit\tbot\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    bots = {}
    for r in rows:
        bots[r[6] or "-"] = bots.get(r[6] or "-", 0) + 1
    lists = len({r[0] for r in rows})
    print(f"select: {len(rows)} reports from {lists} lists; by sender: " +
          ", ".join(f"{k} {v} ({100.0 * v / max(len(rows), 1):.1f}%)"
                    for k, v in sorted(bots.items())), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
