/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "#bugbridge needinfo": questions, reminders, closing and reopening (see
 * needinfo.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json-c/json.h>
#include <sqlite3.h>

#include "bridge/digest.h"
#include "bridge/needinfo.h"
#include "bridge/follow.h"
#include "bridge/inbound.h"
#include "bridge/route.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "bugzilla/bz_client.h"
#include "bugzilla/bz_fields.h"
#include "bugzilla/bz_json.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/store.h"
#include "mail/mail.h"
#include "mail/maintainers.h"
#include "mail/outbox.h"

enum { STEP_QUESTION = 1, STEP_REMINDER = 2 };

/* A question as its row has it. */
struct question {
	long long id, bug_id;
	char *asked, *question, *asked_by, *mail, *state, *answer;
	char *mark;         /* "flag", "status", "keyword" or "bridge" (needinfo.h) */
	char *prev_status;  /* the status before NEEDINFO ("status") */
	int reporter, marked;
	time_t asked_at, reminded_at;
};

static void question_release(struct question *q)
{
	free(q->asked);
	free(q->question);
	free(q->asked_by);
	free(q->mail);
	free(q->state);
	free(q->answer);
	free(q->mark);
	free(q->prev_status);
	memset(q, 0, sizeof(*q));
}

#define QUESTION_COLUMNS "id, bug_id, asked, question, asked_by, mail, state, answer, reporter," \
			 " asked_at, coalesce(reminded_at, 0), mark, prev_status, marked"

static void question_read(sqlite3_stmt *st, struct question *q)
{
	q->id = sqlite3_column_int64(st, 0);
	q->bug_id = sqlite3_column_int64(st, 1);
	q->asked = store_column_dup(st, 2);
	q->question = store_column_dup(st, 3);
	q->asked_by = store_column_dup(st, 4);
	q->mail = store_column_dup(st, 5);
	q->state = store_column_dup(st, 6);
	q->answer = store_column_dup(st, 7);
	q->reporter = sqlite3_column_int(st, 8);
	q->asked_at = (time_t)sqlite3_column_int64(st, 9);
	q->reminded_at = (time_t)sqlite3_column_int64(st, 10);
	q->mark = store_column_dup(st, 11);
	q->prev_status = store_column_dup(st, 12);
	q->marked = sqlite3_column_int(st, 13);
}

/* The bug's latest question still in one of the states (an SQL list such
 * as "'waiting', 'reminded'"); *found says whether there is one. */
static enum bb_status question_latest(struct sync_context *sc, long long bug_id,
				      const char *states, struct question *q, int *found,
				      struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	char sql[256];
	enum bb_status s;

	*found = 0;
	memset(q, 0, sizeof(*q));
	snprintf(sql, sizeof(sql), "SELECT " QUESTION_COLUMNS " FROM needinfo WHERE bug_id = ?"
		 " AND state IN (%s) ORDER BY id DESC LIMIT 1", states);
	if ((s = store_prepare(sc->db, &st, sql, err)))
		return s;
	sqlite3_bind_int64(st, 1, bug_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		question_read(st, q);
		*found = 1;
	}
	sqlite3_finalize(st);
	return BB_OK;
}

/* Moves question id from state from (NULL: any) to state to, setting the
 * time column (NULL: none) to now and answer (NULL: left). */
static enum bb_status question_move(struct sync_context *sc, long long id, const char *from,
				    const char *to, const char *time_column, const char *answer,
				    int *moved, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	char sql[256];
	enum bb_status s;

	snprintf(sql, sizeof(sql), "UPDATE needinfo SET state = ?1, updated = ?2%s%s%s,"
		 " answer = coalesce(?4, answer) WHERE id = ?3 AND (?5 IS NULL OR state = ?5)",
		 time_column ? ", " : "", time_column ? time_column : "",
		 time_column ? " = ?2" : "");
	if ((s = store_prepare(sc->db, &st, sql, err)))
		return s;
	sqlite3_bind_text(st, 1, to, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)bb_now());
	sqlite3_bind_int64(st, 3, id);
	if (answer)
		sqlite3_bind_text(st, 4, answer, -1, SQLITE_STATIC);
	if (from)
		sqlite3_bind_text(st, 5, from, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a needinfo question");
	else if (moved)
		*moved = sqlite3_changes(sc->db->db) > 0;
	sqlite3_finalize(st);
	return s;
}

/* Whom the question asks, as the thread may read it. */
static const char *asked_text(const struct question *q)
{
	return q->reporter ? "the reporter" : q->asked;
}

/* Queues notice step of question q on its bug's thread (in the caller's
 * transaction): to the bug's lists, and to the person asked (Cc'd, or
 * for the reporter in the envelope only).  Once: a Message-ID the outbox
 * holds is not queued again. */
static enum bb_status queue_notice(struct sync_context *sc, const struct bz_bug *bug,
				   const struct question *q, int step, const char *text,
				   const char *in_reply_to, struct bb_error *err)
{
	struct route_result route = { NULL, NULL, NULL };
	struct mail_options mopt;
	struct mail_message msg = { NULL, NULL, 0 };
	char **rcpt = NULL, *sender = NULL;
	enum bb_status s;

	if ((s = router_route(sc->router, bug, &route, err))) {
		if (s == BB_ERR_NOT_FOUND) {
			/* no list for the bug: nothing to mail */
			bb_error_clear(err);
			s = BB_OK;
		}
		goto out;
	}
	/* Cc'd as the bug's other mails are: its followers, not those who
	 * left it; and the person asked (the reporter in the envelope only) */
	if ((s = follow_route(sc, bug, &route, 0, err)))
		goto out;
	if (!q->reporter && !route_has_address(route.to, q->asked) &&
	    !route_has_address(route.cc, q->asked) && route_cc_add(&route, q->asked)) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	sync_mail_options(sc->cfg, &mopt);
	mopt.mark_key = sync_mark_key(sc);
	rcpt = route_envelope(&route, q->asked);
	sender = mnt_address(sc->cfg->mail_from);
	if (!rcpt || !sender) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = mail_compose_notice(&mopt, bug, NEEDINFO_SEQ_BASE + 10 * q->id + step, text, 0,
				     route.to, route.cc, in_reply_to, &msg, err)))
		goto out;
	if (outbox_has(sc->db, msg.message_id)) {
		log_event(LOG_LEVEL_INFO, "needinfo.sent_before", LF_INT("bug", bug->id),
			  LF_STR("message_id", msg.message_id));
		goto out;
	}
	s = outbox_add(sc->db, msg.message_id, bug->id, 0, sender, rcpt, msg.text, msg.len, err);
	if (!s)
		log_event(LOG_LEVEL_INFO, step == STEP_QUESTION ? "needinfo.asked" : "needinfo.reminded",
			  LF_INT("bug", bug->id), LF_INT("question", q->id),
			  LF_STR("message_id", msg.message_id));
