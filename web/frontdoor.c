/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The front door of bugbridge serve (frontdoor.h).
 *
 * Choices made here:
 *  - The blob server hands over the raw path and leaves escapes alone
 *    (blob_http.c), so query values are decoded here ('+' and %XX) and
 *    repaired to valid UTF-8 before use.
 *  - A file field becomes a quarantine writer (quarantine.h) when its
 *    part starts and is finished when the next part starts or the body
 *    ends; an empty or nameless file field (a browser's empty file input)
 *    keeps nothing.  The files of a refused form are removed when the
 *    request ends; those of a stored report wait in the quarantine until
 *    it is confirmed, then enter the blob store with a "frontdoor-report"
 *    reference, or are removed after the confirmation window.
 *  - Budgets (reports an hour and a day, bytes a day) are reserved in one
 *    IMMEDIATE transaction when a POST to /report starts, before a byte of
 *    its body is read, so parallel requests (and other processes on the
 *    same database) cannot pass them, and a restart forgets nothing.  The
 *    bytes reserved are the Content-Length; a body without one may use
 *    what is left of the day's bytes, and its row is corrected at the end.
 *    A client is counted by its budget key (http_guard_budget_key()): an
 *    IPv6 client by its /64, which one host commonly has to itself.
 *  - Confirmation mails are counted per recipient, in fd_budget as well
 *    (key "mail:" and the address, lower case, without a "+tag"), in the
 *    transaction that stores the report: past [frontdoor] confirm_limit a
 *    day the report is refused, so that nobody can make the front door
 *    flood someone else's mailbox from many addresses.
 *  - Every POST must come from the front door's own pages: its Origin (or,
 *    without one, its Referer) must be the base URL's origin.  The pages
 *    send Referrer-Policy: same-origin, since with no-referrer browsers
 *    send "Origin: null" on a POST.
 *  - No mail leaves from a request's thread: reports are queued in the
 *    outbox and a delivery thread (its own database connection) sends
 *    them; it also expires unconfirmed reports.  fd->core->lock guards the
 *    request threads' database connection only and is never held across
 *    network I/O; the Bugzilla client has a lock of its own.
 *  - After a failure found while the body streams (an attachment past the
 *    limit, a full disk) the writer is aborted at once, the rest of the
 *    body is dropped (up to FD_DISCARD_MAX bytes, then the connection is
 *    cut) and the error answered at the end, as MHD 0.9 wants.
 *  - The report mail is queued and its fd_report row marked sent in one
 *    transaction; the Bugzilla bug (when filed) is created first and its
 *    id recorded before the mail is queued, so the mail links it.  A crash
 *    between creating the bug and recording its id would file it twice on
 *    the next confirmation: Bugzilla has no idempotent create.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <glib.h>
#include <gmime/gmime.h>
#include <microhttpd.h>
#include <openssl/rand.h>

#include "attachments/quarantine.h"
#include "bridge/submit.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "core/buf.h"
#include "core/digest.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/store.h"
#include "core/text.h"
#include "mail/archive.h"
#include "mail/mail.h"
#include "mail/maintainers.h"
#include "mail/outbox.h"
#include "web/bugpages.h"
#include "web/fd_page.h"
#include "web/frontdoor.h"
#include "web/http_guard.h"
#include "web/http_text.h"
#include "web/triage_page.h"

#define FD_POST_BUFFER 65536
#define FD_DISCARD_MAX (8u * 1024 * 1024)
#define FD_MAX_FILES 20
#define FD_TOKEN_BYTES 16
#define FD_SWEEP_INTERVAL 300     /* seconds between the delivery thread's rounds */
#define FD_TITLE_IN_MAIL 80       /* characters of the title the confirmation mail quotes */
#define FD_REF_HEX 12             /* hex digits of a report's public reference */

/* The text fields of the form, with their size caps. */
enum fd_field {
	FD_NAME, FD_EMAIL, FD_TITLE, FD_DESCRIPTION, FD_KERNEL, FD_REGRESSION, FD_ROUTE,
	FD_NFIELDS
};
static const struct {
	const char *key;
	size_t cap;
} fd_fields[FD_NFIELDS] = {
	{ "name", 200 }, { "email", 254 }, { "title", 300 }, { "description", 65536 },
	{ "kernel_version", 200 }, { "regression", 16384 }, { "route", 20 },
};

/* What frontdoor_update() may change: each request takes a reference to
 * the view current when it begins and keeps it to its end, as the delivery
 * thread does for a round; the last reference frees it and hands the
 * configuration back to its owner (frontdoor_options.release). */
struct fd_view {
	struct frontdoor *core;
	unsigned refs;              /* under core->view_lock */
	const struct bb_config *cfg;
	const struct router *router;
	struct bz_client *bz;
	uint64_t max_upload;
	const struct tri_matcher *matcher; /* NULL: no /triage */
	char *base_url;             /* no trailing slash */
	char *origin;               /* scheme://host[:port] of base_url */
	void (*release)(void *owner);
	void *owner;
};

struct frontdoor {
	struct blob_store *blobs;
	struct blob_server_site site;
	pthread_mutex_t view_lock;  /* guards view and every view's refs */
	struct fd_view *view;       /* the current one (one reference) */

	struct quarantine *quarantine;

	pthread_mutex_t lock;       /* guards db */
	struct store *db;
	pthread_mutex_t bz_lock;    /* guards bz */

	/* the delivery thread */
	pthread_t deliverer;
	int deliverer_running;
	pthread_mutex_t wake_lock;
	pthread_cond_t wake;
	int wake_pending, stopping;
	struct store *deliver_db;
};

struct fd_upload {
	struct quarantine_file file;
	char *name;
	char *declared_type;
};

enum fd_kind { FD_REQ_PAGE, FD_REQ_SUBMIT };

struct fd_request {
	enum fd_kind kind;
	char client[64];
	char budget_key[HTTP_GUARD_CLIENT_MAX]; /* what its budgets are counted under */
	struct MHD_PostProcessor *pp;
	struct buf fields[FD_NFIELDS];
	struct quarantine_writer *writer;
	char *part_name;            /* file name of the part being written */
	char *part_type;
	struct fd_upload uploads[FD_MAX_FILES];
	size_t nuploads;
	unsigned fail_http;         /* 0 while all is well */
	char fail_message[256];
	uint64_t discarded;
	uint64_t received;          /* body bytes so far */
	uint64_t byte_allowance;    /* what is left of the day's bytes */
	long long budget_row;       /* its fd_budget row; 0: none */
};

/* ------------------------------------------------------------ the form */

/* product and component a choice of the form files under; the route index
 * is -1 for "not sure". */
static void fd_route_target(const struct fd_view *fd, long idx, const char **product,
			    const char **component)
{
	const struct bb_config *cfg = fd->cfg;

	*product = fd->cfg->frontdoor_product ? cfg->frontdoor_product : cfg->inbound_track_product;
	*component = cfg->frontdoor_component ? cfg->frontdoor_component
					      : cfg->inbound_track_component;
	if (idx >= 0 && (size_t)idx < cfg->nroutes) {
		if (cfg->routes[idx].product)
			*product = cfg->routes[idx].product;
		if (cfg->routes[idx].component)
			*component = cfg->routes[idx].component;
	}
}

/* 1 if route number i is offered in the form (it names a product or a
 * component; others match on subsystems only). */
static int fd_route_offered(const struct fd_view *fd, size_t i)
{
	return fd->cfg->routes[i].product || fd->cfg->routes[i].component;
}

static enum MHD_Result fd_send_form(struct fd_view *fd, struct MHD_Connection *conn,
				    unsigned *logged)
{
	struct buf b = BUF_INIT;
	char tmp[64];

	fd_page_start(&b, "Report a kernel bug");
	buf_addstr(&b, "<p class=\"notice\"><strong>Your report will be public.</strong> "
		       "Everything you enter here, your name and e-mail address included, "
		       "and every file you attach, is sent to public mailing lists, archived "
		       "on the web for anyone to read");
	if (fd->cfg->frontdoor_create_bugs)
		buf_addstr(&b, ", and filed in the public Bugzilla");
	buf_addstr(&b, ".  Do not include passwords, keys or other private data.  Before "
		       "anything is posted we send you a mail with a link to confirm your "
		       "address.</p>\n"
		       "<form method=\"post\" action=\"/report\" enctype=\"multipart/form-data\">\n"
		       "<label for=\"name\">Your name</label>"
		       "<input type=\"text\" id=\"name\" name=\"name\" maxlength=\"200\">\n"
		       "<label for=\"email\">Your e-mail address (a confirmation link is sent "
		       "there)</label><input type=\"email\" id=\"email\" name=\"email\" "
		       "maxlength=\"254\" required>\n"
		       "<label for=\"title\">Title</label><input type=\"text\" id=\"title\" "
		       "name=\"title\" maxlength=\"300\" required>\n"
		       "<label for=\"route\">Area</label><select id=\"route\" name=\"route\">"
		       "<option value=\"\">Not sure</option>");
	for (size_t i = 0; i < fd->cfg->nroutes; i++) {
		const char *product, *component;

		if (!fd_route_offered(fd, i))
			continue;
		fd_route_target(fd, (long)i, &product, &component);
		snprintf(tmp, sizeof(tmp), "%zu", i);
		buf_addf(&b, "<option value=\"%s\">", tmp);
		frontdoor_escape(&b, product ? product : "");
		buf_addstr(&b, product && component ? " / " : "");
		frontdoor_escape(&b, component ? component : "");
		buf_addstr(&b, " (");
		frontdoor_escape(&b, fd->cfg->routes[i].name);
		buf_addstr(&b, ")</option>");
	}
	buf_addstr(&b, "</select>\n"
		       "<label for=\"kernel_version\">Kernel version (uname -r)</label>"
		       "<input type=\"text\" id=\"kernel_version\" name=\"kernel_version\" "
		       "maxlength=\"200\">\n"
		       "<label for=\"description\">What happened, and what did you expect?"
		       "</label><textarea id=\"description\" name=\"description\" required>"
		       "</textarea>\n"
		       "<label for=\"regression\">Regression: the last version that worked, "
		       "the first that broke, a bisected commit (leave empty if it never "
		       "worked)</label><textarea id=\"regression\" name=\"regression\">"
		       "</textarea>\n"
		       "<label for=\"attachment\">Attachments (logs, dumps, firmware images; "
		       "any size");
	if (fd->max_upload) {
		/* as people read sizes: "2.0 GiB", not "2147483648 bytes" */
		gchar *size = g_format_size_full(fd->max_upload, G_FORMAT_SIZE_IEC_UNITS);

		buf_addf(&b, " up to %s each", size);
		g_free(size);
	}
	buf_addstr(&b, ")</label><input type=\"file\" id=\"attachment\" name=\"attachment\" "
		       "multiple>\n"
		       "<p><button type=\"submit\" id=\"submit\">Send the report</button></p>\n"
		       "</form>\n");
	fd_page_end(&b);
	return fd_queue(conn, MHD_HTTP_OK, logged, "text/html; charset=utf-8", &b, NULL, NULL);
}

