/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the MIME handling path of mail/inmail.c: the
 * header pass, the raw scan, the full GMime decode, the reply cutter and
 * the command parser on arbitrary bytes, checking what inmail.h promises
 * (clean UTF-8 fields, capped loop-free references, clean body text, sane
 * attachments).  Build with "make fuzz", run with "make fuzz-run" (seeds
 * in corpus-inmail/). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "bridge/mailcmd.h"
#include "mail/inmail.h"
#include "mail/mail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond)
{
	if (!cond)
		__builtin_trap();
}

/* Valid UTF-8 without controls; text may hold LF and TAB. */
static void expect_clean(const char *s, int text)
{
	expect(s != NULL && g_utf8_validate(s, -1, NULL));
	for (const char *p = s; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (text && (c == '\n' || c == '\t'))
			continue;
		expect(c >= 0x20 && c != 0x7f);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *raw = (const char *)data;
	struct inmail_options opt = { "bugbridge.example.org" };
	struct inmail m;
	struct inmail_body b;
	struct bb_error err = BB_ERROR_INIT;
	struct mailcmd *cmds = NULL;
	size_t ncmds = 0;
	enum bb_status st;
	char *reply;

	(void)inmail_raw_scan(raw, size);
	st = inmail_parse_headers(raw, size, &opt, &m, &err);
	expect(st == BB_OK || st == BB_ERR_INVALID || st == BB_ERR_TOO_LARGE || st == BB_ERR_NOMEM);
	expect(st == BB_OK || err.code == st);
	if (st == BB_OK) {
		expect_clean(m.subject, 0);
		expect_clean(m.from_name, 0);
		if (m.from_addr)
			expect_clean(m.from_addr, 0);
		if (m.list_id)
			expect_clean(m.list_id, 0);
		if (m.message_id)
			expect_clean(m.message_id, 0);
		if (m.in_reply_to)
			expect_clean(m.in_reply_to, 0);
		if (m.mark) {
			static const unsigned char key[MAIL_MARK_KEY_LEN] = { 1, 2, 3 };

			expect(m.from_bridge);
			expect_clean(m.mark, 0);
			(void)mail_mark_ok(key, m.message_id, m.mark);
		}
		expect(m.references && m.nreferences <= INMAIL_REFERENCES_MAX &&
		       !m.references[m.nreferences]);
		for (size_t i = 0; i < m.nreferences; i++) {
			expect_clean(m.references[i], 0);
			expect(!m.message_id || strcmp(m.references[i], m.message_id));
			for (size_t j = 0; j < i; j++)
				expect(strcmp(m.references[i], m.references[j]));
		}
		expect(m.body_offset <= size);
		(void)inmail_date(&m);
		{
			/* what the body scan finds in the body, the whole scan finds
			 * too, unless the whole scan stopped at a point that made the
			 * mail opaque (inmail_scan.h: the flags then say what came
			 * before; a header the header pass reads otherwise than the
			 * raw scan may be that point) */
			unsigned body_only = inmail_scan(&m, raw, size) & ~m.head_scan;
			unsigned whole = inmail_raw_scan(raw, size);

			expect((whole & INMAIL_SCAN_OPAQUE) || (body_only & ~whole) == 0 ||
			       (body_only & ~whole) == INMAIL_SCAN_OPAQUE);
		}
		expect(!m.from_bridge || m.skip_reason);
		expect(!m.auto_reply || m.skip_reason);
	}
	inmail_release(&m);

	st = inmail_decode(raw, size, &b, &err);
	expect(st == BB_OK || st == BB_ERR_INVALID || st == BB_ERR_TOO_LARGE || st == BB_ERR_NOMEM);
	{
		/* a mail of one part is decoded without GMime's parser: the
		 * same as through it */
		struct inmail_body parsed;
		enum bb_status pst = inmail_decode_parsed(raw, size, &parsed, &err);

		expect(pst == st || st == BB_ERR_NOMEM || pst == BB_ERR_NOMEM);
		expect(st != BB_OK || pst != BB_OK || inmail_body_same(&b, &parsed));
		inmail_body_release(&parsed);
	}
	{
		/* the text alone (a history read), then the attachments (a
		 * mail of a bug): the same as the whole decode */
		struct inmail_body text;
		enum bb_status tst = inmail_decode_text(raw, size, &text, &err);

		expect(tst == st || st == BB_ERR_NOMEM || tst == BB_ERR_NOMEM);
		if (st == BB_OK && tst == BB_OK) {
			expect(text.nparts == 0 && text.text_only && text.text_len == b.text_len &&
			       !strcmp(text.text, b.text) && text.from_html == b.from_html);
			if (inmail_decode_attachments(raw, size, &text, &err) == BB_OK)
				expect(inmail_body_same(&text, &b));
		}
		inmail_body_release(&text);
	}
	if (st != BB_OK)
		return 0;
	expect(b.text && strlen(b.text) == b.text_len);
	expect_clean(b.text, 1);
	expect(b.nparts <= INMAIL_PARTS_MAX);
	for (size_t i = 0; i < b.nparts; i++) {
		expect(b.parts[i].data && b.parts[i].len > 0 && b.parts[i].data[b.parts[i].len] == 0);
		expect_clean(b.parts[i].content_type, 0);
		if (b.parts[i].filename) {
			expect_clean(b.parts[i].filename, 0);
			expect(!strchr(b.parts[i].filename, '/'));
		}
	}
	reply = inmail_reply_text(b.text);
	expect(reply != NULL);
	expect_clean(reply, 1);
	free(reply);
	expect(mailcmd_parse(b.text, &cmds, &ncmds, &err) == BB_OK);
	mailcmd_free(cmds, ncmds);
	inmail_body_release(&b);
	return 0;
}
