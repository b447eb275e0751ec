/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Crash signatures (triage/signature.c) and same-crash lookups
 * (tracker/samecrash.c), on short excerpts shaped as real reports: a
 * syzbot report and the same crash pasted by a person from another
 * kernel, and crashes that only look alike. */
#include "config.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/store.h"
#include "tracker/samecrash.h"
#include "triage/reader.h"
#include "triage/signature.h"
#include "tap.h"

/* syzbot's way: no timestamps, paths with the frames */
static const char kasan_syzbot[] =
	"==================================================================\n"
	"BUG: KASAN: slab-use-after-free in hiddev_release+0x24b/0x2a0 drivers/hid/usbhid/hiddev.c:232\n"
	"Read of size 8 at addr ffff88801d3b2f38 by task syz-executor.2/5461\n"
	"\n"
	"CPU: 1 PID: 5461 Comm: syz-executor.2 Not tainted 6.5.0-rc1-syzkaller #0\n"
	"Hardware name: Google Google Compute Engine/Google Compute Engine, BIOS Google 07/12/2023\n"
	"Call Trace:\n"
	" <TASK>\n"
	" __dump_stack lib/dump_stack.c:88 [inline]\n"
	" dump_stack_lvl+0xd9/0x150 lib/dump_stack.c:106\n"
	" print_address_description mm/kasan/report.c:364 [inline]\n"
	" print_report+0xc4/0x620 mm/kasan/report.c:475\n"
	" kasan_report+0xda/0x110 mm/kasan/report.c:588\n"
	" __mutex_lock_common kernel/locking/mutex.c:582 [inline]\n"
	" __mutex_lock+0x9f1/0x1340 kernel/locking/mutex.c:747\n"
	" hiddev_release+0x24b/0x2a0 drivers/hid/usbhid/hiddev.c:232\n"
	" __fput+0x3f7/0xa70 fs/file_table.c:384\n"
	" task_work_run+0x14d/0x240 kernel/task_work.c:179\n"
	" </TASK>\n";

/* the same crash as a person pastes it: dmesg timestamps, an older kernel
 * ("use-after-free"), a module, no paths */
static const char kasan_person[] =
	"Unplugging my UPS crashes the machine:\n"
	"[ 1234.567890] BUG: KASAN: use-after-free in hiddev_release+0x24b/0x2a0 [usbhid]\n"
	"[ 1234.567899] Read of size 8 at addr ffff88801d3b2f38 by task upsd/812\n"
	"[ 1234.567901] CPU: 3 PID: 812 Comm: upsd Tainted: G           OE      6.1.0-13-amd64 #1  Debian 6.1.55-1\n"
	"[ 1234.567910] Call Trace:\n"
	"[ 1234.567911]  <TASK>\n"
	"[ 1234.567912]  dump_stack_lvl+0x44/0x5c\n"
	"[ 1234.567920]  print_report+0x184/0x4be\n"
	"[ 1234.567925]  kasan_report+0xc1/0xf0\n"
	"[ 1234.567930]  __mutex_lock.constprop.0+0x9f1/0x1340\n"
	"[ 1234.567935]  hiddev_release+0x24b/0x2a0 [usbhid]\n"
	"[ 1234.567940]  __fput+0x3f7/0xa70\n"
	"[ 1234.567945]  </TASK>\n";

/* looks alike: the same function, but a write */
static const char kasan_write[] =
	"BUG: KASAN: use-after-free in hiddev_release+0x30/0x2a0 [usbhid]\n"
	"Write of size 4 at addr ffff88801d3b2f38 by task upsd/812\n"
	"Call Trace:\n"
	" dump_stack_lvl+0x44/0x5c\n"
	" kasan_report+0xc1/0xf0\n"
	" hiddev_release+0x30/0x2a0 [usbhid]\n"
	" __fput+0x3f7/0xa70\n";

