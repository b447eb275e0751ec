#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of bugbridge import (make bench): BENCH_BUGS synthetic bugs with
# BENCH_COMMENTS comments each (the description included) imported from the
# fake Bugzilla (tests/lib/fake_bugzilla.py, loading a generated state
# file), at a tenth of the size and at the full size, to show that peak
# RSS stays flat as the instance grows.  Reports bugs/s, the requests the
# server saw, and peak RSS (/usr/bin/time -f %M); then a second import of
# the full size (nothing changed: requests and time).  Asserts nothing.
#
#   BENCH_BUGS      bugs (default 100000)
#   BENCH_COMMENTS  comments per bug (default 10)
#   BENCH_BATCH     bugs per request and transaction (default 500)
#   BENCH_DIR       where to work (default: a new folder in $TMPDIR or /tmp)
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
: "${BUGBRIDGE:?set BUGBRIDGE to the bugbridge binary (make bench does)}"
nbugs=${BENCH_BUGS:-100000}
ncomments=${BENCH_COMMENTS:-10}
batch=${BENCH_BATCH:-500}
PY=/usr/bin/python3
bz_pid=""
cleanup() {
	stop "$bz_pid"
	rm -rf "$work"
}
make_work bugbridge-bench-import
export TZ=UTC
[ -x /usr/bin/time ] || { echo "bench-import: /usr/bin/time is missing (apt-get install time)"; exit 0; }

gen_state() {
	"$PY" - "$1" "$2" "$3" <<'EOF'
import json, sys, time
nbugs, ncomments, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
now = 1796288400                      # 2026-12-03T09:00:00Z, the frozen clock
def t(s): return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(s))
devs = ["dev%02d@example.org" % i for i in range(20)]
text = "The machine locks up a few seconds after resume; the driver resets the device.\n" * 3
with open(out, "w") as f:
    f.write('{"clock": {"now": "%s"}, "users": [{"login": "importer@example.org", '
            '"api_key": "benchkey0123456789", "insider": true}], "bugs": [' % t(now))
    for i in range(1, nbugs + 1):
        created = now - 30 * 86400 + i
        comments = [{"creator": devs[(i + k) % 20], "creation_time": t(created + k),
                     "text": "Comment %d of bug %d.\n\n%s" % (k, i, text),
                     "is_private": k == 3}
                    for k in range(max(ncomments, 1))]
        bug = {"id": i, "summary": "bench bug %d: firmware timeout after resume" % i,
               "product": "Drivers", "component": "Network", "status": "CONFIRMED",
               "creator": devs[i % 20], "assigned_to": devs[(i + 1) % 20],
               "cc": [devs[(i + 2) % 20]], "keywords": ["regression"] if i % 7 == 0 else [],
               "cf_regression": "Yes" if i % 7 == 0 else "No",
               "creation_time": t(created), "comments": comments}
        f.write(("," if i > 1 else "") + json.dumps(bug))
    f.write("]}")
EOF
}

start_bz() {
	rm -f "$work/bz.port"
	"$PY" "$top_srcdir/tests/lib/fake_bugzilla.py" --state "$1" --port-file "$work/bz.port" \
		>"$work/bz.out" 2>&1 &
	bz_pid=$!
	wait_for_file "$work/bz.port" 6000 0.1 2>/dev/null || { echo "bench-import: the fake Bugzilla did not start"; cat "$work/bz.out"; exit 1; }
	bz="http://127.0.0.1:$(cat "$work/bz.port")"
}
stop_bz() { stop "$bz_pid"; bz_pid=""; }
requests() { curl -sf "$bz/__admin/log?path_prefix=/rest" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["count"])'; }

# run_import N LABEL: imports from the running server into a fresh store
run_import() {
	local dir="$work/data-$1"
	rm -rf "$dir"
	printf '[core]\ndata_dir = %s\nlog_level = warn\n[bugzilla]\napi_key_in = param\n' "$dir" >"$work/bb.conf"
	chmod 600 "$work/bb.conf"
	curl -sf -X POST "$bz/__admin/reset_log" >/dev/null
	BUGBRIDGE_API_KEY=benchkey0123456789 run_timed "$work/out" "$work/err" \
		"$BUGBRIDGE" --config "$work/bb.conf" --quiet import --from "$bz" --batch "$batch"
	[ "$run_rc" = 0 ] || { echo "bench-import: import failed"; cat "$work/err"; exit 1; }
	local secs=$run_secs rss=$run_rss reqs bugs
	reqs=$(requests)
	bugs=$(sqlite3 "$dir/bugbridge.db" 'SELECT count(*) FROM imp_bug' 2>/dev/null || echo "?")
	printf '%-22s %8s bugs %9.1f s %9.0f bugs/s %8s requests %8.1f MiB peak RSS\n' "$2" "$bugs" \
		"$secs" "$(echo "$1 / $secs" | bc -l)" "$reqs" "$(echo "$rss / 1024" | bc -l)"
}

echo "bench-import: $nbugs bugs x $ncomments comments, batch $batch"
small=$((nbugs / 10))
[ "$small" -ge 1 ] || small=1
for n in "$small" "$nbugs"; do
	gen_state "$n" "$ncomments" "$work/state-$n.json"
	start_bz "$work/state-$n.json"
	run_import "$n" "import of $n"
	if [ "$n" = "$nbugs" ]; then
		# again, nothing changed: only the pages of the changed-since search
		curl -sf -X POST "$bz/__admin/reset_log" >/dev/null
		BUGBRIDGE_API_KEY=benchkey0123456789 run_timed /dev/null /dev/null \
			"$BUGBRIDGE" --config "$work/bb.conf" --quiet import --from "$bz" --batch "$batch"
		printf '%-22s %8s bugs %9.1f s %9s        %8s requests %8.1f MiB peak RSS\n' "re-import (unchanged)" \
			"$n" "$run_secs" "-" "$(requests)" "$(echo "$run_rss / 1024" | bc -l)"
	fi
	stop_bz
done
