/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Composing the bridge's mail with GMime (see mail.h).
 *
 * Everything that comes from Bugzilla is cleaned before use: header values
 * lose CR, LF and other control characters (a summary cannot smuggle in a
 * header of its own) and are kept short enough that no header line can get
 * near SMTP's 998-byte limit; bodies get LF line ends.  Both are repaired to
 * valid UTF-8.  GMime does the RFC 2047 encoding of headers and the
 * quoted-printable encoding of a body with over-long lines (8bit otherwise).
 */
#include "config.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gmime/gmime.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "core/digest.h"
#include "core/fsutil.h"
#include "core/text.h"
#include "mail/mail.h"

/* Longest header value taken from Bugzilla, in characters.  Bugzilla itself
 * caps a summary at 255; an XML import might not. */
#define HEADER_VALUE_MAX 300
/* public-inbox drops mail whose Message-ID is longer than this. */
#define MESSAGE_ID_MAX 244
/* RFC 5322: a line is at most 998 bytes without its line end. */
#define LINE_MAX_BYTES 998

static pthread_once_t mail_once = PTHREAD_ONCE_INIT;
static int mail_initialised;

static void mail_init_once(void)
{
	g_mime_init();
	mail_initialised = 1;
}

void mail_init(void)
{
	pthread_once(&mail_once, mail_init_once);
}

void mail_shutdown(void)
{
	if (mail_initialised) {
		g_mime_shutdown();
		mail_initialised = 0;
	}
}

/* --- Message-IDs ------------------------------------------------------------ */

int mail_mark(const unsigned char *key, const char *message_id,
	      char out[MAIL_MARK_HEX_LEN + 1])
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	if (!HMAC(EVP_sha256(), key, MAIL_MARK_KEY_LEN, (const unsigned char *)message_id,
		  strlen(message_id), mac, &len) || len < MAIL_MARK_HEX_LEN / 2)
		return -1;
	hex_encode(mac, MAIL_MARK_HEX_LEN / 2, out);
	return 0;
}

int mail_mark_ok(const unsigned char *key, const char *message_id, const char *mark)
{
	char want[MAIL_MARK_HEX_LEN + 1], got[MAIL_MARK_HEX_LEN + 1];
	const char *p = mark;
	size_t n = 0;

	if (!key || !message_id || !p)
		return 0;
	while (g_ascii_isspace(*p))
		p++;
	for (; n < MAIL_MARK_HEX_LEN && g_ascii_isxdigit(*p); p++)
		got[n++] = g_ascii_tolower(*p);
	got[n] = '\0';
	while (g_ascii_isspace(*p))
		p++;
	if (n < MAIL_MARK_HEX_LEN || *p || mail_mark(key, message_id, want))
		return 0;
	return CRYPTO_memcmp(want, got, MAIL_MARK_HEX_LEN) == 0;
}

char *mail_message_id(const char *domain, long long bug_id, int count)
{
	if (count <= 0)
		return str_printf("bug-%lld@%s", bug_id, domain);
	return str_printf("bug-%lld-c%d@%s", bug_id, count, domain);
}

char *mail_changes_message_id(const char *domain, long long bug_id, long long seq)
{
	return str_printf("bug-%lld-u%lld@%s", bug_id, seq, domain);
}

char *mail_notice_message_id(const char *domain, long long bug_id, long long seq)
{
	if (bug_id <= 0)
		return str_printf("answer-r%lld@%s", seq, domain);
	return str_printf("bug-%lld-r%lld@%s", bug_id, seq, domain);
}

char *mail_backlog_message_id(const char *domain, long long bug_id, int first_count)
{
	return str_printf("bug-%lld-s%d@%s", bug_id, first_count, domain);
}

char *mail_attachment_message_id(const char *domain, long long bug_id, long long attachment_id)
{
	return str_printf("bug-%lld-a%lld@%s", bug_id, attachment_id, domain);
}

int mail_message_id_parse(const char *domain, const char *message_id, long long *bug_id)
{
	const char *p = message_id, *at;
	size_t len, dlen;
	long long id = 0;
	int digits = 0;

	if (!domain || !*domain || !p)
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '<')
		p++;
	/* (most ids asked about are no bridge's: they go on their start) */
	if (strncmp(p, "bug-", 4) != 0)
		return 0;
	len = strcspn(p, ">");
	if (!(at = memchr(p, '@', len)))
		return 0;
	dlen = strlen(domain);
	if ((size_t)(p + len - (at + 1)) != dlen || g_ascii_strncasecmp(at + 1, domain, dlen) != 0)
		return 0;
	for (p += 4; p < at && *p >= '0' && *p <= '9'; p++, digits++) {
		if (id > (LLONG_MAX - 9) / 10)
			return 0;
		id = id * 10 + (*p - '0');
	}
	if (!digits || id <= 0)
		return 0;
	if (p < at) {
		/* -c<count>, -u<seq>, -a<attachment>, -r<notice> or -s<backlog> */
		if (p[0] != '-' || !strchr("cuars", p[1]) || !p[1] || p + 2 >= at)
			return 0;
		for (p += 2; p < at; p++)
			if (*p < '0' || *p > '9')
				return 0;
	}
	if (bug_id)
		*bug_id = id;
	return 1;
}

/* 1 if s can be the inside of <...> in a Message-ID header: printable ASCII
 * without spaces or angle brackets, an '@', not too long. */
