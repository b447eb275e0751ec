/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The regression tracker's reports (report.h).
 *
 * Choices the header leaves open, made here:
 *
 *  - Links and history of all regressions are read with one query each
 *    (ordered by regression) rather than reg_load_one() per regression:
 *    10,000 regressions make 10,000 pages, and a report run has to stay
 *    well under a second.
 *  - Every page is built in memory and written with one write(); the pages
 *    of one run share a "generated" time, so a run is self-consistent.
 *  - The current cycle of the weekly report is the newest cycle any
 *    mainline regression's "introduced" names (reg_report_cycle()); a
 *    regression naming no version counts as current when it was reported
 *    within the last 10 weeks (one cycle), else as a previous one.
 *
 * What a run reads (the regressions, links and history, loaded once) and
 * the helpers every writer uses are the report model (report_model.h);
 * the HTML pages (index.html, trees/, regression/, style.css) are made in
 * report_html.c (report_html.h); this file writes the folder and makes
 * the JSON, the Atom feed and the weekly text and mail.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <gmime/gmime.h>
#include <json-c/json.h>
#include <libxml/xmlwriter.h>

#include "core/clock.h"
#include "core/digest.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/text.h"
#include "mail/outbox.h"
#include "tracker/backlog.h"
#include "tracker/links.h"
#include "tracker/report.h"
#include "tracker/report_html.h"
#include "tracker/report_model.h"

/* A kernel development cycle, roughly (for regressions naming no version). */
#define CYCLE_SECONDS (70 * DAY)
/* Without a previous weekly report, "new" means reported this recently. */
#define NEW_WITHOUT_REPORT (7 * DAY)
/* Longest text from mail or Bugzilla on one line of the weekly report. */
#define WEEKLY_TEXT_MAX 200
/* Noteworthy links shown per regression in the weekly report. */
#define WEEKLY_LINKS_MAX 3
/* RFC 5322 line limit, for the mail body's transfer encoding. */
#define MAIL_LINE_MAX 998
#define MESSAGE_ID_MAX 244
/* Tree page names longer than this are cut and end in a digest. */
#define TREE_FILE_MAX 100
#define LORE_URL "https://lore.kernel.org"

/* ------------------------------------------------------------ text lines */

enum bb_status reg_text_line(struct buf *out, const char *text, size_t max_chars)
{
	char *valid = g_utf8_make_valid(text ? text : "", -1);
	size_t start = out->len, chars = 0;
	int space = 0, started = 0;
	enum bb_status st = BB_OK;

	for (const char *p = valid; *p && !st; p = g_utf8_next_char(p)) {
		/* (ASCII, most of it, without GLib's tables: its blanks and
		 * controls are those up to the space, and DEL) */
		int ascii = (unsigned char)*p < 0x80;
		gunichar c = ascii ? (unsigned char)*p : g_utf8_get_char(p);
		char utf8[8];
		int n;

		if (ascii ? c <= ' ' || c == 0x7f
			  : g_unichar_isspace(c) || g_unichar_iscntrl(c) || c == 0x2028 ||
				    c == 0x2029) {
			space = started;
			continue;
		}
		if (space) {
			st = buf_addch(out, ' ');
			chars++;
			space = 0;
		}
		n = ascii ? (utf8[0] = (char)c, 1) : g_unichar_to_utf8(c, utf8);
		if (!st)
			st = buf_add(out, utf8, (size_t)n);
		chars++;
		started = 1;
		if (max_chars && chars > max_chars)
			break;
	}
	if (!st && max_chars && chars > max_chars) {
		/* cut to max_chars - 1 characters and the ellipsis */
		const char *cut = g_utf8_offset_to_pointer(out->data + start,
							   (glong)(max_chars > 0 ? max_chars - 1 : 0));

		buf_truncate(out, (size_t)(cut - out->data));
		while (out->len > start && out->data[out->len - 1] == ' ')
			buf_truncate(out, out->len - 1);
		st = buf_addstr(out, "\xe2\x80\xa6"); /* … */
	}
	g_free(valid);
	return st;
}

/* ------------------------------------------------------------ names */

char *reg_report_tree_file(const char *branch)
{
	struct buf b = BUF_INIT;
	enum bb_status st = BB_OK;
	const char *p;

	for (p = branch ? branch : ""; *p && !st; p++) {
		unsigned char c = (unsigned char)*p;

		if (isalnum(c) || c == '-' || (c == '.' && p != branch))
			st = buf_addch(&b, (char)c);
		else
			st = buf_addf(&b, "_%02x", c);
	}
	if (!st && b.len == 0)
		st = buf_addch(&b, '_');
	if (!st && b.len > TREE_FILE_MAX) {
		char hex[SHA256_HEX_LEN + 1];

		if ((st = sha256_hex(branch, strlen(branch), hex)) == BB_OK) {
			buf_truncate(&b, TREE_FILE_MAX - 17);
			st = buf_addf(&b, "-%.16s", hex);
		}
	}
	if (st) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* 1 if seg[0..len) is a name the reports use: [A-Za-z0-9._-], not
 * starting with '.'. */
static int report_segment_ok(const char *seg, size_t len)
{
	if (len == 0 || len > 120 || seg[0] == '.')
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)seg[i];

		if (!isalnum(c) && c != '.' && c != '_' && c != '-')
			return 0;
	}
	return 1;
}

const char *reg_report_file(const char *path, char *rel, size_t rel_len)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".json", "application/json" },
		{ ".atom", "application/atom+xml; charset=utf-8" },
		{ ".txt", "text/plain; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
	};
	static const char prefix[] = "/regressions/";
	const char *p, *slash, *base;
	size_t len;

	if (!path || strncmp(path, prefix, sizeof(prefix) - 1) || rel_len < 128)
		return NULL;
	p = path + sizeof(prefix) - 1;
	if (!*p)
		p = "index.html";
	len = strlen(p);
	slash = strchr(p, '/');
	if (slash) {
		size_t first = (size_t)(slash - p);

		if (strchr(slash + 1, '/') ||
		    !((first == 10 && !strncmp(p, "regression", 10)) ||
		      (first == 5 && !strncmp(p, "trees", 5))))
			return NULL;
		base = slash + 1;
	} else {
		base = p;
	}
	if (!report_segment_ok(base, strlen(base)) || len >= rel_len)
		return NULL;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t elen = strlen(types[i].ext), blen = strlen(base);

		if (blen > elen && !strcmp(base + blen - elen, types[i].ext)) {
			memcpy(rel, p, len + 1);
			return types[i].type;
		}
	}
	return NULL;
}

char *reg_report_dir(const struct bb_config *cfg)
{
	if (cfg->tracker_report_dir && *cfg->tracker_report_dir)
		return strdup(cfg->tracker_report_dir);
	return config_data_path(cfg, "reports");
}

char *reg_report_base_url(const struct bb_config *cfg)
{
	const char *base = cfg->tracker_report_url && *cfg->tracker_report_url
				   ? cfg->tracker_report_url : NULL;
	char *out;
	size_t len;

	out = base ? strdup(base)
		   : str_printf("%s/regressions",
				cfg->blob_base_url ? cfg->blob_base_url : "http://127.0.0.1:8080");
	if (!out)
		return NULL;
	len = strlen(out);
	while (len > 0 && out[len - 1] == '/')
		out[--len] = '\0';
	return out;
}

const char *reg_report_mail_url(const struct bb_config *cfg)
{
	if (cfg->archive_link_url && *cfg->archive_link_url)
		return cfg->archive_link_url;
	if (cfg->archive_url && *cfg->archive_url)
		return cfg->archive_url;
	return LORE_URL;
}

