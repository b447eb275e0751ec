/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <json-c/json.h>

#include "bridge/cmdchange.h"
#include "bridge/digest.h"
#include "bridge/follow.h"
#include "bridge/inbound.h"
#include "bridge/inbound_answer.h"
#include "bridge/inbound_internal.h"
#include "bridge/inbound_mail.h"
#include "bridge/mailcmd.h"
#include "bridge/needinfo.h"
#include "bugzilla/bug.h"
#include "bugzilla/bz_fields.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "mail/auth.h"
#include "mail/inmail.h"
#include "mail/mail.h"
#include "mail/maintainers.h"
#include "tracker/tracker.h"

/* ------------------------------------------------------------ helpers */

/* References that named no mail we know, remembered through a round: a
 * thread's root and first replies are named by every later mail of it, and
 * most list mail answers nothing mirrored.  Right only as long as the
 * state it was read from: cleared when the database changes under it (its
 * data version; another process, or a commit of this one) and after every
 * mail that made a Message-ID known (a matched mail, a tracked thread). */
struct ref_memo {
	GHashTable *unknown;
	unsigned version;
};
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

/* Which bug a Message-ID we know belongs to, and which comment count it
 * is (-1 when unknown).  0 if we do not know it.  memo (or NULL) holds the
 * references found unknown this round, for when the set of the state's
 * ids cannot answer (outside a transaction, or a state too large for it). */
long long inbound_known_message(struct sync_context *sc, struct ref_memo *memo,
				const char *message_id, int *count)
{
	sqlite3_stmt *st = NULL;
	long long bug = 0;

	*count = -1;
	if (!message_id || !*message_id)
		return 0;
	if (mail_message_id_parse(sc->cfg->mail_domain, message_id, &bug)) {
		const char *dash = strchr(message_id + 4, '-'), *at = strchr(message_id, '@');

		if (!dash || dash > at)
			*count = 0;
		else if (dash[1] == 'c')
			*count = atoi(dash + 2);
		return bug;
	}
	/* (most list mail names nothing the state holds) */
	if (!store_keys_may_hold(sc->db, STORE_KEYS_MAIL, message_id))
		return 0;
	if (memo && memo->unknown && g_hash_table_contains(memo->unknown, message_id))
		return 0;
	if (store_cached(sc->db, &st, "SELECT bug_id, count FROM bz_comment WHERE message_id = ?"
				  " UNION ALL SELECT bug_id, -1 FROM in_mail WHERE message_id = ?"
				  " AND bug_id IS NOT NULL AND coalesce(parent, '') NOT LIKE 'digest-%'"
				  " LIMIT 1", NULL))   /* (a reply to a digest: no bug's thread) */
		return 0;
	sqlite3_bind_text(st, 1, message_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, message_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		bug = sqlite3_column_int64(st, 0);
		*count = sqlite3_column_int(st, 1);
	}
	store_cached_done(sc->db, st);
	if (!bug && memo && memo->unknown)
		g_hash_table_add(memo->unknown, g_strdup(message_id));
	return bug;
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

int inbound_address_in(const char *addr, char *const *list)
{
	for (size_t i = 0; addr && list && list[i]; i++) {
		char *a = mnt_address(list[i]);
		int same = a && !strcasecmp(a, addr);

		free(a);
		if (same)
			return 1;
	}
	return 0;
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

/* The body without its command lines (#bugbridge ... on a line of its own,
 * outside quotes); malloc'd. */
char *inbound_strip_commands(const char *body)
{
	struct buf out = BUF_INIT;
	const char *p = body;

	while (*p) {
		size_t len = strcspn(p, "\n");

		size_t lead = strspn(p, " \t");
		int command = lead < len && !strncasecmp(p + lead, "#bugbridge", 10);

		if (!command)
			buf_add(&out, p, len);
		if (p[len] == '\n') {
			if (!command)
				buf_addch(&out, '\n');
			len++;
		}
		p += len;
	}
	return buf_detach(&out, NULL);
}

/* Whether text holds words of its own: a line that is not blank, not
 * quoted and not an attribution ("On ..., X wrote:"). */
int inbound_has_own_text(const char *text)
{
	const char *p = text;

	while (p && *p) {
		size_t len = strcspn(p, "\n"), i = 0;

		while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
			i++;
		if (i < len && p[i] != '>' &&
		    !(len >= 6 && !strncmp(p + len - 6, "wrote:", 6)))
			return 1;
		p += len + (p[len] == '\n');
	}
	return 0;
}

/* ------------------------------------------------------- the bug itself */

/* Whether the sender may give commands for this bug: the allow-list, or
 * the people the bug's route names (M: of its MAINTAINERS section and the
 * route's people). */
int inbound_sender_allowed(struct sync_context *sc, const struct bz_bug *bug, const char *addr)
{
	char **allow = config_address_list(sc->cfg->inbound_allow, NULL);
	struct route_result route = { NULL, NULL, NULL };
	int yes = inbound_address_in(addr, allow);

	config_list_free(allow);
	if (!yes && bug && router_route(sc->router, bug, &route, NULL) == BB_OK)
		yes = inbound_address_in(addr, route.cc);
	route_result_release(&route);
	if (!yes && addr && sc->cfg->inbound_allow_group && sc->bz) {
		struct bb_error err = BB_ERROR_INIT;

		if (bz_user_in_group(sc->bz, addr, sc->cfg->inbound_allow_group, &yes, &err))
			log_event(LOG_LEVEL_WARN, "inbound.group_check_failed", LF_STR("from", addr),
				  LF_STR("error", err.message));
	}
	return yes;
}

/* ----------------------------------------------------------- commands */

enum bb_status inbound_command_record(struct sync_context *sc, long long mail, int seq,
				      long long bug_id, const char *line, const char *state,
				      const char *change, const char *note, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st,
			       "INSERT OR IGNORE INTO in_command (mail, seq, bug_id, line, state,"
			       " change, note) VALUES (?, ?, ?, ?, ?, ?, ?)", err)))
		return s;
	sqlite3_bind_int64(st, 1, mail);
	sqlite3_bind_int(st, 2, seq);
	if (bug_id)
		sqlite3_bind_int64(st, 3, bug_id);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_text(st, 4, line, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, change, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, note, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a mail command");
	sqlite3_finalize(st);
	return s;
}

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

