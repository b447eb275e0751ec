/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench-mhd-floor: the least a libmicrohttpd server can do to serve a blob,
 * for bench-serve.sh to show beside bugbridge serve and nginx what part of
 * a gap is libmicrohttpd's own (make bench only).  The same threading and
 * polling flags as bugbridge serve (web/blob_http.c), the same response
 * (from memory up to 64 KiB, else MHD_create_response_from_fd64 and
 * sendfile), the same headers; no
 * configuration, no limits, no log, no database, no cache of open files.
 *
 *   bench-mhd-floor BLOB_DIR PORT_FILE [THREADS]
 *
 * BLOB_DIR is a store's blobs/sha256 folder; GET /blob/sha256/<hex> serves
 * BLOB_DIR/<hex[0:2]>/<hex[2:]>.  THREADS 0 (the default) is a thread per
 * connection, as bugbridge's default; more is a pool of that many.  Writes
 * the port it listens on (127.0.0.1, a free one) to PORT_FILE and serves
 * until SIGTERM or SIGINT.
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* what serve reads into memory instead of sending from the file
 * (BLOB_SERVER_SMALL_MAX in web/blob_http.c) */
#define SMALL_MAX (64 * 1024)

static const char *blob_dir;

static enum MHD_Result floor_reply(struct MHD_Connection *conn, unsigned status)
{
	static const char text[] = "no such blob\n";
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(sizeof(text) - 1, (void *)text,
						MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret = MHD_queue_response(conn, status, resp);

	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result floor_handle(void *cls, struct MHD_Connection *conn, const char *url,
				    const char *method, const char *version,
				    const char *upload_data, size_t *upload_data_size,
				    void **con_cls)
{
	static const char prefix[] = "/blob/sha256/";
	const char *hex = url + sizeof(prefix) - 1;
	char path[4096], etag[72];
	struct MHD_Response *resp;
	struct stat sb;
	enum MHD_Result ret;
	int fd;

	(void)cls, (void)version, (void)upload_data, (void)upload_data_size;
	/* the first call only says a request came: a response queued then is
	 * sent with "Connection: close" (its body may still be coming) */
	if (!*con_cls) {
		*con_cls = conn;
		return MHD_YES;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return floor_reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED);
	if (strncmp(url, prefix, sizeof(prefix) - 1) || strlen(hex) != 64 ||
	    strspn(hex, "0123456789abcdef") != 64)
		return floor_reply(conn, MHD_HTTP_NOT_FOUND);
	snprintf(path, sizeof(path), "%s/%.2s/%s", blob_dir, hex, hex + 2);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return floor_reply(conn, MHD_HTTP_NOT_FOUND);
	if (fstat(fd, &sb) < 0) {
		close(fd);
		return floor_reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR);
	}
	if (sb.st_size <= SMALL_MAX) {
		/* header and body in one write, as serve sends a small blob */
		char *data = malloc((size_t)sb.st_size + 1);
		ssize_t got = data ? read(fd, data, (size_t)sb.st_size + 1) : -1;

		close(fd);
		if (got != sb.st_size) {
			free(data);
			return floor_reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR);
		}
		resp = MHD_create_response_from_buffer((size_t)got, data, MHD_RESPMEM_MUST_FREE);
	} else {
		resp = MHD_create_response_from_fd64((uint64_t)sb.st_size, fd);
		if (!resp)
			close(fd);
	}
	if (!resp)
		return MHD_NO;
	snprintf(etag, sizeof(etag), "\"%s\"", hex);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
				"public, max-age=31536000, immutable");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

static volatile sig_atomic_t stopping;

static void floor_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

int main(int argc, char **argv)
{
	unsigned threads = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 0;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC |
			 MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;
	struct MHD_OptionItem more[2];
	struct sockaddr_in addr;
	struct MHD_Daemon *d;
	struct sigaction sa;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: %s BLOB_DIR PORT_FILE [THREADS]\n", argv[0]);
		return 2;
	}
	blob_dir = argv[1];
	if (threads == 0)
		flags |= MHD_USE_THREAD_PER_CONNECTION;
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	more[0] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	if (threads > 1)
		more[0] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)threads,
						   NULL };
	more[1] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	d = MHD_start_daemon(flags, 0, NULL, NULL, floor_handle, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
			     MHD_OPTION_ARRAY, more, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "bench-mhd-floor: libmicrohttpd did not start\n");
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	f = fopen(argv[2], "w");
	if (!info || !f || fprintf(f, "%u\n", (unsigned)info->port) < 0 || fclose(f)) {
		fprintf(stderr, "bench-mhd-floor: cannot write %s: %s\n", argv[2], strerror(errno));
		MHD_stop_daemon(d);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = floor_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stopping)
		pause();
	MHD_stop_daemon(d);
	return 0;
}
