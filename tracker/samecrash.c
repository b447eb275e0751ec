/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Same crash, same bug (samecrash.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>
#include <sqlite3.h>

#include "core/buf.h"
#include "tracker/samecrash.h"

enum bb_status samecrash_record(struct store *db, long long bug, const struct tri_report *r,
				const char *text, size_t len, struct bb_error *err)
{
	struct tri_signature *sigs;
	size_t n = tri_signatures(r, text, len, &sigs);
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if (!n)
		return BB_OK;
	if ((s = store_cached(db, &st, "DELETE FROM bug_signature WHERE bug_id = ?", err)))
		goto out;
	sqlite3_bind_int64(st, 1, bug);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "forgetting a bug's crash signatures");
	store_cached_done(db, st);
	for (size_t i = 0; !s && i < n; i++) {
		if ((s = store_cached(db, &st, "INSERT OR REPLACE INTO bug_signature (bug_id, key,"
					       " title, added) VALUES (?, ?, ?, ?)", err)))
			break;
		sqlite3_bind_int64(st, 1, bug);
		sqlite3_bind_text(st, 2, sigs[i].key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, sigs[i].title, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)time(NULL));
		if (sqlite3_step(st) != SQLITE_DONE)
			s = store_fail(db, err, "recording a bug's crash signature");
		store_cached_done(db, st);
	}
out:
	tri_signatures_free(sigs, n);
	return s;
}

enum bb_status samecrash_find(struct store *db, const struct tri_signature *sigs, size_t n,
			      long long self, struct samecrash_hit **out, size_t *nout,
			      struct bb_error *err)
{
	struct samecrash_hit *hits = NULL;
	size_t nh = 0;
	enum bb_status s = BB_OK;

	*out = NULL;
	*nout = 0;
	for (size_t i = 0; i < n && !s; i++) {
		sqlite3_stmt *st = NULL;
		int rc;

		if ((s = store_cached(db, &st,
				      "SELECT s.bug_id, coalesce((SELECT min(r.id) FROM reg_regression r"
				      " WHERE r.bug_id = s.bug_id AND r.state IN ('open', 'fix-incoming')),"
				      " 0) FROM bug_signature s JOIN bz_bug b ON b.id = s.bug_id"
				      " WHERE s.key = ?1 AND s.bug_id != ?2 AND b.restricted = 0 AND"
				      " b.resolution = '' ORDER BY s.bug_id DESC LIMIT ?3", err)))
			break;
		sqlite3_bind_text(st, 1, sigs[i].key, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, self);
		sqlite3_bind_int(st, 3, SAMECRASH_MAX_HITS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct samecrash_hit *more = realloc(hits, (nh + 1) * sizeof(*hits));

			if (!more) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				break;
			}
			hits = more;
			hits[nh].bug = sqlite3_column_int64(st, 0);
			hits[nh].regression = sqlite3_column_int64(st, 1);
			hits[nh++].title = sigs[i].title;
		}
		if (!s && rc != SQLITE_DONE)
			s = store_fail(db, err, "looking up a crash signature");
		store_cached_done(db, st);
	}
	if (s) {
		free(hits);
		return s;
	}
	*out = hits;
	*nout = nh;
	return BB_OK;
}

char *samecrash_hit_text(const struct samecrash_hit *h)
{
	if (h->regression)
		return str_printf("bug %lld (regression #%lld)", h->bug, h->regression);
	return str_printf("bug %lld", h->bug);
}

/* The signatures recorded for bug, as tri_signatures() gives them. */
static size_t recorded(struct store *db, long long bug, struct tri_signature **out)
{
	struct tri_signature *sigs = NULL;
	sqlite3_stmt *st = NULL;
	size_t n = 0;

	*out = NULL;
	if (store_cached(db, &st, "SELECT key, title FROM bug_signature WHERE bug_id = ?"
				  " ORDER BY rowid", NULL))
		return 0;
	sqlite3_bind_int64(st, 1, bug);
	while (n < TRI_SIG_MAX && sqlite3_step(st) == SQLITE_ROW) {
		if (!sigs)
			sigs = g_new0(struct tri_signature, TRI_SIG_MAX);
		sigs[n].key = g_strdup((const char *)sqlite3_column_text(st, 0));
		sigs[n++].title = g_strdup((const char *)sqlite3_column_text(st, 1));
	}
	store_cached_done(db, st);
	*out = sigs;
	return n;
}

void samecrash_note(struct store *db, long long bug, char **block)
{
	struct tri_signature *sigs;
	struct samecrash_hit *hits = NULL;
	size_t n = recorded(db, bug, &sigs), nh = 0;
	struct buf b = BUF_INIT;
	int failed = 0;
	char *text;

	if (!n)
		return;
	if (samecrash_find(db, sigs, n, bug, &hits, &nh, NULL))
		nh = 0;
	failed |= *block ? buf_addstr(&b, *block) != BB_OK
			 : buf_addstr(&b, "Triage (read from the report by bugbridge; it may be "
					  "wrong):\n") != BB_OK;
	for (size_t i = 0; i < n; i++)
		failed |= buf_addf(&b, "  %-12s %s\n", i ? "" : "Crash:", sigs[i].title) != BB_OK;
	for (size_t i = 0; i < nh; i++) {
		char *what = samecrash_hit_text(&hits[i]);

		failed |= !what || buf_addf(&b, "  %-12s %s: %s\n", i ? "" : "Same crash:", what,
					    hits[i].title) != BB_OK;
		free(what);
	}
	free(hits);
	tri_signatures_free(sigs, n);
	if (failed || !(text = buf_detach(&b, NULL))) {
		buf_release(&b);
		return;
	}
	free(*block);
	*block = text;
}
