/* SPDX-License-Identifier: GPL-2.0-or-later */
/* #regzbot directives in list mail (see directive.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/buf.h"
#include "core/text.h"
#include "mail/inmail.h"
#include "tracker/directive.h"

#define KEYWORD "#regzbot"
#define KEYWORD_LEN (sizeof(KEYWORD) - 1)
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
#define COMMIT_MIN 8    /* hex digits that name a commit in a directive */
#define COMMIT_MAX 64   /* a SHA-256 object name */
#define REV_MAX 128     /* longest tag or commit in a range */
/* the whole directive: its keyword, verb and argument */
#define REG_TEXT_MAX (REG_ARG_MAX + REG_VERB_MAX + KEYWORD_LEN + 4)

static const char E_UNKNOWN[] = "unknown command";
static const char E_NO_VERB[] = "no command after #regzbot";
static const char E_CULPRIT[] = "needs a commit (8 or more hex digits) or a range A..B";
static const char E_URL[] = "needs a URL";
static const char E_TEXT[] = "needs a text";
static const char E_FIX[] = "needs the fixing commit's hash or subject";
static const char E_LONG[] = "longer than " STRINGIFY(REG_ARG_MAX) " bytes: cut";
static const char E_MANY[] = "more than " STRINGIFY(REG_DIRECTIVES_MAX)
	" directives in one mail: the rest were not read";

static const struct {
	const char *name;
	enum reg_verb verb;
} verbs[] = {
	/* the canonical name of each verb first: reg_verb_str() returns it */
	{ "introduced", REG_INTRODUCED },
	{ "^introduced", REG_INTRODUCED_PARENT },
	{ "introduced^", REG_INTRODUCED_PARENT },
	{ "^^introduced", REG_INTRODUCED_PARENT }, /* the grandparent: finish() */
	{ "title", REG_TITLE },
	{ "subject", REG_TITLE },
	{ "summary", REG_TITLE },
	{ "from", REG_FROM },
	{ "link", REG_LINK },
	{ "related-brief", REG_LINK },
	{ "monitor", REG_MONITOR },
	{ "related", REG_MONITOR },
	{ "unlink", REG_UNLINK },
	{ "unmonitor", REG_UNLINK },
	{ "unrelated", REG_UNLINK },
	{ "dup", REG_DUP },
	{ "duplicate", REG_DUP },
	{ "dup-of", REG_DUP_OF },
	{ "dupof", REG_DUP_OF },
	{ "duplicate-of", REG_DUP_OF },
	{ "fix", REG_FIX },
	{ "fixed-by", REG_FIX },
	{ "fixedby", REG_FIX },
	{ "resolve", REG_RESOLVE },
	{ "resolved", REG_RESOLVE },
	{ "invalid", REG_RESOLVE },
	{ "inconclusive", REG_INCONCLUSIVE },
	{ "backburner", REG_BACKBURNER },
	{ "back-burner", REG_BACKBURNER },
	{ "unbackburner", REG_UNBACKBURNER },
	{ "unbackburn", REG_UNBACKBURNER },
	{ "unback-burner", REG_UNBACKBURNER },
	{ "poke", REG_POKE },
	{ "note", REG_NOTE },
	{ "ignore-activity", REG_IGNORE_ACTIVITY },
	{ "activity-ignore", REG_IGNORE_ACTIVITY },
	{ "^backmonitor", REG_BACKMONITOR },
};

const char *reg_verb_str(enum reg_verb verb)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (verbs[i].verb == verb)
			return verbs[i].name;
	return "unknown";
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static int is_blank(int c)
{
	return c == ' ' || c == '\t';
}

static int is_hex(int c)
{
	return (c >= '0' && c <= '9') || (lower(c) >= 'a' && lower(c) <= 'f');
}

static int is_alnum(int c)
{
	return (c >= '0' && c <= '9') || (lower(c) >= 'a' && lower(c) <= 'z');
}

