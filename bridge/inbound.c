/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <glib.h>

#include "bridge/cmdchange.h"
#include "bridge/follow.h"
#include "bridge/inbound.h"
#include "bridge/inbound_comment.h"
#include "bridge/inbound_digest.h"
#include "bridge/inbound_finish.h"
#include "bridge/inbound_mail.h"
#include "bridge/inbound_rows.h"
#include "bridge/inbound_sender.h"
#include "bridge/inbound_track.h"
#include "bridge/inbound_tracker.h"
#include "bridge/inbound_wait.h"
#include "bridge/mailcmd.h"
#include "bridge/needinfo.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/store.h"
#include "mail/auth.h"
#include "mail/inmail.h"
#include "mail/mail.h"
#include "tracker/tracker.h"

/* ------------------------------------------------------------ helpers */

/* Most references a round's memo holds (struct ref_memo: inbound_rows.h). */
#define REF_MEMO_MAX 200000

static void ref_memo_clear(struct ref_memo *memo)
{
	if (memo && memo->unknown)
		g_hash_table_remove_all(memo->unknown);
}

/* Forgets everything if the database changed since it was learnt. */
static void ref_memo_check(struct sync_context *sc, struct ref_memo *memo)
{
	unsigned version = 0;

	if (!memo || !memo->unknown)
		return;
	if (sqlite3_file_control(sc->db->db, "main", SQLITE_FCNTL_DATA_VERSION, &version) !=
	    SQLITE_OK || version != memo->version || g_hash_table_size(memo->unknown) > REF_MEMO_MAX)
		ref_memo_clear(memo);
	memo->version = version;
}

/* Whether replies may be posted into the bug: sync_bug_eligibility(). */
static int bug_mirrored(struct sync_context *sc, long long id)
{
	return sync_bug_eligibility(sc->db, NULL, NULL, id, 0, NULL) == SYNC_ELIGIBLE;
}

/* "[Bug 12345]" anywhere in the subject, for clients that break threads. */
static long long subject_bug(const char *subject)
{
	const char *p = subject;

	while (p && (p = strstr(p, "[Bug ")) != NULL) {
		char *end;
		long long id = strtoll(p + 5, &end, 10);

		if (end > p + 5 && *end == ']' && id > 0)
			return id;
		p += 5;
	}
	return 0;
}

/* The bug a mail belongs to: its parent first, then its References from
 * the nearest back, then the subject.  *parent gets the Message-ID it was
 * matched through (NULL for the subject), *count the comment it answers. */
static long long match_mail(struct sync_context *sc, struct ref_memo *memo,
			    const struct inmail *m, const char **parent, int *count)
{
	long long bug;
	size_t n = 0;

	*parent = NULL;
	*count = -1;
	if ((bug = inbound_known_message(sc, memo, m->in_reply_to, count))) {
		*parent = m->in_reply_to;
		return bug;
	}
	while (m->references && m->references[n])
		n++;
	while (n-- > 0) {
		if ((bug = inbound_known_message(sc, memo, m->references[n], count))) {
			*parent = m->references[n];
			return bug;
		}
	}
	bug = subject_bug(m->subject);
	return bug && bug_mirrored(sc, bug) ? bug : 0;
}

/* Whether inbound_strip_commands() would drop a line of body. */
static int has_command_line(const char *body)
{
	for (const char *p = body; p && *p;) {
		size_t len = strcspn(p, "\n"), lead = strspn(p, " \t");

		if (lead < len && !strncasecmp(p + lead, "#bugbridge", 10))
			return 1;
		p += len + (p[len] == '\n');
	}
	return 0;
}

/* ----------------------------------------------------------- commands */

enum bb_status inbound_command_end(struct sync_context *sc, long long mail, int seq,
				   int only_intent, const char *state, const char *note,
				   struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st, only_intent
			       ? "UPDATE in_command SET state = ?, note = ?"
				 " WHERE mail = ? AND seq = ? AND state = 'intent'"
			       : "UPDATE in_command SET state = ?, note = ? WHERE mail = ? AND seq = ?",
			       err)))
		return s;
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, note, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, mail);
	sqlite3_bind_int(st, 4, seq);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a mail command");
	sqlite3_finalize(st);
	return s;
}

/* ------------------------------------------------------------ batches */