out:
	mail_message_release(&msg);
	route_envelope_free(rcpt);
	free(sender);
	route_result_release(&route);
	return s;
}

static char *notice_message_id(struct sync_context *sc, const struct question *q, int step)
{
	return mail_notice_message_id(sc->cfg->mail_domain, q->bug_id,
				      NEEDINFO_SEQ_BASE + 10 * q->id + step);
}

/* Records the question (its row gets *id) after ending the bug's earlier
 * ones, in the caller's transaction. */
static enum bb_status question_insert(struct sync_context *sc, struct question *q,
				      struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	/* the new question takes over the NEEDINFO status an earlier one
	 * set, and the status to go back to */
	if ((s = store_prepare(sc->db, &st, "SELECT prev_status FROM needinfo WHERE bug_id = ?"
				      " AND marked AND mark = 'status' ORDER BY id DESC LIMIT 1", err)))
		return s;
	sqlite3_bind_int64(st, 1, q->bug_id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		free(q->prev_status);
		q->prev_status = store_column_dup(st, 0);
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((s = store_prepare(sc->db, &st, "UPDATE needinfo SET state = 'ended', updated = ?,"
				      " marked = 0 WHERE bug_id = ? AND state IN ('waiting', 'reminded',"
				      " 'closed', 'answered')", err)))
		return s;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)q->asked_at);
	sqlite3_bind_int64(st, 2, q->bug_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a needinfo question");
	sqlite3_finalize(st);
	st = NULL;
	if (s || (s = store_prepare(sc->db, &st,
				    "INSERT INTO needinfo (bug_id, asked, reporter, question, asked_by,"
				    " mail, state, asked_at, updated, mark, prev_status) VALUES (?1, ?2,"
				    " ?3, ?4, ?5, ?6, 'waiting', ?7, ?7, ?8, ?9)", err)))
		return s;
	sqlite3_bind_int64(st, 1, q->bug_id);
	sqlite3_bind_text(st, 2, q->asked, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, q->reporter);
	sqlite3_bind_text(st, 4, q->question, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, q->asked_by, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, q->mail, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)q->asked_at);
	sqlite3_bind_text(st, 8, q->mark ? q->mark : "bridge", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, q->prev_status, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a needinfo question");
	else
		q->id = sqlite3_last_insert_rowid(sc->db->db);
	sqlite3_finalize(st);
	return s;
}

/* The server's NEEDINFO status when it has one (an open status) that the
 * workflow lets a bug in status from go to, else NULL.  Stock 5.2 has
 * none: the waiting is then the bridge's own. */
static const char *needinfo_status(struct sync_context *sc, const char *from)
{
	const struct bz_fields *f = NULL;
	const struct bz_field_value *v;

	if (!sc->bz || (bz_fields_get(sc->bz, &f, NULL) != BB_OK && !f))
		return NULL;
	v = bz_field_value_find(bz_fields_find(f, "bug_status"), "NEEDINFO");
	if (!v || !v->name || v->is_open != 1)
		return NULL;
	if (from && !strcmp(from, v->name))
		return v->name;   /* waiting already: a new question takes it over */
	if (bz_fields_status_can_change(f, from, v->name) == 0)
		return NULL;
	return v->name;
}

#define NEEDINFO_NAME "needinfo"   /* the flag's and the keyword's name */

/* Whether the server has a needinfo flag type for the bug's product and
 * component (*requesteeble: whether it takes a requestee); a server that
 * cannot say has none. */
