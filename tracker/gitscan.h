/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gitscan: the regression tracker's view of git trees.
 *
 * A tree is a name ("mainline", "next", "linux-6.1.y", "net"), a local git
 * repository and a ref to follow in it.  Either the repository is the
 * admin's own clone (path), kept up to date by someone else, or bugbridge
 * mirrors a branch of a remote (url) into a repository of its own:
 * gitscan_fetch() fetches the branch `ref` of url into the ref
 * refs/bugbridge/<name> of the repository at path (default
 * <state_dir>/trees.git, shared by all such trees, since kernel trees share
 * most of their objects), which is then the ref that is scanned.
 *
 * Scanning.  gitscan_scan() hands every commit reachable from the tree's
 * ref and not from the caller's cursor (the ref's commit at the end of the
 * previous scan) to a callback: its hash, its subject (as git's %s: the
 * first paragraph, lines joined by spaces), its whole message, its trailers
 * and, for stable backports, the upstream commit it was picked from.  The
 * commits come newest first (git log's order), merges and the commits they
 * bring in included: they are the commits that appeared on this branch.
 * One `git log` process streams the messages (NUL-delimited) through a
 * fixed buffer; memory does not grow with the number of commits.  A scan
 * with nothing new costs one `git rev-parse`.  A first scan (no cursor)
 * starts at first_scan_start, or reads at most first_scan_depth commits, or
 * the whole history.  If the cursor is no longer in the repository (a
 * rebased tree such as linux-next whose old commits were pruned), the scan
 * acts as a first scan and counts a rewind (stats, a warn log line); a
 * cursor that is no longer an ancestor of the ref but still present is
 * fine: the commits not reachable from it are the new ones.
 *
 * Which branch a fix is on is the caller's decision: a scan reports the
 * commits of one tree, and gitscan_contains() answers "is commit X in the
 * history of this tree's ref" (fixed here, or only upstream: fix incoming).
 * A stable backport is a different commit from the mainline fix: its
 * trailers are usually the same, and its `upstream` names the original.
 *
 * Trailers.  Only the trailer block at the end of the message counts, found
 * as `git interpret-trailers` finds it: the last paragraph, never the
 * subject, whose lines are all "Token: value" lines (Token made of letters,
 * digits and '-'; spaces before the colon allowed) or, when one of them is a
 * known kernel trailer (Signed-off-by, Link, Closes, Fixes, Reported-by,
 * Reviewed-by, Acked-by, Tested-by, Cc, ...), at least a quarter of them
 * are; lines starting with '#' are comments.  Lines that start with
 * whitespace continue the trailer before them (joined with one space).
 * Kernel practice is met by one leniency: a paragraph just before the block
 * whose lines are all trailers, one of them a known kernel trailer, belongs
 * to it (maintainers sometimes leave a blank line between Closes:/Fixes:
 * and the sign-offs).  A "Link:" in the middle of the body is not a
 * trailer.  Values are handed out as written (trimmed, with any "#
 * comment" or <...>); for Link:, Closes: and Message-ID: the bare
 * Message-ID of a mail link (every lore URL form, percent-decoded) and the
 * number of a bug URL of the configured Bugzilla come along, found by
 * tracker/links.h, so the caller compares ids, never URLs.
 *
 * Errors.  Functions return a status and fill the caller's struct bb_error:
 * a repository that is not there, a ref or commit it does not have, or a
 * tree with a url that was never fetched are BB_ERR_NOT_FOUND; a fetch
 * that fails on the network is BB_ERR_TEMPORARY (BB_ERR_NOT_FOUND if the
 * remote has no such repository or branch, BB_ERR_AUTH, BB_ERR_CONFIG for
 * TLS trouble, or the URL's protocol refused); a held ref lock is
 * BB_ERR_BUSY; a cursor that is not a full hex object name, a commit or ref
 * name that git could take for an option or a range ("-x", "a..b", "x^"),
 * or an abbreviated hash that names several objects is BB_ERR_INVALID;
 * unusable options or `git` missing are BB_ERR_CONFIG; git failing
 * otherwise is BB_ERR_IO.  A failed or stopped scan gives no cursor.
 *
 * git runs through core/run.h: an argv array, never a shell; a clean
 * environment; --git-dir given, so a path that is no repository is never
 * taken for the repository around it; fetches allow only the URL's own
 * protocol (https, http, git or file) and stall out after `timeout`
 * seconds.  Nothing here prints or exits; events go through log_event()
 * (debug: each git command; info: each scan with something new and each
 * fetch; warn: rewinds and skipped messages).  A tree is not thread-safe;
 * distinct trees may be used from distinct threads.
 */
#ifndef BB_GITSCAN_H
#define BB_GITSCAN_H

#include <stddef.h>

#include "core/status.h"

/* Longest commit message a scan hands over; larger ones are skipped
 * (stats.skipped, a warn log line).  Kernel messages are a few KiB. */
#define GITSCAN_MAX_MESSAGE ((size_t)16 << 20)

struct gitscan_options {
	const char *name;          /* required: letters, digits, '.', '_', '-',
				    * not starting with '.' or '-' */
	const char *path;          /* the repository (bare or with a work tree);
				    * NULL with url: <state_dir>/trees.git */
	const char *url;           /* NULL: a local clone, never fetched.  Else
				    * https://, http://, git://, file:// or an
				    * absolute path */
	const char *ref;           /* required: the ref to follow ("master",
				    * "origin/linux-6.1.y", "refs/heads/next");
				    * with url, the remote's branch (or full
				    * ref) to fetch */
	const char *state_dir;     /* for url trees without path */
	const char *first_scan_start; /* a first scan reads start..ref; NULL: */
	unsigned long first_scan_depth; /* at most this many commits (0: all) */
	long timeout;              /* seconds a fetch may stall (0: 300) */
	const char *git_program;   /* NULL: "git" from PATH */
	const char *bugzilla_base; /* "https://bugzilla.kernel.org": trailers
				    * naming its bugs get a bugzilla_id; NULL:
				    * none are looked for */
};

/* Work done by a tree since it was made (for tests and benchmarks). */
struct gitscan_stats {
	unsigned long git_commands;   /* every git process */
	unsigned long fetches;        /* `git fetch` runs */
	unsigned long scans;          /* gitscan_scan() calls that succeeded */
	unsigned long long commits;   /* commits handed to callbacks */
	unsigned long long trailers;  /* trailers in them */
	unsigned long long bytes;     /* bytes of git log output read */
	unsigned long skipped;        /* messages over GITSCAN_MAX_MESSAGE */
	unsigned long rewinds;        /* cursors no longer in the repository */
};

enum gitscan_trailer_kind {
	GITSCAN_TRAILER_OTHER = 0,
	GITSCAN_TRAILER_LINK,         /* Link: */
	GITSCAN_TRAILER_CLOSES,       /* Closes: */
	GITSCAN_TRAILER_FIXES,        /* Fixes: */
	GITSCAN_TRAILER_REPORTED_BY,  /* Reported-by: */
	GITSCAN_TRAILER_MESSAGE_ID,   /* Message-ID: (some trees use it for the patch mail) */
};

struct gitscan_trailer {
	enum gitscan_trailer_kind kind; /* from the key, case-insensitively */
	const char *key;              /* as written, without the colon: "Reported-by" */
	const char *value;            /* trimmed; continuation lines joined */
	const char *message_id;       /* Link:, Closes: whose first word is a link
				       * to one mail (any lore, lkml.kernel.org or
				       * patch.msgid.link form: tracker/links.h),
				       * Message-ID: <id>: the bare Message-ID;
				       * else NULL */
	long long bugzilla_id;        /* Link:, Closes: whose first word is a bug
				       * URL of the tree's bugzilla_base; else 0 */
};

/* One commit; everything is valid only during the callback. */
struct gitscan_commit {
	const char *hash;             /* full hex object name */
	const char *subject;          /* as git's %s */
	const char *message;          /* the raw message (%B), NUL-terminated */
	size_t message_len;
	const struct gitscan_trailer *trailers; /* in message order */
	size_t n_trailers;
	const char *upstream;         /* a backport's original: the hex of
				       * "commit <hex> upstream.", "[ Upstream
				       * commit <hex> ]" or "(cherry picked from
				       * commit <hex>)"; NULL if none */
};

/* Receives one commit.  A status other than BB_OK stops the scan, which
 * returns it (if err was left at BB_OK it gets that status and "stopped by
 * the commit handler"). */
typedef enum bb_status (*gitscan_commit_fn)(void *ctx, const struct gitscan_commit *commit);

struct gitscan_tree;

/* Makes a tree; the options are copied and checked, nothing runs yet.
 * BB_ERR_CONFIG for a missing or unusable name, ref, url or path.  *out is
 * NULL on failure; free with gitscan_tree_free(). */
enum bb_status gitscan_tree_new(struct gitscan_tree **out, const struct gitscan_options *opt,
				struct bb_error *err);
void gitscan_tree_free(struct gitscan_tree *tree);
const char *gitscan_tree_name(const struct gitscan_tree *tree);
/* The repository's folder. */
const char *gitscan_tree_path(const struct gitscan_tree *tree);
/* The ref that is scanned: refs/bugbridge/<name> for url trees, else ref. */
const char *gitscan_tree_ref(const struct gitscan_tree *tree);
const struct gitscan_stats *gitscan_tree_stats(const struct gitscan_tree *tree);

/* url trees: makes the repository if it is not there (git init --bare) and
 * fetches the branch into the tree's ref (forced: rebased trees are fine),
 * without tags.  Local trees: BB_OK, nothing runs. */
enum bb_status gitscan_fetch(struct gitscan_tree *tree, struct bb_error *err);

/* Hands every commit new since cursor (a full hex commit name from an
 * earlier scan; NULL for a first scan) to fn, newest first.  On BB_OK
 * *next_cursor (if not NULL) is the malloc'd hex name of the commit the ref
 * pointed at, for the next scan; the caller commits it with what it
 * recorded.  On failure or a stop *next_cursor is NULL. */
enum bb_status gitscan_scan(struct gitscan_tree *tree, const char *cursor, gitscan_commit_fn fn,
			    void *ctx, char **next_cursor, struct bb_error *err);

/* Hands every commit in the history of the tree's ref whose subject is
 * subject (compared exactly, surrounding whitespace ignored) to fn, newest
 * first, reading only start..ref if start is not NULL.  For `fix`
 * directives that name a commit by its subject.  Costs one `git log
 * --grep` over that history. */
enum bb_status gitscan_find_subject(struct gitscan_tree *tree, const char *subject,
				    const char *start, gitscan_commit_fn fn, void *ctx,
				    struct bb_error *err);

/* Hands the newest commits (at most max) in the history of the tree's ref
 * with a message line that matches the extended regular expression pattern
 * (git log -E --grep) to fn, newest first.  For the release commits a tree
 * had before its first scan (tracker/release.h).  Costs one `git log
 * --grep` that stops at the max-th match. */
enum bb_status gitscan_find_grep(struct gitscan_tree *tree, const char *pattern, unsigned max,
				 gitscan_commit_fn fn, void *ctx, struct bb_error *err);

/* Hands commit (hex, abbreviated or full) to fn if it is in the history of
 * the tree's ref; nothing if it is not.  For `fix` directives that name a
 * commit the tree had before the directive came.  BB_ERR_NOT_FOUND if the
 * repository has no such commit. */
enum bb_status gitscan_find_commit(struct gitscan_tree *tree, const char *commit,
				   gitscan_commit_fn fn, void *ctx, struct bb_error *err);

/* *contained = 1 if commit (hex, abbreviated or full) is in the history of
 * ref (NULL: the tree's ref), else 0.  BB_ERR_NOT_FOUND if the repository
 * has no such commit or ref. */
enum bb_status gitscan_contains(struct gitscan_tree *tree, const char *commit, const char *ref,
				int *contained, struct bb_error *err);

/* Expands a commit name (hex of at least 4 digits, or a ref) to the full
 * hex name, malloc'd in *hash.  BB_ERR_NOT_FOUND if unknown, BB_ERR_INVALID
 * if ambiguous or not a name. */
enum bb_status gitscan_resolve(struct gitscan_tree *tree, const char *name, char **hash,
			       struct bb_error *err);

/* The author ("Name <addr>", as git's "%an <%ae>") and the whole message
 * of a commit the repository has (hex, abbreviated or full, or a ref; not
 * only in the tree's ref), each malloc'd.  Errors as gitscan_resolve(). */
enum bb_status gitscan_show(struct gitscan_tree *tree, const char *commit, char **author,
			    char **message, struct bb_error *err);

/* Default cap on the output gitscan_grep() reads. */
#define GITSCAN_GREP_OUTPUT ((size_t)1 << 20)

/* Receives one matching line of gitscan_grep(): the file's path in the
 * tree, the line's number (from 1) and its text (without the newline);
 * valid only during the call.  A status other than BB_OK stops the
 * search, which returns it. */
typedef enum bb_status (*gitscan_grep_fn)(void *ctx, const char *path, unsigned long line,
					  const char *text);

/* Searches the files of the tree's ref (the commit it points at; bare
 * repositories too) for lines matching the extended regex (git grep -E;
 * binary files skipped), in the files the pathspecs name (NULL-terminated,
 * may be NULL: all), and hands each to fn in git's order.  One `git grep`
 * (and one rev-parse).  Nothing matching is BB_OK with no call.  At most
 * max_output bytes of git's output are read (0: GITSCAN_GREP_OUTPUT); the
 * rest is dropped, *truncated (if not NULL) set and a warn line logged.
 * Errors as gitscan_resolve() for the ref; a bad regex is BB_ERR_IO (git
 * exits 128). */
enum bb_status gitscan_grep(struct gitscan_tree *tree, const char *regex,
			    const char *const *pathspecs, size_t max_output, gitscan_grep_fn fn,
			    void *ctx, int *truncated, struct bb_error *err);

/* --- The message parser, shared with the tests ------------------------------ */

/* Parses one commit message: fills the subject, trailers and upstream of
 * *commit (hash, message and message_len are set from the arguments).  The
 * strings live in parser, valid until its next use.  BB_ERR_NOMEM only. */
struct gitscan_parser;
/* bugzilla_base as in gitscan_options (copied); NULL when out of memory. */
struct gitscan_parser *gitscan_parser_new(const char *bugzilla_base);
void gitscan_parser_free(struct gitscan_parser *parser);
enum bb_status gitscan_parse_message(struct gitscan_parser *parser, const char *hash,
				     const char *message, size_t len,
				     struct gitscan_commit *commit);

#endif
