/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for bugzilla/bz_xml.c: bz_xml_read_memory() on arbitrary
 * bytes, checking what the callbacks receive against bz_xml.h and bug.h
 * (complete bugs, valid UTF-8, attachment data in chunks closed by one
 * NULL/0 call).  Build with "make fuzz", run with "make fuzz-run" (seeds
 * in corpus-bz-xml/). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bugzilla/bug.h"
#include "bugzilla/bz_xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_state {
	unsigned bugs;
	long long data_bug, data_attachment;  /* the attachment receiving bytes */
	int data_open;
};

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
			/* XML 1.0 has no place for these */
			expect(*p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r');
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

static enum bb_status on_bug(void *ctx, struct bz_bug *b)
{
	struct fuzz_state *s = ctx;

	s->bugs++;
	s->data_open = 0;   /* bytes of an attachment whose base64 broke are dropped */
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
	for (size_t i = 0; i < b->nfields; i++) {
		expect_utf8(b->fields[i].name);
		expect_utf8(b->fields[i].value);
	}
	for (size_t i = 0; i < b->ncomments; i++) {
		expect(b->comments[i].bug_id == b->id);
		expect_utf8(b->comments[i].text);
		expect_utf8(b->comments[i].author.login);
		expect_utf8(b->comments[i].author.real_name);
		if (i)
			expect(b->comments[i - 1].count <= b->comments[i].count);
	}
	for (size_t i = 0; i < b->nattachments; i++) {
		expect(b->attachments[i].bug_id == b->id);
		expect_utf8(b->attachments[i].file_name);
		expect_utf8(b->attachments[i].summary);
		expect_utf8(b->attachments[i].content_type);
		expect_utf8(b->attachments[i].creator.login);
		expect_utf8(b->attachments[i].creator.real_name);
	}
	bz_bug_free(b);
	return s->bugs >= 1000 ? BB_ERR_TOO_LARGE : BB_OK;
}

static enum bb_status on_not_found(void *ctx, long long id, const char *error)
{
	(void)ctx;
	expect(id >= 0);
	expect_utf8(error);
	return BB_OK;
}

static enum bb_status on_data(void *ctx, long long bug_id, long long attachment_id,
			      const void *data, size_t len)
{
	struct fuzz_state *s = ctx;

	if (s->data_open && (s->data_bug != bug_id || s->data_attachment != attachment_id))
		s->data_open = 0;   /* the previous one broke off */
	if (!data) {
		expect(len == 0);
		s->data_open = 0;
		return BB_OK;
	}
	expect(len > 0);
	s->data_open = 1;
	s->data_bug = bug_id;
	s->data_attachment = attachment_id;
	return BB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_state s = { 0, 0, 0, 0 };
	struct bz_xml_callbacks cb = { &s, on_bug, on_not_found, on_data };
	struct bb_error err = BB_ERROR_INIT;
	enum bb_status st;

	st = bz_xml_read_memory((const char *)data, size, &cb, &err);
	expect(st == BB_OK || err.code == st);
	expect(st == BB_OK || st == BB_ERR_INVALID || st == BB_ERR_TOO_LARGE ||
	       st == BB_ERR_NOMEM);
	return 0;
}
