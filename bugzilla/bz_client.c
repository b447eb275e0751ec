/* Bugzilla 5.x REST client (bz_client.h): libcurl for HTTP, json-c for the
 * bodies, OpenSSL's EVP for base64.
 *
 * Choices the header leaves open, made here:
 *
 *  - Every URL is the base URL, a path, and query parameters escaped with
 *    curl_easy_escape().  The API key, when it travels as a parameter, is
 *    always appended last, so the same URL without it is what logs and error
 *    messages show.  Error messages are scrubbed of the key in any case: a
 *    server could echo it back (a redirect to https keeps the query string).
 *  - Redirects are not followed: a custom key header would go to the other
 *    host.  A 3xx answer is a protocol error naming the new location.
 *  - A JSON body is parsed with json-c only after a cheap scan has estimated
 *    what the parse will cost: json-c spends ~800 bytes on an empty object,
 *    so 256 MiB of "{}," would need 70 GiB.  Bodies are capped at
 *    BZ_RESPONSE_CAP and their estimated parse cost at BZ_JSON_COST_MAX.
 *  - Comments and attachments of many bugs are asked for in one request
 *    (GET /rest/bug/<first>/comment?ids=<second>&ids=...), chunked so a URL
 *    stays under BZ_URL_BUDGET bytes and BZ_IDS_PER_REQUEST ids.  If such a
 *    request fails because one of its bugs vanished or became private
 *    meanwhile (Bugzilla codes 101, 102), the chunk is asked again bug by
 *    bug and the missing bug is left without comments.
 *  - POST requests use a fresh connection, so libcurl never replays one on
 *    its own after a reused connection died: posting a comment twice is a
 *    side effect the caller must decide about (bz_add_comment()).
 *  - Parsers skip array members that are not objects or have no positive
 *    id; a field of the wrong type reads as empty (0, "", no entries).
 *    Strings are repaired to valid UTF-8 (U+FFFD for bad bytes and NULs);
 *    other control characters are kept.
 *  - Comment authors get the real name of the bug's reporter or assignee
 *    when the logins match (creator_detail, assigned_to_detail); the others
 *    come from bz_fetch_users().
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <glib.h>
#include <json-c/json.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "bugzilla/bz_client.h"
#include "core/buf.h"
#include "core/http.h"
#include "core/log.h"

#define BZ_RESPONSE_CAP ((size_t)256 << 20)   /* largest body kept in memory */
#define BZ_JSON_COST_MAX ((uint64_t)1 << 30)  /* estimated json-c memory for one body */
#define BZ_JSON_DEPTH 64
#define BZ_URL_BUDGET 6000                    /* bytes of a batched URL */
#define BZ_IDS_PER_REQUEST 200                /* bugs or users per batched request */
#define BZ_DEFAULT_PAGE_SIZE 100
#define BZ_DEFAULT_TIMEOUT 60
#define BZ_CONNECT_TIMEOUT_MAX 30
#define BZ_RETRY_AFTER_MAX (7 * 86400)        /* longest wait a server may ask for */
#define BZ_MESSAGE_MAX 360                    /* bytes of a server message kept */
#define BZ_B64_SLICE 65536

/* Bugzilla error codes the client reacts to (Bugzilla::WebService::Constants). */
#define BZ_CODE_BUG_NOT_FOUND 101
#define BZ_CODE_BUG_ACCESS_DENIED 102
#define BZ_CODE_USER_NOT_FOUND 51

struct bz_client {
	CURL *curl;
	char *base;                  /* base URL without a trailing slash */
	char *api_key;               /* NULL: anonymous */
	char *api_key_escaped;       /* as it appears in a URL */
	int key_in_header;
	struct curl_slist *json_headers;
	struct curl_slist *post_headers;
	struct curl_slist *cgi_headers;
	long timeout;
	char *subsystem_field;       /* NULL: none */
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
};

/* ---- text -------------------------------------------------------------- */

/* A malloc'd copy of len bytes as valid UTF-8: each byte that starts no
 * well-formed sequence, and each NUL, becomes U+FFFD.  NULL: out of memory. */
static char *text_repair(const char *text, size_t len)
{
	static const char replacement[] = "\xEF\xBF\xBD";
	const unsigned char *s = (const unsigned char *)text;
	struct buf b = BUF_INIT;
	size_t i = 0, run = 0, n;
	char *result = NULL;

	if (buf_grow(&b, len))
		goto out;
	while (i < len) {
		n = s[i] ? bz_utf8_sequence(s + i, len - i) : 0;
		if (n) {
			i += n;
			continue;
		}
		if (buf_add(&b, text + run, i - run) || buf_add(&b, replacement, 3))
			goto out;
		i++;
		run = i;
	}
	if (buf_add(&b, text + run, len - run))
		goto out;
	result = buf_detach(&b, NULL);
out:
	buf_release(&b);
	return result;
}

/* ---- JSON access: every getter copes with a missing key or a wrong type -- */