/* a WARNING whose RIP is the driver's own function */
static const char warning[] =
	"[   10.000000] WARNING: CPU: 2 PID: 311 at drivers/net/wireless/intel/iwlwifi/pcie/trans.c:1400 iwl_trans_pcie_start_fw.isra.0+0x5a/0x6b0 [iwlwifi]\n"
	"[   10.000001] Modules linked in: iwlmvm(+) iwlwifi cfg80211\n"
	"[   10.000002] CPU: 2 PID: 311 Comm: modprobe Not tainted 6.8.0 #1\n"
	"[   10.000003] RIP: 0010:iwl_trans_pcie_start_fw.isra.0+0x5a/0x6b0 [iwlwifi]\n"
	"[   10.000004] Call Trace:\n"
	"[   10.000005]  <TASK>\n"
	"[   10.000006]  iwl_mvm_load_ucode_wait_alive+0x11c/0x4d0 [iwlmvm]\n"
	"[   10.000007]  iwl_run_init_mvm_ucode+0x9a/0x3a0 [iwlmvm]\n"
	"[   10.000008]  </TASK>\n";

/* a fault in shared code (memcpy) under a driver */
static const char gpf[] =
	"general protection fault, probably for non-canonical address 0xdffffc0000000003: 0000 [#1] PREEMPT SMP KASAN\n"
	"CPU: 0 PID: 9 Comm: kworker/0:1 Not tainted 6.6.0 #1\n"
	"RIP: 0010:memcpy_orig+0x31/0x140\n"
	"Call Trace:\n"
	" <TASK>\n"
	" ? die_addr+0x3c/0xa0\n"
	" ? exc_general_protection+0x150/0x230\n"
	" mwifiex_process_sta_rx_packet+0x2a1/0x610 [mwifiex]\n"
	" mwifiex_rx_work_queue+0x17f/0x3a0 [mwifiex]\n"
	" process_one_work+0x884/0x15c0\n"
	" </TASK>\n";

/* looks alike: the same driver, another function, a WARNING */
static const char warning_other[] =
	"WARNING: CPU: 0 PID: 1 at drivers/net/wireless/intel/iwlwifi/pcie/trans.c:1210 iwl_trans_pcie_stop_device+0x10/0x60 [iwlwifi]\n"
	"RIP: 0010:iwl_trans_pcie_stop_device+0x10/0x60 [iwlwifi]\n"
	"Call Trace:\n"
	" iwl_mvm_stop_device+0x5a/0x70 [iwlmvm]\n";

/* syzbot's newer WARNING line, its RIP in shared code (usb_submit_urb of
 * drivers/usb/core/urb.c): syzbot titles it by the driver under it */
static const char warning_urb[] =
	"WARNING: drivers/usb/core/urb.c:413 at usb_submit_urb+0x1111/0x1520 drivers/usb/core/urb.c:411, CPU#1: syz.0.17/5836\n"
	"Modules linked in:\n"
	"CPU: 1 UID: 0 PID: 5836 Comm: syz.0.17 Not tainted syzkaller #0 PREEMPT(full)\n"
	"RIP: 0010:usb_submit_urb+0x1111/0x1520 drivers/usb/core/urb.c:411\n"
	"Call Trace:\n"
	" <TASK>\n"
	" cm109_input_open+0x1f5/0x4a0 drivers/input/misc/cm109.c:572\n"
	" input_open_device+0x1d1/0x3a0 drivers/input/input.c:600\n"
	" </TASK>\n";

/* a UBSAN report, whose first line the reader does not take for an oops's */
static const char ubsan[] =
	"UBSAN: shift-out-of-bounds in drivers/scsi/sg.c:1897:13\n"
	"shift exponent 64 is too large for 32-bit type 'int'\n"
	"CPU: 0 PID: 5066 Comm: syz-executor Not tainted 6.6.0-syzkaller #0\n"
	"Call Trace:\n"
	" <TASK>\n"
	" __dump_stack lib/dump_stack.c:88 [inline]\n"
	" dump_stack_lvl+0x125/0x1b0 lib/dump_stack.c:106\n"
	" ubsan_epilogue lib/ubsan.c:217 [inline]\n"
	" __ubsan_handle_shift_out_of_bounds+0x2a6/0x480 lib/ubsan.c:387\n"
	" sg_build_indirect.cold+0x1b/0x20 drivers/scsi/sg.c:1897\n"
	" sg_build_reserve+0xc4/0x180 drivers/scsi/sg.c:2007\n"
	" </TASK>\n";

