/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <glib.h>

#include "bugzilla/bz_client.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/text.h"
#include "tracker/bugnotes.h"
#include "tracker/culprit.h"
#include "tracker/directive.h"
#include "tracker/gitscan.h"
#include "tracker/links.h"
#include "tracker/thread_rows.h"
#include "tracker/tracker.h"

/* ------------------------------------------------------------- tracker */

struct tracker {
	struct store *db;
	char *bugzilla_host;      /* reg_link_host() of bugzilla_url, or NULL */
	char *bugzilla_url, *archive_url, *regression_field, *regression_keyword, *bisect_field;
	char *close_on_fix, *default_branch;
	long long stale_after;
	const char *unverified;   /* why the mail at hand's sender is not authenticated */
	int threads_pruned;       /* list_thread's old rows were looked at this run */
	/* the activity of the open transaction's mails, by regression
	 * (struct activity), written as it commits: see activity_note() */
	GHashTable *activity;
	struct store_commit_hook hook;
	int hooked;
	/* each list_thread row this tracker wrote (struct thread_row, keyed
	 * by itself: thread_row_hash()), for its root, while the store's generation stays roots_gen and
	 * no transaction is rolled back: remember_thread() finds a parent's
	 * root here without asking the table */
	GHashTable *roots;
	unsigned long roots_gen;
	/* the list_thread rows of the open transaction's mails (struct
	 * thread_row), in the order read, and the index + 1 of each by the
	 * row (its Message-ID): written as it commits, in one run of one statement
	 * (thread_write()), and first when anything reads the table */
	GPtrArray *pending;
	GHashTable *pending_ids;
	/* the first 8 characters (lower case) of every regression's culprit,
	 * for tracker_wants_body(): known while culprits_known, the store's
	 * generation stays culprits_gen, no transaction is rolled back and
	 * this tracker sets no culprit (culprits_forget()) */
	char **culprits;
	size_t nculprits;
	int culprits_known;
	unsigned long culprits_gen;
	struct bug_notes notes;   /* the notes for ordinary bugs (bugnotes.h) */
};

static void thread_rows_forget(struct tracker *t)
{
	g_hash_table_remove_all(t->pending_ids);
	g_ptr_array_set_size(t->pending, 0);
}

static enum bb_status thread_write(struct tracker *t, struct bb_error *err);

static void culprits_forget(struct tracker *t)
{
	for (size_t i = 0; i < t->nculprits; i++)
		free(t->culprits[i]);
	free(t->culprits);
	t->culprits = NULL;
	t->nculprits = 0;
	t->culprits_known = 0;
}

/* A regression's activity not written yet: count mails more, the latest
 * of their dates, and the last one's sender and Message-ID; and when
 * stamped, the time its history last changed (its updated column). */
struct activity {
	long long id;
	long long count;
	long long latest;
	char *who, *msgid;
	int stamped;
	long long updated;
};

static void activity_free(void *p)
{
	struct activity *a = p;

	free(a->who);
	free(a->msgid);
	free(a);
}

static enum bb_status activity_write(void *ctx, struct bb_error *err);
static void activity_forget(void *ctx);

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

enum bb_status tracker_new(struct tracker **out, struct store *db,
			   const struct tracker_options *opt, struct bb_error *err)
{
	struct tracker *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	t->db = db;
	t->bugzilla_url = dup_or_null(opt->bugzilla_url);
	t->bugzilla_host = reg_link_host(opt->bugzilla_url);
	t->archive_url = dup_or_null(opt->archive_url);
	t->regression_field = dup_or_null(opt->regression_field);
	t->regression_keyword = dup_or_null(opt->regression_keyword);
	t->bisect_field = dup_or_null(opt->bisect_field);
	t->close_on_fix = dup_or_null(opt->close_on_fix);
	t->default_branch = strdup(opt->default_branch && *opt->default_branch ? opt->default_branch
								       : "mainline");
	if (!t->default_branch) {
		tracker_free(t);
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	t->notes.db = db;
	t->notes.bugzilla_url = t->bugzilla_url;
	t->notes.bugzilla_host = t->bugzilla_host;
	t->notes.archive_url = t->archive_url;
	t->stale_after = opt->stale_after > 0 ? opt->stale_after : 90LL * 24 * 3600;
	t->activity = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, activity_free);
	t->roots = g_hash_table_new_full(thread_row_hash, thread_row_equal, thread_row_free, NULL);
	t->roots_gen = db->generation;
	t->pending = g_ptr_array_new_with_free_func(thread_row_free);
	t->pending_ids = g_hash_table_new(thread_row_hash, thread_row_equal);
	t->hook.before_commit = activity_write;
	t->hook.rolled_back = activity_forget;
	t->hook.ctx = t;
	/* (a store that has a hook already leaves the activity unbatched) */
	t->hooked = store_set_commit_hook(db, &t->hook, NULL) == BB_OK;
	*out = t;
	return BB_OK;
}

void tracker_free(struct tracker *t)
{
	if (!t)
		return;
	if (t->hooked) {
		/* a transaction still open keeps what its mails did */
		if (((t->activity && g_hash_table_size(t->activity)) ||
		     (t->pending && t->pending->len)) && t->db->depth > 0 &&
		    activity_write(t, NULL))
			log_event(LOG_LEVEL_WARN, "tracker.activity_lost",
				  LF_STR("reason", "the state could not be written"));
		store_set_commit_hook(t->db, NULL, NULL);
	}
	if (t->activity)
		g_hash_table_destroy(t->activity);
	if (t->roots)
		g_hash_table_destroy(t->roots);
	if (t->pending_ids)
		g_hash_table_destroy(t->pending_ids);
	if (t->pending)
		g_ptr_array_free(t->pending, TRUE);
	culprits_forget(t);
	free(t->bugzilla_url);
	free(t->bugzilla_host);
	free(t->archive_url);
	free(t->regression_field);
	free(t->regression_keyword);
	free(t->bisect_field);
	free(t->close_on_fix);
	free(t->default_branch);
	free(t);
}

/* A patch mail: "[PATCH ...]" (after any Re:). */
static int is_patch(const struct inmail *m)
{
	const char *subject = inmail_bare_subject(m->subject);

	return !strncasecmp(subject, "[PATCH", 6);
}

/* A reply: its subject starts with "Re:". */
static int is_reply(const struct inmail *m)
{
	const char *subject = m->subject ? m->subject : "";

	subject += strspn(subject, " \t");
	return !g_ascii_strncasecmp(subject, "Re:", 3);
}

/* Reads the first 8 characters of the regressions' culprits into t (see
 * struct tracker), unless they are known.  -1 when they cannot be read. */
static int culprits_load(struct tracker *t)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (t->culprits_known && t->db->depth > 0 && t->culprits_gen == t->db->generation)
		return 0;
	culprits_forget(t);
	if (store_cached(t->db, &st, "SELECT DISTINCT lower(substr(culprit, 1, 8)) FROM"
				     " reg_regression WHERE length(culprit) >= 8", NULL))
		return -1;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		char **v = realloc(t->culprits, (t->nculprits + 1) * sizeof(*v));

		if (!v) {
			rc = -1;
			break;
		}
		t->culprits = v;
		if (!(v[t->nculprits] = strdup((const char *)sqlite3_column_text(st, 0))))
			rc = -1;
		else
			t->nculprits++;
	}
	store_cached_done(t->db, st);
	if (rc) {
		culprits_forget(t);
		return rc;
	}
	t->culprits_known = 1;
	t->culprits_gen = t->db->generation;
	return 0;
}

/* Whether a patch's text (len bytes, raw) may have a Fixes: line naming
 * a regression's culprit: some regression has one, and the text before
 * the patch's "---" line (where the trailers are) holds "Fixes:" and the
 * beginning of one (culprits that cannot be read count as there). */
static int may_fix_culprit(struct tracker *t, const char *text, size_t len)
{
	const char *cut;
	int known = !culprits_load(t);

	if (known && !t->nculprits)
		return 0;
	if ((cut = text_find_ci(text, len, "\n---")))
		len = (size_t)(cut - text);
	if (!text_find_ci(text, len, "fixes:"))
		return 0;
	if (!known)
		return 1;
	for (size_t i = 0; i < t->nculprits; i++)
		if (text_find_ci(text, len, t->culprits[i]))
			return 1;
	return 0;
}

/* Runs one statement with text and integer parameters: "t" binds the next
 * const char *, "i" the next long long. */
static enum bb_status exec_bind(struct tracker *t, struct bb_error *err, const char *what,
				const char *sql, const char *types, ...)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	va_list ap;

	if ((s = store_cached(t->db, &st, sql, err)))
		return s;
	va_start(ap, types);
	for (int i = 0; types[i]; i++) {
		if (types[i] == 't') {
			const char *v = va_arg(ap, const char *);

			/* (the caller's text outlives the step; the bindings
			 * are cleared before the statement goes back) */
			sqlite3_bind_text(st, i + 1, v ? v : "", -1, SQLITE_STATIC);
		} else {
			sqlite3_bind_int64(st, i + 1, va_arg(ap, long long));
		}
	}
	va_end(ap);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(t->db, err, what);
	store_cached_done(t->db, st);
	return s;
}

/* Writes a->count mails more of regression a->id's activity (the latest
 * sent at a->latest, the last one read by a->who, as a->msgid), and when
 * a->stamped its updated time a->updated: one row, one statement. */