static int has_flag_type(struct sync_context *sc, const struct bz_bug *bug, int *requesteeble)
{
	struct bb_error ferr = BB_ERROR_INIT;
	int found = 0;

	*requesteeble = 0;
	if (!sc->bz || !bug->product || !bug->component)
		return 0;
	if (bz_flag_type_find(sc->bz, bug->product, bug->component, NEEDINFO_NAME, requesteeble,
			      &found, &ferr)) {
		log_event(LOG_LEVEL_DEBUG, "needinfo.flag_types_unknown", LF_INT("bug", bug->id),
			  LF_STR("error", ferr.message));
		bb_error_clear(&ferr);
		return 0;
	}
	return found;
}

/* The server's needinfo keyword (its spelling), or NULL. */
static const char *needinfo_keyword(struct sync_context *sc)
{
	const struct bz_fields *f = NULL;
	const char *canon = NULL;

	if (!sc->bz || (bz_fields_get(sc->bz, &f, NULL) != BB_OK && !f))
		return NULL;
	return bz_fields_legal_value(f, "keywords", NEEDINFO_NAME, &canon) == 1 ? canon : NULL;
}

/* How Bugzilla is to show that the bug waits: its needinfo flag, else its
 * NEEDINFO status, else its needinfo keyword, else nothing ("bridge"). */
static const char *choose_mark(struct sync_context *sc, const struct bz_bug *bug)
{
	int requesteeble;

	if (has_flag_type(sc, bug, &requesteeble))
		return "flag";
	if (needinfo_status(sc, bug->status))
		return "status";
	if (needinfo_keyword(sc))
		return "keyword";
	return "bridge";
}

/* The Message-ID of recorded mail row (malloc'd), or NULL. */
static char *row_message_id(struct sync_context *sc, long long row)
{
	sqlite3_stmt *st = NULL;
	char *id = NULL;

	if (store_prepare(sc->db, &st, "SELECT message_id FROM in_mail WHERE id = ?", NULL))
		return NULL;
	sqlite3_bind_int64(st, 1, row);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = store_column_dup(st, 0);
	sqlite3_finalize(st);
	return id;
}

enum bb_status needinfo_command(struct sync_context *sc, long long row, int seq,
				long long bug_id, const char *change,
				struct inbound_stats *stats, struct bb_error *err)
{
	json_object *o = json_tokener_parse(change);
	const char *to = o ? bz_jstr(o, "to") : NULL;
	struct question q;
	struct bz_bug bug;
	struct buf text = BUF_INIT;
	char remind[16], close[16], *note = NULL;
	int have_bug = 0, found = 0;
	enum bb_status s = BB_OK;

	memset(&q, 0, sizeof(q));
	q.bug_id = bug_id;
	q.asked_at = bb_now();
	if (!to || !bz_jstr(o, "needinfo")) {
		json_object_put(o);
		return inbound_command_end(sc, row, seq, 1, "failed", "unreadable change", err);
	}
	if ((s = store_begin(sc->db, err)))
		goto out;
	have_bug = sync_load_bug(sc, bug_id, 1, &bug, NULL) == BB_OK;   /* 1: its reporter */
	q.reporter = !strcmp(to, "reporter");
	q.asked = strdup(!q.reporter ? to : have_bug && bug.creator.login ? bug.creator.login : "");
	q.question = strdup(bz_jstr(o, "needinfo"));
	q.asked_by = strdup(bz_jstr(o, "by") ? bz_jstr(o, "by") : "");
	q.mail = row_message_id(sc, row);
	if (!q.asked || !q.question || !q.asked_by || !q.mail) {
		s = bb_error_set(err, q.mail ? BB_ERR_NOMEM : BB_ERR_NOT_FOUND,
				 q.mail ? "out of memory" : "the mail of a needinfo command is gone");
		goto out;
	}
	if (!have_bug || !*q.asked) {
		stats->commands_failed++;
		s = inbound_command_end(sc, row, seq, 1, "failed",
					!have_bug ? "the bug is not in bugbridge's state"
						  : "the bug's reporter is not known", err);
		goto out;
	}
	/* one question per mail (the mail's Message-ID keys it) */
	{
		sqlite3_stmt *st = NULL;

		if ((s = store_prepare(sc->db, &st, "SELECT 1 FROM needinfo WHERE mail = ?", err)))
			goto out;
		sqlite3_bind_text(st, 1, q.mail, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	if (found) {
		stats->commands_done++;
		s = inbound_command_end(sc, row, seq, 1, "done", "already: this mail asked a question", err);
		goto out;
	}
	q.mark = strdup(choose_mark(sc, &bug));
	q.prev_status = strdup(bug.status ? bug.status : "");
	if (!q.mark || !q.prev_status) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = question_insert(sc, &q, err)))
		goto out;
	bb_day_text(q.asked_at + sc->cfg->aging_needinfo_remind, remind, sizeof(remind));
	bb_day_text(q.asked_at + sc->cfg->aging_needinfo_remind + sc->cfg->aging_needinfo_close,
		    close, sizeof(close));
	buf_addf(&text, "%s asks %s:\n\n", *q.asked_by ? q.asked_by : "A maintainer",
		 asked_text(&q));
	buf_addf(&text, "  %s\n\n", q.question);
	buf_addf(&text, "Please answer by replying to this mail.  The bug waits for the answer:\n"
		 "without one, a reminder follows on %s, and the bug is closed on %s\n"
		 "(a reply from %s reopens it then).\n", remind, close, asked_text(&q));
	if (!text.data) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = queue_notice(sc, &bug, &q, STEP_QUESTION, text.data, q.mail, err)))
		goto out;
	note = str_printf("asked %s; without an answer, a reminder on %s, closed on %s",
			  asked_text(&q), remind, close);
	if (!note) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	stats->commands_done++;
	s = inbound_command_end(sc, row, seq, 1, "done", note, err);