/* ------------------------------------------------------------ composing */

static void fd_add_addresses(InternetAddressList *list, char *const *addrs)
{
	for (char *const *a = addrs; a && *a; a++) {
		InternetAddressList *parsed = internet_address_list_parse(NULL, *a);

		if (parsed) {
			internet_address_list_append(list, parsed);
			g_object_unref(parsed);
		}
	}
}

/* A plain-text mail from [mail] from to to, cc and the filer (self_addr,
 * may be NULL; self_name is quoted by GMime as needed); *out gets the
 * message text (LF line ends). */
static enum bb_status fd_compose(const struct fd_view *fd, const char *message_id,
				 const char *subject, char *const *to, char *const *cc,
				 const char *self_name, const char *self_addr,
				 const char *body, struct buf *out, struct bb_error *err)
{
	GMimeMessage *msg = NULL;
	InternetAddressList *from = NULL;
	GMimeTextPart *part = NULL;
	GMimeFormatOptions *format = NULL;
	GDateTime *date = NULL;
	char *subj = NULL, *text = NULL;
	enum bb_status st = BB_OK;

	mail_init();
	msg = g_mime_message_new(TRUE);
	from = internet_address_list_parse(NULL, fd->cfg->mail_from);
	if (!from || internet_address_list_length(from) != 1) {
		st = bb_error_set(err, BB_ERR_CONFIG, "[mail] from \"%s\" is not one address",
				  fd->cfg->mail_from);
		goto out;
	}
	internet_address_list_append(g_mime_message_get_from(msg), from);
	fd_add_addresses(g_mime_message_get_addresses(msg, GMIME_ADDRESS_TYPE_TO), to);
	fd_add_addresses(g_mime_message_get_addresses(msg, GMIME_ADDRESS_TYPE_CC), cc);
	if (self_addr) {
		InternetAddress *self = internet_address_mailbox_new(self_name ? self_name : "",
								     self_addr);

		internet_address_list_add(g_mime_message_get_addresses(
						  msg, to ? GMIME_ADDRESS_TYPE_CC
							: GMIME_ADDRESS_TYPE_TO), self);
		g_object_unref(self);
	}
	subj = http_one_line(subject);
	g_mime_message_set_subject(msg, subj, "utf-8");
	date = g_date_time_new_now_utc();
	g_mime_message_set_date(msg, date);
	g_mime_message_set_message_id(msg, message_id);
	g_mime_object_set_header(GMIME_OBJECT(msg), "MIME-Version", "1.0", NULL);
	g_mime_object_set_header(GMIME_OBJECT(msg), "Auto-Submitted", "auto-generated", NULL);
	g_mime_object_set_header(GMIME_OBJECT(msg), MAIL_LOOP_HEADER, fd->cfg->mail_domain, NULL);
	part = g_mime_text_part_new_with_subtype("plain");
	g_mime_text_part_set_text(part, body);
	g_mime_text_part_set_charset(part, "utf-8");
	g_mime_part_set_content_encoding(
		GMIME_PART(part),
		g_mime_part_get_best_content_encoding(GMIME_PART(part),
						      GMIME_ENCODING_CONSTRAINT_7BIT));
	g_mime_message_set_mime_part(msg, GMIME_OBJECT(part));
	format = g_mime_format_options_new();
	g_mime_format_options_set_newline_format(format, GMIME_NEWLINE_FORMAT_UNIX);
	text = g_mime_object_to_string(GMIME_OBJECT(msg), format);
	if (!text || (st = buf_addstr(out, text))) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory composing a mail");
		goto out;
	}
	if (out->len && out->data[out->len - 1] != '\n')
		st = buf_addch(out, '\n');
out:
	g_free(text);
	g_free(subj);
	if (format)
		g_mime_format_options_free(format);
	if (part)
		g_object_unref(part);
	if (date)
		g_date_time_unref(date);
	if (from)
		g_object_unref(from);
	if (msg)
		g_object_unref(msg);
	return st;
}

/* ------------------------------------------------------------ submitting */

static enum MHD_Result fd_post_iterator(void *cls, enum MHD_ValueKind kind, const char *key,
					const char *filename, const char *content_type,
					const char *transfer_encoding, const char *data,
					uint64_t off, size_t size);

/* A failure the filer sees as fixed text; the details (paths, errno)
 * go to the log only. */
static void fd_fail(struct fd_request *r, unsigned http, const char *message)
{
	if (r->fail_http)
		return;
	r->fail_http = http;
	g_strlcpy(r->fail_message, message, sizeof(r->fail_message));
	if (r->writer) {
		quarantine_writer_abort(r->writer);
		r->writer = NULL;
	}
}

/* fd_fail() for a storage error: fixed text on the page, err in the log. */
static void fd_fail_storing(struct fd_request *r, const struct bb_error *err)
{
	log_event(err->code == BB_ERR_TOO_LARGE ? LOG_LEVEL_WARN : LOG_LEVEL_ERROR,
		  err->code == BB_ERR_TOO_LARGE ? "frontdoor.too_large" : "frontdoor.storing_failed",
		  LF_STR("client", r->client), LF_STR("error", err->message));
	if (err->code == BB_ERR_TOO_LARGE)
		fd_fail(r, MHD_HTTP_CONTENT_TOO_LARGE,
			"An attachment is larger than this server accepts.");
	else if (err->code == BB_ERR_NO_SPACE)
		fd_fail(r, MHD_HTTP_INSUFFICIENT_STORAGE,
			"The server has no room for the attachments right now; please try "
			"again later.");
	else
		fd_fail(r, MHD_HTTP_INTERNAL_SERVER_ERROR,
			"The server could not store an attachment; please try again later.");
}

/* Ends the file part being written: kept (and listed) when it holds
 * bytes, removed when empty. */
static void fd_finish_part(struct fd_view *fd, struct fd_request *r)
{
	struct bb_error err = BB_ERROR_INIT;
	struct fd_upload *u;

	(void)fd;
	if (!r->writer)
		goto out;
	if (quarantine_writer_size(r->writer) == 0 || r->fail_http) {
		quarantine_writer_abort(r->writer);
		r->writer = NULL;
		goto out;
	}
	u = &r->uploads[r->nuploads];
	if (quarantine_writer_finish(r->writer, &u->file, &err)) {
		r->writer = NULL;
		fd_fail_storing(r, &err);
		goto out;
	}
	r->writer = NULL;
	r->nuploads++;
	u->name = r->part_name;
	u->declared_type = r->part_type;
	r->part_name = r->part_type = NULL;
	log_event(LOG_LEVEL_INFO, "frontdoor.attachment", LF_STR("client", r->client),
		  LF_STR("hash", u->file.hash), LF_UINT("size", u->file.size));
out:
	free(r->part_name);
	free(r->part_type);
	r->part_name = r->part_type = NULL;
}

struct fd_iter_ctx {
	struct fd_view *fd;
	struct fd_request *r;
};

static enum MHD_Result fd_post_iterator(void *cls, enum MHD_ValueKind kind, const char *key,
					const char *filename, const char *content_type,
					const char *transfer_encoding, const char *data,
					uint64_t off, size_t size)
{
	struct fd_iter_ctx *ctx = cls;
	struct fd_request *r = ctx->r;
	struct bb_error err = BB_ERROR_INIT;
	size_t i;

	(void)kind;
	(void)transfer_encoding;
	if (r->fail_http)
		return MHD_YES;
	if (off == 0)
		fd_finish_part(ctx->fd, r);
	if (r->fail_http)
		return MHD_YES;
	if (filename) {
		if (strcmp(key, "attachment") || !*filename)
			return MHD_YES;
		if (off == 0) {
			if (r->nuploads >= FD_MAX_FILES) {
				fd_fail(r, MHD_HTTP_CONTENT_TOO_LARGE, "too many attachments");
				return MHD_YES;
			}
			if (quarantine_writer_open(ctx->fd->core->quarantine, ctx->fd->max_upload,
						   &r->writer, &err)) {
				fd_fail_storing(r, &err);
				return MHD_YES;
			}
			r->part_name = http_file_name(filename);
			r->part_type = strdup(content_type ? content_type : "");
		}
		if (r->writer && size && quarantine_writer_write(r->writer, data, size, &err))
			fd_fail_storing(r, &err);
		return MHD_YES;
	}
	for (i = 0; i < FD_NFIELDS; i++) {
		if (strcmp(key, fd_fields[i].key))
			continue;
		if (size && buf_add(&r->fields[i], data, size)) {
			char message[128];

			snprintf(message, sizeof(message), "the field %s is too long", key);
			fd_fail(r, MHD_HTTP_CONTENT_TOO_LARGE, message);
		}
		break;
	}
	return MHD_YES;
}

/* 1 if the POST comes from the front door's own pages: its Origin, or
 * without one its Referer, is the base URL's origin. */
static int fd_origin_ok(const struct fd_view *fd, struct MHD_Connection *conn)
{
	const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	const char *referer = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Referer");
	size_t n = strlen(fd->origin);

	if (origin)
		return !strcasecmp(origin, fd->origin);
	return referer && !strncasecmp(referer, fd->origin, n) &&
	       (referer[n] == '\0' || referer[n] == '/');
}

