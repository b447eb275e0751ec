/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The raw scan of list mail (see inmail_scan.h): what a mail's bytes say
 * before any decode -- a line that may be a command, a directive or a
 * trailer, content only a decode can read (base64, HTML, charsets in which
 * ASCII is not itself), multipart -- so that the full decode runs only for
 * mail that may need it. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <gmime/gmime.h>

#include "core/text.h"
#include "mail/inmail.h"
#include "mail/inmail_nl.h"
#include "mail/inmail_scan.h"
#include "mail/inmail_text.h"

/* --- raw scan ------------------------------------------------------------ */

/* Charset names in which ASCII text is not written as ASCII bytes, in a
 * Content-Type line after its "charset" (charset=, charset*= or
 * charset*0*= of RFC 2231: a name before it is some other parameter's). */
int inmail_opaque_charset(const char *line, size_t len)
{
	/* with their lengths: "charset=utf-8" was compared with the six
	 * utf names, each measured anew (a fifth of this function's cost) */
#define NAME(lit) { lit, sizeof(lit) - 1 }
	static const struct {
		const char *name;
		size_t len;
	} names[] = {
		NAME("utf-16"), NAME("utf16"), NAME("utf-32"), NAME("utf32"), NAME("ucs-2"),
		NAME("ucs2"), NAME("ucs-4"), NAME("ucs4"), NAME("utf-7"), NAME("utf7"),
		NAME("iso-2022"), NAME("hz-gb"), NAME("ebcdic"), NAME("ibm037"), NAME("cp037"),
	};
#undef NAME
	const char *cs = text_find_ci(line, len, "charset");

	if (!cs)
		return 0;
	len -= (size_t)(cs + 7 - line);
	line = cs + 7;
	for (size_t i = 0; i + 1 < len; i++) {
		int c = ascii_lower((unsigned char)line[i]), d;

		if (c != 'u' && c != 'i' && c != 'h' && c != 'e' && c != 'c')
			continue;
		/* the names' first two letters: ut uc is ib hz eb cp */
		d = ascii_lower((unsigned char)line[i + 1]);
		if (!(c == 'u' ? d == 't' || d == 'c' : c == 'i' ? d == 's' || d == 'b' :
		      c == 'h' ? d == 'z' : c == 'e' ? d == 'b' : d == 'p'))
			continue;
		for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++)
			if (names[n].name[0] == c && names[n].len <= len - i &&
			    same_ci(line + i, names[n].name, names[n].len))
				return 1;
	}
	return 0;
}

/* A Content-Transfer-Encoding value a raw scan cannot see through. */
int inmail_opaque_encoding(const char *v, size_t len)
{
	while (len && is_blank(*v)) {
		v++;
		len--;
	}
	while (len && (is_blank(v[len - 1]) || v[len - 1] == '\r'))
		len--;
	if (len == 0)
		return 1;   /* folded onto the next line: assume the worst */
	/* quoted-printable is seen through: a line that may be a keyword
	 * written in it is read decoded (qp_line_flags()) */
	return !(has_prefix_ci(v, len, "7bit") || has_prefix_ci(v, len, "8bit") ||
		 has_prefix_ci(v, len, "binary") || has_prefix_ci(v, len, "quoted-printable"));
}

/* A Content-Type value whose part can never add to the body text: what
 * inmail_decode() takes as text is text/ parts (and the parts of message/
 * and multipart/ ones, which have headers of their own). */
int inmail_binary_type(const char *v, size_t len)
{
	static const char *const types[] = { "application/", "image/", "audio/", "video/",
					     "font/", "model/", NULL };

	while (len && is_blank(*v)) {
		v++;
		len--;
	}
	for (int i = 0; types[i]; i++)
		if (has_prefix_ci(v, len, types[i]))
			return 1;
	return 0;
}

/* RFC 2045's token characters (of a type, a subtype, a disposition). */
static int token_char(unsigned char c)
{
	return c > 0x20 && c < 0x7f && !strchr("()<>@,;:\\\"/[]?=", c);
}

/* The length of the token at v (n bytes), 0 if none. */
static size_t token_len(const char *v, size_t n)
{
	size_t i = 0;

	while (i < n && token_char((unsigned char)v[i]))
		i++;
	return i;
}