/* A round's open batch transaction (see on_message()).  Each mail of the
 * batch moves the archive's cursor here, and the cursor is written once,
 * in that transaction, right before the batch commits (batch_commit()), so
 * the batch's effects and the cursor past them reach the disk together or
 * not at all. */
struct batch {
	const char *name;        /* the cursor's; not owned; NULL: nothing pending */
	struct buf value;        /* where the cursor goes */
	/* The position on_message() was handed (valid during its call), and
	 * how much of it is the position handed before (archive_position_kept()):
	 * when value holds that one (value_prev), a mail appends only its own
	 * bytes to it, not the whole cursor again (which in a Maildir names
	 * every mail of the cursor's window: a copy of it for each mail of
	 * one mtime second was a time quadratic in their number) */
	const char *handed;
	size_t kept;
	int value_prev, value_now;   /* value holds the last, this call's position */
	unsigned mails;          /* read in this batch */
	struct timespec opened;  /* when it began */
	unsigned max_mails;      /* it commits at this many mails */
	long max_ms;             /* or once this old (looked at every 64 mails) */
};

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A batch begins: empty, and its clock started. */
static void batch_opened(struct batch *b)
{
	if (!b)
		return;
	b->mails = 0;
	clock_gettime(CLOCK_MONOTONIC, &b->opened);
}

/* Counts a mail into the batch; why it must commit now ("full", "time"),
 * or NULL. */
static const char *batch_over(struct batch *b)
{
	if (++b->mails >= b->max_mails)
		return "full";
	if (b->mails % 64 == 0 && ms_since(&b->opened) >= b->max_ms)
		return "time";
	return NULL;
}

/* inbound_cursor_move(), put off to the batch's commit when a batch is open
 * around the mail's own transaction (depth 2). */
