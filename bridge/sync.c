/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <glib.h>
#include <json-c/json.h>

#include "bridge/follow.h"
#include "bridge/sync.h"
#include "bridge/sync_privacy.h"
#include "bridge/sync_route.h"
#include "bridge/sync_attach.h"
#include "bugzilla/bug.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "mail/mail.h"
#include "mail/maintainers.h"
#include "tracker/culprit.h"
#include "tracker/samecrash.h"
#include "triage/block.h"
#include "tracker/tracker.h"

/* ------------------------------------------------------------ cursors */

char *sync_cursor_name(const struct bb_config *cfg)
{
	return str_printf("bugzilla:%s", cfg->bz_url ? cfg->bz_url : "-");
}

const unsigned char *sync_mark_key(struct sync_context *sc)
{
	struct bb_error err = BB_ERROR_INIT;

	if (sc->dry_run)
		return NULL;
	if (!sc->mark_key_state) {
		sc->mark_key_state = store_secret(sc->db, SYNC_MARK_SECRET, 1, sc->mark_key, &err) ? -1 : 1;
		if (sc->mark_key_state < 0)
			log_event(LOG_LEVEL_WARN, "sync.no_mark_key", LF_STR("error", err.message),
				  LF_STR("reason", "mail goes out without X-Bugbridge-Mark"));
	}
	return sc->mark_key_state > 0 ? sc->mark_key : NULL;
}

void sync_mail_options(const struct bb_config *cfg, struct mail_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->domain = cfg->mail_domain;
	opt->from = cfg->mail_from;
	opt->subject = cfg->mail_subject;
	opt->bug_url_base = cfg->bz_url ? cfg->bz_url : "";
	opt->show_addresses = cfg->mail_show_addresses;
	opt->footer = cfg->mail_footer;
	opt->replies_posted = (cfg->archive_url || cfg->archive_path) && cfg->inbound_enabled;
	opt->kernel_field = cfg->bz_kernel_field;
}

void sync_outbox_options(const struct bb_config *cfg, struct outbox_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->smtp_host = cfg->smtp_host;
	opt->smtp_port = (unsigned)cfg->smtp_port;
	opt->starttls = cfg->smtp_starttls;
	opt->user = cfg->smtp_user;
	opt->password = cfg->smtp_password;
	opt->ca_file = cfg->smtp_ca_file;
	opt->timeout = (long)cfg->smtp_timeout;
	opt->maildir = cfg->smtp_maildir;
	opt->mbox = cfg->smtp_mbox;
	opt->batch = (unsigned)cfg->smtp_batch;
	opt->retry_min = (long)cfg->retry_min;
	opt->retry_max = (long)cfg->retry_max;
}

/* ------------------------------------------------------- what we know */

/* The tracked fields of a bug, as stored in bz_bug.fields. */
static const char *const tracked[] = {
	"summary", "product", "component", "subsystem", "status", "resolution",
	"severity", "priority", "assigned_to",
};
#define NTRACKED (sizeof(tracked) / sizeof(tracked[0]))

static const char *tracked_value(const struct bz_bug *bug, const struct bb_config *cfg,
				 size_t i)
{
	const char *v = NULL;

	switch (i) {
	case 0: v = bug->summary; break;
	case 1: v = bug->product; break;
	case 2: v = bug->component; break;
	case 3: v = cfg->bz_subsystem_field ? bz_bug_field(bug, cfg->bz_subsystem_field) : NULL; break;
	case 4: v = bug->status; break;
	case 5: v = bug->resolution; break;
	case 6: v = bug->severity; break;
	case 7: v = bug->priority; break;
	case 8: v = bug->assigned_to.real_name && *bug->assigned_to.real_name
			? bug->assigned_to.real_name : bug->assigned_to.login; break;
	}
	return v ? v : "";
}

struct known_bug {
	int exists;
	int mirrored, restricted;
	char *recipients;
	struct json_object *fields;  /* snapshot, or NULL */
};

static void known_release(struct known_bug *k)
{
	free(k->recipients);
	json_object_put(k->fields);
	memset(k, 0, sizeof(*k));
}

static enum bb_status known_load(struct store *db, long long id, struct known_bug *k,
				 struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	int rc;

	memset(k, 0, sizeof(*k));
	if ((s = store_prepare(db, &st, "SELECT mirrored, recipients, fields, restricted"
				      " FROM bz_bug WHERE id = ?", err)))
		return s;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		k->exists = 1;
		k->mirrored = sqlite3_column_int(st, 0);
		k->recipients = strdup((const char *)sqlite3_column_text(st, 1));
		k->fields = json_tokener_parse((const char *)sqlite3_column_text(st, 2));
		k->restricted = sqlite3_column_int(st, 3);
	} else if (rc != SQLITE_DONE) {
		s = store_fail(db, err, "reading a bug");
	}
	sqlite3_finalize(st);
	return s;
}

/* sync_bug_eligibility() on what is known of the bug already. */
static enum sync_eligibility eligibility(const struct router *r, const struct bz_bug *live,
					 const struct known_bug *k, time_t now, const char **why)
{
	const char *reason = NULL;
	enum sync_eligibility e = SYNC_ELIGIBLE;

	if (live ? !bz_bug_is_public(live) : k->exists && k->restricted) {
		e = SYNC_RESTRICTED;
		reason = "restricted to groups";
	} else if (k->exists && k->mirrored) {
		e = SYNC_ELIGIBLE;
	} else if (!live || !r) {
		e = SYNC_NOT_WANTED;
		reason = "not mirrored";
	} else if (!router_wants(r, live, now, &reason)) {
		e = SYNC_NOT_WANTED;
	}
	if (why)
		*why = reason;
	return e;
}

enum sync_eligibility sync_bug_eligibility(struct store *db, const struct router *r,
					   const struct bz_bug *live, long long id, time_t now,
					   const char **why)
{
	struct known_bug k;
	sqlite3_stmt *st = NULL;

	memset(&k, 0, sizeof(k));
	/* a store that cannot be read knows no bug: nothing is eligible */
	if (store_cached(db, &st, "SELECT mirrored, restricted FROM bz_bug WHERE id = ?", NULL)) {
		if (why)
			*why = "the store cannot be read";
		return SYNC_NOT_WANTED;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		k.exists = 1;
		k.mirrored = sqlite3_column_int(st, 0);
		k.restricted = sqlite3_column_int(st, 1);
	}
	store_cached_done(db, st);
	return eligibility(r, live, &k, now, why);
}

/* The list mail a comment was made of, when the inbound bridge posted it
 * (its text ends with the "Message-ID: <...>" of a mail read from the
 * archive for this very bug), or NULL (free() it).  Such a comment is
 * never mailed, even when a crash left it unrecorded: it came from the
 * list. */
static char *relayed_from(struct store *db, long long bug_id, const char *text)
{
	static const char marker[] = "\nMessage-ID: <";
	/* the comment Bugzilla adds for an attachment the inbound side
	 * uploaded from a list mail ([inbound] attachments = bugzilla) */
	static const char upload[] = " (from the list mail <";
	size_t mlen = sizeof(marker) - 1;
	const char *p, *last = NULL, *end;
	sqlite3_stmt *st = NULL;
	char *id;
	int known = 0;

	for (p = text ? strstr(text, marker) : NULL; p; p = strstr(p + 1, marker))
		last = p;
	if (!last && text && (last = strstr(text, upload)))
		mlen = sizeof(upload) - 1;
	if (!last || !(end = strchr(last + mlen, '>')))
		return NULL;
	id = strndup(last + mlen, (size_t)(end - last - mlen));
	if (id && store_prepare(db, &st, "SELECT 1 FROM in_mail WHERE message_id = ? AND bug_id = ?",
				NULL) == BB_OK) {
		sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, bug_id);
		known = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	if (!known) {
		free(id);
		return NULL;
	}
	return id;
}

/* Whether anything of the bug reached the list: a comment mailed, or
 * made of a list mail (a tracked thread).  Until then the next mail is
 * its first mirror: the report and one backlog summary. */
static int bug_on_list(struct store *db, long long bug_id)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (store_prepare(db, &st, "SELECT 1 FROM bz_comment WHERE bug_id = ?"
				   " AND message_id IS NOT NULL LIMIT 1", NULL))
		return 0;
	sqlite3_bind_int64(st, 1, bug_id);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

static int comment_known(struct store *db, long long id)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (store_prepare(db, &st, "SELECT 1 FROM bz_comment WHERE id = ?", NULL))
		return 0;
	sqlite3_bind_int64(st, 1, id);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* A comment the inbound bridge posted is recorded before Bugzilla has told
 * its number (count -1); the number is learnt when the comment comes back,
 * so a Bugzilla reply to it threads under the list mail it was made of. */
