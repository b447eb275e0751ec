#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Blob GET throughput of bugbridge serve against nginx serving the same
# files, measured with wrk, the load tool web people use (make bench only,
# never make check).  Prints figures and ratios of contenders run side by
# side, interleaved; asserts nothing.  Skipped, saying so, when nginx
# (Debian's nginx-light) or wrk (Debian's wrk) is not installed: neither is
# a build or test dependency.
#
# 4 KiB and 1 MiB blobs: `wrk -t2 -cBENCH_CLIENTS -dBENCH_SECONDS --latency`,
# requests/s, bytes/s and the 99th percentile latency.  The big blob: 4
# connections (BENCH_BIG_CLIENTS), runs of BENCH_BIG_SECONDS, bytes/s only.
# wrk does the whole job; the project has no load generator of its own.
# Beside them, bench-mhd-floor (BENCH_MHD_FLOOR): a libmicrohttpd server
# with a thread per connection and nothing else (a file over 64 KiB sent
# with sendfile), the floor the library sets; and the same with a pool of
# one thread a core ("pool", serve's default threading; BENCH_MHD_POOL=0
# leaves it out).  serve in a pool sends blobs up to 4 MiB from a shared
# mapping (web/blob_maps.h), which the floors do not.
#
#   BENCH_SECONDS     length of each small/medium run (default 10)
#   BENCH_CLIENTS     concurrent keep-alive connections (default 64)
#   BENCH_BIG_MB      size of the big blob in MiB (default 1024 = 1 GiB)
#   BENCH_BIG_SECONDS length of each big run (default 30)
#   BENCH_BIG_CLIENTS connections for the big blob (default 4)
#   BENCH_RUNS        runs per measurement, interleaved; the median is kept
#                     (default 3)
#   BENCH_THREADS     wrk threads (default 2)
#   BENCH_DIR         where to work (default: a new folder in $TMPDIR or /tmp)
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
: "${BUGBRIDGE:?set BUGBRIDGE to the bugbridge binary (make bench does)}"
NGINX=${NGINX:-/usr/sbin/nginx}
WRK=${WRK:-$(command -v wrk)}
if [ ! -x "$NGINX" ]; then
	echo "bench-serve: SKIP: $NGINX is not installed (apt-get install nginx-light to compare)"
	exit 0
fi
if [ -z "$WRK" ] || [ ! -x "$WRK" ]; then
	echo "bench-serve: SKIP: wrk is not installed (apt-get install wrk to measure)"
	exit 0
fi
seconds=${BENCH_SECONDS:-10}
clients=${BENCH_CLIENTS:-64}
big_mb=${BENCH_BIG_MB:-1024}
big_seconds=${BENCH_BIG_SECONDS:-30}
big_clients=${BENCH_BIG_CLIENTS:-4}
runs=${BENCH_RUNS:-3}
wrk_threads=${BENCH_THREADS:-2}
serve_pid="" nginx_pid="" floor_pid="" pool_pid=""
cleanup() {
	stop "$serve_pid"
	stop "$nginx_pid"
	stop "$floor_pid"
	stop "$pool_pid"
	rm -rf "$work"
}
make_work bugbridge-bench-serve
chmod 755 "$work"

echo "bugbridge serve vs nginx: blob GET with wrk -t$wrk_threads --latency, interleaved," \
	"median of $runs, in $work"
echo "  4 KiB, 1 MiB: $clients keep-alive connections, ${seconds} s runs;" \
	"$big_mb MiB: $big_clients connections, ${big_seconds} s runs"
echo "machine: $(nproc) cores, $(uname -r); $("$NGINX" -v 2>&1); $("$WRK" -v 2>&1 | head -1)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

export BUGBRIDGE_CONFIG="$work/bench.conf"
# all clients come from 127.0.0.1: the per-client limit must let them in
printf '[core]\ndata_dir = %s/data\nlog_level = error\n[server]\nlisten = 127.0.0.1:0\nmax_connections_per_client = %s\n' \
	"$work" "$((clients + 16))" >bench.conf
