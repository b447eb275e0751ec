/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for mail/mail.c: Message-IDs, and composed mail parsed back
 * with GMime (headers, encodings, injection, bodies, line lengths). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <gmime/gmime.h>

#include "mail/mail.h"
#include "tests/unit/tap.h"

/* The bug model has char * fields; the tests fill them with literals. */
#define W(s) ((char *)(s))

#define DOMAIN "bugbridge.example.org"
#define HASH "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define T_CREATED 1764748915  /* 2025-12-03T08:01:55Z */
#define T_COMMENT 1764752400  /* 2025-12-03T09:00:00Z */

static char *keywords[] = { W("regression"), NULL };
static char *no_groups[] = { NULL };
static struct bz_field fields[] = { { W("cf_kernel_version"), W("6.6.1-arch1") } };

static void sample_bug(struct bz_bug *bug, const char *summary)
{
	memset(bug, 0, sizeof(*bug));
	bug->id = 219000;
	bug->summary = (char *)summary;
	bug->product = W("Drivers");
	bug->component = W("Network");
	bug->status = W("NEW");
	bug->resolution = W("");
	bug->severity = W("high");
	bug->priority = W("P1");
	bug->version = W("6.6");
	bug->url = W("");
	bug->creator.login = W("jane@example.com");
	bug->creator.real_name = W("Jane Doe");
	bug->assigned_to.login = W("net@example.org");
	bug->assigned_to.real_name = W("");
	bug->creation_time = T_CREATED;
	bug->last_change_time = T_COMMENT + 60;
	bug->keywords = keywords;
	bug->groups = no_groups;
	bug->cc = no_groups;
	bug->fields = fields;
	bug->nfields = 1;
}

static void sample_options(struct mail_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->domain = DOMAIN;
	opt->from = "bugbridge <bugbridge@example.org>";
	opt->subject = "[Bug {id}] {summary}";
	opt->bug_url_base = "https://bugzilla.kernel.org/";
	opt->footer = "Mirrored by bugbridge for the kernel Bugzilla";
}

static GMimeMessage *parse(const struct mail_message *m)
{
	GMimeStream *stream = g_mime_stream_mem_new_with_buffer(m->text, m->len);
	GMimeParser *parser = g_mime_parser_new_with_stream(stream);
	GMimeMessage *msg = g_mime_parser_construct_message(parser, NULL);

	g_object_unref(parser);
	g_object_unref(stream);
	return msg;
}

/* The decoded body (g_free it), or NULL if it is not one text part. */
static char *body_text(GMimeMessage *msg)
{
	GMimeObject *part = g_mime_message_get_mime_part(msg);

	if (!part || !GMIME_IS_TEXT_PART(part))
		return NULL;
	return g_mime_text_part_get_text(GMIME_TEXT_PART(part));
}

static const char *header(GMimeMessage *msg, const char *name)
{
	return g_mime_object_get_header(GMIME_OBJECT(msg), name);
}

static int count_headers(GMimeMessage *msg, const char *name)
{
	GMimeHeaderList *list = g_mime_object_get_header_list(GMIME_OBJECT(msg));
	int n = 0;

	for (int i = 0; i < g_mime_header_list_get_count(list); i++)
		if (!g_ascii_strcasecmp(g_mime_header_get_name(g_mime_header_list_get_header_at(list, i)), name))
			n++;
	return n;
}

static size_t longest_line(const char *text, size_t len)
{
	size_t longest = 0, cur = 0;

	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n') {
			if (cur > longest)
				longest = cur;
			cur = 0;
		} else {
			cur++;
		}
	}
	return cur > longest ? cur : longest;
}

/* 1 if the header section (up to the first empty line) is plain ASCII. */
static int headers_ascii(const char *text)
{
	const char *end = strstr(text, "\n\n");

	for (const char *p = text; p < (end ? end : text + strlen(text)); p++)
		if ((unsigned char)*p >= 0x80)
			return 0;
	return end != NULL;
}

