/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bugzilla's XML export (show_bug.cgi?ctype=xml), read with libxml2.
 *
 * The reader loads no external entity, no DTD and touches no network or
 * file (XML_PARSE_NONET, no XML_PARSE_DTDLOAD/NOENT); a DOCTYPE is ignored.
 * It needs no API key and is the import path for migration.  Input with
 * NUL bytes or undeclared Latin-1 is repaired, not refused; a bug the
 * server did not find (<bug error="NotFound">) is reported through
 * not_found, not as an error.  Attachment data (base64) is handed to a
 * sink when present, else skipped.
 */
#ifndef BB_BZ_XML_H
#define BB_BZ_XML_H

#include <stddef.h>

#include "bugzilla/bug.h"
#include "core/status.h"

struct bz_xml_callbacks {
	void *ctx;
	/* Each complete bug (with comments and attachment metadata); the
	 * callee owns it (bz_bug_free()).  A non-OK return stops the read. */
	enum bb_status (*bug)(void *ctx, struct bz_bug *bug);
	/* A bug the export says it could not give ("NotFound", "NotPermitted"). */
	enum bb_status (*not_found)(void *ctx, long long id, const char *error);
	/* Decoded attachment bytes, if the export carries them; may be NULL
	 * (the data is then skipped).  Called with consecutive chunks of one
	 * attachment's bytes as its base64 is decoded, then once with data
	 * NULL and len 0 when they are complete.  If the base64 turns out to
	 * be broken, that final call does not come: discard what arrived.
	 * These calls come before the bug callback of their bug, whose
	 * attachment metadata (size, ...) they can be checked against. */
	enum bb_status (*attachment_data)(void *ctx, long long bug_id, long long attachment_id,
					  const void *data, size_t len);
	/* May be NULL.  Called before an attachment's first attachment_data
	 * call, with is_public 0 when its bytes must not be published: the
	 * attachment is private, or its bug is in a group (bz_bug_is_public();
	 * Bugzilla writes <group> before <attachment>). */
	enum bb_status (*attachment_begin)(void *ctx, long long bug_id, long long attachment_id,
					   int is_public);
};

/* Reads an export from memory or from a file.  Returns BB_ERR_INVALID
 * with a message (line number included) for input that is not a Bugzilla
 * export at all, or that is not well-formed past what repair can do (a
 * truncated file): the bugs before the fault have been delivered.  A
 * callback's failure stops the read and is returned.  Memory use follows
 * the largest bug, not the export (SAX, read in 64 KiB slices).
 *
 * Repairs: NULs and other control characters XML forbids (raw or as
 * &#N; references) become U+FFFD; an export that declares no encoding
 * keeps its valid UTF-8 and reads other bytes as Windows-1252 (Bugzilla
 * 3 wrote Latin-1 there); one declared UTF-8 gets U+FFFD for bad bytes.
 * Times in the older "2003-07-03 12:26 EDT" form are read too.  Comments
 * without <comment_count> are numbered in order; without <commentid>
 * their id is 0.  A <bug> with no usable <bug_id> goes to not_found with
 * its error attribute or "MissingBugId" (id 0). */
enum bb_status bz_xml_read_memory(const char *data, size_t len,
				  const struct bz_xml_callbacks *cb, struct bb_error *err);
enum bb_status bz_xml_read_file(const char *path, const struct bz_xml_callbacks *cb,
				struct bb_error *err);

#endif