static enum bb_status activity_row_write(struct tracker *t, const struct activity *a,
					 struct bb_error *err)
{
	if (!a->count && !a->stamped)
		return BB_OK;
	return exec_bind(t, err, "recording a regression's activity",
			 "UPDATE reg_regression SET activity_count = activity_count + ?1,"
			 " last_activity = CASE WHEN ?1 THEN max(last_activity, ?2)"
			 " ELSE last_activity END,"
			 " last_activity_by = CASE WHEN ?1 THEN ?3 ELSE last_activity_by END,"
			 " last_activity_msgid = CASE WHEN ?1 THEN ?4 ELSE last_activity_msgid END,"
			 " updated = CASE WHEN ?5 THEN ?6 ELSE updated END WHERE id = ?7",
			 "iittiii", a->count, a->latest, a->who, a->msgid, (long long)a->stamped,
			 a->updated, a->id);
}

/* Writes the list_thread rows and the activity noted since the
 * transaction began (the store's commit hook; also before what reads them
 * in the same transaction). */
static enum bb_status activity_write(void *ctx, struct bb_error *err)
{
	struct tracker *t = ctx;
	GHashTableIter it;
	void *value;
	enum bb_status s;

	if ((s = thread_write(t, err)))
		return s;
	if (!t->activity || !g_hash_table_size(t->activity))
		return BB_OK;
	g_hash_table_iter_init(&it, t->activity);
	while (!s && g_hash_table_iter_next(&it, NULL, &value)) {
		s = activity_row_write(t, value, err);
	}
	g_hash_table_remove_all(t->activity);
	return s;
}

enum bb_status tracker_flush(struct tracker *t, struct bb_error *err)
{
	return activity_write(t, err);
}

static void activity_forget(void *ctx)
{
	struct tracker *t = ctx;

	if (t->activity)
		g_hash_table_remove_all(t->activity);
	thread_rows_forget(t);
	culprits_forget(t);
	/* (rows this tracker wrote may be gone) */
	if (t->roots)
		g_hash_table_remove_all(t->roots);
}

/* Whether activity is kept until the transaction commits (the store's
 * commit hook is set and a transaction is open), not written at once. */
static int activity_kept(const struct tracker *t)
{
	return t->hooked && t->db->depth > 0;
}

/* Regression id's entry of the activity not written yet, made if need
 * be; NULL when out of memory. */
static struct activity *activity_entry(struct tracker *t, long long id)
{
	struct activity *a = g_hash_table_lookup(t->activity, &id);

	if (!a && (a = calloc(1, sizeof(*a)))) {
		a->id = id;
		g_hash_table_insert(t->activity, &a->id, a);
	}
	return a;
}

/* One mail more of regression id's activity, sent at when by who: kept
 * until the transaction commits (a history read adds thousands of mails
 * to the same few regressions, and each row's update cost as much as
 * reading the mail); written at once outside a transaction. */
static enum bb_status activity_note(struct tracker *t, long long id, time_t when, const char *who,
				    const char *msgid, struct bb_error *err)
{
	struct activity *a;
	char *w, *m;

	if (!activity_kept(t)) {
		const struct activity one = { id, 1, (long long)when, (char *)who, (char *)msgid,
					      0, 0 };

		return activity_row_write(t, &one, err);
	}
	w = strdup(who ? who : "");
	m = strdup(msgid ? msgid : "");
	if (!w || !m || !(a = activity_entry(t, id))) {
		free(w);
		free(m);
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	if (!a->count)
		a->latest = (long long)when;
	a->count++;
	if ((long long)when > a->latest)
		a->latest = (long long)when;
	free(a->who);
	free(a->msgid);
	a->who = w;
	a->msgid = m;
	return BB_OK;
}

static enum bb_status add_event(struct tracker *t, long long id, time_t when, const char *kind,
				const char *text, const char *msgid, struct bb_error *err)
{
	struct activity *a;
	enum bb_status s = exec_bind(t, err, "recording a regression's history",
				     "INSERT INTO reg_event (regression, time, kind, text, message_id,"
				     " unverified) VALUES (?, ?, ?, ?, ?, ?)", "iitttt", id,
				     (long long)when, kind, text, msgid,
				     t->unverified ? t->unverified : "");

	if (!s && msgid && *msgid)
		store_keys_add(t->db, STORE_KEYS_REG_NOTED, msgid);
	if (s)
		return s;
	/* the regression's updated time: with its activity, as it commits
	 * (the history of a thread read whole changes one regression again
	 * and again) */
	if (!activity_kept(t)) {
		const struct activity stamp = { id, 0, 0, NULL, NULL, 1, (long long)when };

		return activity_row_write(t, &stamp, err);
	}
	if (!(a = activity_entry(t, id)))
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	a->stamped = 1;
	a->updated = (long long)when;
	return BB_OK;
}

static enum bb_status add_mail(struct tracker *t, long long id, const char *msgid,
			       const char *kind, struct bb_error *err)
{
	enum bb_status s;

	if (!msgid || !*msgid)
		return BB_OK;
	s = exec_bind(t, err, "recording a regression's mail",
		      "INSERT OR IGNORE INTO reg_mail (message_id, regression, kind) VALUES (?, ?, ?)",
		      "tit", msgid, id, kind);
	if (!s)
		store_keys_add(t->db, STORE_KEYS_REG_MAIL, msgid);
	return s;
}

static enum bb_status set_text(struct tracker *t, long long id, const char *column,
			       const char *value, struct bb_error *err)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "UPDATE reg_regression SET %s = ? WHERE id = ?", column);
	if (!strcmp(column, "culprit"))
		culprits_forget(t);
	return exec_bind(t, err, "updating a regression", sql, "ti", value, id);
}

static enum bb_status set_int(struct tracker *t, long long id, const char *column,
			      long long value, struct bb_error *err)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "UPDATE reg_regression SET %s = ? WHERE id = ?", column);
	return exec_bind(t, err, "updating a regression", sql, "ii", value, id);
}

static enum bb_status unhandled(struct tracker *t, const struct inmail *m, time_t when,
				const char *line, const char *reason, struct bb_error *err)
{
	enum bb_status s;

	log_event(LOG_LEVEL_INFO, "tracker.unhandled", LF_STR("message_id", m->message_id),
		  LF_STR("line", line), LF_STR("reason", reason));
	s = exec_bind(t, err, "recording an unhandled directive",
		      "INSERT OR IGNORE INTO reg_unhandled (time, message_id, line, reason)"
		      " VALUES (?, ?, ?, ?)", "ittt", (long long)when,
		      m->message_id ? m->message_id : "", line, reason);
	if (!s && m->message_id)
		store_keys_add(t->db, STORE_KEYS_REG_NOTED, m->message_id);
	return s;
}

/* The regressions a Message-ID belongs to (its report, a mail seen in its
 * thread, a monitored thread); appended to ids (at most max). */
static size_t regressions_of(struct tracker *t, const char *msgid, long long *ids, size_t n,
			     size_t max)
{
	sqlite3_stmt *st = NULL;

	if (!msgid || !*msgid || !store_keys_may_hold(t->db, STORE_KEYS_REG_MAIL, msgid) ||
	    store_cached(t->db, &st, "SELECT regression FROM reg_mail WHERE message_id = ?", NULL))
		return n;
	sqlite3_bind_text(st, 1, msgid, -1, SQLITE_STATIC);
	while (n < max && sqlite3_step(st) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		size_t k;

		for (k = 0; k < n && ids[k] != id; k++)
			;
		if (k == n)
			ids[n++] = id;
	}
	store_cached_done(t->db, st);
	return n;
}

/* The regression whose report is the URL of another tracker (a GitHub
 * issue, another Bugzilla): introduced: named it. */
static long long regression_of_report_url(struct tracker *t, const char *url)
{
	sqlite3_stmt *st = NULL;
	long long id = 0;

	if (!url || !*url || store_cached(t->db, &st, "SELECT id FROM reg_regression WHERE"
						      " report_url = ? AND report_url != '' ORDER BY id LIMIT 1", NULL))
		return 0;
	sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	store_cached_done(t->db, st);
	return id;
}

/* The regressions whose report on another tracker (a Bugzilla not the
 * configured one, a GitHub issue ...) or one of whose duplicate reports
 * (dup:, a link of kind "duplicate") is the page url names
 * (reg_link_same_report()); appended to ids (at most max).  A mail's link
 * is found by its Message-ID instead (regressions_of()). */
static size_t regressions_of_page(struct tracker *t, const char *url, long long *ids, size_t n,
				  size_t max)
{
	sqlite3_stmt *st = NULL;

	if (!url || !*url ||
	    store_cached(t->db, &st, "SELECT id, report_url FROM reg_regression WHERE"
			 " report_msgid = '' AND report_url != '' UNION ALL SELECT regression, url"
			 " FROM reg_link WHERE kind = 'duplicate'", NULL))
		return n;
	while (n < max && sqlite3_step(st) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		size_t k;

		if (!reg_link_same_report(url, (const char *)sqlite3_column_text(st, 1)))
			continue;
		for (k = 0; k < n && ids[k] != id; k++)
			;
		if (k == n)
			ids[n++] = id;
	}
	store_cached_done(t->db, st);
	return n;
}

/* A mail and the tracker reading it, for a callback. */
struct tracker_mail_at {
	struct tracker *t;
	const struct inmail *m;
};

/* reg_raw_trailers()'s question of a patch's Link:/Closes: trailer, read
 * from its raw text: whether patch_posted() may do anything with it -- it
 * names a regression's mail (or the patch itself: it joins its thread's
 * regressions before the trailers are read), a bug, a report elsewhere or
 * a duplicate report.  Most patches link only their own series, and their
 * decode was most of what the tracker cost them. */
