/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge import: a whole Bugzilla, from REST or XML exports, into the
 * imp_* tables and the blob store.  See migrate/import.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <json-c/json.h>

#include "bugzilla/bz_xml.h"
#include "core/buf.h"
#include "core/digest.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "migrate/import.h"

#define IMPORT_DEFAULT_BATCH 100

/* ------------------------------------------------------------- the writer */

enum { S_GET_BUG, S_PUT_BUG, S_PUT_COMMENT, S_GET_ATT, S_PUT_ATT, S_DEL_HIST, S_PUT_HIST,
       S_PUT_SKIP, S_PUT_CURSOR, S_GET_CURSOR, S_DEL_CURSOR, S_COUNT };

static const char *const statements[S_COUNT] = {
	/* alias is '' (not a JSON list) only in a row an import before schema 9
	 * wrote: that bug is read again for its structure */
	[S_GET_BUG] = "SELECT last_change_time, complete, alias <> '' FROM imp_bug WHERE id = ?1",
	[S_PUT_BUG] =
		"INSERT INTO imp_bug (id, source, summary, product, component, status,"
		" resolution, severity, priority, version, reporter, reporter_name, assigned_to,"
		" url, dupe_of, creation_time, last_change_time, keywords, cc, groups, flags,"
		" fields, complete, imported, alias, qa_contact, target_milestone, op_sys,"
		" platform, depends_on, blocks) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
		" ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26,"
		" ?27, ?28, ?29, ?30, ?31)"
		" ON CONFLICT (id) DO UPDATE SET source = excluded.source,"
		" summary = excluded.summary, product = excluded.product,"
		" component = excluded.component, status = excluded.status,"
		" resolution = excluded.resolution, severity = excluded.severity,"
		" priority = excluded.priority, version = excluded.version,"
		" reporter = excluded.reporter,"
		" reporter_name = CASE excluded.reporter_name WHEN '' THEN"
		"  CASE reporter WHEN excluded.reporter THEN reporter_name ELSE '' END"
		"  ELSE excluded.reporter_name END,"
		" assigned_to = excluded.assigned_to, url = excluded.url,"
		" dupe_of = excluded.dupe_of, creation_time = excluded.creation_time,"
		" last_change_time = excluded.last_change_time, keywords = excluded.keywords,"
		" cc = excluded.cc, groups = excluded.groups, flags = excluded.flags,"
		" fields = excluded.fields, complete = excluded.complete,"
		" imported = excluded.imported, alias = excluded.alias,"
		" qa_contact = excluded.qa_contact, target_milestone = excluded.target_milestone,"
		" op_sys = excluded.op_sys, platform = excluded.platform,"
		" depends_on = excluded.depends_on, blocks = excluded.blocks",
	[S_PUT_COMMENT] =
		"INSERT INTO imp_comment (id, bug_id, count, author, author_name, time, text,"
		" is_private, attachment_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
		" ON CONFLICT (id) DO UPDATE SET bug_id = excluded.bug_id,"
		" count = excluded.count, author = excluded.author,"
		" author_name = CASE excluded.author_name WHEN '' THEN author_name"
		"  ELSE excluded.author_name END,"
		" time = excluded.time, text = excluded.text, is_private = excluded.is_private,"
		" attachment_id = excluded.attachment_id",
	[S_GET_ATT] = "SELECT state, blob_hash, size FROM imp_attachment WHERE id = ?1",
	[S_PUT_ATT] =
		"INSERT INTO imp_attachment (id, bug_id, file_name, summary, content_type, size,"
		" creator, time, is_private, is_obsolete, is_patch, blob_hash, state, note)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
		" ON CONFLICT (id) DO UPDATE SET bug_id = excluded.bug_id,"
		" file_name = excluded.file_name, summary = excluded.summary,"
		" content_type = excluded.content_type, size = excluded.size,"
		" creator = excluded.creator, time = excluded.time,"
		" is_private = excluded.is_private, is_obsolete = excluded.is_obsolete,"
		" is_patch = excluded.is_patch, blob_hash = excluded.blob_hash,"
		" state = excluded.state, note = excluded.note",
	[S_DEL_HIST] = "DELETE FROM imp_history WHERE bug_id = ?1",
	[S_PUT_HIST] =
		"INSERT OR REPLACE INTO imp_history (bug_id, seq, who, time, field, removed, added,"
		" attachment_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[S_PUT_SKIP] =
		"INSERT INTO imp_skip (source, bug_id, what, ref, reason, time)"
		" SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE NOT EXISTS (SELECT 1 FROM imp_skip"
		" WHERE source = ?1 AND bug_id = ?2 AND what = ?3 AND ref = ?4 AND reason = ?5)",
	[S_PUT_CURSOR] =
		"INSERT INTO cursor (source, value, updated) VALUES (?1, ?2, ?3)"
		" ON CONFLICT (source) DO UPDATE SET value = excluded.value,"
		" updated = excluded.updated",
	[S_GET_CURSOR] = "SELECT value FROM cursor WHERE source = ?1",
	[S_DEL_CURSOR] = "DELETE FROM cursor WHERE source = ?1",
};

struct importer {
	struct store *db;
	struct blob_store *blobs;
	const struct import_options *opt;
	struct import_stats *st;
	unsigned batch;
	time_t now;
	sqlite3_stmt *stmt[S_COUNT];
};

static enum bb_status importer_init(struct importer *im, struct store *db,
				    struct blob_store *blobs, const struct import_options *opt,
				    struct import_stats *st, struct bb_error *err)
{
	static const struct import_options defaults;
	enum bb_status s = BB_OK;

	memset(im, 0, sizeof(*im));
	memset(st, 0, sizeof(*st));
	im->db = db;
	im->blobs = blobs;
	im->opt = opt ? opt : &defaults;
	im->st = st;
	im->batch = im->opt->batch ? im->opt->batch : IMPORT_DEFAULT_BATCH;
	im->now = time(NULL);
	for (int i = 0; i < S_COUNT && !s; i++)
		s = store_prepare(db, &im->stmt[i], statements[i], err);
	return s;
}

static void importer_release(struct importer *im)
{
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(im->stmt[i]);
	memset(im, 0, sizeof(*im));
}

/* Resets and clears a statement for its next use. */
static sqlite3_stmt *use(struct importer *im, int which)
{
	sqlite3_stmt *s = im->stmt[which];

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return s;
}

static enum bb_status step_done(struct importer *im, sqlite3_stmt *s, const char *what,
				struct bb_error *err)
{
	enum bb_status st = BB_OK;

