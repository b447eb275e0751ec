#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmarks of the blob store (make bench).  Prints figures and ratios
# against baselines run side by side in the same run; asserts nothing.
#
#   BENCH_SIZE_MB   size of the test file (default 1024 = 1 GiB)
#   BENCH_RUNS      runs per measurement; the median is reported (default 3)
#   BENCH_DIR       where to work (default: a new folder in $TMPDIR or /tmp)
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
: "${BUGBRIDGE:?set BUGBRIDGE to the bugbridge binary (make bench does)}"
size_mb=${BENCH_SIZE_MB:-1024}
runs=${BENCH_RUNS:-3}
server_pid=""
cleanup() {
	stop "$server_pid"
	rm -rf "$work"
}
make_work bugbridge-bench

# Contenders run interleaved, one run of each per round, so that drifting
# conditions (write-back, a virtual machine faulting in memory it handed
# back) fall on all of them alike.  contender NAME SETUP CMD registers one;
# run_rounds runs them $runs times; t NAME prints the median seconds.
names=() setups=() cmds=()
declare -A times
contender() { names+=("$1"); setups+=("$2"); cmds+=("$3"); times[$1]=""; }
run_rounds() {
	local i
	for _ in $(seq 1 "$runs"); do
		for i in "${!names[@]}"; do
			time_eval "${setups[$i]}" "${cmds[$i]}" || return 1
			times[${names[$i]}]+=" $run_secs"
		done
	done
}
# shellcheck disable=SC2086 # the list of times is split on purpose
t() { median ${times[$1]}; }
ratio() { echo "scale=2; $1 / $2" | bc -l; }
mbps() { echo "scale=0; $size_mb / $1" | bc -l; }

echo "bugbridge blob benchmark: ${size_mb} MiB file, median of $runs runs, in $work"
echo "machine: $(nproc) cores, $(uname -r); OpenSSL $(openssl version | cut -d' ' -f2)"
head -c $((size_mb * 1024 * 1024)) /dev/urandom >input.bin
sync                     # write-back of the input must not slow the first contenders
cat input.bin >/dev/null # warm the page cache for every contender alike
export BUGBRIDGE_CONFIG="$work/bench.conf"
printf '[core]\ndata_dir = %s/data\nlog_level = error\n[server]\nlisten = 127.0.0.1:0\n' "$work" >bench.conf
chmod 600 bench.conf

# each setup also syncs, so no run pays for the write-back of the one before
contender cp "rm -f copy.bin; sync" "cp input.bin copy.bin"
contender cp_sync "rm -f copy.bin; sync" "cp input.bin copy.bin && sync copy.bin"
contender sum_cp "rm -f copy.bin; sync" "sha256sum input.bin && cp input.bin copy.bin"
contender sum "" "sha256sum input.bin"
contender ossl "" "openssl dgst -sha256 input.bin"
contender put "rm -rf data; sync" "'$BUGBRIDGE' -q blob put input.bin"
contender again "" "'$BUGBRIDGE' -q blob put input.bin"
contender stdin "rm -rf data; sync" "'$BUGBRIDGE' -q blob put - <input.bin"
run_rounds || exit 1
rm -f copy.bin
t_cp=$(t cp) t_cp_sync=$(t cp_sync) t_sum_cp=$(t sum_cp) t_sum=$(t sum) t_ossl=$(t ossl)
t_put=$(t put) t_again=$(t again) t_stdin=$(t stdin)

# SHA-256 at OpenSSL's full speed on this CPU (1 MiB blocks, no I/O): the
# least time any program needs that hashes every byte of the file
ossl_kbps=$(openssl speed -seconds 2 -bytes 1048576 -evp sha256 2>/dev/null |
	awk '$1 == "sha256" {sub(/k$/, "", $2); print $2}')
t_floor=$(echo "scale=3; $size_mb * 1048.576 / $ossl_kbps" | bc -l)

printf '\n%-44s %9s %9s\n' "operation" "seconds" "MiB/s"
row() { printf '%-44s %9.3f %9s\n' "$1" "$2" "$(mbps "$2")"; }
row "cp" "$t_cp"
row "cp + sync (durable, like blob put)" "$t_cp_sync"
row "sha256sum + cp" "$t_sum_cp"
row "sha256sum alone" "$t_sum"
row "openssl dgst -sha256 alone" "$t_ossl"
row "SHA-256 alone, no I/O (openssl speed)" "$t_floor"
row "bugbridge blob put (new content)" "$t_put"
row "bugbridge blob put - (new, from a pipe)" "$t_stdin"
row "bugbridge blob put (already stored)" "$t_again"

echo
echo "ratios (lower is faster for bugbridge):"
echo "  blob put / cp                      = $(ratio "$t_put" "$t_cp")   (goal <= 1.3)"
echo "  blob put / (cp + sync)             = $(ratio "$t_put" "$t_cp_sync")   (cp made as durable as blob put)"
echo "  blob put / SHA-256 alone           = $(ratio "$t_put" "$t_floor")   (1.00 would be hashing with free I/O)"
echo "  SHA-256 alone / cp                 = $(ratio "$t_floor" "$t_cp")   (the least blob put / cp can be on this CPU)"
echo "  (sha256sum + cp) / blob put        = $(ratio "$t_sum_cp" "$t_put")   (speed-up; goal >= 4)"
echo "  blob put again / openssl dgst      = $(ratio "$t_again" "$t_ossl")   (goal: close to 1; nothing written)"
echo "  blob put again / sha256sum         = $(ratio "$t_again" "$t_sum")"

rm -rf data
rss_put=$(peak_rss_kb "$BUGBRIDGE" -q blob put input.bin)
hash=$(sha256sum input.bin | cut -c1-64)
"$BUGBRIDGE" -q serve --port-file port.txt &
server_pid=$!
wait_for_file port.txt 100 2>/dev/null
port=$(cat port.txt)
start=$(now)
curl -sS -o /dev/null "http://127.0.0.1:$port/blob/sha256/$hash"
t_get=$(echo "$(now) - $start" | bc -l)
rss_serve=$(awk '/^VmHWM/ {print $2}' "/proc/$server_pid/status")
kill "$server_pid"
wait "$server_pid" 2>/dev/null
server_pid=""

echo
echo "memory (goal: under 32 MiB whatever the blob size):"
echo "  peak RSS of blob put of ${size_mb} MiB:     $((rss_put / 1024)) MiB"
echo "  peak RSS of serve after a ${size_mb} MiB GET: $((rss_serve / 1024)) MiB  (GET took $(printf '%.3f' "$t_get") s, $(mbps "$t_get") MiB/s)"
