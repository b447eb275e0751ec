/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge export: mbox threads, redirect maps and JSON from the imp_*
 * tables (see export.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <json-c/json.h>

#include "bridge/sync.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/text.h"
#include "migrate/export.h"

/* ---------------------------------------------------------- atomic files */

enum bb_status export_file_open(struct export_file *ef, const char *path, struct bb_error *err)
{
	enum bb_status s = BB_OK;
	int fd = -1;

	memset(ef, 0, sizeof(*ef));
	ef->path = strdup(path);
	ef->tmp = str_printf("%s.tmp.XXXXXX", path);
	if (!ef->path || !ef->tmp) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = fs_mkdir_parents(path, err)))
		goto out;
	fd = mkstemp(ef->tmp);
	if (fd < 0) {
		s = bb_error_errno(err, errno, "export: cannot create %s", ef->tmp);
		goto out;
	}
	if (fchmod(fd, 0644) != 0 || !(ef->f = fdopen(fd, "w"))) {
		s = bb_error_errno(err, errno, "export: cannot open %s", ef->tmp);
		close(fd);
		unlink(ef->tmp);
		goto out;
	}
out:
	if (s) {
		free(ef->path);
		free(ef->tmp);
		memset(ef, 0, sizeof(*ef));
	}
	return s;
}

void export_file_abort(struct export_file *ef)
{
	if (ef->f) {
		fclose(ef->f);
		unlink(ef->tmp);
	}
	free(ef->path);
	free(ef->tmp);
	memset(ef, 0, sizeof(*ef));
}

enum bb_status export_file_commit(struct export_file *ef, struct bb_error *err)
{
	enum bb_status s = BB_OK;
	char *dir = NULL, *slash;
	int failed;

	failed = fflush(ef->f) != 0 || ferror(ef->f) || fsync(fileno(ef->f)) != 0;
	if (failed) {
		s = bb_error_errno(err, errno ? errno : EIO, "export: cannot write %s", ef->path);
		goto out;
	}
	failed = fclose(ef->f) != 0;
	ef->f = NULL;
	if (failed) {
		s = bb_error_errno(err, errno, "export: cannot write %s", ef->path);
		unlink(ef->tmp);
		goto out;
	}
	if (rename(ef->tmp, ef->path) != 0) {
		s = bb_error_errno(err, errno, "export: cannot rename %s to %s", ef->tmp, ef->path);
		unlink(ef->tmp);
		goto out;
	}
	dir = strdup(ef->path);
	if (!dir) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	s = fs_fsync_dir(slash ? dir : ".", err);
out:
	free(dir);
	export_file_abort(ef);
	return s;
}

/* ------------------------------------------------------- reading a bug */

/* What the import knows of an attachment beyond struct bz_attachment. */
struct export_att {
	char *hash;      /* 64 hex, or NULL when not in the blob store */
	char *state;     /* pending, stored, failed */
	char *note;
};

struct export_bug {
	struct bz_bug bug;
	struct export_att *atts;   /* parallel to bug.attachments */
	char *source;
	char *flags_json;          /* as stored */
	char *fields_json;
	int complete;
};

static void export_bug_release(struct export_bug *eb)
{
	for (size_t i = 0; eb->atts && i < eb->bug.nattachments; i++) {
		free(eb->atts[i].hash);
		free(eb->atts[i].state);
		free(eb->atts[i].note);
	}
	free(eb->atts);
	bz_bug_release(&eb->bug);
	free(eb->source);
	free(eb->flags_json);
	free(eb->fields_json);
	memset(eb, 0, sizeof(*eb));
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return strdup(t ? (const char *)t : "");
}

static char *col_dup_or_null(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t && *t ? strdup((const char *)t) : NULL;
}

/* A JSON array of strings as a NULL-terminated list (never NULL unless out
 * of memory); anything that is not an array gives an empty list. */
static char **json_strv(const char *text)
{
	struct json_object *o = text ? json_tokener_parse(text) : NULL;
	size_t n = o && json_object_is_type(o, json_type_array) ? json_object_array_length(o) : 0;
	char **v = calloc(n + 1, sizeof(*v));
	size_t k = 0;

	for (size_t i = 0; v && i < n; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(o, i));

		if (s && (v[k] = strdup(s)))
			k++;
	}
	json_object_put(o);
	return v;
}

/* A JSON array of bug ids (depends_on, blocks) into *ids; what is not a
 * bug id is left out.  -1 when out of memory. */
static int json_ids(const char *text, long long **ids, size_t *n)
{
	struct json_object *o = text ? json_tokener_parse(text) : NULL;
	size_t len = o && json_object_is_type(o, json_type_array) ? json_object_array_length(o) : 0;
	int failed = 0;

	for (size_t i = 0; i < len && !failed; i++) {
		struct json_object *e = json_object_array_get_idx(o, i);

		if (json_object_is_type(e, json_type_int))
			failed = bz_bug_ids_add(ids, n, (long long)json_object_get_int64(e));
	}
	json_object_put(o);
	if (!failed)
		bz_bug_ids_tidy(*ids, n);
	return failed;
}

/* Custom fields {"cf_x": value}: lists are joined with ", ". */
static void json_fields(const char *text, struct bz_bug *bug)
{
	struct json_object *o = text ? json_tokener_parse(text) : NULL;
	size_t n;

	if (!o || !json_object_is_type(o, json_type_object))
		goto out;
	n = (size_t)json_object_object_length(o);
	bug->fields = calloc(n ? n : 1, sizeof(*bug->fields));
	if (!bug->fields)
		goto out;
	json_object_object_foreach(o, key, val) {
		struct buf b = BUF_INIT;

		if (json_object_is_type(val, json_type_array)) {
			for (size_t i = 0; i < json_object_array_length(val); i++)
				buf_addf(&b, "%s%s", i ? ", " : "",
					 json_object_get_string(json_object_array_get_idx(val, i)));
		} else if (val) {
			buf_addstr(&b, json_object_get_string(val));
		}
		bug->fields[bug->nfields].name = strdup(key);
		bug->fields[bug->nfields].value = buf_detach(&b, NULL);
		if (!bug->fields[bug->nfields].name || !bug->fields[bug->nfields].value) {
			free(bug->fields[bug->nfields].name);
			free(bug->fields[bug->nfields].value);
			break;
		}
		bug->nfields++;
	}
out:
	json_object_put(o);
}

