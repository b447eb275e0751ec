#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of reading a public-inbox v2 inbox's whole history (make bench):
# ONE epoch (<inbox>/git/0.git, bare) of BENCH_EPOCH_MAILS real-shaped mails
# (default 40000) made from the shared mail corpus by bench-epoch-gen.py and
# written with one `git fast-import` stream, read from its start by
#   (a) the floor: git rev-list --reverse --first-parent | git cat-file --batch
#       (its output to /dev/null)
#   (b) bugbridge sync --from-start, [archive] kind = public-inbox and
#       path = <inbox>, on a fresh data folder, against the fake Bugzilla
#   (c) the floor with its output read through a pipe (| cat >/dev/null):
#       what carrying the mails to any reader costs, which (a) leaves out
#   (d) the floor into bench-pipe-reader, which reads as bugbridge reads
#       cat-file (a 1 MiB pipe, poll, a nap while under 64 KiB wait, 256 KiB
#       asked per read) and throws it away: the least a reader of git's
#       output through a pipe costs (BENCH_PIPE_READER; make bench builds it)
#   (e) the git work bugbridge asks for: it reads the commits and their
#       messages' blobs from git rev-list --objects --in-commit-order and
#       asks cat-file for each blob ("<blob> <commit>"), sparing cat-file a
#       second read of each commit and tree; (e) is that rev-list, then
#       cat-file answering those requests (made once before the runs) to
#       /dev/null, so the gain of asking so is shown apart from the rest
# interleaved (each run does (a) to (e) in turn, so that the machine's load
# falls on each side alike), median of BENCH_RUNS (default 5).  Prints a
# table: the wall time and the CPU (user + system, git's included: the
# round's children are reaped by it) of each, the ratios of each to (a)
# (goal for (b): at most 1.1x wall, 1.3x CPU), bugbridge's own CPU against
# its git children's (from /proc once it has ended; goal: at most 0.3) and its own
# peak RSS (VmHWM, sampled; goal: under 64 MiB), whether each goal is met,
# and the load average (1 minute) seen before each run and at the end: the
# goals are for a quiet machine.  Asserts nothing (the machine may be
# busy).  DKIM keys come from an empty key file, not DNS (see below).
#
# On ext4 without a journal, start it at least 6 minutes after many files
# were deleted (this bench's own cleanup, a make check): ext4 then passes
# over inodes freed in the last 1 to 6 minutes one by one when it makes a
# file, and the ~550 report pages of a round cost several times as much
# (perf shows recently_deleted() and find_inode_bit()).
#
#   BENCH_EPOCH_LAYOUT v2 (the default), or v1: a v1 inbox of as many mails
#                      (one repository whose commits each add a file;
#                      bugbridge reads it with `git log --raw` where (a) is
#                      git log --raw | git cat-file --batch; no (e))
#   BENCH_EPOCH_MAILS  how many mails (default 40000)
#   BENCH_EPOCH_INBOX  a real public-inbox v2 inbox to read instead of a
#                      generated one: its folder (with git/0.git, ...: all
#                      its epochs are read, (a) to (e) going over each in
#                      turn) or one epoch's bare repository; nothing is
#                      written to it.  bench-epoch-fetch.sh mirrors lore's
#                      platform-driver-x86 list (40,596 mails) for it.
#                      Messages git no longer has (purged) are passed over
#                      by all; bugbridge must read every one that is there
#   BENCH_RUNS         runs per measurement (default 5)
#   BENCH_EPOCH_CACHE  where the generated inbox is kept between runs
#                      (default /tmp/bugbridge-bench-epoch-<mails>, -v1-<mails>
#                      for a v1 inbox)
#   BENCH_DIR          where to work (default: a new folder in $TMPDIR or /tmp)
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
: "${BUGBRIDGE:?set BUGBRIDGE to the bugbridge binary (make bench does)}"
: "${BENCH_PIPE_READER:?set BENCH_PIPE_READER to tests/bench/bench-pipe-reader (make bench does)}"
PY=${PY:-python3}
count=${BENCH_EPOCH_MAILS:-40000}
runs=${BENCH_RUNS:-5}
real=${BENCH_EPOCH_INBOX:-}
corpus=${BUGBRIDGE_SHARED:-$top_srcdir/../shared}/corpus/mail
if [ -z "$real" ] && [ ! -d "$corpus" ]; then
	echo "bench-epoch: SKIP: no mail corpus at $corpus (set BUGBRIDGE_SHARED)"
	exit 0
