/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Folder core/: the base: buffer, status codes, logging, files, SHA-256,
 * the SQLite store with its migrations and cursors, the HTTP client
 * wrapper, running git.  It uses no other folder.
 *
 * Status codes shared by all of bugbridge's library code.
 *
 * The numbers are stable (they appear in logs and JSON output); add new codes
 * at the end.  Every failure also falls into a retry class that tells the
 * caller what to do next, in the manner of isync's FAIL_TEMP/FAIL_WAIT/
 * FAIL_FINAL: try again at once, try again later, or give up.
 *
 * Library functions that can fail take a struct bb_error *, owned by the
 * caller, and fill it with the code and a one-line message meant for a human.
 * The message never contains a secret.
 */
#ifndef BB_STATUS_H
#define BB_STATUS_H

#include <time.h>

enum bb_status {
	BB_OK = 0,
	BB_ERR_NOMEM = 1,       /* out of memory */
	BB_ERR_IO = 2,          /* read/write error on a file or socket */
	BB_ERR_NO_SPACE = 3,    /* disk full or quota exceeded */
	BB_ERR_NOT_FOUND = 4,   /* no such file, blob, bug, ... */
	BB_ERR_INVALID = 5,     /* malformed input: a hash, a URL, a config value */
	BB_ERR_TOO_LARGE = 6,   /* over a configured limit */
	BB_ERR_CORRUPT = 7,     /* stored data does not match its hash */
	BB_ERR_AUTH = 8,        /* missing or wrong credentials */
	BB_ERR_DATABASE = 9,    /* SQLite failed */
	BB_ERR_CONFIG = 10,     /* unusable configuration */
	BB_ERR_TEMPORARY = 11,  /* the peer asked us to come back later */
	BB_ERR_PERMISSION = 12, /* the OS refused access */
	BB_ERR_BUSY = 13,       /* a lock is held by someone else */
	BB_ERR_PROTOCOL = 14,   /* the peer answered something we cannot use */
	BB_ERR_UNSUPPORTED = 15,/* a format or feature we do not handle */
	BB_ERR_INTERRUPTED = 16,/* stopped by a signal or a test hook */
	BB_ERR_INTERNAL = 17,   /* a bug in bugbridge */
};

enum bb_retry {
	BB_RETRY_NONE = 0,  /* not a failure */
	BB_RETRY_NOW,       /* transient: try again at once (with a small backoff) */
	BB_RETRY_LATER,     /* come back later; bb_error.retry_after says when if known */
	BB_RETRY_GIVE_UP,   /* permanent: trying again will fail the same way */
};

struct bb_error {
	enum bb_status code;
	time_t retry_after; /* absolute time for BB_RETRY_LATER, 0 if unknown */
	char message[512];
};

#define BB_ERROR_INIT { BB_OK, 0, { 0 } }

/* Short stable name of a status ("not-found"), never NULL. */
const char *status_str(enum bb_status st);
/* Name of a retry class ("retry-later"), never NULL. */
const char *retry_str(enum bb_retry r);
/* The retry class a status falls into when nothing more is known. */
enum bb_retry status_retry_class(enum bb_status st);
/* Folds an HTTP status code into a status (200..299 give BB_OK). */
enum bb_status status_from_http(long http_code);
/* Folds an SMTP reply code into a status (2xx give BB_OK, 4xx retry later,
 * 5xx give up). */
enum bb_status status_from_smtp(int smtp_code);
/* Folds an errno value into a status. */
enum bb_status status_from_errno(int errnum);

/* Fills err (if not NULL) and returns code, so callers can write
 * "return bb_error_set(err, BB_ERR_IO, "...", ...);".  */
enum bb_status bb_error_set(struct bb_error *err, enum bb_status code,
			    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Like bb_error_set() with code from errno and ": strerror" appended. */
enum bb_status bb_error_errno(struct bb_error *err, int errnum,
			      const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void bb_error_clear(struct bb_error *err);

#endif
