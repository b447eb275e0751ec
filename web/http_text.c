/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The texts a web request brings, read and made safe (http_text.h).
 * Percent-decoding of paths is GLib's g_uri_unescape_segment(); the
 * headers read here (Range, If-None-Match, If-Range, Authorization) are
 * small grammars of RFC 9110 that no library of ours parses. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <glib.h>

#include "core/text.h"
#include "web/http_text.h"

int http_is_space(char c)
{
	return c == ' ' || c == '\t';
}

int http_parse_number(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	while (*s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');

		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
		s++;
	}
	if (s == *p)
		return 0;
	*p = s;
	*out = v;
	return 1;
}

/* ------------------------------------------------------------ paths, names */

/* Decodes the %XX escapes of text[0..len) into a new string (free() it;
 * *out_len gets its length).  NULL for a malformed escape, an escaped NUL
 * (which no name or segment may hold) or when out of memory. */
static char *percent_decode(const char *text, size_t len, size_t *out_len)
{
	gchar *decoded = g_uri_unescape_segment(text, text + len, NULL);
	char *out = decoded ? strdup(decoded) : NULL;

	g_free(decoded);
	if (out && out_len)
		*out_len = strlen(out);
	return out;
}

int http_segment_ok(const char *seg, size_t len)
{
	size_t i;

	if ((len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)seg[i];

		if (c < 0x20 || c == 0x7f || c == '/' || c == '\\')
			return 0;
	}
	return 1;
}

int http_path_ok(const char *path)
{
	const char *seg, *end;
	char *decoded;
	size_t len;
	int ok = 0;

	if (path[0] != '/')
		return 0;
	for (seg = path + 1;; seg = end + 1) {
		end = strchr(seg, '/');
		if (!end)
			end = seg + strlen(seg);
		decoded = percent_decode(seg, (size_t)(end - seg), &len);
		if (!decoded)
			return 0;
		ok = http_segment_ok(decoded, len);
		free(decoded);
		if (!ok || !*end)
			break;
	}
	return ok;
}

char *http_decode_name(const char *raw)
{
	char *name;
	size_t len = 0;

	name = percent_decode(raw, strlen(raw), &len);
	if (name && (len == 0 || len > HTTP_NAME_MAX || !http_segment_ok(name, len))) {
		free(name);
		name = NULL;
	}
	return name;
}

/* ------------------------------------------------------------ types, names */

