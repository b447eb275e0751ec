/* SPDX-License-Identifier: GPL-2.0-or-later */
/* HTML to text, for the full decode (inmail_body.h) of a mail without a
 * text/plain part: libxml2's HTML parser with SAX callbacks, no tree.
 */
#ifndef BB_INMAIL_HTML_H
#define BB_INMAIL_HTML_H

#include <stddef.h>

#include "core/status.h"

struct buf;

/* Appends the text of an HTML document (UTF-8, len bytes) to out: block
 * elements on lines of their own, a quote's lines after "> ", <pre> as it
 * stands, scripts and styles left out, elements nested deeper than 64 left
 * out with what they hold.  BB_ERR_NOMEM when out of memory. */
enum bb_status inmail_html_to_text(struct buf *out, const char *html, size_t len);

#endif
