/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The digest per subsystem: one mail per list of its open bugs (issue 38,
 * item 3).
 *
 * Each list that has open bugs (public and mirrored: in no group, and
 * seen so by Bugzilla now, bz_check_visible(); without a resolution; not
 * muted with "#bugbridge no-reminders") gets one plain-text mail, From
 * [mail] from, To the list: the bugs numbered oldest first (by creation
 * time), each with its age, last activity, needinfo state, whether the
 * tracker tracks it as a regression, and its link; "[new]" marks a bug
 * that was not in the list's previous digest; the counts come first.  A
 * list in [digest] exclude_lists gets none.
 *
 * A digest is recorded (table digest, its entries in digest_entry) in the
 * transaction that queues its mail, once per list and period: its
 * Message-ID <digest-<period>-<list>@[mail] domain> is made from both, so
 * a crash at any point mails it exactly once.  The period is the schedule's
 * (2026-W51 weekly, 2026-12 monthly), or for a run by hand without a
 * schedule the UTC day.  The daemon (digest_round()) mails the digests of
 * a period from [digest] day at [digest] hour (UTC), and the first one a
 * whole period after the schedule was turned on (recorded in the cursor
 * "digest:schedule"): turning it on does not mail every list at once.
 *
 * A reply to a digest with "#bugbridge <n> <command>" acts on entry n of
 * that digest (its numbering is stored: digest_entry, digest_entry_bug()),
 * as the command on the bug's thread would: bridge/inbound_digest.c.
 *
 * Time is bb_now().
 */
#ifndef BB_DIGEST_H
#define BB_DIGEST_H

#include <stddef.h>
#include <time.h>

#include "bridge/sync.h"
#include "core/status.h"
#include "core/store.h"

/* The digests' period length for a schedule ("weekly", "monthly"; else
 * none): *key gets the period the latest slot at or before now belongs to
 * ("2026-W51", "2026-12"), *slot that slot's time.  Returns 0 for no
 * schedule (off, or day and hour out of range). */
int digest_period(const char *schedule, unsigned day, unsigned hour, time_t now, char *key,
		  size_t size, time_t *slot);

/* One entry of a digest, as made (for the CLI's listing). */
struct digest_entry {
	int n;
	long long bug_id;
	const char *summary, *needinfo;
	time_t created, changed;
	int is_new, regression;
	const char *url;
};

/* Called for each list's digest a run makes (or finds made for the
 * period, already set); text is the mail's body. */
typedef void digest_seen_fn(void *ctx, const char *list, const char *period,
			    const char *message_id, const struct digest_entry *entries, size_t n,
			    const char *text, int already);

struct digest_stats {
	unsigned long lists, queued, already, entries, hidden;
};

/* Makes the digests of period (NULL: the schedule's period now, else the
 * UTC day) for every list, or only list (NULL: all), and queues each one
 * not queued for that period before; with dry_run, only seen (nothing
 * recorded or queued).  A Bugzilla that cannot be asked whether the bugs
 * are still public fails the run (its error), nothing queued. */
enum bb_status digest_run(struct sync_context *sc, const char *period, const char *list,
			  int dry_run, digest_seen_fn *seen, void *ctx, struct digest_stats *st,
			  struct bb_error *err);

/* The daemon's: the period's digests when their slot came and the schedule
 * has been on for a whole period (see above); nothing in a dry run or with
 * [digest] schedule = off. */
enum bb_status digest_round(struct sync_context *sc, struct digest_stats *st,
			    struct bb_error *err);

/* The digest a Message-ID is (its row id), 0 when it is none. */
long long digest_of_message(struct store *db, const char *message_id);
/* The bug of entry n of digest, 0 when there is no such entry. */
long long digest_entry_bug(struct store *db, long long digest, long long n);

/* --- "#bugbridge no-reminders" ------------------------------------------ */

/* Whether a bug was muted: no needinfo reminder, no aging ping, no digest
 * entry. */
int digest_bug_muted(struct store *db, long long bug_id);
/* The change recorded for "#bugbridge no-reminders" from addr (malloc'd). */
char *digest_mute_change(const char *addr);
/* Does it (the command seq of mail row for bug_id): records the bug as
 * muted and ends the command, in one transaction of its own. */
struct inbound_stats;
enum bb_status digest_mute_command(struct sync_context *sc, long long row, int seq,
				   long long bug_id, const char *change,
				   struct inbound_stats *stats, struct bb_error *err);

#endif