/* Characters that read as a blank. */
static int is_space_char(gunichar c)
{
	return c == ' ' || c == '\t' || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
		c == 0x202f || c == 0x205f || c == 0x3000;
}

/* Characters never handed out: controls, line and paragraph separators,
 * zero-width characters, bidirectional overrides (which could make a
 * report read other than it is) and the byte order mark. */
static int is_dropped_char(gunichar c)
{
	return text_is_control_char(c) || text_is_format_char(c);
}

/* Appends s/len to b cleaned: invalid UTF-8 becomes U+FFFD, dropped
 * characters go, runs of blanks become one ' ' (none at the start, one
 * between what b held and the new text), at most max bytes in all (cut at
 * a character; *cut is then set).  Stops reading once b is full, so the
 * time is linear in what is kept plus one character. */
static enum bb_status add_clean(struct buf *b, const char *s, size_t len, size_t max, int *cut)
{
	const char *p = s, *end = s + len;
	int space = b->len > 0;
	enum bb_status st = BB_OK;

	if (*cut)
		return BB_OK;   /* nothing after a cut */
	while (p < end && st == BB_OK) {
		gunichar c;
		size_t n;
		char repl[6];

		if ((unsigned char)*p > ' ' && (unsigned char)*p < 0x7f) {
			/* a run of printable ASCII (no blank, nothing dropped)
			 * goes in whole, as far as max lets it */
			size_t run = 1, room = max > b->len ? max - b->len : 0;

			while (p + run < end && (unsigned char)p[run] > ' ' && (unsigned char)p[run] < 0x7f)
				run++;
			if (room < (space ? 2u : 1u)) {
				*cut = 1;
				break;
			}
			if (space)
				st = buf_addch(b, ' '), room--;
			space = 0;
			n = run < room ? run : room;
			if (st == BB_OK)
				st = buf_add(b, p, n);
			if (n < run) {
				*cut = 1;
				break;
			}
			p += run;
			continue;
		}
		c = g_utf8_get_char_validated(p, (gssize)(end - p));
		if (c == (gunichar)-1 || c == (gunichar)-2) {
			c = 0xfffd;
			n = 1;
		} else {
			n = (size_t)g_utf8_skip[*(const unsigned char *)p];
		}
		if (is_space_char(c)) {
			space = b->len > 0;
			p += n;
			continue;
		}
		if (is_dropped_char(c)) {
			p += n;
			continue;
		}
		if (b->len + (space ? 1 : 0) + (size_t)g_unichar_to_utf8(c, NULL) > max) {
			*cut = 1;
			break;
		}
		if (space)
			st = buf_addch(b, ' ');
		space = 0;
		if (st == BB_OK)
			st = buf_add(b, repl, (size_t)g_unichar_to_utf8(c, repl));
		p += n;
	}
	return st;
}

/* A directive being read: its first line seen, continuation lines to come. */
struct pending {
	int open;
	unsigned line;
	struct buf verb, arg, text;
	int cut, text_cut;
};

struct parser {
	struct reg_directive *list;
	size_t n, alloc;
	struct pending cur;
};

/* Does the line start a directive: "#regzbot" in column 0, any case, then
 * the end, a blank or ':'?  (An indented one is no directive: see
 * is_indented_directive().) */
static int is_directive(const char *s, size_t len)
{
	if (len < KEYWORD_LEN)
		return 0;
	for (size_t i = 0; i < KEYWORD_LEN; i++)
		if (lower((unsigned char)s[i]) != KEYWORD[i])
			return 0;
	return len == KEYWORD_LEN || is_blank(s[KEYWORD_LEN]) || s[KEYWORD_LEN] == ':';
}

/* An indented "#regzbot" line: text showing a directive (help, a quote
 * set off by blanks), which ends the directive above it. */
