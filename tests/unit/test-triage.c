/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for triage/reader.c: kernel versions and where they come from,
 * oopses from x86_64, arm64, powerpc and riscv, WARN_ON splats, taint
 * letters (both forms), firmware loaded and failing, PCI and USB ids,
 * source paths, drivers; hostile input (long lines, NUL bytes, bad UTF-8,
 * more of everything than the caps); and every report of the labelled set
 * in tests/triage/reports whose log shows a RIP/pc gives that symbol; the
 * matcher with a fake locator (names asked, located paths as clues). */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/buf.h"
#include "mail/maintainers.h"
#include "triage/match.h"
#include "triage/prose.h"
#include "triage/reader.h"
#include "triage/writeto.h"
#include "tests/unit/tap.h"

static struct tri_report *read_str(const char *s)
{
	return tri_read(s, strlen(s));
}

static const char *show(const char *s)
{
	return s ? s : "(null)";
}

/* An Arch Linux x86_64 oops in iwlmvm, with dmesg timestamps. */
static const char x86_oops[] =
	"After the update wifi crashes the machine:\n"
	"[ 5122.010030] BUG: kernel NULL pointer dereference, address: 0000000000000040\n"
	"[ 5122.010055] #PF: supervisor read access in kernel mode\n"
	"[ 5122.010061] #PF: error_code(0x0000) - not-present page\n"
	"[ 5122.010086] PGD 0 P4D 0 \n"
	"[ 5122.010095] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
	"[ 5122.010114] CPU: 2 PID: 0 Comm: swapper/2 Tainted: G     U     OE      6.7.2-arch1-1 #1 SMP PREEMPT_DYNAMIC Thu, 25 Jan 2024 21:37:56 +0000\n"
	"[ 5122.010139] Hardware name: Framework Laptop 13 (12th Gen Intel Core)/FRANBMCP0C, BIOS 03.05 05/25/2023\n"
	"[ 5122.010142] RIP: 0010:iwl_mvm_rx_tx_cmd+0x4d1/0x980 [iwlmvm]\n"
	"[ 5122.010150] Code: 54 d4 30 ca 70 0e 11 de 4f b8 98 22 18 27 21 82 <0f> 0b f7 05\n"
	"[ 5122.010172] RSP: 0018:ffffb9632fa4db13 EFLAGS: 00010246\n"
	"[ 5122.010334] Call Trace:\n"
	"[ 5122.010351]  <IRQ>\n"
	"[ 5122.010371]  ? __die+0x23/0x70\n"
	"[ 5122.010393]  ? page_fault_oops+0x171/0x4e0\n"
	"[ 5122.010428]  ? iwl_mvm_rx_tx_cmd+0x4d1/0x980 [iwlmvm]\n"
	"[ 5122.010433]  iwl_pcie_rx_handle_rb+0x19/0x5f6 [iwlwifi]\n"
	"[ 5122.010438]  iwl_pcie_napi_poll_msix+0x1ab/0x9dc [iwlwifi]\n"
	"[ 5122.010440]  __napi_poll+0x13c/0x4d7\n"
	"[ 5122.010469]  net_rx_action+0x20f/0x761\n"
	"[ 5122.010491]  </IRQ>\n"
	"[ 5122.010492]  <TASK>\n"
	"[ 5122.010530]  cpuidle_enter_state+0x86/0x1057\n"
	"[ 5122.010632]  </TASK>\n"
	"[ 5122.010633] Modules linked in: ccm rfcomm iwlmvm mac80211 libarc4 iwlwifi cfg80211 vboxdrv(OE) nvidia(POE) i915 [last unloaded: iwlwifi]\n"
	"[ 5122.010660] CR2: 0000000000000040\n"
	"[ 5122.010676] ---[ end trace 0000000000000000 ]---\n"
	"[ 5122.010694] RIP: 0010:iwl_mvm_rx_tx_cmd+0x4d1/0x980 [iwlmvm]\n"
	"[ 5122.010861] Kernel panic - not syncing: Fatal exception in interrupt\n";

static void test_x86_oops(void)
{
	struct tri_report *r = read_str(x86_oops);
	const struct tri_oops *o;
	char letters[32];

	is_str(r->kernel.version, "6.7.2-arch1-1", "x86: version from the CPU line");
	is_int(r->kernel.kind, TRI_KERNEL_DISTRO, "x86: a distribution kernel");
	is_str(r->kernel.distro, "Arch Linux", "x86: Arch Linux");
	is_str(r->kernel.upstream, "v6.7.2", "x86: based on v6.7.2");
	is_int(r->kernel.source, TRI_FROM_OOPS, "x86: read from the oops");
	is_int(r->noopses, 1, "x86: one oops (BUG:, Oops: and the RIP after the end are one)");
	if (r->noopses < 1)
		goto out;
	o = &r->oopses[0];
	is_int(o->kind, TRI_OOPS_BUG, "x86: kind bug");
	is_str(o->first_line, "BUG: kernel NULL pointer dereference, address: 0000000000000040",
	       "x86: first line without its timestamp");
	is_int(o->line, 2, "x86: first line's number");
	is_str(o->taint, "G U OE", "x86: taint letters squeezed");
	is_int(o->taint_flags, TRI_TAINT_U | TRI_TAINT_O | TRI_TAINT_E, "x86: taint flags U, O, E");
	is_str(tri_taint_letters(r->taint_flags, letters), "UOE", "x86: report taint UOE");
	is_str(o->comm, "swapper/2", "x86: Comm");
	is_str(o->pc_symbol, "iwl_mvm_rx_tx_cmd", "x86: RIP symbol");
	is_str(o->pc_module, "iwlmvm", "x86: RIP module");
	is_int(o->pc_line, 9, "x86: RIP line");
	is_str(o->panic, "Fatal exception in interrupt", "x86: the panic after the end marker");
	is_str(o->hardware, "Framework Laptop 13 (12th Gen Intel Core)/FRANBMCP0C, BIOS 03.05 05/25/2023",
	       "x86: Hardware name");
	is_int(o->nframes, 8, "x86: 8 frames, <IRQ>/<TASK> markers skipped");
	if (o->nframes == 8) {
		ok(o->frames[0].unreliable && !strcmp(o->frames[0].symbol, "__die") &&
		   !o->frames[0].module, "x86: '? __die' is unreliable and built in");
		ok(!o->frames[3].unreliable && !strcmp(o->frames[3].symbol, "iwl_pcie_rx_handle_rb") &&
		   o->frames[3].module && !strcmp(o->frames[3].module, "iwlwifi"),
		   "x86: iwl_pcie_rx_handle_rb [iwlwifi]");
		is_str(o->frames[7].symbol, "cpuidle_enter_state", "x86: the frame after <TASK>");
	}
	is_int(r->nmodules, 10, "x86: 10 modules, \"[last unloaded: ...]\" not one");
	if (r->nmodules == 10) {
		is_str(r->modules[8], "nvidia", "x86: nvidia(POE) is nvidia");
		ok(r->modules[10] == NULL, "x86: modules NULL-terminated");
	}
	is_str(r->hardware, o->hardware, "x86: the report's hardware");
out:
	tri_report_free(r);
}

/* A Debian arm64 oops: "Unable to handle", "Internal error: Oops" and the
 * CPU line are one oops; pc and lr. */
static const char arm64_oops[] =
	"[ 1503.220001] Unable to handle kernel NULL pointer dereference at virtual address 0000000000000010\n"
	"[ 1503.220002] Mem abort info:\n"
	"[ 1503.220003]   ESR = 0x0000000096000006\n"
	"[ 1503.220010] Internal error: Oops: 0000000096000006 [#1] PREEMPT SMP\n"
	"[ 1503.220011] Modules linked in: nvme nvme_core mlx5_core xhci_pci\n"
	"[ 1503.220012] CPU: 61 PID: 0 Comm: swapper/61 Tainted: G        W          6.1.0-17-arm64 #1  Debian 6.1.69-1\n"
	"[ 1503.220013] Hardware name: Ampere Altra Developer Platform/Altra Developer Platform, BIOS 2.10.20230517\n"
	"[ 1503.220014] pstate: 60400005 (nZCv daif +PAN -UAO -TCO -DIT -SSBS BTYPE=--)\n"
	"[ 1503.220015] pc : nvme_pci_complete_batch+0x3c/0x100 [nvme]\n"
	"[ 1503.220016] lr : nvme_irq+0x84/0xc0 [nvme]\n"
	"[ 1503.220017] sp : ffff80000800bd60\n"
	"[ 1503.220018] x29: ffff80000800bd60 x28: 0000000000000000 x27: ffff0000a1b2c3d4\n"
	"[ 1503.220019] Call trace:\n"
	"[ 1503.220020]  nvme_pci_complete_batch+0x3c/0x100 [nvme]\n"
	"[ 1503.220021]  nvme_irq+0x84/0xc0 [nvme]\n"
	"[ 1503.220022]  __handle_irq_event_percpu+0x60/0x1e0\n"
	"[ 1503.220023]  gic_handle_irq+0x50/0x130\n"
	"[ 1503.220030] Code: f9400a61 b4000141 f9400020 (f9400800) \n"
	"[ 1503.220031] ---[ end trace 0000000000000000 ]---\n"
	"[ 1503.220032] Kernel panic - not syncing: Oops: Fatal exception in interrupt\n";

static void test_arm64_oops(void)
{
	struct tri_report *r = read_str(arm64_oops);
	const struct tri_oops *o;

	is_str(r->kernel.version, "6.1.0-17-arm64", "arm64: version");
	is_str(r->kernel.distro, "Debian", "arm64: Debian");
	is_str(r->kernel.upstream, "v6.1", "arm64: based on v6.1");
	is_int(r->noopses, 1, "arm64: one oops");
	if (r->noopses < 1)
		goto out;
	o = &r->oopses[0];
	is_int(o->kind, TRI_OOPS_OOPS, "arm64: kind oops");
	is_str(o->pc_symbol, "nvme_pci_complete_batch", "arm64: pc symbol");
	is_str(o->pc_module, "nvme", "arm64: pc module");
	is_str(o->lr_symbol, "nvme_irq", "arm64: lr symbol");
	is_int(o->taint_flags, TRI_TAINT_W, "arm64: tainted W");
	is_int(o->nframes, 4, "arm64: 4 frames");
	if (o->nframes == 4)
		ok(!strcmp(o->frames[1].symbol, "nvme_irq") && !strcmp(show(o->frames[1].module), "nvme"),
		   "arm64: frame 2 nvme_irq [nvme]");
	is_str(o->panic, "Oops: Fatal exception in interrupt", "arm64: panic");
	is_int(r->nmodules, 4, "arm64: modules");
out:
	tri_report_free(r);
}

/* powerpc (NIP/LR, addresses before each frame) and riscv (epc/ra,
 * "[<addr>] sym" frames without a Call Trace line). */
static void test_ppc_riscv(void)
{
	struct tri_report *r = read_str(
		"BUG: Kernel NULL pointer dereference on read at 0x00000010\n"
		"Faulting instruction address: 0xc008000000a1b2c4\n"
		"Oops: Kernel access of bad area, sig: 11 [#1]\n"
		"LE PAGE_SIZE=64K MMU=Radix SMP NR_CPUS=2048 NUMA PowerNV\n"
		"Modules linked in: xfs libcrc32c sd_mod\n"
		"CPU: 12 PID: 4521 Comm: xfsaild/dm-3 Not tainted 5.14.0-362.8.1.el9_3.ppc64le #1\n"
		"NIP:  c008000000a1b2c4 LR: c008000000a1b1f0 CTR: c008000000a1b270\n"
		"NIP [c008000000a1b2c4] xfs_buf_item_unpin+0x54/0x2c0 [xfs]\n"
		"LR [c008000000a1b1f0] xfs_trans_committed_bulk+0x120/0x330 [xfs]\n"
		"Call Trace:\n"
		"[c0000009b3a7fb90] [c008000000a1b1f0] xfs_trans_committed_bulk+0x120/0x330 [xfs] (unreliable)\n"
		"[c0000009b3a7fc80] [c008000000a2c3d4] xlog_cil_committed+0x3c4/0x4f0 [xfs]\n"
		"Instruction dump:\n");

	is_str(r->kernel.distro, "Red Hat Enterprise Linux or a rebuild", "ppc: RHEL build");
	is_int(r->noopses, 1, "ppc: one oops");
	if (r->noopses == 1) {
		const struct tri_oops *o = &r->oopses[0];

		is_str(o->pc_symbol, "xfs_buf_item_unpin", "ppc: NIP symbol");
		is_str(o->pc_module, "xfs", "ppc: NIP module");
		is_str(o->lr_symbol, "xfs_trans_committed_bulk", "ppc: LR symbol");
		is_int(o->nframes, 2, "ppc: two frames");
		if (o->nframes == 2)
			ok(o->frames[0].unreliable && !o->frames[1].unreliable,
			   "ppc: \"(unreliable)\" read");
		ok(o->taint == NULL && o->taint_flags == 0, "ppc: not tainted");
	}
	tri_report_free(r);

	r = read_str(
		"[  902.400001] Unable to handle kernel NULL pointer dereference at virtual address 0000000000000008\n"
		"[  902.400002] Oops [#1]\n"
		"[  902.400003] Modules linked in: dwmac_starfive stmmac_platform stmmac\n"
		"[  902.400004] CPU: 2 PID: 312 Comm: scp Not tainted 6.8.0-rc4 #1\n"
		"[  902.400005] Hardware name: StarFive VisionFive 2 v1.3B (DT)\n"
		"[  902.400006] epc : stmmac_xmit+0x3a2/0xd1c [stmmac]\n"
		"[  902.400007]  ra : dev_hard_start_xmit+0xa0/0x22a\n"
		"[  902.400008] epc : ffffffff01a1b3c2 ra : ffffffff80c3e4a0 sp : ff20000000843b50\n"
		"[  902.400009] status: 0000000200000120 badaddr: 0000000000000008 cause: 000000000000000d\n"
		"[  902.400010] [<ffffffff01a1b3c2>] stmmac_xmit+0x3a2/0xd1c [stmmac]\n"
		"[  902.400011] [<ffffffff80c3e4a0>] dev_hard_start_xmit+0xa0/0x22a\n"
		"[  902.400012] ---[ end trace 0000000000000000 ]---\n");
	is_int(r->kernel.kind, TRI_KERNEL_MAINLINE, "riscv: 6.8.0-rc4 is mainline");
	is_str(r->kernel.upstream, "v6.8-rc4", "riscv: v6.8-rc4");
	if (ok(r->noopses == 1, "riscv: one oops")) {
		const struct tri_oops *o = &r->oopses[0];

		is_str(o->pc_symbol, "stmmac_xmit", "riscv: epc symbol");
		is_str(o->lr_symbol, "dev_hard_start_xmit", "riscv: ra symbol");
		is_int(o->nframes, 2, "riscv: frames without a Call Trace line");
	}
	tri_report_free(r);
}

/* 32-bit ARM: "callee from caller+off" backtraces (since 5.17) with the
 * saved registers between the frames, and the older "[<addr>] (callee)
 * from [<addr>] (caller+off)" form; the frame under the WARNING's helpers
 * is the guilty one. */
static void test_arm32(void)
{
	struct tri_report *r = read_str(
		"[    2.163418] WARNING: CPU: 0 PID: 140 at include/linux/dma-mapping.h:331 i2c_imx_dma_xfer+0x1b8/0x264\n"
		"[    2.177622] Modules linked in:\n"
		"[    2.179420] CPU: 0 PID: 140 Comm: kworker/0:3 Not tainted 6.1.0-rc2 #77\n"
		"[    2.196379] Backtrace: \n"
		"[    2.197553]  dump_backtrace from show_stack+0x20/0x24\n"
		"[    2.201398]  r7:80647b48 r6:00000009 r5:60000013 r4:80a1ebe0\n"
		"[    2.205785]  show_stack from dump_stack_lvl+0x2c/0x34\n"
		"[    2.218949]  dump_stack_lvl from __warn+0xd4/0x120\n"
		"[    2.222684]  __warn from warn_slowpath_fmt+0xa4/0xe4\n"
		"[    2.227065]  warn_slowpath_fmt from i2c_imx_dma_xfer+0x1b8/0x264\n"
		"[    2.231834]  r8:0000000e r7:81195810 r6:810ef440 r5:00000001 r4:8126e0c0\n"
		"[    2.237264]  i2c_imx_dma_xfer from i2c_imx_xfer_common+0x8b8/0xb00 [i2c_imx]\n"
		"[    2.248776]  r4:810ef440\n"
		"[    2.250030]  i2c_imx_xfer_common from i2c_imx_xfer+0x50/0xb4\n"
		"[    2.260000] Exception stack(0x9f5e9fb0 to 0x9f5e9ff8)\n"
		"[    2.260001] 9fa0:                                     00000000 00000000 00000000 00000000\n"
		"[    2.266445]  i2c_imx_xfer from __i2c_transfer+0x198/0x5f0\n"
		"[    2.270000] ---[ end trace 0000000000000000 ]---\n");
	static const char *const want[] = {
		"dump_backtrace", "show_stack", "dump_stack_lvl", "__warn", "warn_slowpath_fmt",
		"i2c_imx_dma_xfer", "i2c_imx_xfer_common", "i2c_imx_xfer", "__i2c_transfer",
	};
	int mm = 0;

	if (ok(r->noopses == 1, "arm32: one oops")) {
		const struct tri_oops *o = &r->oopses[0];
		int same = o->nframes == G_N_ELEMENTS(want);

		for (size_t i = 0; same && i < o->nframes; i++)
			same = !strcmp(o->frames[i].symbol, want[i]);
		if (!ok(same, "arm32: each callee and caller once, registers and stack words skipped"))
			for (size_t i = 0; i < o->nframes; i++)
				diag("frame %zu: %s", i, o->frames[i].symbol);
		if (o->nframes > 6)
			is_str(o->frames[6].module, "i2c_imx", "arm32: the caller's module");
		is_int((int)tri_guilty_frame(o, &mm), 5, "arm32: i2c_imx_dma_xfer is guilty");
	}
	tri_report_free(r);

	r = read_str(
		"Internal error: Oops: 17 [#1] ARM\n"
		"CPU: 0 PID: 1 Comm: swapper Not tainted 4.19.0 #1\n"
		"PC is at omap_i2c_xfer+0x30/0x3c0\n"
		"Backtrace:\n"
		"[<c0456f10>] (omap_i2c_xfer) from [<c0451a2c>] (__i2c_transfer+0x15c/0x5a4)\n"
		"[<c0451a2c>] (__i2c_transfer) from [<c0451f08>] (i2c_transfer+0x94/0xc8)\n"
		"Code: e1a00004 (e5943000)\n");
	if (ok(r->noopses == 1, "arm32, old form: one oops")) {
		const struct tri_oops *o = &r->oopses[0];

		is_int(o->nframes, 3, "arm32, old form: three frames");
		if (o->nframes == 3)
			ok(!strcmp(o->frames[0].symbol, "omap_i2c_xfer") &&
			   !strcmp(o->frames[2].symbol, "i2c_transfer"),
			   "arm32, old form: callee and callers in order");
	}
	tri_report_free(r);
}

