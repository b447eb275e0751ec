/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The outbox: every mail is a row of the `outbox` table (core/store.c,
 * schema 2) before it is sent, committed in the same transaction as the
 * state it reflects (the caller holds the transaction around outbox_add()).
 *
 * Delivery takes queued rows whose time has come and sends them over one
 * SMTP session per batch (libesmtp; STARTTLS and AUTH as configured), or,
 * with no SMTP host, writes them to a Maildir (new/, unique names, fsynced)
 * or appends them to an mbox (locked, From_-quoted).  A 2xx marks the row
 * sent; 4xx or a lost connection keeps it queued with exponential backoff;
 * 5xx marks it failed with the server's answer (bugbridge status shows it).
 * A mail is never lost: a row leaves `queued` only after the server (or the
 * file system) has taken it.
 *
 * Details:
 * - Each row's outcome is committed as soon as the server has answered that
 *   message, not at the end of the session.  A crash between the server's
 *   250 and that commit leaves the row queued and the mail is sent again
 *   later, with the same Message-ID (archives store it once).
 * - One delivery of an outbox runs at a time: an flock() on
 *   <database>.deliver-lock; a delivery that finds it held (bugbridge serve's
 *   front door while the daemon delivers) returns at once, sending nothing,
 *   so no row is sent twice.  The kernel drops the lock of a dead process.
 * - Per recipient: when the server takes the mail for some recipients and
 *   defers others (4xx), the row stays queued with only the deferred ones
 *   left in `recipients`; recipients refused for good (5xx) while others
 *   took the mail are noted in last_error and the row is sent.
 * - "Session failures" (connection refused or dropped, greeting or AUTH
 *   trouble, a MAIL FROM refused with 530/535) defer the rows of that
 *   session and end this delivery round; rows not reached stay due.
 * - Backoff: the n-th deferral waits min(retry_max, retry_min * 2^(n-1))
 *   seconds (defaults 60 s and 4 h when 0).
 * - Local delivery: Maildir files are written to tmp/, fsynced and renamed
 *   into new/ (tmp/ new/ cur/ created as needed); an mbox entry is appended
 *   under an fcntl() lock with a "From <sender> <date>" line and mboxrd
 *   quoting (">" added to lines matching ^>*From ), then fsynced.  A file
 *   system error defers the row.
 * - Every delivery is logged as one event outbox.delivery with message_id,
 *   state, code and the error; the password never is.
 * - Test hooks (core/fsutil.h test_hook(), BUGBRIDGE_CRASH_AT=name[:N]):
 *   "outbox.accepted" once the server (or the file system) has taken a mail
 *   and before its row is marked sent; "outbox.marked" once a row's outcome
 *   (sent, deferred or failed) is committed.
 */
#ifndef BB_OUTBOX_H
#define BB_OUTBOX_H

#include <stddef.h>
#include <time.h>

#include "core/status.h"
#include "core/store.h"

struct outbox_options {
	const char *smtp_host;    /* NULL: local delivery */
	unsigned smtp_port;       /* 0: 25 */
	const char *starttls;     /* "no", "try" (NULL), "required"; with a user, "try" acts
				   * as "required" and "no" is refused: AUTH never goes out
				   * in clear */
	const char *user, *password; /* AUTH (PLAIN, LOGIN, ...) when user is set */
	const char *ca_file;      /* PEM CAs trusted for STARTTLS; NULL: the system's */
	long timeout;             /* seconds per SMTP exchange; 0: libESMTP's defaults */
	const char *maildir;      /* used when smtp_host is NULL and mbox is NULL */
	const char *mbox;
	unsigned batch;           /* mails per SMTP session; 0: 100 */
	long retry_min, retry_max;/* backoff bounds in seconds */
};

/* Records as sent a mail of this bridge that the list archive holds
 * (raw/len as archived; its mark checked by the caller): a state put back
 * from an older backup forgot that it sent it, and outbox_add() of its
 * Message-ID is then a no-op, so it is not sent again.  A copy the outbox
 * holds queued or failed (a crash came after sending it; a state put back
 * queued it again) is marked sent; one marked sent stays as it is.  *added
 * says whether anything changed. */
enum bb_status outbox_record_sent(struct store *db, const char *message_id, long long bug_id,
				  const char *raw, size_t len, time_t when, int *added,
				  struct bb_error *err);
/* Whether the outbox holds message_id, in any state. */
int outbox_has(struct store *db, const char *message_id);

/* Queues a mail; a second add with the same Message-ID is a no-op (BB_OK).
 * sender and recipients may be "Name <addr>" or "addr"; the bare addresses
 * are stored (recipients joined by ", ").  CRLF in message becomes LF.
 * BB_ERR_INVALID for a missing Message-ID or text, an unusable address or
 * no recipients. */
enum bb_status outbox_add(struct store *db, const char *message_id, long long bug_id,
			  long long comment_id, const char *sender, char *const *recipients,
			  const char *message, size_t len, struct bb_error *err);

struct outbox_stats {
	unsigned long sent, deferred, failed;
};

/* Delivers what is due at now.  Returns BB_OK even if some mails were
 * deferred or failed (see stats); an error only for database trouble
 * (the failing row stays queued) or unusable options (BB_ERR_CONFIG). */
enum bb_status outbox_deliver(struct store *db, const struct outbox_options *opt, time_t now,
			      struct outbox_stats *stats, struct bb_error *err);

/* Puts failed (and deferred) mails back in the queue for immediate delivery
 * with their attempt count reset (last_error is kept until the next try);
 * *count (if not NULL) gets how many. */
enum bb_status outbox_retry(struct store *db, unsigned long *count, struct bb_error *err);

struct outbox_row {
	long long id;
	const char *message_id, *state, *recipients, *last_error;
	long long bug_id, comment_id;
	int attempts;
	time_t created, next_attempt, sent;
};
/* Calls fn for every row in state (by id); the strings are valid only during
 * the call (last_error may be NULL).  A status other than
 * BB_OK from fn stops the walk and is returned. */
enum bb_status outbox_each(struct store *db, const char *state /* NULL: all */,
			   enum bb_status (*fn)(void *ctx, const struct outbox_row *r),
			   void *ctx, struct bb_error *err);
enum bb_status outbox_counts(struct store *db, unsigned long *queued, unsigned long *sent,
			     unsigned long *failed, struct bb_error *err);

#endif
