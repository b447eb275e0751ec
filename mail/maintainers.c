/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsing the kernel's MAINTAINERS file (see maintainers.h for the rules).
 *
 * The whole file is copied once into one buffer and cut into strings in
 * place (every normalisation only shortens a value); a first pass records
 * titles and entries as items, a second lays every section's arrays out in
 * one pool of pointers.  So a parse costs a handful of allocations however
 * big the file, and mnt_free() a handful of free()s.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "mail/maintainers.h"

/* Entry letters kept in arrays; the index of a letter here is its kind. */
static const char array_letters[] = "MRLFXNKTWBCQP";

enum {
	NARRAYS = sizeof(array_letters) - 1,
	KIND_STATUS = NARRAYS,      /* S: */
	KIND_TITLE = -1,
	KIND_UNKNOWN = -2,          /* an entry letter we do not keep (e.g. a future one) */
};

/* A title or a kept entry, in file order; a section's entries follow its
 * title. */
struct mnt_item {
	char *value;
	size_t line;
	int kind;
};

struct mnt_items {
	struct mnt_item *v;
	size_t n, alloc;
	size_t nsections, nvalues;  /* titles; entries that go into arrays */
};

struct mnt_file {
	char *text;                 /* the input, cut into every string */
	struct mnt_section *sections;
	size_t nsections;
	char **pool;                /* all the sections' NULL-terminated arrays */
};

/* What status points at when a section has no S: line. */
static char mnt_no_status[1];

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static int is_entry_start(const char *p, const char *end)
{
	return end - p >= 2 && p[0] >= 'A' && p[0] <= 'Z' && p[1] == ':';
}

static int kind_of_letter(char letter)
{
	const char *p;

	if (letter == 'S')
		return KIND_STATUS;
	p = strchr(array_letters, letter);
	return p && letter ? (int)(p - array_letters) : KIND_UNKNOWN;
}

static char ***section_array(struct mnt_section *s, int kind)
{
	switch (array_letters[kind]) {
	case 'M': return &s->maintainers;
	case 'R': return &s->reviewers;
	case 'L': return &s->lists;
	case 'F': return &s->files;
	case 'X': return &s->excluded;
	case 'N': return &s->file_regexes;
	case 'K': return &s->content_regexes;
	case 'T': return &s->trees;
	case 'W': return &s->web;
	case 'B': return &s->bug_urls;
	case 'C': return &s->chats;
	case 'Q': return &s->patchwork;
	default:  return &s->profiles;   /* 'P' */
	}
}

/* A word that can be an address: an '@', no white space, none of the
 * characters that delimit words in address_find(). */
static int plausible_address(const char *a, size_t len)
{
	int at = 0;

	for (size_t i = 0; i < len; i++) {
		if (is_space(a[i]) || strchr("(),;\"<>", a[i]))
			return 0;
		if (a[i] == '@')
			at = 1;
	}
	return at;
}

/* Finds the address in entry.  Angle form: the first '<' outside double
 * quotes that a '>' follows, if what they enclose is a plausible address;
 * *after then points past that '>'.  Otherwise the first word holding an
 * '@' outside parenthesised comments; *after is NULL.  So an address found
 * in an address is itself.  Runs in linear time (entries come from
 * outside). */
static const char *address_find(const char *entry, size_t *len, const char **after)
{
	const char *p, *a = NULL, *b = NULL;
	int quoted = 0, depth = 0;

	*after = NULL;
	for (p = entry; *p; p++) {
		if (quoted) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				quoted = 0;
		} else if (*p == '"') {
			quoted = 1;
		} else if (*p == '<') {
			const char *gt = strchr(p + 1, '>');

			if (gt) {
				a = p + 1;
				b = gt;
				while (a < b && is_space(*a))
					a++;
				while (b > a && is_space(b[-1]))
					b--;
				if (plausible_address(a, (size_t)(b - a))) {
					*len = (size_t)(b - a);
					*after = gt + 1;
					return a;
				}
			}
			break;   /* only the first '<' counts */
		}
	}
	for (p = entry; *p;) {
		const char *w;
		int at = 0;

		if (*p == '(') {
			depth++;
			p++;
			continue;
		}
		if (*p == ')') {
			if (depth)
				depth--;
			p++;
			continue;
		}
		if (depth || is_space(*p) || strchr(",;\"<>", *p)) {
			p++;
			continue;
		}
		for (w = p; *p && !is_space(*p) && !strchr("(),;\"<>", *p); p++)
			if (*p == '@')
				at = 1;
		if (at) {
			*len = (size_t)(p - w);
			return w;
		}
	}
	*len = 0;
	return p;
}

const char *mnt_address_span(const char *entry, size_t *len)
{
	const char *after;

	return address_find(entry, len, &after);
}

char *mnt_address(const char *entry)
{
	size_t len;
	const char *a = mnt_address_span(entry, &len);

	return strndup(a, len);
}

