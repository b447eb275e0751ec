/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who sent a list mail (inbound_sender.c): whether it is authenticated
 * ([inbound] authenticate), whether it is from the archive's history
 * (whose commands never act), and whether the sender may give commands
 * for a bug.  For bridge/inbound*.c. */
#ifndef BB_INBOUND_SENDER_H
#define BB_INBOUND_SENDER_H

#include <stddef.h>

#include "bridge/inbound.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "core/status.h"
#include "mail/auth.h"
#include "mail/inmail.h"

/* Whether addr is in list (any case). */
int inbound_address_in(const char *addr, char *const *list);
/* Whether the mail is from the archive's history (its commands never act). */
int inbound_from_history(const struct inbound_options *opt, const struct inmail *m);
/* Whether the sender is authenticated (DKIM, or a trusted relay). */
enum bb_status inbound_sender_verdict(struct sync_context *sc, const struct inbound_options *opt,
				      const struct inmail *m, const char *raw, size_t len,
				      struct auth_verdict *v, struct bb_error *err);
/* inbound_sender_verdict() with its DNS lookups' time: dns_timeout_ms as
 * auth_policy.dns_timeout_ms. */
enum bb_status inbound_sender_verdict_within(struct sync_context *sc,
					     const struct inbound_options *opt,
					     const struct inmail *m, const char *raw, size_t len,
					     long dns_timeout_ms, struct auth_verdict *v,
					     struct bb_error *err);
/* Whether addr may give commands for bug: [inbound] allow, the people
 * the bug's route names, [inbound] allow_group. */
int inbound_sender_allowed(struct sync_context *sc, const struct bz_bug *bug, const char *addr);

#endif
