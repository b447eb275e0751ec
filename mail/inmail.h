/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading list mail for the inbound bridge, with GMime.
 *
 * Mail is decoded lazily (DESIGN.md): most list traffic concerns no tracked
 * bug and carries no command, so reading one mail goes in up to three steps,
 * each only when the one before says it is needed:
 *
 *   1. inmail_parse_headers(): the header section only, no GMime object
 *      tree.  The fields the bridge needs (Message-ID, In-Reply-To,
 *      References, From, Subject, Date, List-Id) are decoded with GMime's
 *      header helpers (RFC 2047, addresses, dates, msg-ids; runs of
 *      base64 encoded words after a padded one are joined first, which
 *      GMime 3.2.13 cut short); the mail is
 *      classified as an auto-reply or bounce, as the bridge's own mail, and
 *      as having failed sender authentication.
 *   2. inmail_raw_scan(): one pass over the raw bytes that says whether the
 *      mail may carry a "#bugbridge" command or a "#regzbot" directive, or is
 *      encoded so that only a full decode can tell.
 *   3. inmail_decode(): the full MIME decode (GMime parser, transfer
 *      encodings, charset conversion) into the body text as UTF-8 and the
 *      attachments as decoded bytes, for mails that belong to a tracked
 *      thread or may carry a command.
 *
 * Then inmail_reply_text() cuts the body down to what a Bugzilla comment
 * should carry, and mailcmd_parse() (mailcmd.h) reads the commands.
 *
 * Input is one message as bytes (LF or CRLF line ends); a leading mbox
 * "From " line is skipped.  inmail_mbox_split() splits an mbox with GMime.
 * Nothing here trusts the input: every string handed out is valid UTF-8
 * without NUL, CR, LF or other control characters (body text keeps LF and
 * TAB), every list is capped, and every function returns in time linear in
 * the input.  Strings and arrays are malloc'd; the _release functions free
 * them.  GMime is initialised through mail_init() (mail.h); all functions
 * are safe to call from several threads on different objects.
 */
#ifndef BB_INMAIL_H
#define BB_INMAIL_H

#include <stddef.h>
#include <time.h>

#include "core/status.h"

/* Largest header section inmail_parse_headers() reads (BB_ERR_TOO_LARGE). */
#define INMAIL_HEADER_MAX (1024 * 1024)
/* Largest mail inmail_decode() reads (BB_ERR_TOO_LARGE): the default of
 * [submit] max_mail_size, where a 50 MiB attachment comes as about 68 MiB
 * of base64 (a list archive's mails stop at [archive] max_mail_size, 64M,
 * before they reach it). */
#define INMAIL_RAW_MAX (128 * 1024 * 1024)
/* Most MIME leaf parts inmail_decode() reads (BB_ERR_TOO_LARGE beyond). */
#define INMAIL_PARTS_MAX 128
/* Deepest MIME nesting inmail_decode() follows; deeper parts are skipped. */
#define INMAIL_DEPTH_MAX 16
/* Most entries kept from References (the root and the newest ones). */
#define INMAIL_REFERENCES_MAX 128
/* Longest Message-ID accepted (RFC 5322 line limit); longer ones are NULL. */
#define INMAIL_MESSAGE_ID_MAX 998
/* Longest Subject or display name kept, in bytes (cut at a character). */
#define INMAIL_TEXT_MAX 1024

struct inmail_options {
	/* Message-ID domain of this bridge (mail.h): a mail whose Message-ID
	 * is one the bridge makes under it counts as the bridge's own even
	 * without the loop header.  NULL: only the loop header counts. */
	const char *bridge_domain;
};

/* What the header pass found.  All strings malloc'd, UTF-8, no controls. */
struct inmail {
	/* Message-IDs here, in in_reply_to and in references are printable
	 * ASCII without blanks, controls or angle brackets: a malformed one
	 * (folded encoded words, blanks or other junk inside <...>) is kept
	 * with those taken out, the same way wherever it appears, so replies
	 * still thread; an empty or over-long one (INMAIL_MESSAGE_ID_MAX) is
	 * left out. */
	char *message_id;   /* without <>, NULL if none or unusable */
	char *in_reply_to;  /* first msg-id of In-Reply-To, without <>, or NULL */
	/* References, oldest first, without <>, deduplicated and without this
	 * mail's own id (a mail is not its own ancestor: no loops);
	 * NULL-terminated, never NULL after success.  in_reply_to is usually
	 * the last entry too.  Longer lists keep the first (the thread's root)
	 * and the newest INMAIL_REFERENCES_MAX - 1. */
	char **references;
	size_t nreferences;
	char *from_name;    /* display name, "" if none */
	char *from_addr;    /* addr-spec with the domain lower-cased, NULL if none */
	char *subject;      /* decoded, "" if none */
	time_t date;        /* the Date: value's time, 0 if none or unparsable */
	char *list_id;      /* "netdev.vger.kernel.org", lower-case, NULL if none */

