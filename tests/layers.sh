#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The house in layers: checks, from the source alone, the rules of the
# folder layout (README, "Layout") and prints the offending line for each
# break.  Runs in `make check` (TAP) and by hand: sh tests/layers.sh [TOP].
#
#   1. Every folder with C code is a layer; from the bottom:
#        core config attachments bugzilla mail triage tracker bridge
#        migrate web cli
#      and a file includes headers of its own folder and of folders below
#      it only ("core/buf.h" from anywhere, "bridge/sync.h" never from
#      tracker/).
#   2. No two files include each other, directly or through others.
#   3. Only cli/ prints to the terminal or exits; a line of another folder
#      that must (the crash-at-a-step test hook) says so with the words
#      "layers: allowed" in a comment on that line.
#   4. No folder holds more than a quarter of the C code outside tests/;
#      no file is longer than 2,000 lines (split it where it has two jobs).
#   5. Every C, shell and Python source names its licence in its first
#      lines (SPDX-License-Identifier: GPL-2.0-or-later, as COPYING).
set -u

# this script by an absolute name: the self-test below runs it again from
# inside the source folder, and make distcheck names it relatively
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
top=${1:-${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}}
cd "$top" || { echo "Bail out! no source folder $top"; exit 99; }

layers="core config attachments bugzilla mail triage tracker bridge migrate web cli"
max_lines=2000
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bugbridge-layers.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
report() { # report NAME FILE: ok when FILE is empty, else not ok and its lines
	n=$((n + 1))
	if [ -s "$2" ]; then
		failed=$((failed + 1))
		echo "not ok $n - $1"
		sed 's/^/#   /' "$2"
	else
		echo "ok $n - $1"
	fi
}

rank() { # the position of folder $1 in $layers (1 = core), 0 if not a layer
	i=0
	for l in $layers; do
		i=$((i + 1))
		[ "$l" = "$1" ] && { echo "$i"; return; }
	done
	echo 0
}

# The C files outside tests/, build output and hidden folders, as
# folder/file; a build made inside the source tree adds only config.h at
# the top, which is no folder.
find . -mindepth 2 -maxdepth 2 \( -name '*.c' -o -name '*.h' \) -type f |
	sed 's|^\./||' | grep -v -E '^(tests|_[^/]*|\.[^/]*|autom4te\.cache)/' | LC_ALL=C sort \
	>"$tmp/files"
if ! [ -s "$tmp/files" ]; then
	echo "Bail out! no C files under $top"
	exit 99
fi

# 1. folders are layers, includes go down.  Each include line as
# "file:line:folder/header".
: >"$tmp/unknown"
for d in $(cut -d/ -f1 "$tmp/files" | uniq); do
	[ "$(rank "$d")" -eq 0 ] && echo "$d/ holds C code but is not a layer ($layers)" >>"$tmp/unknown"
done
report "every folder with C code is a layer" "$tmp/unknown"

# shellcheck disable=SC2046
grep -n -H -E '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"]+/[^"]+"' $(cat "$tmp/files") |
	sed -E 's/^([^:]+):([0-9]+):.*"([^"]+)".*/\1:\2:\3/' >"$tmp/includes"
: >"$tmp/up"
for l in $layers; do
	echo "$l $(rank "$l")"
done >"$tmp/ranks"
awk -F: 'NR == FNR { split($0, a, " "); rank[a[1]] = a[2]; next }
	{
		split($1, f, "/"); split($3, h, "/")
		if (!(h[1] in rank) || rank[h[1]] > rank[f[1]])
			printf "%s:%s: #include \"%s\" (%s/ is above %s/)\n", $1, $2, $3, h[1], f[1]
	}' "$tmp/ranks" "$tmp/includes" >"$tmp/up"
report "no folder includes a header of a folder above it" "$tmp/up"

# The two rules the issue names, as their own checks (they follow from the
# order, but say what breaks in words a reader looks for).
grep -E '^attachments/[^:]+:[0-9]+:(bugzilla|mail|triage|tracker|bridge|migrate|web|cli)/' \
	"$tmp/includes" | sed -E 's/^([^:]+:[0-9]+):(.*)$/\1: #include "\2"/' >"$tmp/att"
report "attachments/ includes nothing from the drivers, the tracker, the engine or the faces" "$tmp/att"
grep -E '^tracker/[^:]+:[0-9]+:(bridge|migrate|web|cli)/' "$tmp/includes" |
	sed -E 's/^([^:]+:[0-9]+):(.*)$/\1: #include "\2"/' >"$tmp/trk"
report "tracker/ includes nothing from bridge/, migrate/, web/ or cli/" "$tmp/trk"

# 2. no cycles: tsort names the files of any loop in the include graph.
: >"$tmp/edges"
while IFS=: read -r file _ header; do
	[ -f "$header" ] && echo "$file $header" >>"$tmp/edges"
