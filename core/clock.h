/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bridge's own notion of "now".
 *
 * Bugzilla's side runs on the server's clock (GET /rest/time); where
 * bugbridge needs a time of its own (when a question waits long enough
 * for a reminder, when a bug ages out), it reads it here, and only here,
 * so that a test can move it: BUGBRIDGE_TEST_NOW, a whole number of Unix
 * seconds, stands for the present when it is set (tests only; nothing
 * else is read).  A value that is not such a number is ignored.
 */
#ifndef BB_CLOCK_H
#define BB_CLOCK_H

#include <stddef.h>
#include <time.h>

/* The present, in Unix seconds: BUGBRIDGE_TEST_NOW when it is set to a
 * number, else time(NULL). */
time_t bb_now(void);

/* The day of t, UTC, as "2026-12-17" (size: 11 or more); "" if t cannot
 * be read as a date. */
void bb_day_text(time_t t, char *out, size_t size);

#endif