static enum bb_status cursor_move_later(struct sync_context *sc, struct batch *later,
					const char *name, const char *value, struct bb_error *err)
{
	int own = later && value == later->handed;

	if (!later || sc->db->depth < 2 || !name || !value)
		return inbound_cursor_move(sc, name, value, err);
	if (own && later->value_now) {
		/* (moved there before in this call) */
	} else if (own && later->value_prev && later->kept && later->kept == later->value.len) {
		if (buf_addstr(&later->value, value + later->kept))
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	} else {
		buf_reset(&later->value);
		if (buf_addstr(&later->value, value))
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	later->value_now = own;
	later->name = name;
	return BB_OK;
}

/* Forgets the pending cursor (its batch was rolled back). */
static void cursor_later_drop(struct batch *later)
{
	if (later)
		later->name = NULL;
}

/* Commits the open batch transaction, with the pending cursor written in
 * it; why says what ended the batch (for the log). */
static enum bb_status batch_commit(struct sync_context *sc, struct batch *later, const char *why,
				   struct bb_error *err)
{
	enum bb_status s = BB_OK;

	if (later && later->name) {
		if (!sc->dry_run)
			s = inbound_cursor_move(sc, later->name, later->value.data, err);
		later->name = NULL;
	}
	if (s) {
		store_rollback(sc->db);
		return s;
	}
	test_hook("inbound.batch");
	if (later) {
		log_event(LOG_LEVEL_DEBUG, "inbound.batch", LF_UINT("mails", later->mails),
			  LF_INT("ms", ms_since(&later->opened)), LF_STR("ended", why));
		batch_opened(later);   /* (for a batch opened again after this one) */
	}
	return store_commit(sc->db, err);
}

/* Records the commands of a mail to bug_id (intents, or why not), all in
 * the caller's transaction. */
static enum bb_status record_commands(struct sync_context *sc, const struct inmail *m,
				      const struct auth_verdict *verdict, int history,
				      int in_thread, long long bug_id,
				      long long row, const struct mailcmd *cmds, size_t ncmds,
				      struct inbound_stats *stats, struct bb_error *err)
{
	struct bz_bug bug;
	int have_bug = sync_load_bug(sc, bug_id, 0, &bug, NULL) == BB_OK;
	int allowed = have_bug && verdict->authenticated &&
		      inbound_sender_allowed(sc, &bug, m->from_addr);
	char unauthenticated[sizeof(verdict->reason) + 64];
	enum bb_status s = BB_OK;

	snprintf(unauthenticated, sizeof(unauthenticated), "the sender is not authenticated: %s",
		 verdict->reason);
	if (history) {
		/* read from the archive's history: as if nobody vouched for it */
		allowed = 0;
		snprintf(unauthenticated, sizeof(unauthenticated),
			 "the mail is from the archive's history (dated before its reading began)");
	}

	if (verdict->authenticated && !history) {
		/* its commands get an answer (inbound_answer_commands()) */
		sqlite3_stmt *st = NULL;

		if ((s = store_prepare(sc->db, &st, "UPDATE in_mail SET authenticated = 1"
					      " WHERE id = ?", err)))
			goto out;
		sqlite3_bind_int64(st, 1, row);
		if (sqlite3_step(st) != SQLITE_DONE)
			s = store_fail(sc->db, err, "recording a mail's sender");
		sqlite3_finalize(st);
	}
	for (size_t i = 0; i < ncmds && !s; i++) {
		const struct mailcmd *c = &cmds[i];
		const char *note = NULL;
		char *change = NULL;

		/* a line not understood is answered on the thread; from a
		 * sender nobody vouches for it is only refused: no answer
		 * goes out for a forged From: (no backscatter) */
		if (c->verb == MAILCMD_INVALID && verdict->authenticated && !history) {
			stats->commands_invalid++;
			s = inbound_command_record(sc, row, (int)i, bug_id, c->text, "invalid",
						   NULL, c->error, err);
			continue;
		}
		if (c->verb == MAILCMD_TRACK) {
			/* the thread already is a bug: said to whom the
			 * answer may go, nothing to do */
			char already[64];

			if (!verdict->authenticated || history)
				continue;
			snprintf(already, sizeof(already), "already: this thread is bug %lld", bug_id);
			stats->commands_done++;
			s = inbound_command_record(sc, row, (int)i, bug_id, c->text, "done", NULL,
						   already, err);
			continue;
		}
		if (!(allowed || (follow_verb(c->verb) && have_bug && verdict->authenticated &&
				  !history)) || !in_thread) {
			/* the signature covers the threading headers, not the
			 * subject: only a mail in the bug's thread may act on it;
			 * anyone authenticated may follow or leave it */
			stats->commands_refused++;
			note = !verdict->authenticated || history ? unauthenticated
			       : !allowed && !follow_verb(c->verb) ? "the sender may not act on this bug"
			       : "the mail is not in the bug's thread (only its subject names the bug)";
			log_event(LOG_LEVEL_INFO, "inbound.command_refused", LF_INT("bug", bug_id),
				  LF_STR("from", m->from_addr), LF_STR("command", c->text),
				  LF_STR("reason", note));
			s = inbound_command_record(sc, row, (int)i, bug_id, c->text, "refused",
						   NULL, note, err);
			continue;
		}
		change = cmdchange_of(sc, c, m->from_addr, &note);
		if (!change && c->verb != MAILCMD_STOP) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			break;
		}
		s = inbound_command_record(sc, row, (int)i, bug_id, c->text, "intent", change, NULL,
					   err);
		free(change);
	}
out:
	if (have_bug)
		bz_bug_release(&bug);
	return s;
}

/* ------------------------------------------------------------- a mail */

/* A mail of bug bug_id: its comment and commands recorded (the sender
 * checked when it carries commands, unless the handling did before). */
static enum bb_status handle_matched(struct sync_context *sc, const struct inbound_options *opt,
				     struct prepared_mail *p, long long bug_id, const char *parent,
				     int count, const char *cursor_name, const char *cursor_value,
				     struct inbound_stats *stats, struct bb_error *err)
{
	const struct inmail *m = &p->m;
	const struct inmail_body *body = prepared_mail_body(p, err);
	const struct mailcmd *cmds = NULL;
	struct auth_verdict none;
	const struct auth_verdict *verdict = &none;
	int pre = p->checked;
	size_t ncmds = 0;
	char *comment = NULL, *rest = NULL;
	const char *words;
	long long row = 0;
	enum bb_status s;

