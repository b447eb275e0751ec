/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bugzilla 5.x REST client (libcurl + json-c).
 *
 * One client keeps one curl handle, so connections are reused; responses
 * may be compressed.  The API key goes in the X-BUGZILLA-API-KEY header or,
 * for 5.0/5.2 servers that ignore it, in the api_key parameter (never in
 * logs); BZ_KEY_AUTO asks GET /rest/version once (anonymously, before the
 * first request that carries the key) and uses the header only for a 5.1.x
 * server.  TLS is verified; CA file and proxy are configurable.
 *
 * Failures are folded into bb_status values with their retry class
 * (core/status.h): Bugzilla's JSON errors ({"error":true,"code":N,
 * "message":...}), HTTP 401/403 (BB_ERR_AUTH), 404 (BB_ERR_NOT_FOUND), 429
 * and 503 with Retry-After (BB_ERR_TEMPORARY, err->retry_after set), other
 * 5xx, timeouts and connection failures (BB_ERR_TEMPORARY), truncated or
 * invalid JSON (BB_ERR_PROTOCOL).  An idempotent request whose reused
 * connection was reset is retried once on a fresh connection.
 *
 * In detail:
 *  - A Bugzilla error sent with HTTP 400 (or 200) is folded by its code:
 *    101, 51, 32614 BB_ERR_NOT_FOUND; 102, 110, 113, 300-307 (306: bad API
 *    key), 410 BB_ERR_AUTH; negative codes (failures inside Bugzilla)
 *    BB_ERR_TEMPORARY; any other BB_ERR_INVALID.  err->message keeps the
 *    server's message (one line, valid UTF-8, the API key scrubbed out)
 *    followed by "(from URL)", the request's URL without the key.  Bugzilla's
 *    "You must log in" (code 410) to a request that carried the key says
 *    how the key was sent and names [bugzilla] api_key_in / api_key.
 *  - Retry-After is read as seconds or as an HTTP date and capped at a
 *    week; err->retry_after is an absolute time, 0 when none was given.
 *  - A body that arrives whole but is not complete JSON is BB_ERR_PROTOCOL;
 *    a body cut short of its Content-Length (the connection closed under
 *    it) is a transport failure, BB_ERR_TEMPORARY.
 *  - TLS verification failures and unusable URLs are BB_ERR_CONFIG;
 *    redirects are not followed (BB_ERR_PROTOCOL naming the target), since
 *    a key header would follow them to another host.
 *  - Bodies are capped at 256 MiB and refused before parsing if json-c
 *    would need more than 1 GiB for them (BB_ERR_TOO_LARGE).
 *  - Requests are logged (log_event, debug level, event=bz.request) with
 *    the URL minus the key.
 *
 * Not thread-safe: one client per thread.
 */
#ifndef BB_BZ_CLIENT_H
#define BB_BZ_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "bugzilla/bug.h"
#include "core/status.h"

struct bz_client;

/* Where the API key goes (the values of config's bz_key_in_header). */
#define BZ_KEY_PARAM 0            /* api_key= parameter (5.0, 5.2; 5.1 too) */
#define BZ_KEY_HEADER 1           /* X-BUGZILLA-API-KEY (5.1 only) */
#define BZ_KEY_AUTO 2             /* the header for a 5.1.x server, else the parameter */

struct bz_client_options {
	const char *url;          /* base URL, e.g. https://bugzilla.kernel.org */
	const char *api_key;      /* NULL or "": anonymous */
	int key_in_header;        /* BZ_KEY_PARAM, BZ_KEY_HEADER or BZ_KEY_AUTO */
	const char *ca_file;      /* NULL: system default */
	const char *proxy;        /* NULL: none (libcurl's environment rules apply) */
	long timeout;             /* seconds per request (0: 60); a download
				   * fails only when it stalls that long */
	const char *subsystem_field; /* custom field to fetch as well, or NULL */
	unsigned page_size;       /* bugs per search page (0: 100) */
	const char *const *fields; /* more fields bz_search_changed() asks for
				   * (kernel, bisect, regression fields),
				   * NULL-terminated; NULL: none */
	const char *const *flags; /* the gate's flags when a bz_filter has none
				   * (see bz_filter.flags); NULL: none */
};