fi
layout=${BENCH_EPOCH_LAYOUT:-v2}
case $layout in
v2) inbox=${BENCH_EPOCH_CACHE:-${TMPDIR:-/tmp}/bugbridge-bench-epoch-$count}
    epoch=$inbox/git/0.git ;;
v1) inbox=${BENCH_EPOCH_CACHE:-${TMPDIR:-/tmp}/bugbridge-bench-epoch-v1-$count}
    epoch=$inbox ;;
*) echo "bench-epoch: BENCH_EPOCH_LAYOUT is v1 or v2, not $layout" >&2; exit 1 ;;
esac
if [ -n "$real" ] && [ "$layout" != v2 ]; then
	echo "bench-epoch: BENCH_EPOCH_INBOX is a v2 inbox (BENCH_EPOCH_LAYOUT v2)" >&2
	exit 1
fi
real=${real%/}
make_work bugbridge-bench-epoch
cleanup() { stop "${bz_pid:-}"; rm -rf "$work"; }

# --- the inbox: a real one, or one generated once and kept ---------------------------
if [ -n "$real" ]; then
	real=$(cd "$real" && pwd) || exit 1
	if [ ! -d "$real/git" ] && [ -f "$real/HEAD" ] && [ -d "$real/objects" ]; then
		# one epoch's repository: an inbox around it (a link, nothing copied)
		mkdir -p "$work/inbox/git" && ln -s "$real" "$work/inbox/git/0.git" || exit 1
		inbox=$work/inbox
	else
		inbox=$real
	fi
	# its epochs, oldest first (as bugbridge reads them)
	epochs=$(cd "$inbox/git" 2>/dev/null && ls -d [0-9]*.git 2>/dev/null | sort -n |
		sed "s|^|$inbox/git/|")
	if [ -z "$epochs" ]; then
		echo "bench-epoch: $real is no public-inbox v2 inbox (no git/<n>.git)" >&2
		exit 1
	fi
	count=0
	while read -r e; do
		n=$(git --git-dir="$e" rev-list --count HEAD) || exit 1
		count=$((count + n))
	done <<<"$epochs"
elif [ "$(git --git-dir="$epoch" rev-list --count HEAD 2>/dev/null)" != "$count" ]; then
	echo "writing a public-inbox $layout inbox of $count mails in $inbox (kept for later runs)"
	rm -rf "$inbox" && mkdir -p "$(dirname "$epoch")" || exit 1
	git init -q --bare "$epoch" || exit 1
	start=$(now)
	if ! "$PY" "$top_srcdir/tests/bench/bench-epoch-gen.py" "$corpus" "$count" "$layout" |
		git --git-dir="$epoch" fast-import --quiet --done; then
		echo "bench-epoch: writing the epoch failed" >&2
		rm -rf "$inbox"
		exit 1
	fi
	printf '  written in %.1f s, %s\n' "$(echo "$(now) - $start" | bc -l)" \
		"$(du -sh "$epoch" | cut -f1)"
fi
[ -n "$real" ] || epochs=$epoch

cat >state.json <<'EOF2'
{"version": "5.2",
 "users": [{"login": "bridge@example.org", "real_name": "Bridge",
            "api_key": "benchkey0123456789", "groups": ["editbugs"]}],
 "products": [{"name": "Drivers", "components": ["Network"]}], "bugs": []}
