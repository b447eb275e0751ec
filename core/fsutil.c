/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "core/fsutil.h"

enum bb_status fs_mkdir_p(const char *dir, struct bb_error *err)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);

	if (len == 0)
		return BB_OK;
	if (len >= sizeof(path))
		return bb_error_set(err, BB_ERR_INVALID, "path too long: %s", dir);
	memcpy(path, dir, len + 1);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	for (char *p = path + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;

		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			return bb_error_errno(err, errno, "cannot create folder %s", path);
		if (saved == '\0')
			break;
		*p = saved;
	}
	{
		struct stat sb;

		if (stat(dir, &sb) != 0)
			return bb_error_errno(err, errno, "cannot use folder %s", dir);
		if (!S_ISDIR(sb.st_mode))
			return bb_error_set(err, BB_ERR_INVALID, "%s is not a folder", dir);
	}
	return BB_OK;
}

enum bb_status fs_narrow_mode(const char *path, mode_t max, struct bb_error *err)
{
	struct stat sb;

	if (stat(path, &sb) != 0)
		return errno == ENOENT ? BB_OK : bb_error_errno(err, errno, "cannot use %s", path);
	/* another user's file is theirs to keep as they like */
	if (sb.st_uid != geteuid() || !(sb.st_mode & 07777 & ~max))
		return BB_OK;
	if (chmod(path, sb.st_mode & 07777 & max) != 0)
		return bb_error_errno(err, errno, "cannot restrict the mode of %s", path);
	return BB_OK;
}

enum bb_status fs_mkdir_private(const char *dir, struct bb_error *err)
{
	enum bb_status s;

	if ((s = fs_mkdir_parents(dir, err)))
		return s;
	if (mkdir(dir, FS_PRIVATE_DIR_MODE) == 0) {
		/* exactly this mode: the umask may have taken the group's bits */
		if (chmod(dir, FS_PRIVATE_DIR_MODE) != 0)
			return bb_error_errno(err, errno, "cannot set the mode of %s", dir);
		return BB_OK;
	}
	if (errno != EEXIST)
		return bb_error_errno(err, errno, "cannot create folder %s", dir);
	/* An existing folder keeps the mode its admin gave it (it may be a
	 * home or a shared folder); fs_mkdir_p() says what is wrong with it. */
	return fs_mkdir_p(dir, err);
}

int fs_open_private(const char *path, int flags)
{
	struct stat sb;
	int fd, e;

	fd = open(path, flags | O_CREAT | O_EXCL | O_CLOEXEC, FS_PRIVATE_FILE_MODE);
	if (fd >= 0) {
		/* exactly this mode: the umask may have taken the group's bit */
		if (fchmod(fd, FS_PRIVATE_FILE_MODE) == 0)
			return fd;
		goto fail;
	}
	if (errno != EEXIST)
		return -1;
	fd = open(path, (flags & ~(O_CREAT | O_EXCL)) | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) != 0)
		goto fail;
	if (sb.st_uid == geteuid() && (sb.st_mode & 07777 & ~FS_PRIVATE_FILE_MODE) &&
	    fchmod(fd, sb.st_mode & 07777 & FS_PRIVATE_FILE_MODE) != 0)
		goto fail;
	return fd;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

enum bb_status fs_mkdir_parents(const char *path, struct bb_error *err)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return BB_OK;
	if ((size_t)(slash - path) >= sizeof(dir))
		return bb_error_set(err, BB_ERR_INVALID, "path too long: %s", path);
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return fs_mkdir_p(dir, err);
}

enum bb_status fs_fsync_dir(const char *dir, struct bb_error *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return bb_error_errno(err, errno, "cannot open folder %s", dir);
	if (fsync(fd) != 0 && errno != EINVAL) {
		int e = errno;

		close(fd);
		return bb_error_errno(err, e, "cannot sync folder %s", dir);
	}
	close(fd);
	return BB_OK;
}

int fs_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

ssize_t fs_read_full(int fd, void *data, size_t len)
{
	char *p = data;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

void test_hook(const char *name)
{
	static int hits;
	const char *want = getenv("BUGBRIDGE_CRASH_AT");
	size_t len;
	long nth = 1;

	if (!want || !*want)
		return;
	len = strlen(name);
	if (strncmp(want, name, len) != 0)
		return;
	if (want[len] == ':')
		nth = strtol(want + len + 1, NULL, 10);
	else if (want[len] != '\0')
		return;
	if (++hits >= nth) {
		fprintf(stderr, "bugbridge: test hook %s reached, stopping\n", name); /* layers: allowed (the test hook) */
		raise(SIGKILL);
	}
}

int parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long n, mult = 1;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	case 't': case 'T': mult = 1ULL << 40; end++; break;
	default: return -1;
	}
	if (mult > 1 && end[0] == 'i' && end[1] == 'B')
		end += 2;
	else if (mult > 1 && (*end == 'B' || *end == 'b'))
		end++;
	if (*end != '\0')
		return -1;
	if (n > ULLONG_MAX / mult)
		return -1;
	*out = n * mult;
	return 0;
}

int parse_duration(const char *s, long long *out)
{
	char *end;
	long long n, mult = 1;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case '\0': break;
	case 's': mult = 1; end++; break;
	case 'm': mult = 60; end++; break;
	case 'h': mult = 3600; end++; break;
	case 'd': mult = 86400; end++; break;
	case 'w': mult = 7 * 86400; end++; break;
	default: return -1;
	}
	if (*end != '\0' || n > LLONG_MAX / mult)
		return -1;
	*out = n * mult;
	return 0;
}

time_t parse_date(const char *text)
{
	GTimeZone *utc = g_time_zone_new_utc();
	GDateTime *dt = NULL;
	time_t t = 0;
	int y, m, d;
	char tail;

	if (sscanf(text, "%4d-%2d-%2d%c", &y, &m, &d, &tail) == 3)
		dt = g_date_time_new(utc, y, m, d, 0, 0, 0);
	else
		dt = g_date_time_new_from_iso8601(text, utc);
	if (dt) {
		t = (time_t)g_date_time_to_unix(dt);
		g_date_time_unref(dt);
	}
	g_time_zone_unref(utc);
	return t > 0 ? t : 0;
}

void format_size(unsigned long long n, char *out, size_t outlen)
{
	/* GLib's, in IEC units as the rest of bugbridge writes them:
	 * "12 bytes", "1.5 KiB", "293.0 KiB" */
	char *text = g_format_size_full((guint64)n, G_FORMAT_SIZE_IEC_UNITS);
	size_t o = 0;

	/* GLib puts a no-break space (U+00A0) before the unit: a plain one
	 * here, for terminals and logs that are not UTF-8 */
	for (const char *p = text; *p && o + 1 < outlen; p++) {
		if ((unsigned char)p[0] == 0xc2 && (unsigned char)p[1] == 0xa0) {
			out[o++] = ' ';
			p++;
		} else {
			out[o++] = *p;
		}
	}
	if (outlen)
		out[o] = '\0';
	g_free(text);
}
