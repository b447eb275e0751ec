/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for mail/inmail.c: every mail of the shared corpus
 * ($BUGBRIDGE_SHARED/corpus/mail/, mboxes split with GMime) through every
 * step, with checks on named corpus mails (threading, charsets, broken
 * mails, auto-replies, authentication results); then adversarial mails
 * written here: header injection, a References loop, a 10 MB header, mails
 * that claim to come from the bridge, and MIME edge cases. */
#include "config.h"

#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <glib.h>
#include <gmime/gmime.h>

#include "bridge/mailcmd.h"
#include "core/buf.h"
#include "mail/inmail.h"
#include "mail/inmail_plain.h"
#include "mail/inmail_text.h"
#include "mail/mail.h"
#include "tests/unit/tap.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define DOMAIN "bugbridge.example.org"

static char shared[4096];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 1 if s is valid UTF-8 without controls (LF and TAB allowed if text). */
static int clean_utf8(const char *s, int text)
{
	if (!s || !g_utf8_validate(s, -1, NULL))
		return 0;
	for (const char *p = s; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (text && (c == '\n' || c == '\t'))
			continue;
		if (c < 0x20 || c == 0x7f || (!text && c >= 0x80 && c < 0xa0))
			return 0;
	}
	return 1;
}

/* --- the corpus ------------------------------------------------------------- */

struct corpus_stats {
	size_t files, mails, failed, header_errors, decode_errors, auto_replies, opaque;
	size_t parts, html, encrypted;
	double header_s, scan_s, decode_s, slowest_s;
	const char *file;
	char why[600];
};

/* Every check a corpus mail must pass; returns 0 and fills st->why if not. */
/* 1 if b (inmail_decode() of raw) is what GMime's parser gives too. */
static int same_as_parsed(const char *raw, size_t len, const struct inmail_body *b)
{
	struct inmail_body parsed;
	struct bb_error err = BB_ERROR_INIT;
	int same;

	if (inmail_decode_parsed(raw, len, &parsed, &err) != BB_OK)
		return 0;
	same = inmail_body_same(b, &parsed);
	inmail_body_release(&parsed);
	return same;
}

static int check_mail(struct corpus_stats *st, const char *raw, size_t len)
{
	struct inmail_options opt = { DOMAIN };
	struct inmail m;
	struct inmail_body b;
	struct bb_error err = BB_ERROR_INIT;
	struct mailcmd *cmds = NULL;
	size_t ncmds = 0;
	char *reply;
	double t0 = now_s(), t1, t2, t3;
	unsigned flags, fast;
	int good = 1;

	if (inmail_parse_headers(raw, len, &opt, &m, &err) != BB_OK) {
		st->header_errors++;
		snprintf(st->why, sizeof(st->why), "headers: %s", err.message);
		return 0;
	}
	t1 = now_s();
	flags = inmail_raw_scan(raw, len);
	t2 = now_s();
	fast = inmail_scan(&m, raw, len);
	st->opaque += !!(flags & INMAIL_SCAN_OPAQUE);
	st->auto_replies += m.auto_reply;
	if (!clean_utf8(m.from_name, 0) || !clean_utf8(m.subject, 0) ||
	    (m.from_addr && !clean_utf8(m.from_addr, 0)) || (m.list_id && !clean_utf8(m.list_id, 0))) {
		snprintf(st->why, sizeof(st->why), "a header field is not clean UTF-8");
		good = 0;
	}
	if (!m.references || m.nreferences > INMAIL_REFERENCES_MAX || m.references[m.nreferences]) {
		snprintf(st->why, sizeof(st->why), "references not a capped NULL-terminated list");
		good = 0;
	}
	for (size_t i = 0; good && i < m.nreferences; i++) {
		if (m.message_id && !strcmp(m.references[i], m.message_id))
			good = 0;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(m.references[i], m.references[j]))
				good = 0;
		if (!good)
			snprintf(st->why, sizeof(st->why), "references hold a loop or a duplicate");
	}
	if (m.body_offset > len) {
		snprintf(st->why, sizeof(st->why), "body offset past the end");
		good = 0;
	}
	if (inmail_decode(raw, len, &b, &err) != BB_OK) {
		st->decode_errors++;
		snprintf(st->why, sizeof(st->why), "decode: %s", err.message);
		inmail_release(&m);
		return 0;
	}
	t3 = now_s();
	if (!same_as_parsed(raw, len, &b)) {
		snprintf(st->why, sizeof(st->why), "decoded otherwise than by GMime's parser");
		good = 0;
	}
	st->parts += b.nparts;
	st->html += b.from_html;
	st->encrypted += b.encrypted;
	if (!b.text || strlen(b.text) != b.text_len || !clean_utf8(b.text, 1)) {
		snprintf(st->why, sizeof(st->why), "body text is not clean UTF-8");
		good = 0;
	}
	for (size_t i = 0; i < b.nparts; i++)
		if (!b.parts[i].data || !b.parts[i].len || !clean_utf8(b.parts[i].content_type, 0) ||
		    !strchr(b.parts[i].content_type, '/') ||
		    (b.parts[i].filename && (!clean_utf8(b.parts[i].filename, 0) ||
					     strchr(b.parts[i].filename, '/')))) {
			snprintf(st->why, sizeof(st->why), "attachment %zu is not sane", i);
			good = 0;
		}
	reply = inmail_reply_text(b.text);
	if (!reply || !clean_utf8(reply, 1) || strlen(reply) > b.text_len + 16) {
		snprintf(st->why, sizeof(st->why), "reply text");
		good = 0;
	}
	if (mailcmd_parse(b.text, &cmds, &ncmds, &err) != BB_OK) {
		snprintf(st->why, sizeof(st->why), "commands: %s", err.message);
		good = 0;
	}
	/* the raw scan misses nothing that the decoded text holds, unless it
	 * says the mail is opaque */
	if (ncmds && !(flags & (INMAIL_SCAN_COMMAND | INMAIL_SCAN_OPAQUE))) {
		snprintf(st->why, sizeof(st->why), "a command the raw scan missed");
		good = 0;
	}
	if (ncmds && !(fast & (INMAIL_SCAN_COMMAND | INMAIL_SCAN_OPAQUE))) {
		snprintf(st->why, sizeof(st->why), "a command the body scan missed");
		good = 0;
	}
	for (const char *l = b.text; good && l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		const char *t = l + strspn(l, " \t");

		if (!strncasecmp(t, "#regzbot", 8) && (!(flags & (INMAIL_SCAN_REGZBOT | INMAIL_SCAN_OPAQUE)) ||
							!(fast & (INMAIL_SCAN_REGZBOT | INMAIL_SCAN_OPAQUE)))) {
			snprintf(st->why, sizeof(st->why), "a directive the raw scan missed");
			good = 0;
		}
		if ((!strncasecmp(l, "Link:", 5) || !strncasecmp(l, "Closes:", 7)) &&
		    (!(flags & (INMAIL_SCAN_TRAILER | INMAIL_SCAN_OPAQUE)) ||
		     !(fast & (INMAIL_SCAN_TRAILER | INMAIL_SCAN_OPAQUE)))) {
			snprintf(st->why, sizeof(st->why), "a trailer the raw scan missed");
			good = 0;
		}
	}
	mailcmd_free(cmds, ncmds);
	free(reply);
	inmail_body_release(&b);
	inmail_release(&m);
	st->header_s += t1 - t0;
	st->scan_s += t2 - t1;
	st->decode_s += t3 - t2;
	if (t3 - t0 > st->slowest_s)
		st->slowest_s = t3 - t0;
	return good;
}

static enum bb_status corpus_one(void *ctx, const char *raw, size_t len)
{
	struct corpus_stats *st = ctx;

	st->mails++;
	if (!check_mail(st, raw, len))
		st->failed++;
	return BB_OK;
}

static int is_mbox(const char *data, size_t len)
{
	return len > 5 && !memcmp(data, "From ", 5);
}

static void corpus_file(struct corpus_stats *st, const char *path, const char *rel)
{
	gchar *data = NULL;
	gsize len = 0;
	struct bb_error err = BB_ERROR_INIT;
	size_t failed_before = st->failed, mails_before = st->mails;
	int good;

	if (!g_file_get_contents(path, &data, &len, NULL)) {
		ok(0, "corpus %s: readable", rel);
		return;
	}
	st->files++;
	st->why[0] = '\0';
	if (is_mbox(data, len))
		good = inmail_mbox_split(data, len, corpus_one, st, &err) == BB_OK;
	else
		good = corpus_one(st, data, len) == BB_OK;
	good = good && st->failed == failed_before;
	if (!ok(good, "corpus %s: %zu mail(s) read through", rel, st->mails - mails_before))
		diag("%s%s", st->why, err.message);
	g_free(data);
}

static void walk(struct corpus_stats *st, const char *dir, const char *rel)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char path[8192], sub[4096];
		struct stat sb;

		if (name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", name);
			if (!stat(path, &sb) && S_ISDIR(sb.st_mode))
				walk(st, path, sub);
			else if (S_ISREG(sb.st_mode))
				corpus_file(st, path, sub);
		}
		free(names[i]);
	}
	free(names);
}

/* Reads one corpus mail (the first of an mbox) into *out (g_free it). */
static int corpus_mail(const char *rel, gchar **out, gsize *len)
{
	char path[8192];

	snprintf(path, sizeof(path), "%s/corpus/mail/%s", shared, rel);
	if (!g_file_get_contents(path, out, len, NULL)) {
		ok(0, "corpus mail %s readable", rel);
		return 0;
	}
	return 1;
}

static int corpus_headers(const char *rel, struct inmail *m, const struct inmail_options *opt)
{
	gchar *data;
	gsize len;
	struct bb_error err = BB_ERROR_INIT;
	int good;

	if (!corpus_mail(rel, &data, &len))
		return 0;
	good = inmail_parse_headers(data, len, opt, m, &err) == BB_OK;
	if (!good)
		ok(0, "%s: headers parse (%s)", rel, err.message);
	g_free(data);
	return good;
}

static int corpus_body(const char *rel, struct inmail_body *b, unsigned *flags)
{
	gchar *data;
	gsize len;
	struct bb_error err = BB_ERROR_INIT;
	int good;

	if (!corpus_mail(rel, &data, &len))
		return 0;
	if (flags)
		*flags = inmail_raw_scan(data, len);
	good = inmail_decode(data, len, b, &err) == BB_OK;
	if (!good)
		ok(0, "%s: decodes (%s)", rel, err.message);
	g_free(data);
	return good;
}

static int has_ref(const struct inmail *m, const char *id)
{
	for (size_t i = 0; i < m->nreferences; i++)
		if (!strcmp(m->references[i], id))
			return 1;
	return 0;
}

static void test_corpus_threading(void)
{
	struct inmail m;
	const char *dir = "notmuch/threading/ghost-root/";
	char rel[256];

	snprintf(rel, sizeof(rel), "%sfake-root.eml", dir);
	if (corpus_headers(rel, &m, NULL)) {
		is_str(m.message_id, "001-fake-message-root@example.org", "ghost root: Message-ID");
		is_str(m.in_reply_to, "nonexistent-message@example.org", "ghost root: In-Reply-To");
		is_int(m.nreferences, 3, "ghost root: three references");
		is_str(m.references[0], "000-real-root@example.org", "ghost root: root first");
		is_str(inmail_parent_id(&m), "nonexistent-message@example.org", "ghost root: parent");
		inmail_release(&m);
	}
	snprintf(rel, sizeof(rel), "%sgreat-grand-child.eml", dir);
	if (corpus_headers(rel, &m, NULL)) {
		/* References skips the child; In-Reply-To names the real parent */
		is_str(inmail_parent_id(&m), "001-grand-child@example.org", "great-grand-child: parent");
		ok(has_ref(&m, "000-real-root@example.org") && m.nreferences == 2,
		   "great-grand-child: references as written");
		inmail_release(&m);
	}
	snprintf(rel, sizeof(rel), "%sreal-root.eml", dir);
	if (corpus_headers(rel, &m, NULL)) {
		ok(!m.in_reply_to && m.nreferences == 0 && !inmail_parent_id(&m), "real root: no parent");
		is_int(inmail_date(&m), 1466129681, "real root: Date (-0400) in UTC");
		inmail_release(&m);
	}
	/* a patch series: every reply names the cover letter or a patch of it */
	/* a patch series: replies name the patch they answer, then their parent */
	if (corpus_headers("lkml-archive/platform-driver-x86/patch-threads/toshiba-acpi-series/"
			   "07-861b495d968a.eml", &m, NULL)) {
		ok(m.nreferences == 2 && !strcmp(m.references[0], "20220828192920.805253-3-lkml@vorpal.se"),
		   "series reply: the patch is the first reference");
		is_str(inmail_parent_id(&m), "202208290605.gE9IGbxE-lkp@intel.com", "series reply: parent");
		is_str(m.list_id, "platform-driver-x86.vger.kernel.org", "series reply: List-Id");
		ok(!m.auto_reply && !m.from_bridge,
		   "series reply: a human's mail via vger (Precedence: bulk is the list's)");
		inmail_release(&m);
	}
	if (corpus_headers("lkml-archive/platform-driver-x86/bugzilla-daemon/bug-219517/"
			   "05-5ad0a76efa0e.eml", &m, NULL)) {
		ok(m.auto_reply && m.skip_reason && !strcmp(m.skip_reason, "auto-submitted"),
		   "Bugzilla's own notification is auto-submitted");
		is_str(m.from_addr, "bugzilla-daemon@kernel.org", "Bugzilla notification: From");
		inmail_release(&m);
	}
	if (corpus_headers("notmuch/threading/ghost-root/1532672447.R3166642290392477575.len.eml",
			   &m, NULL)) {
		ok(m.auto_reply && !strcmp(m.skip_reason, "autoreply-subject"),
		   "RT \"AutoReply:\" without Auto-Submitted is an auto-reply");
		inmail_release(&m);
	}
	if (corpus_headers("notmuch/broken/empty-part.eml", &m, NULL)) {
		ok(m.auto_reply && !strcmp(m.skip_reason, "bounce"),
		   "a list-owner notice (list+owner@) is not posted");
		inmail_release(&m);
	}
	if (corpus_headers("notmuch/lkml/cur/1382298793.002257.eml", &m, NULL)) {
		ok(!m.auto_reply, "majordomo list mail: Precedence: bulk with Sender: owner-list");
		inmail_release(&m);
	}
}

