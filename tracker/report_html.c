/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The regression tracker's HTML pages (report.h): index.html,
 * trees/<name>.html, regression/<id>.html and style.css, with the escaping
 * only the pages use (reg_html_escape(), links only for http(s) URLs).
 * It reads the report model (report_model.h: the data, the page, the
 * shared helpers); tracker/report.c writes the folder and makes the JSON,
 * the Atom feed and the weekly text.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "tracker/report.h"
#include "tracker/report_html.h"
#include "tracker/report_model.h"

const char reg_report_css[] =
	"body{font-family:system-ui,sans-serif;margin:0 auto;max-width:72em;padding:0 1em;"
	"color:#1d1d1f;background:#fff;line-height:1.4}\n"
	"header,footer{color:#555;font-size:.9em;margin:1em 0}\n"
	"nav a{margin-right:1em}\n"
	"h1{font-size:1.5em;overflow-wrap:anywhere}h2{font-size:1.2em;margin-top:1.5em}\n"
	"table{border-collapse:collapse;width:100%}\n"
	"th,td{text-align:left;vertical-align:top;padding:.25em .5em;border-bottom:1px solid #ddd;"
	"overflow-wrap:anywhere}\n"
	"table.facts th{width:10em;white-space:nowrap}\n"
	"td.num{text-align:right;white-space:nowrap}\n"
	".state{display:inline-block;padding:0 .4em;border-radius:.3em;background:#eee;"
	"font-size:.9em}\n"
	".state-open{background:#fdd}.state-fix-incoming{background:#ffd}"
	".state-fixed{background:#dfd}\n"
	".badge{display:inline-block;padding:0 .4em;border-radius:.3em;background:#ddd;"
	"font-size:.8em;margin-left:.3em}\n"
	".badge-stale{background:#e8d5ff}.badge-backburner{background:#d5e8ff}\n"
	"tr.stale td{color:#777}\n"
	"pre,code{font-family:ui-monospace,monospace;font-size:.9em}\n"
	".empty{color:#777;font-style:italic}\n";

/* No script, no frames, no forms; the style sheet from the same place. */
static const char report_csp[] = "default-src 'none'; style-src 'self'; img-src 'self'; "
				 "base-uri 'none'; form-action 'none'";

/* ------------------------------------------------------------ escaping */

enum bb_status reg_html_escape(struct buf *out, const char *text)
{
	char *clean = text && reg_report_is_clean(text) ? NULL : reg_report_clean_dup(text);
	gchar *escaped;
	enum bb_status st;

	/* clean text needs escaping only for the five characters of markup
	 * (GLib leaves tab and line feed, the only controls left, as they
	 * are): most names and titles hold none */
	if (!clean && text && !strpbrk(text, "&<>\"'"))
		return buf_addstr(out, text);
	escaped = g_markup_escape_text(clean ? clean : text ? text : "", -1);
	st = buf_addstr(out, escaped);

	g_free(escaped);
	g_free(clean);
	return st;
}

int reg_report_url_ok(const char *url)
{
	const char *p;

	if (!url || (g_ascii_strncasecmp(url, "http://", 7) && g_ascii_strncasecmp(url, "https://", 8)))
		return 0;
	for (p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || *p == '"' ||
		    *p == '\'' || *p == '<' || *p == '>' || *p == '\\' || *p == '`')
			return 0;
	return p - url > 8 && p - url < 4096;
}

/* ------------------------------------------------------------ sections */

enum section {
	SEC_OPEN,
	SEC_FIX_INCOMING,
	SEC_BACKBURNER,
	SEC_STALE,
	SEC_FIXED,
	SEC_CLOSED,
	SEC_COUNT,
};

static const char *const section_titles[SEC_COUNT] = {
	"Open", "Fix incoming", "On the back burner", "Stale (no recent activity)", "Fixed",
	"Resolved, inconclusive or duplicate",
};
static const char *const section_ids[SEC_COUNT] = {
	"open", "fix-incoming", "backburner", "stale", "fixed", "closed",
};

static enum section section_of(const struct reg_regression *r)
{
	if (reg_report_is_active(r)) {
		if (r->backburner)
			return SEC_BACKBURNER;
		if (r->stale)
			return SEC_STALE;
		return r->state == REG_STATE_OPEN ? SEC_OPEN : SEC_FIX_INCOMING;
	}
	return r->state == REG_STATE_FIXED ? SEC_FIXED : SEC_CLOSED;
}

/* ------------------------------------------------------------ pages */

