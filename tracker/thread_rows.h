/* SPDX-License-Identifier: GPL-2.0-or-later */
/* list_thread's rows as the tracker writes them (tracker.c: remember_thread()
 * keeps a transaction's rows, thread_write() writes them as it commits):
 * the row, one row's insert and its root as the table has it, and a run
 * of new rows written by one statement. */
#ifndef BB_TRACKER_THREAD_ROWS_H
#define BB_TRACKER_THREAD_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "core/store.h"

/* A list_thread row not written yet.  parent: the index of the pending
 * row whose root root was taken from (the mail's parent, read in the same
 * transaction), else -1; the root written is that row's as written.
 * added: written by this tracker (the row was not there).  The row and
 * its texts are one allocation (thread_row_new()): message_id, root and
 * who point into text[], but root may be replaced (thread_row_take_root(),
 * then root_alloc holds it).  print: store_key_print(message_id),
 * computed once as the mail is read, for the store's set of list_thread's
 * ids and the tracker's tables of rows, which are keyed by the rows
 * (thread_row_hash(), thread_row_equal()). */
struct thread_row {
	char *message_id, *root, *who;
	char *root_alloc;
	long long date, seen;
	long parent;
	uint64_t print;
	int added;
	char text[];
};

/* A row of msgid (whose store_key_print() is print) with root root and who
 * as the tracker names a person (thread_row_person()), its other fields
 * zero; NULL when out of memory.  Freed by thread_row_free(). */
struct thread_row *thread_row_new(const char *msgid, uint64_t print, const char *root,
				  const char *name, const char *addr);
/* Frees a row (NULL: nothing); a GDestroyNotify. */
void thread_row_free(void *p);
/* Gives r the root root (malloc'd text, which r takes) in place of its own. */
void thread_row_take_root(struct thread_row *r, char *root);
/* A GHashFunc and a GEqualFunc of rows, by their Message-IDs (a row to
 * look for needs message_id and print alone). */
unsigned thread_row_hash(const void *row);
int thread_row_equal(const void *a, const void *b);
/* A person as the tracker's rows name one: "name <addr>", else the one
 * given, else "": written to out (when not NULL; length + 1 bytes), its
 * length returned. */
size_t thread_row_person(char *out, const char *name, const char *addr);

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
