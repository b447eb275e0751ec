#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Same crash, same bug, on real reports (issue 34, item 7): bugbridge's
crash signatures (triage/signature.h, as `bugbridge triage --json` gives
them) against syzbot's own titles, which syzbot folds reports by.

usage: samecrash.py BUGBRIDGE [MAX_PER_LIST]

Reads, from the public-inbox clones under BENCH_TRIAGE_INBOXES (layouts in
inboxes.py), every syzbot report (a first mail from syzbot, not a reply,
not a "boot error" or "test error", not a monthly digest) of the lists of
inboxes.LISTS, at most MAX_PER_LIST (default 400) a list, and the first
mails of people whose Subject names a crash (KASAN, BUG:, WARNING, general
protection fault, ...).  syzbot's title is the truth: "KASAN:
slab-use-after-free Read in hiddev_release (2)" is the key "KASAN:
use-after-free Read in hiddev_release" (the recurrence number dropped;
slab-use-after-free is use-after-free; "BUG: unable to handle kernel NULL
pointer dereference in" and "... paging request in" are the wordings
bugbridge's keys use).  Prints:
  - agreement: how often the report's first signature's key is its title's
    key, per kind, with the disagreements (BENCH_VERBOSE=1: each);
  - pairs of one crash: distinct reports (Message-IDs) with one title key
    (a crash reported again, "(2)", or to two lists under two ids), and
    how many bugbridge puts together (recall);
  - pairs that only look alike: distinct title keys with the same
    function, or the same kind and the same first word of the function
    (hiddev_release, hiddev_open), and how many bugbridge wrongly puts
    together (false merges);
  - people's reports of a crash syzbot also titled (same key): found
    pairs, the first ones listed;
  - the time per report (one `bugbridge triage --json` process each).
