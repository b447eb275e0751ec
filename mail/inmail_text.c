/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every step of reading a list mail works with (see inmail_text.h):
 * GMime's parser options for list mail, a one-line field's clean text, the
 * mbox "From " line. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <gmime/gmime.h>

#include "core/buf.h"
#include "core/text.h"
#include "mail/inmail_text.h"
#include "mail/mail.h"

static pthread_once_t inmail_once = PTHREAD_ONCE_INIT;
static GMimeParserOptions *inmail_options;

static void inmail_init_once(void)
{
	/* 8-bit text without a (usable) charset: UTF-8 if it is valid UTF-8,
	 * else windows-1252, which maps every byte but five. */
	static const char *fallback[] = { "UTF-8", "windows-1252", NULL };

	mail_init();
	inmail_options = g_mime_parser_options_new();
	g_mime_parser_options_set_fallback_charsets(inmail_options, fallback);
	g_mime_parser_options_set_allow_addresses_without_domain(inmail_options, FALSE);
}

GMimeParserOptions *inmail_parser_options(void)
{
	pthread_once(&inmail_once, inmail_init_once);
	return inmail_options;
}

/* Appends the UTF-8 text s (len bytes, any content) to out as it may stand
 * in a one-line field: invalid UTF-8 repaired, NUL and C0/C1 controls,
 * DEL and format characters (bidi overrides, zero-width characters) dropped, CR/LF/TAB turned into one space, runs of spaces collapsed,
 * leading and trailing spaces trimmed, cut at max bytes on a character. */
static enum bb_status add_clean_line(struct buf *out, const char *s, size_t len, size_t max)
{
	char *valid = g_utf8_make_valid(s, (gssize)len);
	const char *p = valid;
	size_t start = out->len;
	enum bb_status st = BB_OK;
	int space = 0;

	while (*p && st == BB_OK) {
		gunichar c = g_utf8_get_char(p);
		const char *next = g_utf8_next_char(p);

		if (c == '\t' || c == '\r' || c == '\n' || c == ' ') {
			space = out->len > start;
		} else if (text_is_control_char(c) || text_is_format_char(c)) {
			/* controls, DEL, C1, Unicode line separators, format
			 * characters: dropped */
		} else {
			if (out->len - start + (size_t)(next - p) + (space ? 1 : 0) > max)
				break;
			if (space)
				st = buf_addch(out, ' ');
			if (st == BB_OK)
				st = buf_add(out, p, (size_t)(next - p));
			space = 0;
		}
		p = next;
	}
	g_free(valid);
	return st;
}

/* The length of s (len bytes) when it is printable ASCII with single
 * blanks inside and none at either end, within max bytes - what
 * add_clean_line() would keep as it is, as most values are; 0 else (an
 * empty s too, which is clean all the same). */
static size_t clean_as_is(const char *s, size_t len, size_t max)
{
	size_t i;

	for (i = 0; i < len && i < max; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || (c == ' ' && (i == 0 || s[i - 1] == ' ')))
			return 0;
	}
	return i == len && (len == 0 || s[len - 1] != ' ') ? len : 0;
}

char *inmail_clean_line(const char *s, size_t len, size_t max)
{
	struct buf b = BUF_INIT;

	/* most values are printable ASCII with single blanks: copy them */
	if (len == 0 || clean_as_is(s, len, max)) {
		char *out = malloc(len + 1);

		if (out) {
			memcpy(out, s, len);
			out[len] = '\0';
		}
		return out;
	}

	if (add_clean_line(&b, s, len, max) != BB_OK) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

enum bb_status inmail_clean_line_add(struct buf *out, const char *s, size_t len, size_t max)
{
	if (len == 0 || clean_as_is(s, len, max))
		return buf_add(out, s, len);
	return add_clean_line(out, s, len, max);
}

size_t inmail_skip_from_line(const char *raw, size_t len)
{
	const char *nl;

	if (len < 5 || memcmp(raw, "From ", 5) != 0)
		return 0;
	nl = memchr(raw, '\n', len);
	return nl ? (size_t)(nl + 1 - raw) : len;
}