/* The kernel test robot's traces, run through decode_stacktrace.sh: each
 * frame's own file is the last of its parenthesised paths, the inlined
 * callees' files come first. */
static void test_decoded_trace(void)
{
	struct tri_report *r = read_str(
		"[ 6.016434][ T1] BUG: KASAN: use-after-free in string (lib/vsprintf.c:643 lib/vsprintf.c:725) \n"
		"[    6.016440][    T1] Read of size 1 at addr ffff888139403800 by task swapper/0/1\n"
		"[    6.016443][    T1] CPU: 3 PID: 1 Comm: swapper/0 Tainted: G          I       5.19.0-rc1 #1\n"
		"[    6.016450][    T1] Call Trace:\n"
		"[    6.016451][    T1]  <TASK>\n"
		"[ 6.016456][ T1] dump_stack_lvl (lib/dump_stack.c:107 (discriminator 1)) \n"
		"[ 6.016461][ T1] print_address_description+0x1f/0x200 \n"
		"[ 6.016468][ T1] print_report.cold (mm/kasan/report.c:430) \n"
		"[ 6.016476][ T1] ? _raw_spin_lock_irqsave (arch/x86/include/asm/atomic.h:202 include/asm-generic/qspinlock.h:111 kernel/locking/spinlock.c:162) \n"
		"[ 6.016485][ T1] string (lib/vsprintf.c:643 lib/vsprintf.c:725) \n"
		"[ 6.016513][ T1] devm_kvasprintf (drivers/base/devres.c:1004) \n"
		"[ 6.016535][ T1] ? iTCO_wdt_probe (include/linux/device.h:209 drivers/watchdog/iTCO_wdt.c:472) \n"
		"[ 6.016540][ T1] i801_probe (drivers/i2c/busses/i2c-i801.c:1750) \n"
		"[    6.016560][    T1]  </TASK>\n");

	if (ok(r->noopses == 1, "decoded trace: one oops")) {
		const struct tri_oops *o = &r->oopses[0];
		int mm = 0;
		ssize_t g;

		is_int(o->nframes, 8, "decoded trace: eight frames");
		if (o->nframes == 8) {
			is_str(o->frames[0].path, "lib/dump_stack.c",
			       "decoded trace: \"(discriminator 1)\" is no path");
			is_str(o->frames[3].path, "kernel/locking/spinlock.c",
			       "decoded trace: the frame's own file is the last path");
			ok(o->frames[3].unreliable && !o->frames[4].unreliable,
			   "decoded trace: \"? \" read");
			is_str(o->frames[7].path, "drivers/i2c/busses/i2c-i801.c",
			       "decoded trace: the driver's frame has its file");
		}
		g = tri_guilty_frame(o, &mm);
		if (!ok(g >= 0 && !strcmp(o->frames[g].symbol, "i801_probe") &&
			tri_path_is_shared(o->path, mm),
			"decoded trace: the guilty frame is the driver's under lib/ and the driver core"))
			diag("guilty %zd (%s), mm %d", g, g >= 0 ? o->frames[g].symbol : "-", mm);
	}
	tri_report_free(r);
}

/* A WARN_ON splat whose path goes through "../"; two splats are two oopses. */
static void test_warnings(void)
{
	struct tri_report *r = read_str(
		"------------[ cut here ]------------\n"
		"WARNING: CPU: 9 PID: 1831 at drivers/gpu/drm/amd/amdgpu/../display/dc/core/dc_resource.c:2187 resource_build_scaling_params+0x622/0x6f0 [amdgpu]\n"
		"Modules linked in: amdgpu drm_exec\n"
		"CPU: 9 PID: 1831 Comm: kwin_wayland Tainted: G        W          6.8.1-arch1-1 #1\n"
		"RIP: 0010:resource_build_scaling_params+0x622/0x6f0 [amdgpu]\n"
		"Call Trace:\n"
		" <TASK>\n"
		" ? __warn+0x81/0x130\n"
		" ? report_bug+0x171/0x1a0\n"
		" resource_map_pool_resources+0x1a/0x300 [amdgpu]\n"
		" </TASK>\n"
		"---[ end trace 0000000000000000 ]---\n"
		"------------[ cut here ]------------\n"
		"WARNING: CPU: 3 PID: 22 at fs/btrfs/extent-tree.c:3115 __btrfs_free_extent+0x8ef/0xd30 [btrfs]\n"
		"CPU: 3 PID: 22 Comm: btrfs-transacti Tainted: G        W          6.8.1-arch1-1 #1\n"
		"---[ end trace 0000000000000000 ]---\n");

	if (ok(r->noopses == 2, "warn: two splats")) {
		const struct tri_oops *o = &r->oopses[0];

		is_int(o->kind, TRI_OOPS_WARNING, "warn: kind warning");
		is_str(o->path, "drivers/gpu/drm/amd/display/dc/core/dc_resource.c",
		       "warn: path with ../ folded and :line dropped");
		is_str(o->pc_symbol, "resource_build_scaling_params", "warn: symbol of the WARNING line");
		is_str(o->pc_module, "amdgpu", "warn: module of the WARNING line");
		is_int(o->nframes, 3, "warn: three frames");
		is_str(r->oopses[1].path, "fs/btrfs/extent-tree.c", "warn: second splat's path");
		is_str(r->oopses[1].pc_module, "btrfs", "warn: second splat's module");
	}
	is_int(r->npaths, 2, "warn: two paths named");
	if (r->npaths == 2)
		is_int(r->paths[1].line, 14, "warn: the btrfs path's line");
	tri_report_free(r);

	/* kernel BUG at, a syzbot KASAN report, a hung task */
	r = read_str(
		"kernel BUG at fs/f2fs/segment.c:2587!\n"
		"Internal error: Oops - BUG: 00000000f2000800 [#1] PREEMPT SMP\n"
		"CPU: 4 PID: 2211 Comm: update_engine Tainted: G S      W  OE      5.15.110-android14-11-gd3e3f1ed7d11-ab11037412 #1\n"
		"pc : new_curseg+0x348/0x34c\n"
		"---[ end trace 4a51c9e5e2e5d1b2 ]---\n"
		"BUG: KASAN: slab-use-after-free in nft_setelem_data_deactivate net/netfilter/nf_tables_api.c:7024 [inline]\n"
		"BUG: KASAN: slab-use-after-free in nft_setelem_data_deactivate+0x3d1/0x410 net/netfilter/nf_tables_api.c:7018\n"
		"Read of size 8 at addr ffff88802a6b5e98 by task syz-executor.1/6127\n"
		"CPU: 1 PID: 6127 Comm: syz-executor.1 Not tainted 6.8.0-syzkaller-11567-ga4145ce1e7bc #0\n"
		"Call Trace:\n"
		" <TASK>\n"
		" __dump_stack lib/dump_stack.c:88 [inline]\n"
		" dump_stack_lvl+0x1e7/0x2e0 lib/dump_stack.c:106\n"
		" nft_delset+0x1a6/0x300 net/netfilter/nf_tables_api.c:1441\n"
		" </TASK>\n"
		"\n"
		"INFO: task md0_raid1:412 blocked for more than 122 seconds.\n"
		"      Not tainted 6.1.0-18-amd64 #1 Debian 6.1.76-1\n"
		"Call Trace:\n"
		" <TASK>\n"
		" raid1d+0x8a/0x1b0 [raid1]\n"
		" </TASK>\n");
	if (ok(r->noopses == 3, "bugs: three")) {
		const struct tri_oops *o = &r->oopses[0];

		is_str(o->path, "fs/f2fs/segment.c", "bugs: kernel BUG at's path");
		is_int(o->taint_flags, TRI_TAINT_S | TRI_TAINT_W | TRI_TAINT_O | TRI_TAINT_E,
		       "bugs: taint S W O E");
		is_str(o->pc_symbol, "new_curseg", "bugs: pc of a built-in function");
		ok(o->pc_module == NULL, "bugs: no module");
		o = &r->oopses[1];
		is_str(o->path, "net/netfilter/nf_tables_api.c", "bugs: KASAN path");
		is_str(o->pc_symbol, "nft_setelem_data_deactivate", "bugs: KASAN symbol");
		is_int(o->nframes, 3, "bugs: inlined frames kept");
		if (o->nframes == 3) {
			is_str(o->frames[0].path, "lib/dump_stack.c", "bugs: inlined frame's path");
			is_str(o->frames[2].path, "net/netfilter/nf_tables_api.c", "bugs: frame's path");
		}
		o = &r->oopses[2];
		is_int(o->kind, TRI_OOPS_HUNG, "bugs: hung task");
		if (ok(o->nframes == 1, "bugs: hung task's frame"))
			is_str(o->frames[0].module, "raid1", "bugs: raid1d [raid1]");
	}
	is_str(r->kernel.version, "5.15.110-android14-11-gd3e3f1ed7d11-ab11037412",
	       "bugs: the first oops's version");
	is_str(r->kernel.distro, "Android", "bugs: Android");
	tri_report_free(r);
}

/* syzbot's hung-task reports print a task's stack from "<TASK>" on, with
 * no "Call Trace:" before it (the first task below): its frames are read,
 * and the next task is an oops of its own. */
static void test_hung_tasks(void)
{
	struct tri_report *r = read_str(
		"INFO: task syz.0.22:6033 blocked for more than 152 seconds.\n"
		"      Not tainted 6.14.0-rc4-syzkaller #0\n"
		"\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.\n"
		"task:syz.0.22        state:D stack:25656 pid:6033  tgid:6033  ppid:5937\n"
		" <TASK>\n"
		" __schedule_loop kernel/sched/core.c:6842 [inline]\n"
		" schedule+0x14b/0x320 kernel/sched/core.c:6857\n"
		" uhid_dev_destroy drivers/hid/uhid.c:584 [inline]\n"
		" uhid_char_release+0xac/0x600 drivers/hid/uhid.c:662\n"
		" __fput+0x3e9/0x9f0 fs/file_table.c:464\n"
		" </TASK>\n"
		"INFO: task syz.2.18:6035 blocked for more than 156 seconds.\n"
		"      Not tainted 6.14.0-rc4-syzkaller #0\n"
		"task:syz.2.18        state:D stack:25984 pid:6035  tgid:6035  ppid:5945\n"
		"Call Trace:\n"
		" <TASK>\n"
		" context_switch kernel/sched/core.c:5378 [inline]\n"
		" __flush_work+0xa47/0xc60 kernel/workqueue.c:4242\n"
		" </TASK>\n");

	if (ok(r->noopses == 2, "hung tasks: two (%zu)", r->noopses)) {
		const struct tri_oops *o = &r->oopses[0];

		if (ok(o->nframes == 5, "hung tasks: the first one's frames from <TASK> (%zu)",
		       o->nframes))
			is_str(o->frames[3].symbol, "uhid_char_release", "hung tasks: the driver's frame");
		o = &r->oopses[1];
		if (ok(o->nframes == 2, "hung tasks: the second one's frames (%zu)", o->nframes))
			is_str(o->frames[0].symbol, "context_switch", "hung tasks: its first frame");
	}
	tri_report_free(r);
}

/* KCSAN prints each side of a data race as "write to 0x... of N bytes by
 * task T on cpu C:" with its stack right under it, no "Call Trace:". */
static void test_kcsan(void)
{
	struct tri_report *r = read_str(
		"==================================================================\n"
		"BUG: KCSAN: data-race in copy_page_to_iter / strncpy\n"
		"\n"
		"write to 0xffff888108b1b488 of 1 bytes by task 16090 on cpu 1:\n"
		" strncpy+0xcf/0x150 lib/string.c:114\n"
		" ext4_sample_last_mounted fs/ext4/file.c:828 [inline]\n"
		" ext4_file_open+0x3a6/0x4e0 fs/ext4/file.c:847\n"
		"\n"
		"read to 0xffff888108b1b400 of 1024 bytes by task 10450 on cpu 0:\n"
		" copy_page_to_iter+0x2cb/0x950 lib/iov_iter.c:878\n"
		" blkdev_read_iter+0x2cc/0x380 block/fops.c:614\n"
		"\n"
		"Reported by Kernel Concurrency Sanitizer on:\n"
		"CPU: 0 PID: 10450 Comm: udevd Not tainted 5.17.0-rc3-syzkaller #0\n");

	if (ok(r->noopses == 1, "kcsan: one report (%zu)", r->noopses) &&
	    ok(r->oopses[0].nframes == 5, "kcsan: both stacks' frames (%zu)",
	       r->oopses[0].nframes)) {
		is_str(r->oopses[0].frames[2].symbol, "ext4_file_open", "kcsan: the writer's frame");
		is_str(r->oopses[0].frames[4].path, "block/fops.c", "kcsan: the reader's frame");
	}
	tri_report_free(r);
}

/* A journal pasted into a mail whose client wrapped its long lines: a
 * frame's "[module]" on a line of its own, a line's message on the next. */
static void test_wrapped_trace(void)
{
	struct tri_report *r = read_str(
		"Mar 29 17:43:16.179626 fedora kernel: BUG: kernel NULL pointer\n"
		"dereference, address: 000000000000004c\n"
		"Mar 29 17:43:16.180325 fedora kernel: Oops: Oops: 0000 [#1] SMP NOPTI\n"
		"Mar 29 17:43:16.180469 fedora kernel: RIP: 0010:kobject_get+0xd/0x70\n"
		"Mar 29 17:43:16.180654 fedora kernel: Call Trace:\n"
		"Mar 29 17:43:16.180664 fedora kernel:  <TASK>\n"
		"Mar 29 17:43:16.180792 fedora kernel:  device_add+0x8f/0x6e0\n"
		"Mar 29 17:43:16.180804 fedora kernel:  rfkill_register+0xbc/0x2c0 [rfkill]\n"
		"Mar 29 17:43:16.180813 fedora kernel:  tpacpi_new_rfkill+0x185/0x230\n"
		"[thinkpad_acpi]\n"
		"Mar 29 17:43:16.180826 fedora kernel:  ibm_init+0x66/0x2a0 [thinkpad_acpi]\n"
		"Mar 29 17:43:16.180840 fedora kernel:\n"
		"tpacpi_pdriver_probe+0x160/0x250 [thinkpad_acpi]\n"
		"Mar 29 17:43:16.180852 fedora kernel:  platform_probe+0x41/0xa0\n"
		"Mar 29 17:43:16.180976 fedora kernel:  </TASK>\n");

	if (ok(r->noopses == 1, "wrapped: one oops (%zu)", r->noopses) &&
	    ok(r->oopses[0].nframes == 6, "wrapped: every frame (%zu)", r->oopses[0].nframes)) {
		const struct tri_frame *f = r->oopses[0].frames;

		is_str(f[2].symbol, "tpacpi_new_rfkill", "wrapped: the frame before its module");
		is_str(f[2].module, "thinkpad_acpi", "wrapped: its module from the next line");
		is_str(f[4].symbol, "tpacpi_pdriver_probe", "wrapped: the message after its prefix");
		is_str(f[5].symbol, "platform_probe", "wrapped: the frames after");
	}
	tri_report_free(r);
}

/* syzbot's mails of 2019 wrapped at 80 columns ("[inline]" and a frame's
 * file on the next line), and x86 printed a WARNING's trace around the
 * registers of the frame it trapped in: the frames after "RIP:" are the
 * callers. */
static void test_resumed_trace(void)
{
	struct tri_report *r = read_str(
		"WARNING: CPU: 1 PID: 22 at fs/sysfs/file.c:327  \n"
		"sysfs_create_file_ns+0x13c/0x1c0 fs/sysfs/file.c:327\n"
		"CPU: 1 PID: 22 Comm: kworker/1:1 Not tainted 5.2.0-rc6+ #13\n"
		"Call Trace:\n"
		"  __dump_stack lib/dump_stack.c:77 [inline]\n"
		"  dump_stack+0xca/0x13e lib/dump_stack.c:113\n"
		"  invalid_op+0x14/0x20 arch/x86/entry/entry_64.S:986\n"
		"RIP: 0010:sysfs_create_file_ns+0x13c/0x1c0 fs/sysfs/file.c:327\n"
		"Code: 85 82 00 00 00 41 55 48 8b 7b 30 31 d2 48 89 ee 44 8b 4c 24 50 44 8b  \n"
		"44 24 40 e8 af f9 ff ff 41 89 c5 58 eb 0d e8 54 85 b6 ff <0f> 0b 41 bd ea  \n"
		"RSP: 0018:ffff8881d9f97130 EFLAGS: 00010293\n"
		"  sysfs_create_file include/linux/sysfs.h:513 [inline]\n"
		"  device_create_file+0xe6/0x1d0 drivers/base/core.c:1559\n"
		"  usbvision_create_sysfs drivers/media/usb/usbvision/usbvision-video.c:252  \n"
		"[inline]\n"
		"  usbvision_probe.cold+0x1a73/0x1d69  \n"
		"drivers/media/usb/usbvision/usbvision-video.c:1530\n"
		"  usb_probe_interface+0x305/0x7a0 drivers/usb/core/driver.c:361\n"
		"Kernel Offset: disabled\n");

	if (ok(r->noopses == 1, "resumed: one oops (%zu)", r->noopses) &&
	    ok(r->oopses[0].nframes == 8, "resumed: the frames before and after the registers "
	       "(%zu)", r->oopses[0].nframes)) {
		const struct tri_frame *f = r->oopses[0].frames;

		is_str(f[3].symbol, "sysfs_create_file", "resumed: the first frame after RIP:");
		ok(f[5].module == NULL, "resumed: \"[inline]\" on its own line is no module");
		is_str(f[6].path, "drivers/media/usb/usbvision/usbvision-video.c",
		       "resumed: a frame's file on the next line is its file");
		is_str(f[7].symbol, "usb_probe_interface", "resumed: and the frames after it");
	}
	tri_report_free(r);
}

/* An oops pasted indented by a tab, its modules with their build IDs
 * (CONFIG_STACKTRACE_BUILD_ID). */
static void test_indented_build_id(void)
{
	struct tri_report *r = read_str(
		"while using a bluetooth headset I have run into this:\n"
		"\n"
		"\tBUG: kernel NULL pointer dereference, address: 00000000000006a8\n"
		"\tOops: 0000 [#1] PREEMPT SMP PTI\n"
		"\tRIP: 0010:hci_send_sco+0x17/0xb0 [bluetooth]\n"
		"\tCall Trace:\n"
		"\t<TASK>\n"
		"\t? hci_send_sco+0x17/0xb0 [bluetooth 5eeccc5bad4c2f4e85d0f6a24ae9715b47202498]\n"
		"\tsco_sock_sendmsg+0x235/0x2e0 [bluetooth 5eeccc5bad4c2f4e85d0f6a24ae9715b47202498]\n"
		"\tsock_sendmsg+0x93/0xa0\n"
		"\t</TASK>\n");

	if (ok(r->noopses == 1, "indented: the oops read (%zu)", r->noopses)) {
		const struct tri_oops *o = &r->oopses[0];

		is_str(o->pc_symbol, "hci_send_sco", "indented: its RIP");
		if (ok(o->nframes == 3, "indented: its frames (%zu)", o->nframes)) {
			is_str(o->frames[1].symbol, "sco_sock_sendmsg", "build id: the frame");
			is_str(o->frames[1].module, "bluetooth", "build id: its module without the ID");
			is_str(o->frames[2].symbol, "sock_sendmsg", "build id: the frame after");
		}
	}
	tri_report_free(r);
}

