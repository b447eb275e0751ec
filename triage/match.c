/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Routing from a report's content (see match.h for the contract).
 *
 * tri_matcher_new() indexes every F: pattern's components by name (the
 * literal part before a glob or a file's extension), so that a module,
 * driver or symbol name is looked up in a hash table instead of against
 * every pattern.  Paths are matched against every F: pattern (a few
 * thousand prefix compares, most failing at the first byte).  tri_match()
 * turns the report into weighted clues, lets each clue add to the sections
 * it matches (per clue, a section counts once, by its best pattern), and
 * sorts.
 *
 * What the clues are weighed by lives apart, each a pure reading of the
 * report that needs none of the scoring here: which frames are generic,
 * shared or guilty (guilty.c), the words of the title and prose and the
 * vendors a report names (prose.c), the names a locator is asked and its
 * answers (located.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "triage/guilty.h"
#include "triage/located.h"
#include "triage/match.h"
#include "triage/prose.h"
#include "triage/writeto.h"

/* ---- patterns ----------------------------------------------------------- */

/* '[...]' at p: whether c is in the class; *end past the ']'. */
static int class_matches(const char *p, char c, const char **end)
{
	const char *q = p + 1;
	int in = 0;

	for (; *q && *q != ']'; q++)
		if (*q == c)
			in = 1;
	*end = *q ? q + 1 : q;
	return in;
}

/* Whether text starts with something glob pattern p matches ('*' any run
 * of characters, '/' included, as get_maintainer.pl's ".*"; '?' one;
 * "[ch]" a class).  Backtracks only to the last '*': O(len(p) * len(t)). */
static int glob_prefix(const char *p, const char *t)
{
	const char *star = NULL, *retry = NULL;

	for (;;) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			if (!*p)
				return 1;
			star = p;
			retry = t;
			continue;
		}
		if (!*p)
			return 1;
		if (*t) {
			const char *next;

			if (*p == '[') {
				if (class_matches(p, *t, &next)) {
					p = next;
					t++;
					continue;
				}
			} else if (*p == '?' || *p == *t) {
				p++;
				t++;
				continue;
			}
		}
		if (!star || !*retry)
			return 0;
		p = star;
		t = ++retry;
	}
}

static size_t count_slashes(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

static int has_glob(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return 1;
	return 0;
}

int tri_pattern_matches(const char *pattern, const char *path)
{
	size_t plen = strlen(pattern);
	const char *last;

	if (!plen)
		return 0;
	if (pattern[plen - 1] == '/')
		return glob_prefix(pattern, path);
	if (glob_prefix(pattern, path) && count_slashes(pattern) == count_slashes(path))
		return 1;
	/* get_maintainer.pl adds the '/' to a pattern that is a folder of the
	 * tree; without a tree, a last component with no dot and no glob may
	 * be one */
	last = strrchr(pattern, '/');
	last = last ? last + 1 : pattern;
	if (!strchr(last, '.') && !has_glob(last, strlen(last)) && !strncmp(path, pattern, plen) &&
	    path[plen] == '/')
		return 1;
	return 0;
}

/* A pattern's depth: its components ("drivers/net/" 2, "*" 1). */
static size_t pattern_depth(const char *p)
{
	size_t n = strlen(p);

	return count_slashes(p) + (n && p[n - 1] != '/');
}

static double power(double base, size_t exponent)
{
	double r = 1;

	while (exponent--)
		r *= base;
	return r;
}

/* ---- the index ---------------------------------------------------------- */

struct comp_entry {
	guint section;
	guint file;         /* index into the section's files */
	guint8 depth;       /* the pattern's */
	guint8 is_last;     /* the component ends the pattern */
	guint8 star;        /* a glob follows the literal part */
	guint8 is_file;     /* the last component of a pattern not ending in '/' */
};

struct regex_entry {
	GRegex *re;
	guint section;
	const char *source;
};

struct tri_matcher {
	const struct mnt_file *mf;
	size_t nsections;
	GHashTable *by_name;    /* component's literal part -> GArray of comp_entry */
	GHashTable *by_token;   /* a file's first '_'/'-' token -> GArray of comp_entry */
	GArray *n_regexes, *k_regexes;
	GStringChunk *strings;
	GPtrArray *keys;        /* by_name's keys, sorted, for prefix lookups */
	GArray *vendor_globs;   /* struct vendor_glob: folder globs under a vendor */
	GHashTable *by_title;   /* a title's word, lower case -> GArray of title_entry */
	GHashTable *by_rest;    /* a file's name after its first '_'/'-' token, when
				 * that has two parts or more ("cadence-quadspi" of
				 * spi-cadence-quadspi.c, not "tree" of maple_tree.c)
				 * -> comp_entry */
};

/* A word of a section's title, for names in prose (apply_prose()). */
struct title_entry {
	guint section;
	guint8 kind;            /* TITLE_* */
};

enum {
	TITLE_WORD,             /* any word of the title */
	TITLE_ALIAS,            /* a lower-case name in parentheses: "(iwlwifi)" */
	TITLE_SUBSYSTEM,        /* the subsystem the title names: "USB SUBSYSTEM", "ACPI" */
};

/* A pattern whose last component is a folder glob right under a vendor's
 * folder: any driver of that vendor may be one of its subfolders. */
struct vendor_glob {
	guint section;
	guint file;
	guint prefix;       /* bytes of the pattern before the '*' */
	guint vendor;       /* tri_vendor_index()'s */
};

static const char *const source_tops[] = {
	"arch", "block", "certs", "crypto", "drivers", "fs", "include", "init", "io_uring",
	"ipc", "kernel", "lib", "mm", "net", "rust", "security", "sound", "virt", NULL
};

static void index_add(struct tri_matcher *m, GHashTable *table, const char *key, size_t keylen,
		      const struct comp_entry *e)
{
	char *k = g_string_chunk_insert_len(m->strings, key, (gssize)keylen);
	GArray *list = g_hash_table_lookup(table, k);

	if (!list) {
		list = g_array_new(FALSE, FALSE, sizeof(struct comp_entry));
		g_hash_table_insert(table, k, list);
	}
	g_array_append_vals(list, e, 1);
}

static void index_pattern(struct tri_matcher *m, guint section, guint file, const char *pattern)
{
	gchar **parts = g_strsplit(pattern, "/", 32);
	size_t n = 0, depth = pattern_depth(pattern);
	int dir = g_str_has_suffix(pattern, "/");
	int top = 0;

	for (size_t i = 0; source_tops[i] && parts[0]; i++)
		top |= !strcmp(parts[0], source_tops[i]);
	/* CI expectation files name drivers but hold no code */
	if (strstr(pattern, "/ci/"))
		top = 0;
	while (parts[n])
		n++;
	while (n && !*parts[n - 1])
		n--;
	if (top && dir && n >= 2 && !strcmp(parts[n - 1], "*")) {
		int v = tri_vendor_index(parts[n - 2], strlen(parts[n - 2]));

		if (v >= 0) {
			struct vendor_glob g = { section, file, (guint)(strlen(pattern) - 2), (guint)v };

			g_array_append_val(m->vendor_globs, g);
		}
	}
	for (size_t i = 0; top && i < n; i++) {
		const char *c = parts[i];
		size_t lit = strcspn(c, "*?[");
		struct comp_entry e = { section, file, (guint8)MIN(depth, 255), i == n - 1, c[lit] != 0,
					i == n - 1 && !dir };
		size_t keylen = lit;

		if (e.is_last && !dir && !e.star) {
			/* a file: "thinkpad_acpi.c" is "thinkpad_acpi" */
			const char *dot = strchr(c, '.');

			keylen = dot ? (size_t)(dot - c) : lit;
		}
		if (keylen < 2)
			continue;
		index_add(m, m->by_name, c, keylen, &e);
		if (e.is_last && !dir) {
			size_t tok = strcspn(c, "_-.*?[");

			if (tok >= 3 && tok < keylen) {
				e.star = 0;
				index_add(m, m->by_token, c, tok, &e);
			}
			/* a name of two parts or more after its first */
			if (tok >= 2 && tok + 4 <= keylen && !has_glob(c, keylen) &&
			    strcspn(c + tok + 1, "_-") < keylen - tok - 1)
				index_add(m, m->by_rest, c + tok + 1, keylen - tok - 1, &e);
		}
	}
	g_strfreev(parts);
}

static void title_add(struct tri_matcher *m, const char *word, size_t n, guint section,
		      guint8 kind)
{
	char *low = g_ascii_strdown(word, (gssize)n);
	char *k = g_string_chunk_insert_const(m->strings, low);
	GArray *list = g_hash_table_lookup(m->by_title, k);
	struct title_entry e = { section, kind };

	g_free(low);
	if (!list) {
		list = g_array_new(FALSE, FALSE, sizeof(struct title_entry));
		g_hash_table_insert(m->by_title, k, list);
	}
	for (guint i = 0; i < list->len; i++) {
		struct title_entry *x = &g_array_index(list, struct title_entry, i);

		if (x->section == section) {
			x->kind = MAX(x->kind, kind);
			return;
		}
	}
	g_array_append_val(list, e);
}

/* The words of a section's title: every word; a lower-case name alone in
 * parentheses, not a number ("INTEL WIRELESS WIFI LINK (iwlwifi)", not
 * "(64-bit)"); the subsystem a
 * title of the form "WORD", "WORD SUBSYSTEM", "WORD FILE SYSTEM", ...
 * names. */
static void index_title(struct tri_matcher *m, guint section, const char *title)
{
	static const char *const suffixes[] = {
		"SUBSYSTEM", "LAYER", "CORE LAYER", "FILE SYSTEM", "FILESYSTEM", "API",
		"FRAMEWORK", "SUBSYSTEM AND DRIVERS", "DRIVERS", "CORE",
	};
	const char *p = title;
	int paren = 0;
	size_t first = strcspn(title, " ");

	if (first >= 2 && !title[first])
		title_add(m, title, first, section, TITLE_SUBSYSTEM);
	for (size_t i = 0; first >= 2 && title[first] && i < G_N_ELEMENTS(suffixes); i++)
		if (!strcmp(title + first + 1, suffixes[i]))
			title_add(m, title, first, section, TITLE_SUBSYSTEM);
	while (*p) {
		size_t n = 0;
		int lower = 0, upper = 0;

		if (*p == '(' || *p == ')')
			paren = *p == '(';
		while (g_ascii_isalnum(p[n]) || p[n] == '_' || p[n] == '-')
			lower |= g_ascii_islower(p[n]), upper |= g_ascii_isupper(p[n++]);
		if (n >= 3)
			title_add(m, p, n, section, paren && lower && !upper && p > title &&
				  p[-1] == '(' && p[n] == ')' && !g_ascii_isdigit(*p) ?
				  TITLE_ALIAS : TITLE_WORD);
		p += n ? n : 1;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void add_regex(GArray *list, const char *source, guint section)
{
	struct regex_entry e = { g_regex_new(source, G_REGEX_OPTIMIZE | G_REGEX_RAW, 0, NULL),
				 section, source };

	if (e.re)
		g_array_append_val(list, e);
}

static void free_list(gpointer p)
{
	g_array_free(p, TRUE);
}

const struct mnt_file *tri_matcher_file(const struct tri_matcher *m)
{
	return m->mf;
}

struct tri_matcher *tri_matcher_new(const struct mnt_file *mf)
{
	struct tri_matcher *m = g_new0(struct tri_matcher, 1);

	m->mf = mf;
	m->nsections = mnt_count(mf);
	m->strings = g_string_chunk_new(4096);
	m->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, free_list);
	m->by_token = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, free_list);
	m->n_regexes = g_array_new(FALSE, FALSE, sizeof(struct regex_entry));
	m->k_regexes = g_array_new(FALSE, FALSE, sizeof(struct regex_entry));
	m->vendor_globs = g_array_new(FALSE, FALSE, sizeof(struct vendor_glob));
	m->by_title = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, free_list);
	m->by_rest = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, free_list);
	for (guint s = 0; s < m->nsections; s++) {
		const struct mnt_section *sec = mnt_section_at(mf, s);

		index_title(m, s, sec->name);

		for (guint f = 0; sec->files[f]; f++)
			index_pattern(m, s, f, sec->files[f]);
		for (size_t i = 0; sec->file_regexes[i]; i++)
			add_regex(m->n_regexes, sec->file_regexes[i], s);
		for (size_t i = 0; sec->content_regexes[i]; i++)
			add_regex(m->k_regexes, sec->content_regexes[i], s);
	}
	{
		GHashTableIter it;
		gpointer key;

		m->keys = g_ptr_array_sized_new(g_hash_table_size(m->by_name));
		g_hash_table_iter_init(&it, m->by_name);
		while (g_hash_table_iter_next(&it, &key, NULL))
			g_ptr_array_add(m->keys, key);
		g_ptr_array_sort(m->keys, cmp_str);
	}
	return m;
}

