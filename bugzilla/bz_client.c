/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bugzilla 5.x REST client (bz_client.h), the transport and batching:
 * libcurl for HTTP, json-c for the bodies (decoded by bz_json.c), OpenSSL's
 * EVP for base64.
 *
 * Choices the header leaves open, made here (the decoding's are in
 * bz_json.c):
 *
 *  - Every URL is the base URL, a path, and query parameters escaped with
 *    curl_easy_escape().  The API key, when it travels as a parameter, is
 *    always appended last, so the same URL without it is what logs and error
 *    messages show.  Error messages are scrubbed of the key in any case: a
 *    server could echo it back (a redirect to https keeps the query string).
 *  - Redirects are not followed: a custom key header would go to the other
 *    host.  A 3xx answer is a protocol error naming the new location.
 *  - Comments and attachments of many bugs are asked for in one request
 *    (GET /rest/bug/<first>/comment?ids=<second>&ids=...), chunked so a URL
 *    stays under BZ_URL_BUDGET bytes and BZ_IDS_PER_REQUEST ids.  If such a
 *    request fails because one of its bugs vanished or became private
 *    meanwhile (Bugzilla codes 101, 102), the chunk is asked again bug by
 *    bug and the missing bug is left without comments.
 *  - POST requests use a fresh connection, so libcurl never replays one on
 *    its own after a reused connection died: posting a comment twice is a
 *    side effect the caller must decide about (bz_add_comment()).
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <curl/curl.h>
#include <glib.h>
#include <json-c/json.h>
#include <openssl/crypto.h>

#include "bugzilla/bz_client.h"
#include "bugzilla/bz_fields.h"
#include "bugzilla/bz_json.h"
#include "bugzilla/bz_transport.h"
#include "core/buf.h"
#include "core/http.h"
#include "core/log.h"

#define BZ_RESPONSE_CAP ((size_t)256 << 20)   /* largest body kept in memory */
#define BZ_URL_BUDGET 6000                    /* bytes of a batched URL */
#define BZ_IDS_PER_REQUEST 200                /* bugs or users per batched request */
#define BZ_VISIBILITY_BATCH 400               /* ids per visibility search (bz_check_visible()) */
#define BZ_DEFAULT_PAGE_SIZE 100
#define BZ_DEFAULT_TIMEOUT 60
#define BZ_CONNECT_TIMEOUT_MAX 30
#define BZ_RETRY_AFTER_MAX (7 * 86400)        /* longest wait a server may ask for */
#define BZ_CODE_LOGIN_REQUIRED 410

struct bz_client {
	CURL *curl;
	char *base;                  /* base URL without a trailing slash */
	char *api_key;               /* NULL: anonymous */
	char *api_key_escaped;       /* as it appears in a URL */
	int key_in_header;           /* the key travels in the header (resolved) */
	int key_auto;                /* BZ_KEY_AUTO not yet resolved: ask /rest/version */
	int key_check;               /* BZ_KEY_HEADER not yet checked: ask /rest/version */
	char *server_version;        /* from /rest/version (auto, header), NULL: not asked */
	struct curl_slist *json_headers;
	struct curl_slist *post_headers;
	struct curl_slist *cgi_headers;
	long timeout;
	char *subsystem_field;       /* NULL: none */
	char *include_extra;         /* ",f1,f2" more include_fields of searches, or NULL */
	char **gate_flags;           /* flags of the gate (bz_filter.flags default), or NULL */
	struct bz_fields *fields;    /* GET /rest/field/bug, once asked (bz_fields.c) */
	unsigned page_size;
	unsigned long requests;
	long long last_bugzilla_code; /* code of the last Bugzilla error object */
	char curl_error[CURL_ERROR_SIZE];
};

/* One HTTP exchange: the body is either kept (capped) or streamed to a sink. */
struct bz_transfer {
	struct bz_client *c;
	struct buf body;
	long http_code;
	time_t retry_after;          /* absolute, 0 if the server gave none */
	/* streaming (bz_download_attachment) */
	enum bb_status (*sink)(void *ctx, const void *data, size_t len);
	void *sink_ctx;
	uint64_t max_size;
	uint64_t delivered;
	int decided;                 /* looked at status and type yet */
	int not_raw;                 /* the answer is not the file: fall back */
	enum bb_status write_status; /* why the body callback stopped the transfer */
	const char *method;          /* "PUT" for a body sent with PUT; NULL: POST */
	int meta;                    /* /rest/version, /rest/field/bug: not counted */
};

/* ---- HTTP -------------------------------------------------------------- */

static void transfer_init(struct bz_transfer *t, struct bz_client *c)
{
	memset(t, 0, sizeof(*t));
	t->c = c;
	buf_init_capped(&t->body, BZ_RESPONSE_CAP);
}

static void transfer_release(struct bz_transfer *t)
{
	buf_release(&t->body);
}

static int content_type_is_html(struct bz_client *c)
{
	char *type = NULL;

	if (curl_easy_getinfo(c->curl, CURLINFO_CONTENT_TYPE, &type) != CURLE_OK || !type)
		return 0;
	while (*type == ' ')
		type++;
	return !strncasecmp(type, "text/html", 9);
}

/* Decides, at the first byte of a download, whether it is the file itself. */
static void transfer_decide(struct bz_transfer *t)
{
	long code = 0;

	t->decided = 1;
	curl_easy_getinfo(t->c->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200 || content_type_is_html(t->c))
		t->not_raw = 1;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *p)
{
	struct bz_transfer *t = p;
	size_t len = size * nmemb;
	enum bb_status st;

	if (!t->sink) {
		st = buf_add(&t->body, data, len);
		if (st) {
			t->write_status = st;
			return 0;
		}
		return len;
	}
	if (!t->decided)
		transfer_decide(t);
	if (t->not_raw)
		return 0;   /* stop: bz_download_attachment() falls back to REST */
	if (len > t->max_size - t->delivered) {
		t->write_status = BB_ERR_TOO_LARGE;
		return 0;
	}
	st = t->sink(t->sink_ctx, data, len);
	if (st) {
		t->write_status = st;
		return 0;
	}
	t->delivered += len;
	return len;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *p)
{
	struct bz_transfer *t = p;
	size_t len = size * nmemb;

	http_header_line(data, len, BZ_RETRY_AFTER_MAX, &t->retry_after);
	return len;
}

static int connection_was_reset(CURLcode rc)
{
	return rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR || rc == CURLE_GOT_NOTHING;
}

/* Appends ?name=value or &name=value, escaped. */
static enum bb_status url_param(struct bz_client *c, struct buf *url, const char *name,
				const char *value)
{
	char *escaped = curl_easy_escape(c->curl, value, 0);
	enum bb_status st;

	if (!escaped)
		return BB_ERR_NOMEM;
	st = buf_addf(url, "%c%s=%s", strchr(url->data, '?') ? '&' : '?', name, escaped);
	curl_free(escaped);
	return st;
}

static enum bb_status url_param_id(struct buf *url, const char *name, long long id)
{
	return buf_addf(url, "%c%s=%lld", strchr(url->data, '?') ? '&' : '?', name, id);
}

enum key_place {
	KEY_REST,    /* api_key= unless the key goes in the header */
	KEY_CGI,     /* Bugzilla_api_key= whenever there is a key */
	KEY_NONE,    /* no key parameter (the auto probe of /rest/version) */
};

