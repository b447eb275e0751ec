/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for bridge/maintainers: parses the input as a
 * MAINTAINERS file, checks the invariants the header promises, and looks
 * up a name taken from the input and every section by its own name. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail/maintainers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
	if (!cond)
		abort();
}

static void check_array(char **v, int addresses_only)
{
	check(v != NULL);
	for (; *v; v++) {
		size_t len;
		const char *a = mnt_address_span(*v, &len);
		char *copy = mnt_address(*v);

		check(**v != '\0');
		check(a >= *v && a + len <= *v + strlen(*v));
		check(copy && strlen(copy) == len && !memcmp(copy, a, len));
		if (addresses_only)
			check(len == strlen(*v));
		free(copy);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	const char *text = (const char *)data;
	const char *nl = memchr(text, '\n', size);
	size_t name_len = nl ? (size_t)(nl - text) : size;
	char *name;

	if (mnt_parse(&mf, text, size, &err) != BB_OK)
		return 0;   /* only out of memory */

	for (size_t i = 0; i < mnt_count(mf); i++) {
		const struct mnt_section *s = mnt_section_at(mf, i), *found;

		check(s && s->name && *s->name && s->status);
		check(!strchr(s->name, '\n'));
		check_array(s->maintainers, 0);
		check_array(s->reviewers, 0);
		check_array(s->lists, 1);
		check(s->files && s->excluded && s->file_regexes && s->content_regexes &&
		      s->trees && s->web && s->bug_urls && s->chats && s->patchwork &&
		      s->profiles);
		/* by its own name: this section or an earlier one of the same name */
		found = mnt_find(mf, s->name);
		check(found != NULL && found <= s);
	}
	check(mnt_section_at(mf, mnt_count(mf)) == NULL);

	/* the first line of the input, as a name someone might configure */
	name = malloc(name_len + 1);
	if (name) {
		memcpy(name, text, name_len);
		name[name_len] = '\0';
		(void)mnt_find(mf, name);
		free(mnt_address(name));
		free(name);
	}
	mnt_free(mf);
	return 0;
}
