/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which frames of an oops count, as syzbot picks the frame it blames:
 * the generic ones every trace has, shared code (where a fault is most
 * often its caller's bug), the files that report someone else's bug, and
 * the guilty frame.  Pure functions of their inputs; the matcher
 * (match.h) weighs a report's clues by them.
 */
#ifndef BB_TRIAGE_GUILTY_H
#define BB_TRIAGE_GUILTY_H

#include <sys/types.h>

#include "triage/reader.h"

/* Whether a call-trace symbol is one that shows up in every trace
 * (dump_stack_lvl, __warn, do_syscall_64, ...). */
int tri_symbol_is_generic(const char *symbol);

/* Shared code, where a fault or a frame is most often its caller's bug:
 * syzbot's guilty-file rules (syzkaller pkg/report/linux.go), lib/,
 * headers (include/ and any .h), the allocators (mm/slab.c, mm/slub.c,
 * mm/slab_common.c, mm/page_alloc.c, mm/vmalloc.c, mm/mempool.c,
 * mm/percpu*, mm/util.c, mm/memory.c, mm/filemap.c, mm/truncate.c), the
 * sanitizers (mm/kasan/, mm/kmsan/, mm/kfence/, kernel/kcsan/,
 * kernel/kcov.c), kernel/locking/, kernel/rcu/, kernel/sched/,
 * kernel/printk/, kernel/panic.c, kernel/softirq.c, kernel/kthread.c,
 * kernel/stacktrace.c, kernel/time/timer.c, kernel/workqueue.c,
 * kernel/irq/, kernel/entry/, kernel/dma/, net/core/{dev,sock,skbuff}.c,
 * fs/proc/generic.c, drivers/usb/core/urb.c, and arch/ARCH/'s traps,
 * unwinders, fault handling, entry code, lib/ and include/; with mm, all
 * of mm/ too, and the frameworks drivers call: the driver core
 * (drivers/base/{core,dd,bus,driver,devres}.c), sysfs, kernfs, debugfs and
 * the register map library (drivers/base/regmap/) (pathless frames:
 * device_*, driver_*, really_probe, bus_*, sysfs_*, kernfs_*, kobject_*,
 * devres_*, devm_*, debugfs_*, regmap_*, _regmap_*).  Without a path, a
 * function by its name: locking (spin_*, _raw_*, mutex_*, down_*, rwsem_*,
 * lock_acquire, lockdep_*), allocators (kmalloc*, kmem_cache_*, kfree,
 * kvmalloc, vmalloc, alloc_pages, slab_*, mempool_*), string and printk
 * helpers (mem*, str*, *printf, printk, dev_printk), user copies, list and
 * refcount checks, scheduling and workqueues (schedule*, wake_up*,
 * wait_for_completion, queue_work, flush_work), the sanitizers (kasan_*,
 * kmsan_*, kcsan_*, ubsan_*), DMA mapping (dma_map_*, dma_direct_*,
 * swiotlb_*) and __might_*.
 *
 * The guilty frame of an oops is, as syzbot picks it, the first reliable
 * frame from the top that is neither generic (tri_symbol_is_generic())
 * nor shared, mm/ counting as shared when some frame is outside it (a
 * report of mm keeps its mm frames), unless the report's title names
 * another frame of the trace that is not shared ("... in FUNC", as syzbot
 * titles its reports by its own guilty frame); the matcher weighs it most,
 * frames above it little, and the callers under it with paths half.
 * Shared frames above and below it, and a fault path, RIP/pc or LR in
 * shared code above it, weigh little; a trace all of shared code keeps
 * its order. */
int tri_path_is_shared(const char *path, int mm);
int tri_symbol_is_shared(const char *symbol);

/* The driver core, sysfs, kernfs, debugfs and regmap (drivers/base/{core,
 * dd,bus,driver,devres}.c, fs/sysfs/, fs/kernfs/, fs/debugfs/,
 * drivers/base/regmap/): shared, as mm/ is, only when a frame is outside
 * them. */
int tri_path_is_infrastructure(const char *path);
/* Files whose WARNINGs and reports blame someone else, the caller
 * (net/sched/sch_generic.c's NETDEV WATCHDOG, lib/refcount.c, mm/kasan/,
 * kernel/panic.c, lib/bug.c, lockdep, ...). */
int tri_path_is_reporter(const char *path);
/* Whether frame f is in shared code: its path if printed, else its name;
 * the driver core's and sysfs's functions too when mm. */
int tri_frame_is_shared(const struct tri_frame *f, int mm);
/* The guilty frame of oops o: its index, -1 if every frame is shared (the
 * first one then stands); *mm says whether mm/ counted as shared. */
ssize_t tri_guilty_frame(const struct tri_oops *o, int *mm);

/* How many frames from the top are a console printing the log (up to the
 * deepest of printk's console functions: console_unlock, vprintk_emit...);
 * 0 if none.  The guilty frame is under them. */
size_t tri_console_frames(const struct tri_oops *o);

#endif