static void free_regexes(GArray *list)
{
	for (guint i = 0; i < list->len; i++)
		g_regex_unref(g_array_index(list, struct regex_entry, i).re);
	g_array_free(list, TRUE);
}

void tri_matcher_free(struct tri_matcher *m)
{
	if (!m)
		return;
	g_hash_table_destroy(m->by_name);
	g_hash_table_destroy(m->by_token);
	g_hash_table_destroy(m->by_title);
	g_hash_table_destroy(m->by_rest);
	free_regexes(m->n_regexes);
	free_regexes(m->k_regexes);
	g_string_chunk_free(m->strings);
	g_ptr_array_free(m->keys, TRUE);
	g_array_free(m->vendor_globs, TRUE);
	g_free(m);
}

/* ---- scoring ------------------------------------------------------------ */

struct path_hit {
	guint section;
	size_t depth;
	const char *pattern;
};

struct scoring {
	const struct tri_matcher *m;
	GHashTable *folders_seen;   /* folders looked up by folder_hits() in this clue */
	size_t folders;
	double *score;
	double *best;         /* the best single contribution, whose reason is kept */
	char **reason;
	char **file;          /* per section, the path of the clue that gave its reason,
			       * when that clue was a path (printed or located) */
	const char *clue_file; /* the clue being applied's path, or NULL */
	GArray **evidence;    /* per section, NULL until touched: struct evidence */
	/* this clue's best per section */
	guint *stamp;
	double *clue_score;
	const char **clue_pattern;
	const char **clue_how;
	GArray *touched;
	guint clue;
	size_t nclues;
	/* the clue being applied */
	const char *desc;
	size_t line;
	const char *arch;     /* "arm64", "x86", ... the report's oopses ran on; NULL unknown */
	double file_factor;   /* for a file matched by a part of a name only */
	guint32 vendors;      /* bit i: the report names vendor i (tri_report_vendors(): a
			       * hardware name) */
	struct tri_located located;  /* what the locator found; empty without one */
	char *title_frame;    /* the function a title names "... in FUNC", or NULL */
	int title_diagnostic; /* the title is a compiler's "file.c:12:5: error: ..." */
};

/* A clue as a section's evidence. */
struct evidence {
	double score;
	char *text;
};

static char *clue_words(const struct scoring *sc, guint s)
{
	if (sc->line)
		return g_strdup_printf("line %zu: %s: %s %s", sc->line, sc->desc, sc->clue_how[s],
				       sc->clue_pattern[s]);
	return g_strdup_printf("%s: %s %s", sc->desc, sc->clue_how[s], sc->clue_pattern[s]);
}

/* Keeps the clue's words among the section's strongest few. */
static void keep_evidence(struct scoring *sc, guint s, double c)
{
	GArray *a = sc->evidence[s];
	struct evidence e;
	guint at;

	if (!a)
		a = sc->evidence[s] = g_array_new(FALSE, FALSE, sizeof(struct evidence));
	if (a->len >= TRI_MATCH_MAX_EVIDENCE &&
	    c <= g_array_index(a, struct evidence, a->len - 1).score)
		return;
	e.score = c;
	e.text = clue_words(sc, s);
	for (guint i = 0; i < a->len; i++)
		if (!strcmp(g_array_index(a, struct evidence, i).text, e.text)) {
			/* the same words again (a name twice): one line, the stronger */
			if (c <= g_array_index(a, struct evidence, i).score) {
				g_free(e.text);
				return;
			}
			g_free(g_array_index(a, struct evidence, i).text);
			g_array_remove_index(a, i);
			break;
		}
	for (at = 0; at < a->len && g_array_index(a, struct evidence, at).score >= c; at++)
		;
	g_array_insert_val(a, at, e);
	if (a->len > TRI_MATCH_MAX_EVIDENCE) {
		g_free(g_array_index(a, struct evidence, a->len - 1).text);
		g_array_set_size(a, a->len - 1);
	}
}

static void hit(struct scoring *sc, guint section, double contribution, const char *how,
		const char *pattern)
{
	if (sc->stamp[section] != sc->clue) {
		sc->stamp[section] = sc->clue;
		sc->clue_score[section] = 0;
		g_array_append_val(sc->touched, section);
	}
	if (contribution > sc->clue_score[section]) {
		sc->clue_score[section] = contribution;
		sc->clue_pattern[section] = pattern;
		sc->clue_how[section] = how;
	}
}

static void clue_begin(struct scoring *sc, const char *desc, size_t line)
{
	sc->clue++;
	sc->nclues++;
	sc->desc = desc;
	sc->line = line;
	sc->clue_file = NULL;
	g_array_set_size(sc->touched, 0);
	g_hash_table_remove_all(sc->folders_seen);
	sc->folders = 0;
}

static void clue_end(struct scoring *sc)
{
	for (guint i = 0; i < sc->touched->len; i++) {
		guint s = g_array_index(sc->touched, guint, i);
		double c = sc->clue_score[s];

		sc->score[s] += c;
		if (c > sc->best[s]) {
			sc->best[s] = c;
			g_free(sc->reason[s]);
			sc->reason[s] = clue_words(sc, s);
			g_free(sc->file[s]);
			sc->file[s] = g_strdup(sc->clue_file);
		}
		if (c > 0)
			keep_evidence(sc, s, c);
	}
}

/* Every F:/X: (and, if with_n, N:) pattern against path: hits in the
 * current clue, the deepest matching patterns with weight, shallower ones
 * with a fraction. */
