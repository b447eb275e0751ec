/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Child processes with argv arrays and a clean environment.  The contract is
 * in run.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/run.h"

extern char **environ;

enum bb_status run_args_push_owned(struct run_args *a, char *s)
{
	if (!s)
		return BB_ERR_NOMEM;
	if (a->n + 2 > a->alloc) {
		size_t alloc = a->alloc ? a->alloc * 2 : 16;
		char **v = realloc(a->v, alloc * sizeof(*v));

		if (!v) {
			free(s);
			return BB_ERR_NOMEM;
		}
		a->v = v;
		a->alloc = alloc;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
	return BB_OK;
}

enum bb_status run_args_push(struct run_args *a, const char *s)
{
	return run_args_push_owned(a, strdup(s));
}

void run_args_clear(struct run_args *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->alloc = 0;
}

void run_clean_line(const char *text, size_t len, char *out, size_t n)
{
	size_t o = 0;

	if (!n)
		return;
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
		len--;
	for (size_t i = 0; i < len && o + 1 < n; i++) {
		unsigned char ch = (unsigned char)text[i];

		out[o++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
	}
	out[o] = '\0';
}

void run_child_init(struct run_child *c, const char *what)
{
	c->pid = -1;
	c->in_fd = c->out_fd = c->err_fd = -1;
	c->out_eof = 0;
	buf_init(&c->errout);
	c->what = what;
	c->gather = 0;
}

void run_child_gather(struct run_child *c, size_t bytes)
{
	c->gather = bytes;
}

/* The nap of run_child_gather(): fd is readable (revents from poll());
 * fewer than gather bytes (and than size, what the reader asks) wait in
 * it and its writer has not closed it. */
static void gather_nap(const struct run_child *c, int fd, short revents, size_t size)
{
	struct timespec nap = { 0, RUN_GATHER_NAP_US * 1000L };
	int waiting = 0;

	if (c->gather && !(revents & (POLLHUP | POLLERR)) &&
	    ioctl(fd, FIONREAD, &waiting) == 0 && waiting >= 0 && (size_t)waiting < c->gather &&
	    (size_t)waiting < size)
		nanosleep(&nap, NULL);   /* (a signal may cut it short: no matter) */
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

char **run_git_environment(void)
{
	static const char *const fixed[] = {
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "LC_ALL=C",
	};
	size_t n = 0, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = calloc(n + sizeof(fixed) / sizeof(fixed[0]) + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *e = environ[i];

		if (!strncmp(e, "GIT_", 4) || !strncmp(e, "LC_", 3) || !strncmp(e, "LANG=", 5) ||
		    !strncmp(e, "LANGUAGE=", 9) || !strncmp(e, "PAGER=", 6) ||
		    !strncmp(e, "SSH_ASKPASS=", 12))
			continue;
		env[k++] = environ[i];
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		env[k++] = (char *)fixed[i];
	env[k] = NULL;
	return env;
}

enum bb_status run_child_spawn(struct run_child *c, char *const argv[], char *const env[],
			       int with_stdin, struct bb_error *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int in_sv[2] = { -1, -1 }, out_p[2] = { -1, -1 }, err_p[2] = { -1, -1 };
	int fa_ok = 0, attr_ok = 0, rc;
	sigset_t none, deflt;
	enum bb_status st = BB_OK;

	if ((with_stdin && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_sv)) ||
	    pipe2(out_p, O_CLOEXEC) || pipe2(err_p, O_CLOEXEC)) {
		st = bb_error_errno(err, errno, "%s: cannot make pipes", c->what);
		goto out;
	}
	if (posix_spawn_file_actions_init(&fa) || posix_spawnattr_init(&attr)) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	fa_ok = attr_ok = 1;
	if (with_stdin)
		rc = posix_spawn_file_actions_adddup2(&fa, in_sv[1], 0);
	else
		rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (rc || posix_spawn_file_actions_adddup2(&fa, out_p[1], 1) ||
	    posix_spawn_file_actions_adddup2(&fa, err_p[1], 2)) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
#ifdef HAVE_POSIX_SPAWN_FILE_ACTIONS_ADDCLOSEFROM_NP
	/* nothing else of ours (a library's socket opened without
	 * close-on-exec, a descriptor we were started with) reaches the child */
	if (posix_spawn_file_actions_addclosefrom_np(&fa, 3)) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
#endif
	/* the child starts with no blocked signals and SIGPIPE as default, so a
	 * reader that goes away ends it whatever our own disposition is */
	sigemptyset(&none);
	sigemptyset(&deflt);
	sigaddset(&deflt, SIGPIPE);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &deflt);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawnp(&c->pid, argv[0], &fa, &attr, argv, env ? env : environ);
	if (rc) {
		c->pid = -1;
		st = bb_error_set(err, BB_ERR_CONFIG, "cannot run %s (%s): %s", argv[0], c->what,
				  strerror(rc));
		goto out;
	}
	if (with_stdin) {
		c->in_fd = in_sv[0];
		in_sv[0] = -1;
	}
	c->out_fd = out_p[0];
	out_p[0] = -1;
	c->err_fd = err_p[0];
	err_p[0] = -1;
	c->out_eof = 0;
out:
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (attr_ok)
		posix_spawnattr_destroy(&attr);
	for (int i = 0; i < 2; i++) {
		close_fd(&in_sv[i]);
		close_fd(&out_p[i]);
		close_fd(&err_p[i]);
	}
	return st;
}

void run_child_pipe_size(struct run_child *c, int bytes)
{
#ifdef F_SETPIPE_SZ
	if (c->out_fd >= 0)
		(void)fcntl(c->out_fd, F_SETPIPE_SZ, bytes);
#else
	(void)c;
	(void)bytes;
#endif
}

static void keep_stderr(struct run_child *c, const char *data, size_t len)
{
	if (c->errout.len < RUN_STDERR_CAP) {
		size_t keep = RUN_STDERR_CAP - c->errout.len;

		buf_add(&c->errout, data, len < keep ? len : keep);
	}
}

/* One read of stderr, which poll() found readable or ended. */
static void read_stderr(struct run_child *c)
{
	char tmp[4096];
	ssize_t r = read(c->err_fd, tmp, sizeof(tmp));

	if (r <= 0 && !(r < 0 && errno == EINTR))
		close_fd(&c->err_fd);
	else if (r > 0)
		keep_stderr(c, tmp, (size_t)r);
}

/* Waits until stdout has something or has ended (*revents: what poll()
 * said of it), reading stderr meanwhile. */
static enum bb_status wait_output(struct run_child *c, short *revents, struct bb_error *err)
{
	*revents = 0;
	while (!*revents) {
		struct pollfd pfd[2];
		nfds_t n = 0;

		pfd[n].fd = c->out_fd;
		pfd[n++].events = POLLIN;
		if (c->err_fd >= 0) {
			pfd[n].fd = c->err_fd;
			pfd[n++].events = POLLIN;
		}
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return bb_error_errno(err, errno, "%s: poll", c->what);
		}
		if (n == 2 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
			read_stderr(c);
		*revents = pfd[0].revents & (POLLIN | POLLHUP | POLLERR);
	}
	return BB_OK;
}

enum bb_status run_child_poll_output(struct run_child *c, int *ready, struct bb_error *err)
{
	short revents;
	enum bb_status st;

	*ready = 0;
	if (c->out_eof || c->out_fd < 0)
		return BB_OK;
	if ((st = wait_output(c, &revents, err)))
		return st;
	*ready = (revents & POLLIN) != 0;
	return BB_OK;
}

enum bb_status run_child_read(struct run_child *c, void *dst, size_t size, size_t *got,
			      struct bb_error *err)
{
	*got = 0;
	while (!c->out_eof && c->out_fd >= 0) {
		short revents;
		enum bb_status st;
		ssize_t r;

		if ((st = wait_output(c, &revents, err)))
			return st;
		gather_nap(c, c->out_fd, revents, size);
		r = read(c->out_fd, dst, size);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return bb_error_errno(err, errno, "%s: reading its output", c->what);
		}
		if (r == 0) {
			c->out_eof = 1;
			break;
		}
		*got = (size_t)r;
		return BB_OK;
	}
	return BB_OK;
}

static int would_block(int e)
{
#if EWOULDBLOCK != EAGAIN
	if (e == EWOULDBLOCK)
		return 1;
#endif
	return e == EAGAIN;
}

/* One send() to the child's stdin (flags: MSG_DONTWAIT or 0): *wrote is
 * what it took, 0 when it would have waited. */
static enum bb_status send_some(struct run_child *c, const void *data, size_t len, int flags,
				size_t *wrote, struct bb_error *err)
{
	*wrote = 0;
	for (;;) {
		ssize_t n = send(c->in_fd, data, len, MSG_NOSIGNAL | flags);

		if (n >= 0) {
			*wrote = (size_t)n;
			return BB_OK;
		}
		if ((flags & MSG_DONTWAIT) && would_block(errno))
			return BB_OK;
		if (errno != EINTR)
			return bb_error_errno(err, errno, "%s: writing to it", c->what);
	}
}

enum bb_status run_child_write(struct run_child *c, const void *data, size_t len,
			       struct bb_error *err)
{
	const char *p = data;
	size_t wrote;
	enum bb_status st;

