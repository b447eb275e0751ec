/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for the text of mail/inmail_body.c's decode: the body text of
 * random text parts -- ASCII, characters of 2 to 4 bytes, invalid and cut
 * off sequences, surrogates, overlong forms, NUL, CR, LF, TAB, other
 * controls, DEL -- in UTF-8, of no charset and in windows-1252, one part or
 * two, 8-bit or base64, against the text the plain rules give, written
 * here the slow way: GLib's g_utf8_make_valid() (UTF-8), NUL dropped then
 * GLib's validation or GMime's 8-bit fallback (no charset), then the
 * cleaning (CR LF and a lone CR are LF; other C0 controls but TAB, and
 * DEL, go).  The decode reads ASCII many bytes at a time and has GLib
 * validate only what is not ASCII: it must give the same text.  And
 * one-part mails that take the decode's short ways -- content types kept
 * parsed, GMime's base64 and quoted-printable decoder run without a data
 * wrapper -- against GMime's parser (inmail_decode_parsed()); and the
 * check of a one-part mail's header section against the same check
 * written line by line, on random header sections. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <gmime/gmime.h>

#include "core/buf.h"
#include "mail/inmail.h"
#include "mail/inmail_text.h"
#include "tests/unit/tap.h"

/* (tap_rand(): the same mails every run) */
#define rnd tap_rand

/* Random text: runs of ASCII long and short (the fast paths read 16 or 8
 * bytes at a time), line ends of every kind, controls, and pieces of
 * UTF-8 good and bad. */
static void random_text(GString *s, size_t want)
{
	static const char *const pieces[] = {
		"\n", "\r\n", "\r", "\t", "\x7f", "\x01", "\x1f", "\x0b",
		"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9d\x84\x9e", "\xe4\xb8\xad\xe6\x96\x87",
		"\xc3", "\xe2\x82", "\xf0\x9d\x84", "\x80", "\xbf", "\xff", "\xfe", "\xf5\x80\x80\x80",
		"\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc2\x85", "\xe9",
		"\x93quoted\x94",
	};
	static const char letters[] = "abcdefghij KLMNOP#:.-_=0123456789";

	while (s->len < want) {
		unsigned kind = rnd(10);

		if (kind < 5) {
			for (unsigned n = rnd(kind == 0 ? 70 : 20); n; n--)
				g_string_append_c(s, letters[rnd(sizeof(letters) - 1)]);
		} else if (kind < 9) {
			g_string_append(s, pieces[rnd(sizeof(pieces) / sizeof(pieces[0]))]);
		} else {
			g_string_append_c(s, '\0');
		}
	}
}

/* Body text cleaning, a byte at a time. */
static void clean_into(GString *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\r')
			c = i + 1 < len && s[i + 1] == '\n' ? 0 : '\n';
		else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			c = 0;
		if (c)
			g_string_append_c(out, (char)c);
	}
}

/* A part's text as UTF-8 the slow way (g_free() it): charset NULL is
 * none, else "utf-8" or "windows-1252". */
static char *slow_utf8(const char *bytes, size_t len, const char *charset)
{
	GString *copy;
	char *out, *valid;

	if (charset && !strcmp(charset, "utf-8"))
		return g_utf8_make_valid(bytes, (gssize)len);
	if (charset) {
		/* a byte at a time (a charset of one byte a character): one
		 * that names none is U+FFFD, NUL is NUL until made valid */
		copy = g_string_new(NULL);
		for (size_t i = 0; i < len; i++) {
			char *c = g_convert(bytes + i, 1, "UTF-8", "WINDOWS-1252", NULL, NULL, NULL);

			if (!bytes[i])
				g_string_append_c(copy, '\0');
			else
				g_string_append(copy, c ? c : "\xef\xbf\xbd");
			g_free(c);
		}
		valid = g_utf8_make_valid(copy->str, (gssize)copy->len);
		g_string_free(copy, TRUE);
		return valid;
	}
	copy = g_string_new(NULL);
	for (size_t i = 0; i < len; i++)
		if (bytes[i])
			g_string_append_c(copy, bytes[i]);
	if (g_utf8_validate(copy->str, (gssize)copy->len, NULL))
		return g_string_free(copy, FALSE);
	out = g_mime_utils_decode_8bit(inmail_parser_options(), copy->str, copy->len);
	g_string_free(copy, TRUE);
	if (g_utf8_validate(out, -1, NULL))
		return out;
	valid = g_utf8_make_valid(out, -1);
	g_free(out);
	return valid;
}

