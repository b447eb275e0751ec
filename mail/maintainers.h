/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's MAINTAINERS file: sections with their M: (maintainers),
 * R: (reviewers), L: (lists), S: (status), F:/X:/N:/K: (files, patterns)
 * and T:/W:/B:/C:/Q:/P: (trees, pages, bug reports, chat, patchwork,
 * profile) entries.
 *
 * The format, as the file's own preamble describes it: a section is a title
 * line that follows a blank line, then entry lines "X:<TAB>value".  The
 * preamble (the file's own documentation) ends at the first title that is
 * directly followed by an entry.
 *
 * Parsing is forgiving, because the file is outside input:
 *   - CRLF line ends and trailing white space are ignored;
 *   - an entry may separate letter and value by spaces instead of a tab, or
 *     by nothing ("M:addr");
 *   - lines that are neither a title nor an entry (a non-blank line that does
 *     not follow a blank line) are skipped, and so are entries with an empty
 *     value and entries before the first section;
 *   - a line holding a NUL byte is never a title or an entry: such an entry is
 *     skipped, and such a title ends the current section (the entries after
 *     it, which belong to a section we cannot name, are skipped);
 *   - a title that starts with white space ends the current section likewise.
 * Nothing but running out of memory (or, for mnt_load, reading the file)
 * makes parsing fail: any text, even empty, gives a (maybe empty) file.
 *
 * Section names are matched case-insensitively (ASCII), ignoring surrounding
 * white space.
 */
#ifndef BB_MAINTAINERS_H
#define BB_MAINTAINERS_H

#include <stddef.h>

#include "core/status.h"

/* Every string is owned by the struct mnt_file it came from and lives until
 * mnt_free().  Every array is NULL-terminated and never NULL (an absent
 * field gives an empty array). */
struct mnt_section {
	char *name;               /* as written, trimmed, e.g. "INTEL WIRELESS WIFI LINK (iwlwifi)" */
	char **maintainers;       /* M: entries, "Name <addr>" (white space runs made one
				   * space, notes after the '>' dropped) or a bare address */
	char **reviewers;         /* R:, like M: */
	char **lists;             /* L: addresses only ("linux-wireless@vger.kernel.org"),
				   * notes such as "(moderated for non-subscribers)" dropped */
	char *status;             /* the first S:, "" if none */
	char **files;             /* F: patterns */
	char **excluded;          /* X: patterns */
	char **file_regexes;      /* N: */
	char **content_regexes;   /* K: */
	char **trees;             /* T: "git git://..." */
	char **web;               /* W: */
	char **bug_urls;          /* B: where the subsystem wants bug reports */
	char **chats;             /* C: */
	char **patchwork;         /* Q: */
	char **profiles;          /* P: */
	size_t line;              /* the title's line number, from 1 */
};

struct mnt_file;

/* Reads and parses the file at path (at most MNT_MAX_FILE_SIZE bytes:
 * BB_ERR_TOO_LARGE beyond).  BB_ERR_NOT_FOUND, BB_ERR_IO, ... when it
 * cannot be read; the message names the path.  On success *out is to be
 * freed with mnt_free(). */
#define MNT_MAX_FILE_SIZE (64u << 20)
enum bb_status mnt_load(struct mnt_file **out, const char *path, struct bb_error *err);
/* Parses len bytes of text (need not be NUL-terminated; may hold NUL bytes,
 * see above).  Only fails for lack of memory.  The text is copied. */
enum bb_status mnt_parse(struct mnt_file **out, const char *text, size_t len,
			 struct bb_error *err);
void mnt_free(struct mnt_file *mf);
size_t mnt_count(const struct mnt_file *mf);
/* Section i in file order (i < mnt_count()), or NULL. */
const struct mnt_section *mnt_section_at(const struct mnt_file *mf, size_t i);
/* The first section of that name (case-insensitive, ignoring white space
 * around either name), or NULL. */
const struct mnt_section *mnt_find(const struct mnt_file *mf, const char *name);

/* The bare address of "Name <addr>", "\"Quoted, Name\" <addr>", "addr" or
 * "addr (comment)"; malloc'd, "" if entry holds none, NULL only when out of
 * memory. */
char *mnt_address(const char *entry);
/* The same without allocating: a pointer into entry and the address's
 * length in *len (0 and a pointer to the end of entry if none). */
const char *mnt_address_span(const char *entry, size_t *len);

#endif