/* ------------------------------------------------------------ cycles */

static int parse_uint(const char **p, int *out)
{
	long v = 0;
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return 0;
	while (isdigit((unsigned char)*s)) {
		if (v < 100000)
			v = v * 10 + (*s - '0');
		s++;
	}
	*p = s;
	*out = (int)v;
	return 1;
}

int reg_report_cycle(const char *introduced, int *major, int *minor)
{
	const char *s = introduced ? introduced : "", *p, *after = NULL;
	int found = 0, ma = 0, mi = 0;

	for (p = s; *p; p++) {
		const char *q = p + 1;
		int a, b;

		if (*p != 'v' || (p > s && isalnum((unsigned char)p[-1])))
			continue;
		if (!parse_uint(&q, &a) || *q != '.')
			continue;
		q++;
		if (!parse_uint(&q, &b))
			continue;
		found = 1;
		ma = a;
		mi = b;
		after = q;
		p = q - 1;
	}
	if (!found)
		return 0;
	/* "vX.Y-rcN" and "vX.Y.Z" belong to X.Y; "vX.Y.." (open) to the next */
	if (!strncmp(after, "-rc", 3)) {
		int rc;

		after += 3;
		parse_uint(&after, &rc);
	} else {
		while (after[0] == '.' && isdigit((unsigned char)after[1])) {
			int z;

			after++;
			parse_uint(&after, &z);
		}
		if (!strncmp(after, "..", 2)) {
			const char *rest = after + 2;

			while (*rest == ' ' || *rest == '\t')
				rest++;
			if (!*rest)
				mi++;
		}
	}
	*major = ma;
	*minor = mi;
	return 1;
}

/* ------------------------------------------------------------ times */

static void format_iso(char *out, size_t len, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

enum bb_status reg_report_last_sent(struct store *db, const struct bb_config *cfg, time_t now,
				    time_t *when, struct bb_error *err)
{
	sqlite3_stmt *q = NULL;
	char day[16], *today = NULL, *suffix = NULL;
	enum bb_status st;

	*when = 0;
	bb_day_text(now, day, sizeof(day));
	today = str_printf("regressions-report-%s@%s", day, cfg->mail_domain);
	suffix = str_printf("@%s", cfg->mail_domain);
	if (!today || !suffix) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = store_prepare(db, &q, "SELECT max(created) FROM outbox"
				   " WHERE substr(message_id, 1, 19) = 'regressions-report-'"
				   " AND substr(message_id, -length(?2)) = ?2 AND message_id <> ?1",
			   err);
	if (st)
		goto out;
	sqlite3_bind_text(q, 1, today, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, suffix, -1, SQLITE_STATIC);
	if (sqlite3_step(q) != SQLITE_ROW) {
		st = store_fail(db, err, "looking for the last weekly report");
		goto out;
	}
	*when = (time_t)sqlite3_column_int64(q, 0);
out:
	sqlite3_finalize(q);
	free(today);
	free(suffix);
	return st;
}

/* ------------------------------------------------------------ JSON */

static void json_add_string(struct json_object *o, const char *key, const char *value)
{
	char *clean;

	if (value && reg_report_is_clean(value)) {
		json_object_object_add(o, key, json_object_new_string(value));
		return;
	}
	clean = reg_report_clean_dup(value);
	json_object_object_add(o, key, json_object_new_string(clean));
	g_free(clean);
}

static void json_add_time(struct json_object *o, const char *key, time_t t)
{
	char iso[40];

	if (!t) {
		json_object_object_add(o, key, NULL);
		return;
	}
	format_iso(iso, sizeof(iso), t);
	json_object_object_add(o, key, json_object_new_string(iso));
}

struct json_object *reg_report_json(const struct reg_report_item *item, time_t now,
				    const char *base_url, int with_details)
{
	const struct reg_regression *r = item->r;
	struct json_object *o = json_object_new_object(), *a;
	char *page;

	if (!o)
		return NULL;
	json_object_object_add(o, "id", json_object_new_int64(r->id));
	json_add_string(o, "title", r->title);
	json_add_string(o, "state", reg_state_str(r->state));
	json_add_string(o, "branch", r->branch);
	json_add_string(o, "introduced", r->introduced);
	json_add_string(o, "culprit", r->culprit);
	json_add_string(o, "reporter", r->reporter);
	json_add_string(o, "report_message_id", r->report_msgid);
	json_add_string(o, "report_url", r->report_url);
	json_object_object_add(o, "bug_id", json_object_new_int64(r->bug_id));
	json_object_object_add(o, "duplicate_of", json_object_new_int64(r->dup_of));
	json_add_string(o, "fix_commit", r->fix_commit);
	json_add_string(o, "fix_subject", r->fix_subject);
	json_add_string(o, "fix_tree", r->fix_tree);
	json_add_string(o, "resolution", r->resolution);
	json_object_object_add(o, "backburner", json_object_new_boolean(r->backburner));
	json_object_object_add(o, "ignore_activity", json_object_new_boolean(r->ignore_activity));
	json_object_object_add(o, "stale", json_object_new_boolean(r->stale));
	json_add_time(o, "poked", r->poked);
	json_add_time(o, "created", r->created);
	json_add_time(o, "updated", r->updated);
	json_add_time(o, "last_activity", r->last_activity);
	json_object_object_add(o, "age_days",
			       json_object_new_int64(reg_report_days_between(r->created, now)));
	json_object_object_add(o, "activity_count", json_object_new_int64(r->activity_count));
	json_add_string(o, "last_activity_by", r->last_activity_by);
	json_add_string(o, "last_activity_message_id", r->last_activity_msgid);
	page = base_url ? str_printf("%s/regression/%lld.html", base_url, r->id) : NULL;
	if (page)
		json_add_string(o, "page", page);
	free(page);
	if (with_details || item->nlinks) {
		a = json_object_new_array();
		for (size_t i = 0; i < item->nlinks; i++) {
			struct json_object *l = json_object_new_object();

			json_add_string(l, "url", item->links[i].url);
			json_add_string(l, "title", item->links[i].title);
			json_add_string(l, "kind", item->links[i].kind);
			json_object_array_add(a, l);
		}
		json_object_object_add(o, "links", a);
	}
	if (with_details || item->nevents) {
		a = json_object_new_array();
		for (size_t i = 0; i < item->nevents; i++) {
			struct json_object *e = json_object_new_object();

			json_add_time(e, "time", item->events[i].time);
			json_add_string(e, "kind", item->events[i].kind);
			json_add_string(e, "text", item->events[i].text);
			json_add_string(e, "message_id", item->events[i].message_id);
			/* "" or why the sender of the directive was not
			 * authenticated ([inbound] authenticate) */
			json_add_string(e, "sender_unverified", item->events[i].unverified);
			json_object_array_add(a, e);
		}
		json_object_object_add(o, "history", a);
	}
	return o;
}

struct json_object *reg_report_json_unhandled(const struct reg_unhandled *u)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_add_time(o, "time", u->time);
	json_add_string(o, "message_id", u->message_id);
	json_add_string(o, "line", u->line);
	json_add_string(o, "reason", u->reason);
	return o;
}

/* Appends obj as compact JSON (and drops it). */
static void p_json(struct page *p, struct json_object *obj)
{
	const char *text;

	if (!obj) {
		if (!p->st)
			p->st = BB_ERR_NOMEM;
		return;
	}
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
						   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (text)
		reg_report_p_raw(p, text);
	else if (!p->st)
		p->st = BB_ERR_NOMEM;
	json_object_put(obj);
}

