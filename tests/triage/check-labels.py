#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks tests/triage/labels.tsv against a MAINTAINERS file.

labels.tsv: one line per report, TAB-separated:
    report-file  section-title  fault-file
The section title is the ground truth the benchmark scores against; the
fault file (the source file the fault is in, as the report's own trace
shows it) is only here so that this script can check the label: the
section must exist, its F: patterns (minus its X: patterns) must cover the
fault file, read the way get_maintainer.pl reads them, and no other
section may cover it with a more specific (deeper) pattern.  The matcher
and the benchmark never read the third column.

usage: check-labels.py MAINTAINERS labels.tsv [reports-dir]
"""
import os
import re
import sys


def sections(path):
    out, cur, prev_blank = [], None, True
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n").rstrip()
            m = re.match(r"^([A-Z]):\s*(.*)$", line)
            if m and cur is not None:
                cur.setdefault(m.group(1), []).append(m.group(2))
            elif line and prev_blank and not m:
                cur = {"name": line.strip()}
                out.append(cur)
            prev_blank = not line
    return [s for s in out if "F" in s or "M" in s or "L" in s]


def pattern_regex(pat):
    rx = re.escape(pat).replace(r"\*", ".*").replace(r"\?", ".")
    return re.compile("^" + rx)


def match(path, pat):
    if pat.endswith("/"):
        return pattern_regex(pat).match(path) is not None
    if pattern_regex(pat).match(path):
        return path.count("/") == pat.count("/")
    return False


def depth(pat):
    return pat.rstrip("/").count("/") + 1


def best(secs, path):
    found = []
    for s in secs:
        if any(match(path, x) for x in s.get("X", [])):
            continue
        d = max((depth(p) for p in s.get("F", []) if match(path, p)), default=0)
        if d:
            found.append((d, s["name"]))
    found.sort(key=lambda t: -t[0])
    return found


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    secs = sections(sys.argv[1])
    names = {s["name"] for s in secs}
    reports = sys.argv[3] if len(sys.argv) > 3 else None
    bad, n, subsystems = 0, 0, set()
    for lineno, line in enumerate(open(sys.argv[2], encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 3:
            print(f"line {lineno}: want 3 columns"); bad += 1; continue
        rep, label, fault = cols
        n += 1
        subsystems.add(label)
        if reports and not os.path.exists(os.path.join(reports, rep)):
            print(f"{rep}: no such report"); bad += 1
        if label not in names:
            print(f"{rep}: no section titled {label!r}"); bad += 1; continue
        ranked = best(secs, fault)
        if not ranked:
            print(f"{rep}: no section covers {fault}"); bad += 1; continue
        top = ranked[0][0]
        winners = [name for d, name in ranked if d == top]
        if label not in winners:
            print(f"{rep}: {fault} belongs to {winners} (depth {top}), not {label!r}; all: {ranked[:5]}")
            bad += 1
    print(f"{n} reports, {len(subsystems)} sections, {bad} problems")
    sys.exit(1 if bad else 0)


main()