	if (sqlite3_step(s) != SQLITE_DONE)
		st = store_fail(im->db, err, what);
	sqlite3_reset(s);
	return st;
}

static void bind_text(sqlite3_stmt *s, int i, const char *text)
{
	sqlite3_bind_text(s, i, text ? text : "", -1, SQLITE_STATIC);
}

static void report_progress(struct importer *im)
{
	if (im->opt->progress)
		im->opt->progress(im->opt->progress_ctx, im->st);
}

static enum bb_status cursor_get(struct importer *im, const char *source, char **value,
				 struct bb_error *err)
{
	sqlite3_stmt *s = use(im, S_GET_CURSOR);
	int rc;

	*value = NULL;
	bind_text(s, 1, source);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*value = strdup((const char *)sqlite3_column_text(s, 0));
		sqlite3_reset(s);
		return *value ? BB_OK : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? BB_OK : store_fail(im->db, err, "reading the import cursor");
}

static enum bb_status cursor_put(struct importer *im, const char *source, const char *value,
				 struct bb_error *err)
{
	sqlite3_stmt *s = use(im, value ? S_PUT_CURSOR : S_DEL_CURSOR);

	bind_text(s, 1, source);
	if (value) {
		bind_text(s, 2, value);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)time(NULL));
	}
	return step_done(im, s, "recording the import cursor", err);
}

/* Records what was left out, once per (source, bug, what, ref, reason). */
static enum bb_status skip_record(struct importer *im, const char *source, long long bug_id,
				  const char *what, const char *ref, const char *reason,
				  struct bb_error *err)
{
	sqlite3_stmt *s = use(im, S_PUT_SKIP);
	enum bb_status st;

	bind_text(s, 1, source);
	sqlite3_bind_int64(s, 2, bug_id);
	bind_text(s, 3, what);
	bind_text(s, 4, ref);
	bind_text(s, 5, reason);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)im->now);
	st = step_done(im, s, "recording a skipped item", err);
	if (!st && sqlite3_changes(im->db->db) > 0)
		im->st->skipped++;
	log_event(LOG_LEVEL_INFO, "import.skip", LF_STR("source", source), LF_INT("bug", bug_id),
		  LF_STR("what", what), LF_STR("ref", ref), LF_STR("reason", reason));
	return st;
}

/* Whether bug is in the store as it is now (same last_change_time, complete). */
static enum bb_status bug_unchanged(struct importer *im, const struct bz_bug *bug, int *same,
				    struct bb_error *err)
{
	sqlite3_stmt *s = use(im, S_GET_BUG);
	int rc;

	*same = 0;
	sqlite3_bind_int64(s, 1, bug->id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*same = sqlite3_column_int64(s, 0) == (sqlite3_int64)bug->last_change_time &&
			sqlite3_column_int(s, 1) != 0 && sqlite3_column_int(s, 2) != 0;
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(im->db, err, "reading an imported bug");
	return BB_OK;
}

/* What the store has of an attachment: its state and hash ("" if none). */
static enum bb_status attachment_known(struct importer *im, long long id, char *state,
				       size_t state_len, char hash[BLOB_HEX_LEN + 1],
				       uint64_t *size, struct bb_error *err)
{
	sqlite3_stmt *s = use(im, S_GET_ATT);
	int rc;

	state[0] = hash[0] = '\0';
	*size = 0;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		snprintf(state, state_len, "%s", (const char *)sqlite3_column_text(s, 0));
		if (sqlite3_column_type(s, 1) != SQLITE_NULL)
			snprintf(hash, BLOB_HEX_LEN + 1, "%s",
				 (const char *)sqlite3_column_text(s, 1));
		*size = (uint64_t)sqlite3_column_int64(s, 2);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(im->db, err, "reading an imported attachment");
	return BB_OK;
}

/* A NULL-terminated list as a JSON array (malloc'd). */
static char *list_json(char **list)
{
	json_object *a = json_object_new_array();
	char *out = NULL;

	if (!a)
		return NULL;
	for (char **p = list; p && *p; p++)
		if (json_object_array_add(a, json_object_new_string(*p)))
			goto out;
	out = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN |
							JSON_C_TO_STRING_NOSLASHESCAPE));
out:
	json_object_put(a);
	return out;
}

/* Bug ids as a JSON array (malloc'd). */
static char *ids_json(const long long *ids, size_t n)
{
	json_object *a = json_object_new_array();
	char *out = NULL;

	if (!a)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (json_object_array_add(a, json_object_new_int64(ids[i])))
			goto out;
	out = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN));
out:
	json_object_put(a);
	return out;
}

static char *fields_json(const struct bz_bug *bug)
{
	json_object *o = json_object_new_object();
	char *out = NULL;

	if (!o)
		return NULL;
	for (size_t i = 0; i < bug->nfields; i++)
		if (json_object_object_add(o, bug->fields[i].name,
					   json_object_new_string(bug->fields[i].value)))
			goto out;
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							JSON_C_TO_STRING_NOSLASHESCAPE));
out:
	json_object_put(o);
	return out;
}

static enum bb_status write_bug(struct importer *im, const char *source,
				const struct bz_bug *bug, struct bb_error *err)
{
	sqlite3_stmt *s = use(im, S_PUT_BUG);
	char *keywords = list_json(bug->keywords), *cc = list_json(bug->cc);
	char *groups = list_json(bug->groups), *fields = fields_json(bug);
	char *alias = list_json(bug->alias);
	char *depends_on = ids_json(bug->depends_on, bug->ndepends_on);
	char *blocks = ids_json(bug->blocks, bug->nblocks);
	enum bb_status st;

	if (!keywords || !cc || !groups || !fields || !alias || !depends_on || !blocks) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	sqlite3_bind_int64(s, 1, bug->id);
	bind_text(s, 2, source);
	bind_text(s, 3, bug->summary);
	bind_text(s, 4, bug->product);
	bind_text(s, 5, bug->component);
	bind_text(s, 6, bug->status);
	bind_text(s, 7, bug->resolution);
	bind_text(s, 8, bug->severity);
	bind_text(s, 9, bug->priority);
	bind_text(s, 10, bug->version);
	bind_text(s, 11, bug->creator.login);
	bind_text(s, 12, bug->creator.real_name);
	bind_text(s, 13, bug->assigned_to.login);
	bind_text(s, 14, bug->url);
	sqlite3_bind_int64(s, 15, bug->dupe_of);
	sqlite3_bind_int64(s, 16, (sqlite3_int64)bug->creation_time);
	sqlite3_bind_int64(s, 17, (sqlite3_int64)bug->last_change_time);
	bind_text(s, 18, keywords);
	bind_text(s, 19, cc);
	bind_text(s, 20, groups);
	bind_text(s, 21, bug->flags ? bug->flags : "[]");
	bind_text(s, 22, fields);
	sqlite3_bind_int(s, 23, 1);
	sqlite3_bind_int64(s, 24, (sqlite3_int64)im->now);
	bind_text(s, 25, alias);
	bind_text(s, 26, bug->qa_contact.login);
	bind_text(s, 27, bug->target_milestone);
	bind_text(s, 28, bug->op_sys);
	bind_text(s, 29, bug->platform);
	bind_text(s, 30, depends_on);
	bind_text(s, 31, blocks);
	st = step_done(im, s, "recording an imported bug", err);
out:
	free(keywords);
	free(cc);
	free(groups);
	free(fields);
	free(alias);
	free(depends_on);
	free(blocks);
	return st;
}

