/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Commands in list mail (see mailcmd.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <gmime/gmime.h>

#include "bridge/mailcmd.h"
#include "core/buf.h"
#include "mail/inmail.h"
#include "mail/mail.h"

#define KEYWORD "#bugbridge"
#define TITLE_MAX 255  /* Bugzilla's limit for a summary, in characters */

static const struct {
	const char *name;
	enum mailcmd_verb verb;
} verbs[] = {
	{ "close", MAILCMD_CLOSE },
	{ "reopen", MAILCMD_REOPEN },
	{ "reassign", MAILCMD_REASSIGN },
	{ "assign", MAILCMD_ASSIGN },
	{ "title", MAILCMD_TITLE },
	{ "priority", MAILCMD_PRIORITY },
	{ "severity", MAILCMD_SEVERITY },
	{ "stop", MAILCMD_STOP },
	{ "track", MAILCMD_TRACK },
	{ "needinfo", MAILCMD_NEEDINFO },
	{ "subscribe", MAILCMD_SUBSCRIBE },
	{ "unsubscribe", MAILCMD_UNSUBSCRIBE },
	{ "uncc", MAILCMD_UNSUBSCRIBE },   /* syzbot's word */
	{ "no-reminders", MAILCMD_NO_REMINDERS },
};

const char *mailcmd_verb_str(enum mailcmd_verb verb)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (verbs[i].verb == verb)
			return verbs[i].name;
	return "invalid";
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A clean copy of s: valid UTF-8, controls dropped, blanks collapsed,
 * trimmed, at most max characters.  NULL when out of memory. */
static char *clean(const char *s, size_t len, size_t max)
{
	char *valid = g_utf8_make_valid(s, (gssize)len);
	struct buf b = BUF_INIT;
	size_t chars = 0;
	int space = 0, ok = 1;

	for (const char *p = valid; *p && ok && chars < max; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (c == ' ' || c == '\t') {
			space = b.len > 0;
			continue;
		}
		if (c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 || c == 0x2029)
			continue;
		if (space) {
			ok = buf_addch(&b, ' ') == BB_OK;
			chars++;
			space = 0;
		}
		ok = ok && buf_add(&b, p, (size_t)(g_utf8_next_char(p) - p)) == BB_OK;
		chars++;
	}
	g_free(valid);
	if (!ok) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* A word of letters, digits, '_', '-', '.', '+' (a resolution, priority or
 * severity as Bugzilla names them). */
static int is_word(const char *s, size_t len)
{
	if (len == 0 || len > 64)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.' || c == '+'))
			return 0;
	}
	return 1;
}

/* Splits off the next blank-separated word of [*p, end). */
static size_t next_word(const char **p, const char *end, const char **word)
{
	const char *s = *p;

	while (s < end && is_blank(*s))
		s++;
	*word = s;
	while (s < end && !is_blank(*s))
		s++;
	*p = s;
	return (size_t)(s - *word);
}

static int rest_is_empty(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p == end;
}

/* The address of "assign": "me", an addr-spec, or "Name <addr>". */
static char *assign_address(const char *arg, size_t len, const char **why)
{
	char *copy, *out = NULL;
	InternetAddressList *list;

	if (len == 2 && !g_ascii_strncasecmp(arg, "me", 2))
		return strdup("me");
	copy = g_strndup(arg, len);
	mail_init();
	list = internet_address_list_parse(NULL, copy);
	if (list && internet_address_list_length(list) == 1 &&
	    INTERNET_ADDRESS_IS_MAILBOX(internet_address_list_get_address(list, 0))) {
		const char *addr = internet_address_mailbox_get_addr(
			INTERNET_ADDRESS_MAILBOX(internet_address_list_get_address(list, 0)));
		const char *at = addr ? strrchr(addr, '@') : NULL;

		if (at && at > addr && at[1] && !strpbrk(addr, " \t<>,;"))
			out = clean(addr, strlen(addr), 254);
		else
			*why = "\"assign\" needs an e-mail address or \"me\"";
	} else {
		*why = "\"assign\" needs one e-mail address or \"me\"";
	}
	if (list)
		g_object_unref(list);
	g_free(copy);
	if (!out && !*why)
		*why = "out of memory";
	return out;
}

/* "needinfo [reporter|<address>] <question>": whom to ask (the reporter
 * when the first word is neither "reporter" nor an address) and the
 * question, the rest of the line.  Returns 0 when out of memory. */
static int parse_needinfo(const char *p, const char *end, struct mailcmd *c, const char **why)
{
	const char *w, *rest = p;
	size_t wl = next_word(&rest, end, &w);

	if (wl == 8 && !g_ascii_strncasecmp(w, "reporter", 8)) {
		c->to = strdup("reporter");
	} else if (wl && memchr(w, '@', wl)) {
		size_t al = wl;

		if (al > 2 && w[0] == '<' && w[al - 1] == '>') {
			w++;
			al -= 2;
		}
		c->to = assign_address(w, al, why);
		if (!c->to) {
			if (*why && strcmp(*why, "out of memory"))
				*why = "\"needinfo\" takes \"reporter\" or one e-mail address, then the question";
			return *why && strcmp(*why, "out of memory");
		}
	} else {
		c->to = strdup("reporter");
		rest = p;
	}
	if (!c->to)
		return 0;
	while (rest < end && is_blank(*rest))
		rest++;
	if (rest_is_empty(rest, end)) {
		*why = "\"needinfo\" needs the question";
		return 1;
	}
	if (!(c->arg = clean(rest, (size_t)(end - rest), MAILCMD_LINE_MAX)))
		return 0;
	if (!*c->arg)
		*why = "\"needinfo\" needs the question";
	return 1;
}

/* Parses the command on one line (after the keyword); fills c or sets
 * *why.  Returns 0 when out of memory. */
static int parse_command(const char *p, const char *end, struct mailcmd *c, int entries,
			 const char **why)
{
	const char *verb, *w;
	size_t verb_len, wl;
	size_t i;

	if (p < end && *p == ':')
		p++;
	verb_len = next_word(&p, end, &verb);
	if (entries && verb_len && verb_len < 8 &&
	    strspn(verb, "0123456789") == verb_len - (verb[verb_len - 1] == ':')) {
		/* "#bugbridge 3 close": entry 3 of a digest (bridge/digest.h) */
		c->entry = atoi(verb);
		verb_len = next_word(&p, end, &verb);
	}
	if (verb_len && verb[verb_len - 1] == ':')
		verb_len--;   /* "title: text" */
	if (verb_len == 0) {
		*why = "a command is missing after #bugbridge";
		return 1;
	}
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strlen(verbs[i].name) == verb_len &&
		    !g_ascii_strncasecmp(verb, verbs[i].name, verb_len))
			break;
	if (i == sizeof(verbs) / sizeof(verbs[0])) {
		*why = "unknown command";
		return 1;
	}
	c->verb = verbs[i].verb;
	while (p < end && is_blank(*p))
		p++;
	switch (c->verb) {
	case MAILCMD_REOPEN:
	case MAILCMD_STOP:
	case MAILCMD_TRACK:
	case MAILCMD_SUBSCRIBE:
	case MAILCMD_UNSUBSCRIBE:
	case MAILCMD_NO_REMINDERS:
		if (!rest_is_empty(p, end))
			*why = "this command takes no argument";
		return 1;
	case MAILCMD_CLOSE:
		wl = next_word(&p, end, &w);
		if (wl == 0)
			return 1;
		if (!is_word(w, wl)) {
			*why = "\"close\" takes a resolution such as FIXED";
			return 1;
		}
		if (!(c->arg = clean(w, wl, 64)))
			return 0;
		for (char *u = c->arg; *u; u++)
			*u = g_ascii_toupper(*u);
		if (!strcmp(c->arg, "DUPLICATE")) {
			const char *num;
			size_t nl = next_word(&p, end, &num);
			long long id = 0;

			if (nl && num[0] == '#') {
				num++;
				nl--;
			}
			for (size_t k = 0; k < nl && k < 12; k++) {
				if (num[k] < '0' || num[k] > '9') {
					id = 0;
					break;
				}
				id = id * 10 + (num[k] - '0');
			}
			if (nl == 0 || nl > 12 || id <= 0) {
				*why = "\"close DUPLICATE\" needs the number of the other bug";
				return 1;
			}
			c->dup_of = id;
		}
		if (!rest_is_empty(p, end))
			*why = "\"close\" takes one resolution";
		return 1;
	case MAILCMD_PRIORITY:
	case MAILCMD_SEVERITY:
		wl = next_word(&p, end, &w);
		if (!is_word(w, wl) || !rest_is_empty(p, end)) {
			*why = c->verb == MAILCMD_PRIORITY ? "\"priority\" takes one value such as P1"
				: "\"severity\" takes one value such as high";
			return 1;
		}
		return (c->arg = clean(w, wl, 64)) != NULL;
	case MAILCMD_REASSIGN:
	case MAILCMD_TITLE:
		if (rest_is_empty(p, end)) {
			*why = c->verb == MAILCMD_TITLE ? "\"title\" needs the new title"
				: "\"reassign\" needs a component or a MAINTAINERS section";
			return 1;
		}
		if (c->verb == MAILCMD_TITLE && g_utf8_strlen(p, end - p) > TITLE_MAX) {
			*why = "the title is longer than 255 characters";
			return 1;
		}
		if (!(c->arg = clean(p, (size_t)(end - p), TITLE_MAX)))
			return 0;
		if (!*c->arg)   /* only control characters */
			*why = c->verb == MAILCMD_TITLE ? "\"title\" needs the new title"
				: "\"reassign\" needs a component or a MAINTAINERS section";
		return 1;
	case MAILCMD_NEEDINFO:
		return parse_needinfo(p, end, c, why);
	case MAILCMD_ASSIGN:
		wl = (size_t)(end - p);
		while (wl && is_blank(p[wl - 1]))
			wl--;
		if (wl == 0) {
			*why = "\"assign\" needs an e-mail address or \"me\"";
			return 1;
		}
		c->arg = assign_address(p, wl, why);
		return c->arg || *why;
	case MAILCMD_INVALID:
		break;
	}
	return 1;
}