static int trailer_matters(const char *value, void *ctx)
{
	const struct tracker_mail_at *at = ctx;
	struct tracker *t = at->t;
	char *msgid = reg_link_message_id(value);
	long long ids[1];
	int hit;

	if (msgid) {
		hit = (at->m->message_id && !strcmp(msgid, at->m->message_id)) ||
		      regressions_of(t, msgid, ids, 0, 1) > 0;
		free(msgid);
		return hit;
	}
	return reg_link_bugzilla_id(value, t->bugzilla_url) > 0 ||
	       regressions_of_page(t, value, ids, 0, 1) > 0 ||
	       reg_bug_of_value(t->bugzilla_url, value) > 0;
}

int tracker_wants_body(struct tracker *t, const struct inmail *m, unsigned scan_flags,
		       const char *raw, size_t len)
{
	struct tracker_mail_at at = { t, m };
	size_t off = m->body_offset < len ? m->body_offset : len;
	int patch = is_patch(m);

	/* a patch matters for its Link:/Closes: trailers, which start a line
	 * as they are, in plain text and in quoted-printable alike; those
	 * that may do something (trailer_matters()) */
	if ((scan_flags & (INMAIL_SCAN_REGZBOT | INMAIL_SCAN_OPAQUE)) != 0 ||
	    ((scan_flags & INMAIL_SCAN_TRAILER) && patch &&
	     (!raw || reg_raw_trailers(raw + off, len - off, trailer_matters, &at))))
		return 1;
	/* a patch whose Fixes: may name a regression's culprit (a note) */
	if (raw && patch && !is_reply(m) && !m->from_bridge &&
	    may_fix_culprit(t, raw + off, len - off))
		return 1;
	/* a mail that may cite a bug's URL (bug_notes_mentions()) */
	return t->bugzilla_host && raw && !m->from_bridge && !m->auto_reply && !patch &&
	       text_find_ci(raw + off, len - off, t->bugzilla_host) != NULL;
}

/* The regression a link (lore URL of a mail, Bugzilla bug URL, the URL of
 * a report elsewhere) names. */
static long long regression_of_url(struct tracker *t, const char *url)
{
	char *msgid = reg_link_message_id(url);
	long long ids[1], id;
	size_t n = 0;

	if (msgid) {
		n = regressions_of(t, msgid, ids, 0, 1);
		free(msgid);
		return n ? ids[0] : 0;
	}
	id = reg_regression_of_bug(t->db, reg_link_bugzilla_id(url, t->bugzilla_url));
	return id ? id : regression_of_report_url(t, url);
}

/* The tree a regression lives on, from where it was introduced:
 * v6.1.15..v6.1.20 is linux-6.1.y, next-20261201 is next, else the
 * default branch (mainline).  A culprit a watched tree holds decides
 * later (tracker_scan_trees()). */
static char *branch_of(struct tracker *t, const char *from, const char *to)
{
	const char *tags[2] = { to, from };

	for (int i = 0; i < 2; i++) {
		const char *v = tags[i];
		unsigned a, b, c;
		char tail;

		if (!v)
			continue;
		if (!strncmp(v, "next-", 5))
			return strdup("next");
		if (sscanf(v, "v%u.%u.%u%c", &a, &b, &c, &tail) == 3)
			return str_printf("linux-%u.%u.y", a, b);
	}
	return strdup(t->default_branch);
}


static char *person(const char *name, const char *addr)
{
	char *out = malloc(thread_row_person(NULL, name, addr) + 1);

	if (out)
		thread_row_person(out, name, addr);
	return out;
}

static char *report_link(struct tracker *t, const char *msgid)
{
	return reg_link_mail(t->archive_url, msgid);
}

/* A new regression; *id gets it. */
static enum bb_status create(struct tracker *t, time_t when, const char *title,
			     const char *branch, const char *report_msgid, const char *report_url,
			     long long bug_id, const char *reporter, long long *id,
			     struct bb_error *err)
{
	enum bb_status s;

	s = exec_bind(t, err, "recording a regression",
		      "INSERT INTO reg_regression (title, branch, report_msgid, report_url, bug_id,"
		      " reporter, created, updated, last_activity) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
		      "ttttitiii", title, branch, report_msgid, report_url, bug_id, reporter,
		      (long long)when, (long long)when, (long long)when);
	if (s)
		return s;
	*id = sqlite3_last_insert_rowid(t->db->db);
	if (report_msgid && *report_msgid)
		s = add_mail(t, *id, report_msgid, "report", err);
	log_event(LOG_LEVEL_INFO, "tracker.regression", LF_INT("id", *id), LF_STR("title", title));
	return s;
}

/* A mirrored bug that is no regression follows its fixes and mentions
 * too: bugnotes.h. */

/* Whether name is one of a comma-separated list. */
static int listed(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *end;
		size_t n;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		end = p + strcspn(p, ",");
		n = (size_t)(end - p);
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n && n == len && !memcmp(p, name, len))
			return 1;
		p = end;
	}
	return 0;
}

/* The first Message-ID of the thread m belongs to (its References' first,
 * else what it answers, else its own): one mention note per thread. */
static const char *thread_root(const struct inmail *m)
{
	if (m->nreferences && m->references[0] && *m->references[0])
		return m->references[0];
	if (m->in_reply_to && *m->in_reply_to)
		return m->in_reply_to;
	return m->message_id;
}

/* ---------------------------------------------------------------- mail */

/* (print: store_key_print(msgid)) */
static int already_seen(struct tracker *t, const char *msgid, uint64_t print)
{
	sqlite3_stmt *st = NULL;
	int seen = 0;

	if (!store_keys_may_hold_print(t->db, STORE_KEYS_REG_MAIL, print) &&
	    !store_keys_may_hold_print(t->db, STORE_KEYS_REG_NOTED, print))
		return 0;
	if (store_cached(t->db, &st, "SELECT 1 FROM reg_mail WHERE message_id = ?1 AND kind ="
				     " 'thread' UNION ALL SELECT 1 FROM reg_unhandled WHERE"
				     " message_id = ?1 UNION ALL SELECT 1 FROM reg_event WHERE"
				     " message_id = ?1 AND message_id != '' LIMIT 1", NULL))
		return 0;
	sqlite3_bind_text(st, 1, msgid, -1, SQLITE_STATIC);
	seen = sqlite3_step(st) == SQLITE_ROW;
	store_cached_done(t->db, st);
	return seen;
}

/* The grandparent's Message-ID ("^^introduced"): the reference before the
 * parent, when References holds the parent; else NULL (not known). */
static const char *grandparent_id(const struct inmail *m)
{
	const char *parent = inmail_parent_id(m);

	for (size_t k = m->nreferences; parent && k-- > 1;)
		if (!strcmp(m->references[k], parent))
			return m->references[k - 1];
	return NULL;
}

/* Lists url among a regression's links as kind, keeping a title given
 * before. */
static enum bb_status put_link(struct tracker *t, long long id, const char *url,
			       const char *title, const char *kind, struct bb_error *err)
{
	return exec_bind(t, err, "recording a link",
			 "INSERT INTO reg_link (regression, url, title, kind) VALUES (?, ?, ?, ?)"
			 " ON CONFLICT (regression, url) DO UPDATE SET kind = excluded.kind,"
			 " title = CASE WHEN excluded.title != '' THEN excluded.title ELSE title END",
			 "ittt", id, url, title ? title : "", kind);
}

/* Marks regression dup a duplicate of regression of (not of itself, and
 * not when of is already a duplicate of dup: no loop). */
static enum bb_status mark_duplicate(struct tracker *t, long long dup, long long of,
				     struct bb_error *err)
{
	return exec_bind(t, err, "updating a regression",
			 "UPDATE reg_regression SET state = 'duplicate', dup_of = ?1 WHERE id = ?2"
			 " AND ?1 != ?2 AND (SELECT dup_of FROM reg_regression WHERE id = ?1) != ?2",
			 "ii", of, dup);
}

/* "dup: <url>" in a regression's thread (and a URL beside "^" in
 * introduced): url is another report of regression id, as regzbot's
 * reference has it.  It is listed among id's links as a duplicate report,
 * the mails of its thread (a mail URL) count for id from now on, and a
 * regression already tracked for it becomes a duplicate of id. */
static enum bb_status add_duplicate_report(struct tracker *t, long long id, const char *url,
					   struct bb_error *err)
{
	char *msgid = reg_link_message_id(url);
	long long other = regression_of_url(t, url);
	enum bb_status s = put_link(t, id, url, "", "duplicate", err);

	if (!s && msgid)
		s = add_mail(t, id, msgid, "duplicate", err);
	if (!s && other && other != id)
		s = mark_duplicate(t, other, id, err);
	free(msgid);
	return s;
}

/* "dup-of: <url>" (and "dup: <url>" in a thread no regression has): this
 * thread's report duplicates the regression url names.  ids[n] are the
 * thread's regressions: each becomes a duplicate of it and is listed among
 * its duplicate reports; with none, the thread itself is (its root, or
 * this mail when it is one), and its mails count for that regression from
 * now on.  A url naming no regression is not acted on. */
