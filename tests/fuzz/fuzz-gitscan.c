/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the commit message parser of tracker/gitscan.c: the
 * input is a commit message as git log prints it (%B).  The subject holds
 * no newline, every trailer has a non-empty key of letters, digits and
 * '-' and a value without newlines, and an upstream is lower-case hex.
 * Build with "make fuzz", run with "make fuzz-run" (seeds in
 * corpus-gitscan/). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracker/gitscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond)
{
	if (!cond)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gitscan_parser *parser;
	struct gitscan_commit c;
	char *msg;

	if (!parser)
		parser = gitscan_parser_new("https://bugzilla.kernel.org");
	/* git log's %B holds no NUL: the scan splits records at NULs */
	if (!parser || memchr(data, '\0', size))
		return 0;
	msg = malloc(size + 1);
	if (!msg)
		return 0;
	memcpy(msg, data, size);
	msg[size] = '\0';
	if (gitscan_parse_message(parser, "0123456789abcdef0123456789abcdef01234567", msg, size,
				  &c) == BB_OK) {
		expect(c.subject && !strchr(c.subject, '\n'));
		expect(c.message == msg && c.message_len == size);
		expect(c.n_trailers == 0 || c.trailers != NULL);
		for (size_t i = 0; i < c.n_trailers; i++) {
			const struct gitscan_trailer *t = &c.trailers[i];

			expect(t->key[0] != '\0' && strspn(t->key, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
							  "abcdefghijklmnopqrstuvwxyz0123456789-") ==
							  strlen(t->key));
			expect(!strchr(t->value, '\n'));
			expect(!t->message_id || (strchr(t->message_id, '@') && !strchr(t->message_id, '\n')));
			expect(t->bugzilla_id >= 0);
		}
		expect(!c.upstream || (strlen(c.upstream) >= 7 &&
				       strspn(c.upstream, "0123456789abcdef") == strlen(c.upstream)));
	}
	free(msg);
	return 0;
}
