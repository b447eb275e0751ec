/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Links to mail and to Bugzilla bugs (see links.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/buf.h"
#include "core/text.h"
#include "tracker/links.h"

/* Hosts that serve one mail under its Message-ID.  On each the Message-ID
 * is the first path segment holding an '@' (patch.msgid.link/<id>,
 * lore.kernel.org/<id>), else the second (/r/<id>, /<list>/<id>, /all/<id>);
 * what follows it (/T/, /raw, ...) does not change the mail. */
static const char *const mail_hosts[] = {
	"lore.kernel.org",
	"lkml.kernel.org",
	"patch.msgid.link",
	"msgid.link",
};

/* The parts of an http(s) URL, pointing into it. */
struct url_parts {
	const char *host, *port, *path, *query;
	size_t host_len, port_len, path_len, query_len;
};

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static int equals_ci(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen != blen)
		return 0;
	for (size_t i = 0; i < alen; i++)
		if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
			return 0;
	return 1;
}

static int prefix_ci(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && equals_ci(s, n, prefix, n);
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Splits s/len (an "http://" or "https://" URL, '<' '>' around it allowed)
 * into its parts.  Returns 0 for anything else: another scheme, a user
 * name in the authority, a bad port, a blank or control byte. */
static int url_split(const char *s, size_t len, struct url_parts *u)
{
	const char *end, *p, *auth, *colon;

	memset(u, 0, sizeof(*u));
	if (len && s[0] == '<') {
		s++;
		len--;
		if (len && s[len - 1] == '>')
			len--;
	}
	if (len > REG_LINK_URL_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return 0;
	if (prefix_ci(s, len, "https://"))
		p = s + 8;
	else if (prefix_ci(s, len, "http://"))
		p = s + 7;
	else
		return 0;
	end = s + len;
	auth = p;
	while (p < end && *p != '/' && *p != '?' && *p != '#')
		p++;
	if (memchr(auth, '@', (size_t)(p - auth)))
		return 0;
	colon = memchr(auth, ':', (size_t)(p - auth));
	u->host = auth;
	u->host_len = (size_t)((colon ? colon : p) - auth);
	if (!u->host_len)
		return 0;
	if (colon) {
		u->port = colon + 1;
		u->port_len = (size_t)(p - u->port);
		if (!u->port_len || u->port_len > 5)
			return 0;
		for (size_t i = 0; i < u->port_len; i++)
			if (!is_digit((unsigned char)u->port[i]))
				return 0;
	}
	u->path = p;
	while (p < end && *p != '?' && *p != '#')
		p++;
	u->path_len = (size_t)(p - u->path);
	if (p < end && *p == '?') {
		u->query = ++p;
		while (p < end && *p != '#')
			p++;
		u->query_len = (size_t)(p - u->query);
	}
	return 1;
}

/* Path segment number index (0-based, empty segments skipped) of u. */
static int path_segment(const struct url_parts *u, int index, const char **seg, size_t *len)
{
	const char *p = u->path, *end = u->path + u->path_len;

	while (p < end) {
		const char *start;

		while (p < end && *p == '/')
			p++;
		start = p;
		while (p < end && *p != '/')
			p++;
		if (p > start && index-- == 0) {
			*seg = start;
			*len = (size_t)(p - start);
			return 1;
		}
	}
	return 0;
}

/* Does the segment hold an '@', raw or as %40? */
static int segment_has_at(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '@' || (s[i] == '%' && i + 2 < len && s[i + 1] == '4' && s[i + 2] == '0'))
			return 1;
	return 0;
}

/* The percent-decoded Message-ID in s/len, checked; NULL if unusable. */
static char *decode_message_id(const char *s, size_t len)
{
	char *out = malloc(len + 1);
	size_t n = 0, start, at = 0;
	int ats = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)s[i];

		if (c == '%') {
			int hi = i + 2 < len ? g_ascii_xdigit_value(s[i + 1]) : -1;
			int lo = hi >= 0 ? g_ascii_xdigit_value(s[i + 2]) : -1;

			if (lo < 0)
				goto bad;
			c = hi * 16 + lo;
			i += 2;
		}
		out[n++] = (char)c;
	}
	out[n] = '\0';
	/* <id>, as some links carry it (%3Cid%3E) */
	start = 0;
	if (n >= 2 && out[0] == '<' && out[n - 1] == '>') {
		start = 1;
		out[--n] = '\0';
	}
	if (n - start > REG_LINK_MESSAGE_ID_MAX || n == start)
		goto bad;
	for (size_t i = start; i < n; i++) {
		unsigned char c = (unsigned char)out[i];

		if (c <= ' ' || c >= 0x7f || c == '<' || c == '>')
			goto bad;
		if (c == '@') {
			ats++;
			at = i;
		}
	}
	if (!ats || at == start || at == n - 1)
		goto bad;
	if (start)
		memmove(out, out + start, n - start + 1);
	return out;
bad:
	free(out);
	return NULL;
}