/* a data race names both sides */
static const char kcsan[] =
	"BUG: KCSAN: data-race in vga_arb_write / vga_arb_write\n"
	"\n"
	"write to 0xffffffff8670c0b8 of 4 bytes by task 3111 on cpu 1:\n"
	" vga_arb_write+0x9a3/0xb30 drivers/pci/vgaarb.c:1234\n"
	" vfs_write+0x1c3/0x6e0 fs/read_write.c:677\n";

/* kmemleak, as syzbot mails it: the trace under "backtrace (crc 0):" starts
 * in the allocator; syzbot names the first caller that allocates nothing */
static const char leak[] =
	"BUG: memory leak\n"
	"unreferenced object 0xffff88812623e000 (size 512):\n"
	"  comm \"dhcpcd\", pid 5478, jiffies 4294946142\n"
	"  hex dump (first 32 bytes):\n"
	"    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................\n"
	"  backtrace (crc 0):\n"
	"    kmemleak_alloc_recursive include/linux/kmemleak.h:44 [inline]\n"
	"    slab_post_alloc_hook mm/slub.c:4958 [inline]\n"
	"    __kmalloc_noprof+0x3e0/0x660 mm/slub.c:5669\n"
	"    hcd_buffer_alloc+0x151/0x190 drivers/usb/core/buffer.c:134\n"
	"    usb_alloc_coherent+0x44/0x70 drivers/usb/core/usb.c:1010\n"
	"    es58x_alloc_urb+0x4c/0xc0 drivers/net/can/usb/etas_es58x/es58x_core.c:1553\n"
	"    es58x_open+0x1b3/0x470 drivers/net/can/usb/etas_es58x/es58x_core.c:1785\n"
	"    __dev_open+0x1be/0x3c0 net/core/dev.c:1683\n"
	"\n";

/* kmemleak before 6.7, as syzbot mailed it: "backtrace:", addresses */
static const char leak_old[] =
	"BUG: memory leak\n"
	"unreferenced object 0xffff8881013c2e00 (size 512):\n"
	"  comm \"ip\", pid 812, jiffies 4294946142 (age 13.280s)\n"
	"  backtrace:\n"
	"    [<ffffffff8153c4b6>] kmalloc_trace+0x26/0x90\n"
	"    [<ffffffff84002e9b>] es58x_open+0x1b3/0x470 [etas_es58x]\n";

/* KMSAN catches an infoleak in the user-copy helper; syzbot names the
 * caller that copied (KMSAN's trace has no "Call Trace:" line) */
static const char infoleak[] =
	"BUG: KMSAN: kernel-infoleak in instrument_copy_to_user include/linux/instrumented.h:114 [inline]\n"
	"BUG: KMSAN: kernel-infoleak in _inline_copy_to_user include/linux/uaccess.h:196 [inline]\n"
	"BUG: KMSAN: kernel-infoleak in _copy_to_user+0xbc/0x110 lib/usercopy.c:40\n"
	" instrument_copy_to_user include/linux/instrumented.h:114 [inline]\n"
	" _inline_copy_to_user include/linux/uaccess.h:196 [inline]\n"
	" _copy_to_user+0xbc/0x110 lib/usercopy.c:40\n"
	" copy_to_user include/linux/uaccess.h:191 [inline]\n"
	" i2cdev_ioctl_smbus+0x5c1/0x8a0 drivers/i2c/i2c-dev.c:386\n"
	" i2cdev_ioctl+0x3f1/0xe10 drivers/i2c/i2c-dev.c:478\n";

/* KMSAN's uninit-value in a library function: syzbot names it, lib/ or
 * not */
static const char uninit_lib[] =
	"BUG: KMSAN: uninit-value in sw842_compress+0x1f0f/0x2e10 lib/842/842_compress.c:506\n"
	" sw842_compress+0x1f0f/0x2e10 lib/842/842_compress.c:506\n"
	" crypto842_scompress+0x4e/0xa0 crypto/842.c:60\n"
	" scomp_acomp_comp_decomp+0x7cb/0xc60 crypto/scompress.c:187\n";

