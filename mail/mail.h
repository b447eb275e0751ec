/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Folder mail/: the mail driver: composing (this header; it may use the bug
 * model), parsing (inmail.h, GMime), the SMTP outbox (libesmtp), the list
 * archive readers (public-inbox epochs, Atom, mbox, Maildir) and
 * MAINTAINERS.  It may use bugzilla/, attachments/, config/ and core/.
 *
 * Composing the bridge's mail with GMime.
 *
 * Message-IDs are deterministic under the configured domain:
 *   <bug-<id>@<domain>>                 the thread's first mail (the bug and
 *                                       its description, comment 0)
 *   <bug-<id>-c<count>@<domain>>        comment number <count>
 *   <bug-<id>-u<seq>@<domain>>          a mail with field changes only
 *   <bug-<id>-a<attachment>@<domain>>   an attachment stored after its
 *                                       first download failed
 *   <bug-<id>-r<seq>@<domain>>          a notice answering mail commands
 * so a re-sent mail has the same id and threads are stable across runs and
 * re-imports.  Plain text only, UTF-8, RFC 2047 headers (GMime encodes; a
 * Subject holding text that looks like an encoded word, "=?...?=", is sent
 * as UTF-8 base64 words so that readers show it literally);
 * CR, LF and control characters in anything from Bugzilla are replaced
 * before they reach a header, and invalid UTF-8 is repaired with U+FFFD.
 * Headers: X-Bugzilla-Product, -Component, -Status (and -Resolution when
 * set), Auto-Submitted: auto-generated, and X-Bugbridge-Loop: <domain> (the
 * loop header).  The body is one text/plain part (charset utf-8, 8bit, or
 * quoted-printable when a line would exceed 998 bytes); never HTML, never a
 * MIME attachment: attachments appear as lines with size, type, sha256 and
 * URL.  Whether a comment or bug may be mailed at all (private comments,
 * restricted groups) is the caller's decision.
 *
 * Thread safety: GMime is initialised once (mail_init(), called by every
 * function here); composing is safe from several threads.
 */
#ifndef BB_MAIL_H
#define BB_MAIL_H

#include <stddef.h>
#include <stdint.h>

#include "bugzilla/bug.h"
#include "core/buf.h"
#include "core/status.h"

#define MAIL_LOOP_HEADER "X-Bugbridge-Loop"
/* A mail of this bridge's state says so: X-Bugbridge-Mark: the first 16
 * bytes, in hex, of HMAC-SHA256(the state's mark key, the Message-ID
 * without angle brackets).  Read back from the list archive, it tells the
 * bridge's own mail from one that only borrows its Message-ID or loop
 * header, which anyone can write. */
#define MAIL_MARK_HEADER "X-Bugbridge-Mark"
#define MAIL_MARK_KEY_LEN 32
#define MAIL_MARK_HEX_LEN 32

struct mail_options {
	const char *domain;       /* Message-ID domain */
	const char *from;         /* "bugbridge <bugbridge@example.org>" */
	const char *subject;      /* format with {id} and {summary} */
	const char *bug_url_base; /* Bugzilla base URL, for "<base>/show_bug.cgi?id=N" */
	int show_addresses;       /* authors by name and address */
	const char *footer;       /* an extra footer line, or NULL */
	int replies_posted;       /* the inbound bridge posts list replies to the bug */
	const char *kernel_field; /* field of the "Kernel:" line; NULL: cf_kernel_version */
	const unsigned char *mark_key; /* MAIL_MARK_KEY_LEN bytes: X-Bugbridge-Mark; NULL: none */
};

/* The mark of message_id (MAIL_MARK_HEADER) into out; 0, or -1 when
 * libcrypto fails. */
int mail_mark(const unsigned char *key, const char *message_id,
	      char out[MAIL_MARK_HEX_LEN + 1]);
/* Whether mark (a header's value, surrounding space allowed) is message_id's
 * mark under key; compared in constant time. */
int mail_mark_ok(const unsigned char *key, const char *message_id, const char *mark);

/* What a mail says about one attachment (already in the blob store). */
struct mail_attachment {
	const struct bz_attachment *att;
	const char *hash;         /* 64 hex, or NULL if it could not be stored (yet) */
	const char *url;          /* blob URL, or NULL */
	const char *detected_type;/* from the bytes */
	const char *archive_summary; /* "3 files: a, b, c" or NULL */
	const char *inline_text;  /* small text attachment to quote, or NULL */
	const char *note;         /* "download failed, will be retried", or NULL */
};

/* A field change since the last mail ("Status", "NEW", "RESOLVED CODE_FIX"). */
struct mail_change {
	const char *field;
	const char *before;
	const char *after;
};

struct mail_message {
	char *message_id;         /* without <>; malloc'd */
	char *text;               /* the whole message, LF line ends, ends with LF; malloc'd */
	size_t len;
};

/* Initialises GMime once per process (thread-safe); every mail_ function
 * calls it, and code that uses GMime directly calls it first. */
void mail_init(void);
/* Releases GMime's global state (for leak checkers at exit).  Not
 * thread-safe; no mail_ or GMime function may be called afterwards. */
void mail_shutdown(void);

/* Message-ID (without <>; malloc'd, NULL when out of memory) of the thread's
 * first mail (count <= 0: the bug with its description) or of comment count. */
char *mail_message_id(const char *domain, long long bug_id, int count);
/* Message-ID (without <>; malloc'd) of the changes-only mail number seq. */
char *mail_changes_message_id(const char *domain, long long bug_id, long long seq);
/* Message-ID (without <>; malloc'd) of the mail saying that an attachment
 * whose download failed is stored now. */
