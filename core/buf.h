/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buf: the one growable byte buffer used everywhere.
 *
 * A buf always holds a NUL byte after its last used byte, so buf.data can be
 * handed to any C string function (it may still hold binary data with NULs
 * inside; use buf.len for its length).  An initialised but empty buf points
 * at a static empty string and owns no memory.
 *
 * A buf may carry a size cap (buf.cap, 0 = unlimited).  Every append that
 * would make buf.len exceed the cap fails with BB_ERR_TOO_LARGE and leaves
 * the buf as it was; use it for anything that comes from the network or a
 * file.  Memory comes from malloc; buf_release() frees it, buf_detach()
 * hands it to the caller (free() it).
 */
#ifndef BB_BUF_H
#define BB_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "core/status.h"

struct buf {
	char *data;   /* never NULL after buf_init(); always NUL-terminated */
	size_t len;   /* bytes used, not counting the terminating NUL */
	size_t alloc; /* bytes allocated, 0 while data is the static "" */
	size_t cap;   /* largest len allowed, 0 for no limit */
};

#define BUF_INIT { buf_empty_string, 0, 0, 0 }
extern char buf_empty_string[];

void buf_init(struct buf *b);
/* Like buf_init() but refuses to grow beyond cap bytes of content. */
void buf_init_capped(struct buf *b, size_t cap);
/* Frees the memory and leaves b empty and reusable (the cap is kept). */
void buf_release(struct buf *b);
/* Empties b but keeps its memory for reuse. */
void buf_reset(struct buf *b);
/* Makes room for at least extra more bytes.  BB_ERR_NOMEM or BB_ERR_TOO_LARGE. */
enum bb_status buf_grow(struct buf *b, size_t extra);
enum bb_status buf_add(struct buf *b, const void *data, size_t len);
enum bb_status buf_addstr(struct buf *b, const char *s);
enum bb_status buf_addch(struct buf *b, char c);
enum bb_status buf_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
enum bb_status buf_vaddf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Shortens b to len bytes (len <= b->len). */
void buf_truncate(struct buf *b, size_t len);
/* Returns the malloc'd contents (never NULL; free() it) and leaves b empty. */
char *buf_detach(struct buf *b, size_t *len);
/* Formats into a new malloc'd string (free() it); NULL when out of memory. */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