/* The body text the parts give: each cleaned, ending with a line end, a
 * blank line apart (an empty part's text adds nothing). */
static void slow_body(GString *out, GString **parts, size_t nparts, const char *charset)
{
	for (size_t i = 0; i < nparts; i++) {
		char *text = slow_utf8(parts[i]->str, parts[i]->len, charset);
		size_t tlen = strlen(text);

		if (tlen) {
			if (out->len)
				g_string_append_c(out, '\n');
			clean_into(out, text, tlen);
			if (out->len && out->str[out->len - 1] != '\n')
				g_string_append_c(out, '\n');
		}
		g_free(text);
	}
}

static void add_part_header(GString *mail, const char *charset, int base64)
{
	g_string_append(mail, "Content-Type: text/plain");
	if (charset)
		g_string_append_printf(mail, "; charset=%s", charset);
	g_string_append_printf(mail, "\nContent-Transfer-Encoding: %s\n\n", base64 ? "base64" : "8bit");
}

static void add_content(GString *mail, const GString *part, int base64)
{
	if (base64) {
		char *b = g_base64_encode((const guchar *)part->str, part->len);

		for (size_t at = 0, n = strlen(b); at < n; at += 76)
			g_string_append_printf(mail, "%.76s\n", b + at);
		g_free(b);
	} else {
		g_string_append_len(mail, part->str, (gssize)part->len);
	}
}

/* Mails of 1 or 2 parts of random text in charset; 1 if each decodes to
 * the slow way's text (the first that does not is shown). */
static int round_trip(const char *charset, size_t mails, size_t *bytes)
{
	for (size_t k = 0; k < mails; k++) {
		size_t nparts = 1 + rnd(2);
		int base64 = nparts > 1 || rnd(2);   /* 8-bit bytes between boundaries: base64 */
		GString *parts[2], *mail = g_string_new("From: a@example.org\nSubject: s\n");
		GString *want = g_string_new(NULL);
		struct inmail_body b;
		struct bb_error err = BB_ERROR_INIT;
		int same;

		for (size_t i = 0; i < nparts; i++) {
			parts[i] = g_string_new(NULL);
			random_text(parts[i], rnd(4) ? rnd(200) : 2000 + rnd(3000));
			*bytes += parts[i]->len;
		}
		if (nparts == 1) {
			add_part_header(mail, charset, base64);
			add_content(mail, parts[0], base64);
		} else {
			g_string_append(mail, "Content-Type: multipart/mixed; boundary=BOUND\n\n");
			for (size_t i = 0; i < nparts; i++) {
				g_string_append(mail, "--BOUND\n");
				add_part_header(mail, charset, 1);
				add_content(mail, parts[i], 1);
			}
			g_string_append(mail, "--BOUND--\n");
		}
		slow_body(want, parts, nparts, charset);
		same = inmail_decode(mail->str, mail->len, &b, &err) == BB_OK &&
		       b.text_len == want->len && !memcmp(b.text, want->str, want->len);
		if (!same) {
			ok(0, "charset %s: mail %zu decodes as the slow way", charset ? charset : "none", k);
			printf("# got  %s\n# want %s\n", b.text ? b.text : "(error)", want->str);
		}
		inmail_body_release(&b);
		for (size_t i = 0; i < nparts; i++)
			g_string_free(parts[i], TRUE);
		g_string_free(mail, TRUE);
		g_string_free(want, TRUE);
		if (!same)
			return 0;
	}
	return 1;
}

/* One-part mails of 40 Content-Type values (more than the decode keeps
 * parsed), each value three times, in turn: each decodes as GMime's
 * parser decodes it. */
