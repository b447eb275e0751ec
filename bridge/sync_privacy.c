/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Comments made private after they were mailed (see sync_privacy.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "bridge/sync_privacy.h"
#include "bugzilla/bz_client.h"
#include "core/log.h"
#include "core/store.h"

/* Whether bug_id has a comment the state holds as public. */
static int has_public(struct store *db, long long bug_id)
{
	sqlite3_stmt *q = NULL;
	int yes = 0;

	if (store_cached(db, &q, "SELECT 1 FROM bz_comment WHERE bug_id = ? AND is_private = 0"
				 " LIMIT 1", NULL))
		return 0;
	sqlite3_bind_int64(q, 1, bug_id);
	yes = sqlite3_step(q) == SQLITE_ROW;
	store_cached_done(db, q);
	return yes;
}

/* Whether the round's comments of bug (those since the last round) explain
 * its change: one of them is as new as the bug's last change.  A comment,
 * the usual change and every reply the bridge posts, needs no second look;
 * a change of fields or of a comment's privacy does. */
static int explained(const struct bz_bug *bug)
{
	for (size_t i = 0; i < bug->ncomments; i++)
		if (bug->comments[i].time >= bug->last_change_time)
			return 1;
	return 0;
}

/* Whether live (its comments fetched) shows comment id as public. */
static int shown(const struct bz_bug *live, long long id)
{
	for (size_t i = 0; i < live->ncomments; i++)
		if (live->comments[i].id == id)
			return !live->comments[i].is_private;
	return 0;
}

/* Records the comments of live's bug the state holds as public and live
 * does not show so (in the caller's transaction). */
static enum bb_status record_hidden(struct sync_context *sc, const struct bz_bug *live,
				    unsigned long *hidden, struct bb_error *err)
{
	sqlite3_stmt *q = NULL, *u = NULL;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &q, "SELECT id, count FROM bz_comment WHERE bug_id = ? AND"
				     " is_private = 0", err)))
		return s;
	if ((s = store_prepare(sc->db, &u, "UPDATE bz_comment SET is_private = 1 WHERE id = ?",
			       err))) {
		sqlite3_finalize(q);
		return s;
	}
	sqlite3_bind_int64(q, 1, live->id);
	while (!s && sqlite3_step(q) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(q, 0);

		if (shown(live, id))
			continue;
		sqlite3_reset(u);
		sqlite3_bind_int64(u, 1, id);
		if (sqlite3_step(u) != SQLITE_DONE) {
			s = store_fail(sc->db, err, "recording a comment made private");
			break;
		}
		(*hidden)++;
		log_event(LOG_LEVEL_INFO, "sync.comment_private", LF_INT("bug", live->id),
			  LF_INT("comment", id), LF_INT("count", sqlite3_column_int64(q, 1)));
	}
	sqlite3_finalize(q);
	sqlite3_finalize(u);
	return s;
}

enum bb_status sync_privacy_check(struct sync_context *sc, const struct bz_bug *bugs, size_t n,
				  unsigned long *hidden, struct bb_error *err)
{
	struct bz_bug *live = calloc(n ? n : 1, sizeof(*live));
	unsigned long count = 0;
	size_t k = 0;
	enum bb_status s = BB_OK;

	if (!live)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n && !sc->dry_run; i++)
		if (!explained(&bugs[i]) && has_public(sc->db, bugs[i].id))
			live[k++].id = bugs[i].id;
	if (k && !(s = bz_fetch_comments(sc->bz, live, k, 0, err)) &&
	    !(s = store_begin(sc->db, err))) {
		for (size_t i = 0; i < k && !s; i++)
			if (live[i].ncomments)   /* none: hidden or gone, not ours to judge */
				s = record_hidden(sc, &live[i], &count, err);
		s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	}
	for (size_t i = 0; i < k; i++)
		bz_bug_release(&live[i]);
	free(live);
	if (hidden)
		*hidden = s ? 0 : count;
	return s;
}