static void json_file(struct page *p, const struct page_ctx *pc)
{
	const struct report_data *d = pc->d;
	char iso[40];

	/* the top level by hand, so that each regression is one line */
	format_iso(iso, sizeof(iso), pc->now);
	reg_report_p_fmt(p, "{\"version\":%d,\"generated\":\"%s\",\"generator\":\"bugbridge %s\","
			    "\"base_url\":", REG_REPORT_VERSION, iso, PACKAGE_VERSION);
	p_json(p, json_object_new_string(pc->base_url));
	reg_report_p_fmt(p, ",\"stale_after_days\":%lld,\n\"regressions\":[",
			 (pc->cfg->tracker_stale_after > 0 ? pc->cfg->tracker_stale_after : 90 * DAY) / DAY);
	for (size_t i = 0; i < d->nregs && !p->st; i++) {
		reg_report_p_raw(p, i ? ",\n" : "\n");
		p_json(p, reg_report_json(&d->items[i], pc->now, pc->base_url, 1));
	}
	reg_report_p_raw(p, "],\n\"unhandled\":[");
	for (size_t i = 0; i < d->nunhandled && !p->st; i++) {
		reg_report_p_raw(p, i ? ",\n" : "\n");
		p_json(p, reg_report_json_unhandled(&d->unhandled[i]));
	}
	reg_report_p_raw(p, "]}\n");
}

/* ------------------------------------------------------------ Atom */

int reg_atom_element(xmlTextWriterPtr w, const char *name, const char *text)
{
	char *clean = reg_report_clean_dup(text);
	int rc = xmlTextWriterWriteElement(w, BAD_CAST name, BAD_CAST clean);

	g_free(clean);
	return rc;
}

int reg_atom_link(xmlTextWriterPtr w, const char *rel, const char *type, const char *href)
{
	char *clean = reg_report_clean_dup(href);
	int rc = xmlTextWriterStartElement(w, BAD_CAST "link");

	if (rc >= 0 && rel)
		rc = xmlTextWriterWriteAttribute(w, BAD_CAST "rel", BAD_CAST rel);
	if (rc >= 0 && type)
		rc = xmlTextWriterWriteAttribute(w, BAD_CAST "type", BAD_CAST type);
	if (rc >= 0)
		rc = xmlTextWriterWriteAttribute(w, BAD_CAST "href", BAD_CAST clean);
	if (rc >= 0)
		rc = xmlTextWriterEndElement(w);
	g_free(clean);
	return rc;
}

int reg_atom_feed_start(xmlTextWriterPtr w, const char *self, const char *title, time_t updated,
			const char *alternate)
{
	char iso[40];
	int rc;

	xmlTextWriterSetIndent(w, 1);
	rc = xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL);
	if (rc >= 0)
		rc = xmlTextWriterStartElementNS(w, NULL, BAD_CAST "feed",
						 BAD_CAST "http://www.w3.org/2005/Atom");
	if (rc >= 0)
		rc = reg_atom_element(w, "id", self);
	if (rc >= 0)
		rc = reg_atom_element(w, "title", title);
	format_iso(iso, sizeof(iso), updated);
	if (rc >= 0)
		rc = reg_atom_element(w, "updated", iso);
	if (rc >= 0)
		rc = reg_atom_link(w, "self", "application/atom+xml", self);
	if (rc >= 0 && alternate)
		rc = reg_atom_link(w, "alternate", "text/html", alternate);
	if (rc >= 0)
		rc = xmlTextWriterStartElement(w, BAD_CAST "author");
	if (rc >= 0)
		rc = reg_atom_element(w, "name", "bugbridge");
	if (rc >= 0)
		rc = xmlTextWriterEndElement(w);
	if (rc >= 0)
		rc = reg_atom_element(w, "generator", "bugbridge");
	return rc;
}

/* The feed of the events since now - REG_REPORT_FEED_DAYS, newest first. */
static enum bb_status atom_file(struct store *db, struct page *p, const struct page_ctx *pc,
				struct bb_error *err)
{
	struct reg_event *events = NULL;
	long long *ids = NULL;
	size_t n = 0;
	xmlBufferPtr xbuf = NULL;
	xmlTextWriterPtr w = NULL;
	char iso[40], *s = NULL, *alternate = NULL;
	enum bb_status st;
	int rc = 0;

