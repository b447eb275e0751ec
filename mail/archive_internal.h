/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What mail/archive.c and mail/archive_git.c share: the definition of
 * struct archive_source, the helpers both use (defined in archive.c) and the
 * public-inbox reader's entry points (defined in archive_git.c).  Private to
 * mail/archive*.c: include it from nowhere else; the contract is in
 * archive.h. */
#ifndef BB_ARCHIVE_INTERNAL_H
#define BB_ARCHIVE_INTERNAL_H

#include <curl/curl.h>
#include <stddef.h>
#include <time.h>

#include "core/buf.h"
#include "mail/archive.h"

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

/* --- archive.c -------------------------------------------------------------- */

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

/* Hands a message to the caller, counting it. */
enum bb_status archive_deliver(struct archive_source *src, archive_message_fn fn, void *ctx,
			       const char *raw, size_t len, const char *position,
			       struct bb_error *err);

/* Counts a message left out (stats.skipped) with a warn log line. */
void archive_log_skip(struct archive_source *src, const char *reason, const char *where);

/* GET url into *body (at most cap bytes).  Non-2xx answers are folded with
 * status_from_http(); err->retry_after is set from Retry-After. */
enum bb_status archive_http_get(struct archive_source *src, const char *url, size_t cap,
				struct buf *body, struct bb_error *err);

/* --- archive_git.c: public-inbox -------------------------------------------- */

/* archive_poll() and archive_tail() of a public-inbox source. */
enum bb_status archive_poll_public_inbox(struct archive_source *src, const char *cursor,
					 archive_message_fn fn, void *ctx, char **next_cursor,
					 struct bb_error *err);
enum bb_status archive_tail_public_inbox(struct archive_source *src, char **cursor,
					 struct bb_error *err);

#endif