static enum bb_status write_comments(struct importer *im, const struct bz_bug *bug,
				     struct bb_error *err)
{
	enum bb_status st = BB_OK;

	for (size_t i = 0; i < bug->ncomments && !st; i++) {
		const struct bz_comment *c = &bug->comments[i];
		sqlite3_stmt *s = use(im, S_PUT_COMMENT);
		/* old exports have no comment ids: a stable one of our own */
		long long id = c->id > 0 ? c->id : -(bug->id * 100000LL + c->count + 1);

		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, bug->id);
		sqlite3_bind_int(s, 3, c->count);
		bind_text(s, 4, c->author.login);
		bind_text(s, 5, c->author.real_name);
		sqlite3_bind_int64(s, 6, (sqlite3_int64)c->time);
		bind_text(s, 7, c->text);
		sqlite3_bind_int(s, 8, c->is_private);
		sqlite3_bind_int64(s, 9, c->attachment_id);
		st = step_done(im, s, "recording an imported comment", err);
		im->st->comments++;
		im->st->private_comments += c->is_private != 0;
	}
	return st;
}

static enum bb_status write_attachment(struct importer *im, const struct bz_attachment *a,
				       const char *hash, const char *state, const char *note,
				       struct bb_error *err)
{
	sqlite3_stmt *s = use(im, S_PUT_ATT);

	sqlite3_bind_int64(s, 1, a->id);
	sqlite3_bind_int64(s, 2, a->bug_id);
	bind_text(s, 3, a->file_name);
	bind_text(s, 4, a->summary);
	bind_text(s, 5, a->content_type);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)a->size);
	bind_text(s, 7, a->creator.login);
	sqlite3_bind_int64(s, 8, (sqlite3_int64)a->creation_time);
	sqlite3_bind_int(s, 9, a->is_private);
	sqlite3_bind_int(s, 10, a->is_obsolete);
	sqlite3_bind_int(s, 11, a->is_patch);
	if (hash && *hash)
		bind_text(s, 12, hash);
	else
		sqlite3_bind_null(s, 12);
	bind_text(s, 13, state);
	if (note && *note)
		bind_text(s, 14, note);
	else
		sqlite3_bind_null(s, 14);
	im->st->attachments++;
	return step_done(im, s, "recording an imported attachment", err);
}

/* Failures that say nothing about one attachment: stop the import (it
 * resumes later) rather than record the attachment as failed. */
static int failure_is_ours(enum bb_status s)
{
	return s == BB_ERR_TEMPORARY || s == BB_ERR_BUSY || s == BB_ERR_NO_SPACE ||
	       s == BB_ERR_NOMEM || s == BB_ERR_DATABASE || s == BB_ERR_IO ||
	       s == BB_ERR_INTERRUPTED || s == BB_ERR_PERMISSION || s == BB_ERR_CONFIG;
}

static enum bb_status blob_ref_attachment(struct importer *im, const char *hash,
					  long long bug_id, long long attachment_id,
					  struct bb_error *err)
{
	char ref[96];

	snprintf(ref, sizeof(ref), "bug:%lld/attachment:%lld", bug_id, attachment_id);
	return blob_add_ref(im->blobs, hash, "bug-attachment", ref, err);
}

/* Private bytes in the served store: attachments an older import stored
 * there before they were kept apart, or whose bug was put in a group since.
 * Each loses its reference; a blob nothing public references any more
 * leaves the served store for the private one (blob_unpublish()).  The
 * attachment's state becomes "private" when the private store has the
 * bytes, else "hash-only". */
static enum bb_status unpublish_private(struct importer *im, struct bb_error *err)
{
	struct blob_store *dest = im->opt->private_blobs;
	sqlite3_stmt *pick = NULL, *set = NULL;
	enum bb_status s;
	int rc;

	if ((s = store_prepare(im->db, &pick,
			       "SELECT a.id, a.bug_id, a.blob_hash FROM imp_attachment a"
			       " JOIN imp_bug b ON b.id = a.bug_id WHERE a.state = 'stored'"
			       " AND a.blob_hash IS NOT NULL AND (a.is_private <> 0 OR NOT "
			       BZ_GROUPS_PUBLIC_SQL("b.groups") ") ORDER BY a.id LIMIT 200", err)) ||
	    (s = store_prepare(im->db, &set, "UPDATE imp_attachment SET state = ?1"
			       " WHERE id = ?2", err)))
		goto out;
	for (;;) {
		struct { long long id, bug_id; char hash[BLOB_HEX_LEN + 1]; } v[200];
		int n = 0;

		while (n < 200 && (rc = sqlite3_step(pick)) == SQLITE_ROW) {
			v[n].id = sqlite3_column_int64(pick, 0);
			v[n].bug_id = sqlite3_column_int64(pick, 1);
			snprintf(v[n].hash, sizeof(v[n].hash), "%s",
				 (const char *)sqlite3_column_text(pick, 2));
			n++;
		}
		sqlite3_reset(pick);
		if (n == 0)
			break;
		for (int i = 0; i < n && !s; i++) {
			char ref[96];
			int moved = 0, kept;

			snprintf(ref, sizeof(ref), "bug:%lld/attachment:%lld", v[i].bug_id, v[i].id);
			s = blob_remove_ref(im->blobs, v[i].hash, "bug-attachment", ref, err);
			if (s == BB_ERR_NOT_FOUND) {
				bb_error_clear(err);
				s = BB_OK;
			}
			if (!s)
				s = blob_unpublish(im->blobs, dest, v[i].hash, &moved, err);
			if (s)
				break;
			im->st->blobs_unpublished += moved != 0;
			kept = dest && blob_lookup(dest, v[i].hash, NULL, NULL) == BB_OK;
			if (kept && (s = blob_add_ref(dest, v[i].hash, "bug-attachment", ref, err)))
				break;
			sqlite3_reset(set);
			sqlite3_bind_text(set, 1, kept ? "private" : "hash-only", -1, SQLITE_STATIC);
			sqlite3_bind_int64(set, 2, v[i].id);
			s = step_done(im, set, "recording an unpublished attachment", err);
		}
		if (s)
			break;
	}
out:
	sqlite3_finalize(pick);
	sqlite3_finalize(set);
	return s;
}

