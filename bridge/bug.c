#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bridge/bug.h"

static void user_release(struct bz_user *u)
{
	free(u->login);
	free(u->real_name);
}

static void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

void bz_bug_release(struct bz_bug *bug)
{
	if (!bug)
		return;
	free(bug->summary);
	free(bug->product);
	free(bug->component);
	free(bug->status);
	free(bug->resolution);
	free(bug->severity);
	free(bug->priority);
	free(bug->version);
	free(bug->url);
	user_release(&bug->creator);
	user_release(&bug->assigned_to);
	strv_free(bug->keywords);
	strv_free(bug->groups);
	strv_free(bug->cc);
	for (size_t i = 0; i < bug->nfields; i++) {
		free(bug->fields[i].name);
		free(bug->fields[i].value);
	}
	free(bug->fields);
	for (size_t i = 0; i < bug->ncomments; i++) {
		user_release(&bug->comments[i].author);
		free(bug->comments[i].text);
	}
	free(bug->comments);
	for (size_t i = 0; i < bug->nattachments; i++) {
		struct bz_attachment *a = &bug->attachments[i];

		free(a->file_name);
		free(a->summary);
		free(a->content_type);
		user_release(&a->creator);
	}
	free(bug->attachments);
	memset(bug, 0, sizeof(*bug));
}

void bz_bug_free(struct bz_bug *bug)
{
	bz_bug_release(bug);
	free(bug);
}

const char *bz_bug_field(const struct bz_bug *bug, const char *name)
{
	for (size_t i = 0; i < bug->nfields; i++)
		if (!strcmp(bug->fields[i].name, name))
			return bug->fields[i].value;
	return NULL;
}

time_t bz_parse_time(const char *text)
{
	struct tm tm;
	const char *end;
	int off_h = 0, off_m = 0;
	char sign = '+';
	time_t t;

	if (!text)
		return (time_t)-1;
	memset(&tm, 0, sizeof(tm));
	end = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end)
		end = strptime(text, "%Y-%m-%d %H:%M:%S", &tm);
	if (!end)
		return (time_t)-1;
	while (*end == ' ')
		end++;
	if (*end == 'Z' && end[1] == '\0') {
		/* UTC */
	} else if ((*end == '+' || *end == '-') &&
		   sscanf(end + 1, "%2d%*[:]%2d", &off_h, &off_m) >= 1) {
		sign = *end;
		if (strlen(end + 1) == 4 && !strchr(end, ':'))
			sscanf(end + 1, "%2d%2d", &off_h, &off_m);
	} else if (*end == '\0') {
		/* no zone: Bugzilla's times are UTC */
	} else {
		return (time_t)-1;
	}
	t = timegm(&tm);
	if (t == (time_t)-1)
		return t;
	t -= (sign == '-' ? -1 : 1) * (time_t)(off_h * 3600 + off_m * 60);
	return t;
}

void bz_format_time(time_t t, char *out, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
