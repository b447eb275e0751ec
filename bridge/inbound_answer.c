/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bridge's answers to list mail (inbound_answer.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bridge/inbound_answer.h"
#include "bridge/route.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/store.h"
#include "mail/mail.h"
#include "mail/maintainers.h"
#include "mail/outbox.h"

/* The answer to a mail's commands (text: each line and what became of it;
 * help: add the list of commands) on the thread, In-Reply-To the mail:
 * Message-ID bug-N-r<seq>@domain, so queued again after a crash it is the
 * same mail.  To the bug's lists; Cc'd to from_addr, which callers pass
 * only for an authenticated sender.  bug is the bug of the thread, or for a
 * thread that is no bug a stand-in (id 0, the mail's subject, the product
 * and component a tracked bug would get), routed like one. */
enum bb_status inbound_queue_answer(struct sync_context *sc, const struct bz_bug *bug,
				    const char *from_addr, const char *message_id, long long seq,
				    const char *text, int help, struct inbound_stats *stats,
				    struct bb_error *err)
{
	return inbound_queue_answer_to(sc, bug, NULL, from_addr, message_id, seq, text, help, stats,
				       err);
}

/* The same To the lists to (NULL: the bug's route). */
enum bb_status inbound_queue_answer_to(struct sync_context *sc, const struct bz_bug *bug,
				       char *const *to, const char *from_addr,
				       const char *message_id, long long seq, const char *text,
				       int help, struct inbound_stats *stats, struct bb_error *err)
{
	struct route_result route = { NULL, NULL, NULL };
	struct mail_options mopt;
	struct mail_message msg = { NULL, NULL, 0 };
	char *sender = NULL, **rcpt = NULL, *cc[2] = { NULL, NULL };
	size_t n = 0;
	enum bb_status s;

	if (!to && (s = router_route(sc->router, bug, &route, err))) {
		if (s == BB_ERR_NOT_FOUND) {
			bb_error_clear(err);
			s = BB_OK;
		}
		goto out;
	}
	if (!to)
		to = route.to;
	sync_mail_options(sc->cfg, &mopt);
	mopt.mark_key = sync_mark_key(sc);
	for (size_t i = 0; to && to[i]; i++)
		n++;
	rcpt = calloc(n + 2, sizeof(*rcpt));
	sender = mnt_address(sc->cfg->mail_from);
	if (!rcpt || !sender) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		rcpt[i] = mnt_address(to[i]);
	/* the list, and the sender, who may not read it */
	if (from_addr && *from_addr) {
		rcpt[n] = strdup(from_addr);
		cc[0] = (char *)from_addr;
	}
	if ((s = mail_compose_notice(&mopt, bug, seq, text, help, to, cc, message_id, &msg,
				     err)))
		goto out;
	if (!sc->dry_run && outbox_has(sc->db, msg.message_id)) {
		/* sent before, by a state this one was put back over */
		log_event(LOG_LEVEL_INFO, "inbound.sent_before", LF_INT("bug", bug->id),
			  LF_STR("message_id", msg.message_id));
		goto out;
	}
	if (!sc->dry_run &&
	    (s = outbox_add(sc->db, msg.message_id, bug->id, 0, sender, rcpt, msg.text, msg.len,
			    err)))
		goto out;
	stats->replies_queued++;
	log_event(LOG_LEVEL_INFO, "inbound.answered", LF_INT("bug", bug->id),
		  LF_STR("message_id", message_id), LF_STR("answer", msg.message_id));
out:
	mail_message_release(&msg);
	for (size_t i = 0; rcpt && rcpt[i]; i++)
		free(rcpt[i]);
	free(rcpt);
	free(sender);
	route_result_release(&route);
	return s;
}

/* Longest command line an answer quotes, in bytes (cut at a character). */
#define ANSWER_LINE_MAX 200

/* Whether the bug's thread (bug_id > 0), or the sender (not NULL or ""),
 * already got [inbound] answer_limit answers in the last hour.  A thread's
 * are the notices queued for it, bug-N-r<row>@domain; a sender's are the
 * answers to the mails whose From: it is (answer-r<row>@domain, or
 * bug-N-r<row>@domain, row the mail's in_mail id), on any thread: each
 * refused #bugbridge track starts a thread of its own. */