static enum MHD_Result fd_cross_origin(struct MHD_Connection *conn, struct fd_request *r,
				       unsigned *logged)
{
	log_event(LOG_LEVEL_WARN, "frontdoor.cross_origin", LF_STR("client", r->client));
	return fd_message_page(conn, MHD_HTTP_FORBIDDEN, logged, "Not sent from this site",
			       "This form can only be sent from the front door's own pages.  "
			       "Open the page on this site and send it from there.", NULL, NULL);
}

/* Seconds until the oldest of a client's budget rows since "since" leaves
 * its window of "window" seconds (at least 1). */
static long long fd_budget_wait(struct fd_view *fd, const char *client, time_t now,
				long long window)
{
	sqlite3_stmt *q = NULL;
	long long wait = 60;

	if (store_prepare(fd->core->db, &q, "SELECT min(time) FROM fd_budget WHERE client = ?1 "
			  "AND time > ?2", NULL))
		return wait;
	sqlite3_bind_text(q, 1, client, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, (sqlite3_int64)(now - window));
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		wait = sqlite3_column_int64(q, 0) + window - (long long)now;
	sqlite3_finalize(q);
	return wait > 0 ? wait : 1;
}

enum fd_budget_result { FD_BUDGET_OK, FD_BUDGET_HOUR, FD_BUDGET_DAY, FD_BUDGET_BYTES };

/* Reserves one report and want bytes of client's budgets in one IMMEDIATE
 * transaction (the caller holds fd->core->lock): counts the client's rows of the
 * last hour and day and adds one when they allow it.  *result says which
 * budget refused; r->byte_allowance gets what is left of the day's bytes. */
static enum bb_status fd_budget_reserve(struct fd_view *fd, struct fd_request *r, time_t now,
					uint64_t want, enum fd_budget_result *result,
					struct bb_error *err)
{
	const struct bb_config *cfg = fd->cfg;
	sqlite3_stmt *q = NULL;
	long long hour = 0, day = 0, bytes = 0;
	enum bb_status st;

	*result = FD_BUDGET_OK;
	if ((st = store_begin(fd->core->db, err)))
		return st;
	if ((st = store_prepare(fd->core->db, &q, "SELECT count(*) FILTER (WHERE time > ?2), count(*), "
				"coalesce(sum(bytes), 0) FROM fd_budget WHERE client = ?1 AND "
				"time > ?3", err)))
		goto out;
	sqlite3_bind_text(q, 1, r->budget_key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, (sqlite3_int64)now - 3600);
	sqlite3_bind_int64(q, 3, (sqlite3_int64)now - 86400);
	if (sqlite3_step(q) != SQLITE_ROW) {
		st = store_fail(fd->core->db, err, "counting a client's reports");
		goto out;
	}
	hour = sqlite3_column_int64(q, 0);
	day = sqlite3_column_int64(q, 1);
	bytes = sqlite3_column_int64(q, 2);
	sqlite3_finalize(q);
	q = NULL;
	r->byte_allowance = (unsigned long long)bytes < cfg->frontdoor_day_bytes
			    ? cfg->frontdoor_day_bytes - (unsigned long long)bytes : 0;
	if ((unsigned long long)hour >= cfg->frontdoor_rate_limit)
		*result = FD_BUDGET_HOUR;
	else if ((unsigned long long)day >= cfg->frontdoor_day_limit)
		*result = FD_BUDGET_DAY;
	else if (want > r->byte_allowance)
		*result = FD_BUDGET_BYTES;
	if (*result != FD_BUDGET_OK)
		goto out;
	if ((st = store_prepare(fd->core->db, &q, "INSERT INTO fd_budget (client, time, bytes) "
				"VALUES (?1, ?2, ?3)", err)))
		goto out;
	sqlite3_bind_text(q, 1, r->budget_key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, (sqlite3_int64)now);
	sqlite3_bind_int64(q, 3, (sqlite3_int64)want);
	if (sqlite3_step(q) != SQLITE_DONE) {
		st = store_fail(fd->core->db, err, "reserving a client's budget");
		goto out;
	}
	r->budget_row = sqlite3_last_insert_rowid(fd->core->db->db);
out:
	if (q)
		sqlite3_finalize(q);
	if (st || *result != FD_BUDGET_OK) {
		store_rollback(fd->core->db);
		r->budget_row = 0;
	} else if ((st = store_commit(fd->core->db, err))) {
		r->budget_row = 0;
	}
	return st;
}

/* Records the bytes a request really sent, when more than it reserved. */
static void fd_budget_settle(struct fd_view *fd, struct fd_request *r)
{
	sqlite3_stmt *q = NULL;

	if (!r->budget_row)
		return;
	pthread_mutex_lock(&fd->core->lock);
	if (!store_prepare(fd->core->db, &q, "UPDATE fd_budget SET bytes = max(bytes, ?2) WHERE id = ?1",
			   NULL)) {
		sqlite3_bind_int64(q, 1, r->budget_row);
		sqlite3_bind_int64(q, 2, (sqlite3_int64)r->received);
		if (sqlite3_step(q) != SQLITE_DONE)
			log_event(LOG_LEVEL_WARN, "frontdoor.budget_failed",
				  LF_STR("client", r->client));
		sqlite3_finalize(q);
	}
	pthread_mutex_unlock(&fd->core->lock);
	r->budget_row = 0;
}

/* First call of POST /report: the origin, the budgets and the form's
 * type, before a byte of the body is read. */
static enum MHD_Result fd_submit_begin(struct fd_view *fd, struct MHD_Connection *conn,
				       struct fd_request *r, struct fd_iter_ctx *ctx,
				       unsigned *logged)
{
	struct bb_error err = BB_ERROR_INIT;
	const char *length = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_CONTENT_LENGTH);
	enum fd_budget_result result = FD_BUDGET_OK;
	unsigned long long want = 0;
	time_t now = time(NULL);
	long long wait = 0;
	enum bb_status st;
	char retry[32];

	if (!fd_origin_ok(fd, conn))
		return fd_cross_origin(conn, r, logged);
	if (length) {
		char *end;

		errno = 0;
		want = strtoull(length, &end, 10);
		if (errno || *end || end == length)
			want = 0;
	}
	pthread_mutex_lock(&fd->core->lock);
	st = fd_budget_reserve(fd, r, now, want, &result, &err);
	if (!st && result != FD_BUDGET_OK)
		wait = fd_budget_wait(fd, r->budget_key, now,
				      result == FD_BUDGET_HOUR ? 3600 : 86400);
	pthread_mutex_unlock(&fd->core->lock);
	if (st) {
		log_event(LOG_LEVEL_ERROR, "frontdoor.budget_failed", LF_STR("client", r->client),
			  LF_STR("error", err.message));
		return fd_message_page(conn, MHD_HTTP_SERVICE_UNAVAILABLE, logged,
				       "Please try again later", "The server cannot take reports "
				       "right now.", MHD_HTTP_HEADER_RETRY_AFTER, "60");
	}
	if (result != FD_BUDGET_OK) {
		snprintf(retry, sizeof(retry), "%lld", wait);
		log_event(LOG_LEVEL_WARN, "frontdoor.rate_limited", LF_STR("client", r->client),
			  LF_STR("key", r->budget_key), LF_STR("budget", result == FD_BUDGET_HOUR ? "hour"
				 : result == FD_BUDGET_DAY ? "day" : "bytes"));
		return fd_message_page(conn, MHD_HTTP_TOO_MANY_REQUESTS, logged,
				       "Too many reports",
				       result == FD_BUDGET_BYTES
				       ? "Your address sent more data today than this server takes "
					 "from one address.  Please try again later."
				       : "Too many reports came from your address recently.  "
					 "Please try again later.",
				       MHD_HTTP_HEADER_RETRY_AFTER, retry);
	}
	r->pp = MHD_create_post_processor(conn, FD_POST_BUFFER, fd_post_iterator, ctx);
	if (!r->pp)
		return fd_message_page(conn, MHD_HTTP_BAD_REQUEST, logged, "Not a form",
				       "Send the report with the form (multipart/form-data).",
				       NULL, NULL);
	return MHD_YES;
}

static char *fd_field(struct fd_request *r, enum fd_field f, int multi_line)
{
	return multi_line ? http_multi_line(r->fields[f].data) : http_one_line(r->fields[f].data);
}

/* An attachment of a stored report. */
struct fd_att {
	char hash[BLOB_HEX_LEN + 1];
	char *name;
	unsigned seq;
};

static void fd_atts_free(struct fd_att *atts, size_t n)
{
	for (size_t i = 0; atts && i < n; i++)
		free(atts[i].name);
	free(atts);
}

/* The attachments of report id (the caller holds fd->core->lock); free with
 * fd_atts_free(). */
