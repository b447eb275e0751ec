/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Filing a bug by mail: the submit box (bridge/submit.h).  A mailbox read
 * like a list archive, whose mails' senders are checked as commands' are
 * and whose rows are in_mail's: built on the inbound side's helpers
 * (inbound_rows.h, inbound_sender.h, inbound_comment.h), with the bug
 * filed as "#bugbridge track" and the front door file theirs (found again
 * by its URL after a crash). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>
#include <openssl/rand.h>

#include "attachments/quarantine.h"
#include "bridge/inbound_answer.h"
#include "bridge/inbound_comment.h"
#include "bridge/inbound_rows.h"
#include "bridge/inbound_sender.h"
#include "bridge/route.h"
#include "bridge/submit.h"
#include "bugzilla/bug.h"
#include "bugzilla/bz_client.h"
#include "bugzilla/bz_fields.h"
#include "core/buf.h"
#include "core/digest.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "mail/inmail.h"
#include "mail/mail.h"
#include "mail/maintainers.h"
#include "mail/outbox.h"

/* Bytes of a confirmation token (the front door's: hex in the link). */
#define SUBMIT_TOKEN_BYTES 16

/* Longest pseudo-header line an answer quotes, in bytes. */
#define SUBMIT_LINE_MAX 200

/* The pseudo-headers (email_in.pl's names, the REST bug object's). */
enum { PH_PRODUCT, PH_COMPONENT, PH_VERSION, PH_SEVERITY, PH_N };
static const char *const ph_names[PH_N] = { "product", "component", "version", "severity" };

struct pseudo {
	char *given[PH_N];          /* the value written; NULL: not given */
	const char *use[PH_N];      /* what the bug gets; NULL: Bugzilla's default */
	char *refused[PH_N];        /* why a given value is not used; NULL: it is */
	struct buf unknown;         /* answer lines for @fields not understood */
	const char *text;           /* the body after the pseudo-header lines */
};

struct submit_ctx {
	struct sync_context *sc;
	struct inbound_options opt;
	const char *cursor_name;
	struct submit_stats *stats;
	struct bb_error *err;
};

int submit_archive_options(const struct bb_config *cfg, struct archive_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	if (!cfg->submit_path)
		return 0;
	opt->kind = cfg->submit_kind ? cfg->submit_kind : "maildir";
	opt->path = cfg->submit_path;
	opt->max_message_size = (size_t)cfg->submit_max_mail_size;
	return 1;
}

/* A line quoted in the answer, cut at a character. */
static void quote_line(struct buf *b, const char *line, size_t len)
{
	size_t n = len > SUBMIT_LINE_MAX ? SUBMIT_LINE_MAX : len;

	while (n < len && n && ((unsigned char)line[n] & 0xc0) == 0x80)
		n--;
	buf_addf(b, "  %.*s%s\n", (int)n, line, n < len ? " [...]" : "");
}

/* Reads the pseudo-header lines at the top of text (blank lines before
 * them are skipped; the first other line ends them): "@field value",
 * "@field = value" or "@field: value". */
static void pseudo_parse(struct pseudo *p, const char *text)
{
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n'), *name, *v;
		size_t len = end ? (size_t)(end - line) : strlen(line), nlen;
		int known = -1;

		if (strspn(line, " \t\r") == len && !p->given[0] && !p->given[1] &&
		    !p->given[2] && !p->given[3] && !p->unknown.len) {
			line += len + (end != NULL);
			continue;   /* blank lines before the first */
		}
		if (line[0] != '@')
			break;
		name = line + 1;
		for (nlen = 0; nlen < len - 1 && (isalnum((unsigned char)name[nlen]) ||
						  name[nlen] == '_'); nlen++)
			;
		if (!nlen)
			break;
		v = name + nlen;
		while (v < line + len && (*v == ' ' || *v == '\t'))
			v++;
		if (v < line + len && (*v == '=' || *v == ':'))
			v++;
		for (int i = 0; i < PH_N; i++)
			if (strlen(ph_names[i]) == nlen && !g_ascii_strncasecmp(name, ph_names[i], nlen))
				known = i;
		if (known >= 0) {
			g_free(p->given[known]);
			p->given[known] = g_strstrip(g_strndup(v, (size_t)(line + len - v)));
		} else {
			quote_line(&p->unknown, line, len);
			buf_addstr(&p->unknown, "    not understood: bugbridge knows @product, "
					       "@component, @version and @severity\n");
		}
		line += len + (end != NULL);
	}
	while (*line == '\n' || *line == '\r')
		line++;
	p->text = line;
}

