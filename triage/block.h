/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The triage block: what the report reader found and whose bug it may
 * be, as plain text for a bug's first mail, its triage comment and
 * `bugbridge triage`.  A pure function of its inputs. */
#ifndef BB_TRIAGE_BLOCK_H
#define BB_TRIAGE_BLOCK_H

#include <stddef.h>

#include "triage/match.h"
#include "triage/reader.h"

/* The block ("Triage (read from the report by bugbridge; it may be
 * wrong):" and labelled lines: the kernel -- the version the logs print
 * and the bug's own field, each labelled, when both exist and differ --,
 * plain warnings for a distribution kernel and for taint flags, the
 * machine, the firmware, the first oops line, and at most max_sections
 * suggested MAINTAINERS sections (rk may be NULL), each with its reason).
 * kernel_field: the bug's kernel version field, or NULL.  malloc'd; NULL
 * when the report gave nothing to say (or out of memory). */
char *tri_block(const struct tri_report *r, const struct tri_ranking *rk,
		const char *kernel_field, size_t max_sections);

#endif
