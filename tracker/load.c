/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading the tracker's state: regressions, their links, history and the
 * directives not acted on, from the store into the structures of
 * tracker.h, for the reports, the web pages and the command line.  The
 * writing side is tracker.c. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/text.h"
#include "tracker/tracker.h"

static const char *const state_names[] = {
	"open", "fix-incoming", "fixed", "resolved", "inconclusive", "duplicate",
};

const char *reg_state_str(enum reg_state st)
{
	return (unsigned)st < sizeof(state_names) / sizeof(state_names[0]) ? state_names[st]
									    : "open";
}

enum reg_state reg_state_parse(const char *text)
{
	for (size_t i = 0; text && i < sizeof(state_names) / sizeof(state_names[0]); i++)
		if (!strcmp(text, state_names[i]))
			return (enum reg_state)i;
	return REG_STATE_OPEN;
}

static char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return strdup(t ? (const char *)t : "");
}

/* ------------------------------------------------------------- loading */

/* How to read one kind of row (a regression, link, event, unhandled
 * directive) into an element of an array, so that one loop, load_rows(),
 * serves every kind and the kinds differ only in their columns. */
struct row_kind {
	size_t size;		/* of one element */
	/* Fills elem from the row's first columns; 0 when out of memory, with
	 * every string of elem set (maybe NULL) so that release() can run. */
	int (*read)(sqlite3_stmt *st, void *elem);
	void (*release)(void *elem);
	int id_column;		/* the row's regression, for callers that ask for ids */
	const char *what;	/* names the query in errors */
};

#define REG_COLUMNS \
	"id, title, state, branch, introduced, culprit, report_msgid, report_url, bug_id," \
	" reporter, dup_of, fix_commit, fix_subject, fix_tree, resolution, backburner," \
	" ignore_activity, poked, created, updated, last_activity, activity_count," \
	" last_activity_by, last_activity_msgid"

static int regression_from_row(sqlite3_stmt *st, void *elem)
{
	struct reg_regression *r = elem;
	char *state;

	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	r->title = col(st, 1);
	state = col(st, 2);
	r->state = reg_state_parse(state);
	free(state);
	r->branch = col(st, 3);
	r->introduced = col(st, 4);
	r->culprit = col(st, 5);
	r->report_msgid = col(st, 6);
	r->report_url = col(st, 7);
	r->bug_id = sqlite3_column_int64(st, 8);
	r->reporter = col(st, 9);
	r->dup_of = sqlite3_column_int64(st, 10);
	r->fix_commit = col(st, 11);
	r->fix_subject = col(st, 12);
	r->fix_tree = col(st, 13);
	r->resolution = col(st, 14);
	r->backburner = sqlite3_column_int(st, 15);
	r->ignore_activity = sqlite3_column_int(st, 16);
	r->poked = (time_t)sqlite3_column_int64(st, 17);
	r->created = (time_t)sqlite3_column_int64(st, 18);
	r->updated = (time_t)sqlite3_column_int64(st, 19);
	r->last_activity = (time_t)sqlite3_column_int64(st, 20);
	r->activity_count = sqlite3_column_int64(st, 21);
	r->last_activity_by = col(st, 22);
	r->last_activity_msgid = col(st, 23);
	return r->title && r->branch && r->introduced && r->culprit && r->report_msgid &&
	       r->report_url && r->reporter && r->fix_commit && r->fix_subject && r->fix_tree &&
	       r->resolution && r->last_activity_by && r->last_activity_msgid;
}

/* Staleness depends on the caller's clock, not on the row, so it is set
 * after reading. */
static void regression_set_stale(struct reg_regression *r, time_t now, long long stale_after)
{
	if (stale_after <= 0)
		stale_after = 90LL * 24 * 3600;
	r->stale = (r->state == REG_STATE_OPEN || r->state == REG_STATE_FIX_INCOMING) &&
		   (long long)(now - r->last_activity) > stale_after;
}

static void hide_address(char **person)
{
	char *shown;

	if (!*person)
		return;
	shown = text_person_published(*person, 0);
	free(*person);
	*person = shown ? shown : strdup("");
}

void reg_regression_hide_addresses(struct reg_regression *r)
{
	hide_address(&r->reporter);
	hide_address(&r->last_activity_by);
}

void reg_event_hide_addresses(struct reg_event *e)
{
	if (e->kind && !strcmp(e->kind, "from"))
		hide_address(&e->text);
}