static json_object *jget(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* A scalar as malloc'd text (numbers and booleans written out); "" for
 * null, objects and arrays.  NULL only when out of memory. */
static char *jtext(json_object *v)
{
	const char *s;

	switch (v ? json_object_get_type(v) : json_type_null) {
	case json_type_string:
		return text_repair(json_object_get_string(v),
				   (size_t)json_object_get_string_len(v));
	case json_type_int:
	case json_type_double:
	case json_type_boolean:
		s = json_object_get_string(v);
		return text_repair(s, strlen(s));
	case json_type_null:
	case json_type_object:
	case json_type_array:
		break;
	}
	return strdup("");
}

/* Replaces *dst with the text of v; BB_ERR_NOMEM leaves *dst alone. */
static enum bb_status jset(char **dst, json_object *v)
{
	char *s = jtext(v);

	if (!s)
		return BB_ERR_NOMEM;
	free(*dst);
	*dst = s;
	return BB_OK;
}

/* An integer from a number, a numeric string or a boolean; 0 otherwise. */
static long long jnum(json_object *v)
{
	const char *s;
	char *end;
	long long x;
	double d;

	switch (v ? json_object_get_type(v) : json_type_null) {
	case json_type_int:
		return (long long)json_object_get_int64(v); /* saturates */
	case json_type_double:
		d = json_object_get_double(v);
		if (!(d > -9.0e18 && d < 9.0e18))   /* also false for NaN */
			return 0;
		return (long long)d;
	case json_type_boolean:
		return json_object_get_boolean(v) ? 1 : 0;
	case json_type_string:
		s = json_object_get_string(v);
		errno = 0;
		x = strtoll(s, &end, 10);
		if (end == s || *end || errno)
			return 0;
		return x;
	case json_type_null:
	case json_type_object:
	case json_type_array:
		break;
	}
	return 0;
}

/* A positive id, or 0. */
static long long jid(json_object *v)
{
	long long x = jnum(v);

	return x > 0 ? x : 0;
}

static int jbool(json_object *v)
{
	if (v && json_object_is_type(v, json_type_string))
		return !strcmp(json_object_get_string(v), "true") || jnum(v) != 0;
	return jnum(v) != 0;
}

static int jint(json_object *v)
{
	long long x = jnum(v);

	if (x > INT_MAX)
		return INT_MAX;
	if (x < INT_MIN)
		return INT_MIN;
	return (int)x;
}

/* Bugzilla's time, or 0 if absent or unreadable. */
static time_t jtime(json_object *v)
{
	time_t t;

	if (!v || !json_object_is_type(v, json_type_string))
		return 0;
	t = bz_parse_time(json_object_get_string(v));
	return t == (time_t)-1 ? 0 : t;
}

/* A NULL-terminated list from an array of scalars (others skipped) or from
 * one non-empty scalar.  NULL only when out of memory. */
static char **jlist(json_object *v)
{
	size_t n = 0, i, count = 0;
	char **list = NULL;
	json_object *e;
	int is_array = v && json_object_is_type(v, json_type_array), failed = 0;

	if (is_array)
		n = json_object_array_length(v);
	else if (v && !json_object_is_type(v, json_type_null) &&
		 !json_object_is_type(v, json_type_object))
		n = 1;
	if (n > SIZE_MAX / sizeof(char *) - 1)
		return NULL;
	list = calloc(n + 1, sizeof(char *));
	if (!list)
		return NULL;
	for (i = 0; i < n && !failed; i++) {
		e = is_array ? json_object_array_get_idx(v, i) : v;
		if (!e || json_object_is_type(e, json_type_null) ||
		    json_object_is_type(e, json_type_object) ||
		    json_object_is_type(e, json_type_array))
			continue;
		list[count] = jtext(e);
		if (!list[count])
			failed = 1;
		else if (!list[count][0] && !is_array)
			free(list[count]);   /* one empty string is no entry */
		else
			count++;
		list[count] = NULL;
	}
	if (failed) {
		for (i = 0; i < count; i++)
			free(list[i]);
		free(list);
		list = NULL;
	}
	return list;
}

/* ---- JSON parsing ------------------------------------------------------ */

/* What json-c will roughly spend on parsing these bytes: it keeps every
 * value as an object of its own, and an empty JSON object costs ~800 bytes. */
static uint64_t json_cost(const char *data, size_t len)
{
	uint64_t cost = len;
	int in_string = 0;

	for (size_t i = 0; i < len; i++) {
		char ch = data[i];

		if (in_string) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_string = 0;
			continue;
		}
		switch (ch) {
		case '"': in_string = 1; cost += 64; break;
		case '{': cost += 800; break;
		case '[': cost += 160; break;
		case ',': case ':': cost += 80; break;
		default: break;
		}
	}
	return cost;
}

/* Parses a whole JSON document that must be an object.  BB_ERR_PROTOCOL for
 * anything else (truncated, invalid, trailing bytes), BB_ERR_TOO_LARGE for
 * a document that would need too much memory. */
static enum bb_status json_parse_object(const char *data, size_t len, json_object **out,
					struct bb_error *err)
{
	struct json_tokener *tok = NULL;
	json_object *obj = NULL;
	enum json_tokener_error jerr;
	enum bb_status st = BB_OK;
	size_t end;

	*out = NULL;
	for (end = 0; end < len && data[end] && strchr(" \t\r\n", data[end]); end++)
		;
	if (end == len) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "empty answer where JSON was expected");
		goto out;
	}
	if (len > INT_MAX || json_cost(data, len) > BZ_JSON_COST_MAX) {
		st = bb_error_set(err, BB_ERR_TOO_LARGE,
				  "JSON answer too large to parse (%zu bytes)", len);
		goto out;
	}
	tok = json_tokener_new_ex(BZ_JSON_DEPTH);
	if (!tok) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	obj = json_tokener_parse_ex(tok, data, (int)len);
	jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_continue) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "truncated JSON (%zu bytes)", len);
		goto out;
	}
	if (jerr != json_tokener_success) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "invalid JSON at byte %zu: %s",
				  json_tokener_get_parse_end(tok), json_tokener_error_desc(jerr));
		goto out;
	}
	for (end = json_tokener_get_parse_end(tok); end < len; end++) {
		if (!strchr(" \t\r\n", data[end])) {
			st = bb_error_set(err, BB_ERR_PROTOCOL,
					  "invalid JSON: data after the end at byte %zu", end);
			goto out;
		}
	}
	if (!obj || !json_object_is_type(obj, json_type_object)) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "JSON answer is not an object");
		goto out;
	}
	*out = obj;
	obj = NULL;
out:
	json_object_put(obj);
	if (tok)
		json_tokener_free(tok);
	return st;
}

/* Copies a server's message into out, fit for err->message: valid UTF-8,
 * control characters as spaces, the API key (raw or escaped) replaced. */