static int is_indented_directive(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && is_blank(s[i]))
		i++;
	return i > 0 && is_directive(s + i, len - i);
}

/* A rule ("--", "---", "____", "===="): the signature marker and the
 * separators above a diffstat or a quoted mail end a paragraph. */
static int is_rule(const char *s, size_t len)
{
	size_t marks = 0;

	while (len && is_blank(s[len - 1]))
		len--;
	for (size_t i = 0; i < len; i++) {
		if (s[i] != s[0] || (s[0] != '-' && s[0] != '_' && s[0] != '=' && s[0] != '*'))
			return 0;
		marks++;
	}
	return marks >= 2;
}

static char *dup_range(const char *s, size_t len, int lower_case)
{
	char *out = malloc(len + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++)
		out[i] = lower_case ? (char)lower((unsigned char)s[i]) : s[i];
	out[len] = '\0';
	return out;
}

/* 8 to 64 hex digits: a commit. */
static int is_commit(const char *s, size_t len)
{
	if (len < COMMIT_MIN || len > COMMIT_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!is_hex((unsigned char)s[i]))
			return 0;
	return 1;
}

/* One end of a range: a commit, or a tag or branch name ("v6.5-rc1",
 * "next-20240101") that is not all hex digits (a short hash is too
 * ambiguous to be a culprit). */
static int is_rev(const char *s, size_t len)
{
	int all_hex = 1;

	if (!len || len > REV_MAX || !is_alnum((unsigned char)s[0]) || s[len - 1] == '.')
		return 0;
	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)s[i];

		if (!is_alnum(c) && c != '.' && c != '_' && c != '+' && c != '-')
			return 0;
		all_hex = all_hex && is_hex(c);
	}
	return !all_hex || is_commit(s, len);
}

/* The next blank-separated word of the cleaned argument at *pos. */
static int next_word(const char *arg, size_t *pos, const char **word, size_t *len)
{
	const char *p = arg + *pos;

	while (*p == ' ')
		p++;
	if (!*p)
		return 0;
	*word = p;
	while (*p && *p != ' ')
		p++;
	*len = (size_t)(p - *word);
	*pos = (size_t)(p - arg);
	return 1;
}

static int prefix_ci(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	if (len < n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)s[i]) != prefix[i])
			return 0;
	return 1;
}

/* A word that is a URL, without the brackets and punctuation prose puts
 * around it ("<https://...>", "(https://...).") */
static int word_url(const char *w, size_t len, const char **url, size_t *url_len)
{
	while (len && (*w == '<' || *w == '(' || *w == '[')) {
		w++;
		len--;
	}
	while (len && strchr(">)],;.:!'\"", w[len - 1]))
		len--;
	if (!prefix_ci(w, len, "https://") && !prefix_ci(w, len, "http://"))
		return 0;
	if (len <= strlen("http://") + (prefix_ci(w, len, "https://") ? 1 : 0))
		return 0;
	*url = w;
	*url_len = len;
	return 1;
}

static enum bb_status set_str(char **field, const char *s, size_t len, int lower_case)
{
	*field = dup_range(s, len, lower_case);
	return *field ? BB_OK : BB_ERR_NOMEM;
}

/* Whether a word after the culprit points at the report: "^", "/", "~" or
 * a URL (then *url and *url_len give it). */
static int report_pointer(const char *w, size_t len, const char **url, size_t *url_len)
{
	*url = NULL;
	if (len == 1 && (*w == '^' || *w == '/' || *w == '~'))
		return 1;
	return word_url(w, len, url, url_len);
}

static enum bb_status parse_introduced(struct reg_directive *d)
{
	size_t pos = 0, len, url_len;
	const char *w, *dots, *url;
	struct buf rest = BUF_INIT;
	enum bb_status st = BB_OK;

