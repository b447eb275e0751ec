/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lines of a decoded list mail (see inmail_lines.h): what each is (text,
 * quote, patch, signature), and the reply text without what it quotes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/buf.h"
#include "mail/inmail_lines.h"
#include "mail/inmail_text.h"

/* --- line classification ------------------------------------------------- */

void inmail_lines_init(struct inmail_lines *it, const char *text, size_t len)
{
	memset(it, 0, sizeof(*it));
	it->pos = text;
	it->end = text + len;
}

/* Parses "@@ -a[,b] +c[,d] @@" into the line counts b and d. */
static int hunk_header(const char *s, size_t len, long *old_count, long *new_count)
{
	const char *p = s + 4, *end = s + len;
	long counts[2] = { 1, 1 };

	if (len < 4 || memcmp(s, "@@ -", 4) != 0)
		return 0;
	for (int side = 0; side < 2; side++) {
		long v = 0;
		int digits = 0;

		if (side == 1) {
			if (end - p < 2 || p[0] != ' ' || p[1] != '+')
				return 0;
			p += 2;
		}
		while (p < end && *p >= '0' && *p <= '9' && digits < 9) {
			p++;
			digits++;
		}
		if (!digits)
			return 0;
		if (p < end && *p == ',') {
			digits = 0;
			for (p++; p < end && *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
				v = v * 10 + (*p - '0');
			if (!digits)
				return 0;
			counts[side] = v;
		}
	}
	if (end - p < 3 || memcmp(p, " @@", 3) != 0)
		return 0;
	*old_count = counts[0];
	*new_count = counts[1];
	return 1;
}

static int line_is_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!is_blank(s[i]))
			return 0;
	return 1;
}

/* The words of a line between rules of '-' or '_' ("-----Original
 * Message-----"): *s and *len cut to them; returns how many such marks
 * were cut. */
static size_t marker_words(const char **s, size_t *len)
{
	size_t marks = 0;

	while (*len && (is_blank(**s) || **s == '-' || **s == '_')) {
		marks += !is_blank(**s);
		(*s)++;
		(*len)--;
	}
	while (*len && (is_blank((*s)[*len - 1]) || (*s)[*len - 1] == '-' || (*s)[*len - 1] == '_')) {
		marks += !is_blank((*s)[*len - 1]);
		(*len)--;
	}
	return marks;
}

/* Outlook's names of the fields above a quoted or forwarded mail (also in
 * German, French, Spanish). */
static const char *const outlook_from[] = { "from:", "von:", "de:", "de :", NULL };
static const char *const outlook_sent[] = { "sent:", "gesendet:", "envoy\xc3\xa9 :", "envoy\xc3\xa9:",
					   "enviado el:", "enviado:", NULL };

static int starts_with_any(const char *s, size_t len, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (has_prefix_ci(s, len, names[i]))
			return 1;
	return 0;
}

/* The line after the current one that is not blank starts with one of
 * names (any case). */
