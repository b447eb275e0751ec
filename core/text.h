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

/* The closest of candidates[0..n) to word (edit distance with swapped
 * neighbours counting one, ASCII,
 * case-insensitive), for "did you mean"; NULL when none is within a third
 * of the word's length (at least 1, at most 3). */
const char *text_closest(const char *word, const char *const *candidates, size_t n);

#endif
