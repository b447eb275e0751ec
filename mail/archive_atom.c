/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The list archive reader for an inbox's web pages (archive_atom.h): the
 * Atom source (<url>/new.atom, each new entry's message from
 * <url>/<msgid>/raw) and archive_fetch_thread() (<url>/<msgid>/t.mbox.gz),
 * with the two parsers they need: the Atom feed (libxml2) and gzip
 * (libarchive, with a CRC-32 check).  What it reads of the source and the
 * calls it hands messages over with are in archive_source.h. */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/run.h"
#include "mail/archive.h"
#include "mail/archive_atom.h"
#include "mail/archive_source.h"

#define ARCHIVE_FEED_CAP ((size_t)16 << 20)        /* new.atom */
#define ARCHIVE_THREAD_GZ_CAP ((size_t)256 << 20)  /* t.mbox.gz as downloaded */
#define ARCHIVE_THREAD_CAP ((size_t)512 << 20)     /* and decompressed */
#define ARCHIVE_ATOM_MAX_ENTRIES 10000

/* ---------------------------------------------------------------------------
 * gzip (libarchive) with a CRC-32 check
 */

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;

	pthread_once(&crc_once, crc_init);
	for (size_t i = 0; i < n; i++)
		c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
	return c ^ 0xFFFFFFFFu;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

enum bb_status archive_gunzip(const void *data, size_t len, size_t max_out, char **out,
			      size_t *out_len, struct bb_error *err)
{
	struct archive *a = NULL;
	struct archive_entry *entry;
	struct buf text = BUF_INIT;
	enum bb_status st = BB_OK;
	const unsigned char *bytes = data;
	char chunk[65536];
	la_ssize_t got;
	uint32_t crc, isize;

	*out = NULL;
	*out_len = 0;
	buf_init_capped(&text, max_out);
	if (len < 18 || bytes[0] != 0x1f || bytes[1] != 0x8b) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "not gzip data");
		goto out;
	}
	a = archive_read_new();
	if (!a) {
		st = archive_nomem(err);
		goto out;
	}
	archive_read_support_filter_gzip(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_memory(a, data, len) != ARCHIVE_OK ||
	    archive_read_next_header(a, &entry) != ARCHIVE_OK) {
		const char *why = archive_error_string(a);

		st = bb_error_set(err, BB_ERR_PROTOCOL, "broken gzip data: %s",
				  why ? why : "truncated or damaged");
		goto out;
	}
	if (archive_filter_count(a) != 2 || archive_filter_code(a, 0) != ARCHIVE_FILTER_GZIP) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "not plain gzip data");
		goto out;
	}
	while ((got = archive_read_data(a, chunk, sizeof(chunk))) > 0) {
		if ((st = buf_add(&text, chunk, (size_t)got))) {
			if (st == BB_ERR_TOO_LARGE)
				bb_error_set(err, st, "gzip data decompresses to over %zu bytes",
					     max_out);
			else
				archive_nomem(err);
			goto out;
		}
	}
	if (got < 0) {
		const char *why = archive_error_string(a);

		st = bb_error_set(err, BB_ERR_PROTOCOL, "broken gzip data: %s",
				  why ? why : "truncated or damaged");
		goto out;
	}
	/* libarchive does not check the trailer: the CRC-32 and length of the
	 * last member (all of it, for the usual single member) */
	crc = le32(bytes + len - 8);
	isize = le32(bytes + len - 4);
	if (!(crc32_of((const unsigned char *)text.data, text.len) == crc &&
	      (uint32_t)text.len == isize) &&
	    !(isize <= text.len &&
	      crc32_of((const unsigned char *)text.data + text.len - isize, isize) == crc)) {
		st = bb_error_set(err, BB_ERR_PROTOCOL,
				  "broken gzip data: CRC or length does not match");
		goto out;
	}
	*out = buf_detach(&text, out_len);
out:
	if (a)
		archive_read_free(a);
	buf_release(&text);
	return st;
}

/* ---------------------------------------------------------------------------
 * Atom
 */

static const char atom_ns[] = "http://www.w3.org/2005/Atom";

static int is_atom(xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && n->name && !strcmp((const char *)n->name, name) &&
	       n->ns && n->ns->href && !strcmp((const char *)n->ns->href, atom_ns);
}

/* The text and CDATA children of a node, trimmed; entity references are
 * left out (never expanded).  NULL when out of memory or over max. */