/* Which bugs a search returns (all criteria ANDed; NULL/empty: any). */
struct bz_filter {
	char **products;          /* NULL-terminated lists */
	char **components;
	char **statuses;
	/* The gate: bugs with the keyword or one of the flags ("bugbot+": a
	 * flag's name and status).  Only a keyword goes out as keywords=K; with
	 * flags the search holds the boolean chart
	 * f1=OP&j1=OR&f2=keywords&o2=anywords&v2=K&f3=flagtypes.name&o3=equals&
	 * v3=bugbot+...&fN=CP.  flags NULL: the client's options.flags. */
	const char *keyword;
	char **flags;
	/* Only these bugs (id=...), whatever the gate (bugbridge resync);
	 * nids 0: all. */
	const long long *ids;
	size_t nids;
};

/* The options are copied.  BB_ERR_CONFIG for a URL that is not http(s)://
 * or carries a query, or a key with spaces or control characters. */
enum bb_status bz_client_new(struct bz_client **out, const struct bz_client_options *opt,
			     struct bb_error *err);
void bz_client_free(struct bz_client *c);
/* Requests made so far (for tests and benchmarks), without the once per
 * process GET /rest/version (BZ_KEY_AUTO) and GET /rest/field/bug
 * (bugzilla/bz_fields.h). */
unsigned long bz_client_requests(const struct bz_client *c);
/* 1 when st, the failure of the last request about one bug, says that the
 * bug is gone or hidden from this account (Bugzilla codes 101, 102: it was
 * deleted or put in a group the account is not in). */
int bz_client_bug_hidden(const struct bz_client *c, enum bb_status st);
/* Bugzilla's own error code of the last request that failed with one (0:
 * none), e.g. BZ_CODE_COMMENT_TOO_LONG. */
#define BZ_CODE_COMMENT_TOO_LONG 114
int bz_client_last_code(const struct bz_client *c);

/* GET /rest/time: the server's clock (db_time, the clock that stamps
 * last_change_time). */
enum bb_status bz_server_time(struct bz_client *c, time_t *now, struct bb_error *err);

/* GET /rest/bug?last_change_time=since&... paginated with limit/offset and
 * ordered by change time then id, include_fields cut to what bugbridge
 * uses (with flags, subsystem_field, cf_regression and options.fields).  Bugzilla reads
 * last_change_time as "at or after"; the caller adds its own overlap.
 * Pages are read until one comes back short.  A bug seen twice (it changed
 * while the pages were read) is kept once, its latest copy.  Bugs come
 * without comments and attachments, ordered by (last_change_time, id).
 * *bugs is a malloc'd array of *count bugs (NULL when there are none); free
 * each with bz_bug_release() and the array with free().  Filter lists go
 * out as repeated product=, component=, bug_status= parameters. */
enum bb_status bz_search_changed(struct bz_client *c, time_t since, const struct bz_filter *f,
				 struct bz_bug **bugs, size_t *count, struct bb_error *err);

/* Fills bugs[i].comments for all n bugs with as few requests as the server
 * allows (GET /rest/bug/<first>/comment?ids=...&new_since=...); new_since 0
 * fetches all.  Comments are de-duplicated by id and sorted by count.
 * Comments already in bugs[i] are kept (a fresh copy replaces one with the
 * same id), so calls can add to each other.  Requests hold up to 200 bugs
 * and 6000 bytes of URL.  A bug deleted or hidden since it was found
 * (Bugzilla error 101 or 102) keeps what it had and does not fail the rest. */
enum bb_status bz_fetch_comments(struct bz_client *c, struct bz_bug *bugs, size_t n,
				 time_t new_since, struct bb_error *err);

/* bz_fetch_comments() with a new_since for each bug (new_since[i] for
 * bugs[i]; 0 fetches all): a request asks from the earliest of its bugs',
 * so callers sort the bugs by it to keep the answers small. */
enum bb_status bz_fetch_comments_each(struct bz_client *c, struct bz_bug *bugs, size_t n,
				      const time_t *new_since, struct bb_error *err);

/* Fills bugs[i].attachments (metadata only: exclude_fields=data), batched
 * and merged by attachment id like bz_fetch_comments(); sorted by id. */