/* Text from mail or Bugzilla (or anything else), escaped. */
static void p_esc(struct page *p, const char *s)
{
	if (!p->st)
		p->st = reg_html_escape(&p->b, s);
}

/* <a href="url">text</a> when url is a usable http(s) URL, else the text
 * (or the URL) alone.  Both escaped. */
static void p_link(struct page *p, const char *url, const char *text)
{
	if (url && reg_report_url_ok(url)) {
		reg_report_p_raw(p, "<a href=\"");
		p_esc(p, url);
		reg_report_p_raw(p, "\">");
		p_esc(p, text && *text ? text : url);
		reg_report_p_raw(p, "</a>");
	} else if (text && *text && url && *url && strcmp(text, url)) {
		/* no link, but the reader sees where it would have gone */
		p_esc(p, text);
		reg_report_p_raw(p, " (");
		p_esc(p, url);
		reg_report_p_raw(p, ")");
	} else {
		p_esc(p, text && *text ? text : url);
	}
}

/* A link to one of our own pages (rel is made here, not from input, but
 * goes through the escape all the same). */
static void p_own_link(struct page *p, const char *rel, const char *text)
{
	reg_report_p_raw(p, "<a href=\"");
	p_esc(p, rel);
	reg_report_p_raw(p, "\">");
	p_esc(p, text);
	reg_report_p_raw(p, "</a>");
}

static void page_head(struct page *p, const struct page_ctx *pc, const char *up,
		      const char *title)
{
	reg_report_p_raw(p, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			    "<meta http-equiv=\"Content-Security-Policy\" content=\"");
	p_esc(p, report_csp);
	reg_report_p_raw(p, "\">\n<title>");
	p_esc(p, title);
	reg_report_p_raw(p, " \xe2\x80\x94 bugbridge regressions</title>\n<link rel=\"stylesheet\" href=\"");
	p_esc(p, up);
	reg_report_p_raw(p, "style.css\">\n<link rel=\"alternate\" type=\"application/atom+xml\" "
			    "title=\"Regression changes\" href=\"");
	p_esc(p, up);
	reg_report_p_raw(p, "changes.atom\">\n</head>\n<body>\n<header><nav>");
	reg_report_p_raw(p, "<a href=\"");
	p_esc(p, up);
	reg_report_p_raw(p, "index.html\">All trees</a>");
	(void)pc;
	reg_report_p_raw(p, "</nav></header>\n<main>\n");
}

/* The footer; a regression's page names no time (its ages say the day),
 * so that it stays the same file, and is not written again, until it
 * changes. */
static void page_foot(struct page *p, const struct page_ctx *pc, const char *up, int timeless)
{
	reg_report_p_raw(p, "</main>\n<footer>Generated by bugbridge " PACKAGE_VERSION);
	if (!timeless) {
		reg_report_p_raw(p, " at ");
		p_esc(p, pc->generated);
	}
	reg_report_p_raw(p, " \xc2\xb7 <a href=\"");
	p_esc(p, up);
	reg_report_p_raw(p, "regressions.json\">JSON</a> \xc2\xb7 <a href=\"");
	p_esc(p, up);
	reg_report_p_raw(p, "changes.atom\">Atom feed</a> \xc2\xb7 <a href=\"");
	p_esc(p, up);
	reg_report_p_raw(p, "weekly.txt\">weekly report</a></footer>\n</body>\n</html>\n");
}

static void p_state(struct page *p, const struct reg_regression *r)
{
	const char *s = reg_state_str(r->state);

	reg_report_p_raw(p, "<span class=\"state state-");
	p_esc(p, s);
	reg_report_p_raw(p, "\">");
	p_esc(p, s);
	reg_report_p_raw(p, "</span>");
	if (r->backburner)
		reg_report_p_raw(p, "<span class=\"badge badge-backburner\">back burner</span>");
	if (r->stale && reg_report_is_active(r))
		reg_report_p_raw(p, "<span class=\"badge badge-stale\">stale</span>");
}

static void p_days(struct page *p, long long days)
{
	reg_report_p_fmt(p, "%lld day%s", days, reg_report_plural(days));
}

/* --- regression/<id>.html */

static void fact_row(struct page *p, const char *label)
{
	reg_report_p_raw(p, "<tr><th>");
	p_esc(p, label);
	reg_report_p_raw(p, "</th><td>");
}