static enum bb_status comment_count_learn(struct store *db, const struct bz_comment *c,
					  struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(db, &st, "UPDATE bz_comment SET count = ? WHERE id = ? AND count < 0",
			       err)))
		return s;
	sqlite3_bind_int(st, 1, c->count);
	sqlite3_bind_int64(st, 2, c->id);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "recording a comment's number");
	sqlite3_finalize(st);
	return s;
}

/* The root (count 0): the last hand-over mail (bridge/handover.h), else the report's. */
char *sync_comment_message_id(struct store *db, long long bug_id, int count)
{
	sqlite3_stmt *st = NULL;
	char *id = NULL;

	if (store_prepare(db, &st, "SELECT message_id FROM (SELECT message_id, seq FROM handover"
				   " WHERE ?2 = 0 AND bug_id = ?1 UNION ALL SELECT message_id, 0 FROM"
				   " bz_comment WHERE bug_id = ?1 AND count = ?2) WHERE message_id"
				   " IS NOT NULL ORDER BY seq DESC LIMIT 1", NULL))
		return NULL;
	sqlite3_bind_int64(st, 1, bug_id);
	sqlite3_bind_int(st, 2, count);
	id = sqlite3_step(st) == SQLITE_ROW ? strdup((const char *)sqlite3_column_text(st, 0)) : NULL;
	sqlite3_finalize(st);
	return id;
}

int sync_replied_comment(const char *text)
{
	const char *p, *close;

	if (strncmp(text, "(In reply to ", 13) != 0)
		return -1;
	close = strchr(text, ')');
	p = strstr(text, "comment #");
	if (!p || !close || p > close)
		return -1;
	return atoi(p + 9);
}

/* ----------------------------------------------------------- one bug */

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

struct bug_run {
	struct sync_context *sc;
	struct bz_bug *bug;
	struct known_bug known;
	struct route_result route;
	char *recipients;
	char *route_note;
	struct mail_change changes[NTRACKED];
	size_t nchanges;
	char status_before[256], status_after[256];
	char *sender;
	char **rcpt;
	struct mail_options mopt;
	struct sync_stats *stats;
	/* Cc'd on the bug's next mail only (once per bug: bug_cc) */
	struct extra_cc {
		int loaded, used, composed;  /* composed: the mail at hand has them */
		GPtrArray *entries, *reasons; /* "Name <addr>" and why; NULL: none yet */
		char **cc, **rcpt;           /* route.cc and the envelope with them */
	} extra;
};

static void bug_run_release(struct bug_run *br)
{
	known_release(&br->known);
	route_result_release(&br->route);
	free(br->recipients);
	free(br->route_note);
	free(br->sender);
	route_envelope_free(br->rcpt);
	if (br->extra.entries) {
		g_ptr_array_unref(br->extra.entries);
		g_ptr_array_unref(br->extra.reasons);
	}
	free(br->extra.cc);          /* its strings are route.cc's and entries' */
	route_envelope_free(br->extra.rcpt);
}

