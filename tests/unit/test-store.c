/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/store.c: creation, WAL, migrations, transactions. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <sqlite3.h>

#include "core/buf.h"
#include "core/store.h"
#include "core/store_schema.h"
#include "tests/unit/tap.h"

/* text_key('a@x') and text_key('d-a-longer-message-id@example.org'):
 * keys stored in databases, which no new version may compute otherwise */
#define THREAD_KEYS_FIXED "4407230288947662167 1678382681521393770"

static int count_rows(struct store *st, const char *table)
{
	sqlite3_stmt *q = NULL;
	char *sql = str_printf("SELECT count(*) FROM %s", table);
	int n = -1;

	if (store_prepare(st, &q, sql, NULL) == BB_OK && sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	free(sql);
	return n;
}

static const char *pragma_text(struct store *st, const char *pragma, char *out, size_t len)
{
	sqlite3_stmt *q = NULL;

	out[0] = '\0';
	if (store_prepare(st, &q, pragma, NULL) == BB_OK && sqlite3_step(q) == SQLITE_ROW)
		snprintf(out, len, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return out;
}

/* The schema of st, one line an object (type, name, table, SQL), sorted:
 * g_free() it. */
static char *schema_text(struct store *st)
{
	sqlite3_stmt *q = NULL;
	GString *out = g_string_new(NULL);

	if (store_prepare(st, &q, "SELECT type || ' ' || name || ' ' || tbl_name || ' ' ||"
			  " coalesce(sql, '') FROM sqlite_master ORDER BY type, name", NULL) == BB_OK)
		while (sqlite3_step(q) == SQLITE_ROW)
			g_string_append_printf(out, "%s\n", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return g_string_free(out, FALSE);
}

/* A store made step by step from the first migration at path. */
static struct store *open_by_steps(const char *path, struct bb_error *err)
{
	struct store *st = NULL;

	setenv("BUGBRIDGE_TEST_SCHEMA_STEPS", "1", 1);
	if (store_open(&st, path, STORE_READ_WRITE, err) != BB_OK)
		st = NULL;
	unsetenv("BUGBRIDGE_TEST_SCHEMA_STEPS");
	return st;
}

/* BUGBRIDGE_PRINT_FRESH_SCHEMA=1 tests/unit/test-store > core/store_schema.c:
 * the schema a new database is given at once, as the migrations make it
 * (the objects in the order they were made, a statement's text cut after
 * its commas) */
static int print_fresh_schema(void)
{
	char dir[] = "/tmp/bb-schema-XXXXXX";
	char *path = mkdtemp(dir) ? str_printf("%s/steps.db", dir) : NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct store *st = path ? open_by_steps(path, &err) : NULL;
	sqlite3_stmt *q = NULL;

	if (!st || store_prepare(st, &q, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"
				 " AND name NOT LIKE 'sqlite_%' ORDER BY rowid", NULL) != BB_OK) {
		fprintf(stderr, "test-store: no database made by the migrations: %s\n", err.message);
		return 1;
	}
	printf("/* SPDX-License-Identifier: GPL-2.0-or-later */\n"
	       "/* The schema a new database is given at once (core/store_schema.h), as\n"
	       " * the migrations make it.  Written by BUGBRIDGE_PRINT_FRESH_SCHEMA=1\n"
	       " * tests/unit/test-store > core/store_schema.c: not by hand. */\n"
	       "#include \"config.h\"\n\n#include <stddef.h>\n\n#include \"core/store_schema.h\"\n\n"
	       "const int store_fresh_version = %d;\n\nconst char *const store_fresh_schema[] = {\n",
	       store_schema_version());
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *sql = (const char *)sqlite3_column_text(q, 0);

		printf("\t\"");
		for (const char *c = sql; *c; c++) {
			if (*c == '"' || *c == '\\')
				putchar('\\');
			if (*c == '\n')
				fputs("\\n", stdout);
			else
				putchar(*c);
			if (*c == ',' && c[1] == ' ')
				printf("\"\n\t\"");
		}
		printf("\",\n");
	}
	printf("\tNULL\n};\n");
	sqlite3_finalize(q);
	store_close(st);
	return 0;
}

/* A new database is given the schema at once (core/store_schema.c): the
 * same as the migrations make step by step, at the current version */
static void test_fresh_schema(const char *dir)
{
	struct bb_error err = BB_ERROR_INIT;
	char *at_once = str_printf("%s/fresh-at-once.db", dir);
	char *by_steps = str_printf("%s/fresh-by-steps.db", dir);
	struct store *a = NULL, *b = open_by_steps(by_steps, &err);
	char *sa, *sb;

	ok(store_open(&a, at_once, STORE_READ_WRITE, &err) == BB_OK && b,
	   "fresh schema: a new database made at once and one made step by step");
	if (!a || !b) {
		store_close(a);
		store_close(b);
		return;
	}
	is_int(store_fresh_version, store_schema_version(),
	       "fresh schema: it is the current version (else: BUGBRIDGE_PRINT_FRESH_SCHEMA=1"
	       " tests/unit/test-store > core/store_schema.c)");
	is_int(store_file_version(a), store_file_version(b), "fresh schema: the same version");
	sa = schema_text(a);
	sb = schema_text(b);
	ok(*sa && !strcmp(sa, sb), "fresh schema: the same tables, indexes and their SQL");
	if (strcmp(sa, sb))
		diag("at once:\n%s\nstep by step:\n%s", sa, sb);
	g_free(sa);
	g_free(sb);
	store_close(a);
	store_close(b);
	free(at_once);
	free(by_steps);
}

/* store_cached(): one statement per text, found again by the text's
 * address or its contents; a nested use and a text of several statements
 * get statements of their own, finalized when handed back */
static void test_cached(struct store *st)
{
	sqlite3_stmt *a = NULL, *b = NULL, *c = NULL, *d = NULL;
	char text[64];

	ok(store_cached(st, &a, "SELECT 1", NULL) == BB_OK && a, "a cached statement");
	store_cached_done(st, a);
	ok(store_cached(st, &b, "SELECT 1", NULL) == BB_OK && b == a, "the same one again");
	ok(store_cached(st, &c, "SELECT 1", NULL) == BB_OK && c && c != a,
	   "a nested use gets one of its own");
	ok(sqlite3_step(c) == SQLITE_ROW && sqlite3_step(b) == SQLITE_ROW, "both run");
	store_cached_done(st, c);
	store_cached_done(st, b);
	/* the same address, another text: the statement of that text */
	snprintf(text, sizeof(text), "SELECT %d", 2);
	ok(store_cached(st, &a, text, NULL) == BB_OK && a, "a text on the stack");
	ok(sqlite3_step(a) == SQLITE_ROW && sqlite3_column_int(a, 0) == 2, "runs its text");
	store_cached_done(st, a);
	snprintf(text, sizeof(text), "SELECT %d", 3);
	ok(store_cached(st, &b, text, NULL) == BB_OK && b && b != a,
	   "the same address with another text: another statement");
	ok(sqlite3_step(b) == SQLITE_ROW && sqlite3_column_int(b, 0) == 3, "which runs that text");
	store_cached_done(st, b);
	snprintf(text, sizeof(text), "SELECT %d", 2);
	ok(store_cached(st, &c, text, NULL) == BB_OK && c == a, "and the first text's again");
	store_cached_done(st, c);
	/* a handed-back statement is reset: it runs again from its start */
	ok(store_cached(st, &d, "SELECT 1", NULL) == BB_OK && sqlite3_step(d) == SQLITE_ROW &&
	   sqlite3_column_int(d, 0) == 1, "reset when handed back");
	store_cached_done(st, d);
	ok(store_cached(st, &a, "SELECT 4; SELECT 5", NULL) == BB_OK && a,
	   "several statements: the first is prepared");
	store_cached_done(st, a);
	ok(store_cached(st, &b, "SELECT 4; SELECT 5", NULL) == BB_OK && b, "and again");
	store_cached_done(st, b);
}

/* Secrets: made once, kept, the same for a backup's copy; never made by
 * a read-only store. */
static void test_secret(const char *dir)
{
	unsigned char a[STORE_SECRET_LEN], b[STORE_SECRET_LEN], c[STORE_SECRET_LEN];
	unsigned char zero[STORE_SECRET_LEN] = { 0 };
	struct bb_error err = BB_ERROR_INIT;
	struct store *st = NULL, *ro = NULL;
	char *path = str_printf("%s/secret.db", dir), *copy = str_printf("%s/copy.db", dir);
	char *sql = str_printf("VACUUM INTO '%s'", copy);

	ok(store_open(&st, path, STORE_READ_WRITE, &err) == BB_OK, "secret: a store");
	is_int(store_secret(st, "k", 0, a, &err), BB_ERR_NOT_FOUND, "secret: none until made");
	ok(store_secret(st, "k", 1, a, &err) == BB_OK, "secret: made (%s)", err.message);
	ok(memcmp(a, zero, sizeof(a)) != 0, "secret: random bytes, not zeros");
	ok(store_secret(st, "k", 1, b, &err) == BB_OK && !memcmp(a, b, sizeof(a)),
	   "secret: asked again, the same");
	ok(store_secret(st, "other", 1, c, &err) == BB_OK && memcmp(a, c, sizeof(a)),
	   "secret: another name, another secret");
	ok(store_exec(st, sql, &err) == BB_OK, "secret: a copy of the database");
	ok(store_open(&ro, path, STORE_READ_ONLY, &err) == BB_OK, "secret: read-only");
	ok(store_secret(ro, "k", 0, b, &err) == BB_OK && !memcmp(a, b, sizeof(a)),
	   "secret: read-only reads it");
	ok(store_secret(ro, "new", 1, b, &err) != BB_OK, "secret: read-only makes none");
	store_close(ro);
	store_close(st);
	st = NULL;
	ok(store_open(&st, copy, STORE_READ_WRITE, &err) == BB_OK &&
	   store_secret(st, "k", 1, b, &err) == BB_OK && !memcmp(a, b, sizeof(a)),
	   "secret: the copy knows it");
	store_close(st);
	st = NULL;
	ok(store_open(&st, path, STORE_READ_WRITE, &err) == BB_OK &&
	   store_exec(st, "UPDATE meta SET value = 'zz' WHERE key = 'secret.k'", &err) == BB_OK,
	   "secret: spoilt");
	is_int(store_secret(st, "k", 1, b, &err), BB_ERR_DATABASE, "secret: a spoilt one is an error");
	store_close(st);
	free(path);
	free(copy);
	free(sql);
}

/* The file: URI a read-only store opens when it cannot have a -wal file
 * names the file whatever its folder is called, relative or not. */
static void test_file_uri(const char *dir)
{
	struct bb_error err = BB_ERROR_INIT;
	struct store *st = NULL;
	char *odd = str_printf("%s/a b%%25?#\xc3\xa9", dir), *path = str_printf("%s/state.db", odd);
	char *uri = store_file_uri("/srv/a b%?#\xc3\xa9/state.db", "immutable=1"), *cwd;
	sqlite3 *db = NULL;
	sqlite3_stmt *stmt = NULL;

	is_str(uri, "file:///srv/a%20b%25%3F%23%C3%A9/state.db?immutable=1",
	       "file URI: every byte a URI may not hold escaped");
	free(uri);
	ok(store_open(&st, path, STORE_READ_WRITE, &err) == BB_OK &&
	   store_exec(st, "INSERT INTO meta (key, value) VALUES ('uri.test', 'here')", &err) == BB_OK,
	   "file URI: a store in an oddly named folder");
	store_close(st);
	cwd = g_get_current_dir();
	for (int relative = 0; relative < 2; relative++) {
		if (relative && chdir(odd))
			break;
		uri = store_file_uri(relative ? "state.db" : path, "immutable=1");
		ok(uri && sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) ==
		   SQLITE_OK && sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'uri.test'",
						  -1, &stmt, NULL) == SQLITE_OK &&
		   sqlite3_step(stmt) == SQLITE_ROW &&
		   !strcmp((const char *)sqlite3_column_text(stmt, 0), "here"),
		   "file URI: SQLite opens the store by it (%s path: %s)",
		   relative ? "relative" : "absolute", uri);
		sqlite3_finalize(stmt);
		stmt = NULL;
		sqlite3_close(db);
		db = NULL;
		free(uri);
	}
	ok(chdir(cwd) == 0, "file URI: back in the working folder");
	g_free(cwd);
	free(path);
	free(odd);
}