void reg_report_regression_page(struct page *p, const struct page_ctx *pc,
				const struct reg_report_item *it)
{
	const struct reg_regression *r = it->r;
	char when[40], title[64];
	char *tree = reg_report_tree_file(r->branch), *url = NULL;

	snprintf(title, sizeof(title), "Regression #%lld", r->id);
	page_head(p, pc, "../", r->title && *r->title ? r->title : title);
	reg_report_p_fmt(p, "<h1><span class=\"id\">#%lld</span> ", r->id);
	p_esc(p, r->title && *r->title ? r->title : "(no title)");
	reg_report_p_raw(p, "</h1>\n<p>");
	p_state(p, r);
	reg_report_p_raw(p, "</p>\n<table class=\"facts\">\n");

	fact_row(p, "Tree");
	if (tree) {
		char *rel = str_printf("../trees/%s.html", tree);

		if (rel)
			p_own_link(p, rel, r->branch);
		else
			p->st = BB_ERR_NOMEM;
		free(rel);
	} else {
		p->st = BB_ERR_NOMEM;
	}
	reg_report_p_raw(p, "</td></tr>\n");

	/* An open regression's page says its age as of today; a closed one's
	 * how long it was open, so that its page stays the same file and is
	 * not written again every day. */
	fact_row(p, "Age");
	reg_report_format_time(when, sizeof(when), r->created);
	if (reg_report_is_active(r)) {
		p_days(p, reg_report_days_between(r->created, pc->now));
		reg_report_p_raw(p, " (reported ");
		p_esc(p, when);
		reg_report_p_raw(p, "; as of ");
		p_esc(p, pc->generated_day);
		reg_report_p_raw(p, ")</td></tr>\n");
	} else {
		reg_report_p_raw(p, "reported ");
		p_esc(p, when);
		reg_report_format_time(when, sizeof(when), r->updated);
		reg_report_p_raw(p, ", closed ");
		p_esc(p, when);
		reg_report_p_raw(p, " after ");
		p_days(p, reg_report_days_between(r->created, r->updated));
		reg_report_p_raw(p, "</td></tr>\n");
	}

	fact_row(p, "Last activity");
	if (r->last_activity) {
		long long d = reg_report_days_between(r->last_activity, pc->now);

		reg_report_format_time(when, sizeof(when), r->last_activity);
		if (reg_report_is_active(r)) {
			reg_report_p_fmt(p, "%lld day%s ago (", d, reg_report_plural(d));
			p_esc(p, when);
			reg_report_p_raw(p, ")");
		} else {
			p_esc(p, when);
		}
		if (r->last_activity_by && *r->last_activity_by) {
			reg_report_p_raw(p, " by ");
			p_esc(p, r->last_activity_by);
		}
		if (r->last_activity_msgid && *r->last_activity_msgid) {
			url = reg_report_mail_link(pc->mail_url, r->last_activity_msgid);
			reg_report_p_raw(p, " \xe2\x80\x94 ");
			p_link(p, url, "the mail");
			free(url);
			url = NULL;
		}
	} else {
		reg_report_p_raw(p, "none");
	}
	reg_report_p_fmt(p, "; %lld activit%s</td></tr>\n", r->activity_count,
			 r->activity_count == 1 ? "y" : "ies");

	fact_row(p, "Introduced");
	reg_report_p_raw(p, "<code>");
	p_esc(p, r->introduced && *r->introduced ? r->introduced : "unknown");
	reg_report_p_raw(p, "</code></td></tr>\n");
	fact_row(p, "Culprit");
	if (r->culprit && *r->culprit) {
		reg_report_p_raw(p, "<code>");
		p_esc(p, r->culprit);
		reg_report_p_raw(p, "</code>");
	} else {
		reg_report_p_raw(p, "not identified");
	}
	reg_report_p_raw(p, "</td></tr>\n");

	if (r->reporter && *r->reporter) {
		fact_row(p, "Reported by");
		p_esc(p, r->reporter);
		reg_report_p_raw(p, "</td></tr>\n");
	}
	url = reg_report_link(r, pc->mail_url, pc->bugzilla_url);
	fact_row(p, "Report");
	if (url && *url)
		p_link(p, url, url);
	else
		reg_report_p_raw(p, "<span class=\"empty\">unknown</span>");
	reg_report_p_raw(p, "</td></tr>\n");
	free(url);
	url = NULL;
	if (r->bug_id > 0) {
		char label[48];

		snprintf(label, sizeof(label), "bug %lld", r->bug_id);
		url = reg_report_bug_link(pc->bugzilla_url, r->bug_id);
		fact_row(p, "Bugzilla");
		p_link(p, url, label);
		reg_report_p_raw(p, "</td></tr>\n");
		free(url);
		url = NULL;
	}
	if ((r->fix_commit && *r->fix_commit) || (r->fix_subject && *r->fix_subject)) {
		fact_row(p, "Fix");
		if (r->fix_commit && *r->fix_commit) {
			reg_report_p_raw(p, "<code>");
			p_esc(p, r->fix_commit);
			reg_report_p_raw(p, "</code> ");
		}
		if (r->fix_subject && *r->fix_subject) {
			reg_report_p_raw(p, "(\xe2\x80\x9c");
			p_esc(p, r->fix_subject);
			reg_report_p_raw(p, "\xe2\x80\x9d)");
		}
		if (r->fix_tree && *r->fix_tree) {
			reg_report_p_raw(p, ", seen in ");
			p_esc(p, r->fix_tree);
		} else {
			reg_report_p_raw(p, ", named, not seen in a tree yet");
		}
		reg_report_p_raw(p, "</td></tr>\n");
	}
	if (r->state == REG_STATE_DUPLICATE && r->dup_of > 0) {
		char rel[48], label[48];

		snprintf(rel, sizeof(rel), "%lld.html", r->dup_of);
		snprintf(label, sizeof(label), "#%lld", r->dup_of);
		fact_row(p, "Duplicate of");
		p_own_link(p, rel, label);
		reg_report_p_raw(p, "</td></tr>\n");
	}
	if (r->resolution && *r->resolution) {
		fact_row(p, r->backburner && reg_report_is_active(r) ? "Back burner" : "Resolution");
		p_esc(p, r->resolution);
		reg_report_p_raw(p, "</td></tr>\n");
	}
	if (r->poked) {
		reg_report_format_time(when, sizeof(when), r->poked);
		fact_row(p, "Poked");
		p_esc(p, when);
		reg_report_p_raw(p, "</td></tr>\n");
	}
	reg_report_p_raw(p, "</table>\n");

	reg_report_p_raw(p, "<h2>Links</h2>\n");
	if (!it->nlinks) {
		reg_report_p_raw(p, "<p class=\"empty\">none</p>\n");
	} else {
		reg_report_p_raw(p, "<ul class=\"links\">\n");
		for (size_t i = 0; i < it->nlinks; i++) {
			const struct reg_link *l = &it->links[i];

			reg_report_p_raw(p, "<li>");
			p_link(p, l->url, l->title && *l->title ? l->title : l->url);
			if (l->kind && *l->kind && strcmp(l->kind, "link")) {
				reg_report_p_raw(p, " <span class=\"badge\">");
				p_esc(p, l->kind);
				reg_report_p_raw(p, "</span>");
			}
			reg_report_p_raw(p, "</li>\n");
		}
		reg_report_p_raw(p, "</ul>\n");
	}

	reg_report_p_raw(p, "<h2>History</h2>\n");
	if (!it->nevents) {
		reg_report_p_raw(p, "<p class=\"empty\">none</p>\n");
	} else {
		reg_report_p_raw(p, "<table class=\"history\">\n<tr><th>When</th><th>What</th><th>Details</th>"
				    "<th>Mail</th></tr>\n");
		for (size_t i = 0; i < it->nevents; i++) {
			const struct reg_event *e = &it->events[i];

			reg_report_format_time(when, sizeof(when), e->time);
			reg_report_p_raw(p, "<tr><td>");
			p_esc(p, when);
			reg_report_p_raw(p, "</td><td>");
			p_esc(p, e->kind);
			reg_report_p_raw(p, "</td><td>");
			p_esc(p, e->text);
			if (*e->unverified) {
				reg_report_p_raw(p, " <em class=\"unverified\">(sender not authenticated: ");
				p_esc(p, e->unverified);
				reg_report_p_raw(p, ")</em>");
			}
			reg_report_p_raw(p, "</td><td>");
			if (e->message_id && *e->message_id) {
				url = reg_report_mail_link(pc->mail_url, e->message_id);
				p_link(p, url, "mail");
				free(url);
				url = NULL;
			}
			reg_report_p_raw(p, "</td></tr>\n");
		}
		reg_report_p_raw(p, "</table>\n");
	}
	page_foot(p, pc, "../", 1);
	free(tree);
}