	if (d->verb == REG_INTRODUCED_PARENT) {
		d->anchor = '^';
		d->ancestor = d->verb_text[0] == '^' && d->verb_text[1] == '^' ? 2 : 1;
	}
	if (!next_word(d->arg, &pos, &w, &len)) {
		d->error = E_CULPRIT;
		return BB_OK;
	}
	while (len && (w[len - 1] == ',' || w[len - 1] == ';'))
		len--;
	dots = len >= 2 ? g_strstr_len(w, (gssize)len, "..") : NULL;
	if (dots) {
		size_t a = (size_t)(dots - w), b = len - a - 2;
		const char *to = dots + 2;

		if (!is_rev(w, a) || (b && !is_rev(to, b))) {
			d->error = E_CULPRIT;
			return BB_OK;
		}
		st = set_str(&d->commit_from, w, a, is_commit(w, a));
		if (st == BB_OK && b)
			st = set_str(&d->commit_to, to, b, is_commit(to, b));
		d->range_open = !b;
	} else if (is_commit(w, len)) {
		st = set_str(&d->commit_from, w, len, 1);
	} else {
		d->error = E_CULPRIT;
		return BB_OK;
	}
	/* the culprit as written, then the words that are no report pointer
	 * (a subject after a commit); a pointer may come as the second word
	 * or later (regzbot reads them all) */
	if (st == BB_OK)
		st = buf_add(&rest, w, len);
	while (st == BB_OK && next_word(d->arg, &pos, &w, &len)) {
		if (!report_pointer(w, len, &url, &url_len)) {
			st = buf_addch(&rest, ' ');
			if (st == BB_OK)
				st = buf_add(&rest, w, len);
			continue;
		}
		/* the first of each kind counts, later ones are dropped */
		if (url && !d->url)
			st = set_str(&d->url, url, url_len, 0);
		else if (!url && !d->anchor) {
			d->anchor = *w;
			d->ancestor = *w == '^';
		}
	}
	if (st == BB_OK && !(d->introduced = buf_detach(&rest, NULL)))
		st = BB_ERR_NOMEM;
	buf_release(&rest);
	return st;
}

/* link, monitor, unlink, dup, dup-of, ^backmonitor: a URL first. */
static enum bb_status parse_target(struct reg_directive *d)
{
	size_t pos = 0, len, url_len;
	const char *w, *url;

	if (!next_word(d->arg, &pos, &w, &len) || !word_url(w, len, &url, &url_len)) {
		d->error = E_URL;
		return BB_OK;
	}
	return set_str(&d->url, url, url_len, 0);
}

static void trim_blanks(const char **s, size_t *len)
{
	while (*len && **s == ' ') {
		(*s)++;
		(*len)--;
	}
	while (*len && (*s)[*len - 1] == ' ')
		(*len)--;
}

/* Strips blanks, one pair of () and one pair of quotes around s/len. */
static void strip_subject(const char **s, size_t *len)
{
	static const char *const quotes[][2] = {
		{ "\"", "\"" }, { "'", "'" }, { "\xe2\x80\x9c", "\xe2\x80\x9d" }, /* “ ” */
	};

	trim_blanks(s, len);
	if (*len >= 2 && (*s)[0] == '(' && (*s)[*len - 1] == ')') {
		(*s)++;
		*len -= 2;
		trim_blanks(s, len);
	}
	for (size_t i = 0; i < sizeof(quotes) / sizeof(quotes[0]); i++) {
		size_t open = strlen(quotes[i][0]), close = strlen(quotes[i][1]);

		if (*len >= open + close && !memcmp(*s, quotes[i][0], open) &&
		    !memcmp(*s + *len - close, quotes[i][1], close)) {
			*s += open;
			*len -= open + close;
			trim_blanks(s, len);
			break;
		}
	}
}

/* fix: "<hash> [("subject")]", "<url>" or "<subject>". */
static enum bb_status parse_fix(struct reg_directive *d)
{
	size_t pos = 0, len, url_len, rest_len;
	const char *w, *url, *rest;
	enum bb_status st = BB_OK;

