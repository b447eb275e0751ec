/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the private store (blob_private.c) asks of the blob store's own
 * file, blob.c: the database that holds a store's rows, the lock that
 * guards it (and its magic), and a blob's name recorded.  Included by
 * those two files only; the rest of the program includes blob.h. */
#ifndef BB_BLOB_ROWS_H
#define BB_BLOB_ROWS_H

#include <time.h>

#include "attachments/blob.h"
#include "core/status.h"
#include "core/store.h"

/* The store's database. */
struct store *blob_store_db(struct blob_store *bs);
/* Takes and gives back the lock over the store's database. */
void blob_store_lock(struct blob_store *bs);
void blob_store_unlock(struct blob_store *bs);
/* Records a name of blob hex (origin o, at now), once; under the lock. */
enum bb_status blob_name_insert(struct blob_store *bs, const char *hex,
				const struct blob_origin *o, time_t now, struct bb_error *err);

#endif
