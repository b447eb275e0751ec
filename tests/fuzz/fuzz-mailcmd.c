/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for bridge/mailcmd.c (and the line classifier and
 * reply cutter of mail/inmail_lines.c it shares): the input is a decoded mail
 * body; every entry must be a known verb with a clean argument of the
 * right shape, or MAILCMD_INVALID with a reason.  Build with "make fuzz",
 * run with "make fuzz-run" (seeds in corpus-mailcmd/). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "bridge/mailcmd.h"
#include "mail/inmail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond)
{
	if (!cond)
		__builtin_trap();
}

static void expect_clean(const char *s)
{
	expect(s != NULL && g_utf8_validate(s, -1, NULL));
	for (const char *p = s; *p; p = g_utf8_next_char(p))
		expect(g_utf8_get_char(p) >= 0x20 && g_utf8_get_char(p) != 0x7f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *body = malloc(size + 1), *reply;
	struct mailcmd *c = NULL;
	size_t n = 0;
	struct bb_error err = BB_ERROR_INIT;

	if (!body)
		return 0;
	memcpy(body, data, size);
	body[size] = '\0';   /* bodies are C strings: text after a NUL is not read */
	expect(mailcmd_parse(body, &c, &n, &err) == BB_OK);
	expect(n <= MAILCMD_MAX + 1 && (n == 0) == (c == NULL));
	for (size_t i = 0; i < n; i++) {
		expect(c[i].line > 0 && (i == 0 || c[i].line > c[i - 1].line));
		expect_clean(c[i].text);
		if (c[i].verb == MAILCMD_INVALID) {
			expect(c[i].error && *c[i].error && !c[i].arg && !c[i].dup_of);
			continue;
		}
		expect(!c[i].error);
		switch (c[i].verb) {
		case MAILCMD_REOPEN:
		case MAILCMD_STOP:
		case MAILCMD_TRACK:
			expect(!c[i].arg);
			break;
		case MAILCMD_CLOSE:
			expect(!c[i].dup_of || (c[i].arg && !strcmp(c[i].arg, "DUPLICATE")));
			if (c[i].arg)
				expect_clean(c[i].arg);
			break;
		case MAILCMD_ASSIGN:
			expect_clean(c[i].arg);
			expect(!strcmp(c[i].arg, "me") || strchr(c[i].arg, '@'));
			break;
		default:
			expect_clean(c[i].arg);
			expect(*c[i].arg);
			break;
		}
	}
	reply = mailcmd_error_reply(c, n);
	if (reply) {
		expect(g_utf8_validate(reply, -1, NULL));
		free(reply);
	}
	mailcmd_free(c, n);
	reply = inmail_reply_text(body);
	expect(reply != NULL);
	/* whole lines of the body and "> [...]": valid if the body was */
	expect(!g_utf8_validate(body, -1, NULL) || g_utf8_validate(reply, -1, NULL));
	free(reply);
	free(body);
	return 0;
}