static char *node_text(xmlNode *first, size_t max)
{
	struct buf b = BUF_INIT;
	size_t s = 0, e;

	buf_init_capped(&b, max);
	for (xmlNode *c = first; c; c = c->next)
		if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content &&
		    buf_addstr(&b, (const char *)c->content)) {
			buf_release(&b);
			return NULL;
		}
	while (s < b.len && strchr(" \t\r\n", b.data[s]))
		s++;
	e = b.len;
	while (e > s && strchr(" \t\r\n", b.data[e - 1]))
		e--;
	{
		char *text = malloc(e - s + 1);

		if (text) {
			memcpy(text, b.data + s, e - s);
			text[e - s] = '\0';
		}
		buf_release(&b);
		return text;
	}
}

static char *attr_text(xmlNode *n, const char *name, int *present)
{
	*present = 0;
	for (xmlAttr *a = n->properties; a; a = a->next)
		if (a->name && !strcmp((const char *)a->name, name) && !a->ns) {
			*present = 1;
			return node_text(a->children, 8192);
		}
	return NULL;
}

void archive_atom_entries_free(struct archive_atom_entry *entries, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(entries[i].id);
		free(entries[i].link);
	}
	free(entries);
}

static enum bb_status atom_entry(xmlNode *entry, struct archive_atom_entry *out)
{
	out->id = NULL;
	out->link = NULL;
	for (xmlNode *c = entry->children; c; c = c->next) {
		int present;

		if (!out->id && is_atom(c, "id")) {
			out->id = node_text(c->children, 4096);
			if (!out->id)
				return BB_ERR_TOO_LARGE;
		} else if (!out->link && is_atom(c, "link")) {
			char *rel = attr_text(c, "rel", &present);

			if (!present || (rel && !strcmp(rel, "alternate"))) {
				out->link = attr_text(c, "href", &present);
				if (present && !out->link) {
					free(rel);
					return BB_ERR_TOO_LARGE;
				}
			}
			free(rel);
		}
	}
	if (!out->link && !(out->link = strdup("")))
		return BB_ERR_NOMEM;
	return BB_OK;
}

enum bb_status archive_atom_parse(const char *data, size_t len,
				  struct archive_atom_entry **entries, size_t *count,
				  struct bb_error *err)
{
	xmlParserCtxtPtr ctxt = NULL;
	xmlDocPtr doc = NULL;
	xmlNode *root;
	struct archive_atom_entry *list = NULL;
	size_t n = 0, alloc = 0;
	enum bb_status st = BB_OK;

	*entries = NULL;
	*count = 0;
	if (len > INT_MAX)
		return bb_error_set(err, BB_ERR_TOO_LARGE, "Atom feed too large");
	xmlInitParser();
	ctxt = xmlNewParserCtxt();
	if (!ctxt)
		return archive_nomem(err);
	doc = xmlCtxtReadMemory(ctxt, data, (int)len, "new.atom", NULL,
				XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlCtxtGetLastError(ctxt);
		char message[160];

		run_clean_line(e && e->message ? e->message : "not well-formed",
			       strlen(e && e->message ? e->message : "not well-formed"), message,
			       sizeof(message));
		st = bb_error_set(err, BB_ERR_PROTOCOL, "not an Atom feed: %s (line %d)", message,
				  e ? e->line : 0);
		goto out;
	}
	if (doc->intSubset || doc->extSubset) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "not an Atom feed: it has a DTD");
		goto out;
	}
	root = xmlDocGetRootElement(doc);
	if (!root || !is_atom(root, "feed")) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "not an Atom feed: no Atom <feed> root");
		goto out;
	}
	for (xmlNode *c = root->children; c; c = c->next) {
		if (!is_atom(c, "entry"))
			continue;
		if (n == alloc) {
			size_t grow = alloc ? alloc * 2 : 32;
			struct archive_atom_entry *more;

			if (n >= ARCHIVE_ATOM_MAX_ENTRIES) {
				st = bb_error_set(err, BB_ERR_TOO_LARGE,
						  "Atom feed with over %d entries",
						  ARCHIVE_ATOM_MAX_ENTRIES);
				goto out;
			}
			more = realloc(list, grow * sizeof(*list));
			if (!more) {
				st = archive_nomem(err);
				goto out;
			}
			list = more;
			alloc = grow;
		}
		st = atom_entry(c, &list[n]);
		if (st == BB_OK && list[n].id && list[n].id[0]) {
			n++;
			continue;
		}
		free(list[n].id);
		free(list[n].link);
		if (st == BB_ERR_NOMEM) {
			archive_nomem(err);
			goto out;
		}
		st = BB_OK;   /* no id, or one too long: not an entry we can track */
	}
	if (n) {
		*entries = list;
		*count = n;
		list = NULL;
		n = 0;
	}