static int message_id_ok(const char *s)
{
	size_t len = s ? strlen(s) : 0;

	if (len == 0 || len > MESSAGE_ID_MAX || !strchr(s, '@'))
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s >= 0x7f || *s == '<' || *s == '>')
			return 0;
	return 1;
}

/* --- cleaning text from Bugzilla ------------------------------------------- */

/* A header-safe copy of text (g_free it): valid UTF-8, control characters
 * (C0, DEL, C1, line and paragraph separators) and runs of white space
 * folded into one space, format characters (bidi overrides, zero-width
 * characters) dropped, trimmed, at most max_chars characters ("…" marks a
 * cut). */
static char *header_clean(const char *text, size_t max_chars)
{
	char *valid = g_utf8_make_valid(text ? text : "", -1);
	GString *out = g_string_sized_new(strlen(valid) + 1);
	size_t chars = 0;
	int space = 0;

	for (const char *p = valid; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (c == ' ' || c == '\t' || text_is_control_char(c)) {
			space = out->len > 0;
			continue;
		}
		if (text_is_format_char(c))
			continue;
		if (chars + (space ? 1 : 0) + 1 > max_chars) {
			g_string_append(out, "\xe2\x80\xa6"); /* … */
			break;
		}
		if (space) {
			g_string_append_c(out, ' ');
			chars++;
			space = 0;
		}
		g_string_append_unichar(out, c);
		chars++;
	}
	g_free(valid);
	return g_string_free(out, FALSE);
}

/* A body-safe copy of text (g_free it): valid UTF-8 with LF line ends. */
static char *body_clean(const char *text)
{
	char *valid = g_utf8_make_valid(text ? text : "", -1);
	char *w = valid;

	for (const char *r = valid; *r; r++) {
		if (*r == '\r') {
			*w++ = '\n';
			if (r[1] == '\n')
				r++;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return valid;
}

/* --- building the body ------------------------------------------------------ */

/* The body under construction; the first failure sticks, so the composing
 * code can add line after line and check once. */
struct body {
	struct buf b;
	enum bb_status status;
};

__attribute__((format(printf, 2, 3)))
static void body_addf(struct body *body, const char *fmt, ...)
{
	va_list ap;

	if (body->status)
		return;
	va_start(ap, fmt);
	body->status = buf_vaddf(&body->b, fmt, ap);
	va_end(ap);
}

static void body_adds(struct body *body, const char *s)
{
	if (!body->status)
		body->status = buf_addstr(&body->b, s);
}

/* Adds text (cleaned) so that it ends with exactly one newline; prefix goes
 * before every line (for quoting). */
static void body_add_text(struct body *body, const char *text, const char *prefix)
{
	char *clean = body_clean(text);
	size_t len = strlen(clean);
	const char *line = clean;

	while (len > 0 && clean[len - 1] == '\n')
		clean[--len] = '\0';
	while (line) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		body_addf(body, "%s%s\n", *line ? prefix : "", line);
		line = nl ? nl + 1 : NULL;
	}
	g_free(clean);
}

/* Adds "<indent><label padded to width> value" on one line (value cleaned)
 * if value is not empty. */
static void body_add_labelled(struct body *body, const char *indent, int width,
			      const char *label, const char *value)
{
	char *clean;

	if (!value || !*value)
		return;
	clean = header_clean(value, 1000);
	if (*clean)
		body_addf(body, "%s%-*s %s\n", indent, width, label, clean);
	g_free(clean);
}

/* A field of the bug's header block. */
static void body_add_field(struct body *body, const char *label, const char *value)
{
	body_add_labelled(body, "", 12, label, value);
}

/* How a person is named in a mail: the real name, with the address only if
 * addresses are shown; without a name, the address (shown) or its local
 * part (not shown).  g_free() the result. */
static char *person_name(const struct bz_user *u, int show_addresses)
{
	const char *login = u && u->login ? u->login : "";
	char *name = header_clean(u && u->real_name ? u->real_name : "", 200);
	char *addr = header_clean(login, 200), *out;

	if (*name && show_addresses && *addr)
		out = g_strdup_printf("%s <%s>", name, addr);
	else if (*name)
		out = g_strdup(name);
	else if (show_addresses && *addr)
		out = g_strdup(addr);
	else if (*addr)
		out = g_strndup(addr, strcspn(addr, "@"));
	else
		out = g_strdup("Someone");
	g_free(name);
	g_free(addr);
	return out;
}

static char *bug_url(const struct mail_options *opt, long long bug_id)
{
	const char *base = opt->bug_url_base ? opt->bug_url_base : "";
	size_t len = strlen(base);

	while (len > 0 && base[len - 1] == '/')
		len--;
	return g_strdup_printf("%.*s/show_bug.cgi?id=%lld", (int)len, base, bug_id);
}

static void add_header_block(struct body *body, const struct mail_options *opt,
			     const struct bz_bug *bug, const char *url)
{
	char *reporter = person_name(&bug->creator, opt->show_addresses);
	const char *kernel = bz_bug_field(bug, opt->kernel_field && *opt->kernel_field
						       ? opt->kernel_field : "cf_kernel_version");
	const char *regression = bz_bug_field(bug, "cf_regression");
	GString *status = g_string_new(bug->status ? bug->status : "");
	GString *keywords = g_string_new("");

	if (bug->resolution && *bug->resolution)
		g_string_append_printf(status, " %s", bug->resolution);
	if (bug->dupe_of > 0)
		g_string_append_printf(status, " (duplicate of bug %lld)", bug->dupe_of);
	for (char **k = bug->keywords; k && *k; k++)
		g_string_append_printf(keywords, "%s%s", keywords->len ? ", " : "", *k);

	body_add_field(body, "Bug URL:", url);
	body_add_field(body, "Product:", bug->product);
	body_add_field(body, "Component:", bug->component);
	body_add_field(body, "Reporter:", reporter);
	body_add_field(body, "Status:", status->str);
	body_add_field(body, "Severity:", bug->severity);
	if (bug->version && strcmp(bug->version, "unspecified") != 0)
		body_add_field(body, "Version:", bug->version);
	if (kernel && strcmp(kernel, "unspecified") != 0)
		body_add_field(body, "Kernel:", kernel);
	if (regression && !g_ascii_strcasecmp(regression, "Yes"))
		body_add_field(body, "Regression:", "yes");
	body_add_field(body, "Keywords:", keywords->str);
	body_adds(body, "\n");
	g_string_free(status, TRUE);
	g_string_free(keywords, TRUE);
	g_free(reporter);
}

/* Adds "  label value" (value cleaned) to an attachment's block if value is
 * not empty. */
static void attachment_line(struct body *body, const char *label, const char *value)
{
	body_add_labelled(body, "  ", 8, label, value);
}

static void add_attachment(struct body *body, const struct mail_attachment *a)
{
	const struct bz_attachment *att = a->att;
	char *name = header_clean(att && *att->file_name ? att->file_name : "(no name)", 250);
	char *summary = header_clean(att ? att->summary : "", 250);
	char size[32];

	if (att)
		body_addf(body, "Attachment %lld: %s\n", att->id, name);
	else
		body_addf(body, "Attachment: %s\n", name);
	if (*summary && strcmp(summary, name) != 0)
		body_addf(body, "  %s\n", summary);
	if (att) {
		format_size(att->size, size, sizeof(size));
		if (att->size >= 1024)
			body_addf(body, "  Size:    %s (%llu bytes)\n", size,
				  (unsigned long long)att->size);
		else
			body_addf(body, "  Size:    %s\n", size);
	}
	if (a->detected_type && *a->detected_type) {
		char *detected = header_clean(a->detected_type, 100);
		char *declared = header_clean(att ? att->content_type : "", 100);

		if (*declared && g_ascii_strcasecmp(declared, detected) != 0)
			body_addf(body, "  Type:    %s (declared: %s)\n", detected, declared);
		else
			body_addf(body, "  Type:    %s\n", detected);
		g_free(detected);
		g_free(declared);
	} else if (att && *att->content_type) {
		char *declared = header_clean(att->content_type, 100);

		body_addf(body, "  Type:    %s (declared)\n", declared);
		g_free(declared);
	}
	if (att && (att->is_patch || att->is_obsolete))
		body_addf(body, "  Flags:   %s%s%s\n", att->is_patch ? "patch" : "",
			  att->is_patch && att->is_obsolete ? ", " : "",
			  att->is_obsolete ? "obsolete" : "");
	if (a->hash && *a->hash) {
		char *hash = g_strdup_printf("sha256:%s", a->hash);

		attachment_line(body, "Hash:", hash);
		g_free(hash);
	}
	attachment_line(body, "URL:", a->url);
	attachment_line(body, "Archive:", a->archive_summary);
	attachment_line(body, "Note:", a->note);
	if (a->inline_text && *a->inline_text) {
		body_adds(body, "\n");
		body_add_text(body, a->inline_text, "    ");
	}
	body_adds(body, "\n");
	g_free(name);
	g_free(summary);
}

static void add_changes(struct body *body, const struct mail_change *changes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *field = header_clean(changes[i].field, 100);
		char *before = header_clean(changes[i].before, 300);
		char *after = header_clean(changes[i].after, 300);

		body_addf(body, "%s: %s \xe2\x86\x92 %s\n", field, *before ? before : "(none)",
			  *after ? after : "(none)");
		g_free(field);
		g_free(before);
		g_free(after);
	}
	if (n)
		body_adds(body, "\n");
}

