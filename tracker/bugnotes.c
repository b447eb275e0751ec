/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tracker's notes for Bugzilla bugs: see bugnotes.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <glib.h>

#include "bugzilla/bz_client.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/text.h"
#include "tracker/bugnotes.h"
#include "tracker/links.h"
#include "tracker/tracker.h"

/* ------------------------------------------------------- ordinary bugs */

long long reg_regression_of_bug(struct store *db, long long bug_id)
{
	sqlite3_stmt *st = NULL;
	long long id = 0;

	if (bug_id <= 0 ||
	    store_cached(db, &st, "SELECT id FROM reg_regression WHERE bug_id = ?", NULL))
		return 0;
	sqlite3_bind_int64(st, 1, bug_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	store_cached_done(db, st);
	return id;
}

static int status_closed(const char *status)
{
	return status && (!strcmp(status, "RESOLVED") || !strcmp(status, "VERIFIED") ||
			  !strcmp(status, "CLOSED"));
}

/* The bug of the configured Bugzilla a trailer's value names by its URL
 * (the first word), 0 if none. */
long long reg_bug_of_value(const char *bugzilla_url, const char *value)
{
	char url[REG_LINK_URL_MAX + 1];
	size_t len;

	if (!bugzilla_url || !value)
		return 0;
	value += strspn(value, " \t");
	len = strcspn(value, " \t\r\n");
	if (!len || len > REG_LINK_URL_MAX)
		return 0;
	memcpy(url, value, len);
	url[len] = '\0';
	return reg_link_bugzilla_id(url, bugzilla_url);
}

/* Whether bug is mirrored and public in the store (BZ_BUG_PUBLIC_SQL).
 * *closed: the store has it closed. */
static int public_bug(struct store *db, long long bug, int *closed)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	*closed = 0;
	if (bug <= 0 || store_cached(db, &st, "SELECT status FROM bz_bug WHERE id = ? AND "
						 BZ_BUG_PUBLIC_SQL, NULL))
		return 0;
	sqlite3_bind_int64(st, 1, bug);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = 1;
		*closed = status_closed((const char *)sqlite3_column_text(st, 0));
	}
	store_cached_done(db, st);
	return found;
}

/* Whether bug is one a fix or mention note may go to: public_bug() and no
 * tracked regression (a regression hears from the tracker's own notes). */
static int ordinary_bug(struct store *db, long long bug, int *closed)
{
	*closed = 0;
	return bug > 0 && !reg_regression_of_bug(db, bug) && public_bug(db, bug, closed);
}

/* Records a note for an ordinary bug (once: its marker is unique); the
 * notes go through reg_push like a regression's, as its regression 0. */
static enum bb_status queue_bug_note(struct store *db, long long bug, const char *marker,
				     const char *text, int close, const char *what,
				     struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if (!marker || !text)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if ((s = store_cached(db, &st, "INSERT OR IGNORE INTO reg_push (regression, bug_id, marker,"
			      " text, created, close_fixed) VALUES (0, ?, ?, ?, ?, ?)", err)))
		return s;
	sqlite3_bind_int64(st, 1, bug);
	sqlite3_bind_text(st, 2, marker, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, text, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)time(NULL));
	sqlite3_bind_int64(st, 5, close != 0);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "recording a note for Bugzilla");
	store_cached_done(db, st);
	if (!s && sqlite3_changes(db->db) > 0)
		log_event(LOG_LEVEL_INFO, "tracker.bug_note", LF_INT("bug", bug),
			  LF_STR("kind", what), LF_INT("close", close != 0));
	return s;
}

/* The commit a Fixes: value names: its leading hex digits (8 to 40, as
 * the kernel writes "Fixes: <12 hex> (\"subject\")"), lower case, in out;
 * 0 when it names none. */
size_t reg_fixes_hash(const char *value, char out[41])
{
	size_t len = 0;

	value += strspn(value, " \t");
	while (len < 40 && g_ascii_isxdigit(value[len])) {
		out[len] = g_ascii_tolower(value[len]);
		len++;
	}
	if (len < 8 || g_ascii_isalnum(value[len]) || value[len] == '_')
		return 0;
	out[len] = '\0';
	return len;
}

#define BUG_CULPRITS_MAX 4   /* Fixes: culprits kept for one bug */

/* Records that a Fixes: line in source ("patch <msgid>", "commit <hash> in
 * <tree>", "comment <id>") names hash as a cause of bug: a culprit whose
 * people the bug's next mail Cc's (tracker_bug_culprits()). */
