/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for the decode of the text alone (mail/inmail_body.c,
 * inmail_decode_text()) and of the attachments after it
 * (inmail_decode_attachments()): a history read decodes only the text of
 * a mail, and a mail of a bug has its attachments decoded later.  The
 * text alone must be the text of the whole decode, with the same flags
 * and status, and both passes together the whole decode, attachment by
 * attachment: on layouts where the choice of text and attachment is
 * tricky (an inline text/plain part with a name, a .patch attachment,
 * nested alternatives, message/rfc822, HTML with a name, single parts
 * that are not text, too many parts, too deep nesting) and on every mail
 * of the shared corpus.  And base64 content decoded by OpenSSL's block
 * decoder where it is plain: the same bytes as GMime's decoder on random
 * content, plain and not (stray characters, '=' inside, quartets across
 * lines, blanks, CRLF, bytes from 0x80 up, cut off). */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>
#include <gmime/gmime.h>

#include "core/buf.h"
#include "mail/inmail.h"
#include "mail/mail.h"
#include "tests/unit/tap.h"

static char shared[4096];

/* 1 if the text alone of raw/len is the whole decode's text, and with the
 * attachments after it the whole decode; why says what differs. */
static int same_in_two(const char *raw, size_t len, char *why, size_t whylen)
{
	struct inmail_body full, text;
	struct bb_error err = BB_ERROR_INIT, err2 = BB_ERROR_INIT;
	enum bb_status fs = inmail_decode(raw, len, &full, &err);
	enum bb_status ts = inmail_decode_text(raw, len, &text, &err2);
	int same = 0;

	*why = '\0';
	if (fs != ts) {
		snprintf(why, whylen, "status %d against %d", (int)ts, (int)fs);
		goto out;
	}
	if (fs != BB_OK) {
		same = 1;
		goto out;
	}
	if (text.nparts || text.parts || !text.text_only || full.text_only) {
		snprintf(why, whylen, "the text alone has attachments or is not marked so");
		goto out;
	}
	if (text.text_len != full.text_len || strcmp(text.text, full.text) ||
	    text.from_html != full.from_html || text.encrypted != full.encrypted ||
	    text.skipped_parts != full.skipped_parts) {
		snprintf(why, whylen, "the text alone differs");
		goto out;
	}
	if (inmail_decode_attachments(raw, len, &text, &err2) != BB_OK) {
		snprintf(why, whylen, "the attachments fail: %.100s", err2.message);
		goto out;
	}
	if (!inmail_body_same(&text, &full) || text.text_only) {
		snprintf(why, whylen, "text and attachments differ from the whole decode "
			 "(%zu against %zu attachments)", text.nparts, full.nparts);
		goto out;
	}
	/* a second call has nothing left to do */
	same = inmail_decode_attachments(raw, len, &text, &err2) == BB_OK &&
	       inmail_body_same(&text, &full);
	if (!same)
		snprintf(why, whylen, "a second inmail_decode_attachments() changed the body");
out:
	if (fs == BB_OK)
		inmail_body_release(&full);
	if (ts == BB_OK)
		inmail_body_release(&text);
	return same;
}

static void check(const char *name, const char *mail, const char *want_text, size_t want_parts)
{
	char why[200];
	struct inmail_body b;
	struct bb_error err = BB_ERROR_INIT;

	if (!ok(same_in_two(mail, strlen(mail), why, sizeof(why)),
		"%s: text alone, then attachments = whole decode", name))
		diag("%s", why);
	if (inmail_decode(mail, strlen(mail), &b, &err) != BB_OK) {
		ok(0, "%s: decodes (%s)", name, err.message);
		return;
	}
	/* the layout is what it is meant to be */
	if (!ok(!strcmp(b.text, want_text) && b.nparts == want_parts, "%s: %zu attachment(s)", name,
		want_parts))
		diag("text \"%s\", %zu attachments", b.text, b.nparts);
	inmail_body_release(&b);
}

#define HEAD "From: a@example.org\nMessage-ID: <x@example.org>\nMIME-Version: 1.0\n"

