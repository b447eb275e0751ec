/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SQLite state store: one database file in WAL mode.
 *
 * The schema is versioned with PRAGMA user_version.  store_open() applies
 * every migration the file has not seen yet, each in its own transaction, so
 * a crash during an upgrade leaves the file at a whole version.  A database
 * newer than this binary is refused.
 *
 * Transactions nest: store_begin() inside an open transaction only counts,
 * and only the outermost store_commit() commits.  store_rollback() at any
 * depth rolls the whole transaction back (and later commits at outer levels
 * fail with BB_ERR_DATABASE), which is what "one goto out" callers want.
 *
 * A struct store is not shared between threads without a lock held by the
 * caller; open one per thread where that is simpler.
 */
#ifndef BB_STORE_H
#define BB_STORE_H

#include <stdint.h>
#include <time.h>

#include <sqlite3.h>

#include "core/status.h"

enum store_mode {
	STORE_READ_WRITE = 0,
	/* Never writes and never creates: a missing database reads as an empty
	 * one (held in memory), so members of the service's group can run
	 * read-only commands; falls back to read-write only when an existing
	 * file needs a schema upgrade and this user may write it. */
	STORE_READ_ONLY = 1,
};

/* At most this many statements are kept by store_cached(). */
#define STORE_CACHED_MAX 256

struct _GHashTable;

/* Sets of keys (store_keys_may_hold()), by what they hold. */
enum store_keys {
	STORE_KEYS_REG_MAIL,    /* reg_mail.message_id */
	STORE_KEYS_REG_NOTED,   /* reg_unhandled.message_id, reg_event.message_id */
	STORE_KEYS_MAIL,        /* in_mail.message_id, bz_comment.message_id,
				 * in_wait.message_id */
	STORE_KEYS_THREAD,      /* list_thread.message_id */
	STORE_KEYS_N
};
struct store_keyset;

struct store {
	sqlite3 *db;
	char *path;
	int depth;      /* nesting depth of store_begin() */
	int failed;     /* an inner level rolled back */
	int missing;    /* read-only and there was no file: an empty stand-in */
	/* statements of store_cached(), by their SQL text (a GHashTable of
	 * malloc'd text to statement; NULL until the first) */
	struct _GHashTable *cached;
	/* each kept statement: handed out (lent) or not, by its pointer */
	struct _GHashTable *kept;
	/* the statement last found for a text at this address (a string
	 * literal, mostly): looked up without hashing the text, and checked
	 * by comparing it */
	struct _GHashTable *recent;
	/* store_keys_may_hold(): the data version last read when a
	 * transaction began, a count of its changes, and the sets */
	long long data_version;
	unsigned long generation;
	struct store_keyset *keys[STORE_KEYS_N];
	/* store_set_commit_hook() */
	const struct store_commit_hook *hook;
};

/* Writes a module keeps in memory while a transaction is open, to make
 * them once: before_commit() runs as the outermost transaction commits,
 * before COMMIT (its failure rolls the transaction back and is the
 * commit's), and rolled_back() when the transaction is rolled back
 * instead (the writes are to be forgotten). */
struct store_commit_hook {
	enum bb_status (*before_commit)(void *ctx, struct bb_error *err);
	void (*rolled_back)(void *ctx);
	void *ctx;
};

/* Opens (creating if needed) the database at path, with its parent folder;
 * read-only (see STORE_READ_ONLY) creates nothing.  On success *out is a new
 * store to be freed with store_close(). */
enum bb_status store_open(struct store **out, const char *path,
			  enum store_mode mode, struct bb_error *err);
void store_close(struct store *st);

/* PRAGMA quick_check: *damage is NULL when the database is sound, else
 * SQLite's first findings (at most 20 lines, to be freed).  A database
 * damaged beyond the check is damage too; an error is one of the check
 * itself (the database locked, say). */
enum bb_status store_quick_check(struct store *st, char **damage, struct bb_error *err);

/* The schema version this binary writes. */
int store_schema_version(void);
/* The schema version of the open file. */
int store_file_version(struct store *st);

enum bb_status store_begin(struct store *st, struct bb_error *err);
enum bb_status store_commit(struct store *st, struct bb_error *err);
void store_rollback(struct store *st);
/* Sets the store's one commit hook (NULL: none); BB_ERR_INTERNAL when
 * another is set already.  The hook lives until it is unset. */
enum bb_status store_set_commit_hook(struct store *st, const struct store_commit_hook *hook,
				     struct bb_error *err);
/* As store_begin(), but takes no write lock until something is written:
 * for long runs of reads (a dry run), which then cost one lock. */
enum bb_status store_begin_read(struct store *st, struct bb_error *err);

enum bb_status store_exec(struct store *st, const char *sql, struct bb_error *err);
/* A statement for a query run very often (once per list mail): prepared
 * once for the store's life and kept, looked up by the text of sql (a copy
 * is kept: sql may be built on the stack).  Hand it back with
 * store_cached_done(), never sqlite3_finalize(); it is reset and its
 * bindings cleared.  One statement serves one use at a time: the same
 * text asked for again before the first is handed back (a nested use)
 * gets a fresh statement, as do texts past STORE_CACHED_MAX; those
 * store_cached_done() finalizes. */
