/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the Atom reader of mail/archive.c:
 * archive_atom_parse() on arbitrary bytes.  Checks what archive.h promises:
 * on success every entry has a non-empty id and a link (both NUL-terminated
 * C strings), at most 10000 of them; on failure nothing is returned and err
 * carries the status, which is one of the documented ones.  Seeds in
 * corpus-archive-atom/ (public-inbox feeds, entity tricks). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mail/archive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond)
{
	if (!cond)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct archive_atom_entry *entries = NULL;
	struct bb_error err = BB_ERROR_INIT;
	size_t n = 99;
	enum bb_status st;

	st = archive_atom_parse((const char *)data, size, &entries, &n, &err);
	if (st != BB_OK) {
		expect(st == BB_ERR_PROTOCOL || st == BB_ERR_TOO_LARGE || st == BB_ERR_NOMEM);
		expect(err.code == st && err.message[0]);
		expect(entries == NULL && n == 0);
		return 0;
	}
	expect(n <= 10000);
	expect((n == 0) == (entries == NULL));
	for (size_t i = 0; i < n; i++) {
		size_t idlen;

		expect(entries[i].id != NULL && entries[i].link != NULL);
		idlen = strlen(entries[i].id);
		expect(idlen > 0 && idlen <= 4096);
		expect(strlen(entries[i].link) <= 8192);
		/* trimmed */
		expect(!strchr(" \t\r\n", entries[i].id[0]) &&
		       !strchr(" \t\r\n", entries[i].id[idlen - 1]));
	}
	archive_atom_entries_free(entries, n);
	return 0;
}