	st = reg_load_events_since(db, pc->now - REG_REPORT_FEED_DAYS * DAY, REG_REPORT_FEED_MAX,
				   &events, &ids, &n, err);
	if (st)
		goto out;
	for (size_t i = 0; i < n && !pc->cfg->mail_show_addresses; i++)
		reg_event_hide_addresses(&events[i]);
	xbuf = xmlBufferCreate();
	w = xbuf ? xmlNewTextWriterMemory(xbuf, 0) : NULL;
	if (!w) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	s = str_printf("%s/changes.atom", pc->base_url);
	alternate = str_printf("%s/index.html", pc->base_url);
	rc = s && alternate ? reg_atom_feed_start(w, s, "Regression tracker: changes",
						  n ? events[0].time : pc->now, alternate)
			    : -1;
	free(s);
	free(alternate);
	s = NULL;
	for (size_t i = 0; i < n && rc >= 0; i++) {
		const struct reg_event *e = &events[i];
		const struct reg_report_item *it = reg_report_item_by_id(pc->d, ids[i]);
		struct buf title = BUF_INIT;
		struct sha256 h;
		char hex[SHA256_HEX_LEN + 1], stamp[64];

		/* a stable id: the regression's page and a digest of the event */
		snprintf(stamp, sizeof(stamp), "%lld\n%lld\n", ids[i], (long long)e->time);
		if (sha256_init(&h)) {
			st = bb_error_set(err, BB_ERR_INTERNAL, "cannot hash an event");
			goto out;
		}
		sha256_update(&h, stamp, strlen(stamp));
		sha256_update(&h, e->kind, strlen(e->kind) + 1);
		sha256_update(&h, e->text, strlen(e->text) + 1);
		sha256_update(&h, e->message_id, strlen(e->message_id));
		sha256_final_hex(&h, hex);

		rc = xmlTextWriterStartElement(w, BAD_CAST "entry");
		s = str_printf("%s/regression/%lld.html#event-%.20s", pc->base_url, ids[i], hex);
		if (rc >= 0 && s)
			rc = reg_atom_element(w, "id", s);
		free(s);
		if (buf_addf(&title, "#%lld %s: ", ids[i], e->kind) ||
		    reg_text_line(&title, it ? it->r->title : "", 200)) {
			buf_release(&title);
			st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		if (rc >= 0)
			rc = reg_atom_element(w, "title", title.data);
		buf_release(&title);
		format_iso(iso, sizeof(iso), e->time);
		if (rc >= 0)
			rc = reg_atom_element(w, "updated", iso);
		s = str_printf("%s/regression/%lld.html", pc->base_url, ids[i]);
		if (rc >= 0 && s)
			rc = reg_atom_link(w, "alternate", "text/html", s);
		free(s);
		s = NULL;
		if (rc >= 0 && e->message_id && *e->message_id) {
			s = reg_report_mail_link(pc->mail_url, e->message_id);
			if (s)
				rc = reg_atom_link(w, "related", NULL, s);
			free(s);
			s = NULL;
		}
		if (rc >= 0)
			rc = reg_atom_element(w, "summary", *e->text ? e->text : e->kind);
		if (rc >= 0)
			rc = xmlTextWriterEndElement(w);
	}
	if (rc >= 0)
		rc = xmlTextWriterEndDocument(w);
	if (rc < 0) {
		st = bb_error_set(err, BB_ERR_INTERNAL, "cannot write the Atom feed");
		goto out;
	}
	xmlFreeTextWriter(w); /* flushes into xbuf */
	w = NULL;
	reg_report_p_raw(p, (const char *)xmlBufferContent(xbuf));
out:
	if (w)
		xmlFreeTextWriter(w);
	if (xbuf)
		xmlBufferFree(xbuf);
	reg_events_free(events, n);
	free(ids);
	return st;
}

/* ------------------------------------------------------------ weekly */

/* A line of user text: one line, capped, never starting with '#' (the
 * tracker must not read its own report). */
static void t_line(struct page *p, const char *text)
{
	size_t start = p->b.len;

	if (p->st)
		return;
	p->st = reg_text_line(&p->b, text, WEEKLY_TEXT_MAX);
	if (!p->st && p->b.len > start && p->b.data[start] == '#' &&
	    (start == 0 || p->b.data[start - 1] == '\n')) {
		/* shift right by one and put a blank in front */
		if (!(p->st = buf_addch(&p->b, ' '))) {
			memmove(p->b.data + start + 1, p->b.data + start, p->b.len - start - 1);
			p->b.data[start] = ' ';
		}
	}
}

static void t_frame(struct page *p, const char *heading)
{
	size_t width = (size_t)g_utf8_strlen(heading, -1);

	reg_report_p_raw(p, "\n");
	for (size_t i = 0; i < width; i++)
		reg_report_p_raw(p, "=");
	reg_report_p_raw(p, "\n");
	reg_report_p_raw(p, heading);
	reg_report_p_raw(p, "\n");
	for (size_t i = 0; i < width; i++)
		reg_report_p_raw(p, "=");
	reg_report_p_raw(p, "\n");
}

static int is_new(const struct reg_regression *r, const struct reg_weekly_options *opt)
{
	time_t since = opt->last_report ? opt->last_report : opt->now - NEW_WITHOUT_REPORT;

	return r->created > since;
}

/* Whether two links name the same page: the same URL, the same mail
 * (its Message-ID, whichever of lore's URLs), the same report elsewhere
 * (reg_link_same_report()). */
static int same_page(const char *a, const char *b)
{
	char *ma, *mb;
	int same;

	if (!a || !b)
		return 0;
	if (!strcmp(a, b))
		return 1;
	ma = reg_link_message_id(a);
	mb = ma ? reg_link_message_id(b) : NULL;
	same = ma && mb ? !strcmp(ma, mb) : !ma && reg_link_same_report(a, b);
	free(ma);
	free(mb);
	return same;
}

/* Whether link i of it is printed already: the report (top) or an earlier
 * link names the same page. */
static int link_shown(const struct reg_report_item *it, size_t i, const char *top,
		      const char *bug)
{
	const char *url = it->links[i].url;

	if (same_page(url, top) || same_page(url, bug))
		return 1;
	for (size_t k = 0; k < i; k++)
		if (same_page(url, it->links[k].url))
			return 1;
	return 0;
}

static void t_block(struct page *p, const struct reg_weekly_options *opt,
		    const struct reg_report_item *it)
{
	char *bug = NULL;
	const struct reg_regression *r = it->r;
	size_t start = p->b.len, width;
	char *url;
	long long age = reg_report_days_between(r->created, opt->now);

	reg_report_p_raw(p, "\n");
	start = p->b.len;
	if (is_new(r, opt))
		reg_report_p_raw(p, "[ *NEW* ] ");
	t_line(p, r->title && *r->title ? r->title : "(no title)");
	if (p->st)
		return;
	width = (size_t)g_utf8_strlen(p->b.data + start, (gssize)(p->b.len - start));
	reg_report_p_raw(p, "\n");
	for (size_t i = 0; i < width && i < 72; i++)
		reg_report_p_raw(p, "-");
	reg_report_p_raw(p, "\n");
	reg_report_p_fmt(p, "%s/regression/%lld.html\n", opt->base_url, r->id);
	url = reg_report_link(r, opt->mail_url, opt->bugzilla_url);
	if (url && *url) {
		t_line(p, url);
		reg_report_p_raw(p, "\n");
	}
	if (r->bug_id > 0 && opt->bugzilla_url) {
		bug = reg_report_bug_link(opt->bugzilla_url, r->bug_id);

		if (bug && (!url || strcmp(bug, url))) {
			reg_report_p_raw(p, bug);
			reg_report_p_raw(p, "\n");
		}
	}
	reg_report_p_raw(p, "\n");
	if (r->reporter && *r->reporter) {
		reg_report_p_raw(p, "By ");
		t_line(p, r->reporter);
		reg_report_p_raw(p, "; ");
	}
	reg_report_p_fmt(p, "%lld day%s ago; %lld activit%s", age, reg_report_plural(age),
			 r->activity_count, r->activity_count == 1 ? "y" : "ies");
	if (r->last_activity) {
		long long d = reg_report_days_between(r->last_activity, opt->now);

		reg_report_p_fmt(p, ", latest %lld day%s ago", d, reg_report_plural(d));
		if (r->last_activity_by && *r->last_activity_by) {
			reg_report_p_raw(p, " (by ");
			t_line(p, r->last_activity_by);
			reg_report_p_raw(p, ")");
		}
	}
	reg_report_p_raw(p, ".\n");
	if (r->introduced && *r->introduced) {
		reg_report_p_raw(p, "Introduced in ");
		t_line(p, r->introduced);
		reg_report_p_raw(p, "\n");
	}
	if (r->culprit && *r->culprit && (!r->introduced || strcmp(r->culprit, r->introduced))) {
		reg_report_p_raw(p, "Culprit: ");
		t_line(p, r->culprit);
		reg_report_p_raw(p, "\n");
	}
	if (r->backburner && r->resolution && *r->resolution) {
		reg_report_p_raw(p, "On the back burner: ");
		t_line(p, r->resolution);
		reg_report_p_raw(p, "\n");
	}
	if ((r->fix_commit && *r->fix_commit) || (r->fix_subject && *r->fix_subject)) {
		reg_report_p_raw(p, r->state == REG_STATE_FIX_INCOMING ? "\nFix incoming:\n* "
								       : "\nFix named:\n* ");
		t_line(p, r->fix_subject && *r->fix_subject ? r->fix_subject : r->fix_commit);
		reg_report_p_raw(p, "\n  ");
		if (r->fix_commit && *r->fix_commit)
			t_line(p, r->fix_commit);
		if (r->fix_tree && *r->fix_tree) {
			reg_report_p_raw(p, r->fix_commit && *r->fix_commit ? ", seen in " : "seen in ");
			t_line(p, r->fix_tree);
		} else {
			reg_report_p_raw(p, r->fix_commit && *r->fix_commit ? ", not seen in a tree yet"
									    : "not seen in a tree yet");
		}
		reg_report_p_raw(p, "\n");
	}
	/* each page once: a duplicate report's URL, the report's own in
	 * another form, a link without a title (printed as its URL) */
	{
		size_t shown = 0, more = 0;

		for (size_t i = 0; i < it->nlinks; i++) {
			const struct reg_link *l = &it->links[i];

			if (link_shown(it, i, url, bug))
				continue;
			if (shown == WEEKLY_LINKS_MAX) {
				more++;
				continue;
			}
			if (!shown++)
				reg_report_p_raw(p, "\nNoteworthy links:\n");
			reg_report_p_raw(p, "* ");
			if (l->title && *l->title && strcmp(l->title, l->url)) {
				t_line(p, l->title);
				reg_report_p_raw(p, "\n  ");
			}
			t_line(p, l->url);
			reg_report_p_raw(p, "\n");
		}
		if (more)
			reg_report_p_fmt(p, "  (%zu more on the regression's page)\n", more);
	}
	free(url);
	free(bug);
}

static const char weekly_help[] =
	"\n"
	"--\n"
	"How to talk to the tracker\n"
	"--------------------------\n"
	"  Put a directive at the start of a line (no indentation) in a reply to a\n"
	"  regression's report or to any mail in its thread; the examples are\n"
	"  indented here only so that the tracker does not read its own report:\n"
	"\n"
	"    #regzbot introduced: <commit> or <A>..<B>   this thread reports a regression\n"
	"    #regzbot ^introduced: <commit>              ... reported in the parent mail\n"
	"    #regzbot title: <text>                      a better title\n"
	"    #regzbot from: <Name <address>>             who reported it\n"
	"    #regzbot fix: <commit> (\"<subject>\")        the fix, once posted or applied\n"
	"    #regzbot link: <url> [<text>]               a noteworthy link\n"
	"    #regzbot monitor: <url>                     also watch that thread\n"
	"    #regzbot dup-of: <url>                      a duplicate of another report\n"
	"    #regzbot backburner: <reason>               not urgent, park it\n"
	"    #regzbot unbackburn                         take it off the back burner\n"
	"    #regzbot resolve: <reason>                  resolved some other way\n"
	"    #regzbot inconclusive: <reason>             given up\n"
	"    #regzbot ignore-activity                    this mail is no progress\n"
	"    #regzbot poke                               still a problem\n"
	"    #regzbot note: <text>                       a note for the history\n"
	"\n"
	"  A fix is found by itself when a commit carries \"Link:\" or \"Closes:\"\n"
	"  pointing at the report, at any mail of its thread or at its bug.\n";

enum bb_status reg_report_weekly_text(struct buf *out, const struct reg_weekly_options *opt,
				      const struct reg_report_item *items, size_t n,
				      const struct reg_unhandled *unhandled, size_t nunhandled)
{
	struct page p = { .b = BUF_INIT, .st = BB_OK };
	enum { W_CUR_KNOWN, W_CUR_UNKNOWN, W_PREVIOUS, W_BACKBURNER, W_STALE, W_DONE, W_OTHER,
	       W_COUNT };
	size_t counts[W_COUNT] = { 0 }, fresh = 0, other_trees = 0;
	int *where = NULL, cur_major = -1, cur_minor = -1;
	char day[16], last[16], cycle[32] = "";
	enum bb_status st = BB_OK;
	time_t since = opt->last_report ? opt->last_report : opt->now - NEW_WITHOUT_REPORT;

	p.b = *out;
	where = calloc(n ? n : 1, sizeof(*where));
	if (!where) {
		st = BB_ERR_NOMEM;
		goto out;
	}
	/* the current cycle: the newest one a mainline regression names */
	for (size_t i = 0; i < n; i++) {
		int ma, mi;

		if (strcmp(items[i].r->branch, "mainline"))
			continue;
		if (reg_report_cycle(items[i].r->introduced, &ma, &mi) &&
		    (ma > cur_major || (ma == cur_major && mi > cur_minor))) {
			cur_major = ma;
			cur_minor = mi;
		}
	}
	if (cur_major >= 0)
		snprintf(cycle, sizeof(cycle), " (v%d.%d)", cur_major, cur_minor);
	for (size_t i = 0; i < n; i++) {
		const struct reg_regression *r = items[i].r;
		int ma, mi, current;

		if (strcmp(r->branch, "mainline")) {
			where[i] = W_OTHER;
			if (reg_report_is_active(r))
				other_trees++;
			continue;
		}
		if (!reg_report_is_active(r)) {
			where[i] = r->updated > since ? W_DONE : W_OTHER;
		} else if (r->backburner) {
			where[i] = W_BACKBURNER;
		} else if (r->stale) {
			where[i] = W_STALE;
		} else {
			if (reg_report_cycle(r->introduced, &ma, &mi))
				current = ma == cur_major && mi == cur_minor;
			else
				current = opt->now - r->created <= CYCLE_SECONDS;
			where[i] = !current ? W_PREVIOUS
					    : r->culprit && *r->culprit ? W_CUR_KNOWN : W_CUR_UNKNOWN;
			if (is_new(r, opt))
				fresh++;
		}
		counts[where[i]]++;
	}

	bb_day_text(opt->now, day, sizeof(day));
	reg_report_p_raw(&p, "Hi, this is bugbridge, the regression tracker.  Below is the list of the\n"
			     "regressions in mainline it knows about, as of ");
	reg_report_p_raw(&p, day);
	reg_report_p_raw(&p, ", with their age (in days)\nand their latest activity.  All of them, "
			     "on every tree, with their history:\n");
	reg_report_p_raw(&p, opt->base_url);
	reg_report_p_raw(&p, "/index.html\n\n");
	{
		/* every count says what it counts: stale and back-burnered
		 * regressions are open too */
		size_t active = counts[W_CUR_KNOWN] + counts[W_CUR_UNKNOWN] + counts[W_PREVIOUS];
		size_t open = active + counts[W_BACKBURNER] + counts[W_STALE];

		reg_report_p_fmt(&p, "Currently %zu regression%s in mainline %s open: %zu active", open,
				 reg_report_plural((long long)open), open == 1 ? "is" : "are", active);
		if (opt->last_report) {
			bb_day_text(opt->last_report, last, sizeof(last));
			reg_report_p_fmt(&p, " (%zu new since the last report of %s)", fresh, last);
		} else {
			reg_report_p_fmt(&p, " (%zu reported in the last 7 days)", fresh);
		}
		reg_report_p_fmt(&p, ",\n%zu on the back burner and %zu stale (no activity for %lld days).  "
				     "%zu %s fixed or closed\n%s.",
				 counts[W_BACKBURNER], counts[W_STALE],
				 (opt->stale_after > 0 ? opt->stale_after : 90 * DAY) / DAY, counts[W_DONE],
				 counts[W_DONE] == 1 ? "was" : "were",
				 opt->last_report ? "since the last report" : "in the last 7 days");
		if (other_trees)
			reg_report_p_fmt(&p, "  %zu more %s open on other trees (see the web pages).",
					 other_trees, other_trees == 1 ? "is" : "are");
		reg_report_p_raw(&p, "\n");
	}

	for (int w = 0; w < W_OTHER && !p.st; w++) {
		char heading[128];

		if (!counts[w])
			continue;
		switch (w) {
		case W_CUR_KNOWN:
			snprintf(heading, sizeof(heading), "current cycle%s, culprit identified", cycle);
			break;
		case W_CUR_UNKNOWN:
			snprintf(heading, sizeof(heading), "current cycle%s, unknown culprit", cycle);
			break;
		case W_PREVIOUS:
			snprintf(heading, sizeof(heading), "previous cycles");
			break;
		case W_BACKBURNER:
			snprintf(heading, sizeof(heading), "on the back burner");
			break;
		case W_STALE:
			snprintf(heading, sizeof(heading), "stale: no activity for %lld days",
				 (opt->stale_after > 0 ? opt->stale_after : 90 * DAY) / DAY);
			break;
		default:
			snprintf(heading, sizeof(heading), "fixed or closed %s",
				 opt->last_report ? "since the last report" : "in the last 7 days");
			break;
		}
		t_frame(&p, heading);
		for (size_t i = 0; i < n; i++) {
			const struct reg_regression *r = items[i].r;

			if (where[i] != w)
				continue;
			if (w != W_DONE) {
				t_block(&p, opt, &items[i]);
				continue;
			}
			reg_report_p_raw(&p, "\n* ");
			t_line(&p, r->title && *r->title ? r->title : "(no title)");
			reg_report_p_fmt(&p, "\n  %s", reg_state_str(r->state));
			if (r->fix_commit && *r->fix_commit) {
				reg_report_p_raw(&p, ": ");
				t_line(&p, r->fix_commit);
				if (r->fix_subject && *r->fix_subject) {
					reg_report_p_raw(&p, " (\"");
					t_line(&p, r->fix_subject);
					reg_report_p_raw(&p, "\")");
				}
			} else if (r->resolution && *r->resolution) {
				reg_report_p_raw(&p, ": ");
				t_line(&p, r->resolution);
			} else if (r->state == REG_STATE_DUPLICATE && r->dup_of > 0) {
				reg_report_p_fmt(&p, " of %s/regression/%lld.html", opt->base_url, r->dup_of);
			}
			reg_report_p_fmt(&p, "\n  %s/regression/%lld.html\n", opt->base_url, r->id);
		}
	}
	if (nunhandled) {
		t_frame(&p, "directives not acted on");
		reg_report_p_raw(&p, "\nThe tracker kept these directives but did not act on them; please send\n"
				     "them again, corrected:\n");
		for (size_t i = 0; i < nunhandled; i++) {
			const struct reg_unhandled *u = &unhandled[i];
			char when[16];
			char *url = u->message_id && *u->message_id
					    ? reg_report_mail_link(opt->mail_url, u->message_id) : NULL;

			bb_day_text(u->time, when, sizeof(when));
			reg_report_p_fmt(&p, "\n* %s, ", when);
			t_line(&p, u->reason);
			reg_report_p_raw(&p, "\n  ");
			if (url)
				t_line(&p, url);
			reg_report_p_raw(&p, "\n    ");
			t_line(&p, u->line);
			reg_report_p_raw(&p, "\n");
			free(url);
		}
	}
	reg_report_p_raw(&p, weekly_help);
	st = p.st;
out:
	*out = p.b;
	free(where);
	return st;
}

/* ------------------------------------------------------------ the mail */

/* 1 if every line of text[0..len) fits SMTP's limit. */
static int lines_fit(const char *text, size_t len)
{
	size_t line = 0;

	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n')
			line = 0;
		else if (++line > MAIL_LINE_MAX)
			return 0;
	}
	return 1;
}