/* Loads the next bug after *last (or only opt->only_bug) into eb.  Returns
 * BB_ERR_NOT_FOUND when there is none left. */
static enum bb_status load_next_bug(struct store *db, const struct export_options *opt,
				    long long *last, struct export_bug *eb, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	struct bz_bug *bug = &eb->bug;
	enum bb_status s;
	size_t n;
	int rc;

	memset(eb, 0, sizeof(*eb));
	if ((s = store_prepare(db, &st,
			       "SELECT id, source, summary, product, component, status, resolution,"
			       " severity, priority, version, reporter, reporter_name, assigned_to,"
			       " url, dupe_of, creation_time, last_change_time, keywords, cc,"
			       " groups, flags, fields, complete, alias, qa_contact, target_milestone,"
			       " op_sys, platform, depends_on, blocks FROM imp_bug"
			       " WHERE id > ?1 AND (?2 = 0 OR id = ?2) ORDER BY id LIMIT 1", err)))
		goto out;
	sqlite3_bind_int64(st, 1, *last);
	sqlite3_bind_int64(st, 2, opt->only_bug);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		s = BB_ERR_NOT_FOUND;
		goto out;
	}
	if (rc != SQLITE_ROW) {
		s = store_fail(db, err, "export: reading imp_bug");
		goto out;
	}
	bug->id = sqlite3_column_int64(st, 0);
	*last = bug->id;
	eb->source = col_dup(st, 1);
	bug->summary = col_dup(st, 2);
	bug->product = col_dup(st, 3);
	bug->component = col_dup(st, 4);
	bug->status = col_dup(st, 5);
	bug->resolution = col_dup(st, 6);
	bug->severity = col_dup(st, 7);
	bug->priority = col_dup(st, 8);
	bug->version = col_dup(st, 9);
	bug->creator.login = col_dup(st, 10);
	bug->creator.real_name = col_dup(st, 11);
	bug->assigned_to.login = col_dup(st, 12);
	bug->assigned_to.real_name = strdup("");
	bug->url = col_dup(st, 13);
	bug->dupe_of = sqlite3_column_int64(st, 14);
	bug->creation_time = (time_t)sqlite3_column_int64(st, 15);
	bug->last_change_time = (time_t)sqlite3_column_int64(st, 16);
	bug->keywords = json_strv((const char *)sqlite3_column_text(st, 17));
	bug->cc = json_strv((const char *)sqlite3_column_text(st, 18));
	bug->groups = json_strv((const char *)sqlite3_column_text(st, 19));
	eb->flags_json = col_dup(st, 20);
	eb->fields_json = col_dup(st, 21);
	eb->complete = sqlite3_column_int(st, 22);
	bug->alias = json_strv((const char *)sqlite3_column_text(st, 23));
	bug->qa_contact.login = col_dup(st, 24);
	bug->qa_contact.real_name = strdup("");
	bug->target_milestone = col_dup(st, 25);
	bug->op_sys = col_dup(st, 26);
	bug->platform = col_dup(st, 27);
	json_fields(eb->fields_json, bug);
	if (json_ids((const char *)sqlite3_column_text(st, 28), &bug->depends_on,
		     &bug->ndepends_on) ||
	    json_ids((const char *)sqlite3_column_text(st, 29), &bug->blocks, &bug->nblocks)) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (!eb->source || !bug->summary || !bug->product || !bug->component || !bug->status ||
	    !bug->resolution || !bug->severity || !bug->priority || !bug->version ||
	    !bug->creator.login || !bug->creator.real_name || !bug->assigned_to.login ||
	    !bug->assigned_to.real_name || !bug->url || !bug->keywords || !bug->cc ||
	    !bug->groups || !eb->flags_json || !eb->fields_json || !bug->alias ||
	    !bug->qa_contact.login || !bug->qa_contact.real_name || !bug->target_milestone ||
	    !bug->op_sys || !bug->platform) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}

	/* comments, in order */
	if ((s = store_prepare(db, &st,
			       "SELECT id, count, author, author_name, time, text, is_private,"
			       " attachment_id FROM imp_comment WHERE bug_id = ? ORDER BY count, id",
			       err)))
		goto out;
	sqlite3_bind_int64(st, 1, bug->id);
	n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct bz_comment *c;

		if (bug->ncomments == n) {
			size_t cap = n ? 2 * n : 8;
			struct bz_comment *grown = realloc(bug->comments, cap * sizeof(*grown));

			if (!grown) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				goto out;
			}
			bug->comments = grown;
			n = cap;
		}
		c = &bug->comments[bug->ncomments++];
		memset(c, 0, sizeof(*c));
		c->id = sqlite3_column_int64(st, 0);
		c->bug_id = bug->id;
		c->count = sqlite3_column_int(st, 1);
		c->author.login = col_dup(st, 2);
		c->author.real_name = col_dup(st, 3);
		c->time = (time_t)sqlite3_column_int64(st, 4);
		c->text = col_dup(st, 5);
		c->is_private = sqlite3_column_int(st, 6);
		c->attachment_id = sqlite3_column_int64(st, 7);
		if (!c->author.login || !c->author.real_name || !c->text) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	if (rc != SQLITE_DONE) {
		s = store_fail(db, err, "export: reading imp_comment");
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;

	/* attachments */
	if ((s = store_prepare(db, &st,
			       "SELECT id, file_name, summary, content_type, size, creator, time,"
			       " is_private, is_obsolete, is_patch, blob_hash, state, note"
			       " FROM imp_attachment WHERE bug_id = ? ORDER BY id", err)))
		goto out;
	sqlite3_bind_int64(st, 1, bug->id);
	n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct bz_attachment *a;
		struct export_att *x;
		sqlite3_int64 size;

		if (bug->nattachments == n) {
			size_t cap = n ? 2 * n : 4;
			struct bz_attachment *grown = realloc(bug->attachments, cap * sizeof(*grown));
			struct export_att *xgrown;

			if (!grown) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				goto out;
			}
			bug->attachments = grown;
			xgrown = realloc(eb->atts, cap * sizeof(*xgrown));
			if (!xgrown) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				goto out;
			}
			eb->atts = xgrown;
			n = cap;
		}
		a = &bug->attachments[bug->nattachments];
		x = &eb->atts[bug->nattachments];
		bug->nattachments++;
		memset(a, 0, sizeof(*a));
		memset(x, 0, sizeof(*x));
		a->id = sqlite3_column_int64(st, 0);
		a->bug_id = bug->id;
		a->file_name = col_dup(st, 1);
		a->summary = col_dup(st, 2);
		a->content_type = col_dup(st, 3);
		size = sqlite3_column_int64(st, 4);
		a->size = size > 0 ? (uint64_t)size : 0;
		a->creator.login = col_dup(st, 5);
		a->creator.real_name = strdup("");
		a->creation_time = (time_t)sqlite3_column_int64(st, 6);
		a->is_private = sqlite3_column_int(st, 7);
		a->is_obsolete = sqlite3_column_int(st, 8);
		a->is_patch = sqlite3_column_int(st, 9);
		x->hash = col_dup_or_null(st, 10);
		x->state = col_dup(st, 11);
		x->note = col_dup_or_null(st, 12);
		if (!a->file_name || !a->summary || !a->content_type || !a->creator.login ||
		    !a->creator.real_name || !x->state) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		/* only a well-formed hash counts as stored */
		if (x->hash) {
			char hex[BLOB_HEX_LEN + 1];
			int good = blob_parse_hash(x->hash, hex, NULL) == BB_OK;

			free(x->hash);
			x->hash = good ? strdup(hex) : NULL;
		}
	}
	if (rc != SQLITE_DONE) {
		s = store_fail(db, err, "export: reading imp_attachment");
		goto out;
	}
	s = BB_OK;
