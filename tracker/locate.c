/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The watched trees as triage's locator (see locate.h for the contract). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/log.h"
#include "tracker/culprit.h"
#include "tracker/gitscan.h"
#include "tracker/locate.h"
#include "triage/index.h"

#define LOCATE_GREP_OUTPUT ((size_t)256 << 10)  /* bytes of one grep's output read */

struct locate {
	const struct bb_config *cfg;
	char *state_dir;
	struct gitscan_tree **trees;   /* made when first asked */
	int *failed;                   /* 1: its grep failed; not asked again */
	GHashTable *answers;           /* "s|m arch name" -> path, "" for not found */
	struct tri_locator loc;
	struct locate_stats stats;
};

/* ---- choosing among several places --------------------------------------- */

/* Keeps the better of *best and path (path is borrowed; *best g_malloc'd),
 * as the kernel index chooses (tri_place_better()). */
static void consider(char **best, const char *path, const char *arch)
{
	if (tri_place_better(path, *best, arch)) {
		g_free(*best);
		*best = g_strdup(path);
	}
}

/* ---- trees ---------------------------------------------------------------- */

static void tree_failed(struct locate *l, size_t i, const char *why)
{
	l->failed[i] = 1;
	l->stats.failures++;
	log_event(LOG_LEVEL_WARN, "locate.tree_failed", LF_STR("tree", l->cfg->trees[i].name),
		  LF_STR("error", why));
}

/* One grep in the first tree that answers.  0 when one did, -1 when none
 * could. */
static int grep_trees(struct locate *l, const char *regex, const char *const *pathspecs,
		      gitscan_grep_fn fn, void *ctx, void (*restart)(void *ctx))
{
	for (size_t i = 0; i < l->cfg->ntrees; i++) {
		struct bb_error err = BB_ERROR_INIT;
		struct gitscan_options o;

		if (l->failed[i])
			continue;
		if (!l->trees[i]) {
			culprit_tree_options(&l->cfg->trees[i], l->state_dir, &o);
			if (gitscan_tree_new(&l->trees[i], &o, &err)) {
				tree_failed(l, i, err.message);
				bb_error_clear(&err);
				continue;
			}
		}
		restart(ctx);
		if (gitscan_grep(l->trees[i], regex, pathspecs, LOCATE_GREP_OUTPUT, fn, ctx, NULL,
				 &err)) {
			tree_failed(l, i, err.message);
			bb_error_clear(&err);
			continue;
		}
		l->stats.greps++;
		return 0;
	}
	return -1;
}

/* ---- the cache ------------------------------------------------------------ */

static char *answer_key(char kind, const char *arch, const char *name)
{
	return g_strdup_printf("%c %s %s", kind, arch ? arch : "-", name);
}

/* Names not answered yet (into todo, at most TRI_LOCATE_MAX), the others'
 * paths filled in. */
static size_t from_cache(struct locate *l, char kind, const char *const *names, size_t n,
			 const char *arch, char **paths, const char **todo, size_t *todo_at)
{
	size_t ntodo = 0;

	for (size_t i = 0; i < n && i < TRI_LOCATE_MAX; i++) {
		char *key;
		const char *path;

		if (!tri_locate_name_ok(names[i], kind == 'm'))
			continue;
		key = answer_key(kind, arch, names[i]);
		path = g_hash_table_lookup(l->answers, key);
		g_free(key);
		if (path) {
			l->stats.cached++;
			paths[i] = *path ? strdup(path) : NULL;
		} else {
			todo[ntodo] = names[i];
			todo_at[ntodo++] = i;
		}
	}
	return ntodo;
}

static void remember(struct locate *l, char kind, const char *arch, const char *name,
		     const char *path, char **out)
{
	g_hash_table_replace(l->answers, answer_key(kind, arch, name), g_strdup(path ? path : ""));
	*out = path ? strdup(path) : NULL;
}

/* ---- symbols -------------------------------------------------------------- */

struct symbol_search {
	const char *const *names;
	size_t n;
	const char *arch;
	char *best[TRI_LOCATE_MAX];
};

static void symbol_restart(void *ctx)
{
	struct symbol_search *s = ctx;

	for (size_t i = 0; i < s->n; i++) {
		g_free(s->best[i]);
		s->best[i] = NULL;
	}
}

/* A definition's line: the first identifier followed by '(' names it; a
 * line ending in ';' is a prototype. */
