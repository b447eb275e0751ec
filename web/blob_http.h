/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Folder web/: the HTTP face, bugbridge serve: the server with the blob routes,
 * uploads and the regression pages (this header) and the front door
 * (frontdoor.h).  It may use every folder below it; no folder below knows
 * the server.
 *
 * HTTP access to the blob store, served with libmicrohttpd.
 *
 *   GET|HEAD /blob/sha256/<hex>[/<filename>]
 *       The blob, streamed from its file (sendfile; memory does not grow with
 *       size), with ETag "sha256:<hex>", Cache-Control immutable, Accept-Ranges
 *       and single Range requests (206/416), If-None-Match (304),
 *       X-Content-Type-Options: nosniff and Content-Security-Policy:
 *       default-src 'none'; sandbox.  Only a short list of inert types
 *       (text/plain, PNG, JPEG, GIF, WebP) keeps its type and is inline;
 *       everything else (HTML, SVG, XML, JSON, JavaScript, PDF, unknown…) is
 *       sent as application/octet-stream with Content-Disposition:
 *       attachment, so no browser runs or renders it.
 *   POST /upload[?name=FILE], PUT /upload[/FILE]
 *       Raw body (or multipart/form-data for POST), with
 *       "Authorization: Bearer <server.upload_token>"; streamed into the blob
 *       store; answers 201 (or 200 if already stored) with JSON
 *       {"hash":"sha256:…","size":N,"url":"…","content_type":"…"}.
 *
 *   GET|HEAD /regressions/[<file>]
 *       The regression tracker's reports (tracker/report.h), read-only, from
 *       reports_dir: index.html, trees/<name>.html, regression/<id>.html,
 *       regressions.json, changes.atom, weekly.txt, style.css, each with its
 *       content type, Cache-Control: no-cache and a Content-Security-Policy
 *       that allows no script.  Only names reg_report_file() accepts are
 *       looked up, and never through a symbolic link.
 *
 * Connections are bounded (web/http_guard.h): in total, per client, and in
 * the time a request's headers may take; past the total, 503.  The request
 * log never holds a query, nor the token of a /confirm/<token> path.
 *
 * Every error is a JSON body {"error":"<status name>","message":"…"} with a
 * fitting status: 400 malformed hash or path, 401 wrong or missing token,
 * 403 uploads disabled, 404, 405, 413 too large, 416, 507 disk full.
 */
#ifndef BB_BLOB_HTTP_H
#define BB_BLOB_HTTP_H

#include <stdint.h>

#include "attachments/blob.h"
#include "core/status.h"

struct blob_server_options {
	const char *listen;        /* "address:port"; port 0 picks a free port */
	const char *upload_token;  /* NULL: uploads answer 403 */
	uint64_t max_upload_size;  /* bytes */
	unsigned threads;          /* a pool of worker threads; 0: one per connection */
	const char *reports_dir;   /* served under /regressions/; NULL: not served */
	const struct blob_server_site *site; /* more pages (web/frontdoor.h); NULL: none */
	unsigned max_connections;  /* at once; past it 503 (web/http_guard.h); 0: MHD's */
	unsigned max_per_client;   /* per peer address, trusted proxies exempt; 0: none */
	unsigned header_timeout;   /* seconds to send a request's headers; 0: none */
	unsigned body_timeout;     /* idle seconds once they are in; 0: 120 */
	uint64_t min_body_rate;    /* bytes a second a body must average once it
				    * has taken 10 s (web/http_guard.h); 0: none */
	const char *trusted_proxies; /* "ADDR[/BITS],...": X-Forwarded-For believed */
};

struct blob_server;
struct MHD_Connection;

/* Pages served besides the blobs (the front door, web/frontdoor.h).  For
 * a request whose path (raw, escapes kept, without the query) claims()
 * accepts, every call of MHD's access handler goes to handle() instead,
 * with the client's numeric address (the peer's, or behind a trusted proxy
 * the one X-Forwarded-For names: web/http_guard.h), and *state (NULL at first) for the
 * site's own per-request data; handle() returns MHD_YES or MHD_NO and sets
 * *status to the HTTP status it queued, for the log.  completed() is
 * called once at the end of such a request with the state (which may be
 * NULL).  The functions run in the server's worker threads. */
struct blob_server_site {
	void *cls;
	int (*claims)(void *cls, const char *path, const char *method);
	int (*handle)(void *cls, struct MHD_Connection *conn, const char *path,
		      const char *method, const char *client, const char *upload_data,
		      size_t *upload_data_size, void **state, unsigned *status);
	void (*completed)(void *cls, void *state);
};

/* Starts serving bs (not owned; must outlive the server) in background
 * threads.  BB_ERR_INVALID for a bad listen address, BB_ERR_IO if it cannot
 * bind. */
enum bb_status blob_server_start(struct blob_server **out, struct blob_store *bs,
				 const struct blob_server_options *opt,
				 struct bb_error *err);
/* Switches a running server to the settings of opt that may change while
 * it serves: upload_token, max_upload_size, reports_dir, site,
 * body_timeout and min_body_rate (the rest needs a new server).  Requests in flight keep the
 * settings they began with; the next ones get these.  Safe against the
 * worker threads; call it from one thread at a time.  BB_ERR_NOMEM leaves
 * the old settings in effect. */
enum bb_status blob_server_update(struct blob_server *srv, const struct blob_server_options *opt,
				  struct bb_error *err);
/* The port actually bound (useful with port 0). */
unsigned blob_server_port(const struct blob_server *srv);
/* Stops accepting, lets requests in flight finish, and frees srv. */
void blob_server_stop(struct blob_server *srv);

#endif
