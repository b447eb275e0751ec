/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "Still happening?": bugs that age out on their own (issue 38, item 2).
 *
 * An open bug with no activity (its last_change_time) for [aging]
 * ping_after, reported on a kernel (the bug's [bugzilla] kernel_field,
 * else the version the report reader finds in its description, comments
 * and text attachments) older than the newest release of a watched [tree]
 * (tracker/release.h), gets one mail on its thread, to its lists and its
 * reporter (in the envelope only), asking whether it still happens on
 * that release: once per bug and release (table aging_ping).  Without a
 * tree that showed a release, nothing is asked.  At most [aging]
 * daily_limit such mails go to one list in a UTC day, the bugs quiet
 * longest first, so turning aging on does not flood a list.  Regressions
 * the tracker tracks (or flagged as such) are never asked: they have their
 * own rules.  A bug that is private or restricted, in bugbridge's state
 * or in Bugzilla now, is never asked, nor closed.
 *
 * Without an answer (no activity on the bug) within [aging] ping_close,
 * the bug is closed as a needinfo question without an answer is
 * (needinfo_close_bug(): [aging] close_resolution and a comment saying
 * that a reply reopens it), and a reply from its reporter or an allowed,
 * authenticated sender reopens it as it does there.
 *
 * Time is bb_now().  The judgement of a bug that is not asked (why, in
 * state skipped) holds until its last_change_time changes.
 *
 * Exactly once across a crash at any point: the mail is queued in the
 * transaction that records the ping (Message-ID
 * bug-<id>-r<AGING_SEQ_BASE + 10 * ping + 1>@domain); the closing is
 * recorded (closing) before the PUT, which is made only while Bugzilla
 * has the bug open.
 */
#ifndef BB_AGING_H
#define BB_AGING_H

#include "bridge/sync.h"
#include "core/status.h"

/* The pings' notices are numbered from here, above needinfo's. */
#define AGING_SEQ_BASE 2000000000000LL

struct aging_stats {
	unsigned long pinged, closed, answered, skipped, limited;
};

/* The round's aging, in the round where needinfo's timed work runs:
 * pings whose time ran out closed (or found answered), then new pings
 * queued.  Nothing in a dry run, or with ping_after 0.  A Bugzilla that
 * fails for now leaves the rest for the next round (its error is
 * returned). */
enum bb_status aging_round(struct sync_context *sc, struct aging_stats *stats,
			   struct bb_error *err);

#endif