out:
	sqlite3_finalize(st);
	if (s)
		export_bug_release(eb);
	return s;
}

static int bug_restricted(const struct bz_bug *bug)
{
	return bug->groups && bug->groups[0];
}

/* The Message-ID of the thread's first exported mail: the description's,
 * or when that is private the first public comment's; NULL if no comment
 * is public. */
static const struct bz_comment *first_public_comment(const struct bz_bug *bug)
{
	for (size_t i = 0; i < bug->ncomments; i++)
		if (!bug->comments[i].is_private)
			return &bug->comments[i];
	return NULL;
}

static const struct bz_comment *public_comment_by_count(const struct bz_bug *bug, int count)
{
	for (size_t i = 0; i < bug->ncomments; i++)
		if (bug->comments[i].count == count && !bug->comments[i].is_private)
			return &bug->comments[i];
	return NULL;
}

static const char *archive_base(const struct export_options *opt)
{
	return opt->archive_url && *opt->archive_url ? opt->archive_url : EXPORT_DEFAULT_ARCHIVE;
}

char *export_thread_url(const struct export_options *opt, const char *message_id)
{
	const char *base = archive_base(opt);
	size_t len = strlen(base);
	struct buf b = BUF_INIT;

	while (len > 0 && base[len - 1] == '/')
		len--;
	buf_add(&b, base, len);
	buf_addch(&b, '/');
	{
		gchar *escaped = g_uri_escape_string(message_id, "@!$&'()*+,;=:", FALSE);

		buf_addstr(&b, escaped);
		g_free(escaped);
	}
	buf_addch(&b, '/');
	return buf_detach(&b, NULL);
}

/* ------------------------------------------------------------- the mbox */

/* What the mail says of an attachment: the bridge's own description
 * (sync_attachment_view), so exported and mirrored mails are the same. */
static void att_describe(struct blob_store *bs, const struct export_options *opt,
			 const struct bz_attachment *a, const struct export_att *x,
			 struct attachment_view *v, struct mail_attachment *ma)
{
	char *note = x->hash ? NULL
		: str_printf("not in the blob store (%s); the attachment stayed at Bugzilla",
			     x->note && *x->note ? x->note : x->state);

	sync_attachment_view(bs, opt->inline_limit, a, x->hash, note, v, ma);
	free(note);
}

/* Appends one mboxrd entry: the From_ line, the message with every line
 * matching ^>*From  quoted by one more '>', and a blank line. */
static enum bb_status mboxrd_write(FILE *f, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	if (fputs("From mboxrd@z Thu Jan  1 00:00:00 1970\n", f) == EOF)
		return BB_ERR_IO;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;
		size_t linelen = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);

		while (q < end && *q == '>')
			q++;
		if ((size_t)(end - q) >= 5 && !memcmp(q, "From ", 5) && fputc('>', f) == EOF)
			return BB_ERR_IO;
		if (fwrite(p, 1, linelen, f) != linelen)
			return BB_ERR_IO;
		p += linelen;
	}
	if (len && text[len - 1] != '\n' && fputc('\n', f) == EOF)
		return BB_ERR_IO;
	return fputc('\n', f) == EOF ? BB_ERR_IO : BB_OK;
}

static enum bb_status mbox_one_comment(struct blob_store *bs, const struct export_options *opt,
				       const struct mail_options *mopt,
				       const struct export_bug *eb, const struct bz_comment *c,
				       const char *root, FILE *f, struct export_stats *stats,
				       struct bb_error *err)
{
	const struct bz_bug *bug = &eb->bug;
	struct mail_attachment *atts = NULL;
	struct attachment_view *views = NULL;
	struct mail_message m = { NULL, NULL, 0 };
	char *parent = NULL, *refs[3] = { NULL, NULL, NULL };
	size_t natts = 0;
	enum bb_status s = BB_OK;

