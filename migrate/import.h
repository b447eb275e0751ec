/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Folder migrate/: moving off Bugzilla: import (this header) and export
 * (export.h).  It may use bridge/ and every folder below it.
 *
 * Migration off Bugzilla: a whole instance into the store (bugbridge import).
 *
 * Two sources, one result in the imp_* tables (core/store.c, schema 5) and
 * the blob store:
 *  - REST (import_rest): every bug the account can see, paged by id in
 *    batches (bz_search_page), with comments, attachment metadata and
 *    history fetched in batched requests; attachments are streamed one by
 *    one into the blob store and checked against the size Bugzilla reports.
 *    Without an API key only public data comes; with an insider's key
 *    private comments and attachments come too and stay marked private.
 *  - XML exports (import_xml): one file with one or more <bug>, or a folder
 *    walked in name order (files ending in .xml, sub-folders included);
 *    attachment data in the export goes into the blob store.
 *
 * Each batch of bugs is one SQLite transaction that also moves the cursor
 * (cursor table, source "import:<url>" or "import:xml:<path>"), so an
 * interrupted import resumes where it stopped.  A bug whose
 * last_change_time is what the store has, and that is complete, is not
 * written again (unless an import before schema 9 wrote it, without its
 * dependencies, blocks, aliases, QA contact, target milestone, OS and
 * platform): importing twice changes nothing in the imp_* tables, and
 * a REST import after a whole pass reads only bugs changed since that pass
 * began (with one second of overlap).  Memory follows the batch size, not
 * the instance.
 *
 * What is left out is recorded in imp_skip with the reason (a bug the
 * export did not find, an unreadable file, an attachment whose size does
 * not match, is too large or cannot be downloaded), once per reason.
 *
 * Comments without a Bugzilla id (very old XML exports) are stored under a
 * negative id made from the bug id and the comment's number, stable across
 * imports.
 *
 * The test hook "import.batch" (core/fsutil.h) is reached after each
 * committed batch.
 */
#ifndef BB_IMPORT_H
#define BB_IMPORT_H

#include <stdint.h>

#include "attachments/blob.h"
#include "bugzilla/bz_client.h"
#include "core/status.h"
#include "core/store.h"

struct import_stats {
	unsigned long bugs_seen;        /* bugs read from the source */
	unsigned long bugs_written;     /* new or changed, written */
	unsigned long bugs_unchanged;   /* already in the store as they are */
	unsigned long comments;         /* of the bugs written */
	unsigned long private_comments; /* of those, private */
	unsigned long attachments;      /* of the bugs written */
	unsigned long attachments_stored; /* bytes downloaded or decoded this run */
	unsigned long attachments_private; /* of those, into the private store */
	unsigned long attachments_hash_only; /* private bytes hashed, not kept */
	unsigned long blobs_unpublished; /* private bytes taken out of the served store */
	unsigned long history;          /* history changes of the bugs written */
	unsigned long skipped;          /* imp_skip records made this run */
	unsigned long files;            /* XML files read */
	unsigned long long progress_done, progress_total; /* bug ids (REST), files (XML) */
	int resumed;                    /* went on from an interrupted import */
	int incremental;                /* REST: only bugs changed since the last pass */
};

typedef void (*import_progress_fn)(void *ctx, const struct import_stats *st);

struct import_options {
	unsigned batch;                 /* bugs per transaction (0: 100) */
	uint64_t attachment_max_size;   /* 0: no limit */
	/* The private store (blob_private_open()), or NULL.  The bytes of
	 * private attachments and of attachments of bugs in groups never go
	 * into the served store: with include_private they are kept here,
	 * else only their SHA-256 is recorded (state "hash-only").  Private
	 * bytes an older import left in the served store are moved here
	 * (dropped when this is NULL) once nothing public references them. */
	struct blob_store *private_blobs;
	int include_private;
	import_progress_fn progress;    /* after each batch or file; may be NULL */
	void *progress_ctx;
};

/* Imports from the Bugzilla behind c; source is its URL as recorded in
 * imp_bug.source and in the cursor.  Failures of the server (temporary,
 * auth) stop the import with their status; what was committed stays and a
 * later call resumes.  st is filled as far as the import went. */
enum bb_status import_rest(struct store *db, struct blob_store *blobs, struct bz_client *c,
			   const char *source, const struct import_options *opt,
			   struct import_stats *st, struct bb_error *err);

/* Imports an export file or a folder of them.  A file that is not an
 * export, or not readable, is recorded as skipped and the walk goes on.
 * BB_ERR_NOT_FOUND if path does not exist. */
enum bb_status import_xml(struct store *db, struct blob_store *blobs, const char *path,
			  const struct import_options *opt, struct import_stats *st,
			  struct bb_error *err);

/* The source name import_xml() records for path ("xml:" and its real path,
 * malloc'd), for import_each_skip(); NULL when out of memory or path does
 * not exist. */
char *import_xml_source(const char *path);

/* Each imp_skip record whose source is source or starts with it, oldest
 * first; strings are valid during the call.  fn's non-OK return stops. */
struct import_skip {
	const char *source;
	long long bug_id;
	const char *what;   /* bug, comment, attachment, file */
	const char *ref;
	const char *reason;
};
enum bb_status import_each_skip(struct store *db, const char *source,
				enum bb_status (*fn)(void *ctx, const struct import_skip *s),
				void *ctx, struct bb_error *err);

#endif