/* KASAN's double-free is syzbot's invalid-free */
static const char double_free[] =
	"BUG: KASAN: double-free in dev_free+0x4fa/0x750 drivers/usb/gadget/legacy/raw_gadget.c:225\n"
	"Free of addr ffff888112b4d000 by task syz-executor/1234\n"
	"Call Trace:\n"
	" kasan_report_invalid_free+0x5f/0xd0 mm/kasan/report.c:543\n"
	" dev_free+0x4fa/0x750 drivers/usb/gadget/legacy/raw_gadget.c:225\n";

/* refcount's own WARNING: the function that dropped the count */
static const char refcount_warning[] =
	"refcount_t: underflow; use-after-free.\n"
	"WARNING: CPU: 0 PID: 9 at lib/refcount.c:28 refcount_warn_saturate+0x14a/0x210 lib/refcount.c:28\n"
	"RIP: 0010:refcount_warn_saturate+0x14a/0x210 lib/refcount.c:28\n"
	"Call Trace:\n"
	" <TASK>\n"
	" __refcount_sub_and_test include/linux/refcount.h:275 [inline]\n"
	" kref_put include/linux/kref.h:65 [inline]\n"
	" rsi_91x_deinit+0x2d1/0x2f0 drivers/net/wireless/rsi/rsi_91x_main.c:400\n"
	" </TASK>\n";

/* lockdep's unbalanced unlock */
static const char unlock_balance[] =
	"=====================================\n"
	"WARNING: bad unlock balance detected!\n"
	"6.13.0-syzkaller #0 Not tainted\n"
	"-------------------------------------\n"
	"kworker/0:2/1234 is trying to release lock (&q->limits_lock) at:\n"
	"Call Trace:\n"
	" <TASK>\n"
	" __dump_stack lib/dump_stack.c:94 [inline]\n"
	" print_unlock_imbalance_bug+0x25b/0x2d0 kernel/locking/lockdep.c:5289\n"
	" __mutex_unlock_slowpath+0x1b1/0x7c0 kernel/locking/mutex.c:919\n"
	" sd_revalidate_disk+0x7f2/0xbc0 drivers/scsi/sd.c:3830\n"
	" </TASK>\n";

static size_t sigs_of(const char *text, struct tri_signature **out)
{
	struct tri_report *r = tri_read(text, strlen(text));
	size_t n = tri_signatures(r, text, strlen(text), out);

	tri_report_free(r);
	return n;
}

static const char *key0(const struct tri_signature *s, size_t n)
{
	return n ? s[0].key : "(none)";
}

