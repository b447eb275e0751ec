/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <sys/stat.h>
#include <sys/uio.h>

#include <glib.h>
#include <openssl/rand.h>
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "core/buf.h"
#include "core/log.h"

static FILE *log_sink;
static enum log_level log_max_level = LOG_LEVEL_INFO;
static char log_run[9];
static int log_to_journal;	/* the sink is journald's stream: send natively */
static int log_sink_journal;	/* the sink is journald's stream, socket or not */

/* syslog priorities of our levels, for the journal */
static const int level_priority[] = { 3, 4, 6, 7 };

static const char *const level_names[] = { "error", "warn", "info", "debug" };

void log_setup(FILE *sink, enum log_level level, const char *run_id)
{
	log_sink = sink;
	log_max_level = level;
	/* sd_journal_sendv() drops records silently when journald's socket is
	 * missing, so a stale JOURNAL_STREAM must not take the lines away */
	log_sink_journal = sink && log_stream_is_journal(fileno(sink));
	log_to_journal = log_sink_journal && access("/run/systemd/journal/socket", W_OK) == 0;
	if (run_id) {
		snprintf(log_run, sizeof(log_run), "%s", run_id);
	} else {
		unsigned char r[4] = { 0 };

		if (RAND_bytes(r, sizeof(r)) != 1) {
			unsigned long x = (unsigned long)time(NULL) ^ (unsigned long)clock();

			memcpy(r, &x, sizeof(r));
		}
		snprintf(log_run, sizeof(log_run), "%02x%02x%02x%02x",
			 r[0], r[1], r[2], r[3]);
	}
}

int log_stream_is_journal(int fd)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char tail;

	/* systemd sets JOURNAL_STREAM=<device>:<inode> of the stream it
	 * connected to stdout/stderr; a redirected stderr no longer matches */
	if (fd < 0 || !env || sscanf(env, "%llu:%llu%c", &dev, &ino, &tail) != 2)
		return 0;
	if (fstat(fd, &st) != 0)
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

const char *log_run_id(void)
{
	return log_run[0] ? log_run : "00000000";
}

int log_level_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (!strcasecmp(name, level_names[i]))
			return (int)i;
	if (!strcasecmp(name, "warning"))
		return LOG_LEVEL_WARN;
	return -1;
}

const char *log_level_name(enum log_level level)
{
	if ((unsigned)level < sizeof(level_names) / sizeof(level_names[0]))
		return level_names[level];
	return "unknown";
}

int log_key_is_secret(const char *key)
{
	static const char *const words[] = {
		"token", "password", "passwd", "secret", "api_key", "apikey",
		"cookie", "authorization", "credential",
	};
	char lower[64];
	size_t i;

	for (i = 0; key[i] && i < sizeof(lower) - 1; i++)
		lower[i] = (char)tolower((unsigned char)key[i]);
	lower[i] = '\0';
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(lower, words[i]))
			return 1;
	return 0;
}

static int needs_quoting(const char *s)
{
	if (!*s)
		return 1;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f)
			return 1;
	}
	return 0;
}

static void add_value(struct buf *line, const char *s)
{
	if (!s) {
		buf_addstr(line, "-");
		return;
	}
	if (!needs_quoting(s)) {
		buf_addstr(line, s);
		return;
	}
	buf_addch(line, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			buf_addch(line, '\\');
			buf_addch(line, (char)c);
		} else if (c == '\n') {
			buf_addstr(line, "\\n");
		} else if (c == '\t') {
			buf_addstr(line, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			buf_addf(line, "\\x%02x", c);
		} else {
			buf_addch(line, (char)c);
		}
	}
	buf_addch(line, '"');
}

/* "hash" -> "BB_HASH": journal field names are upper case letters, digits
 * and '_', and must not start with '_' (those are trusted fields). */