static void test_corpus_charsets(void)
{
	const char *dir = "lkml-archive/platform-driver-x86/charset/";
	struct inmail_body b;
	struct inmail m;
	unsigned flags = 0;
	char rel[256];

	snprintf(rel, sizeof(rel), "%sc146362c9e8b.eml", dir);
	if (corpus_body(rel, &b, &flags)) {
		ok(strstr(b.text, "Ilpo J\xc3\xa4rvinen") != NULL, "bogus charset \"y\": UTF-8 text kept");
		ok(strstr(b.text, "diff --git") != NULL && !(flags & INMAIL_SCAN_OPAQUE),
		   "bogus charset \"y\", 8bit: the raw scan can tell");
		inmail_body_release(&b);
	}
	snprintf(rel, sizeof(rel), "%se7d45a138fad.eml", dir);
	if (corpus_body(rel, &b, &flags)) {
		ok(strstr(b.text, "m\xc3\xa1jus") != NULL, "iso-8859-2 quoted-printable decoded");
		ok(!(flags & INMAIL_SCAN_OPAQUE), "quoted-printable: the raw scan sees through it");
		inmail_body_release(&b);
	}
	snprintf(rel, sizeof(rel), "%sac3c98dcc95e.eml", dir);
	if (corpus_body(rel, &b, &flags)) {
		ok(strstr(b.text, "5.16-rc1 is already out") != NULL, "GBK base64 body decoded");
		ok(flags & INMAIL_SCAN_OPAQUE, "base64: the raw scan cannot tell");
		inmail_body_release(&b);
	}
	snprintf(rel, sizeof(rel), "%s5e0ea6ef8943.eml", dir);
	if (corpus_body(rel, &b, NULL)) {
		ok(strstr(b.text, "Tested-By: Yijun Shen") != NULL, "UTF-7 quoted-printable decoded");
		inmail_body_release(&b);
	}
	snprintf(rel, sizeof(rel), "%sc000ba693345.eml", dir);
	if (corpus_headers(rel, &m, NULL)) {
		ok(g_str_has_prefix(m.subject, "\xe3\x83\xa8\xe3\x83\x89\xe3\x83\x90\xe3\x82\xb7"),
		   "gb2312 base64 encoded-word Subject decoded");
		inmail_release(&m);
	}
	if (corpus_headers("public-inbox/utf8.eml", &m, NULL)) {
		is_str(m.subject, "Testing for El\xc3\xa9" "anor", "RFC 2047 Subject");
		is_str(m.from_name, "El\xc3\xa9" "anor", "RFC 2047 display name");
		inmail_release(&m);
	}
	if (corpus_headers("patchwork/mail/0014-with-unencoded-utf8-headers.mbox", &m, NULL)) {
		ok(clean_utf8(m.subject, 0) && clean_utf8(m.from_name, 0) &&
		   g_utf8_strlen(m.from_name, -1) < (glong)strlen(m.from_name),
		   "raw UTF-8 header bytes decoded");
		inmail_release(&m);
	}
}

static void test_corpus_mime(void)
{
	struct inmail_body b;
	struct inmail m;

	if (corpus_body("notmuch/html/attribute-text.eml", &b, NULL)) {
		ok(b.from_html && strstr(b.text, "hunter2") && !strstr(b.text, "swordfish"),
		   "HTML-only mail: text extracted, attribute values not");
		inmail_body_release(&b);
	}
	if (corpus_body("notmuch/crypto/encrypted-rfc822-attachment.eml", &b, NULL)) {
		ok(b.encrypted && b.nparts == 0, "PGP/MIME encrypted: marked, nothing read");
		inmail_body_release(&b);
	}
	if (corpus_body("notmuch/indexing/fake-pdf.eml", &b, NULL)) {
		ok(b.nparts == 1 && !strcmp(b.parts[0].filename, "fake.pdf") &&
		   !strcmp(b.parts[0].content_type, "application/pdf") &&
		   b.parts[0].len == 23 && !memcmp(b.parts[0].data, "this is not really PDF\n", 23),
		   "base64 attachment decoded with its name and claimed type");
		inmail_body_release(&b);
	}
	if (corpus_body("notmuch/attachment/x-gtar-compressed.eml", &b, NULL)) {
		ok(b.nparts == 1 && b.parts[0].len > 1000 && b.parts[0].data[0] == 0x1f &&
		   b.parts[0].data[1] == 0x8b, "tar.gz attachment: gzip bytes");
		ok(strstr(b.text, "forget the frigging attachment") != NULL, "... and the body");
		inmail_body_release(&b);
	}
	if (corpus_body("patchwork/mail/0020-multipart-comment.mbox", &b, NULL)) {
		ok(strstr(b.text, "Yup, this looks sensible") && !strchr(b.text, '<') && !b.from_html,
		   "multipart/alternative: the text/plain part");
		inmail_body_release(&b);
	}
	if (corpus_body("public-inbox/plack-2-txt-bodies.eml", &b, NULL)) {
		is_str(b.text, "hi\n\nbye\n", "two inline text parts: both, a blank line apart");
		inmail_body_release(&b);
	}
	if (corpus_body("public-inbox/plack-attached-patch.eml", &b, NULL)) {
		ok(strstr(b.text, "+++ b/file") && b.nparts == 0, "inline .patch part is body");
		inmail_body_release(&b);
	}
	if (corpus_body("lkml-archive/platform-driver-x86/attachments/1034c7206f48.eml", &b, NULL)) {
		ok(b.nparts >= 1, "list reply with base64 attachments: %zu part(s)", b.nparts);
		for (size_t i = 0; i < b.nparts; i++)
			ok(b.parts[i].filename != NULL, "  part %zu: %s, %s, %zu bytes", i,
			   b.parts[i].filename ? b.parts[i].filename : "(no name)",
			   b.parts[i].content_type, b.parts[i].len);
		inmail_body_release(&b);
	}
	if (corpus_headers("notmuch/broken/broken-cc.eml", &m, NULL)) {
		is_str(m.from_addr, "alice@example.org", "broken Cc: the rest parses");
		inmail_release(&m);
	}
	if (corpus_headers("patchwork/fuzz/refshdr.mbox", &m, NULL)) {
		ok(!m.message_id && m.in_reply_to && clean_utf8(m.subject, 0),
		   "fuzzer mail: broken Message-ID dropped, In-Reply-To kept");
		inmail_release(&m);
	}
}

static void test_corpus_scan(void)
{
	const char *dir = "lkml-archive/platform-driver-x86/";
	char rel[256];
	gchar *data;
	gsize len;

	snprintf(rel, sizeof(rel), "%sregzbot/5795cb3f671b.eml", dir);
	if (corpus_mail(rel, &data, &len)) {
		unsigned flags = inmail_raw_scan(data, len);

		ok((flags & INMAIL_SCAN_REGZBOT) && !(flags & INMAIL_SCAN_COMMAND),
		   "regzbot directive mail: flagged for the tracker, no bridge command");
		g_free(data);
	}
	snprintf(rel, sizeof(rel), "%sregzbot/88f6aeb05bb7.eml", dir);
	if (corpus_mail(rel, &data, &len)) {
		ok(!(inmail_raw_scan(data, len) & INMAIL_SCAN_REGZBOT),
		   "quoted #regzbot lines do not count");
		g_free(data);
	}
}

static void test_corpus(void)
{
	struct corpus_stats st;
	char dir[8192];
	struct stat sb;
	double limit = SANITIZED ? 10.0 : 2.0;

	snprintf(dir, sizeof(dir), "%s/corpus/mail", shared);
	if (stat(dir, &sb)) {
		printf("ok %d # SKIP no mail corpus at %s (set BUGBRIDGE_SHARED)\n", ++tap_count, dir);
		return;
	}
	memset(&st, 0, sizeof(st));
	walk(&st, dir, "");
	ok(st.files >= 350 && st.mails >= 450, "corpus: %zu files, %zu mails", st.files, st.mails);
	is_int(st.failed, 0, "corpus: every mail parses, decodes and is cut without a failure");
	ok(st.slowest_s < limit, "corpus: slowest mail took %.3f s (bounded)", st.slowest_s);
	diag("corpus: %zu auto-replies, %zu opaque to the raw scan, %zu attachments, %zu HTML-only, "
	     "%zu encrypted", st.auto_replies, st.opaque, st.parts, st.html, st.encrypted);
	diag("corpus speed: header pass %.0f mails/s, raw scan %.0f mails/s, full decode %.0f mails/s%s",
	     st.mails / st.header_s, st.mails / st.scan_s, st.mails / st.decode_s,
	     SANITIZED ? " (sanitizers)" : "");
	test_corpus_threading();
	test_corpus_charsets();
	test_corpus_mime();
	test_corpus_scan();
}

/* --- adversarial mails ----------------------------------------------------- */

static enum bb_status parse(const char *text, const struct inmail_options *opt, struct inmail *m)
{
	struct bb_error err = BB_ERROR_INIT;

	return inmail_parse_headers(text, strlen(text), opt, m, &err);
}

static enum bb_status decode(const char *text, struct inmail_body *b)
{
	struct bb_error err = BB_ERROR_INIT;
	enum bb_status st = inmail_decode(text, strlen(text), b, &err);

	if (st != BB_OK)
		diag("decode: %s", err.message);
	return st;
}

static void test_header_injection(void)
{
	struct inmail m;
	const char *mail =
		"From: =?utf-8?q?Mallory=0D=0AX-Bugbridge-Loop:_x?= <mallory@example.org>\n"
		"Subject: =?utf-8?q?hello=0D=0AX-Bugbridge-Loop:=20evil=0A=0A#bugbridge_close?=\n"
		"Message-ID: <abc\r\n def@example.org>\n"
		"In-Reply-To: <parent@example.org>\n"
		"List-Id: Evil <list.example.org>\n"
		"\n"
		"body\n";
	const char *bare_cr =
		"From: a@example.org\n"
		"Subject: one\rX-Bugbridge-Loop: two\n"
		"Message-ID: <nul@example.org>\n"
		"\n"
		"body\n";
	char nul_mail[] = "From: a@example.org\nSubject: before\0after\nMessage-ID: <x@y>\n\nbody\n";
	struct bb_error err = BB_ERROR_INIT;

	if (ok(parse(mail, NULL, &m) == BB_OK, "injection: parses")) {
		ok(!m.from_bridge && !m.auto_reply, "injection: an encoded loop header is no header");
		ok(clean_utf8(m.subject, 0) && !strchr(m.subject, '\n') && !strchr(m.subject, '\r'),
		   "injection: Subject has no line breaks (\"%s\")", m.subject);
		ok(clean_utf8(m.from_name, 0), "injection: display name clean (\"%s\")", m.from_name);
		is_str(m.from_addr, "mallory@example.org", "injection: address");
		ok(!m.message_id || !strchr(m.message_id, ' '), "injection: Message-ID has no blanks");
		inmail_release(&m);
	}
	if (ok(parse(bare_cr, NULL, &m) == BB_OK, "bare CR: parses")) {
		ok(!m.from_bridge && !strcmp(m.subject, "one X-Bugbridge-Loop: two"),
		   "bare CR does not end a header (\"%s\")", m.subject);
		inmail_release(&m);
	}
	if (ok(inmail_parse_headers(nul_mail, sizeof(nul_mail) - 1, NULL, &m, &err) == BB_OK,
	       "NUL in a header: parses")) {
		is_str(m.subject, "beforeafter", "NUL dropped from Subject");
		is_str(m.message_id, "x@y", "fields after the NUL are read");
		inmail_release(&m);
	}
}

static void test_references_loop(void)
{
	struct inmail m;
	struct buf b = BUF_INIT;
	double t0;

	buf_addstr(&b, "From: a@example.org\nMessage-ID: <self@example.org>\n"
		   "In-Reply-To: <self@example.org>\nReferences: <root@example.org>");
	for (int i = 0; i < 15000; i++)   /* 860 KB, under INMAIL_HEADER_MAX */
		buf_addf(&b, " <self@example.org> <a%d@example.org> <root@example.org>\n", i % 300);
	buf_addstr(&b, "\nbody\n");
	t0 = now_s();
	if (ok(parse(b.data, NULL, &m) == BB_OK, "References loop: parses (%zu bytes)", b.len)) {
		ok(!m.in_reply_to, "In-Reply-To naming the mail itself is dropped");
		is_int(m.nreferences, INMAIL_REFERENCES_MAX, "references capped");
		is_str(m.references[0], "root@example.org", "the root stays first");
		ok(!has_ref(&m, "self@example.org"), "the mail is not its own ancestor");
		is_str(m.references[m.nreferences - 1], "a299@example.org", "the newest stays last");
		ok(now_s() - t0 < (SANITIZED ? 10 : 1), "... in bounded time");
		inmail_release(&m);
	}
	/* repeats found before and after the kept ids outgrow a short list:
	 * the newest of each repeat counts */
	buf_reset(&b);
	buf_addstr(&b, "From: a@example.org\nMessage-ID: <self@example.org>\nReferences: <root@x>");
	for (int i = 0; i < 20; i++)
		buf_addf(&b, " <a%d@x>", i);
	buf_addstr(&b, " <a5@x> <root@x> <a0@x> <self@example.org>\n\nbody\n");
	if (ok(parse(b.data, NULL, &m) == BB_OK, "References with repeats: parses")) {
		is_int(m.nreferences, 21, "repeats: the root and 20 ids");
		is_str(m.references[0], "root@x", "repeats: the root first");
		is_str(m.references[1], "a1@x", "repeats: then the oldest not repeated later");
		is_str(m.references[5], "a6@x", "repeats: a repeated id leaves its first place");
		is_str(m.references[19], "a5@x", "repeats: ... for its newest");
		is_str(m.references[20], "a0@x", "repeats: the newest last");
		inmail_release(&m);
	}
	buf_release(&b);
}

/* A parsed mail's strings live in one block sized from the header fields
 * (inmail.h): values that outgrow it - text that decoding makes longer, a
 * References of short ids whose array outgrows its share - are whole all
 * the same, beside the values that fit; releasing twice, or releasing a
 * failed parse or a zeroed struct, is harmless. */
