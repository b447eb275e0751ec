/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bugzilla 5.x REST client (bz_client.h), the JSON decoding: json-c turns
 * the REST answers into the bug model of bugzilla/bug.h (bugs, comments,
 * attachments, history) and Bugzilla's error objects into statuses.  The
 * transport and batching are in bz_client.c; what this file gives it and
 * the field metadata reader (bz_fields.c) is declared in bz_json.h.
 *
 * Choices the header leaves open, made here:
 *
 *  - A JSON body is parsed with json-c only after a cheap scan has estimated
 *    what the parse will cost: json-c spends ~800 bytes on an empty object,
 *    so 256 MiB of "{}," would need 70 GiB.  Bodies are capped at
 *    BZ_RESPONSE_CAP (bz_client.c) and their estimated parse cost at
 *    BZ_JSON_COST_MAX.
 *  - Parsers skip array members that are not objects or have no positive
 *    id; a field of the wrong type reads as empty (0, "", no entries).
 *    Strings are repaired to valid UTF-8 (U+FFFD for bad bytes and NULs);
 *    other control characters are kept.
 *  - Comment authors get the real name of the bug's reporter or assignee
 *    when the logins match (creator_detail, assigned_to_detail); the others
 *    come from bz_fetch_users().
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json-c/json.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "bugzilla/bug.h"
#include "bugzilla/bz_client.h"
#include "bugzilla/bz_json.h"
#include "core/buf.h"
#include "core/status.h"

#define BZ_JSON_COST_MAX ((uint64_t)1 << 30)  /* estimated json-c memory for one body */
#define BZ_JSON_DEPTH 64

/* ---- text -------------------------------------------------------------- */

/* A malloc'd copy of len bytes as valid UTF-8: each byte that starts no
 * well-formed sequence, and each NUL, becomes U+FFFD.  NULL: out of memory. */
char *bz_text_repair(const char *text, size_t len)
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

