/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The digest per list, its schedule, and "#bugbridge no-reminders" (see
 * digest.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <glib.h>
#include <json-c/json.h>
#include <sqlite3.h>

#include "bridge/digest.h"
#include "bridge/inbound.h"
#include "bridge/needinfo.h"
#include "bridge/route.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "bugzilla/bz_client.h"
#include "config/conf.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/store.h"
#include "mail/mail.h"
#include "mail/maintainers.h"
#include "mail/outbox.h"
#include "tracker/report.h"
#include "tracker/report_model.h"
#include "tracker/tracker.h"

#define DIGEST_DAY 86400
#define SCHEDULE_CURSOR "digest:schedule"

/* ------------------------------------------------------- the schedule */

static GDateTime *utc_at(int year, int month, int day, unsigned hour)
{
	return g_date_time_new_utc(year, month, day, (int)hour, 0, 0);
}

int digest_period(const char *schedule, unsigned day, unsigned hour, time_t now, char *key,
		  size_t size, time_t *slot)
{
	GDateTime *t = g_date_time_new_from_unix_utc(now), *s = NULL;
	char *text = NULL;
	int weekly = schedule && !strcmp(schedule, "weekly");
	int monthly = schedule && !strcmp(schedule, "monthly");

	if (!t || (!weekly && !monthly) || hour > 23 || day < 1 || day > (weekly ? 7u : 28u)) {
		if (t)
			g_date_time_unref(t);
		return 0;
	}
	if (weekly) {
		/* this week's day at hour, else last week's */
		GDateTime *d = utc_at(g_date_time_get_year(t), g_date_time_get_month(t),
				      g_date_time_get_day_of_month(t), hour);
		int back = (g_date_time_get_day_of_week(t) - (int)day + 7) % 7;

		s = g_date_time_add_days(d, -back);
		g_date_time_unref(d);
		if (g_date_time_to_unix(s) > now) {
			d = s;
			s = g_date_time_add_days(d, -7);
			g_date_time_unref(d);
		}
		text = g_date_time_format(s, "%G-W%V");
	} else {
		s = utc_at(g_date_time_get_year(t), g_date_time_get_month(t), (int)day, hour);
		if (g_date_time_to_unix(s) > now) {
			GDateTime *d = s;

			s = g_date_time_add_months(d, -1);
			g_date_time_unref(d);
		}
		text = g_date_time_format(s, "%Y-%m");
	}
	snprintf(key, size, "%s", text ? text : "");
	*slot = (time_t)g_date_time_to_unix(s);
	g_free(text);
	g_date_time_unref(s);
	g_date_time_unref(t);
	return *key != '\0';
}

/* [digest] hour as a number (0 to 23). */
static unsigned digest_hour(const struct bb_config *cfg)
{
	return cfg->digest_hour ? (unsigned)atoi(cfg->digest_hour) : 8;
}

/* One period after t. */
static time_t period_after(const char *schedule, time_t t)
{
	GDateTime *d, *n;
	time_t after;

	if (!strcmp(schedule, "weekly"))
		return t + 7 * DIGEST_DAY;
	d = g_date_time_new_from_unix_utc(t);
	n = d ? g_date_time_add_months(d, 1) : NULL;
	after = n ? (time_t)g_date_time_to_unix(n) : t + 31 * DIGEST_DAY;
	if (n)
		g_date_time_unref(n);
	if (d)
		g_date_time_unref(d);
	return after;
}

/* ------------------------------------------------------- the entries */

struct bug_row {
	long long id;
	char *summary, *needinfo, *url;
	time_t created, changed;
	int regression;
	char **lists;   /* bare, lower case */
};

static void bug_row_release(struct bug_row *b)
{
	free(b->summary);
	free(b->needinfo);
	free(b->url);
	g_strfreev(b->lists);
	memset(b, 0, sizeof(*b));
}

/* The lists of a bug (bare, lower case, NULL-terminated), those excluded
 * left out; NULL when it has none. */
static char **bug_lists(struct sync_context *sc, const struct bz_bug *bug, char **exclude)
{
	struct route_result route = { NULL, NULL, NULL };
	GPtrArray *a;

	if (router_route(sc->router, bug, &route, NULL) != BB_OK) {
		route_result_release(&route);
		return NULL;
	}
	a = g_ptr_array_new();
	for (size_t i = 0; route.to && route.to[i]; i++) {
		char *bare = mnt_address(route.to[i]);
		char *low = bare && *bare ? g_ascii_strdown(bare, -1) : NULL;
		int dup = 0;

		free(bare);
		for (size_t j = 0; low && j < a->len; j++)
			dup |= !strcmp(a->pdata[j], low);
		if (!low || dup || route_has_address(exclude, low))
			g_free(low);
		else
			g_ptr_array_add(a, low);
	}
	route_result_release(&route);
	if (!a->len) {
		g_ptr_array_free(a, TRUE);
		return NULL;
	}
	g_ptr_array_add(a, NULL);
	return (char **)g_ptr_array_free(a, FALSE);
}

static int id_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* The open public bugs that are not muted, oldest first, with what the
 * digest says of them; those Bugzilla does not show as public now are
 * left out (counted in st->hidden). */
static enum bb_status load_bugs(struct sync_context *sc, struct bug_row **out, size_t *count,
				struct digest_stats *st, struct bb_error *err)
{
	char **exclude = config_address_list(sc->cfg->digest_exclude_lists, NULL);
	sqlite3_stmt *q = NULL;
	struct bug_row *rows = NULL;
	size_t n = 0, alloc = 0;
	enum bb_status s;

	*out = NULL;
	*count = 0;
	if (!exclude)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if ((s = store_prepare(sc->db, &q, "SELECT b.id, b.creation_time, b.last_change_time"
				     " FROM bz_bug b WHERE "
				     BZ_BUG_PUBLIC_SQL_AS("b.") " AND b.resolution = '' AND NOT EXISTS"
				     " (SELECT 1 FROM bug_mute m WHERE m.bug_id = b.id)"
				     " ORDER BY b.creation_time, b.id", err)))
		goto out;
	while (!s && sqlite3_step(q) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(q, 0);
		struct bz_bug bug;
		struct bug_row *r;
		char state[64];

		if (sync_bug_eligibility(sc->db, NULL, NULL, id, 0, NULL) != SYNC_ELIGIBLE ||
		    sync_load_bug(sc, id, 0, &bug, NULL) != BB_OK)
			continue;
		if (n == alloc) {
			struct bug_row *more = realloc(rows, (alloc = alloc ? 2 * alloc : 64) *
							     sizeof(*rows));

			if (!more) {
				bz_bug_release(&bug);
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				break;
			}
			rows = more;
		}
		r = &rows[n];
		memset(r, 0, sizeof(*r));
		r->id = id;
		r->lists = bug_lists(sc, &bug, exclude);
		if (!r->lists) {
			bz_bug_release(&bug);
			continue;
		}
		needinfo_state_text(sc->db, id, state, sizeof(state));
		r->summary = strdup(bug.summary ? bug.summary : "");
		r->needinfo = strdup(state);
		r->url = reg_report_bug_link(sc->cfg->bz_url, id);
		if (!r->url)
			r->url = strdup("");
		r->created = (time_t)sqlite3_column_int64(q, 1);
		r->changed = (time_t)sqlite3_column_int64(q, 2);
		r->regression = sc->tracker && tracker_bug_is_regression(sc->tracker, &bug);
		bz_bug_release(&bug);
		n++;
		if (!r->summary || !r->needinfo || !r->url)
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	sqlite3_finalize(q);
	/* as Bugzilla has them now: one restricted since the last round is
	 * never listed */
	if (!s && n && sc->bz) {
		long long *ids = calloc(n, sizeof(*ids));
		enum bz_visibility *seen = calloc(n, sizeof(*seen));
		long long *sorted = NULL;

		if (!ids || !seen || !(sorted = calloc(n, sizeof(*sorted)))) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		} else {
			for (size_t i = 0; i < n; i++)
				sorted[i] = rows[i].id;
			qsort(sorted, n, sizeof(*sorted), id_cmp);
			s = bz_check_visible(sc->bz, sorted, n, seen, NULL, err);
			for (size_t i = 0; i < n && !s; i++) {
				long long *at = bsearch(&rows[i].id, sorted, n, sizeof(*sorted),
							id_cmp);

				if (at && seen[at - sorted] != BZ_VISIBLE_PUBLIC) {
					st->hidden++;
					log_event(LOG_LEVEL_INFO, "digest.hidden",
						  LF_INT("bug", rows[i].id));
					g_strfreev(rows[i].lists);
					rows[i].lists = NULL;   /* in no digest */
				}
			}
		}
		free(ids);
		free(seen);
		free(sorted);
	}
	if (s) {
		for (size_t i = 0; i < n; i++)
			bug_row_release(&rows[i]);
		free(rows);
		goto out;
	}
	*out = rows;
	*count = n;
out:
	config_list_free(exclude);
	return s;
}

/* --------------------------------------------------------- a digest */

/* "digest-<period>-<list>" with the list's address made fit for a
 * Message-ID ('@' as "-at-", other bytes outside [A-Za-z0-9.-] as '_'). */
static char *digest_local(const char *period, const char *list)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "digest-%s-", period);
	for (const char *p = list; *p; p++) {
		if (*p == '@')
			buf_addstr(&b, "-at-");
		else
			buf_addch(&b, g_ascii_isalnum(*p) || *p == '.' || *p == '-' ? *p : '_');
	}
	return buf_detach(&b, NULL);
}

