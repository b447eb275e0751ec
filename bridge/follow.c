/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Following and leaving one bug by mail (see follow.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json-c/json.h>
#include <sqlite3.h>

#include "bridge/follow.h"
#include "bridge/inbound.h"
#include "bugzilla/bz_client.h"
#include "bugzilla/bz_json.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/store.h"
#include "mail/mail.h"
#include "mail/maintainers.h"
#include "mail/outbox.h"

/* Bugzilla's "There is no user named ..." (bugzilla/bz_internal.h) */
#define CODE_NO_SUCH_USER 51

int follow_verb(enum mailcmd_verb verb)
{
	return verb == MAILCMD_SUBSCRIBE || verb == MAILCMD_UNSUBSCRIBE;
}

char *follow_change(const struct mailcmd *c, const char *sender)
{
	json_object *o = json_object_new_object();
	char *out = NULL;

	if (!o)
		return NULL;
	json_object_object_add(o, "follow", json_object_new_string(
		c->verb == MAILCMD_SUBSCRIBE ? "subscribe" : "unsubscribe"));
	json_object_object_add(o, "who", json_object_new_string(sender ? sender : ""));
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return out;
}

/* address in ASCII lower case (a copy; NULL when out of memory). */
static char *lower(const char *address)
{
	char *out = strdup(address);

	for (char *p = out; p && *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return out;
}

/* The state of address on bug_id ("in", "out", "asked"), malloc'd, or
 * NULL when it has none (or it cannot be read). */
static char *follow_state(struct sync_context *sc, long long bug_id, const char *address)
{
	sqlite3_stmt *st = NULL;
	char *low = lower(address), *state = NULL;

	if (low && !store_prepare(sc->db, &st, "SELECT state FROM follow WHERE bug_id = ?"
				  " AND address = ?", NULL)) {
		sqlite3_bind_int64(st, 1, bug_id);
		sqlite3_bind_text(st, 2, low, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			state = store_column_dup(st, 0);
		sqlite3_finalize(st);
	}
	free(low);
	return state;
}

int follow_left(struct sync_context *sc, long long bug_id, const char *address)
{
	char *state = address ? follow_state(sc, bug_id, address) : NULL;
	int left = state && !strcmp(state, "out");

	free(state);
	return left;
}

/* Writes the row of address on bug_id (in the caller's transaction). */
static enum bb_status follow_set(struct sync_context *sc, long long bug_id, const char *entry,
				 const char *state, long long mail, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	char *address = mnt_address(entry), *low = address ? lower(address) : NULL;
	enum bb_status s;

	free(address);
	if (!low)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if (!(s = store_prepare(sc->db, &st, "INSERT INTO follow (bug_id, address, entry, state,"
				       " mail, updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
				       " ON CONFLICT (bug_id, address) DO UPDATE SET entry = ?3,"
				       " state = ?4, mail = ?5, updated = ?6"
				       " WHERE ?4 <> 'asked'", err))) {   /* asking answers nothing */
		sqlite3_bind_int64(st, 1, bug_id);
		sqlite3_bind_text(st, 2, low, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, entry, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, state, -1, SQLITE_STATIC);
		if (mail)
			sqlite3_bind_int64(st, 5, mail);
		else
			sqlite3_bind_null(st, 5);
		sqlite3_bind_int64(st, 6, (sqlite3_int64)time(NULL));
		if (sqlite3_step(st) != SQLITE_DONE)
			s = store_fail(sc->db, err, "recording who follows a bug");
		sqlite3_finalize(st);
	}
	free(low);
	return s;
}

/* Bugzilla's CC list: who added or removed.  *said gets what became of
 * it for the answer (static text, or *why malloc'd with Bugzilla's
 * refusal).  Only a temporary failure is returned. */
static enum bb_status bugzilla_cc(struct sync_context *sc, long long bug_id, const char *who,
				  int add, const char **said, char **why, struct bb_error *err)
{
	struct bb_error berr = BB_ERROR_INIT;
	json_object *o = json_object_new_object(), *list = json_object_new_array();
	struct bz_change ch = { "cc", NULL };
	enum bb_status s;

	*said = NULL;
	*why = NULL;
	if (!sc->bz) {
		json_object_put(o);
		json_object_put(list);
		*said = "no Bugzilla to change";
		return BB_OK;
	}
	if (!o || !list) {
		json_object_put(o);
		json_object_put(list);
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	json_object_array_add(list, json_object_new_string(who));
	json_object_object_add(o, add ? "add" : "remove", list);
	ch.value = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	s = bz_update_bug(sc->bz, bug_id, &ch, 1, &berr);
	json_object_put(o);
	if (!s) {
		*said = add ? "and on Bugzilla's CC list" : "and off Bugzilla's CC list";
		return BB_OK;
	}
	if (s == BB_ERR_NOMEM || status_retry_class(s) != BB_RETRY_GIVE_UP) {
		s = bb_error_set(err, berr.code, "%s", berr.message);
		err->retry_after = berr.retry_after;
		return s;
	}
	if (bz_client_last_code(sc->bz) == CODE_NO_SUCH_USER) {
		*said = "no Bugzilla account has this address, so Bugzilla's CC list is as it was";
		return BB_OK;
	}
	log_event(LOG_LEVEL_WARN, "follow.cc_refused", LF_INT("bug", bug_id), LF_STR("who", who),
		  LF_STR("error", berr.message));
	*why = str_printf(add ? "Bugzilla refused to add this address to its CC list: %s"
			      : "Bugzilla refused to take this address off its CC list: %s",
			  berr.message);
	if (!*why)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	return BB_OK;
}

enum bb_status follow_command(struct sync_context *sc, long long row, int seq, long long bug_id,
			      const char *change, struct inbound_stats *stats,
			      struct bb_error *err)
{
	json_object *o = json_tokener_parse(change);
	const char *verb = o ? bz_jstr(o, "follow") : NULL, *who = o ? bz_jstr(o, "who") : NULL;
	const char *said = NULL;
	char *refused = NULL, *before = NULL, *note = NULL;
	int add;
	enum bb_status s;

	if (!verb || !who || !*who || !strchr(who, '@')) {
		json_object_put(o);
		return inbound_command_end(sc, row, seq, 1, "failed", "unreadable change", err);
	}
	add = !strcmp(verb, "subscribe");
	before = follow_state(sc, bug_id, who);
	/* Bugzilla first: the same change made again after a crash is no
	 * change there */
	if ((s = bugzilla_cc(sc, bug_id, who, add, &said, &refused, err)))
		goto out;
	test_hook("follow.bugzilla");
	note = str_printf("%s %s; %s",
			  add && before && !strcmp(before, "in") ? "already Cc'd on this bug's mails,"
			  : add ? "Cc'd on this bug's mails from now on,"
			  : before && !strcmp(before, "out") ? "already off this bug's mails,"
			  : "off this bug's mails from now on,",
			  who, refused ? refused : said);
	if (!note) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = store_begin(sc->db, err)))
		goto out;
	if (!(s = follow_set(sc, bug_id, who, add ? "in" : "out", row, err)))
		s = inbound_command_end(sc, row, seq, 1, "done", note, err);
	s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	if (!s) {
		stats->commands_done++;
		log_event(LOG_LEVEL_INFO, add ? "follow.subscribed" : "follow.unsubscribed",
			  LF_INT("bug", bug_id), LF_STR("who", who),
			  LF_STR("bugzilla", refused ? "refused" : said));
	}
out:
	free(before);
	free(refused);
	free(note);
	json_object_put(o);
	return s;
}

/* Queues the reporter's one question (in the caller's transaction) and
 * records it asked. */
static enum bb_status ask_reporter(struct sync_context *sc, const struct bz_bug *bug,
				   const struct route_result *route, const char *reporter,
				   struct bb_error *err)
{
	struct mail_options mopt;
	struct mail_message msg = { NULL, NULL, 0 };
	struct buf text = BUF_INIT;
	char *to[2] = { (char *)reporter, NULL }, *root = NULL, *sender = NULL;
	char *lists = NULL;
	enum bb_status s = BB_OK;

	for (size_t i = 0; route->to && route->to[i]; i++) {
		char *more = str_printf("%s%s%s", lists ? lists : "", lists ? ", " : "",
					route->to[i]);

		free(lists);
		if (!(lists = more))
			break;
	}
	root = mail_message_id(sc->cfg->mail_domain, bug->id, 0);
	sender = mnt_address(sc->cfg->mail_from);
	if (!lists || !root || !sender) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	buf_addf(&text, "Hello,\n\nthe bug you reported, bug %lld, is now also discussed by mail on\n"
		 "%s, in the thread this mail answers.\n\n", bug->id, lists);
	buf_addf(&text, "bugbridge does not put your address on those mails unless you ask.  To\n"
		 "be Cc'd on them, reply to the thread, sending your reply to %s\n"
		 "from this address (%s), with this line of its own:\n\n"
		 "  #bugbridge subscribe\n\n"
		 "A later \"#bugbridge unsubscribe\" ends it.  If you do not answer, this is\n"
		 "the only mail bugbridge sends you about the bug by itself.\n",
		 route->to && route->to[0] ? route->to[0] : lists, reporter);
	if (!text.data) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	sync_mail_options(sc->cfg, &mopt);
	mopt.mark_key = sync_mark_key(sc);
	if ((s = mail_compose_notice(&mopt, bug, FOLLOW_SEQ_BASE, text.data, 0, to, NULL, root,
				     &msg, err)))
		goto out;
	if (!outbox_has(sc->db, msg.message_id) &&
	    (s = outbox_add(sc->db, msg.message_id, bug->id, 0, sender, to, msg.text, msg.len,
			    err)))
		goto out;
	if ((s = follow_set(sc, bug->id, reporter, "asked", 0, err)))
		goto out;
	log_event(LOG_LEVEL_INFO, "follow.reporter_asked", LF_INT("bug", bug->id),
		  LF_STR("message_id", msg.message_id));
out:
	mail_message_release(&msg);
	buf_release(&text);
	free(lists);
	free(root);
	free(sender);
	return s;
}

/* Whom to ask as the bug's reporter (malloc'd; NULL: nobody): for a bug
 * the front door filed, the address its form gave (the Bugzilla creator is
 * the bridge's own account); none for one filed by mail at the submit box
 * (its URL field "mid:...": the sender was answered there, and the creator
 * is the bridge's account too); else the bug's creator. */
static char *reporter_of(struct sync_context *sc, const struct bz_bug *bug)
{
	sqlite3_stmt *st = NULL;
	char *email = NULL;

	if (!store_prepare(sc->db, &st, "SELECT email FROM fd_report WHERE bug_id = ?"
			   " AND bug_id <> 0 ORDER BY id LIMIT 1", NULL)) {
		sqlite3_bind_int64(st, 1, bug->id);
		if (sqlite3_step(st) == SQLITE_ROW)
			email = store_column_dup(st, 0);
		sqlite3_finalize(st);
	}
	if (email)
		return email;
	if (bug->url && !strncmp(bug->url, "mid:", 4))
		return NULL;
	return bug->creator.login ? strdup(bug->creator.login) : NULL;
}

enum bb_status follow_route(struct sync_context *sc, const struct bz_bug *bug,
			    struct route_result *route, int ask, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	char *reporter = NULL, *state = NULL;
	size_t k = 0;
	enum bb_status s;
	int rc;

	/* those who left: off the people's Cc (the lists stay) */
	for (size_t i = 0; route->cc && route->cc[i]; i++) {
		char *a = mnt_address(route->cc[i]);

		if (a && follow_left(sc, bug->id, a))
			free(route->cc[i]);
		else
			route->cc[k++] = route->cc[i];
		free(a);
	}
	if (route->cc)
		route->cc[k] = NULL;
	/* the subscribers */
	if ((s = store_prepare(sc->db, &st, "SELECT entry, address FROM follow WHERE bug_id = ?"
				      " AND state = 'in' ORDER BY updated, address", err)))
		return s;
	sqlite3_bind_int64(st, 1, bug->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *entry = (const char *)sqlite3_column_text(st, 0);
		const char *address = (const char *)sqlite3_column_text(st, 1);

		if (route_has_address(route->to, address) || route_has_address(route->cc, address))
			continue;
		if (route_cc_add(route, entry)) {
			sqlite3_finalize(st);
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_fail(sc->db, err, "reading who follows a bug");
	/* the reporter, asked once */
	if (!ask || sc->dry_run || !sc->cfg->mail_cc_reporter || !(reporter = reporter_of(sc, bug)))
		return BB_OK;
	if (strchr(reporter, '@') && !route_has_address(route->to, reporter) &&
	    !route_has_address(route->cc, reporter) &&
	    !(state = follow_state(sc, bug->id, reporter)))
		s = ask_reporter(sc, bug, route, reporter, err);
	free(state);
	free(reporter);
	return s;
}