static enum bb_status record_culprit(struct store *db, long long bug, const char *hash,
				     const char *source, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	long long known = 0;
	enum bb_status s;

	if (bug <= 0)
		return BB_OK;
	if ((s = store_cached(db, &st, "SELECT count(*), sum(substr(commit_hash, 1, length(?2)) ="
			      " ?2 OR substr(?2, 1, length(commit_hash)) = commit_hash)"
			      " FROM bug_culprit WHERE bug_id = ?1", err)))
		return s;
	sqlite3_bind_int64(st, 1, bug);
	sqlite3_bind_text(st, 2, hash, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		known = sqlite3_column_int64(st, 0) >= BUG_CULPRITS_MAX ||
			sqlite3_column_int64(st, 1) > 0;
	store_cached_done(db, st);
	if (known)
		return BB_OK;
	log_event(LOG_LEVEL_INFO, "tracker.fixes_culprit", LF_INT("bug", bug), LF_STR("commit", hash),
		  LF_STR("source", source));
	if ((s = store_cached(db, &st, "INSERT OR IGNORE INTO bug_culprit (bug_id, commit_hash,"
			      " source, added) VALUES (?, ?, ?, ?)", err)))
		return s;
	sqlite3_bind_int64(st, 1, bug);
	sqlite3_bind_text(st, 2, hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, source ? source : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)time(NULL));
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "recording a bug's culprit");
	store_cached_done(db, st);
	return s;
}

/* Records the commits the Fixes: lines of text name (unquoted lines, which
 * may be indented, as a patch pasted into a comment is; a top-post's quote
 * of another mail is quoted too) as bug's culprits. */
enum bb_status bug_notes_fixes_lines(struct store *db, long long bug, const char *text,
				     const char *source, struct bb_error *err)
{
	enum bb_status s = BB_OK;
	struct inmail_lines it;
	enum inmail_line_kind kind;
	const char *p;
	size_t len;

	for (inmail_lines_init(&it, text ? text : "", text ? strlen(text) : 0);
	     !s && inmail_lines_next(&it, &p, &len, &kind);) {
		size_t blank = strspn(p, " \t");
		char hash[41];

		if (kind != INMAIL_LINE_QUOTE && blank + 6 <= len &&
		    !g_ascii_strncasecmp(p + blank, "Fixes:", 6) && reg_fixes_hash(p + blank + 6, hash))
			s = record_culprit(db, bug, hash, source, err);
	}
	return s;
}

/* --------------------------------------------------------------- notes */

enum bb_status bug_notes_commit(const struct bug_notes *bn, const char *tree, int close,
				const struct gitscan_commit *c, struct bb_error *err)
{
	enum bb_status s = BB_OK;

	for (size_t i = 0; i < c->n_trailers && !s; i++) {
		const struct gitscan_trailer *tr = &c->trailers[i];
		long long bug;
		char *marker, *text;
		int closed;

		if (tr->kind != GITSCAN_TRAILER_LINK && tr->kind != GITSCAN_TRAILER_CLOSES)
			continue;
		bug = reg_bug_of_value(bn->bugzilla_url, tr->value);
		/* its Fixes: name the bug's culprits, regression or not */
		for (size_t k = 0; bug > 0 && k < c->n_trailers && !s; k++) {
			char hash[41], *source;

			if (c->trailers[k].kind != GITSCAN_TRAILER_FIXES ||
			    !reg_fixes_hash(c->trailers[k].value, hash))
				continue;
			source = str_printf("commit %.12s in %s", c->hash, tree);
			s = source ? record_culprit(bn->db, bug, hash, source, err)
				   : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			free(source);
		}
		if (s || !ordinary_bug(bn->db, bug, &closed))
			continue;
		marker = str_printf("[bugbridge bug %lld: fixed by %.12s in %s]", bug, c->hash, tree);
		text = str_printf("Fixed by commit %.12s (\"%s\") in %s\n\n%s\n", c->hash,
				  c->subject, tree, marker ? marker : "");
		s = queue_bug_note(bn->db, bug, marker, text, close && !closed, "fix", err);
		free(marker);
		free(text);
	}
	return s;
}

/* Whether the mail was read as one of bug's own thread (its text goes to
 * the bug as a comment anyway). */
static int mail_of_bug(struct store *db, const char *msgid, long long bug)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (store_cached(db, &st, "SELECT 1 FROM in_mail WHERE message_id = ? AND bug_id = ?",
			 NULL))
		return 0;
	sqlite3_bind_text(st, 1, msgid, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, bug);
	found = sqlite3_step(st) == SQLITE_ROW;
	store_cached_done(db, st);
	return found;
}