static enum bb_status client_headers(struct bz_client *c);
static enum bb_status url_start(struct bz_client *c, struct buf *url, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum bb_status response_json(struct bz_client *c, struct bz_transfer *t,
				    const char *log_url, json_object **out, struct bb_error *err);
static void slist_free_clean(struct curl_slist *list);
static enum bb_status bz_perform(struct bz_client *c, struct bz_transfer *t,
				 const struct buf *url, enum key_place place,
				 const char *post_body, struct bb_error *err);

/* 5.1.x: "5.1", "5.1.2", "5.1.2+", not "5.10". */
static int version_is_5_1(const char *v)
{
	return v && !strncmp(v, "5.1", 3) && (!v[3] || v[3] == '.' || v[3] == '+');
}

/* Whether Bugzilla v ignores the X-BUGZILLA-API-KEY header: the 5.0 line
 * (5.0.x, 5.2) and anything older; 5.1.x and later (6, 20240101.1) read
 * it.  An unknown version is given the benefit of the doubt. */
static int version_ignores_header(const char *v)
{
	int major, minor = 0;

	if (!v || sscanf(v, "%d.%d", &major, &minor) < 1)
		return 0;
	if (major != 5)
		return major < 5;
	return minor != 1 && minor <= 2;
}

/* GET /rest/version, anonymously, into c->server_version (NULL when it
 * cannot be had: err says why, when it has a message). */
static void server_version_fetch(struct bz_client *c, struct bb_error *err)
{
	struct buf url = BUF_INIT;
	struct bz_transfer t;
	json_object *root = NULL;
	const char *v = NULL;

	transfer_init(&t, c);
	t.meta = 1;
	if (!url_start(c, &url, "/rest/version") &&
	    !bz_perform(c, &t, &url, KEY_NONE, NULL, err) &&
	    !response_json(c, &t, url.data, &root, err))
		v = json_object_get_string(bz_jget(root, "version"));
	free(c->server_version);
	c->server_version = v ? bz_text_repair(v, strlen(v)) : NULL;
	json_object_put(root);
	transfer_release(&t);
	buf_release(&url);
}

/* api_key_in = header: GET /rest/version once, anonymously; a server that
 * says 5.2 or older (but 5.1.x) ignores the header, so every request runs
 * as anonymous: warned once. */
static void key_header_check(struct bz_client *c)
{
	struct bb_error err = BB_ERROR_INIT;

	c->key_check = 0;
	server_version_fetch(c, &err);
	if (!version_ignores_header(c->server_version))
		return;
	log_event(LOG_LEVEL_WARN, "bz.key_in_ignored", LF_STR("version", c->server_version),
		  LF_STR("key_in", "header"),
		  LF_STR("reason", "this Bugzilla ignores the X-BUGZILLA-API-KEY header (only 5.1"
				   " reads it): requests run anonymously; set [bugzilla]"
				   " api_key_in = param or auto"));
}

/* api_key_in = auto: GET /rest/version once, anonymously; the header for a
 * 5.1.x server, the parameter for any other and when the version cannot be
 * had (every 5.x reads the parameter). */
static void key_place_resolve(struct bz_client *c)
{
	struct bb_error err = BB_ERROR_INIT;
	struct curl_slist *old[3];

	c->key_auto = 0;
	server_version_fetch(c, &err);
	if (version_is_5_1(c->server_version)) {
		old[0] = c->json_headers;
		old[1] = c->post_headers;
		old[2] = c->cgi_headers;
		c->json_headers = c->post_headers = c->cgi_headers = NULL;
		c->key_in_header = 1;
		if (client_headers(c)) {
			slist_free_clean(c->json_headers);
			slist_free_clean(c->post_headers);
			slist_free_clean(c->cgi_headers);
			c->json_headers = old[0];
			c->post_headers = old[1];
			c->cgi_headers = old[2];
			c->key_in_header = 0;
		} else {
			for (int i = 0; i < 3; i++)
				slist_free_clean(old[i]);
		}
	}
	/* the mode is no secret, but a field named api_key_in would be
	 * redacted as one (log_key_is_secret()): key_in */
	log_event(c->server_version ? LOG_LEVEL_INFO : LOG_LEVEL_WARN, "bz.api_key_in",
		  LF_STR("version", c->server_version ? c->server_version : "unknown"),
		  LF_STR("key_in", c->key_in_header ? "header" : "param"),
		  LF_STR("reason", c->server_version ? "api_key_in = auto"
			 : err.message[0] ? err.message : "no version in the answer"));
}

/* Performs one request.  url is what logs show; the key is added here.  The
 * body is kept in t->body (or streamed to t->sink).  Fails only for transport
 * problems; the HTTP status is left in t->http_code.  An idempotent request
 * whose reused connection was reset is made once more on a fresh one. */
static enum bb_status bz_perform(struct bz_client *c, struct bz_transfer *t,
				 const struct buf *url, enum key_place place,
				 const char *post_body, struct bb_error *err)
{
	struct buf full = BUF_INIT;
	struct curl_slist *headers;
	enum bb_status st = BB_OK;
	CURLcode rc = CURLE_OK;
	long connects = 0;
	char message[BZ_MESSAGE_MAX];

	if (c->key_auto && c->api_key && place == KEY_REST)
		key_place_resolve(c);
	if (c->key_check && c->api_key && place == KEY_REST)
		key_header_check(c);
	c->last_bugzilla_code = 0;
	if (buf_add(&full, url->data, url->len)) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (c->api_key && place != KEY_NONE && (place == KEY_CGI || !c->key_in_header) &&
	    buf_addf(&full, "%c%s=%s", strchr(url->data, '?') ? '&' : '?',
		     place == KEY_CGI ? "Bugzilla_api_key" : "api_key", c->api_key_escaped)) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	headers = post_body ? c->post_headers : place == KEY_CGI ? c->cgi_headers
								  : c->json_headers;
	for (int attempt = 0; attempt < 2; attempt++) {
		buf_reset(&t->body);
		t->http_code = 0;
		t->retry_after = 0;
		t->write_status = BB_OK;
		t->decided = t->not_raw = 0;
		curl_easy_setopt(c->curl, CURLOPT_URL, full.data);
		curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, headers);
		if (post_body) {
			curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, post_body);
			curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
					 (curl_off_t)strlen(post_body));
			curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, t->method);
		} else {
			curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
		}
		curl_easy_setopt(c->curl, CURLOPT_FRESH_CONNECT, (post_body || attempt) ? 1L : 0L);
		if (t->sink) {
			/* a big download may take long: only stalls end it */
			curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, 0L);
			curl_easy_setopt(c->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
			curl_easy_setopt(c->curl, CURLOPT_LOW_SPEED_TIME, c->timeout);
			curl_easy_setopt(c->curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)0);
		} else {
			curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, c->timeout);
			curl_easy_setopt(c->curl, CURLOPT_LOW_SPEED_LIMIT, 0L);
			curl_easy_setopt(c->curl, CURLOPT_LOW_SPEED_TIME, 0L);
			curl_easy_setopt(c->curl, CURLOPT_MAXFILESIZE_LARGE,
					 (curl_off_t)BZ_RESPONSE_CAP);
		}
		curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, t);
		curl_easy_setopt(c->curl, CURLOPT_HEADERDATA, t);
		c->curl_error[0] = '\0';
		rc = curl_easy_perform(c->curl);
		if (!t->meta)
			c->requests++;
		curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &t->http_code);
		connects = 0;
		curl_easy_getinfo(c->curl, CURLINFO_NUM_CONNECTS, &connects);
		log_event(LOG_LEVEL_DEBUG, "bz.request",
			  LF_STR("method", post_body ? (t->method ? t->method : "POST") : "GET"),
			  LF_STR("url", url->data),
			  LF_INT("http", t->http_code), LF_INT("curl", rc),
			  LF_UINT("bytes", t->sink ? t->delivered : t->body.len),
			  LF_INT("new_connections", connects));
		if (rc == CURLE_OK || post_body || attempt || connects != 0 ||
		    t->delivered || !connection_was_reset(rc))
			break;
		log_event(LOG_LEVEL_INFO, "bz.retry", LF_STR("url", url->data),
			  LF_STR("reason", curl_easy_strerror(rc)));
	}
	curl_easy_setopt(c->curl, CURLOPT_FRESH_CONNECT, 0L);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, NULL);
	curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, NULL);
	if (rc == CURLE_OK)
		goto out;
	if (rc == CURLE_WRITE_ERROR && t->not_raw)
		goto out;   /* the caller looks at t->not_raw */
	if (rc == CURLE_WRITE_ERROR && t->write_status) {
		if (t->write_status == BB_ERR_TOO_LARGE)
			st = bb_error_set(err, BB_ERR_TOO_LARGE, "answer of %s is too large",
					  url->data);
		else
			st = bb_error_set(err, t->write_status, "%s: storing the answer failed (%s)",
					  url->data, status_str(t->write_status));
		goto out;
	}
	bz_message_clean(&(struct bz_secrets){ c->api_key, c->api_key_escaped }, c->curl_error[0] ? c->curl_error : curl_easy_strerror(rc),
			 strlen(c->curl_error[0] ? c->curl_error : curl_easy_strerror(rc)),
			 message, sizeof(message));
	st = bb_error_set(err, http_fold_curl(rc), "%s: %s", url->data, message);
out:
	if (full.alloc)
		OPENSSL_cleanse(full.data, full.len);
	buf_release(&full);
	return st;
}

/* Adds to a Bugzilla error's message the URL it answered (without the key)
 * and, for "You must log in" to a request that carried the key, how the
 * key went. */
static void error_add_url(struct bz_client *c, struct bb_error *err, const char *log_url)
{
	const char *hint = "";
	size_t len;

	if (!err)
		return;
	if (c->api_key && c->last_bugzilla_code == BZ_CODE_LOGIN_REQUIRED)
		hint = c->key_in_header
			? " (the API key went in the X-BUGZILLA-API-KEY header, which only"
			  " Bugzilla 5.1 reads: set [bugzilla] api_key_in = param or auto)"
			: " (the API key went as the api_key parameter, yet Bugzilla took the"
			  " request as anonymous: check [bugzilla] api_key and api_key_in)";
	len = strlen(err->message);
	snprintf(err->message + len, sizeof(err->message) - len, "%s (from %s)", hint, log_url);
}

