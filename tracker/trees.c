/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The watched trees (tracker.h: tracker_scan_trees()): each [tree]'s new
 * commits handed to the tracker as tracker_commit_in() takes them, the
 * fixes named before a tree had them looked up in its history once, and a
 * regression's branch found from the trees that hold its culprit.  It
 * works through the tracker's public calls and the store, as any other
 * reader of the trees would. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "config/conf.h"
#include "core/log.h"
#include "core/store.h"
#include "core/buf.h"
#include "tracker/culprit.h"
#include "tracker/gitscan.h"
#include "tracker/release.h"
#include "tracker/tracker.h"

/* Whether name is one of the comma-separated list (config_list()'s items). */
static int listed(const char *list, const char *name)
{
	char **v = list ? config_list(list, NULL) : NULL;
	int found = 0;

	for (size_t i = 0; v && v[i] && !found; i++)
		found = !strcmp(v[i], name);
	config_list_free(v);
	return found;
}

/* Records that regression id's fix was looked up in tree. */
static enum bb_status fix_looked_up(struct store *db, long long id, const char *tree,
				    const char *fix, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(db, &st, "INSERT OR REPLACE INTO reg_fix_lookup (regression, tree,"
			       " fix) VALUES (?, ?, ?)", err)))
		return s;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, tree, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, fix, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "recording a fix lookup");
	sqlite3_finalize(st);
	return s;
}

/* Records regression id's culprit as checked, on branch found (NULL: as it was). */
static enum bb_status branch_found(struct store *db, long long id, const char *found,
				   struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(db, &st, "UPDATE reg_regression SET culprit_checked = culprit,"
			       " branch = coalesce(nullif(?, ''), branch) WHERE id = ?", err)))
		return s;
	sqlite3_bind_text(st, 1, found ? found : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "recording a regression's branch");
	sqlite3_finalize(st);
	return s;
}

struct tree_scan {
	struct tracker *t;
	const struct bb_config *cfg;
	const char *tree;
	unsigned long commits;
	struct bb_error *err;
	int close;                /* tree is in [bugzilla] close_on_fix */
};

/* Whether tree is upstream of branch: branch's upstream chain reaches it
 * ([tree NAME] upstream = ...). */
static int upstream_of_cfg(void *ctx, const char *tree, const char *branch)
{
	const struct bb_config *cfg = ctx;
	const char *at = branch;

	for (size_t hops = 0; at && hops < cfg->ntrees; hops++) {
		const char *up = NULL;

		for (size_t i = 0; i < cfg->ntrees; i++)
			if (!strcmp(cfg->trees[i].name, at))
				up = cfg->trees[i].upstream;
		if (!up)
			return 0;
		if (!strcmp(up, tree))
			return 1;
		at = up;
	}
	return 0;
}

static enum bb_status on_commit(void *ctx, const struct gitscan_commit *c)
{
	struct tree_scan *ts = ctx;

	ts->commits++;
	if (release_seen(tracker_store(ts->t), ts->tree, c->subject, c->hash, ts->err))
		return ts->err->code;   /* a release commit: the tree's newest (release.h) */
	return tracker_commit_in(ts->t, ts->tree, ts->close, upstream_of_cfg, (void *)ts->cfg, c,
				 ts->err);
}

/* A fix directive names a commit (by hash or subject) that the tree may
 * have had before the directive came, so scanning new commits never shows
 * it: each such fix is looked up once in each tree's history, and the
 * commit, if there, handled as if new.  A lookup that fails (git) is tried
 * again next round. */
struct fix_lookup {
	long long id;
	char *commit, *subject;
};

static enum bb_status look_back(struct tracker *t, struct gitscan_tree *tree,
				struct tree_scan *ts, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	struct fix_lookup *todo = NULL;
	size_t n = 0, alloc = 0;
	enum bb_status s;
	struct store *db = tracker_store(t);

	if ((s = store_prepare(db, &st, "SELECT r.id, r.fix_commit, r.fix_subject"
			       " FROM reg_regression r WHERE (r.fix_commit != '' OR"
			       " r.fix_subject != '') AND r.state IN ('open', 'fix-incoming') AND"
			       " NOT EXISTS (SELECT 1 FROM reg_fix_lookup l WHERE l.regression = r.id"
			       " AND l.tree = ?1 AND l.fix = CASE WHEN r.fix_commit != ''"
			       " THEN r.fix_commit ELSE r.fix_subject END)", err)))
		return s;
	sqlite3_bind_text(st, 1, ts->tree, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n == alloc) {
			struct fix_lookup *more = realloc(todo, (alloc = alloc ? 2 * alloc : 8) *
								sizeof(*todo));

			if (!more) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				break;
			}
			todo = more;
		}
		todo[n].id = sqlite3_column_int64(st, 0);
		todo[n].commit = strdup((const char *)sqlite3_column_text(st, 1));
		todo[n].subject = strdup((const char *)sqlite3_column_text(st, 2));
		n++;
		if (!todo[n - 1].commit || !todo[n - 1].subject) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			break;
		}
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < n && !s; i++) {
		const char *fix = todo[i].commit[0] ? todo[i].commit : todo[i].subject;
		struct bb_error gerr = BB_ERROR_INIT;
		enum bb_status g;

		g = todo[i].commit[0] ? gitscan_find_commit(tree, fix, on_commit, ts, &gerr)
				      : gitscan_find_subject(tree, fix, NULL, on_commit, ts, &gerr);
		if (g == BB_ERR_NOT_FOUND || g == BB_ERR_INVALID)
			g = BB_OK;   /* not in this tree, or no commit name here */
		if (g && ts->err->code != BB_OK) {
			s = g;   /* the handler failed: the state, not git */
			break;
		}
		if (g) {
			log_event(LOG_LEVEL_WARN, "tracker.fix_lookup_failed", LF_STR("tree", ts->tree),
				  LF_INT("regression", todo[i].id), LF_STR("error", gerr.message));
			continue;
		}
		s = fix_looked_up(db, todo[i].id, ts->tree, fix, err);
	}
	for (size_t i = 0; i < n; i++) {
		free(todo[i].commit);
		free(todo[i].subject);
	}
	free(todo);
	return s;
}

