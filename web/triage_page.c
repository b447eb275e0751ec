/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "Where do I report this?" (triage_page.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <glib.h>
#include <sqlite3.h>

#include "core/log.h"
#include "tracker/samecrash.h"
#include "triage/block.h"
#include "triage/reader.h"
#include "triage/signature.h"
#include "web/frontdoor.h"
#include "web/triage_page.h"

#define TP_POST_BUFFER 16384
#define TP_SECTIONS 8            /* sections shown */
#define TP_FORM_SLACK 4096       /* bytes of a body beyond its text (names, boundaries) */

struct triage_request {
	int post;
	int answered;
	unsigned fail_http;         /* 0 while all is well */
	const char *fail_text;      /* a fixed text */
	struct MHD_PostProcessor *pp;
	struct buf text;            /* the field "text", capped at triage_max_size */
	uint64_t received;
	uint64_t body_max;          /* bytes of body read before it is refused */
};

void triage_request_free(struct triage_request *req)
{
	if (!req)
		return;
	if (req->pp)
		MHD_destroy_post_processor(req->pp);
	/* the pasted text: wiped, not only freed */
	if (req->text.data)
		memset(req->text.data, 0, req->text.len);
	buf_release(&req->text);
	free(req);
}

static void tp_fail(struct triage_request *req, unsigned http, const char *text)
{
	if (!req->fail_http) {
		req->fail_http = http;
		req->fail_text = text;
	}
}

static enum MHD_Result tp_iterator(void *cls, enum MHD_ValueKind kind, const char *key,
				   const char *filename, const char *content_type,
				   const char *transfer_encoding, const char *data, uint64_t off,
				   size_t size)
{
	struct triage_request *req = cls;

	(void)kind;
	(void)filename;
	(void)content_type;
	(void)transfer_encoding;
	(void)off;
	if (req->fail_http || strcmp(key, "text") || !size)
		return MHD_YES;
	if (buf_add(&req->text, data, size))
		tp_fail(req, MHD_HTTP_CONTENT_TOO_LARGE,
			"The text is longer than this page reads.  Paste the first oops and the "
			"lines around it.");
	return MHD_YES;
}

/* Whether the POST comes from the front door's own pages (as the report
 * form's: its Origin, else its Referer). */
static int tp_origin_ok(const struct triage_page_env *env, struct MHD_Connection *conn)
{
	const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	const char *referer = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Referer");
	size_t n = strlen(env->origin);

	if (origin)
		return !strcasecmp(origin, env->origin);
	return referer && !strncasecmp(referer, env->origin, n) &&
	       (referer[n] == '\0' || referer[n] == '/');
}

/* Takes one of the client's /triage budget for the hour; 0 when allowed,
 * else the seconds to wait (and -1 when the database failed). */
static long long tp_budget(const struct triage_page_env *env)
{
	char *key = g_strconcat("triage:", env->budget_key, NULL);
	time_t now = time(NULL);
	sqlite3_stmt *q = NULL;
	long long count = 0, oldest = 0, wait = 0;
	struct bb_error err = BB_ERROR_INIT;

	pthread_mutex_lock(env->db_lock);
	if (store_begin(env->db, &err)) {
		wait = -1;
		goto out;
	}
	if (!store_prepare(env->db, &q, "SELECT count(*), coalesce(min(time), 0) FROM fd_budget"
			   " WHERE client = ?1 AND time > ?2", &err)) {
		sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 2, (sqlite3_int64)now - 3600);
		if (sqlite3_step(q) == SQLITE_ROW) {
			count = sqlite3_column_int64(q, 0);
			oldest = sqlite3_column_int64(q, 1);
		} else {
			wait = -1;
		}
		sqlite3_finalize(q);
	} else {
		wait = -1;
	}
	if (!wait && (unsigned long long)count >= env->cfg->frontdoor_triage_rate_limit) {
		wait = oldest + 3600 - (long long)now;
		if (wait < 1)
			wait = 1;
	}
	if (!wait && !store_prepare(env->db, &q, "INSERT INTO fd_budget (client, time, bytes)"
				    " VALUES (?1, ?2, 0)", &err)) {
		sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 2, (sqlite3_int64)now);
		if (sqlite3_step(q) != SQLITE_DONE)
			wait = -1;
		sqlite3_finalize(q);
	}
	if (wait || store_commit(env->db, &err)) {
		store_exec(env->db, "ROLLBACK", NULL);
		if (!wait)
			wait = -1;
	}
