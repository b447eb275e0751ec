/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The header pass of list mail (see inmail.h).
 *
 * The header pass splits the header section into fields itself (RFC 5322
 * field syntax: a name, a colon, a value that continues on lines starting
 * with a blank) and hands the values of the few fields the bridge needs to
 * GMime's helpers: RFC 2047 words, addresses, dates and msg-ids are never
 * decoded here.  Building a GMimeMessage for the header pass would parse
 * every MIME part's headers of every mail, which the lazy design exists to
 * avoid.  The raw scan is in inmail_scan.c, the full decode in
 * inmail_body.c, the lines of a body in inmail_lines.c.
 */
#include "config.h"

#include <errno.h>
#include <iconv.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <gmime/gmime.h>

#include "core/buf.h"
#include "core/text.h"
#include "mail/inmail.h"
#include "mail/inmail_nl.h"
#include "mail/inmail_plain.h"
#include "mail/inmail_scan.h"
#include "mail/inmail_text.h"
#include "mail/mail.h"

/* --- the block a mail's strings live in ---------------------------------- */

/* Every string of a struct inmail, and its references array, is cut from
 * one block sized from the header fields they are read from before any is
 * made (inmail_parse_headers()): an id, an address or a name is never
 * longer than the unfolded value it comes from, but for text that
 * decoding makes longer (8-bit bytes or encoded words turned into UTF-8),
 * which gets a block of its own behind the first.  On the 40,596-mail
 * history read the header pass made eight allocations a mail (a strdup()
 * a reference) and inmail_release() eight frees: cold memory, a tenth of
 * the header pass's time. */
struct inmail_block {
	struct inmail_block *next;   /* blocks for what did not fit */
	size_t size, used;
	_Alignas(char *) char data[];
};

/* The first block, of size bytes. */
static enum bb_status mail_block_init(struct inmail *m, size_t size)
{
	struct inmail_block *b = malloc(offsetof(struct inmail_block, data) + size);

	if (!b)
		return BB_ERR_NOMEM;
	b->next = NULL;
	b->size = size;
	b->used = 0;
	m->strings = b;
	return BB_OK;
}

/* mail_alloc() for what does not fit in the first block: a block of its
 * own, chained behind the first, which keeps serving what does fit. */
static void *mail_alloc_own(struct inmail *m, size_t n)
{
	struct inmail_block *b = m->strings, *own;

	if (!(own = malloc(offsetof(struct inmail_block, data) + n)))
		return NULL;
	own->size = own->used = n;
	if (b) {
		own->next = b->next;
		b->next = own;
	} else {
		own->next = NULL;
		m->strings = own;
	}
	return own->data;
}

/* n bytes of m's block at a multiple of align (a power of two): in the
 * first block when there is room, else in a block of their own; NULL when
 * out of memory.  Inline: a dozen a mail, most of them a few bytes. */
static inline void *mail_alloc(struct inmail *m, size_t n, size_t align)
{
	struct inmail_block *b = m->strings;

	if (b) {
		size_t at = (b->used + align - 1) & ~(align - 1);

		if (at <= b->size && n <= b->size - at) {
			b->used = at + n;
			return b->data + at;
		}
	}
	return mail_alloc_own(m, n);
}

/* A copy of the n bytes at s, NUL-terminated, in m's block. */
static inline char *mail_strndup(struct inmail *m, const char *s, size_t n)
{
	char *out = mail_alloc(m, n + 1, 1);

	if (out) {
		memcpy(out, s, n);
		out[n] = '\0';
	}
	return out;
}

static void mail_blocks_free(struct inmail *m)
{
	for (struct inmail_block *b = m->strings, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	m->strings = NULL;
}

/* A Message-ID's inside as kept, into out (INMAIL_MESSAGE_ID_MAX + 1
 * bytes), its length returned: the idlen bytes of id without white space,
 * control characters and angle brackets - a folded or otherwise malformed
 * id (an encoded word, blanks inside <...>) is kept that way rather than
 * dropped, and a reply naming it the same way finds it again; nothing unless
 * what is left is printable ASCII, not empty and not too long (0 then).  The
 * '@' is not required: real archives hold ids without one, and they still
 * thread. */
static size_t msgid_normalise_into(const char *id, size_t idlen, char *out)
{
	size_t n = 0;

	for (size_t i = 0; i < idlen; i++) {
		unsigned char c = (unsigned char)id[i];

		if (c <= 0x20 || c == 0x7f || c == '<' || c == '>')
			continue;
		if (c > 0x7f || n == INMAIL_MESSAGE_ID_MAX)
			return 0;
		out[n++] = (char)c;
	}
	out[n] = '\0';
	return n;
}

/* msgid_normalise_into() into m's block; NULL when unusable or out of
 * memory (*nomem says which). */
static char *msgid_normalise(struct inmail *m, const char *id, size_t idlen, int *nomem)
{
	char tmp[INMAIL_MESSAGE_ID_MAX + 1], *out;
	size_t n;

	if (!id || !(n = msgid_normalise_into(id, idlen, tmp)))
		return NULL;
	if (!(out = mail_strndup(m, tmp, n)))
		*nomem = 1;
	return out;
}

/* The usable msg-ids of an In-Reply-To or References value, normalised,
 * in order: ids->n of them, the i-th at msgids_at(ids, i) (NUL-terminated);
 * msgids_release() frees them.  Plain ones are the value's own text (its
 * '>'s made NULs), others are in ids->arena one after the other. */
#define MSGIDS_FEW 64
struct msgids {
	struct buf arena;
	const char *base;       /* where the offsets count from: the value or arena */
	size_t n;
	size_t *off;            /* where each id starts: few, or malloc'd */
	size_t cap;
	size_t few[MSGIDS_FEW];
};

static const char *msgids_at(const struct msgids *ids, size_t i)
{
	return ids->base + ids->off[i];
}

/* One id more, at offset off. */
static enum bb_status msgids_push(struct msgids *ids, size_t off)
{
	if (ids->n == ids->cap) {
		size_t cap = ids->cap * 2;
		size_t *more = ids->off == ids->few ? malloc(cap * sizeof(*more))
						    : realloc(ids->off, cap * sizeof(*more));

		if (!more)
			return BB_ERR_NOMEM;
		if (ids->off == ids->few)
			memcpy(more, ids->few, sizeof(ids->few));
		ids->off = more;
		ids->cap = cap;
	}
	ids->off[ids->n++] = off;
	return BB_OK;
}

/* Appends a copy of the id of n bytes at id to ids->arena. */
static enum bb_status msgids_add(struct msgids *ids, const char *id, size_t n)
{
	if (msgids_push(ids, ids->arena.len) || buf_grow(&ids->arena, n + 1))
		return BB_ERR_NOMEM;
	memcpy(ids->arena.data + ids->arena.len, id, n);
	ids->arena.data[ids->arena.len + n] = '\0';
	ids->arena.len += n + 1;
	ids->arena.data[ids->arena.len] = '\0';
	return BB_OK;
}

/* inmail_plain_msgids()'s fn: one id more when usable, where it stands in
 * the value (ids->base), its closing '>' made its end (fn is called once
 * the whole value was found plain: GMime never reads it after this).  A
 * plain id is printable ASCII without blanks or brackets:
 * msgid_normalise_into() would keep it as it is, unless it is too long. */
static int plain_msgid_in_place(void *ctx, const char *id, size_t len)
{
	struct msgids *ids = ctx;
	size_t off = (size_t)(id - ids->base);

	if (len > INMAIL_MESSAGE_ID_MAX)
		return 0;
	((char *)ids->base)[off + len] = '\0';
	return msgids_push(ids, off) != BB_OK;
}

/* The msg-ids of value (which this writes into, see struct msgids): plain
 * ones (inmail_plain.h) without GMime's parser, the same as it reads
 * them; others through it. */
static enum bb_status parse_msgids(char *value, struct msgids *ids)
{
	GMimeReferences *refs;
	char tmp[INMAIL_MESSAGE_ID_MAX + 1];
	enum bb_status st = BB_OK;
	int plain;

	buf_init(&ids->arena);
	ids->base = value;
	ids->n = 0;
	ids->off = ids->few;
	ids->cap = MSGIDS_FEW;
	if ((plain = inmail_plain_msgids(value, plain_msgid_in_place, ids)))
		return plain < 0 ? BB_ERR_NOMEM : BB_OK;
	refs = g_mime_references_parse(inmail_parser_options(), value);
	for (int i = 0; refs && i < g_mime_references_length(refs) && !st; i++) {
		const char *id = g_mime_references_get_message_id(refs, i);
		size_t n = id ? msgid_normalise_into(id, strlen(id), tmp) : 0;

		if (n)
			st = msgids_add(ids, tmp, n);
	}
	if (refs)
		g_mime_references_free(refs);
	ids->base = ids->arena.data;
	return st;
}

static void msgids_release(struct msgids *ids)
{
	buf_release(&ids->arena);
	if (ids->off != ids->few)
		free(ids->off);
	ids->off = ids->few;
}

/* --- header pass --------------------------------------------------------- */

struct field {
	const char *name, *value; /* value runs to the end of its last line */
	size_t name_len, value_len;
};

#ifdef __SSE2__
/* 1 if the 16 bytes at v hold a line end, a CR or a NUL. */
static inline int line_byte16(const char *v)
{
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)v);
	__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('\n')),
						_mm_cmpeq_epi8(b, _mm_set1_epi8('\r'))),
				   _mm_cmpeq_epi8(b, _mm_setzero_si128()));

	return _mm_movemask_epi8(hit) != 0;
}
#endif