static void mailcmd_release_one(struct mailcmd *c)
{
	free(c->arg);
	free(c->to);
	free(c->text);
	free(c->error);
	memset(c, 0, sizeof(*c));
}

void mailcmd_free(struct mailcmd *cmds, size_t n)
{
	for (size_t i = 0; cmds && i < n; i++)
		mailcmd_release_one(&cmds[i]);
	free(cmds);
}

/* 1 if the line starts (after blanks) with the keyword as a word. */
static const char *keyword_end(const char *s, size_t len)
{
	size_t k = strlen(KEYWORD), i = 0;
	char next;

	while (i < len && is_blank(s[i]))
		i++;
	if (len - i < k || g_ascii_strncasecmp(s + i, KEYWORD, k) != 0)
		return NULL;
	next = i + k < len ? s[i + k] : ' ';
	if (!is_blank(next) && next != ':')
		return NULL;   /* "#bugbridges", "#bugbridge-foo": not ours */
	return s + i + k;
}

static enum bb_status parse_body(const char *body, struct mailcmd **cmds, size_t *n, int entries,
			     struct bb_error *err)
{
	struct inmail_lines it;
	struct mailcmd *list = NULL;
	size_t count = 0;
	const char *line;
	size_t len;
	enum inmail_line_kind kind;
	enum bb_status st = BB_OK;