Exit 77 without clones.
"""
import collections
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inboxes  # noqa: E402

CRASH_WORDS = re.compile(r"KASAN|KMSAN|UBSAN|BUG:|WARNING|general protection fault|"
                         r"NULL pointer dereference|kernel BUG|use-after-free|"
                         r"possible deadlock|hung task|soft lockup|Oops|paging request",
                         re.I)


def title_key(subject):
    t = re.sub(r"^(\s*\[[^\]]*\])+\s*", "", subject)
    t = re.sub(r"\s*\(\d+\)\s*$", "", t).strip()
    if (re.search(r"\b(boot|test|build) error\b", t) or not t or "syzbot ci" in subject.lower() or t.startswith("Re:")
            or re.search(r"Monthly .* report", t)):
        return None
    t = t.replace("slab-use-after-free", "use-after-free")
    t = re.sub(r"^BUG: unable to handle kernel NULL pointer dereference in\b",
               "NULL pointer dereference in", t)
    t = re.sub(r"^BUG: unable to handle kernel paging request in\b", "paging request in", t)
    return t


def kind_of(key):
    return key.rsplit(" in ", 1)[0] if " in " in key else key


def func_of(key):
    return key.rsplit(" in ", 1)[1] if " in " in key else ""


def signatures(bugbridge, text, tmp):
    path = os.path.join(tmp, "report.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    out = subprocess.run([bugbridge, "--config", os.path.join(tmp, "none.conf"), "triage",
                          "--json", "--no-tree", path], capture_output=True)
    try:
        return [s["key"] for s in json.loads(out.stdout).get("signatures") or []]
    except ValueError:
        return []


def main():
    bugbridge = sys.argv[1]
    per_list = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    roots = (os.environ.get("BENCH_TRIAGE_INBOXES") or "").split(":")
    verbose = os.environ.get("BENCH_VERBOSE") == "1"
    syz, people, seen = [], [], set()
    lists_read = 0
    with tempfile.TemporaryDirectory() as tmp:
        t0, nrun = time.monotonic(), 0
        for lst in inboxes.LISTS:
            found = inboxes.epochs(roots, lst)
            if not found:
                continue
            lists_read += 1
            nsyz = 0
            for _, git in sorted(found.items(), reverse=True):
                log = subprocess.run(["git", "--git-dir", git, "log", "--format=%H\t%an\t%s"],
                                     capture_output=True).stdout.decode("utf-8", "replace")
                with inboxes.Reader(git) as rd:
                    for line in log.splitlines():
                        commit, author, subj = (line.split("\t", 2) + ["", ""])[:3]
                        if re.match(r"\s*(re|fwd?|aw)\s*:", subj, re.I):
                            continue
                        is_syz = "syzbot" in author.lower()
                        if is_syz and (nsyz >= per_list or not title_key(subj)):
                            continue
                        if not is_syz and ("robot" in author.lower() or "[PATCH" in subj or
                                           not CRASH_WORDS.search(subj)):
                            continue
                        raw = rd.blob(commit)
                        if raw is None:
                            continue
                        msg = inboxes.parse(raw)
                        mid = inboxes.message_id(msg)
                        if not mid or mid in seen:
                            continue
                        seen.add(mid)
                        keys = signatures(bugbridge, inboxes.plain_body(msg), tmp)
                        nrun += 1
                        item = (lst, mid, inboxes.subject(msg), keys)
                        if is_syz:
                            nsyz += 1
                            syz.append(item + (title_key(inboxes.subject(msg)),))
                        else:
                            people.append(item)
        elapsed = time.monotonic() - t0
    if not lists_read:
        print("bench-samecrash: skipped, no public-inbox clones under BENCH_TRIAGE_INBOXES")
        return 77
    print("same crash, same bug: %d syzbot reports and %d people's crash reports from %d lists"
          % (len(syz), len(people), lists_read))

    # agreement with syzbot's title
    per_kind = collections.defaultdict(lambda: [0, 0, 0])
    for lst, mid, subj, keys, tkey in syz:
        k = per_kind[kind_of(tkey)]
        k[0] += 1
        k[1] += bool(keys) and keys[0] == tkey
        k[2] += tkey in keys
        if verbose and (not keys or keys[0] != tkey):
            print("  differs: %s\n     ours: %s" % (subj, keys[0] if keys else "(none)"))
    total = [sum(v[i] for v in per_kind.values()) for i in range(3)]
    print("\nagreement with syzbot's title (first signature / any signature):")
    print("  %-52s %5s %6s %6s" % ("kind", "n", "first", "any"))
    for kind, (n, first, anyk) in sorted(per_kind.items(), key=lambda x: -x[1][0])[:20]:
        print("  %-52s %5d %5.0f%% %5.0f%%" % (kind[:52], n, 100.0 * first / n, 100.0 * anyk / n))
    print("  %-52s %5d %5.1f%% %5.1f%%" % ("all", total[0], 100.0 * total[1] / max(total[0], 1),
                                          100.0 * total[2] / max(total[0], 1)))

    # pairs of one crash, pairs that only look alike
    by_title = collections.defaultdict(list)
    for item in syz:
        by_title[item[4]].append(item)
    same = [p for g in by_title.values() for p in itertools.combinations(g, 2)]
    same_ok = sum(bool(a[3]) and bool(b[3]) and a[3][0] == b[3][0] for a, b in same)
    alike = []
    titles = sorted(by_title)
    for t1, t2 in itertools.combinations(titles, 2):
        f1, f2 = func_of(t1), func_of(t2)
        if f1 and (f1 == f2 or (kind_of(t1) == kind_of(t2) and
                                f1.split("_")[0] == f2.split("_")[0] and "_" in f1)):
            alike.append((by_title[t1][0], by_title[t2][0]))
    merged = [(a, b) for a, b in alike if a[3] and b[3] and a[3][0] == b[3][0]]
    print("\npairs of one crash (one syzbot title, two reports): %d, put together: %d (%.1f%%)"
          % (len(same), same_ok, 100.0 * same_ok / max(len(same), 1)))
    print("pairs that only look alike (two titles, one function or its first word): %d, "
          "wrongly put together: %d (%.1f%%)" % (len(alike), len(merged),
                                                100.0 * len(merged) / max(len(alike), 1)))
    for a, b in merged[:10]:
        print("  merged: %s | %s -> %s" % (a[2], b[2], a[3][0]))

    # people's reports of a crash syzbot titled
    syz_keys = {}
    for item in syz:
        syz_keys.setdefault(item[4], item)
    found = [(p, syz_keys[k]) for p in people for k in p[3][:1] if k in syz_keys]
    with_sig = sum(bool(p[3]) for p in people)
    print("\npeople's crash reports with a signature: %d of %d; the same crash as a syzbot "
          "report: %d" % (with_sig, len(people), len(found)))
    for p, s in found[:15]:
        print("  %s: %s\n      = %s: %s" % (p[0], p[2][:90], s[0], s[2][:90]))
    print("\ntime per report: %.1f ms (one bugbridge triage --json process each)"
          % (1000.0 * elapsed / max(nrun, 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
