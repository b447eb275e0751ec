/* SPDX-License-Identifier: GPL-2.0-or-later */
/* HTTP access to the blob store, served with libmicrohttpd (blob_http.h).
 *
 * Choices the header leaves open, made here:
 *
 *  - MHD is given an unescape callback that leaves URLs alone, so this file
 *    sees the raw path and decides itself what "%2e%2e", "%2f" or "%00"
 *    mean (the readers of paths and headers are in web/http_text.c).  The
 *    hash segment must be exactly 64 hex digits with no escape in it;
 *    upper-case digits are accepted and folded to lower case (ETags, URLs
 *    and logs always use lower case).  The optional file name segment
 *    is percent-decoded and only ever used in Content-Disposition.
 *  - A path that holds a dot segment ("." or "..", raw or escaped, anywhere),
 *    a backslash, a NUL or another control character, or a bad escape, is
 *    refused with 400 whatever it names.  ".." inside a name ("v1..2.log")
 *    is harmless here and allowed, since blob_url() makes such URLs.
 *  - Uploads are checked (method, token, Content-Length) before a byte of
 *    the body is read, so those refusals need no body at all.  MHD 0.9.x
 *    cannot answer while a body is still arriving, so a failure found while
 *    it streams (the size limit passed by a chunked body, a full disk) aborts
 *    the writer at once, then drops the rest of the body (at most
 *    BLOB_SERVER_DISCARD_MAX bytes; past that the connection is cut) and
 *    answers when it has ended.
 *  - The blob writer is only committed once MHD has the complete body; a
 *    request that ends any other way (client gone, short body, timeout,
 *    shutdown) aborts it in the completion callback: no blob, no metadata.
 *  - The token is kept only as its SHA-256; a presented token is hashed and
 *    the digests compared with CRYPTO_memcmp, so neither its bytes nor its
 *    length leak through timing.
 *  - blob_server_stop() stops accepting, waits up to
 *    BLOB_SERVER_DRAIN_SECONDS for requests in flight, then cuts the rest.
 *  - The worker threads use poll(), not epoll: with MHD 0.9.75's
 *    edge-triggered epoll a client that sends a partial body and its FIN in
 *    one go can go unnoticed until the connection times out, leaving the
 *    upload (and blob_server_stop()) hanging for that long.
 *  - With a pool (opt->threads, the default of bugbridge serve) threads
 *    share the connections; with 0 each connection has a thread of its own,
 *    bounded by the connection limits.  MHD 0.9.75 hands sendfile() at most
 *    128 KiB a call when one thread serves many connections (2 MiB with a
 *    thread per connection) and goes back to poll() between calls, so a
 *    pool sent a 1 MiB blob at 0.5-0.75x what nginx sends.  A blob up to
 *    BLOB_MAPS_MAX is therefore sent from a shared read-only mapping of its
 *    file (web/blob_maps.h): one send() takes what the socket takes.  With
 *    it a pool of one thread a core serves small, 1 MiB and large blobs
 *    faster than nginx (tests/bench/bench-serve.sh), where a thread per
 *    connection lagged for 1 MiB and context-switched for small ones.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <microhttpd.h>
#include <openssl/crypto.h>
#include <glib.h>
#include <openssl/evp.h>

#include "core/buf.h"
#include "core/log.h"
#include "tracker/report.h"
#include "web/blob_http.h"
#include "web/blob_maps.h"
#include "web/http_guard.h"
#include "web/http_text.h"

#define BLOB_SERVER_TIMEOUT_SECONDS 120u   /* idle request, unless told */
#define BLOB_SERVER_DRAIN_SECONDS 10       /* blob_server_stop() waits this long */
#define BLOB_SERVER_DISCARD_MAX (8u * 1024 * 1024)
#define BLOB_SERVER_POST_BUFFER 65536
#define BLOB_SERVER_LOG_PATH_MAX 512
#define BLOB_SERVER_CACHE_SLOTS 4096        /* metadata of the blobs served lately */
#define BLOB_SERVER_SMALL_MAX 65536u       /* blobs up to this are sent from memory */
#define BLOB_SERVER_XFF_MAX 4096           /* bytes of X-Forwarded-For read */
#define BLOB_SERVER_HOT_SLOTS 256          /* whole answers kept for small blobs */
#define BLOB_SERVER_HOT_MAX 16384u         /* blobs up to this may have one */

static const char blob_server_csp[] = "default-src 'none'; sandbox";
/* the reports' pages: no script, their style sheet from the same place */
static const char blob_server_report_csp[] = "default-src 'none'; style-src 'self'; "
					     "img-src 'self'; base-uri 'none'; "
					     "form-action 'none'; frame-ancestors 'none'";
static const char blob_server_immutable[] = "public, max-age=31536000, immutable";
static const char blob_server_index[] = "bugbridge blob server\n";

/* What a GET needs of a blob's metadata, kept so that a hit costs no
 * database read (a lookup locks and stats the database file and parses
 * SQL).  Blobs are immutable, so an entry never goes stale; a blob that
 * stops being served leaves the tree (gc, unpublish), and a hit whose file
 * is gone is dropped and asks the store again. */
struct blob_server_cached {
	char hash[BLOB_HEX_LEN + 1];   /* "" if the slot is empty */
	uint64_t size;
	char content_type[128];
};

/* The whole answer to a plain GET of a small blob (BLOB_SERVER_HOT_MAX),
 * as it was asked (with that file name, or none): its bytes and headers in
 * one MHD response that every such GET queues again, where a GET would
 * otherwise open, fstat, read and close the file and build the headers
 * anew.  At most BLOB_SERVER_HOT_SLOTS, one per slot, the newest winning.
 * A hit still checks that the blob's file is there (one stat), so a blob
 * that leaves the tree (gc, unpublish) is no longer served. */
struct blob_server_hot {
	char hash[BLOB_HEX_LEN + 1];   /* "" if the slot is empty */
	char *name;                    /* the name it was asked with, NULL: none */
	uint64_t size;
	struct MHD_Response *resp;     /* the slot's reference */
};

/* What blob_server_update() may change while serving: each request takes
 * a reference to the settings current when it begins and keeps them to
 * its end; the last reference frees them. */
struct blob_server_conf {
	unsigned refs;              /* under blob_server.conf_lock */
	int uploads_enabled;
	unsigned char token_digest[EVP_MAX_MD_SIZE];
	unsigned int token_digest_len;
	uint64_t max_upload_size;   /* 0: no limit */
	char *reports_dir;          /* NULL: /regressions/ is not served */
	const struct blob_server_site *site; /* NULL: none */
	unsigned body_timeout;      /* seconds, once a request's headers are in */
	uint64_t min_body_rate;     /* bytes a second; 0: no floor */
};

struct blob_server {
	struct MHD_Daemon *daemon;
	pthread_mutex_t cache_lock;  /* guards cache */
	struct blob_server_cached cache[BLOB_SERVER_CACHE_SLOTS]; /* by the hash's first digits */
	pthread_mutex_t hot_lock;    /* guards hot */
	struct blob_server_hot hot[BLOB_SERVER_HOT_SLOTS];
	struct blob_maps *maps;      /* blobs sent from a mapping; NULL: none */
	struct blob_store *store;
	unsigned port;
	struct http_guard *guard;   /* connection bounds, trusted proxies */
	pthread_mutex_t conf_lock;  /* guards conf and every conf's refs */
	struct blob_server_conf *conf; /* the current settings (one reference) */

	pthread_mutex_t lock;       /* guards what follows */
	pthread_cond_t idle;        /* signalled when in_flight drops to 0 */
	unsigned long in_flight;    /* requests between first call and completion */
	int starting;               /* MHD messages go to start_error too */
	char start_error[256];
};

enum blob_request_kind {
	BLOB_REQUEST_SIMPLE,        /* everything but an accepted upload */
	BLOB_REQUEST_UPLOAD,        /* answered once the body is in */
	BLOB_REQUEST_SITE,          /* handed to srv->site */
};

enum blob_part_state {
	BLOB_PART_NONE,             /* no file field seen yet */
	BLOB_PART_FILE,             /* inside the file field being stored */
	BLOB_PART_DONE,             /* the file field has ended; rest ignored */
};

struct blob_request {
	struct blob_server *srv;
	struct blob_server_conf *conf; /* the settings it began with (a reference) */
	enum blob_request_kind kind;
	char method[16];
	char *path;                 /* for the log (MHD keeps the query apart) */
	char client[HTTP_GUARD_CLIENT_MAX]; /* the real client (http_guard_client()) */
	char peer[HTTP_GUARD_CLIENT_MAX];   /* the address connected to us */
	struct http_guard_conn *guard_conn; /* NULL: not watched */
	int head;
	int routed;                 /* blob_server_route() was called */
	const char *csp;            /* NULL: blob_server_csp */
	unsigned status;            /* HTTP status queued, 0 while none */
	uint64_t bytes_out;         /* body bytes of the answer */
	uint64_t bytes_in;          /* body bytes received */

	/* uploads */
	struct blob_writer *writer;
	struct MHD_PostProcessor *post;
	char *name;                 /* NULL if none */
	char *declared_type;        /* NULL if none */
	enum blob_part_state part_state;
	char *part_key;
	char *part_filename;
	uint64_t part_bytes;
	enum bb_status failure;     /* found while the body streamed */
	unsigned failure_http;
	char failure_message[256];
	uint64_t discarded;

