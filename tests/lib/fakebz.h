/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fake Bugzilla (tests/lib/fake_bugzilla.py) for C tests.
 *
 * Header-only, C11 + POSIX, every function static: include it in one test
 * file.  fakebz_start() runs
 *
 *   /usr/bin/python3 $top_srcdir/tests/lib/fake_bugzilla.py --state STATE
 *       --port-file WORKDIR/fakebz.port --pid-file WORKDIR/fakebz.pid
 *       --log WORKDIR/fakebz-log.jsonl [EXTRA ARGS]
 *
 * (top_srcdir from the environment, as make check sets it, else "..";
 * FAKEBZ_PYTHON overrides the interpreter) with its output in
 * WORKDIR/fakebz.stderr, waits up to 10 s for the port file and fills in
 * the port, pid and base URL.  fakebz_stop() ends that process, by its pid
 * only.  The admin calls speak HTTP/1.1 over a plain socket to 127.0.0.1,
 * so a test needs neither curl(1) nor libcurl for them.
 *
 * Functions return 0 (or a count) on success and -1 on failure, after a
 * "# fakebz: ..." line on stderr (a TAP comment) that says why.
 */
#ifndef BB_TESTS_FAKEBZ_H
#define BB_TESTS_FAKEBZ_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define FAKEBZ_UNUSED __attribute__((unused))
#define FAKEBZ_PATH_MAX 4096
#define FAKEBZ_MAX_ARGS 32
#define FAKEBZ_MAX_RESPONSE (64u * 1024u * 1024u)

struct fakebz {
	pid_t pid;                           /* 0: not running */
	int port;
	char url[64];                        /* "http://127.0.0.1:PORT", no slash */
	char port_file[FAKEBZ_PATH_MAX];
	char pid_file[FAKEBZ_PATH_MAX];
	char log_file[FAKEBZ_PATH_MAX];      /* one JSON object per request */
	char stderr_file[FAKEBZ_PATH_MAX];   /* the server's own output */
};

static void fakebz_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Copies the server's stderr into the test output as TAP comments. */
static void fakebz_show_stderr(const struct fakebz *fb)
{
	char line[512];
	FILE *f = fopen(fb->stderr_file, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "#   %s", line);
	fclose(f);
}

/* Reads a small decimal number from a file; -1 if absent or not a number. */
static long fakebz_read_number(const char *path)
{
	char text[32] = "";
	long value = -1;
	char *end;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fgets(text, sizeof(text), f)) {
		errno = 0;
		value = strtol(text, &end, 10);
		if (errno || end == text)
			value = -1;
	}
	fclose(f);
	return value;
}

/* Like fakebz_start(), with more arguments for fake_bugzilla.py, e.g.
 * {"--version", "5.1", NULL} or {"--reset-every", "2", NULL}. */