/* A patch (not a reply to one) whose trailer names an ordinary bug. */
enum bb_status bug_notes_patch(const struct bug_notes *bn, const struct inmail *m, long long bug,
			       struct bb_error *err)
{
	const char *subject = m->subject ? m->subject : "";
	char *marker, *link, *text;
	enum bb_status s;
	int closed;

	subject += strspn(subject, " \t");
	if (!m->message_id || !strncasecmp(subject, "Re:", 3) || !ordinary_bug(bn->db, bug, &closed) ||
	    mail_of_bug(bn->db, m->message_id, bug))
		return BB_OK;
	marker = str_printf("[bugbridge bug %lld: patch <%s>]", bug, m->message_id);
	link = reg_link_mail(bn->archive_url, m->message_id);
	text = str_printf("A patch was posted: %s %s\n\n%s\n", inmail_bare_subject(m->subject),
			  link ? link : "", marker ? marker : "");
	s = link ? queue_bug_note(bn->db, bug, marker, text, 0, "patch", err)
		 : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	free(marker);
	free(link);
	free(text);
	return s;
}

/* Collects into ids (at most max, distinct) the bugs whose URLs stand in
 * the unquoted lines of text (a top-post's quote of another mail is
 * quoted too); returns how many, max + 1 when there are more. */
static size_t bugs_cited(const struct bug_notes *bn, const char *text, long long *ids, size_t max)
{
	struct inmail_lines it;
	enum inmail_line_kind kind;
	const char *p;
	size_t n = 0, len = strlen(text);

	/* (a text without the Bugzilla's host cites none of its bugs: its
	 * lines' walk, with their kinds, is not needed) */
	if (!reg_text_may_cite_bugzilla(text, len, bn->bugzilla_host))
		return 0;
	for (inmail_lines_init(&it, text, len); inmail_lines_next(&it, &p, &len, &kind);) {
		const char *end = p + len;

		/* quoted text cites for the mail it came from */
		if (kind != INMAIL_LINE_QUOTE && *p != '>') {
			for (const char *q = p; q < end && n <= max;) {
				char url[REG_LINK_URL_MAX + 1];
				size_t ulen = 0;
				long long bug;
				const char *h = text_find_ci(q, (size_t)(end - q), "http");

				if (!h)
					break;
				while (h + ulen < end && !strchr(" \t\r<>\"'()[]", h[ulen]))
					ulen++;
				q = h + (ulen ? ulen : 4);
				while (ulen && strchr(".,;:!?", h[ulen - 1]))
					ulen--;
				if (!ulen || ulen > REG_LINK_URL_MAX)
					continue;
				memcpy(url, h, ulen);
				url[ulen] = '\0';
				if ((bug = reg_link_bugzilla_id(url, bn->bugzilla_url)) <= 0)
					continue;
				for (size_t i = 0; i < n && bug; i++)
					bug = ids[i] == bug ? 0 : bug;
				if (bug && n < max)
					ids[n] = bug;
				n += bug != 0;
			}
		}
	}
	return n;
}

/* A list mail, neither a patch nor one of the bug's own thread, that cites
 * the URL of a mirrored public bug: one note on the bug per thread,
 * "Mentioned on the list: <subject> <link>".  A mail citing more than
 * MENTIONS_MAX bugs is a listing (a report, a digest), not a discussion of
 * them: it makes none. */
#define MENTIONS_MAX 3
enum bb_status bug_notes_mentions(const struct bug_notes *bn, const struct inmail *m,
				  const char *root, const char *body, struct bb_error *err)
{
	long long ids[MENTIONS_MAX];
	enum bb_status s = BB_OK;
	size_t n;
	char *link;

	if (!bn->bugzilla_url || !m->message_id || m->from_bridge || m->auto_reply)
		return BB_OK;
	n = bugs_cited(bn, body, ids, MENTIONS_MAX);
	if (!n || n > MENTIONS_MAX)
		return BB_OK;
	if (!(link = reg_link_mail(bn->archive_url, m->message_id)))
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n && !s; i++) {
		char *marker, *text;
		int closed;

		if (!ordinary_bug(bn->db, ids[i], &closed) || mail_of_bug(bn->db, m->message_id, ids[i]))
			continue;
		marker = str_printf("[bugbridge bug %lld: mentioned in the thread of <%s>]", ids[i],
				    root);
		text = str_printf("Mentioned on the list: %s %s\n\n%s\n",
				  inmail_bare_subject(m->subject), link, marker ? marker : "");
		s = queue_bug_note(bn->db, ids[i], marker, text, 0, "mention", err);
		free(marker);
		free(text);
	}
	free(link);
	return s;
}

