/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every step of reading a list mail (inmail.h) works with, below the
 * steps themselves: GMime's parser options for list mail, the clean text of
 * a one-line field, the mbox "From " line at a mail's start, and the ASCII
 * tests that header words and line starts are compared with.
 *
 * For mail/inmail*.c: the rest of the program reads mail through inmail.h.
 * All functions are safe to call from several threads.
 */
#ifndef BB_INMAIL_TEXT_H
#define BB_INMAIL_TEXT_H

#include <stddef.h>
#include <string.h>

#include <gmime/gmime.h>

#include "core/buf.h"

/* The parser options every GMime call on list mail gets: 8-bit text
 * without a (usable) charset is UTF-8 if it is valid UTF-8, else
 * windows-1252; an address without a domain is no address.  The first call
 * initialises GMime (mail_init()); calling it for that alone is fine.
 * Never NULL, never freed, shared by all threads. */
GMimeParserOptions *inmail_parser_options(void);

/* A malloc'd copy of the UTF-8 text s (len bytes, any content) as it may
 * stand in a one-line field: invalid UTF-8 repaired, NUL and C0/C1
 * controls, DEL and format characters (bidi overrides, zero-width
 * characters) dropped, CR/LF/TAB turned into one space, runs of spaces
 * collapsed, leading and trailing spaces trimmed, cut at max bytes on a
 * character.  NULL when out of memory. */
char *inmail_clean_line(const char *s, size_t len, size_t max);
/* The same text appended to out (the header pass cleans into a buffer it
 * keeps and copies the result into the mail's own block, inmail.c):
 * BB_ERR_NOMEM, or what out's cap says. */
enum bb_status inmail_clean_line_add(struct buf *out, const char *s, size_t len, size_t max);

/* The length of an mbox "From " line at the start of raw (with its LF; all
 * of raw when it has none), 0 when raw does not start with one. */
size_t inmail_skip_from_line(const char *raw, size_t len);

/* --- ASCII tests, inline: header names are compared to a word a dozen times
 * a mail, and a call cost more than the compare ---------------------------- */

static inline int ascii_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static inline int is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* 1 if the n bytes at a and b are the same but for ASCII case (as
 * g_ascii_strncasecmp() would say). */
static inline int same_ci(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i] && ascii_lower((unsigned char)a[i]) != ascii_lower((unsigned char)b[i]))
			return 0;
	return 1;
}

/* 1 if s (len bytes) starts with prefix, ignoring ASCII case. */
static inline int has_prefix_ci(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && same_ci(s, prefix, n);
}

/* 1 if s (len bytes) is word, ignoring ASCII case. */
static inline int equals_ci(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && same_ci(s, word, len);
}

#endif