	void *site_state;           /* BLOB_REQUEST_SITE: the site's own */
};

/* ------------------------------------------------------------ small helpers */

/* The range a GET asks of a file of size bytes whose ETag is etag: its
 * Range, unless an If-Range names another version (then the whole file). */
static enum http_range blob_server_range(struct MHD_Connection *conn, const char *etag,
					 uint64_t size, uint64_t *start, uint64_t *length,
					 const char **header)
{
	const char *if_range;

	*header = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_RANGE);
	if (!*header)
		return HTTP_RANGE_NONE;
	if_range = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_RANGE);
	if (if_range && !http_etag_equal(if_range, etag))
		return HTTP_RANGE_NONE;
	return http_parse_range(*header, size, start, length);
}

static const char *blob_server_termination_str(enum MHD_RequestTerminationCode toe)
{
	switch (toe) {
	case MHD_REQUEST_TERMINATED_COMPLETED_OK: return "ok";
	case MHD_REQUEST_TERMINATED_WITH_ERROR: return "error";
	case MHD_REQUEST_TERMINATED_TIMEOUT_REACHED: return "timeout";
	case MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN: return "shutdown";
	case MHD_REQUEST_TERMINATED_READ_ERROR: return "read-error";
	case MHD_REQUEST_TERMINATED_CLIENT_ABORT: return "client-abort";
	}
	return "unknown";
}

/* ---------------------------------------------------------------- answers */

/* Adds a header; on failure (out of memory, a value MHD refuses) clears *ok. */
static void blob_server_header(struct MHD_Response *resp, const char *name, const char *value,
			       int *ok)
{
	if (*ok && MHD_add_response_header(resp, name, value) != MHD_YES)
		*ok = 0;
}

/* Queues resp (always destroyed) with the headers every answer carries.
 * body_len is what the log reports.  MHD_NO closes the connection. */
static enum MHD_Result blob_server_queue(struct blob_request *req, struct MHD_Connection *conn,
					 unsigned status, struct MHD_Response *resp,
					 uint64_t body_len)
{
	enum MHD_Result ret = MHD_NO;
	int ok = 1;

	if (!resp)
		goto out;
	blob_server_header(resp, MHD_HTTP_HEADER_X_CONTENT_TYPE_OPTIONS, "nosniff", &ok);
	blob_server_header(resp, MHD_HTTP_HEADER_CONTENT_SECURITY_POLICY,
			   req->csp ? req->csp : blob_server_csp, &ok);
	if (!ok)
		goto out;
	ret = MHD_queue_response(conn, status, resp);
	if (ret == MHD_YES) {
		req->status = status;
		req->bytes_out = req->head ? 0 : body_len;
	}
out:
	if (resp)
		MHD_destroy_response(resp);
	return ret;
}

/* A JSON answer (copied), *len set to its length. */
static struct MHD_Response *blob_server_json_response(struct json_object *obj, uint64_t *len)
{
	struct MHD_Response *resp = NULL;
	struct buf body = BUF_INIT;
	const char *text;
	int ok = 1;

	*len = 0;
	text = obj ? json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE) : NULL;
	if (!text || buf_addstr(&body, text) || buf_addch(&body, '\n'))
		goto out;
	resp = MHD_create_response_from_buffer(body.len, body.data, MHD_RESPMEM_MUST_COPY);
	if (!resp)
		goto out;
	blob_server_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json", &ok);
	blob_server_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store", &ok);
	if (!ok) {
		MHD_destroy_response(resp);
		resp = NULL;
		goto out;
	}
	*len = body.len;
out:
	buf_release(&body);
	return resp;
}

/* Answers {"error":"<status_str(code)>","message":"..."} with the HTTP
 * status, plus one extra header if extra_name is not NULL. */
__attribute__((format(printf, 7, 8)))
static enum MHD_Result blob_server_send_error(struct blob_request *req,
					      struct MHD_Connection *conn, unsigned status,
					      enum bb_status code, const char *extra_name,
					      const char *extra_value, const char *fmt, ...)
{
	struct json_object *obj = NULL;
	struct MHD_Response *resp = NULL;
	char message[512];
	uint64_t len = 0;
	va_list ap;
	int ok = 1;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	obj = json_object_new_object();
	if (obj) {
		json_object_object_add(obj, "error", json_object_new_string(status_str(code)));
		json_object_object_add(obj, "message", json_object_new_string(message));
		resp = blob_server_json_response(obj, &len);
	}
	if (resp && extra_name)
		blob_server_header(resp, extra_name, extra_value, &ok);
	if (resp && !ok) {
		MHD_destroy_response(resp);
		resp = NULL;
	}
	json_object_put(obj);
	return blob_server_queue(req, conn, status, resp, len);
}

/* Answers a failure of the blob store: the detail goes to the log only,
 * since it may name server paths. */
static enum MHD_Result blob_server_send_store_error(struct blob_request *req,
						    struct MHD_Connection *conn,
						    enum bb_status st, const struct bb_error *err)
{
	enum MHD_Result ret;

	log_event(LOG_LEVEL_ERROR, "http.store_error", LF_STR("method", req->method),
		  LF_STR("path", req->path), LF_STR("status", status_str(st)),
		  LF_STR("message", err->message));
	switch (st) {
	case BB_ERR_NO_SPACE:
		ret = blob_server_send_error(req, conn, MHD_HTTP_INSUFFICIENT_STORAGE, st, NULL, NULL,
					     "the blob store is out of disk space");
		break;
	case BB_ERR_TOO_LARGE:
		ret = blob_server_send_error(req, conn, MHD_HTTP_CONTENT_TOO_LARGE, st, NULL, NULL,
					     "%s", err->message);
		break;
	case BB_ERR_NOMEM:
	case BB_ERR_BUSY:
	case BB_ERR_TEMPORARY:
	case BB_ERR_INTERRUPTED:
		ret = blob_server_send_error(req, conn, MHD_HTTP_SERVICE_UNAVAILABLE, st,
					     MHD_HTTP_HEADER_RETRY_AFTER, "5",
					     "the blob store is busy; try again later");
		break;
	default:
		ret = blob_server_send_error(req, conn, MHD_HTTP_INTERNAL_SERVER_ERROR, st, NULL,
					     NULL, "the blob store failed; see the server log");
		break;
	}
	return ret;
}

static enum MHD_Result blob_server_send_index(struct blob_request *req,
					      struct MHD_Connection *conn)
{
	struct MHD_Response *resp;
	int ok = 1;

	resp = MHD_create_response_from_buffer(sizeof(blob_server_index) - 1,
					       (void *)blob_server_index, MHD_RESPMEM_PERSISTENT);
	if (resp) {
		blob_server_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8",
				   &ok);
		if (!ok) {
			MHD_destroy_response(resp);
			resp = NULL;
		}
	}
	return blob_server_queue(req, conn, MHD_HTTP_OK, resp, sizeof(blob_server_index) - 1);
}

/* ------------------------------------------------------------------ blobs */

/* A small blob read into memory: MHD then sends the header and the body in
 * one write, where a file response costs it an fstat, two fcntl and a
 * sendfile more per request.  NULL if it cannot be read whole. */
static struct MHD_Response *blob_server_small_response(int fd, uint64_t start, uint64_t length)
{
	struct MHD_Response *resp = NULL;
	char *data = malloc(length);
	size_t got = 0;

