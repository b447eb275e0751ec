/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lists to write to about a file, as the kernel's
 * scripts/get_maintainer.pl names them (issue 34).
 *
 * get_maintainer.pl FILE names the L: lists of every section that covers
 * the file, not only of the most specific one: for
 * drivers/net/wireless/ath/ath10k/core.c, ath10k@lists.infradead.org
 * (QUALCOMM ATHEROS ATH10K), linux-wireless@vger.kernel.org (NETWORKING
 * DRIVERS (WIRELESS)) and netdev@vger.kernel.org (NETWORKING DRIVERS); a
 * driver's bugs are read on its subsystem's list too.  Its rules, which
 * tri_write_to() follows:
 *   - a section covers the file when one of its F: patterns matches it
 *     (tri_pattern_matches(): a pattern ending in '/' or naming a folder
 *     of the tree covers everything below it, '*' and '?' are globs, any
 *     other pattern matches a path with as many '/'), or one of its N:
 *     regexes matches the path anywhere;
 *   - a section one of whose X: patterns matches the file does not cover
 *     it, whatever its F: say;
 *   - the sections are taken deepest pattern first (a pattern's depth is
 *     its number of '/', one more when it does not end in '/'; an N: hit
 *     is depth 0, a pattern that begins with '*' -1: THE REST last), and
 *     each list is named once, the first time (case aside).
 * The section the triage chose goes first, whatever its depth.  Not done:
 * get_maintainer.pl's K: patterns against the file's content (there is no
 * file here, only its name). */
#ifndef BB_TRIAGE_WRITETO_H
#define BB_TRIAGE_WRITETO_H

#include <stddef.h>

#include "mail/maintainers.h"

/* The lists for path, own's first: a NULL-terminated, g_strfreev()'d array
 * of addresses (empty when no section covering it has L:).  own is an
 * index of mf's sections; n_hit, when not NULL, has one byte per section
 * of mf, non-zero where one of the section's N: regexes matches path (the
 * caller holds them compiled).  A NULL path gives own's lists alone. */
char **tri_write_to(const struct mnt_file *mf, size_t own, const char *path,
		    const unsigned char *n_hit);

#endif
