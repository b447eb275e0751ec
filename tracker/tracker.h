/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Folder tracker/: the regression tracker: the model and its states,
 * #regzbot directives, git fix detection, the reports.  It is fed by the
 * engine and never calls it: it may use triage/, mail/, bugzilla/,
 * attachments/, config/ and core/, not bridge/, migrate/, web/ or cli/.
 *
 * The regression tracker: the job regzbot does, fed by both sides of the
 * bridge and by git trees.
 *
 * A regression has a report (a list mail, or a Bugzilla bug flagged as a
 * regression), a branch it lives on (mainline, next, linux-6.1.y, ...), a
 * state and a history.  States:
 *
 *   open          reported, nothing fixes it yet
 *   fix-incoming  a fix is named (#regzbot fix) or was seen in a tree
 *                 upstream of the regression's own branch
 *   fixed         the fix is in the regression's own branch
 *   resolved      closed by hand (#regzbot resolve / invalid)
 *   inconclusive  given up (#regzbot inconclusive)
 *   duplicate     of another regression (#regzbot dup-of; or another
 *                 regression's dup: named its report)
 *
 * and flags: back burner (with its reason), poked (time), culprit
 * identified (introduced names one commit).  Activity, as regzbot's
 * export counts it, is the report mail (whether or not it carries the
 * directive, when the tracker read it), every mail in a tracked thread,
 * and a [PATCH] (not a reply) whose Link:/Closes: names the regression (a
 * mail of its thread, its bug, its report on another tracker, one of its
 * duplicate reports) with the replies to it -- except a mail that carries
 * ignore-activity, poke or ^backmonitor, has "#forregzbot" in its subject,
 * was sent by bugbridge or is an automatic reply (that mail alone).  A
 * regression added from a thread counts the thread's earlier mails the
 * store holds (a mirrored bug's list thread).  A list patch whose Fixes:
 * names the culprit leaves a history note ("fixes-culprit") and is no
 * activity.  A regression without activity for [tracker] stale_after (90
 * days) is stale.
 *
 * Mails of a regression: its report, every mail seen in its thread (so a
 * Link:/Closes: trailer pointing at any of them is found), the threads it
 * monitors and those of its duplicate reports (dup:, links of kind
 * "duplicate").  Trees: [tree NAME] sections name a local clone (or a URL to
 * mirror), the ref to follow and its upstream tree; a fix seen in NAME
 * counts as "fixed" for regressions on NAME and as "fix incoming" for
 * regressions on trees downstream of NAME (next -> mainline -> stable), and
 * for nothing else: a fix in linux-6.6.y fixes no linux-6.1.y regression.
 *
 * Everything lives in the store (core/store.c, schema 4: reg_regression,
 * reg_mail, reg_link, reg_event, reg_unhandled, reg_fix; reg_push, with
 * close_fixed since schema 10, for notes to Bugzilla); every change is
 * in the caller's transaction or one of its own.  Nothing prints.
 */
#ifndef BB_TRACKER_H
#define BB_TRACKER_H

#include <stddef.h>
#include <time.h>

#include "bugzilla/bug.h"
#include "config/conf.h"
#include "core/status.h"
#include "core/store.h"
#include "mail/inmail.h"

enum reg_state {
	REG_STATE_OPEN = 0,
	REG_STATE_FIX_INCOMING,
	REG_STATE_FIXED,
	REG_STATE_RESOLVED,
	REG_STATE_INCONCLUSIVE,
	REG_STATE_DUPLICATE,
};

/* "open", "fix-incoming", ...; and back (REG_STATE_OPEN for unknown text). */
const char *reg_state_str(enum reg_state st);
enum reg_state reg_state_parse(const char *text);

/* One regression as stored; strings malloc'd, "" when unset (never NULL). */
struct reg_regression {
	long long id;
	char *title;
	enum reg_state state;
	char *branch;             /* tree the regression lives on ("mainline") */
	char *introduced;         /* as written: a commit, "A..B" or "A.." ("" unknown) */
	char *culprit;            /* one commit when identified, else "" */
	char *report_msgid;       /* the report mail, "" if the report is a bug */
	char *report_url;         /* lore link or Bugzilla bug URL */
	long long bug_id;         /* Bugzilla bug, 0 if none */
	char *reporter;           /* "Name <addr>" */
	long long dup_of;         /* duplicate: the regression it duplicates */
	char *fix_commit;         /* named or seen; "" if none */
	char *fix_subject;
	char *fix_tree;           /* where the fix was seen, "" if only named */
	char *resolution;         /* reason given to resolve/inconclusive/backburner */
	int backburner;
	int ignore_activity;      /* no longer set (ignore-activity is per mail);
				   * an old store may hold 1 */
	time_t poked;             /* 0 if never */
	time_t created, updated;
	time_t last_activity;
	long long activity_count;
	char *last_activity_by;   /* "Name <addr>" of the last mail */
	char *last_activity_msgid;
	int stale;                /* computed at load: no activity for stale_after */
};

struct reg_link {
	char *url;
	char *title;              /* "" if none */
	char *kind;               /* "link", "monitor", "duplicate" (another report) */
};

struct reg_event {
	time_t time;
	char *kind;               /* "reported", "introduced", "title", "fix", "fixed", "note", ... */
	char *text;
	char *message_id;         /* the mail that said it, "" if none */
	char *unverified;         /* "" or, for what a #regzbot directive did, why
				   * its sender was not authenticated */
};

struct reg_unhandled {
	time_t time;
	char *message_id;
	char *line;               /* the whole directive as written, verb included */
	char *reason;
};

void reg_regression_release(struct reg_regression *r);
/* For publishing without addresses ([mail] show_addresses off): the
 * reporter and last_activity_by of r, and the text of a "from" event, are
 * replaced by the person's name alone (core/text.h's
 * text_person_published()).  Out of memory leaves "". */
void reg_regression_hide_addresses(struct reg_regression *r);
void reg_event_hide_addresses(struct reg_event *e);

/* All regressions, newest first (stale computed against now and
 * stale_after seconds).  *out malloc'd; free each with
 * reg_regression_release() and the array with free(). */
enum bb_status reg_load_all(struct store *db, time_t now, long long stale_after,
			    struct reg_regression **out, size_t *n, struct bb_error *err);
/* One regression with its links and history (oldest first); BB_ERR_NOT_FOUND
 * for an unknown id.  links/events may be NULL when not wanted. */
enum bb_status reg_load_one(struct store *db, long long id, time_t now, long long stale_after,
			    struct reg_regression *r, struct reg_link **links, size_t *nlinks,
			    struct reg_event **events, size_t *nevents, struct bb_error *err);
void reg_links_free(struct reg_link *l, size_t n);
void reg_events_free(struct reg_event *e, size_t n);
/* Directives that were not acted on (unknown verbs, malformed arguments,
 * directives outside tracked threads), newest first, at most max. */
enum bb_status reg_load_unhandled(struct store *db, size_t max, struct reg_unhandled **out,
				  size_t *n, struct bb_error *err);
void reg_unhandled_free(struct reg_unhandled *u, size_t n);
/* The links (by kind, url) and history (oldest first) of every regression
 * at once, ordered by regression, with the regression of row i in
 * (*regressions)[i]: a report reads them with one query each rather than
 * reg_load_one() per regression.  Both arrays are malloc'd (NULL when
 * empty): free them with reg_links_free()/reg_events_free() and free().
 * Nothing is left to free on error. */
enum bb_status reg_load_all_links(struct store *db, struct reg_link **links,
				  long long **regressions, size_t *n, struct bb_error *err);
enum bb_status reg_load_all_events(struct store *db, struct reg_event **events,
				   long long **regressions, size_t *n, struct bb_error *err);
/* Events of all regressions since a time, newest first, at most max (for
 * the Atom feed); each event's regression id in ids[i]. */
enum bb_status reg_load_events_since(struct store *db, time_t since, size_t max,
				     struct reg_event **events, long long **ids, size_t *n,
				     struct bb_error *err);

/* --- inputs ---------------------------------------------------------------- */

struct tracker;

struct tracker_options {
	const char *bugzilla_url;     /* for bug URLs and matching them in trailers */
	const char *archive_url;      /* "<inbox URL>" for report links; NULL: lore's /r/ */
	const char *regression_field; /* a Bugzilla field flagging regressions (cf_regression) */
	const char *regression_keyword;/* or a keyword ("regression") */
	const char *bisect_field;     /* cf_bisect_commit */
	const char *close_on_fix;     /* comma-separated trees where tracker_commit()
				       * closes the bugs a fix names (for callers
				       * of tracker_commit(); tracker_scan_trees()
				       * reads [bugzilla] close_on_fix) */
	long long stale_after;        /* seconds; 0: 90 days */
	const char *default_branch;   /* a regression's tree when neither its culprit
				       * nor its introduced range tells; NULL: mainline */
};

enum bb_status tracker_new(struct tracker **out, struct store *db,
			   const struct tracker_options *opt, struct bb_error *err);
void tracker_free(struct tracker *t);
/* Writes the activity that the open transaction's mails added, and the
 * rows of the threads they belong to: they are kept in memory and written
 * as the transaction commits (one update of each regression, not one a
 * mail; the list_thread rows in one run).  For a reader of reg_regression's
 * activity or of list_thread inside that transaction; the tracker's own
 * readers do this first. */
enum bb_status tracker_flush(struct tracker *t, struct bb_error *err);

/* The threads of list mails are remembered this long after the tracker
 * read them, so that a regression added from a thread counts the thread's
 * earlier mails as activity. */
#define TRACKER_THREAD_DAYS 400
/* At most this many list_thread rows' roots are kept in memory by a
 * tracker (about 2 MB; a list's replies mostly answer mail of the last
 * days); past it they are forgotten and read from the table again. */
#define TRACKER_ROOTS_MAX 16384
/* At most this many list_thread rows of a transaction's mails are kept in
 * memory until it commits (about 2 MB); past it they are written. */
#define TRACKER_ROWS_KEPT 8192

/* A list mail (headers parsed; body decoded text, or NULL when the raw scan
 * showed neither a directive nor an encoding that could hide one): activity
 * in tracked threads, #regzbot directives.  unverified is NULL or "" when
 * the sender was authenticated (or not asked about), else why not: what
 * its directives do is recorded with it (reg_event.unverified).  Call
 * inside the transaction that records the mail; the caller decides whether
 * the body is needed with tracker_wants_body(). */
enum bb_status tracker_mail(struct tracker *t, const struct inmail *m, const char *body,
			    const char *unverified, struct bb_error *err);
/* Whether tracker_mail() needs this mail's decoded body: it may carry a
 * directive, it is a patch that may carry a Link:/Closes: trailer (raw
 * scan flags of inmail_scan()) that may do something (its raw text shows
 * one naming a regression's mail, the patch itself, a bug, a report
 * elsewhere, or one the decode may change) or, not a reply, a Fixes: line naming a
 * regression's culprit (its raw text holds "Fixes:" and the culprit's
 * first 8 characters), or its raw text (len bytes) names the
 * Bugzilla's host, so it may cite a bug.  A list mail, neither a patch nor
 * one of the bug's own thread, citing the URL of a mirrored public bug
 * (show_bug.cgi?id=N or the short <base>/N; no more than 3 bugs in the
 * mail, quoted lines aside) records one note per thread, "Mentioned on
 * the list: <subject> <archive link>". */
int tracker_wants_body(struct tracker *t, const struct inmail *m, unsigned scan_flags,
		       const char *raw, size_t len);

/* A bug the bridge saw: a regression when flagged so, kept in step. */
enum bb_status tracker_bug(struct tracker *t, const struct bz_bug *bug, const char *thread_msgid,
			   struct bb_error *err);

/* Whether bug is a tracked regression, or flagged as one (tracker_bug()
 * then tracks it). */
int tracker_bug_is_regression(struct tracker *t, const struct bz_bug *bug);
/* The culprit commits known for bug, NULL-terminated (free each and the
 * vector), or NULL when none is: its regression's culprit, the value of
 * its [tracker] bisect_field, then the commits Fixes: lines named for it
 * (at most 4, first seen first): in a patch mail (not a reply) whose
 * Link:/Closes: names the bug or its regression's thread, in a watched
 * tree's commit whose Link:/Closes: names the bug, in a public comment of
 * the bug (tracker_bug_fixes()).  One commit is named once (a shorter
 * hash is the same commit as a longer one it begins). */
char **tracker_bug_culprits(struct tracker *t, const struct bz_bug *bug);
/* Records the commits the Fixes: lines of bug's public comments at hand
 * name as its culprits (private comments are never read).  Call inside the
 * sync's transaction of the bug, before its mail is composed. */
enum bb_status tracker_bug_fixes(struct tracker *t, const struct bz_bug *bug,
				 struct bb_error *err);

/* Records bug's triage note (block, the triage/block.h text), once per
 * bug: its last line is the marker "[bugbridge triage of bug N]".
 * tracker_push() posts it like the other notes; the outbound sync never
 * mails it (tracker_is_triage_note()): the bug's first mail carried the
 * block already. */
enum bb_status tracker_triage_note(struct tracker *t, long long bug, const char *block,
				   struct bb_error *err);
/* Whether a comment is bug's triage note: the bridge recorded that note,
 * and the comment is the one it posted (by id, or before the id was
 * recorded, by the very text).  A comment by anyone else that carries the
 * marker is not. */
int tracker_is_triage_note(struct tracker *t, long long bug, long long comment_id,
			   const char *text);

/* The triage block recorded for bug (tracker_triage_note(), without its
 * marker line), for `regressions show`; malloc'd, NULL if none. */
char *reg_triage_block(struct store *db, long long bug);

/* One commit that appeared on tree (see tracker/gitscan.h): Link:/Closes:
 * trailers pointing at a regression's mail or bug, or a hash or subject a
 * fix directive named, move it to fix-incoming or fixed; Fixes: naming a
 * culprit becomes a note.  upstream_of(tree, branch) says whether tree is
 * upstream of branch.  A Link:/Closes: naming the URL of a mirrored public
 * bug that is no regression records a note for it, "Fixed by commit
 * <12 hex> ("subject") in <tree>", once per (bug, commit, tree); on a tree
 * of close_on_fix, one that also sets the bug RESOLVED FIXED when it is
 * open.  A [PATCH] mail (not a reply) naming such a bug in a Link:/Closes:
 * line records "A patch was posted: <subject> <archive link>", once per
 * mail, unless the mail is in the bug's own thread. */
struct gitscan_commit;
enum bb_status tracker_commit(struct tracker *t, const char *tree,
			      int (*upstream_of)(void *ctx, const char *tree, const char *branch),
			      void *ctx, const struct gitscan_commit *c, struct bb_error *err);
/* tracker_commit() with the tree's close_on_fix given (close): for a
 * reader of trees that has its own configuration (tracker/trees.c). */
enum bb_status tracker_commit_in(struct tracker *t, const char *tree, int close,
				 int (*upstream_of)(void *ctx, const char *tree, const char *branch),
				 void *ctx, const struct gitscan_commit *c, struct bb_error *err);
/* The store the tracker writes to, and its default branch (NULL: mainline). */
struct store *tracker_store(const struct tracker *t);
const char *tracker_default_branch(const struct tracker *t);

/* Posts the notes fixed regressions and ordinary bugs left for their
 * Bugzilla bugs, each once (a note posted before a crash is found by its
 * marker line), and closes the ordinary bugs a note asks to close if they
 * are still open; a note for a bug no longer mirrored and public (in the
 * store and on Bugzilla) is dropped.  *posted counts the notes posted.
 * The outbound sync mails these comments to the list like any other new
 * comment, once (they carry no "Message-ID:" line of a relayed mail). */
struct bz_client;
enum bb_status tracker_push(struct tracker *t, struct bz_client *bz, unsigned long *posted,
			    struct bb_error *err);

struct tracker_tree_stats {
	unsigned long trees;          /* trees scanned */
	unsigned long commits;        /* new commits read */
};

/* Fetches (url trees) and scans every [tree NAME] from its cursor
 * "tree:<name>" (a tree never scanned: its last 10000 commits), each in a
 * transaction with its cursor; mirrors go under state_dir. */
enum bb_status tracker_scan_trees(struct tracker *t, const struct bb_config *cfg,
				  const char *state_dir, struct tracker_tree_stats *stats,
				  struct bb_error *err);

#endif
