/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test driver for mail/archive.c: polls one source and prints what it got.
 *
 *   archive-dump [options] KIND URL-OR-PATH (a path starts with '/')
 *     --state DIR          state folder (public-inbox)
 *     --cursor-file FILE   read the cursor from FILE (missing or empty: from
 *                          the start) and write the new one back, as the
 *                          bridge would commit it: the cursor of the poll on
 *                          success, else the position of the last message
 *                          handled (FILE untouched if there was none)
 *     --tail               print (and store) the cursor at the current end
 *     --thread MSGID       fetch the thread of MSGID (t.mbox.gz)
 *     --stop-after N       the handler refuses the message after the Nth
 *                          (BB_ERR_INTERRUPTED), as a crash would
 *     --probe-interval S   epoch_probe_interval
 *     --max-size N         max_message_size
 *     --timeout S          timeout
 *     --save-dir DIR       write each message to DIR/<n>.eml as well
 *     --quiet              no "msg" lines (for timing: a position can be
 *                          long, and printing each is the driver's cost)
 *
 * Output, one line each:
 *   msg <Message-ID> <sha256 of the raw bytes, 16 hex> <position or ->
 *   cursor <cursor>                    (on success)
 *   error <status> <retry-class> <message>
 *   stats clones=.. fetches=.. git=.. probes=.. http=.. messages=.. skipped=.. rewinds=.. gaps=..
 *   time_ms <milliseconds of the poll>
 * Exit: 0 on success (also when stopped by --stop-after), 1 on an error,
 * 2 on a usage error. */
#include "config.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/digest.h"
#include "mail/archive.h"

struct dump {
	long stop_after;
	long handled;
	char *last_position;     /* kept for --cursor-file only: a copy of each
				  * position (a Maildir's can be long) would be
				  * the driver's own quadratic cost */
	int keep_position;
	const char *save_dir;
	int quiet;
};

/* The Message-ID from the header (unfolded), without <>, or "-". */
static void message_id(const char *raw, size_t len, char *out, size_t n)
{
	const char *p = raw, *end = raw + len;

	snprintf(out, n, "-");
	while (p < end && *p != '\n' && !(*p == '\r' && p + 1 < end && p[1] == '\n')) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > 11 && !strncasecmp(p, "Message-ID:", 11)) {
			const char *s = p + 11, *e;
			size_t k;

			/* may continue on the next line */
			while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
				s++;
			if (s < end && *s == '<')
				s++;
			e = s;
			while (e < end && *e != '>' && *e != '\n' && *e != '\r' && *e != ' ')
				e++;
			k = (size_t)(e - s) < n - 1 ? (size_t)(e - s) : n - 1;
			memcpy(out, s, k);
			out[k] = '\0';
			return;
		}
		p = eol + 1;
	}
}

static enum bb_status on_message(void *ctx, const char *raw, size_t len, const char *position)
{
	struct dump *d = ctx;
	char mid[512], hex[SHA256_HEX_LEN + 1];

	if (d->stop_after >= 0 && d->handled >= d->stop_after)
		return BB_ERR_INTERRUPTED;
	if (raw[len] != '\0') {
		printf("bad: raw is not NUL-terminated\n");
		return BB_ERR_INTERNAL;
	}
	message_id(raw, len, mid, sizeof(mid));
	sha256_hex(raw, len, hex);
	if (!d->quiet)
		printf("msg %s %.16s %s\n", mid, hex, position ? position : "-");
	if (d->save_dir) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%ld.eml", d->save_dir, d->handled + 1);
		f = fopen(path, "wb");
		if (!f || fwrite(raw, 1, len, f) != len || fclose(f)) {
			printf("bad: cannot write %s\n", path);
			return BB_ERR_IO;
		}
	}
	if (position && d->keep_position) {
		free(d->last_position);
		d->last_position = strdup(position);
	}
	d->handled++;
	return BB_OK;
}

static char *read_cursor(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1 << 16];

	if (!f)
		return NULL;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	return line[0] ? strdup(line) : NULL;
}