/* ------------------------------------------------------------------ REST */

/* What became of one attachment of a batch. */
struct att_result {
	char hash[BLOB_HEX_LEN + 1];
	const char *state;          /* stored, failed */
	char note[600];
};

struct hist_entry {
	long long bug_id;
	time_t when;
	char *who, *field, *removed, *added;
	long long attachment_id;
};

struct hist_list {
	struct hist_entry *v;
	size_t n, alloc;
};

static void hist_release(struct hist_list *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].who);
		free(h->v[i].field);
		free(h->v[i].removed);
		free(h->v[i].added);
	}
	free(h->v);
	memset(h, 0, sizeof(*h));
}

static enum bb_status hist_add(void *ctx, const struct bz_history_change *ch)
{
	struct hist_list *h = ctx;
	struct hist_entry *e;

	if (h->n == h->alloc) {
		size_t alloc = h->alloc ? h->alloc * 2 : 64;
		struct hist_entry *v = realloc(h->v, alloc * sizeof(*v));

		if (!v)
			return BB_ERR_NOMEM;
		h->v = v;
		h->alloc = alloc;
	}
	e = &h->v[h->n];
	e->bug_id = ch->bug_id;
	e->when = ch->when;
	e->attachment_id = ch->attachment_id;
	e->who = strdup(ch->who);
	e->field = strdup(ch->field);
	e->removed = strdup(ch->removed);
	e->added = strdup(ch->added);
	h->n++;
	if (!e->who || !e->field || !e->removed || !e->added)
		return BB_ERR_NOMEM;
	return BB_OK;
}

static enum bb_status write_history(struct importer *im, long long bug_id,
				    const struct hist_list *h, struct bb_error *err)
{
	sqlite3_stmt *s = use(im, S_DEL_HIST);
	enum bb_status st;
	int seq = 0;

	sqlite3_bind_int64(s, 1, bug_id);
	if ((st = step_done(im, s, "clearing imported history", err)))
		return st;
	for (size_t i = 0; i < h->n && !st; i++) {
		const struct hist_entry *e = &h->v[i];

		if (e->bug_id != bug_id)
			continue;
		s = use(im, S_PUT_HIST);
		sqlite3_bind_int64(s, 1, bug_id);
		sqlite3_bind_int(s, 2, seq++);
		bind_text(s, 3, e->who);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)e->when);
		bind_text(s, 5, e->field);
		bind_text(s, 6, e->removed);
		bind_text(s, 7, e->added);
		sqlite3_bind_int64(s, 8, e->attachment_id);
		st = step_done(im, s, "recording imported history", err);
		im->st->history++;
	}
	return st;
}

/* Where an attachment's bytes go: a writer (the served store, or the
 * private one), or, for private bytes without --include-private, only a
 * hash. */
struct att_sink {
	struct blob_writer *w;
	struct sha256 md;
	int hashing;
	int to_private;             /* w writes into the private store */
	uint64_t size, max;
};

static enum bb_status att_sink_write(void *ctx, const void *data, size_t len)
{
	struct att_sink *as = ctx;

	if (!as->hashing)
		return blob_writer_write(as->w, data, len, NULL);
	if (as->max && as->size + len > as->max)
		return BB_ERR_TOO_LARGE;
	sha256_update(&as->md, data, len);
	as->size += len;
	return BB_OK;
}

static void att_sink_abort(struct att_sink *as)
{
	if (as->hashing)
		sha256_release(&as->md);
	else if (as->w)
		blob_writer_abort(as->w);
	as->w = NULL;
	as->hashing = 0;
}

/* Opens the sink for one attachment: is_public says whether its bytes may
 * be published (bz_bug_is_public() of its bug, and not private). */
static enum bb_status att_sink_open(struct importer *im, struct att_sink *as, int is_public,
				    uint64_t max, struct bb_error *err)
{
	enum bb_status s;

	memset(as, 0, sizeof(*as));
	as->max = max;
	if (is_public)
		return blob_writer_open(im->blobs, max, &as->w, err);
	if (im->opt->include_private && im->opt->private_blobs) {
		as->to_private = 1;
		return blob_writer_open(im->opt->private_blobs, max, &as->w, err);
	}
	if ((s = sha256_init(&as->md)))
		return bb_error_set(err, s, "cannot set up SHA-256");
	as->hashing = 1;
	return BB_OK;
}

/* Ends the sink: the state the attachment gets ("stored" in the served
 * store, "private" in the private store, "hash-only"), its hash in hash. */
static enum bb_status att_sink_finish(struct importer *im, struct att_sink *as,
				      const struct bz_attachment *a, const char *name,
				      const char *declared_type, const char **state,
				      char hash[BLOB_HEX_LEN + 1], uint64_t *size,
				      struct bb_error *err)
{
	struct blob_store *dest = im->opt->include_private ? im->opt->private_blobs : NULL;
	struct blob_origin origin;
	struct blob_info info;
	char ref[32];
	enum bb_status s;

	if (as->hashing) {
		as->hashing = 0;
		if ((s = sha256_final_hex(&as->md, hash)))
			return bb_error_set(err, s, "cannot compute SHA-256");
		*size = as->size;
		*state = "hash-only";
		im->st->attachments_hash_only++;
		return BB_OK;
	}
	snprintf(ref, sizeof(ref), "%lld", a->id);
	origin.name = name;
	origin.declared_type = declared_type;
	origin.origin = "bugzilla-attachment";
	origin.origin_ref = ref;
	if ((s = blob_writer_commit(as->w, &origin, &info, err)))
		return s;
	as->w = NULL;
	memcpy(hash, info.hash, BLOB_HEX_LEN + 1);
	*size = info.size;
	if (as->to_private && dest) {
		*state = "private";
		im->st->attachments_private++;
		snprintf(ref, sizeof(ref), "bug:%lld/attachment:%lld", a->bug_id, a->id);
		return blob_add_ref(dest, hash, "bug-attachment", ref, err);
	}
	*state = "stored";
	im->st->attachments_stored++;
	return blob_ref_attachment(im, hash, a->bug_id, a->id, err);
}