json_object *bz_jget(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

const char *bz_jstr(json_object *o, const char *key)
{
	json_object *v = bz_jget(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A scalar as malloc'd text (numbers and booleans written out); "" for
 * null, objects and arrays.  NULL only when out of memory. */
static char *jtext(json_object *v)
{
	const char *s;

	switch (v ? json_object_get_type(v) : json_type_null) {
	case json_type_string:
		return bz_text_repair(json_object_get_string(v),
				      (size_t)json_object_get_string_len(v));
	case json_type_int:
	case json_type_double:
	case json_type_boolean:
		s = json_object_get_string(v);
		return bz_text_repair(s, strlen(s));
	case json_type_null:
	case json_type_object:
	case json_type_array:
		break;
	}
	return strdup("");
}

/* Replaces *dst with the text of v; BB_ERR_NOMEM leaves *dst alone. */
enum bb_status bz_jset(char **dst, json_object *v)
{
	char *s = jtext(v);

	if (!s)
		return BB_ERR_NOMEM;
	free(*dst);
	*dst = s;
	return BB_OK;
}

/* An integer from a number, a numeric string or a boolean; 0 otherwise. */
long long bz_jnum(json_object *v)
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
long long bz_jid(json_object *v)
{
	long long x = bz_jnum(v);

	return x > 0 ? x : 0;
}

static int jbool(json_object *v)
{
	if (v && json_object_is_type(v, json_type_string))
		return !strcmp(json_object_get_string(v), "true") || bz_jnum(v) != 0;
	return bz_jnum(v) != 0;
}

static int jint(json_object *v)
{
	long long x = bz_jnum(v);

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

/* Parses a whole JSON document that must be an object.  BB_ERR_TEMPORARY
 * for an answer that is empty, cut short or not JSON at all (retried with
 * backoff), BB_ERR_PROTOCOL for JSON of the wrong shape (not an object,
 * trailing bytes), BB_ERR_TOO_LARGE for a document that would need too
 * much memory. */
enum bb_status bz_json_parse_object(const char *data, size_t len, json_object **out,
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
	/* Bugzilla 5.2 with its database down answers 200 with an empty body;
	 * a proxy's error page or a cut answer is no better: all temporary */
	if (end == len) {
		st = bb_error_set(err, BB_ERR_TEMPORARY, "an empty answer where JSON was expected"
				  " (Bugzilla's database may be down)");
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
		/* "42" or "null" also wait for more: only a cut object is cut */
		if (data[end] != '{' && data[end] != '[')
			st = bb_error_set(err, BB_ERR_PROTOCOL, "JSON answer is not an object");
		else
			st = bb_error_set(err, BB_ERR_TEMPORARY, "truncated JSON (%zu bytes)", len);
		goto out;
	}
	if (jerr == json_tokener_error_depth) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "JSON nested too deep (at byte %zu)",
				  json_tokener_get_parse_end(tok));
		goto out;
	}
	if (jerr != json_tokener_success) {
		st = bb_error_set(err, BB_ERR_TEMPORARY, "not JSON (invalid at byte %zu: %s;"
				  " an error page of Bugzilla or a proxy?)",
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
void bz_message_clean(const struct bz_secrets *given, const char *text, size_t len,
		      char *out, size_t outlen)
{
	const char *secrets[2] = { given ? given->key : NULL, given ? given->key_escaped : NULL };
	char *fixed = bz_text_repair(text, len), *p, *hit;
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
	case BZ_CODE_SERVER_FAILED:
		return BB_ERR_TEMPORARY;
	default:
		break;
	}
	if (code < 0)
		return BB_ERR_TEMPORARY;   /* a failure inside the server */
	return BB_ERR_INVALID;
}

/* If root is a Bugzilla error object ({"error":true,"code":N,"message":...}),
 * fills err with its folded status and returns it; BB_OK otherwise. */
enum bb_status bz_fold_error_object(const struct bz_secrets *secrets, long long *code_out,
				    json_object *root, long http, struct bb_error *err)
{
	json_object *e = bz_jget(root, "error"), *src, *msg;
	long long code;
	char text[BZ_MESSAGE_MAX];
	enum bb_status st;

	if (!e || json_object_is_type(e, json_type_null) ||
	    (json_object_is_type(e, json_type_boolean) && !json_object_get_boolean(e)))
		return BB_OK;
	src = json_object_is_type(e, json_type_object) ? e : root;
	code = bz_jnum(bz_jget(src, "code"));
	msg = bz_jget(src, "message");
	if (code == BZ_CODE_SERVER_FAILED)
		snprintf(text, sizeof(text), "the server failed inside (its database may be down;"
			 " its message is not shown, it may hold the database's password)");
	else if (msg && json_object_is_type(msg, json_type_string))
		bz_message_clean(secrets, json_object_get_string(msg),
				 (size_t)json_object_get_string_len(msg), text, sizeof(text));
	else
		snprintf(text, sizeof(text), "(no message)");
	if (code_out)
		*code_out = code;
	st = fold_bugzilla_code(code, http);
	if (http)
		return bb_error_set(err, st, "Bugzilla error %lld (HTTP %ld): %s", code, http, text);
	return bb_error_set(err, st, "Bugzilla error %lld: %s", code, text);
}

/* ---- an attachment's data ------------------------------------------------ */

#define BZ_B64_SLICE 65536   /* base64 bytes decoded at a time */

enum bb_status bz_base64_to_sink(const char *text, size_t len, uint64_t max_size,
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
		&b->qa_contact.login, &b->qa_contact.real_name,
		&b->target_milestone, &b->op_sys, &b->platform,
	};

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (str_default(strings[i]))
			return BB_ERR_NOMEM;
	if (list_default(&b->keywords) || list_default(&b->groups) || list_default(&b->cc) ||
	    list_default(&b->alias))
		return BB_ERR_NOMEM;
	return BB_OK;
}

/* A list of bug ids (depends_on, blocks): an array of numbers (or of
 * digit strings); anything else, and ids that are no bug id, read as
 * none. */
static enum bb_status jids(json_object *v, long long **ids, size_t *n)
{
	size_t len;

	if (!v || !json_object_is_type(v, json_type_array))
		return BB_OK;
	len = json_object_array_length(v);
	for (size_t i = 0; i < len; i++)
		if (bz_bug_ids_add(ids, n, bz_jid(json_object_array_get_idx(v, i))))
			return BB_ERR_NOMEM;
	bz_bug_ids_tidy(*ids, n);
	return BB_OK;
}

/* A user from a login field and its *_detail object. */
static enum bb_status user_from_json(struct bz_user *u, json_object *o, const char *key,
				     const char *detail_key)
{
	json_object *detail = detail_key ? bz_jget(o, detail_key) : NULL;

	if (bz_jset(&u->login, bz_jget(o, key)))
		return BB_ERR_NOMEM;
	if (!u->login[0] && detail) {
		json_object *name = bz_jget(detail, "name");

		if (bz_jset(&u->login, name ? name : bz_jget(detail, "email")))
			return BB_ERR_NOMEM;
	}
	return bz_jset(&u->real_name, bz_jget(detail, "real_name"));
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
	fname = bz_text_repair(name, strlen(name));
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
			char *text = jtext(bz_jget(f, keys[k]));
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
		"priority", "version", "url", "target_milestone", "op_sys", "platform",
	};
	char **strings[] = {
		&b->summary, &b->product, &b->component, &b->status, &b->resolution,
		&b->severity, &b->priority, &b->version, &b->url,
		&b->target_milestone, &b->op_sys, &b->platform,
	};
	enum bb_status st = BB_OK;

	memset(b, 0, sizeof(*b));
	if (!json_object_is_type(o, json_type_object) || !(b->id = bz_jid(bz_jget(o, "id")))) {
		st = BB_ERR_INVALID;
		goto out;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		st = bz_jset(strings[i], bz_jget(o, keys[i]));
		if (st)
			goto out;
	}
	st = user_from_json(&b->creator, o, "creator", "creator_detail");
	if (!st)
		st = user_from_json(&b->assigned_to, o, "assigned_to", "assigned_to_detail");
	if (!st)
		st = user_from_json(&b->qa_contact, o, "qa_contact", "qa_contact_detail");
	if (!st)
		st = jids(bz_jget(o, "depends_on"), &b->depends_on, &b->ndepends_on);
	if (!st)
		st = jids(bz_jget(o, "blocks"), &b->blocks, &b->nblocks);
	if (st)
		goto out;
	b->creation_time = jtime(bz_jget(o, "creation_time"));
	b->last_change_time = jtime(bz_jget(o, "last_change_time"));
	b->dupe_of = bz_jid(bz_jget(o, "dupe_of"));
	if (!(b->keywords = jlist(bz_jget(o, "keywords"))) ||
	    !(b->groups = jlist(bz_jget(o, "groups"))) ||
	    !(b->cc = jlist(bz_jget(o, "cc"))) ||
	    /* a list in 5.x, one string before */
	    !(b->alias = jlist(bz_jget(o, "alias")))) {
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
	if (bz_jget(o, "flags") && (st = bug_flags(b, bz_jget(o, "flags"))))
		goto out;
	st = bug_defaults(b);
out:
	if (st)
		bz_bug_release(b);
	return st;
}

enum bb_status bz_bugs_from_root(json_object *root, const char *subsystem_field,
				 struct bz_bug **bugs, size_t *count, struct bb_error *err)
{
	json_object *array = bz_jget(root, "bugs");
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
	if (!json_object_is_type(o, json_type_object) || !(cm->id = bz_jid(bz_jget(o, "id")))) {
		st = BB_ERR_INVALID;
		goto out;
	}
	cm->bug_id = bug_id;
	cm->count = jint(bz_jget(o, "count"));
	author = bz_jget(o, "creator");
	if (!author)
		author = bz_jget(o, "author");   /* Bugzilla 4 */
	when = bz_jget(o, "time");
	if (!when)
		when = bz_jget(o, "creation_time");
	cm->time = jtime(when);
	cm->is_private = jbool(bz_jget(o, "is_private"));
	cm->attachment_id = bz_jid(bz_jget(o, "attachment_id"));
	if (bz_jset(&cm->author.login, author) ||
	    bz_jset(&cm->author.real_name, bz_jget(bz_jget(o, "creator_detail"), "real_name")) ||
	    bz_jset(&cm->text, bz_jget(o, "text")))
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
	if (!json_object_is_type(o, json_type_object) || !(a->id = bz_jid(bz_jget(o, "id")))) {
		st = BB_ERR_INVALID;
		goto out;
	}
	a->bug_id = bug_id;
	summary = bz_jget(o, "summary");
	if (!summary)
		summary = bz_jget(o, "description");   /* Bugzilla 4 */
	creator = bz_jget(o, "creator");
	if (!creator)
		creator = bz_jget(o, "attacher");
	a->creation_time = jtime(bz_jget(o, "creation_time"));
	size = bz_jnum(bz_jget(o, "size"));
	a->size = size > 0 ? (uint64_t)size : 0;
	a->is_private = jbool(bz_jget(o, "is_private"));
	a->is_obsolete = jbool(bz_jget(o, "is_obsolete"));
	a->is_patch = jbool(bz_jget(o, "is_patch"));
	if (bz_jset(&a->file_name, bz_jget(o, "file_name")) || bz_jset(&a->summary, summary) ||
	    bz_jset(&a->content_type, bz_jget(o, "content_type")) ||
	    bz_jset(&a->creator.login, creator) ||
	    bz_jset(&a->creator.real_name, bz_jget(bz_jget(o, "creator_detail"), "real_name")))
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

const struct item_kind bz_comment_kind = {
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

const struct item_kind bz_attachment_kind = {
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

enum bb_status bz_items_from_root(const struct item_kind *kind, json_object *root,
				  struct bz_bug *bugs, size_t n, struct bb_error *err)
{
	struct pending p = { NULL, 0, 0, kind->size };
	struct bug_index *idx = NULL;
	json_object *map = bz_jget(root, "bugs"), *by_id = bz_jget(root, kind->name);
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
				list = bz_jget(value, kind->name);
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
			bug = bug_find(bugs, idx, n, bz_jid(bz_jget(item, "bug_id")));
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

	st = bz_json_parse_object(json, len, &root, err);
	if (!st)
		st = bz_fold_error_object(NULL, NULL, root, 0, err);
	if (!st)
		st = bz_bugs_from_root(root, subsystem_field, bugs, count, err);
	json_object_put(root);
	return st;
}

enum bb_status bz_parse_comments(const char *json, size_t len, struct bz_bug *bugs, size_t n,
				 struct bb_error *err)
{
	json_object *root = NULL;
	enum bb_status st;

	st = bz_json_parse_object(json, len, &root, err);
	if (!st)
		st = bz_fold_error_object(NULL, NULL, root, 0, err);
	if (!st)
		st = bz_items_from_root(&bz_comment_kind, root, bugs, n, err);
	json_object_put(root);
	return st;
}

enum bb_status bz_parse_attachments(const char *json, size_t len, struct bz_bug *bugs,
				    size_t n, struct bb_error *err)
{
	json_object *root = NULL;
	enum bb_status st;

	st = bz_json_parse_object(json, len, &root, err);
	if (!st)
		st = bz_fold_error_object(NULL, NULL, root, 0, err);
	if (!st)
		st = bz_items_from_root(&bz_attachment_kind, root, bugs, n, err);
	json_object_put(root);
	return st;
}

/* ---- history ----------------------------------------------------------- */

enum bb_status bz_history_from_root(json_object *root, bz_history_fn fn, void *ctx,
				    struct bb_error *err)
{
	json_object *bugs = bz_jget(root, "bugs");
	enum bb_status st = BB_OK;

	if (!bugs || !json_object_is_type(bugs, json_type_array))
		return bb_error_set(err, BB_ERR_PROTOCOL, "answer has no \"bugs\" list");
	for (size_t i = 0; i < json_object_array_length(bugs) && !st; i++) {
		json_object *bug = json_object_array_get_idx(bugs, i);
		json_object *entries = bz_jget(bug, "history");
		long long bug_id = bz_jid(bz_jget(bug, "id"));

		if (!bug_id || !entries || !json_object_is_type(entries, json_type_array))
			continue;
		for (size_t k = 0; k < json_object_array_length(entries) && !st; k++) {
			json_object *e = json_object_array_get_idx(entries, k);
			json_object *changes = bz_jget(e, "changes");
			char *who = jtext(bz_jget(e, "who"));
			struct bz_history_change ch;

			memset(&ch, 0, sizeof(ch));
			ch.bug_id = bug_id;
			ch.when = jtime(bz_jget(e, "when"));
			ch.who = who;
			for (size_t j = 0; who && changes &&
					   json_object_is_type(changes, json_type_array) &&
					   j < json_object_array_length(changes) && !st; j++) {
				json_object *one = json_object_array_get_idx(changes, j);
				char *field = jtext(bz_jget(one, "field_name"));
				char *removed = jtext(bz_jget(one, "removed"));
				char *added = jtext(bz_jget(one, "added"));

				if (!field || !removed || !added) {
					st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				} else if (field[0]) {
					ch.field = field;
					ch.removed = removed;
					ch.added = added;
					ch.attachment_id = bz_jid(bz_jget(one, "attachment_id"));
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