/* Folds a completed exchange's HTTP status and body into a status; on
 * success *out is the parsed JSON object (json_object_put() it). */
static enum bb_status response_json(struct bz_client *c, struct bz_transfer *t,
				    const char *log_url, json_object **out, struct bb_error *err)
{
	json_object *root = NULL;
	struct bb_error parse_err = BB_ERROR_INIT;
	enum bb_status st = BB_OK, parsed;
	char *location = NULL;
	char message[BZ_MESSAGE_MAX];

	*out = NULL;
	c->last_bugzilla_code = 0;
	parsed = bz_json_parse_object(t->body.data, t->body.len, &root, &parse_err);
	if (t->http_code < 200 || t->http_code >= 300) {
		if (!parsed && (st = bz_fold_error_object(&(struct bz_secrets){ c->api_key, c->api_key_escaped },
					   &c->last_bugzilla_code, root, t->http_code, err)))
			error_add_url(c, err, log_url);
		if (!st) {
			st = status_from_http(t->http_code);
			if (t->http_code >= 300 && t->http_code < 400 &&
			    curl_easy_getinfo(c->curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK &&
			    location) {
				bz_message_clean(&(struct bz_secrets){ c->api_key, c->api_key_escaped }, location, strlen(location), message, sizeof(message));
				bb_error_set(err, st, "HTTP %ld from %s: redirected to %s (check the Bugzilla URL)",
					     t->http_code, log_url, message);
			} else {
				bb_error_set(err, st, "HTTP %ld from %s", t->http_code, log_url);
			}
		}
		if (st == BB_ERR_TEMPORARY && err)
			err->retry_after = t->retry_after;
		goto out;
	}
	if (parsed) {
		st = bb_error_set(err, parsed, "%s from %s", parse_err.message, log_url);
		goto out;
	}
	st = bz_fold_error_object(&(struct bz_secrets){ c->api_key, c->api_key_escaped },
					   &c->last_bugzilla_code, root, t->http_code, err);
	if (st) {
		error_add_url(c, err, log_url);
		goto out;
	}
	*out = root;
	root = NULL;
out:
	json_object_put(root);
	return st;
}

/* GET url (without the key) and parse the JSON answer. */
static enum bb_status get_json(struct bz_client *c, const struct buf *url, json_object **out,
			       struct bb_error *err)
{
	struct bz_transfer t;
	enum bb_status st;

	transfer_init(&t, c);
	st = bz_perform(c, &t, url, KEY_REST, NULL, err);
	if (!st)
		st = response_json(c, &t, url->data, out, err);
	transfer_release(&t);
	return st;
}

static enum bb_status url_start(struct bz_client *c, struct buf *url, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

enum bb_status bz_get_meta_json(struct bz_client *c, const char *path, json_object **out,
				struct bb_error *err)
{
	struct buf url = BUF_INIT;
	struct bz_transfer t;
	enum bb_status st;

	*out = NULL;
	transfer_init(&t, c);
	t.meta = 1;
	if (buf_addstr(&url, c->base) || buf_addstr(&url, path))
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	else if (!(st = bz_perform(c, &t, &url, KEY_REST, NULL, err)))
		st = response_json(c, &t, url.data, out, err);
	transfer_release(&t);
	buf_release(&url);
	return st;
}

char *bz_client_escape(struct bz_client *c, const char *text)
{
	return curl_easy_escape(c->curl, text, 0);
}

struct bz_fields **bz_client_fields_cache(struct bz_client *c)
{
	return &c->fields;
}

static enum bb_status url_start(struct bz_client *c, struct buf *url, const char *fmt, ...)
{
	va_list ap;
	enum bb_status st;

	buf_reset(url);
	st = buf_addstr(url, c->base);
	if (st)
		return st;
	va_start(ap, fmt);
	st = buf_vaddf(url, fmt, ap);
	va_end(ap);
	return st;
}

/* ---- client ------------------------------------------------------------ */

static void slist_free_clean(struct curl_slist *list)
{
	for (struct curl_slist *p = list; p; p = p->next)
		OPENSSL_cleanse(p->data, strlen(p->data));
	curl_slist_free_all(list);
}

static void secret_free(char *s)
{
	if (!s)
		return;
	OPENSSL_cleanse(s, strlen(s));
	free(s);
}

void bz_client_free(struct bz_client *c)
{
	if (!c)
		return;
	if (c->curl)
		curl_easy_cleanup(c->curl);
	slist_free_clean(c->json_headers);
	slist_free_clean(c->post_headers);
	slist_free_clean(c->cgi_headers);
	secret_free(c->api_key);
	if (c->api_key_escaped) {
		OPENSSL_cleanse(c->api_key_escaped, strlen(c->api_key_escaped));
		curl_free(c->api_key_escaped);
	}
	free(c->base);
	free(c->subsystem_field);
	free(c->include_extra);
	free(c->server_version);
	for (char **p = c->gate_flags; p && *p; p++)
		free(*p);
	free(c->gate_flags);
	bz_fields_free(c->fields);
	free(c);
}

unsigned long bz_client_requests(const struct bz_client *c)
{
	return c ? c->requests : 0;
}

int bz_client_last_code(const struct bz_client *c)
{
	return c ? c->last_bugzilla_code : 0;
}

int bz_client_bug_hidden(const struct bz_client *c, enum bb_status st)
{
	return c && (st == BB_ERR_NOT_FOUND || st == BB_ERR_AUTH) &&
	       (c->last_bugzilla_code == BZ_CODE_BUG_NOT_FOUND ||
		c->last_bugzilla_code == BZ_CODE_BUG_ACCESS_DENIED);
}

/* Builds the three header lists; the key header goes in all of them. */
static enum bb_status client_headers(struct bz_client *c)
{
	struct buf key = BUF_INIT;
	enum bb_status st = BB_ERR_NOMEM;
	struct curl_slist **lists[] = { &c->json_headers, &c->post_headers, &c->cgi_headers };
	const char *accept[] = { "Accept: application/json", "Accept: application/json",
				 "Accept: */*" };
	struct curl_slist *l;

	if (c->api_key && c->key_in_header &&
	    buf_addf(&key, "X-BUGZILLA-API-KEY: %s", c->api_key))
		goto out;
	for (int i = 0; i < 3; i++) {
		l = curl_slist_append(NULL, accept[i]);
		if (!l)
			goto out;
		*lists[i] = l;
		if (i == 1 && !curl_slist_append(l, "Content-Type: application/json"))
			goto out;
		/* no "Expect: 100-continue" pause before a POST body */
		if (i == 1 && !curl_slist_append(l, "Expect:"))
			goto out;
		if (key.len && !curl_slist_append(l, key.data))
			goto out;
	}
	st = BB_OK;
out:
	if (key.alloc)
		OPENSSL_cleanse(key.data, key.len);
	buf_release(&key);
	return st;
}

/* 1 if the host of url, as libcurl (which will connect to it) reads it, is
 * this machine: the name "localhost", an address of 127.0.0.0/8, ::1 or
 * ::ffff:127.x.y.z.  Addresses are compared as addresses, never as string
 * prefixes: "localhost.attacker.example", "127.0.0.1.attacker.example" and
 * "127.0.0.1@attacker.example" (a user name before the host) are other
 * hosts.  libcurl writes IPv4 addresses in their dotted form ("127.1" comes
 * back as 127.0.0.1) and IPv6 ones in brackets. */
static int is_loopback_url(const char *url)
{
	CURLU *u = curl_url();
	char *host = NULL;
	int loopback = 0;

	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host)
		goto out;
	if (!strcasecmp(host, "localhost")) {
		loopback = 1;
	} else if (host[0] == '[') {
		size_t len = strlen(host);
		struct in6_addr a6;

		if (len < 3 || host[len - 1] != ']')
			goto out;
		host[len - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &a6) != 1)
			goto out;
		loopback = IN6_IS_ADDR_LOOPBACK(&a6) ||
			   (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	} else {
		struct in_addr a4;

		loopback = inet_pton(AF_INET, host, &a4) == 1 &&
			   (ntohl(a4.s_addr) >> 24) == 127;
	}
out:
	curl_free(host);
	curl_url_cleanup(u);
	return loopback;
}

/* A field name fit for include_fields: letters, digits, '_', '.'. */
static int field_name_ok(const char *name)
{
	if (!name || !*name)
		return 0;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.')
			return 0;
	return 1;
}

/* The extra include_fields and the gate's flags of the options. */
static enum bb_status client_lists(struct bz_client *c, const struct bz_client_options *opt)
{
	static const char *const fixed[] = { "cf_regression", "flags", NULL };
	struct buf extra = BUF_INIT;
	size_t n = 0;

	for (const char *const *p = opt->fields; p && *p; p++) {
		int dup = !field_name_ok(*p) ||
			  (c->subsystem_field && !strcmp(*p, c->subsystem_field));

		for (size_t i = 0; fixed[i] && !dup; i++)
			dup = !strcmp(*p, fixed[i]);
		for (const char *const *q = opt->fields; q < p && !dup; q++)
			dup = !strcmp(*p, *q);
		if (!dup && buf_addf(&extra, ",%s", *p)) {
			buf_release(&extra);
			return BB_ERR_NOMEM;
		}
	}
	if (extra.len && !(c->include_extra = strdup(extra.data))) {
		buf_release(&extra);
		return BB_ERR_NOMEM;
	}
	buf_release(&extra);
	for (const char *const *p = opt->flags; p && *p; p++)
		n++;
	if (!n)
		return BB_OK;
	if (!(c->gate_flags = calloc(n + 1, sizeof(char *))))
		return BB_ERR_NOMEM;
	n = 0;
	for (const char *const *p = opt->flags; p && *p; p++)
		if (**p && !(c->gate_flags[n++] = strdup(*p)))
			return BB_ERR_NOMEM;
	return BB_OK;
}

enum bb_status bz_client_new(struct bz_client **out, const struct bz_client_options *opt,
			     struct bb_error *err)
{
	struct bz_client *c = NULL;
	enum bb_status st = BB_OK;
	size_t len;

	*out = NULL;
	if (!opt || !opt->url || (strncasecmp(opt->url, "https://", 8) &&
				  strncasecmp(opt->url, "http://", 7))) {
		st = bb_error_set(err, BB_ERR_CONFIG, "Bugzilla URL must start with https:// or http://");
		goto out;
	}
	if (strpbrk(opt->url, "?# \t\r\n")) {
		st = bb_error_set(err, BB_ERR_CONFIG,
				  "Bugzilla URL must be a plain base URL (no query, no spaces)");
		goto out;
	}
	if (opt->api_key) {
		for (const char *p = opt->api_key; *p; p++) {
			if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) {
				st = bb_error_set(err, BB_ERR_CONFIG,
						  "the Bugzilla API key holds characters that cannot be sent");
				goto out;
			}
		}
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	c->base = strdup(opt->url);
	if (!c->base) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	len = strlen(c->base);
	while (len && c->base[len - 1] == '/')
		c->base[--len] = '\0';
	c->key_in_header = opt->key_in_header == BZ_KEY_HEADER;
	c->key_auto = opt->key_in_header == BZ_KEY_AUTO;
	c->key_check = c->key_in_header;
	c->timeout = opt->timeout > 0 ? opt->timeout : BZ_DEFAULT_TIMEOUT;
	c->page_size = opt->page_size ? opt->page_size : BZ_DEFAULT_PAGE_SIZE;
	if (opt->subsystem_field && opt->subsystem_field[0] &&
	    !(c->subsystem_field = strdup(opt->subsystem_field))) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	if ((st = client_lists(c, opt)))
		goto out;
	c->curl = curl_easy_init();
	if (!c->curl) {
		st = bb_error_set(err, BB_ERR_INTERNAL, "libcurl cannot make a handle");
		goto out;
	}
	if (opt->api_key && opt->api_key[0]) {
		c->api_key = strdup(opt->api_key);
		if (!c->api_key) {
			st = BB_ERR_NOMEM;
			goto out;
		}
		c->api_key_escaped = curl_easy_escape(c->curl, c->api_key, 0);
		if (!c->api_key_escaped) {
			st = BB_ERR_NOMEM;
			goto out;
		}
		if (!strncasecmp(c->base, "http://", 7) && !is_loopback_url(c->base))
			log_event(LOG_LEVEL_WARN, "bz.insecure", LF_STR("url", c->base),
				  LF_STR("reason", "API key sent over plain http"));
	}
	if (client_headers(c)) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->curl_error);
	curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "bugbridge/" PACKAGE_VERSION);
	curl_easy_setopt(c->curl, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c->curl, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT,
			 c->timeout < BZ_CONNECT_TIMEOUT_MAX ? c->timeout : (long)BZ_CONNECT_TIMEOUT_MAX);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	if (opt->ca_file && opt->ca_file[0] &&
	    curl_easy_setopt(c->curl, CURLOPT_CAINFO, opt->ca_file) != CURLE_OK) {
		st = bb_error_set(err, BB_ERR_CONFIG, "libcurl does not accept a CA file");
		goto out;
	}
	if (opt->proxy && opt->proxy[0] &&
	    curl_easy_setopt(c->curl, CURLOPT_PROXY, opt->proxy) != CURLE_OK) {
		st = bb_error_set(err, BB_ERR_CONFIG, "libcurl does not accept the proxy %s",
				  opt->proxy);
		goto out;
	}
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c->curl, CURLOPT_HEADERFUNCTION, on_header);
	*out = c;
	c = NULL;
