#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of the Maildir reader (make bench): BENCH_MAILDIR_MAILS mails
# (default 80000) that all share one mtime second, against as many with
# distinct mtimes (one second apart), each read from the start, first by
# archive-dump (tests/unit/archive-dump, --quiet: the driver prints no
# position, whose cost would be its own), then by `bugbridge sync
# --from-start` against the fake Bugzilla (each mail moves the archive's
# cursor, which names every mail of its window: all of them, for one
# second).  The two should take about the same time: reading is linear
# whatever the mtimes.  Prints the figures (median of BENCH_RUNS, default
# 3); asserts nothing (the machine may be busy), but says whether the
# same-second read stayed within 2x.
#
#   BENCH_MAILDIR_MAILS  how many mails (default 80000)
#   BENCH_RUNS           runs per measurement (default 3)
#   BENCH_DIR            where to work (default: a new folder in $TMPDIR or /tmp)
#   BUGBRIDGE            the bugbridge binary (make bench-maildir sets it);
#                        without it only archive-dump is measured
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
: "${ARCHIVE_DUMP:?set ARCHIVE_DUMP to tests/unit/archive-dump (make bench does)}"
count=${BENCH_MAILDIR_MAILS:-80000}
PY=${PY:-python3}
runs=${BENCH_RUNS:-3}
make_work bugbridge-bench-maildir
cleanup() { stop "${bz_pid:-}"; rm -rf "$work"; }

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

[ -n "${BUGBRIDGE:-}" ] || exit 0

# the same two Maildirs read by bugbridge sync --from-start, each run from
# an empty state (no mail belongs to a bug: each only moves the cursor)
cat >state.json <<'EOF2'
{"version": "5.2",
 "users": [{"login": "bridge@example.org", "real_name": "Bridge",
            "api_key": "benchkey0123456789", "groups": ["editbugs"]}],
 "products": [{"name": "Drivers", "components": ["Network"]}], "bugs": []}
EOF2
start_bugzilla state.json
for kind in same distinct; do
	{
		bench_config_head
		printf '[routing]\ndefault_lists = bench-list@lists.test\n'
		printf '[archive]\nkind = maildir\npath = %s/%s\n' "$work" "$kind"
	} | sed "s|^data_dir = .*|data_dir = $work/data-$kind|" >"$kind.conf"
	chmod 600 "$kind.conf"
done

# time_sync KIND: median seconds of bugbridge sync --from-start over KIND/
time_sync() {
	local t=() got
	rm -rf "data-$1"
	BUGBRIDGE_CONFIG="$work/$1.conf" "$BUGBRIDGE" sync --from-start >"sync-$1.out" 2>&1
	got=$(sed -n 's/.* \([0-9][0-9]*\) mails\{0,1\} read.*/\1/p' "sync-$1.out" | tail -1)
	if [ "$got" != "$count" ]; then
		echo "bench: sync of $1: \"$got\" mails read, not $count:" >&2
		cat "sync-$1.out" >&2
		echo 0
		return
	fi
	for _ in $(seq 1 "$runs"); do
		time_eval "rm -rf \"\$work/data-$1\"" \
			"BUGBRIDGE_CONFIG=\"\$work/$1.conf\" \"\$BUGBRIDGE\" sync --from-start" ||
			{ echo 0; return; }
		t+=("$run_secs")
	done
	median "${t[@]}"
}

same=$(time_sync same)
distinct=$(time_sync distinct)
printf 'The same, bugbridge sync --from-start (median of %d):\n' "$runs"
printf '  one mtime second:   %.3f s\n' "$same"
printf '  distinct mtimes:    %.3f s\n' "$distinct"
printf '  ratio same/distinct: %s (goal: at most 2)\n' "$(quotient %.2f "$same" "$distinct")"