static void path_hits(struct scoring *sc, const char *path, double weight, int with_n)
{
	const struct tri_matcher *m = sc->m;
	size_t deepest = 0;
	int literal = 0;
	GArray *found = g_array_new(FALSE, FALSE, sizeof(struct path_hit));

	for (guint s = 0; s < m->nsections; s++) {
		const struct mnt_section *sec = mnt_section_at(m->mf, s);
		size_t d = 0;
		const char *best = NULL;

		for (size_t f = 0; sec->files[f]; f++) {
			const char *p = sec->files[f];

			if ((*p != *path && *p != '*' && *p != '?' && *p != '[') ||
			    !tri_pattern_matches(p, path))
				continue;
			/* a pattern that is all glob at the top ("*", "*\/") says nothing */
			if (pattern_depth(p) > d && *p != '*') {
				d = pattern_depth(p);
				best = p;
			} else if (!best) {
				best = p;
			}
		}
		if (!best)
			continue;
		for (size_t x = 0; sec->excluded[x]; x++)
			if (tri_pattern_matches(sec->excluded[x], path)) {
				best = NULL;
				break;
			}
		if (best) {
			struct path_hit h = { s, d, best };

			g_array_append_val(found, h);
			if (d > deepest)
				deepest = d;
		}
	}
	/* of the deepest, a pattern that names the file itself (F:
	 * fs/fhandle.c) is more precise than a glob of its folder's files */
	for (guint i = 0; i < found->len; i++) {
		const struct path_hit *h = &g_array_index(found, struct path_hit, i);

		if (h->depth == deepest && !has_glob(h->pattern, strlen(h->pattern)) &&
		    !strcmp(h->pattern, path))
			literal = 1;
	}
	for (guint i = 0; i < found->len; i++) {
		const struct path_hit *h = &g_array_index(found, struct path_hit, i);
		double c = !h->depth ? weight * 0.01 : h->depth == deepest ? weight :
			weight * 0.15 * h->depth / (double)deepest;

		if (literal && h->depth == deepest && strcmp(h->pattern, path))
			c *= 0.9;
		hit(sc, h->section, c, "matched F:", h->pattern);
	}
	g_array_free(found, TRUE);
	for (guint i = 0; with_n && i < m->n_regexes->len; i++) {
		const struct regex_entry *e = &g_array_index(m->n_regexes, struct regex_entry, i);

		if (g_regex_match(e->re, path, 0, NULL))
			hit(sc, e->section, weight * 0.4, "matched N:", e->source);
	}
}

/* A path named by the report. */
static void apply_path(struct scoring *sc, const char *path, double weight, const char *desc,
		       size_t line)
{
	clue_begin(sc, desc, line);
	sc->clue_file = path;
	path_hits(sc, path, weight, 1);
	clue_end(sc);
}

/* A name matched a folder inside a pattern ("amdgpu" in
 * drivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd*.[ch]): the folder belongs to
 * whoever's patterns cover it best (RADEON and AMDGPU, by
 * drivers/gpu/drm/amd/), so it counts for them.  A few folders per name. */
static void folder_hits(struct scoring *sc, const char *pattern, const char *component,
			double weight)
{
	const char *at = strstr(pattern, component);
	size_t n = strlen(component);
	char *folder;

	while (at && !((at == pattern || at[-1] == '/') && at[n] == '/'))
		at = strstr(at + 1, component);
	if (!at || sc->folders >= 6)
		return;
	folder = g_strdup_printf("%.*s/-", (int)(at + n - pattern), pattern);
	if (!g_hash_table_contains(sc->folders_seen, folder)) {
		g_hash_table_add(sc->folders_seen, folder);
		sc->folders++;
		path_hits(sc, folder, weight, 0);
	} else {
		g_free(folder);
	}
}

/* Where a pattern lies, for a name: code of a module lives under drivers/
 * more often than in a header, and a fault on arm64 is not in
 * arch/loongarch. */
static double place_factor(const struct scoring *sc, const char *pattern)
{
	if (g_str_has_prefix(pattern, "include/"))
		return 0.6;
	if (g_str_has_prefix(pattern, "drivers/"))
		return 1.1;
	if (g_str_has_prefix(pattern, "arch/") && sc->arch) {
		size_t n = strlen(sc->arch);

		return !strncmp(pattern + 5, sc->arch, n) && pattern[5 + n] == '/' ? 1.2 : 0.3;
	}
	return 1.0;
}

static void lookup_entries(struct scoring *sc, const char *key, GArray *list, double weight,
			   size_t name_len)
{
	size_t klen = strlen(key);
	/* a glob matched by a prefix of the name ("hid-" of hid-multitouch)
	 * counts by how much of the name it covers */
	double prefix = klen < name_len ? 0.4 + 0.6 * (double)klen / (double)name_len : 1.0;

	if (!list)
		return;
	for (guint i = 0; i < list->len; i++) {
		const struct comp_entry *e = &g_array_index(list, struct comp_entry, i);
		const struct mnt_section *sec;
		double c;

		if (klen < name_len && !e->star)
			continue;
		sec = mnt_section_at(sc->m->mf, e->section);
		c = weight * prefix * (e->is_last ? (e->is_file ? sc->file_factor : 1.0) : 0.2) *
			(e->depth >= 3 ? 1.0 : e->depth == 2 ? 0.8 : 0.5) *
			place_factor(sc, sec->files[e->file]);
		hit(sc, e->section, c, "matched F:", sec->files[e->file]);
		if (!e->is_last && klen == name_len)
			folder_hits(sc, sec->files[e->file], key, weight * 0.5 *
				    place_factor(sc, sec->files[e->file]));
	}
}

/* Two components in a row ("amd/pmc"): entries of a whose pattern's next
 * component is b. */
static void lookup_pair(struct scoring *sc, const char *a, const char *b, double weight)
{
	GArray *list = g_hash_table_lookup(sc->m->by_name, a);
	size_t blen = strlen(b);

	if (!list)
		return;
	for (guint i = 0; i < list->len; i++) {
		const struct comp_entry *e = &g_array_index(list, struct comp_entry, i);
		const struct mnt_section *sec = mnt_section_at(sc->m->mf, e->section);
		const char *p = sec->files[e->file], *at;

		if (e->is_last)
			continue;
		for (at = strstr(p, a); at; at = strstr(at + 1, a)) {
			size_t alen = strlen(a);

			if ((at == p || at[-1] == '/') && at[alen] == '/' &&
			    !strncmp(at + alen + 1, b, blen) &&
			    (at[alen + 1 + blen] == '/' || at[alen + 1 + blen] == '\0' ||
			     at[alen + 1 + blen] == '.')) {
				hit(sc, e->section, weight * (e->depth >= 3 ? 1.0 : 0.8),
				    "matched F:", p);
				break;
			}
		}
	}
}

/* One name (module, driver, symbol prefix) against the component index:
 * the whole name, then its prefixes at '_'/'-' against globbed
 * components, then its first token against files' first tokens. */
static void lookup_name(struct scoring *sc, const char *name, double weight)
{
	const struct tri_matcher *m = sc->m;
	size_t n = strlen(name);
	char *buf;

	if (n < 2 || n > 128)
		return;
	lookup_entries(sc, name, g_hash_table_lookup(m->by_name, name), weight, n);
	buf = g_strdup(name);
	for (size_t i = 2; i < n; i++) {
		if (name[i] != '_' && name[i] != '-')
			continue;
		buf[i] = '\0';
		lookup_entries(sc, buf, g_hash_table_lookup(m->by_name, buf), weight, n);
		buf[i] = name[i];
		buf[i + 1] = '\0';
		lookup_entries(sc, buf, g_hash_table_lookup(m->by_name, buf), weight, n);
		memcpy(buf, name, n + 1);
	}
	lookup_entries(sc, name, g_hash_table_lookup(m->by_token, name), weight * 0.6, n);
	g_free(buf);
}

/* The index of the first of the sorted keys not before s (keys->len when
 * none): where the keys s begins start. */