static void test_strings_block(void)
{
	struct inmail m, zero;
	struct buf b = BUF_INIT;
	GString *want_subject = g_string_new(""), *want_name = g_string_new("");
	size_t i;

	/* 400 bytes of windows-1252 become 800 of UTF-8: longer than the
	 * whole header's values */
	buf_addstr(&b, "From: ");
	for (i = 0; i < 100; i++) {
		buf_addch(&b, (char)0xe9);
		g_string_append(want_name, "\xc3\xa9");
	}
	buf_addstr(&b, " <Someone@Example.ORG>\nSubject: ");
	for (i = 0; i < 400; i++) {
		buf_addch(&b, (char)0xe9);
		g_string_append(want_subject, "\xc3\xa9");
	}
	buf_addstr(&b, "\nMessage-ID: <own@x>\nIn-Reply-To: <p3@x>\nReferences:");
	for (i = 0; i < 100; i++)   /* short ids: 100 pointers, 700 bytes of value */
		buf_addf(&b, " <p%zu@x>", i);
	buf_addstr(&b, "\nList-Id: The List <The.List.Example.Org>\n\nbody\n");
	if (ok(parse(b.data, NULL, &m) == BB_OK, "strings block: parses")) {
		is_str(m.subject, want_subject->str, "strings block: a Subject decoded longer");
		is_str(m.from_name, want_name->str, "strings block: a name decoded longer");
		is_str(m.from_addr, "Someone@example.org", "strings block: the address");
		is_str(m.message_id, "own@x", "strings block: Message-ID");
		is_str(m.in_reply_to, "p3@x", "strings block: In-Reply-To");
		is_str(m.list_id, "the.list.example.org", "strings block: List-Id after them");
		is_int(m.nreferences, 100, "strings block: 100 short references");
		ok(m.nreferences == 100 && !m.references[100], "strings block: the array ends in NULL");
		for (i = 0; i < m.nreferences; i++) {
			char id[32];

			snprintf(id, sizeof(id), "p%zu@x", i);
			if (strcmp(m.references[i], id))
				break;
		}
		is_int(i, 100, "strings block: each reference in its place");
		inmail_release(&m);
		ok(!m.subject && !m.references && !m.from_name, "strings block: released, emptied");
		inmail_release(&m);
		ok(1, "strings block: released twice");
	}
	ok(parse("not a mail\n", NULL, &m) != BB_OK && !m.message_id && !m.subject,
	   "strings block: a failed parse leaves the mail empty");
	inmail_release(&m);
	inmail_release(&m);
	memset(&zero, 0, sizeof(zero));
	inmail_release(&zero);
	inmail_release(NULL);
	ok(1, "strings block: a failed parse, a zeroed struct, NULL: released");
	/* a mail with none of the fields kept: "" for From and Subject */
	if (ok(parse("X-Other: 1\n\nbody\n", NULL, &m) == BB_OK, "strings block: no fields kept")) {
		ok(m.from_name && !*m.from_name && m.subject && !*m.subject && !m.from_addr &&
		   !m.message_id && m.references && !m.nreferences && !m.references[0],
		   "strings block: the empty values as before");
		inmail_release(&m);
	}
	g_string_free(want_subject, TRUE);
	g_string_free(want_name, TRUE);
	buf_release(&b);
}

/* A Subject of ASCII without encoded words is read 16 bytes at a time
 * where it is plain (inmail.c plain_text_prefix()): random ones of
 * letters, blanks, tabs, '=' and DEL, around and across 16-byte
 * boundaries, each as inmail_clean_line() has it. */
static void test_subject_plain(void)
{
	static const char alphabet[] = "abcdefgh      \t=\x7f.";
	GRand *rnd = g_rand_new_with_seed(33);
	struct buf mail = BUF_INIT;
	int same = 0, tries = 20000;

	for (int t = 0; t < tries; t++) {
		char value[120], *want;
		int n = g_rand_int_range(rnd, 0, (int)sizeof(value) - 1);
		struct inmail m;

		for (int i = 0; i < n; i++) {
			/* mostly letters and blanks, the rest now and then */
			int k = g_rand_int_range(rnd, 0, g_rand_int_range(rnd, 0, 8) ? 14
									      : (int)sizeof(alphabet) - 1);

			value[i] = alphabet[k];
		}
		value[n] = '\0';
		buf_reset(&mail);
		buf_addf(&mail, "From: a@example.org\nSubject: %s\n\nbody\n", value);
		want = inmail_clean_line(value, (size_t)n, INMAIL_TEXT_MAX);
		if (parse(mail.data, NULL, &m) == BB_OK && want && !strcmp(m.subject, want))
			same++;
		else if (same == t)
			diag("subject \"%s\": got \"%s\", want \"%s\"", value, m.subject, want);
		free(want);
		inmail_release(&m);
	}
	is_int(same, tries, "plain subjects: each as inmail_clean_line() has it");
	buf_release(&mail);
	g_rand_free(rnd);
}

/* The last List-Id read is kept (inmail.c take_list_id()): values read
 * again, in turn with others, and values that give none, give what they
 * gave the first time. */
static void test_list_id_again(void)
{
	static const struct {
		const char *value, *want;   /* want NULL: no List-Id */
	} cases[] = {
		{ "Platform <Platform-Driver-X86.vger.kernel.org>", "platform-driver-x86.vger.kernel.org" },
		{ "Platform <Platform-Driver-X86.vger.kernel.org>", "platform-driver-x86.vger.kernel.org" },
		{ "<netdev.vger.kernel.org>", "netdev.vger.kernel.org" },
		{ "Platform <Platform-Driver-X86.vger.kernel.org>", "platform-driver-x86.vger.kernel.org" },
		{ "two words", NULL },
		{ "two words", NULL },
		{ "<>", NULL },
		{ "<>", NULL },
		{ "Lkml.Example.ORG", "lkml.example.org" },
		{ "Lkml.Example.ORG", "lkml.example.org" },
	};
	char mail[512];
	int same = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct inmail m;

		snprintf(mail, sizeof(mail), "From: a@example.org\nList-Id: %s\n\nbody\n",
			 cases[i].value);
		if (parse(mail, NULL, &m) == BB_OK &&
		    (cases[i].want ? m.list_id && !strcmp(m.list_id, cases[i].want) : !m.list_id))
			same++;
		else
			diag("List-Id \"%s\": got \"%s\"", cases[i].value, m.list_id ? m.list_id : "(null)");
		inmail_release(&m);
	}
	is_int(same, (int)(sizeof(cases) / sizeof(cases[0])), "List-Id: the same value read again gives the same");
}

static void test_huge_header(void)
{
	struct inmail m;
	struct inmail_body body;
	struct buf b = BUF_INIT;
	struct bb_error err = BB_ERROR_INIT;
	enum bb_status st;
	double t0;

	buf_addstr(&b, "From: a@example.org\nMessage-ID: <big@example.org>\nX-Junk: ");
	while (b.len < 10 * 1024 * 1024)
		buf_addstr(&b, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n ");
	buf_addstr(&b, "\nSubject: late\n\nbody\n");
	t0 = now_s();
	st = inmail_parse_headers(b.data, b.len, NULL, &m, &err);
	ok(st == BB_ERR_TOO_LARGE && strstr(err.message, "header"),
	   "10 MB header: too large (%s)", err.message);
	ok(now_s() - t0 < (SANITIZED ? 10 : 1), "10 MB header: refused in bounded time");
	inmail_release(&m);
	t0 = now_s();
	st = inmail_decode(b.data, b.len, &body, &err);
	ok(st == BB_ERR_TOO_LARGE, "10 MB header: the full decode refuses it too");
	ok(now_s() - t0 < (SANITIZED ? 10 : 1), "10 MB header: full decode in bounded time");
	/* the same bytes as a MIME part's header: GMime reads it */
	buf_reset(&b);
	buf_addstr(&b, "From: a@example.org\nContent-Type: multipart/mixed; boundary=x\n\n--x\nX-Junk: ");
	while (b.len < (SANITIZED ? 256 : 10 * 1024) * 1024)
		buf_addstr(&b, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n ");
	buf_addstr(&b, "\nContent-Type: text/plain\n\npart body\n--x--\n");
	t0 = now_s();
	st = inmail_decode(b.data, b.len, &body, &err);
	ok(st == BB_OK && !strcmp(body.text, "part body\n"), "%zu KB part header: decoded",
	   b.len / 1024);
	ok(now_s() - t0 < (SANITIZED ? 10 : 1), "... in bounded time");
	if (st == BB_OK)
		inmail_body_release(&body);
	buf_reset(&b);
	buf_addstr(&b, "From: a@example.org\n");
	while (b.len < 10 * 1024 * 1024)
		buf_addstr(&b, "Received: from x by y; Thu, 1 Jan 2025 00:00:00 +0000\n");
	buf_addstr(&b, "\nbody\n");
	st = inmail_parse_headers(b.data, b.len, NULL, &m, &err);
	ok(st == BB_ERR_TOO_LARGE, "10 MB of header lines: too large");
	inmail_release(&m);
	buf_release(&b);
	ok(inmail_parse_headers("", 0, NULL, &m, &err) == BB_ERR_INVALID, "empty input: invalid");
	ok(inmail_parse_headers("just some text\n", 15, NULL, &m, &err) == BB_ERR_INVALID,
	   "no header: invalid");
}

static void test_from_bridge(void)
{
	struct inmail_options opt = { DOMAIN };
	struct inmail m;
	char *own = mail_message_id(DOMAIN, 42, 3), *mail;

	mail = str_printf("From: bugbridge <bugbridge@example.org>\nMessage-ID: <other@example.org>\n"
			  MAIL_LOOP_HEADER ": " DOMAIN "\nAuto-Submitted: auto-generated\n\nhi\n");
	if (ok(parse(mail, &opt, &m) == BB_OK, "bridge mail parses")) {
		ok(m.from_bridge && !strcmp(m.skip_reason, "loop-header"), "loop header: the bridge's own");
		inmail_release(&m);
	}
	free(mail);
	mail = str_printf("From: Mallory <m@example.org>\nMessage-ID: <%s>\nSubject: Re: [Bug 42]\n\nhi\n",
			  own);
	if (ok(parse(mail, &opt, &m) == BB_OK, "mail with the bridge's Message-ID parses")) {
		ok(m.from_bridge && !strcmp(m.skip_reason, "bridge-message-id"),
		   "a mail claiming the bridge's Message-ID is treated as the bridge's own");
		inmail_release(&m);
	}
	if (ok(parse(mail, NULL, &m) == BB_OK, "... without a domain")) {
		ok(!m.from_bridge, "... not recognised without the bridge's domain");
		inmail_release(&m);
	}
	free(mail);
	if (ok(parse("From: a@example.org\nMessage-ID: <bug-42-c3@elsewhere.example>\n\n"
		     "X-Bugbridge-Loop: in the body\n", &opt, &m) == BB_OK, "foreign id")) {
		ok(!m.from_bridge, "another domain's bug-N id and a loop header in the body: not ours");
		inmail_release(&m);
	}
	free(own);
}

/* X-Bugbridge-Mark is kept for the bridge's own mail, as its hex digits,
 * and only when it has the form of one (mail_mark_ok() checks it). */
static void test_mark_kept(void)
{
	static const struct {
		const char *value, *kept;
	} cases[] = {
		{ " 0123456789ABCDEF0123456789abcdef  ", "0123456789ABCDEF0123456789abcdef" },
		{ "0123456789abcdef0123456789abcde", NULL },
		{ "0123456789abcdef0123456789abcdef0", NULL },
		{ "0123456789abcdef0123456789abcdef x", NULL },
		{ "0123456789abcdef\x01" "123456789abcdef", NULL },
		{ "", NULL },
	};
	struct inmail_options opt = { DOMAIN };
	struct inmail m;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *mail = str_printf("From: b@example.org\nMessage-ID: <x%zu@example.org>\n"
					MAIL_LOOP_HEADER ": " DOMAIN "\n" MAIL_MARK_HEADER ":%s\n\nhi\n",
					i, cases[i].value);

		if (ok(parse(mail, &opt, &m) == BB_OK, "mark %zu: parses", i)) {
			if (cases[i].kept)
				is_str(m.mark, cases[i].kept, "mark %zu: kept as its digits", i);
			else
				ok(!m.mark, "mark %zu: not the form of one, not kept", i);
			inmail_release(&m);
		}
		free(mail);
	}
	if (ok(parse("From: a@example.org\nMessage-ID: <y@example.org>\n" MAIL_MARK_HEADER
		     ": 0123456789abcdef0123456789abcdef\n\nhi\n", &opt, &m) == BB_OK,
	       "a mark on another's mail")) {
		ok(!m.from_bridge && !m.mark, "is not kept: the mail is not the bridge's");
		inmail_release(&m);
	}
}

struct auto_case {
	const char *headers, *reason;
};

static void test_auto_replies(void)
{
	static const struct auto_case cases[] = {
		{ "Auto-Submitted: auto-replied\n", "auto-submitted" },
		{ "Auto-Submitted: auto-generated; owner-email=x@y\n", "auto-submitted" },
		{ "Auto-Submitted: no\n", NULL },
		{ "Precedence: junk\n", "precedence" },
		{ "Precedence: bulk\n", "precedence" },
		{ "Precedence: bulk\nList-Id: <l.example.org>\n", NULL },
		{ "Precedence: bulk\nPrecedence: bulk\nList-Id: <l.example.org>\n", "precedence" },
		{ "Precedence: list\n", NULL },
		{ "X-Autoreply: yes\n", "autoreply-header" },
		{ "Return-Path: <>\n", "bounce" },
		{ "X-Failed-Recipients: x@example.org\n", "bounce" },
		{ "Content-Type: multipart/report; report-type=delivery-status; boundary=x\n", "bounce" },
		{ "Subject: Automatic reply: [PATCH] foo\n", "autoreply-subject" },
		{ "Subject: [ticket #1] AutoReply: foo\n", "autoreply-subject" },
		{ "Subject: Out of Office: back Monday\n", "autoreply-subject" },
		{ "Subject: Re: out of office hours suspend bug\n", NULL },
	};
	struct inmail m;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *mail = str_printf("From: a@example.org\nMessage-ID: <%zu@x>\n%s\nbody\n", i,
					cases[i].headers);

		if (parse(mail, NULL, &m) == BB_OK) {
			ok(cases[i].reason ? m.auto_reply && m.skip_reason &&
			   !strcmp(m.skip_reason, cases[i].reason) : !m.auto_reply,
			   "auto-reply %zu: %.*s -> %s", i, (int)strcspn(cases[i].headers, "\n"),
			   cases[i].headers, m.skip_reason ? m.skip_reason : "posted");
			inmail_release(&m);
		} else {
			ok(0, "auto-reply %zu parses", i);
		}
		free(mail);
	}
	if (parse("From: MAILER-DAEMON@mx.example.org\nSubject: Undelivered Mail\n\nx\n", NULL,
		  &m) == BB_OK) {
		ok(m.auto_reply && !strcmp(m.skip_reason, "bounce"), "MAILER-DAEMON: bounce");
		inmail_release(&m);
	}
}

