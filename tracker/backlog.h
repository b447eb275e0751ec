/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether the backlog grows: open bugs and open regressions per week over
 * the last year, and a small SVG chart of them, made by the server (no
 * script), for the front door's bug list and the regressions index
 * (issue 38, item 4).
 *
 * The weeks end at the end of the UTC day of now and every 7 days before
 * it, BACKLOG_WEEKS of them, oldest first.  A bug is counted as bugs are
 * listed: imported (imp_bug) and mirrored (bz_bug) ones that are public;
 * it is open at a time after it was filed and before it was closed.
 * Bugzilla keeps no closing date the bridge reads, so a closed bug (one
 * with a resolution) counts as closed from its last change on, and a
 * regression the tracker no longer counts open (open, fix-incoming)
 * from its last update on. */
#ifndef BB_TRACKER_BACKLOG_H
#define BB_TRACKER_BACKLOG_H

#include <time.h>

#include "core/buf.h"
#include "core/status.h"
#include "core/store.h"

#define BACKLOG_WEEKS 52

struct backlog {
	time_t end[BACKLOG_WEEKS];          /* each week's end, oldest first */
	long long bugs[BACKLOG_WEEKS];      /* open bugs then */
	long long regressions[BACKLOG_WEEKS]; /* open regressions then */
};

/* Counts the weeks up to now on db.  BB_ERR_DATABASE on failure. */
enum bb_status backlog_count(struct store *db, time_t now, struct backlog *out,
			     struct bb_error *err);

/* Appends the chart to out: <figure id="backlog"> holding an inline <svg>
 * (role img, a <title>; each series a <polyline> whose data-counts are
 * its numbers, oldest first) and a caption that says the numbers now and
 * a year ago in words.  Nothing in it comes from users. */
enum bb_status backlog_svg(const struct backlog *b, struct buf *out);

#endif