/* What the bug gets of each pseudo-header: the Bugzilla's own spelling of
 * a legal value, the default for one it lacks (saying why). */
static void pseudo_check(struct pseudo *p, const struct bz_fields *f, const struct bb_config *cfg)
{
	const char *defaults[PH_N] = { cfg->inbound_track_product, cfg->inbound_track_component,
				       cfg->inbound_track_version, NULL };

	for (int i = 0; i < PH_N; i++) {
		const char *canon = NULL;
		int legal;

		p->use[i] = defaults[i];
		if (!p->given[i])
			continue;
		legal = f && *p->given[i] ? bz_fields_legal_value(f, ph_names[i], p->given[i], &canon)
					  : *p->given[i] ? -1 : 0;
		if (legal) {
			p->use[i] = legal > 0 && canon ? canon : p->given[i];
			continue;
		}
		{
			char *list = f ? bz_field_values_text(bz_fields_find(f, ph_names[i])) : NULL;

			p->refused[i] = g_strdup_printf("refused: no %s \"%s\" on this Bugzilla; it has: "
							"%s%s%s", ph_names[i], p->given[i],
							list && *list ? list : "(not told)",
							defaults[i] ? "; the bug has " : "",
							defaults[i] ? defaults[i] : "");
			free(list);
		}
	}
}

/* The answer's lines for the pseudo-headers: each with what became of it
 * (filed: whether a bug was filed with the values used). */
static void pseudo_answer(const struct pseudo *p, struct buf *answer, int filed)
{
	buf_addstr(answer, "bugbridge's answer to the mail above:\n\n");
	for (int i = 0; i < PH_N; i++) {
		char *line;

		if (!p->given[i])
			continue;
		line = g_strdup_printf("@%s %s", ph_names[i], p->given[i]);
		quote_line(answer, line, strlen(line));
		g_free(line);
		buf_addf(answer, "    %s\n", p->refused[i] ? p->refused[i]
					     : filed ? "done" : "not used: no bug was filed");
	}
	buf_add(answer, p->unknown.data ? p->unknown.data : "", p->unknown.len);
}

static void pseudo_release(struct pseudo *p)
{
	for (int i = 0; i < PH_N; i++) {
		g_free(p->given[i]);
		g_free(p->refused[i]);
	}
	buf_release(&p->unknown);
}

/* The bug's URL: the submitted mail's Message-ID as an RFC 2392 URL, what
 * finds the bug filed for it again. */
static char *submit_key(const char *message_id)
{
	char *escaped = g_uri_escape_string(message_id, "@!$&'()*+,;=:._~-", FALSE);
	char *key = str_printf("mid:%s", escaped ? escaped : "");

	g_free(escaped);
	return key;
}

/* The sender's verdict as commands get it, with the submit box's MTA as
 * the trusted receiving server ([submit] trusted_authserv_id, else
 * [inbound]'s). */
static enum bb_status submit_verdict(struct submit_ctx *c, const struct inmail *m,
				     const char *raw, size_t len, struct auth_verdict *v)
{
	struct bb_config cfg = *c->sc->cfg;
	struct sync_context box = *c->sc;

	if (cfg.submit_trusted_authserv_id)
		cfg.inbound_trusted_authserv_id = cfg.submit_trusted_authserv_id;
	box.cfg = &cfg;
	return inbound_sender_verdict(&box, &c->opt, m, raw, len, v, c->err);
}

/* Queues the answer to the submitted mail m, to its sender alone (in the
 * caller's transaction): seq 0 of the filed bug's notices, or
 * answer-r<row> of the mail's row when no bug was filed. */