static void test_layouts(void)
{
	check("inline text/plain with a name (no patch): an attachment",
	      HEAD "Content-Type: multipart/mixed; boundary=b\n\n"
	      "--b\nContent-Type: text/plain\n\nthe text\n#bugbridge close\n"
	      "--b\nContent-Type: text/plain; name=notes.txt\nContent-Disposition: inline\n\n"
	      "some notes\n#bugbridge reopen\n--b--\n",
	      "the text\n#bugbridge close\n", 1);
	check("inline text/plain with a name holding a hunk: text",
	      HEAD "Content-Type: multipart/mixed; boundary=b\n\n"
	      "--b\nContent-Type: text/plain\n\nthe text\n"
	      "--b\nContent-Type: text/plain; name=log.txt\nContent-Transfer-Encoding: base64\n\n"
	      "LS0tIGEvZgorKysgYi9mCkBAIC0xICsxIEBACi1hCitiCg==\n--b--\n",
	      "the text\n\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", 0);
	check("a .patch part inline: text; attached: an attachment",
	      HEAD "Content-Type: multipart/mixed; boundary=b\n\n"
	      "--b\nContent-Type: text/plain\n\nsee the patches\n"
	      "--b\nContent-Type: text/plain; name=\"0001-fix.patch\"\n\nfix one\n"
	      "--b\nContent-Type: text/x-patch\nContent-Disposition: attachment; filename=2.patch\n\n"
	      "fix two\n--b--\n",
	      "see the patches\n\nfix one\n", 1);
	check("nested alternatives with an image",
	      HEAD "Content-Type: multipart/mixed; boundary=o\n\n"
	      "--o\nContent-Type: multipart/alternative; boundary=i\n\n"
	      "--i\nContent-Type: multipart/alternative; boundary=j\n\n"
	      "--j\nContent-Type: text/html\n\n<p>inner html</p>\n"
	      "--j\nContent-Type: text/plain\n\ninner plain\n--j--\n"
	      "--i\nContent-Type: text/html\n\n<p>outer html</p>\n--i--\n"
	      "--o\nContent-Type: image/png; name=shot.png\nContent-Transfer-Encoding: base64\n\n"
	      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==\n"
	      "--o--\n",
	      "inner plain\n", 1);
	check("message/rfc822: an attachment, its text is not the body's",
	      HEAD "Content-Type: multipart/mixed; boundary=b\n\n"
	      "--b\nContent-Type: text/plain\n\nforwarded below\n"
	      "--b\nContent-Type: message/rfc822\nContent-Disposition: inline; filename=fwd.eml\n\n"
	      "From: c@example.org\nSubject: old\n\n#bugbridge close\n--b--\n",
	      "forwarded below\n", 1);
	check("HTML only, with a name: its text, and an attachment",
	      HEAD "Content-Type: multipart/mixed; boundary=b\n\n"
	      "--b\nContent-Type: text/html; name=page.html\n\n<p>named <b>html</b></p>\n"
	      "--b\nContent-Type: application/octet-stream; name=dump.bin\n"
	      "Content-Transfer-Encoding: base64\n\nAAECAwQFBgc=\n--b--\n",
	      "named html\n", 2);
	check("one part, not text: no text, an attachment",
	      HEAD "Content-Type: application/octet-stream; name=fw.bin\n"
	      "Content-Transfer-Encoding: base64\n\nAAECAwQFBgcICQoLDA0ODw==\n",
	      "", 1);
	check("one part, text/plain with a name: an attachment",
	      HEAD "Content-Type: text/plain; name=dmesg.txt\n"
	      "Content-Transfer-Encoding: base64\n\nWyAgICAwLjAwMDAwMF0gTGludXgK\n",
	      "", 1);
	check("one part, text/plain attached: an attachment",
	      HEAD "Content-Type: text/plain\nContent-Disposition: attachment\n\n#bugbridge close\n",
	      "", 1);
	check("one part, text/html: its text",
	      HEAD "Content-Type: text/html; charset=utf-8\n\n<p>#bugbridge close</p>\n",
	      "#bugbridge close\n", 0);
	check("signed: the signed content, no signature",
	      HEAD "Content-Type: multipart/signed; protocol=\"application/pgp-signature\"; boundary=s\n\n"
	      "--s\nContent-Type: multipart/mixed; boundary=m\n\n"
	      "--m\nContent-Type: text/plain\n\nsigned text\n"
	      "--m\nContent-Type: text/csv; name=t.csv\n\na,b\n--m--\n"
	      "--s\nContent-Type: application/pgp-signature\n\nsig\n--s--\n",
	      "signed text\n", 1);
	check("encrypted: nothing read",
	      HEAD "Content-Type: multipart/encrypted; protocol=\"application/pgp-encrypted\"; boundary=e\n\n"
	      "--e\nContent-Type: application/pgp-encrypted\n\nVersion: 1\n"
	      "--e\nContent-Type: application/octet-stream\n\nciphertext\n--e--\n",
	      "", 0);
}