/* The digest of list for period: *id its row (0: none). */
static long long digest_find(struct store *db, const char *list, const char *period)
{
	sqlite3_stmt *q = NULL;
	long long id = 0;

	if (store_prepare(db, &q, "SELECT id FROM digest WHERE list = ? AND period = ?", NULL))
		return 0;
	sqlite3_bind_text(q, 1, list, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, period, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW)
		id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return id;
}

/* Whether bug was in list's latest digest before period (*had_one: there
 * was one). */
static int in_previous(struct store *db, const char *list, const char *period, long long bug,
		       int *had_one)
{
	sqlite3_stmt *q = NULL;
	int in = 0;

	*had_one = 0;
	if (store_prepare(db, &q, "SELECT d.id, EXISTS (SELECT 1 FROM digest_entry e WHERE"
			  " e.digest = d.id AND e.bug_id = ?3) FROM digest d WHERE d.list = ?1 AND"
			  " d.period != ?2 ORDER BY d.sent_at DESC, d.id DESC LIMIT 1", NULL))
		return 0;
	sqlite3_bind_text(q, 1, list, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, period, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 3, bug);
	if (sqlite3_step(q) == SQLITE_ROW) {
		*had_one = 1;
		in = sqlite3_column_int(q, 1);
	}
	sqlite3_finalize(q);
	return in;
}