out:
	if (st == BB_ERR_NOMEM)
		bb_error_set(err, st, "out of memory");
	bz_client_free(c);
	return st;
}

/* ---- requests ---------------------------------------------------------- */

enum bb_status bz_server_time(struct bz_client *c, time_t *now, struct bb_error *err)
{
	static const char *const keys[] = { "db_time", "web_time_utc", "web_time" };
	struct buf url = BUF_INIT;
	json_object *root = NULL, *v = NULL;
	enum bb_status st;
	time_t t = (time_t)-1;

	st = url_start(c, &url, "/rest/time");
	if (st) {
		st = bb_error_set(err, st, "out of memory");
		goto out;
	}
	st = get_json(c, &url, &root, err);
	if (st)
		goto out;
	for (size_t i = 0; i < 3 && t == (time_t)-1; i++) {
		v = bz_jget(root, keys[i]);
		if (v && json_object_is_type(v, json_type_string))
			t = bz_parse_time(json_object_get_string(v));
	}
	if (t == (time_t)-1) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "%s gave no usable time", url.data);
		goto out;
	}
	*now = t;
out:
	json_object_put(root);
	buf_release(&url);
	return st;
}

static int bug_change_cmp(const void *a, const void *b)
{
	const struct bz_bug *x = a, *y = b;

	if (x->last_change_time != y->last_change_time)
		return x->last_change_time < y->last_change_time ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int bug_id_cmp(const void *a, const void *b)
{
	const struct bz_bug *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->last_change_time != y->last_change_time)
		return x->last_change_time < y->last_change_time ? -1 : 1;
	return 0;
}

/* Keeps one copy of each bug, the most recently changed (a bug that changed
 * while the pages were read shows up twice), and sorts by change time. */
static void bugs_dedupe(struct bz_bug *bugs, size_t *count)
{
	size_t n = *count, k = 0;

	if (n < 2)
		return;
	qsort(bugs, n, sizeof(*bugs), bug_id_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && bugs[i + 1].id == bugs[i].id)
			bz_bug_release(&bugs[i]);
		else
			bugs[k++] = bugs[i];
	}
	*count = k;
	qsort(bugs, k, sizeof(*bugs), bug_change_cmp);
}

static enum bb_status add_list_params(struct bz_client *c, struct buf *url, const char *name,
				      char **values)
{
	enum bb_status st = BB_OK;

	for (char **p = values; p && *p && !st; p++)
		if (**p)
			st = url_param(c, url, name, *p);
	return st;
}

/* One flag term of the gate: "name+" (flagtypes.name is a flag's name
 * and status run together) equals; a bare name matches + and ? by
 * regexp. */
static enum bb_status add_flag_term(struct bz_client *c, struct buf *url, int n,
				    const char *flag)
{
	struct buf re = BUF_INIT;
	size_t len = strlen(flag);
	int bare = len && !strchr("+-?", flag[len - 1]);
	enum bb_status st;
	char name[16];

	snprintf(name, sizeof(name), "o%d", n);
	if ((st = url_param(c, url, name, bare ? "regexp" : "equals")))
		return st;
	if (bare) {
		st = buf_addstr(&re, "^");
		for (const char *p = flag; *p && !st; p++)
			st = isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == ' ' ||
			     (unsigned char)*p >= 0x80 ? buf_addf(&re, "%c", *p)
						      : buf_addf(&re, "\\%c", *p);
		if (!st)
			st = buf_addstr(&re, "[+?]$");
	}
	snprintf(name, sizeof(name), "v%d", n);
	if (!st)
		st = url_param(c, url, name, bare ? re.data : flag);
	buf_release(&re);
	return st;
}

/* The gate: keywords=K alone, or with flags a parenthesised OR in the
 * boolean chart (Bugzilla::Search's custom search: OP opens a group whose
 * joiner is its jN, CP closes it), ANDed with the other parameters. */