static void test_message_ids(void)
{
	char *a = mail_message_id(DOMAIN, 42, 0), *b = mail_message_id(DOMAIN, 42, 0);
	char *c = mail_message_id(DOMAIN, 42, -1), *d = mail_message_id(DOMAIN, 42, 3);
	char *e = mail_changes_message_id(DOMAIN, 42, 7);
	long long id = 0;

	is_str(a, "bug-42@" DOMAIN, "first mail's Message-ID");
	is_str(b, a, "Message-IDs are deterministic");
	is_str(c, a, "count < 0 names the first mail too");
	is_str(d, "bug-42-c3@" DOMAIN, "comment Message-ID");
	is_str(e, "bug-42-u7@" DOMAIN, "changes-only Message-ID");
	ok(mail_message_id_parse(DOMAIN, d, &id) && id == 42, "own comment id is recognised");
	id = 0;
	ok(mail_message_id_parse(DOMAIN, "<bug-42@" DOMAIN ">", &id) && id == 42,
	   "own id in angle brackets is recognised");
	ok(mail_message_id_parse(DOMAIN, e, NULL), "own changes id is recognised");
	ok(!mail_message_id_parse(DOMAIN, "bug-42@other.example", NULL), "other domain is not ours");
	ok(!mail_message_id_parse(DOMAIN, "bug-x@" DOMAIN, NULL), "malformed id is not ours");
	ok(!mail_message_id_parse(DOMAIN, "bug-42-z3@" DOMAIN, NULL), "unknown suffix is not ours");
	ok(!mail_message_id_parse(DOMAIN, "bug-42-@" DOMAIN, NULL), "empty suffix is not ours");
	free(a);
	a = mail_attachment_message_id(DOMAIN, 42, 9001);
	is_str(a, "bug-42-a9001@" DOMAIN, "stored-attachment Message-ID");
	id = 0;
	ok(mail_message_id_parse(DOMAIN, a, &id) && id == 42, "own attachment id is recognised");
	ok(!mail_message_id_parse(DOMAIN, "20251203.abc@" DOMAIN, NULL), "foreign local part");
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
}