static void message_clean(const struct bz_client *c, const char *text, size_t len,
			  char *out, size_t outlen)
{
	const char *secrets[2] = { c ? c->api_key : NULL, c ? c->api_key_escaped : NULL };
	char *fixed = text_repair(text, len), *p, *hit;
	struct buf b = BUF_INIT;
	size_t n;

	if (!fixed) {
		snprintf(out, outlen, "(message lost: out of memory)");
		return;
	}
	for (p = fixed; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	p = fixed;
	for (;;) {
		const char *found_secret = NULL;

		hit = NULL;
		for (int i = 0; i < 2; i++) {
			char *h;

			if (!secrets[i] || !secrets[i][0])
				continue;
			h = strstr(p, secrets[i]);
			if (h && (!hit || h < hit)) {
				hit = h;
				found_secret = secrets[i];
			}
		}
		if (!hit)
			break;
		if (buf_add(&b, p, (size_t)(hit - p)) || buf_addstr(&b, "<redacted>"))
			break;
		p = hit + strlen(found_secret);
	}
	buf_addstr(&b, p);
	n = b.len;
	if (n > outlen - 1) {
		n = outlen - 1;
		/* do not cut a UTF-8 sequence in two */
		while (n > 0 && ((unsigned char)b.data[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(out, b.data, n);
	out[n] = '\0';
	OPENSSL_cleanse(fixed, strlen(fixed));
	free(fixed);
	buf_release(&b);
}

/* The status a Bugzilla error code stands for, given the HTTP status it came
 * with (0 when unknown, e.g. a body handed to a parser). */
static enum bb_status fold_bugzilla_code(long long code, long http)
{
	enum bb_status st;

	if (http >= 400) {
		st = status_from_http(http);
		if (st != BB_ERR_INVALID)
			return st;   /* 401/403, 404, 429, 5xx say it all */
	}
	switch (code) {
	case BZ_CODE_BUG_NOT_FOUND:
	case BZ_CODE_USER_NOT_FOUND:
	case 32614:  /* no such REST resource */
		return BB_ERR_NOT_FOUND;
	case BZ_CODE_BUG_ACCESS_DENIED:
	case 110:    /* comment is private */
	case 113:    /* may not mark private */
	case 300: case 301: case 302: case 303: case 304: case 305: case 306: case 307:
	case 410:    /* login required */
		return BB_ERR_AUTH;
	default:
		break;
	}
	if (code < 0)
		return BB_ERR_TEMPORARY;   /* a failure inside the server */
	return BB_ERR_INVALID;
}

/* If root is a Bugzilla error object ({"error":true,"code":N,"message":...}),
 * fills err with its folded status and returns it; BB_OK otherwise. */
static enum bb_status fold_error_object(struct bz_client *c, json_object *root, long http,
					struct bb_error *err)
{
	json_object *e = jget(root, "error"), *src, *msg;
	long long code;
	char text[BZ_MESSAGE_MAX];
	enum bb_status st;

	if (!e || json_object_is_type(e, json_type_null) ||
	    (json_object_is_type(e, json_type_boolean) && !json_object_get_boolean(e)))
		return BB_OK;
	src = json_object_is_type(e, json_type_object) ? e : root;
	code = jnum(jget(src, "code"));
	msg = jget(src, "message");
	if (msg && json_object_is_type(msg, json_type_string))
		message_clean(c, json_object_get_string(msg),
			      (size_t)json_object_get_string_len(msg), text, sizeof(text));
	else
		snprintf(text, sizeof(text), "(no message)");
	if (c)
		c->last_bugzilla_code = code;
	st = fold_bugzilla_code(code, http);
	if (http)
		return bb_error_set(err, st, "Bugzilla error %lld (HTTP %ld): %s", code, http, text);
	return bb_error_set(err, st, "Bugzilla error %lld: %s", code, text);
}

/* ---- the bug model ----------------------------------------------------- */

static enum bb_status str_default(char **s)
{
	if (!*s)
		*s = strdup("");
	return *s ? BB_OK : BB_ERR_NOMEM;
}

static enum bb_status list_default(char ***list)
{
	if (!*list)
		*list = calloc(1, sizeof(char *));
	return *list ? BB_OK : BB_ERR_NOMEM;
}

/* Gives every string of the bug a value, as bug.h promises. */
static enum bb_status bug_defaults(struct bz_bug *b)
{
	char **strings[] = {
		&b->summary, &b->product, &b->component, &b->status, &b->resolution,
		&b->severity, &b->priority, &b->version, &b->url,
		&b->creator.login, &b->creator.real_name,
		&b->assigned_to.login, &b->assigned_to.real_name,
	};

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (str_default(strings[i]))
			return BB_ERR_NOMEM;
	if (list_default(&b->keywords) || list_default(&b->groups) || list_default(&b->cc))
		return BB_ERR_NOMEM;
	return BB_OK;
}

/* A user from a login field and its *_detail object. */
static enum bb_status user_from_json(struct bz_user *u, json_object *o, const char *key,
				     const char *detail_key)
{
	json_object *detail = detail_key ? jget(o, detail_key) : NULL;

	if (jset(&u->login, jget(o, key)))
		return BB_ERR_NOMEM;
	if (!u->login[0] && detail) {
		json_object *name = jget(detail, "name");

		if (jset(&u->login, name ? name : jget(detail, "email")))
			return BB_ERR_NOMEM;
	}
	return jset(&u->real_name, jget(detail, "real_name"));
}

/* A custom field's value as text: lists joined with ", ".  NULL when out of
 * memory; "" for null; skipped (*skip) for objects. */
static char *field_text(json_object *v, int *skip)
{
	struct buf b = BUF_INIT;
	char *s;
	size_t n;

	*skip = 0;
	if (!v || !json_object_is_type(v, json_type_array)) {
		if (v && json_object_is_type(v, json_type_object)) {
			*skip = 1;
			return NULL;
		}
		return jtext(v);
	}
	n = json_object_array_length(v);
	for (size_t i = 0; i < n; i++) {
		s = jtext(json_object_array_get_idx(v, i));
		if (!s || (b.len && buf_addstr(&b, ", ")) || buf_addstr(&b, s)) {
			free(s);
			buf_release(&b);
			return NULL;
		}
		free(s);
	}
	return buf_detach(&b, NULL);
}

static enum bb_status bug_add_field(struct bz_bug *b, const char *name, json_object *v)
{
	struct bz_field *fields;
	char *value, *fname = NULL;
	enum bb_status st = BB_OK;
	int skip;

	value = field_text(v, &skip);
	if (skip)
		goto out;
	fname = text_repair(name, strlen(name));
	fields = value && fname ? realloc(b->fields, (b->nfields + 1) * sizeof(*fields)) : NULL;
	if (!fields) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	b->fields = fields;
	fields[b->nfields].name = fname;
	fields[b->nfields].value = value;
	b->nfields++;
	value = fname = NULL;
out:
	free(value);
	free(fname);
	return st;
}

/* b->flags from a bug's "flags" list: each flag's name, status, setter
 * and requestee, as compact JSON text. */
static enum bb_status bug_flags(struct bz_bug *b, json_object *list)
{
	static const char *const keys[] = { "name", "status", "setter", "requestee" };
	json_object *out = json_object_new_array();
	enum bb_status st = BB_OK;
	size_t n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;

	if (!out)
		return BB_ERR_NOMEM;
	for (size_t i = 0; i < n && !st; i++) {
		json_object *f = json_object_array_get_idx(list, i), *o;

		if (!json_object_is_type(f, json_type_object))
			continue;
		if (!(o = json_object_new_object()) || json_object_array_add(out, o)) {
			json_object_put(o);
			st = BB_ERR_NOMEM;
			break;
		}
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]) && !st; k++) {
			char *text = jtext(jget(f, keys[k]));
			json_object *v = text ? json_object_new_string(text) : NULL;

			free(text);
			if (!v || json_object_object_add(o, keys[k], v)) {
				json_object_put(v);
				st = BB_ERR_NOMEM;
			}
		}
	}
	if (!st) {
		free(b->flags);
		b->flags = strdup(json_object_to_json_string_ext(out, JSON_C_TO_STRING_PLAIN |
								      JSON_C_TO_STRING_NOSLASHESCAPE));
		if (!b->flags)
			st = BB_ERR_NOMEM;
	}
	json_object_put(out);
	return st;
}

/* Fills b from one element of a bugs array.  BB_ERR_INVALID (no message)
 * for an element to skip; b is released on any failure. */
static enum bb_status bug_from_json(json_object *o, const char *subsystem_field,
				    struct bz_bug *b)
{
	static const char *const keys[] = {
		"summary", "product", "component", "status", "resolution", "severity",
		"priority", "version", "url",
	};
	char **strings[] = {
		&b->summary, &b->product, &b->component, &b->status, &b->resolution,
		&b->severity, &b->priority, &b->version, &b->url,
	};
	enum bb_status st = BB_OK;

	memset(b, 0, sizeof(*b));
	if (!json_object_is_type(o, json_type_object) || !(b->id = jid(jget(o, "id")))) {
		st = BB_ERR_INVALID;
		goto out;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		st = jset(strings[i], jget(o, keys[i]));
		if (st)
			goto out;
	}
	st = user_from_json(&b->creator, o, "creator", "creator_detail");
	if (!st)
		st = user_from_json(&b->assigned_to, o, "assigned_to", "assigned_to_detail");
	if (st)
		goto out;
	b->creation_time = jtime(jget(o, "creation_time"));
	b->last_change_time = jtime(jget(o, "last_change_time"));
	b->dupe_of = jid(jget(o, "dupe_of"));
	if (!(b->keywords = jlist(jget(o, "keywords"))) ||
	    !(b->groups = jlist(jget(o, "groups"))) ||
	    !(b->cc = jlist(jget(o, "cc")))) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	{
		json_object_object_foreach(o, key, value) {
			if (strncmp(key, "cf_", 3) &&
			    (!subsystem_field || strcmp(key, subsystem_field)))
				continue;
			st = bug_add_field(b, key, value);
			if (st)
				goto out;
		}
	}
	if (jget(o, "flags") && (st = bug_flags(b, jget(o, "flags"))))
		goto out;
	st = bug_defaults(b);
out:
	if (st)
		bz_bug_release(b);
	return st;
}

static enum bb_status bugs_from_root(json_object *root, const char *subsystem_field,
				     struct bz_bug **bugs, size_t *count, struct bb_error *err)
{
	json_object *array = jget(root, "bugs");
	size_t old = *count, n, i;
	struct bz_bug *grown, bug;
	enum bb_status st = BB_OK;

	if (!array || !json_object_is_type(array, json_type_array)) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "answer has no \"bugs\" list");
		goto out;
	}
	n = json_object_array_length(array);
	if (!n)
		goto out;
	if (n > SIZE_MAX / sizeof(struct bz_bug) - old) {
		st = bb_error_set(err, BB_ERR_TOO_LARGE, "too many bugs in one answer");
		goto out;
	}
	grown = realloc(*bugs, (old + n) * sizeof(struct bz_bug));
	if (!grown) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	*bugs = grown;
	for (i = 0; i < n; i++) {
		st = bug_from_json(json_object_array_get_idx(array, i), subsystem_field, &bug);
		if (st == BB_ERR_INVALID) {
			st = BB_OK;
			continue;
		}
		if (st) {
			st = bb_error_set(err, st, "out of memory");
			goto out;
		}
		(*bugs)[(*count)++] = bug;
	}
out:
	if (st) {
		while (*count > old)
			bz_bug_release(&(*bugs)[--(*count)]);
	}
	return st;
}