EOF2
start_bugzilla state.json
{
	bench_config_head
	printf '[routing]\ndefault_lists = bench-list@lists.test\n'
	printf '[archive]\nkind = public-inbox\npath = %s\n' "$inbox"
	# the senders of #regzbot mails are checked with DKIM keys from a file
	# (an empty one): DNS answers, and lost ones that wait 5 s, are the
	# network's speed, not the reader's
	printf '[inbound]\ndkim_key_file = %s\n' "$work/dkim-keys"
} >bench.conf
: >dkim-keys
chmod 600 bench.conf
export BUGBRIDGE_CONFIG="$work/bench.conf"

# run_measured CMD...: runs CMD under /usr/bin/time; sets m_wall, m_cpu
# (user + system of CMD and the children it reaped) and m_rc
run_measured() {
	/usr/bin/time -o times.txt -f '%e %U %S' "$@" >out.txt 2>err.txt
	m_rc=$?
	read -r m_wall u s < <(tail -1 times.txt)
	m_cpu=$(echo "$u + $s" | bc -l)
}

# the floor: each message, oldest first, from git rev-list | git cat-file
# --batch (v1: the blobs git log --raw names, cat-file asked for each)
floor() { floor_piped_body >/dev/null; }
piped() { floor_piped_body | cat >/dev/null; }
floor_piped_body() {
	local epoch
	while read -r epoch; do
		if [ "$layout" = v1 ]; then
			git --git-dir="$epoch" log --reverse --first-parent --no-abbrev --raw \
				--no-renames --root --format= HEAD | cut -d' ' -f4 |
				git --git-dir="$epoch" cat-file --batch
		else
			git --git-dir="$epoch" rev-list --reverse --first-parent --no-commit-header \
				--format='%H:m' HEAD | git --git-dir="$epoch" cat-file --batch
		fi
	done <<<"$epochs"
}
reader() { floor_piped_body | "$BENCH_PIPE_READER" >/dev/null; }
# what bugbridge lists the commits and their messages' blobs with (of the
# epoch $1; a real inbox may lack a purged message's blob)
objects() {
	if [ "$layout" = v1 ]; then
		git --git-dir="$1" log --reverse --first-parent --no-abbrev --raw --no-renames \
			--root --format='commit %H' HEAD
	else
		git --git-dir="$1" rev-list --reverse --first-parent --objects --in-commit-order \
			--missing=allow-any HEAD
	fi
}
asked() {
	local epoch i=0
	while read -r epoch; do
		objects "$epoch" >/dev/null &&
			git --git-dir="$epoch" cat-file \
				--batch='%(objectname) %(objecttype) %(objectsize) %(rest)' \
				<"blob-requests.$((i++))" >/dev/null || return 1
	done <<<"$epochs"
}
export -f floor piped floor_piped_body reader objects asked
export BENCH_PIPE_READER
export epochs layout

