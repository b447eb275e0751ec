/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading list archives incrementally: public-inbox git epochs, Atom,
 * t.mbox.gz, Maildir and mbox.  The contract is in archive.h.  This file
 * holds what all readers share (source setup, stats, the HTTP getter,
 * delivery, the dispatch of archive_poll() and archive_tail()) and the
 * Atom, mbox, Maildir and gunzip readers; the public-inbox git epoch reader
 * is in archive_git.c, what the two share in archive_internal.h. */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "core/buf.h"
#include "core/digest.h"
#include "core/fsutil.h"
#include "core/http.h"
#include "core/log.h"
#include "core/run.h"
#include "mail/archive.h"
#include "mail/archive_internal.h"

#define ARCHIVE_DEFAULT_TIMEOUT 60
#define ARCHIVE_DEFAULT_MAX_MESSAGE ((size_t)64 << 20)
#define ARCHIVE_DEFAULT_PROBE_INTERVAL 300
#define ARCHIVE_FEED_CAP ((size_t)16 << 20)        /* new.atom */
#define ARCHIVE_THREAD_GZ_CAP ((size_t)256 << 20)  /* t.mbox.gz as downloaded */
#define ARCHIVE_THREAD_CAP ((size_t)512 << 20)     /* and decompressed */
#define ARCHIVE_ATOM_MAX_ENTRIES 10000
#define ARCHIVE_ATOM_HASH_LEN 16
#define ARCHIVE_MBOX_CHUNK ((size_t)1 << 20)
#define ARCHIVE_MBOX_CHECK_BYTES 64
#define ARCHIVE_RETRY_AFTER_MAX (7 * 24 * 3600)

static const char *const kind_names[] = {
	[KIND_PUBLIC_INBOX] = "public-inbox",
	[KIND_ATOM] = "atom",
	[KIND_MAILDIR] = "maildir",
	[KIND_MBOX] = "mbox",
};

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

static enum bb_status hash16(const void *data, size_t len, char out[ARCHIVE_ATOM_HASH_LEN + 1])
{
	char hex[SHA256_HEX_LEN + 1];
	enum bb_status st = sha256_hex(data, len, hex);

	if (st)
		return st;
	memcpy(out, hex, ARCHIVE_ATOM_HASH_LEN);
	out[ARCHIVE_ATOM_HASH_LEN] = '\0';
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

	for (size_t i = 0; i < len; i++)
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
					  kind_names[src->kind]);
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

/* Hands a message to the caller, counting it. */
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
	log_event(LOG_LEVEL_WARN, "archive.skipped", LF_STR("kind", kind_names[src->kind]),
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

/* GET url into *body (at most cap bytes).  Non-2xx answers are folded with
 * status_from_http(); err->retry_after is set from Retry-After. */
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
 * mbox splitting (mboxrd)
 */

struct archive_mbox {
	archive_mbox_fn fn;
	void *ctx;
	size_t max_message;
	uint64_t offset;      /* stream offset of the next byte fed */
	struct buf line;      /* a line split across feeds */
	uint64_t line_start;
	int line_overflow;    /* the line was longer than max_message */
	struct buf msg;
	int in_message;       /* a From_ line was seen */
	int too_large;
	size_t blank_len;     /* length of msg's last line if it is empty, else 0 */
	enum bb_status stopped;
};

struct archive_mbox *archive_mbox_new(uint64_t start_offset, size_t max_message,
				      archive_mbox_fn fn, void *ctx)
{
	struct archive_mbox *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->fn = fn;
	m->ctx = ctx;
	m->max_message = max_message ? max_message : ARCHIVE_DEFAULT_MAX_MESSAGE;
	m->offset = start_offset;
	buf_init(&m->line);
	buf_init(&m->msg);
	return m;
}

void archive_mbox_free(struct archive_mbox *m)
{
	if (!m)
		return;
	buf_release(&m->line);
	buf_release(&m->msg);
	free(m);
}

static enum bb_status mbox_emit(struct archive_mbox *m, uint64_t end, struct bb_error *err)
{
	enum bb_status st;
	size_t len = m->msg.len;

	if (m->blank_len && !m->too_large)
		len -= m->blank_len;   /* the separator before the next From_ */
	if (m->too_large || len == 0)
		st = m->fn(m->ctx, NULL, 0, end);
	else {
		buf_truncate(&m->msg, len);
		st = m->fn(m->ctx, m->msg.data, len, end);
	}
	buf_reset(&m->msg);
	m->too_large = 0;
	m->blank_len = 0;
	if (st) {
		m->stopped = st;
		if (err && err->code == BB_OK)
			bb_error_set(err, st, "stopped by the message handler (%s)", status_str(st));
	}
	return st;
}

static enum bb_status mbox_append(struct archive_mbox *m, const char *data, size_t len)
{
	if (m->too_large)
		return BB_OK;
	if (len > m->max_message - m->msg.len) {
		m->too_large = 1;
		buf_release(&m->msg);
		return BB_OK;
	}
	return buf_add(&m->msg, data, len);
}

/* One whole line (with its '\n', or without at the end of a complete
 * stream).  overflow: the line was too long to keep; l holds its start. */
static enum bb_status mbox_line(struct archive_mbox *m, const char *l, size_t n, uint64_t start,
				int overflow, struct bb_error *err)
{
	int is_from = n >= 5 && !memcmp(l, "From ", 5);
	int blank = !overflow && ((n == 1 && l[0] == '\n') ||
				  (n == 2 && l[0] == '\r' && l[1] == '\n'));
	enum bb_status st;

	if (!m->in_message) {
		if (blank || n == 0)
			return BB_OK;
		if (!is_from) {
			char head[40];
			size_t show = n && l[n - 1] == '\n' ? n - 1 : n;

			if (show && l[show - 1] == '\r')
				show--;
			run_clean_line(l, show < 30 ? show : 30, head, sizeof(head));
			m->stopped = BB_ERR_INVALID;
			return bb_error_set(err, BB_ERR_INVALID,
					    "not an mbox: \"%s\" at offset %" PRIu64
					    " where a From_ line should be", head, start);
		}
		m->in_message = 1;
		m->blank_len = 0;
		return BB_OK;
	}
	if (is_from && m->blank_len) {
		if ((st = mbox_emit(m, start, err)))
			return st;
		return BB_OK;
	}
	if (overflow) {
		m->too_large = 1;
		buf_release(&m->msg);
		m->blank_len = 0;
		return BB_OK;
	}
	if (l[0] == '>') {
		size_t q = 1;

		while (q < n && l[q] == '>')
			q++;
		if (n - q >= 5 && !memcmp(l + q, "From ", 5)) {
			l++;   /* mboxrd: one '>' was added when the file was written */
			n--;
		}
	}
	if (mbox_append(m, l, n))
		return archive_nomem(err);
	m->blank_len = blank ? n : 0;
	return BB_OK;
}

enum bb_status archive_mbox_feed(struct archive_mbox *m, const void *data, size_t len,
				 struct bb_error *err)
{
	const char *p = data, *end = p + len;
	enum bb_status st;

	if (m->stopped)
		return m->stopped;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t take = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		if (!m->line.len && !m->line_overflow && nl) {
			/* the whole line is here: no copy */
			st = mbox_line(m, p, take, m->offset, 0, err);
		} else {
			if (!m->line.len && !m->line_overflow)
				m->line_start = m->offset;
			if (!m->line_overflow) {
				if (take > m->max_message + 2 - m->line.len) {
					/* keep the start: enough to tell a From_ line */
					size_t keep = m->line.len < 8 ? 8 - m->line.len : 0;

					if (buf_add(&m->line, p, keep < take ? keep : take))
						return archive_nomem(err);
					m->line_overflow = 1;
				} else if (buf_add(&m->line, p, take)) {
					return archive_nomem(err);
				}
			}
			st = BB_OK;
			if (nl) {
				st = mbox_line(m, m->line.data, m->line.len, m->line_start,
					       m->line_overflow, err);
				buf_reset(&m->line);
				m->line_overflow = 0;
			}
		}
		m->offset += take;
		p += take;
		if (st)
			return st;
	}
	return BB_OK;
}

