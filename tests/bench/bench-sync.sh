#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmarks of the outbound bridge (make bench), against the fake Bugzilla
# (tests/lib/fake_bugzilla.py) and the SMTP sink (tests/lib/smtp_sink.py):
#
#  1. HTTP requests per poll for N changed bugs, counted in the fake
#     server's request log, next to the bound 3*ceil(N/100)+2;
#  2. a mirror of BENCH_BUGS bugs x BENCH_COMMENTS comments through the
#     outbox to the SMTP sink by `bugbridge sync --once`: wall time, peak
#     RSS, requests, mails; against bench-bz-loop (tests/bench/bench-bz-loop.c),
#     the same round fetched bug by bug as REST clients usually do, with the
#     same composing, outbox and delivery code, in the same run.
#
# Prints figures and ratios; asserts nothing.
#
#   BENCH_BUGS        bugs to mirror (default 1000)
#   BENCH_COMMENTS    comments per bug, the description included (default 10)
#   BENCH_POLL_SIZES  changed bugs per poll (default "0 1 50 100 101 250 1000")
#   BENCH_RUNS        runs per measurement; the median is reported (default 3)
#   BENCH_DIR         where to work (default: a new folder in $TMPDIR or /tmp)
#   BENCH_BZ_LOOP     the bench-bz-loop program (make bench sets it)
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
: "${BUGBRIDGE:?set BUGBRIDGE to the bugbridge binary (make bench does)}"
: "${BENCH_BZ_LOOP:?set BENCH_BZ_LOOP to the bench-bz-loop binary (make bench does)}"
nbugs=${BENCH_BUGS:-1000}
ncomments=${BENCH_COMMENTS:-10}
poll_sizes=${BENCH_POLL_SIZES:-0 1 50 100 101 250 1000}
runs=${BENCH_RUNS:-3}
PY=/usr/bin/python3 # Debian's, with aiosmtpd for the sink
bz_pid="" sink_pid=""
cleanup() {
	stop "$bz_pid"
	stop "$sink_pid"
	rm -rf "$work"
}
make_work bugbridge-bench-sync
export TZ=UTC

ratio() { quotient %.2f "$1" "$2"; }

# gen_state BUGS COMMENTS: a Bugzilla state on standard output.  Comments
# after the description come from developers other than the bug's reporter
# and assignee, so bugbridge must look up their real names.
gen_state() {
	"$PY" - "$1" "$2" <<'EOF'
import json, sys, time
nbugs, ncomments = int(sys.argv[1]), int(sys.argv[2])
now = 1796288400                      # 2026-12-03T09:00:00Z, the frozen clock
def t(s): return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(s))
devs = ["dev%02d@example.org" % i for i in range(20)]
users = [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "benchkey0123456789"}]
users += [{"login": d, "real_name": "Developer %s" % d[3:5]} for d in devs]
users += [{"login": "reporter%d@example.net" % i, "real_name": "Reporter %d" % i}
          for i in range(50)]
text = ("The machine locks up a few seconds after resume; dmesg shows the firmware "
        "timing out and the driver resetting the device.\n") * 3
bugs = []
for i in range(1, nbugs + 1):
    created = now - 30 * 86400 + i * 60
    reporter = "reporter%d@example.net" % (i % 50)
    comments = [{"creator": reporter if k == 0 else devs[(i + k) % 20],
                 "creation_time": t(created + k * 5),
                 "text": "Comment %d of bug %d.\n\n%s" % (k, i, text)}
                for k in range(max(ncomments, 1))]
    bugs.append({"id": i, "summary": "bench bug %d: firmware timeout after resume" % i,
                 "product": "Drivers", "component": "Network", "status": "CONFIRMED",
                 "creator": reporter, "assigned_to": devs[i % 20],
                 "creation_time": t(created), "comments": comments})
json.dump({"version": "5.2", "clock": {"now": t(now)}, "users": users,
           "products": [{"name": "Drivers", "components": ["Network"]}],
           "bugs": bugs}, sys.stdout)
EOF
}

start_sink() {
	rm -rf sink smtp.port
	mkdir sink
	"$PY" "$top_srcdir/tests/lib/smtp_sink.py" --port-file smtp.port --dir sink >sink.out 2>&1 &
	sink_pid=$!
	wait_for_file smtp.port || exit 1
	smtp_port=$(cat smtp.port)
}