out:
	if (sc->db->depth > 0)
		s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	if (!s && q.id)
		test_hook("needinfo.asked");
	if (have_bug)
		bz_bug_release(&bug);
	free(note);
	buf_release(&text);
	question_release(&q);
	json_object_put(o);
	return s;
}

int needinfo_wants_sender(struct sync_context *sc, long long bug_id, const char *from_addr)
{
	struct question q;
	int found = 0, wants;

	if (!from_addr || !*from_addr ||
	    question_latest(sc, bug_id, "'closing', 'closed'", &q, &found, NULL) || !found)
		return 0;
	wants = strcasecmp(q.asked, from_addr) != 0;
	question_release(&q);
	return wants;
}

enum bb_status needinfo_mail_read(struct sync_context *sc, const struct inmail *m,
				  long long bug_id, int history, const struct auth_verdict *v,
				  needinfo_allowed_fn *allowed_fn, struct bb_error *err)
{
	struct question q;
	int found = 0, from_asked, allowed = 0;
	enum bb_status s;

	if (history || !bug_id || !m->from_addr || !*m->from_addr || !m->message_id)
		return BB_OK;
	if ((s = question_latest(sc, bug_id, "'waiting', 'reminded', 'closing', 'closed'", &q,
				 &found, err)) || !found)
		return s;
	from_asked = !strcasecmp(q.asked, m->from_addr);
	if (!strcmp(q.state, "waiting") || !strcmp(q.state, "reminded")) {
		if (from_asked) {
			s = question_move(sc, q.id, NULL, "answered", NULL, m->message_id, NULL, err);
			log_event(LOG_LEVEL_INFO, "needinfo.answered", LF_INT("bug", bug_id),
				  LF_INT("question", q.id), LF_STR("message_id", m->message_id));
		}
		goto out;
	}
	if (!from_asked && v && v->authenticated) {
		struct bz_bug bug;

		if (sync_load_bug(sc, bug_id, 0, &bug, NULL) == BB_OK) {
			allowed = allowed_fn(sc, &bug, m->from_addr);
			bz_bug_release(&bug);
		}
	}
	if (from_asked || allowed) {
		s = question_move(sc, q.id, NULL, "reopening", NULL, m->message_id, NULL, err);
		log_event(LOG_LEVEL_INFO, "needinfo.reopen_asked", LF_INT("bug", bug_id),
			  LF_INT("question", q.id), LF_STR("message_id", m->message_id),
			  LF_STR("from", from_asked ? "the person asked" : "an allowed sender"));
	}
out:
	question_release(&q);
	return s;
}

/* ------------------------------------------------------------ the round */

/* The bug as Bugzilla has it now (*have: whether it could be seen, and
 * is public). */
enum bb_status needinfo_bug_now(struct sync_context *sc, long long bug_id, struct bz_bug *bug,
				int *have, struct bb_error *err)
{
	struct bz_bug *bugs = NULL;
	size_t n = 0;
	enum bb_status s;

	*have = 0;
	if ((s = bz_search_page(sc->bz, bug_id - 1, 0, 1, &bugs, &n, err))) {
		if (!bz_client_bug_hidden(sc->bz, s))
			return s;
		bb_error_clear(err);
		return BB_OK;
	}
	if (n == 1 && bugs[0].id == bug_id && bz_bug_is_public(&bugs[0])) {
		*bug = bugs[0];
		*have = 1;
		n = 0;
	}
	for (size_t i = 0; i < n; i++)
		bz_bug_release(&bugs[i]);
	free(bugs);
	return BB_OK;
}

/* Whether the bug is open: its status's is_open as the server says, else
 * it has no resolution. */
int needinfo_bug_is_open(const struct bz_fields *f, const struct bz_bug *bug)
{
	const struct bz_field_value *v =
		bz_field_value_find(bz_fields_find(f, "bug_status"), bug->status ? bug->status : "");

	if (v && v->name && v->is_open >= 0)
		return v->is_open;
	return !bug->resolution || !*bug->resolution;
}

/* [aging] close_resolution when the server has it, else the first of
 * INSUFFICIENT_DATA, INVALID it has (INVALID when it does not say). */
static const char *close_resolution(struct sync_context *sc, const struct bz_fields *f)
{
	static const char *const defaults[] = { "INSUFFICIENT_DATA", "INVALID" };
	const char *canon = NULL;
	const char *want = sc->cfg->aging_close_resolution;

	if (want && *want) {
		int legal = bz_fields_legal_value(f, "resolution", want, &canon);

		if (legal == 1)
			return canon;
		if (legal < 0)
			return want;
		log_event(LOG_LEVEL_WARN, "needinfo.resolution_unknown", LF_STR("resolution", want),
			  LF_STR("reason", "the Bugzilla has no such resolution; the default is used"));
	}
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		if (bz_fields_legal_value(f, "resolution", defaults[i], &canon) == 1)
			return canon;
	return "INVALID";
}