enum bb_status archive_mbox_finish(struct archive_mbox *m, int complete, struct bb_error *err)
{
	enum bb_status st;

	if (m->stopped)
		return m->stopped;
	if (m->line.len || m->line_overflow) {
		if (!complete)
			return bb_error_set(err, BB_ERR_TEMPORARY,
					    "the last message is incomplete (no newline at the end)");
		st = mbox_line(m, m->line.data, m->line.len, m->line_start, m->line_overflow, err);
		buf_reset(&m->line);
		m->line_overflow = 0;
		if (st)
			return st;
	}
	if (!m->in_message)
		return BB_OK;
	m->in_message = 0;
	return mbox_emit(m, m->offset, err);
}

/* ---------------------------------------------------------------------------
 * gzip (libarchive) with a CRC-32 check
 */

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;

	pthread_once(&crc_once, crc_init);
	for (size_t i = 0; i < n; i++)
		c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
	return c ^ 0xFFFFFFFFu;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

enum bb_status archive_gunzip(const void *data, size_t len, size_t max_out, char **out,
			      size_t *out_len, struct bb_error *err)
{
	struct archive *a = NULL;
	struct archive_entry *entry;
	struct buf text = BUF_INIT;
	enum bb_status st = BB_OK;
	const unsigned char *bytes = data;
	char chunk[65536];
	la_ssize_t got;
	uint32_t crc, isize;

	*out = NULL;
	*out_len = 0;
	buf_init_capped(&text, max_out);
	if (len < 18 || bytes[0] != 0x1f || bytes[1] != 0x8b) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "not gzip data");
		goto out;
	}
	a = archive_read_new();
	if (!a) {
		st = archive_nomem(err);
		goto out;
	}
	archive_read_support_filter_gzip(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_memory(a, data, len) != ARCHIVE_OK ||
	    archive_read_next_header(a, &entry) != ARCHIVE_OK) {
		const char *why = archive_error_string(a);

		st = bb_error_set(err, BB_ERR_PROTOCOL, "broken gzip data: %s",
				  why ? why : "truncated or damaged");
		goto out;
	}
	if (archive_filter_count(a) != 2 || archive_filter_code(a, 0) != ARCHIVE_FILTER_GZIP) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "not plain gzip data");
		goto out;
	}
	while ((got = archive_read_data(a, chunk, sizeof(chunk))) > 0) {
		if ((st = buf_add(&text, chunk, (size_t)got))) {
			if (st == BB_ERR_TOO_LARGE)
				bb_error_set(err, st, "gzip data decompresses to over %zu bytes",
					     max_out);
			else
				archive_nomem(err);
			goto out;
		}
	}
	if (got < 0) {
		const char *why = archive_error_string(a);

		st = bb_error_set(err, BB_ERR_PROTOCOL, "broken gzip data: %s",
				  why ? why : "truncated or damaged");
		goto out;
	}
	/* libarchive does not check the trailer: the CRC-32 and length of the
	 * last member (all of it, for the usual single member) */
	crc = le32(bytes + len - 8);
	isize = le32(bytes + len - 4);
	if (!(crc32_of((const unsigned char *)text.data, text.len) == crc &&
	      (uint32_t)text.len == isize) &&
	    !(isize <= text.len &&
	      crc32_of((const unsigned char *)text.data + text.len - isize, isize) == crc)) {
		st = bb_error_set(err, BB_ERR_PROTOCOL,
				  "broken gzip data: CRC or length does not match");
		goto out;
	}
	*out = buf_detach(&text, out_len);
out:
	if (a)
		archive_read_free(a);
	buf_release(&text);
	return st;
}

/* ---------------------------------------------------------------------------
 * Atom
 */

static const char atom_ns[] = "http://www.w3.org/2005/Atom";

static int is_atom(xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && n->name && !strcmp((const char *)n->name, name) &&
	       n->ns && n->ns->href && !strcmp((const char *)n->ns->href, atom_ns);
}

/* The text and CDATA children of a node, trimmed; entity references are
 * left out (never expanded).  NULL when out of memory or over max. */
static char *node_text(xmlNode *first, size_t max)
{
	struct buf b = BUF_INIT;
	size_t s = 0, e;

	buf_init_capped(&b, max);
	for (xmlNode *c = first; c; c = c->next)
		if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content &&
		    buf_addstr(&b, (const char *)c->content)) {
			buf_release(&b);
			return NULL;
		}
	while (s < b.len && strchr(" \t\r\n", b.data[s]))
		s++;
	e = b.len;
	while (e > s && strchr(" \t\r\n", b.data[e - 1]))
		e--;
	{
		char *text = malloc(e - s + 1);

		if (text) {
			memcpy(text, b.data + s, e - s);
			text[e - s] = '\0';
		}
		buf_release(&b);
		return text;
	}
}

static char *attr_text(xmlNode *n, const char *name, int *present)
{
	*present = 0;
	for (xmlAttr *a = n->properties; a; a = a->next)
		if (a->name && !strcmp((const char *)a->name, name) && !a->ns) {
			*present = 1;
			return node_text(a->children, 8192);
		}
	return NULL;
}

void archive_atom_entries_free(struct archive_atom_entry *entries, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(entries[i].id);
		free(entries[i].link);
	}
	free(entries);
}

static enum bb_status atom_entry(xmlNode *entry, struct archive_atom_entry *out)
{
	out->id = NULL;
	out->link = NULL;
	for (xmlNode *c = entry->children; c; c = c->next) {
		int present;

		if (!out->id && is_atom(c, "id")) {
			out->id = node_text(c->children, 4096);
			if (!out->id)
				return BB_ERR_TOO_LARGE;
		} else if (!out->link && is_atom(c, "link")) {
			char *rel = attr_text(c, "rel", &present);

			if (!present || (rel && !strcmp(rel, "alternate"))) {
				out->link = attr_text(c, "href", &present);
				if (present && !out->link) {
					free(rel);
					return BB_ERR_TOO_LARGE;
				}
			}
			free(rel);
		}
	}
	if (!out->link && !(out->link = strdup("")))
		return BB_ERR_NOMEM;
	return BB_OK;
}