	if (!next_word(d->arg, &pos, &w, &len)) {
		d->error = E_FIX;
		return BB_OK;
	}
	if (len > 1 && (w[len - 1] == ',' || w[len - 1] == ':') && is_commit(w, len - 1))
		len--;
	if (is_commit(w, len)) {
		st = set_str(&d->fix_commit, w, len, 1);
		rest = d->arg + pos;
	} else if (pos == strlen(d->arg) && word_url(w, len, &url, &url_len)) {
		return set_str(&d->url, url, url_len, 0);
	} else {
		rest = d->arg;
	}
	rest_len = strlen(rest);
	strip_subject(&rest, &rest_len);
	if (st == BB_OK && rest_len)
		st = set_str(&d->fix_subject, rest, rest_len, 0);
	if (st == BB_OK && !d->fix_commit && !d->fix_subject)
		d->error = E_FIX;
	return st;
}

static enum reg_verb find_verb(const char *name)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!g_ascii_strcasecmp(name, verbs[i].name))
			return verbs[i].verb;
	return REG_UNKNOWN;
}

/* Room for one more entry, zeroed. */
static struct reg_directive *new_entry(struct parser *ps)
{
	struct reg_directive *d;

	if (ps->n == ps->alloc) {
		size_t alloc = ps->alloc ? ps->alloc * 2 : 8;
		struct reg_directive *list;

		if (alloc > REG_DIRECTIVES_MAX + 1)
			alloc = REG_DIRECTIVES_MAX + 1;
		list = realloc(ps->list, alloc * sizeof(*list));
		if (!list)
			return NULL;
		ps->list = list;
		ps->alloc = alloc;
	}
	d = &ps->list[ps->n++];
	memset(d, 0, sizeof(*d));
	return d;
}

/* Turns the pending directive into an entry. */
static enum bb_status finish(struct parser *ps)
{
	struct pending *cur = &ps->cur;
	struct reg_directive *d;
	enum bb_status st = BB_OK;

	if (!cur->open)
		return BB_OK;
	cur->open = 0;
	d = new_entry(ps);
	if (!d) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	d->line = cur->line;
	d->verb_text = buf_detach(&cur->verb, NULL);
	d->arg = buf_detach(&cur->arg, NULL);
	d->text = buf_detach(&cur->text, NULL);
	if (!d->verb_text || !d->arg || !d->text) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	d->verb = *d->verb_text ? find_verb(d->verb_text) : REG_UNKNOWN;
	switch (d->verb) {
	case REG_INTRODUCED:
	case REG_INTRODUCED_PARENT:
		st = parse_introduced(d);
		break;
	case REG_LINK:
	case REG_MONITOR:
	case REG_UNLINK:
	case REG_DUP:
	case REG_DUP_OF:
	case REG_BACKMONITOR:
		st = parse_target(d);
		break;
	case REG_FIX:
		st = parse_fix(d);
		break;
	case REG_TITLE:
	case REG_FROM:
	case REG_NOTE:
		if (!*d->arg)
			d->error = E_TEXT;
		break;
	case REG_UNKNOWN:
		d->error = *d->verb_text ? E_UNKNOWN : E_NO_VERB;
		break;
	default:
		break;
	}
	if (cur->cut && !d->error)
		d->error = E_LONG;
out:
	buf_release(&cur->verb);
	buf_release(&cur->arg);
	buf_release(&cur->text);
	cur->cut = 0;
	cur->text_cut = 0;
	return st;
}

/* Starts a directive from its "#regzbot" line. */
static enum bb_status start(struct parser *ps, const char *s, size_t len, unsigned line)
{
	struct pending *cur = &ps->cur;
	const char *p = s + KEYWORD_LEN, *end = s + len, *verb;
	enum bb_status st;