static void test_content_types(void)
{
	static const char *const charsets[] = { "utf-8", "UTF-8", "us-ascii", "iso-8859-1", "windows-1252" };
	size_t same = 0, all = 0;

	for (int round = 0; round < 3; round++)
		for (int k = 0; k < 40; k++) {
			GString *mail = g_string_new("From: a@example.org\n");
			struct inmail_body b, parsed;
			struct bb_error err = BB_ERROR_INIT;
			int kind = k % 4;

			if (kind == 0)
				g_string_append_printf(mail, "Content-Type: text/plain; charset=%s; format=f%d\n",
						       charsets[k % 5], k);
			else if (kind == 1)
				g_string_append_printf(mail, "Content-Type: application/octet-stream; name=\"f%d.bin\"\n", k);
			else if (kind == 2)
				g_string_append_printf(mail, "Content-Type: text/x-patch; charset=%s; name=\"%d.patch\"\n",
						       charsets[k % 5], k);
			g_string_append_printf(mail, "\nline %d caf\xc3\xa9 \xe9\r\n#regzbot x\n", k);
			all++;
			if (inmail_decode(mail->str, mail->len, &b, &err) == BB_OK) {
				if (inmail_decode_parsed(mail->str, mail->len, &parsed, &err) == BB_OK) {
					same += inmail_body_same(&b, &parsed);
					inmail_body_release(&parsed);
				}
				inmail_body_release(&b);
			}
			g_string_free(mail, TRUE);
		}
	is_int(same, all, "content types: 40 values, three times each, decode as GMime's parser does");
}

/* One-part mails whose text is base64 or quoted-printable -- some of it
 * longer than the 4 KiB a data wrapper's stream decodes at a time, some
 * with CRLF lines, some with junk put in the encoded text ('=' and soft
 * breaks at random places, bytes no encoding has) -- decode as GMime's
 * parser and data wrapper decode them (the decode runs GMime's decoder
 * over the whole content at once). */
static void test_transfer_encodings(void)
{
	static const char *const junk[] = { "=", "=\n", "==", "=\r\n", "=4", "=G1", "!", "\r", " \n", "-" };
	size_t same = 0, all = 0;

	for (int k = 0; k < 600; k++) {
		GString *text = g_string_new(NULL), *enc = g_string_new(NULL), *mail;
		int qp = k % 2, crlf = k % 3 == 0;
		struct inmail_body b, parsed;
		struct bb_error err = BB_ERROR_INIT;

		random_text(text, rnd(3) ? rnd(300) : 3000 + rnd(9000));
		if (qp) {
			GMimeEncoding st;
			char *out = g_malloc(text->len * 4 + 100);
			size_t n;

			g_mime_encoding_init_encode(&st, GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE);
			n = g_mime_encoding_step(&st, text->str, text->len, out);
			n += g_mime_encoding_flush(&st, "", 0, out + n);
			g_string_append_len(enc, out, (gssize)n);
			g_free(out);
		} else {
			add_content(enc, text, 1);
		}
		for (int j = rnd(3) ? 0 : 1 + rnd(20); j > 0; j--)
			g_string_insert(enc, rnd((unsigned)enc->len + 1), junk[rnd(sizeof(junk) / sizeof(junk[0]))]);
		mail = g_string_new("From: a@example.org\n");
		g_string_append_printf(mail, "Content-Type: text/plain; charset=utf-8\n"
				       "Content-Transfer-Encoding: %s\n\n", qp ? "quoted-printable" : "base64");
		for (size_t i = 0; i < enc->len; i++) {
			if (crlf && enc->str[i] == '\n')
				g_string_append_c(mail, '\r');
			g_string_append_c(mail, enc->str[i]);
		}
		all++;
		if (inmail_decode(mail->str, mail->len, &b, &err) == BB_OK) {
			if (inmail_decode_parsed(mail->str, mail->len, &parsed, &err) == BB_OK) {
				if (inmail_body_same(&b, &parsed))
					same++;
				else
					printf("# differs: mail %d (%s, %zu bytes)\n", k, qp ? "QP" : "base64", mail->len);
				inmail_body_release(&parsed);
			}
			inmail_body_release(&b);
		}
		g_string_free(text, TRUE);
		g_string_free(enc, TRUE);
		g_string_free(mail, TRUE);
	}
	is_int(same, all, "transfer encodings: 600 base64 and quoted-printable mails, some long, "
	       "some broken, decode as GMime's parser does");
}

/* inmail_plain_header() the slow way, as it was written: the checks of
 * each line, a memchr() for each thing. */
static size_t slow_plain_header(const char *raw, size_t len, size_t *lines)
{
	size_t pos = 0;

	*lines = 0;
	while (pos < len) {
		const char *line = raw + pos, *nl = memchr(line, '\n', len - pos), *colon;
		size_t n;

		if (!nl)
			return 0;
		n = (size_t)(nl - line);
		if (n && line[n - 1] == '\r')
			n--;
		if (n == 0)
			return pos;
		if (memchr(line, '\0', n) || memchr(line, '\r', n))
			return 0;
		if (line[0] == ' ' || line[0] == '\t') {
			if (!pos)
				return 0;
		} else {
			if (!(colon = memchr(line, ':', n)) || colon == line)
				return 0;
			for (const char *c = line; c < colon; c++)
				if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
					return 0;
		}
		++*lines;
		pos = (size_t)(nl + 1 - raw);
	}
	return 0;
}

