/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A bug's attachments on the sync's side: each downloaded from Bugzilla into
 * the blob store (outside any transaction: the store is content-addressed),
 * recorded in bz_attachment (stored, private: skipped, or failed with the
 * time of the next try), described for its mail, and tried again until it
 * is stored, when its bug's thread gets one mail saying so. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge/follow.h"
#include "bridge/route.h"
#include "bridge/sync_attach.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "mail/mail.h"
#include "mail/maintainers.h"

struct att_sink {
	struct blob_writer *w;
};

static enum bb_status att_sink_write(void *ctx, const void *data, size_t len)
{
	struct att_sink *as = ctx;

	return blob_writer_write(as->w, data, len, NULL);
}


enum bb_status sync_att_lookup(struct store *db, long long id, char *hash, int *attempts,
				 char **last_error)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s = BB_ERR_NOT_FOUND;

	hash[0] = '\0';
	*attempts = 0;
	*last_error = NULL;
	if (store_prepare(db, &st, "SELECT blob_hash, attempts, last_error FROM bz_attachment"
				   " WHERE id = ?", NULL))
		return BB_ERR_DATABASE;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			snprintf(hash, BLOB_HEX_LEN + 1, "%s", sqlite3_column_text(st, 0));
		*attempts = sqlite3_column_int(st, 1);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			*last_error = strdup((const char *)sqlite3_column_text(st, 2));
		s = BB_OK;
	}
	sqlite3_finalize(st);
	return s;
}

static enum bb_status att_record(struct store *db, const struct bz_attachment *a,
				 const char *hash, const char *error, long long next_attempt,
				 struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(db, &st,
			       "INSERT INTO bz_attachment (id, bug_id, file_name, content_type, size,"
			       " is_private, blob_hash, state, attempts, next_attempt, last_error)"
			       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
			       " ON CONFLICT (id) DO UPDATE SET blob_hash = coalesce(excluded.blob_hash,"
			       " blob_hash), state = excluded.state, attempts = attempts + 1,"
			       " next_attempt = excluded.next_attempt, last_error = excluded.last_error",
			       err)))
		return s;
	sqlite3_bind_int64(st, 1, a->id);
	sqlite3_bind_int64(st, 2, a->bug_id);
	sqlite3_bind_text(st, 3, a->file_name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, a->content_type, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)a->size);
	sqlite3_bind_int(st, 6, a->is_private);
	if (hash && *hash)
		sqlite3_bind_text(st, 7, hash, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 7);
	sqlite3_bind_text(st, 8, hash && *hash ? "stored" : a->is_private ? "skipped" : "failed",
			  -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 9, 1);
	sqlite3_bind_int64(st, 10, next_attempt);
	if (error)
		sqlite3_bind_text(st, 11, error, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 11);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "recording an attachment");
	sqlite3_finalize(st);
	return s;
}

/* Downloads an attachment into the blob store (outside any transaction:
 * the store is content-addressed, so a repeat after a crash is harmless). */
static enum bb_status att_download(struct sync_context *sc, const struct bz_attachment *a,
				   char hash[BLOB_HEX_LEN + 1], struct bb_error *err)
{
	struct blob_writer *w = NULL;
	struct blob_origin origin;
	struct blob_info info;
	struct att_sink sink;
	char ref[64];
	uint64_t size = 0;
	enum bb_status s;

	if (!sc->bz)
		return bb_error_set(err, BB_ERR_UNSUPPORTED, "no Bugzilla to download from");
	if (a->size > sc->cfg->bz_attachment_max_size)
		return bb_error_set(err, BB_ERR_TOO_LARGE,
				    "attachment %lld is larger than attachment_max_size", a->id);
	if ((s = blob_writer_open(sc->blobs, sc->cfg->bz_attachment_max_size, &w, err)))
		return s;
	sink.w = w;
	s = bz_download_attachment(sc->bz, a->id, sc->cfg->bz_attachment_max_size,
				   att_sink_write, &sink, &size, err);
	if (!s && a->size && size != a->size)
		s = bb_error_set(err, BB_ERR_PROTOCOL,
				 "attachment %lld: got %llu bytes, Bugzilla says %llu", a->id,
				 (unsigned long long)size, (unsigned long long)a->size);
	if (s) {
		blob_writer_abort(w);
		return s;
	}
	snprintf(ref, sizeof(ref), "%lld", a->id);
	origin.name = a->file_name;
	origin.declared_type = a->content_type;
	origin.origin = "bugzilla-attachment";
	origin.origin_ref = ref;
	if ((s = blob_writer_commit(w, &origin, &info, err)))
		return s;
	snprintf(ref, sizeof(ref), "bug:%lld/attachment:%lld", a->bug_id, a->id);
	if ((s = blob_add_ref(sc->blobs, info.hash, "bug-attachment", ref, err)))
		return s;
	memcpy(hash, info.hash, BLOB_HEX_LEN + 1);
	return BB_OK;
}