out:
	archive_atom_entries_free(list, n);
	if (doc)
		xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctxt);
	return st;
}

/* ---------------------------------------------------------------------------
 * Atom source and thread fetch over HTTP
 */

/* Appends s percent-encoded where it is not a safe URL path character;
 * keep_percent leaves existing %XX escapes alone. */
static enum bb_status url_path_escape(struct buf *url, const char *s, size_t len,
				      int keep_percent)
{
	gchar *part = g_strndup(s, len);
	gchar *escaped = g_uri_escape_string(part, keep_percent ? "!$&'()*+,;=:@%" : "!$&'()*+,;=:@",
					     FALSE);
	enum bb_status st = buf_addstr(url, escaped);

	g_free(escaped);
	g_free(part);
	return st;
}

/* <url>/<the last path segment of an entry's link>/raw.  public-inbox
 * links to <inbox>/<escaped Message-ID>/; only that segment is taken, so a
 * feed can never send us to another server. */
static enum bb_status entry_raw_url(struct archive_source *src, const char *link,
				    struct buf *url)
{
	size_t end = strcspn(link, "?#"), start;
	enum bb_status st;

	while (end && link[end - 1] == '/')
		end--;
	start = end;
	while (start && link[start - 1] != '/')
		start--;
	if (start == end || (end - start == 1 && link[start] == '.') ||
	    (end - start == 2 && !strncmp(link + start, "..", 2)))
		return BB_ERR_INVALID;
	buf_reset(url);
	if ((st = buf_addstr(url, src->url)) || (st = buf_addch(url, '/')) ||
	    (st = url_path_escape(url, link + start, end - start, 1)) ||
	    (st = buf_addstr(url, "/raw")))
		return st;
	return BB_OK;
}

struct atom_cursor {
	char (*hashes)[ARCHIVE_HASH_LEN + 1];
	size_t n;
};

static enum bb_status parse_atom_cursor(const char *cursor, struct atom_cursor *c,
					struct bb_error *err)
{
	const char *p;
	size_t n = 0;

	c->hashes = NULL;
	c->n = 0;
	if (!cursor)
		return BB_OK;
	if (strncmp(cursor, "atom:", 5))
		goto bad;
	p = cursor + 5;
	if (*p) {
		size_t len = strlen(p);

		if ((len + 1) % (ARCHIVE_HASH_LEN + 1))
			goto bad;
		n = (len + 1) / (ARCHIVE_HASH_LEN + 1);
	}
	c->hashes = calloc(n ? n : 1, sizeof(*c->hashes));
	if (!c->hashes)
		return archive_nomem(err);
	for (size_t i = 0; i < n; i++, p += ARCHIVE_HASH_LEN + 1) {
		if (!archive_is_hex_string(p, ARCHIVE_HASH_LEN) ||
		    (p[ARCHIVE_HASH_LEN] != ',' && p[ARCHIVE_HASH_LEN] != '\0')) {
			free(c->hashes);
			c->hashes = NULL;
			goto bad;
		}
		memcpy(c->hashes[i], p, ARCHIVE_HASH_LEN);
		c->hashes[i][ARCHIVE_HASH_LEN] = '\0';
	}
	c->n = n;
	return BB_OK;
bad:
	return bb_error_set(err, BB_ERR_INVALID, "not an Atom cursor (atom:<hash>,...): \"%.80s\"",
			    cursor);
}

/* "atom:" and the hashes of the entries marked done, in feed order. */
static char *atom_cursor_text(char (*hashes)[ARCHIVE_HASH_LEN + 1], const char *done,
			      size_t n)
{
	struct buf b = BUF_INIT;
	int first = 1;

	if (buf_addstr(&b, "atom:"))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!done[i])
			continue;
		if ((!first && buf_addch(&b, ',')) || buf_addstr(&b, hashes[i])) {
			buf_release(&b);
			return NULL;
		}
		first = 0;
	}
	return buf_detach(&b, NULL);
}

