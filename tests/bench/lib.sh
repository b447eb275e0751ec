# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# shellcheck disable=SC2034 # work, run_*, bz_pid and bz_url are the callers'
# Helpers shared by the benchmarks (tests/bench/bench-*.sh), which source
# it first thing after `set -u`:
#
#   . "$(dirname "$0")/lib.sh" || exit 1
#
# It only defines functions and top_srcdir; the scripts print everything.

# the source tree (make bench passes it; by hand, the one this file is in)
: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"

# --- the work folder ------------------------------------------------------------
# make_work NAME: makes $work, a new folder NAME.XXXXXX in BENCH_DIR (else
# TMPDIR, else /tmp), has cleanup run on exit and moves into it.
make_work() {
	mkdir -p "${BENCH_DIR:-${TMPDIR:-/tmp}}" || exit 1
	work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/$1.XXXXXX") || exit 1
	trap cleanup EXIT
	cd "$work" || exit 1
}
# cleanup: removes the work folder; a script with servers to stop defines
# its own, which stops them and then removes it.
cleanup() { rm -rf "$work"; }
# stop PID: ends a background process and waits for it (nothing if PID is empty)
stop() { [ -n "$1" ] && kill "$1" 2>/dev/null && wait "$1" 2>/dev/null; }

# wait_for_file FILE [TRIES [SECONDS]]: waits until FILE is there and not
# empty, looking TRIES times (default 200) SECONDS apart (default 0.05);
# fails, saying so on standard error, if it never is.
wait_for_file() {
	for _ in $(seq 1 "${2:-200}"); do [ -s "$1" ] && return 0; sleep "${3:-0.05}"; done
	echo "bench: $1 did not appear" >&2
	return 1
}

# --- time and memory ------------------------------------------------------------
now() { date +%s.%N; }
# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# time_eval SETUP CMD: evaluates SETUP (untimed), then CMD, both with their
# output thrown away; sets run_secs to CMD's wall time.  Fails with a
# message if CMD does.
time_eval() {
	local start
	eval "$1" >/dev/null 2>&1
	start=$(now)
	if ! eval "$2" >/dev/null 2>&1; then
		echo "bench: command failed: $2" >&2
		return 1
	fi
	run_secs=$(echo "$(now) - $start" | bc -l)
}

# run_timed OUT ERR CMD...: runs CMD under /usr/bin/time, its standard
# output to OUT and its errors to ERR; sets run_secs (wall time), run_rss
# (peak RSS in KiB, by way of the file rss.txt) and run_rc (its exit status).
run_timed() {
	local out=$1 err=$2 start
	shift 2
	start=$(now)
	/usr/bin/time -o rss.txt -f %M "$@" >"$out" 2>"$err"
	run_rc=$?
	run_secs=$(echo "$(now) - $start" | bc -l)
	run_rss=$(tail -1 rss.txt)
}

# peak_rss_kb CMD...: runs CMD, its output thrown away; prints its peak RSS in KiB
peak_rss_kb() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }

# --- figures --------------------------------------------------------------------
# quotient FORMAT A B: A / B printed with the printf FORMAT, or "-" unless B > 0
quotient() {
	# shellcheck disable=SC2059 # the format is the caller's
	if [ "$(echo "$3 > 0" | bc -l)" = 1 ]; then printf "$1" "$(echo "$2 / $3" | bc -l)"; else echo "-"; fi
}
# mib KIB: KIB in MiB, one decimal
mib() { echo "scale=1; $1 / 1024" | bc -l; }

# --- the fake Bugzilla (tests/lib/fake_bugzilla.py, run by $PY) ------------------
# start_bugzilla STATE: starts it on the state file STATE; sets bz_pid and
# bz_url; exits if it does not come up.
start_bugzilla() {
	rm -f bz.port
	"$PY" "$top_srcdir/tests/lib/fake_bugzilla.py" --state "$1" --port-file bz.port \
		>bz.out 2>&1 &
	bz_pid=$!
	wait_for_file bz.port || exit 1
	bz_url="http://127.0.0.1:$(cat bz.port)"
}
# admin NAME JSON: POST JSON to its admin API /__admin/NAME
admin() { curl -sf -X POST --data-binary "$2" "$bz_url/__admin/$1" >/dev/null; }

# bench_config_head: the configuration the bridge benchmarks start with
# (data in $work/data, the fake Bugzilla at $bz_url, mail from bench.test);
# each adds its own sections after it.
bench_config_head() {
	cat <<EOF
[core]
data_dir = $work/data
log_level = error
[bugzilla]
url = $bz_url
api_key = benchkey0123456789
api_key_in = param
first_sync = all
backfill_confirm = 1000000
[mail]
domain = bench.test
from = Bench bridge <bridge@bench.test>
EOF
}