static void add_footer(struct body *body, const struct mail_options *opt, const char *url)
{
	body_adds(body, "-- \n");
	body_addf(body, "You are receiving this mail because the bug is mirrored from %s.\n", url);
	/* what becomes of a reply is what the reader needs to know before
	 * writing one: the footer must not promise privacy the bridge breaks */
	if (opt->replies_posted)
		body_adds(body, "Replies on the list are posted to the bug as comments, "
			  "with your name and a link to the archived mail.\n");
	else
		body_adds(body, "To comment, use the bug's page; replies on the list stay on the list.\n");
	if (opt->footer && *opt->footer) {
		char *footer = header_clean(opt->footer, 500);

		body_addf(body, "%s\n", footer);
		g_free(footer);
	}
}

/* --- the message ------------------------------------------------------------ */

/* The thread's subject from the configured format (g_free it). */
static char *make_subject(const struct mail_options *opt, const struct bz_bug *bug, int reply)
{
	const char *fmt = opt->subject && *opt->subject ? opt->subject : "[Bug {id}] {summary}";
	char *summary = header_clean(bug->summary, 250);
	GString *s = g_string_new(reply ? "Re: " : "");
	char *out;

	for (const char *p = fmt; *p;) {
		if (!strncmp(p, "{id}", 4)) {
			g_string_append_printf(s, "%lld", bug->id);
			p += 4;
		} else if (!strncmp(p, "{summary}", 9)) {
			g_string_append(s, summary);
			p += 9;
		} else {
			g_string_append_c(s, *p++);
		}
	}
	out = header_clean(s->str, HEADER_VALUE_MAX);
	g_string_free(s, TRUE);
	g_free(summary);
	return out;
}