/* Whether the bug (as bug_now() read it) has a needinfo flag asked ("?"). */
static int bug_has_flag(const struct bz_bug *bug)
{
	json_object *list = bug->flags ? json_tokener_parse(bug->flags) : NULL;
	int has = 0;

	for (size_t i = 0; list && json_object_is_type(list, json_type_array) &&
			   i < json_object_array_length(list) && !has; i++) {
		json_object *f = json_object_array_get_idx(list, i);
		const char *name = bz_jstr(f, "name"), *status = bz_jstr(f, "status");

		has = name && status && !strcasecmp(name, NEEDINFO_NAME) && !strcmp(status, "?");
	}
	json_object_put(list);
	return has;
}

static int bug_has_keyword(const struct bz_bug *bug)
{
	for (size_t i = 0; bug->keywords && bug->keywords[i]; i++)
		if (!strcasecmp(bug->keywords[i], NEEDINFO_NAME))
			return 1;
	return 0;
}

/* The change that puts q's mark on the bug (set) or takes it off, as
 * Bugzilla has the bug now (NULL field: nothing to do): the flag asked of
 * the person asked (a requestee when the flag type takes one) or cleared;
 * the keyword added or removed; the NEEDINFO status set (only on a bug
 * still in the status it had when asked) or taken back to that status.
 * *owned (free it) holds the value when it is made. */
static struct bz_change mark_change(struct sync_context *sc, const struct question *q,
				    const struct bz_bug *bug, int set, char **owned)
{
	struct bz_change none = { NULL, NULL };

	*owned = NULL;
	if (!strcmp(q->mark, "flag")) {
		int requesteeble = 0;

		if (set == bug_has_flag(bug))
			return none;
		if (!set)
			*owned = strdup("[{\"name\": \"" NEEDINFO_NAME "\", \"status\": \"X\"}]");
		else if (has_flag_type(sc, bug, &requesteeble) && requesteeble) {
			json_object *a = json_object_new_array(), *f = json_object_new_object();

			json_object_object_add(f, "name", json_object_new_string(NEEDINFO_NAME));
			json_object_object_add(f, "status", json_object_new_string("?"));
			json_object_object_add(f, "requestee", json_object_new_string(q->asked));
			json_object_array_add(a, f);
			*owned = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN));
			json_object_put(a);
		} else {
			*owned = strdup("[{\"name\": \"" NEEDINFO_NAME "\", \"status\": \"?\"}]");
		}
		return (struct bz_change){ "flags", *owned };
	}
	if (!strcmp(q->mark, "keyword")) {
		const char *kw = needinfo_keyword(sc);

		if (set == bug_has_keyword(bug) || (set && !kw))
			return none;
		*owned = str_printf("{\"%s\": [\"%s\"]}", set ? "add" : "remove",
				    kw ? kw : NEEDINFO_NAME);
		return (struct bz_change){ "keywords", *owned };
	}
	if (!strcmp(q->mark, "status")) {
		const char *need = needinfo_status(sc, NULL);

		if (!need || !bug->status || !q->prev_status || !*q->prev_status)
			return none;
		if (set && strcmp(bug->status, need) && !strcmp(bug->status, q->prev_status))
			return (struct bz_change){ "status", need };
		if (!set && !strcmp(bug->status, need))
			return (struct bz_change){ "status", q->prev_status };
	}
	return none;
}

enum bb_status needinfo_close_bug(struct sync_context *sc, long long bug_id, const char *comment,
				  needinfo_extra_fn *extra, void *ctx, const char *who,
				  enum needinfo_close_outcome *outcome, struct bb_error *err)
{
	const struct bz_fields *f = NULL;
	struct bz_bug bug;
	struct bz_change ch[4];
	char *owned = NULL, name[64];
	int have = 0;
	size_t n = 3;
	const char *resolution;
	enum bb_status s;

	*outcome = NEEDINFO_CLOSE_HIDDEN;
	bz_fields_get(sc->bz, &f, NULL);
	if ((s = needinfo_bug_now(sc, bug_id, &bug, &have, err)) || !have)
		return s;   /* restricted or gone since: nothing is said on a list */
	*outcome = NEEDINFO_CLOSE_NOT_OPEN;
	if (!needinfo_bug_is_open(f, &bug)) {
		bz_bug_release(&bug);
		return BB_OK;
	}
	resolution = close_resolution(sc, f);
	ch[0] = (struct bz_change){ "status", "RESOLVED" };
	ch[1] = (struct bz_change){ "resolution", resolution };
	ch[2] = (struct bz_change){ "comment", comment };
	if (extra) {
		ch[3] = extra(ctx, &bug, &owned);
		n += ch[3].field && ch[3].value;
	}
	s = bz_update_bug(sc->bz, bug_id, ch, n, err);
	free(owned);
	bz_bug_release(&bug);
	if (s) {
		if (status_retry_class(s) != BB_RETRY_GIVE_UP || s == BB_ERR_NOMEM ||
		    s == BB_ERR_AUTH || s == BB_ERR_CONFIG)
			return s;
		/* refused (a workflow that does not allow it): logged */
		snprintf(name, sizeof(name), "%s.close_refused", who);
		log_event(LOG_LEVEL_WARN, name, LF_INT("bug", bug_id), LF_STR("error", err->message));
		bb_error_clear(err);
		*outcome = NEEDINFO_CLOSE_REFUSED;
		return BB_OK;
	}
	snprintf(name, sizeof(name), "%s.close_put", who);
	test_hook(name);
	*outcome = n == 4 ? NEEDINFO_CLOSE_DONE_EXTRA : NEEDINFO_CLOSE_DONE;
	snprintf(name, sizeof(name), "%s.closed", who);
	log_event(LOG_LEVEL_INFO, name, LF_INT("bug", bug_id), LF_STR("resolution", resolution));
	return BB_OK;
}