enum bb_status bz_fetch_attachments(struct bz_client *c, struct bz_bug *bugs, size_t n,
				    struct bb_error *err);

/* Downloads one attachment's bytes, handing them to sink in chunks as they
 * arrive (for the blob store); max_size stops a larger one with
 * BB_ERR_TOO_LARGE.  *size gets the byte count.
 *
 * First GET /attachment.cgi?id=N (with Bugzilla_api_key= when there is a
 * key), streamed.  If that answer is not the file (not 200, or text/html:
 * a login or error page, also what a private attachment gives), then GET
 * /rest/bug/attachment/N?include_fields=id,size,data and the base64 is
 * decoded to the sink; a decoded length other than the declared size is
 * BB_ERR_CORRUPT, an attachment REST does not show BB_ERR_NOT_FOUND.  On
 * any failure the sink may already have had part of the bytes: discard
 * them.  A sink's own failure status is returned as it is. */
enum bb_status bz_download_attachment(struct bz_client *c, long long attachment_id,
				      uint64_t max_size,
				      enum bb_status (*sink)(void *ctx, const void *data, size_t len),
				      void *ctx, uint64_t *size, struct bb_error *err);

/* Real names for logins (GET /rest/user?names=...), batched; fills
 * users[i].real_name where the server tells (needs an account on most
 * servers; anonymous lookups just leave names empty).  users[i].real_name
 * must be NULL or malloc'd (it is replaced); an unknown login keeps its
 * name and does not fail the others. */
enum bb_status bz_fetch_users(struct bz_client *c, struct bz_user *users, size_t n,
			      struct bb_error *err);

/* Whether login is in the Bugzilla group (GET /rest/user?names=...);
 * *member 0 for an unknown login.  BB_ERR_AUTH when the server does not
 * show group membership to this account (that takes editusers). */
enum bb_status bz_user_in_group(struct bz_client *c, const char *login, const char *group,
				int *member, struct bb_error *err);

/* POST /rest/bug/<id>/comment; *comment_id gets the new comment's id.
 * Text that is not valid UTF-8 is repaired first.  Never retried, not even
 * by libcurl on a reused connection (a POST always opens a fresh one): on
 * BB_ERR_TEMPORARY the comment may or may not exist, and the caller must
 * look before posting again. */
enum bb_status bz_add_comment(struct bz_client *c, long long bug_id, const char *text,
			      int is_private, long long *comment_id, struct bb_error *err);

/* POST /rest/bug/<id>/attachment: len bytes as file_name with the summary
 * (the file name when NULL or empty); *attachment_id gets its id.  Not
 * retried (see bz_add_comment). */
enum bb_status bz_add_attachment(struct bz_client *c, long long bug_id, const char *file_name,
				 const char *content_type, const char *summary, const void *data,
				 size_t len, long long *attachment_id, struct bb_error *err);

/* One field of a bug to set: Bugzilla's name ("status", "resolution",
 * "component", "assigned_to", "summary", "priority", "severity", ...) and
 * the new value. */
struct bz_change {
	const char *field;
	const char *value;
};

/* PUT /rest/bug/<id> with the n fields ("comment": a comment made with the
 * change, sent as {"body": text}; "flags", "keywords" and "cc" take JSON
 * text, as [{"name": "needinfo", "status": "?"}] and {"add": ["needinfo"]},
 * sent as that JSON).  Not retried (see bz_add_comment);
 * Bugzilla's refusal (an invalid resolution, a component that does not
 * exist, no permission) comes back as its folded status with its message. */
enum bb_status bz_update_bug(struct bz_client *c, long long bug_id, const struct bz_change *ch,
			     size_t n, struct bb_error *err);

/* POST /rest/bug: a new bug with the fields (product, component, summary,
 * version, ...) and the description; *bug_id gets its id.  Not retried. */
enum bb_status bz_create_bug(struct bz_client *c, const struct bz_change *fields, size_t n,
			     const char *description, long long *bug_id, struct bb_error *err);

/* The bug whose URL field is exactly bug_url (GET /rest/bug?url=...);
 * *bug_id is 0 if there is none. */
enum bb_status bz_find_bug_by_url(struct bz_client *c, const char *bug_url, long long *bug_id,
				  struct bb_error *err);