enum bb_status archive_atom_parse(const char *data, size_t len,
				  struct archive_atom_entry **entries, size_t *count,
				  struct bb_error *err)
{
	xmlParserCtxtPtr ctxt = NULL;
	xmlDocPtr doc = NULL;
	xmlNode *root;
	struct archive_atom_entry *list = NULL;
	size_t n = 0, alloc = 0;
	enum bb_status st = BB_OK;

	*entries = NULL;
	*count = 0;
	if (len > INT_MAX)
		return bb_error_set(err, BB_ERR_TOO_LARGE, "Atom feed too large");
	xmlInitParser();
	ctxt = xmlNewParserCtxt();
	if (!ctxt)
		return archive_nomem(err);
	doc = xmlCtxtReadMemory(ctxt, data, (int)len, "new.atom", NULL,
				XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlCtxtGetLastError(ctxt);
		char message[160];

		run_clean_line(e && e->message ? e->message : "not well-formed",
			       strlen(e && e->message ? e->message : "not well-formed"), message,
			       sizeof(message));
		st = bb_error_set(err, BB_ERR_PROTOCOL, "not an Atom feed: %s (line %d)", message,
				  e ? e->line : 0);
		goto out;
	}
	if (doc->intSubset || doc->extSubset) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "not an Atom feed: it has a DTD");
		goto out;
	}
	root = xmlDocGetRootElement(doc);
	if (!root || !is_atom(root, "feed")) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "not an Atom feed: no Atom <feed> root");
		goto out;
	}
	for (xmlNode *c = root->children; c; c = c->next) {
		if (!is_atom(c, "entry"))
			continue;
		if (n == alloc) {
			size_t grow = alloc ? alloc * 2 : 32;
			struct archive_atom_entry *more;

			if (n >= ARCHIVE_ATOM_MAX_ENTRIES) {
				st = bb_error_set(err, BB_ERR_TOO_LARGE,
						  "Atom feed with over %d entries",
						  ARCHIVE_ATOM_MAX_ENTRIES);
				goto out;
			}
			more = realloc(list, grow * sizeof(*list));
			if (!more) {
				st = archive_nomem(err);
				goto out;
			}
			list = more;
			alloc = grow;
		}
		st = atom_entry(c, &list[n]);
		if (st == BB_OK && list[n].id && list[n].id[0]) {
			n++;
			continue;
		}
		free(list[n].id);
		free(list[n].link);
		if (st == BB_ERR_NOMEM) {
			archive_nomem(err);
			goto out;
		}
		st = BB_OK;   /* no id, or one too long: not an entry we can track */
	}
	if (n) {
		*entries = list;
		*count = n;
		list = NULL;
		n = 0;
	}
out:
	archive_atom_entries_free(list, n);
	if (doc)
		xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctxt);
	return st;
}

/* ---------------------------------------------------------------------------
 * Atom source and thread fetch over HTTP
 */

/* Appends s percent-encoded where it is not a safe URL path character;
 * keep_percent leaves existing %XX escapes alone. */
static enum bb_status url_path_escape(struct buf *url, const char *s, size_t len,
				      int keep_percent)
{
	gchar *part = g_strndup(s, len);
	gchar *escaped = g_uri_escape_string(part, keep_percent ? "!$&'()*+,;=:@%" : "!$&'()*+,;=:@",
					     FALSE);
	enum bb_status st = buf_addstr(url, escaped);

	g_free(escaped);
	g_free(part);
	return st;
}

/* <url>/<the last path segment of an entry's link>/raw.  public-inbox
 * links to <inbox>/<escaped Message-ID>/; only that segment is taken, so a
 * feed can never send us to another server. */
static enum bb_status entry_raw_url(struct archive_source *src, const char *link,
				    struct buf *url)
{
	size_t end = strcspn(link, "?#"), start;
	enum bb_status st;

	while (end && link[end - 1] == '/')
		end--;
	start = end;
	while (start && link[start - 1] != '/')
		start--;
	if (start == end || (end - start == 1 && link[start] == '.') ||
	    (end - start == 2 && !strncmp(link + start, "..", 2)))
		return BB_ERR_INVALID;
	buf_reset(url);
	if ((st = buf_addstr(url, src->url)) || (st = buf_addch(url, '/')) ||
	    (st = url_path_escape(url, link + start, end - start, 1)) ||
	    (st = buf_addstr(url, "/raw")))
		return st;
	return BB_OK;
}

struct atom_cursor {
	char (*hashes)[ARCHIVE_ATOM_HASH_LEN + 1];
	size_t n;
};

static enum bb_status parse_atom_cursor(const char *cursor, struct atom_cursor *c,
					struct bb_error *err)
{
	const char *p;
	size_t n = 0;

	c->hashes = NULL;
	c->n = 0;
	if (!cursor)
		return BB_OK;
	if (strncmp(cursor, "atom:", 5))
		goto bad;
	p = cursor + 5;
	if (*p) {
		size_t len = strlen(p);

		if ((len + 1) % (ARCHIVE_ATOM_HASH_LEN + 1))
			goto bad;
		n = (len + 1) / (ARCHIVE_ATOM_HASH_LEN + 1);
	}
	c->hashes = calloc(n ? n : 1, sizeof(*c->hashes));
	if (!c->hashes)
		return archive_nomem(err);
	for (size_t i = 0; i < n; i++, p += ARCHIVE_ATOM_HASH_LEN + 1) {
		if (!archive_is_hex_string(p, ARCHIVE_ATOM_HASH_LEN) ||
		    (p[ARCHIVE_ATOM_HASH_LEN] != ',' && p[ARCHIVE_ATOM_HASH_LEN] != '\0')) {
			free(c->hashes);
			c->hashes = NULL;
			goto bad;
		}
		memcpy(c->hashes[i], p, ARCHIVE_ATOM_HASH_LEN);
		c->hashes[i][ARCHIVE_ATOM_HASH_LEN] = '\0';
	}
	c->n = n;
	return BB_OK;
bad:
	return bb_error_set(err, BB_ERR_INVALID, "not an Atom cursor (atom:<hash>,...): \"%.80s\"",
			    cursor);
}

/* "atom:" and the hashes of the entries marked done, in feed order. */
static char *atom_cursor_text(char (*hashes)[ARCHIVE_ATOM_HASH_LEN + 1], const char *done,
			      size_t n)
{
	struct buf b = BUF_INIT;
	int first = 1;

	if (buf_addstr(&b, "atom:"))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!done[i])
			continue;
		if ((!first && buf_addch(&b, ',')) || buf_addstr(&b, hashes[i])) {
			buf_release(&b);
			return NULL;
		}
		first = 0;
	}
	return buf_detach(&b, NULL);
}

/* Hands over the message(s) of one /raw answer (an mboxrd of every message
 * with that Message-ID; or the bare message from a server that sends it as
 * it is).  All but the last get before as their position. */
