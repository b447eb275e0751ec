/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading list archives incrementally (archive.h): the source itself --
 * its set-up from the options, its stats, the HTTP getter, the delivery of
 * messages, the calls its readers share (archive_source.h) -- and the
 * dispatch of archive_poll() and archive_tail() to the reader of its kind:
 * archive_git.c (public-inbox), archive_atom.c, archive_maildir.c and
 * archive_mbox.c. */
#include "config.h"

#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <glib.h>

#include "core/buf.h"
#include "core/digest.h"
#include "core/fsutil.h"
#include "core/http.h"
#include "core/log.h"
#include "core/run.h"
#include "mail/archive.h"
#include "mail/archive_atom.h"
#include "mail/archive_git.h"
#include "mail/archive_maildir.h"
#include "mail/archive_mbox.h"
#include "mail/archive_source.h"

#define ARCHIVE_DEFAULT_TIMEOUT 60
#define ARCHIVE_DEFAULT_PROBE_INTERVAL 300
#define ARCHIVE_RETRY_AFTER_MAX (7 * 24 * 3600)

static const char *const kind_names[] = {
	[KIND_PUBLIC_INBOX] = "public-inbox",
	[KIND_ATOM] = "atom",
	[KIND_MAILDIR] = "maildir",
	[KIND_MBOX] = "mbox",
};

const char *archive_kind_name(enum archive_kind kind)
{
	return kind_names[kind];
}

/* ---------------------------------------------------------------------------
 * Small helpers
 */

enum bb_status archive_nomem(struct bb_error *err)
{
	return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
}

static enum bb_status copy_string(const char *s, char **out)
{
	*out = NULL;
	if (!s || !*s)
		return BB_OK;
	*out = strdup(s);
	return *out ? BB_OK : BB_ERR_NOMEM;
}

long long archive_now_seconds(void)
{
	return (long long)time(NULL);
}

long long archive_elapsed_ms(const struct timespec *start)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)(t.tv_sec - start->tv_sec) * 1000 +
	       (t.tv_nsec - start->tv_nsec) / 1000000;
}

enum bb_status archive_hash16(const void *data, size_t len, char out[ARCHIVE_HASH_LEN + 1])
{
	char hex[SHA256_HEX_LEN + 1];
	enum bb_status st = sha256_hex(data, len, hex);

	if (st)
		return st;
	memcpy(out, hex, ARCHIVE_HASH_LEN);
	out[ARCHIVE_HASH_LEN] = '\0';
	return BB_OK;
}

int archive_parse_long(const char *s, const char **end, long long max, long long *out)
{
	long long v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > max)
			return -1;
	}
	*out = v;
	*end = p;
	return 0;
}

char *archive_mail_link(const char *inbox_url, const char *message_id)
{
	size_t len = inbox_url ? strlen(inbox_url) : 0;

	if (len)
		return str_printf("%s%s%s/", inbox_url, inbox_url[len - 1] == '/' ? "" : "/",
				  message_id);
	return str_printf("<%s>", message_id);
}

