/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the REST parsers of bugzilla/bz_json.c and
 * bugzilla/bz_fields.c: the same bytes go to bz_parse_bugs(),
 * bz_parse_comments(), bz_parse_attachments() and bz_parse_fields() (the
 * answer of /rest/field/bug), and whatever they build must keep bug.h's
 * promises (valid UTF-8, no NULL strings, comments by count, one copy per
 * id).  Build with "make fuzz", run with "make fuzz-run" (seeds in
 * corpus-bz-json/). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bugzilla/bug.h"
#include "bugzilla/bz_client.h"
#include "bugzilla/bz_fields.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond)
{
	if (!cond)
		__builtin_trap();
}

static void expect_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	expect(s != NULL);
	while (*p) {
		int n;

		if (*p < 0x80) {
			p++;
			continue;
		}
		if (*p >= 0xC2 && *p <= 0xDF) n = 1;
		else if ((*p & 0xF0) == 0xE0) n = 2;
		else if (*p >= 0xF0 && *p <= 0xF4) n = 3;
		else { expect(0); return; }
		p++;
		for (int i = 0; i < n; i++, p++)
			expect((*p & 0xC0) == 0x80);
	}
}

static void check_list(char **list)
{
	expect(list != NULL);
	for (char **p = list; *p; p++)
		expect_utf8(*p);
}

static void check_bug(const struct bz_bug *b, int parsed)
{
	if (parsed) {
		expect(b->id > 0);
		expect_utf8(b->summary);
		expect_utf8(b->product);
		expect_utf8(b->component);
		expect_utf8(b->status);
		expect_utf8(b->resolution);
		expect_utf8(b->severity);
		expect_utf8(b->priority);
		expect_utf8(b->version);
		expect_utf8(b->url);
		expect_utf8(b->creator.login);
		expect_utf8(b->creator.real_name);
		expect_utf8(b->assigned_to.login);
		expect_utf8(b->assigned_to.real_name);
		check_list(b->keywords);
		check_list(b->groups);
		check_list(b->cc);
		expect(b->dupe_of >= 0);
		for (size_t i = 0; i < b->nfields; i++) {
			expect_utf8(b->fields[i].name);
			expect_utf8(b->fields[i].value);
		}
	}
	for (size_t i = 0; i < b->ncomments; i++) {
		const struct bz_comment *c = &b->comments[i];

		expect(c->id > 0 && c->bug_id == b->id && c->attachment_id >= 0);
		expect_utf8(c->text);
		expect_utf8(c->author.login);
		expect_utf8(c->author.real_name);
		if (i) {
			const struct bz_comment *p = &b->comments[i - 1];

			expect(p->count < c->count || (p->count == c->count && p->id < c->id));
		}
		for (size_t k = 0; k < i; k++)
			expect(b->comments[k].id != c->id);
	}
	for (size_t i = 0; i < b->nattachments; i++) {
		const struct bz_attachment *a = &b->attachments[i];

		expect(a->id > 0 && a->bug_id == b->id);
		expect_utf8(a->file_name);
		expect_utf8(a->summary);
		expect_utf8(a->content_type);
		expect_utf8(a->creator.login);
		if (i)
			expect(b->attachments[i - 1].id < a->id);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long long ids[] = { 1, 2, 4, 5, 18, 31, 1273442 };
	struct bz_bug known[sizeof(ids) / sizeof(ids[0])];
	size_t nknown = sizeof(ids) / sizeof(ids[0]);
	struct bb_error err = BB_ERROR_INIT;
	struct bz_bug *bugs = NULL;
	size_t n = 0;
	enum bb_status st;

	st = bz_parse_bugs((const char *)data, size, "cf_subsystem", &bugs, &n, &err);
	expect(st != BB_OK || err.code == BB_OK);
	expect(st == BB_OK || (n == 0 && bugs == NULL && err.code == st));
	for (size_t i = 0; i < n; i++) {
		check_bug(&bugs[i], 1);
		bz_bug_release(&bugs[i]);
	}
	free(bugs);

	memset(known, 0, sizeof(known));
	for (size_t i = 0; i < nknown; i++)
		known[i].id = ids[i];
	/* twice: the second merges into what the first built */
	for (int round = 0; round < 2; round++) {
		st = bz_parse_comments((const char *)data, size, known, nknown, &err);
		expect(st == BB_OK || err.code == st);
		st = bz_parse_attachments((const char *)data, size, known, nknown, &err);
		expect(st == BB_OK || err.code == st);
		for (size_t i = 0; i < nknown; i++)
			check_bug(&known[i], 0);
	}
	for (size_t i = 0; i < nknown; i++)
		bz_bug_release(&known[i]);

	{
		/* fields: names never NULL, a value's name NULL only in
		 * bug_status (the new-bug entry), its transitions terminated */
		struct bz_fields *f = NULL;

		st = bz_parse_fields((const char *)data, size, &f, &err);
		expect(st == BB_OK ? f != NULL : (f == NULL && err.code == st));
		for (size_t i = 0; f && i < f->n; i++) {
			const struct bz_field_info *fi = &f->fields[i];

			expect(fi->name != NULL && fi->display_name != NULL);
			expect(fi->nvalues == 0 || fi->values != NULL);
			for (size_t k = 0; k < fi->nvalues; k++) {
				const struct bz_field_value *v = &fi->values[k];

				expect(v->name != NULL || !strcmp(fi->name, "bug_status"));
				for (char **c = v->can_change_to; c && *c; c++)
					expect(strlen(*c) < 1024 * 1024);
			}
			expect(bz_fields_find(f, fi->name) != NULL);
		}
		bz_fields_free(f);
	}
	return 0;
}