/* Whether the bytes of an attachment recorded as state need no new
 * download. */
static int att_state_settled(struct importer *im, const char *state, int is_public)
{
	if (!strcmp(state, "stored") || !strcmp(state, "private"))
		return 1;   /* a restricted bug's "stored" ones: see unpublish_private() */
	return !strcmp(state, "hash-only") && !is_public &&
	       !(im->opt->include_private && im->opt->private_blobs);
}

/* Streams one attachment into the blob store (outside any transaction: the
 * store is content-addressed, so a repeat after a crash is harmless), or
 * for bytes that must not be published into the private store or only
 * through SHA-256.  A failure that concerns only this attachment is
 * returned in r (state "failed" and a note) with BB_OK; others stop the
 * import. */
static enum bb_status rest_attachment(struct importer *im, struct bz_client *c,
				      const struct bz_attachment *a, int is_public,
				      struct att_result *r, struct bb_error *err)
{
	struct bb_error derr = BB_ERROR_INIT;
	struct att_sink sink;
	uint64_t max = im->opt->attachment_max_size, got = 0, known_size, size;
	char state[32];
	enum bb_status s;

	memset(r, 0, sizeof(*r));
	memset(&sink, 0, sizeof(sink));
	if ((s = attachment_known(im, a->id, state, sizeof(state), r->hash, &known_size, err)))
		return s;
	if (att_state_settled(im, state, is_public) && r->hash[0] && known_size == a->size) {
		r->state = !strcmp(state, "private") ? "private"
			   : !strcmp(state, "hash-only") ? "hash-only" : "stored";
		return BB_OK;
	}
	r->hash[0] = '\0';
	r->state = "failed";
	if (max && a->size > max) {
		snprintf(r->note, sizeof(r->note), "%llu bytes, larger than the limit of %llu",
			 (unsigned long long)a->size, (unsigned long long)max);
		return BB_OK;
	}
	if ((s = att_sink_open(im, &sink, is_public, max, err)))
		return s;
	s = bz_download_attachment(c, a->id, max ? max : UINT64_MAX, att_sink_write, &sink, &got,
				   &derr);
	if (!s && got != a->size)
		s = bb_error_set(&derr, BB_ERR_CORRUPT, "got %llu bytes, Bugzilla says %llu",
				 (unsigned long long)got, (unsigned long long)a->size);
	if (s) {
		att_sink_abort(&sink);
		if (failure_is_ours(s)) {
			*err = derr;
			return s;
		}
		snprintf(r->note, sizeof(r->note), "%s",
			 derr.message[0] ? derr.message : status_str(s));
		return BB_OK;
	}
	if ((s = att_sink_finish(im, &sink, a, a->file_name, a->content_type, &r->state, r->hash,
				 &size, err)))
		return s;
	return BB_OK;
}

/* The REST cursor: the lower bound of last_change_time of this pass (0:
 * all), when the pass began (0: no pass under way), the last bug id done. */
struct rest_cursor {
	long long since, pass, after;
};

static void cursor_parse(const char *text, struct rest_cursor *cur)
{
	memset(cur, 0, sizeof(*cur));
	if (text && sscanf(text, "since=%lld pass=%lld after=%lld", &cur->since, &cur->pass,
			   &cur->after) != 3)
		memset(cur, 0, sizeof(*cur));
}

static enum bb_status cursor_save(struct importer *im, const char *key,
				  const struct rest_cursor *cur, struct bb_error *err)
{
	char value[96];

	snprintf(value, sizeof(value), "since=%lld pass=%lld after=%lld", cur->since, cur->pass,
		 cur->after);
	return cursor_put(im, key, value, err);
}

/* One page of bugs: the changed ones fetched whole and written in one
 * transaction with the cursor. */
static enum bb_status rest_batch(struct importer *im, struct bz_client *c, const char *source,
				 const char *key, struct bz_bug *bugs, size_t n,
				 struct rest_cursor *cur, struct bb_error *err)
{
	struct hist_list hist = { NULL, 0, 0 };
	struct att_result *results = NULL;
	long long *ids = NULL;
	size_t changed = 0, natt = 0, k;
	enum bb_status s = BB_OK;
	int same;

	/* the bugs to fetch go to the front */
	for (size_t i = 0; i < n; i++) {
		if ((s = bug_unchanged(im, &bugs[i], &same, err)))
			goto out;
		im->st->bugs_seen++;
		if (same) {
			im->st->bugs_unchanged++;
			continue;
		}
		if (i != changed) {
			struct bz_bug t = bugs[changed];

			bugs[changed] = bugs[i];
			bugs[i] = t;
		}
		changed++;
	}
	if (changed) {
		if ((s = bz_fetch_comments(c, bugs, changed, 0, err)) ||
		    (s = bz_fetch_attachments(c, bugs, changed, err)))
			goto out;
		if (!(ids = calloc(changed, sizeof(*ids)))) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < changed; i++) {
			ids[i] = bugs[i].id;
			natt += bugs[i].nattachments;
		}
		if ((s = bz_fetch_history(c, ids, changed, hist_add, &hist, err))) {
			if (s == BB_ERR_NOMEM && !err->message[0])
				bb_error_set(err, s, "out of memory");
			goto out;
		}
		if (natt && !(results = calloc(natt, sizeof(*results)))) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		k = 0;
		for (size_t i = 0; i < changed; i++)
			for (size_t j = 0; j < bugs[i].nattachments; j++, k++)
				if ((s = rest_attachment(im, c, &bugs[i].attachments[j],
							 bz_bug_is_public(&bugs[i]) &&
							 !bugs[i].attachments[j].is_private,
							 &results[k], err)))
					goto out;
	}
	if ((s = store_begin(im->db, err)))
		goto out;
	k = 0;
	for (size_t i = 0; i < changed && !s; i++) {
		const struct bz_bug *b = &bugs[i];

		s = write_bug(im, source, b, err);
		if (!s)
			s = write_comments(im, b, err);
		for (size_t j = 0; j < b->nattachments && !s; j++, k++) {
			const struct bz_attachment *a = &b->attachments[j];
			char ref[32];

			s = write_attachment(im, a, results[k].hash, results[k].state,
					     results[k].note, err);
			snprintf(ref, sizeof(ref), "%lld", a->id);
			if (!s && !strcmp(results[k].state, "failed"))
				s = skip_record(im, source, b->id, "attachment", ref, results[k].note,
						err);
		}
		if (!s)
			s = write_history(im, b->id, &hist, err);
		im->st->bugs_written++;
	}
	if (!s) {
		cur->after = bugs[0].id;
		for (size_t i = 1; i < n; i++)
			if (bugs[i].id > cur->after)
				cur->after = bugs[i].id;
		s = cursor_save(im, key, cur, err);
	}
	if (!s)
		s = store_commit(im->db, err);
	else
		store_rollback(im->db);
	if (!s)
		test_hook("import.batch");