/* --------------------------------------------------------- recording */

/* A mail of this state read back from the archive (its X-Bugbridge-Mark
 * checked: a Message-ID or loop header alone anyone can write) is
 * recorded as sent.  The outbox has it, but a state put back from an
 * older backup does not, and would send it again. */
enum bb_status inbound_own_mail_sent(struct sync_context *sc, const struct inmail *m,
				     long long bug_id, const char *raw, size_t len,
				     struct bb_error *err)
{
	int added = 0;
	enum bb_status s;

	if (!mail_mark_ok(sync_mark_key(sc), m->message_id, m->mark))
		return BB_OK;
	s = outbox_record_sent(sc->db, m->message_id, bug_id, raw, len,
			       m->date > 0 ? m->date : time(NULL), &added, err);
	if (!s && added)
		log_event(LOG_LEVEL_INFO, "inbound.sent_before", LF_STR("message_id", m->message_id),
			  LF_INT("bug", bug_id));
	return s;
}

enum bb_status inbound_mail_record(struct sync_context *sc, const struct inbound_options *opt,
				   const struct inmail *m, long long bug_id, const char *parent,
				   const char *state, const char *reason, const char *comment,
				   long long *row, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st,
			       "INSERT INTO in_mail (message_id, source, bug_id, parent, from_addr,"
			       " subject, date, state, reason, comment, updated)"
			       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", err)))
		return s;
	sqlite3_bind_text(st, 1, m->message_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, opt->source ? opt->source : "", -1, SQLITE_STATIC);
	if (bug_id)
		sqlite3_bind_int64(st, 3, bug_id);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_text(st, 4, parent, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, m->from_addr ? m->from_addr : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, m->subject ? m->subject : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)inmail_date(m));
	sqlite3_bind_text(st, 8, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 10, comment, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)time(NULL));
	if (sqlite3_step(st) != SQLITE_DONE) {
		s = store_fail(sc->db, err, "recording a list mail");
	} else {
		store_keys_add(sc->db, STORE_KEYS_MAIL, m->message_id);
		if (row)
			*row = sqlite3_last_insert_rowid(sc->db->db);
	}
	sqlite3_finalize(st);
	return s;
}

/* Drops a mail's row (and its commands) to record it again. */
enum bb_status inbound_mail_forget(struct sync_context *sc, const char *message_id,
				   struct bb_error *err)
{
	enum bb_status s;
	sqlite3_stmt *st = NULL;

	if ((s = store_prepare(sc->db, &st, "DELETE FROM in_command WHERE mail IN"
				      " (SELECT id FROM in_mail WHERE message_id = ?1);"
				      , err)))
		return s;
	sqlite3_bind_text(st, 1, message_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "forgetting a list mail");
	sqlite3_finalize(st);
	if (s || (s = store_prepare(sc->db, &st, "DELETE FROM in_mail WHERE message_id = ?", err)))
		return s;
	sqlite3_bind_text(st, 1, message_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "forgetting a list mail");
	sqlite3_finalize(st);
	return s;
}

int inbound_mail_seen(struct sync_context *sc, const char *message_id)
{
	sqlite3_stmt *st = NULL;
	int seen = 0;

	if (!store_keys_may_hold(sc->db, STORE_KEYS_MAIL, message_id))
		return 0;
	if (store_cached(sc->db, &st, "SELECT 1 FROM in_mail WHERE message_id = ?", NULL))
		return 0;
	sqlite3_bind_text(st, 1, message_id, -1, SQLITE_STATIC);
	seen = sqlite3_step(st) == SQLITE_ROW;
	store_cached_done(sc->db, st);
	return seen;
}