	/* Never posted to Bugzilla when set; skip_reason (a static string)
	 * says why: "loop-header", "bridge-message-id", "auto-submitted",
	 * "precedence", "autoreply-header", "autoreply-subject", "bounce". */
	int from_bridge;    /* carries the loop header or the bridge's Message-ID */
	char *mark;         /* its X-Bugbridge-Mark (MAIL_MARK_HEADER), when from_bridge */
	int auto_reply;     /* auto-reply, vacation reply or bounce */
	const char *skip_reason;

	size_t body_offset; /* where the body starts in the raw mail */
	unsigned head_scan; /* inmail_raw_scan() flags of the header section */
};

/* The header pass.  raw/len is one message.  On success m is filled
 * (inmail_release() it); on error m is empty (releasing it is harmless) and
 * err says why: BB_ERR_TOO_LARGE for a header section over
 * INMAIL_HEADER_MAX, BB_ERR_INVALID for input that has no header at all,
 * BB_ERR_NOMEM.  Malformed values are no error: they are left NULL/0.
 * opt may be NULL. */
enum bb_status inmail_parse_headers(const char *raw, size_t len,
				    const struct inmail_options *opt,
				    struct inmail *m, struct bb_error *err);
void inmail_release(struct inmail *m);
/* The time the Date: field gives, 0 if none or unparsable (m->date: the
 * tracker and the history check ask it of every mail). */
time_t inmail_date(const struct inmail *m);
/* The direct parent's Message-ID: In-Reply-To, else the last reference,
 * else NULL.  Points into m. */
const char *inmail_parent_id(const struct inmail *m);

/* The subject without reply and forward prefixes ("Re: ", "AW: ",
 * "Fwd: ", repeated): points into subject ("" for NULL). */
const char *inmail_bare_subject(const char *subject);

/* inmail_raw_scan() flags. */
#define INMAIL_SCAN_COMMAND 0x1  /* a line may be a "#bugbridge" command */
#define INMAIL_SCAN_REGZBOT 0x2  /* a line may be a "#regzbot" directive */
/* Base64 or uuencoded content, a charset in which ASCII is not itself
 * (UTF-16/32, UTF-7, ISO-2022, ...), or HTML that may be read: the two
 * flags above can be missing and only inmail_decode() tells.  A base64
 * part that is plainly one whose text inmail_decode() never reads (its
 * disposition is "attachment", or its type is plainly none of text/plain,
 * text/x-patch, text/x-diff, text/html, message/ and multipart/) does not
 * count.  Nor does HTML (base64 or not) where the scan sees a part that
 * adds text to the body -- plainly text/plain, unnamed, not attached, not
 * base64, a letter in its text -- and no message/ part (whose text/plain
 * is not read): inmail_decode() reads HTML only when no text/plain part
 * adds text.  Quoted-printable is seen through: a line that may start
 * with a keyword written in it (characters as "=XX", a soft line break
 * inside the keyword) is read as GMime decodes it; so are the control
 * bytes the decoded text drops. */
#define INMAIL_SCAN_OPAQUE  0x4
#define INMAIL_SCAN_MULTIPART 0x8 /* MIME multipart: may have attachments */
#define INMAIL_SCAN_TRAILER 0x10  /* a line may be a "Link:" or "Closes:" trailer */

/* One pass over the raw message (headers and body).  A command or directive
 * counts where it starts a line, after optional blanks, outside quoted
 * text; false positives are possible (the full parse decides), false
 * negatives only when INMAIL_SCAN_OPAQUE is set -- but for crafted text
 * the decode reads otherwise: a lone carriage return before a keyword
 * (also as quoted-printable "=0D"), an EBCDIC charset other than IBM037,
 * or parts laid out so that the text/plain part seen is not the one read
 * (an empty text/plain alternative before the one with text, a signed
 * part whose content is the HTML, nesting deeper than the decode goes). */