static enum bb_status apply_dup_of(struct tracker *t, const struct inmail *m,
				   const struct reg_directive *d, const long long *ids, size_t n,
				   time_t when, struct bb_error *err)
{
	long long other = regression_of_url(t, d->url);
	const char *root;
	char *link;
	enum bb_status s = BB_OK;

	if (!other)
		return unhandled(t, m, when, d->text, "duplicate of a report that is not tracked",
				 err);
	for (size_t k = 0; k < n && !s; k++) {
		if (ids[k] == other)
			continue;
		if (!(s = mark_duplicate(t, ids[k], other, err)))
			s = exec_bind(t, err, "recording a link",
				      "INSERT INTO reg_link (regression, url, title, kind) SELECT ?1,"
				      " report_url, title, 'duplicate' FROM reg_regression WHERE id = ?2"
				      " AND report_url != '' ON CONFLICT (regression, url) DO UPDATE SET"
				      " kind = excluded.kind", "ii", other, ids[k]);
		if (!s)
			s = add_event(t, ids[k], when, reg_verb_str(d->verb), d->arg, m->message_id,
				      err);
	}
	if (s || n)
		return s;
	root = m->nreferences ? m->references[0] : m->in_reply_to ? m->in_reply_to
								  : m->message_id;
	if (!(link = report_link(t, root)))
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if (!(s = put_link(t, other, link, root == m->message_id ? inmail_bare_subject(m->subject)
								 : "", "duplicate", err)) &&
	    !(s = add_mail(t, other, root, "duplicate", err)) &&
	    !(s = add_mail(t, other, m->message_id, "thread", err)))
		s = add_event(t, other, when, "duplicate", link, m->message_id, err);
	free(link);
	return s;
}

static enum bb_status earlier_mails(struct tracker *t, long long id, const char *report,
				    const char *self, struct bb_error *err);

/* Regression id monitors the thread of msgid (monitor, ^backmonitor):
 * the mail is its mail of kind "monitor", and the mails of that thread
 * read so far count as its activity, as regzbot reads a monitored thread
 * whole -- the first time only (self: the directive's mail, counted or
 * not by its own thread). */
static enum bb_status monitor_thread(struct tracker *t, long long id, const char *msgid,
				     const char *self, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	int known = 0;
	enum bb_status s;

	if ((s = store_cached(t->db, &st, "SELECT 1 FROM reg_mail WHERE regression = ? AND"
			      " message_id = ?", err)))
		return s;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, msgid, -1, SQLITE_STATIC);
	known = sqlite3_step(st) == SQLITE_ROW;
	store_cached_done(t->db, st);
	if ((s = add_mail(t, id, msgid, "monitor", err)) || known)
		return s;
	return earlier_mails(t, id, msgid, self, err);
}

/* "^backmonitor: <url>", read wherever it is: the regression url names
 * monitors the thread of this mail's parent, whose mails read so far count
 * as its activity (the mail itself is no activity, see no_activity()). */
static enum bb_status apply_backmonitor(struct tracker *t, const struct inmail *m,
					const struct reg_directive *d, time_t when,
					struct bb_error *err)
{
	long long other = regression_of_url(t, d->url);
	const char *parent = inmail_parent_id(m);
	char *link;
	enum bb_status s;

	if (!other)
		return unhandled(t, m, when, d->text, "names no tracked regression", err);
	if (!parent)
		return unhandled(t, m, when, d->text, "no parent mail to monitor", err);
	if (!(link = report_link(t, parent)))
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if (!(s = put_link(t, other, link, "", "monitor", err)) &&
	    !(s = monitor_thread(t, other, parent, m->message_id, err)))
		s = add_event(t, other, when, reg_verb_str(d->verb), link, m->message_id, err);
	free(link);
	return s;
}

/* Drops list_thread's rows read more than TRACKER_THREAD_DAYS ago, once a
 * day (UTC; the cursor "tracker:threads-pruned" says when it last did):
 * the table has no index on when a row was read, so this reads it all. */
static enum bb_status prune_threads(struct tracker *t, time_t now, struct bb_error *err)
{
	static const char cursor[] = "tracker:threads-pruned";
	char today[STORE_DAY_LEN];
	enum bb_status s;
	int done;

	if ((s = store_cursor_today(t->db, cursor, now, today, &done, err)) || done ||
	    (s = thread_write(t, err)))
		return s;
	if (t->roots)
		g_hash_table_remove_all(t->roots);
	if (!(s = exec_bind(t, err, "forgetting old threads", "DELETE FROM list_thread WHERE seen < ?",
			    "i", (long long)now - TRACKER_THREAD_DAYS * 86400LL)))
		s = store_cursor_set(t->db, cursor, today, err);
	return s;
}

/* Whether the roots remembered can be used (and added to): inside a
 * transaction (the generation is read as one begins; a rollback reaches
 * the hook), forgotten when another connection has written. */
static int roots_usable(struct tracker *t)
{
	if (!t->roots || !t->hooked || t->db->depth <= 0)
		return 0;
	if (t->roots_gen != t->db->generation) {
		g_hash_table_remove_all(t->roots);
		t->roots_gen = t->db->generation;
	}
	return 1;
}

/* The root of the list_thread row of the row probe's Message-ID (probe:
 * message_id and hash) if this tracker wrote it (and nothing since may
 * have changed it), else NULL. */
static const char *known_root(struct tracker *t, const struct thread_row *probe)
{
	const struct thread_row *r;

	if (!probe->message_id || !*probe->message_id || !roots_usable(t))
		return NULL;
	r = g_hash_table_lookup(t->roots, probe);
	return r ? r->root : NULL;
}

/* Remembers the row r wrote (which the table takes: it is freed now when
 * the roots cannot be kept; a row it had of the same Message-ID goes). */
static void note_row_root(struct tracker *t, struct thread_row *r)
{
	if (!roots_usable(t)) {
		thread_row_free(r);
		return;
	}
	if (g_hash_table_size(t->roots) >= TRACKER_ROOTS_MAX)
		g_hash_table_remove_all(t->roots);
	g_hash_table_add(t->roots, r);
}

/* Writes the list_thread rows remember_thread() kept, in the order their
 * mails were read, as each would have been written then: a mail whose
 * row was there already keeps it (and a reply that took its root from
 * that mail's kept row takes the root the table has); the roots of the
 * rows written are remembered (note_root()).  They go as the transaction
 * commits (the store's hook, activity_write()), before the tracker reads
 * the table, and when TRACKER_ROWS_KEPT are kept: one statement run over
 * them in a row, where each mail's insert ran between the parsing of the
 * mails around it and found SQLite's pages and code out of the CPU's
 * caches (the inserts were a quarter of bugbridge's own CPU on a
 * 40,586-mail history read; written so, that read takes 6% less).  Runs
 * of THREAD_ROWS_RUN rows none of which the table has go in one statement
 * each (thread_rows_write_new()). */
static enum bb_status thread_write(struct tracker *t, struct bb_error *err)
{
	enum bb_status s = BB_OK;
	size_t single = 0, held;   /* rows before single go one by one */

	for (guint i = 0; i < t->pending->len && !s; i++) {
		struct thread_row *r = t->pending->pdata[i];
		const char *from = r->parent >= 0 ? ((const struct thread_row *)
						    t->pending->pdata[r->parent])->root : r->root;
		char *root = NULL;
		int added = 0;

		/* runs of new rows, one statement each (thread_rows.h) */
		if (i >= single && t->pending->len - i >= THREAD_ROWS_RUN) {
			if ((s = thread_rows_write_new(t->db, (struct thread_row *const *)t->pending->pdata,
						       i, &held, err)))
				break;
			for (guint k = i; held == THREAD_ROWS_RUN && k < i + THREAD_ROWS_RUN; k++)
				((struct thread_row *)t->pending->pdata[k])->added = 1;
			if (held == THREAD_ROWS_RUN) {
				i += THREAD_ROWS_RUN - 1;
				continue;
			}
			single = i + held + 1;
		}
		if (strcmp(from, r->root) && !(root = strdup(from)))
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		/* (a mail whose row is there keeps it, and its root is the
		 * mail's for the replies read after it) */
		else if (!(s = thread_row_insert(t->db, r->message_id, root ? root : r->root, r->who,
						 r->date, r->seen, &added, err)) && !added) {
			free(root);
			s = thread_row_root(t->db, r->message_id, &root, err);
		}
		if (root)
			thread_row_take_root(r, root);
		r->added = !s && added;
	}
	/* (after the rows' roots were read: the rows written are taken,
	 * not copied) */
	g_hash_table_remove_all(t->pending_ids);
	for (guint i = 0; i < t->pending->len; i++) {
		struct thread_row *r = t->pending->pdata[i];

		if (r->added) {
			t->pending->pdata[i] = NULL;
			note_row_root(t, r);
		}
	}
	thread_rows_forget(t);
	return s;
}

/* Remembers which thread a list mail belongs to (list_thread), for
 * earlier_mails(); the bridge's own mails and auto-replies are no
 * activity and are not kept.  Rows read more than TRACKER_THREAD_DAYS ago
 * go (prune_threads()).  The thread's root is the one its parent's row
 * has, when the parent was read (References often name the parent alone),
 * else the first mail it names.  Inside a transaction the row is kept
 * until it commits (thread_write()).  print: store_key_print() of the
 * mail's Message-ID. */