/* 1 if text holds what a reader could take for an RFC 2047 encoded word
 * ("=?" and later "?="): GMime writes such ASCII as it is, so a summary
 * quoting one would be shown decoded. */
static int looks_encoded(const char *text)
{
	const char *open = strstr(text, "=?");

	return open && strstr(open + 2, "?=") != NULL;
}

/* text as a raw Subject value of UTF-8 B words, one per line, so that it
 * decodes to exactly text, "=?" and all (g_free it).  Each word but the
 * last holds a multiple of 3 bytes where a character boundary allows, so
 * it has no '=' padding (GMime 3.2.13 stops decoding at one when another
 * word follows), and whole characters only (RFC 2047). */
static char *encode_literal(const char *text)
{
	enum { WORD_BYTES = 39 };   /* 52 base64 characters: a 73-column line */
	GString *raw = g_string_new("");
	const char *p = text, *end = text + strlen(text);

	while (p < end) {
		const char *cut = p, *aligned = NULL, *q = p;
		char *b64;

		while (q < end) {
			const char *next = g_utf8_next_char(q);

			if (next - p > WORD_BYTES)
				break;
			q = cut = next;
			if ((cut - p) % 3 == 0)
				aligned = cut;
		}
		if (cut == p)   /* cannot happen with valid UTF-8; never loop */
			cut = g_utf8_next_char(p);
		if (cut < end && aligned)
			cut = aligned;
		b64 = g_base64_encode((const guchar *)p, (gsize)(cut - p));
		g_string_append_printf(raw, "%s=?UTF-8?B?%s?=", raw->len ? "\n " : " ", b64);
		g_free(b64);
		p = cut;
	}
	g_string_append_c(raw, '\n');
	return g_string_free(raw, FALSE);
}

/* Sets the Subject so that it reads back as subject. */
static void set_subject(GMimeMessage *msg, const char *subject)
{
	g_mime_message_set_subject(msg, subject, "utf-8");
	if (looks_encoded(subject)) {
		GMimeHeaderList *headers = g_mime_object_get_header_list(GMIME_OBJECT(msg));
		GMimeHeader *header = g_mime_header_list_get_header(headers, "Subject");
		char *raw = encode_literal(subject);

		if (header)
			g_mime_header_set_raw_value(header, raw);
		g_free(raw);
	}
}

/* Makes GMime encode the display names of list as UTF-8 (it would pick
 * ISO-8859-1 where that suffices). */
static void addresses_utf8(InternetAddressList *list)
{
	int n = internet_address_list_length(list);

	for (int i = 0; i < n; i++)
		internet_address_set_charset(internet_address_list_get_address(list, i), "utf-8");
}

/* Appends the addresses in list to the message's header of the given type. */
static enum bb_status add_addresses(GMimeMessage *msg, GMimeAddressType type,
				    char *const *list, size_t *count, struct bb_error *err)
{
	InternetAddressList *dest = g_mime_message_get_addresses(msg, type);

	for (; list && *list; list++) {
		char *clean = header_clean(*list, 500);
		InternetAddressList *parsed = internet_address_list_parse(NULL, clean);
		int n = parsed ? internet_address_list_length(parsed) : 0;

		if (n > 0) {
			addresses_utf8(parsed);
			internet_address_list_append(dest, parsed);
		}
		if (parsed)
			g_object_unref(parsed);
		if (n <= 0) {
			bb_error_set(err, BB_ERR_INVALID, "cannot parse the mail address \"%s\"", clean);
			g_free(clean);
			return BB_ERR_INVALID;
		}
		*count += (size_t)n;
		g_free(clean);
	}
	return BB_OK;
}

static void set_text_header(GMimeMessage *msg, const char *name, const char *value)
{
	char *clean = header_clean(value, HEADER_VALUE_MAX);

	if (*clean)
		g_mime_object_set_header(GMIME_OBJECT(msg), name, clean, "utf-8");
	g_free(clean);
}

/* The transfer encoding for body: quoted-printable only when a line is too
 * long for SMTP, else 8bit (or 7bit for pure ASCII).  GMime's own choice
 * would also pick quoted-printable for any line starting with "From ",
 * common in quoted mail, and turn every "=" of a URL into "=3D" for
 * readers of the raw text; mbox writers quote such lines anyway. */
static GMimeContentEncoding body_encoding(const char *body, size_t len)
{
	size_t line = 0;
	int eight_bit = 0;

	for (size_t i = 0; i < len; i++) {
		if (body[i] == '\n') {
			line = 0;
			continue;
		}
		if (++line > LINE_MAX_BYTES)
			return GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE;
		if ((unsigned char)body[i] >= 0x80)
			eight_bit = 1;
	}
	return eight_bit ? GMIME_CONTENT_ENCODING_8BIT : GMIME_CONTENT_ENCODING_7BIT;
}

/* Makes the text/plain part holding body (UTF-8, LF line ends). */
static GMimeObject *make_text_part(const char *body, size_t len)
{
	GMimeTextPart *part = g_mime_text_part_new_with_subtype("plain");
	GMimeStream *stream = g_mime_stream_mem_new_with_buffer(body, len);
	GMimeDataWrapper *content =
		g_mime_data_wrapper_new_with_stream(stream, GMIME_CONTENT_ENCODING_DEFAULT);

	g_mime_part_set_content(GMIME_PART(part), content);
	g_object_unref(content);
	g_object_unref(stream);
	g_mime_text_part_set_charset(part, "utf-8");
	g_mime_part_set_content_encoding(GMIME_PART(part), body_encoding(body, len));
	return GMIME_OBJECT(part);
}