	if (!body) {
		stats->rejected++;
		log_event(LOG_LEVEL_WARN, "inbound.rejected", LF_STR("message_id", m->message_id),
			  LF_STR("reason", err->message));
		if ((s = store_begin(sc->db, err)))
			return s;
		s = inbound_mail_record(sc, opt, m, bug_id, parent, "rejected", err->message, NULL,
					NULL, err);
		if (!s)
			s = inbound_cursor_move(sc, cursor_name, cursor_value, err);
		if (s) {
			store_rollback(sc->db);
			return s;
		}
		return store_commit(sc->db, err);
	}
	if (sc->cfg->inbound_commands)
		ncmds = prepared_mail_commands(p, &cmds);
	memset(&none, 0, sizeof(none));
	if ((pre || ncmds || needinfo_wants_sender(sc, bug_id, m->from_addr)) &&
	    (s = prepared_mail_verdict(sc, opt, p, NULL, err)))
		goto out;
	if (p->checked)
		verdict = &p->verdict;
	/* a mail of nothing but commands makes no comment (the text is
	 * copied only when it has command lines: it may be 50 MB) */
	words = body->text ? body->text : "";
	if (has_command_line(words) && !(words = rest = inbound_strip_commands(words))) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (inbound_has_own_text(words) || body->nparts) {
		comment = inbound_compose_comment(sc, opt, m, body, words, count);
		if (!comment) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	if ((s = store_begin(sc->db, err)))
		goto out;
	s = inbound_mail_record(sc, opt, m, bug_id, parent, "intent", NULL, comment, &row, err);
	if (!s && ncmds)
		s = record_commands(sc, m, verdict, inbound_from_history(opt, m), parent != NULL,
				    bug_id, row, cmds, ncmds, stats, err);
	if (!s)   /* an answer to #bugbridge needinfo (bridge/needinfo.h) */
		s = needinfo_mail_read(sc, m, bug_id, inbound_from_history(opt, m), verdict,
				       inbound_sender_allowed, err);
	if (!s)
		s = inbound_feed_tracker(sc, opt, p, 1, ncmds || pre ? verdict : NULL, err);
	if (!s)
		s = inbound_cursor_move(sc, cursor_name, cursor_value, err);
	if (s) {
		store_rollback(sc->db);
		goto out;
	}
	if (sc->dry_run) {
		store_rollback(sc->db);
		goto out;
	}
	if ((s = store_commit(sc->db, err)))
		goto out;
	test_hook("inbound.recorded");
	s = inbound_finish_mail(sc, row, stats, err);
out:
	free(rest);
	free(comment);
	return s;
}

/* Opens the batch transaction again after a mail handled outside it; s is
 * how that went: its error stays the one returned (a failure to reopen is
 * then dropped), else the reopening's. */
static enum bb_status batch_reopen(struct sync_context *sc, enum bb_status s,
				   struct bb_error *err)
{
	struct bb_error berr = BB_ERROR_INIT;
	enum bb_status b = sc->dry_run ? store_begin_read(sc->db, s ? &berr : err)
				       : store_begin(sc->db, s ? &berr : err);

	return s ? s : b;
}

/* A mail that belongs to a bug (or starts one) acts on Bugzilla: what is
 * recorded before must be on disk first, so a batch transaction the caller
 * holds is committed before and opened again after. */
static enum bb_status handle_durably(struct sync_context *sc, const struct inbound_options *opt,
				     struct prepared_mail *p, long long bug_id, const char *parent,
				     int count, const char *cursor_name, const char *cursor_value,
				     struct batch *later, struct inbound_stats *stats,
				     struct bb_error *err, int track)
{
	int batch = sc->db->depth > 0;
	enum bb_status s;