/* --- trees/<name>.html */

static void tree_row(struct page *p, const struct page_ctx *pc, const struct reg_report_item *it,
		     const char *up)
{
	const struct reg_regression *r = it->r;
	char rel[64], label[32];
	char *url;

	snprintf(rel, sizeof(rel), "%sregression/%lld.html", up, r->id);
	snprintf(label, sizeof(label), "#%lld", r->id);
	reg_report_p_raw(p, r->stale && reg_report_is_active(r) ? "<tr class=\"stale\"><td>" : "<tr><td>");
	p_own_link(p, rel, label);
	reg_report_p_raw(p, "</td><td>");
	p_own_link(p, rel, r->title && *r->title ? r->title : "(no title)");
	reg_report_p_raw(p, "</td><td>");
	p_state(p, r);
	reg_report_p_fmt(p, "</td><td class=\"num\">%lld</td><td class=\"num\">",
			 reg_report_days_between(r->created, pc->now));
	if (r->last_activity)
		reg_report_p_fmt(p, "%lld", reg_report_days_between(r->last_activity, pc->now));
	else
		reg_report_p_raw(p, "\xe2\x80\x94");
	reg_report_p_raw(p, "</td><td><code>");
	p_esc(p, r->culprit && *r->culprit ? r->culprit : "");
	reg_report_p_raw(p, "</code></td><td>");
	url = reg_report_link(r, pc->mail_url, pc->bugzilla_url);
	if (url && *url)
		p_link(p, url, "report");
	free(url);
	reg_report_p_raw(p, "</td></tr>\n");
}

