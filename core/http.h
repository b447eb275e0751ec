/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the HTTP clients (bugzilla/bz_client.c, mail/archive.c) share on
 * top of libcurl: one folding of transfer failures into status codes (the
 * HTTP status itself is folded by status_from_http() in core/status.h) and
 * one reading of Retry-After. */
#ifndef BB_HTTP_H
#define BB_HTTP_H

#include <stddef.h>
#include <time.h>

#include <curl/curl.h>

#include "core/status.h"

/* A failed transfer as a status: the configuration's fault (bad URL, TLS
 * trust), the server's (a weird answer, redirect loops), too large, out of
 * memory, or, for everything network-shaped, BB_ERR_TEMPORARY. */
enum bb_status http_fold_curl(CURLcode rc);

/* Retry-After (delta-seconds or an HTTP date) as an absolute time, capped
 * at now + max_wait; 0 when it cannot be read. */
time_t http_retry_after(const char *value, long long max_wait);

/* For a libcurl header callback: a status line resets *retry_after (a new
 * response after 100 Continue), a Retry-After header sets it. */
void http_header_line(const char *data, size_t len, long long max_wait, time_t *retry_after);

#endif
