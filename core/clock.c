/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bridge's own notion of "now" (see clock.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "core/clock.h"

time_t bb_now(void)
{
	const char *fixed = getenv("BUGBRIDGE_TEST_NOW");
	char *end;
	long long v;

	if (fixed && *fixed) {
		errno = 0;
		v = strtoll(fixed, &end, 10);
		if (!errno && end != fixed && !*end && v >= 0)
			return (time_t)v;
	}
	return time(NULL);
}

void bb_day_text(time_t t, char *out, size_t size)
{
	struct tm tm;

	if (!size)
		return;
	*out = '\0';
	if (gmtime_r(&t, &tm))
		strftime(out, size, "%Y-%m-%d", &tm);
}
