/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bridge's answers to list mail (inbound_answer.c): what became of a
 * mail's #bugbridge commands, a reply Bugzilla refused, a refused or done
 * "#bugbridge track"; one answer a mail, on its thread (Message-ID
 * bug-N-r<row>, so never twice), within [inbound] answer_limit an hour for
 * the thread and for the sender; a reply to a digest that acted on no
 * bug, on the digest's thread.  For bridge/inbound*.c. */
#ifndef BB_INBOUND_ANSWER_H
#define BB_INBOUND_ANSWER_H

#include "bridge/inbound.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"
#include "core/status.h"

/* The first line of every answer the bridge mails to a command. */
#define ANSWER_HEADING "bugbridge's answer to the commands in the mail above:\n\n"

/* Queues the answer to a mail's commands, once (keyed by message_id and
 * seq), on the thread of bug (or of a stand-in for a thread that is no
 * bug), Cc'd to from_addr (NULL: nobody). */
enum bb_status inbound_queue_answer(struct sync_context *sc, const struct bz_bug *bug,
				    const char *from_addr, const char *message_id, long long seq,
				    const char *text, int help, struct inbound_stats *stats,
				    struct bb_error *err);
/* The same To the lists to (NULL-terminated bare addresses; NULL: the
 * bug's route, as inbound_queue_answer()). */
enum bb_status inbound_queue_answer_to(struct sync_context *sc, const struct bz_bug *bug,
				       char *const *to, const char *from_addr,
				       const char *message_id, long long seq, const char *text,
				       int help, struct inbound_stats *stats, struct bb_error *err);
/* The answer text (help: with the list of commands) to mail row, a reply
 * to a digest none of whose command lines acted on a bug, from from_addr
 * (authenticated), on the digest's thread: In-Reply-To the reply, To the
 * digest's list, Cc'd to the sender, Message-ID answer-r<row>, within
 * [inbound] answer_limit an hour for the digest's thread and for the
 * sender.  Nothing for a mail that answers no digest.  In
 * inbound_digest.c. */
enum bb_status inbound_digest_answer(struct sync_context *sc, long long row,
				     const char *from_addr, const char *message_id,
				     const char *text, int help, struct inbound_stats *stats,
				     struct bb_error *err);
/* Whether the bug's thread (bug_id > 0) or the sender got [inbound]
 * answer_limit answers in the last hour: no more go out. */
int inbound_answers_exhausted(struct sync_context *sc, long long bug_id, const char *sender);
/* Answers the commands of mail row row once all of them ran (only a mail
 * whose sender was authenticated). */
enum bb_status inbound_answer_commands(struct sync_context *sc, long long row,
				       struct inbound_stats *stats, struct bb_error *err);
/* Tells the sender of mail row (to bug_id) that Bugzilla refused its
 * comment for good, saying why. */
enum bb_status inbound_answer_refused(struct sync_context *sc, long long row, long long bug_id,
				      const char *message_id, const char *why,
				      struct inbound_stats *stats, struct bb_error *err);

#endif