static enum bb_status remember_thread(struct tracker *t, const struct inmail *m, uint64_t print,
				      time_t when, struct bb_error *err)
{
	enum bb_status s = BB_OK;
	time_t now = time(NULL);
	const char *root = NULL;
	char *who, *stored = NULL;
	long from = -1;
	int kept = activity_kept(t), added;
	/* the mail's row and its parent's, to look for (each Message-ID
	 * hashed once for every table) */
	struct thread_row mail = { 0 }, parent = { 0 };

	if (!t->threads_pruned) {
		t->threads_pruned = 1;
		if ((s = prune_threads(t, now, err)))
			return s;
	}
	if (m->from_bridge || m->auto_reply || !m->message_id)
		return BB_OK;
	mail.message_id = (char *)m->message_id;
	mail.print = print;
	/* (a mail read again in the transaction keeps its first row, as
	 * the table keeps a row) */
	if (kept && g_hash_table_contains(t->pending_ids, &mail))
		return BB_OK;
	if ((parent.message_id = (char *)inmail_parent_id(m)) && *parent.message_id)
		parent.print = store_key_print(parent.message_id);
	if (kept && parent.message_id && *parent.message_id) {
		guint i = GPOINTER_TO_UINT(g_hash_table_lookup(t->pending_ids, &parent));

		if (i) {
			from = (long)i - 1;
			root = ((const struct thread_row *)t->pending->pdata[from])->root;
		}
	}
	if (!root)
		root = known_root(t, &parent);
	if (!root && parent.message_id && *parent.message_id) {
		if ((s = thread_row_root(t->db, parent.message_id, &stored, err)))
			return s;
		root = stored;
	}
	if (!root)
		root = thread_root(m);
	if (kept) {
		/* (root may be a row's of the roots: copied before anything
		 * may empty them) */
		struct thread_row *r = thread_row_new(m->message_id, print, root, m->from_name,
						      m->from_addr);

		free(stored);
		if (!r)
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		r->date = (long long)when;
		r->seen = (long long)now;
		r->parent = from;
		g_ptr_array_add(t->pending, r);
		g_hash_table_insert(t->pending_ids, r, GUINT_TO_POINTER(t->pending->len));
		return t->pending->len >= TRACKER_ROWS_KEPT ? thread_write(t, err) : BB_OK;
	}
	if (!(who = person(m->from_name, m->from_addr))) {
		free(stored);
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	if (!(s = thread_row_insert(t->db, m->message_id, root, who, (long long)when, (long long)now,
				    &added, err)) && added) {
		struct thread_row *r = thread_row_new(m->message_id, print, root, NULL, NULL);

		if (r)
			note_row_root(t, r);
	}
	free(who);
	free(stored);
	return s;
}

/* A regression just made for the report mail report, or a thread it
 * monitors from now on (monitor, ^backmonitor: report is the mail named):
 * the mails of that thread that came before count as activity, as
 * regzbot reads the whole thread when a regression is added or a thread
 * monitored.  They are the mails of the report's
 * thread the tracker read (list_thread: a mail whose References start
 * where the report's do, or with the report) and, for a mirrored bug's
 * list thread, the mails matched to the bug (in_mail) -- the report
 * itself among them when it was read (regzbot's export counts a report,
 * whether or not it carries the directive), except the one carrying the
 * directive (apply_introduced() counts it when it is one of the thread's)
 * and the mails bugbridge sent itself. */
static enum bb_status earlier_mails(struct tracker *t, long long id, const char *report,
				    const char *self, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	/* (its update reads the activity so far) */
	if ((s = activity_write(t, err)))
		return s;
	if ((s = store_cached(t->db, &st, "SELECT message_id, max(who), min(date) FROM ("
			       " SELECT message_id, from_addr AS who, date FROM in_mail"
			       " WHERE bug_id = (SELECT bug_id FROM in_mail WHERE message_id = ?1)"
			       " AND state NOT IN ('ignored', 'rejected')"
			       " UNION ALL SELECT message_id, from_who, date FROM list_thread"
			       " WHERE root_key IN (text_key(?1), (SELECT root_key FROM list_thread WHERE"
			       " mid_key = text_key(?1) AND message_id = ?1)) AND root IN (?1, (SELECT"
			       " root FROM list_thread WHERE mid_key = text_key(?1) AND message_id = ?1)))"
			       " WHERE message_id != ?2 AND message_id NOT IN (SELECT message_id FROM"
			       " reg_mail WHERE regression = ?3 AND kind IN ('thread', 'patch'))"
			       " GROUP BY message_id"
			       " ORDER BY min(date), message_id", err)))
		return s;
	sqlite3_bind_text(st, 1, report, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, self ? self : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, id);
	while (!s && sqlite3_step(st) == SQLITE_ROW) {
		const char *msgid = (const char *)sqlite3_column_text(st, 0);
		const char *from = (const char *)sqlite3_column_text(st, 1);
		long long date = sqlite3_column_int64(st, 2);

		if ((s = add_mail(t, id, msgid, "thread", err)))
			break;
		/* (the time it was made is no activity: the first mail's date
		 * replaces it) */
		s = exec_bind(t, err, "recording activity",
			      "UPDATE reg_regression SET activity_count = activity_count + 1,"
			      " last_activity = CASE WHEN activity_count = 0 OR ?1 >= last_activity"
			      " THEN ?1 ELSE last_activity END,"
			      " last_activity_by = CASE WHEN activity_count = 0 OR ?1 >= last_activity"
			      " THEN ?2 ELSE last_activity_by END,"
			      " last_activity_msgid = CASE WHEN activity_count = 0 OR ?1 >= last_activity"
			      " THEN ?3 ELSE last_activity_msgid END WHERE id = ?4", "itti", date,
			      from ? from : "", msgid, id);
	}
	store_cached_done(t->db, st);
	return s;
}

/* When the mail msgid was sent, and by whom, if the tracker read it (a
 * list mail of list_thread, a mail matched to a bug): 1, else 0. */
static int mail_read(struct tracker *t, const char *msgid, time_t *when, char **who)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	*who = NULL;
	if (!msgid || !*msgid || thread_write(t, NULL) ||
	    store_cached(t->db, &st, "SELECT date, from_who FROM list_thread WHERE mid_key ="
			 " text_key(?1) AND message_id = ?1 UNION ALL SELECT date, from_addr FROM in_mail"
			 " WHERE message_id = ?1 LIMIT 1", NULL))
		return 0;
	sqlite3_bind_text(st, 1, msgid, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0 &&
	    (*who = strdup(sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1)
						     : ""))) {
		*when = (time_t)sqlite3_column_int64(st, 0);
		found = 1;
	}
	store_cached_done(t->db, st);
	return found;
}

/* Whether msgid is m itself or one of the mails it answers. */
static int in_thread_of(const struct inmail *m, const char *msgid)
{
	if (!msgid)
		return 0;
	if ((m->message_id && !strcmp(m->message_id, msgid)) ||
	    (m->in_reply_to && !strcmp(m->in_reply_to, msgid)))
		return 1;
	for (size_t k = 0; k < m->nreferences; k++)
		if (!strcmp(m->references[k], msgid))
			return 1;
	return 0;
}

/* introduced / ^introduced: a regression for the report this names, made
 * when it is new.  Its "reported" time, its reporter and its first
 * activity are the report mail's when the tracker read that mail (the
 * mail itself, or for ^introduced its parent), else this mail's time.
 * who is this mail's sender: when counts, this mail is activity for a
 * regression it was no activity for yet, if it is in the report's thread
 * (the report, or a mail answering it). */
static enum bb_status apply_introduced(struct tracker *t, const struct inmail *m,
				       const struct reg_directive *d, time_t when, int counts,
				       const char *who, long long *ids, size_t *n,
				       struct bb_error *err)
{
	const char *report = m->message_id, *elsewhere = NULL;
	char *url_msgid = NULL, *branch = NULL, *reporter = NULL, *link = NULL;
	time_t reported = when;
	long long bug = 0, id = 0;
	struct buf title = BUF_INIT;
	enum bb_status s = BB_OK;
	size_t k;

	if (d->anchor == '^' || d->verb == REG_INTRODUCED_PARENT)
		report = d->ancestor == 2 ? grandparent_id(m) : inmail_parent_id(m);
	else if (d->anchor == '/' || d->anchor == '~')
		report = m->nreferences ? m->references[0] : m->in_reply_to ? m->in_reply_to
									      : m->message_id;
	else if (d->url && (url_msgid = reg_link_message_id(d->url)))
		report = url_msgid;
	else if (d->url && (bug = reg_link_bugzilla_id(d->url, t->bugzilla_url)) > 0)
		report = NULL;
	else if (d->url)
		report = NULL, elsewhere = d->url;   /* another tracker: GitHub, a Bugzilla */
	if (!report && !bug && !elsewhere) {
		s = unhandled(t, m, when, d->text, "no report to attach the regression to", err);
		goto out;
	}
	if (report) {
		long long found[1];

		if (regressions_of(t, report, found, 0, 1))
			id = found[0];
	} else if (bug) {
		id = reg_regression_of_bug(t->db, bug);
	} else {
		id = regression_of_report_url(t, elsewhere);
	}
	branch = branch_of(t, d->commit_from, d->commit_to);
	if (!id) {
		buf_addstr(&title, inmail_bare_subject(m->subject));
		if (report == m->message_id)
			reporter = person(m->from_name, m->from_addr);
		else if (report && !mail_read(t, report, &reported, &reporter))
			reported = when;
		link = report ? report_link(t, report)
			      : bug ? str_printf("%s/show_bug.cgi?id=%lld",
						 t->bugzilla_url ? t->bugzilla_url : "", bug)
				    : strdup(elsewhere);
		if ((s = create(t, reported, title.data ? title.data : "", branch,
				report ? report : "", link, bug, reporter ? reporter : "", &id, err)))
			goto out;
		if ((s = add_event(t, id, reported, "reported", title.data ? title.data : "",
				   m->message_id, err)) ||
		    (report && (s = earlier_mails(t, id, report, m->message_id, err))))
			goto out;
	}
	/* this mail and its thread's root belong to it from now on */
	if ((s = add_mail(t, id, m->message_id, "thread", err)) ||
	    (m->nreferences && (s = add_mail(t, id, m->references[0], "thread", err))))
		goto out;
	/* the culprit without the report's pointer ("v5.18..v5.19", not
	 * "v5.18..v5.19 https://...", nor "1234abcd /") */
	culprits_forget(t);
	if ((s = exec_bind(t, err, "updating a regression",
			   "UPDATE reg_regression SET introduced = ?, branch = ?, culprit = ?"
			   " WHERE id = ?", "ttti", d->introduced ? d->introduced : d->arg, branch,
			   d->commit_from && !d->commit_to && !d->range_open ? d->commit_from : "",
			   id)) ||
	    (s = add_event(t, id, when, "introduced", d->introduced ? d->introduced : d->arg,
			   m->message_id, err)))
		goto out;
	/* "^" (or "/") names the report, so a URL beside it is another report
	 * of the same regression, as regzbot reads it (and logs it) */
	if (d->anchor && d->url &&
	    ((s = add_duplicate_report(t, id, d->url, err)) ||
	     (s = add_event(t, id, when, reg_verb_str(REG_DUP), d->url, m->message_id, err))))
		goto out;
	for (k = 0; k < *n && ids[k] != id; k++)
		;
	if (k == *n && *n < 16) {
		ids[(*n)++] = id;
		if (counts && report && in_thread_of(m, report) &&
		    (s = activity_note(t, id, when, who ? who : "", m->message_id, err)))
			goto out;
	}
out:
	buf_release(&title);
	free(url_msgid);
	free(branch);
	free(reporter);
	free(link);
	return s;
}

