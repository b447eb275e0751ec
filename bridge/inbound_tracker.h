/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A list mail handed to the regression tracker (inbound_tracker.c).  For
 * bridge/inbound*.c. */
#ifndef BB_INBOUND_TRACKER_H
#define BB_INBOUND_TRACKER_H

#include "bridge/inbound.h"
#include "bridge/inbound_mail.h"
#include "bridge/sync.h"
#include "core/status.h"
#include "mail/auth.h"

/* Hands a mail to the regression tracker (in the caller's transaction):
 * with its body when with_body, else when the tracker wants it; verdict:
 * the sender's as the handling asked for it (NULL: asked here, when the
 * body has a directive). */
enum bb_status inbound_feed_tracker(struct sync_context *sc, const struct inbound_options *opt,
				    struct prepared_mail *p, int with_body,
				    const struct auth_verdict *verdict, struct bb_error *err);

#endif