/* A reg_mail row (and the regression it names) written as the tracker
 * does: the row, then the key named to the store. */
static void add_reg_mail(struct store *st, const char *msgid, int tell)
{
	char *sql = str_printf("INSERT OR IGNORE INTO reg_regression (id, created, updated,"
			       " last_activity) VALUES (1, 0, 0, 0);"
			       " INSERT INTO reg_mail (message_id, regression, kind)"
			       " VALUES ('%s', 1, 'thread')", msgid);

	store_exec(st, sql, NULL);
	if (tell)
		store_keys_add(st, STORE_KEYS_REG_MAIL, msgid);
	free(sql);
}

/* Asks past STORE_KEYS_FILL_AFTER, so that the set is read. */
static void ask_until_read(struct store *st, enum store_keys which)
{
	for (int i = 0; i <= STORE_KEYS_FILL_AFTER; i++)
		store_keys_may_hold(st, which, "warm-up@x");
}

/* store_keys_may_hold(): "may" outside a transaction and before the set
 * is read; then "not" only for keys the column lacks; a key written and
 * named is held; another connection's commit makes the set stale, found
 * as the next transaction begins. */
static void test_keys(const char *dir)
{
	struct bb_error err = BB_ERROR_INIT;
	struct store *st = NULL, *other = NULL;
	char *path = str_printf("%s/keys.db", dir);
	int n_not = 0;

	ok(store_open(&st, path, STORE_READ_WRITE, &err) == BB_OK &&
	   store_open(&other, path, STORE_READ_WRITE, &err) == BB_OK, "keys: two connections");
	add_reg_mail(st, "old@x", 0);
	is_int(store_keys_may_hold(st, STORE_KEYS_REG_MAIL, "none@x"), 1,
	       "keys: outside a transaction, always may");
	ok(store_begin(st, &err) == BB_OK, "keys: a transaction");
	for (int i = 0; i + 1 < STORE_KEYS_FILL_AFTER; i++)
		n_not += !store_keys_may_hold(st, STORE_KEYS_REG_MAIL, "none@x");
	is_int(n_not, 0, "keys: not read before it is asked often");
	ask_until_read(st, STORE_KEYS_REG_MAIL);
	is_int(store_keys_may_hold(st, STORE_KEYS_REG_MAIL, "none@x"), 0,
	       "keys: read, a key the column lacks is not held");
	is_int(store_keys_may_hold(st, STORE_KEYS_REG_MAIL, "old@x"), 1,
	       "keys: one it has is");
	add_reg_mail(st, "new@x", 1);
	is_int(store_keys_may_hold(st, STORE_KEYS_REG_MAIL, "new@x"), 1,
	       "keys: one written and named in the transaction is");
	store_rollback(st);
	ok(store_begin(st, &err) == BB_OK, "keys: rolled back, another transaction");
	is_int(store_keys_may_hold(st, STORE_KEYS_REG_MAIL, "new@x"), 1,
	       "keys: a rolled-back key is still held (a lookup finds nothing)");
	is_int(store_keys_may_hold(st, STORE_KEYS_REG_MAIL, "none@x"), 0,
	       "keys: the set is kept while nobody else writes");
	ok(store_commit(st, &err) == BB_OK, "keys: committed");

	/* another connection writes, not naming the key to this one */
	add_reg_mail(other, "elsewhere@x", 1);
	ok(store_begin(st, &err) == BB_OK, "keys: a transaction after another's commit");
	is_int(store_keys_may_hold(st, STORE_KEYS_REG_MAIL, "elsewhere@x"), 1,
	       "keys: another connection's key may be held (the set is stale)");
	ask_until_read(st, STORE_KEYS_REG_MAIL);
	is_int(store_keys_may_hold(st, STORE_KEYS_REG_MAIL, "elsewhere@x"), 1,
	       "keys: read again, it is held");
	is_int(store_keys_may_hold(st, STORE_KEYS_REG_MAIL, "none@x"), 0,
	       "keys: read again, a missing key is not");
	/* a write through this connection that nobody named, made in the
	 * same transaction before the set was read, is in it too */
	store_rollback(st);
	ok(store_begin(st, &err) == BB_OK, "keys: one more transaction");
	is_int(store_keys_may_hold(st, STORE_KEYS_REG_NOTED, "ev@x"), 1,
	       "keys: the other set, before it is read");
	ok(store_exec(st, "INSERT INTO reg_event (regression, time, kind, message_id)"
			  " VALUES (1, 0, 'x', 'ev@x')", &err) == BB_OK, "keys: an event written");
	ask_until_read(st, STORE_KEYS_REG_NOTED);
	is_int(store_keys_may_hold(st, STORE_KEYS_REG_NOTED, "ev@x"), 1,
	       "keys: read after the write, the event's key is held");
	is_int(store_keys_may_hold(st, STORE_KEYS_REG_NOTED, "old@x"), 0,
	       "keys: a reg_mail key is not in the other set");
	/* the list mails the bridge knows: in_mail's and bz_comment's ids */
	ok(store_exec(st, "INSERT INTO in_mail (message_id, source, state, updated)"
			  " VALUES ('in@x', 'list', 'ignored', 0);"
			  " INSERT INTO bz_comment (id, bug_id, count, message_id) VALUES (7, 1, 0, 'c@x');"
			  " INSERT INTO bz_comment (id, bug_id, count) VALUES (8, 1, 1)", &err) == BB_OK,
	   "keys: a list mail and two comments written");
	ask_until_read(st, STORE_KEYS_MAIL);
	is_int(store_keys_may_hold(st, STORE_KEYS_MAIL, "in@x"), 1, "keys: in_mail's id is held");
	is_int(store_keys_may_hold(st, STORE_KEYS_MAIL, "c@x"), 1, "keys: a comment's id is held");
	is_int(store_keys_may_hold(st, STORE_KEYS_MAIL, "old@x"), 0,
	       "keys: a reg_mail key is not in the mail set");
	/* a key given by its print: the same answers, and one added so is held */
	is_int(store_keys_may_hold_print(st, STORE_KEYS_MAIL, store_key_print("in@x")), 1,
	       "keys: by its print, a key the set has is held");
	is_int(store_keys_may_hold_print(st, STORE_KEYS_MAIL, store_key_print("old@x")), 0,
	       "keys: by its print, one it lacks is not");
	is_int((int)(store_key_hash("in@x") == (unsigned)store_key_print("in@x")), 1,
	       "keys: store_key_hash() is the print's low bits");
	store_keys_add_print(st, STORE_KEYS_MAIL, store_key_print("added@x"));
	is_int(store_keys_may_hold(st, STORE_KEYS_MAIL, "added@x"), 1,
	       "keys: a key added by its print is held");
	ok(store_commit(st, &err) == BB_OK, "keys: done");
	store_close(other);
	store_close(st);
	free(path);
}