static enum bb_status queue_answer(struct submit_ctx *c, const struct inmail *m,
				   const struct bz_bug *bug, long long seq, const char *text)
{
	struct sync_context *sc = c->sc;
	struct mail_options mopt;
	struct mail_message msg = { NULL, NULL, 0 };
	char *sender = NULL, *to[2] = { m->from_addr, NULL };
	enum bb_status s = BB_OK;

	if (inbound_answers_exhausted(sc, 0, m->from_addr)) {
		log_event(LOG_LEVEL_WARN, "submit.answer_limited", LF_STR("message_id", m->message_id));
		return BB_OK;
	}
	sync_mail_options(sc->cfg, &mopt);
	mopt.mark_key = sync_mark_key(sc);
	if ((s = mail_compose_notice(&mopt, bug, seq, text, 0, to, NULL, m->message_id, &msg,
				     c->err)))
		goto out;
	if (outbox_has(sc->db, msg.message_id))
		goto out;   /* sent before, by a state this one was put back over */
	if (!(sender = mnt_address(sc->cfg->mail_from))) {
		s = bb_error_set(c->err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	s = outbox_add(sc->db, msg.message_id, bug->id, 0, sender, to, msg.text, msg.len, c->err);
	if (!s)
		log_event(LOG_LEVEL_INFO, "submit.answered", LF_INT("bug", bug->id),
			  LF_STR("message_id", m->message_id), LF_STR("answer", msg.message_id));
out:
	free(sender);
	mail_message_release(&msg);
	return s;
}

/* Records m's row (state, reason, bug), its answer (text; NULL: none)
 * and the box's cursor, in one transaction. */
static enum bb_status finish(struct submit_ctx *c, const struct inmail *m, const char *position,
			     const char *state, const char *reason, const struct bz_bug *bug,
			     const char *answer)
{
	struct sync_context *sc = c->sc;
	long long row = 0;
	enum bb_status s;

	if ((s = store_begin(sc->db, c->err)))
		return s;
	/* no bug on the row: the mail never was on a list, so the bug's
	 * report is not a reply to it (the outbound side starts its thread) */
	if (m && m->message_id && !inbound_mail_seen(sc, m->message_id) &&
	    (s = inbound_mail_record(sc, &c->opt, m, 0, NULL, state, reason, NULL, &row, c->err)))
		goto fail;
	if (answer && row && m->from_addr &&
	    (s = queue_answer(c, m, bug, bug && bug->id > 0 ? 0 : row, answer)))
		goto fail;
	if (position && (s = store_cursor_set(sc->db, c->cursor_name, position, c->err)))
		goto fail;
	return store_commit(sc->db, c->err);
fail:
	store_rollback(sc->db);
	return s;
}

/* The description of the bug filed for m. */
static char *describe(struct submit_ctx *c, const struct inmail *m,
		      const struct inmail_body *body, const struct pseudo *p,
		      const struct auth_verdict *v)
{
	const struct bb_config *cfg = c->sc->cfg;
	struct buf d = BUF_INIT;

	buf_addstr(&d, p->text);
	if (d.len && d.data[d.len - 1] != '\n')
		buf_addch(&d, '\n');
	inbound_add_parts(c->sc, m, body, &d);
	buf_addf(&d, "\n-- \nReported by %s%s<%s> by mail to %s (sender authenticated by %s).\n"
		 "Message-ID: <%s>\n", m->from_name ? m->from_name : "",
		 m->from_name && *m->from_name ? " " : "", m->from_addr,
		 cfg->submit_address ? cfg->submit_address : "bugbridge",
		 v->method ? v->method : "none", m->message_id);
	return buf_detach(&d, NULL);
}

/* Uploads the attachments of body up to [submit] bugzilla_attachment_max
 * to the bug, but for those it has already (by file name: an upload before
 * a crash); each gets a line in the answer. */
static void upload_small(struct submit_ctx *c, long long bug_id, int created,
			 const struct inmail_body *body, struct buf *answer)
{
	struct sync_context *sc = c->sc;
	struct bz_bug had;

	memset(&had, 0, sizeof(had));
	had.id = bug_id;
	if (!created && body->nparts)
		bz_fetch_attachments(sc->bz, &had, 1, NULL);
	for (size_t i = 0; i < body->nparts; i++) {
		const struct inmail_part *part = &body->parts[i];
		const char *name = part->filename && *part->filename ? part->filename : "attachment";
		struct bb_error e = BB_ERROR_INIT;
		char size[32];
		long long id = 0;
		int there = 0;

		format_size(part->len, size, sizeof(size));
		buf_addf(answer, "  attachment %s (%s)\n", name, size);
		if (part->len > sc->cfg->submit_bugzilla_attachment_max) {
			buf_addstr(answer, "    done: in the blob store, linked from the description\n");
			continue;
		}
		for (size_t k = 0; k < had.nattachments && !there; k++)
			there = had.attachments[k].file_name &&
				!strcmp(had.attachments[k].file_name, name);
		if (!there && bz_add_attachment(sc->bz, bug_id, name,
						part->content_type ? part->content_type
								   : "application/octet-stream",
						NULL, part->data, part->len, &id, &e)) {
			buf_addf(answer, "    failed: Bugzilla said: %s (it is in the blob store, "
				 "linked from the description)\n", e.message);
			log_event(LOG_LEVEL_WARN, "submit.attachment_failed", LF_INT("bug", bug_id),
				  LF_STR("error", e.message));
			continue;
		}
		test_hook("submit.attached");
		buf_addstr(answer, "    done: attached to the bug, and in the blob store\n");
	}
	bz_bug_release(&had);
}

/* The bug for m: found by its URL (filed before a crash), else filed.
 * *created says which.  Bugzilla's refusal is BB_OK with *bug_id 0 and
 * *why set (malloc'd); a temporary failure is an error. */
static enum bb_status file_bug(struct submit_ctx *c, const struct inmail *m,
			       const struct pseudo *p, const char *description,
			       long long *bug_id, int *created, char **why)
{
	struct sync_context *sc = c->sc;
	const struct bb_config *cfg = sc->cfg;
	const char *summary = *inmail_bare_subject(m->subject) ? inmail_bare_subject(m->subject)
							       : "(no subject)";
	char *key = submit_key(m->message_id);
	struct bz_change fields[8];
	struct bb_error e = BB_ERROR_INIT;
	size_t n = 0;
	enum bb_status s = BB_OK;

	*bug_id = 0;
	*created = 0;
	if (!key)
		return bb_error_set(c->err, BB_ERR_NOMEM, "out of memory");
	if ((s = bz_find_bug_by_url(sc->bz, key, bug_id, c->err)) || *bug_id)
		goto out;
	fields[n++] = (struct bz_change){ "product", p->use[PH_PRODUCT] };
	fields[n++] = (struct bz_change){ "component", p->use[PH_COMPONENT] };
	fields[n++] = (struct bz_change){ "summary", summary };
	fields[n++] = (struct bz_change){ "version", p->use[PH_VERSION] };
	fields[n++] = (struct bz_change){ "op_sys", cfg->inbound_track_op_sys };
	fields[n++] = (struct bz_change){ "platform", cfg->inbound_track_platform };
	fields[n++] = (struct bz_change){ "url", key };
	if (p->use[PH_SEVERITY])
		fields[n++] = (struct bz_change){ "severity", p->use[PH_SEVERITY] };
	test_hook("submit.create");
	if (!(s = bz_create_bug(sc->bz, fields, n, description, bug_id, &e))) {
		*created = 1;
		test_hook("submit.created");
		log_event(LOG_LEVEL_INFO, "submit.filed", LF_INT("bug", *bug_id),
			  LF_STR("message_id", m->message_id));
		goto out;
	}
	if (status_retry_class(s) != BB_RETRY_GIVE_UP) {
		/* an answer lost after Bugzilla filed it: the next read finds it */
		*c->err = e;
		goto out;
	}
	/* refused for good: the fields, a closed product, no permission */
	*why = strdup(e.message);
	s = *why ? BB_OK : bb_error_set(c->err, BB_ERR_NOMEM, "out of memory");
out:
	free(key);
	return s;
}

/* An authenticated sender's mail: a bug, and the answer. */
static enum bb_status submit_file(struct submit_ctx *c, const char *raw, size_t len,
				  const struct inmail *m, const struct auth_verdict *v,
				  const char *position)
{
	struct sync_context *sc = c->sc;
	const struct bz_fields *f = NULL;
	struct inmail_body body;
	struct pseudo p;
	struct buf answer = BUF_INIT;
	struct route_result route = { NULL, NULL, NULL };
	struct bz_bug bug;
	char *description = NULL, *why = NULL, *lists = NULL, *thread = NULL;
	long long bug_id = 0;
	int created = 0;
	enum bb_status s;

	memset(&body, 0, sizeof(body));
	memset(&p, 0, sizeof(p));
	memset(&bug, 0, sizeof(bug));
	if ((s = inmail_decode(raw, len, &body, c->err)))
		goto out;
	pseudo_parse(&p, body.text ? body.text : "");
	bz_fields_get(sc->bz, &f, NULL);   /* without it, values go as written */
	pseudo_check(&p, f, sc->cfg);
	if (!p.use[PH_PRODUCT] || !p.use[PH_COMPONENT]) {
		pseudo_answer(&p, &answer, 0);
		buf_addstr(&answer, "\nrefused: no bug was filed: say which @product and "
				    "@component it is for (the submit address has no default)\n");
		c->stats->refused++;
		s = finish(c, m, position, "rejected", "submit: no product or component", &bug,
			   answer.data);
		goto out;
	}
	if (!(description = describe(c, m, &body, &p, v))) {
		s = bb_error_set(c->err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = file_bug(c, m, &p, description, &bug_id, &created, &why)))
		goto out;
	bug.id = bug_id;
	bug.summary = (char *)(*inmail_bare_subject(m->subject) ? inmail_bare_subject(m->subject)
								 : "(no subject)");
	bug.product = (char *)p.use[PH_PRODUCT];
	bug.component = (char *)p.use[PH_COMPONENT];
	bug.status = (char *)"NEW";
	pseudo_answer(&p, &answer, bug_id > 0);
	if (!bug_id) {
		buf_addf(&answer, "\nfailed: Bugzilla refused the bug: %s\n", why);
		c->stats->refused++;
		s = finish(c, m, position, "rejected", "submit: Bugzilla refused the bug", &bug,
			   answer.data);
		goto out;
	}
	upload_small(c, bug_id, created, &body, &answer);
	if (router_route(sc->router, &bug, &route, NULL) == BB_OK)
		lists = route_result_describe(&route);
	thread = mail_message_id(sc->cfg->mail_domain, bug_id, 0);
	buf_addf(&answer, "\ndone: filed as bug %lld", bug_id);
	if (sc->cfg->bz_url)
		buf_addf(&answer, ", %s/show_bug.cgi?id=%lld", sc->cfg->bz_url, bug_id);
	buf_addf(&answer, "\n    its report goes to %s as <%s>; replies there reach the bug\n",
		 lists && *lists ? lists : "the lists its route names", thread ? thread : "");
	c->stats->filed++;
	s = finish(c, m, position, "posted", "submit: filed by mail", &bug, answer.data);
out:
	free(thread);
	free(lists);
	route_result_release(&route);
	free(why);
	free(description);
	buf_release(&answer);
	pseudo_release(&p);
	inmail_body_release(&body);
	return s;
}

char *submit_confirm_key(const char *email)
{
	const char *at = strrchr(email, '@');
	const char *plus = memchr(email, '+', at ? (size_t)(at - email) : 0);
	char *key, *lower;

	if (plus && plus > email)
		key = g_strdup_printf("mail:%.*s%s", (int)(plus - email), email, at);
	else
		key = g_strconcat("mail:", email, NULL);
	lower = g_utf8_strdown(key, -1);
	g_free(key);
	return lower;
}

enum bb_status submit_confirm_reserve(struct store *db, unsigned long long limit, const char *key,
				      time_t now, long long *wait, struct bb_error *err)
{
	sqlite3_stmt *q = NULL;
	enum bb_status st;

	*wait = 0;
	if (!limit)
		return BB_OK;
	if ((st = store_prepare(db, &q, "SELECT count(*), min(time) FROM fd_budget WHERE "
				"client = ?1 AND time > ?2", err)))
		goto out;
	sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, (sqlite3_int64)now - 86400);
	if (sqlite3_step(q) != SQLITE_ROW) {
		st = store_fail(db, err, "counting an address's confirmation mails");
		goto out;
	}
	if ((unsigned long long)sqlite3_column_int64(q, 0) >= limit) {
		long long left = sqlite3_column_int64(q, 1) + 86400 - (long long)now;

		*wait = left > 0 ? left : 1;
		goto out;
	}
	sqlite3_finalize(q);
	q = NULL;
	if ((st = store_prepare(db, &q, "INSERT INTO fd_budget (client, time, bytes) "
				"VALUES (?1, ?2, 0)", err)))
		goto out;
	sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, (sqlite3_int64)now);
	if (sqlite3_step(q) != SQLITE_DONE)
		st = store_fail(db, err, "counting a confirmation mail");
out:
	if (q)
		sqlite3_finalize(q);
	return st;
}