/* A random header section: fields of names short and long, folded lines,
 * LF or CRLF, now and then a NUL, a CR, a blank, DEL or a byte past ASCII
 * in a name or a value, a line without a colon or starting with one. */
static void random_header(GString *s)
{
	static const char *const names[] = {
		"Content-Type", "Subject", "X-A", "Content-Transfer-Encoding",
		"X-A-Rather-Long-Field-Name-Of-Forty-Bytes", "Received", "To",
	};
	static const char *const odd[] = { "\0", "\r", "\r\r", " ", "\t", "\x7f", "\x80", "\xc3\xa9", ":" };
	size_t nlines = 1 + rnd(12);

	for (size_t i = 0; i < nlines; i++) {
		int crlf = rnd(4) == 0;

		if (i && rnd(5) == 0) {
			g_string_append_c(s, rnd(2) ? ' ' : '\t');
		} else {
			const char *name = names[rnd(sizeof(names) / sizeof(names[0]))];
			size_t cut = strlen(name);

			if (rnd(12) == 0) {   /* something odd inside the name */
				size_t at = rnd((unsigned)cut + 1);
				const char *o = odd[rnd(sizeof(odd) / sizeof(odd[0]))];

				g_string_append_len(s, name, (gssize)at);
				g_string_append_len(s, o, *o ? (gssize)strlen(o) : 1);
				name += at;
			}
			g_string_append(s, name);
			if (rnd(15))
				g_string_append_c(s, ':');
		}
		for (size_t n = rnd(rnd(4) ? 40 : 120); n; n--) {
			if (rnd(60) == 0) {
				const char *o = odd[rnd(sizeof(odd) / sizeof(odd[0]))];

				g_string_append_len(s, o, *o ? (gssize)strlen(o) : 1);
			} else {
				g_string_append_c(s, "abc de=;/:"[rnd(10)]);
			}
		}
		g_string_append(s, crlf ? "\r\n" : "\n");
	}
	if (rnd(6))
		g_string_append(s, rnd(4) ? "\n" : "\r\n");
	if (rnd(2))
		g_string_append(s, "the body: \r\nline\n");
}

/* inmail_plain_header() looks for NUL and CR in the whole section once
 * it has found its end: it must judge each section as the checks of each
 * line did. */
static void test_plain_header(void)
{
	size_t plain = 0, rounds = 20000;

	for (size_t k = 0; k < rounds; k++) {
		GString *s = g_string_new(NULL);
		char *raw;   /* exactly its bytes: a read past them is a bug */
		size_t len, got, want, got_lines, want_lines;

		random_header(s);
		len = s->len;
		raw = g_malloc(len ? len : 1);
		memcpy(raw, s->str, len);
		got = inmail_plain_header(raw, len, &got_lines);
		want = slow_plain_header(raw, len, &want_lines);
		plain += want != 0;
		g_free(raw);
		g_string_free(s, TRUE);
		if (got != want || (want && got_lines != want_lines)) {
			is_int(got, want, "plain header %zu: judged as the line by line checks judge it", k);
			return;
		}
	}
	ok(1, "plain header: %zu random sections judged as the line by line checks judge them "
	   "(%zu plain)", rounds, plain);
}

int main(void)
{
	size_t bytes;

	g_mime_init();
	bytes = 0;
	if (round_trip("utf-8", 3000, &bytes))
		ok(1, "UTF-8: 3000 mails' text as g_utf8_make_valid() and the cleaning give it (%zu bytes)",
		   bytes);
	bytes = 0;
	if (round_trip(NULL, 3000, &bytes))
		ok(1, "no charset: 3000 mails' text as NUL dropped, validated or GMime's 8-bit "
		   "fallback and the cleaning give it (%zu bytes)", bytes);
	bytes = 0;
	if (round_trip("windows-1252", 1000, &bytes))
		ok(1, "windows-1252: 1000 mails' text as iconv and the cleaning give it (%zu bytes)",
		   bytes);
	test_content_types();
	test_transfer_encodings();
	test_plain_header();
	return done_testing();
}
