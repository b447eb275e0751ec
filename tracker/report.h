/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The regression tracker's reports: what people read.
 *
 * reg_report_write() writes a folder any static web server can serve (and
 * `bugbridge serve` serves under /regressions/):
 *
 *   index.html             the trees with their counts, links to the rest,
 *                          and the directives that were not acted on
 *   trees/<name>.html      one page per tree (branch): its regressions by
 *                          state (open, fix incoming, back burner, stale,
 *                          fixed, closed) with age, last activity, culprit
 *   regression/<id>.html   one page per regression: state, age, last
 *                          activity, culprit, report, links, history
 *   regressions.json       everything, versioned: {"version":1, "generated",
 *                          "regressions":[... with links and history],
 *                          "unhandled":[...]}
 *   changes.atom           an Atom 1.0 feed of the latest events
 *   weekly.txt             the weekly report for mainline, the text of the
 *                          mail reg_report_weekly_mail() queues
 *   style.css              the pages' style sheet
 *
 * Every file is written to a spare beside it (".<name>.spare", hidden from
 * the web server) that then trades places with it in one rename
 * (RENAME_EXCHANGE; a plain rename for a new file), so a reader never sees
 * a half-written file, and the spare keeps the previous version's inode for
 * the next run: once the pages exist a run creates and frees no inodes.  A
 * file that would not change is not written at all.  One run writes a
 * folder at a time (a lock on the folder).  Nothing is fsynced: the next
 * run makes the reports again, and a crash leaves each file whole, old or
 * new (ext4 writes a replaced file's data before the rename).  Files of
 * regressions that no longer exist are left alone.
 *
 * Everything that came from mail or Bugzilla goes through one escaping
 * function, reg_html_escape(), for text and attribute values alike; a link
 * is a link only for an http:// or https:// URL (anything else is shown as
 * text); pages carry no script and a Content-Security-Policy that allows
 * none.  The Atom feed is written with libxml2's xmlTextWriter.  Text is
 * made valid UTF-8 without control characters before it reaches any file.
 *
 * Ages are in days.  "New" in the weekly report means reported after the
 * last weekly report that was queued (its mail in the outbox), or within
 * the last 7 days when none was.  Nothing prints.
 */
#ifndef BB_TRACKER_REPORT_H
#define BB_TRACKER_REPORT_H

#include <stddef.h>
#include <time.h>

#include <libxml/xmlwriter.h>

#include "config/conf.h"
#include "core/buf.h"
#include "core/status.h"
#include "core/store.h"
#include "mail/mail.h"
#include "tracker/tracker.h"

/* The "version" of regressions.json and of `bugbridge regressions --json`. */
#define REG_REPORT_VERSION 1
/* The Atom feed holds the events of this many days, at most this many. */
#define REG_REPORT_FEED_DAYS 30
#define REG_REPORT_FEED_MAX 200
/* Unhandled directives shown, newest first. */
#define REG_REPORT_UNHANDLED_MAX 500

/* Writes every report into dir (created if needed) as of now.  The stale
 * limit is cfg->tracker_stale_after; links point at reg_report_base_url().
 * BB_ERR_IO, BB_ERR_NO_SPACE, BB_ERR_PERMISSION for file trouble,
 * BB_ERR_DATABASE for the store. */
enum bb_status reg_report_write(struct store *db, const struct bb_config *cfg, const char *dir,
				time_t now, struct bb_error *err);

/* Composes the weekly report for mainline as of now (see
 * reg_report_compose_weekly()) and queues it with outbox_add() to
 * [tracker] report_lists, in a transaction of its own.  A report queued
 * the same day already is not queued again (same Message-ID).  *message_id
 * (if not NULL) gets its Message-ID (malloc'd, free() it).  BB_ERR_CONFIG
 * when report_lists is not set. */
enum bb_status reg_report_weekly_mail(struct store *db, const struct bb_config *cfg,
				      time_t now, char **message_id, struct bb_error *err);

/* The weekly report as a plain-text mail: From [mail] from, To the lists,
 * Subject "Linux regressions report for mainline [YYYY-MM-DD]", Message-ID
 * <regressions-report-YYYY-MM-DD@<[mail] domain>>, Date now,
 * Auto-Submitted and the loop header; body text (UTF-8).  lists is a
 * NULL-terminated list of addresses.  *out as mail_compose_comment()
 * fills it (mail_message_release() it). */
enum bb_status reg_report_compose_weekly(const struct bb_config *cfg, char *const *lists,
					 const char *text, time_t now,
					 struct mail_message *out, struct bb_error *err);

/* A plain-text mail to lists as the weekly report is one (above), with
 * its subject and the Message-ID <local@[mail] domain>: what the weekly
 * report and the bridge's digests (bridge/digest.h) are mailed as. */
enum bb_status reg_report_compose_mail(const struct bb_config *cfg, char *const *lists,
				       const char *subject, const char *local, const char *text,
				       time_t now, struct mail_message *out, struct bb_error *err);

/* --- the pieces, public for the CLI and the tests ------------------------ */

/* One regression with what the pages show of it (links and events may be
 * NULL with a count of 0). */
struct reg_report_item {
	const struct reg_regression *r;
	const struct reg_link *links;
	size_t nlinks;
	const struct reg_event *events;   /* oldest first */
	size_t nevents;
};