/* Stores the attachments of body in the quarantine as attachments 1.. of
 * report id, with their fd_attachment rows (in the caller's transaction). */
static enum bb_status quarantine_parts(struct submit_ctx *c, struct quarantine *q, long long id,
				       const struct inmail_body *body)
{
	enum bb_status s = BB_OK;

	for (size_t i = 0; i < body->nparts && !s; i++) {
		const struct inmail_part *part = &body->parts[i];
		struct quarantine_writer *w = NULL;
		struct quarantine_file file;
		sqlite3_stmt *st = NULL;

		memset(&file, 0, sizeof(file));
		if ((s = quarantine_writer_open(q, 0, &w, c->err)))
			break;
		if ((s = quarantine_writer_write(w, part->data, part->len, c->err))) {
			quarantine_writer_abort(w);
			break;
		}
		if ((s = quarantine_writer_finish(w, &file, c->err)))
			break;
		if ((s = quarantine_adopt(q, &file, id, (unsigned)i + 1, c->err))) {
			quarantine_file_discard(&file);
			break;
		}
		free(file.path);
		if (!(s = store_prepare(c->sc->db, &st, "INSERT INTO fd_attachment (report, seq, "
					"blob_hash, file_name) VALUES (?1, ?2, ?3, ?4)", c->err))) {
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_int64(st, 2, (sqlite3_int64)i + 1);
			sqlite3_bind_text(st, 3, file.hash, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 4, part->filename && *part->filename ? part->filename
							: "attachment", -1, SQLITE_STATIC);
			if (sqlite3_step(st) != SQLITE_DONE)
				s = store_fail(c->sc->db, c->err, "storing an attachment of a report");
			sqlite3_finalize(st);
		}
	}
	return s;
}