/* Bugs looked up by id: positions sorted by id. */
struct bug_index {
	long long id;
	size_t pos;
};

static int bug_index_cmp(const void *a, const void *b)
{
	const struct bug_index *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static struct bug_index *bug_index_new(const struct bz_bug *bugs, size_t n)
{
	struct bug_index *idx = calloc(n ? n : 1, sizeof(*idx));

	if (!idx)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		idx[i].id = bugs[i].id;
		idx[i].pos = i;
	}
	if (n > 1)
		qsort(idx, n, sizeof(*idx), bug_index_cmp);
	return idx;
}

static struct bz_bug *bug_find(struct bz_bug *bugs, const struct bug_index *idx, size_t n,
			       long long id)
{
	struct bug_index key = { id, 0 };
	const struct bug_index *hit;

	if (id <= 0)
		return NULL;
	hit = bsearch(&key, idx, n, sizeof(*idx), bug_index_cmp);
	return hit ? &bugs[hit->pos] : NULL;
}

/* A bug id from an object key ("42"), 0 if it is none. */
static long long key_id(const char *key)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(key, &end, 10);
	if (end == key || *end || errno || x <= 0)
		return 0;
	return x;
}

/* ---- comments ---------------------------------------------------------- */

static void comment_release(struct bz_comment *cm)
{
	free(cm->author.login);
	free(cm->author.real_name);
	free(cm->text);
	memset(cm, 0, sizeof(*cm));
}

/* Fills cm from a comment object; BB_ERR_INVALID for one to skip. */
static enum bb_status comment_from_json(json_object *o, long long bug_id,
					struct bz_comment *cm)
{
	json_object *author, *when;
	enum bb_status st = BB_OK;

	memset(cm, 0, sizeof(*cm));
	if (!json_object_is_type(o, json_type_object) || !(cm->id = jid(jget(o, "id")))) {
		st = BB_ERR_INVALID;
		goto out;
	}
	cm->bug_id = bug_id;
	cm->count = jint(jget(o, "count"));
	author = jget(o, "creator");
	if (!author)
		author = jget(o, "author");   /* Bugzilla 4 */
	when = jget(o, "time");
	if (!when)
		when = jget(o, "creation_time");
	cm->time = jtime(when);
	cm->is_private = jbool(jget(o, "is_private"));
	cm->attachment_id = jid(jget(o, "attachment_id"));
	if (jset(&cm->author.login, author) ||
	    jset(&cm->author.real_name, jget(jget(o, "creator_detail"), "real_name")) ||
	    jset(&cm->text, jget(o, "text")))
		st = BB_ERR_NOMEM;
out:
	if (st)
		comment_release(cm);
	return st;
}

