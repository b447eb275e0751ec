/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replies to a digest (inbound_digest.c; the digests: bridge/digest.h).
 * For bridge/inbound.c. */
#ifndef BB_INBOUND_DIGEST_H
#define BB_INBOUND_DIGEST_H

#include "bridge/inbound.h"
#include "bridge/inbound_mail.h"
#include "bridge/sync.h"
#include "core/status.h"
#include "mail/inmail.h"

/* The digest (its row) a mail answers, by its In-Reply-To, else its
 * References from the nearest back; 0 when none.  *parent (may be NULL)
 * gets the digest's Message-ID. */
long long inbound_digest_replied(struct sync_context *sc, const struct inmail *m,
				 const char **parent);
/* A reply to a digest whose lines "#bugbridge <n> <command>" act on entry n,
 * as a command on that bug's thread does, recorded with the cursor. */
enum bb_status inbound_handle_digest(struct sync_context *sc, const struct inbound_options *opt,
				     struct prepared_mail *p, const char *cursor_name,
				     const char *cursor_value, struct inbound_stats *stats,
				     struct bb_error *err);

#endif
