/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The full decode of list mail (see inmail_body.h): GMime's parser over the
 * raw bytes in place (no copy), its data wrappers for the transfer
 * encodings (OpenSSL's block decoder for plain base64) and GLib's iconv
 * for charsets; what is written here is the choice of parts and the
 * fallbacks for bogus labels.  A mail that is one leaf part is read
 * without the parser; a decode of the text alone leaves the parts that can
 * only be attachments undecoded.  And the mbox split, GMime's mbox parser
 * over the same kind of stream. */
#include "config.h"

#include <errno.h>
#include <iconv.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gmime/gmime.h>
#include <openssl/evp.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/buf.h"
#include "core/text.h"
#include "mail/inmail.h"
#include "mail/inmail_body.h"
#include "mail/inmail_html.h"
#include "mail/inmail_lines.h"
#include "mail/inmail_text.h"

/* --- full decode ----------------------------------------------------------- */

/* A GMime stream that reads data in place: GMime only reads from it, and
 * the caller's bytes outlive it. */
static GMimeStream *stream_over(const char *data, size_t len, GByteArray **array)
{
	GMimeStream *stream;

	*array = g_byte_array_new_take((guint8 *)(uintptr_t)data, len);
	stream = g_mime_stream_mem_new_with_byte_array(*array);
	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(stream), FALSE);
	return stream;
}

/* A GMime parser over stream, reading format (a message or an mbox). */
static GMimeParser *parser_over(GMimeStream *stream, GMimeFormat format)
{
	GMimeParser *parser = g_mime_parser_new_with_stream(stream);

	g_mime_parser_set_format(parser, format);
	return parser;
}

static void stream_done(GMimeStream *stream, GByteArray *array)
{
	g_object_unref(stream);
	g_byte_array_free(array, FALSE);  /* the bytes are the caller's */
}

static int charset_is(const char *charset, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (!g_ascii_strcasecmp(charset, names[i]))
			return 1;
	return 0;
}

static const char *const ascii_names[] = {
	"us-ascii", "ascii", "ansi_x3.4-1968", "iso646-us", "iso_646.irv:1991", "us", NULL
};
static const char *const utf8_names[] = { "utf-8", "utf8", NULL };
/* Labels that mean windows-1252 in practice (as in the WHATWG encoding
 * standard): its printable characters where these have C1 controls. */
static const char *const latin1_names[] = { "iso-8859-1", "iso8859-1", "latin1", "l1", NULL };

/* Converts with iconv, putting U+FFFD for bytes that are invalid in the
 * source charset instead of failing. */
static GString *iconv_lenient(iconv_t cd, const char *bytes, size_t len)
{
	GString *s = g_string_sized_new(len + 16);
	char *in = (char *)(uintptr_t)bytes, *outp;
	size_t inleft = len, outleft;
	char tmp[4096];

	while (inleft > 0) {
		size_t r;

		outp = tmp;
		outleft = sizeof(tmp);
		r = iconv(cd, &in, &inleft, &outp, &outleft);
		g_string_append_len(s, tmp, (gssize)(outp - tmp));
		if (r != (size_t)-1 || errno == E2BIG)
			continue;
		g_string_append(s, "\xEF\xBF\xBD");
		if (errno != EILSEQ)
			break;   /* EINVAL: a sequence cut off at the end */
		in++;
		inleft--;
	}
	outp = tmp;
	outleft = sizeof(tmp);
	iconv(cd, NULL, NULL, &outp, &outleft);   /* back to the initial shift state */
	g_string_append_len(s, tmp, (gssize)(outp - tmp));
	return s;
}

/* The length of the longest prefix of s that is valid UTF-8 without NUL:
 * where g_utf8_validate(s, len, &end) puts end.  ASCII other than NUL is
 * stepped over 16 bytes at a time (with SSE2; else a byte at a time), and
 * GLib validates only the runs of bytes from 0x80 up: an ASCII byte is
 * never inside a character, so a run is valid alone exactly when it is
 * valid in the whole text (a character cut off by the run's end is one cut
 * off by an ASCII byte).  Most mail is ASCII, which GLib's validator reads
 * a byte at a time. */
static size_t utf8_valid_len(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t run;
		const char *end;

#ifdef __SSE2__
		for (; i + 16 <= len; i += 16) {
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
			unsigned m = (unsigned)_mm_movemask_epi8(x) |
				     (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128()));

			if (m) {
				i += (unsigned)__builtin_ctz(m);
				break;
			}
		}
#endif
		while (i < len && (unsigned char)s[i] < 0x80 && s[i])
			i++;
		if (i == len || !s[i])
			return i;
		for (run = i; run < len && (unsigned char)s[run] >= 0x80; run++)
			;
		if (!g_utf8_validate(s + i, (gssize)(run - i), &end))
			return (size_t)(end - s);
		i = run;
	}
	return len;
}

/* A copy of len bytes at s with a NUL after them; g_free() it. */
static char *text_dup(const char *s, size_t len)
{
	char *copy = g_malloc(len + 1);

	memcpy(copy, s, len);
	copy[len] = '\0';
	return copy;
}

/* g_utf8_make_valid(s, len): invalid bytes (and NUL) become U+FFFD; text
 * that is valid already, nearly all, is only copied. */
static char *make_valid(const char *s, size_t len)
{
	if (utf8_valid_len(s, len) == len)
		return text_dup(s, len);
	return g_utf8_make_valid(s, (gssize)len);
}

/* 8-bit text of unknown charset: GMime picks from the fallback charsets
 * (UTF-8, then windows-1252).  NUL bytes are no text in any of them. */
static char *decode_unknown(const char *bytes, size_t len)
{
	char *copy, *out;
	size_t n = 0;

	if (!memchr(bytes, '\0', len)) {
		if (utf8_valid_len(bytes, len) == len)
			return text_dup(bytes, len);
		copy = text_dup(bytes, len);
		n = len;
	} else {
		copy = g_malloc(len + 1);
		for (size_t i = 0; i < len; i++)
			if (bytes[i])
				copy[n++] = bytes[i];
		copy[n] = '\0';
		if (utf8_valid_len(copy, n) == n)
			return copy;
	}
	out = g_mime_utils_decode_8bit(inmail_parser_options(), copy, n);
	g_free(copy);
	/* GMime can hand back bytes that are not UTF-8 (seen: 0xF5) */
	n = strlen(out);
	if (utf8_valid_len(out, n) != n) {
		copy = g_utf8_make_valid(out, (gssize)n);
		g_free(out);
		out = copy;
	}
	return out;
}

/* Converters to UTF-8 kept open for reuse: iconv_open() loads the
 * charset's gconv module and iconv_close() unloads it again, which cost
 * more than the conversion itself when every mail did both.  A converter
 * is taken out of the cache while in use, so threads never share one. */
#define CONVERTERS 8
static struct {
	char name[40];
	iconv_t cd;
} converters[CONVERTERS];
static size_t nconverters;
static pthread_mutex_t converters_lock = PTHREAD_MUTEX_INITIALIZER;