static void test_first_mail(void)
{
	struct mail_options opt;
	struct bz_bug bug;
	struct bz_comment c0 = { 0 };
	struct bz_attachment att = { 0 }, att2 = { 0 };
	struct mail_attachment ma[2] = { { 0 } };
	struct mail_change changes[] = {
		{ "Status", "NEW", "RESOLVED CODE_FIX" },
		{ "Component", "A", "B" },
	};
	char *to[] = { W("linux-kernel@vger.kernel.org"), W("netdev@vger.kernel.org"), NULL };
	char *cc[] = { W("Jörg Ümlaut <joerg@example.org>"), NULL };
	const char *summary = "Ünïcödé résumé — suspend fails";
	struct mail_message m = { 0 }, again = { 0 };
	struct bb_error err = BB_ERROR_INIT;
	GMimeMessage *msg = NULL;
	InternetAddressList *list;
	GDateTime *date;
	char *body = NULL, *s, *want_id = mail_message_id(DOMAIN, 219000, 0);

	sample_options(&opt);
	sample_bug(&bug, summary);
	c0.id = 1000;
	c0.bug_id = bug.id;
	c0.count = 0;
	c0.author = bug.creator;
	c0.time = T_CREATED;
	c0.text = W("Resume from suspend hangs.\r\nSteps:\r\n1. suspend\r\n");
	att.id = 77;
	att.file_name = W("dmesg-6.6.1.txt");
	att.summary = W("Full dmesg after resume");
	att.content_type = W("application/octet-stream");
	att.size = 12599;
	ma[0].att = &att;
	ma[0].hash = HASH;
	ma[0].url = "https://blobs.example.org/sha256/01/" HASH;
	ma[0].detected_type = "text/plain";
	ma[0].inline_text = "[    0.000000] Linux version 6.6.1\r\n[    1.234567] PM: suspend entry\r\n";
	att2.id = 78;
	att2.file_name = W("firmware.bin");
	att2.summary = W("");
	att2.content_type = W("application/octet-stream");
	att2.size = 300;
	ma[1].att = &att2;
	ma[1].archive_summary = NULL;
	ma[1].note = "download failed, will be retried";

	ok(mail_compose_comment(&opt, &bug, &c0, ma, 2, changes, 2, to, cc, NULL, NULL,
				"Component changed: A \xe2\x86\x92 B; now also sent to netdev",
				&m, &err) == BB_OK, "compose the first mail (%s)", err.message);
	if (!m.text)
		goto out;
	is_str(m.message_id, want_id, "composer uses the deterministic Message-ID");
	ok(m.len == strlen(m.text), "length matches the text");
	ok(m.len > 0 && m.text[m.len - 1] == '\n', "text ends with a newline");
	ok(!memchr(m.text, '\r', m.len), "no CR anywhere: LF line ends");
	ok(longest_line(m.text, m.len) <= 998, "every line is at most 998 bytes");
	ok(headers_ascii(m.text), "headers are plain ASCII (RFC 2047 encoded)");
	ok(strstr(m.text, "=?UTF-8?") || strstr(m.text, "=?utf-8?"), "non-ASCII subject is RFC 2047 encoded");

	ok(mail_compose_comment(&opt, &bug, &c0, ma, 2, changes, 2, to, cc, NULL, NULL,
				"Component changed: A \xe2\x86\x92 B; now also sent to netdev",
				&again, &err) == BB_OK && again.len == m.len &&
	   !memcmp(again.text, m.text, m.len), "composing twice gives the same bytes");

	msg = parse(&m);
	ok(msg != NULL, "GMime parses the mail back");
	if (!msg)
		goto out;
	is_str(g_mime_message_get_message_id(msg), want_id, "Message-ID header");
	is_int(count_headers(msg, "Message-ID"), 1, "exactly one Message-ID header");
	s = g_strdup_printf("[Bug 219000] %s", summary);
	is_str(g_mime_message_get_subject(msg), s, "subject decodes back to the original");
	g_free(s);
	list = g_mime_message_get_from(msg);
	s = internet_address_list_to_string(list, NULL, FALSE);
	is_str(s, "bugbridge <bugbridge@example.org>", "From");
	g_free(s);
	list = g_mime_message_get_to(msg);
	s = internet_address_list_to_string(list, NULL, FALSE);
	is_str(s, "linux-kernel@vger.kernel.org, netdev@vger.kernel.org", "To holds the lists");
	g_free(s);
	list = g_mime_message_get_cc(msg);
	s = internet_address_list_to_string(list, NULL, FALSE);
	is_str(s, "Jörg Ümlaut <joerg@example.org>", "Cc holds the person, name decoded");
	g_free(s);
	date = g_mime_message_get_date(msg);
	ok(date && g_date_time_to_unix(date) == T_CREATED, "Date is the description's time");
	ok(g_str_has_prefix(m.text, "Date: Wed, 03 Dec 2025 08:01:55 +0000\n") ||
	   strstr(m.text, "\nDate: Wed, 03 Dec 2025 08:01:55 +0000\n"), "Date in RFC 5322 form");
	ok(!header(msg, "In-Reply-To") && !header(msg, "References"), "first mail answers nothing");
	is_str(header(msg, "Auto-Submitted"), "auto-generated", "Auto-Submitted");
	is_str(header(msg, MAIL_LOOP_HEADER), DOMAIN, "loop header names the domain");
	is_str(header(msg, "X-Bugzilla-Product"), "Drivers", "X-Bugzilla-Product");
	is_str(header(msg, "X-Bugzilla-Component"), "Network", "X-Bugzilla-Component");
	is_str(header(msg, "X-Bugzilla-Status"), "NEW", "X-Bugzilla-Status");
	is_str(header(msg, "MIME-Version"), "1.0", "MIME-Version");
	{
		GMimeObject *part = g_mime_message_get_mime_part(msg);
		GMimeContentType *ct = part ? g_mime_object_get_content_type(part) : NULL;

		ok(part && GMIME_IS_TEXT_PART(part) && !GMIME_IS_MULTIPART(part),
		   "one text part, no multipart");
		ok(ct && g_mime_content_type_is_type(ct, "text", "plain"), "text/plain");
		is_str(ct ? g_mime_content_type_get_parameter(ct, "charset") : NULL, "utf-8",
		       "charset=utf-8");
		ok(part && GMIME_IS_PART(part) &&
		   (g_mime_part_get_content_encoding(GMIME_PART(part)) == GMIME_CONTENT_ENCODING_8BIT ||
		    g_mime_part_get_content_encoding(GMIME_PART(part)) == GMIME_CONTENT_ENCODING_7BIT),
		   "short lines are sent 8bit");
	}
	body = body_text(msg);
	ok(body != NULL, "body decodes");
	if (!body)
		goto out;
	ok(strstr(body, "Bug URL:     https://bugzilla.kernel.org/show_bug.cgi?id=219000\n") != NULL,
	   "bug URL in the header block");
	ok(strstr(body, "Product:     Drivers\n") && strstr(body, "Component:   Network\n"),
	   "product and component");
	ok(strstr(body, "Reporter:    Jane Doe\n") != NULL, "reporter by name");
	ok(!strstr(m.text, "jane@example.com"), "reporter's address is not shown");
	ok(strstr(body, "Status:      NEW\n") && strstr(body, "Severity:    high\n"), "status, severity");
	ok(strstr(body, "Version:     6.6\n") && strstr(body, "Kernel:      6.6.1-arch1\n"),
	   "version and kernel version");
	ok(strstr(body, "Keywords:    regression\n") != NULL, "keywords");
	ok(strstr(body, "\nResume from suspend hangs.\nSteps:\n1. suspend\n") != NULL,
	   "description with CRLF normalised");
	ok(strstr(body, "Attachment 77: dmesg-6.6.1.txt\n  Full dmesg after resume\n") != NULL,
	   "attachment name and summary");
	ok(strstr(body, "  Size:    12.3 KiB (12599 bytes)\n") != NULL, "human-readable size");
	ok(strstr(body, "  Type:    text/plain (declared: application/octet-stream)\n") != NULL,
	   "detected type, with the declared one");
	ok(strstr(body, "  Hash:    sha256:" HASH "\n") != NULL, "sha256 line");
	ok(strstr(body, "  URL:     https://blobs.example.org/sha256/01/" HASH "\n") != NULL, "URL line");
	ok(strstr(body, "\n    [    1.234567] PM: suspend entry\n") != NULL, "small text quoted, indented");
	ok(strstr(body, "Attachment 78: firmware.bin\n") && strstr(body, "  Note:    download failed, will be retried\n"),
	   "attachment not stored: note line");
	ok(!strstr(strstr(body, "Attachment 78") ? strstr(body, "Attachment 78") : body, "sha256:"),
	   "no hash for an attachment that is not stored");
	ok(strstr(body, "Status: NEW \xe2\x86\x92 RESOLVED CODE_FIX\n") != NULL, "status change line");
	ok(strstr(body, "Component: A \xe2\x86\x92 B\n") != NULL, "component change line");
	ok(strstr(body, "Component changed: A \xe2\x86\x92 B; now also sent to netdev\n") != NULL,
	   "route note");
	ok(strstr(body, "\n-- \nYou are receiving this mail because the bug is mirrored from "
		  "https://bugzilla.kernel.org/show_bug.cgi?id=219000.\nTo comment, use the bug's page; "
		  "replies on the list stay on the list.\nMirrored by bugbridge for the kernel Bugzilla\n") != NULL,
	   "footer");
	ok(!g_strrstr(body, "<html") && !g_strrstr(body, "<HTML") && !strstr(m.text, "text/html"),
	   "no HTML");
out:
	g_free(body);
	if (msg)
		g_object_unref(msg);
	free(want_id);
	mail_message_release(&m);
	mail_message_release(&again);
}

