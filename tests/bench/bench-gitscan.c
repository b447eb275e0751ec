/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Driver of tests/bench/bench-gitscan.sh (built for make bench only): one
 * gitscan_scan() of a repository, printing what it found and how long the
 * scan took.
 *
 *   bench-gitscan REPO REF [CURSOR]
 *
 * prints one line: commits=N trailers=N links=N bugs=N fixes=N ms=N
 * cpu_ms=N (this process) git_cpu_ms=N (its git children) git_commands=N
 * cursor=HEX.  Exit 0, or 1 with the error on stderr. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "tracker/gitscan.h"

struct counts {
	unsigned long long commits, trailers, links, bugs, fixes;
};

/* As little as a real consumer does: look at every trailer's ids. */
static enum bb_status count(void *ctx, const struct gitscan_commit *c)
{
	struct counts *n = ctx;

	n->commits++;
	n->trailers += c->n_trailers;
	for (size_t i = 0; i < c->n_trailers; i++) {
		if (c->trailers[i].message_id)
			n->links++;
		if (c->trailers[i].bugzilla_id)
			n->bugs++;
		if (c->trailers[i].kind == GITSCAN_TRAILER_FIXES)
			n->fixes++;
	}
	return BB_OK;
}

static double cpu_ms(const struct rusage *r)
{
	return (double)(r->ru_utime.tv_sec + r->ru_stime.tv_sec) * 1e3 +
	       (double)(r->ru_utime.tv_usec + r->ru_stime.tv_usec) / 1e3;
}

int main(int argc, char **argv)
{
	struct gitscan_options o = { 0 };
	struct gitscan_tree *t = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct counts n = { 0 };
	struct timespec a, b;
	struct rusage self, kids;
	char *cursor = NULL;
	int rc = 1;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: bench-gitscan REPO REF [CURSOR]\n");
		return 2;
	}
	o.name = "bench";
	o.path = argv[1];
	o.ref = argv[2];
	o.bugzilla_base = "https://bugzilla.kernel.org";
	if (gitscan_tree_new(&t, &o, &err))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (gitscan_scan(t, argc == 4 ? argv[3] : NULL, count, &n, &cursor, &err))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &b);
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	printf("commits=%llu trailers=%llu links=%llu bugs=%llu fixes=%llu ms=%.1f cpu_ms=%.1f "
	       "git_cpu_ms=%.1f git_commands=%lu cursor=%s\n",
	       n.commits, n.trailers, n.links, n.bugs, n.fixes,
	       (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6,
	       cpu_ms(&self), cpu_ms(&kids), gitscan_tree_stats(t)->git_commands, cursor);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "bench-gitscan: %s (%s)\n", err.message, status_str(err.code));
	free(cursor);
	gitscan_tree_free(t);
	return rc;
}