	if (!data)
		goto out;
	while (got < length) {
		ssize_t n = pread(fd, data + got, length - got, (off_t)(start + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto out;
		got += (size_t)n;
	}
	resp = MHD_create_response_from_buffer(length, data, MHD_RESPMEM_MUST_FREE);
	if (resp)
		data = NULL;
out:
	free(data);
	return resp;
}

/* The body a GET or HEAD of a file asks for (*fd, size bytes, ETag etag;
 * what names it in an error: "blob", "report"): the range of its Range
 * header (blob_server_range()), else the whole file, into *resp with
 * *status 200 or 206 and then its Content-Range in *range_text.  Small
 * bodies are read into memory; a larger one streams from *fd, which is
 * then taken (-1).  Returns 1 when the request is answered here instead:
 * a range outside the file, 416 (*ret). */
static int blob_server_file_body(struct blob_request *req, struct MHD_Connection *conn, int *fd,
				 uint64_t size, const char *etag, const char *what, int mappable,
				 struct MHD_Response **resp, unsigned *status, uint64_t *length,
				 struct buf *range_text, enum MHD_Result *ret)
{
	struct stat sb;
	const char *header = NULL;
	uint64_t start = 0;
	enum http_range range = blob_server_range(conn, etag, size, &start, length, &header);

	*resp = NULL;
	*status = MHD_HTTP_OK;
	if (range == HTTP_RANGE_UNSATISFIABLE) {
		*ret = buf_addf(range_text, "bytes */%llu", (unsigned long long)size)
			       ? MHD_NO
			       : blob_server_send_error(req, conn, MHD_HTTP_RANGE_NOT_SATISFIABLE,
							BB_ERR_INVALID, MHD_HTTP_HEADER_CONTENT_RANGE,
							range_text->data,
							"range %s is outside the %llu bytes of the %s",
							header, (unsigned long long)size, what);
		return 1;
	}
	if (range == HTTP_RANGE_OK) {
		*status = MHD_HTTP_PARTIAL_CONTENT;
		if (buf_addf(range_text, "bytes %llu-%llu/%llu", (unsigned long long)start,
			     (unsigned long long)(start + *length - 1), (unsigned long long)size))
			return 0;
	} else {
		start = 0;
		*length = size;
	}
	if (*length == 0) {
		*resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	} else if (*length <= BLOB_SERVER_SMALL_MAX && !req->head) {
		*resp = blob_server_small_response(*fd, start, *length);
	} else if (mappable && !req->head && size <= BLOB_MAPS_MAX && !fstat(*fd, &sb) &&
		   (*resp = blob_maps_response(req->srv->maps, *fd, &sb, start, *length))) {
		/* from the file's shared mapping (web/blob_maps.h); fd stays ours */
	} else {
		*resp = MHD_create_response_from_fd_at_offset64(*length, *fd, start);
		if (*resp)
			*fd = -1; /* closed by MHD with the response */
	}
	return 0;
}

static struct blob_server_cached *blob_server_cache_slot(struct blob_server *srv,
							 const char *hex)
{
	/* the hash is uniformly spread: its first three digits index */
	unsigned slot = (unsigned)(g_ascii_xdigit_value(hex[0]) << 8 |
				   g_ascii_xdigit_value(hex[1]) << 4 |
				   g_ascii_xdigit_value(hex[2]));

	return &srv->cache[slot % BLOB_SERVER_CACHE_SLOTS];
}

/* blob_open() with the metadata cache in front (see struct
 * blob_server_cached). */
static enum bb_status blob_server_open_cached(struct blob_server *srv, const char *hex, int *fd,
					      struct blob_info *info, struct bb_error *err)
{
	struct blob_server_cached *slot = blob_server_cache_slot(srv, hex);
	enum bb_status st;
	char *path;
	int hit;

	memset(info, 0, sizeof(*info));
	pthread_mutex_lock(&srv->cache_lock);
	hit = !strcmp(slot->hash, hex);
	if (hit) {
		snprintf(info->hash, sizeof(info->hash), "%s", hex);
		info->size = slot->size;
		memcpy(info->content_type, slot->content_type, sizeof(info->content_type));
	}
	pthread_mutex_unlock(&srv->cache_lock);
	if (hit && (path = blob_path(srv->store, hex))) {
		*fd = open(path, O_RDONLY | O_CLOEXEC);
		free(path);
		if (*fd >= 0)
			return BB_OK;
		pthread_mutex_lock(&srv->cache_lock);
		if (!strcmp(slot->hash, hex))
			slot->hash[0] = '\0';
		pthread_mutex_unlock(&srv->cache_lock);
	}
	st = blob_open(srv->store, hex, fd, info, err);
	if (st == BB_OK) {
		pthread_mutex_lock(&srv->cache_lock);
		snprintf(slot->hash, sizeof(slot->hash), "%s", hex);
		slot->size = info->size;
		memcpy(slot->content_type, info->content_type, sizeof(slot->content_type));
		pthread_mutex_unlock(&srv->cache_lock);
	}
	return st;
}

static struct blob_server_hot *blob_server_hot_slot(struct blob_server *srv, const char *hex,
						     const char *name)
{
	unsigned h = (unsigned)(g_ascii_xdigit_value(hex[3]) << 8 |
				g_ascii_xdigit_value(hex[4]) << 4 | g_ascii_xdigit_value(hex[5]));

	if (name)
		h ^= g_str_hash(name);
	return &srv->hot[h % BLOB_SERVER_HOT_SLOTS];
}

static int blob_server_hot_is(const struct blob_server_hot *slot, const char *hex,
			      const char *name)
{
	return !strcmp(slot->hash, hex) &&
	       (slot->name && name ? !strcmp(slot->name, name) : !slot->name && !name);
}

static void blob_server_hot_clear(struct blob_server_hot *slot)
{
	if (slot->resp)
		MHD_destroy_response(slot->resp);
	free(slot->name);
	memset(slot, 0, sizeof(*slot));
}

/* Whether a GET may be answered from (and its answer kept in) the hot
 * slots: no HEAD, no Range, no If-None-Match (those have answers of their
 * own), the blob server's own policy. */
static int blob_server_hot_applies(const struct blob_request *req, struct MHD_Connection *conn)
{
	return !req->head && !req->csp &&
	       !MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_RANGE) &&
	       !MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
}

/* Answers a GET from its hot slot: 1 (*ret set) when it did, 0 when the
 * slot has no answer for it or the blob's file is gone (then the slot is
 * emptied and the GET takes the usual way, which says why). */
static int blob_server_hot_send(struct blob_request *req, struct MHD_Connection *conn,
				const char *hex, const char *name, enum MHD_Result *ret)
{
	struct blob_server *srv = req->srv;
	struct blob_server_hot *slot = blob_server_hot_slot(srv, hex, name);
	uint64_t size = 0;
	struct stat sb;
	char *path;
	int hit, there;

	pthread_mutex_lock(&srv->hot_lock);
	hit = blob_server_hot_is(slot, hex, name);
	if (hit)
		size = slot->size;
	pthread_mutex_unlock(&srv->hot_lock);
	if (!hit || !(path = blob_path(srv->store, hex)))
		return 0;
	there = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size == size;
	free(path);
	pthread_mutex_lock(&srv->hot_lock);
	hit = blob_server_hot_is(slot, hex, name);
	if (hit && !there)
		blob_server_hot_clear(slot);
	if (hit && there) {
		/* queued under the lock: the slot's reference cannot go meanwhile */
		*ret = MHD_queue_response(conn, MHD_HTTP_OK, slot->resp);
		if (*ret == MHD_YES) {
			req->status = MHD_HTTP_OK;
			req->bytes_out = size;
		}
	}
	pthread_mutex_unlock(&srv->hot_lock);
	return hit && there;
}

/* Queues resp (a 200 with the blob's headers) like blob_server_queue() and
 * keeps it in its hot slot for the next GET of the blob by that name. */
static enum MHD_Result blob_server_hot_queue(struct blob_request *req, struct MHD_Connection *conn,
					     const char *hex, const char *name,
					     struct MHD_Response *resp, uint64_t size)
{
	struct blob_server *srv = req->srv;
	struct blob_server_hot *slot = blob_server_hot_slot(srv, hex, name);
	char *copy = name ? strdup(name) : NULL;
	enum MHD_Result ret;
	int ok = 1;

	if (name && !copy)
		return blob_server_queue(req, conn, MHD_HTTP_OK, resp, size);
	blob_server_header(resp, MHD_HTTP_HEADER_X_CONTENT_TYPE_OPTIONS, "nosniff", &ok);
	blob_server_header(resp, MHD_HTTP_HEADER_CONTENT_SECURITY_POLICY, blob_server_csp, &ok);
	if (!ok) {
		free(copy);
		MHD_destroy_response(resp);
		return MHD_NO;
	}
	pthread_mutex_lock(&srv->hot_lock);
	blob_server_hot_clear(slot);
	snprintf(slot->hash, sizeof(slot->hash), "%s", hex);
	slot->name = copy;
	slot->size = size;
	slot->resp = resp;          /* the creation's reference is the slot's */
	ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	pthread_mutex_unlock(&srv->hot_lock);
	if (ret == MHD_YES) {
		req->status = MHD_HTTP_OK;
		req->bytes_out = size;
	}
	return ret;
}

/* GET or HEAD of one blob; hex is valid and lower case, name may be NULL. */
static enum MHD_Result blob_server_send_blob(struct blob_request *req,
					     struct MHD_Connection *conn, const char *hex,
					     const char *name)
{
	struct blob_server *srv = req->srv;
	struct bb_error err = BB_ERROR_INIT;
	struct MHD_Response *resp = NULL;
	struct buf value = BUF_INIT, range_text = BUF_INIT;
	struct blob_info info;
	struct stat sb;
	char etag[BLOB_HEX_LEN + 16], inert[80];
	const char *header, *type;
	uint64_t length = 0;
	enum MHD_Result ret = MHD_NO;
	enum bb_status st;
	unsigned status = MHD_HTTP_OK;
	int fd = -1, ok = 1, hot = blob_server_hot_applies(req, conn);

	if (hot && blob_server_hot_send(req, conn, hex, name, &ret))
		return ret;
	st = blob_server_open_cached(srv, hex, &fd, &info, &err);
	if (st == BB_ERR_NOT_FOUND) {
		struct bb_error lookup_err = BB_ERROR_INIT;

		/* recorded but without its file: worth a line in the log */
		if (blob_lookup(srv->store, hex, NULL, &lookup_err) == BB_OK)
			log_event(LOG_LEVEL_WARN, "http.blob_missing", LF_STR("hash", hex),
				  LF_STR("message", err.message));
		ret = blob_server_send_error(req, conn, MHD_HTTP_NOT_FOUND, st, NULL, NULL,
					     "no blob sha256:%s", hex);
		goto out;
	}
	if (st != BB_OK) {
		ret = blob_server_send_store_error(req, conn, st, &err);
		goto out;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size != info.size) {
		bb_error_set(&err, BB_ERR_CORRUPT,
			     "blob sha256:%s: its file is not a regular file of %llu bytes "
			     "(see bugbridge blob verify)", hex, (unsigned long long)info.size);
		ret = blob_server_send_store_error(req, conn, BB_ERR_CORRUPT, &err);
		goto out;
	}
	snprintf(etag, sizeof(etag), "\"sha256:%s\"", hex);

	header = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
	if (header && http_etag_listed(header, etag)) {
		resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
		if (!resp)
			goto out;
		blob_server_header(resp, MHD_HTTP_HEADER_ETAG, etag, &ok);
		blob_server_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, blob_server_immutable, &ok);
		if (!ok)
			goto out;
		ret = blob_server_queue(req, conn, MHD_HTTP_NOT_MODIFIED, resp, 0);
		resp = NULL;
		goto out;
	}