enum bb_status inbound_cursor_move(struct sync_context *sc, const char *name, const char *value,
				   struct bb_error *err)
{
	if (!name || !value)
		return BB_OK;
	if (!strcmp(name, INBOUND_WAIT_CURSOR))
		return inbound_wait_done(sc, value, err);
	return store_cursor_set(sc->db, name, value, err);
}

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

/* Whether the mail is from before the archive's reading began (its
 * history): its commands never act.  A mail without a usable Date counts
 * as history. */
int inbound_from_history(const struct inbound_options *opt, const struct inmail *m)
{
	time_t date;

	if (!opt->commands_since)
		return 0;
	date = inmail_date(m);
	return date <= 0 || date < opt->commands_since;
}

/* Who sent the mail, by [inbound] authenticate (mail/auth.h): only mails
 * that carry a command are checked.  The verdict is about the From:
 * domain, so the address the allow-lists are asked about must be in it.
 * A mail of the archive's history (inbound_from_history()) is not
 * checked: its commands never act, and a signature of years ago is checked
 * against today's keys, if any (a backfill would ask DNS once per
 * directive); its directives are marked as from a sender not
 * authenticated, saying why. */
enum bb_status inbound_sender_verdict(struct sync_context *sc, const struct inbound_options *opt,
				      const struct inmail *m, const char *raw, size_t len,
				      struct auth_verdict *v, struct bb_error *err)
{
	return inbound_sender_verdict_within(sc, opt, m, raw, len,
					     inbound_dns_timeout_ms(sc->cfg), v, err);
}

enum bb_status inbound_sender_verdict_within(struct sync_context *sc,
					     const struct inbound_options *opt,
					     const struct inmail *m, const char *raw, size_t len,
					     long dns_timeout_ms, struct auth_verdict *v,
					     struct bb_error *err)
{
	const struct bb_config *cfg = sc->cfg;
	int mode = auth_mode_parse(cfg->inbound_authenticate ? cfg->inbound_authenticate
							      : "dkim-or-authserv");
	struct auth_policy policy = {
		.mode = mode < 0 ? AUTH_MODE_DKIM_OR_AUTHSERV : (enum auth_mode)mode,
		.trusted_authserv_id = cfg->inbound_trusted_authserv_id,
		.dkim_key_file = cfg->inbound_dkim_key_file,
		.authserv_methods = cfg->inbound_authserv_methods,
	};
	const char *at = m->from_addr ? strrchr(m->from_addr, '@') : NULL;
	enum bb_status s;

	policy.dns_timeout_ms = dns_timeout_ms;
	if (policy.mode != AUTH_MODE_NONE && inbound_from_history(opt, m)) {
		memset(v, 0, sizeof(*v));
		snprintf(v->reason, sizeof(v->reason),
			 "not checked: the mail is from the archive's history");
		return BB_OK;
	}
	if ((s = auth_check(&policy, raw, len, v, err)))
		return s;
	if (v->authenticated && policy.mode != AUTH_MODE_NONE &&
	    (!at || g_ascii_strcasecmp(at + 1, v->from_domain))) {
		v->authenticated = 0;
		snprintf(v->reason, sizeof(v->reason), "the From: address is not in the domain %s",
			 v->from_domain);
	}
	log_event(v->authenticated ? LOG_LEVEL_INFO : LOG_LEVEL_WARN, "inbound.sender_checked",
		  LF_STR("message_id", m->message_id), LF_STR("from", m->from_addr),
		  LF_STR("authenticated", v->authenticated ? "yes" : v->temporary ? "not yet" : "no"),
		  LF_STR("method", v->method ? v->method : ""), LF_STR("reason", v->reason));
	return BB_OK;
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

/* ------------------------------------------------------ doing the work */

/* The Message-ID a comment's text ends with, as every comment the bridge
 * posts does (its last line "Message-ID: <...>", blanks after it trimmed,
 * as Bugzilla trims them; g_free() it), or NULL. */
static char *marked_id(const char *text)
{
	size_t len = text ? strlen(text) : 0, start;

	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	for (start = len; start && text[start - 1] != '\n'; start--)
		;
	if (!start || len - start < 14 || strncmp(text + start, "Message-ID: <", 13) ||
	    text[len - 1] != '>')
		return NULL;
	return g_strndup(text + start + 13, len - start - 14);
}

/* The Message-IDs the comments of bug_id end with, fetched once a round
 * (sc->comment_marks): a round that posts many replies to one bug asked
 * Bugzilla for all its comments once for each. */
static enum bb_status comment_marks(struct sync_context *sc, long long bug_id, GHashTable **out,
				    struct bb_error *err)
{
	struct bz_bug bug;
	gint64 key = bug_id;
	enum bb_status s;