static enum bb_status fd_load_atts(struct fd_view *fd, long long id, struct fd_att **out,
				   size_t *n, struct bb_error *err)
{
	sqlite3_stmt *q = NULL;
	struct fd_att *atts = NULL;
	size_t count = 0;
	enum bb_status st;
	int rc;

	*out = NULL;
	*n = 0;
	if ((st = store_prepare(fd->core->db, &q, "SELECT seq, blob_hash, file_name FROM fd_attachment "
				"WHERE report = ?1 ORDER BY seq", err)))
		return st;
	sqlite3_bind_int64(q, 1, id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct fd_att *grown = realloc(atts, (count + 1) * sizeof(*atts));

		if (!grown || !(grown[count].name = strdup((const char *)sqlite3_column_text(q, 2)))) {
			atts = grown ? grown : atts;
			st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		atts = grown;
		atts[count].seq = (unsigned)sqlite3_column_int64(q, 0);
		g_strlcpy(atts[count].hash, (const char *)sqlite3_column_text(q, 1),
			  sizeof(atts[count].hash));
		count++;
	}
	if (rc != SQLITE_DONE)
		st = store_fail(fd->core->db, err, "reading a report's attachments");
out:
	sqlite3_finalize(q);
	if (st) {
		fd_atts_free(atts, count);
		return st;
	}
	*out = atts;
	*n = count;
	return BB_OK;
}

/* The report as text, for the mail and the Bugzilla bug. */
static void fd_report_text(struct fd_view *fd, struct buf *b, const char *description,
			   const char *kernel, const char *regression, const char *name,
			   const char *email, const struct fd_att *atts, size_t natts,
			   long long bug_id)
{
	buf_addstr(b, description);
	if (b->len && b->data[b->len - 1] != '\n')
		buf_addch(b, '\n');
	if (*kernel)
		buf_addf(b, "\nKernel version: %s\n", kernel);
	if (*regression) {
		buf_addstr(b, "\nRegression:\n");
		buf_addstr(b, regression);
		if (b->data[b->len - 1] != '\n')
			buf_addch(b, '\n');
	}
	for (size_t i = 0; i < natts; i++) {
		struct blob_info info;
		struct bb_error err = BB_ERROR_INIT;
		char *url;

		if (i == 0)
			buf_addstr(b, "\nAttachments (verify with sha256sum):\n");
		memset(&info, 0, sizeof(info));
		blob_lookup(fd->core->blobs, atts[i].hash, &info, &err);
		url = blob_url(fd->core->blobs, atts[i].hash, atts[i].name);
		buf_addf(b, "\n  %s (%llu bytes, %s)\n  sha256:%s\n  %s\n", atts[i].name,
			 (unsigned long long)info.size,
			 info.content_type[0] ? info.content_type : "unknown type", atts[i].hash,
			 url ? url : "");
		free(url);
	}
	if (bug_id > 0 && fd->cfg->bz_url)
		buf_addf(b, "\nBugzilla: %s/show_bug.cgi?id=%lld\n", fd->cfg->bz_url, bug_id);
	buf_addf(b, "\n-- \nReported by %s%s<%s> through %s/, address confirmed by mail.\n",
		 name, *name ? " " : "", email, fd->base_url);
}

/* Tells the delivery thread that the outbox holds something new. */
static void fd_wake_deliverer(struct fd_view *fd)
{
	pthread_mutex_lock(&fd->core->wake_lock);
	fd->core->wake_pending = 1;
	pthread_cond_signal(&fd->core->wake);
	pthread_mutex_unlock(&fd->core->wake_lock);
}

/* The Message-ID of report id's mail (what "-confirm" for its
 * confirmation mail): "report-<id>.<ref>@<domain>", where ref is the start
 * of the SHA-256 of the report's secret token.  Report ids start over
 * after a restore of the database, tokens never repeat: a new report never
 * takes an older one's Message-ID, nor the Bugzilla bug found by it. */
static char *fd_report_mid(const struct fd_view *fd, long long id, const char *token,
			   const char *what)
{
	char hex[SHA256_HEX_LEN + 1];

	if (sha256_hex(token, strlen(token), hex))
		return NULL;
	hex[FD_REF_HEX] = '\0';
	return str_printf("report-%lld.%s%s@%s", id, hex, what, fd->cfg->mail_domain);
}

/* The confirmation mail's body: the title only quoted and cut, since the
 * mail goes to whatever address the form named. */
static void fd_confirm_mail_body(const struct fd_view *fd, struct buf *body,
				 const char *title, const char *token)
{
	const char *end = title;
	long chars = 0;

	while (*end && chars < FD_TITLE_IN_MAIL) {
		end = g_utf8_next_char(end);
		chars++;
	}
	buf_addf(body, "Someone, hopefully you, filed a bug report at %s/ with your address,\n"
		 "titled:\n\n  \"%.*s%s\"\n\n"
		 "To confirm your address and send the report to the kernel developers "
		 "(on public mailing lists%s), open this link and press its button:\n\n"
		 "  %s/confirm/%s\n\n"
		 "If it was not you, ignore this mail: nothing is sent without the link,\n"
		 "and the report's attachments are deleted when the link expires.\n",
		 fd->base_url, (int)(end - title), title, *end ? "..." : "",
		 fd->cfg->frontdoor_create_bugs ? " and in Bugzilla" : "", fd->base_url, token);
}

/* Last call of POST /report: checks the fields, stores the report (its
 * attachments move to the report's place in the quarantine) and queues
 * the confirmation mail. */
static enum MHD_Result fd_submit_finish(struct fd_view *fd, struct MHD_Connection *conn,
					struct fd_request *r, unsigned *logged)
{
	struct bb_error err = BB_ERROR_INIT;
	struct buf page = BUF_INIT, mail = BUF_INIT, body = BUF_INIT;
	char *name = NULL, *email = NULL, *title = NULL, *description = NULL, *kernel = NULL;
	char *regression = NULL, *route = NULL, *mid = NULL, *confirm_key = NULL;
	const char *product = NULL, *component = NULL, *problem = NULL;
	long long wait = 0;
	unsigned char raw[FD_TOKEN_BYTES];
	char token[2 * FD_TOKEN_BYTES + 1];
	char *to[2] = { NULL, NULL };
	sqlite3_stmt *q = NULL;
	long long id = 0;
	long idx = -1;
	int in_tx = 0, locked = 0, adopted = 0;
	enum MHD_Result ret;
	enum bb_status st;

	if (r->pp && MHD_destroy_post_processor(r->pp) != MHD_YES)
		fd_fail(r, MHD_HTTP_BAD_REQUEST, "The form data was malformed or cut short.");
	r->pp = NULL;
	fd_finish_part(fd, r);
	if (r->fail_http) {
		ret = fd_message_page(conn, r->fail_http, logged, "The report was not taken",
				      r->fail_message, r->fail_http == MHD_HTTP_TOO_MANY_REQUESTS
				      ? MHD_HTTP_HEADER_RETRY_AFTER : NULL, "3600");
		goto out;
	}
	name = fd_field(r, FD_NAME, 0);
	email = fd_field(r, FD_EMAIL, 0);
	title = fd_field(r, FD_TITLE, 0);
	description = fd_field(r, FD_DESCRIPTION, 1);
	kernel = fd_field(r, FD_KERNEL, 0);
	regression = fd_field(r, FD_REGRESSION, 1);
	route = fd_field(r, FD_ROUTE, 0);
	g_strstrip(description);
	g_strstrip(regression);
	if (*route) {
		char *end;

		idx = strtol(route, &end, 10);
		if (*end || idx < 0 || (size_t)idx >= fd->cfg->nroutes || !fd_route_offered(fd, (size_t)idx))
			problem = "Choose an area from the list.";
	}
	if (!http_email_ok(email))
		problem = "Give an e-mail address (name@example.org): the confirmation link is sent there.";
	else if (!*title)
		problem = "Give the report a title.";
	else if (!*description)
		problem = "Describe the problem.";
	if (problem) {
		ret = fd_message_page(conn, MHD_HTTP_BAD_REQUEST, logged, "The report is not complete",
				      problem, NULL, NULL);
		goto out;
	}
	fd_route_target(fd, idx, &product, &component);
	if (RAND_bytes(raw, sizeof(raw)) != 1) {
		ret = fd_message_page(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, logged, "Server error",
				      "No random token could be made.", NULL, NULL);
		goto out;
	}
	hex_encode(raw, sizeof(raw), token);

	pthread_mutex_lock(&fd->core->lock);
	locked = 1;
	if ((st = store_begin(fd->core->db, &err)))
		goto db_fail;
	in_tx = 1;
	/* counted with the submit box's confirmation mails (bridge/submit.h) */
	confirm_key = submit_confirm_key(email);
	if ((st = submit_confirm_reserve(fd->core->db, fd->cfg->frontdoor_confirm_limit, confirm_key,
					 time(NULL), &wait, &err)))
		goto db_fail;
	if (wait) {
		char retry[32];

		store_rollback(fd->core->db);
		in_tx = 0;
		pthread_mutex_unlock(&fd->core->lock);
		locked = 0;
		/* not the address: the log keeps no one's mail address */
		log_event(LOG_LEVEL_WARN, "frontdoor.confirm_limited", LF_STR("client", r->client));
		snprintf(retry, sizeof(retry), "%lld", wait);
		ret = fd_message_page(conn, MHD_HTTP_TOO_MANY_REQUESTS, logged, "Too many reports",
				      "Too many confirmation mails went to this e-mail address "
				      "today.  Please try again tomorrow.",
				      MHD_HTTP_HEADER_RETRY_AFTER, retry);
		goto out;
	}
	if ((st = store_prepare(fd->core->db, &q, "INSERT INTO fd_report (token, email, name, title, "
				"description, kernel_version, regression, product, component, "
				"client, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
				&err)))
		goto db_fail;
	sqlite3_bind_text(q, 1, token, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, email, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, title, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 5, description, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 6, kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 7, regression, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 8, product ? product : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 9, component ? component : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 10, r->client, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 11, (sqlite3_int64)time(NULL));
	if (sqlite3_step(q) != SQLITE_DONE) {
		st = store_fail(fd->core->db, &err, "storing a report");
		goto db_fail;
	}
	id = sqlite3_last_insert_rowid(fd->core->db->db);
	sqlite3_finalize(q);
	q = NULL;
	for (size_t i = 0; i < r->nuploads; i++) {
		if ((st = store_prepare(fd->core->db, &q, "INSERT INTO fd_attachment (report, seq, "
					"blob_hash, file_name) VALUES (?1, ?2, ?3, ?4)", &err)))
			goto db_fail;
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, (sqlite3_int64)i + 1);
		sqlite3_bind_text(q, 3, r->uploads[i].file.hash, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 4, r->uploads[i].name, -1, SQLITE_STATIC);
		if (sqlite3_step(q) != SQLITE_DONE) {
			st = store_fail(fd->core->db, &err, "storing an attachment of a report");
			goto db_fail;
		}
		sqlite3_finalize(q);
		q = NULL;
		adopted = 1;
		if ((st = quarantine_adopt(fd->core->quarantine, &r->uploads[i].file, id,
					   (unsigned)i + 1, &err)))
			goto db_fail;
	}
	mid = fd_report_mid(fd, id, token, "-confirm");
	fd_confirm_mail_body(fd, &body, title, token);
	to[0] = email;
	/* the filer's bare address: no name of theirs in the mail's header */
	if (!mid || (st = fd_compose(fd, mid, "Confirm your bug report", NULL, NULL, NULL, email,
				     body.data, &mail, &err)))
		goto db_fail;
	if ((st = outbox_add(fd->core->db, mid, 0, 0, fd->cfg->mail_from, to, mail.data, mail.len,
			     &err)))
		goto db_fail;
	in_tx = 0;
	if ((st = store_commit(fd->core->db, &err)))
		goto db_fail;
	pthread_mutex_unlock(&fd->core->lock);
	locked = 0;
	for (size_t i = 0; i < r->nuploads; i++) {
		/* the report's now: not removed when the request ends */
		free(r->uploads[i].file.path);
		r->uploads[i].file.path = NULL;
	}
	fd_wake_deliverer(fd);
	log_event(LOG_LEVEL_INFO, "frontdoor.report", LF_INT("report", id),
		  LF_STR("client", r->client), LF_UINT("attachments", r->nuploads));

	fd_page_start(&page, "Check your mail");
	buf_addstr(&page, "<p>Thank you.  We sent a mail to <strong>");
	frontdoor_escape(&page, email);
	buf_addstr(&page, "</strong> with a link.  Open it to confirm your address; only then "
			  "is your report <em>");
	frontdoor_escape(&page, title);
	buf_addstr(&page, "</em> sent to the developers.</p>\n");
	if (r->nuploads) {
		buf_addstr(&page, "<p>Attachments received (kept private until you confirm):</p>\n"
				  "<ul>\n");
		for (size_t i = 0; i < r->nuploads; i++) {
			buf_addstr(&page, "<li>");
			frontdoor_escape(&page, r->uploads[i].name);
			buf_addf(&page, " (%llu bytes) <code class=\"sha256\">sha256:%s</code></li>\n",
				 (unsigned long long)r->uploads[i].file.size,
				 r->uploads[i].file.hash);
		}
		buf_addstr(&page, "</ul>\n");
	}
	fd_page_end(&page);
	ret = fd_queue(conn, MHD_HTTP_ACCEPTED, logged, "text/html; charset=utf-8", &page, NULL,
		       NULL);
	goto out;

db_fail:
	if (q)
		sqlite3_finalize(q);
	q = NULL;
	if (in_tx)
		store_rollback(fd->core->db);
	if (adopted)
		quarantine_remove_report(fd->core->quarantine, id, NULL);
	if (locked)
		pthread_mutex_unlock(&fd->core->lock);
	locked = 0;
	log_event(LOG_LEVEL_ERROR, "frontdoor.report_failed", LF_STR("error", err.message));
	ret = fd_message_page(conn, st == BB_ERR_BUSY ? MHD_HTTP_SERVICE_UNAVAILABLE
				    : MHD_HTTP_INTERNAL_SERVER_ERROR, logged,
			      "The report was not taken", "The server could not store the "
			      "report; please try again later.", NULL, NULL);
out:
	if (locked)
		pthread_mutex_unlock(&fd->core->lock);
	buf_release(&page);
	buf_release(&mail);
	buf_release(&body);
	free(mid);
	g_free(confirm_key);
	g_free(name);
	g_free(email);
	g_free(title);
	g_free(description);
	g_free(kernel);
	g_free(regression);
	g_free(route);
	return ret;
}

