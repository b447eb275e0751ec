/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A list mail handed to the regression tracker (inbound_tracker.h). */
#include "config.h"

#include "bridge/inbound_mail.h"
#include "bridge/inbound_tracker.h"
#include "tracker/tracker.h"

/* Hands a mail to the regression tracker (in the caller's transaction):
 * with its decoded body when with_body, else only when the tracker wants
 * it (tracker_wants_body(), from the raw scan).  A mail with a #regzbot
 * directive has its sender checked (verdict, when the caller's handling
 * of it asked already; from the archive's history, see
 * inbound_sender_verdict()): what an unauthenticated sender's directives
 * do is marked so. */
enum bb_status inbound_feed_tracker(struct sync_context *sc, const struct inbound_options *opt,
				    struct prepared_mail *p, int with_body,
				    const struct auth_verdict *verdict, struct bb_error *err)
{
	const char *body = NULL;
	enum bb_status s;

	if (!sc->tracker)
		return BB_OK;
	/* (the text alone: the tracker reads no attachment) */
	if (with_body || tracker_wants_body(sc->tracker, &p->m, p->scan, p->raw, p->len))
		body = prepared_mail_body_text(p);
	if (body && !verdict && prepared_mail_directive(p)) {
		if ((s = prepared_mail_verdict(sc, opt, p, NULL, err)))
			return s;
		verdict = &p->verdict;
	}
	return tracker_mail(sc->tracker, &p->m, body,
			    verdict && !verdict->authenticated ? verdict->reason : NULL, err);
}