	if (!sc->comment_marks)
		sc->comment_marks = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
							  (GDestroyNotify)g_hash_table_destroy);
	if ((*out = g_hash_table_lookup(sc->comment_marks, &key)))
		return BB_OK;
	memset(&bug, 0, sizeof(bug));
	bug.id = bug_id;
	if ((s = bz_fetch_comments(sc->bz, &bug, 1, 0, err)))
		return s;
	*out = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	for (size_t i = 0; i < bug.ncomments; i++) {
		char *mid = marked_id(bug.comments[i].text);

		if (mid)
			g_hash_table_replace(*out, mid, g_memdup2(&bug.comments[i].id,
								   sizeof(long long)));
	}
	g_hash_table_insert(sc->comment_marks, g_memdup2(&key, sizeof(key)), *out);
	bz_bug_release(&bug);
	return BB_OK;
}

/* Whether Bugzilla already has the comment of mail message_id on the bug
 * (its last line "Message-ID: <...>"); *id gets it.  It has when a round
 * crashed after posting it, or when the state was put back from a backup
 * older than the posting: the database forgot, the bug did not. */
static enum bb_status comment_exists(struct sync_context *sc, long long bug_id,
				     const char *message_id, long long *id, struct bb_error *err)
{
	GHashTable *marks;
	const long long *found;
	enum bb_status s = comment_marks(sc, bug_id, &marks, err);

	*id = !s && (found = g_hash_table_lookup(marks, message_id)) ? *found : 0;
	return s;
}

/* The round is over: what its bugs' comments held is asked again. */
static void comment_marks_clear(struct sync_context *sc)
{
	if (sc->comment_marks)
		g_hash_table_destroy(sc->comment_marks);
	sc->comment_marks = NULL;
}

/* A comment this round posted, for comment_exists() (a bug whose comments
 * were not fetched this round is asked when it is needed). */
static void comment_posted(struct sync_context *sc, long long bug_id, const char *message_id,
			   long long id)
{
	gint64 key = bug_id;
	GHashTable *marks = sc->comment_marks ? g_hash_table_lookup(sc->comment_marks, &key)
					      : NULL;

	if (marks)
		g_hash_table_replace(marks, g_strdup(message_id), g_memdup2(&id, sizeof(id)));
}

static enum bb_status mark_posted(struct sync_context *sc, long long row, long long bug_id,
				  const char *message_id, long long comment_id,
				  struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_begin(sc->db, err)))
		return s;
	if ((s = store_prepare(sc->db, &st, "UPDATE in_mail SET state = 'posted', comment_id = ?,"
				      " updated = ? WHERE id = ?", err)))
		goto out;
	sqlite3_bind_int64(st, 1, comment_id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)time(NULL));
	sqlite3_bind_int64(st, 3, row);
	if (sqlite3_step(st) != SQLITE_DONE) {
		s = store_fail(sc->db, err, "recording a posted comment");
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* the outbound side must never mail it back; its Message-ID is the
	 * list mail, so Bugzilla replies to it thread under that mail */
	if ((s = store_prepare(sc->db, &st,
			       "INSERT INTO bz_comment (id, bug_id, count, time, origin, message_id)"
			       " VALUES (?, ?, -1, ?, 'bridge', ?) ON CONFLICT (id) DO UPDATE SET"
			       " origin = 'bridge', message_id = excluded.message_id", err)))
		goto out;
	sqlite3_bind_int64(st, 1, comment_id);
	sqlite3_bind_int64(st, 2, bug_id);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL));
	sqlite3_bind_text(st, 4, message_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a posted comment");
	else
		store_keys_add(sc->db, STORE_KEYS_MAIL, message_id);
out:
	sqlite3_finalize(st);
	if (s)
		store_rollback(sc->db);
	else
		s = store_commit(sc->db, err);
	return s;
}

/* A reply to a bug Bugzilla no longer shows us: the bug is withdrawn
 * (sync_withdraw()) and the reply recorded as ignored, with the reason. */
static enum bb_status withdraw_hidden(struct sync_context *sc, long long row, long long bug_id,
				      const char *message_id, struct inbound_stats *stats,
				      struct bb_error *err)
{
	static const char why[] = "the bug is no longer visible to bugbridge (restricted to "
				  "groups or deleted); withdrawn";
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = sync_withdraw(sc, bug_id, err)))
		return s;
	if ((s = store_prepare(sc->db, &st, "UPDATE in_mail SET state = 'ignored', reason = ?,"
			       " updated = ? WHERE id = ?", err)))
		return s;
	sqlite3_bind_text(st, 1, why, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)time(NULL));
	sqlite3_bind_int64(st, 3, row);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a list mail");
	sqlite3_finalize(st);
	if (!s) {
		stats->ignored++;
		log_event(LOG_LEVEL_WARN, "inbound.ignored", LF_STR("message_id", message_id),
			  LF_INT("bug", bug_id), LF_STR("reason", why));
	}
	return s;
}

