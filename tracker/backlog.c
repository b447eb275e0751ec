/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Open bugs and open regressions per week, and their chart (backlog.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "bugzilla/bug.h"
#include "core/clock.h"
#include "tracker/backlog.h"

#define DAY 86400
#define WEEK (7 * DAY)

/* The chart's frame, in SVG user units. */
#define SVG_W 640
#define SVG_H 200
#define PLOT_LEFT 48
#define PLOT_RIGHT 630
#define PLOT_TOP 28
#define PLOT_BOTTOM 168

/* Each public bug (kind 0) and each regression (kind 1) that was open at
 * some time in [?1, ?2]: when it was filed and when it was closed (NULL:
 * open).  One pass over the tables, whatever their size; the weeks are
 * counted in C. */
static const char backlog_sql[] =
	"SELECT 0, b.creation_time, CASE WHEN b.resolution = '' THEN NULL ELSE b.last_change_time END"
	" FROM imp_bug b WHERE " BZ_IMP_BUG_PUBLIC_SQL_AS("b.") " AND b.creation_time <= ?2"
	" AND (b.resolution = '' OR b.last_change_time > ?1)"
	" UNION ALL"
	" SELECT 0, m.creation_time, CASE WHEN m.resolution = '' THEN NULL ELSE m.last_change_time END"
	" FROM bz_bug m WHERE " BZ_BUG_PUBLIC_SQL_AS("m.") " AND m.id NOT IN (SELECT id FROM imp_bug)"
	" AND m.creation_time <= ?2 AND (m.resolution = '' OR m.last_change_time > ?1)"
	" UNION ALL"
	" SELECT 1, created, CASE WHEN state IN ('open', 'fix-incoming') THEN NULL ELSE updated END"
	" FROM reg_regression WHERE created <= ?2"
	" AND (state IN ('open', 'fix-incoming') OR updated > ?1)";

enum bb_status backlog_count(struct store *db, time_t now, struct backlog *out,
			     struct bb_error *err)
{
	sqlite3_stmt *q = NULL;
	time_t end = (now / DAY + 1) * DAY; /* the end of now's UTC day */
	enum bb_status st;
	int rc;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < BACKLOG_WEEKS; i++)
		out->end[i] = end - (time_t)(BACKLOG_WEEKS - 1 - i) * WEEK;
	if ((st = store_prepare(db, &q, backlog_sql, err)))
		return st;
	sqlite3_bind_int64(q, 1, (sqlite3_int64)out->end[0]);
	sqlite3_bind_int64(q, 2, (sqlite3_int64)end);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		long long *count = sqlite3_column_int(q, 0) ? out->regressions : out->bugs;
		time_t created = (time_t)sqlite3_column_int64(q, 1);
		int open = sqlite3_column_type(q, 2) == SQLITE_NULL;
		time_t closed = (time_t)sqlite3_column_int64(q, 2);

		for (int i = 0; i < BACKLOG_WEEKS; i++)
			if (created <= out->end[i] && (open || closed > out->end[i]))
				count[i]++;
	}
	if (rc != SQLITE_DONE)
		st = store_fail(db, err, "counting the backlog");
	sqlite3_finalize(q);
	return st;
}

static void series(struct buf *out, const char *cls, const char *color, const long long *v,
		   long long max)
{
	buf_addf(out, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		      "data-counts=\"", cls, color);
	for (int i = 0; i < BACKLOG_WEEKS; i++)
		buf_addf(out, "%s%lld", i ? " " : "", v[i]);
	buf_addstr(out, "\" points=\"");
	for (int i = 0; i < BACKLOG_WEEKS; i++) {
		double x = PLOT_LEFT + (double)(PLOT_RIGHT - PLOT_LEFT) * i / (BACKLOG_WEEKS - 1);
		double y = PLOT_BOTTOM - (double)(PLOT_BOTTOM - PLOT_TOP) * (double)v[i] / (double)max;

		buf_addf(out, "%s%.1f,%.1f", i ? " " : "", x, y);
	}
	buf_addstr(out, "\"/>\n");
}

enum bb_status backlog_svg(const struct backlog *b, struct buf *out)
{
	long long max = 1;
	char first[16], last[16];
	const int n = BACKLOG_WEEKS - 1;

	for (int i = 0; i < BACKLOG_WEEKS; i++) {
		if (b->bugs[i] > max)
			max = b->bugs[i];
		if (b->regressions[i] > max)
			max = b->regressions[i];
	}
	bb_day_text(b->end[0], first, sizeof(first));
	bb_day_text(b->end[n], last, sizeof(last));
	buf_addf(out, "<figure id=\"backlog\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		      "role=\"img\" aria-labelledby=\"backlog-title\" width=\"%d\" height=\"%d\" "
		      "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
		      "<title id=\"backlog-title\">Open bugs and open regressions per week, weeks "
		      "ending %s to %s</title>\n", SVG_W, SVG_H, SVG_W, SVG_H, first, last);
	/* axes, the top value and the dates */
	buf_addf(out, "<path d=\"M%d %d V%d H%d\" fill=\"none\" stroke=\"#888\"/>\n"
		      "<path d=\"M%d %d H%d\" fill=\"none\" stroke=\"#ddd\"/>\n",
		 PLOT_LEFT, PLOT_TOP, PLOT_BOTTOM, PLOT_RIGHT, PLOT_LEFT, PLOT_TOP, PLOT_RIGHT);
	buf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%lld</text>\n"
		      "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n"
		      "<text x=\"%d\" y=\"%d\">%s</text>\n"
		      "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
		 PLOT_LEFT - 6, PLOT_TOP + 4, max, PLOT_LEFT - 6, PLOT_BOTTOM + 4, PLOT_LEFT,
		 PLOT_BOTTOM + 18, first, PLOT_RIGHT, PLOT_BOTTOM + 18, last);
	series(out, "bugs", "#1f5fa8", b->bugs, max);
	series(out, "regressions", "#c0392b", b->regressions, max);
	/* the legend */
	buf_addf(out, "<rect x=\"%d\" y=\"8\" width=\"12\" height=\"3\" fill=\"#1f5fa8\"/>"
		      "<text x=\"%d\" y=\"13\">open bugs</text>\n"
		      "<rect x=\"%d\" y=\"8\" width=\"12\" height=\"3\" fill=\"#c0392b\"/>"
		      "<text x=\"%d\" y=\"13\">open regressions</text>\n</svg>\n",
		 PLOT_LEFT, PLOT_LEFT + 16, PLOT_LEFT + 110, PLOT_LEFT + 126);
	return buf_addf(out, "<figcaption>Open bugs and open regressions per week over the last "
			     "year: %lld and %lld now, %lld and %lld a year ago.</figcaption>\n"
			     "</figure>\n", b->bugs[n], b->regressions[n], b->bugs[0],
			b->regressions[0]);
}