out:
	pthread_mutex_unlock(env->db_lock);
	if (wait < 0)
		log_event(LOG_LEVEL_ERROR, "frontdoor.triage_budget_failed",
			  LF_STR("client", env->client), LF_STR("error", err.message));
	g_free(key);
	return wait;
}

static void esc(struct buf *b, const char *text)
{
	frontdoor_escape(b, text);
}

static void tp_form(struct buf *b, const char *text)
{
	buf_addstr(b, "<p>Paste a kernel oops, a dmesg excerpt, a module name or a source path, "
		      "and this page says which subsystem's maintainers and mailing lists it "
		      "points at, as read from MAINTAINERS, and which known bugs had the same "
		      "crash.  Nothing you paste is kept or logged.</p>\n"
		      "<form method=\"post\" action=\"/triage\" enctype=\"multipart/form-data\">\n"
		      "<label for=\"text\">Oops, log, module or path</label>\n"
		      "<textarea id=\"text\" name=\"text\" rows=\"14\" required>");
	esc(b, text ? text : "");
	buf_addstr(b, "</textarea>\n<p><button id=\"submit\" type=\"submit\">Where do I report this?</button>"
		      "</p>\n</form>\n");
}

/* A line "Label: a, b" of a section's entries (mailto links for lists). */
static void tp_entries(struct buf *b, const char *label, char *const *items, int mailto)
{
	if (!items || !items[0])
		return;
	buf_addstr(b, "<dt>");
	esc(b, label);
	buf_addstr(b, "</dt><dd>");
	for (size_t i = 0; items[i]; i++) {
		if (i)
			buf_addstr(b, ", ");
		if (mailto) {
			char *uri = g_uri_escape_string(items[i], "@", FALSE);

			buf_addstr(b, "<a href=\"mailto:");
			esc(b, uri);
			buf_addstr(b, "\">");
			esc(b, items[i]);
			buf_addstr(b, "</a>");
			g_free(uri);
		} else {
			esc(b, items[i]);
		}
	}
	buf_addstr(b, "</dd>\n");
}

/* "Also to": the lists scripts/get_maintainer.pl names for the file that
 * chose the section, beside the section's own (tri_match.write_to). */
static void tp_also(struct buf *b, const struct tri_match *m)
{
	size_t n = 0, k = 0;
	char **also;

	while (m->write_to && m->write_to[n])
		n++;
	if (!n || !(also = calloc(n + 1, sizeof(*also))))
		return;
	for (size_t i = 0; i < n; i++) {
		size_t own = 0;

		while (m->section->lists[own] && strcmp(m->section->lists[own], m->write_to[i]))
			own++;
		if (!m->section->lists[own])
			also[k++] = m->write_to[i];
	}
	tp_entries(b, "Also to", also, 1);
	free(also);
}

static void tp_sections(struct buf *b, const struct tri_ranking *rk)
{
	if (!rk || !rk->n) {
		buf_addstr(b, "<p class=\"notice\">Nothing in the text points at a section of "
			      "MAINTAINERS.  Paste more of the log: the lines from the first "
			      "\"BUG:\", \"WARNING:\" or \"Oops\" to the end of its call trace, "
			      "or name the driver or module.</p>\n");
		return;
	}
	buf_addstr(b, "<h2>Where to report it</h2>\n<ol class=\"sections\">\n");
	for (size_t i = 0; i < rk->n && i < TP_SECTIONS; i++) {
		const struct tri_match *m = &rk->matches[i];
		const struct mnt_section *s = m->section;
		char score[32];

		snprintf(score, sizeof(score), "%.1f", m->score);
		buf_addstr(b, "<li><h3>");
		esc(b, s->name);
		buf_addstr(b, "</h3>\n<dl>\n");
		tp_entries(b, "Lists", s->lists, 1);
		tp_also(b, m);
		tp_entries(b, "Maintainers", s->maintainers, 0);
		tp_entries(b, "Reviewers", s->reviewers, 0);
		if (s->status && *s->status) {
			buf_addstr(b, "<dt>Status</dt><dd>");
			esc(b, s->status);
			buf_addstr(b, "</dd>\n");
		}
		tp_entries(b, "Bug reports", s->bug_urls, 0);
		buf_addstr(b, "<dt>Why</dt><dd class=\"reason\">");
		esc(b, m->reason ? m->reason : "");
		buf_addstr(b, " (score ");
		buf_addstr(b, score);
		buf_addstr(b, ")</dd>\n</dl></li>\n");
	}
	buf_addstr(b, "</ol>\n");
}