/* A reply Bugzilla refuses for good (not for lack of access, not for a
 * temporary reason) is the sender's problem, not the bridge's: it is
 * recorded as refused with Bugzilla's words and the round goes on. */
static enum bb_status mark_refused(struct sync_context *sc, long long row, long long bug_id,
				   const char *message_id, const char *why,
				   struct inbound_stats *stats, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	log_event(LOG_LEVEL_WARN, "inbound.refused", LF_INT("bug", bug_id),
		  LF_STR("message_id", message_id), LF_STR("reason", why));
	stats->rejected++;
	if ((s = store_begin(sc->db, err)))
		return s;
	if ((s = store_prepare(sc->db, &st, "UPDATE in_mail SET state = 'refused', reason = ?,"
				      " updated = ? WHERE id = ?", err))) {
		store_rollback(sc->db);
		return s;
	}
	sqlite3_bind_text(st, 1, why, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)time(NULL));
	sqlite3_bind_int64(st, 3, row);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a refused reply");
	sqlite3_finalize(st);
	if (!s)
		s = inbound_answer_refused(sc, row, bug_id, message_id, why, stats, err);
	/* the state and its answer together: a crash loses neither */
	return s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
}

/* Posts one recorded comment (finish_mail_once() has looked for it on
 * the bug first). */
static enum bb_status post_comment(struct sync_context *sc, long long row, long long bug_id,
				   const char *message_id, const char *text,
				   struct inbound_stats *stats, struct bb_error *err)
{
	long long id = 0;
	enum bb_status s;

	test_hook("inbound.post");
	s = bz_add_comment(sc->bz, bug_id, text, 0, &id, err);
	if (s && bz_client_last_code(sc->bz) == BZ_CODE_COMMENT_TOO_LONG) {
		char *cut = inbound_shorten_comment(sc, text, message_id);

		bb_error_clear(err);
		s = cut ? bz_add_comment(sc->bz, bug_id, cut, 0, &id, err)
			: bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		free(cut);
	}
	if (s && !bz_client_bug_hidden(sc->bz, s) &&
	    status_retry_class(s) == BB_RETRY_GIVE_UP && s != BB_ERR_AUTH &&
	    s != BB_ERR_CONFIG && s != BB_ERR_NOMEM) {
		char why[sizeof(err->message)];

		snprintf(why, sizeof(why), "%s", err->message);
		bb_error_clear(err);
		return mark_refused(sc, row, bug_id, message_id, why, stats, err);
	}
	if (s) {
		if (!bz_client_bug_hidden(sc->bz, s))
			return s;
		/* hidden from us since it was mirrored: restricted (or
		 * deleted), so it is withdrawn and the reply stays off it */
		bb_error_clear(err);
		return withdraw_hidden(sc, row, bug_id, message_id, stats, err);
	}
	test_hook("inbound.posted");
	comment_posted(sc, bug_id, message_id, id);
	stats->posted++;
	log_event(LOG_LEVEL_INFO, "inbound.posted", LF_INT("bug", bug_id),
		  LF_STR("message_id", message_id), LF_INT("comment", id));
	return mark_posted(sc, row, bug_id, message_id, id, err);
}

/* A command whose change the server cannot take (cmdchange_legal()): failed
 * without asking Bugzilla, its change dropped (the answer says so). */
static enum bb_status command_not_sent(struct sync_context *sc, long long mail, int seq,
				       const char *note, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st, "UPDATE in_command SET state = 'failed', note = ?,"
				      " change = NULL WHERE mail = ? AND seq = ?", err)))
		return s;
	sqlite3_bind_text(st, 1, note, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, mail);
	sqlite3_bind_int(st, 3, seq);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a mail command");
	sqlite3_finalize(st);
	return s;
}

static enum bb_status do_command(struct sync_context *sc, long long row, int seq,
				 long long bug_id, const char *line, const char *change,
				 struct inbound_stats *stats, struct bb_error *err)
{
	struct bb_error berr = BB_ERROR_INIT;
	json_object *o = change ? json_tokener_parse(change) : NULL;
	struct bz_change ch[8];
	size_t n = 0;
	char *why;
	int nomem;
	enum bb_status s = BB_OK;