/* store_set_commit_hook(): the hook writes inside the outermost commit,
 * once; its failure rolls the transaction back; a rollback tells it. */
struct hook_log {
	int commits, rollbacks, fail;
	struct store *st;
};

static enum bb_status hook_commit(void *ctx, struct bb_error *err)
{
	struct hook_log *h = ctx;

	h->commits++;
	if (h->fail)
		return bb_error_set(err, BB_ERR_DATABASE, "the hook failed");
	return store_exec(h->st, "INSERT INTO cursor (source, value, updated) VALUES ('hooked', 'x', 0)"
			  " ON CONFLICT (source) DO UPDATE SET value = value || 'x'", err);
}

static void hook_rolled_back(void *ctx)
{
	((struct hook_log *)ctx)->rollbacks++;
}

static void test_commit_hook(const char *dir)
{
	struct bb_error err = BB_ERROR_INIT;
	struct store *st = NULL;
	char *path = str_printf("%s/hook.db", dir);
	struct hook_log h = { 0, 0, 0, NULL };
	const struct store_commit_hook hook = { hook_commit, hook_rolled_back, &h },
				       other = { hook_commit, hook_rolled_back, &h };
	char *v = NULL;

	ok(store_open(&st, path, STORE_READ_WRITE, &err) == BB_OK, "hook: a store");
	h.st = st;
	ok(store_set_commit_hook(st, &hook, &err) == BB_OK, "hook: set");
	is_int(store_set_commit_hook(st, &other, &err), BB_ERR_INTERNAL, "hook: a second is refused");
	ok(store_begin(st, &err) == BB_OK && store_begin(st, &err) == BB_OK &&
	   store_commit(st, &err) == BB_OK, "hook: a nested transaction's inner commit");
	is_int(h.commits, 0, "hook: not run by an inner commit");
	ok(store_commit(st, &err) == BB_OK, "hook: the outer commit");
	is_int(h.commits, 1, "hook: run once by it");
	ok(store_cursor_get(st, "hooked", &v, NULL, &err) == BB_OK && v && !strcmp(v, "x"),
	   "hook: its write is committed");
	free(v);
	v = NULL;
	ok(store_begin(st, &err) == BB_OK, "hook: a transaction to roll back");
	store_rollback(st);
	is_int(h.rollbacks, 1, "hook: told of the rollback");
	is_int(h.commits, 1, "hook: not run for it");
	h.fail = 1;
	ok(store_begin(st, &err) == BB_OK &&
	   store_exec(st, "INSERT INTO cursor (source, value, updated) VALUES ('other', 'y', 0)",
		      &err) == BB_OK,
	   "hook: a write");
	is_int(store_commit(st, &err), BB_ERR_DATABASE, "hook: its failure is the commit's");
	is_int(h.rollbacks, 2, "hook: ... which rolls back");
	ok(store_cursor_get(st, "other", &v, NULL, &err) == BB_OK && !v,
	   "hook: the transaction's write is gone");
	free(v);
	is_int(st->depth, 0, "hook: no transaction is left open");
	/* a transaction SQLite ended itself (as on a full disk): the hook
	 * writes nothing on its own, and is told */
	h.fail = 0;
	ok(store_begin(st, &err) == BB_OK && store_exec(st, "ROLLBACK", &err) == BB_OK,
	   "hook: a transaction ended under the store");
	ok(store_commit(st, &err) != BB_OK, "hook: its commit fails");
	is_int(h.commits, 2, "hook: not run for it");
	ok(h.rollbacks >= 3, "hook: told of the rollback");
	ok(store_cursor_get(st, "hooked", &v, NULL, &err) == BB_OK && v && !strcmp(v, "x"),
	   "hook: nothing more written");
	free(v);
	v = NULL;
	h.fail = 1;
	ok(store_set_commit_hook(st, NULL, &err) == BB_OK, "hook: unset");
	h.fail = 0;
	ok(store_begin(st, &err) == BB_OK && store_commit(st, &err) == BB_OK, "hook: a commit");
	is_int(h.commits, 2, "hook: no longer run");
	store_close(st);
	free(path);
}