/* "Name\t<addr>  (notes)" -> "Name <addr>": drops what follows the angle
 * brackets and makes every run of white space one space. */
static void normalise_person(char *v)
{
	const char *after;
	size_t len;
	char *r, *w;

	address_find(v, &len, &after);
	if (after)
		v[after - v] = '\0';
	for (r = w = v; *r; r++) {
		if (is_space(*r)) {
			if (w > v && w[-1] != ' ')
				*w++ = ' ';
		} else {
			*w++ = *r;
		}
	}
	if (w > v && w[-1] == ' ')
		w--;
	*w = '\0';
}

/* "list@host (moderated for non-subscribers)" -> "list@host"; "" if the
 * entry holds no address. */
static void normalise_list(char *v)
{
	size_t len;
	const char *a = mnt_address_span(v, &len);

	memmove(v, a, len);
	v[len] = '\0';
}

static enum bb_status items_push(struct mnt_items *it, char *value, size_t line, int kind,
				 struct bb_error *err)
{
	if (it->n == it->alloc) {
		size_t alloc = it->alloc ? it->alloc * 2 : 1024;
		struct mnt_item *v;

		if (alloc > SIZE_MAX / sizeof(*v) || !(v = realloc(it->v, alloc * sizeof(*v))))
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory parsing MAINTAINERS");
		it->v = v;
		it->alloc = alloc;
	}
	it->v[it->n].value = value;
	it->v[it->n].line = line;
	it->v[it->n].kind = kind;
	it->n++;
	if (kind == KIND_TITLE)
		it->nsections++;
	else if (kind >= 0 && kind < NARRAYS)
		it->nvalues++;
	return BB_OK;
}

/* Pass 1: walks the lines of text (len bytes, text[len] writable) and
 * records titles and entries, cutting them into strings. */
static enum bb_status collect_items(char *text, size_t len, struct mnt_items *it,
				    struct bb_error *err)
{
	char *p = text, *end = text + len;
	int after_blank = 1, in_preamble = 1, in_section = 0;
	size_t line = 0;
	enum bb_status st = BB_OK;

	while (p < end && st == BB_OK) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *line_end = nl ? nl : end, *next = nl ? nl + 1 : end, *e = line_end;
		int has_nul;

		line++;
		while (e > p && is_space(e[-1]))
			e--;
		if (e == p) {
			after_blank = 1;
			p = next;
			continue;
		}
		has_nul = memchr(p, '\0', (size_t)(e - p)) != NULL;
		if (is_entry_start(p, e)) {
			int kind = kind_of_letter(p[0]);
			char *v = p + 2;

			while (v < e && is_space(*v))
				v++;
			if (in_section && !has_nul && kind != KIND_UNKNOWN && v < e) {
				*e = '\0';
				if (kind == 0 || kind == 1)        /* M:, R: */
					normalise_person(v);
				else if (kind == 2)                /* L: */
					normalise_list(v);
				if (*v)
					st = items_push(it, v, line, kind, err);
			}
		} else if (after_blank) {
			int good = !has_nul && !is_space(*p);

			if (in_preamble) {
				/* the preamble's own headings are not followed by entries */
				if (good && is_entry_start(next, end)) {
					in_preamble = 0;
					in_section = 1;
					*e = '\0';
					st = items_push(it, p, line, KIND_TITLE, err);
				}
			} else if (good) {
				in_section = 1;
				*e = '\0';
				st = items_push(it, p, line, KIND_TITLE, err);
			} else {
				in_section = 0;
			}
		}
		/* else: a stray line inside a section, skipped */
		after_blank = 0;
		p = next;
	}
	return st;
}

/* Pass 2: sections and their arrays from the items. */
static enum bb_status build_sections(struct mnt_file *mf, const struct mnt_items *it,
				     struct bb_error *err)
{
	size_t npool, slot = 0, i = 0;

	if (it->nsections > (SIZE_MAX / sizeof(char *) - it->nvalues) / NARRAYS)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory parsing MAINTAINERS");
	npool = it->nvalues + it->nsections * NARRAYS;
	mf->sections = calloc(it->nsections ? it->nsections : 1, sizeof(*mf->sections));
	mf->pool = malloc((npool ? npool : 1) * sizeof(*mf->pool));
	if (!mf->sections || !mf->pool)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory parsing MAINTAINERS");
	while (i < it->n) {
		struct mnt_section *sec = &mf->sections[mf->nsections++];
		size_t count[NARRAYS] = { 0 }, fill[NARRAYS], j;

		/* items[i] is a title: entries are only kept inside a section */
		sec->name = it->v[i].value;
		sec->line = it->v[i].line;
		sec->status = mnt_no_status;
		for (j = i + 1; j < it->n && it->v[j].kind != KIND_TITLE; j++)
			if (it->v[j].kind < NARRAYS)
				count[it->v[j].kind]++;
			else if (!*sec->status)
				sec->status = it->v[j].value;
		for (int k = 0; k < NARRAYS; k++) {
			*section_array(sec, k) = mf->pool + slot;
			fill[k] = slot;
			slot += count[k];
			mf->pool[slot++] = NULL;
		}
		for (j = i + 1; j < it->n && it->v[j].kind != KIND_TITLE; j++)
			if (it->v[j].kind < NARRAYS)
				mf->pool[fill[it->v[j].kind]++] = it->v[j].value;
		i = j;
	}
	return BB_OK;
}