struct raw_ctx {
	struct archive_source *src;
	archive_message_fn fn;
	void *ctx;
	const char *before, *after;
	struct buf pending;   /* the previous message, delivered once we know
			       * whether another follows */
	int have_pending;
	struct bb_error *err;
};

static enum bb_status raw_flush(struct raw_ctx *r, const char *position)
{
	enum bb_status st;

	if (!r->have_pending)
		return BB_OK;
	r->have_pending = 0;
	st = archive_deliver(r->src, r->fn, r->ctx, r->pending.data, r->pending.len, position,
			     r->err);
	buf_reset(&r->pending);
	return st;
}

static enum bb_status raw_on_message(void *ctx, const char *raw, size_t len, uint64_t end)
{
	struct raw_ctx *r = ctx;
	enum bb_status st;

	(void)end;
	if (!raw)
		return BB_OK;
	if ((st = raw_flush(r, r->before)))
		return st;
	if (buf_add(&r->pending, raw, len))
		return BB_ERR_NOMEM;
	r->have_pending = 1;
	return BB_OK;
}

static enum bb_status deliver_raw(struct archive_source *src, archive_message_fn fn, void *ctx,
				  const struct buf *body, const char *before, const char *after,
				  struct bb_error *err)
{
	struct raw_ctx r = { src, fn, ctx, before, after, BUF_INIT, 0, err };
	struct archive_mbox *m;
	enum bb_status st;

	if (body->len < 5 || memcmp(body->data, "From ", 5))
		return archive_deliver(src, fn, ctx, body->data, body->len, after, err);
	m = archive_mbox_new(0, src->max_message, raw_on_message, &r);
	if (!m)
		return archive_nomem(err);
	st = archive_mbox_feed(m, body->data, body->len, err);
	if (!st)
		st = archive_mbox_finish(m, 1, err);
	if (!st)
		st = raw_flush(&r, after);
	archive_mbox_free(m);
	buf_release(&r.pending);
	if (st == BB_ERR_NOMEM)
		archive_nomem(err);
	return st;
}

static enum bb_status poll_atom(struct archive_source *src, const char *cursor,
				archive_message_fn fn, void *ctx, int tail, char **next_cursor,
				struct bb_error *err)
{
	struct atom_cursor old = { NULL, 0 };
	struct archive_atom_entry *entries = NULL;
	char (*hashes)[ARCHIVE_ATOM_HASH_LEN + 1] = NULL;
	char *done = NULL, *before = NULL, *after = NULL, *feed_url = NULL;
	struct buf body = BUF_INIT, url = BUF_INIT, raw = BUF_INIT;
	size_t n = 0, kept = 0;
	enum bb_status st;

	if ((st = parse_atom_cursor(cursor, &old, err)))
		goto out;
	if (!(feed_url = str_printf("%s/new.atom", src->url))) {
		st = archive_nomem(err);
		goto out;
	}
	if ((st = archive_http_get(src, feed_url, ARCHIVE_FEED_CAP, &body, err)))
		goto out;
	if ((st = archive_atom_parse(body.data, body.len, &entries, &n, err))) {
		char message[sizeof(err->message)];

		if (err) {
			snprintf(message, sizeof(message), "%s", err->message);
			bb_error_set(err, st, "%s: %s", feed_url, message);
		}
		goto out;
	}
	hashes = calloc(n ? n : 1, sizeof(*hashes));
	done = calloc(n ? n : 1, 1);
	if (!hashes || !done) {
		st = archive_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if ((st = hash16(entries[i].id, strlen(entries[i].id), hashes[i])))
			goto out;
		for (size_t k = 0; k < old.n; k++)
			if (!strcmp(old.hashes[k], hashes[i])) {
				done[i] = 1;
				kept++;
				break;
			}
		if (tail)
			done[i] = 1;
	}
	if (old.n && !kept && n) {
		src->stats.gaps++;
		log_event(LOG_LEVEL_WARN, "archive.gap", LF_STR("url", feed_url),
			  LF_STR("reason", "no entry of the cursor is left in the feed"));
	}
	/* the feed is newest first: oldest new entry first */
	for (size_t k = n; k-- > 0;) {
		struct bb_error raw_err = BB_ERROR_INIT;

		if (done[k])
			continue;
		free(before);
		if (!(before = atom_cursor_text(hashes, done, n))) {
			st = archive_nomem(err);
			goto out;
		}
		done[k] = 1;
		free(after);
		if (!(after = atom_cursor_text(hashes, done, n))) {
			st = archive_nomem(err);
			goto out;
		}
		if (entry_raw_url(src, entries[k].link, &url)) {
			archive_log_skip(src, "no-usable-link", entries[k].id);
			continue;
		}
		st = archive_http_get(src, url.data, src->max_message + 65536, &raw, &raw_err);
		if (st == BB_ERR_NOT_FOUND || st == BB_ERR_TOO_LARGE) {
			archive_log_skip(src, st == BB_ERR_NOT_FOUND ? "gone" : "too-large",
					 url.data);
			st = BB_OK;
			continue;
		}
		if (st) {
			if (err)
				*err = raw_err;
			goto out;
		}
		if ((st = deliver_raw(src, fn, ctx, &raw, before, after, err)))
			goto out;
	}
	if (next_cursor && !(*next_cursor = atom_cursor_text(hashes, done, n)))
		st = archive_nomem(err);
out:
	free(old.hashes);
	archive_atom_entries_free(entries, n);
	free(hashes);
	free(done);
	free(before);
	free(after);
	free(feed_url);
	buf_release(&body);
	buf_release(&url);
	buf_release(&raw);
	return st;
}

struct thread_ctx {
	struct archive_source *src;
	archive_message_fn fn;
	void *ctx;
	struct bb_error *err;
};

static enum bb_status thread_on_message(void *ctx, const char *raw, size_t len, uint64_t end)
{
	struct thread_ctx *t = ctx;

	(void)end;
	if (!raw) {
		archive_log_skip(t->src, "too-large-or-empty", "t.mbox.gz");
		return BB_OK;
	}
	return archive_deliver(t->src, t->fn, t->ctx, raw, len, NULL, t->err);
}

