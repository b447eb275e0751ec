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
 * Each step has its file and its header: the header pass is inmail.c and
 * this header, the raw scan inmail_scan.c/.h, the full decode (and the
 * mbox split) inmail_body.c/.h, the lines of a body (their kinds, the reply
 * text) inmail_lines.c/.h.  This header includes the other three: the rest
 * of the program includes it alone.
 *
 * Input is one message as bytes (LF or CRLF line ends); a leading mbox
 * "From " line is skipped.  inmail_mbox_split() splits an mbox with GMime.
 * Nothing here trusts the input: every string handed out is valid UTF-8
 * without NUL, CR, LF or other control characters (body text keeps LF and
 * TAB), every list is capped, and every function returns in time linear in
 * the input.  Strings and arrays are malloc'd (a parsed mail's header
 * values in one block, see struct inmail); the _release functions free
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

struct inmail_block;

/* What the header pass found.  All strings UTF-8, no controls.
 *
 * The strings and the references array live in one block the struct owns
 * (a value that does not fit, such as a Subject decoded longer than its
 * encoded form, gets a block of its own chained to it): parsing a mail
 * makes one allocation, not one a value, and inmail_release() frees them
 * together.  So the fields are the struct's alone: nothing outside
 * mail/inmail*.c frees, reallocates or replaces one (the bridge and the
 * tracker read them through a const struct inmail *; a copy outlives the
 * struct only by strdup()).  A copy of the struct itself shares the block:
 * release one of them, once. */
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

	struct inmail_block *strings;   /* private: where the strings above live */
};

/* The header pass.  raw/len is one message.  On success m is filled
 * (inmail_release() it; releasing it again, or a zeroed struct, is
 * harmless); on error m is empty (releasing it is harmless) and
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

/* The steps after the header pass (see above). */
#include "mail/inmail_scan.h"
#include "mail/inmail_body.h"
#include "mail/inmail_lines.h"

#endif