void reg_regression_release(struct reg_regression *r)
{
	free(r->title);
	free(r->branch);
	free(r->introduced);
	free(r->culprit);
	free(r->report_msgid);
	free(r->report_url);
	free(r->reporter);
	free(r->fix_commit);
	free(r->fix_subject);
	free(r->fix_tree);
	free(r->resolution);
	free(r->last_activity_by);
	free(r->last_activity_msgid);
	memset(r, 0, sizeof(*r));
}

static void regression_release(void *elem)
{
	reg_regression_release(elem);
}

static int link_from_row(sqlite3_stmt *st, void *elem)
{
	struct reg_link *l = elem;

	l->url = col(st, 0);
	l->title = col(st, 1);
	l->kind = col(st, 2);
	return l->url && l->title && l->kind;
}

static void link_release(void *elem)
{
	struct reg_link *l = elem;

	free(l->url);
	free(l->title);
	free(l->kind);
}

static int event_from_row(sqlite3_stmt *st, void *elem)
{
	struct reg_event *e = elem;

	e->time = (time_t)sqlite3_column_int64(st, 0);
	e->kind = col(st, 1);
	e->text = col(st, 2);
	e->message_id = col(st, 3);
	e->unverified = col(st, 4);
	return e->kind && e->text && e->message_id && e->unverified;
}

static void event_release(void *elem)
{
	struct reg_event *e = elem;

	free(e->kind);
	free(e->text);
	free(e->message_id);
	free(e->unverified);
}

static int unhandled_from_row(sqlite3_stmt *st, void *elem)
{
	struct reg_unhandled *u = elem;

	u->time = (time_t)sqlite3_column_int64(st, 0);
	u->message_id = col(st, 1);
	u->line = col(st, 2);
	u->reason = col(st, 3);
	return u->message_id && u->line && u->reason;
}

static void unhandled_release(void *elem)
{
	struct reg_unhandled *u = elem;

	free(u->message_id);
	free(u->line);
	free(u->reason);
}

/* The SELECTs of each kind list exactly the columns its read() takes, in
 * that order, then the regression when the caller asks for ids. */
static const struct row_kind regression_rows = {
	sizeof(struct reg_regression), regression_from_row, regression_release, -1,
	"reading regressions",
};
static const struct row_kind link_rows = {
	sizeof(struct reg_link), link_from_row, link_release, 3, "reading regression links",
};
static const struct row_kind event_rows = {
	sizeof(struct reg_event), event_from_row, event_release, 5, "reading regression history",
};
static const struct row_kind unhandled_rows = {
	sizeof(struct reg_unhandled), unhandled_from_row, unhandled_release, -1,
	"reading unhandled directives",
};

static void free_rows(const struct row_kind *kind, void *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++)
		kind->release((char *)rows + i * kind->size);
	free(rows);
}

/* Grows *arr (elements of size) to hold one more; NULL when out of memory. */
static void *grow(void **arr, size_t *alloc, size_t count, size_t size)
{
	if (count == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 64;
		void *n = na <= SIZE_MAX / size ? realloc(*arr, na * size) : NULL;

		if (!n)
			return NULL;
		*arr = n;
		*alloc = na;
	}
	return (char *)*arr + count * size;
}

/* Runs sql with binds[] as ?1, ?2, ... and reads every row into *rows
 * (malloc'd, NULL when there is none) and, when ids is not NULL, each
 * row's regression into *ids (malloc'd, same order).  Nothing is left to
 * free on error. */
static enum bb_status load_rows(struct store *db, const struct row_kind *kind, const char *sql,
				const long long *binds, size_t nbinds, void **rows, long long **ids,
				size_t *n, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	void *list = NULL, *idlist = NULL;
	size_t count = 0, alloc = 0, idalloc = 0;
	enum bb_status s;
	int rc;

	*rows = NULL;
	if (ids)
		*ids = NULL;
	*n = 0;
	if ((s = store_prepare(db, &st, sql, err)))
		goto out;
	for (size_t i = 0; i < nbinds; i++)
		sqlite3_bind_int64(st, (int)i + 1, binds[i]);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		void *elem = grow(&list, &alloc, count, kind->size);
		long long *id = ids ? grow(&idlist, &idalloc, count, sizeof(*id)) : NULL;

		if (!elem || (ids && !id)) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		if (id)
			*id = sqlite3_column_int64(st, kind->id_column);
		/* counted before it is read, so a half-read element is released too */
		count++;
		if (!kind->read(st, elem)) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	if (rc != SQLITE_DONE)
		s = store_fail(db, err, kind->what);
out:
	sqlite3_finalize(st);
	if (s) {
		free_rows(kind, list, count);
		free(idlist);
		return s;
	}
	*rows = list;
	if (ids)
		*ids = idlist;
	*n = count;
	return BB_OK;
}