enum bb_status archive_fetch_thread(struct archive_source *src, const char *message_id,
				    archive_message_fn fn, void *ctx, struct bb_error *err)
{
	struct buf url = BUF_INIT, gz = BUF_INIT;
	struct thread_ctx t = { src, fn, ctx, err };
	struct archive_mbox *m = NULL;
	char *text = NULL;
	size_t len, text_len;
	enum bb_status st;

	if ((src->kind != KIND_PUBLIC_INBOX && src->kind != KIND_ATOM) || src->local)
		return bb_error_set(err, BB_ERR_UNSUPPORTED,
				    "a local %s source has no thread download", kind_names[src->kind]);
	while (message_id && (*message_id == ' ' || *message_id == '\t' || *message_id == '<'))
		message_id++;
	len = message_id ? strlen(message_id) : 0;
	while (len && strchr(" \t\r\n>", message_id[len - 1]))
		len--;
	if (!len || len > 998)
		return bb_error_set(err, BB_ERR_INVALID, "no usable Message-ID");
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)message_id[i] < 0x21 || message_id[i] == 0x7f)
			return bb_error_set(err, BB_ERR_INVALID,
					    "a Message-ID with spaces or control characters");
	if ((st = buf_addstr(&url, src->url)) || (st = buf_addch(&url, '/')) ||
	    (st = url_path_escape(&url, message_id, len, 0)) ||
	    (st = buf_addstr(&url, "/t.mbox.gz"))) {
		st = archive_nomem(err);
		goto out;
	}
	if ((st = archive_http_get(src, url.data, ARCHIVE_THREAD_GZ_CAP, &gz, err)))
		goto out;
	if ((st = archive_gunzip(gz.data, gz.len, ARCHIVE_THREAD_CAP, &text, &text_len, err))) {
		char message[sizeof(err->message)];

		if (err) {
			snprintf(message, sizeof(message), "%s", err->message);
			bb_error_set(err, st, "%s: %s", url.data, message);
		}
		goto out;
	}
	buf_release(&gz);
	m = archive_mbox_new(0, src->max_message, thread_on_message, &t);
	if (!m) {
		st = archive_nomem(err);
		goto out;
	}
	if (!(st = archive_mbox_feed(m, text, text_len, err)))
		st = archive_mbox_finish(m, 1, err);
out:
	archive_mbox_free(m);
	free(text);
	buf_release(&url);
	buf_release(&gz);
	return st;
}

/* ---------------------------------------------------------------------------
 * Maildir
 */

struct md_entry {
	char *name;       /* the unique part (before ':') */
	char *file;       /* "new/<file>" or "cur/<file>" */
	long long mtime;  /* seconds, capped at now */
	int done;
};

struct md_list {
	struct md_entry *e;
	size_t n, alloc;
};

static void md_list_release(struct md_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->e[i].name);
		free(l->e[i].file);
	}
	free(l->e);
	l->e = NULL;
	l->n = l->alloc = 0;
}

static int md_cmp_name(const void *a, const void *b)
{
	const struct md_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->file, y->file);
}

static int md_cmp_order(const void *a, const void *b)
{
	const struct md_entry *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

static enum bb_status md_scan_sub(const char *path, const char *sub, long long now,
				  struct md_list *l, int *found, struct bb_error *err)
{
	char *dir = str_printf("%s/%s", path, sub);
	DIR *d;
	struct dirent *de;
	enum bb_status st = BB_OK;

	if (!dir)
		return archive_nomem(err);
	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT)
			st = bb_error_errno(err, errno, "cannot read %s", dir);
		free(dir);
		return st;
	}
	*found = 1;
	while ((errno = 0, de = readdir(d))) {
		struct stat sb;
		size_t ulen;

		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode))
			continue;   /* gone already, or not a message file */
		if (l->n == l->alloc) {
			size_t grow = l->alloc ? l->alloc * 2 : 64;
			struct md_entry *more = realloc(l->e, grow * sizeof(*more));

			if (!more) {
				st = archive_nomem(err);
				goto out;
			}
			l->e = more;
			l->alloc = grow;
		}
		ulen = strcspn(de->d_name, ":");
		l->e[l->n].name = strndup(de->d_name, ulen);
		l->e[l->n].file = str_printf("%s/%s", sub, de->d_name);
		l->e[l->n].mtime = (long long)sb.st_mtime < now ? (long long)sb.st_mtime : now;
		l->e[l->n].done = 0;
		if (!l->e[l->n].name || !l->e[l->n].file) {
			free(l->e[l->n].name);
			free(l->e[l->n].file);
			st = archive_nomem(err);
			goto out;
		}
		l->n++;
	}
	if (errno)
		st = bb_error_errno(err, errno, "cannot read %s", dir);
out:
	closedir(d);
	free(dir);
	return st;
}

/* Lists new/ and cur/, one entry per unique name, in (mtime, name) order. */
static enum bb_status md_scan(const char *path, long long now, struct md_list *l,
			      struct bb_error *err)
{
	enum bb_status st;
	int found = 0;
	struct stat sb;
	size_t k = 0;

	if (stat(path, &sb))
		return bb_error_errno(err, errno, "Maildir %s", path);
	if ((st = md_scan_sub(path, "new", now, l, &found, err)) ||
	    (st = md_scan_sub(path, "cur", now, l, &found, err)))
		return st;
	if (!found)
		return bb_error_set(err, BB_ERR_INVALID, "%s is not a Maildir (no new/ or cur/)",
				    path);
	if (!l->n)
		return BB_OK;
	/* a message being moved from new/ to cur/ may be seen in both */
	qsort(l->e, l->n, sizeof(*l->e), md_cmp_name);
	for (size_t i = 0; i < l->n; i++) {
		if (k && !strcmp(l->e[k - 1].name, l->e[i].name)) {
			free(l->e[i].name);
			free(l->e[i].file);
			continue;
		}
		l->e[k++] = l->e[i];
	}
	l->n = k;
	qsort(l->e, l->n, sizeof(*l->e), md_cmp_order);
	return BB_OK;
}

struct md_cursor {
	long long horizon;   /* -1: none (read everything) */
	struct run_args names; /* sorted */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static enum bb_status parse_md_cursor(const char *cursor, struct md_cursor *c,
				      struct bb_error *err)
{
	const char *p, *end;