/* 1 if the cursor named source is there. */
static int has_cursor(struct store *st, const char *source)
{
	struct bb_error err = BB_ERROR_INIT;
	char *v = NULL;
	int there = store_cursor_get(st, source, &v, NULL, &err) == BB_OK && v;

	free(v);
	return there;
}

/* Writes after the transaction ended under the store are refused, not
 * committed one by one. */
/* 27 -> 28: list_thread, made again as a table of rows in the order they
 * were written, keeps each row, one a Message-ID, and its index on root */
static void test_thread_rows_upgrade(const char *dir)
{
	struct bb_error err = BB_ERROR_INIT;
	struct store *st = NULL;
	char *path = str_printf("%s/threads.db", dir), out[64];

	if (store_open(&st, path, STORE_READ_WRITE, &err) != BB_OK) {
		ok(0, "thread rows: open (%s)", err.message);
		free(path);
		return;
	}
	/* the table as version 27 had it, with two rows */
	ok(store_exec(st, "DROP TABLE list_thread;"
		      "CREATE TABLE list_thread (message_id TEXT PRIMARY KEY, root TEXT NOT NULL,"
		      " from_who TEXT NOT NULL, date INTEGER NOT NULL, seen INTEGER NOT NULL)"
		      " WITHOUT ROWID;"
		      "CREATE INDEX list_thread_root ON list_thread (root);"
		      "INSERT INTO list_thread VALUES ('b@x', 'a@x', 'B <b@x>', 2, 10),"
		      " ('a@x', 'a@x', 'A <a@x>', 1, 10);"
		      "PRAGMA user_version = 27", &err) == BB_OK, "thread rows: a version 27 table");
	store_close(st);
	st = NULL;
	if (store_open(&st, path, STORE_READ_WRITE, &err) != BB_OK) {
		ok(0, "thread rows: upgrade (%s)", err.message);
		free(path);
		return;
	}
	is_int(store_file_version(st), store_schema_version(), "thread rows: upgraded");
	is_str(pragma_text(st, "SELECT group_concat(message_id || '>' || root || ' ' || from_who"
			   " || ' ' || date, ';') FROM (SELECT * FROM list_thread ORDER BY date)",
			   out, sizeof(out)), "a@x>a@x A <a@x> 1;b@x>a@x B <b@x> 2",
	       "thread rows: each row kept");
	/* (and on through 28 -> 29: found by the keys of the texts) */
	is_str(pragma_text(st, "SELECT count(*) FROM sqlite_master WHERE type = 'index'"
			   " AND tbl_name = 'list_thread' AND sql LIKE '%(root_key)'", out, sizeof(out)),
	       "1", "thread rows: the index on root's key is there");
	is_str(pragma_text(st, "SELECT group_concat(message_id) FROM (SELECT message_id FROM"
			   " list_thread WHERE root_key = text_key('a@x') AND root = 'a@x'"
			   " ORDER BY message_id)", out, sizeof(out)), "a@x,b@x",
	       "thread rows: found by root");
	store_close(st);
	free(path);
}