/* Comment 2 of the sample bug, by a developer. */
static void sample_comment(struct bz_comment *c, const struct bz_bug *bug)
{
	c->id = 1002;
	c->bug_id = bug->id;
	c->count = 2;
	c->author.login = W("dev@example.net");
	c->author.real_name = W("Dev Eloper");
	c->time = T_COMMENT;
	c->text = W("Please try this patch.\n");
}

static void test_comment_mail(void)
{
	struct mail_options opt;
	struct bz_bug bug;
	struct bz_comment c = { 0 };
	char *to[] = { W("linux-kernel@vger.kernel.org"), NULL };
	char *refs[] = { W("bug-219000@" DOMAIN), W("bug-219000-c1@" DOMAIN), NULL };
	struct mail_message m = { 0 };
	struct bb_error err = BB_ERROR_INIT;
	GMimeMessage *msg = NULL;
	GMimeReferences *parsed = NULL;
	char *body = NULL;

	sample_options(&opt);
	sample_bug(&bug, "suspend fails");
	sample_comment(&c, &bug);
	ok(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL,
				"bug-219000-c1@" DOMAIN, refs, NULL, &m, &err) == BB_OK,
	   "compose a comment mail (%s)", err.message);
	if (!m.text)
		goto out;
	is_str(m.message_id, "bug-219000-c2@" DOMAIN, "comment Message-ID");
	msg = parse(&m);
	if (!ok(msg != NULL, "parse it back"))
		goto out;
	is_str(g_mime_message_get_subject(msg), "Re: [Bug 219000] suspend fails", "Re: subject");
	is_str(header(msg, "In-Reply-To"), "<bug-219000-c1@" DOMAIN ">", "In-Reply-To");
	parsed = g_mime_references_parse(NULL, header(msg, "References"));
	ok(parsed && g_mime_references_length(parsed) == 2 &&
	   !strcmp(g_mime_references_get_message_id(parsed, 0), "bug-219000@" DOMAIN) &&
	   !strcmp(g_mime_references_get_message_id(parsed, 1), "bug-219000-c1@" DOMAIN),
	   "References: the chain, parent last, no repeats");
	ok(g_mime_message_get_date(msg) &&
	   g_date_time_to_unix(g_mime_message_get_date(msg)) == T_COMMENT, "Date is the comment's time");
	body = body_text(msg);
	ok(body && g_str_has_prefix(body, "Dev Eloper commented (comment #2):\n\nPlease try this patch.\n"),
	   "body starts with who commented");
	ok(!strstr(m.text, "dev@example.net"), "commenter's address hidden");
	g_free(body);
	body = NULL;
	g_object_unref(msg);
	msg = NULL;
	mail_message_release(&m);

	/* With addresses shown, and no real name */
	opt.show_addresses = 1;
	c.author.real_name = W("");
	ok(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL,
				"bug-219000@" DOMAIN, NULL, NULL, &m, &err) == BB_OK, "compose again");
	msg = m.text ? parse(&m) : NULL;
	body = msg ? body_text(msg) : NULL;
	ok(body && g_str_has_prefix(body, "dev@example.net commented (comment #2):"),
	   "address shown when configured");
	is_str(msg ? header(msg, "References") : NULL, "<bug-219000@" DOMAIN ">",
	       "References defaults to the parent");
	g_free(body);
	body = NULL;
	if (msg)
		g_object_unref(msg);
	msg = NULL;
	mail_message_release(&m);

	/* A quoted mail in a comment: "From " lines do not force quoted-printable */
	c.text = W("From the reporter's mail:\nFrom: someone\nhttps://example.org/?a=b\n");
	ok(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL,
				"bug-219000@" DOMAIN, NULL, NULL, &m, &err) == BB_OK, "compose with From lines");
	ok(m.text && strstr(m.text, "Content-Transfer-Encoding: 7bit\n") &&
	   strstr(m.text, "\nFrom the reporter's mail:\n") && strstr(m.text, "?a=b\n"),
	   "body stays readable: 7bit, no =3D");
	mail_message_release(&m);

	/* With the inbound bridge on, the footer says where replies go */
	opt.replies_posted = 1;
	ok(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL,
				"bug-219000@" DOMAIN, NULL, NULL, &m, &err) == BB_OK,
	   "compose with replies posted to the bug");
	ok(m.text && strstr(m.text, "\nReplies on the list are posted to the bug as comments"),
	   "footer: replies on the list are posted to the bug");
	ok(m.text && !strstr(m.text, "stay on the list"), "footer: no promise that replies stay on the list");
