/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench-http-load: a small HTTP/1.1 load generator for bench-serve.sh.
 *
 *   bench-http-load PORT PATH CONNECTIONS SECONDS
 *
 * Keeps CONNECTIONS keep-alive connections to 127.0.0.1:PORT busy with
 * "GET PATH" for SECONDS, in one thread with poll(), reading and throwing
 * away each body (its Content-Length tells where it ends); a connection the
 * server closes is opened again.  Prints one line:
 *
 *   requests=N bytes=B seconds=S errors=E
 *
 * where bytes counts body bytes received, complete answers or not, so that
 * a run of huge blobs that completes few answers still measures.  Any
 * status but 200 counts as an error.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LOAD_HEAD_MAX 16384

struct load_conn {
	int fd;
	int sending;                /* still writing the request */
	size_t sent;
	char head[LOAD_HEAD_MAX];
	size_t head_len;
	int in_body;
	uint64_t body_left;
};

static char load_request[1024];
static size_t load_request_len;
static struct sockaddr_in load_addr;
static uint64_t load_requests, load_bytes, load_errors;
static char load_buffer[1 << 18];
static int load_closed;            /* the last recv() saw the end */

static double load_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int load_open(struct load_conn *c)
{
	int one = 1;

	memset(c, 0, sizeof(*c));
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, (struct sockaddr *)&load_addr, sizeof(load_addr)) != 0 &&
	    errno != EINPROGRESS) {
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	c->sending = 1;
	return 0;
}

static void load_reopen(struct load_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (load_open(c) != 0)
		load_errors++;
}

/* The header block is in: status and Content-Length. */
static int load_parse_head(struct load_conn *c, size_t end)
{
	const char *p;
	int status = 0;

	c->head[end] = '\0';
	if (sscanf(c->head, "HTTP/1.%*d %d", &status) != 1)
		return -1;
	if (status != 200)
		load_errors++;
	c->body_left = 0;
	for (p = c->head; (p = strchr(p, '\n')); p++)
		if (!strncasecmp(p + 1, "Content-Length:", 15))
			c->body_left = strtoull(p + 16, NULL, 10);
	c->in_body = 1;
	return 0;
}

/* Data from the server: header, body, and the next request when done. */
static void load_readable(struct load_conn *c)
{
	for (;;) {
		ssize_t n;

		if (!c->in_body) {
			char *end;
			size_t used;

			n = recv(c->fd, c->head + c->head_len, LOAD_HEAD_MAX - 1 - c->head_len, 0);
			load_closed = n == 0;
			if (n <= 0)
				goto closed_or_wait;
			c->head_len += (size_t)n;
			c->head[c->head_len] = '\0';
			end = strstr(c->head, "\r\n\r\n");
			if (!end) {
				if (c->head_len >= LOAD_HEAD_MAX - 1) {
					load_errors++;
					load_reopen(c);
					return;
				}
				continue;
			}
			used = (size_t)(end + 4 - c->head);
			if (load_parse_head(c, used) != 0) {
				load_errors++;
				load_reopen(c);
				return;
			}
			/* body bytes that came with the header */
			n = (ssize_t)(c->head_len - used);
			c->head_len = 0;
			if ((uint64_t)n > c->body_left)
				n = (ssize_t)c->body_left;
			c->body_left -= (uint64_t)n;
			load_bytes += (uint64_t)n;
		} else {
			size_t want = c->body_left < sizeof(load_buffer) ? (size_t)c->body_left
									 : sizeof(load_buffer);

			if (want > 0) {
				n = recv(c->fd, load_buffer, want, 0);
				load_closed = n == 0;
				if (n <= 0)
					goto closed_or_wait;
				c->body_left -= (uint64_t)n;
				load_bytes += (uint64_t)n;
			}
		}
		if (c->in_body && c->body_left == 0) {
			load_requests++;
			c->in_body = 0;
			c->sending = 1;
			c->sent = 0;
			return;
		}
	}
closed_or_wait:
	/* recv() said 0 (closed) or -1 (nothing more for now, or an error) */
	if (c->fd >= 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !load_closed)
		return;
	load_reopen(c);
}

static void load_writable(struct load_conn *c)
{
	ssize_t n = send(c->fd, load_request + c->sent, load_request_len - c->sent, MSG_NOSIGNAL);

	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			load_reopen(c);
		return;
	}
	c->sent += (size_t)n;
	if (c->sent == load_request_len)
		c->sending = 0;
}

int main(int argc, char **argv)
{
	struct load_conn *conns;
	struct pollfd *pfd;
	double start, seconds, elapsed;
	int nconn, i;

	if (argc != 5) {
		fprintf(stderr, "usage: bench-http-load PORT PATH CONNECTIONS SECONDS\n");
		return 64;
	}
	memset(&load_addr, 0, sizeof(load_addr));
	load_addr.sin_family = AF_INET;
	load_addr.sin_port = htons((uint16_t)atoi(argv[1]));
	load_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	load_request_len = (size_t)snprintf(load_request, sizeof(load_request),
					    "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", argv[2]);
	nconn = atoi(argv[3]);
	seconds = atof(argv[4]);
	if (nconn <= 0 || seconds <= 0 || load_request_len >= sizeof(load_request))
		return 64;
	conns = calloc((size_t)nconn, sizeof(*conns));
	pfd = calloc((size_t)nconn, sizeof(*pfd));
	if (!conns || !pfd)
		return 71;
	for (i = 0; i < nconn; i++)
		if (load_open(&conns[i]) != 0)
			load_errors++;
	start = load_now();
	while ((elapsed = load_now() - start) < seconds) {
		for (i = 0; i < nconn; i++) {
			pfd[i].fd = conns[i].fd;
			pfd[i].events = conns[i].sending ? POLLOUT : POLLIN;
			pfd[i].revents = 0;
		}
		if (poll(pfd, (nfds_t)nconn, 100) < 0 && errno != EINTR)
			return 71;
		for (i = 0; i < nconn; i++) {
			if (conns[i].fd < 0) {
				load_reopen(&conns[i]);
				continue;
			}
			if (pfd[i].revents & POLLOUT)
				load_writable(&conns[i]);
			else if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
				load_readable(&conns[i]);
		}
	}
	printf("requests=%llu bytes=%llu seconds=%.3f errors=%llu\n",
	       (unsigned long long)load_requests, (unsigned long long)load_bytes, elapsed,
	       (unsigned long long)load_errors);
	for (i = 0; i < nconn; i++)
		if (conns[i].fd >= 0)
			close(conns[i].fd);
	free(conns);
	free(pfd);
	return 0;
}