static int write_cursor(const char *path, const char *cursor)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s\n", cursor) < 0 || fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "archive-dump: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: archive-dump [--state DIR] [--cursor-file FILE] [--tail] "
			"[--thread MSGID] [--stop-after N] [--probe-interval S] [--max-size N] [--quiet] "
			"[--timeout S] [--save-dir DIR] KIND URL-OR-PATH\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct archive_options opt;
	struct archive_source *src = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct dump d = { -1, 0, NULL, 0, NULL, 0 };
	const char *cursor_file = NULL, *thread = NULL;
	char *cursor = NULL, *next = NULL;
	const struct archive_stats *s;
	struct timespec t0, t1;
	enum bb_status st;
	int tail = 0, i, rc;

	memset(&opt, 0, sizeof(opt));
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "--tail")) {
			tail = 1;
			continue;
		}
		if (!strcmp(o, "--quiet")) {
			d.quiet = 1;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		if (!strcmp(o, "--state"))
			opt.state_dir = argv[++i];
		else if (!strcmp(o, "--cursor-file"))
			cursor_file = argv[++i];
		else if (!strcmp(o, "--thread"))
			thread = argv[++i];
		else if (!strcmp(o, "--stop-after"))
			d.stop_after = atol(argv[++i]);
		else if (!strcmp(o, "--probe-interval"))
			opt.epoch_probe_interval = atol(argv[++i]);
		else if (!strcmp(o, "--max-size"))
			opt.max_message_size = (size_t)atol(argv[++i]);
		else if (!strcmp(o, "--timeout"))
			opt.timeout = atol(argv[++i]);
		else if (!strcmp(o, "--save-dir"))
			d.save_dir = argv[++i];
		else
			usage();
	}
	if (argc - i != 2)
		usage();
	opt.kind = argv[i];
	if (!strcmp(opt.kind, "maildir") || !strcmp(opt.kind, "mbox") || argv[i + 1][0] == '/')
		opt.path = argv[i + 1];   /* a local public-inbox too */
	else
		opt.url = argv[i + 1];
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "archive-dump: curl_global_init failed\n");
		return 1;
	}
	if (cursor_file)
		cursor = read_cursor(cursor_file);
	d.keep_position = cursor_file != NULL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	st = archive_source_new(&src, &opt, &err);
	if (!st) {
		if (thread)
			st = archive_fetch_thread(src, thread, on_message, &d, &err);
		else if (tail)
			st = archive_tail(src, &next, &err);
		else
			st = archive_poll(src, cursor, on_message, &d, &next, &err);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rc = 0;
	if (st == BB_ERR_INTERRUPTED && d.stop_after >= 0) {
		printf("stopped %s\n", status_str(st));
	} else if (st) {
		printf("error %s %s %s\n", status_str(st), retry_str(status_retry_class(st)),
		       err.message);
		if (err.code != st)
			printf("bad: err.code %s differs from the status\n", status_str(err.code));
		rc = 1;
	} else if (next) {
		printf("cursor %s\n", next);
	}
	if (cursor_file) {
		if (!st && next)
			rc |= write_cursor(cursor_file, next) ? 1 : 0;
		else if (d.last_position)
			rc |= write_cursor(cursor_file, d.last_position) ? 1 : 0;
	}
	if (src) {
		s = archive_source_stats(src);
		printf("stats clones=%lu fetches=%lu git=%lu probes=%lu http=%lu messages=%lu "
		       "skipped=%lu rewinds=%lu gaps=%lu\n", s->git_clones, s->git_fetches,
		       s->git_commands, s->epoch_probes, s->http_requests, s->messages, s->skipped,
		       s->rewinds, s->gaps);
	}
	printf("time_ms %lld\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000 +
				 (t1.tv_nsec - t0.tv_nsec) / 1000000);
	archive_source_free(src);
	free(cursor);
	free(next);
	free(d.last_position);
	curl_global_cleanup();
	return rc;
}
