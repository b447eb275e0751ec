/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "#bugbridge track": a list thread that belongs to no bug becomes one.
 * The mail that says it is recorded (state "track") with the archive's
 * cursor; its sender checked, the thread is fetched from the archive and
 * the bug created, found again by its URL after a crash; then every mail
 * of the thread is recorded, the first as the description and the others
 * as comments to post (see inbound.h for the exactly-once rules). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bridge/inbound_answer.h"
#include "bridge/inbound_comment.h"
#include "bridge/inbound_finish.h"
#include "bridge/inbound_mail.h"
#include "bridge/inbound_rows.h"
#include "bridge/inbound_sender.h"
#include "bridge/inbound_track.h"
#include "bridge/inbound_tracker.h"
#include "bugzilla/bug.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "mail/inmail.h"

struct thread {
	struct buf *raw;             /* each message */
	size_t n, alloc;
};

static enum bb_status thread_add(void *ctx, const char *raw, size_t len)
{
	struct thread *t = ctx;

	if (t->n == t->alloc) {
		size_t alloc = t->alloc ? t->alloc * 2 : 8;
		struct buf *nr;

		if (alloc > 10000)
			return BB_ERR_TOO_LARGE;
		nr = realloc(t->raw, alloc * sizeof(*nr));
		if (!nr)
			return BB_ERR_NOMEM;
		t->raw = nr;
		t->alloc = alloc;
	}
	t->raw[t->n] = (struct buf)BUF_INIT;
	if (buf_add(&t->raw[t->n], raw, len))
		return BB_ERR_NOMEM;
	t->n++;
	return BB_OK;
}

static void thread_release(struct thread *t)
{
	for (size_t i = 0; i < t->n; i++)
		buf_release(&t->raw[i]);
	free(t->raw);
	memset(t, 0, sizeof(*t));
}


/* The whole thread of the mail self that says "#bugbridge track", oldest
 * first, with that mail in it (as the archive gives it, else self's bytes
 * added). */
static enum bb_status track_thread(const struct inbound_options *opt, struct prepared_mail *self,
				   struct thread *t, struct bb_error *err)
{
	const char *message_id = self->m.message_id;
	enum bb_status s = BB_OK;
	int has_self = 0;

	if (opt->fetch_thread &&
	    (s = opt->fetch_thread(opt->fetch_thread_ctx, message_id, thread_add, t, err)))
		return s;
	for (size_t i = 0; i < t->n && !has_self; i++) {
		struct inmail m;

		memset(&m, 0, sizeof(m));
		if (prepared_mail_is(self, t->raw[i].data, t->raw[i].len))
			has_self = 1;
		else if (inmail_parse_headers(t->raw[i].data, t->raw[i].len, NULL, &m, NULL) ==
				 BB_OK && m.message_id && !strcmp(m.message_id, message_id))
			has_self = 1;
		inmail_release(&m);
	}
	if (!has_self && (s = thread_add(t, self->raw, self->len)))
		return bb_error_set(err, s, "out of memory");
	return BB_OK;
}

/* Creates the bug of a tracked thread (or finds it, by its URL: a crash
 * came between creating it and recording it, or the state was put back
 * from an older backup), then records every mail of the thread: the first
 * as the description, the others as comments to post. */