static size_t first_key_from(const GPtrArray *keys, const char *s)
{
	size_t lo = 0, hi = keys->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(g_ptr_array_index(keys, mid), s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A module named after the start of its folder ("overlay" for
 * fs/overlayfs/): components that name starts, a few at most. */
static void lookup_prefix(struct scoring *sc, const char *name, double weight)
{
	const GPtrArray *keys = sc->m->keys;
	size_t n = strlen(name);

	if (n < 5)
		return;
	for (size_t i = first_key_from(keys, name), taken = 0; i < keys->len && taken < 8; i++) {
		const char *k = g_ptr_array_index(keys, i);

		if (strncmp(k, name, n))
			break;
		if (g_ascii_isalpha(k[n])) {
			lookup_entries(sc, k, g_hash_table_lookup(sc->m->by_name, k), weight, strlen(k));
			taken++;
		}
	}
}

/* A module or device driver's name that matched no pattern may still be
 * a subfolder of a vendor's folder whose F: is a "*\/" right under it
 * (drivers/net/ethernet/intel), when the report names that vendor: the
 * folder .../intel/<name>/ is matched as a path, at low weight. */
static void vendor_glob_hits(struct scoring *sc, const char *name, double weight)
{
	const GArray *globs = sc->m->vendor_globs;

	for (guint i = 0; i < globs->len; i++) {
		const struct vendor_glob *g = &g_array_index(globs, struct vendor_glob, i);
		const char *pattern;
		char *folder;

		if (!(sc->vendors & (1u << g->vendor)))
			continue;
		pattern = mnt_section_at(sc->m->mf, g->section)->files[g->file];
		folder = g_strdup_printf("%.*s%s/-", (int)g->prefix, pattern, name);
		path_hits(sc, folder, weight, 0);
		g_free(folder);
	}
}

enum {
	NAME_SYMBOL = 1,        /* a function's name, not a module's */
	NAME_DRIVER = 2,        /* a module or a device driver: may be a vendor's subfolder */
};

/* The names a module, driver or symbol may go by in MAINTAINERS. */
static void apply_name(struct scoring *sc, const char *name, double weight, unsigned kind,
		       const char *desc, size_t line)
{
	int symbol = kind & NAME_SYMBOL;
	static const char *const strip_prefixes[] = { "snd_soc_", "snd-soc-", "snd_", "snd-" };
	static const char *const strip_suffixes[] = {
		"_pci", "_pcie", "_usb", "_sdio", "_core", "_common", "_lib", "_hcd", "_mod",
		"_platform", "_drv", "-pci", "-core",
	};
	char *base, *dash, **tokens;
	const char *p = name;
	size_t ntok;

	while (*p == '_' || *p == '.')
		p++;
	if (strlen(p) < 2)
		return;
	clue_begin(sc, desc, line);
	base = g_strdup(p);
	for (size_t i = 0; i < G_N_ELEMENTS(strip_prefixes); i++)
		if (!symbol && g_str_has_prefix(base, strip_prefixes[i]) &&
		    strlen(base) > strlen(strip_prefixes[i]) + 2) {
			memmove(base, base + strlen(strip_prefixes[i]),
				strlen(base) - strlen(strip_prefixes[i]) + 1);
			break;
		}
	if (!symbol) {
		lookup_name(sc, p, weight);
		lookup_name(sc, base, weight);
		dash = g_strdelimit(g_strdup(base), "_", '-');
		lookup_name(sc, dash, weight);
		g_free(dash);
		dash = g_strdelimit(g_strdup(base), "-", '_');
		lookup_name(sc, dash, weight);
		g_free(dash);
		lookup_prefix(sc, base, weight * 0.6);
		/* ALSA's modules are snd_*, its code is under sound/ */
		if (g_str_has_prefix(p, "snd"))
			lookup_name(sc, "sound", weight * 0.8);
		for (size_t i = 0; i < G_N_ELEMENTS(strip_suffixes); i++)
			if (g_str_has_suffix(base, strip_suffixes[i]) &&
			    strlen(base) > strlen(strip_suffixes[i]) + 2) {
				base[strlen(base) - strlen(strip_suffixes[i])] = '\0';
				lookup_name(sc, base, weight * 0.9);
				break;
			}
	}
	tokens = g_strsplit_set(base, "_-", 4);
	ntok = g_strv_length(tokens);
	if (ntok >= 2 && *tokens[0] && *tokens[1]) {
		char *joined = g_strconcat(tokens[0], "_", tokens[1], NULL);

		lookup_name(sc, joined, weight * 0.9);
		g_strdelimit(joined, "_", '-');
		lookup_name(sc, joined, weight * 0.9);
		g_free(joined);
		joined = g_strconcat(tokens[0], tokens[1], NULL);
		lookup_name(sc, joined, weight * 0.8);
		g_free(joined);
		lookup_pair(sc, tokens[0], tokens[1], weight * 0.9);
		lookup_pair(sc, tokens[1], tokens[0], weight * 0.8);
	}
	/* the first word alone names a folder more often than a file
	 * ("hid" of hid_multitouch is drivers/hid/, not some hid.c) */
	sc->file_factor = 0.5;
	/* ... but a vendor's name alone ("intel" of intel_idle, "amd" of
	 * amd_pmc) is in every kind of folder: no evidence */
	if (ntok >= 1 && strlen(tokens[0]) >= 3 &&
	    !(ntok >= 2 && tri_vendor_index(tokens[0], strlen(tokens[0])) >= 0))
		lookup_name(sc, tokens[0], weight * (symbol ? 0.5 : 0.7));
	sc->file_factor = 1.0;
	if ((kind & NAME_DRIVER) && !sc->touched->len)
		vendor_glob_hits(sc, p, weight * 0.15);
	g_strfreev(tokens);
	g_free(base);
	clue_end(sc);
}

/* Where in a component list pattern p has the folder component name
 * ("amdgpu" in drivers/gpu/drm/amd/amdgpu/...), from byte from on; NULL
 * if nowhere. */
static const char *folder_component(const char *p, size_t from, const char *name)
{
	size_t n = strlen(name);

	for (const char *at = strstr(p + from, name); at; at = strstr(at + 1, name))
		if ((at == p || at[-1] == '/') && at[n] == '/')
			return at;
	return NULL;
}

/* A symbol of a module whose folder the patterns show (amdgpu in
 * drivers/gpu/drm/amd/amdgpu/): a prefix of the symbol ("dc" of
 * dc_validate_with_context) that names a folder elsewhere under the same
 * parent (drivers/gpu/drm/amd/display/dc/) places the code more precisely
 * than the module does; that folder is matched as a path with the
 * module's weight.  Short prefixes count here, the tree bounds them. */
static void apply_module_symbol(struct scoring *sc, const char *module, const char *symbol,
				double weight, const char *desc, size_t line)
{
	const struct tri_matcher *m = sc->m;
	GArray *mods = g_hash_table_lookup(m->by_name, module);
	const char *roots[4];
	size_t rootlen[4], nroots = 0, n;
	char *buf;

	if (!mods)
		return;
	for (guint i = 0; i < mods->len && nroots < G_N_ELEMENTS(roots); i++) {
		const struct comp_entry *e = &g_array_index(mods, struct comp_entry, i);
		const char *p = mnt_section_at(m->mf, e->section)->files[e->file], *at;
		size_t k;

		if (e->is_last || !(at = folder_component(p, 0, module)) || count_slashes(p) < 3)
			continue;
		/* the parent must be two folders deep at least: not drivers/ */
		if ((size_t)(at - p) < 2 || !memchr(p, '/', (size_t)(at - p) - 1))
			continue;
		for (k = 0; k < nroots; k++)
			if (rootlen[k] == (size_t)(at - p) && !strncmp(roots[k], p, rootlen[k]))
				break;
		if (k == nroots) {
			roots[nroots] = p;
			rootlen[nroots++] = (size_t)(at - p);
		}
	}
	while (*symbol == '_')
		symbol++;
	n = strlen(symbol);
	if (!nroots || n > 128)
		return;
	clue_begin(sc, desc, line);
	buf = g_strdup(symbol);
	for (size_t i = 2; i < n; i++) {
		GArray *list;

		if (symbol[i] != '_')
			continue;
		buf[i] = '\0';
		list = !strcmp(buf, module) || g_str_has_prefix(module, buf) ? NULL :
			g_hash_table_lookup(m->by_name, buf);
		for (guint j = 0; list && j < list->len; j++) {
			const struct comp_entry *e = &g_array_index(list, struct comp_entry, j);
			const char *p = mnt_section_at(m->mf, e->section)->files[e->file], *at;

			if (e->is_last)
				continue;
			for (size_t k = 0; k < nroots; k++) {
				char *folder;

				if (strncmp(p, roots[k], rootlen[k]) ||
				    !(at = folder_component(p, rootlen[k], buf)))
					continue;
				folder = g_strdup_printf("%.*s/-", (int)(at - p) + (int)strlen(buf), p);
				if (g_hash_table_contains(sc->folders_seen, folder)) {
					g_free(folder);
				} else {
					g_hash_table_add(sc->folders_seen, folder);
					path_hits(sc, folder, weight, 0);
				}
				break;
			}
		}
		buf[i] = '_';
	}
	g_free(buf);
	clue_end(sc);
}

/* ---- names located by the caller's tree ---------------------------------- */

/* A located name: its path (a folder ends in '/') as a path clue. */
static void apply_located(struct scoring *sc, const char *path, double weight,
			  const char *desc, const char *what, size_t line)
{
	size_t n = strlen(path);
	char *d = g_strdup_printf("%s: %s %s (%s)", desc, what, path,
				  sc->located.how ? sc->located.how : "located");
	char *p = n && path[n - 1] == '/' ? g_strconcat(path, "-", NULL) : g_strdup(path);

	apply_path(sc, p, weight, d, line);
	g_free(p);
	g_free(d);
}

/* A module or driver: where the tree builds it, else by its name. */
static void apply_module(struct scoring *sc, const char *module, double weight, unsigned kind,
			 const char *desc, size_t line)
{
	const char *at = tri_located_module(&sc->located, module);

	if (at) {
		char *what = g_strdup_printf("module %s built in", module);

		apply_located(sc, at, weight, desc, what, line);
		g_free(what);
	} else {
		apply_name(sc, module, weight, kind, desc, line);
	}
}

/* A symbol: the file that defines it (at located_weight, the weight of
 * its frame's module), else by its name. */
static void apply_symbol(struct scoring *sc, const char *symbol, double weight,
			 double located_weight, const char *desc, size_t line)
{
	const char *at = tri_located_symbol(&sc->located, symbol);

	if (at)
		apply_located(sc, at, located_weight, desc, "defined in", line);
	else
		apply_name(sc, symbol, weight, NAME_SYMBOL, desc, line);
}

/* A git tree's URL as "pub/scm"'s path or host/path, without scheme,
 * user, ".git" or a trailing '/': "linux/kernel/git/broonie/spi" for
 * https://git.kernel.org/pub/scm/linux/kernel/git/broonie/spi.git and
 * git://git.kernel.org/pub/scm/linux/kernel/git/broonie/spi.git alike.
 * NULL for no URL. */
static char *tree_key(const char *url, size_t n)
{
	const char *p = url, *end = url + n, *scm, *at;
	char *k;
	size_t kn;

	for (const char *q = url; q + 3 <= end; q++)
		if (!strncmp(q, "://", 3)) {
			p = q + 3;
			break;
		}
	if (p == url)
		return NULL;
	at = memchr(p, '@', (size_t)(end - p));
	if (at && !memchr(p, '/', (size_t)(at - p)))
		p = at + 1;
	scm = g_strstr_len(p, end - p, "/pub/scm/");
	if (scm)
		p = scm + strlen("/pub/scm/");
	kn = (size_t)(end - p);
	while (kn && p[kn - 1] == '/')
		kn--;
	if (kn > 4 && !strncmp(p + kn - 4, ".git", 4))
		kn -= 4;
	if (!kn)
		return NULL;
	k = g_ascii_strdown(p, (gssize)kn);
	return k;
}

/* The owner's folder of a kernel.org tree key ("linux/kernel/git/broonie/"),
 * its length; 0 for another host's. */
static size_t tree_owner(const char *key)
{
	static const char prefix[] = "linux/kernel/git/";
	const char *slash;

	if (!g_str_has_prefix(key, prefix))
		return 0;
	slash = strchr(key + strlen(prefix), '/');
	return slash ? (size_t)(slash - key) + 1 : 0;
}

/* The kernel test robot names the tree it built ("tree:   https://git.
 * kernel.org/pub/scm/linux/kernel/git/broonie/spi.git for-next") and
 * mails its report to that tree's people: the sections whose T: is that
 * tree count (split among them), those of another tree of its owner less. */
/* A tree that no T: names, called after its subsystem as maintainers
 * name theirs ("linusw/linux-gpio", "jic23/iio", "broonie/spi"): the
 * section whose title names that subsystem ("GPIO SUBSYSTEM"), at half
 * of a T: the tree matched. */
static void tree_subsystem(struct scoring *sc, const char *key)
{
	const char *base = strrchr(key, '/');
	GArray *titles;

	base = base ? base + 1 : key;
	if (g_str_has_prefix(base, "linux-"))
		base += strlen("linux-");
	titles = strlen(base) >= 3 ? g_hash_table_lookup(sc->m->by_title, base) : NULL;
	for (guint i = 0; titles && i < titles->len; i++) {
		const struct title_entry *e = &g_array_index(titles, struct title_entry, i);

		if (e->kind == TITLE_SUBSYSTEM)
			hit(sc, e->section, 8.0, "tree named after the subsystem of",
			    mnt_section_at(sc->m->mf, e->section)->name);
	}
}

static void apply_tree(struct scoring *sc, const char *text, size_t len)
{
	const struct tri_matcher *m = sc->m;
	const char *p = text, *end = text + MIN(len, (size_t)8192);
	size_t line = 1;

	for (; p && p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *u;
		char *key = NULL, *desc = NULL;
		size_t un, owner, exact = 0, same_owner = 0;

		if (le - p < 6 || strncmp(p, "tree:", 5) || (p[5] != ' ' && p[5] != '\t')) {
			p = nl ? nl + 1 : NULL;
			continue;
		}
		for (u = p + 5; u < le && (*u == ' ' || *u == '\t'); u++)
			;
		for (un = 0; u + un < le && u[un] != ' ' && u[un] != '\t' && u[un] != '\r'; un++)
			;
		key = tree_key(u, un);
		if (!key)
			break;
		owner = tree_owner(key);
		/* two passes: count, then score */
		for (int pass = 0; pass < 2; pass++) {
			if (pass) {
				desc = g_strdup_printf("tree %.*s", (int)MIN(un, (size_t)120), u);
				clue_begin(sc, desc, line);
			}
			for (guint s = 0; s < m->nsections; s++) {
				const struct mnt_section *sec = mnt_section_at(m->mf, s);
				int how = 0;
				const char *which = NULL;

				for (size_t t = 0; sec->trees && sec->trees[t] && how < 2; t++) {
					const char *v = sec->trees[t], *tok;
					size_t vn;
					char *k;

					/* "git git://...", the URL's word */
					for (k = NULL; *v && !k; v = tok + vn) {
						while (*v == ' ' || *v == '\t')
							v++;
						for (tok = v, vn = 0; tok[vn] && tok[vn] != ' ' &&
						     tok[vn] != '\t'; vn++)
							;
						k = vn ? tree_key(tok, vn) : NULL;
						if (!vn)
							break;
					}
					if (k && !strcmp(k, key)) {
						how = 2;
						which = sec->trees[t];
					} else if (k && owner && !strncmp(k, key, owner) && !how) {
						how = 1;
						which = sec->trees[t];
					}
					g_free(k);
				}
				if (!pass) {
					exact += how == 2;
					same_owner += how == 1;
				} else if (how == 2) {
					hit(sc, s, 16.0 / (1 + 0.25 * (double)(exact - 1)), "matched T:",
					    which);
				} else if (how == 1 && !exact) {
					hit(sc, s, 3.0 / (1 + 0.25 * (double)(same_owner - 1)),
					    "same owner as T:", which);
				}
			}
		}
		if (!exact)
			tree_subsystem(sc, key);
		clue_end(sc);
		g_free(desc);
		g_free(key);
		break;
	}
}

static void apply_k(struct scoring *sc, const char *text, size_t len)
{
	const struct tri_matcher *m = sc->m;

	if (!text || !len)
		return;
	if (len > TRI_MATCH_MAX_K_TEXT)
		len = TRI_MATCH_MAX_K_TEXT;
	for (guint i = 0; i < m->k_regexes->len; i++) {
		const struct regex_entry *e = &g_array_index(m->k_regexes, struct regex_entry, i);
		GMatchInfo *mi = NULL;
		int a = 0, b = 0;

		if (g_regex_match_full(e->re, text, (gssize)len, 0, 0, &mi, NULL) &&
		    g_match_info_fetch_pos(mi, 0, &a, &b)) {
			size_t line = 1;
			char desc[64];

			for (int j = 0; j < a; j++)
				line += text[j] == '\n';
			char *clean;

			/* the matched text is outside input: printable, valid UTF-8 */
			g_snprintf(desc, sizeof(desc), "%.*s", MIN(b - a, 40), text + a);
			for (char *p = desc; *p; p++)
				if ((unsigned char)*p < 0x20 || *p == 0x7f)
					*p = ' ';
			clean = g_utf8_make_valid(desc, -1);
			clue_begin(sc, clean, line);
			hit(sc, e->section, 1.5, "matched K:", e->source);
			clue_end(sc);
			g_free(clean);
		}
		g_match_info_free(mi);
	}
}

/* ---- clues from the report ---------------------------------------------- */

/* Whether a frame is in shared code: by its path if printed, else by the
 * file the tree or index defines it in (lib/iomap.c for iowrite16), else
 * by its name (tri_frame_is_shared()). */
static int frame_shared(struct scoring *sc, const struct tri_frame *f, int mm)
{
	const char *at = f->path ? NULL : tri_located_symbol(&sc->located, f->symbol);

	return tri_frame_is_shared(f, mm) || (at && tri_path_is_shared(at, mm));
}

/* tri_guilty_frame() with what the locator found: a frame that names no
 * file is in shared code when the file defining it is. */
static ssize_t guilty_frame(struct scoring *sc, const struct tri_oops *o, int *mm)
{
	if (!sc->located.symbol_at)
		return tri_guilty_frame(o, mm);
	for (int pass = 1; pass >= 0; pass--)
		for (size_t i = tri_console_frames(o); i < o->nframes; i++) {
			const struct tri_frame *f = &o->frames[i];

			if (f->unreliable || tri_symbol_is_generic(f->symbol) ||
			    (f->path && tri_path_is_reporter(f->path)) || frame_shared(sc, f, pass))
				continue;
			*mm = pass;
			return (ssize_t)i;
		}
	*mm = 0;
	return -1;
}

static void apply_oops(struct scoring *sc, const struct tri_oops *o, double of)
{
	char *desc;
	size_t rank = 0;
	int mm = 0;
	ssize_t guilty = guilty_frame(sc, o, &mm);
	const char *pc_at = o->pc_symbol ? tri_located_symbol(&sc->located, o->pc_symbol) : NULL;

	/* the title names the guilty frame, as syzbot titles its reports
	 * ("KASAN: use-after-free Read in nbd_genl_connect"): that frame, if
	 * the trace has it and it is no shared code */
	for (size_t j = 0; sc->title_frame && j < o->nframes; j++) {
		const struct tri_frame *f = &o->frames[j];
		const char *dot = strchr(f->symbol, '.');
		size_t n = dot ? (size_t)(dot - f->symbol) : strlen(f->symbol);

		if (!f->unreliable && strlen(sc->title_frame) == n &&
		    !strncmp(f->symbol, sc->title_frame, n) && !frame_shared(sc, f, 1) &&
		    !tri_symbol_is_generic(f->symbol)) {
			guilty = (ssize_t)j;
			break;
		}
	}
	/* a fault in shared code with a guilty frame under it is the caller's */
	size_t console = tri_console_frames(o);
	int path_shared = o->path && guilty >= 0 && (console || tri_path_is_shared(o->path, mm));
	int pc_shared = o->pc_symbol && guilty >= 0 && (console || tri_symbol_is_shared(o->pc_symbol) ||
							(pc_at && tri_path_is_shared(pc_at, mm)));
	int has_path = o->path && !tri_path_is_reporter(o->path) && !path_shared;

	if (o->path && !tri_path_is_reporter(o->path)) {
		desc = g_strdup_printf("%s at %s", tri_oops_kind_str(o->kind), o->path);
		apply_path(sc, o->path, (path_shared ? 2 : 10) * of, desc, o->path_line);
		g_free(desc);
	}
	if (o->pc_symbol && !tri_symbol_is_generic(o->pc_symbol)) {
		/* the fault's own file, when printed, says more than its module */
		double pw = (pc_shared ? 0.2 : 1.0) * of;

		desc = g_strdup_printf("pc %s%s%s%s", o->pc_symbol, o->pc_module ? " [" : "",
				       o->pc_module ? o->pc_module : "", o->pc_module ? "]" : "");
		if (o->pc_module)
			apply_module(sc, o->pc_module, (has_path ? 3 : 8) * pw, NAME_DRIVER, desc,
				     o->pc_line);
		apply_symbol(sc, o->pc_symbol, (has_path ? 2 : 6) * pw, (has_path ? 3 : 8) * pw,
			     desc, o->pc_line);
		if (o->pc_module && !tri_located_symbol(&sc->located, o->pc_symbol))
			apply_module_symbol(sc, o->pc_module, o->pc_symbol, (has_path ? 3 : 8) * pw,
					    desc, o->pc_line);
		g_free(desc);
	}
	if (o->lr_symbol && !tri_symbol_is_generic(o->lr_symbol)) {
		double lw = (guilty >= 0 && tri_symbol_is_shared(o->lr_symbol) ? 0.2 : 1.0) * of;

		desc = g_strdup_printf("lr %s", o->lr_symbol);
		if (o->lr_module)
			apply_module(sc, o->lr_module, 2 * lw, NAME_DRIVER, desc, o->pc_line);
		apply_symbol(sc, o->lr_symbol, 2 * lw, 2 * lw, desc, o->pc_line);
		g_free(desc);
	}
	GHashTable *counted = g_hash_table_new(g_str_hash, g_str_equal);

	for (size_t i = 0; i < o->nframes && rank < 10 && sc->nclues < TRI_MATCH_MAX_CLUES; i++) {
		const struct tri_frame *f = &o->frames[i];
		double w;

		if (tri_symbol_is_generic(f->symbol) || (f->path && tri_path_is_reporter(f->path)))
			continue;
		/* a function the trace prints again (the stale "? string"
		 * entries an unwinder finds on the stack, a recursion) is one
		 * place in the code: it counts once, where it is first */
		if ((size_t)guilty != i && !g_hash_table_add(counted, (gpointer)f->symbol))
			continue;
		if (f->unreliable) {
			if (o->pc_symbol && !strcmp(f->symbol, o->pc_symbol))
				continue;
			w = 0.3;
		} else if (guilty >= 0 && ((size_t)guilty != i && (i < console ||
								   frame_shared(sc, f, mm)))) {
			/* shared code above or below the guilty frame */
			w = 0.1;
		} else if (guilty >= 0 && i < (size_t)guilty) {
			/* above the frame the title names */
			w = 0.1;
		} else {
			w = power(0.7, rank);
			/* it stands for the fault when that is in shared code */
			if ((size_t)guilty == i && (path_shared || pc_shared))
				w *= 1.5;
			/* the callers under the guilty frame are how it was reached:
			 * together (a broad F: such as net/ takes their paths) they
			 * must not outweigh it */
			if (guilty >= 0 && i > (size_t)guilty && f->path)
				w *= 0.5;
			rank++;
		}
		w *= 4 * of;
		if (has_path)
			w *= 0.5;
		desc = g_strdup_printf("%s %s%s%s%s", (size_t)guilty == i ? "guilty frame" : "frame",
				       f->symbol, f->module ? " [" : "", f->module ? f->module : "",
				       f->module ? "]" : "");
		if (f->path)
			apply_path(sc, f->path, w * 1.5, desc, f->line);
		if (f->module)
			apply_module(sc, f->module, w, NAME_DRIVER, desc, f->line);
		apply_symbol(sc, f->symbol, w * 0.7, w, desc, f->line);
		if (f->module && !tri_located_symbol(&sc->located, f->symbol))
			apply_module_symbol(sc, f->module, f->symbol, w, desc, f->line);
		g_free(desc);
	}
	g_hash_table_destroy(counted);
}

/* ---- names in prose ------------------------------------------------------ */

/* A name of two parts or more that begins the name of a file in F:, up to
 * a '-' or '_' of it ("hp-wmi" of drivers/hwmon/hp-wmi-sensors.c, as a
 * driver and the files of its parts share a name), in at most two
 * sections: each counts weight * 0.7.  Whether any did. */
static int prose_file_prefix(struct scoring *sc, const char *word, double weight)
{
	const GPtrArray *keys = sc->m->keys;
	size_t n = strlen(word), lo = first_key_from(keys, word);
	guint seen[3], sections = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = lo; i < keys->len; i++) {
			const char *k = g_ptr_array_index(keys, i);
			GArray *list;

			if (strncmp(k, word, n))
				break;
			if (k[n] != '-' && k[n] != '_')
				continue;
			list = g_hash_table_lookup(sc->m->by_name, k);
			for (guint j = 0; list && j < list->len; j++) {
				const struct comp_entry *e = &g_array_index(list, struct comp_entry, j);
				const char *pat = mnt_section_at(sc->m->mf, e->section)->files[e->file];
				guint x = 0;

				if (!e->is_file || e->star || g_str_has_prefix(pat, "Documentation/"))
					continue;
				while (x < sections && seen[x] != e->section)
					x++;
				if (!pass && x == sections && sections < G_N_ELEMENTS(seen))
					seen[sections++] = e->section;
				else if (pass)
					hit(sc, e->section, weight * 0.7 / sections, "matched F:", pat);
			}
			if (!pass && sections > 2)
				return 0;
		}
	return sections > 0;
}

/* One word of prose against the titles and the F: components it is spelt
 * as; whether anything matched. */
/* Where a pattern lies, for a name written in prose: people name drivers,
 * file systems and subsystems, seldom a header or a device tree. */
static double prose_place(const char *pattern)
{
	if (g_str_has_prefix(pattern, "Documentation/") || strstr(pattern, "/boot/dts/"))
		return 0.2;
	if (g_str_has_prefix(pattern, "include/") || g_str_has_prefix(pattern, "arch/") ||
	    g_str_has_prefix(pattern, "tools/"))
		return 0.5;
	return g_str_has_prefix(pattern, "drivers/") ? 1.1 : 1.0;
}

/* The entries of list that end a pattern (a folder, a file's name), if
 * they are in at most four sections: each counts weight over their number
 * of sections.  Whether any did. */
static int prose_components(struct scoring *sc, GArray *list, double weight)
{
	guint seen[5], sections = 0;

	for (guint i = 0; list && i < list->len && sections < G_N_ELEMENTS(seen); i++) {
		const struct comp_entry *e = &g_array_index(list, struct comp_entry, i);
		guint j = 0;

		if (!e->is_last || e->star)
			continue;
		while (j < sections && seen[j] != e->section)
			j++;
		if (j == sections)
			seen[sections++] = e->section;
	}
	if (!sections || sections > 4)
		return 0;
	for (guint i = 0; i < list->len; i++) {
		const struct comp_entry *e = &g_array_index(list, struct comp_entry, i);
		const struct mnt_section *sec = mnt_section_at(sc->m->mf, e->section);

		if (e->is_last && !e->star)
			hit(sc, e->section, weight * 0.9 / sections * prose_place(sec->files[e->file]),
			    "matched F:", sec->files[e->file]);
	}
	return 1;
}

/* A word of prose against the F: file globs whose literal start it
 * begins with ("asus-wmi": drivers/platform/x86/asus*.c), as a file
 * (word.c) or a folder, in at most four sections; whether any matched. */
static int prose_globs(struct scoring *sc, const char *word, double weight)
{
	size_t n = strlen(word);
	char *file = g_strconcat(word, ".c", NULL);
	guint seen[5], sections = 0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (size_t l = n - 1; l >= 3; l--) {
			char *prefix = g_strndup(word, l);
			GArray *list = g_hash_table_lookup(sc->m->by_name, prefix);

			g_free(prefix);
			for (guint i = 0; list && i < list->len; i++) {
				const struct comp_entry *e = &g_array_index(list, struct comp_entry, i);
				const struct mnt_section *sec = mnt_section_at(sc->m->mf, e->section);
				const char *pat = sec->files[e->file], *last;
				size_t pn = strlen(pat);
				char *comp;
				guint j = 0;
				int match;

				if (!e->is_last || !e->star)
					continue;
				while (pn && pat[pn - 1] == '/')
					pn--;
				for (last = pat + pn; last > pat && last[-1] != '/'; last--)
					;
				comp = g_strndup(last, (size_t)(pat + pn - last));
				match = g_pattern_match_simple(comp, file) || g_pattern_match_simple(comp, word);
				g_free(comp);
				if (!match)
					continue;
				while (j < sections && seen[j] != e->section)
					j++;
				if (!pass && j == sections && sections < G_N_ELEMENTS(seen))
					seen[sections++] = e->section;
				if (pass)
					hit(sc, e->section, weight * 0.8 / sections * prose_place(pat),
					    "matched F:", pat);
			}
		}
		if (!sections || sections > 4)
			break;
	}
	g_free(file);
	return pass == 2;
}