	if (bug->nattachments) {
		atts = calloc(bug->nattachments, sizeof(*atts));
		views = calloc(bug->nattachments, sizeof(*views));
		if (!atts || !views) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	/* the attachments this comment announces, or for the description all
	 * that came with the bug's creation: the bridge's rule */
	for (size_t i = 0; i < bug->nattachments && natts < 16; i++) {
		const struct bz_attachment *a = &bug->attachments[i];

		if (a->is_private || (c->attachment_id != a->id &&
				      !(c->count == 0 && a->creation_time <= c->time)))
			continue;
		att_describe(bs, opt, a, &eb->atts[i], &views[natts], &atts[natts]);
		if (eb->atts[i].hash)
			stats->attachments++;
		natts++;
	}
	if (c->count > 0) {
		int answered = sync_replied_comment(c->text);

		if (answered > 0 && answered < c->count && public_comment_by_count(bug, answered))
			parent = mail_message_id(mopt->domain, bug->id, answered);
		refs[0] = (char *)root;
		refs[1] = parent;
	}
	s = mail_compose_comment(mopt, bug, c, atts, natts, NULL, 0, opt->to, opt->cc,
				 c->count > 0 ? (parent ? parent : root) : NULL,
				 c->count > 0 ? refs : NULL, NULL, &m, err);
	if (s)
		goto out;
	if (mboxrd_write(f, m.text, m.len)) {
		s = bb_error_errno(err, errno ? errno : EIO, "export: cannot write the mbox");
		goto out;
	}
	stats->mails++;
out:
	mail_message_release(&m);
	free(parent);
	for (size_t i = 0; i < natts; i++)
		sync_attachment_view_release(&views[i]);
	free(views);
	free(atts);
	return s;
}

/* The mail options for a bug: the bridge's, with the Bugzilla URL taken
 * from the import's source when none is configured. */
static void bug_mail_options(const struct export_options *opt, const struct export_bug *eb,
			     struct mail_options *mopt)
{
	*mopt = opt->mail;
	if ((!mopt->bug_url_base || !*mopt->bug_url_base) &&
	    (!strncmp(eb->source, "http://", 7) || !strncmp(eb->source, "https://", 8)))
		mopt->bug_url_base = eb->source;
}

static void count_private(const struct export_bug *eb, struct export_stats *stats)
{
	for (size_t i = 0; i < eb->bug.ncomments; i++)
		stats->private_comments += eb->bug.comments[i].is_private != 0;
	for (size_t i = 0; i < eb->bug.nattachments; i++)
		stats->private_attachments += eb->bug.attachments[i].is_private != 0;
}

enum bb_status export_mbox(struct store *db, struct blob_store *bs,
			   const struct export_options *opt, const char *dir,
			   struct export_stats *stats, struct bb_error *err)
{
	struct export_bug eb;
	struct export_file ef = { NULL, NULL, NULL };
	long long last = 0, exported = 0;
	char *path = NULL, *root = NULL;
	enum bb_status s;

	memset(&eb, 0, sizeof(eb));
	if (!opt->to || !opt->to[0]) {
		s = bb_error_set(err, BB_ERR_CONFIG, "export: no recipients for the mails "
				 "(--to, or [routing] default_lists)");
		goto out;
	}
	if ((s = fs_mkdir_p(dir, err)))
		goto out;
	for (;;) {
		const struct bz_comment *first;
		struct mail_options mopt;

		s = load_next_bug(db, opt, &last, &eb, err);
		if (s == BB_ERR_NOT_FOUND) {
			s = BB_OK;
			break;
		}
		if (s)
			goto out;
		free(path);
		path = str_printf("%s/bug-%lld.mbox", dir, eb.bug.id);
		if (!path) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		first = first_public_comment(&eb.bug);
		if (bug_restricted(&eb.bug) || !first) {
			/* restricted now: an earlier export of it must not stay */
			if (unlink(path) != 0 && errno != ENOENT) {
				s = bb_error_errno(err, errno, "export: cannot remove %s", path);
				goto out;
			}
			stats->restricted += bug_restricted(&eb.bug);
			export_bug_release(&eb);
			continue;
		}
		if (!eb.complete) {
			stats->incomplete++;
			export_bug_release(&eb);
			continue;
		}
		bug_mail_options(opt, &eb, &mopt);
		count_private(&eb, stats);
		/* comments answer the description's Message-ID, as the bridge's
		 * do, even when the description itself is private */
		free(root);
		root = mail_message_id(mopt.domain, eb.bug.id, 0);
		if (!root) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		if ((s = export_file_open(&ef, path, err)))
			goto out;
		for (size_t i = 0; i < eb.bug.ncomments && !s; i++) {
			const struct bz_comment *c = &eb.bug.comments[i];

			if (!c->is_private)
				s = mbox_one_comment(bs, opt, &mopt, &eb, c, root, ef.f, stats, err);
		}
		if (s)
			goto out;
		if ((s = export_file_commit(&ef, err)))
			goto out;
		stats->bugs++;
		exported++;
		export_bug_release(&eb);
	}
	if (opt->only_bug && !exported)
		s = bb_error_set(err, BB_ERR_NOT_FOUND,
				 "export: bug %lld is not exported (unknown, restricted, "
				 "without a public comment, or its import is not complete)",
				 opt->only_bug);
out:
	if (ef.f)
		export_file_abort(&ef);
	export_bug_release(&eb);
	free(path);
	free(root);
	return s;
}

/* --------------------------------------------------------- the redirects */

static const char *const default_prefixes[] = { "", "/bugzilla", NULL };

static void nginx_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\' || *s == '$')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void redirect_line(FILE *nginx, FILE *csv, char *const *prefixes, const char *old_base,
			  const char *script, long long bug_id, long long att_id, const char *to)
{
	long long id = att_id ? att_id : bug_id;

	for (size_t i = 0; nginx && prefixes[i]; i++) {
		char key[512];

		snprintf(key, sizeof(key), "%s/%s?id=%lld", prefixes[i], script, id);
		fputs("    ", nginx);
		nginx_quoted(nginx, key);
		fputc(' ', nginx);
		nginx_quoted(nginx, to);
		fputs(";\n", nginx);
	}
	if (csv) {
		char old[1024];
		size_t len = strlen(old_base);

		while (len > 0 && old_base[len - 1] == '/')
			len--;
		snprintf(old, sizeof(old), "%.*s/%s?id=%lld", (int)len, old_base, script, id);
		csv_field(csv, old);
		fputc(',', csv);
		csv_field(csv, to);
		fprintf(csv, ",%s,%lld,", att_id ? "attachment" : "bug", bug_id);
		if (att_id)
			fprintf(csv, "%lld", att_id);
		fputc('\n', csv);
	}
}