static enum bb_status track_create(struct sync_context *sc, const struct inbound_options *opt,
				   const struct thread *t, const char *track_mid,
				   struct prepared_mail *self, struct inbound_stats *stats,
				   struct bb_error *err)
{
	char *track_from = NULL;
	const struct inmail_options iopt = { sc->cfg->mail_domain };
	struct inmail own_root;
	struct inmail_body own_body;
	const struct inmail *root = &own_root;
	const struct inmail_body *body = &own_body;
	struct bz_bug created;
	char *link = NULL, *description = NULL;
	long long bug_id = 0;
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	memset(&own_root, 0, sizeof(own_root));
	memset(&own_body, 0, sizeof(own_body));
	memset(&created, 0, sizeof(created));
	if (prepared_mail_is(self, t->raw[0].data, t->raw[0].len)) {
		/* the track mail is the thread's root: read once */
		root = &self->m;
		if (!(body = prepared_mail_body(self, err))) {
			s = err->code;
			goto out;
		}
	} else if ((s = inmail_parse_headers(t->raw[0].data, t->raw[0].len, &iopt, &own_root,
					     err)) ||
		   (s = inmail_decode(t->raw[0].data, t->raw[0].len, &own_body, err))) {
		goto out;
	}
	if (!root->message_id) {
		s = bb_error_set(err, BB_ERR_INVALID, "the thread's first mail has no Message-ID");
		goto out;
	}
	link = inbound_archive_link(opt, root->message_id);
	if (!link) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = bz_find_bug_by_url(sc->bz, link, &bug_id, err)))
		goto out;
	if (!bug_id) {
		const struct bz_change fields[] = {
			{ "product", sc->cfg->inbound_track_product },
			{ "component", sc->cfg->inbound_track_component },
			{ "version", sc->cfg->inbound_track_version },
			{ "op_sys", sc->cfg->inbound_track_op_sys },
			{ "platform", sc->cfg->inbound_track_platform },
			{ "summary", *inmail_bare_subject(root->subject) ? inmail_bare_subject(root->subject)
								: "(no subject)" },
			{ "url", link },
		};
		char *text = inbound_strip_commands(body->text ? body->text : "");
		struct buf d = BUF_INIT;

		buf_addf(&d, "%s%s%s%s reported on the list:\n\n", root->from_name ? root->from_name : "",
			 root->from_name && *root->from_name ? " <" : "", root->from_addr ? root->from_addr : "",
			 root->from_name && *root->from_name ? ">" : "");
		buf_addstr(&d, text ? text : "");
		inbound_add_parts(sc, root, body, &d);
		buf_addf(&d, "\nArchived at %s\nMessage-ID: <%s>\n", link, root->message_id);
		free(text);
		description = buf_detach(&d, NULL);
		if (!sc->cfg->inbound_track_product || !sc->cfg->inbound_track_component) {
			s = bb_error_set(err, BB_ERR_CONFIG, "#bugbridge track needs [inbound]"
					 " track_product and track_component");
			goto out;
		}
		test_hook("inbound.create");
		if ((s = bz_create_bug(sc->bz, fields, sizeof(fields) / sizeof(fields[0]),
				       description, &bug_id, err)))
			goto out;
		test_hook("inbound.created");
		stats->bugs_created++;
		log_event(LOG_LEVEL_INFO, "inbound.tracked", LF_INT("bug", bug_id),
			  LF_STR("thread", root->message_id));
	}
	/* the description's comment id, so it is never mailed back */
	created.id = bug_id;
	if ((s = bz_fetch_comments(sc->bz, &created, 1, 0, err)))
		goto out;
	if ((s = store_begin(sc->db, err)))
		goto out;
	if ((s = store_prepare(sc->db, &st,
			       "INSERT INTO bz_bug (id, summary, product, component, status,"
			       " mirrored, recipients, fields) VALUES (?, ?, ?, ?, 'NEW', 1, '', 'null')"
			       " ON CONFLICT (id) DO NOTHING", err)))
		goto rollback;
	sqlite3_bind_int64(st, 1, bug_id);
	sqlite3_bind_text(st, 2, inmail_bare_subject(root->subject), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, sc->cfg->inbound_track_product, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, sc->cfg->inbound_track_component, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		s = store_fail(sc->db, err, "recording a tracked bug");
		goto rollback;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (created.ncomments) {
		if ((s = store_prepare(sc->db, &st,
				       "INSERT INTO bz_comment (id, bug_id, count, time, origin, message_id)"
				       " VALUES (?, ?, 0, ?, 'bridge', ?) ON CONFLICT (id) DO NOTHING",
				       err)))
			goto rollback;
		sqlite3_bind_int64(st, 1, created.comments[0].id);
		sqlite3_bind_int64(st, 2, bug_id);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)created.comments[0].time);
		sqlite3_bind_text(st, 4, root->message_id, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			s = store_fail(sc->db, err, "recording a tracked bug");
			goto rollback;
		}
		store_keys_add(sc->db, STORE_KEYS_MAIL, root->message_id);
		sqlite3_finalize(st);
		st = NULL;
	}
	/* the other mails of the thread become comments (the root and the
	 * track mail itself are recorded too) */
	for (size_t i = 0; i < t->n && !s; i++) {
		struct inmail own;
		struct inmail_body b;
		const struct inmail_body *body_i = &b;
		int is_self = prepared_mail_is(self, t->raw[i].data, t->raw[i].len);
		const struct inmail *mp = is_self ? &self->m : &own;
		char *comment = NULL, *rest = NULL;
		const char *parent = NULL;
		int count = -1;

		memset(&own, 0, sizeof(own));
		memset(&b, 0, sizeof(b));
		if ((!is_self &&
		     inmail_parse_headers(t->raw[i].data, t->raw[i].len, &iopt, &own, NULL) != BB_OK) ||
		    !mp->message_id) {
			inmail_release(&own);
			continue;
		}
		if (!track_from && !strcmp(mp->message_id, track_mid) && mp->from_addr)
			track_from = strdup(mp->from_addr);
		if (i > 0 && (mp->from_bridge || mp->auto_reply)) {
			/* never a comment, as when read on their own: the
			 * bridge's answers in the thread (one read again, when
			 * the state was put back from an older backup), an
			 * auto-reply */
			if (inbound_mail_seen(sc, mp->message_id))
				s = inbound_mail_forget(sc, mp->message_id, err);
			if (!s)
				s = inbound_mail_record(sc, opt, mp, bug_id, mp->in_reply_to, "ignored",
							mp->from_bridge ? "sent by bugbridge"
								      : "an automatic reply",
							NULL, NULL, err);
			if (!s && mp->mark)
				s = inbound_own_mail_sent(sc, mp, bug_id, t->raw[i].data,
							  t->raw[i].len, err);
		} else if (i == 0) {
			/* the description: nothing to post; a root seen before
			 * (the track mail itself) now belongs to the bug */
			if (inbound_mail_seen(sc, mp->message_id))
				s = inbound_mail_forget(sc, mp->message_id, err);
			if (!s)
				s = inbound_mail_record(sc, opt, mp, bug_id, NULL, "posted",
							"thread root", NULL, NULL, err);
		} else {
			/* a comment, in thread order; the track mail, recorded
			 * when it was read, takes its place among them */
			if (inbound_mail_seen(sc, mp->message_id))
				s = inbound_mail_forget(sc, mp->message_id, err);
			inbound_known_message(sc, NULL, mp->in_reply_to, &count);
			parent = mp->in_reply_to;
			if (is_self)
				body_i = prepared_mail_body(self, NULL);
			else if (s || inmail_decode(t->raw[i].data, t->raw[i].len, &b, NULL) != BB_OK)
				body_i = NULL;
			if (!s && body_i) {
				rest = inbound_strip_commands(body_i->text ? body_i->text : "");
				if ((rest && inbound_has_own_text(rest)) || body_i->nparts)
					comment = inbound_compose_comment(sc, opt, mp, body_i, rest,
									  count);
			}
			if (!s)
				s = inbound_mail_record(sc, opt, mp, bug_id, parent,
						comment ? "intent" : "no-comment", NULL, comment, NULL,
						err);
		}
		free(rest);
		free(comment);
		inmail_body_release(&b);
		inmail_release(&own);
	}
	if (!s) {
		/* the answer, in the same transaction: queued once the bug is
		 * recorded, never twice (bug-N-r0: mail rows start at 1) */
		char *text = str_printf("%s  #bugbridge track\n    done: this thread is bug %lld now;"
					" its replies become the bug's comments\n", ANSWER_HEADING,
					bug_id);
		struct bz_bug bug;

		memset(&bug, 0, sizeof(bug));
		bug.id = bug_id;
		bug.summary = (char *)inmail_bare_subject(root->subject);
		bug.product = sc->cfg->inbound_track_product;
		bug.component = sc->cfg->inbound_track_component;
		bug.status = (char *)"NEW";
		s = text ? inbound_queue_answer(sc, &bug, track_from, track_mid, 0, text, 0,
						stats, err)
			 : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		free(text);
	}
	if (s)
		goto rollback;
	s = store_commit(sc->db, err);
	goto out;