int archive_is_hex_string(const char *s, size_t len)
{
	/* (a table: every commit and blob name of a walk comes through here) */
	static const unsigned char hex[256] = {
		['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
		['7'] = 1, ['8'] = 1, ['9'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1,
		['e'] = 1, ['f'] = 1,
	};

	size_t i = 0;

#ifdef __SSE2__
	/* 16 at a time: '0'-'9' or 'a'-'f' (signed compares: bytes from 0x80
	 * up are below both) */
	for (; i + 16 <= len; i += 16) {
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i digit = _mm_and_si128(_mm_cmpgt_epi8(b, _mm_set1_epi8('0' - 1)),
					      _mm_cmplt_epi8(b, _mm_set1_epi8('9' + 1)));
		__m128i letter = _mm_and_si128(_mm_cmpgt_epi8(b, _mm_set1_epi8('a' - 1)),
					       _mm_cmplt_epi8(b, _mm_set1_epi8('f' + 1)));

		if (_mm_movemask_epi8(_mm_or_si128(digit, letter)) != 0xffff)
			return 0;
	}
#endif
	for (; i < len; i++)
		if (!hex[(unsigned char)s[i]])
			return 0;
	return 1;
}

/* ---------------------------------------------------------------------------
 * Source setup
 */

static enum bb_status check_url(const char *url, struct bb_error *err)
{
	const char *host;

	if (!url || !*url)
		return bb_error_set(err, BB_ERR_CONFIG, "archive source: no url");
	if (!strncasecmp(url, "https://", 8))
		host = url + 8;
	else if (!strncasecmp(url, "http://", 7))
		host = url + 7;
	else
		return bb_error_set(err, BB_ERR_CONFIG,
				    "archive source: url must start with http:// or https://");
	for (const unsigned char *p = (const unsigned char *)url; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '?' || *p == '#' || *p == '"' ||
		    *p == '\\')
			return bb_error_set(err, BB_ERR_CONFIG,
					    "archive source: url must not contain spaces, "
					    "control characters, a query or a fragment");
	if (!*host || *host == '/')
		return bb_error_set(err, BB_ERR_CONFIG, "archive source: url has no host");
	{
		size_t hostlen = strcspn(host, "/");

		if (memchr(host, '@', hostlen))
			return bb_error_set(err, BB_ERR_CONFIG,
					    "archive source: credentials in the url are not supported");
	}
	return BB_OK;
}

/* <state_dir>/<host-and-path, made safe>-<8 hex of the URL's hash>. */
static enum bb_status make_state_dir(struct archive_source *src, const char *state_dir,
				     struct bb_error *err)
{
	struct buf name = BUF_INIT;
	char hex[SHA256_HEX_LEN + 1];
	const char *p = strstr(src->url, "://") + 3;
	enum bb_status st;
	int last_sep = 1;

	for (; *p && name.len < 80; p++) {
		char c = *p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '-') {
			st = buf_addch(&name, c);
			last_sep = 0;
		} else if (!last_sep) {
			st = buf_addch(&name, '_');
			last_sep = 1;
		} else {
			continue;
		}
		if (st)
			goto out;
	}
	if ((st = sha256_hex(src->url, strlen(src->url), hex)))
		goto out;
	while (name.len && name.data[name.len - 1] == '_')
		buf_truncate(&name, name.len - 1);
	src->dir = str_printf("%s/%s-%.8s", state_dir, name.data, hex);
	if (!src->dir)
		st = BB_ERR_NOMEM;
out:
	buf_release(&name);
	if (st == BB_ERR_NOMEM)
		archive_nomem(err);
	else if (st)
		bb_error_set(err, st, "archive source: cannot name the state folder");
	return st;
}

enum bb_status archive_source_new(struct archive_source **out, const struct archive_options *opt,
				  struct bb_error *err)
{
	struct archive_source *src = NULL;
	enum bb_status st = BB_OK;
	size_t k;

	*out = NULL;
	src = calloc(1, sizeof(*src));
	if (!src)
		return archive_nomem(err);
	for (k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
		if (opt->kind && !strcmp(opt->kind, kind_names[k]))
			break;
	if (k == sizeof(kind_names) / sizeof(kind_names[0])) {
		st = bb_error_set(err, BB_ERR_CONFIG,
				  "archive source: unknown kind \"%.40s\" (public-inbox, atom, "
				  "maildir or mbox)", opt->kind ? opt->kind : "");
		goto out;
	}
	src->kind = (enum archive_kind)k;
	src->timeout = opt->timeout > 0 ? opt->timeout : ARCHIVE_DEFAULT_TIMEOUT;
	src->max_message = opt->max_message_size ? opt->max_message_size
						 : ARCHIVE_DEFAULT_MAX_MESSAGE;
	src->probe_interval = opt->epoch_probe_interval ? opt->epoch_probe_interval
							: ARCHIVE_DEFAULT_PROBE_INTERVAL;
	if (copy_string(opt->ca_file, &src->ca_file) || copy_string(opt->proxy, &src->proxy) ||
	    copy_string(opt->git_program ? opt->git_program : "git", &src->git_program)) {
		st = archive_nomem(err);
		goto out;
	}
	if (src->kind == KIND_PUBLIC_INBOX && (!opt->url || !*opt->url) && opt->path && *opt->path) {
		/* a local inbox: its epochs are read where they are */
		if (copy_string(opt->path, &src->path) ||
		    !(src->url = str_printf("file://%s", opt->path))) {
			st = archive_nomem(err);
			goto out;
		}
		src->local = 1;
		src->probe_interval = -1;   /* a look at git/: as cheap as it gets */
	} else if (src->kind == KIND_PUBLIC_INBOX || src->kind == KIND_ATOM) {
		size_t len;

		if ((st = check_url(opt->url, err)))
			goto out;
		if (copy_string(opt->url, &src->url)) {
			st = archive_nomem(err);
			goto out;
		}
		len = strlen(src->url);
		while (len && src->url[len - 1] == '/')
			src->url[--len] = '\0';
	} else {
		if (!opt->path || !*opt->path) {
			st = bb_error_set(err, BB_ERR_CONFIG, "archive source: %s needs a path",
					  archive_kind_name(src->kind));
			goto out;
		}
		if (copy_string(opt->path, &src->path)) {
			st = archive_nomem(err);
			goto out;
		}
	}
	if (src->kind == KIND_PUBLIC_INBOX) {
		if (!opt->state_dir || !*opt->state_dir) {
			st = bb_error_set(err, BB_ERR_CONFIG,
					  "archive source: public-inbox needs a state folder");
			goto out;
		}
		if ((st = make_state_dir(src, opt->state_dir, err)))
			goto out;
	}
	*out = src;
	src = NULL;
out:
	archive_source_free(src);
	return st;
}

void archive_source_free(struct archive_source *src)
{
	if (!src)
		return;
	if (src->curl)
		curl_easy_cleanup(src->curl);
	free(src->url);
	free(src->path);
	free(src->dir);
	free(src->ca_file);
	free(src->proxy);
	free(src->git_program);
	free(src);
}

const struct archive_stats *archive_source_stats(const struct archive_source *src)
{
	return &src->stats;
}

const char *archive_source_dir(const struct archive_source *src)
{
	return src->dir;
}

enum bb_status archive_deliver(struct archive_source *src, archive_message_fn fn, void *ctx,
			       const char *raw, size_t len, const char *position,
			       struct bb_error *err)
{
	enum bb_status st;

	st = fn(ctx, raw, len, position);
	if (st) {
		if (err && err->code == BB_OK)
			bb_error_set(err, st, "stopped by the message handler (%s)", status_str(st));
		return st;
	}
	src->stats.messages++;
	src->stats.bytes += len;
	return BB_OK;
}

void archive_log_skip(struct archive_source *src, const char *reason, const char *where)
{
	src->stats.skipped++;
	log_event(LOG_LEVEL_WARN, "archive.skipped", LF_STR("kind", archive_kind_name(src->kind)),
		  LF_STR("reason", reason), LF_STR("where", where));
}

/* ---------------------------------------------------------------------------
 * HTTP (libcurl)
 */

struct http_transfer {
	struct buf body;
	time_t retry_after;
	int too_large;
	enum bb_status write_status;
};

static size_t http_on_body(char *data, size_t size, size_t nmemb, void *p)
{
	struct http_transfer *t = p;
	size_t len = size * nmemb;
	enum bb_status st = buf_add(&t->body, data, len);

	if (st) {
		t->write_status = st;
		return 0;
	}
	return len;
}

static size_t http_on_header(char *data, size_t size, size_t nmemb, void *p)
{
	struct http_transfer *t = p;
	size_t len = size * nmemb;

	http_header_line(data, len, ARCHIVE_RETRY_AFTER_MAX, &t->retry_after);
	return len;
}

static enum bb_status http_handle(struct archive_source *src, struct bb_error *err)
{
	CURL *c;

	if (src->curl)
		return BB_OK;
	c = curl_easy_init();
	if (!c)
		return bb_error_set(err, BB_ERR_INTERNAL, "libcurl cannot make a handle");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, src->curl_error);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "bugbridge/" PACKAGE_VERSION);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, src->timeout < 30 ? src->timeout : 30L);
	/* a transfer fails when it stalls for the timeout, not when it is long */
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, src->timeout);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, http_on_body);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, http_on_header);
	if (src->ca_file && curl_easy_setopt(c, CURLOPT_CAINFO, src->ca_file) != CURLE_OK) {
		curl_easy_cleanup(c);
		return bb_error_set(err, BB_ERR_CONFIG, "libcurl does not accept a CA file");
	}
	if (src->proxy && curl_easy_setopt(c, CURLOPT_PROXY, src->proxy) != CURLE_OK) {
		curl_easy_cleanup(c);
		return bb_error_set(err, BB_ERR_CONFIG, "libcurl does not accept the proxy");
	}
	src->curl = c;
	return BB_OK;
}

