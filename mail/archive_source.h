/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A list archive source as its readers see it; the rest of the program
 * reads archives through archive.h.
 *
 * archive.c makes a source from its options and hands archive_poll() and
 * archive_tail() to the reader of its kind, each in a file of its own with
 * a header of its own: archive_git.h (public-inbox git epochs),
 * archive_atom.h (an inbox's Atom feed, and the thread download of
 * archive_fetch_thread()), archive_maildir.h and archive_mbox.h (the local
 * mbox file; the mbox splitter and the Atom parser are in archive.h, for
 * the tests and fuzz targets).  A reader reads the source's settings from
 * the struct below and hands over what it read with the calls below, which
 * archive.c defines: they count what the source's stats count, log what is
 * logged the same way for every kind, and make every HTTP request.
 */
#ifndef BB_ARCHIVE_SOURCE_H
#define BB_ARCHIVE_SOURCE_H

#include <curl/curl.h>
#include <stddef.h>
#include <time.h>

#include "core/buf.h"
#include "core/status.h"
#include "mail/archive.h"

/* max_message_size when the options give 0 (archive.h: 64 MiB). */
#define ARCHIVE_DEFAULT_MAX_MESSAGE ((size_t)64 << 20)
/* Hex digits of archive_hash16(): the Atom cursor's entry hashes, the mbox
 * cursor's check. */
#define ARCHIVE_HASH_LEN 16

enum archive_kind {
	KIND_PUBLIC_INBOX,
	KIND_ATOM,
	KIND_MAILDIR,
	KIND_MBOX,
};

struct archive_source {
	enum archive_kind kind;
	char *url;            /* without a trailing '/' */
	char *path;
	char *dir;            /* public-inbox: this source's state folder */
	int local;            /* public-inbox: a local inbox at path, read in place */
	int v1;               /* public-inbox: path is a v1 inbox (one repository) */
	char *ca_file;
	char *proxy;
	char *git_program;
	long timeout;
	size_t max_message;
	long probe_interval;
	CURL *curl;
	char curl_error[CURL_ERROR_SIZE];
	struct archive_stats stats;
	size_t position_kept; /* archive_position_kept() */
};

/* The kind's name as the options give it ("public-inbox", "atom",
 * "maildir", "mbox"), for messages. */
const char *archive_kind_name(enum archive_kind kind);

/* Sets BB_ERR_NOMEM in err and returns it. */
enum bb_status archive_nomem(struct bb_error *err);

/* time(NULL), and the milliseconds since start (CLOCK_MONOTONIC). */
long long archive_now_seconds(void);
long long archive_elapsed_ms(const struct timespec *start);

/* The decimal number at s (at most max) into *out, *end after its digits;
 * -1 when s starts with no digit or the number is over max. */
int archive_parse_long(const char *s, const char **end, long long max, long long *out);

/* Whether s[0..len) is all lower-case hex digits. */
int archive_is_hex_string(const char *s, size_t len);

/* The first ARCHIVE_HASH_LEN hex digits of the SHA-256 of data, into out
 * (NUL-terminated).  BB_ERR_NOMEM when out of memory. */
enum bb_status archive_hash16(const void *data, size_t len, char out[ARCHIVE_HASH_LEN + 1]);

/* Hands a message to the caller (stats.messages, stats.bytes); a status
 * other than BB_OK from fn is returned, and put in err with "stopped by the
 * message handler" if fn left it at BB_OK. */
enum bb_status archive_deliver(struct archive_source *src, archive_message_fn fn, void *ctx,
			       const char *raw, size_t len, const char *position,
			       struct bb_error *err);

/* Counts a message left out (stats.skipped) with a warn log line naming
 * the reason and where it was. */
void archive_log_skip(struct archive_source *src, const char *reason, const char *where);

/* GET url into *body (at most cap bytes; BB_ERR_TOO_LARGE beyond) with the
 * source's curl handle, timeout, CA file and proxy (stats.http_requests).
 * Non-2xx answers are folded with status_from_http(); err->retry_after is
 * set from Retry-After. */
enum bb_status archive_http_get(struct archive_source *src, const char *url, size_t cap,
				struct buf *body, struct bb_error *err);

#endif