/* 28 -> 29: list_thread's rows, with the keys of their Message-ID and
 * root computed, kept in their order and found by either, through the
 * indexes of the keys; the keys are the same in every process (they are
 * stored) */
static void test_thread_keys_upgrade(const char *dir)
{
	struct bb_error err = BB_ERROR_INIT;
	struct store *st = NULL;
	char *path = str_printf("%s/thread-keys.db", dir), out[160], want[64];

	if (store_open(&st, path, STORE_READ_WRITE, &err) != BB_OK) {
		ok(0, "thread keys: open (%s)", err.message);
		free(path);
		return;
	}
	/* the table as version 28 had it, with three rows */
	ok(store_exec(st, "DROP TABLE list_thread;"
		      "CREATE TABLE list_thread (message_id TEXT NOT NULL UNIQUE, root TEXT NOT NULL,"
		      " from_who TEXT NOT NULL, date INTEGER NOT NULL, seen INTEGER NOT NULL);"
		      "CREATE INDEX list_thread_root ON list_thread (root);"
		      "INSERT INTO list_thread VALUES ('c@x', 'a@x', 'C <c@x>', 3, 10),"
		      " ('a@x', 'a@x', 'A <a@x>', 1, 10),"
		      " ('d-a-longer-message-id@example.org', 'd-a-longer-message-id@example.org',"
		      "  'D', 4, 11);"
		      "PRAGMA user_version = 28", &err) == BB_OK, "thread keys: a version 28 table");
	store_close(st);
	st = NULL;
	if (store_open(&st, path, STORE_READ_WRITE, &err) != BB_OK) {
		ok(0, "thread keys: upgrade (%s)", err.message);
		free(path);
		return;
	}
	is_int(store_file_version(st), store_schema_version(), "thread keys: upgraded");
	is_str(pragma_text(st, "SELECT group_concat(message_id || '>' || root || ' ' || from_who"
			   " || ' ' || date || ' ' || seen, ';') FROM (SELECT * FROM list_thread"
			   " ORDER BY rowid)", out, sizeof(out)),
	       "c@x>a@x C <c@x> 3 10;a@x>a@x A <a@x> 1 10;d-a-longer-message-id@example.org>"
	       "d-a-longer-message-id@example.org D 4 11", "thread keys: each row kept, in order");
	is_str(pragma_text(st, "SELECT count(*) FROM list_thread WHERE mid_key = text_key(message_id)"
			   " AND root_key = text_key(root)", out, sizeof(out)), "3",
	       "thread keys: each row's keys computed");
	snprintf(want, sizeof(want), "%lld", store_text_key("a@x"));
	is_str(pragma_text(st, "SELECT mid_key FROM list_thread WHERE message_id = 'a@x'", out,
			   sizeof(out)), want, "thread keys: SQL's key is store_text_key()'s");
	/* (a stored key never changes: its function neither) */
	is_str(pragma_text(st, "SELECT text_key('a@x') || ' ' ||"
			   " text_key('d-a-longer-message-id@example.org')", out, sizeof(out)),
	       THREAD_KEYS_FIXED, "thread keys: the keys of two texts, as they always were");
	is_str(pragma_text(st, "SELECT root FROM list_thread WHERE mid_key = text_key('c@x')"
			   " AND message_id = 'c@x'", out, sizeof(out)), "a@x",
	       "thread keys: found by Message-ID");
	is_str(pragma_text(st, "SELECT group_concat(message_id) FROM (SELECT message_id FROM"
			   " list_thread WHERE root_key = text_key('a@x') AND root = 'a@x'"
			   " ORDER BY rowid)", out, sizeof(out)), "c@x,a@x",
	       "thread keys: found by root");
	store_close(st);
	free(path);
}

