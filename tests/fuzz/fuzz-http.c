/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for what a web request brings (web/http_text.c, and
 * X-Forwarded-For in web/http_guard.c): the input, up to its first NUL, is
 * given to every reader as a path, a header value, a query value, a form
 * field, a file name and a URL, and each answer is checked against what
 * http_text.h promises, with checks written apart from the code they check
 * (a path said safe is decoded again here, segment by segment).  Build with
 * "make fuzz", run with "make fuzz-run" (seeds in corpus-http/). */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/buf.h"
#include "core/text.h"
#include "web/http_guard.h"
#include "web/http_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond)
{
	if (!cond)
		__builtin_trap();
}

static int hex(int c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decodes s[0..len) into out (len + 1 bytes): its length, or -1 for a bad
 * escape or an escaped NUL. */
static long decode(const char *s, size_t len, char *out)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (s[i] != '%') {
			out[n++] = s[i];
			continue;
		}
		if (i + 2 >= len || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0)
			return -1;
		out[n] = (char)(hex(s[i + 1]) * 16 + hex(s[i + 2]));
		if (!out[n++])
			return -1;
		i += 2;
	}
	out[n] = '\0';
	return (long)n;
}

static int safe_segment(const char *seg, size_t len)
{
	if (!strcmp(seg, ".") || !strcmp(seg, ".."))
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)seg[i];

		if (c < 0x20 || c == 0x7f || c == '/' || c == '\\')
			return 0;
	}
	return 1;
}

/* A path is safe exactly when it starts with '/' and each segment decodes
 * to a safe one. */
static void check_path(const char *s, size_t len)
{
	int ok = http_path_ok(s), want = s[0] == '/';
	char *out = malloc(len + 1);
	const char *seg, *end;

	expect(out != NULL);
	for (seg = s + 1; want; seg = end + 1) {
		long n;

		end = strchr(seg, '/');
		if (!end)
			end = seg + strlen(seg);
		n = decode(seg, (size_t)(end - seg), out);
		want = n >= 0 && safe_segment(out, (size_t)n);
		if (!*end)
			break;
	}
	expect(ok == want);
	free(out);
}

static void check_name(const char *s)
{
	char *name = http_decode_name(s);

	if (!name)
		return;
	expect(*name && strlen(name) <= HTTP_NAME_MAX && safe_segment(name, strlen(name)));
	free(name);
}

static void check_types(const char *s)
{
	static const char *const inert[] = {
		"text/plain", "image/png", "image/jpeg", "image/gif", "image/webp",
	};
	const char *safe = http_header_safe(s, NULL);
	char out[96];
	const char *type = http_inert_type(s, out, sizeof(out));
	size_t i;

	if (http_active_name(s))
		expect(strchr(s, '.') != NULL);
	if (safe) {
		expect(safe == s && *s && strlen(s) <= HTTP_TYPE_MAX);
		for (const char *p = s; *p; p++)
			expect(*p >= 0x20 && *p < 0x7f);
	}
	if (!type)
		return;
	for (i = 0; i < sizeof(inert) / sizeof(inert[0]); i++)
		if (!strncmp(type, inert[i], strlen(inert[i])))
			break;
	expect(i < sizeof(inert) / sizeof(inert[0]));
	type += strlen(inert[i]);
	expect(!*type || (!strcmp(out, "text/plain; charset=us-ascii") ||
			  !strcmp(out, "text/plain; charset=utf-8") ||
			  !strcmp(out, "text/plain; charset=iso-8859-1")));
}

/* Printable ASCII; the plain name quoted once, with no quote or backslash
 * in it; the RFC 8187 form escaped. */
static void check_disposition(const char *s)
{
	struct buf b = BUF_INIT;
	const char *v, *q;

	expect(http_disposition(&b, s[0] & 1, s) == BB_OK);
	v = b.data;
	for (const char *p = v; *p; p++)
		expect(*p >= 0x20 && *p < 0x7f);
	expect(!strncmp(v, s[0] & 1 ? "inline" : "attachment", s[0] & 1 ? 6 : 10));
	if (*s) {
		q = strstr(v, "; filename=\"");
		expect(q != NULL);
		q = strchr(q + 12, '"');
		expect(q && !strncmp(q, "\"; filename*=UTF-8''", 20));
		expect(!strpbrk(q + 20, "\"\\ ;"));
		expect(!strchr(strchr(v, '"') + 1, '\\'));
	}
	buf_release(&b);
}

