/* SPDX-License-Identifier: GPL-2.0-or-later */
/* web/http_text.c: the texts a web request brings, each reader with what
 * an attacker would send it (dot segments hidden in escapes, saturating
 * numbers, forged ETags, bidi overrides, Windows paths), without a server. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "tests/unit/tap.h"
#include "config/conf.h"
#include "web/frontdoor.h"
#include "web/http_text.h"

static void test_paths(void)
{
	static const struct { const char *path; int ok; } cases[] = {
		{ "/blob/sha256/abc/report.log", 1 },
		{ "/blob/sha256/abc/v1..2.log", 1 },          /* ".." inside a name */
		{ "/regressions/", 1 },
		{ "/a/../b", 0 },
		{ "/a/%2e%2e/b", 0 },
		{ "/a/.%2E", 0 },
		{ "/a/%2E", 0 },
		{ "/a%2fb", 0 },                               /* an escaped separator */
		{ "/a%5Cb", 0 },
		{ "/a\\b", 0 },
		{ "/a%00b", 0 },                               /* an escaped NUL */
		{ "/a%0ab", 0 },
		{ "/a%zz", 0 },                                /* bad escapes */
		{ "/a%4", 0 },
		{ "/a%", 0 },
		{ "relative/path", 0 },
		{ "", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_int(http_path_ok(cases[i].path), cases[i].ok, "path \"%s\"", cases[i].path);
}

static void test_names(void)
{
	char long_name[HTTP_NAME_MAX + 2];
	char *n;

	n = http_decode_name("report%20v1.log");
	is_str(n, "report v1.log", "a name is percent-decoded");
	free(n);
	n = http_decode_name("%C3%A9t%C3%A9.txt");
	is_str(n, "\xc3\xa9t\xc3\xa9.txt", "UTF-8 in a name is kept");
	free(n);
	ok(!http_decode_name(""), "an empty name is refused");
	ok(!http_decode_name("%2e%2e"), "an escaped .. is refused");
	ok(!http_decode_name("a%2Fb"), "an escaped / is refused");
	ok(!http_decode_name("a%0Db"), "an escaped CR is refused");
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	ok(!http_decode_name(long_name), "a name of %d bytes is refused", HTTP_NAME_MAX + 1);
	long_name[HTTP_NAME_MAX] = '\0';
	n = http_decode_name(long_name);
	ok(n && strlen(n) == HTTP_NAME_MAX, "one of %d bytes is kept", HTTP_NAME_MAX);
	free(n);
}

static void test_types(void)
{
	char out[96], big[HTTP_TYPE_MAX + 2];
	struct buf b = BUF_INIT;

	is_str(http_header_safe("text/plain", "x"), "text/plain", "a plain type is kept");
	is_str(http_header_safe("text/plain\x01", "x"), "x", "a control character is refused");
	is_str(http_header_safe("text/pl\xc3\xa4in", "x"), "x", "non-ASCII is refused");
	is_str(http_header_safe("", "x"), "x", "an empty type is refused");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	is_str(http_header_safe(big, "x"), "x", "a type over %d bytes is refused", HTTP_TYPE_MAX);

	is_str(http_inert_type("TEXT/Plain; Charset=UTF-8", out, sizeof(out)),
	       "text/plain; charset=utf-8", "text/plain keeps a safe charset, lower case");
	is_str(http_inert_type("text/plain; charset=utf-7", out, sizeof(out)), "text/plain",
	       "but not UTF-7");
	is_str(http_inert_type("text/plain; charset=utf-8x", out, sizeof(out)), "text/plain",
	       "nor a charset that only starts like a safe one");
	is_str(http_inert_type(" image/png ; x=y", out, sizeof(out)), "image/png",
	       "an image type, parameters dropped");
	ok(!http_inert_type("text/html", out, sizeof(out)), "HTML is not inert");
	ok(!http_inert_type("image/svg+xml", out, sizeof(out)), "SVG is not inert");
	ok(!http_inert_type("text/plainx", out, sizeof(out)), "nor a type that starts like one");
	ok(!http_inert_type(big, out, sizeof(out)), "nor an overlong type");

	ok(http_active_name("page.HTML") && http_active_name("x.svg") && http_active_name("a.b.js"),
	   "active extensions, any case");
	ok(!http_active_name("dmesg.txt") && !http_active_name("noext") && !http_active_name(NULL),
	   "others are not");

	ok(http_disposition(&b, 0, "a\"b\\c%d \xc3\xa9.txt") == BB_OK, "a disposition is made");
	is_str(b.data, "attachment; filename=\"a_b_c_d __.txt\"; "
	       "filename*=UTF-8''a%22b%5Cc%25d%20%C3%A9.txt",
	       "quotes, backslashes, %% and non-ASCII never reach the quoted name");
	buf_release(&b);
	ok(http_disposition(&b, 1, NULL) == BB_OK, "inline without a name");
	is_str(b.data, "inline", "is the word alone");
	buf_release(&b);
}

