/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The model a report run reads (report_model.c), and what each of its
 * writers uses: the data loaded from the store once per run (struct
 * report_data), the page or file under construction (struct page), the
 * options every page needs (struct page_ctx), and the text, time and link
 * helpers the pages share.  The writers read it and nothing else of each
 * other: report.c writes the folder and makes the JSON, the Atom feed and
 * the weekly text; report_html.c (report_html.h) makes the HTML pages.
 */
#ifndef BB_TRACKER_REPORT_MODEL_H
#define BB_TRACKER_REPORT_MODEL_H

#include <stddef.h>
#include <time.h>

#include "config/conf.h"
#include "core/buf.h"
#include "core/status.h"
#include "core/store.h"
#include "tracker/report.h"
#include "tracker/tracker.h"

#define DAY 86400LL

/* ------------------------------------------------------------ loading */

struct id_index {
	long long id;
	size_t index;
};

/* What every report reads from the store: the regressions and their
 * items, links, history and unhandled directives.  Read whole by
 * reg_report_data_load() (the regressions as reg_load_all() has them, the
 * links and events with one query each, ordered by regression), released
 * by reg_report_data_release(). */
struct report_data {
	struct reg_regression *regs;
	size_t nregs;
	struct reg_report_item *items;   /* one per regression, same order */
	struct id_index *by_id;          /* items by regression id */
	struct reg_link *links;          /* all of them, by regression */
	long long *link_reg;
	size_t nlinks;
	struct reg_event *events;        /* all of them, by regression, oldest first */
	long long *event_reg;
	size_t nevents;
	struct reg_unhandled *unhandled;
	size_t nunhandled;
	time_t last_report;
};

enum bb_status reg_report_data_load(struct store *db, const struct bb_config *cfg, time_t now,
				    struct report_data *d, struct bb_error *err);
void reg_report_data_release(struct report_data *d);

/* The item of regression id, or NULL. */
const struct reg_report_item *reg_report_item_by_id(const struct report_data *d, long long id);

/* ------------------------------------------------------------ pages */

/* A page or file under construction; the first failure sticks. */
struct page {
	struct buf b;
	enum bb_status st;
};

/* Options every page needs. */
struct page_ctx {
	const struct bb_config *cfg;
	time_t now;
	char generated[40];
	char generated_day[16];
	const char *mail_url;
	const char *bugzilla_url;
	char *base_url;
	const struct report_data *d;
	const char *backlog_svg;   /* the index's chart (tracker/backlog.h), or NULL */
};

/* ------------------------------------------------------------ helpers */

/* 1 if text needs no cleaning; a clean copy of text (g_free() it). */
int reg_report_is_clean(const char *text);
char *reg_report_clean_dup(const char *text);

/* "YYYY-MM-DD HH:MM UTC"; whole days from then to now; "s" unless n is 1. */
void reg_report_format_time(char *out, size_t len, time_t t);
long long reg_report_days_between(time_t then, time_t now);
const char *reg_report_plural(long long n);

/* Links to a mail, a bug and where a regression was reported (malloc'd). */
char *reg_report_mail_link(const char *mail_url, const char *message_id);
char *reg_report_bug_link(const char *bugzilla_url, long long bug_id);
char *reg_report_link(const struct reg_regression *r, const char *mail_url,
		      const char *bugzilla_url);

/* 1 for an open regression or one with a fix incoming. */
int reg_report_is_active(const struct reg_regression *r);

/* Appends to a page, unless it failed already. */
void reg_report_p_raw(struct page *p, const char *s);
__attribute__((format(printf, 2, 3)))
void reg_report_p_fmt(struct page *p, const char *fmt, ...);

#endif