/* -------------------------------------------------------- to Bugzilla */

/* Before a note for an ordinary bug goes out: the bug must still be
 * mirrored, public and no regression in the store, and public on
 * Bugzilla (*skip otherwise); *open: Bugzilla has it open. */
static enum bb_status ordinary_live(struct store *db, struct bz_client *bz, long long bug_id,
				    int *open, int *skip, struct bb_error *err)
{
	struct bz_bug *bugs = NULL;
	size_t n = 0;
	enum bb_status s;
	int closed;

	*open = 0;
	*skip = 1;
	/* a note queued for an ordinary bug still goes when the bug has
	 * become a regression since */
	if (!public_bug(db, bug_id, &closed))
		return BB_OK;
	if ((s = bz_search_page(bz, bug_id - 1, 0, 1, &bugs, &n, err)))
		return s;
	if (n && bugs[0].id == bug_id && bz_bug_is_public(&bugs[0])) {
		*skip = 0;
		*open = !status_closed(bugs[0].status);
	}
	for (size_t i = 0; i < n; i++)
		bz_bug_release(&bugs[i]);
	free(bugs);
	return BB_OK;
}

/* Sets an open bug RESOLVED FIXED.  A refusal (no permission, a workflow
 * that does not allow it) is logged and not asked again; trouble on the
 * way is returned, and the next round looks at the bug's status first. */
static enum bb_status close_fixed(struct bz_client *bz, long long bug_id, struct bb_error *err)
{
	static const struct bz_change ch[] = { { "status", "RESOLVED" }, { "resolution", "FIXED" } };
	struct bb_error uerr = BB_ERROR_INIT;
	enum bb_status s = bz_update_bug(bz, bug_id, ch, 2, &uerr);

	if (s == BB_ERR_TEMPORARY || s == BB_ERR_NOMEM || s == BB_ERR_IO) {
		*err = uerr;
		return s;
	}
	if (s)
		log_event(LOG_LEVEL_WARN, "tracker.close_refused", LF_INT("bug", bug_id),
			  LF_STR("error", uerr.message));
	else
		log_event(LOG_LEVEL_INFO, "tracker.bug_closed", LF_INT("bug", bug_id));
	return BB_OK;
}

enum bb_status tracker_push(struct tracker *t, struct bz_client *bz, unsigned long *posted,
			    struct bb_error *err)
{
	struct store *db = tracker_store(t);
	sqlite3_stmt *st = NULL;
	enum bb_status s = BB_OK;

	*posted = 0;
	for (;;) {
		long long row, bug_id, regression, comment_id = 0;
		int close, open = 1, skip = 0;
		char *marker, *text;
		struct bz_bug bug;

		if ((s = store_prepare(db, &st, "SELECT id, bug_id, marker, text, regression,"
					      " close_fixed FROM reg_push WHERE state = 'intent'"
					      " ORDER BY id LIMIT 1", err)))
			return s;
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			return BB_OK;
		}
		row = sqlite3_column_int64(st, 0);
		bug_id = sqlite3_column_int64(st, 1);
		marker = strdup(sqlite3_column_text(st, 2) ? (const char *)sqlite3_column_text(st, 2)
							  : "");
		text = strdup(sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3)
							: "");
		regression = sqlite3_column_int64(st, 4);
		close = sqlite3_column_int(st, 5);
		sqlite3_finalize(st);
		/* posted before a crash?  The marker says so */
		memset(&bug, 0, sizeof(bug));
		bug.id = bug_id;
		if (!marker || !text) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		} else if (!regression && (s = ordinary_live(db, bz, bug_id, &open, &skip, err))) {
			;
		} else if (!skip && !(s = bz_fetch_comments(bz, &bug, 1, 0, err))) {
			for (size_t i = 0; i < bug.ncomments; i++)
				if (bug.comments[i].text && strstr(bug.comments[i].text, marker))
					comment_id = bug.comments[i].id;
			if (!comment_id) {
				test_hook("tracker.post");
				if (!(s = bz_add_comment(bz, bug_id, text, 0, &comment_id, err))) {
					(*posted)++;
					test_hook("tracker.posted");
				}
			}
			if (!s && close && open)
				s = close_fixed(bz, bug_id, err);
		}
		if (!s && skip)
			log_event(LOG_LEVEL_INFO, "tracker.note_skipped", LF_INT("bug", bug_id),
				  LF_STR("reason", "not a mirrored public bug"));
		bz_bug_release(&bug);
		free(marker);
		free(text);
		if (!s && !(s = store_cached(db, &st, "UPDATE reg_push SET state = ?, comment_id = ?"
					     " WHERE id = ?", err))) {
			sqlite3_bind_text(st, 1, skip ? "skipped" : "posted", -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 2, comment_id);
			sqlite3_bind_int64(st, 3, row);
			if (sqlite3_step(st) != SQLITE_DONE)
				s = store_fail(db, err, "recording a note for Bugzilla");
			store_cached_done(db, st);
		}
		if (s)
			return s;
	}
}