static void test_ranges(void)
{
	static const struct {
		const char *header;
		uint64_t size;
		enum http_range want;
		uint64_t start, length;
	} cases[] = {
		{ "bytes=0-499", 1000, HTTP_RANGE_OK, 0, 500 },
		{ "bytes=500-", 1000, HTTP_RANGE_OK, 500, 500 },
		{ "bytes=-200", 1000, HTTP_RANGE_OK, 800, 200 },
		{ "bytes=-2000", 1000, HTTP_RANGE_OK, 0, 1000 },
		{ "bytes=990-2000", 1000, HTTP_RANGE_OK, 990, 10 },
		{ " BYTES = 1 - 2 ", 1000, HTTP_RANGE_OK, 1, 2 },
		{ "bytes=0-99999999999999999999999", 1000, HTTP_RANGE_OK, 0, 1000 },
		{ "bytes=1000-", 1000, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
		{ "bytes=99999999999999999999999-", 1000, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
		{ "bytes=-0", 1000, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
		{ "bytes=0-", 0, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
		{ "bytes=-5", 0, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
		{ "bytes=5-4", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "bytes=0-1,5-6", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "items=0-1", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "bytes=a-b", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "bytes=1-2x", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "bytes=--5", 1000, HTTP_RANGE_NONE, 0, 0 },
		{ "bytes", 1000, HTTP_RANGE_NONE, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t start = 0, length = 0;
		enum http_range r = http_parse_range(cases[i].header, cases[i].size, &start, &length);

		if (cases[i].want == HTTP_RANGE_OK)
			ok(r == HTTP_RANGE_OK && start == cases[i].start && length == cases[i].length,
			   "\"%s\" of %llu bytes: %llu bytes from %llu", cases[i].header,
			   (unsigned long long)cases[i].size, (unsigned long long)cases[i].length,
			   (unsigned long long)cases[i].start);
		else
			is_int(r, cases[i].want, "\"%s\" of %llu bytes: %s", cases[i].header,
			       (unsigned long long)cases[i].size,
			       cases[i].want == HTTP_RANGE_NONE ? "ignored" : "416");
	}
}

static void test_etags(void)
{
	const char *e = "\"e1\"", *t;
	size_t n = 0;

	ok(http_etag_listed("\"e1\"", e), "If-None-Match: the tag");
	ok(http_etag_listed("W/\"e1\"", e), "its weak form");
	ok(http_etag_listed("\"x\" ,, \"e1\"", e), "in a list");
	ok(http_etag_listed("*", e), "*");
	ok(!http_etag_listed("\"e10\"", e), "not a longer tag");
	ok(!http_etag_listed("e1", e), "not an unquoted one");
	ok(!http_etag_listed("\"x", e), "an unclosed tag ends the list");
	ok(!http_etag_listed("\"x\" junk \"e1\"", e), "so does junk");
	ok(!http_etag_listed("", e), "an empty list names nothing");
	ok(http_etag_equal(" \"e1\"\t", e), "If-Range: the tag, blanks aside");
	ok(!http_etag_equal("W/\"e1\"", e), "not its weak form");
	ok(!http_etag_equal("\"e1\"x", e), "not with more after it");

	t = http_bearer_token("Bearer tok", &n);
	ok(t && n == 3 && !strncmp(t, "tok", 3), "Bearer token");
	t = http_bearer_token(" bearer\t tok en \t", &n);
	ok(t && n == 6 && !strncmp(t, "tok en", 6), "any case, blanks around it trimmed");
	ok(!http_bearer_token("Bearertok", &n), "the scheme needs a blank after it");
	ok(!http_bearer_token("Basic dG9rZW4=", &n), "another scheme is not a token");
	ok(!http_bearer_token("Bearer   ", &n), "nor blanks alone");
	ok(!http_bearer_token(NULL, &n), "nor no header");
}

static void test_form_text(void)
{
	static const struct { const char *sent, *kept, *why; } queries[] = {
		{ "a+b%20c", "a b c", "+ and escapes" },
		{ "x%zzy", "", "a bad escape empties it" },
		{ "a%00b%0D%0Ac", "a b  c", "escaped NUL and line breaks become spaces" },
		{ "%E2%80%AEtxt.exe%C2%85", "txt.exe", "a bidi override dropped, a C1 control trimmed" },
		{ "%FFx", "\xef\xbf\xbdx", "invalid UTF-8 replaced" },
		{ "1%2B1+%3D+2", "1+1 = 2", "%2B is a plus, + a space" },
		{ "a%2", "", "an escape cut short empties it" },
	};
	char *v;
	char big[601];

	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		v = http_query_value(queries[i].sent, 500);
		is_str(v, queries[i].kept, "query value \"%s\": %s", queries[i].sent, queries[i].why);
		g_free(v);
	}
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	v = http_query_value(big, 500);
	is_int(strlen(v), 500, "at most max bytes are decoded");
	g_free(v);
	memcpy(big + 550, "%zz", 3);
	v = http_query_value(big, 500);
	is_str(v, "", "a bad escape past max bytes empties it too");
	g_free(v);
	v = http_query_value(NULL, 500);
	is_str(v, "", "no value is \"\"");
	g_free(v);

	v = http_one_line("  a\r\nb\xe2\x80\x8b" "c\xe2\x80\xa8" "d  ");
	is_str(v, "a  bc d", "one line: breaks and separators spaces, zero-width dropped, trimmed");
	g_free(v);
	v = http_multi_line("a\r\nb\rc\x01" "d\te\x7f");
	is_str(v, "a\nb\ncd\te", "multi-line: CRLF and CR made LF, controls but tab dropped");
	g_free(v);

	ok(http_email_ok("user.name+tag@example.org"), "a plain address");
	ok(!http_email_ok("a@b") && !http_email_ok("@b.c") && !http_email_ok("a@") &&
	   !http_email_ok("a@@b.c") && !http_email_ok("a@b@c.d"), "one @, a domain with a dot");
	ok(!http_email_ok("a b@c.d") && !http_email_ok("a<b@c.d") && !http_email_ok("a@c.d\n") &&
	   !http_email_ok("\xc3\xa9@c.d"), "no blank, bracket, control or non-ASCII");
}

static void test_file_names(void)
{
	static const struct { const char *sent, *kept; } cases[] = {
		{ "C:\\Users\\me\\dmesg (2).txt", "dmesg (2).txt" },
		{ "/etc/passwd", "passwd" },
		{ "..", "attachment" },
		{ "dir/..", "attachment" },
		{ "dir/", "attachment" },
		{ "", "attachment" },
		{ " \xe2\x80\xae" "exe.txt ", "exe.txt" },
		{ "a\r\nb", "a  b" },
	};
	char big[601];
	char *v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = http_file_name(cases[i].sent);
		is_str(v, cases[i].kept, "file name \"%s\"", cases[i].sent);
		free(v);
	}
	for (size_t i = 0; i < 300; i++)
		memcpy(big + 2 * i, "\xc3\xa9", 2);
	big[600] = '\0';
	v = http_file_name(big);
	ok(v && strlen(v) == 254 && g_utf8_validate(v, -1, NULL),
	   "a long name is cut at a character boundary within %d bytes", HTTP_NAME_MAX);
	free(v);

	v = http_url_origin("HTTPS://Bugs.Example.ORG:8443/x?y");
	is_str(v, "https://bugs.example.org:8443", "an origin, lower case");
	free(v);
	v = http_url_origin("http://h?q#f");
	is_str(v, "http://h", "ends at a query");
	free(v);
	ok(!http_url_origin("no-scheme"), "no origin without ://");
}

/* The origin a browser sends, as GLib reads the URL: the old reader took
 * the text up to the first '/', user name and default port included, and
 * any scheme or none of a host. */
static void test_origins(void)
{
	static const struct { const char *url, *origin; } cases[] = {
		{ "https://bugs.example:443/report", "https://bugs.example" },
		{ "http://bugs.example:80", "http://bugs.example" },
		{ "http://bugs.example:443/", "http://bugs.example:443" },
		{ "http://user:secret@Bugs.Example/", "http://bugs.example" },
		{ "http://localhost@evil.example/", "http://evil.example" },
		{ "http://[::1]:8080/fd/", "http://[::1]:8080" },
		{ "https://b\xc3\xbc" "cher.example/", "https://xn--bcher-kva.example" },
		{ "http:///report", NULL },
		{ "ftp://bugs.example/", NULL },
		{ "javascript://bugs.example/", NULL },
		{ "http://bugs example/", NULL },
		{ "http://bugs.example:99999/", NULL },
		{ "http://[fe80::1%25eth0]/", NULL },
	};
	struct bb_config cfg;
	struct frontdoor_options opt;
	struct bb_error err = BB_ERROR_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *v = http_url_origin(cases[i].url);

		if (cases[i].origin)
			is_str(v, cases[i].origin, "origin of %s", cases[i].url);
		else
			ok(!v, "no origin for %s", cases[i].url);
		free(v);
	}

	/* the front door refuses a base URL that has no origin */
	memset(&cfg, 0, sizeof(cfg));
	memset(&opt, 0, sizeof(opt));
	opt.cfg = &cfg;
	cfg.frontdoor_enabled = 1;
	cfg.frontdoor_base_url = (char *)"https://bugs.example:443/fd/";
	is_int(frontdoor_check(&opt, &err), BB_OK, "base_url https://bugs.example:443/fd/");
	cfg.frontdoor_base_url = (char *)"file:///srv/fd";
	is_int(frontdoor_check(&opt, &err), BB_ERR_CONFIG, "base_url file:///srv/fd refused");
	bb_error_clear(&err);
	cfg.frontdoor_base_url = (char *)"http:///fd";
	is_int(frontdoor_check(&opt, &err), BB_ERR_CONFIG, "base_url without a host refused");
	bb_error_clear(&err);
}

int main(void)
{
	test_paths();
	test_names();
	test_types();
	test_ranges();
	test_etags();
	test_form_text();
	test_file_names();
	test_origins();
	return done_testing();
}