/* store_text_key() of texts of each length up to 17 (every length of the
 * last word, with and without whole words before it), as the function
 * always gave them: the keys are stored, and a hash that reads the text
 * another way must give the same. */
static void test_text_key_fixed(void)
{
	static const struct {
		const char *text;
		long long key;
	} fixed[] = {
	{ "", 7094690455941701492LL },
	{ "<", 3721669439658177594LL },
	{ "<2", 2354088686567895891LL },
	{ "<20", -4901318469916542935LL },
	{ "<202", 8967778040732844088LL },
	{ "<2024", 8745467930929171871LL },
	{ "<20240", 6181818018297047507LL },
	{ "<202401", 6131792466709039575LL },
	{ "<2024010", 3747112032911866530LL },
	{ "<20240101", 5862817954235985155LL },
	{ "<20240101.", 673247729770119264LL },
	{ "<20240101.a", 3974255900450930056LL },
	{ "<20240101.ab", 3098108206384801623LL },
	{ "<20240101.abc", 4378210223961293752LL },
	{ "<20240101.abcd", 3896024479963010614LL },
	{ "<20240101.abcde", -4320446579685536804LL },
	{ "<20240101.abcdef", 1652961454090680858LL },
	{ "<20240101.abcdefg", 4167338142230706605LL },
	};
	int same = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (store_text_key(fixed[i].text) == fixed[i].key)
			same++;
		else
			diag("text key of \"%s\": %lld, was %lld", fixed[i].text,
			     store_text_key(fixed[i].text), fixed[i].key);
	}
	is_int(same, (int)(sizeof(fixed) / sizeof(fixed[0])),
	       "text keys: each length's key as it always was");
}

