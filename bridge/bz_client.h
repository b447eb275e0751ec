/* Bugzilla 5.x REST client (libcurl + json-c).
 *
 * One client keeps one curl handle, so connections are reused; responses
 * may be compressed.  The API key goes in the X-BUGZILLA-API-KEY header or,
 * for 5.0/5.2 servers that ignore it, in the api_key parameter (never in
 * logs).  TLS is verified; CA file and proxy are configurable.
 *
 * Failures are folded into bb_status values with their retry class
 * (core/status.h): Bugzilla's JSON errors ({"error":true,"code":N,
 * "message":...}), HTTP 401/403 (BB_ERR_AUTH), 404 (BB_ERR_NOT_FOUND), 429
 * and 503 with Retry-After (BB_ERR_TEMPORARY, err->retry_after set), other
 * 5xx, timeouts and connection failures (BB_ERR_TEMPORARY), truncated or
 * invalid JSON (BB_ERR_PROTOCOL).  An idempotent request whose reused
 * connection was reset is retried once on a fresh connection.
 */
#ifndef BB_BZ_CLIENT_H
#define BB_BZ_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "bridge/bug.h"
#include "core/status.h"

struct bz_client;

struct bz_client_options {
	const char *url;          /* base URL, e.g. https://bugzilla.kernel.org */
	const char *api_key;      /* NULL: anonymous */
	int key_in_header;        /* 1: X-BUGZILLA-API-KEY, 0: api_key= parameter */
	const char *ca_file;      /* NULL: system default */
	const char *proxy;        /* NULL: none (libcurl's environment rules apply) */
	long timeout;             /* seconds per request */
	const char *subsystem_field; /* custom field to fetch as well, or NULL */
	unsigned page_size;       /* bugs per search page */
};

/* Which bugs a search returns (all criteria ANDed; NULL/empty: any). */
struct bz_filter {
	char **products;          /* NULL-terminated lists */
	char **components;
	char **statuses;
	const char *keyword;
};

enum bb_status bz_client_new(struct bz_client **out, const struct bz_client_options *opt,
			     struct bb_error *err);
void bz_client_free(struct bz_client *c);
/* Requests made so far (for tests and benchmarks). */
unsigned long bz_client_requests(const struct bz_client *c);

/* GET /rest/time: the server's clock. */
enum bb_status bz_server_time(struct bz_client *c, time_t *now, struct bb_error *err);

/* GET /rest/bug?last_change_time=since&... paginated with limit/offset and
 * ordered by change time then id, include_fields cut to what bugbridge
 * uses.  Bugs come without comments and attachments.  *bugs is a malloc'd
 * array of *count bugs; free each with bz_bug_release() and the array with
 * free(). */
enum bb_status bz_search_changed(struct bz_client *c, time_t since, const struct bz_filter *f,
				 struct bz_bug **bugs, size_t *count, struct bb_error *err);

/* Fills bugs[i].comments for all n bugs with as few requests as the server
 * allows (GET /rest/bug/<first>/comment?ids=...&new_since=...); new_since 0
 * fetches all.  Comments are de-duplicated by id and sorted by count. */
enum bb_status bz_fetch_comments(struct bz_client *c, struct bz_bug *bugs, size_t n,
				 time_t new_since, struct bb_error *err);

/* Fills bugs[i].attachments (metadata only: exclude_fields=data). */
enum bb_status bz_fetch_attachments(struct bz_client *c, struct bz_bug *bugs, size_t n,
				    struct bb_error *err);

/* Downloads one attachment's bytes, handing them to sink in chunks as they
 * arrive (for the blob store); max_size stops a larger one with
 * BB_ERR_TOO_LARGE.  *size gets the byte count. */
enum bb_status bz_download_attachment(struct bz_client *c, long long attachment_id,
				      uint64_t max_size,
				      enum bb_status (*sink)(void *ctx, const void *data, size_t len),
				      void *ctx, uint64_t *size, struct bb_error *err);

/* Real names for logins (GET /rest/user?names=...), batched; fills
 * users[i].real_name where the server tells (needs an account on most
 * servers; anonymous lookups just leave names empty). */
enum bb_status bz_fetch_users(struct bz_client *c, struct bz_user *users, size_t n,
			      struct bb_error *err);

/* POST /rest/bug/<id>/comment; *comment_id gets the new comment's id. */
enum bb_status bz_add_comment(struct bz_client *c, long long bug_id, const char *text,
			      int is_private, long long *comment_id, struct bb_error *err);

/* Parsers, shared with tests and fuzz targets: a response body of
 * GET /rest/bug (bugs appended to *bugs), of a comment request (filling
 * matching bugs), of an attachment listing.  BB_ERR_PROTOCOL with a message
 * for anything malformed; a Bugzilla error object gives its folded status. */
enum bb_status bz_parse_bugs(const char *json, size_t len, const char *subsystem_field,
			     struct bz_bug **bugs, size_t *count, struct bb_error *err);
enum bb_status bz_parse_comments(const char *json, size_t len, struct bz_bug *bugs, size_t n,
				 struct bb_error *err);
enum bb_status bz_parse_attachments(const char *json, size_t len, struct bz_bug *bugs,
				    size_t n, struct bb_error *err);

#endif
