/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The inbound side's rows (inbound_rows.c): a list mail's row in in_mail,
 * its commands' rows in in_command, the cursor moved past it, and which
 * bug a Message-ID belongs to by the rows the state holds.  For
 * bridge/inbound*.c. */
#ifndef BB_INBOUND_ROWS_H
#define BB_INBOUND_ROWS_H

#include <stddef.h>

#include <glib.h>

#include "bridge/inbound.h"
#include "bridge/sync.h"
#include "core/status.h"
#include "mail/inmail.h"

/* References that named no mail we know, remembered through a round: a
 * thread's root and first replies are named by every later mail of it, and
 * most list mail answers nothing mirrored.  Right only as long as the
 * state it was read from: cleared when the database changes under it (its
 * data version; another process, or a commit of this one) and after every
 * mail that made a Message-ID known (a matched mail, a tracked thread). */
struct ref_memo {
	GHashTable *unknown;
	unsigned version;
};

/* The bug a Message-ID belongs to (0: none) and its comment count. */
long long inbound_known_message(struct sync_context *sc, struct ref_memo *memo,
				const char *message_id, int *count);
/* Whether in_mail has a row for message_id. */
int inbound_mail_seen(struct sync_context *sc, const char *message_id);
/* Drops a mail's row (and its commands) to record it again. */
enum bb_status inbound_mail_forget(struct sync_context *sc, const char *message_id,
				   struct bb_error *err);
/* Records a mail's row in in_mail (*row: its id, when row is not NULL). */
enum bb_status inbound_mail_record(struct sync_context *sc, const struct inbound_options *opt,
				   const struct inmail *m, long long bug_id, const char *parent,
				   const char *state, const char *reason, const char *comment,
				   long long *row, struct bb_error *err);
/* Records a mail the bridge sent, read back from the archive, as sent. */
enum bb_status inbound_own_mail_sent(struct sync_context *sc, const struct inmail *m,
				     long long bug_id, const char *raw, size_t len,
				     struct bb_error *err);
/* Moves the cursor name to value (in the caller's transaction). */
enum bb_status inbound_cursor_move(struct sync_context *sc, const char *name, const char *value,
				   struct bb_error *err);
/* Records a command of mail row mail (its seq-th) and how it ended
 * (inbound_command_end(), inbound.h, ends it). */
enum bb_status inbound_command_record(struct sync_context *sc, long long mail, int seq,
				      long long bug_id, const char *line, const char *state,
				      const char *change, const char *note, struct bb_error *err);

#endif