static iconv_t converter_take(const char *name)
{
	iconv_t cd = (iconv_t)-1;

	pthread_mutex_lock(&converters_lock);
	for (size_t i = nconverters; i-- > 0;)
		if (!strcmp(converters[i].name, name)) {
			cd = converters[i].cd;
			converters[i] = converters[--nconverters];
			break;
		}
	pthread_mutex_unlock(&converters_lock);
	return cd != (iconv_t)-1 ? cd : iconv_open("UTF-8", name);
}

/* Gives a converter back, in its initial shift state. */
static void converter_give(const char *name, iconv_t cd)
{
	iconv(cd, NULL, NULL, NULL, NULL);
	pthread_mutex_lock(&converters_lock);
	if (strlen(name) < sizeof(converters[0].name)) {
		if (nconverters == CONVERTERS) {   /* the oldest makes room */
			iconv_close(converters[0].cd);
			memmove(&converters[0], &converters[1],
				(CONVERTERS - 1) * sizeof(converters[0]));
			nconverters--;
		}
		strcpy(converters[nconverters].name, name);
		converters[nconverters++].cd = cd;
		cd = (iconv_t)-1;
	}
	pthread_mutex_unlock(&converters_lock);
	if (cd != (iconv_t)-1)
		iconv_close(cd);
}

/* 0 for a label that can name no charset, such as charset="'": glibc's
 * iconv_open() ignores the punctuation in a name and takes what is left,
 * nothing, for the locale's charset (ASCII in services), which turned all
 * 8-bit text into U+FFFD.  A name needs a letter or digit, and no blank or
 * control character. */
static int charset_label_usable(const char *name)
{
	int alnum = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p <= 0x20 || *p >= 0x7f)
			return 0;
		alnum |= g_ascii_isalnum(*p);
	}
	return alnum;
}

/* Text of a part in charset (may be NULL) as valid UTF-8; g_free() it. */
static char *to_utf8(const char *bytes, size_t len, const char *charset)
{
	const char *name;
	iconv_t cd;
	GString *s;
	char *valid;

	if (len == 0)
		return g_strdup("");
	if (!charset || !*charset || charset_is(charset, ascii_names))
		return decode_unknown(bytes, len);
	if (charset_is(charset, utf8_names))
		return make_valid(bytes, len);
	name = charset_is(charset, latin1_names) ? "WINDOWS-1252" : g_mime_charset_iconv_name(charset);
	cd = name && charset_label_usable(name) ? converter_take(name) : (iconv_t)-1;
	if (cd == (iconv_t)-1)
		return decode_unknown(bytes, len);   /* a bogus label */
	s = iconv_lenient(cd, bytes, len);
	converter_give(name, cd);
	if (utf8_valid_len(s->str, s->len) == s->len)
		return g_string_free(s, FALSE);   /* iconv's UTF-8 is valid: no copy */
	valid = g_utf8_make_valid(s->str, (gssize)s->len);
	g_string_free(s, TRUE);
	return valid;
}

/* 1 for a byte that body text drops or changes: a C0 control but LF and
 * TAB, or DEL. */
static inline int text_control(unsigned char c)
{
	return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
}

/* How many bytes from s on stay in body text as they are: none is a
 * text_control(), and with ascii none is from 0x80 up either.  16 at a
 * time with SSE2, as most text has none. */
static inline size_t kept_run(const char *s, size_t len, int ascii)
{
	size_t i = 0;

#ifdef __SSE2__
	const __m128i below = _mm_set1_epi8(0x1f), del = _mm_set1_epi8(0x7f);
	const __m128i lf = _mm_set1_epi8('\n'), tab = _mm_set1_epi8('\t');

	for (; i + 16 <= len; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		/* x <= 0x1f (unsigned), but LF and TAB; or DEL */
		__m128i c0 = _mm_cmpeq_epi8(_mm_min_epu8(x, below), x);
		__m128i kept = _mm_or_si128(_mm_cmpeq_epi8(x, lf), _mm_cmpeq_epi8(x, tab));
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_andnot_si128(kept, c0), _mm_cmpeq_epi8(x, del)));

		if (ascii)
			m |= (unsigned)_mm_movemask_epi8(x);   /* the high bits */
		if (m)
			return i + (unsigned)__builtin_ctz(m);
	}
#endif
	while (i < len && !text_control((unsigned char)s[i]) && !(ascii && (unsigned char)s[i] >= 0x80))
		i++;
	return i;
}

static size_t plain_run(const char *s, size_t len)
{
	return kept_run(s, len, 0);
}

/* ... and ASCII: where UTF-8 has to be checked too. */
static size_t plain_ascii_run(const char *s, size_t len)
{
	return kept_run(s, len, 1);
}

/* Appends valid UTF-8 text as body text: LF line ends (CRLF and bare CR
 * become LF), no NUL, no other C0 controls but TAB, no DEL. */
static enum bb_status add_body_text(struct buf *out, const char *s, size_t len)
{
	enum bb_status st = buf_grow(out, len + 1);
	size_t run = 0;   /* where the bytes not yet added start */

	/* runs of bytes that stay as they are go in whole */
	for (size_t i = 0; i < len && st == BB_OK;) {
		unsigned char c;

		i += plain_run(s + i, len - i);
		if (i >= len)
			break;
		c = (unsigned char)s[i++];
		st = buf_add(out, s + run, i - 1 - run);
		run = i;
		/* CR LF is LF (the LF follows); a lone CR is one; other
		 * controls go */
		if (st == BB_OK && c == '\r' && !(i < len && s[i] == '\n'))
			st = buf_addch(out, '\n');
	}
	if (st == BB_OK)
		st = buf_add(out, s + run, len - run);
	return st;
}

/* add_body_text() of s (len bytes) when s is valid UTF-8 without NUL --
 * what to_utf8() gives of such bytes labelled UTF-8, ASCII or nothing is
 * the bytes themselves -- in one pass: the check and the cleaning read
 * the bytes once, and they are copied once, into out.  Returns 0, out as
 * it was, when s is not such text (to_utf8() has work to do then); 1 when
 * done or when out could not grow (*st says which). */
static int add_valid_text(struct buf *out, const char *s, size_t len, enum bb_status *st)
{
	size_t was = out->len, run = 0;   /* where the bytes not yet added start */
	char *w;                          /* where they go */

	/* the text is never longer than the bytes: written in place */
	if ((*st = buf_grow(out, len + 1)) != BB_OK)
		return 1;
	w = out->data + out->len;
	for (size_t i = 0; i < len;) {
		unsigned char c;

		i += plain_ascii_run(s + i, len - i);
		if (i >= len)
			break;
		c = (unsigned char)s[i];
		if (c >= 0x80) {
			/* as in utf8_valid_len(): a run of such bytes is valid
			 * alone exactly when it is valid in the text */
			size_t end = i;

			while (end < len && (unsigned char)s[end] >= 0x80)
				end++;
			if (!g_utf8_validate(s + i, (gssize)(end - i), NULL))
				goto slow;
			i = end;
			continue;
		}
		if (c == '\0')
			goto slow;
		memcpy(w, s + run, i - run);
		w += i - run;
		run = ++i;
		/* CR LF is LF (the LF follows); a lone CR is one; other
		 * controls go */
		if (c == '\r' && !(i < len && s[i] == '\n'))
			*w++ = '\n';
	}
	memcpy(w, s + run, len - run);
	w += len - run;
	*w = '\0';
	out->len = (size_t)(w - out->data);
	return 1;
slow:
	out->data[was] = '\0';   /* (out->len is still was) */
	return 0;
}

