/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The texts a web request brings, read and made safe: paths, file names,
 * Range and ETag headers, the Bearer token, declared content types, query
 * values and form fields.  Every function here takes text from outside
 * (NUL-terminated; a header may hold any byte but NUL) and never trusts
 * it; none of them touches a connection, so tests/fuzz/fuzz-http.c drives
 * them all.  web/blob_http.c and web/frontdoor.c use them. */
#ifndef BB_HTTP_TEXT_H
#define BB_HTTP_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/status.h"

/* Longest file name kept (bytes), and longest content type taken. */
#define HTTP_NAME_MAX 255
#define HTTP_TYPE_MAX 200

/* Space or tab (HTTP's optional white space). */
int http_is_space(char c);

/* Decimal digits at *p, saturating at UINT64_MAX, *p moved past them;
 * 0 (and *p unmoved) if there are none. */
int http_parse_number(const char **p, uint64_t *out);

/* 1 if a decoded path segment seg[0..len) is safe: not "." or "..", and
 * free of separators ('/', '\\'), NULs and control characters. */
int http_segment_ok(const char *seg, size_t len);

/* 1 if the raw request path starts with '/' and each of its segments is
 * safe (http_segment_ok()) once its %XX escapes are decoded; a bad escape
 * or an escaped NUL makes it unsafe. */
int http_path_ok(const char *path);

/* The decoded file name of a raw path segment (%XX escapes), or NULL if it
 * is not a usable name: empty, longer than HTTP_NAME_MAX, unsafe
 * (http_segment_ok()), a bad escape.  free() it. */
char *http_decode_name(const char *raw);

/* value if it is a usable header value (1 to HTTP_TYPE_MAX bytes of
 * printable ASCII), else fallback. */
const char *http_header_safe(const char *value, const char *fallback);

/* The type a blob may be sent with, written to out (lower case): its own
 * if it is on the short list of types no browser runs or renders as active
 * content (text/plain keeps a charset parameter naming us-ascii, utf-8 or
 * iso-8859-1), else NULL (HTML, SVG, XML, JSON, JavaScript, PDF, CSS,
 * unknown, malformed...: such a blob is sent as a download). */
const char *http_inert_type(const char *content_type, char *out, size_t out_len);

/* 1 if a file name (may be NULL) ends in an extension a browser or a
 * desktop treats as active content whatever its bytes (htm, svg, js, pdf...). */
int http_active_name(const char *name);

/* Appends a Content-Disposition value, inline or attachment, with the name
 * (may be NULL) as a printable ASCII filename="..." (quotes, backslashes,
 * '%' and the rest made '_') and as RFC 8187 filename*=UTF-8''... */
enum bb_status http_disposition(struct buf *out, int inline_ok, const char *name);

enum http_range {
	HTTP_RANGE_NONE,           /* no usable Range: the whole file */
	HTTP_RANGE_OK,             /* *start, *length: within the file, length >= 1 */
	HTTP_RANGE_UNSATISFIABLE,  /* 416 */
};

/* One "bytes=a-b", "bytes=a-" or "bytes=-n" range of a file of size bytes.
 * Anything else (several ranges, bad syntax, other units) is
 * HTTP_RANGE_NONE, as RFC 9110 allows. */
enum http_range http_parse_range(const char *header, uint64_t size, uint64_t *start,
				 uint64_t *length);

/* 1 if an If-None-Match list names etag (a quoted strong ETag): "*", or
 * the same opaque tag, weak or strong (RFC 9110's weak comparison). */
int http_etag_listed(const char *list, const char *etag);

/* 1 if an If-Range value is exactly etag (strong comparison), surrounding
 * white space aside. */
int http_etag_equal(const char *value, const char *etag);

/* The token of an "Authorization: Bearer <token>" value (scheme in any
 * case, white space around it ignored): its start, *len its length (>= 1);
 * NULL for another scheme, no token or a NULL header. */
const char *http_bearer_token(const char *header, size_t *len);

/* A query value as sent ('+' and %XX escapes kept) decoded as a form's
 * ('+' a space, the escapes by GLib's g_uri_unescape_bytes()), at most
 * max bytes of it, then made one line (http_one_line()); "" for NULL or a
 * bad escape anywhere in it.  g_free() it. */
char *http_query_value(const char *raw, size_t max);

/* Text for a header, a name or a one-line field: valid UTF-8, control
 * characters and line breaks made spaces, format characters (bidi
 * overrides, zero-width characters) dropped, trimmed.  g_free() it. */
char *http_one_line(const char *text);

/* Multi-line text: valid UTF-8, CRLF and CR made LF, other control
 * characters but tab dropped.  g_free() it. */
char *http_multi_line(const char *text);

/* 1 if e is a plain address local@domain: one '@', a dot in the domain, at
 * most 254 bytes, no space, quote, bracket or control character. */
int http_email_ok(const char *e);

/* The file name part of what a browser sent as a file's name (some send a
 * whole path), one line (http_one_line()), at most HTTP_NAME_MAX bytes cut
 * at a character boundary; never "", "." or ".." ("attachment" then).
 * malloc'd; NULL when out of memory. */
char *http_file_name(const char *filename);

/* The origin a browser sends for pages under url (RFC 6454): its scheme,
 * host and port ("https://h:8443/x" gives "https://h:8443"), lower case,
 * read by GLib's g_uri_parse(): without a user name ("http://u@h" gives
 * "http://h"), without the scheme's own port ("https://h:443" gives
 * "https://h"), a non-ASCII name in its xn-- form.  malloc'd; NULL unless
 * url is an http or https URL with a host. */
char *http_url_origin(const char *url);

#endif