	for (; len; p += wrote, len -= wrote)
		if ((st = send_some(c, p, len, 0, &wrote, err)))
			return st;
	return BB_OK;
}

enum bb_status run_child_write_some(struct run_child *c, const void *data, size_t len,
				    size_t *wrote, struct bb_error *err)
{
	return send_some(c, data, len, MSG_DONTWAIT, wrote, err);
}

void run_child_close_input(struct run_child *c)
{
	close_fd(&c->in_fd);
}

void run_child_wait(struct run_child *c, int *status)
{
	int ws = 0;

	close_fd(&c->in_fd);
	close_fd(&c->out_fd);
	while (c->err_fd >= 0) {
		char tmp[4096];
		ssize_t got = read(c->err_fd, tmp, sizeof(tmp));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			close_fd(&c->err_fd);
			break;
		}
		keep_stderr(c, tmp, (size_t)got);
	}
	*status = 255;
	if (c->pid > 0) {
		while (waitpid(c->pid, &ws, 0) < 0 && errno == EINTR)
			;
		c->pid = -1;
		if (WIFEXITED(ws))
			*status = WEXITSTATUS(ws);
		else if (WIFSIGNALED(ws))
			*status = 128 + WTERMSIG(ws);
	}
}

void run_child_release(struct run_child *c)
{
	int status;

	close_fd(&c->in_fd);
	close_fd(&c->out_fd);
	if (c->pid > 0) {
		kill(c->pid, SIGTERM);
		run_child_wait(c, &status);
	}
	close_fd(&c->err_fd);
	buf_release(&c->errout);
}

void run_git_message(const struct buf *errout, char *out, size_t n)
{
	const char *text = errout->data, *end = text + errout->len, *line = NULL;
	size_t len = 0;

	while (text < end) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		const char *stop = nl ? nl : end;

		if (stop > text && !(stop - text == 1 && *text == '\r')) {
			line = text;
			len = (size_t)(stop - text);
		}
		text = nl ? nl + 1 : end;
	}
	if (!line) {
		run_clean_line("no message", 10, out, n);
		return;
	}
	if (len > 7 && !strncmp(line, "fatal: ", 7)) {
		line += 7;
		len -= 7;
	} else if (len > 7 && !strncmp(line, "error: ", 7)) {
		line += 7;
		len -= 7;
	}
	run_clean_line(line, len, out, n);
}