	if (handover_is_change(change))   /* reassign: bridge/handover.h */
		return json_object_put(o), handover_command(sc, row, seq, bug_id, change, stats, err);
	if (needinfo_is_change(change) || follow_is_change(change) || digest_is_change(change)) {
		json_object_put(o);
		return needinfo_is_change(change)
			? needinfo_command(sc, row, seq, bug_id, change, stats, err)
			: digest_is_change(change)   /* no-reminders: bridge/digest.h */
			? digest_mute_command(sc, row, seq, bug_id, change, stats, err)
			: follow_command(sc, row, seq, bug_id, change, stats, err);
	}
	if (!change) {
		/* stop: bugbridge mirrors the bug no more */
		sqlite3_stmt *st = NULL;

		if ((s = store_prepare(sc->db, &st, "UPDATE bz_bug SET mirrored = 0 WHERE id = ?"
				       " AND mirrored", err)))
			return s;
		sqlite3_bind_int64(st, 1, bug_id);
		if (sqlite3_step(st) != SQLITE_DONE)
			s = store_fail(sc->db, err, "stopping a bug's mirror");
		sqlite3_finalize(st);
		if (!s) {
			/* a second stop in the mail finds it stopped */
			stats->commands_done++;
			s = inbound_command_end(sc, row, seq, 0, "done",
						sqlite3_changes(sc->db->db) ? NULL
						: "already: bugbridge mirrors the bug no more", err);
		}
		return s;
	}
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return inbound_command_end(sc, row, seq, 0, "failed", "unreadable change", err);
	}
	if ((why = cmdchange_legal(sc, bug_id, o, &nomem)) || nomem) {
		json_object_put(o);
		if (!why)
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		stats->commands_failed++;
		log_event(LOG_LEVEL_WARN, "inbound.command_failed", LF_INT("bug", bug_id),
			  LF_STR("command", line), LF_STR("error", why));
		s = command_not_sent(sc, row, seq, why, err);
		free(why);
		return s;
	}
	/* a change the bug already has is not sent: it would be no change,
	 * or another one (a reopen of an open bug moves it on) */
	if ((s = cmdchange_current(sc, bug_id, o, &why, &berr)) &&
	    (s == BB_ERR_NOMEM || status_retry_class(s) != BB_RETRY_GIVE_UP)) {
		json_object_put(o);
		s = bb_error_set(err, berr.code, "%s", berr.message);
		err->retry_after = berr.retry_after;
		return s;
	}
	bb_error_clear(&berr);   /* the bug cannot be read: the update tells */
	if (why) {
		json_object_put(o);
		stats->commands_done++;
		log_event(LOG_LEVEL_INFO, "inbound.command_already", LF_INT("bug", bug_id),
			  LF_STR("command", line), LF_STR("note", why));
		s = inbound_command_end(sc, row, seq, 0, "done", why, err);
		free(why);
		return s;
	}
	json_object_object_foreach(o, key, val) {
		if (n < 8) {
			ch[n].field = key;
			ch[n].value = json_object_get_string(val);
			n++;
		}
	}
	if (bz_update_bug(sc->bz, bug_id, ch, n, &berr) == BB_OK) {
		stats->commands_done++;
		log_event(LOG_LEVEL_INFO, "inbound.command", LF_INT("bug", bug_id),
			  LF_STR("command", line));
		s = inbound_command_end(sc, row, seq, 0, "done", NULL, err);
	} else if (status_retry_class(berr.code) == BB_RETRY_GIVE_UP) {
		stats->commands_failed++;
		log_event(LOG_LEVEL_WARN, "inbound.command_failed", LF_INT("bug", bug_id),
			  LF_STR("command", line), LF_STR("error", berr.message));
		s = inbound_command_end(sc, row, seq, 0, "failed", berr.message, err);
	} else {
		s = bb_error_set(err, berr.code, "%s", berr.message);
		err->retry_after = berr.retry_after;
	}
	json_object_put(o);
	return s;
}

/* With [inbound] attachments = bugzilla, the mail's attachments (stored as
 * blobs when it was read) are uploaded to the bug, each once: after a
 * crash, one whose description names this mail is not sent again. */