	*cmds = NULL;
	*n = 0;
	inmail_lines_init(&it, body, strlen(body));
	while (inmail_lines_next(&it, &line, &len, &kind)) {
		const char *after, *why = NULL;
		struct mailcmd *c;

		if (kind != INMAIL_LINE_TEXT || !(after = keyword_end(line, len)))
			continue;
		if (!list && !(list = calloc(MAILCMD_MAX + 1, sizeof(*list))))
			goto nomem;
		c = &list[count++];
		c->line = it.lineno;
		if (count > MAILCMD_MAX) {
			c->verb = MAILCMD_INVALID;
			if (!(c->text = clean(line, len, 200)) ||
			    !(c->error = str_printf("more than %d commands in one mail; "
						    "this one and those after it were not read",
						    MAILCMD_MAX)))
				goto nomem;
			break;
		}
		if (!(c->text = clean(line, len, 200)))
			goto nomem;
		if (len > MAILCMD_LINE_MAX)
			why = "the command line is too long";
		else if (!parse_command(after, line + len, c, entries, &why))
			goto nomem;
		if (why) {
			free(c->arg);
			free(c->to);
			c->to = NULL;
			c->arg = NULL;
			c->dup_of = 0;
			c->verb = MAILCMD_INVALID;
			if (!(c->error = strdup(why)))
				goto nomem;
		}
	}
	*cmds = list;
	*n = count;
	return BB_OK;
nomem:
	mailcmd_free(list, count);
	st = bb_error_set(err, BB_ERR_NOMEM, "out of memory reading mail commands");
	return st;
}

enum bb_status mailcmd_parse(const char *body, struct mailcmd **cmds, size_t *n,
			     struct bb_error *err)
{
	return parse_body(body, cmds, n, 0, err);
}

enum bb_status mailcmd_parse_entries(const char *body, struct mailcmd **cmds, size_t *n,
				     struct bb_error *err)
{
	return parse_body(body, cmds, n, 1, err);
}

char *mailcmd_error_reply(const struct mailcmd *cmds, size_t n)
{
	struct buf b = BUF_INIT;
	size_t bad = 0;
	int ok = 1;

	for (size_t i = 0; i < n; i++)
		bad += cmds[i].verb == MAILCMD_INVALID;
	if (!bad)
		return NULL;
	ok = buf_addstr(&b, bad == 1 ? "bugbridge did not understand this command:\n\n"
			: "bugbridge did not understand these commands:\n\n") == BB_OK;
	for (size_t i = 0; i < n && ok; i++)
		if (cmds[i].verb == MAILCMD_INVALID)
			ok = buf_addf(&b, "  line %u: %s\n    %s\n", cmds[i].line, cmds[i].text,
				      cmds[i].error) == BB_OK;
	ok = ok && buf_addstr(&b,
		"\nNothing was changed for these lines.  A command stands on its own line,\n"
		"outside quoted text:\n\n") == BB_OK &&
	     buf_addstr(&b, mail_commands_help) == BB_OK;
	if (!ok) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}