out:
	if (parsed)
		g_mime_references_free(parsed);
	g_free(body);
	if (msg)
		g_object_unref(msg);
	mail_message_release(&m);
}

static void test_hostile_input(void)
{
	struct mail_options opt;
	struct bz_bug bug;
	struct bz_comment c = { 0 };
	char *to[] = { W("linux-kernel@vger.kernel.org"), NULL };
	struct mail_message m = { 0 };
	struct bb_error err = BB_ERROR_INIT;
	GMimeMessage *msg = NULL;
	const char *subject;
	char *body = NULL, *long_text, *long_summary;

	sample_options(&opt);
	sample_bug(&bug, "innocent\r\nBcc: victim@example.com\r\n\r\nfake body");
	bug.product = W("Drivers\nX-Injected: 1");
	bug.component = W("Net\rwork\x01");
	c.count = 0;
	c.time = T_CREATED;
	c.text = W("ok");
	ok(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL, NULL, NULL, NULL,
				&m, &err) == BB_OK, "compose with CR/LF in summary and fields");
	msg = m.text ? parse(&m) : NULL;
	if (!ok(msg != NULL, "parse it back"))
		goto out;
	is_int(count_headers(msg, "Bcc"), 0, "no Bcc header was injected");
	is_int(count_headers(msg, "X-Injected"), 0, "no header injected through the product");
	ok(!strstr(m.text, "\nBcc:") && !strstr(m.text, "\nX-Injected:"), "no such line starts a header");
	subject = g_mime_message_get_subject(msg);
	ok(subject && !strchr(subject, '\n') && !strchr(subject, '\r'), "subject is one line");
	is_str(subject, "[Bug 219000] innocent Bcc: victim@example.com fake body",
	       "control characters became single spaces");
	is_str(header(msg, "X-Bugzilla-Product"), "Drivers X-Injected: 1", "product cleaned");
	is_str(header(msg, "X-Bugzilla-Component"), "Net work", "component cleaned");
	{
		InternetAddressList *all = g_mime_message_get_all_recipients(msg);

		is_int(all ? internet_address_list_length(all) : -1, 1, "only the list is a recipient");
		if (all)
			g_object_unref(all);
	}
	g_object_unref(msg);
	msg = NULL;
	mail_message_release(&m);

	/* Format characters never reach a header: a right-to-left override
	 * would make "gnp.exe" read "exe.png", a zero-width space hides */
	sample_bug(&bug, "photo\xe2\x80\xaegnp.exe\xe2\x80\x8b ok");
	bug.product = W("Dri\xe2\x81\xa6vers\xef\xbb\xbf");
	ok(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL, NULL, NULL, NULL,
				&m, &err) == BB_OK, "compose with bidi and zero-width characters");
	msg = m.text ? parse(&m) : NULL;
	subject = msg ? g_mime_message_get_subject(msg) : NULL;
	is_str(subject, "[Bug 219000] photognp.exe ok", "bidi override and zero-width space dropped");
	is_str(msg ? header(msg, "X-Bugzilla-Product") : NULL, "Drivers",
	       "isolate and byte order mark dropped from a field");
	if (msg)
		g_object_unref(msg);
	msg = NULL;
	mail_message_release(&m);

	/* Invalid UTF-8 in summary and text is repaired */
	sample_bug(&bug, "bad \xff\xfe bytes");
	c.text = W("caf\xe9 \xc3\x28 end\n");
	ok(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL, NULL, NULL, NULL,
				&m, &err) == BB_OK, "compose with invalid UTF-8");
	msg = m.text ? parse(&m) : NULL;
	subject = msg ? g_mime_message_get_subject(msg) : NULL;
	ok(subject && g_utf8_validate(subject, -1, NULL) && strstr(subject, "\xef\xbf\xbd"),
	   "subject repaired with U+FFFD");
	body = msg ? body_text(msg) : NULL;
	ok(body && g_utf8_validate(body, -1, NULL) && strstr(body, "caf\xef\xbf\xbd "),
	   "body repaired with U+FFFD");
	g_free(body);
	body = NULL;
	if (msg)
		g_object_unref(msg);
	msg = NULL;
	mail_message_release(&m);

	/* A 3000-byte line forces quoted-printable; a huge summary is cut */
	long_text = g_strnfill(3000, 'x');
	long_summary = g_strnfill(2000, 'S');
	sample_bug(&bug, long_summary);
	c.text = long_text;
	ok(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL, NULL, NULL, NULL,
				&m, &err) == BB_OK, "compose with very long lines");
	ok(m.text && longest_line(m.text, m.len) <= 998, "still no line over 998 bytes");
	msg = m.text ? parse(&m) : NULL;
	{
		GMimeObject *part = msg ? g_mime_message_get_mime_part(msg) : NULL;

		ok(part && GMIME_IS_PART(part) && g_mime_part_get_content_encoding(GMIME_PART(part)) ==
		   GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE, "long line: quoted-printable");
	}
	body = msg ? body_text(msg) : NULL;
	ok(body && strstr(body, long_text), "the long line decodes back whole");
	subject = msg ? g_mime_message_get_subject(msg) : NULL;
	ok(subject && g_utf8_strlen(subject, -1) <= 300 && g_str_has_suffix(subject, "\xe2\x80\xa6"),
	   "over-long summary is cut and marked");
	g_free(long_text);
	g_free(long_summary);
