/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Crash signatures: "same crash, same bug" (issue 34, item 7).
 *
 * syzbot titles a crash by its kind and its guilty frame ("KASAN:
 * use-after-free Read in hiddev_release", "WARNING in
 * iwl_trans_pcie_start_fw", "general protection fault in
 * nf_tables_newrule") and folds the reports with the same title into one
 * bug.  Here every oops the report reader (reader.h) finds gets such a
 * title, and a key that two reports of one crash share:
 *
 *   - the kind, from the oops's first line: KASAN/KMSAN/KCSAN/UBSAN with
 *     their bug type (KASAN's "Read"/"Write" from the line after it),
 *     "WARNING" (a WARNING: CPU: ... at), lockdep's "possible deadlock",
 *     "kernel BUG", "general protection fault", a NULL pointer
 *     dereference and a paging request (x86's and arm64's wordings are
 *     one key each), "BUG: sleeping function called from invalid
 *     context", "BUG: soft lockup", "INFO: task hung", "INFO: rcu
 *     detected stall", and otherwise the line's words up to its first
 *     detail (a number, an address, ": ", " at ");
 *   - the frame: the RIP/pc function when it is not shared code, else the
 *     guilty frame of the call trace as triage/guilty.h chooses it (the
 *     first reliable frame from the top that is neither generic nor shared
 *     code, mm/ counting as shared when a frame is outside it), else the
 *     first reliable frame, else the function the first line names;
 *     compiler suffixes (".isra.0", ".constprop.1", ".cold", ".part.0")
 *     dropped;
 *   - the module the frame was printed with, if any: in the title
 *     ("WARNING in iwl_mvm_rx_tx_cmd [iwlmvm]"), not in the key, since one
 *     driver may be built in on one machine and a module on another.
 *
 * The key is the kind, normalised (KASAN's "slab-use-after-free" of
 * recent kernels is "use-after-free"; x86's and arm64's NULL dereference
 * and paging request wordings are one each), " in " and the frame.  An
 * oops without any frame name (a bare "BUG: workqueue lockup") has no
 * signature.  Pure functions. */
#ifndef BB_TRIAGE_SIGNATURE_H
#define BB_TRIAGE_SIGNATURE_H

#include <stddef.h>

#include "triage/reader.h"

#define TRI_SIG_MAX 8   /* distinct signatures kept of one report */

struct tri_signature {
	char *title;    /* "KASAN: slab-use-after-free Read in hiddev_release [usbhid]" */
	char *key;      /* "KASAN: use-after-free Read in hiddev_release" */
	char *frame;    /* "hiddev_release" */
	char *module;   /* "usbhid", NULL if none */
	size_t line;    /* the oops's first line in the text */
};

/* The signature of oops o, read from text (len bytes; may be NULL: then
 * KASAN's access kind is not known).  0 with *out filled (free with
 * tri_signature_clear()), -1 when the oops names no frame. */
int tri_signature_of(const struct tri_oops *o, const char *text, size_t len,
		     struct tri_signature *out);
void tri_signature_clear(struct tri_signature *s);

/* The distinct signatures (by key) of r's oopses, in order, at most
 * TRI_SIG_MAX; *out (g_malloc'd, NULL when none) freed with
 * tri_signatures_free(). */
size_t tri_signatures(const struct tri_report *r, const char *text, size_t len,
		      struct tri_signature **out);
void tri_signatures_free(struct tri_signature *s, size_t n);

#endif