/* A mail whose sender is not authenticated but whose From: domain passed
 * DMARC: a front door report waiting for the link the sender is mailed
 * (within [frontdoor] confirm_limit; past it, nothing is sent and nothing
 * kept).  All in one transaction with the mail's row and the cursor; the
 * quarantine's files of a transaction that fails are removed. */
static enum bb_status submit_wait(struct submit_ctx *c, const char *raw, size_t len,
				  const struct inmail *m, const char *position)
{
	struct sync_context *sc = c->sc;
	const struct bb_config *cfg = sc->cfg;
	const char *base = cfg->frontdoor_base_url ? cfg->frontdoor_base_url : cfg->blob_base_url;
	struct quarantine *q = NULL;
	struct inmail_body body;
	struct pseudo p;
	struct buf text = BUF_INIT;
	struct bz_bug nobug;
	unsigned char raw_token[SUBMIT_TOKEN_BYTES];
	char token[2 * SUBMIT_TOKEN_BYTES + 1], *qpath = NULL, *key = NULL;
	sqlite3_stmt *st = NULL;
	long long id = 0, row = 0, wait = 0;
	int in_tx = 0;
	enum bb_status s;

	memset(&body, 0, sizeof(body));
	memset(&p, 0, sizeof(p));
	memset(&nobug, 0, sizeof(nobug));
	if ((s = inmail_decode(raw, len, &body, c->err)))
		goto out;
	pseudo_parse(&p, body.text ? body.text : "");
	pseudo_check(&p, NULL, cfg);
	if (RAND_bytes(raw_token, sizeof(raw_token)) != 1) {
		s = bb_error_set(c->err, BB_ERR_INTERNAL, "no random token could be made");
		goto out;
	}
	hex_encode(raw_token, sizeof(raw_token), token);
	if (!(qpath = config_data_path(cfg, "quarantine")) || !(key = submit_confirm_key(m->from_addr))) {
		s = bb_error_set(c->err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = quarantine_open(&q, qpath, c->err)) || (s = store_begin(sc->db, c->err)))
		goto out;
	in_tx = 1;
	if ((s = submit_confirm_reserve(sc->db, cfg->frontdoor_confirm_limit, key, time(NULL), &wait,
					c->err)))
		goto out;
	if (wait) {
		/* no mail past the limit: the sender is told nothing, as any
		 * other sender the bridge cannot vouch for */
		store_rollback(sc->db);
		in_tx = 0;
		log_event(LOG_LEVEL_WARN, "submit.confirm_limited", LF_STR("message_id", m->message_id));
		s = finish(c, m, position, "rejected", "submit: sender not authenticated; "
			   "[frontdoor] confirm_limit reached for the address", NULL, NULL);
		goto out;
	}
	if ((s = store_prepare(sc->db, &st, "INSERT INTO fd_report (token, email, name, title, "
			       "description, product, component, client, created, bz_version, "
			       "severity) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'mail', ?8, ?9, ?10)",
			       c->err)))
		goto out;
	sqlite3_bind_text(st, 1, token, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, m->from_addr, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, m->from_name ? m->from_name : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, *inmail_bare_subject(m->subject) ? inmail_bare_subject(m->subject)
								   : "(no subject)", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, p.text, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, p.use[PH_PRODUCT] ? p.use[PH_PRODUCT] : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, p.use[PH_COMPONENT] ? p.use[PH_COMPONENT] : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)time(NULL));
	sqlite3_bind_text(st, 9, p.use[PH_VERSION] ? p.use[PH_VERSION] : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 10, p.use[PH_SEVERITY] ? p.use[PH_SEVERITY] : "", -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		s = store_fail(sc->db, c->err, "storing a report");
		goto out;
	}
	id = sqlite3_last_insert_rowid(sc->db->db);
	if ((s = quarantine_parts(c, q, id, &body)))
		goto out;
	if ((s = inbound_mail_record(sc, &c->opt, m, 0, NULL, "rejected", "submit: sender not "
				     "authenticated; waits for the confirmation link", NULL, &row,
				     c->err)))
		goto out;
	buf_addf(&text, "Someone, hopefully you, mailed a bug report to %s from your address.\n\n"
		 "To confirm your address and send the report to the kernel developers (on public\n"
		 "mailing lists), open this link and press its button:\n\n  %s/confirm/%s\n\n"
		 "If it was not you, ignore this mail: nothing is sent without the link, and the\n"
		 "report's attachments are deleted when the link expires.\n",
		 cfg->submit_address ? cfg->submit_address : "bugbridge", base ? base : "", token);
	if ((s = queue_answer(c, m, &nobug, row, text.data)) ||
	    (position && (s = store_cursor_set(sc->db, c->cursor_name, position, c->err))))
		goto out;
	in_tx = 0;
	if ((s = store_commit(sc->db, c->err)))
		goto out;
	id = 0;   /* the report's now: its files stay */
	c->stats->confirming++;
	log_event(LOG_LEVEL_INFO, "submit.confirming", LF_STR("message_id", m->message_id),
		  LF_UINT("attachments", body.nparts));