/* What one mail consists of, gathered by the two public composers. */
struct mail_parts {
	char *message_id;          /* malloc */
	char *subject;             /* g_malloc */
	time_t date;
	const char *in_reply_to;
	char *const *references;
	char *const *to, *const *cc;
	struct body body;
};

static enum bb_status check_options(const struct mail_options *opt, struct bb_error *err)
{
	if (!opt || !opt->domain || !*opt->domain)
		return bb_error_set(err, BB_ERR_CONFIG, "mail: no Message-ID domain configured");
	for (const char *p = opt->domain; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || strchr("<>@()[],;:\\\"", *p))
			return bb_error_set(err, BB_ERR_CONFIG,
					    "mail: the Message-ID domain \"%s\" is not a domain",
					    opt->domain);
	if (!opt->from || strlen(opt->from) < 3)
		return bb_error_set(err, BB_ERR_CONFIG, "mail: no From address configured");
	return BB_OK;
}

/* 1 if no line of text (LF line ends) is longer than SMTP allows. */
static int lines_fit(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n > LINE_MAX_BYTES)
			return 0;
		p = nl ? nl + 1 : end;
	}
	return 1;
}

static enum bb_status build_message(const struct mail_options *opt, const struct bz_bug *bug,
				    struct mail_parts *mp, struct mail_message *out,
				    struct bb_error *err)
{
	GMimeMessage *msg = NULL;
	InternetAddressList *from = NULL;
	GMimeFormatOptions *format = NULL;
	GDateTime *date = NULL;
	GString *refs = NULL;
	char *from_clean = NULL, *text = NULL, *parent = NULL, *loop = NULL;
	size_t recipients = 0, len;
	enum bb_status s = BB_OK;

	if (mp->body.status) {
		s = bb_error_set(err, mp->body.status, "mail: composing the body failed: %s",
				 status_str(mp->body.status));
		goto out;
	}
	msg = g_mime_message_new(TRUE);

	from_clean = header_clean(opt->from, 500);
	from = internet_address_list_parse(NULL, from_clean);
	if (!from || internet_address_list_length(from) != 1) {
		s = bb_error_set(err, BB_ERR_CONFIG, "mail: cannot use \"%s\" as the From address",
				 from_clean);
		goto out;
	}
	addresses_utf8(from);
	internet_address_list_append(g_mime_message_get_from(msg), from);
	s = add_addresses(msg, GMIME_ADDRESS_TYPE_TO, mp->to, &recipients, err);
	if (!s)
		s = add_addresses(msg, GMIME_ADDRESS_TYPE_CC, mp->cc, &recipients, err);
	if (s)
		goto out;
	if (recipients == 0) {
		s = bb_error_set(err, BB_ERR_INVALID, "mail: no recipients for bug %lld", bug->id);
		goto out;
	}

	set_subject(msg, mp->subject);
	date = g_date_time_new_from_unix_utc(mp->date);
	if (!date) {
		s = bb_error_set(err, BB_ERR_INVALID, "mail: unusable date %lld",
				 (long long)mp->date);
		goto out;
	}
	g_mime_message_set_date(msg, date);
	g_mime_message_set_message_id(msg, mp->message_id);

	if (mp->in_reply_to) {
		if (!message_id_ok(mp->in_reply_to)) {
			s = bb_error_set(err, BB_ERR_INVALID, "mail: unusable In-Reply-To \"%s\"",
					 mp->in_reply_to);
			goto out;
		}
		refs = g_string_new("");
		for (char *const *r = mp->references; r && *r; r++) {
			/* The parent goes last; malformed ids are left out rather
			 * than breaking the header. */
			if (message_id_ok(*r) && strcmp(*r, mp->in_reply_to) != 0)
				g_string_append_printf(refs, "%s<%s>", refs->len ? " " : "", *r);
		}
		g_string_append_printf(refs, "%s<%s>", refs->len ? " " : "", mp->in_reply_to);
		parent = g_strdup_printf("<%s>", mp->in_reply_to);
		g_mime_object_set_header(GMIME_OBJECT(msg), "In-Reply-To", parent, NULL);
		g_mime_object_set_header(GMIME_OBJECT(msg), "References", refs->str, NULL);
	}
	g_mime_object_set_header(GMIME_OBJECT(msg), "MIME-Version", "1.0", NULL);
	set_text_header(msg, "X-Bugzilla-Product", bug->product);
	set_text_header(msg, "X-Bugzilla-Component", bug->component);
	set_text_header(msg, "X-Bugzilla-Status", bug->status);
	set_text_header(msg, "X-Bugzilla-Resolution", bug->resolution);
	g_mime_object_set_header(GMIME_OBJECT(msg), "Auto-Submitted", "auto-generated", NULL);
	loop = header_clean(opt->domain, HEADER_VALUE_MAX);
	g_mime_object_set_header(GMIME_OBJECT(msg), MAIL_LOOP_HEADER, loop, NULL);
	if (opt->mark_key) {
		char mark[MAIL_MARK_HEX_LEN + 1];

		if (mail_mark(opt->mark_key, mp->message_id, mark)) {
			s = bb_error_set(err, BB_ERR_INTERNAL, "mail: libcrypto made no mark");
			goto out;
		}
		g_mime_object_set_header(GMIME_OBJECT(msg), MAIL_MARK_HEADER, mark, NULL);
	}

