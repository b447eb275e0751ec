/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The front door's bug list and bug pages (bugpages.h).
 *
 * Choices made here:
 *  - A mirrored bug's comments are not stored as text (bz_comment keeps
 *    who, when and the mail made of it): the page shows the mails the
 *    bridge made of them, from the outbox, decoded by the mail layer
 *    (inmail_decode()) and cut at the footer's "-- " line.  A mail is
 *    shown only if every comment it carried was public when the bridge
 *    read it, and the bug is mirrored and not restricted
 *    (sync_bug_eligibility()).  A comment the bridge posted from a list
 *    mail is shown as it posted it (in_mail.comment), under the name
 *    part of the sender's address.
 *  - The thread's root is the Message-ID the description's mail had
 *    (bz_comment.message_id), else the one the bridge gives a bug's
 *    report (mail_message_id()); its link is the archive's
 *    (archive_mail_link()), as the bug's URL is for a thread filed by
 *    mail.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <glib.h>
#include <libxml/xmlwriter.h>

#include "bridge/needinfo.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "core/clock.h"
#include "core/text.h"
#include "mail/archive.h"
#include "mail/inmail.h"
#include "mail/mail.h"
#include "tracker/backlog.h"
#include "tracker/report.h"
#include "tracker/tracker.h"
#include "web/bugpages.h"
#include "web/frontdoor.h"
#include "web/http_text.h"
#include "web/triage_page.h"

#define BP_LIST_MAX 200
#define BP_FEED_MAX 100

/* A query value of the list page, decoded (http_query_value()); g_free() it. */
static char *bp_query_value(struct MHD_Connection *conn, const char *key)
{
	return http_query_value(MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, key), 500);
}

/* Appends a query value percent-encoded (then safe in an attribute). */
static void bp_add_uri_value(struct buf *out, const char *text)
{
	char *e = g_uri_escape_string(text ? text : "", NULL, FALSE);

	frontdoor_escape(out, e);
	g_free(e);
}

static GPtrArray *bp_lists(const struct bugpages_env *env);
static int bp_list_name_ok(const char *name, size_t len);

static gint bp_compare_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void bp_day(char *out, size_t size, time_t when)
{
	*out = '\0';
	if (when > 0)
		bb_day_text(when, out, size);
}

void bugpages_age(char *out, size_t size, long long seconds)
{
	long long days = seconds > 0 ? seconds / 86400 : 0;
	long long n;
	const char *unit;

	if (days == 0) {
		snprintf(out, size, "today");
		return;
	}
	if (days < 14)
		n = days, unit = "day";
	else if (days < 61)
		n = days / 7, unit = "week";
	else if (days < 730)
		n = days / 30, unit = "month";
	else
		n = days / 365, unit = "year";
	snprintf(out, size, "%lld %s%s", n, unit, n == 1 ? "" : "s");
}

void bugpages_needinfo(struct store *db, long long bug, char *out, size_t size)
{
	needinfo_state_text(db, bug, out, size);   /* bridge/needinfo.h */
}

/* ------------------------------------------------------------ /bugs */

static const char bp_list_sql[] =
	"SELECT id, summary, product, component, status, resolution, regression, src, created FROM ("
	"  SELECT b.id, b.summary, b.product, b.component, b.status, b.resolution,"
	"    (EXISTS (SELECT 1 FROM json_each(b.keywords) WHERE lower(value) = lower(?5))"
	"     OR coalesce(json_extract(b.fields, '$.' || ?6) = 'Yes', 0)"
	"     OR EXISTS (SELECT 1 FROM reg_regression r WHERE r.bug_id = b.id)) AS regression,"
	"    b.last_change_time AS changed, 'imported' AS src, b.creation_time AS created"
	"  FROM imp_bug b WHERE " BZ_IMP_BUG_PUBLIC_SQL_AS("b.")
	"  UNION ALL"
	"  SELECT m.id, m.summary, m.product, m.component, m.status, m.resolution,"
	"    EXISTS (SELECT 1 FROM reg_regression r WHERE r.bug_id = m.id),"
	"    m.last_change_time, 'mirrored', m.creation_time"
	"  FROM bz_bug m WHERE " BZ_BUG_PUBLIC_SQL_AS("m.") " AND m.id NOT IN (SELECT id FROM imp_bug)"
	") WHERE (?1 = '' OR status = ?1 COLLATE NOCASE)"
	"  AND (?2 = '' OR component = ?2 COLLATE NOCASE)"
	"  AND (?3 = 0 OR (?3 = 1 AND regression) OR (?3 = 2 AND NOT regression))"
	"  AND (?4 = '' OR summary LIKE ?4 ESCAPE '\\' OR id IN (SELECT bug_id FROM imp_comment"
	"       WHERE is_private = 0 AND text LIKE ?4 ESCAPE '\\'))"
	" ORDER BY changed DESC, id DESC LIMIT ?7";

