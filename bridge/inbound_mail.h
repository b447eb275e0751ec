/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One list mail as the inbound side handles it: the one object every step
 * from the archive reader to Bugzilla reads (issue 36, item 1).
 *
 * It owns what is worked out from the mail's bytes, each part once:
 *   - the header view (mail/inmail.h's struct inmail: one value per
 *     singleton field, duplicates flagged), read when the mail is read;
 *   - the raw scan (inmail_scan()), with it;
 *   - the decoded body (inmail_decode()), on first need, at most once: a
 *     mail that cannot be decoded keeps why; a step that reads only its
 *     text (commands, directives, the tracker) has the text decoded alone
 *     (inmail_decode_text()), and the attachments are decoded when a step
 *     asks for the whole body (a mail of a bug), at most once;
 *   - the scan of its body for "#bugbridge" commands and "#regzbot"
 *     directives, on first need, of that body;
 *   - its sender's authentication verdict (inbound_sender_verdict()), on
 *     first need, at most once: the handling asks for it before any
 *     transaction opens when it can know it will need it.
 * Matching, the comment, the commands, "#bugbridge track", the tracker
 * feed and the outbox echo check all read it (bridge/inbound*.c).
 *
 * Per mail it counts the work done on its bytes: header parses, body
 * decodes (of the text, and of all of it when a step asked for all
 * first: the wholes among them), decodes of the attachments after the
 * text alone, authentication checks.  prepared_mail_release() logs them at
 * debug level (inbound.mail_work), and with $BUGBRIDGE_TEST_MAIL_WORK set
 * to a file's name appends them to that file, one line a mail (the test
 * hook of tests/lib/mailwork.sh, which inbound.sh, tracker.sh and
 * inbound-dns.sh source). */
#ifndef BB_INBOUND_MAIL_H
#define BB_INBOUND_MAIL_H

#include <stddef.h>
#include <time.h>

#include "bridge/inbound.h"
#include "bridge/mailcmd.h"
#include "core/status.h"
#include "mail/auth.h"
#include "mail/inmail.h"

struct prepared_mail {
	const char *raw;        /* the mail as archived (the caller's bytes) */
	size_t len;
	struct inmail m;
	enum bb_status parsed;  /* of inmail_parse_headers() (err says why it failed) */
	unsigned scan;          /* inmail_scan() */
	int track;              /* a #bugbridge track command (where looked for) */
	time_t waited_since;    /* read again from in_wait: since when; 0: from the archive */

	/* the rest through the functions below */
	int body_tried;         /* a decode was asked: body_status says how it went */
	enum bb_status body_status;
	struct inmail_body body;
	int cmds_scanned;       /* mailcmd_parse() of the body */
	struct mailcmd *cmds;
	size_t ncmds;
	int checked;            /* the verdict is known */

	/* what was handled (for the counters' line) and the work done */
	long long bug_id;
	struct {
		/* decodes: first decodes of the body (its text alone, or all
		 * of it: wholes); attachments: of the attachments after the
		 * text alone */
		unsigned parses, decodes, wholes, attachments, checks;
	} work;

	/* last: prepared_mail_read() clears all above, and these with
	 * bb_error_clear() (their messages are half of p); the verdict, 800
	 * bytes, is not cleared: it is read only once checked, which its
	 * check fills */
	struct auth_verdict verdict;
	struct bb_error err;    /* why the headers could not be read */
	struct bb_error body_err; /* why the body could not be decoded */
};

/* Reads the mail raw/len (the caller's bytes, which must outlive p): the
 * header pass and the raw scan, and for a mail that could start a tracked
 * thread ([inbound] track and commands, and the scan says a command may be
 * in it) the command scan, which decodes the body.  Never fails: p->parsed
 * and p->err say whether the headers could be read. */
void prepared_mail_read(struct prepared_mail *p, const struct bb_config *cfg, const char *raw,
			size_t len);
/* Logs (and for the test hook writes) the mail's work, frees what p holds
 * (a second release does nothing; prepared_mail_read() may fill p again). */
void prepared_mail_release(struct prepared_mail *p);

/* The decoded body with its attachments, decoded on the first call (the
 * attachments only, when the text was decoded alone before); NULL when it
 * cannot be decoded (err, when not NULL, says why, every time it is
 * asked). */
const struct inmail_body *prepared_mail_body(struct prepared_mail *p, struct bb_error *err);
/* The body's text ("" when it has none), the text alone decoded when the
 * body was not decoded yet; NULL when the body cannot be decoded. */
const char *prepared_mail_body_text(struct prepared_mail *p);
/* The body's text ("" when it has none or cannot be decoded), as
 * prepared_mail_body_text(). */
const char *prepared_mail_text(struct prepared_mail *p);
/* The body's "#bugbridge" lines (mailcmd_parse(), once): their number,
 * *cmds pointing into p; 0 when the body cannot be decoded. */
size_t prepared_mail_commands(struct prepared_mail *p, const struct mailcmd **cmds);
/* Whether the body has a line that starts with "#regzbot" (any case): a
 * directive, whose sender is then checked. */
int prepared_mail_directive(struct prepared_mail *p);

/* The sender's verdict (inbound_sender_verdict()), checked on the first
 * call only: with stats, within the round's time for DNS
 * (inbound_round_sender_verdict()), else with [inbound] dns_timeout.  On
 * success p->verdict is it. */
enum bb_status prepared_mail_verdict(struct sync_context *sc, const struct inbound_options *opt,
				     struct prepared_mail *p, struct inbound_stats *stats,
				     struct bb_error *err);

/* Whether raw/len is p's mail (the same bytes): a thread the archive gives
 * holds the mail itself, which then is not read again. */
int prepared_mail_is(const struct prepared_mail *p, const char *raw, size_t len);

#endif