	{
		GMimeObject *part = make_text_part(mp->body.b.data, mp->body.b.len);

		g_mime_message_set_mime_part(msg, part);
		g_object_unref(part);
	}

	format = g_mime_format_options_new();
	g_mime_format_options_set_newline_format(format, GMIME_NEWLINE_FORMAT_UNIX);
	text = g_mime_object_to_string(GMIME_OBJECT(msg), format);
	len = text ? strlen(text) : 0;
	if (!len || !lines_fit(text, len) || memchr(text, '\r', len)) {
		s = bb_error_set(err, BB_ERR_INTERNAL,
				 "mail: the composed mail for bug %lld is not fit to send", bug->id);
		goto out;
	}
	{
		struct buf b = BUF_INIT;

		s = buf_add(&b, text, len);
		if (!s && text[len - 1] != '\n')
			s = buf_addch(&b, '\n');
		if (s) {
			buf_release(&b);
			bb_error_set(err, s, "mail: out of memory");
			goto out;
		}
		out->text = buf_detach(&b, &out->len);
	}
	out->message_id = mp->message_id;
	mp->message_id = NULL;
out:
	g_free(text);
	g_free(parent);
	g_free(loop);
	g_free(from_clean);
	if (refs)
		g_string_free(refs, TRUE);
	if (date)
		g_date_time_unref(date);
	if (format)
		g_mime_format_options_free(format);
	if (from)
		g_object_unref(from);
	if (msg)
		g_object_unref(msg);
	return s;
}

static void parts_release(struct mail_parts *mp)
{
	free(mp->message_id);
	g_free(mp->subject);
	buf_release(&mp->body.b);
}

enum bb_status mail_compose_comment(const struct mail_options *opt, const struct bz_bug *bug,
				    const struct bz_comment *comment,
				    const struct mail_attachment *atts, size_t natts,
				    const struct mail_change *changes, size_t nchanges,
				    char *const *to, char *const *cc,
				    const char *in_reply_to, char *const *references,
				    const char *route_note,
				    struct mail_message *out, struct bb_error *err)
{
	struct mail_parts mp = { .body.b = BUF_INIT };
	int count = comment ? comment->count : 0;
	char *url = NULL;
	enum bb_status s;

	memset(out, 0, sizeof(*out));
	mail_init();
	s = check_options(opt, err);
	if (s)
		goto out;
	mp.message_id = mail_message_id(opt->domain, bug->id, count);
	if (!mp.message_id || !message_id_ok(mp.message_id)) {
		s = bb_error_set(err, mp.message_id ? BB_ERR_CONFIG : BB_ERR_NOMEM,
				 "mail: cannot make a Message-ID under \"%s\"", opt->domain);
		goto out;
	}
	mp.subject = make_subject(opt, bug, count > 0);
	mp.date = comment && comment->time > 0 ? comment->time
		: bug->creation_time > 0 ? bug->creation_time : time(NULL);
	mp.in_reply_to = in_reply_to;
	mp.references = references;
	mp.to = to;
	mp.cc = cc;
	url = bug_url(opt, bug->id);

	if (count == 0) {
		add_header_block(&mp.body, opt, bug, url);
		if (comment && comment->text && *comment->text)
			body_add_text(&mp.body, comment->text, "");
		else
			body_adds(&mp.body, "(no description)\n");
	} else {
		char *author = person_name(&comment->author, opt->show_addresses);

		body_addf(&mp.body, "%s commented (comment #%d):\n\n", author, count);
		body_add_text(&mp.body, comment->text, "");
		g_free(author);
	}
	body_adds(&mp.body, "\n");
	for (size_t i = 0; i < natts; i++)
		add_attachment(&mp.body, &atts[i]);
	add_changes(&mp.body, changes, nchanges);
	if (route_note && *route_note) {
		body_add_text(&mp.body, route_note, "");
		body_adds(&mp.body, "\n");
	}
	add_footer(&mp.body, opt, url);
	s = build_message(opt, bug, &mp, out, err);
out:
	g_free(url);
	parts_release(&mp);
	if (s)
		mail_message_release(out);
	return s;
}

/* What the replies that are not comments share: a Message-ID made by
 * make_id, a "Re:" subject, the thread, the body that fill writes, the
 * footer. */
struct reply_spec {
	char *message_id;        /* malloc'd, taken over */
	time_t date;
	const char *in_reply_to;
	char *const *to, *const *cc;
};

static enum bb_status compose_reply(const struct mail_options *opt, const struct bz_bug *bug,
				    struct reply_spec *spec,
				    void (*fill)(struct body *body, const void *ctx), const void *ctx,
				    struct mail_message *out, struct bb_error *err)
{
	struct mail_parts mp = { .body.b = BUF_INIT };
	char *url = NULL;
	enum bb_status s;

