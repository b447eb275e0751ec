/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The least a reader of git cat-file's output through a pipe can do, for
 * bench-epoch.sh: it reads its stdin as bugbridge's archive walk reads
 * cat-file (mail/archive_git.c, core/run.c): the pipe grown to 1 MiB,
 * poll(), a nap of RUN_GATHER_NAP_US while fewer than 64 KiB wait, 256 KiB
 * asked per read; and throws it away.  Prints the bytes it read. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "core/run.h"

#define READ_SIZE ((size_t)256 << 10)   /* ARCHIVE_GIT_READ */
#define GATHER (READ_SIZE / 4)          /* run_child_gather(..., ARCHIVE_GIT_READ / 4) */
#define PIPE_SIZE (1 << 20)             /* ARCHIVE_GIT_PIPE */

int main(void)
{
	static char buf[READ_SIZE];
	unsigned long long total = 0;

#ifdef F_SETPIPE_SZ
	(void)fcntl(0, F_SETPIPE_SZ, PIPE_SIZE);
#endif
	for (;;) {
		struct pollfd pfd = { 0, POLLIN, 0 };
		int waiting = 0;
		ssize_t r;

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("bench-pipe-reader: poll");
			return 1;
		}
		if (!(pfd.revents & (POLLHUP | POLLERR)) && ioctl(0, FIONREAD, &waiting) == 0 &&
		    waiting >= 0 && (size_t)waiting < GATHER) {
			struct timespec nap = { 0, RUN_GATHER_NAP_US * 1000L };

			nanosleep(&nap, NULL);
		}
		r = read(0, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			perror("bench-pipe-reader: read");
			return 1;
		}
		if (r == 0)
			break;
		total += (unsigned long long)r;
	}
	printf("%llu\n", total);
	return 0;
}
