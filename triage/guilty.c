/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which frames of an oops count (see guilty.h for the contract): the
 * generic frames, shared code, the reporting files, the guilty frame.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "triage/guilty.h"

/* ---- generic frames ----------------------------------------------------- */

static const char *const generic_symbols[] = {
	"__common_interrupt", "__die", "__dump_stack", "__fput", "__handle_irq_event_percpu",
	"__napi_poll", "__run_timers", "__schedule", "__secondary_switched", "__warn",
	"____do_softirq", "__do_softirq", "__irq_exit_rcu", "__sysvec_apic_timer_interrupt",
	"arch_call_rest_init", "arch_do_signal_or_restart", "arch_local_irq_enable",
	"async_run_entry_fn", "bad_page_fault", "call_on_irq_stack", "call_timer_fn",
	"common_interrupt", "cpu_startup_entry", "default_idle", "default_idle_call",
	"dev_watchdog", "die", "do_el0_svc", "do_exit", "do_group_exit", "do_idle",
	"do_init_module", "do_interrupt_handler", "do_one_initcall", "do_softirq_own_stack",
	"do_error_trap", "do_invalid_op", "do_trap", "do_trap_ecall_u", "do_user_addr_fault",
	"dump_backtrace", "dump_stack", "dump_stack_lvl", "el0_svc", "fixup_bug", "invalid_op",
	"el0_svc_common", "el0t_64_sync", "el0t_64_sync_handler", "el1_interrupt",
	"el1h_64_irq", "el1h_64_irq_handler", "exc_invalid_op", "exc_page_fault",
	"generic_handle_domain_irq", "get_signal", "gic_handle_irq", "handle_bug",
	"handle_edge_irq", "handle_fasteoi_irq", "handle_irq_event", "handle_softirqs",
	"invoke_syscall", "irq_exit_rcu", "irq_thread", "irq_thread_fn", "kasan_report",
	"kernel_init", "kernel_init_freeable", "kernelmode_fixup_or_oops", "ksys_read",
	"ksys_write", "kthread", "net_rx_action", "page_fault_oops", "panic",
	"print_address_description", "print_report", "process_one_work", "report_bug",
	"rest_init", "ret_from_exception", "ret_from_fork", "ret_from_fork_asm",
	"run_ksoftirqd", "run_timer_softirq", "schedule", "schedule_timeout",
	"secondary_start_kernel", "show_stack", "smpboot_thread_fn", "start_kernel", "start_kernel_thread",
	"start_secondary", "syscall_exit_to_user_mode", "task_work_run",
	"tasklet_action_common", "unwind_backtrace", "vfs_read", "vfs_write", "worker_thread",
	"x86_64_start_kernel", "x86_64_start_reservations",
	/* the hrtimer interrupt calling a timer's function, as call_timer_fn */
	"__run_hrtimer", "__hrtimer_run_queues", "hrtimer_interrupt", "hrtimer_run_softirq",
	"local_apic_timer_interrupt",
};