/* The flag or keyword of a question goes with the closing (a status, the
 * closing replaces). */
struct close_extra {
	struct sync_context *sc;
	const struct question *q;
};

static struct bz_change close_unmark(void *ctx, const struct bz_bug *live, char **owned)
{
	struct close_extra *x = ctx;
	struct bz_change none = { NULL, NULL };

	*owned = NULL;
	if (!x->q->marked || !strcmp(x->q->mark, "status"))
		return none;
	return mark_change(x->sc, x->q, live, 0, owned);
}

/* Closes q's bug (state closing), once: a bug Bugzilla has closed already
 * is not changed again. */
static enum bb_status do_close(struct sync_context *sc, struct question *q,
			       struct needinfo_stats *stats, struct bb_error *err)
{
	struct close_extra x = { sc, q };
	enum needinfo_close_outcome outcome;
	char asked[16], reminded[16];
	char *comment;
	const char *to = "closed";
	enum bb_status s;

	bb_day_text(q->asked_at, asked, sizeof(asked));
	bb_day_text(q->reminded_at, reminded, sizeof(reminded));
	comment = str_printf("Closed for want of an answer: %s was asked on %s and reminded on "
			     "%s, and did not answer:\n\n  %s\n\nA reply from %s on the bug's "
			     "mail thread reopens it.", asked_text(q), asked, reminded,
			     q->question, asked_text(q));
	if (!comment)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	s = needinfo_close_bug(sc, q->bug_id, comment, close_unmark, &x, "needinfo", &outcome, err);
	free(comment);
	if (s)
		return s;
	if (outcome == NEEDINFO_CLOSE_HIDDEN) {
		stats->skipped++;
		log_event(LOG_LEVEL_INFO, "needinfo.ended", LF_INT("bug", q->bug_id),
			  LF_STR("reason", "the bug is no longer public"));
		to = "ended";
	} else if (outcome == NEEDINFO_CLOSE_REFUSED) {
		to = "ended";   /* the question ends */
	} else if (outcome != NEEDINFO_CLOSE_NOT_OPEN) {
		stats->closed++;
	}
	if ((s = store_begin(sc->db, err)))
		return s;
	s = question_move(sc, q->id, "closing", to, !strcmp(to, "closed") ? "closed_at" : NULL,
			  NULL, NULL, err);
	if (!s && outcome == NEEDINFO_CLOSE_DONE_EXTRA) {   /* the mark went with the PUT */
		char sql[96];

		snprintf(sql, sizeof(sql), "UPDATE needinfo SET marked = 0 WHERE id = %lld", q->id);
		s = store_exec(sc->db, sql, err);
	}
	return s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
}

enum bb_status needinfo_record_closed(struct sync_context *sc, long long bug_id,
				      const char *reporter, const char *question,
				      const char *mail, time_t asked_at, const char *asked_by,
				      struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	time_t now = bb_now();
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st, "INSERT OR IGNORE INTO needinfo (bug_id, asked, reporter,"
				      " question, asked_by, mail, state, asked_at, reminded_at,"
				      " closed_at, updated) VALUES (?1, ?2, 1, ?3, ?4, ?5, 'closed', ?6,"
				      " ?6, ?7, ?7)", err)))
		return s;
	sqlite3_bind_int64(st, 1, bug_id);
	sqlite3_bind_text(st, 2, reporter, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, question, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, asked_by, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, mail, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)asked_at);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)now);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a needinfo question");
	sqlite3_finalize(st);
	return s;
}

/* Reopens q's bug (state reopening), once: a bug Bugzilla has open is not
 * changed again. */
static enum bb_status do_reopen(struct sync_context *sc, struct question *q,
				struct needinfo_stats *stats, struct bb_error *err)
{
	const struct bz_fields *f = NULL;
	struct bz_bug bug;
	int have = 0;
	enum bb_status s;

