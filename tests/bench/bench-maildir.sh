#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of the Maildir reader (make bench): BENCH_MAILDIR_MAILS mails
# (default 8000) that all share one mtime second, against as many with
# distinct mtimes (one second apart), each read from the start by
# archive-dump (tests/unit/archive-dump, --quiet: the driver prints no
# position, whose cost would be its own).  The two should take about the
# same time: reading is linear whatever the mtimes.  Prints the figures
# (median of BENCH_RUNS, default 3); asserts nothing (the machine may be
# busy), but says whether the same-second read stayed within 2x.
#
#   BENCH_MAILDIR_MAILS  how many mails (default 8000)
#   BENCH_RUNS           runs per measurement (default 3)
#   BENCH_DIR            where to work (default: a new folder in $TMPDIR or /tmp)
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
: "${ARCHIVE_DUMP:?set ARCHIVE_DUMP to tests/unit/archive-dump (make bench does)}"
count=${BENCH_MAILDIR_MAILS:-8000}
runs=${BENCH_RUNS:-3}
make_work bugbridge-bench-maildir

COUNT=$count python3 - <<'PY' || exit 1
import os, time
n = int(os.environ["COUNT"])
base = int(time.time()) - n - 3600   # all settled, older than the slack
for kind in ("same", "distinct"):
    for sub in ("new", "cur", "tmp"):
        os.makedirs(f"{kind}/{sub}")
    for i in range(n):
        # delivery-shaped names; cur/ ones carry flags
        sub, flags = ("cur", ":2,S") if i % 3 == 0 else ("new", "")
        path = f"{kind}/{sub}/{base + i}.M{(i * 7919) % 100003}P{i}.bench.test{flags}"
        with open(path, "w") as f:
            f.write(f"From: a@bench.test\nMessage-ID: <m{i}@bench.test>\n"
                    f"Subject: mail {i}\n\nbody {i}\n")
        t = base if kind == "same" else base + i
        os.utime(path, (t, t))
PY

# time_read KIND: median seconds of reading KIND/ from the start
time_read() {
	local t=() got
	got=$("$ARCHIVE_DUMP" --quiet maildir "$work/$1" | sed -n 's/.* messages=\([0-9]*\) .*/\1/p')
	if [ "$got" != "$count" ]; then
		echo "bench: $1: $got messages read, not $count" >&2
		echo 0
		return
	fi
	for _ in $(seq 1 "$runs"); do
		time_eval : "\"\$ARCHIVE_DUMP\" --quiet maildir \"\$work/$1\"" || { echo 0; return; }
		t+=("$run_secs")
	done
	median "${t[@]}"
}

same=$(time_read same)
distinct=$(time_read distinct)
printf 'Maildir, %d mails read from the start (median of %d):\n' "$count" "$runs"
printf '  one mtime second:   %.3f s\n' "$same"
printf '  distinct mtimes:    %.3f s\n' "$distinct"
printf '  ratio same/distinct: %s (goal: at most 2)\n' "$(quotient %.2f "$same" "$distinct")"