static void tp_same_crash(struct buf *b, const struct triage_page_env *env,
			  const struct tri_report *r, const char *text, size_t len)
{
	struct tri_signature *sigs;
	struct samecrash_hit *hits = NULL;
	size_t n = tri_signatures(r, text, len, &sigs), nh = 0;
	struct bb_error err = BB_ERROR_INIT;

	if (!n)
		return;
	pthread_mutex_lock(env->db_lock);
	if (samecrash_find(env->db, sigs, n, 0, &hits, &nh, &err))
		log_event(LOG_LEVEL_WARN, "frontdoor.triage_lookup_failed",
			  LF_STR("error", err.message));
	pthread_mutex_unlock(env->db_lock);
	buf_addstr(b, "<h2>The crash</h2>\n<ul class=\"crashes\">\n");
	for (size_t i = 0; i < n; i++) {
		buf_addstr(b, "<li><code>");
		esc(b, sigs[i].title);
		buf_addstr(b, "</code>");
		for (size_t k = 0, named = 0; k < nh; k++) {
			char id[32], *what;

			if (hits[k].title != sigs[i].title)
				continue;
			snprintf(id, sizeof(id), "%lld", hits[k].bug);
			what = samecrash_hit_text(&hits[k]);
			buf_addstr(b, named++ ? ", " : ": the same crash as <a href=\"/bug/");
			if (named > 1)
				buf_addstr(b, "<a href=\"/bug/");
			buf_addstr(b, id);
			buf_addstr(b, "\">");
			esc(b, what ? what : id);
			buf_addstr(b, "</a>");
			free(what);
		}
		buf_addstr(b, "</li>\n");
	}
	buf_addstr(b, "</ul>\n");
	if (nh)
		buf_addstr(b, "<p>A crash already reported: add what you know to that bug rather "
			      "than filing a new one.</p>\n");
	free(hits);
	tri_signatures_free(sigs, n);
}

static enum MHD_Result tp_answer(const struct triage_page_env *env, struct MHD_Connection *conn,
				 struct triage_request *req, unsigned *status)
{
	struct buf b = BUF_INIT;
	const char *text;
	size_t len;
	struct tri_report *r;
	struct tri_ranking *rk;
	char *hints;

	if (req->fail_http)
		return fd_message_page(conn, req->fail_http, status, "Where do I report this?",
				       req->fail_text, NULL, NULL);
	if (!req->post) {
		fd_page_start(&b, "Where do I report this?");
		tp_form(&b, NULL);
		fd_page_end(&b);
		return fd_queue(conn, MHD_HTTP_OK, status, "text/html; charset=utf-8", &b, NULL,
				NULL);
	}
	len = req->text.len;
	text = len ? req->text.data : "";
	r = tri_read(text, len);
	rk = tri_match(env->matcher, r, text, len, TP_SECTIONS);
	hints = tri_block(r, NULL, NULL, 0);
	fd_page_start(&b, "Where do I report this?");
	tp_sections(&b, rk);
	tp_same_crash(&b, env, r, text, len);
	if (hints) {
		/* the block's own lines, its heading aside */
		const char *body = strchr(hints, '\n');

		buf_addstr(&b, "<h2>What the text says</h2>\n<pre class=\"hints\">");
		esc(&b, body ? body + 1 : hints);
		buf_addstr(&b, "</pre>\n");
	}
	buf_addstr(&b, "<h2>Ask again</h2>\n");
	tp_form(&b, text);
	fd_page_end(&b);
	free(hints);
	tri_ranking_free(rk);
	tri_report_free(r);
	return fd_queue(conn, MHD_HTTP_OK, status, "text/html; charset=utf-8", &b, NULL, NULL);
}