/* 1 if the n bytes at v hold a line end, a CR or a NUL. */
static int has_line_byte(const char *v, size_t n)
{
	size_t i = 0;

#ifdef __SSE2__
	if (n >= 16) {
		for (; i + 16 <= n; i += 16)
			if (line_byte16(v + i))
				return 1;
		/* the tail as the last 16 bytes (read twice in part), not a
		 * byte at a time: it was a fifth of the header pass's unfolding */
		return i < n && line_byte16(v + n - 16);
	}
#endif
	for (; i < n; i++)
		if (v[i] == '\n' || v[i] == '\r' || v[i] == '\0')
			return 1;
	return 0;
}

/* Unfolds a raw field value into scratch: line ends go (RFC 5322 unfolding
 * keeps the blank that follows them), NUL bytes go, a bare CR becomes a
 * blank, blanks at both ends go.
 * Returns scratch's NUL-terminated contents. */
static char *unfold(struct buf *scratch, const char *v, size_t len)
{
	const char *end = v + len;
	size_t keep;

	buf_reset(scratch);
	while (v < end && (is_blank(*v) || *v == '\r' || *v == '\n'))
		v++;
	/* (buf_grow() called only when the room kept is short: 344,000
	 * calls on the history read that found room) */
	if ((size_t)(end - v) + 2 > scratch->alloc && buf_grow(scratch, (size_t)(end - v) + 1) != BB_OK)
		return NULL;
	/* most values are one line without CR or NUL: copied whole */
	if (!has_line_byte(v, (size_t)(end - v))) {
		memcpy(scratch->data, v, (size_t)(end - v));
		scratch->len = (size_t)(end - v);
		v = end;
	}
	/* else line by line: most lines hold no CR and no NUL, and are copied whole */
	while (v < end) {
		const char *nl = memchr(v, '\n', (size_t)(end - v)), *line_end = nl ? nl : end;
		size_t n = (size_t)(line_end - v);

		if (!memchr(v, '\r', n) && !memchr(v, '\0', n)) {
			memcpy(scratch->data + scratch->len, v, n);
			scratch->len += n;
		} else {
			for (const char *p = v; p < line_end; p++) {
				if (*p == '\0' || (*p == '\r' && p + 1 < end && p[1] == '\n'))
					continue;
				/* a bare CR ends no line here: it is a blank */
				scratch->data[scratch->len++] = *p == '\r' ? ' ' : *p;
			}
		}
		v = nl ? nl + 1 : end;
	}
	keep = scratch->len;
	while (keep && is_blank(scratch->data[keep - 1]))
		keep--;
	scratch->data[keep] = '\0';
	scratch->len = keep;
	return scratch->data;
}

/* inmail_plain_msgids()'s fn for a Message-ID: the first id and how many. */
struct one_msgid {
	const char *id;
	size_t len, n;
};

static int plain_msgid_one(void *ctx, const char *id, size_t len)
{
	struct one_msgid *one = ctx;

	if (!one->n++) {
		one->id = id;
		one->len = len;
	}
	return 0;
}

/* The Message-ID as GMime reads it; when that is nothing usable, the raw
 * text inside the first <...> (or the whole value without brackets).  A
 * value that is one plain msg-id (inmail_plain.h) is read without GMime:
 * it gives that id, which normalising keeps as it is unless it is too
 * long, and then the text inside the brackets is too long as well. */
static enum bb_status take_message_id(struct inmail *m, const char *value)
{
	struct one_msgid one = { NULL, 0, 0 };
	char *gmime_id;
	int nomem = 0;

	if (inmail_plain_msgids(value, plain_msgid_one, &one) == 1 && one.n == 1) {
		if (one.len <= INMAIL_MESSAGE_ID_MAX &&
		    !(m->message_id = mail_strndup(m, one.id, one.len)))
			return BB_ERR_NOMEM;
		return BB_OK;
	}
	gmime_id = g_mime_utils_decode_message_id(value);
	m->message_id = gmime_id ? msgid_normalise(m, gmime_id, strlen(gmime_id), &nomem) : NULL;
	g_free(gmime_id);
	if (!m->message_id && !nomem) {
		const char *open = strchr(value, '<'), *start = open ? open + 1 : value;
		const char *close = strchr(start, '>');

		m->message_id = msgid_normalise(m, start,
						close ? (size_t)(close - start) : strlen(start), &nomem);
	}
	return nomem ? BB_ERR_NOMEM : BB_OK;
}

/* In-Reply-To's first id, unless it is the mail's own (run after
 * take_message_id()). */
static enum bb_status take_in_reply_to(struct inmail *m, char *value)
{
	struct msgids ids;
	enum bb_status st = parse_msgids(value, &ids);
	const char *id = !st && ids.n ? msgids_at(&ids, 0) : NULL;

	if (id && !(m->message_id && !strcmp(id, m->message_id)) &&
	    !(m->in_reply_to = mail_strndup(m, id, strlen(id))))
		st = BB_ERR_NOMEM;
	msgids_release(&ids);
	return st;
}

/* The ids take_references() has kept so far, to drop repeats: compared
 * one by one while there are few (most mails name a handful), in a hash
 * table past REFS_LINEAR (a References of thousands of ids costs no more
 * than a hash lookup each). */
#define REFS_LINEAR 16
struct refs_seen {
	const char *few[REFS_LINEAR];
	size_t nfew;
	GHashTable *many;
};