/* The digest's text for its entries. */
static char *digest_text(const char *list, const char *period, const struct digest_entry *e,
			 size_t n, time_t now)
{
	struct buf b = BUF_INIT;
	unsigned long fresh = 0, waiting = 0, regressions = 0;
	char day[16], changed[16];

	for (size_t i = 0; i < n; i++) {
		fresh += e[i].is_new;
		waiting += *e[i].needinfo != '\0';
		regressions += e[i].regression;
	}
	bb_day_text(now, day, sizeof(day));
	buf_addf(&b, "Open bugs of %s (%s, as of %s)\n\n", list, period, day);
	buf_addf(&b, "Open: %zu; new since the last digest: %lu; waiting for an answer: %lu;\n"
		 "regressions: %lu.\n\n", n, fresh, waiting, regressions);
	for (size_t i = 0; i < n; i++) {
		bb_day_text(e[i].changed, changed, sizeof(changed));
		buf_addf(&b, "%3d. %sBug %lld - ", e[i].n, e[i].is_new ? "[new] " : "", e[i].bug_id);
		reg_text_line(&b, e[i].summary, 200);
		buf_addf(&b, "\n     age %lld days, last activity %s", now > e[i].created ?
			 (long long)(now - e[i].created) / DIGEST_DAY : 0LL, changed);
		if (*e[i].needinfo)
			buf_addf(&b, ", needinfo: %s", e[i].needinfo);
		if (e[i].regression)
			buf_addstr(&b, ", regression");
		buf_addf(&b, "\n     %s\n", e[i].url);
	}
	buf_addstr(&b, "\nTo act on an entry, reply to this mail with a command of a bug's thread\n"
		   "after the entry's number, on a line of its own, such as\n\n"
		   "    #bugbridge 3 needinfo reporter Does it still happen with 6.12?\n\n"
		   "The same senders may, and get the same answer, as on the bug's thread.\n"
		   "\"#bugbridge <n> no-reminders\" keeps a bug out of digests, needinfo\n"
		   "reminders and aging questions.\n");
	return buf_detach(&b, NULL);
}