static enum bb_status apply_one(struct tracker *t, const struct inmail *m,
				const struct reg_directive *d, long long id, time_t when,
				struct bb_error *err)
{
	const char *mid = m->message_id;
	enum bb_status s = BB_OK;

	switch (d->verb) {
	case REG_TITLE:
		s = set_text(t, id, "title", d->arg, err);
		break;
	case REG_FROM:
		s = set_text(t, id, "reporter", d->arg, err);
		break;
	case REG_LINK:
	case REG_MONITOR: {
		const char *url = d->url ? d->url : d->arg;
		const char *rest = d->arg;
		char *msgid;

		if (d->url && !strncmp(rest, d->url, strlen(d->url)))
			rest += strlen(d->url);
		while (*rest == ' ')
			rest++;
		s = exec_bind(t, err, "recording a link",
			      "INSERT INTO reg_link (regression, url, title, kind) VALUES (?, ?, ?, ?)"
			      " ON CONFLICT (regression, url) DO UPDATE SET title = excluded.title,"
			      " kind = excluded.kind", "ittt", id, url, rest,
			      d->verb == REG_MONITOR ? "monitor" : "link");
		/* the monitored thread's mails read so far count, as regzbot
		 * reads it whole */
		if (!s && d->verb == REG_MONITOR && (msgid = reg_link_message_id(url))) {
			s = monitor_thread(t, id, msgid, mid, err);
			free(msgid);
		}
		break;
	}
	case REG_UNLINK: {
		const char *url = d->url ? d->url : d->arg;
		char *msgid = reg_link_message_id(url);

		s = exec_bind(t, err, "removing a link",
			      "DELETE FROM reg_link WHERE regression = ? AND url = ?", "it", id, url);
		if (!s && msgid)
			s = exec_bind(t, err, "removing a link", "DELETE FROM reg_mail WHERE"
				      " regression = ? AND message_id = ? AND kind = 'monitor'", "it",
				      id, msgid);
		free(msgid);
		break;
	}
	case REG_DUP:
		s = add_duplicate_report(t, id, d->url, err);
		break;
	case REG_FIX:
		if ((s = set_text(t, id, "fix_commit", d->fix_commit ? d->fix_commit : "", err)) ||
		    (s = set_text(t, id, "fix_subject", d->fix_subject ? d->fix_subject : "", err)))
			break;
		s = exec_bind(t, err, "updating a regression", "UPDATE reg_regression SET state ="
			      " 'fix-incoming' WHERE id = ? AND state = 'open'", "i", id);
		break;
	case REG_RESOLVE:
	case REG_INCONCLUSIVE:
		if (!(s = set_text(t, id, "state", d->verb == REG_RESOLVE ? "resolved" : "inconclusive",
				   err)))
			s = set_text(t, id, "resolution", d->arg, err);
		break;
	case REG_BACKBURNER:
		if (!(s = set_int(t, id, "backburner", 1, err)))
			s = set_text(t, id, "resolution", d->arg, err);
		break;
	case REG_UNBACKBURNER:
		s = set_int(t, id, "backburner", 0, err);
		break;
	case REG_POKE:
		s = set_int(t, id, "poked", (long long)when, err);
		break;
	case REG_IGNORE_ACTIVITY:
		/* only about the mail that carries it: see no_activity() */
		return BB_OK;
	case REG_NOTE:
	default:
		break;
	}
	if (!s)
		s = add_event(t, id, when, reg_verb_str(d->verb), d->arg, mid, err);
	return s;
}

/* The bug a regression was filed as (0: none). */
static long long bug_of_regression(struct tracker *t, long long id)
{
	sqlite3_stmt *st = NULL;
	long long bug = 0;

	if (store_cached(t->db, &st, "SELECT bug_id FROM reg_regression WHERE id = ?", NULL))
		return 0;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		bug = sqlite3_column_int64(st, 0);
	store_cached_done(t->db, st);
	return bug > 0 ? bug : 0;
}

/* The Fixes: lines of a patch (not a reply) posted for bug. */
static enum bb_status patch_culprits(struct tracker *t, long long bug, const struct inmail *m,
				     const char *body, struct bb_error *err)
{
	char *source;
	enum bb_status s;

	if (bug <= 0)
		return BB_OK;
	if (!(source = str_printf("patch <%s>", m->message_id)))
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	s = bug_notes_fixes_lines(t->db, bug, body, source, err);
	free(source);
	return s;
}

/* A patch (not a reply) whose Fixes: lines name the culprit of a
 * regression leaves a note in its history, as a commit in a watched tree
 * does ("fixes-culprit"), once per regression and mail, unless the patch
 * is the regression's already (it links the report: patch_posted()).
 * It is no activity: it may fix another bug of the same commit. */
static enum bb_status patch_fixes_culprit(struct tracker *t, const struct inmail *m,
					  const char *body, time_t when, struct bb_error *err)
{
	enum bb_status s = BB_OK;
	char *link = NULL;
	const char *pos = body, *end = body + strlen(body), *p;
	size_t len;

	while (!s && reg_next_line(&pos, end, &p, &len)) {
		sqlite3_stmt *st = NULL;
		char culprit[41], value[128];
		long long hit[16];
		size_t nhit = 0, vlen;

		if (len < 6 || (p[0] | 0x20) != 'f' || g_ascii_strncasecmp(p, "Fixes:", 6) ||
		    !reg_fixes_hash(p + 6, culprit))
			continue;
		vlen = len - 6 < sizeof(value) - 1 ? len - 6 : sizeof(value) - 1;
		memcpy(value, p + 6, vlen);
		value[vlen] = '\0';
		g_strstrip(value);
		if ((s = store_cached(t->db, &st, "SELECT id FROM reg_regression r WHERE culprit != ''"
				      " AND (substr(culprit, 1, length(?1)) = ?1 OR"
				      " substr(?1, 1, length(culprit)) = culprit) AND NOT EXISTS"
				      " (SELECT 1 FROM reg_event e WHERE e.regression = r.id AND"
				      " e.message_id = ?2)", err)))
			break;
		sqlite3_bind_text(st, 1, culprit, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, m->message_id, -1, SQLITE_STATIC);
		while (nhit < 16 && sqlite3_step(st) == SQLITE_ROW)
			hit[nhit++] = sqlite3_column_int64(st, 0);
		store_cached_done(t->db, st);
		if (nhit && !link && !(link = report_link(t, m->message_id))) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			break;
		}
		for (size_t k = 0; k < nhit && !s; k++) {
			char *note = str_printf("\"%s\" on the list (%s) says Fixes: %s",
						inmail_bare_subject(m->subject), link, value);

			s = note ? add_event(t, hit[k], when, "fixes-culprit", note, m->message_id, err)
				 : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			free(note);
		}
	}
	free(link);
	return s;
}

/* A patch posted for a regression: its Link:/Closes: lines name a mail of
 * the regression's thread, its bug, its report on another tracker or one
 * of its duplicate reports (regressions_of_page()).  The patch mail joins
 * the regression's mails, so its replies are the regression's activity
 * and the commit that carries a link to the patch (as b4 adds) is found
 * as its fix too; when counts, it is activity itself for the regressions
 * it was not yet (thread[nthread]: those of its thread, counted). */
