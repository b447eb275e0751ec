/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replies to a digest (bridge/digest.h): "#bugbridge <n> <command>" acts on
 * entry n of the digest answered, as the command would on that bug's
 * thread: the same senders may (authenticated, and allowed for the bug, or
 * any authenticated sender for subscribe and unsubscribe), the same change
 * is recorded and made once (in_command, inbound_finish_mail()), and the
 * same answer goes out, In-Reply-To the reply, on the thread of the first
 * bug acted on, Cc'd to the sender.  A command that names no entry, or
 * one the digest does not have, is not understood; a sender nobody vouches
 * for is refused and answered to nobody.  The reply's own words are posted
 * to no bug, nor are the replies that follow it: a mail the reply's row
 * (whose parent is the digest) holds is no bug's (inbound_known_message()). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "bridge/cmdchange.h"
#include "bridge/digest.h"
#include "bridge/follow.h"
#include "bridge/inbound.h"
#include "bridge/inbound_internal.h"
#include "bridge/inbound_mail.h"
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

	if (c->verb == MAILCMD_INVALID || !bug_id || c->verb == MAILCMD_TRACK) {
		if (!vouched)
			return BB_OK;   /* not understood, from nobody vouched for: no answer */
		if (c->verb == MAILCMD_INVALID)
			why = c->error;
		else if (c->verb == MAILCMD_TRACK)
			why = "a digest's entry is a bug already";
		else if (c->entry <= 0)
			why = "name the digest's entry: #bugbridge <n> <command>";
		else
			why = (snprintf(note, sizeof(note), "the digest has no entry %d", c->entry), note);
		stats->commands_invalid++;
		return inbound_command_record(sc, row, i, 0, c->text, "invalid", NULL, why, err);
	}
	have = sync_bug_eligibility(sc->db, NULL, NULL, bug_id, 0, NULL) == SYNC_ELIGIBLE &&
	       sync_load_bug(sc, bug_id, 0, &bug, NULL) == BB_OK;
	allowed = vouched && have && inbound_sender_allowed(sc, &bug, m->from_addr);
	if (have)
		bz_bug_release(&bug);
	if (!allowed && !(vouched && have && follow_verb(c->verb))) {
		why = !vouched ? unvouched
		      : !have ? "the bug is not public (not mirrored, or restricted to groups)"
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
	/* the row goes with the first bug acted on: its thread carries the
	 * answer */
	for (size_t i = 0; i < n && !first; i++)
		if (cmds[i].verb != MAILCMD_INVALID && cmds[i].entry > 0)
			first = digest_entry_bug(sc->db, digest, cmds[i].entry);
	if ((s = store_begin(sc->db, err)))
		goto out;
	s = inbound_mail_record(sc, opt, m, first, parent, "intent", NULL, NULL, &row, err);
	if (!s && vouched) {
		/* its commands get an answer (inbound.c's answer_commands()) */
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
