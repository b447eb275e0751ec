/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <json-c/json.h>

#include "cli/cli.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/text.h"
#include "mail/outbox.h"

#define CLI_SAFE_RING 16

const char *cli_safe(const char *text)
{
	static char *ring[CLI_SAFE_RING];
	static unsigned next;
	struct buf b = BUF_INIT;
	const char *p = text ? text : "", *end = p + strlen(p);
	char **slot = &ring[next++ % CLI_SAFE_RING];

	while (p < end) {
		gunichar c = g_utf8_get_char_validated(p, end - p);

		if (c == (gunichar)-1 || c == (gunichar)-2) {
			buf_addf(&b, "\\x%02x", (unsigned char)*p);
			p++;
			continue;
		}
		if (c == '\\')
			buf_addstr(&b, "\\\\");
		else if (c < 0x100 && text_is_control_char(c))
			buf_addf(&b, "\\x%02x", (unsigned)c);
		else if (text_is_control_char(c) || text_is_format_char(c))
			buf_addf(&b, "\\u%04x", (unsigned)c);
		else
			buf_add(&b, p, (size_t)(g_utf8_next_char(p) - p));
		p = g_utf8_next_char(p);
	}
	free(*slot);
	*slot = buf_detach(&b, NULL);
	return *slot ? *slot : "";
}

/* Standard error is journald's stream (a unit's): each line then starts
 * with its syslog priority, "<3>" (sd-daemon(3)), which journald reads
 * and strips, so that "journalctl -p warning" shows it.  Asked once. */
static int stderr_is_journal(void)
{
	static int known, journal;

	if (!known) {
		journal = log_stream_is_journal(STDERR_FILENO);
		known = 1;
	}
	return journal;
}

/* One message to standard error at syslog priority prio (2 crit, 3 err,
 * 4 warning), a line each of its lines. */
static void say(int prio, const char *what, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void say(int prio, const char *what, const char *fmt, va_list ap)
{
	char *text = g_strdup_vprintf(fmt, ap), *line = text, *nl;

	do {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (stderr_is_journal())
			fprintf(stderr, "<%d>", prio);
		fprintf(stderr, "bugbridge: %s%s\n", line == text ? what : "", line);
		line = nl ? nl + 1 : NULL;
	} while (line && *line);
	g_free(text);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(3, "", fmt, ap);
	va_end(ap);
}

void cli_crit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(2, "", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(4, "warning: ", fmt, ap);
	va_end(ap);
}

int cli_delivery_exit(const struct outbox_stats *st)
{
	if (st->failed)
		return EX_DATAERR;
	if (st->deferred)
		return EX_TEMPFAIL;
	return EX_OK;
}

int cli_exit_code(enum bb_status st)
{
	switch (st) {
	case BB_OK: return EX_OK;
	case BB_ERR_NOMEM: return EX_OSERR;
	case BB_ERR_IO: return EX_IOERR;
	case BB_ERR_NO_SPACE: return EX_TEMPFAIL;
	case BB_ERR_NOT_FOUND: return EX_NOINPUT;
	case BB_ERR_INVALID: return EX_DATAERR;
	case BB_ERR_TOO_LARGE: return EX_DATAERR;
	case BB_ERR_CORRUPT: return EX_DATAERR;
	case BB_ERR_AUTH: return EX_NOPERM;
	case BB_ERR_DATABASE: return EX_IOERR;
	case BB_ERR_CONFIG: return EX_CONFIG;
	case BB_ERR_TEMPORARY: return EX_TEMPFAIL;
	case BB_ERR_PERMISSION: return EX_NOPERM;
	case BB_ERR_BUSY: return EX_TEMPFAIL;
	case BB_ERR_PROTOCOL: return EX_PROTOCOL;
	case BB_ERR_UNSUPPORTED: return EX_DATAERR;
	case BB_ERR_INTERRUPTED: return EX_TEMPFAIL;
	case BB_ERR_INTERNAL: return EX_SOFTWARE;
	}
	return EX_SOFTWARE;
}

int cli_fail(const struct bb_error *err)
{
	/* a configuration the program cannot start with: crit, for the unit */
	if (err->code == BB_ERR_CONFIG)
		cli_crit("%s", err->message[0] ? err->message : status_str(err->code));
	else
		cli_error("%s", err->message[0] ? err->message : status_str(err->code));
	return cli_exit_code(err->code ? err->code : BB_ERR_INTERNAL);
}

int cli_usage(FILE *out, const char *usage)
{
	fputs(usage, out);
	return out == stdout ? EX_OK : EX_USAGE;
}

void cli_print_json(struct json_object *obj)
{
	const char *p = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE);
	const char *end = p + strlen(p);

	/* json-c escapes only C0: DEL, C1 and format characters (bidi
	 * overrides, ...) become \u escapes too, the same JSON for a parser
	 * and harmless on a terminal.  Outside strings JSON is ASCII. */
	while (p < end) {
		gunichar c = g_utf8_get_char_validated(p, end - p);
		const char *next = c == (gunichar)-1 || c == (gunichar)-2 ? p + 1
									 : g_utf8_next_char(p);

		if (c != (gunichar)-1 && c != (gunichar)-2 && c >= 0x7f &&
		    (text_is_control_char(c) || text_is_format_char(c))) {
			if (c > 0xffff)
				printf("\\u%04x\\u%04x", 0xd800 + ((c - 0x10000) >> 10),
				       0xdc00 + ((c - 0x10000) & 0x3ff));
			else
				printf("\\u%04x", (unsigned)c);
		} else {
			fwrite(p, 1, (size_t)(next - p), stdout);
		}
		p = next;
	}
	putchar('\n');
}

