/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Filing a bug by mail: the submit box ([submit] path, a Maildir or mbox
 * an MTA delivers the [submit] address's mail to), read each round like a
 * list archive (mail/archive.h), from its first mail on.
 *
 * A mail there from a sender authenticated as commands are
 * (bridge/inbound.h; the MTA's authserv-id is [submit]
 * trusted_authserv_id, default [inbound]'s) becomes a Bugzilla bug:
 *
 *   Subject            the summary
 *   body               the description, without the pseudo-header lines
 *   @product, @component, @version, @severity
 *                      pseudo-header lines at the top of the body
 *                      (Bugzilla's email_in.pl syntax: "@field value",
 *                      "@field = value" or "@field: value"); a value
 *                      Bugzilla lacks (GET /rest/field/bug) is not used,
 *                      the default stands ([inbound] track_product,
 *                      track_component, track_version), and the answer
 *                      lists the legal ones
 *   attachments        into the blob store, linked from the description;
 *                      those up to [submit] bugzilla_attachment_max are
 *                      uploaded to the bug as well
 *
 * The bug is then mirrored as any other: the next outbound round mails its
 * report to the routed lists.  The sender gets one answer (to them alone,
 * In-Reply-To their mail): the bug's number and link, the thread and the
 * lists it went to, and per pseudo-header and attachment done, refused
 * (why, with the legal values) or failed.  A mail that cannot become a bug
 * (no product or component, Bugzilla refused it) is answered "refused" or
 * "failed".  A mail whose sender is not authenticated is never answered
 * (the submit address is no backscatter source): it files nothing and is
 * recorded as such.
 *
 * A mail whose sender is not authenticated but whose From: domain's DMARC
 * check passed at the box's MTA (auth_verdict.dmarc_pass), with the front
 * door on ([frontdoor] enabled), waits for its sender's confirmation as a
 * report filed on the front door's form does: an fd_report row, its
 * attachments in the quarantine (attachments/quarantine.h), one mail to
 * the From: address with the one-time link <base_url>/confirm/<token>
 * (answer-r<row>, within [frontdoor] confirm_limit, counted with the
 * form's), and from then on it is the front door's: confirmed, the report
 * goes to the lists (and Bugzilla with [frontdoor] create_bugs); not
 * confirmed within confirm_window, it expires and its files are removed.
 * Any other mail from a sender not authenticated is never answered.
 *
 * Exactly once.  The bug's URL field is "mid:<Message-ID>" (RFC 2392) of
 * the submitted mail: before filing, Bugzilla is asked for a bug with that
 * URL, so a mail read again after a crash (before its row and the box's
 * cursor were committed) finds the bug it filed instead of filing another,
 * and attachments the bug has already (by file name) are not uploaded
 * again.  The mail's row (in_mail, source "submit:<path>", state "posted"
 * with the bug, or "rejected" with the reason), its answer (the outbox,
 * Message-ID bug-<id>-r0, or answer-r<row> for a refusal) and the cursor
 * are committed in one transaction.
 */
#ifndef BB_SUBMIT_H
#define BB_SUBMIT_H

#include <time.h>

#include "bridge/sync.h"
#include "core/status.h"
#include "core/store.h"
#include "mail/archive.h"

struct submit_stats {
	unsigned long mails;      /* read from the box this round */
	unsigned long filed;      /* became bugs */
	unsigned long refused;    /* answered refused or failed */
	unsigned long unauthenticated; /* filed nothing, not answered */
	unsigned long confirming;      /* of those, sent a confirmation link */
	unsigned long ignored;    /* read before, the bridge's own, auto-replies */
};

/* The source options of the submit box (kind, path, max size); *opt's
 * strings point into cfg.  0 when [submit] path is unset. */
int submit_archive_options(const struct bb_config *cfg, struct archive_options *opt);

/* One round of the submit box: every mail after its cursor
 * ("submit:<path>").  An error stops the round with the cursor after the
 * last mail handled: BB_ERR_TEMPORARY when Bugzilla or DNS cannot answer
 * now (the mail is read again next round). */
enum bb_status submit_round(struct sync_context *sc, struct archive_source *src,
			    struct submit_stats *stats, struct bb_error *err);

/* Confirmation mails, the front door's and the submit box's, are counted
 * per recipient in fd_budget under this key: "mail:" and the address in
 * lower case, without a "+tag" in its local part (it reaches the same
 * mailbox).  g_free() it. */
char *submit_confirm_key(const char *email);
/* Counts the confirmation mails sent to key in the last day and, when
 * limit (0: none) allows one more, records this one, in the caller's
 * transaction.  *wait gets the seconds until the oldest leaves the day
 * when it refuses, else 0. */
enum bb_status submit_confirm_reserve(struct store *db, unsigned long long limit, const char *key,
				      time_t now, long long *wait, struct bb_error *err);

#endif