/* ------------------------------------------------------------ confirming */

/* Whether token has the form of a confirmation token. */
static int fd_token_ok(const char *token)
{
	return strlen(token) == 2 * FD_TOKEN_BYTES &&
	       strspn(token, "0123456789abcdef") == strlen(token);
}

static enum MHD_Result fd_unknown_link(struct MHD_Connection *conn, unsigned *logged)
{
	return fd_message_page(conn, MHD_HTTP_NOT_FOUND, logged, "Unknown link",
			       "This confirmation link is not known.", NULL, NULL);
}

/* A report that can no longer be confirmed (sent already, or its link
 * expired) gets its page in *ret: 1.  0 if it can be confirmed. */
static int fd_confirm_closed(const struct fd_view *fd, struct MHD_Connection *conn,
			     const char *state, long long created, unsigned *logged,
			     enum MHD_Result *ret)
{
	if (!strcmp(state, "sent")) {
		*ret = fd_message_page(conn, MHD_HTTP_OK, logged, "Already confirmed",
				       "This report was confirmed and sent already.  Thank you.",
				       NULL, NULL);
		return 1;
	}
	if (!strcmp(state, "expired") ||
	    (!strcmp(state, "unconfirmed") &&
	     created + fd->cfg->frontdoor_confirm_window < (long long)time(NULL))) {
		*ret = fd_message_page(conn, MHD_HTTP_GONE, logged, "Link expired",
				       "This confirmation link has expired; please file the "
				       "report again.", NULL, NULL);
		return 1;
	}
	return 0;
}

/* GET of a confirmation link: a page with a button that POSTs back to it.
 * Following the link does not confirm by itself, since mail scanners and
 * link previewers fetch links nobody clicked. */
static enum MHD_Result fd_confirm_page(struct fd_view *fd, struct MHD_Connection *conn,
				       const char *token, unsigned *logged)
{
	struct bb_error err = BB_ERROR_INIT;
	struct buf b = BUF_INIT;
	sqlite3_stmt *q = NULL;
	char *title = NULL, *state = NULL;
	long long created = 0;
	int found = 0;
	enum MHD_Result ret;

	if (!fd_token_ok(token))
		return fd_unknown_link(conn, logged);
	pthread_mutex_lock(&fd->core->lock);
	if (!store_prepare(fd->core->db, &q, "SELECT title, state, created FROM fd_report"
			   " WHERE token = ?1", &err)) {
		sqlite3_bind_text(q, 1, token, -1, SQLITE_STATIC);
		if (sqlite3_step(q) == SQLITE_ROW) {
			found = 1;
			title = strdup((const char *)sqlite3_column_text(q, 0));
			state = strdup((const char *)sqlite3_column_text(q, 1));
			created = sqlite3_column_int64(q, 2);
		}
		sqlite3_finalize(q);
	}
	pthread_mutex_unlock(&fd->core->lock);
	if (!found) {
		free(title);
		free(state);
		return fd_unknown_link(conn, logged);
	}
	if (!title || !state) {
		free(title);
		free(state);
		return fd_message_page(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, logged, "Try again",
				       "Something went wrong on our side; please try again.",
				       NULL, NULL);
	}
	if (fd_confirm_closed(fd, conn, state, created, logged, &ret)) {
		free(title);
		free(state);
		return ret;
	}
	fd_page_start(&b, "Confirm your report");
	buf_addstr(&b, "<p>Your report <strong>");
	frontdoor_escape(&b, title);
	buf_addstr(&b, "</strong> is ready.  Sending it posts it to public mailing lists "
		       "(and to Bugzilla, where configured) under your name and address.</p>\n"
		       "<form method=\"post\" action=\"\">\n"
		       "<button type=\"submit\" id=\"submit\" name=\"confirm\" value=\"1\">"
		       "Confirm and send the report</button>\n</form>\n");
	fd_page_end(&b);
	free(title);
	free(state);
	return fd_queue(conn, MHD_HTTP_OK, logged, "text/html; charset=utf-8", &b, NULL, NULL);
}

/* Moves the attachments of a confirmed report from the quarantine into
 * the public blob store, with a "frontdoor-report" reference.  One
 * published by an earlier, interrupted confirmation is found in the store
 * already. */
static enum bb_status fd_publish(struct fd_view *fd, long long id, const struct fd_att *atts,
				 size_t n, struct bb_error *err)
{
	char ref[32];
	enum bb_status st = BB_OK;

	snprintf(ref, sizeof(ref), "%lld", id);
	for (size_t i = 0; i < n; i++) {
		struct blob_origin origin;
		struct blob_info info;

		memset(&origin, 0, sizeof(origin));
		origin.name = atts[i].name;
		origin.declared_type = "";
		origin.origin = "frontdoor";
		origin.origin_ref = ref;
		st = quarantine_publish(fd->core->quarantine, id, atts[i].seq, atts[i].hash, fd->core->blobs,
					&origin, &info, err);
		if (st == BB_ERR_NOT_FOUND)
			st = blob_lookup(fd->core->blobs, atts[i].hash, &info, err);
		if (st || (st = blob_add_ref(fd->core->blobs, atts[i].hash, "frontdoor-report", ref, err)))
			return st;
	}
	return quarantine_remove_report(fd->core->quarantine, id, err);
}

/* Where the list archive shows the mail message_id: what a bug filed for
 * it has as its URL, as for a thread `#bugbridge track` filed. */
static char *fd_mail_link(const struct fd_view *fd, const char *message_id)
{
	return archive_mail_link(fd->cfg->archive_link_url ? fd->cfg->archive_link_url
							    : fd->cfg->archive_url,
				 message_id);
}

/* Files the Bugzilla bug of report id unless it has one (bug_id), under
 * the Bugzilla client's own lock, and records its id; *bug_id gets it (0
 * when it could not be filed: *problem then says so).  The bug's URL is
 * link, the report mail's own: a bug found with it is the one an earlier
 * confirmation filed before a crash, or whose answer was lost on the way,
 * and is taken instead of filing another (Bugzilla has no idempotent
 * create). */