/* A <select> of the distinct values of a column (imported and mirrored,
 * public bugs only). */
static void bp_select(const struct bugpages_env *env, struct buf *b, const char *column,
		      const char *label, const char *current)
{
	sqlite3_stmt *q = NULL;
	char *sql = str_printf("SELECT DISTINCT %s FROM (SELECT %s FROM imp_bug WHERE "
			       BZ_IMP_BUG_PUBLIC_SQL_AS("imp_bug.") " UNION SELECT %s FROM bz_bug WHERE "
			       BZ_BUG_PUBLIC_SQL ") WHERE %s <> '' ORDER BY 1 LIMIT 500",
			       column, column, column, column);

	buf_addf(b, "<label for=\"%s\">%s</label><select id=\"%s\" name=\"%s\">"
		    "<option value=\"\">any</option>", column, label, column, column);
	if (sql && store_prepare(env->db, &q, sql, NULL) == BB_OK) {
		while (sqlite3_step(q) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(q, 0);

			buf_addstr(b, "<option value=\"");
			frontdoor_escape(b, v);
			buf_addstr(b, !strcmp(v, current) ? "\" selected>" : "\">");
			frontdoor_escape(b, v);
			buf_addstr(b, "</option>");
		}
		sqlite3_finalize(q);
	}
	free(sql);
	buf_addstr(b, "</select>\n");
}

