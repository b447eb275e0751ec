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
 */
#ifndef BB_OUTBOX_H
#define BB_OUTBOX_H

#include <stddef.h>
#include <time.h>

#include "core/status.h"
#include "core/store.h"

struct outbox_options {
	const char *smtp_host;    /* NULL: local delivery */
	unsigned smtp_port;
	const char *starttls;     /* "no", "try", "required" */
	const char *user, *password;
	long timeout;
	const char *maildir;      /* used when smtp_host is NULL and mbox is NULL */
	const char *mbox;
	unsigned batch;           /* mails per SMTP session */
	long retry_min, retry_max;/* backoff bounds in seconds */
};

/* Queues a mail; a second add with the same Message-ID is a no-op (BB_OK). */
enum bb_status outbox_add(struct store *db, const char *message_id, long long bug_id,
			  long long comment_id, const char *sender, char *const *recipients,
			  const char *message, size_t len, struct bb_error *err);

struct outbox_stats {
	unsigned long sent, deferred, failed;
};

/* Delivers what is due at now.  Returns BB_OK even if some mails were
 * deferred or failed (see stats); an error only for database trouble. */
enum bb_status outbox_deliver(struct store *db, const struct outbox_options *opt, time_t now,
			      struct outbox_stats *stats, struct bb_error *err);

/* Puts failed (and deferred) mails back in the queue for immediate delivery;
 * *count gets how many. */
enum bb_status outbox_retry(struct store *db, unsigned long *count, struct bb_error *err);

struct outbox_row {
	long long id;
	const char *message_id, *state, *recipients, *last_error;
	long long bug_id, comment_id;
	int attempts;
	time_t created, next_attempt, sent;
};
enum bb_status outbox_each(struct store *db, const char *state /* NULL: all */,
			   enum bb_status (*fn)(void *ctx, const struct outbox_row *r),
			   void *ctx, struct bb_error *err);
enum bb_status outbox_counts(struct store *db, unsigned long *queued, unsigned long *sent,
			     unsigned long *failed, struct bb_error *err);

#endif
