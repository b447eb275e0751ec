/* SPDX-License-Identifier: GPL-2.0-or-later */
/* list_thread's rows as the tracker writes them (thread_rows.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "tracker/thread_rows.h"

void thread_row_free(void *p)
{
	struct thread_row *r = p;

	free(r->message_id);
	free(r->root);
	free(r->who);
	free(r);
}

enum bb_status thread_row_root(struct store *db, const char *msgid, char **root,
			       struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	*root = NULL;
	if ((s = store_cached(db, &st, "SELECT root FROM list_thread WHERE message_id = ?", err)))
		return s;
	sqlite3_bind_text(st, 1, msgid, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    !(*root = strdup((const char *)sqlite3_column_text(st, 0))))
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	store_cached_done(db, st);
	return s;
}

enum bb_status thread_row_insert(struct store *db, const char *msgid, const char *root,
				 const char *who, long long date, long long seen, int *added,
				 struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	*added = 0;
	if ((s = store_cached(db, &st, "INSERT OR IGNORE INTO list_thread (message_id, root,"
			      " from_who, date, seen) VALUES (?, ?, ?, ?, ?)", err)))
		return s;
	sqlite3_bind_text(st, 1, msgid, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, root, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, who, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)date);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)seen);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "remembering a mail's thread");
	else
		*added = sqlite3_changes(db->db) == 1;
	store_cached_done(db, st);
	return s;
}

/* The statement of a run: the insert with THREAD_ROWS_RUN rows of values,
 * made once (store_cached() keeps it by this text's address). */
static const char *run_sql(void)
{
	static char sql[96 + THREAD_ROWS_RUN * 12];
	static int made;

	if (!made) {
		size_t n = (size_t)snprintf(sql, sizeof(sql), "INSERT OR IGNORE INTO list_thread"
					    " (message_id, root, from_who, date, seen) VALUES"
					    " (?,?,?,?,?)");

		for (int i = 1; i < THREAD_ROWS_RUN; i++)
			n += (size_t)snprintf(sql + n, sizeof(sql) - n, ",(?,?,?,?,?)");
		made = 1;
	}
	return sql;
}

/* Runs one statement without parameters or rows (a savepoint's). */
static enum bb_status run_plain(struct store *db, const char *sql, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_cached(db, &st, sql, err)))
		return s;
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "remembering mails' threads");
	store_cached_done(db, st);
	return s;
}

enum bb_status thread_rows_write_new(struct store *db, struct thread_row *const *rows,
				     size_t first, int *all, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	int changes = -1;

	*all = 0;
	/* the roots as the rows before give them (a parent's is final once
	 * it is written, and a run's rows all are, or none) */
	for (size_t i = first; i < first + THREAD_ROWS_RUN; i++) {
		struct thread_row *r = rows[i];
		const char *from = r->parent >= 0 ? rows[r->parent]->root : r->root;
		char *root;

		if (!strcmp(from, r->root))
			continue;
		if (!(root = strdup(from)))
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		free(r->root);
		r->root = root;
	}
	if ((s = run_plain(db, "SAVEPOINT thread_rows", err)))
		return s;
	if (!(s = store_cached(db, &st, run_sql(), err))) {
		for (int i = 0; i < THREAD_ROWS_RUN; i++) {
			const struct thread_row *r = rows[first + (size_t)i];

			sqlite3_bind_text(st, 5 * i + 1, r->message_id, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 5 * i + 2, r->root, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 5 * i + 3, r->who, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 5 * i + 4, (sqlite3_int64)r->date);
			sqlite3_bind_int64(st, 5 * i + 5, (sqlite3_int64)r->seen);
		}
		if (sqlite3_step(st) != SQLITE_DONE)
			s = store_fail(db, err, "remembering mails' threads");
		else
			changes = sqlite3_changes(db->db);
		store_cached_done(db, st);
	}
	*all = !s && changes == THREAD_ROWS_RUN;
	if (s) {
		/* (the caller's transaction fails with it; the savepoint goes) */
		sqlite3_exec(db->db, "ROLLBACK TO thread_rows; RELEASE thread_rows", NULL, NULL, NULL);
		return s;
	}
	if (!*all)
		s = run_plain(db, "ROLLBACK TO thread_rows", err);
	/* (released after a rollback to it as well: the savepoint goes) */
	if (!s)
		s = run_plain(db, "RELEASE thread_rows", err);
	return s;
}
