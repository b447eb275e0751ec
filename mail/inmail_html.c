/* SPDX-License-Identifier: GPL-2.0-or-later */
/* HTML to text, for mail without a text/plain part (inmail_html.h).
 *
 * libxml2's HTML parser is run with SAX callbacks and no tree: a document
 * tree costs many times the size of the HTML (a 50 MB HTML mail peaked at
 * 645 MB), the callbacks only the text they write.
 */
#include "config.h"

#include <string.h>

#include <glib.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include "core/buf.h"
#include "mail/inmail_html.h"

/* Elements nested deeper than this are left out, with what they hold. */
#define HTML_DEPTH_MAX 64

enum {
	HTML_OPEN_SKIP = 1,    /* an element whose content is no text (script, head) */
	HTML_OPEN_BLOCK = 2,   /* a line break before and after */
	HTML_OPEN_PRE = 4,
	HTML_OPEN_QUOTE = 8,
};

struct html_writer {
	struct buf *out;
	enum bb_status st;
	int quote;      /* <blockquote> depth: lines get "> " per level */
	int pre;        /* inside <pre>: whitespace kept */
	int space;      /* a blank is due before the next word */
	int line_start; /* nothing written on the current line yet */
	int skip;       /* inside that many skipped elements */
	int depth;      /* open elements */
	unsigned char open[HTML_DEPTH_MAX + 1]; /* HTML_OPEN_ of each open element */
};

static void html_put(struct html_writer *w, const char *s, size_t len)
{
	if (w->st != BB_OK || len == 0)
		return;
	if (w->line_start) {
		for (int i = 0; i < w->quote && w->st == BB_OK; i++)
			w->st = buf_addstr(w->out, "> ");
		w->line_start = 0;
		w->space = 0;
	}
	if (w->space && w->st == BB_OK)
		w->st = buf_addch(w->out, ' ');
	w->space = 0;
	if (w->st == BB_OK)
		w->st = buf_add(w->out, s, len);
}

static void html_newline(struct html_writer *w, int force)
{
	if (w->st != BB_OK || (w->line_start && !force))
		return;
	w->st = buf_addch(w->out, '\n');
	w->line_start = 1;
	w->space = 0;
}

static void html_text(struct html_writer *w, const char *t, size_t len)
{
	const char *end = t + len;

	while (t < end && w->st == BB_OK) {
		size_t n;

		if (w->pre) {
			const char *nl = memchr(t, '\n', (size_t)(end - t));

			n = nl ? (size_t)(nl - t) : (size_t)(end - t);
			html_put(w, t, n);
			t += n;
			if (t < end) {
				html_newline(w, 1);
				t++;
			}
			continue;
		}
		if (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r') {
			w->space = !w->line_start;
			t++;
			continue;
		}
		for (n = 0; t + n < end && !strchr(" \t\r\n", t[n]); n++)
			;
		html_put(w, t, n);
		t += n;
	}
}

static int html_is(const char *name, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (!g_ascii_strcasecmp(name, names[i]))
			return 1;
	return 0;
}

static void html_start(void *ctx, const xmlChar *xname, const xmlChar **attrs)
{
	static const char *const skipped[] = { "script", "style", "head", "title", NULL };
	static const char *const blocks[] = {
		"p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote",
		"table", "ul", "ol", "hr", "dl", "dt", "dd", "address", "section", "article", NULL
	};
	struct html_writer *w = ((htmlParserCtxtPtr)ctx)->_private;
	const char *name = (const char *)xname;
	int level = w->depth++;
	unsigned char open = 0;

	(void)attrs;
	if (level > HTML_DEPTH_MAX)
		return;
	if (w->skip || html_is(name, skipped)) {
		open = HTML_OPEN_SKIP;
		w->skip++;
	} else if (!g_ascii_strcasecmp(name, "br")) {
		html_newline(w, 1);
	} else {
		if (html_is(name, blocks)) {
			open |= HTML_OPEN_BLOCK;
			html_newline(w, 0);
		}
		if (!g_ascii_strcasecmp(name, "pre")) {
			open |= HTML_OPEN_PRE;
			w->pre++;
		}
		if (!g_ascii_strcasecmp(name, "blockquote")) {
			open |= HTML_OPEN_QUOTE;
			w->quote++;
		}
	}
	w->open[level] = open;
}

static void html_end(void *ctx, const xmlChar *name)
{
	struct html_writer *w = ((htmlParserCtxtPtr)ctx)->_private;
	int level;
	unsigned char open;

	(void)name;
	if (w->depth == 0)
		return;
	level = --w->depth;
	if (level > HTML_DEPTH_MAX)
		return;
	open = w->open[level];
	if (open & HTML_OPEN_SKIP)
		w->skip--;
	w->pre -= (open & HTML_OPEN_PRE) != 0;
	w->quote -= (open & HTML_OPEN_QUOTE) != 0;
	if (open & HTML_OPEN_BLOCK)
		html_newline(w, 0);
}

static void html_characters(void *ctx, const xmlChar *text, int len)
{
	struct html_writer *w = ((htmlParserCtxtPtr)ctx)->_private;

	/* the text of an element at the depth cap is still shown */
	if (!w->skip && w->depth <= HTML_DEPTH_MAX + 1 && len > 0)
		html_text(w, (const char *)text, (size_t)len);
}

/* Appends the text of an HTML document (UTF-8) to out. */
enum bb_status inmail_html_to_text(struct buf *out, const char *html, size_t len)
{
	enum { PIECE = 1 << 20 };
	struct html_writer w;
	htmlSAXHandler sax;
	htmlParserCtxtPtr ctxt;

	memset(&w, 0, sizeof(w));
	w.out = out;
	w.line_start = 1;
	memset(&sax, 0, sizeof(sax));
	sax.startElement = html_start;
	sax.endElement = html_end;
	sax.characters = html_characters;
	sax.cdataBlock = html_characters;
	ctxt = htmlCreatePushParserCtxt(&sax, NULL, NULL, 0, NULL, XML_CHAR_ENCODING_UTF8);
	if (!ctxt)
		return BB_ERR_NOMEM;
	ctxt->_private = &w;
	htmlCtxtUseOptions(ctxt, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
			   HTML_PARSE_NONET);
	for (size_t at = 0; at < len && w.st == BB_OK; at += PIECE)
		htmlParseChunk(ctxt, html + at, (int)(len - at < PIECE ? len - at : PIECE), 0);
	htmlParseChunk(ctxt, NULL, 0, 1);
	if (w.st == BB_OK && !w.line_start)
		w.st = buf_addch(out, '\n');
	if (ctxt->myDoc)
		xmlFreeDoc(ctxt->myDoc);
	htmlFreeParserCtxt(ctxt);
	return w.st;
}
