/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The front door of `bugbridge serve`: a form to file a report, and pages
 * to browse the bugs bugbridge knows (imported and mirrored).
 *
 *   GET  / (or /report)       the form, with a plain notice that the report
 *                             will be public
 *   POST /report              multipart/form-data: name, email, title,
 *                             description, kernel_version, regression,
 *                             route, and any number of "attachment" files,
 *                             each streamed into the quarantine
 *                             (quarantine.h; never held in memory, never
 *                             served), at most max_upload_size each.  Its
 *                             Origin (or Referer) must be base_url's
 *                             origin (403).  The client's budgets
 *                             ([frontdoor] rate_limit an hour, day_limit
 *                             and day_bytes a day; refused forms count;
 *                             an IPv6 client is its /64) are reserved in
 *                             the database before a byte of the body is
 *                             read (429 with Retry-After).  Stores an
 *                             fd_report row (state unconfirmed, a random
 *                             token) and queues a mail to the filer's
 *                             bare address with a fixed subject and
 *                             <base_url>/confirm/<token>, unless that
 *                             address had confirm_limit such mails in
 *                             the last day (429); a refused form keeps
 *                             nothing.
 *   GET  /confirm/<token>     a page with a button (POST, origin checked)
 *                             that confirms: the attachments move into the
 *                             blob store, the Bugzilla bug is optionally
 *                             filed ([frontdoor] create_bugs), the report
 *                             mail is queued to the routed lists
 *                             (Message-ID report-<id>@<mail domain>;
 *                             attachments as sha256 lines with their blob
 *                             URL, never MIME parts).  Following the link
 *                             again changes nothing; after confirm_window
 *                             the report expires and its files are removed.
 *   GET  /bugs?status=&component=&regression=yes|no&q=
 *                             imported (imp_bug) and mirrored (bz_bug) bugs;
 *                             q searches summaries and public comments
 *   GET  /bugs/<list>.atom    a list's bugs as an Atom feed
 *   GET  /bug/<id>            one bug, its public comments and attachment
 *                             links; restricted bugs are not found
 *                             (these three: web/bugpages.h)
 *   GET  /frontdoor.css       the style sheet
 *
 * Every text from users or Bugzilla goes through g_markup_escape_text()
 * (attributes too); every page carries Content-Security-Policy
 * "default-src 'self'; script-src 'none'", X-Content-Type-Options: nosniff
 * and Referrer-Policy: same-origin (the confirmation link holds a secret;
 * same-origin rather than no-referrer, since with no-referrer browsers
 * send "Origin: null" on the form's POST).  Error pages show fixed text;
 * details (paths, errno) go to the log.
 *
 * The front door opens its own connections to the state database: one
 * the server's threads share under a lock never held across network I/O,
 * and one for its delivery thread, which sends what the pages queue in the
 * outbox (no mail leaves from a request) and expires unconfirmed reports.
 * frontdoor_free() stops that thread (after the delivery under way).
 */
#ifndef BB_FRONTDOOR_H
#define BB_FRONTDOOR_H

#include <stdint.h>

#include "attachments/blob.h"
#include "bridge/route.h"
#include "bugzilla/bz_client.h"
#include "config/conf.h"
#include "core/buf.h"
#include "core/status.h"
#include "triage/match.h"
#include "web/blob_http.h"
/* frontdoor_escape(), the pages' escaping */
#include "web/fd_page.h"

struct frontdoor_options {
	const struct bb_config *cfg;  /* must outlive the front door */
	struct blob_store *blobs;     /* not owned */
	const struct router *router;  /* not owned */
	struct bz_client *bz;         /* not owned; NULL: no bugs are filed */
	uint64_t max_upload_size;     /* per attachment; 0: none */
	/* MAINTAINERS' sections for /triage (web/triage_page.h), kept by the
	 * caller like cfg; NULL: that page is not served */
	const struct tri_matcher *matcher;
	/* Called (in whichever thread lets go last, so it must not block)
	 * once nothing uses cfg, router and bz any more: after the last
	 * request that began with them, once frontdoor_update() replaced them
	 * or frontdoor_free() ran.  NULL: the caller keeps them until
	 * frontdoor_free() returns. */
	void (*release)(void *owner);
	void *owner;
};

struct frontdoor;

/* Opens the front door (its own database connection under cfg's
 * data_dir).  BB_ERR_CONFIG when create_bugs is on without a Bugzilla
 * client, or no base URL is known.  Free with frontdoor_free(). */
enum bb_status frontdoor_new(struct frontdoor **out, const struct frontdoor_options *opt,
			     struct bb_error *err);
/* BB_ERR_CONFIG if frontdoor_new() or frontdoor_update() would refuse opt
 * (create_bugs without a client, no base URL); BB_OK for a configuration
 * with the front door disabled. */
enum bb_status frontdoor_check(const struct frontdoor_options *opt, struct bb_error *err);
/* Switches the front door to opt's configuration, router, client and
 * limits (opt->blobs and the data folder stay the ones it opened with).
 * Requests in flight keep what they began with; the next ones, and the
 * delivery thread's next round, use these.  Safe against the server's
 * threads.  On failure the old ones stay, and opt's stay with the caller.
 * With [frontdoor] disabled in opt->cfg only the delivery thread uses it. */
enum bb_status frontdoor_update(struct frontdoor *fd, const struct frontdoor_options *opt,
				struct bb_error *err);
/* The pages for blob_server_options.site; valid as long as fd. */
const struct blob_server_site *frontdoor_site(struct frontdoor *fd);
void frontdoor_free(struct frontdoor *fd);

#endif