static enum bb_status add_gate(struct bz_client *c, struct buf *url, const char *keyword,
			       char **flags)
{
	int n = 1, has_flags = 0;
	enum bb_status st;
	char name[16];

	for (char **p = flags; p && *p && !has_flags; p++)
		has_flags = **p != '\0';
	if (!has_flags)
		return keyword && keyword[0] ? url_param(c, url, "keywords", keyword) : BB_OK;
	if ((st = url_param(c, url, "f1", "OP")) || (st = url_param(c, url, "j1", "OR")))
		return st;
	if (keyword && keyword[0]) {
		n++;
		snprintf(name, sizeof(name), "f%d", n);
		if ((st = url_param(c, url, name, "keywords")))
			return st;
		snprintf(name, sizeof(name), "o%d", n);
		if ((st = url_param(c, url, name, "anywords")))
			return st;
		snprintf(name, sizeof(name), "v%d", n);
		if ((st = url_param(c, url, name, keyword)))
			return st;
	}
	for (char **p = flags; *p; p++) {
		if (!**p)
			continue;
		n++;
		snprintf(name, sizeof(name), "f%d", n);
		if ((st = url_param(c, url, name, "flagtypes.name")))
			return st;
		if ((st = add_flag_term(c, url, n, *p)))
			return st;
	}
	snprintf(name, sizeof(name), "f%d", n + 1);
	return url_param(c, url, name, "CP");
}

/* &id=1,2,3 */
static int add_ids(struct buf *url, const long long *ids, size_t n)
{
	int r = buf_addstr(url, "&id=");

	for (size_t i = 0; i < n && !r; i++)
		r = buf_addf(url, "%s%lld", i ? "%2C" : "", ids[i]);
	return r;
}

enum bb_status bz_search_changed(struct bz_client *c, time_t since, const struct bz_filter *f,
				 struct bz_bug **bugs, size_t *count, struct bb_error *err)
{
	static const char fields[] =
		"id,summary,product,component,status,resolution,severity,priority,version,url,"
		"creator,creator_detail,assigned_to,assigned_to_detail,creation_time,"
		"last_change_time,keywords,groups,cc,dupe_of,flags,cf_regression";
	struct buf url = BUF_INIT, include = BUF_INIT;
	char **flags = f && f->flags ? f->flags : c->gate_flags;
	json_object *root = NULL;
	struct bz_bug *found = NULL;
	size_t nfound = 0, before, got;
	unsigned long long offset = 0;
	enum bb_status st = BB_OK;
	char when[32];

	*bugs = NULL;
	*count = 0;
	bz_format_time(since > 0 ? since : 0, when, sizeof(when));
	if (buf_addstr(&include, fields) ||
	    (c->subsystem_field && strcmp(c->subsystem_field, "cf_regression") &&
	     buf_addf(&include, ",%s", c->subsystem_field)) ||
	    (c->include_extra && buf_addstr(&include, c->include_extra))) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	for (;;) {
		if (url_start(c, &url, "/rest/bug") ||
		    url_param(c, &url, "last_change_time", when) ||
		    (f && add_list_params(c, &url, "product", f->products)) ||
		    (f && add_list_params(c, &url, "component", f->components)) ||
		    (f && add_list_params(c, &url, "bug_status", f->statuses)) ||
		    (f && f->nids && add_ids(&url, f->ids, f->nids)) ||
		    (!(f && f->nids) && add_gate(c, &url, f ? f->keyword : NULL, flags)) ||
		    url_param(c, &url, "order", "changeddate,bug_id") ||
		    buf_addf(&url, "&limit=%u&offset=%llu", c->page_size, offset) ||
		    url_param(c, &url, "include_fields", include.data)) {
			st = BB_ERR_NOMEM;
			goto out;
		}
		st = get_json(c, &url, &root, err);
		if (st)
			goto out;
		before = nfound;
		st = bz_bugs_from_root(root, c->subsystem_field, &found, &nfound, err);
		if (st)
			goto out;
		got = json_object_array_length(bz_jget(root, "bugs"));
		json_object_put(root);
		root = NULL;
		/* a short page ends the search; so does a page larger than asked
		 * (the server ignores limit) or one with nothing new (it ignores
		 * offset) */
		if (got != c->page_size)
			break;
		bugs_dedupe(found, &nfound);
		if (nfound <= before)
			break;
		offset += got;
	}
	bugs_dedupe(found, &nfound);
	*bugs = found;
	*count = nfound;
	found = NULL;
	nfound = 0;
out:
	if (st == BB_ERR_NOMEM)
		bb_error_set(err, st, "out of memory");
	json_object_put(root);
	for (size_t i = 0; i < nfound; i++)
		bz_bug_release(&found[i]);
	free(found);
	buf_release(&url);
	buf_release(&include);
	return st;
}

enum bb_status bz_find_bug_by_url(struct bz_client *c, const char *bug_url, long long *bug_id,
				  struct bb_error *err)
{
	struct buf url = BUF_INIT;
	json_object *root = NULL, *list;
	enum bb_status st;

	*bug_id = 0;
	if (url_start(c, &url, "/rest/bug") || url_param(c, &url, "url", bug_url) ||
	    url_param(c, &url, "include_fields", "id,url")) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = get_json(c, &url, &root, err)))
		goto out;
	list = bz_jget(root, "bugs");
	/* the search matches substrings: only the same URL counts */
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		json_object *b = json_object_array_get_idx(list, i);
		const char *u = json_object_get_string(bz_jget(b, "url"));

		if (u && !strcmp(u, bug_url) && bz_jid(bz_jget(b, "id")) > 0) {
			*bug_id = bz_jid(bz_jget(b, "id"));
			break;
		}
	}
out:
	json_object_put(root);
	buf_release(&url);
	return st;
}

/* ---- visibility --------------------------------------------------------- */