/* The flags the lines of decoded text call for: a command or a directive
 * after blanks, a trailer at a line's start. */
static unsigned text_flags(const char *text)
{
	unsigned flags = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		const char *t = l + strspn(l, " \t");

		if (!strncasecmp(t, "#bugbridge", 10))
			flags |= INMAIL_SCAN_COMMAND;
		else if (!strncasecmp(t, "#regzbot", 8))
			flags |= INMAIL_SCAN_REGZBOT;
		if (!strncasecmp(l, "link:", 5) || !strncasecmp(l, "closes:", 7))
			flags |= INMAIL_SCAN_TRAILER;
	}
	return flags;
}

static void test_raw_scan(void)
{
	static const struct {
		const char *mail;
		unsigned want;
		const char *name;
	} cases[] = {
		{ "From: a@b\n\nThanks.\n#bugbridge close\n", INMAIL_SCAN_COMMAND, "command" },
		{ "From: a@b\n\n  #BugBridge title: x\n", INMAIL_SCAN_COMMAND, "indented, any case" },
		{ "From: a@b\n\n> #bugbridge close\n", 0, "quoted command" },
		{ "From: a@b\n\n#regzbot introduced: v6.1..v6.2\n", INMAIL_SCAN_REGZBOT, "regzbot" },
		{ "From: a@b\nContent-Transfer-Encoding: base64\n\nI2J1Z2JyaWRnZSBjbG9zZQo=\n",
		  INMAIL_SCAN_OPAQUE, "base64" },
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\n=23bugbridge close\n",
		  INMAIL_SCAN_COMMAND, "quoted-printable, '#' encoded" },
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\ncaf=E9 a long line =\n"
		  "that goes on\n#regzbot title: x=3Dy\n", INMAIL_SCAN_REGZBOT,
		  "quoted-printable, soft breaks" },
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\ncaf=E9\n", 0,
		  "quoted-printable without commands" },
		/* the line before a keyword line is one the scan passes over
		 * (plain_line[] in inmail_scan.c): whether it ends in a soft
		 * break still decides whether the next starts a line */
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\nsee=\n=23bugbridge close\n",
		  0, "quoted-printable, an encoded '#' after a soft break" },
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\nsee=\r\n=23bugbridge close\n",
		  0, "quoted-printable, an encoded '#' after a soft break before CRLF" },
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\nsee =3D\n=23bugbridge close\n",
		  INMAIL_SCAN_COMMAND, "quoted-printable, an encoded '#' after an encoded '='" },
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\nsee=\n\n=23bugbridge close\n",
		  INMAIL_SCAN_COMMAND, "quoted-printable, an encoded '#' after a blank line" },
		{ "From: a@b\nContent-Type: text/plain; charset=\"UTF-16LE\"\n\nbody\n", INMAIL_SCAN_OPAQUE,
		  "UTF-16" },
		{ "From: a@b\nContent-Type: text/plain; charset=ucs2\n\nbody\n", INMAIL_SCAN_OPAQUE,
		  "a short charset name that ends the line" },
		{ "From: a@b\nContent-Type: text/plain; charset*=utf-16''\n\nbody\n", INMAIL_SCAN_OPAQUE,
		  "an RFC 2231 charset" },
		{ "From: a@b\nContent-Type: text/plain; name=\"utf-16 notes.txt\"; charset=us-ascii\n\n"
		  "body\n", 0, "a charset's name in another parameter" },
		{ "From: a@b\nContent-Type: text/html\n\n<p>#bugbridge close</p>\n", INMAIL_SCAN_OPAQUE,
		  "HTML" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\nContent-Transfer-Encoding: 8bit\n\n"
		  "--x\n\nhi\n--x--\n", INMAIL_SCAN_MULTIPART, "multipart, 8bit" },
		{ "From: a@b\nContent-Transfer-Encoding: 7bit\n\nplain text\n", 0, "plain" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n--x\n"
		  "Content-Type: application/octet-stream; name=fw.bin\n"
		  "Content-Transfer-Encoding: base64\n\nAAECAw==\n--x--\n", INMAIL_SCAN_MULTIPART,
		  "a base64 attachment of a binary type hides no text" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Transfer-Encoding: base64\nContent-Type: image/png\n\nAAECAw==\n--x--\n",
		  INMAIL_SCAN_MULTIPART, "the type after the encoding" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\nI2J1Zwo=\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "a base64 text part" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Transfer-Encoding: base64\n\nI2J1Zwo=\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "a base64 part of no type (text/plain)" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Type: application/pdf\nContent-Type: text/plain\n"
		  "Content-Transfer-Encoding: base64\n\nI2J1Zwo=\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "two types, one of them text" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Type:\n application/pdf\nContent-Transfer-Encoding: base64\n\nI2J1Zwo=\n"
		  "--x--\n", INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "a folded type: assume text" },
		{ "From: a@b\nSubject: [PATCH] x\n\nfix\n\nLink: https://lore.kernel.org/r/x@y/\n",
		  INMAIL_SCAN_TRAILER, "Link: trailer" },
		{ "From: a@b\n\nfix\nCLOSES: https://bugzilla.kernel.org/show_bug.cgi?id=1\n",
		  INMAIL_SCAN_TRAILER, "Closes: trailer, any case" },
		{ "From: a@b\n\n> Link: https://lore.kernel.org/r/x@y/\n  Closes: 1\n", 0,
		  "quoted or indented: no trailer" },
		{ "From: a@b\nContent-Type: application/octet-stream\n"
		  "Content-Transfer-Encoding: base64\n\nAAECAw==\n", 0, "a mail that is one binary part" },
		{ "From: a@b\nContent-Transfer-Encoding: base64\n\nI2J1Zwo=\n", INMAIL_SCAN_OPAQUE,
		  "a base64 mail of no type" },
		{ "From: a@b\nContent-Transfer-Encoding:\n base64\nContent-Type: text/plain\n\nI2J1Zwo=\n",
		  INMAIL_SCAN_OPAQUE, "a folded encoding" },
		/* found by fuzz-inmail: a last line of blanks without a line end */
		{ "From: a@b\n\nbody\n   ", 0, "trailing blanks" },
		/* quoted-printable may encode any character, and split a line */
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\n"
		  "=23=72egzbot introduced: v6.1\n", INMAIL_SCAN_REGZBOT, "QP: letters encoded" },
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\n#reg=\nzbot title: x\n",
		  INMAIL_SCAN_REGZBOT, "QP: a soft break in the keyword" },
		{ "From: a@b\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
		  "#bug=\r\nbridge close\r\n", INMAIL_SCAN_COMMAND, "QP: a soft break, CRLF" },
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\n=\n=20=09#bugbridge close\n",
		  INMAIL_SCAN_COMMAND, "QP: a soft break, then encoded blanks" },
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\nfix\n\nLi=6Ek: x\n",
		  INMAIL_SCAN_TRAILER, "QP: a trailer encoded" },
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\nsee =\n=23regzbot\n", 0,
		  "QP: a keyword after a soft break is no line's start" },
		{ "From: a@b\nContent-Transfer-Encoding: quoted-printable\n\n"
		  "=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20"
		  "=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20"
		  "=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20=20"
		  "=20=20=20=20=20=20=20=20=20=20#bugbridge close\n", INMAIL_SCAN_OPAQUE,
		  "QP: more encoded blanks than are read: opaque" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n--x\n"
		  "Content-Transfer-Encoding : base64\n\nI2J1Z2JyaWRnZSBjbG9zZQo=\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "a blank before the colon" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n--x\n"
		  "Content-Type:\t\ttext/html\n\n<p>#bugbridge close</p>\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "HTML after tabs" },
		/* bytes the decoded text drops (found by fuzz-inmail with a
		 * stricter check) */
		{ "From: a@b\n\n#bug\x03" "bridge close\n", INMAIL_SCAN_COMMAND,
		  "a control inside the keyword" },
		{ "From: a@b\n\n\x01 #regzbot introduced: v6.1\n", INMAIL_SCAN_REGZBOT,
		  "a control before the keyword" },
		{ "From: a@b\n\nfix\n\nLi\x7f" "nk: x\n", INMAIL_SCAN_TRAILER, "DEL inside a trailer" },
		{ "From: a@b\r\n\r\nplain text\r\n#regzbot title: x\r\n", INMAIL_SCAN_REGZBOT,
		  "CRLF lines" },
		{ "From: a@b\r\n\r\nplain text\r\nmore\r\n", 0, "CRLF lines, no keyword" },
		/* parts whose text inmail_decode() never reads (each hides
		 * "#bugbridge close" in base64; the loop below decodes them) */
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n--x\n"
		  "Content-Type: text/x-patch; name=a.patch\nContent-Disposition: attachment; "
		  "filename=a.patch\nContent-Transfer-Encoding: base64\n\nI2J1Z2JyaWRnZSBjbG9zZQo=\n"
		  "--x--\n", INMAIL_SCAN_MULTIPART, "a base64 patch attached" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n--x\n"
		  "Content-Type: text/plain\nContent-Disposition: ATTACHMENT ;filename=log.txt\n"
		  "Content-Transfer-Encoding: base64\n\nI2J1Z2JyaWRnZSBjbG9zZQo=\n--x--\n",
		  INMAIL_SCAN_MULTIPART, "a base64 text part attached" },
		{ "From: a@b\nContent-Type: multipart/alternative; boundary=x\n\n--x\n\nhi\n--x\n"
		  "Content-Type: text/calendar; method=REQUEST\nContent-Transfer-Encoding: base64\n\n"
		  "I2J1Z2JyaWRnZSBjbG9zZQo=\n--x--\n", INMAIL_SCAN_MULTIPART,
		  "a base64 calendar: no text read" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n--x\n"
		  "Content-Type: appication/octet-stream; name=x\nContent-Transfer-Encoding: base64\n\n"
		  "I2J1Z2JyaWRnZSBjbG9zZQo=\n--x--\n", INMAIL_SCAN_MULTIPART,
		  "a misspelt type is still no text type" },
		/* and those it may read */
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n--x\n"
		  "Content-Type: text/plain\nContent-Disposition: inline\n"
		  "Content-Transfer-Encoding: base64\n\nI2J1Z2JyaWRnZSBjbG9zZQo=\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "a base64 text part inline" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n--x\n"
		  "Content-Type: text/plain\nContent-Disposition: inline\nContent-Disposition: attachment\n"
		  "Content-Transfer-Encoding: base64\n\nI2J1Z2JyaWRnZSBjbG9zZQo=\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "two dispositions: assume text" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n--x\n"
		  "Content-Type: text/plain\nContent-Disposition: attachment (or not)\n"
		  "Content-Transfer-Encoding: base64\n\nI2J1Z2JyaWRnZSBjbG9zZQo=\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "a disposition with a comment: assume text" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n--x\n"
		  "Content-Type: text/calendar/x\nContent-Transfer-Encoding: base64\n\n"
		  "I2J1Z2JyaWRnZSBjbG9zZQo=\n--x--\n", INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE,
		  "junk after the subtype: assume text" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n--x\n"
		  "Content-Type: message/rfc822\nContent-Transfer-Encoding: base64\n\n"
		  "I2J1Z2JyaWRnZSBjbG9zZQo=\n--x--\n", INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE,
		  "a base64 message part: assume text" },
		/* HTML is read only when no text/plain part adds text: beside
		 * one with a letter in it, it hides nothing (the loop below
		 * decodes each to check) */
		{ "From: a@b\nContent-Type: multipart/alternative; boundary=x\n\n--x\n"
		  "Content-Type: text/plain; charset=utf-8\n\nThanks, see below.\n--x\n"
		  "Content-Type: text/html\n\n<p>#bugbridge close</p>\n--x--\n",
		  INMAIL_SCAN_MULTIPART, "HTML beside a text/plain alternative" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\n"
		  "\n=20\n123\nhello\n--x\nContent-Type: text/html; charset=utf-8\n"
		  "Content-Transfer-Encoding: base64\n\nPHA+I3JlZ3pib3QgdGl0bGU6IHg8L3A+Cg==\n--x--\n",
		  INMAIL_SCAN_MULTIPART, "base64 HTML after a text/plain part's letters" },
		/* and where it may be read */
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Type: text/plain\n\n123 -\n--x\n"
		  "Content-Type: text/html\n\n<p>#bugbridge close</p>\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "HTML beside text/plain with no letter" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Type: text/plain\n--x\nContent-Type: text/plain\n\n\n--x\n"
		  "Content-Type: text/html\n\n<p>#bugbridge close</p>\nhello\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "HTML beside empty text/plain parts" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Type: text/plain; name=notes.txt\n\nhello\n--x\n"
		  "Content-Type: text/html\n\n<p>#bugbridge close</p>\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "HTML beside a named text/plain part" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Type: text/plain;\n\tname=notes.txt\n\nhello\n--x\n"
		  "Content-Type: text/html\n\n<p>#bugbridge close</p>\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "HTML beside a text/plain part named on"
		  " a folded line" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Type: text/plain\nContent-Disposition: attachment\n\nhello\n--x\n"
		  "Content-Type: text/html\n\n<p>#bugbridge close</p>\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "HTML beside a text/plain attachment" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Type: text/html\n\n<p>#bugbridge close</p>\n--x\n"
		  "Content-Type: message/rfc822\n\nFrom: c@d\nContent-Type: text/plain\n\nhello\n"
		  "--x--\n", INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE,
		  "HTML beside text/plain in a forwarded mail" },
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
		  "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGVsbG8K\n--x\n"
		  "Content-Type: text/html\n\n<p>#bugbridge close</p>\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "HTML beside a base64 text/plain part" },
		/* a line of the part before a boundary is not the next part's */
		{ "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n"
		  "Content-Disposition: attachment\n--x\nContent-Type: text/plain\n"
		  "Content-Transfer-Encoding: base64\n\nI2J1Z2JyaWRnZSBjbG9zZQo=\n--x--\n",
		  INMAIL_SCAN_MULTIPART | INMAIL_SCAN_OPAQUE, "an attachment line before the boundary" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct inmail m;
		size_t len = strlen(cases[i].mail);

		is_int(inmail_raw_scan(cases[i].mail, len), cases[i].want, "raw scan: %s",
		       cases[i].name);
		if (inmail_parse_headers(cases[i].mail, len, NULL, &m, NULL) == BB_OK)
			is_int(inmail_scan(&m, cases[i].mail, len), cases[i].want,
			       "body scan after the header pass: %s", cases[i].name);
		else
			ok(0, "headers of %s", cases[i].name);
		inmail_release(&m);
		/* what the scan does not flag, the decoded text does not hold */
		if (!(cases[i].want & INMAIL_SCAN_OPAQUE)) {
			struct inmail_body b;

			if (decode(cases[i].mail, &b) == BB_OK) {
				unsigned missed = text_flags(b.text) & ~cases[i].want;

				if (missed)
					diag("%s: the decoded text calls for %#x", cases[i].name, missed);
				ok(!missed, "decoded as scanned: %s", cases[i].name);
				inmail_body_release(&b);
			}
		}
	}
}