/* Hands over the message(s) of one /raw answer (an mboxrd of every message
 * with that Message-ID; or the bare message from a server that sends it as
 * it is).  All but the last get before as their position. */
struct raw_ctx {
	struct archive_source *src;
	archive_message_fn fn;
	void *ctx;
	const char *before, *after;
	struct buf pending;   /* the previous message, delivered once we know
			       * whether another follows */
	int have_pending;
	struct bb_error *err;
};

static enum bb_status raw_flush(struct raw_ctx *r, const char *position)
{
	enum bb_status st;

	if (!r->have_pending)
		return BB_OK;
	r->have_pending = 0;
	st = archive_deliver(r->src, r->fn, r->ctx, r->pending.data, r->pending.len, position,
			     r->err);
	buf_reset(&r->pending);
	return st;
}

static enum bb_status raw_on_message(void *ctx, const char *raw, size_t len, uint64_t end)
{
	struct raw_ctx *r = ctx;
	enum bb_status st;

	(void)end;
	if (!raw)
		return BB_OK;
	if ((st = raw_flush(r, r->before)))
		return st;
	if (buf_add(&r->pending, raw, len))
		return BB_ERR_NOMEM;
	r->have_pending = 1;
	return BB_OK;
}

static enum bb_status deliver_raw(struct archive_source *src, archive_message_fn fn, void *ctx,
				  const struct buf *body, const char *before, const char *after,
				  struct bb_error *err)
{
	struct raw_ctx r = { src, fn, ctx, before, after, BUF_INIT, 0, err };
	struct archive_mbox *m;
	enum bb_status st;

	if (body->len < 5 || memcmp(body->data, "From ", 5))
		return archive_deliver(src, fn, ctx, body->data, body->len, after, err);
	m = archive_mbox_new(0, src->max_message, raw_on_message, &r);
	if (!m)
		return archive_nomem(err);
	st = archive_mbox_feed(m, body->data, body->len, err);
	if (!st)
		st = archive_mbox_finish(m, 1, err);
	if (!st)
		st = raw_flush(&r, after);
	archive_mbox_free(m);
	buf_release(&r.pending);
	if (st == BB_ERR_NOMEM)
		archive_nomem(err);
	return st;
}

enum bb_status archive_poll_atom(struct archive_source *src, const char *cursor,
				 archive_message_fn fn, void *ctx, int tail, char **next_cursor,
				 struct bb_error *err)
{
	struct atom_cursor old = { NULL, 0 };
	struct archive_atom_entry *entries = NULL;
	char (*hashes)[ARCHIVE_HASH_LEN + 1] = NULL;
	char *done = NULL, *before = NULL, *after = NULL, *feed_url = NULL;
	struct buf body = BUF_INIT, url = BUF_INIT, raw = BUF_INIT;
	size_t n = 0, kept = 0;
	enum bb_status st;

	if ((st = parse_atom_cursor(cursor, &old, err)))
		goto out;
	if (!(feed_url = str_printf("%s/new.atom", src->url))) {
		st = archive_nomem(err);
		goto out;
	}
	if ((st = archive_http_get(src, feed_url, ARCHIVE_FEED_CAP, &body, err)))
		goto out;
	if ((st = archive_atom_parse(body.data, body.len, &entries, &n, err))) {
		char message[sizeof(err->message)];

		if (err) {
			snprintf(message, sizeof(message), "%s", err->message);
			bb_error_set(err, st, "%s: %s", feed_url, message);
		}
		goto out;
	}
	hashes = calloc(n ? n : 1, sizeof(*hashes));
	done = calloc(n ? n : 1, 1);
	if (!hashes || !done) {
		st = archive_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if ((st = archive_hash16(entries[i].id, strlen(entries[i].id), hashes[i])))
			goto out;
		for (size_t k = 0; k < old.n; k++)
			if (!strcmp(old.hashes[k], hashes[i])) {
				done[i] = 1;
				kept++;
				break;
			}
		if (tail)
			done[i] = 1;
	}
	if (old.n && !kept && n) {
		src->stats.gaps++;
		log_event(LOG_LEVEL_WARN, "archive.gap", LF_STR("url", feed_url),
			  LF_STR("reason", "no entry of the cursor is left in the feed"));
	}
	/* the feed is newest first: oldest new entry first */
	for (size_t k = n; k-- > 0;) {
		struct bb_error raw_err = BB_ERROR_INIT;

		if (done[k])
			continue;
		free(before);
		if (!(before = atom_cursor_text(hashes, done, n))) {
			st = archive_nomem(err);
			goto out;
		}
		done[k] = 1;
		free(after);
		if (!(after = atom_cursor_text(hashes, done, n))) {
			st = archive_nomem(err);
			goto out;
		}
		if (entry_raw_url(src, entries[k].link, &url)) {
			archive_log_skip(src, "no-usable-link", entries[k].id);
			continue;
		}
		st = archive_http_get(src, url.data, src->max_message + 65536, &raw, &raw_err);
		if (st == BB_ERR_NOT_FOUND || st == BB_ERR_TOO_LARGE) {
			archive_log_skip(src, st == BB_ERR_NOT_FOUND ? "gone" : "too-large",
					 url.data);
			st = BB_OK;
			continue;
		}
		if (st) {
			if (err)
				*err = raw_err;
			goto out;
		}
		if ((st = deliver_raw(src, fn, ctx, &raw, before, after, err)))
			goto out;
	}
	if (next_cursor && !(*next_cursor = atom_cursor_text(hashes, done, n)))
		st = archive_nomem(err);
out:
	free(old.hashes);
	archive_atom_entries_free(entries, n);
	free(hashes);
	free(done);
	free(before);
	free(after);
	free(feed_url);
	buf_release(&body);
	buf_release(&url);
	buf_release(&raw);
	return st;
}