/* One word of prose against the titles and the F: components it is spelt
 * as (failing those, the files whose name ends in it: "cadence-quadspi"
 * for spi-cadence-quadspi.c; failing those, the file globs it fits:
 * "asus-wmi" for asus*.c); whether anything matched. */
static int prose_word(struct scoring *sc, const char *word, double weight)
{
	const struct tri_matcher *m = sc->m;
	GArray *titles = g_hash_table_lookup(m->by_title, word);
	GArray *comps = g_hash_table_lookup(m->by_name, word);
	guint words = 0, found = 0;

	for (guint i = 0; titles && i < titles->len; i++)
		words += g_array_index(titles, struct title_entry, i).kind == TITLE_WORD;
	for (guint i = 0; titles && i < titles->len; i++) {
		const struct title_entry *e = &g_array_index(titles, struct title_entry, i);
		const struct mnt_section *sec = mnt_section_at(m->mf, e->section);

		if (e->kind == TITLE_SUBSYSTEM)
			hit(sc, e->section, weight * 0.6, "named the subsystem of", sec->name);
		else if (e->kind == TITLE_ALIAS)
			hit(sc, e->section, weight, "named the title", sec->name);
		else if (e->kind == TITLE_WORD && words <= 2 && strpbrk(word, "0123456789"))
			hit(sc, e->section, weight * 0.8 / words, "matched a word of the title",
			    sec->name);
		else
			continue;
		found++;
	}
	if (prose_components(sc, comps, weight) ||
	    (!comps && prose_components(sc, g_hash_table_lookup(m->by_rest, word), weight * 0.8)))
		found++;
	if (!found && (strchr(word, '-') || strchr(word, '_')) && prose_globs(sc, word, weight))
		found++;
	if (!found && (strchr(word, '-') || strchr(word, '_')) && prose_file_prefix(sc, word, weight))
		found++;
	return found > 0;
}

