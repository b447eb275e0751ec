/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench-triage: the triage matcher over a labelled set.
 *
 *   bench-triage [-v] MAINTAINERS LABELS REPORTS-DIR
 *   bench-triage [-v] -l MAINTAINERS LABELS REPORTS-DIR
 *   bench-triage [-v] [-l] -i INDEX MAINTAINERS LABELS REPORTS-DIR
 *
 * LABELS is tests/triage/labels.tsv (report, owning section; its third
 * column, the fault's file, is only for check-labels.py and is not read).
 * The real set's labels have a fourth column, the addresses of the report's
 * To and Cc: a second measure counts a section right by any list the
 * report was posted to (printed beside the goal's, never instead of it).
 * A third measure counts a suggestion right by the lists it says to write
 * to (struct tri_match's write_to: get_maintainer.pl's for the file that
 * chose it), also beside the goal's.
 * With -l (the real set of make bench-triage-real, written by
 * tests/bench/triage-real/triage_read.py) its second column is the list the
 * report was posted to instead, and a section is right when its L: lines
 * include that list.
 * For each report: tri_read() of the file, tri_match() against MAINTAINERS
 * (parsed and indexed once, outside the timing) -- what bugbridge triage
 * --no-tree does -- and whether the label is the first or among the first
 * three sections.  Prints top-1 and top-3 accuracy and the time per report
 * (read + match); with -l also a table per list and the confusion: for
 * each list, what the first section's lists were when it was not right.
 * With -i the kernel index INDEX (bugbridge triage-index build) locates
 * the report's symbols and modules first (tri_match_located(), what
 * bugbridge triage does with an index and no tree); its lookups are in the
 * time per report, and the time of the lookups alone is printed too.
 * -v also prints every report whose label is not first, with the first
 * three and their reasons.  Exits 0 unless it cannot run (the goals are
 * read by people: >= 85% top-1, >= 95% top-3, < 5 ms per report). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>

#include "mail/maintainers.h"
#include "triage/index.h"
#include "triage/match.h"
#include "triage/reader.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The index's locator, timed: the lookups' share of the time per report. */
static const struct tri_locator *inner;
static double lookup_ms;
static unsigned long lookups;

static void timed_symbols(void *ctx, const char *const *names, size_t n, const char *arch,
			  char **paths)
{
	double t = now_ms();

	(void)ctx;
	inner->symbols(inner->ctx, names, n, arch, paths);
	lookup_ms += now_ms() - t;
	lookups += n;
}

static void timed_modules(void *ctx, const char *const *names, size_t n, const char *arch,
			  char **paths)
{
	double t = now_ms();

	(void)ctx;
	inner->modules(inner->ctx, names, n, arch, paths);
	lookup_ms += now_ms() - t;
	lookups += n;
}

/* Counts for one list (-l) or one kind of sender. */
struct tally {
	int n, top1, top3;
	GHashTable *said;   /* what the first section's list was when wrong -> count */
};

static struct tally *tally_of(GHashTable *t, const char *key)
{
	struct tally *x = g_hash_table_lookup(t, key);

	if (!x) {
		x = g_new0(struct tally, 1);
		x->said = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		g_hash_table_insert(t, g_strdup(key), x);
	}
	return x;
}

static void tally_free(gpointer p)
{
	struct tally *x = p;

	g_hash_table_destroy(x->said);
	g_free(x);
}

static int section_right(const struct mnt_section *s, const char *label, int by_list)
{
	if (!by_list)
		return !strcmp(s->name, label);
	for (char **l = s->lists; l && *l; l++)
		if (!g_ascii_strcasecmp(*l, label))
			return 1;
	return 0;
}

/* Whether one of the section's L: lists is among the space-separated
 * addresses of sent (the report's To and Cc); LKML, Cc'd on most reports
 * and the L: of THE REST and of many broad sections, does not count. */
static int section_sent(const struct mnt_section *s, const char *sent)
{
	gchar **to = g_strsplit(sent ? sent : "", " ", -1);
	int hit = 0;

	for (char **l = s->lists; !hit && l && *l; l++)
		for (gchar **t = to; !hit && *t; t++)
			hit = **t && !g_ascii_strcasecmp(*l, *t) &&
			      g_ascii_strcasecmp(*t, "linux-kernel@vger.kernel.org");
	g_strfreev(to);
	return hit;
}

/* The list a wrong first section stands for: the first of its L: that is
 * one of the set's lists, else its first L:. */
static const char *section_said(const struct mnt_section *s, GHashTable *set)
{
	for (char **l = s->lists; l && *l; l++)
		if (g_hash_table_contains(set, *l))
			return *l;
	return s->lists && s->lists[0] ? s->lists[0] : "(a section without L:)";
}

static gint by_count(gconstpointer a, gconstpointer b, gpointer said)
{
	int x = GPOINTER_TO_INT(g_hash_table_lookup(said, a));
	int y = GPOINTER_TO_INT(g_hash_table_lookup(said, b));

	return x != y ? y - x : strcmp(a, b);
}

static void print_table(const char *title, GHashTable *t, int confusion)
{
	GList *keys = g_list_sort(g_hash_table_get_keys(t), (GCompareFunc)strcmp);

	printf("%-34s %7s %15s %15s\n", title, "reports", "top-1", "top-3");
	for (GList *k = keys; k; k = k->next) {
		struct tally *x = g_hash_table_lookup(t, k->data);

		printf("%-34s %7d %6d %6.1f%% %6d %6.1f%%\n", (char *)k->data, x->n, x->top1,
		       100.0 * x->top1 / x->n, x->top3, 100.0 * x->top3 / x->n);
	}
	if (confusion) {
		printf("confusion (list: what the first section's list was instead, how often):\n");
		for (GList *k = keys; k; k = k->next) {
			struct tally *x = g_hash_table_lookup(t, k->data);
			GList *said = g_list_sort_with_data(g_hash_table_get_keys(x->said),
							    by_count, x->said);

			if (!said)
				continue;
			printf("  %s (%d not first):", (char *)k->data, x->n - x->top1);
			for (GList *w = said; w; w = w->next)
				printf("%s %s %d", w == said ? "" : ",", (char *)w->data,
				       GPOINTER_TO_INT(g_hash_table_lookup(x->said, w->data)));
			printf("\n");
			g_list_free(said);
		}
	}
	g_list_free(keys);
}

int main(int argc, char **argv)
{
	int verbose = 0, by_list = 0, a = 1, total = 0, top1 = 0, top3 = 0;
	int any1 = 0, any3 = 0, any_known = 0, gm1 = 0, gm3 = 0;
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	struct tri_index *ix = NULL;
	const char *index_path = NULL;
	struct tri_locator timed = { timed_symbols, timed_modules, "kernel index", NULL };
	gchar *labels;
	gchar **lines;
	double spent = 0, worst = 0, t0;
	GHashTable *per_list, *per_sender, *set;

	for (; a < argc && argv[a][0] == '-' && argv[a][1]; a++) {
		if (!strcmp(argv[a], "-v"))
			verbose = 1;
		else if (!strcmp(argv[a], "-l"))
			by_list = 1;
		else if (!strcmp(argv[a], "-i") && a + 1 < argc)
			index_path = argv[++a];
		else
			break;
	}
	if (argc - a != 3) {
		fprintf(stderr, "usage: bench-triage [-v] [-l] [-i INDEX] MAINTAINERS LABELS "
			"REPORTS-DIR\n");
		return 2;
	}
	if (mnt_load(&mf, argv[a], &err) != BB_OK) {
		fprintf(stderr, "bench-triage: %s\n", err.message);
		return 1;
	}
	if (index_path) {
		t0 = now_ms();
		if (tri_index_open(&ix, index_path, &err) != BB_OK) {
			fprintf(stderr, "bench-triage: %s\n", err.message);
			return 1;
		}
		printf("kernel index: %s, opened in %.1f ms\n", index_path, now_ms() - t0);
		inner = tri_index_locator(ix);
	}
	if (!g_file_get_contents(argv[a + 1], &labels, NULL, NULL)) {
		fprintf(stderr, "bench-triage: cannot read %s\n", argv[a + 1]);
		return 1;
	}
	t0 = now_ms();
	m = tri_matcher_new(mf);
	printf("MAINTAINERS: %zu sections, indexed in %.1f ms\n", mnt_count(mf), now_ms() - t0);
	per_list = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, tally_free);
	per_sender = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, tally_free);
	set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	lines = g_strsplit(labels, "\n", -1);
	/* the set's lists, for naming a wrong section by the list it stands for */
	for (gchar **l = lines; *l; l++) {
		char *tab = strchr(*l, '\t');

		if (**l && **l != '#' && tab) {
			char *end = strchr(tab + 1, '\t');

			if (end)
				*end = '\0';
			g_hash_table_add(set, g_strdup(tab + 1));
			if (end)
				*end = '\t';
		}
	}
	for (gchar **l = lines; *l; l++) {
		gchar **cols, *path, *text;
		gsize len;
		struct tri_report *r;
		struct tri_ranking *rk;
		struct tally *x, *y;
		double t;
		int rank = 0;

		if (!**l || **l == '#')
			continue;
		cols = g_strsplit(*l, "\t", 4);
		if (!cols[0] || !cols[1]) {
			g_strfreev(cols);
			continue;
		}
		path = g_build_filename(argv[a + 2], cols[0], NULL);
		if (!g_file_get_contents(path, &text, &len, NULL)) {
			fprintf(stderr, "bench-triage: cannot read %s\n", path);
			return 1;
		}
		t = now_ms();
		r = tri_read(text, len);
		rk = tri_match_located(m, r, text, len, 10, ix ? &timed : NULL);
		t = now_ms() - t;
		spent += t;
		if (t > worst)
			worst = t;
		for (size_t i = 0; i < rk->n && !rank; i++)
			if (section_right(rk->matches[i].section, cols[1], by_list))
				rank = (int)i + 1;
		if (by_list) {
			/* right by the lists the suggestion names (write_to:
			 * get_maintainer.pl's for its evidence's file) */
			int gm = 0;

			for (size_t i = 0; i < rk->n && i < 3 && !gm; i++)
				for (char **w = rk->matches[i].write_to; !gm && *w; w++)
					if (!g_ascii_strcasecmp(*w, cols[1]))
						gm = (int)i + 1;
			gm1 += gm == 1;
			gm3 += gm >= 1;
		}
		if (by_list && cols[2] && cols[3]) {
			/* right by any list it was posted to (its label is one) */
			int any = 0;

			for (size_t i = 0; i < rk->n && i < 3 && !any; i++)
				if (section_right(rk->matches[i].section, cols[1], 1) ||
				    section_sent(rk->matches[i].section, cols[3]))
					any = (int)i + 1;
			any_known++;
			any1 += any == 1;
			any3 += any >= 1 && any <= 3;
		}
		total++;
		top1 += rank == 1;
		top3 += rank >= 1 && rank <= 3;
		x = tally_of(per_list, cols[1]);
		y = tally_of(per_sender, by_list && cols[2] && *cols[2] ? cols[2] : "people");
		x->n++, y->n++;
		x->top1 += rank == 1, y->top1 += rank == 1;
		x->top3 += rank >= 1 && rank <= 3, y->top3 += rank >= 1 && rank <= 3;
		if (rank != 1) {
			const char *said = rk->n ? section_said(rk->matches[0].section, set)
						 : "(nothing)";

			g_hash_table_insert(x->said, g_strdup(said),
					    GINT_TO_POINTER(GPOINTER_TO_INT(
						    g_hash_table_lookup(x->said, said)) + 1));
		}
		if (verbose && rank != 1) {
			printf("%s: want %s, rank %d\n", cols[0], cols[1], rank);
			for (size_t i = 0; i < rk->n && i < 3; i++)
				printf("  %zu. %s (%.2f) %s\n", i + 1, rk->matches[i].section->name,
				       rk->matches[i].score, rk->matches[i].reason);
		}
		tri_ranking_free(rk);
		tri_report_free(r);
		g_free(text);
		g_free(path);
		g_strfreev(cols);
	}
	g_strfreev(lines);
	g_free(labels);
	tri_matcher_free(m);
	tri_index_free(ix);
	mnt_free(mf);
	if (!total) {
		fprintf(stderr, "bench-triage: no labelled reports\n");
		return 1;
	}
	if (by_list) {
		print_table("list", per_list, 1);
		print_table("sender", per_sender, 0);
	}
	printf("reports: %d\n", total);
	printf("top-1: %d/%d = %.1f%% (goal >= 85%%)\n", top1, total, 100.0 * top1 / total);
	printf("top-3: %d/%d = %.1f%% (goal >= 95%%)\n", top3, total, 100.0 * top3 / total);
	if (by_list)
		printf("right by the lists it says to write to (the section's and, for a file's"
		       " evidence, get_maintainer.pl's other sections' of that file; not the goal's"
		       " measure): top-1 %d/%d = %.1f%%, top-3 %d/%d = %.1f%%\n", gm1, total,
		       100.0 * gm1 / total, gm3, total, 100.0 * gm3 / total);
	if (any_known)
		printf("right by any list in the report's To/Cc but LKML (the cross-posted lists;"
		       " not the goal's measure): top-1 %d/%d = %.1f%%, top-3 %d/%d = %.1f%%\n", any1, any_known,
		       100.0 * any1 / any_known, any3, any_known, 100.0 * any3 / any_known);
	printf("time: %.3f ms per report, slowest %.3f ms (goal < 5 ms)\n", spent / total, worst);
	if (index_path)
		printf("index lookups: %lu names, %.3f ms per report, %.1f us per name\n", lookups,
		       lookup_ms / total, lookups ? 1e3 * lookup_ms / lookups : 0.0);
	g_hash_table_destroy(per_list);
	g_hash_table_destroy(per_sender);
	g_hash_table_destroy(set);
	return 0;
}