	if (blob_server_file_body(req, conn, &fd, info.size, etag, "blob", 1, &resp, &status,
				  &length, &range_text, &ret) || !resp)
		goto out;
	type = http_active_name(name) ? NULL
				      : http_inert_type(info.content_type, inert, sizeof(inert));
	if (http_disposition(&value, type != NULL, name))
		goto out;
	if (!type)
		type = "application/octet-stream";
	blob_server_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type, &ok);
	blob_server_header(resp, MHD_HTTP_HEADER_CONTENT_DISPOSITION, value.data, &ok);
	blob_server_header(resp, MHD_HTTP_HEADER_ETAG, etag, &ok);
	blob_server_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, blob_server_immutable, &ok);
	blob_server_header(resp, MHD_HTTP_HEADER_ACCEPT_RANGES, "bytes", &ok);
	if (status == MHD_HTTP_PARTIAL_CONTENT)
		blob_server_header(resp, MHD_HTTP_HEADER_CONTENT_RANGE, range_text.data, &ok);
	if (!ok)
		goto out;
	if (hot && status == MHD_HTTP_OK && length <= BLOB_SERVER_HOT_MAX)
		ret = blob_server_hot_queue(req, conn, hex, name, resp, length);
	else
		ret = blob_server_queue(req, conn, status, resp, length);
	resp = NULL;
out:
	if (resp)
		MHD_destroy_response(resp);
	if (fd >= 0)
		close(fd);
	buf_release(&value);
	buf_release(&range_text);
	return ret;
}

/* Parses "/blob/sha256/<hex>[/<name>]" (path already known to be safe). */
static enum MHD_Result blob_server_get(struct blob_request *req, struct MHD_Connection *conn,
				       const char *path)
{
	static const char prefix[] = "/blob/sha256/";
	char hex[BLOB_HEX_LEN + 1];
	char *name = NULL;
	const char *p;
	enum MHD_Result ret;
	size_t i;

	if (strncmp(path, prefix, sizeof(prefix) - 1)) {
		ret = blob_server_send_error(req, conn, MHD_HTTP_BAD_REQUEST, BB_ERR_INVALID, NULL,
					     NULL, "blob paths are /blob/sha256/<64 hex digits>"
					     "[/<file name>]");
		goto out;
	}
	p = path + sizeof(prefix) - 1;
	for (i = 0; i < BLOB_HEX_LEN && g_ascii_isxdigit(p[i]); i++)
		hex[i] = g_ascii_tolower(p[i]);
	hex[i] = '\0';
	if (i != BLOB_HEX_LEN || (p[i] != '\0' && p[i] != '/')) {
		ret = blob_server_send_error(req, conn, MHD_HTTP_BAD_REQUEST, BB_ERR_INVALID, NULL,
					     NULL, "malformed hash: want 64 hex digits after "
					     "/blob/sha256/");
		goto out;
	}
	if (p[i] == '/') {
		if (strchr(p + i + 1, '/') || !(name = http_decode_name(p + i + 1))) {
			ret = blob_server_send_error(req, conn, MHD_HTTP_BAD_REQUEST, BB_ERR_INVALID,
						     NULL, NULL, "malformed file name after the hash");
			goto out;
		}
	}
	ret = blob_server_send_blob(req, conn, hex, name);
out:
	free(name);
	return ret;
}

/* ---------------------------------------------------------------- uploads */

/* Notes a failure found while the body streams; it is answered at the end.
 * The writer is aborted at once so its temporary file goes away. */
__attribute__((format(printf, 4, 5)))
static void blob_server_upload_fail(struct blob_request *req, unsigned http_status,
				    enum bb_status code, const char *fmt, ...)
{
	va_list ap;

	if (req->failure != BB_OK)
		return;
	req->failure = code;
	req->failure_http = http_status;
	va_start(ap, fmt);
	vsnprintf(req->failure_message, sizeof(req->failure_message), fmt, ap);
	va_end(ap);
	blob_writer_abort(req->writer);
	req->writer = NULL;
}

/* A store failure while the body streams: the detail goes to the log. */
static void blob_server_upload_store_fail(struct blob_request *req, enum bb_status st,
					  const struct bb_error *err)
{
	log_event(LOG_LEVEL_WARN, "http.upload_failed", LF_STR("path", req->path),
		  LF_STR("status", status_str(st)), LF_STR("message", err->message));
	switch (st) {
	case BB_ERR_TOO_LARGE:
		blob_server_upload_fail(req, MHD_HTTP_CONTENT_TOO_LARGE, st, "%s", err->message);
		break;
	case BB_ERR_NO_SPACE:
		blob_server_upload_fail(req, MHD_HTTP_INSUFFICIENT_STORAGE, st,
					"the blob store is out of disk space");
		break;
	default:
		blob_server_upload_fail(req, MHD_HTTP_INTERNAL_SERVER_ERROR, st,
					"the blob store failed; see the server log");
		break;
	}
}

static int blob_server_same_part(const struct blob_request *req, const char *key,
				 const char *filename, uint64_t off)
{
	if (off != req->part_bytes)
		return 0;
	if (off > 0)
		return 1;
	return key && filename && !strcmp(key, req->part_key) &&
	       !strcmp(filename, req->part_filename);
}

/* The first file field of the form starts: its file name and type become
 * the blob's name and declared type. */
static enum bb_status blob_server_begin_file(struct blob_request *req, const char *key,
					     const char *filename, const char *content_type)
{
	struct bb_error err = BB_ERROR_INIT;
	const char *base, *slash;
	enum bb_status st = BB_OK;

	req->part_key = strdup(key ? key : "");
	req->part_filename = strdup(filename);
	if (!req->part_key || !req->part_filename) {
		st = bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
		blob_server_upload_store_fail(req, st, &err);
		goto out;
	}
	/* some browsers send a whole client path */
	base = filename;
	if ((slash = strrchr(base, '/')))
		base = slash + 1;
	if ((slash = strrchr(base, '\\')))
		base = slash + 1;
	if (*base) {
		size_t len = strlen(base);

		if (len > HTTP_NAME_MAX || !http_segment_ok(base, len)) {
			st = BB_ERR_INVALID;
			blob_server_upload_fail(req, MHD_HTTP_BAD_REQUEST, st,
						"unusable file name in the form");
			goto out;
		}
		free(req->name);
		if (!(req->name = strdup(base))) {
			st = bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
			blob_server_upload_store_fail(req, st, &err);
			goto out;
		}
	}
	free(req->declared_type);
	req->declared_type = NULL;
	content_type = http_header_safe(content_type, NULL);
	if (content_type && !(req->declared_type = strdup(content_type))) {
		st = bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
		blob_server_upload_store_fail(req, st, &err);
		goto out;
	}
	st = blob_writer_open(req->srv->store, req->conf->max_upload_size, &req->writer, &err);
	if (st) {
		blob_server_upload_store_fail(req, st, &err);
		goto out;
	}
	req->part_state = BLOB_PART_FILE;
	req->part_bytes = 0;
out:
	return st;
}

/* MHD_PostDataIterator: stores the first file field, ignores the rest. */
static enum MHD_Result blob_server_form_field(void *cls, enum MHD_ValueKind kind,
					      const char *key, const char *filename,
					      const char *content_type,
					      const char *transfer_encoding, const char *data,
					      uint64_t off, size_t size)
{
	struct blob_request *req = cls;
	struct bb_error err = BB_ERROR_INIT;
	enum MHD_Result ret = MHD_YES;
	enum bb_status st;

	(void)kind;
	(void)transfer_encoding;
	if (req->failure != BB_OK) {
		ret = MHD_NO;
		goto out;
	}
	switch (req->part_state) {
	case BLOB_PART_NONE:
		if (!filename)
			goto out; /* a plain form field */
		if (blob_server_begin_file(req, key, filename, content_type) != BB_OK) {
			ret = MHD_NO;
			goto out;
		}
		break;
	case BLOB_PART_FILE:
		if (!blob_server_same_part(req, key, filename, off)) {
			req->part_state = BLOB_PART_DONE;
			goto out;
		}
		break;
	case BLOB_PART_DONE:
		goto out;
	}
	if (size == 0)
		goto out;
	st = blob_writer_write(req->writer, data, size, &err);
	if (st != BB_OK) {
		blob_server_upload_store_fail(req, st, &err);
		ret = MHD_NO;
		goto out;
	}
	req->part_bytes += size;
out:
	return ret;
}

/* 1 if the Authorization header carries the upload token. */
static int blob_server_token_ok(const struct blob_server_conf *conf, const char *header)
{
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int digest_len = 0;
	size_t len = 0;
	const char *token = http_bearer_token(header, &len);
	int ok = token && EVP_Digest(token, len, digest, &digest_len, EVP_sha256(), NULL) == 1 &&
		 digest_len == conf->token_digest_len &&
		 CRYPTO_memcmp(digest, conf->token_digest, digest_len) == 0;

	OPENSSL_cleanse(digest, sizeof(digest));
	return ok;
}

