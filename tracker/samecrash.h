/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Same crash, same bug (issue 34, item 7): the crash signatures
 * (triage/signature.h) of the bugs whose report mails bugbridge made are
 * kept per bug (table bug_signature); a report whose oops has the same
 * signature key names the open, public bugs and the tracked regressions
 * (state open or fix-incoming, by their bug) that have it: "same crash as
 * bug 218104 (regression #12)".  A bug is open while it has no
 * resolution; restricted bugs are never named (the triage block, the
 * /triage page and `triage --json` are public). */
#ifndef BB_TRACKER_SAMECRASH_H
#define BB_TRACKER_SAMECRASH_H

#include <stddef.h>

#include "core/status.h"
#include "core/store.h"
#include "triage/reader.h"
#include "triage/signature.h"

#define SAMECRASH_MAX_HITS 5   /* bugs named per signature */

struct samecrash_hit {
	long long bug;
	long long regression;   /* its tracked regression, 0 if none */
	const char *title;      /* the report's signature matched (borrowed) */
};

/* Records the signatures of bug's report (r, read from text) in place of
 * any it had.  A report without a signature records nothing. */
enum bb_status samecrash_record(struct store *db, long long bug, const struct tri_report *r,
				const char *text, size_t len, struct bb_error *err);

/* The open public bugs, and their tracked regressions, that share a key
 * with sigs (n of them), bug self (0: none) aside, newest first, at most
 * SAMECRASH_MAX_HITS per signature.  *out is malloc'd (NULL when none);
 * its titles point into sigs. */
enum bb_status samecrash_find(struct store *db, const struct tri_signature *sigs, size_t n,
			      long long self, struct samecrash_hit **out, size_t *nout,
			      struct bb_error *err);

/* Appends to *block (a triage block, tri_block(); may be NULL) a "Crash:"
 * line for each signature bug recorded, and a "Same crash:" line for each
 * open bug or tracked regression of the same crash; *block is replaced
 * (malloc'd).  Failures leave *block as it was. */
void samecrash_note(struct store *db, long long bug, char **block);

/* "bug 218104 (regression #12)", malloc'd. */
char *samecrash_hit_text(const struct samecrash_hit *h);

#endif
