#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of the regression reports (make bench): 10,000 regressions (with
# 3 events and a link each, 500 unhandled directives), then
# `bugbridge regressions report` writing all of them: 10,000 regression
# pages, the tree pages, regressions.json, changes.atom and weekly.txt.
# Goal: under 1 s.  Prints the figures; asserts nothing (the machine may be
# busy), but says whether the goal was met.
#
#   BENCH_REGRESSIONS  how many (default 10000)
#   BENCH_RUNS         runs per measurement; the median is reported (default 3)
#   BENCH_DIR          where to work (default: a new folder in $TMPDIR or /tmp)
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
: "${BUGBRIDGE:?set BUGBRIDGE to the bugbridge binary (make bench does)}"
count=${BENCH_REGRESSIONS:-10000}
runs=${BENCH_RUNS:-3}
make_work bugbridge-bench-reports

# time_cmd SETUP CMD: runs SETUP (untimed) then CMD, $runs times; prints the median seconds
time_cmd() {
	local setup=$1 cmd=$2 t=() i
	# shellcheck disable=SC2034 # $i is read by the commands, in eval
	for i in $(seq 1 "$runs"); do
		time_eval "$setup" "$cmd" || { echo 0; return; }
		t+=("$run_secs")
	done
	median "${t[@]}"
}

export BUGBRIDGE_CONFIG="$work/bench.conf"
printf '[core]\ndata_dir = %s/data\nlog_level = error\n' "$work" >bench.conf
chmod 600 bench.conf
"$BUGBRIDGE" -q regressions list >/dev/null || exit 1  # makes the database

NOW=$(date +%s) COUNT=$count python3 - "$work/data/bugbridge.db" <<'PY'
import os, sqlite3, sys
now, n, day = int(os.environ["NOW"]), int(os.environ["COUNT"]), 86400
states = ["open", "open", "fix-incoming", "fixed", "resolved", "open", "duplicate", "inconclusive"]
branches = ["mainline", "mainline", "mainline", "next", "linux-6.6.y", "linux-6.1.y"]
db = sqlite3.connect(sys.argv[1])
db.executemany(
    "INSERT INTO reg_regression (id, title, state, branch, introduced, culprit, report_msgid,"
    " reporter, created, updated, last_activity, activity_count, last_activity_by,"
    " last_activity_msgid, fix_commit, fix_subject, backburner, resolution)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    ((i, "subsys%d: regression %d <after> resume & \"more\"" % (i % 40, i), states[i % 8],
      branches[i % 6], "v6.%d..v6.%d-rc1" % (i % 9, i % 9 + 1),
      "%012x" % (i * 7919) if i % 3 == 0 else "", "report-%d@example.org" % i,
      "Reporter %d <r%d@example.org>" % (i, i), now - i * 600, now - i * 60, now - i * 800,
      i % 30, "Someone <s%d@example.org>" % i, "last-%d@example.org" % i,
      "%012x" % (i * 104729) if i % 8 == 2 else "", "fix for %d" % i if i % 8 == 2 else "",
      1 if i % 50 == 0 else 0, "later" if i % 50 == 0 else "")
     for i in range(1, n + 1)))
db.executemany("INSERT INTO reg_event (regression, time, kind, text, message_id) VALUES (?,?,?,?,?)",
               ((i % n + 1, now - i * 200, "note", "event %d <with> markup" % i, "ev-%d@example.org" % i)
                for i in range(3 * n)))
db.executemany("INSERT INTO reg_link (regression, url, title, kind) VALUES (?,?,?,?)",
               ((i, "https://lore.kernel.org/r/link-%d@example.org/" % i, "link %d" % i, "link")
                for i in range(1, n + 1)))
db.executemany("INSERT INTO reg_unhandled (time, message_id, line, reason) VALUES (?,?,?,?)",
               ((now - i * 100, "u-%d@example.org" % i, "#regzbot frob %d" % i, "unknown verb")
                for i in range(500)))
db.commit()
PY

echo "bugbridge report benchmark: $count regressions, median of $runs runs, in $work"
echo "machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
# A first run writes into a new folder each time: deleting the last one
# just before would time ext4 skipping the freshly freed inodes instead.
t_first=$(time_cmd "" "'$BUGBRIDGE' -q regressions report --dir first-\$i")
t_again=$(time_cmd "" "'$BUGBRIDGE' -q regressions report")
"$BUGBRIDGE" -q regressions report --now $(($(date +%s) + 86400 * 10)) # the spares exist
t_day=$(time_cmd "" "'$BUGBRIDGE' -q regressions report --now \$((\$(date +%s) + 86400 * (10 + \$i)))")
t_list=$(time_cmd "" "'$BUGBRIDGE' -q regressions list --all --json")
rss=$(peak_rss_kb "$BUGBRIDGE" -q regressions report)
cpu=$(/usr/bin/time -f '%U s user, %S s system' "$BUGBRIDGE" -q regressions report --dir first-cpu 2>&1 >/dev/null | tail -1)
files=$(find first-cpu -type f | wc -l)
size=$(du -sh first-cpu | cut -f1)
# The floor any writer of these files meets: as many files of the same
# sizes written by python3, each to a temporary name and renamed.
page=$(find first-cpu/regression -type f -printf '%s\n' | awk '{s+=$1} END {print int(s/NR)}')
t_floor=$(time_cmd "" "python3 -c '
import os, sys
n, size, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]; os.mkdir(d); data = b\"x\" * size
for i in range(n):
    fd = os.open(\"%s/.%d.tmp\" % (d, i), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, data); os.close(fd); os.rename(\"%s/.%d.tmp\" % (d, i), \"%s/%d.html\" % (d, i))
' $count $page floor-\$i")

printf '\n%-58s %9s\n' "operation" "seconds"
printf '%-58s %9.3f\n' "regressions report into a new folder (every file new)" "$t_first"
printf '%-58s %9.3f\n' "regressions report again (unchanged pages kept)" "$t_again"
printf '%-58s %9.3f\n' "regressions report a day later (open ones' pages change)" "$t_day"
printf '%-58s %9.3f\n' "regressions list --all --json" "$t_list"
printf '%-58s %9.3f\n' "floor: $count files of $page bytes, tmp + rename (python3)" "$t_floor"
echo "reports: $files files, $size; peak RSS of a report run: $rss KiB"
echo "CPU of a report run into a new folder: $cpu"
if [ "$(echo "$t_floor > 1" | bc -l)" = 1 ]; then
	echo "note: creating files is slow on this file system right now (the floor row);" \
		"ext4 skips inodes freed in the last minutes when it allocates, so a run" \
		"right after many files were deleted (another benchmark's clean-up) pays for it"
fi
worst=$(printf '%s\n' "$t_first" "$t_again" "$t_day" | sort -g | tail -1)
if [ "$(echo "$worst < 1" | bc -l)" = 1 ]; then
	echo "goal met: every report run of $count regressions took under 1 s"
else
	echo "goal missed: a report run of $count regressions took ${worst} s (goal: under 1 s)"
fi