/* Too many parts, too deep: the same refusal and the same skipped count. */
static void test_limits(void)
{
	struct buf m = BUF_INIT;
	char why[200];

	buf_addstr(&m, HEAD "Content-Type: multipart/mixed; boundary=b\n\n");
	for (int i = 0; i <= INMAIL_PARTS_MAX; i++)
		buf_addf(&m, "--b\nContent-Type: image/png; name=p%d.png\n\nx\n", i);
	buf_addstr(&m, "--b--\n");
	if (!ok(same_in_two(m.data, m.len, why, sizeof(why)), "more than %d parts: the same refusal",
		INMAIL_PARTS_MAX))
		diag("%s", why);
	buf_reset(&m);
	buf_addstr(&m, HEAD "Content-Type: multipart/mixed; boundary=d0\n\n");
	for (int i = 1; i <= INMAIL_DEPTH_MAX + 3; i++)
		buf_addf(&m, "--d%d\nContent-Type: multipart/mixed; boundary=d%d\n\n"
			 "--d%d\nContent-Type: text/plain\n\nlevel %d\n", i - 1, i, i, i);
	for (int i = INMAIL_DEPTH_MAX + 3; i >= 0; i--)
		buf_addf(&m, "--d%d--\n", i);
	if (!ok(same_in_two(m.data, m.len, why, sizeof(why)), "nesting deeper than %d: the same",
		INMAIL_DEPTH_MAX))
		diag("%s", why);
	buf_release(&m);
}

/* --- base64 ---------------------------------------------------------------- */

/* (tap_rand(), seeded in main(): the same content every run) */
#define rnd tap_rand

/* Base64 of random bytes in lines of 76 (or others), then spoiled in one
 * of many ways, or not (about half of them); returns 1 when it is plain
 * (what the decode reads with OpenSSL's decoder). */
static int random_base64(GString *s)
{
	static const char *const stray[] = {
		"=", "==", " ", "\t", "\xc3\xa9", "\xff", "-", ".", "*", "!", "\r", "A", "AB",
		"ABC", "\n", "\r\n", "\n\n", "=\n=", "A=", "====",
	};
	size_t nbytes = rnd(4) ? rnd(200) : rnd(9000);
	guchar *bytes = g_malloc(nbytes + 1);
	gchar *b64;
	size_t line = rnd(3) ? 76 : 4 * (1 + rnd(30)), len;
	int crlf = !rnd(4), plain = 1;

	for (size_t i = 0; i < nbytes; i++)
		bytes[i] = (guchar)rnd(256);
	b64 = g_base64_encode(bytes, nbytes);
	len = strlen(b64);
	g_string_truncate(s, 0);
	if (!rnd(8)) {
		line = 2 + rnd(80);   /* quartets across lines */
		plain = line % 4 == 0 || line >= len;
	}
	for (size_t i = 0; i < len; i += line) {
		if (!rnd(20))
			g_string_append(s, rnd(2) ? " " : "\t");   /* (still plain) */
		g_string_append_len(s, b64 + i, (gssize)MIN(line, len - i));
		if (!rnd(20))
			g_string_append(s, " ");
		g_string_append(s, crlf ? "\r\n" : "\n");
	}
	if (!rnd(10))
		g_string_append(s, crlf ? "\r\n" : "\n");
	for (unsigned k = rnd(2) ? 0 : 1 + rnd(3); k > 0; k--) {
		const char *piece = stray[rnd(G_N_ELEMENTS(stray))];
		size_t at = rnd(4) ? rnd((unsigned)s->len + 1) : s->len;

		g_string_insert(s, (gssize)at, piece);
		plain = 0;
	}
	if (!rnd(10) && s->len > 3) {
		g_string_truncate(s, s->len - 1 - rnd(3));   /* cut off */
		plain = 0;
	}
	g_free(bytes);
	g_free(b64);
	return plain;
}

/* GMime's decode of s: its decoder over all of it (as_stream 0), or its
 * data wrapper's filter (as_stream 1), as the decode's two ways did. */
static GByteArray *gmime_base64(const GString *s, int as_stream)
{
	GByteArray *out = g_byte_array_new();

	if (as_stream) {
		GMimeStream *in = g_mime_stream_mem_new_with_buffer(s->str, s->len);
		GMimeStream *mem = g_mime_stream_mem_new_with_byte_array(out);
		GMimeDataWrapper *w = g_mime_data_wrapper_new_with_stream(in,
									  GMIME_CONTENT_ENCODING_BASE64);

		g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
		g_mime_data_wrapper_write_to_stream(w, mem);
		g_object_unref(w);
		g_object_unref(mem);
		g_object_unref(in);
	} else {
		GMimeEncoding state;
		size_t n;

		g_mime_encoding_init_decode(&state, GMIME_CONTENT_ENCODING_BASE64);
		g_byte_array_set_size(out, (guint)g_mime_encoding_outlen(&state, s->len) + 1);
		n = g_mime_encoding_step(&state, s->str, s->len, (char *)out->data);
		n += g_mime_encoding_flush(&state, "", 0, (char *)out->data + n);
		g_byte_array_set_size(out, (guint)n);
	}
	return out;
}