static int comment_id_cmp(const void *a, const void *b)
{
	const struct bz_comment *x = a, *y = b;

	if (x->bug_id != y->bug_id)
		return x->bug_id < y->bug_id ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int comment_order_cmp(const void *a, const void *b)
{
	const struct bz_comment *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}


/* Real names the bug itself knows for its reporter and assignee. */
static enum bb_status comment_names(const struct bz_bug *bug, struct bz_comment *cm)
{
	const struct bz_user *known[] = { &bug->creator, &bug->assigned_to };

	if (cm->author.real_name && cm->author.real_name[0])
		return BB_OK;
	for (size_t i = 0; i < 2; i++) {
		if (known[i]->login && known[i]->real_name && known[i]->real_name[0] &&
		    !strcasecmp(known[i]->login, cm->author.login)) {
			char *s = strdup(known[i]->real_name);

			if (!s)
				return BB_ERR_NOMEM;
			free(cm->author.real_name);
			cm->author.real_name = s;
			break;
		}
	}
	return BB_OK;
}

/* Parses one comment of bug, with a real name for its author if the bug
 * knows it; nothing is left to release on error. */
static enum bb_status comment_parse(json_object *o, const struct bz_bug *bug, void *item)
{
	struct bz_comment *cm = item;
	enum bb_status st = comment_from_json(o, bug->id, cm);

	if (!st) {
		st = comment_names(bug, cm);
		if (st)
			comment_release(cm);
	}
	return st;
}

static void comment_release_item(void *item)
{
	comment_release(item);
}

static void *bug_comments(const struct bz_bug *bug, size_t *n)
{
	*n = bug->ncomments;
	return bug->comments;
}

static void bug_set_comments(struct bz_bug *bug, void *items, size_t n)
{
	bug->comments = items;
	bug->ncomments = n;
}

/* ---- attachments ------------------------------------------------------- */

static void attachment_release(struct bz_attachment *a)
{
	free(a->file_name);
	free(a->summary);
	free(a->content_type);
	free(a->creator.login);
	free(a->creator.real_name);
	memset(a, 0, sizeof(*a));
}

static enum bb_status attachment_from_json(json_object *o, long long bug_id,
					   struct bz_attachment *a)
{
	json_object *summary, *creator;
	long long size;
	enum bb_status st = BB_OK;

	memset(a, 0, sizeof(*a));
	if (!json_object_is_type(o, json_type_object) || !(a->id = jid(jget(o, "id")))) {
		st = BB_ERR_INVALID;
		goto out;
	}
	a->bug_id = bug_id;
	summary = jget(o, "summary");
	if (!summary)
		summary = jget(o, "description");   /* Bugzilla 4 */
	creator = jget(o, "creator");
	if (!creator)
		creator = jget(o, "attacher");
	a->creation_time = jtime(jget(o, "creation_time"));
	size = jnum(jget(o, "size"));
	a->size = size > 0 ? (uint64_t)size : 0;
	a->is_private = jbool(jget(o, "is_private"));
	a->is_obsolete = jbool(jget(o, "is_obsolete"));
	a->is_patch = jbool(jget(o, "is_patch"));
	if (jset(&a->file_name, jget(o, "file_name")) || jset(&a->summary, summary) ||
	    jset(&a->content_type, jget(o, "content_type")) ||
	    jset(&a->creator.login, creator) ||
	    jset(&a->creator.real_name, jget(jget(o, "creator_detail"), "real_name")))
		st = BB_ERR_NOMEM;
out:
	if (st)
		attachment_release(a);
	return st;
}

static int attachment_id_cmp(const void *a, const void *b)
{
	const struct bz_attachment *x = a, *y = b;

	if (x->bug_id != y->bug_id)
		return x->bug_id < y->bug_id ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static enum bb_status attachment_parse(json_object *o, const struct bz_bug *bug, void *item)
{
	return attachment_from_json(o, bug->id, item);
}

static void attachment_release_item(void *item)
{
	attachment_release(item);
}

static void *bug_attachments(const struct bz_bug *bug, size_t *n)
{
	*n = bug->nattachments;
	return bug->attachments;
}

static void bug_set_attachments(struct bz_bug *bug, void *items, size_t n)
{
	bug->attachments = items;
	bug->nattachments = n;
}

/* ---- comments and attachments into their bugs -------------------------- */

/* Comments and attachments arrive alike (in a "bugs" map of lists, or in a
 * map by their own id) and are merged alike into the bugs they belong to.
 * What differs between the two is said here. */
struct item_kind {
	const char *name;	/* the answer's key for them: "comments" */
	int in_bug_object;	/* "bugs" may map a bug to { "comments": [...] } */
	size_t size;		/* of one item */
	size_t id_offset;	/* of its long long id, unique on a server */
	size_t bug_id_offset;	/* of its long long bug_id */
	/* fills item from o, an item of bug; BB_ERR_INVALID for one to skip;
	 * nothing is left to release on error */
	enum bb_status (*parse)(json_object *o, const struct bz_bug *bug, void *item);
	void (*release)(void *item);
	int (*id_cmp)(const void *a, const void *b);	/* by bug_id, then id */
	int (*order_cmp)(const void *a, const void *b);	/* in a bug; NULL: by id */
	void *(*bug_items)(const struct bz_bug *bug, size_t *n);
	void (*bug_set_items)(struct bz_bug *bug, void *items, size_t n);
};

static const struct item_kind comment_kind = {
	.name = "comments",
	.in_bug_object = 1,
	.size = sizeof(struct bz_comment),
	.id_offset = offsetof(struct bz_comment, id),
	.bug_id_offset = offsetof(struct bz_comment, bug_id),
	.parse = comment_parse,
	.release = comment_release_item,
	.id_cmp = comment_id_cmp,
	.order_cmp = comment_order_cmp,	/* bz_bug.comments is ordered by count */
	.bug_items = bug_comments,
	.bug_set_items = bug_set_comments,
};

static const struct item_kind attachment_kind = {
	.name = "attachments",
	.in_bug_object = 0,
	.size = sizeof(struct bz_attachment),
	.id_offset = offsetof(struct bz_attachment, id),
	.bug_id_offset = offsetof(struct bz_attachment, bug_id),
	.parse = attachment_parse,
	.release = attachment_release_item,
	.id_cmp = attachment_id_cmp,
	.order_cmp = NULL,
	.bug_items = bug_attachments,
	.bug_set_items = bug_set_attachments,
};

/* Room for one item of either kind. */
union any_item {
	struct bz_comment comment;
	struct bz_attachment attachment;
};

static void *item_at(const struct item_kind *kind, void *items, size_t k)
{
	return (char *)items + k * kind->size;
}

/* Read through memcpy: a cast from char * would trip -Wcast-align. */
static long long item_field(const void *item, size_t offset)
{
	long long value;

	memcpy(&value, (const char *)item + offset, sizeof(value));
	return value;
}

static long long item_id(const struct item_kind *kind, const void *item)
{
	return item_field(item, kind->id_offset);
}

static long long item_bug_id(const struct item_kind *kind, const void *item)
{
	return item_field(item, kind->bug_id_offset);
}

/* Growable array of parsed comments or attachments. */
struct pending {
	void *items;
	size_t n, alloc, size;
};

static enum bb_status pending_push(struct pending *p, const void *item)
{
	if (p->n == p->alloc) {
		size_t alloc = p->alloc ? p->alloc * 2 : 16;
		void *items;

		if (alloc > SIZE_MAX / p->size)
			return BB_ERR_NOMEM;
		items = realloc(p->items, alloc * p->size);
		if (!items)
			return BB_ERR_NOMEM;
		p->items = items;
		p->alloc = alloc;
	}
	memcpy((char *)p->items + p->n * p->size, item, p->size);
	p->n++;
	return BB_OK;
}

/* Merges fresh items (sorted by id, unique) into bug: an item already
 * there is replaced by the fresh copy.  Takes the fresh strings. */
static enum bb_status items_merge(const struct item_kind *kind, struct bz_bug *bug, void *fresh,
				  size_t n)
{
	size_t i = 0, j = 0, k = 0, old;
	void *items = kind->bug_items(bug, &old), *merged;

	merged = malloc((old + n) * kind->size);
	if (!merged)
		return BB_ERR_NOMEM;
	/* ids are unique on a server, so bug_id plays no part here */
	for (size_t x = 0; x < old; x++)
		memcpy((char *)item_at(kind, items, x) + kind->bug_id_offset, &bug->id,
		       sizeof(bug->id));
	if (old > 1)
		qsort(items, old, kind->size, kind->id_cmp);
	while (i < old || j < n) {
		long long old_id = i < old ? item_id(kind, item_at(kind, items, i)) : 0;
		long long fresh_id = j < n ? item_id(kind, item_at(kind, fresh, j)) : 0;
		const void *next;

		if (j >= n || (i < old && old_id < fresh_id)) {
			next = item_at(kind, items, i++);
		} else if (i >= old || fresh_id < old_id) {
			next = item_at(kind, fresh, j++);
		} else {
			kind->release(item_at(kind, items, i++));
			next = item_at(kind, fresh, j++);
		}
		memcpy(item_at(kind, merged, k++), next, kind->size);
	}
	if (kind->order_cmp)
		qsort(merged, k, kind->size, kind->order_cmp);
	free(items);
	kind->bug_set_items(bug, merged, k);
	return BB_OK;
}

/* Keeps the item o of bug in p unless it is one to skip. */
static enum bb_status items_collect_one(const struct item_kind *kind, json_object *o,
					const struct bz_bug *bug, struct pending *p)
{
	union any_item item;
	enum bb_status st = kind->parse(o, bug, &item);

	if (st == BB_ERR_INVALID)
		return BB_OK;
	if (!st) {
		st = pending_push(p, &item);
		if (st)
			kind->release(&item);
	}
	return st;
}

static enum bb_status items_from_root(const struct item_kind *kind, json_object *root,
				      struct bz_bug *bugs, size_t n, struct bb_error *err)
{
	struct pending p = { NULL, 0, 0, kind->size };
	struct bug_index *idx = NULL;
	json_object *map = jget(root, "bugs"), *by_id = jget(root, kind->name);
	struct bz_bug *bug;
	enum bb_status st = BB_OK;
	size_t i, j, len;

	if ((!map || !json_object_is_type(map, json_type_object)) &&
	    (!by_id || !json_object_is_type(by_id, json_type_object))) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "answer has no \"bugs\" map of %s",
				  kind->name);
		goto out;
	}
	idx = bug_index_new(bugs, n);
	if (!idx) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	if (map && json_object_is_type(map, json_type_object)) {
		json_object_object_foreach(map, key, value) {
			json_object *list = value;

			bug = bug_find(bugs, idx, n, key_id(key));
			if (kind->in_bug_object && !json_object_is_type(list, json_type_array))
				list = jget(value, kind->name);
			if (!bug || !list || !json_object_is_type(list, json_type_array))
				continue;
			len = json_object_array_length(list);
			for (i = 0; i < len; i++)
				if (items_collect_one(kind, json_object_array_get_idx(list, i), bug,
						      &p)) {
					st = BB_ERR_NOMEM;
					goto out;
				}
		}
	}
	if (by_id && json_object_is_type(by_id, json_type_object)) {
		json_object_object_foreach(by_id, item_key, item) {
			(void)item_key;
			bug = bug_find(bugs, idx, n, jid(jget(item, "bug_id")));
			if (bug && items_collect_one(kind, item, bug, &p)) {
				st = BB_ERR_NOMEM;
				goto out;
			}
		}
	}
	/* by bug, then by id; an item twice in one answer is kept once */
	if (p.n > 1)
		qsort(p.items, p.n, kind->size, kind->id_cmp);
	for (i = 0; i < p.n; i = j) {
		long long bug_id = item_bug_id(kind, item_at(kind, p.items, i));
		size_t unique = 1;

		for (j = i + 1; j < p.n && item_bug_id(kind, item_at(kind, p.items, j)) == bug_id;
		     j++) {
			void *item = item_at(kind, p.items, j);
			void *last = item_at(kind, p.items, i + unique - 1);

			if (item_id(kind, item) == item_id(kind, last)) {
				kind->release(item);
				continue;
			}
			/* memmove: the item may be moved onto itself */
			memmove(item_at(kind, p.items, i + unique++), item, kind->size);
		}
		bug = bug_find(bugs, idx, n, bug_id);
		if (!bug || items_merge(kind, bug, item_at(kind, p.items, i), unique)) {
			/* everything from i on is still ours to free */
			for (size_t k = i; k < i + unique; k++)
				kind->release(item_at(kind, p.items, k));
			for (size_t k = j; k < p.n; k++)
				kind->release(item_at(kind, p.items, k));
			p.n = 0;
			st = BB_ERR_NOMEM;
			goto out;
		}
	}
	p.n = 0;
out:
	if (st == BB_ERR_NOMEM)
		bb_error_set(err, st, "out of memory");
	for (i = 0; i < p.n; i++)
		kind->release(item_at(kind, p.items, i));
	free(p.items);
	free(idx);
	return st;
}

