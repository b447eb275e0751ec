/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replies to a digest (bridge/digest.h): "#bugbridge <n> <command>" acts on
 * entry n of the digest answered, as the command would on that bug's
 * thread: the same senders may (authenticated, and allowed for the bug, or
 * any authenticated sender for subscribe and unsubscribe), the same change
 * is recorded and made once (in_command, inbound_finish_mail()), and the
 * same answer goes out, In-Reply-To the reply, on the thread of the first
 * public bug acted on, Cc'd to the sender.  A line that acts on no entry
 * (none named, one the digest does not have, one whose bug is no longer
 * public) is refused, saying why, and a line naming no command is not
 * understood; a reply none of whose lines acted on a bug is answered all
 * the same, once, on the digest's thread (inbound_digest_answer()).  A
 * sender nobody vouches for has every line refused and is answered to
 * nobody.  The reply's own words are posted to no bug, nor are the
 * replies that follow it: a mail the reply's row (whose parent is the
 * digest) holds is no bug's (inbound_known_message()). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "bridge/cmdchange.h"
#include "bridge/digest.h"
#include "bridge/follow.h"
#include "bridge/inbound.h"
#include "bridge/inbound_answer.h"
#include "bridge/inbound_digest.h"
#include "bridge/inbound_finish.h"
#include "bridge/inbound_mail.h"
#include "bridge/inbound_rows.h"
#include "bridge/inbound_sender.h"
#include "bridge/mailcmd.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/store.h"

long long inbound_digest_replied(struct sync_context *sc, const struct inmail *m,
				 const char **parent)
{
	long long digest;
	size_t n = 0;

	if (parent)
		*parent = NULL;
	if ((digest = digest_of_message(sc->db, m->in_reply_to))) {
		if (parent)
			*parent = m->in_reply_to;
		return digest;
	}
	while (m->references && m->references[n])
		n++;
	while (n-- > 0)
		if ((digest = digest_of_message(sc->db, m->references[n]))) {
			if (parent)
				*parent = m->references[n];
			return digest;
		}
	return 0;
}

/* Why entry n is refused when digest has no such entry: "no entry 9 in
 * this digest; it has entries 1-5" (in note). */
static const char *no_entry_note(struct sync_context *sc, long long digest, int n, char *note,
				 size_t size)
{
	sqlite3_stmt *st = NULL;
	long long first = 0, last = 0;

	if (store_prepare(sc->db, &st, "SELECT min(n), max(n) FROM digest_entry WHERE digest = ?",
			  NULL) == BB_OK) {
		sqlite3_bind_int64(st, 1, digest);
		if (sqlite3_step(st) == SQLITE_ROW) {
			first = sqlite3_column_int64(st, 0);
			last = sqlite3_column_int64(st, 1);
		}
	}
	sqlite3_finalize(st);
	if (!last)
		snprintf(note, size, "no entry %d in this digest; it has none", n);
	else if (first == last)
		snprintf(note, size, "no entry %d in this digest; it has entry %lld", n, first);
	else
		snprintf(note, size, "no entry %d in this digest; it has entries %lld-%lld", n,
			 first, last);
	return note;
}

/* Records command i of the reply (row) for the bug of its entry. */
static enum bb_status record_one(struct sync_context *sc, const struct inmail *m, long long row,
				 int i, const struct mailcmd *c, long long digest, int vouched,
				 const char *unvouched, struct inbound_stats *stats,
				 struct bb_error *err)
{
	long long bug_id = c->entry > 0 ? digest_entry_bug(sc->db, digest, c->entry) : 0;
	struct bz_bug bug;
	char note[96];
	const char *why = NULL;
	char *change;
	int have, allowed;
	enum bb_status s;

	if (c->verb == MAILCMD_INVALID && vouched) {
		stats->commands_invalid++;
		return inbound_command_record(sc, row, i, 0, c->text, "invalid", NULL, c->error,
					      err);
	}
	/* a line that acts on no entry is refused (a sender nobody vouched
	 * for is refused first, whatever the line) */
	if (!vouched)
		why = unvouched;
	else if (c->verb == MAILCMD_TRACK)
		why = "a digest's entry is a bug already";
	else if (c->entry <= 0)
		why = "name the digest's entry: #bugbridge <n> <command>";
	else if (!bug_id)
		why = no_entry_note(sc, digest, c->entry, note, sizeof(note));
	have = !why && sync_bug_eligibility(sc->db, NULL, NULL, bug_id, 0, NULL) == SYNC_ELIGIBLE &&
	       sync_load_bug(sc, bug_id, 0, &bug, NULL) == BB_OK;
	allowed = have && inbound_sender_allowed(sc, &bug, m->from_addr);
	if (have)
		bz_bug_release(&bug);
	if (why || (!allowed && !(have && follow_verb(c->verb)))) {
		if (!why)
			why = !have ? "the bug is not public (not mirrored, or restricted to groups)"
				    : "the sender may not act on this bug";
		stats->commands_refused++;
		log_event(LOG_LEVEL_INFO, "inbound.command_refused", LF_INT("bug", bug_id),
			  LF_STR("from", m->from_addr), LF_STR("command", c->text),
			  LF_STR("reason", why));
		return inbound_command_record(sc, row, i, bug_id, c->text, "refused", NULL, why, err);
	}
	change = cmdchange_of(sc, c, m->from_addr, &why);
	if (!change && c->verb != MAILCMD_STOP)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	s = inbound_command_record(sc, row, i, bug_id, c->text, "intent", change, NULL, err);
	free(change);
	return s;
}

