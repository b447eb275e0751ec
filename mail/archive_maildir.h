/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Maildir reader of list archives (archive.h), for archive.c's
 * dispatch: reads a local Maildir (new/ and cur/, never modified), messages
 * in order of (mtime, unique name) behind a horizon that trails the newest
 * mtime by ARCHIVE_MAILDIR_SLACK seconds (archive.h).
 */
#ifndef BB_ARCHIVE_MAILDIR_H
#define BB_ARCHIVE_MAILDIR_H

#include "core/status.h"
#include "mail/archive.h"

struct archive_source;

/* archive_poll() of a source of this kind (tail = 0): every message after
 * cursor (NULL: from the start) to fn, oldest first, *next_cursor set as
 * archive_poll() says; and archive_tail() (tail = 1, fn reads no message):
 * the cursor at the archive's current end in *next_cursor. */
enum bb_status archive_poll_maildir(struct archive_source *src, const char *cursor,
				    archive_message_fn fn, void *ctx, int tail, char **next_cursor,
				    struct bb_error *err);

#endif
