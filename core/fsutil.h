/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small file-system helpers shared by the store and the blob store. */
#ifndef BB_FSUTIL_H
#define BB_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "core/status.h"

/* Creates dir and its missing parents with mode 0755 (minus umask). */
enum bb_status fs_mkdir_p(const char *dir, struct bb_error *err);
/* Creates the folder that will hold the file at path. */
enum bb_status fs_mkdir_parents(const char *path, struct bb_error *err);
/* Modes of what holds private data (the database, its folder, the log):
 * the owner reads and writes, the service's group reads, others nothing;
 * whatever the umask. */
#define FS_PRIVATE_DIR_MODE 0750
#define FS_PRIVATE_FILE_MODE 0640
/* As fs_mkdir_p(), but dir itself, when it is created, gets exactly
 * FS_PRIVATE_DIR_MODE; an existing folder keeps its mode. */
enum bb_status fs_mkdir_private(const char *dir, struct bb_error *err);
/* Narrows the mode of an existing file of this user's to at most max: bits
 * outside max are taken away, none are added.  A missing path, or another
 * user's, is BB_OK and left alone. */
enum bb_status fs_narrow_mode(const char *path, mode_t max, struct bb_error *err);
/* open(2) of a private file, created if missing with exactly
 * FS_PRIVATE_FILE_MODE; an existing one of this user's is narrowed to it.
 * flags as open(2)'s (O_CREAT is implied).  Returns the descriptor, or -1
 * with errno. */
int fs_open_private(const char *path, int flags);
/* fsync()s the folder dir so a rename or link inside it is durable. */
enum bb_status fs_fsync_dir(const char *dir, struct bb_error *err);
/* Writes all of len bytes, retrying on EINTR and short writes; 0 or -1 with errno. */
int fs_write_all(int fd, const void *data, size_t len);
/* Reads up to len bytes, retrying on EINTR and short reads until len or EOF.
 * Returns the count (0 at EOF) or -1 with errno. */
ssize_t fs_read_full(int fd, void *data, size_t len);

/* Test hooks for crash-safety tests: when the environment variable
 * BUGBRIDGE_CRASH_AT is "name" or "name:N", the process kills itself with
 * SIGKILL the first (or Nth) time it reaches the hook of that name.  Costs
 * one getenv() per call when unset. */
void test_hook(const char *name);

/* Parses a size such as "512", "64K", "10M", "2G", "1T" (powers of 1024).
 * Returns 0 and fills *out, or -1 for anything else. */
int parse_size(const char *s, unsigned long long *out);
/* Parses a duration such as "90", "30s", "15m", "12h", "30d", "2w" into
 * seconds.  Returns 0 and fills *out, or -1. */
int parse_duration(const char *s, long long *out);
/* A date: YYYY-MM-DD (UTC midnight) or ISO 8601 with a time (UTC unless
 * it names its zone).  0 when it is neither (or before 1970). */
time_t parse_date(const char *text);
/* Formats n bytes as "1.5 MiB" into out (at least 16 bytes). */
void format_size(unsigned long long n, char *out, size_t outlen);

#endif