/* A name whose parts are the folders of a path, as Bugzilla's components
 * ("Platform_x86" for drivers/platform/x86/) and module names
 * ("usb-storage" for drivers/usb/storage/) spell them: the sections with
 * a pattern that is that folder, as it is or under drivers/.  Whether
 * any. */
static int prose_folder(struct scoring *sc, const char *word, double weight)
{
	char *path = g_strdup(word), *last;
	GArray *list;
	int found = 0;

	g_strdelimit(path, "_-", '/');
	last = strrchr(path, '/');
	list = last ? g_hash_table_lookup(sc->m->by_name, last + 1) : NULL;
	for (guint i = 0; list && i < list->len; i++) {
		const struct comp_entry *e = &g_array_index(list, struct comp_entry, i);
		const char *pat = mnt_section_at(sc->m->mf, e->section)->files[e->file];
		size_t n = strlen(path);
		const char *rest = g_str_has_prefix(pat, "drivers/") ? pat + 8 : pat;

		if (e->is_last && !e->star && !strncmp(rest, path, n) && !strcmp(rest + n, "/")) {
			hit(sc, e->section, weight * 0.9, "matched F:", pat);
			found = 1;
		}
	}
	g_free(path);
	return found;
}

/* Whether the title is a compiler's diagnostic, as the kernel test robot
 * titles its build reports: "path.c:1843:10: error: ..." (or warning:). */