static int refs_seen_has(const struct refs_seen *rs, const char *id)
{
	if (rs->many)
		return g_hash_table_contains(rs->many, id);
	for (size_t i = 0; i < rs->nfew; i++)
		if (!strcmp(rs->few[i], id))
			return 1;
	return 0;
}

static void refs_seen_add(struct refs_seen *rs, const char *id)
{
	if (!rs->many && rs->nfew < REFS_LINEAR) {
		rs->few[rs->nfew++] = id;
		return;
	}
	if (!rs->many) {
		rs->many = g_hash_table_new(g_str_hash, g_str_equal);
		for (size_t i = 0; i < rs->nfew; i++)
			g_hash_table_add(rs->many, (char *)rs->few[i]);
	}
	g_hash_table_add(rs->many, (char *)id);
}

/* References: valid ids, deduplicated, the root kept first and then the
 * newest INMAIL_REFERENCES_MAX - 1 others in order.  The mail's own id is
 * dropped here (see inmail_parse_headers(), which runs this last). */
static enum bb_status take_references(struct inmail *m, char *value)
{
	struct msgids ids;
	struct refs_seen seen = { .nfew = 0, .many = NULL };
	const char *picked[INMAIL_REFERENCES_MAX];
	size_t npicked = 0, nrefs;
	const char *root = NULL;
	enum bb_status st = parse_msgids(value, &ids);
	size_t i;

	nrefs = ids.n;
	if (st) {
		msgids_release(&ids);
		return st;
	}

	if (m->message_id)
		refs_seen_add(&seen, m->message_id);
	for (i = 0; i < nrefs && !root; i++) {
		const char *id = msgids_at(&ids, i);

		if (!refs_seen_has(&seen, id))
			root = id;
	}
	if (root)
		refs_seen_add(&seen, root);
	/* newest first, then turned around */
	for (i = nrefs; i-- > 0 && root && npicked < INMAIL_REFERENCES_MAX - 1;) {
		const char *id = msgids_at(&ids, i);

		if (refs_seen_has(&seen, id))
			continue;
		refs_seen_add(&seen, id);
		picked[npicked++] = id;
	}
	m->references = mail_alloc(m, (npicked + (root ? 1 : 0) + 1) * sizeof(char *),
				   _Alignof(char *));
	if (!m->references) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	if (root && !(m->references[m->nreferences++] = mail_strndup(m, root, strlen(root)))) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	while (npicked > 0) {
		const char *id = picked[--npicked];

		if (!(m->references[m->nreferences] = mail_strndup(m, id, strlen(id)))) {
			st = BB_ERR_NOMEM;
			goto out;
		}
		m->nreferences++;
	}
out:
	if (m->references)
		m->references[m->nreferences] = NULL;
	if (seen.many)
		g_hash_table_destroy(seen.many);
	msgids_release(&ids);
	return st;
}

/* The first mailbox of an address list (descending into a group). */
static InternetAddressMailbox *first_mailbox(InternetAddressList *list, int depth)
{
	int n = list ? internet_address_list_length(list) : 0;

	for (int i = 0; i < n; i++) {
		InternetAddress *a = internet_address_list_get_address(list, i);

		if (INTERNET_ADDRESS_IS_MAILBOX(a))
			return INTERNET_ADDRESS_MAILBOX(a);
		if (INTERNET_ADDRESS_IS_GROUP(a) && depth < 2) {
			InternetAddressMailbox *mb = first_mailbox(
				internet_address_group_get_members(INTERNET_ADDRESS_GROUP(a)), depth + 1);

			if (mb)
				return mb;
		}
	}
	return NULL;
}

/* addr-spec with the domain lower-cased, into m->from_addr (left NULL for
 * nothing usable); text is room to work in. */
static enum bb_status clean_address(struct inmail *m, struct buf *text, const char *addr)
{
	char *out, *at;

	if (!addr || !*addr)
		return BB_OK;
	buf_reset(text);
	if (inmail_clean_line_add(text, addr, strlen(addr), INMAIL_TEXT_MAX))
		return BB_ERR_NOMEM;
	out = text->data;
	if (!*out || strchr(out, ' ') || strchr(out, '<') || strchr(out, '>'))
		return BB_OK;
	if ((at = strrchr(out, '@')))
		for (char *p = at + 1; *p; p++)
			*p = (char)ascii_lower((unsigned char)*p);
	return (m->from_addr = mail_strndup(m, out, text->len)) ? BB_OK : BB_ERR_NOMEM;
}

/* The clean line (inmail_clean_line()) of s/len in m's block, made in
 * text. */
static char *mail_clean_line(struct inmail *m, struct buf *text, const char *s, size_t len)
{
	buf_reset(text);
	if (inmail_clean_line_add(text, s, len, INMAIL_TEXT_MAX))
		return NULL;
	return mail_strndup(m, text->data, text->len);
}

/* The charsets of encoded words ("=?charset?Q?...?=") kept loaded: GMime
 * opens a converter for each encoded word and closes it again, and glibc
 * loads a charset's gconv module on the first open and unloads it when the
 * last converter closes - a dlopen() and dlclose() for every From: or
 * Subject: in, say, ISO-8859-2.  One converter per charset kept open for
 * the life of the process keeps its module loaded. */
#define PINNED_CHARSETS 64
static struct {
	char name[40];
	iconv_t cd;   /* (iconv_t)-1 for a name iconv does not know */
} pinned[PINNED_CHARSETS];
static size_t npinned;
static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;

static void pin_charset(const char *mime_name, size_t len)
{
	char name[40];
	const char *iconv_name;

	if (len == 0 || len >= sizeof(name))
		return;
	memcpy(name, mime_name, len);
	name[len] = '\0';
	pthread_mutex_lock(&pinned_lock);
	for (size_t i = 0; i < npinned; i++)
		if (!g_ascii_strcasecmp(pinned[i].name, name)) {
			pthread_mutex_unlock(&pinned_lock);
			return;
		}
	if (npinned < PINNED_CHARSETS) {
		/* tried once, whether it opens or not; kept open, never closed */
		iconv_name = g_mime_charset_iconv_name(name);
		strcpy(pinned[npinned].name, name);
		pinned[npinned++].cd = iconv_name ? iconv_open("UTF-8", iconv_name) : (iconv_t)-1;
	}
	pthread_mutex_unlock(&pinned_lock);
}

/* Pins the charset of every encoded word in a header value. */
static void pin_charsets(const char *value)
{
	for (const char *p = strstr(value, "=?"); p; p = strstr(p + 2, "=?")) {
		size_t n = strcspn(p + 2, "?*");

		if (p[2 + n] && n < 40)
			pin_charset(p + 2, n);
	}
}

/* An RFC 2047 encoded word at p ("=?charset[*lang]?B|Q?text?="): its end,
 * or NULL if p starts none.  *charset_len counts the charset without the
 * language; *text and *text_len give the encoded text. */
static const char *encoded_word(const char *p, size_t *charset_len, char *encoding,
				const char **text, size_t *text_len)
{
	size_t n;

	if (p[0] != '=' || p[1] != '?')
		return NULL;
	p += 2;
	n = strcspn(p, "? \t");
	if (n == 0 || p[n] != '?')
		return NULL;
	*charset_len = strcspn(p, "*?");
	p += n + 1;
	if (!*p || !strchr("BbQq", *p) || p[1] != '?')
		return NULL;
	*encoding = (char)ascii_lower((unsigned char)*p);
	p += 2;
	*text = p;
	n = strcspn(p, "? \t");
	if (p[n] != '?' || p[n + 1] != '=')
		return NULL;
	*text_len = n;
	return p + n + 2;
}

