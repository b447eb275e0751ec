/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The front door's page kit (fd_page.h): its answers' headers, the frame
 * of its pages, a message page and the escaping of text in them. */
#include "config.h"

#include <stdlib.h>

#include <glib.h>
#include <microhttpd.h>

#include "core/buf.h"
#include "web/fd_page.h"

static const char fd_csp[] = "default-src 'self'; script-src 'none'; object-src 'none'; "
			     "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const char fd_page_css[] =
	"body{font-family:sans-serif;max-width:60em;margin:1em auto;padding:0 1em;line-height:1.4}\n"
	"header a{margin-right:1em}\n"
	"label{display:block;margin-top:.8em;font-weight:bold}\n"
	"input[type=text],input[type=email],textarea,select{width:100%;box-sizing:border-box}\n"
	"textarea{min-height:8em;font-family:monospace}\n"
	".notice{border:1px solid #c90;background:#ffe;padding:.5em 1em}\n"
	".error{border:1px solid #c00;background:#fee;padding:.5em 1em}\n"
	"table{border-collapse:collapse;width:100%}\n"
	"td,th{border-bottom:1px solid #ddd;padding:.2em .4em;text-align:left}\n"
	"pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}\n"
	".comment h3{font-size:1em;margin-bottom:0}\n";

enum bb_status frontdoor_escape(struct buf *out, const char *text)
{
	gchar *valid = g_utf8_make_valid(text ? text : "", -1);
	gchar *escaped = g_markup_escape_text(valid, -1);
	enum bb_status st = buf_addstr(out, escaped);

	g_free(escaped);
	g_free(valid);
	return st;
}

static int fd_header(struct MHD_Response *r, const char *name, const char *value)
{
	return MHD_add_response_header(r, name, value) == MHD_YES;
}

enum MHD_Result fd_queue(struct MHD_Connection *conn, unsigned status, unsigned *logged,
			 const char *type, struct buf *body, const char *extra_name,
			 const char *extra_value)
{
	struct MHD_Response *resp;
	enum MHD_Result ret = MHD_NO;
	size_t len = 0;
	char *data = buf_detach(body, &len);
	int ok = 1;

	if (!data)
		return MHD_NO;
	resp = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(data);
		return MHD_NO;
	}
	ok &= fd_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ok &= fd_header(resp, "Content-Security-Policy", fd_csp);
	ok &= fd_header(resp, "X-Content-Type-Options", "nosniff");
	ok &= fd_header(resp, "Referrer-Policy", "same-origin");
	ok &= fd_header(resp, "X-Frame-Options", "DENY");
	ok &= fd_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (extra_name)
		ok &= fd_header(resp, extra_name, extra_value);
	if (ok) {
		ret = MHD_queue_response(conn, status, resp);
		*logged = status;
	}
	MHD_destroy_response(resp);
	return ret;
}

void fd_page_start(struct buf *b, const char *title)
{
	buf_addstr(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		      "<meta name=\"viewport\" content=\"width=device-width\"><title>");
	frontdoor_escape(b, title);
	buf_addstr(b, "</title><link rel=\"stylesheet\" href=\"/frontdoor.css\"></head><body>\n"
		      "<header><a href=\"/\">Report a bug</a><a href=\"/bugs\">Bugs</a>"
		      "<a href=\"/regressions/\">Regressions</a></header>\n<main>\n<h1>");
	frontdoor_escape(b, title);
	buf_addstr(b, "</h1>\n");
}

void fd_page_end(struct buf *b)
{
	buf_addstr(b, "</main>\n</body></html>\n");
}

enum MHD_Result fd_message_page(struct MHD_Connection *conn, unsigned status,
				unsigned *logged, const char *title, const char *text,
				const char *extra_name, const char *extra_value)
{
	struct buf b = BUF_INIT;

	fd_page_start(&b, title);
	buf_addstr(&b, status >= 400 ? "<p class=\"error\">" : "<p>");
	frontdoor_escape(&b, text);
	buf_addstr(&b, "</p>\n");
	fd_page_end(&b);
	return fd_queue(conn, status, logged, "text/html; charset=utf-8", &b, extra_name,
			extra_value);
}
