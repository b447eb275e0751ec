/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A recorded list mail finished (inbound_finish.h). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>
#include <json-c/json.h>

#include "attachments/blob.h"
#include "bridge/cmdchange.h"
#include "bridge/digest.h"
#include "bridge/follow.h"
#include "bridge/handover.h"
#include "bridge/inbound.h"
#include "bridge/inbound_answer.h"
#include "bridge/inbound_comment.h"
#include "bridge/inbound_finish.h"
#include "bridge/needinfo.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "bugzilla/bz_client.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/status.h"
#include "core/store.h"

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
void inbound_comment_marks_clear(struct sync_context *sc)
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

/* The commands a module of their own does, by the first member of the
 * change recorded for them (cmdchange_of()). */
static const struct {
	const char *key;
	enum bb_status (*run)(struct sync_context *sc, long long row, int seq, long long bug_id,
			      const char *change, struct inbound_stats *stats,
			      struct bb_error *err);
} own_commands[] = {
	{ "reassign", handover_command },         /* bridge/handover.h */
	{ "needinfo", needinfo_command },         /* bridge/needinfo.h */
	{ "follow", follow_command },             /* subscribe, unsubscribe: bridge/follow.h */
	{ "no_reminders", digest_mute_command },  /* bridge/digest.h */
};

/* The name of o's first member; NULL when o is no object or has none. */
static const char *first_key(json_object *o)
{
	struct json_object_iterator it, end;

	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	it = json_object_iter_begin(o);
	end = json_object_iter_end(o);
	return json_object_iter_equal(&it, &end) ? NULL : json_object_iter_peek_name(&it);
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

	for (size_t i = 0; first_key(o) && i < sizeof(own_commands) / sizeof(own_commands[0]); i++)
		if (!strcmp(first_key(o), own_commands[i].key)) {
			json_object_put(o);
			return own_commands[i].run(sc, row, seq, bug_id, change, stats, err);
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