enum bb_status reg_load_all(struct store *db, time_t now, long long stale_after,
			    struct reg_regression **out, size_t *n, struct bb_error *err)
{
	void *rows;
	enum bb_status s;

	s = load_rows(db, &regression_rows, "SELECT " REG_COLUMNS " FROM reg_regression"
		      " ORDER BY created DESC, id DESC", NULL, 0, &rows, NULL, n, err);
	*out = rows;
	for (size_t i = 0; i < *n; i++)
		regression_set_stale(&(*out)[i], now, stale_after);
	return s;
}

void reg_links_free(struct reg_link *l, size_t n)
{
	free_rows(&link_rows, l, n);
}

void reg_events_free(struct reg_event *e, size_t n)
{
	free_rows(&event_rows, e, n);
}

void reg_unhandled_free(struct reg_unhandled *u, size_t n)
{
	free_rows(&unhandled_rows, u, n);
}

enum bb_status reg_load_one(struct store *db, long long id, time_t now, long long stale_after,
			    struct reg_regression *r, struct reg_link **links, size_t *nlinks,
			    struct reg_event **events, size_t *nevents, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	void *rows;
	enum bb_status s;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((s = store_prepare(db, &st, "SELECT " REG_COLUMNS " FROM reg_regression WHERE id = ?",
			       err)))
		return s;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return bb_error_set(err, BB_ERR_NOT_FOUND, "no regression %lld", id);
	}
	if (!regression_from_row(st, r)) {
		sqlite3_finalize(st);
		reg_regression_release(r);
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	sqlite3_finalize(st);
	regression_set_stale(r, now, stale_after);
	if (links) {
		s = load_rows(db, &link_rows, "SELECT url, title, kind FROM reg_link"
			      " WHERE regression = ?1 ORDER BY kind, url", &id, 1, &rows, NULL,
			      nlinks, err);
		*links = rows;
		if (s)
			goto fail;
	}
	if (events) {
		const long long binds[] = { id, 100000 };

		s = load_rows(db, &event_rows, "SELECT time, kind, text, message_id, unverified FROM reg_event"
			      " WHERE regression = ?1 ORDER BY time, id LIMIT ?2", binds, 2, &rows,
			      NULL, nevents, err);
		*events = rows;
		if (s)
			goto fail;
	}
	return BB_OK;
fail:
	if (links) {
		reg_links_free(*links, *nlinks);
		*links = NULL;
		*nlinks = 0;
	}
	reg_regression_release(r);
	return s;
}

enum bb_status reg_load_all_links(struct store *db, struct reg_link **links,
				  long long **regressions, size_t *n, struct bb_error *err)
{
	void *rows;
	enum bb_status s;

	s = load_rows(db, &link_rows, "SELECT url, title, kind, regression FROM reg_link"
		      " ORDER BY regression, kind, url", NULL, 0, &rows, regressions, n, err);
	*links = rows;
	return s;
}

enum bb_status reg_load_all_events(struct store *db, struct reg_event **events,
				   long long **regressions, size_t *n, struct bb_error *err)
{
	void *rows;
	enum bb_status s;

	s = load_rows(db, &event_rows, "SELECT time, kind, text, message_id, unverified,"
		      " regression FROM reg_event ORDER BY regression, time, id", NULL, 0, &rows, regressions,
		      n, err);
	*events = rows;
	return s;
}

enum bb_status reg_load_events_since(struct store *db, time_t since, size_t max,
				     struct reg_event **events, long long **ids, size_t *n,
				     struct bb_error *err)
{
	const long long binds[] = { (long long)since, (long long)max };
	void *rows;
	enum bb_status s;

	s = load_rows(db, &event_rows, "SELECT time, kind, text, message_id, unverified,"
		      " regression FROM reg_event WHERE time >= ?1 ORDER BY time DESC, id DESC LIMIT ?2",
		      binds, 2, &rows, ids, n, err);
	*events = rows;
	return s;
}

enum bb_status reg_load_unhandled(struct store *db, size_t max, struct reg_unhandled **out,
				  size_t *n, struct bb_error *err)
{
	const long long binds[] = { (long long)max };
	void *rows;
	enum bb_status s;

	s = load_rows(db, &unhandled_rows, "SELECT time, message_id, line, reason"
		      " FROM reg_unhandled ORDER BY time DESC, id DESC LIMIT ?1", binds, 1, &rows,
		      NULL, n, err);
	*out = rows;
	return s;
}