enum bb_status store_cached(struct store *st, sqlite3_stmt **stmt, const char *sql,
			    struct bb_error *err);
void store_cached_done(struct store *st, sqlite3_stmt *stmt);

/* Prepares sql; *stmt is to be finalised with sqlite3_finalize(). */
enum bb_status store_prepare(struct store *st, sqlite3_stmt **stmt,
			     const char *sql, struct bb_error *err);
/* A copy of column i of the row stmt is on (free()); NULL when it is NULL
 * or memory runs out. */
char *store_column_dup(sqlite3_stmt *stmt, int i);
/* The file: URI of path (made absolute against the working folder) for
 * sqlite3_open_v2(SQLITE_OPEN_URI), as GLib's g_filename_to_uri() writes
 * it (every byte a URI may not hold as it is escaped), with "?" and query
 * after it unless query is NULL.  malloc'd; NULL when out of memory or
 * path cannot be a URI. */
char *store_file_uri(const char *path, const char *query);

/* Whether the column which names may hold key: 0 when it surely does not
 * (a lookup would find nothing and can be skipped), 1 when it may (look).
 * The set behind it holds at least every key of the column: it is read
 * whole once a transaction has asked STORE_KEYS_FILL_AFTER times (a
 * round of a few mails reads no table), it answers "may" outside a
 * transaction, and it is emptied when another connection has written the
 * database (PRAGMA data_version, read as each transaction begins; inside
 * one that holds the write lock no other can write).  Writers in this
 * process name each key to it with store_keys_add() right after writing it
 * (nothing in between asks): a key it holds that the database lacks (a
 * rolled-back write, a deleted row) costs only a lookup.  A column of more
 * than STORE_KEYS_MAX keys is not held (always "may"): a set holds a
 * fingerprint of each key (some 20 bytes a key), and the process's memory
 * stays small. */
#define STORE_KEYS_MAX 200000
#define STORE_KEYS_FILL_AFTER 256
int store_keys_may_hold(struct store *st, enum store_keys which, const char *key);
void store_keys_add(struct store *st, enum store_keys which, const char *key);
/* The same of a key given by its print (store_key_print()): one key asked
 * of several sets, or hashed once for the tables it goes to. */
int store_keys_may_hold_print(struct store *st, enum store_keys which, uint64_t print);
void store_keys_add_print(struct store *st, enum store_keys which, uint64_t print);
/* The print of a key (a NUL-terminated text) that the sets keep of it: a
 * 64-bit hash seeded once per process (so that Message-IDs chosen to
 * collide cannot be chosen ahead), whose low 32 bits are store_key_hash()'s. */
uint64_t store_key_print(const char *key);
/* The hash the sets give a key (a NUL-terminated text): a GHashFunc, for
 * other tables keyed by Message-IDs (eight bytes a step where
 * g_str_hash() takes one; seeded once per process, so that Message-IDs
 * chosen to collide cannot be chosen ahead). */
unsigned store_key_hash(const void *key);
/* The integer key of a text (a NUL-terminated Message-ID) that a table
 * indexes in place of the text, where the text is compared beside it
 * (list_thread's mid_key and root_key): the same in every process and on
 * every machine, and text_key(x) in the store's SQL.  Not unique: two
 * texts may share a key, which costs a second row to compare, never a
 * wrong answer. */
long long store_text_key(const char *text);
/* Fills err from the connection's last error, naming what failed;
 * returns BB_ERR_BUSY for a lock held elsewhere, BB_ERR_NO_SPACE for a full
 * disk, BB_ERR_DATABASE otherwise. */
enum bb_status store_fail(struct store *st, struct bb_error *err, const char *what);

/* Cursors: how far each source (the Bugzilla, the list archive, a git
 * tree) has been read, by name.  Shared by the engine and the tracker. */
/* Sets a cursor (in the caller's transaction, with the effects it covers). */
enum bb_status store_cursor_set(struct store *db, const char *name, const char *value,
				struct bb_error *err);
/* Reads a cursor; *value is malloc'd, NULL if the cursor was never set. */
enum bb_status store_cursor_get(struct store *db, const char *name, char **value,
				time_t *updated, struct bb_error *err);
/* For what is done at most once a UTC day: today gets now's date
 * ("YYYY-MM-DD"), and *done whether the cursor name holds it already; set
 * the cursor to today once the day's work is done. */
#define STORE_DAY_LEN 16
enum bb_status store_cursor_today(struct store *db, const char *name, time_t now,
				  char today[STORE_DAY_LEN], int *done, struct bb_error *err);

/* A secret of this state, by name: STORE_SECRET_LEN random bytes, made the
 * first time they are asked for with make set, and kept in the meta table,
 * so that a backup of the database carries them and a copy put back knows
 * its own.  BB_ERR_NOT_FOUND when there is none and make is 0. */
#define STORE_SECRET_LEN 32
enum bb_status store_secret(struct store *db, const char *name, int make,
			    unsigned char out[STORE_SECRET_LEN], struct bb_error *err);

#endif
