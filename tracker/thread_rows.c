/* SPDX-License-Identifier: GPL-2.0-or-later */
/* list_thread's rows as the tracker writes them (thread_rows.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "tracker/thread_rows.h"

/* The person of name and addr written to out (when not NULL), nl and al
 * their lengths when both are there (else al the one's): the length. */
static size_t person_write(char *out, const char *name, size_t nl, const char *addr, size_t al)
{
	if (!nl) {
		if (out)
			memcpy(out, addr, al + 1);
		return al;
	}
	/* "name <addr>", once per list mail: no printf */
	if (out) {
		memcpy(out, name, nl);
		memcpy(out + nl, " <", 2);
		memcpy(out + nl + 2, addr, al);
		memcpy(out + nl + 2 + al, ">", 2);
	}
	return nl + al + 3;
}

/* The two parts of a person: both there, else the one (in *addr) with *nl 0. */
static void person_parts(const char **name, const char **addr, size_t *nl, size_t *al)
{
	if (*name && **name && *addr && **addr) {
		*nl = strlen(*name);
	} else {
		*addr = *addr && **addr ? *addr : *name ? *name : "";
		*nl = 0;
	}
	*al = strlen(*addr);
}

size_t thread_row_person(char *out, const char *name, const char *addr)
{
	size_t nl, al;

	person_parts(&name, &addr, &nl, &al);
	return person_write(out, name, nl, addr, al);
}

/* (one allocation a row, where the row and its three texts were four:
 * on a history read each mail's row was a calloc(), two strdup() and
 * the person's malloc(), and as many free()) */
struct thread_row *thread_row_new(const char *msgid, uint64_t print, const char *root,
				  const char *name, const char *addr)
{
	size_t ml = strlen(msgid) + 1, rl = strlen(root) + 1, nl, al, wl;
	struct thread_row *r;

	person_parts(&name, &addr, &nl, &al);
	wl = person_write(NULL, name, nl, addr, al) + 1;
	if (!(r = malloc(sizeof(*r) + ml + rl + wl)))
		return NULL;
	memset(r, 0, sizeof(*r));
	r->message_id = memcpy(r->text, msgid, ml);
	r->root = memcpy(r->text + ml, root, rl);
	r->who = r->text + ml + rl;
	person_write(r->who, name, nl, addr, al);
	r->print = print;
	return r;
}

void thread_row_free(void *p)
{
	struct thread_row *r = p;

	if (r)
		free(r->root_alloc);
	free(r);
}

void thread_row_take_root(struct thread_row *r, char *root)
{
	free(r->root_alloc);
	r->root = r->root_alloc = root;
}

unsigned thread_row_hash(const void *row)
{
	/* (store_key_hash()'s: the print's low bits) */
	return (unsigned)((const struct thread_row *)row)->print;
}

int thread_row_equal(const void *a, const void *b)
{
	return !strcmp(((const struct thread_row *)a)->message_id,
		       ((const struct thread_row *)b)->message_id);
}

enum bb_status thread_row_root(struct store *db, const char *msgid, char **root,
			       struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	*root = NULL;
	if ((s = store_cached(db, &st, "SELECT root FROM list_thread WHERE mid_key = ?1"
			      " AND message_id = ?2", err)))
		return s;
	sqlite3_bind_int64(st, 1, store_text_key(msgid));
	sqlite3_bind_text(st, 2, msgid, -1, SQLITE_STATIC);
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
	long long key = store_text_key(msgid);
	enum bb_status s;
	int there;

	*added = 0;
	/* (no unique index says a Message-ID's row is there: it is asked
	 * first, under the transaction's write lock; an INSERT ... WHERE NOT
	 * EXISTS cost twice the two statements, SQLite copying the row to a
	 * table of its own before it read list_thread) */
	if ((s = store_cached(db, &st, "SELECT 1 FROM list_thread WHERE mid_key = ?1"
			      " AND message_id = ?2", err)))
		return s;
	sqlite3_bind_int64(st, 1, key);
	sqlite3_bind_text(st, 2, msgid, -1, SQLITE_STATIC);
	if ((there = sqlite3_step(st)) != SQLITE_ROW && there != SQLITE_DONE)
		s = store_fail(db, err, "looking for a mail's thread");
	store_cached_done(db, st);
	if (s || there == SQLITE_ROW)
		return s;
	if ((s = store_cached(db, &st, "INSERT OR FAIL INTO list_thread (message_id, mid_key, root,"
			      " root_key, from_who, date, seen) VALUES (?, ?, ?, ?, ?, ?, ?)", err)))
		return s;
	sqlite3_bind_text(st, 1, msgid, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, key);
	sqlite3_bind_text(st, 3, root, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, store_text_key(root));
	sqlite3_bind_text(st, 5, who, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)date);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)seen);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "remembering a mail's thread");
	else {
		*added = 1;
		store_keys_add(db, STORE_KEYS_THREAD, msgid);
	}
	store_cached_done(db, st);
	return s;
}

/* The statement of a run: the insert with THREAD_ROWS_RUN rows of values,
 * made once (store_cached() keeps it by this text's address). */
static const char *run_sql(void)
{
	static char sql[160 + THREAD_ROWS_RUN * 16];
	static int made;

	if (!made) {
		size_t n = (size_t)snprintf(sql, sizeof(sql), "INSERT OR FAIL INTO list_thread"
					    " (message_id, mid_key, root, root_key, from_who, date,"
					    " seen) VALUES"
					    " (?,?,?,?,?,?,?)");

		for (int i = 1; i < THREAD_ROWS_RUN; i++)
			n += (size_t)snprintf(sql + n, sizeof(sql) - n, ",(?,?,?,?,?,?,?)");
		made = 1;
	}
	return sql;
}

enum bb_status thread_rows_write_new(struct store *db, struct thread_row *const *rows,
				     size_t first, size_t *held, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	/* (the set of list_thread's ids says a row surely is not there: it
	 * is what keeps one row a Message-ID here, where no index does) */
	for (*held = 0; *held < THREAD_ROWS_RUN; ++*held)
		if (store_keys_may_hold_print(db, STORE_KEYS_THREAD, rows[first + *held]->print))
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
		thread_row_take_root(r, root);
	}
	if ((s = store_cached(db, &st, run_sql(), err)))
		return s;
	for (int i = 0; i < THREAD_ROWS_RUN; i++) {
		const struct thread_row *r = rows[first + (size_t)i];

		sqlite3_bind_text(st, 7 * i + 1, r->message_id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 7 * i + 2, store_text_key(r->message_id));
		sqlite3_bind_text(st, 7 * i + 3, r->root, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 7 * i + 4, store_text_key(r->root));
		sqlite3_bind_text(st, 7 * i + 5, r->who, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 7 * i + 6, (sqlite3_int64)r->date);
		sqlite3_bind_int64(st, 7 * i + 7, (sqlite3_int64)r->seen);
	}
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "remembering mails' threads");
	store_cached_done(db, st);
	for (int i = 0; !s && i < THREAD_ROWS_RUN; i++)
		store_keys_add_print(db, STORE_KEYS_THREAD, rows[first + (size_t)i]->print);
	return s;
}
