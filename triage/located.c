/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Names located by the caller's tree (see located.h): which names a
 * report gives the locator, and its answers.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "triage/guilty.h"
#include "triage/located.h"
#include "triage/match.h"
#include "triage/prose.h"

int tri_locate_name_ok(const char *name, int module)
{
	size_t n = 0;

	if (!name)
		return 0;
	for (; name[n]; n++)
		if (n >= TRI_LOCATE_NAME_MAX ||
		    !(g_ascii_isalnum(name[n]) || name[n] == '_' || (module && name[n] == '-')))
			return 0;
	return n > 0;
}

static const char *located(GHashTable *table, const char *name)
{
	return table && name ? g_hash_table_lookup(table, name) : NULL;
}

/* A symbol as its source names it: "foo" of the compiler's clones
 * "foo.isra.0", "foo.constprop.0", "foo.cold", "foo.part.1". */
static const char *symbol_base(struct tri_located *lx, const char *symbol)
{
	static const char *const suffixes[] = { ".isra", ".constprop", ".cold", ".part", ".llvm",
						".lto_priv" };
	const char *dot = strchr(symbol, '.');

	if (!dot || !lx->bases)
		return symbol;
	for (size_t i = 0; i < G_N_ELEMENTS(suffixes); i++)
		if (g_str_has_prefix(dot, suffixes[i]))
			return g_string_chunk_insert_len(lx->bases, symbol, dot - symbol);
	return symbol;
}

const char *tri_located_symbol(struct tri_located *lx, const char *symbol)
{
	return lx->symbol_at ? located(lx->symbol_at, symbol_base(lx, symbol)) : NULL;
}

const char *tri_located_module(const struct tri_located *lx, const char *module)
{
	return located(lx->module_at, module);
}

struct asked {
	const char *names[TRI_LOCATE_MAX];
	size_t n;
	GHashTable *seen;
};

static void ask(struct asked *a, const char *name, int module)
{
	if (!name)
		return;
	if (a->n < TRI_LOCATE_MAX && tri_locate_name_ok(name, module) &&
	    !g_hash_table_contains(a->seen, name)) {
		g_hash_table_add(a->seen, (gpointer)name);
		a->names[a->n++] = name;
	}
}

static GHashTable *locate_answers(struct asked *a, const char *arch,
				  void (*fn)(void *, const char *const *, size_t, const char *, char **),
				  void *ctx)
{
	GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, free);
	char *paths[TRI_LOCATE_MAX] = { NULL };

	if (fn && a->n)
		fn(ctx, a->names, a->n, arch, paths);
	for (size_t i = 0; i < a->n; i++)
		if (paths[i] && *paths[i])
			g_hash_table_insert(t, (gpointer)a->names[i], paths[i]);
		else
			free(paths[i]);
	return t;
}

/* The title's words of a kind for the locator (title_names()). */
struct title_ask {
	struct asked *a;
	GStringChunk *bases;
	int module;
};

static int title_name(void *ctx, const char *w)
{
	struct title_ask *t = ctx;

	if (g_hash_table_contains(t->a->seen, w))
		return 0;
	ask(t->a, g_string_chunk_insert_const(t->bases, w), t->module);
	return 1;
}

/* The words of the title that may name a module, at most max, into a
 * (copies in lx->bases): as modules, '-' allowed, or as symbols (module
 * 0), not. */
static void ask_title_words(struct tri_located *lx, struct asked *a, int module, const char *text,
			    size_t len, size_t max)
{
	struct title_ask t = { a, lx->bases, module };

	tri_title_names(text, len, max, title_name, &t);
}

void tri_located_ask(struct tri_located *lx, const struct tri_report *r,
		     const struct tri_locator *loc, const char *text, size_t len, const char *arch)
{
	struct asked sym = { { NULL }, 0, g_hash_table_new(g_str_hash, g_str_equal) };
	struct asked mod = { { NULL }, 0, g_hash_table_new(g_str_hash, g_str_equal) };

	lx->bases = g_string_chunk_new(256);

	for (size_t i = 0; i < r->noopses && i < 4; i++) {
		const struct tri_oops *o = &r->oopses[i];
		size_t rank = 0;

		if (o->pc_symbol && !tri_symbol_is_generic(o->pc_symbol)) {
			ask(&sym, symbol_base(lx, o->pc_symbol), 0);
			ask(&mod, o->pc_module, 1);
		}
		if (o->lr_symbol && !tri_symbol_is_generic(o->lr_symbol)) {
			ask(&sym, symbol_base(lx, o->lr_symbol), 0);
			ask(&mod, o->lr_module, 1);
		}
		for (size_t j = 0; j < o->nframes && rank < 6; j++) {
			const struct tri_frame *f = &o->frames[j];

			if (f->unreliable || tri_symbol_is_generic(f->symbol) ||
			    (f->path && tri_path_is_reporter(f->path)))
				continue;
			ask(&sym, symbol_base(lx, f->symbol), 0);
			ask(&mod, f->module, 1);
			rank++;
		}
	}
	for (size_t i = 0; i < r->ndrivers; i++)
		if (strcmp(r->drivers[i].name, "usb") && strcmp(r->drivers[i].name, "pci"))
			ask(&mod, r->drivers[i].name, 1);
	/* the title's names, in the room left */
	ask_title_words(lx, &mod, 1, text, len, 8);
	/* and as functions ("use-after-free in blk_mq_sched_tags_teardown") */
	ask_title_words(lx, &sym, 0, text, len, 8);
	lx->symbol_at = locate_answers(&sym, arch, loc->symbols, loc->ctx);
	lx->module_at = locate_answers(&mod, arch, loc->modules, loc->ctx);
	lx->how = loc->how;
	g_hash_table_destroy(sym.seen);
	g_hash_table_destroy(mod.seen);
}

void tri_located_clear(struct tri_located *lx)
{
	if (lx->symbol_at)
		g_hash_table_destroy(lx->symbol_at);
	if (lx->module_at)
		g_hash_table_destroy(lx->module_at);
	if (lx->bases)
		g_string_chunk_free(lx->bases);
	memset(lx, 0, sizeof(*lx));
}