	c->horizon = -1;
	memset(&c->names, 0, sizeof(c->names));
	if (!cursor)
		return BB_OK;
	if (strncmp(cursor, "maildir:", 8) || archive_parse_long(cursor + 8, &end, LLONG_MAX / 4,
								 &c->horizon) || *end != ':')
		goto bad;
	p = end + 1;
	while (*p) {
		size_t len = strcspn(p, "/");

		if (!len || memchr(p, ':', len))
			goto bad;
		if (run_args_push_owned(&c->names, strndup(p, len))) {
			run_args_clear(&c->names);
			return archive_nomem(err);
		}
		p += len;
		if (*p == '/')
			p++;
	}
	if (c->names.n)
		qsort(c->names.v, c->names.n, sizeof(char *), cmp_str);
	return BB_OK;
bad:
	run_args_clear(&c->names);
	c->horizon = -1;
	return bb_error_set(err, BB_ERR_INVALID,
			    "not a Maildir cursor (maildir:<time>:<name>/...): \"%.80s\"", cursor);
}

/* maildir:<horizon>:<names of the done entries with an mtime at or after
 * it>.  Entries are read in order, so those are the entries of [0,
 * read_end) from the first one at the horizon on, and the entries from
 * read_end on that the old cursor named (ahead[], ascending indexes): the
 * cost is the size of the cursor, not of the Maildir. */
static char *md_cursor_text(const struct md_list *l, long long horizon, size_t read_end,
			    const size_t *ahead, size_t nahead)
{
	struct buf b = BUF_INIT;
	size_t lo = 0, hi = read_end;
	int first = 1;

	if (buf_addf(&b, "maildir:%lld:", horizon < 0 ? 0 : horizon))
		return NULL;
	while (lo < hi) {   /* the first entry of [0, read_end) at the horizon */
		size_t mid = lo + (hi - lo) / 2;

		if (l->e[mid].mtime < horizon)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < read_end; i++) {
		if (!l->e[i].done)
			continue;
		if ((!first && buf_addch(&b, '/')) || buf_addstr(&b, l->e[i].name))
			goto fail;
		first = 0;
	}
	for (size_t k = 0; k < nahead; k++) {
		size_t i = ahead[k];

		if (i < read_end || l->e[i].mtime < horizon)
			continue;
		if ((!first && buf_addch(&b, '/')) || buf_addstr(&b, l->e[i].name))
			goto fail;
		first = 0;
	}
	return buf_detach(&b, NULL);
fail:
	buf_release(&b);
	return NULL;
}

/* The position after each message of a poll, kept up to date as messages
 * are read: the same set of names md_cursor_text() gives (the done
 * entries with an mtime at or after the horizon: those the old cursor
 * named, then those read in this poll, each group in list order), but a
 * message read at an unchanged horizon only appends its name, so messages
 * sharing one mtime second cost the length of their names, not the square
 * of their number.  When the horizon moves, the text is made again from
 * the entries at or after it. */
struct md_position {
	struct buf text;
	long long horizon;
	int built, empty;      /* empty: no name in text yet */
	size_t *read;          /* indexes of the entries done in this poll, in order */
	size_t nread;
};

/* The first of n indexes into l (ascending mtimes) at or after horizon. */
static size_t md_first_at(const struct md_list *l, const size_t *idx, size_t n, long long horizon)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->e[idx[mid]].mtime < horizon)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static enum bb_status md_position_add_name(struct md_position *p, const char *name)
{
	if (!p->empty && buf_addch(&p->text, '/'))
		return BB_ERR_NOMEM;
	p->empty = 0;
	return buf_addstr(&p->text, name);
}

/* Records entry i as done (it must come after the ones before in list
 * order) at horizon and brings the text up to date. */
static enum bb_status md_position_done(struct md_position *p, const struct md_list *l, size_t i,
				       long long horizon, const size_t *ahead, size_t nahead)
{
	p->read[p->nread++] = i;
	if (p->built && p->horizon == horizon)
		return l->e[i].mtime < horizon ? BB_OK : md_position_add_name(p, l->e[i].name);
	buf_reset(&p->text);
	p->horizon = horizon;
	p->built = 1;
	p->empty = 1;
	if (buf_addf(&p->text, "maildir:%lld:", horizon < 0 ? 0 : horizon))
		return BB_ERR_NOMEM;
	for (size_t k = md_first_at(l, ahead, nahead, horizon); k < nahead; k++)
		if (md_position_add_name(p, l->e[ahead[k]].name))
			return BB_ERR_NOMEM;
	for (size_t k = md_first_at(l, p->read, p->nread, horizon); k < p->nread; k++)
		if (md_position_add_name(p, l->e[p->read[k]].name))
			return BB_ERR_NOMEM;
	return BB_OK;
}

/* Reads a message file; a file renamed between the listing and now (new/
 * to cur/, a flag change) is looked for by its unique name.  *gone = 1
 * when it is not there any more. */
