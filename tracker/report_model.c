/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The model a report run reads, and the helpers its writers share
 * (report_model.h). */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/text.h"
#include "tracker/links.h"
#include "tracker/report_model.h"

/* ------------------------------------------------------------ cleaning */

/* 1 for the bytes a page or a file never carries: C0 controls but tab and
 * line feed, and DEL. */
static int drop_byte(unsigned char c)
{
	return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f;
}

/* 1 if text needs no cleaning: valid UTF-8 without C0/C1 controls (tab
 * and line feed allowed), format characters (core/text.h) and
 * U+FFFE/U+FFFF. */
int reg_report_is_clean(const char *text)
{
	const unsigned char *r = (const unsigned char *)text;
	int ascii = 1;

	for (; *r; r++) {
		if (*r < 0x80) {
			if (drop_byte(*r))
				return 0;
			continue;
		}
		ascii = 0;
		if ((r[0] == 0xc2 && r[1] >= 0x80 && r[1] <= 0x9f) ||
		    (r[0] == 0xef && r[1] == 0xbf && r[2] >= 0xbe))
			return 0;
	}
	if (ascii)
		return 1;
	if (!g_utf8_validate(text, -1, NULL))
		return 0;
	for (const char *p = text; *p; p = g_utf8_next_char(p))
		if ((unsigned char)*p >= 0xc2 && text_is_format_char(g_utf8_get_char(p)))
			return 0;
	return 1;
}

/* A clean copy of text (g_free() it): valid UTF-8 without C0/C1 controls
 * (tab and line feed kept), format characters (a bidi override would make
 * a title read other than it is) and U+FFFE/U+FFFF (not XML). */
char *reg_report_clean_dup(const char *text)
{
	char *valid, *w;
	const char *r;

	if (!text)
		return g_strdup("");
	if (reg_report_is_clean(text))
		return g_strdup(text);
	valid = g_utf8_make_valid(text, -1);
	w = valid;
	for (r = valid; *r;) {
		gunichar c = g_utf8_get_char(r);
		const char *next = g_utf8_next_char(r);

		if (!(c < 0x20 && c != '\t' && c != '\n') && !(c >= 0x7f && c <= 0x9f) &&
		    c != 0xfffe && c != 0xffff && !text_is_format_char(c)) {
			memmove(w, r, (size_t)(next - r));
			w += next - r;
		}
		r = next;
	}
	*w = '\0';
	return valid;
}

void reg_report_format_time(char *out, size_t len, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%d %H:%M UTC", &tm);
}

/* Whole days from then to now (0 for the future). */
long long reg_report_days_between(time_t then, time_t now)
{
	return then && now > then ? (long long)(now - then) / DAY : 0;
}

const char *reg_report_plural(long long n)
{
	return n == 1 ? "" : "s";
}

/* ------------------------------------------------------------ loading */