/* --- walking the MIME tree ------------------------------------------------ */

/* What a decode reads: inmail_decode() both, inmail_decode_text() and
 * inmail_decode_attachments() one each. */
enum { WANT_TEXT = 1, WANT_ATTACHMENTS = 2, WANT_ALL = WANT_TEXT | WANT_ATTACHMENTS };

struct decode {
	unsigned want;          /* WANT_* */
	struct inmail_body *b;
	struct buf text, html;
	struct buf named_html;  /* the first inline HTML part with a file name */
	size_t leaves, parts_alloc;
	enum bb_status st;
	struct bb_error *err;
};

/* What content (a data wrapper, NULL: none) holds with its transfer
 * encoding undone, in an array sized for its encoded size bytes, which no
 * decoding makes more of: written once, never grown by copying (a large
 * part had a copy at each doubling). */
static GByteArray *wrapper_bytes(GMimeDataWrapper *content, gint64 size)
{
	GByteArray *array = g_byte_array_sized_new(size > 0 && size < G_MAXUINT - 1 ? (guint)size + 1 : 0);
	GMimeStream *mem = g_mime_stream_mem_new_with_byte_array(array);

	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
	if (content)
		g_mime_data_wrapper_write_to_stream(content, mem);
	g_object_unref(mem);
	return array;
}

/* base64 content (len bytes) decoded by OpenSSL's block decoder into out
 * (room for len / 4 * 3 bytes), when GMime's decoder is sure to give the
 * same bytes: every line (without its line end) a whole number of
 * quartets of the base64 alphabet, with blanks at most around them, and
 * '=' only as the padding at the end -- at most two, with nothing but
 * line ends after them.  GMime's decoder takes one byte at a time through
 * its table, skipping what is not base64 (and reads '=' elsewhere as zero
 * bits, a quartet across lines, ...); OpenSSL's reads a quartet at a time
 * and refuses all that, which then is GMime's to decode.  Returns the
 * number of bytes, or -1 when the content is not that plain. */
static gssize base64_plain(const char *in, size_t len, unsigned char *out)
{
	const char *end = in + len, *eq = memchr(in, '=', len);
	size_t pad = 0, n = 0;

	for (const char *q = eq; q && q < end; q++) {
		if (*q == '=') {
			if (++pad > 2)
				return -1;
		} else if (*q != '\n' && *q != '\r') {
			return -1;
		}
	}
	for (const char *p = in; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		int got;

		if (le > p && le[-1] == '\r')
			le--;
		if (le - p > INT_MAX)
			return -1;
		/* (with '=' counted as zero bits: GMime's reading of it too) */
		if (le > p && (got = EVP_DecodeBlock(out + n, (const unsigned char *)p, (int)(le - p))) < 0)
			return -1;
		n += le > p ? (size_t)got : 0;
		p = nl ? nl + 1 : end;
	}
	/* GMime drops a byte for each '=' among the last two characters */
	return (gssize)(n > pad ? n - pad : 0);
}

/* content (len bytes) with its transfer encoding enc, base64 or
 * quoted-printable, undone as wrapper_bytes() undoes it: the data
 * wrapper's filter runs GMime's decoder over 4 KiB at a time and flushes
 * it at the end; here the decoder runs over all of it at once (it keeps
 * its state from one call to the next, so the bytes are the same) into an
 * array of the size it says it may need, without the streams' copies. */
static GByteArray *decoded_bytes(const char *content, size_t len, GMimeContentEncoding enc)
{
	GMimeEncoding state;
	GByteArray *array;
	size_t n, max;
	gssize plain;

	g_mime_encoding_init_decode(&state, enc);
	max = g_mime_encoding_outlen(&state, len);
	array = g_byte_array_sized_new((guint)max + 1);
	if (enc == GMIME_CONTENT_ENCODING_BASE64 &&
	    (plain = base64_plain(content, len, array->data)) >= 0) {
		g_byte_array_set_size(array, (guint)plain);
		return array;
	}
	n = g_mime_encoding_step(&state, content, len, (char *)array->data);
	n += g_mime_encoding_flush(&state, "", 0, (char *)array->data + n);
	g_byte_array_set_size(array, (guint)n);
	return array;
}

/* The decoded content of a leaf part (transfer encoding undone).  Base64
 * that base64_plain() takes is decoded where it is in the mail: GMime's
 * parser gives a part of a mail in memory as a piece of that memory. */
static GByteArray *part_bytes(GMimePart *part)
{
	GMimeDataWrapper *content = g_mime_part_get_content(part);
	GMimeStream *encoded = content ? g_mime_data_wrapper_get_stream(content) : NULL;

	if (encoded && GMIME_IS_STREAM_MEM(encoded) &&
	    g_mime_data_wrapper_get_encoding(content) == GMIME_CONTENT_ENCODING_BASE64) {
		GByteArray *mem = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(encoded));
		gint64 start = encoded->bound_start, end = encoded->bound_end;
		GByteArray *array;
		gssize n;

		if (end < 0)
			end = mem ? (gint64)mem->len : -1;
		if (mem && start >= 0 && start <= end && end <= (gint64)mem->len &&
		    end - start < G_MAXUINT / 2) {
			array = g_byte_array_sized_new((guint)((end - start) / 4 * 3 + 1));
			if ((n = base64_plain((const char *)mem->data + start, (size_t)(end - start),
					      array->data)) >= 0) {
				g_byte_array_set_size(array, (guint)n);
				return array;
			}
			g_byte_array_free(array, TRUE);
		}
	}
	return wrapper_bytes(content, encoded ? g_mime_stream_length(encoded) : -1);
}

static int patch_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 6 && !g_ascii_strcasecmp(name + n - 6, ".patch")) ||
		(n > 5 && !g_ascii_strcasecmp(name + n - 5, ".diff"));
}

static char *clean_filename(const char *name)
{
	const char *base;
	char *out;

	if (!name)
		return NULL;
	base = name + strlen(name);
	while (base > name && base[-1] != '/' && base[-1] != '\\')
		base--;
	out = inmail_clean_line(base, strlen(base), 255);
	if (out && (!*out || !strcmp(out, ".") || !strcmp(out, ".."))) {
		free(out);
		out = NULL;
	}
	return out;
}

static void decode_fail(struct decode *d, enum bb_status st, const char *what)
{
	if (d->st != BB_OK)
		return;
	d->st = st;
	if (st == BB_ERR_NOMEM)
		bb_error_set(d->err, st, "out of memory decoding mail (%s)", what);
	else
		bb_error_set(d->err, st, "%s", what);
}