mails_in_sink() { find sink -name '*.eml' | wc -l; }
empty_sink() { find sink -name '*.eml' -delete -o -name '[0-9]*.json' -delete; }

# The requests logged since the last reset: "total time search bug comment
# attachment user other" (bug: GET /rest/bug/N).
requests() {
	curl -sf "$bz_url/__admin/log" | "$PY" -c '
import json, re, sys
kinds = ["time", "search", "bug", "comment", "attachment", "user", "other"]
n = dict.fromkeys(kinds, 0)
log = json.load(sys.stdin)
for r in log["requests"]:
    p = re.sub("^/rest(\\.cgi)?", "", r["path"])
    k = ("time" if p == "/time" else "search" if p == "/bug" else
         "bug" if re.fullmatch(r"/bug/\d+", p) else
         "comment" if re.fullmatch(r"/bug/\d+/comment", p) else
         "attachment" if re.fullmatch(r"/bug/\d+/attachment", p) else
         "user" if p == "/user" else "other")
    n[k] += 1
print(log["count"], *(n[k] for k in kinds))'
}

# add_comments N: a new comment on each of bugs 1..N (admin API, one
# kept-alive connection).
add_comments() {
	"$PY" - "$(cat bz.port)" "$1" <<'EOF'
import http.client, json, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
conn = http.client.HTTPConnection("127.0.0.1", port)
for i in range(1, n + 1):
    body = json.dumps({"bug_id": i, "creator": "dev%02d@example.org" % ((i + 7) % 20),
                       "text": "Still there with the latest firmware (poll bench)."})
    conn.request("POST", "/__admin/comment", body, {"Content-Type": "application/json"})
    r = conn.getresponse()
    r.read()
    if r.status != 200:
        sys.exit("add_comments: HTTP %d" % r.status)
EOF
}

write_config() {
	{
	bench_config_head
	cat <<EOF
[smtp]
host = 127.0.0.1
port = $smtp_port
starttls = no
[routing]
default_lists = bench-list@lists.test
EOF
	} >bench.conf
	chmod 600 bench.conf
	export BUGBRIDGE_CONFIG="$work/bench.conf"
}

# measure CMD...: runs CMD once on a fresh data folder, the request log and
# the sink emptied first; sets m_time m_rss (KiB) m_requests m_mails.
measure() {
	rm -rf data
	admin reset_log '{}'
	empty_sink
	run_timed run.out run.err "$@"
	m_time=$run_secs m_rss=$run_rss
	if [ "$run_rc" -ne 0 ]; then
		echo "bench: failed (exit $run_rc): $*" >&2
		tail -5 run.err >&2
	fi
	m_requests=$(requests | cut -d' ' -f1)
	m_mails=$(mails_in_sink)
}

echo "bugbridge sync benchmark: median of $runs runs, in $work"
echo "machine: $(nproc) cores, $(uname -r); fake Bugzilla and SMTP sink in Python on 127.0.0.1"

# --- 1. requests per poll ------------------------------------------------------
poll_bugs=1
for n in $poll_sizes; do [ "$n" -gt "$poll_bugs" ] && poll_bugs=$n; done
gen_state "$poll_bugs" 1 >poll-state.json
start_bugzilla poll-state.json
start_sink
write_config
echo
echo "requests per poll, from the fake server's log ($poll_bugs bugs mirrored; a changed"
echo "bug got one new comment by one of 20 developers; bugbridge asks for a real name once per account):"
printf '\n%-18s %8s %6s %6s | %5s %6s %7s %6s %5s %5s | %6s\n' "changed bugs N" "requests" \
	"bound" "excess" "time" "search" "comment" "attach" "user" "other" "mails"
