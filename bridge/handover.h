/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Handing a bug over by mail (issue 37, item 3).
 *
 * "#bugbridge reassign <target>" in a reply on a bug's thread, from a
 * sender allowed to act on the bug, moves the bug: the target is a route
 * ([route NAME]) or MAINTAINERS section name (that route's product, else
 * the bug's, and its component), "<product>/<component>", or a component
 * of the bug's product.  The product and component are checked against
 * the server's (its product field's values, GET /rest/product/<name>):
 * an unknown one is refused, the answer listing the legal ones.
 *
 * When the route computed for the moved bug gives other lists than
 * before, the new lists get ONE hand-over mail, a thread of its own:
 * who handed it over and why (the text of their mail), the content
 * routing suggestion when it names another section than the target, the
 * report and the public comments as a backlog summary.  Its Message-ID
 * is bug-<id>-r<HANDOVER_SEQ_BASE + 10 * n>, n the bug's hand-over
 * number, and the later mails of the bug's thread answer it.  The old
 * thread gets a one-line pointer (HANDOVER_SEQ_BASE + 10 * n + 1).
 *
 * Across a crash: the hand-over is recorded pending (table handover,
 * with the lists before) before Bugzilla's change, which is the same
 * when made twice; its mails are queued in the transaction that marks it
 * done and ends the command, so they go out once. */
#ifndef BB_HANDOVER_H
#define BB_HANDOVER_H

#include "bridge/inbound.h"
#include "bridge/mailcmd.h"
#include "bridge/sync.h"
#include "core/status.h"

#define HANDOVER_SEQ_BASE 4000000000000LL

/* The change recorded for a reassign command (in_command.change):
 * {"reassign": target as written, "by": sender}; malloc'd, NULL when out
 * of memory. */
char *handover_change(const struct mailcmd *c, const char *sender);

/* Does the command seq of recorded mail row (intent), as above.  A
 * temporary failure of Bugzilla is returned (the command stays an
 * intent, the hand-over pending). */
enum bb_status handover_command(struct sync_context *sc, long long row, int seq,
				long long bug_id, const char *change,
				struct inbound_stats *stats, struct bb_error *err);

/* The Message-ID (malloc'd) the bug's thread answers: its last hand-over
 * mail's, else its report mail's (the stored one, else the form it has);
 * NULL when out of memory. */
char *handover_thread_root(struct sync_context *sc, long long bug_id);

#endif