	if (batch && (s = batch_commit(sc, later, "a mail of a bug", err)))
		return s;
	s = track ? (track == 2 ? inbound_handle_digest : inbound_handle_track)(   /* 2: a digest's */
			    sc, opt, p, cursor_name, cursor_value, stats, err)
		  : handle_matched(sc, opt, p, bug_id, parent, count, cursor_name, cursor_value,
				   stats, err);
	return batch ? batch_reopen(sc, s, err) : s;
}

/* Whether handling the mail will ask who sent it: for its #bugbridge
 * commands (a mail of a bug, or a track command) or for a #regzbot
 * directive the tracker reads.  When it takes the body to tell, the body
 * is decoded (p keeps it for the handling). */
static int sender_check_needed(struct sync_context *sc, struct prepared_mail *p,
			       long long bug_id, const char *why)
{
	const struct inmail *m = &p->m;
	int commands = bug_id && !why && sc->cfg->inbound_commands &&
		       (p->scan & (INMAIL_SCAN_COMMAND | INMAIL_SCAN_OPAQUE));
	int directive = sc->tracker && (p->scan & (INMAIL_SCAN_REGZBOT | INMAIL_SCAN_OPAQUE));
	const struct mailcmd *cmds;

	if (!bug_id && p->track && !m->from_bridge && !m->auto_reply)
		return 1;
	/* as inbound_feed_tracker() decides to read the body */
	if ((!bug_id || why) && directive &&
	    !tracker_wants_body(sc->tracker, m, p->scan, p->raw, p->len))
		directive = 0;
	if (!commands && !directive)
		return 0;
	/* (the text alone, as the tracker and the command scan read it: the
	 * attachments wait for a mail of a bug's own handling) */
	if (!prepared_mail_body_text(p))
		return 0;   /* the handling finds it cannot be read */
	if (directive && prepared_mail_directive(p))
		return 1;
	return commands && prepared_mail_commands(p, &cmds) > 0;
}

/* Checks who sent the mail with no transaction open: the check may wait
 * for DNS ([inbound] dns_timeout), and a batch holds the store's write
 * lock, which the web front door and the next command wait for.  A batch
 * the caller holds is committed first (its cursor with it) and opened
 * again after. */
static enum bb_status check_sender_unlocked(struct sync_context *sc,
					    const struct inbound_options *opt,
					    struct prepared_mail *p, struct batch *later,
					    struct inbound_stats *stats, struct bb_error *err)
{
	int batch = sc->db->depth > 0;
	enum bb_status s;

	if (batch && (s = batch_commit(sc, later, "a mail to authenticate", err)))
		return s;
	s = prepared_mail_verdict(sc, opt, p, stats, err);
	return batch ? batch_reopen(sc, s, err) : s;
}

/* A mail whose sender's check waits for DNS: kept in in_wait as archived
 * (with the archive's cursor past it), or, read from there again, its
 * row's last check updated.  Nothing else is done with it: its comment,
 * commands and directives wait with it, all handled together once a check
 * is final, as a mail just read would be (exactly once: that handling's
 * transaction deletes the row). */
static enum bb_status mail_wait(struct sync_context *sc, const struct prepared_mail *p,
				const char *cursor_name, const char *cursor_value,
				struct batch *later, struct inbound_stats *stats,
				struct bb_error *err)
{
	const struct auth_verdict *v = &p->verdict;
	enum bb_status s;

	if (sc->dry_run)   /* (logged and counted only) */
		return inbound_wait_record(sc, p->m.message_id, p->raw, p->len, p->waited_since, v,
					   stats, err);
	if ((s = store_begin(sc->db, err)))
		return s;
	s = inbound_wait_record(sc, p->m.message_id, p->raw, p->len, p->waited_since, v, stats,
				err);
	if (!s && !p->waited_since)
		s = cursor_move_later(sc, later, cursor_name, cursor_value, err);
	return s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
}

static enum bb_status handle_prepared(struct sync_context *sc, const struct inbound_options *opt,
				     const char *cursor_name, const char *cursor_value,
				     struct prepared_mail *p, struct ref_memo *memo,
				     struct batch *later, struct inbound_stats *stats,
				     struct bb_error *err)
{
	const struct inmail *m = &p->m;
	const char *parent = NULL, *why = NULL;
	long long bug_id = 0;
	int count = -1;
	enum bb_status s;

