/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "Still happening?": pings of quiet bugs on old kernels, and the closing
 * of those nobody answers (see aging.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <glib.h>
#include <sqlite3.h>

#include "bridge/aging.h"
#include "bridge/follow.h"
#include "bridge/handover.h"
#include "bridge/needinfo.h"
#include "bridge/route.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "bugzilla/bz_client.h"
#include "bugzilla/bz_fields.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/store.h"
#include "mail/mail.h"
#include "mail/maintainers.h"
#include "mail/outbox.h"
#include "tracker/release.h"
#include "tracker/tracker.h"
#include "triage/reader.h"

enum { STEP_PING = 1 };

#define DAY 86400

static char *ping_message_id(struct sync_context *sc, long long bug_id, long long ping)
{
	return mail_notice_message_id(sc->cfg->mail_domain, bug_id,
				      AGING_SEQ_BASE + 10 * ping + STEP_PING);
}

/* Moves ping id from state from to state to, setting the time column
 * (NULL: none) to now; *moved (may be NULL) says whether it was in from. */
static enum bb_status ping_move(struct sync_context *sc, long long id, const char *from,
				const char *to, const char *time_column, int *moved,
				struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	char sql[200];
	enum bb_status s;

	snprintf(sql, sizeof(sql), "UPDATE aging_ping SET state = ?1, updated = ?2%s%s%s"
		 " WHERE id = ?3 AND state = ?4", time_column ? ", " : "",
		 time_column ? time_column : "", time_column ? " = ?2" : "");
	if ((s = store_prepare(sc->db, &st, sql, err)))
		return s;
	sqlite3_bind_text(st, 1, to, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)bb_now());
	sqlite3_bind_int64(st, 3, id);
	sqlite3_bind_text(st, 4, from, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording an aging ping");
	else if (moved)
		*moved = sqlite3_changes(sc->db->db) > 0;
	sqlite3_finalize(st);
	return s;
}

static enum bb_status ping_move_alone(struct sync_context *sc, long long id, const char *from,
				      const char *to, struct bb_error *err)
{
	enum bb_status s = store_begin(sc->db, err);

	if (s)
		return s;
	s = ping_move(sc, id, from, to, NULL, NULL, err);
	return s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
}

/* ------------------------------------------------------- the closing */

struct ping {
	long long id, bug_id;
	char *release, *kernel, *state;
	time_t pinged_at;
};

static void ping_release(struct ping *p)
{
	free(p->release);
	free(p->kernel);
	free(p->state);
	memset(p, 0, sizeof(*p));
}

/* Closes p's bug (state closing), once, as needinfo closes one; a bug
 * closed so is one a reply from its reporter reopens (needinfo.h). */
static enum bb_status close_one(struct sync_context *sc, struct ping *p,
				struct aging_stats *stats, struct bb_error *err)
{
	enum needinfo_close_outcome outcome;
	struct bz_bug bug;
	char asked[16], *comment, *question, *mail = NULL;
	const char *to;
	enum bb_status s;

	bb_day_text(p->pinged_at, asked, sizeof(asked));
	comment = str_printf("Closed for want of an answer: on %s, after a long time without "
			     "activity, this bug (on %s) was asked on its mail thread whether it "
			     "still happens with %s, and nobody answered.\n\nA reply from the "
			     "reporter on the bug's mail thread reopens it.", asked,
			     *p->kernel ? p->kernel : "an older kernel", p->release);
	if (!comment)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	s = needinfo_close_bug(sc, p->bug_id, comment, NULL, NULL, "aging", &outcome, err);
	free(comment);
	if (s)
		return s;
	to = outcome == NEEDINFO_CLOSE_DONE || outcome == NEEDINFO_CLOSE_NOT_OPEN ? "closed"
										  : "ended";
	if (outcome == NEEDINFO_CLOSE_DONE)
		stats->closed++;
	question = str_printf("Does it still happen with %s?", p->release);
	mail = ping_message_id(sc, p->bug_id, p->id);
	if (!question || !mail) {
		free(question);
		free(mail);
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	if (!(s = store_begin(sc->db, err))) {
		s = ping_move(sc, p->id, "closing", to, !strcmp(to, "closed") ? "closed_at" : NULL,
			      NULL, err);
		/* a reply from the reporter reopens it, as needinfo's closings */
		if (!s && !strcmp(to, "closed") && sync_load_bug(sc, p->bug_id, 1, &bug, NULL) == BB_OK) {
			if (bug.creator.login && *bug.creator.login)
				s = needinfo_record_closed(sc, p->bug_id, bug.creator.login, question,
							   mail, p->pinged_at, "bugbridge", err);
			bz_bug_release(&bug);
		}
		s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	}
	free(question);
	free(mail);
	return s;
}

/* The pings whose time ran out: answered (the bug saw activity since),
 * ended (closed, or gone), or closed; and the closings a crash left. */
static enum bb_status close_due(struct sync_context *sc, struct aging_stats *stats,
				struct bb_error *err)
{
	const struct bz_fields *f = NULL;
	sqlite3_stmt *st = NULL;
	struct ping *due = NULL;
	size_t n = 0, alloc = 0;
	time_t now = bb_now();
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st, "SELECT id, bug_id, release, kernel, state, pinged_at"
				      " FROM aging_ping WHERE (state = 'pinged' AND pinged_at <= ?)"
				      " OR state = 'closing' ORDER BY id", err)))
		return s;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)(now - sc->cfg->aging_ping_close));
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n == alloc) {
			struct ping *more = realloc(due, (alloc = alloc ? 2 * alloc : 16) * sizeof(*due));

			if (!more) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				break;
			}
			due = more;
		}
		due[n].id = sqlite3_column_int64(st, 0);
		due[n].bug_id = sqlite3_column_int64(st, 1);
		due[n].release = store_column_dup(st, 2);
		due[n].kernel = store_column_dup(st, 3);
		due[n].state = store_column_dup(st, 4);
		due[n].pinged_at = (time_t)sqlite3_column_int64(st, 5);
		if (!due[n++].state)
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	sqlite3_finalize(st);
	if (n)
		bz_fields_get(sc->bz, &f, NULL);
	for (size_t i = 0; i < n && !s; i++) {
		struct ping *p = &due[i];
		struct bz_bug live;
		const char *to = NULL;
		int have = 0, moved = 0;

		if (sync_bug_eligibility(sc->db, NULL, NULL, p->bug_id, 0, NULL) != SYNC_ELIGIBLE) {
			/* private or restricted now: not closed */
			stats->skipped++;
			continue;
		}
		if (!strcmp(p->state, "pinged")) {
			if ((s = needinfo_bug_now(sc, p->bug_id, &live, &have, err)))
				break;
			if (!have) {
				stats->skipped++;
				continue;
			}
			if (live.last_change_time > p->pinged_at)
				to = "answered";   /* a reply, or any change, since */
			else if (!needinfo_bug_is_open(f, &live))
				to = "ended";
			bz_bug_release(&live);
			if (to) {
				stats->answered += !strcmp(to, "answered");
				log_event(LOG_LEVEL_INFO, "aging.ended", LF_INT("bug", p->bug_id),
					  LF_STR("state", to));
				s = ping_move_alone(sc, p->id, "pinged", to, err);
				continue;
			}
			if (!(s = store_begin(sc->db, err))) {
				s = ping_move(sc, p->id, "pinged", "closing", NULL, &moved, err);
				s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
			}
			if (s || !moved)
				continue;
			test_hook("aging.closing");
		}
		s = close_one(sc, p, stats, err);
	}
	for (size_t i = 0; i < n; i++)
		ping_release(&due[i]);
	free(due);
	return s;
}

