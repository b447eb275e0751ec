/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for tracker/directive.c and tracker/links.c: the input
 * is a decoded mail body.  Every entry must be clean (valid UTF-8, no
 * controls, within the caps), in body order, and of the shape its verb
 * promises; every Message-ID and bug number read from a URL must be well
 * formed.  The input's first line is also tried as a link.  Build with
 * "make fuzz", run with "make fuzz-run" (seeds in corpus-directive/). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "tracker/directive.h"
#include "tracker/links.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond)
{
	if (!cond)
		__builtin_trap();
}

/* Valid UTF-8, no controls, no blank at either end, no two blanks. */
static void expect_clean(const char *s, size_t max)
{
	size_t len;

	expect(s != NULL && g_utf8_validate(s, -1, NULL));
	len = strlen(s);
	expect(len <= max);
	expect(!len || (s[0] != ' ' && s[len - 1] != ' '));
	expect(!strstr(s, "  "));
	for (const char *p = s; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		expect(c >= 0x20 && !(c >= 0x7f && c < 0xa0) && c != '\t');
	}
}

static void expect_link(const char *url)
{
	char *id = reg_link_message_id(url);
	long long bug = reg_link_bugzilla_id(url, NULL);
	const char *at;

	if (id) {
		size_t len = strlen(id);

		expect(len > 0 && len <= REG_LINK_MESSAGE_ID_MAX);
		for (const char *p = id; *p; p++)
			expect(*p > ' ' && *p < 0x7f && *p != '<' && *p != '>');
		at = strrchr(id, '@');
		expect(at && at != id && at[1]);
		free(id);
	}
	expect(bug >= 0 && bug < 1000000000000000LL);
	/* a base-matched bug is a bug of any host */
	bug = reg_link_bugzilla_id(url, "https://bugzilla.kernel.org");
	/* a known base adds only short links (<base>/N, no show_bug.cgi) */
	expect(bug == 0 || bug == reg_link_bugzilla_id(url, NULL) ||
	       !g_strstr_len(url, (gssize)strcspn(url, "#"), "show_bug.cgi"));
}

static int is_url(const char *s)
{
	return !g_ascii_strncasecmp(s, "http://", 7) || !g_ascii_strncasecmp(s, "https://", 8);
}

static void expect_shape(const struct reg_directive *d)
{
	int introduced = d->verb == REG_INTRODUCED || d->verb == REG_INTRODUCED_PARENT;

	expect((unsigned)d->verb <= REG_UNKNOWN);
	expect_clean(d->verb_text, REG_VERB_MAX);
	expect_clean(d->arg, REG_ARG_MAX);
	expect(d->verb != REG_UNKNOWN || d->error);
	expect(!d->error || *d->error);
	expect(introduced || (!d->commit_from && !d->commit_to && !d->range_open && !d->anchor));
	expect(d->verb == REG_FIX || (!d->fix_commit && !d->fix_subject));
	expect(!d->commit_to || (d->commit_from && !d->range_open));
	expect(!d->range_open || d->commit_from);
	expect(d->anchor == 0 || d->anchor == '^' || d->anchor == '/' || d->anchor == '~');
	if (d->verb == REG_INTRODUCED_PARENT)
		expect(d->anchor == '^');
	if (introduced && !d->error)
		expect(d->commit_from != NULL);
	if (d->commit_from)
		expect_clean(d->commit_from, 128);
	if (d->commit_to)
		expect_clean(d->commit_to, 128);
	if (d->fix_commit) {
		size_t len = strlen(d->fix_commit);

		expect(len >= 8 && len <= 64 && strspn(d->fix_commit, "0123456789abcdef") == len);
	}
	if (d->fix_subject)
		expect_clean(d->fix_subject, REG_ARG_MAX);
	if (d->url) {
		expect_clean(d->url, REG_ARG_MAX);
		expect(is_url(d->url) && !strchr(d->url, ' '));
		expect_link(d->url);
	}
	switch (d->verb) {
	case REG_LINK:
	case REG_MONITOR:
	case REG_UNLINK:
	case REG_DUP:
		expect(d->error || d->url);
		break;
	case REG_FIX:
		expect(d->error || d->fix_commit || d->fix_subject || d->url);
		break;
	case REG_TITLE:
	case REG_NOTE:
	case REG_FROM:
		expect(d->error || *d->arg);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *body = malloc(size + 1), *first;
	struct reg_directive *d = NULL;
	size_t n = 0;
	struct bb_error err = BB_ERROR_INIT;

	if (!body)
		return 0;
	memcpy(body, data, size);
	body[size] = '\0';   /* bodies are C strings: text after a NUL is not read */
	expect(reg_directives_parse(body, &d, &n, &err) == BB_OK);
	expect(n <= REG_DIRECTIVES_MAX + 1 && (n == 0) == (d == NULL));
	for (size_t i = 0; i < n; i++) {
		expect(d[i].line > 0 && (i == 0 || d[i].line > d[i - 1].line));
		expect_shape(&d[i]);
	}
	reg_directives_free(d, n);

	first = g_strndup(body, strcspn(body, "\n"));
	expect_link(first);
	g_free(first);
	free(body);
	return 0;
}