/* First call of POST/PUT /upload[/<name>]: everything that can be refused
 * without the body is refused here. */
static enum MHD_Result blob_server_upload_begin(struct blob_request *req,
						struct MHD_Connection *conn, const char *path)
{
	struct blob_server *srv = req->srv;
	struct bb_error err = BB_ERROR_INIT;
	const char *auth, *value, *segment = NULL;
	enum MHD_Result ret = MHD_NO;
	enum bb_status st;

	if (!req->conf->uploads_enabled) {
		ret = blob_server_send_error(req, conn, MHD_HTTP_FORBIDDEN, BB_ERR_PERMISSION, NULL,
					     NULL, "uploads are disabled on this server "
					     "([server] upload_token is not set)");
		goto out;
	}
	auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (!blob_server_token_ok(req->conf, auth)) {
		ret = blob_server_send_error(req, conn, MHD_HTTP_UNAUTHORIZED, BB_ERR_AUTH,
					     MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					     auth ? "Bearer realm=\"bugbridge\", error=\"invalid_token\""
						  : "Bearer realm=\"bugbridge\"",
					     auth ? "wrong upload token"
						  : "uploads need \"Authorization: Bearer <token>\"");
		goto out;
	}

	if (path[7] == '/') {
		segment = path + 8;
	} else {
		segment = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "name");
		if (segment && !*segment)
			segment = NULL; /* "?name=" names nothing */
	}
	if (segment && (strchr(segment, '/') || !(req->name = http_decode_name(segment)))) {
		ret = blob_server_send_error(req, conn, MHD_HTTP_BAD_REQUEST, BB_ERR_INVALID, NULL,
					     NULL, "unusable file name for the upload");
		goto out;
	}

	value = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (value && req->conf->max_upload_size) {
		const char *p = value;
		uint64_t declared = 0;

		while (http_is_space(*p))
			p++;
		if (http_parse_number(&p, &declared) && declared > req->conf->max_upload_size) {
			ret = blob_server_send_error(req, conn, MHD_HTTP_CONTENT_TOO_LARGE,
						     BB_ERR_TOO_LARGE, NULL, NULL,
						     "the upload of %llu bytes is larger than the "
						     "limit of %llu bytes",
						     (unsigned long long)declared,
						     (unsigned long long)req->conf->max_upload_size);
			goto out;
		}
	}

	value = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	if (!strcmp(req->method, MHD_HTTP_METHOD_POST) && value &&
	    !strncasecmp(value, "multipart/form-data", 19)) {
		req->post = MHD_create_post_processor(conn, BLOB_SERVER_POST_BUFFER,
						      blob_server_form_field, req);
		if (!req->post) {
			ret = blob_server_send_error(req, conn, MHD_HTTP_BAD_REQUEST, BB_ERR_INVALID,
						     NULL, NULL, "multipart/form-data without a "
						     "usable boundary");
			goto out;
		}
	} else {
		value = http_header_safe(value, NULL);
		if (value && !(req->declared_type = strdup(value)))
			goto out;
		st = blob_writer_open(srv->store, req->conf->max_upload_size, &req->writer, &err);
		if (st) {
			ret = blob_server_send_store_error(req, conn, st, &err);
			goto out;
		}
	}
	req->kind = BLOB_REQUEST_UPLOAD;
	ret = MHD_YES;
out:
	return ret;
}

/* A piece of the body. */
static enum MHD_Result blob_server_upload_data(struct blob_request *req, const char *data,
					       size_t *size)
{
	struct bb_error err = BB_ERROR_INIT;
	enum MHD_Result ret = MHD_YES;
	enum bb_status st;
	size_t len = *size;

	*size = 0;
	req->bytes_in += len;
	if (req->failure != BB_OK) {
		/* drop what is refused anyway, so the answer can be sent */
		req->discarded += len;
		if (req->discarded > BLOB_SERVER_DISCARD_MAX)
			ret = MHD_NO;
		goto out;
	}
	if (req->post) {
		if (MHD_post_process(req->post, data, len) != MHD_YES)
			blob_server_upload_fail(req, MHD_HTTP_BAD_REQUEST, BB_ERR_INVALID,
						"malformed multipart/form-data body");
		goto out;
	}
	st = blob_writer_write(req->writer, data, len, &err);
	if (st != BB_OK)
		blob_server_upload_store_fail(req, st, &err);
out:
	return ret;
}

/* The whole body is in: commit and answer. */
static enum MHD_Result blob_server_upload_finish(struct blob_request *req,
						 struct MHD_Connection *conn)
{
	struct blob_server *srv = req->srv;
	struct bb_error err = BB_ERROR_INIT;
	struct json_object *obj = NULL;
	struct MHD_Response *resp = NULL;
	struct blob_origin origin;
	struct blob_info info;
	char hash[BLOB_HEX_LEN + 8];
	char *url = NULL;
	uint64_t len = 0;
	enum MHD_Result ret = MHD_NO;
	enum bb_status st;
	unsigned status;
	int ok = 1;

	if (req->post) {
		if (MHD_destroy_post_processor(req->post) != MHD_YES)
			blob_server_upload_fail(req, MHD_HTTP_BAD_REQUEST, BB_ERR_INVALID,
						"incomplete multipart/form-data body");
		req->post = NULL;
		if (req->part_state == BLOB_PART_NONE)
			blob_server_upload_fail(req, MHD_HTTP_BAD_REQUEST, BB_ERR_INVALID,
						"the form has no file field");
	}
	if (req->failure != BB_OK) {
		ret = blob_server_send_error(req, conn, req->failure_http, req->failure, NULL, NULL,
					     "%s", req->failure_message);
		goto out;
	}

	origin.name = req->name ? req->name : "";
	origin.declared_type = req->declared_type ? req->declared_type : "";
	origin.origin = "upload";
	origin.origin_ref = "http";
	st = blob_writer_commit(req->writer, &origin, &info, &err);
	req->writer = NULL;
	if (st != BB_OK) {
		ret = blob_server_send_store_error(req, conn, st, &err);
		goto out;
	}
	snprintf(hash, sizeof(hash), "sha256:%s", info.hash);
	url = blob_url(srv->store, info.hash, req->name);
	obj = json_object_new_object();
	if (!url || !obj)
		goto out;
	json_object_object_add(obj, "hash", json_object_new_string(hash));
	json_object_object_add(obj, "size", json_object_new_uint64(info.size));
	json_object_object_add(obj, "url", json_object_new_string(url));
	json_object_object_add(obj, "content_type", json_object_new_string(info.content_type));
	resp = blob_server_json_response(obj, &len);
	if (!resp)
		goto out;
	blob_server_header(resp, MHD_HTTP_HEADER_LOCATION, url, &ok);
	if (!ok)
		goto out;
	status = info.already_stored ? MHD_HTTP_OK : MHD_HTTP_CREATED;
	log_event(LOG_LEVEL_INFO, "http.upload", LF_STR("hash", info.hash),
		  LF_UINT("size", info.size), LF_STR("name", origin.name),
		  LF_INT("new", !info.already_stored));
	ret = blob_server_queue(req, conn, status, resp, len);
	resp = NULL;
out:
	if (resp)
		MHD_destroy_response(resp);
	json_object_put(obj);
	free(url);
	return ret;
}

/* ---------------------------------------------------------------- reports */

/* A report file's validators: a strong ETag of its inode, size and
 * modification time (a report is rewritten whole, into a spare that then
 * trades places with it: bytes that differ are a time and an inode that
 * differ), and its Last-Modified date. */
static void blob_server_report_validators(const struct stat *sb, char *etag, size_t etag_size,
					  char *date, size_t date_size)
{
	struct tm tm;

	snprintf(etag, etag_size, "\"r-%llx-%llx-%llx.%09ld\"", (unsigned long long)sb->st_ino,
		 (unsigned long long)sb->st_size, (unsigned long long)sb->st_mtim.tv_sec,
		 (long)sb->st_mtim.tv_nsec);
	if (!gmtime_r(&sb->st_mtim.tv_sec, &tm) ||
	    !strftime(date, date_size, "%a, %d %b %Y %H:%M:%S GMT", &tm))
		date[0] = '\0';
}

/* Whether a GET or HEAD's conditions say the client's copy is current
 * (RFC 9110, 13.2.2): an If-None-Match naming etag, or without one an
 * If-Modified-Since (an HTTP date, read by libcurl) no earlier than
 * mtime. */
static int blob_server_not_modified(struct MHD_Connection *conn, const char *etag,
				    time_t mtime)
{
	const char *value = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							MHD_HTTP_HEADER_IF_NONE_MATCH);
	time_t since;

	if (value)
		return http_etag_listed(value, etag);
	value = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					    MHD_HTTP_HEADER_IF_MODIFIED_SINCE);
	if (!value)
		return 0;
	since = curl_getdate(value, NULL);
	return since != (time_t)-1 && mtime <= since;
}

/* GET or HEAD /regressions/...: a file of the reports folder, never
 * through a symbolic link, only by a name reg_report_file() accepts; with
 * an ETag and Last-Modified (304 to a client whose copy is current) and
 * single byte ranges, as blobs have. */
static enum MHD_Result blob_server_send_report(struct blob_request *req,
					       struct MHD_Connection *conn, const char *path)
{
	struct MHD_Response *resp = NULL;
	struct stat sb;
	struct buf value = BUF_INIT;
	char rel[256], etag[96], modified[64];
	const char *type, *slash, *name;
	uint64_t length = 0;
	unsigned status = MHD_HTTP_OK;
	enum MHD_Result ret = MHD_NO;
	int dirfd = -1, subfd = -1, fd = -1, ok = 1;

