#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/rand.h>

#include "core/buf.h"
#include "core/log.h"

static FILE *log_sink;
static enum log_level log_max_level = LOG_LEVEL_INFO;
static char log_run[9];

static const char *const level_names[] = { "error", "warn", "info", "debug" };

void log_setup(FILE *sink, enum log_level level, const char *run_id)
{
	log_sink = sink;
	log_max_level = level;
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

void log_fields(enum log_level level, const char *event,
		const struct log_field *fields, size_t nfields)
{
	struct buf line;
	char ts[32];
	struct tm tm;
	time_t now;

	if (!log_sink || level > log_max_level)
		return;
	buf_init_capped(&line, 64 * 1024);
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	buf_addf(&line, "ts=%s level=%s run=%s event=", ts,
		 log_level_name(level), log_run_id());
	add_value(&line, event);
	for (size_t i = 0; i < nfields; i++) {
		const struct log_field *f = &fields[i];

		buf_addf(&line, " %s=", f->key);
		if (f->type == LOG_FIELD_SECRET || log_key_is_secret(f->key)) {
			buf_addstr(&line, "<redacted>");
			continue;
		}
		switch (f->type) {
		case LOG_FIELD_STR:
			add_value(&line, f->s);
			break;
		case LOG_FIELD_INT:
			buf_addf(&line, "%lld", f->i);
			break;
		case LOG_FIELD_UINT:
			buf_addf(&line, "%llu", f->u);
			break;
		case LOG_FIELD_SECRET:
			break;
		}
	}
	buf_addch(&line, '\n');
	flockfile(log_sink);
	fwrite(line.data, 1, line.len, log_sink);
	fflush(log_sink);
	funlockfile(log_sink);
	buf_release(&line);
}
