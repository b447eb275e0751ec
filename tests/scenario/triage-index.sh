#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bugbridge triage-index build: the kernel index of a tiny tree, made from
# its folder and from a tarball of it (a leading folder, as Debian's
# linux-source), gives bugbridge triage, without a [tree], the answers the
# tree's git grep gives (a symbol's defining file, the arch's own copy, a
# module's Makefile folder, its single file, '-' and '_' alike), saying
# "kernel index"; triage finds it in the data folder; a module only a
# Kconfig help text names is its Kconfig's folder; --no-tree asks neither;
# a source that is no tree and an index that is no index are refused.
. "$top_srcdir/tests/lib/common.sh"

command -v git >/dev/null 2>&1 || skip_all "git is not installed"
command -v xz >/dev/null 2>&1 || skip_all "xz is not installed"
. "$top_srcdir/tests/lib/tiny_kernel.sh"
tiny_kernel

# a module no obj- line builds: only its Kconfig's help text names it
mkdir -p linux/drivers/kconly
cat >linux/drivers/kconly/Kconfig <<'EOF'
config KCONLY
	tristate "A driver built oddly"
	help
	  Say Y here.  To compile this driver as a module, choose M here: the
	  module will be called
	  kc_only.
EOF
cat >>MAINTAINERS <<'MNT'

KCONLY DRIVER
L:	kconly@lists.test
F:	drivers/kconly/
MNT
cat >kconfig.txt <<'EOF'
[  400.000001] BUG: kernel NULL pointer dereference, address: 0000000000000010
[  400.000002] Oops: 0000 [#1] SMP
[  400.000003] RIP: 0010:strange_fn+0x1/0x2 [kc_only]
[  400.000004] Call Trace:
[  400.000005]  strange_fn+0x1/0x2 [kc_only]
EOF
git -C linux add -A
git -C linux commit -q -m "a Kconfig-only module"
git clone -q --bare linux mirror2.git

# -- the answers of the tree, the reference
write_config <<CONF
[routing]
maintainers_file = $WORK/MAINTAINERS
[tree mainline]
path = $WORK/mirror2.git
ref = master
CONF
for r in symbol symbol-arm64 module driver hostile kconfig; do
	bb triage "$r.txt" 2>&1 | sed 's/(git grep)/(kernel index)/g' >"tree-$r.txt"
done
like "the tree finds the symbol" "$(cat tree-symbol.txt)" '^  1\. FOO BAR DRIVER'

# -- the index, from the folder (its .git is not read)
check_exit "build from a folder" 0 bb triage-index build --output "$WORK/folder.db" "$WORK/linux"
like "says what it read" "$(cat check.out)" 'folder\.db: .* files, .* definitions, .* kept; .* module places \(1 from Kconfig\)'
write_config <<CONF
[routing]
maintainers_file = $WORK/MAINTAINERS
CONF
for r in symbol symbol-arm64 module driver hostile; do
	bb triage --index "$WORK/folder.db" "$r.txt" >"folder-$r.txt" 2>&1
	is "folder index: $r as with the tree" "$(cat "folder-$r.txt")" "$(cat "tree-$r.txt")"
done
like "saying so" "$(cat folder-symbol.txt)" \
	'why: line 4: pc zorp_frobnicate: defined in drivers/foo/bar/core\.c \(kernel index\): matched F: drivers/foo/bar/'
like "arm64 takes its own copy" "$(cat folder-symbol-arm64.txt)" \
	'defined in arch/arm64/kernel/zorp\.c \(kernel index\)'

# -- from a tarball, into the data folder, where triage finds it
tar -C "$WORK" -cJf linux.tar.xz --exclude=.git linux
check_exit "build from a tarball into the data folder" 0 bb triage-index build "$WORK/linux.tar.xz"
[ -s "$WORK/data/triage-index.db" ]
is "the index is in the data folder" "$?" 0
for r in symbol symbol-arm64 module driver hostile; do
	bb triage "$r.txt" >"tar-$r.txt" 2>&1
	is "data folder's index: $r as with the tree" "$(cat "tar-$r.txt")" "$(cat "tree-$r.txt")"
done
bb triage --json module.txt >module.json 2>&1
check "json: the Makefile's folder first, by the index" python3 - "$WORK/module.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1
s = d["sections"][0]
assert s["section"] == "GIZMO WM DRIVER", s
assert "module weird_mod built in drivers/gizmo/wm/ (kernel index)" in s["reason"], s
PY
check "json: each section's evidence, the reason first, keys kept" python3 - "$WORK/module.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["sections"]:
    assert {"section", "score", "reason", "lists", "evidence"} <= set(s), s
    ev = s["evidence"]
    assert 1 <= len(ev) <= 4 and ev[0]["text"] == s["reason"], s
    assert all(e["score"] > 0 for e in ev), s
    assert [e["score"] for e in ev] == sorted((e["score"] for e in ev), reverse=True), s
texts = [e["text"] for e in d["sections"][0]["evidence"]]
assert any("guilty frame quux_handler [weird_mod]: module weird_mod built in drivers/gizmo/wm/" in t
           for t in texts[1:]), texts
PY
like "text: the other clues after why:" "$(cat tar-module.txt)" \
	'     and: line 7: guilty frame quux_handler \[weird_mod\]: module weird_mod built in drivers/gizmo/wm/ \(kernel index\)'
bb triage kconfig.txt >tar-kconfig.txt 2>&1
like "a Kconfig-only module is its Kconfig's folder" "$(cat tar-kconfig.txt)" \
	'module kc_only built in drivers/kconly/ \(kernel index\): matched F: drivers/kconly/'
like "and its section is first" "$(cat tar-kconfig.txt)" '^  1\. KCONLY DRIVER'
check_exit "show: where names are" 0 bb triage-index show --arch arm64 zorp_frobnicate lone_drv weird-mod nothing_here
out=$(cat check.out)
like "show: the tarball it came from" "$out" "source: $WORK/linux\.tar\.xz"
like "show: arm64's copy" "$out" 'zorp_frobnicate: defined in arch/arm64/kernel/zorp\.c'
like "show: '_' for '-'" "$out" 'lone_drv: defined in -; module built in drivers/single/lone-drv\.c'
like "show: '-' for '_', a folder" "$out" 'weird-mod: defined in -; module built in drivers/gizmo/wm/'
like "show: what is not there" "$out" 'nothing_here: defined in -; module built in -'

bb triage --no-tree symbol.txt >notree.txt 2>&1
unlike "--no-tree asks no index" "$(cat notree.txt)" 'kernel index'
unlike "and finds no folder" "$(cat notree.txt)" '^  1\. FOO BAR DRIVER'

# -- refusals
mkdir empty
echo hello >empty/README
check_exit "a folder that is no tree" 65 bb triage-index build --output "$WORK/empty.db" "$WORK/empty"
like "says why" "$(cat check.out)" 'not a kernel tree'
[ ! -e "$WORK/empty.db" ]
is "and writes nothing" "$?" 0
check_exit "an index that is no index" 65 bb triage --index "$WORK/MAINTAINERS" symbol.txt
like "says so" "$(cat check.out)" 'not a triage index'
check_exit "triage-index is in --help" 0 bb triage-index --help
like "documented" "$(cat check.out)" 'triage-index build'

done_testing