char *reg_link_message_id(const char *url)
{
	struct url_parts u;
	const char *seg;
	size_t len, seg_len;
	int known = 0;

	if (!url)
		return NULL;
	len = strnlen(url, REG_LINK_URL_MAX + 3);
	if (!url_split(url, len, &u))
		return NULL;
	for (size_t i = 0; i < sizeof(mail_hosts) / sizeof(mail_hosts[0]); i++)
		known = known || equals_ci(u.host, u.host_len, mail_hosts[i], strlen(mail_hosts[i]));
	if (!known || !path_segment(&u, 0, &seg, &seg_len))
		return NULL;
	if (!segment_has_at(seg, seg_len) && !path_segment(&u, 1, &seg, &seg_len))
		return NULL;
	return decode_message_id(seg, seg_len);
}

/* The value of the first "id" parameter of a query (split at '&' or ';'). */
static int query_id(const char *q, size_t len, const char **value, size_t *value_len)
{
	const char *p = q, *end = q + len;

	while (p < end) {
		const char *start = p;

		while (p < end && *p != '&' && *p != ';')
			p++;
		if (p - start >= 3 && !memcmp(start, "id=", 3)) {
			*value = start + 3;
			*value_len = (size_t)(p - start - 3);
			return 1;
		}
		if (p < end)
			p++;
	}
	return 0;
}

/* The number in digits/len (1 to 15 digits, nothing else), or 0. */
static long long bug_number(const char *digits, size_t len)
{
	long long id = 0;

	if (!len || len > 15)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (!is_digit((unsigned char)digits[i]))
			return 0;
		id = id * 10 + (digits[i] - '0');
	}
	return id;
}

long long reg_link_bugzilla_id(const char *url, const char *bugzilla_base)
{
	static const char script[] = "/show_bug.cgi";
	const size_t script_len = sizeof(script) - 1;
	struct url_parts u, b;
	const char *value;
	size_t len, value_len, base_path_len;
	long long id;

	if (!url)
		return 0;
	len = strnlen(url, REG_LINK_URL_MAX + 3);
	if (!url_split(url, len, &u))
		return 0;
	if (bugzilla_base) {
		if (!url_split(bugzilla_base, strnlen(bugzilla_base, REG_LINK_URL_MAX + 3), &b) ||
		    b.query || !equals_ci(u.host, u.host_len, b.host, b.host_len) ||
		    u.port_len != b.port_len || memcmp(u.port ? u.port : "", b.port ? b.port : "", u.port_len))
			return 0;
		base_path_len = b.path_len;
		while (base_path_len && b.path[base_path_len - 1] == '/')
			base_path_len--;
		if (u.path_len <= base_path_len || memcmp(u.path, b.path, base_path_len) ||
		    u.path[base_path_len] != '/')
			return 0;
		/* <base>/N, the short link Bugzilla's own rewrite rule serves */
		if (!u.query && (id = bug_number(u.path + base_path_len + 1,
						 u.path_len - base_path_len - 1)) > 0)
			return id;
		if (u.path_len != base_path_len + script_len)
			return 0;
	}
	if (u.path_len < script_len ||
	    memcmp(u.path + u.path_len - script_len, script, script_len) != 0)
		return 0;
	if (!u.query || !query_id(u.query, u.query_len, &value, &value_len))
		return 0;
	return bug_number(value, value_len);
}

/* The path of u without the '/' at its end. */
static size_t path_trimmed(const struct url_parts *u)
{
	size_t len = u->path_len;

	while (len && u->path[len - 1] == '/')
		len--;
	return len;
}

int reg_link_same_report(const char *a, const char *b)
{
	struct url_parts ua, ub;
	long long bug_a, bug_b;
	size_t pa, pb;

	if (!a || !b || !url_split(a, strnlen(a, REG_LINK_URL_MAX + 3), &ua) ||
	    !url_split(b, strnlen(b, REG_LINK_URL_MAX + 3), &ub))
		return 0;
	if (!equals_ci(ua.host, ua.host_len, ub.host, ub.host_len) ||
	    ua.port_len != ub.port_len ||
	    memcmp(ua.port ? ua.port : "", ub.port ? ub.port : "", ua.port_len))
		return 0;
	pa = path_trimmed(&ua);
	pb = path_trimmed(&ub);
	if (pa != pb || memcmp(ua.path, ub.path, pa))
		return 0;
	bug_a = reg_link_bugzilla_id(a, NULL);
	bug_b = reg_link_bugzilla_id(b, NULL);
	if (bug_a > 0 || bug_b > 0)
		return bug_a == bug_b;
	if (!ua.query != !ub.query || ua.query_len != ub.query_len)
		return 0;
	return !ua.query_len || !memcmp(ua.query, ub.query, ua.query_len);
}

/* "<scheme>://<host>[:<port>]" of url (g_free() it), NULL if it has no
 * host. */
static char *url_origin(const char *url)
{
	GUri *u = g_uri_parse(url, G_URI_FLAGS_NONE, NULL);
	char *origin = NULL;

	if (u && g_uri_get_host(u) && *g_uri_get_host(u))
		origin = g_uri_get_port(u) > 0
				 ? g_strdup_printf("%s://%s:%d", g_uri_get_scheme(u),
						   g_uri_get_host(u), g_uri_get_port(u))
				 : g_strdup_printf("%s://%s", g_uri_get_scheme(u), g_uri_get_host(u));
	if (u)
		g_uri_unref(u);
	return origin;
}

