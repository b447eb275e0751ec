/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Kernel releases and the newest each watched tree has (release.h). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/store.h"
#include "tracker/gitscan.h"
#include "tracker/release.h"

/* A number of at most 4 digits at *p, moved past it; -1 if none. */
static int number(const char **p)
{
	int n = 0, digits = 0;

	while (isdigit((unsigned char)**p) && digits < 5) {
		n = n * 10 + (**p - '0');
		(*p)++;
		digits++;
	}
	return digits && digits < 5 ? n : -1;
}

int release_parse(const char *text, struct release_version *v)
{
	const char *p = text;

	memset(v, 0, sizeof(*v));
	if (!p)
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == 'v' || *p == 'V')
		p++;
	if ((v->major = number(&p)) < 1 || *p++ != '.' || (v->minor = number(&p)) < 0)
		return 0;
	if (*p == '.' && isdigit((unsigned char)p[1])) {
		p++;
		if ((v->patch = number(&p)) < 0)
			return 0;
	}
	if (!strncmp(p, "-rc", 3) && isdigit((unsigned char)p[3])) {
		p += 3;
		if ((v->rc = number(&p)) < 1)
			return 0;
	}
	/* "6.8abc" or "6.8.1.2" is no version */
	return !isalnum((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1]));
}

int release_cmp(const struct release_version *a, const struct release_version *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->patch != b->patch)
		return a->patch < b->patch ? -1 : 1;
	if (a->rc != b->rc)   /* a release (0) comes after its candidates */
		return !a->rc ? 1 : !b->rc ? -1 : a->rc < b->rc ? -1 : 1;
	return 0;
}

void release_tag(const struct release_version *v, char *out, size_t size)
{
	char rc[16] = "";

	if (v->rc)
		snprintf(rc, sizeof(rc), "-rc%d", v->rc);
	if (v->patch)
		snprintf(out, size, "v%d.%d.%d%s", v->major, v->minor, v->patch, rc);
	else
		snprintf(out, size, "v%d.%d%s", v->major, v->minor, rc);
}

int release_subject(const char *subject, struct release_version *v)
{
	const char *p;

	if (!subject || strncmp(subject, "Linux ", 6))
		return 0;
	p = subject + 6;
	if (!isdigit((unsigned char)*p) || !release_parse(p, v) || v->rc)
		return 0;
	/* nothing after the version: "Linux 6.9", not "Linux 6.9 is out" */
	p += strspn(p, "0123456789.");
	return *p == '\0';
}

enum bb_status release_seen(struct store *db, const char *tree, const char *subject,
			    const char *commit, struct bb_error *err)
{
	struct release_version v, old;
	sqlite3_stmt *st = NULL;
	char tag[48];
	int newer = 1;
	enum bb_status s;

	if (!release_subject(subject, &v))
		return BB_OK;
	if ((s = store_prepare(db, &st, "SELECT tag FROM tree_release WHERE tree = ?", err)))
		return s;
	sqlite3_bind_text(st, 1, tree, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    release_parse((const char *)sqlite3_column_text(st, 0), &old))
		newer = release_cmp(&v, &old) > 0;
	sqlite3_finalize(st);
	if (!newer)
		return BB_OK;
	release_tag(&v, tag, sizeof(tag));
	if ((s = store_prepare(db, &st, "INSERT OR REPLACE INTO tree_release (tree, tag, commit_id)"
			       " VALUES (?, ?, ?)", err)))
		return s;
	sqlite3_bind_text(st, 1, tree, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, tag, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, commit ? commit : "", -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "recording a tree's release");
	sqlite3_finalize(st);
	return s;
}

struct look_back {
	struct store *db;
	const char *tree;
	struct bb_error *err;
};

static enum bb_status on_release(void *ctx, const struct gitscan_commit *c)
{
	struct look_back *lb = ctx;

	if (release_seen(lb->db, lb->tree, c->subject, c->hash, lb->err))
		return lb->err->code;
	return BB_OK;
}

enum bb_status release_look_back(struct store *db, struct gitscan_tree *tree, const char *name,
				 struct bb_error *err)
{
	struct look_back lb = { db, name, err };
	struct bb_error gerr = BB_ERROR_INIT;
	sqlite3_stmt *st = NULL;
	char *cursor = str_printf("release:%s", name), *done = NULL;
	int have = 0;
	enum bb_status s, g;

	if (!cursor)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	store_cursor_get(db, cursor, &done, NULL, NULL);
	if (done) {   /* looked back before */
		free(done);
		free(cursor);
		return BB_OK;
	}
	if ((s = store_prepare(db, &st, "SELECT 1 FROM tree_release WHERE tree = ?", err))) {
		free(cursor);
		return s;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	have = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	/* the subjects are checked by release_subject(): a body line that
	 * matches, or a candidate, is no release */
	g = have ? BB_OK : gitscan_find_grep(tree, "^Linux [0-9]+\\.[0-9]+(\\.[0-9]+)?$", 20,
					     on_release, &lb, &gerr);
	if (g && err->code != BB_OK) {
		s = g;   /* the state failed, not git */
	} else if (g) {
		log_event(LOG_LEVEL_WARN, "tracker.release_lookup_failed", LF_STR("tree", name),
			  LF_STR("error", gerr.message));
		s = BB_OK;
	} else {
		s = store_cursor_set(db, cursor, "looked back", err);
	}
	free(cursor);
	return s;
}

enum bb_status release_newest(struct store *db, char *const *trees, char **tag, char **tree,
			      struct bb_error *err)
{
	struct release_version best = { 0, 0, 0, 0 }, v;
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	*tag = NULL;
	if (tree)
		*tree = NULL;
	if ((s = store_prepare(db, &st, "SELECT tree, tag FROM tree_release ORDER BY tree", err)))
		return s;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *text = (const char *)sqlite3_column_text(st, 1);
		int wanted = !trees;

		for (size_t i = 0; trees && trees[i] && !wanted; i++)
			wanted = name && !strcmp(trees[i], name);
		if (!wanted || !release_parse(text, &v) || (*tag && release_cmp(&v, &best) <= 0))
			continue;
		free(*tag);
		*tag = strdup(text);
		if (tree) {
			free(*tree);
			*tree = name ? strdup(name) : NULL;
		}
		best = v;
		if (!*tag) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			break;
		}
	}
	sqlite3_finalize(st);
	return s;
}
