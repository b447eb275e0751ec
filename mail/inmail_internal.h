/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What mail/inmail.c, mail/inmail_lines.c, mail/inmail_scan.c and
 * mail/inmail_html.c share: small text helpers, the patch test, the
 * Content- field tests and the HTML converter.
 * Private to mail/inmail*.c: include it from nowhere else;
 * the contract is in inmail.h. */
#ifndef BUGBRIDGE_MAIL_INMAIL_INTERNAL_H
#define BUGBRIDGE_MAIL_INMAIL_INTERNAL_H

#include <stddef.h>
#include <string.h>

#include <glib.h>

#include "core/status.h"

static inline int ascii_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static inline int is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* 1 if the n bytes at a and b are the same but for ASCII case (as
 * g_ascii_strncasecmp() would say, inline: header names are compared to
 * a word a dozen times a mail, and the call cost more than the compare). */
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

static inline int equals_ci(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && same_ci(s, word, len);
}

/* 1 if text (len bytes) holds a unified diff with at least one hunk
 * (inmail_lines.c). */
int inmail_has_hunk(const char *text, size_t len);

/* What the raw scan (inmail_scan.c) and the header pass both read of a
 * Content- field: a charset named in a Content-Type line in which ASCII is
 * not itself; a transfer encoding the scan cannot see through (value v,
 * len bytes); a type whose content is never text (application/, image/,
 * ...). */
int inmail_opaque_charset(const char *line, size_t len);
int inmail_opaque_encoding(const char *v, size_t len);
int inmail_binary_type(const char *v, size_t len);

/* Appends the text of an HTML document (UTF-8, len bytes) to out: block
 * elements on lines of their own, a quote's lines after "> ", <pre> as it
 * stands, scripts and styles left out (inmail_html.c). */
struct buf;
enum bb_status inmail_html_to_text(struct buf *out, const char *html, size_t len);

#endif