/* 1 if the len bytes at v (n bytes up to the line's end) are followed by
 * nothing but blanks, or by blanks and a ';' */
static int token_then_end(const char *v, size_t n, size_t len)
{
	while (len < n && is_blank(v[len]))
		len++;
	return len == n || v[len] == ';' || (v[len] == '\r' && len + 1 == n);
}

/* A Content-Type line's value (v, n bytes to the line's end) that names,
 * plainly, a type inmail_decode() never takes text from: "type/subtype"
 * then nothing or ';', neither a text type it reads (text/plain,
 * text/x-patch, text/x-diff, text/html) nor message/ or multipart/ (parts
 * with headers of their own).  Anything else -- a folded value, a comment,
 * junk after the subtype -- may be such a text type for GMime: 0. */
static int type_holds_no_text(const char *v, size_t n)
{
	static const char *const texts[] = { "text/plain", "text/x-patch", "text/x-diff",
					     "text/html", NULL };
	size_t type, sub;

	while (n && is_blank(*v)) {
		v++;
		n--;
	}
	type = token_len(v, n);
	if (!type || type == n || v[type] != '/')
		return 0;
	sub = token_len(v + type + 1, n - type - 1);
	if (!sub || !token_then_end(v, n, type + 1 + sub))
		return 0;
	if (has_prefix_ci(v, n, "message/") || has_prefix_ci(v, n, "multipart/"))
		return 0;
	for (int i = 0; texts[i]; i++)
		if (type + 1 + sub == strlen(texts[i]) && has_prefix_ci(v, n, texts[i]))
			return 0;
	return 1;
}

/* A Content-Disposition line's value that is plainly "attachment": a part
 * so marked never adds to the body text (inmail_decode() keeps it as an
 * attachment). */
static int disposition_attachment(const char *v, size_t n)
{
	size_t len;

	while (n && is_blank(*v)) {
		v++;
		n--;
	}
	len = token_len(v, n);
	return len == 10 && same_ci(v, "attachment", 10) && token_then_end(v, n, len);
}

/* Where the value of a line (n bytes) that is a field name starts, if it
 * is that field (any case; blanks before the colon, as MIME parsers take
 * them); 0 if it is not. */
static size_t field_value_at(const char *line, size_t n, const char *name)
{
	size_t len = strlen(name);

	if (!has_prefix_ci(line, n, name))
		return 0;
	while (len < n && is_blank(line[len]))
		len++;
	return len < n && line[len] == ':' ? len + 1 : 0;
}

/* What one run of lines without a blank one (a part's header section, or
 * lines that look like one) says of the part it may head. */
struct scan_run {
	int lines;        /* 1: it has lines */
	int folded;       /* 1: a line starts with a blank (a field's next line) */
	int opaque;       /* a transfer encoding that hides text */
	int typed;        /* Content-Type lines */
	int texty;        /* one that may name a type read as text */
	int plain;        /* one that is plainly text/plain, with no name */
	int html;         /* one that is plainly text/html */
	int dispositions; /* Content-Disposition lines */
	int attached;     /* one that is plainly "attachment" */
};

/* A run that heads a part inmail_decode() reads as body text as it is
 * (no transfer encoding that hides it): its one type is plainly
 * text/plain, with no file name in it or in a disposition, and no field
 * goes on to a next line (where a name may be). */
static int run_heads_plain_text(const struct scan_run *r)
{
	return r->typed == 1 && r->plain && !r->opaque && r->dispositions == 0 && !r->folded;
}

/* A Content-Type line's value (v, n bytes) that is plainly "text/plain",
 * then nothing or parameters, none of them a file's "name". */
static int type_plain_unnamed(const char *v, size_t n)
{
	return has_prefix_ci(v, n, "text/plain") && token_then_end(v, n, 10) &&
	       !text_find_ci(v + 10, n - 10, "name");
}

/* What the body text of a mail with an HTML part needs: HTML is read
 * (inmail_decode()) only when no text/plain part adds text to the body,
 * and its text can hide a keyword from a line-by-line look (a tag before
 * it on the line).  So an HTML part leaves the scan's other flags true
 * when a text/plain part with a letter in it is seen, read as it is: the
 * HTML is then never read.  A message/ part (a forwarded mail) has its
 * text kept as an attachment, not read: a text/plain part may be in one,
 * so with one the HTML counts as opaque all the same. */
