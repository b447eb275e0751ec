/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What bridge/inbound.c, inbound_comment.c and inbound_track.c share: the
 * helpers of the inbound side (defined in inbound*.c, documented there)
 * that the "#bugbridge track" command builds on, and that command's entry
 * points (defined in inbound_track.c).  Private to bridge/inbound*.c:
 * include it from nowhere else; the contract is in inbound.h. */
#ifndef BB_INBOUND_INTERNAL_H
#define BB_INBOUND_INTERNAL_H

#include <stddef.h>
#include <time.h>

#include "bridge/inbound.h"
#include "bridge/sync.h"
#include "core/buf.h"
#include "core/status.h"
#include "mail/auth.h"
#include "mail/inmail.h"

struct ref_memo;
struct prepared_mail;

/* --- inbound.c: a mail and its row ---------------------------------------- */

/* The bug a Message-ID belongs to (0: none) and its comment count. */
long long inbound_known_message(struct sync_context *sc, struct ref_memo *memo,
				const char *message_id, int *count);
/* Whether in_mail has a row for message_id. */
int inbound_mail_seen(struct sync_context *sc, const char *message_id);
/* Drops a mail's row (and its commands) to record it again. */
enum bb_status inbound_mail_forget(struct sync_context *sc, const char *message_id,
				   struct bb_error *err);
/* Records a mail's row in in_mail (*row: its id, when row is not NULL). */
enum bb_status inbound_mail_record(struct sync_context *sc, const struct inbound_options *opt,
				   const struct inmail *m, long long bug_id, const char *parent,
				   const char *state, const char *reason, const char *comment,
				   long long *row, struct bb_error *err);
/* Records a mail the bridge sent, read back from the archive, as sent. */
enum bb_status inbound_own_mail_sent(struct sync_context *sc, const struct inmail *m,
				     long long bug_id, const char *raw, size_t len,
				     struct bb_error *err);
/* Moves the cursor name to value (in the caller's transaction). */
enum bb_status inbound_cursor_move(struct sync_context *sc, const char *name, const char *value,
				   struct bb_error *err);
/* Posts a recorded mail's comment and acts on its commands. */
enum bb_status inbound_finish_mail(struct sync_context *sc, long long row,
				   struct inbound_stats *stats, struct bb_error *err);
/* Hands a mail to the regression tracker (in the caller's transaction):
 * with its body when with_body, else when the tracker wants it; verdict:
 * the sender's as the handling asked for it (NULL: asked here, when the
 * body has a directive). */
enum bb_status inbound_feed_tracker(struct sync_context *sc, const struct inbound_options *opt,
				    struct prepared_mail *p, int with_body,
				    const struct auth_verdict *verdict, struct bb_error *err);

/* --- inbound.c: the comment's words --------------------------------------- */

/* The text without its command lines (free()). */
char *inbound_strip_commands(const char *body);
/* Whether text has a line of the writer's own. */
int inbound_has_own_text(const char *text);

/* --- inbound_comment.c: the comment ---------------------------------------- */

/* "<inbox URL>/<msgid>/" (free()); NULL when no archive URL is set. */
char *inbound_archive_link(const struct inbound_options *opt, const char *message_id);
/* Stores the mail's attachments and lists them for the comment. */
void inbound_add_parts(struct sync_context *sc, const struct inmail *m,
		       const struct inmail_body *body, struct buf *text);
/* The comment made of a list mail, cut to what Bugzilla takes (free();
 * NULL when out of memory). */
char *inbound_compose_comment(struct sync_context *sc, const struct inbound_options *opt,
			      const struct inmail *m, const struct inmail_body *body,
			      const char *words, int count);
/* A comment Bugzilla refused as too long all the same, cut counting bytes
 * (free(); NULL when out of memory). */
char *inbound_shorten_comment(struct sync_context *sc, const char *text,
			      const char *message_id);

/* --- inbound.c: commands and who sent them -------------------------------- */

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
/* Records a command of mail row mail (its seq-th) and how it ended. */
enum bb_status inbound_command_record(struct sync_context *sc, long long mail, int seq,
				      long long bug_id, const char *line, const char *state,
				      const char *change, const char *note, struct bb_error *err);

/* --- inbound_wait.c: mails whose sender's check waits for DNS ------------ */

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

/* --- inbound_track.c: "#bugbridge track" ---------------------------------- */

/* A mail that belongs to no bug but says "#bugbridge track": recorded with
 * the cursor; when its sender may (its verdict: p's, checked here unless
 * the caller did), the thread becomes a bug. */
enum bb_status inbound_handle_track(struct sync_context *sc, const struct inbound_options *opt,
				    struct prepared_mail *p, const char *cursor_name,
				    const char *cursor_value, struct inbound_stats *stats,
				    struct bb_error *err);
/* --- inbound_digest.c: replies to a digest (bridge/digest.h) ----------- */

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

/* Threads whose bug was being created when a crash came. */
enum bb_status inbound_resume_tracks(struct sync_context *sc, const struct inbound_options *opt,
				     struct inbound_stats *stats, struct bb_error *err);

#endif