const char *http_header_safe(const char *value, const char *fallback)
{
	const char *p;

	if (!value || !*value || strlen(value) > HTTP_TYPE_MAX)
		return fallback;
	for (p = value; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			return fallback;
	return value;
}

const char *http_inert_type(const char *content_type, char *out, size_t out_len)
{
	static const char *const inert[] = {
		"text/plain", "image/png", "image/jpeg", "image/gif", "image/webp",
	};
	static const char *const charsets[] = { "us-ascii", "utf-8", "iso-8859-1" };
	char type[64];
	const char *p = content_type, *param;
	size_t i, n = 0;

	while (http_is_space(*p))
		p++;
	for (; *p && *p != ';' && !http_is_space(*p); p++) {
		if (n == sizeof(type) - 1)
			return NULL;
		type[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	}
	type[n] = '\0';
	for (i = 0; i < sizeof(inert) / sizeof(inert[0]); i++)
		if (!strcmp(type, inert[i]))
			break;
	if (i == sizeof(inert) / sizeof(inert[0]))
		return NULL;
	snprintf(out, out_len, "%s", type);
	if (strcmp(type, "text/plain") || !(param = strcasestr(p, "charset=")))
		return out;
	/* only charsets no old browser decodes into markup (UTF-7 did) */
	param += 8;
	for (i = 0; i < sizeof(charsets) / sizeof(charsets[0]); i++) {
		n = strlen(charsets[i]);
		if (!strncasecmp(param, charsets[i], n) &&
		    (!param[n] || param[n] == ';' || http_is_space(param[n]))) {
			snprintf(out + strlen(out), out_len - strlen(out), "; charset=%s", charsets[i]);
			break;
		}
	}
	return out;
}

int http_active_name(const char *name)
{
	static const char *const active[] = {
		"htm", "html", "xhtml", "shtml", "svg", "svgz", "xml", "xsl", "xslt", "js",
		"mjs", "cjs", "json", "css", "pdf", "swf", "wasm", "hta", "vbs", "url",
	};
	const char *dot = name ? strrchr(name, '.') : NULL;
	size_t i;

	if (!dot)
		return 0;
	for (i = 0; i < sizeof(active) / sizeof(active[0]); i++)
		if (!strcasecmp(dot + 1, active[i]))
			return 1;
	return 0;
}

enum bb_status http_disposition(struct buf *out, int inline_ok, const char *name)
{
	static const char attr_chars[] = "!#$&+^`|";
	enum bb_status st;
	const char *p;
	gchar *escaped;

	st = buf_addstr(out, inline_ok ? "inline" : "attachment");
	if (st || !name || !*name)
		return st;
	if ((st = buf_addstr(out, "; filename=\"")))
		return st;
	for (p = name; *p && !st; p++) {
		unsigned char c = (unsigned char)*p;

		st = buf_addch(out, c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '%'
					    ? (char)c : '_');
	}
	if (st || (st = buf_addstr(out, "\"; filename*=UTF-8''")))
		return st;
	/* RFC 8187 attr-char: GLib keeps the unreserved -._~ besides */
	if (!(escaped = g_uri_escape_string(name, attr_chars, FALSE)))
		return BB_ERR_NOMEM;
	st = buf_addstr(out, escaped);
	g_free(escaped);
	return st;
}

/* ------------------------------------------------------------ headers */

enum http_range http_parse_range(const char *header, uint64_t size, uint64_t *start,
				 uint64_t *length)
{
	const char *p = header;
	uint64_t first = 0, last = 0;
	int has_last;

	while (http_is_space(*p))
		p++;
	if (strncasecmp(p, "bytes", 5))
		return HTTP_RANGE_NONE;
	p += 5;
	while (http_is_space(*p))
		p++;
	if (*p++ != '=' || strchr(p, ','))
		return HTTP_RANGE_NONE;
	while (http_is_space(*p))
		p++;
	if (*p == '-') {
		p++;
		if (!http_parse_number(&p, &last))
			return HTTP_RANGE_NONE;
		while (http_is_space(*p))
			p++;
		if (*p)
			return HTTP_RANGE_NONE;
		if (last == 0 || size == 0)
			return HTTP_RANGE_UNSATISFIABLE;
		*start = last >= size ? 0 : size - last;
		*length = size - *start;
		return HTTP_RANGE_OK;
	}
	if (!http_parse_number(&p, &first))
		return HTTP_RANGE_NONE;
	while (http_is_space(*p))
		p++;
	if (*p++ != '-')
		return HTTP_RANGE_NONE;
	while (http_is_space(*p))
		p++;
	has_last = http_parse_number(&p, &last);
	while (http_is_space(*p))
		p++;
	if (*p || (has_last && last < first))
		return HTTP_RANGE_NONE;
	if (first >= size)
		return HTTP_RANGE_UNSATISFIABLE;
	if (!has_last || last >= size)
		last = size - 1;
	*start = first;
	*length = last - first + 1;
	return HTTP_RANGE_OK;
}

int http_etag_listed(const char *list, const char *etag)
{
	size_t etag_len = strlen(etag);
	const char *p = list, *end;

	for (;;) {
		while (http_is_space(*p) || *p == ',')
			p++;
		if (!*p)
			return 0;
		if (*p == '*')
			return 1;
		if (!strncmp(p, "W/", 2))
			p += 2;
		if (*p != '"' || !(end = strchr(p + 1, '"')))
			return 0;
		if ((size_t)(end + 1 - p) == etag_len && !memcmp(p, etag, etag_len))
			return 1;
		p = end + 1;
	}
}

int http_etag_equal(const char *value, const char *etag)
{
	size_t len;

	while (http_is_space(*value))
		value++;
	len = strlen(value);
	while (len > 0 && http_is_space(value[len - 1]))
		len--;
	return len == strlen(etag) && !memcmp(value, etag, len);
}

const char *http_bearer_token(const char *header, size_t *len)
{
	size_t n;

	if (!header)
		return NULL;
	while (http_is_space(*header))
		header++;
	if (strncasecmp(header, "Bearer", 6) || !http_is_space(header[6]))
		return NULL;
	header += 6;
	while (http_is_space(*header))
		header++;
	n = strlen(header);
	while (n > 0 && http_is_space(header[n - 1]))
		n--;
	if (n == 0)
		return NULL;
	*len = n;
	return header;
}

/* ------------------------------------------------------------ form text */

char *http_query_value(const char *raw, size_t max)
{
	char *spaced = g_strdup(raw ? raw : "");
	GBytes *bytes;
	const char *data = NULL;
	char *text, *value;
	gsize len = 0;

	/* '+' is a space in a form, and %2B a '+': the pluses go first, then
	 * GLib decodes the escapes.  g_uri_parse_params(G_URI_PARAMS_WWW_FORM)
	 * does both but refuses a value that is not UTF-8 or holds a NUL, which
	 * a search box should rather show repaired. */
	g_strdelimit(spaced, "+", ' ');
	bytes = g_uri_unescape_bytes(spaced, -1, NULL, NULL);
	if (bytes)
		data = g_bytes_get_data(bytes, &len);
	len = len < max ? len : max;
	text = g_malloc(len + 1);
	if (len)
		memcpy(text, data, len);
	text[len] = '\0';
	/* an escaped NUL is a space, as the other C0 controls are below */
	for (gsize i = 0; i < len; i++)
		if (!text[i])
			text[i] = ' ';
	value = http_one_line(text);
	g_free(text);
	if (bytes)
		g_bytes_unref(bytes);
	g_free(spaced);
	return value;
}

char *http_one_line(const char *text)
{
	char *v = g_utf8_make_valid(text ? text : "", -1);
	const char *r = v;
	char *w = v;

	while (*r) {
		gunichar c = g_utf8_get_char(r);
		const char *next = g_utf8_next_char(r);

		if (text_is_control_char(c)) {
			*w++ = ' ';
		} else if (!text_is_format_char(c)) {
			memmove(w, r, (size_t)(next - r));
			w += next - r;
		}
		r = next;
	}
	*w = '\0';
	return g_strstrip(v);
}

char *http_multi_line(const char *text)
{
	char *v = g_utf8_make_valid(text ? text : "", -1);
	char *r = v, *w = v;

	for (; *r; r++) {
		if (*r == '\r') {
			if (r[1] != '\n')
				*w++ = '\n';
			continue;
		}
		if (((unsigned char)*r < 0x20 && *r != '\n' && *r != '\t') || *r == 0x7f)
			continue;
		*w++ = *r;
	}
	*w = '\0';
	return v;
}

int http_email_ok(const char *e)
{
	const char *at = strchr(e, '@');
	size_t len = strlen(e);

	if (!at || at == e || !at[1] || strchr(at + 1, '@') || len > 254 || !strchr(at + 1, '.'))
		return 0;
	for (const char *p = e; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || strchr("<>()[],;:\\\"", *p))
			return 0;
	return 1;
}

char *http_file_name(const char *filename)
{
	const char *base = filename, *p;
	char *line, *out;

	for (p = filename; *p; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	line = http_one_line(base);
	if (strlen(line) > HTTP_NAME_MAX) {
		const char *end = line + HTTP_NAME_MAX;

		/* cut at a character boundary */
		while (end > line && ((unsigned char)*end & 0xc0) == 0x80)
			end--;
		line[end - line] = '\0';
		g_strchomp(line);
	}
	out = strdup(*line && strcmp(line, ".") && strcmp(line, "..") ? line : "attachment");
	g_free(line);
	return out;
}

char *http_url_origin(const char *url)
{
	GUri *uri = url ? g_uri_parse(url, G_URI_FLAGS_NONE, NULL) : NULL;
	const char *scheme, *host;
	char *lower = NULL, *text = NULL, *origin = NULL;
	char port_text[8];
	int port, https, ipv6;

	if (!uri)
		return NULL;
	scheme = g_uri_get_scheme(uri);
	host = g_uri_get_host(uri);
	port = g_uri_get_port(uri);
	https = !strcmp(scheme, "https");
	if ((!https && strcmp(scheme, "http")) || !host || !*host)
		goto out;
	/* a name (GLib gives a non-ASCII one as its xn-- form) or an address
	 * without a zone ("%eth0": no browser sends one) */
	if (strchr(host, '%'))
		goto out;
	if (!g_hostname_is_ip_address(host))
		for (const char *p = host; *p; p++)
			if (!g_ascii_isalnum(*p) && *p != '-' && *p != '.' && *p != '_')
				goto out;
	if (port == (https ? 443 : 80))
		port = -1; /* a browser leaves the scheme's own port out */
	lower = g_ascii_strdown(host, -1);
	ipv6 = strchr(lower, ':') != NULL; /* GLib gives it without its brackets */
	port_text[0] = '\0';
	if (port >= 0)
		g_snprintf(port_text, sizeof(port_text), ":%d", port);
	text = g_strdup_printf("%s://%s%s%s%s", scheme, ipv6 ? "[" : "", lower, ipv6 ? "]" : "",
			       port_text);
	origin = strdup(text);
out:
	g_free(text);
	g_free(lower);
	g_uri_unref(uri);
	return origin;
}
