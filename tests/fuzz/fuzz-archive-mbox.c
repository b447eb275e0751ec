/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the mbox splitter of mail/archive.c.  The input is
 * split twice, whole and in pieces whose sizes come from the first byte,
 * and both must give the same messages and offsets (a poll reads a file in
 * chunks), and ending it as "complete" or "more may come" may differ only
 * by a temporary error.  Also checks the promises of archive.h: offsets
 * grow and stay within the stream, messages are non-empty,
 * NUL-terminated and within the size limit.  Seeds in
 * corpus-archive-mbox/. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/digest.h"
#include "mail/archive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_MESSAGE 4096

struct record {
	size_t n;
	uint64_t last_end;
	struct sha256 all;   /* hash of every (offset, message) in order */
	size_t stream_len;
};

static void expect(int cond)
{
	if (!cond)
		__builtin_trap();
}

static enum bb_status on_message(void *ctx, const char *raw, size_t len, uint64_t end)
{
	struct record *r = ctx;

	expect(end >= r->last_end && end <= r->stream_len);
	r->last_end = end;
	sha256_update(&r->all, &end, sizeof(end));
	if (!raw) {
		expect(len == 0);
		sha256_update(&r->all, "-", 1);
		return BB_OK;
	}
	expect(len > 0 && len <= MAX_MESSAGE && raw[len] == '\0');
	sha256_update(&r->all, raw, len);
	r->n++;
	return r->n > 10000 ? BB_ERR_TOO_LARGE : BB_OK;
}

static enum bb_status run(const uint8_t *data, size_t size, size_t piece, int complete,
			  char hex[SHA256_HEX_LEN + 1], size_t *count)
{
	struct record r = { 0, 0, { NULL }, size };
	struct bb_error err = BB_ERROR_INIT;
	struct archive_mbox *m;
	enum bb_status st = BB_OK;

	if (sha256_init(&r.all))
		return BB_ERR_NOMEM;
	m = archive_mbox_new(0, MAX_MESSAGE, on_message, &r);
	if (!m) {
		sha256_release(&r.all);
		return BB_ERR_NOMEM;
	}
	for (size_t at = 0; at < size && !st; at += piece)
		st = archive_mbox_feed(m, data + at, size - at < piece ? size - at : piece, &err);
	if (!st)
		st = archive_mbox_finish(m, complete, &err);
	expect(st == BB_OK || err.code == st);
	archive_mbox_free(m);
	sha256_final_hex(&r.all, hex);
	*count = r.n;
	return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char whole[SHA256_HEX_LEN + 1], pieces[SHA256_HEX_LEN + 1];
	size_t n1 = 0, n2 = 0, piece;
	enum bb_status a, b;

	piece = size * 7 % 61 + 1;
	a = run(data, size, size ? size : 1, 1, whole, &n1);
	b = run(data, size, piece, 1, pieces, &n2);
	expect(a == b && n1 == n2);
	if (a == BB_OK)
		expect(!strcmp(whole, pieces));
	expect(a == BB_OK || a == BB_ERR_INVALID || a == BB_ERR_TOO_LARGE || a == BB_ERR_NOMEM);
	/* more may come: the same, or temporary when the last line is open */
	b = run(data, size, piece, 0, pieces, &n2);
	expect(b == a || b == BB_ERR_TEMPORARY);
	return 0;
}
