/* Composing the bridge's mail with GMime.
 *
 * Message-IDs are deterministic under the configured domain:
 *   <bug-<id>@<domain>>                 the thread's first mail (the bug)
 *   <bug-<id>-c<count>@<domain>>        comment number <count>
 * so a re-sent mail has the same id and threads are stable across runs and
 * re-imports.  Plain text only, UTF-8, RFC 2047 headers (GMime encodes);
 * CR, LF and control characters in anything from Bugzilla are replaced
 * before they reach a header, and invalid UTF-8 is repaired with U+FFFD.
 * Headers: X-Bugzilla-Product, -Component, -Status, Auto-Submitted:
 * auto-generated, and X-Bugbridge-Loop (the loop header).
 */
#ifndef BB_MAIL_H
#define BB_MAIL_H

#include <stddef.h>
#include <stdint.h>

#include "bridge/bug.h"
#include "core/buf.h"
#include "core/status.h"

#define MAIL_LOOP_HEADER "X-Bugbridge-Loop"

struct mail_options {
	const char *domain;       /* Message-ID domain */
	const char *from;         /* "bugbridge <bugbridge@example.org>" */
	const char *subject;      /* format with {id} and {summary} */
	const char *bug_url_base; /* Bugzilla base URL, for "<base>/show_bug.cgi?id=N" */
	int show_addresses;       /* authors by name and address */
	const char *footer;       /* an extra footer line, or NULL */
};

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
	char *message_id;         /* without <> */
	char *text;               /* the whole message, LF line ends */
	size_t len;
};

/* Message-ID (without <>) for the bug itself (count < 0) or comment count. */
char *mail_message_id(const char *domain, long long bug_id, int count);

/* Composes the mail for comment (count 0 starts the thread with the bug's
 * description); in_reply_to is the Message-ID it answers (NULL for the
 * first mail), references the chain for References: (may be NULL).
 * to/cc are NULL-terminated lists.  route_note, if not NULL, says why the
 * recipients changed ("Component changed: A → B; now also sent to …"). */
enum bb_status mail_compose_comment(const struct mail_options *opt, const struct bz_bug *bug,
				    const struct bz_comment *comment,
				    const struct mail_attachment *atts, size_t natts,
				    const struct mail_change *changes, size_t nchanges,
				    char *const *to, char *const *cc,
				    const char *in_reply_to, char *const *references,
				    const char *route_note,
				    struct mail_message *out, struct bb_error *err);
/* A mail with only field changes (no new comment), numbered by a sequence
 * the caller keeps so its Message-ID is stable. */
enum bb_status mail_compose_changes(const struct mail_options *opt, const struct bz_bug *bug,
				    long long seq, const struct mail_change *changes,
				    size_t nchanges, char *const *to, char *const *cc,
				    const char *in_reply_to, const char *route_note,
				    struct mail_message *out, struct bb_error *err);
void mail_message_release(struct mail_message *m);

#endif