/* Records the digest with its entries and queues its mail, in one
 * transaction; *queued whether this call did. */
static enum bb_status digest_queue(struct sync_context *sc, const char *list, const char *period,
				   const struct digest_entry *e, size_t n,
				   const struct mail_message *m, int *queued, struct bb_error *err)
{
	sqlite3_stmt *q = NULL;
	char *rcpt[2] = { (char *)list, NULL };
	long long id;
	enum bb_status s;

	*queued = 0;
	if ((s = store_begin(sc->db, err)))
		return s;
	if (digest_find(sc->db, list, period))
		goto out;   /* this period's went out already */
	if ((s = store_prepare(sc->db, &q, "INSERT INTO digest (list, period, message_id, sent_at)"
				     " VALUES (?, ?, ?, ?)", err)))
		goto out;
	sqlite3_bind_text(q, 1, list, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, period, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, m->message_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, (sqlite3_int64)bb_now());
	if (sqlite3_step(q) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a digest");
	sqlite3_finalize(q);
	q = NULL;
	id = sqlite3_last_insert_rowid(sc->db->db);
	if (!s && (s = store_prepare(sc->db, &q, "INSERT INTO digest_entry (digest, n, bug_id,"
					   " is_new) VALUES (?, ?, ?, ?)", err)))
		goto out;
	for (size_t i = 0; i < n && !s; i++) {
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int(q, 2, e[i].n);
		sqlite3_bind_int64(q, 3, e[i].bug_id);
		sqlite3_bind_int(q, 4, e[i].is_new);
		if (sqlite3_step(q) != SQLITE_DONE)
			s = store_fail(sc->db, err, "recording a digest");
	}
	sqlite3_finalize(q);
	if (!s && !outbox_has(sc->db, m->message_id))
		s = outbox_add(sc->db, m->message_id, 0, 0, sc->cfg->mail_from, rcpt, m->text, m->len,
			       err);
	*queued = !s;
out:
	s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	if (s)
		*queued = 0;
	return s;
}

/* The digest of one list: its entries, the mail, recorded and queued. */
static enum bb_status one_list(struct sync_context *sc, const char *list, const char *period,
			       const struct bug_row *rows, size_t nrows, int dry_run,
			       digest_seen_fn *seen, void *ctx, struct digest_stats *st,
			       struct bb_error *err)
{
	struct digest_entry *e = calloc(nrows ? nrows : 1, sizeof(*e));
	struct mail_message m = { NULL, NULL, 0 };
	char *local = digest_local(period, list), *text = NULL, *lists[2] = { (char *)list, NULL };
	char subject[200];
	time_t now = bb_now();
	size_t n = 0;
	int queued = 0, already;
	enum bb_status s = BB_OK;

	if (!e || !local) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nrows; i++) {
		int had = 0, was;

		if (!rows[i].lists || !route_has_address(rows[i].lists, list))
			continue;
		was = in_previous(sc->db, list, period, rows[i].id, &had);
		e[n] = (struct digest_entry){ (int)n + 1, rows[i].id, rows[i].summary,
					      rows[i].needinfo, rows[i].created, rows[i].changed,
					      had && !was, rows[i].regression, rows[i].url };
		n++;
	}
	if (!n)
		goto out;   /* no open bugs: no digest */
	st->lists++;
	st->entries += n;
	already = digest_find(sc->db, list, period) != 0;
	if (!(text = digest_text(list, period, e, n, now))) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	snprintf(subject, sizeof(subject), "Open bugs of %s: digest %s", list, period);
	if ((s = reg_report_compose_mail(sc->cfg, lists, subject, local, text, now, &m, err)))
		goto out;
	if (!already && !dry_run) {
		if ((s = digest_queue(sc, list, period, e, n, &m, &queued, err)))
			goto out;
		already = !queued;
		if (queued) {
			log_event(LOG_LEVEL_INFO, "digest.queued", LF_STR("list", list),
				  LF_STR("period", period), LF_UINT("entries", n),
				  LF_STR("message_id", m.message_id));
			test_hook("digest.queued");
		}
	}
	st->queued += queued;
	st->already += already;
	if (seen)
		seen(ctx, list, period, m.message_id, e, n, text, already);
out:
	mail_message_release(&m);
	free(e);
	free(local);
	free(text);
	return s;
}