	bz_fields_get(sc->bz, &f, NULL);
	if ((s = needinfo_bug_now(sc, q->bug_id, &bug, &have, err)))
		return s;
	if (have && !needinfo_bug_is_open(f, &bug)) {
		const char *to = sc->cfg->inbound_reopen_status;
		char *comment;
		struct bz_change ch[2];

		if (!to || !*to)
			to = bz_fields_reopen_status(f, bug.status);
		comment = str_printf("Reopened: the answer came in the list mail <%s>.",
				     q->answer ? q->answer : "");
		if (!comment) {
			bz_bug_release(&bug);
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		}
		ch[0] = (struct bz_change){ "status", to ? to : "REOPENED" };
		ch[1] = (struct bz_change){ "comment", comment };
		s = bz_update_bug(sc->bz, q->bug_id, ch, 2, err);
		free(comment);
		if (s && (status_retry_class(s) != BB_RETRY_GIVE_UP || s == BB_ERR_NOMEM ||
			  s == BB_ERR_AUTH || s == BB_ERR_CONFIG)) {
			bz_bug_release(&bug);
			return s;
		}
		if (s) {
			log_event(LOG_LEVEL_WARN, "needinfo.reopen_refused", LF_INT("bug", q->bug_id),
				  LF_STR("error", err->message));
			bb_error_clear(err);
		} else {
			test_hook("needinfo.reopen_put");
			stats->reopened++;
			log_event(LOG_LEVEL_INFO, "needinfo.reopened", LF_INT("bug", q->bug_id),
				  LF_INT("question", q->id), LF_STR("status", to ? to : "REOPENED"));
		}
	}
	if (have)
		bz_bug_release(&bug);
	if ((s = store_begin(sc->db, err)))
		return s;
	s = question_move(sc, q->id, "reopening", have ? "reopened" : "ended", NULL, NULL, NULL, err);
	return s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
}

/* Puts q's mark on its bug (set) or takes it off (mark_change()), then
 * records it (marked); once: a bug that has it so already is not
 * changed.  A bug that cannot be seen now keeps its question unmarked, to
 * be marked once it can. */
static enum bb_status set_mark(struct sync_context *sc, struct question *q, int set,
			       struct needinfo_stats *stats, struct bb_error *err)
{
	struct bz_bug bug;
	sqlite3_stmt *st = NULL;
	int have = 0;
	enum bb_status s;

	if ((s = needinfo_bug_now(sc, q->bug_id, &bug, &have, err)))
		return s;
	if (!have && set)
		return BB_OK;
	if (have) {
		char *owned = NULL;
		struct bz_change ch = mark_change(sc, q, &bug, set, &owned);

		if (ch.field && !ch.value)
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		else if (ch.field)
			s = bz_update_bug(sc->bz, q->bug_id, &ch, 1, err);
		if (s && (s == BB_ERR_NOMEM || status_retry_class(s) != BB_RETRY_GIVE_UP ||
			  s == BB_ERR_AUTH || s == BB_ERR_CONFIG)) {
			free(owned);
			bz_bug_release(&bug);
			return s;
		}
		if (s) {
			log_event(LOG_LEVEL_WARN, "needinfo.mark_refused", LF_INT("bug", q->bug_id),
				  LF_STR("mark", q->mark), LF_STR("error", err->message));
			bb_error_clear(err);
			s = BB_OK;
		} else if (ch.field) {
			test_hook("needinfo.mark_put");
			stats->marked++;
			log_event(LOG_LEVEL_INFO, set ? "needinfo.marked" : "needinfo.unmarked",
				  LF_INT("bug", q->bug_id), LF_STR("mark", q->mark),
				  LF_STR("change", ch.value));
		}
		free(owned);
		bz_bug_release(&bug);
	}
	if ((s = store_prepare(sc->db, &st, "UPDATE needinfo SET marked = ? WHERE id = ?", err)))
		return s;
	sqlite3_bind_int(st, 1, set);
	sqlite3_bind_int64(st, 2, q->id);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a needinfo question");
	sqlite3_finalize(st);
	return s;
}

/* The marks to put on (a question waiting) or take off (one answered,
 * ended, or closed by a PUT that could not take it off), before anything
 * else of the round. */
static enum bb_status marks(struct sync_context *sc, struct needinfo_stats *stats,
			    struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	struct question q;
	long long after = 0;
	enum bb_status s = BB_OK;

	for (;;) {
		int found = 0;

		if ((s = store_prepare(sc->db, &st, "SELECT " QUESTION_COLUMNS " FROM needinfo"
					      " WHERE mark != 'bridge' AND id > ? AND"
					      " ((NOT marked AND state IN ('waiting', 'reminded')) OR"
					      " (marked AND state IN ('answered', 'ended', 'closed',"
					      " 'reopened')))"
					      " ORDER BY id LIMIT 1", err)))
			return s;
		sqlite3_bind_int64(st, 1, after);
		if (sqlite3_step(st) == SQLITE_ROW) {
			question_read(st, &q);
			found = 1;
		}
		sqlite3_finalize(st);
		if (!found)
			return BB_OK;
		after = q.id;
		s = set_mark(sc, &q, !q.marked, stats, err);
		question_release(&q);
		if (s)
			return s;
	}
}

/* One reminder for q (waiting), with its state, in one transaction. */
static enum bb_status remind(struct sync_context *sc, struct question *q,
			     struct needinfo_stats *stats, struct bb_error *err)
{
	struct bz_bug bug;
	struct buf text = BUF_INIT;
	char asked[16], close[16], *question_id = NULL;
	time_t now = bb_now();
	int moved = 0;
	enum bb_status s;