enum bb_status archive_http_get(struct archive_source *src, const char *url, size_t cap,
				struct buf *body, struct bb_error *err)
{
	struct http_transfer t = { BUF_INIT, 0, 0, BB_OK };
	struct timespec start;
	enum bb_status st = BB_OK;
	long code = 0;
	CURLcode rc;
	char message[200];

	buf_release(body);
	if ((st = http_handle(src, err)))
		return st;
	buf_init_capped(&t.body, cap);
	clock_gettime(CLOCK_MONOTONIC, &start);
	curl_easy_setopt(src->curl, CURLOPT_URL, url);
	curl_easy_setopt(src->curl, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(src->curl, CURLOPT_WRITEDATA, &t);
	curl_easy_setopt(src->curl, CURLOPT_HEADERDATA, &t);
	curl_easy_setopt(src->curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)cap);
	src->curl_error[0] = '\0';
	rc = curl_easy_perform(src->curl);
	src->stats.http_requests++;
	curl_easy_getinfo(src->curl, CURLINFO_RESPONSE_CODE, &code);
	log_event(LOG_LEVEL_DEBUG, "archive.http", LF_STR("url", url), LF_INT("http", code),
		  LF_INT("curl", rc), LF_UINT("bytes", t.body.len),
		  LF_INT("ms", archive_elapsed_ms(&start)));
	if (rc != CURLE_OK) {
		const char *why = src->curl_error[0] ? src->curl_error : curl_easy_strerror(rc);

		if (rc == CURLE_WRITE_ERROR && t.write_status) {
			st = t.write_status;
			if (st == BB_ERR_TOO_LARGE)
				bb_error_set(err, st, "%s: the answer is over %zu bytes", url, cap);
			else
				archive_nomem(err);
			goto out;
		}
		run_clean_line(why, strlen(why), message, sizeof(message));
		st = bb_error_set(err, http_fold_curl(rc), "%s: %s", url, message);
		goto out;
	}
	if (code < 200 || code >= 300) {
		st = status_from_http(code);
		bb_error_set(err, st, "HTTP %ld from %s", code, url);
		if (st == BB_ERR_TEMPORARY && err)
			err->retry_after = t.retry_after;
		goto out;
	}
	*body = t.body;
	buf_init(&t.body);
out:
	buf_release(&t.body);
	return st;
}

