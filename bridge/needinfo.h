/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "#bugbridge needinfo": a bug that waits for an answer, and what becomes
 * of it when none comes (issue 38, item 1).
 *
 * An allowed, authenticated sender writes
 *     #bugbridge needinfo [reporter|<address>] <question>
 * in the bug's thread.  The question is recorded (table needinfo) and
 * mailed on the thread, to the bug's lists and to the person asked (the
 * reporter only in the envelope: a reporter's address never reaches a
 * list's headers), in one transaction with the command's outcome.
 * Bugzilla shows the waiting where it can, chosen when the question is
 * asked (needinfo.mark): a needinfo flag type for the bug's product and
 * component (GET /rest/flag_type) gets "needinfo?" (requestee: the person
 * asked, when the type takes one); else an open NEEDINFO status in GET
 * /rest/field/bug that the workflow allows from the bug's status; else a
 * needinfo keyword the keywords field lists; else nothing ("bridge").
 * The round puts the mark on, and takes it off (the status back to the
 * one before) once the question is answered or ended; the closing PUT
 * takes a flag or keyword off with it.  A stock Bugzilla 5.2 has none of
 * the three: the waiting is then the bridge's own state only.
 *
 * Then, with the time read from bb_now():
 *   - a reply from the person asked (its From:, no authentication needed)
 *     answers it: nothing more happens;
 *   - unanswered [aging] needinfo_remind after it was asked, one reminder
 *     goes out on the thread (again to the person asked);
 *   - unanswered [aging] needinfo_close after the reminder, the bug is
 *     closed with [aging] close_resolution (by default the first of
 *     INSUFFICIENT_DATA, INVALID the server has, GET /rest/field/bug) and,
 *     in the same PUT, a comment saying that a reply reopens it; the sync
 *     mails that comment and the status on the thread as any other;
 *   - a reply to a bug closed so, from the person asked or from an
 *     authenticated sender allowed to give commands for the bug, reopens
 *     it (the first open status the workflow allows, or [inbound]
 *     reopen_status) with a comment saying who answered.
 * A bug that is not mirrored (private, restricted to groups) gets no
 * reminder and is not closed while it is so.
 *
 * Exactly once across a crash at any point: a mail is queued in the
 * transaction that records the step (deterministic Message-IDs,
 * bug-<id>-r<NEEDINFO_SEQ_BASE + 10 * question + step>@domain); a change
 * to Bugzilla is recorded as intended (closing, reopening) before it is
 * made, and done again only when the bug, as Bugzilla has it then, does
 * not have it yet.
 */
#ifndef BB_NEEDINFO_H
#define BB_NEEDINFO_H

#include "bridge/inbound.h"
#include "bridge/sync.h"
#include "bugzilla/bz_client.h"
#include "bugzilla/bz_fields.h"
#include "core/status.h"
#include "mail/auth.h"
#include "mail/inmail.h"

/* The notices of question n are numbered NEEDINFO_SEQ_BASE + 10 * n +
 * step (1 the question, 2 the reminder), far above the in_mail rows that
 * number the answers to commands. */
#define NEEDINFO_SEQ_BASE 1000000000000LL

/* Does the needinfo command seq of recorded mail row (intent, change from
 * cmdchange_of()) for bug_id: records the question, queues its mail and
 * marks the command done (in_command), in one transaction of its own; an
 * earlier question on the bug that still waits ends.  Counts
 * stats->commands_done (or _failed when the bug is not in the state). */
enum bb_status needinfo_command(struct sync_context *sc, long long row, int seq,
				long long bug_id, const char *change,
				struct inbound_stats *stats, struct bb_error *err);

/* Whether a reply from from_addr to bug_id needs its sender checked: the
 * bug was closed for want of an answer (or is being closed) and from_addr
 * is not the person asked, whose reply reopens it unchecked. */
int needinfo_wants_sender(struct sync_context *sc, long long bug_id, const char *from_addr);