static void test_signatures(void)
{
	struct tri_signature *a, *b, *c, *w, *g, *o;
	size_t na = sigs_of(kasan_syzbot, &a), nb = sigs_of(kasan_person, &b);
	size_t nc = sigs_of(kasan_write, &c), nw = sigs_of(warning, &w);
	size_t ng = sigs_of(gpf, &g), no = sigs_of(warning_other, &o);

	is_int(na, 1, "syzbot's KASAN report: one signature");
	is_str(na ? a[0].title : NULL, "KASAN: slab-use-after-free Read in hiddev_release",
	       "syzbot's KASAN report: titled as syzbot titles it, past the mutex frames");
	is_str(nb ? b[0].title : NULL, "KASAN: use-after-free Read in hiddev_release [usbhid]",
	       "the person's paste: its module in the title");
	is_str(key0(a, na), key0(b, nb), "syzbot's report and the person's paste: one key");
	ok(strcmp(key0(a, na), key0(c, nc)), "a Write in the same function is another crash (%s)",
	   key0(c, nc));
	is_str(nw ? w[0].title : NULL, "WARNING in iwl_trans_pcie_start_fw [iwlwifi]",
	       "a WARNING: the RIP function, its .isra suffix dropped, its module");
	is_str(nw ? w[0].frame : NULL, "iwl_trans_pcie_start_fw", "the frame alone");
	is_str(ng ? g[0].title : NULL, "general protection fault in mwifiex_process_sta_rx_packet"
	       " [mwifiex]", "a fault in memcpy: the guilty frame under it, '?' frames skipped");
	ok(no && strcmp(key0(w, nw), key0(o, no)), "another function of the same file: another "
	   "crash (%s)", key0(o, no));
	tri_signatures_free(a, na);
	tri_signatures_free(b, nb);
	tri_signatures_free(c, nc);
	tri_signatures_free(w, nw);
	tri_signatures_free(g, ng);
	tri_signatures_free(o, no);

	{
		struct tri_signature *s;
		size_t n = sigs_of(warning_urb, &s);

		is_str(key0(s, n), "WARNING in cm109_input_open",
		       "syzbot's newer WARNING line, RIP in drivers/usb/core/urb.c: the driver under it");
		tri_signatures_free(s, n);
		n = sigs_of(ubsan, &s);
		is_str(key0(s, n), "UBSAN: shift-out-of-bounds in sg_build_indirect",
		       "UBSAN: its line above the trace, the frame past the sanitizer's, .cold dropped");
		tri_signatures_free(s, n);
		n = sigs_of(kcsan, &s);
		is_str(key0(s, n), "KCSAN: data-race in vga_arb_write / vga_arb_write",
		       "KCSAN: both sides of the race");
		tri_signatures_free(s, n);
	}
	/* kinds titled as syzbot titles them, on excerpts of its reports */
	{
		static const struct {
			const char *text, *key, *what;
		} kinds[] = {
			{ leak, "memory leak in es58x_open",
			  "kmemleak: its backtrace read, the allocating callers skipped" },
			{ leak_old, "memory leak in es58x_open",
			  "an older kmemleak (\"backtrace:\", addresses before the frames)" },
			{ infoleak, "KMSAN: kernel-infoleak in i2cdev_ioctl_smbus",
			  "KMSAN infoleak: the copy helpers skipped" },
			{ uninit_lib, "KMSAN: uninit-value in sw842_compress",
			  "KMSAN uninit-value: the header's function, in lib/ as it is" },
			{ double_free, "KASAN: invalid-free in dev_free",
			  "KASAN's double-free is syzbot's invalid-free" },
			{ refcount_warning, "WARNING: refcount bug in rsi_91x_deinit",
			  "refcount's WARNING: the refcount bug in the caller of kref_put" },
			{ unlock_balance, "WARNING: bad unlock balance in sd_revalidate_disk",
			  "lockdep's bad unlock balance, without \"detected!\"" },
		};

		for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
			struct tri_signature *s;
			size_t n = sigs_of(kinds[i].text, &s);

			is_str(key0(s, n), kinds[i].key, "%s", kinds[i].what);
			tri_signatures_free(s, n);
		}
	}
	/* two crashes in one paste, the second twice: two signatures */
	{
		char *both = g_strconcat(kasan_person, warning, kasan_person, NULL);
		struct tri_signature *s;
		size_t n = sigs_of(both, &s);

		is_int(n, 2, "two crashes, one of them twice: two signatures");
		tri_signatures_free(s, n);
		g_free(both);
	}
	/* nothing to name */
	{
		struct tri_signature *s;
		size_t n = sigs_of("My laptop does not resume from suspend since 6.8.\n", &s);

		is_int(n, 0, "prose without an oops: no signature");
		ok(s == NULL, "and nothing allocated");
	}
}

static void exec_ok(struct store *st, const char *sql)
{
	struct bb_error err = BB_ERROR_INIT;

	if (store_exec(st, sql, &err))
		diag("%s: %s", sql, err.message);
}

static void record(struct store *st, long long bug, const char *text)
{
	struct bb_error err = BB_ERROR_INIT;
	struct tri_report *r = tri_read(text, strlen(text));

	ok(samecrash_record(st, bug, r, text, strlen(text), &err) == BB_OK, "bug %lld recorded",
	   bug);
	tri_report_free(r);
}

