/* SPDX-License-Identifier: GPL-2.0-or-later */
/* #regzbot directives in list mail, read as people write them today.
 *
 * A directive is a line that starts, in column 0, with "#regzbot" (any
 * case), then the verb, then its argument:
 *
 *     #regzbot introduced: v6.1.15..v6.1.20
 *     https://bugzilla.kernel.org/show_bug.cgi?id=217225
 *     #regzbot title: platform: thinkpad: can no longer alter
 *     /proc/acpi/ibm/fan
 *     #regzbot ignore-activity
 *
 * A ':' after the keyword or the verb is optional.  Several directives may
 * follow each other in one paragraph; the lines after a directive up to the
 * next directive, a blank line, a quoted line or a signature marker ("--",
 * "-- ") continue its argument and are joined with a blank.  Quoted lines
 * ('>', or anything below a line of its own that starts another mail:
 * Outlook's "-----Original Message-----", rule of underscores before
 * "From:" or "From:" line before "Sent:", a forward's "---------- Forwarded message ---------" or "Begin
 * forwarded message:", even below the signature) are never directives, nor are lines of a diff or indented lines (so that help text,
 * as in the weekly report, can show directives without being read back);
 * an indented "#regzbot" line also ends the directive above it rather than
 * continuing it.
 * Line kinds are inmail_lines_next()'s (inmail.h).  Directives after a
 * signature marker count: the regression tracker's own mails put them
 * below its footer.
 *
 * The verbs and their aliases (DIRECTIVE is the reg_verb_str() name):
 *
 *   introduced                          culprit, then optionally where the report is:
 *       <commit>                        8 or more hex digits
 *       <A>..<B>, <A>..                 a range, or an open one (A and B commits or tags)
 *       then "^" (the parent mail is the report), "/" or "~" (the thread's
 *       root is), or the URL of the report elsewhere (a Bugzilla bug, a mail);
 *       that pointer is not part of the culprit ("introduced" keeps the rest)
 *   ^introduced|introduced^             the same; the parent mail is the report
 *   ^^introduced                        the same; the grandparent mail is the report
 *   title|subject|summary <text>
 *   from <name and address>             who reported it
 *   link|related-brief <url> [text]
 *   monitor|related <url>
 *   unlink|unmonitor|unrelated <url>
 *   dup|duplicate <url>                 another report of this regression (in a
 *                                       tracked thread; elsewhere as dup-of)
 *   dup-of|dupof|duplicate-of <url>     this report duplicates the regression <url>
 *   fix|fixed-by|fixedby <hash> [("subject")] | <commit subject>
 *   resolve|resolved|invalid [reason]
 *   inconclusive [reason]
 *   backburner|back-burner [reason]
 *   unbackburn|unbackburner|unback-burner
 *   poke
 *   note <text>
 *   ignore-activity|activity-ignore
 *   ^backmonitor <url>                  the parent mail's thread is one the
 *                                       regression <url> names monitors
 *
 * Nothing is dropped silently: an unknown verb gives a REG_UNKNOWN entry,
 * and a known verb whose argument is missing or malformed keeps its verb
 * with error set.  Both kinds are "unhandled": the tracker shows them in a
 * report section and acts on neither.  Which directives to act on (only in
 * tracked threads, only from whom) is the tracker's choice, not the
 * parser's.
 *
 * Nothing here trusts the input: every string handed out is valid UTF-8
 * without controls, every count and length is capped, and parsing takes
 * time linear in the body.  Strings and arrays are malloc'd and freed by
 * reg_directives_free().
 */
#ifndef BB_TRACKER_DIRECTIVE_H
#define BB_TRACKER_DIRECTIVE_H

#include <stddef.h>

#include "core/status.h"

/* Most directives read from one mail; one more REG_UNKNOWN entry says the
 * rest were not read. */
#define REG_DIRECTIVES_MAX 64
/* Longest argument kept, in bytes (continuation lines included); a longer
 * one is cut at a character and gets an error. */
