/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench-triage: the triage matcher over the labelled set.
 *
 *   bench-triage [-v] MAINTAINERS LABELS REPORTS-DIR
 *
 * LABELS is tests/triage/labels.tsv (report, owning section; its third
 * column, the fault's file, is only for check-labels.py and is not read).
 * For each report: tri_read() of the file, tri_match() against MAINTAINERS
 * (parsed and indexed once, outside the timing), and whether the label is
 * the first or among the first three sections.  Prints top-1 and top-3
 * accuracy and the time per report (read + match); -v also prints every
 * report whose label is not first, with the first three and their
 * reasons.  Exits 0 unless it cannot run (the goals are read by people:
 * >= 85% top-1, >= 95% top-3, < 5 ms per report). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>

#include "mail/maintainers.h"
#include "triage/match.h"
#include "triage/reader.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int verbose = 0, a = 1, total = 0, top1 = 0, top3 = 0;
	struct mnt_file *mf = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct tri_matcher *m;
	gchar *labels;
	gchar **lines;
	double spent = 0, worst = 0, t0;

	if (a < argc && !strcmp(argv[a], "-v")) {
		verbose = 1;
		a++;
	}
	if (argc - a != 3) {
		fprintf(stderr, "usage: bench-triage [-v] MAINTAINERS LABELS REPORTS-DIR\n");
		return 2;
	}
	if (mnt_load(&mf, argv[a], &err) != BB_OK) {
		fprintf(stderr, "bench-triage: %s\n", err.message);
		return 1;
	}
	if (!g_file_get_contents(argv[a + 1], &labels, NULL, NULL)) {
		fprintf(stderr, "bench-triage: cannot read %s\n", argv[a + 1]);
		return 1;
	}
	t0 = now_ms();
	m = tri_matcher_new(mf);
	printf("MAINTAINERS: %zu sections, indexed in %.1f ms\n", mnt_count(mf), now_ms() - t0);
	lines = g_strsplit(labels, "\n", -1);
	for (gchar **l = lines; *l; l++) {
		gchar **cols, *path, *text;
		gsize len;
		struct tri_report *r;
		struct tri_ranking *rk;
		double t;
		int rank = 0;

		if (!**l || **l == '#')
			continue;
		cols = g_strsplit(*l, "\t", 3);
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
		rk = tri_match(m, r, text, len, 10);
		t = now_ms() - t;
		spent += t;
		if (t > worst)
			worst = t;
		for (size_t i = 0; i < rk->n && !rank; i++)
			if (!strcmp(rk->matches[i].section->name, cols[1]))
				rank = (int)i + 1;
		total++;
		top1 += rank == 1;
		top3 += rank >= 1 && rank <= 3;
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
	mnt_free(mf);
	if (!total) {
		fprintf(stderr, "bench-triage: no labelled reports\n");
		return 1;
	}
	printf("reports: %d\n", total);
	printf("top-1: %d/%d = %.1f%% (goal >= 85%%)\n", top1, total, 100.0 * top1 / total);
	printf("top-3: %d/%d = %.1f%% (goal >= 95%%)\n", top3, total, 100.0 * top3 / total);
	printf("time: %.3f ms per report, slowest %.3f ms (goal < 5 ms)\n", spent / total, worst);
	return 0;
}