	type = reg_report_file(path, rel, sizeof(rel));
	if (!req->conf->reports_dir || !type) {
		ret = blob_server_send_error(req, conn, MHD_HTTP_NOT_FOUND, BB_ERR_NOT_FOUND, NULL,
					     NULL, req->conf->reports_dir ? "no such report"
								    : "reports are not served here");
		goto out;
	}
	dirfd = open(req->conf->reports_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		ret = blob_server_send_error(req, conn, MHD_HTTP_NOT_FOUND, BB_ERR_NOT_FOUND, NULL,
					     NULL, "no reports yet (bugbridge regressions report "
					     "writes them)");
		goto out;
	}
	name = rel;
	if ((slash = strchr(rel, '/'))) {
		*(char *)slash = '\0';
		subfd = openat(dirfd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		name = slash + 1;
	}
	fd = slash && subfd < 0 ? -1
				: openat(slash ? subfd : dirfd, name,
					 O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		ret = blob_server_send_error(req, conn, MHD_HTTP_NOT_FOUND, BB_ERR_NOT_FOUND, NULL,
					     NULL, "no such report");
		goto out;
	}
	blob_server_report_validators(&sb, etag, sizeof(etag), modified, sizeof(modified));
	req->csp = blob_server_report_csp;
	if (blob_server_not_modified(conn, etag, sb.st_mtim.tv_sec)) {
		status = MHD_HTTP_NOT_MODIFIED;
		resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	} else if (blob_server_file_body(req, conn, &fd, (uint64_t)sb.st_size, etag, "report", 0,
					 &resp, &status, &length, &value, &ret)) {
		goto out;
	}
	if (!resp)
		goto out;
	if (status != MHD_HTTP_NOT_MODIFIED) {
		blob_server_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type, &ok);
		blob_server_header(resp, MHD_HTTP_HEADER_ACCEPT_RANGES, "bytes", &ok);
	}
	if (status == MHD_HTTP_PARTIAL_CONTENT)
		blob_server_header(resp, MHD_HTTP_HEADER_CONTENT_RANGE, value.data, &ok);
	blob_server_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache", &ok);
	blob_server_header(resp, MHD_HTTP_HEADER_ETAG, etag, &ok);
	if (modified[0])
		blob_server_header(resp, MHD_HTTP_HEADER_LAST_MODIFIED, modified, &ok);
	if (!ok)
		goto out;
	ret = blob_server_queue(req, conn, status, resp, length);
	resp = NULL;
out:
	buf_release(&value);
	if (resp)
		MHD_destroy_response(resp);
	if (fd >= 0)
		close(fd);
	if (subfd >= 0)
		close(subfd);
	if (dirfd >= 0)
		close(dirfd);
	return ret;
}

/* ---------------------------------------------------------------- routing */

static enum MHD_Result blob_server_route(struct blob_request *req, struct MHD_Connection *conn,
					 const char *path)
{
	int get_or_head = !strcmp(req->method, MHD_HTTP_METHOD_GET) || req->head;
	int upload_method = !strcmp(req->method, MHD_HTTP_METHOD_POST) ||
			    !strcmp(req->method, MHD_HTTP_METHOD_PUT);
	enum MHD_Result ret;

	if (!http_path_ok(path)) {
		ret = blob_server_send_error(req, conn, MHD_HTTP_BAD_REQUEST, BB_ERR_INVALID, NULL,
					     NULL, "malformed path");
	} else if (!strcmp(path, "/")) {
		ret = get_or_head ? blob_server_send_index(req, conn)
				  : blob_server_send_error(req, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
							   BB_ERR_UNSUPPORTED, MHD_HTTP_HEADER_ALLOW,
							   "GET, HEAD", "use GET or HEAD here");
	} else if (!strncmp(path, "/blob/", 6)) {
		ret = get_or_head ? blob_server_get(req, conn, path)
				  : blob_server_send_error(req, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
							   BB_ERR_UNSUPPORTED, MHD_HTTP_HEADER_ALLOW,
							   "GET, HEAD", "blobs are read with GET or "
							   "HEAD; upload with POST or PUT /upload");
	} else if (!strcmp(path, "/regressions") || !strncmp(path, "/regressions/", 13)) {
		if (!get_or_head)
			ret = blob_server_send_error(req, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
						     BB_ERR_UNSUPPORTED, MHD_HTTP_HEADER_ALLOW,
						     "GET, HEAD", "the reports are read-only");
		else if (!path[12])
			ret = blob_server_send_error(req, conn, MHD_HTTP_MOVED_PERMANENTLY,
						     BB_ERR_NOT_FOUND, MHD_HTTP_HEADER_LOCATION,
						     "/regressions/", "the reports are at /regressions/");
		else
			ret = blob_server_send_report(req, conn, path);
	} else if (!strcmp(path, "/upload") || !strncmp(path, "/upload/", 8)) {
		ret = upload_method ? blob_server_upload_begin(req, conn, path)
				    : blob_server_send_error(req, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
							     BB_ERR_UNSUPPORTED, MHD_HTTP_HEADER_ALLOW,
							     "POST, PUT", "upload with POST or PUT");
	} else {
		ret = blob_server_send_error(req, conn, MHD_HTTP_NOT_FOUND, BB_ERR_NOT_FOUND, NULL,
					     NULL, "nothing here; blobs are under /blob/sha256/");
	}
	return ret;
}

/* MHD_KeyValueIterator: every X-Forwarded-For line, in order, joined by
 * commas (a proxy may add a line of its own rather than extend one). */
static enum MHD_Result blob_server_collect_xff(void *cls, enum MHD_ValueKind kind,
					       const char *key, const char *value)
{
	struct buf *xff = cls;

	(void)kind;
	if (!key || !value || strcasecmp(key, "X-Forwarded-For"))
		return MHD_YES;
	if (xff->len + strlen(value) + 1 > BLOB_SERVER_XFF_MAX)
		return MHD_NO;
	if ((xff->len && buf_addch(xff, ',')) || buf_addstr(xff, value))
		return MHD_NO;
	return MHD_YES;
}

/* The path as the log shows it: the token of /confirm/<token> is a secret
 * (whoever has it confirms the report), so it is replaced.  Queries never
 * reach the log at all: MHD keeps them apart from url. */
static char *blob_server_log_path(const char *url)
{
	static const char confirm[] = "/confirm/";

	if (!strncmp(url, confirm, sizeof(confirm) - 1) && url[sizeof(confirm) - 1])
		return strdup("/confirm/<redacted>");
	return strndup(url, BLOB_SERVER_LOG_PATH_MAX);
}

/* ------------------------------------------------------------- settings */

static void blob_server_conf_free(struct blob_server_conf *conf)
{
	if (!conf)
		return;
	OPENSSL_cleanse(conf->token_digest, sizeof(conf->token_digest));
	free(conf->reports_dir);
	free(conf);
}

/* The settings current now, with a reference for the caller. */
static struct blob_server_conf *blob_server_conf_get(struct blob_server *srv)
{
	struct blob_server_conf *conf;

	pthread_mutex_lock(&srv->conf_lock);
	conf = srv->conf;
	conf->refs++;
	pthread_mutex_unlock(&srv->conf_lock);
	return conf;
}

static void blob_server_conf_put(struct blob_server *srv, struct blob_server_conf *conf)
{
	int last;

	if (!conf)
		return;
	pthread_mutex_lock(&srv->conf_lock);
	last = --conf->refs == 0;
	pthread_mutex_unlock(&srv->conf_lock);
	if (last)
		blob_server_conf_free(conf);
}

/* New settings from the fields of opt that may change while serving. */
static enum bb_status blob_server_conf_new(struct blob_server_conf **out,
					   const struct blob_server_options *opt,
					   struct bb_error *err)
{
	struct blob_server_conf *conf = calloc(1, sizeof(*conf));
	enum bb_status st = BB_OK;

	*out = NULL;
	if (!conf || (opt->reports_dir && !(conf->reports_dir = strdup(opt->reports_dir)))) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	conf->refs = 1;
	conf->max_upload_size = opt->max_upload_size;
	conf->site = opt->site;
	conf->body_timeout = opt->body_timeout ? opt->body_timeout : BLOB_SERVER_TIMEOUT_SECONDS;
	conf->min_body_rate = opt->min_body_rate;
	if (opt->upload_token && *opt->upload_token) {
		if (EVP_Digest(opt->upload_token, strlen(opt->upload_token), conf->token_digest,
			       &conf->token_digest_len, EVP_sha256(), NULL) != 1) {
			st = bb_error_set(err, BB_ERR_INTERNAL, "cannot hash the upload token");
			goto out;
		}
		conf->uploads_enabled = 1;
	}
	*out = conf;
	conf = NULL;
out:
	blob_server_conf_free(conf);
	return st;
}

enum bb_status blob_server_update(struct blob_server *srv, const struct blob_server_options *opt,
				  struct bb_error *err)
{
	struct blob_server_conf *fresh, *old;
	enum bb_status st;