static enum bb_status fd_file_bug(struct fd_view *fd, long long id, const char *product,
				  const char *component, const char *version, const char *severity,
				  const char *title, const char *text, const char *link,
				  long long *bug_id, const char **problem, struct bb_error *err)
{
	struct bz_change fields[8];
	struct bb_error bzerr = BB_ERROR_INIT;
	sqlite3_stmt *q = NULL;
	size_t nf = 0;
	enum bb_status st = BB_OK;

	pthread_mutex_lock(&fd->core->bz_lock);
	/* a confirmation running beside this one may have filed it meanwhile */
	pthread_mutex_lock(&fd->core->lock);
	if (!(st = store_prepare(fd->core->db, &q, "SELECT bug_id FROM fd_report WHERE id = ?1", err))) {
		sqlite3_bind_int64(q, 1, id);
		if (sqlite3_step(q) == SQLITE_ROW)
			*bug_id = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
		q = NULL;
	}
	pthread_mutex_unlock(&fd->core->lock);
	if (st || *bug_id > 0)
		goto out;
	fields[nf++] = (struct bz_change){ "product", product };
	fields[nf++] = (struct bz_change){ "component", component };
	fields[nf++] = (struct bz_change){ "summary", title };
	fields[nf++] = (struct bz_change){ "version", *version ? version
								  : fd->cfg->inbound_track_version };
	fields[nf++] = (struct bz_change){ "op_sys", fd->cfg->inbound_track_op_sys };
	fields[nf++] = (struct bz_change){ "platform", fd->cfg->inbound_track_platform };
	fields[nf++] = (struct bz_change){ "url", link };
	if (*severity)
		fields[nf++] = (struct bz_change){ "severity", severity };
	if (bz_find_bug_by_url(fd->bz, link, bug_id, &bzerr) == BB_OK && *bug_id > 0) {
		log_event(LOG_LEVEL_INFO, "frontdoor.bug_found", LF_INT("report", id),
			  LF_INT("bug", *bug_id), LF_STR("url", link));
	} else if (bzerr.message[0]) {
		/* not known whether one was filed: filing now could file two */
		*problem = "The Bugzilla bug could not be filed; the report went to the lists only.";
		log_event(LOG_LEVEL_WARN, "frontdoor.bug_failed", LF_INT("report", id),
			  LF_STR("error", bzerr.message));
		*bug_id = 0;
		goto out;
	} else if (bz_create_bug(fd->bz, fields, nf, text, bug_id, &bzerr)) {
		struct bb_error again = BB_ERROR_INIT;

		/* an answer lost after Bugzilla filed it: the bug is there */
		if (bz_find_bug_by_url(fd->bz, link, bug_id, &again) != BB_OK || *bug_id <= 0) {
			*problem = "The Bugzilla bug could not be filed; the report went to the "
				   "lists only.";
			log_event(LOG_LEVEL_WARN, "frontdoor.bug_failed", LF_INT("report", id),
				  LF_STR("error", bzerr.message));
			*bug_id = 0;
			goto out;
		}
		log_event(LOG_LEVEL_INFO, "frontdoor.bug_found", LF_INT("report", id),
			  LF_INT("bug", *bug_id), LF_STR("url", link));
	} else {
		log_event(LOG_LEVEL_INFO, "frontdoor.bug_filed", LF_INT("report", id),
			  LF_INT("bug", *bug_id));
	}
	test_hook("frontdoor.bug_filed");
	pthread_mutex_lock(&fd->core->lock);
	if (!(st = store_prepare(fd->core->db, &q, "UPDATE fd_report SET bug_id = ?2 WHERE id = ?1",
				 err))) {
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, *bug_id);
		if (sqlite3_step(q) != SQLITE_DONE)
			st = store_fail(fd->core->db, err, "recording a filed bug");
		sqlite3_finalize(q);
	}
	pthread_mutex_unlock(&fd->core->lock);
out:
	pthread_mutex_unlock(&fd->core->bz_lock);
	return st;
}

/* POST of a confirmation link: marks the report confirmed, publishes its
 * attachments, files the bug (where configured) and queues the report
 * mail.  fd->core->lock is taken only around database work. */
static enum MHD_Result fd_confirm(struct fd_view *fd, struct MHD_Connection *conn,
				  const char *token, unsigned *logged)
{
	struct bb_error err = BB_ERROR_INIT;
	struct buf body = BUF_INIT, mail = BUF_INIT, page = BUF_INIT;
	struct route_result rr;
	struct bz_bug bug;
	struct fd_att *atts = NULL;
	sqlite3_stmt *q = NULL;
	char *email = NULL, *name = NULL, *title = NULL, *description = NULL, *kernel = NULL;
	char *regression = NULL, *product = NULL, *component = NULL, *state = NULL;
	char *version = NULL, *severity = NULL;
	char *mid = NULL, *subject = NULL, *cc_self = NULL, *lists = NULL;
	char **recipients = NULL, **cc = NULL;
	char empty[1] = "";
	char *no_words[1] = { NULL };
	long long id = 0, bug_id = 0, created = 0;
	size_t n = 0, k = 0, natts = 0;
	int in_tx = 0, locked = 0;
	enum MHD_Result ret;
	enum bb_status st = BB_OK;
	const char *bz_problem = NULL;

	memset(&rr, 0, sizeof(rr));
	if (!fd_token_ok(token))
		return fd_unknown_link(conn, logged);
	pthread_mutex_lock(&fd->core->lock);
	locked = 1;
	if ((st = store_prepare(fd->core->db, &q, "SELECT id, email, name, title, description, "
				"kernel_version, regression, product, component, state, bug_id, "
				"created, bz_version, severity FROM fd_report WHERE token = ?1",
				&err)))
		goto db_fail;
	sqlite3_bind_text(q, 1, token, -1, SQLITE_STATIC);
	if (sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_finalize(q);
		pthread_mutex_unlock(&fd->core->lock);
		return fd_unknown_link(conn, logged);
	}
#define COL(i) strdup((const char *)sqlite3_column_text(q, (i)))
	id = sqlite3_column_int64(q, 0);
	email = COL(1);
	name = COL(2);
	title = COL(3);
	description = COL(4);
	kernel = COL(5);
	regression = COL(6);
	product = COL(7);
	component = COL(8);
	state = COL(9);
	bug_id = sqlite3_column_int64(q, 10);
	created = sqlite3_column_int64(q, 11);
	version = COL(12);
	severity = COL(13);
#undef COL
	sqlite3_finalize(q);
	q = NULL;
	if (!email || !name || !title || !description || !kernel || !regression || !product ||
	    !component || !state || !version || !severity) {
		st = bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
		goto db_fail;
	}
	if (fd_confirm_closed(fd, conn, state, created, logged, &ret)) {
		pthread_mutex_unlock(&fd->core->lock);
		locked = 0;
		goto out;
	}
	if (!strcmp(state, "unconfirmed")) {
		/* state unconfirmed in the WHERE: the expiry sweep may have come first */
		if ((st = store_prepare(fd->core->db, &q, "UPDATE fd_report SET state = 'confirmed', "
					"confirmed = ?2 WHERE id = ?1 AND state = 'unconfirmed'",
					&err)))
			goto db_fail;
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, (sqlite3_int64)time(NULL));
		if (sqlite3_step(q) != SQLITE_DONE) {
			st = store_fail(fd->core->db, &err, "confirming a report");
			goto db_fail;
		}
		sqlite3_finalize(q);
		q = NULL;
		if (sqlite3_changes(fd->core->db->db) != 1) {
			pthread_mutex_unlock(&fd->core->lock);
			locked = 0;
			ret = fd_message_page(conn, MHD_HTTP_GONE, logged, "Link expired",
					      "This confirmation link has expired; please file the "
					      "report again.", NULL, NULL);
			goto out;
		}
	}
	if ((st = fd_load_atts(fd, id, &atts, &natts, &err)))
		goto db_fail;
	pthread_mutex_unlock(&fd->core->lock);
	locked = 0;

	/* the attachments become public; then the Bugzilla bug, so the mail
	 * can link it */
	if ((st = fd_publish(fd, id, atts, natts, &err)))
		goto db_fail;
	if (!(mid = fd_report_mid(fd, id, token, ""))) {
		st = bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
		goto db_fail;
	}
	if (fd->cfg->frontdoor_create_bugs && fd->bz && bug_id == 0) {
		struct buf text = BUF_INIT;
		char *link = fd_mail_link(fd, mid);

		fd_report_text(fd, &text, description, kernel, regression, name, email, atts,
			       natts, 0);
		st = link ? fd_file_bug(fd, id, product, component, version, severity, title,
					text.data ? text.data : "", link, &bug_id, &bz_problem, &err)
			  : bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
		buf_release(&text);
		free(link);
		if (st)
			goto db_fail;
	}

	/* whom the report goes to */
	memset(&bug, 0, sizeof(bug));
	bug.id = id;
	bug.summary = title;
	bug.product = product;
	bug.component = component;
	bug.status = bug.resolution = bug.severity = bug.priority = bug.version = bug.url = empty;
	bug.creator.login = bug.creator.real_name = empty;
	bug.assigned_to.login = bug.assigned_to.real_name = empty;
	bug.keywords = bug.groups = bug.cc = no_words;
	if ((st = router_route(fd->router, &bug, &rr, &err)))
		goto db_fail;
	for (n = 0; rr.to && rr.to[n]; n++)
		;
	for (k = 0; rr.cc && rr.cc[k]; k++)
		;
	recipients = calloc(n + k + 2, sizeof(*recipients));
	cc = calloc(k + 2, sizeof(*cc));
	cc_self = strdup(email);
	lists = route_result_describe(&rr);
	if (!recipients || !cc || !cc_self || !lists) {
		st = bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
		goto db_fail;
	}
	for (size_t i = 0; i < n; i++)
		recipients[i] = rr.to[i];
	for (size_t i = 0; i < k; i++)
		recipients[n + i] = cc[i] = rr.cc[i];
	recipients[n + k] = cc_self;

	fd_report_text(fd, &body, description, kernel, regression, name, email, atts, natts,
		       bug_id);
	subject = str_printf("%s%s", *regression ? "[REGRESSION] " : "", title);
	if (!subject) {
		st = bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
		goto db_fail;
	}
	if ((st = fd_compose(fd, mid, subject, rr.to, cc, name, email, body.data, &mail, &err)))
		goto db_fail;
	pthread_mutex_lock(&fd->core->lock);
	locked = 1;
	if ((st = store_begin(fd->core->db, &err)))
		goto db_fail;
	in_tx = 1;
	if ((st = outbox_add(fd->core->db, mid, bug_id, 0, fd->cfg->mail_from, recipients, mail.data,
			     mail.len, &err)))
		goto db_fail;
	if ((st = store_prepare(fd->core->db, &q, "UPDATE fd_report SET state = 'sent', message_id = ?2 "
				"WHERE id = ?1", &err)))
		goto db_fail;
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_text(q, 2, mid, -1, SQLITE_STATIC);
	if (sqlite3_step(q) != SQLITE_DONE) {
		st = store_fail(fd->core->db, &err, "marking a report sent");
		goto db_fail;
	}
	sqlite3_finalize(q);
	q = NULL;
	in_tx = 0;
	if ((st = store_commit(fd->core->db, &err)))
		goto db_fail;
	pthread_mutex_unlock(&fd->core->lock);
	locked = 0;
	fd_wake_deliverer(fd);
	log_event(LOG_LEVEL_INFO, "frontdoor.confirmed", LF_INT("report", id),
		  LF_STR("message_id", mid), LF_INT("bug", bug_id));

	fd_page_start(&page, "Report sent");
	buf_addstr(&page, "<p>Thank you.  Your report <em>");
	frontdoor_escape(&page, title);
	buf_addstr(&page, "</em> was sent to ");
	frontdoor_escape(&page, lists);
	buf_addstr(&page, " as <code>");
	frontdoor_escape(&page, mid);
	buf_addstr(&page, "</code>.  Replies reach you by mail.</p>\n");
	if (bug_id > 0 && fd->cfg->bz_url) {
		buf_addstr(&page, "<p>It is <a id=\"bug\" href=\"");
		frontdoor_escape(&page, fd->cfg->bz_url);
		buf_addf(&page, "/show_bug.cgi?id=%lld\">bug %lld</a> in Bugzilla.</p>\n", bug_id,
			 bug_id);
	}
	if (bz_problem) {
		buf_addstr(&page, "<p class=\"error\">");
		frontdoor_escape(&page, bz_problem);
		buf_addstr(&page, "</p>\n");
	}
	fd_page_end(&page);
	ret = fd_queue(conn, MHD_HTTP_OK, logged, "text/html; charset=utf-8", &page, NULL, NULL);
	goto out;