/* What bz_check_visible() found of a bug. */
enum bz_visibility {
	BZ_VISIBLE_PUBLIC,   /* the account sees it; it is in no group */
	BZ_VISIBLE_IN_GROUP, /* the account sees it, in a group: restricted */
	BZ_VISIBLE_NOT,      /* hidden from the account (a group it is not in), or deleted */
};
/* Whether the account still sees the n bugs ids (positive, ascending):
 * GET /rest/bug?include_fields=id,groups&id=a,b,... with up to 400 ids a
 * request (fewer when the URL would pass 6,000 bytes).  Such a search
 * leaves out, without a word, the bugs the account may not see and deleted
 * ones; so each id it lacks is asked alone (GET /rest/bug/<id>), and only
 * Bugzilla's error 101 or 102 makes it BZ_VISIBLE_NOT: a search cut short
 * (the server's max_search_results) cannot make a visible bug look hidden.
 * seen[i] gets the verdict of ids[i]; *asked_alone (may be NULL) how many
 * were asked alone.  Any other failure is returned, seen[] then unusable. */
enum bb_status bz_check_visible(struct bz_client *c, const long long *ids, size_t n,
				enum bz_visibility *seen, unsigned long *asked_alone,
				struct bb_error *err);

/* --- import (migrate/import.h): the whole instance, page by page --- */

/* One page of GET /rest/bug: bugs with id > after_id (and, when since > 0,
 * last_change_time at or after since), ordered by id, at most limit (0:
 * page_size), with flags (bug->flags) and every custom field.  An empty
 * page means there are no more.  Frees as bz_search_changed(). */
enum bb_status bz_search_page(struct bz_client *c, long long after_id, time_t since,
			      unsigned limit, struct bz_bug **bugs, size_t *count,
			      struct bb_error *err);
/* The largest bug id the account can see (0: none), for progress. */
enum bb_status bz_max_bug_id(struct bz_client *c, long long *id, struct bb_error *err);

/* One change of a bug's history; strings are valid during the call only. */
struct bz_history_change {
	long long bug_id;
	time_t when;
	const char *who;
	const char *field;
	const char *removed, *added;
	long long attachment_id;  /* 0 unless the change is to an attachment */
};
typedef enum bb_status (*bz_history_fn)(void *ctx, const struct bz_history_change *ch);

/* The history of the n bugs (GET /rest/bug/<first>/history?ids=..., batched
 * like bz_fetch_comments()): fn gets each change, bug by bug in the
 * server's order, entries oldest first.  A bug deleted or hidden since is
 * left out (logged).  fn's failure stops the fetch and is returned. */
enum bb_status bz_fetch_history(struct bz_client *c, const long long *ids, size_t n,
				bz_history_fn fn, void *ctx, struct bb_error *err);

/* Parsers, shared with tests and fuzz targets: a response body of
 * GET /rest/bug (bugs appended to *bugs), of a comment request (filling
 * matching bugs), of an attachment listing.  BB_ERR_PROTOCOL with a message
 * for anything malformed; a Bugzilla error object gives its folded status.
 *
 * Malformed means the whole body: not JSON, truncated, trailing bytes, not
 * an object, no "bugs" list (or map, for comments and attachments).  Inside
 * it, members that are not objects or lack a positive id are skipped and
 * fields of the wrong type read as empty, so one odd bug does not stop a
 * sync.  Strings become valid UTF-8 (U+FFFD for bad bytes and NULs).
 * bz_parse_bugs() keeps every cf_* field and subsystem_field in
 * bug->fields (lists joined with ", ").  Comments and attachments are
 * matched to bugs[] by bug id (either the map key or, in the "comments" /
 * "attachments" maps by id, their bug_id); others are ignored.  On failure
 * nothing is added: *count is as it was. */
enum bb_status bz_parse_bugs(const char *json, size_t len, const char *subsystem_field,
			     struct bz_bug **bugs, size_t *count, struct bb_error *err);
enum bb_status bz_parse_comments(const char *json, size_t len, struct bz_bug *bugs, size_t n,
				 struct bb_error *err);
enum bb_status bz_parse_attachments(const char *json, size_t len, struct bz_bug *bugs,
				    size_t n, struct bb_error *err);

#endif