static const char *const generic_prefixes[] = {
	"asm_", "common_startup_", "entry_SYSCALL", "__x64_sys_", "__ia32_sys_", "__arm64_sys_", "__se_sys_",
	"__do_sys_", "do_syscall_", "secondary_startup", "sysvec_", "cpuidle_", "__kasan",
	"kasan_", "__asan_", "mutex_lock", "_raw_spin", "rwsem_", "__mutex",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int tri_symbol_is_generic(const char *symbol)
{
	static const char *sorted[G_N_ELEMENTS(generic_symbols)];
	static gsize once;

	if (g_once_init_enter(&once)) {
		memcpy(sorted, generic_symbols, sizeof(sorted));
		qsort(sorted, G_N_ELEMENTS(sorted), sizeof(sorted[0]), cmp_str);
		g_once_init_leave(&once, 1);
	}
	if (!symbol || !*symbol)
		return 1;
	if (bsearch(&symbol, sorted, G_N_ELEMENTS(sorted), sizeof(sorted[0]), cmp_str))
		return 1;
	for (size_t i = 0; i < G_N_ELEMENTS(generic_prefixes); i++)
		if (g_str_has_prefix(symbol, generic_prefixes[i]))
			return 1;
	return 0;
}

/* Files whose WARNINGs and reports blame someone else: the fault is in
 * the caller (a NETDEV WATCHDOG names the driver, KASAN the frame). */
int tri_path_is_reporter(const char *path)
{
	static const char *const reporters[] = {
		"net/sched/sch_generic.c", "lib/refcount.c", "lib/list_debug.c",
		"lib/dump_stack.c", "mm/kasan/", "kernel/panic.c", "lib/bug.c",
		"kernel/locking/lockdep.c", "lib/kobject.c", "fs/sysfs/dir.c",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(reporters); i++)
		if (g_str_has_prefix(path, reporters[i]))
			return 1;
	return 0;
}

/* ---- the guilty frame ---------------------------------------------------- */

/* Shared code, as syzbot's guilty-file rules (syzkaller pkg/report/linux.go,
 * guiltyFileIgnores) see it, with the folders issue 34 adds (entry code,
 * the DMA mapping core, the sanitizers): a fault or frame here is most
 * often the caller's bug.  "mm/" as a whole is in only for a report that
 * has a frame outside shared code and mm/ (see tri_path_is_shared()). */
static const char *const shared_paths[] = {
	"lib/", "virt/lib/", "mm/kasan/", "mm/kmsan/", "mm/kfence/", "kernel/kcov.c",
	"kernel/kcsan/", "mm/slab.c", "mm/slub.c", "mm/slab_common.c", "mm/filemap.c",
	"mm/folio-compat.c", "mm/truncate.c", "mm/memory.c", "mm/percpu", "mm/vmalloc.c",
	"mm/page_alloc.c", "mm/mempool.c", "mm/util.c", "kernel/rcu/", "kernel/locking/",
	"kernel/panic.c", "kernel/printk/", "kernel/softirq.c", "kernel/kthread.c",
	"kernel/sched/", "kernel/stacktrace.c", "kernel/time/timer.c", "kernel/workqueue.c",
	"kernel/dma/", "kernel/irq/", "kernel/entry/", "net/core/dev.c", "net/core/sock.c",
	"net/core/skbuff.c", "fs/proc/generic.c", "drivers/usb/core/urb.c", "include/",
};

/* arch/ARCH/ files of the same kind */
static const char *const shared_arch_paths[] = {
	"kernel/traps.c", "kernel/unwind", "kernel/dumpstack", "mm/fault.c", "mm/physaddr.c",
	"kernel/stacktrace.c", "kernel/apic/apic.c", "kernel/entry", "kernel/process.c",
	"lib/", "entry/", "include/",
};

/* Functions of the same shared code, for traces without paths (most of
 * the ones people paste): locking, allocators, string and printk helpers,
 * the scheduler and workqueues, user copies, list and refcount checks, the
 * sanitizers, DMA mapping. */
static const char *const shared_symbol_prefixes[] = {
	"_copy_", "__copy_", "__might_", "___might_", "__bitmap", "__check_object_size",
	"__dev_printk", "__dma_", "__down", "__dump", "__flush_work", "__fortify",
	"__get_free_pages", "__kasan", "__kmalloc", "__kmem_cache", "__kvmalloc", "__list_",
	"__lock_", "__memcpy", "__memmove", "__memset", "__msan", "__mutex", "__printk",
	"__queue_work", "__raw_", "__rcu", "__schedule", "__slab", "___slab", "__tsan",
	"__ubsan", "__vmalloc", "__wait_for_common", "__wake_up", "__warn",
	"_dev_", "_find_", "_printk", "_raw_", "alloc_pages", "bitmap_", "check_object_size",
	"context_switch", "copy_from_user", "copy_to_user", "dev_printk", "dma_alloc_attrs",
	"dma_direct_", "dma_free_attrs", "dma_map_", "dma_unmap_", "do_raw_", "down_",
	"dump_stack", "finish_task_switch", "flush_work", "fortify_", "get_page_from_freelist",
	"kasan_", "kcalloc", "kcsan_", "kfree", "kmalloc", "kmem_cache_", "kmemdup", "kmsan_",
	"krealloc", "kstrdup", "kvfree", "kvmalloc", "kvzalloc", "kzalloc", "list_add",
	"list_del", "lock_acquire", "lock_release", "lockdep_", "mark_lock", "memchr",
	"memcmp", "memcpy", "memmove", "mempool_", "memset", "might_", "mutex_",
	"native_queued_", "print_", "printk", "queue_work", "queued_", "raw_spin_",
	"refcount_", "rt_mutex", "rwsem_", "schedule", "scnprintf", "slab_", "snprintf",
	"spin_", "sprintf", "strcmp", "strcpy", "strlen", "strncmp", "strncpy", "strnlen",
	"strscpy", "swiotlb_", "try_to_wake_up", "ubsan_", "up_read", "up_write", "vfree",
	"vmalloc", "vprintk", "vscnprintf", "vsnprintf", "wait_for_completion", "wake_up",
	"warn_",
	/* how a task sleeps (kernel/sched/, mm/filemap.c's folio waits) and
	 * how lockdep reports, without their paths */
	"__cond_resched", "__folio_lock", "__local_bh_enable_ip", "__switch_to",
	"__wait_on_bit", "_cond_resched", "bit_wait", "check_noncircular", "check_prev_add",
	"folio_wait_bit", "io_schedule", "out_of_line_wait_on_bit", "preempt_schedule",
	"validate_chain",
	/* x86's printing of a stack (arch/x86/kernel/dumpstack.c) */
	"printk_stack_address", "show_trace_log_lvl",
};

/* The driver core, sysfs, kernfs, debugfs and regmap: frameworks that drivers
 * call, whose WARNINGs ("duplicate filename", "Device ... does not have a
 * release() function") are the caller's.  Shared, as mm/ is, only when a
 * frame is outside them. */
static const char *const infrastructure_paths[] = {
	"drivers/base/core.c", "drivers/base/dd.c", "drivers/base/bus.c",
	"drivers/base/driver.c", "drivers/base/devres.c", "fs/sysfs/", "fs/kernfs/",
	"fs/debugfs/",
	/* the register map library: a driver reads and writes its device's
	 * registers through the map it made; a fault in regmap_read() under
	 * the driver's frame is the driver's map */
	"drivers/base/regmap/",
};
static const char *const infrastructure_symbols[] = {
	"device_", "__device_", "driver_", "__driver_", "really_probe", "call_driver_probe",
	"bus_", "sysfs_", "kernfs_", "kobject_", "devres_", "devm_", "debugfs_", "regmap_",
	"_regmap_",
};

int tri_path_is_infrastructure(const char *path)
{
	for (size_t i = 0; path && i < G_N_ELEMENTS(infrastructure_paths); i++)
		if (g_str_has_prefix(path, infrastructure_paths[i]))
			return 1;
	return 0;
}

int tri_path_is_shared(const char *path, int mm)
{
	size_t n;

	if (!path)
		return 0;
	if (mm && g_str_has_prefix(path, "mm/"))
		return 1;
	if (mm && tri_path_is_infrastructure(path))
		return 1;
	n = strlen(path);
	/* syzbot's ".*\.h": a header's inline function inlined into its caller */
	if (n > 2 && !strcmp(path + n - 2, ".h"))
		return 1;
	for (size_t i = 0; i < G_N_ELEMENTS(shared_paths); i++)
		if (g_str_has_prefix(path, shared_paths[i]))
			return 1;
	if (g_str_has_prefix(path, "arch/")) {
		const char *rest = strchr(path + 5, '/');

		for (size_t i = 0; rest && i < G_N_ELEMENTS(shared_arch_paths); i++)
			if (g_str_has_prefix(rest + 1, shared_arch_paths[i]))
				return 1;
	}
	return 0;
}

int tri_symbol_is_shared(const char *symbol)
{
	if (!symbol)
		return 0;
	for (size_t i = 0; i < G_N_ELEMENTS(shared_symbol_prefixes); i++)
		if (g_str_has_prefix(symbol, shared_symbol_prefixes[i]))
			return 1;
	return 0;
}

/* Whether a frame is in shared code (its path if printed, else its name;
 * the driver core's and sysfs's functions too when mm). */
int tri_frame_is_shared(const struct tri_frame *f, int mm)
{
	if (f->path)
		return tri_path_is_shared(f->path, mm);
	for (size_t i = 0; mm && f->symbol && i < G_N_ELEMENTS(infrastructure_symbols); i++)
		if (g_str_has_prefix(f->symbol, infrastructure_symbols[i]))
			return 1;
	return tri_symbol_is_shared(f->symbol);
}

/* The printk functions that write the log out to the consoles: the
 * frames above them (serial8250_console_write, io_serial_in) are a
 * console printing, not the code at fault. */
static const char *const console_symbols[] = {
	"__console_flush_and_unlock", "call_console_driver", "call_console_drivers",
	"console_emit_next_record", "console_flush_all", "console_unlock", "vprintk_emit",
};

size_t tri_console_frames(const struct tri_oops *o)
{
	size_t n = 0;

	for (size_t i = 0; i < o->nframes; i++) {
		const char *sym = o->frames[i].symbol;

		for (size_t k = 0; sym && k < G_N_ELEMENTS(console_symbols); k++)
			if (!strcmp(sym, console_symbols[k]))
				n = i + 1;
	}
	return n;
}

/* The guilty frame of an oops, as syzbot chooses it: the first reliable
 * frame, from the top, that is neither generic nor in shared code, mm/
 * counting as shared when another frame is outside it; -1 if every frame
 * is shared (the first one then stands).  *mm says whether mm/ counted as
 * shared. */
ssize_t tri_guilty_frame(const struct tri_oops *o, int *mm)
{
	size_t from = tri_console_frames(o);

	for (int pass = 1; pass >= 0; pass--)
		for (size_t i = from; i < o->nframes; i++) {
			const struct tri_frame *f = &o->frames[i];

			if (f->unreliable || tri_symbol_is_generic(f->symbol) ||
			    (f->path && tri_path_is_reporter(f->path)) || tri_frame_is_shared(f, pass))
				continue;
			*mm = pass;
			return (ssize_t)i;
		}
	*mm = 0;
	return -1;
}
