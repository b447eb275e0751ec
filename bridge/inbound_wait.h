/* SPDX-License-Identifier: GPL-2.0-or-later */
/* List mails whose sender's check waits for DNS (inbound_wait.c, which
 * says how).  For bridge/inbound*.c. */
#ifndef BB_INBOUND_WAIT_H
#define BB_INBOUND_WAIT_H

#include <stddef.h>
#include <time.h>

#include "bridge/inbound.h"
#include "bridge/sync.h"
#include "core/status.h"
#include "mail/auth.h"
#include "mail/inmail.h"

/* The cursor name under which a mail read again from in_wait is handled:
 * inbound_cursor_move() "moving" it past the mail deletes the mail's row
 * (inbound_wait_done()), in the transaction that records what became of
 * the mail, as the archive's cursor moves past a mail read from it. */
#define INBOUND_WAIT_CURSOR "in_wait"

/* [inbound] dns_timeout in milliseconds. */
long inbound_dns_timeout_ms(const struct bb_config *cfg);
/* inbound_sender_verdict() within the round's time for DNS (stats->dns_ms
 * counts what its checks took): once that is spent, the mail is not
 * authenticated for now (v->temporary), and no lookup is made. */
enum bb_status inbound_round_sender_verdict(struct sync_context *sc,
					    const struct inbound_options *opt,
					    const struct inmail *m, const char *raw, size_t len,
					    struct inbound_stats *stats, struct auth_verdict *v,
					    struct bb_error *err);
/* Whether checking the mail's sender may wait for DNS: DKIM keys come from
 * DNS ([inbound] authenticate dkim or dkim-or-authserv, no dkim_key_file)
 * and the mail is no history (whose sender is not checked). */
int inbound_sender_may_wait(const struct sync_context *sc, const struct inbound_options *opt,
			    const struct inmail *m);
/* Whether in_mail has a row for message_id, or in_wait. */
int inbound_mail_seen_or_waiting(struct sync_context *sc, const char *message_id);
/* Keeps a mail whose check v is temporary in in_wait, as archived (since:
 * when it began to wait, 0 for now), or counts a check again; logs
 * inbound.dns_wait and counts stats->waiting.  In the caller's
 * transaction; a dry run only logs and counts. */
enum bb_status inbound_wait_record(struct sync_context *sc, const char *message_id,
				   const char *raw, size_t len, time_t since,
				   const struct auth_verdict *v, struct inbound_stats *stats,
				   struct bb_error *err);
/* Deletes a mail's row in in_wait (in the caller's transaction). */
enum bb_status inbound_wait_done(struct sync_context *sc, const char *message_id,
				 struct bb_error *err);
/* A temporary verdict of a mail waiting since since becomes final (not
 * authenticated, "DNS did not answer ...") once it waited 24 hours. */
void inbound_wait_over(struct auth_verdict *v, time_t since);
/* Handles a mail read again from in_wait, as archived. */
typedef enum bb_status inbound_waited_fn(struct sync_context *sc,
					 const struct inbound_options *opt, const char *raw,
					 size_t len, const char *message_id, time_t since,
					 struct inbound_stats *stats, struct bb_error *err);
/* Reads the mails in in_wait (the longest waiting first, at most 256 a
 * round) and hands each to handle.  Not in a dry run. */
enum bb_status inbound_check_waiting(struct sync_context *sc, const struct inbound_options *opt,
				     inbound_waited_fn *handle, struct inbound_stats *stats,
				     struct bb_error *err);

#endif