static GMimeContentEncoding body_encoding(const char *body, size_t len)
{
	if (!lines_fit(body, len))
		return GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)body[i] >= 0x80)
			return GMIME_CONTENT_ENCODING_8BIT;
	return GMIME_CONTENT_ENCODING_7BIT;
}

/* Appends the addresses of list (one line each, cleaned) to the header of
 * type; *count gets how many. */
static enum bb_status add_recipients(GMimeMessage *msg, char *const *list, size_t *count,
				     struct bb_error *err)
{
	InternetAddressList *dest = g_mime_message_get_addresses(msg, GMIME_ADDRESS_TYPE_TO);
	enum bb_status st = BB_OK;

	for (; list && *list && !st; list++) {
		struct buf clean = BUF_INIT;
		InternetAddressList *parsed = NULL;
		int n = 0;

		if (reg_text_line(&clean, *list, 500)) {
			st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			break;
		}
		parsed = internet_address_list_parse(NULL, clean.data);
		n = parsed ? internet_address_list_length(parsed) : 0;
		if (n > 0) {
			for (int i = 0; i < n; i++)
				internet_address_set_charset(
					internet_address_list_get_address(parsed, i), "utf-8");
			internet_address_list_append(dest, parsed);
			*count += (size_t)n;
		} else {
			st = bb_error_set(err, BB_ERR_CONFIG,
					  "[tracker] report_lists: cannot parse the address \"%s\"",
					  clean.data);
		}
		if (parsed)
			g_object_unref(parsed);
		buf_release(&clean);
	}
	return st;
}

