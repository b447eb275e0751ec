/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>

#include "bugzilla/bug.h"

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
	strv_free(bug->alias);
	user_release(&bug->qa_contact);
	free(bug->target_milestone);
	free(bug->op_sys);
	free(bug->platform);
	free(bug->depends_on);
	free(bug->blocks);
	for (size_t i = 0; i < bug->nfields; i++) {
		free(bug->fields[i].name);
		free(bug->fields[i].value);
	}
	free(bug->fields);
	free(bug->flags);
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

int bz_bug_ids_add(long long **ids, size_t *n, long long id)
{
	long long *grown;
	size_t cap;

	if (id <= 0)
		return 0;
	/* room for powers of two: grows when n is one */
	if (!(*n & (*n - 1))) {
		if (*n > SIZE_MAX / 2 / sizeof(**ids))
			return -1;
		cap = *n ? 2 * *n : 1;
		grown = realloc(*ids, cap * sizeof(**ids));
		if (!grown)
			return -1;
		*ids = grown;
	}
	(*ids)[(*n)++] = id;
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

void bz_bug_ids_tidy(long long *ids, size_t *n)
{
	size_t k = 0;

	if (*n < 2)
		return;
	qsort(ids, *n, sizeof(*ids), id_cmp);
	for (size_t i = 0; i < *n; i++)
		if (!k || ids[k - 1] != ids[i])
			ids[k++] = ids[i];
	*n = k;
}

int bz_bug_is_public(const struct bz_bug *bug)
{
	return !(bug->groups && bug->groups[0] && bug->groups[0][0]);
}

int bz_bug_row_is_public(int mirrored, int restricted)
{
	return mirrored && !restricted;
}

const char *bz_bug_field(const struct bz_bug *bug, const char *name)
{
	for (size_t i = 0; i < bug->nfields; i++)
		if (!strcmp(bug->fields[i].name, name))
			return bug->fields[i].value;
	return NULL;
}

/* The zone abbreviations Bugzilla wrote after a time ("2003-07-03 12:26
 * EDT": the server's zone, as strftime's %Z names it), in minutes east of
 * UTC, for bz_parse_time() and the XML reader alike.  Some names stand for
 * several zones; each means the one listed: IST is Irish Standard Time
 * (Ireland's summer time, +01:00), not India's (+05:30) or Israel's
 * (+02:00); CST is the US Central zone, not China's; KST is Korea's. */
static const struct {
	const char *name;
	int minutes;
} zones[] = {
	{ "UTC", 0 }, { "GMT", 0 }, { "Z", 0 }, { "UT", 0 },
	{ "EST", -300 }, { "EDT", -240 }, { "CST", -360 }, { "CDT", -300 },
	{ "MST", -420 }, { "MDT", -360 }, { "PST", -480 }, { "PDT", -420 },
	{ "AKST", -540 }, { "AKDT", -480 }, { "HST", -600 },
	{ "WET", 0 }, { "WEST", 60 }, { "BST", 60 }, { "IST", 60 },
	{ "CET", 60 }, { "CEST", 120 }, { "MET", 60 }, { "MEST", 120 },
	{ "EET", 120 }, { "EEST", 180 }, { "MSK", 180 },
	{ "JST", 540 }, { "KST", 540 }, { "AEST", 600 }, { "AEDT", 660 },
	{ "NZST", 720 }, { "NZDT", 780 },
};

/* "2003-07-03T12:26" without seconds: GLib's reader wants them. */
static int lacks_seconds(const char *iso)
{
	const char *t = strpbrk(iso, "Tt");

	return t && g_ascii_isdigit(t[1]) && g_ascii_isdigit(t[2]) && t[3] == ':' &&
	       g_ascii_isdigit(t[4]) && g_ascii_isdigit(t[5]) && t[6] != ':';
}

time_t bz_parse_time_as(const char *text, unsigned flags)
{
	char **words = NULL;
	const char *date = NULL, *clock = NULL, *zone = NULL;
	GString *iso = NULL;
	GTimeZone *utc = NULL;
	GDateTime *dt = NULL;
	time_t t = (time_t)-1;
	size_t n = 0;

	if (!text)
		return t;
	/* the date, the clock time (or both joined by 'T'), a zone: words
	 * apart, any white space around them */
	words = g_strsplit_set(text, " \t\r\n", -1);
	for (char **w = words; *w; w++) {
		if (!**w)
			continue;
		if (n == 0)
			date = *w;
		else if (n == 1 && !strpbrk(date, "Tt"))
			clock = *w;
		else if (!zone)
			zone = *w;
		else if (!(flags & BZ_TIME_UNKNOWN_ZONE_UTC))
			goto out;
		n++;
	}
	if (!date)
		goto out;
	iso = g_string_new(date);
	if (clock)
		g_string_append_printf(iso, "T%s", clock);
	if (lacks_seconds(iso->str))
		g_string_insert(iso, (gssize)(strpbrk(iso->str, "Tt") - iso->str) + 6, ":00");
	if (zone && (*zone == '+' || *zone == '-')) {
		g_string_append(iso, zone); /* GLib reads +hh, +hhmm and +hh:mm */
	} else if (zone) {
		size_t i;

		for (i = 0; i < sizeof(zones) / sizeof(zones[0]); i++)
			if (!g_ascii_strcasecmp(zone, zones[i].name))
				break;
		if (i < sizeof(zones) / sizeof(zones[0]))
			g_string_append_printf(iso, "%c%02d:%02d", zones[i].minutes < 0 ? '-' : '+',
					       abs(zones[i].minutes) / 60, abs(zones[i].minutes) % 60);
		else if (!(flags & BZ_TIME_UNKNOWN_ZONE_UTC))
			goto out;
	}
	utc = g_time_zone_new_utc();
	dt = g_date_time_new_from_iso8601(iso->str, utc);
	if (dt)
		t = (time_t)g_date_time_to_unix(dt);
out:
	if (dt)
		g_date_time_unref(dt);
	if (utc)
		g_time_zone_unref(utc);
	if (iso)
		g_string_free(iso, TRUE);
	g_strfreev(words);
	return t;
}

time_t bz_parse_time(const char *text)
{
	return bz_parse_time_as(text, 0);
}

void bz_format_time(time_t t, char *out, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

size_t bz_utf8_sequence(const unsigned char *s, size_t n)
{
	gunichar c;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	c = g_utf8_get_char_validated((const gchar *)s, (gssize)n);
	if (c == (gunichar)-1 || c == (gunichar)-2)
		return 0;
	return (size_t)g_utf8_skip[s[0]];
}
