/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mbox file reader of list archives (archive.h), for archive.c's
 * dispatch: reads a local mbox file (mboxrd, appended to by an MTA, never
 * modified), read from the cursor's byte offset once a hash of the bytes
 * before it still matches, else again from the start (archive.h).  The same
 * file holds the mbox splitter (archive_mbox_new() and the rest,
 * archive.h).
 */
#ifndef BB_ARCHIVE_MBOX_H
#define BB_ARCHIVE_MBOX_H

#include "core/status.h"
#include "mail/archive.h"

struct archive_source;

/* archive_poll() of a source of this kind (tail = 0): every message after
 * cursor (NULL: from the start) to fn, oldest first, *next_cursor set as
 * archive_poll() says; and archive_tail() (tail = 1, fn reads no message):
 * the cursor at the archive's current end in *next_cursor. */
enum bb_status archive_poll_mbox(struct archive_source *src, const char *cursor,
				 archive_message_fn fn, void *ctx, int tail, char **next_cursor,
				 struct bb_error *err);

#endif