out:
	hist_release(&hist);
	free(results);
	free(ids);
	return s;
}

enum bb_status import_rest(struct store *db, struct blob_store *blobs, struct bz_client *c,
			   const char *source, const struct import_options *opt,
			   struct import_stats *st, struct bb_error *err)
{
	struct importer im;
	struct rest_cursor cur;
	struct bz_bug *bugs = NULL;
	size_t count = 0, got;
	char *key = NULL, *value = NULL;
	long long max_id = 0;
	time_t server_now;
	enum bb_status s;

	if ((s = importer_init(&im, db, blobs, opt, st, err)))
		goto out;
	if (!(key = str_printf("import:%s", source))) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = cursor_get(&im, key, &value, err)))
		goto out;
	cursor_parse(value, &cur);
	if (cur.pass) {
		st->resumed = 1;
	} else {
		if ((s = bz_server_time(c, &server_now, err)))
			goto out;
		cur.pass = (long long)server_now;
		cur.after = 0;
		if ((s = cursor_save(&im, key, &cur, err)))
			goto out;
	}
	st->incremental = cur.since > 0;
	if ((s = bz_max_bug_id(c, &max_id, err)))
		goto out;
	st->progress_total = (unsigned long long)(max_id > 0 ? max_id : 0);
	st->progress_done = (unsigned long long)cur.after;
	report_progress(&im);
	log_event(LOG_LEVEL_INFO, "import.start", LF_STR("source", source),
		  LF_INT("since", cur.since), LF_INT("after", cur.after),
		  LF_INT("resumed", st->resumed));
	for (;;) {
		if ((s = bz_search_page(c, cur.after, (time_t)cur.since, im.batch, &bugs, &count,
					err)))
			goto out;
		if (!count)
			break;
		if ((s = rest_batch(&im, c, source, key, bugs, count, &cur, err)))
			goto out;
		for (size_t i = 0; i < count; i++)
			bz_bug_release(&bugs[i]);
		free(bugs);
		bugs = NULL;
		got = count;
		count = 0;
		st->progress_done = (unsigned long long)cur.after;
		if (st->progress_done > st->progress_total)
			st->progress_total = st->progress_done;
		report_progress(&im);
		if (got < im.batch)
			break;
	}
	/* the pass is whole: the next one reads what changed since it began,
	 * with one second of overlap */
	cur.since = cur.pass - 1;
	cur.pass = 0;
	cur.after = 0;
	s = cursor_save(&im, key, &cur, err);
	if (!s)
		s = unpublish_private(&im, err);
	st->progress_done = st->progress_total;
	report_progress(&im);
out:
	for (size_t i = 0; i < count; i++)
		bz_bug_release(&bugs[i]);
	free(bugs);
	free(value);
	free(key);
	importer_release(&im);
	return s;
}

/* ------------------------------------------------------------------- XML */

/* Attachment data decoded from the export for the bug being read. */
struct xml_data {
	long long id;
	char hash[BLOB_HEX_LEN + 1];
	uint64_t size;
	char note[200];             /* why it could not be stored */
	const char *state;          /* stored, private, hash-only */
};

struct xml_run {
	struct importer *im;
	const char *source;         /* xml:<file> */
	struct bb_error *err;
	enum bb_status failed;      /* a failure of ours inside a callback */
	int in_tx;
	unsigned in_batch;
	/* the attachment being decoded */
	struct att_sink sink;
	int open;                   /* sink is open */
	int public_id_ok;           /* begin said the bytes of public_id may be published */
	long long public_id;
	long long w_id, skip_id;
	struct xml_data *data;
	size_t ndata, data_alloc;
};

static enum bb_status xml_tx(struct xml_run *x)
{
	enum bb_status s = BB_OK;

	if (!x->in_tx && !(s = store_begin(x->im->db, x->err)))
		x->in_tx = 1;
	return s;
}

static enum bb_status xml_commit(struct xml_run *x)
{
	enum bb_status s = BB_OK;

	if (x->in_tx) {
		x->in_tx = 0;
		s = store_commit(x->im->db, x->err);
		if (!s && x->in_batch)
			test_hook("import.batch");
		x->in_batch = 0;
	}
	return s;
}

static void xml_writer_drop(struct xml_run *x)
{
	if (x->open)
		att_sink_abort(&x->sink);
	x->open = 0;
	x->w_id = 0;
}

static enum bb_status xml_on_begin(void *ctx, long long bug_id, long long id, int is_public)
{
	struct xml_run *x = ctx;

	(void)bug_id;
	x->public_id = id;
	x->public_id_ok = is_public;
	return BB_OK;
}

static struct xml_data *xml_data_add(struct xml_run *x, long long id)
{
	struct xml_data *d;

	if (x->ndata == x->data_alloc) {
		size_t alloc = x->data_alloc ? x->data_alloc * 2 : 8;
		struct xml_data *v = realloc(x->data, alloc * sizeof(*v));

		if (!v)
			return NULL;
		x->data = v;
		x->data_alloc = alloc;
	}
	d = &x->data[x->ndata++];
	memset(d, 0, sizeof(*d));
	d->id = id;
	return d;
}

static enum bb_status xml_fail(struct xml_run *x, enum bb_status s)
{
	if (!x->failed)
		x->failed = s;
	if (s == BB_ERR_NOMEM && !x->err->message[0])
		bb_error_set(x->err, s, "out of memory");
	return s;
}