static void add_attachment(struct decode *d, GMimeContentType *ct, const char *filename,
			   const guint8 *data, size_t len)
{
	struct inmail_body *b = d->b;
	struct inmail_part *p;
	char *type;

	if (len == 0)
		return;   /* nothing to store */
	if (b->nparts == d->parts_alloc) {
		size_t na = d->parts_alloc ? d->parts_alloc * 2 : 4;
		struct inmail_part *np = realloc(b->parts, na * sizeof(*np));

		if (!np) {
			decode_fail(d, BB_ERR_NOMEM, "attachment list");
			return;
		}
		b->parts = np;
		d->parts_alloc = na;
	}
	p = &b->parts[b->nparts];
	memset(p, 0, sizeof(*p));
	type = g_mime_content_type_get_mime_type(ct);
	p->content_type = inmail_clean_line(type ? type : "application/octet-stream",
				     type ? strlen(type) : 24, 255);
	g_free(type);
	p->filename = clean_filename(filename);
	p->data = malloc(len + 1);
	if (!p->content_type || !p->data) {
		free(p->content_type);
		free(p->filename);
		free(p->data);
		decode_fail(d, BB_ERR_NOMEM, "attachment");
		return;
	}
	for (char *c = p->content_type; *c; c++)
		*c = (char)ascii_lower((unsigned char)*c);
	memcpy(p->data, data, len);
	p->data[len] = 0;
	p->len = len;
	b->nparts++;
}

static int type_is(GMimeContentType *ct, const char *type, const char *subtype)
{
	return g_mime_content_type_is_type(ct, type, subtype);
}

/* Whether a leaf part of type ct adds nothing, so that its content need
 * not be decoded: the signature of a signed mail, or an encrypted part
 * (which marks the body encrypted). */
static int leaf_without_content(struct decode *d, GMimeContentType *ct)
{
	if (type_is(ct, "application", "pgp-signature") ||
	    type_is(ct, "application", "pkcs7-signature") ||
	    type_is(ct, "application", "x-pkcs7-signature"))
		return 1;
	if (type_is(ct, "application", "pkcs7-mime") || type_is(ct, "application", "x-pkcs7-mime") ||
	    type_is(ct, "application", "pgp-encrypted")) {
		d->b->encrypted = 1;
		return 1;
	}
	return 0;
}

/* 1 if a leaf part with content (not leaf_without_content()) of type ct
 * and disposition (NULL: none) is of the kinds whose text may go to the
 * body or its HTML: the text kinds, inline.  With a file name, its text
 * tells whether it does (leaf_content()); any other leaf is an attachment
 * as it stands.  The one choice of text and attachment that a decode of
 * both, of the text alone and of the attachments alone all make. */
static int leaf_text_kind(GMimeContentType *ct, const char *disposition)
{
	if (disposition && !g_ascii_strcasecmp(disposition, "attachment"))
		return 0;
	return type_is(ct, "text", "plain") || type_is(ct, "text", "x-patch") ||
	       type_is(ct, "text", "x-diff") || type_is(ct, "text", "html");
}

/* Whether d needs the content of such a leaf (leaf_text_kind() says which
 * kind): a text kind for the text, and also for the attachments when it
 * has a file name (a named one that is no patch is an attachment; one
 * without a name never is); any other leaf only for the attachments. */
static int leaf_wanted(const struct decode *d, GMimeContentType *ct, const char *disposition,
		       const char *filename)
{
	if (leaf_text_kind(ct, disposition))
		return (d->want & WANT_TEXT) || ((d->want & WANT_ATTACHMENTS) && filename);
	return (d->want & WANT_ATTACHMENTS) != 0;
}

/* add_body_text() of text (tlen bytes, g_malloc'd, which is malloc) into
 * an empty out, in place: the cleaning only drops or replaces bytes, so
 * text becomes out's memory instead of a second copy of a body that may
 * be 50 MB. */
static void adopt_body_text(struct buf *out, char *text, size_t tlen)
{
	size_t w = 0;   /* where the next kept byte goes */

	for (size_t i = 0; i < tlen;) {
		size_t k = plain_run(text + i, tlen - i);
		unsigned char c;

		/* a run moves down whole, only once a byte before it went */
		if (w != i)
			memmove(text + w, text + i, k);
		w += k;
		i += k;
		if (i >= tlen)
			break;
		c = (unsigned char)text[i++];
		if (c == '\r' && !(i < tlen && text[i] == '\n'))
			text[w++] = '\n';
	}
	text[w] = '\0';
	if (out->alloc)
		free(out->data);
	out->data = text;
	out->len = w;
	out->alloc = tlen + 1;
}

/* A leaf's content (len bytes at data) as body text, HTML or an
 * attachment; own, when not NULL, holds data and is freed here, as soon as
 * the text made of it is all that is needed (NULL: data is the caller's,
 * a single part's bytes in the mail itself). */
static void leaf_content(struct decode *d, GMimeContentType *ct, const char *disposition,
			 const char *filename, const guint8 *data, size_t len, GByteArray *own)
{
	int want_text = (d->want & WANT_TEXT) != 0;

	if (leaf_text_kind(ct, disposition)) {
		const char *charset = g_mime_content_type_get_parameter(ct, "charset");
		int html = type_is(ct, "text", "html");
		char *text;
		size_t tlen;

		if (want_text && !html && !filename && len &&
		    (!charset || !*charset || charset_is(charset, ascii_names) ||
		     charset_is(charset, utf8_names))) {
			/* a text part whose bytes may be its text: in one pass
			 * (as below: pieces end with a line end, a blank line
			 * apart) unless to_utf8() has work to do */
			struct buf *out = &d->text;
			size_t was = out->len;
			enum bb_status st = out->len ? buf_addch(out, '\n') : BB_OK;

			if (st == BB_OK && add_valid_text(out, (const char *)data, len, &st)) {
				if (st == BB_OK && out->len && out->data[out->len - 1] != '\n')
					st = buf_addch(out, '\n');
				if (st != BB_OK)
					decode_fail(d, BB_ERR_NOMEM, "text");
				if (own)
					g_byte_array_free(own, TRUE);
				return;
			}
			if (st != BB_OK) {
				decode_fail(d, BB_ERR_NOMEM, "text");
				if (own)
					g_byte_array_free(own, TRUE);
				return;
			}
			buf_truncate(out, was);
		}
		text = to_utf8((const char *)data, len, charset);
		tlen = strlen(text);
		int body = (html && !filename) ||
			   (!html && tlen && (!filename || patch_name(filename) ||
					      !type_is(ct, "text", "plain") || inmail_has_hunk(text, tlen)));

		if (body || !tlen) {
			/* only the text is needed from here: a large part is held
			 * twice at most (text and what is made of it), not three times */
			if (own)
				g_byte_array_free(own, TRUE);
			own = NULL;
			data = NULL;
		}
		if (!want_text) {
			/* the attachments alone: a text kind is one only as below */
			if (!body && tlen && !(html && !filename))
				add_attachment(d, ct, filename, data, len);
		} else if (html && !filename) {
			struct buf *out = &d->html;

			if (out->len && buf_addch(out, '\n') != BB_OK)
				decode_fail(d, BB_ERR_NOMEM, "HTML");
			else if (inmail_html_to_text(out, text, tlen) != BB_OK)
				decode_fail(d, BB_ERR_NOMEM, "HTML");
		} else if (body) {
			struct buf *out = &d->text;

			/* pieces end with a line end (MIME gives the last one to
			 * the boundary) and are a blank line apart */
			if (!out->len) {
				adopt_body_text(out, text, tlen);
				text = NULL;
				if (out->len && out->data[out->len - 1] != '\n' &&
				    buf_addch(out, '\n') != BB_OK)
					decode_fail(d, BB_ERR_NOMEM, "text");
			} else if ((out->len && buf_addch(out, '\n') != BB_OK) ||
			    add_body_text(out, text, tlen) != BB_OK ||
			    (out->len && out->data[out->len - 1] != '\n' && buf_addch(out, '\n') != BB_OK))
				decode_fail(d, BB_ERR_NOMEM, "text");
		} else if (tlen) {
			if (html && d->named_html.len == 0 &&
			    inmail_html_to_text(&d->named_html, text, tlen) != BB_OK)
				decode_fail(d, BB_ERR_NOMEM, "HTML");
			if (d->want & WANT_ATTACHMENTS)
				add_attachment(d, ct, filename, data, len);
		}
		g_free(text);
	} else {
		add_attachment(d, ct, filename, data, len);
	}
	if (own)
		g_byte_array_free(own, TRUE);
}