	if ((st = blob_server_conf_new(&fresh, opt, err)))
		return st;
	pthread_mutex_lock(&srv->conf_lock);
	old = srv->conf;
	srv->conf = fresh;
	pthread_mutex_unlock(&srv->conf_lock);
	log_event(LOG_LEVEL_INFO, "http.updated", LF_UINT("max_upload_size", fresh->max_upload_size),
		  LF_INT("uploads", fresh->uploads_enabled), LF_INT("site", fresh->site != NULL));
	blob_server_conf_put(srv, old);
	return BB_OK;
}

static struct blob_request *blob_server_request_new(struct blob_server *srv,
						    struct MHD_Connection *conn,
						    const char *url, const char *method)
{
	const union MHD_ConnectionInfo *ci;
	struct blob_request *req;
	struct buf xff = BUF_INIT;
	const struct sockaddr *addr = NULL;

	req = calloc(1, sizeof(*req));
	if (!req)
		goto out;
	req->srv = srv;
	req->kind = BLOB_REQUEST_SIMPLE;
	snprintf(req->method, sizeof(req->method), "%s", method);
	req->head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
	req->path = blob_server_log_path(url);
	if (!req->path) {
		free(req);
		req = NULL;
		goto out;
	}
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	req->guard_conn = ci ? ci->socket_context : NULL;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci)
		addr = ci->client_addr;
	http_guard_client(srv->guard, addr, NULL, req->peer, sizeof(req->peer));
	if (addr && http_guard_is_trusted(srv->guard, addr)) {
		MHD_get_connection_values(conn, MHD_HEADER_KIND, blob_server_collect_xff, &xff);
		http_guard_client(srv->guard, addr, xff.len ? xff.data : NULL, req->client,
				  sizeof(req->client));
	} else {
		memcpy(req->client, req->peer, sizeof(req->client));
	}
	req->conf = blob_server_conf_get(srv);
	pthread_mutex_lock(&srv->lock);
	srv->in_flight++;
	pthread_mutex_unlock(&srv->lock);
out:
	buf_release(&xff);
	return req;
}

/* Past max_connections: 503 at once, and the connection closes. */
static enum MHD_Result blob_server_send_overload(struct blob_request *req,
						 struct MHD_Connection *conn)
{
	return blob_server_send_error(req, conn, MHD_HTTP_SERVICE_UNAVAILABLE, BB_ERR_BUSY,
				      MHD_HTTP_HEADER_RETRY_AFTER, "5",
				      "the server is busy; try again later");
}

/* MHD_AccessHandlerCallback. */
static enum MHD_Result blob_server_handle(void *cls, struct MHD_Connection *conn,
					  const char *url, const char *method,
					  const char *version, const char *upload_data,
					  size_t *upload_data_size, void **con_cls)
{
	struct blob_request *req = *con_cls;
	enum MHD_Result ret = MHD_NO;

	(void)version;
	if (req) {
		/* the body's rate, until it is all in or an answer is queued */
		if (*upload_data_size)
			http_guard_body_data(req->srv->guard, req->guard_conn, *upload_data_size);
		else
			http_guard_body_ends(req->srv->guard, req->guard_conn);
	}
	if (!req) {
		req = blob_server_request_new(cls, conn, url, method);
		if (!req)
			goto out;
		*con_cls = req;
		/* the headers are in: the header deadline is over, the body
		 * (and the answer) get the longer idle timeout */
		if (http_guard_request_begins(req->srv->guard, req->guard_conn)) {
			req->routed = 1;
			ret = blob_server_send_overload(req, conn);
			goto out;
		}
		MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT,
					  req->conf->body_timeout);
		http_guard_body_begins(req->srv->guard, req->guard_conn, req->conf->min_body_rate);
		if (req->conf->site && http_path_ok(url) &&
		    req->conf->site->claims(req->conf->site->cls, url, method)) {
			req->kind = BLOB_REQUEST_SITE;
		} else {
			/* MHD closes the connection after an answer queued on
			 * this first call: reads wait for the next call to keep
			 * it alive, the rest (uploads, errors) is answered
			 * before any body is read. */
			if (!req->head && strcmp(method, MHD_HTTP_METHOD_GET)) {
				req->routed = 1;
				ret = blob_server_route(req, conn, url);
			} else {
				ret = MHD_YES;
			}
			goto out;
		}
	}
	if (req->kind == BLOB_REQUEST_SITE) {
		req->routed = 1;
		ret = req->conf->site->handle(req->conf->site->cls, conn, url, method, req->client,
					     upload_data, upload_data_size, &req->site_state,
					     &req->status) ? MHD_YES : MHD_NO;
		goto out;
	}
	if (req->kind == BLOB_REQUEST_UPLOAD) {
		ret = *upload_data_size ? blob_server_upload_data(req, upload_data, upload_data_size)
					: blob_server_upload_finish(req, conn);
		goto out;
	}
	if (*upload_data_size) {
		/* a GET with a body: the body means nothing here */
		req->bytes_in += *upload_data_size;
		ret = req->bytes_in > BLOB_SERVER_DISCARD_MAX ? MHD_NO : MHD_YES;
		*upload_data_size = 0;
		goto out;
	}
	if (!req->routed) {
		req->routed = 1;
		ret = blob_server_route(req, conn, url);
	}
out:
	if (req && req->status)
		http_guard_body_ends(req->srv->guard, req->guard_conn);
	return ret;
}

/* MHD_RequestCompletedCallback: one log line per request, and an upload
 * that did not reach its commit is aborted. */
static void blob_server_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
				  enum MHD_RequestTerminationCode toe)
{
	struct blob_server *srv = cls;
	struct blob_request *req = *con_cls;
	const char *end;

	(void)conn;
	if (!req)
		return;
	*con_cls = NULL;
	/* a body the guard cut for its rate says so, not "read-error" */
	end = http_guard_cut_slow_body(srv->guard, req->guard_conn)
	      ? "slow-body" : blob_server_termination_str(toe);
	http_guard_request_ends(srv->guard, req->guard_conn);
	if (req->post)
		MHD_destroy_post_processor(req->post);
	if (req->kind == BLOB_REQUEST_SITE)
		req->conf->site->completed(req->conf->site->cls, req->site_state);
	if (req->writer) {
		blob_writer_abort(req->writer);
		log_event(LOG_LEVEL_WARN, "http.upload_aborted", LF_STR("client", req->client),
			  LF_STR("path", req->path), LF_UINT("received", req->bytes_in),
			  LF_STR("end", end));
	}
	log_event(LOG_LEVEL_INFO, "http.request", LF_STR("client", req->client),
		  LF_STR("method", req->method), LF_STR("path", req->path),
		  LF_UINT("status", req->status), LF_UINT("bytes", req->bytes_out),
		  LF_UINT("received", req->bytes_in),
		  LF_STR("end", end), LF_STR("peer", req->peer));
	free(req->path);
	free(req->name);
	free(req->declared_type);
	free(req->part_key);
	free(req->part_filename);
	blob_server_conf_put(srv, req->conf);
	free(req);

	pthread_mutex_lock(&srv->lock);
	if (--srv->in_flight == 0)
		pthread_cond_broadcast(&srv->idle);
	pthread_mutex_unlock(&srv->lock);
}

/* MHD_AcceptPolicyCallback: the connection limits (web/http_guard.h). */
static enum MHD_Result blob_server_accept(void *cls, const struct sockaddr *addr,
					  socklen_t addr_len)
{
	struct blob_server *srv = cls;

	return http_guard_admit(srv->guard, addr, addr_len) ? MHD_YES : MHD_NO;
}

/* MHD_NotifyConnectionCallback: the guard watches every connection, for
 * its counts and its header deadline. */
static void blob_server_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
				   enum MHD_ConnectionNotificationCode code)
{
	struct blob_server *srv = cls;
	const union MHD_ConnectionInfo *fd_info, *addr_info;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		fd_info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		addr_info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		*socket_context = http_guard_opened(srv->guard, fd_info ? fd_info->connect_fd : -1,
						    addr_info ? addr_info->client_addr : NULL);
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		http_guard_closed(srv->guard, *socket_context);
		*socket_context = NULL;
	}
}

/* MHD_UnescapeCallback: leaves URLs and arguments as sent (see the top). */
static size_t blob_server_keep_escapes(void *cls, struct MHD_Connection *conn, char *s)
{
	(void)cls;
	(void)conn;
	return strlen(s);
}

/* MHD_LogCallback: MHD's messages become log lines. */
__attribute__((format(printf, 2, 0)))
static void blob_server_mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct blob_server *srv = cls;
	char message[512];
	size_t len;

	vsnprintf(message, sizeof(message), fmt, ap);
	len = strlen(message);
	while (len > 0 && (message[len - 1] == '\n' || message[len - 1] == '\r'))
		message[--len] = '\0';
	pthread_mutex_lock(&srv->lock);
	if (srv->starting)
		snprintf(srv->start_error, sizeof(srv->start_error), "%s", message);
	pthread_mutex_unlock(&srv->lock);
	/* a client that goes away mid-request (or is cut for being slow), or
	 * that MHD answers 4xx/505 itself, is its own business, and one line
	 * per connection would let anyone fill the log: such lines are for
	 * debugging only (web/http_guard.c counts the cut ones) */
	log_event(strstr(message, "closure") || strstr(message, "closed") ||
			  strstr(message, "timed out") || strstr(message, "reset by peer") ||
			  strstr(message, "Error processing request")
		  ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARN,
		  "http.server", LF_STR("message", message));
}

/* ------------------------------------------------------------- lifecycle */