chmod 600 bench.conf
head -c 4096 /dev/urandom >small.bin
head -c $((1024 * 1024)) /dev/urandom >medium.bin
head -c $((big_mb * 1024 * 1024)) /dev/urandom >big.bin
declare -A hash
for f in small medium big; do
	hash[$f]=$("$BUGBRIDGE" -q blob put "$f.bin" | head -1 | sed 's/^sha256://')
	[ -n "${hash[$f]}" ] || { echo "bench-serve: blob put $f.bin failed" >&2; exit 1; }
done
rm -f big.bin medium.bin small.bin
cat data/blobs/sha256/*/* >/dev/null # the page cache holds them for both alike
# nginx's workers run as another user unless told otherwise
chmod -R a+rX data/blobs

"$BUGBRIDGE" -q serve --port-file serve.port &
serve_pid=$!
wait_for_file serve.port || exit 1
serve_port=$(cat serve.port)

nginx_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p nginx/logs nginx/tmp
user_line=""
[ "$(id -u)" = 0 ] && user_line="user root;"
cat >nginx/nginx.conf <<EOF
$user_line
worker_processes 2;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 100000;
	client_body_temp_path $work/nginx/tmp;
	proxy_temp_path $work/nginx/tmp;
	fastcgi_temp_path $work/nginx/tmp;
	uwsgi_temp_path $work/nginx/tmp;
	scgi_temp_path $work/nginx/tmp;
	types { }
	default_type application/octet-stream;
	server {
		listen 127.0.0.1:$nginx_port;
		location ~ "^/blob/sha256/([0-9a-f]{2})([0-9a-f]{62})\$" {
			alias $work/data/blobs/sha256/\$1/\$2;
			add_header X-Content-Type-Options nosniff;
			add_header Cache-Control "public, max-age=31536000, immutable";
		}
	}
}
EOF
"$NGINX" -p "$work/nginx" -c "$work/nginx/nginx.conf" -g 'daemon off;' 2>nginx/stderr &
nginx_pid=$!
for _ in $(seq 1 100); do
	curl -s -o /dev/null "http://127.0.0.1:$nginx_port/blob/sha256/${hash[small]}" && break
	sleep 0.05
done

floor_port="" pool_port=""
if [ -n "${BENCH_MHD_FLOOR:-}" ] && [ -x "$BENCH_MHD_FLOOR" ]; then
	"$BENCH_MHD_FLOOR" "$work/data/blobs/sha256" floor.port &
	floor_pid=$!
	wait_for_file floor.port || exit 1
	floor_port=$(cat floor.port)
	if [ "${BENCH_MHD_POOL:-1}" != 0 ]; then
		"$BENCH_MHD_FLOOR" "$work/data/blobs/sha256" pool.port "$(nproc)" &
		pool_pid=$!
		wait_for_file pool.port || exit 1
		pool_port=$(cat pool.port)
	fi
else
	echo "bench-serve: no libmicrohttpd floor (BENCH_MHD_FLOOR unset; make bench-serve builds it)"
fi

# all must serve the same bytes before anything is measured
for f in small medium; do
	for port in "$serve_port" "$nginx_port" $floor_port $pool_port; do
		got=$(curl -s "http://127.0.0.1:$port/blob/sha256/${hash[$f]}" | sha256sum | cut -c1-64)
		if [ "$got" != "${hash[$f]}" ]; then
			echo "bench-serve: port $port does not serve $f correctly" >&2
			cat nginx/stderr nginx/logs/error.log >&2
			exit 1
		fi
	done
done

rss_kb() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }
rss_before=$(rss_kb "$serve_pid" VmRSS)
hwm_before=$(rss_kb "$serve_pid" VmHWM)

# wrk's own summary, exact: requests, bytes, seconds, errors and the 99th
# percentile latency in microseconds, one line at the end of a run
cat >report.lua <<'LUA'
done = function(summary, latency, requests)
	local e = summary.errors
	io.write(string.format("requests=%d bytes=%d seconds=%.6f errors=%d p99=%d\n",
		summary.requests, summary.bytes, summary.duration / 1e6,
		e.connect + e.read + e.write + e.status + e.timeout,
		latency:percentile(99)))
end
LUA

# load PORT BLOB CONNECTIONS SECONDS: sets load_rps, load_mibps and
# load_p99 (ms) for one run
load() {
	local out threads=$wrk_threads
	[ "$3" -lt "$threads" ] && threads=$3
	# a request may take the whole run (1 GiB over 4 connections): wrk's
	# default 2 s timeout would count it as an error and drop its bytes
	out=$("$WRK" -t"$threads" -c"$3" -d"$4"s --timeout "$4"s --latency -s report.lua \
		"http://127.0.0.1:$1/blob/sha256/${hash[$2]}" | tail -1)
	load_errors=$(printf '%s\n' "$out" | sed -n 's/.*errors=\([0-9]*\).*/\1/p')
	load_mibps=$(printf '%s\n' "$out" | awk '{for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%.1f", v["bytes"] / v["seconds"] / 1048576 }')
	load_rps=$(printf '%s\n' "$out" | awk '{for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%.0f", v["requests"] / v["seconds"] }')
	load_p99=$(printf '%s\n' "$out" | awk '{for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%.2f", v["p99"] / 1000 }')
	[ "${load_errors:-1}" = 0 ] || echo "bench-serve: ${load_errors:-?} errors in a run on port $1 ($2)" >&2
}

