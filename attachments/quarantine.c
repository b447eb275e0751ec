/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The front door's quarantine (quarantine.h).
 *
 * Choices made here:
 *  - Uploads are hashed as they arrive (GLib's SHA-256), so the report's
 *    rows can name each attachment by hash before it is public; the blob
 *    store hashes again when the file is published and a mismatch (a file
 *    changed on disk) refuses the publication.
 *  - Files are fsynced before a report row names them; folders are not:
 *    a crash loses at worst an unconfirmed report's files, which confirming
 *    then reports as an error rather than publishing something else.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "attachments/quarantine.h"

struct quarantine {
	char *root;
	char *tmp;
};

struct quarantine_writer {
	int fd;
	char *path;
	uint64_t size, max_size;
	GChecksum *sum;
};

enum bb_status quarantine_open(struct quarantine **out, const char *root, struct bb_error *err)
{
	struct quarantine *q = calloc(1, sizeof(*q));
	enum bb_status st = BB_OK;

	*out = NULL;
	if (!q || !(q->root = strdup(root)) || !(q->tmp = str_printf("%s/tmp", root))) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = fs_mkdir_private(q->root, err)) || (st = fs_mkdir_private(q->tmp, err)))
		goto out;
	*out = q;
	q = NULL;
out:
	quarantine_close(q);
	return st;
}

void quarantine_close(struct quarantine *q)
{
	if (!q)
		return;
	free(q->root);
	free(q->tmp);
	free(q);
}

enum bb_status quarantine_writer_open(struct quarantine *q, uint64_t max_size,
				      struct quarantine_writer **out, struct bb_error *err)
{
	struct quarantine_writer *w = calloc(1, sizeof(*w));
	enum bb_status st = BB_OK;

	*out = NULL;
	if (!w || !(w->path = str_printf("%s/upload-XXXXXX", q->tmp)) ||
	    !(w->sum = g_checksum_new(G_CHECKSUM_SHA256))) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	w->fd = mkstemp(w->path);
	if (w->fd < 0) {
		st = bb_error_errno(err, errno, "creating %s", w->path);
		goto fail;
	}
	w->max_size = max_size;
	*out = w;
	return BB_OK;
fail:
	if (w) {
		if (w->sum)
			g_checksum_free(w->sum);
		free(w->path);
		free(w);
	}
	return st;
}

enum bb_status quarantine_writer_write(struct quarantine_writer *w, const void *data,
				       size_t len, struct bb_error *err)
{
	if (w->max_size && w->size + len > w->max_size)
		return bb_error_set(err, BB_ERR_TOO_LARGE, "the upload passes %llu bytes",
				    (unsigned long long)w->max_size);
	if (fs_write_all(w->fd, data, len))
		return bb_error_errno(err, errno, "writing %s", w->path);
	g_checksum_update(w->sum, data, (gssize)len);
	w->size += len;
	return BB_OK;
}

uint64_t quarantine_writer_size(const struct quarantine_writer *w)
{
	return w ? w->size : 0;
}

enum bb_status quarantine_writer_finish(struct quarantine_writer *w,
					struct quarantine_file *file, struct bb_error *err)
{
	enum bb_status st = BB_OK;

	memset(file, 0, sizeof(*file));
	if (fsync(w->fd) || close(w->fd)) {
		st = bb_error_errno(err, errno, "writing %s", w->path);
		w->fd = -1;
		quarantine_writer_abort(w);
		return st;
	}
	w->fd = -1;
	g_strlcpy(file->hash, g_checksum_get_string(w->sum), sizeof(file->hash));
	file->size = w->size;
	file->path = w->path;
	g_checksum_free(w->sum);
	free(w);
	return BB_OK;
}

void quarantine_writer_abort(struct quarantine_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	unlink(w->path);
	free(w->path);
	g_checksum_free(w->sum);
	free(w);
}

void quarantine_file_discard(struct quarantine_file *file)
{
	if (file->path)
		unlink(file->path);
	free(file->path);
	file->path = NULL;
}

static char *quarantine_report_dir(const struct quarantine *q, long long report)
{
	return str_printf("%s/%lld", q->root, report);
}

static char *quarantine_item_path(const struct quarantine *q, long long report, unsigned seq)
{
	return str_printf("%s/%lld/%u", q->root, report, seq);
}

enum bb_status quarantine_adopt(struct quarantine *q, struct quarantine_file *file,
				long long report, unsigned seq, struct bb_error *err)
{
	char *dir = quarantine_report_dir(q, report);
	char *path = quarantine_item_path(q, report, seq);
	enum bb_status st = BB_OK;

	if (!dir || !path) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		st = bb_error_errno(err, errno, "creating %s", dir);
		goto out;
	}
	if (rename(file->path, path)) {
		st = bb_error_errno(err, errno, "moving %s to %s", file->path, path);
		goto out;
	}
	free(file->path);
	file->path = path;
	path = NULL;
out:
	free(dir);
	free(path);
	return st;
}

enum bb_status quarantine_publish(struct quarantine *q, long long report, unsigned seq,
				  const char *expected_hash, struct blob_store *bs,
				  const struct blob_origin *origin, struct blob_info *info,
				  struct bb_error *err)
{
	char *path = quarantine_item_path(q, report, seq);
	enum bb_status st = BB_OK;
	int fd = -1;

	if (!path)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		st = errno == ENOENT ? bb_error_set(err, BB_ERR_NOT_FOUND, "%s is gone", path)
				     : bb_error_errno(err, errno, "opening %s", path);
		goto out;
	}
	if ((st = blob_put_fd(bs, fd, origin, NULL, NULL, info, err)))
		goto out;
	if (strcmp(info->hash, expected_hash))
		st = bb_error_set(err, BB_ERR_INVALID, "%s hashes to %s, not %s", path, info->hash,
				  expected_hash);
out:
	if (fd >= 0)
		close(fd);
	free(path);
	return st;
}

enum bb_status quarantine_remove_report(struct quarantine *q, long long report,
					struct bb_error *err)
{
	char *dir = quarantine_report_dir(q, report);
	enum bb_status st = BB_OK;
	struct dirent *e;
	DIR *d;

	if (!dir)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT)
			st = bb_error_errno(err, errno, "opening %s", dir);
		goto out;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) && errno != ENOENT && !st)
			st = bb_error_errno(err, errno, "removing %s/%s", dir, e->d_name);
	}
	closedir(d);
	if (!st && rmdir(dir) && errno != ENOENT)
		st = bb_error_errno(err, errno, "removing %s", dir);
out:
	free(dir);
	return st;
}

void quarantine_remove_stale(struct quarantine *q, time_t cutoff)
{
	DIR *d = opendir(q->tmp);
	struct dirent *e;
	struct stat sb;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "upload-", 7))
			continue;
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    sb.st_mtime < cutoff)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}
