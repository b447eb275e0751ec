/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bugzilla's XML export (bz_xml.h), read with libxml2's SAX2 push parser.
 *
 * Choices the header leaves open, made here:
 *
 *  - No tree is built: the input goes to xmlParseChunk() in slices of
 *    XML_SLICE bytes and the SAX callbacks keep only the bug being read, so
 *    memory grows with the largest bug, not with the export.  Attachment
 *    data is base64-decoded as it arrives and handed over in chunks.
 *  - Entities: the SAX handler declares nothing and resolves nothing.
 *    getEntity answers only the five predefined entities, getParameterEntity
 *    and resolveEntity answer nothing, the internal and external subset
 *    callbacks do nothing, and the options are XML_PARSE_NONET alone (no
 *    NOENT, DTDLOAD, DTDATTR).  A reference to any other entity is dropped
 *    (or, where XML makes it fatal, fails the read): no file, no network,
 *    no expansion.  libxml2 keeps internal entity declarations in a
 *    throw-away document for "expat compatibility"; it is freed here.
 *  - The input is repaired on its way in (repair()): NUL and other control
 *    bytes illegal in XML 1.0, and character references to such characters
 *    (&#1;), become U+FFFD.  An export that declares no encoding (Bugzilla
 *    3.x wrote raw Latin-1 text into such files) keeps its well-formed UTF-8
 *    and reads every other byte as Windows-1252, byte by byte, so a file
 *    that mixes both decodes right; one declared UTF-8 gets U+FFFD for bad
 *    bytes instead.  Other declared encodings are left to libxml2.
 *  - Times: bz_parse_time(), which reads the older forms Bugzilla 3 wrote
 *    too ("2003-07-03 12:26 EDT": no seconds, a zone abbreviation); here a
 *    zone it does not know reads as UTC.
 *  - Comments without <comment_count> (Bugzilla < 4) are numbered in the
 *    order they come; without <commentid> their id is 0.
 *  - A <bug> without a usable <bug_id> and without an error attribute is
 *    reported through not_found with the error "MissingBugId".
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <json-c/json.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/globals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <openssl/evp.h>

#include "bugzilla/bz_xml.h"
#include "core/buf.h"
#include "core/log.h"

#define XML_SLICE 65536               /* bytes read and parsed at a time */
#define XML_LOOKAHEAD 16              /* bytes a repair decision may look ahead */
#define XML_TEXT_MAX ((size_t)16 << 20) /* text kept of one element */
#define XML_NAME_MAX 128              /* longest element name acted upon */

static const char replacement_utf8[] = "\xEF\xBF\xBD";

/* ---- input repair ------------------------------------------------------ */

enum repair_mode {
	REPAIR_UTF8,          /* declared UTF-8: bad bytes become U+FFFD */
	REPAIR_UTF8_OR_1252,  /* nothing declared: bad bytes are Windows-1252 */
	REPAIR_BYTES,         /* another 8-bit encoding: control bytes only */
	REPAIR_NONE,          /* UTF-16 or UTF-32: left to libxml2 */
};

/* Windows-1252 0x80..0x9F; the five holes keep their Latin-1 meaning. */
static const unsigned short cp1252_high[32] = {
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

static enum bb_status put_code_point(struct buf *out, unsigned cp)
{
	char b[3];

	if (cp < 0x80)
		return buf_addch(out, (char)cp);
	if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		return buf_add(out, b, 2);
	}
	b[0] = (char)(0xE0 | (cp >> 12));
	b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
	b[2] = (char)(0x80 | (cp & 0x3F));
	return buf_add(out, b, 3);
}