/* ---------------------------------------------------------------------------
 * Entry points
 */

enum bb_status archive_poll(struct archive_source *src, const char *cursor,
			    archive_message_fn fn, void *ctx, char **next_cursor,
			    struct bb_error *err)
{
	enum bb_status st = BB_OK;

	if (next_cursor)
		*next_cursor = NULL;
	src->position_kept = 0;
	switch (src->kind) {
	case KIND_PUBLIC_INBOX:
		st = archive_poll_public_inbox(src, cursor, fn, ctx, next_cursor, err);
		break;
	case KIND_ATOM:
		st = archive_poll_atom(src, cursor, fn, ctx, 0, next_cursor, err);
		break;
	case KIND_MAILDIR:
		st = archive_poll_maildir(src, cursor, fn, ctx, 0, next_cursor, err);
		break;
	case KIND_MBOX:
		st = archive_poll_mbox(src, cursor, fn, ctx, 0, next_cursor, err);
		break;
	}
	if (st && next_cursor) {
		free(*next_cursor);
		*next_cursor = NULL;
	}
	src->position_kept = 0;
	return st;
}

size_t archive_position_kept(const struct archive_source *src)
{
	return src->position_kept;
}

static enum bb_status no_message(void *ctx, const char *raw, size_t len, const char *position)
{
	(void)ctx;
	(void)raw;
	(void)len;
	(void)position;
	return BB_ERR_INTERNAL;   /* a tail reads no message */
}

enum bb_status archive_tail(struct archive_source *src, char **cursor, struct bb_error *err)
{
	enum bb_status st = BB_OK;

	*cursor = NULL;
	switch (src->kind) {
	case KIND_PUBLIC_INBOX:
		st = archive_tail_public_inbox(src, cursor, err);
		break;
	case KIND_ATOM:
		st = archive_poll_atom(src, NULL, no_message, NULL, 1, cursor, err);
		break;
	case KIND_MAILDIR:
		st = archive_poll_maildir(src, NULL, no_message, NULL, 1, cursor, err);
		break;
	case KIND_MBOX:
		st = archive_poll_mbox(src, NULL, no_message, NULL, 1, cursor, err);
		break;
	}
	if (st) {
		free(*cursor);
		*cursor = NULL;
	}
	return st;
}
