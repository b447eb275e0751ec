/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The header values almost every list mail writes the one plain way, read
 * without GMime's general parsers: a Date: of RFC 5322's form and a list
 * of msg-ids (In-Reply-To:, References:) that are each "<dot-atom@dot-atom>"
 * with blanks between them.  The header pass (inmail.c) asks these first
 * and GMime's parsers when they say no: each answers only a value whose
 * reading GMime's would give the same (tests/unit/test-inmail.c compares
 * them with GMime on generated values), so the result never depends on
 * which one read it.  On a 40,586-mail history read GMime's date and
 * references parsers were an eighth of bugbridge's own instructions.
 * Pure functions, linear in their input. */
#ifndef BB_INMAIL_PLAIN_H
#define BB_INMAIL_PLAIN_H

#include <stddef.h>
#include <time.h>

/* A Date: value (unfolded, trimmed) of the form
 *     [Ddd, ]D Mon YYYY HH:MM[:SS] +HHMM [(comment)]
 * (a weekday of three letters, a day of one or two digits that exists in
 * its month, an English month's three letters, a year 1970-9999, a time
 * of day, a numeric zone, then nothing or one comment of letters, digits,
 * blanks and "+-:"): 1 and *t the time it names (seconds since the epoch,
 * as GMime's g_mime_utils_header_decode_date() then g_date_time_to_unix()
 * give it); 0 for anything else. */
int inmail_plain_date(const char *v, long long *t);

/* An In-Reply-To: or References: value (unfolded) that is only msg-ids
 * "<local@domain>", each part a dot-atom (RFC 5322 atext runs, one '.'
 * between them), with blanks around and between them: 1, and fn is called
 * with the text inside each pair of brackets, in order (what GMime's
 * g_mime_references_parse() gives for it); fn returning non-zero stops
 * there (-1).  0, fn never called, for anything else: GMime's parser
 * reads it. */
int inmail_plain_msgids(const char *v, int (*fn)(void *ctx, const char *id, size_t len),
			void *ctx);

#endif