static int xml_char_allowed(unsigned long cp)
{
	return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
	       (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

/* If s (n bytes) starts a character reference to a character XML 1.0
 * forbids, its length; 0 otherwise (also when it is not complete in n). */
static size_t bad_char_reference(const unsigned char *s, size_t n)
{
	size_t i = 2, digits = 0;
	unsigned long cp = 0;
	int hex;

	if (n < 4 || s[0] != '&' || s[1] != '#')
		return 0;
	hex = s[2] == 'x';
	if (hex)
		i++;
	for (; i < n && i < XML_LOOKAHEAD; i++, digits++) {
		unsigned d;

		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (hex && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (hex && s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			break;
		cp = cp * (hex ? 16 : 10) + d;
		if (cp > 0x10FFFF)
			cp = 0x110000;
	}
	if (!digits || i >= n || s[i] != ';')
		return 0;
	return xml_char_allowed(cp) ? 0 : i + 1;
}

/* Repairs in[0..len) into out, leaving up to XML_LOOKAHEAD bytes at the end
 * for the next call unless eof; *used gets the bytes consumed. */
static enum bb_status repair(enum repair_mode mode, const unsigned char *in, size_t len,
			     int eof, size_t *used, struct buf *out)
{
	const char *replacement = mode == REPAIR_BYTES ? "&#xFFFD;" : replacement_utf8;
	size_t limit = eof ? len : (len > XML_LOOKAHEAD ? len - XML_LOOKAHEAD : 0);
	size_t i = 0, run = 0, n;
	enum bb_status st = BB_OK;

	if (mode == REPAIR_NONE) {
		*used = limit;
		return buf_add(out, in, limit);
	}
	while (i < limit && !st) {
		unsigned char c = in[i];

		if (c == '&' && (n = bad_char_reference(in + i, len - i))) {
			st = buf_add(out, in + run, i - run);
			if (!st)
				st = buf_addstr(out, replacement);
			i += n;
			run = i;
			continue;
		}
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			st = buf_add(out, in + run, i - run);
			if (!st)
				st = buf_addstr(out, replacement);
			run = ++i;
			continue;
		}
		if (c < 0x80 || mode == REPAIR_BYTES) {
			i++;
			continue;
		}
		n = bz_utf8_sequence(in + i, len - i);
		/* U+FFFE and U+FFFF are not XML characters either */
		if (n == 3 && c == 0xEF && in[i + 1] == 0xBF && in[i + 2] >= 0xBE)
			n = 0;
		if (n) {
			i += n;
			continue;
		}
		st = buf_add(out, in + run, i - run);
		if (!st) {
			if (mode == REPAIR_UTF8_OR_1252)
				st = put_code_point(out, c < 0xA0 ? cp1252_high[c - 0x80] : c);
			else
				st = buf_addstr(out, replacement);
		}
		run = ++i;
	}
	if (!st)
		st = buf_add(out, in + run, i - run);
	*used = i;
	return st;
}

/* What the XML declaration says about the encoding. */
static enum repair_mode detect_mode(const unsigned char *p, size_t len)
{
	const char *decl, *end, *enc;
	char name[40];
	size_t n = 0;
	char quote;

	if (len >= 2 && ((p[0] == 0xFE && p[1] == 0xFF) || (p[0] == 0xFF && p[1] == 0xFE) ||
			 (p[0] == 0 && p[1] == '<') || (p[0] == '<' && p[1] == 0)))
		return REPAIR_NONE;
	if (len >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
		p += 3;
		len -= 3;
	}
	if (len < 6 || memcmp(p, "<?xml", 5))
		return REPAIR_UTF8_OR_1252;
	decl = (const char *)p;
	end = memchr(decl, '>', len < 512 ? len : 512);
	if (!end)
		return REPAIR_UTF8_OR_1252;
	for (enc = decl; enc + 8 < end && memcmp(enc, "encoding", 8); enc++)
		;
	if (enc + 8 >= end)
		return REPAIR_UTF8_OR_1252;
	enc += 8;
	while (enc < end && (*enc == ' ' || *enc == '=' || *enc == '\t'))
		enc++;
	if (enc >= end || (*enc != '"' && *enc != '\''))
		return REPAIR_UTF8_OR_1252;
	quote = *enc++;
	while (enc < end && *enc != quote && n < sizeof(name) - 1)
		name[n++] = *enc++;
	name[n] = '\0';
	if (!strcasecmp(name, "UTF-8") || !strcasecmp(name, "UTF8"))
		return REPAIR_UTF8;
	if (!strncasecmp(name, "UTF-16", 6) || !strncasecmp(name, "UTF-32", 6) ||
	    !strncasecmp(name, "UCS", 3))
		return REPAIR_NONE;
	return REPAIR_BYTES;
}

/* ---- times ------------------------------------------------------------- */

/* Bugzilla's time in any form its exports used; 0 if unreadable. */
static time_t xml_time(const char *text)
{
	time_t t = bz_parse_time_as(text, BZ_TIME_UNKNOWN_ZONE_UTC);

	return t == (time_t)-1 ? 0 : t;
}

/* ---- the reader -------------------------------------------------------- */

/* The bug's lists of strings, grown in GPtrArrays while it is read. */
enum xml_list { LIST_KEYWORDS, LIST_GROUPS, LIST_CC, LIST_ALIAS, LIST_COUNT };

struct xml_reader {
	const struct bz_xml_callbacks *cb;
	xmlParserCtxtPtr ctxt;
	enum bb_status st;            /* first failure: memory or a callback's */
	char error[256];              /* first parse error, with its line */
	int depth;
	int seen_root;
	/* the bug being read */
	struct bz_bug *bug;
	GPtrArray *lists[LIST_COUNT]; /* its lists, malloc'd items; bug_end() moves them */
	char *bug_error;              /* its error="" attribute */
	size_t comments_alloc, attachments_alloc;
	int in_comment, in_attachment;
	int comment_has_count;
	struct bz_comment comment;
	struct bz_attachment attachment;
	/* the element whose text is being collected */
	int collecting, leaf_depth;
	char leaf[XML_NAME_MAX];
	char *leaf_real_name;         /* its name="" attribute */
	struct buf text;
	/* attachment data */
	int in_data, data_depth, data_bad;
	EVP_ENCODE_CTX *b64;
	unsigned char *decoded;
	size_t decoded_alloc;
};

static void reader_fail(struct xml_reader *r, enum bb_status st)
{
	if (!r->st)
		r->st = st;
	xmlStopParser(r->ctxt);
}

static char *dup_or_fail(struct xml_reader *r, const char *s)
{
	char *copy = strdup(s ? s : "");

	if (!copy)
		reader_fail(r, BB_ERR_NOMEM);
	return copy;
}

static void set_string(struct xml_reader *r, char **dst, const char *s)
{
	char *copy = dup_or_fail(r, s);

	if (!copy)
		return;
	free(*dst);
	*dst = copy;
}

/* Without entity substitution libxml2 hands "&amp;" in an attribute value
 * over as "&#38;" (so a tree could keep the reference): undo that. */
static void unescape_ampersands(char *v)
{
	char *in = v, *out = v;

	while (*in) {
		if (!strncmp(in, "&#38;", 5)) {
			*out++ = '&';
			in += 5;
		} else {
			*out++ = *in++;
		}
	}
	*out = '\0';
}

/* The value of attribute name among SAX2's (localname, prefix, URI, value,
 * end) quintuples, malloc'd, or NULL. */
static char *attribute(struct xml_reader *r, const xmlChar **attrs, int n, const char *name)
{
	for (int i = 0; i < n; i++) {
		const xmlChar **a = attrs + 5 * i;

		if (!strcmp((const char *)a[0], name)) {
			size_t len = (size_t)(a[4] - a[3]);
			char *v = malloc(len + 1);

			if (!v) {
				reader_fail(r, BB_ERR_NOMEM);
				return NULL;
			}
			memcpy(v, a[3], len);
			v[len] = '\0';
			unescape_ampersands(v);
			return v;
		}
	}
	return NULL;
}

static int attribute_flag(struct xml_reader *r, const xmlChar **attrs, int n, const char *name)
{
	char *v = attribute(r, attrs, n, name);
	int flag = v && atoi(v) != 0;

	free(v);
	return flag;
}

static long long parse_id(const char *text)
{
	char *end;
	long long x;

	while (*text == ' ' || *text == '\n' || *text == '\t' || *text == '\r')
		text++;
	errno = 0;
	x = strtoll(text, &end, 10);
	if (end == text || errno || x <= 0)
		return 0;
	while (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r')
		end++;
	return *end ? 0 : x;
}

/* Appends item to a NULL-terminated list. */
static void list_append(struct xml_reader *r, enum xml_list which, const char *item, size_t len)
{
	char *copy = strndup(item, len);

	if (!copy) {
		reader_fail(r, BB_ERR_NOMEM);
		return;
	}
	g_ptr_array_add(r->lists[which], copy);
}

/* Frees the items of the bug's lists and empties them. */
static void lists_clear(struct xml_reader *r)
{
	for (size_t i = 0; i < LIST_COUNT; i++) {
		for (guint k = 0; r->lists[i] && k < r->lists[i]->len; k++)
			free(g_ptr_array_index(r->lists[i], k));
		if (r->lists[i])
			g_ptr_array_set_size(r->lists[i], 0);
	}
}

/* Moves the lists into b as NULL-terminated malloc'd arrays. */
static void lists_move(struct xml_reader *r, struct bz_bug *b)
{
	char ***to[LIST_COUNT] = { &b->keywords, &b->groups, &b->cc, &b->alias };

	for (size_t i = 0; i < LIST_COUNT; i++) {
		GPtrArray *a = r->lists[i];

		if (!(*to[i] = calloc(a->len + 1, sizeof(char *)))) {
			reader_fail(r, BB_ERR_NOMEM);
			break;
		}
		if (a->len)
			memcpy(*to[i], a->pdata, a->len * sizeof(char *));
		g_ptr_array_set_size(a, 0);
	}
	lists_clear(r); /* what could not be moved */
}

/* "a, b,c" -> a, b, c */
static void keywords_append(struct xml_reader *r, const char *text)
{
	const char *p = text;

	while (*p && !r->st) {
		size_t len;

		while (*p == ' ' || *p == ',' || *p == '\n' || *p == '\t')
			p++;
		len = strcspn(p, ",");
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\n' || p[len - 1] == '\t'))
			len--;
		if (len)
			list_append(r, LIST_KEYWORDS, p, len);
		p += strcspn(p, ",");
	}
}

/* One <alias> per alias (Bugzilla 5); a 4.x export has at most one.  An
 * empty element is no alias. */
static void alias_append(struct xml_reader *r, const char *text)
{
	size_t len;

	while (*text == ' ' || *text == '\n' || *text == '\t' || *text == '\r')
		text++;
	len = strlen(text);
	while (len && (text[len - 1] == ' ' || text[len - 1] == '\n' || text[len - 1] == '\t' ||
		       text[len - 1] == '\r'))
		len--;
	if (len)
		list_append(r, LIST_ALIAS, text, len);
}

/* One <dependson> or <blocked> per bug id. */
static void id_append(struct xml_reader *r, long long **ids, size_t *n, const char *text)
{
	if (bz_bug_ids_add(ids, n, parse_id(text)))
		reader_fail(r, BB_ERR_NOMEM);
}

static void field_set(struct xml_reader *r, const char *name, const char *value)
{
	struct bz_bug *b = r->bug;
	struct bz_field *fields;
	char *joined;

	for (size_t i = 0; i < b->nfields; i++) {
		if (strcmp(b->fields[i].name, name))
			continue;
		/* a multi-select field repeats its element */
		joined = str_printf("%s, %s", b->fields[i].value, value);
		if (!joined) {
			reader_fail(r, BB_ERR_NOMEM);
			return;
		}
		free(b->fields[i].value);
		b->fields[i].value = joined;
		return;
	}
	fields = realloc(b->fields, (b->nfields + 1) * sizeof(*fields));
	if (!fields) {
		reader_fail(r, BB_ERR_NOMEM);
		return;
	}
	b->fields = fields;
	fields[b->nfields].name = dup_or_fail(r, name);
	fields[b->nfields].value = dup_or_fail(r, value);
	if (!fields[b->nfields].name || !fields[b->nfields].value) {
		free(fields[b->nfields].name);
		free(fields[b->nfields].value);
		return;
	}
	b->nfields++;
}

static void user_set(struct xml_reader *r, struct bz_user *u, const char *login)
{
	set_string(r, &u->login, login);
	set_string(r, &u->real_name, r->leaf_real_name ? r->leaf_real_name : "");
}

/* The text of a field of the bug itself. */
static void bug_field_end(struct xml_reader *r, const char *name, const char *text)
{
	static const char *const elements[] = {
		"short_desc", "product", "component", "bug_status", "resolution",
		"bug_severity", "priority", "version", "bug_file_loc",
		"target_milestone", "op_sys", "rep_platform",
	};
	struct bz_bug *b = r->bug;
	char **strings[] = {
		&b->summary, &b->product, &b->component, &b->status, &b->resolution,
		&b->severity, &b->priority, &b->version, &b->url,
		&b->target_milestone, &b->op_sys, &b->platform,
	};

	for (size_t i = 0; i < sizeof(elements) / sizeof(elements[0]); i++) {
		if (!strcmp(name, elements[i])) {
			set_string(r, strings[i], text);
			return;
		}
	}
	if (!strcmp(name, "bug_id"))
		b->id = parse_id(text);
	else if (!strcmp(name, "reporter"))
		user_set(r, &b->creator, text);
	else if (!strcmp(name, "assigned_to"))
		user_set(r, &b->assigned_to, text);
	else if (!strcmp(name, "qa_contact"))
		user_set(r, &b->qa_contact, text);
	else if (!strcmp(name, "alias"))
		alias_append(r, text);
	else if (!strcmp(name, "dependson"))
		id_append(r, &b->depends_on, &b->ndepends_on, text);
	else if (!strcmp(name, "blocked"))
		id_append(r, &b->blocks, &b->nblocks, text);
	else if (!strcmp(name, "creation_ts"))
		b->creation_time = xml_time(text);
	else if (!strcmp(name, "delta_ts"))
		b->last_change_time = xml_time(text);
	else if (!strcmp(name, "keywords"))
		keywords_append(r, text);
	else if (!strcmp(name, "group"))
		list_append(r, LIST_GROUPS, text, strlen(text));
	else if (!strcmp(name, "cc"))
		list_append(r, LIST_CC, text, strlen(text));
	else if (!strcmp(name, "dup_id"))
		b->dupe_of = parse_id(text);
	else if (!strncmp(name, "cf_", 3))
		field_set(r, name, text);
}

static void comment_field_end(struct xml_reader *r, const char *name, const char *text)
{
	struct bz_comment *cm = &r->comment;
	long long count;

	if (!strcmp(name, "commentid")) {
		cm->id = parse_id(text);
	} else if (!strcmp(name, "comment_count")) {
		count = parse_id(text);   /* 0 reads as "none": the description */
		cm->count = count > 0 && count < INT32_MAX ? (int)count : 0;
		r->comment_has_count = 1;
	} else if (!strcmp(name, "who")) {
		user_set(r, &cm->author, text);
	} else if (!strcmp(name, "bug_when")) {
		cm->time = xml_time(text);
	} else if (!strcmp(name, "thetext")) {
		set_string(r, &cm->text, text);
	} else if (!strcmp(name, "attachid")) {
		cm->attachment_id = parse_id(text);
	}
}

static void attachment_field_end(struct xml_reader *r, const char *name, const char *text)
{
	struct bz_attachment *a = &r->attachment;
	long long size;

	if (!strcmp(name, "attachid")) {
		a->id = parse_id(text);
	} else if (!strcmp(name, "date")) {
		a->creation_time = xml_time(text);
	} else if (!strcmp(name, "filename")) {
		set_string(r, &a->file_name, text);
	} else if (!strcmp(name, "desc")) {
		set_string(r, &a->summary, text);
	} else if (!strcmp(name, "type")) {
		set_string(r, &a->content_type, text);
	} else if (!strcmp(name, "size")) {
		size = parse_id(text);
		a->size = size > 0 ? (uint64_t)size : 0;
	} else if (!strcmp(name, "attacher")) {
		user_set(r, &a->creator, text);
	}
}

static void comment_release(struct bz_comment *cm)
{
	free(cm->author.login);
	free(cm->author.real_name);
	free(cm->text);
	memset(cm, 0, sizeof(*cm));
}

static void attachment_release(struct bz_attachment *a)
{
	free(a->file_name);
	free(a->summary);
	free(a->content_type);
	free(a->creator.login);
	free(a->creator.real_name);
	memset(a, 0, sizeof(*a));
}

static void comment_end(struct xml_reader *r)
{
	struct bz_bug *b = r->bug;
	struct bz_comment *cm = &r->comment;

	r->in_comment = 0;
	if (!r->comment_has_count)
		cm->count = b->ncomments <= INT32_MAX ? (int)b->ncomments : INT32_MAX;
	if (!cm->author.login)
		cm->author.login = dup_or_fail(r, "");
	if (!cm->author.real_name)
		cm->author.real_name = dup_or_fail(r, "");
	if (!cm->text)
		cm->text = dup_or_fail(r, "");
	if (!r->st && b->ncomments == r->comments_alloc) {
		size_t alloc = r->comments_alloc ? r->comments_alloc * 2 : 16;
		struct bz_comment *grown = realloc(b->comments, alloc * sizeof(*grown));

		if (!grown)
			reader_fail(r, BB_ERR_NOMEM);
		else {
			b->comments = grown;
			r->comments_alloc = alloc;
		}
	}
	if (r->st) {
		comment_release(cm);
		return;
	}
	b->comments[b->ncomments++] = *cm;
	memset(cm, 0, sizeof(*cm));
}

static void attachment_end(struct xml_reader *r)
{
	struct bz_bug *b = r->bug;
	struct bz_attachment *a = &r->attachment;
	char **strings[] = { &a->file_name, &a->summary, &a->content_type,
			     &a->creator.login, &a->creator.real_name };

	r->in_attachment = 0;
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (!*strings[i])
			*strings[i] = dup_or_fail(r, "");
	if (!r->st && b->nattachments == r->attachments_alloc) {
		size_t alloc = r->attachments_alloc ? r->attachments_alloc * 2 : 8;
		struct bz_attachment *grown = realloc(b->attachments, alloc * sizeof(*grown));

		if (!grown)
			reader_fail(r, BB_ERR_NOMEM);
		else {
			b->attachments = grown;
			r->attachments_alloc = alloc;
		}
	}
	if (r->st) {
		attachment_release(a);
		return;
	}
	b->attachments[b->nattachments++] = *a;
	memset(a, 0, sizeof(*a));
}

static int comment_order_cmp(const void *x, const void *y)
{
	const struct bz_comment *a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Gives every string of the bug a value, as bug.h promises. */
static void bug_defaults(struct xml_reader *r, struct bz_bug *b)
{
	char **strings[] = {
		&b->summary, &b->product, &b->component, &b->status, &b->resolution,
		&b->severity, &b->priority, &b->version, &b->url,
		&b->creator.login, &b->creator.real_name,
		&b->assigned_to.login, &b->assigned_to.real_name,
		&b->qa_contact.login, &b->qa_contact.real_name,
		&b->target_milestone, &b->op_sys, &b->platform,
	};
	char ***lists[] = { &b->keywords, &b->groups, &b->cc, &b->alias };

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (!*strings[i])
			*strings[i] = dup_or_fail(r, "");
	bz_bug_ids_tidy(b->depends_on, &b->ndepends_on);
	bz_bug_ids_tidy(b->blocks, &b->nblocks);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		if (!*lists[i]) {
			*lists[i] = calloc(1, sizeof(char *));
			if (!*lists[i])
				reader_fail(r, BB_ERR_NOMEM);
		}
	}
}

static void bug_end(struct xml_reader *r)
{
	struct bz_bug *b = r->bug;
	enum bb_status st = BB_OK;

	r->bug = NULL;
	lists_move(r, b);
	for (size_t i = 0; i < b->ncomments; i++)
		b->comments[i].bug_id = b->id;
	for (size_t i = 0; i < b->nattachments; i++)
		b->attachments[i].bug_id = b->id;
	if (r->bug_error || !b->id) {
		if (r->cb->not_found)
			st = r->cb->not_found(r->cb->ctx, b->id,
					      r->bug_error ? r->bug_error : "MissingBugId");
		bz_bug_free(b);
	} else {
		bug_defaults(r, b);
		if (r->st) {
			bz_bug_free(b);
			return;
		}
		if (b->ncomments > 1)
			qsort(b->comments, b->ncomments, sizeof(*b->comments), comment_order_cmp);
		if (r->cb->bug)
			st = r->cb->bug(r->cb->ctx, b);   /* the callee owns b now */
		else
			bz_bug_free(b);
	}
	free(r->bug_error);
	r->bug_error = NULL;
	if (st)
		reader_fail(r, st);
}

static void data_chunk(struct xml_reader *r, const unsigned char *in, int len)
{
	size_t want = ((size_t)len + 80) / 4 * 3 + 3;
	int outl = 0;
	enum bb_status st;

	if (r->data_bad)
		return;
	if (want > r->decoded_alloc) {
		unsigned char *grown = realloc(r->decoded, want);

		if (!grown) {
			reader_fail(r, BB_ERR_NOMEM);
			return;
		}
		r->decoded = grown;
		r->decoded_alloc = want;
	}
	if (EVP_DecodeUpdate(r->b64, r->decoded, &outl, in, len) < 0) {
		r->data_bad = 1;
		log_event(LOG_LEVEL_WARN, "bz.xml.bad_attachment_data",
			  LF_INT("bug", r->bug->id), LF_INT("attachment", r->attachment.id));
		return;
	}
	if (outl > 0) {
		st = r->cb->attachment_data(r->cb->ctx, r->bug->id, r->attachment.id,
					    r->decoded, (size_t)outl);
		if (st)
			reader_fail(r, st);
	}
}

static void data_end(struct xml_reader *r)
{
	int outl = 0;
	enum bb_status st;

	r->in_data = 0;
	if (r->data_bad)
		return;
	if (r->decoded_alloc < 80) {
		unsigned char *grown = realloc(r->decoded, 80);

		if (!grown) {
			reader_fail(r, BB_ERR_NOMEM);
			return;
		}
		r->decoded = grown;
		r->decoded_alloc = 80;
	}
	if (EVP_DecodeFinal(r->b64, r->decoded, &outl) < 0) {
		log_event(LOG_LEVEL_WARN, "bz.xml.bad_attachment_data",
			  LF_INT("bug", r->bug->id), LF_INT("attachment", r->attachment.id));
		return;
	}
	st = outl > 0 ? r->cb->attachment_data(r->cb->ctx, r->bug->id, r->attachment.id,
					       r->decoded, (size_t)outl) : BB_OK;
	if (!st)   /* the end of this attachment's bytes */
		st = r->cb->attachment_data(r->cb->ctx, r->bug->id, r->attachment.id, NULL, 0);
	if (st)
		reader_fail(r, st);
}

static void leaf_start(struct xml_reader *r, const char *name, const xmlChar **attrs,
		       int nattrs)
{
	if (strlen(name) >= sizeof(r->leaf))
		return;
	strcpy(r->leaf, name);
	r->collecting = 1;
	r->leaf_depth = r->depth;
	buf_reset(&r->text);
	free(r->leaf_real_name);
	r->leaf_real_name = attribute(r, attrs, nattrs, "name");
}

/* A bug's <flag name= status= setter= requestee=/>, appended to
 * bug->flags (JSON text, as the REST reader writes it). */
static void bug_flag(struct xml_reader *r, const xmlChar **attrs, int n)
{
	static const char *const keys[] = { "name", "status", "setter", "requestee" };
	json_object *list = r->bug->flags ? json_tokener_parse(r->bug->flags)
					  : json_object_new_array();
	json_object *flag = json_object_new_object();
	char *text;

	if (!list || !flag || json_object_array_add(list, flag)) {
		json_object_put(flag);
		goto fail;
	}
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		char *v = attribute(r, attrs, n, keys[k]);
		json_object *jv = json_object_new_string(v ? v : "");

		free(v);
		if (!jv || json_object_object_add(flag, keys[k], jv)) {
			json_object_put(jv);
			goto fail;
		}
	}
	text = strdup(json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!text)
		goto fail;
	free(r->bug->flags);
	r->bug->flags = text;
	json_object_put(list);
	return;
fail:
	json_object_put(list);
	reader_fail(r, BB_ERR_NOMEM);
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix,
		     const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
		     int nb_attributes, int nb_defaulted, const xmlChar **attrs)
{
	struct xml_reader *r = ctx;
	const char *name = (const char *)localname;
	char *encoding;

	(void)prefix;
	(void)uri;
	(void)nb_namespaces;
	(void)namespaces;
	(void)nb_defaulted;
	r->depth++;
	if (r->st)
		return;
	if (r->depth == 1) {
		if (strcmp(name, "bugzilla")) {
			snprintf(r->error, sizeof(r->error),
				 "line %d: not a Bugzilla export (root element <%.64s>)",
				 xmlSAX2GetLineNumber(r->ctxt), name);
			reader_fail(r, BB_ERR_INVALID);
			return;
		}
		r->seen_root = 1;
	} else if (r->depth == 2 && !strcmp(name, "bug")) {
		r->bug = calloc(1, sizeof(*r->bug));
		if (!r->bug) {
			reader_fail(r, BB_ERR_NOMEM);
			return;
		}
		r->comments_alloc = r->attachments_alloc = 0;
		r->bug_error = attribute(r, attrs, nb_attributes, "error");
	} else if (r->depth == 3 && r->bug) {
		if (!strcmp(name, "long_desc")) {
			r->in_comment = 1;
			r->comment_has_count = 0;
			r->comment.is_private = attribute_flag(r, attrs, nb_attributes, "isprivate");
		} else if (!strcmp(name, "attachment")) {
			r->in_attachment = 1;
			r->attachment.is_private = attribute_flag(r, attrs, nb_attributes, "isprivate");
			r->attachment.is_obsolete = attribute_flag(r, attrs, nb_attributes, "isobsolete");
			r->attachment.is_patch = attribute_flag(r, attrs, nb_attributes, "ispatch");
		} else if (!strcmp(name, "flag")) {
			bug_flag(r, attrs, nb_attributes);
		} else {
			leaf_start(r, name, attrs, nb_attributes);
		}
	} else if (r->depth == 4 && r->bug && (r->in_comment || r->in_attachment)) {
		if (r->in_attachment && !strcmp(name, "data")) {
			encoding = attribute(r, attrs, nb_attributes, "encoding");
			if (r->cb->attachment_data && (!encoding || !strcmp(encoding, "base64"))) {
				enum bb_status bst = BB_OK;

				if (r->cb->attachment_begin)
					bst = r->cb->attachment_begin(
						r->cb->ctx, r->bug->id, r->attachment.id,
						!r->attachment.is_private && bz_bug_is_public(r->bug));
				if (bst) {
					free(encoding);
					reader_fail(r, bst);
					return;
				}
				r->in_data = 1;
				r->data_depth = r->depth;
				r->data_bad = 0;
				EVP_DecodeInit(r->b64);
			}
			free(encoding);
		} else {
			leaf_start(r, name, attrs, nb_attributes);
		}
	}
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix,
		   const xmlChar *uri)
{
	struct xml_reader *r = ctx;

	(void)localname;
	(void)prefix;
	(void)uri;
	if (!r->st) {
		if (r->in_data && r->depth == r->data_depth) {
			data_end(r);
		} else if (r->collecting && r->depth == r->leaf_depth) {
			r->collecting = 0;
			if (r->depth == 3)
				bug_field_end(r, r->leaf, r->text.data);
			else if (r->in_comment)
				comment_field_end(r, r->leaf, r->text.data);
			else if (r->in_attachment)
				attachment_field_end(r, r->leaf, r->text.data);
			free(r->leaf_real_name);
			r->leaf_real_name = NULL;
		} else if (r->depth == 3 && r->in_comment) {
			comment_end(r);
		} else if (r->depth == 3 && r->in_attachment) {
			attachment_end(r);
		} else if (r->depth == 2 && r->bug) {
			bug_end(r);
		}
	}
	r->depth--;
}

static void on_text(void *ctx, const xmlChar *ch, int len)
{
	struct xml_reader *r = ctx;

	if (r->st || len <= 0)
		return;
	if (r->in_data && r->depth == r->data_depth) {
		data_chunk(r, ch, len);
	} else if (r->collecting && r->depth == r->leaf_depth) {
		/* past the cap the text is cut, not the read */
		if (buf_add(&r->text, ch, (size_t)len) == BB_ERR_NOMEM)
			reader_fail(r, BB_ERR_NOMEM);
	}
}

static xmlEntityPtr on_get_entity(void *ctx, const xmlChar *name)
{
	(void)ctx;
	return xmlGetPredefinedEntity(name);
}

static xmlEntityPtr on_get_parameter_entity(void *ctx, const xmlChar *name)
{
	(void)ctx;
	(void)name;
	return NULL;
}

static xmlParserInputPtr on_resolve_entity(void *ctx, const xmlChar *public_id,
					   const xmlChar *system_id)
{
	(void)ctx;
	(void)public_id;
	(void)system_id;
	return NULL;
}

static void on_subset(void *ctx, const xmlChar *name, const xmlChar *external_id,
		      const xmlChar *system_id)
{
	(void)ctx;
	(void)name;
	(void)external_id;
	(void)system_id;
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
			   const xmlChar *system_id, xmlChar *content)
{
	(void)ctx;
	(void)name;
	(void)type;
	(void)public_id;
	(void)system_id;
	(void)content;
}

static void on_reference(void *ctx, const xmlChar *name)
{
	(void)ctx;
	(void)name;
}

static void on_error(void *ctx, xmlErrorPtr e)
{
	struct xml_reader *r = ctx;
	size_t n;

	if (!e || e->level < XML_ERR_ERROR || r->error[0])
		return;
	snprintf(r->error, sizeof(r->error), "line %d: %s", e->line,
		 e->message ? e->message : "malformed XML");
	n = strlen(r->error);
	while (n && (r->error[n - 1] == '\n' || r->error[n - 1] == ' '))
		r->error[--n] = '\0';
}

/* Errors libxml2 raises outside the parser context (a failed charset
 * conversion) go to its thread's generic channel, which prints to stderr
 * unless told otherwise: they go to the reader instead. */
__attribute__((format(printf, 2, 3)))
static void on_generic_error(void *ctx, const char *fmt, ...)
{
	struct xml_reader *r = ctx;

	(void)fmt;
	if (!r->error[0])
		snprintf(r->error, sizeof(r->error), "line %d: character conversion failed",
			 r->ctxt ? xmlSAX2GetLineNumber(r->ctxt) : 0);
}

static void reader_release(struct xml_reader *r)
{
	if (r->bug)
		bz_bug_free(r->bug);
	lists_clear(r);
	for (size_t i = 0; i < LIST_COUNT; i++)
		if (r->lists[i])
			g_ptr_array_free(r->lists[i], TRUE);
	comment_release(&r->comment);
	attachment_release(&r->attachment);
	free(r->bug_error);
	free(r->leaf_real_name);
	buf_release(&r->text);
	EVP_ENCODE_CTX_free(r->b64);
	free(r->decoded);
	if (r->ctxt) {
		if (r->ctxt->myDoc)
			xmlFreeDoc(r->ctxt->myDoc);   /* entity declarations, see the top */
		r->ctxt->myDoc = NULL;
		xmlFreeParserCtxt(r->ctxt);
	}
}

/* Where the bytes come from: memory or a file descriptor. */
struct xml_source {
	const char *data;
	size_t len, pos;
	int fd;
	const char *path;
};

/* Reads up to want bytes into out; *eof when the source is exhausted. */
static enum bb_status source_read(struct xml_source *s, struct buf *out, size_t want, int *eof,
				  struct bb_error *err)
{
	enum bb_status st;
	ssize_t got;
	size_t n;

	if (s->fd < 0) {
		n = s->len - s->pos < want ? s->len - s->pos : want;
		st = buf_add(out, s->data + s->pos, n);
		if (st)
			return bb_error_set(err, st, "out of memory");
		s->pos += n;
		*eof = s->pos == s->len;
		return BB_OK;
	}
	st = buf_grow(out, want);
	if (st)
		return bb_error_set(err, st, "out of memory");
	while (want) {
		do {
			got = read(s->fd, out->data + out->len, want);
		} while (got < 0 && errno == EINTR);
		if (got < 0)
			return bb_error_errno(err, errno, "reading %s", s->path);
		if (got == 0) {
			*eof = 1;
			break;
		}
		out->len += (size_t)got;
		want -= (size_t)got;
	}
	out->data[out->len] = '\0';
	return BB_OK;
}

static enum bb_status read_export(struct xml_source *src, const struct bz_xml_callbacks *cb,
				  struct bb_error *err)
{
	xmlSAXHandler sax;
	struct xml_reader r;
	struct buf raw = BUF_INIT, fixed = BUF_INIT;
	enum repair_mode mode = REPAIR_UTF8_OR_1252;
	enum bb_status st = BB_OK;
	int eof = 0, first = 1, handlers_set = 0;
	size_t used;
	xmlGenericErrorFunc saved_generic = NULL;
	void *saved_generic_ctx = NULL;
	xmlStructuredErrorFunc saved_structured = NULL;
	void *saved_structured_ctx = NULL;

	memset(&r, 0, sizeof(r));
	r.cb = cb;
	for (size_t i = 0; i < LIST_COUNT; i++)
		r.lists[i] = g_ptr_array_new();
	buf_init_capped(&r.text, XML_TEXT_MAX);
	memset(&sax, 0, sizeof(sax));
	sax.initialized = XML_SAX2_MAGIC;
	sax.startElementNs = on_start;
	sax.endElementNs = on_end;
	sax.characters = on_text;
	sax.cdataBlock = on_text;
	sax.ignorableWhitespace = on_text;
	sax.getEntity = on_get_entity;
	sax.getParameterEntity = on_get_parameter_entity;
	sax.resolveEntity = on_resolve_entity;
	sax.internalSubset = on_subset;
	sax.externalSubset = on_subset;
	sax.entityDecl = on_entity_decl;
	sax.reference = on_reference;
	sax.serror = on_error;
	if (!cb) {
		st = bb_error_set(err, BB_ERR_INVALID, "no callbacks for the XML reader");
		goto out;
	}
	r.b64 = EVP_ENCODE_CTX_new();
	if (!r.b64) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	xmlInitParser();
	saved_generic = xmlGenericError;
	saved_generic_ctx = xmlGenericErrorContext;
	saved_structured = xmlStructuredError;
	saved_structured_ctx = xmlStructuredErrorContext;
	xmlSetGenericErrorFunc(&r, on_generic_error);
	xmlSetStructuredErrorFunc(&r, on_error);
	handlers_set = 1;
	r.ctxt = xmlCreatePushParserCtxt(&sax, &r, NULL, 0, NULL);
	if (!r.ctxt) {
		st = bb_error_set(err, BB_ERR_NOMEM, "libxml2 cannot make a parser");
		goto out;
	}
	xmlCtxtUseOptions(r.ctxt, XML_PARSE_NONET);
	while (!eof) {
		st = source_read(src, &raw, XML_SLICE, &eof, err);
		if (st)
			goto out;
		if (first) {
			mode = detect_mode((const unsigned char *)raw.data, raw.len);
			first = 0;
		}
		buf_reset(&fixed);
		st = repair(mode, (const unsigned char *)raw.data, raw.len, eof, &used, &fixed);
		if (st) {
			st = bb_error_set(err, st, "out of memory");
			goto out;
		}
		memmove(raw.data, raw.data + used, raw.len - used);
		buf_truncate(&raw, raw.len - used);
		xmlParseChunk(r.ctxt, fixed.data, (int)fixed.len, eof);
		if (r.st || !r.ctxt->wellFormed || r.ctxt->disableSAX)
			break;
	}
	if (r.st == BB_ERR_INVALID && r.error[0]) {
		st = bb_error_set(err, BB_ERR_INVALID, "%s", r.error);
	} else if (r.st == BB_ERR_NOMEM) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory reading a Bugzilla export");
	} else if (r.st) {
		st = bb_error_set(err, r.st, "the XML reader was stopped (%s)", status_str(r.st));
	} else if (!r.ctxt->wellFormed) {
		st = bb_error_set(err, BB_ERR_INVALID, "malformed Bugzilla export: %s",
				  r.error[0] ? r.error : "not well-formed");
	} else if (!r.seen_root) {
		st = bb_error_set(err, BB_ERR_INVALID, "not a Bugzilla export: no root element");
	}
out:
	reader_release(&r);
	if (handlers_set) {
		xmlSetGenericErrorFunc(saved_generic_ctx, saved_generic);
		xmlSetStructuredErrorFunc(saved_structured_ctx, saved_structured);
	}
	buf_release(&raw);
	buf_release(&fixed);
	return st;
}

enum bb_status bz_xml_read_memory(const char *data, size_t len,
				  const struct bz_xml_callbacks *cb, struct bb_error *err)
{
	struct xml_source src = { data ? data : "", data ? len : 0, 0, -1, "memory" };

	return read_export(&src, cb, err);
}

enum bb_status bz_xml_read_file(const char *path, const struct bz_xml_callbacks *cb,
				struct bb_error *err)
{
	struct xml_source src = { NULL, 0, 0, -1, path };
	enum bb_status st;

	src.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (src.fd < 0)
		return bb_error_errno(err, errno, "opening %s", path);
	st = read_export(&src, cb, err);
	close(src.fd);
	return st;
}