/* ------------------------------------------------------- the pings */

/* Records why bug_id is not asked about release (judged at its
 * last_change_time seen), unless it was asked. */
static enum bb_status record_skip(struct sync_context *sc, long long bug_id, const char *release,
				  const char *reason, const char *kernel, time_t seen,
				  struct aging_stats *stats, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	stats->skipped++;
	log_event(LOG_LEVEL_DEBUG, "aging.skipped", LF_INT("bug", bug_id),
		  LF_STR("release", release), LF_STR("reason", reason));
	if ((s = store_prepare(sc->db, &st, "INSERT INTO aging_ping (bug_id, release, state, reason,"
				      " kernel, seen_change, updated) VALUES (?1, ?2, 'skipped', ?3, ?4,"
				      " ?5, ?6) ON CONFLICT (bug_id, release) DO UPDATE SET"
				      " reason = ?3, kernel = ?4, seen_change = ?5, updated = ?6"
				      " WHERE state = 'skipped'", err)))
		return s;
	sqlite3_bind_int64(st, 1, bug_id);
	sqlite3_bind_text(st, 2, release, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, kernel ? kernel : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)seen);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)bb_now());
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording an aging ping");
	sqlite3_finalize(st);
	return s;
}

/* How many pings went to list (a bare address, lower case) on the UTC
 * day of now. */