# bugbridge_round: a full round from the start on a fresh data folder; sets
# m_wall, m_cpu, m_rc, m_rss (bugbridge's own VmHWM in KiB, sampled every
# 20 ms from /proc while it runs) and m_own and m_git (the CPU seconds of
# bugbridge itself and of the git children it reaped: utime + stime and
# cutime + cstime of /proc/PID/stat once it has ended, before it is reaped:
# bench-epoch-run.py; sampled while it runs, the last 20 ms of its own CPU
# were missed, and once a child reaped after the last sample: git 0.00)
bugbridge_round() {
	local tpid pid="" k v rest
	# the last run's data folder is moved aside, not deleted, until the end:
	# on an ext4 without a journal (as on this project's build machines),
	# inodes freed in the last minutes are skipped one by one when files
	# are made, so deleting the last run's 550 report pages here made the
	# next run's page writes about twice as slow as a first run's
	[ -d data ] && mv data "old-data.$((++old_runs))"
	rm -f times.txt.pid
	"$PY" "$top_srcdir/tests/bench/bench-epoch-run.py" times.txt "$BUGBRIDGE" sync --from-start \
		>out.txt 2>err.txt &
	tpid=$!
	m_rss=0
	while kill -0 "$tpid" 2>/dev/null; do
		[ -n "$pid" ] || read -r pid 2>/dev/null <times.txt.pid
		# (builtins only: the sampling must not load the machine; 2>/dev/null
		# first: a redirection fails before those after it apply, and the
		# process may end between the test and the read)
		if [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; then
			while read -r k v rest; do
				[ "$k" = VmHWM: ] && [ "$v" -gt "$m_rss" ] && m_rss=$v
			done 2>/dev/null <"/proc/$pid/status"
		fi
		sleep 0.02
	done
	wait "$tpid"
	m_rc=$?
	read -r m_wall u s m_own m_git < <(tail -1 times.txt)
	m_cpu=$(echo "$u + $s" | bc -l)
}

# the requests bugbridge makes of cat-file (mail/archive_git.c): per commit
# "<blob> <commit>" for the blob its tree adds as "m", else "<commit>:m
# <commit>" (v1: "<blob> <commit>" per file a commit adds; one each here)
# (one file per epoch); and how many messages are there to read (all but
# the blobs a real inbox lacks)
i=0 present=0
while read -r e; do
	if [ "$layout" = v1 ]; then
		objects "$e" | awk '/^commit / { c = $2; next } /^:/ { print $4 " " c }'
	else
		objects "$e" | awk 'index($0, " ") == 0 { if (c != "" && !m) print c ":m " c; c = $0; m = 0; next }
			$2 == "m" && NF == 2 && c != "" && !m { print $1 " " c; m = 1 }
			END { if (c != "" && !m) print c ":m " c }'
	fi >"blob-requests.$i"
	n=$(cut -d' ' -f1 "blob-requests.$i" | git --git-dir="$e" cat-file --batch-check |
		grep -c ' blob ')
	present=$((present + n)) i=$((i + 1))
done <<<"$epochs"
[ "$present" = "$count" ] ||
	echo "$((count - present)) of the $count messages are not in the repository (passed over by all)"
load1() { cut -d' ' -f1 /proc/loadavg; }
loads=()

fw=() fc=() bw=() bc=() br=() bo=() bg=() pw=() pc=() dw=() dc=() aw=() ac=() old_runs=0
for i in $(seq 1 "$runs"); do
	loads+=("$(load1)")
	run_measured bash -c floor
	if [ "$m_rc" != 0 ]; then
		echo "bench-epoch: git rev-list | git cat-file failed:" >&2
		cat err.txt >&2
		exit 1
	fi
	fw+=("$m_wall") fc+=("$m_cpu")
	bugbridge_round
	if [ "$m_rc" != 0 ] || ! grep -q "\b$present mails\? read" out.txt err.txt; then
		echo "bench-epoch: bugbridge sync --from-start failed or did not read $present mails:" >&2
		cat out.txt err.txt >&2
		exit 1
	fi
	bw+=("$m_wall") bc+=("$m_cpu") br+=("$m_rss") bo+=("$m_own") bg+=("$m_git")
	run_measured bash -c piped
	pw+=("$m_wall") pc+=("$m_cpu")
	run_measured bash -c reader
	dw+=("$m_wall") dc+=("$m_cpu")
	run_measured bash -c asked
	aw+=("$m_wall") ac+=("$m_cpu")
	printf '  run %d: floor %.2f s wall %.2f s CPU; bugbridge %.2f s wall %.2f s CPU (own %.2f, git %.2f) %.1f MiB; piped floor %.2f s wall %.2f s CPU; reader floor %.2f s wall %.2f s CPU; git as asked %.2f s wall %.2f s CPU\n' \
		"$i" "${fw[-1]}" "${fc[-1]}" "${bw[-1]}" "${bc[-1]}" "${bo[-1]}" "${bg[-1]}" \
		"$(mib "${br[-1]}")" "${pw[-1]}" "${pc[-1]}" "${dw[-1]}" "${dc[-1]}" "${aw[-1]}" "${ac[-1]}"
done
loads+=("$(load1)")
maw=$(median "${aw[@]}") mac=$(median "${ac[@]}")
mrw=$(median "${dw[@]}") mrc=$(median "${dc[@]}")
mpw=$(median "${pw[@]}") mpc=$(median "${pc[@]}")
mfw=$(median "${fw[@]}") mfc=$(median "${fc[@]}")
mbw=$(median "${bw[@]}") mbc=$(median "${bc[@]}") mbr=$(median "${br[@]}")
mbo=$(median "${bo[@]}") mbg=$(median "${bg[@]}")
# goal NAME VALUE LIMIT [below]: "met" if VALUE <= LIMIT (< with below)
goal() {
	local op='<='
	[ "${4:-}" = below ] && op='<'
	if [ "$2" != - ] && [ "$(echo "$2 $op $3" | bc -l)" = 1 ]; then
		printf '%s met' "$1"
	else
		printf '%s NOT met' "$1"
	fi
}
row() {
	printf '  %-46s %7.2f %7.2f %7s %6s %6s\n' "$1" "$2" "$3" "$4" \
		"$(quotient %.2f "$2" "$mfw")" "$(quotient %.2f "$3" "$mfc")"
}
if [ -n "$real" ]; then
	printf 'public-inbox v2 inbox %s, %d mails in %d epoch(s) (%d there to read), read from its start\n' \
		"$real" "$count" "$(wc -l <<<"$epochs")" "$present"
else
	printf 'generated public-inbox %s inbox of %d mails, read from its start\n' "$layout" "$count"
fi
printf 'median of %d interleaved runs; %d cores; load average (1 min) before each run and at the end: %s\n' \
	"$runs" "$(nproc)" "${loads[*]}"
printf '  %-46s %7s %7s %7s %6s %6s\n' "" "wall s" "CPU s" "RSS MiB" "wall x" "CPU x"
if [ "$layout" = v1 ]; then
	row "(a) git log --raw | git cat-file --batch" "$mfw" "$mfc" -
else
	row "(a) git rev-list | git cat-file --batch" "$mfw" "$mfc" -
fi
row "(b) bugbridge sync --from-start" "$mbw" "$mbc" "$(mib "$mbr")"
row "(c) (a) | cat >/dev/null" "$mpw" "$mpc" -
row "(d) (a) | bench-pipe-reader" "$mrw" "$mrc" -
row "(e) git rev-list --objects, cat-file as asked" "$maw" "$mac" -
printf '  (b): own CPU %.2f s, its git children %.2f s: own/git %s\n' \
	"$mbo" "$mbg" "$(quotient %.2f "$mbo" "$mbg")"
printf '  (b) against (c): wall %s, CPU %s; against (d): wall %s, CPU %s; against (e): wall %s, CPU %s\n' \
	"$(quotient %.2f "$mbw" "$mpw")" "$(quotient %.2f "$mbc" "$mpc")" \
	"$(quotient %.2f "$mbw" "$mrw")" "$(quotient %.2f "$mbc" "$mrc")" \
	"$(quotient %.2f "$mbw" "$maw")" "$(quotient %.2f "$mbc" "$mac")"
printf '  goals (a quiet machine): %s, %s, %s, %s\n' \
	"$(goal 'wall <= 1.1x' "$(quotient %.3f "$mbw" "$mfw")" 1.1)" \
	"$(goal 'CPU <= 1.3x' "$(quotient %.3f "$mbc" "$mfc")" 1.3)" \
	"$(goal 'own/git <= 0.3' "$(quotient %.3f "$mbo" "$mbg")" 0.3)" \
	"$(goal 'RSS < 64 MiB' "$mbr" 65536 below)"