static void test_decode_text(void)
{
	struct inmail_body b;
	struct buf big = BUF_INIT;

	if (decode("From: a@b\nContent-Type: text/plain; charset=iso-8859-1\n"
		   "Content-Transfer-Encoding: quoted-printable\n\nJ=F6rg said =93hi=94 caf=E9=\n"
		   "\r\nnext\r\n", &b) == BB_OK) {
		is_str(b.text, "J\xc3\xb6rg said \xe2\x80\x9chi\xe2\x80\x9d caf\xc3\xa9\nnext\n",
		       "latin1 label, cp1252 quotes, soft line break, CRLF");
		inmail_body_release(&b);
	}
	/* a one-part mail's text is cleaned where it was converted (not
	 * copied again): CRLF and a lone CR are LF, other controls and DEL
	 * go, in runs longer and shorter than 8 bytes; two text parts are
	 * cleaned alike, a blank line apart */
	if (decode("From: a@b\nContent-Type: text/plain; charset=utf-8\n\n"
		   "a longer first line\r\nshort\rx\x01y\x7fz\tand the rest of it\r\n"
		   "\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f end\r", &b) == BB_OK) {
		is_str(b.text, "a longer first line\nshort\nxyz\tand the rest of it\n end\n",
		       "one part: CRLF, lone CR, controls and DEL cleaned in place");
		inmail_body_release(&b);
	}
	if (decode("From: a@b\nContent-Type: multipart/mixed; boundary=B\n\n--B\n"
		   "Content-Type: text/plain\n\none\rtwo\x01\n--B\n"
		   "Content-Type: text/plain\n\nthree\r\nfour\x7f\n--B--\n", &b) == BB_OK) {
		is_str(b.text, "one\ntwo\n\nthree\nfour\n", "two parts: both cleaned");
		inmail_body_release(&b);
	}
	/* the top part is parsed as a part; a header section GMime's part
	 * parser does not take (a second "From " line) goes through its
	 * message parser, as before */
	if (decode("From someone@example.org Thu Jan  1 00:00:00 2026\n"
		   "From nobody Thu Jan  1 00:00:00 2026\nFrom: b@example.org\nSubject: x\n"
		   "Content-Type: text/plain; charset=utf-8\n\nthe body\r\n", &b) == BB_OK) {
		is_str(b.text, "the body\n", "a second \"From \" line: the body all the same");
		inmail_body_release(&b);
	}
	/* the header section GMime is given is cut down to its Content-
	 * fields and a field of blanks in place of the rest: a mail whose
	 * other fields are too short for that one, one with CRLF lines and
	 * folded fields, one whose fields are not plain, all read as before */
	if (decode("To: a@b\nContent-Type: text/plain; charset=iso-8859-1\n\ncaf\xe9\n", &b) ==
	    BB_OK) {
		is_str(b.text, "caf\xc3\xa9\n", "little to cut: the whole header");
		inmail_body_release(&b);
	}
	if (decode("Received: from a by b;\r\n\tMon, 1 Jun 2026 10:00:00 +0000\r\n"
		   "DKIM-Signature: v=1; a=rsa-sha256; d=example.org;\r\n b=abcdefgh\r\n"
		   "Content-Type: multipart/mixed;\r\n boundary=\"XY\"\r\nSubject: s\r\n\r\n"
		   "--XY\r\nContent-Type: text/plain\r\n\r\nfirst\r\n"
		   "--XY\r\nContent-Type: application/octet-stream\r\n"
		   "Content-Disposition: attachment; filename=dump.bin\r\n"
		   "Content-Transfer-Encoding: base64\r\n\r\nAAEC\r\n--XY--\r\n", &b) == BB_OK) {
		is_str(b.text, "first\n", "CRLF, folded fields: the text part");
		ok(b.nparts == 1 && b.parts[0].len == 3 && b.parts[0].filename &&
		   !strcmp(b.parts[0].filename, "dump.bin"), "and the attachment");
		inmail_body_release(&b);
	}
	if (decode("Received: from a by b; Mon, 1 Jun 2026 10:00:00 +0000\n"
		   "Not a field\nContent-Type: text/plain\n\nbody\n", &b) == BB_OK) {
		is_str(b.text, "body\n", "a line that is no field: read whole");
		inmail_body_release(&b);
	}
	/* a To: and Cc: of many addresses (not parsed for the body) */
	buf_addstr(&big, "From: a@b\nTo: ");
	for (int i = 0; i < 2000; i++)
		buf_addf(&big, "%sPerson %d <p%d@example.org>", i ? ",\n " : "", i, i);
	buf_addstr(&big, "\nContent-Type: text/plain\n\n#regzbot introduced: v6.1..v6.2\n");
	if (decode(big.data, &b) == BB_OK) {
		is_str(b.text, "#regzbot introduced: v6.1..v6.2\n", "2,000 addresses: the body");
		inmail_body_release(&b);
	}
	buf_release(&big);
	if (decode("From: a@b\nContent-Type: text/plain; charset=x-no-such-charset\n\ncaf\xe9\n", &b) ==
	    BB_OK) {
		is_str(b.text, "caf\xc3\xa9\n", "unknown charset: windows-1252 fallback");
		inmail_body_release(&b);
	}
	if (decode("From: a@b\nContent-Type: text/plain; charset=\"'\"\n\nJ\xc3\xb6rg \xe2\x82\xac\n", &b) ==
	    BB_OK) {
		is_str(b.text, "J\xc3\xb6rg \xe2\x82\xac\n", "charset=\"'\" on UTF-8: read as UTF-8");
		inmail_body_release(&b);
	}
	if (decode("From: a@b\nContent-Type: text/plain; charset=\"'\"\n\nJ\xf6rg \x80\n", &b) == BB_OK) {
		is_str(b.text, "J\xc3\xb6rg \xe2\x82\xac\n", "charset=\"'\" on 8-bit: windows-1252");
		inmail_body_release(&b);
	}
	if (decode("From: a@b\nContent-Type: text/plain; charset=\"-\"\n"
		   "Content-Transfer-Encoding: base64\n\nSsO2cmcK\n", &b) == BB_OK) {
		is_str(b.text, "J\xc3\xb6rg\n", "charset=\"-\" on base64 UTF-8: UTF-8");
		inmail_body_release(&b);
	}
	if (decode("From: a@b\nContent-Type: text/plain; charset=us-ascii\n\nJ\xc3\xb6rg\n", &b) == BB_OK) {
		is_str(b.text, "J\xc3\xb6rg\n", "ASCII label on UTF-8: UTF-8");
		inmail_body_release(&b);
	}
	if (decode("From: a@b\nContent-Type: text/plain; charset=utf-8\n\nok \xff\xfe end\x1b[0m\n", &b) ==
	    BB_OK) {
		ok(clean_utf8(b.text, 1) && strstr(b.text, "\xef\xbf\xbd") && strstr(b.text, "end[0m"),
		   "invalid UTF-8 repaired, escape dropped");
		inmail_body_release(&b);
	}
	if (decode("From: a@b\nContent-Type: text/plain; charset=utf-16le\n"
		   "Content-Transfer-Encoding: base64\n\nSABpACEACgA=\n", &b) == BB_OK) {
		is_str(b.text, "Hi!\n", "UTF-16LE base64 body");
		inmail_body_release(&b);
	}
	if (decode("From: a@b\nContent-Type: text/plain; charset=iso-2022-jp\n\n"
		   "\x1b$B$3$s$K$A$O\x1b(B\n", &b) == BB_OK) {
		is_str(b.text, "\xe3\x81\x93\xe3\x82\x93\xe3\x81\xab\xe3\x81\xa1\xe3\x81\xaf\n",
		       "ISO-2022-JP body");
		inmail_body_release(&b);
	}
	if (decode("From: a@b\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\n"
		   "!!!not base64 at all***\n", &b) == BB_OK) {
		ok(clean_utf8(b.text, 1), "broken base64: some clean text, no error");
		inmail_body_release(&b);
	}
	/* found by fuzz-inmail: GMime's 8-bit fallback can give invalid UTF-8;
	 * HTML text nodes can hold control characters */
	if (decode("From: a@b\n\nel\xce\x90\x8d\x98\xf5\xac\x8a\x9dje\n", &b) == BB_OK) {
		ok(clean_utf8(b.text, 1) && g_str_has_prefix(b.text, "el"), "bad 8-bit bytes: clean text");
		inmail_body_release(&b);
	}
	if (decode("From: a@b\nContent-Type: text/html\n\n<p>a\x01" "b\x1e\rc</p>\n", &b) == BB_OK) {
		ok(clean_utf8(b.text, 1) && !strcmp(b.text, "ab c\n"), "HTML with controls: clean text");
		inmail_body_release(&b);
	}
	if (decode("From: a@b\nSubject: no body\n", &b) == BB_OK) {
		is_str(b.text, "", "no body: empty text");
		inmail_body_release(&b);
	}
	buf_addstr(&big, "From: a@b\nContent-Type: text/html; charset=utf-8\n\n<html><head><style>p{}</style>"
		   "<title>T</title></head><body><p>Hello &amp; <b>welcome</b></p><blockquote>quoted"
		   "<br>two</blockquote><pre>  code\n  more</pre><script>evil()</script></body></html>\n");
	if (decode(big.data, &b) == BB_OK) {
		is_str(b.text, "Hello & welcome\n> quoted\n> two\n  code\n  more\n", "HTML to text");
		ok(b.from_html, "HTML-only: marked");
		inmail_body_release(&b);
	}
	buf_release(&big);
}

/* Issue 14: encoded words after a padded base64 word, bogus Message-IDs. */
static void test_encoded_words(void)
{
	struct inmail m;
	static const struct {
		const char *subject, *want, *what;
	} cases[] = {
		{ "=?UTF-8?B?YWI=?= =?UTF-8?B?Y2Q=?=", "abcd", "padded B word then another" },
		{ "=?UTF-8?B?YWI=?=\n =?utf-8?B?Y2Q=?= =?UTF-8?B?ZWY=?= tail", "abcdef tail",
		  "three words, folded, charset case differs" },
		{ "=?UTF-8?B?YWI?= =?UTF-8?B?Y2Q=?=", "abcd", "unpadded short B word" },
		{ "=?UTF-8?B?YcM=?= =?UTF-8?B?qWI=?=", "a\xc3\xa9" "b", "a character split across padded words" },
		{ "x =?UTF-8?B?YWI=?= y =?UTF-8?B?Y2Q=?=", "x ab y cd", "words apart keep their text" },
		{ "=?UTF-8?B?YWI=?= =?ISO-8859-1?Q?caf=E9?=", "abcaf\xc3\xa9", "another charset follows" },
		{ "=?UTF-8?B?YWI=?= =?UTF-8?Q?cd?=", "abcd", "Q word follows" },
		{ "=?utf-8?b?W1JFR1JFU1NJT05dIG5leHQvbWFzdGVyOiAoYnVpbGQpIHBhc3NpbmcgYXJndQ==?=\n"
		  " =?utf-8?b?bWVudCAxIG9mIOKAmGtzaXpl4oCZIGRpc2NhcmRzIOKAmGNvbnN04oCZIHF1YWxpZg==?=\n"
		  " =?utf-8?b?aWVyIGZyb20gcG9pbnRlciB0YXJnZXQgdHlwZSBpbiBtbS9zbGFiX2NvbW1vbi5j?=",
		  "[REGRESSION] next/master: (build) passing argument 1 of \xe2\x80\x98ksize\xe2\x80\x99 "
		  "discards \xe2\x80\x98" "const\xe2\x80\x99 qualifier from pointer target type in "
		  "mm/slab_common.c", "KernelCI [REGRESSION] subject" },
		{ "=?UTF-8?B?YWI=?", "=?UTF-8?B?YWI=?", "a cut word stays text" },
	};
	struct buf mail = BUF_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf_reset(&mail);
		buf_addf(&mail, "From: a@example.org\nSubject: %s\nMessage-ID: <e%zu@x>\n\nbody\n",
			 cases[i].subject, i);
		if (ok(parse(mail.data, NULL, &m) == BB_OK, "subject %s: parses", cases[i].what)) {
			is_str(m.subject, cases[i].want, "subject: %s", cases[i].what);
			inmail_release(&m);
		}
	}
	if (parse("From: =?UTF-8?B?SsO2cmc=?= =?UTF-8?B?IE0=?= <j@example.org>\nSubject: s\n\nb\n",
		  NULL, &m) == BB_OK) {
		is_str(m.from_name, "J\xc3\xb6rg M", "From name after a padded word");
		inmail_release(&m);
	}

	static const struct {
		const char *header, *want, *what;
	} ids[] = {
		{ "<=?utf-8?q?abc?=\n =?utf-8?q?def?=@example.org>", "=?utf-8?q?abc?==?utf-8?q?def?=@example.org",
		  "folded encoded words inside <>" },
		{ "< a b@example.org >", "ab@example.org", "blanks inside <>" },
		{ "<\"x y\"@example.org>", "\"xy\"@example.org", "quoted local part" },
		{ "  no-brackets@example.org  ", "no-brackets@example.org", "no brackets" },
		{ "<unclosed@example.org", "unclosed@example.org", "no closing bracket" },
		{ "<ok@example.org> trailing junk", "ok@example.org", "junk after the id" },
	};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		buf_reset(&mail);
		buf_addf(&mail, "From: a@example.org\nSubject: s\nMessage-ID: %s\n\nbody\n", ids[i].header);
		if (ok(parse(mail.data, NULL, &m) == BB_OK, "Message-ID %s: parses", ids[i].what)) {
			is_str(m.message_id, ids[i].want, "Message-ID kept: %s", ids[i].what);
			inmail_release(&m);
		}
	}
	/* a reply naming the malformed id the same way threads to it */
	if (parse("From: a@example.org\nSubject: Re: s\nMessage-ID: <r@x>\n"
		  "In-Reply-To: < a b@example.org >\nReferences: <root@x> < a b@example.org >\n\nb\n",
		  NULL, &m) == BB_OK) {
		is_str(m.in_reply_to, "ab@example.org", "In-Reply-To normalised the same way");
		ok(m.nreferences == 2 && !strcmp(m.references[1], "ab@example.org"),
		   "References normalised the same way");
		inmail_release(&m);
	}
	buf_reset(&mail);
	buf_addstr(&mail, "From: a@example.org\nSubject: s\nMessage-ID: <");
	for (int i = 0; i < INMAIL_MESSAGE_ID_MAX; i++)
		buf_addstr(&mail, "a ");
	buf_addstr(&mail, "@x>\n\nbody\n");
	if (parse(mail.data, NULL, &m) == BB_OK) {
		ok(!m.message_id, "Message-ID over the length cap after normalising: none");
		inmail_release(&m);
	}
	if (parse("From: a@example.org\nSubject: s\nMessage-ID: < >\n\nb\n", NULL, &m) == BB_OK) {
		ok(!m.message_id, "empty <>: no Message-ID");
		inmail_release(&m);
	}
	buf_release(&mail);
}