static long long pings_today(struct sync_context *sc, const char *list, time_t now)
{
	sqlite3_stmt *st = NULL;
	time_t start = now - now % DAY;
	long long count = 0;

	if (store_prepare(sc->db, &st, "SELECT count(*) FROM aging_ping WHERE pinged_at >= ?1 AND"
			  " pinged_at < ?1 + 86400 AND instr(char(10) || lists || char(10),"
			  " char(10) || ?2 || char(10)) > 0", NULL))
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)start);
	sqlite3_bind_text(st, 2, list, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		count = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return count;
}

/* A version text as a release version: a distribution's or local build's
 * by the mainline or stable release it is based on. */
static int version_of(const char *text, struct release_version *v)
{
	char *upstream = NULL;
	int ok;

	if (!text || !*text)
		return 0;
	tri_kernel_classify(text, &upstream, NULL);
	ok = release_parse(upstream ? upstream : text, v);
	g_free(upstream);
	return ok;
}

/* The bug's kernel (as Bugzilla has it now, live): its kernel field, else
 * what the report reader finds (its comments fetched for that); *found
 * whether there is one, text what it says and from where. */
static enum bb_status kernel_of(struct sync_context *sc, struct bz_bug *live,
				struct release_version *v, char *text, size_t size, int *found,
				struct bb_error *err)
{
	const char *name = sc->cfg->bz_kernel_field && *sc->cfg->bz_kernel_field
			   ? sc->cfg->bz_kernel_field : "cf_kernel_version";
	const char *field = bz_bug_field(live, name);
	struct tri_report *r;
	char *all;
	enum bb_status s;

	*found = 0;
	if (version_of(field, v)) {
		snprintf(text, size, "%s", field);
		*found = 1;
		return BB_OK;
	}
	if ((s = bz_fetch_comments(sc->bz, live, 1, 0, err)) ||
	    (s = bz_fetch_attachments(sc->bz, live, 1, err)))
		return s;
	if (!(all = sync_triage_text(sc, live)))
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	r = tri_read(all, strlen(all));
	free(all);
	if (r && r->kernel.version && version_of(r->kernel.version, v)) {
		snprintf(text, size, "%s", r->kernel.version);
		*found = 1;
	}
	tri_report_free(r);
	return BB_OK;
}

/* Records the ping of bug about release and queues its mail, in one
 * transaction. */
static enum bb_status ping(struct sync_context *sc, const struct bz_bug *bug,
			   const struct bz_bug *live, const struct route_result *route,
			   const char *lists, const char *release, const char *kernel,
			   struct aging_stats *stats, struct bb_error *err)
{
	struct mail_options mopt;
	struct mail_message msg = { NULL, NULL, 0 };
	struct buf text = BUF_INIT;
	sqlite3_stmt *st = NULL;
	char quiet[16], close[16], *root = NULL, *sender = NULL, **rcpt = NULL;
	time_t now = bb_now();
	long long id = 0;
	enum bb_status s;