static void check_range(const char *s, uint64_t size)
{
	uint64_t start = 0, length = 0;

	switch (http_parse_range(s, size, &start, &length)) {
	case HTTP_RANGE_OK:
		expect(length >= 1 && start < size && length <= size - start);
		break;
	case HTTP_RANGE_NONE:
	case HTTP_RANGE_UNSATISFIABLE:
		break;
	default:
		expect(0);
	}
}

static void check_etags(const char *s)
{
	static const char etag[] = "\"1f-2a-3b\"";
	size_t n;
	const char *t;

	if (http_etag_listed(s, etag))
		expect(strchr(s, '*') || strstr(s, etag));
	if (http_etag_equal(s, etag))
		expect(strstr(s, etag) && strspn(s, " \t") + strlen(etag) <= strlen(s));
	if ((t = http_bearer_token(s, &n))) {
		expect(n >= 1 && t > s && t + n <= s + strlen(s));
		expect(t[0] != ' ' && t[0] != '\t' && t[n - 1] != ' ' && t[n - 1] != '\t');
		expect(!g_ascii_strncasecmp(s + strspn(s, " \t"), "bearer", 6));
	}
}

/* Valid UTF-8; no control character but those allowed; no blank at either
 * end when trimmed. */
static void expect_text(const char *s, int multi_line, int trimmed)
{
	size_t len;

	expect(s && g_utf8_validate(s, -1, NULL));
	len = strlen(s);
	if (trimmed && len)
		expect(!g_ascii_isspace(s[0]) && !g_ascii_isspace(s[len - 1]));
	for (const char *p = s; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (multi_line)
			expect(c >= 0x20 ? c != 0x7f : c == '\n' || c == '\t');
		else
			expect(!text_is_control_char(c) && !text_is_format_char(c));
	}
}

static void check_form(const char *s)
{
	char *v;
	const char *at;

	v = http_query_value(s, 500);
	expect_text(v, 0, 1);
	expect(strlen(v) <= 3 * 500);
	g_free(v);
	v = http_one_line(s);
	expect_text(v, 0, 1);
	g_free(v);
	v = http_multi_line(s);
	expect_text(v, 1, 0);
	g_free(v);
	v = http_file_name(s);
	expect(v && *v && strcmp(v, ".") && strcmp(v, "..") && strlen(v) <= HTTP_NAME_MAX);
	expect(!strpbrk(v, "/\\"));
	expect_text(v, 0, 1);
	free(v);
	if (http_email_ok(s)) {
		at = strchr(s, '@');
		expect(at > s && !strchr(at + 1, '@') && strchr(at + 1, '.') && strlen(s) <= 254);
		for (const char *p = s; *p; p++)
			expect(*p > ' ' && *p < 0x7f && !strchr("<>()[],;:\\\"", *p));
	}
	if ((v = http_url_origin(s))) {
		/* scheme://host[:port], lower case, its own origin */
		char *again = http_url_origin(v);

		expect(again && !strcmp(again, v));
		expect(!strncmp(v, "http://", 7) || !strncmp(v, "https://", 8));
		for (const char *p = v; *p; p++)
			expect(!(*p >= 'A' && *p <= 'Z'));
		expect(!strpbrk(v + (strstr(v, "://") - v) + 3, "/?#@%"));
		free(again);
		free(v);
	}
}

/* X-Forwarded-For as a trusted proxy passes it on: the client is a
 * numeric address, or the proxy itself. */
static void check_forwarded(const char *s)
{
	static struct http_guard *g;
	struct sockaddr_in peer;
	char out[HTTP_GUARD_CLIENT_MAX];
	unsigned char any[sizeof(struct in6_addr)];

	if (!g) {
		struct http_guard_options o = { 0, 0, 0, "10.0.0.0/8, 192.0.2.1, 2001:db8::/32" };
		struct bb_error err = BB_ERROR_INIT;

		expect(http_guard_new(&g, &o, &err) == BB_OK);
	}
	memset(&peer, 0, sizeof(peer));
	peer.sin_family = AF_INET;
	inet_pton(AF_INET, "192.0.2.1", &peer.sin_addr);
	http_guard_client(g, (const struct sockaddr *)&peer, s, out, sizeof(out));
	expect(strnlen(out, sizeof(out)) < sizeof(out));
	expect(inet_pton(AF_INET, out, any) == 1 || inet_pton(AF_INET6, out, any) == 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = strndup((const char *)data, size);
	size_t len;

	expect(s != NULL);
	len = strlen(s);
	check_path(s, len);
	check_name(s);
	check_types(s);
	check_disposition(s);
	check_range(s, 0);
	check_range(s, 1);
	check_range(s, 1000);
	check_range(s, UINT64_MAX);
	check_range(s, len);
	check_etags(s);
	check_form(s);
	check_forwarded(s);
	free(s);
	return 0;
}