static int next_starts(const struct inmail_lines *it, const char *const *names)
{
	const char *p = it->pos;

	while (p < it->end) {
		const char *nl = memchr(p, '\n', (size_t)(it->end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(it->end - p);

		if (!line_is_blank(p, len))
			return starts_with_any(p, len, names);
		p = nl ? nl + 1 : it->end;
	}
	return 0;
}

/* A line of its own that says the rest of the body is another mail, not
 * the writer's words, where mailers do not put '>' before its lines:
 *   INMAIL_LINE_QUOTE      a top-post's quote: "-----Original Message-----"
 *                          (and "-------- Original Message --------"), or
 *                          Outlook's rule of underscores followed by "From:",
 *                          or its "From:" line followed by "Sent:" (desktop
 *                          Outlook, and the text of its HTML)
 *   INMAIL_LINE_FORWARDED  a forwarded mail: Gmail's "---------- Forwarded
 *                          message ---------", Thunderbird's "--------
 *                          Forwarded Message --------", Apple Mail's
 *                          "Begin forwarded message:"
 * INMAIL_LINE_TEXT when it is no such line. */
static enum inmail_line_kind other_mail_marker(const struct inmail_lines *it, const char *s,
					       size_t len)
{
	size_t marks;

	/* each starts with a rule's '-' or '_', a blank, or the first letter
	 * of a word below: most lines of text are passed over on that */
	if (!len || !strchr("-_ \tfFvVdDoObB", s[0]))
		return INMAIL_LINE_TEXT;
	if (starts_with_any(s, len, outlook_from) && next_starts(it, outlook_sent))
		return INMAIL_LINE_QUOTE;
	marks = marker_words(&s, &len);

	if (equals_ci(s, len, "original message"))
		return INMAIL_LINE_QUOTE;
	if ((marks && equals_ci(s, len, "forwarded message")) ||
	    (!marks && equals_ci(s, len, "begin forwarded message:")))
		return INMAIL_LINE_FORWARDED;
	/* Outlook: 32 underscores, then the quoted mail's header fields */
	if (len == 0 && marks >= 10 && next_starts(it, outlook_from))
		return INMAIL_LINE_QUOTE;
	return INMAIL_LINE_TEXT;
}

static int diff_start(const char *s, size_t len)
{
	return has_prefix_ci(s, len, "diff --git ") || (len > 6 && !memcmp(s, "diff -", 6)) ||
		(len > 7 && !memcmp(s, "Index: ", 7));
}

static enum inmail_line_kind classify(struct inmail_lines *it, const char *s, size_t len)
{
	enum inmail_line_kind other;

	if (it->in_signature) {
		/* a mail forwarded below the writer's signature is no more
		 * theirs than one above it */
		if (!it->in_original &&
		    (other = other_mail_marker(it, s, len)) != INMAIL_LINE_TEXT)
			it->in_original = (int)other;
		return it->in_original ? (enum inmail_line_kind)it->in_original
				       : INMAIL_LINE_SIGNATURE;
	}
	if (it->old_left > 0 || it->new_left > 0) {
		char c = len ? s[0] : ' ';  /* mailers strip a context line's blank */

		if (c == ' ' && it->old_left > 0 && it->new_left > 0) {
			it->old_left--;
			it->new_left--;
			return INMAIL_LINE_PATCH;
		}
		if (c == '-' && it->old_left > 0) {
			it->old_left--;
			return INMAIL_LINE_PATCH;
		}
		if (c == '+' && it->new_left > 0) {
			it->new_left--;
			return INMAIL_LINE_PATCH;
		}
		if (c == '\\')
			return INMAIL_LINE_PATCH;
		it->old_left = it->new_left = 0;   /* a cut-off hunk */
	}
	if (hunk_header(s, len, &it->old_left, &it->new_left)) {
		it->in_diff = 0;
		it->after_patch = 1;
		return INMAIL_LINE_PATCH;
	}
	if (it->after_patch && len > 1 && s[0] == '\\')  /* "\ No newline at end of file" */
		return INMAIL_LINE_PATCH;
	if (it->in_diff) {
		if (!line_is_blank(s, len))
			return INMAIL_LINE_PATCH;
		it->in_diff = 0;
	}
	if (diff_start(s, len) ||
	    (len > 4 && !memcmp(s, "--- ", 4) && it->end - it->pos > 4 && !memcmp(it->pos, "+++ ", 4))) {
		it->in_diff = 1;
		it->after_patch = 1;
		return INMAIL_LINE_PATCH;
	}
	if (it->after_patch && (has_prefix_ci(s, len, "literal ") || has_prefix_ci(s, len, "delta "))) {
		it->in_diff = 1;   /* the second block of a GIT binary patch */
		return INMAIL_LINE_PATCH;
	}
	it->after_patch = 0;
	if (it->in_original)
		return (enum inmail_line_kind)it->in_original;
	if (line_is_blank(s, len))
		return INMAIL_LINE_BLANK;
	if (s[0] == '>')
		return INMAIL_LINE_QUOTE;
	if ((len == 3 && !memcmp(s, "-- ", 3)) || (len == 2 && !memcmp(s, "--", 2))) {
		it->in_signature = 1;
		return INMAIL_LINE_SIGNATURE;
	}
	if ((other = other_mail_marker(it, s, len)) != INMAIL_LINE_TEXT) {
		it->in_original = (int)other;
		return other;
	}
	return INMAIL_LINE_TEXT;
}

int inmail_lines_next(struct inmail_lines *it, const char **line, size_t *len,
		      enum inmail_line_kind *kind)
{
	const char *nl;
	size_t n;

	if (it->pos >= it->end)
		return 0;
	*line = it->pos;
	nl = memchr(it->pos, '\n', (size_t)(it->end - it->pos));
	n = nl ? (size_t)(nl - it->pos) : (size_t)(it->end - it->pos);
	it->pos = nl ? nl + 1 : it->end;
	if (n && (*line)[n - 1] == '\r')
		n--;
	*len = n;
	it->lineno++;
	*kind = classify(it, *line, n);
	return 1;
}

/* --- reply text ---------------------------------------------------------- */

struct line {
	const char *s;
	size_t len;
	enum inmail_line_kind kind;
	int keep;
	int cut_before;  /* quoted lines before this one were cut: "> [...]" */
};

/* "On Mon, 1 Jan 2024, Jane Doe wrote:" and its relatives. */
static int attribution(const char *s, size_t len)
{
	static const char *const endings[] = {
		"wrote:", "writes:", "said:", "schrieb:", "a écrit :", "a écrit:", "escribió:",
		"scrisse:", "napisał:", NULL
	};

	while (len && is_blank(s[len - 1]))
		len--;
	for (int i = 0; endings[i]; i++) {
		size_t n = strlen(endings[i]);

		if (len >= n && !g_ascii_strncasecmp(s + len - n, endings[i], n))
			return 1;
	}
	return 0;
}

static int quote_has_text(const struct line *l)
{
	for (size_t i = 0; i < l->len; i++)
		if (l->s[i] != '>' && !is_blank(l->s[i]))
			return 1;
	return 0;
}

/* Drops the attribution line(s) before the quote block starting at i. */
static void drop_attribution(struct line *lines, size_t i)
{
	size_t j = i;

	while (j > 0 && lines[j - 1].kind == INMAIL_LINE_BLANK)
		j--;
	if (j == 0 || lines[j - 1].kind != INMAIL_LINE_TEXT ||
	    !attribution(lines[j - 1].s, lines[j - 1].len))
		return;
	lines[j - 1].keep = 0;
	/* "On Mon, ... Jane Doe <jane@\nexample.org> wrote:" */
	if (j >= 2 && lines[j - 2].kind == INMAIL_LINE_TEXT &&
	    !has_prefix_ci(lines[j - 1].s, lines[j - 1].len, "On ") &&
	    (has_prefix_ci(lines[j - 2].s, lines[j - 2].len, "On ") ||
	     has_prefix_ci(lines[j - 2].s, lines[j - 2].len, "Am ") ||
	     has_prefix_ci(lines[j - 2].s, lines[j - 2].len, "Le ")))
		lines[j - 2].keep = 0;
}

char *inmail_reply_text(const char *body)
{
	struct inmail_lines it;
	struct line *lines = NULL;
	size_t n = 0, alloc = 0, i;
	struct buf out = BUF_INIT;
	const char *s;
	size_t len;
	enum inmail_line_kind kind;
	int blank_pending = 0, ok = 1;

	inmail_lines_init(&it, body, strlen(body));
	while (inmail_lines_next(&it, &s, &len, &kind)) {
		if (n == alloc) {
			size_t na = alloc ? alloc * 2 : 64;
			struct line *nl = realloc(lines, na * sizeof(*nl));

			if (!nl) {
				free(lines);
				return NULL;
			}
			lines = nl;
			alloc = na;
		}
		lines[n].s = s;
		lines[n].len = len;
		/* a forwarded mail is kept as it is, its blank lines collapsed */
		lines[n].kind = kind == INMAIL_LINE_FORWARDED && line_is_blank(s, len)
				? INMAIL_LINE_BLANK : kind;
		lines[n].keep = kind != INMAIL_LINE_SIGNATURE;
		lines[n].cut_before = 0;
		n++;
	}
	for (i = 0; i < n;) {
		size_t start = i, end, after, k, kept = 0;

		if (lines[i].kind != INMAIL_LINE_QUOTE) {
			i++;
			continue;
		}
		/* the block: quoted lines, with blank lines between them */
		end = i;
		for (k = i; k < n; k++) {
			if (lines[k].kind == INMAIL_LINE_QUOTE)
				end = k + 1;
			else if (lines[k].kind != INMAIL_LINE_BLANK)
				break;
		}
		for (after = end; after < n && lines[after].kind == INMAIL_LINE_BLANK; after++)
			;
		if (after >= n || lines[after].kind == INMAIL_LINE_SIGNATURE) {
			for (k = start; k < end; k++)
				lines[k].keep = 0;
			drop_attribution(lines, start);
		} else {
			/* keep from the INMAIL_QUOTE_CONTEXT-th last quoted line
			 * with text; say so if lines with text went */
			size_t first = end;
			int cut = 0;

			for (k = end; k > start && kept < INMAIL_QUOTE_CONTEXT; k--)
				if (lines[k - 1].kind == INMAIL_LINE_QUOTE && quote_has_text(&lines[k - 1])) {
					kept++;
					first = k - 1;
				}
			for (k = start; k < first; k++) {
				if (lines[k].kind == INMAIL_LINE_QUOTE && quote_has_text(&lines[k]))
					cut = 1;
				lines[k].keep = 0;
			}
			if (cut && first < end)
				lines[first].cut_before = 1;
		}
		i = end;
	}
	for (i = 0; i < n && ok; i++) {
		if (!lines[i].keep)
			continue;
		if (lines[i].kind == INMAIL_LINE_BLANK) {
			blank_pending = 1;
			continue;
		}
		if (blank_pending && out.len)
			ok = buf_addch(&out, '\n') == BB_OK;
		blank_pending = 0;
		if (lines[i].cut_before)
			ok = ok && buf_addstr(&out, "> [...]\n") == BB_OK;
		ok = ok && buf_add(&out, lines[i].s, lines[i].len) == BB_OK &&
			buf_addch(&out, '\n') == BB_OK;
	}
	free(lines);
	if (!ok) {
		buf_release(&out);
		return NULL;
	}
	return buf_detach(&out, NULL);
}

/* --- patches --------------------------------------------------------------- */

int inmail_has_hunk(const char *text, size_t len)
{
	struct inmail_lines it;
	const char *s;
	size_t n;
	enum inmail_line_kind kind;
	long o, nw;

	inmail_lines_init(&it, text, len);
	while (inmail_lines_next(&it, &s, &n, &kind))
		if (kind == INMAIL_LINE_PATCH && hunk_header(s, n, &o, &nw))
			return 1;
	return 0;
}