static enum bb_status upload_parts(struct sync_context *sc, long long bug_id,
				   const char *message_id, struct bb_error *err)
{
	char hashes[64][BLOB_HEX_LEN + 1], *names[64], *types[64];
	size_t nparts = 0;
	struct bz_bug bug;
	sqlite3_stmt *st = NULL;
	enum bb_status s = BB_OK;

	if (!sc->cfg->inbound_attachments || strcmp(sc->cfg->inbound_attachments, "bugzilla"))
		return BB_OK;
	if (store_prepare(sc->db, &st, "SELECT hash, name, declared_type FROM blob_name"
				       " WHERE origin = 'mail-part' AND origin_ref = ? ORDER BY rowid",
			  err))
		return BB_ERR_DATABASE;
	sqlite3_bind_text(st, 1, message_id, -1, SQLITE_STATIC);
	while (nparts < 64 && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);

		snprintf(hashes[nparts], sizeof(hashes[nparts]), "%s", sqlite3_column_text(st, 0));
		names[nparts] = strdup(*name ? name : "attachment");
		types[nparts] = store_column_dup(st, 2);
		nparts++;
	}
	sqlite3_finalize(st);
	if (!nparts)
		return BB_OK;
	memset(&bug, 0, sizeof(bug));
	bug.id = bug_id;
	if ((s = bz_fetch_attachments(sc->bz, &bug, 1, err)))
		goto out;
	for (size_t i = 0; i < nparts && !s; i++) {
		char *summary = names[i] && types[i]
			? str_printf("%s (from the list mail <%s>)", names[i], message_id) : NULL;
		struct blob_info info;
		int fd = -1, present = 0;
		char *data = NULL;
		long long id = 0;

		for (size_t k = 0; summary && k < bug.nattachments; k++)
			present |= bug.attachments[k].summary && !strcmp(bug.attachments[k].summary, summary);
		if (!summary) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		} else if (!present &&
			   !(s = blob_lookup(sc->blobs, hashes[i], &info, err)) &&
			   !(s = blob_open(sc->blobs, hashes[i], &fd, NULL, err))) {
			if (info.size > sc->cfg->bz_attachment_max_size) {
				log_event(LOG_LEVEL_WARN, "inbound.attachment_too_large",
					  LF_INT("bug", bug_id), LF_STR("name", names[i]));
			} else if (!(data = malloc(info.size + 1)) ||
				   fs_read_full(fd, data, (size_t)info.size) != (ssize_t)info.size) {
				s = bb_error_set(err, data ? BB_ERR_IO : BB_ERR_NOMEM,
						 "reading blob %s", hashes[i]);
			} else {
				s = bz_add_attachment(sc->bz, bug_id, names[i],
						      *types[i] ? types[i] : info.content_type, summary,
						      data, (size_t)info.size, &id, err);
			}
			close(fd);
		}
		free(data);
		free(summary);
	}
out:
	bz_bug_release(&bug);
	for (size_t i = 0; i < nparts; i++) {
		free(names[i]);
		free(types[i]);
	}
	return s;
}

/* When the bug already has the comment of recorded mail row, the mail
 * was done before: its commands run before its comment is posted.  A
 * round that crashed after posting leaves this, and so does a state put
 * back from a backup older than the posting, whose archive cursor reads
 * the mail again.  Its commands are not run again nor answered, its
 * attachments not uploaded again; it is recorded as posted.  *done says
 * whether it was. */