/* First index in sorted keys[0..n) holding a value >= key. */
static size_t lower_bound(const long long *keys, size_t n, long long key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int by_id_cmp(const void *a, const void *b)
{
	long long x = ((const struct id_index *)a)->id, y = ((const struct id_index *)b)->id;

	return x < y ? -1 : x > y;
}

/* The item of regression id, or NULL. */
const struct reg_report_item *reg_report_item_by_id(const struct report_data *d, long long id)
{
	size_t lo = 0, hi = d->nregs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		long long v = d->by_id[mid].id;

		if (v == id)
			return &d->items[d->by_id[mid].index];
		if (v < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void reg_report_data_release(struct report_data *d)
{
	for (size_t i = 0; i < d->nregs; i++)
		reg_regression_release(&d->regs[i]);
	free(d->regs);
	free(d->items);
	free(d->by_id);
	reg_links_free(d->links, d->nlinks);
	free(d->link_reg);
	reg_events_free(d->events, d->nevents);
	free(d->event_reg);
	reg_unhandled_free(d->unhandled, d->nunhandled);
	memset(d, 0, sizeof(*d));
}

enum bb_status reg_report_data_load(struct store *db, const struct bb_config *cfg, time_t now,
				    struct report_data *d, struct bb_error *err)
{
	long long stale_after = cfg->tracker_stale_after > 0 ? cfg->tracker_stale_after : 90 * DAY;
	enum bb_status st;

	memset(d, 0, sizeof(*d));
	if ((st = reg_load_all(db, now, stale_after, &d->regs, &d->nregs, err)) ||
	    (st = reg_load_all_links(db, &d->links, &d->link_reg, &d->nlinks, err)) ||
	    (st = reg_load_all_events(db, &d->events, &d->event_reg, &d->nevents, err)) ||
	    (st = reg_load_unhandled(db, REG_REPORT_UNHANDLED_MAX, &d->unhandled, &d->nunhandled,
				     err)) ||
	    (st = reg_report_last_sent(db, cfg, now, &d->last_report, err)))
		goto out;
	/* what is published names people, not their addresses, unless
	 * [mail] show_addresses says otherwise */
	if (!cfg->mail_show_addresses) {
		for (size_t i = 0; i < d->nregs; i++)
			reg_regression_hide_addresses(&d->regs[i]);
		for (size_t i = 0; i < d->nevents; i++)
			reg_event_hide_addresses(&d->events[i]);
		for (size_t i = 0; i < d->nunhandled; i++) {
			/* "#regzbot from: Name <address>" that could not be acted on */
			char *line = text_hide_addresses(d->unhandled[i].line);

			if (line) {
				free(d->unhandled[i].line);
				d->unhandled[i].line = line;
			}
		}
	}
	d->items = calloc(d->nregs ? d->nregs : 1, sizeof(*d->items));
	d->by_id = calloc(d->nregs ? d->nregs : 1, sizeof(*d->by_id));
	if (!d->items || !d->by_id) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < d->nregs; i++) {
		struct reg_report_item *it = &d->items[i];
		long long id = d->regs[i].id;
		size_t a = lower_bound(d->link_reg, d->nlinks, id);
		size_t b = lower_bound(d->link_reg, d->nlinks, id + 1);

		it->r = &d->regs[i];
		it->links = d->links ? d->links + a : NULL;
		it->nlinks = b - a;
		a = lower_bound(d->event_reg, d->nevents, id);
		b = lower_bound(d->event_reg, d->nevents, id + 1);
		it->events = d->events ? d->events + a : NULL;
		it->nevents = b - a;
		d->by_id[i].id = id;
		d->by_id[i].index = i;
	}
	qsort(d->by_id, d->nregs, sizeof(*d->by_id), by_id_cmp);
out:
	if (st)
		reg_report_data_release(d);
	return st;
}

/* ------------------------------------------------------------ links */

/* The link to a mail (malloc'd), NULL when out of memory. */
char *reg_report_mail_link(const char *mail_url, const char *message_id)
{
	return reg_link_mail(mail_url, message_id);
}

char *reg_report_bug_link(const char *bugzilla_url, long long bug_id)
{
	if (!bugzilla_url || !*bugzilla_url || bug_id <= 0)
		return NULL;
	return str_printf("%s/show_bug.cgi?id=%lld", bugzilla_url, bug_id);
}

/* Where a regression was reported: its report URL, else the link to its
 * report mail, else its bug; malloc'd or NULL. */
char *reg_report_link(const struct reg_regression *r, const char *mail_url,
		      const char *bugzilla_url)
{
	if (r->report_url && *r->report_url)
		return strdup(r->report_url);
	if (r->report_msgid && *r->report_msgid)
		return reg_report_mail_link(mail_url, r->report_msgid);
	return reg_report_bug_link(bugzilla_url, r->bug_id);
}

/* ------------------------------------------------------------ sections */

int reg_report_is_active(const struct reg_regression *r)
{
	return r->state == REG_STATE_OPEN || r->state == REG_STATE_FIX_INCOMING;
}

/* ------------------------------------------------------------ pages */

void reg_report_p_raw(struct page *p, const char *s)
{
	if (!p->st)
		p->st = buf_addstr(&p->b, s);
}

__attribute__((format(printf, 2, 3)))
void reg_report_p_fmt(struct page *p, const char *fmt, ...)
{
	va_list ap;

	if (p->st)
		return;
	va_start(ap, fmt);
	p->st = buf_vaddf(&p->b, fmt, ap);
	va_end(ap);
}