/* Works around GMime 3.2.13 (Debian 12): it joins the text of adjacent
 * B-encoded words in one charset before decoding, and the base64 decoder
 * stops at the first word's '=' padding, so "=?UTF-8?B?YWI=?=
 * =?UTF-8?B?Y2Q=?=" came out as "ab" (and an unpadded word of a length
 * that is no multiple of 4 does the same).  Each such run of words (only white
 * space between them, which RFC 2047 drops) is rewritten as one B word of
 * the joined bytes, so a character split across two words still decodes
 * whole.  Returns the rewritten value (g_free it), or NULL when no padded
 * word is followed by another in its charset: value is fine as it is. */
static char *join_padded_words(const char *value)
{
	GString *out = NULL;
	const char *copied = value;   /* value before this is in out */

	for (const char *p = strstr(value, "=?"); p; p = strstr(p, "=?")) {
		const char *text, *end, *run_end, *q;
		size_t cs_len, text_len, words = 1;
		int padded = 0;
		char enc;
		GByteArray *bytes;

		if (!(end = encoded_word(p, &cs_len, &enc, &text, &text_len)) || enc != 'b') {
			p += 2;
			continue;
		}
		/* the run of B words in this charset that follows */
		run_end = end;
		for (q = end;;) {
			const char *t2, *e2, *w = q + strspn(q, " \t");
			size_t cs2, len2;
			char enc2;

			if (!(e2 = encoded_word(w, &cs2, &enc2, &t2, &len2)) || enc2 != 'b' ||
			    cs2 != cs_len || g_ascii_strncasecmp(w + 2, p + 2, cs_len))
				break;
			words++;
			run_end = q = e2;
		}
		for (q = p; q < run_end && !padded;) {
			const char *t2, *w = q + strspn(q, " \t");
			size_t cs2, len2;
			char enc2;
			const char *e2 = encoded_word(w, &cs2, &enc2, &t2, &len2);

			if (e2 < run_end && (memchr(t2, '=', len2) || len2 % 4))
				padded = 1;
			q = e2;
		}
		if (words < 2 || !padded) {
			p = run_end;
			continue;
		}
		if (!out)
			out = g_string_new("");
		g_string_append_len(out, copied, p - copied);
		bytes = g_byte_array_new();
		for (q = p; q < run_end;) {
			const char *t2, *w = q + strspn(q, " \t");
			size_t cs2, len2, got;
			char enc2;
			const char *e2 = encoded_word(w, &cs2, &enc2, &t2, &len2);
			char *b64 = g_strnfill(len2 + 3, '=');   /* padded: GLib leaves a short tail */
			guchar *raw;

			memcpy(b64, t2, len2);
			b64[len2 + (4 - len2 % 4) % 4] = '\0';
			raw = g_base64_decode(b64, &got);

			g_byte_array_append(bytes, raw, (guint)got);
			g_free(raw);
			g_free(b64);
			q = e2;
		}
		{
			char *b64 = g_base64_encode(bytes->data, bytes->len);

			g_string_append(out, "=?");
			g_string_append_len(out, p + 2, (gssize)cs_len);
			g_string_append(out, "?B?");
			g_string_append(out, b64);
			g_string_append(out, "?=");
			g_free(b64);
		}
		g_byte_array_free(bytes, TRUE);
		copied = p = run_end;
	}
	if (!out)
		return NULL;
	g_string_append(out, copied);
	return g_string_free(out, FALSE);
}

/* What take_from() made of a From: value, kept per thread for the values
 * seen last (a list's regular posters send most of its mail; GMime's
 * parse and the address list's release cost 13,000 instructions a mail):
 * a hash table of the value to a struct from_seen, emptied when full.
 * An entry is one allocation: the value (the table's key), the name and
 * the address one after the other in text. */
#define FROM_MEMO_MAX 4096
#define FROM_MEMO_VALUE_MAX 256   /* longer values are parsed every time */
struct from_seen {
	const char *name, *addr;   /* in text; addr NULL: no mailbox */
	size_t name_len, addr_len;
	char text[];               /* the value, NUL, the name, NUL, the address, NUL */
};

static void from_memo_free(gpointer p)
{
	g_hash_table_destroy(p);
}

static GPrivate from_memo_key = G_PRIVATE_INIT(from_memo_free);

static GHashTable *from_memo(void)
{
	GHashTable *memo = g_private_get(&from_memo_key);

	if (!memo) {
		/* the key is in its entry: freed with it */
		memo = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, free);
		g_private_set(&from_memo_key, memo);
	}
	return memo;
}

/* Kept as parsed; nothing is kept when a copy cannot be made. */
static void from_remember(GHashTable *memo, const char *value, const struct inmail *m)
{
	size_t value_len = strlen(value);
	size_t name_len = strlen(m->from_name), addr_len = m->from_addr ? strlen(m->from_addr) : 0;
	struct from_seen *f;
	char *p;

	if (value_len > FROM_MEMO_VALUE_MAX ||
	    !(f = malloc(sizeof(*f) + value_len + name_len + addr_len + 3)))
		return;
	p = f->text;
	memcpy(p, value, value_len + 1);
	p += value_len + 1;
	memcpy(p, m->from_name, name_len + 1);
	f->name = p;
	f->name_len = name_len;
	p += name_len + 1;
	f->addr = NULL;
	f->addr_len = addr_len;
	if (m->from_addr) {
		memcpy(p, m->from_addr, addr_len + 1);
		f->addr = p;
	}
	if (g_hash_table_size(memo) >= FROM_MEMO_MAX)
		g_hash_table_remove_all(memo);
	g_hash_table_replace(memo, f->text, f);
}

static enum bb_status take_from(struct inmail *m, struct buf *text, const char *value)
{
	GHashTable *memo = from_memo();
	const struct from_seen *seen = g_hash_table_lookup(memo, value);
	InternetAddressList *list;
	InternetAddressMailbox *mb;
	const char *name;
	char *joined;
	enum bb_status st = BB_OK;

	if (seen) {
		if ((seen->addr && !(m->from_addr = mail_strndup(m, seen->addr, seen->addr_len))) ||
		    !(m->from_name = mail_strndup(m, seen->name, seen->name_len)))
			return BB_ERR_NOMEM;
		return BB_OK;
	}
	pin_charsets(value);
	joined = join_padded_words(value);
	list = internet_address_list_parse(inmail_parser_options(), joined ? joined : value);
	g_free(joined);
	mb = first_mailbox(list, 0);
	name = mb ? internet_address_get_name(INTERNET_ADDRESS(mb)) : NULL;
	if (mb)
		st = clean_address(m, text, internet_address_mailbox_get_addr(mb));
	if (!st && !(m->from_name = mail_clean_line(m, text, name ? name : "",
						    name ? strlen(name) : 0)))
		st = BB_ERR_NOMEM;
	if (list)
		g_object_unref(list);
	if (!st)
		from_remember(memo, value, m);
	return st;
}

/* How many bytes from the start of value (len bytes and a NUL), in steps
 * of 16, decode_text()'s loop would pass over as printable ASCII with
 * single blanks: no byte below 0x20 or from 0x7f up, no '=' (that may
 * start an encoded word), no blank at the start, after a blank or before
 * the NUL.  That loop, a byte at a time with three tests a byte, cost
 * more than all the rest of a Subject's reading. */