/* A mail of one leaf part is decoded without GMime's parser
 * (single_part()): for each shape of such a part, and for mail it leaves
 * to the parser, the decode is what the parser gives. */
static void test_single_part(void)
{
	static const char *const heads[] = {
		"",
		"Content-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: 8bit\n",
		"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n",
		"Content-Type: text/plain\nContent-Transfer-Encoding:  Base64 \n",
		"Content-Type: text/plain\nContent-Transfer-Encoding:\n base64\n",
		"Content-Type: text/plain;\n\tcharset=\"utf-8\";\n\tformat=flowed\n",
		"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n",
		"Content-Type: text/html; charset=utf-8\n",
		"Content-Type: application/octet-stream; name=\"fw.bin\"\n"
		"Content-Transfer-Encoding: base64\n",
		"Content-Type: text/plain\nContent-Disposition: attachment;\n"
		" filename*=UTF-8''%E2%82%AC%20log.txt\n",
		"Content-Type: text/plain; name=\"=?UTF-8?B?w6lsw6kudHh0?=\"\n",
		"Content-Type: text/plain; name=\"caf\xe9.txt\"\n",
		"Content-Type: text/x-patch; name=\"fix.patch\"\nContent-Disposition: inline;"
		" filename=\"fix.patch\"\n",
		"Content-Type: text/plain\nContent-Disposition: inline; filename=\"notes.txt\"\n",
		"Content-Type: text/plain\nContent-Transfer-Encoding: x-uuencode\n",
		"Content-Type: text/plain\nContent-Transfer-Encoding: x-foo\n",
		"Content-Type: text/plain; charset=\"'\"\n",
		"Content-Type: text/plain; charset=utf-16\nContent-Transfer-Encoding: base64\n",
		"Content-Type: application/pkcs7-mime; smime-type=enveloped-data\n",
		"Content-Type: application/pgp-signature\n",
		"Content-Type: TEXT/PLAIN; CHARSET=US-ASCII\n",
		"Content-Type: text/plain (a comment); charset=utf-8\n",
		"Content-Type: garbage\n",
		"Content-Type: text/\n",
		"Content-type: text/x-diff\n",
		"Content-Type: message/rfc822\n",
		"Content-Type: multipart/mixed\n",
		"Content-Type: text/plain\nContent-Type: text/html\n",
		"Content-Transfer-Encoding: base64\nContent-Transfer-Encoding: 7bit\n",
		"Content-Type: text/plain\nContent-Disposition: attachment\n"
		"Content-Disposition: inline\n",
		"Content-Description: a \xe9t\xe9 log\nContent-ID: <x@y>\n",
		"From: A <a@example.org>\nContent-Type: text/plain\n",
		"Content-Type: =?utf-8?q?text/plain?=\n",
		"Content-Type: =?utf-8?q?multipart/mixed=3B_boundary=3Dx?=\n",
		"Content-Type: text/plain; name=\"=?UTF-8?Q?a=22;_x=3Dy?=\"\n",
		"Content-Type: attachment; filename=\"a.txt\"\n",
		"Content-Transfer-Encoding: =?us-ascii?q?base64?=\n",
		"Content-Type: multipart/\215mixed; boundary=\"B\"\n",
		"Content-Type: text/\351plain\n",
	};
	static const char *const bodies[] = {
		"hello\n#regzbot introduced: v6.1..v6.2\n",
		"no final newline",
		"",
		"\n\n",
		"caf\xe9 \xe0 la cr\xe8me\n",
		"I3JlZ3pib3QgaW50cm9kdWNlZDogdjYuMQpoZWxsbyB3b3JsZAo=\n",
		"I3Jl Z3pi!!b3Qg\naW50cm9kdWNlZDogdjYuMQo=\n--x\nmore\n",
		"soft=\nbreak and =E2=82=AC\n#bugbridge=20close\n",
		"soft=\r\nbreak\r\n",
		"begin 644 a.txt\n#:&5L;&\\*\n`\nend\n",
		"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
		"<html><body><p>#regzbot ^introduced v6.1</p></body></html>\n",
		"//79/wA=\n",
		"From me\nhello\n",
		"--B\nContent-Type: text/plain\n\n#regzbot ignore-activity\n--B--\n",
	};
	size_t same = 0, cases = 0;

	for (size_t h = 0; h < G_N_ELEMENTS(heads); h++) {
		for (size_t k = 0; k < G_N_ELEMENTS(bodies); k++) {
			for (int crlf = 0; crlf < 2; crlf++) {
				GString *mail = g_string_new("Subject: one part\nMessage-ID: <p@example.org>\n");
				struct inmail_body b;
				struct bb_error err = BB_ERROR_INIT;

				g_string_append(mail, heads[h]);
				g_string_append(mail, "\n");
				g_string_append(mail, bodies[k]);
				if (crlf) {
					GString *c = g_string_new(NULL);

					for (const char *p = mail->str; *p; p++) {
						if (*p == '\n')
							g_string_append_c(c, '\r');
						g_string_append_c(c, *p);
					}
					g_string_free(mail, TRUE);
					mail = c;
				}
				cases++;
				if (inmail_decode(mail->str, mail->len, &b, &err) == BB_OK) {
					if (same_as_parsed(mail->str, mail->len, &b))
						same++;
					else
						diag("differs from GMime's parser: head %zu, body %zu%s", h, k,
						     crlf ? ", CRLF" : "");
					inmail_body_release(&b);
				}
				g_string_free(mail, TRUE);
			}
		}
	}
	is_int((long long)same, (long long)cases,
	       "single part: %zu shapes decode as GMime's parser decodes them", cases);
	{
		/* and a few by what they must give */
		struct inmail_body b;

		ok(decode("Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n"
			  "I3JlZ3pib3QgaW50cm9kdWNlZDogdjYuMQo=\n", &b) == BB_OK &&
		   !strcmp(b.text, "#regzbot introduced: v6.1\n"), "single part: base64 text decoded");
		inmail_body_release(&b);
		ok(decode("Content-Type: application/octet-stream; name=\"fw.bin\"\n"
			  "Content-Transfer-Encoding: base64\n\n//79/wA=\n", &b) == BB_OK &&
		   b.nparts == 1 && b.parts[0].len == 5 && !strcmp(b.parts[0].filename, "fw.bin") &&
		   !strcmp(b.parts[0].content_type, "application/octet-stream") && !strcmp(b.text, ""),
		   "single part: a binary part is an attachment, its bytes decoded");
		inmail_body_release(&b);
		ok(decode("Content-Type: application/pkcs7-mime\n\nMIAG\n", &b) == BB_OK && b.encrypted,
		   "single part: S/MIME enveloped data is encrypted content");
		inmail_body_release(&b);
	}
}

static void test_decode_parts(void)
{
	struct inmail_body b;
	struct buf m = BUF_INIT;
	struct bb_error err = BB_ERROR_INIT;

	buf_addstr(&m, "From: a@b\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n"
		   "--B\nContent-Type: multipart/alternative; boundary=\"A\"\n\n"
		   "--A\nContent-Type: text/html\n\n<p>html version</p>\n"
		   "--A\nContent-Type: text/plain; charset=utf-8\n\nplain version\n--A--\n"
		   "--B\nContent-Type: application/octet-stream\n"
		   "Content-Disposition: attachment; filename*=UTF-8''%E2%82%AC%20dump.bin\n"
		   "Content-Transfer-Encoding: base64\n\nAAECA/8=\n"
		   "--B\nContent-Type: text/plain; name=\"=?utf-8?q?r=C3=A9sum=C3=A9.txt?=\"\n"
		   "Content-Disposition: attachment; filename=\"../../etc/passwd\"\n\nsecret\n"
		   "--B\nContent-Type: text/x-patch\nContent-Disposition: inline; filename=fix.patch\n\n"
		   "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n"
		   "--B\nContent-Type: message/rfc822\n\nFrom: x@y\nSubject: inner\n\ninner body\n"
		   "--B\nContent-Type: application/pgp-signature\n\n-----BEGIN PGP SIGNATURE-----\n"
		   "--B--\n");
	if (decode(m.data, &b) == BB_OK) {
		ok(g_str_has_prefix(b.text, "plain version\n") && !strstr(b.text, "html version"),
		   "alternative: the plain part");
		ok(strstr(b.text, "+new\n") != NULL, "inline patch part joins the body");
		is_int(b.nparts, 3, "three attachments (the signature is none)");
		if (b.nparts == 3) {
			is_str(b.parts[0].filename, "\xe2\x82\xac dump.bin", "RFC 2231 file name");
			ok(b.parts[0].len == 5 && !memcmp(b.parts[0].data, "\0\1\2\3\xff", 5),
			   "base64 bytes decoded");
			is_str(b.parts[1].filename, "passwd", "a path in a file name is cut to its base");
			is_str(b.parts[1].content_type, "text/plain", "claimed type kept");
			is_str(b.parts[2].content_type, "message/rfc822", "attached mail");
			ok(strstr((char *)b.parts[2].data, "inner body") != NULL, "... with its text");
		}
		inmail_body_release(&b);
	}
	buf_reset(&m);
	buf_addstr(&m, "From: a@b\nContent-Type: multipart/mixed; boundary=x\n\n");
	for (int i = 0; i <= INMAIL_PARTS_MAX; i++)
		buf_addf(&m, "--x\nContent-Type: application/octet-stream\n\npart %d\n", i);
	buf_addstr(&m, "--x--\n");
	ok(inmail_decode(m.data, m.len, &b, &err) == BB_ERR_TOO_LARGE && strstr(err.message, "parts"),
	   "too many parts: %s", err.message);
	buf_reset(&m);
	buf_addstr(&m, "From: a@b\n");
	for (int i = 0; i < 200; i++)
		buf_addf(&m, "Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n", i, i);
	buf_addstr(&m, "Content-Type: text/plain\n\ndeep\n");
	if (decode(m.data, &b) == BB_OK) {
		ok(b.skipped_parts > 0 && !strstr(b.text, "deep"), "nesting past the depth cap is skipped");
		inmail_body_release(&b);
	}
	buf_reset(&m);
	buf_addstr(&m, "From: a@b\nContent-Type: multipart/signed; boundary=s; protocol=x\n\n"
		   "--s\nContent-Type: text/plain\n\nsigned words\n--s\n"
		   "Content-Type: application/pgp-signature\n\nsig\n--s--\n");
	if (decode(m.data, &b) == BB_OK) {
		ok(!strcmp(b.text, "signed words\n") && b.nparts == 0, "signed: the content only");
		inmail_body_release(&b);
	}
	buf_release(&m);
	ok(inmail_decode("x", (size_t)INMAIL_RAW_MAX + 1, &b, &err) == BB_ERR_TOO_LARGE,
	   "over INMAIL_RAW_MAX: refused before reading");
}

