/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Kernel releases: the newest release each watched tree has, as its
 * scan (tracker/trees.c) sees the release commits go by, and the order of
 * kernel versions.
 *
 * A release is the commit a release tag (v6.9, v6.6.30) names: the
 * kernel's release commits have the subject "Linux 6.9" or "Linux
 * 6.6.30" (the Makefile's version bump), so the trees bugbridge mirrors
 * without their tags still show them; a release candidate ("Linux
 * 6.10-rc3") is not a release.  Each tree keeps the newest it saw (table
 * tree_release); a tree whose last release is further back than its
 * first scan reads (10,000 commits) has it looked up once in its history
 * (release_look_back()).
 *
 * Versions are compared as major.minor.patch, a release candidate before
 * its release: 6.8-rc3 < 6.8 < 6.8.1 < 6.9-rc1.
 */
#ifndef BB_RELEASE_H
#define BB_RELEASE_H

#include <stddef.h>

#include "core/status.h"
#include "core/store.h"

struct release_version {
	int major, minor, patch;
	int rc;                   /* -rcN; 0 for a release */
};

/* Reads a version at the start of text: "6.8", "v6.8.1", "6.9-rc2",
 * "6.8.0-rc3-next-20240404", "6.6.9-200.fc39.x86_64" (what follows the
 * numbers, other than -rcN, is ignored).  1 when there is one. */
int release_parse(const char *text, struct release_version *v);
/* <0, 0, >0 as a is older than, the same as, newer than b. */
int release_cmp(const struct release_version *a, const struct release_version *b);
/* "v6.8", "v6.8.1", "v6.9-rc2" into out. */
void release_tag(const struct release_version *v, char *out, size_t size);

/* Whether a commit subject is a release commit's ("Linux 6.9"): 1 and *v. */
int release_subject(const char *subject, struct release_version *v);

/* A scanned commit of tree (in the caller's transaction): a release
 * commit newer than the tree's recorded release becomes it. */
enum bb_status release_seen(struct store *db, const char *tree, const char *subject,
			    const char *commit, struct bb_error *err);

/* Once per tree (recorded as the cursor "release:<tree>"), when its scan
 * recorded no release: its newest release commits looked up in its whole
 * history (git log --grep), so that a tree whose last release is further
 * back than a first scan reads has one.  A git failure is logged and
 * tried again next round.  In the caller's transaction. */
struct gitscan_tree;
enum bb_status release_look_back(struct store *db, struct gitscan_tree *tree, const char *name,
				 struct bb_error *err);

/* The newest release of the trees named (NULL-terminated; NULL: every
 * tree recorded): *tag ("v6.9", malloc'd) and *tree (malloc'd, may be
 * NULL); *tag NULL when none has one. */
enum bb_status release_newest(struct store *db, char *const *trees, char **tag, char **tree,
			      struct bb_error *err);

#endif