struct reg_weekly_options {
	time_t now;
	time_t last_report;       /* the previous weekly report, 0 if none */
	const char *base_url;     /* of the reports, no trailing '/' */
	const char *bugzilla_url; /* for bug links; NULL: none */
	const char *mail_url;     /* the inbox: mail links go to its host's /r/<msgid>/ */
	long long stale_after;    /* seconds */
};

/* Appends the weekly report for the regressions on mainline among items
 * (any order; other branches are only counted), with the unhandled
 * directives, to out.  Sections framed by "=" lines: current cycle with
 * the culprit identified, current cycle with an unknown culprit, previous
 * cycles, back burner, stale, fixed or closed since the last report,
 * directives not acted on; then help on the directives, indented so that
 * the tracker does not read its own report.  Every text from mail or
 * Bugzilla is one line (controls and line breaks folded), and no line
 * starts with '#'.  BB_ERR_NOMEM (or the buf's cap) on failure. */
enum bb_status reg_report_weekly_text(struct buf *out, const struct reg_weekly_options *opt,
				      const struct reg_report_item *items, size_t n,
				      const struct reg_unhandled *unhandled, size_t nunhandled);

/* The cycle a regression was introduced in, read from its "introduced"
 * text: the last "vX.Y" or "vX.Y-rcN" in it, or for an open range
 * "vX.Y.." the cycle after ("X.Y+1").  Returns 1 and fills *major, *minor,
 * or 0 if it names no version. */
int reg_report_cycle(const char *introduced, int *major, int *minor);

/* Appends text escaped for HTML, safe both as element text and inside a
 * single- or double-quoted attribute value: & < > " ' become entities,
 * invalid UTF-8 becomes U+FFFD, control characters other than tab and
 * line feed are dropped.  NULL is "".  The one escaping function of the
 * pages. */
enum bb_status reg_html_escape(struct buf *out, const char *text);

/* Appends text as one clean line for mail or a log: valid UTF-8, control
 * characters and runs of white space folded into one space, trimmed, at
 * most max_chars characters ("…" marks a cut; 0: no limit). */
enum bb_status reg_text_line(struct buf *out, const char *text, size_t max_chars);

/* 1 if url may be a link in a page: http:// or https:// (any case),
 * printable ASCII without blanks, quotes or angle brackets. */
int reg_report_url_ok(const char *url);

/* The JSON of one regression, the shape of regressions.json and of
 * `bugbridge regressions --json` (links and history only when item has
 * them, or when with_details is set).  New json-c object
 * (json_object_put() it), NULL when out of memory. */
struct json_object;
struct json_object *reg_report_json(const struct reg_report_item *item, time_t now,
				    const char *base_url, int with_details);
struct json_object *reg_report_json_unhandled(const struct reg_unhandled *u);

/* The file name (without ".html") of a tree's page: letters, digits, '.'
 * and '-' kept, every other byte as "_XX" (hex), never starting with '.';
 * names longer than 100 bytes are cut and end in a digest.  malloc'd
 * (free() it), NULL when out of memory. */
char *reg_report_tree_file(const char *branch);

/* The file a request path under /regressions/ names ("/regressions/",
 * "/regressions/index.html", "/regressions/regression/12.html", ...):
 * writes it relative to the reports folder into rel (at least 128 bytes)
 * and returns its Content-Type, or NULL if the path names no report file.
 * Only the files reg_report_write() makes can be named: at most two
 * segments of [A-Za-z0-9._-] not starting with '.', the first of two being
 * "regression" or "trees"; no escapes. */
const char *reg_report_file(const char *path, char *rel, size_t rel_len);

/* The reports folder: [tracker] report_dir, else <data_dir>/reports.
 * malloc'd, NULL when out of memory. */
char *reg_report_dir(const struct bb_config *cfg);
/* Public URL of the reports: [tracker] report_url, else
 * <[blob] base_url>/regressions.  No trailing '/'; malloc'd. */
char *reg_report_base_url(const struct bb_config *cfg);
/* Atom 1.0 with libxml2's writer, for changes.atom and the front door's
 * feeds (web/bugpages.h); each returns < 0 on failure.  A text element,
 * its text cleaned as the pages' (reg_report_clean_dup()): */
int reg_atom_element(xmlTextWriterPtr w, const char *name, const char *text);
/* a <link> (rel and type left out when NULL): */
int reg_atom_link(xmlTextWriterPtr w, const char *rel, const char *type, const char *href);
/* the document, the <feed> (left open for the entries and
 * xmlTextWriterEndDocument()), its id and self link (self), title,
 * updated, alternate link (none when NULL), author and generator: */
int reg_atom_feed_start(xmlTextWriterPtr w, const char *self, const char *title, time_t updated,
			const char *alternate);
/* The inbox whose host's /r/<msgid>/ links to mail (tracker/links.h,
 * reg_link_mail()): [archive] link_url, else [archive] url, else
 * https://lore.kernel.org.  Not malloc'd. */
const char *reg_report_mail_url(const struct bb_config *cfg);

/* When the last weekly report before the one of now's day was queued (its
 * row in the outbox), 0 if none. */
enum bb_status reg_report_last_sent(struct store *db, const struct bb_config *cfg, time_t now,
				    time_t *when, struct bb_error *err);

#endif