enum MHD_Result bugpages_list(const struct bugpages_env *env, struct MHD_Connection *conn,
			      unsigned *logged)
{
	char *status = bp_query_value(conn, "status");
	char *component = bp_query_value(conn, "component");
	char *regression = bp_query_value(conn, "regression");
	char *text = bp_query_value(conn, "q");
	struct buf b = BUF_INIT, like = BUF_INIT;
	sqlite3_stmt *q = NULL;
	int reg = !strcasecmp(regression, "yes") ? 1 : !strcasecmp(regression, "no") ? 2 : 0;
	unsigned long rows = 0;
	time_t now = bb_now();
	enum MHD_Result ret;

	if (*text) {
		buf_addch(&like, '%');
		for (const char *p = text; *p; p++) {
			if (*p == '%' || *p == '_' || *p == '\\')
				buf_addch(&like, '\\');
			buf_addch(&like, *p);
		}
		buf_addch(&like, '%');
	}
	fd_page_start(&b, "Bugs");
	pthread_mutex_lock(env->db_lock);
	{
		struct backlog bl;

		/* whether the backlog grows, at a glance */
		if (backlog_count(env->db, now, &bl, NULL) == BB_OK)
			backlog_svg(&bl, &b);
	}
	buf_addstr(&b, "<form method=\"get\" action=\"/bugs\" id=\"filter\">\n");
	bp_select(env, &b, "status", "Status", status);
	bp_select(env, &b, "component", "Component", component);
	buf_addf(&b, "<label for=\"regression\">Regression</label><select id=\"regression\" "
		     "name=\"regression\"><option value=\"\">any</option><option value=\"yes\"%s>"
		     "yes</option><option value=\"no\"%s>no</option></select>\n"
		     "<label for=\"q\">Text</label><input type=\"text\" id=\"q\" name=\"q\" "
		     "value=\"", reg == 1 ? " selected" : "", reg == 2 ? " selected" : "");
	frontdoor_escape(&b, text);
	buf_addstr(&b, "\">\n<p><button type=\"submit\">Show</button></p>\n</form>\n");
	buf_addstr(&b, "<table id=\"bugs\"><thead><tr><th>Bug</th><th>Summary</th><th>Product"
		       "</th><th>Component</th><th>Status</th><th>Regression</th><th>Age</th>"
		       "<th>Needinfo</th></tr></thead><tbody>\n");
	if (store_prepare(env->db, &q, bp_list_sql, NULL) == BB_OK) {
		sqlite3_bind_text(q, 1, status, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, component, -1, SQLITE_STATIC);
		sqlite3_bind_int(q, 3, reg);
		sqlite3_bind_text(q, 4, like.data, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 5, env->cfg->tracker_regression_keyword
					? env->cfg->tracker_regression_keyword : "regression", -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(q, 6, env->cfg->tracker_regression_field
					? env->cfg->tracker_regression_field : "cf_regression", -1,
				  SQLITE_STATIC);
		sqlite3_bind_int(q, 7, BP_LIST_MAX);
		while (sqlite3_step(q) == SQLITE_ROW) {
			long long id = sqlite3_column_int64(q, 0);
			time_t created = (time_t)sqlite3_column_int64(q, 8);
			char age[32], day[16], needinfo[64];

			rows++;
			buf_addf(&b, "<tr class=\"bug\"><td><a href=\"/bug/%lld\">%lld</a></td><td>",
				 id, id);
			frontdoor_escape(&b, (const char *)sqlite3_column_text(q, 1));
			buf_addstr(&b, "</td><td>");
			frontdoor_escape(&b, (const char *)sqlite3_column_text(q, 2));
			buf_addstr(&b, "</td><td>");
			frontdoor_escape(&b, (const char *)sqlite3_column_text(q, 3));
			buf_addstr(&b, "</td><td>");
			frontdoor_escape(&b, (const char *)sqlite3_column_text(q, 4));
			buf_addstr(&b, " ");
			frontdoor_escape(&b, (const char *)sqlite3_column_text(q, 5));
			bugpages_age(age, sizeof(age), (long long)(now - created));
			bp_day(day, sizeof(day), created);
			bugpages_needinfo(env->db, id, needinfo, sizeof(needinfo));
			buf_addf(&b, "</td><td>%s</td><td class=\"age\"><time datetime=\"%s\">%s"
				     "</time></td><td class=\"needinfo\">%s</td></tr>\n",
				 sqlite3_column_int(q, 6) ? "yes" : "", day, age, needinfo);
		}
		sqlite3_finalize(q);
	}
	pthread_mutex_unlock(env->db_lock);
	buf_addf(&b, "</tbody></table>\n<p id=\"count\">%lu bug%s%s.</p>\n", rows,
		 rows == 1 ? "" : "s", rows == BP_LIST_MAX ? " (the most recent; narrow the search)"
							  : "");
	pthread_mutex_lock(env->db_lock);
	{
		GPtrArray *lists = bp_lists(env);

		if (lists->len) {
			buf_addstr(&b, "<p id=\"feeds\">Atom feeds:");
			for (guint i = 0; i < lists->len; i++) {
				const char *l = g_ptr_array_index(lists, i);

				buf_addstr(&b, i ? ", <a href=\"/bugs/" : " <a href=\"/bugs/");
				frontdoor_escape(&b, l);
				buf_addstr(&b, ".atom\">");
				frontdoor_escape(&b, l);
				buf_addstr(&b, "</a>");
			}
			buf_addstr(&b, "</p>\n");
		}
		g_ptr_array_unref(lists);
	}
	pthread_mutex_unlock(env->db_lock);
	if (rows == 0) {
		buf_addstr(&b, "<p>Nothing matches; <a href=\"/bugs?q=");
		bp_add_uri_value(&b, text);
		buf_addstr(&b, "\">search all statuses</a>.</p>\n");
	}
	fd_page_end(&b);
	ret = fd_queue(conn, MHD_HTTP_OK, logged, "text/html; charset=utf-8", &b, NULL, NULL);
	buf_release(&like);
	g_free(status);
	g_free(component);
	g_free(regression);
	g_free(text);
	return ret;
}

/* ------------------------------------------------------------ /bug/<id> */

/* One attachment link: name, size, type, sha256 and its blob URL. */
static void bp_attachment_item(const struct bugpages_env *env, struct buf *b, const char *hash,
			       const char *file, const char *summary, long long size)
{
	char *url = blob_url(env->blobs, hash, file);

	buf_addstr(b, "<li class=\"attachment\"><a href=\"");
	frontdoor_escape(b, url ? url : "");
	buf_addstr(b, "\">");
	frontdoor_escape(b, file);
	buf_addstr(b, "</a>");
	if (summary && *summary && strcmp(summary, file)) {
		buf_addstr(b, " — ");
		frontdoor_escape(b, summary);
	}
	{
		/* as people read sizes: "2.9 KiB", "2.0 GiB" */
		gchar *human = g_format_size_full(size > 0 ? (guint64)size : 0,
						  G_FORMAT_SIZE_IEC_UNITS);

		buf_addf(b, " (%s) <code class=\"sha256\">sha256:", human);
		g_free(human);
	}
	frontdoor_escape(b, hash);
	buf_addstr(b, "</code></li>\n");
	free(url);
}

/* One comment's block; who is a name, never an address. */
static void bp_comment(struct buf *b, int count, const char *who, time_t when, const char *text)
{
	char stamp[32] = "";
	struct tm tm;
	char *local = NULL;

	if (strchr(who, '@')) {
		/* no addresses on the page: the name part of the login */
		local = strndup(who, strcspn(who, "@"));
		who = local ? local : "";
	}
	if (gmtime_r(&when, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M UTC", &tm);
	buf_addf(b, "<div class=\"comment\" id=\"c%d\"><h3>%s #%d ", count,
		 count ? "Comment" : "Description", count);
	frontdoor_escape(b, who);
	buf_addf(b, " %s</h3><pre>", stamp);
	frontdoor_escape(b, text);
	buf_addstr(b, "</pre></div>\n");
	free(local);
}

/* The thread's root Message-ID of bug (malloc'd). */
static char *bp_thread_root(const struct bb_config *cfg, struct store *db, long long id)
{
	sqlite3_stmt *q = NULL;
	char *mid = NULL;

	if (store_prepare(db, &q, "SELECT message_id FROM bz_comment WHERE bug_id = ?1 AND "
			  "count = 0 AND message_id IS NOT NULL", NULL) == BB_OK) {
		sqlite3_bind_int64(q, 1, id);
		if (sqlite3_step(q) == SQLITE_ROW)
			mid = strdup((const char *)sqlite3_column_text(q, 0));
		sqlite3_finalize(q);
	}
	return mid ? mid : mail_message_id(cfg->mail_domain, id, 0);
}

char *bugpages_thread_link(const struct bb_config *cfg, struct store *db, long long id,
			   char **root)
{
	const char *inbox = cfg->archive_link_url ? cfg->archive_link_url : cfg->archive_url;
	char *mid = bp_thread_root(cfg, db, id);
	char *link = mid && inbox && *inbox ? archive_mail_link(inbox, mid) : NULL;

	if (root)
		*root = mid;
	else
		free(mid);
	return link;
}

static void bp_thread_row(const struct bugpages_env *env, struct buf *b, long long id)
{
	char *mid = NULL;
	char *link = bugpages_thread_link(env->cfg, env->db, id, &mid);

	buf_addstr(b, "<tr><th>Thread</th><td>");
	if (link) {
		buf_addstr(b, "<a id=\"thread\" href=\"");
		frontdoor_escape(b, link);
		buf_addstr(b, "\">");
		frontdoor_escape(b, link);
		buf_addstr(b, "</a>");
	} else {
		buf_addstr(b, "<code>");
		frontdoor_escape(b, mid ? mid : "");
		buf_addstr(b, "</code>");
	}
	buf_addstr(b, "</td></tr>\n");
	free(link);
	free(mid);
}

/* A mirrored bug's public comments: as the bridge mailed them, and those
 * it posted from list mail as it posted them (in_mail.comment); how many. */
static unsigned bp_mailed_comments(const struct bugpages_env *env, struct buf *b, long long id)
{
	sqlite3_stmt *q = NULL;
	unsigned n = 0;

	if (store_prepare(env->db, &q,
			  "SELECT min(c.count), min(c.author), min(c.time), o.message, NULL"
			  " FROM bz_comment c"
			  " JOIN outbox o ON o.message_id = c.message_id AND o.bug_id = c.bug_id"
			  " WHERE c.bug_id = ?1 GROUP BY o.id HAVING max(c.is_private) = 0"
			  " UNION ALL"
			  " SELECT c.count, i.from_addr, c.time, NULL, i.comment FROM bz_comment c"
			  " JOIN in_mail i ON i.message_id = c.message_id AND i.bug_id = c.bug_id"
			  " WHERE c.bug_id = ?1 AND c.is_private = 0 AND i.comment IS NOT NULL"
			  " AND c.message_id NOT IN (SELECT message_id FROM outbox)"
			  " ORDER BY 1", NULL) != BB_OK)
		return 0;
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct inmail_body body = { 0 };
		struct bb_error err = { 0 };
		const char *raw = sqlite3_column_blob(q, 3);
		size_t len = (size_t)sqlite3_column_bytes(q, 3);
		char *footer;

		if (!raw) {
			/* a comment posted from a list mail */
			if (sqlite3_column_type(q, 4) == SQLITE_TEXT) {
				bp_comment(b, sqlite3_column_int(q, 0),
					   (const char *)sqlite3_column_text(q, 1),
					   (time_t)sqlite3_column_int64(q, 2),
					   (const char *)sqlite3_column_text(q, 4));
				n++;
			}
			continue;
		}
		if (inmail_decode(raw, len, &body, &err) != BB_OK)
			continue;
		/* the footer is the bridge's, not the comment's */
		if (!strncmp(body.text, "-- \n", 4))
			body.text[0] = '\0';
		else if ((footer = strstr(body.text, "\n-- \n")))
			footer[1] = '\0';
		bp_comment(b, sqlite3_column_int(q, 0), (const char *)sqlite3_column_text(q, 1),
			   (time_t)sqlite3_column_int64(q, 2), body.text);
		inmail_body_release(&body);
		n++;
	}
	sqlite3_finalize(q);
	return n;
}

enum MHD_Result bugpages_bug(const struct bugpages_env *env, struct MHD_Connection *conn,
			     const char *id_text, unsigned *logged)
{
	struct buf b = BUF_INIT;
	sqlite3_stmt *q = NULL;
	long long id;
	char *end, *title = NULL;
	int found = 0, imported = 0;
	enum MHD_Result ret;

	id = strtoll(id_text, &end, 10);
	if (!*id_text || *end || id <= 0 || strspn(id_text, "0123456789") != strlen(id_text))
		return fd_message_page(conn, MHD_HTTP_NOT_FOUND, logged, "No such bug",
				       "There is no such bug here.", NULL, NULL);
	pthread_mutex_lock(env->db_lock);
	/* a mirrored bug is shown when the bridge's one rule says so */
	if (store_prepare(env->db, &q, "SELECT summary, product, component, status, resolution, "
			  "version, reporter_name, creation_time, 1 FROM imp_bug WHERE id = ?1 AND "
			  BZ_IMP_BUG_PUBLIC_SQL_AS("imp_bug.") " UNION ALL SELECT summary, product, "
			  "component, status, resolution, '', '', creation_time, 0 FROM bz_bug "
			  "WHERE id = ?1 AND ?2 AND id NOT IN (SELECT id FROM imp_bug) "
			  "LIMIT 1", NULL) == BB_OK) {
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int(q, 2, sync_bug_eligibility(env->db, NULL, NULL, id, 0, NULL) ==
					       SYNC_ELIGIBLE);
		if (sqlite3_step(q) == SQLITE_ROW) {
			found = 1;
			imported = sqlite3_column_int(q, 8);
			title = str_printf("Bug %lld — %s", id,
					   (const char *)sqlite3_column_text(q, 0));
			fd_page_start(&b, title ? title : "Bug");
			buf_addstr(&b, "<table id=\"fields\">\n<tr><th>Product</th><td>");
			frontdoor_escape(&b, (const char *)sqlite3_column_text(q, 1));
			buf_addstr(&b, "</td></tr>\n<tr><th>Component</th><td>");
			frontdoor_escape(&b, (const char *)sqlite3_column_text(q, 2));
			buf_addstr(&b, "</td></tr>\n<tr><th>Status</th><td>");
			frontdoor_escape(&b, (const char *)sqlite3_column_text(q, 3));
			buf_addstr(&b, " ");
			frontdoor_escape(&b, (const char *)sqlite3_column_text(q, 4));
			if (*(const char *)sqlite3_column_text(q, 5)) {
				buf_addstr(&b, "</td></tr>\n<tr><th>Version</th><td>");
				frontdoor_escape(&b, (const char *)sqlite3_column_text(q, 5));
			}
			if (*(const char *)sqlite3_column_text(q, 6)) {
				buf_addstr(&b, "</td></tr>\n<tr><th>Reporter</th><td>");
				frontdoor_escape(&b, (const char *)sqlite3_column_text(q, 6));
			}
			buf_addstr(&b, "</td></tr>\n");
			if (env->cfg->bz_url) {
				buf_addstr(&b, "<tr><th>Bugzilla</th><td><a href=\"");
				frontdoor_escape(&b, env->cfg->bz_url);
				buf_addf(&b, "/show_bug.cgi?id=%lld\">", id);
				frontdoor_escape(&b, env->cfg->bz_url);
				buf_addf(&b, "/show_bug.cgi?id=%lld</a></td></tr>\n", id);
			}
			{
				char needinfo[64];

				bugpages_needinfo(env->db, id, needinfo, sizeof(needinfo));
				if (*needinfo)
					buf_addf(&b, "<tr><th>Needinfo</th><td>%s</td></tr>\n",
						 needinfo);
			}
			bp_thread_row(env, &b, id);
			buf_addstr(&b, "</table>\n");
		}
		sqlite3_finalize(q);
		q = NULL;
	}
	if (found) {
		char *triage = reg_triage_block(env->db, id);

		/* attachments: stored, public */
		buf_addstr(&b, "<h2>Attachments</h2>\n<ul id=\"attachments\">\n");
		if (store_prepare(env->db, &q, imported
				  ? "SELECT blob_hash, file_name, summary, size FROM imp_attachment "
				    "WHERE bug_id = ?1 AND is_private = 0 AND blob_hash IS NOT NULL "
				    "ORDER BY id"
				  : "SELECT blob_hash, file_name, '', size FROM bz_attachment WHERE "
				    "bug_id = ?1 AND is_private = 0 AND blob_hash IS NOT NULL ORDER BY id",
				  NULL) == BB_OK) {
			sqlite3_bind_int64(q, 1, id);
			while (sqlite3_step(q) == SQLITE_ROW)
				bp_attachment_item(env, &b, (const char *)sqlite3_column_text(q, 0),
						   (const char *)sqlite3_column_text(q, 1),
						   (const char *)sqlite3_column_text(q, 2),
						   sqlite3_column_int64(q, 3));
			sqlite3_finalize(q);
			q = NULL;
		}
		buf_addstr(&b, "</ul>\n");
		if (triage && *triage) {
			buf_addstr(&b, "<h2>Triage</h2>\n<pre id=\"triage\">");
			frontdoor_escape(&b, triage);
			buf_addstr(&b, "</pre>\n");
		}
		free(triage);
		buf_addstr(&b, "<h2>Comments</h2>\n");
		if (imported &&
		    store_prepare(env->db, &q, "SELECT count, CASE WHEN author_name <> '' THEN "
				  "author_name ELSE author END, time, text FROM imp_comment WHERE "
				  "bug_id = ?1 AND is_private = 0 ORDER BY count", NULL) == BB_OK) {
			sqlite3_bind_int64(q, 1, id);
			while (sqlite3_step(q) == SQLITE_ROW)
				bp_comment(&b, sqlite3_column_int(q, 0),
					   (const char *)sqlite3_column_text(q, 1),
					   (time_t)sqlite3_column_int64(q, 2),
					   (const char *)sqlite3_column_text(q, 3));
			sqlite3_finalize(q);
			q = NULL;
		} else if (!imported && bp_mailed_comments(env, &b, id) == 0) {
			buf_addstr(&b, "<p>No comment of this bug was mailed yet; its thread is "
				       "in the list archive.</p>\n");
		}
		fd_page_end(&b);
	}
	pthread_mutex_unlock(env->db_lock);
	if (found)
		ret = fd_queue(conn, MHD_HTTP_OK, logged, "text/html; charset=utf-8", &b, NULL,
			       NULL);
	else
		ret = fd_message_page(conn, MHD_HTTP_NOT_FOUND, logged, "No such bug",
				      "There is no such bug here.", NULL, NULL);
	buf_release(&b);
	free(title);
	return ret;
}

/* ------------------------------------------------------------ /bugs/<list>.atom */

/* SQL: whether the lists part of bz_bug.recipients ("a@x, b@y; Cc: ...")
 * names ?1 (case-insensitively). */
#define BP_ON_LIST_SQL                                                                   \
	"instr(', ' || lower(CASE WHEN instr(recipients, '; Cc: ') > 0 THEN "             \
	"substr(recipients, 1, instr(recipients, '; Cc: ') - 1) ELSE recipients END) || ',', " \
	"', ' || lower(?1) || ',') > 0"

/* The lists the public mirrored bugs went to, sorted, each once (g_free
 * the array: g_ptr_array_unref()). */
static GPtrArray *bp_lists(const struct bugpages_env *env)
{
	GPtrArray *lists = g_ptr_array_new_with_free_func(g_free);
	sqlite3_stmt *q = NULL;

	if (store_prepare(env->db, &q, "SELECT DISTINCT recipients FROM bz_bug WHERE "
			  BZ_BUG_PUBLIC_SQL " AND recipients <> ''", NULL) != BB_OK)
		return lists;
	while (sqlite3_step(q) == SQLITE_ROW) {
		char *r = g_strdup((const char *)sqlite3_column_text(q, 0));
		char *cc = strstr(r, "; Cc: ");
		gchar **names;

		if (cc)
			*cc = '\0';
		names = g_strsplit(r, ",", -1);
		for (size_t i = 0; names[i]; i++) {
			char *name = g_ascii_strdown(g_strstrip(names[i]), -1);
			int seen = !bp_list_name_ok(name, strlen(name));

			for (guint j = 0; j < lists->len && !seen; j++)
				seen = !strcmp(g_ptr_array_index(lists, j), name);
			if (seen)
				g_free(name);
			else
				g_ptr_array_add(lists, name);
		}
		g_strfreev(names);
		g_free(r);
	}
	sqlite3_finalize(q);
	g_ptr_array_sort(lists, bp_compare_names);
	return lists;
}

/* Whether name can be a list's address (what a feed's path may name). */
static int bp_list_name_ok(const char *name, size_t len)
{
	const char *at = memchr(name, '@', len);

	if (!len || len > 254 || !at || at == name || at == name + len - 1)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!g_ascii_isalnum(name[i]) && !strchr("._+-@", name[i]))
			return 0;
	return memchr(at + 1, '@', len - (size_t)(at + 1 - name)) == NULL;
}

/* One bug's entry in a list's feed; < 0 on failure. */
static int bp_feed_entry(const struct bugpages_env *env, xmlTextWriterPtr w, sqlite3_stmt *q,
			 time_t now)
{
	long long id = sqlite3_column_int64(q, 0);
	time_t created = (time_t)sqlite3_column_int64(q, 6);
	time_t changed = (time_t)sqlite3_column_int64(q, 7);
	char *page = str_printf("%s/bug/%lld", env->base_url, id);
	char *title = str_printf("[Bug %lld] %s", id, (const char *)sqlite3_column_text(q, 1));
	char *thread = bugpages_thread_link(env->cfg, env->db, id, NULL);
	char age[32], needinfo[64], iso[32];
	struct buf summary = BUF_INIT;
	struct tm tm;
	int rc;

	bugpages_age(age, sizeof(age), (long long)(now - created));
	bugpages_needinfo(env->db, id, needinfo, sizeof(needinfo));
	buf_addf(&summary, "%s%s%s, %s/%s, filed %s%s; %s%s",
		 (const char *)sqlite3_column_text(q, 4),
		 *(const char *)sqlite3_column_text(q, 5) ? " " : "",
		 (const char *)sqlite3_column_text(q, 5), (const char *)sqlite3_column_text(q, 2),
		 (const char *)sqlite3_column_text(q, 3), age, strcmp(age, "today") ? " ago" : "",
		 *needinfo ? "needinfo: " : "no question waits", needinfo);
	*iso = '\0';
	if (gmtime_r(&changed, &tm))
		strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rc = page && title && summary.data ? xmlTextWriterStartElement(w, BAD_CAST "entry") : -1;
	if (rc >= 0)
		rc = reg_atom_element(w, "id", page);
	if (rc >= 0)
		rc = reg_atom_element(w, "title", title);
	if (rc >= 0)
		rc = reg_atom_element(w, "updated", iso);
	if (rc >= 0)
		rc = reg_atom_link(w, "alternate", "text/html", page);
	if (rc >= 0 && thread)
		rc = reg_atom_link(w, "related", NULL, thread);
	if (rc >= 0)
		rc = reg_atom_element(w, "summary", summary.data);
	if (rc >= 0)
		rc = xmlTextWriterEndElement(w);
	buf_release(&summary);
	free(thread);
	free(title);
	free(page);
	return rc;
}

static enum MHD_Result bp_feed(const struct bugpages_env *env, struct MHD_Connection *conn,
			       const char *name, unsigned *logged)
{
	size_t len = strlen(name);
	char *list = NULL, *self = NULL, *alternate = NULL, *feed_title = NULL;
	sqlite3_stmt *q = NULL;
	xmlBufferPtr xbuf = NULL;
	xmlTextWriterPtr w = NULL;
	time_t now = bb_now(), updated = 0;
	struct buf b = BUF_INIT;
	int rc = -1, known = 0;
	enum MHD_Result ret;

	if (len <= 5 || strcmp(name + len - 5, ".atom") || !bp_list_name_ok(name, len - 5))
		return fd_message_page(conn, MHD_HTTP_NOT_FOUND, logged, "No such feed",
				       "There is no such feed here.", NULL, NULL);
	list = g_ascii_strdown(name, (gssize)(len - 5));
	self = str_printf("%s/bugs/%s.atom", env->base_url, list);
	alternate = str_printf("%s/bugs", env->base_url);
	feed_title = str_printf("Bugs on %s", list);
	pthread_mutex_lock(env->db_lock);
	if (store_prepare(env->db, &q, "SELECT max(last_change_time), count(*) FROM bz_bug WHERE "
			  BZ_BUG_PUBLIC_SQL " AND " BP_ON_LIST_SQL, NULL) == BB_OK) {
		sqlite3_bind_text(q, 1, list, -1, SQLITE_STATIC);
		if (sqlite3_step(q) == SQLITE_ROW) {
			updated = (time_t)sqlite3_column_int64(q, 0);
			known = sqlite3_column_int(q, 1) > 0;
		}
		sqlite3_finalize(q);
		q = NULL;
	}
	if (known && self && alternate && feed_title && (xbuf = xmlBufferCreate()) &&
	    (w = xmlNewTextWriterMemory(xbuf, 0)) &&
	    store_prepare(env->db, &q, "SELECT id, summary, product, component, status, resolution,"
			  " creation_time, last_change_time FROM bz_bug WHERE " BZ_BUG_PUBLIC_SQL
			  " AND " BP_ON_LIST_SQL " ORDER BY last_change_time DESC, id DESC LIMIT ?2",
			  NULL) == BB_OK) {
		sqlite3_bind_text(q, 1, list, -1, SQLITE_STATIC);
		sqlite3_bind_int(q, 2, BP_FEED_MAX);
		rc = reg_atom_feed_start(w, self, feed_title, updated ? updated : now, alternate);
		while (rc >= 0 && sqlite3_step(q) == SQLITE_ROW)
			rc = bp_feed_entry(env, w, q, now);
		if (rc >= 0)
			rc = xmlTextWriterEndDocument(w);
		sqlite3_finalize(q);
	}
	pthread_mutex_unlock(env->db_lock);
	if (w)
		xmlFreeTextWriter(w); /* flushes into xbuf */
	if (rc >= 0)
		buf_addstr(&b, (const char *)xmlBufferContent(xbuf));
	if (xbuf)
		xmlBufferFree(xbuf);
	if (!known)
		ret = fd_message_page(conn, MHD_HTTP_NOT_FOUND, logged, "No such feed",
				      "No bug went to this list.", NULL, NULL);
	else if (rc < 0)
		ret = fd_message_page(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, logged, "Sorry",
				      "The feed could not be made right now.", NULL, NULL);
	else
		ret = fd_queue(conn, MHD_HTTP_OK, logged, "application/atom+xml; charset=utf-8", &b,
			       NULL, NULL);
	buf_release(&b);
	g_free(list);
	free(self);
	free(alternate);
	free(feed_title);
	return ret;
}

enum MHD_Result bugpages_handle(const struct bugpages_env *env, struct MHD_Connection *conn,
				const char *path, unsigned *status)
{
	if (!strcmp(path, "/bugs"))
		return bugpages_list(env, conn, status);
	if (!strncmp(path, "/bugs/", 6))
		return bp_feed(env, conn, path + 6, status);
	return bugpages_bug(env, conn, path + 5, status);
}