static void test_reply_text(void)
{
	static const struct {
		const char *body, *want, *name;
	} cases[] = {
		{ "On Mon, Jane wrote:\n> one\n> two\n> three\n> four\n> five\n\nMy answer.\n",
		  "On Mon, Jane wrote:\n> [...]\n> three\n> four\n> five\n\nMy answer.\n",
		  "long quote cut to its last lines" },
		{ "> a\n> b\nreply one\n\n> c\nreply two\n",
		  "> a\n> b\nreply one\n\n> c\nreply two\n", "short quotes kept" },
		{ "Top post.\n\nOn Mon, 1 Jan 2024, Jane Doe\n<jane@example.org> wrote:\n> old\n> older\n",
		  "Top post.\n", "top-post: the quote and its attribution go" },
		{ "Fine.\n-----Original Message-----\nFrom: x\nSent: y\n\nold text\n", "Fine.\n",
		  "Outlook top-post" },
		{ "Thanks!\n\n-- \nJane\nhttps://example.org\n", "Thanks!\n", "signature dropped" },
		{ "Fine.\n\n________________________________\nFrom: x\nSent: y\n\nold text\n",
		  "Fine.\n", "Outlook top-post below a rule of underscores" },
		{ "Fine.\n\nFrom: x\nSent: y\nTo: z\n\nold text\n", "Fine.\n",
		  "desktop Outlook top-post: From: and Sent:" },
		{ "FYI.\n\n---------- Forwarded message ---------\nFrom: x\n\n\n\nthe report\n",
		  "FYI.\n\n---------- Forwarded message ---------\nFrom: x\n\nthe report\n",
		  "a forwarded mail is kept" },
		{ "Patch:\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,2 @@\n-- \n x\n-y\n"
		  "\n-- \n2.43.0\n",
		  "Patch:\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,2 @@\n-- \n x\n-y\n",
		  "\"-- \" inside a hunk is a hunk line; the patch is whole" },
		{ "a\n\n\n\nb\n\n\n", "a\n\nb\n", "blank lines collapsed" },
		{ "> only quote\n", "", "only a quote" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = inmail_reply_text(cases[i].body);

		is_str(got, cases[i].want, "reply: %s", cases[i].name);
		free(got);
	}
}

static void test_lines(void)
{
	const char *text = "hi\n> q\n\n@@ -1,2 +1,2 @@\n-a\n+b\n c\ntext\n-- \nsig\n";
	static const enum inmail_line_kind want[] = {
		INMAIL_LINE_TEXT, INMAIL_LINE_QUOTE, INMAIL_LINE_BLANK, INMAIL_LINE_PATCH,
		INMAIL_LINE_PATCH, INMAIL_LINE_PATCH, INMAIL_LINE_PATCH, INMAIL_LINE_TEXT,
		INMAIL_LINE_SIGNATURE, INMAIL_LINE_SIGNATURE,
	};
	struct inmail_lines it;
	const char *s;
	size_t len, n = 0;
	enum inmail_line_kind kind;
	int good = 1;

	inmail_lines_init(&it, text, strlen(text));
	while (inmail_lines_next(&it, &s, &len, &kind)) {
		if (n >= sizeof(want) / sizeof(want[0]) || kind != want[n] || it.lineno != n + 1)
			good = 0;
		n++;
	}
	ok(good && n == sizeof(want) / sizeof(want[0]), "line kinds");

	/* from a forward's marker on, every line is forwarded, whatever it
	 * looks like; a diff in it stays a diff */
	{
		const char *fw = "mine\nBegin forwarded message:\n\ntheirs\n-- \nsig\n"
				 "diff --git a/x b/x\n";
		static const enum inmail_line_kind fwant[] = {
			INMAIL_LINE_TEXT, INMAIL_LINE_FORWARDED, INMAIL_LINE_FORWARDED,
			INMAIL_LINE_FORWARDED, INMAIL_LINE_FORWARDED, INMAIL_LINE_FORWARDED,
			INMAIL_LINE_PATCH,
		};

		n = 0;
		good = 1;
		inmail_lines_init(&it, fw, strlen(fw));
		while (inmail_lines_next(&it, &s, &len, &kind)) {
			if (n >= sizeof(fwant) / sizeof(fwant[0]) || kind != fwant[n])
				good = 0;
			n++;
		}
		ok(good && n == sizeof(fwant) / sizeof(fwant[0]), "line kinds of a forward");
	}
}

struct split_state {
	size_t n;
	int good;
};

static enum bb_status split_one(void *ctx, const char *raw, size_t len)
{
	struct split_state *s = ctx;
	struct inmail m;
	struct bb_error err = BB_ERROR_INIT;
	char want[32];

	snprintf(want, sizeof(want), "m%zu@x", ++s->n);
	if (inmail_parse_headers(raw, len, NULL, &m, &err) != BB_OK || !m.message_id ||
	    strcmp(m.message_id, want) || len == 0 || raw[len - 1] != '\n' ||
	    (len > 1 && raw[len - 2] == '\n'))
		s->good = 0;
	inmail_release(&m);
	return BB_OK;
}

static void test_mbox(void)
{
	const char *mbox =
		"From a@b Thu Jan  1 00:00:00 2025\nFrom: a@b\nMessage-ID: <m1@x>\n\none\n>From here\n\n"
		"From a@b Thu Jan  1 00:00:01 2025\nFrom: a@b\nMessage-ID: <m2@x>\n\ntwo\n\n"
		"From a@b Thu Jan  1 00:00:02 2025\nFrom: a@b\nMessage-ID: <m3@x>\n\nthree\n";
	struct split_state s = { 0, 1 };
	struct bb_error err = BB_ERROR_INIT;

	ok(inmail_mbox_split(mbox, strlen(mbox), split_one, &s, &err) == BB_OK && s.n == 3 && s.good,
	   "mbox: three messages, each without the separating blank line");
	ok(inmail_mbox_split("no mbox\n", 8, split_one, &s, &err) == BB_ERR_INVALID,
	   "not an mbox: invalid");
}

/* The From: values parsed last are kept per thread (FROM_MEMO_MAX of them):
 * a value seen again gives what it gave the first time, in copies of its
 * own; more values than are kept, a long one, one of no mailbox and one
 * in encoded words give what a first parse gives. */
struct from_case {
	const char *from, *name, *addr;
};

static int from_parses(const struct from_case *c, const char *what)
{
	struct inmail m;
	char *mail = str_printf("From: %s\nMessage-ID: <memo@x>\n\nhi\n", c->from);
	int good = 0;

	if (parse(mail, NULL, &m) == BB_OK) {
		good = !strcmp(m.from_name, c->name) &&
		       (c->addr ? m.from_addr && !strcmp(m.from_addr, c->addr) : !m.from_addr);
		if (!good)
			diag("%s: From: %s gave \"%s\" <%s>", what, c->from, m.from_name,
			     m.from_addr ? m.from_addr : "(none)");
		inmail_release(&m);
	}
	free(mail);
	return good;
}

static void *from_in_thread(void *arg)
{
	return (void *)(intptr_t)from_parses(arg, "another thread");
}

static void test_from_memo(void)
{
	char long_name[600];
	struct from_case cases[] = {
		{ "Ann Example <Ann@EXAMPLE.org>", "Ann Example", "Ann@example.org" },
		{ "=?UTF-8?Q?J=C3=B6rg?= <joerg@example.org>", "J\xc3\xb6rg", "joerg@example.org" },
		{ "undisclosed-recipients:;", "", NULL },
		{ NULL, NULL, "long@example.org" },
	};
	int bad = 0;
	pthread_t th;
	void *res = NULL;

	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	cases[3].from = str_printf("%s <long@example.org>", long_name);
	cases[3].name = long_name;
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			bad += !from_parses(&cases[i], "again");
	is_int(bad, 0, "From: the same values parsed three times give the same");
	bad = 0;
	for (int i = 0; i < 5000; i++) {   /* past FROM_MEMO_MAX */
		char from[96], name[32], addr[32];
		struct from_case c = { from, name, addr };

		snprintf(name, sizeof(name), "Person %d", i % 4500);
		snprintf(addr, sizeof(addr), "p%d@example.org", i % 4500);
		snprintf(from, sizeof(from), "%s <%s>", name, addr);
		bad += !from_parses(&c, "many");
	}
	is_int(bad, 0, "From: 5,000 values (more than are kept) give each its own");
	ok(pthread_create(&th, NULL, from_in_thread, &cases[1]) == 0 && pthread_join(th, &res) == 0 &&
	   res == (void *)(intptr_t)1, "From: another thread gives the same");
	free((char *)cases[3].from);
}

/* The time of "Date: Mon, 1 Jan 2024 12:00:00 <zone>" (0 if unparsed). */
static long long date_of(const char *zone)
{
	struct inmail m;
	char *mail = str_printf("Date: Mon, 1 Jan 2024 12:00:00 %s\nMessage-ID: <d@x>\n\nhi\n",
				zone);
	long long t = 0;

	if (parse(mail, NULL, &m) == BB_OK) {
		t = (long long)inmail_date(&m);
		inmail_release(&m);
	}
	free(mail);
	return t;
}

/* Every numeric zone from -1200 to +1400 by five minutes (313: more than
 * the zones the header pass keeps loaded), a second round of the same
 * (the kept ones and the others), and named zones. */
static void test_dates(void)
{
	const long long noon = 1704110400;   /* 2024-01-01 12:00:00 UTC */
	int bad = 0, n = 0;

	for (int round = 0; round < 2; round++)
		for (int q = -144; q <= 168; q++) {
			int minutes = q * 5, a = minutes < 0 ? -minutes : minutes;
			char zone[8];
			long long want = noon - (long long)minutes * 60, got;

			snprintf(zone, sizeof(zone), "%c%02d%02d", minutes < 0 ? '-' : '+', a / 60,
				 a % 60);
			if ((got = date_of(zone)) != want) {
				bad++;
				diag("Date zone %s (round %d): %lld, not %lld", zone, round, got, want);
			}
			n++;
		}
	is_int(bad, 0, "Date: 313 zones twice, each its own time");
	ok(n == 626, "Date: as many dates as zones asked");
	is_int(date_of("GMT"), noon, "Date: GMT");
	is_int(date_of("EST"), noon + 5 * 3600, "Date: EST");
	is_int(date_of("+0000 (UTC)"), noon, "Date: +0000 with a comment");
	is_int(date_of("+0530"), noon - 5 * 3600 - 30 * 60, "Date: +0530 again, after the others");
}

/* The fields the header pass looks for are found whatever fields come
 * around them, and others of similar names are not taken for them. */
static void test_field_names(void)
{
	struct inmail m;
	const char *mail = "Received: from a\n\tby b\n"
			   "DKIM-Signature: v=1\n"
			   "Message-IDs: <not@x>\n"
			   "Message-ID: <id@x>\n"
			   "Date2: Mon, 1 Jan 2024 12:00:00 +0000\n"
			   "X-Mailing-List-Name: x\n"
			   "Subjects: no\n"
			   "Subject: yes\n"
			   "List-Unsubscribe-Post-A-Very-Long-Field-Name-Indeed: x\n"
			   "\nhi\n";

	if (parse(mail, NULL, &m) == BB_OK) {
		is_str(m.message_id, "id@x", "fields: Message-ID, not Message-IDs");
		is_str(m.subject, "yes", "fields: Subject, not Subjects");
		is_int(inmail_date(&m), 0, "fields: no Date from Date2");
		ok(!m.list_id, "fields: no List-Id");
		inmail_release(&m);
	} else {
		ok(0, "fields: parsed");
	}
}

/* The header pass splits fields by their line ends alone (a field runs to
 * the next line that starts with no blank) and reads most names 16 or 32
 * bytes at a time: what it takes for a field, a field's end and the body's
 * start stay as a line-by-line reading has them. */
static void test_field_layouts(void)
{
	struct inmail m;
	struct buf b = BUF_INIT;
	int bad = 0;

	/* lines with a blank before any field belong to none */
	if (parse(" stray\n\tfolded\nMessage-ID: <a@x>\nSubject: s\n\nbody\n", NULL, &m) == BB_OK) {
		is_str(m.message_id, "a@x", "layouts: fields after blank-led first lines");
		inmail_release(&m);
	} else {
		ok(0, "layouts: blank-led first lines parse");
	}
	/* a line that is no field ends the header; the fields after it are body */
	if (parse("Subject: s\nnot a field\nMessage-ID: <b@x>\n\n", NULL, &m) == BB_OK) {
		ok(!m.message_id, "layouts: no field after a line that is none");
		is_int((long long)m.body_offset, 11, "layouts: the body starts at that line");
		inmail_release(&m);
	} else {
		ok(0, "layouts: a line that is no field parses");
	}
	/* a header without a body or a last line end; a folded CRLF field */
	if (parse("Message-ID: <c@x>\r\nSubject: one\r\n two\r\n\t three", NULL, &m) == BB_OK) {
		is_str(m.subject, "one two three", "layouts: a folded last field without a line end");
		is_int((long long)m.body_offset, 46, "layouts: no body: it starts at the end");
		inmail_release(&m);
	} else {
		ok(0, "layouts: a header without a body parses");
	}
	if (parse("Message-ID: <d@x>\r\nSubject: cr\r\n\r", NULL, &m) == BB_OK) {
		is_str(m.subject, "cr", "layouts: a last empty line of a bare CR");
		is_int((long long)m.body_offset, 33, "layouts: the body starts after it");
		inmail_release(&m);
	} else {
		ok(0, "layouts: a header ended by a bare CR parses");
	}
	/* blanks before the colon; a name byte past ASCII is no name */
	if (parse("Subject \t: spaced\nMessage-ID: <e@x>\n\n", NULL, &m) == BB_OK) {
		is_str(m.subject, "spaced", "layouts: blanks before the colon");
		inmail_release(&m);
	} else {
		ok(0, "layouts: blanks before a colon parse");
	}
	if (parse("Message-ID: <f@x>\nX-N\xc3\xa4me: v\nSubject: after\n\n", NULL, &m) == BB_OK) {
		ok(!m.subject || !*m.subject, "layouts: a name with a byte past ASCII ends the header");
		inmail_release(&m);
	} else {
		ok(0, "layouts: a name past ASCII parses");
	}
	/* names of every length from 1 to 70 before Subject (the colon in the
	 * first 16 bytes, the next 16, or past 32), with or without a blank
	 * before their colon, each with a folded value */
	for (int len = 1; len <= 70; len++)
		for (int blank = 0; blank < 2; blank++) {
			buf_reset(&b);
			buf_addstr(&b, "X");
			for (int k = 1; k < len; k++)
				buf_addch(&b, k % 7 == 3 ? '-' : 'a' + (char)(k % 26));
			buf_addf(&b, "%s: v\n v2\nSubject: n%d\nMessage-ID: <n%d@x>\n\nbody\n",
				 blank ? " " : "", len, len);
			if (parse(b.data, NULL, &m) != BB_OK) {
				bad++;
				continue;
			}
			{
				char want[16];

				snprintf(want, sizeof(want), "n%d", len);
				if (!m.subject || strcmp(m.subject, want) ||
				    strcmp(b.data + m.body_offset, "body\n")) {
					if (!bad++)
						diag("name of %d bytes%s: subject %s", len,
						     blank ? " and a blank" : "", m.subject);
				}
			}
			inmail_release(&m);
		}
	is_int(bad, 0, "layouts: names of 1 to 70 bytes, blank before the colon or not");
	buf_release(&b);
}

/* The raw scan finds line ends 64 bytes at a time (nl_finder in
 * inmail_scan.c): a keyword line is found wherever it falls around those
 * 64 bytes, after lines of every length around 64 (CRLF too), and a '#'
 * that does not start its line is still no keyword; the header pass finds
 * a field after a folded one and the body after the blank line in the same
 * layouts. */
static void test_line_ends(void)
{
	static const size_t lens[] = { 0, 1, 2, 15, 16, 17, 62, 63, 64, 65, 66, 127, 128, 129, 200 };
	size_t nlens = sizeof(lens) / sizeof(lens[0]);
	struct buf b = BUF_INIT;
	int bad_scan = 0, bad_head = 0, cases = 0;

	for (size_t i = 0; i < nlens; i++) {
		for (size_t j = 0; j < nlens; j++) {
			for (int crlf = 0; crlf < 2; crlf++) {
				const char *eol = crlf ? "\r\n" : "\n";
				struct inmail m;
				unsigned flags;

				/* header: a field of lens[i] bytes and a next line of
				 * lens[j]; body: a line of lens[i] 'a's, one of lens[j]
				 * + 1 'b's then "#regzbot", then a keyword line */
				buf_reset(&b);
				buf_addf(&b, "Subject: s%sX-Pad: ", eol);
				for (size_t k = 0; k < lens[i]; k++)
					buf_addch(&b, 'h');
				buf_addf(&b, "%s\t", eol);
				for (size_t k = 0; k < lens[j]; k++)
					buf_addch(&b, 'v');
				buf_addf(&b, "%sMessage-ID: <m%zu.%zu@x>%s%s", eol, i, j, eol, eol);
				for (size_t k = 0; k < lens[i]; k++)
					buf_addch(&b, 'a');
				buf_addf(&b, "%s", eol);
				for (size_t k = 0; k <= lens[j]; k++)
					buf_addch(&b, 'b');
				buf_addf(&b, "#regzbot not a line start%s#bugbridge close%s", eol, eol);
				cases++;
				flags = inmail_raw_scan(b.data, b.len);
				if ((flags & INMAIL_SCAN_REGZBOT) || !(flags & INMAIL_SCAN_COMMAND)) {
					if (!bad_scan++)
						diag("raw scan of %zu, %zu (%s): %#x", lens[i], lens[j],
						     crlf ? "CRLF" : "LF", flags);
				}
				if (parse(b.data, NULL, &m) != BB_OK) {
					bad_head++;
					continue;
				}
				{
					char want[64];

					snprintf(want, sizeof(want), "m%zu.%zu@x", i, j);
					if (!m.message_id || strcmp(m.message_id, want) || strcmp(m.subject, "s") ||
					    b.data[m.body_offset] != (lens[i] ? 'a' : crlf ? '\r' : '\n')) {
						if (!bad_head++)
							diag("header of %zu, %zu (%s): id %s, body at %zu",
							     lens[i], lens[j], crlf ? "CRLF" : "LF",
							     m.message_id ? m.message_id : "(none)", m.body_offset);
					}
					/* the body's flags with the header's */
					flags = inmail_scan(&m, b.data, b.len);
					if ((flags & INMAIL_SCAN_REGZBOT) || !(flags & INMAIL_SCAN_COMMAND))
						bad_scan++;
				}
				inmail_release(&m);
			}
		}
	}
	is_int(bad_scan, 0, "line ends: the keyword line found and the other not, in %d layouts",
	       cases);
	is_int(bad_head, 0, "line ends: header fields and the body found, in %d layouts", cases);
	buf_release(&b);
}

/* --- plain values (mail/inmail_plain.c) ------------------------------------ */

static unsigned long plain_rand_state = 12345;

static unsigned plain_rand(unsigned n)
{
	plain_rand_state = plain_rand_state * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)((plain_rand_state >> 33) % n);
}