enum bb_status sync_store_attachment_data(struct sync_context *sc,
					  const struct bz_attachment *a, const void *data,
					  size_t len, struct bb_error *err)
{
	struct blob_origin origin;
	struct blob_info info;
	char ref[64];
	enum bb_status s;

	snprintf(ref, sizeof(ref), "%lld", a->id);
	origin.name = a->file_name;
	origin.declared_type = a->content_type;
	origin.origin = "bugzilla-attachment";
	origin.origin_ref = ref;
	if ((s = blob_put_memory(sc->blobs, data, len, &origin, &info, err)))
		return s;
	snprintf(ref, sizeof(ref), "bug:%lld/attachment:%lld", a->bug_id, a->id);
	if ((s = blob_add_ref(sc->blobs, info.hash, "bug-attachment", ref, err)))
		return s;
	return att_record(sc->db, a, info.hash, NULL, 0, err);
}

static enum bb_status summarise_member(void *ctx, const struct inspect_member *m)
{
	struct buf *b = ctx;

	if (m->depth != 1 || strcmp(m->kind, "file"))
		return BB_OK;
	if (b->len > 200) {
		if (!strstr(b->data, ", …"))
			buf_addstr(b, ", …");
		return BB_OK;
	}
	buf_addf(b, "%s%s", b->len ? ", " : "", m->path);
	return BB_OK;
}

void sync_attachment_view(struct blob_store *bs, unsigned long long inline_limit,
			  const struct bz_attachment *a, const char *hash, const char *note,
			  struct attachment_view *v, struct mail_attachment *ma)
{
	struct blob_info info;

	memset(v, 0, sizeof(*v));
	memset(ma, 0, sizeof(*ma));
	ma->att = a;
	if (!hash || !*hash) {
		v->note = strdup(note ? note : "not stored");
		ma->note = v->note;
		return;
	}
	snprintf(v->hash, sizeof(v->hash), "%s", hash);
	if (blob_lookup(bs, v->hash, &info, NULL) == BB_OK) {
		snprintf(v->detected, sizeof(v->detected), "%s", info.content_type);
		if (info.archive_status != INSPECT_NOT_ARCHIVE) {
			struct buf b = BUF_INIT;

			blob_each_member(bs, v->hash, summarise_member, &b, NULL);
			v->archive_summary = str_printf("%s archive%s%s%s%s", info.archive_format,
							b.len ? ": " : "", b.len ? b.data : "",
							info.archive_note[0] ? "; " : "",
							info.archive_note);
			buf_release(&b);
		}
		if (inline_limit && info.size <= inline_limit &&
		    !strncmp(info.content_type, "text/", 5)) {
			int fd;

			if (blob_open(bs, v->hash, &fd, NULL, NULL) == BB_OK) {
				char *text = calloc(1, (size_t)info.size + 1);

				if (text && fs_read_full(fd, text, (size_t)info.size) ==
						    (ssize_t)info.size && !memchr(text, 0, info.size))
					v->inline_text = text;
				else
					free(text);
				close(fd);
			}
		}
	}
	v->url = blob_url(bs, v->hash, a->file_name);
	ma->hash = v->hash;
	ma->url = v->url;
	ma->detected_type = v->detected[0] ? v->detected : NULL;
	ma->archive_summary = v->archive_summary;
	ma->inline_text = v->inline_text;
}

void sync_attachment_view_release(struct attachment_view *v)
{
	free(v->url);
	free(v->note);
	free(v->archive_summary);
	free(v->inline_text);
	memset(v, 0, sizeof(*v));
}

