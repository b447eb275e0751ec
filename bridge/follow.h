/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Following and leaving one bug by mail (issue 37, item 2).
 *
 * "#bugbridge subscribe" in a reply on a bug's thread, from an
 * authenticated sender (any: following needs no right to change the
 * bug), Cc's the sender on the mails bugbridge sends for that bug from
 * then on, and adds the address to Bugzilla's CC list when an account has
 * it (PUT /rest/bug/<id> {"cc": {"add": [...]}}).  "#bugbridge
 * unsubscribe" (or "uncc", syzbot's word) takes the address off both:
 * also when it was the bridge's own Cc (the reporter, a culprit's people,
 * a person of the bug's route), and it stays off that bug's mails.
 * Bugzilla's refusal (a stock 5.2 lets only a user who can edit the bug
 * take another person off its CC list: cc_remove_denied) or an address
 * without an account changes nothing there; the answer on the thread
 * says so.
 *
 * [mail] cc_reporter asks once: the reporter of a bug (its creator in
 * Bugzilla; for a bug the front door filed, the address its form gave;
 * nobody for one filed at the submit box, whose sender was answered
 * there) is never Cc'd without consent; when the bug is first mirrored
 * the reporter gets one mail of their own (not on the list) saying where
 * the bug is discussed and that a reply "#bugbridge subscribe" on the
 * list thread, from the reporter's address, Cc's them.
 *
 * The state is table follow (core/store.c): written with the command's
 * outcome in one transaction, after Bugzilla's CC change (which is the
 * same when made twice), so a command is acted on once across a crash. */
#ifndef BB_FOLLOW_H
#define BB_FOLLOW_H

#include "bridge/inbound.h"
#include "bridge/mailcmd.h"
#include "bridge/route.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "core/status.h"

/* The reporter's one question is numbered bug-<id>-r<FOLLOW_SEQ_BASE>. */
#define FOLLOW_SEQ_BASE 3000000000000LL

/* Whether verb is subscribe or unsubscribe: an authenticated sender may
 * give it for themselves without being allowed to change the bug. */
int follow_verb(enum mailcmd_verb verb);

/* The change recorded for such a command (in_command.change):
 * {"follow": "subscribe" or "unsubscribe", "who": sender}; malloc'd, NULL
 * when out of memory. */
char *follow_change(const struct mailcmd *c, const char *sender);

/* Does the command seq of recorded mail row (intent): Bugzilla's CC
 * first, then the follow row and the command's outcome in one
 * transaction.  A temporary failure of Bugzilla is returned (the command
 * stays an intent). */
enum bb_status follow_command(struct sync_context *sc, long long row, int seq, long long bug_id,
			      const char *change, struct inbound_stats *stats,
			      struct bb_error *err);

/* The Cc of a mail of bug: route->cc with the bug's subscribers, without
 * those who left it.  With ask set and [mail] cc_reporter, the reporter
 * not asked yet is asked (the mail queued, the row written: call it in
 * the transaction that queues the bug's mail; nothing in a dry run). */
enum bb_status follow_route(struct sync_context *sc, const struct bz_bug *bug,
			    struct route_result *route, int ask, struct bb_error *err);

/* Whether address left bug_id's mails ("#bugbridge unsubscribe"). */
int follow_left(struct sync_context *sc, long long bug_id, const char *address);

#endif