#ifdef __SSE2__
/* The blanks of the 16 bytes at p as a mask, or -1 when they are not all
 * plain (see plain_text_prefix()); prev_blank: the byte before p is a
 * blank, or p is the start. */
static inline int plain16(const char *p, unsigned prev_blank)
{
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)p);
	/* 0x20..0x7e, as signed bytes: 0x80 and up are below 0 */
	unsigned printable = (unsigned)_mm_movemask_epi8(
		_mm_and_si128(_mm_cmpgt_epi8(b, _mm_set1_epi8(0x1f)),
			      _mm_cmplt_epi8(b, _mm_set1_epi8(0x7f))));
	unsigned eq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_set1_epi8('=')));
	unsigned blanks = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_set1_epi8(' ')));

	if (printable != 0xffff || eq || (blanks & ((blanks << 1) | prev_blank)) ||
	    ((blanks & 0x8000) && !p[16]))
		return -1;
	return (int)blanks;
}
#endif

static size_t plain_text_prefix(const char *value, size_t len)
{
	size_t at = 0;

#ifdef __SSE2__
	unsigned prev_blank = 1;   /* the start counts as after a blank */
	int blanks;

	for (; at + 16 <= len; at += 16) {
		if ((blanks = plain16(value + at, prev_blank)) < 0)
			return at;
		prev_blank = (unsigned)blanks >> 15;
	}
	/* the tail as the last 16 bytes, read again in part: all of it plain
	 * leaves the byte loop nothing */
	if (at < len && len >= 16 && plain16(value + len - 16, len == 16 || value[len - 17] == ' ') >= 0)
		at = len;
#else
	(void)value;
	(void)len;
#endif
	return at;
}

/* Decodes an unstructured value (RFC 2047, raw 8-bit bytes; len bytes and
 * a NUL) into a clean line in m's block (text: room to work in).  Plain
 * ASCII without encoded words needs no decoder. */
static char *decode_text(struct inmail *m, struct buf *text, const char *value, size_t len)
{
	const unsigned char *p;
	char *decoded, *out, *joined;
	int clean = 1;   /* printable ASCII with single blanks inside */

	for (p = (const unsigned char *)value + plain_text_prefix(value, len); *p; p++) {
		if (*p >= 0x80 || (p[0] == '=' && p[1] == '?'))
			break;
		if (*p < 0x20 || *p == 0x7f ||
		    (*p == ' ' && (p == (const unsigned char *)value || p[-1] == ' ' || !p[1])))
			clean = 0;
	}
	if (!*p) {
		len = (size_t)(p - (const unsigned char *)value);
		/* as inmail_clean_line() has it, without a second look */
		if (clean && len <= INMAIL_TEXT_MAX)
			return mail_strndup(m, value, len);
		return mail_clean_line(m, text, value, len);
	}
	pin_charsets(value);
	joined = join_padded_words(value);
	decoded = g_mime_utils_header_decode_text(inmail_parser_options(), joined ? joined : value);
	g_free(joined);
	out = mail_clean_line(m, text, decoded ? decoded : "", decoded ? strlen(decoded) : 0);
	g_free(decoded);
	return out;
}

/* The time zones of dates kept loaded: GMime makes the zone of each date
 * from its offset by name ("+0100"), and GLib builds a zone anew unless
 * one of that name is alive (it keeps a table of the live ones), so a zone
 * was built and thrown away for every mail.  Holding a reference to the
 * zone of each offset seen (up to PINNED_ZONES) makes GMime's next date of
 * that offset find it: the same zone, the same result. */
#define PINNED_ZONES 128
static GTimeZone *pinned_zones[PINNED_ZONES];
static size_t npinned_zones;
static pthread_mutex_t zones_lock = PTHREAD_MUTEX_INITIALIZER;

static void pin_zone(GTimeZone *tz)
{
	const char *name = tz ? g_time_zone_get_identifier(tz) : NULL;

	if (!name)
		return;
	pthread_mutex_lock(&zones_lock);
	/* (a pinned zone comes back as itself: looked for by address first) */
	for (size_t i = 0; i < npinned_zones; i++)
		if (pinned_zones[i] == tz) {
			pthread_mutex_unlock(&zones_lock);
			return;
		}
	for (size_t i = 0; i < npinned_zones; i++)
		if (!strcmp(g_time_zone_get_identifier(pinned_zones[i]), name)) {
			pthread_mutex_unlock(&zones_lock);
			return;
		}
	if (npinned_zones < PINNED_ZONES)
		pinned_zones[npinned_zones++] = g_time_zone_ref(tz);   /* never unreferenced */
	pthread_mutex_unlock(&zones_lock);
}

/* The time a Date: value names: a plain one (inmail_plain.h) without
 * GMime's parser, the same as it reads it; others through it. */
static time_t decode_date(const char *value)
{
	GDateTime *dt;
	gint64 t;
	long long plain;

	if (inmail_plain_date(value, &plain)) {
		t = plain;
	} else {
		if (!(dt = g_mime_utils_header_decode_date(value)))
			return 0;
		t = g_date_time_to_unix(dt);
		pin_zone(g_date_time_get_timezone(dt));
		g_date_time_unref(dt);
	}
	if (t <= 0 || (sizeof(time_t) < 8 && t > INT32_MAX))
		return 0;
	return (time_t)t;
}

/* The last List-Id value take_list_id() read and what it made of it, one
 * a thread (in the header pass's scratch): a list's mail all carry the
 * same, and cleaning and lower-casing it anew cost 28 M instructions on
 * the 40,596-mail history read.  Longer values are not kept. */
#define LIST_ID_MEMO_MAX 255
struct list_id_memo {
	int set;                 /* value and id hold a value read */
	size_t len, id_len;
	int has_id;              /* 0: the value gives no List-Id */
	char value[LIST_ID_MEMO_MAX + 1], id[LIST_ID_MEMO_MAX + 1];
};

/* List-Id: "Some phrase <list.example.org>"; the part in <> (else the
 * value), lower-case, into m->list_id (left NULL for nothing usable);
 * value has len bytes; text is room to work in. */
static enum bb_status take_list_id(struct inmail *m, struct buf *text, struct list_id_memo *memo,
				   const char *value, size_t len)
{
	const char *open = strrchr(value, '<'), *close;
	enum bb_status st;

	if (memo->set && memo->len == len && !memcmp(memo->value, value, len)) {
		if (memo->has_id && !(m->list_id = mail_strndup(m, memo->id, memo->id_len)))
			return BB_ERR_NOMEM;
		return BB_OK;
	}
	buf_reset(text);
	if (open && (close = strchr(open, '>')))
		st = inmail_clean_line_add(text, open + 1, (size_t)(close - open - 1), INMAIL_TEXT_MAX);
	else
		st = inmail_clean_line_add(text, value, strlen(value), INMAIL_TEXT_MAX);
	if (st)
		return BB_ERR_NOMEM;
	for (char *p = text->data; *p; p++)
		*p = (char)ascii_lower((unsigned char)*p);
	memo->set = 0;
	if (len <= LIST_ID_MEMO_MAX && text->len <= LIST_ID_MEMO_MAX) {
		memcpy(memo->value, value, len);
		memo->len = len;
		memo->has_id = text->len && !strchr(text->data, ' ');
		memcpy(memo->id, text->data, text->len);
		memo->id_len = text->len;
		memo->set = 1;
	}
	if (!text->len || strchr(text->data, ' '))
		return BB_OK;
	return (m->list_id = mail_strndup(m, text->data, text->len)) ? BB_OK : BB_ERR_NOMEM;
}