struct scan_html {
	int html;     /* a text/html part */
	int pending;  /* a text/plain part's header ended: its text follows */
	int plain;    /* a text/plain part with a letter in its text */
	int message;  /* a message/ part */
};

static int has_letter(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))
			return 1;
	return 0;
}

/* Ends a run: an opaque transfer encoding hides text unless the part is
 * plainly one whose text is never read -- its one disposition is
 * "attachment", or it has types and each is plainly not a text type. */
static unsigned scan_run_end(struct scan_run *r)
{
	int no_text = (r->dispositions == 1 && r->attached) || (r->typed && !r->texty);
	unsigned flags = r->opaque && !no_text ? INMAIL_SCAN_OPAQUE : 0;

	memset(r, 0, sizeof(*r));
	return flags;
}

/* Ends a run as scan_run_end() does, where the line that ends it is a
 * blank one (else one that starts with "--", or the end): an HTML part's
 * transfer encoding hides only HTML, whose text counts as scan_html
 * says. */
static inline unsigned html_run_end(struct scan_run *r, struct scan_html *h, int blank)
{
	if (!blank)
		h->pending = 0;   /* a boundary (or what may be one) */
	else if (r->lines)
		h->pending = run_heads_plain_text(r);
	if (r->opaque && r->typed == 1 && r->html) {
		h->html = 1;
		r->opaque = 0;
	}
	return scan_run_end(r);
}

/* A byte the decoded text drops (inmail_decode(): controls but tab, line
 * feed and carriage return, and DEL). */
static int dropped(unsigned char c)
{
	return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
}

/* 1 if s (n bytes) starts with word, ignoring ASCII case and the bytes the
 * decoded text drops (so "#bug\x01bridge" is "#bugbridge" there too). */
static int has_prefix_text(const char *s, size_t n, const char *word)
{
	size_t i = 0;

	for (; *word; word++) {
		while (i < n && dropped((unsigned char)s[i]))
			i++;
		if (i >= n || ascii_lower((unsigned char)s[i]) != *word)
			return 0;
		i++;
	}
	return 1;
}

/* What a line of text at q (n bytes) says once decoded: a command or a
 * directive after blanks, a trailer at the line's start (col0: q starts
 * the line, no blank before it).  Bytes the decode drops are passed over. */
static unsigned text_line_flags(const char *q, size_t n, int col0)
{
	size_t i = 0;

	while (i < n && (is_blank(q[i]) || dropped((unsigned char)q[i]))) {
		col0 &= !is_blank(q[i]);
		i++;
	}
	q += i;
	n -= i;
	if (has_prefix_text(q, n, "#bugbridge"))
		return INMAIL_SCAN_COMMAND;
	if (has_prefix_text(q, n, "#regzbot"))
		return INMAIL_SCAN_REGZBOT;
	if (col0 && (has_prefix_text(q, n, "link:") || has_prefix_text(q, n, "closes:")))
		return INMAIL_SCAN_TRAILER;
	return 0;
}

/* 1 if the line at q (n bytes) may be a keyword line written in
 * quoted-printable: what comes before its first "=" is the start of a
 * keyword (a line without "=" in a keyword's length is read as it stands). */
static int may_hide_keyword(const char *q, size_t n, int col0)
{
	static const char *const words[] = { "#bugbridge", "#regzbot", "link:", "closes:", NULL };
	const char *eq = memchr(q, '=', n < 16 ? n : 16);
	size_t k = eq ? (size_t)(eq - q) : 0;

	if (!eq)
		return 0;
	for (int i = 0; words[i]; i++)
		if ((col0 || words[i][0] == '#') && k < strlen(words[i]) && same_ci(q, words[i], k))
			return 1;
	return 0;
}

/* Quoted-printable may write any character of a command line as "=XX" and
 * split it with soft line breaks ("=" at a line's end): a logical line
 * (q, to end) that may start so is also read decoded, by GMime's decoder,
 * as far as QP_PEEK bytes.  Blanks that run past them hide the rest:
 * opaque. */