/* The first call of a request: what it may do. */
static enum MHD_Result tp_begin(const struct triage_page_env *env, struct MHD_Connection *conn,
				const char *method, struct triage_request *req, unsigned *status)
{
	int get = !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);
	uint64_t max = env->cfg->frontdoor_triage_max_size;
	char retry[32];
	long long wait;

	req->post = !strcmp(method, MHD_HTTP_METHOD_POST);
	if (!env->matcher)
		return req->answered = 1,
		       fd_message_page(conn, MHD_HTTP_NOT_FOUND, status, "Not found",
				       "There is no such page here.", NULL, NULL);
	if (!get && !req->post)
		return req->answered = 1,
		       fd_message_page(conn, MHD_HTTP_METHOD_NOT_ALLOWED, status,
				       "Method not allowed", "Use GET or POST here.",
				       MHD_HTTP_HEADER_ALLOW, "GET, HEAD, POST");
	if (!req->post)
		return MHD_YES;
	if (!tp_origin_ok(env, conn))
		return req->answered = 1,
		       fd_message_page(conn, MHD_HTTP_FORBIDDEN, status, "Not sent from this site",
				       "This form can only be sent from this site's own page.",
				       NULL, NULL);
	/* a urlencoded body takes up to three bytes a byte of text */
	req->body_max = max > (UINT64_MAX - TP_FORM_SLACK) / 3 ? UINT64_MAX
							       : 3 * max + TP_FORM_SLACK;
	if (cl && g_ascii_strtoull(cl, NULL, 10) > req->body_max)
		return req->answered = 1,
		       fd_message_page(conn, MHD_HTTP_CONTENT_TOO_LARGE, status, "Too long",
				       "The text is longer than this page reads.  Paste the first "
				       "oops and the lines around it.", NULL, NULL);
	if ((wait = tp_budget(env))) {
		req->answered = 1;
		if (wait < 0)
			return fd_message_page(conn, MHD_HTTP_SERVICE_UNAVAILABLE, status,
					       "Not available", "The page cannot answer now.  "
					       "Please try again later.", NULL, NULL);
		log_event(LOG_LEVEL_WARN, "frontdoor.triage_rate_limited",
			  LF_STR("client", env->client), LF_STR("key", env->budget_key));
		snprintf(retry, sizeof(retry), "%lld", wait);
		return fd_message_page(conn, MHD_HTTP_TOO_MANY_REQUESTS, status, "Too many requests",
				       "Your address asked this page more often than it answers "
				       "one address in an hour.  Please try again later.",
				       MHD_HTTP_HEADER_RETRY_AFTER, retry);
	}
	buf_init_capped(&req->text, max > SIZE_MAX ? SIZE_MAX : (size_t)max);
	req->pp = MHD_create_post_processor(conn, TP_POST_BUFFER, tp_iterator, req);
	if (!req->pp)
		tp_fail(req, MHD_HTTP_BAD_REQUEST, "The form was not sent as a form.");
	return MHD_YES;
}

enum MHD_Result triage_page_handle(const struct triage_page_env *env,
				   struct MHD_Connection *conn, const char *method,
				   const char *upload_data, size_t *upload_data_size,
				   struct triage_request **state, unsigned *status)
{
	struct triage_request *req = *state;

	if (!req) {
		if (!(req = calloc(1, sizeof(*req))))
			return MHD_NO;
		*state = req;
		return tp_begin(env, conn, method, req, status);
	}
	if (*upload_data_size) {
		size_t n = *upload_data_size;

		*upload_data_size = 0;
		req->received += n;
		if (req->answered || !req->post)
			return req->received > req->body_max + (8u << 20) ? MHD_NO : MHD_YES;
		if (req->received > req->body_max)
			tp_fail(req, MHD_HTTP_CONTENT_TOO_LARGE,
				"The text is longer than this page reads.  Paste the first oops "
				"and the lines around it.");
		if (!req->fail_http && MHD_post_process(req->pp, upload_data, n) != MHD_YES)
			tp_fail(req, MHD_HTTP_BAD_REQUEST, "The form data was malformed.");
		return MHD_YES;
	}
	if (req->answered)
		return MHD_YES;
	req->answered = 1;
	return tp_answer(env, conn, req, status);
}
