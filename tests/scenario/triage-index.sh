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

export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.org \
	GIT_COMMITTER_NAME=Dev GIT_COMMITTER_EMAIL=dev@example.org
git init -q -b master linux
mkdir -p linux/drivers/foo/bar linux/drivers/gizmo/wm linux/drivers/single linux/drivers/other \
	linux/tools/zorp linux/arch/arm64/kernel linux/lib
# the definition, in a folder whose name shares nothing with the symbol
cat >linux/drivers/foo/bar/core.c <<'EOF'
#include <linux/module.h>

static int __init
zorp_frobnicate(struct zorp *z, int flags)
{
	return zorp_helper(z);
}

int bar_other(void) { return 0; }
EOF
# decoys: a prototype, a user-space tool and another architecture's copy
cat >linux/drivers/other/decl.c <<'EOF'
int zorp_frobnicate(struct zorp *z, int flags);
EOF
cat >linux/tools/zorp/zorp.c <<'EOF'
int zorp_frobnicate(void *z, int flags)
{
	return 0;
}
EOF
cat >linux/arch/arm64/kernel/zorp.c <<'EOF'
int zorp_frobnicate(struct zorp *z, int flags)
{
	return 1;
}
EOF
# a module built from several objects, named unlike its folder
cat >linux/drivers/gizmo/wm/Makefile <<'EOF'
# SPDX-License-Identifier: GPL-2.0
obj-$(CONFIG_GIZMO_WM) += weird_mod.o
weird_mod-y := a.o b.o
EOF
echo 'int wm_a(void) { return 0; }' >linux/drivers/gizmo/wm/a.c
echo 'int wm_b(void) { return 0; }' >linux/drivers/gizmo/wm/b.c
# a module of one file, spelt with '-' (the kernel calls it lone_drv)
cat >linux/drivers/single/Makefile <<'EOF'
obj-$(CONFIG_LONE) += other.o \
	unrelated.o
obj-$(CONFIG_LONE_DRV)	+= lone-drv.o
EOF
echo 'int lone(void) { return 0; }' >linux/drivers/single/lone-drv.c
echo 'int zorp_lib(void) { return 0; }' >linux/lib/zorp.c
git -C linux add -A
git -C linux commit -q -m "a tiny kernel"
# a bare mirror of it, as bugbridge keeps url trees
git clone -q --bare linux mirror.git

cat >MAINTAINERS <<'MNT'
THE REST
L:	linux-kernel@vger.kernel.org
F:	*
F:	*/

FOO BAR DRIVER
L:	foo@lists.test
F:	drivers/foo/bar/

GIZMO WM DRIVER
L:	gizmo@lists.test
F:	drivers/gizmo/wm/

SINGLE DRIVERS
L:	single@lists.test
F:	drivers/single/

OTHER DRIVERS
L:	other@lists.test
F:	drivers/other/

ZORP LIBRARY
L:	zorp@lists.test
F:	lib/zorp.c

WEIRD DRIVERS
L:	weird@lists.test
F:	drivers/weird/

ZORP TOOL
L:	tools@lists.test
F:	tools/zorp/

ARM64 PORT
L:	arm64@lists.test
F:	arch/arm64/
MNT

# an x86 oops in a built-in function
cat >symbol.txt <<'EOF'
[  100.000001] BUG: kernel NULL pointer dereference, address: 0000000000000008
[  100.000002] Oops: 0000 [#1] PREEMPT SMP NOPTI
[  100.000003] CPU: 1 PID: 77 Comm: kworker/1:1 Not tainted 6.8.0 #1
[  100.000004] RIP: 0010:zorp_frobnicate+0x12/0x80
[  100.000005] Call Trace:
[  100.000006]  <TASK>
[  100.000007]  zorp_frobnicate+0x12/0x80
[  100.000008]  process_one_work+0x171/0x340
[  100.000009]  worker_thread+0x27b/0x3a0
[  100.000010]  kthread+0xe8/0x120
[  100.000011]  ret_from_fork+0x34/0x50
[  100.000012]  </TASK>
EOF
# the same on arm64
sed -e 's/RIP: 0010:/pc : /' -e '/Oops/a [  100.000003] pstate: 60400005 (nZCv daif +PAN -UAO -TCO -DIT -SSBS BTYPE=--)' \
	symbol.txt >symbol-arm64.txt
# a module's function the tree does not define
cat >module.txt <<'EOF'
[  200.000001] BUG: unable to handle page fault for address: ffffffffc0a00010
[  200.000002] Oops: 0002 [#1] PREEMPT SMP NOPTI
[  200.000003] CPU: 0 PID: 1 Comm: modprobe Not tainted 6.8.0 #1
[  200.000004] RIP: 0010:quux_handler+0x10/0x40 [weird_mod]
[  200.000005] Call Trace:
[  200.000006]  <TASK>
[  200.000007]  quux_handler+0x10/0x40 [weird_mod]
[  200.000008]  do_one_initcall+0x41/0x300
[  200.000009]  </TASK>
EOF
# a device driver that printed lines, no oops
cat >driver.txt <<'EOF'
[    3.100000] lone-drv 0000:00:1f.0: probe with driver lone-drv failed with error -22
[    3.100001] lone-drv 0000:00:1f.0: cannot map registers
EOF
# names no identifier has: '$', a 200-byte name, a compiler clone
long=$(printf 'zorp%.0s' $(seq 1 50))
cat >hostile.txt <<EOF
[  300.000001] BUG: kernel NULL pointer dereference, address: 0000000000000010
[  300.000002] Oops: 0000 [#1] SMP
[  300.000003] RIP: 0010:a\$b+0x1/0x2
[  300.000004] Call Trace:
[  300.000005]  ${long}+0x1/0x2
[  300.000006]  zorp_frobnicate.isra.0+0x1/0x2
[  300.000007]  x.y+0x1/0x2
EOF

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
