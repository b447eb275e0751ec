/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Archive inspection with libarchive: list what an archive holds, read only.
 *
 * Formats: tar (all variants), zip, cpio, 7z, ar, iso9660 and rar, each
 * optionally compressed with gzip, bzip2, xz/lzma, zstd, lz4, lzip or
 * compress(1); a lone compressed file (log.gz) lists as one member.  cpio
 * is read only from a stream that starts like one, so that every cpio
 * header can be checked before libarchive reads it (inspect.c): a
 * compressed cpio lists as a lone compressed file, its cpio one level
 * below.  Only filters libarchive implements itself are enabled: no
 * external program is ever run on untrusted input.  Nothing is extracted
 * to the file system: member data is only hashed (and, if the caller
 * wants, handed to a sink).
 *
 * Archives inside archives are opened in-stream, up to limits->max_depth
 * levels; their members are reported with paths joined by "!/"
 * ("fw.tar.gz!/inner.zip!/blob.bin") and depth > 1.  The container itself is
 * still reported as a file (hash and size of all its bytes), after its own
 * members.  Formats that must seek (7z, a zip that can only be read from its
 * central directory) cannot be read in-stream: such a member is reported as
 * a plain file with a note.  A nested archive that turns out damaged only
 * gets a note on its container; the outer report stays INSPECT_OK.
 *
 * Limits turn a bomb into a clean "too large" report instead of a hang:
 * member count, total bytes decompressed (all levels together, so a zip in
 * a tar counts both as the tar's member and as the zip's members), and the
 * ratio of that total to the archive's own size (checked only once the total
 * passes 1 MiB).  They are checked while data streams, not per member.  A
 * damaged archive gives a "damaged" report with libarchive's message;
 * members listed before the damage stay listed.
 *
 * Input that starts with a block of 512 zero bytes, which libarchive would
 * take for an empty tar, is read as no archive (a disk image, most likely),
 * or, when compressed, as a lone compressed file (so that a gzip of zeros is
 * seen for the bomb it is).
 *
 * Memory use does not grow with the archive's data: one 64 KiB buffer and
 * one libarchive reader per open level (readers of seekable formats, zip,
 * 7z and iso9660, keep the archive's directory in memory).  Thread safety:
 * calls on different inputs may run in parallel.
 */
#ifndef BB_INSPECT_H
#define BB_INSPECT_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* 0 turns a limit off (max_depth 0 counts as 1; above 16 as 16).  Passing no
 * limits at all (NULL) means 10000 members, 4 GiB, ratio 200, depth 3. */
struct inspect_limits {
	uint64_t max_members;  /* all levels together */
	uint64_t max_total;    /* bytes decompressed, all levels together */
	uint64_t max_ratio;    /* max_total relative to the archive size */
	uint64_t max_depth;    /* 1: do not look into nested archives */
};

enum inspect_status {
	INSPECT_NOT_ARCHIVE = 0, /* no archive format recognised */
	INSPECT_OK,              /* every member listed */
	INSPECT_TOO_LARGE,       /* a limit was hit; the listing is partial */
	INSPECT_DAMAGED,         /* libarchive could not read on; partial */
};

/* A member as reported to the callbacks; strings are valid during the call.
 * A file that could not be read to its end (damage, a limit) is reported
 * with hash NULL, the bytes read so far as size, and a note saying why; an
 * encrypted one with size 0, hash NULL and a note (there is no passphrase). */
struct inspect_member {
	const char *path;     /* as stored, nested paths joined by "!/" */
	unsigned depth;       /* 1 for a direct member */
	const char *kind;     /* "file", "dir", "symlink", "hardlink", "other" */
	uint64_t size;        /* bytes read (for files), else the header's size */
	const char *hash;     /* 64 lowercase hex digits for files (and hard links
			       * that carry the data, as in cpio), else NULL */
	const char *note;     /* NULL, or why the member is incomplete or special */
};

struct inspect_callbacks {
	void *ctx;
	/* Called once per member after its data has been read (so members of
	 * a nested archive come before their container), and for a member that
	 * went to the data sink right after its data_end; may be NULL. */
	enum bb_status (*member)(void *ctx, const struct inspect_member *m);
	/* Optional data sink (e.g. to store each member as a blob): begin is
	 * called before the data of a member that gets a hash (files, see
	 * above) with m->hash == NULL, data for each chunk (at most 64 KiB),
	 * end when it is complete (ok = 1, with m->hash set) or was cut short
	 * (ok = 0).  Every begin that returned BB_OK gets its end, even when
	 * another callback failed.  Only direct members (depth 1) go to the
	 * sink: a nested member's bytes are part of its container's, which the
	 * sink receives whole, so sink calls for two members never interleave.
	 * Any callback may be NULL.  A non-OK status from any of them stops
	 * the inspection and is returned. */
	enum bb_status (*data_begin)(void *ctx, const struct inspect_member *m);
	enum bb_status (*data)(void *ctx, const void *bytes, size_t len);
	enum bb_status (*data_end)(void *ctx, const struct inspect_member *m, int ok);
};

struct inspect_report {
	enum inspect_status status;
	char format[64];      /* libarchive's name of the outer format, "" if none */
	char filters[64];     /* "gzip", "xz", ... or ""; several are comma-joined,
			       * outermost first */
	uint64_t members;     /* members reported, all levels */
	uint64_t total;       /* bytes decompressed, all levels */
	char note[256];       /* for TOO_LARGE and DAMAGED: what happened */
};

const char *inspect_status_str(enum inspect_status st);

/* Inspects the archive in the open file fd (seekable; read from offset 0),
 * whose size is size.  Returns BB_OK with the outcome in *report, even for
 * a damaged or too large archive; an error status only for I/O failures,
 * out of memory, or a callback's failure.  The fd is read with pread(), at
 * most size bytes, and its file offset is left alone.  limits, cb and err
 * may be NULL. */
enum bb_status inspect_fd(int fd, uint64_t size, const struct inspect_limits *limits,
			  const struct inspect_callbacks *cb,
			  struct inspect_report *report, struct bb_error *err);
/* The same on a buffer in memory (for tests and fuzzing). */
enum bb_status inspect_memory(const void *data, size_t size,
			      const struct inspect_limits *limits,
			      const struct inspect_callbacks *cb,
			      struct inspect_report *report, struct bb_error *err);

#endif