/* A Date: value of the plain form or near it: digits of every width,
 * values past their range, comments, and random junk around. */
static void plain_date_value(char *out, size_t size)
{
	static const char *const days[] = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun",
					    "mon", "Monday" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
					      "Aug", "Sep", "Oct", "Nov", "Dec", "jan", "FEB",
					      "Sept" };
	static const char *const comments[] = { "", "", "", " (UTC)", " (PST)", " (CET)",
						" (GMT+01:00)", " (Pacific Standard Time)",
						" (UTC", " (a)(b)", " (\"x\")", " x" };
	char wd[16] = "", sec[8] = "";
	unsigned y = plain_rand(10) ? 1995 + plain_rand(40) : 1965 + plain_rand(9000);
	int zone = plain_rand(10) ? (int)plain_rand(27) * 60 + (int)plain_rand(2) * 30
				  : (int)plain_rand(2500);

	if (plain_rand(4))
		snprintf(wd, sizeof(wd), "%s, ", days[plain_rand(plain_rand(10) ? 7 : 9)]);
	if (plain_rand(8))
		snprintf(sec, sizeof(sec), ":%02u", plain_rand(10) ? plain_rand(60) : plain_rand(62));
	snprintf(out, size, plain_rand(3) ? "%s%u %s %u %02u:%02u%s %c%02d%02d%s"
					  : "%s%02u %s %u %02u:%02u%s %c%02d%02d%s",
		 wd, plain_rand(10) ? 1 + plain_rand(28) : plain_rand(33),
		 months[plain_rand(plain_rand(10) ? 12 : 15)], y,
		 plain_rand(10) ? plain_rand(24) : plain_rand(26),
		 plain_rand(10) ? plain_rand(60) : plain_rand(62), sec, plain_rand(2) ? '+' : '-',
		 zone / 100 % 100, zone % 100, comments[plain_rand(12)]);
}

static int plain_collect(void *ctx, const char *id, size_t len)
{
	GString *s = ctx;

	g_string_append_len(s, id, (gssize)len);
	g_string_append_c(s, '\n');
	return 0;
}

/* A References: value: ids of random atext, dots and '@', among blanks,
 * now and then with what a plain value lacks (a comment, a quote, a
 * comma, an id without '@', two dots). */
static void plain_refs_value(GString *v)
{
	static const char chars[] = "abcXYZ019!#$%&'*+-/=?^_`{|}~..@";
	static const char *const seps[] = { " ", "\t", "  ", "", " \t " };
	unsigned n = plain_rand(6);

	g_string_truncate(v, 0);
	if (plain_rand(4) == 0)
		g_string_append(v, seps[plain_rand(5)]);
	for (unsigned i = 0; i < n; i++) {
		unsigned len = 1 + plain_rand(20), at = plain_rand(len);

		if (i)
			g_string_append(v, seps[plain_rand(5)]);
		g_string_append_c(v, '<');
		for (unsigned k = 0; k < len; k++) {
			if (k == at && plain_rand(20))
				g_string_append_c(v, '@');
			g_string_append_c(v, plain_rand(3) ? "abcdefgh0123"[plain_rand(12)]
							   : chars[plain_rand(sizeof(chars) - 1)]);
		}
		g_string_append_c(v, '>');
		if (plain_rand(30) == 0)
			g_string_append(v, plain_rand(2) ? " (comment)" : ",");
	}
	if (plain_rand(4) == 0)
		g_string_append(v, seps[plain_rand(5)]);
}

/* What inmail_plain.c reads without GMime it reads as GMime does: 200,000
 * generated Date: values and 200,000 References: values, each the plain
 * reading takes compared with GMime's (g_mime_utils_header_decode_date()
 * and g_date_time_to_unix(); g_mime_references_parse(), and for a value of
 * one id g_mime_utils_decode_message_id(), as a Message-ID is read), and
 * enough of them taken that the comparison means something. */
static void test_plain_values(void)
{
	GString *v = g_string_new(NULL), *plain_ids = g_string_new(NULL),
		*gmime_ids = g_string_new(NULL);
	int dates = 0, date_bad = 0, refs = 0, refs_bad = 0, message_ids = 0;
	int rounds = SANITIZED ? 20000 : 200000;
	char value[128];

	static const char *const edges[] = {
		"29 Feb 2000 12:00:00 +0000", "29 Feb 2100 12:00:00 +0000",
		"29 Feb 2024 12:00:00 +0000", "29 Feb 2023 12:00:00 +0000",
		"31 Apr 2024 12:00:00 +0000", "31 Dec 2024 23:59:59 +0000",
		"1 Jan 1970 00:00:00 +0000", "1 Jan 1970 00:00:00 -0100",
		"31 Dec 9999 23:59:59 -2359", "Mon, 1 Jan 2024 12:00:00 +2400",
		"Mon, 1 Jan 2024 24:00:00 +0000", "Mon, 1 Jan 2024 23:59:60 +0000",
		"Mon, 1 Jan 2024 12:00 +0000", "Thu, 01 Feb 2024 09:05:03 -0800 (PST)",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(edges) + (size_t)rounds; i++) {
		long long t;
		GDateTime *dt;

		if (i < G_N_ELEMENTS(edges))
			snprintf(value, sizeof(value), "%s", edges[i]);
		else
			plain_date_value(value, sizeof(value));
		if (!inmail_plain_date(value, &t))
			continue;
		dates++;
		dt = g_mime_utils_header_decode_date(value);
		if (!dt || g_date_time_to_unix(dt) != t) {
			if (date_bad++ < 5)
				diag("Date \"%s\": plain %lld, GMime %lld", value, t,
				     dt ? (long long)g_date_time_to_unix(dt) : -1LL);
		}
		if (dt)
			g_date_time_unref(dt);
	}
	is_int(date_bad, 0, "plain dates: each read as GMime reads it");
	ok(dates > rounds / 3, "plain dates: %d of %d taken", dates, rounds);
	for (int i = 0; i < rounds; i++) {
		GMimeReferences *r;
		int got;

		plain_refs_value(v);
		g_string_truncate(plain_ids, 0);
		if ((got = inmail_plain_msgids(v->str, plain_collect, plain_ids)) != 1) {
			if (got || plain_ids->len)
				refs_bad++;
			continue;
		}
		refs++;
		g_string_truncate(gmime_ids, 0);
		r = g_mime_references_parse(inmail_parser_options(), v->str);
		for (int k = 0; r && k < g_mime_references_length(r); k++)
			plain_collect(gmime_ids, g_mime_references_get_message_id(r, k),
				      strlen(g_mime_references_get_message_id(r, k)));
		if (r)
			g_mime_references_free(r);
		if (strcmp(plain_ids->str, gmime_ids->str) && refs_bad++ < 5)
			diag("References \"%s\": plain \"%s\", GMime \"%s\"", v->str, plain_ids->str,
			     gmime_ids->str);
		/* one id: what the header pass takes as the Message-ID, which
		 * GMime's g_mime_utils_decode_message_id() reads the same */
		if (plain_ids->len && !strchr(plain_ids->str, '\n')[1]) {
			char *gmime_id = g_mime_utils_decode_message_id(v->str);

			if ((!gmime_id || strncmp(plain_ids->str, gmime_id, plain_ids->len - 1) ||
			     gmime_id[plain_ids->len - 1]) && refs_bad++ < 5)
				diag("Message-ID \"%s\": plain \"%s\", GMime \"%s\"", v->str,
				     plain_ids->str, gmime_id ? gmime_id : "(none)");
			message_ids++;
			g_free(gmime_id);
		}
	}
	is_int(refs_bad, 0, "plain msg-ids: each list read as GMime reads it");
	ok(refs > rounds / 4, "plain msg-ids: %d of %d taken", refs, rounds);
	ok(message_ids > rounds / 20, "plain msg-ids: %d lists of one, each as GMime reads a Message-ID",
	   message_ids);
	/* lists longer than the places the plain reader keeps while it checks
	 * (32), and a last id that is not plain after those */
	for (int n = 30; n <= 70; n += 5) {
		GMimeReferences *r;
		int got;

		g_string_truncate(v, 0);
		for (int i = 0; i < n; i++)
			g_string_append_printf(v, "%s<id%d.%d@long.example>", i ? " \t" : "", n, i);
		g_string_truncate(plain_ids, 0);
		got = inmail_plain_msgids(v->str, plain_collect, plain_ids);
		g_string_truncate(gmime_ids, 0);
		r = g_mime_references_parse(inmail_parser_options(), v->str);
		for (int k = 0; r && k < g_mime_references_length(r); k++)
			plain_collect(gmime_ids, g_mime_references_get_message_id(r, k),
				      strlen(g_mime_references_get_message_id(r, k)));
		if (r)
			g_mime_references_free(r);
		is_int(got, 1, "plain msg-ids: a list of %d is plain", n);
		is_str(plain_ids->str, gmime_ids->str, "plain msg-ids: a list of %d read as GMime reads it", n);
		g_string_append(v, " <not plain>");
		g_string_truncate(plain_ids, 0);
		got = inmail_plain_msgids(v->str, plain_collect, plain_ids);
		ok(got == 0 && plain_ids->len == 0,
		   "plain msg-ids: a list of %d and one that is not plain: none given", n);
	}
	g_string_free(v, TRUE);
	g_string_free(plain_ids, TRUE);
	g_string_free(gmime_ids, TRUE);
}

int main(void)
{
	tap_shared_dir(shared, sizeof(shared));
	test_line_ends();
	test_corpus();
	test_header_injection();
	test_references_loop();
	test_strings_block();
	test_subject_plain();
	test_list_id_again();
	test_huge_header();
	test_from_bridge();
	test_from_memo();
	test_dates();
	test_plain_values();
	test_field_names();
	test_field_layouts();
	test_mark_kept();
	test_auto_replies();
	test_raw_scan();
	test_decode_text();
	test_encoded_words();
	test_decode_parts();
	test_single_part();
	test_reply_text();
	test_lines();
	test_mbox();
	mail_shutdown();
	return done_testing();
}