enum bb_status digest_run(struct sync_context *sc, const char *period, const char *list,
			  int dry_run, digest_seen_fn *seen, void *ctx, struct digest_stats *st,
			  struct bb_error *err)
{
	struct bug_row *rows = NULL;
	GPtrArray *lists;
	char key[32];
	size_t n = 0;
	time_t slot;
	enum bb_status s;

	memset(st, 0, sizeof(*st));
	if (!period) {
		if (!digest_period(sc->cfg->digest_schedule, (unsigned)sc->cfg->digest_day,
				   digest_hour(sc->cfg), bb_now(), key, sizeof(key), &slot))
			bb_day_text(bb_now(), key, sizeof(key));
		period = key;
	}
	if ((s = load_bugs(sc, &rows, &n, st, err)))
		return s;
	/* the lists, in the order their first bug comes */
	lists = g_ptr_array_new();
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; rows[i].lists && rows[i].lists[j]; j++) {
			int dup = 0;

			for (size_t k = 0; k < lists->len && !dup; k++)
				dup = !strcmp(lists->pdata[k], rows[i].lists[j]);
			if (!dup && (!list || !g_ascii_strcasecmp(list, rows[i].lists[j])))
				g_ptr_array_add(lists, rows[i].lists[j]);
		}
	for (size_t k = 0; k < lists->len && !s; k++)
		s = one_list(sc, lists->pdata[k], period, rows, n, dry_run, seen, ctx, st, err);
	g_ptr_array_free(lists, TRUE);
	for (size_t i = 0; i < n; i++)
		bug_row_release(&rows[i]);
	free(rows);
	return s;
}

enum bb_status digest_round(struct sync_context *sc, struct digest_stats *st,
			    struct bb_error *err)
{
	const char *schedule = sc->cfg->digest_schedule ? sc->cfg->digest_schedule : "off";
	char key[32], *value = NULL, want[64];
	time_t now = bb_now(), slot = 0, since = 0;
	int on;
	enum bb_status s;

	memset(st, 0, sizeof(*st));
	if (sc->dry_run)
		return BB_OK;
	on = digest_period(schedule, (unsigned)sc->cfg->digest_day, digest_hour(sc->cfg),
			   now, key, sizeof(key), &slot);
	if (strcmp(schedule, "off") && !on) {
		log_event(LOG_LEVEL_WARN, "digest.schedule_invalid", LF_STR("schedule", schedule),
			  LF_UINT("day", sc->cfg->digest_day), LF_UINT("hour", digest_hour(sc->cfg)));
		return BB_OK;
	}
	if ((s = store_cursor_get(sc->db, SCHEDULE_CURSOR, &value, NULL, err)))
		return s;
	/* "<schedule> <since>": when it was turned on */
	if (value) {
		char *sp = strchr(value, ' ');

		if (sp && (size_t)(sp - value) == strlen(schedule) && !strncmp(value, schedule, sp - value))
			since = (time_t)strtoll(sp + 1, NULL, 10);
	}
	free(value);
	if (!since) {
		snprintf(want, sizeof(want), "%s %lld", schedule, (long long)now);
		if ((s = store_begin(sc->db, err)))
			return s;
		s = store_cursor_set(sc->db, SCHEDULE_CURSOR, want, err);
		s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
		if (!s && on)
			log_event(LOG_LEVEL_INFO, "digest.schedule_on", LF_STR("schedule", schedule),
				  LF_INT("first", (long long)period_after(schedule, now)));
		return s;
	}
	if (!on || slot < period_after(schedule, since))
		return BB_OK;
	return digest_run(sc, key, NULL, 0, NULL, NULL, st, err);
}

