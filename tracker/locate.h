/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where a report's symbols and modules are in a watched git tree: the
 * locator that triage/match.h's tri_match_located() asks (issue 15).
 *
 * The tree is the first of the watched trees ([tree NAME], in the
 * configuration's order; their local clones or bugbridge's mirrors under
 * state_dir, at the ref a scan reads) whose `git grep` works; a tree whose
 * grep fails (not fetched yet, git missing, a broken repository) is
 * logged (warn, locate.tree_failed) and not asked again for the life of
 * the locator, and the next one is tried; with none left, names are not
 * located and the matcher matches them by name.  Nothing is fetched.
 *
 * Per report, one `git grep` finds the definitions of all the symbols
 * asked (a line of a '*.c' file that starts, at column 0, with a
 * declaration ending in "name(": `static int foo(`, or `foo(` on a line of
 * its own; lines ending in ';' are prototypes and do not count), and one
 * the modules (Makefile and Kbuild lines `obj-... += name.o`, '-' and '_'
 * spellings alike, as Kbuild turns '-' into '_' in module names, and the
 * composite lines `name-y`, `name-objs`, `name-$(CONFIG_...)`).  A module
 * is its Makefile's folder when the Makefile builds it from several
 * objects, else its single file dir/name.c.  When a name is found in
 * several places the answer prefers a file outside arch/ (or under the
 * arch the report ran on), then outside tools/, samples/, scripts/ and
 * Documentation/, then the first path in byte order: the same tree gives
 * the same answer.  Names are asked only when triage/match.h's
 * tri_locate_name_ok() allows them ([A-Za-z0-9_], '-' for modules, at
 * most 64 bytes), so report text never reaches git as a pattern.
 *
 * Answers (found or not) are kept per name for the life of the locator:
 * make one per sync round, or call locate_reset() between rounds.
 *
 * Memory from GLib (aborts when out of memory).  Not thread-safe.
 */
#ifndef BB_TRACKER_LOCATE_H
#define BB_TRACKER_LOCATE_H

#include "config/conf.h"
#include "triage/match.h"

struct locate;

/* Statistics, for tests and logs. */
struct locate_stats {
	unsigned long greps;        /* git grep runs that answered */
	unsigned long failures;     /* trees given up */
	unsigned long cached;       /* names answered from the cache */
};

/* A locator over cfg's watched trees (cfg borrowed: it must outlive the
 * locator; state_dir copied: the folder of url trees' mirror, e.g.
 * config_data_path(cfg, "trees")).  NULL when cfg has no [tree]. */
struct locate *locate_new(const struct bb_config *cfg, const char *state_dir);
void locate_free(struct locate *l);
/* The callbacks for tri_match_located(), how = "git grep"; borrowed from
 * l (NULL if l is NULL). */
const struct tri_locator *locate_triage(struct locate *l);
/* Forgets the answers and the failed trees (a new round: the trees may
 * have moved). */
void locate_reset(struct locate *l);
const struct locate_stats *locate_stats(const struct locate *l);

#endif
