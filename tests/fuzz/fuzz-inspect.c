/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for attachments/inspect.c: inspect_memory() on arbitrary
 * bytes with small limits, checking the callback contract as it goes.
 * Build with "make fuzz", run with "make fuzz-run" (seeds in corpus/). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "attachments/inspect.h"

#define FUZZ_MAX_MEMBERS 64
#define FUZZ_MAX_TOTAL (8u * 1024 * 1024)
#define FUZZ_BLOCK (64u * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_state {
	uint64_t members;
	int sink_open;
	uint64_t sunk;           /* bytes given to the open sink */
};

/* A broken promise of the API is a crash, so that libFuzzer reports it. */
static void expect(int cond)
{
	if (!cond)
		__builtin_trap();
}

static int valid_hash(const char *hash)
{
	size_t i;

	for (i = 0; hash[i]; i++)
		if (!((hash[i] >= '0' && hash[i] <= '9') || (hash[i] >= 'a' && hash[i] <= 'f')))
			return 0;
	return i == 64;
}

static void check_member(const struct inspect_member *m)
{
	expect(m->path != NULL && m->kind != NULL);
	expect(m->depth >= 1 && m->depth <= 3);
	/* Files have hashes; so do hard links that carry the data (cpio). */
	expect(!m->hash || ((!strcmp(m->kind, "file") || !strcmp(m->kind, "hardlink")) &&
			    valid_hash(m->hash)));
	expect(m->depth == 1 || strstr(m->path, "!/") != NULL);
	/* Strings are readable to their end. */
	expect(strlen(m->path) < SIZE_MAX && strlen(m->kind) < 16);
	if (m->note)
		expect(strlen(m->note) < 4096);
}

static enum bb_status on_member(void *ctx, const struct inspect_member *m)
{
	struct fuzz_state *st = ctx;

	check_member(m);
	/* A direct member is reported after its data; nested members are
	 * reported while their container's data is still flowing. */
	expect(m->depth > 1 || !st->sink_open);
	st->members++;
	return BB_OK;
}

static enum bb_status on_begin(void *ctx, const struct inspect_member *m)
{
	struct fuzz_state *st = ctx;

	check_member(m);
	expect(m->depth == 1 && m->hash == NULL && !st->sink_open);
	st->sink_open = 1;
	st->sunk = 0;
	return BB_OK;
}

static enum bb_status on_data(void *ctx, const void *bytes, size_t len)
{
	struct fuzz_state *st = ctx;
	const volatile unsigned char *p = bytes;

	expect(st->sink_open && len > 0 && len <= FUZZ_BLOCK);
	/* Touch both ends so the sanitizer checks the whole range is valid. */
	(void)p[0];
	(void)p[len - 1];
	st->sunk += len;
	return BB_OK;
}

static enum bb_status on_end(void *ctx, const struct inspect_member *m, int ok)
{
	struct fuzz_state *st = ctx;

	check_member(m);
	expect(st->sink_open);
	expect(m->size == st->sunk);
	expect(ok ? m->hash != NULL : m->hash == NULL);
	st->sink_open = 0;
	return BB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct inspect_limits limits = { FUZZ_MAX_MEMBERS, FUZZ_MAX_TOTAL, 50, 3 };
	struct fuzz_state st;
	struct inspect_callbacks cb = { &st, on_member, on_begin, on_data, on_end };
	struct inspect_report report;
	struct bb_error err = BB_ERROR_INIT;
	enum bb_status result;

	memset(&st, 0, sizeof(st));
	result = inspect_memory(data, size, &limits, &cb, &report, &err);
	expect(result == BB_OK || result == BB_ERR_NOMEM);
	expect(!st.sink_open);
	if (result != BB_OK)
		return 0;
	expect(report.status >= INSPECT_NOT_ARCHIVE && report.status <= INSPECT_DAMAGED);
	expect(report.members == st.members && report.members <= FUZZ_MAX_MEMBERS);
	/* At most one block per open level past the limit. */
	expect(report.total <= FUZZ_MAX_TOTAL + 3 * FUZZ_BLOCK);
	expect(memchr(report.note, '\0', sizeof(report.note)) != NULL);
	expect(memchr(report.format, '\0', sizeof(report.format)) != NULL);
	expect(memchr(report.filters, '\0', sizeof(report.filters)) != NULL);
	if (report.status == INSPECT_NOT_ARCHIVE)
		expect(report.members == 0);
	if (report.status == INSPECT_TOO_LARGE || report.status == INSPECT_DAMAGED)
		expect(report.note[0] != '\0');
	return 0;
}