/* address in ASCII lower case, in place. */
static void ascii_lower(char *address)
{
	for (char *p = address; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
}

/* Records one bug_cc row: entry (address "" for a culprit's lookup). */
static enum bb_status cc_row(struct bug_run *br, const char *entry, const char *reason,
			     const char *message_id, struct bb_error *err)
{
	char *address = *entry ? mnt_address(entry) : strdup("");
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if (!address)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	ascii_lower(address);
	if (!(s = store_cached(br->sc->db, &st, "INSERT OR IGNORE INTO bug_cc (bug_id, address,"
			       " entry, reason, message_id, added) VALUES (?, ?, ?, ?, ?, ?)", err))) {
		sqlite3_bind_int64(st, 1, br->bug->id);
		sqlite3_bind_text(st, 2, address, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, entry, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, reason, -1, SQLITE_STATIC);
		if (message_id)
			sqlite3_bind_text(st, 5, message_id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 6, (sqlite3_int64)time(NULL));
		if (sqlite3_step(st) != SQLITE_DONE)
			s = store_fail(br->sc->db, err, "recording who a mail was Cc'd to");
		store_cached_done(br->sc->db, st);
	}
	free(address);
	return s;
}

/* Whether bug_cc has a row for the bug with this address (any reason, when
 * reason is NULL). */
static int cc_known(struct bug_run *br, const char *address, const char *reason)
{
	sqlite3_stmt *st = NULL;
	int known = 0;

	if (store_cached(br->sc->db, &st, "SELECT 1 FROM bug_cc WHERE bug_id = ?1 AND address = ?2"
			 " AND (?3 IS NULL OR reason = ?3) LIMIT 1", NULL))
		return 1;   /* unreadable: as if Cc'd already, never twice */
	sqlite3_bind_int64(st, 1, br->bug->id);
	sqlite3_bind_text(st, 2, address, -1, SQLITE_STATIC);
	if (reason)
		sqlite3_bind_text(st, 3, reason, -1, SQLITE_STATIC);
	known = sqlite3_step(st) == SQLITE_ROW;
	store_cached_done(br->sc->db, st);
	return known;
}

/* Whether address is among the route's recipients or the extras already. */
static int cc_routed(struct bug_run *br, const char *address)
{
	char *const *lists[] = { br->route.to, br->route.cc };

	for (size_t l = 0; l < 2; l++)
		if (route_has_address(lists[l], address))
			return 1;
	for (guint i = 0; br->extra.entries && i < br->extra.entries->len; i++)
		if (route_address_equal(g_ptr_array_index(br->extra.entries, i), address))
			return 1;
	return 0;
}

/* Adds entry to the extras unless it was Cc'd on this bug before, or the
 * route names it anyway. */
static int extra_add(struct bug_run *br, const char *entry, const char *reason)
{
	char *address = mnt_address(entry);
	int r = 0;

	if (!address)
		return -1;
	ascii_lower(address);
	if (*address && strchr(address, '@') && !cc_known(br, address, NULL) &&
	    !cc_routed(br, address) && !follow_left(br->sc, br->bug->id, address)) {
		if (!br->extra.entries) {
			br->extra.entries = g_ptr_array_new_with_free_func(g_free);
			br->extra.reasons = g_ptr_array_new_with_free_func(g_free);
		}
		g_ptr_array_add(br->extra.entries, g_strdup(entry));
		g_ptr_array_add(br->extra.reasons, g_strdup(reason));
	}
	free(address);
	return r;
}

/* Finds who the bug's next mail adds to its Cc, once per bug run: the
 * regressions list for a regression, a culprit's author and signers
 * (tracker/culprit.h; git is asked once per culprit and bug).  A culprit
 * that cannot be looked up is logged and left for a later mail: it never
 * holds the mail up. */
static enum bb_status extra_cc_load(struct bug_run *br, struct bb_error *err)
{
	struct sync_context *sc = br->sc;
	const struct bb_config *cfg = sc->cfg;
	char **culprits = NULL, **people = NULL, *dir = NULL;
	struct route_result with;
	size_t n = 0, k = 0;

	if (br->extra.loaded)
		return BB_OK;
	br->extra.loaded = 1;
	if (!sc->tracker)
		return BB_OK;
	if (cfg->tracker_regressions_list && *cfg->tracker_regressions_list &&
	    tracker_bug_is_regression(sc->tracker, br->bug) &&
	    extra_add(br, cfg->tracker_regressions_list, "regression"))
		goto nomem;
	if (cfg->tracker_culprit_cc && cfg->ntrees &&
	    (culprits = tracker_bug_culprits(sc->tracker, br->bug)) &&
	    !(dir = config_data_path(cfg, "trees")))
		goto nomem;
	for (size_t c = 0; culprits && culprits[c]; c++) {
		char *reason = str_printf("culprit %s", culprits[c]);
		struct bb_error why = BB_ERROR_INIT;
		enum bb_status s;

		if (!reason)
			goto nomem;
		if (cc_known(br, "", reason)) {
			free(reason);
			continue;
		}
		if (culprit_people(cfg, dir, culprits[c], &people, &why)) {
			log_event(LOG_LEVEL_WARN, "sync.culprit", LF_INT("bug", br->bug->id),
				  LF_STR("commit", culprits[c]), LF_STR("error", why.message));
			free(reason);
			continue;
		}
		/* asked once per culprit and bug, whatever the answer */
		s = sc->dry_run ? BB_OK : cc_row(br, "", reason, NULL, err);
		for (size_t i = 0; !s && people && people[i]; i++)
			if (extra_add(br, people[i], reason))
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		free(reason);
		config_list_free(people);
		people = NULL;
		if (s) {
			strv_free(culprits);
			free(dir);
			return s;
		}
	}
	strv_free(culprits);
	culprits = NULL;
	free(dir);
	dir = NULL;
	if (!br->extra.entries)
		return BB_OK;
	/* route.cc with the extras, and the envelope of both */
	while (br->route.cc && br->route.cc[n])
		n++;
	k = br->extra.entries->len;
	if (!(br->extra.cc = calloc(n + k + 1, sizeof(char *))))
		goto nomem;
	memcpy(br->extra.cc, br->route.cc, n * sizeof(char *));
	memcpy(br->extra.cc + n, br->extra.entries->pdata, k * sizeof(char *));
	with = br->route;
	with.cc = br->extra.cc;
	if (!(br->extra.rcpt = route_envelope(&with, NULL)))
		goto nomem;
	return BB_OK;
nomem:
	strv_free(culprits);
	free(dir);
	config_list_free(people);
	return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
}

/* The Cc of the bug's next mail: the route's, with the extras until one
 * mail has carried them. */
static enum bb_status next_cc(struct bug_run *br, char *const **cc, struct bb_error *err)
{
	enum bb_status s = extra_cc_load(br, err);

	br->extra.composed = !s && br->extra.cc && !br->extra.used;
	*cc = br->extra.composed ? br->extra.cc : br->route.cc;
	return s;
}

/* Records that message_id carried the extras (in the mail's transaction). */
static enum bb_status extra_cc_done(struct bug_run *br, const char *message_id,
				    struct bb_error *err)
{
	enum bb_status s = BB_OK;

	br->extra.used = 1;
	if (br->sc->dry_run)
		return BB_OK;
	for (guint i = 0; !s && i < br->extra.entries->len; i++) {
		const char *entry = g_ptr_array_index(br->extra.entries, i);
		const char *reason = g_ptr_array_index(br->extra.reasons, i);

		s = cc_row(br, entry, reason, message_id, err);
		if (!s)
			log_event(LOG_LEVEL_INFO, "sync.cc", LF_INT("bug", br->bug->id),
				  LF_STR("message_id", message_id), LF_STR("cc", entry),
				  LF_STR("reason", reason));
	}
	return s;
}

/* Field changes against the snapshot of the last mail. */
static void find_changes(struct bug_run *br)
{
	const struct bb_config *cfg = br->sc->cfg;

	br->nchanges = 0;
	if (!br->known.fields)
		return;
	for (size_t i = 0; i < NTRACKED; i++) {
		struct json_object *v;
		const char *before = "", *after = tracked_value(br->bug, cfg, i);

		if (i == 5) /* resolution is shown with the status */
			continue;
		if (json_object_object_get_ex(br->known.fields, tracked[i], &v))
			before = json_object_get_string(v);
		if (i == 4) {
			struct json_object *r;
			const char *rb = "", *ra = br->bug->resolution;

			if (json_object_object_get_ex(br->known.fields, "resolution", &r))
				rb = json_object_get_string(r);
			if (!strcmp(before, after) && !strcmp(rb, ra))
				continue;
			snprintf(br->status_before, sizeof(br->status_before), "%s%s%s", before,
				 *rb ? " " : "", rb);
			snprintf(br->status_after, sizeof(br->status_after), "%s%s%s", after,
				 *ra ? " " : "", ra);
			br->changes[br->nchanges].field = "Status";
			br->changes[br->nchanges].before = br->status_before;
			br->changes[br->nchanges].after = br->status_after;
			br->nchanges++;
			continue;
		}
		if (!strcmp(before, after))
			continue;
		/* the json object owns before; it outlives the mail */
		br->changes[br->nchanges].field = i == 0 ? "Summary" : i == 1 ? "Product" :
						  i == 2 ? "Component" : i == 3 ? "Subsystem" :
						  i == 6 ? "Severity" : i == 7 ? "Priority" : "Assignee";
		br->changes[br->nchanges].before = before;
		br->changes[br->nchanges].after = after;
		br->nchanges++;
	}
}

static enum bb_status save_bug(struct bug_run *br, struct bb_error *err)
{
	const struct bb_config *cfg = br->sc->cfg;
	struct json_object *fields = json_object_new_object();
	sqlite3_stmt *st = NULL;
	struct bz_bug *bug = br->bug;
	enum bb_status s;

	for (size_t i = 0; i < NTRACKED; i++)
		json_object_object_add(fields, tracked[i],
				       json_object_new_string(tracked_value(bug, cfg, i)));
	if ((s = store_prepare(br->sc->db, &st,
			       "INSERT INTO bz_bug (id, summary, product, component, subsystem, status,"
			       " resolution, severity, priority, assigned_to, reporter, creation_time,"
			       " last_change_time, restricted, mirrored, recipients, fields)"
			       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, 1,"
			       " ?15, ?16) ON CONFLICT (id) DO UPDATE SET summary = excluded.summary,"
			       " product = excluded.product, component = excluded.component,"
			       " subsystem = excluded.subsystem, status = excluded.status,"
			       " resolution = excluded.resolution, severity = excluded.severity,"
			       " priority = excluded.priority, assigned_to = excluded.assigned_to,"
			       " last_change_time = excluded.last_change_time,"
			       " restricted = excluded.restricted, recipients = excluded.recipients,"
			       " fields = excluded.fields", err)))
		goto out;
	sqlite3_bind_int64(st, 1, bug->id);
	sqlite3_bind_text(st, 2, bug->summary, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, bug->product, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, bug->component, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, tracked_value(bug, cfg, 3), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, bug->status, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, bug->resolution, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, bug->severity, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, bug->priority, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 10, bug->assigned_to.login, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, bug->creator.login, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 12, (sqlite3_int64)bug->creation_time);
	sqlite3_bind_int64(st, 13, (sqlite3_int64)bug->last_change_time);
	sqlite3_bind_int(st, 14, bug->groups && bug->groups[0]);
	sqlite3_bind_text(st, 15, br->recipients ? br->recipients : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 16, json_object_to_json_string(fields), -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(br->sc->db, err, "recording a bug");
out:
	sqlite3_finalize(st);
	json_object_put(fields);
	return s;
}

static enum bb_status save_comment(struct bug_run *br, const struct bz_comment *c,
				   const char *message_id, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(br->sc->db, &st,
			       "INSERT OR IGNORE INTO bz_comment (id, bug_id, count, author, time,"
			       " is_private, message_id) VALUES (?, ?, ?, ?, ?, ?, ?)", err)))
		return s;
	sqlite3_bind_int64(st, 1, c->id);
	sqlite3_bind_int64(st, 2, br->bug->id);
	sqlite3_bind_int(st, 3, c->count);
	sqlite3_bind_text(st, 4, c->author.login, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)c->time);
	sqlite3_bind_int(st, 6, c->is_private);
	if (message_id)
		sqlite3_bind_text(st, 7, message_id, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 7);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(br->sc->db, err, "recording a comment");
	else if (message_id)
		store_keys_add(br->sc->db, STORE_KEYS_MAIL, message_id);
	sqlite3_finalize(st);
	return s;
}

static enum bb_status queue_mail(struct bug_run *br, long long comment_id,
				 struct mail_message *m, struct bb_error *err)
{
	struct sync_context *sc = br->sc;
	enum bb_status s = BB_OK;

	int sent = !sc->dry_run && outbox_has(sc->db, m->message_id);

	if (sent) {
		/* the list has it: sent before by a state this one was put
		 * back over (outbox_record_sent()), or queued already */
		log_event(LOG_LEVEL_INFO, "sync.sent_before", LF_INT("bug", br->bug->id),
			  LF_STR("message_id", m->message_id));
	} else if (!sc->dry_run) {
		s = outbox_add(sc->db, m->message_id, br->bug->id, comment_id, br->sender,
			       br->extra.composed ? br->extra.rcpt : br->rcpt, m->text, m->len, err);
	}
	if (!s && br->extra.composed)
		s = extra_cc_done(br, m->message_id, err);
	br->extra.composed = 0;
	if (!s && !sent) {
		br->stats->mails_queued++;
		if (sc->on_mail)
			sc->on_mail(sc->on_mail_ctx, br->bug->id, m->message_id, br->bug->summary);
	}
	return s;
}

/* A stored text attachment (a log) read for the report reader, at most
 * this large. */
#define TRIAGE_ATTACHMENT_MAX ((size_t)1 << 20)

/* Appends a public attachment's text, when the blob store has it and its
 * bytes say text: the logs people attach. */
static void triage_attachment(struct sync_context *sc, const struct bz_attachment *a,
			      struct buf *b)
{
	char hash[BLOB_HEX_LEN + 1], *last_error = NULL, *text;
	struct blob_info info;
	int attempts = 0, fd;