static void test_taint(void)
{
	struct tri_report *r;
	const char *letters = TRI_TAINT_LETTERS;

	for (size_t i = 0; letters[i]; i++)
		ok(tri_taint_meaning(letters[i]) != NULL, "taint: %c has a meaning", letters[i]);
	ok(tri_taint_meaning('G') == NULL && tri_taint_meaning(' ') == NULL &&
	   tri_taint_meaning('\0') == NULL, "taint: G, blank and NUL are no taint");
	is_str(tri_taint_meaning('P'), "proprietary module was loaded", "taint: P");
	is_str(tri_taint_meaning('O'), "externally-built (\"out-of-tree\") module was loaded", "taint: O");

	r = read_str("WARNING: CPU: 0 PID: 1 at kernel/sched/fair.c:10 f+0x1/0x2\n"
		     "CPU: 0 PID: 1 Comm: init Tainted: P   M  D     OE  K   6.6.1 #1\n");
	if (ok(r->noopses == 1, "taint: one oops"))
		is_int(r->oopses[0].taint_flags,
		       TRI_TAINT_P | TRI_TAINT_M | TRI_TAINT_D | TRI_TAINT_O | TRI_TAINT_E | TRI_TAINT_K,
		       "taint: P M D O E K");
	is_int(r->kernel.kind, TRI_KERNEL_STABLE, "taint: 6.6.1 is stable");
	tri_report_free(r);

	/* the form of newer kernels, on a line of its own */
	r = read_str("WARNING: CPU: 0 PID: 1 at drivers/base/core.c:10 f+0x1/0x2\n"
		     "CPU: 0 UID: 0 PID: 1 Comm: init Tainted: [W]=WARN, [O]=OOT_MODULE, [N]=TEST\n");
	if (ok(r->noopses == 1, "taint: bracket form"))
		is_int(r->oopses[0].taint_flags, TRI_TAINT_W | TRI_TAINT_O | TRI_TAINT_N,
		       "taint: [W] [O] [N]");
	tri_report_free(r);
}

static void test_versions(void)
{
	static const struct {
		const char *version;
		enum tri_kernel_kind kind;
		const char *upstream, *distro;
	} cases[] = {
		{ "6.7.4-arch1-1", TRI_KERNEL_DISTRO, "v6.7.4", "Arch Linux" },
		{ "6.6.9-200.fc39.x86_64", TRI_KERNEL_DISTRO, "v6.6.9", "Fedora" },
		{ "6.5.0-15-generic", TRI_KERNEL_DISTRO, "v6.5", "Ubuntu" },
		{ "6.5.0-0.deb12.4-amd64", TRI_KERNEL_DISTRO, "v6.5", "Debian" },
		{ "6.1.76+deb12", TRI_KERNEL_DISTRO, "v6.1.76", "Debian" },
		{ "6.7.7-1-default", TRI_KERNEL_DISTRO, "v6.7.7", "SUSE or openSUSE" },
		{ "5.14.0-362.8.1.el9_3.x86_64", TRI_KERNEL_DISTRO, "v5.14",
		  "Red Hat Enterprise Linux or a rebuild" },
		{ "6.8.0-0.rc7.56.fc40.x86_64", TRI_KERNEL_DISTRO, "v6.8", "Fedora" },
		{ "6.8", TRI_KERNEL_MAINLINE, "v6.8", NULL },
		{ "6.8.0", TRI_KERNEL_MAINLINE, "v6.8", NULL },
		{ "6.8-rc3", TRI_KERNEL_MAINLINE, "v6.8-rc3", NULL },
		{ "6.8.0-rc3", TRI_KERNEL_MAINLINE, "v6.8-rc3", NULL },
		{ "6.6.19", TRI_KERNEL_STABLE, "v6.6.19", NULL },
		{ "6.9.0-rc2-next-20240404", TRI_KERNEL_NEXT, "v6.9-rc2", NULL },
		{ "6.8.0-rc5-00012-g39133352cbed", TRI_KERNEL_LOCAL, "v6.8-rc5", NULL },
		{ "6.7.0-rc6-amd-pstate+", TRI_KERNEL_LOCAL, "v6.7-rc6", NULL },
		{ "2.10.20230517", TRI_KERNEL_NONE, NULL, NULL },
		{ "v6.8", TRI_KERNEL_NONE, NULL, NULL },
		{ "", TRI_KERNEL_NONE, NULL, NULL },
	};
	struct tri_report *r;

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *up, *distro;
		enum tri_kernel_kind kind = tri_kernel_classify(cases[i].version, &up, &distro);

		ok(kind == cases[i].kind && !g_strcmp0(up, cases[i].upstream) &&
		   !g_strcmp0(distro, cases[i].distro),
		   "version: %s is %s %s %s", cases[i].version, tri_kernel_kind_str(kind), show(up),
		   show(distro));
		g_free(up);
		g_free(distro);
	}

	/* where the version is read: Linux version > oops > uname > text */
	r = read_str("It worked on kernel 6.6 but not on the new one.\n"
		     "uname -r: 6.7.4-arch1-1\n");
	is_str(r->kernel.version, "6.7.4-arch1-1", "version: uname -r beats free text");
	is_int(r->kernel.line, 2, "version: its line");
	tri_report_free(r);
	r = read_str("Linux fedora 6.6.14-200.fc39.x86_64 #1 SMP PREEMPT_DYNAMIC Fri Jan 26 23:11:59 UTC 2024 x86_64 GNU/Linux\n"
		     "Mar 01 10:00:00 host kernel: Linux version 6.8.0-rc3 (user@box) (gcc (GCC) 13.2.1) #4 SMP\n");
	is_str(r->kernel.version, "6.8.0-rc3", "version: Linux version beats uname -a");
	is_int(r->kernel.source, TRI_FROM_LINUX_VERSION, "version: from the journal's Linux version");
	tri_report_free(r);
	r = read_str("DMI: Dell Inc. XPS 13 9310/0MRT12, BIOS 3.20.0 11/21/2023 -- kernel 6.5.0-26-generic\n");
	is_str(r->kernel.version, "6.5.0-26-generic", "version: the one after \"kernel\", not the BIOS's");
	tri_report_free(r);
}

static void test_firmware_devices(void)
{
	struct tri_report *r = read_str(
		"[    3.2] iwlwifi 0000:00:14.3: Direct firmware load for iwlwifi-so-a0-gf-a0-89.ucode failed with error -2\n"
		"[    3.3] iwlwifi 0000:00:14.3: Direct firmware load for iwlwifi-so-a0-gf-a0-89.ucode failed with error -2\n"
		"[    3.4] iwlwifi 0000:00:14.3: Loaded firmware version: 83.e8f84e98.0 so-a0-gf-a0-83.ucode\n"
		"[    3.5] Bluetooth: hci0: Failed to load Intel firmware file intel/ibt-0040-0041.sfi (-2)\n"
		"[    3.6] i915 0000:00:02.0: [drm] GuC firmware i915/adlp_guc_70.bin: fetch failed -ENOENT\n"
		"[    3.7] ath10k_pci 0000:3a:00.0: firmware ver WLAN.RM.4.4.1-00288- api 6 features wowlan\n"
		"[    3.8] rtw89_8852be 0000:03:00.0: loaded firmware rtw89/rtw8852b_fw-1.bin\n"
		"[    3.9] amdgpu 0000:03:00.0: firmware: direct-loading firmware amdgpu/psp_13_0_0_sos.bin\n"
		"[    4.0] pci 0000:00:14.3: [8086:a0f0] type 00 class 0x028000\n"
		"00:14.3 Network controller [0280]: Intel Corporation Wi-Fi 6 AX201 [8086:a0f0] (rev 20)\n"
		"[    4.1] usb 3-2: New USB device found, idVendor=046d, idProduct=c52b, bcdDevice=12.11\n"
		"Bus 001 Device 004: ID 8087:0033 Intel Corp. AX211 Bluetooth\n"
		"[    4.2] NETDEV WATCHDOG: enp5s0 (r8169): transmit queue 0 timed out 5412 ms\n"
		"[    4.3] thinkpad_acpi: ThinkPad ACPI Extras v0.26\n"
		"[    4.4] BTRFS error (device sda): bdev /dev/sda errs: wr 0, rd 0\n");

	if (ok(r->nfirmware == 7, "fw: seven firmware items (a repeated failure once)")) {
		const struct tri_firmware *f = r->firmware;

		ok(f[0].failed && f[0].error == -2 && !strcmp(f[0].file, "iwlwifi-so-a0-gf-a0-89.ucode") &&
		   !strcmp(show(f[0].driver), "iwlwifi"), "fw: iwlwifi load failed, -2, by iwlwifi");
		ok(!f[1].failed && !strcmp(show(f[1].version), "83.e8f84e98.0") &&
		   !strcmp(show(f[1].file), "so-a0-gf-a0-83.ucode"), "fw: loaded version and file");
		ok(f[2].failed && f[2].error == -2 && !strcmp(show(f[2].file), "intel/ibt-0040-0041.sfi") &&
		   !strcmp(show(f[2].driver), "bluetooth"), "fw: Intel Bluetooth failure");
		ok(f[3].failed && f[3].error == -2 && !strcmp(show(f[3].file), "i915/adlp_guc_70.bin"),
		   "fw: GuC fetch failed -ENOENT");
		ok(!f[4].file && !strcmp(show(f[4].version), "WLAN.RM.4.4.1-00288-"), "fw: ath10k version");
		is_str(f[5].file, "rtw89/rtw8852b_fw-1.bin", "fw: rtw89 loaded file");
		ok(!f[6].failed && !strcmp(show(f[6].file), "amdgpu/psp_13_0_0_sos.bin"), "fw: direct-loading");
	}
	if (ok(r->ndevices == 3, "dev: three devices (one PCI id twice)")) {
		ok(r->devices[0].bus == TRI_BUS_PCI && r->devices[0].vendor == 0x8086 &&
		   r->devices[0].device == 0xa0f0, "dev: PCI 8086:a0f0");
		ok(r->devices[1].bus == TRI_BUS_USB && r->devices[1].vendor == 0x046d &&
		   r->devices[1].device == 0xc52b, "dev: USB 046d:c52b");
		ok(r->devices[2].bus == TRI_BUS_USB && r->devices[2].vendor == 0x8087 &&
		   r->devices[2].device == 0x0033, "dev: lsusb 8087:0033");
	}
	{
		const char *want[] = { "iwlwifi", "bluetooth", "i915", "ath10k_pci", "rtw89_8852be",
				       "amdgpu", "pci", "usb", "r8169", "thinkpad_acpi", "btrfs" };
		int all = r->ndrivers == G_N_ELEMENTS(want);

		for (size_t i = 0; all && i < G_N_ELEMENTS(want); i++)
			all = !strcmp(r->drivers[i].name, want[i]);
		ok(all, "drivers: %zu in order of appearance", r->ndrivers);
		if (all) {
			is_int(r->drivers[0].count, 3, "drivers: iwlwifi printed three lines");
			ok(r->drivers[0].device && r->drivers[8].device,
			   "drivers: iwlwifi (a PCI address) and r8169 (NETDEV WATCHDOG) name a device");
			ok(!r->drivers[1].device && !r->drivers[9].device && !r->drivers[10].device,
			   "drivers: Bluetooth:, thinkpad_acpi: and BTRFS name none");
		}
	}
	tri_report_free(r);
}

static void test_paths(void)
{
	struct tri_report *r = read_str(
		"See drivers/net/wireless/intel/iwlwifi/mvm/tx.c:1234, and (fs/btrfs/inode.c).\n"
		"Not paths: https://git.kernel.org/pub/scm/linux/kernel/git/firmware/linux-firmware.git\n"
		"/lib/firmware/i915/adlp_guc_70.bin, /proc/sys/kernel/hung_task_timeout_secs, kernel/, mm\n"
		"again drivers/net/wireless/intel/iwlwifi/mvm/tx.c and sound/../sound/pci/hda/patch_realtek.c\n");

	if (ok(r->npaths == 3, "paths: three (URLs, absolute paths, bare folders skipped)")) {
		is_str(r->paths[0].path, "drivers/net/wireless/intel/iwlwifi/mvm/tx.c", "paths: first");
		is_str(r->paths[1].path, "fs/btrfs/inode.c", "paths: in parentheses");
		is_str(r->paths[2].path, "sound/pci/hda/patch_realtek.c", "paths: folded");
		is_int(r->paths[2].line, 4, "paths: line");
	}
	tri_report_free(r);
}

static void test_hostile(void)
{
	struct buf b = BUF_INIT;
	struct tri_report *r;
	int clean = 1;

	/* a line far longer than TRI_MAX_LINE, then a normal one */
	for (int i = 0; i < 3000; i++)
		buf_addstr(&b, "Tainted: ");
	buf_addstr(&b, "\nDMI: ok/ok\n");
	r = tri_read(b.data, b.len);
	is_str(r->hardware, "ok/ok", "hostile: the line after a long one is read");
	is_int(r->nlines, 2, "hostile: two lines");
	tri_report_free(r);
	buf_reset(&b);

	/* more oopses, frames and modules than the caps */
	for (int i = 0; i < TRI_MAX_OOPSES + 5; i++) {
		buf_addf(&b, "WARNING: CPU: 0 PID: 1 at fs/x%d/y.c:1 f+0x1/0x2\nCall Trace:\n", i);
		for (int j = 0; j < TRI_MAX_FRAMES + 10; j++)
			buf_addf(&b, " f%d+0x1/0x2 [m%d]\n", j, j);
		buf_addstr(&b, "---[ end trace 0000000000000000 ]---\n");
	}
	for (int i = 0; i < TRI_MAX_ITEMS + 10; i++)
		buf_addf(&b, "see drivers/x/y%d.c\n", i);
	buf_addstr(&b, "Modules linked in:");
	for (int i = 0; i < TRI_MAX_MODULES + 50; i++)
		buf_addf(&b, " mod%d", i);
	buf_addch(&b, '\n');
	r = tri_read(b.data, b.len);
	is_int(r->noopses, TRI_MAX_OOPSES, "hostile: oopses capped");
	is_int(r->oopses[0].nframes, TRI_MAX_FRAMES, "hostile: frames capped");
	is_int(r->nmodules, TRI_MAX_MODULES, "hostile: modules capped");
	is_int(r->npaths, TRI_MAX_ITEMS, "hostile: paths capped");
	tri_report_free(r);
	buf_release(&b);

	/* NUL bytes end lines; bad UTF-8 and controls never come out */
	{
		static const char text[] = "CPU: 1 PID: 2 Comm: a\xff\xfe\x01z Not tainted 6.6.1 #1\0"
			"Hardware name: \xc3\x28 box\x1b[31m\n";
		struct tri_report *h = tri_read(text, sizeof(text) - 1);

		is_int(h->nlines, 2, "hostile: a NUL ends a line");
		ok(h->hardware && g_utf8_validate(h->hardware, -1, NULL), "hostile: hardware is UTF-8");
		for (const char *p = h->hardware; p && *p; p++)
			clean &= (unsigned char)*p >= 0x20;
		ok(clean, "hostile: no control characters (%s)", show(h->hardware));
		is_str(h->kernel.version, "6.6.1", "hostile: version read around bad bytes");
		tri_report_free(h);
	}
	r = tri_read(NULL, 0);
	ok(r && !r->noopses && !r->kernel.version, "hostile: no text, empty report");
	tri_report_free(r);
}

/* Every report of the labelled set whose log prints a RIP/pc/NIP/epc gives
 * that symbol as its first oops's pc, and every report has a version. */