/* ---- public parsers ---------------------------------------------------- */

enum bb_status bz_parse_bugs(const char *json, size_t len, const char *subsystem_field,
			     struct bz_bug **bugs, size_t *count, struct bb_error *err)
{
	json_object *root = NULL;
	enum bb_status st;

	st = json_parse_object(json, len, &root, err);
	if (!st)
		st = fold_error_object(NULL, root, 0, err);
	if (!st)
		st = bugs_from_root(root, subsystem_field, bugs, count, err);
	json_object_put(root);
	return st;
}

enum bb_status bz_parse_comments(const char *json, size_t len, struct bz_bug *bugs, size_t n,
				 struct bb_error *err)
{
	json_object *root = NULL;
	enum bb_status st;

	st = json_parse_object(json, len, &root, err);
	if (!st)
		st = fold_error_object(NULL, root, 0, err);
	if (!st)
		st = items_from_root(&comment_kind, root, bugs, n, err);
	json_object_put(root);
	return st;
}

enum bb_status bz_parse_attachments(const char *json, size_t len, struct bz_bug *bugs,
				    size_t n, struct bb_error *err)
{
	json_object *root = NULL;
	enum bb_status st;

	st = json_parse_object(json, len, &root, err);
	if (!st)
		st = fold_error_object(NULL, root, 0, err);
	if (!st)
		st = items_from_root(&attachment_kind, root, bugs, n, err);
	json_object_put(root);
	return st;
}

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
};

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

	c->last_bugzilla_code = 0;
	if (buf_add(&full, url->data, url->len)) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (c->api_key && (place == KEY_CGI || !c->key_in_header) &&
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
	message_clean(c, c->curl_error[0] ? c->curl_error : curl_easy_strerror(rc),
		      strlen(c->curl_error[0] ? c->curl_error : curl_easy_strerror(rc)),
		      message, sizeof(message));
	st = bb_error_set(err, http_fold_curl(rc), "%s: %s", url->data, message);
out:
	if (full.alloc)
		OPENSSL_cleanse(full.data, full.len);
	buf_release(&full);
	return st;
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
	parsed = json_parse_object(t->body.data, t->body.len, &root, &parse_err);
	if (t->http_code < 200 || t->http_code >= 300) {
		if (!parsed)
			st = fold_error_object(c, root, t->http_code, err);
		if (!st) {
			st = status_from_http(t->http_code);
			if (t->http_code >= 300 && t->http_code < 400 &&
			    curl_easy_getinfo(c->curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK &&
			    location) {
				message_clean(c, location, strlen(location), message, sizeof(message));
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
	st = fold_error_object(c, root, t->http_code, err);
	if (st)
		goto out;
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
	free(c);
}

unsigned long bz_client_requests(const struct bz_client *c)
{
	return c ? c->requests : 0;
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

static int is_loopback_url(const char *url)
{
	const char *host = strstr(url, "://");

	if (!host)
		return 0;
	host += 3;
	return !strncmp(host, "127.", 4) || !strncmp(host, "localhost", 9) ||
	       !strncmp(host, "[::1]", 5);
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
	c->key_in_header = opt->key_in_header;
	c->timeout = opt->timeout > 0 ? opt->timeout : BZ_DEFAULT_TIMEOUT;
	c->page_size = opt->page_size ? opt->page_size : BZ_DEFAULT_PAGE_SIZE;
	if (opt->subsystem_field && opt->subsystem_field[0] &&
	    !(c->subsystem_field = strdup(opt->subsystem_field))) {
		st = BB_ERR_NOMEM;
		goto out;
	}
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
		v = jget(root, keys[i]);
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

enum bb_status bz_search_changed(struct bz_client *c, time_t since, const struct bz_filter *f,
				 struct bz_bug **bugs, size_t *count, struct bb_error *err)
{
	static const char fields[] =
		"id,summary,product,component,status,resolution,severity,priority,version,url,"
		"creator,creator_detail,assigned_to,assigned_to_detail,creation_time,"
		"last_change_time,keywords,groups,cc,dupe_of,cf_regression";
	struct buf url = BUF_INIT, include = BUF_INIT;
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
	     buf_addf(&include, ",%s", c->subsystem_field))) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	for (;;) {
		if (url_start(c, &url, "/rest/bug") ||
		    url_param(c, &url, "last_change_time", when) ||
		    (f && add_list_params(c, &url, "product", f->products)) ||
		    (f && add_list_params(c, &url, "component", f->components)) ||
		    (f && add_list_params(c, &url, "bug_status", f->statuses)) ||
		    (f && f->keyword && f->keyword[0] &&
		     url_param(c, &url, "keywords", f->keyword)) ||
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
		st = bugs_from_root(root, c->subsystem_field, &found, &nfound, err);
		if (st)
			goto out;
		got = json_object_array_length(jget(root, "bugs"));
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
	list = jget(root, "bugs");
	/* the search matches substrings: only the same URL counts */
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		json_object *b = json_object_array_get_idx(list, i);
		const char *u = json_object_get_string(jget(b, "url"));

		if (u && !strcmp(u, bug_url) && jid(jget(b, "id")) > 0) {
			*bug_id = jid(jget(b, "id"));
			break;
		}
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
		st = items_from_root(&comment_kind, root, bugs, n, err);
	else
		st = items_from_root(&attachment_kind, root, bugs, n, err);
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

static enum bb_status fetch_batched(struct bz_client *c, enum batch_kind kind,
				    struct bz_bug *bugs, size_t n, time_t new_since,
				    struct bb_error *err)
{
	enum bb_status st = BB_OK;
	size_t start, end;

	for (start = 0; start < n && !st; start = end) {
		end = batch_end(c, bugs, start, n);
		st = fetch_batch(c, kind, bugs + start, end - start, new_since, err);
		if (!st || !bug_vanished(c, st))
			continue;
		/* ask bug by bug; one that is gone keeps what it had */
		st = BB_OK;
		for (size_t i = start; i < end && !st; i++) {
			st = fetch_batch(c, kind, bugs + i, 1, new_since, err);
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
	return fetch_batched(c, BATCH_COMMENTS, bugs, n, new_since, err);
}

enum bb_status bz_fetch_attachments(struct bz_client *c, struct bz_bug *bugs, size_t n,
				    struct bb_error *err)
{
	return fetch_batched(c, BATCH_ATTACHMENTS, bugs, n, 0, err);
}

/* Decodes base64 text to the sink in slices, never more than max_size. */
static enum bb_status base64_to_sink(const char *text, size_t len, uint64_t max_size,
				     enum bb_status (*sink)(void *ctx, const void *data, size_t len),
				     void *ctx, uint64_t *size, struct bb_error *err)
{
	EVP_ENCODE_CTX *dec = EVP_ENCODE_CTX_new();
	unsigned char *out = NULL;
	enum bb_status st = BB_OK;
	int outl, final_len;

	*size = 0;
	out = malloc(BZ_B64_SLICE / 4 * 3 + 96);
	if (!dec || !out) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	EVP_DecodeInit(dec);
	for (size_t pos = 0; pos < len; pos += BZ_B64_SLICE) {
		size_t slice = len - pos < BZ_B64_SLICE ? len - pos : BZ_B64_SLICE;

		if (EVP_DecodeUpdate(dec, out, &outl, (const unsigned char *)text + pos,
				     (int)slice) < 0) {
			st = bb_error_set(err, BB_ERR_PROTOCOL, "attachment data is not valid base64");
			goto out;
		}
		if ((uint64_t)outl > max_size - *size) {
			st = bb_error_set(err, BB_ERR_TOO_LARGE, "attachment is larger than %llu bytes",
					  (unsigned long long)max_size);
			goto out;
		}
		if (outl && (st = sink(ctx, out, (size_t)outl))) {
			st = bb_error_set(err, st, "storing the attachment failed (%s)", status_str(st));
			goto out;
		}
		*size += (uint64_t)outl;
	}
	if (EVP_DecodeFinal(dec, out, &final_len) < 0) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "attachment data is not valid base64");
		goto out;
	}
	if ((uint64_t)final_len > max_size - *size) {
		st = bb_error_set(err, BB_ERR_TOO_LARGE, "attachment is larger than %llu bytes",
				  (unsigned long long)max_size);
		goto out;
	}
	if (final_len && (st = sink(ctx, out, (size_t)final_len))) {
		st = bb_error_set(err, st, "storing the attachment failed (%s)", status_str(st));
		goto out;
	}
	*size += (uint64_t)final_len;
out:
	free(out);
	EVP_ENCODE_CTX_free(dec);
	return st;
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
	att = jget(jget(root, "attachments"), key);
	if (!att) {
		st = bb_error_set(err, BB_ERR_NOT_FOUND, "attachment %lld does not exist or is not visible",
				  id);
		goto out;
	}
	data = jget(att, "data");
	if (!data || !json_object_is_type(data, json_type_string)) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "attachment %lld came without data", id);
		goto out;
	}
	st = base64_to_sink(json_object_get_string(data), (size_t)json_object_get_string_len(data),
			    max_size, sink, ctx, size, err);
	if (st)
		goto out;
	declared = jget(att, "size");
	if (declared && jnum(declared) >= 0 && (uint64_t)jnum(declared) != *size)
		st = bb_error_set(err, BB_ERR_CORRUPT, "attachment %lld: %llu bytes, server says %lld",
				  id, (unsigned long long)*size, jnum(declared));
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
	list = jget(root, "users");
	count = list && json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
	for (size_t k = 0; k < count; k++) {
		json_object *name, *real;

		u = json_object_array_get_idx(list, k);
		name = jget(u, "name");
		real = jget(u, "real_name");
		if (!name || !json_object_is_type(name, json_type_string) || !real ||
		    !json_object_is_type(real, json_type_string))
			continue;
		for (size_t i = 0; i < n; i++) {
			if (!users[i].login || strcasecmp(users[i].login, json_object_get_string(name)))
				continue;
			if (jset(&users[i].real_name, real)) {
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
	user = json_object_array_get_idx(jget(root, "users"), 0);
	groups = jget(user, "groups");
	if (!groups || !json_object_is_type(groups, json_type_array)) {
		st = bb_error_set(err, BB_ERR_AUTH, "Bugzilla does not show the groups of %s to"
				  " bugbridge's account (it needs editusers)", login);
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		const char *name = json_object_get_string(jget(json_object_array_get_idx(groups, i),
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
	fixed = text_repair(text, strlen(text));
	body = json_object_new_object();
	if (!fixed || !body ||
	    json_object_object_add(body, "comment", json_object_new_string(fixed)) ||
	    json_object_object_add(body, "is_private", json_object_new_boolean(is_private != 0))) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = send_json(c, "POST", body, &root, err, "/rest/bug/%lld/comment", bug_id)))
		goto out;
	*comment_id = jid(jget(root, "id"));
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
	name = text_repair(file_name, strlen(file_name));
	desc = text_repair(summary && *summary ? summary : file_name,
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
	ids = jget(root, "ids");
	if (ids && json_object_is_type(ids, json_type_array) && json_object_array_length(ids) > 0)
		*attachment_id = jid(json_object_array_get_idx(ids, 0));
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
		char *fixed = text_repair(ch[i].value, strlen(ch[i].value));

		if (!fixed || json_object_object_add(body, ch[i].field,
						     json_object_new_string(fixed))) {
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
	char *fixed = description ? text_repair(description, strlen(description)) : NULL;
	enum bb_status st = BB_OK;

	*bug_id = 0;
	if (!body || (description && !fixed)) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char *v = text_repair(fields[i].value, strlen(fields[i].value));

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
	*bug_id = jid(jget(root, "id"));
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
		"last_change_time,keywords,groups,cc,dupe_of,flags,_custom";
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
	st = bugs_from_root(root, NULL, bugs, count, err);
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
	list = jget(root, "bugs");
	/* a server that ignores limit or order still gives the largest id */
	for (size_t i = 0; list && json_object_is_type(list, json_type_array) &&
			   i < json_object_array_length(list); i++) {
		long long x = jid(jget(json_object_array_get_idx(list, i), "id"));

		if (x > *id)
			*id = x;
	}
out:
	json_object_put(root);
	buf_release(&url);
	return st;
}

static enum bb_status history_from_root(json_object *root, bz_history_fn fn, void *ctx,
					struct bb_error *err)
{
	json_object *bugs = jget(root, "bugs");
	enum bb_status st = BB_OK;

	if (!bugs || !json_object_is_type(bugs, json_type_array))
		return bb_error_set(err, BB_ERR_PROTOCOL, "answer has no \"bugs\" list");
	for (size_t i = 0; i < json_object_array_length(bugs) && !st; i++) {
		json_object *bug = json_object_array_get_idx(bugs, i);
		json_object *entries = jget(bug, "history");
		long long bug_id = jid(jget(bug, "id"));

		if (!bug_id || !entries || !json_object_is_type(entries, json_type_array))
			continue;
		for (size_t k = 0; k < json_object_array_length(entries) && !st; k++) {
			json_object *e = json_object_array_get_idx(entries, k);
			json_object *changes = jget(e, "changes");
			char *who = jtext(jget(e, "who"));
			struct bz_history_change ch;

			memset(&ch, 0, sizeof(ch));
			ch.bug_id = bug_id;
			ch.when = jtime(jget(e, "when"));
			ch.who = who;
			for (size_t j = 0; who && changes &&
					   json_object_is_type(changes, json_type_array) &&
					   j < json_object_array_length(changes) && !st; j++) {
				json_object *one = json_object_array_get_idx(changes, j);
				char *field = jtext(jget(one, "field_name"));
				char *removed = jtext(jget(one, "removed"));
				char *added = jtext(jget(one, "added"));

				if (!field || !removed || !added) {
					st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				} else if (field[0]) {
					ch.field = field;
					ch.removed = removed;
					ch.added = added;
					ch.attachment_id = jid(jget(one, "attachment_id"));
					st = fn(ctx, &ch);
				}
				free(field);
				free(removed);
				free(added);
			}
			if (!who)
				st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			free(who);
		}
	}
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
		st = history_from_root(root, fn, ctx, err);
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
