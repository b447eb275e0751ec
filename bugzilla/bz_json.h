/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The JSON side of the Bugzilla REST client (bz_json.c), for the
 * transport (bz_client.c) and the field metadata reader (bz_fields.c):
 * Bugzilla's error objects folded into a status, a server's message made
 * fit to show, the answers' bugs, comments, attachments and history read
 * into the bug model (bug.h), and JSON getters that cope with a missing
 * key or a wrong type.  Included only from bugzilla/bz_*.c. */
#ifndef BB_BZ_JSON_H
#define BB_BZ_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "bugzilla/bug.h"
#include "bugzilla/bz_client.h"
#include "core/status.h"

#define BZ_MESSAGE_MAX 360                    /* bytes of a server message kept */

/* Bugzilla error codes the client reacts to (Bugzilla::WebService::Constants). */
#define BZ_CODE_BUG_NOT_FOUND 101
#define BZ_CODE_BUG_ACCESS_DENIED 102
#define BZ_CODE_USER_NOT_FOUND 51
/* JSON::RPC's "internal error" (500) moved into the 100000 range that
 * Bugzilla's REST server gives the library's own errors: a method died, as
 * every anonymous call does while the database is down (an authenticated
 * one gets HTTP 200 with an empty body instead).  Its message is DBI's,
 * which may name the database and its password. */
#define BZ_CODE_SERVER_FAILED 100500

/* What no message shown may carry: the client's API key, as given and as
 * it appears in a URL (either NULL: none). */
struct bz_secrets {
	const char *key;
	const char *key_escaped;
};

/* Comments or attachments, as bz_items_from_root() reads and merges them. */
struct item_kind;
extern const struct item_kind bz_comment_kind;
extern const struct item_kind bz_attachment_kind;

/* A malloc'd copy of len bytes as valid UTF-8 (U+FFFD for bad bytes and
 * NULs); NULL when out of memory. */
char *bz_text_repair(const char *text, size_t len);

/* JSON getters that cope with a missing key or a wrong type: the member
 * named key of o (NULL if none); its text when it is a string (NULL
 * otherwise; o keeps it); *dst replaced by the text of v; an integer (0 if
 * none); a positive id (0 if none). */
json_object *bz_jget(json_object *o, const char *key);
const char *bz_jstr(json_object *o, const char *key);
enum bb_status bz_jset(char **dst, json_object *v);
long long bz_jnum(json_object *v);
long long bz_jid(json_object *v);

/* A whole JSON document that must be an object (BB_ERR_PROTOCOL for anything
 * else, BB_ERR_TOO_LARGE when it would need too much memory). */
enum bb_status bz_json_parse_object(const char *data, size_t len, json_object **out,
				    struct bb_error *err);
/* A server's message fit for err->message, the secrets (may be NULL)
 * replaced. */
void bz_message_clean(const struct bz_secrets *secrets, const char *text, size_t len,
		      char *out, size_t outlen);
/* The folded status of a Bugzilla error object in err, BB_OK when root is
 * none; http is the HTTP status (0: unknown); *code (when code is not
 * NULL) gets the object's Bugzilla error code; secrets may be NULL. */
enum bb_status bz_fold_error_object(const struct bz_secrets *secrets, long long *code,
				    json_object *root, long http, struct bb_error *err);

/* Decodes an attachment's base64 text (len bytes) to sink in slices, never
 * more than max_size bytes (BB_ERR_TOO_LARGE); *size: the bytes decoded. */
enum bb_status bz_base64_to_sink(const char *text, size_t len, uint64_t max_size,
				 enum bb_status (*sink)(void *ctx, const void *data, size_t len),
				 void *ctx, uint64_t *size, struct bb_error *err);
/* The "bugs" list of an answer appended to *bugs (nothing added on failure). */
enum bb_status bz_bugs_from_root(json_object *root, const char *subsystem_field,
				 struct bz_bug **bugs, size_t *count, struct bb_error *err);
/* The comments or attachments of an answer merged into the bugs they belong
 * to. */
enum bb_status bz_items_from_root(const struct item_kind *kind, json_object *root,
				  struct bz_bug *bugs, size_t n, struct bb_error *err);
/* Each change of a history answer handed to fn; fn's failure is returned. */
enum bb_status bz_history_from_root(json_object *root, bz_history_fn fn, void *ctx,
				    struct bb_error *err);

#endif
