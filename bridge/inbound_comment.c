/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The comment a list reply becomes: who wrote it, the reply cut down to
 * what gives context (inmail_reply_text()), its attachments stored and
 * listed, the archive link and the Message-ID marker; and cut to what
 * Bugzilla takes (65,535 characters, in code points as Bugzilla 5.2
 * counts them) before it is posted, its whole text in the blob store. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <glib.h>

#include "bridge/inbound_comment.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "mail/archive.h"
#include "mail/inmail.h"

char *inbound_archive_link(const struct inbound_options *opt, const char *message_id)
{
	return archive_mail_link(opt->archive_url, message_id);
}

/* Stores the mail's attachments and lists them for the comment. */
void inbound_add_parts(struct sync_context *sc, const struct inmail *m,
		       const struct inmail_body *body, struct buf *text)
{
	for (size_t i = 0; i < body->nparts; i++) {
		const struct inmail_part *p = &body->parts[i];
		struct blob_origin origin = { p->filename ? p->filename : "",
					      p->content_type ? p->content_type : "",
					      "mail-part", m->message_id };
		struct blob_info info;
		struct bb_error err = BB_ERROR_INIT;
		char size[32], *url;

		if (blob_put_memory(sc->blobs, p->data, p->len, &origin, &info, &err)) {
			buf_addf(text, "\nAttachment %s could not be stored (%s); it is in the "
				 "archived mail.\n", p->filename ? p->filename : "(unnamed)",
				 err.message);
			continue;
		}
		format_size(info.size, size, sizeof(size));
		url = blob_url(sc->blobs, info.hash, p->filename && *p->filename ? p->filename
									: "attachment");
		buf_addf(text, "\nAttachment: %s (%s, %s)\n  sha256:%s\n  %s\n",
			 p->filename && *p->filename ? p->filename : "(unnamed)", size,
			 info.content_type, info.hash, url ? url : "");
		free(url);
	}
}

/* Bugzilla takes comments of at most 65,535 characters, which 5.2 counts
 * in Unicode code points (Perl's length() of the decoded text). */
#define COMMENT_MAX_CHARS 65535

/* The code points of the n bytes at s (valid UTF-8: the bytes that do not
 * continue a character). */
static size_t utf8_chars(const char *s, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* The bytes of the first max code points of the n bytes at s. */
static size_t utf8_prefix(const char *s, size_t n, size_t max)
{
	size_t i = 0;

	for (size_t c = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && c++ == max)
			break;
	}
	return i;
}

/* The comment made of the n pieces (the text) and foot (the archive link
 * and the Message-ID marker).  When it is longer than Bugzilla takes
 * (COMMENT_MAX_CHARS; in bytes with count_bytes, for a server that
 * refused it still) its text is cut, at a character, so that a note
 * saying so and foot, kept whole, fit within it; the whole text (the
 * nwhole pieces whole, then foot) goes to the blob store, linked from the
 * note (the archive may be far, or gone).
 * Cut here, before it is posted, the database keeps only what is posted,
 * and no whole copy of a long reply is made.  malloc'd; NULL when out of
 * memory. */
