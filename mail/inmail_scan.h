/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The raw scan of list mail, the second step of inmail.h: what a mail's
 * bytes say before any decode -- a line that may be a command, a directive
 * or a trailer, content only a decode can read, multipart -- so that the
 * full decode (inmail_body.h) runs only for mail that may need it.  And
 * the tests of a Content- field that the scan and the header pass share.
 * Included by inmail.h; all functions are pure and linear in their input.
 */
#ifndef BB_INMAIL_SCAN_H
#define BB_INMAIL_SCAN_H

#include <stddef.h>

struct inmail;

/* inmail_raw_scan() flags. */
#define INMAIL_SCAN_COMMAND 0x1  /* a line may be a "#bugbridge" command */
#define INMAIL_SCAN_REGZBOT 0x2  /* a line may be a "#regzbot" directive */
/* Base64 or uuencoded content, a charset in which ASCII is not itself
 * (UTF-16/32, UTF-7, ISO-2022, ...), or HTML that may be read: the two
 * flags above can be missing and only inmail_decode() tells.  A base64
 * part that is plainly one whose text inmail_decode() never reads (its
 * disposition is "attachment", or its type is plainly none of text/plain,
 * text/x-patch, text/x-diff, text/html, message/ and multipart/) does not
 * count.  Nor does HTML (base64 or not) where the scan sees a part that
 * adds text to the body -- plainly text/plain, unnamed, not attached, not
 * base64, a letter in its text -- and no message/ part (whose text/plain
 * is not read): inmail_decode() reads HTML only when no text/plain part
 * adds text.  Quoted-printable is seen through: a line that may start
 * with a keyword written in it (characters as "=XX", a soft line break
 * inside the keyword) is read as GMime decodes it; so are the control
 * bytes the decoded text drops. */
#define INMAIL_SCAN_OPAQUE  0x4
#define INMAIL_SCAN_MULTIPART 0x8 /* MIME multipart: may have attachments */
#define INMAIL_SCAN_TRAILER 0x10  /* a line may be a "Link:" or "Closes:" trailer */

/* One pass over the raw message (headers and body), which stops where it
 * finds the mail opaque: the other flags then say what was seen before it
 * (an opaque mail is decoded, whatever else it holds).  A command or directive
 * counts where it starts a line, after optional blanks, outside quoted
 * text; false positives are possible (the full parse decides), false
 * negatives only when INMAIL_SCAN_OPAQUE is set -- but for crafted text
 * the decode reads otherwise: a lone carriage return before a keyword
 * (also as quoted-printable "=0D"), an EBCDIC charset other than IBM037,
 * or parts laid out so that the text/plain part seen is not the one read
 * (an empty text/plain alternative before the one with text, a signed
 * part whose content is the HTML, nesting deeper than the decode goes). */
unsigned inmail_raw_scan(const char *raw, size_t len);
/* The same for a mail whose headers m holds (inmail_parse_headers() of
 * raw/len): the header section's flags come from its parsed fields, so
 * only the body is read. */
unsigned inmail_scan(const struct inmail *m, const char *raw, size_t len);

/* What the raw scan and the header pass both read of a Content- field:
 * - a charset named after "charset" in a Content-Type line (line, len
 *   bytes) in which ASCII text is not written as ASCII bytes (UTF-16/32,
 *   UCS-2/4, UTF-7, ISO-2022, HZ, EBCDIC);
 * - a Content-Transfer-Encoding value (v, len bytes) the scan cannot see
 *   through: anything but 7bit, 8bit, binary and quoted-printable, or
 *   nothing on the field's first line;
 * - a Content-Type value (v, len bytes) whose part can never add to the
 *   body text: application/, image/, audio/, video/, font/, model/. */
int inmail_opaque_charset(const char *line, size_t len);
int inmail_opaque_encoding(const char *v, size_t len);
int inmail_binary_type(const char *v, size_t len);

#endif
