/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading list mail for the inbound bridge (see inmail.h).
 *
 * The header pass splits the header section into fields itself (RFC 5322
 * field syntax: a name, a colon, a value that continues on lines starting
 * with a blank) and hands the values of the few fields the bridge needs to
 * GMime's helpers: RFC 2047 words, addresses, dates and msg-ids are never
 * decoded here.  Building a GMimeMessage for the header pass would parse
 * every MIME part's headers of every mail, which the lazy design exists to
 * avoid.  The full decode is GMime's parser over the raw bytes in place
 * (no copy), its data wrappers for the transfer encodings and GLib's iconv
 * for charsets; what is written here is the choice of parts and the
 * fallbacks for bogus labels.
 */
#include "config.h"

#include <errno.h>
#include <iconv.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gmime/gmime.h>

#include "core/buf.h"
#include "core/text.h"
#include "mail/inmail.h"
#include "mail/inmail_internal.h"
#include "mail/mail.h"


/* --- shared helpers ------------------------------------------------------- */

static pthread_once_t inmail_once = PTHREAD_ONCE_INIT;
static GMimeParserOptions *inmail_options;

static void pin_charset(const char *mime_name, size_t len);

static void noted_names_init(void);

static void inmail_init_once(void)
{
	/* 8-bit text without a (usable) charset: UTF-8 if it is valid UTF-8,
	 * else windows-1252, which maps every byte but five. */
	static const char *fallback[] = { "UTF-8", "windows-1252", NULL };

	mail_init();
	inmail_options = g_mime_parser_options_new();
	g_mime_parser_options_set_fallback_charsets(inmail_options, fallback);
	g_mime_parser_options_set_allow_addresses_without_domain(inmail_options, FALSE);
	pin_charset(fallback[1], strlen(fallback[1]));   /* for 8-bit header text */
	noted_names_init();
}

static GMimeParserOptions *options(void)
{
	pthread_once(&inmail_once, inmail_init_once);
	return inmail_options;
}

/* Appends the UTF-8 text s (len bytes, any content) to out as it may stand
 * in a one-line field: invalid UTF-8 repaired, NUL and C0/C1 controls,
 * DEL and format characters (bidi overrides, zero-width characters) dropped, CR/LF/TAB turned into one space, runs of spaces collapsed,
 * leading and trailing spaces trimmed, cut at max bytes on a character. */
static enum bb_status add_clean_line(struct buf *out, const char *s, size_t len, size_t max)
{
	char *valid = g_utf8_make_valid(s, (gssize)len);
	const char *p = valid;
	size_t start = out->len;
	enum bb_status st = BB_OK;
	int space = 0;

	while (*p && st == BB_OK) {
		gunichar c = g_utf8_get_char(p);
		const char *next = g_utf8_next_char(p);

		if (c == '\t' || c == '\r' || c == '\n' || c == ' ') {
			space = out->len > start;
		} else if (text_is_control_char(c) || text_is_format_char(c)) {
			/* controls, DEL, C1, Unicode line separators, format
			 * characters: dropped */
		} else {
			if (out->len - start + (size_t)(next - p) + (space ? 1 : 0) > max)
				break;
			if (space)
				st = buf_addch(out, ' ');
			if (st == BB_OK)
				st = buf_add(out, p, (size_t)(next - p));
			space = 0;
		}
		p = next;
	}
	g_free(valid);
	return st;
}

/* A malloc'd clean copy (see add_clean_line()), NULL when out of memory. */
static char *clean_line(const char *s, size_t len, size_t max)
{
	struct buf b = BUF_INIT;
	size_t i;

	/* most values are printable ASCII with single blanks: copy them */
	for (i = 0; i < len && i < max; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || (c == ' ' && (i == 0 || s[i - 1] == ' ')))
			break;
	}
	if (i == len && (len == 0 || s[len - 1] != ' ')) {
		char *out = malloc(len + 1);

		if (out) {
			memcpy(out, s, len);
			out[len] = '\0';
		}
		return out;
	}

	if (add_clean_line(&b, s, len, max) != BB_OK) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
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

/* msgid_normalise_into() into a new string (free()); NULL when unusable
 * or out of memory (*nomem says which). */
static char *msgid_normalise(const char *id, size_t idlen, int *nomem)
{
	char tmp[INMAIL_MESSAGE_ID_MAX + 1], *out;

	if (!id || !msgid_normalise_into(id, idlen, tmp))
		return NULL;
	if (!(out = strdup(tmp)))
		*nomem = 1;
	return out;
}

/* The usable msg-ids of an In-Reply-To or References value, normalised,
 * in order: each one's text in ids->arena (NUL-terminated, one after the
 * other), ids->n of them, the i-th at msgids_at(ids, i); msgids_release()
 * frees them. */
#define MSGIDS_FEW 64
struct msgids {
	struct buf arena;
	size_t n;
	size_t *off;            /* where each id starts in arena: few, or malloc'd */
	size_t cap;
	size_t few[MSGIDS_FEW];
};

static const char *msgids_at(const struct msgids *ids, size_t i)
{
	return ids->arena.data + ids->off[i];
}

/* Appends the id of n bytes at id (NUL-terminated) to ids. */
static enum bb_status msgids_add(struct msgids *ids, const char *id, size_t n)
{
	if (ids->n == ids->cap) {
		size_t cap = ids->cap * 2;
		size_t *off = ids->off == ids->few ? malloc(cap * sizeof(*off))
						   : realloc(ids->off, cap * sizeof(*off));

		if (!off)
			return BB_ERR_NOMEM;
		if (ids->off == ids->few)
			memcpy(off, ids->few, sizeof(ids->few));
		ids->off = off;
		ids->cap = cap;
	}
	ids->off[ids->n] = ids->arena.len;
	if (buf_add(&ids->arena, id, n + 1))
		return BB_ERR_NOMEM;
	ids->n++;
	return BB_OK;
}

static enum bb_status parse_msgids(const char *value, struct msgids *ids)
{
	GMimeReferences *refs = g_mime_references_parse(options(), value);
	char tmp[INMAIL_MESSAGE_ID_MAX + 1];
	enum bb_status st = BB_OK;