static int title_diagnostic(const char *text, size_t len)
{
	size_t n = tri_first_line_len(text, len);
	char *title = g_strndup(text, MIN(n, (size_t)512));
	int yes = 0;

	for (const char *p = strstr(title, ": "); p && !yes; p = strstr(p + 1, ": "))
		yes = (g_str_has_prefix(p, ": error: ") || g_str_has_prefix(p, ": warning: ")) &&
		      p > title && g_ascii_isdigit(p[-1]);
	g_free(title);
	return yes;
}

/* A name as people write it, in its spellings: "i2c_hid_acpi",
 * "i2c-hid-acpi"; as folders ("platform_x86": drivers/platform/x86/);
 * failing those, without its last part ("i2c-hid"). */
static void prose_name(struct scoring *sc, const char *word, double weight, size_t line)
{
	char *w = g_strdup(word), *desc;
	size_t n = strlen(w);
	int any = 0;
	double full = weight;
	const char *at = line == 1 ? tri_located_module(&sc->located, word) : NULL;
	/* a function a compiler's error names ("implicit declaration of
	 * function 'irq_get_irq_data'") is not where the error is */
	const char *def = line == 1 && !at && !sc->title_diagnostic ?
		tri_located_symbol(&sc->located, word) : NULL;

	desc = g_strdup_printf("%s \"%s\"", line == 1 ? "title word" : "word", word);
	clue_begin(sc, desc, line);
	for (;;) {
		any |= prose_word(sc, w, weight);
		if (strchr(w, '_') || strchr(w, '-')) {
			char *v = g_strdup(w);

			g_strdelimit(v, strchr(w, '_') ? "_" : "-", strchr(w, '_') ? '-' : '_');
			any |= prose_word(sc, v, weight);
			g_free(v);
			if (!any && n == strlen(word))
				any |= prose_folder(sc, w, weight);
		}
		if (!any && n == strlen(word)) {
			/* "amd_pmc" (a vendor's name and a name, tri_read_prose()'s
			 * pairs): the folders amd/pmc/ in a row, anywhere */
			const char *us = strchr(w, '_');

			if (us && !strchr(us + 1, '_') && tri_vendor_index(w, (size_t)(us - w)) >= 0) {
				guint before = sc->touched->len;
				char *vendor = g_strndup(w, (gsize)(us - w));

				lookup_pair(sc, vendor, us + 1, weight);
				g_free(vendor);
				any |= sc->touched->len > before;
			}
		}
		if (any)
			break;
		while (n && w[n - 1] != '_' && w[n - 1] != '-')
			n--;
		if (n < 4 || tri_vendor_index(w, n - 1) >= 0)
			break;
		w[--n] = '\0';
		weight *= 0.7;
	}
	clue_end(sc);
	/* a module of that name: where the tree builds it; else a function:
	 * where it is defined */
	if (at) {
		char *what = g_strdup_printf("module %s built in", word);

		/* a name in prose is a driver's more often than a board file's
		 * (obj-y += i2c.o of arch/arm/mach-iop32x/) */
		apply_located(sc, at, full * MIN(1.0, prose_place(at)), desc, what, line);
		g_free(what);
	} else if (def) {
		apply_located(sc, def, full, desc, "defined in", line);
	}
	g_free(desc);
	g_free(w);
}

/* The report's prose and title as prose.h reads them: each word and
 * each title tag that is a path is a clue. */
static int prose_full(void *ctx)
{
	const struct scoring *sc = ctx;

	return sc->nclues >= TRI_MATCH_MAX_CLUES;
}

/* Whether a pattern that does not begin with a glob matches path. */
static int path_named(const struct tri_matcher *m, const char *path)
{
	for (guint s = 0; s < m->nsections; s++) {
		const struct mnt_section *sec = mnt_section_at(m->mf, s);

		for (size_t f = 0; sec->files[f]; f++)
			if (*sec->files[f] == *path && tri_pattern_matches(sec->files[f], path))
				return 1;
	}
	return 0;
}

/* A title's tag that is a path, as subjects write them for drivers
 * ("platform/x86/intel/pmc:", "drm/amd/display:"): the folder, as it is
 * or under drivers/. */
static void prose_tag_path(void *ctx, const char *tag, size_t k, double weight)
{
	struct scoring *sc = ctx;
	char *desc = g_strdup_printf("title tag %.*s", (int)k, tag);
	char *a = g_strdup_printf("%.*s/-", (int)k, tag);
	char *b = g_strdup_printf("drivers/%.*s/-", (int)k, tag);

	clue_begin(sc, desc, 1);
	path_hits(sc, a, weight, 0);
	path_hits(sc, b, weight, 0);
	/* the folder it named, for the lists to write to (write_to): the
	 * one some section's pattern names, other than THE REST's "*" */
	sc->clue_file = path_named(sc->m, a) ? a : path_named(sc->m, b) ? b : NULL;
	clue_end(sc);
	g_free(a);
	g_free(b);
	g_free(desc);
}

static void prose_word_seen(void *ctx, const char *word, double weight, size_t line)
{
	prose_name(ctx, word, weight, line);
}

static void apply_prose(struct scoring *sc, const char *text, size_t len)
{
	const struct tri_prose_sink sink = { prose_full, prose_tag_path, prose_word_seen, sc };

	tri_prose_read(text, len, &sink);
}

/* A firmware file's driver name: "iwlwifi-so-a0-gf-a0-89.ucode" gives
 * iwlwifi, "i915/adlp_guc_70.bin" i915. */