int inbound_answers_exhausted(struct sync_context *sc, long long bug_id, const char *sender)
{
	sqlite3_stmt *st = NULL;
	unsigned long long limit = sc->cfg->inbound_answer_limit ? sc->cfg->inbound_answer_limit : 10;
	char *pattern = str_printf("bug-%lld-r%%", bug_id);
	long long n = 0;

	if (bug_id > 0 && pattern &&
	    store_prepare(sc->db, &st,
			  "SELECT count(*) FROM outbox WHERE bug_id = ? AND message_id LIKE ?"
			  " AND created > ?", NULL) == BB_OK) {
		sqlite3_bind_int64(st, 1, bug_id);
		sqlite3_bind_text(st, 2, pattern, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL) - 3600);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	st = NULL;
	free(pattern);
	/* the mail's row is read from the answer's Message-ID, which must be
	 * exactly what mail_notice_message_id() makes of it */
	if ((unsigned long long)n < limit && sender && *sender &&
	    store_prepare(sc->db, &st,
			  "SELECT count(*) FROM outbox o JOIN in_mail m"
			  " ON m.id = CAST(substr(o.message_id, instr(o.message_id, '-r') + 2)"
			  " AS INTEGER)"
			  " WHERE o.created > ?1 AND (o.message_id LIKE 'answer-r%'"
			  " OR o.message_id LIKE 'bug-%-r%') AND o.message_id ="
			  " (CASE WHEN o.message_id LIKE 'answer-r%' THEN 'answer'"
			  " ELSE 'bug-' || o.bug_id END) || '-r' || m.id || '@' || ?3"
			  " AND m.from_addr = ?2 COLLATE NOCASE", NULL) == BB_OK) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)time(NULL) - 3600);
		sqlite3_bind_text(st, 2, sender, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, sc->cfg->mail_domain ? sc->cfg->mail_domain : "", -1,
				  SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return (unsigned long long)n >= limit;
}

/* A reply Bugzilla refused for good is the sender's to know: one answer
 * on the thread (Message-ID bug-N-r<row>, so never twice), to the list,
 * Cc'd to the sender only when the mail authenticated them; within
 * [inbound] answer_limit. */
enum bb_status inbound_answer_refused(struct sync_context *sc, long long row, long long bug_id,
				      const char *message_id, const char *why,
				      struct inbound_stats *stats, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	char *from = NULL, *text;
	struct bz_bug bug;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st, "SELECT from_addr FROM in_mail WHERE id = ?"
				      " AND authenticated", err)))
		return s;
	sqlite3_bind_int64(st, 1, row);
	if (sqlite3_step(st) == SQLITE_ROW)
		from = store_column_dup(st, 0);
	sqlite3_finalize(st);
	if (inbound_answers_exhausted(sc, bug_id, from)) {
		log_event(LOG_LEVEL_WARN, "inbound.answer_limited", LF_INT("bug", bug_id),
			  LF_STR("message_id", message_id), LF_STR("from", from),
			  LF_UINT("limit", sc->cfg->inbound_answer_limit));
		free(from);
		return BB_OK;
	}
	text = str_printf("bugbridge could not post the mail above to bug %lld:\n\n"
			  "    Bugzilla refused it: %s\n\n"
			  "It stays on the list; the bug does not have it.\n", bug_id, why);
	if (!text) {
		free(from);
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	if ((s = sync_load_bug(sc, bug_id, 0, &bug, err)) == BB_OK) {
		s = inbound_queue_answer(sc, &bug, from, message_id, row, text, 0, stats, err);
		bz_bug_release(&bug);
	} else if (s == BB_ERR_NOT_FOUND) {
		bb_error_clear(err);
		s = BB_OK;
	}
	free(text);
	free(from);
	return s;
}

/* A command line as an answer quotes it: at most ANSWER_LINE_MAX bytes,
 * cut at a UTF-8 character boundary, "[...]" where cut. */
static void add_quoted_line(struct buf *text, const char *line)
{
	size_t len = strlen(line);

	if (len <= ANSWER_LINE_MAX) {
		buf_addstr(text, line);
		return;
	}
	len = ANSWER_LINE_MAX;
	while (len && ((unsigned char)line[len] & 0xc0) == 0x80)
		len--;
	buf_add(text, line, len);
	buf_addstr(text, " [...]");
}

