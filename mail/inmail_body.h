/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The full decode of list mail, the third step of inmail.h: GMime's parser,
 * the transfer encodings and the charsets, into the body text as UTF-8 and
 * the attachments as decoded bytes; and the split of an mbox into its
 * mails.  Included by inmail.h, whose rules (nothing trusted, every list
 * capped, time linear in the input) hold here too.
 */
#ifndef BB_INMAIL_BODY_H
#define BB_INMAIL_BODY_H

#include <stddef.h>

#include "core/status.h"

/* Largest mail inmail_decode() reads (BB_ERR_TOO_LARGE): the default of
 * [submit] max_mail_size, where a 50 MiB attachment comes as about 68 MiB
 * of base64 (a list archive's mails stop at [archive] max_mail_size, 64M,
 * before they reach it). */
#define INMAIL_RAW_MAX (128 * 1024 * 1024)
/* Most MIME leaf parts inmail_decode() reads (BB_ERR_TOO_LARGE beyond). */
#define INMAIL_PARTS_MAX 128
/* Deepest MIME nesting inmail_decode() follows; deeper parts are skipped. */
#define INMAIL_DEPTH_MAX 16

/* One decoded attachment (a claim of the mail; the blob store checks). */
struct inmail_part {
	char *filename;     /* base name, UTF-8, no '/', no controls; NULL if none */
	char *content_type; /* "type/subtype", lower-case, as the mail claims */
	unsigned char *data;/* the decoded bytes, malloc'd, with a NUL after len */
	size_t len;
};

struct inmail_body {
	/* The body as UTF-8 with LF line ends, ending with one unless empty
	 * (never NULL after success, "" for none): the inline text/plain
	 * parts in order, and inline text parts that are patches, a blank
	 * line apart.  Signed mail: the signed content; alternatives: the
	 * text/plain one; no text/plain part at all: the text of the HTML. */
	char *text;
	size_t text_len;
	int from_html;      /* no text/plain part: text extracted from HTML */
	int encrypted;      /* encrypted content was left unread */
	int skipped_parts;  /* parts left out: nested deeper than INMAIL_DEPTH_MAX */
	struct inmail_part *parts; /* attachments, in order */
	size_t nparts;
	int text_only;      /* inmail_decode_text(): the attachments were not read */
};

/* The full decode of raw/len.  On success b is filled (inmail_body_release()
 * it); on error b is empty and err says why: BB_ERR_TOO_LARGE (mail over
 * INMAIL_RAW_MAX, header section over INMAIL_HEADER_MAX, more than
 * INMAIL_PARTS_MAX parts), BB_ERR_INVALID (GMime
 * found no message), BB_ERR_NOMEM.  A bogus or unknown charset is no error:
 * the text is decoded as UTF-8, else as windows-1252, and invalid bytes
 * become U+FFFD. */
enum bb_status inmail_decode(const char *raw, size_t len, struct inmail_body *b,
			     struct bb_error *err);
/* The text of inmail_decode() alone, for a caller that reads only the
 * text (commands, directives): the same status and the same text,
 * from_html, encrypted and skipped_parts, but no attachments (nparts 0,
 * text_only set), whose contents -- logs, dumps, images, often base64 --
 * are not decoded.  Which leaves are text is decided as inmail_decode()
 * decides it (a named text part is decoded to know: only its text tells
 * whether it is a patch). */
enum bb_status inmail_decode_text(const char *raw, size_t len, struct inmail_body *b,
				  struct bb_error *err);
/* The rest of inmail_decode() for b, which inmail_decode_text() filled
 * from the same raw/len: the attachments, decoded now (the text's leaves
 * are not decoded again, but for named text parts); b is then what
 * inmail_decode() gives.  On error (BB_ERR_NOMEM) b is as it was. */
enum bb_status inmail_decode_attachments(const char *raw, size_t len, struct inmail_body *b,
					 struct bb_error *err);
/* The same decode with every mail through GMime's parser: inmail_decode()
 * reads a mail that is one leaf part without it, and must give the same
 * (the unit tests and the fuzz target check that against this). */
enum bb_status inmail_decode_parsed(const char *raw, size_t len, struct inmail_body *b,
				    struct bb_error *err);
/* Where the blank line that ends raw/len's header section starts when the
 * section is plain enough for inmail_decode() to read a one-part mail
 * without GMime's parser (every line a field with a printable name, or a
 * folded one; no NUL, no CR but before LF), 0 when it is not; *lines gets
 * how many lines were looked at.  For the unit tests. */
size_t inmail_plain_header(const char *raw, size_t len, size_t *lines);
/* 1 if two decodes are the same: text, flags, and each attachment's name,
 * type and bytes. */
int inmail_body_same(const struct inmail_body *a, const struct inmail_body *b);
void inmail_body_release(struct inmail_body *b);

/* Splits an mbox (mboxo/mboxrd, as lore and Mailman write them) with
 * GMime's mbox parser and calls fn for each message's raw bytes (without
 * its "From " line); fn returning non-zero stops the walk with that status.
 * BB_ERR_INVALID if data holds no message; BB_ERR_TOO_LARGE over
 * INMAIL_RAW_MAX. */
enum bb_status inmail_mbox_split(const char *data, size_t len,
				 enum bb_status (*fn)(void *ctx, const char *raw, size_t len),
				 void *ctx, struct bb_error *err);

#endif
