/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The people a culprit concerns.  When a bisection, a "#regzbot
 * introduced <sha>" or a Fixes: names the commit that caused a bug, its
 * author and the people who signed it off, reviewed it or acked it are the
 * ones who can fix it fastest; the bridge Cc's them once per bug
 * (bridge/sync.c).
 *
 * culprit_people() looks the commit up in the watched trees ([tree NAME],
 * their local clones or bugbridge's mirrors under state_dir), in the
 * configuration's order; the first repository that has it answers, from
 * git's author line and the trailers of the message's trailer block
 * (tracker/gitscan.h's reading: a Signed-off-by in the body text does not
 * count).  Nothing is fetched: the trees are as the last scan left them.
 */
#ifndef BB_TRACKER_CULPRIT_H
#define BB_TRACKER_CULPRIT_H

#include <stddef.h>

#include "config/conf.h"
#include "core/status.h"

struct gitscan_options;
/* The gitscan options of a watched tree ([tree NAME]), its mirror (for url
 * trees) under state_dir; strings borrowed from ct. */
void culprit_tree_options(const struct config_tree *ct, const char *state_dir,
			  struct gitscan_options *o);

/* At most this many people are named for one commit. */
#define CULPRIT_PEOPLE_MAX 16

/* *people: the commit's author, then the Signed-off-by, Reviewed-by and
 * Acked-by trailers' people, "Name <addr>" as written, one per address
 * (compared without regard to case), entries without a usable address
 * dropped; NULL-terminated, freed with config_list_free().  BB_OK with
 * *people NULL when no watched tree has the commit (or none is
 * configured), BB_ERR_INVALID when commit is no commit name; other errors
 * (git missing, a broken repository) as tracker/gitscan.h gives them. */
enum bb_status culprit_people(const struct bb_config *cfg, const char *state_dir,
			      const char *commit, char ***people, struct bb_error *err);

#endif