#define QP_PEEK 256

static unsigned qp_line_flags(const char *q, const char *end, int col0)
{
	unsigned char out[QP_PEEK];
	size_t in = 0, n, i = 0;
	int state = 0;
	guint32 save = 0;

	/* the logical line: lines joined by soft breaks, as far as QP_PEEK */
	while (in < QP_PEEK && q + in < end) {
		const char *nl = memchr(q + in, '\n', (size_t)(end - q - in));
		size_t to = nl ? (size_t)(nl - q) : (size_t)(end - q), last = to;

		if (last > in && q[last - 1] == '\r')
			last--;
		in = to + (nl != NULL);
		if (last == 0 || q[last - 1] != '=')
			break;
	}
	if (in > QP_PEEK)
		in = QP_PEEK;

	n = g_mime_encoding_quoted_decode_step((const unsigned char *)q, in, out, &state, &save);
	while (i < n && is_blank(out[i]))
		i++;
	if (in == QP_PEEK && n - i < 16 && !memchr(out + i, '\n', n - i))
		return INMAIL_SCAN_OPAQUE;
	return text_line_flags((const char *)out + i, n - i, col0 && i == 0);
}

/* The first bytes of a line that the scan has nothing to look at beyond
 * marking the run and the HTML's text (plain_line[]): none of a blank, a
 * line end, '#' (a keyword), '=' (a keyword in quoted-printable), '-' (a
 * boundary), C/c (a Content- field, "Closes:"), L/l ("Link:"), 'b'
 * ("begin", uuencoded) or a byte the decoded text drops (a keyword after
 * it).  Most lines of a list's mail (text, a patch's lines, quotes)
 * start so. */
static unsigned char plain_line[256];

/* The same for the first byte after a line's leading blanks: a keyword
 * ('#', '=') may follow blanks, a boundary, a Content- field, a trailer
 * or "begin" may not (nor may a blank line end there: '\r', '\n'). */
static unsigned char indented_line[256];

static void plain_line_init(void)
{
	for (int c = 0; c < 256; c++) {
		plain_line[c] = !dropped((unsigned char)c) && !strchr(" \t\r\n#=-CcLlb", c);
		indented_line[c] = !dropped((unsigned char)c) && !strchr(" \t\r\n#=", c);
	}
}

static pthread_once_t plain_line_once = PTHREAD_ONCE_INIT;

/* 1 if the line before the one at p ends in a quoted-printable soft break:
 * '=' last, before an optional CR (start: where the scan started, before
 * which nothing is read). */
static int soft_break_before(const char *start, const char *p)
{
	const char *e = p - 1;   /* that line's line end */

	if (p <= start)
		return 0;
	if (e > start && e[-1] == '\r')
		e--;
	return e > start && e[-1] == '=';
}

/* The raw scan of the lines from p to end.  A header section (the mail's,
 * or a part's after its boundary line) is a run of lines without a blank
 * one; a line starting "--" (a boundary) ends a run too, so that lines of
 * the part before it are never taken for the next part's. */