/* 1 if the attachment of the mail made of head and content is want's bytes. */
static int attachment_is(const char *head, const GString *content, const char *tail,
			 const GByteArray *want)
{
	GString *mail = g_string_new(head);
	struct inmail_body b;
	struct bb_error err = BB_ERROR_INIT;
	int same;

	g_string_append_len(mail, content->str, (gssize)content->len);
	g_string_append(mail, tail);
	if (inmail_decode(mail->str, mail->len, &b, &err) != BB_OK) {
		g_string_free(mail, TRUE);
		return 0;
	}
	same = want->len ? b.nparts == 1 && b.parts[0].len == want->len &&
			   !memcmp(b.parts[0].data, want->data, want->len)
			 : b.nparts == 0;
	inmail_body_release(&b);
	g_string_free(mail, TRUE);
	return same;
}

static void test_base64(void)
{
	GString *s = g_string_new("");
	size_t differ[2] = { 0, 0 }, plain = 0;
	const int mails = 3000;

	for (int i = 0; i < mails; i++) {
		GByteArray *step, *filtered;

		int was_plain = random_base64(s);

		if (strstr(s->str, "--"))
			continue;   /* (no boundary line inside) */
		plain += was_plain;
		step = gmime_base64(s, 0);
		filtered = gmime_base64(s, 1);
		/* one part: GMime's decoder over all of it */
		if (!attachment_is(HEAD "Content-Type: application/octet-stream\n"
				   "Content-Transfer-Encoding: base64\n\n", s, "", step) && differ[0]++ < 3)
			diag("one part differs: \"%s\"", s->str);
		/* a part of a multipart: GMime's data wrapper */
		if (!attachment_is(HEAD "Content-Type: multipart/mixed; boundary=XyZzY\n\n"
				   "--XyZzY\nContent-Type: application/octet-stream\n"
				   "Content-Transfer-Encoding: base64\n\n",
				   s, "\n--XyZzY--\n", filtered) && differ[1]++ < 3)
			diag("a part differs: \"%s\"", s->str);
		g_byte_array_free(step, TRUE);
		g_byte_array_free(filtered, TRUE);
	}
	ok(plain > mails / 4 && plain < mails * 3 / 4, "base64: %zu of %d contents plain, the others not",
	   plain, mails);
	is_int(differ[0], 0, "base64 of one part: the bytes GMime's decoder gives");
	is_int(differ[1], 0, "base64 of a part: the bytes GMime's data wrapper gives");
	g_string_free(s, TRUE);
}

/* --- the corpus ------------------------------------------------------------ */

struct corpus {
	size_t mails, differ;
	char why[300];
};

static enum bb_status corpus_one(void *ctx, const char *raw, size_t len)
{
	struct corpus *c = ctx;
	char why[200];

	c->mails++;
	if (!same_in_two(raw, len, why, sizeof(why))) {
		c->differ++;
		snprintf(c->why, sizeof(c->why), "mail %zu: %s", c->mails, why);
	}
	return BB_OK;
}

static void corpus_walk(struct corpus *c, const char *dir)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		char path[8192];
		struct stat sb;
		gchar *data;
		gsize len;
		struct bb_error err = BB_ERROR_INIT;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] == '.' || stat(path, &sb)) {
			free(names[i]);
			continue;
		}
		if (S_ISDIR(sb.st_mode)) {
			corpus_walk(c, path);
		} else if (S_ISREG(sb.st_mode) && g_file_get_contents(path, &data, &len, NULL)) {
			size_t differ = c->differ;

			if (len > 5 && !memcmp(data, "From ", 5))
				inmail_mbox_split(data, len, corpus_one, c, &err);
			else
				corpus_one(c, data, len);
			if (c->differ != differ)
				diag("%s: %s", path, c->why);
			g_free(data);
		}
		free(names[i]);
	}
	free(names);
}

static void test_corpus(void)
{
	struct corpus c;
	char dir[8192];
	struct stat sb;

	snprintf(dir, sizeof(dir), "%s/corpus/mail", shared);
	if (stat(dir, &sb)) {
		printf("ok %d # SKIP no mail corpus at %s (set BUGBRIDGE_SHARED)\n", ++tap_count, dir);
		return;
	}
	memset(&c, 0, sizeof(c));
	corpus_walk(&c, dir);
	ok(c.mails >= 450, "corpus: %zu mails", c.mails);
	is_int(c.differ, 0, "corpus: the text alone, then the attachments, = the whole decode");
}

int main(void)
{
	tap_seed(0x2545f4914f6cdd1dULL);
	tap_shared_dir(shared, sizeof(shared));
	test_layouts();
	test_limits();
	test_base64();
	test_corpus();
	mail_shutdown();
	return done_testing();
}