char *mail_attachment_message_id(const char *domain, long long bug_id, long long attachment_id);
/* Message-ID (without <>; malloc'd) of the backlog summary that starts
 * with comment first_count: bug-<id>-s<count>. */
char *mail_backlog_message_id(const char *domain, long long bug_id, int first_count);
/* Message-ID (without <>; malloc'd) of notice number seq: an answer to a
 * mail's commands, bug-<id>-r<seq>; answer-r<seq> where bug_id is 0 (a
 * thread that is no bug). */
char *mail_notice_message_id(const char *domain, long long bug_id, long long seq);
/* 1 if message_id (with or without <>) is one the bridge made under domain
 * (any of the forms above); *bug_id (if not NULL) gets the bug. */
int mail_message_id_parse(const char *domain, const char *message_id, long long *bug_id);

/* Composes the mail for comment (count 0 starts the thread with the bug's
 * description; comment may be NULL for a bug without a visible description);
 * in_reply_to is the Message-ID it answers (NULL for the first mail),
 * references the chain for References: (may be NULL; in_reply_to is added
 * last).  Message-IDs are given without <>.  to/cc are NULL-terminated lists
 * of addresses ("Name <addr>" or "addr"); at least one recipient is needed.
 * route_note, if not NULL, says why the recipients changed ("Component
 * changed: A → B; now also sent to …").  The Date is the comment's time.
 * On success *out holds the mail (mail_message_release() it); on error *out
 * is empty and err says why: BB_ERR_CONFIG for unusable options (domain,
 * From), BB_ERR_INVALID for an unparsable recipient or In-Reply-To. */
enum bb_status mail_compose_comment(const struct mail_options *opt, const struct bz_bug *bug,
				    const struct bz_comment *comment,
				    const struct mail_attachment *atts, size_t natts,
				    const struct mail_change *changes, size_t nchanges,
				    char *const *to, char *const *cc,
				    const char *in_reply_to, char *const *references,
				    const char *route_note,
				    struct mail_message *out, struct bb_error *err);
/* A mail with only field changes (no new comment), numbered by a sequence
 * the caller keeps so its Message-ID is stable (mail_changes_message_id());
 * dated bug->last_change_time.  Otherwise as mail_compose_comment(). */
enum bb_status mail_compose_changes(const struct mail_options *opt, const struct bz_bug *bug,
				    long long seq, const struct mail_change *changes,
				    size_t nchanges, char *const *to, char *const *cc,
				    const char *in_reply_to, const char *route_note,
				    struct mail_message *out, struct bb_error *err);
/* Composes the backlog summary of a bug mirrored after it had public
 * comments: one reply in the thread (in_reply_to: the report) naming each
 * comment's author and date with the start of its text (at most 12 lines,
 * 1,200 bytes) and a link to it, then the attachments those comments
 * announced (atts), instead of one mail per old comment.  comments are in
 * order, at least one; Message-ID mail_backlog_message_id() of the first;
 * dated by the last. */
enum bb_status mail_compose_backlog(const struct mail_options *opt, const struct bz_bug *bug,
				    const struct bz_comment *const *comments, size_t ncomments,
				    const struct mail_attachment *atts, size_t natts,
				    char *const *to, char *const *cc, const char *in_reply_to,
				    struct mail_message *out, struct bb_error *err);
/* Composes the mail that hands a bug over to another list ("#bugbridge
 * reassign", bridge/handover.h): a thread of its own on that list (no
 * In-Reply-To, the bug's subject without "Re:"), text (who handed it
 * over, why), then the report (may be NULL: none public) and the public
 * comments (ncomments may be 0) as the backlog summary writes them.
 * Message-ID mail_notice_message_id(seq), which the caller derives from
 * the bug's hand-over number. */
enum bb_status mail_compose_handover(const struct mail_options *opt, const struct bz_bug *bug,
				     long long seq, const char *text,
				     const struct bz_comment *report,
				     const struct bz_comment *const *comments, size_t ncomments,
				     char *const *to, char *const *cc,
				     struct mail_message *out, struct bb_error *err);
/* Composes the follow-up for an attachment whose download failed when its
 * comment was mailed and that is stored now (att->hash set): a reply in the
 * thread (in_reply_to) with the attachment's lines. */
enum bb_status mail_compose_attachment(const struct mail_options *opt, const struct bz_bug *bug,
				       const struct mail_attachment *att, char *const *to,
				       char *const *cc, const char *in_reply_to,
				       struct mail_message *out, struct bb_error *err);
/* Composes an answer to a list mail (in_reply_to) in a bug's thread: text
 * says what became of the mail's commands (or of the mail); help adds
 * the list of commands (when a line was not understood).  Message-ID
 * bug-<id>-r<seq>@<domain>.  For a thread that is no bug (a refused
 * "#bugbridge track"), bug->id is 0: the answer's subject is
 * MAIL_NOTICE_SUBJECT, never the mail's (whose words are the sender's,
 * not the bridge's to repeat), and it has no bug link. */
#define MAIL_NOTICE_SUBJECT "bugbridge: your command"
/* The mail commands, a line or two each, as an answer lists them (the one
 * list: the notice's help and bridge/mailcmd.c's error reply print it). */
extern const char mail_commands_help[];
enum bb_status mail_compose_notice(const struct mail_options *opt, const struct bz_bug *bug,
				   long long seq, const char *text, int help, char *const *to,
				   char *const *cc, const char *in_reply_to,
				   struct mail_message *out, struct bb_error *err);
void mail_message_release(struct mail_message *m);

#endif