/* ------------------------------------------------------------ progress */

struct cli_progress {
	char label[64];
	uint64_t done, total;
	struct timespec start, last;
	int tty;
	int drawn;
};

static double seconds_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

struct cli_progress *cli_progress_start(const char *label, uint64_t total, int quiet)
{
	struct cli_progress *p;

	if (quiet)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	snprintf(p->label, sizeof(p->label), "%s", label);
	p->total = total;
	p->tty = isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->last = p->start;
	return p;
}

void cli_progress_label(struct cli_progress *p, const char *label)
{
	if (p)
		snprintf(p->label, sizeof(p->label), "%s", label);
}

static void draw(struct cli_progress *p, int final)
{
	double elapsed = seconds_since(&p->start);
	double rate = elapsed > 0 ? (double)p->done / elapsed : 0;
	char done[24], total[24], speed[24], eta[48] = "";

	format_size(p->done, done, sizeof(done));
	format_size(p->total, total, sizeof(total));
	format_size((unsigned long long)rate, speed, sizeof(speed));
	if (p->total && rate > 0 && p->done < p->total && !final) {
		unsigned long left = (unsigned long)((double)(p->total - p->done) / rate);

		snprintf(eta, sizeof(eta), " ETA %lu:%02lu", left / 60, left % 60);
	}
	if (p->tty) {
		int pct = p->total ? (int)(p->done * 100 / p->total) : 0;
		int width = 24, filled = p->total ? (int)((uint64_t)width * p->done / p->total) : 0;
		char bar[32];

		for (int i = 0; i < width; i++)
			bar[i] = i < filled ? '#' : '.';
		bar[width] = '\0';
		if (p->total)
			fprintf(stderr, "\r%-20.20s [%s] %3d%% %s/%s %s/s%s\033[K", p->label, bar,
				pct, done, total, speed, eta);
		else
			fprintf(stderr, "\r%-20.20s %s %s/s\033[K", p->label, done, speed);
	} else {
		if (p->total)
			fprintf(stderr, "bugbridge: %s: %s of %s (%s/s)%s\n", p->label, done, total,
				speed, eta);
		else
			fprintf(stderr, "bugbridge: %s: %s (%s/s)\n", p->label, done, speed);
	}
	p->drawn = 1;
	fflush(stderr);
}

void cli_progress_update(struct cli_progress *p, uint64_t done, uint64_t total)
{
	if (!p)
		return;
	p->done = done;
	if (total)
		p->total = total;
	/* redraw at most 10 times a second on a terminal, every 10 s otherwise */
	if (seconds_since(&p->last) < (p->tty ? 0.1 : 10.0))
		return;
	/* nothing for work that ends within a second */
	if (seconds_since(&p->start) < 1.0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &p->last);
	draw(p, 0);
}

void cli_progress_done(struct cli_progress *p)
{
	if (!p)
		return;
	if (p->drawn) {
		draw(p, 1);
		if (p->tty)
			fputc('\n', stderr);
	}
	free(p);
}

void cli_progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	cli_progress_update(ctx, done, total);
}