static enum bb_status xml_on_data(void *ctx, long long bug_id, long long id, const void *data,
				  size_t len)
{
	struct xml_run *x = ctx;
	struct importer *im = x->im;
	struct xml_data *d;
	enum bb_status s;
	int is_public = x->public_id == id && x->public_id_ok;

	if (x->open && x->w_id != id)
		xml_writer_drop(x);   /* the last one's base64 was broken */
	if (!x->open) {
		char state[32], hash[BLOB_HEX_LEN + 1];
		uint64_t size;

		if (id == x->skip_id)
			return BB_OK;
		if ((s = attachment_known(im, id, state, sizeof(state), hash, &size, x->err)))
			return xml_fail(x, s);
		x->skip_id = id;
		if (att_state_settled(im, state, is_public) && hash[0]) {
			/* attachments never change: no need to store it again */
			if (!(d = xml_data_add(x, id)))
				return xml_fail(x, BB_ERR_NOMEM);
			memcpy(d->hash, hash, sizeof(d->hash));
			d->size = size;
			d->state = !strcmp(state, "private") ? "private"
				   : !strcmp(state, "hash-only") ? "hash-only" : "stored";
			return BB_OK;
		}
		if ((s = att_sink_open(im, &x->sink, is_public, im->opt->attachment_max_size,
				       x->err)))
			return xml_fail(x, s);
		x->open = 1;
		x->w_id = id;
		x->skip_id = 0;
	}
	if (data) {
		s = att_sink_write(&x->sink, data, len);
		if (s == BB_ERR_TOO_LARGE) {
			xml_writer_drop(x);
			x->skip_id = id;
			if (!(d = xml_data_add(x, id)))
				return xml_fail(x, BB_ERR_NOMEM);
			snprintf(d->note, sizeof(d->note), "larger than the limit of %llu bytes",
				 (unsigned long long)im->opt->attachment_max_size);
			return BB_OK;
		}
		if (s) {
			if (!x->err->message[0])
				bb_error_set(x->err, s, "cannot store attachment %lld", id);
			return xml_fail(x, s);
		}
		return BB_OK;
	}
	/* complete */
	{
		struct bz_attachment a;
		const char *state;
		char hash[BLOB_HEX_LEN + 1];
		uint64_t size;

		memset(&a, 0, sizeof(a));
		a.id = id;
		a.bug_id = bug_id;
		x->open = 0;
		x->w_id = 0;
		x->skip_id = id;
		if ((s = xml_tx(x)) ||
		    (s = att_sink_finish(im, &x->sink, &a, "", "", &state, hash, &size, x->err)))
			return xml_fail(x, s);
		if (!(d = xml_data_add(x, id)))
			return xml_fail(x, BB_ERR_NOMEM);
		memcpy(d->hash, hash, sizeof(d->hash));
		d->size = size;
		d->state = state;
	}
	return BB_OK;
}

static enum bb_status xml_write_bug(struct xml_run *x, const struct bz_bug *bug)
{
	struct importer *im = x->im;
	enum bb_status s;

	if ((s = write_bug(im, x->source, bug, x->err)) || (s = write_comments(im, bug, x->err)))
		return s;
	for (size_t i = 0; i < bug->nattachments && !s; i++) {
		const struct bz_attachment *a = &bug->attachments[i];
		const struct xml_data *d = NULL;
		char ref[32], note[600] = "", state[32], hash[BLOB_HEX_LEN + 1];
		const char *result = "stored";
		uint64_t size;

		for (size_t k = 0; k < x->ndata; k++)
			if (x->data[k].id == a->id)
				d = &x->data[k];
		hash[0] = '\0';
		if (d && d->note[0]) {
			result = "failed";
			snprintf(note, sizeof(note), "%s", d->note);
		} else if (d && a->size && d->size != a->size) {
			result = "failed";
			snprintf(note, sizeof(note), "decoded %llu bytes, the export says %llu",
				 (unsigned long long)d->size, (unsigned long long)a->size);
		} else if (d) {
			memcpy(hash, d->hash, sizeof(hash));
			result = d->state ? d->state : "stored";
		} else {
			if ((s = attachment_known(im, a->id, state, sizeof(state), hash, &size,
						  x->err)))
				return s;
			if (!strcmp(state, "private") || !strcmp(state, "hash-only"))
				result = !strcmp(state, "private") ? "private" : "hash-only";
			else if (strcmp(state, "stored") || !hash[0]) {
				hash[0] = '\0';
				result = "pending";
				snprintf(note, sizeof(note), "no data in the export");
			}
		}
		s = write_attachment(im, a, hash, result, note, x->err);
		snprintf(ref, sizeof(ref), "%lld", a->id);
		if (!s && note[0])
			s = skip_record(im, x->source, bug->id, "attachment", ref, note, x->err);
	}
	/* exports carry no history: what a REST import brought stays */
	return s;
}

static enum bb_status xml_on_bug(void *ctx, struct bz_bug *bug)
{
	struct xml_run *x = ctx;
	struct importer *im = x->im;
	enum bb_status s;
	int same;

	xml_writer_drop(x);
	x->skip_id = 0;
	im->st->bugs_seen++;
	if ((s = bug_unchanged(im, bug, &same, x->err)))
		goto out;
	if (same) {
		im->st->bugs_unchanged++;
		goto out;
	}
	if ((s = xml_tx(x)) || (s = xml_write_bug(x, bug)))
		goto out;
	im->st->bugs_written++;
	if (++x->in_batch >= im->batch)
		s = xml_commit(x);
out:
	x->ndata = 0;
	bz_bug_free(bug);
	return s ? xml_fail(x, s) : BB_OK;
}

static enum bb_status xml_on_not_found(void *ctx, long long id, const char *error)
{
	struct xml_run *x = ctx;
	enum bb_status s;
	char ref[32], reason[160];

	x->im->st->bugs_seen++;
	snprintf(ref, sizeof(ref), "%lld", id);
	snprintf(reason, sizeof(reason), "the export has no bug %lld: %s", id,
		 error && *error ? error : "NotFound");
	if ((s = xml_tx(x)) ||
	    (s = skip_record(x->im, x->source, id, "bug", ref, reason, x->err)))
		return xml_fail(x, s);
	return BB_OK;
}

/* Files to read under root, in name order: a growing list of paths. */
struct file_list {
	char **v;
	size_t n, alloc;
};

