#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench-triage-real: the triage matcher (what bugbridge triage --no-tree
# runs) over the real labelled set of tests/bench/triage-real (issue 34):
# 440 first-of-thread bug reports from 22 vger lists, each labelled with the
# list it was posted to; a section is right when its L: lines include that
# list.  Prints top-1 and top-3 per list and overall, per kind of sender
# (people, syzbot, the kernel test robot), the confusion and the time per
# report.  The mails are not in the repository: triage_read.py reads them by
# Message-ID from the public-inbox clones under BENCH_TRIAGE_INBOXES
# (':'-separated folders; see tests/bench/triage-real/inboxes.py for the
# layouts).  Skipped (exit 0, with a message) when there are no clones or
# $BUGBRIDGE_SHARED has no MAINTAINERS.  BENCH_VERBOSE=1 prints each miss
# with the first three sections and their reasons.
#
# BENCH_TRIAGE_INDEX=PATH runs the set a second time with that kernel index
# (bugbridge triage-index build; what triage does with an index and no
# tree), the index lookups in the time per report.  When PATH does not
# exist it is built first, timed, from BENCH_TRIAGE_SOURCE (default
# /usr/src/linux-source-6.1.tar.xz, Debian's linux-source-6.1: apt-get
# install linux-source-6.1; not in .ci/install-deps); without either the
# run with the index is skipped, saying so.
set -eu
: "${BENCH_TRIAGE:?run through make bench-triage-real}"
: "${top_srcdir:?}"
shared=${BUGBRIDGE_SHARED:-$top_srcdir/../shared}
maintainers=$shared/corpus/maintainers/MAINTAINERS
set_dir=$top_srcdir/tests/bench/triage-real
if ! [ -f "$maintainers" ]; then
	echo "bench-triage-real: skipped, no $maintainers (set BUGBRIDGE_SHARED)"
	exit 0
fi
if [ -z "${BENCH_TRIAGE_INBOXES:-}" ]; then
	echo "bench-triage-real: skipped, BENCH_TRIAGE_INBOXES is not set (':'-separated"
	echo "  folders holding public-inbox clones of the lists of $set_dir/manifest.tsv)"
	exit 0
fi
export PYTHONDONTWRITEBYTECODE=1
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-triage-real.XXXXXX")
trap 'rm -rf "$work"' EXIT
rc=0
python3 "$set_dir/triage_read.py" "$set_dir/manifest.tsv" "$work" || rc=$?
if [ "$rc" = 77 ]; then
	echo "bench-triage-real: skipped, no mail of the set found"
	exit 0
fi
[ "$rc" = 0 ] || exit "$rc"
echo "== bench-triage-real: $(grep -c -v '^#' "$work/labels.tsv") real reports"
index=${BENCH_TRIAGE_INDEX:-}
if [ -n "$index" ] && ! [ -f "$index" ]; then
	source=${BENCH_TRIAGE_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
	if [ -e "$source" ]; then
		echo "== kernel index: building $index from $source"
		"${BUGBRIDGE:?}" triage-index build --output "$index" "$source"
	else
		echo "bench-triage-real: with the index: skipped, no $index and no $source"
		echo "  (apt-get install linux-source-6.1, or set BENCH_TRIAGE_SOURCE)"
		index=
	fi
fi
echo "== without tree or index"
"$BENCH_TRIAGE" ${BENCH_VERBOSE:+-v} -l "$maintainers" "$work/labels.tsv" "$work"
if [ -n "$index" ]; then
	echo "== with the kernel index $index ($(du -k "$index" | cut -f1) KiB)"
	"$BENCH_TRIAGE" ${BENCH_VERBOSE:+-v} -l -i "$index" "$maintainers" "$work/labels.tsv" \
		"$work"
fi