	if (a->is_private || sync_att_lookup(sc->db, a->id, hash, &attempts, &last_error) ||
	    !hash[0] || blob_lookup(sc->blobs, hash, &info, NULL) != BB_OK ||
	    strncmp(info.content_type, "text/", 5) || info.size > TRIAGE_ATTACHMENT_MAX ||
	    b->len + info.size > TRI_MAX_INPUT || blob_open(sc->blobs, hash, &fd, NULL, NULL)) {
		free(last_error);
		return;
	}
	free(last_error);
	if ((text = malloc((size_t)info.size + 1))) {
		if (fs_read_full(fd, text, (size_t)info.size) == (ssize_t)info.size &&
		    !memchr(text, 0, (size_t)info.size)) {
			buf_add(b, text, (size_t)info.size);
			buf_addch(b, '\n');
		}
		free(text);
	}
	close(fd);
}

/* What the report reader reads of a bug: its description, public comments
 * and public text attachments (a private one never feeds anything mailed
 * or posted), each cut to what the reader looks at; only the description
 * with description_only.  malloc'd, NULL when out of memory. */
static char *triage_text(struct sync_context *sc, const struct bz_bug *bug, int description_only)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < bug->ncomments && b.len < TRI_MAX_INPUT; i++) {
		const struct bz_comment *c = &bug->comments[i];

		if (c->is_private || !c->text || (description_only && c->count != 0))
			continue;
		if (buf_add(&b, c->text, strnlen(c->text, TRI_MAX_INPUT - b.len)) ||
		    buf_addch(&b, '\n')) {
			buf_release(&b);
			return NULL;
		}
	}
	for (size_t i = 0; !description_only && i < bug->nattachments && b.len < TRI_MAX_INPUT; i++)
		triage_attachment(sc, &bug->attachments[i], &b);
	return buf_detach(&b, NULL);
}

char *sync_triage_text(struct sync_context *sc, const struct bz_bug *bug)
{
	return triage_text(sc, bug, 0);
}

int sync_triage_of(struct sync_context *sc, const struct bz_bug *bug, int description_only,
		   struct tri_report **report, struct tri_ranking **rank)
{
	char *text;

	*report = NULL;
	*rank = NULL;
	if (!sc->matcher || !(text = triage_text(sc, bug, description_only)))
		return 0;
	*report = tri_read(text, strlen(text));
	*rank = *report ? tri_match_located(sc->matcher, *report, text, strlen(text), 3,
						   sc->locator) : NULL;
	if (*report && !description_only && !sc->dry_run) /* same crash, same bug */
		samecrash_record(sc->db, bug->id, *report, text, strlen(text), NULL);
	free(text);
	return *report != NULL;
}

/* The note of the bug's report mail: its triage block ([routing]
 * by_content suggest or route), then the route's note; and the same block
 * recorded as the bug's triage comment (once, tracker_triage_note()).
 * malloc'd or NULL. */
static char *report_note(struct bug_run *br, struct bb_error *err, enum bb_status *s)
{
	struct sync_context *sc = br->sc;
	struct tri_report *report;
	struct tri_ranking *rank;
	const char *field;
	char *block = NULL, *note;

	*s = BB_OK;
	if (!sync_triage_of(sc, br->bug, 0, &report, &rank))
		return br->route_note ? strdup(br->route_note) : NULL;
	field = bz_bug_field(br->bug, sc->cfg->bz_kernel_field ? sc->cfg->bz_kernel_field
								 : "cf_kernel_version");
	block = tri_block(report, rank, field, 3);
	samecrash_note(sc->db, br->bug->id, &block);
	tri_ranking_free(rank);
	tri_report_free(report);
	if (block && sc->tracker && !sc->dry_run)
		*s = tracker_triage_note(sc->tracker, br->bug->id, block, err);
	note = block && br->route_note ? str_printf("%s\n%s", block, br->route_note)
	       : block ? strdup(block) : br->route_note ? strdup(br->route_note) : NULL;
	free(block);
	return note;
}

/* Mails one new comment (with the attachments it announces). */
static enum bb_status mail_comment(struct bug_run *br, const struct bz_comment *c,
				   int with_changes, struct bb_error *err)
{
	struct sync_context *sc = br->sc;
	struct mail_attachment atts[16];
	struct attachment_view states[16];
	struct mail_message m = { NULL, NULL, 0 };
	char *parent = NULL, *root = NULL, *refs[3] = { NULL, NULL, NULL }, *note = NULL;
	char *const *cc = NULL;
	size_t natts = 0;
	enum bb_status s = BB_OK;

	memset(states, 0, sizeof(states));
	/* attachments this comment announces, or for the description all that
	 * came with the bug's creation */
	for (size_t i = 0; i < br->bug->nattachments && natts < 16; i++) {
		const struct bz_attachment *a = &br->bug->attachments[i];

		if (a->is_private || (c->attachment_id != a->id &&
				      !(c->count == 0 && a->creation_time <= c->time)))
			continue;
		sync_att_describe(sc, a, &states[natts], &atts[natts]);
		natts++;
	}
	if (c->count > 0) {
		int answered = sync_replied_comment(c->text);

		root = sync_comment_message_id(sc->db, br->bug->id, 0);
		if (!root)
			root = mail_message_id(sc->cfg->mail_domain, br->bug->id, 0);
		if (answered > 0 && answered < c->count)
			parent = sync_comment_message_id(sc->db, br->bug->id, answered);
		refs[0] = root;
		refs[1] = parent;
	}
	if (c->count == 0)
		note = report_note(br, err, &s);
	if (!s && !(s = next_cc(br, &cc, err)))
		s = mail_compose_comment(&br->mopt, br->bug, c, atts, natts,
				 with_changes ? br->changes : NULL, with_changes ? br->nchanges : 0,
				 br->route.to, cc, parent ? parent : root,
				 c->count > 0 ? refs : NULL, c->count == 0 ? note : br->route_note, &m, err);
	free(note);
	if (!s)
		s = queue_mail(br, c->id, &m, err);
	if (!s)
		s = save_comment(br, c, m.message_id, err);
	mail_message_release(&m);
	free(parent);
	free(root);
	for (size_t i = 0; i < natts; i++)
		sync_attachment_view_release(&states[i]);
	return s;
}

/* A first mirror's old public comments (the report went out just before)
 * in one summary mail instead of one mail each; each is recorded under
 * the summary's Message-ID, so a reply to it finds the bug. */
static enum bb_status mail_backlog(struct bug_run *br, const struct bz_comment **old, size_t n,
				   struct bb_error *err)
{
	struct sync_context *sc = br->sc;
	struct mail_attachment atts[16];
	struct attachment_view states[16];
	struct mail_message m = { NULL, NULL, 0 };
	char *root = sync_comment_message_id(sc->db, br->bug->id, 0);
	char *const *cc = NULL;
	size_t natts = 0;
	enum bb_status s;

	memset(states, 0, sizeof(states));
	if (!root)
		root = mail_message_id(sc->cfg->mail_domain, br->bug->id, 0);
	for (size_t i = 0; i < br->bug->nattachments && natts < 16; i++) {
		const struct bz_attachment *a = &br->bug->attachments[i];
		int announced = 0;

		for (size_t k = 0; k < n && !announced; k++)
			announced = old[k]->attachment_id == a->id;
		if (a->is_private || !announced)
			continue;
		sync_att_describe(sc, a, &states[natts], &atts[natts]);
		natts++;
	}
	if (!(s = next_cc(br, &cc, err)))
		s = mail_compose_backlog(&br->mopt, br->bug, old, n, atts, natts, br->route.to,
					 cc, root, &m, err);
	if (!s)
		s = queue_mail(br, old[0]->id, &m, err);
	for (size_t i = 0; i < n && !s; i++)
		s = save_comment(br, old[i], m.message_id, err);
	if (!s)
		log_event(LOG_LEVEL_INFO, "sync.backlog", LF_INT("bug", br->bug->id),
			  LF_UINT("comments", n), LF_STR("message_id", m.message_id));
	mail_message_release(&m);
	free(root);
	for (size_t i = 0; i < natts; i++)
		sync_attachment_view_release(&states[i]);
	return s;
}

/* The private store (sc->private_blobs), opened here the first time when
 * sc->open_private says how; *out is NULL only when there is none (the
 * blobs are dropped). */
static enum bb_status private_store(struct sync_context *sc, struct blob_store **out,
				    struct bb_error *err)
{
	enum bb_status s;

	if (!sc->private_blobs && sc->open_private &&
	    (s = sc->open_private(sc->open_private_ctx, &sc->private_blobs, err)))
		return s;
	*out = sc->private_blobs;
	return BB_OK;
}

/* The stored attachments of a bug (public ones only, with public_only). */
struct bug_blob {
	long long id;
	char hash[BLOB_HEX_LEN + 1];
};

