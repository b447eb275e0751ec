/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tracker's notes for Bugzilla bugs (bugnotes.c): the queue of notes
 * (reg_push) and what fills it beside the regressions' own notes.
 *
 * A mirrored bug that is no regression follows its fixes too: a commit on
 * a watched tree whose Link:/Closes: names the bug's URL leaves a note
 * "Fixed by commit ... in TREE" (and, on a tree of [bugzilla]
 * close_on_fix, asks for the bug to be closed as FIXED), a [PATCH] mail
 * naming it a note linking the patch, a list mail citing its URL a
 * "Mentioned on the list" note (one per thread).  A bug's triage note
 * (tracker_triage_note()) goes the same way.  Each note is keyed by a
 * marker line it carries, so each is posted once; tracker_push()
 * (tracker.h) posts them.  A bug that is a tracked regression hears only
 * from the regression path (tracker.c).  The Fixes: lines of a patch, a
 * commit or a comment that names a bug record the commits they name as
 * the bug's culprits (bug_culprit), regression or not.
 *
 * tracker.c calls these as it reads mails and commits; everything is
 * written in the caller's transaction.  The public entry points
 * (tracker_push(), tracker_bug_fixes(), tracker_triage_note(),
 * tracker_is_triage_note(), reg_triage_block()) are declared in
 * tracker.h.
 */
#ifndef BB_TRACKER_BUGNOTES_H
#define BB_TRACKER_BUGNOTES_H

#include <stddef.h>

#include "core/status.h"
#include "core/store.h"
#include "mail/inmail.h"
#include "tracker/gitscan.h"

/* Fixes: culprits kept for one bug. */
#define BUG_CULPRITS_MAX 4

/* What the notes need of the tracker's settings: the store, the
 * configured Bugzilla's URL (NULL: none; a bug's URL is found by it) and
 * its host (reg_link_host()), and the mail archive's (a note's link to a
 * mail). */
struct bug_notes {
	struct store *db;
	const char *bugzilla_url, *bugzilla_host;
	const char *archive_url;
};

/* The regression tracked for Bugzilla bug bug_id, 0 if none. */
long long reg_regression_of_bug(struct store *db, long long bug_id);

/* The bug of the configured Bugzilla (bugzilla_url, NULL: none) a
 * trailer's value names by its URL (the first word), 0 if none. */
long long reg_bug_of_value(const char *bugzilla_url, const char *value);

/* The commit a Fixes: value names: its leading hex digits (8 to 40, as
 * the kernel writes "Fixes: <12 hex> (\"subject\")"), lower case, in out;
 * 0 when it names none. */
size_t reg_fixes_hash(const char *value, char out[41]);

/* Records the commits the Fixes: lines of text name (unquoted lines, which
 * may be indented, as a patch pasted into a comment is; a top-post's quote
 * of another mail is quoted too) as bug's culprits; source says where
 * ("patch <msgid>", "commit <hash> in <tree>", "comment <id>"). */
enum bb_status bug_notes_fixes_lines(struct store *db, long long bug, const char *text,
				     const char *source, struct bb_error *err);

/* A commit c on tree naming bugs in its Link:/Closes: trailers: its
 * Fixes: are their culprits, and each ordinary bug gets a "Fixed by"
 * note (close: tree is one where fixes close ordinary bugs). */
enum bb_status bug_notes_commit(const struct bug_notes *bn, const char *tree, int close,
				const struct gitscan_commit *c, struct bb_error *err);

/* A patch mail m (not a reply to one) whose trailer names bug: a note
 * when bug is an ordinary one and m is not of its own thread. */
enum bb_status bug_notes_patch(const struct bug_notes *bn, const struct inmail *m, long long bug,
			       struct bb_error *err);

/* A list mail m (no patch: the caller checks), not one of the bug's own
 * thread, whose body cites the URL of a mirrored public bug: one note on
 * the bug per thread (root: the thread's first Message-ID).  A mail citing
 * more than three bugs is a listing (a report, a digest), not a discussion
 * of them: it makes none. */
enum bb_status bug_notes_mentions(const struct bug_notes *bn, const struct inmail *m,
				  const char *root, const char *body, struct bb_error *err);

#endif