static enum bb_status symbol_line(void *ctx, const char *path, unsigned long line,
				  const char *text)
{
	struct symbol_search *s = ctx;
	const char *p = text, *end = text + strlen(text);

	(void)line;
	while (end > text && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	if (end > text && end[-1] == ';')
		return BB_OK;
	while (*p) {
		const char *start;

		if (!(g_ascii_isalpha(*p) || *p == '_')) {
			p++;
			continue;
		}
		start = p;
		while (g_ascii_isalnum(*p) || *p == '_')
			p++;
		if (*p != '(')
			continue;
		for (size_t i = 0; i < s->n; i++)
			if (strlen(s->names[i]) == (size_t)(p - start) &&
			    !strncmp(s->names[i], start, (size_t)(p - start)))
				consider(&s->best[i], path, s->arch);
		break;
	}
	return BB_OK;
}

static void locate_symbols(void *ctx, const char *const *names, size_t n, const char *arch,
			   char **paths)
{
	static const char *const pathspecs[] = { "*.c", NULL };
	struct locate *l = ctx;
	struct symbol_search s;
	const char *todo[TRI_LOCATE_MAX];
	size_t at[TRI_LOCATE_MAX];
	GString *re;

	memset(&s, 0, sizeof(s));
	s.names = todo;
	s.n = from_cache(l, 's', names, n, arch, paths, todo, at);
	s.arch = arch;
	if (!s.n)
		return;
	/* the names are [A-Za-z0-9_] only (tri_locate_name_ok): nothing to escape */
	re = g_string_new("^([A-Za-z_][^;=]*[ *])?(");
	for (size_t i = 0; i < s.n; i++)
		g_string_append_printf(re, "%s%s", i ? "|" : "", s.names[i]);
	g_string_append(re, ")\\(");
	if (!grep_trees(l, re->str, pathspecs, symbol_line, &s, symbol_restart))
		for (size_t i = 0; i < s.n; i++)
			remember(l, 's', arch, s.names[i], s.best[i], &paths[at[i]]);
	g_string_free(re, TRUE);
	symbol_restart(&s);
}

/* ---- modules -------------------------------------------------------------- */

struct module_place {
	size_t name;         /* index into the names */
	char *dir;           /* the Makefile's folder, "drivers/foo" */
	char *spelling;      /* the object's name as the obj- line writes it */
	int composite;       /* a name-y / name-objs line */
};

struct module_search {
	const char *const *names;
	size_t n;
	GArray *places;      /* struct module_place */
};

static void module_restart(void *ctx)
{
	struct module_search *s = ctx;

	for (guint i = 0; i < s->places->len; i++) {
		struct module_place *p = &g_array_index(s->places, struct module_place, i);

		g_free(p->dir);
		g_free(p->spelling);
	}
	g_array_set_size(s->places, 0);
}

/* Whether a and the first n bytes of b are the same name, '-' and '_'
 * alike. */
static int same_module(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	for (; i < n && a[i]; i++)
		if (a[i] != b[i] && !((a[i] == '-' || a[i] == '_') && (b[i] == '-' || b[i] == '_')))
			return 0;
	return i == n && !a[i];
}

static struct module_place *place_of(struct module_search *s, size_t name, const char *dir,
				     size_t dirlen)
{
	struct module_place p = { name, NULL, NULL, 0 };

	for (guint i = 0; i < s->places->len; i++) {
		struct module_place *q = &g_array_index(s->places, struct module_place, i);

		if (q->name == name && strlen(q->dir) == dirlen && !strncmp(q->dir, dir, dirlen))
			return q;
	}
	p.dir = g_strndup(dir, dirlen);
	g_array_append_val(s->places, p);
	return &g_array_index(s->places, struct module_place, s->places->len - 1);
}

static enum bb_status module_line(void *ctx, const char *path, unsigned long line,
				  const char *text)
{
	struct module_search *s = ctx;
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t dirlen = slash ? (size_t)(slash - path) : 0;

	(void)line;
	if (!dirlen || (strcmp(base, "Makefile") && strcmp(base, "Kbuild")))
		return BB_OK;
	if (g_str_has_prefix(text, "obj-")) {
		const char *p = strchr(text, '=');

		while (p && *p) {
			size_t len;

			p += strspn(p, " \t=\\");
			len = strcspn(p, " \t\\");
			if (len > 2 && !strncmp(p + len - 2, ".o", 2))
				for (size_t i = 0; i < s->n; i++)
					if (same_module(s->names[i], p, len - 2)) {
						struct module_place *q = place_of(s, i, path, dirlen);

						if (!q->spelling)
							q->spelling = g_strndup(p, len - 2);
					}
			p += len;
		}
		return BB_OK;
	}
	for (size_t i = 0; i < s->n; i++) {
		size_t n = strlen(s->names[i]);
		const char *rest = text + n;

		if (strlen(text) > n && same_module(s->names[i], text, n) &&
		    (g_str_has_prefix(rest, "-y") || g_str_has_prefix(rest, "-objs") ||
		     g_str_has_prefix(rest, "-$(")))
			place_of(s, i, path, dirlen)->composite = 1;
	}
	return BB_OK;
}

/* A module name as an ERE that takes '-' and '_' alike. */
static void module_regex(GString *re, const char *name)
{
	for (const char *p = name; *p; p++)
		if (*p == '-' || *p == '_')
			g_string_append(re, "[-_]");
		else
			g_string_append_c(re, *p);
}

static void locate_modules(void *ctx, const char *const *names, size_t n, const char *arch,
			   char **paths)
{
	static const char *const pathspecs[] = { "*Makefile", "*Kbuild", NULL };
	struct locate *l = ctx;
	struct module_search s;
	const char *todo[TRI_LOCATE_MAX];
	size_t at[TRI_LOCATE_MAX];
	GString *re, *alt;

	memset(&s, 0, sizeof(s));
	s.names = todo;
	s.n = from_cache(l, 'm', names, n, arch, paths, todo, at);
	if (!s.n)
		return;
	s.places = g_array_new(FALSE, FALSE, sizeof(struct module_place));
	alt = g_string_new(NULL);
	for (size_t i = 0; i < s.n; i++) {
		if (i)
			g_string_append_c(alt, '|');
		module_regex(alt, s.names[i]);
	}
	re = g_string_new(NULL);
	g_string_printf(re, "^(obj-[^=]*=(.*[[:space:]=])?(%s)\\.o([[:space:]\\\\]|$)|"
			"(%s)-(y|objs|\\$\\(CONFIG_[A-Za-z0-9_]+\\))[[:space:]]*[:+]?=)",
			alt->str, alt->str);
	if (!grep_trees(l, re->str, pathspecs, module_line, &s, module_restart))
		for (size_t i = 0; i < s.n; i++) {
			char *best = NULL;

			for (guint k = 0; k < s.places->len; k++) {
				const struct module_place *p =
					&g_array_index(s.places, struct module_place, k);
				char *where;

				/* only a folder whose Makefile builds the object */
				if (p->name != i || !p->spelling)
					continue;
				where = p->composite ? g_strdup_printf("%s/", p->dir)
						     : g_strdup_printf("%s/%s.c", p->dir, p->spelling);
				consider(&best, where, arch);
				g_free(where);
			}
			remember(l, 'm', arch, s.names[i], best, &paths[at[i]]);
			g_free(best);
		}
	module_restart(&s);
	g_array_free(s.places, TRUE);
	g_string_free(re, TRUE);
	g_string_free(alt, TRUE);
}

/* ---- the locator ---------------------------------------------------------- */

struct locate *locate_new(const struct bb_config *cfg, const char *state_dir)
{
	struct locate *l;

	if (!cfg || !cfg->ntrees)
		return NULL;
	l = g_new0(struct locate, 1);
	l->cfg = cfg;
	l->state_dir = g_strdup(state_dir);
	l->trees = g_new0(struct gitscan_tree *, cfg->ntrees);
	l->failed = g_new0(int, cfg->ntrees);
	l->answers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	l->loc.symbols = locate_symbols;
	l->loc.modules = locate_modules;
	l->loc.how = "git grep";
	l->loc.ctx = l;
	return l;
}

void locate_free(struct locate *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->cfg->ntrees; i++)
		gitscan_tree_free(l->trees[i]);
	g_free(l->trees);
	g_free(l->failed);
	g_hash_table_destroy(l->answers);
	g_free(l->state_dir);
	g_free(l);
}

const struct tri_locator *locate_triage(struct locate *l)
{
	return l ? &l->loc : NULL;
}

void locate_reset(struct locate *l)
{
	if (!l)
		return;
	g_hash_table_remove_all(l->answers);
	memset(l->failed, 0, l->cfg->ntrees * sizeof(*l->failed));
}

const struct locate_stats *locate_stats(const struct locate *l)
{
	return &l->stats;
}
