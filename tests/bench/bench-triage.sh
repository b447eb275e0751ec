#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench-triage: the triage matcher (triage/match.c) over the labelled
# reports of tests/triage with the MAINTAINERS file of the shared corpus:
# top-1 and top-3 accuracy and the time per report.  Skipped (exit 0, with
# a message) when $BUGBRIDGE_SHARED has no MAINTAINERS.
set -eu
: "${BENCH_TRIAGE:?run through make bench-triage}"
: "${top_srcdir:?}"
shared=${BUGBRIDGE_SHARED:-$top_srcdir/../shared}
maintainers=$shared/corpus/maintainers/MAINTAINERS
if ! [ -f "$maintainers" ]; then
	echo "bench-triage: skipped, no $maintainers (set BUGBRIDGE_SHARED)"
	exit 0
fi
echo "== bench-triage: $(grep -c -v '^#' "$top_srcdir/tests/triage/labels.tsv") labelled reports"
exec "$BENCH_TRIAGE" ${BENCH_VERBOSE:+-v} "$maintainers" "$top_srcdir/tests/triage/labels.tsv" \
	"$top_srcdir/tests/triage/reports"