static int id_cmp(const void *a, const void *b)
{
	const long long *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The verdict of each bug of an answer whose id is among ids[0..n)
 * (ascending); the others' seen[] is left as it was (BZ_VISIBLE_NOT). */
static enum bb_status visibility_from_root(json_object *root, const long long *ids, size_t n,
					   enum bz_visibility *seen, struct bb_error *err)
{
	struct bz_bug *bugs = NULL;
	size_t nbugs = 0;
	enum bb_status st;

	st = bz_bugs_from_root(root, NULL, &bugs, &nbugs, err);
	for (size_t i = 0; i < nbugs; i++) {
		const long long *hit = bsearch(&bugs[i].id, ids, n, sizeof(*ids), id_cmp);

		if (hit)
			seen[hit - ids] = bz_bug_is_public(&bugs[i]) ? BZ_VISIBLE_PUBLIC
								     : BZ_VISIBLE_IN_GROUP;
		bz_bug_release(&bugs[i]);
	}
	free(bugs);
	return st;
}

/* The end of the batch of ids that starts at start: BZ_VISIBILITY_BATCH ids
 * at most, its URL within BZ_URL_BUDGET. */
static size_t visibility_batch_end(const struct bz_client *c, const long long *ids,
				   size_t start, size_t n)
{
	size_t len = strlen(c->base) + 96 + (c->api_key_escaped ? strlen(c->api_key_escaped) : 0);
	size_t end = start;

	while (end < n && end - start < BZ_VISIBILITY_BATCH) {
		char digits[32];

		len += (size_t)snprintf(digits, sizeof(digits), "%lld", ids[end]) + 3; /* %2C */
		if (end > start && len > BZ_URL_BUDGET)
			break;
		end++;
	}
	return end;
}

/* One bug a batch's answer lacked, asked alone: GET /rest/bug/<id>. */
static enum bb_status visibility_alone(struct bz_client *c, long long id,
				       enum bz_visibility *seen, struct bb_error *err)
{
	struct buf url = BUF_INIT;
	json_object *root = NULL;
	enum bb_status st;

	*seen = BZ_VISIBLE_NOT;
	if (url_start(c, &url, "/rest/bug/%lld", id) ||
	    url_param(c, &url, "include_fields", "id,groups")) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = get_json(c, &url, &root, err);
	if (st && bz_client_bug_hidden(c, st)) {
		bb_error_clear(err);   /* 101 deleted, 102 hidden: the answer */
		st = BB_OK;
		goto out;
	}
	/* an answer without the bug (no Bugzilla gives one) counts as hidden */
	if (!st)
		st = visibility_from_root(root, &id, 1, seen, err);
out:
	json_object_put(root);
	buf_release(&url);
	return st;
}

enum bb_status bz_check_visible(struct bz_client *c, const long long *ids, size_t n,
				enum bz_visibility *seen, unsigned long *asked_alone,
				struct bb_error *err)
{
	struct buf url = BUF_INIT;
	json_object *root = NULL;
	enum bb_status st = BB_OK;
	size_t start = 0, end;

	if (asked_alone)
		*asked_alone = 0;
	for (size_t i = 0; i < n; i++) {
		seen[i] = BZ_VISIBLE_NOT;
		if (ids[i] <= 0 || (i && ids[i] <= ids[i - 1])) {
			st = bb_error_set(err, BB_ERR_INTERNAL,
					  "bz_check_visible: ids must be positive and ascending");
			goto out;
		}
	}
	for (; start < n; start = end) {
		end = visibility_batch_end(c, ids, start, n);
		if (url_start(c, &url, "/rest/bug") ||
		    url_param(c, &url, "include_fields", "id,groups") ||
		    add_ids(&url, ids + start, end - start)) {
			st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		if ((st = get_json(c, &url, &root, err)) ||
		    (st = visibility_from_root(root, ids + start, end - start, seen + start,
					       err)))
			goto out;
		json_object_put(root);
		root = NULL;
	}
	/* A search leaves out what the account may not see, and deleted bugs;
	 * it is also cut at the server's max_search_results.  So each bug it
	 * left out is asked alone before it counts as hidden: its error (101,
	 * 102) is the proof.  That costs a request per bug hidden since the
	 * last check, once: a withdrawn bug is not checked again.  A bug of an
	 * answer is never BZ_VISIBLE_NOT, so that verdict marks the left out. */
	for (size_t i = 0; i < n; i++) {
		if (seen[i] != BZ_VISIBLE_NOT)
			continue;
		if (asked_alone)
			(*asked_alone)++;
		if ((st = visibility_alone(c, ids[i], &seen[i], err)))
			goto out;
	}
out:
	json_object_put(root);
	buf_release(&url);
	return st;
}

enum batch_kind { BATCH_COMMENTS, BATCH_ATTACHMENTS };

/* One batched request for bugs[0..n): comments or attachment metadata. */
static enum bb_status fetch_batch(struct bz_client *c, enum batch_kind kind, struct bz_bug *bugs,
				  size_t n, time_t new_since, struct bb_error *err)
{
	struct buf url = BUF_INIT;
	json_object *root = NULL;
	enum bb_status st;
	char when[32];

	if (url_start(c, &url, "/rest/bug/%lld/%s", bugs[0].id,
		      kind == BATCH_COMMENTS ? "comment" : "attachment")) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 1; i < n; i++)
		if (url_param_id(&url, "ids", bugs[i].id)) {
			st = BB_ERR_NOMEM;
			goto out;
		}
	if (kind == BATCH_COMMENTS && new_since > 0) {
		bz_format_time(new_since, when, sizeof(when));
		if (url_param(c, &url, "new_since", when)) {
			st = BB_ERR_NOMEM;
			goto out;
		}
	}
	if (kind == BATCH_ATTACHMENTS && url_param(c, &url, "exclude_fields", "data")) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	st = get_json(c, &url, &root, err);
	if (st)
		goto out;
	if (kind == BATCH_COMMENTS)
		st = bz_items_from_root(&bz_comment_kind, root, bugs, n, err);
	else
		st = bz_items_from_root(&bz_attachment_kind, root, bugs, n, err);
out:
	if (st == BB_ERR_NOMEM)
		bb_error_set(err, st, "out of memory");
	json_object_put(root);
	buf_release(&url);
	return st;
}

/* A bug of the batch is gone or hidden now (deleted, moved to a private
 * group): the rest of the batch is still wanted. */
static int bug_vanished(const struct bz_client *c, enum bb_status st)
{
	return (st == BB_ERR_NOT_FOUND || st == BB_ERR_AUTH) &&
	       (c->last_bugzilla_code == BZ_CODE_BUG_NOT_FOUND ||
		c->last_bugzilla_code == BZ_CODE_BUG_ACCESS_DENIED);
}

/* Batches of bugs whose URL stays within the budget. */
static size_t batch_end(const struct bz_client *c, const struct bz_bug *bugs, size_t start,
			size_t n)
{
	size_t len = strlen(c->base) + 64 + (c->api_key_escaped ? strlen(c->api_key_escaped) : 0);
	size_t end = start + 1;

	while (end < n && end - start < BZ_IDS_PER_REQUEST) {
		len += 26;   /* "&ids=" and up to 20 digits */
		if (len > BZ_URL_BUDGET)
			break;
		end++;
	}
	(void)bugs;
	return end;
}

/* each (when not NULL) gives each bug its own new_since: a batch asks
 * from the earliest of its bugs' (comments it did not need are merged as
 * any others). */
static enum bb_status fetch_batched(struct bz_client *c, enum batch_kind kind,
				    struct bz_bug *bugs, size_t n, time_t new_since,
				    const time_t *each, struct bb_error *err)
{
	enum bb_status st = BB_OK;
	size_t start, end;

	for (start = 0; start < n && !st; start = end) {
		time_t since = new_since;

		end = batch_end(c, bugs, start, n);
		for (size_t i = start; each && i < end; i++)
			if (i == start || each[i] < since)
				since = each[i];
		st = fetch_batch(c, kind, bugs + start, end - start, since, err);
		if (!st || !bug_vanished(c, st))
			continue;
		/* ask bug by bug; one that is gone keeps what it had */
		st = BB_OK;
		for (size_t i = start; i < end && !st; i++) {
			st = fetch_batch(c, kind, bugs + i, 1, each ? each[i] : new_since, err);
			if (st && bug_vanished(c, st)) {
				log_event(LOG_LEVEL_WARN, "bz.bug.vanished", LF_INT("bug", bugs[i].id),
					  LF_STR("reason", err ? err->message : status_str(st)));
				st = BB_OK;
			}
		}
	}
	if (!st)
		bb_error_clear(err);
	return st;
}

enum bb_status bz_fetch_comments(struct bz_client *c, struct bz_bug *bugs, size_t n,
				 time_t new_since, struct bb_error *err)
{
	return fetch_batched(c, BATCH_COMMENTS, bugs, n, new_since, NULL, err);
}

enum bb_status bz_fetch_comments_each(struct bz_client *c, struct bz_bug *bugs, size_t n,
				      const time_t *new_since, struct bb_error *err)
{
	return fetch_batched(c, BATCH_COMMENTS, bugs, n, 0, new_since, err);
}

enum bb_status bz_fetch_attachments(struct bz_client *c, struct bz_bug *bugs, size_t n,
				    struct bb_error *err)
{
	return fetch_batched(c, BATCH_ATTACHMENTS, bugs, n, 0, NULL, err);
}

/* The REST way: the whole file base64-encoded in a JSON answer. */
static enum bb_status download_rest(struct bz_client *c, long long id, uint64_t max_size,
				    enum bb_status (*sink)(void *ctx, const void *data, size_t len),
				    void *ctx, uint64_t *size, struct bb_error *err)
{
	struct buf url = BUF_INIT;
	struct bz_transfer t;
	json_object *root = NULL, *att, *data, *declared;
	enum bb_status st;
	char key[32];
	uint64_t cap;

	transfer_init(&t, c);
	/* base64 is 4/3 of the file; leave room for the JSON around it */
	if (max_size < BZ_RESPONSE_CAP) {
		cap = max_size / 3 * 4 + 65536;
		if (cap < BZ_RESPONSE_CAP)
			t.body.cap = (size_t)cap;
	}
	if (url_start(c, &url, "/rest/bug/attachment/%lld", id) ||
	    url_param(c, &url, "include_fields", "id,size,data")) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = bz_perform(c, &t, &url, KEY_REST, NULL, err);
	if (st == BB_ERR_TOO_LARGE)
		st = bb_error_set(err, BB_ERR_TOO_LARGE, "attachment %lld is larger than %llu bytes",
				  id, (unsigned long long)max_size);
	if (!st)
		st = response_json(c, &t, url.data, &root, err);
	if (st)
		goto out;
	snprintf(key, sizeof(key), "%lld", id);
	att = bz_jget(bz_jget(root, "attachments"), key);
	if (!att) {
		st = bb_error_set(err, BB_ERR_NOT_FOUND, "attachment %lld does not exist or is not visible",
				  id);
		goto out;
	}
	data = bz_jget(att, "data");
	if (!data || !json_object_is_type(data, json_type_string)) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "attachment %lld came without data", id);
		goto out;
	}
	st = bz_base64_to_sink(json_object_get_string(data), (size_t)json_object_get_string_len(data),
			    max_size, sink, ctx, size, err);
	if (st)
		goto out;
	declared = bz_jget(att, "size");
	if (declared && bz_jnum(declared) >= 0 && (uint64_t)bz_jnum(declared) != *size)
		st = bb_error_set(err, BB_ERR_CORRUPT, "attachment %lld: %llu bytes, server says %lld",
				  id, (unsigned long long)*size, bz_jnum(declared));