out:
	g_free(body);
	if (msg)
		g_object_unref(msg);
	mail_message_release(&m);
}

static void test_changes_and_errors(void)
{
	struct mail_options opt;
	struct bz_bug bug;
	struct bz_comment c = { 0 };
	struct mail_change ch[] = { { "Status", "NEW", "RESOLVED CODE_FIX" }, { "Keywords", "", "regression" } };
	char *to[] = { W("linux-kernel@vger.kernel.org"), NULL }, *none[] = { NULL };
	char *bad[] = { W("not an address at all <<<"), NULL };
	struct mail_message m = { 0 };
	struct bb_error err = BB_ERROR_INIT;
	GMimeMessage *msg = NULL;
	char *body = NULL;

	sample_options(&opt);
	sample_bug(&bug, "suspend fails");
	bug.status = W("RESOLVED");
	bug.resolution = W("CODE_FIX");
	ok(mail_compose_changes(&opt, &bug, 1, ch, 2, to, NULL, "bug-219000@" DOMAIN, NULL,
				&m, &err) == BB_OK, "compose a changes-only mail (%s)", err.message);
	is_str(m.message_id, "bug-219000-u1@" DOMAIN, "its Message-ID");
	msg = m.text ? parse(&m) : NULL;
	if (msg) {
		is_str(g_mime_message_get_subject(msg), "Re: [Bug 219000] suspend fails", "Re: subject");
		is_str(header(msg, "In-Reply-To"), "<bug-219000@" DOMAIN ">", "answers the bug");
		is_str(header(msg, "X-Bugzilla-Status"), "RESOLVED", "new status in the header");
		is_str(header(msg, "X-Bugzilla-Resolution"), "CODE_FIX", "resolution header");
		ok(g_mime_message_get_date(msg) &&
		   g_date_time_to_unix(g_mime_message_get_date(msg)) == bug.last_change_time,
		   "dated at the bug's last change");
		body = body_text(msg);
		ok(body && strstr(body, "Status: NEW \xe2\x86\x92 RESOLVED CODE_FIX\n") &&
		   strstr(body, "Keywords: (none) \xe2\x86\x92 regression\n"), "change lines");
		g_object_unref(msg);
	} else {
		ok(0, "parse the changes mail");
	}
	g_free(body);
	mail_message_release(&m);

	{
		struct bz_attachment att;
		struct mail_attachment ma;

		memset(&att, 0, sizeof(att));
		att.id = 9001;
		att.bug_id = bug.id;
		att.file_name = W("dmesg.txt");
		att.content_type = W("text/plain");
		att.size = 5;
		memset(&ma, 0, sizeof(ma));
		ma.att = &att;
		ma.hash = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
		ma.url = "https://files.example.org/blob/sha256/5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03/dmesg.txt";
		ma.inline_text = "hello\n";
		ok(mail_compose_attachment(&opt, &bug, &ma, to, NULL, "bug-219000@" DOMAIN, &m,
					   &err) == BB_OK,
		   "compose a stored-attachment mail (%s)", err.message);
		is_str(m.message_id, "bug-219000-a9001@" DOMAIN, "its Message-ID");
		msg = m.text ? parse(&m) : NULL;
		body = NULL;
		if (msg) {
			is_str(header(msg, "In-Reply-To"), "<bug-219000@" DOMAIN ">", "in the thread");
			body = body_text(msg);
			ok(body && strstr(body, "is stored now") && strstr(body, "dmesg.txt") &&
			   strstr(body, "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03") &&
			   strstr(body, ma.url) && strstr(body, "hello"),
			   "names the attachment with hash, URL and text");
			g_object_unref(msg);
		} else {
			ok(0, "parse the stored-attachment mail");
		}
		g_free(body);
		mail_message_release(&m);
	}

	c.count = 0;
	c.time = T_CREATED;
	c.text = W("x");
	opt.domain = NULL;
	is_int(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL, NULL, NULL, NULL,
				    &m, &err), BB_ERR_CONFIG, "no domain: configuration error");
	ok(!m.text && !m.message_id, "nothing returned on error");
	opt.domain = "bad domain";
	is_int(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL, NULL, NULL, NULL,
				    &m, &err), BB_ERR_CONFIG, "domain with a space is refused");
	sample_options(&opt);
	opt.from = NULL;
	is_int(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL, NULL, NULL, NULL,
				    &m, &err), BB_ERR_CONFIG, "no From: configuration error");
	sample_options(&opt);
	is_int(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, none, NULL, NULL, NULL, NULL,
				    &m, &err), BB_ERR_INVALID, "no recipients: invalid");
	is_int(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, bad, NULL, NULL, NULL, NULL,
				    &m, &err), BB_ERR_INVALID, "unparsable recipient: invalid");
	is_int(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL, "a b@c", NULL, NULL,
				    &m, &err), BB_ERR_INVALID, "unusable In-Reply-To: invalid");
	ok(!m.text, "still nothing returned");
	ok(mail_compose_comment(&opt, &bug, NULL, NULL, 0, NULL, 0, to, NULL, NULL, NULL, NULL,
				&m, &err) == BB_OK && m.text && strstr(m.text, "(no description)"),
	   "a bug without a visible description still starts a thread");
	mail_message_release(&m);
}