#define REG_ARG_MAX 2000
/* Longest verb kept, in bytes; longer ones are cut (and unknown). */
#define REG_VERB_MAX 64

enum reg_verb {
	REG_INTRODUCED = 0,
	REG_INTRODUCED_PARENT, /* "^introduced" */
	REG_TITLE,
	REG_FROM,
	REG_LINK,
	REG_MONITOR,
	REG_UNLINK,
	REG_DUP,               /* "dup", "duplicate": another report of it */
	REG_DUP_OF,            /* "dup-of": this one duplicates another */
	REG_FIX,
	REG_RESOLVE,
	REG_INCONCLUSIVE,
	REG_BACKBURNER,
	REG_UNBACKBURNER,
	REG_POKE,
	REG_NOTE,
	REG_IGNORE_ACTIVITY,
	REG_BACKMONITOR,       /* "^backmonitor" */
	REG_UNKNOWN,
};

struct reg_directive {
	enum reg_verb verb;
	char *verb_text;   /* the verb as written ("Dup-Of"), "" if none */
	/* The whole directive as written, "#regzbot" and verb included, with
	 * its continuation lines, cleaned like arg: what a person is shown
	 * when the directive is not acted on.  Never NULL. */
	char *text;
	/* The argument: the rest of the line and its continuation lines,
	 * joined, blanks collapsed, trimmed; "" if none, never NULL. */
	char *arg;

	/* introduced, ^introduced: the culprit.  commit_from is the commit
	 * (hex lower-cased) or the start of the range, commit_to its end
	 * (NULL for a single commit or an open range "A..", then range_open
	 * is set).  Range ends are commits or tags ("v6.5-rc1") as written. */
	char *commit_from, *commit_to;
	int range_open;
	/* introduced: the argument without the report pointer ("^", "/",
	 * "~" or the URL): "v5.18..v5.19", "1f2e3d4c5d (\"subject\")".
	 * NULL for other verbs or when the culprit is malformed. */
	char *introduced;
	/* introduced: where the report is.  '^' the parent of this mail
	 * (always for ^introduced), '/' or '~' the thread's root, or url when
	 * that is set and anchor is 0, else this mail itself.  With both an
	 * anchor and a url, the url is another report (a duplicate) of the
	 * regression, as regzbot reads it.  ancestor: for '^', how many
	 * generations up the report is (1 the parent, 2 for "^^introduced"
	 * the grandparent), else 0. */
	char anchor;
	unsigned ancestor;
	/* introduced: the report elsewhere; link, monitor, unlink, dup,
	 * dup-of, ^backmonitor: the
	 * target; fix: a URL given instead of a hash.  As written, without
	 * <> or trailing punctuation; see links.h to read it.  Else NULL. */
	char *url;
	/* fix: the fixing commit's hash (lower-cased) and its subject; either
	 * may be NULL ("fix: <subject>" has no hash). */
	char *fix_commit, *fix_subject;

	/* NULL if understood; else why not (a static string): an unknown
	 * verb, a missing or malformed argument, too long, too many. */
	const char *error;
	unsigned line;     /* 1-based line of the "#regzbot" in the body */
};

/* Reads the directives of a mail body (UTF-8 text with LF line ends, as
 * inmail_decode() gives it; CRLF and invalid UTF-8 are tolerated).  On
 * success *out is a malloc'd array of *n entries in body order (NULL and 0
 * if none; reg_directives_free() it).  Only BB_ERR_NOMEM is an error; then
 * *out is NULL, *n 0 and err says so. */
enum bb_status reg_directives_parse(const char *body, struct reg_directive **out, size_t *n,
				    struct bb_error *err);
void reg_directives_free(struct reg_directive *d, size_t n);

/* The canonical name of a verb ("introduced", "^introduced", "title", ...,
 * "ignore-activity"); "unknown" for REG_UNKNOWN.  Never NULL. */
const char *reg_verb_str(enum reg_verb verb);

#endif
