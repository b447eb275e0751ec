/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a mailing-list archive incrementally, for the inbound bridge.
 *
 * A source is one archive of one list, of one of four kinds:
 *
 *   "public-inbox"  a public-inbox v2 inbox over HTTP(S), as lore.kernel.org
 *                   serves it (url = https://lore.kernel.org/lkml).  Its git
 *                   epochs <url>/0, <url>/1, ... are mirrored with the real
 *                   `git` program into bare clones under state_dir; every
 *                   commit of an epoch adds one message, the blob `m` of its
 *                   tree.  A poll fetches the newest epoch and walks the new
 *                   commits oldest first (rev-list --reverse --first-parent),
 *                   reading the blobs through one `git cat-file --batch`, so
 *                   it costs O(new messages): a poll with nothing new is one
 *                   `git fetch` and reads no message.  With a path instead
 *                   of a url, a local v2 inbox is read in place: its epochs
 *                   <path>/git/<N>.git, never cloned, fetched or written to
 *                   (the lock and the probe stamp stay in state_dir).
 *   "atom"          the same inbox's <url>/new.atom (the newest messages,
 *                   about 25 on public-inbox), each new entry's message read
 *                   from <url>/<msgid>/raw.  For small lists polled often.
 *   "maildir"       a local Maildir (path; new/ and cur/), for sites that
 *                   receive the list by mail.  Never modified.
 *   "mbox"          a local mbox file (path), mboxrd, appended to by an MTA.
 *                   Never modified.
 *
 * Messages reach the caller as raw RFC 5322 bytes, exactly as archived (for
 * mbox input: without the From_ line, with mboxrd ">From " quoting undone),
 * oldest first, each with the cursor value that stands just after it.
 *
 * Cursors.  Each source has one cursor, an opaque printable string (ASCII,
 * no spaces or newlines) that the caller stores.  The contract: the caller
 * commits the position it got with a message in the same transaction as the
 * effects of handling that message; after a crash it polls again from the
 * last committed position, so nothing is lost and what is repeated carries
 * the same Message-ID.  A source never stores a cursor itself; the local
 * state (git mirrors) is a cache that can be deleted at any time.
 *
 *   public-inbox  "git:<epoch>:<commit>" (commit empty: the epoch's start).
 *                 If the commit is no longer an ancestor of the epoch's head
 *                 (public-inbox-purge rewrote history) the commits after the
 *                 fork point are read again; if it is gone altogether the
 *                 epoch is read again from its start (stats.rewinds, a warn
 *                 log line).  New epochs are found by asking for
 *                 <url>/<newest + 1>/info/refs, only in a poll that found
 *                 nothing new in the newest epoch and at most once every
 *                 epoch_probe_interval seconds (the last probe's time is kept
 *                 in the state directory); when one appears the previous
 *                 epoch is fetched once more, so its last messages are not
 *                 missed.
 *   atom          "atom:<h1>,<h2>,..." - short hashes of the feed entries
 *                 already handled that are still in the feed.  An entry not
 *                 in the set is new, whatever its date.  When none of a
 *                 non-empty set is left in the feed, more messages may have
 *                 arrived than the feed shows: stats.gaps counts it and a
 *                 warn line is logged (use public-inbox for busy lists).
 *   maildir       "maildir:<horizon>:<name>/<name>/..." - messages are taken
 *                 in order of (mtime, unique name), the part of the file name
 *                 before ':' (so a move from new/ to cur/ or a flag change is
 *                 not a new message).  Messages with an mtime before the
 *                 horizon count as read; the names are those read at or after
 *                 it.  The horizon trails the newest mtime read by
 *                 ARCHIVE_MAILDIR_SLACK seconds (mtimes in the future count as
 *                 now), so a delivery that was renamed into new/ late is still
 *                 found; a file that appears with an older mtime than that
 *                 (copied in with cp -p) is not.
 *   mbox          "mbox:<offset>:<check>" - the byte offset after the last
 *                 message read and a hash of the file's first bytes and the
 *                 bytes before the offset.  If the file is now shorter, or
 *                 those bytes changed, or no From_ line starts at the offset,
 *                 the file was rewritten and is read again from the start
 *                 (stats.rewinds, a warn log line).
 *
 * Errors.  Functions return a status and fill the caller's struct bb_error
 * (core/status.h; the retry class tells what to do next): an unreachable or
 * failing server, a 5xx, a timeout or a dropped transfer are
 * BB_ERR_TEMPORARY; an HTTP 404 or a git repository that is not there is
 * BB_ERR_NOT_FOUND; an answer that is not what it should be (not a git
 * repository, not gzip, a broken gzip stream, XML that is no Atom feed) is
 * BB_ERR_PROTOCOL; a local mbox that is no mbox is BB_ERR_INVALID, one whose
 * last message is still incomplete (no newline at the end of the file, and
 * changed in the last ARCHIVE_MBOX_SETTLE seconds; after that the last line
 * is read as it is) is BB_ERR_TEMPORARY after the complete ones were
 * delivered; a held lock is
 * BB_ERR_BUSY; `git` missing, a bad URL or a TLS verification failure are
 * BB_ERR_CONFIG.  A failure never moves the cursor: positions are handed
 * out only with messages that were read whole.  A message larger than
 * max_message_size, an Atom entry whose message is gone (404), or a commit
 * without a message blob (a public-inbox deletion) is skipped (stats.skipped
 * and a log line: warn, info for deletions) rather than stopping the source
 * for good.
 *
 * The git side runs `git` with an argv array (never a shell), a clean
 * environment (no GIT_* variables from ours, GIT_CONFIG_NOSYSTEM=1,
 * GIT_CONFIG_GLOBAL=/dev/null, GIT_TERMINAL_PROMPT=0, no pager, LC_ALL=C),
 * http(s) as the only protocols, and the source's timeout, CA file and
 * proxy.  One poll of a state directory runs at a time (an flock(); a
 * second one gets BB_ERR_BUSY).  HTTP uses libcurl (TLS verified, up to 5
 * redirects within http/https); the Atom feed is parsed by libxml2 without
 * network access, DTD loading or entity substitution; t.mbox.gz is
 * decompressed with libarchive and its CRC-32 and length are checked.
 *
 * Nothing here prints or exits; events go through log_event() (debug: each
 * git command and HTTP request; info: a new epoch; warn: skips, rewinds and
 * gaps).  A source is not thread-safe; distinct sources may be used from
 * distinct threads (curl_global_init() must have been called, as for any
 * libcurl user).
 */
#ifndef BB_ARCHIVE_H
#define BB_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* Seconds the Maildir horizon trails the newest mtime read. */
#define ARCHIVE_MAILDIR_SLACK 120
/* Seconds an mbox file must be left unchanged before a last line without a
 * newline counts as the end of its last message. */
#define ARCHIVE_MBOX_SETTLE 60

struct archive_options {
	const char *kind;         /* "public-inbox", "atom", "maildir" or "mbox" */
	const char *url;          /* public-inbox, atom: the inbox URL, http(s)://,
				   * e.g. https://lore.kernel.org/lkml */
	const char *path;         /* maildir, mbox; public-inbox without url: a
				   * local v2 inbox (the folder holding git/) */
	const char *state_dir;    /* public-inbox (required): the mirrors go to
				   * <state_dir>/<host-path-hash>/<epoch>.git */
	long timeout;             /* seconds an HTTP request or git transfer may
				   * stall (0: 60) */
	const char *ca_file;      /* NULL: the system's */
	const char *proxy;        /* NULL: none (libcurl's and git's environment
				   * rules apply) */
	size_t max_message_size;  /* 0: 64 MiB */
	long epoch_probe_interval;/* seconds between probes for a new epoch
				   * (0: 300; negative: every poll that found
				   * nothing new) */
	const char *git_program;  /* NULL: "git" from PATH */
};

/* Work done by a source since it was made (for tests and benchmarks). */
struct archive_stats {
	unsigned long git_clones;     /* `git clone` runs (an epoch each) */
	unsigned long git_fetches;    /* `git fetch` runs */
	unsigned long git_commands;   /* every git process, fetches included */
	unsigned long epoch_probes;   /* HTTP requests asking for a new epoch */
	unsigned long http_requests;  /* every HTTP request, probes included */
	unsigned long messages;       /* messages handed to the caller */
	unsigned long skipped;        /* too large, deleted or vanished */
	unsigned long long bytes;     /* bytes of the messages handed over */
	unsigned long rewinds;        /* cursors that no longer matched */
	unsigned long gaps;           /* Atom polls that may have missed mail */
};

struct archive_source;

/* Receives one message.  raw is len bytes (NUL-terminated as well); position
 * is the cursor just after this message (NULL for archive_fetch_thread());
 * both are valid only during the call.  A status other than BB_OK stops the
 * poll, which returns it; if the handler left err (the one given to the
 * poll, which it may fill through its ctx) at BB_OK, err gets that status
 * and "stopped by the message handler". */
typedef enum bb_status (*archive_message_fn)(void *ctx, const char *raw, size_t len,
					     const char *position);

/* Makes a source; the options are copied.  Nothing is read yet.
 * BB_ERR_CONFIG for an unknown kind, a missing or unusable URL (not
 * http(s)://, with a query, fragment or spaces) or path, or a public-inbox
 * source without state_dir.  *out is NULL on failure; free with
 * archive_source_free(). */
enum bb_status archive_source_new(struct archive_source **out, const struct archive_options *opt,
				  struct bb_error *err);
void archive_source_free(struct archive_source *src);

/* Where the list archive at inbox_url (a public-inbox inbox URL; NULL or
 * "" for none) shows mail message_id: "<inbox_url>/<message_id>/", or
 * "<message_id>" in angle brackets without an archive.  malloc'd (NULL:
 * out of memory).  What links a comment or a bug to its mail. */
char *archive_mail_link(const char *inbox_url, const char *message_id);
const struct archive_stats *archive_source_stats(const struct archive_source *src);
/* public-inbox: the folder holding this source's mirrors; NULL for others. */
const char *archive_source_dir(const struct archive_source *src);

/* Hands every message after cursor (NULL: from the very start) to fn,
 * oldest first.  On BB_OK, *next_cursor (if next_cursor is not NULL) is a
 * malloc'd cursor after everything this poll looked at (it may be ahead of
 * the last message's position when skipped items followed it, and may
 * differ from the input even with no message); the caller may commit it.
 * On failure *next_cursor is NULL, and the positions of the messages
 * already handled stand.  BB_ERR_INVALID for a cursor of another kind or
 * one that does not parse. */
enum bb_status archive_poll(struct archive_source *src, const char *cursor,
			    archive_message_fn fn, void *ctx, char **next_cursor,
			    struct bb_error *err);

/* During a message handler's call from archive_poll(): how many bytes at
 * the start of its position are the whole position handed with the
 * message before it in the same poll, which this one extends (0: none, or
 * not known).  A caller that keeps the last position copies only what
 * follows them: a Maildir's position names every message of the cursor's
 * window, all of them when they share one mtime second. */
size_t archive_position_kept(const struct archive_source *src);

/* The cursor at the current end of the archive, reading no message, for
 * starting a new source without its history (public-inbox: mirrors only
 * the newest epoch).  *cursor is malloc'd. */
enum bb_status archive_tail(struct archive_source *src, char **cursor, struct bb_error *err);

/* Fetches the whole thread that contains message_id (with or without <>)
 * from <url>/<msgid>/t.mbox.gz (public-inbox and atom sources) and hands
 * its messages to fn in the archive's order, with position NULL.  Nothing
 * is handed over unless the whole download decompressed and checked out.
 * BB_ERR_NOT_FOUND when the archive does not have the message,
 * BB_ERR_UNSUPPORTED for local sources, BB_ERR_INVALID for an empty or
 * unusable Message-ID. */
enum bb_status archive_fetch_thread(struct archive_source *src, const char *message_id,
				    archive_message_fn fn, void *ctx, struct bb_error *err);

/* --- Parsers, shared with the tests and fuzz targets ------------------------ */

/* Splits an mbox stream fed in pieces of any size.  A message starts at a
 * line beginning "From " at the start of the stream or after an empty line
 * (so an unquoted "From " inside a paragraph of an mboxo file stays body);
 * empty lines before the first From_ line are skipped; the From_ line is
 * dropped, one '>' is taken off lines matching ^>+From  (mboxrd), and the
 * empty line that separates a message from the next From_ line (or ends the
 * stream) is dropped.  CRLF line ends are kept as they are.  fn gets each
 * message (NUL-terminated as well) and the stream offset (counted from
 * start_offset) just after it: the start of the next From_ line, or the end
 * of the stream.  An empty message, or one over max_message bytes (0:
 * 64 MiB), comes as raw NULL, len 0, so the offset still moves; memory stays
 * within max_message whatever the input.  A status other than BB_OK from fn
 * stops the splitter and is returned by that and every later call. */
typedef enum bb_status (*archive_mbox_fn)(void *ctx, const char *raw, size_t len,
					  uint64_t end_offset);
struct archive_mbox;
/* NULL when out of memory.  Free with archive_mbox_free(). */
struct archive_mbox *archive_mbox_new(uint64_t start_offset, size_t max_message,
				      archive_mbox_fn fn, void *ctx);
/* BB_ERR_INVALID (err filled) when the stream's first non-empty line is no
 * From_ line. */
enum bb_status archive_mbox_feed(struct archive_mbox *m, const void *data, size_t len,
				 struct bb_error *err);
/* Ends the stream.  complete = 1: what was fed is everything, and the last
 * message is delivered even if its last line lacks a newline; complete = 0:
 * more may be appended, and a last message whose last line lacks a newline
 * is held back and BB_ERR_TEMPORARY returned. */
enum bb_status archive_mbox_finish(struct archive_mbox *m, int complete, struct bb_error *err);
void archive_mbox_free(struct archive_mbox *m);

/* One entry of an Atom feed. */
struct archive_atom_entry {
	char *id;     /* the <id> text, trimmed; never NULL */
	char *link;   /* href of the first <link> without rel or rel="alternate";
		       * never NULL, may be "" */
};
/* Parses an Atom feed (libxml2; no network, no DTD loading, entities not
 * substituted) into *entries, a malloc'd array of *count entries in
 * document order (NULL when none); entries without an <id> are left out.
 * Free with archive_atom_entries_free().  BB_ERR_PROTOCOL (err filled) for
 * input that is not well-formed XML or whose root is not an Atom <feed>;
 * BB_ERR_TOO_LARGE for more than 10000 entries. */
enum bb_status archive_atom_parse(const char *data, size_t len,
				  struct archive_atom_entry **entries, size_t *count,
				  struct bb_error *err);
void archive_atom_entries_free(struct archive_atom_entry *entries, size_t count);

/* Decompresses a whole gzip file (one or more members) into *out (malloc'd,
 * NUL-terminated, free() it) with libarchive, at most max_out bytes, and
 * checks the CRC-32 and length of its last member.  BB_ERR_PROTOCOL for
 * data that is not gzip or is broken or truncated, BB_ERR_TOO_LARGE over
 * max_out. */
enum bb_status archive_gunzip(const void *data, size_t len, size_t max_out, char **out,
			      size_t *out_len, struct bb_error *err);

#endif