/* Issue 14: a summary quoting an encoded word reads back literally. */
static void test_literal_encoded_words(void)
{
	static const char *const summaries[] = {
		"subject shows =?UTF-8?B?YWI=?= instead of text",
		("=?utf-8?q?caf=C3=A9?= and =?UTF-8?B?Y2Q=?= \xc3\xa9\xc3\xa9\xc3\xa9 \xe2\x82\xac"
		 " a long tail so that the subject needs more than one encoded word and folds"),
		"\xf0\x9f\x90\x9b =?x?y?z?=",
	};
	struct mail_options opt;
	struct bz_bug bug;
	struct bz_comment c = { 0 };
	char *to[] = { W("linux-kernel@vger.kernel.org"), NULL };

	sample_options(&opt);
	c.bug_id = 219000;
	c.author.login = W("dev@example.net");
	c.time = T_COMMENT;
	c.text = W("text\n");
	for (size_t i = 0; i < sizeof(summaries) / sizeof(summaries[0]); i++) {
		struct mail_message m = { 0 };
		struct bb_error err = BB_ERROR_INIT;
		GMimeMessage *msg;
		char *want = g_strdup_printf("[Bug 219000] %s", summaries[i]);

		sample_bug(&bug, summaries[i]);
		if (ok(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL, NULL, NULL,
					    NULL, &m, &err) == BB_OK,
		       "literal encoded word %zu: composed (%s)", i, err.message) &&
		    (msg = parse(&m))) {
			is_str(g_mime_message_get_subject(msg), want,
			       "literal encoded word %zu: reads back as written", i);
			ok(headers_ascii(m.text) &&
			   longest_line(m.text, (size_t)(strstr(m.text, "\n\n") - m.text)) <= 78,
			   "literal encoded word %zu: ASCII header lines of at most 78", i);
			g_object_unref(msg);
		}
		g_free(want);
		mail_message_release(&m);
	}
}

/* X-Bugbridge-Mark: HMAC-SHA256 of the Message-ID under the state's key,
 * its first 16 bytes in hex; the known answer is Python's
 * hmac.new(bytes(range(32)), b"bug-42@" DOMAIN, hashlib.sha256). */
