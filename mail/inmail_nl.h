/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The line ends of a mail, found 64 bytes at a time: for mail/inmail*.c,
 * whose passes read a mail line by line (the header pass, the raw scan).
 *
 * A list's mail has lines of 47 bytes on average (60 in its header
 * section), and a memchr() a line cost a third of the raw scan.  The bytes
 * are looked at 64 at a time (with SSE2, four compares), each 64 giving a
 * mask of their line ends; nothing past end is read.
 *
 *     struct nl_finder f;
 *     nl_finder_init(&f, p, end);
 *     while (p < end) {
 *             const char *nl = nl_finder_next(&f);   (NULL: no more)
 *             ...
 *             p = nl ? nl + 1 : end;
 *     }
 *
 * Each line end is handed out once, in turn, as a memchr() from each
 * line's start would find them: a caller reads every line from where it
 * started the finder, skipping none.
 */
#ifndef BB_INMAIL_NL_H
#define BB_INMAIL_NL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

struct nl_finder {
	const char *base;  /* the bytes mask covers start here */
	const char *top;   /* and end here (at most 64 bytes; none yet: base) */
	const char *end;
	uint64_t mask;     /* bit i: base[i] is a '\n' not handed out yet */
};

static inline void nl_finder_init(struct nl_finder *f, const char *p, const char *end)
{
	f->base = f->top = p;
	f->end = end;
	f->mask = 0;
}

/* The mask of the line ends of the n bytes at p (n <= 64). */
static inline uint64_t nl_mask(const char *p, size_t n)
{
	uint64_t mask = 0;

#ifdef __SSE2__
	if (n == 64) {
		const __m128i nl = _mm_set1_epi8('\n');
		uint64_t m0 = (uint32_t)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), nl));
		uint64_t m1 = (uint32_t)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)), nl));
		uint64_t m2 = (uint32_t)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 32)), nl));
		uint64_t m3 = (uint32_t)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 48)), nl));

		return m0 | m1 << 16 | m2 << 32 | m3 << 48;
	}
#endif
	for (const char *q = p; (q = memchr(q, '\n', n - (size_t)(q - p))) != NULL; q++)
		mask |= (uint64_t)1 << (q - p);
	return mask;
}

/* The next line end (after the one the last call gave), NULL when there
 * is none before end.  The bytes are looked at in turn, 64 at a time from
 * where nl_finder_init() started: a line end is a bit of the mask. */
static inline const char *nl_finder_next(struct nl_finder *f)
{
	const char *nl;

	while (!f->mask) {
		size_t n;

		if (f->top >= f->end)
			return NULL;
		f->base = f->top;
		n = (size_t)(f->end - f->base) < 64 ? (size_t)(f->end - f->base) : 64;
		f->top = f->base + n;
		f->mask = nl_mask(f->base, n);
	}
	nl = f->base + __builtin_ctzll(f->mask);
	f->mask &= f->mask - 1;
	return nl;
}

#endif