out:
	if (st)
		sqlite3_finalize(st);
	if (in_tx)
		store_rollback(sc->db);
	if (id && q)
		quarantine_remove_report(q, id, NULL);
	quarantine_close(q);
	free(qpath);
	g_free(key);
	buf_release(&text);
	pseudo_release(&p);
	inmail_body_release(&body);
	return s;
}

static enum bb_status on_mail(void *ctx, const char *raw, size_t len, const char *position)
{
	struct submit_ctx *c = ctx;
	const struct inmail_options iopt = { c->sc->cfg->mail_domain };
	struct inmail m;
	struct auth_verdict v;
	char reason[600];
	enum bb_status s;

	memset(&m, 0, sizeof(m));
	c->stats->mails++;
	if (inmail_parse_headers(raw, len, &iopt, &m, NULL) || !m.message_id || !m.from_addr) {
		log_event(LOG_LEVEL_WARN, "submit.unreadable", LF_STR("position", position));
		c->stats->ignored++;
		s = finish(c, NULL, position, NULL, NULL, NULL, NULL);
		goto out;
	}
	if (inbound_mail_seen(c->sc, m.message_id) || m.from_bridge || m.auto_reply) {
		c->stats->ignored++;
		s = finish(c, &m, position, "ignored", m.from_bridge ? "sent by bugbridge"
						       : m.auto_reply ? "an automatic reply"
						       : "read before", NULL, NULL);
		goto out;
	}
	if ((s = submit_verdict(c, &m, raw, len, &v)))
		goto out;
	if (v.temporary) {
		/* DNS did not give the key: the mail is read again next round */
		s = bb_error_set(c->err, BB_ERR_TEMPORARY, "the sender of <%s> cannot be checked now: %s",
				 m.message_id, v.reason);
		goto out;
	}
	if (!v.authenticated) {
		c->stats->unauthenticated++;
		if (v.dmarc_pass && c->sc->cfg->frontdoor_enabled) {
			/* the From: is the sender's: a confirmation link may go there */
			s = submit_wait(c, raw, len, &m, position);
			goto out;
		}
		/* no answer: the From: may be anybody's */
		snprintf(reason, sizeof(reason), "submit: sender not authenticated: %s", v.reason);
		log_event(LOG_LEVEL_WARN, "submit.unauthenticated", LF_STR("message_id", m.message_id),
			  LF_STR("reason", v.reason));
		s = finish(c, &m, position, "rejected", reason, NULL, NULL);
		goto out;
	}
	s = submit_file(c, raw, len, &m, &v, position);
out:
	inmail_release(&m);
	return s;
}