/* Answers a mail's commands once all of them ran: one answer per mail, on
 * the bug's thread, Cc'd to the sender, saying of each command line what
 * became of it (done, or what the bug already had; refused and why; failed
 * with Bugzilla's message; not understood).  Only a mail whose sender was
 * authenticated is answered (in_mail.authenticated): a forged From: gets
 * no mail at all, and the thread none either.  Only the command lines are
 * quoted.  Past [inbound] answer_limit answers to the thread, or to the
 * sender, in an hour, nothing is sent (logged).  A reply to a digest none
 * of whose lines acted on a bug is answered on the digest's thread
 * (inbound_digest_answer()). */
enum bb_status inbound_answer_commands(struct sync_context *sc, long long row,
				       struct inbound_stats *stats, struct bb_error *err)
{
	static const struct {
		const char *state, *prefix;
	} outcome[] = {
		{ "done", "done" },
		{ "refused", "refused: " },
		{ "failed", "failed, Bugzilla refused it: " },
		{ "not-sent", "failed: " },   /* failed, change NULL: cmdchange_legal() */
		{ "invalid", "not understood: " },
	};
	sqlite3_stmt *st = NULL;
	struct buf text = BUF_INIT;
	char *from = NULL, *message_id = NULL;
	long long bug_id = 0;
	int help = 0;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st,
			       "SELECT c.line, c.state, c.note, m.from_addr, m.message_id, m.bug_id,"
			       " c.change IS NULL"
			       " FROM in_command c JOIN in_mail m ON m.id = c.mail WHERE c.mail = ?"
			       " AND m.authenticated AND c.state != 'intent' ORDER BY c.seq", err)))
		return s;
	sqlite3_bind_int64(st, 1, row);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(st, 1);
		const char *note = (const char *)sqlite3_column_text(st, 2);
		size_t k = 0;

		if (!strcmp(state, "failed") && sqlite3_column_int(st, 6))
			state = "not-sent";
		while (k < sizeof(outcome) / sizeof(outcome[0]) - 1 && strcmp(outcome[k].state, state))
			k++;
		help |= !strcmp(state, "invalid");
		if (!text.len)
			buf_addstr(&text, ANSWER_HEADING);
		buf_addstr(&text, "  ");
		add_quoted_line(&text, (const char *)sqlite3_column_text(st, 0));
		if (!strcmp(state, "done") && note)   /* "already ..." */
			buf_addf(&text, "\n    %s\n", note);
		else
			buf_addf(&text, "\n    %s%s\n", outcome[k].prefix,
				 strcmp(state, "done") ? (note ? note : "not understood") : "");
		if (!from) {
			from = store_column_dup(st, 3);
			message_id = store_column_dup(st, 4);
			bug_id = sqlite3_column_int64(st, 5);
		}
	}
	sqlite3_finalize(st);
	if (text.len && message_id && bug_id && inbound_answers_exhausted(sc, bug_id, from)) {
		log_event(LOG_LEVEL_WARN, "inbound.answer_limited", LF_INT("bug", bug_id),
			  LF_STR("message_id", message_id), LF_STR("from", from),
			  LF_UINT("limit", sc->cfg->inbound_answer_limit));
	} else if (text.len && message_id && bug_id && !(s = store_begin(sc->db, err))) {
		struct bz_bug bug;

		if ((s = sync_load_bug(sc, bug_id, 0, &bug, err)) == BB_OK) {
			s = inbound_queue_answer(sc, &bug, from, message_id, row, text.data, help,
						 stats, err);
			bz_bug_release(&bug);
		} else if (s == BB_ERR_NOT_FOUND) {
			bb_error_clear(err);
			s = BB_OK;
		}
		s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	} else if (text.len && message_id && !bug_id) {
		/* a reply to a digest that acted on no bug: on the digest's
		 * thread (none for a mail of no digest) */
		s = inbound_digest_answer(sc, row, from, message_id, text.data, help, stats, err);
	}
	buf_release(&text);
	free(from);
	free(message_id);
	return s;
}