	bb_day_text(live->last_change_time, quiet, sizeof(quiet));
	bb_day_text(now + sc->cfg->aging_ping_close, close, sizeof(close));
	buf_addf(&text, "This bug has seen no activity since %s.  It was reported on Linux %s,\n"
		 "and %s has been released since.\n\n"
		 "Does it still happen with %s (or a later kernel)?  Please reply to this\n"
		 "mail either way.  Without an answer, the bug is closed on %s; a reply\n"
		 "from the reporter reopens it then.\n", quiet, kernel, release, release, close);
	root = handover_thread_root(sc, bug->id);   /* the thread, on the bug's list now */
	sender = mnt_address(sc->cfg->mail_from);
	/* the reporter: in the envelope only, never in a list's headers */
	rcpt = route_envelope(route, live->creator.login && strchr(live->creator.login, '@')
					     ? live->creator.login : NULL);
	if (!text.data || !root || !sender || !rcpt) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = store_begin(sc->db, err)))
		goto out;
	if ((s = store_prepare(sc->db, &st, "INSERT INTO aging_ping (bug_id, release, state, kernel,"
				      " lists, seen_change, pinged_at, updated) VALUES (?1, ?2, 'pinged',"
				      " ?3, ?4, ?5, ?6, ?6) ON CONFLICT (bug_id, release) DO UPDATE SET"
				      " state = 'pinged', reason = '', kernel = ?3, lists = ?4,"
				      " seen_change = ?5, pinged_at = ?6, updated = ?6"
				      " WHERE state = 'skipped'", err)))
		goto out;
	sqlite3_bind_int64(st, 1, bug->id);
	sqlite3_bind_text(st, 2, release, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, lists, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)bug->last_change_time);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)now);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording an aging ping");
	else if (sqlite3_changes(sc->db->db) > 0)
		id = 1;
	sqlite3_finalize(st);
	st = NULL;
	if (s || !id)
		goto out;   /* asked about this release before */
	if ((s = store_prepare(sc->db, &st, "SELECT id FROM aging_ping WHERE bug_id = ? AND"
				      " release = ?", err)))
		goto out;
	sqlite3_bind_int64(st, 1, bug->id);
	sqlite3_bind_text(st, 2, release, -1, SQLITE_STATIC);
	id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (!id) {
		s = store_fail(sc->db, err, "recording an aging ping");
		goto out;
	}
	sync_mail_options(sc->cfg, &mopt);
	mopt.mark_key = sync_mark_key(sc);
	if ((s = mail_compose_notice(&mopt, bug, AGING_SEQ_BASE + 10 * id + STEP_PING, text.data, 0,
				     route->to, route->cc, root, &msg, err)))
		goto out;
	if (!outbox_has(sc->db, msg.message_id) &&
	    (s = outbox_add(sc->db, msg.message_id, bug->id, 0, sender, rcpt, msg.text, msg.len,
			    err)))
		goto out;
	log_event(LOG_LEVEL_INFO, "aging.pinged", LF_INT("bug", bug->id),
		  LF_STR("release", release), LF_STR("kernel", kernel),
		  LF_STR("message_id", msg.message_id));
out:
	if (sc->db->depth > 0)
		s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	if (!s && id) {
		stats->pinged++;
		test_hook("aging.pinged");
	}
	mail_message_release(&msg);
	buf_release(&text);
	free(root);
	free(sender);
	route_envelope_free(rcpt);
	return s;
}

/* Judges one stale bug (its last_change_time seen in bugbridge's state)
 * and pings it when it is to be. */
static enum bb_status consider(struct sync_context *sc, long long id, time_t seen,
			       const struct release_version *newest, const char *release,
			       struct aging_stats *stats, struct bb_error *err)
{
	const struct bz_fields *f = NULL;
	struct route_result route = { NULL, NULL, NULL };
	struct bz_bug bug, live;
	struct release_version v;
	struct buf lists = BUF_INIT;
	char kernel[160] = "", why[200];
	int have_live = 0, found = 0;
	time_t now = bb_now();
	enum bb_status s;

	if (sync_load_bug(sc, id, 1, &bug, NULL) != BB_OK)
		return BB_OK;   /* not mirrored, or restricted */
	if (sc->tracker && tracker_bug_is_regression(sc->tracker, &bug)) {
		s = record_skip(sc, id, release, "a regression the tracker tracks", NULL, seen,
				stats, err);
		goto out;
	}
	if ((s = router_route(sc->router, &bug, &route, err))) {
		if (s != BB_ERR_NOT_FOUND)
			goto out;
		bb_error_clear(err);
		s = record_skip(sc, id, release, "no list to ask on", NULL, seen, stats, err);
		goto out;
	}
	/* Cc'd as the bug's other mails are: its followers, not those who left */
	if ((s = follow_route(sc, &bug, &route, 0, err)))
		goto out;
	for (size_t i = 0; route.to && route.to[i]; i++) {
		char *low = g_ascii_strdown(route.to[i], -1);
		long long today = pings_today(sc, low, now);

		if (today < 0 || (unsigned long long)today >= sc->cfg->aging_daily_limit) {
			/* this list had its share today: tomorrow, still oldest first */
			g_free(low);
			stats->limited++;
			log_event(LOG_LEVEL_DEBUG, "aging.limited", LF_INT("bug", id),
				  LF_STR("list", route.to[i]));
			goto out;
		}
		buf_addf(&lists, "%s%s", i ? "\n" : "", low);
		g_free(low);
	}
	if ((s = needinfo_bug_now(sc, id, &live, &have_live, err)))
		goto out;
	if (!have_live) {
		stats->skipped++;   /* private or restricted now: never asked */
		goto out;
	}
	bz_fields_get(sc->bz, &f, NULL);
	if (!needinfo_bug_is_open(f, &live)) {
		s = record_skip(sc, id, release, "closed", NULL, seen, stats, err);
		goto out;
	}
	if (live.last_change_time > now - sc->cfg->aging_ping_after) {
		s = record_skip(sc, id, release, "active since", NULL, seen, stats, err);
		goto out;
	}
	if (sc->tracker && tracker_bug_is_regression(sc->tracker, &live)) {
		s = record_skip(sc, id, release, "a regression", NULL, seen, stats, err);
		goto out;
	}
	if ((s = kernel_of(sc, &live, &v, kernel, sizeof(kernel), &found, err)))
		goto out;
	if (!found) {
		s = record_skip(sc, id, release, "no kernel version known", NULL, seen, stats, err);
		goto out;
	}
	if (release_cmp(&v, newest) >= 0) {
		snprintf(why, sizeof(why), "its kernel is not older than %s", release);
		s = record_skip(sc, id, release, why, kernel, seen, stats, err);
		goto out;
	}
	if (!lists.data) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	s = ping(sc, &bug, &live, &route, lists.data, release, kernel, stats, err);
out:
	if (have_live)
		bz_bug_release(&live);
	bz_bug_release(&bug);
	route_result_release(&route);
	buf_release(&lists);
	return s;
}