enum bb_status reg_report_compose_weekly(const struct bb_config *cfg, char *const *lists,
					 const char *text, time_t now,
					 struct mail_message *out, struct bb_error *err)
{
	char day[16], subject[80], local[40];

	bb_day_text(now, day, sizeof(day));
	snprintf(local, sizeof(local), "regressions-report-%s", day);
	snprintf(subject, sizeof(subject), "Linux regressions report for mainline [%s]", day);
	return reg_report_compose_mail(cfg, lists, subject, local, text, now, out, err);
}

enum bb_status reg_report_compose_mail(const struct bb_config *cfg, char *const *lists,
				       const char *subject, const char *local, const char *text,
				       time_t now, struct mail_message *out, struct bb_error *err)
{
	GMimeMessage *msg = NULL;
	InternetAddressList *from = NULL;
	GMimeFormatOptions *format = NULL;
	GDateTime *date = NULL;
	GMimeObject *part = NULL;
	GMimeStream *stream = NULL;
	GMimeDataWrapper *content = NULL;
	struct buf from_clean = BUF_INIT, b = BUF_INIT;
	char *message_id = NULL, *mail = NULL, *body = NULL;
	size_t recipients = 0, len, body_len;
	enum bb_status st = BB_OK;

	memset(out, 0, sizeof(*out));
	mail_init();
	if (!cfg->mail_domain || !*cfg->mail_domain || strpbrk(cfg->mail_domain, " <>@\"\\")) {
		st = bb_error_set(err, BB_ERR_CONFIG, "[mail] domain is not a usable domain");
		goto out;
	}
	message_id = str_printf("%s@%s", local, cfg->mail_domain);
	if (!message_id || strlen(message_id) > MESSAGE_ID_MAX) {
		st = bb_error_set(err, message_id ? BB_ERR_CONFIG : BB_ERR_NOMEM,
				  message_id ? "[mail] domain is too long" : "out of memory");
		goto out;
	}

	msg = g_mime_message_new(TRUE);
	if (reg_text_line(&from_clean, cfg->mail_from, 500)) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	from = internet_address_list_parse(NULL, from_clean.data);
	if (!from || internet_address_list_length(from) != 1) {
		st = bb_error_set(err, BB_ERR_CONFIG, "[mail] from: cannot use \"%s\" as the From "
				  "address", from_clean.data);
		goto out;
	}
	internet_address_set_charset(internet_address_list_get_address(from, 0), "utf-8");
	internet_address_list_append(g_mime_message_get_from(msg), from);
	if ((st = add_recipients(msg, lists, &recipients, err)))
		goto out;
	if (!recipients) {
		st = bb_error_set(err, BB_ERR_CONFIG, "no recipients for \"%s\"", subject);
		goto out;
	}
	g_mime_message_set_subject(msg, subject, "utf-8");
	date = g_date_time_new_from_unix_utc(now);
	if (!date) {
		st = bb_error_set(err, BB_ERR_INVALID, "unusable date %lld", (long long)now);
		goto out;
	}
	g_mime_message_set_date(msg, date);
	g_mime_message_set_message_id(msg, message_id);
	g_mime_object_set_header(GMIME_OBJECT(msg), "MIME-Version", "1.0", NULL);
	g_mime_object_set_header(GMIME_OBJECT(msg), "Auto-Submitted", "auto-generated", NULL);
	g_mime_object_set_header(GMIME_OBJECT(msg), MAIL_LOOP_HEADER, cfg->mail_domain, NULL);

	body = reg_report_clean_dup(text);
	body_len = strlen(body);
	part = GMIME_OBJECT(g_mime_text_part_new_with_subtype("plain"));
	stream = g_mime_stream_mem_new_with_buffer(body, body_len);
	content = g_mime_data_wrapper_new_with_stream(stream, GMIME_CONTENT_ENCODING_DEFAULT);
	g_mime_part_set_content(GMIME_PART(part), content);
	g_mime_text_part_set_charset(GMIME_TEXT_PART(part), "utf-8");
	g_mime_part_set_content_encoding(GMIME_PART(part), body_encoding(body, body_len));
	g_mime_message_set_mime_part(msg, part);

	format = g_mime_format_options_new();
	g_mime_format_options_set_newline_format(format, GMIME_NEWLINE_FORMAT_UNIX);
	mail = g_mime_object_to_string(GMIME_OBJECT(msg), format);
	len = mail ? strlen(mail) : 0;
	if (!len || !lines_fit(mail, len) || memchr(mail, '\r', len)) {
		st = bb_error_set(err, BB_ERR_INTERNAL, "the mail \"%s\" is not fit to send", subject);
		goto out;
	}
	if (buf_add(&b, mail, len) || (mail[len - 1] != '\n' && buf_addch(&b, '\n'))) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	out->text = buf_detach(&b, &out->len);
	out->message_id = message_id;
	message_id = NULL;
out:
	buf_release(&b);
	buf_release(&from_clean);
	g_free(mail);
	g_free(body);
	if (content)
		g_object_unref(content);
	if (stream)
		g_object_unref(stream);
	if (part)
		g_object_unref(part);
	if (format)
		g_mime_format_options_free(format);
	if (date)
		g_date_time_unref(date);
	if (from)
		g_object_unref(from);
	if (msg)
		g_object_unref(msg);
	free(message_id);
	return st;
}