static void test_labelled_set(void)
{
	char dir[4096];
	DIR *d;
	struct dirent *e;
	int n = 0, with_pc = 0, pc_ok = 0, versions = 0;

	snprintf(dir, sizeof(dir), "%s/tests/triage/reports", getenv("top_srcdir") ? getenv("top_srcdir") : ABS_SRCDIR);
	d = opendir(dir);
	if (!ok(d != NULL, "set: %s opened", dir))
		return;
	while ((e = readdir(d))) {
		char path[8192];
		char *text;
		size_t len;
		struct tri_report *r;
		const char *pc_line;

		if (!g_str_has_suffix(e->d_name, ".txt"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!(text = tap_slurp(path, &len)))
			continue;
		n++;
		r = tri_read(text, len);
		versions += r->kernel.version != NULL;
		pc_line = strstr(text, "RIP: 0010:");
		if (pc_line)
			pc_line += strlen("RIP: 0010:");
		else if ((pc_line = strstr(text, "pc : ")))
			pc_line += strlen("pc : ");
		if (pc_line) {
			char *want = g_strndup(pc_line, strcspn(pc_line, "+ \n"));

			with_pc++;
			if (r->noopses && !g_strcmp0(r->oopses[0].pc_symbol, want))
				pc_ok++;
			else
				diag("%s: pc %s, want %s", e->d_name,
				     r->noopses ? show(r->oopses[0].pc_symbol) : "(no oops)", want);
			g_free(want);
		}
		tri_report_free(r);
		free(text);
	}
	closedir(d);
	ok(n >= 60, "set: %d reports", n);
	ok(with_pc > 30 && pc_ok == with_pc, "set: %d of %d RIP/pc symbols read", pc_ok, with_pc);
	ok(versions == n, "set: %d of %d reports give a kernel version", versions, n);
}

/* The labelled set against the shared MAINTAINERS: the matcher's top-1
 * stays at 93% or more (make bench-triage prints the same figure). */
static void test_labelled_ranking(void)
{
	const char *shared = getenv("BUGBRIDGE_SHARED");
	const char *top = getenv("top_srcdir") ? getenv("top_srcdir") : ABS_SRCDIR;
	char path[4096];
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	char *labels;
	gchar **lines;
	size_t size;
	int total = 0, top1 = 0;

	snprintf(path, sizeof(path), "%s/corpus/maintainers/MAINTAINERS", shared ? shared : "");
	if (!shared || mnt_load(&mf, path, &err) != BB_OK) {
		printf("ok %d # SKIP no MAINTAINERS at %s (set BUGBRIDGE_SHARED)\n", ++tap_count,
		       path);
		bb_error_clear(&err);
		return;
	}
	snprintf(path, sizeof(path), "%s/tests/triage/labels.tsv", top);
	if (!ok((labels = tap_slurp(path, &size)) != NULL, "ranking: %s read", path)) {
		mnt_free(mf);
		return;
	}
	m = tri_matcher_new(mf);
	lines = g_strsplit(labels, "\n", -1);
	for (gchar **l = lines; *l; l++) {
		gchar **cols = g_strsplit(*l, "\t", 3);
		char *text;
		size_t len;

		if (**l && **l != '#' && cols[0] && cols[1]) {
			snprintf(path, sizeof(path), "%s/tests/triage/reports/%s", top, cols[0]);
			if ((text = tap_slurp(path, &len))) {
				struct tri_report *r = tri_read(text, len);
				struct tri_ranking *rk = tri_match(m, r, text, len, 3);

				total++;
				if (rk->n && !strcmp(rk->matches[0].section->name, cols[1]))
					top1++;
				else
					diag("%s: first %s, want %s", cols[0],
					     rk->n ? rk->matches[0].section->name : "(none)", cols[1]);
				tri_ranking_free(rk);
				tri_report_free(r);
				free(text);
			}
		}
		g_strfreev(cols);
	}
	ok(total >= 60 && top1 * 100 >= total * 93, "ranking: top-1 %d of %d (at least 93%%)",
	   top1, total);
	g_strfreev(lines);
	free(labels);
	tri_matcher_free(m);
	mnt_free(mf);
}

/* ---- the matcher ---------------------------------------------------------- */

static void test_patterns(void)
{
	static const struct {
		const char *pattern, *path;
		int want;
	} cases[] = {
		{ "drivers/net/", "drivers/net/wireless/intel/iwlwifi/mvm/tx.c", 1 },
		{ "drivers/net/", "drivers/netfoo/x.c", 0 },
		{ "drivers/net/ethernet/realtek/r8169*", "drivers/net/ethernet/realtek/r8169_main.c", 1 },
		{ "drivers/net/ethernet/realtek/r8169*", "drivers/net/ethernet/realtek/r8169/x.c", 0 },
		{ "net/ipv4/tcp*.c", "net/ipv4/tcp_output.c", 1 },
		{ "net/ipv4/tcp*.c", "net/ipv4/udp.c", 0 },
		{ "drivers/net/ethernet/intel/*/", "drivers/net/ethernet/intel/igc/igc_main.c", 1 },
		{ "drivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd*.[ch]",
		  "drivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd_gpuvm.c", 1 },
		{ "drivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd*.[ch]",
		  "drivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd_gpuvm.o", 0 },
		{ "fs/ext4", "fs/ext4/inode.c", 1 },          /* a folder without its '/' */
		{ "fs/ext4", "fs/ext4x/inode.c", 0 },
		{ "arch/x86/pci/acpi.c", "arch/x86/pci/acpi.c", 1 },
		{ "drivers/i?c/", "drivers/i2c/busses/x.c", 1 },
		{ "*", "x.c", 1 },
		{ "*", "drivers/x.c", 0 },
		{ "*/", "drivers/x.c", 1 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
		ok(tri_pattern_matches(cases[i].pattern, cases[i].path) == cases[i].want,
		   "pattern: %s %s %s", cases[i].pattern, cases[i].want ? "matches" : "does not match",
		   cases[i].path);
	ok(tri_symbol_is_generic("__warn") && tri_symbol_is_generic("do_syscall_64") &&
	   tri_symbol_is_generic("entry_SYSCALL_64_after_hwframe") &&
	   tri_symbol_is_generic("asm_exc_invalid_op") && tri_symbol_is_generic("process_one_work") &&
	   tri_symbol_is_generic("ret_from_fork"), "generic: the frames of every trace");
	ok(!tri_symbol_is_generic("iwl_mvm_rx_tx_cmd") && !tri_symbol_is_generic("place_entity"),
	   "generic: a driver's and the scheduler's own functions are not");
}

static const char small_maintainers[] =
	"THE REST\n"
	"M:\tLinus Torvalds <torvalds@linux-foundation.org>\n"
	"F:\t*\n"
	"F:\t*/\n"
	"\n"
	"HID CORE LAYER\n"
	"L:\tlinux-input@vger.kernel.org\n"
	"F:\tdrivers/hid/\n"
	"F:\tinclude/linux/hid*\n"
	"X:\tdrivers/hid/amd-sfh-hid/\n"
	"\n"
	"HID LOGITECH DRIVERS\n"
	"L:\tlinux-input@vger.kernel.org\n"
	"F:\tdrivers/hid/hid-logitech-*\n"
	"\n"
	"INTEL WIRELESS WIFI LINK (iwlwifi)\n"
	"L:\tlinux-wireless@vger.kernel.org\n"
	"F:\tdrivers/net/wireless/intel/iwlwifi/\n"
	"\n"
	"NETWORKING DRIVERS (WIRELESS)\n"
	"F:\tdrivers/net/wireless/\n"
	"\n"
	"NETWORKING [TCP]\n"
	"F:\tinclude/net/tcp.h\n"
	"F:\tnet/ipv4/tcp*.c\n"
	"\n"
	"SCHEDULER\n"
	"F:\tkernel/sched/\n"
	"\n"
	"THINKPAD ACPI EXTRAS DRIVER\n"
	"F:\tdrivers/platform/x86/thinkpad_acpi.c\n"
	"\n"
	"INTEL ETHERNET DRIVERS\n"
	"F:\tdrivers/net/ethernet/intel/\n"
	"F:\tdrivers/net/ethernet/intel/*/\n"
	"\n"
	"NETWORKING DRIVERS\n"
	"F:\tdrivers/net/\n"
	"\n"
	"AMD DISPLAY CORE\n"
	"F:\tdrivers/gpu/drm/amd/display/\n"
	"\n"
	"AMD DISPLAY CORE - DML\n"
	"F:\tdrivers/gpu/drm/amd/display/dc/dml/\n"
	"\n"
	"AMD KFD\n"
	"F:\tdrivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd*.[ch]\n"
	"\n"
	"RADEON and AMDGPU DRM DRIVERS\n"
	"F:\tdrivers/gpu/drm/amd/\n"
	"\n"
	"QUALCOMM ATH12K WIRELESS DRIVER\n"
	"N:\tath12k\n"
	"\n"
	"WIRELESS EXTRA\n"
	"K:\t\\bcfg80211_[a-z_]+_timeout\\b\n"
	"\n"
	"ARM SUB-ARCHITECTURES\n"
	"L:\tlinux-arm-kernel@lists.infradead.org\n"
	"F:\tarch/arm/mach-*/\n"
	"\n"
	"ZZ2C SUBSYSTEM\n"
	"L:\tlinux-zz2c@vger.kernel.org\n"
	"F:\tdrivers/zz2c/\n"
	"\n"
	"LIBRARY CODE\n"
	"L:\tlinux-kernel@vger.kernel.org\n"
	"F:\tlib/*\n";

/* The ranking of text against the small MAINTAINERS: the first section's
 * name, and the whole ranking in *out (free it). */
static const char *rank_first(const struct tri_matcher *m, const char *text,
			      struct tri_ranking **out)
{
	struct tri_report *r = read_str(text);

	*out = tri_match(m, r, text, strlen(text), 10);
	tri_report_free(r);
	return (*out)->n ? (*out)->matches[0].section->name : "(none)";
}

static double score_of(const struct tri_ranking *rk, const char *name)
{
	for (size_t i = 0; i < rk->n; i++)
		if (!strcmp(rk->matches[i].section->name, name))
			return rk->matches[i].score;
	return 0;
}

static void test_matcher(void)
{
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_ranking *rk;
	const char *first;

	if (!ok(mnt_parse(&mf, small_maintainers, strlen(small_maintainers), &err) == BB_OK,
		"match: small MAINTAINERS parsed"))
		return;
	m = tri_matcher_new(mf);

	/* modules and symbols, no path: the RIP's module and the frames' */
	first = rank_first(m, x86_oops, &rk);
	is_str(first, "INTEL WIRELESS WIFI LINK (iwlwifi)", "match: iwlmvm oops goes to iwlwifi");
	ok(rk->n && rk->matches[0].reason &&
	   strstr(rk->matches[0].reason, "matched F: drivers/net/wireless/intel/iwlwifi/") &&
	   g_str_has_prefix(rk->matches[0].reason, "line "),
	   "match: its reason names the line and the pattern (%s)",
	   rk->n ? show(rk->matches[0].reason) : "");
	ok(score_of(rk, "THE REST") < 0.05 * rk->matches[0].score, "match: THE REST weighs little");
	/* iwlwifi matched its pattern and is not tried under the vendor glob; iwlmvm
	 * matched none and is, at a low weight (Intel hardware) */
	ok(score_of(rk, "INTEL ETHERNET DRIVERS") < 0.2 * rk->matches[0].score,
	   "match: intel/*/ weighs little next to iwlwifi (%.2f, %.2f)",
	   score_of(rk, "INTEL ETHERNET DRIVERS"), rk->matches[0].score);
	tri_ranking_free(rk);

	/* a device driver that no pattern names, on a device of a vendor
	 * whose folder has a "*\/": that vendor's folder */
	first = rank_first(m,
		"[ 4131.300016] e1000e 0000:00:1f.6 eno1: Detected Hardware Unit Hang:\n"
		"[ 4131.300246] e1000e 0000:00:1f.6 eno1: Reset adapter unexpectedly\n"
		"Dell OptiPlex 7090, I219-LM [8086:15fb].\n", &rk);
	is_str(first, "INTEL ETHERNET DRIVERS", "match: e1000e on PCI 8086 is under intel/*/");
	ok(rk->n && strstr(show(rk->matches[0].reason),
			   "messages of e1000e: matched F: drivers/net/ethernet/intel/*/") != NULL,
	   "match: its reason (%s)", rk->n ? show(rk->matches[0].reason) : "");
	ok(score_of(rk, "NETWORKING DRIVERS") < rk->matches[0].score,
	   "match: the shallower drivers/net/ after it");
	tri_ranking_free(rk);
	/* the same without the vendor: nothing */
	rank_first(m,
		"[ 4131.300016] e1000e 0000:00:1f.6 eno1: Detected Hardware Unit Hang:\n"
		"[ 4131.300246] e1000e 0000:00:1f.6 eno1: Reset adapter unexpectedly\n", &rk);
	ok(score_of(rk, "INTEL ETHERNET DRIVERS") == 0, "match: no vendor named, no vendor folder");
	tri_ranking_free(rk);
	/* a subsystem's prefix is no driver folder, even on Intel hardware */
	rank_first(m,
		"Hardware name: Intel Corporation NUC8i7HVK\n"
		"[    1.920027] DMAR: Host address width 39\n"
		"[    1.920032] DMAR: DRHD base: 0x000000fed90000 flags: 0x0\n", &rk);
	ok(score_of(rk, "INTEL ETHERNET DRIVERS") == 0, "match: DMAR: is not under intel/*/");
	tri_ranking_free(rk);
	/* the RIP's module, the vendor from the hardware name */
	first = rank_first(m,
		"CPU: 2 PID: 1620 Comm: ptp4l Not tainted 6.6.16-1-pve #1\n"
		"Hardware name: Intel(R) Client Systems NUC12WSHi7/NUC12WSBi7, BIOS WSADL357 05/05/2023\n"
		"RIP: 0010:igc_ptp_tx_hang+0x3f/0x130 [igc]\n", &rk);
	is_str(first, "INTEL ETHERNET DRIVERS", "match: igc on Intel hardware is under intel/*/");
	tri_ranking_free(rk);
	rank_first(m,
		"Hardware name: Dell Inc. XPS 9320/0CW9KM, BIOS 2.9.0 12/21/2023\n"
		"RIP: 0010:igc_ptp_tx_hang+0x3f/0x130 [igc]\n", &rk);
	ok(score_of(rk, "INTEL ETHERNET DRIVERS") == 0, "match: igc on Dell hardware: no vendor");
	tri_ranking_free(rk);

	/* the WARNING's path beats generic frames; THE REST's "*" says nothing */
	first = rank_first(m,
		"WARNING: CPU: 22 PID: 1 at kernel/sched/fair.c:5198 place_entity+0x1c4/0x1d0\n"
		"CPU: 22 PID: 1 Comm: systemd Not tainted 6.7.0 #5\n"
		"Call Trace:\n"
		" <TASK>\n"
		" ? __warn+0x81/0x130\n"
		" ? report_bug+0x171/0x1a0\n"
		" place_entity+0x1c4/0x1d0\n"
		" process_one_work+0x171/0x340\n"
		" worker_thread+0x27b/0x3a0\n"
		" kthread+0xe5/0x120\n"
		" ret_from_fork+0x31/0x50\n"
		" </TASK>\n", &rk);
	is_str(first, "SCHEDULER", "match: WARNING at kernel/sched/fair.c");
	if (rk->n)
		ok(strstr(show(rk->matches[0].reason), "line 1: warning at kernel/sched/fair.c") != NULL,
		   "match: reason %s", show(rk->matches[0].reason));
	tri_ranking_free(rk);

	/* a module named like a glob: the specific section before the core */
	first = rank_first(m,
		"BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
		"RIP: 0010:logi_dj_recv_add_djhid_device+0x16c/0x420 [hid_logitech_dj]\n"
		"Call Trace:\n"
		" delayedwork_callback+0x1a/0x40 [hid_logitech_dj]\n"
		" process_one_work+0x171/0x340\n", &rk);
	is_str(first, "HID LOGITECH DRIVERS", "match: hid_logitech_dj is hid-logitech-*");
	ok(rk->n >= 2 && !strcmp(rk->matches[1].section->name, "HID CORE LAYER"),
	   "match: HID CORE LAYER second");
	tri_ranking_free(rk);

	/* a module that is a file's name; a fragment without header */
	first = rank_first(m, "RIP: 0010:hotkey_notify_6xxx+0x9e/0xb0 [thinkpad_acpi]\n", &rk);
	is_str(first, "THINKPAD ACPI EXTRAS DRIVER", "match: thinkpad_acpi is thinkpad_acpi.c");
	tri_ranking_free(rk);

	/* a symbol's prefix against a glob */
	first = rank_first(m,
		"Call Trace:\n"
		" <IRQ>\n"
		" __tcp_retransmit_skb+0x71d/0x8a0\n"
		" tcp_retransmit_timer+0x1ad/0xa40\n"
		" call_timer_fn+0x24/0x130\n", &rk);
	is_str(first, "NETWORKING [TCP]", "match: __tcp_retransmit_skb is net/ipv4/tcp*.c");
	tri_ranking_free(rk);

	/* a symbol's prefix ("dc") that is a folder in its module's tree
	 * (amdgpu is drivers/gpu/drm/amd/amdgpu/, dc is .../amd/display/dc/) */
	rank_first(m,
		"RIP: 0010:dcn32_acquire_idle_pipe_for_head_pipe_in_layer+0x4e/0x1d0 [amdgpu]\n"
		"Call Trace:\n"
		" dcn32_acquire_free_pipe_as_secondary_dpp_pipe+0x1af/0xec2 [amdgpu]\n"
		" dc_add_plane_to_context+0x2f1/0x756 [amdgpu]\n"
		" dc_validate_with_context+0x2ff/0x1056 [amdgpu]\n"
		" amdgpu_dm_atomic_check+0x1f5/0x82a [amdgpu]\n", &rk);
	ok(rk->n >= 3 && !strcmp(rk->matches[2].section->name, "AMD DISPLAY CORE"),
	   "match: dc_* in [amdgpu] is drivers/gpu/drm/amd/display/dc/, third after the module's");
	ok(score_of(rk, "AMD DISPLAY CORE") > score_of(rk, "AMD DISPLAY CORE - DML"),
	   "match: dc/ belongs to AMD DISPLAY CORE, not to dc/dml/'s section");
	for (size_t i = 0; i < rk->n && i < 3; i++)
		if (!strcmp(rk->matches[i].section->name, "AMD DISPLAY CORE"))
			ok(strstr(show(rk->matches[i].reason), "frame dc_add_plane_to_context [amdgpu]: "
				  "matched F: drivers/gpu/drm/amd/display/") != NULL,
			   "match: reason %s", show(rk->matches[i].reason));
	tri_ranking_free(rk);
	/* the same symbols in a module with no folder, or in none: no tree */
	rank_first(m,
		"Call Trace:\n"
		" dc_add_plane_to_context+0x2f1/0x756 [foo]\n"
		" dc_validate_with_context+0x2ff/0x1056\n", &rk);
	ok(score_of(rk, "AMD DISPLAY CORE") == 0, "match: dc_* outside a module's tree: no folder");
	tri_ranking_free(rk);

	/* X: excludes, N: and K: */
	first = rank_first(m, "see drivers/hid/amd-sfh-hid/amd_sfh_pcie.c\n", &rk);
	ok(score_of(rk, "HID CORE LAYER") == 0, "match: X: drivers/hid/amd-sfh-hid/ excluded (%s)", first);
	tri_ranking_free(rk);
	first = rank_first(m, "see drivers/net/wireless/ath/ath12k/mac.c\n", &rk);
	ok(score_of(rk, "QUALCOMM ATH12K WIRELESS DRIVER") > 0, "match: N: ath12k on a path");
	tri_ranking_free(rk);
	first = rank_first(m, "wlan0: cfg80211_scan_done_timeout hit\n", &rk);
	is_str(first, "WIRELESS EXTRA", "match: K: on the text");
	if (rk->n)
		ok(strstr(show(rk->matches[0].reason), "line 1:") != NULL, "match: K: reason's line");
	tri_ranking_free(rk);

	/* only frames every trace has: nothing to say */
	rank_first(m,
		"Call Trace:\n"
		" <TASK>\n"
		" dump_stack_lvl+0x4d/0x70\n"
		" do_syscall_64+0x5d/0x90\n"
		" entry_SYSCALL_64_after_hwframe+0x6e/0xd8\n"
		" </TASK>\n", &rk);
	is_int(rk->n, 0, "match: generic frames match nothing");
	tri_ranking_free(rk);

	tri_matcher_free(m);
	mnt_free(mf);
}

/* A fake locator: records what it was asked, answers from a table. */
struct fake_locator {
	char *symbols[64], *modules[64];
	size_t nsymbols, nmodules, calls;
	const char *arch;
	int silent;         /* answers nothing */
	int no_modules;     /* answers no module */
};

/* Names in prose: a report with no log names its driver, module or
 * subsystem in words (issue 34: "no 5GHz band with mwifiex", "asus-wmi
 * driver fails", "tpm_tis driver crashs"). */
static const char prose_maintainers[] =
	"THE REST\n"
	"F:\t*\n"
	"F:\t*/\n"
	"\n"
	"MARVELL MWIFIEX WIRELESS DRIVER\n"
	"L:\tlinux-wireless@vger.kernel.org\n"
	"F:\tdrivers/net/wireless/marvell/mwifiex/\n"
	"\n"
	"ASUS NOTEBOOKS AND EEEPC ACPI/WMI EXTRAS DRIVERS\n"
	"L:\tplatform-driver-x86@vger.kernel.org\n"
	"F:\tdrivers/platform/x86/asus*.c\n"
	"F:\tdrivers/platform/x86/asus-wmi.c\n"
	"\n"
	"TPM DEVICE DRIVER\n"
	"L:\tlinux-integrity@vger.kernel.org\n"
	"F:\tdrivers/char/tpm/\n"
	"\n"
	"USB SUBSYSTEM\n"
	"L:\tlinux-usb@vger.kernel.org\n"
	"F:\tdrivers/usb/\n"
	"\n"
	"USB NETWORKING DRIVERS\n"
	"L:\tnetdev@vger.kernel.org\n"
	"F:\tdrivers/net/usb/\n"
	"\n"
	"SPI SUBSYSTEM\n"
	"L:\tlinux-spi@vger.kernel.org\n"
	"F:\tdrivers/spi/\n"
	"\n"
	"CADENCE QSPI DRIVER\n"
	"F:\tdrivers/spi/spi-cadence-quadspi.c\n"
	"\n"
	"INTEL WIRELESS WIFI LINK (iwlwifi)\n"
	"F:\tdrivers/net/wireless/intel/iwl*/\n"
	"\n"
	"PCI NATIVE HOST BRIDGE AND ENDPOINT DRIVERS\n"
	"F:\tdrivers/pci/controller/\n"
	"\n"
	"NVIDIA FRAMEBUFFER DRIVER\n"
	"F:\tdrivers/video/fbdev/nvidia/\n"
	"\n"
	"MAPLE TREE\n"
	"F:\tlib/maple_tree.c\n"
	"\n"
	"CPU HOTPLUG\n"
	"F:\tkernel/cpu.c\n";

static void test_prose(void)
{
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_ranking *rk;
	const char *first;

	if (!ok(mnt_parse(&mf, prose_maintainers, strlen(prose_maintainers), &err) == BB_OK,
		"prose: MAINTAINERS parsed"))
		return;
	m = tri_matcher_new(mf);

	/* a folder named in the title */
	first = rank_first(m, "no 5GHz band with mwifiex since 6.1\n\nThe card shows only "
			   "2.4GHz networks.\n", &rk);
	ok(!strcmp(first, "MARVELL MWIFIEX WIRELESS DRIVER"), "prose: mwifiex, first %s", first);
	ok(rk->n && strstr(show(rk->matches[0].reason), "line 1: title word \"mwifiex\": "
			   "matched F: drivers/net/wireless/marvell/mwifiex/"),
	   "prose: the reason names the word and the pattern: %s",
	   rk->n ? show(rk->matches[0].reason) : "(none)");
	tri_ranking_free(rk);
	/* a file's name, in the body */
	first = rank_first(m, "Keyboard backlight stops\n\nSince 6.8 the asus-wmi driver fails "
			   "to set the level.\n", &rk);
	ok(!strcmp(first, "ASUS NOTEBOOKS AND EEEPC ACPI/WMI EXTRAS DRIVERS"),
	   "prose: asus-wmi in the body, first %s", first);
	tri_ranking_free(rk);
	/* a module named after its folder and its bus: tpm_tis is tpm/ */
	first = rank_first(m, "tpm_tis driver crashs on resume\n", &rk);
	ok(!strcmp(first, "TPM DEVICE DRIVER"), "prose: tpm_tis, first %s", first);
	tri_ranking_free(rk);
	/* the end of a file's name: spi-cadence-quadspi.c */
	first = rank_first(m, "[REGRESSION] cadence-quadspi: STIG mode times out\n", &rk);
	ok(!strcmp(first, "CADENCE QSPI DRIVER"), "prose: cadence-quadspi, first %s", first);
	tri_ranking_free(rk);
	/* the subsystem a title names outranks a folder of the same name
	 * elsewhere */
	first = rank_first(m, "usb: devices are not enumerated after resume\n", &rk);
	ok(!strcmp(first, "USB SUBSYSTEM"), "prose: usb names USB SUBSYSTEM, first %s", first);
	tri_ranking_free(rk);
	/* a lower-case name alone in a title's parentheses */
	first = rank_first(m, "iwlwifi loses the connection every hour\n", &rk);
	ok(!strcmp(first, "INTEL WIRELESS WIFI LINK (iwlwifi)"), "prose: iwlwifi, first %s",
	   first);
	tri_ranking_free(rk);
	/* the end of a file's name only when it has two parts: "tree" is not
	 * maple_tree.c */
	first = rank_first(m, "Directory tree walk hangs\n", &rk);
	ok(!strcmp(first, "(none)"), "prose: a one-word end of a name is no name, first %s",
	   first);
	tri_ranking_free(rk);
	/* English words and vendors are no drivers; quoted and log lines are
	 * not prose */
	first = rank_first(m, "The controller hardware hangs\n\nnvidia card via a riser, "
			   "on every cpu, log below.\n"
			   "> mwifiex was fine\n[   12.345678] asus-wmi is loaded\n", &rk);
	ok(!strcmp(first, "(none)"), "prose: no driver in plain words, first %s", first);
	tri_ranking_free(rk);

	tri_matcher_free(m);
	mnt_free(mf);
}

/* The guilty frame, as syzbot picks it: shared code at the top of a trace
 * (lib/, allocators, locking, headers, mm/ for a report that is not mm's)
 * is the caller's bug (issue 34: lib/vsprintf.c went to LIBRARY CODE,
 * __raw_spin_lock to LOCKING). */
static const char guilty_maintainers[] =
	"LIBRARY CODE\n"
	"F:\tlib/*\n"
	"\n"
	"VSPRINTF\n"
	"F:\tlib/vsprintf.c\n"
	"\n"
	"MEMORY MANAGEMENT\n"
	"L:\tlinux-mm@kvack.org\n"
	"F:\tmm/\n"
	"\n"
	"SLAB ALLOCATOR\n"
	"F:\tmm/slub.c\n"
	"\n"
	"LOCKING PRIMITIVES\n"
	"F:\tkernel/locking/\n"
	"\n"
	"HID CORE LAYER\n"
	"L:\tlinux-input@vger.kernel.org\n"
	"F:\tdrivers/hid/\n"
	"\n"
	"WIDGET HID DRIVER\n"
	"L:\tlinux-input@vger.kernel.org\n"
	"F:\tdrivers/hid/widget/\n";

static const char guilty_warning[] =
	"[  100.000000] ------------[ cut here ]------------\n"
	"[  100.000001] WARNING: CPU: 0 PID: 12 at lib/vsprintf.c:2800 vsnprintf+0x300/0x500\n"
	"[  100.000002] Modules linked in: widget hid_generic usbhid\n"
	"[  100.000003] CPU: 0 PID: 12 Comm: kworker/0:1 Not tainted 6.8.0 #1\n"
	"[  100.000004] RIP: 0010:vsnprintf+0x300/0x500\n"
	"[  100.000005] Call Trace:\n"
	"[  100.000006]  <TASK>\n"
	"[  100.000007]  sprintf+0x50/0x70\n"
	"[  100.000008]  _raw_spin_lock_irqsave+0x20/0x40\n"
	"[  100.000009]  __kmalloc+0x40/0x90\n"
	"[  100.000010]  widget_get_report+0x90/0x120 [widget]\n"
	"[  100.000011]  widget_raw_request+0x30/0x40 [widget]\n"
	"[  100.000012]  process_one_work+0x171/0x340\n"
	"[  100.000013]  </TASK>\n"
	"[  100.000014] ---[ end trace 0000000000000000 ]---\n";

/* syzbot's form: frames with their files */
static const char guilty_syzbot[] =
	"BUG: KASAN: slab-use-after-free in __list_del_entry_valid+0x20/0x90 lib/list_debug.c:62\n"
	"Read of size 8 at addr ffff888100000000 by task syz-executor/5000\n"
	"\n"
	"CPU: 1 PID: 5000 Comm: syz-executor Not tainted 6.9.0-syzkaller #0\n"
	"Call Trace:\n"
	" <TASK>\n"
	" __dump_stack lib/dump_stack.c:88 [inline]\n"
	" dump_stack_lvl+0x116/0x1f0 lib/dump_stack.c:114\n"
	" print_report+0xc4/0x620 mm/kasan/report.c:377\n"
	" kasan_report+0xd9/0x110 mm/kasan/report.c:601\n"
	" __list_del_entry_valid+0x20/0x90 lib/list_debug.c:62\n"
	" list_del include/linux/list.h:229 [inline]\n"
	" kfree+0x30/0x90 mm/slub.c:4400\n"
	" widget_release+0x50/0x90 drivers/hid/widget/widget-core.c:310\n"
	" hid_device_remove+0x60/0x90 drivers/hid/hid-core.c:2700\n"
	" </TASK>\n";

/* all of mm: a report of mm's own */
static const char guilty_mm[] =
	"BUG: Bad page state in process kcompactd0  pfn:1a2b3c\n"
	"Call Trace:\n"
	" <TASK>\n"
	" dump_stack_lvl+0x116/0x1f0 lib/dump_stack.c:114\n"
	" bad_page+0x80/0x120 mm/page_alloc.c:500\n"
	" free_unref_page+0x30/0x90 mm/page_alloc.c:2600\n"
	" migrate_pages_batch+0x70/0x200 mm/migrate.c:1700\n"
	" compact_zone+0x100/0x300 mm/compaction.c:2500\n"
	" </TASK>\n";

static void test_guilty(void)
{
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_ranking *rk;
	const char *first;

	ok(tri_path_is_shared("lib/vsprintf.c", 0) && tri_path_is_shared("mm/slub.c", 0) &&
	   tri_path_is_shared("include/linux/string.h", 0) &&
	   tri_path_is_shared("kernel/dma/direct.c", 0) &&
	   tri_path_is_shared("kernel/locking/spinlock.c", 0) &&
	   tri_path_is_shared("arch/x86/entry/entry_64.S", 0) &&
	   tri_path_is_shared("arch/arm64/kernel/entry-common.c", 0) &&
	   tri_path_is_shared("drivers/hid/hid-ids.h", 0) &&
	   tri_path_is_shared("drivers/usb/core/urb.c", 0),
	   "shared: lib/, allocators, headers, DMA core, locking, entry code, urb.c");
	ok(!tri_path_is_shared("drivers/hid/hid-core.c", 0) &&
	   !tri_path_is_shared("mm/migrate.c", 0) && tri_path_is_shared("mm/migrate.c", 1) &&
	   !tri_path_is_shared("arch/x86/kvm/x86.c", 0) && !tri_path_is_shared("fs/btrfs/inode.c", 0),
	   "shared: drivers, file systems and KVM are not; mm/ only when asked");
	ok(tri_symbol_is_shared("__raw_spin_lock") && tri_symbol_is_shared("_raw_spin_lock_irqsave") &&
	   tri_symbol_is_shared("__might_fault") && tri_symbol_is_shared("kmalloc_trace") &&
	   tri_symbol_is_shared("memcpy_orig") && tri_symbol_is_shared("vsnprintf") &&
	   tri_symbol_is_shared("mutex_lock_nested") && tri_symbol_is_shared("dma_direct_map_sg"),
	   "shared: locking, allocator, string, printf and DMA functions by name");
	ok(!tri_symbol_is_shared("widget_get_report") && !tri_symbol_is_shared("hid_input_report") &&
	   !tri_symbol_is_shared("show_temp") && !tri_symbol_is_shared(NULL),
	   "shared: a driver's functions are not");
	ok(tri_symbol_is_generic("common_startup_64") && tri_symbol_is_generic("secondary_startup_64"),
	   "generic: x86's boot entries (common_startup_64 since 6.9)");
	{
		/* a task asleep waiting for a page lock, a lockdep splat, an
		 * hrtimer's callback: their frames without paths */
		struct tri_report *r = read_str(
			"INFO: task nfsd:5136 blocked for more than 122 seconds.\n"
			"Call Trace:\n"
			" <TASK>\n"
			" __schedule+0x3c9/0x1350\n"
			" schedule+0x27/0xa0\n"
			" io_schedule+0x46/0x70\n"
			" folio_wait_bit_common+0x12f/0x310\n"
			" __folio_lock+0x17/0x30\n"
			" extent_write_cache_pages+0x35d/0x730 [btrfs]\n"
			" </TASK>\n"
			"\n"
			"WARNING: possible circular locking dependency detected\n"
			"Call Trace:\n"
			" check_noncircular+0x2f4/0x3e0\n"
			" check_prev_add+0x1ad/0x1200\n"
			" validate_chain+0x8fa/0xdd0\n"
			" __blk_trace_setup+0xa2/0x140\n"
			"\n"
			"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n"
			"Call Trace:\n"
			" <IRQ>\n"
			" _raw_spin_unlock_irqrestore+0x44/0x60\n"
			" __run_hrtimer+0x1e1/0x6b0\n"
			" __hrtimer_run_queues+0x19b/0x250\n"
			" hrtimer_interrupt+0x2f7/0x7b0\n"
			" </IRQ>\n");
		const char *want[] = { "extent_write_cache_pages", "__blk_trace_setup", NULL };

		if (ok(r->noopses == 3, "guilty: three reports read (%zu)", r->noopses))
			for (size_t i = 0; i < 3; i++) {
				int mm = 0;
				ssize_t g = tri_guilty_frame(&r->oopses[i], &mm);

				if (want[i])
					is_str(g >= 0 ? r->oopses[i].frames[g].symbol : NULL, want[i],
					       "guilty: past sleeping and lockdep's frames");
				else
					ok(g < 0, "guilty: the hrtimer interrupt is no one's (%s)",
					   g >= 0 ? r->oopses[i].frames[g].symbol : "");
			}
		tri_report_free(r);
	}

	{
		/* a CPU caught printing to the serial console: the console's
		 * frames above printk, and x86's printing of a stack, are no
		 * one's */
		struct tri_report *r = read_str(
			"NMI backtrace for cpu 0\n"
			"RIP: 0010:io_serial_in+0x87/0xb0 drivers/tty/serial/8250/8250_port.c:407\n"
			"Call Trace:\n"
			" <IRQ>\n"
			" serial_port_in include/linux/serial_core.h:674 [inline]\n"
			" serial8250_console_write+0x17d/0x1090 drivers/tty/serial/8250/8250_port.c:3357\n"
			" console_flush_all+0x53c/0xd70 kernel/printk/printk.c:3049\n"
			" console_unlock+0xae/0x290 kernel/printk/printk.c:3118\n"
			" vprintk_emit+0x409/0x600 kernel/printk/printk.c:2348\n"
			" _printk+0xc8/0x100 kernel/printk/printk.c:2373\n"
			" printk_stack_address arch/x86/kernel/dumpstack.c:72 [inline]\n"
			" show_trace_log_lvl+0x211/0x500 arch/x86/kernel/dumpstack.c:285\n"
			" hid_irq_in+0x35e/0x870 drivers/hid/usbhid/hid-core.c:285\n"
			" </IRQ>\n");
		int mm = 0;
		ssize_t g;

		if (ok(r->noopses == 1 && r->oopses[0].nframes == 9, "console: the trace read")) {
			is_int(tri_console_frames(&r->oopses[0]), 5, "console: five frames print the log");
			g = tri_guilty_frame(&r->oopses[0], &mm);
			is_str(g >= 0 ? r->oopses[0].frames[g].symbol : NULL, "hid_irq_in",
			       "console: the guilty frame is under the printing");
		}
		tri_report_free(r);
	}

	if (!ok(mnt_parse(&mf, guilty_maintainers, strlen(guilty_maintainers), &err) == BB_OK,
		"guilty: MAINTAINERS parsed"))
		return;
	m = tri_matcher_new(mf);
	first = rank_first(m, guilty_warning, &rk);
	ok(!strcmp(first, "WIDGET HID DRIVER"), "guilty: a WARNING at lib/vsprintf.c under "
	   "widget_get_report goes to the widget, first %s", first);
	ok(rk->n && strstr(show(rk->matches[0].reason), "guilty frame widget_get_report [widget]"),
	   "guilty: the reason names the guilty frame: %s",
	   rk->n ? show(rk->matches[0].reason) : "(none)");
	tri_ranking_free(rk);
	first = rank_first(m, guilty_syzbot, &rk);
	ok(!strcmp(first, "WIDGET HID DRIVER"), "guilty: syzbot's KASAN in lib/list_debug.c "
	   "under kfree and widget_release goes to the widget, first %s", first);
	ok(score_of(rk, "SLAB ALLOCATOR") * 4 < score_of(rk, "WIDGET HID DRIVER"),
	   "guilty: kfree in mm/slub.c above it weighs little (%.2f, the widget %.2f)",
	   score_of(rk, "SLAB ALLOCATOR"), score_of(rk, "WIDGET HID DRIVER"));
	tri_ranking_free(rk);
	first = rank_first(m, guilty_mm, &rk);
	ok(!strcmp(first, "MEMORY MANAGEMENT"), "guilty: a trace all of mm/ stays mm's, first %s",
	   first);
	tri_ranking_free(rk);
	tri_matcher_free(m);
	mnt_free(mf);
}

static const char *const fake_places[][2] = {
	{ "zz_widget_probe", "drivers/hid/zz-widget.c" },
	{ "zz_widget_helper", "drivers/hid/zz-widget.c" },
	{ "zzmod", "drivers/net/ethernet/intel/zz/" },
	{ "zz_wdg2", "drivers/hid/zz-widget.c" },
	{ "usb", "drivers/soc/fsl/qe/usb.c" },
	{ "zz2c", "arch/arm/mach-zz/zz2c.c" },
	{ "zz_rawio", "lib/zz_rawio.c" },
	{ "zz_hid_read", "drivers/hid/zz-hid.c" },
	{ "regmap_read", "drivers/base/regmap/regmap.c" },
	{ "__zz_disable", "drivers/i2c/busses/i2c-zz-common.c" },
	{ "zz_runtime_suspend", "drivers/i2c/busses/i2c-zz-platdrv.c" },
};

static void fake_answer(struct fake_locator *f, char **asked, size_t *nasked,
			const char *const *names, size_t n, char **paths)
{
	f->calls++;
	for (size_t i = 0; i < n; i++) {
		if (*nasked < 64)
			asked[(*nasked)++] = g_strdup(names[i]);
		for (size_t k = 0; !f->silent && k < G_N_ELEMENTS(fake_places); k++)
			if (!strcmp(names[i], fake_places[k][0]))
				paths[i] = strdup(fake_places[k][1]);
	}
}

static void fake_symbols(void *ctx, const char *const *names, size_t n, const char *arch,
			 char **paths)
{
	struct fake_locator *f = ctx;

	f->arch = arch;
	fake_answer(f, f->symbols, &f->nsymbols, names, n, paths);
}

static void fake_modules(void *ctx, const char *const *names, size_t n, const char *arch,
			 char **paths)
{
	struct fake_locator *f = ctx;
	int silent = f->silent;

	(void)arch;
	f->silent |= f->no_modules;
	fake_answer(f, f->modules, &f->nmodules, names, n, paths);
	f->silent = silent;
}

static int fake_asked(char *const *asked, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(asked[i], name))
			return 1;
	return 0;
}

static void fake_reset(struct fake_locator *f)
{
	for (size_t i = 0; i < f->nsymbols; i++)
		g_free(f->symbols[i]);
	for (size_t i = 0; i < f->nmodules; i++)
		g_free(f->modules[i]);
	memset(f, 0, sizeof(*f));
}

static void test_locator(void)
{
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_ranking *rk, *plain;
	struct tri_report *r;
	struct fake_locator f;
	struct tri_locator loc = { fake_symbols, fake_modules, "fake grep", &f };
	static const char oops[] =
		"BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
		"Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
		"RIP: 0010:zz_widget_probe+0x12/0x80 [zzmod]\n"
		"Call Trace:\n"
		" <TASK>\n"
		" ? __die+0x23/0x70\n"
		" zz_widget_probe.isra.0+0x12/0x80 [zzmod]\n"
		" a$b+0x1/0x2\n"
		" x.y+0x1/0x2 [bad.mod]\n"
		" process_one_work+0x171/0x340\n"
		" </TASK>\n";
	GString *many = g_string_new(NULL), *longname = g_string_new(NULL);

	memset(&f, 0, sizeof(f));
	if (!ok(mnt_parse(&mf, small_maintainers, strlen(small_maintainers), &err) == BB_OK,
		"locate: small MAINTAINERS parsed"))
		return;
	m = tri_matcher_new(mf);

	/* without a locator the names match nothing but THE REST at most */
	r = read_str(oops);
	plain = tri_match(m, r, oops, strlen(oops), 10);
	ok(!plain->n || strcmp(plain->matches[0].section->name, "HID CORE LAYER"),
	   "locate: by name alone zz_widget_probe is not HID's");
	rk = tri_match_located(m, r, oops, strlen(oops), 10, &loc);
	is_str(rk->n ? rk->matches[0].section->name : "(none)", "HID CORE LAYER",
	       "locate: the file that defines the symbol ranks its section first");
	ok(rk->n && strstr(show(rk->matches[0].reason),
			   "pc zz_widget_probe [zzmod]: defined in drivers/hid/zz-widget.c (fake grep): "
			   "matched F: drivers/hid/"),
	   "locate: the reason says how it was found: %s", rk->n ? show(rk->matches[0].reason) : "");
	/* the evidence: every clue that counted, strongest first, in words */
	ok(rk->n && rk->matches[0].nevidence >= 2 &&
	   rk->matches[0].nevidence <= TRI_MATCH_MAX_EVIDENCE &&
	   !rk->matches[0].evidence[rk->matches[0].nevidence] &&
	   !strcmp(show(rk->matches[0].evidence[0]), show(rk->matches[0].reason)),
	   "evidence: the reason first, then the other clues (%zu)",
	   rk->n ? rk->matches[0].nevidence : 0);
	ok(rk->n && rk->matches[0].nevidence >= 2 &&
	   strstr(show(rk->matches[0].evidence[1]), "frame zz_widget_probe.isra.0 [zzmod]: "
		  "defined in drivers/hid/zz-widget.c (fake grep): matched F: drivers/hid/"),
	   "evidence: the frame under the pc says so too: %s",
	   rk->n && rk->matches[0].nevidence >= 2 ? show(rk->matches[0].evidence[1]) : "");
	{
		int sorted = rk->n > 0;
		double sum = 0;

		for (size_t i = 0; sorted && i < rk->matches[0].nevidence; i++) {
			sorted = rk->matches[0].evidence_score[i] > 0 &&
				 (!i || rk->matches[0].evidence_score[i] <=
					rk->matches[0].evidence_score[i - 1]);
			sum += rk->matches[0].evidence_score[i];
		}
		ok(sorted && sum <= rk->matches[0].score + 1e-9,
		   "evidence: strongest first, no more than the score (%.2f of %.2f)", sum,
		   rk->n ? rk->matches[0].score : 0.0);
	}
	ok(score_of(rk, "INTEL ETHERNET DRIVERS") > 0,
	   "locate: the module's folder counts for its section");
	is_int(f.calls, 2, "locate: one call for the symbols, one for the modules");
	is_str(show(f.arch), "x86", "locate: the report's architecture is passed on");
	ok(fake_asked(f.symbols, f.nsymbols, "zz_widget_probe") && f.nsymbols == 1,
	   "locate: the clone zz_widget_probe.isra.0 is asked as zz_widget_probe, once");
	ok(!fake_asked(f.symbols, f.nsymbols, "a$b") && !fake_asked(f.symbols, f.nsymbols, "x.y") &&
	   !fake_asked(f.modules, f.nmodules, "bad.mod"),
	   "locate: names that are no identifiers are not asked");
	ok(fake_asked(f.modules, f.nmodules, "zzmod") && f.nmodules == 1,
	   "locate: the module is asked once");
	ok(!fake_asked(f.symbols, f.nsymbols, "__die") &&
	   !fake_asked(f.symbols, f.nsymbols, "process_one_work"),
	   "locate: generic and unreliable frames are not asked");
	tri_ranking_free(rk);

	/* a locator that knows nothing: the ranking by name, unchanged */
	fake_reset(&f);
	f.silent = 1;
	rk = tri_match_located(m, r, oops, strlen(oops), 10, &loc);
	ok(rk->n == plain->n, "locate: names the locator does not know fall back to their names");
	for (size_t i = 0; i < rk->n && i < plain->n; i++)
		ok(rk->matches[i].section == plain->matches[i].section &&
		   rk->matches[i].score == plain->matches[i].score &&
		   !strcmp(show(rk->matches[i].reason), show(plain->matches[i].reason)),
		   "locate: fallback %zu is the plain ranking's", i);
	tri_ranking_free(rk);
	tri_ranking_free(plain);
	tri_report_free(r);

	/* the known x86 oops: no locator and an empty one rank alike */
	fake_reset(&f);
	f.silent = 1;
	r = read_str(x86_oops);
	plain = tri_match(m, r, x86_oops, strlen(x86_oops), 10);
	rk = tri_match_located(m, r, x86_oops, strlen(x86_oops), 10, &loc);
	ok(rk->n == plain->n && rk->n && rk->matches[0].section == plain->matches[0].section &&
	   rk->matches[0].score == plain->matches[0].score, "locate: iwlmvm oops unchanged");
	tri_ranking_free(rk);
	tri_ranking_free(plain);
	tri_report_free(r);

	/* at most TRI_LOCATE_MAX names of each kind, none too long */
	/* a title's module names (with a digit, '_' or '-') are located too;
	 * plain words ("usb") are not asked: objects of that name are everywhere */
	{
		static const char title[] = "zz_wdg2 stops after resume on usb dock\n\n"
					    "Nothing in dmesg.\n";

		fake_reset(&f);
		r = read_str(title);
		rk = tri_match_located(m, r, title, strlen(title), 10, &loc);
		ok(fake_asked(f.modules, f.nmodules, "zz_wdg2") &&
		   !fake_asked(f.modules, f.nmodules, "usb") && !fake_asked(f.modules, f.nmodules, "dock"),
		   "locate: the title's module name is asked, its plain words are not");
		is_str(rk->n ? rk->matches[0].section->name : "(none)", "HID CORE LAYER",
		       "locate: a module the title names ranks where it is built");
		ok(rk->n && strstr(show(rk->matches[0].reason), "title word \"zz_wdg2\": module zz_wdg2 "
				   "built in drivers/hid/zz-widget.c (fake grep): matched F: drivers/hid/"),
		   "locate: saying so: %s", rk->n ? show(rk->matches[0].reason) : "");
		tri_ranking_free(rk);
		tri_report_free(r);
	}
	/* a subsystem's name that a board file is also called (obj-y +=
	 * zz2c.o in arch/arm/mach-zz/): the subsystem, not the board */
	{
		static const char title[] = "zz2c transfers time out after resume\n\n"
					    "Nothing in dmesg.\n";

		fake_reset(&f);
		r = read_str(title);
		rk = tri_match_located(m, r, title, strlen(title), 10, &loc);
		ok(fake_asked(f.modules, f.nmodules, "zz2c"), "locate: zz2c is asked");
		is_str(rk->n ? rk->matches[0].section->name : "(none)", "ZZ2C SUBSYSTEM",
		       "locate: a board file of that name ranks after the subsystem");
		tri_ranking_free(rk);
		tri_report_free(r);
	}
	/* a compiler's error naming a function: the error is in the file
	 * that calls it, not where the function is defined */
	{
		static const char title[] =
			"sound/soc/codecs/zz.c:1843:10: error: implicit declaration of function "
			"'zz_widget_helper'\n\ntree: none\n";

		fake_reset(&f);
		f.no_modules = 1;
		r = read_str(title);
		rk = tri_match_located(m, r, title, strlen(title), 10, &loc);
		ok(score_of(rk, "HID CORE LAYER") == 0,
		   "locate: a build error's function is not located (%.2f)",
		   score_of(rk, "HID CORE LAYER"));
		tri_ranking_free(rk);
		tri_report_free(r);
	}
	/* a fault in a function that the tree defines in lib/: shared code,
	 * whose caller is the guilty frame, as if its path were printed */
	{
		static const char fault[] =
			"BUG: unable to handle page fault for address: ffffc90000a4c010\n"
			"RIP: 0010:zz_rawio+0x12/0x30\n"
			"Call Trace:\n"
			" <TASK>\n"
			" zz_rawio+0x12/0x30\n"
			" zz_hid_read+0x40/0x90\n"
			" </TASK>\n";

		fake_reset(&f);
		f.no_modules = 1;
		r = read_str(fault);
		rk = tri_match_located(m, r, fault, strlen(fault), 10, &loc);
		is_str(rk->n ? rk->matches[0].section->name : "(none)", "HID CORE LAYER",
		       "locate: a frame defined in lib/ is shared code");
		ok(rk->n && strstr(show(rk->matches[0].reason), "guilty frame zz_hid_read"),
		   "locate: its caller is the guilty frame: %s",
		   rk->n ? show(rk->matches[0].reason) : "");
		tri_ranking_free(rk);
		tri_report_free(r);
	}
	/* and its functions: where they are defined */
	{
		static const char title[] = "use-after-free in zz_widget_helper on unplug\n\n"
					    "No log kept.\n";

		fake_reset(&f);
		f.no_modules = 1;
		r = read_str(title);
		rk = tri_match_located(m, r, title, strlen(title), 10, &loc);
		ok(fake_asked(f.symbols, f.nsymbols, "zz_widget_helper"),
		   "locate: the title's function name is asked");
		ok(rk->n && !strcmp(rk->matches[0].section->name, "HID CORE LAYER") &&
		   strstr(show(rk->matches[0].reason), "title word \"zz_widget_helper\": defined in "
			  "drivers/hid/zz-widget.c (fake grep)"),
		   "locate: the file defining it ranks first: %s",
		   rk->n ? show(rk->matches[0].reason) : "");
		tri_ranking_free(rk);
		tri_report_free(r);
	}
	for (int i = 0; i < 70; i++)
		g_string_append_c(longname, 'z');
	g_string_append_printf(many, "BUG: long\nRIP: 0010:%s+0x1/0x2 [%s]\n", longname->str,
			       longname->str);
	for (int o = 0; o < 3; o++) {
		g_string_append_printf(many, "BUG: oops %d\nRIP: 0010:pc_%d+0x1/0x2 [pcmod%d]\n"
				       "Call Trace:\n", o, o, o);
		for (int i = 0; i < 8; i++)
			g_string_append_printf(many, " fn_%d_%d+0x1/0x2 [mod_%d_%d]\n", o, i, o, i);
	}
	fake_reset(&f);
	r = read_str(many->str);
	rk = tri_match_located(m, r, many->str, many->len, 10, &loc);
	is_int(f.nsymbols, TRI_LOCATE_MAX, "locate: at most TRI_LOCATE_MAX symbols asked");
	is_int(f.nmodules, TRI_LOCATE_MAX, "locate: at most TRI_LOCATE_MAX modules asked");
	ok(r->noopses >= 1 && r->oopses[0].pc_symbol && !strcmp(r->oopses[0].pc_symbol, longname->str) &&
	   !fake_asked(f.symbols, f.nsymbols, longname->str) &&
	   !fake_asked(f.modules, f.nmodules, longname->str), "locate: a 70-byte name is not asked");
	ok(tri_locate_name_ok("lone-drv", 1) && !tri_locate_name_ok("lone-drv", 0) &&
	   !tri_locate_name_ok("", 0) && !tri_locate_name_ok("a|b", 0) &&
	   !tri_locate_name_ok(".*", 0) && !tri_locate_name_ok(longname->str, 0),
	   "locate: tri_locate_name_ok");
	tri_ranking_free(rk);
	tri_report_free(r);
	fake_reset(&f);
	g_string_free(many, TRUE);
	g_string_free(longname, TRUE);
	tri_matcher_free(m);
	mnt_free(mf);
}

/* Rules tuned on the real set (issue 34): the kernel test robot's tree,
 * a title's subsystem tags, the driver core and sysfs as shared code. */
static const char tuning_maintainers[] =
	"THE REST\n"
	"L:\tlinux-kernel@vger.kernel.org\n"
	"F:\t*\n"
	"F:\t*/\n"
	"\n"
	"HARDWARE MONITORING\n"
	"L:\tlinux-hwmon@vger.kernel.org\n"
	"T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/groeck/linux-staging.git\n"
	"F:\tdrivers/hwmon/\n"
	"\n"
	"WATCHDOG DEVICE DRIVERS\n"
	"L:\tlinux-watchdog@vger.kernel.org\n"
	"T:\tgit git://www.linux-watchdog.org/linux-watchdog.git\n"
	"F:\tdrivers/watchdog/\n"
	"\n"
	"SPI SUBSYSTEM\n"
	"L:\tlinux-spi@vger.kernel.org\n"
	"T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/broonie/spi.git\n"
	"F:\tdrivers/spi/\n"
	"\n"
	"SOUND - SOC LAYER\n"
	"L:\tlinux-sound@vger.kernel.org\n"
	"T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/broonie/sound.git\n"
	"F:\tsound/soc/\n"
	"\n"
	"GPIO SUBSYSTEM\n"
	"L:\tlinux-gpio@vger.kernel.org\n"
	"T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/brgl/linux.git\n"
	"F:\tdrivers/gpio/\n"
	"\n"
	"DESIGNWARE USB3 DRD IP DRIVER\n"
	"L:\tlinux-usb@vger.kernel.org\n"
	"F:\tdrivers/usb/dwc3/\n"
	"\n"
	"GADGET DRIVERS\n"
	"L:\tlinux-usb@vger.kernel.org\n"
	"F:\tdrivers/usb/gadget/\n"
	"\n"
	"THUNDERBOLT DRIVER\n"
	"L:\tlinux-usb@vger.kernel.org\n"
	"F:\tdrivers/thunderbolt/\n"
	"\n"
	"DRIVER CORE, KOBJECTS, DEBUGFS AND SYSFS\n"
	"L:\tdriver-core@lists.test\n"
	"F:\tdrivers/base/\n"
	"F:\tfs/sysfs/\n"
	"\n"
	"ZZ WIDGET DRIVER\n"
	"L:\tzz@lists.test\n"
	"F:\tdrivers/zz/\n"
	"\n"
	"ASUS NOTEBOOKS AND EEEPC ACPI/WMI EXTRAS DRIVERS\n"
	"L:\tplatform-driver-x86@vger.kernel.org\n"
	"F:\tdrivers/platform/x86/asus*.c\n"
	"\n"
	"BACKLIGHT CLASS/SUBSYSTEM\n"
	"L:\tdri-devel@lists.test\n"
	"F:\tdrivers/video/backlight/\n"
	"\n"
	"INPUT (KEYBOARD, MOUSE, JOYSTICK, TOUCHSCREEN) DRIVERS\n"
	"L:\tlinux-input@vger.kernel.org\n"
	"F:\tdrivers/input/\n"
	"\n"
	"KASAN\n"
	"L:\tkasan-dev@lists.test\n"
	"F:\tmm/kasan/\n"
	"\n"
	"TTY LAYER AND SERIAL DRIVERS\n"
	"L:\tlinux-serial@vger.kernel.org\n"
	"F:\tdrivers/tty/\n"
	"\n"
	"NETWORKING [GENERAL]\n"
	"L:\tnetdev@vger.kernel.org\n"
	"F:\tnet/\n"
	"\n"
	"YY HELPER LIBRARY\n"
	"L:\tyy@lists.test\n"
	"F:\tdrivers/yy/\n"
	"\n"
	"INTEL ETHERNET DRIVERS\n"
	"L:\tintel-wired-lan@lists.test\n"
	"F:\tdrivers/net/ethernet/intel/\n"
	"\n"
	"X86 ARCHITECTURE (32-BIT AND 64-BIT)\n"
	"L:\tlinux-kernel@vger.kernel.org\n"
	"F:\tarch/x86/\n"
	"\n"
	"INTEL ZZ CORE DRIVER\n"
	"L:\tplatform-driver-x86@vger.kernel.org\n"
	"F:\tdrivers/platform/x86/intel/zzc/\n"
	"\n"
	"ACPI\n"
	"L:\tlinux-acpi@vger.kernel.org\n"
	"F:\tdrivers/acpi/\n"
	"F:\tarch/x86/kernel/acpi/\n"
	"\n"
	"THINKPAD ACPI EXTRAS DRIVER\n"
	"L:\tplatform-driver-x86@vger.kernel.org\n"
	"F:\tdrivers/platform/x86/thinkpad_acpi.c\n"
	"\n"
	"SPI SUBSYSTEM\n"
	"L:\tlinux-spi@vger.kernel.org\n"
	"F:\tdrivers/spi/\n"
	"\n"
	"PXA2xx SPI DRIVER (maintainers only)\n"
	"M:\tA Maintainer <a@example.org>\n"
	"F:\tdrivers/spi/spi-pxa2xx*\n";

static void test_tuning(void)
{
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_ranking *rk;
	const char *first;

	if (!ok(mnt_parse(&mf, tuning_maintainers, strlen(tuning_maintainers), &err) == BB_OK,
		"tuning: MAINTAINERS parsed"))
		return;
	m = tri_matcher_new(mf);

	/* the robot built groeck's staging tree: hwmon's, not the watchdog's */
	first = rank_first(m,
		"[groeck-staging:watchdog-next 35/38] drivers/watchdog/bcm47xx_wdt.c:205:47: "
		"error: too few arguments to function call\n"
		"\n"
		"tree:   https://git.kernel.org/pub/scm/linux/kernel/git/groeck/linux-staging.git "
		"watchdog-next\n"
		"head:   faaf9f98d1032c901d8e859e3b6883c7e67614b6\n"
		"\n"
		">> drivers/watchdog/bcm47xx_wdt.c:205:47: error: too few arguments\n", &rk);
	is_str(first, "HARDWARE MONITORING", "tree: the robot's tree names its section");
	ok(rk->n && strstr(show(rk->matches[0].reason),
			   "line 3: tree https://git.kernel.org/pub/scm/linux/kernel/git/groeck/"
			   "linux-staging.git: matched T: git git://git.kernel.org/pub/scm/linux/kernel/"
			   "git/groeck/linux-staging.git"),
	   "tree: the reason says so: %s", rk->n ? show(rk->matches[0].reason) : "");
	ok(score_of(rk, "WATCHDOG DEVICE DRIVERS") > 0, "tree: the path still counts");
	tri_ranking_free(rk);
	/* another tree of the same owner: its sections, less; a syzbot "git tree:
	 * upstream" names none */
	first = rank_first(m,
		"[broonie-misc:for-next 1/2] drivers/zz/zz.c:1:1: warning: unused variable\n"
		"tree:   https://git.kernel.org/pub/scm/linux/kernel/git/broonie/misc.git for-next\n",
		&rk);
	ok(score_of(rk, "SPI SUBSYSTEM") > 0 && score_of(rk, "SOUND - SOC LAYER") > 0 &&
	   score_of(rk, "SPI SUBSYSTEM") < score_of(rk, "ZZ WIDGET DRIVER"),
	   "tree: the owner's other trees count, less than the path (%.2f, %.2f)",
	   score_of(rk, "SPI SUBSYSTEM"), score_of(rk, "ZZ WIDGET DRIVER"));
	tri_ranking_free(rk);
	/* a tree no T: names, called after its subsystem */
	first = rank_first(m,
		"[linusw-gpio:b4/descriptors-sound 7/12] sound/soc/codecs/cs35l36.c:1843:10: "
		"error: implicit declaration of function 'irq_get_irq_data'\n"
		"\n"
		"tree:   https://git.kernel.org/pub/scm/linux/kernel/git/linusw/linux-gpio.git "
		"b4/descriptors-sound\n", &rk);
	is_str(first, "GPIO SUBSYSTEM", "tree: linux-gpio.git is GPIO SUBSYSTEM's, the path next");
	ok(rk->n && strstr(show(rk->matches[0].reason), "tree named after the subsystem of GPIO "
			   "SUBSYSTEM"), "tree: saying so: %s", rk->n ? show(rk->matches[0].reason) : "");
	ok(score_of(rk, "SOUND - SOC LAYER") > 0, "tree: the path still counts");
	tri_ranking_free(rk);
	first = rank_first(m, "KASAN: use-after-free in zz_probe\n\ngit tree:       upstream\n"
			   "tree: no url here\n", &rk);
	ok(score_of(rk, "HARDWARE MONITORING") == 0 && score_of(rk, "SPI SUBSYSTEM") == 0,
	   "tree: no URL, no tree");
	tri_ranking_free(rk);

	/* every x86 boot log has its "ACPI:" lines: they weigh as little as
	 * "usb" and "pci" ones, less than a driver's own few */
	first = rank_first(m, "fan never stops after resume\n\n"
			   "[    0.010000] ACPI: Early table checksum verification disabled\n"
			   "[    0.010001] ACPI: RSDP 0x00000000BFFFE014 000024 (v02 LENOVO)\n"
			   "[    0.010002] ACPI: XSDT 0x00000000BFFFD0E8 0000F4 (v01 LENOVO TP-R1C  )\n"
			   "[    0.010003] ACPI: FACP 0x00000000BFFEB000 000114 (v06 LENOVO TP-R1C  )\n"
			   "[    0.010004] ACPI: DSDT 0x00000000BFFD6000 010FCA (v01 LENOVO TP-R1C  )\n"
			   "[    0.010005] ACPI: Reserving FACP table memory at [mem 0xbffeb000-0xbffeb113]\n"
			   "[    0.310000] ACPI: Added _OSI(Module Device)\n"
			   "[    0.310001] ACPI: 12 ACPI AML tables successfully acquired and loaded\n"
			   "[    5.100000] thinkpad_acpi: ThinkPad ACPI Extras v0.26\n"
			   "[    5.100001] thinkpad_acpi: fan_init: initial fan status is unknown\n", &rk);
	is_str(first, "THINKPAD ACPI EXTRAS DRIVER", "boot log: a driver's lines before ACPI's");
	ok(score_of(rk, "ACPI") > 0, "boot log: ACPI's lines still count (%.2f)", score_of(rk, "ACPI"));
	tri_ranking_free(rk);

	/* a title's subsystem tags outweigh a word of the rest of the title */
	first = rank_first(m, "usb: dwc3: gadget: system hangs after thunderbolt dock unplug\n"
			   "\nSee above.\n", &rk);
	is_str(first, "DESIGNWARE USB3 DRD IP DRIVER", "title tag: dwc3 of \"usb: dwc3:\" first");
	ok(score_of(rk, "DESIGNWARE USB3 DRD IP DRIVER") > 1.5 * score_of(rk, "THUNDERBOLT DRIVER"),
	   "title tag: more than a word after the tags (%.2f, %.2f)",
	   score_of(rk, "DESIGNWARE USB3 DRD IP DRIVER"), score_of(rk, "THUNDERBOLT DRIVER"));
	tri_ranking_free(rk);

	/* a name in prose that only a file glob of a section fits */
	first = rank_first(m, "platform/x86: asus-wmi: Keyboard backlight brightness does not work\n"
			   "\nHello.\n", &rk);
	is_str(first, "ASUS NOTEBOOKS AND EEEPC ACPI/WMI EXTRAS DRIVERS",
	       "prose glob: asus-wmi is asus*.c's, over backlight");
	ok(rk->n && strstr(show(rk->matches[0].reason),
			   "title word \"asus-wmi\": matched F: drivers/platform/x86/asus*.c"),
	   "prose glob: saying so: %s", rk->n ? show(rk->matches[0].reason) : "");
	tri_ranking_free(rk);
	/* syzbot's bracketed subsystems, over its guilty frame's; a crash's
	 * kind is no tag */
	first = rank_first(m,
		"[syzbot] [input?] INFO: rcu detected stall in zz_poll\n"
		"\n"
		"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n"
		"Call Trace:\n"
		" <TASK>\n"
		" serial8250_console_write+0x10/0x20 drivers/tty/serial/8250/8250_port.c:3300\n"
		" zz_poll+0x1/0x2 drivers/zz/zz.c:10\n"
		" </TASK>\n", &rk);
	is_str(first, "INPUT (KEYBOARD, MOUSE, JOYSTICK, TOUCHSCREEN) DRIVERS",
	       "syzbot tags: the subsystem syzbot mailed first");
	tri_ranking_free(rk);
	first = rank_first(m, "BUG: KASAN: use-after-free in zz_release\n\nSee the log.\n", &rk);
	ok(score_of(rk, "KASAN") < 2.5 + 1e-9,
	   "title tag: BUG: KASAN: is a crash's kind, no subsystem tag (%.2f)",
	   score_of(rk, "KASAN"));
	tri_ranking_free(rk);

	/* the callers under the guilty frame do not outweigh it together */
	first = rank_first(m,
		"[syzbot] KASAN: use-after-free Read in zz_connect\n"
		"\n"
		"BUG: KASAN: use-after-free in zz_connect+0x1/0x2 drivers/zz/zz.c:10\n"
		"Call Trace:\n"
		" <TASK>\n"
		" zz_connect+0x1/0x2 drivers/zz/zz.c:10\n"
		" genl_family_rcv_msg_doit+0x1/0x2 net/netlink/genetlink.c:1\n"
		" genl_rcv_msg+0x1/0x2 net/netlink/genetlink.c:2\n"
		" netlink_rcv_skb+0x1/0x2 net/netlink/af_netlink.c:3\n"
		" genl_rcv+0x1/0x2 net/netlink/genetlink.c:4\n"
		" netlink_unicast+0x1/0x2 net/netlink/af_netlink.c:5\n"
		" netlink_sendmsg+0x1/0x2 net/netlink/af_netlink.c:6\n"
		" __sock_sendmsg+0x1/0x2 net/socket.c:7\n"
		" </TASK>\n", &rk);
	is_str(first, "ZZ WIDGET DRIVER", "guilty: its callers in net/ do not outweigh it");
	tri_ranking_free(rk);
	/* a title's tag that is a driver's path */
	first = rank_first(m, "platform/x86/intel/zzc: regression found in commit 8049512\n"
			   "\nThe backlight no longer dims.\n", &rk);
	is_str(first, "INTEL ZZ CORE DRIVER", "title tag: platform/x86/intel/zzc is that folder");
	ok(rk->n && strstr(show(rk->matches[0].reason), "title tag platform/x86/intel/zzc: "
			   "matched F: drivers/platform/x86/intel/zzc/"),
	   "title tag: said so: %s", rk->n ? show(rk->matches[0].reason) : "");
	tri_ranking_free(rk);
	/* a Bugzilla mail's component names the subsystem */
	first = rank_first(m,
		"[Bug 219422] New: Hard crash when the dock is unplugged during sleep\n"
		"\n"
		"https://bugzilla.kernel.org/show_bug.cgi?id=219422\n"
		"\n"
		"            Bug ID: 219422\n"
		"           Summary: Hard crash when the dock is unplugged during sleep\n"
		"           Product: Drivers\n"
		"           Version: 2.5\n"
		"          Hardware: All\n"
		"                OS: Linux\n"
		"            Status: NEW\n"
		"          Severity: normal\n"
		"          Priority: P3\n"
		"         Component: Input Devices\n"
		"          Assignee: drivers_input-devices@kernel-bugs.osdl.org\n"
		"\n"
		"The machine hangs when the thunderbolt dock is pulled.\n", &rk);
	is_str(first, "INPUT (KEYBOARD, MOUSE, JOYSTICK, TOUCHSCREEN) DRIVERS",
	       "bugzilla: the component's subsystem first");
	ok(rk->n && strstr(show(rk->matches[0].reason), "word \"input\""),
	   "bugzilla: said so: %s", rk->n ? show(rk->matches[0].reason) : "");
	tri_ranking_free(rk);
	/* the WARN trap's frames of older x86 kernels are no evidence */
	first = rank_first(m,
		"WARNING: refcount bug in zz_put\n"
		"\n"
		"refcount_t: underflow; use-after-free.\n"
		"WARNING: CPU: 1 PID: 1 at lib/refcount.c:28 refcount_warn_saturate+0x1d1/0x1e0\n"
		"Kernel panic - not syncing: panic_on_warn set ...\n"
		"Call Trace:\n"
		" __dump_stack lib/dump_stack.c:77 [inline]\n"
		" dump_stack+0x188/0x20d lib/dump_stack.c:118\n"
		" panic+0x2e3/0x75c kernel/panic.c:221\n"
		" __warn.cold+0x2f/0x35 kernel/panic.c:582\n"
		" report_bug+0x27b/0x2f0 lib/bug.c:195\n"
		" fixup_bug arch/x86/kernel/traps.c:175 [inline]\n"
		" do_error_trap+0x12b/0x220 arch/x86/kernel/traps.c:267\n"
		" do_invalid_op+0x32/0x40 arch/x86/kernel/traps.c:286\n"
		" invalid_op+0x23/0x30 arch/x86/entry/entry_64.S:1027\n"
		"RIP: 0010:refcount_warn_saturate+0x1d1/0x1e0 lib/refcount.c:28\n"
		" zz_put+0x2a1/0x310 drivers/zz/zz.c:566\n"
		" zz_release+0x1/0x2 drivers/zz/zz.c:600\n", &rk);
	is_str(first, "ZZ WIDGET DRIVER", "generic: the x86 WARN trap's frames do not outrank zz");
	tri_ranking_free(rk);
	ok(tri_symbol_is_generic("fixup_bug") && tri_symbol_is_generic("do_invalid_op") &&
	   tri_symbol_is_generic("invalid_op") && tri_symbol_is_generic("do_error_trap"),
	   "generic: fixup_bug, do_error_trap, do_invalid_op, invalid_op");
	/* a vendor's name alone, the first part of a driver's, is no evidence */
	first = rank_first(m, "[    1.000000] intel_zzidle: MWAIT substates: 0x11142120\n"
			   "[    1.000001] intel_zzidle: v0.5.1 model 0x8C\n", &rk);
	ok(score_of(rk, "INTEL ETHERNET DRIVERS") == 0,
	   "vendor: intel_zzidle is not drivers/net/ethernet/intel/'s (%.2f)",
	   score_of(rk, "INTEL ETHERNET DRIVERS"));
	tri_ranking_free(rk);
	/* a section without L: is no place to write to: the list of the
	 * broader section of its files goes first */
	first = rank_first(m, "spi: pxa2xx: transfers time out after resume\n\n"
			   "Since 6.1 every transfer in drivers/spi/spi-pxa2xx.c times out.\n", &rk);
	is_str(first, "SPI SUBSYSTEM", "no list: the section with a list first");
	ok(score_of(rk, "PXA2xx SPI DRIVER (maintainers only)") > 0,
	   "no list: the maintainers' section is still named");
	tri_ranking_free(rk);
	/* the title names the guilty frame, as syzbot titles a report */
	first = rank_first(m,
		"INFO: task hung in zz_probe\n"
		"\n"
		"INFO: task kworker/0:1:12 blocked for more than 143 seconds.\n"
		"Call Trace:\n"
		" <TASK>\n"
		" yy_helper+0x1/0x2 drivers/yy/yy.c:5\n"
		" zz_probe+0x1/0x2 drivers/zz/zz.c:10\n"
		" </TASK>\n", &rk);
	is_str(first, "ZZ WIDGET DRIVER", "guilty: the frame the title names is the guilty one");
	ok(rk->n && strstr(show(rk->matches[0].reason), "guilty frame zz_probe"),
	   "guilty: said so: %s", rk->n ? show(rk->matches[0].reason) : "");
	tri_ranking_free(rk);

	/* a WARNING in the driver core, the driver under it guilty */
	first = rank_first(m,
		"------------[ cut here ]------------\n"
		"sysfs: cannot create duplicate filename '/devices/platform/zz.0/mode'\n"
		"WARNING: CPU: 0 PID: 1 at fs/sysfs/dir.c:32 sysfs_warn_dup+0x5c/0x70\n"
		"RIP: 0010:sysfs_warn_dup+0x5c/0x70\n"
		"Call Trace:\n"
		" <TASK>\n"
		" sysfs_create_file_ns+0x7a/0x90\n"
		" device_create_file+0x42/0x80\n"
		" zz_widget_probe+0x120/0x300 [zz]\n"
		" platform_probe+0x41/0x90\n"
		" really_probe+0x1b5/0x3b0\n"
		" __driver_probe_device+0x78/0x160\n"
		" </TASK>\n", &rk);
	ok(score_of(rk, "DRIVER CORE, KOBJECTS, DEBUGFS AND SYSFS") <
	   score_of(rk, "ZZ WIDGET DRIVER") || !strcmp(first, "ZZ WIDGET DRIVER") ||
	   !rk->n, "infrastructure: the driver core does not outrank the driver (%s)", first);
	tri_ranking_free(rk);
	ok(tri_path_is_shared("drivers/base/core.c", 1) && tri_path_is_shared("fs/sysfs/dir.c", 1) &&
	   !tri_path_is_shared("drivers/base/core.c", 0) &&
	   tri_path_is_shared("drivers/base/regmap/regmap.c", 1) &&
	   !tri_path_is_shared("drivers/base/regmap/regmap.c", 0) &&
	   !tri_path_is_shared("drivers/base/firmware_loader/main.c", 1),
	   "infrastructure: the driver core, sysfs and regmap are shared when a frame is outside them");

	tri_matcher_free(m);
	mnt_free(mf);
}

/* A file named by two sections at the same depth: the one that lists the
 * file itself (F: fs/fhandle.c) before the one whose glob takes every file
 * of the folder (F: fs/\*). */
static void test_literal_file(void)
{
	static const char maintainers[] =
		"FILESYSTEMS (VFS and infrastructure)\n"
		"L:\tlinux-fsdevel@vger.kernel.org\n"
		"F:\tfs/*\n"
		"\n"
		"FILESYSTEMS [EXPORTFS]\n"
		"L:\tlinux-nfs@vger.kernel.org\n"
		"F:\tfs/exportfs/\n"
		"F:\tfs/fhandle.c\n";
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_ranking *rk;
	const char *first;

	if (!ok(mnt_parse(&mf, maintainers, strlen(maintainers), &err) == BB_OK,
		"literal: MAINTAINERS parsed"))
		return;
	m = tri_matcher_new(mf);
	first = rank_first(m,
		"BUG: KASAN: slab-out-of-bounds in do_handle_open+0x3c1/0x440 fs/fhandle.c:226\n"
		"Call Trace:\n"
		" do_handle_open+0x3c1/0x440 fs/fhandle.c:226\n"
		" do_syscall_64+0xcd/0x250 arch/x86/entry/common.c:83\n", &rk);
	is_str(first, "FILESYSTEMS [EXPORTFS]", "literal: F: fs/fhandle.c before F: fs/*");
	ok(score_of(rk, "FILESYSTEMS (VFS and infrastructure)") > 0.8 * rk->matches[0].score,
	   "literal: the glob close behind (%.2f, %.2f)",
	   score_of(rk, "FILESYSTEMS (VFS and infrastructure)"), rk->matches[0].score);
	tri_ranking_free(rk);
	tri_matcher_free(m);
	mnt_free(mf);
}

/* The names sysfs paths give, wherever they are written (a shell session
 * here): buses, classes, drivers, modules and platform devices; not the
 * buses every machine has nor device names such as AMDI0010:00. */
struct sysfs_seen {
	GString *words;
};

static int sysfs_full(void *ctx)
{
	(void)ctx;
	return 0;
}

static void sysfs_tag(void *ctx, const char *tag, size_t k, double weight)
{
	(void)ctx;
	(void)tag;
	(void)k;
	(void)weight;
}

static void sysfs_word(void *ctx, const char *word, double weight, size_t line)
{
	struct sysfs_seen *seen = ctx;

	if (line > 1 && weight >= 2.5)    /* not the title's words */
		g_string_append_printf(seen->words, "%s@%zu ", word, line);
}

static void test_sysfs_names(void)
{
	static const char text[] =
		"magnetometer values stay the same\n"
		"\n"
		"root@bt200deb:~# cat /sys/bus/iio/devices/iio:device1/in_magn_x_raw\n"
		"27\n"
		"$ echo 1 > /sys/bus/platform/drivers/ideapad_acpi/VPC2004:00/conservation_mode\n"
		"$ cat /sys/devices/platform/lg-laptop/battery_care_limit /sys/module/psmouse/parameters/proto\n"
		"$ cat /sys/bus/platform/devices/AMDI0010:00/modalias /sys/bus/spi/devices/spi4.0/uevent\n"
		"$ ls /sys/class/hwmon/ /sys/bus/iio/\n";
	struct sysfs_seen seen = { g_string_new("") };
	const struct tri_prose_sink sink = { sysfs_full, sysfs_tag, sysfs_word, &seen };

	tri_prose_read(text, strlen(text), &sink);
	is_str(seen.words->str, "iio@3 ideapad_acpi@5 lg-laptop@6 psmouse@6 spi@7 hwmon@8 ",
	       "sysfs: the bus, driver, device, module and class names, once each");
	g_string_free(seen.words, TRUE);
}

/* A commit the body cites as developers cite them, hash then subject in
 * parentheses: its subsystem tags count as a title's; a hash-like word
 * or a parenthesis without a hash before it does not. */
static void cited_word(void *ctx, const char *word, double weight, size_t line)
{
	struct sysfs_seen *seen = ctx;

	if (weight >= 6)
		g_string_append_printf(seen->words, "%s@%zu ", word, line);
}

static void test_cited_commits(void)
{
	static const char text[] =
		"I2C bit-banging broke after v5.7\n"
		"\n"
		"I bisected it to commit 2ab73c6d8323 (gpio: Support GPIO controllers\n"
		"without pin-ranges); before it, and with 0f0581b24bd0 (\"spi: fsl: Fix\n"
		"the chip select\") reverted, it works (see deadbeef (not a commit) and\n"
		"(mvebu: the pins) too).\n";
	struct sysfs_seen seen = { g_string_new("") };
	const struct tri_prose_sink sink = { sysfs_full, sysfs_tag, cited_word, &seen };

	tri_prose_read(text, strlen(text), &sink);
	is_str(seen.words->str, "gpio@3 spi@4 fsl@4 ",
	       "cited: the tags of the commits cited, not other parentheses");
	g_string_truncate(seen.words, 0);
	/* a title that quotes the subject alone */
	{
		static const char title[] =
			"Regression: \"wifi: mt76: Strip whitespace from build ddate\" breaks "
			"\"firmware\" loading\n";

		tri_prose_read(title, strlen(title), &sink);
	}
	is_str(seen.words->str, "wifi@1 mt76@1 ", "cited: a title's quoted subject's tags");
	g_string_free(seen.words, TRUE);
}

/* A name whose parts are folders: Bugzilla's component "Platform_x86" is
 * drivers/platform/x86/, not every folder called platform/. */
static void test_folder_name(void)
{
	static const char maintainers[] =
		"X86 PLATFORM DRIVERS\n"
		"L:\tplatform-driver-x86@vger.kernel.org\n"
		"F:\tdrivers/platform/x86/\n"
		"\n"
		"VFIO PLATFORM DRIVER\n"
		"L:\tkvm@vger.kernel.org\n"
		"F:\tdrivers/vfio/platform/\n"
		"\n"
		"USB MASS STORAGE DRIVER\n"
		"L:\tlinux-usb@vger.kernel.org\n"
		"F:\tdrivers/usb/storage/\n"
		"\n"
		"XFS FILESYSTEM\n"
		"L:\tlinux-xfs@vger.kernel.org\n"
		"F:\tfs/xfs/\n"
		"\n"
		"FILESYSTEM DIRECT ACCESS (DAX)\n"
		"L:\tnvdimm@lists.linux.dev\n"
		"F:\tfs/dax.c\n"
		"\n"
		"HP WMI HARDWARE MONITOR DRIVER\n"
		"L:\tlinux-hwmon@vger.kernel.org\n"
		"F:\tDocumentation/hwmon/hp-wmi-sensors.rst\n"
		"F:\tdrivers/hwmon/hp-wmi-sensors.c\n";
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_ranking *rk;
	const char *first;

	if (!ok(mnt_parse(&mf, maintainers, strlen(maintainers), &err) == BB_OK,
		"folder: MAINTAINERS parsed"))
		return;
	m = tri_matcher_new(mf);
	first = rank_first(m,
		"[Bug 219517] New: REGRESSION: charge_control missing in 6.12\n"
		"\n"
		"           Product: Drivers\n"
		"         Component: Platform_x86\n"
		"\n"
		"several charge control related entries are missing.\n", &rk);
	is_str(first, "X86 PLATFORM DRIVERS", "folder: Platform_x86 is drivers/platform/x86/");
	ok(score_of(rk, "VFIO PLATFORM DRIVER") == 0, "folder: not any platform/ folder (%.2f)",
	   score_of(rk, "VFIO PLATFORM DRIVER"));
	tri_ranking_free(rk);
	/* bugzilla.kernel.org mails a new bug to its component's list: the
	 * component outweighs a WARNING in another subsystem's file */
	first = rank_first(m,
		"[Bug 218000] New: WARNING in dax_insert_entry with xfs on pmem\n"
		"\n"
		"           Product: File System\n"
		"         Component: XFS\n"
		"\n"
		"WARNING: CPU: 3 PID: 1123 at fs/dax.c:380 dax_insert_entry+0x3a2/0x3e0\n", &rk);
	is_str(first, "XFS FILESYSTEM", "bugzilla: the component's section first");
	ok(score_of(rk, "FILESYSTEM DIRECT ACCESS (DAX)") > 0, "bugzilla: the warning's file next");
	tri_ranking_free(rk);
	/* a driver's name that begins its file's: hp-wmi of hp-wmi-sensors.c */
	first = rank_first(m, "Laptop fan too loud (spinning nearly always) hp-wmi 7.1-rc4\n", &rk);
	is_str(first, "HP WMI HARDWARE MONITOR DRIVER", "file prefix: hp-wmi is hp-wmi-sensors.c's");
	tri_ranking_free(rk);
	tri_matcher_free(m);
	mnt_free(mf);
}

/* The lists a suggestion says to write to: get_maintainer.pl's for the file
 * that chose it (triage/writeto.h). */
static char *joined(char **v)
{
	return g_strjoinv(" ", v);
}

static void test_write_to(void)
{
	static const char maintainers[] =
		"QUALCOMM ATHEROS ATH10K WIRELESS DRIVER\n"
		"L:\tath10k@lists.infradead.org\n"
		"F:\tdrivers/net/wireless/ath/ath10k/\n"
		"\n"
		"QUALCOMM ATHEROS ATH GENERIC UTILITIES\n"
		"L:\tlinux-wireless@vger.kernel.org\n"
		"F:\tdrivers/net/wireless/ath/*\n"
		"\n"
		"ATHEROS DEBUGFS\n"
		"L:\tATH10K@lists.infradead.org\n"
		"N:\tath[0-9]+k/debug\n"
		"\n"
		"NETWORKING DRIVERS\n"
		"L:\tnetdev@vger.kernel.org\n"
		"F:\tdrivers/net/\n"
		"X:\tdrivers/net/wireless/\n"
		"\n"
		"NETWORKING DRIVERS (WIRELESS)\n"
		"L:\tlinux-wireless@vger.kernel.org\n"
		"F:\tdrivers/net/wireless/\n"
		"\n"
		"PCI DEBUG\n"
		"L:\tlinux-pci@vger.kernel.org\n"
		"F:\tdrivers/net/wireless/ath/ath10k/pci.c\n"
		"\n"
		"THE REST\n"
		"L:\tlinux-kernel@vger.kernel.org\n"
		"F:\t*\n"
		"F:\t*/\n";
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_ranking *rk;
	const char *first;
	unsigned char n_hit[7] = { 0, 0, 1, 0, 0, 0, 0 };
	char **w, *s;

	if (!ok(mnt_parse(&mf, maintainers, strlen(maintainers), &err) == BB_OK,
		"write_to: MAINTAINERS parsed"))
		return;
	/* every section covering the file, deepest first; X: takes netdev out;
	 * "drivers/net/wireless/ath/\*" is one level only (not ath10k/core.c);
	 * the exact file's section first (depth 6); LKML last (THE REST's "*") */
	w = tri_write_to(mf, 0, "drivers/net/wireless/ath/ath10k/core.c", NULL);
	s = joined(w);
	is_str(s, "ath10k@lists.infradead.org linux-wireless@vger.kernel.org "
		  "linux-kernel@vger.kernel.org", "write_to: ath10k/core.c as get_maintainer.pl");
	g_free(s);
	g_strfreev(w);
	w = tri_write_to(mf, 5, "drivers/net/wireless/ath/ath10k/pci.c", NULL);
	s = joined(w);
	is_str(s, "linux-pci@vger.kernel.org ath10k@lists.infradead.org "
		  "linux-wireless@vger.kernel.org linux-kernel@vger.kernel.org",
	       "write_to: the chosen section's lists first, then by depth");
	g_free(s);
	g_strfreev(w);
	/* an N: hit (the caller's) names its lists, once whatever the case */
	w = tri_write_to(mf, 3, "drivers/net/wireless/ath/ath10k/debug.c", n_hit);
	s = joined(w);
	is_str(s, "netdev@vger.kernel.org ath10k@lists.infradead.org "
		  "linux-wireless@vger.kernel.org linux-kernel@vger.kernel.org",
	       "write_to: N: counts, a list named once");
	g_free(s);
	g_strfreev(w);
	w = tri_write_to(mf, 1, "drivers/net/wireless/ath/main.c", NULL);
	s = joined(w);
	is_str(s, "linux-wireless@vger.kernel.org linux-kernel@vger.kernel.org",
	       "write_to: a file glob's own folder");
	g_free(s);
	g_strfreev(w);
	w = tri_write_to(mf, 0, NULL, NULL);
	s = joined(w);
	is_str(s, "ath10k@lists.infradead.org", "write_to: no file, the section's own");
	g_free(s);
	g_strfreev(w);

	m = tri_matcher_new(mf);
	first = rank_first(m,
		"ath10k firmware crash after resume\n"
		"\n"
		"WARNING: CPU: 2 PID: 411 at drivers/net/wireless/ath/ath10k/core.c:2931 "
		"ath10k_core_start+0x1c/0x40 [ath10k_core]\n", &rk);
	is_str(first, "QUALCOMM ATHEROS ATH10K WIRELESS DRIVER", "write_to: the warning's file");
	s = rk->n ? joined(rk->matches[0].write_to) : g_strdup("");
	is_str(s, "ath10k@lists.infradead.org linux-wireless@vger.kernel.org "
		  "linux-kernel@vger.kernel.org", "write_to: a ranking names get_maintainer.pl's lists");
	g_free(s);
	tri_ranking_free(rk);
	/* a name in prose is no file: the section's own lists */
	first = rank_first(m, "ath10k stops working after resume\n", &rk);
	is_str(first, "QUALCOMM ATHEROS ATH10K WIRELESS DRIVER", "write_to: ath10k in prose");
	s = rk->n ? joined(rk->matches[0].write_to) : g_strdup("");
	is_str(s, "ath10k@lists.infradead.org", "write_to: prose keeps the section's lists");
	g_free(s);
	tri_ranking_free(rk);
	tri_matcher_free(m);
	mnt_free(mf);
}

/* A fault in the register map library under a driver's frame is the
 * driver's map (regmap is infrastructure, as the driver core is). */
static void test_regmap_caller(void)
{
	static const char maintainers[] =
		"REGISTER MAP ABSTRACTION\n"
		"L:\tlinux-kernel@vger.kernel.org\n"
		"F:\tdrivers/base/regmap/\n"
		"\n"
		"ZZ I2C DRIVER\n"
		"L:\tlinux-i2c@vger.kernel.org\n"
		"F:\tdrivers/i2c/busses/i2c-zz*\n"
		"\n"
		"I2C SUBSYSTEM HOST DRIVERS\n"
		"L:\tlinux-i2c@vger.kernel.org\n"
		"F:\tdrivers/i2c/busses/\n";
	static const char report[] =
		"NULL pointer dereference on runtime suspend since 6.7-rc6\n"
		"\n"
		"BUG: kernel NULL pointer dereference, address: 00000000000001fc\n"
		"Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
		"RIP: 0010:regmap_read+0x12/0x70\n"
		"Call Trace:\n"
		" <TASK>\n"
		" ? regmap_read+0x12/0x70\n"
		" __zz_disable+0x38/0x180\n"
		" zz_runtime_suspend+0x33/0x50\n"
		" pm_generic_runtime_suspend+0x2f/0x40\n"
		" </TASK>\n";
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_ranking *rk;
	struct tri_report *r;
	struct fake_locator f;
	struct tri_locator loc = { fake_symbols, fake_modules, "fake grep", &f };
	const char *first;

	if (!ok(mnt_parse(&mf, maintainers, strlen(maintainers), &err) == BB_OK,
		"regmap: MAINTAINERS parsed"))
		return;
	m = tri_matcher_new(mf);
	memset(&f, 0, sizeof(f));
	r = read_str(report);
	rk = tri_match_located(m, r, report, strlen(report), 10, &loc);
	first = rk->n ? rk->matches[0].section->name : "(none)";
	is_str(first, "ZZ I2C DRIVER", "regmap: the driver whose map it read, first");
	ok(score_of(rk, "REGISTER MAP ABSTRACTION") > 0, "regmap: the library still named (%.2f)",
	   score_of(rk, "REGISTER MAP ABSTRACTION"));
	tri_ranking_free(rk);
	tri_report_free(r);
	fake_reset(&f);
	tri_matcher_free(m);
	mnt_free(mf);
}

/* A function a trace prints again and again (the stale "? string" entries
 * an unwinder finds on the stack) is one place in the code. */
static void test_frame_once(void)
{
	static const char maintainers[] =
		"LIBRARY CODE\n"
		"L:\tlinux-kernel@vger.kernel.org\n"
		"F:\tlib/*\n"
		"\n"
		"ZZ WATCHDOG DRIVER\n"
		"L:\tlinux-watchdog@vger.kernel.org\n"
		"F:\tdrivers/watchdog/\n";
	GString *report = g_string_new("[zz] 5c7b9167dd: BUG:KASAN:use-after-free_in_string\n\n"
				       "BUG: KASAN: use-after-free in string (lib/vsprintf.c:643)\n"
				       "Call Trace:\n");
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_ranking *rk;
	const char *first;

	for (int i = 0; i < 12; i++)
		g_string_append(report, " ? string (lib/vsprintf.c:643 lib/vsprintf.c:725)\n"
					" ? widen_string (lib/vsprintf.c:612)\n");
	g_string_append(report, " string (lib/vsprintf.c:643 lib/vsprintf.c:725)\n"
				" vsnprintf (lib/vsprintf.c:2733)\n"
				" devm_kvasprintf (drivers/base/devres.c:1026)\n"
				" zz_wdt_probe (drivers/watchdog/zz_wdt.c:509)\n"
				" platform_probe (drivers/base/platform.c:1400)\n");
	if (!ok(mnt_parse(&mf, maintainers, strlen(maintainers), &err) == BB_OK,
		"once: MAINTAINERS parsed"))
		return;
	m = tri_matcher_new(mf);
	first = rank_first(m, report->str, &rk);
	is_str(first, "ZZ WATCHDOG DRIVER", "once: the guilty frame, not the repeats in lib/ (%.2f, %.2f)",
	       score_of(rk, "ZZ WATCHDOG DRIVER"), score_of(rk, "LIBRARY CODE"));
	tri_ranking_free(rk);
	tri_matcher_free(m);
	mnt_free(mf);
	g_string_free(report, TRUE);
}

/* A vendor's name before a name in the title ("AMD PMC") is the vendor's
 * folder with that folder under it (drivers/platform/x86/amd/pmc/). */
static void test_vendor_pair(void)
{
	static const char maintainers[] =
		"AMD PMC DRIVER\n"
		"L:\tplatform-driver-x86@vger.kernel.org\n"
		"F:\tdrivers/platform/x86/amd/pmc/\n"
		"\n"
		"TEGRA ARCHITECTURE SUPPORT\n"
		"L:\tlinux-tegra@vger.kernel.org\n"
		"F:\tdrivers/soc/tegra/pmc.c\n"
		"\n"
		"RADEON and AMDGPU DRM DRIVERS\n"
		"L:\tamd-gfx@lists.freedesktop.org\n"
		"F:\tdrivers/gpu/drm/amd/\n"
		"F:\tdrivers/gpu/drm/amd/amdgpu/\n";
	static const char report[] =
		"[BUG] AMD PMC causes system hang on suspend\n"
		"\n"
		"[  101.2] amdgpu 0000:c4:00.0: amdgpu: SMU is resuming...\n"
		"[  101.3] amdgpu 0000:c4:00.0: amdgpu: SMU is resumed successfully!\n"
		"[  101.4] amdgpu 0000:c4:00.0: amdgpu: ring gfx_0.0.0 timeout\n";
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_ranking *rk;
	struct tri_report *r;
	struct fake_locator f;
	struct tri_locator loc = { fake_symbols, fake_modules, "fake grep", &f };
	const char *first;
	double amd;

	if (!ok(mnt_parse(&mf, maintainers, strlen(maintainers), &err) == BB_OK,
		"vendor pair: MAINTAINERS parsed"))
		return;
	m = tri_matcher_new(mf);
	first = rank_first(m, report, &rk);
	is_str(first, "AMD PMC DRIVER", "vendor pair: AMD PMC is amd/pmc/ (%.2f, amdgpu %.2f)",
	       score_of(rk, "AMD PMC DRIVER"), score_of(rk, "RADEON and AMDGPU DRM DRIVERS"));
	tri_ranking_free(rk);
	first = rank_first(m, "AMD PMC fails to enter S0ix\n", &rk);
	amd = score_of(rk, "AMD PMC DRIVER");
	tri_ranking_free(rk);
	first = rank_first(m, "Intel PMC fails to enter S0ix\n", &rk);
	ok(score_of(rk, "AMD PMC DRIVER") < amd / 2, "vendor pair: Intel PMC is not amd/pmc/ (%.2f, %.2f)",
	   score_of(rk, "AMD PMC DRIVER"), amd);
	tri_ranking_free(rk);
	/* the pair is a module's name for the locator too */
	memset(&f, 0, sizeof(f));
	r = read_str(report);
	rk = tri_match_located(m, r, report, strlen(report), 10, &loc);
	ok(fake_asked(f.modules, f.nmodules, "amd_pmc"), "vendor pair: amd_pmc asked as a module");
	tri_ranking_free(rk);
	tri_report_free(r);
	fake_reset(&f);
	tri_matcher_free(m);
	mnt_free(mf);
}

/* A title's tag that is a path names the folder's lists as get_maintainer.pl
 * would, not THE REST's "*" of the tag as written. */
static void test_write_to_tag(void)
{
	static const char maintainers[] =
		"INTEL ZZ DRIVERS\n"
		"M:\tA Person <a@example.org>\n"
		"F:\tdrivers/platform/x86/intel/zz/\n"
		"\n"
		"X86 PLATFORM DRIVERS\n"
		"L:\tplatform-driver-x86@vger.kernel.org\n"
		"F:\tdrivers/platform/x86/\n"
		"\n"
		"THE REST\n"
		"L:\tlinux-kernel@vger.kernel.org\n"
		"F:\t*\n"
		"F:\t*/\n";
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_ranking *rk;
	const char *first;
	char *s;

	if (!ok(mnt_parse(&mf, maintainers, strlen(maintainers), &err) == BB_OK,
		"write_to tag: MAINTAINERS parsed"))
		return;
	m = tri_matcher_new(mf);
	first = rank_first(m, "[bug report] platform/x86/intel/zz: Add the ZZ discovery driver\n",
			   &rk);
	is_str(first, "INTEL ZZ DRIVERS", "write_to tag: the tag's folder");
	s = rk->n ? joined(rk->matches[0].write_to) : g_strdup("");
	is_str(s, "platform-driver-x86@vger.kernel.org linux-kernel@vger.kernel.org",
	       "write_to tag: the lists of drivers/platform/x86/intel/zz/");
	g_free(s);
	tri_ranking_free(rk);
	tri_matcher_free(m);
	mnt_free(mf);
}

int main(void)
{
	test_x86_oops();
	test_arm64_oops();
	test_ppc_riscv();
	test_arm32();
	test_decoded_trace();
	test_warnings();
	test_hung_tasks();
	test_kcsan();
	test_wrapped_trace();
	test_resumed_trace();
	test_indented_build_id();
	test_taint();
	test_versions();
	test_firmware_devices();
	test_paths();
	test_hostile();
	test_labelled_set();
	test_labelled_ranking();
	test_patterns();
	test_matcher();
	test_prose();
	test_guilty();
	test_locator();
	test_tuning();
	test_literal_file();
	test_sysfs_names();
	test_folder_name();
	test_cited_commits();
	test_write_to();
	test_regmap_caller();
	test_frame_once();
	test_vendor_pair();
	test_write_to_tag();
	return done_testing();
}