static void test_store(const char *dir)
{
	struct bb_error err = BB_ERROR_INIT;
	struct store *st = NULL;
	char *path = str_printf("%s/samecrash.db", dir);
	struct tri_signature *s;
	struct samecrash_hit *hits = NULL;
	size_t n, nh = 0;
	char *block, *text;

	remove(path);
	ok(store_open(&st, path, STORE_READ_WRITE, &err) == BB_OK, "a store (%s)", err.message);
	exec_ok(st, "INSERT INTO bz_bug (id, summary) VALUES (218104, 'hiddev crash'),"
		    " (218200, 'fixed long ago'), (218300, 'a secret one'), (218400, 'iwlwifi'),"
		    " (218500, 'the same hiddev crash again')");
	exec_ok(st, "UPDATE bz_bug SET resolution = 'FIXED', status = 'RESOLVED' WHERE id = 218200");
	exec_ok(st, "UPDATE bz_bug SET restricted = 1 WHERE id = 218300");
	exec_ok(st, "INSERT INTO reg_regression (id, title, bug_id, created, updated, last_activity)"
		    " VALUES (12, 'hiddev crash', 218104, 0, 0, 0)");
	record(st, 218104, kasan_syzbot);
	record(st, 218200, kasan_person);
	record(st, 218300, kasan_person);
	record(st, 218400, warning);

	n = sigs_of(kasan_person, &s);
	ok(samecrash_find(st, s, n, 0, &hits, &nh, &err) == BB_OK, "a lookup");
	is_int(nh, 1, "one open public bug of the same crash: the fixed and the restricted "
	       "ones are not named");
	text = nh ? samecrash_hit_text(&hits[0]) : NULL;
	is_str(text, "bug 218104 (regression #12)", "named with its tracked regression");
	free(text);
	free(hits);
	ok(samecrash_find(st, s, n, 218104, &hits, &nh, &err) == BB_OK && nh == 0,
	   "the bug itself is not its own duplicate");
	free(hits);
	tri_signatures_free(s, n);

	exec_ok(st, "UPDATE reg_regression SET state = 'fixed' WHERE id = 12");
	n = sigs_of(kasan_syzbot, &s);
	ok(samecrash_find(st, s, n, 0, &hits, &nh, &err) == BB_OK && nh == 1 &&
	   hits[0].regression == 0, "a fixed regression is no longer named");
	free(hits);
	tri_signatures_free(s, n);

	/* the block of a new bug of the same crash */
	record(st, 218500, kasan_person);
	block = strdup("Triage (read from the report by bugbridge; it may be wrong):\n"
		       "  First oops:  BUG: KASAN: use-after-free in hiddev_release\n");
	samecrash_note(st, 218500, &block);
	ok(strstr(block, "  Crash:       KASAN: use-after-free Read in hiddev_release [usbhid]\n") != NULL,
	   "the block names the crash");
	ok(strstr(block, "  Same crash:  bug 218104: KASAN: use-after-free Read in hiddev_release"
		  " [usbhid]\n") != NULL, "and the open bug of the same crash");
	ok(!strstr(block, "218300") && !strstr(block, "218200"),
	   "not the restricted or the fixed one");
	diag("%s", block);
	free(block);
	block = NULL;
	samecrash_note(st, 218400, &block);
	ok(block && strstr(block, "Crash:") && !strstr(block, "Same crash:"),
	   "a crash no other bug has: named, no duplicate");
	free(block);

	/* a bug's report read again replaces its signatures */
	record(st, 218104, warning);
	n = sigs_of(kasan_person, &s);
	ok(samecrash_find(st, s, n, 218500, &hits, &nh, &err) == BB_OK && nh == 0,
	   "a bug read again keeps only its new signatures");
	free(hits);
	tri_signatures_free(s, n);
	store_close(st);
	remove(path);
	free(path);
}

int main(void)
{
	char dir[] = "/tmp/bb-test-signature-XXXXXX";

	test_signatures();
	if (!g_mkdtemp(dir))
		return 99;
	test_store(dir);
	rmdir(dir);
	return done_testing();
}