static enum bb_status md_read(struct archive_source *src, struct md_entry *e, struct buf *msg,
			      int *gone, struct bb_error *err)
{
	char *path = str_printf("%s/%s", src->path, e->file);
	enum bb_status st = BB_OK;
	struct stat sb;
	int fd;

	*gone = 0;
	buf_reset(msg);
	if (!path)
		return archive_nomem(err);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT) {
		struct md_list again = { NULL, 0, 0 };
		int found = 0;

		free(path);
		path = NULL;
		for (int s = 0; s < 2 && !path; s++) {
			md_list_release(&again);
			if (md_scan_sub(src->path, s ? "cur" : "new", archive_now_seconds(), &again,
					&found, NULL))
				break;
			for (size_t i = 0; i < again.n; i++)
				if (!strcmp(again.e[i].name, e->name)) {
					path = str_printf("%s/%s", src->path, again.e[i].file);
					break;
				}
		}
		md_list_release(&again);
		if (!path) {
			*gone = 1;
			return BB_OK;
		}
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd < 0) {
		if (errno == ENOENT)
			*gone = 1;
		else
			st = bb_error_errno(err, errno, "cannot open %s", path);
		goto out;
	}
	if (fstat(fd, &sb)) {
		st = bb_error_errno(err, errno, "cannot stat %s", path);
		goto out;
	}
	if ((unsigned long long)sb.st_size > src->max_message) {
		st = BB_ERR_TOO_LARGE;
		goto out;
	}
	if ((st = buf_grow(msg, (size_t)sb.st_size + 1))) {
		archive_nomem(err);
		goto out;
	}
	for (;;) {
		char chunk[65536];
		ssize_t n = fs_read_full(fd, chunk, sizeof(chunk));

		if (n < 0) {
			st = bb_error_errno(err, errno, "cannot read %s", path);
			goto out;
		}
		if (n == 0)
			break;
		if (msg->len + (size_t)n > src->max_message) {
			st = BB_ERR_TOO_LARGE;
			goto out;
		}
		if (buf_add(msg, chunk, (size_t)n)) {
			st = archive_nomem(err);
			goto out;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	free(path);
	return st;
}

static enum bb_status poll_maildir(struct archive_source *src, const char *cursor,
				   archive_message_fn fn, void *ctx, int tail, char **next_cursor,
				   struct bb_error *err)
{
	struct md_cursor c;
	struct md_list l = { NULL, 0, 0 };
	struct md_position pos = { BUF_INIT, 0, 0, 1, NULL, 0 };
	struct buf msg = BUF_INIT;
	long long now = archive_now_seconds(), horizon, handed_horizon = -1;
	size_t *ahead = NULL, nahead = 0, handed_len = 0;
	enum bb_status st;

	if ((st = parse_md_cursor(cursor, &c, err)) || (st = md_scan(src->path, now, &l, err)))
		goto out;
	horizon = c.horizon;
	ahead = calloc(c.names.n ? c.names.n : 1, sizeof(*ahead));
	pos.read = calloc(l.n ? l.n : 1, sizeof(*pos.read));
	if (!ahead || !pos.read) {
		st = archive_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		if (tail || (c.horizon >= 0 && l.e[i].mtime < c.horizon)) {
			l.e[i].done = 1;
		} else if (c.horizon >= 0 && nahead < c.names.n &&
			   bsearch(&l.e[i].name, c.names.v, c.names.n, sizeof(char *), cmp_str)) {
			l.e[i].done = 1;
			ahead[nahead++] = i;
		}
	}
	for (size_t i = 0; i < l.n; i++) {
		int gone = 0;

		if (l.e[i].done)
			continue;
		st = md_read(src, &l.e[i], &msg, &gone, err);
		if (st && st != BB_ERR_TOO_LARGE)
			goto out;
		l.e[i].done = 1;
		if (l.e[i].mtime - ARCHIVE_MAILDIR_SLACK > horizon)
			horizon = l.e[i].mtime - ARCHIVE_MAILDIR_SLACK;
		if (md_position_done(&pos, &l, i, horizon, ahead, nahead)) {
			st = archive_nomem(err);
			goto out;
		}
		if (st == BB_ERR_TOO_LARGE || gone) {
			archive_log_skip(src, gone ? "gone" : "too-large", l.e[i].file);
			st = BB_OK;
			continue;
		}
		/* at one horizon the text only grows (md_position_done()) */
		src->position_kept = pos.horizon == handed_horizon ? handed_len : 0;
		handed_horizon = pos.horizon;
		handed_len = pos.text.len;
		if ((st = archive_deliver(src, fn, ctx, msg.data, msg.len, pos.text.data, err)))
			goto out;
	}
	if (tail && l.n && l.e[l.n - 1].mtime - ARCHIVE_MAILDIR_SLACK > horizon)
		horizon = l.e[l.n - 1].mtime - ARCHIVE_MAILDIR_SLACK;
	if (!next_cursor)
		goto out;
	if (pos.built && !tail)   /* the last message's position */
		*next_cursor = buf_detach(&pos.text, NULL);
	else
		*next_cursor = md_cursor_text(&l, horizon, l.n, ahead, nahead);
	if (!*next_cursor)
		st = archive_nomem(err);
out:
	run_args_clear(&c.names);
	md_list_release(&l);
	buf_release(&msg);
	buf_release(&pos.text);
	free(pos.read);
	free(ahead);
	return st;
}

/* ---------------------------------------------------------------------------
 * mbox file
 */

/* Hash of the file's first bytes and the bytes before offset. */
static enum bb_status mbox_check(int fd, uint64_t offset, char out[ARCHIVE_ATOM_HASH_LEN + 1],
				 struct bb_error *err)
{
	unsigned char both[2 * ARCHIVE_MBOX_CHECK_BYTES + 1];
	size_t head = offset < ARCHIVE_MBOX_CHECK_BYTES ? (size_t)offset : ARCHIVE_MBOX_CHECK_BYTES;
	size_t tail = head;
	ssize_t n;

	n = pread(fd, both, head, 0);
	if (n != (ssize_t)head)
		goto fail;
	both[head] = '|';
	n = pread(fd, both + head + 1, tail, (off_t)(offset - tail));
	if (n != (ssize_t)tail)
		goto fail;
	if (hash16(both, head + 1 + tail, out))
		return archive_nomem(err);
	return BB_OK;
fail:
	return bb_error_errno(err, n < 0 ? errno : EIO, "cannot read the mbox");
}

static enum bb_status parse_mbox_cursor(const char *cursor, uint64_t *offset, char *check,
					struct bb_error *err)
{
	const char *end;
	long long off;

	*offset = 0;
	check[0] = '\0';
	if (!cursor)
		return BB_OK;
	if (strncmp(cursor, "mbox:", 5) ||
	    archive_parse_long(cursor + 5, &end, LLONG_MAX / 2, &off))
		goto bad;
	if (*end == ':') {
		if (strlen(end + 1) != ARCHIVE_ATOM_HASH_LEN ||
		    !archive_is_hex_string(end + 1, ARCHIVE_ATOM_HASH_LEN))
			goto bad;
		memcpy(check, end + 1, ARCHIVE_ATOM_HASH_LEN + 1);
	} else if (*end || off) {
		goto bad;
	}
	*offset = (uint64_t)off;
	return BB_OK;
bad:
	return bb_error_set(err, BB_ERR_INVALID, "not an mbox cursor (mbox:<offset>:<check>): \"%.80s\"",
			    cursor);
}

static char *mbox_cursor_text(int fd, uint64_t offset, struct bb_error *err)
{
	char check[ARCHIVE_ATOM_HASH_LEN + 1];
	char *text;

	if (mbox_check(fd, offset, check, err))
		return NULL;
	text = str_printf("mbox:%" PRIu64 ":%s", offset, check);
	if (!text)
		archive_nomem(err);
	return text;
}

/* Whether a From_ line starts at offset (after empty lines), or the file
 * ends there. */
static int mbox_from_at(int fd, uint64_t offset, uint64_t size)
{
	char head[4096];
	ssize_t n;
	size_t i = 0;

	if (offset == size)
		return 1;
	n = pread(fd, head, sizeof(head), (off_t)offset);
	if (n <= 0)
		return 0;
	while (i < (size_t)n && (head[i] == '\n' || (head[i] == '\r' && i + 1 < (size_t)n &&
						     head[i + 1] == '\n')))
		i += head[i] == '\r' ? 2 : 1;
	if (i == (size_t)n)
		return 1;   /* only empty lines so far */
	return (size_t)n - i >= 5 ? !memcmp(head + i, "From ", 5)
				  : !memcmp(head + i, "From ", (size_t)n - i);
}

struct mbox_ctx {
	struct archive_source *src;
	archive_message_fn fn;
	void *ctx;
	int fd;
	char *position;      /* after the last message looked at */
	struct bb_error *err;
	/* What a cursor's check hashes, kept from the reading so that a
	 * message's cursor costs no read: the file's first bytes, the chunk
	 * being fed and the last bytes of the chunk before it. */
	unsigned char head[ARCHIVE_MBOX_CHECK_BYTES];
	size_t head_len;
	const char *chunk;
	uint64_t chunk_at;
	size_t chunk_len;
	unsigned char before[ARCHIVE_MBOX_CHECK_BYTES]; /* the bytes before chunk_at */
	size_t before_len;
};

/* mbox_cursor_text() from the bytes at hand; reads only when they are not. */
static char *mbox_cursor_text_kept(struct mbox_ctx *mc, uint64_t offset)
{
	unsigned char both[2 * ARCHIVE_MBOX_CHECK_BYTES + 1];
	size_t n = offset < ARCHIVE_MBOX_CHECK_BYTES ? (size_t)offset : ARCHIVE_MBOX_CHECK_BYTES;
	uint64_t from = offset - n;
	char check[ARCHIVE_ATOM_HASH_LEN + 1];
	char *text;

	if (n > mc->head_len || offset < mc->chunk_at || offset > mc->chunk_at + mc->chunk_len ||
	    from + mc->before_len < mc->chunk_at)
		return mbox_cursor_text(mc->fd, offset, mc->err);
	memcpy(both, mc->head, n);
	both[n] = '|';
	if (from >= mc->chunk_at) {
		memcpy(both + n + 1, mc->chunk + (from - mc->chunk_at), n);
	} else {
		size_t early = (size_t)(mc->chunk_at - from);

		memcpy(both + n + 1, mc->before + (mc->before_len - early), early);
		memcpy(both + n + 1 + early, mc->chunk, n - early);
	}
	if (hash16(both, 2 * n + 1, check)) {
		archive_nomem(mc->err);
		return NULL;
	}
	text = str_printf("mbox:%" PRIu64 ":%s", offset, check);
	if (!text)
		archive_nomem(mc->err);
	return text;
}

static enum bb_status mbox_on_message(void *ctx, const char *raw, size_t len, uint64_t end)
{
	struct mbox_ctx *m = ctx;
	char *position = mbox_cursor_text_kept(m, end);

	if (!position)
		return m->err ? m->err->code : BB_ERR_IO;
	free(m->position);
	m->position = position;
	if (!raw) {
		archive_log_skip(m->src, "too-large-or-empty", position);
		return BB_OK;
	}
	return archive_deliver(m->src, m->fn, m->ctx, raw, len, position, m->err);
}

static enum bb_status poll_mbox(struct archive_source *src, const char *cursor,
				archive_message_fn fn, void *ctx, int tail, char **next_cursor,
				struct bb_error *err)
{
	struct mbox_ctx mc = { .src = src, .fn = fn, .ctx = ctx, .fd = -1, .err = err };
	struct archive_mbox *m = NULL;
	struct flock lk;
	struct stat sb;
	uint64_t offset, size;
	char check[ARCHIVE_ATOM_HASH_LEN + 1], now_check[ARCHIVE_ATOM_HASH_LEN + 1];
	char *lock_path = NULL, *chunk = NULL;
	int settled;
	enum bb_status st;

	if ((st = parse_mbox_cursor(cursor, &offset, check, err)))
		goto out;
	mc.fd = open(src->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (mc.fd < 0) {
		st = bb_error_errno(err, errno, "mbox %s", src->path);
		goto out;
	}
	memset(&lk, 0, sizeof(lk));
	lk.l_type = F_RDLCK;
	lk.l_whence = SEEK_SET;
	if (fcntl(mc.fd, F_SETLK, &lk)) {
		st = (errno == EAGAIN || errno == EACCES)
			? bb_error_set(err, BB_ERR_BUSY, "mbox %s is locked by a writer", src->path)
			: bb_error_errno(err, errno, "cannot lock mbox %s", src->path);
		goto out;
	}
	if (!(lock_path = str_printf("%s.lock", src->path))) {
		st = archive_nomem(err);
		goto out;
	}
	if (!access(lock_path, F_OK)) {
		st = bb_error_set(err, BB_ERR_BUSY, "mbox %s is locked (%s exists)", src->path,
				  lock_path);
		goto out;
	}
	if (fstat(mc.fd, &sb)) {
		st = bb_error_errno(err, errno, "cannot stat %s", src->path);
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		st = bb_error_set(err, BB_ERR_INVALID, "mbox %s is not a file", src->path);
		goto out;
	}
	size = (uint64_t)sb.st_size;
	/* A last line without a newline is a message still being written,
	 * unless the file has not changed for a while: then it is complete
	 * (a downloaded mbox, e.g. from patchwork, can end so for good). */
	settled = (long long)sb.st_mtime <= archive_now_seconds() - ARCHIVE_MBOX_SETTLE;
	if (tail) {
		char last = '\n';

		if (size && pread(mc.fd, &last, 1, (off_t)(size - 1)) != 1) {
			st = bb_error_errno(err, errno, "cannot read %s", src->path);
			goto out;
		}
		if (last != '\n' && !settled) {
			st = bb_error_set(err, BB_ERR_TEMPORARY,
					  "mbox %s: the last message is incomplete (no newline at the end)",
					  src->path);
			goto out;
		}
		offset = size;
	} else if (offset) {
		int same = offset <= size;

		if (same && (st = mbox_check(mc.fd, offset, now_check, err)))
			goto out;
		same = same && !strcmp(check, now_check) && mbox_from_at(mc.fd, offset, size);
		if (!same) {
			src->stats.rewinds++;
			log_event(LOG_LEVEL_WARN, "archive.rewind", LF_STR("kind", "mbox"),
				  LF_STR("path", src->path),
				  LF_STR("reason", "the file was rewritten since the cursor"));
			offset = 0;
		}
	}
	if (!(mc.position = mbox_cursor_text(mc.fd, offset, err))) {
		st = err ? err->code : BB_ERR_IO;
		goto out;
	}
	if (offset < size) {
		ssize_t h;

		m = archive_mbox_new(offset, src->max_message, mbox_on_message, &mc);
		chunk = malloc(ARCHIVE_MBOX_CHUNK);
		if (!m || !chunk) {
			st = archive_nomem(err);
			goto out;
		}
		h = pread(mc.fd, mc.head, sizeof(mc.head), 0);
		mc.head_len = h > 0 ? (size_t)h : 0;
		mc.chunk = chunk;
		mc.chunk_at = offset;
		for (uint64_t at = offset; at < size;) {
			size_t want = size - at < ARCHIVE_MBOX_CHUNK ? (size_t)(size - at)
								     : ARCHIVE_MBOX_CHUNK;
			ssize_t n = pread(mc.fd, chunk, want, (off_t)at);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				st = bb_error_errno(err, n < 0 ? errno : EIO, "cannot read %s",
						    src->path);
				goto out;
			}
			mc.chunk_len = (size_t)n;
			if ((st = archive_mbox_feed(m, chunk, (size_t)n, err)))
				goto out;
			if ((size_t)n >= sizeof(mc.before)) {
				memcpy(mc.before, chunk + n - sizeof(mc.before), sizeof(mc.before));
				mc.before_len = sizeof(mc.before);
			} else {   /* a short read: keep what is still needed */
				size_t keep = sizeof(mc.before) - (size_t)n;

				if (keep > mc.before_len)
					keep = mc.before_len;
				memmove(mc.before, mc.before + mc.before_len - keep, keep);
				memcpy(mc.before + keep, chunk, (size_t)n);
				mc.before_len = keep + (size_t)n;
			}
			at += (uint64_t)n;
			mc.chunk_at = at;
			mc.chunk_len = 0;
		}
		if ((st = archive_mbox_finish(m, settled, err))) {
			if (st == BB_ERR_TEMPORARY)
				bb_error_set(err, st,
					     "mbox %s: the last message is incomplete (no newline at the end); "
					     "it is read once complete", src->path);
			goto out;
		}
	}
	if (next_cursor) {
		*next_cursor = mc.position;
		mc.position = NULL;
	}
out:
	archive_mbox_free(m);
	free(chunk);
	free(lock_path);
	free(mc.position);
	if (mc.fd >= 0)
		close(mc.fd);
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
		st = poll_atom(src, cursor, fn, ctx, 0, next_cursor, err);
		break;
	case KIND_MAILDIR:
		st = poll_maildir(src, cursor, fn, ctx, 0, next_cursor, err);
		break;
	case KIND_MBOX:
		st = poll_mbox(src, cursor, fn, ctx, 0, next_cursor, err);
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
		st = poll_atom(src, NULL, no_message, NULL, 1, cursor, err);
		break;
	case KIND_MAILDIR:
		st = poll_maildir(src, NULL, no_message, NULL, 1, cursor, err);
		break;
	case KIND_MBOX:
		st = poll_mbox(src, NULL, no_message, NULL, 1, cursor, err);
		break;
	}
	if (st) {
		free(*cursor);
		*cursor = NULL;
	}
	return st;
}