enum bb_status export_redirects(struct store *db, struct blob_store *bs,
				const struct export_options *opt, const char *nginx_path,
				const char *csv_path, struct export_stats *stats,
				struct bb_error *err)
{
	char *const *prefixes = opt->prefixes ? opt->prefixes : (char *const *)default_prefixes;
	struct export_file nf = { NULL, NULL, NULL }, cf = { NULL, NULL, NULL };
	struct export_bug eb;
	long long last = 0;
	char *msgid = NULL, *link = NULL, *url = NULL;
	enum bb_status s = BB_OK;

	memset(&eb, 0, sizeof(eb));
	if (nginx_path && (s = export_file_open(&nf, nginx_path, err)))
		goto out;
	if (csv_path && (s = export_file_open(&cf, csv_path, err)))
		goto out;
	if (nf.f) {
		fprintf(nf.f,
			"# Old Bugzilla URLs and their new homes, written by bugbridge export\n"
			"# redirects.  Include this file in nginx's http block and redirect in\n"
			"# the old Bugzilla's server block:\n"
			"#     if ($bugbridge_new) { return 301 $bugbridge_new; }\n"
			"# The key is the path with the id parameter alone, so\n"
			"# /show_bug.cgi?ctype=xml&id=1 matches as /show_bug.cgi?id=1 does.\n"
			"# For many bugs raise map_hash_max_size (and map_hash_bucket_size).\n"
			"map \"$uri?id=$arg_id\" $bugbridge_new {\n"
			"    default \"\";\n");
	}
	if (cf.f)
		fputs("old_url,new_url,kind,bug_id,attachment_id\n", cf.f);
	for (;;) {
		const struct bz_comment *first;
		const char *old_base;

		s = load_next_bug(db, opt, &last, &eb, err);
		if (s == BB_ERR_NOT_FOUND) {
			s = BB_OK;
			break;
		}
		if (s)
			goto out;
		first = first_public_comment(&eb.bug);
		if (bug_restricted(&eb.bug) || !eb.complete || !first) {
			stats->restricted += bug_restricted(&eb.bug);
			stats->incomplete += !eb.complete && !bug_restricted(&eb.bug);
			export_bug_release(&eb);
			continue;
		}
		count_private(&eb, stats);
		old_base = opt->mail.bug_url_base && *opt->mail.bug_url_base
			? opt->mail.bug_url_base
			: !strncmp(eb.source, "http", 4) ? eb.source : "";
		free(msgid);
		free(link);
		msgid = mail_message_id(opt->mail.domain, eb.bug.id, first->count);
		link = msgid ? export_thread_url(opt, msgid) : NULL;
		if (!link) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		redirect_line(nf.f, cf.f, prefixes, old_base, "show_bug.cgi", eb.bug.id, 0, link);
		stats->redirects++;
		for (size_t i = 0; i < eb.bug.nattachments; i++) {
			const struct bz_attachment *a = &eb.bug.attachments[i];

			if (a->is_private || !eb.atts[i].hash)
				continue;
			free(url);
			url = blob_url(bs, eb.atts[i].hash, a->file_name);
			if (!url) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				goto out;
			}
			redirect_line(nf.f, cf.f, prefixes, old_base, "attachment.cgi", eb.bug.id,
				      a->id, url);
			stats->redirects++;
			stats->attachments++;
		}
		stats->bugs++;
		export_bug_release(&eb);
	}
	if (nf.f)
		fputs("}\n", nf.f);
	if (nf.f && (s = export_file_commit(&nf, err)))
		goto out;
	if (cf.f && (s = export_file_commit(&cf, err)))
		goto out;
out:
	if (nf.f)
		export_file_abort(&nf);
	if (cf.f)
		export_file_abort(&cf);
	export_bug_release(&eb);
	free(msgid);
	free(link);
	free(url);
	return s;
}

/* ------------------------------------------------------------- the JSON */

static struct json_object *json_time(time_t t)
{
	char text[32];

	if (t <= 0)
		return NULL;
	bz_format_time(t, text, sizeof(text));
	return json_object_new_string(text);
}

static struct json_object *json_strv_object(char **v)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; v && v[i]; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static struct json_object *json_ids_object(const long long *ids, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++)
		json_object_array_add(a, json_object_new_int64(ids[i]));
	return a;
}

/* Whether the JSON export may carry login addresses: an admin's
 * --include-private export, or [mail] show_addresses. */
static int json_shows_addresses(const struct export_options *opt)
{
	return opt->include_private || opt->mail.show_addresses;
}

/* The people of a JSON export: each login's one real name, so that a
 * person is named the same way wherever they appear.  The name is what
 * the bridge learnt of Bugzilla's users (bz_user), else the latest the
 * import kept on one of their public comments (any comment, with private
 * ones exported), else on a bug they reported; "" when none is known. */
