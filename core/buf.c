/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"

char buf_empty_string[1];

void buf_init(struct buf *b)
{
	b->data = buf_empty_string;
	b->len = 0;
	b->alloc = 0;
	b->cap = 0;
}

void buf_init_capped(struct buf *b, size_t cap)
{
	buf_init(b);
	b->cap = cap;
}

void buf_release(struct buf *b)
{
	size_t cap = b->cap;

	if (b->alloc)
		free(b->data);
	buf_init(b);
	b->cap = cap;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->alloc) /* never write to the shared empty string */
		b->data[0] = '\0';
}

enum bb_status buf_grow(struct buf *b, size_t extra)
{
	size_t want, alloc;
	char *p;

	if (extra > SIZE_MAX - b->len - 1)
		return BB_ERR_NOMEM;
	want = b->len + extra;
	if (b->cap && want > b->cap)
		return BB_ERR_TOO_LARGE;
	if (want + 1 <= b->alloc)
		return BB_OK;
	alloc = b->alloc ? b->alloc : 64;
	while (alloc < want + 1)
		alloc = alloc > SIZE_MAX / 2 ? want + 1 : alloc * 2;
	p = realloc(b->alloc ? b->data : NULL, alloc);
	if (!p)
		return BB_ERR_NOMEM;
	if (!b->alloc)
		p[0] = '\0';
	b->data = p;
	b->alloc = alloc;
	return BB_OK;
}

enum bb_status buf_add(struct buf *b, const void *data, size_t len)
{
	enum bb_status st = buf_grow(b, len);

	if (st)
		return st;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return BB_OK;
}

enum bb_status buf_addstr(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

enum bb_status buf_addch(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

enum bb_status buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	enum bb_status st;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return BB_ERR_INVALID;
	st = buf_grow(b, (size_t)n);
	if (st)
		return st;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return BB_OK;
}

enum bb_status buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	enum bb_status st;

	va_start(ap, fmt);
	st = buf_vaddf(b, fmt, ap);
	va_end(ap);
	return st;
}

void buf_truncate(struct buf *b, size_t len)
{
	if (len >= b->len)
		return;
	b->len = len;
	b->data[len] = '\0';
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p;

	if (len)
		*len = b->len;
	if (!b->alloc) {
		p = calloc(1, 1);
	} else {
		p = b->data;
	}
	b->data = buf_empty_string;
	b->len = 0;
	b->alloc = 0;
	if (!p)
		abort(); /* out of memory for one byte: nothing sensible is left */
	return p;
}

char *str_printf(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	enum bb_status st;

	va_start(ap, fmt);
	st = buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (st) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}
