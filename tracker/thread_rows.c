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
	else if ((*added = sqlite3_changes(db->db) == 1))
		store_keys_add(db, STORE_KEYS_THREAD, msgid);
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

enum bb_status thread_rows_write_new(struct store *db, struct thread_row *const *rows,
				     size_t first, size_t *held, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	int changes = -1;

	/* (the set of list_thread's ids says a row surely is not there) */
	for (*held = 0; *held < THREAD_ROWS_RUN; ++*held)
		if (store_keys_may_hold(db, STORE_KEYS_THREAD, rows[first + *held]->message_id))
			return BB_OK;
	/* the roots as the rows before give them (a parent's is final once
	 * it is written, and a run's rows all are) */
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
	if ((s = store_cached(db, &st, run_sql(), err)))
		return s;
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
	/* (a row the set did not hold was there after all: the transaction
	 * cannot go on with the roots of the run's rows, and fails) */
	if (!s && changes != THREAD_ROWS_RUN)
		s = bb_error_set(err, BB_ERR_DATABASE, "list_thread had %d of %d new rows",
				 THREAD_ROWS_RUN - changes, THREAD_ROWS_RUN);
	for (int i = 0; !s && i < THREAD_ROWS_RUN; i++)
		store_keys_add(db, STORE_KEYS_THREAD, rows[first + (size_t)i]->message_id);
	return s;
}