static FAKEBZ_UNUSED int fakebz_start_args(const char *state_json_path, const char *workdir,
					   const char *const *extra_args, struct fakebz *out)
{
	const char *top = getenv("top_srcdir");
	const char *python = getenv("FAKEBZ_PYTHON");
	char script[FAKEBZ_PATH_MAX];
	char *argv[FAKEBZ_MAX_ARGS + 1];
	posix_spawn_file_actions_t actions;
	int argc = 0, status, spawn_error, i;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (!top || !*top)
		top = "..";
	if (!python || !*python)
		python = "/usr/bin/python3";
	if (!workdir || !*workdir)
		workdir = ".";
	if ((size_t)snprintf(script, sizeof(script), "%s/tests/lib/fake_bugzilla.py", top)
		    >= sizeof(script) ||
	    (size_t)snprintf(out->port_file, sizeof(out->port_file), "%s/fakebz.port", workdir)
		    >= sizeof(out->port_file) ||
	    (size_t)snprintf(out->pid_file, sizeof(out->pid_file), "%s/fakebz.pid", workdir)
		    >= sizeof(out->pid_file) ||
	    (size_t)snprintf(out->log_file, sizeof(out->log_file), "%s/fakebz-log.jsonl", workdir)
		    >= sizeof(out->log_file) ||
	    (size_t)snprintf(out->stderr_file, sizeof(out->stderr_file), "%s/fakebz.stderr",
			     workdir) >= sizeof(out->stderr_file)) {
		fprintf(stderr, "# fakebz: path too long under %s\n", workdir);
		return -1;
	}
	unlink(out->port_file);

	argv[argc++] = (char *)python;
	argv[argc++] = script;
	if (state_json_path) {
		argv[argc++] = (char *)"--state";
		argv[argc++] = (char *)state_json_path;
	}
	argv[argc++] = (char *)"--port-file";
	argv[argc++] = out->port_file;
	argv[argc++] = (char *)"--pid-file";
	argv[argc++] = out->pid_file;
	argv[argc++] = (char *)"--log";
	argv[argc++] = out->log_file;
	for (i = 0; extra_args && extra_args[i]; i++) {
		if (argc >= FAKEBZ_MAX_ARGS) {
			fprintf(stderr, "# fakebz: too many arguments\n");
			return -1;
		}
		argv[argc++] = (char *)extra_args[i];
	}
	argv[argc] = NULL;

	if (posix_spawn_file_actions_init(&actions) != 0) {
		fprintf(stderr, "# fakebz: posix_spawn_file_actions_init failed\n");
		return -1;
	}
	posix_spawn_file_actions_addopen(&actions, 2, out->stderr_file,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&actions, 2, 1);
	posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
	spawn_error = posix_spawn(&pid, python, &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (spawn_error != 0) {
		fprintf(stderr, "# fakebz: cannot run %s: %s\n", python, strerror(spawn_error));
		return -1;
	}
	out->pid = pid;

	for (i = 0; i < 200; i++) {          /* 200 x 50 ms = 10 s */
		long port = fakebz_read_number(out->port_file);

		if (port > 0 && port < 65536) {
			out->port = (int)port;
			snprintf(out->url, sizeof(out->url), "http://127.0.0.1:%d", out->port);
			return 0;
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			fprintf(stderr, "# fakebz: %s exited before listening:\n", script);
			fakebz_show_stderr(out);
			out->pid = 0;
			return -1;
		}
		fakebz_sleep_ms(50);
	}
	fprintf(stderr, "# fakebz: no port file %s after 10 s\n", out->port_file);
	fakebz_show_stderr(out);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	out->pid = 0;
	return -1;
}

/* Starts the fake Bugzilla on a free port of 127.0.0.1 with the state in
 * state_json_path (NULL: empty), keeping its files in workdir. */
static FAKEBZ_UNUSED int fakebz_start(const char *state_json_path, const char *workdir,
				      struct fakebz *out)
{
	return fakebz_start_args(state_json_path, workdir, NULL, out);
}

/* SIGTERM to the server's pid, then waits for it (SIGKILL after 10 s).
 * Returns its exit status: 0 for a clean stop. */
static FAKEBZ_UNUSED int fakebz_stop(struct fakebz *fb)
{
	int status = 0, i;

	if (fb->pid <= 0)
		return 0;
	kill(fb->pid, SIGTERM);
	for (i = 0; i < 200; i++) {
		pid_t done = waitpid(fb->pid, &status, WNOHANG);

		if (done == fb->pid || (done == -1 && errno != EINTR))
			break;
		fakebz_sleep_ms(50);
	}
	if (i == 200) {
		fprintf(stderr, "# fakebz: pid %ld ignored SIGTERM; killing it\n", (long)fb->pid);
		kill(fb->pid, SIGKILL);
		waitpid(fb->pid, &status, 0);
		fb->pid = 0;
		return -1;
	}
	fb->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* One HTTP/1.1 request to the server ("Connection: close").  Returns the
 * HTTP status, or -1 if there was no valid answer; if response_body is
 * not NULL it gets the body, malloc'd and NUL-terminated (free() it). */
static FAKEBZ_UNUSED int fakebz_http(const struct fakebz *fb, const char *method,
				     const char *path, const char *body, char **response_body)
{
	struct sockaddr_in addr;
	struct timeval timeout = { 30, 0 };
	size_t body_len = body ? strlen(body) : 0, len = 0, cap = 0, off;
	char head[1024], *buf = NULL, *text;
	int fd, n, status = -1;
	ssize_t got;

	if (response_body)
		*response_body = NULL;
	n = snprintf(head, sizeof(head),
		     "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n"
		     "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
		     method, path, fb->port, body_len);
	if (n < 0 || (size_t)n >= sizeof(head)) {
		fprintf(stderr, "# fakebz: request path too long\n");
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		fprintf(stderr, "# fakebz: socket: %s\n", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_port = htons((unsigned short)fb->port);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		fprintf(stderr, "# fakebz: connect to port %d: %s\n", fb->port, strerror(errno));
		goto out;
	}
	for (off = 0; off < (size_t)n;) {
		got = send(fd, head + off, (size_t)n - off, MSG_NOSIGNAL);
		if (got <= 0)
			goto send_failed;
		off += (size_t)got;
	}
	for (off = 0; off < body_len;) {
		got = send(fd, body + off, body_len - off, MSG_NOSIGNAL);
		if (got <= 0)
			goto send_failed;
		off += (size_t)got;
	}
	for (;;) {
		if (cap - len < 4096) {
			char *bigger;

			cap = cap ? cap * 2 : 16384;
			if (cap > FAKEBZ_MAX_RESPONSE) {
				fprintf(stderr, "# fakebz: answer too large\n");
				goto out;
			}
			bigger = realloc(buf, cap + 1);
			if (!bigger) {
				fprintf(stderr, "# fakebz: out of memory\n");
				goto out;
			}
			buf = bigger;
		}
		got = recv(fd, buf + len, cap - len, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			fprintf(stderr, "# fakebz: recv: %s\n", strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	if (!buf || len < 12 || strncmp(buf, "HTTP/1.", 7) != 0) {
		fprintf(stderr, "# fakebz: no HTTP answer from port %d\n", fb->port);
		goto out;
	}
	buf[len] = '\0';
	status = atoi(buf + 9);
	text = strstr(buf, "\r\n\r\n");
	if (response_body) {
		text = text ? text + 4 : buf + len;
		*response_body = strdup(text);
	}
	goto out;

send_failed:
	fprintf(stderr, "# fakebz: send: %s\n", strerror(errno));
out:
	free(buf);
	close(fd);
	return status;
}

/* POSTs json_body to an admin path ("/__admin/bug", "/__admin/fail"...);
 * 0 if the server answered 2xx.  See fake_bugzilla.py for the bodies. */
static FAKEBZ_UNUSED int fakebz_admin(const struct fakebz *fb, const char *path,
				      const char *json_body)
{
	char *answer = NULL;
	int status = fakebz_http(fb, "POST", path, json_body ? json_body : "{}", &answer);

	if (status < 200 || status > 299) {
		fprintf(stderr, "# fakebz: POST %s: HTTP %d %s\n", path, status,
			answer ? answer : "");
		free(answer);
		return -1;
	}
	free(answer);
	return 0;
}

/* How many requests (outside /__admin/) the server logged whose path
 * starts with path_prefix ("" or NULL: all); -1 on failure. */
static FAKEBZ_UNUSED long fakebz_request_count(const struct fakebz *fb, const char *path_prefix)
{
	static const char hex[] = "0123456789ABCDEF";
	char path[1024] = "/__admin/log?path_prefix=", *answer = NULL, *at, *end;
	size_t len = strlen(path);
	const unsigned char *p;
	long count = -1;

	for (p = (const unsigned char *)(path_prefix ? path_prefix : ""); *p; p++) {
		if (len + 4 >= sizeof(path))
			return -1;
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p)) {
			path[len++] = (char)*p;
		} else {
			path[len++] = '%';
			path[len++] = hex[*p >> 4];
			path[len++] = hex[*p & 15];
		}
	}
	path[len] = '\0';
	if (fakebz_http(fb, "GET", path, NULL, &answer) != 200 || !answer) {
		free(answer);
		return -1;
	}
	at = strstr(answer, "\"count\":");
	if (at) {
		count = strtol(at + 8, &end, 10);
		if (end == at + 8)
			count = -1;
	}
	free(answer);
	return count;
}

#endif
