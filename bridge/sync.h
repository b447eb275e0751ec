/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Folder bridge/: the engine: the sync both ways (this header and
 * inbound.h), mail commands, routing rules.  It may use every folder below
 * it: tracker/, triage/, mail/, bugzilla/, attachments/, config/, core/.
 *
 * The outbound sync engine: Bugzilla changes become list mail.
 *
 * A round: take the server's clock, search bugs changed since the cursor
 * (minus one second), keep those the router wants (and those already
 * mirrored, so a closing comment still reaches the list), fetch their new
 * comments and attachment lists in batches, store new attachments in the
 * blob store, then in one transaction record what was seen, queue a mail
 * for every new public comment (and for field changes) in the outbox, and
 * move the cursor.  Delivery follows.  A crash anywhere repeats nothing a
 * receiver can see as new: mails have deterministic Message-IDs, comments
 * are keyed by id, the cursor moves with the effects.
 *
 * sync_apply() is the second half on its own, for bugs that come from an
 * XML export (the demo and migration) instead of REST.
 */
#ifndef BB_SYNC_H
#define BB_SYNC_H

#include <time.h>

#include "attachments/blob.h"
#include "bridge/route.h"
#include "bugzilla/bug.h"
#include "bugzilla/bz_client.h"
#include "triage/match.h"
#include "config/conf.h"
#include "core/status.h"
#include "core/store.h"
#include "mail/outbox.h"

struct tracker;

struct sync_context {
	const struct bb_config *cfg;
	struct store *db;
	struct blob_store *blobs;
	/* Where the blobs of a bug that became restricted go when nothing
	 * public references them any more (attachments/blob.h's private
	 * store); NULL: they are dropped. */
	struct blob_store *private_blobs;
	/* When set, private_blobs is opened by it when first needed (set
	 * there, and an error if it cannot be: the blobs are not dropped). */
	enum bb_status (*open_private)(void *ctx, struct blob_store **out, struct bb_error *err);
	void *open_private_ctx;
	struct bz_client *bz;        /* NULL when bugs come from elsewhere */
	struct router *router;
	struct tracker *tracker;     /* NULL: no regression tracking */
	/* [routing] by_content: the MAINTAINERS sections a report's logs
	 * point at (triage/match.h); NULL when off or without MAINTAINERS */
	const struct tri_matcher *matcher;
	/* where the matcher's symbols and modules are in a watched git tree
	 * (tracker/locate.h); NULL: matched by name only */
	const struct tri_locator *locator;
	int dry_run;                 /* compose and count, change nothing */
	/* Re-examining (bugbridge sync --since, bugbridge resync): bugs
	 * changed since this time instead of the cursor (0: the cursor), or
	 * only these bugs (nonly 0: all).  Either way a public comment never
	 * mailed that is older than the last round goes out in one backlog
	 * summary per bug, not one mail each; nothing is sent twice. */
	time_t since;
	const long long *only;
	size_t nonly;
	time_t backlog_before;       /* set by sync_round() */
	/* A round from the cursor: the start of its window (set by
	 * sync_round()).  A bug already on the list that comes back from
	 * outside the mirrored set (moved to a product not mirrored, in a
	 * group for a while) had public comments never mailed before it: they
	 * go out in one backlog summary too. */
	time_t missed_before;
	/* History ([bugzilla] first_sync = all or a date on a data folder
	 * that never synced, or since above) that would mail more than
	 * [bugzilla] backfill_confirm is refused unless this is set (sync
	 * --yes): the round fails with BB_ERR_CONFIG saying how much it
	 * would mail, and changes nothing. */
	int backfill_confirmed;
	/* Called with each mail queued (or, in a dry run, that would be). */
	void (*on_mail)(void *ctx, long long bug_id, const char *message_id,
			const char *subject);
	void *on_mail_ctx;
	/* the state's mark key (sync_mark_key()): 0 not loaded yet, 1
	 * loaded, -1 none to be had */
	int mark_key_state;
	unsigned char mark_key[STORE_SECRET_LEN];
	/* inbound_round(): for each bug whose comments it fetched this
	 * round, the Message-IDs they end with (a GHashTable of bug id to a
	 * GHashTable of Message-ID to comment id); NULL outside a round */
	struct _GHashTable *comment_marks;
};

/* The key of the state's X-Bugbridge-Mark (mail/mail.h), a secret of the
 * store made once and loaded once; NULL in a dry run (which makes
 * nothing) or when it cannot be had (logged once): mail then goes out
 * unmarked, and after a state put back from a backup it may go out again.
 * Made, the first time, outside any transaction: sync_round() and
 * inbound_round() ask for it first, so that a rollback cannot lose a key
 * mail was already marked with. */
const unsigned char *sync_mark_key(struct sync_context *sc);
/* The name of that secret (store_secret()). */
#define SYNC_MARK_SECRET "mail-mark"

struct sync_stats {
	unsigned long bugs_seen, bugs_mirrored, bugs_skipped;
	unsigned long bugs_withdrawn;  /* mirrored, then restricted: see sync_withdraw() */
	unsigned long comments_new, comments_private, mails_queued;
	unsigned long attachments_stored, attachments_failed;
	unsigned long requests;      /* HTTP requests to Bugzilla this round */
	struct outbox_stats delivery;
};