void sync_att_describe(struct sync_context *sc, const struct bz_attachment *a,
		       struct attachment_view *v, struct mail_attachment *ma)
{
	char hash[BLOB_HEX_LEN + 1], *last_error = NULL, *note = NULL;
	int attempts = 0;

	if (sync_att_lookup(sc->db, a->id, hash, &attempts, &last_error) || !hash[0]) {
		note = str_printf("not stored yet (%s); bugbridge retries and the "
				  "attachment stays at Bugzilla",
				  last_error ? last_error : sc->dry_run ? "dry run" : "pending");
		hash[0] = '\0';
	}
	sync_attachment_view(sc->blobs, sc->cfg->mail_inline_limit, a, hash, note, v, ma);
	free(note);
	free(last_error);
}

/* ------------------------------------------------------------- a round */

/* When to try a failed download again after attempts earlier tries. */
static long long att_next_attempt(struct sync_context *sc, time_t now, int attempts)
{
	long long wait = (long long)sc->cfg->retry_min << (attempts < 10 ? attempts : 10);

	if (wait > (long long)sc->cfg->retry_max)
		wait = (long long)sc->cfg->retry_max;
	return (long long)now + wait;
}

enum bb_status sync_attachments_store(struct sync_context *sc, struct bz_bug *bugs, size_t n,
				      time_t now, struct sync_stats *stats, struct bb_error *err)
{
	enum bb_status s = BB_OK;

	if ((s = store_begin(sc->db, err)))
		return s;
	for (size_t i = 0; i < n && !s; i++) {
		for (size_t k = 0; k < bugs[i].nattachments && !s; k++) {
			const struct bz_attachment *a = &bugs[i].attachments[k];
			char hash[BLOB_HEX_LEN + 1], *last_error = NULL;
			struct bb_error derr = BB_ERROR_INIT;
			int attempts = 0;
			long long next;

			/* stored, private, or failed before: a failed one is
			 * the retry pass's, which mails it once stored */
			if (sync_att_lookup(sc->db, a->id, hash, &attempts, &last_error) == BB_OK) {
				free(last_error);
				continue;
			}
			if (a->is_private) {
				s = att_record(sc->db, a, NULL, "private", 0, err);
				continue;
			}
			if (att_download(sc, a, hash, &derr) == BB_OK) {
				stats->attachments_stored++;
				s = att_record(sc->db, a, hash, NULL, 0, err);
				continue;
			}
			stats->attachments_failed++;
			next = att_next_attempt(sc, now, attempts);
			log_event(LOG_LEVEL_WARN, "sync.attachment_failed", LF_INT("bug", a->bug_id),
				  LF_INT("attachment", a->id), LF_STR("error", derr.message));
			s = att_record(sc->db, a, NULL, derr.message, next, err);
		}
	}
	if (s) {
		store_rollback(sc->db);
		return s;
	}
	return store_commit(sc->db, err);
}

/* Queues the mail saying that attachment a, whose first download failed,
 * is stored now, in the thread of its bug. */
static enum bb_status mail_stored_attachment(struct sync_context *sc, const struct bz_attachment *a,
					     struct sync_stats *stats, struct bb_error *err)
{
	struct bz_bug bug;
	struct route_result route = { NULL, NULL, NULL };
	struct attachment_view state;
	struct mail_attachment ma;
	struct mail_options mopt;
	struct mail_message m = { NULL, NULL, 0 };
	char *root = NULL, *sender = NULL, **rcpt = NULL;
	enum bb_status s;