/* Mail systems and list software write as MAILER-DAEMON@, owner-list@,
 * list-owner@, list+owner@, list-bounces@: bounces and list notices. */
static int list_software(const char *addr)
{
	const char *at = strrchr(addr, '@');
	size_t local = at ? (size_t)(at - addr) : strlen(addr);

	if (equals_ci(addr, local, "mailer-daemon") || has_prefix_ci(addr, local, "owner-"))
		return 1;
	return (local > 6 && (has_prefix_ci(addr + local - 6, 6, "-owner") ||
			      has_prefix_ci(addr + local - 6, 6, "+owner"))) ||
		(local > 8 && has_prefix_ci(addr + local - 8, 8, "-bounces"));
}

/* Subjects of vacation and ticket-system auto-replies, after any leading
 * "[tag]" groups. */
static int autoreply_subject(const char *subject)
{
	static const char *const prefixes[] = {
		"autoreply:", "auto-reply:", "auto reply:", "automatic reply:",
		"auto response:", "auto-response:", "out of office", "out of the office",
		"abwesenheitsnotiz", "réponse automatique", NULL
	};
	const char *p = subject;

	for (int groups = 0; groups < 4; groups++) {
		while (*p == ' ')
			p++;
		if (*p != '[' || !strchr(p, ']'))
			break;
		p = strchr(p, ']') + 1;
	}
	while (*p == ' ')
		p++;
	for (int i = 0; prefixes[i]; i++)
		if (has_prefix_ci(p, strlen(p), prefixes[i]))
			return 1;
	return 0;
}

/* --- the header pass itself ---------------------------------------------- */

/* Length of a field name at the start of a line, 0 if the line is no field:
 * printable ASCII up to a ':' (blanks before the colon are tolerated). */
/* The bytes of a field name (RFC 5322: printable ASCII but the colon). */
static unsigned char name_char[256];

/* The field names note_field() looks at, as a bit per length (bit 31: 31
 * or more) for each first letter: the fields it has nothing to do with
 * (Received:, DKIM-Signature:, most X- fields) are passed over without a
 * compare. */
static uint32_t noted_lengths[26];

static void note_name(const char *name, int any_longer)
{
	size_t len = strlen(name);
	int letter = ascii_lower((unsigned char)name[0]) - 'a';

	for (size_t n = len; n < 32; n++) {
		noted_lengths[letter] |= 1u << n;
		if (!any_longer)
			break;
	}
}

static void noted_names_init(void)
{
	static const char *const names[] = {
		"auto-submitted", "content-type", "content-transfer-encoding", "date", "from",
		"in-reply-to", "message-id", "mailing-list", "precedence", "references",
		"return-path", "subject", "sender", MAIL_LOOP_HEADER, MAIL_MARK_HEADER,
		"x-autoreply", "x-autorespond", "x-autoresponder", "x-vacation",
		"x-failed-recipients", "x-mailing-list", "x-beenthere", "x-loop",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		note_name(names[i], 0);
	note_name("list-", 1);   /* List-Id, and any List- field */
	for (int c = 0x21; c < 0x7f; c++)
		name_char[c] = c != ':';
}

static int noted_name(const char *name, size_t len)
{
	int letter = ascii_lower((unsigned char)name[0]) - 'a';

	return letter >= 0 && letter < 26 &&
	       (noted_lengths[letter] & (1u << (len < 31 ? len : 31))) != 0;
}

static pthread_once_t header_pass_once = PTHREAD_ONCE_INIT;

static void header_pass_init_once(void)
{
	inmail_parser_options();
	pin_charset("windows-1252", strlen("windows-1252"));   /* for 8-bit header text */
	noted_names_init();
}

/* GMime, the parser options, the pinned fallback charset and the table of
 * noted field names, made once. */
static void header_pass_init(void)
{
	pthread_once(&header_pass_once, header_pass_init_once);
}

#ifdef __SSE2__
/* The masks of the 16 bytes at p that are a ':' (*colons) and that are
 * printable ASCII (*names: a field name's bytes, and its colon). */
static inline void name_masks16(const char *p, unsigned *colons, unsigned *names)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);

	*colons = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')));
	/* 0x21..0x7e, as signed bytes: bytes of 0x80 and up are below 0 */
	*names = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x20)),
							   _mm_cmplt_epi8(v, _mm_set1_epi8(0x7f))));
}
#endif

/* The length of the field name that starts line, 0 if it starts no field;
 * *colon: where its colon is.  len: the bytes from line's start to the
 * header's end (a name, its blanks and its colon end before the line's
 * end: neither CR nor LF is a name's byte or a blank). */
static size_t field_name_len(const char *line, size_t len, size_t *colon)
{
	size_t i = 0, name_end;

#ifdef __SSE2__
	/* most names (all but a few like Content-Transfer-Encoding) have
	 * their colon within 16 bytes, right after them: one look at 16 (or
	 * 32) bytes of the line says so; anything else is read byte by byte */
	if (len >= 16) {
		unsigned colons, names, first;

		name_masks16(line, &colons, &names);
		if (!colons && len >= 32) {
			unsigned c2, n2;

			name_masks16(line + 16, &c2, &n2);
			colons = c2 << 16;
			names |= n2 << 16;
		}
		if (colons) {
			first = (unsigned)__builtin_ctz(colons);
			if (first && (names | ~((1u << first) - 1)) == ~0u) {
				*colon = first;
				return first;
			}
		}
	}
#endif

	while (i < len && name_char[(unsigned char)line[i]])
		i++;
	name_end = i;
	while (i < len && is_blank(line[i]))
		i++;
	if (name_end == 0 || i >= len || line[i] != ':')
		return 0;
	*colon = i;
	return name_end;
}

struct header_scan {
	struct field message_id, in_reply_to, references, from, subject, date, list_id,
		content_type, return_path, mark;
	int loop_header, auto_submitted, autoreply_header, failed_recipients;
	int precedence_bulk, precedence_junk, list_headers;
	/* what inmail_raw_scan() would say of the header section */
	unsigned scan;
	int opaque_cte, binary_type, texty_type;
};

/* The first word of a raw field value (which is not NUL-terminated). */
static size_t field_first_word(const struct field *f, const char **word)
{
	const char *p = f->value, *end = f->value + f->value_len;

	while (p < end && (is_blank(*p) || *p == '\r' || *p == '\n'))
		p++;
	*word = p;
	while (p < end && !is_blank(*p) && *p != ';' && *p != '(' && *p != '\r' && *p != '\n')
		p++;
	return (size_t)(p - *word);
}


/* A Content-Type field of the mail's own header, as the raw scan would
 * take its line (but unfolded). */
static void note_content_type(struct header_scan *hs, const struct field *f)
{
	const char *v = f->value, *end = f->value + f->value_len;
	size_t len;

	while (v < end && (is_blank(*v) || *v == '\r' || *v == '\n'))
		v++;
	len = (size_t)(end - v);
	if (inmail_opaque_charset(f->value, f->value_len) || has_prefix_ci(v, len, "text/html"))
		hs->scan |= INMAIL_SCAN_OPAQUE;
	if (has_prefix_ci(v, len, "multipart/"))
		hs->scan |= INMAIL_SCAN_MULTIPART;
	if (inmail_binary_type(v, len))
		hs->binary_type = 1;
	else
		hs->texty_type = 1;
}

