/* Archive inspection with libarchive: list what an archive holds, read only.
 *
 * Formats: tar (all variants), zip, cpio, 7z, ar, iso9660 and rar, each
 * optionally compressed with gzip, bzip2, xz/lzma, zstd, lz4, lzip or
 * compress(1); a lone compressed file (log.gz) lists as one member.  Only
 * filters libarchive implements itself are enabled: no external program is
 * ever run on untrusted input.  Nothing is extracted to the file system:
 * member data is only hashed (and, if the caller wants, handed to a sink).
 *
 * Archives inside archives are opened in-stream, up to limits->max_depth
 * levels; their members are reported with paths joined by "!/"
 * ("fw.tar.gz!/inner.zip!/blob.bin") and depth > 1.
 *
 * Limits turn a bomb into a clean "too large" report instead of a hang:
 * member count, total bytes decompressed (all levels together), and the
 * ratio of that total to the archive's own size.  A damaged archive gives an
 * "error" report with libarchive's message; members listed before the damage
 * stay listed.
 */
#ifndef BB_INSPECT_H
#define BB_INSPECT_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

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

/* A member as reported to the callbacks; strings are valid during the call. */
struct inspect_member {
	const char *path;     /* as stored, nested paths joined by "!/" */
	unsigned depth;       /* 1 for a direct member */
	const char *kind;     /* "file", "dir", "symlink", "hardlink", "other" */
	uint64_t size;        /* bytes read (for files), else the header's size */
	const char *hash;     /* 64 lowercase hex digits for files, NULL otherwise */
	const char *note;     /* NULL, or why the member is incomplete or special */
};

struct inspect_callbacks {
	void *ctx;
	/* Called once per member after its data has been read; may be NULL. */
	enum bb_status (*member)(void *ctx, const struct inspect_member *m);
	/* Optional data sink (e.g. to store each member as a blob): begin is
	 * called before a file member's data with m->hash == NULL, data for each
	 * chunk, end when it is complete (ok = 1, with m->hash set) or was cut
	 * short (ok = 0).  A non-OK status from any of them stops the
	 * inspection and is returned. */
	enum bb_status (*data_begin)(void *ctx, const struct inspect_member *m);
	enum bb_status (*data)(void *ctx, const void *bytes, size_t len);
	enum bb_status (*data_end)(void *ctx, const struct inspect_member *m, int ok);
};

struct inspect_report {
	enum inspect_status status;
	char format[64];      /* libarchive's name of the outer format, "" if none */
	char filters[64];     /* "gzip", "xz", ... or "" */
	uint64_t members;     /* members reported, all levels */
	uint64_t total;       /* bytes decompressed, all levels */
	char note[256];       /* for TOO_LARGE and DAMAGED: what happened */
};

const char *inspect_status_str(enum inspect_status st);

/* Inspects the archive in the open file fd (seekable; read from offset 0),
 * whose size is size.  Returns BB_OK with the outcome in *report, even for
 * a damaged or too large archive; an error status only for I/O failures,
 * out of memory, or a callback's failure. */
enum bb_status inspect_fd(int fd, uint64_t size, const struct inspect_limits *limits,
			  const struct inspect_callbacks *cb,
			  struct inspect_report *report, struct bb_error *err);
/* The same on a buffer in memory (for tests and fuzzing). */
enum bb_status inspect_memory(const void *data, size_t size,
			      const struct inspect_limits *limits,
			      const struct inspect_callbacks *cb,
			      struct inspect_report *report, struct bb_error *err);

#endif
