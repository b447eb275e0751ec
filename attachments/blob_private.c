/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The private blob store and moving a blob into it (blob_private.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "attachments/blob.h"
#include "attachments/blob_rows.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/store.h"

static const char *column_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

/* Steps a statement that returns no row. */
static enum bb_status step_done(struct blob_store *bs, sqlite3_stmt *st, const char *what,
				struct bb_error *err)
{
	return sqlite3_step(st) == SQLITE_DONE ? BB_OK : store_fail(blob_store_db(bs), err, what);
}

enum bb_status blob_private_open(struct blob_store **out, struct store **db_out,
				 const char *root, const struct blob_options *like,
				 struct bb_error *err)
{
	struct blob_options opt;
	char *db_path = NULL;
	enum bb_status s;

	*out = NULL;
	*db_out = NULL;
	/* 0750 whatever the umask: only the service and its group read it */
	if ((s = fs_mkdir_private(root, err)) || (s = fs_narrow_mode(root, 0750, err)))
		return s;
	if (!(db_path = str_printf("%s/blobs.db", root)))
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if ((s = store_open(db_out, db_path, STORE_READ_WRITE, err)))
		goto out;
	opt = *like;
	opt.root = root;
	opt.base_url = "";        /* nothing links here */
	if ((s = blob_store_open(out, &opt, *db_out, err))) {
		store_close(*db_out);
		*db_out = NULL;
	}
out:
	free(db_path);
	return s;
}

void blob_private_close(struct blob_store *bs, struct store *db)
{
	blob_store_close(bs);
	store_close(db);
}

static enum bb_status count_refs(struct blob_store *bs, const char *hex, long long *n,
				 struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	*n = 0;
	if ((s = store_prepare(blob_store_db(bs), &st, "SELECT count(*) FROM blob_ref WHERE hash = ?", err)))
		return s;
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	else
		s = store_fail(blob_store_db(bs), err, "counting a blob's references");
	sqlite3_finalize(st);
	return s;
}

/* Gives dest the names bs knows the blob by. */
static enum bb_status copy_names(struct blob_store *bs, struct blob_store *dest,
				 const char *hex, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	int rc;

	if ((s = store_prepare(blob_store_db(bs), &st, "SELECT name, declared_type, origin, origin_ref"
				" FROM blob_name WHERE hash = ? ORDER BY id", err)))
		return s;
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	blob_store_lock(dest);
	while (!s && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct blob_origin o = { column_text(st, 0), column_text(st, 1), column_text(st, 2),
					 column_text(st, 3) };

		s = blob_name_insert(dest, hex, &o, time(NULL), err);
	}
	blob_store_unlock(dest);
	if (!s && rc != SQLITE_DONE)
		s = store_fail(blob_store_db(bs), err, "reading a blob's names");
	sqlite3_finalize(st);
	return s;
}

/* Member blobs that only the archive hex kept in the store. */
static enum bb_status member_hashes(struct blob_store *bs, const char *hex, GPtrArray **out,
				    struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	int rc;

	*out = g_ptr_array_new_with_free_func(g_free);
	if ((s = store_prepare(blob_store_db(bs), &st, "SELECT hash FROM blob_ref WHERE kind = 'member-of'"
				" AND ref = ?", err)))
		return s;
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		g_ptr_array_add(*out, g_strdup(column_text(st, 0)));
	if (rc != SQLITE_DONE)
		s = store_fail(blob_store_db(bs), err, "reading an archive's members");
	sqlite3_finalize(st);
	return s;
}

enum bb_status blob_unpublish(struct blob_store *bs, struct blob_store *dest, const char *hex,
			      int *moved, struct bb_error *err)
{
	struct blob_info info;
	struct blob_origin none = { "", "", "bugzilla-attachment", "" };
	sqlite3_stmt *unref = NULL, *del = NULL;
	GPtrArray *members = NULL;
	char *path = NULL;
	long long refs;
	int fd = -1;
	enum bb_status s;

	*moved = 0;
	memset(&info, 0, sizeof(info));
	blob_store_lock(bs);
	if ((s = count_refs(bs, hex, &refs, err)) || refs > 0)
		goto out;
	if ((s = blob_open(bs, hex, &fd, NULL, err))) {
		if (s == BB_ERR_NOT_FOUND) {
			bb_error_clear(err);
			s = BB_OK;
		}
		goto out;
	}
	if (dest && ((s = blob_put_fd(dest, fd, &none, NULL, NULL, &info, err)) ||
		     (s = copy_names(bs, dest, hex, err))))
		goto out;
	if (dest && strcmp(info.hash, hex)) {
		s = bb_error_set(err, BB_ERR_CORRUPT, "blob sha256:%s does not hash to its name "
				 "(see bugbridge blob verify); left where it is", hex);
		goto out;
	}
	if ((s = member_hashes(bs, hex, &members, err)) ||
	    (s = store_prepare(blob_store_db(bs), &unref, "DELETE FROM blob_ref WHERE kind = 'member-of'"
			       " AND ref = ?", err)) ||
	    (s = store_prepare(blob_store_db(bs), &del, "DELETE FROM blob WHERE hash = ?", err)))
		goto out;
	sqlite3_bind_text(unref, 1, hex, -1, SQLITE_STATIC);
	sqlite3_bind_text(del, 1, hex, -1, SQLITE_STATIC);
	if ((s = step_done(bs, unref, "removing member references", err)) ||
	    (s = step_done(bs, del, "unpublishing a blob", err)))
		goto out;
	if (!(path = blob_path(bs, hex))) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* the row is gone first: from now on every route answers 404 */
	if (unlink(path) != 0 && errno != ENOENT) {
		s = bb_error_errno(err, errno, "cannot remove %s", path);
		goto out;
	}
	*moved = 1;
	log_event(LOG_LEVEL_INFO, "blob.unpublished", LF_STR("hash", hex),
		  LF_STR("to", dest ? "private store" : "nowhere"));
	for (guint i = 0; members && i < members->len && !s; i++) {
		int gone;

		s = blob_unpublish(bs, dest, g_ptr_array_index(members, i), &gone, err);
	}
out:
	if (fd >= 0)
		close(fd);
	sqlite3_finalize(unref);
	sqlite3_finalize(del);
	if (members)
		g_ptr_array_unref(members);
	free(path);
	blob_store_unlock(bs);
	return s;
}