rollback:
	sqlite3_finalize(st);
	store_rollback(sc->db);
out:
	free(track_from);
	bz_bug_release(&created);
	free(link);
	free(description);
	inmail_body_release(&own_body);
	inmail_release(&own_root);
	return s;
}

/* A thread that cannot become a bug for good (no product configured,
 * Bugzilla refuses the fields) is recorded as failed with the reason, so
 * it does not stop every later round; a temporary failure stays for
 * inbound_resume(). */
static enum bb_status track_give_up(struct sync_context *sc, const char *message_id,
				    enum bb_status s, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;

	if (status_retry_class(s) != BB_RETRY_GIVE_UP || s == BB_ERR_NOMEM || s == BB_ERR_DATABASE)
		return s;
	log_event(LOG_LEVEL_WARN, "inbound.track_failed", LF_STR("message_id", message_id),
		  LF_STR("error", err->message));
	if (store_prepare(sc->db, &st, "UPDATE in_mail SET state = 'failed', reason = ?"
				       " WHERE message_id = ? AND state = 'track'", NULL))
		return s;
	sqlite3_bind_text(st, 1, err->message, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, message_id, -1, SQLITE_STATIC);
	s = sqlite3_step(st) == SQLITE_DONE ? BB_OK : s;
	sqlite3_finalize(st);
	if (!s)
		bb_error_clear(err);
	return s;
}

