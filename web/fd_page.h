/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The front door's page kit, shared by its pages (frontdoor.c), the
 * triage page (triage_page.c) and the bug pages (bugpages.c): every answer
 * goes out with the same security headers (a Content-Security-Policy
 * without scripts, no framing, no caching, Referrer-Policy: same-origin),
 * every page in the same frame, and every text in a page through one
 * escaping function. */
#ifndef BB_FD_PAGE_H
#define BB_FD_PAGE_H

#include <microhttpd.h>

#include "core/buf.h"
#include "core/status.h"

/* The pages' style sheet (served as /frontdoor.css). */
extern const char fd_page_css[];

/* Appends text, HTML-escaped for element content and quoted attributes
 * (invalid UTF-8 repaired first).  The one escaping function of the
 * pages. */
enum bb_status frontdoor_escape(struct buf *out, const char *text);

/* Queues body (taken over; malloc'd) as the answer, of type type, with the
 * pages' headers and extra_name: extra_value when extra_name is not NULL;
 * *logged gets status once queued. */
enum MHD_Result fd_queue(struct MHD_Connection *conn, unsigned status, unsigned *logged,
			 const char *type, struct buf *body, const char *extra_name,
			 const char *extra_value);
/* A page's start (its title, escaped, as title and heading) and end. */
void fd_page_start(struct buf *b, const char *title);
void fd_page_end(struct buf *b);
/* A page with one paragraph of text (escaped). */
enum MHD_Result fd_message_page(struct MHD_Connection *conn, unsigned status,
				unsigned *logged, const char *title, const char *text,
				const char *extra_name, const char *extra_value);

#endif