static void test_lone_commits(const char *dir)
{
	struct bb_error err = BB_ERROR_INIT;
	struct store *st = NULL;
	char *path = str_printf("%s/lone.db", dir);

	ok(store_open(&st, path, STORE_READ_WRITE, &err) == BB_OK, "lone: a store");
	/* SQLite ended it (as on a full disk) */
	ok(store_begin(st, &err) == BB_OK && store_exec(st, "ROLLBACK", &err) == BB_OK,
	   "lone: a transaction ended under the store");
	ok(store_exec(st, "INSERT INTO cursor (source, value, updated) VALUES ('a', 'x', 0)", &err) !=
	   BB_OK, "lone: a write after it fails");
	ok(store_exec(st, "INSERT INTO cursor (source, value, updated) VALUES ('b', 'x', 0)", &err) !=
	   BB_OK, "lone: and the next");
	ok(store_commit(st, &err) != BB_OK, "lone: the commit fails");
	ok(!has_cursor(st, "a") && !has_cursor(st, "b"), "lone: none of them stands");
	/* an inner step rolled back */
	ok(store_begin(st, &err) == BB_OK &&
	   store_exec(st, "INSERT INTO cursor (source, value, updated) VALUES ('c', 'x', 0)", &err) ==
		   BB_OK && store_begin(st, &err) == BB_OK, "lone: a write, then an inner step");
	store_rollback(st);
	ok(store_exec(st, "INSERT INTO cursor (source, value, updated) VALUES ('d', 'x', 0)", &err) !=
	   BB_OK, "lone: a write after the inner rollback fails");
	ok(store_commit(st, &err) != BB_OK, "lone: the outer commit fails");
	ok(!has_cursor(st, "c") && !has_cursor(st, "d"), "lone: neither write stands");
	is_int(st->depth, 0, "lone: no transaction is left open");
	/* outside a transaction, and in one, writes stand */
	ok(store_exec(st, "INSERT INTO cursor (source, value, updated) VALUES ('e', 'x', 0)", &err) ==
	   BB_OK && has_cursor(st, "e"), "lone: a write outside a transaction stands");
	ok(store_begin(st, &err) == BB_OK &&
	   store_exec(st, "INSERT INTO cursor (source, value, updated) VALUES ('f', 'x', 0)", &err) ==
		   BB_OK && store_commit(st, &err) == BB_OK && has_cursor(st, "f"),
	   "lone: a transaction's write stands");
	store_close(st);
	free(path);
}