static enum bb_status bug_blobs(struct sync_context *sc, long long bug_id, int public_only,
				struct bug_blob **out, size_t *count, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	struct bug_blob *v = NULL;
	size_t n = 0, alloc = 0;
	enum bb_status s;
	int rc;

	*out = NULL;
	*count = 0;
	if ((s = store_prepare(sc->db, &st, "SELECT id, blob_hash FROM bz_attachment WHERE bug_id = ?"
			       " AND blob_hash IS NOT NULL AND (?2 = 0 OR is_private = 0)"
			       " ORDER BY id", err)))
		return s;
	sqlite3_bind_int64(st, 1, bug_id);
	sqlite3_bind_int(st, 2, public_only);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == alloc) {
			size_t na = alloc ? alloc * 2 : 8;
			struct bug_blob *nv = realloc(v, na * sizeof(*v));

			if (!nv) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				goto out;
			}
			v = nv;
			alloc = na;
		}
		v[n].id = sqlite3_column_int64(st, 0);
		snprintf(v[n].hash, sizeof(v[n].hash), "%s", (const char *)sqlite3_column_text(st, 1));
		n++;
	}
	if (rc != SQLITE_DONE)
		s = store_fail(sc->db, err, "reading a bug's attachments");
out:
	sqlite3_finalize(st);
	if (s) {
		free(v);
		v = NULL;
		n = 0;
	}
	*out = v;
	*count = n;
	return s;
}

static enum bb_status exec_bug(struct sync_context *sc, const char *sql, long long bug_id,
			       const char *what, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st, sql, err)))
		return s;
	sqlite3_bind_int64(st, 1, bug_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, what);
	sqlite3_finalize(st);
	return s;
}

enum bb_status sync_withdraw(struct sync_context *sc, long long bug_id, struct bb_error *err)
{
	struct bug_blob *atts = NULL;
	size_t n = 0;
	unsigned long unpublished = 0;
	struct blob_store *dest = NULL;
	enum bb_status s;

	/* first the row: from here on nothing lists it or posts into it */
	if ((s = exec_bug(sc, "UPDATE bz_bug SET restricted = 1 WHERE id = ?", bug_id,
			  "withdrawing a bug", err)) ||
	    (s = exec_bug(sc, "DELETE FROM outbox WHERE bug_id = ? AND state <> 'sent'", bug_id,
			  "dropping a withdrawn bug's queued mail", err)) ||
	    (s = bug_blobs(sc, bug_id, 0, &atts, &n, err)))
		goto out;
	for (size_t i = 0; i < n && !s; i++) {
		char ref[96];
		int moved = 0;

		snprintf(ref, sizeof(ref), "bug:%lld/attachment:%lld", bug_id, atts[i].id);
		s = blob_remove_ref(sc->blobs, atts[i].hash, "bug-attachment", ref, err);
		if (s == BB_ERR_NOT_FOUND) {
			bb_error_clear(err);
			s = BB_OK;
		}
		if (!s && !(s = private_store(sc, &dest, err)))
			s = blob_unpublish(sc->blobs, dest, atts[i].hash, &moved, err);
		unpublished += moved != 0;
	}
	if (!s)
		log_event(LOG_LEVEL_INFO, "sync.withdrawn", LF_INT("bug", bug_id),
			  LF_STR("reason", "restricted to groups after it was mirrored"),
			  LF_UINT("blobs_unpublished", unpublished));
out:
	free(atts);
	return s;
}

/* A withdrawn bug public again: its public attachments' blobs come back
 * from the private store (save_bug() clears the restricted mark). */
static enum bb_status republish(struct sync_context *sc, long long bug_id, struct bb_error *err)
{
	struct bug_blob *atts = NULL;
	size_t n = 0;
	unsigned long back = 0;
	struct blob_store *from = NULL;
	enum bb_status s;

	if ((s = bug_blobs(sc, bug_id, 1, &atts, &n, err)))
		return s;
	for (size_t i = 0; i < n && !s; i++) {
		char ref[96];
		int moved = 0;

		if (blob_lookup(sc->blobs, atts[i].hash, NULL, NULL) != BB_OK &&
		    !(s = private_store(sc, &from, err)) && from) {
			s = blob_unpublish(from, sc->blobs, atts[i].hash, &moved, err);
			back += moved != 0;
		}
		snprintf(ref, sizeof(ref), "bug:%lld/attachment:%lld", bug_id, atts[i].id);
		if (!s && blob_lookup(sc->blobs, atts[i].hash, NULL, NULL) == BB_OK)
			s = blob_add_ref(sc->blobs, atts[i].hash, "bug-attachment", ref, err);
	}
	if (!s)
		log_event(LOG_LEVEL_INFO, "sync.republished", LF_INT("bug", bug_id),
			  LF_UINT("blobs_back", back));
	free(atts);
	return s;
}

static enum bb_status apply_bug(struct sync_context *sc, struct bz_bug *bug, time_t now,
				struct sync_stats *stats, struct bb_error *err)
{
	struct bug_run br;
	const char *why = NULL;
	int mailed = 0, first = 0, on_list = 0;
	const struct bz_comment **old = NULL;
	size_t nold = 0;
	enum bb_status s;

	memset(&br, 0, sizeof(br));
	br.sc = sc;
	br.bug = bug;
	br.stats = stats;
	stats->bugs_seen++;
	if ((s = known_load(sc->db, bug->id, &br.known, err)))
		goto out;
	switch (eligibility(sc->router, bug, &br.known, now, &why)) {
	case SYNC_RESTRICTED:
		/* restricted: never mailed, whatever happened before */
		stats->bugs_skipped++;
		log_event(LOG_LEVEL_INFO, "sync.skip", LF_INT("bug", bug->id), LF_STR("reason", why));
		if (br.known.exists && bz_bug_row_is_public(br.known.mirrored, br.known.restricted) &&
		    !sc->dry_run) {
			if (!(s = sync_withdraw(sc, bug->id, err)))
				stats->bugs_withdrawn++;
		}
		goto out;
	case SYNC_NOT_WANTED:
		stats->bugs_skipped++;
		log_event(LOG_LEVEL_DEBUG, "sync.skip", LF_INT("bug", bug->id),
			  LF_STR("reason", why ? why : "not wanted"));
		goto out;
	case SYNC_ELIGIBLE:
		break;
	}
	/* public again after a restriction */
	if (br.known.exists && br.known.restricted && !sc->dry_run &&
	    (s = republish(sc, bug->id, err)))
		goto out;
	if ((s = router_route(sc->router, bug, &br.route, err))) {
		if (s == BB_ERR_NOT_FOUND) {
			stats->bugs_skipped++;
			log_event(LOG_LEVEL_WARN, "sync.unrouted", LF_INT("bug", bug->id),
				  LF_STR("product", bug->product), LF_STR("component", bug->component));
			bb_error_clear(err);
			s = BB_OK;
		}
		goto out;
	}
	sync_route_by_content(sc, bug, &br.route);
	stats->bugs_mirrored++;
	br.recipients = sync_describe_recipients(&br.route);   /* the lists and route's people */
	if ((s = follow_route(sc, bug, &br.route, !br.known.exists, err)))  /* bridge/follow.h */
		goto out;
	br.rcpt = route_envelope(&br.route, NULL);
	br.sender = mnt_address(sc->cfg->mail_from);
	if (!br.recipients || !br.rcpt || !br.sender) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	find_changes(&br);
	if (br.known.exists && br.known.recipients && *br.known.recipients &&
	    strcmp(br.known.recipients, br.recipients))
		br.route_note = str_printf("Recipients changed with the bug's fields; this thread "
					   "now goes to: %s (before: %s)", br.recipients,
					   br.known.recipients);
	sync_mail_options(sc->cfg, &br.mopt);
	br.mopt.mark_key = sync_mark_key(sc);
	/* a Fixes: in a public comment names a culprit this round's mail Cc's */
	if (sc->tracker && (s = tracker_bug_fixes(sc->tracker, bug, err)))
		goto out;
	/* a first mirror: the report, then the public comments before it in
	 * one backlog summary (when the description is public: else as
	 * before, one mail each) */
	for (size_t i = 0; i < bug->ncomments && !br.known.exists; i++)
		first |= bug->comments[i].count == 0 && !bug->comments[i].is_private;
	if (!first && br.known.exists && !bug_on_list(sc->db, bug->id))
		for (size_t i = 0; i < bug->ncomments; i++)
			first |= bug->comments[i].count == 0 && !bug->comments[i].is_private &&
				 !comment_known(sc->db, bug->comments[i].id);
	/* on the list already: an old comment never mailed was written while
	 * the bug was outside the mirrored set (see comments_since()) */
	on_list = !first && br.known.exists && sc->missed_before && bug_on_list(sc->db, bug->id);
	if ((first || sc->backlog_before || on_list) &&
	    !(old = calloc(bug->ncomments, sizeof(*old)))) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}

	for (size_t i = 0; i < bug->ncomments; i++) {
		const struct bz_comment *c = &bug->comments[i];

		if (comment_known(sc->db, c->id)) {
			if ((s = comment_count_learn(sc->db, c, err)))
				goto out;
			continue;
		}
		if (sc->tracker && !c->is_private &&
		    tracker_is_triage_note(sc->tracker, bug->id, c->id, c->text)) {
			/* the report mail carried it already */
			if ((s = save_comment(&br, c, NULL, err)))
				goto out;
			continue;
		}
		{
			char *relay = c->is_private ? NULL : relayed_from(sc->db, bug->id, c->text);

			if (relay) {
				log_event(LOG_LEVEL_INFO, "sync.relay_not_mailed", LF_INT("bug", bug->id),
					  LF_INT("comment", c->id), LF_STR("message_id", relay));
				s = save_comment(&br, c, relay, err);
				free(relay);
				if (s)
					goto out;
				continue;
			}
		}
		stats->comments_new++;
		if (c->is_private) {
			stats->comments_private++;
			if ((s = save_comment(&br, c, NULL, err)))
				goto out;
			continue;
		}
		if ((first && c->count > 0) ||
		    (!first && sc->backlog_before && c->time <= sc->backlog_before && c->count > 0) ||
		    (on_list && c->time < sc->missed_before && c->count > 0)) {
			/* never mailed and older than the last round: missed
			 * before (a re-examination, a bug back in the
			 * mirrored set), summarised */
			old[nold++] = c;
			continue;
		}
		if ((s = mail_comment(&br, c, !mailed, err)))
			goto out;
		mailed = 1;
	}
	if (nold && (s = mail_backlog(&br, old, nold, err)))
		goto out;
	if (!mailed && br.nchanges > 0 && br.known.exists) {
		struct mail_message m = { NULL, NULL, 0 };
		char *root = sync_comment_message_id(sc->db, bug->id, 0);

		if (!root)
			root = mail_message_id(sc->cfg->mail_domain, bug->id, 0);
		char *const *cc = NULL;

		if (!(s = next_cc(&br, &cc, err)))
			s = mail_compose_changes(&br.mopt, bug, (long long)bug->last_change_time,
						 br.changes, br.nchanges, br.route.to, cc, root,
						 br.route_note, &m, err);
		if (!s)
			s = queue_mail(&br, 0, &m, err);
		mail_message_release(&m);
		free(root);
		if (s)
			goto out;
	}
	s = save_bug(&br, err);
	if (!s && sc->tracker) {
		char *root = sync_comment_message_id(sc->db, bug->id, 0);

		if (!root)
			root = mail_message_id(sc->cfg->mail_domain, bug->id, 0);
		s = tracker_bug(sc->tracker, bug, root, err);
		free(root);
	}
