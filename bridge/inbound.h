/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The inbound bridge: list mail that belongs to a mirrored bug becomes a
 * Bugzilla comment, and #bugbridge commands in it act on the bug.
 *
 * A mail belongs to a bug when its In-Reply-To or References reach a
 * Message-ID bugbridge knows: one of its own (bug-N..., see mail/mail.h),
 * a list mail already matched, or a thread root recorded for a bug created
 * from a list thread.  "[Bug N]" in the subject is the fallback for clients
 * that break threading.  Mails bugbridge sent, auto-replies, bounces and
 * mails carrying the loop header are recorded and never posted.
 *
 * Exactly once: each mail is a row of in_mail keyed by Message-ID.  The row
 * (state "intent") and its commands are committed together with the
 * archive cursor before anything is sent to Bugzilla; the comment is posted
 * and the row marked "posted" with the comment's id afterwards.  After a
 * crash, inbound_resume() finishes what was left: it first looks for the
 * comment among the bug's comments (each carries the mail's Message-ID)
 * and posts only if it is not there.  The comment's id is also recorded in
 * bz_comment with origin "bridge", so the outbound side never mails it
 * back.
 *
 * Mail is decoded lazily: headers first; full MIME decoding only for mails
 * that belong to a bug or may carry a command.
 */
#ifndef BB_INBOUND_H
#define BB_INBOUND_H

#include <stddef.h>
#include <time.h>

#include "bridge/sync.h"
#include "core/status.h"
#include "mail/archive.h"

struct inbound_options {
	const char *source;           /* names the archive in in_mail.source */
	const char *archive_url;      /* "<inbox URL>": links <url>/<msgid>/; NULL: none */
	int commands;                 /* act on #bugbridge commands */
	int track;                    /* #bugbridge track creates bugs */
	/* Fetches the whole thread of a mail for #bugbridge track (each
	 * message through fn, oldest first); NULL: only the mail itself. */
	enum bb_status (*fetch_thread)(void *ctx, const char *message_id,
				       enum bb_status (*fn)(void *fctx, const char *raw, size_t len),
				       void *fctx, struct bb_error *err);
	void *fetch_thread_ctx;
	/* Commands act only in mails dated at or after this time: when the
	 * archive's cursor was first set.  Older mails are the archive's
	 * history (a backfill, a re-read) and their commands are refused.
	 * 0: no limit.  inbound_round() sets it from the store. */
	time_t commands_since;
	/* A source never read before starts at the archive's end; with
	 * from_start, at its beginning: its whole history is read once (replies
	 * to mirrored bugs posted, the tracker fed), but commands_since is the
	 * time of this first read, so no command in it acts. */
	int from_start;
	/* Called every few hundred mails with the mails and bytes read so far
	 * in this round (a progress bar); NULL: none. */
	void (*progress)(void *ctx, unsigned long mails, unsigned long long bytes);
	void *progress_ctx;
};

struct inbound_stats {
	unsigned long mails, matched, posted, ignored, rejected;
	unsigned long commands_done, commands_refused, commands_failed, commands_invalid;
	unsigned long bugs_created, replies_queued;
	/* mails whose posting failed for a temporary reason: each backs off
	 * on its own (in_mail.next_attempt), the round goes on */
	unsigned long deferred;
	/* mails whose sender's check waits for DNS (in in_wait): new this
	 * round, or checked again and still waiting */
	unsigned long waiting;
	long long dns_ms;             /* this round's sender checks took */
	unsigned long long bytes;     /* of the mails read this round */
	unsigned deferred_in_a_row;
};

/* Records one archived mail (and, in the same transaction, the cursor
 * cursor_name = cursor_value when both are given), then acts on it.
 * Returns BB_OK for mails that are malformed or belong to no bug (they are
 * counted as rejected or skipped); an error only when the state cannot be
 * recorded or Bugzilla cannot be reached (the row stays an intent and
 * inbound_resume() finishes it). */
enum bb_status inbound_handle(struct sync_context *sc, const struct inbound_options *opt,
			      const char *raw, size_t len, const char *cursor_name,
			      const char *cursor_value, struct inbound_stats *stats,
			      struct bb_error *err);

/* Finishes every mail left as an intent (after a crash or a failed post). */
enum bb_status inbound_resume(struct sync_context *sc, const struct inbound_options *opt,
			      struct inbound_stats *stats, struct bb_error *err);

/* One inbound round: finishes what a crash left, then reads the archive
 * from the cursor "archive:<url or path>" (a source never read before
 * starts at its current end) and handles every new mail.  Threads for
 * #bugbridge track come from archive_fetch_thread() unless opt says
 * otherwise. */
/* What a crashed round left half done on the inbound side (intents; a
 * tracked thread whose bug was created but not recorded), finished before
 * the outbound pass reads Bugzilla: so that the bridge's own comments and
 * new bugs are known and never mailed back to the list. */
enum bb_status inbound_recover(struct sync_context *sc, struct archive_source *src,
			       const struct inbound_options *opt, struct inbound_stats *stats,
			       struct bb_error *err);
enum bb_status inbound_round(struct sync_context *sc, struct archive_source *src,
			     const struct inbound_options *opt, struct inbound_stats *stats,
			     struct bb_error *err);

/* Ends mail command seq of in_command row mail in state ("done",
 * "failed", ...) with note (NULL: none), in the caller's transaction; with
 * only_intent, only a command still an intent (a command code that may run
 * again after a crash ends it once). */
enum bb_status inbound_command_end(struct sync_context *sc, long long mail, int seq,
				   int only_intent, const char *state, const char *note,
				   struct bb_error *err);

/* The cursor name for the configured archive; free(). */
char *inbound_cursor_name(const struct bb_config *cfg);

#endif