/* The stale bugs, quiet longest first, not judged for release since they
 * last changed, without a ping or a needinfo question in progress. */
static enum bb_status ping_new(struct sync_context *sc, const struct release_version *newest,
			       const char *release, struct aging_stats *stats,
			       struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	struct cand { long long id; time_t seen; } *c = NULL;
	size_t n = 0, alloc = 0;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st, "SELECT b.id, b.last_change_time FROM bz_bug b WHERE "
				      BZ_BUG_PUBLIC_SQL_AS("b.") " AND b.resolution = '' AND"
				      " b.last_change_time > 0 AND b.last_change_time <= ?1 AND"
				      " NOT EXISTS (SELECT 1 FROM aging_ping p WHERE p.bug_id = b.id AND"
				      " (p.state IN ('pinged', 'closing') OR (p.release = ?2 AND"
				      " (p.state != 'skipped' OR p.seen_change = b.last_change_time))))"
				      " AND NOT EXISTS (SELECT 1 FROM bug_mute m WHERE m.bug_id = b.id)"
				      " AND NOT EXISTS (SELECT 1 FROM needinfo q WHERE q.bug_id = b.id AND"
				      " q.state IN ('waiting', 'reminded', 'closing', 'reopening'))"
				      " ORDER BY b.last_change_time, b.id", err)))
		return s;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)(bb_now() - sc->cfg->aging_ping_after));
	sqlite3_bind_text(st, 2, release, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n == alloc) {
			struct cand *more = realloc(c, (alloc = alloc ? 2 * alloc : 64) * sizeof(*c));

			if (!more) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				break;
			}
			c = more;
		}
		c[n].id = sqlite3_column_int64(st, 0);
		c[n++].seen = (time_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < n && !s; i++)
		s = consider(sc, c[i].id, c[i].seen, newest, release, stats, err);
	free(c);
	return s;
}

enum bb_status aging_round(struct sync_context *sc, struct aging_stats *stats,
			   struct bb_error *err)
{
	struct release_version newest;
	char **trees = NULL, *release = NULL;
	enum bb_status s;

	memset(stats, 0, sizeof(*stats));
	if (sc->dry_run || !sc->bz || sc->cfg->aging_ping_after <= 0)
		return BB_OK;
	if ((s = close_due(sc, stats, err)))
		return s;
	if (!(trees = calloc(sc->cfg->ntrees + 1, sizeof(*trees))))
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < sc->cfg->ntrees; i++)
		trees[i] = sc->cfg->trees[i].name;
	s = release_newest(sc->db, trees, &release, NULL, err);
	free(trees);
	if (!s && release && release_parse(release, &newest))
		s = ping_new(sc, &newest, release, stats, err);
	if (!s && (stats->pinged || stats->closed || stats->answered))
		log_event(LOG_LEVEL_INFO, "aging.round", LF_STR("release", release ? release : ""),
			  LF_UINT("pinged", stats->pinged), LF_UINT("closed", stats->closed),
			  LF_UINT("answered", stats->answered), LF_UINT("limited", stats->limited));
	free(release);
	return s;
}