	memset(out, 0, sizeof(*out));
	mail_init();
	mp.message_id = spec->message_id;
	spec->message_id = NULL;
	if ((s = check_options(opt, err)))
		goto out;
	if (!mp.message_id || !message_id_ok(mp.message_id)) {
		s = bb_error_set(err, mp.message_id ? BB_ERR_CONFIG : BB_ERR_NOMEM,
				 "mail: cannot make a Message-ID under \"%s\"", opt->domain);
		goto out;
	}
	mp.date = spec->date;
	mp.in_reply_to = spec->in_reply_to;
	mp.to = spec->to;
	mp.cc = spec->cc;
	fill(&mp.body, ctx);
	if (bug->id > 0) {
		mp.subject = make_subject(opt, bug, spec->in_reply_to != NULL);
		url = bug_url(opt, bug->id);
		add_footer(&mp.body, opt, url);
	} else {
		/* an answer in a thread that is no bug: a subject of the
		 * bridge's own, not the sender's words sent on to the list */
		mp.subject = g_strdup(MAIL_NOTICE_SUBJECT);
		body_adds(&mp.body, "-- \nbugbridge, mirroring Bugzilla bugs to this list\n");
	}
	s = build_message(opt, bug, &mp, out, err);
out:
	g_free(url);
	parts_release(&mp);
	if (s)
		mail_message_release(out);
	return s;
}

/* The backlog summary: a comment's text as the summary quotes it, at most
 * BACKLOG_LINES lines and BACKLOG_BYTES bytes (cut at a character). */
#define BACKLOG_LINES 12
#define BACKLOG_BYTES 1200

static void add_backlog_text(struct body *body, const char *text)
{
	const char *p = text ? text : "";
	size_t len = 0, lines = 0, total = strlen(p);
	char *cut;

	while (len < total && lines < BACKLOG_LINES && len < BACKLOG_BYTES) {
		const char *nl = memchr(p + len, '\n', total - len);

		len = nl ? (size_t)(nl - p) + 1 : total;
		lines++;
	}
	if (len > BACKLOG_BYTES) {
		len = BACKLOG_BYTES;
		while (len && ((unsigned char)p[len] & 0xc0) == 0x80)
			len--;
	}
	while (len && (p[len - 1] == '\n' || p[len - 1] == ' '))
		len--;
	cut = g_strndup(p, len);
	body_add_text(body, *cut ? cut : "(no text)", "  ");
	if (len < total && strspn(p + len, " \n") < total - len)
		body_adds(body, "  [...]\n");
	g_free(cut);
}

struct backlog_body {
	const struct mail_options *opt;
	long long bug_id;
	const char *url;
	const struct bz_comment *const *comments;
	size_t ncomments;
	const struct mail_attachment *atts;
	size_t natts;
};

/* The backlog's comments, each with its author, date, start and link. */
static void add_backlog_comments(struct body *body, const struct backlog_body *b)
{
	for (size_t i = 0; i < b->ncomments; i++) {
		const struct bz_comment *c = b->comments[i];
		char *author = person_name(&c->author, b->opt->show_addresses);
		GDateTime *when = g_date_time_new_from_unix_utc(c->time > 0 ? c->time : 0);
		char *date = when ? g_date_time_format(when, "%Y-%m-%d %H:%M UTC") : NULL;

		body_addf(body, "Comment #%d by %s, %s:\n", c->count, author,
			  date ? date : "(no date)");
		add_backlog_text(body, c->text);
		body_addf(body, "  %s#c%d\n\n", b->url, c->count);
		g_free(date);
		if (when)
			g_date_time_unref(when);
		g_free(author);
	}
}

static void fill_backlog(struct body *body, const void *ctx)
{
	const struct backlog_body *b = ctx;

	body_addf(body, "Bug %lld had %zu public comment%s before it came to this list.\n"
		  "%s in one mail, each cut to its start; the whole text is on the\n"
		  "bug's page.\n\n", b->bug_id, b->ncomments, b->ncomments == 1 ? "" : "s",
		  b->ncomments == 1 ? "Here it is" : "Here they are");
	add_backlog_comments(body, b);
	for (size_t i = 0; i < b->natts; i++)
		add_attachment(body, &b->atts[i]);
}

enum bb_status mail_compose_backlog(const struct mail_options *opt, const struct bz_bug *bug,
				    const struct bz_comment *const *comments, size_t ncomments,
				    const struct mail_attachment *atts, size_t natts,
				    char *const *to, char *const *cc, const char *in_reply_to,
				    struct mail_message *out, struct bb_error *err)
{
	char *url;
	struct backlog_body b = { opt, bug->id, NULL, comments, ncomments, atts, natts };
	struct reply_spec spec = { NULL, 0, in_reply_to, to, cc };
	enum bb_status s;

	memset(out, 0, sizeof(*out));
	if (!ncomments)
		return bb_error_set(err, BB_ERR_INVALID, "mail: an empty backlog for bug %lld",
				    bug->id);
	if (!opt || !opt->domain)
		return check_options(opt, err);
	url = bug_url(opt, bug->id);
	b.url = url;
	spec.message_id = mail_backlog_message_id(opt->domain, bug->id, comments[0]->count);
	spec.date = comments[ncomments - 1]->time > 0 ? comments[ncomments - 1]->time : time(NULL);
	s = compose_reply(opt, bug, &spec, fill_backlog, &b, out, err);
	g_free(url);
	return s;
}

struct handover_body {
	const char *text;
	const struct bz_comment *report;
	struct backlog_body b;
};

static void fill_handover(struct body *body, const void *ctx)
{
	const struct handover_body *h = ctx;

	body_add_text(body, h->text, "");
	if (h->report) {
		char *author = person_name(&h->report->author, h->b.opt->show_addresses);

		body_addf(body, "\nThe report, by %s:\n\n", author);
		body_add_text(body, h->report->text && *h->report->text ? h->report->text
			      : "(no text)", "  ");
		g_free(author);
	}
	if (h->b.ncomments) {
		body_addf(body, "\nIts %zu public comment%s, each cut to its start; the whole\n"
			  "text is on the bug's page:\n\n", h->b.ncomments,
			  h->b.ncomments == 1 ? "" : "s");
		add_backlog_comments(body, &h->b);
	}
	body_adds(body, "\n");
}