out:
	free(old);
	bug_run_release(&br);
	return s;
}

static int by_id(const void *a, const void *b)
{
	const struct bz_bug *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

enum bb_status sync_apply(struct sync_context *sc, struct bz_bug *bugs, size_t n,
			  const char *cursor_source, const char *cursor_value,
			  struct sync_stats *stats, struct bb_error *err)
{
	time_t now = time(NULL);
	enum bb_status s;

	if (n > 1)
		qsort(bugs, n, sizeof(*bugs), by_id);
	if ((s = store_begin(sc->db, err)))
		return s;
	for (size_t i = 0; i < n && !s; i++) {
		s = apply_bug(sc, &bugs[i], now, stats, err);
		test_hook("sync.bug");
	}
	if (!s && cursor_source && cursor_value)
		s = store_cursor_set(sc->db, cursor_source, cursor_value, err);
	if (s || sc->dry_run) {
		store_rollback(sc->db);
		return s;
	}
	s = store_commit(sc->db, err);
	test_hook("sync.committed");
	return s;
}

/* ------------------------------------------------------------- a round */

/* sqlite3_column_text() gives NULL when it runs out of memory, even for a
 * NOT NULL column: the copy is then NULL too (an out-of-memory error for
 * the caller), where strdup(NULL) would crash. */
enum bb_status sync_load_bug(struct sync_context *sc, long long id, int details,
			     struct bz_bug *bug, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	int rc;

	memset(bug, 0, sizeof(*bug));
	if ((s = store_prepare(sc->db, &st,
			       "SELECT summary, product, component, subsystem, status, resolution,"
			       " severity, priority, reporter, creation_time, last_change_time"
			       " FROM bz_bug WHERE id = ? AND " BZ_BUG_PUBLIC_SQL, err)))
		return s;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		s = rc == SQLITE_DONE ? bb_error_set(err, BB_ERR_NOT_FOUND, "bug %lld is not mirrored", id)
				      : store_fail(sc->db, err, "reading a bug");
		goto out;
	}
	bug->id = id;
	bug->summary = store_column_dup(st, 0);
	bug->product = store_column_dup(st, 1);
	bug->component = store_column_dup(st, 2);
	bug->status = store_column_dup(st, 4);
	bug->resolution = details ? store_column_dup(st, 5) : strdup("");
	bug->severity = details ? store_column_dup(st, 6) : strdup("");
	bug->priority = details ? store_column_dup(st, 7) : strdup("");
	bug->version = strdup("");
	bug->url = strdup("");
	bug->creator.login = details ? store_column_dup(st, 8) : strdup("");
	bug->creator.real_name = strdup("");
	bug->assigned_to.login = strdup("");
	bug->assigned_to.real_name = strdup("");
	if (details) {
		bug->creation_time = (time_t)sqlite3_column_int64(st, 9);
		bug->last_change_time = (time_t)sqlite3_column_int64(st, 10);
	}
	bug->keywords = calloc(1, sizeof(char *));
	bug->groups = calloc(1, sizeof(char *));
	bug->cc = calloc(1, sizeof(char *));
	if (sc->cfg->bz_subsystem_field && (bug->fields = calloc(1, sizeof(*bug->fields)))) {
		bug->nfields = 1;
		bug->fields[0].name = strdup(sc->cfg->bz_subsystem_field);
		bug->fields[0].value = store_column_dup(st, 3);
	}
	if (!bug->summary || !bug->product || !bug->component || !bug->status ||
	    !bug->resolution || !bug->severity || !bug->priority || !bug->version || !bug->url ||
	    !bug->creator.login || !bug->creator.real_name || !bug->assigned_to.login ||
	    !bug->assigned_to.real_name || !bug->keywords || !bug->groups || !bug->cc ||
	    (sc->cfg->bz_subsystem_field && (!bug->fields || !bug->fields[0].name ||
					     !bug->fields[0].value)))
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
out:
	sqlite3_finalize(st);
	if (s)
		bz_bug_release(bug);
	return s;
}

/* A real name bugbridge learnt before (fresh enough), or NULL; *known says
 * whether the login was looked up at all. */
static char *user_cached(struct store *db, const char *login, time_t now, int *known)
{
	sqlite3_stmt *st = NULL;
	char *name = NULL;

	*known = 0;
	if (store_prepare(db, &st, "SELECT real_name FROM bz_user WHERE login = ? AND updated > ?",
			  NULL))
		return NULL;
	sqlite3_bind_text(st, 1, login, -1, SQLITE_STATIC);
	/* names change rarely; an unknown one is asked for again after a week */
	sqlite3_bind_int64(st, 2, (sqlite3_int64)now - 7 * 24 * 3600);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*known = 1;
		name = strdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	return name;
}