	if (!p->waited_since) {
		stats->mails++;
		stats->bytes += p->len;
	}
	if (opt->progress && stats->mails % 256 == 0)
		opt->progress(opt->progress_ctx, stats->mails, stats->bytes);
	if (p->parsed != BB_OK || !m->message_id) {
		/* nothing to key it by: it cannot be acted on, only skipped */
		stats->rejected++;
		log_event(LOG_LEVEL_WARN, "inbound.rejected", LF_STR("cursor", cursor_value),
			  LF_STR("reason", p->err.message[0] ? p->err.message : "no Message-ID"));
		s = BB_OK;
		if (!sc->dry_run && !(s = store_begin(sc->db, err))) {
			s = cursor_move_later(sc, later, cursor_name, cursor_value, err);
			s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
		}
		goto out;
	}
	if (p->waited_since ? inbound_mail_seen(sc, m->message_id)
			    : inbound_mail_seen_or_waiting(sc, m->message_id)) {
		s = BB_OK;
		if (!sc->dry_run && !(s = store_begin(sc->db, err))) {
			s = cursor_move_later(sc, later, cursor_name, cursor_value, err);
			s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
		}
		goto out;
	}
	ref_memo_check(sc, memo);
	bug_id = p->bug_id = match_mail(sc, memo, m, &parent, &count);
	if (bug_id) {
		stats->matched++;
		if (m->from_bridge || mail_message_id_parse(sc->cfg->mail_domain, m->message_id, NULL))
			why = "sent by bugbridge";
		else if (m->auto_reply)
			why = "an automatic reply";
		else if (!bug_mirrored(sc, bug_id))
			why = "the bug is not public (not mirrored, or restricted to groups)";
	}
	/* who sent it is decided before any transaction opens, with the
	 * round's time for DNS */
	if ((p->track ||
	     (p->scan & (INMAIL_SCAN_COMMAND | INMAIL_SCAN_REGZBOT | INMAIL_SCAN_OPAQUE))) &&
	    inbound_sender_may_wait(sc, opt, m) &&
	    sender_check_needed(sc, p, bug_id, why)) {
		if ((s = check_sender_unlocked(sc, opt, p, later, stats, err)))
			goto out;
		if (p->verdict.temporary && p->waited_since)
			inbound_wait_over(&p->verdict, p->waited_since);
		if (p->verdict.temporary) {
			s = mail_wait(sc, p, cursor_name, cursor_value, later, stats, err);
			goto out;
		}
	}
	if (!bug_id && !m->from_bridge && !m->auto_reply && (p->track || ((p->scan & (INMAIL_SCAN_COMMAND |
	    INMAIL_SCAN_OPAQUE)) && inbound_digest_replied(sc, m, NULL)))) {   /* inbound_digest.c */
		s = handle_durably(sc, opt, p, 0, NULL, -1, cursor_name, cursor_value, later, stats,
				   err, p->track ? 1 : 2);
		ref_memo_clear(memo);
		goto out;
	}
	if (!bug_id || why) {
		if (why) {
			stats->ignored++;
			log_event(LOG_LEVEL_INFO, "inbound.ignored", LF_STR("message_id", m->message_id),
				  LF_INT("bug", bug_id), LF_STR("reason", why));
		}
		s = BB_OK;
		if (sc->dry_run || (s = store_begin(sc->db, err)))
			goto out;
		/* matched mails are remembered (their replies thread through
		 * them); others only move the cursor */
		if (bug_id)
			s = inbound_mail_record(sc, opt, m, bug_id, parent, "ignored", why, NULL,
						NULL, err);
		if (!s && m->mark)
			s = inbound_own_mail_sent(sc, m, bug_id, p->raw, p->len, err);
		if (!s)
			s = inbound_feed_tracker(sc, opt, p, 0, p->checked ? &p->verdict : NULL, err);
		if (!s)
			s = cursor_move_later(sc, later, cursor_name, cursor_value, err);
		s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
		goto out;
	}
	s = handle_durably(sc, opt, p, bug_id, parent, count, cursor_name, cursor_value, later,
			   stats, err, 0);
out:
	if (bug_id)
		ref_memo_clear(memo);
	return s;
}

enum bb_status inbound_handle(struct sync_context *sc, const struct inbound_options *opt,
			      const char *raw, size_t len, const char *cursor_name,
			      const char *cursor_value, struct inbound_stats *stats,
			      struct bb_error *err)
{
	struct prepared_mail p;
	enum bb_status s;