static enum bb_status patch_posted(struct tracker *t, const struct inmail *m, const char *body,
				   time_t when, int counts, const char *who,
				   const long long *thread, size_t nthread, struct bb_error *err)
{
	const char *pos = body, *end = body + strlen(body), *p;
	enum bb_status s = BB_OK;
	long long counted[16];
	size_t ncounted = 0, len;
	int reply = is_reply(m);

	while (!s && reg_next_line(&pos, end, &p, &len)) {
		char line[1024];
		long long ids[16], bug = 0;
		size_t n = 0;

		/* (the first letter first: most lines start with neither) */
		if (len >= 5 && len < sizeof(line) &&
		    ((p[0] | 0x20) == 'c' ? !strncasecmp(p, "Closes:", 7)
					  : (p[0] | 0x20) == 'l' && !strncasecmp(p, "Link:", 5))) {
			const char *v = p + (p[0] == 'C' || p[0] == 'c' ? 7 : 5);
			char *msgid;
			long long id;

			reg_trailer_url(v, len - (size_t)(v - p), line, sizeof(line));
			if ((msgid = reg_link_message_id(line))) {
				n = regressions_of(t, msgid, ids, 0, 16);
				free(msgid);
			} else if ((bug = reg_link_bugzilla_id(line, t->bugzilla_url)) > 0 &&
				   (id = reg_regression_of_bug(t->db, bug))) {
				ids[n++] = id;
			} else if ((n = regressions_of_page(t, line, ids, 0, 16)) > 0) {
				bug = 0;
			} else if ((bug = reg_bug_of_value(t->bugzilla_url, line)) > 0) {
				s = bug_notes_patch(&t->notes, m, bug, err);
			}
			/* a patch's Fixes: names the cause of the bugs it is for */
			for (size_t i = 0; i < n && !s && !reply; i++)
				s = patch_culprits(t, bug_of_regression(t, ids[i]), m, body, err);
			if (!s && !reply && bug > 0)
				s = patch_culprits(t, bug, m, body, err);
			for (size_t i = 0; i < n && !s; i++) {
				size_t k;

				if ((s = add_mail(t, ids[i], m->message_id, "patch", err)) ||
				    (s = add_event(t, ids[i], when, "patch",
						   inmail_bare_subject(m->subject), m->message_id,
						   err)))
					break;
				for (k = 0; k < nthread && thread[k] != ids[i]; k++)
					;
				if (k < nthread || !counts)
					continue;
				for (k = 0; k < ncounted && counted[k] != ids[i]; k++)
					;
				if (k < ncounted || ncounted == 16)
					continue;
				counted[ncounted++] = ids[i];
				s = activity_note(t, ids[i], when, who ? who : "", m->message_id, err);
			}
		}
	}
	if (!s && !reply)
		s = patch_fixes_culprit(t, m, body, when, err);
	return s;
}

/* Whether a mail is no activity for its regressions, as regzbot has it:
 * it carries "#regzbot ignore-activity", "poke" or "^backmonitor", or its
 * subject "#forregzbot" (a mail meant for the tracker alone), or bugbridge
 * sent it (regzbot skips its own reports), or it is an automatic reply
 * (which list_thread does not keep either).  Only that mail: the replies
 * after it count as ever. */
static int no_activity(const struct inmail *m, const struct reg_directive *d, size_t n)
{
	if (m->from_bridge || m->auto_reply)
		return 1;
	if (m->subject && strcasestr(m->subject, "#forregzbot"))
		return 1;
	for (size_t i = 0; i < n; i++)
		if (!d[i].error && (d[i].verb == REG_IGNORE_ACTIVITY || d[i].verb == REG_POKE ||
				    d[i].verb == REG_BACKMONITOR))
			return 1;
	return 0;
}

enum bb_status tracker_mail(struct tracker *t, const struct inmail *m, const char *body,
			    const char *unverified, struct bb_error *err)
{
	struct reg_directive *d = NULL;
	long long ids[16];
	size_t n = 0, nd = 0, nthread;
	time_t when = 0;
	enum bb_status s = BB_OK;
	char *who = NULL;
	int counts;
	uint64_t print;   /* (the Message-ID hashed once for the sets and tables) */

	if (!m->message_id || already_seen(t, m->message_id, print = store_key_print(m->message_id)))
		return BB_OK;
	if ((when = inmail_date(m)) <= 0)
		when = time(NULL);
	if ((s = remember_thread(t, m, print, when, err)))
		return s;
	/* the thread: a mail answering a regression's mail is part of it
	 * (the References' last is In-Reply-To, mostly: not asked twice) */
	n = regressions_of(t, m->in_reply_to, ids, n, 16);
	for (size_t i = m->nreferences; i-- > 0 && n < 16;)
		if (!m->in_reply_to || strcmp(m->references[i], m->in_reply_to))
			n = regressions_of(t, m->references[i], ids, n, 16);
	if (!n && !body)
		return BB_OK;   /* neither in a tracked thread nor carrying directives */
	/* the directives first: some say that this mail is no activity */
	if (body && (s = reg_directives_parse(body, &d, &nd, err)))
		return s;
	counts = !no_activity(m, d, nd);
	who = person(m->from_name, m->from_addr);
	for (size_t i = 0; i < n && !s; i++) {
		if ((s = add_mail(t, ids[i], m->message_id, "thread", err)) || !counts)
			continue;
		s = activity_note(t, ids[i], when, who ? who : "", m->message_id, err);
	}
	nthread = n;
	if (s || !body)
		goto out;
	if (is_patch(m) && (s = patch_posted(t, m, body, when, counts, who, ids, nthread, err)))
		goto out;
	if (!is_patch(m) && (s = bug_notes_mentions(&t->notes, m, thread_root(m), body, err)))
		goto out;
	/* what the directives do is marked with why their sender is not
	 * authenticated (they stay open to anyone, as in regzbot) */
	t->unverified = unverified && *unverified ? unverified : NULL;
	for (size_t i = 0; i < nd && !s; i++) {
		const struct reg_directive *dir = &d[i];

		if (dir->error || dir->verb == REG_UNKNOWN) {
			s = unhandled(t, m, when, dir->text,
				      dir->error ? dir->error : "unknown directive", err);
			continue;
		}
		if (dir->verb == REG_INTRODUCED || dir->verb == REG_INTRODUCED_PARENT) {
			s = apply_introduced(t, m, dir, when, counts, who, ids, &n, err);
			continue;
		}
		if (dir->verb == REG_BACKMONITOR) {
			s = apply_backmonitor(t, m, dir, when, err);
			continue;
		}
		/* dup-of anywhere, dup where no regression is tracked yet: this
		 * thread's report is the duplicate */
		if (dir->verb == REG_DUP_OF || (dir->verb == REG_DUP && !n)) {
			s = apply_dup_of(t, m, dir, ids, n, when, err);
			continue;
		}
		if (!n) {
			s = unhandled(t, m, when, dir->text, "not in the thread of a tracked regression",
				      err);
			continue;
		}
		for (size_t k = 0; k < n && !s; k++)
			s = apply_one(t, m, dir, ids[k], when, err);
	}
	t->unverified = NULL;
out:
	free(who);
	reg_directives_free(d, nd);
	return s;
}

/* ----------------------------------------------------------------- bugs */

