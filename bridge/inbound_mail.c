/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One list mail as the inbound side handles it (inbound_mail.h). */
#include "config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "bridge/inbound_mail.h"
#include "bridge/inbound_sender.h"
#include "bridge/inbound_wait.h"
#include "core/log.h"

void prepared_mail_read(struct prepared_mail *p, const struct bb_config *cfg, const char *raw,
			size_t len)
{
	const struct inmail_options iopt = { cfg->mail_domain };

	memset(p, 0, offsetof(struct prepared_mail, verdict));
	bb_error_clear(&p->err);
	bb_error_clear(&p->body_err);
	p->raw = raw;
	p->len = len;
	p->work.parses++;
	p->parsed = inmail_parse_headers(raw, len, &iopt, &p->m, &p->err);
	if (p->parsed != BB_OK || !p->m.message_id)
		return;
	p->scan = inmail_scan(&p->m, raw, len);   /* for the track command and the tracker */
	/* whether it belongs to a bug is not known yet (that reads the
	 * state): for the few that do, the command scan is theirs anyway */
	if (cfg->inbound_track && cfg->inbound_commands &&
	    (p->scan & (INMAIL_SCAN_COMMAND | INMAIL_SCAN_OPAQUE))) {
		const struct mailcmd *cmds;
		size_t n = prepared_mail_commands(p, &cmds);

		for (size_t i = 0; i < n; i++)
			p->track |= cmds[i].verb == MAILCMD_TRACK;
	}
}

static const char *work_file_name;
static pthread_once_t work_file_once = PTHREAD_ONCE_INIT;

static void work_file_read(void)
{
	const char *name = getenv("BUGBRIDGE_TEST_MAIL_WORK");

	work_file_name = name && *name ? name : NULL;
}

/* $BUGBRIDGE_TEST_MAIL_WORK: the file the test hook appends to, or NULL.
 * Read once: a getenv() a mail (it walks the environment) cost more than
 * the rest of the release. */
static const char *work_file(void)
{
	pthread_once(&work_file_once, work_file_read);
	return work_file_name;
}

void prepared_mail_release(struct prepared_mail *p)
{
	const char *file = work_file();

	if (p->m.message_id) {
		log_event(LOG_LEVEL_DEBUG, "inbound.mail_work", LF_STR("message_id", p->m.message_id),
			  LF_INT("bug", p->bug_id), LF_UINT("parses", p->work.parses),
			  LF_UINT("decodes", p->work.decodes), LF_UINT("wholes", p->work.wholes),
			  LF_UINT("attachments", p->work.attachments), LF_UINT("checks", p->work.checks));
		if (file) {
			FILE *f = fopen(file, "a");

			if (f) {
				fprintf(f, "%s bug=%lld commands=%zu directive=%d track=%d waited=%d"
					" parses=%u decodes=%u wholes=%u attachments=%u checks=%u\n",
					p->m.message_id,
					p->bug_id, p->cmds_scanned ? p->ncmds : 0,
					p->body_tried && !p->body_status &&
						prepared_mail_directive(p),
					p->track, p->waited_since != 0, p->work.parses,
					p->work.decodes, p->work.wholes, p->work.attachments,
					p->work.checks);
				fclose(f);
			}
		}
	}
	/* each release leaves what it freed empty (a second release is
	 * harmless); the rest of p, some 2 KB, is not cleared again */
	inmail_release(&p->m);
	inmail_body_release(&p->body);
	p->body_tried = 0;
	mailcmd_free(p->cmds, p->ncmds);
	p->cmds = NULL;
	p->ncmds = 0;
	p->cmds_scanned = 0;
}

const struct inmail_body *prepared_mail_body(struct prepared_mail *p, struct bb_error *err)
{
	if (!p->body_tried) {
		p->body_tried = 1;
		p->work.decodes++;
		p->work.wholes++;
		p->body_status = inmail_decode(p->raw, p->len, &p->body, &p->body_err);
	} else if (p->body_status == BB_OK && p->body.text_only) {
		/* the text was read alone: the attachments now, once */
		p->work.attachments++;
		p->body_status = inmail_decode_attachments(p->raw, p->len, &p->body, &p->body_err);
	}
	if (p->body_status == BB_OK)
		return &p->body;
	if (err)
		bb_error_set(err, p->body_status, "%s", p->body_err.message);
	return NULL;
}

/* The body with its text, decoded alone on the first need (the
 * attachments wait for prepared_mail_body()); NULL when it cannot be
 * decoded. */
static const struct inmail_body *body_text(struct prepared_mail *p)
{
	if (!p->body_tried) {
		p->body_tried = 1;
		p->work.decodes++;
		p->body_status = inmail_decode_text(p->raw, p->len, &p->body, &p->body_err);
	}
	return p->body_status == BB_OK ? &p->body : NULL;
}

const char *prepared_mail_body_text(struct prepared_mail *p)
{
	const struct inmail_body *b = body_text(p);

	return !b ? NULL : b->text ? b->text : "";
}

const char *prepared_mail_text(struct prepared_mail *p)
{
	const char *text = prepared_mail_body_text(p);

	return text ? text : "";
}

size_t prepared_mail_commands(struct prepared_mail *p, const struct mailcmd **cmds)
{
	if (!p->cmds_scanned && body_text(p)) {
		p->cmds_scanned = 1;
		mailcmd_parse(prepared_mail_text(p), &p->cmds, &p->ncmds, NULL);
	}
	*cmds = p->cmds;
	return p->ncmds;
}

int prepared_mail_directive(struct prepared_mail *p)
{
	const struct inmail_body *b = body_text(p);
	const char *text, *end, *q;

	if (!b || !b->text)
		return 0;
	/* the '#'s (few, but in code) are looked at, not every line: the
	 * text has LF line ends and no NUL */
	text = b->text;
	end = text + b->text_len;
	for (q = text; (q = memchr(q, '#', (size_t)(end - q))) != NULL; q++)
		if ((q == text || q[-1] == '\n') && !g_ascii_strncasecmp(q, "#regzbot", 8))
			return 1;
	return 0;
}

enum bb_status prepared_mail_verdict(struct sync_context *sc, const struct inbound_options *opt,
				     struct prepared_mail *p, struct inbound_stats *stats,
				     struct bb_error *err)
{
	enum bb_status s;

	if (p->checked)
		return BB_OK;
	p->work.checks++;
	s = stats ? inbound_round_sender_verdict(sc, opt, &p->m, p->raw, p->len, stats,
						 &p->verdict, err)
		  : inbound_sender_verdict(sc, opt, &p->m, p->raw, p->len, &p->verdict, err);
	p->checked = s == BB_OK;
	return s;
}

int prepared_mail_is(const struct prepared_mail *p, const char *raw, size_t len)
{
	return p && p->len == len && (p->raw == raw || !memcmp(p->raw, raw, len));
}