/* Whether the watched tree ct holds commit. */
static int tree_holds(const struct config_tree *ct, const char *state_dir, const char *commit)
{
	struct gitscan_options o;
	struct gitscan_tree *tree = NULL;
	struct bb_error err = BB_ERROR_INIT;
	int contained = 0;

	culprit_tree_options(ct, state_dir, &o);
	if (!gitscan_tree_new(&tree, &o, &err) &&
	    gitscan_contains(tree, commit, NULL, &contained, &err))
		contained = 0;
	gitscan_tree_free(tree);
	return contained;
}

/* One branch rule: a regression whose culprit a watched tree holds lives
 * on that tree -- the default branch when it holds it, else the first
 * other tree in the configuration's order that does (a culprit only a
 * stable branch has is a stable regression, and a mainline fix does not
 * fix it).  Each culprit is looked up once. */
static enum bb_status branch_from_culprits(struct tracker *t, const struct bb_config *cfg,
					   const char *state_dir, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	struct pending { long long id; char *culprit, *branch; } todo[64];
	size_t n = 0;
	struct store *db = tracker_store(t);
	const char *default_branch = tracker_default_branch(t);

	if ((s = store_prepare(db, &st, "SELECT id, culprit, branch FROM reg_regression WHERE"
			       " culprit <> '' AND culprit <> culprit_checked AND state IN ('open',"
			       " 'fix-incoming') ORDER BY id LIMIT 64", err)))
		return s;
	while (n < 64 && sqlite3_step(st) == SQLITE_ROW) {
		todo[n].id = sqlite3_column_int64(st, 0);
		todo[n].culprit = strdup((const char *)sqlite3_column_text(st, 1));
		todo[n].branch = strdup((const char *)sqlite3_column_text(st, 2));
		if (!todo[n].culprit || !todo[n].branch) {
			free(todo[n].culprit);
			free(todo[n].branch);
			break;
		}
		n++;
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++) {
		const char *found = NULL;

		for (size_t k = 0; k < cfg->ntrees && !found; k++)
			if (!strcmp(cfg->trees[k].name, default_branch) &&
			    tree_holds(&cfg->trees[k], state_dir, todo[i].culprit))
				found = cfg->trees[k].name;
		for (size_t k = 0; k < cfg->ntrees && !found; k++)
			if (strcmp(cfg->trees[k].name, default_branch) &&
			    tree_holds(&cfg->trees[k], state_dir, todo[i].culprit))
				found = cfg->trees[k].name;
		if (!s)
			s = branch_found(db, todo[i].id, found, err);
		if (!s && found && strcmp(found, todo[i].branch))
			log_event(LOG_LEVEL_INFO, "tracker.branch", LF_INT("regression", todo[i].id),
				  LF_STR("culprit", todo[i].culprit), LF_STR("branch", found));
		free(todo[i].culprit);
		free(todo[i].branch);
	}
	return s;
}

enum bb_status tracker_scan_trees(struct tracker *t, const struct bb_config *cfg,
				  const char *state_dir, struct tracker_tree_stats *stats,
				  struct bb_error *err)
{
	enum bb_status s = BB_OK;
	struct store *db = tracker_store(t);

	memset(stats, 0, sizeof(*stats));
	for (size_t i = 0; i < cfg->ntrees && !s; i++) {
		const struct config_tree *ct = &cfg->trees[i];
		struct gitscan_options o;
		struct gitscan_tree *tree = NULL;
		struct tree_scan ts = { t, cfg, ct->name, 0, err,
					listed(cfg->bz_close_on_fix, ct->name) };
		char *name = str_printf("tree:%s", ct->name), *cursor = NULL, *next = NULL;

		culprit_tree_options(ct, state_dir, &o);
		/* a tree seen for the first time: its recent history only */
		o.first_scan_depth = 10000;
		if (!name) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			break;
		}
		store_cursor_get(db, name, &cursor, NULL, NULL);
		if (!(s = gitscan_tree_new(&tree, &o, err)) && !(s = gitscan_fetch(tree, err)) &&
		    !(s = store_begin(db, err))) {
			s = gitscan_scan(tree, cursor, on_commit, &ts, &next, err);
			if (!s && next)
				s = store_cursor_set(db, name, next, err);
			if (!s) {
				struct tree_scan back = ts;   /* its commits are not new ones */

				s = look_back(t, tree, &back, err);
			}
			if (!s)   /* a release before what the first scan read */
				s = release_look_back(db, tree, ct->name, err);
			s = s ? (store_rollback(db), s) : store_commit(db, err);
		}
		if (!s) {
			stats->trees++;
			stats->commits += ts.commits;
			log_event(LOG_LEVEL_INFO, "tracker.tree", LF_STR("tree", ct->name),
				  LF_UINT("commits", ts.commits));
		}
		gitscan_tree_free(tree);
		free(cursor);
		free(next);
		free(name);
	}
	if (!s && cfg->ntrees && !(s = store_begin(db, err))) {
		s = branch_from_culprits(t, cfg, state_dir, err);
		s = s ? (store_rollback(db), s) : store_commit(db, err);
	}
	return s;
}