static void test_marks(void)
{
	unsigned char key[MAIL_MARK_KEY_LEN], other[MAIL_MARK_KEY_LEN];
	char mark[MAIL_MARK_HEX_LEN + 1], spaced[64];
	struct mail_options opt;
	struct bz_bug bug;
	struct bz_comment c = { 0 };
	char *to[] = { W("linux-kernel@vger.kernel.org"), NULL };
	struct mail_message m = { 0 };
	struct bb_error err = BB_ERROR_INIT;
	GMimeMessage *msg = NULL;

	for (size_t i = 0; i < sizeof(key); i++) {
		key[i] = (unsigned char)i;
		other[i] = (unsigned char)(i + 1);
	}
	ok(mail_mark(key, "bug-42@" DOMAIN, mark) == 0, "a mark is made");
	is_str(mark, "88b9f1ddd1633ce30088bf11118c81cc", "it is HMAC-SHA256's first 16 bytes");
	ok(mail_mark_ok(key, "bug-42@" DOMAIN, mark), "the mark checks out");
	snprintf(spaced, sizeof(spaced), " 88B9F1DDD1633CE30088BF11118C81CC\t");
	ok(mail_mark_ok(key, "bug-42@" DOMAIN, spaced), "in capitals, between spaces");
	ok(!mail_mark_ok(other, "bug-42@" DOMAIN, mark), "not under another key");
	ok(!mail_mark_ok(key, "bug-42-c1@" DOMAIN, mark), "not for another Message-ID");
	ok(!mail_mark_ok(key, "bug-42@" DOMAIN, "88b9f1ddd1633ce30088bf11118c81c"), "not cut short");
	ok(!mail_mark_ok(key, "bug-42@" DOMAIN, "88b9f1ddd1633ce30088bf11118c81cc0"), "not longer");
	ok(!mail_mark_ok(key, "bug-42@" DOMAIN, "88b9f1ddd1633ce30088bf11118c81cc x"),
	   "nothing after it");
	ok(!mail_mark_ok(key, "bug-42@" DOMAIN, ""), "not empty");
	ok(!mail_mark_ok(NULL, "bug-42@" DOMAIN, mark), "not without a key");

	sample_options(&opt);
	sample_bug(&bug, "suspend fails");
	sample_comment(&c, &bug);
	ok(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL, NULL, NULL, NULL, &m,
				&err) == BB_OK && m.text && (msg = parse(&m)),
	   "a mail without a key (%s)", err.message);
	ok(msg && count_headers(msg, MAIL_MARK_HEADER) == 0, "has no mark");
	if (msg)
		g_object_unref(msg);
	msg = NULL;
	mail_message_release(&m);
	opt.mark_key = key;
	ok(mail_compose_comment(&opt, &bug, &c, NULL, 0, NULL, 0, to, NULL, NULL, NULL, NULL, &m,
				&err) == BB_OK && m.text && (msg = parse(&m)),
	   "a mail with one (%s)", err.message);
	ok(msg && count_headers(msg, MAIL_MARK_HEADER) == 1 &&
	   mail_mark_ok(key, m.message_id, header(msg, MAIL_MARK_HEADER)),
	   "has its Message-ID's mark, once");
	if (msg)
		g_object_unref(msg);
	mail_message_release(&m);
}

/* The hand-over mail (bridge/handover.c): a thread of its own on the new
 * list, its Message-ID the caller's number, the text, the report and the
 * public comments as the backlog summary cuts them. */
static void test_handover_mail(void)
{
	struct mail_options opt;
	struct bz_bug bug;
	struct bz_comment report = { 0 }, c = { 0 };
	const struct bz_comment *comments[] = { &c };
	char *to[] = { W("netdev@vger.kernel.org"), NULL };
	char *cc[] = { W("Nick Netdev <nick@example.org>"), NULL };
	struct mail_message m = { 0 };
	struct bb_error err = BB_ERROR_INIT;
	GMimeMessage *msg = NULL;
	char *body = NULL;

	sample_options(&opt);
	sample_bug(&bug, "link lost after resume");
	sample_comment(&c, &bug);
	report = c;
	report.count = 0;
	report.author = bug.creator;
	report.text = W("The link is lost after every resume.\n");
	ok(mail_compose_handover(&opt, &bug, 4000000000010LL,
				 "Bug 219000 is handed over to this list by lead@example.org.\n",
				 &report, comments, 1, to, cc, &m, &err) == BB_OK,
	   "compose a hand-over mail (%s)", err.message);
	if (!m.text)
		goto out;
	is_str(m.message_id, "bug-219000-r4000000000010@" DOMAIN, "hand-over Message-ID: bug and number");
	msg = parse(&m);
	if (!ok(msg != NULL, "parse it back"))
		goto out;
	is_str(g_mime_message_get_subject(msg), "[Bug 219000] link lost after resume",
	       "the bug's subject, no Re:");
	ok(!header(msg, "In-Reply-To") && !header(msg, "References"), "a thread of its own");
	body = body_text(msg);
	ok(body && strstr(body, "Bug 219000 is handed over to this list by lead@example.org.\n") &&
	   strstr(body, "The report, by Jane Doe:\n\n  The link is lost after every resume.\n") &&
	   strstr(body, "Its 1 public comment,") &&
	   strstr(body, "Comment #2 by Dev Eloper, 2025-12-03 09:00 UTC:\n  Please try this patch.\n") &&
	   strstr(body, "https://bugzilla.kernel.org/show_bug.cgi?id=219000#c2"),
	   "the text, the report and the comment's start with its link");
	mail_message_release(&m);
	ok(mail_compose_handover(&opt, &bug, 4000000000020LL, "Handed over.\n", NULL, NULL, 0, to,
				 NULL, &m, &err) == BB_OK && m.text && !strstr(m.text, "The report") &&
	   !strstr(m.text, "public comment"), "without a public report or comments: the text alone");
out:
	g_free(body);
	if (msg)
		g_object_unref(msg);
	mail_message_release(&m);
}

int main(void)
{
	test_handover_mail();
	test_message_ids();
	test_marks();
	test_first_mail();
	test_comment_mail();
	test_hostile_input();
	test_changes_and_errors();
	test_literal_encoded_words();
	mail_shutdown();
	return done_testing();
}
