/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Blobs sent from a mapping of their file (web/blob_http.c's GETs).
 *
 * With a pool of threads libmicrohttpd 0.9.75 hands sendfile() at most 128
 * KiB a call and goes back to poll() between calls, so a blob of a few
 * MiB costs many loop rounds; a body in memory goes out in as few send()s
 * as the socket takes.  A blob's file, mapped read-only once, is that
 * memory without a copy: every GET of it while it is mapped sends from the
 * one mapping (the page cache's pages; nothing is read into the
 * process), and the mapping is kept for the next GET until the budget
 * needs its room.
 *
 *  - Only files up to BLOB_MAPS_MAX, and no more than the budget mapped at
 *    once (what the process's resident size may grow by: mapped pages
 *    count in it); past it a GET is answered from the file as before.
 *  - Blob files are never written in place (a new blob is renamed into
 *    place, gc unlinks): a mapping's bytes cannot change under a response.
 *    A file is known by device, inode, size and change time; while it is
 *    mapped its inode cannot be reused, so a blob removed and stored again
 *    is mapped anew.
 *  - A mapping in use (a response still sending from it) is never unmapped;
 *    the last response's end releases it. */
#ifndef BB_BLOB_MAPS_H
#define BB_BLOB_MAPS_H

#include <stdint.h>
#include <sys/stat.h>

#include <microhttpd.h>

#define BLOB_MAPS_MAX (4u << 20)          /* the largest file mapped */
#define BLOB_MAPS_BUDGET (8u << 20)       /* bytes mapped at most, all files */

struct blob_maps;

/* NULL when out of memory. */
struct blob_maps *blob_maps_new(void);
/* Unmaps everything: no response may be sending from a mapping. */
void blob_maps_free(struct blob_maps *m);

/* A response with length bytes from start of the file open as fd (sb its
 * fstat()), sent from the file's shared mapping; NULL when the file is too
 * big, the budget is taken by mappings in use, or mmap() fails: then send
 * from fd.  fd stays the caller's. */
struct MHD_Response *blob_maps_response(struct blob_maps *m, int fd, const struct stat *sb,
					uint64_t start, uint64_t length);

/* How many files are mapped and their bytes, for the tests and the log. */
void blob_maps_stats(struct blob_maps *m, unsigned *files, uint64_t *bytes);

#endif
