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
 *             const char *nl = nl_finder_next(&f, p);   (NULL: no more)
 *             ...
 *             p = nl ? nl + 1 : end;
 *     }
 *
 * Lines are found in turn: each call's from is where the last call's line
 * end was, + 1 (the first call's: where nl_finder_init() started), as a
 * memchr() from each line's start would find them.
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

/* The first line end at or after from (see above for which from), NULL
 * when there is none before end.  The line ends before from in the bytes
 * looked at were handed out already: their bits are gone from the mask. */
static inline const char *nl_finder_next(struct nl_finder *f, const char *from)
{
	for (;;) {
		if (from >= f->top) {
			/* past the bytes looked at: the next 64 from where asked */
			size_t n;

			if (from >= f->end)
				return NULL;
			n = (size_t)(f->end - from) < 64 ? (size_t)(f->end - from) : 64;
			f->base = from;
			f->top = from + n;
			f->mask = nl_mask(from, n);
		}
		if (f->mask) {
			const char *nl = f->base + __builtin_ctzll(f->mask);

			f->mask &= f->mask - 1;
			return nl;
		}
		from = f->top;
	}
}

#endif
