/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The REST client (bugzilla/bz_client.c) against the fake Bugzilla 5.2 of
 * tests/lib/fake_bugzilla.py: paging, filters, batched comments and
 * attachments (counted in the server's request log), downloads, API key
 * placement, failures folded into statuses, the retry on a reset
 * connection, posting a comment; and no API key in the client's log. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <openssl/evp.h>

#include "bugzilla/bug.h"
#include "bugzilla/bz_client.h"
#include "bugzilla/bz_fields.h"
#include "core/buf.h"
#include "core/digest.h"
#include "core/log.h"
#include "tests/lib/fakebz.h"
#include "tests/unit/tap.h"

#define NBUGS 23                 /* public bugs; bug 24 is in a private group */
#define PAGE 5
#define BLOB_SIZE 100000
#define KEY_ADMIN "KEY-ADMIN-3f9a1c77e0d2b6a4"
#define KEY_ALICE "KEY-ALICE-8c2e5d11a0f49b73"
#define KEY_BOB "KEY-BOB-51d07e9c3a6b2f88"
#define T0 "2026-12-03T09:00:00Z"

static struct fakebz fb;
static char workdir[256];
static char blob_sha[SHA256_HEX_LEN + 1];

/* A crash or an early exit must not leave the server running. */
static void stop_server_on_signal(int sig)
{
	if (fb.pid > 0)
		kill(fb.pid, SIGTERM);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void stop_server_at_exit(void)
{
	if (fb.pid > 0)
		fakebz_stop(&fb);
}

static void guard_server(void)
{
	static const int sigs[] = { SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTERM, SIGINT };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], stop_server_on_signal);
	atexit(stop_server_at_exit);
}

/* ---- the server's data ------------------------------------------------- */

static unsigned char *make_blob(void)
{
	unsigned char *b = malloc(BLOB_SIZE);
	uint32_t x = 2463534242u;

	for (size_t i = 0; i < BLOB_SIZE; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (unsigned char)x;
	}
	return b;
}

static int bug_comments(int i)
{
	return i % 4 + 1;   /* the description and i % 4 more */
}

static int write_state(const char *path)
{
	struct buf s = BUF_INIT;
	unsigned char *blob = make_blob();
	char *b64 = malloc(BLOB_SIZE / 3 * 4 + 8);
	FILE *f;
	int ok_write;

	EVP_EncodeBlock((unsigned char *)b64, blob, BLOB_SIZE);
	sha256_hex(blob, BLOB_SIZE, blob_sha);
	buf_addf(&s, "{\"clock\": {\"now\": \"%s\"}, \"params\": {\"insidergroup\": \"insiders\"},\n"
		 "\"groups\": [{\"name\": \"security\", \"description\": \"embargoed\"}],\n"
		 "\"fields\": {\"cf_regression\": {\"description\": \"Regression\","
		 " \"values\": [\"---\", \"No\", \"Yes\"], \"default\": \"---\"}},\n"
		 "\"users\": [\n"
		 " {\"login\": \"admin@example.com\", \"real_name\": \"Admin\", \"api_key\": \"%s\","
		 "  \"insider\": true, \"groups\": [\"admin\"]},\n"
		 " {\"login\": \"alice@example.com\", \"real_name\": \"Alice Reporter\", \"api_key\": \"%s\"},\n"
		 " {\"login\": \"bob@example.com\", \"real_name\": \"Bob Netdev\", \"api_key\": \"%s\","
		 "  \"insider\": true, \"groups\": [\"editbugs\"]}],\n"
		 "\"products\": [{\"name\": \"Drivers\", \"components\": [\"Network\", \"USB\"]},"
		 " {\"name\": \"File System\", \"components\": [\"ext4\"]}],\n"
		 "\"bugs\": [\n", T0, KEY_ADMIN, KEY_ALICE, KEY_BOB);
	for (int i = 1; i <= NBUGS + 1; i++) {
		buf_addf(&s, "%s{\"id\": %d, \"summary\": \"bug number %d\", \"product\": \"%s\","
			 " \"component\": \"%s\", \"status\": \"%s\", \"resolution\": \"%s\","
			 " \"creator\": \"alice@example.com\", \"assigned_to\": \"bob@example.com\","
			 " \"keywords\": %s, \"groups\": %s, \"cf_regression\": \"%s\","
			 " \"creation_time\": \"2026-11-01T00:00:%02dZ\","
			 " \"last_change_time\": \"2026-12-01T00:%02d:00Z\",\n  \"comments\": [",
			 i > 1 ? ",\n" : "", i, i, i % 2 ? "Drivers" : "File System",
			 i % 2 ? (i % 3 ? "Network" : "USB") : "ext4",
			 i % 7 ? "CONFIRMED" : "RESOLVED", i % 7 ? "" : "FIXED",
			 i % 5 ? "[]" : "[\"regression\"]", i == NBUGS + 1 ? "[\"security\"]" : "[]",
			 i % 3 ? "No" : "Yes", i, 59 - i);
		for (int c = 0; c < bug_comments(i); c++)
			buf_addf(&s, "%s{\"text\": \"comment %d of bug %d\", \"creator\": \"%s\","
				 " \"creation_time\": \"2026-11-01T01:%02d:00Z\"}", c ? ", " : "", c, i,
				 c % 2 ? "bob@example.com" : "alice@example.com", c);
		if (i == 2)
			buf_addstr(&s, ", {\"text\": \"insiders only\", \"creator\": \"bob@example.com\","
				   " \"is_private\": true, \"creation_time\": \"2026-11-01T02:00:00Z\"}");
		buf_addstr(&s, "]");
		if (i == 6)
			buf_addstr(&s, ",\n  \"flags\": [{\"name\": \"bugbot\", \"status\": \"+\","
				   " \"setter\": \"bob@example.com\"}]");
		if (i == 1)
			buf_addf(&s, ",\n  \"attachments\": ["
				 "{\"id\": 1, \"file_name\": \"dmesg.txt\", \"summary\": \"dmesg\","
				 " \"content_type\": \"text/plain\", \"text\": \"[    0.000000] Linux version 6.12\\n\","
				 " \"creator\": \"alice@example.com\"},"
				 "{\"id\": 2, \"file_name\": \"fw-dump.bin\", \"summary\": \"firmware dump\","
				 " \"content_type\": \"application/octet-stream\", \"data\": \"%s\","
				 " \"creator\": \"alice@example.com\"},"
				 "{\"id\": 3, \"file_name\": \"lspci.txt\", \"summary\": \"serial numbers\","
				 " \"text\": \"secret serial 1234\\n\", \"content_type\": \"text/plain\","
				 " \"is_private\": true, \"creator\": \"alice@example.com\"},"
				 "{\"id\": 4, \"file_name\": \"report.html\", \"summary\": \"an HTML report\","
				 " \"content_type\": \"text/html\", \"text\": \"<html><body>ok</body></html>\","
				 " \"creator\": \"bob@example.com\"}]", b64);
		buf_addstr(&s, "}");
	}
	buf_addstr(&s, "]}\n");
	f = fopen(path, "w");
	ok_write = f && fwrite(s.data, 1, s.len, f) == s.len;
	if (f)
		fclose(f);
	buf_release(&s);
	free(blob);
	free(b64);
	return ok_write ? 0 : -1;
}

/* ---- the server's log and controls ------------------------------------- */