static void file_list_release(struct file_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_xml_name(const char *name)
{
	size_t len = strlen(name);

	return len > 4 && !strcasecmp(name + len - 4, ".xml") && name[0] != '.';
}

static enum bb_status file_list_add(struct file_list *l, char *path)
{
	if (l->n == l->alloc) {
		size_t alloc = l->alloc ? l->alloc * 2 : 64;
		char **v = realloc(l->v, alloc * sizeof(*v));

		if (!v) {
			free(path);
			return BB_ERR_NOMEM;
		}
		l->v = v;
		l->alloc = alloc;
	}
	l->v[l->n++] = path;
	return BB_OK;
}

/* Walks dir (relative path rel, "" at the top) in name order. */
static enum bb_status walk(const char *root, const char *rel, struct file_list *out,
			   struct bb_error *err)
{
	struct file_list names = { NULL, 0, 0 };
	enum bb_status s = BB_OK;
	struct dirent *e;
	char *dirpath = *rel ? str_printf("%s/%s", root, rel) : strdup(root);
	DIR *d;

	if (!dirpath)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if (!(d = opendir(dirpath))) {
		s = bb_error_errno(err, errno, "cannot read the folder %s", dirpath);
		free(dirpath);
		return s;
	}
	while ((e = readdir(d)) && !s) {
		char *copy;

		if (e->d_name[0] == '.')
			continue;
		if (!(copy = strdup(e->d_name)) || file_list_add(&names, copy))
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(char *), name_cmp);
	for (size_t i = 0; i < names.n && !s; i++) {
		char *sub = *rel ? str_printf("%s/%s", rel, names.v[i]) : strdup(names.v[i]);
		char *full = sub ? str_printf("%s/%s", root, sub) : NULL;
		struct stat sb;

		if (!sub || !full) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		} else if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			s = walk(root, sub, out, err);
		} else if (is_xml_name(names.v[i])) {
			s = file_list_add(out, sub) ? bb_error_set(err, BB_ERR_NOMEM, "out of memory")
						    : BB_OK;
			sub = NULL;
		}
		free(sub);
		free(full);
	}
	file_list_release(&names);
	free(dirpath);
	return s;
}

char *import_xml_source(const char *path)
{
	char *real = realpath(path, NULL), *out;

	if (!real)
		return NULL;
	out = str_printf("xml:%s", real);
	free(real);
	return out;
}

/* Reads one file; a file that cannot be read as an export is recorded. */
static enum bb_status xml_file(struct importer *im, const char *file, const char *key,
			       const char *rel, struct bb_error *err)
{
	struct bz_xml_callbacks cb;
	struct bb_error rerr = BB_ERROR_INIT;
	struct xml_run x;
	enum bb_status s, read;
	char *source = import_xml_source(file);

	if (!source)
		return bb_error_set(err, errno == ENOMEM ? BB_ERR_NOMEM : BB_ERR_NOT_FOUND,
				    "cannot find %s", file);
	memset(&x, 0, sizeof(x));
	x.im = im;
	x.source = source;
	x.err = err;
	memset(&cb, 0, sizeof(cb));
	cb.ctx = &x;
	cb.bug = xml_on_bug;
	cb.not_found = xml_on_not_found;
	cb.attachment_data = xml_on_data;
	cb.attachment_begin = xml_on_begin;
	read = bz_xml_read_file(file, &cb, &rerr);
	xml_writer_drop(&x);
	if (x.failed || read == BB_ERR_NOMEM) {
		s = x.failed ? x.failed : bb_error_set(err, read, "out of memory");
		if (x.in_tx)
			store_rollback(im->db);
		goto out;
	}
	s = xml_tx(&x);
	if (!s && read) {
		/* the bugs before the fault are in; the file is noted */
		s = skip_record(im, source, 0, "file", rel,
				rerr.message[0] ? rerr.message : status_str(read), err);
	}
	if (!s)
		s = cursor_put(im, key, rel, err);
	if (!s)
		s = xml_commit(&x);
	else if (x.in_tx)
		store_rollback(im->db);
	im->st->files++;
out:
	free(x.data);
	free(source);
	return s;
}

enum bb_status import_xml(struct store *db, struct blob_store *blobs, const char *path,
			  const struct import_options *opt, struct import_stats *st,
			  struct bb_error *err)
{
	struct importer im;
	struct file_list files = { NULL, 0, 0 };
	char *key = NULL, *value = NULL, *root = NULL;
	size_t start = 0;
	struct stat sb;
	enum bb_status s;

	if ((s = importer_init(&im, db, blobs, opt, st, err)))
		goto out;
	if (stat(path, &sb) != 0 || !(root = realpath(path, NULL))) {
		s = bb_error_errno(err, errno, "cannot read %s", path);
		goto out;
	}
	if (!(key = str_printf("import:xml:%s", root))) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (S_ISDIR(sb.st_mode)) {
		if ((s = walk(root, "", &files, err)))
			goto out;
	} else {
		/* one file: its folder is the root, its name the only entry */
		char *slash = strrchr(root, '/'), *name = strdup(slash + 1);

		if (!name || file_list_add(&files, name)) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		if (slash == root)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if ((s = cursor_get(&im, key, &value, err)))
		goto out;
	if (value) {
		for (size_t i = 0; i < files.n; i++)
			if (!strcmp(files.v[i], value)) {
				start = i + 1;
				st->resumed = 1;
				break;
			}
	}
	st->progress_total = files.n;
	st->progress_done = start;
	report_progress(&im);
	for (size_t i = start; i < files.n; i++) {
		char *file = str_printf("%s/%s", root, files.v[i]);

		if (!file) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		s = xml_file(&im, file, key, files.v[i], err);
		free(file);
		if (s)
			goto out;
		st->progress_done = i + 1;
		report_progress(&im);
	}
	/* the walk is whole: a later import reads every file again */
	s = cursor_put(&im, key, NULL, err);
	if (!s)
		s = unpublish_private(&im, err);
out:
	file_list_release(&files);
	free(root);
	free(value);
	free(key);
	importer_release(&im);
	return s;
}

enum bb_status import_each_skip(struct store *db, const char *source,
				enum bb_status (*fn)(void *ctx, const struct import_skip *s),
				void *ctx, struct bb_error *err)
{
	sqlite3_stmt *stmt = NULL;
	enum bb_status s;
	int rc;

	if ((s = store_prepare(db, &stmt,
			       "SELECT source, bug_id, what, ref, reason FROM imp_skip"
			       " WHERE substr(source, 1, length(?1)) = ?1 ORDER BY id", err)))
		return s;
	sqlite3_bind_text(stmt, 1, source, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct import_skip k;

		k.source = (const char *)sqlite3_column_text(stmt, 0);
		k.bug_id = sqlite3_column_int64(stmt, 1);
		k.what = (const char *)sqlite3_column_text(stmt, 2);
		k.ref = (const char *)sqlite3_column_text(stmt, 3);
		k.reason = (const char *)sqlite3_column_text(stmt, 4);
		if ((s = fn(ctx, &k)))
			break;
	}
	if (!s && rc != SQLITE_DONE)
		s = store_fail(db, err, "reading skipped imports");
	sqlite3_finalize(stmt);
	return s;
}
