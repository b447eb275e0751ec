/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report reader: what a bug report's own text says about the kernel,
 * the crash, the machine and the firmware (issue 15).
 *
 * The input is one text: a bug's description, its public comments and its
 * non-private text attachments, concatenated by the caller (which decides
 * what may be read; this reader never looks anywhere else).  Kernel logs
 * are recognised with or without dmesg timestamps ("[ 12.345678] "),
 * caller ids ("[T123]") and journal prefixes ("Mar 01 10:00:00 host
 * kernel: ").
 *
 * Pure functions: no I/O, no global state but compiled patterns.  The text
 * is outside input, so everything is bounded: at most TRI_MAX_INPUT bytes
 * are read, lines are cut at TRI_MAX_LINE bytes, every list has a cap
 * (below) and every string kept is at most TRI_MAX_STRING bytes, valid
 * UTF-8, with control characters replaced by '?'.  The work is linear in
 * the input.
 *
 * Line numbers are 1-based lines of the input text, so a caller can quote
 * the line a finding came from.
 *
 * Memory comes from GLib (g_malloc, which aborts when out of memory);
 * tri_report_free() frees a report and everything in it.
 */
#ifndef BB_TRIAGE_READER_H
#define BB_TRIAGE_READER_H

#include <stddef.h>

#define TRI_MAX_INPUT (4u << 20)   /* bytes read from the text; the rest is ignored */
#define TRI_MAX_LINE 4096          /* bytes of a line looked at */
#define TRI_MAX_STRING 256         /* bytes of any string kept */
#define TRI_MAX_OOPSES 16
#define TRI_MAX_FRAMES 64          /* per oops */
#define TRI_MAX_OOPS_LINES 400     /* lines an oops may span before it is closed */
#define TRI_MAX_MODULES 400        /* of the first "Modules linked in:" */
#define TRI_MAX_ITEMS 64           /* firmware, devices, paths, drivers each */

/* What the kernel version says about where the kernel came from. */
enum tri_kernel_kind {
	TRI_KERNEL_NONE = 0,      /* no version found */
	TRI_KERNEL_MAINLINE,      /* a mainline release or -rc: 6.8, 6.8.0, 6.8-rc3, 6.8.0-rc3 */
	TRI_KERNEL_STABLE,        /* a stable release: 6.6.9 */
	TRI_KERNEL_NEXT,          /* linux-next: 6.9.0-rc2-next-20240404 */
	TRI_KERNEL_DISTRO,        /* a distribution build: -arch1-1, .fc39.x86_64, -generic, ... */
	TRI_KERNEL_LOCAL,         /* a mainline base with a local suffix: git describe
				   * (-00012-gabcdef), a '+', a LOCALVERSION */
};

/* Where a version was read; the best source wins. */
enum tri_version_source {
	TRI_FROM_NONE = 0,
	TRI_FROM_TEXT,            /* free text near "kernel"/"linux"/"uname" */
	TRI_FROM_UNAME,           /* "Linux host 6.6.9-... #1 SMP ..." (uname -a) */
	TRI_FROM_OOPS,            /* "CPU: 3 PID: 1 Comm: x Not tainted 6.6.9 #1" */
	TRI_FROM_LINUX_VERSION,   /* "Linux version 6.6.9 (builder@host) ..." */
};

struct tri_kernel {
	char *version;            /* as printed ("6.6.9-200.fc39.x86_64"), NULL if none */
	char *upstream;           /* the mainline/stable tag it is based on ("v6.6.9",
				   * "v6.8-rc3"), NULL if none can be told */
	char *distro;             /* the distribution the suffix names ("Fedora"), NULL
				   * unless kind is TRI_KERNEL_DISTRO */
	enum tri_kernel_kind kind;
	enum tri_version_source source;
	size_t line;
};

/* Taint flags, one bit per letter (Documentation/admin-guide/tainted-kernels.rst). */
enum {
	TRI_TAINT_P = 1u << 0,   /* proprietary module was loaded */
	TRI_TAINT_F = 1u << 1,   /* module was force loaded */
	TRI_TAINT_S = 1u << 2,   /* kernel running on an out of specification system */
	TRI_TAINT_R = 1u << 3,   /* module was force unloaded */
	TRI_TAINT_M = 1u << 4,   /* processor reported a Machine Check Exception */
	TRI_TAINT_B = 1u << 5,   /* bad page referenced or unexpected page flags */
	TRI_TAINT_U = 1u << 6,   /* taint requested by userspace */
	TRI_TAINT_D = 1u << 7,   /* kernel died recently (OOPS or BUG) */
	TRI_TAINT_A = 1u << 8,   /* ACPI table overridden by user */
	TRI_TAINT_W = 1u << 9,   /* kernel issued a warning */
	TRI_TAINT_C = 1u << 10,  /* staging driver was loaded */
	TRI_TAINT_I = 1u << 11,  /* workaround for a bug in platform firmware applied */
	TRI_TAINT_O = 1u << 12,  /* externally-built (out-of-tree) module was loaded */
	TRI_TAINT_E = 1u << 13,  /* unsigned module was loaded */
	TRI_TAINT_L = 1u << 14,  /* soft lockup occurred */
	TRI_TAINT_K = 1u << 15,  /* kernel has been live patched */
	TRI_TAINT_X = 1u << 16,  /* auxiliary taint, defined for and used by distros */
	TRI_TAINT_T = 1u << 17,  /* kernel was built with the struct randomization plugin */
	TRI_TAINT_N = 1u << 18,  /* an in-kernel test has been run */
};
#define TRI_TAINT_LETTERS "PFSRMBUDAWCIOELKXTN"   /* bit i is letter i */

/* The meaning of a taint letter ('P', 'O', ...), NULL for any other
 * character.  Static strings. */
const char *tri_taint_meaning(char letter);
/* The letters of flags in TRI_TAINT_LETTERS order, into out (at least 20
 * bytes); returns out. */
char *tri_taint_letters(unsigned flags, char *out);

enum tri_oops_kind {
	TRI_OOPS_BUG = 0,         /* BUG: ..., kernel BUG at ... */
	TRI_OOPS_WARNING,         /* WARNING: CPU: ... at path:line */
	TRI_OOPS_OOPS,            /* Oops:, Unable to handle kernel ..., general protection fault */
	TRI_OOPS_PANIC,           /* Kernel panic - not syncing: (on its own) */
	TRI_OOPS_HUNG,            /* INFO: task ... blocked for more than */
	TRI_OOPS_STALL,           /* rcu: INFO: ... detected stalls */
	TRI_OOPS_FRAGMENT,        /* a RIP:/pc : line or a call trace without its header */
};
/* "bug", "warning", "oops", "panic", "hung-task", "rcu-stall", "fragment". */
const char *tri_oops_kind_str(enum tri_oops_kind kind);

struct tri_frame {
	char *symbol;             /* "iwl_mvm_rx_tx_cmd" (offset dropped) */
	char *module;             /* "iwlmvm", NULL if built in or not printed */
	char *path;               /* a source path printed with the frame (syzbot style,
				   * "net/netfilter/nf_tables_api.c"), NULL if none */
	int unreliable;           /* printed with "? " or "(unreliable)" */
	size_t line;
};

struct tri_oops {
	enum tri_oops_kind kind;
	char *first_line;         /* the header line, timestamp dropped */
	size_t line;
	char *panic;              /* "Fatal exception in interrupt" when it ended in a panic */
	char *taint;              /* the letters as printed ("G        W  OE" squeezed to
				   * "G W OE"), NULL if the CPU line said "Not tainted" or
				   * there was none */
	unsigned taint_flags;
	char *comm;               /* the Comm: of the CPU line */
	char *hardware;           /* the Hardware name: inside the oops */
	char *pc_symbol;          /* RIP:/pc :/NIP []/epc : symbol, offset dropped */
	char *pc_module;
	size_t pc_line;
	char *lr_symbol;          /* arm64 lr :, powerpc LR [], riscv ra : */
	char *lr_module;
	char *path;               /* "drivers/gpu/drm/i915/gt/intel_engine_cs.c" of a WARNING
				   * at, kernel BUG at or KASAN ... in sym path:line */
	size_t path_line;
	struct tri_frame *frames; /* the call trace in order, at most TRI_MAX_FRAMES */
	size_t nframes;
};

struct tri_firmware {
	char *file;               /* "iwlwifi-so-a0-gf-a0-89.ucode", NULL if only a version */
	char *version;            /* "83.e8f84e98.0", NULL if none */
	char *driver;             /* the driver that printed the line, NULL if unknown */
	int failed;               /* 1 when the load failed */
	int error;                /* the error number of a failure ("-2" gives -2), 0 if unknown */
	size_t line;
};

enum tri_bus { TRI_BUS_PCI = 0, TRI_BUS_USB };

struct tri_device {
	enum tri_bus bus;
	unsigned vendor, device;  /* 0x8086, 0x2723 */
	size_t line;
};

struct tri_path {
	char *path;               /* "drivers/net/wireless/intel/iwlwifi/mvm/tx.c", with
				   * "dir/../" folded and ":line" dropped */
	size_t line;
};

struct tri_driver {
	char *name;               /* "iwlwifi", "r8169", "btrfs" (lower case) */
	size_t line;              /* its first line */
	size_t count;             /* lines it printed */
	int device;               /* 1 when a line named a device after the driver
				   * ("e1000e 0000:00:1f.6: ..."): a device driver,
				   * not a subsystem's prefix ("DMAR: ...") */
};

struct tri_report {
	struct tri_kernel kernel;
	struct tri_oops *oopses;
	size_t noopses;
	unsigned taint_flags;     /* every oops's flags together */
	char *hardware;           /* the first DMI:/Hardware name:, NULL if none */
	size_t hardware_line;
	char **modules;           /* the first "Modules linked in:", marks like "(OE)" dropped */
	size_t nmodules;
	size_t modules_line;
	struct tri_firmware *firmware;
	size_t nfirmware;
	struct tri_device *devices;
	size_t ndevices;
	struct tri_path *paths;   /* every source path named, first mention, in order */
	size_t npaths;
	struct tri_driver *drivers;
	size_t ndrivers;
	size_t nlines;            /* lines read */
	int truncated;            /* the text was longer than TRI_MAX_INPUT */
};

/* Reads len bytes of text (need not be NUL-terminated; a NUL ends a line
 * like a newline).  Never fails: the report may be empty.  Free with
 * tri_report_free(). */
struct tri_report *tri_read(const char *text, size_t len);
void tri_report_free(struct tri_report *r);

/* Classifies a kernel version string as tri_read() does; *upstream and
 * *distro (each may be NULL) get g_malloc'd strings or NULL. */
enum tri_kernel_kind tri_kernel_classify(const char *version, char **upstream, char **distro);
/* "none", "mainline", "stable", "linux-next", "distribution", "local build". */
const char *tri_kernel_kind_str(enum tri_kernel_kind kind);

#endif