enum bb_status tracker_bug_fixes(struct tracker *t, const struct bz_bug *bug,
				 struct bb_error *err)
{
	enum bb_status s = BB_OK;

	for (size_t i = 0; i < bug->ncomments && !s; i++) {
		const struct bz_comment *c = &bug->comments[i];
		char *source;

		if (c->is_private || !c->text || !strcasestr(c->text, "Fixes:"))
			continue;
		if (!(source = str_printf("comment %lld", c->id)))
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		s = bug_notes_fixes_lines(tracker_store(t), bug->id, c->text, source, err);
		free(source);
	}
	return s;
}

/* -------------------------------------------------------------- triage */

/* The marker line of bug's triage note. */
static char *triage_marker(long long bug)
{
	return str_printf("[bugbridge triage of bug %lld]", bug);
}

enum bb_status tracker_triage_note(struct tracker *t, long long bug, const char *block,
				   struct bb_error *err)
{
	char *marker = triage_marker(bug);
	char *text = marker ? str_printf("%s\n%s\n", block, marker) : NULL;
	enum bb_status s = queue_bug_note(tracker_store(t), bug, marker, text, 0, "triage", err);

	free(marker);
	free(text);
	return s;
}

/* Whether a and b are the same text but for white space at their ends. */
static int same_trimmed(const char *a, const char *b)
{
	size_t la, lb;

	a += strspn(a, " \t\r\n");
	b += strspn(b, " \t\r\n");
	la = strlen(a);
	lb = strlen(b);
	while (la && strchr(" \t\r\n", a[la - 1]))
		la--;
	while (lb && strchr(" \t\r\n", b[lb - 1]))
		lb--;
	return la == lb && !memcmp(a, b, la);
}

int tracker_is_triage_note(struct tracker *t, long long bug, long long comment_id,
			   const char *text)
{
	struct store *db = tracker_store(t);
	char *marker = triage_marker(bug);
	sqlite3_stmt *st = NULL;
	int yes = 0;

	if (!marker || !text || !strstr(text, marker))
		goto out;
	/* the bridge recorded the note (nobody else can): the comment it
	 * posted, or, before that was recorded (a crash), its very text */
	if (store_cached(db, &st, "SELECT comment_id, text FROM reg_push WHERE bug_id = ? AND"
				     " marker = ?", NULL))
		goto out;
	sqlite3_bind_int64(st, 1, bug);
	sqlite3_bind_text(st, 2, marker, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		yes = sqlite3_column_type(st, 0) != SQLITE_NULL && sqlite3_column_int64(st, 0) > 0
			      ? sqlite3_column_int64(st, 0) == comment_id
			      : same_trimmed((const char *)sqlite3_column_text(st, 1), text);
	store_cached_done(db, st);
out:
	free(marker);
	return yes;
}

char *reg_triage_block(struct store *db, long long bug)
{
	char *marker = bug > 0 ? triage_marker(bug) : NULL, *block = NULL;
	sqlite3_stmt *st = NULL;

	if (!marker)
		return NULL;
	if (!store_cached(db, &st, "SELECT text FROM reg_push WHERE bug_id = ? AND marker = ?",
			  NULL)) {
		sqlite3_bind_int64(st, 1, bug);
		sqlite3_bind_text(st, 2, marker, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *text = (const char *)sqlite3_column_text(st, 0);
			const char *end = text ? strstr(text, marker) : NULL;

			if (end)
				block = strndup(text, (size_t)(end - text));
		}
		store_cached_done(db, st);
	}
	free(marker);
	if (block) {
		size_t n = strlen(block);

		while (n && (block[n - 1] == '\n' || block[n - 1] == ' '))
			block[--n] = '\0';
	}
	return block;
}