static enum bb_status done_before(struct sync_context *sc, long long row, int *done,
				  struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	long long bug_id = 0, id = 0;
	char *message_id = NULL;
	enum bb_status s;

	*done = 0;
	if ((s = store_prepare(sc->db, &st, "SELECT bug_id, message_id FROM in_mail WHERE id = ?"
				      " AND state = 'intent' AND comment IS NOT NULL", err)))
		return s;
	sqlite3_bind_int64(st, 1, row);
	if (sqlite3_step(st) == SQLITE_ROW) {
		bug_id = sqlite3_column_int64(st, 0);
		message_id = store_column_dup(st, 1);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (!bug_id || !message_id)
		goto out;
	if ((s = comment_exists(sc, bug_id, message_id, &id, err)) &&
	    bz_client_bug_hidden(sc->bz, s)) {
		/* restricted since: posting finds so and withdraws it */
		bb_error_clear(err);
		s = BB_OK;
	}
	if (s || !id)
		goto out;
	if ((s = store_prepare(sc->db, &st, "UPDATE in_command SET state = 'done', note = ?"
				      " WHERE mail = ? AND state = 'intent'", err)))
		goto out;
	sqlite3_bind_text(st, 1, "done before: the bug has the mail's comment", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, row);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a list mail's commands");
	sqlite3_finalize(st);
	if (s)
		goto out;
	log_event(LOG_LEVEL_INFO, "inbound.posted_before", LF_INT("bug", bug_id),
		  LF_STR("message_id", message_id), LF_INT("comment", id));
	*done = 1;
	s = mark_posted(sc, row, bug_id, message_id, id, err);
out:
	free(message_id);
	return s;
}

/* Does what a recorded mail asks: its commands, then its comment. */
static enum bb_status finish_mail_once(struct sync_context *sc, long long row,
				       struct inbound_stats *stats, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	long long bug_id = 0;
	char *message_id = NULL, *comment = NULL;
	int done = 0;
	enum bb_status s;

	if ((s = done_before(sc, row, &done, err)) || done)
		return s;
	if ((s = store_prepare(sc->db, &st, "SELECT seq, bug_id, line, change FROM in_command"
				      " WHERE mail = ? AND state = 'intent' ORDER BY seq", err)))
		return s;
	sqlite3_bind_int64(st, 1, row);
	while (!s && sqlite3_step(st) == SQLITE_ROW) {
		int seq = sqlite3_column_int(st, 0);
		char *line = store_column_dup(st, 2), *change = store_column_dup(st, 3);

		s = do_command(sc, row, seq, sqlite3_column_int64(st, 1), line ? line : "", change,
			       stats, err);
		free(line);
		free(change);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (s || (s = inbound_answer_commands(sc, row, stats, err)))
		return s;
	if ((s = store_prepare(sc->db, &st, "SELECT bug_id, message_id, comment"
				      " FROM in_mail WHERE id = ? AND state = 'intent'", err)))
		return s;
	sqlite3_bind_int64(st, 1, row);
	if (sqlite3_step(st) == SQLITE_ROW) {
		bug_id = sqlite3_column_int64(st, 0);
		message_id = store_column_dup(st, 1);
		comment = store_column_dup(st, 2);
	}
	sqlite3_finalize(st);
	if (bug_id && message_id && !s)
		s = upload_parts(sc, bug_id, message_id, err);
	if (s) {
		/* try again in a later round */
	} else if (bug_id && message_id && comment) {
		s = post_comment(sc, row, bug_id, message_id, comment, stats, err);
	} else if (message_id) {
		/* commands only: done once they are */
		if (!(s = store_prepare(sc->db, &st, "UPDATE in_mail SET state = 'no-comment',"
					     " updated = ? WHERE id = ?", err))) {
			sqlite3_bind_int64(st, 1, (sqlite3_int64)time(NULL));
			sqlite3_bind_int64(st, 2, row);
			if (sqlite3_step(st) != SQLITE_DONE)
				s = store_fail(sc->db, err, "recording a list mail");
			sqlite3_finalize(st);
		}
	}
	free(message_id);
	free(comment);
	return s;
}

/* Temporary failures in a row after which a round stops: Bugzilla is
 * down, not one bug's trouble. */
#define DEFERRED_IN_A_ROW 3

/* Does what a recorded mail asks (finish_mail_once()).  A temporary
 * failure backs this mail off (in_mail.attempts, next_attempt: 1 minute,
 * doubling, at most 6 hours) and the round goes on with the others; only
 * DEFERRED_IN_A_ROW of them in a row (Bugzilla down) stop it. */
enum bb_status inbound_finish_mail(struct sync_context *sc, long long row,
				   struct inbound_stats *stats, struct bb_error *err)
{
	enum bb_status s = finish_mail_once(sc, row, stats, err);
	sqlite3_stmt *st = NULL;
	enum bb_status u;
	char why[sizeof(err->message)];

	if (!s) {
		stats->deferred_in_a_row = 0;
		return s;
	}
	if (status_retry_class(s) == BB_RETRY_GIVE_UP || s == BB_ERR_NOMEM || s == BB_ERR_DATABASE)
		return s;
	snprintf(why, sizeof(why), "%s", err->message);
	if (store_prepare(sc->db, &st, "UPDATE in_mail SET attempts = attempts + 1,"
				       " next_attempt = ?1 + min(21600, 60 << min(attempts, 9)),"
				       " reason = ?2, updated = ?1 WHERE id = ?3", NULL))
		return s;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)time(NULL));
	sqlite3_bind_text(st, 2, why, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, row);
	u = sqlite3_step(st) == SQLITE_DONE ? BB_OK : BB_ERR_DATABASE;
	sqlite3_finalize(st);
	if (u)
		return s;
	stats->deferred++;
	log_event(LOG_LEVEL_WARN, "inbound.deferred", LF_INT("row", row), LF_STR("error", why));
	if (++stats->deferred_in_a_row >= DEFERRED_IN_A_ROW)
		return s;
	bb_error_clear(err);
	return BB_OK;
}

/* ----------------------------------------------------- the tracker */

/* Hands a mail to the regression tracker (in the caller's transaction):
 * with its decoded body when with_body, else only when the tracker wants
 * it (tracker_wants_body(), from the raw scan).  A mail with a #regzbot
 * directive has its sender checked (verdict, when the caller's handling
 * of it asked already; from the archive's history, see
 * inbound_sender_verdict()): what an unauthenticated sender's directives
 * do is marked so. */
enum bb_status inbound_feed_tracker(struct sync_context *sc, const struct inbound_options *opt,
				    struct prepared_mail *p, int with_body,
				    const struct auth_verdict *verdict, struct bb_error *err)
{
	const char *body = NULL;
	enum bb_status s;

	if (!sc->tracker)
		return BB_OK;
	if ((with_body || tracker_wants_body(sc->tracker, &p->m, p->scan, p->raw, p->len)) &&
	    prepared_mail_body(p, NULL))
		body = prepared_mail_text(p);
	if (body && !verdict && prepared_mail_directive(p)) {
		if ((s = prepared_mail_verdict(sc, opt, p, NULL, err)))
			return s;
		verdict = &p->verdict;
	}
	return tracker_mail(sc->tracker, &p->m, body,
			    verdict && !verdict->authenticated ? verdict->reason : NULL, err);
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
	if (!prepared_mail_body(p, NULL))
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
	comment_marks_clear(sc);
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
	comment_marks_clear(sc);
	free(cursor);
	free(next);
	free(name);
	return s;
}