/* ------------------------------------------------------------ writing */

/* 1 if dir/rel already holds exactly data[0..len). */
static int same_content(int dirfd, const char *rel, const void *data, size_t len)
{
	struct stat sb;
	char *old = NULL;
	int fd, same = 0;

	fd = openat(dirfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size == len &&
	    (old = malloc(len ? len : 1)) && fs_read_full(fd, old, len) == (ssize_t)len)
		same = !memcmp(old, data, len);
	free(old);
	close(fd);
	return same;
}

/* Writes data to the new file dir/rel, in a folder this run created: no
 * reader can know of the file before the pages that link to it (written
 * after it, index.html last), so it needs no spare and no rename.  A run
 * that stops halfway leaves files the next run finds different and
 * replaces the usual way. */
static enum bb_status write_new(int dirfd, const char *dir, const char *rel, const void *data,
				size_t len, struct bb_error *err)
{
	int fd = openat(dirfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);

	if (fd < 0)
		return bb_error_errno(err, errno, "cannot write %s/%s", dir, rel);
	if (fs_write_all(fd, data, len) != 0) {
		int e = errno;

		close(fd);
		unlinkat(dirfd, rel, 0);
		return bb_error_errno(err, e, "cannot write %s/%s", dir, rel);
	}
	if (close(fd) != 0) {
		int e = errno;

		unlinkat(dirfd, rel, 0);
		return bb_error_errno(err, e, "cannot write %s/%s", dir, rel);
	}
	return BB_OK;
}

/* Whether another open file holds the spare fd is open on: a reader that
 * opened the page before it became the spare (bugbridge serve streams a
 * page from its file), which writing it in place would change under the
 * reader.  A write lease is granted only to a file nobody else has open
 * (fcntl(2), F_SETLEASE); it is given back at once (no one opens a spare
 * by its name: the server refuses hidden names).  Where no lease can be
 * had at all (a file of another owner, a file system without leases) the
 * spare counts as free, as before. */
static int spare_in_use(int fd)
{
	struct sigaction ignore, old;
	int in_use = 0;

	/* a lease broken while held (someone opening the spare by its hidden
	 * name in that instant) is told by SIGIO, whose default ends the
	 * process: ignored meanwhile */
	memset(&ignore, 0, sizeof(ignore));
	ignore.sa_handler = SIG_IGN;
	sigemptyset(&ignore.sa_mask);
	if (sigaction(SIGIO, &ignore, &old) != 0)
		return 0;
	if (fcntl(fd, F_SETLEASE, F_WRLCK) == 0)
		(void)fcntl(fd, F_SETLEASE, F_UNLCK);
	else
		in_use = errno == EAGAIN;
	(void)sigaction(SIGIO, &old, NULL);
	return in_use;
}

/* Writes data to dir/rel, unless the file holds that already: into the
 * spare ".<base>.spare" beside it, which then trades places with the file
 * in one rename (RENAME_EXCHANGE), so the file is whole at every moment and
 * the spare keeps the inode of the previous version for the next run.  A
 * plain rename where there is nothing to exchange with yet (or the file
 * system cannot exchange).  Creating and deleting 10,000 inodes a run is
 * what made the page writes slow (ext4 skips recently freed inodes when it
 * allocates); rewriting a spare in place is not.  The caller holds the
 * folder's lock, so the spare is its own. */