# the contenders, in the order each run takes them: bugbridge serve,
# nginx, and, when built (make bench-serve builds it), the libmicrohttpd
# floor: the least an MHD server with serve's flags does (no guard, no
# log, no database), which shows what part of a gap is the library's
names=(serve nginx) ports=("$serve_port" "$nginx_port")
[ -n "$floor_port" ] && names+=(floor) ports+=("$floor_port")
[ -n "$pool_port" ] && names+=(pool) ports+=("$pool_port")
row() {
	local label=$1 what=$2 n
	printf '%-10s %-6s' "$label" "$what"
	shift 2
	for n in "$@"; do printf ' %10s' "$n"; done
	printf '\n'
}
echo
row "blob" "" "${names[@]}" "serve/nginx" ${floor_port:+serve/floor floor/nginx} \
	${pool_port:+pool/nginx}
for f in small medium big; do
	conns=$clients secs=$seconds
	[ "$f" = big ] && conns=$big_clients secs=$big_seconds
	declare -A rps=() mib=() p99=()
	for _ in $(seq 1 "$runs"); do
		for k in "${!names[@]}"; do
			load "${ports[$k]}" "$f" "$conns" "$secs"
			rps[$k]+=" $load_rps" mib[$k]+=" $load_mibps" p99[$k]+=" $load_p99"
		done
	done
	case $f in
	small) label="4 KiB" ;;
	medium) label="1 MiB" ;;
	big) label="$big_mb MiB" ;;
	esac
	r_rps=() r_mib=() r_p99=()
	for k in "${!names[@]}"; do
		# shellcheck disable=SC2086 # lists of figures, split on purpose
		{ r_rps[k]=$(median ${rps[$k]}) r_mib[k]=$(median ${mib[$k]}) r_p99[k]=$(median ${p99[$k]}); }
	done
	ratios=("$(quotient '%.2f' "${r_mib[0]}" "${r_mib[1]}")")
	[ -n "$floor_port" ] && ratios+=("$(quotient '%.2f' "${r_mib[0]}" "${r_mib[2]}")" \
		"$(quotient '%.2f' "${r_mib[2]}" "${r_mib[1]}")")
	[ -n "$pool_port" ] && ratios+=("$(quotient '%.2f' "${r_mib[3]}" "${r_mib[1]}")")
	[ "$f" = big ] || row "$label" "req/s" "${r_rps[@]}"
	row "$label" "MiB/s" "${r_mib[@]}" "${ratios[@]}"
	[ "$f" = big ] || row "$label" "p99 ms" "${r_p99[@]}"
	unset rps mib p99
done

rss_after=$(rss_kb "$serve_pid" VmRSS)
rss_peak=$(rss_kb "$serve_pid" VmHWM)
echo
echo "serve/nginx: bugbridge's throughput over nginx's (goal >= 1.00); serve/floor: over the"
echo "libmicrohttpd floor's (bench-mhd-floor: the same library and flags, nothing else);"
echo "floor/nginx, pool/nginx: that floor, and the same with a pool of $(nproc) threads, over nginx"
echo "serve RSS: $(mib "$rss_before") MiB before, $(mib "$rss_after") MiB after;" \
	"peak $(mib "$hwm_before") MiB before the runs, $(mib "$rss_peak") MiB after" \
	"(+$(mib $((rss_peak - hwm_before))) MiB; goal <= +16)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
