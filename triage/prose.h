/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Names in a report's words, as the matcher (match.h) reads them: the
 * vendors a report names, the function its title names, and the words of
 * its title and prose that may name a driver, a module or a subsystem.
 * Only reading: what a word matches in MAINTAINERS is match.c's.  Pure
 * functions of their inputs; text is len bytes and need not end in a NUL.
 */
#ifndef BB_TRIAGE_PROSE_H
#define BB_TRIAGE_PROSE_H

#include <stddef.h>

#include <glib.h>

#include "triage/reader.h"

/* Vendors whose folders hold one subfolder per driver (F: "*\/" right
 * under drivers/net/ethernet/intel): intel, amd, nvidia, broadcom,
 * realtek, mediatek, mellanox, qlogic, marvell, huawei, qualcomm,
 * microchip.  The index (below 32) of the vendor named by the n bytes at
 * name (any case), -1 for none. */
int tri_vendor_index(const char *name, size_t n);
/* The vendors report r names, bit i for tri_vendor_index() i: its
 * devices' PCI and USB vendor ids, the words of its hardware name. */
guint32 tri_report_vendors(const struct tri_report *r);

/* The length of text's first line (its title), within len. */
size_t tri_first_line_len(const char *text, size_t len);
/* The function a title names as where it happened, "KIND in FUNC" as
 * syzbot and KASAN write it: g_malloc'd, or NULL. */
char *tri_title_function(const char *text, size_t len);

/* Whether lower-case word w is a common word of reports that names no
 * driver ("driver", "crash", "laptop", ...). */
int tri_prose_stopword(const char *w);

/* Where tri_prose_read() puts what it reads; ctx is the caller's. */
struct tri_prose_sink {
	/* asked before each line: non-zero stops the reading */
	int (*full)(void *ctx);
	/* a subsystem tag of the title that is a path ("platform/x86/intel/pmc"
	 * of "platform/x86/intel/pmc: ..."), k bytes at tag */
	void (*tag_path)(void *ctx, const char *tag, size_t k, double weight);
	/* a word, lower case, with its weight and line (1: the title) */
	void (*word)(void *ctx, const char *word, double weight, size_t line);
	void *ctx;
};

/* The names written in the report's first line (its title) and its prose
 * (the first TRI_MATCH_MAX_PROSE bytes, at most TRI_MATCH_MAX_PROSE_WORDS
 * words): words of 3 to 40 letters, digits, '_' and '-', at least one a
 * letter, not part of a path, an address or a number, neither a stop
 * word nor a vendor's name, each once, at its first place; log, trace and
 * quoted lines are not prose.  The subsystem tags that start a title
 * ("usb: dwc3: gadget: ...", not a crash's kind "BUG: KASAN:") and the
 * bracketed words before them weigh 6 (20 in syzbot's "[syzbot] [input?]
 * ..."); the words of a Bugzilla mail's "Component:" line in its first 40
 * lines 20 (bugzilla.kernel.org mails a new bug to its component's list),
 * even when the title had them; the title's other words 2.5, the rest 0.6.  The names
 * that sysfs paths give anywhere in the text ("/sys/bus/iio",
 * "/sys/class/hwmon", "/sys/bus/platform/drivers/ideapad_acpi",
 * "/sys/module/psmouse", "/sys/devices/platform/lg-laptop") weigh 2.5;
 * the subsystem tags of a commit the text cites ("2ab73c6d8323 (\"gpio:
 * Support ...\")", or a title's quoted subject: Regression in "wifi:
 * mt76: ...") 6, as a title's.  A vendor's name followed by a word in the
 * title ("AMD PMC causes ...") is also the name "amd_pmc", at 2.5: the
 * kernel lays out several vendors' drivers of one kind in a folder per
 * vendor (drivers/platform/x86/amd/pmc/, drivers/platform/x86/intel/pmt/),
 * and the matcher looks such a name up as those two folders in a row. */
void tri_prose_read(const char *text, size_t len, const struct tri_prose_sink *sink);

/* The words of the title that may name a module or a function ("rt2x00",
 * "tpm_tis", "i2c-hid-acpi"): as tri_prose_read() reads them, but only
 * those with a digit, '_' or '-' (plain words, "usb", "serial", are the
 * names of objects all over a tree), and a vendor's name with the word
 * after it ("amd_pmf" of "AMD PMF: ...", the module amd-pmf), of the first
 * 512 bytes, each to name() until max of them returned non-zero. */
void tri_title_names(const char *text, size_t len, size_t max,
		     int (*name)(void *ctx, const char *word), void *ctx);

#endif