static void user_remember(struct store *db, const struct bz_user *users, size_t n, time_t now)
{
	sqlite3_stmt *st = NULL;

	if (store_begin(db, NULL))
		return;
	if (!store_prepare(db, &st, "INSERT INTO bz_user (login, real_name, updated) VALUES"
				    " (?, ?, ?) ON CONFLICT (login) DO UPDATE SET"
				    " real_name = excluded.real_name, updated = excluded.updated",
			   NULL)) {
		for (size_t i = 0; i < n; i++) {
			sqlite3_bind_text(st, 1, users[i].login, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, users[i].real_name ? users[i].real_name : "", -1,
					  SQLITE_STATIC);
			sqlite3_bind_int64(st, 3, (sqlite3_int64)now);
			sqlite3_step(st);
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
	}
	if (store_commit(db, NULL))
		store_rollback(db);
}

/* Real names of comment authors, which REST comments do not carry: from
 * what bugbridge learnt before, and one batched user lookup for logins it
 * never asked about.  Failure only costs the names (mail then shows the
 * login's local part). */
static void fill_real_names(struct sync_context *sc, struct bz_bug *bugs, size_t n, time_t now)
{
	struct bz_user *users = NULL;
	size_t nusers = 0, alloc = 0;

	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < bugs[i].ncomments; k++) {
			struct bz_user *a = &bugs[i].comments[k].author;
			char *cached;
			int known;
			size_t u;

			if (a->real_name[0] || !a->login[0])
				continue;
			cached = user_cached(sc->db, a->login, now, &known);
			if (known) {
				if (cached && *cached) {
					free(a->real_name);
					a->real_name = cached;
				} else {
					free(cached);
				}
				continue;
			}
			for (u = 0; u < nusers && strcmp(users[u].login, a->login); u++)
				;
			if (u < nusers)
				continue;
			if (nusers == alloc) {
				struct bz_user *nu = realloc(users, (alloc ? alloc * 2 : 16) * sizeof(*nu));

				if (!nu)
					goto out;
				users = nu;
				alloc = alloc ? alloc * 2 : 16;
			}
			users[nusers].login = strdup(a->login);
			users[nusers].real_name = strdup("");
			if (!users[nusers].login || !users[nusers].real_name) {
				free(users[nusers].login);
				free(users[nusers].real_name);
				goto out;
			}
			nusers++;
		}
	}
	if (!nusers || bz_fetch_users(sc->bz, users, nusers, NULL) != BB_OK)
		goto out;
	if (!sc->dry_run)
		user_remember(sc->db, users, nusers, now);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < bugs[i].ncomments; k++) {
			struct bz_user *a = &bugs[i].comments[k].author;

			for (size_t u = 0; u < nusers; u++) {
				if (a->real_name[0] || strcmp(users[u].login, a->login) ||
				    !users[u].real_name || !users[u].real_name[0])
					continue;
				char *name = strdup(users[u].real_name);

				if (name) {
					free(a->real_name);
					a->real_name = name;
				}
			}
		}
	}
out:
	for (size_t u = 0; u < nusers; u++) {
		free(users[u].login);
		free(users[u].real_name);
	}
	free(users);
}

/* Bugs of this round we mirror or may start mirroring. */
static void swap_bugs(struct bz_bug *bugs, size_t a, size_t b)
{
	if (a != b) {
		struct bz_bug tmp = bugs[a];

		bugs[a] = bugs[b];
		bugs[b] = tmp;
	}
}

static size_t keep_wanted(struct sync_context *sc, struct bz_bug *bugs, size_t n, time_t now)
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		struct known_bug k;
		int keep;

		if (known_load(sc->db, bugs[i].id, &k, NULL))
			memset(&k, 0, sizeof(k));
		switch (eligibility(sc->router, &bugs[i], &k, now, NULL)) {
		case SYNC_ELIGIBLE:
			keep = 1;
			break;
		case SYNC_RESTRICTED:   /* mirrored until now: kept to be withdrawn */
			keep = k.exists && bz_bug_row_is_public(k.mirrored, k.restricted);
			break;
		default:
			keep = 0;
		}
		known_release(&k);
		if (keep)
			swap_bugs(bugs, kept++, i);
	}
	return kept;
}

/* ------------------------------------------ visibility of mirrored bugs */

/* The cursor holding the server time of the last visibility check. */
static char *visibility_cursor_name(const struct bb_config *cfg)
{
	return str_printf("bugzilla-visibility:%s", cfg->bz_url ? cfg->bz_url : "-");
}

/* The ids of the bugs mirrored and public in the store, ascending. */
static enum bb_status mirrored_public_ids(struct store *db, long long **out, size_t *count,
					  struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	long long *v = NULL;
	size_t n = 0, alloc = 0;
	enum bb_status s;
	int rc;

	*out = NULL;
	*count = 0;
	if ((s = store_prepare(db, &st, "SELECT id FROM bz_bug WHERE " BZ_BUG_PUBLIC_SQL
			       " ORDER BY id", err)))
		return s;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == alloc) {
			size_t na = alloc ? alloc * 2 : 256;
			long long *nv = realloc(v, na * sizeof(*v));

			if (!nv) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				goto out;
			}
			v = nv;
			alloc = na;
		}
		v[n++] = sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_DONE)
		s = store_fail(db, err, "reading the mirrored bugs");
out:
	sqlite3_finalize(st);
	if (s) {
		free(v);
		return s;
	}
	*out = v;
	*count = n;
	return BB_OK;
}

/* A bug put in a group the account is not in (or deleted) drops out of
 * the changed-bugs search without a trace: nothing else would withdraw it
 * until a list reply to it happened to be refused.  So every [bugzilla]
 * visibility_interval of Bugzilla's clock (at once when never done, or
 * when the clock went back) each mirrored public bug is asked for
 * (bz_check_visible(): 400 ids a request, one more for each bug the search
 * lacks), and one the account no longer sees, or sees in a group, is
 * withdrawn as apply_bug() withdraws a restricted one.  10,000 mirrored
 * bugs cost 25 requests an interval.  The time of the check is a cursor of
 * the state, committed with the withdrawals, so the cadence survives
 * restarts and a failed check is tried again next round.  Not in a dry run
 * or a resync of named bugs. */
static enum bb_status check_visibility(struct sync_context *sc, time_t now,
				       struct sync_stats *stats, struct bb_error *err)
{
	char *name = NULL, *last = NULL, now_text[32];
	long long *ids = NULL;
	enum bz_visibility *seen = NULL;
	size_t n = 0;
	unsigned long alone = 0, withdrawn = 0, before = bz_client_requests(sc->bz);
	time_t then;
	enum bb_status s = BB_OK;

	if (sc->dry_run || sc->nonly)
		return BB_OK;
	if (!(name = visibility_cursor_name(sc->cfg))) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = store_cursor_get(sc->db, name, &last, NULL, err)))
		goto out;
	then = last ? bz_parse_time(last) : 0;
	if (then > 0 && then <= now && now - then < sc->cfg->bz_visibility_interval)
		goto out;
	if ((s = mirrored_public_ids(sc->db, &ids, &n, err)))
		goto out;
	if (n && !(seen = calloc(n, sizeof(*seen)))) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (n && (s = bz_check_visible(sc->bz, ids, n, seen, &alone, err)))
		goto out;
	if ((s = store_begin(sc->db, err)))
		goto out;
	for (size_t i = 0; i < n && !s; i++) {
		if (seen[i] == BZ_VISIBLE_PUBLIC)
			continue;
		log_event(LOG_LEVEL_INFO, "sync.hidden", LF_INT("bug", ids[i]),
			  LF_STR("reason", seen[i] == BZ_VISIBLE_NOT
				 ? "no longer visible to bugbridge's account (in a group it is not"
				   " in, or deleted)"
				 : "restricted to groups"));
		if (!(s = sync_withdraw(sc, ids[i], err)))
			withdrawn++;
	}
	bz_format_time(now, now_text, sizeof(now_text));
	if (!s)
		s = store_cursor_set(sc->db, name, now_text, err);
	if (s) {
		store_rollback(sc->db);
		goto out;
	}
	if ((s = store_commit(sc->db, err)))
		goto out;
	stats->bugs_withdrawn += withdrawn;
	log_event(withdrawn ? LOG_LEVEL_INFO : LOG_LEVEL_DEBUG, "sync.visibility",
		  LF_UINT("checked", n), LF_UINT("asked_alone", alone),
		  LF_UINT("withdrawn", withdrawn),
		  LF_UINT("requests", bz_client_requests(sc->bz) - before));
out:
	free(seen);
	free(ids);
	free(last);
	free(name);
	return s;
}

/* Puts the bugs not on the list yet first; returns how many. */
static size_t first_mirrors_first(struct sync_context *sc, struct bz_bug *bugs, size_t n)
{
	size_t first = 0;

	for (size_t i = 0; i < n; i++) {
		if (!bug_on_list(sc->db, bugs[i].id))
			swap_bugs(bugs, first++, i);
	}
	return first;
}

/* The time from which the comments of bugs[0..n) (already on the list)
 * are wanted: the window's start (since), or, for a bug whose last change
 * the bridge saw is older, that change.  A bug that stayed in the
 * mirrored set changed after that only within this window (every change
 * before was seen by an earlier round); one that was away (moved to a
 * product not mirrored, in a group) changed unseen, and its comments of
 * that time are fetched to be mailed now.  The bugs are sorted by that
 * time, so that a request (from its earliest) asks little more than its
 * bugs need; *out (free() it) holds each bug's time. */
struct bug_since {
	time_t since;
	size_t index;
};

