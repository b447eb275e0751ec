/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lines of a decoded list mail (inmail.h): what each is (text, quote,
 * patch, signature, a forwarded mail), the reply text without what it
 * quotes, and whether a text holds a diff.  Included by inmail.h; the line
 * walker is what the command parser, the directives and the tracker read a
 * body with.  Nothing here allocates but inmail_reply_text().
 */
#ifndef BB_INMAIL_LINES_H
#define BB_INMAIL_LINES_H

#include <stddef.h>

/* The body cut down to what gives context, for a Bugzilla comment: the
 * signature (from a "-- " line) is dropped; of each block of quoted lines
 * the last INMAIL_QUOTE_CONTEXT non-empty ones are kept, after a "> [...]"
 * line when some were cut, if the writer's own text follows; a quote block
 * with nothing after it (a top-post's quote) goes with its "... wrote:"
 * line; a top-post's "-----Original Message-----" and all after it go; a
 * forwarded mail (INMAIL_LINE_FORWARDED) stays whole.
 * Diffs are never cut (a "-- " line inside a hunk is a hunk line).  Blank
 * lines are collapsed.  Returns a malloc'd string (free() it), NULL when out
 * of memory. */
#define INMAIL_QUOTE_CONTEXT 3
char *inmail_reply_text(const char *body);

/* Line kinds, for the reply cutter and the command parser. */
enum inmail_line_kind {
	INMAIL_LINE_TEXT = 0, /* the writer's own words */
	INMAIL_LINE_BLANK,    /* empty or only blanks */
	INMAIL_LINE_QUOTE,    /* quoted: starts with '>', or from an Outlook
			       * "-----Original Message-----" line, a rule of
			       * underscores before "From:", or a "From:" line
			       * before "Sent:", to the end */
	INMAIL_LINE_PATCH,    /* part of a diff: its headers, hunk headers, hunk lines */
	INMAIL_LINE_SIGNATURE,/* the "-- " line and everything after it */
	INMAIL_LINE_FORWARDED,/* a forwarded mail, from a line of its own such
			       * as "---------- Forwarded message ---------" or
			       * "Begin forwarded message:" to the end: not the
			       * writer's words (no commands, no directives),
			       * but kept whole by inmail_reply_text() */
};

/* Walks a body line by line, classifying each (a diff's hunk lines are
 * counted from its "@@ -a,b +c,d @@" header, so "-- " or "> " inside a hunk
 * stay patch lines).  Initialise with inmail_lines_init(); text must stay
 * valid while walking.  Holds no memory. */
struct inmail_lines {
	const char *pos, *end;
	long old_left, new_left; /* lines still due in the current hunk */
	int in_diff;             /* between a diff's first header and its first hunk */
	int after_patch;         /* the last line was part of a diff */
	int in_signature;
	int in_original;         /* 0, or the kind of every line from a marker on:
				  * INMAIL_LINE_QUOTE or INMAIL_LINE_FORWARDED */
	unsigned lineno;         /* 1-based number of the line last returned */
};
void inmail_lines_init(struct inmail_lines *it, const char *text, size_t len);
/* The next line (without its line end; a CR before the LF is dropped) in
 * *line and *len; returns 1 and sets *kind, or 0 at the end. */
int inmail_lines_next(struct inmail_lines *it, const char **line, size_t *len,
		      enum inmail_line_kind *kind);

/* 1 if text (len bytes) holds a unified diff with at least one hunk: a
 * hunk header ("@@ -a,b +c,d @@") that the line walker reads as part of a
 * diff. */
int inmail_has_hunk(const char *text, size_t len);

#endif