struct thread_ctx {
	struct archive_source *src;
	archive_message_fn fn;
	void *ctx;
	struct bb_error *err;
};

static enum bb_status thread_on_message(void *ctx, const char *raw, size_t len, uint64_t end)
{
	struct thread_ctx *t = ctx;

	(void)end;
	if (!raw) {
		archive_log_skip(t->src, "too-large-or-empty", "t.mbox.gz");
		return BB_OK;
	}
	return archive_deliver(t->src, t->fn, t->ctx, raw, len, NULL, t->err);
}

enum bb_status archive_fetch_thread(struct archive_source *src, const char *message_id,
				    archive_message_fn fn, void *ctx, struct bb_error *err)
{
	struct buf url = BUF_INIT, gz = BUF_INIT;
	struct thread_ctx t = { src, fn, ctx, err };
	struct archive_mbox *m = NULL;
	char *text = NULL;
	size_t len, text_len;
	enum bb_status st;

	if ((src->kind != KIND_PUBLIC_INBOX && src->kind != KIND_ATOM) || src->local)
		return bb_error_set(err, BB_ERR_UNSUPPORTED,
				    "a local %s source has no thread download", archive_kind_name(src->kind));
	while (message_id && (*message_id == ' ' || *message_id == '\t' || *message_id == '<'))
		message_id++;
	len = message_id ? strlen(message_id) : 0;
	while (len && strchr(" \t\r\n>", message_id[len - 1]))
		len--;
	if (!len || len > 998)
		return bb_error_set(err, BB_ERR_INVALID, "no usable Message-ID");
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)message_id[i] < 0x21 || message_id[i] == 0x7f)
			return bb_error_set(err, BB_ERR_INVALID,
					    "a Message-ID with spaces or control characters");
	if ((st = buf_addstr(&url, src->url)) || (st = buf_addch(&url, '/')) ||
	    (st = url_path_escape(&url, message_id, len, 0)) ||
	    (st = buf_addstr(&url, "/t.mbox.gz"))) {
		st = archive_nomem(err);
		goto out;
	}
	if ((st = archive_http_get(src, url.data, ARCHIVE_THREAD_GZ_CAP, &gz, err)))
		goto out;
	if ((st = archive_gunzip(gz.data, gz.len, ARCHIVE_THREAD_CAP, &text, &text_len, err))) {
		char message[sizeof(err->message)];

		if (err) {
			snprintf(message, sizeof(message), "%s", err->message);
			bb_error_set(err, st, "%s: %s", url.data, message);
		}
		goto out;
	}
	buf_release(&gz);
	m = archive_mbox_new(0, src->max_message, thread_on_message, &t);
	if (!m) {
		st = archive_nomem(err);
		goto out;
	}
	if (!(st = archive_mbox_feed(m, text, text_len, err)))
		st = archive_mbox_finish(m, 1, err);
out:
	archive_mbox_free(m);
	free(text);
	buf_release(&url);
	buf_release(&gz);
	return st;
}