db_fail:
	if (q)
		sqlite3_finalize(q);
	if (in_tx)
		store_rollback(fd->core->db);
	if (locked)
		pthread_mutex_unlock(&fd->core->lock);
	locked = 0;
	log_event(LOG_LEVEL_ERROR, "frontdoor.confirm_failed", LF_INT("report", id),
		  LF_STR("error", err.message));
	ret = fd_message_page(conn, st == BB_ERR_NOT_FOUND ? MHD_HTTP_INTERNAL_SERVER_ERROR
				    : st == BB_ERR_BUSY ? MHD_HTTP_SERVICE_UNAVAILABLE
				    : MHD_HTTP_INTERNAL_SERVER_ERROR, logged, "Not sent yet",
			      st == BB_ERR_NOT_FOUND ? "Something the report needs is missing "
			      "(a mailing list or an attachment); the administrators were told."
			      : "The report could not be sent right now; open the link again "
			      "later.", NULL, NULL);
out:
	if (locked)
		pthread_mutex_unlock(&fd->core->lock);
	route_result_release(&rr);
	fd_atts_free(atts, natts);
	buf_release(&body);
	buf_release(&mail);
	buf_release(&page);
	free(recipients);
	free(cc);
	free(cc_self);
	free(lists);
	free(mid);
	free(subject);
	free(email);
	free(name);
	free(title);
	free(description);
	free(kernel);
	free(regression);
	free(product);
	free(component);
	free(version);
	free(severity);
	free(state);
	return ret;
}

/* ------------------------------------------------------------ settings */

static void fd_view_free(struct fd_view *v)
{
	if (!v)
		return;
	if (v->release)
		v->release(v->owner);
	free(v->base_url);
	free(v->origin);
	free(v);
}

/* The view current now, with a reference for the caller. */
static struct fd_view *fd_view_get(struct frontdoor *core)
{
	struct fd_view *v;

	pthread_mutex_lock(&core->view_lock);
	v = core->view;
	v->refs++;
	pthread_mutex_unlock(&core->view_lock);
	return v;
}

static void fd_view_put(struct fd_view *v)
{
	int last;

	if (!v)
		return;
	pthread_mutex_lock(&v->core->view_lock);
	last = --v->refs == 0;
	pthread_mutex_unlock(&v->core->view_lock);
	if (last)
		fd_view_free(v);
}

enum bb_status frontdoor_check(const struct frontdoor_options *opt, struct bb_error *err)
{
	const char *base = opt->cfg->frontdoor_base_url ? opt->cfg->frontdoor_base_url
						       : opt->cfg->blob_base_url;
	char *origin;

	if (!opt->cfg->frontdoor_enabled)
		return BB_OK;
	if (opt->cfg->frontdoor_create_bugs && !opt->bz)
		return bb_error_set(err, BB_ERR_CONFIG, "[frontdoor] create_bugs needs [bugzilla] url");
	if (!base || !*base)
		return bb_error_set(err, BB_ERR_CONFIG, "[frontdoor] base_url is not set");
	if (!(origin = http_url_origin(base)))
		return bb_error_set(err, BB_ERR_CONFIG, "[frontdoor] base_url \"%s\" is no http(s) URL", base);
	free(origin);
	return BB_OK;
}

/* A view of opt (checked with frontdoor_check()) with one reference.  On
 * failure the configuration stays with the caller. */
