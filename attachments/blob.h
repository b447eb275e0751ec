/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Folder attachments/: the content-addressed blob store and archive inspection
 * (libarchive).  It may use config/ and core/; it knows nothing of
 * Bugzilla, mail, the tracker or the server.
 *
 * The content-addressed blob store.
 *
 * A blob is an immutable file named by the SHA-256 of its bytes:
 *   <root>/sha256/ab/cdef…   (root is <data_dir>/blobs)
 * Any static web server can serve that tree.  New content is streamed in
 * fixed-size chunks into an unnamed temporary file in <root>/tmp (O_TMPFILE;
 * a named one where the file system lacks it), fsynced, then linked (or
 * renamed) into place, and the folder fsynced.  A process killed while
 * writing leaves no blob; since the file is in place before its metadata
 * is committed, a crash never leaves metadata without a file.
 *
 * SQLite (core/store.h) keeps, per blob: size, content type (from the bytes,
 * by libmagic; never from the uploader alone), first and last time stored,
 * and every name it was stored under with the uploader's declared type and
 * its origin (upload, bugzilla-attachment, mail-part, archive-member, …).
 * Archives are inspected when first stored (attachments/inspect.h) and their
 * member listing kept.
 *
 * Thread safety: one blob_store may be used from several threads; its
 * database and libmagic handles are behind a mutex.
 */
#ifndef BB_BLOB_H
#define BB_BLOB_H

#include <stdint.h>
#include <time.h>

#include "attachments/inspect.h"
#include "core/status.h"
#include "core/store.h"

#define BLOB_HEX_LEN 64
#define BLOB_CHUNK_SIZE (1024 * 1024)

struct blob_store;
struct blob_writer;

struct blob_options {
	const char *root;          /* <data_dir>/blobs */
	const char *base_url;      /* public prefix for blob URLs, no trailing slash */
	struct inspect_limits limits;
	int store_members;         /* store archive members as blobs too */
	int read_only;             /* create no folders (read-only commands) */
};

/* Where a name of a blob came from.  Strings are copied. */
struct blob_origin {
	const char *name;          /* file name as given ("" if none) */
	const char *declared_type; /* content type the uploader claimed ("" if none) */
	const char *origin;        /* "upload", "bugzilla-attachment", "mail-part", ... */
	const char *origin_ref;    /* attachment id, Message-ID, ... ("" if none) */
};

struct blob_info {
	char hash[BLOB_HEX_LEN + 1];
	uint64_t size;
	char content_type[128];
	time_t first_seen;
	time_t last_seen;
	int already_stored;        /* put: the content was there before (nothing written) */
	enum inspect_status archive_status;
	char archive_format[64];
	char archive_note[256];
};

