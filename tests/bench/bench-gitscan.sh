#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of tracker/gitscan (make bench): a scan of a generated
# repository for trailers against `git log --format=%H%x00%B >/dev/null`
# over the same history, in the same run; then a rescan with nothing new and
# a scan of a few new commits.
#
# The repository is made with git fast-import: BENCH_COMMITS commits on one
# branch, kernel-like messages (a subject, a body, a trailer block with
# Signed-off-by lines, most with a Link: to patch.msgid.link, some with
# Closes: to lore or Bugzilla, Fixes:, Reported-by:, Cc: stable), and a
# commit-graph, as git gc writes it in a real clone.
#
# Prints figures and ratios (goal: scan within 1.5x of git log; rescan
# under 100 ms); asserts nothing.
#
#   BENCH_COMMITS   commits to generate (default 1000000)
#   BENCH_RUNS      runs per measurement; the median is reported (default 3)
#   BENCH_DIR       where to work (default: a new folder in $TMPDIR or /tmp)
#   BENCH_GITSCAN   the bench-gitscan driver (make bench sets it)
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
: "${BENCH_GITSCAN:?set BENCH_GITSCAN to the bench-gitscan binary (make bench does)}"
ncommits=${BENCH_COMMITS:-1000000}
runs=${BENCH_RUNS:-3}
PY=python3
make_work bugbridge-bench-gitscan
export TZ=UTC GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
unset GIT_DIR GIT_WORK_TREE

# timed OUT COMMAND...: runs COMMAND with stdout to OUT; prints its wall
# time and CPU time (user + system, its children included) in seconds.
timed() {
	local out=$1 t TIMEFORMAT='%R %U %S'
	shift
	t=$( { time "$@" >"$out"; } 2>&1 ) || { echo "bench: $* failed: $t" >&2; return 1; }
	echo "$t" | awk '{printf "%s %.3f\n", $1, $2 + $3}'
}
ratio() { quotient %.2f "$1" "$2"; }

# gen FIRST COUNT: a fast-import stream of COUNT commits on master,
# numbered from FIRST, on standard output.
gen() {
	"$PY" - "$1" "$2" <<'EOF'
import sys
first, count = int(sys.argv[1]), int(sys.argv[2])
out = sys.stdout.buffer
subs = ["net: foo", "mm/slab", "drm/i915", "usb: xhci", "ext4", "x86/mm", "sched/fair",
        "wifi: iwlwifi", "ALSA: hda", "btrfs", "nvme", "pci"]
verbs = ["fix a crash in", "avoid a leak in", "handle errors from", "simplify",
         "drop a stale check in", "add a quirk for"]
body = ("The function did not take the lock before walking the list, so a\n"
        "concurrent removal could free an entry under us.  Take the lock and\n"
        "walk the list with the safe iterator.\n")
for i in range(first, first + count):
    sub = "%s: %s item %d" % (subs[i % len(subs)], verbs[i % len(verbs)], i)
    t = []
    if i % 7 == 0:
        t.append("Fixes: %012x (\"%s: add item %d\")" % ((i * 2654435761) & 0xffffffffffff,
                                                       subs[i % len(subs)], i - 100))
    if i % 10 == 0:
        t.append("Reported-by: Reporter %d <reporter%d@example.org>" % (i % 97, i % 97))
        if i % 20 == 0:
            t.append("Closes: https://bugzilla.kernel.org/show_bug.cgi?id=%d" % (200000 + i))
        else:
            t.append("Closes: https://lore.kernel.org/all/%d.report@example.org/" % i)
    if i % 13 == 0:
        t.append("Cc: stable@vger.kernel.org # 6.1+")
    t.append("Signed-off-by: Developer %d <dev%d@example.org>" % (i % 53, i % 53))
    if i % 4:
        t.append("Link: https://patch.msgid.link/%d.%d-1-dev%d@example.org" % (i, i % 1000, i % 53))
    t.append("Signed-off-by: Maintainer %d <maint%d@example.org>" % (i % 11, i % 11))
    msg = ("%s\n\n%s\n%s\n" % (sub, body, "\n".join(t))).encode()
    # a later stream continues the branch made by an earlier one
    parent = b"from refs/heads/master^0\n" if i == first and first else b""
    out.write(b"commit refs/heads/master\ncommitter Dev <dev@example.org> %d +0000\ndata %d\n%s\n%s"
              % (1600000000 + i * 60, len(msg), msg, parent))
EOF
}

echo "bench-gitscan: generating $ncommits commits"
t0=$(now)
git init -q --bare repo.git || exit 1
gen 0 "$ncommits" | git --git-dir=repo.git fast-import --quiet || exit 1
git --git-dir=repo.git commit-graph write --reachable >/dev/null 2>&1
t1=$(now)
printf 'bench-gitscan: repository made in %.1f s (%s)\n' "$(echo "$t1 - $t0" | bc -l)" \
	"$(du -sh repo.git | cut -f1)"

log_times=() log_cpu=() scan_times=() scan_cpu=() rescan_wall=() rescan_inner=()
for _ in $(seq 1 "$runs"); do
	read -r wall cpu < <(timed /dev/null git --git-dir=repo.git log --format=%H%x00%B) || exit 1
	log_times+=("$wall") log_cpu+=("$cpu")
	read -r wall cpu < <(timed scan.out "$BENCH_GITSCAN" repo.git master) || exit 1
	[ -s scan.out ] || exit 1
	scan_times+=("$wall") scan_cpu+=("$cpu")
done
cat scan.out
cursor=$(sed -n 's/.*cursor=\([0-9a-f]*\).*/\1/p' scan.out)
for _ in $(seq 1 "$runs"); do
	t0=$(now)
	"$BENCH_GITSCAN" repo.git master "$cursor" >rescan.out || exit 1
	t1=$(now)
	rescan_wall+=("$(echo "($t1 - $t0) * 1000" | bc -l)")
	rescan_inner+=("$(sed -n 's/.* ms=\([0-9.]*\) .*/\1/p' rescan.out)")
done
cat rescan.out

gen "$ncommits" 100 | git --git-dir=repo.git fast-import --quiet || exit 1
"$BENCH_GITSCAN" repo.git master "$cursor" >incr.out || exit 1
cat incr.out

log_m=$(median "${log_times[@]}")
scan_m=$(median "${scan_times[@]}")
log_c=$(median "${log_cpu[@]}")
scan_c=$(median "${scan_cpu[@]}")
printf '\n%-46s %10s\n' "measurement ($ncommits commits, median of $runs)" "result"
printf '%-46s %9.2fs\n' "git log --format=%H%x00%B >/dev/null" "$log_m"
printf '%-46s %9.2fs\n' "bench-gitscan (one scan, whole history)" "$scan_m"
printf '%-46s %9.2fx  (goal <= 1.5x)\n' "  ratio to git log" "$(ratio "$scan_m" "$log_m")"
printf '%-46s %9.2fs\n' "CPU time: git log" "$log_c"
printf '%-46s %9.2fs\n' "CPU time: bench-gitscan and its git log" "$scan_c"
printf '%-46s %9.2fx  (independent of other load)\n' "  ratio" "$(ratio "$scan_c" "$log_c")"
printf '%-46s %9.1fms (goal < 100 ms)\n' "rescan, nothing new (scan call)" "$(median "${rescan_inner[@]}")"
printf '%-46s %9.1fms\n' "rescan, nothing new (whole process)" "$(median "${rescan_wall[@]}")"
printf '%-46s %9.1fms\n' "scan of 100 new commits (scan call)" \
	"$(sed -n 's/.* ms=\([0-9.]*\) .*/\1/p' incr.out)"
