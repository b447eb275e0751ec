/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the Authentication-Results parser of mail/auth.c
 * (and the alignment rule it feeds): the input is one field value; the
 * parser must return in time, never read outside it, and fill only
 * NUL-terminated, lower-case, bounded strings.  Build with "make fuzz",
 * run with "make fuzz-run" (seeds in corpus-auth-results/). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mail/auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond)
{
	if (!cond)
		__builtin_trap();
}

static void expect_field(const char *s, size_t size, int lowered)
{
	size_t n = strnlen(s, size);

	expect(n < size);
	for (size_t i = 0; lowered && i < n; i++)
		expect(!(s[i] >= 'A' && s[i] <= 'Z'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct auth_results ar;
	int r = auth_results_parse((const char *)data, size, &ar);

	expect(r == 0 || r == -1);
	if (r) {
		expect(!ar.authserv_id[0] && ar.nres == 0);
		return 0;
	}
	expect(ar.authserv_id[0] != '\0');
	expect_field(ar.authserv_id, sizeof(ar.authserv_id), 1);
	expect(ar.nres <= AUTH_RESINFO_MAX);
	for (size_t i = 0; i < ar.nres; i++) {
		const struct auth_resinfo *ri = &ar.res[i];

		expect(ri->method[0] && ri->result[0]);
		expect_field(ri->method, sizeof(ri->method), 1);
		expect_field(ri->result, sizeof(ri->result), 1);
		expect_field(ri->header_d, sizeof(ri->header_d), 1);
		expect_field(ri->header_i, sizeof(ri->header_i), 1);
		expect_field(ri->header_from, sizeof(ri->header_from), 1);
		expect(!strchr(ri->header_from, '@') && !strchr(ri->header_d, '@'));
		/* alignment is symmetric and total on whatever the parser hands out */
		expect(auth_aligned(ri->header_d, ri->header_from) ==
		       auth_aligned(ri->header_from, ri->header_d));
	}
	return 0;
}
