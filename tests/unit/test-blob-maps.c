/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Blobs sent from a shared mapping (web/blob_maps.h): one mapping a file
 * for all its responses, the budget, mappings in use never unmapped, a
 * file replaced under its name mapped anew, too big a file not mapped. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/tap.h"
#include "web/blob_maps.h"

static char dir[] = "/tmp/bb-maps-XXXXXX";

static void bail_out(const char *what)
{
	printf("Bail out! %s\n", what);
	exit(1);
}

/* A file of size bytes of c; its open fd, *sb its fstat(). */
static int file_of(const char *name, size_t size, char c, struct stat *sb)
{
	char path[256], tmp[256];
	char *data = malloc(size);
	int fd;

	memset(data, c, size);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) || rename(tmp, path))
		bail_out(path);
	free(data);
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, sb))
		bail_out(path);
	return fd;
}

static void expect(struct blob_maps *m, unsigned files, uint64_t bytes, const char *what)
{
	unsigned f;
	uint64_t b;

	blob_maps_stats(m, &f, &b);
	ok(f == files && b == bytes, "%s: %u files, %llu bytes mapped (have %u, %llu)", what,
	   files, (unsigned long long)bytes, f, (unsigned long long)b);
}

int main(void)
{
	struct blob_maps *m;
	struct MHD_Response *r1, *r2, *r3, *r4;
	struct stat sa, sb, sc, sbig, sa2;
	int a, b, c, big, a2;
	const uint64_t three = 3u << 20;

	if (!mkdtemp(dir))
		bail_out("no temporary folder");
	if (!(m = blob_maps_new()))
		bail_out("out of memory");

	a = file_of("a", three, 'a', &sa);
	b = file_of("b", three, 'b', &sb);
	c = file_of("c", three, 'c', &sc);
	big = file_of("big", BLOB_MAPS_MAX + 1, 'x', &sbig);

	r1 = blob_maps_response(m, a, &sa, 0, three);
	r2 = blob_maps_response(m, a, &sa, 10, 20);
	ok(r1 && r2, "a file's responses, whole and a range");
	expect(m, 1, three, "two responses of one file share its mapping");
	r3 = blob_maps_response(m, b, &sb, 0, three);
	expect(m, 2, 2 * three, "another file is mapped beside it");
	r4 = blob_maps_response(m, c, &sc, 0, three);
	ok(!r4, "a third would pass the budget while both are in use: sent from its file");
	expect(m, 2, 2 * three, "nothing in use is unmapped");
	ok(!blob_maps_response(m, big, &sbig, 0, 10), "a file over BLOB_MAPS_MAX is not mapped");
	ok(!blob_maps_response(m, a, &sa, three - 5, 10), "a range past the file's end is not");

	MHD_destroy_response(r1);
	MHD_destroy_response(r2);
	r4 = blob_maps_response(m, c, &sc, 0, three);
	ok(r4 != NULL, "once a's responses end, c is mapped in its room");
	expect(m, 2, 2 * three, "a's mapping made way (the least recently asked, not in use)");

	/* a file stored again under its name is another file (its inode) */
	a2 = file_of("b", three, 'B', &sa2);
	ok(sa2.st_ino != sb.st_ino, "b replaced by rename has another inode");
	MHD_destroy_response(r3);
	r3 = blob_maps_response(m, a2, &sa2, 0, three);
	ok(r3 != NULL, "the new b is mapped");
	expect(m, 2, 2 * three, "the old b's mapping, no longer in use, made way for it");

	MHD_destroy_response(r3);
	MHD_destroy_response(r4);
	blob_maps_free(m);
	close(a);
	close(b);
	close(c);
	close(big);
	close(a2);
	for (const char *const *n = (const char *const[]){ "a", "b", "c", "big", NULL }; *n; n++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/%s", dir, *n);
		unlink(path);
	}
	rmdir(dir);
	return done_testing();
}