	buf_init(&ids->arena);
	ids->n = 0;
	ids->off = ids->few;
	ids->cap = MSGIDS_FEW;
	for (int i = 0; refs && i < g_mime_references_length(refs) && !st; i++) {
		const char *id = g_mime_references_get_message_id(refs, i);
		size_t n = id ? msgid_normalise_into(id, strlen(id), tmp) : 0;

		if (n)
			st = msgids_add(ids, tmp, n);
	}
	if (refs)
		g_mime_references_free(refs);
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

/* Unfolds a raw field value into scratch: line ends go (RFC 5322 unfolding
 * keeps the blank that follows them), NUL bytes go, a bare CR becomes a
 * blank, blanks at both ends go.
 * Returns scratch's NUL-terminated contents. */
static const char *unfold(struct buf *scratch, const char *v, size_t len)
{
	const char *end = v + len;
	size_t keep;

	buf_reset(scratch);
	while (v < end && (is_blank(*v) || *v == '\r' || *v == '\n'))
		v++;
	if (buf_grow(scratch, (size_t)(end - v) + 1) != BB_OK)
		return NULL;
	/* line by line: most lines hold no CR and no NUL, and are copied whole */
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

/* The Message-ID as GMime reads it; when that is nothing usable, the raw
 * text inside the first <...> (or the whole value without brackets). */
static enum bb_status take_message_id(struct inmail *m, const char *value)
{
	char *gmime_id = g_mime_utils_decode_message_id(value);
	int nomem = 0;

	m->message_id = gmime_id ? msgid_normalise(gmime_id, strlen(gmime_id), &nomem) : NULL;
	g_free(gmime_id);
	if (!m->message_id && !nomem) {
		const char *open = strchr(value, '<'), *start = open ? open + 1 : value;
		const char *close = strchr(start, '>');

		m->message_id = msgid_normalise(start, close ? (size_t)(close - start) : strlen(start),
						&nomem);
	}
	return nomem ? BB_ERR_NOMEM : BB_OK;
}

static enum bb_status take_in_reply_to(struct inmail *m, const char *value)
{
	struct msgids ids;
	enum bb_status st = parse_msgids(value, &ids);

	if (!st && ids.n && !(m->in_reply_to = strdup(msgids_at(&ids, 0))))
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
static enum bb_status take_references(struct inmail *m, const char *value)
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
	m->references = calloc(npicked + (root ? 1 : 0) + 1, sizeof(char *));
	if (!m->references) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	if (root && !(m->references[m->nreferences++] = strdup(root))) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	while (npicked > 0) {
		if (!(m->references[m->nreferences] = strdup(picked[--npicked]))) {
			st = BB_ERR_NOMEM;
			goto out;
		}
		m->nreferences++;
	}
out:
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

/* addr-spec with the domain lower-cased; NULL for nothing usable. */
static char *clean_address(const char *addr)
{
	char *out, *at;

	if (!addr || !*addr)
		return NULL;
	out = clean_line(addr, strlen(addr), INMAIL_TEXT_MAX);
	if (!out)
		return NULL;
	if (!*out || strchr(out, ' ') || strchr(out, '<') || strchr(out, '>')) {
		free(out);
		return NULL;
	}
	if ((at = strrchr(out, '@')))
		for (char *p = at + 1; *p; p++)
			*p = (char)ascii_lower((unsigned char)*p);
	return out;
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
 * a hash table of the value to a struct from_seen, emptied when full. */
#define FROM_MEMO_MAX 4096
#define FROM_MEMO_VALUE_MAX 256   /* longer values are parsed every time */
struct from_seen {
	char *addr;   /* NULL: no mailbox */
	char *name;
};

static void from_seen_free(gpointer p)
{
	struct from_seen *f = p;

	free(f->addr);
	free(f->name);
	free(f);
}

static void from_memo_free(gpointer p)
{
	g_hash_table_destroy(p);
}

static GPrivate from_memo_key = G_PRIVATE_INIT(from_memo_free);

static GHashTable *from_memo(void)
{
	GHashTable *memo = g_private_get(&from_memo_key);

	if (!memo) {
		memo = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, from_seen_free);
		g_private_set(&from_memo_key, memo);
	}
	return memo;
}

/* Kept as parsed; nothing is kept when a copy cannot be made. */
static void from_remember(GHashTable *memo, const char *value, const struct inmail *m)
{
	struct from_seen *f;

	if (strlen(value) > FROM_MEMO_VALUE_MAX || !(f = calloc(1, sizeof(*f))))
		return;
	f->addr = m->from_addr ? strdup(m->from_addr) : NULL;
	f->name = strdup(m->from_name);
	if ((m->from_addr && !f->addr) || !f->name) {
		from_seen_free(f);
		return;
	}
	if (g_hash_table_size(memo) >= FROM_MEMO_MAX)
		g_hash_table_remove_all(memo);
	g_hash_table_replace(memo, g_strdup(value), f);
}

static enum bb_status take_from(struct inmail *m, const char *value)
{
	GHashTable *memo = from_memo();
	const struct from_seen *seen = g_hash_table_lookup(memo, value);
	InternetAddressList *list;
	InternetAddressMailbox *mb;
	const char *name;
	char *joined;

	if (seen) {
		m->from_addr = seen->addr ? strdup(seen->addr) : NULL;
		m->from_name = strdup(seen->name);
		if ((seen->addr && !m->from_addr) || !m->from_name)
			return BB_ERR_NOMEM;
		return BB_OK;
	}
	pin_charsets(value);
	joined = join_padded_words(value);
	list = internet_address_list_parse(options(), joined ? joined : value);
	g_free(joined);
	mb = first_mailbox(list, 0);
	name = mb ? internet_address_get_name(INTERNET_ADDRESS(mb)) : NULL;
	if (mb)
		m->from_addr = clean_address(internet_address_mailbox_get_addr(mb));
	m->from_name = clean_line(name ? name : "", name ? strlen(name) : 0, INMAIL_TEXT_MAX);
	if (list)
		g_object_unref(list);
	if (!m->from_name)
		return BB_ERR_NOMEM;
	from_remember(memo, value, m);
	return BB_OK;
}

/* Decodes an unstructured value (RFC 2047, raw 8-bit bytes) into a clean
 * line.  Plain ASCII without encoded words needs no decoder. */
static char *decode_text(const char *value)
{
	const unsigned char *p;
	char *decoded, *out, *joined;

	for (p = (const unsigned char *)value; *p; p++)
		if (*p >= 0x80 || (p[0] == '=' && p[1] == '?'))
			break;
	if (!*p)
		return clean_line(value, strlen(value), INMAIL_TEXT_MAX);
	pin_charsets(value);
	joined = join_padded_words(value);
	decoded = g_mime_utils_header_decode_text(options(), joined ? joined : value);
	g_free(joined);
	out = clean_line(decoded ? decoded : "", decoded ? strlen(decoded) : 0, INMAIL_TEXT_MAX);
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

static time_t decode_date(const char *value)
{
	GDateTime *dt = g_mime_utils_header_decode_date(value);
	gint64 t;

	if (!dt)
		return 0;
	t = g_date_time_to_unix(dt);
	pin_zone(g_date_time_get_timezone(dt));
	g_date_time_unref(dt);
	if (t <= 0 || (sizeof(time_t) < 8 && t > INT32_MAX))
		return 0;
	return (time_t)t;
}

/* List-Id: "Some phrase <list.example.org>"; the part in <> (else the
 * value), lower-case. */
static char *list_id(const char *value)
{
	const char *open = strrchr(value, '<'), *close;
	char *out;

	if (open && (close = strchr(open, '>')))
		out = clean_line(open + 1, (size_t)(close - open - 1), INMAIL_TEXT_MAX);
	else
		out = clean_line(value, strlen(value), INMAIL_TEXT_MAX);
	if (!out)
		return NULL;
	for (char *p = out; *p; p++)
		*p = (char)ascii_lower((unsigned char)*p);
	if (!*out || strchr(out, ' ')) {
		free(out);
		return NULL;
	}
	return out;
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

/* Skips an mbox "From " line at the start. */
static size_t skip_from_line(const char *raw, size_t len)
{
	const char *nl;

	if (len < 5 || memcmp(raw, "From ", 5) != 0)
		return 0;
	nl = memchr(raw, '\n', len);
	return nl ? (size_t)(nl + 1 - raw) : len;
}

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

static size_t field_name_len(const char *line, size_t len, size_t *colon)
{
	size_t i = 0, name_end;

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

/* Whether the field's name (n, l) is lit, a string literal, ignoring case:
 * its length known when compiled, most names are passed over on it. */
#define NAME_IS(lit) (l == sizeof(lit) - 1 && same_ci(n, lit, sizeof(lit) - 1))

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
	free(m->message_id);
	free(m->in_reply_to);
	if (m->references)
		for (size_t i = 0; m->references[i]; i++)
			free(m->references[i]);
	free(m->references);
	free(m->from_name);
	free(m->from_addr);
	free(m->subject);
	free(m->list_id);
	free(m->mark);
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
 * sets *too_large. */
static size_t scan_header_section(const char *raw, size_t len, struct header_scan *hs,
				  int *too_large, size_t *nfields)
{
	size_t pos = skip_from_line(raw, len), start = pos;
	struct field cur = { NULL, NULL, 0, 0 };

	*too_large = 0;
	*nfields = 0;
	while (pos < len) {
		const char *line = raw + pos, *nl = memchr(line, '\n', len - pos);
		size_t line_len = nl ? (size_t)(nl - line) : len - pos, content = line_len, colon, name_len;
		size_t next = nl ? pos + line_len + 1 : len;

		if (pos - start > INMAIL_HEADER_MAX) {
			*too_large = 1;
			return pos;
		}
		if (content && line[content - 1] == '\r')
			content--;
		if (content == 0) {         /* the empty line: the body follows */
			pos = next;
			break;
		}
		if (is_blank(line[0])) {
			if (cur.name)
				cur.value_len = (size_t)(line + content - cur.value);
			pos = next;
			continue;
		}
		name_len = field_name_len(line, content, &colon);
		if (!name_len)
			break;   /* not a field: the body starts here (no empty line) */
		if (cur.name) {
			note_field(hs, &cur);
			++*nfields;
		}
		cur.name = line;
		cur.name_len = name_len;
		cur.value = line + colon + 1;
		cur.value_len = content - colon - 1;
		pos = next;
	}
	if (pos - start > INMAIL_HEADER_MAX) {
		*too_large = 1;
		return pos;
	}
	if (cur.name) {
		note_field(hs, &cur);
		++*nfields;
	}
	return pos;
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
	return (m->mark = strndup(v, n)) ? BB_OK : BB_ERR_NOMEM;
}

/* The first field's value, unfolded, or NULL if the field is absent. */
static const char *field_value(struct buf *scratch, const struct field *f)
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
	struct buf scratch = BUF_INIT;
	const char *v;
	size_t nfields;
	int too_large;
	enum bb_status st = BB_OK;

	memset(m, 0, sizeof(*m));
	memset(&hs, 0, sizeof(hs));
	options();
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

	if ((v = field_value(&scratch, &hs.message_id)) && (st = take_message_id(m, v)))
		goto nomem;
	if ((v = field_value(&scratch, &hs.in_reply_to)) && (st = take_in_reply_to(m, v)))
		goto nomem;
	if (m->in_reply_to && m->message_id && !strcmp(m->in_reply_to, m->message_id)) {
		free(m->in_reply_to);
		m->in_reply_to = NULL;
	}
	v = field_value(&scratch, &hs.references);
	if ((st = take_references(m, v ? v : "")))
		goto nomem;
	if ((v = field_value(&scratch, &hs.from)) && (st = take_from(m, v)))
		goto nomem;
	if (!m->from_name && !(m->from_name = strdup("")))
		goto nomem;
	v = field_value(&scratch, &hs.subject);
	if (!(m->subject = v ? decode_text(v) : strdup("")))
		goto nomem;
	if ((v = field_value(&scratch, &hs.date)))
		m->date = decode_date(v);
	if ((v = field_value(&scratch, &hs.list_id)))
		m->list_id = list_id(v);

	/* loops, auto-replies, bounces: the first reason that applies */
	if (hs.loop_header) {
		m->from_bridge = 1;
		m->skip_reason = "loop-header";
	} else if (opt && opt->bridge_domain && m->message_id &&
		   mail_message_id_parse(opt->bridge_domain, m->message_id, NULL)) {
		m->from_bridge = 1;
		m->skip_reason = "bridge-message-id";
	}
	if (m->from_bridge && (v = field_value(&scratch, &hs.mark)) && (st = take_mark(m, v)))
		goto nomem;
	if (!m->skip_reason) {
		int bounce = hs.failed_recipients;

		if ((v = field_value(&scratch, &hs.return_path)) && !strcmp(v, "<>"))
			bounce = 1;
		if (m->from_addr && list_software(m->from_addr))
			bounce = 1;
		if ((v = field_value(&scratch, &hs.content_type)) &&
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
	buf_release(&scratch);
	if (st != BB_OK)
		inmail_release(m);
	return st;
}

/* --- full decode ----------------------------------------------------------- */

/* A GMime stream that reads data in place: GMime only reads from it, and
 * the caller's bytes outlive it. */
static GMimeStream *stream_over(const char *data, size_t len, GByteArray **array)
{
	GMimeStream *stream;

	*array = g_byte_array_new_take((guint8 *)(uintptr_t)data, len);
	stream = g_mime_stream_mem_new_with_byte_array(*array);
	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(stream), FALSE);
	return stream;
}

/* A GMime parser over stream, reading format (a message or an mbox). */
static GMimeParser *parser_over(GMimeStream *stream, GMimeFormat format)
{
	GMimeParser *parser = g_mime_parser_new_with_stream(stream);

	g_mime_parser_set_format(parser, format);
	return parser;
}

static void stream_done(GMimeStream *stream, GByteArray *array)
{
	g_object_unref(stream);
	g_byte_array_free(array, FALSE);  /* the bytes are the caller's */
}

static int charset_is(const char *charset, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (!g_ascii_strcasecmp(charset, names[i]))
			return 1;
	return 0;
}

static const char *const ascii_names[] = {
	"us-ascii", "ascii", "ansi_x3.4-1968", "iso646-us", "iso_646.irv:1991", "us", NULL
};
static const char *const utf8_names[] = { "utf-8", "utf8", NULL };
/* Labels that mean windows-1252 in practice (as in the WHATWG encoding
 * standard): its printable characters where these have C1 controls. */
static const char *const latin1_names[] = { "iso-8859-1", "iso8859-1", "latin1", "l1", NULL };

/* Converts with iconv, putting U+FFFD for bytes that are invalid in the
 * source charset instead of failing. */
static GString *iconv_lenient(iconv_t cd, const char *bytes, size_t len)
{
	GString *s = g_string_sized_new(len + 16);
	char *in = (char *)(uintptr_t)bytes, *outp;
	size_t inleft = len, outleft;
	char tmp[4096];

	while (inleft > 0) {
		size_t r;

		outp = tmp;
		outleft = sizeof(tmp);
		r = iconv(cd, &in, &inleft, &outp, &outleft);
		g_string_append_len(s, tmp, (gssize)(outp - tmp));
		if (r != (size_t)-1 || errno == E2BIG)
			continue;
		g_string_append(s, "\xEF\xBF\xBD");
		if (errno != EILSEQ)
			break;   /* EINVAL: a sequence cut off at the end */
		in++;
		inleft--;
	}
	outp = tmp;
	outleft = sizeof(tmp);
	iconv(cd, NULL, NULL, &outp, &outleft);   /* back to the initial shift state */
	g_string_append_len(s, tmp, (gssize)(outp - tmp));
	return s;
}

/* 8-bit text of unknown charset: GMime picks from the fallback charsets
 * (UTF-8, then windows-1252).  NUL bytes are no text in any of them. */
static char *decode_unknown(const char *bytes, size_t len)
{
	char *copy = g_malloc(len + 1), *out;
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (bytes[i])
			copy[n++] = bytes[i];
	copy[n] = '\0';
	if (g_utf8_validate(copy, (gssize)n, NULL))
		return copy;
	out = g_mime_utils_decode_8bit(options(), copy, n);
	g_free(copy);
	/* GMime can hand back bytes that are not UTF-8 (seen: 0xF5) */
	if (!g_utf8_validate(out, -1, NULL)) {
		copy = g_utf8_make_valid(out, -1);
		g_free(out);
		out = copy;
	}
	return out;
}

/* Converters to UTF-8 kept open for reuse: iconv_open() loads the
 * charset's gconv module and iconv_close() unloads it again, which cost
 * more than the conversion itself when every mail did both.  A converter
 * is taken out of the cache while in use, so threads never share one. */
#define CONVERTERS 8
static struct {
	char name[40];
	iconv_t cd;
} converters[CONVERTERS];
static size_t nconverters;
static pthread_mutex_t converters_lock = PTHREAD_MUTEX_INITIALIZER;

static iconv_t converter_take(const char *name)
{
	iconv_t cd = (iconv_t)-1;

	pthread_mutex_lock(&converters_lock);
	for (size_t i = nconverters; i-- > 0;)
		if (!strcmp(converters[i].name, name)) {
			cd = converters[i].cd;
			converters[i] = converters[--nconverters];
			break;
		}
	pthread_mutex_unlock(&converters_lock);
	return cd != (iconv_t)-1 ? cd : iconv_open("UTF-8", name);
}

/* Gives a converter back, in its initial shift state. */
static void converter_give(const char *name, iconv_t cd)
{
	iconv(cd, NULL, NULL, NULL, NULL);
	pthread_mutex_lock(&converters_lock);
	if (strlen(name) < sizeof(converters[0].name)) {
		if (nconverters == CONVERTERS) {   /* the oldest makes room */
			iconv_close(converters[0].cd);
			memmove(&converters[0], &converters[1],
				(CONVERTERS - 1) * sizeof(converters[0]));
			nconverters--;
		}
		strcpy(converters[nconverters].name, name);
		converters[nconverters++].cd = cd;
		cd = (iconv_t)-1;
	}
	pthread_mutex_unlock(&converters_lock);
	if (cd != (iconv_t)-1)
		iconv_close(cd);
}

/* 0 for a label that can name no charset, such as charset="'": glibc's
 * iconv_open() ignores the punctuation in a name and takes what is left,
 * nothing, for the locale's charset (ASCII in services), which turned all
 * 8-bit text into U+FFFD.  A name needs a letter or digit, and no blank or
 * control character. */
static int charset_label_usable(const char *name)
{
	int alnum = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p <= 0x20 || *p >= 0x7f)
			return 0;
		alnum |= g_ascii_isalnum(*p);
	}
	return alnum;
}

/* Text of a part in charset (may be NULL) as valid UTF-8; g_free() it. */
static char *to_utf8(const char *bytes, size_t len, const char *charset)
{
	const char *name;
	iconv_t cd;
	GString *s;
	char *valid;

	if (len == 0)
		return g_strdup("");
	if (!charset || !*charset || charset_is(charset, ascii_names))
		return decode_unknown(bytes, len);
	if (charset_is(charset, utf8_names))
		return g_utf8_make_valid(bytes, (gssize)len);
	name = charset_is(charset, latin1_names) ? "WINDOWS-1252" : g_mime_charset_iconv_name(charset);
	cd = name && charset_label_usable(name) ? converter_take(name) : (iconv_t)-1;
	if (cd == (iconv_t)-1)
		return decode_unknown(bytes, len);   /* a bogus label */
	s = iconv_lenient(cd, bytes, len);
	converter_give(name, cd);
	valid = g_utf8_make_valid(s->str, (gssize)s->len);
	g_string_free(s, TRUE);
	return valid;
}

/* Appends valid UTF-8 text as body text: LF line ends (CRLF and bare CR
 * become LF), no NUL, no other C0 controls but TAB, no DEL. */
/* Where the first byte below 0x20, or DEL, is in the 8 bytes at s (8 if
 * none): a word at a time, as most text has one only at a line's end. */
static size_t first_control8(const char *s)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t w, del;

	memcpy(&w, s, sizeof(w));
	del = w ^ (0x7f * ones);
	/* a high bit per byte that is below 0x20 or is 0x7f (and maybe false
	 * ones above a true one: the bytes are looked at one by one then) */
	if ((((w - 0x20 * ones) & ~w) | ((del - ones) & ~del)) & highs) {
		for (size_t i = 0; i < 8; i++)
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
				return i;
	}
	return 8;
}

static enum bb_status add_body_text(struct buf *out, const char *s, size_t len)
{
	enum bb_status st = buf_grow(out, len + 1);
	size_t run = 0;   /* where the bytes not yet added start */

	/* runs of bytes that stay as they are go in whole */
	for (size_t i = 0; i < len && st == BB_OK; i++) {
		unsigned char c;

		while (i + 8 <= len) {
			size_t k = first_control8(s + i);

			i += k;
			if (k < 8)
				break;
		}
		if (i >= len)
			break;
		c = (unsigned char)s[i];
		if ((c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t')
			continue;
		st = buf_add(out, s + run, i - run);
		run = i + 1;
		/* CR LF is LF (the LF follows); a lone CR is one; other
		 * controls go */
		if (st == BB_OK && c == '\r' && !(i + 1 < len && s[i + 1] == '\n'))
			st = buf_addch(out, '\n');
	}
	if (st == BB_OK)
		st = buf_add(out, s + run, len - run);
	return st;
}

/* --- walking the MIME tree ------------------------------------------------ */

struct decode {
	struct inmail_body *b;
	struct buf text, html;
	struct buf named_html;  /* the first inline HTML part with a file name */
	size_t leaves, parts_alloc;
	enum bb_status st;
	struct bb_error *err;
};

/* What content (a data wrapper, NULL: none) holds with its transfer
 * encoding undone, in an array sized for its encoded size bytes, which no
 * decoding makes more of: written once, never grown by copying (a large
 * part had a copy at each doubling). */
static GByteArray *wrapper_bytes(GMimeDataWrapper *content, gint64 size)
{
	GByteArray *array = g_byte_array_sized_new(size > 0 && size < G_MAXUINT - 1 ? (guint)size + 1 : 0);
	GMimeStream *mem = g_mime_stream_mem_new_with_byte_array(array);

	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
	if (content)
		g_mime_data_wrapper_write_to_stream(content, mem);
	g_object_unref(mem);
	return array;
}

/* The decoded content of a leaf part (transfer encoding undone). */
static GByteArray *part_bytes(GMimePart *part)
{
	GMimeDataWrapper *content = g_mime_part_get_content(part);
	GMimeStream *encoded = content ? g_mime_data_wrapper_get_stream(content) : NULL;

	return wrapper_bytes(content, encoded ? g_mime_stream_length(encoded) : -1);
}

static int patch_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 6 && !g_ascii_strcasecmp(name + n - 6, ".patch")) ||
		(n > 5 && !g_ascii_strcasecmp(name + n - 5, ".diff"));
}

static char *clean_filename(const char *name)
{
	const char *base;
	char *out;

	if (!name)
		return NULL;
	base = name + strlen(name);
	while (base > name && base[-1] != '/' && base[-1] != '\\')
		base--;
	out = clean_line(base, strlen(base), 255);
	if (out && (!*out || !strcmp(out, ".") || !strcmp(out, ".."))) {
		free(out);
		out = NULL;
	}
	return out;
}

static void decode_fail(struct decode *d, enum bb_status st, const char *what)
{
	if (d->st != BB_OK)
		return;
	d->st = st;
	if (st == BB_ERR_NOMEM)
		bb_error_set(d->err, st, "out of memory decoding mail (%s)", what);
	else
		bb_error_set(d->err, st, "%s", what);
}

static void add_attachment(struct decode *d, GMimeContentType *ct, const char *filename,
			   const guint8 *data, size_t len)
{
	struct inmail_body *b = d->b;
	struct inmail_part *p;
	char *type;

	if (len == 0)
		return;   /* nothing to store */
	if (b->nparts == d->parts_alloc) {
		size_t na = d->parts_alloc ? d->parts_alloc * 2 : 4;
		struct inmail_part *np = realloc(b->parts, na * sizeof(*np));

		if (!np) {
			decode_fail(d, BB_ERR_NOMEM, "attachment list");
			return;
		}
		b->parts = np;
		d->parts_alloc = na;
	}
	p = &b->parts[b->nparts];
	memset(p, 0, sizeof(*p));
	type = g_mime_content_type_get_mime_type(ct);
	p->content_type = clean_line(type ? type : "application/octet-stream",
				     type ? strlen(type) : 24, 255);
	g_free(type);
	p->filename = clean_filename(filename);
	p->data = malloc(len + 1);
	if (!p->content_type || !p->data) {
		free(p->content_type);
		free(p->filename);
		free(p->data);
		decode_fail(d, BB_ERR_NOMEM, "attachment");
		return;
	}
	for (char *c = p->content_type; *c; c++)
		*c = (char)ascii_lower((unsigned char)*c);
	memcpy(p->data, data, len);
	p->data[len] = 0;
	p->len = len;
	b->nparts++;
}

static int type_is(GMimeContentType *ct, const char *type, const char *subtype)
{
	return g_mime_content_type_is_type(ct, type, subtype);
}

/* Whether a leaf part of type ct adds nothing, so that its content need
 * not be decoded: the signature of a signed mail, or an encrypted part
 * (which marks the body encrypted). */
static int leaf_without_content(struct decode *d, GMimeContentType *ct)
{
	if (type_is(ct, "application", "pgp-signature") ||
	    type_is(ct, "application", "pkcs7-signature") ||
	    type_is(ct, "application", "x-pkcs7-signature"))
		return 1;
	if (type_is(ct, "application", "pkcs7-mime") || type_is(ct, "application", "x-pkcs7-mime") ||
	    type_is(ct, "application", "pgp-encrypted")) {
		d->b->encrypted = 1;
		return 1;
	}
	return 0;
}

/* What a leaf part with content (not leaf_without_content()) adds to the
 * body or the attachments: its type ct, its disposition (NULL: none), its
 * file name (NULL: none) and its content with the transfer encoding undone
 * (bytes, which this frees). */
/* add_body_text() of text (tlen bytes, g_malloc'd, which is malloc) into
 * an empty out, in place: the cleaning only drops or replaces bytes, so
 * text becomes out's memory instead of a second copy of a body that may
 * be 50 MB. */
static void adopt_body_text(struct buf *out, char *text, size_t tlen)
{
	size_t w = 0;

	for (size_t i = 0; i < tlen; i++) {
		unsigned char c;

		while (i + 8 <= tlen) {
			size_t k = first_control8(text + i);

			if (w != i)
				memmove(text + w, text + i, k);
			w += k;
			i += k;
			if (k < 8)
				break;
		}
		if (i >= tlen)
			break;
		c = (unsigned char)text[i];
		if ((c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t')
			text[w++] = (char)c;
		else if (c == '\r' && !(i + 1 < tlen && text[i + 1] == '\n'))
			text[w++] = '\n';
	}
	text[w] = '\0';
	if (out->alloc)
		free(out->data);
	out->data = text;
	out->len = w;
	out->alloc = tlen + 1;
}

/* A leaf's content (len bytes at data) as body text, HTML or an
 * attachment; own, when not NULL, holds data and is freed here, as soon as
 * the text made of it is all that is needed (NULL: data is the caller's,
 * a single part's bytes in the mail itself). */
static void leaf_content(struct decode *d, GMimeContentType *ct, const char *disposition,
			 const char *filename, const guint8 *data, size_t len, GByteArray *own)
{
	int attached = disposition && !g_ascii_strcasecmp(disposition, "attachment");

	if (type_is(ct, "text", "*") && !attached &&
	    (type_is(ct, "text", "plain") || type_is(ct, "text", "x-patch") ||
	     type_is(ct, "text", "x-diff") || type_is(ct, "text", "html"))) {
		const char *charset = g_mime_content_type_get_parameter(ct, "charset");
		char *text = to_utf8((const char *)data, len, charset);
		size_t tlen = strlen(text);
		int html = type_is(ct, "text", "html");
		int body = (html && !filename) ||
			   (!html && tlen && (!filename || patch_name(filename) ||
					      !type_is(ct, "text", "plain") || inmail_has_hunk(text, tlen)));

		if (body || !tlen) {
			/* only the text is needed from here: a large part is held
			 * twice at most (text and what is made of it), not three times */
			if (own)
				g_byte_array_free(own, TRUE);
			own = NULL;
			data = NULL;
		}
		if (html && !filename) {
			struct buf *out = &d->html;

			if (out->len && buf_addch(out, '\n') != BB_OK)
				decode_fail(d, BB_ERR_NOMEM, "HTML");
			else if (inmail_html_to_text(out, text, tlen) != BB_OK)
				decode_fail(d, BB_ERR_NOMEM, "HTML");
		} else if (body) {
			struct buf *out = &d->text;

			/* pieces end with a line end (MIME gives the last one to
			 * the boundary) and are a blank line apart */
			if (!out->len) {
				adopt_body_text(out, text, tlen);
				text = NULL;
				if (out->len && out->data[out->len - 1] != '\n' &&
				    buf_addch(out, '\n') != BB_OK)
					decode_fail(d, BB_ERR_NOMEM, "text");
			} else if ((out->len && buf_addch(out, '\n') != BB_OK) ||
			    add_body_text(out, text, tlen) != BB_OK ||
			    (out->len && out->data[out->len - 1] != '\n' && buf_addch(out, '\n') != BB_OK))
				decode_fail(d, BB_ERR_NOMEM, "text");
		} else if (tlen) {
			if (html && d->named_html.len == 0 &&
			    inmail_html_to_text(&d->named_html, text, tlen) != BB_OK)
				decode_fail(d, BB_ERR_NOMEM, "HTML");
			add_attachment(d, ct, filename, data, len);
		}
		g_free(text);
	} else {
		add_attachment(d, ct, filename, data, len);
	}
	if (own)
		g_byte_array_free(own, TRUE);
}

static void decode_leaf(struct decode *d, GMimePart *part)
{
	GMimeObject *obj = GMIME_OBJECT(part);
	GMimeContentType *ct = g_mime_object_get_content_type(obj);

	if (!leaf_without_content(d, ct)) {
		GByteArray *bytes = part_bytes(part);

		leaf_content(d, ct, g_mime_object_get_disposition(obj), g_mime_part_get_filename(part),
			     bytes->data, bytes->len, bytes);
	}
}

static void decode_message_part(struct decode *d, GMimeMessagePart *mp)
{
	GMimeMessage *inner = g_mime_message_part_get_message(mp);
	GMimeContentDisposition *disp = g_mime_object_get_content_disposition(GMIME_OBJECT(mp));
	const char *filename = disp ? g_mime_content_disposition_get_parameter(disp, "filename") : NULL;
	GByteArray *array;
	GMimeStream *mem;

	if (!inner)
		return;
	array = g_byte_array_new();
	mem = g_mime_stream_mem_new_with_byte_array(array);
	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
	g_mime_object_write_to_stream(GMIME_OBJECT(inner), NULL, mem);
	g_object_unref(mem);
	add_attachment(d, g_mime_object_get_content_type(GMIME_OBJECT(mp)), filename, array->data, array->len);
	g_byte_array_free(array, TRUE);
}

/* 1 if obj is, or a multipart whose first level holds, a text/plain part. */
static int has_plain(GMimeObject *obj)
{
	if (GMIME_IS_PART(obj))
		return type_is(g_mime_object_get_content_type(obj), "text", "plain");
	if (GMIME_IS_MULTIPART(obj) && !GMIME_IS_MULTIPART_ENCRYPTED(obj)) {
		GMimeMultipart *mp = GMIME_MULTIPART(obj);

		for (int i = 0; i < g_mime_multipart_get_count(mp); i++) {
			GMimeObject *c = g_mime_multipart_get_part(mp, i);

			if (GMIME_IS_PART(c) && type_is(g_mime_object_get_content_type(c), "text", "plain"))
				return 1;
		}
	}
	return 0;
}

static void decode_walk(struct decode *d, GMimeObject *obj, int depth)
{
	if (!obj || d->st != BB_OK)
		return;
	if (depth > INMAIL_DEPTH_MAX) {
		d->b->skipped_parts++;
		return;
	}
	if (GMIME_IS_MULTIPART_ENCRYPTED(obj)) {
		d->b->encrypted = 1;
		return;
	}
	if (GMIME_IS_MULTIPART_SIGNED(obj)) {
		GMimeMultipart *mp = GMIME_MULTIPART(obj);

		if (g_mime_multipart_get_count(mp) > 0)
			decode_walk(d, g_mime_multipart_get_part(mp, GMIME_MULTIPART_SIGNED_CONTENT),
				    depth + 1);
		return;
	}
	if (GMIME_IS_MULTIPART(obj)) {
		GMimeMultipart *mp = GMIME_MULTIPART(obj);
		int n = g_mime_multipart_get_count(mp);

		if (type_is(g_mime_object_get_content_type(obj), "multipart", "alternative")) {
			/* the text/plain alternative, else all of them */
			for (int i = 0; i < n; i++) {
				GMimeObject *c = g_mime_multipart_get_part(mp, i);

				if (has_plain(c)) {
					decode_walk(d, c, depth + 1);
					return;
				}
			}
		}
		for (int i = 0; i < n && d->st == BB_OK; i++)
			decode_walk(d, g_mime_multipart_get_part(mp, i), depth + 1);
		return;
	}
	if (++d->leaves > INMAIL_PARTS_MAX) {
		char msg[96];

		snprintf(msg, sizeof(msg), "mail has more than %d MIME parts", INMAIL_PARTS_MAX);
		decode_fail(d, BB_ERR_TOO_LARGE, msg);
		return;
	}
	if (GMIME_IS_MESSAGE_PART(obj))
		decode_message_part(d, GMIME_MESSAGE_PART(obj));
	else if (GMIME_IS_PART(obj))
		decode_leaf(d, GMIME_PART(obj));
}

/* 1 if no empty line ends the header section within INMAIL_HEADER_MAX
 * bytes (the header pass refuses such mail too). */
static int header_section_too_large(const char *raw, size_t len)
{
	const char *p = raw, *end = raw + (len < INMAIL_HEADER_MAX ? len : INMAIL_HEADER_MAX);

	if (len <= INMAIL_HEADER_MAX)
		return 0;
	while (p < end && (p = memchr(p, '\n', (size_t)(end - p)))) {
		p++;
		if (p < end && (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')))
			return 0;
	}
	return 1;
}

void inmail_body_release(struct inmail_body *b)
{
	if (!b)
		return;
	free(b->text);
	for (size_t i = 0; i < b->nparts; i++) {
		free(b->parts[i].filename);
		free(b->parts[i].content_type);
		free(b->parts[i].data);
	}
	free(b->parts);
	memset(b, 0, sizeof(*b));
}

/* The lines of a header section that is plain enough to be sure GMime
 * splits it the same way: every line a "name:" field (printable name) or
 * a folded one, no NUL and no CR but before LF, and a blank line to end
 * it.  fn is called with each line (len bytes, its line end included) and
 * the length of its field's name (0 for a folded line); a non-zero return
 * stops.  Returns where the blank line starts, or 0 when the section is
 * not plain or fn stopped. */
static size_t plain_header(const char *raw, size_t len,
			   int (*fn)(void *ctx, const char *line, size_t len, size_t name), void *ctx)
{
	size_t pos = 0;

	while (pos < len) {
		const char *line = raw + pos, *nl = memchr(line, '\n', len - pos), *colon;
		size_t n, name = 0;

		if (!nl)
			return 0;
		n = (size_t)(nl - line);
		if (n && line[n - 1] == '\r')
			n--;
		if (n == 0)
			return pos;
		if (memchr(line, '\0', n) || memchr(line, '\r', n))
			return 0;
		if (line[0] == ' ' || line[0] == '\t') {
			if (!pos)
				return 0;
		} else {
			if (!(colon = memchr(line, ':', n)) || colon == line)
				return 0;
			name = (size_t)(colon - line);
			for (size_t i = 0; i < name; i++)
				if ((unsigned char)line[i] <= ' ' || (unsigned char)line[i] >= 0x7f)
					return 0;
		}
		if (fn(ctx, line, (size_t)(nl + 1 - line), name))
			return 0;
		pos = (size_t)(nl + 1 - raw);
	}
	return 0;
}

/* content_fields(): what is kept of the field being read. */
struct kept_fields {
	struct buf *out;
	int keep;
};

static int keep_content_line(void *ctx, const char *line, size_t len, size_t name)
{
	struct kept_fields *k = ctx;

	if (name)
		k->keep = has_prefix_ci(line, name, "content-") || equals_ci(line, name, "mime-version");
	return k->keep && buf_add(k->out, line, len) != BB_OK;
}

/* The Content- and MIME-Version fields of a plain header section (with
 * their folded lines, verbatim) into out; returns where its blank line
 * starts, or 0 when the section is not plain (plain_header()). */
static size_t content_fields(const char *raw, size_t len, struct buf *out)
{
	struct kept_fields k = { out, 0 };

	return plain_header(raw, len, keep_content_line, &k);
}

/* Mails up to this size are parsed from a copy cut down by
 * structure_stream(); larger ones (where the body's size, not the header's
 * fields, is what a parse costs) as they are. */
#define STRUCTURE_COPY_MAX (1024 * 1024)

/* A stream of the mail as GMime's part parser needs it, in copy (made in
 * copy, which the caller releases after the stream): its header section
 * cut down to the fields that shape the MIME structure (GMime makes an
 * object of every field it reads: most of a decode's time went to
 * Received:, DKIM-Signature: and the rest) and one field of blanks as long
 * as the others, then the body.  The body starts at the same offset as in
 * the mail, and the copy is one piece: GMime reads a malformed MIME
 * structure differently when its buffer's edges fall elsewhere.  The whole
 * mail, not copied, when content_fields() is not sure or the mail is
 * large. */
static GMimeStream *structure_stream(const char *raw, size_t len, struct buf *copy,
				     GByteArray **array)
{
	static const char pad_field[] = "X-Bugbridge-Skipped:";
	size_t body = len <= STRUCTURE_COPY_MAX ? content_fields(raw, len, copy) : 0;
	size_t pad = body > copy->len ? body - copy->len : 0;

	if (body && pad && pad < sizeof(pad_field))
		body = 0;   /* too little room for the field */
	if (body && buf_grow(copy, pad + (len - body)) != BB_OK)
		body = 0;
	if (body && pad) {
		/* the field, blanks, its line end */
		memcpy(copy->data + copy->len, pad_field, sizeof(pad_field) - 1);
		memset(copy->data + copy->len + sizeof(pad_field) - 1, ' ', pad - sizeof(pad_field));
		copy->data[copy->len + pad - 1] = '\n';
		copy->len += pad;
		copy->data[copy->len] = '\0';
	}
	if (body && buf_add(copy, raw + body, len - body) != BB_OK)
		body = 0;
	if (!body || copy->len != len)
		return stream_over(raw, len, array);
	return stream_over(copy->data, copy->len, array);
}

/* single_part(): where the fields that shape a leaf part are. */
enum { SF_TYPE, SF_ENCODING, SF_DISPOSITION, SF_COUNT, SF_OTHER = SF_COUNT };

struct single_fields {
	const char *at[SF_COUNT]; /* from the colon on, folded lines included */
	size_t len[SF_COUNT];
	int current;
};

static int note_single_line(void *ctx, const char *line, size_t len, size_t name)
{
	static const char *const names[SF_COUNT] = { "content-type", "content-transfer-encoding",
						     "content-disposition" };
	struct single_fields *f = ctx;

	if (!name) {
		if (f->current != SF_OTHER)
			f->len[f->current] += len;
		return 0;
	}
	f->current = SF_OTHER;
	for (int i = 0; i < SF_COUNT; i++) {
		if (!equals_ci(line, name, names[i]))
			continue;
		if (f->at[i])
			return 1;   /* twice: which one GMime takes is its business */
		f->current = i;
		f->at[i] = line + name + 1;
		f->len[i] = len - name - 1;
	}
	return 0;
}

/* 1 if field i is ASCII without "=?": nothing in it is decoded. */
static int plain_value(const struct single_fields *f, int i)
{
	const char *v = f->at[i];

	for (size_t k = 0; k < f->len[i]; k++)
		if ((unsigned char)v[k] >= 0x80 || (v[k] == '=' && k + 1 < f->len[i] && v[k + 1] == '?'))
			return 0;
	return 1;
}

/* A field's value as GMime's header gives it (g_free() it): unfolded, its
 * encoded words and 8-bit text decoded -- what its parser reads a part's
 * type, disposition and transfer encoding from; NULL when the field is
 * absent. */
static char *single_value(const struct single_fields *f, int i)
{
	char *raw, *unfolded, *value;

	if (!f->at[i])
		return NULL;
	raw = g_strndup(f->at[i], f->len[i]);
	unfolded = g_mime_utils_header_unfold(raw);
	g_free(raw);
	if (plain_value(f, i))
		return unfolded;   /* what the decode would give */
	value = g_mime_utils_header_decode_text(options(), unfolded);
	g_free(unfolded);
	return value;
}

/* Whether the Content-Type field as it stands (not decoded) names the
 * same type and subtype as ct: GMime's parser chooses a part's kind from
 * the one and its type from the other, so where they differ (8-bit or
 * encoded text in the type) it is left to the parser. */
static int same_raw_type(const struct single_fields *f, GMimeContentType *ct)
{
	char *raw;
	GMimeContentType *as_is;
	int same;

	if (!f->at[SF_TYPE] || plain_value(f, SF_TYPE))
		return 1;   /* the same text */
	raw = g_strndup(f->at[SF_TYPE], f->len[SF_TYPE]);
	as_is = g_mime_content_type_parse(options(), raw);
	same = !g_ascii_strcasecmp(g_mime_content_type_get_media_type(as_is),
				   g_mime_content_type_get_media_type(ct)) &&
	       !g_ascii_strcasecmp(g_mime_content_type_get_media_subtype(as_is),
				   g_mime_content_type_get_media_subtype(ct));
	g_object_unref(as_is);
	g_free(raw);
	return same;
}

/* The decode of a mail that is one leaf part (not multipart/ nor
 * message/), without GMime's parser: the part's fields are read with the
 * functions GMime's parser reads them with, its content -- the bytes after
 * the header section, as the parser takes them -- is decoded by a GMime
 * data wrapper, and leaf_content() takes it as decode_leaf() does.  The
 * parser's work (an object for each field, a scan of the content for
 * boundaries, and undoing all of it) was most of a decode, and most mail
 * is one part.  Returns 0, having done nothing, for a mail it is not sure
 * of (a header section plain_header() does not take, a field that shapes
 * the part given twice, a multipart or message type, a type that reads
 * otherwise decoded than as it stands: same_raw_type()). */
static int single_part(struct decode *d, const char *raw, size_t len)
{
	struct single_fields f;
	size_t blank, body;
	char *type, *encoding, *disposition;
	GMimeContentType *ct;
	GMimeContentDisposition *cd = NULL;
	GMimeContentEncoding enc = GMIME_CONTENT_ENCODING_DEFAULT;
	GMimeStream *in;
	GMimeDataWrapper *wrapper;
	GByteArray *array, *bytes = NULL;
	const char *filename;

	memset(&f, 0, sizeof(f));
	f.current = SF_OTHER;
	if (!(blank = plain_header(raw, len, note_single_line, &f)))
		return 0;
	body = blank + (raw[blank] == '\r' ? 2 : 1);
	type = single_value(&f, SF_TYPE);
	ct = type ? g_mime_content_type_parse(options(), type) : g_mime_content_type_new("text", "plain");
	g_free(type);
	if (type_is(ct, "multipart", "*") || type_is(ct, "message", "*") || !same_raw_type(&f, ct)) {
		g_object_unref(ct);
		return 0;
	}
	if (leaf_without_content(d, ct)) {
		g_object_unref(ct);
		return 1;
	}
	if ((encoding = single_value(&f, SF_ENCODING))) {
		enc = g_mime_content_encoding_from_string(g_strstrip(encoding));
		g_free(encoding);
	}
	if ((disposition = single_value(&f, SF_DISPOSITION))) {
		cd = g_mime_content_disposition_parse(options(), disposition);
		g_free(disposition);
	}
	filename = cd ? g_mime_content_disposition_get_parameter(cd, "filename") : NULL;
	if (!filename)
		filename = g_mime_content_type_get_parameter(ct, "name");
	/* the content decoded as part_bytes() decodes it: a data wrapper
	 * copies it as it stands but for these three encodings */
	if (enc == GMIME_CONTENT_ENCODING_BASE64 || enc == GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE ||
	    enc == GMIME_CONTENT_ENCODING_UUENCODE) {
		in = stream_over(raw + body, len - body, &array);
		wrapper = g_mime_data_wrapper_new_with_stream(in, enc);
		bytes = wrapper_bytes(wrapper, (gint64)(len - body));
		g_object_unref(wrapper);
		stream_done(in, array);
	}
	/* (content as it stands is read where it is: not copied first) */
	leaf_content(d, ct, cd ? g_mime_content_disposition_get_disposition(cd) : NULL, filename,
		     bytes ? bytes->data : (const guint8 *)raw + body,
		     bytes ? bytes->len : len - body, bytes);
	if (cd)
		g_object_unref(cd);
	g_object_unref(ct);
	return 1;
}

/* inmail_decode(); single: a mail that is one leaf part is decoded by
 * single_part(). */
static enum bb_status decode_mail(const char *raw, size_t len, struct inmail_body *b, int single,
				  struct bb_error *err)
{
	struct decode d;
	GByteArray *array = NULL;
	GMimeStream *stream = NULL;
	GMimeParser *parser = NULL;
	GMimeObject *top = NULL;
	GMimeMessage *msg = NULL;
	struct buf copy = BUF_INIT;
	size_t skip;

	memset(b, 0, sizeof(*b));
	memset(&d, 0, sizeof(d));
	d.b = b;
	d.err = err;
	buf_init(&d.text);
	buf_init(&d.html);
	buf_init(&d.named_html);
	if (len > INMAIL_RAW_MAX) {
		d.st = bb_error_set(err, BB_ERR_TOO_LARGE, "mail is larger than %d bytes",
				    INMAIL_RAW_MAX);
		goto out;
	}
	options();
	skip = skip_from_line(raw, len);
	if (header_section_too_large(raw + skip, len - skip)) {
		d.st = bb_error_set(err, BB_ERR_TOO_LARGE,
				    "mail header section is larger than %d bytes", INMAIL_HEADER_MAX);
		goto out;
	}
	if (single && single_part(&d, raw + skip, len - skip))
		goto decoded;
	/* Only the Content- fields matter here: the top part is parsed as a
	 * part, so GMime builds no message and does not parse every address
	 * of its To: and Cc: (there may be hundreds).  What its part parser
	 * does not take (a header section that starts with a second "From "
	 * line) goes through its message parser, as all mail once did. */
	stream = structure_stream(raw + skip, len - skip, &copy, &array);
	parser = parser_over(stream, GMIME_FORMAT_MESSAGE);
	if (!(top = g_mime_parser_construct_part(parser, options()))) {
		g_object_unref(parser);
		stream_done(stream, array);
		stream = stream_over(raw + skip, len - skip, &array);
		parser = parser_over(stream, GMIME_FORMAT_MESSAGE);
		if (!(msg = g_mime_parser_construct_message(parser, options()))) {
			d.st = bb_error_set(err, BB_ERR_INVALID,
					    "not a mail: GMime found no message");
			goto out;
		}
	}
	decode_walk(&d, top ? top : g_mime_message_get_mime_part(msg), 0);
decoded:
	if (d.st != BB_OK)
		goto out;
	if (d.text.len == 0 && d.html.len == 0 && d.named_html.len) {
		/* HTML-only mail whose HTML is a named part (kept as attachment too) */
		struct buf swap = d.html;

		d.html = d.named_html;
		d.named_html = swap;
	}
	if (d.text.len == 0 && d.html.len) {
		/* HTML text nodes may hold any character: clean as any body */
		char *valid = g_utf8_make_valid(d.html.data, (gssize)d.html.len);

		b->from_html = 1;
		if (add_body_text(&d.text, valid, strlen(valid)) != BB_OK) {
			g_free(valid);
			decode_fail(&d, BB_ERR_NOMEM, "text");
			goto out;
		}
		g_free(valid);
	}
	b->text = buf_detach(&d.text, &b->text_len);
out:
	if (top)
		g_object_unref(top);
	if (msg)
		g_object_unref(msg);
	if (parser)
		g_object_unref(parser);
	if (stream)
		stream_done(stream, array);
	buf_release(&copy);
	buf_release(&d.text);
	buf_release(&d.html);
	buf_release(&d.named_html);
	if (d.st != BB_OK)
		inmail_body_release(b);
	return d.st;
}

enum bb_status inmail_decode(const char *raw, size_t len, struct inmail_body *b,
			     struct bb_error *err)
{
	return decode_mail(raw, len, b, 1, err);
}

enum bb_status inmail_decode_parsed(const char *raw, size_t len, struct inmail_body *b,
				    struct bb_error *err)
{
	return decode_mail(raw, len, b, 0, err);
}

int inmail_body_same(const struct inmail_body *a, const struct inmail_body *b)
{
	if (a->text_len != b->text_len || memcmp(a->text, b->text, a->text_len) ||
	    a->from_html != b->from_html || a->encrypted != b->encrypted ||
	    a->skipped_parts != b->skipped_parts || a->nparts != b->nparts)
		return 0;
	for (size_t i = 0; i < a->nparts; i++) {
		const struct inmail_part *p = &a->parts[i], *q = &b->parts[i];

		if (g_strcmp0(p->filename, q->filename) || g_strcmp0(p->content_type, q->content_type) ||
		    p->len != q->len || memcmp(p->data, q->data, p->len))
			return 0;
	}
	return 1;
}

/* --- mbox ------------------------------------------------------------------ */

enum bb_status inmail_mbox_split(const char *data, size_t len,
				 enum bb_status (*fn)(void *ctx, const char *raw, size_t len),
				 void *ctx, struct bb_error *err)
{
	GByteArray *array;
	GMimeStream *stream;
	GMimeParser *parser;
	GArray *starts = g_array_new(FALSE, FALSE, sizeof(gint64));
	GArray *markers = g_array_new(FALSE, FALSE, sizeof(gint64));
	enum bb_status st = BB_OK;

	if (len > INMAIL_RAW_MAX) {
		st = bb_error_set(err, BB_ERR_TOO_LARGE, "mbox is larger than %d bytes", INMAIL_RAW_MAX);
		goto out_arrays;
	}
	options();
	stream = stream_over(data, len, &array);
	parser = parser_over(stream, GMIME_FORMAT_MBOX);
	while (!g_mime_parser_eos(parser)) {
		GMimeMessage *msg = g_mime_parser_construct_message(parser, options());
		gint64 start, marker;

		if (!msg)
			break;
		start = g_mime_parser_get_headers_begin(parser);
		marker = g_mime_parser_get_mbox_marker_offset(parser);
		g_object_unref(msg);
		if (start < 0 || marker < 0 || (size_t)start > len)
			continue;
		g_array_append_val(starts, start);
		g_array_append_val(markers, marker);
	}
	g_object_unref(parser);
	stream_done(stream, array);
	if (starts->len == 0) {
		st = bb_error_set(err, BB_ERR_INVALID, "not an mbox: no \"From \" line");
		goto out_arrays;
	}
	for (guint i = 0; i < starts->len && st == BB_OK; i++) {
		size_t start = (size_t)g_array_index(starts, gint64, i);
		size_t end = i + 1 < starts->len ? (size_t)g_array_index(markers, gint64, i + 1) : len;

		if (end > len || end < start)
			end = len;
		/* the empty line that separates messages belongs to neither */
		if (i + 1 < starts->len && end > start && data[end - 1] == '\n')
			end--;
		if (end > start && data[end - 1] == '\r')
			end--;
		st = fn(ctx, data + start, end - start);
		if (st != BB_OK && err && err->code == BB_OK)
			bb_error_set(err, st, "mbox message %u: stopped by the caller", i + 1);
	}
out_arrays:
	g_array_free(starts, TRUE);
	g_array_free(markers, TRUE);
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