static char *firmware_name(const char *file)
{
	/* folders of linux-firmware named after a vendor, not a driver */
	static const char *const fw_vendors[] = {
		"intel", "amd", "qcom", "mediatek", "nvidia", "brcm", "rtl_bt", "rtl_nic", "ti",
		"qca", "cirrus", "arm", "cypress", "realtek", "amlogic", "imx", "rockchip",
	};
	const char *p = file;

	for (;;) {
		size_t n = strcspn(p, "/");
		int vendor = 0;

		if (!p[n])
			break;      /* the file name */
		for (size_t i = 0; i < G_N_ELEMENTS(fw_vendors); i++)
			vendor |= strlen(fw_vendors[i]) == n && !strncmp(p, fw_vendors[i], n);
		if (!vendor)
			return n >= 3 ? g_strndup(p, n) : NULL;
		p += n + 1;
	}
	return strcspn(p, "-_.") >= 3 ? g_strndup(p, strcspn(p, "-_.")) : NULL;
}

/* The architecture the report's oopses ran on, from their register dumps. */
static const char *report_arch(const char *text, size_t len)
{
	if (!text)
		return NULL;
	if (len > TRI_MATCH_MAX_K_TEXT)
		len = TRI_MATCH_MAX_K_TEXT;
	if (g_strstr_len(text, (gssize)len, "pstate: ") || g_strstr_len(text, (gssize)len, "el1h_64_"))
		return "arm64";
	if (g_strstr_len(text, (gssize)len, "RIP: 00"))
		return "x86";
	if (g_strstr_len(text, (gssize)len, "NIP ["))
		return "powerpc";
	if (g_strstr_len(text, (gssize)len, "epc : "))
		return "riscv";
	return NULL;
}

struct ranked {
	guint section;
	double score;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->section < y->section ? -1 : x->section > y->section;
}

struct tri_ranking *tri_match(const struct tri_matcher *m, const struct tri_report *r,
			      const char *text, size_t len, size_t max)
{
	return tri_match_located(m, r, text, len, max, NULL);
}

/* The section's evidence into x (the texts move; a is left empty). */
static void take_evidence(struct tri_match *x, GArray *a)
{
	size_t n = a ? a->len : 0;

	x->evidence = g_new0(char *, n + 1);
	x->evidence_score = g_new0(double, n ? n : 1);
	for (size_t i = 0; i < n; i++) {
		x->evidence[i] = g_array_index(a, struct evidence, i).text;
		x->evidence_score[i] = g_array_index(a, struct evidence, i).score;
	}
	x->nevidence = n;
	if (a)
		g_array_set_size(a, 0);
}

/* What get_maintainer.pl names for the file that chose the section (its
 * own lists alone when no file did: a name in prose, a tree, K:). */
static char **write_to(const struct tri_matcher *m, guint section, const char *file)
{
	unsigned char *n_hit = NULL;
	char **lists;

	if (file) {
		n_hit = g_new0(unsigned char, m->nsections);
		for (guint i = 0; i < m->n_regexes->len; i++) {
			const struct regex_entry *e = &g_array_index(m->n_regexes, struct regex_entry, i);

			if (!n_hit[e->section] && g_regex_match(e->re, file, 0, NULL))
				n_hit[e->section] = 1;
		}
	}
	lists = tri_write_to(m->mf, section, file, n_hit);
	g_free(n_hit);
	return lists;
}

struct tri_ranking *tri_match_located(const struct tri_matcher *m, const struct tri_report *r,
				      const char *text, size_t len, size_t max,
				      const struct tri_locator *loc)
{
	struct tri_ranking *rk = g_new0(struct tri_ranking, 1);
	struct scoring sc = { 0 };
	GArray *ranked;
	size_t n = m->nsections;

	if (!max)
		max = 10;
	sc.m = m;
	sc.arch = report_arch(text, len);
	sc.vendors = tri_report_vendors(r);
	sc.file_factor = 1.0;
	sc.score = g_new0(double, n);
	sc.best = g_new0(double, n);
	sc.reason = g_new0(char *, n);
	sc.file = g_new0(char *, n);
	sc.evidence = g_new0(GArray *, n);
	sc.stamp = g_new0(guint, n);
	sc.clue_score = g_new0(double, n);
	sc.clue_pattern = g_new0(const char *, n);
	sc.clue_how = g_new0(const char *, n);
	sc.touched = g_array_new(FALSE, FALSE, sizeof(guint));
	sc.folders_seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	if (loc)
		tri_located_ask(&sc.located, r, loc, text, len, sc.arch);

	sc.title_frame = tri_title_function(text, len);
	sc.title_diagnostic = title_diagnostic(text, len);
	for (size_t i = 0; i < r->noopses && i < 4; i++)
		apply_oops(&sc, &r->oopses[i], power(0.5, i));
	for (size_t i = 0, used = 0; i < r->npaths && used < 8 &&
	     sc.nclues < TRI_MATCH_MAX_CLUES; i++) {
		const struct tri_path *p = &r->paths[i];
		int seen = tri_path_is_reporter(p->path);
		char *desc;

		for (size_t j = 0; j < r->noopses && !seen; j++)
			seen = r->oopses[j].path && !strcmp(r->oopses[j].path, p->path);
		if (seen)
			continue;
		desc = g_strdup_printf("path %s", p->path);
		/* a trace's shared code names no owner (syzbot's frames carry paths) */
		apply_path(&sc, p->path, 4 * power(0.8, used) *
			   (r->noopses && (tri_path_is_shared(p->path, 0) ||
					   tri_path_is_infrastructure(p->path)) ? 0.25 : 1.0), desc, p->line);
		g_free(desc);
		used++;
	}
	for (size_t i = 0; i < r->ndrivers && sc.nclues < TRI_MATCH_MAX_CLUES; i++) {
		const struct tri_driver *d = &r->drivers[i];
		/* the names every boot log prints lines of (an x86 one, its
		 * "ACPI:" tables, its PCI buses and platform devices) say
		 * little of where a report belongs */
		int generic = !strcmp(d->name, "usb") || !strcmp(d->name, "pci") ||
			      !strcmp(d->name, "acpi") || !strcmp(d->name, "pci_bus") ||
			      !strcmp(d->name, "platform");
		double w = (generic ? 0.8 : 2.5) * MIN(1.0, 0.5 + (double)d->count / 6);
		char *desc = g_strdup_printf("messages of %s", d->name);

		apply_module(&sc, d->name, w, d->device ? NAME_DRIVER : 0, desc, d->line);
		g_free(desc);
	}
	for (size_t i = 0; i < r->nfirmware && i < 8 && sc.nclues < TRI_MATCH_MAX_CLUES; i++) {
		char *name = r->firmware[i].file ? firmware_name(r->firmware[i].file) : NULL;

		if (name) {
			char *desc = g_strdup_printf("firmware %s", r->firmware[i].file);

			apply_name(&sc, name, 2.5, 0, desc, r->firmware[i].line);
			g_free(desc);
		}
		g_free(name);
	}
	apply_prose(&sc, text, len);
	apply_tree(&sc, text, len);
	apply_k(&sc, text, len);

	ranked = g_array_new(FALSE, FALSE, sizeof(struct ranked));
	for (guint s = 0; s < n; s++)
		if (sc.score[s] > 0) {
			const struct mnt_section *sec = mnt_section_at(m->mf, s);
			/* a section without L: is no place to write to: its
			 * files' other sections (with a list) go first */
			struct ranked x = { s, sc.score[s] *
					       (sec->lists && sec->lists[0] ? 1.0 : 0.3) };

			g_array_append_val(ranked, x);
		}
	g_array_sort(ranked, cmp_ranked);
	rk->n = MIN(ranked->len, max);
	rk->matches = g_new0(struct tri_match, rk->n ? rk->n : 1);
	for (size_t i = 0; i < rk->n; i++) {
		const struct ranked *x = &g_array_index(ranked, struct ranked, i);

		rk->matches[i].section = mnt_section_at(m->mf, x->section);
		rk->matches[i].score = x->score;
		rk->matches[i].reason = sc.reason[x->section];
		sc.reason[x->section] = NULL;
		take_evidence(&rk->matches[i], sc.evidence[x->section]);
		rk->matches[i].write_to = write_to(m, x->section, sc.file[x->section]);
	}
	g_array_free(ranked, TRUE);
	for (size_t s = 0; s < n; s++) {
		g_free(sc.reason[s]);
		g_free(sc.file[s]);
		if (sc.evidence[s]) {
			for (guint i = 0; i < sc.evidence[s]->len; i++)
				g_free(g_array_index(sc.evidence[s], struct evidence, i).text);
			g_array_free(sc.evidence[s], TRUE);
		}
	}
	g_free(sc.reason);
	g_free(sc.file);
	g_free(sc.evidence);
	g_free(sc.score);
	g_free(sc.best);
	g_free(sc.stamp);
	g_free(sc.clue_score);
	g_free(sc.clue_pattern);
	g_free(sc.clue_how);
	g_array_free(sc.touched, TRUE);
	g_hash_table_destroy(sc.folders_seen);
	tri_located_clear(&sc.located);
	g_free(sc.title_frame);
	return rk;
}

void tri_ranking_free(struct tri_ranking *rk)
{
	if (!rk)
		return;
	for (size_t i = 0; i < rk->n; i++) {
		g_free(rk->matches[i].reason);
		g_strfreev(rk->matches[i].evidence);
		g_free(rk->matches[i].evidence_score);
		g_strfreev(rk->matches[i].write_to);
	}
	g_free(rk->matches);
	g_free(rk);
}