/* Parses text (len bytes in a malloc'd block of at least len + 1), which
 * it takes over whatever the outcome. */
static enum bb_status parse_owned(struct mnt_file **out, char *text, size_t len,
				  struct bb_error *err)
{
	struct mnt_items items = { NULL, 0, 0, 0, 0 };
	struct mnt_file *mf = calloc(1, sizeof(*mf));
	enum bb_status st;

	*out = NULL;
	if (!mf) {
		free(text);
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory parsing MAINTAINERS");
		goto out;
	}
	mf->text = text;
	text[len] = '\0';
	st = collect_items(text, len, &items, err);
	if (st != BB_OK)
		goto out;
	st = build_sections(mf, &items, err);
out:
	free(items.v);
	if (st == BB_OK)
		*out = mf;
	else
		mnt_free(mf);
	return st;
}

enum bb_status mnt_parse(struct mnt_file **out, const char *text, size_t len,
			 struct bb_error *err)
{
	char *copy;

	*out = NULL;
	if (len == SIZE_MAX || !(copy = malloc(len + 1)))
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory parsing MAINTAINERS");
	if (len)
		memcpy(copy, text, len);
	return parse_owned(out, copy, len, err);
}

enum bb_status mnt_load(struct mnt_file **out, const char *path, struct bb_error *err)
{
	enum bb_status st = BB_OK;
	struct stat sb;
	char *text = NULL;
	size_t len = 0, alloc = 65536;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		st = bb_error_errno(err, errno, "cannot open MAINTAINERS file %s", path);
		goto out;
	}
	/* The size is only a hint (the file may change, or be a pipe); one byte
	 * more than it lets the first read see the end of the file. */
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0)
		alloc = (uintmax_t)sb.st_size < MNT_MAX_FILE_SIZE ? (size_t)sb.st_size + 1
								   : MNT_MAX_FILE_SIZE + 1;
	text = malloc(alloc + 1);   /* + 1: room for the final NUL */
	if (!text) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory reading %s", path);
		goto out;
	}
	for (;;) {
		ssize_t n = fs_read_full(fd, text + len, alloc - len);
		char *bigger;

		if (n < 0) {
			st = bb_error_errno(err, errno, "cannot read MAINTAINERS file %s", path);
			goto out;
		}
		len += (size_t)n;
		if (len < alloc)
			break;   /* a short read: the end of the file */
		if (alloc > MNT_MAX_FILE_SIZE) {
			st = bb_error_set(err, BB_ERR_TOO_LARGE,
					  "MAINTAINERS file %s is larger than %u MiB",
					  path, MNT_MAX_FILE_SIZE >> 20);
			goto out;
		}
		alloc = alloc * 2 > MNT_MAX_FILE_SIZE + 1 ? MNT_MAX_FILE_SIZE + 1 : alloc * 2;
		bigger = realloc(text, alloc + 1);
		if (!bigger) {
			st = bb_error_set(err, BB_ERR_NOMEM, "out of memory reading %s", path);
			goto out;
		}
		text = bigger;
	}
	st = parse_owned(out, text, len, err);
	text = NULL;   /* taken over */
out:
	free(text);
	if (fd >= 0)
		close(fd);
	return st;
}

void mnt_free(struct mnt_file *mf)
{
	if (!mf)
		return;
	free(mf->pool);
	free(mf->sections);
	free(mf->text);
	free(mf);
}

size_t mnt_count(const struct mnt_file *mf)
{
	return mf ? mf->nsections : 0;
}

const struct mnt_section *mnt_section_at(const struct mnt_file *mf, size_t i)
{
	return mf && i < mf->nsections ? &mf->sections[i] : NULL;
}

const struct mnt_section *mnt_find(const struct mnt_file *mf, const char *name)
{
	const char *a, *b;
	size_t len;

	if (!mf || !name)
		return NULL;
	for (a = name; is_space(*a) || *a == '\n'; a++)
		;
	for (b = a + strlen(a); b > a && (is_space(b[-1]) || b[-1] == '\n'); b--)
		;
	len = (size_t)(b - a);
	for (size_t i = 0; i < mf->nsections; i++) {
		const char *n = mf->sections[i].name;
		size_t k;

		/* section names are stored trimmed */
		for (k = 0; k < len && n[k] && ascii_lower(n[k]) == ascii_lower(a[k]); k++)
			;
		if (k == len && !n[len])
			return &mf->sections[i];
	}
	return NULL;
}