int main(void)
{
	char dir[] = "/tmp/bb-store-XXXXXX", mode[32];
	struct bb_error err = BB_ERROR_INIT;
	struct store *st = NULL, *other = NULL;
	char *path, *cmd;

	if (getenv("BUGBRIDGE_PRINT_FRESH_SCHEMA"))
		return print_fresh_schema();
	ok(mkdtemp(dir) != NULL, "temp folder");
	path = str_printf("%s/sub/state.db", dir);
	ok(store_open(&st, path, STORE_READ_WRITE, &err) == BB_OK, "open creates the file and its folder");
	ok(access(path, F_OK) == 0, "database file exists");
	is_str(pragma_text(st, "PRAGMA journal_mode", mode, sizeof(mode)), "wal", "journal mode is WAL");
	is_str(pragma_text(st, "PRAGMA foreign_keys", mode, sizeof(mode)), "1", "foreign keys are on");
	test_cached(st);
	test_secret(dir);
	test_keys(dir);
	test_commit_hook(dir);
	test_lone_commits(dir);
	test_thread_rows_upgrade(dir);
	test_thread_keys_upgrade(dir);
	test_text_key_fixed();
	test_fresh_schema(dir);
	is_int(store_file_version(st), store_schema_version(), "schema is at the current version");
	ok(store_schema_version() >= 1, "at least one migration");
	is_int(count_rows(st, "blob"), 0, "blob table exists and is empty");
	is_str(pragma_text(st, "SELECT count(*) FROM sqlite_master WHERE name = 'list_thread_seen'",
			   mode, sizeof(mode)), "0", "list_thread has no index on when a row was read");

	/* nested transactions: only the outermost commit commits */
	ok(store_begin(st, &err) == BB_OK && store_begin(st, &err) == BB_OK, "begin twice");
	ok(store_exec(st, "INSERT INTO meta VALUES ('a', '1')", &err) == BB_OK, "insert inside");
	ok(store_commit(st, &err) == BB_OK, "inner commit");
	ok(store_open(&other, path, STORE_READ_ONLY, &err) == BB_OK, "second connection");
	is_int(count_rows(other, "meta"), 0, "inner commit is not visible to others yet");
	ok(store_commit(st, &err) == BB_OK, "outer commit");
	is_int(count_rows(other, "meta"), 1, "outer commit is visible to others");

	/* an inner rollback dooms the whole transaction */
	store_begin(st, NULL);
	store_exec(st, "INSERT INTO meta VALUES ('b', '2')", NULL);
	store_begin(st, NULL);
	store_rollback(st);
	is_int(store_commit(st, &err), BB_ERR_DATABASE, "outer commit after inner rollback fails");
	is_int(count_rows(st, "meta"), 1, "nothing of the doomed transaction stayed");
	ok(store_begin(st, &err) == BB_OK && store_commit(st, &err) == BB_OK,
	   "a new transaction works afterwards");

	is_int(store_exec(other, "INSERT INTO meta VALUES ('c', '3')", &err), BB_ERR_PERMISSION,
	       "read-only connection refuses writes");
	store_close(other);
	store_close(st);

	/* reopening leaves the version alone; a newer file is refused */
	ok(store_open(&st, path, STORE_READ_WRITE, &err) == BB_OK, "reopen");
	is_int(count_rows(st, "meta"), 1, "data survives reopening");
	store_exec(st, "PRAGMA user_version = 999", NULL);
	store_close(st);
	st = NULL;
	is_int(store_open(&st, path, STORE_READ_WRITE, &err), BB_ERR_DATABASE, "newer schema refused");
	ok(strstr(err.message, "newer than this bugbridge") != NULL, "with a clear message");
	ok(st == NULL, "no handle on failure");

	/* 8 -> 9 on a file with imported bugs: their rows are marked for a
	 * second read (alias ''), the REST import cursor starts over, the XML
	 * one stays */
	{
		char *old = str_printf("%s/v8.db", dir), text[64];
		static const char *const added[] = { "alias", "qa_contact", "target_milestone",
						     "op_sys", "platform", "depends_on", "blocks" };

		ok(store_open(&st, old, STORE_READ_WRITE, &err) == BB_OK, "v8: a new store");
		for (size_t i = 0; i < sizeof(added) / sizeof(added[0]); i++) {
			char *sql = str_printf("ALTER TABLE imp_bug DROP COLUMN %s", added[i]);

			store_exec(st, sql, NULL);
			free(sql);
		}
		/* and what later versions added */
		store_exec(st, "ALTER TABLE reg_push DROP COLUMN close_fixed", NULL);
		store_exec(st, "ALTER TABLE in_mail DROP COLUMN attempts", NULL);
		store_exec(st, "ALTER TABLE in_mail DROP COLUMN next_attempt", NULL);
		store_exec(st, "DROP TABLE bug_cc", NULL);
		store_exec(st, "ALTER TABLE reg_regression DROP COLUMN culprit_checked", NULL);
		store_exec(st, "DROP TABLE bug_culprit", NULL);
		store_exec(st, "DROP TABLE list_thread", NULL);
		store_exec(st, "DROP TABLE bug_content_route", NULL);
		store_exec(st, "DROP INDEX reg_by_report_url", NULL);
		store_exec(st, "DROP TABLE in_wait", NULL);
		store_exec(st, "DROP TABLE needinfo", NULL);
		store_exec(st, "DROP TABLE bug_signature", NULL);
		store_exec(st, "DROP TABLE tree_release", NULL);
		store_exec(st, "DROP TABLE aging_ping", NULL);
		store_exec(st, "DROP TABLE follow", NULL);
		store_exec(st, "ALTER TABLE fd_report DROP COLUMN bz_version", NULL);
		store_exec(st, "ALTER TABLE fd_report DROP COLUMN severity", NULL);
		store_exec(st, "DROP TABLE digest", NULL);
		store_exec(st, "DROP TABLE digest_entry", NULL);
		store_exec(st, "DROP TABLE bug_mute", NULL);
		store_exec(st, "DROP TABLE handover", NULL);
		ok(store_exec(st, "INSERT INTO imp_bug (id, source, imported) VALUES (1, 'x', 1);"
			      "INSERT INTO cursor VALUES ('import:https://bz.example', "
			      "'since=5 pass=0 after=0', 1);"
			      "INSERT INTO cursor VALUES ('import:xml:/exports', 'a.xml', 1);"
			      "INSERT INTO cursor VALUES ('bugzilla:https://bz.example', 'x', 1);"
			      "PRAGMA user_version = 8", &err) == BB_OK, "v8: as schema 8 left it");
		store_close(st);
		st = NULL;
		ok(store_open(&st, old, STORE_READ_WRITE, &err) == BB_OK, "v8: upgraded");
		is_int(store_file_version(st), store_schema_version(), "v8: at the current version");
		is_str(pragma_text(st, "SELECT alias || '|' || qa_contact || '|' || depends_on || '|' ||"
				   " blocks FROM imp_bug WHERE id = 1", text, sizeof(text)),
		       "||[]|[]", "v8: the old bug: no alias list (read again), empty lists");
		is_str(pragma_text(st, "SELECT group_concat(source, ' ') FROM (SELECT source FROM cursor"
				   " ORDER BY source)", text, sizeof(text)),
		       "bugzilla:https://bz.example import:xml:/exports",
		       "v8: the REST import cursor starts over, the others stay");
		store_close(st);
		st = NULL;
		free(old);
	}

	/* a file that is not a database */
	{
		char *junk = str_printf("%s/junk.db", dir);
		FILE *f = fopen(junk, "w");

		fputs("this is not a database, just text that is long enough to look like a header\n", f);
		fclose(f);
		ok(store_open(&st, junk, STORE_READ_WRITE, &err) != BB_OK, "garbage file refused");
		ok(strstr(err.message, junk) != NULL, "message names the file");
		free(junk);
	}
	test_file_uri(dir);
	cmd = str_printf("rm -rf '%s'", dir);
	ok(system(cmd) == 0, "cleanup");
	free(cmd);
	free(path);
	return done_testing();
}