enum bb_status submit_round(struct sync_context *sc, struct archive_source *src,
			    struct submit_stats *stats, struct bb_error *err)
{
	struct submit_ctx c;
	char *name = str_printf("submit:%s", sc->cfg->submit_path ? sc->cfg->submit_path : "-");
	char *cursor = NULL, *next = NULL;
	enum bb_status s;

	memset(stats, 0, sizeof(*stats));
	memset(&c, 0, sizeof(c));
	if (!name)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if (!sc->bz) {
		s = bb_error_set(err, BB_ERR_CONFIG, "bugs cannot be filed by mail without a Bugzilla"
				 " ([bugzilla] url)");
		goto out;
	}
	if (sc->dry_run)
		goto out_ok;   /* a dry run files nothing and reads no mailbox */
	c.sc = sc;
	c.opt.source = name;
	c.cursor_name = name;
	c.stats = stats;
	c.err = err;
	if ((s = store_cursor_get(sc->db, name, &cursor, NULL, err)))
		goto out;
	/* a box never read before: every mail in it was sent to be filed */
	if ((s = archive_poll(src, cursor, on_mail, &c, &next, err)))
		goto out;
	if (next && (!cursor || strcmp(cursor, next)) && !(s = store_begin(sc->db, err))) {
		s = store_cursor_set(sc->db, name, next, err);
		s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	}
	if (s)
		goto out;
	log_event(stats->mails ? LOG_LEVEL_INFO : LOG_LEVEL_DEBUG, "submit.round",
		  LF_UINT("mails", stats->mails), LF_UINT("filed", stats->filed),
		  LF_UINT("refused", stats->refused),
		  LF_UINT("unauthenticated", stats->unauthenticated),
		  LF_UINT("ignored", stats->ignored));
out_ok:
	s = BB_OK;
out:
	free(cursor);
	free(next);
	free(name);
	return s;
}