/* The last inbox URL's origin: a report links every mail of every
 * regression through the same one, and parsing it each time was a third
 * of the cost of a link. */
static struct {
	char *url, *origin;
} last_origin;
G_LOCK_DEFINE_STATIC(last_origin);

char *reg_link_mail(const char *inbox_url, const char *message_id)
{
	const char *url = inbox_url && *inbox_url ? inbox_url : "https://lore.kernel.org";
	char *origin, *id, *out;

	if (!message_id)
		return NULL;
	G_LOCK(last_origin);
	if (!last_origin.url || strcmp(last_origin.url, url)) {
		g_free(last_origin.url);
		g_free(last_origin.origin);
		last_origin.url = g_strdup(url);
		last_origin.origin = url_origin(url);
	}
	origin = g_strdup(last_origin.origin);
	G_UNLOCK(last_origin);
	if (!origin)
		return NULL;
	id = g_uri_escape_string(message_id, "@!$+=,;:", FALSE);
	out = str_printf("%s/r/%s/", origin, id);
	g_free(id);
	g_free(origin);
	return out;
}

/* ------------------------------------------------ raw text and trailers */

/* The next line of the text from *pos to end, without its line end (a CR
 * before the LF is dropped), as inmail_lines_next() splits it: 1, or 0
 * at the end.  For the trailers of a patch, which need no line's kind
 * (the kind was most of what the walk cost, on every line of a patch). */
int reg_next_line(const char **pos, const char *end, const char **line, size_t *len)
{
	const char *nl;
	size_t n;

	if (*pos >= end)
		return 0;
	*line = *pos;
	nl = memchr(*pos, '\n', (size_t)(end - *pos));
	n = nl ? (size_t)(nl - *pos) : (size_t)(end - *pos);
	*pos = nl ? nl + 1 : end;
	if (n && (*line)[n - 1] == '\r')
		n--;
	*len = n;
	return 1;
}

/* Whether the decode may give the raw text (len bytes) other line starts
 * than its own: a lone CR (a line end), quoted-printable "=0A" or "=0D". */
static int lines_may_move(const char *text, size_t len)
{
	for (const char *cr = text; (cr = memchr(cr, '\r', len - (size_t)(cr - text))); cr++)
		if ((size_t)(cr - text) + 1 >= len || cr[1] != '\n')
			return 1;
	return text_find_ci(text, len, "=0a") || text_find_ci(text, len, "=0d");
}

/* A raw line (len bytes) as a trailer patch_posted() reads: 1 when it may
 * be "Link:" or "Closes:" only once decoded (a byte the decode drops, or
 * a quoted-printable "=" where the word is), with *value NULL; 1 with
 * *value the text after the colon when it is one as it stands; else 0. */
static int raw_trailer(const char *line, size_t len, const char **value)
{
	static const char *const words[] = { "link:", "closes:" };

	*value = NULL;
	for (int w = 0; w < 2; w++) {
		size_t i = 0, k = 0;

		for (; i < len && words[w][k]; i++) {
			unsigned char c = (unsigned char)line[i];

			if ((c < 0x20 && c != '\t') || c == 0x7f || c == '=')
				return 1;
			if (g_ascii_tolower(c) != words[w][k])
				break;
			k++;
		}
		if (!words[w][k]) {
			*value = line + i;
			return 1;
		}
	}
	return 0;
}

int reg_trailer_url(const char *v, size_t n, char *out, size_t size)
{
	if (n >= size)
		return 0;
	memcpy(out, v, n);
	out[n] = '\0';
	g_strstrip(out);
	out[strcspn(out, " \t")] = '\0';
	return 1;
}

int reg_raw_trailers(const char *text, size_t len, int (*fn)(const char *value, void *ctx),
		     void *ctx)
{
	const char *pos = text, *end = text + len, *p, *v;
	size_t n;

	if (lines_may_move(text, len))
		return 1;
	while (reg_next_line(&pos, end, &p, &n)) {
		char line[1024];

		if (!raw_trailer(p, n, &v))
			continue;
		if (!v)
			return 1;
		/* (the value as patch_posted() takes it, from a line the
		 * decode leaves as it is) */
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] >= 0x7f || p[i] == '=')
				return 1;
		if (n >= sizeof(line))
			continue;
		if (reg_trailer_url(v, n - (size_t)(v - p), line, sizeof(line)) && fn(line, ctx))
			return 1;
	}
	return 0;
}

char *reg_link_host(const char *base)
{
	struct url_parts b;

	/* (reg_link_bugzilla_id() matches a URL whose host is the base's,
	 * compared as it is written, without regard to case) */
	if (!base || !url_split(base, strnlen(base, REG_LINK_URL_MAX + 3), &b) || !b.host_len)
		return NULL;
	return strndup(b.host, b.host_len);
}

int reg_text_may_cite_bugzilla(const char *text, size_t len, const char *bugzilla_host)
{
	return !bugzilla_host || text_find_ci(text, len, bugzilla_host) != NULL;
}