static char *comment_fit(struct sync_context *sc, const char *const *piece, const size_t *len,
			 size_t n, const char *const *whole, const size_t *whole_len, size_t nwhole,
			 const char *foot, size_t foot_len, const char *message_id, int count_bytes)
{
	struct blob_origin origin = { "reply.txt", "text/plain; charset=utf-8", "mail-reply",
				      message_id };
	struct blob_info info;
	struct bb_error berr = BB_ERROR_INIT;
	struct blob_writer *w = NULL;
	struct buf b = BUF_INIT, note = BUF_INIT;
	size_t total = 0, used, budget;
	char *url = NULL;
	int nomem = 0;
	enum bb_status s;

#define CHARS(p, l) (count_bytes ? (l) : utf8_chars((p), (l)))
	for (size_t i = 0; i < n; i++)
		total += CHARS(piece[i], len[i]);
	if (!count_bytes && total + CHARS(foot, foot_len) <= COMMENT_MAX_CHARS) {
		for (size_t i = 0; i < n; i++)
			nomem |= buf_add(&b, piece[i], len[i]) != BB_OK;
		nomem |= buf_add(&b, foot, foot_len) != BB_OK;
		return nomem ? (buf_release(&b), NULL) : buf_detach(&b, NULL);
	}
	s = blob_writer_open(sc->blobs, 0, &w, &berr);
	for (size_t i = 0; !s && i < nwhole; i++)
		s = blob_writer_write(w, whole[i], whole_len[i], &berr);
	if (!s)
		s = blob_writer_write(w, foot, foot_len, &berr);
	if (s && w)
		blob_writer_abort(w);
	else if (!s)
		s = blob_writer_commit(w, &origin, &info, &berr);
	buf_addstr(&note, "\n\n[... the reply is longer than Bugzilla takes (65,535 characters);"
			  " it is cut here, the whole mail is archived at the link below]\n");
	if (!s && (url = blob_url(sc->blobs, info.hash, "reply.txt")))
		buf_addf(&note, "The whole text: %s\n  sha256:%s\n", url, info.hash);
	else if (berr.message[0])
		log_event(LOG_LEVEL_WARN, "inbound.reply_not_stored",
			  LF_STR("message_id", message_id), LF_STR("error", berr.message));
	free(url);
	used = CHARS(note.data, note.len) + CHARS(foot, foot_len);
	budget = used < COMMENT_MAX_CHARS ? COMMENT_MAX_CHARS - used : 0;
	for (size_t i = 0; i < n && budget; i++) {
		size_t take = count_bytes ? (len[i] < budget ? len[i] : budget)
					  : utf8_prefix(piece[i], len[i], budget);

		/* (counting bytes, the cut still falls between characters) */
		while (count_bytes && take < len[i] && take &&
		       ((unsigned char)piece[i][take] & 0xc0) == 0x80)
			take--;
		nomem |= buf_add(&b, piece[i], take) != BB_OK;
		budget = take < len[i] ? 0 : budget - CHARS(piece[i], take);
	}
#undef CHARS
	nomem |= buf_add(&b, note.data, note.len) != BB_OK;
	nomem |= buf_add(&b, foot, foot_len) != BB_OK;
	buf_release(&note);
	log_event(LOG_LEVEL_INFO, "inbound.reply_cut", LF_STR("message_id", message_id),
		  LF_UINT("chars", total), LF_UINT("bytes", b.len));
	return nomem ? (buf_release(&b), NULL) : buf_detach(&b, NULL);
}

/* A long reply's text is cut down for its comment (inmail_reply_text())
 * from its start, in pieces growing from this size, until one fills a
 * comment: the comment is cut anyway, and the whole text cut down would be
 * another copy of a text that may be 50 MB. */
#define REPLY_PIECE_MIN (256 * 1024)

/* Whether line (of the kind INMAIL_LINE_TEXT) is one whose fate in
 * inmail_reply_text(), and that of every line before it, no line after it
 * changes: the lines after a quote block decide whether it stays, and a
 * block drops the attribution line(s) before it ("On ..., X wrote:"),
 * which such a line cannot be. */
static int reply_stop_line(const char *line, size_t len)
{
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	return len && line[len - 1] != ':' && !(len >= 3 && (!g_ascii_strncasecmp(line, "On ", 3) ||
							     !g_ascii_strncasecmp(line, "Am ", 3) ||
							     !g_ascii_strncasecmp(line, "Le ", 3)));
}

/* inmail_reply_text() of words (wlen bytes), or of as much of its start as
 * makes more than chars code points of it: words up to the end of its
 * first stop line (reply_stop_line()) past REPLY_PIECE_MIN bytes, then 4,
 * 16, ... times as many, which inmail_reply_text() gives as the start of
 * what it gives of words.  *all says whether it is of all of words. */
static char *reply_text_start(const char *words, size_t wlen, size_t chars, int *all)
{
	for (size_t want = REPLY_PIECE_MIN; want < wlen; want *= 4) {
		struct inmail_lines it;
		const char *line;
		size_t len, end = wlen;
		enum inmail_line_kind kind;
		char *piece, *r;

		inmail_lines_init(&it, words, wlen);
		while (inmail_lines_next(&it, &line, &len, &kind))
			if ((size_t)(line - words) >= want && kind == INMAIL_LINE_TEXT &&
			    reply_stop_line(line, len)) {
				end = (size_t)(it.pos - words);
				break;
			}
		if (end >= wlen)
			break;
		if (!(piece = strndup(words, end)))
			return NULL;
		r = inmail_reply_text(piece);
		free(piece);
		if (!r || utf8_chars(r, strlen(r)) > chars) {
			*all = 0;
			return r;
		}
		free(r);
	}
	*all = 1;
	return inmail_reply_text(words);
}