struct people {
	GHashTable *names;           /* login -> real name */
	int addresses;               /* logins are shown (json_shows_addresses()) */
};

static enum bb_status people_load(struct store *db, const struct export_options *opt,
				  struct people *pp, struct bb_error *err)
{
	/* later rows win: by rank, then by time */
	static const char sql[] =
		"SELECT login, name FROM ("
		" SELECT reporter AS login, reporter_name AS name, 0 AS rank,"
		"  last_change_time AS t FROM imp_bug WHERE reporter_name <> ''"
		" UNION ALL SELECT author, author_name, 1, time FROM imp_comment"
		"  WHERE author_name <> '' AND (is_private = 0 OR ?1)"
		" UNION ALL SELECT login, real_name, 2, updated FROM bz_user WHERE real_name <> '')"
		" WHERE login <> '' AND instr(name, '@') = 0 ORDER BY rank, t";
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	int rc;

	pp->addresses = json_shows_addresses(opt);
	pp->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	if ((s = store_prepare(db, &st, sql, err)))
		return s;
	sqlite3_bind_int(st, 1, opt->include_private != 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		g_hash_table_replace(pp->names, g_strdup((const char *)sqlite3_column_text(st, 0)),
				     g_strdup((const char *)sqlite3_column_text(st, 1)));
	if (rc != SQLITE_DONE)
		s = store_fail(db, err, "export: reading the people's names");
	sqlite3_finalize(st);
	return s;
}

static void people_release(struct people *pp)
{
	if (pp->names)
		g_hash_table_destroy(pp->names);
	pp->names = NULL;
}

static const char *people_name(const struct people *pp, const char *login)
{
	const char *name = login && pp->names ? g_hash_table_lookup(pp->names, login) : NULL;

	return name ? name : "";
}

/* A person as an object: login and their one name when addresses are
 * shown, else that name alone (or the login's local part: core/text.h's
 * text_user_published()). */
static struct json_object *json_user(const struct people *pp, const char *login)
{
	struct json_object *o = json_object_new_object();
	char *shown;

	if (pp->addresses) {
		json_object_object_add(o, "login", json_object_new_string(login));
		json_object_object_add(o, "name", json_object_new_string(people_name(pp, login)));
		return o;
	}
	shown = text_user_published(login, people_name(pp, login), 0);
	json_object_object_add(o, "name", json_object_new_string(shown ? shown : ""));
	free(shown);
	return o;
}

/* A person as a string: the login when addresses are shown, else the name
 * json_user() gives ("" for nobody). */
static struct json_object *json_login(const struct people *pp, const char *login)
{
	struct json_object *o;
	char *shown;

	if (pp->addresses)
		return json_object_new_string(login);
	shown = login && *login ? text_user_published(login, people_name(pp, login), 0) : NULL;
	o = json_object_new_string(shown ? shown : "");
	free(shown);
	return o;
}

/* A history value of a field that holds people (assigned_to, qa_contact,
 * cc: logins, comma separated) named as json_login() names them. */
static struct json_object *json_people_list(const struct people *pp, const char *text)
{
	struct buf out = BUF_INIT;
	struct json_object *o;
	char **logins;

	if (pp->addresses || !text)
		return json_object_new_string(text ? text : "");
	logins = g_strsplit(text, ",", -1);
	for (size_t i = 0; logins && logins[i]; i++) {
		const char *login = g_strstrip(logins[i]);
		char *shown = *login ? text_user_published(login, people_name(pp, login), 0) : NULL;

		if (shown)
			buf_addf(&out, "%s%s", out.len ? ", " : "", shown);
		free(shown);
	}
	g_strfreev(logins);
	o = json_object_new_string(out.data ? out.data : "");
	buf_release(&out);
	return o;
}

/* Text that may name people by address (history values, flags). */
static struct json_object *json_people_text(const struct export_options *opt, const char *text)
{
	struct json_object *o;
	char *shown;

	if (json_shows_addresses(opt))
		return json_object_new_string(text);
	shown = text_hide_addresses(text);
	o = json_object_new_string(shown ? shown : "");
	free(shown);
	return o;
}

static struct json_object *json_parsed(const char *text, json_type want)
{
	struct json_object *o = text ? json_tokener_parse(text) : NULL;

	if (o && json_object_is_type(o, want))
		return o;
	json_object_put(o);
	return want == json_type_array ? json_object_new_array() : json_object_new_object();
}

static int attachment_private(const struct bz_bug *bug, long long id)
{
	for (size_t i = 0; i < bug->nattachments; i++)
		if (bug->attachments[i].id == id)
			return bug->attachments[i].is_private;
	return 0;
}

static int people_field(const char *field)
{
	return field && (!strcmp(field, "assigned_to") || !strcmp(field, "qa_contact") ||
			 !strcmp(field, "cc") || !strcmp(field, "reporter"));
}

static enum bb_status json_history(struct store *db, const struct export_bug *eb,
				   const struct export_options *opt, const struct people *pp,
				   struct json_object *out, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	int rc;

	if ((s = store_prepare(db, &st,
			       "SELECT who, time, field, removed, added, attachment_id"
			       " FROM imp_history WHERE bug_id = ? ORDER BY seq", err)))
		return s;
	sqlite3_bind_int64(st, 1, eb->bug.id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long att = sqlite3_column_int64(st, 5);
		struct json_object *h;

		if (!opt->include_private && att && attachment_private(&eb->bug, att))
			continue;
		const char *field = (const char *)sqlite3_column_text(st, 2);
		const char *removed = (const char *)sqlite3_column_text(st, 3);
		const char *added = (const char *)sqlite3_column_text(st, 4);

		h = json_object_new_object();
		json_object_object_add(h, "who",
				       json_login(pp, (const char *)sqlite3_column_text(st, 0)));
		json_object_object_add(h, "time", json_time((time_t)sqlite3_column_int64(st, 1)));
		json_object_object_add(h, "field", json_object_new_string(field));
		json_object_object_add(h, "removed", people_field(field)
				       ? json_people_list(pp, removed) : json_people_text(opt, removed));
		json_object_object_add(h, "added", people_field(field)
				       ? json_people_list(pp, added) : json_people_text(opt, added));
		json_object_object_add(h, "attachment_id", att ? json_object_new_int64(att) : NULL);
		json_object_array_add(out, h);
	}
	if (rc != SQLITE_DONE)
		s = store_fail(db, err, "export: reading imp_history");
	sqlite3_finalize(st);
	return s;
}

static enum bb_status json_bug(struct store *db, struct blob_store *bs,
			       const struct export_options *opt, const struct people *pp,
			       const struct export_bug *eb, struct json_object **out, struct export_stats *stats,
			       struct bb_error *err)
{
	const struct bz_bug *bug = &eb->bug;
	const struct bz_comment *first = first_public_comment(bug);
	struct json_object *o = json_object_new_object(), *comments, *atts, *history;
	struct mail_options mopt;
	char *msgid = NULL, *link = NULL, *bug_url = NULL;
	enum bb_status s;

