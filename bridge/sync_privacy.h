/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Comments made private after they were mailed (issue 38).
 *
 * The sync fetches a changed bug's comments since its last round, so a
 * comment marked private in Bugzilla afterwards (which changes the bug:
 * its last_change_time, and for an insider a longdescs.isprivate entry in
 * its history) would never be seen again, and stay public on the bug
 * pages.  For the changed bugs that were mirrored before, have comments
 * the state holds as public, and whose change no comment of the round
 * explains (none is as new as the bug's last_change_time: a field changed,
 * or a comment's privacy), all their comments are fetched once more (one
 * batched request, GET /rest/bug/<first>/comment?ids=...): a
 * comment that is gone from them (Bugzilla leaves private comments out for
 * an account that is no insider) or comes back private is recorded so
 * (bz_comment.is_private), and every reader of the state leaves it out from
 * then on: the bug page (web/bugpages.c), which shows only mails whose
 * comments are all public.  A mail sent already cannot be taken back.  A
 * comment made private in the same round as a newer comment is added is
 * seen with the bug's next change that no comment explains. */
#ifndef BB_SYNC_PRIVACY_H
#define BB_SYNC_PRIVACY_H

#include <stddef.h>

#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "core/status.h"

/* Checks the n changed bugs (their comments are not touched) and records
 * the comments found private since; *hidden (may be NULL) counts them.
 * Not in a dry run.  A bug Bugzilla no longer shows is left alone (the
 * sync's visibility check withdraws it). */
enum bb_status sync_privacy_check(struct sync_context *sc, const struct bz_bug *bugs, size_t n,
				  unsigned long *hidden, struct bb_error *err);

#endif