static void decode_leaf(struct decode *d, GMimePart *part)
{
	GMimeObject *obj = GMIME_OBJECT(part);
	GMimeContentType *ct = g_mime_object_get_content_type(obj);

	if (!leaf_without_content(d, ct)) {
		const char *disposition = g_mime_object_get_disposition(obj);
		const char *filename = g_mime_part_get_filename(part);
		GByteArray *bytes;

		if (!leaf_wanted(d, ct, disposition, filename))
			return;   /* its content is not decoded */
		bytes = part_bytes(part);
		leaf_content(d, ct, disposition, filename, bytes->data, bytes->len, bytes);
	}
}

static void decode_message_part(struct decode *d, GMimeMessagePart *mp)
{
	GMimeMessage *inner = g_mime_message_part_get_message(mp);
	GMimeContentDisposition *disp = g_mime_object_get_content_disposition(GMIME_OBJECT(mp));
	const char *filename = disp ? g_mime_content_disposition_get_parameter(disp, "filename") : NULL;
	GByteArray *array;
	GMimeStream *mem;

	if (!inner)
		return;
	array = g_byte_array_new();
	mem = g_mime_stream_mem_new_with_byte_array(array);
	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
	g_mime_object_write_to_stream(GMIME_OBJECT(inner), NULL, mem);
	g_object_unref(mem);
	add_attachment(d, g_mime_object_get_content_type(GMIME_OBJECT(mp)), filename, array->data, array->len);
	g_byte_array_free(array, TRUE);
}

/* 1 if obj is, or a multipart whose first level holds, a text/plain part. */
static int has_plain(GMimeObject *obj)
{
	if (GMIME_IS_PART(obj))
		return type_is(g_mime_object_get_content_type(obj), "text", "plain");
	if (GMIME_IS_MULTIPART(obj) && !GMIME_IS_MULTIPART_ENCRYPTED(obj)) {
		GMimeMultipart *mp = GMIME_MULTIPART(obj);

		for (int i = 0; i < g_mime_multipart_get_count(mp); i++) {
			GMimeObject *c = g_mime_multipart_get_part(mp, i);

			if (GMIME_IS_PART(c) && type_is(g_mime_object_get_content_type(c), "text", "plain"))
				return 1;
		}
	}
	return 0;
}

static void decode_walk(struct decode *d, GMimeObject *obj, int depth)
{
	if (!obj || d->st != BB_OK)
		return;
	if (depth > INMAIL_DEPTH_MAX) {
		d->b->skipped_parts++;
		return;
	}
	if (GMIME_IS_MULTIPART_ENCRYPTED(obj)) {
		d->b->encrypted = 1;
		return;
	}
	if (GMIME_IS_MULTIPART_SIGNED(obj)) {
		GMimeMultipart *mp = GMIME_MULTIPART(obj);

		if (g_mime_multipart_get_count(mp) > 0)
			decode_walk(d, g_mime_multipart_get_part(mp, GMIME_MULTIPART_SIGNED_CONTENT),
				    depth + 1);
		return;
	}
	if (GMIME_IS_MULTIPART(obj)) {
		GMimeMultipart *mp = GMIME_MULTIPART(obj);
		int n = g_mime_multipart_get_count(mp);

		if (type_is(g_mime_object_get_content_type(obj), "multipart", "alternative")) {
			/* the text/plain alternative, else all of them */
			for (int i = 0; i < n; i++) {
				GMimeObject *c = g_mime_multipart_get_part(mp, i);

				if (has_plain(c)) {
					decode_walk(d, c, depth + 1);
					return;
				}
			}
		}
		for (int i = 0; i < n && d->st == BB_OK; i++)
			decode_walk(d, g_mime_multipart_get_part(mp, i), depth + 1);
		return;
	}
	if (++d->leaves > INMAIL_PARTS_MAX) {
		char msg[96];

		snprintf(msg, sizeof(msg), "mail has more than %d MIME parts", INMAIL_PARTS_MAX);
		decode_fail(d, BB_ERR_TOO_LARGE, msg);
		return;
	}
	if (GMIME_IS_MESSAGE_PART(obj)) {
		if (d->want & WANT_ATTACHMENTS)   /* only ever an attachment */
			decode_message_part(d, GMIME_MESSAGE_PART(obj));
	} else if (GMIME_IS_PART(obj)) {
		decode_leaf(d, GMIME_PART(obj));
	}
}

/* 1 if no empty line ends the header section within INMAIL_HEADER_MAX
 * bytes (the header pass refuses such mail too). */