poll_row() {
	local label=$1 n=$2 bound counts excess
	bound=$((3 * ((n + 99) / 100) + 2))
	read -r -a counts <<<"$(requests)"
	excess=$((counts[0] - bound))
	[ "$excess" -gt 0 ] && excess="+$excess"
	printf '%-18s %8s %6s %6s | %5s %6s %7s %6s %5s %5s | %6s\n' "$label" "${counts[0]}" \
		"$bound" "$excess" "${counts[1]}" "${counts[2]}" "${counts[4]}" "${counts[5]}" \
		"${counts[6]}" "$((counts[3] + counts[7]))" "$(mails_in_sink)"
}
admin reset_log '{}'
"$BUGBRIDGE" -q sync --once >/dev/null 2>poll.err || { echo "bench: first sync failed" >&2; cat poll.err >&2; }
poll_row "$poll_bugs (first sync)" "$poll_bugs"
for n in $poll_sizes; do
	admin clock '{"advance": 60}'
	add_comments "$n"
	admin clock '{"advance": 60}'
	admin reset_log '{}'
	empty_sink
	"$BUGBRIDGE" -q sync --once >/dev/null 2>poll.err || { echo "bench: sync failed" >&2; cat poll.err >&2; }
	poll_row "$n" "$n"
done
echo
echo "  time: GET /rest/time; search: GET /rest/bug pages of 100 (a full last page costs one"
echo "  more, empty, page); comment/attach: batched GET /rest/bug/<id>/comment?ids=... and"
echo "  .../attachment?ids=...&exclude_fields=data; user: batched GET /rest/user?names=... for"
echo "  comment authors without a real name (not counted by the bound); excess = requests - bound"
stop "$bz_pid"
bz_pid=""

# --- 2. mirror: bugbridge sync against the bug-by-bug loop ---------------------
gen_state "$nbugs" "$ncomments" >state.json
start_bugzilla state.json
write_config
echo
echo "first mirror of $nbugs bugs x $ncomments comments to the SMTP sink (a report and, with older"
echo "comments, one backlog summary per bug: at most $((nbugs * 2)) mails, not $((nbugs * ncomments))), fresh"
echo "instance each run; baseline: bench-bz-loop, the same search then GET /rest/bug/N,"
echo "/rest/bug/N/comment, /rest/bug/N/attachment per bug, then the same sync_apply and outbox:"
declare -A t r q m
for _ in $(seq 1 "$runs"); do
	for who in sync loop sync-dry loop-dry; do
		case $who in
		sync) measure "$BUGBRIDGE" -q sync --once ;;
		loop) measure "$BENCH_BZ_LOOP" ;;
		sync-dry) measure "$BUGBRIDGE" -q sync --dry-run ;;
		loop-dry) measure "$BENCH_BZ_LOOP" --dry-run ;;
		esac
		t[$who]="${t[$who]:-} $m_time"
		r[$who]="${r[$who]:-} $m_rss"
		q[$who]=$m_requests
		m[$who]=$m_mails
	done
done
# shellcheck disable=SC2086
for who in sync loop sync-dry loop-dry; do
	t[$who]=$(median ${t[$who]})
	r[$who]=$(median ${r[$who]})
done
printf '\n%-44s %9s %13s %9s %7s\n' "round" "seconds" "peak RSS MiB" "requests" "mails"
mrow() { printf '%-44s %9.3f %13s %9s %7s\n' "$1" "${t[$2]}" "$(mib "${r[$2]}")" "${q[$2]}" "${m[$2]}"; }
mrow "bugbridge sync --once" sync
mrow "bug-by-bug loop (bench-bz-loop)" loop
mrow "bugbridge sync --dry-run (fetch + compose)" sync-dry
mrow "bug-by-bug loop --dry-run (fetch + compose)" loop-dry
[ "${m[sync]}" = "${m[loop]}" ] || echo "note: the two sent different numbers of mails"
echo "mails per bug: $(quotient %.2f "${m[sync]}" "$nbugs") (goal: 2 at most); requests: ${q[sync]}," \
	"bound 3*ceil($nbugs/100)+2 = $((3 * ((nbugs + 99) / 100) + 2)), users aside"
echo
echo "ratios baseline / bugbridge (above 1: bugbridge does better):"
echo "  time, whole round with delivery    = $(ratio "${t[loop]}" "${t[sync]}")"
echo "  time, fetch + compose (dry run)    = $(ratio "${t[loop-dry]}" "${t[sync-dry]}")"
echo "  requests                           = $(ratio "${q[loop]}" "${q[sync]}")"
echo "  peak RSS                           = $(ratio "${r[loop]}" "${r[sync]}")"
echo "  (delivery to the Python sink, which fsyncs every mail, is most of a whole round;"
echo "   against a remote Bugzilla every request also costs a network round trip)"