static int bug_since_cmp(const void *a, const void *b)
{
	const struct bug_since *x = a, *y = b;

	if (x->since != y->since)
		return x->since < y->since ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static enum bb_status comments_since(struct sync_context *sc, struct bz_bug *bugs, size_t n,
				     time_t since, time_t **out, struct bb_error *err)
{
	struct bug_since *order = calloc(n ? n : 1, sizeof(*order));
	struct bz_bug *sorted = calloc(n ? n : 1, sizeof(*sorted));
	time_t *each = calloc(n ? n : 1, sizeof(*each));
	sqlite3_stmt *st = NULL;
	enum bb_status s = BB_OK;

	*out = NULL;
	if (!order || !sorted || !each) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n && !s; i++) {
		order[i].since = since;
		order[i].index = i;
		if ((s = store_cached(sc->db, &st, "SELECT last_change_time FROM bz_bug WHERE id = ?",
				      err)))
			break;
		sqlite3_bind_int64(st, 1, bugs[i].id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			time_t seen = (time_t)sqlite3_column_int64(st, 0);

			if (seen > 0 && seen < since)
				order[i].since = seen;
		}
		store_cached_done(sc->db, st);
	}
	if (s)
		goto out;
	qsort(order, n, sizeof(*order), bug_since_cmp);
	for (size_t i = 0; i < n; i++) {
		sorted[i] = bugs[order[i].index];
		each[i] = order[i].since;
	}
	memcpy(bugs, sorted, n * sizeof(*bugs));
	*out = each;
	each = NULL;
out:
	free(order);
	free(sorted);
	free(each);
	return s;
}

/* History asked for (a first sync from a date or from the start, sync
 * --since): counted by a dry run of the same bugs first, and refused above
 * [bugzilla] backfill_confirm unless confirmed. */
static enum bb_status backfill_check(struct sync_context *sc, struct bz_bug *bugs, size_t n,
				     struct bb_error *err)
{
	struct sync_stats probe;
	void (*on_mail)(void *, long long, const char *, const char *) = sc->on_mail;
	enum bb_status s;

	memset(&probe, 0, sizeof(probe));
	sc->dry_run = 1;
	sc->on_mail = NULL;
	s = sync_apply(sc, bugs, n, NULL, NULL, &probe, err);
	sc->dry_run = 0;
	sc->on_mail = on_mail;
	if (s)
		return s;
	log_event(LOG_LEVEL_INFO, "sync.backfill", LF_UINT("bugs", probe.bugs_mirrored),
		  LF_UINT("comments", probe.comments_new), LF_UINT("mails", probe.mails_queued),
		  LF_UINT("confirm_above", sc->cfg->bz_backfill_confirm),
		  LF_STR("confirmed", sc->backfill_confirmed ? "yes" : "no"));
	if (sc->backfill_confirmed || probe.mails_queued <= sc->cfg->bz_backfill_confirm)
		return BB_OK;
	return bb_error_set(err, BB_ERR_CONFIG,
			    "this round would mail the history of %lu bug%s (%lu comment%s, %lu "
			    "mail%s), more than [bugzilla] backfill_confirm = %llu; nothing was "
			    "sent.  To send it, run once: bugbridge%s%s sync --yes%s; or set "
			    "[bugzilla] first_sync = now to start from now",
			    probe.bugs_mirrored, probe.bugs_mirrored == 1 ? "" : "s",
			    probe.comments_new, probe.comments_new == 1 ? "" : "s",
			    probe.mails_queued, probe.mails_queued == 1 ? "" : "s",
			    sc->cfg->bz_backfill_confirm, sc->cfg->source ? " --config " : "",
			    sc->cfg->source ? sc->cfg->source : "", sc->since ? " --since DATE" : "");
}

enum bb_status sync_round(struct sync_context *sc, struct sync_stats *stats,
			  struct bb_error *err)
{
	struct bz_bug *bugs = NULL;
	size_t n = 0, wanted;
	struct bz_filter filter;
	char **products = NULL, **components = NULL, **statuses = NULL;
	char *cursor = NULL, *cursor_name = NULL, now_text[32];
	time_t now, since = 0;
	unsigned long before = 0;
	int history = 0;
	enum bb_status s;

	memset(stats, 0, sizeof(*stats));
	if (!sc->bz)
		return bb_error_set(err, BB_ERR_CONFIG,
				    "no Bugzilla configured ([bugzilla] url in the configuration)");
	before = bz_client_requests(sc->bz);
	sync_mark_key(sc);
	cursor_name = sync_cursor_name(sc->cfg);
	if ((s = store_cursor_get(sc->db, cursor_name, &cursor, NULL, err)))
		goto out;
	if ((s = bz_server_time(sc->bz, &now, err)))
		goto out;
	if (cursor) {
		since = bz_parse_time(cursor) - 1; /* one second of overlap */
	} else if (sc->cfg->bz_first_since < 0) {
		/* a data folder's first round starts from now: against a
		 * Bugzilla with years of open bugs, anything else would mail
		 * them all to the lists ([bugzilla] first_sync) */
		since = now;
	} else {
		since = sc->cfg->bz_first_since;
		history = 1;
		/* bugs changed before max_age are not eligible anyway */
		if (sc->cfg->bz_max_age && since < now - sc->cfg->bz_max_age)
			since = now - sc->cfg->bz_max_age;
	}
	/* a re-examination: comments not mailed by the last round are old */
	sc->backlog_before = 0;
	if (sc->since || sc->nonly)
		sc->backlog_before = cursor ? bz_parse_time(cursor) : now;
	sc->missed_before = cursor && !sc->since && !sc->nonly ? since : 0;
	if (sc->since) {
		since = sc->since;
		history = 1;
	} else if (sc->nonly) {
		since = 0;
	}
	products = config_list(sc->cfg->bz_products, NULL);
	components = config_list(sc->cfg->bz_components, NULL);
	statuses = NULL; /* closing changes of mirrored bugs must be seen too */
	memset(&filter, 0, sizeof(filter));
	filter.products = products && products[0] ? products : NULL;
	filter.components = components && components[0] ? components : NULL;
	filter.statuses = statuses;
	filter.keyword = sc->cfg->bz_keyword;
	filter.ids = sc->only;
	filter.nids = sc->nonly;
	if ((s = bz_search_changed(sc->bz, since, &filter, &bugs, &n, err)))
		goto out;
	wanted = keep_wanted(sc, bugs, n, now);
	if (wanted) {
		/* a bug not on the list yet (eligible only now: a gate set
		 * late, a move, a group removed, routing added) needs all its
		 * comments for its first mirror; the others those since the
		 * cursor */
		size_t first = cursor && !sc->nonly ? first_mirrors_first(sc, bugs, wanted) : wanted;
		time_t *each = NULL;

		if (sc->missed_before && wanted > first &&
		    (s = comments_since(sc, bugs + first, wanted - first, since, &each, err)))
			goto out;
		if ((first && (s = bz_fetch_comments(sc->bz, bugs, first, 0, err))) ||
		    (wanted > first && each &&
		     (s = bz_fetch_comments_each(sc->bz, bugs + first, wanted - first, each, err))) ||
		    (wanted > first && !each &&
		     (s = bz_fetch_comments(sc->bz, bugs + first, wanted - first, since, err))) ||
		    (s = bz_fetch_attachments(sc->bz, bugs, wanted, err))) {
			free(each);
			goto out;
		}
		free(each);
		fill_real_names(sc, bugs, wanted, now);
		test_hook("sync.fetched");
		if (history && !sc->dry_run && (s = backfill_check(sc, bugs, wanted, err)))
			goto out;
		if (!sc->dry_run && (s = sync_attachments_store(sc, bugs, wanted, now, stats, err)))
			goto out;
		/* comments made private since they were mailed (bridge/sync_privacy.h) */
		if ((s = sync_privacy_check(sc, bugs + first, wanted - first, NULL, err)))
			goto out;
	}
	bz_format_time(now, now_text, sizeof(now_text));
	/* resync of named bugs leaves the cursor where it is */
	if ((s = sync_apply(sc, bugs, wanted, sc->nonly ? NULL : cursor_name,
			    sc->nonly ? NULL : now_text, stats, err)))
		goto out;
	if (!sc->dry_run && (s = sync_attachments_retry(sc, now, stats, err)))
		goto out;
	if ((s = check_visibility(sc, now, stats, err)))
		goto out;
	stats->bugs_seen = n;
	stats->requests = bz_client_requests(sc->bz) - before;
	/* an idle round says nothing at the default level */
	log_event(n || stats->mails_queued ? LOG_LEVEL_INFO : LOG_LEVEL_DEBUG, "sync.round",
		  LF_UINT("changed", n), LF_UINT("mirrored", wanted),
		  LF_UINT("mails", stats->mails_queued), LF_UINT("requests", stats->requests),
		  LF_STR("cursor", now_text));
	if (!sc->dry_run) {
		struct outbox_options oopt;

		sync_outbox_options(sc->cfg, &oopt);
		s = outbox_deliver(sc->db, &oopt, time(NULL), &stats->delivery, err);
	}
out:
	for (size_t i = 0; i < n; i++)
		bz_bug_release(&bugs[i]);
	free(bugs);
	config_list_free(products);
	config_list_free(components);
	free(cursor);
	free(cursor_name);
	return s;
}