static void tree_table_head(struct page *p)
{
	reg_report_p_raw(p, "<table class=\"regressions\">\n<tr><th>#</th><th>Title</th><th>State</th>"
			    "<th>Age (days)</th><th>Last activity (days ago)</th><th>Culprit</th>"
			    "<th>Report</th></tr>\n");
}

void reg_report_tree_page(struct page *p, const struct page_ctx *pc, const char *branch)
{
	const struct report_data *d = pc->d;
	char *title = str_printf("Regressions on %s", branch);
	size_t counts[SEC_COUNT] = { 0 };

	if (!title) {
		p->st = BB_ERR_NOMEM;
		return;
	}
	for (size_t i = 0; i < d->nregs; i++)
		if (!strcmp(d->regs[i].branch, branch))
			counts[section_of(&d->regs[i])]++;
	page_head(p, pc, "../", title);
	reg_report_p_raw(p, "<h1>");
	p_esc(p, title);
	reg_report_p_raw(p, "</h1>\n<p>");
	for (int s = 0; s < SEC_COUNT; s++) {
		reg_report_p_fmt(p, "%s<a href=\"#%s\">", s ? " \xc2\xb7 " : "", section_ids[s]);
		p_esc(p, section_titles[s]);
		reg_report_p_fmt(p, "</a>: %zu", counts[s]);
	}
	reg_report_p_raw(p, "</p>\n");
	for (int s = 0; s < SEC_COUNT; s++) {
		reg_report_p_fmt(p, "<h2 id=\"%s\">", section_ids[s]);
		p_esc(p, section_titles[s]);
		reg_report_p_fmt(p, " (%zu)</h2>\n", counts[s]);
		if (!counts[s]) {
			reg_report_p_raw(p, "<p class=\"empty\">none</p>\n");
			continue;
		}
		tree_table_head(p);
		for (size_t i = 0; i < d->nregs; i++)
			if (!strcmp(d->regs[i].branch, branch) &&
			    section_of(&d->regs[i]) == (enum section)s)
				tree_row(p, pc, &d->items[i], "../");
		reg_report_p_raw(p, "</table>\n");
	}
	page_foot(p, pc, "../", 0);
	free(title);
}

/* --- index.html */

static int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The trees to show: mainline, then the configured ones, then any other
 * branch a regression names, sorted.  A NULL-terminated array of borrowed
 * strings (free() the array). */
const char **reg_report_tree_names(const struct page_ctx *pc, size_t *count)
{
	const struct report_data *d = pc->d;
	size_t cap = 1 + pc->cfg->ntrees + d->nregs + 1, n = 0, fixed;
	const char **names = calloc(cap, sizeof(*names));
	GHashTable *seen;

	if (!names)
		return NULL;
	seen = g_hash_table_new(g_str_hash, g_str_equal);
	names[n++] = "mainline";
	g_hash_table_add(seen, (gpointer) "mainline");
	for (size_t i = 0; i < pc->cfg->ntrees; i++) {
		const char *t = pc->cfg->trees[i].name;

		if (t && !g_hash_table_contains(seen, t)) {
			g_hash_table_add(seen, (gpointer)t);
			names[n++] = t;
		}
	}
	fixed = n;
	for (size_t i = 0; i < d->nregs; i++) {
		const char *t = d->regs[i].branch;

		if (t && !g_hash_table_contains(seen, t)) {
			g_hash_table_add(seen, (gpointer)t);
			names[n++] = t;
		}
	}
	g_hash_table_destroy(seen);
	qsort(names + fixed, n - fixed, sizeof(*names), str_ptr_cmp);
	*count = n;
	return names;
}