/* "address:port" or "[ipv6]:port"; an empty address or "*" means all IPv4
 * addresses. */
static enum bb_status blob_server_parse_listen(const char *listen,
					       struct sockaddr_storage *addr,
					       socklen_t *addr_len, struct bb_error *err)
{
	struct addrinfo hints, *res = NULL;
	char host[256];
	const char *host_start, *host_end, *port, *p;
	enum bb_status st = BB_OK;
	int rc;

	if (!listen || !*listen) {
		st = bb_error_set(err, BB_ERR_INVALID, "no listen address");
		goto out;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if (listen[0] == '[') {
		host_start = listen + 1;
		host_end = strchr(host_start, ']');
		if (!host_end || host_end[1] != ':') {
			st = bb_error_set(err, BB_ERR_INVALID,
					  "listen address \"%s\" is not [address]:port", listen);
			goto out;
		}
		port = host_end + 2;
		hints.ai_family = AF_INET6;
		hints.ai_flags |= AI_NUMERICHOST;
	} else {
		host_start = listen;
		host_end = strrchr(listen, ':');
		if (!host_end || memchr(listen, ':', (size_t)(host_end - listen))) {
			st = bb_error_set(err, BB_ERR_INVALID,
					  "listen address \"%s\" is not address:port "
					  "(IPv6 addresses go in brackets)", listen);
			goto out;
		}
		port = host_end + 1;
	}
	for (p = port; *p >= '0' && *p <= '9'; p++)
		;
	if (p == port || *p || p - port > 5 || strtol(port, NULL, 10) > 65535) {
		st = bb_error_set(err, BB_ERR_INVALID, "bad port in listen address \"%s\"", listen);
		goto out;
	}
	if ((size_t)(host_end - host_start) >= sizeof(host)) {
		st = bb_error_set(err, BB_ERR_INVALID, "listen address \"%s\" is too long", listen);
		goto out;
	}
	memcpy(host, host_start, (size_t)(host_end - host_start));
	host[host_end - host_start] = '\0';
	if (!host[0] || !strcmp(host, "*"))
		snprintf(host, sizeof(host), "0.0.0.0");
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0 || !res || res->ai_addrlen > sizeof(*addr)) {
		st = bb_error_set(err, BB_ERR_INVALID, "cannot use listen address \"%s\": %s",
				  listen, rc ? gai_strerror(rc) : "no address");
		goto out;
	}
	memset(addr, 0, sizeof(*addr));
	memcpy(addr, res->ai_addr, res->ai_addrlen);
	*addr_len = res->ai_addrlen;
out:
	if (res)
		freeaddrinfo(res);
	return st;
}

static void blob_server_free(struct blob_server *srv)
{
	if (!srv)
		return;
	http_guard_free(srv->guard);
	if (srv->conf)
		blob_server_conf_put(srv, srv->conf);
	pthread_mutex_destroy(&srv->conf_lock);
	pthread_cond_destroy(&srv->idle);
	pthread_mutex_destroy(&srv->lock);
	pthread_mutex_destroy(&srv->cache_lock);
	for (size_t i = 0; i < BLOB_SERVER_HOT_SLOTS; i++)
		blob_server_hot_clear(&srv->hot[i]);
	pthread_mutex_destroy(&srv->hot_lock);
	blob_maps_free(srv->maps);
	free(srv);
}

/* HTTP_GUARD_BODY_GRACE_MS, or for the test suite
 * $BUGBRIDGE_TEST_BODY_GRACE_MS (at least 1). */
static unsigned blob_server_body_grace_ms(void)
{
	const char *env = getenv("BUGBRIDGE_TEST_BODY_GRACE_MS");
	char *end;
	unsigned long ms;

	if (!env || !*env)
		return HTTP_GUARD_BODY_GRACE_MS;
	errno = 0;
	ms = strtoul(env, &end, 10);
	return *end || errno || ms == 0 || ms > 3600000 ? HTTP_GUARD_BODY_GRACE_MS : (unsigned)ms;
}

enum bb_status blob_server_start(struct blob_server **out, struct blob_store *bs,
				 const struct blob_server_options *opt,
				 struct bb_error *err)
{
	struct blob_server *srv = NULL;
	struct sockaddr_storage addr;
	const union MHD_DaemonInfo *info;
	pthread_condattr_t cond_attr;
	struct http_guard_options guard_opt;
	socklen_t addr_len = 0;
	unsigned int flags, threads;
	enum bb_status st;

	*out = NULL;
	if (!bs || !opt) {
		st = bb_error_set(err, BB_ERR_INVALID, "blob_server_start: no store or options");
		goto out;
	}
	if ((st = blob_server_parse_listen(opt->listen, &addr, &addr_len, err)))
		goto out;
	srv = calloc(1, sizeof(*srv));
	if (!srv) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	srv->store = bs;
	pthread_mutex_init(&srv->conf_lock, NULL);
	pthread_mutex_init(&srv->lock, NULL);
	pthread_mutex_init(&srv->cache_lock, NULL);
	pthread_mutex_init(&srv->hot_lock, NULL);
	srv->maps = blob_maps_new();   /* NULL: every blob from its file */
	pthread_condattr_init(&cond_attr);
	pthread_condattr_setclock(&cond_attr, CLOCK_MONOTONIC);
	pthread_cond_init(&srv->idle, &cond_attr);
	pthread_condattr_destroy(&cond_attr);
	if ((st = blob_server_conf_new(&srv->conf, opt, err)))
		goto out;

	guard_opt.max_connections = opt->max_connections;
	guard_opt.max_per_client = opt->max_per_client;
	guard_opt.header_timeout = opt->header_timeout;
	guard_opt.trusted_proxies = opt->trusted_proxies;
	guard_opt.body_grace_ms = blob_server_body_grace_ms();
	if ((st = http_guard_new(&srv->guard, &guard_opt, err)))
		goto out;

	threads = opt->threads;
	/* poll(), not epoll, and a thread per connection unless given a
	 * pool: see the top of the file */
	flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC | MHD_USE_ERROR_LOG;
	if (threads == 0)
		flags |= MHD_USE_THREAD_PER_CONNECTION;
	if (addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	{
		/* MHD's own limit is the hard one: ours plus the few that
		 * are let in only to be told 503; a pool of one thread is no
		 * pool: leave the option out */
		unsigned hard_limit = http_guard_hard_limit(srv->guard);
		struct MHD_OptionItem more[3];
		size_t n = 0;

		if (hard_limit)
			more[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT,
							     (intptr_t)hard_limit, NULL };
		if (threads > 1)
			more[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE,
							     (intptr_t)threads, NULL };
		more[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };

		srv->starting = 1;
		srv->daemon = MHD_start_daemon(
			flags, 0, blob_server_accept, srv, blob_server_handle, srv,
			MHD_OPTION_EXTERNAL_LOGGER, blob_server_mhd_log, srv,
			MHD_OPTION_NOTIFY_CONNECTION, blob_server_connection, srv,
			MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
			MHD_OPTION_NOTIFY_COMPLETED, blob_server_completed, srv,
			MHD_OPTION_UNESCAPE_CALLBACK, blob_server_keep_escapes, srv,
			/* until a request's headers are in; raised per request */
			MHD_OPTION_CONNECTION_TIMEOUT,
			opt->header_timeout ? opt->header_timeout : srv->conf->body_timeout,
			MHD_OPTION_ARRAY, more,
			MHD_OPTION_END);
		pthread_mutex_lock(&srv->lock);
		srv->starting = 0;
		pthread_mutex_unlock(&srv->lock);
	}
	if (!srv->daemon) {
		st = bb_error_set(err, BB_ERR_IO, "cannot serve on %s: %s", opt->listen,
				  srv->start_error[0] ? srv->start_error
						      : "libmicrohttpd failed to start");
		goto out;
	}
	info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = info ? info->port : 0;
	log_event(LOG_LEVEL_INFO, "http.started", LF_STR("listen", opt->listen),
		  LF_UINT("port", srv->port),
		  LF_STR("threading", threads ? "pool" : "per-connection"),
		  LF_UINT("threads", threads),
		  LF_UINT("max_connections", opt->max_connections),
		  LF_UINT("max_per_client", opt->max_per_client),
		  LF_INT("uploads", srv->conf->uploads_enabled));
	*out = srv;
	srv = NULL;
out:
	blob_server_free(srv);
	return st;
}

unsigned blob_server_port(const struct blob_server *srv)
{
	return srv ? srv->port : 0;
}

void blob_server_stop(struct blob_server *srv)
{
	struct timespec deadline;
	MHD_socket listen_fd;

	if (!srv)
		return;
	listen_fd = MHD_quiesce_daemon(srv->daemon);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += BLOB_SERVER_DRAIN_SECONDS;
	pthread_mutex_lock(&srv->lock);
	while (srv->in_flight > 0) {
		if (pthread_cond_timedwait(&srv->idle, &srv->lock, &deadline) == ETIMEDOUT)
			break;
	}
	if (srv->in_flight > 0)
		log_event(LOG_LEVEL_WARN, "http.stop_cut", LF_UINT("in_flight", srv->in_flight));
	pthread_mutex_unlock(&srv->lock);
	MHD_stop_daemon(srv->daemon);
	if (listen_fd != MHD_INVALID_SOCKET)
		close(listen_fd);
	log_event(LOG_LEVEL_INFO, "http.stopped", LF_UINT("port", srv->port));
	blob_server_free(srv);
}
