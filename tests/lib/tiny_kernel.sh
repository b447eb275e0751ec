# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# A tiny kernel tree for the triage tests (triage-tree.sh, triage-index.sh),
# sourced after common.sh, in the test's work folder:
#
#   . "$top_srcdir/tests/lib/tiny_kernel.sh"
#   tiny_kernel
#
# tiny_kernel makes, in the current folder: linux/, a git repository of a
# few files (a function defined in a folder whose name says nothing of it,
# with decoys: a prototype, a user-space tool and arm64's own copy; a
# module of several objects named unlike its folder; a module of one file
# spelt with '-'; a library file), mirror.git, a bare clone of it as
# bugbridge keeps url trees, MAINTAINERS with a section for each place, and
# the reports: symbol.txt (an x86 oops in the built-in function),
# symbol-arm64.txt (the same on arm64), module.txt (a module's function the
# tree does not define), driver.txt (a driver's lines, no oops) and
# hostile.txt (names no identifier has).
tiny_kernel() {

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
}