out:
	json_object_put(root);
	transfer_release(&t);
	buf_release(&url);
	return st;
}

enum bb_status bz_download_attachment(struct bz_client *c, long long attachment_id,
				      uint64_t max_size,
				      enum bb_status (*sink)(void *ctx, const void *data, size_t len),
				      void *ctx, uint64_t *size, struct bb_error *err)
{
	struct buf url = BUF_INIT;
	struct bz_transfer t;
	enum bb_status st;

	*size = 0;
	transfer_init(&t, c);
	t.sink = sink;
	t.sink_ctx = ctx;
	t.max_size = max_size;
	if (attachment_id <= 0) {
		st = bb_error_set(err, BB_ERR_INVALID, "no attachment id %lld", attachment_id);
		goto out;
	}
	if (url_start(c, &url, "/attachment.cgi?id=%lld", attachment_id)) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = bz_perform(c, &t, &url, KEY_CGI, NULL, err);
	if (st)
		goto out;
	if (!t.decided)
		transfer_decide(&t);   /* an empty body */
	if (!t.not_raw) {
		/* libcurl already failed a body shorter than its Content-Length */
		*size = t.delivered;
		goto out;
	}
	/* an HTML page (login, error) or a redirect: ask REST instead */
	log_event(LOG_LEVEL_DEBUG, "bz.attachment.fallback", LF_INT("attachment", attachment_id),
		  LF_INT("http", t.http_code));
	st = download_rest(c, attachment_id, max_size, sink, ctx, size, err);
out:
	transfer_release(&t);
	buf_release(&url);
	return st;
}

/* One batch of names for bz_fetch_users(). */
static enum bb_status fetch_user_batch(struct bz_client *c, struct bz_user *users, size_t n,
				       struct bb_error *err)
{
	struct buf url = BUF_INIT;
	json_object *root = NULL, *list, *u;
	enum bb_status st = BB_OK;
	size_t count;

	if (url_start(c, &url, "/rest/user")) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (users[i].login && users[i].login[0] &&
		    url_param(c, &url, "names", users[i].login)) {
			st = BB_ERR_NOMEM;
			goto out;
		}
	if (!strchr(url.data, '?'))
		goto out;
	if (url_param(c, &url, "include_fields", "name,real_name")) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	st = get_json(c, &url, &root, err);
	if (st)
		goto out;
	list = bz_jget(root, "users");
	count = list && json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
	for (size_t k = 0; k < count; k++) {
		json_object *name, *real;

		u = json_object_array_get_idx(list, k);
		name = bz_jget(u, "name");
		real = bz_jget(u, "real_name");
		if (!name || !json_object_is_type(name, json_type_string) || !real ||
		    !json_object_is_type(real, json_type_string))
			continue;
		for (size_t i = 0; i < n; i++) {
			if (!users[i].login || strcasecmp(users[i].login, json_object_get_string(name)))
				continue;
			if (bz_jset(&users[i].real_name, real)) {
				st = BB_ERR_NOMEM;
				goto out;
			}
		}
	}
out:
	if (st == BB_ERR_NOMEM)
		bb_error_set(err, st, "out of memory");
	json_object_put(root);
	buf_release(&url);
	return st;
}

enum bb_status bz_fetch_users(struct bz_client *c, struct bz_user *users, size_t n,
			      struct bb_error *err)
{
	enum bb_status st = BB_OK;
	size_t start, end, len;

	for (start = 0; start < n && !st; start = end) {
		len = strlen(c->base) + 64;
		for (end = start; end < n && end - start < BZ_IDS_PER_REQUEST; end++) {
			len += 7 + (users[end].login ? 3 * strlen(users[end].login) : 0);
			if (end > start && len > BZ_URL_BUDGET)
				break;
		}
		st = fetch_user_batch(c, users + start, end - start, err);
		if (st == BB_ERR_AUTH && !c->api_key) {
			st = BB_OK;   /* anonymous lookups are refused: names stay empty */
			break;
		}
		if (st == BB_ERR_NOT_FOUND && c->last_bugzilla_code == BZ_CODE_USER_NOT_FOUND) {
			/* one unknown login fails the batch: ask one by one */
			st = BB_OK;
			for (size_t i = start; i < end && !st; i++) {
				st = fetch_user_batch(c, users + i, 1, err);
				if (st == BB_ERR_NOT_FOUND)
					st = BB_OK;
			}
		}
	}
	if (!st)
		bb_error_clear(err);
	return st;
}

enum bb_status bz_user_in_group(struct bz_client *c, const char *login, const char *group,
				int *member, struct bb_error *err)
{
	struct buf url = BUF_INIT;
	json_object *root = NULL, *user, *groups;
	enum bb_status st;

	*member = 0;
	if (url_start(c, &url, "/rest/user") || url_param(c, &url, "names", login) ||
	    url_param(c, &url, "include_fields", "name,groups")) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = get_json(c, &url, &root, err);
	if (st == BB_ERR_NOT_FOUND && c->last_bugzilla_code == BZ_CODE_USER_NOT_FOUND) {
		bb_error_clear(err);
		st = BB_OK;   /* no such account: not a member */
		goto out;
	}
	if (st)
		goto out;
	user = json_object_array_get_idx(bz_jget(root, "users"), 0);
	groups = bz_jget(user, "groups");
	if (!groups || !json_object_is_type(groups, json_type_array)) {
		st = bb_error_set(err, BB_ERR_AUTH, "Bugzilla does not show the groups of %s to"
				  " bugbridge's account (it needs editusers)", login);
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		const char *name = json_object_get_string(bz_jget(json_object_array_get_idx(groups, i),
								  "name"));

		if (name && !strcmp(name, group))
			*member = 1;
	}
out:
	json_object_put(root);
	buf_release(&url);
	return st;
}

/* Sends body (a JSON object) with POST or PUT (method) to the path and
 * reads the answer into *answer (json_object_put() it).  Writes are never
 * retried: on BB_ERR_TEMPORARY the change may or may not have happened. */
static enum bb_status send_json(struct bz_client *c, const char *method, json_object *body,
				json_object **answer, struct bb_error *err, const char *path_fmt,
				...) __attribute__((format(printf, 6, 7)));
static enum bb_status send_json(struct bz_client *c, const char *method, json_object *body,
				json_object **answer, struct bb_error *err, const char *path_fmt,
				...)
{
	struct buf url = BUF_INIT;
	struct bz_transfer t;
	const char *payload;
	va_list ap;
	enum bb_status st;

	transfer_init(&t, c);
	t.method = method && strcmp(method, "POST") ? method : NULL;
	*answer = NULL;
	va_start(ap, path_fmt);
	st = buf_addstr(&url, c->base) ? BB_ERR_NOMEM : buf_vaddf(&url, path_fmt, ap);
	va_end(ap);
	payload = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN);
	if (st || !payload) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = bz_perform(c, &t, &url, KEY_REST, payload, err);
	if (!st)
		st = response_json(c, &t, url.data, answer, err);
out:
	transfer_release(&t);
	buf_release(&url);
	return st;
}

enum bb_status bz_add_comment(struct bz_client *c, long long bug_id, const char *text,
			      int is_private, long long *comment_id, struct bb_error *err)
{
	json_object *body = NULL, *root = NULL;
	char *fixed = NULL;
	enum bb_status st;

	*comment_id = 0;
	if (bug_id <= 0 || !text)
		return bb_error_set(err, BB_ERR_INVALID, "no bug or no text to comment with");
	fixed = bz_text_repair(text, strlen(text));
	body = json_object_new_object();
	if (!fixed || !body ||
	    json_object_object_add(body, "comment", json_object_new_string(fixed)) ||
	    json_object_object_add(body, "is_private", json_object_new_boolean(is_private != 0))) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = send_json(c, "POST", body, &root, err, "/rest/bug/%lld/comment", bug_id)))
		goto out;
	*comment_id = bz_jid(bz_jget(root, "id"));
	if (!*comment_id) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "Bugzilla answered a comment on bug %lld"
				  " without a comment id", bug_id);
		goto out;
	}
	log_event(LOG_LEVEL_INFO, "bz.comment.added", LF_INT("bug", bug_id),
		  LF_INT("comment", *comment_id));
out:
	json_object_put(body);
	json_object_put(root);
	free(fixed);
	return st;
}