done <"$tmp/includes"
: >"$tmp/loops"
if ! tsort "$tmp/edges" >/dev/null 2>"$tmp/tsort"; then
	sed -n 's/^tsort: //p' "$tmp/tsort" | grep -v 'input contains a loop' >"$tmp/members"
	while read -r m; do
		grep -n -H -E "#[[:space:]]*include[[:space:]]+\"($(sed 's/[.]/[.]/g' "$tmp/members" |
			paste -s -d'|' -))\"" "$m" 2>/dev/null
	done <"$tmp/members" | sed 's/^/loop: /' >"$tmp/loops"
	[ -s "$tmp/loops" ] || cp "$tmp/tsort" "$tmp/loops"
fi
report "no two files include each other, directly or through others" "$tmp/loops"

# 3. only cli/ prints or exits.  Writing to a stream the caller hands over
# (export's FILE *) is not printing; writing to stdout or stderr is.
grep -v '^cli/' "$tmp/files" | grep '\.c$' >"$tmp/lib"
# shellcheck disable=SC2046
grep -n -H -E '(^|[^_a-z0-9])(printf|puts|putchar|perror|vprintf|exit|_exit|_Exit|quick_exit)[[:space:]]*\(|f(printf|puts|putc|write)[[:space:]]*\([^;]*(stdout|stderr)|(g_print|g_printerr)[[:space:]]*\(' \
	$(cat "$tmp/lib") | grep -v 'layers: allowed' >"$tmp/print"
report "only cli/ prints or exits" "$tmp/print"

# 4. sizes.  Lines of C outside tests/, per folder.
# shellcheck disable=SC2046
wc -l $(cat "$tmp/files") | grep -v ' total$' >"$tmp/wc"
awk '{ sum += $1; split($2, f, "/"); per[f[1]] += $1 }
	END { for (d in per) if (per[d] * 4 > sum)
		printf "%s/ holds %d of %d lines (more than a quarter)\n", d, per[d], sum }' \
	"$tmp/wc" >"$tmp/quarter"
report "no folder holds more than a quarter of the C code" "$tmp/quarter"
awk -v max="$max_lines" '$1 > max { printf "%s: %d lines (more than %d: split it where it has two jobs)\n", $2, $1, max }' \
	"$tmp/wc" >"$tmp/long"
report "no file is longer than $max_lines lines" "$tmp/long"

for d in $layers tests; do
	[ -d "$d" ] && find "$d" \( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' \) \
		! -path '*/corpus*' -type f
done | sort | while read -r f; do
	head -3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2\.0-or-later' || echo "$f: no SPDX line"
done >"$tmp/spdx"
report "every source names its licence (SPDX-License-Identifier)" "$tmp/spdx"

# The checks themselves: on a small tree that breaks every rule once, each
# check must fail and name the line (run only on the real tree, not on this
# one).
if [ $# -eq 0 ]; then
	bad=$tmp/bad
	mkdir -p "$bad/core" "$bad/tracker" "$bad/bridge" "$bad/attachments" "$bad/extra"
	printf '#include "core/b.h"\n' >"$bad/core/a.h"
	printf '#include "core/a.h"\n' >"$bad/core/b.h"
	printf '#include "bridge/sync.h"\nvoid f(void) { printf("x"); exit(1); }\n' >"$bad/tracker/t.c"
	printf '#include "tracker/t.h"\n' >"$bad/attachments/blob.c"
	: >"$bad/bridge/sync.h"
	: >"$bad/extra/x.c"
	i=0
	while [ $i -lt $((max_lines + 1)) ]; do echo ';'; i=$((i + 1)); done >"$bad/bridge/long.c"
	sh "$self" "$bad" >"$tmp/bad.out" 2>&1
	bad_rc=$?
	: >"$tmp/missed"
	[ $bad_rc -ne 0 ] || echo "exit 0 on a tree that breaks every rule" >>"$tmp/missed"
	for want in 'extra/ holds C code but is not a layer' \
		'tracker/t.c:1: #include "bridge/sync.h" (bridge/ is above tracker/)' \
		'attachments/blob.c:1: #include "tracker/t.h"' \
		'not ok 4 - tracker/ includes nothing from bridge/' \
		'loop: core/a.h:1:#include "core/b.h"' \
		'tracker/t.c:2:void f(void) { printf("x"); exit(1); }' \
		'more than a quarter' \
		'bridge/long.c: 2001 lines' \
		'tracker/t.c: no SPDX line'; do
		grep -q -F "$want" "$tmp/bad.out" || echo "missed: $want" >>"$tmp/missed"
	done
	[ -s "$tmp/missed" ] && sed 's/^/output: /' "$tmp/bad.out" >>"$tmp/missed"
	report "each check fails on a tree that breaks its rule, naming the line" "$tmp/missed"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