static void add_journal_name(struct buf *out, const char *key)
{
	buf_addstr(out, "BB_");
	for (const char *p = key; *p; p++)
		buf_addch(out, isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_');
	buf_addch(out, '=');
}

/* A field's value: quoted as logfmt needs it, or as it is (journal
 * fields carry any byte); secrets are redacted either way. */
static void add_field_value(struct buf *out, const struct log_field *f, int quoted)
{
	if (f->type == LOG_FIELD_SECRET || log_key_is_secret(f->key)) {
		buf_addstr(out, "<redacted>");
		return;
	}
	switch (f->type) {
	case LOG_FIELD_STR:
		if (quoted)
			add_value(out, f->s);
		else
			buf_addstr(out, f->s ? f->s : "");
		break;
	case LOG_FIELD_INT:
		buf_addf(out, "%lld", f->i);
		break;
	case LOG_FIELD_UINT:
		buf_addf(out, "%llu", f->u);
		break;
	case LOG_FIELD_SECRET:
		break;
	}
}

/* The logfmt text after "ts=… level=… run=… event=" (no newline). */
static void add_logfmt_fields(struct buf *line, const struct log_field *fields, size_t nfields)
{
	for (size_t i = 0; i < nfields; i++) {
		buf_addf(line, " %s=", fields[i].key);
		add_field_value(line, &fields[i], 1);
	}
}

size_t log_journal_record(enum log_level level, const char *event,
			  const struct log_field *fields, size_t nfields, struct buf *out)
{
	/* syslog priorities: err, warning, info, debug */
	size_t n = 0;

	buf_addstr(out, "MESSAGE=");
	add_value(out, event);
	add_logfmt_fields(out, fields, nfields);
	buf_addch(out, '\0');
	buf_addf(out, "PRIORITY=%d", level_priority[(unsigned)level < 4 ? level : LOG_LEVEL_DEBUG]);
	buf_addch(out, '\0');
	buf_addstr(out, "SYSLOG_IDENTIFIER=bugbridge");
	buf_addch(out, '\0');
	buf_addf(out, "BB_EVENT=%s", event);
	buf_addch(out, '\0');
	buf_addf(out, "BB_RUN=%s", log_run_id());
	buf_addch(out, '\0');
	n = 5;
	for (size_t i = 0; i < nfields; i++) {
		add_journal_name(out, fields[i].key);
		add_field_value(out, &fields[i], 0);
		buf_addch(out, '\0');
		n++;
	}
	return n;
}

/* Sends one record over journald's native protocol; values may hold any
 * byte but NUL, newlines included.  Returns 0 when the journal took it. */
static int send_journal(enum log_level level, const char *event,
			const struct log_field *fields, size_t nfields)
{
	struct buf rec;
	struct iovec *iov;
	size_t n, i = 0;
	int rc = -1;

	buf_init(&rec);
	n = log_journal_record(level, event, fields, nfields, &rec);
	iov = calloc(n, sizeof(*iov));
	if (iov) {
		for (const char *p = rec.data; i < n && p < rec.data + rec.len; i++) {
			iov[i].iov_base = (void *)p;
			iov[i].iov_len = strlen(p);
			p += iov[i].iov_len + 1;
		}
		rc = sd_journal_sendv(iov, (int)i) < 0 ? -1 : 0;
	}
	free(iov);
	buf_release(&rec);
	return rc;
}

void log_fields(enum log_level level, const char *event,
		const struct log_field *fields, size_t nfields)
{
	struct buf line;
	char ts[32];
	struct tm tm;
	time_t now;

	if (!log_sink || level > log_max_level)
		return;
	if (log_to_journal && send_journal(level, event, fields, nfields) == 0)
		return;
	buf_init_capped(&line, 64 * 1024);
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* on journald's stream (its socket not there to take the record
	 * natively), the line's priority as a "<N>" prefix journald reads */
	if (log_sink_journal)
		buf_addf(&line, "<%d>", level_priority[(unsigned)level < 4 ? level : LOG_LEVEL_DEBUG]);
	buf_addf(&line, "ts=%s level=%s run=%s event=", ts,
		 log_level_name(level), log_run_id());
	add_value(&line, event);
	add_logfmt_fields(&line, fields, nfields);
	buf_addch(&line, '\n');
	flockfile(log_sink);
	fwrite(line.data, 1, line.len, log_sink);
	fflush(log_sink);
	funlockfile(log_sink);
	buf_release(&line);
}

/* A GLib level as a level of ours. */
static enum log_level glib_level(GLogLevelFlags flags)
{
	if (flags & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
		return LOG_LEVEL_ERROR;
	if (flags & G_LOG_LEVEL_WARNING)
		return LOG_LEVEL_WARN;
	if (flags & (G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO))
		return LOG_LEVEL_INFO;
	return LOG_LEVEL_DEBUG;
}

/* A field's text, if it is one (length -1: NUL-terminated). */
static const char *glib_field(const GLogField *fields, gsize n, const char *key)
{
	for (gsize i = 0; i < n; i++)
		if (fields[i].length < 0 && !strcmp(fields[i].key, key))
			return fields[i].value;
	return NULL;
}

static GLogWriterOutput glib_writer(GLogLevelFlags flags, const GLogField *fields, gsize n,
				    gpointer data)
{
	const char *domain = glib_field(fields, n, "GLIB_DOMAIN");
	const char *message = glib_field(fields, n, "MESSAGE");

	if (!log_sink)
		return g_log_writer_default(flags, fields, n, data);
	/* GLib's own rule for its debug and info messages (G_MESSAGES_DEBUG) */
	if (g_log_writer_default_would_drop(flags, domain))
		return G_LOG_WRITER_HANDLED;
	log_event(glib_level(flags), "glib.message", LF_STR("domain", domain ? domain : "-"),
		  LF_STR("message", message ? message : ""));
	return G_LOG_WRITER_HANDLED;
}

void log_capture_glib(void)
{
	static gsize once;

	/* GLib takes a writer once per process */
	if (g_once_init_enter(&once)) {
		g_log_set_writer_func(glib_writer, NULL, NULL);
		g_once_init_leave(&once, 1);
	}
}