static int header_section_too_large(const char *raw, size_t len)
{
	const char *p = raw, *end = raw + (len < INMAIL_HEADER_MAX ? len : INMAIL_HEADER_MAX);

	if (len <= INMAIL_HEADER_MAX)
		return 0;
	while (p < end && (p = memchr(p, '\n', (size_t)(end - p)))) {
		p++;
		if (p < end && (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')))
			return 0;
	}
	return 1;
}

void inmail_body_release(struct inmail_body *b)
{
	if (!b)
		return;
	free(b->text);
	for (size_t i = 0; i < b->nparts; i++) {
		free(b->parts[i].filename);
		free(b->parts[i].content_type);
		free(b->parts[i].data);
	}
	free(b->parts);
	memset(b, 0, sizeof(*b));
}

/* plain_header(): 1 if the pos bytes of a header section's lines have no
 * NUL and no CR but before LF -- looked for in the whole section once it
 * is found, not line by line (two memchr() a line cost as much as the rest
 * of the line's handling; a line that fails makes the section not plain,
 * whichever the check finds it in). */
static int section_clean(const char *raw, size_t pos)
{
	const char *cr = raw, *end = raw + pos;

	if (memchr(raw, '\0', pos))
		return 0;
	while ((cr = memchr(cr, '\r', (size_t)(end - cr))) != NULL) {
		if (cr + 1 == end || cr[1] != '\n')
			return 0;
		cr += 2;
	}
	return 1;
}

/* The lines of a header section that is plain enough to be sure GMime
 * splits it the same way: every line a "name:" field (printable name) or
 * a folded one, no NUL and no CR but before LF, and a blank line to end
 * it.  fn is called with each line (len bytes, its line end included) and
 * the length of its field's name (0 for a folded line; fn may see lines of
 * a section that turns out not plain, and what it made of them is to be
 * dropped then); a non-zero return stops.  Returns where the blank line
 * starts, or 0 when the section is not plain or fn stopped. */
static size_t plain_header(const char *raw, size_t len,
			   int (*fn)(void *ctx, const char *line, size_t len, size_t name), void *ctx)
{
	size_t pos = 0;

	while (pos < len) {
		const char *line = raw + pos, *nl = memchr(line, '\n', len - pos), *colon;
		size_t n, name = 0;

		if (!nl)
			return 0;
		n = (size_t)(nl - line);
		if (n && line[n - 1] == '\r')
			n--;
		if (n == 0)
			return section_clean(raw, pos) ? pos : 0;
		if (line[0] == ' ' || line[0] == '\t') {
			if (!pos)
				return 0;
		} else {
			if (!(colon = memchr(line, ':', n)) || colon == line)
				return 0;
			name = (size_t)(colon - line);
			for (size_t i = 0; i < name; i++)
				if ((unsigned char)line[i] <= ' ' || (unsigned char)line[i] >= 0x7f)
					return 0;
		}
		if (fn(ctx, line, (size_t)(nl + 1 - line), name))
			return 0;
		pos = (size_t)(nl + 1 - raw);
	}
	return 0;
}

static int count_line(void *ctx, const char *line, size_t len, size_t name)
{
	(void)line;
	(void)len;
	(void)name;
	++*(size_t *)ctx;
	return 0;
}

size_t inmail_plain_header(const char *raw, size_t len, size_t *lines)
{
	*lines = 0;
	return plain_header(raw, len, count_line, lines);
}

/* content_fields(): what is kept of the field being read. */
struct kept_fields {
	struct buf *out;
	int keep;
};

static int keep_content_line(void *ctx, const char *line, size_t len, size_t name)
{
	struct kept_fields *k = ctx;

	if (name)
		k->keep = has_prefix_ci(line, name, "content-") || equals_ci(line, name, "mime-version");
	return k->keep && buf_add(k->out, line, len) != BB_OK;
}

/* The Content- and MIME-Version fields of a plain header section (with
 * their folded lines, verbatim) into out; returns where its blank line
 * starts, or 0 when the section is not plain (plain_header()). */
static size_t content_fields(const char *raw, size_t len, struct buf *out)
{
	struct kept_fields k = { out, 0 };

	return plain_header(raw, len, keep_content_line, &k);
}

/* Mails up to this size are parsed from a copy cut down by
 * structure_stream(); larger ones (where the body's size, not the header's
 * fields, is what a parse costs) as they are. */
#define STRUCTURE_COPY_MAX (1024 * 1024)

/* A stream of the mail as GMime's part parser needs it, in copy (made in
 * copy, which the caller releases after the stream): its header section
 * cut down to the fields that shape the MIME structure (GMime makes an
 * object of every field it reads: most of a decode's time went to
 * Received:, DKIM-Signature: and the rest) and one field of blanks as long
 * as the others, then the body.  The body starts at the same offset as in
 * the mail, and the copy is one piece: GMime reads a malformed MIME
 * structure differently when its buffer's edges fall elsewhere.  The whole
 * mail, not copied, when content_fields() is not sure or the mail is
 * large. */
static GMimeStream *structure_stream(const char *raw, size_t len, struct buf *copy,
				     GByteArray **array)
{
	static const char pad_field[] = "X-Bugbridge-Skipped:";
	size_t body = len <= STRUCTURE_COPY_MAX ? content_fields(raw, len, copy) : 0;
	size_t pad = body > copy->len ? body - copy->len : 0;

	if (body && pad && pad < sizeof(pad_field))
		body = 0;   /* too little room for the field */
	if (body && buf_grow(copy, pad + (len - body)) != BB_OK)
		body = 0;
	if (body && pad) {
		/* the field, blanks, its line end */
		memcpy(copy->data + copy->len, pad_field, sizeof(pad_field) - 1);
		memset(copy->data + copy->len + sizeof(pad_field) - 1, ' ', pad - sizeof(pad_field));
		copy->data[copy->len + pad - 1] = '\n';
		copy->len += pad;
		copy->data[copy->len] = '\0';
	}
	if (body && buf_add(copy, raw + body, len - body) != BB_OK)
		body = 0;
	if (!body || copy->len != len)
		return stream_over(raw, len, array);
	return stream_over(copy->data, copy->len, array);
}

/* single_part(): where the fields that shape a leaf part are. */
enum { SF_TYPE, SF_ENCODING, SF_DISPOSITION, SF_COUNT, SF_OTHER = SF_COUNT };

struct single_fields {
	const char *at[SF_COUNT]; /* from the colon on, folded lines included */
	size_t len[SF_COUNT];
	int current;
};

static int note_single_line(void *ctx, const char *line, size_t len, size_t name)
{
	static const char *const names[SF_COUNT] = { "content-type", "content-transfer-encoding",
						     "content-disposition" };
	struct single_fields *f = ctx;

	if (!name) {
		if (f->current != SF_OTHER)
			f->len[f->current] += len;
		return 0;
	}
	f->current = SF_OTHER;
	/* most fields are none of them: one look at the name tells (the
	 * three start "content-" and are longer than that) */
	if (name <= 8 || !has_prefix_ci(line, name, "content-"))
		return 0;
	for (int i = 0; i < SF_COUNT; i++) {
		if (!equals_ci(line, name, names[i]))
			continue;
		if (f->at[i])
			return 1;   /* twice: which one GMime takes is its business */
		f->current = i;
		f->at[i] = line + name + 1;
		f->len[i] = len - name - 1;
	}
	return 0;
}

/* 1 if field i is ASCII without "=?": nothing in it is decoded. */
static int plain_value(const struct single_fields *f, int i)
{
	const char *v = f->at[i];

	for (size_t k = 0; k < f->len[i]; k++)
		if ((unsigned char)v[k] >= 0x80 || (v[k] == '=' && k + 1 < f->len[i] && v[k + 1] == '?'))
			return 0;
	return 1;
}

/* A field's value as GMime's header gives it (g_free() it): unfolded, its
 * encoded words and 8-bit text decoded -- what its parser reads a part's
 * type, disposition and transfer encoding from; NULL when the field is
 * absent. */
static char *single_value(const struct single_fields *f, int i)
{
	char *raw, *unfolded, *value;

	if (!f->at[i])
		return NULL;
	raw = g_strndup(f->at[i], f->len[i]);
	unfolded = g_mime_utils_header_unfold(raw);
	g_free(raw);
	if (plain_value(f, i))
		return unfolded;   /* what the decode would give */
	value = g_mime_utils_header_decode_text(inmail_parser_options(), unfolded);
	g_free(unfolded);
	return value;
}

/* Whether the Content-Type field as it stands (not decoded) names the
 * same type and subtype as ct: GMime's parser chooses a part's kind from
 * the one and its type from the other, so where they differ (8-bit or
 * encoded text in the type) it is left to the parser. */
static int same_raw_type(const struct single_fields *f, GMimeContentType *ct)
{
	char *raw;
	GMimeContentType *as_is;
	int same;

	if (!f->at[SF_TYPE] || plain_value(f, SF_TYPE))
		return 1;   /* the same text */
	raw = g_strndup(f->at[SF_TYPE], f->len[SF_TYPE]);
	as_is = g_mime_content_type_parse(inmail_parser_options(), raw);
	same = !g_ascii_strcasecmp(g_mime_content_type_get_media_type(as_is),
				   g_mime_content_type_get_media_type(ct)) &&
	       !g_ascii_strcasecmp(g_mime_content_type_get_media_subtype(as_is),
				   g_mime_content_type_get_media_subtype(ct));
	g_object_unref(as_is);
	g_free(raw);
	return same;
}

/* Content types parsed from one-part mails' Content-Type values, kept for
 * the next mails: most give one of a few values ("text/plain;
 * charset=UTF-8"), and making and unmaking GMime's object for each (its
 * parameter list, signals) cost as much as the decode of a short mail's
 * text.  The objects are only read once made (type, parameters), so
 * threads share them; each user holds a reference. */
#define CONTENT_TYPES 16
#define CONTENT_TYPE_VALUE_MAX 200
static struct {
	char *value;   /* the field's value as single_value() gives it; NULL: none */
	GMimeContentType *ct;
} content_types[CONTENT_TYPES];
static size_t ncontent_types, next_content_type;
static pthread_mutex_t content_types_lock = PTHREAD_MUTEX_INITIALIZER;

/* The content type a one-part mail's Content-Type value (NULL: no field,
 * text/plain) gives, as g_mime_content_type_parse() makes it: a new
 * reference (g_object_unref() it). */
static GMimeContentType *content_type_of(const char *value)
{
	GMimeContentType *ct = NULL;
	size_t i;

	if (value && strlen(value) > CONTENT_TYPE_VALUE_MAX)
		return g_mime_content_type_parse(inmail_parser_options(), value);
	pthread_mutex_lock(&content_types_lock);
	for (i = 0; i < ncontent_types; i++)
		if (!g_strcmp0(content_types[i].value, value)) {
			ct = g_object_ref(content_types[i].ct);
			break;
		}
	pthread_mutex_unlock(&content_types_lock);
	if (ct)
		return ct;
	ct = value ? g_mime_content_type_parse(inmail_parser_options(), value)
		   : g_mime_content_type_new("text", "plain");
	pthread_mutex_lock(&content_types_lock);
	/* (another thread may have kept the same: harmless, one is found) */
	i = ncontent_types < CONTENT_TYPES ? ncontent_types++ : next_content_type++ % CONTENT_TYPES;
	if (content_types[i].ct) {
		g_object_unref(content_types[i].ct);
		g_free(content_types[i].value);
	}
	content_types[i].value = g_strdup(value);
	content_types[i].ct = g_object_ref(ct);
	pthread_mutex_unlock(&content_types_lock);
	return ct;
}

/* The decode of a mail that is one leaf part (not multipart/ nor
 * message/), without GMime's parser: the part's fields are read with the
 * functions GMime's parser reads them with, its content -- the bytes after
 * the header section, as the parser takes them -- is decoded by a GMime
 * data wrapper, and leaf_content() takes it as decode_leaf() does.  The
 * parser's work (an object for each field, a scan of the content for
 * boundaries, and undoing all of it) was most of a decode, and most mail
 * is one part.  Returns 0, having done nothing, for a mail it is not sure
 * of (a header section plain_header() does not take, a field that shapes
 * the part given twice, a multipart or message type, a type that reads
 * otherwise decoded than as it stands: same_raw_type()). */
static int single_part(struct decode *d, const char *raw, size_t len)
{
	struct single_fields f;
	size_t blank, body;
	char *type, *encoding, *disposition;
	GMimeContentType *ct;
	GMimeContentDisposition *cd = NULL;
	GMimeContentEncoding enc = GMIME_CONTENT_ENCODING_DEFAULT;
	GMimeStream *in;
	GMimeDataWrapper *wrapper;
	GByteArray *array, *bytes = NULL;
	const char *filename;

	memset(&f, 0, sizeof(f));
	f.current = SF_OTHER;
	if (!(blank = plain_header(raw, len, note_single_line, &f)))
		return 0;
	body = blank + (raw[blank] == '\r' ? 2 : 1);
	type = single_value(&f, SF_TYPE);
	ct = content_type_of(type);
	g_free(type);
	if (type_is(ct, "multipart", "*") || type_is(ct, "message", "*") || !same_raw_type(&f, ct)) {
		g_object_unref(ct);
		return 0;
	}
	if (leaf_without_content(d, ct)) {
		g_object_unref(ct);
		return 1;
	}
	if ((encoding = single_value(&f, SF_ENCODING))) {
		enc = g_mime_content_encoding_from_string(g_strstrip(encoding));
		g_free(encoding);
	}
	if ((disposition = single_value(&f, SF_DISPOSITION))) {
		cd = g_mime_content_disposition_parse(inmail_parser_options(), disposition);
		g_free(disposition);
	}
	filename = cd ? g_mime_content_disposition_get_parameter(cd, "filename") : NULL;
	if (!filename)
		filename = g_mime_content_type_get_parameter(ct, "name");
	if (!leaf_wanted(d, ct, cd ? g_mime_content_disposition_get_disposition(cd) : NULL, filename))
		goto done;   /* its content is not decoded */
	/* the content decoded as part_bytes() decodes it: a data wrapper
	 * copies it as it stands but for these three encodings */
	if (enc == GMIME_CONTENT_ENCODING_BASE64 || enc == GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE) {
		bytes = decoded_bytes(raw + body, len - body, enc);
	} else if (enc == GMIME_CONTENT_ENCODING_UUENCODE) {
		/* (the wrapper's filter looks for the "begin" line first) */
		in = stream_over(raw + body, len - body, &array);
		wrapper = g_mime_data_wrapper_new_with_stream(in, enc);
		bytes = wrapper_bytes(wrapper, (gint64)(len - body));
		g_object_unref(wrapper);
		stream_done(in, array);
	}
	/* (content as it stands is read where it is: not copied first) */
	leaf_content(d, ct, cd ? g_mime_content_disposition_get_disposition(cd) : NULL, filename,
		     bytes ? bytes->data : (const guint8 *)raw + body,
		     bytes ? bytes->len : len - body, bytes);
done:
	if (cd)
		g_object_unref(cd);
	g_object_unref(ct);
	return 1;
}

/* inmail_decode() of what want says (WANT_*) into b; single: a mail that
 * is one leaf part is decoded by single_part(). */
static enum bb_status decode_mail(const char *raw, size_t len, struct inmail_body *b, int single,
				  unsigned want, struct bb_error *err)
{
	struct decode d;
	GByteArray *array = NULL;
	GMimeStream *stream = NULL;
	GMimeParser *parser = NULL;
	GMimeObject *top = NULL;
	GMimeMessage *msg = NULL;
	struct buf copy = BUF_INIT;
	size_t skip;

	memset(b, 0, sizeof(*b));
	memset(&d, 0, sizeof(d));
	d.want = want;
	d.b = b;
	d.err = err;
	buf_init(&d.text);
	buf_init(&d.html);
	buf_init(&d.named_html);
	if (len > INMAIL_RAW_MAX) {
		d.st = bb_error_set(err, BB_ERR_TOO_LARGE, "mail is larger than %d bytes",
				    INMAIL_RAW_MAX);
		goto out;
	}
	inmail_parser_options();
	skip = inmail_skip_from_line(raw, len);
	if (header_section_too_large(raw + skip, len - skip)) {
		d.st = bb_error_set(err, BB_ERR_TOO_LARGE,
				    "mail header section is larger than %d bytes", INMAIL_HEADER_MAX);
		goto out;
	}
	if (single && single_part(&d, raw + skip, len - skip))
		goto decoded;
	/* Only the Content- fields matter here: the top part is parsed as a
	 * part, so GMime builds no message and does not parse every address
	 * of its To: and Cc: (there may be hundreds).  What its part parser
	 * does not take (a header section that starts with a second "From "
	 * line) goes through its message parser, as all mail once did. */
	stream = structure_stream(raw + skip, len - skip, &copy, &array);
	parser = parser_over(stream, GMIME_FORMAT_MESSAGE);
	if (!(top = g_mime_parser_construct_part(parser, inmail_parser_options()))) {
		g_object_unref(parser);
		stream_done(stream, array);
		stream = stream_over(raw + skip, len - skip, &array);
		parser = parser_over(stream, GMIME_FORMAT_MESSAGE);
		if (!(msg = g_mime_parser_construct_message(parser, inmail_parser_options()))) {
			d.st = bb_error_set(err, BB_ERR_INVALID,
					    "not a mail: GMime found no message");
			goto out;
		}
	}
	decode_walk(&d, top ? top : g_mime_message_get_mime_part(msg), 0);
decoded:
	if (d.st != BB_OK)
		goto out;
	b->text_only = !(want & WANT_ATTACHMENTS);
	if (!(want & WANT_TEXT))
		goto out;   /* (no text: b->text stays NULL) */
	if (d.text.len == 0 && d.html.len == 0 && d.named_html.len) {
		/* HTML-only mail whose HTML is a named part (kept as attachment too) */
		struct buf swap = d.html;

		d.html = d.named_html;
		d.named_html = swap;
	}
	if (d.text.len == 0 && d.html.len) {
		/* HTML text nodes may hold any character: clean as any body */
		char *valid = g_utf8_make_valid(d.html.data, (gssize)d.html.len);

		b->from_html = 1;
		if (add_body_text(&d.text, valid, strlen(valid)) != BB_OK) {
			g_free(valid);
			decode_fail(&d, BB_ERR_NOMEM, "text");
			goto out;
		}
		g_free(valid);
	}
	b->text = buf_detach(&d.text, &b->text_len);
out:
	if (top)
		g_object_unref(top);
	if (msg)
		g_object_unref(msg);
	if (parser)
		g_object_unref(parser);
	if (stream)
		stream_done(stream, array);
	buf_release(&copy);
	buf_release(&d.text);
	buf_release(&d.html);
	buf_release(&d.named_html);
	if (d.st != BB_OK)
		inmail_body_release(b);
	return d.st;
}

enum bb_status inmail_decode(const char *raw, size_t len, struct inmail_body *b,
			     struct bb_error *err)
{
	return decode_mail(raw, len, b, 1, WANT_ALL, err);
}

enum bb_status inmail_decode_text(const char *raw, size_t len, struct inmail_body *b,
				  struct bb_error *err)
{
	return decode_mail(raw, len, b, 1, WANT_TEXT, err);
}

enum bb_status inmail_decode_attachments(const char *raw, size_t len, struct inmail_body *b,
					 struct bb_error *err)
{
	struct inmail_body rest;
	enum bb_status st;

	if (!b->text_only)
		return BB_OK;   /* read already */
	/* the same walk, over the leaves the text left; what it finds of
	 * the mail's shape (encrypted, skipped parts) the text's walk found */
	if ((st = decode_mail(raw, len, &rest, 1, WANT_ATTACHMENTS, err)) != BB_OK)
		return st;
	b->parts = rest.parts;
	b->nparts = rest.nparts;
	b->text_only = 0;
	return BB_OK;
}

enum bb_status inmail_decode_parsed(const char *raw, size_t len, struct inmail_body *b,
				    struct bb_error *err)
{
	return decode_mail(raw, len, b, 0, WANT_ALL, err);
}

int inmail_body_same(const struct inmail_body *a, const struct inmail_body *b)
{
	if (a->text_len != b->text_len || memcmp(a->text, b->text, a->text_len) ||
	    a->from_html != b->from_html || a->encrypted != b->encrypted ||
	    a->skipped_parts != b->skipped_parts || a->nparts != b->nparts)
		return 0;
	for (size_t i = 0; i < a->nparts; i++) {
		const struct inmail_part *p = &a->parts[i], *q = &b->parts[i];

		if (g_strcmp0(p->filename, q->filename) || g_strcmp0(p->content_type, q->content_type) ||
		    p->len != q->len || memcmp(p->data, q->data, p->len))
			return 0;
	}
	return 1;
}

/* --- mbox ------------------------------------------------------------------ */

enum bb_status inmail_mbox_split(const char *data, size_t len,
				 enum bb_status (*fn)(void *ctx, const char *raw, size_t len),
				 void *ctx, struct bb_error *err)
{
	GByteArray *array;
	GMimeStream *stream;
	GMimeParser *parser;
	GArray *starts = g_array_new(FALSE, FALSE, sizeof(gint64));
	GArray *markers = g_array_new(FALSE, FALSE, sizeof(gint64));
	enum bb_status st = BB_OK;

	if (len > INMAIL_RAW_MAX) {
		st = bb_error_set(err, BB_ERR_TOO_LARGE, "mbox is larger than %d bytes", INMAIL_RAW_MAX);
		goto out_arrays;
	}
	inmail_parser_options();
	stream = stream_over(data, len, &array);
	parser = parser_over(stream, GMIME_FORMAT_MBOX);
	while (!g_mime_parser_eos(parser)) {
		GMimeMessage *msg = g_mime_parser_construct_message(parser, inmail_parser_options());
		gint64 start, marker;

		if (!msg)
			break;
		start = g_mime_parser_get_headers_begin(parser);
		marker = g_mime_parser_get_mbox_marker_offset(parser);
		g_object_unref(msg);
		if (start < 0 || marker < 0 || (size_t)start > len)
			continue;
		g_array_append_val(starts, start);
		g_array_append_val(markers, marker);
	}
	g_object_unref(parser);
	stream_done(stream, array);
	if (starts->len == 0) {
		st = bb_error_set(err, BB_ERR_INVALID, "not an mbox: no \"From \" line");
		goto out_arrays;
	}
	for (guint i = 0; i < starts->len && st == BB_OK; i++) {
		size_t start = (size_t)g_array_index(starts, gint64, i);
		size_t end = i + 1 < starts->len ? (size_t)g_array_index(markers, gint64, i + 1) : len;

		if (end > len || end < start)
			end = len;
		/* the empty line that separates messages belongs to neither */
		if (i + 1 < starts->len && end > start && data[end - 1] == '\n')
			end--;
		if (end > start && data[end - 1] == '\r')
			end--;
		st = fn(ctx, data + start, end - start);
		if (st != BB_OK && err && err->code == BB_OK)
			bb_error_set(err, st, "mbox message %u: stopped by the caller", i + 1);
	}
out_arrays:
	g_array_free(starts, TRUE);
	g_array_free(markers, TRUE);
	return st;
}