/* A list mail read for bug_id (in the caller's transaction, with the
 * mail's row): from the person asked, it answers the bug's waiting
 * question; to a bug closed for want of an answer, from the person asked
 * or an authenticated sender (v) allowed to act on the bug (allowed(), the
 * inbound side's rule for commands), it asks for
 * the bug to be reopened (needinfo_round() does it).  A mail of the
 * archive's history (history) does neither. */
typedef int needinfo_allowed_fn(struct sync_context *sc, const struct bz_bug *bug,
				const char *addr);
enum bb_status needinfo_mail_read(struct sync_context *sc, const struct inmail *m,
				  long long bug_id, int history, const struct auth_verdict *v,
				  needinfo_allowed_fn *allowed, struct bb_error *err);

struct needinfo_stats {
	unsigned long marked, reminded, closed, reopened, skipped;
};

/* The needinfo state of bug in words, as the bug pages, `bugbridge bugs`
 * and the digests show it: its latest question's ("waiting since
 * 2026-12-01", "reminded 2026-12-15", "closed unanswered"), "" when none
 * waits or was left unanswered; into out. */
void needinfo_state_text(struct store *db, long long bug, char *out, size_t size);

/* --- shared with bridge/aging.h: closing a bug for want of an answer --- */

/* The bug as Bugzilla has it now (*have: whether it could be seen and is
 * public; then release *bug). */
enum bb_status needinfo_bug_now(struct sync_context *sc, long long bug_id, struct bz_bug *bug,
				int *have, struct bb_error *err);
/* Whether the bug is open: its status's is_open as the server says
 * (f may be NULL), else it has no resolution. */
int needinfo_bug_is_open(const struct bz_fields *f, const struct bz_bug *bug);

enum needinfo_close_outcome {
	NEEDINFO_CLOSE_DONE,        /* this PUT closed it */
	NEEDINFO_CLOSE_DONE_EXTRA,  /* and made the extra change with it */
	NEEDINFO_CLOSE_NOT_OPEN,    /* Bugzilla has it closed already: nothing done */
	NEEDINFO_CLOSE_HIDDEN,      /* not public now (or gone): nothing done */
	NEEDINFO_CLOSE_REFUSED,     /* Bugzilla refused (logged as <who>.close_refused) */
};
/* One more change for the closing PUT, made from the bug as Bugzilla has
 * it (field NULL: none; *owned, freed after, may hold the value). */
typedef struct bz_change needinfo_extra_fn(void *ctx, const struct bz_bug *live, char **owned);
/* Closes bug_id for want of an answer, once: RESOLVED with [aging]
 * close_resolution (by default the first of INSUFFICIENT_DATA, INVALID the
 * server has) and the comment, in one PUT, only when Bugzilla has the bug
 * open and public now; test hook and log event "<who>.close_put" and
 * "<who>.closed" after the PUT.  A failure worth trying again (the
 * network, the server) is returned; a refusal is an outcome. */
enum bb_status needinfo_close_bug(struct sync_context *sc, long long bug_id, const char *comment,
				  needinfo_extra_fn *extra, void *ctx, const char *who,
				  enum needinfo_close_outcome *outcome, struct bb_error *err);
/* Records (in the caller's transaction) that bug_id was closed after
 * asking its reporter question in mail (a Message-ID) at asked_at, so that
 * a reply from the reporter, or an allowed sender, reopens it as it does a
 * bug closed for want of an answer to a needinfo.  Once per mail. */
enum bb_status needinfo_record_closed(struct sync_context *sc, long long bug_id,
				      const char *reporter, const char *question,
				      const char *mail, time_t asked_at, const char *asked_by,
				      struct bb_error *err);

/* The questions whose time came (bb_now()): reminders queued, bugs
 * closed, bugs reopened; then what a crash left half done.  Nothing in a
 * dry run.  A Bugzilla that fails for now leaves the rest for the next
 * round (its error is returned). */
enum bb_status needinfo_round(struct sync_context *sc, struct needinfo_stats *stats,
			      struct bb_error *err);

#endif