/* 1 if the field name n (l bytes of printable ASCII) is lit (len bytes of
 * letters and '-'), ignoring case: with the 0x20 bit set on both sides a
 * letter is its small self and '-' stays '-', and no other byte of a name
 * becomes either (a CR would become '-'; a name holds none); 8 bytes at a
 * time. */
static inline int name_is(const char *n, size_t l, const char *lit, size_t len)
{
	const uint64_t bits = 0x2020202020202020ULL;
	size_t i = 0;

	if (l != len)
		return 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t a, b;

		memcpy(&a, n + i, sizeof(a));
		memcpy(&b, lit + i, sizeof(b));
		if ((a | bits) != (b | bits))
			return 0;
	}
	for (; i < len; i++)
		if ((n[i] | 0x20) != (lit[i] | 0x20))
			return 0;
	return 1;
}

/* Whether the field's name (n, l) is lit, a string literal, ignoring case:
 * its length known when compiled, most names are passed over on it. */
#define NAME_IS(lit) name_is(n, l, lit, sizeof(lit) - 1)

static void note_field(struct header_scan *hs, const struct field *f)
{
	const char *n = f->name;
	size_t l = f->name_len;
	struct field *slot = NULL;

	if (!noted_name(n, l))
		return;
	switch (ascii_lower((unsigned char)n[0])) {
	case 'a':
		if (NAME_IS("auto-submitted")) {
			/* any value but "no" (RFC 3834) */
			const char *w;
			size_t wl = field_first_word(f, &w);

			if (wl && !equals_ci(w, wl, "no"))
				hs->auto_submitted = 1;
		}
		break;
	case 'c':
		if (NAME_IS("content-type")) {
			slot = &hs->content_type;
			note_content_type(hs, f);
		} else if (NAME_IS("content-transfer-encoding")) {
			const char *w;
			size_t wl = field_first_word(f, &w);

			/* folded onto the next line or not: the first word */
			if (!wl || inmail_opaque_encoding(w, wl))
				hs->opaque_cte = 1;
		}
		break;
	case 'd':
		if (NAME_IS("date"))
			slot = &hs->date;
		break;
	case 'f':
		if (NAME_IS("from"))
			slot = &hs->from;
		break;
	case 'i':
		if (NAME_IS("in-reply-to"))
			slot = &hs->in_reply_to;
		break;
	case 'l':
		if (NAME_IS("list-id"))
			slot = &hs->list_id;
		if (has_prefix_ci(n, l, "list-"))
			hs->list_headers = 1;
		break;
	case 'm':
		if (NAME_IS("message-id"))
			slot = &hs->message_id;
		else if (NAME_IS("mailing-list"))
			hs->list_headers = 1;
		break;
	case 'p':
		if (NAME_IS("precedence")) {
			const char *w;
			size_t wl = field_first_word(f, &w);

			if (equals_ci(w, wl, "bulk"))
				hs->precedence_bulk++;
			else if (equals_ci(w, wl, "junk"))
				hs->precedence_junk++;
		}
		break;
	case 'r':
		if (NAME_IS("references"))
			slot = &hs->references;
		else if (NAME_IS("return-path"))
			slot = &hs->return_path;
		break;
	case 's':
		if (NAME_IS("subject")) {
			slot = &hs->subject;
		} else if (NAME_IS("sender")) {
			/* majordomo "owner-list@", Mailman "list-bounces@" */
			const char *w;
			size_t wl = field_first_word(f, &w);

			if (text_find_ci(w, wl, "owner-") || text_find_ci(w, wl, "-owner@") ||
			    text_find_ci(w, wl, "-bounces"))
				hs->list_headers = 1;
		}
		break;
	case 'x':
		if (NAME_IS(MAIL_LOOP_HEADER))
			hs->loop_header = 1;
		else if (NAME_IS(MAIL_MARK_HEADER))
			slot = &hs->mark;
		else if (NAME_IS("x-autoreply") || NAME_IS("x-autorespond") ||
			 NAME_IS("x-autoresponder") || NAME_IS("x-vacation"))
			hs->autoreply_header = 1;
		else if (NAME_IS("x-failed-recipients"))
			hs->failed_recipients = 1;
		else if (NAME_IS("x-mailing-list") || NAME_IS("x-beenthere") ||
			 NAME_IS("x-loop"))
			hs->list_headers = 1;
		break;
	default:
		break;
	}
	if (slot && !slot->name)
		*slot = *f;
}

#undef NAME_IS

void inmail_release(struct inmail *m)
{
	if (!m)
		return;
	mail_blocks_free(m);   /* every string and the references array */
	memset(m, 0, sizeof(*m));
}

time_t inmail_date(const struct inmail *m)
{
	return m->date;
}

const char *inmail_parent_id(const struct inmail *m)
{
	if (m->in_reply_to)
		return m->in_reply_to;
	if (m->nreferences)
		return m->references[m->nreferences - 1];
	return NULL;
}

/* Splits the header section into hs; returns where the body starts, or
 * sets *too_large.  A field runs from a line that starts with its name to
 * the next line that does not start with a blank: its lines after the
 * first (long Received:, DKIM and ARC fields fold over many) are passed
 * over by their line ends alone. */
static size_t scan_header_section(const char *raw, size_t len, struct header_scan *hs,
				  int *too_large, size_t *nfields)
{
	size_t start = inmail_skip_from_line(raw, len), at;
	const char *p = raw + start, *end = raw + len, *nl = NULL;
	struct field cur = { NULL, NULL, 0, 0 };
	struct nl_finder lines;

	*too_large = 0;
	*nfields = 0;
	nl_finder_init(&lines, p, end);
	/* lines that start with a blank before any field belong to none */
	while (p < end && is_blank(*p) && (size_t)(p - raw) - start <= INMAIL_HEADER_MAX)
		p = (nl = nl_finder_next(&lines)) ? nl + 1 : end;
	for (;;) {
		size_t colon, name_len;
		const char *value_end;

		at = (size_t)(p - raw);
		if (at - start > INMAIL_HEADER_MAX || p >= end)
			break;
		if (*p == '\n' || (*p == '\r' && (p + 1 == end || p[1] == '\n'))) {
			/* the empty line: the body follows */
			at += *p == '\n' || p + 1 == end ? 1 : 2;
			break;
		}
		name_len = field_name_len(p, (size_t)(end - p), &colon);
		if (!name_len)
			break;   /* not a field: the body starts here (no empty line) */
		cur.name = p;
		cur.name_len = name_len;
		cur.value = p + colon + 1;
		do
			p = (nl = nl_finder_next(&lines)) ? nl + 1 : end;
		while (p < end && is_blank(*p));
		/* the value ends with its last line, but for the line end */
		value_end = nl && nl + 1 == p ? nl : end;
		if (value_end > cur.value && value_end[-1] == '\r')
			value_end--;
		cur.value_len = (size_t)(value_end - cur.value);
		note_field(hs, &cur);
		++*nfields;
	}
	if (at - start > INMAIL_HEADER_MAX)
		*too_large = 1;
	return at;
}

/* An X-Bugbridge-Mark value: its MAIL_MARK_HEX_LEN hex digits (between
 * blanks), anything else none (mail_mark_ok() checks it). */
static enum bb_status take_mark(struct inmail *m, const char *v)
{
	size_t n = 0;

