/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Structured logging: one line per event, key=value pairs.
 *
 *   ts=2026-12-03T09:00:00Z level=info run=1a2b3c4d event=blob.stored hash=… size=42
 *
 * Library code logs through log_event(); only the CLI decides where lines go
 * (log_setup()).  Until log_setup() is called nothing is written.
 *
 * Secrets are never printed: a field made with LF_SECRET(), or whose key names
 * a secret (token, password, api_key, cookie, authorization, secret, …) is
 * written as key=<redacted>.  Values with spaces, quotes, '=' or control
 * characters are quoted with C-style escapes so a line always stays one line.
 * Under systemd, when standard error is the journal, records go to journald
 * natively with their priority and fields (log_stream_is_journal()).
 */
#ifndef BB_LOG_H
#define BB_LOG_H

#include <stdio.h>

enum log_level {
	LOG_LEVEL_ERROR = 0,
	LOG_LEVEL_WARN = 1,
	LOG_LEVEL_INFO = 2,
	LOG_LEVEL_DEBUG = 3,
};

enum log_field_type {
	LOG_FIELD_STR,
	LOG_FIELD_INT,
	LOG_FIELD_UINT,
	LOG_FIELD_SECRET,
};

struct log_field {
	const char *key;
	enum log_field_type type;
	const char *s;
	long long i;
	unsigned long long u;
};

#define LF_STR(k, v)    ((struct log_field){ (k), LOG_FIELD_STR, (v), 0, 0 })
#define LF_INT(k, v)    ((struct log_field){ (k), LOG_FIELD_INT, NULL, (long long)(v), 0 })
#define LF_UINT(k, v)   ((struct log_field){ (k), LOG_FIELD_UINT, NULL, 0, (unsigned long long)(v) })
#define LF_SECRET(k, v) ((struct log_field){ (k), LOG_FIELD_SECRET, (v), 0, 0 })

/* Sends lines of at most level to sink (not owned; NULL silences logging).
 * run_id tags every line; NULL makes a random one.  Not thread-safe: call it
 * before starting threads. */
void log_setup(FILE *sink, enum log_level level, const char *run_id);
/* Parses "error", "warn", "info", "debug"; returns -1 for anything else. */
int log_level_parse(const char *name);
const char *log_level_name(enum log_level level);
/* The current run id (8 hex digits), for tagging other records. */
const char *log_run_id(void);
/* 1 if fd is the stream systemd connected to the journal (JOURNAL_STREAM
 * names its device and inode).  log_setup() then sends records over the
 * journal's native protocol instead: PRIORITY from the level, MESSAGE the
 * logfmt text, and each field as BB_<KEY> (secrets redacted as ever). */
int log_stream_is_journal(int fd);
/* The journal record log_fields() would send, as NUL-terminated
 * "NAME=value" items appended to out; returns how many (for tests). */
struct buf;
size_t log_journal_record(enum log_level level, const char *event,
			  const struct log_field *fields, size_t nfields, struct buf *out);
/* 1 if key names a secret and its value must never be printed. */
int log_key_is_secret(const char *key);

void log_fields(enum log_level level, const char *event,
		const struct log_field *fields, size_t nfields);

/* Makes GLib's log messages (GLib's, GMime's: a g_warning() or a
 * g_critical() in a library) records of this log while log_setup() has
 * given it a sink: event=glib.message with their domain and text, level
 * error for a critical, warn for a warning.  Without a sink they go where
 * GLib sends them.  GLib still stops the process on a message it is told
 * is fatal (G_DEBUG=fatal-criticals, as the tests run). */
void log_capture_glib(void);

/* log_event(LOG_LEVEL_INFO, "blob.stored", LF_STR("hash", h), LF_UINT("size", n)); */
#define log_event(level, event, ...)                                          \
	log_fields((level), (event), (const struct log_field[]){ __VA_ARGS__ }, \
		   sizeof((const struct log_field[]){ __VA_ARGS__ }) /          \
			   sizeof(struct log_field))

#endif