/* Progress of long operations: done and total bytes (total 0 if unknown). */
typedef void (*blob_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Opens the store under opt->root (created if missing), recording metadata
 * in db (not owned; must outlive the store). */
enum bb_status blob_store_open(struct blob_store **out, const struct blob_options *opt,
			       struct store *db, struct bb_error *err);
void blob_store_close(struct blob_store *bs);

/* --- hashes, paths, URLs --- */

/* Accepts "sha256:<hex>" or "<hex>" (any case) and writes the 64 lowercase
 * hex digits to out.  BB_ERR_INVALID for anything else. */
enum bb_status blob_parse_hash(const char *text, char out[BLOB_HEX_LEN + 1],
			       struct bb_error *err);
/* Like blob_parse_hash(), but also takes a unique prefix of at least
 * BLOB_PREFIX_MIN hex digits (as git takes abbreviated object names),
 * looked up among the stored blobs: BB_ERR_NOT_FOUND when none starts so,
 * BB_ERR_INVALID (naming two) when more than one does. */
#define BLOB_PREFIX_MIN 7
enum bb_status blob_resolve(struct blob_store *bs, const char *text, char out[BLOB_HEX_LEN + 1],
			    struct bb_error *err);
/* Path of the blob file (free() it); hex must be valid. */
char *blob_path(const struct blob_store *bs, const char *hex);
/* URL of the blob (free() it), with name percent-encoded if not NULL/"". */
char *blob_url(const struct blob_store *bs, const char *hex, const char *name);

/* --- storing --- */

/* Stores everything readable from fd.  For a regular file whose size no
 * stored blob has, hashing and writing run side by side; if a blob of the
 * same size exists the file is hashed first and nothing is written when the
 * content is already stored.  Pipes are streamed once into a temporary file.
 * progress may be NULL. */
enum bb_status blob_put_fd(struct blob_store *bs, int fd, const struct blob_origin *origin,
			   blob_progress_fn progress, void *progress_ctx,
			   struct blob_info *info, struct bb_error *err);
/* Stores a buffer in memory. */
enum bb_status blob_put_memory(struct blob_store *bs, const void *data, size_t len,
			       const struct blob_origin *origin, struct blob_info *info,
			       struct bb_error *err);

/* Streaming writer for data that arrives in pieces (HTTP uploads, archive
 * members, mail parts).  Either blob_writer_commit() or blob_writer_abort()
 * ends it and frees it.  max_size (0: none) makes a write that would pass
 * it fail with BB_ERR_TOO_LARGE. */
enum bb_status blob_writer_open(struct blob_store *bs, uint64_t max_size,
				struct blob_writer **out, struct bb_error *err);
enum bb_status blob_writer_write(struct blob_writer *w, const void *data, size_t len,
				 struct bb_error *err);
uint64_t blob_writer_size(const struct blob_writer *w);
enum bb_status blob_writer_commit(struct blob_writer *w, const struct blob_origin *origin,
				  struct blob_info *info, struct bb_error *err);
void blob_writer_abort(struct blob_writer *w);

/* --- reading --- */

/* Metadata of one blob; BB_ERR_NOT_FOUND if unknown. */
enum bb_status blob_lookup(struct blob_store *bs, const char *hex, struct blob_info *info,
			   struct bb_error *err);
/* Opens the blob file for reading (close() *fd) and fills info.
 * BB_ERR_NOT_FOUND if unknown or the file is missing. */
enum bb_status blob_open(struct blob_store *bs, const char *hex, int *fd,
			 struct blob_info *info, struct bb_error *err);

struct blob_name {
	const char *name, *declared_type, *origin, *origin_ref;
	time_t added;
};
struct blob_ref {
	const char *kind, *ref;
	time_t created;
};

/* Iterators: the callback returns BB_OK to go on, anything else stops the
 * walk and is returned.  Strings are valid during the call only. */
enum bb_status blob_each(struct blob_store *bs,
			 enum bb_status (*fn)(void *ctx, const struct blob_info *info),
			 void *ctx, struct bb_error *err);
enum bb_status blob_each_name(struct blob_store *bs, const char *hex,
			      enum bb_status (*fn)(void *ctx, const struct blob_name *n),
			      void *ctx, struct bb_error *err);
enum bb_status blob_each_member(struct blob_store *bs, const char *hex,
				enum bb_status (*fn)(void *ctx, const struct inspect_member *m),
				void *ctx, struct bb_error *err);
enum bb_status blob_each_ref(struct blob_store *bs, const char *hex,
			     enum bb_status (*fn)(void *ctx, const struct blob_ref *r),
			     void *ctx, struct bb_error *err);

/* --- references and housekeeping --- */

/* Records that kind/ref uses the blob ("pin"/"" keeps it forever). */
enum bb_status blob_add_ref(struct blob_store *bs, const char *hex, const char *kind,
			    const char *ref, struct bb_error *err);
enum bb_status blob_remove_ref(struct blob_store *bs, const char *hex, const char *kind,
			       const char *ref, struct bb_error *err);

enum blob_check {
	BLOB_CHECK_OK = 0,
	BLOB_CHECK_MISSING,      /* metadata but no file */
	BLOB_CHECK_CORRUPT,      /* file content does not hash to its name */
	BLOB_CHECK_SIZE,         /* file size differs from the recorded size */
	BLOB_CHECK_UNKNOWN,      /* no metadata for this hash */
};
const char *blob_check_str(enum blob_check c);

/* Rehashes one blob's file and compares it with its name and size. */
enum bb_status blob_verify(struct blob_store *bs, const char *hex, enum blob_check *result,
			   blob_progress_fn progress, void *progress_ctx,
			   struct bb_error *err);

struct blob_gc_item {
	const char *hash;        /* NULL for a stray file */
	const char *path;
	uint64_t size;
	const char *reason;      /* "unreferenced", "stray file", "stale temporary file" */
};
struct blob_gc_stats {
	uint64_t blobs, bytes;   /* removed (or, in a dry run, to remove) */
	uint64_t kept_referenced, kept_recent;
};

/* Removes blobs that nothing references and that were last stored at or
 * before now - grace, together with their metadata; then members of removed
 * archives that are left unreferenced; then files in the tree that have no
 * metadata and temporary files, if older than grace.  With dry_run nothing
 * changes.  fn (may be NULL) hears of each item. */
enum bb_status blob_gc(struct blob_store *bs, time_t now, long long grace, int dry_run,
		       void (*fn)(void *ctx, const struct blob_gc_item *item), void *ctx,
		       struct blob_gc_stats *stats, struct bb_error *err);

/* The private store (blob_private.c). */
#include "attachments/blob_private.h"

#endif