static enum bb_status write_atomic(int dirfd, const char *dir, const char *rel, const void *data,
				   size_t len, int fresh, struct bb_error *err)
{
	const char *slash = strrchr(rel, '/');
	char *tmp = NULL;
	enum bb_status st = BB_OK;
	int fd = -1;

	if (fresh)
		return write_new(dirfd, dir, rel, data, len, err);
	if (same_content(dirfd, rel, data, len))
		goto out;
	tmp = slash ? str_printf("%.*s/.%s.spare", (int)(slash - rel), rel, slash + 1)
		    : str_printf(".%s.spare", rel);
	if (!tmp) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* the spare is overwritten in place and then cut to length: its
	 * blocks are reused, not freed and allocated again; unless someone
	 * still reads it (then a new spare) */
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd >= 0 && spare_in_use(fd)) {
		close(fd);
		fd = unlinkat(dirfd, tmp, 0) == 0
			? openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644)
			: -1;
	}
	if (fd < 0) {
		st = bb_error_errno(err, errno, "cannot write %s/%s", dir, tmp);
		goto out;
	}
	if (fs_write_all(fd, data, len) != 0 || ftruncate(fd, (off_t)len) != 0) {
		st = bb_error_errno(err, errno, "cannot write %s/%s", dir, tmp);
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		st = bb_error_errno(err, errno, "cannot write %s/%s", dir, tmp);
		goto out;
	}
	fd = -1;
	if (renameat2(dirfd, tmp, dirfd, rel, RENAME_EXCHANGE) != 0) {
		int cannot_exchange = errno == ENOENT || errno == EINVAL || errno == ENOSYS ||
				      errno == EOPNOTSUPP;

		if (!cannot_exchange || renameat(dirfd, tmp, dirfd, rel) != 0) {
			st = bb_error_errno(err, errno, "cannot rename %s/%s to %s", dir, tmp, rel);
			goto out;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	if (st && tmp)
		unlinkat(dirfd, tmp, 0);
	free(tmp);
	return st;
}

/* Writes the page (and empties it for the next one). */
static enum bb_status write_page_in(int dirfd, const char *dir, const char *rel, struct page *p,
				    int fresh, struct bb_error *err)
{
	enum bb_status st;

	if (p->st)
		st = bb_error_set(err, p->st, "cannot make %s/%s: %s", dir, rel, status_str(p->st));
	else
		st = write_atomic(dirfd, dir, rel, p->b.data, p->b.len, fresh, err);
	buf_reset(&p->b);
	p->st = BB_OK;
	return st;
}

static enum bb_status write_page(int dirfd, const char *dir, const char *rel, struct page *p,
				 struct bb_error *err)
{
	return write_page_in(dirfd, dir, rel, p, 0, err);
}

/* Makes dir/name unless it exists; *created (if given) tells which. */
static enum bb_status make_subdir(int dirfd, const char *dir, const char *name, int *created,
				  struct bb_error *err)
{
	int made = mkdirat(dirfd, name, 0755) == 0;

	if (!made && errno != EEXIST)
		return bb_error_errno(err, errno, "cannot create %s/%s", dir, name);
	if (created)
		*created = made;
	return BB_OK;
}

static void page_ctx_init(struct page_ctx *pc, const struct bb_config *cfg, time_t now,
			  const struct report_data *d)
{
	memset(pc, 0, sizeof(*pc));
	pc->cfg = cfg;
	pc->now = now;
	pc->d = d;
	reg_report_format_time(pc->generated, sizeof(pc->generated), now);
	bb_day_text(now, pc->generated_day, sizeof(pc->generated_day));
	pc->mail_url = reg_report_mail_url(cfg);
	pc->bugzilla_url = cfg->bz_url;
	pc->base_url = reg_report_base_url(cfg);
}

static void weekly_options(struct reg_weekly_options *wo, const struct page_ctx *pc)
{
	memset(wo, 0, sizeof(*wo));
	wo->now = pc->now;
	wo->last_report = pc->d->last_report;
	wo->base_url = pc->base_url;
	wo->bugzilla_url = pc->bugzilla_url;
	wo->mail_url = pc->mail_url;
	wo->stale_after = pc->cfg->tracker_stale_after;
}

enum bb_status reg_report_write(struct store *db, const struct bb_config *cfg, const char *dir,
				time_t now, struct bb_error *err)
{
	struct report_data d;
	struct page_ctx pc;
	struct page p = { .b = BUF_INIT, .st = BB_OK };
	struct reg_weekly_options wo;
	struct buf chart = BUF_INIT;
	const char **trees = NULL;
	size_t ntrees = 0;
	char rel[160];
	enum bb_status st;
	int dirfd = -1, loaded = 0, fresh = 0;

	memset(&pc, 0, sizeof(pc));
	if ((st = reg_report_data_load(db, cfg, now, &d, err)))
		goto out;
	loaded = 1;
	page_ctx_init(&pc, cfg, now, &d);
	trees = reg_report_tree_names(&pc, &ntrees);
	if (!pc.base_url || !trees) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = fs_mkdir_p(dir, err)))
		goto out;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		st = bb_error_errno(err, errno, "cannot open %s", dir);
		goto out;
	}
	/* one writer at a time: the spares are shared */
	if (flock(dirfd, LOCK_EX) != 0) {
		st = bb_error_errno(err, errno, "cannot lock %s", dir);
		goto out;
	}
	if ((st = make_subdir(dirfd, dir, "regression", &fresh, err)) ||
	    (st = make_subdir(dirfd, dir, "trees", NULL, err)))
		goto out;

	reg_report_p_raw(&p, reg_report_css);
	if ((st = write_page(dirfd, dir, "style.css", &p, err)))
		goto out;
	for (size_t i = 0; i < d.nregs; i++) {
		reg_report_regression_page(&p, &pc, &d.items[i]);
		snprintf(rel, sizeof(rel), "regression/%lld.html", d.regs[i].id);
		if ((st = write_page_in(dirfd, dir, rel, &p, fresh, err)))
			goto out;
	}
	for (size_t t = 0; t < ntrees; t++) {
		char *file = reg_report_tree_file(trees[t]);

		if (!file) {
			st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		snprintf(rel, sizeof(rel), "trees/%s.html", file);
		free(file);
		reg_report_tree_page(&p, &pc, trees[t]);
		if ((st = write_page(dirfd, dir, rel, &p, err)))
			goto out;
	}
	json_file(&p, &pc);
	if ((st = write_page(dirfd, dir, "regressions.json", &p, err)))
		goto out;
	if ((st = atom_file(db, &p, &pc, err)))
		goto out;
	if ((st = write_page(dirfd, dir, "changes.atom", &p, err)))
		goto out;
	weekly_options(&wo, &pc);
	if ((st = reg_report_weekly_text(&p.b, &wo, d.items, d.nregs, d.unhandled, d.nunhandled))) {
		st = bb_error_set(err, st, "cannot make the weekly report: %s", status_str(st));
		goto out;
	}
	if ((st = write_page(dirfd, dir, "weekly.txt", &p, err)))
		goto out;
	/* the entry point last, with the backlog's chart */
	{
		struct backlog bl;

		if ((st = backlog_count(db, pc.now, &bl, err)))
			goto out;
		if ((st = backlog_svg(&bl, &chart))) {
			st = bb_error_set(err, st, "out of memory");
			goto out;
		}
		pc.backlog_svg = chart.data;
	}
	reg_report_index_page(&p, &pc, trees, ntrees);
	if ((st = write_page(dirfd, dir, "index.html", &p, err)))
		goto out;
	if (!st)
		log_event(LOG_LEVEL_INFO, "tracker.report", LF_STR("dir", dir),
			  LF_UINT("regressions", d.nregs), LF_UINT("trees", ntrees),
			  LF_UINT("unhandled", d.nunhandled));
out:
	if (dirfd >= 0)
		close(dirfd);
	buf_release(&p.b);
	buf_release(&chart);
	free(trees);
	free(pc.base_url);
	if (loaded)
		reg_report_data_release(&d);
	return st;
}

enum bb_status reg_report_weekly_mail(struct store *db, const struct bb_config *cfg,
				      time_t now, char **message_id, struct bb_error *err)
{
	struct report_data d;
	struct page_ctx pc;
	struct reg_weekly_options wo;
	struct mail_message m = { NULL, NULL, 0 };
	struct buf text = BUF_INIT;
	char **lists = NULL;
	size_t nlists = 0;
	enum bb_status st;
	int loaded = 0, began = 0;

	memset(&pc, 0, sizeof(pc));
	if (message_id)
		*message_id = NULL;
	lists = config_address_list(cfg->tracker_report_lists, &nlists);
	if (!lists) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (!nlists) {
		st = bb_error_set(err, BB_ERR_CONFIG, "the weekly report has no recipients: set "
				  "[tracker] report_lists");
		goto out;
	}
	if ((st = reg_report_data_load(db, cfg, now, &d, err)))
		goto out;
	loaded = 1;
	page_ctx_init(&pc, cfg, now, &d);
	if (!pc.base_url) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	weekly_options(&wo, &pc);
	if ((st = reg_report_weekly_text(&text, &wo, d.items, d.nregs, d.unhandled,
					 d.nunhandled))) {
		st = bb_error_set(err, st, "cannot make the weekly report: %s", status_str(st));
		goto out;
	}
	if ((st = reg_report_compose_weekly(cfg, lists, text.data, now, &m, err)))
		goto out;
	if ((st = store_begin(db, err)))
		goto out;
	began = 1;
	if ((st = outbox_add(db, m.message_id, 0, 0, cfg->mail_from, lists, m.text, m.len, err)))
		goto out;
	st = store_commit(db, err);
	began = 0;
	if (st)
		goto out;
	log_event(LOG_LEVEL_INFO, "tracker.weekly_report", LF_STR("message_id", m.message_id),
		  LF_UINT("recipients", nlists));
	if (message_id) {
		*message_id = m.message_id;
		m.message_id = NULL;
	}
out:
	if (began)
		store_rollback(db);
	mail_message_release(&m);
	buf_release(&text);
	config_list_free(lists);
	free(pc.base_url);
	if (loaded)
		reg_report_data_release(&d);
	return st;
}
