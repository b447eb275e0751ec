/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The quarantine: where the attachments of a report wait until the filer
 * confirms it (the front door's form, web/frontdoor.h, and the submit box's
 * mails from senders not authenticated, bridge/submit.h).
 *
 *   <data_dir>/quarantine/tmp/upload-XXXXXX   a file being received
 *   <data_dir>/quarantine/<report>/<seq>      an attachment of a stored,
 *                                             not yet confirmed report
 *
 * No HTTP route serves this tree and nothing in it enters the public blob
 * store (so it is neither served nor deduplicated with public blobs) until
 * quarantine_publish() copies it there on confirmation.  A refused form
 * leaves nothing: its files are removed as soon as it is refused.  The
 * folder is created with FS_PRIVATE_DIR_MODE.
 *
 * Thread safety: a quarantine may be used from several threads; a writer
 * belongs to one request at a time.
 */
#ifndef BB_QUARANTINE_H
#define BB_QUARANTINE_H

#include <stdint.h>
#include <time.h>

#include "attachments/blob.h"
#include "core/status.h"

struct quarantine;
struct quarantine_writer;

/* A received file: its hash, its size and where it lies (malloc'd). */
struct quarantine_file {
	char hash[BLOB_HEX_LEN + 1];
	uint64_t size;
	char *path;
};

/* Opens (creating) the quarantine folder root.  Free with
 * quarantine_close(). */
enum bb_status quarantine_open(struct quarantine **out, const char *root, struct bb_error *err);
void quarantine_close(struct quarantine *q);

/* A writer streaming one upload into a temporary file, hashing it on the
 * way.  max_size (0: none) makes a write that would pass it fail with
 * BB_ERR_TOO_LARGE; a full disk is BB_ERR_NO_SPACE.  Ended by exactly one
 * of quarantine_writer_finish() or quarantine_writer_abort(), which free
 * it.  err messages name paths: they are for the log, not for pages. */
enum bb_status quarantine_writer_open(struct quarantine *q, uint64_t max_size,
				      struct quarantine_writer **out, struct bb_error *err);
enum bb_status quarantine_writer_write(struct quarantine_writer *w, const void *data,
				       size_t len, struct bb_error *err);
uint64_t quarantine_writer_size(const struct quarantine_writer *w);
/* Flushes the file to disk and fills *file (release with
 * quarantine_file_discard() or quarantine_adopt()). */
enum bb_status quarantine_writer_finish(struct quarantine_writer *w,
					struct quarantine_file *file, struct bb_error *err);
void quarantine_writer_abort(struct quarantine_writer *w);

/* Removes a received file that no report took and frees file->path. */
void quarantine_file_discard(struct quarantine_file *file);

/* Moves a received file to attachment seq of report (file->path is then
 * updated to the new place). */
enum bb_status quarantine_adopt(struct quarantine *q, struct quarantine_file *file,
				long long report, unsigned seq, struct bb_error *err);

/* Copies attachment seq of report into the public blob store under origin
 * and fills *info.  BB_ERR_NOT_FOUND when the quarantine no longer holds it
 * (published already, or removed); BB_ERR_INVALID when its bytes no longer
 * hash to expected_hash. */
enum bb_status quarantine_publish(struct quarantine *q, long long report, unsigned seq,
				  const char *expected_hash, struct blob_store *bs,
				  const struct blob_origin *origin, struct blob_info *info,
				  struct bb_error *err);

/* Removes every attachment of report (nothing to remove is BB_OK). */
enum bb_status quarantine_remove_report(struct quarantine *q, long long report,
					struct bb_error *err);

/* Removes temporary files last changed before cutoff (left by a crash). */
void quarantine_remove_stale(struct quarantine *q, time_t cutoff);

#endif