	memset(&state, 0, sizeof(state));
	if ((s = sync_load_bug(sc, a->bug_id, 1, &bug, err))) {
		if (s == BB_ERR_NOT_FOUND) {
			bb_error_clear(err);
			return BB_OK; /* no longer mirrored: nobody to tell */
		}
		return s;
	}
	if ((s = router_route(sc->router, &bug, &route, err))) {
		if (s == BB_ERR_NOT_FOUND) {
			bb_error_clear(err);
			s = BB_OK;
		}
		goto out;
	}
	if ((s = follow_route(sc, &bug, &route, 0, err)))
		goto out;
	sync_att_describe(sc, a, &state, &ma);
	sync_mail_options(sc->cfg, &mopt);
	mopt.mark_key = sync_mark_key(sc);
	root = sync_comment_message_id(sc->db, bug.id, 0);
	if (!root)
		root = mail_message_id(sc->cfg->mail_domain, bug.id, 0);
	rcpt = route_envelope(&route, NULL);
	sender = mnt_address(sc->cfg->mail_from);
	if (!root || !rcpt || !sender) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = mail_compose_attachment(&mopt, &bug, &ma, route.to, route.cc, root, &m, err)))
		goto out;
	if (!sc->dry_run &&
	    (s = outbox_add(sc->db, m.message_id, bug.id, 0, sender, rcpt, m.text, m.len, err)))
		goto out;
	stats->mails_queued++;
	if (sc->on_mail)
		sc->on_mail(sc->on_mail_ctx, bug.id, m.message_id, bug.summary);
out:
	mail_message_release(&m);
	sync_attachment_view_release(&state);
	route_envelope_free(rcpt);
	free(sender);
	free(root);
	route_result_release(&route);
	bz_bug_release(&bug);
	return s;
}

enum bb_status sync_attachments_retry(struct sync_context *sc, time_t now, struct sync_stats *stats,
				      struct bb_error *err)
{
	struct bz_attachment due[100];
	int attempts[100];
	size_t ndue = 0;
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st,
			       "SELECT a.id, a.bug_id, a.file_name, a.content_type, a.size, a.attempts"
			       " FROM bz_attachment a JOIN bz_bug b ON b.id = a.bug_id"
			       " WHERE a.state = 'failed' AND a.next_attempt <= ? AND a.is_private = 0"
			       " AND " BZ_BUG_PUBLIC_SQL_AS("b.") " ORDER BY a.id LIMIT 100", err)))
		return s;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)now);
	while (ndue < 100 && sqlite3_step(st) == SQLITE_ROW) {
		struct bz_attachment *a = &due[ndue];

		memset(a, 0, sizeof(*a));
		a->id = sqlite3_column_int64(st, 0);
		a->bug_id = sqlite3_column_int64(st, 1);
		a->file_name = strdup((const char *)sqlite3_column_text(st, 2));
		a->content_type = strdup((const char *)sqlite3_column_text(st, 3));
		a->size = (uint64_t)sqlite3_column_int64(st, 4);
		a->summary = strdup("");
		a->creator.login = strdup("");
		a->creator.real_name = strdup("");
		attempts[ndue] = sqlite3_column_int(st, 5);
		ndue++;
		if (!a->file_name || !a->content_type || !a->summary || !a->creator.login ||
		    !a->creator.real_name) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			break;
		}
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < ndue && !s; i++) {
		const struct bz_attachment *a = &due[i];
		struct bb_error derr = BB_ERROR_INIT;
		char hash[BLOB_HEX_LEN + 1];

		if (att_download(sc, a, hash, &derr) == BB_OK) {
			stats->attachments_stored++;
			log_event(LOG_LEVEL_INFO, "sync.attachment_retried", LF_INT("bug", a->bug_id),
				  LF_INT("attachment", a->id), LF_STR("sha256", hash));
			if ((s = store_begin(sc->db, err)))
				break;
			if (!(s = att_record(sc->db, a, hash, NULL, 0, err)))
				s = mail_stored_attachment(sc, a, stats, err);
			if (s || sc->dry_run)
				store_rollback(sc->db);
			else
				s = store_commit(sc->db, err);
			test_hook("sync.attachment_retried");
			continue;
		}
		stats->attachments_failed++;
		log_event(LOG_LEVEL_WARN, "sync.attachment_failed", LF_INT("bug", a->bug_id),
			  LF_INT("attachment", a->id), LF_INT("attempts", attempts[i] + 1),
			  LF_STR("error", derr.message));
		if (!sc->dry_run)
			s = att_record(sc->db, a, NULL, derr.message,
				       att_next_attempt(sc, now, attempts[i]), err);
	}
	for (size_t i = 0; i < ndue; i++) {
		free(due[i].file_name);
		free(due[i].content_type);
		free(due[i].summary);
		free(due[i].creator.login);
		free(due[i].creator.real_name);
	}
	return s;
}
