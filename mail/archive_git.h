/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The public-inbox reader of list archives (archive.h), for archive.c's
 * dispatch: v2 inboxes' git epochs (and a local v1 inbox) mirrored with the
 * real `git` program into the source's state folder, or read in place, and
 * their commits walked oldest first through one `git cat-file --batch`.
 * The cursor is "git:<epoch>:<commit>" (archive.h).
 */
#ifndef BB_ARCHIVE_GIT_H
#define BB_ARCHIVE_GIT_H

#include "core/status.h"
#include "mail/archive.h"

struct archive_source;

/* archive_poll() of a public-inbox source: fetches the newest epoch (a
 * remote inbox; probing for a new one when nothing is new, at most every
 * epoch_probe_interval seconds) and hands every message after cursor (NULL:
 * from the start) to fn, oldest first; *next_cursor as archive_poll()
 * says.  One poll of a state folder runs at a time (BB_ERR_BUSY). */
enum bb_status archive_poll_public_inbox(struct archive_source *src, const char *cursor,
					 archive_message_fn fn, void *ctx, char **next_cursor,
					 struct bb_error *err);
/* archive_tail() of a public-inbox source: mirrors only the newest epoch
 * and puts the cursor at its head in *cursor (malloc'd). */
enum bb_status archive_tail_public_inbox(struct archive_source *src, char **cursor,
					 struct bb_error *err);

#endif