	while (is_blank(*v))
		v++;
	while (n < MAIL_MARK_HEX_LEN && g_ascii_isxdigit(v[n]))
		n++;
	if (n < MAIL_MARK_HEX_LEN)
		return BB_OK;
	for (const char *p = v + n; *p; p++)
		if (!is_blank(*p))
			return BB_OK;
	return (m->mark = mail_strndup(m, v, n)) ? BB_OK : BB_ERR_NOMEM;
}

/* The room the values of a mail's fields are unfolded into (value) and
 * their clean text is made in (text, then copied into the mail's block):
 * one a thread, kept from mail to mail (made anew each mail, it grew by
 * reallocs to the longest References of each); given back when a mail
 * made it larger than SCRATCH_KEPT. */
#define SCRATCH_KEPT (64 * 1024)

struct header_scratch {
	struct buf value, text;
	struct list_id_memo list_id;
};

static void scratch_free(gpointer p)
{
	struct header_scratch *hsc = p;

	buf_release(&hsc->value);
	buf_release(&hsc->text);
	free(hsc);
}

static GPrivate scratch_key = G_PRIVATE_INIT(scratch_free);

static struct header_scratch *header_scratch(void)
{
	struct header_scratch *hsc = g_private_get(&scratch_key);

	if (!hsc && (hsc = malloc(sizeof(*hsc)))) {
		buf_init(&hsc->value);
		buf_init(&hsc->text);
		hsc->list_id.set = 0;
		g_private_set(&scratch_key, hsc);
	}
	return hsc;
}

/* What the first block of m's strings is made for: every string comes
 * from one of these fields' values and is no longer than the value
 * unfolded (From: gives two, the name and the address), but for decoded
 * text; References' array takes a pointer an id, and ids are rarely
 * shorter than REFS_ID_MIN bytes with their blank.  What does not fit gets
 * a block of its own. */
#define REFS_ID_MIN 16

static size_t strings_size(const struct header_scan *hs)
{
	const struct field *fields[] = { &hs->message_id, &hs->in_reply_to, &hs->references,
					 &hs->from, &hs->from, &hs->subject, &hs->list_id,
					 &hs->mark };
	size_t ids = hs->references.name ? hs->references.value_len / REFS_ID_MIN + 1 : 0;
	size_t size = 2;   /* the "" of a missing From: or Subject: */

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i]->name)
			size += fields[i]->value_len + 1;
	if (ids > INMAIL_REFERENCES_MAX)
		ids = INMAIL_REFERENCES_MAX;
	return size + (ids + 1) * sizeof(char *) + _Alignof(char *);
}

/* The first field's value, unfolded, or NULL if the field is absent. */
static char *field_value(struct buf *scratch, const struct field *f)
{
	if (!f->name)
		return NULL;
	return unfold(scratch, f->value, f->value_len);
}

enum bb_status inmail_parse_headers(const char *raw, size_t len,
				    const struct inmail_options *opt,
				    struct inmail *m, struct bb_error *err)
{
	struct header_scan hs;
	struct header_scratch *hsc = header_scratch();
	struct buf *scratch = hsc ? &hsc->value : NULL, *text = hsc ? &hsc->text : NULL;
	char *v, none[1] = "";
	size_t nfields;
	int too_large;
	enum bb_status st = BB_OK;

	memset(m, 0, sizeof(*m));
	memset(&hs, 0, sizeof(hs));
	if (!hsc)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory reading mail headers");
	header_pass_init();
	m->body_offset = scan_header_section(raw, len, &hs, &too_large, &nfields);
	m->head_scan = hs.scan;
	if (hs.opaque_cte && (!hs.binary_type || hs.texty_type))
		m->head_scan |= INMAIL_SCAN_OPAQUE;
	if (too_large) {
		st = bb_error_set(err, BB_ERR_TOO_LARGE,
				  "mail header section is larger than %d bytes", INMAIL_HEADER_MAX);
		goto out;
	}
	if (nfields == 0) {
		st = bb_error_set(err, BB_ERR_INVALID, "not a mail: no header fields");
		goto out;
	}

	if (mail_block_init(m, strings_size(&hs)))
		goto nomem;
	if ((v = field_value(scratch, &hs.message_id)) && (st = take_message_id(m, v)))
		goto nomem;
	if ((v = field_value(scratch, &hs.in_reply_to)) && (st = take_in_reply_to(m, v)))
		goto nomem;
	v = field_value(scratch, &hs.references);
	if ((st = take_references(m, v ? v : none)))
		goto nomem;
	if ((v = field_value(scratch, &hs.from)) && (st = take_from(m, text, v)))
		goto nomem;
	if (!m->from_name && !(m->from_name = mail_strndup(m, "", 0)))
		goto nomem;
	v = field_value(scratch, &hs.subject);
	if (!(m->subject = v ? decode_text(m, text, v, scratch->len) : mail_strndup(m, "", 0)))
		goto nomem;
	if ((v = field_value(scratch, &hs.date)))
		m->date = decode_date(v);
	if ((v = field_value(scratch, &hs.list_id)) && (st = take_list_id(m, text, &hsc->list_id, v, scratch->len)))
		goto nomem;

	/* loops, auto-replies, bounces: the first reason that applies */
	if (hs.loop_header) {
		m->from_bridge = 1;
		m->skip_reason = "loop-header";
	} else if (opt && opt->bridge_domain && m->message_id &&
		   mail_message_id_parse(opt->bridge_domain, m->message_id, NULL)) {
		m->from_bridge = 1;
		m->skip_reason = "bridge-message-id";
	}
	if (m->from_bridge && (v = field_value(scratch, &hs.mark)) && (st = take_mark(m, v)))
		goto nomem;
	if (!m->skip_reason) {
		int bounce = hs.failed_recipients;

		if ((v = field_value(scratch, &hs.return_path)) && !strcmp(v, "<>"))
			bounce = 1;
		if (m->from_addr && list_software(m->from_addr))
			bounce = 1;
		if ((v = field_value(scratch, &hs.content_type)) &&
		    has_prefix_ci(v, strlen(v), "multipart/report") &&
		    (!v[16] || v[16] == ';' || is_blank(v[16])))
			bounce = 1;
		if (bounce)
			m->skip_reason = "bounce";
	}
	if (!m->skip_reason && hs.auto_submitted)
		m->skip_reason = "auto-submitted";
	if (!m->skip_reason && hs.autoreply_header)
		m->skip_reason = "autoreply-header";
	/* Lists (vger, majordomo) add "Precedence: bulk" to every post: with
	 * list headers one bulk is the list's own and says nothing. */
	if (!m->skip_reason &&
	    (hs.precedence_junk || hs.precedence_bulk > (hs.list_headers ? 1 : 0)))
		m->skip_reason = "precedence";
	if (!m->skip_reason && autoreply_subject(m->subject))
		m->skip_reason = "autoreply-subject";
	if (m->skip_reason && !m->from_bridge)
		m->auto_reply = 1;

	goto out;
nomem:
	st = bb_error_set(err, BB_ERR_NOMEM, "out of memory reading mail headers");
out:
	if (scratch->alloc > SCRATCH_KEPT)
		buf_release(scratch);
	if (text->alloc > SCRATCH_KEPT)
		buf_release(text);
	if (st != BB_OK)
		inmail_release(m);
	return st;
}

const char *inmail_bare_subject(const char *subject)
{
	const char *p = subject ? subject : "";

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!g_ascii_strncasecmp(p, "re:", 3) || !g_ascii_strncasecmp(p, "aw:", 3))
			p += 3;
		else if (!g_ascii_strncasecmp(p, "fwd:", 4))
			p += 4;
		else
			return p;
	}
}