static enum bb_status fd_view_new(struct fd_view **out, struct frontdoor *core,
				  const struct frontdoor_options *opt, struct bb_error *err)
{
	struct fd_view *v = NULL;
	const char *base;
	enum bb_status st;

	*out = NULL;
	if ((st = frontdoor_check(opt, err)))
		return st;
	base = opt->cfg->frontdoor_base_url ? opt->cfg->frontdoor_base_url : opt->cfg->blob_base_url;
	if (!opt->cfg->frontdoor_enabled && !base)
		base = ""; /* a view only the delivery thread uses */
	v = calloc(1, sizeof(*v));
	if (!v || !(v->base_url = strdup(base)) ||
	    !(v->origin = opt->cfg->frontdoor_enabled ? http_url_origin(base) : strdup(""))) {
		if (v) {
			free(v->base_url);
			free(v);
		}
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	while (*v->base_url && v->base_url[strlen(v->base_url) - 1] == '/')
		v->base_url[strlen(v->base_url) - 1] = '\0';
	v->core = core;
	v->refs = 1;
	v->cfg = opt->cfg;
	v->router = opt->router;
	v->bz = opt->bz;
	v->max_upload = opt->max_upload_size;
	v->matcher = opt->matcher;
	v->release = opt->release;
	v->owner = opt->owner;
	*out = v;
	return BB_OK;
}

enum bb_status frontdoor_update(struct frontdoor *fd, const struct frontdoor_options *opt,
				struct bb_error *err)
{
	struct fd_view *fresh, *old;
	enum bb_status st;

	if ((st = fd_view_new(&fresh, fd, opt, err)))
		return st;
	pthread_mutex_lock(&fd->view_lock);
	old = fd->view;
	fd->view = fresh;
	pthread_mutex_unlock(&fd->view_lock);
	fd_view_put(old);
	return BB_OK;
}

/* ------------------------------------------------------------ dispatch */

static int fd_claims(void *cls, const char *path, const char *method)
{
	(void)cls;
	(void)method;
	return !strcmp(path, "/") || !strcmp(path, "/report") || !strcmp(path, "/bugs") ||
	       !strncmp(path, "/bugs/", 6) || !strncmp(path, "/bug/", 5) ||
	       !strncmp(path, "/confirm/", 9) || !strcmp(path, "/frontdoor.css") ||
	       !strcmp(path, "/triage");
}

struct fd_state {
	struct fd_view *view;       /* the settings it began with (a reference) */
	struct fd_request req;
	struct fd_iter_ctx ctx;
	int answered;
	struct triage_request *triage; /* /triage (web/triage_page.h) */
};

static int fd_handle(void *cls, struct MHD_Connection *conn, const char *path,
		     const char *method, const char *client, const char *upload_data,
		     size_t *upload_data_size, void **state, unsigned *status)
{
	struct frontdoor *core = cls;
	struct fd_state *s = *state;
	struct fd_view *fd = s ? s->view : NULL;
	int first = !s;
	int get = !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
	int post = !strcmp(method, MHD_HTTP_METHOD_POST);
	struct buf b = BUF_INIT;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return MHD_NO;
		*state = s;
		s->view = fd = fd_view_get(core);
		snprintf(s->req.client, sizeof(s->req.client), "%s", client);
		http_guard_budget_key(s->req.client, s->req.budget_key, sizeof(s->req.budget_key));
		for (size_t i = 0; i < FD_NFIELDS; i++)
			buf_init_capped(&s->req.fields[i], fd_fields[i].cap);
		s->ctx.fd = fd;
		s->ctx.r = &s->req;
	}
	if (!strcmp(path, "/triage")) {
		struct triage_page_env env = { fd->cfg, fd->matcher, core->db, &core->lock,
					       fd->origin, s->req.budget_key, s->req.client };

		return triage_page_handle(&env, conn, method, upload_data, upload_data_size,
					  &s->triage, status);
	}
	if (first) {
		if (!strcmp(path, "/report") && post) {
			s->req.kind = FD_REQ_SUBMIT;
			if (fd_submit_begin(fd, conn, &s->req, &s->ctx, status) != MHD_YES)
				return MHD_NO;
			if (*status)
				s->answered = 1;
			return MHD_YES;
		}
		if (post && !strncmp(path, "/confirm/", 9) && !fd_origin_ok(fd, conn)) {
			s->answered = 1;
			return fd_cross_origin(conn, &s->req, status);
		}
		if (!get && !(post && !strncmp(path, "/confirm/", 9))) {
			s->answered = 1;
			return fd_message_page(conn, MHD_HTTP_METHOD_NOT_ALLOWED, status,
					       "Method not allowed", "Use GET here (POST for "
					       "/report and /confirm/).", MHD_HTTP_HEADER_ALLOW,
					       !strcmp(path, "/report") || !strncmp(path, "/confirm/", 9)
					       ? "GET, HEAD, POST" : "GET, HEAD");
		}
		return MHD_YES; /* GET (or the confirming POST) answers on the next call */
	}
	if (s->answered) {
		/* a body after an early answer: dropped */
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (*upload_data_size) {
		size_t n = *upload_data_size;

		*upload_data_size = 0;
		s->req.received += n;
		if (s->req.kind == FD_REQ_SUBMIT && s->req.received > s->req.byte_allowance)
			fd_fail(&s->req, MHD_HTTP_TOO_MANY_REQUESTS,
				"Your address sent more data today than this server takes from "
				"one address.  Please try again later.");
		if (s->req.kind != FD_REQ_SUBMIT || s->req.fail_http) {
			s->req.discarded += n;
			return s->req.discarded > FD_DISCARD_MAX ? MHD_NO : MHD_YES;
		}
		if (MHD_post_process(s->req.pp, upload_data, n) != MHD_YES)
			fd_fail(&s->req, MHD_HTTP_BAD_REQUEST, "the form data was malformed");
		return MHD_YES;
	}
	s->answered = 1;
	if (s->req.kind == FD_REQ_SUBMIT)
		return fd_submit_finish(fd, conn, &s->req, status);
	if (!strcmp(path, "/") || !strcmp(path, "/report"))
		return fd_send_form(fd, conn, status);
	if (!strcmp(path, "/bugs") || !strncmp(path, "/bugs/", 6) || !strncmp(path, "/bug/", 5)) {
		struct bugpages_env env = { fd->cfg, core->db, &core->lock, core->blobs,
					    fd->base_url };

		return bugpages_handle(&env, conn, path, status);
	}
	if (!strncmp(path, "/confirm/", 9) && post)
		return fd_confirm(fd, conn, path + 9, status);
	if (!strncmp(path, "/confirm/", 9) && strcmp(method, MHD_HTTP_METHOD_GET))
		/* HEAD (link checkers) learns nothing */
		return fd_message_page(conn, MHD_HTTP_OK, status, "Confirm your report",
				       "Open this link in a browser to confirm.", NULL, NULL);
	if (!strncmp(path, "/confirm/", 9))
		return fd_confirm_page(fd, conn, path + 9, status);
	buf_addstr(&b, fd_page_css);
	return fd_queue(conn, MHD_HTTP_OK, status, "text/css; charset=utf-8", &b, NULL, NULL);
}

static void fd_completed(void *cls, void *state)
{
	struct fd_state *s = state;
	struct fd_view *fd = s ? s->view : NULL;

	(void)cls;
	if (!s)
		return;
	if (s->req.pp)
		MHD_destroy_post_processor(s->req.pp);
	if (s->req.writer)
		quarantine_writer_abort(s->req.writer);
	fd_budget_settle(fd, &s->req);
	triage_request_free(s->triage);
	for (size_t i = 0; i < FD_NFIELDS; i++)
		buf_release(&s->req.fields[i]);
	for (size_t i = 0; i < s->req.nuploads; i++) {
		/* files no stored report took: a refused form leaves nothing */
		quarantine_file_discard(&s->req.uploads[i].file);
		free(s->req.uploads[i].name);
		free(s->req.uploads[i].declared_type);
	}
	free(s->req.part_name);
	free(s->req.part_type);
	free(s);
	fd_view_put(fd);
}

/* ------------------------------------------------------------ delivery */

/* Expires unconfirmed reports past the confirmation window (their
 * quarantined attachments are removed), and forgets budget rows older than
 * a day; on the delivery thread's connection. */
static void fd_sweep(struct frontdoor *fd, const struct fd_view *v, time_t now)
{
	struct bb_error err = BB_ERROR_INIT;
	sqlite3_stmt *q = NULL, *u = NULL;
	long long cutoff = (long long)now - v->cfg->frontdoor_confirm_window;
	unsigned long expired = 0;

	if (store_prepare(fd->deliver_db, &q, "SELECT id FROM fd_report WHERE state = "
			  "'unconfirmed' AND created < ?1 ORDER BY id LIMIT 1000", &err) ||
	    store_prepare(fd->deliver_db, &u, "UPDATE fd_report SET state = 'expired' WHERE "
			  "id = ?1 AND state = 'unconfirmed'", &err))
		goto out;
	sqlite3_bind_int64(q, 1, cutoff);
	while (sqlite3_step(q) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(q, 0);

		sqlite3_reset(u);
		sqlite3_bind_int64(u, 1, id);
		/* a confirmation that came first keeps the files */
		if (sqlite3_step(u) != SQLITE_DONE || sqlite3_changes(fd->deliver_db->db) != 1)
			continue;
		if (quarantine_remove_report(fd->quarantine, id, &err))
			log_event(LOG_LEVEL_WARN, "frontdoor.expire_failed", LF_INT("report", id),
				  LF_STR("error", err.message));
		expired++;
	}
	if (expired)
		log_event(LOG_LEVEL_INFO, "frontdoor.expired", LF_UINT("reports", expired));
	store_exec(fd->deliver_db, "DELETE FROM fd_budget WHERE time < strftime('%s', 'now') - 86400",
		   NULL);
	quarantine_remove_stale(fd->quarantine, now - 86400);
out:
	if (q)
		sqlite3_finalize(q);
	if (u)
		sqlite3_finalize(u);
	if (err.code)
		log_event(LOG_LEVEL_WARN, "frontdoor.sweep_failed", LF_STR("error", err.message));
}

/* The delivery thread: woken when a request queued a mail (and every
 * FD_SWEEP_INTERVAL seconds, for deferred mail and expiry), it delivers
 * the outbox on its own database connection, so no request waits for a
 * mail server. */
static void *fd_deliverer_main(void *arg)
{
	struct frontdoor *fd = arg;

	pthread_mutex_lock(&fd->wake_lock);
	while (!fd->stopping) {
		struct bb_error err = BB_ERROR_INIT;
		struct outbox_options oopt;
		struct outbox_stats stats;
		struct fd_view *v;

		if (!fd->wake_pending) {
			struct timespec until;

			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_sec += FD_SWEEP_INTERVAL;
			pthread_cond_timedwait(&fd->wake, &fd->wake_lock, &until);
			continue;
		}
		fd->wake_pending = 0;
		pthread_mutex_unlock(&fd->wake_lock);
		/* the settings of the moment, for this round */
		v = fd_view_get(fd);
		sync_outbox_options(v->cfg, &oopt);
		memset(&stats, 0, sizeof(stats));
		if (outbox_deliver(fd->deliver_db, &oopt, time(NULL), &stats, &err))
			log_event(LOG_LEVEL_WARN, "frontdoor.deliver_failed",
				  LF_STR("error", err.message));
		fd_sweep(fd, v, time(NULL));
		fd_view_put(v);
		pthread_mutex_lock(&fd->wake_lock);
	}
	pthread_mutex_unlock(&fd->wake_lock);
	return NULL;
}

/* ------------------------------------------------------------ lifecycle */

enum bb_status frontdoor_new(struct frontdoor **out, const struct frontdoor_options *opt,
			     struct bb_error *err)
{
	struct frontdoor *fd = NULL;
	char *db_path = NULL, *quarantine_path = NULL;
	enum bb_status st = BB_OK;
	int c;

	*out = NULL;
	if ((st = frontdoor_check(opt, err)))
		goto out;
	fd = calloc(1, sizeof(*fd));
	if (!fd) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	fd->blobs = opt->blobs;
	pthread_mutex_init(&fd->view_lock, NULL);
	pthread_mutex_init(&fd->lock, NULL);
	pthread_mutex_init(&fd->bz_lock, NULL);
	pthread_mutex_init(&fd->wake_lock, NULL);
	{
		pthread_condattr_t attr;

		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&fd->wake, &attr);
		pthread_condattr_destroy(&attr);
	}
	if ((st = fd_view_new(&fd->view, fd, opt, err)))
		goto out;
	db_path = config_data_path(opt->cfg, "bugbridge.db");
	quarantine_path = config_data_path(opt->cfg, "quarantine");
	if (!db_path || !quarantine_path) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = store_open(&fd->db, db_path, STORE_READ_WRITE, err)) ||
	    (st = store_open(&fd->deliver_db, db_path, STORE_READ_WRITE, err)) ||
	    (st = quarantine_open(&fd->quarantine, quarantine_path, err)))
		goto out;
	fd->wake_pending = 1; /* a first round at once: what an earlier run left queued */
	if ((c = pthread_create(&fd->deliverer, NULL, fd_deliverer_main, fd)) != 0) {
		st = bb_error_errno(err, c, "starting the front door's delivery thread");
		goto out;
	}
	fd->deliverer_running = 1;
	fd->site.cls = fd;
	fd->site.claims = fd_claims;
	fd->site.handle = fd_handle;
	fd->site.completed = fd_completed;
	mail_init();
	*out = fd;
	fd = NULL;
out:
	free(db_path);
	free(quarantine_path);
	if (fd && fd->view)
		fd->view->release = NULL; /* a failure leaves the configuration to the caller */
	frontdoor_free(fd);
	return st;
}

const struct blob_server_site *frontdoor_site(struct frontdoor *fd)
{
	return fd ? &fd->site : NULL;
}

void frontdoor_free(struct frontdoor *fd)
{
	if (!fd)
		return;
	if (fd->deliverer_running) {
		/* a delivery under way ends first (bounded by [smtp] timeout) */
		pthread_mutex_lock(&fd->wake_lock);
		fd->stopping = 1;
		pthread_cond_signal(&fd->wake);
		pthread_mutex_unlock(&fd->wake_lock);
		pthread_join(fd->deliverer, NULL);
	}
	if (fd->db)
		store_close(fd->db);
	if (fd->deliver_db)
		store_close(fd->deliver_db);
	quarantine_close(fd->quarantine);
	pthread_mutex_destroy(&fd->lock);
	pthread_mutex_destroy(&fd->bz_lock);
	pthread_mutex_destroy(&fd->wake_lock);
	pthread_cond_destroy(&fd->wake);
	if (fd->view)
		fd_view_put(fd->view);
	pthread_mutex_destroy(&fd->view_lock);
	free(fd);
}
