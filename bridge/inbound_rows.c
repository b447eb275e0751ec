/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The inbound side's rows (inbound_rows.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>

#include "bridge/inbound_rows.h"
#include "bridge/inbound_wait.h"
#include "bridge/sync.h"
#include "core/log.h"
#include "core/store.h"
#include "mail/inmail.h"
#include "mail/mail.h"
#include "mail/outbox.h"

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