/* Posts the comments a tracked thread left as intents. */
static enum bb_status finish_bug_intents(struct sync_context *sc, long long bug_id,
					 struct inbound_stats *stats, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	long long rows[512];
	size_t n = 0;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st, "SELECT id FROM in_mail WHERE bug_id = ? AND"
				      " state = 'intent' AND next_attempt <= strftime('%s', 'now')"
				      " ORDER BY id LIMIT 512", err)))
		return s;
	sqlite3_bind_int64(st, 1, bug_id);
	while (n < 512 && sqlite3_step(st) == SQLITE_ROW)
		rows[n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	for (size_t i = 0; i < n && !s; i++)
		s = inbound_finish_mail(sc, rows[i], stats, err);
	return s;
}

/* Whether the list thread of m, which is no bug, got [inbound]
 * answer_limit answers to refused tracks in the last hour: those to mails
 * whose thread root (list_thread, as the tracker keeps it) is m's, that
 * is its parent's root, else the first mail it names. */
static int thread_answers_exhausted(struct sync_context *sc, const struct inmail *m)
{
	unsigned long long limit = sc->cfg->inbound_answer_limit ? sc->cfg->inbound_answer_limit : 10;
	const char *parent = inmail_parent_id(m);
	const char *root = m->nreferences && *m->references[0] ? m->references[0]
			   : parent && *parent ? parent : m->message_id;
	sqlite3_stmt *st = NULL;
	long long n = 0;

	if (store_prepare(sc->db, &st,
			  "SELECT count(*) FROM outbox o JOIN in_mail i"
			  " ON i.id = CAST(substr(o.message_id, 9) AS INTEGER)"
			  " JOIN list_thread t ON t.mid_key = text_key(i.message_id)"
			  " AND t.message_id = i.message_id"
			  " WHERE o.message_id LIKE 'answer-r%' AND o.created > ?1"
			  " AND o.message_id = 'answer-r' || i.id || '@' || ?2"
			  " AND t.root_key = text_key(coalesce((SELECT root FROM list_thread WHERE"
			  " mid_key = text_key(?3) AND message_id = ?3), ?4))"
			  " AND t.root = coalesce((SELECT root FROM list_thread WHERE"
			  " mid_key = text_key(?3) AND message_id = ?3), ?4)", NULL) != BB_OK)
		return 0;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)time(NULL) - 3600);
	sqlite3_bind_text(st, 2, sc->cfg->mail_domain ? sc->cfg->mail_domain : "", -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(st, 3, parent ? parent : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, root ? root : "", -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return (unsigned long long)n >= limit;
}

/* A mail that belongs to no bug but says "#bugbridge track". */
enum bb_status inbound_handle_track(struct sync_context *sc, const struct inbound_options *opt,
				    struct prepared_mail *p, const char *cursor_name,
				    const char *cursor_value, struct inbound_stats *stats,
				    struct bb_error *err)
{
	const struct inmail *m = &p->m;
	struct thread t = { NULL, 0, 0 };
	char **allow = config_address_list(sc->cfg->inbound_allow, NULL);
	struct auth_verdict verdict;
	char note[sizeof(verdict.reason) + 64], why[sizeof(note) + 32];
	int history = inbound_from_history(opt, m), allowed, answer;
	long long row = 0;
	enum bb_status s;

	if ((s = prepared_mail_verdict(sc, opt, p, NULL, err))) {
		config_list_free(allow);
		return s;
	}
	verdict = p->verdict;
	allowed = verdict.authenticated && !history && inbound_address_in(m->from_addr, allow);
	config_list_free(allow);
	if (history)
		snprintf(note, sizeof(note),
			 "the mail is from the archive's history (dated before its reading began)");
	else if (!verdict.authenticated)
		snprintf(note, sizeof(note), "the sender is not authenticated: %s", verdict.reason);
	else
		snprintf(note, sizeof(note), "the sender may not create bugs");
	snprintf(why, sizeof(why), "#bugbridge track: %s", note);
	if ((s = store_begin(sc->db, err)))
		return s;
	s = inbound_mail_record(sc, opt, m, 0, NULL, allowed ? "track" : "seen",
				allowed ? NULL : why, NULL, &row, err);
	if (!s && !allowed)
		s = inbound_command_record(sc, row, 0, 0, "#bugbridge track", "refused", NULL, note,
				   err);
	answer = !s && !allowed && verdict.authenticated && !history;
	if (answer &&
	    (inbound_answers_exhausted(sc, 0, m->from_addr) || thread_answers_exhausted(sc, m))) {
		/* the sender's answers, on any thread, and the thread's */
		log_event(LOG_LEVEL_WARN, "inbound.answer_limited", LF_STR("message_id", m->message_id),
			  LF_STR("from", m->from_addr), LF_UINT("limit", sc->cfg->inbound_answer_limit));
	} else if (answer) {
		/* answered on the mail's own thread, routed as the bug would
		 * have been, under a subject of the bridge's (nothing of the
		 * sender's words but the command); a sender nobody vouches
		 * for gets nothing */
		char *text = str_printf("%s  #bugbridge track\n    refused: %s\n", ANSWER_HEADING,
					note);
		struct bz_bug stand_in;

		memset(&stand_in, 0, sizeof(stand_in));
		stand_in.product = sc->cfg->inbound_track_product;
		stand_in.component = sc->cfg->inbound_track_component;
		s = text ? inbound_queue_answer(sc, &stand_in, m->from_addr, m->message_id, row,
						text, 0, stats, err)
			 : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		free(text);
	}
	if (!s)
		s = inbound_feed_tracker(sc, opt, p, 0, &verdict, err);
	if (!s)
		s = inbound_cursor_move(sc, cursor_name, cursor_value, err);
	if (s || sc->dry_run) {
		store_rollback(sc->db);
		return s;
	}
	if ((s = store_commit(sc->db, err)))
		return s;
	if (!allowed) {
		stats->commands_refused++;
		log_event(LOG_LEVEL_INFO, "inbound.command_refused", LF_STR("from", m->from_addr),
			  LF_STR("command", "#bugbridge track"), LF_STR("reason", note));
		return BB_OK;
	}
	if (!(s = track_thread(opt, p, &t, err)))
		s = track_create(sc, opt, &t, m->message_id, p, stats, err);
	thread_release(&t);
	if (s)
		s = track_give_up(sc, m->message_id, s, err);
	if (!s) {
		long long bug_id = 0;
		int count;

		if ((bug_id = inbound_known_message(sc, NULL, m->message_id, &count)))
			s = finish_bug_intents(sc, bug_id, stats, err);
	}
	return s;
}

/* Threads whose bug was being created when a crash came. */
enum bb_status inbound_resume_tracks(struct sync_context *sc, const struct inbound_options *opt,
				     struct inbound_stats *stats, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	char *mid;

	for (;;) {
		struct thread t = { NULL, 0, 0 };
		long long bug_id;
		int count;

		if ((s = store_prepare(sc->db, &st, "SELECT message_id FROM in_mail"
					      " WHERE state = 'track' ORDER BY id LIMIT 1", err)))
			return s;
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			return BB_OK;
		}
		mid = store_column_dup(st, 0);
		sqlite3_finalize(st);
		if (!mid)
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		/* the mail itself is in the thread the archive gives */
		s = opt->fetch_thread
			? opt->fetch_thread(opt->fetch_thread_ctx, mid, thread_add, &t, err)
			: bb_error_set(err, BB_ERR_UNSUPPORTED, "cannot fetch the thread of %s", mid);
		if (!s && !t.n)
			s = bb_error_set(err, BB_ERR_NOT_FOUND, "the archive has no thread for %s", mid);
		if (!s)
			s = track_create(sc, opt, &t, mid, NULL, stats, err);
		thread_release(&t);
		if (s)
			s = track_give_up(sc, mid, s, err);
		else if ((bug_id = inbound_known_message(sc, NULL, mid, &count)))
			s = finish_bug_intents(sc, bug_id, stats, err);
		free(mid);
		if (s)
			return s;
	}
}
