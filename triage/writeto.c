/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lists to write to about a file, as scripts/get_maintainer.pl names
 * them (see writeto.h). */
#include "config.h"

#include <limits.h>
#include <string.h>

#include <glib.h>

#include "triage/match.h"
#include "triage/writeto.h"

struct covering {
	size_t section;
	int depth;
};

/* get_maintainer.pl's depth of an F: pattern: its '/', one more when it
 * does not end in '/'; -1 for one that begins with a glob ("*", "*\/"). */
static int pattern_pd(const char *p)
{
	size_t n = strlen(p);
	int d = 0;

	if (*p == '*')
		return -1;
	for (const char *c = p; *c; c++)
		d += *c == '/';
	return d + (n && p[n - 1] != '/');
}

static int by_depth(gconstpointer a, gconstpointer b)
{
	const struct covering *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return x->section < y->section ? -1 : x->section > y->section;
}

static void add_lists(GPtrArray *out, GHashTable *seen, const struct mnt_section *s)
{
	for (char **l = s->lists; l && *l; l++) {
		char *key = g_ascii_strdown(*l, -1);

		if (g_hash_table_contains(seen, key)) {
			g_free(key);
			continue;
		}
		g_hash_table_add(seen, key);
		g_ptr_array_add(out, g_strdup(*l));
	}
}

char **tri_write_to(const struct mnt_file *mf, size_t own, const char *path,
		    const unsigned char *n_hit)
{
	GPtrArray *out = g_ptr_array_new();
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GArray *cover = g_array_new(FALSE, FALSE, sizeof(struct covering));
	size_t n = mnt_count(mf);

	if (own < n)
		add_lists(out, seen, mnt_section_at(mf, own));
	for (size_t s = 0; path && s < n; s++) {
		const struct mnt_section *sec = mnt_section_at(mf, s);
		int depth = INT_MIN, excluded = 0;

		if (s == own || !sec->lists || !sec->lists[0])
			continue;
		/* the last F: that matches sets the depth, as get_maintainer.pl
		 * overwrites its hash entry with each */
		for (size_t f = 0; sec->files[f]; f++)
			if (tri_pattern_matches(sec->files[f], path))
				depth = pattern_pd(sec->files[f]);
		if (depth == INT_MIN && n_hit && n_hit[s])
			depth = 0;
		if (depth == INT_MIN)
			continue;
		for (size_t x = 0; sec->excluded[x] && !excluded; x++)
			excluded = tri_pattern_matches(sec->excluded[x], path);
		if (!excluded) {
			struct covering c = { s, depth };

			g_array_append_val(cover, c);
		}
	}
	g_array_sort(cover, by_depth);
	for (guint i = 0; i < cover->len; i++)
		add_lists(out, seen, mnt_section_at(mf, g_array_index(cover, struct covering, i).section));
	g_array_free(cover, TRUE);
	g_hash_table_destroy(seen);
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}
