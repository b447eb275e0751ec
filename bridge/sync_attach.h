/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A bug's attachments on the sync's side (bridge/sync_attach.c): stored in
 * the blob store, recorded in bz_attachment, described in mail, retried. */
#ifndef BB_SYNC_ATTACH_H
#define BB_SYNC_ATTACH_H

#include <stddef.h>
#include <time.h>

#include "attachments/blob.h"
#include "bridge/sync.h"

/* Where attachment id stands: BB_OK with hash (empty when not stored),
 * the tries made and the last error (malloc'd or NULL); BB_ERR_NOT_FOUND
 * when it was never recorded. */
enum bb_status sync_att_lookup(struct store *db, long long id, char *hash, int *attempts,
			       char **last_error);
/* Fills what a mail says of attachment a, as stored (or not yet: a note
 * saying that bugbridge retries); release v with
 * sync_attachment_view_release(). */
void sync_att_describe(struct sync_context *sc, const struct bz_attachment *a,
		       struct attachment_view *v, struct mail_attachment *ma);
/* Downloads the new attachments of bugs[0..n) and records each (stored,
 * private, or failed with when to try again), in one transaction. */
enum bb_status sync_attachments_store(struct sync_context *sc, struct bz_bug *bugs, size_t n,
				      time_t now, struct sync_stats *stats, struct bb_error *err);
/* Attachments whose download failed in an earlier round and whose time has
 * come: downloaded again (at most 100 a round), and each one stored now is
 * announced in its bug's thread.  One that fails again waits longer. */
enum bb_status sync_attachments_retry(struct sync_context *sc, time_t now, struct sync_stats *stats,
				      struct bb_error *err);

#endif