	/* as Bugzilla has it now: restricted since the last round, it gets
	 * no reminder */
	{
		struct bz_bug live;
		int have = 0;

		if ((s = needinfo_bug_now(sc, q->bug_id, &live, &have, err)))
			return s;
		if (!have) {
			stats->skipped++;
			log_event(LOG_LEVEL_INFO, "needinfo.skipped", LF_INT("bug", q->bug_id),
				  LF_STR("reason", "the bug is no longer public: no reminder"));
			return BB_OK;
		}
		bz_bug_release(&live);
	}
	if ((s = store_begin(sc->db, err)))
		return s;
	if ((s = sync_load_bug(sc, q->bug_id, 0, &bug, err))) {
		store_rollback(sc->db);
		return s;
	}
	bb_day_text(q->asked_at, asked, sizeof(asked));
	bb_day_text(now + sc->cfg->aging_needinfo_close, close, sizeof(close));
	buf_addf(&text, "A reminder: this question to %s, asked on %s, has no answer yet:\n\n"
		 "  %s\n\nWithout an answer, the bug is closed on %s; a reply from %s\n"
		 "reopens it then.\n", asked_text(q), asked, q->question, close, asked_text(q));
	question_id = notice_message_id(sc, q, STEP_QUESTION);
	if (!text.data || !question_id)
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if (!s)
		s = question_move(sc, q->id, "waiting", "reminded", "reminded_at", NULL, &moved, err);
	if (!s && moved)
		s = queue_notice(sc, &bug, q, STEP_REMINDER, text.data, question_id, err);
	s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	if (!s && moved) {
		stats->reminded++;
		test_hook("needinfo.reminded");
	}
	bz_bug_release(&bug);
	buf_release(&text);
	free(question_id);
	return s;
}

enum bb_status needinfo_round(struct sync_context *sc, struct needinfo_stats *stats,
			      struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	struct question *due = NULL;
	size_t n = 0, alloc = 0;
	time_t now = bb_now();
	enum bb_status s;

	memset(stats, 0, sizeof(*stats));
	if (sc->dry_run || !sc->bz)
		return BB_OK;
	if ((s = marks(sc, stats, err)))
		return s;
	if ((s = store_prepare(sc->db, &st, "SELECT " QUESTION_COLUMNS " FROM needinfo"
				      " WHERE state IN ('waiting', 'reminded', 'closing', 'reopening')"
				      " ORDER BY id", err)))
		return s;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n == alloc) {
			struct question *more = realloc(due, (alloc = alloc ? 2 * alloc : 16) *
							     sizeof(*due));

			if (!more) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				break;
			}
			due = more;
		}
		question_read(st, &due[n++]);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < n && !s; i++) {
		struct question *q = &due[i];
		int public = sync_bug_eligibility(sc->db, NULL, NULL, q->bug_id, 0, NULL) ==
			     SYNC_ELIGIBLE;

		if (!strcmp(q->state, "reopening")) {
			s = do_reopen(sc, q, stats, err);
			continue;
		}
		if (!public) {
			/* private or restricted now: no reminder, no closing */
			stats->skipped++;
			log_event(LOG_LEVEL_DEBUG, "needinfo.skipped", LF_INT("bug", q->bug_id),
				  LF_STR("reason", "the bug is not mirrored (private or restricted)"));
			continue;
		}
		if (!strcmp(q->state, "waiting") && now >= q->asked_at + sc->cfg->aging_needinfo_remind) {
			/* muted ("#bugbridge no-reminders", bridge/digest.h): it waits */
			if (!digest_bug_muted(sc->db, q->bug_id))
				s = remind(sc, q, stats, err);
		} else if (!strcmp(q->state, "reminded") &&
			   now >= q->reminded_at + sc->cfg->aging_needinfo_close) {
			int moved = 0;

			if (!(s = store_begin(sc->db, err))) {
				s = question_move(sc, q->id, "reminded", "closing", NULL, NULL, &moved,
						  err);
				s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
			}
			if (!s && moved) {
				test_hook("needinfo.closing");
				s = do_close(sc, q, stats, err);
			}
		} else if (!strcmp(q->state, "closing")) {
			s = do_close(sc, q, stats, err);
		}
	}
	for (size_t i = 0; i < n; i++)
		question_release(&due[i]);
	free(due);
	return s;
}

void needinfo_state_text(struct store *db, long long bug, char *out, size_t size)
{
	sqlite3_stmt *q = NULL;
	char day[16] = "";

	*out = '\0';
	if (store_prepare(db, &q, "SELECT state, asked_at, reminded_at FROM needinfo"
			  " WHERE bug_id = ?1 ORDER BY id DESC LIMIT 1", NULL) != BB_OK)
		return;
	sqlite3_bind_int64(q, 1, bug);
	if (sqlite3_step(q) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(q, 0);
		time_t when = (time_t)sqlite3_column_int64(q, !strcmp(state, "reminded") ? 2 : 1);

		if (when > 0)
			bb_day_text(when, day, sizeof(day));
		if (!strcmp(state, "waiting"))
			snprintf(out, size, "waiting since %s", day);
		else if (!strcmp(state, "reminded"))
			snprintf(out, size, "reminded %s", day);
		else if (!strcmp(state, "closing") || !strcmp(state, "closed"))
			snprintf(out, size, "closed unanswered");
	}
	sqlite3_finalize(q);
}
