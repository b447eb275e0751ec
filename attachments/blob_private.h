/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The private blob store (blob_private.c); blob.h includes it: the rest of
 * the program includes blob.h alone. */
#ifndef BB_BLOB_PRIVATE_H
#define BB_BLOB_PRIVATE_H

#include "core/status.h"

struct blob_options;
struct blob_store;
struct store;

/* Bytes that must never be served (private attachments, attachments of
 * bugs restricted to groups) live in a private store: the same layout
 * under <data_dir>/private-blobs, with its own metadata in
 * <data_dir>/private-blobs/blobs.db.  No HTTP route reads it, and its
 * folder is created 0750 (narrowed to that if it is wider). */

/* Opens the private store at root, with like's limits (its root and base
 * URL are ignored).  Close both with blob_private_close(). */
enum bb_status blob_private_open(struct blob_store **out, struct store **db_out,
				 const char *root, const struct blob_options *like,
				 struct bb_error *err);
void blob_private_close(struct blob_store *bs, struct store *db);

/* Takes the blob hex out of the served store bs when nothing references it
 * any more (drop your own references first with blob_remove_ref()): its
 * bytes and names go to dest (the private store; NULL: they are dropped),
 * then its metadata and file leave bs, so that every route answers 404;
 * archive members that only it kept follow it.  *moved is 1 when it left,
 * 0 when a reference remains or bs does not hold it. */
enum bb_status blob_unpublish(struct blob_store *bs, struct blob_store *dest, const char *hex,
			      int *moved, struct bb_error *err);

#endif