enum bb_status bz_add_attachment(struct bz_client *c, long long bug_id, const char *file_name,
				 const char *content_type, const char *summary, const void *data,
				 size_t len, long long *attachment_id, struct bb_error *err)
{
	json_object *body = NULL, *root = NULL, *ids;
	gchar *b64 = NULL;
	char *name = NULL, *desc = NULL;
	enum bb_status st;

	*attachment_id = 0;
	if (bug_id <= 0 || !len || !file_name || !*file_name)
		return bb_error_set(err, BB_ERR_INVALID, "no bug, no data or no file name to attach");
	b64 = g_base64_encode(data, len);
	name = bz_text_repair(file_name, strlen(file_name));
	desc = bz_text_repair(summary && *summary ? summary : file_name,
			      strlen(summary && *summary ? summary : file_name));
	body = json_object_new_object();
	if (!b64 || !name || !desc || !body ||
	    json_object_object_add(body, "data", json_object_new_string(b64)) ||
	    json_object_object_add(body, "file_name", json_object_new_string(name)) ||
	    json_object_object_add(body, "summary", json_object_new_string(desc)) ||
	    json_object_object_add(body, "content_type", json_object_new_string(
		    content_type && *content_type ? content_type : "application/octet-stream"))) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = send_json(c, "POST", body, &root, err, "/rest/bug/%lld/attachment", bug_id)))
		goto out;
	ids = bz_jget(root, "ids");
	if (ids && json_object_is_type(ids, json_type_array) && json_object_array_length(ids) > 0)
		*attachment_id = bz_jid(json_object_array_get_idx(ids, 0));
	if (!*attachment_id) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "Bugzilla answered an attachment to bug %lld"
				  " without its id", bug_id);
		goto out;
	}
	log_event(LOG_LEVEL_INFO, "bz.attachment.added", LF_INT("bug", bug_id),
		  LF_INT("attachment", *attachment_id), LF_UINT("bytes", len));
out:
	json_object_put(body);
	json_object_put(root);
	g_free(b64);
	free(name);
	free(desc);
	return st;
}

enum bb_status bz_update_bug(struct bz_client *c, long long bug_id, const struct bz_change *ch,
			     size_t n, struct bb_error *err)
{
	json_object *body = json_object_new_object(), *root = NULL;
	enum bb_status st = BB_OK;

	if (!body)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if (bug_id <= 0 || !n) {
		st = bb_error_set(err, BB_ERR_INVALID, "no bug or nothing to change");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char *fixed = bz_text_repair(ch[i].value, strlen(ch[i].value));

		/* "comment" goes as Bugzilla wants it: {"body": text}; "flags"
		 * and "keywords" are JSON (bz_client.h) */
		int is_json = !strcmp(ch[i].field, "flags") || !strcmp(ch[i].field, "keywords") ||
			      !strcmp(ch[i].field, "cc");
		json_object *v = !fixed ? NULL : is_json ? json_tokener_parse(fixed)
				 : strcmp(ch[i].field, "comment")
				 ? json_object_new_string(fixed) : json_object_new_object();

		if (v && !strcmp(ch[i].field, "comment"))
			json_object_object_add(v, "body", json_object_new_string(fixed));
		if (!v || json_object_object_add(body, ch[i].field, v)) {
			free(fixed);
			st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		free(fixed);
	}
	if ((st = send_json(c, "PUT", body, &root, err, "/rest/bug/%lld", bug_id)))
		goto out;
	log_event(LOG_LEVEL_INFO, "bz.bug.updated", LF_INT("bug", bug_id), LF_UINT("fields", n));
out:
	json_object_put(body);
	json_object_put(root);
	return st;
}

enum bb_status bz_create_bug(struct bz_client *c, const struct bz_change *fields, size_t n,
			     const char *description, long long *bug_id, struct bb_error *err)
{
	json_object *body = json_object_new_object(), *root = NULL;
	char *fixed = description ? bz_text_repair(description, strlen(description)) : NULL;
	enum bb_status st = BB_OK;

	*bug_id = 0;
	if (!body || (description && !fixed)) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char *v = bz_text_repair(fields[i].value, strlen(fields[i].value));

		if (!v || json_object_object_add(body, fields[i].field, json_object_new_string(v))) {
			free(v);
			st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		free(v);
	}
	if (fixed && json_object_object_add(body, "description", json_object_new_string(fixed))) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = send_json(c, "POST", body, &root, err, "/rest/bug")))
		goto out;
	*bug_id = bz_jid(bz_jget(root, "id"));
	if (!*bug_id) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "Bugzilla created a bug without telling"
				  " its id");
		goto out;
	}
	log_event(LOG_LEVEL_INFO, "bz.bug.created", LF_INT("bug", *bug_id));
out:
	json_object_put(body);
	json_object_put(root);
	free(fixed);
	return st;
}

/* ---- import: whole-instance paging and history ------------------------- */

enum bb_status bz_search_page(struct bz_client *c, long long after_id, time_t since,
			      unsigned limit, struct bz_bug **bugs, size_t *count,
			      struct bb_error *err)
{
	static const char fields[] =
		"id,summary,product,component,status,resolution,severity,priority,version,url,"
		"creator,creator_detail,assigned_to,assigned_to_detail,creation_time,"
		"last_change_time,keywords,groups,cc,dupe_of,flags,_custom,alias,qa_contact,"
		"qa_contact_detail,target_milestone,op_sys,platform,depends_on,blocks";
	struct buf url = BUF_INIT;
	json_object *root = NULL;
	enum bb_status st;
	char when[32], after[32];

	*bugs = NULL;
	*count = 0;
	snprintf(after, sizeof(after), "%lld", after_id > 0 ? after_id : 0);
	bz_format_time(since > 0 ? since : 0, when, sizeof(when));
	if (url_start(c, &url, "/rest/bug") ||
	    url_param(c, &url, "f1", "bug_id") || url_param(c, &url, "o1", "greaterthan") ||
	    url_param(c, &url, "v1", after) ||
	    (since > 0 && url_param(c, &url, "last_change_time", when)) ||
	    url_param(c, &url, "order", "bug_id") ||
	    buf_addf(&url, "&limit=%u", limit ? limit : c->page_size) ||
	    url_param(c, &url, "include_fields", fields)) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = get_json(c, &url, &root, err)))
		goto out;
	st = bz_bugs_from_root(root, NULL, bugs, count, err);
	if (!st && *count > 1)
		qsort(*bugs, *count, sizeof(**bugs), bug_id_cmp);
out:
	json_object_put(root);
	buf_release(&url);
	return st;
}

enum bb_status bz_max_bug_id(struct bz_client *c, long long *id, struct bb_error *err)
{
	struct buf url = BUF_INIT;
	json_object *root = NULL, *list;
	enum bb_status st;

	*id = 0;
	if (url_start(c, &url, "/rest/bug") || url_param(c, &url, "order", "bug_id DESC") ||
	    buf_addstr(&url, "&limit=1") || url_param(c, &url, "include_fields", "id")) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = get_json(c, &url, &root, err)))
		goto out;
	list = bz_jget(root, "bugs");
	/* a server that ignores limit or order still gives the largest id */
	for (size_t i = 0; list && json_object_is_type(list, json_type_array) &&
			   i < json_object_array_length(list); i++) {
		long long x = bz_jid(bz_jget(json_object_array_get_idx(list, i), "id"));

		if (x > *id)
			*id = x;
	}
out:
	json_object_put(root);
	buf_release(&url);
	return st;
}

static enum bb_status history_batch(struct bz_client *c, const long long *ids, size_t n,
				    bz_history_fn fn, void *ctx, struct bb_error *err)
{
	struct buf url = BUF_INIT;
	json_object *root = NULL;
	enum bb_status st = BB_OK;

	if (url_start(c, &url, "/rest/bug/%lld/history", ids[0]))
		st = BB_ERR_NOMEM;
	for (size_t i = 1; i < n && !st; i++)
		st = url_param_id(&url, "ids", ids[i]);
	if (st) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (!(st = get_json(c, &url, &root, err)))
		st = bz_history_from_root(root, fn, ctx, err);
out:
	json_object_put(root);
	buf_release(&url);
	return st;
}

enum bb_status bz_fetch_history(struct bz_client *c, const long long *ids, size_t n,
				bz_history_fn fn, void *ctx, struct bb_error *err)
{
	enum bb_status st = BB_OK;
	size_t start, end;

	for (start = 0; start < n && !st; start = end) {
		end = batch_end(c, NULL, start, n);
		st = history_batch(c, ids + start, end - start, fn, ctx, err);
		if (!st || !bug_vanished(c, st))
			continue;
		st = BB_OK;
		for (size_t i = start; i < end && !st; i++) {
			st = history_batch(c, ids + i, 1, fn, ctx, err);
			if (st && bug_vanished(c, st)) {
				log_event(LOG_LEVEL_WARN, "bz.bug.vanished", LF_INT("bug", ids[i]),
					  LF_STR("reason", err ? err->message : status_str(st)));
				st = BB_OK;
			}
		}
	}
	if (!st)
		bb_error_clear(err);
	return st;
}