void reg_report_index_page(struct page *p, const struct page_ctx *pc, const char **trees,
			   size_t ntrees)
{
	const struct report_data *d = pc->d;
	size_t total[SEC_COUNT] = { 0 };
	char when[40];

	for (size_t i = 0; i < d->nregs; i++)
		total[section_of(&d->regs[i])]++;
	page_head(p, pc, "", "Regressions");
	reg_report_p_raw(p, "<h1>Regressions</h1>\n");
	reg_report_p_fmt(p, "<p>%zu regression%s tracked: %zu open, %zu with a fix incoming, %zu on the "
			    "back burner, %zu stale (no activity for %lld days), %zu fixed, %zu closed.</p>\n",
			 d->nregs, reg_report_plural((long long)d->nregs), total[SEC_OPEN],
			 total[SEC_FIX_INCOMING], total[SEC_BACKBURNER], total[SEC_STALE],
			 (pc->cfg->tracker_stale_after > 0 ? pc->cfg->tracker_stale_after : 90 * DAY) / DAY,
			 total[SEC_FIXED], total[SEC_CLOSED]);
	if (pc->backlog_svg)
		reg_report_p_raw(p, pc->backlog_svg);
	reg_report_p_raw(p, "<h2>Trees</h2>\n<table class=\"trees\">\n<tr><th>Tree</th>");
	for (int s = 0; s < SEC_COUNT; s++) {
		reg_report_p_raw(p, "<th>");
		p_esc(p, section_titles[s]);
		reg_report_p_raw(p, "</th>");
	}
	reg_report_p_raw(p, "</tr>\n");
	for (size_t t = 0; t < ntrees; t++) {
		size_t counts[SEC_COUNT] = { 0 };
		char *file = reg_report_tree_file(trees[t]), *rel;

		for (size_t i = 0; i < d->nregs; i++)
			if (!strcmp(d->regs[i].branch, trees[t]))
				counts[section_of(&d->regs[i])]++;
		rel = file ? str_printf("trees/%s.html", file) : NULL;
		if (!rel)
			p->st = BB_ERR_NOMEM;
		reg_report_p_raw(p, "<tr><td>");
		if (rel)
			p_own_link(p, rel, trees[t]);
		reg_report_p_raw(p, "</td>");
		for (int s = 0; s < SEC_COUNT; s++)
			reg_report_p_fmt(p, "<td class=\"num\">%zu</td>", counts[s]);
		reg_report_p_raw(p, "</tr>\n");
		free(rel);
		free(file);
	}
	reg_report_p_raw(p, "</table>\n");

	reg_report_p_raw(p, "<h2 id=\"unhandled\">Directives not acted on</h2>\n");
	if (!d->nunhandled) {
		reg_report_p_raw(p, "<p class=\"empty\">none</p>\n");
	} else {
		reg_report_p_raw(p, "<table class=\"unhandled\">\n<tr><th>When</th><th>Directive</th>"
				    "<th>Why not</th><th>Mail</th></tr>\n");
		for (size_t i = 0; i < d->nunhandled; i++) {
			const struct reg_unhandled *u = &d->unhandled[i];
			char *url = u->message_id && *u->message_id
					    ? reg_report_mail_link(pc->mail_url, u->message_id) : NULL;

			reg_report_format_time(when, sizeof(when), u->time);
			reg_report_p_raw(p, "<tr><td>");
			p_esc(p, when);
			reg_report_p_raw(p, "</td><td><code>");
			p_esc(p, u->line);
			reg_report_p_raw(p, "</code></td><td>");
			p_esc(p, u->reason);
			reg_report_p_raw(p, "</td><td>");
			if (url)
				p_link(p, url, "mail");
			reg_report_p_raw(p, "</td></tr>\n");
			free(url);
		}
		reg_report_p_raw(p, "</table>\n");
	}
	page_foot(p, pc, "", 0);
}