enum bb_status inbound_handle_digest(struct sync_context *sc, const struct inbound_options *opt,
				     struct prepared_mail *p, const char *cursor_name,
				     const char *cursor_value, struct inbound_stats *stats,
				     struct bb_error *err)
{
	const struct inmail *m = &p->m;
	const char *parent = NULL;
	long long digest = inbound_digest_replied(sc, m, &parent), row = 0, first = 0;
	struct mailcmd *cmds = NULL;
	char unvouched[sizeof(p->verdict.reason) + 64];
	int history = inbound_from_history(opt, m), vouched;
	size_t n = 0;
	enum bb_status s;

	if ((s = prepared_mail_verdict(sc, opt, p, NULL, err)))
		return s;
	vouched = p->verdict.authenticated && !history;
	if (history)
		snprintf(unvouched, sizeof(unvouched),
			 "the mail is from the archive's history (dated before its reading began)");
	else
		snprintf(unvouched, sizeof(unvouched), "the sender is not authenticated: %s",
			 p->verdict.reason);
	if (sc->cfg->inbound_commands &&
	    mailcmd_parse_entries(prepared_mail_text(p), &cmds, &n, err) != BB_OK)
		return BB_ERR_NOMEM;
	/* the row goes with the first public bug acted on: its thread
	 * carries the answer; without one, the digest's thread does
	 * (inbound_digest_answer()) */
	for (size_t i = 0; i < n && !first; i++)
		if (cmds[i].verb != MAILCMD_INVALID && cmds[i].verb != MAILCMD_TRACK &&
		    cmds[i].entry > 0 &&
		    (first = digest_entry_bug(sc->db, digest, cmds[i].entry)) &&
		    sync_bug_eligibility(sc->db, NULL, NULL, first, 0, NULL) != SYNC_ELIGIBLE)
			first = 0;
	if ((s = store_begin(sc->db, err)))
		goto out;
	s = inbound_mail_record(sc, opt, m, first, parent, "intent", NULL, NULL, &row, err);
	if (!s && vouched) {
		/* its commands get an answer (inbound_answer.c's inbound_answer_commands()) */
		sqlite3_stmt *st = NULL;

		if (!(s = store_prepare(sc->db, &st, "UPDATE in_mail SET authenticated = 1"
					      " WHERE id = ?", err))) {
			sqlite3_bind_int64(st, 1, row);
			if (sqlite3_step(st) != SQLITE_DONE)
				s = store_fail(sc->db, err, "recording a mail's sender");
			sqlite3_finalize(st);
		}
	}
	for (size_t i = 0; i < n && !s; i++)
		s = record_one(sc, m, row, (int)i, &cmds[i], digest, vouched, unvouched, stats, err);
	if (!s)
		s = inbound_cursor_move(sc, cursor_name, cursor_value, err);
	if (s || sc->dry_run) {
		store_rollback(sc->db);
		goto out;
	}
	if ((s = store_commit(sc->db, err)))
		goto out;
	log_event(LOG_LEVEL_INFO, "inbound.digest_reply", LF_STR("message_id", m->message_id),
		  LF_STR("digest", parent), LF_UINT("commands", n));
	test_hook("inbound.recorded");
	s = inbound_finish_mail(sc, row, stats, err);
out:
	mailcmd_free(cmds, n);
	return s;
}

/* Whether the digest's thread (the replies whose parent is parent, the
 * digest's Message-ID) got [inbound] answer_limit answers in the last
 * hour, as inbound_answers_exhausted() counts a bug's thread. */
static int digest_thread_exhausted(struct sync_context *sc, const char *parent)
{
	sqlite3_stmt *st = NULL;
	unsigned long long limit = sc->cfg->inbound_answer_limit ? sc->cfg->inbound_answer_limit : 10;
	long long n = 0;

	if (store_prepare(sc->db, &st,
			  "SELECT count(*) FROM outbox o JOIN in_mail m"
			  " ON o.message_id = 'answer-r' || m.id || '@' || ?2"
			  " WHERE m.parent = ?1 AND o.created > ?3", NULL) == BB_OK) {
		sqlite3_bind_text(st, 1, parent, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, sc->cfg->mail_domain ? sc->cfg->mail_domain : "", -1,
				  SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL) - 3600);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return (unsigned long long)n >= limit;
}

enum bb_status inbound_digest_answer(struct sync_context *sc, long long row,
				     const char *from_addr, const char *message_id,
				     const char *text, int help, struct inbound_stats *stats,
				     struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	char *to[2] = { NULL, NULL }, *parent = NULL;
	struct bz_bug stand_in;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st, "SELECT d.list, d.message_id FROM in_mail m"
				      " JOIN digest d ON d.message_id = m.parent WHERE m.id = ?",
			       err)))
		return s;
	sqlite3_bind_int64(st, 1, row);
	if (sqlite3_step(st) == SQLITE_ROW) {
		to[0] = store_column_dup(st, 0);
		parent = store_column_dup(st, 1);
	}
	sqlite3_finalize(st);
	if (!to[0] || !parent)
		goto out;   /* no digest's: a thread of no bug, no answer */
	if (inbound_answers_exhausted(sc, 0, from_addr) || digest_thread_exhausted(sc, parent)) {
		log_event(LOG_LEVEL_WARN, "inbound.answer_limited", LF_STR("digest", parent),
			  LF_STR("message_id", message_id), LF_STR("from", from_addr),
			  LF_UINT("limit", sc->cfg->inbound_answer_limit));
		goto out;
	}
	/* no bug's: the bridge's own subject, none of the sender's words */
	memset(&stand_in, 0, sizeof(stand_in));
	if ((s = store_begin(sc->db, err)))
		goto out;
	s = inbound_queue_answer_to(sc, &stand_in, to, from_addr, message_id, row, text, help,
				    stats, err);
	s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
out:
	free(to[0]);
	free(parent);
	return s;
}
