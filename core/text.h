/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What text from outside may not carry into a name, a title or a header.
 *
 * Names and titles reach mail subjects, web pages, file names and
 * terminals; a character that is invisible or that reorders what follows
 * it (U+202E RIGHT-TO-LEFT OVERRIDE makes "gnp.exe" read "exe.png") lets
 * a hostile filer make text read other than it is.  The cleaners of each
 * layer (mail headers, parsed mail, reports, the front door) drop what
 * these functions name.
 */
#ifndef BB_TEXT_H
#define BB_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* 1 for a Unicode format character (general category Cf: bidirectional
 * embeddings, overrides, isolates and marks, zero-width characters, the
 * soft hyphen, the byte order mark, tags, ...). */
int text_is_format_char(uint32_t c);
/* 1 for a control character: C0, DEL, C1, and the line and paragraph
 * separators U+2028 and U+2029. */
int text_is_control_char(uint32_t c);

/* How a person may be named in what bugbridge publishes (reports, the
 * regression pages and JSON, exports): person is "Name <address>", a bare
 * address or a bare name, as the tracker records reporters.  With
 * show_addresses ([mail] show_addresses) it is returned whole; else the
 * name alone, or, with no name (or a name that is itself an address), the
 * address's local part, as mirrored mail names people.  "" stays "".
 * malloc'd; NULL only when out of memory. */
char *text_person_published(const char *person, int show_addresses);
/* The same from a login and a real name apart (either may be NULL or ""). */
char *text_user_published(const char *login, const char *real_name, int show_addresses);
/* text with every address in it (local@domain.tld) cut to its local part,
 * for fields that name people (a history entry's cc change, flag setters).
 * malloc'd; NULL only when out of memory. */
char *text_hide_addresses(const char *text);
/* The closest of candidates[0..n) to word (edit distance with swapped
 * neighbours counting one, ASCII,
 * case-insensitive), for "did you mean"; NULL when none is within a third
 * of the word's length (at least 1, at most 3). */
const char *text_closest(const char *word, const char *const *candidates, size_t n);
/* Where the len bytes at hay first hold needle (NUL-terminated, ASCII
 * letters matched without regard to case), or NULL; hay may hold NULs.
 * Linear: memchr() finds the candidates for needle's rarest byte (by
 * how often each byte is in list mail). */
const char *text_find_ci(const char *hay, size_t len, const char *needle);

#endif