enum bb_status mail_compose_handover(const struct mail_options *opt, const struct bz_bug *bug,
				     long long seq, const char *text,
				     const struct bz_comment *report,
				     const struct bz_comment *const *comments, size_t ncomments,
				     char *const *to, char *const *cc,
				     struct mail_message *out, struct bb_error *err)
{
	struct handover_body h = { text, report, { opt, bug->id, NULL, comments, ncomments,
						    NULL, 0 } };
	struct reply_spec spec = { NULL, time(NULL), NULL, to, cc };
	enum bb_status s;

	memset(out, 0, sizeof(*out));
	if (!opt || !opt->domain)
		return check_options(opt, err);
	h.b.url = bug_url(opt, bug->id);
	spec.message_id = mail_notice_message_id(opt->domain, bug->id, seq);
	s = compose_reply(opt, bug, &spec, fill_handover, &h, out, err);
	g_free((char *)h.b.url);
	return s;
}

struct changes_body {
	long long bug_id;
	const struct mail_change *changes;
	size_t nchanges;
	const char *route_note;
};

static void fill_changes(struct body *body, const void *ctx)
{
	const struct changes_body *c = ctx;

	body_addf(body, "Bug %lld was changed:\n\n", c->bug_id);
	add_changes(body, c->changes, c->nchanges);
	if (c->route_note && *c->route_note) {
		body_add_text(body, c->route_note, "");
		body_adds(body, "\n");
	}
}

enum bb_status mail_compose_changes(const struct mail_options *opt, const struct bz_bug *bug,
				    long long seq, const struct mail_change *changes,
				    size_t nchanges, char *const *to, char *const *cc,
				    const char *in_reply_to, const char *route_note,
				    struct mail_message *out, struct bb_error *err)
{
	struct changes_body c = { bug->id, changes, nchanges, route_note };
	struct reply_spec spec = {
		opt && opt->domain ? mail_changes_message_id(opt->domain, bug->id, seq) : NULL,
		bug->last_change_time > 0 ? bug->last_change_time
			: bug->creation_time > 0 ? bug->creation_time : time(NULL),
		in_reply_to, to, cc,
	};

	return compose_reply(opt, bug, &spec, fill_changes, &c, out, err);
}

struct attachment_body {
	long long bug_id;
	const struct mail_attachment *att;
};

static void fill_attachment(struct body *body, const void *ctx)
{
	const struct attachment_body *a = ctx;

	body_addf(body, "An attachment of bug %lld that could not be stored when it was "
		  "announced is stored now:\n\n", a->bug_id);
	add_attachment(body, a->att);
}

enum bb_status mail_compose_attachment(const struct mail_options *opt, const struct bz_bug *bug,
				       const struct mail_attachment *att, char *const *to,
				       char *const *cc, const char *in_reply_to,
				       struct mail_message *out, struct bb_error *err)
{
	struct attachment_body a = { bug->id, att };
	struct reply_spec spec = {
		opt && opt->domain ? mail_attachment_message_id(opt->domain, bug->id, att->att->id)
				   : NULL,
		time(NULL), in_reply_to, to, cc,
	};

	return compose_reply(opt, bug, &spec, fill_attachment, &a, out, err);
}

struct notice_body {
	const char *text;
	int help;
};

const char mail_commands_help[] =
	"  #bugbridge close [RESOLUTION]   #bugbridge close DUPLICATE <bug>\n"
	"  #bugbridge reopen\n"
	"  #bugbridge reassign <product>/<component>, <component> or <section>\n"
	"  #bugbridge assign <address|me>  #bugbridge title <text>\n"
	"  #bugbridge priority <value>     #bugbridge severity <value>\n"
	"  #bugbridge stop                 #bugbridge track (in a thread that is no bug yet)\n"
	"  #bugbridge needinfo [reporter|<address>] <question>\n"
	"  #bugbridge subscribe            #bugbridge unsubscribe (or uncc)\n"
	"  #bugbridge no-reminders\n"
	"In a reply to a digest: #bugbridge <entry> <command>\n";

static void fill_notice(struct body *body, const void *ctx)
{
	const struct notice_body *n = ctx;

	body_add_text(body, n->text, "");
	if (n->help) {
		body_adds(body, "\nCommands, each on a line of its own outside quoted text:\n");
		body_adds(body, mail_commands_help);
	}
	body_adds(body, "\n");
}

enum bb_status mail_compose_notice(const struct mail_options *opt, const struct bz_bug *bug,
				   long long seq, const char *text, int help, char *const *to,
				   char *const *cc, const char *in_reply_to,
				   struct mail_message *out, struct bb_error *err)
{
	struct notice_body n = { text, help };
	struct reply_spec spec = {
		opt && opt->domain ? mail_notice_message_id(opt->domain, bug->id, seq) : NULL,
		time(NULL), in_reply_to, to, cc,
	};

	return compose_reply(opt, bug, &spec, fill_notice, &n, out, err);
}

void mail_message_release(struct mail_message *m)
{
	if (!m)
		return;
	free(m->message_id);
	free(m->text);
	m->message_id = NULL;
	m->text = NULL;
	m->len = 0;
}