static json_object *server_log(const char *prefix)
{
	char path[512], *answer = NULL;
	json_object *root, *requests = NULL;

	snprintf(path, sizeof(path), "/__admin/log?path_prefix=%s", prefix ? prefix : "");
	if (fakebz_http(&fb, "GET", path, NULL, &answer) != 200 || !answer) {
		free(answer);
		return NULL;
	}
	root = json_tokener_parse(answer);
	free(answer);
	if (root && json_object_object_get_ex(root, "requests", &requests))
		json_object_get(requests);
	json_object_put(root);
	return requests;
}

static long requests_to(const char *prefix)
{
	return fakebz_request_count(&fb, prefix);
}

static void reset_log(void)
{
	fakebz_admin(&fb, "/__admin/reset_log", "{}");
}

static void fail_next(const char *rule)
{
	if (fakebz_admin(&fb, "/__admin/fail", rule))
		diag("could not set the failure rule %s", rule);
}

static const char *entry_str(json_object *e, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(e, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int str_eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static int query_has(json_object *e, const char *name)
{
	json_object *q, *v;

	return json_object_object_get_ex(e, "query", &q) && json_object_object_get_ex(q, name, &v);
}

static const char *query_first(json_object *e, const char *name)
{
	json_object *q, *v;

	if (!json_object_object_get_ex(e, "query", &q) || !json_object_object_get_ex(q, name, &v) ||
	    !json_object_is_type(v, json_type_array) || !json_object_array_length(v))
		return NULL;
	return json_object_get_string(json_object_array_get_idx(v, 0));
}

/* ---- clients ----------------------------------------------------------- */

static struct bz_client *client(const char *key, int in_header, unsigned page)
{
	struct bz_client_options opt = { 0 };
	struct bb_error err = BB_ERROR_INIT;
	struct bz_client *c = NULL;

	opt.url = fb.url;
	opt.api_key = key;
	opt.key_in_header = in_header;
	opt.timeout = 10;
	opt.page_size = page;
	opt.subsystem_field = "cf_subsystem";
	if (bz_client_new(&c, &opt, &err))
		diag("bz_client_new: %s", err.message);
	return c;
}

static void free_bugs(struct bz_bug *bugs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bz_bug_release(&bugs[i]);
	free(bugs);
}

static size_t total_comments(const struct bz_bug *bugs, size_t n)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += bugs[i].ncomments;
	return total;
}

static struct bz_bug *find_bug(struct bz_bug *bugs, size_t n, long long id)
{
	for (size_t i = 0; i < n; i++)
		if (bugs[i].id == id)
			return &bugs[i];
	return NULL;
}

struct download {
	struct sha256 hash;
	uint64_t bytes;
	struct buf text;
};

static enum bb_status on_bytes(void *ctx, const void *data, size_t len)
{
	struct download *d = ctx;

	sha256_update(&d->hash, data, len);
	d->bytes += len;
	if (d->text.len < 4096)
		buf_add(&d->text, data, len < 4096 ? len : 4096);
	return BB_OK;
}

static enum bb_status download(struct bz_client *c, long long id, uint64_t max,
			       char sha[SHA256_HEX_LEN + 1], uint64_t *size, struct buf *text,
			       struct bb_error *err)
{
	struct download d;
	enum bb_status st;

	memset(&d, 0, sizeof(d));
	buf_init(&d.text);
	sha256_init(&d.hash);
	st = bz_download_attachment(c, id, max, on_bytes, &d, size, err);
	sha256_final_hex(&d.hash, sha);
	if (text)
		buf_add(text, d.text.data, d.text.len);
	buf_release(&d.text);
	return st;
}

/* ---- the tests --------------------------------------------------------- */

static void test_time_and_search(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_client *c = client(NULL, 0, PAGE);
	struct bz_bug *bugs = NULL;
	size_t n = 0;
	time_t now = 0;
	enum bb_status st;
	json_object *log;
	int ordered = 1;

	st = bz_server_time(c, &now, &err);
	ok(st == BB_OK && now == bz_parse_time(T0), "server time is the fake's clock (%s)",
	   err.message);

	reset_log();
	st = bz_search_changed(c, 0, NULL, &bugs, &n, &err);
	is_int(st, BB_OK, "search everything (%s)", err.message);
	is_int(n, NBUGS, "anonymous: the %d public bugs, not the private one", NBUGS);
	for (size_t i = 1; i < n; i++)
		ordered &= bugs[i - 1].last_change_time < bugs[i].last_change_time ||
			   (bugs[i - 1].last_change_time == bugs[i].last_change_time &&
			    bugs[i - 1].id < bugs[i].id);
	ok(ordered, "in change order");
	ok(n && bugs[0].id == NBUGS && bugs[n - 1].id == 1, "oldest change first (bug %d)", NBUGS);
	is_int(requests_to("/rest/bug"), (NBUGS + PAGE - 1) / PAGE,
	       "%d bugs in pages of %d: %d requests", NBUGS, PAGE, (NBUGS + PAGE - 1) / PAGE);
	log = server_log("/rest/bug");
	if (log && json_object_array_length(log) >= 2) {
		json_object *first = json_object_array_get_idx(log, 0);
		json_object *second = json_object_array_get_idx(log, 1);

		ok(query_first(first, "limit") && str_eq(query_first(first, "limit"), "5") &&
		   str_eq(query_first(first, "offset"), "0") &&
		   str_eq(query_first(second, "offset"), "5") &&
		   str_eq(query_first(first, "order"), "changeddate,bug_id") &&
		   str_eq(query_first(first, "last_change_time"), "1970-01-01T00:00:00Z"),
		   "limit, offset, order and last_change_time sent");
		ok(query_first(first, "include_fields") &&
		   strstr(query_first(first, "include_fields"), "cf_subsystem") &&
		   strstr(query_first(first, "include_fields"), "creator_detail"),
		   "include_fields cut to what bugbridge uses, with the subsystem field");
	} else {
		ok(0, "request log readable");
		ok(0, "request log readable");
	}
	json_object_put(log);
	{
		struct bz_bug *b = find_bug(bugs, n, 3);

		ok(b && !strcmp(b->summary, "bug number 3") && !strcmp(b->component, "USB") &&
		   !strcmp(b->creator.real_name, "Alice Reporter") &&
		   !strcmp(b->assigned_to.login, "bob@example.com") &&
		   !strcmp(bz_bug_field(b, "cf_regression"), "Yes") &&
		   b->last_change_time == bz_parse_time("2026-12-01T00:56:00Z"),
		   "bug 3 as the server has it");
	}
	free_bugs(bugs, n);
	bz_client_free(c);

	/* page size dividing the count: one more, empty page */
	c = client(NULL, 0, 23);
	reset_log();
	st = bz_search_changed(c, 0, NULL, &bugs, &n, &err);
	ok(st == BB_OK && n == NBUGS && requests_to("/rest/bug") == 2,
	   "a full last page costs one empty page more");
	free_bugs(bugs, n);
	bz_client_free(c);

	/* an insider sees the private bug */
	c = client(KEY_ADMIN, 0, 100);
	st = bz_search_changed(c, 0, NULL, &bugs, &n, &err);
	{
		struct bz_bug *hidden = find_bug(bugs, n, NBUGS + 1);

		ok(st == BB_OK && n == NBUGS + 1 && hidden && hidden->groups[0] &&
		   !strcmp(hidden->groups[0], "security"), "admin: the private bug too, with its group");
	}
	free_bugs(bugs, n);
	bz_client_free(c);
}

static void test_filters(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_client *c = client(NULL, 0, PAGE);
	struct bz_bug *bugs = NULL;
	size_t n = 0;
	enum bb_status st;
	static char p_drivers[] = "Drivers", p_fs[] = "File System", c_usb[] = "USB",
		s_resolved[] = "RESOLVED";
	char *drivers[] = { p_drivers, NULL };
	char *both[] = { p_drivers, p_fs, NULL };
	char *usb[] = { c_usb, NULL };
	char *resolved[] = { s_resolved, NULL };
	struct bz_filter f;
	int all = 1;

	memset(&f, 0, sizeof(f));
	f.products = drivers;
	st = bz_search_changed(c, 0, &f, &bugs, &n, &err);
	for (size_t i = 0; i < n; i++)
		all &= bugs[i].id % 2 == 1 && !strcmp(bugs[i].product, "Drivers");
	ok(st == BB_OK && n == (NBUGS + 1) / 2 && all, "product filter: %zu Drivers bugs", n);
	free_bugs(bugs, n);

	f.products = both;
	st = bz_search_changed(c, 0, &f, &bugs, &n, &err);
	ok(st == BB_OK && n == NBUGS, "two products: repeated product=");
	free_bugs(bugs, n);

	f.products = drivers;
	f.components = usb;
	st = bz_search_changed(c, 0, &f, &bugs, &n, &err);
	ok(st == BB_OK && n == 4 && !strcmp(bugs[0].component, "USB"),
	   "product and component: bugs 3, 9, 15, 21 (%zu)", n);
	free_bugs(bugs, n);

	memset(&f, 0, sizeof(f));
	f.statuses = resolved;
	st = bz_search_changed(c, 0, &f, &bugs, &n, &err);
	ok(st == BB_OK && n == 3 && !strcmp(bugs[0].resolution, "FIXED"),
	   "status filter: bugs 7, 14, 21");
	free_bugs(bugs, n);

	memset(&f, 0, sizeof(f));
	f.keyword = "regression";
	st = bz_search_changed(c, 0, &f, &bugs, &n, &err);
	ok(st == BB_OK && n == 4 && bugs[0].keywords[0] && !strcmp(bugs[0].keywords[0], "regression"),
	   "keyword filter: bugs 5, 10, 15, 20");
	free_bugs(bugs, n);

	/* since: at or after */
	st = bz_search_changed(c, bz_parse_time("2026-12-01T00:50:00Z"), NULL, &bugs, &n, &err);
	ok(st == BB_OK && n == 9 && bugs[0].id == 9 && bugs[8].id == 1,
	   "since 00:50: bugs 9..1, the boundary included (%zu)", n);
	free_bugs(bugs, n);
	bz_client_free(c);
}

static void test_comments(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_client *anon = client(NULL, 0, 100), *admin = client(KEY_ADMIN, 0, 100);
	struct bz_bug *bugs = NULL, *extra;
	size_t n = 0, want = 0;
	enum bb_status st;
	time_t before;
	json_object *log;

	for (int i = 1; i <= NBUGS; i++)
		want += (size_t)bug_comments(i);
	bz_search_changed(anon, 0, NULL, &bugs, &n, &err);
	reset_log();
	st = bz_fetch_comments(anon, bugs, n, 0, &err);
	is_int(st, BB_OK, "comments of all bugs (%s)", err.message);
	is_int(total_comments(bugs, n), want, "every public comment, no private one");
	is_int(requests_to("/rest/bug/"), 1, "%zu bugs' comments in one request", n);
	log = server_log("/rest/bug/");
	if (log && json_object_array_length(log) == 1) {
		json_object *e = json_object_array_get_idx(log, 0);

		ok(strstr(entry_str(e, "path"), "/comment") && query_has(e, "ids") &&
		   !query_has(e, "new_since"), "GET /rest/bug/<first>/comment?ids=...");
	} else {
		ok(0, "one comment request logged");
	}
	json_object_put(log);
	{
		struct bz_bug *b2 = find_bug(bugs, n, 2);

		ok(b2 && b2->ncomments == 3 && !b2->comments[0].is_private &&
		   !strcmp(b2->comments[0].text, "comment 0 of bug 2") &&
		   !strcmp(b2->comments[0].author.real_name, "Alice Reporter") &&
		   !strcmp(b2->comments[1].author.real_name, "Bob Netdev"),
		   "bug 2: 3 public comments, names from the bug's reporter and assignee");
	}
	/* the same again: merged, not doubled */
	st = bz_fetch_comments(anon, bugs, n, 0, &err);
	ok(st == BB_OK && total_comments(bugs, n) == want, "fetched twice, kept once");

	/* new_since: only what is newer */
	before = bz_parse_time(T0);
	fakebz_admin(&fb, "/__admin/clock", "{\"advance\": 60}");
	fakebz_admin(&fb, "/__admin/comment", "{\"bug_id\": 4, \"text\": \"a new one\","
		     " \"creator\": \"bob@example.com\"}");
	reset_log();
	st = bz_fetch_comments(anon, bugs, n, before, &err);
	ok(st == BB_OK && total_comments(bugs, n) == want + 1, "new_since: the new comment added");
	extra = find_bug(bugs, n, 4);
	ok(extra && extra->ncomments == 2 && !strcmp(extra->comments[1].text, "a new one") &&
	   extra->comments[1].count == 1, "new_since: at its place in bug 4");
	log = server_log("/rest/bug/");
	ok(log && json_object_array_length(log) == 1 &&
	   query_first(json_object_array_get_idx(log, 0), "new_since") &&
	   str_eq(query_first(json_object_array_get_idx(log, 0), "new_since"), T0),
	   "new_since sent as %s", T0);
	json_object_put(log);

	/* an insider sees the private comment */
	st = bz_fetch_comments(admin, bugs, n, 0, &err);
	extra = find_bug(bugs, n, 2);
	ok(st == BB_OK && total_comments(bugs, n) == want + 2 && extra && extra->ncomments == 4 &&
	   extra->comments[3].is_private, "admin (api_key param): the private comment");
	free_bugs(bugs, n);

	/* one bug of the batch is gone: the others still come */
	{
		struct bz_bug three[3];

		memset(three, 0, sizeof(three));
		three[0].id = 5;
		three[1].id = 99999;
		three[2].id = 6;
		reset_log();
		st = bz_fetch_comments(anon, three, 3, 0, &err);
		ok(st == BB_OK && three[0].ncomments == 2 && three[1].ncomments == 0 &&
		   three[2].ncomments == 3, "a vanished bug does not sink its batch (%s)", err.message);
		is_int(requests_to("/rest/bug/"), 4, "one batch, then bug by bug");
		for (int i = 0; i < 3; i++)
			bz_bug_release(&three[i]);
	}
	bz_client_free(anon);
	bz_client_free(admin);
}

static void test_attachments(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_client *anon = client(NULL, 0, 100), *admin = client(KEY_ADMIN, 0, 100);
	struct bz_bug *bugs = NULL;
	size_t n = 0;
	enum bb_status st;
	char sha[SHA256_HEX_LEN + 1];
	uint64_t size = 0;
	struct buf text = BUF_INIT;
	json_object *log;

	bz_search_changed(anon, 0, NULL, &bugs, &n, &err);
	reset_log();
	st = bz_fetch_attachments(anon, bugs, n, &err);
	is_int(st, BB_OK, "attachment metadata of all bugs (%s)", err.message);
	is_int(requests_to("/rest/bug/"), 1, "in one request");
	log = server_log("/rest/bug/");
	ok(log && json_object_array_length(log) == 1 &&
	   query_first(json_object_array_get_idx(log, 0), "exclude_fields") &&
	   str_eq(query_first(json_object_array_get_idx(log, 0), "exclude_fields"), "data"),
	   "exclude_fields=data");
	json_object_put(log);
	{
		struct bz_bug *b1 = find_bug(bugs, n, 1);

		ok(b1 && b1->nattachments == 3 && b1->attachments[0].id == 1 &&
		   b1->attachments[1].id == 2 && b1->attachments[2].id == 4,
		   "anonymous: attachments 1, 2, 4 (3 is private)");
		ok(b1 && b1->nattachments == 3 && b1->attachments[1].size == BLOB_SIZE &&
		   !strcmp(b1->attachments[1].file_name, "fw-dump.bin") &&
		   !strcmp(b1->attachments[1].content_type, "application/octet-stream"),
		   "attachment 2 metadata");
	}
	free_bugs(bugs, n);
	bugs = NULL;
	n = 0;
	bz_search_changed(admin, 0, NULL, &bugs, &n, &err);
	st = bz_fetch_attachments(admin, bugs, n, &err);
	{
		struct bz_bug *b1 = find_bug(bugs, n, 1);

		ok(st == BB_OK && b1 && b1->nattachments == 4 && b1->attachments[2].is_private,
		   "admin: the private one too");
	}
	free_bugs(bugs, n);

	/* downloads */
	reset_log();
	st = download(anon, 2, 1 << 20, sha, &size, NULL, &err);
	ok(st == BB_OK && size == BLOB_SIZE && !strcmp(sha, blob_sha),
	   "binary attachment: %llu bytes, SHA-256 as stored (%s)", (unsigned long long)size,
	   err.message);
	ok(requests_to("/attachment.cgi") == 1 && requests_to("/rest") == 0,
	   "raw bytes from attachment.cgi, no REST fallback");
	st = download(anon, 1, 1 << 20, sha, &size, &text, &err);
	ok(st == BB_OK && size == 34 && !strcmp(text.data, "[    0.000000] Linux version 6.12\n"),
	   "text attachment");
	buf_reset(&text);

	/* private: attachment.cgi answers an HTML page, REST has it for the admin */
	reset_log();
	st = download(admin, 3, 1 << 20, sha, &size, &text, &err);
	ok(st == BB_OK && !strcmp(text.data, "secret serial 1234\n"),
	   "private attachment through the REST fallback (%s)", err.message);
	ok(requests_to("/attachment.cgi") == 1 && requests_to("/rest/bug/attachment/3") == 1,
	   "attachment.cgi first, then /rest/bug/attachment/3");
	buf_reset(&text);
	st = download(anon, 3, 1 << 20, sha, &size, NULL, &err);
	is_int(st, BB_ERR_AUTH, "private attachment, anonymous: unauthorized (%s)", err.message);

	/* an HTML attachment is served as text/html: REST gives its bytes */
	st = download(anon, 4, 1 << 20, sha, &size, &text, &err);
	ok(st == BB_OK && !strcmp(text.data, "<html><body>ok</body></html>"),
	   "an HTML attachment still comes right");
	buf_reset(&text);

	st = download(anon, 2, 1000, sha, &size, NULL, &err);
	is_int(st, BB_ERR_TOO_LARGE, "over max_size: too large (%s)", err.message);
	st = download(anon, 99999, 1 << 20, sha, &size, NULL, &err);
	is_int(st, BB_ERR_NOT_FOUND, "no such attachment: not found (%s)", err.message);
	/* the cgi answer cut short */
	fail_next("{\"mode\": \"truncate\", \"path_prefix\": \"/attachment.cgi\"}");
	st = download(anon, 2, 1 << 20, sha, &size, NULL, &err);
	is_int(st, BB_ERR_TEMPORARY, "download cut short: temporary (%s)", err.message);
	buf_release(&text);
	bz_client_free(anon);
	bz_client_free(admin);
}

static void test_api_key_modes(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_client *header = client(KEY_ADMIN, 1, 100), *param = client(KEY_ADMIN, 0, 100);
	struct bz_bug bug;
	enum bb_status st;
	json_object *log;

	memset(&bug, 0, sizeof(bug));
	bug.id = 2;
	reset_log();
	st = bz_fetch_comments(header, &bug, 1, 0, &err);
	ok(st == BB_OK && bug.ncomments == 3,
	   "key in the header: Bugzilla 5.2 ignores it, no private comment");
	log = server_log("/rest/");
	ok(log && json_object_array_length(log) == 2 &&
	   str_eq(entry_str(json_object_array_get_idx(log, 0), "path"), "/rest/version") &&
	   str_eq(entry_str(json_object_array_get_idx(log, 1), "api_key_via"), "header") &&
	   !query_has(json_object_array_get_idx(log, 1), "api_key") &&
	   !entry_str(json_object_array_get_idx(log, 1), "user"),
	   "/rest/version asked first (to warn), then X-BUGZILLA-API-KEY sent, no api_key"
	   " parameter, served as anonymous");
	json_object_put(log);
	bz_bug_release(&bug);
	memset(&bug, 0, sizeof(bug));
	bug.id = 2;
	reset_log();
	st = bz_fetch_comments(header, &bug, 1, 0, &err);
	log = server_log("/rest/");
	ok(st == BB_OK && log && json_object_array_length(log) == 1 &&
	   !str_eq(entry_str(json_object_array_get_idx(log, 0), "path"), "/rest/version"),
	   "the version is asked once");
	json_object_put(log);
	bz_bug_release(&bug);

	memset(&bug, 0, sizeof(bug));
	bug.id = 2;
	reset_log();
	st = bz_fetch_comments(param, &bug, 1, 0, &err);
	ok(st == BB_OK && bug.ncomments == 4, "key as a parameter: the private comment");
	log = server_log("/rest/");
	ok(log && json_object_array_length(log) == 1 &&
	   str_eq(entry_str(json_object_array_get_idx(log, 0), "api_key_via"), "param") &&
	   str_eq(entry_str(json_object_array_get_idx(log, 0), "user"), "admin@example.com"),
	   "api_key parameter, served as admin");
	json_object_put(log);
	bz_bug_release(&bug);

	{
		struct bz_client *bad = client("KEY-NOT-VALID-0000000000", 0, 100);
		struct bz_bug *bugs = NULL;
		size_t n = 0;

		st = bz_search_changed(bad, 0, NULL, &bugs, &n, &err);
		ok(st == BB_ERR_AUTH && strstr(err.message, "306") &&
		   !strstr(err.message, "KEY-NOT-VALID"), "a bad key: unauthorized, key not in the message");
		bz_client_free(bad);
	}
	bz_client_free(header);
	bz_client_free(param);
}

/* Requests of the log to exactly path, and to path + "/" (bugs asked alone). */
static void count_paths(json_object *log, const char *path, size_t *exact, size_t *below)
{
	size_t len = strlen(path);

	*exact = *below = 0;
	for (size_t i = 0; log && i < json_object_array_length(log); i++) {
		const char *p = entry_str(json_object_array_get_idx(log, i), "path");

		if (p && !strcmp(p, path))
			(*exact)++;
		else if (p && !strncmp(p, path, len) && p[len] == '/')
			(*below)++;
	}
}

/* bz_check_visible(): a search by ids, the bugs it lacks asked alone. */
static void test_visibility(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_client *anon = client(NULL, 0, PAGE), *admin = client(KEY_ADMIN, 0, PAGE);
	static const long long ids[] = { 1, 2, 7, NBUGS + 1, 9999 };
	enum bz_visibility seen[5], many_seen[NBUGS + 1 + 400];
	long long many[NBUGS + 1 + 400];
	unsigned long alone = 0;
	size_t searches, singles;
	enum bb_status st;
	json_object *log, *e;

	reset_log();
	st = bz_check_visible(anon, ids, 5, seen, &alone, &err);
	ok(st == BB_OK && seen[0] == BZ_VISIBLE_PUBLIC && seen[1] == BZ_VISIBLE_PUBLIC &&
	   seen[2] == BZ_VISIBLE_PUBLIC && seen[3] == BZ_VISIBLE_NOT && seen[4] == BZ_VISIBLE_NOT,
	   "anonymous: three public, the bug in a group hidden, a deleted one gone (%s)",
	   err.message);
	log = server_log("/rest/bug");
	count_paths(log, "/rest/bug", &searches, &singles);
	is_int(searches, 1, "one search for the five ids");
	is_int(singles, 2, "and the two it lacked asked alone");
	is_int(alone, 2, "which the caller is told");
	e = log ? json_object_array_get_idx(log, 0) : NULL;
	ok(e && str_eq(query_first(e, "id"), "1,2,7,24,9999") &&
	   str_eq(query_first(e, "include_fields"), "id,groups"),
	   "the search names the ids and asks for id and groups only");
	json_object_put(log);

	reset_log();
	st = bz_check_visible(admin, ids, 5, seen, &alone, &err);
	ok(st == BB_OK && seen[0] == BZ_VISIBLE_PUBLIC && seen[3] == BZ_VISIBLE_IN_GROUP &&
	   seen[4] == BZ_VISIBLE_NOT && alone == 1,
	   "a member of the group sees the bug, in a group; only the deleted one asked alone");

	/* a search cut short (max_search_results) hides nothing */
	fail_next("{\"status\": 200, \"body\": \"{\\\"bugs\\\": []}\","
		  " \"content_type\": \"application/json\", \"path_prefix\": \"/rest/bug\"}");
	st = bz_check_visible(anon, ids, 5, seen, &alone, &err);
	ok(st == BB_OK && alone == 5 && seen[0] == BZ_VISIBLE_PUBLIC &&
	   seen[1] == BZ_VISIBLE_PUBLIC && seen[2] == BZ_VISIBLE_PUBLIC &&
	   seen[3] == BZ_VISIBLE_NOT && seen[4] == BZ_VISIBLE_NOT,
	   "an answer without the bugs: each asked alone, the visible ones stay visible");

	/* a failure is no verdict */
	fail_next("{\"status\": 503, \"path_prefix\": \"/rest/bug/24\"}");
	st = bz_check_visible(anon, ids, 5, seen, &alone, &err);
	is_int(st, BB_ERR_TEMPORARY, "a bug asked alone answered 503: temporary, not hidden (%s)",
	       err.message);
	fail_next("{\"mode\": \"db_down\", \"path_prefix\": \"/rest/bug\"}");
	st = bz_check_visible(anon, ids, 5, seen, &alone, &err);
	is_int(st, BB_ERR_TEMPORARY, "the search answered 100500: temporary");

	/* 424 ids: two searches of 400 and 24 */
	for (size_t i = 0; i < sizeof(many) / sizeof(many[0]); i++)
		many[i] = (long long)i + 1 + (i > NBUGS ? 1000 : 0);
	reset_log();
	st = bz_check_visible(admin, many, sizeof(many) / sizeof(many[0]), many_seen, &alone, &err);
	log = server_log("/rest/bug");
	count_paths(log, "/rest/bug", &searches, &singles);
	ok(st == BB_OK && many_seen[0] == BZ_VISIBLE_PUBLIC && many_seen[NBUGS] == BZ_VISIBLE_IN_GROUP &&
	   many_seen[NBUGS + 1] == BZ_VISIBLE_NOT && alone == 400,
	   "424 ids: 24 seen, 400 deleted ones asked alone (%s)", err.message);
	is_int(searches, 2, "in two searches (400 ids at most each)");
	json_object_put(log);

	ok(bz_check_visible(anon, ids, 0, seen, NULL, &err) == BB_OK, "no ids: nothing to ask");
	{
		static const long long unsorted[] = { 2, 1 };

		ok(bz_check_visible(anon, unsorted, 2, seen, NULL, &err) == BB_ERR_INTERNAL,
		   "ids not ascending: refused");
	}
	bz_client_free(anon);
	bz_client_free(admin);
}

static void test_failures(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_client *c = client(NULL, 0, 100);
	time_t now = 0, t0;
	enum bb_status st;

	fail_next("{\"status\": 401, \"path_prefix\": \"/rest/time\"}");
	st = bz_server_time(c, &now, &err);
	is_int(st, BB_ERR_AUTH, "401: unauthorized (%s)", err.message);
	is_int(status_retry_class(st), BB_RETRY_GIVE_UP, "401: give up");

	fail_next("{\"status\": 403, \"path_prefix\": \"/rest/time\"}");
	st = bz_server_time(c, &now, &err);
	is_int(st, BB_ERR_AUTH, "403: unauthorized");

	fail_next("{\"status\": 404, \"path_prefix\": \"/rest/time\"}");
	st = bz_server_time(c, &now, &err);
	is_int(st, BB_ERR_NOT_FOUND, "404: not found");

	t0 = time(NULL);
	fail_next("{\"status\": 429, \"retry_after\": 120, \"path_prefix\": \"/rest/time\"}");
	st = bz_server_time(c, &now, &err);
	is_int(st, BB_ERR_TEMPORARY, "429: temporary (%s)", err.message);
	ok(err.retry_after >= t0 + 120 && err.retry_after <= time(NULL) + 120,
	   "429: retry_after is now + 120 s (%+lld)", (long long)(err.retry_after - t0));
	is_int(status_retry_class(st), BB_RETRY_LATER, "429: retry later");

	t0 = time(NULL);
	fail_next("{\"status\": 503, \"retry_after\": \"Fri, 31 Dec 2100 23:59:59 GMT\","
		  " \"path_prefix\": \"/rest/time\"}");
	st = bz_server_time(c, &now, &err);
	/* (the week counts from when the answer came: a second may have
	 * passed since t0) */
	ok(st == BB_ERR_TEMPORARY && err.retry_after > t0 &&
	   err.retry_after <= time(NULL) + 7 * 86400,
	   "503 with an HTTP date: temporary, the wait capped at a week (%+lld)",
	   (long long)(err.retry_after - t0));
	{
		char date[64];
		struct tm tm;
		time_t when = time(NULL) + 300;

		gmtime_r(&when, &tm);
		strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
		{
			char rule[256];

			snprintf(rule, sizeof(rule), "{\"status\": 503, \"retry_after\": \"%s\","
				 " \"path_prefix\": \"/rest/time\"}", date);
			fail_next(rule);
		}
		st = bz_server_time(c, &now, &err);
		ok(st == BB_ERR_TEMPORARY && err.retry_after == when,
		   "503, Retry-After as a date: that very time");
	}

	fail_next("{\"status\": 500, \"path_prefix\": \"/rest/time\"}");
	st = bz_server_time(c, &now, &err);
	ok(st == BB_ERR_TEMPORARY && err.retry_after == 0, "500: temporary, no time (%s)", err.message);

	fail_next("{\"mode\": \"invalid_json\", \"path_prefix\": \"/rest/time\"}");
	st = bz_server_time(c, &now, &err);
	is_int(st, BB_ERR_TEMPORARY, "200 with HTML for JSON: temporary (%s)", err.message);

	/* Bugzilla 5.2 with its database down: 200 and an empty body to a call
	 * with a key, error 100500 (JSON::RPC's internal error) to an
	 * anonymous one; both temporary, and the DBI message, which may hold
	 * the database's password, is not passed on. */
	{
		struct bz_client *keyed = client(KEY_ALICE, 0, 100);

		fail_next("{\"mode\": \"db_down\", \"path_prefix\": \"/rest/time\"}");
		st = bz_server_time(keyed, &now, &err);
		is_int(st, BB_ERR_TEMPORARY,
		       "with a key, 200 with an empty body (database down): temporary (%s)",
		       err.message);
		ok(strstr(err.message, "empty") != NULL, "and the message says so");
		bz_client_free(keyed);
	}
	fail_next("{\"mode\": \"db_down\", \"path_prefix\": \"/rest/time\"}");
	st = bz_server_time(c, &now, &err);
	is_int(st, BB_ERR_TEMPORARY, "anonymous, 200 with error 100500 (database down): temporary (%s)",
	       err.message);
	is_int(status_retry_class(st), BB_RETRY_LATER, "100500: retry later");
	ok(strstr(err.message, "100500") && !strstr(err.message, "DB-PASSWORD") &&
	   !strstr(err.message, "DBI connect"), "the code is named, the DBI message withheld");
	is_int(bz_client_last_code(c), 100500, "the last Bugzilla code is 100500");
	fail_next("{\"mode\": \"db_down\", \"path_prefix\": \"/rest/bug\"}");
	{
		struct bz_bug *bugs = NULL;
		size_t n = 0;

		st = bz_search_changed(c, 0, NULL, &bugs, &n, &err);
		ok(st == BB_ERR_TEMPORARY && n == 0, "a search answered 100500: temporary (%s)",
		   err.message);
		free_bugs(bugs, n);
	}

	fail_next("{\"status\": 200, \"body\": \"{\\\"db_time\\\": \\\"2026-12-03T0\","
		  " \"content_type\": \"application/json\", \"path_prefix\": \"/rest/time\"}");
	st = bz_server_time(c, &now, &err);
	is_int(st, BB_ERR_TEMPORARY, "complete answer, truncated JSON: temporary (%s)",
	       err.message);

	fail_next("{\"mode\": \"truncate\", \"path_prefix\": \"/rest/bug\"}");
	{
		struct bz_bug *bugs = NULL;
		size_t n = 0;

		st = bz_search_changed(c, 0, NULL, &bugs, &n, &err);
		ok(st == BB_ERR_TEMPORARY && n == 0,
		   "body cut short of its Content-Length: temporary (%s)", err.message);
	}

	/* a dropped connection: retried once if it was a reused one */
	st = bz_server_time(c, &now, &err);      /* the connection is warm */
	reset_log();
	fail_next("{\"mode\": \"drop\", \"path_prefix\": \"/rest/time\"}");
	st = bz_server_time(c, &now, &err);
	ok(st == BB_OK && now == bz_parse_time(T0) + 60, "dropped on a reused connection: retried (%s)",
	   err.message);
	is_int(requests_to("/rest/time"), 2, "the server saw the drop and the retry");
	{
		struct bz_client *fresh = client(NULL, 0, 100);

		fail_next("{\"mode\": \"drop\", \"path_prefix\": \"/rest/time\"}");
		st = bz_server_time(fresh, &now, &err);
		is_int(st, BB_ERR_TEMPORARY, "dropped on a fresh connection: temporary (%s)",
		       err.message);
		fail_next("{\"mode\": \"drop\", \"count\": 2, \"path_prefix\": \"/rest/time\"}");
		st = bz_server_time(fresh, &now, &err);
		st = bz_server_time(fresh, &now, &err);
		ok(st == BB_OK || st == BB_ERR_TEMPORARY, "two drops in a row: at most one retry");
		fail_next("{\"clear\": true}");
		bz_client_free(fresh);
	}

	/* mod_perl's SizeLimit: every answer ends the server process */
	fakebz_admin(&fb, "/__admin/quirks", "{\"reset_every\": 1}");
	reset_log();
	{
		int all_ok = 1;
		unsigned long before = bz_client_requests(c);
		long seen;

		for (int i = 0; i < 6; i++)
			all_ok &= bz_server_time(c, &now, &err) == BB_OK;
		ok(all_ok, "reset after every answer: 6 requests all succeed (%s)", err.message);
		seen = requests_to("/rest/time");
		ok(seen >= 6 && seen <= 12, "server saw %ld requests (resets included)", seen);
		ok(bz_client_requests(c) - before >= 6, "client counted %lu",
		   bz_client_requests(c) - before);
	}
	fakebz_admin(&fb, "/__admin/quirks", "{\"reset_every\": 0}");

	/* slow server */
	{
		struct bz_client_options opt = { 0 };
		struct bz_client *impatient = NULL;

		opt.url = fb.url;
		opt.timeout = 1;
		bz_client_new(&impatient, &opt, &err);
		fail_next("{\"mode\": \"slow\", \"delay\": 3, \"path_prefix\": \"/rest/time\"}");
		st = bz_server_time(impatient, &now, &err);
		is_int(st, BB_ERR_TEMPORARY, "timeout: temporary (%s)", err.message);
		bz_client_free(impatient);
	}
	bz_client_free(c);

	/* nobody listening */
	{
		struct bz_client_options opt = { 0 };
		struct bz_client *nowhere = NULL;

		opt.url = "http://127.0.0.1:1";
		opt.timeout = 5;
		bz_client_new(&nowhere, &opt, &err);
		st = bz_server_time(nowhere, &now, &err);
		is_int(st, BB_ERR_TEMPORARY, "connection refused: temporary (%s)", err.message);
		bz_client_free(nowhere);
	}
	{
		struct bz_client_options opt = { 0 };
		struct bz_client *bad = NULL;

		opt.url = "ftp://example.org";
		st = bz_client_new(&bad, &opt, &err);
		ok(st == BB_ERR_CONFIG && !bad, "ftp:// refused: config error");
		opt.url = "https://example.org";
		opt.api_key = "key\r\nX-Evil: 1";
		st = bz_client_new(&bad, &opt, &err);
		ok(st == BB_ERR_CONFIG && !bad, "a key with CR LF refused");
	}
}

static void test_users(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_client *c = client(KEY_ADMIN, 0, 100);
	struct bz_user users[3];
	enum bb_status st;

	memset(users, 0, sizeof(users));
	users[0].login = strdup("alice@example.com");
	users[1].login = strdup("nobody@example.com");
	users[2].login = strdup("bob@example.com");
	for (int i = 0; i < 3; i++)
		users[i].real_name = strdup("");
	reset_log();
	st = bz_fetch_users(c, users, 3, &err);
	ok(st == BB_OK && !strcmp(users[0].real_name, "Alice Reporter") &&
	   !strcmp(users[1].real_name, "") && !strcmp(users[2].real_name, "Bob Netdev"),
	   "real names; an unknown login stays empty (%s)", err.message);
	ok(requests_to("/rest/user") == 4, "one batch, then one by one past the unknown login");
	for (int i = 0; i < 3; i++) {
		free(users[i].login);
		free(users[i].real_name);
	}
	bz_client_free(c);
}

static void test_add_comment(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_client *bob = client(KEY_BOB, 0, 100), *alice = client(KEY_ALICE, 0, 100);
	struct bz_client *anon = client(NULL, 0, 100);
	struct bz_bug bug;
	long long id = 0;
	enum bb_status st;
	json_object *log;

	reset_log();
	st = bz_add_comment(bob, 6, "Reply from the list:\n\n> quoted\nthanks \xE2\x9C\x93", 0, &id, &err);
	ok(st == BB_OK && id > 0, "comment posted, id %lld (%s)", id, err.message);
	log = server_log("/rest/bug/6/comment");
	ok(log && json_object_array_length(log) == 1 &&
	   str_eq(entry_str(json_object_array_get_idx(log, 0), "method"), "POST") &&
	   str_eq(entry_str(json_object_array_get_idx(log, 0), "user"), "bob@example.com"),
	   "POST /rest/bug/6/comment as bob");
	json_object_put(log);
	memset(&bug, 0, sizeof(bug));
	bug.id = 6;
	bz_fetch_comments(bob, &bug, 1, 0, &err);
	ok(bug.ncomments == 4 && bug.comments[3].id == id &&
	   !strcmp(bug.comments[3].text, "Reply from the list:\n\n> quoted\nthanks \xE2\x9C\x93") &&
	   !strcmp(bug.comments[3].author.login, "bob@example.com"), "it reads back as sent");
	bz_bug_release(&bug);

	st = bz_add_comment(bob, 6, "insiders", 1, &id, &err);
	ok(st == BB_OK && id > 0, "private comment by an insider");
	st = bz_add_comment(alice, 6, "insiders", 1, &id, &err);
	ok(st == BB_ERR_AUTH && id == 0, "private comment by a non-insider: unauthorized (%s)",
	   err.message);
	st = bz_add_comment(anon, 6, "hello", 0, &id, &err);
	is_int(st, BB_ERR_AUTH, "anonymous: unauthorized (%s)", err.message);
	st = bz_add_comment(bob, 99999, "hello", 0, &id, &err);
	is_int(st, BB_ERR_NOT_FOUND, "no such bug: not found");
	st = bz_add_comment(bob, 6, "", 0, &id, &err);
	is_int(st, BB_ERR_INVALID, "empty comment: invalid (%s)", err.message);

	/* the server did it, the answer was lost: no silent second post */
	reset_log();
	fail_next("{\"mode\": \"drop_after\", \"path_prefix\": \"/rest/bug/6/comment\","
		  " \"method\": \"POST\"}");
	st = bz_add_comment(bob, 6, "maybe twice?", 0, &id, &err);
	is_int(st, BB_ERR_TEMPORARY, "answer lost after the post: temporary (%s)", err.message);
	is_int(requests_to("/rest/bug/6/comment"), 1, "and not posted a second time");
	bz_client_free(bob);
	bz_client_free(alice);
	bz_client_free(anon);
}

static void test_update_and_create(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_client *bob = client(KEY_BOB, 0, 100), *anon = client(NULL, 0, 100);
	const struct bz_change close[] = { { "status", "RESOLVED" }, { "resolution", "FIXED" } };
	const struct bz_change bad_component[] = { { "component", "No Such Thing" } };
	const struct bz_change fields[] = {
		{ "product", "Drivers" }, { "component", "USB" },
		{ "summary", "usb: hub resets in a loop" }, { "op_sys", "Linux" },
		{ "platform", "All" },
	};
	struct bz_bug bug;
	long long id = 0;
	enum bb_status st;
	json_object *log;

	reset_log();
	st = bz_update_bug(bob, 4, close, 2, &err);
	ok(st == BB_OK, "close a bug with PUT (%s)", err.message);
	log = server_log("/rest/bug/4");
	ok(log && json_object_array_length(log) == 1 &&
	   str_eq(entry_str(json_object_array_get_idx(log, 0), "method"), "PUT"),
	   "one PUT /rest/bug/4");
	json_object_put(log);
	st = bz_update_bug(bob, 4, bad_component, 1, &err);
	ok(st != BB_OK && strstr(err.message, "No Such Thing"),
	   "Bugzilla's refusal comes back with its message (%s)", err.message);
	st = bz_update_bug(anon, 4, close, 2, &err);
	is_int(st, BB_ERR_AUTH, "anonymous update: unauthorized");
	st = bz_update_bug(bob, 4, close, 0, &err);
	is_int(st, BB_ERR_INVALID, "nothing to change: invalid");

	st = bz_create_bug(bob, fields, 5, "Hub at 1-1 resets every second.\n", &id, &err);
	ok(st == BB_OK && id > 0, "create a bug, id %lld (%s)", id, err.message);
	memset(&bug, 0, sizeof(bug));
	bug.id = id;
	bz_fetch_comments(bob, &bug, 1, 0, &err);
	ok(bug.ncomments == 1 && !strcmp(bug.comments[0].text, "Hub at 1-1 resets every second.\n"),
	   "its description reads back");
	bz_bug_release(&bug);
	st = bz_create_bug(bob, fields, 1, "no component", &id, &err);
	ok(st != BB_OK && id == 0, "a bug without a component is refused (%s)", err.message);
	bz_client_free(bob);
	bz_client_free(anon);
}

/* The client's own log never shows a key. */
static void test_log_has_no_key(const char *log_path)
{
	char *text = NULL;
	FILE *f = fopen(log_path, "r");
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;

	if (f) {
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			buf_add(&b, chunk, n);
		fclose(f);
	}
	text = b.data;
	ok(b.len > 0 && strstr(text, "event=bz.request"), "the client logged its requests");
	ok(!strstr(text, KEY_ADMIN) && !strstr(text, KEY_ALICE) && !strstr(text, KEY_BOB) &&
	   !strstr(text, "api_key="), "no API key in %zu bytes of log", b.len);
	buf_release(&b);
}

/* The gate (keyword or flag, asked in the search), the fields asked for,
 * GET /rest/field/bug, api_key_in = auto and URLs in error messages. */
static void test_gate_fields_auto(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bz_client_options opt = { 0 };
	static const char *const extra[] = { "cf_kernel_version", "cf_bisect_commit", NULL };
	struct bz_client *c = NULL;
	struct bz_bug *bugs = NULL;
	size_t n = 0, missing = 9;
	static char flag[] = "bugbot+";
	char *flags[] = { flag, NULL };
	struct bz_filter f;
	const struct bz_fields *fields = NULL, *again = NULL;
	const struct bz_field_info *fi;
	json_object *log;
	unsigned long before;
	enum bb_status st;
	int six = 0;

	opt.url = fb.url;
	opt.timeout = 10;
	opt.page_size = 100;
	opt.fields = extra;
	ok(bz_client_new(&c, &opt, &err) == BB_OK, "a client with more fields");

	memset(&f, 0, sizeof(f));
	f.keyword = "regression";
	f.flags = flags;
	reset_log();
	st = bz_search_changed(c, 0, &f, &bugs, &n, &err);
	for (size_t i = 0; i < n; i++)
		six |= bugs[i].id == 6 && bugs[i].flags && strstr(bugs[i].flags, "bugbot") &&
		       bz_bug_in_gate(&bugs[i], f.keyword, flags);
	ok(st == BB_OK && n == 5 && six, "keyword or flag: bugs 5, 10, 15, 20 and 6 (%zu)", n);
	free_bugs(bugs, n);
	log = server_log("/rest/bug");
	{
		json_object *e = json_object_array_get_idx(log, 0);
		const char *inc = query_first(e, "include_fields");

		ok(str_eq(query_first(e, "f1"), "OP") && str_eq(query_first(e, "j1"), "OR") &&
		   str_eq(query_first(e, "f2"), "keywords") && str_eq(query_first(e, "v2"), "regression") &&
		   str_eq(query_first(e, "f3"), "flagtypes.name") &&
		   str_eq(query_first(e, "o3"), "equals") && str_eq(query_first(e, "v3"), "bugbot+") &&
		   str_eq(query_first(e, "f4"), "CP") && !query_has(e, "keywords"),
		   "the gate is a parenthesised OR in the boolean chart");
		ok(inc && strstr(inc, ",flags,") && strstr(inc, "cf_kernel_version") &&
		   strstr(inc, "cf_bisect_commit") && strstr(inc, "cf_subsystem") == NULL,
		   "include_fields names flags and the configured fields (%s)", inc ? inc : "none");
	}
	json_object_put(log);

	f.keyword = NULL;
	st = bz_search_changed(c, 0, &f, &bugs, &n, &err);
	ok(st == BB_OK && n == 1 && bugs[0].id == 6, "the flag alone: bug 6 (%zu)", n);
	free_bugs(bugs, n);

	/* the field list: once, outside the request count */
	reset_log();
	before = bz_client_requests(c);
	st = bz_fields_get(c, &fields, &err);
	ok(st == BB_OK && fields && bz_fields_get(c, &again, &err) == BB_OK && again == fields,
	   "GET /rest/field/bug, kept (%s)", err.message);
	ok(requests_to("/rest/field/bug") == 1 && bz_client_requests(c) == before,
	   "asked once, not counted in the sync's requests");
	fi = bz_fields_find(fields, "bug_status");
	ok(fi && bz_field_value_find(fi, "UNCONFIRMED") && bz_field_value_find(fi, "IN_PROGRESS") &&
	   !bz_field_value_find(fi, "REOPENED") &&
	   bz_fields_status_can_change(fields, "RESOLVED", "VERIFIED") == 1 &&
	   bz_fields_status_can_change(fields, "VERIFIED", "RESOLVED") == 0,
	   "the fake's statuses and default workflow are 5.2's");
	fi = bz_fields_find(fields, "priority");
	ok(fi && fi->nvalues == 6 && !strcmp(fi->values[0].name, "Highest") &&
	   bz_field_value_find(fi, "---"), "priorities Highest .. ---");
	ok(bz_fields_find(fields, "cf_regression") && bz_fields_find(fields, "flagtypes.name") &&
	   bz_fields_find(fields, "resolution") && bz_fields_find(fields, "bug_severity"),
	   "custom, flag, resolution and severity fields");
	{
		const struct bz_field_want want[] = {
			{ "[bugzilla] kernel_field", "cf_kernel_version" },
			{ "[tracker] regression_field", "cf_regression" },
			{ "[bugzilla] subsystem_field", NULL },
		};

		st = bz_fields_check(c, want, 3, &missing, &err);
		ok(st == BB_OK && missing == 1 && requests_to("/rest/field/bug") == 1,
		   "the check: cf_kernel_version is missing, no new request");
	}
	bz_client_free(c);

	/* api_key_in = auto against 5.2: /rest/version once, then the parameter */
	c = client(KEY_ADMIN, BZ_KEY_AUTO, 100);
	{
		struct bz_bug bug;

		memset(&bug, 0, sizeof(bug));
		bug.id = 2;
		reset_log();
		before = bz_client_requests(c);
		st = bz_fetch_comments(c, &bug, 1, 0, &err);
		ok(st == BB_OK && bug.ncomments == 4, "auto: the key works (the private comment)");
		bz_bug_release(&bug);
		memset(&bug, 0, sizeof(bug));
		bug.id = 2;
		st = bz_fetch_comments(c, &bug, 1, 0, &err);
		bz_bug_release(&bug);
		log = server_log("/rest/");
		ok(log && json_object_array_length(log) == 3 &&
		   str_eq(entry_str(json_object_array_get_idx(log, 0), "path"), "/rest/version") &&
		   !entry_str(json_object_array_get_idx(log, 0), "api_key_via") &&
		   str_eq(entry_str(json_object_array_get_idx(log, 1), "api_key_via"), "param") &&
		   str_eq(entry_str(json_object_array_get_idx(log, 2), "api_key_via"), "param"),
		   "auto: /rest/version once without the key, then api_key=");
		ok(bz_client_requests(c) - before == 2, "the version probe is not counted");
		json_object_put(log);
	}
	bz_client_free(c);

	/* the key in the header, which 5.2 ignores: "You must log in" says so */
	c = client(KEY_ADMIN, BZ_KEY_HEADER, 100);
	{
		long long id = 0;
		char want[600];

		st = bz_add_comment(c, 2, "hello", 0, &id, &err);
		snprintf(want, sizeof(want), "(from %s/rest/bug/2/comment)", fb.url);
		ok(st == BB_ERR_AUTH && strstr(err.message, "410") &&
		   strstr(err.message, "api_key_in") && strstr(err.message, want) &&
		   !strstr(err.message, KEY_ADMIN), "log-in required names api_key_in and the URL: %s",
		   err.message);
	}
	bz_client_free(c);
	c = client("KEY-NOT-VALID-0000000000", BZ_KEY_PARAM, 100);
	st = bz_search_changed(c, 0, NULL, &bugs, &n, &err);
	ok(st == BB_ERR_AUTH && strstr(err.message, "(from http") &&
	   strstr(err.message, "/rest/bug?") && !strstr(err.message, "KEY-NOT-VALID") &&
	   !strstr(err.message, "api_key="), "a Bugzilla error names the URL without the key: %s",
	   err.message);
	bz_client_free(c);
}

int main(void)
{
	char state[512], log_path[512];
	FILE *logf;
	int rc;

	snprintf(workdir, sizeof(workdir), "%s/bugbridge-bz-live.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(workdir)) {
		printf("1..0 # SKIP cannot make a work folder: %s\n", strerror(errno));
		return 0;
	}
	snprintf(state, sizeof(state), "%s/state.json", workdir);
	snprintf(log_path, sizeof(log_path), "%s/client.log", workdir);
	if (access("/usr/bin/python3", X_OK) && !getenv("FAKEBZ_PYTHON")) {
		printf("1..0 # SKIP no python3 for the fake Bugzilla\n");
		return 0;
	}
	if (write_state(state) || fakebz_start(state, workdir, &fb)) {
		printf("1..0 # SKIP the fake Bugzilla (tests/lib/fake_bugzilla.py) did not start\n");
		return 0;
	}
	guard_server();
	logf = fopen(log_path, "w");
	log_setup(logf, LOG_LEVEL_DEBUG, "bzlive00");
	test_time_and_search();
	test_filters();
	test_comments();
	test_attachments();
	test_api_key_modes();
	test_failures();
	test_visibility();
	test_users();
	test_add_comment();
	test_update_and_create();
	test_gate_fields_auto();
	log_setup(NULL, LOG_LEVEL_INFO, "bzlive00");
	if (logf)
		fclose(logf);
	test_log_has_no_key(log_path);
	ok(fakebz_stop(&fb) == 0, "the fake Bugzilla stopped cleanly");
	rc = done_testing();
	if (!rc && !getenv("KEEP_WORK")) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", workdir);
		if (system(cmd) != 0)
			diag("could not remove %s", workdir);
	} else {
		diag("work folder kept: %s", workdir);
	}
	return rc;
}