	sync_mark_key(sc);
	prepared_mail_read(&p, sc->cfg, raw, len);
	s = handle_prepared(sc, opt, cursor_name, cursor_value, &p, NULL, NULL, stats, err);
	prepared_mail_release(&p);
	return s;
}

enum bb_status inbound_resume(struct sync_context *sc, const struct inbound_options *opt,
			      struct inbound_stats *stats, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	long long rows[256];
	size_t n = 0;
	enum bb_status s;

	if (sc->dry_run)
		return BB_OK;
	if ((s = store_prepare(sc->db, &st, "SELECT id FROM in_mail WHERE state = 'intent'"
				      " AND next_attempt <= strftime('%s', 'now')"
				      " ORDER BY id LIMIT 256", err)))
		return s;
	while (n < 256 && sqlite3_step(st) == SQLITE_ROW)
		rows[n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	for (size_t i = 0; i < n && !s; i++)
		s = inbound_finish_mail(sc, rows[i], stats, err);
	if (!s)
		s = inbound_resume_tracks(sc, opt, stats, err);
	return s;
}

/* A mail read again from in_wait (inbound_check_waiting()): handled as if
 * just read, its row the cursor that moves past it. */
static enum bb_status handle_waited(struct sync_context *sc, const struct inbound_options *opt,
				    const char *raw, size_t len, const char *message_id,
				    time_t since, struct inbound_stats *stats, struct bb_error *err)
{
	struct prepared_mail p;
	enum bb_status s;

	prepared_mail_read(&p, sc->cfg, raw, len);
	p.waited_since = since;
	s = handle_prepared(sc, opt, INBOUND_WAIT_CURSOR, message_id, &p, NULL, NULL, stats, err);
	prepared_mail_release(&p);
	return s;
}

/* ------------------------------------------------------------- a round */

struct round {
	struct sync_context *sc;
	const struct inbound_options *opt;
	struct archive_source *src;
	const char *cursor_name;
	struct inbound_stats *stats;
	struct bb_error *err;
	struct ref_memo memo;
	struct batch later;          /* the open batch, and the cursor it writes */
};

/* Mails that belong to no bug only move the cursor (and feed the
 * tracker): they are recorded in batches of BATCH_MAILS per transaction,
 * or of what BATCH_MS read (a batch holds the write lock the web front
 * door may wait for).  A mail that belongs to a bug commits the batch
 * first (inbound_handle).  Each commit syncs the log: 1,000 mails a batch
 * made 1,000 commits of a history of a million.  A crash costs one batch
 * read again: the archive's cursor is committed with it. */
#define BATCH_MAILS 8000
#define BATCH_MS 500

/* BATCH_MS, or for the test suite $BUGBRIDGE_TEST_BATCH_MS (0: a batch
 * ends at its first look at the clock, after 64 mails). */
static long batch_ms(void)
{
	const char *env = getenv("BUGBRIDGE_TEST_BATCH_MS");
	char *end;
	long ms;

	if (!env || !*env)
		return BATCH_MS;
	ms = strtol(env, &end, 10);
	return *end || ms < 0 ? BATCH_MS : ms;
}

static enum bb_status on_message(void *ctx, const char *raw, size_t len, const char *position)
{
	struct round *r = ctx;
	enum bb_status s;

	r->later.handed = position;
	r->later.kept = archive_position_kept(r->src);
	r->later.value_prev = r->later.value_now;
	r->later.value_now = 0;
	if (r->sc->db->depth == 0) {
		if ((s = r->sc->dry_run ? store_begin_read(r->sc->db, r->err)
					: store_begin(r->sc->db, r->err)))
			return s;
		batch_opened(&r->later);
	}
	{
		struct prepared_mail p;

		prepared_mail_read(&p, r->sc->cfg, raw, len);
		s = handle_prepared(r->sc, r->opt, r->cursor_name, position, &p, &r->memo,
				    &r->later, r->stats, r->err);
		prepared_mail_release(&p);
	}
	if (s) {
		store_rollback(r->sc->db);
		cursor_later_drop(&r->later);
		return s;
	}
	if (r->sc->db->depth > 0) {
		const char *why = batch_over(&r->later);

		if (why)
			return batch_commit(r->sc, &r->later, why, r->err);
	}
	return BB_OK;
}

struct thread_relay {
	enum bb_status (*fn)(void *fctx, const char *raw, size_t len);
	void *fctx;
};

static enum bb_status relay_message(void *ctx, const char *raw, size_t len, const char *position)
{
	struct thread_relay *t = ctx;

	(void)position;
	return t->fn(t->fctx, raw, len);
}

static enum bb_status fetch_thread_from(void *ctx, const char *message_id,
					enum bb_status (*fn)(void *fctx, const char *raw, size_t len),
					void *fctx, struct bb_error *err)
{
	struct thread_relay t = { fn, fctx };

	return archive_fetch_thread(ctx, message_id, relay_message, &t, err);
}

char *inbound_cursor_name(const struct bb_config *cfg)
{
	return str_printf("archive:%s", cfg->archive_url ? cfg->archive_url
					: cfg->archive_path ? cfg->archive_path : "-");
}

/* When the archive's reading began ("<cursor name>:since", set on the
 * first round, or the first after an upgrade): commands in mails dated
 * before it never act. */
static enum bb_status commands_since(struct sync_context *sc, const char *cursor_name,
				     time_t *since, struct bb_error *err)
{
	char *name = str_printf("%s:since", cursor_name), *value = NULL, now[32];
	enum bb_status s;

	*since = 0;
	if (!name)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if ((s = store_cursor_get(sc->db, name, &value, NULL, err)))
		goto out;
	if (value) {
		*since = (time_t)strtoll(value, NULL, 10);
		goto out;
	}
	if (sc->dry_run)
		goto out;   /* not recorded: a dry run judges no mail as history */
	*since = time(NULL);
	snprintf(now, sizeof(now), "%lld", (long long)*since);
	if (!(s = store_begin(sc->db, err))) {
		s = store_cursor_set(sc->db, name, now, err);
		s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	}
out:
	free(value);
	free(name);
	return s;
}

enum bb_status inbound_recover(struct sync_context *sc, struct archive_source *src,
			       const struct inbound_options *opt, struct inbound_stats *stats,
			       struct bb_error *err)
{
	struct inbound_options o = *opt;
	enum bb_status s;

	if (!sc->bz)
		return BB_OK;   /* inbound_round() says why */
	if (!o.fetch_thread) {
		o.fetch_thread = fetch_thread_from;
		o.fetch_thread_ctx = src;
	}
	sync_mark_key(sc);
	s = inbound_resume(sc, &o, stats, err);
	inbound_comment_marks_clear(sc);
	return s;
}

enum bb_status inbound_round(struct sync_context *sc, struct archive_source *src,
			     const struct inbound_options *opt, struct inbound_stats *stats,
			     struct bb_error *err)
{
	struct inbound_options o = *opt;
	struct round r;
	char *name = inbound_cursor_name(sc->cfg), *cursor = NULL, *next = NULL;
	enum bb_status s;

	memset(stats, 0, sizeof(*stats));
	if (!name)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	sync_mark_key(sc);
	if (!o.fetch_thread) {
		o.fetch_thread = fetch_thread_from;
		o.fetch_thread_ctx = src;
	}
	if (!sc->bz) {
		s = bb_error_set(err, BB_ERR_CONFIG, "replies cannot be posted without a Bugzilla"
				 " ([bugzilla] url)");
		goto out;
	}
	if ((s = inbound_resume(sc, &o, stats, err)))
		goto out;
	if ((s = store_cursor_get(sc->db, name, &cursor, NULL, err)))
		goto out;
	if ((s = commands_since(sc, name, &o.commands_since, err)))
		goto out;
	if ((s = inbound_check_waiting(sc, &o, handle_waited, stats, err)))
		goto out;
	if (!cursor && !o.from_start) {
		/* a new source starts at the archive's end, not at its history */
		if ((s = archive_tail(src, &next, err)))
			goto out;
		log_event(LOG_LEVEL_INFO, "inbound.start", LF_STR("source", name),
			  LF_STR("cursor", next));
	} else {
		r.sc = sc;
		r.opt = &o;
		r.src = src;
		r.cursor_name = name;
		r.stats = stats;
		r.err = err;
		r.memo.unknown = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		r.memo.version = 0;
		r.later.name = NULL;
		buf_init(&r.later.value);
		r.later.handed = NULL;
		r.later.value_prev = r.later.value_now = 0;
		r.later.max_mails = BATCH_MAILS;
		r.later.max_ms = batch_ms();
		s = archive_poll(src, cursor, on_message, &r, &next, err);
		g_hash_table_destroy(r.memo.unknown);
		if (sc->db->depth > 0) {
			/* the last batch: kept when the poll stopped on an error
			 * too, since every mail in it was handled */
			enum bb_status c = batch_commit(sc, &r.later, "the round's end", s ? NULL : err);

			if (!s)
				s = c;
		}
		buf_release(&r.later.value);
		if (s)
			goto out;
	}
	if (next && !sc->dry_run && !(s = store_begin(sc->db, err))) {
		s = inbound_cursor_move(sc, name, next, err);
		s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	}
	log_event(stats->mails ? LOG_LEVEL_INFO : LOG_LEVEL_DEBUG, "inbound.round",
		  LF_UINT("mails", stats->mails),
		  LF_UINT("matched", stats->matched), LF_UINT("posted", stats->posted),
		  LF_UINT("ignored", stats->ignored), LF_UINT("commands", stats->commands_done),
		  LF_UINT("waiting", stats->waiting), LF_INT("dns_ms", stats->dns_ms));
out:
	inbound_comment_marks_clear(sc);
	free(cursor);
	free(next);
	free(name);
	return s;
}