unsigned inmail_raw_scan(const char *raw, size_t len);
/* The same for a mail whose headers m holds (inmail_parse_headers() of
 * raw/len): the header section's flags come from its parsed fields, so
 * only the body is read. */
unsigned inmail_scan(const struct inmail *m, const char *raw, size_t len);

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
/* The same decode with every mail through GMime's parser: inmail_decode()
 * reads a mail that is one leaf part without it, and must give the same
 * (the unit tests and the fuzz target check that against this). */
enum bb_status inmail_decode_parsed(const char *raw, size_t len, struct inmail_body *b,
				    struct bb_error *err);
/* 1 if two decodes are the same: text, flags, and each attachment's name,
 * type and bytes. */
int inmail_body_same(const struct inmail_body *a, const struct inmail_body *b);
void inmail_body_release(struct inmail_body *b);

/* The body cut down to what gives context, for a Bugzilla comment: the
 * signature (from a "-- " line) is dropped; of each block of quoted lines
 * the last INMAIL_QUOTE_CONTEXT non-empty ones are kept, after a "> [...]"
 * line when some were cut, if the writer's own text follows; a quote block
 * with nothing after it (a top-post's quote) goes with its "... wrote:"
 * line; a top-post's "-----Original Message-----" and all after it go; a
 * forwarded mail (INMAIL_LINE_FORWARDED) stays whole.
 * Diffs are never cut (a "-- " line inside a hunk is a hunk line).  Blank
 * lines are collapsed.  Returns a malloc'd string (free() it), NULL when out
 * of memory. */
#define INMAIL_QUOTE_CONTEXT 3
char *inmail_reply_text(const char *body);

/* Line kinds, for the reply cutter and the command parser. */
enum inmail_line_kind {
	INMAIL_LINE_TEXT = 0, /* the writer's own words */
	INMAIL_LINE_BLANK,    /* empty or only blanks */
	INMAIL_LINE_QUOTE,    /* quoted: starts with '>', or from an Outlook
			       * "-----Original Message-----" line, a rule of
			       * underscores before "From:", or a "From:" line
			       * before "Sent:", to the end */
	INMAIL_LINE_PATCH,    /* part of a diff: its headers, hunk headers, hunk lines */
	INMAIL_LINE_SIGNATURE,/* the "-- " line and everything after it */
	INMAIL_LINE_FORWARDED,/* a forwarded mail, from a line of its own such
			       * as "---------- Forwarded message ---------" or
			       * "Begin forwarded message:" to the end: not the
			       * writer's words (no commands, no directives),
			       * but kept whole by inmail_reply_text() */
};

/* Walks a body line by line, classifying each (a diff's hunk lines are
 * counted from its "@@ -a,b +c,d @@" header, so "-- " or "> " inside a hunk
 * stay patch lines).  Initialise with inmail_lines_init(); text must stay
 * valid while walking.  Holds no memory. */
struct inmail_lines {
	const char *pos, *end;
	long old_left, new_left; /* lines still due in the current hunk */
	int in_diff;             /* between a diff's first header and its first hunk */
	int after_patch;         /* the last line was part of a diff */
	int in_signature;
	int in_original;         /* 0, or the kind of every line from a marker on:
				  * INMAIL_LINE_QUOTE or INMAIL_LINE_FORWARDED */
	unsigned lineno;         /* 1-based number of the line last returned */
};
void inmail_lines_init(struct inmail_lines *it, const char *text, size_t len);
/* The next line (without its line end; a CR before the LF is dropped) in
 * *line and *len; returns 1 and sets *kind, or 0 at the end. */
int inmail_lines_next(struct inmail_lines *it, const char **line, size_t *len,
		      enum inmail_line_kind *kind);

/* Splits an mbox (mboxo/mboxrd, as lore and Mailman write them) with
 * GMime's mbox parser and calls fn for each message's raw bytes (without
 * its "From " line); fn returning non-zero stops the walk with that status.
 * BB_ERR_INVALID if data holds no message; BB_ERR_TOO_LARGE over
 * INMAIL_RAW_MAX. */
enum bb_status inmail_mbox_split(const char *data, size_t len,
				 enum bb_status (*fn)(void *ctx, const char *raw, size_t len),
				 void *ctx, struct bb_error *err);

#endif
