#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Reads the real labelled set of make bench-triage-real from public-inbox
clones, by Message-ID, into files the benchmark reads.

usage: triage_read.py MANIFEST OUTDIR

The clones are found under the ':'-separated roots of BENCH_TRIAGE_INBOXES
(layouts in inboxes.py).  For each manifest line the mail is looked for in
its list's epoch: at the manifest's commit when the clone has it, else by
Message-ID among all the epoch's mails.  It counts when its Message-ID is
the manifest's and either the raw mail's sha256 or that of the text the
matcher sees is (another archive of the list stores other headers, never
another Subject or body).  OUTDIR gets NNN.txt (Subject, a blank line, the
plain body: no other header) for each mail found and labels.tsv
(file, list address, bot, To and Cc).  Prints what it could not find; exits 0 if it
found any, 77 (and says why) if none: no roots, no epoch, no mail.
labels.tsv's fourth column lists the addresses of each mail's To and Cc
(the lists it was cross-posted to, for the benchmark's second measure).
"""
import email.utils
import hashlib
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inboxes  # noqa: E402


def by_message_id(git, wanted):
    """{message-id: raw} for the wanted ids, reading every mail of git."""
    out = {}
    log = subprocess.run(["git", "--git-dir", git, "log", "--format=%H"],
                         capture_output=True, check=True).stdout.decode().split()
    with inboxes.Reader(git) as rd:
        for commit in log:
            raw = rd.blob(commit)
            if raw is None:
                continue
            head = raw.split(b"\n\n", 1)[0]
            if b"essage-" not in head:
                continue
            mid = inboxes.message_id(inboxes.parse(head + b"\n\n"))
            if mid in wanted and mid not in out:
                out[mid] = raw
                if len(out) == len(wanted):
                    break
    return out


def sent_to(msg):
    """The addresses of the mail's To and Cc, lower case, each once: the
    other lists a report was posted to (the benchmark's second measure; the
    matcher never sees them)."""
    seen = []
    for _, addr in email.utils.getaddresses(msg.get_all("To", []) + msg.get_all("Cc", [])):
        addr = addr.strip().lower()
        if "@" in addr and " " not in addr and "\t" not in addr and addr not in seen:
            seen.append(addr)
    return seen


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    roots = [r for r in os.environ.get("BENCH_TRIAGE_INBOXES", "").split(":") if r]
    if not roots:
        print("triage_read: BENCH_TRIAGE_INBOXES is not set (':'-separated folders "
              "holding public-inbox clones of the lists)")
        return 77
    rows = []
    with open(argv[1], encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            rows.append(line.rstrip("\n").split("\t"))
    os.makedirs(argv[2], exist_ok=True)
    missing, found, labels = [], 0, []
    groups = {}
    for i, row in enumerate(rows):
        groups.setdefault((row[0], int(row[1])), []).append((i, row))
    texts = {}
    for (lst, epoch), items in groups.items():
        git = inboxes.epochs(roots, lst).get(epoch)
        if not git:
            missing.append(f"{lst} epoch {epoch}: no clone ({len(items)} mails)")
            continue
        pending = {}
        with inboxes.Reader(git) as rd:
            for i, row in items:
                raw = rd.blob(row[5])
                if raw is None or inboxes.message_id(inboxes.parse(raw)) != row[2]:
                    pending[row[2]] = (i, row)
                    continue
                texts[i] = (row, raw)
        if pending:
            for mid, raw in by_message_id(git, set(pending)).items():
                texts[pending[mid][0]] = (pending[mid][1], raw)
    for i in range(len(rows)):
        if i not in texts:
            if any(m.startswith(f"{rows[i][0]} epoch") for m in missing):
                continue
            missing.append(f"{rows[i][0]}: <{rows[i][2]}> not in its epoch")
            continue
        row, raw = texts[i]
        msg = inboxes.parse(raw)
        text = inboxes.report_text(msg)
        if hashlib.sha256(raw).hexdigest() != row[3] and \
                hashlib.sha256(text.encode()).hexdigest() != row[4]:
            missing.append(f"{row[0]}: <{row[2]}> differs from the manifest's hashes")
            continue
        name = f"{i + 1:03d}.txt"
        with open(os.path.join(argv[2], name), "w", encoding="utf-8") as f:
            f.write(text)
        labels.append(f"{name}\t{inboxes.address(row[0])}\t{row[6] if len(row) > 6 else ''}"
                      f"\t{' '.join(sent_to(msg))}")
        found += 1
    with open(os.path.join(argv[2], "labels.tsv"), "w", encoding="utf-8") as f:
        f.write("# report\tlist it was posted to\tbot\tevery address of its To and Cc\n" +
                "\n".join(labels) + "\n")
    for m in missing:
        print(f"triage_read: {m}")
    if not found:
        print("triage_read: none of the manifest's mails found under "
              f"BENCH_TRIAGE_INBOXES={':'.join(roots)}")
        return 77
    print(f"triage_read: {found} of {len(rows)} reports read")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