/* The one eligibility rule: whether a bug may be mailed, posted to from
 * the list, and shown by the front door.  A bug is eligible when it is
 * public (in no group: bz_bug_is_public()) and mirrored: it passed the gate
 * ([bugzilla] products, components, statuses, keyword or flag, max_age:
 * router_wants()) once, and stays mirrored after.  live is the bug as
 * Bugzilla just gave it, or NULL when only the store's record is at hand
 * (the inbound side, the front door); r is NULL there too.  The tracker,
 * below this layer, asks the same of the store with BZ_BUG_PUBLIC_SQL.
 * *why (may be NULL) says why not. */
enum sync_eligibility {
	SYNC_ELIGIBLE,      /* mirror it, post its list replies, show it */
	SYNC_NOT_WANTED,    /* public, but not mirrored and not past the gate */
	SYNC_RESTRICTED     /* in a group now, or when last seen: withdrawn */
};
enum sync_eligibility sync_bug_eligibility(struct store *db, const struct router *r,
					   const struct bz_bug *live, long long id, time_t now,
					   const char **why);

/* Withdraws a mirrored bug that became restricted (bz_bug_is_public()
 * says no): it is marked restricted, so that the front door lists it no
 * more and the inbound side posts nothing into it; mail of it still
 * queued is dropped; its attachments lose their references, and blobs
 * that nothing public references leave the served store for
 * sc->private_blobs (blob_unpublish()).  Idempotent. */
enum bb_status sync_withdraw(struct sync_context *sc, long long bug_id, struct bb_error *err);

/* One round against Bugzilla, then delivery of what is due. */
enum bb_status sync_round(struct sync_context *sc, struct sync_stats *stats,
			  struct bb_error *err);

/* Records bugs (comments and attachment metadata filled in) and queues
 * their mail, in one transaction.  attachment data must already be in the
 * blob store or be fetched through sc->bz. */
enum bb_status sync_apply(struct sync_context *sc, struct bz_bug *bugs, size_t n,
			  const char *cursor_source, const char *cursor_value,
			  struct sync_stats *stats, struct bb_error *err);

/* Stores an attachment's bytes that came with the bug (an XML export) in
 * the blob store and records it, so the mail links it. */
enum bb_status sync_store_attachment_data(struct sync_context *sc,
					  const struct bz_attachment *a, const void *data,
					  size_t len, struct bb_error *err);

/* What a mail says of an attachment: the type detected from its bytes, an
 * archive's members, a small text quoted (up to inline_limit bytes), its
 * blob URL; or, when hash is NULL or "", the note why it is not stored.
 * The bridge and the export describe attachments with this one function,
 * so their mails are the same.  ma points into v; release v with
 * sync_attachment_view_release(). */
struct attachment_view {
	char hash[BLOB_HEX_LEN + 1];
	char detected[128];
	char *url, *note, *archive_summary, *inline_text;
};
struct mail_attachment;
void sync_attachment_view(struct blob_store *bs, unsigned long long inline_limit,
			  const struct bz_attachment *a, const char *hash, const char *note,
			  struct attachment_view *v, struct mail_attachment *ma);
void sync_attachment_view_release(struct attachment_view *v);

/* The bug as bugbridge last recorded it (no comments or attachments), enough
 * to route it and head a mail; BB_ERR_NOT_FOUND if it is not (or no longer)
 * mirrored or is restricted.  details also loads its resolution, severity,
 * priority, reporter and times; 0 leaves them empty, which the inbound side
 * passes so its notices go without an X-Bugzilla-Resolution header, as they
 * always have.  On BB_OK release *bug with bz_bug_release(); on error there
 * is nothing to release. */
enum bb_status sync_load_bug(struct sync_context *sc, long long id, int details,
			     struct bz_bug *bug, struct bb_error *err);

/* The bug's triage: the reader's report (*report) and the ranked sections
 * (*rank), of its description alone or with its comments and text
 * attachments (then its crash signature is recorded, tracker/samecrash.h,
 * unless dry_run); 0 (*report NULL) when [routing] by_content is off or
 * the text could not be read.  Each freed by the caller. */
int sync_triage_of(struct sync_context *sc, const struct bz_bug *bug, int description_only,
		   struct tri_report **report, struct tri_ranking **rank);

/* What the report reader (triage/reader.h) reads of a bug: its
 * description, public comments and public text attachments the blob store
 * holds, as the triage block does.  malloc'd, NULL when out of memory. */
char *sync_triage_text(struct sync_context *sc, const struct bz_bug *bug);

/* The comment a Bugzilla comment answers, from its "(In reply to comment #3)"
 * or "(In reply to Name from comment #3)" opening, or -1.  The bridge and the
 * export thread a comment's mail under that one with this function, so their
 * threads are the same. */
int sync_replied_comment(const char *text);
/* The Message-ID of an earlier mail of bug_id's thread: that of comment
 * count, or of the thread's root (count 0: the last hand-over mail, else
 * the report's); malloc'd, NULL if none was made (or out of memory). */
char *sync_comment_message_id(struct store *db, long long bug_id, int count);

/* Mail options (domain, From, subject format, ...) from the configuration. */
struct mail_options;
void sync_mail_options(const struct bb_config *cfg, struct mail_options *opt);

/* Delivery options from the configuration. */
void sync_outbox_options(const struct bb_config *cfg, struct outbox_options *opt);

/* The cursor name for the configured Bugzilla ("bugzilla:<url>"); free(). */
char *sync_cursor_name(const struct bb_config *cfg);

#endif