static unsigned scan_lines(const char *p, const char *end)
{
	unsigned flags = 0;
	struct scan_run run;
	struct scan_html html;
	const char *start = p;
	struct nl_finder lines;
	size_t at;

	pthread_once(&plain_line_once, plain_line_init);
	memset(&run, 0, sizeof(run));
	memset(&html, 0, sizeof(html));
	nl_finder_init(&lines, p, end);
	while (p < end) {
		const char *nl = nl_finder_next(&lines);
		const char *line_end = nl ? nl : end, *q = p;
		size_t n;

		if (plain_line[(unsigned char)*p]) {
			/* what the lines below do for it, and no more */
			run.lines = 1;
			if (html.pending && has_letter(p, (size_t)(line_end - p))) {
				html.plain = 1;
				html.pending = 0;
			}
			p = nl ? nl + 1 : end;
			/* the plain lines after it in a row (most of a mail's) */
			while (!html.pending && p < end && plain_line[(unsigned char)*p])
				p = (nl = nl_finder_next(&lines)) ? nl + 1 : end;
			continue;
		}
		while (q < line_end && is_blank(*q))
			q++;
		n = (size_t)(line_end - q);
		if (q != p && n && indented_line[(unsigned char)*q]) {
			/* text after blanks (a patch's context lines): what the
			 * lines below do for it, and no more */
			run.lines = 1;
			run.folded = 1;
			if (html.pending && has_letter(q, n)) {
				html.plain = 1;
				html.pending = 0;
			}
			p = nl ? nl + 1 : end;
			continue;
		}
		if (n == 0 || (n == 1 && *q == '\r')) {
			flags |= html_run_end(&run, &html, 1);
		} else if (q == p && n >= 2 && q[0] == '-' && q[1] == '-') {
			flags |= html_run_end(&run, &html, 0);
		} else {
			run.lines = 1;
			if (q != p)
				run.folded = 1;
			if (html.pending && has_letter(q, n)) {
				html.plain = 1;
				html.pending = 0;
			}
		}
		/* as quoted-printable: where a logical line starts with what may
		 * be an encoded or split command, directive or trailer */
		if (n &&
		    (*q == '#' || *q == '=' ||
		     (q == p && (*q == 'L' || *q == 'l' || *q == 'C' || *q == 'c'))) &&
		    !soft_break_before(start, p) && may_hide_keyword(q, n, q == p))
			flags |= qp_line_flags(q, end, q == p);
		switch (n ? *q : '\n') {
		case '#':
			flags |= text_line_flags(q, n, 0);
			break;
		case 'C':
		case 'c':
			if (q != p)
				break;
			if ((at = field_value_at(q, n, "content-transfer-encoding"))) {
				if (inmail_opaque_encoding(q + at, n - at))
					run.opaque = 1;
			} else if ((at = field_value_at(q, n, "content-type"))) {
				const char *v = q + at;
				size_t vn = n - at;

				while (vn && is_blank(*v)) {
					v++;
					vn--;
				}
				if (inmail_opaque_charset(q, n))
					flags |= INMAIL_SCAN_OPAQUE;
				if (has_prefix_ci(v, vn, "text/html")) {
					html.html = 1;
					run.html = token_then_end(v, vn, 9);
				}
				if (has_prefix_ci(v, vn, "message/"))
					html.message = 1;
				if (has_prefix_ci(v, vn, "multipart/"))
					flags |= INMAIL_SCAN_MULTIPART;
				run.typed++;
				if (!type_holds_no_text(v, vn))
					run.texty = 1;
				if (type_plain_unnamed(v, vn))
					run.plain = 1;
			} else if ((at = field_value_at(q, n, "content-disposition"))) {
				run.dispositions++;
				if (disposition_attachment(q + at, n - at))
					run.attached = 1;
			} else {
				flags |= text_line_flags(q, n, 1);   /* Closes: */
			}
			break;
		case 'L':
		case 'l':
			if (q == p)
				flags |= text_line_flags(q, n, 1);
			break;
		case 'b':
			/* uuencoded content: "begin 644 name" */
			if (q == p && n > 10 && !memcmp(q, "begin ", 6) &&
			    q[6] >= '0' && q[6] <= '7' && q[7] >= '0' && q[7] <= '7')
				flags |= INMAIL_SCAN_OPAQUE;
			break;
		default:
			if (n && dropped((unsigned char)*q))
				flags |= text_line_flags(q, n, q == p);
			break;
		}
		p = nl ? nl + 1 : end;
		/* an opaque mail is decoded, whatever else the scan finds: the
		 * rest of it (a base64 attachment, often) is not read */
		if (flags & INMAIL_SCAN_OPAQUE)
			return flags;
	}
	flags |= html_run_end(&run, &html, 0);
	if (html.html && (!html.plain || html.message))
		flags |= INMAIL_SCAN_OPAQUE;
	return flags;
}

unsigned inmail_raw_scan(const char *raw, size_t len)
{
	return scan_lines(raw, raw + len);
}

unsigned inmail_scan(const struct inmail *m, const char *raw, size_t len)
{
	size_t at = m->body_offset < len ? m->body_offset : len;

	if (m->head_scan & INMAIL_SCAN_OPAQUE)
		return m->head_scan;   /* (see scan_lines()) */
	return m->head_scan | scan_lines(raw + at, raw + len);
}
