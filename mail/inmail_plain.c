/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Plain Date: and msg-id values read without GMime's general parsers (see
 * inmail_plain.h). */
#include "config.h"

#include <string.h>

#include "mail/inmail_plain.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* n digits at *p (exactly n), their value in *out; *p moves past them. */
static int take_digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!is_digit((*p)[i]))
			return 0;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return 1;
}

/* The three letters at *p, one of names (as written there, case and all):
 * its index, *p past them; -1 if none.  The letters are compared as one
 * number (a NUL among them matches no name). */
static int take_name(const char **p, const char *const names[], int count)
{
	const unsigned char *s = (const unsigned char *)*p;
	unsigned key;

	if (!s[0] || !s[1])
		return -1;
	key = (unsigned)s[0] << 16 | (unsigned)s[1] << 8 | s[2];
	for (int i = 0; i < count; i++) {
		const unsigned char *n = (const unsigned char *)names[i];

		if (key == ((unsigned)n[0] << 16 | (unsigned)n[1] << 8 | n[2])) {
			*p += 3;
			return i;
		}
	}
	return -1;
}

static int leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days from 1970-01-01 to y-m-d (m 1-12), of the proleptic Gregorian
 * calendar (Howard Hinnant's days_from_civil()). */
static long long days_from_civil(int y, int m, int d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = y / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int inmail_plain_date(const char *v, long long *t)
{
	static const char *const days[] = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	const char *p = v;
	int day, month, year, hour, min, sec = 0, zh, zm, sign;

	if (take_name(&p, days, 7) >= 0) {
		if (p[0] != ',' || p[1] != ' ')
			return 0;
		p += 2;
	}
	if (!take_digits(&p, is_digit(p[1]) ? 2 : 1, &day) || *p++ != ' ' ||
	    (month = take_name(&p, months, 12)) < 0 || *p++ != ' ' ||
	    !take_digits(&p, 4, &year) || *p++ != ' ' ||
	    !take_digits(&p, 2, &hour) || *p++ != ':' || !take_digits(&p, 2, &min))
		return 0;
	if (*p == ':' && (p++, !take_digits(&p, 2, &sec)))
		return 0;
	if (*p++ != ' ' || (*p != '+' && *p != '-'))
		return 0;
	sign = *p++ == '-' ? -1 : 1;
	if (!take_digits(&p, 2, &zh) || !take_digits(&p, 2, &zm))
		return 0;
	if (*p == ' ' && p[1] == '(') {
		/* one comment, of a zone's name or offset, and nothing after it */
		for (p += 2; *p && *p != ')'; p++)
			if (!(is_digit(*p) || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			      *p == ' ' || *p == '+' || *p == '-' || *p == ':'))
				return 0;
		if (*p++ != ')')
			return 0;
	}
	if (*p)
		return 0;
	if (year < 1970 || day < 1 || day > mdays[month] + (month == 1 && leap(year)) ||
	    hour > 23 || min > 59 || sec > 59 || zh > 23 || zm > 59)
		return 0;
	*t = days_from_civil(year, month + 1, day) * 86400LL + hour * 3600LL + min * 60LL + sec -
	     sign * (zh * 3600LL + zm * 60LL);
	return 1;
}

/* RFC 5322's atext, what a dot-atom's runs are made of: a table, as a
 * References value is read a byte at a time (a strchr() a byte cost more
 * than GMime's parser). */
static const unsigned char atext_table[256] = {
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
	['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
	['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
	['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
	['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
	['8'] = 1, ['9'] = 1,
	['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1, ['+'] = 1,
	['-'] = 1, ['/'] = 1, ['='] = 1, ['?'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['{'] = 1,
	['|'] = 1, ['}'] = 1, ['~'] = 1,
};

static int atext(unsigned char c)
{
	return atext_table[c];
}

/* A dot-atom at p: where it ends, NULL if there is none. */
static const char *dot_atom(const char *p)
{
	for (;;) {
		if (!atext((unsigned char)*p))
			return NULL;
		while (atext((unsigned char)*++p))
			;
		if (*p != '.')
			return p;
		p++;
	}
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Where the msg-id "<dot-atom@dot-atom>" at p ends (past its '>'), NULL
 * if p does not start one. */
static const char *plain_msgid(const char *p)
{
	if (*p != '<' || !(p = dot_atom(p + 1)) || *p != '@' || !(p = dot_atom(p + 1)) || *p != '>')
		return NULL;
	return p + 1;
}

/* How many ids inmail_plain_msgids() keeps the places of while it checks
 * the value, so that it need not read them twice (a References of more
 * has the rest read again). */
#define PLAIN_KEPT 32

int inmail_plain_msgids(const char *v, int (*fn)(void *ctx, const char *id, size_t len),
			void *ctx)
{
	const char *start[PLAIN_KEPT], *end[PLAIN_KEPT], *p;
	size_t kept = 0;

	/* all of it first: fn sees nothing of a value that is not plain */
	for (p = skip_blanks(v); *p; p = skip_blanks(p)) {
		const char *e = plain_msgid(p);

		if (!e)
			return 0;
		if (kept < PLAIN_KEPT) {
			start[kept] = p;
			end[kept++] = e;
		}
		p = e;
	}
	for (size_t i = 0; i < kept; i++)
		if (fn(ctx, start[i] + 1, (size_t)(end[i] - start[i] - 2)))
			return -1;
	for (p = kept == PLAIN_KEPT ? skip_blanks(end[kept - 1]) : ""; *p; p = skip_blanks(p)) {
		const char *e = plain_msgid(p);

		if (fn(ctx, p + 1, (size_t)(e - p - 2)))
			return -1;
		p = e;
	}
	return 1;
}