long long digest_of_message(struct store *db, const char *message_id)
{
	sqlite3_stmt *q = NULL;
	long long id = 0;

	if (!message_id || strncmp(message_id, "digest-", 7) ||
	    store_prepare(db, &q, "SELECT id FROM digest WHERE message_id = ?", NULL))
		return 0;
	sqlite3_bind_text(q, 1, message_id, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW)
		id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return id;
}

long long digest_entry_bug(struct store *db, long long digest, long long n)
{
	sqlite3_stmt *q = NULL;
	long long bug = 0;

	if (store_prepare(db, &q, "SELECT bug_id FROM digest_entry WHERE digest = ? AND n = ?",
			  NULL))
		return 0;
	sqlite3_bind_int64(q, 1, digest);
	sqlite3_bind_int64(q, 2, n);
	if (sqlite3_step(q) == SQLITE_ROW)
		bug = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return bug;
}

/* ------------------------------------------------- no-reminders */

int digest_bug_muted(struct store *db, long long bug_id)
{
	sqlite3_stmt *q = NULL;
	int muted = 0;

	if (store_prepare(db, &q, "SELECT 1 FROM bug_mute WHERE bug_id = ?", NULL))
		return 0;
	sqlite3_bind_int64(q, 1, bug_id);
	muted = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return muted;
}

char *digest_mute_change(const char *addr)
{
	json_object *o = json_object_new_object();
	char *change;

	if (!o)
		return NULL;
	json_object_object_add(o, "no_reminders", json_object_new_string(addr ? addr : ""));
	change = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return change;
}

enum bb_status digest_mute_command(struct sync_context *sc, long long row, int seq,
				   long long bug_id, const char *change,
				   struct inbound_stats *stats, struct bb_error *err)
{
	json_object *o = json_tokener_parse(change), *v = NULL;
	const char *by = o && json_object_object_get_ex(o, "no_reminders", &v)
			 ? json_object_get_string(v) : "";
	sqlite3_stmt *q = NULL;
	int added = 0;
	enum bb_status s;

	if ((s = store_begin(sc->db, err)))
		goto out;
	if (!(s = store_prepare(sc->db, &q, "INSERT OR IGNORE INTO bug_mute (bug_id, by_addr, mail,"
				      " at) VALUES (?, ?, ?, ?)", err))) {
		sqlite3_bind_int64(q, 1, bug_id);
		sqlite3_bind_text(q, 2, by ? by : "", -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(q, 3, row);
		sqlite3_bind_int64(q, 4, (sqlite3_int64)bb_now());
		if (sqlite3_step(q) != SQLITE_DONE)
			s = store_fail(sc->db, err, "recording a muted bug");
		added = sqlite3_changes(sc->db->db) > 0;
		sqlite3_finalize(q);
	}
	if (!s)
		s = inbound_command_end(sc, row, seq, 1, "done",
					added ? "no more needinfo reminders, aging questions or digest"
						" entries for this bug"
					      : "already: this bug was muted", err);
	s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	if (!s) {
		stats->commands_done++;
		log_event(LOG_LEVEL_INFO, "digest.muted", LF_INT("bug", bug_id), LF_STR("by", by));
	}
out:
	json_object_put(o);
	return s;
}