/* The comment made of a list mail, cut to what Bugzilla takes
 * (comment_fit(); the blob store gets the whole text as written, its
 * quotes and signature too). */
char *inbound_compose_comment(struct sync_context *sc, const struct inbound_options *opt,
			      const struct inmail *m, const struct inmail_body *body,
			      const char *words, int count)
{
	struct buf lead = BUF_INIT, parts = BUF_INIT, foot = BUF_INIT;
	size_t wlen = words ? strlen(words) : 0, rlen;
	int all = 1;
	char *reply = reply_text_start(words ? words : "", wlen, COMMENT_MAX_CHARS, &all);
	char *link = inbound_archive_link(opt, m->message_id), *out = NULL;
	const char *name = m->from_name && *m->from_name ? m->from_name : m->from_addr;
	int nl;

	rlen = reply ? strlen(reply) : 0;
	if (sc->cfg->mail_show_addresses && m->from_name && *m->from_name)
		buf_addf(&lead, "%s <%s>", m->from_name, m->from_addr);
	else
		buf_addstr(&lead, name ? name : "Someone");
	if (count > 0)
		buf_addf(&lead, " replied on the list to comment #%d:\n\n", count);
	else if (count == 0)
		buf_addstr(&lead, " replied on the list to the bug report:\n\n");
	else
		buf_addstr(&lead, " wrote on the list:\n\n");
	nl = rlen ? reply[rlen - 1] != '\n' : lead.len && lead.data[lead.len - 1] != '\n';
	if (nl)
		buf_addch(&parts, '\n');
	inbound_add_parts(sc, m, body, &parts);
	buf_addf(&foot, "\nArchived at %s\nMessage-ID: <%s>\n", link ? link : "", m->message_id);
	if (reply && lead.data && parts.data && foot.data) {
		/* (neither the reply nor its text is copied whole once more) */
		const char *piece[3] = { lead.data, reply, parts.data };
		const size_t plen[3] = { lead.len, rlen, all ? parts.len : 0 };
		int wnl = wlen && words[wlen - 1] != '\n';
		const char *whole[4] = { lead.data, words ? words : "", "\n", parts.data + nl };
		const size_t whole_len[4] = { lead.len, wlen, (size_t)wnl, parts.len - (size_t)nl };

		out = comment_fit(sc, piece, plen, 3, whole, whole_len, 4, foot.data, foot.len,
				  m->message_id, 0);
	}
	buf_release(&lead);
	buf_release(&parts);
	buf_release(&foot);
	free(reply);
	free(link);
	return out;
}

/* A comment Bugzilla refused as too long (comment_fit() counting bytes). */
char *inbound_shorten_comment(struct sync_context *sc, const char *text, const char *message_id)
{
	const char *foot = NULL, *p;
	size_t head;

	for (p = strstr(text, "\nArchived at "); p; p = strstr(p + 1, "\nArchived at "))
		foot = p;
	if (!foot)
		foot = text + strlen(text);
	head = (size_t)(foot - text);
	return comment_fit(sc, &text, &head, 1, &text, &head, 1, foot, strlen(foot), message_id, 1);
}

/* ---------------------------------------------------- the reply's words */

/* The body without its command lines (#bugbridge ... on a line of its own,
 * outside quotes); malloc'd. */
char *inbound_strip_commands(const char *body)
{
	struct buf out = BUF_INIT;
	const char *p = body;

	while (*p) {
		size_t len = strcspn(p, "\n");

		size_t lead = strspn(p, " \t");
		int command = lead < len && !strncasecmp(p + lead, "#bugbridge", 10);

		if (!command)
			buf_add(&out, p, len);
		if (p[len] == '\n') {
			if (!command)
				buf_addch(&out, '\n');
			len++;
		}
		p += len;
	}
	return buf_detach(&out, NULL);
}

/* Whether text holds words of its own: a line that is not blank, not
 * quoted and not an attribution ("On ..., X wrote:"). */
int inbound_has_own_text(const char *text)
{
	const char *p = text;

	while (p && *p) {
		size_t len = strcspn(p, "\n"), i = 0;

		while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
			i++;
		if (i < len && p[i] != '>' &&
		    !(len >= 6 && !strncmp(p + len - 6, "wrote:", 6)))
			return 1;
		p += len + (p[len] == '\n');
	}
	return 0;
}