	bug_mail_options(opt, eb, &mopt);
	if (mopt.bug_url_base && *mopt.bug_url_base) {
		size_t len = strlen(mopt.bug_url_base);

		while (len > 0 && mopt.bug_url_base[len - 1] == '/')
			len--;
		bug_url = str_printf("%.*s/show_bug.cgi?id=%lld", (int)len, mopt.bug_url_base,
				     bug->id);
	}
	if (first && !bug_restricted(bug) && eb->complete) {
		msgid = mail_message_id(mopt.domain, bug->id, first->count);
		link = msgid ? export_thread_url(opt, msgid) : NULL;
	}
	json_object_object_add(o, "id", json_object_new_int64(bug->id));
	json_object_object_add(o, "summary", json_object_new_string(bug->summary));
	json_object_object_add(o, "product", json_object_new_string(bug->product));
	json_object_object_add(o, "component", json_object_new_string(bug->component));
	json_object_object_add(o, "status", json_object_new_string(bug->status));
	json_object_object_add(o, "resolution", json_object_new_string(bug->resolution));
	json_object_object_add(o, "severity", json_object_new_string(bug->severity));
	json_object_object_add(o, "priority", json_object_new_string(bug->priority));
	json_object_object_add(o, "version", json_object_new_string(bug->version));
	json_object_object_add(o, "reporter",
			       json_user(pp, bug->creator.login));
	json_object_object_add(o, "assigned_to", json_login(pp, bug->assigned_to.login));
	json_object_object_add(o, "url", json_object_new_string(bug->url));
	json_object_object_add(o, "dupe_of", bug->dupe_of ? json_object_new_int64(bug->dupe_of) : NULL);
	json_object_object_add(o, "creation_time", json_time(bug->creation_time));
	json_object_object_add(o, "last_change_time", json_time(bug->last_change_time));
	json_object_object_add(o, "keywords", json_strv_object(bug->keywords));
	/* the structure, named as REST names it; a dependency on a restricted
	 * bug is its id only, as Bugzilla shows it */
	json_object_object_add(o, "alias", json_strv_object(bug->alias));
	json_object_object_add(o, "qa_contact", json_login(pp, bug->qa_contact.login));
	json_object_object_add(o, "target_milestone",
			       json_object_new_string(bug->target_milestone));
	json_object_object_add(o, "op_sys", json_object_new_string(bug->op_sys));
	json_object_object_add(o, "platform", json_object_new_string(bug->platform));
	json_object_object_add(o, "depends_on", json_ids_object(bug->depends_on,
								bug->ndepends_on));
	json_object_object_add(o, "blocks", json_ids_object(bug->blocks, bug->nblocks));
	if (opt->include_private) {
		/* addresses of people who may never have written publicly */
		json_object_object_add(o, "cc", json_strv_object(bug->cc));
	} else {
		size_t ncc = 0;

		while (bug->cc && bug->cc[ncc])
			ncc++;
		json_object_object_add(o, "cc_count", json_object_new_int64((int64_t)ncc));
	}
	if (opt->include_private) {
		json_object_object_add(o, "groups", json_strv_object(bug->groups));
		json_object_object_add(o, "restricted", json_object_new_boolean(bug_restricted(bug)));
	}
	if (json_shows_addresses(opt)) {
		json_object_object_add(o, "flags", json_parsed(eb->flags_json, json_type_array));
	} else {
		/* setters and requestees by name, as everywhere; any other
		 * address in a flag hidden */
		struct json_object *flags = json_parsed(eb->flags_json, json_type_array);

		for (size_t i = 0; i < json_object_array_length(flags); i++) {
			struct json_object *f = json_object_array_get_idx(flags, i), *v;
			static const char *const who[] = { "setter", "requestee" };

			for (size_t k = 0; k < 2 && json_object_is_type(f, json_type_object); k++)
				if (json_object_object_get_ex(f, who[k], &v) &&
				    json_object_is_type(v, json_type_string))
					json_object_object_add(f, who[k],
							       json_login(pp, json_object_get_string(v)));
		}
		{
			char *hidden = text_hide_addresses(json_object_to_json_string_ext(
				flags, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));

			json_object_put(flags);
			flags = json_parsed(hidden, json_type_array);
			free(hidden);
		}
		json_object_object_add(o, "flags", flags);
	}
	json_object_object_add(o, "fields", json_parsed(eb->fields_json, json_type_object));
	json_object_object_add(o, "source", json_object_new_string(eb->source));
	json_object_object_add(o, "complete", json_object_new_boolean(eb->complete));
	json_object_object_add(o, "bugzilla_url", bug_url ? json_object_new_string(bug_url) : NULL);
	json_object_object_add(o, "message_id", msgid ? json_object_new_string(msgid) : NULL);
	json_object_object_add(o, "archive_url", link ? json_object_new_string(link) : NULL);

