/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Atom reader of list archives (archive.h), for archive.c's dispatch:
 * reads an Atom source: <url>/new.atom, each new entry's message read from
 * <url>/<msgid>/raw; the cursor is the set of short hashes of the entries
 * handled that are still in the feed (archive.h).  The same file holds the
 * Atom parser, archive_gunzip() and archive_fetch_thread() (archive.h),
 * which any HTTP source may call.
 */
#ifndef BB_ARCHIVE_ATOM_H
#define BB_ARCHIVE_ATOM_H

#include "core/status.h"
#include "mail/archive.h"

struct archive_source;

/* archive_poll() of a source of this kind (tail = 0): every message after
 * cursor (NULL: from the start) to fn, oldest first, *next_cursor set as
 * archive_poll() says; and archive_tail() (tail = 1, fn reads no message):
 * the cursor at the archive's current end in *next_cursor. */
enum bb_status archive_poll_atom(struct archive_source *src, const char *cursor,
				 archive_message_fn fn, void *ctx, int tail, char **next_cursor,
				 struct bb_error *err);

#endif