static int flagged(struct tracker *t, const struct bz_bug *bug)
{
	const char *v = t->regression_field ? bz_bug_field(bug, t->regression_field) : NULL;

	if (v && (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1")))
		return 1;
	for (size_t i = 0; t->regression_keyword && bug->keywords && bug->keywords[i]; i++)
		if (!strcasecmp(bug->keywords[i], t->regression_keyword))
			return 1;
	return 0;
}

enum bb_status tracker_bug(struct tracker *t, const struct bz_bug *bug, const char *thread_msgid,
			   struct bb_error *err)
{
	long long id = reg_regression_of_bug(t->db, bug->id);
	const char *bisect = t->bisect_field ? bz_bug_field(bug, t->bisect_field) : NULL;
	time_t when = bug->last_change_time > 0 ? bug->last_change_time : time(NULL);
	int closed = !strcmp(bug->status, "RESOLVED") || !strcmp(bug->status, "VERIFIED") ||
		     !strcmp(bug->status, "CLOSED");
	enum bb_status s = BB_OK;

	if (!id && (!flagged(t, bug) || closed))
		return BB_OK;
	if (!id) {
		char *url = str_printf("%s/show_bug.cgi?id=%lld", t->bugzilla_url ? t->bugzilla_url : "",
				       bug->id);
		char *who = person(bug->creator.real_name, bug->creator.login);

		s = create(t, bug->creation_time > 0 ? bug->creation_time : when, bug->summary,
			   t->default_branch, "", url ? url : "", bug->id, who ? who : "", &id, err);
		if (!s)
			s = add_event(t, id, bug->creation_time > 0 ? bug->creation_time : when,
				      "reported", bug->summary, "", err);
		free(url);
		free(who);
		if (s)
			return s;
	}
	/* the bug's list thread: replies are activity, trailers may point at it */
	if (thread_msgid && (s = add_mail(t, id, thread_msgid, "thread", err)))
		return s;
	if ((s = set_text(t, id, "title", bug->summary, err)))
		return s;
	if (bisect && *bisect && strcmp(bisect, "---")) {
		sqlite3_stmt *st = NULL;
		int known = 0;

		if (!store_prepare(t->db, &st, "SELECT 1 FROM reg_regression WHERE id = ? AND"
					       " culprit = ?", NULL)) {
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_text(st, 2, bisect, -1, SQLITE_STATIC);
			known = sqlite3_step(st) == SQLITE_ROW;
			sqlite3_finalize(st);
		}
		if (!known && ((s = set_text(t, id, "culprit", bisect, err)) ||
			       (s = set_text(t, id, "introduced", bisect, err)) ||
			       (s = add_event(t, id, when, "introduced", bisect, "", err))))
			return s;
	}
	if (closed)
		s = exec_bind(t, err, "updating a regression",
			      "UPDATE reg_regression SET state = 'resolved', resolution = ? WHERE"
			      " id = ? AND state IN ('open', 'fix-incoming')", "ti",
			      bug->resolution, id);
	return s;
}

/* ------------------------------------------------------------- commits */

/* Regressions a commit's Link:/Closes: trailers (a mail of the thread,
 * the bug, the report on another tracker or a duplicate report, as
 * regzbot's tree scan finds them by URL) or a fix directive name. */
static size_t regressions_of_commit(struct tracker *t, const struct gitscan_commit *c,
				    long long *ids, size_t max)
{
	sqlite3_stmt *st = NULL;
	size_t n = 0;

	for (size_t i = 0; i < c->n_trailers && n < max; i++) {
		const struct gitscan_trailer *tr = &c->trailers[i];
		char *msgid;
		long long bug, id;

		if (tr->kind != GITSCAN_TRAILER_LINK && tr->kind != GITSCAN_TRAILER_CLOSES)
			continue;
		if ((msgid = reg_link_message_id(tr->value))) {
			n = regressions_of(t, msgid, ids, n, max);
			free(msgid);
		} else if ((bug = reg_link_bugzilla_id(tr->value, t->bugzilla_url)) > 0 &&
			   (id = reg_regression_of_bug(t->db, bug))) {
			size_t k;

			for (k = 0; k < n && ids[k] != id; k++)
				;
			if (k == n)
				ids[n++] = id;
		} else {
			char url[REG_LINK_URL_MAX + 1];
			size_t len = strcspn(tr->value, " \t");

			if (len && len <= REG_LINK_URL_MAX) {
				memcpy(url, tr->value, len);
				url[len] = '\0';
				n = regressions_of_page(t, url, ids, n, max);
			}
		}
	}
	/* a fix directive named it by hash (8+ digits, a prefix) or subject */
	if (!store_prepare(t->db, &st, "SELECT id FROM reg_regression WHERE (fix_commit != '' AND"
				       " (substr(?1, 1, length(fix_commit)) = fix_commit OR"
				       " substr(?2, 1, length(fix_commit)) = fix_commit)) OR"
				       " (fix_subject != '' AND fix_subject = ?3)", NULL)) {
		sqlite3_bind_text(st, 1, c->hash, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, c->upstream ? c->upstream : "-", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, c->subject, -1, SQLITE_STATIC);
		while (n < max && sqlite3_step(st) == SQLITE_ROW) {
			long long id = sqlite3_column_int64(st, 0);
			size_t k;

			for (k = 0; k < n && ids[k] != id; k++)
				;
			if (k == n)
				ids[n++] = id;
		}
		sqlite3_finalize(st);
	}
	return n;
}

/* The note a fixed regression's Bugzilla bug gets: recorded here, posted
 * by tracker_push(). */
static enum bb_status queue_fixed_note(struct tracker *t, const struct reg_regression *r,
				       const char *tree, const struct gitscan_commit *c,
				       struct bb_error *err)
{
	char *marker = str_printf("[bugbridge regression %lld: fixed by %.12s]", r->id, c->hash);
	char *text = str_printf("The regression tracker saw the fix land in %s:\n\n"
				"  %.12s (\"%s\")\n\n%s\n", tree, c->hash, c->subject,
				marker ? marker : "");
	enum bb_status s;

	if (!marker || !text)
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	else
		s = exec_bind(t, err, "recording a note for Bugzilla",
			      "INSERT OR IGNORE INTO reg_push (regression, bug_id, marker, text, created)"
			      " VALUES (?, ?, ?, ?, ?)", "iitti", r->id, r->bug_id, marker, text,
			      (long long)time(NULL));
	free(marker);
	free(text);
	return s;
}

/* tracker_commit(); close: tree is one where fixes close ordinary bugs. */
static enum bb_status commit_in_tree(struct tracker *t, const char *tree, int close,
				     int (*upstream_of)(void *ctx, const char *tree,
							const char *branch),
				     void *ctx, const struct gitscan_commit *c, struct bb_error *err)
{
	long long ids[16];
	size_t n = regressions_of_commit(t, c, ids, 16);
	time_t now = time(NULL);
	enum bb_status s;

	/* (the regressions are read whole: their activity too) */
	if ((s = activity_write(t, err)))
		return s;
	for (size_t i = 0; i < n && !s; i++) {
		struct reg_regression r;
		char *text;

		if (reg_load_one(t->db, ids[i], now, t->stale_after, &r, NULL, NULL, NULL, NULL,
				 NULL))
			continue;
		if (r.state == REG_STATE_RESOLVED || r.state == REG_STATE_INCONCLUSIVE ||
		    r.state == REG_STATE_DUPLICATE || r.state == REG_STATE_FIXED) {
			reg_regression_release(&r);
			continue;
		}
		text = str_printf("%.12s (\"%s\") in %s", c->hash, c->subject, tree);
		s = exec_bind(t, err, "recording a fix", "INSERT OR IGNORE INTO reg_fix (regression,"
			      " tree, commit_hash, subject, time) VALUES (?, ?, ?, ?, ?)", "ittti",
			      ids[i], tree, c->hash, c->subject, (long long)now);
		if (!s && !strcmp(tree, r.branch)) {
			if (!(s = set_text(t, ids[i], "state", "fixed", err)) &&
			    !(s = set_text(t, ids[i], "fix_commit", c->hash, err)) &&
			    !(s = set_text(t, ids[i], "fix_subject", c->subject, err)) &&
			    !(s = set_text(t, ids[i], "fix_tree", tree, err)))
				s = add_event(t, ids[i], now, "fixed", text ? text : "", "", err);
			if (!s && r.bug_id > 0)
				s = queue_fixed_note(t, &r, tree, c, err);
			log_event(LOG_LEVEL_INFO, "tracker.fixed", LF_INT("id", ids[i]),
				  LF_STR("tree", tree), LF_STR("commit", c->hash));
		} else if (!s && upstream_of && upstream_of(ctx, tree, r.branch) &&
			   r.state == REG_STATE_OPEN) {
			if (!(s = set_text(t, ids[i], "state", "fix-incoming", err)) &&
			    !(s = set_text(t, ids[i], "fix_commit", c->hash, err)) &&
			    !(s = set_text(t, ids[i], "fix_subject", c->subject, err)) &&
			    !(s = set_text(t, ids[i], "fix_tree", tree, err)))
				s = add_event(t, ids[i], now, "fix-incoming", text ? text : "", "", err);
		}
		free(text);
		reg_regression_release(&r);
	}
	/* Fixes: <culprit> becomes a note on the regressions it caused */
	for (size_t i = 0; i < c->n_trailers && !s; i++) {
		const struct gitscan_trailer *tr = &c->trailers[i];
		sqlite3_stmt *st = NULL;
		char culprit[41];
		long long hit[16];
		size_t nhit = 0;

		if (tr->kind != GITSCAN_TRAILER_FIXES || !reg_fixes_hash(tr->value, culprit))
			continue;
		if (store_prepare(t->db, &st, "SELECT id FROM reg_regression WHERE culprit != '' AND"
					      " (substr(culprit, 1, length(?1)) = ?1 OR"
					      " substr(?1, 1, length(culprit)) = culprit)", NULL))
			continue;
		sqlite3_bind_text(st, 1, culprit, -1, SQLITE_STATIC);
		while (nhit < 16 && sqlite3_step(st) == SQLITE_ROW)
			hit[nhit++] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		for (size_t k = 0; k < nhit && !s; k++) {
			char *note = str_printf("%.12s (\"%s\") in %s says Fixes: %s", c->hash,
						c->subject, tree, tr->value);

			s = add_event(t, hit[k], now, "fixes-culprit", note ? note : "", "", err);
			free(note);
		}
	}
	if (!s)
		s = bug_notes_commit(&t->notes, tree, close, c, err);
	return s;
}

enum bb_status tracker_commit(struct tracker *t, const char *tree,
			      int (*upstream_of)(void *ctx, const char *tree, const char *branch),
			      void *ctx, const struct gitscan_commit *c, struct bb_error *err)
{
	return commit_in_tree(t, tree, listed(t->close_on_fix, tree), upstream_of, ctx, c, err);
}

enum bb_status tracker_commit_in(struct tracker *t, const char *tree, int close,
				 int (*upstream_of)(void *ctx, const char *tree, const char *branch),
				 void *ctx, const struct gitscan_commit *c, struct bb_error *err)
{
	return commit_in_tree(t, tree, close, upstream_of, ctx, c, err);
}

struct store *tracker_store(const struct tracker *t)
{
	return t->db;
}

const char *tracker_default_branch(const struct tracker *t)
{
	return t->default_branch;
}

int tracker_bug_is_regression(struct tracker *t, const struct bz_bug *bug)
{
	return reg_regression_of_bug(t->db, bug->id) != 0 || flagged(t, bug);
}

/* Adds culprit to v (n of at most max) unless one there names the same
 * commit (one a prefix of the other). */
static void culprit_add(char **v, size_t *n, size_t max, const char *culprit)
{
	size_t len = strlen(culprit);

	if (!len || *n >= max || !strcmp(culprit, "---"))
		return;
	for (size_t i = 0; i < *n; i++) {
		size_t l = strlen(v[i]);

		if (!strncasecmp(v[i], culprit, l < len ? l : len))
			return;
	}
	if ((v[*n] = strdup(culprit)))
		(*n)++;
}

char **tracker_bug_culprits(struct tracker *t, const struct bz_bug *bug)
{
	long long id = reg_regression_of_bug(t->db, bug->id);
	const char *bisect = t->bisect_field ? bz_bug_field(bug, t->bisect_field) : NULL;
	const size_t max = BUG_CULPRITS_MAX + 2;
	sqlite3_stmt *st = NULL;
	char **v = calloc(max + 1, sizeof(char *));
	size_t n = 0;

	if (!v)
		return NULL;
	if (id && !store_cached(t->db, &st, "SELECT culprit FROM reg_regression WHERE id = ?",
				NULL)) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			culprit_add(v, &n, max, (const char *)sqlite3_column_text(st, 0));
		store_cached_done(t->db, st);
	}
	if (bisect)
		culprit_add(v, &n, max, bisect);
	if (!store_cached(t->db, &st, "SELECT commit_hash FROM bug_culprit WHERE bug_id = ?"
				      " ORDER BY added, rowid", NULL)) {
		sqlite3_bind_int64(st, 1, bug->id);
		while (sqlite3_step(st) == SQLITE_ROW)
			culprit_add(v, &n, max, (const char *)sqlite3_column_text(st, 0));
		store_cached_done(t->db, st);
	}
	if (!n) {
		free(v);
		return NULL;
	}
	return v;
}
