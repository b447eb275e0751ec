/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A tiny TAP producer for the unit tests (run through automake's TAP driver).
 * Usage: ok(cond, "name %d", i); is_int(got, want, "name"); is_str(...);
 * done_testing() prints the plan and returns the exit code for main(). */
#ifndef BB_TAP_H
#define BB_TAP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"

static int tap_count, tap_failed;

/* A fixed generator (xorshift64): the same numbers every run, from the
 * seed below or tap_seed()'s. */
__attribute__((unused))
static uint64_t tap_rng_state = 0x9e3779b97f4a7c15ULL;

__attribute__((unused))
static void tap_seed(uint64_t seed)
{
	tap_rng_state = seed ? seed : 1;
}

__attribute__((unused))
static uint64_t tap_rand64(void)
{
	tap_rng_state ^= tap_rng_state << 13;
	tap_rng_state ^= tap_rng_state >> 7;
	tap_rng_state ^= tap_rng_state << 17;
	return tap_rng_state;
}

/* A number from 0 to n - 1 (n > 0). */
__attribute__((unused))
static unsigned tap_rand(unsigned n)
{
	return (unsigned)(tap_rand64() % n);
}

/* A whole file, NUL-terminated (free() it; *len, if not NULL, gets its
 * length); NULL if it cannot be opened. */
__attribute__((unused))
static char *tap_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct buf b = BUF_INIT;
	char chunk[65536];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (buf_add(&b, chunk, n))
			abort();
	fclose(f);
	return buf_detach(&b, len);
}

__attribute__((format(printf, 2, 3)))
static int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

#define is_int(got, want, ...) do {                                            \
	long long tap_g_ = (long long)(got), tap_w_ = (long long)(want);        \
	if (!ok(tap_g_ == tap_w_, __VA_ARGS__))                                  \
		printf("#   got %lld, want %lld\n", tap_g_, tap_w_);             \
} while (0)

#define is_str(got, want, ...) do {                                            \
	const char *tap_g_ = (got), *tap_w_ = (want);                            \
	if (!ok(tap_g_ && tap_w_ && !strcmp(tap_g_, tap_w_), __VA_ARGS__))       \
		printf("#   got \"%s\", want \"%s\"\n", tap_g_ ? tap_g_ : "(null)", \
		       tap_w_ ? tap_w_ : "(null)");                               \
} while (0)

__attribute__((format(printf, 1, 2), unused))
static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Where the shared corpora and fixtures are: $BUGBRIDGE_SHARED, else
 * ../shared beside the source tree.  Fills out (size len). */
__attribute__((unused))
static void tap_shared_dir(char *out, size_t len)
{
	const char *env = getenv("BUGBRIDGE_SHARED");
	const char *top = getenv("top_srcdir");

	if (env && *env)
		snprintf(out, len, "%s", env);
	else
		snprintf(out, len, "%s/../shared", top && *top ? top : ABS_SRCDIR);
}

static int done_testing(void)
{
	printf("1..%d\n", tap_count);
	fflush(stdout); /* before a leak checker's exit handler can end the process */
	return tap_failed ? 1 : 0;
}

#endif
