/* SPDX-License-Identifier: GPL-2.0-or-later */
/* list_thread's rows as the tracker writes them (tracker.c: remember_thread()
 * keeps a transaction's rows, thread_write() writes them as it commits):
 * the row, one row's insert and its root as the table has it, and a run
 * of new rows written by one statement. */
#ifndef BB_TRACKER_THREAD_ROWS_H
#define BB_TRACKER_THREAD_ROWS_H

#include <stddef.h>

#include "core/status.h"
#include "core/store.h"

/* A list_thread row not written yet.  parent: the index of the pending
 * row whose root root was taken from (the mail's parent, read in the same
 * transaction), else -1; the root written is that row's as written.
 * added: written by this tracker (the row was not there). */
struct thread_row {
	char *message_id, *root, *who;
	long long date, seen;
	long parent;
	int added;
};

void thread_row_free(void *p);

/* Writes one list_thread row unless msgid has one already (looked up by
 * its key first: no unique index keeps one row a Message-ID); *added says
 * whether it did. */
enum bb_status thread_row_insert(struct store *db, const char *msgid, const char *root,
				 const char *who, long long date, long long seen, int *added,
				 struct bb_error *err);

/* The root of msgid's list_thread row as the table has it, in *root
 * (malloc'd; NULL when there is no such row). */
enum bb_status thread_row_root(struct store *db, const char *msgid, char **root,
			       struct bb_error *err);

/* Rows a run writes with one statement: on a history read each row's own
 * statement (its step, its cursors opened and closed, its reset) cost
 * more than a fifth of what the row's insert did. */
#define THREAD_ROWS_RUN 64

/* Writes rows[first] to rows[first + THREAD_ROWS_RUN - 1] (of the pending
 * rows, in order) in one statement when the store's set of list_thread's
 * ids (STORE_KEYS_THREAD, store_keys_may_hold()) says none of them has a
 * row yet (that answer is what keeps one row a Message-ID): each takes its parent's root first (rows[r->parent]->root, as
 * the row by row writing does), and *held is THREAD_ROWS_RUN.  Else
 * nothing is written and *held is the offset from first of the first row
 * the set may hold (a mail read again; or the set is not read yet: a
 * transaction's first STORE_KEYS_FILL_AFTER asks): the caller writes the
 * rows up to it one by one, as before, and tries a run after it.  (A
 * savepoint around the run, rolled back when a row was there, wrote each
 * page the run changed to a sub-journal file: five times the pwrite()
 * calls of a history read.) */
enum bb_status thread_rows_write_new(struct store *db, struct thread_row *const *rows,
				     size_t first, size_t *held, struct bb_error *err);

#endif