	comments = json_object_new_array();
	for (size_t i = 0; i < bug->ncomments; i++) {
		const struct bz_comment *c = &bug->comments[i];
		struct json_object *jc;
		char *cid;

		if (c->is_private && !opt->include_private) {
			stats->private_comments++;
			continue;
		}
		jc = json_object_new_object();
		json_object_object_add(jc, "id", json_object_new_int64(c->id));
		json_object_object_add(jc, "count", json_object_new_int(c->count));
		json_object_object_add(jc, "author",
				       json_user(pp, c->author.login));
		json_object_object_add(jc, "time", json_time(c->time));
		json_object_object_add(jc, "text", json_object_new_string(c->text));
		json_object_object_add(jc, "attachment_id",
				       c->attachment_id ? json_object_new_int64(c->attachment_id) : NULL);
		if (opt->include_private)
			json_object_object_add(jc, "is_private", json_object_new_boolean(c->is_private));
		cid = !c->is_private && msgid ? mail_message_id(mopt.domain, bug->id, c->count) : NULL;
		json_object_object_add(jc, "message_id", cid ? json_object_new_string(cid) : NULL);
		free(cid);
		json_object_array_add(comments, jc);
	}
	json_object_object_add(o, "comments", comments);

	atts = json_object_new_array();
	for (size_t i = 0; i < bug->nattachments; i++) {
		const struct bz_attachment *a = &bug->attachments[i];
		const struct export_att *x = &eb->atts[i];
		struct json_object *ja;
		char *url, *hash;

		if (a->is_private && !opt->include_private) {
			stats->private_attachments++;
			continue;
		}
		ja = json_object_new_object();
		json_object_object_add(ja, "id", json_object_new_int64(a->id));
		json_object_object_add(ja, "file_name", json_object_new_string(a->file_name));
		json_object_object_add(ja, "summary", json_object_new_string(a->summary));
		json_object_object_add(ja, "content_type", json_object_new_string(a->content_type));
		json_object_object_add(ja, "size", json_object_new_int64((int64_t)a->size));
		json_object_object_add(ja, "creator", json_login(pp, a->creator.login));
		json_object_object_add(ja, "time", json_time(a->creation_time));
		json_object_object_add(ja, "is_obsolete", json_object_new_boolean(a->is_obsolete));
		json_object_object_add(ja, "is_patch", json_object_new_boolean(a->is_patch));
		if (opt->include_private)
			json_object_object_add(ja, "is_private", json_object_new_boolean(a->is_private));
		hash = x->hash ? str_printf("sha256:%s", x->hash) : NULL;
		/* only bytes in the served store have a URL */
		url = x->hash && x->state && !strcmp(x->state, "stored")
			      ? blob_url(bs, x->hash, a->file_name) : NULL;
		json_object_object_add(ja, "hash", hash ? json_object_new_string(hash) : NULL);
		json_object_object_add(ja, "url", url ? json_object_new_string(url) : NULL);
		json_object_object_add(ja, "state", json_object_new_string(x->state));
		json_object_object_add(ja, "note", x->note ? json_object_new_string(x->note) : NULL);
		stats->attachments += x->hash != NULL;
		free(hash);
		free(url);
		json_object_array_add(atts, ja);
	}
	json_object_object_add(o, "attachments", atts);

	history = json_object_new_array();
	json_object_object_add(o, "history", history);
	s = json_history(db, eb, opt, pp, history, err);
	free(msgid);
	free(link);
	free(bug_url);
	if (s) {
		json_object_put(o);
		o = NULL;
	}
	*out = o;
	return s;
}

enum bb_status export_json(struct store *db, struct blob_store *bs,
			   const struct export_options *opt, FILE *out,
			   struct export_stats *stats, struct bb_error *err)
{
	struct export_bug eb;
	struct people people = { NULL, 0 };
	long long last = 0;
	int n = 0;
	enum bb_status s = BB_OK;

	memset(&eb, 0, sizeof(eb));
	if ((s = people_load(db, opt, &people, err)))
		goto out;
	fprintf(out, "{\"version\": %d, \"generator\": \"bugbridge %s\", \"include_private\": %s,"
		" \"message_id_domain\": ", EXPORT_JSON_VERSION, PACKAGE_VERSION,
		opt->include_private ? "true" : "false");
	{
		struct json_object *d = json_object_new_string(opt->mail.domain ? opt->mail.domain : "");

		fputs(json_object_to_json_string_ext(d, JSON_C_TO_STRING_NOSLASHESCAPE), out);
		json_object_put(d);
	}
	fputs(", \"bugs\": [\n", out);
	for (;;) {
		struct json_object *o = NULL;

		s = load_next_bug(db, opt, &last, &eb, err);
		if (s == BB_ERR_NOT_FOUND) {
			s = BB_OK;
			break;
		}
		if (s)
			goto out;
		if (bug_restricted(&eb.bug) && !opt->include_private) {
			stats->restricted++;
			export_bug_release(&eb);
			continue;
		}
		if ((s = json_bug(db, bs, opt, &people, &eb, &o, stats, err)))
			goto out;
		fputs(n++ ? ",\n" : "", out);
		fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED |
							JSON_C_TO_STRING_NOSLASHESCAPE), out);
		json_object_put(o);
		stats->bugs++;
		export_bug_release(&eb);
	}
	if (opt->only_bug && !n) {
		s = bb_error_set(err, BB_ERR_NOT_FOUND, "export: no such bug %lld%s", opt->only_bug,
				 opt->include_private ? "" : " (or it is restricted)");
		goto out;
	}
	fprintf(out, "\n], \"count\": %d}\n", n);
	if (fflush(out) != 0 || ferror(out))
		s = bb_error_errno(err, errno ? errno : EIO, "export: cannot write the JSON");
out:
	export_bug_release(&eb);
	people_release(&people);
	return s;
}
