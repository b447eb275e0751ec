/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The comment a list reply becomes (inbound_comment.c): its words without
 * the command lines, who wrote it, its attachments, the archive link and
 * the Message-ID marker, cut to what Bugzilla takes.  For
 * bridge/inbound*.c. */
#ifndef BB_INBOUND_COMMENT_H
#define BB_INBOUND_COMMENT_H

#include "bridge/inbound.h"
#include "bridge/sync.h"
#include "core/buf.h"
#include "mail/inmail.h"

/* The text without its command lines (free()). */
char *inbound_strip_commands(const char *body);
/* Whether text has a line of the writer's own. */
int inbound_has_own_text(const char *text);

/* "<inbox URL>/<msgid>/" (free()); NULL when no archive URL is set. */
char *inbound_archive_link(const struct inbound_options *opt, const char *message_id);
/* Stores the mail's attachments and lists them for the comment. */
void inbound_add_parts(struct sync_context *sc, const struct inmail *m,
		       const struct inmail_body *body, struct buf *text);
/* The comment made of a list mail, cut to what Bugzilla takes (free();
 * NULL when out of memory). */
char *inbound_compose_comment(struct sync_context *sc, const struct inbound_options *opt,
			      const struct inmail *m, const struct inmail_body *body,
			      const char *words, int count);
/* A comment Bugzilla refused as too long all the same, cut counting bytes
 * (free(); NULL when out of memory). */
char *inbound_shorten_comment(struct sync_context *sc, const char *text,
			      const char *message_id);

#endif