	cur->open = 1;
	cur->line = line;
	cur->cut = 0;
	cur->text_cut = 0;
	st = add_clean(&cur->text, s, len, REG_TEXT_MAX, &cur->text_cut);
	if (st != BB_OK)
		return st;
	while (p < end && is_blank(*p))
		p++;
	if (p < end && *p == ':')
		p++;
	while (p < end && is_blank(*p))
		p++;
	verb = p;
	while (p < end && !is_blank(*p) && *p != ':')
		p++;
	/* a verb longer than REG_VERB_MAX is cut, and unknown */
	st = add_clean(&cur->verb, verb, (size_t)(p - verb), REG_VERB_MAX, &(int){ 0 });
	if (p < end && *p == ':')
		p++;
	if (st == BB_OK)
		st = add_clean(&cur->arg, p, (size_t)(end - p), REG_ARG_MAX, &cur->cut);
	return st;
}

void reg_directives_free(struct reg_directive *d, size_t n)
{
	if (!d)
		return;
	for (size_t i = 0; i < n; i++) {
		free(d[i].verb_text);
		free(d[i].text);
		free(d[i].arg);
		free(d[i].introduced);
		free(d[i].commit_from);
		free(d[i].commit_to);
		free(d[i].url);
		free(d[i].fix_commit);
		free(d[i].fix_subject);
	}
	free(d);
}

enum bb_status reg_directives_parse(const char *body, struct reg_directive **out, size_t *n,
				    struct bb_error *err)
{
	struct parser ps;
	struct inmail_lines it;
	const char *line;
	size_t len, blen;
	enum inmail_line_kind kind;
	enum bb_status st = BB_OK;

	memset(&ps, 0, sizeof(ps));
	buf_init(&ps.cur.verb);
	buf_init(&ps.cur.arg);
	buf_init(&ps.cur.text);
	*out = NULL;
	*n = 0;
	if (!body)
		body = "";
	blen = strlen(body);
	/* every directive starts a line with the keyword: a text without it
	 * has none, and the walk's line kinds (most of what the parse cost,
	 * on every body the tracker reads) are not needed */
	if (!text_find_ci(body, blen, KEYWORD))
		return BB_OK;
	inmail_lines_init(&it, body, blen);
	while (st == BB_OK && inmail_lines_next(&it, &line, &len, &kind)) {
		int own = (kind == INMAIL_LINE_TEXT || kind == INMAIL_LINE_SIGNATURE) &&
			len && line[0] != '>' && !is_rule(line, len);

		if (own && is_directive(line, len)) {
			st = finish(&ps);
			if (st != BB_OK)
				break;
			if (ps.n == REG_DIRECTIVES_MAX) {
				struct reg_directive *d = new_entry(&ps);

				if (!d || !(d->verb_text = strdup("")) || !(d->arg = strdup("")) ||
				    !(d->text = strdup(""))) {
					st = BB_ERR_NOMEM;
					break;
				}
				d->verb = REG_UNKNOWN;
				d->error = E_MANY;
				d->line = it.lineno;
				break;
			}
			st = start(&ps, line, len, it.lineno);
		} else if (own && ps.cur.open && !is_indented_directive(line, len)) {
			st = add_clean(&ps.cur.arg, line, len, REG_ARG_MAX, &ps.cur.cut);
			if (st == BB_OK)
				st = add_clean(&ps.cur.text, line, len, REG_TEXT_MAX,
					       &ps.cur.text_cut);
		} else {
			st = finish(&ps);
		}
	}
	if (st == BB_OK)
		st = finish(&ps);
	buf_release(&ps.cur.verb);
	buf_release(&ps.cur.arg);
	buf_release(&ps.cur.text);
	if (st != BB_OK) {
		reg_directives_free(ps.list, ps.n);
		return bb_error_set(err, st, "reading #regzbot directives: out of memory");
	}
	*out = ps.list;
	*n = ps.n;
	return BB_OK;
}
