/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "Where do I report this?": the page /triage of the front door (issue
 * 34, item 6).
 *
 *   GET  /triage    a form with one text area: an oops, a dmesg excerpt,
 *                   a module name or a source path
 *   POST /triage    (application/x-www-form-urlencoded or multipart,
 *                   field "text"; Origin or Referer the front door's own)
 *                   the MAINTAINERS sections the text points at, ranked
 *                   (triage/match.h), each with its lists, maintainers,
 *                   reviewers, status, where it wants bug reports (B:) and
 *                   the reason; the hints of the triage block (kernel,
 *                   a distribution build, taint, machine, firmware, the
 *                   first oops: triage/block.h); each crash's signature
 *                   and the open public bugs and tracked regressions of
 *                   the same crash (tracker/samecrash.h), linked to their
 *                   /bug/ID pages
 *
 * Served when the front door is enabled and [routing] maintainers_file is
 * set (404 otherwise).  Nothing pasted is stored or logged: the text lives
 * in the request's memory and is freed with it; the log and the database
 * see only the client's budget row.  A text past [frontdoor]
 * triage_max_size is refused (413) without being read further; each POST
 * counts against the client's own budget ([frontdoor] triage_rate_limit
 * an hour, key "triage:" and the client's budget key in fd_budget, apart
 * from the report form's), 429 with Retry-After past it.  The page has no
 * script; every text is escaped (frontdoor_escape()) and it carries the
 * front door's headers (strict CSP, nosniff, no framing, no-store). */
#ifndef BB_WEB_TRIAGE_PAGE_H
#define BB_WEB_TRIAGE_PAGE_H

#include <pthread.h>
#include <stddef.h>

#include <microhttpd.h>

#include "config/conf.h"
#include "core/buf.h"
#include "core/store.h"
#include "triage/match.h"
/* the front door's page helpers, shared with this page */
#include "web/fd_page.h"

/* What the front door lends the page for one request. */
struct triage_page_env {
	const struct bb_config *cfg;
	const struct tri_matcher *matcher;  /* NULL: not served (404) */
	struct store *db;                   /* the front door's request connection */
	pthread_mutex_t *db_lock;           /* guards db */
	const char *origin;                 /* scheme://host[:port] of the base URL */
	const char *budget_key;             /* the client's (http_guard_budget_key()) */
	const char *client;                 /* for the log (never the text) */
};

struct triage_request;

/* MHD's access handler for /triage, every call of the request; *req is
 * the request's state (NULL at first; free with triage_request_free()).
 * Returns MHD_YES or MHD_NO; *status gets the HTTP status queued. */
enum MHD_Result triage_page_handle(const struct triage_page_env *env,
				   struct MHD_Connection *conn, const char *method,
				   const char *upload_data, size_t *upload_data_size,
				   struct triage_request **req, unsigned *status);
void triage_request_free(struct triage_request *req);

#endif
