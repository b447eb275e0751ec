/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for tracker/report.c: the one HTML escape, names and paths of
 * the report files, cycles, the weekly text (sections, "new" marks, no line
 * the tracker would read back), the weekly mail, and a whole report run on
 * a real store (JSON parsed with json-c, Atom with libxml2, an unchanged
 * file not written again, the weekly mail queued once). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <json-c/json.h>
#include <libxml/parser.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/store.h"
#include "tracker/directive.h"
#include "tracker/report.h"
#include "tests/unit/tap.h"

#define DAY 86400
/* Sunday 2024-03-10 18:00:00 UTC */
#define NOW ((time_t)1710093600)

static char base[] = "/tmp/bb-report-XXXXXX";

static const char hostile[] =
	"<script>alert(1)</script> \"quoted\" 'single' <img src=x onerror=alert(2)> & more";

static char *escaped(const char *text)
{
	struct buf b = BUF_INIT;

	reg_html_escape(&b, text);
	return buf_detach(&b, NULL);
}

static char *one_line(const char *text, size_t max)
{
	struct buf b = BUF_INIT;

	reg_text_line(&b, text, max);
	return buf_detach(&b, NULL);
}

static void test_escape(void)
{
	char *s;

	s = escaped(hostile);
	is_str(s, "&lt;script&gt;alert(1)&lt;/script&gt; &quot;quoted&quot; &apos;single&apos; "
		  "&lt;img src=x onerror=alert(2)&gt; &amp; more", "HTML escape of a hostile title");
	free(s);
	s = escaped("tab\there\nline \x01\x1b[31mred\x7f \xc2\x85next");
	is_str(s, "tab\there\nline [31mred next", "controls dropped, tab and line feed kept");
	free(s);
	s = escaped("bad \xff\xfe utf-8 \xc3");
	ok(s && g_utf8_validate(s, -1, NULL) && strstr(s, "\xef\xbf\xbd"),
	   "invalid UTF-8 becomes U+FFFD: %s", s ? s : "(null)");
	free(s);
	s = escaped(NULL);
	is_str(s, "", "NULL escapes to nothing");
	free(s);
	s = escaped("Jürgen <j@example.org>");
	is_str(s, "Jürgen &lt;j@example.org&gt;", "UTF-8 kept");
	free(s);

	s = one_line("  two\nlines\r\n#regzbot  resolve\t", 0);
	is_str(s, "two lines #regzbot resolve", "one clean line");
	free(s);
	s = one_line("abcdefghij", 5);
	is_str(s, "abcd\xe2\x80\xa6", "a capped line ends in an ellipsis");
	free(s);

	ok(reg_report_url_ok("https://lore.kernel.org/r/a@b/"), "https URL is a link");
	ok(reg_report_url_ok("HTTP://Example.org/x?y=1&z=2"), "http URL in capitals is a link");
	ok(!reg_report_url_ok("javascript:alert(1)"), "javascript: is no link");
	ok(!reg_report_url_ok("data:text/html,<script>"), "data: is no link");
	ok(!reg_report_url_ok("https://x.org/\" onmouseover=\"alert(1)"), "a quote ends no link");
	ok(!reg_report_url_ok("https://x.org/a b"), "a blank is no link");
	ok(!reg_report_url_ok(NULL), "NULL is no link");
}

static void test_names(void)
{
	char rel[128], *s;
	const char *type;
	char longname[300];

	s = reg_report_tree_file("mainline");
	is_str(s, "mainline", "tree file of mainline");
	free(s);
	s = reg_report_tree_file("linux-6.1.y");
	is_str(s, "linux-6.1.y", "tree file of a stable branch");
	free(s);
	s = reg_report_tree_file("../x");
	is_str(s, "_2e._2fx", "no path in a tree file name");
	free(s);
	s = reg_report_tree_file("<b>x</b>");
	is_str(s, "_3cb_3ex_3c_2fb_3e", "markup in a tree name is encoded");
	free(s);
	s = reg_report_tree_file("");
	is_str(s, "_", "an empty tree name");
	free(s);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	s = reg_report_tree_file(longname);
	ok(s && strlen(s) <= 100 && strchr(s, '-'), "a long tree name is cut and ends in a digest");
	free(s);

	type = reg_report_file("/regressions/", rel, sizeof(rel));
	ok(type && !strcmp(rel, "index.html") && strstr(type, "text/html"), "/regressions/ is the index");
	type = reg_report_file("/regressions/regression/12.html", rel, sizeof(rel));
	ok(type && !strcmp(rel, "regression/12.html"), "a regression's page");
	type = reg_report_file("/regressions/trees/linux-6.1.y.html", rel, sizeof(rel));
	ok(type && !strcmp(rel, "trees/linux-6.1.y.html"), "a tree's page");
	type = reg_report_file("/regressions/regressions.json", rel, sizeof(rel));
	is_str(type, "application/json", "JSON type");
	type = reg_report_file("/regressions/changes.atom", rel, sizeof(rel));
	ok(type && !strncmp(type, "application/atom+xml", 20), "Atom type");
	type = reg_report_file("/regressions/weekly.txt", rel, sizeof(rel));
	ok(type && !strncmp(type, "text/plain", 10), "text type");
	type = reg_report_file("/regressions/style.css", rel, sizeof(rel));
	ok(type && !strncmp(type, "text/css", 8), "CSS type");
	ok(!reg_report_file("/regressions/../bugbridge.db", rel, sizeof(rel)), "no ..");
	ok(!reg_report_file("/regressions/regression/../../x.html", rel, sizeof(rel)), "no .. below");
	ok(!reg_report_file("/regressions/%2e%2e/x.html", rel, sizeof(rel)), "no escapes");
	ok(!reg_report_file("/regressions/.index.html.tmp-1", rel, sizeof(rel)), "no hidden file");
	ok(!reg_report_file("/regressions/bugbridge.db", rel, sizeof(rel)), "no other type");
	ok(!reg_report_file("/regressions/blobs/x.html", rel, sizeof(rel)), "no other folder");
	ok(!reg_report_file("/regressions/regression/a/b.html", rel, sizeof(rel)), "no deeper path");
	ok(!reg_report_file("/regressions//etc.html", rel, sizeof(rel)), "no empty segment");
	ok(!reg_report_file("/regressions/a\\b.html", rel, sizeof(rel)), "no backslash");
	ok(!reg_report_file("/blob/x.html", rel, sizeof(rel)), "only under /regressions/");
}

static void test_cycle(void)
{
	static const struct {
		const char *introduced;
		int found, major, minor;
	} cases[] = {
		{ "v6.7..v6.8-rc1", 1, 6, 8 },
		{ "v6.7..", 1, 6, 8 },
		{ "v6.8-rc3", 1, 6, 8 },
		{ "v5.19..v6.0", 1, 6, 0 },
		{ "v6.1.15..v6.1.20", 1, 6, 1 },
		{ "1234567890ab", 0, 0, 0 },
		{ "", 0, 0, 0 },
		{ "dev6.7", 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ma = -1, mi = -1, found = reg_report_cycle(cases[i].introduced, &ma, &mi);

		ok(found == cases[i].found && (!found || (ma == cases[i].major && mi == cases[i].minor)),
		   "cycle of \"%s\": %d %d.%d", cases[i].introduced, found, ma, mi);
	}
}

/* A regression with every string set (the loaders never hand out NULL). */
static void reg_init(struct reg_regression *r, long long id, const char *title,
		     enum reg_state state, const char *branch, const char *introduced,
		     const char *culprit, time_t created, time_t last_activity)
{
	memset(r, 0, sizeof(*r));
	r->id = id;
	r->title = (char *)title;
	r->state = state;
	r->branch = (char *)branch;
	r->introduced = (char *)introduced;
	r->culprit = (char *)culprit;
	r->report_msgid = (char *)"";
	r->report_url = (char *)"";
	r->reporter = (char *)"Jane Doe <jane@example.org>";
	r->fix_commit = (char *)"";
	r->fix_subject = (char *)"";
	r->fix_tree = (char *)"";
	r->resolution = (char *)"";
	r->last_activity_by = (char *)"Bob <bob@example.org>";
	r->last_activity_msgid = (char *)"";
	r->created = created;
	r->updated = last_activity;
	r->last_activity = last_activity;
	r->activity_count = 3;
}

/* The start of the line holding needle, or NULL. */
static const char *line_of(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);

	if (!p)
		return NULL;
	while (p > text && p[-1] != '\n')
		p--;
	return p;
}

static void test_weekly_text(void)
{
	struct reg_regression r[8];
	struct reg_report_item items[8];
	struct reg_link links[] = {
		{ (char *)"https://lore.kernel.org/r/more@example.org/", (char *)"a bisection", (char *)"link" },
	};
	struct reg_unhandled u = { NOW - DAY, (char *)"u1@example.org",
				   (char *)"#regzbot frobnicate now", (char *)"unknown verb" };
	struct reg_weekly_options opt = {
		.now = NOW, .last_report = NOW - 7 * DAY,
		.base_url = "https://bugs.example.org/regressions",
		.bugzilla_url = "https://bugzilla.kernel.org",
		.mail_url = "https://lore.kernel.org/r", .stale_after = 90LL * DAY,
	};
	struct reg_directive *dirs = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct buf out = BUF_INIT;
	const char *p, *cur, *prev, *bb, *stale, *done, *unh, *help;
	size_t ndirs = 99;
	int starts_hash = 0;

	reg_init(&r[0], 1, hostile, REG_STATE_OPEN, "mainline", "v6.7..v6.8-rc1", "abcdef123456",
		 NOW - 3 * DAY, NOW - DAY);
	r[0].report_msgid = (char *)"report-1@example.org";
	reg_init(&r[1], 2, "net: oops\n#regzbot resolve: injected", REG_STATE_FIX_INCOMING,
		 "mainline", "v6.7..", "", NOW - 5 * DAY, NOW - 2 * DAY);
	r[1].fix_commit = (char *)"0123456789ab";
	r[1].fix_subject = (char *)"net: fix the oops";
	r[1].fix_tree = (char *)"next";
	r[1].bug_id = 217225;
	reg_init(&r[2], 3, "usb: old one", REG_STATE_OPEN, "mainline", "v6.5..v6.6", "",
		 NOW - 60 * DAY, NOW - 5 * DAY);
	reg_init(&r[3], 4, "parked", REG_STATE_OPEN, "mainline", "", "", NOW - 100 * DAY,
		 NOW - 30 * DAY);
	r[3].backburner = 1;
	r[3].resolution = (char *)"needs rare hardware";
	reg_init(&r[4], 5, "forgotten", REG_STATE_OPEN, "mainline", "v6.8-rc1", "", NOW - 200 * DAY,
		 NOW - 120 * DAY);
	r[4].stale = 1;
	reg_init(&r[5], 6, "fixed lately", REG_STATE_FIXED, "mainline", "v6.8-rc2", "", NOW - 20 * DAY,
		 NOW - 2 * DAY);
	r[5].fix_commit = (char *)"fedcba987654";
	reg_init(&r[6], 7, "on stable", REG_STATE_OPEN, "linux-6.1.y", "v6.1.15..v6.1.20", "",
		 NOW - DAY, NOW - DAY);
	reg_init(&r[7], 8, "fixed long ago", REG_STATE_FIXED, "mainline", "", "", NOW - 90 * DAY,
		 NOW - 60 * DAY);
	for (int i = 0; i < 8; i++)
		items[i] = (struct reg_report_item){ &r[i], NULL, 0, NULL, 0 };
	items[2].links = links;
	items[2].nlinks = 1;

	ok(reg_report_weekly_text(&out, &opt, items, 8, &u, 1) == BB_OK, "weekly text made");
	p = out.data;
	cur = strstr(p, "\ncurrent cycle (v6.8), culprit identified\n");
	prev = strstr(p, "\nprevious cycles\n");
	bb = strstr(p, "\non the back burner\n");
	stale = strstr(p, "\nstale: no activity for 90 days\n");
	done = strstr(p, "\nfixed or closed since the last report\n");
	unh = strstr(p, "\ndirectives not acted on\n");
	help = strstr(p, "How to talk to the tracker");
	ok(cur && prev && bb && stale && done && unh && help && cur < prev && prev < bb &&
	   bb < stale && stale < done && done < unh && unh < help, "sections in order");
	ok(strstr(p, "\n========================================\ncurrent cycle (v6.8), culprit "
		     "identified\n========================================\n") != NULL,
	   "sections framed by = lines");
	ok(strstr(p, "current cycle (v6.8), unknown culprit") != NULL,
	   "an open range of the current cycle without culprit");
	ok(strstr(p, "[ *NEW* ] <script>alert(1)</script>") != NULL, "a new regression is marked");
	ok(strstr(p, "\nusb: old one\n") != NULL, "an older one is not marked new");
	ok(strstr(p, "net: oops #regzbot resolve: injected") != NULL, "a title is one line");
	ok(strstr(p, "https://bugs.example.org/regressions/regression/1.html\n"
		     "https://lore.kernel.org/r/report-1@example.org/\n") != NULL,
	   "tracker and report links");
	ok(strstr(p, "https://bugzilla.kernel.org/show_bug.cgi?id=217225") != NULL, "the bug link");
	ok(strstr(p, "By Jane Doe <jane@example.org>; 3 days ago; 3 activities, latest 1 day ago "
		     "(by Bob <bob@example.org>).") != NULL, "reporter, age and activity");
	ok(strstr(p, "Introduced in v6.7..v6.8-rc1\nCulprit: abcdef123456\n") != NULL,
	   "introduced and culprit");
	ok(strstr(p, "Fix incoming:\n* net: fix the oops\n  0123456789ab, seen in next\n") != NULL,
	   "fix incoming");
	ok(strstr(p, "Noteworthy links:\n* a bisection\n  https://lore.kernel.org/r/more@example.org/")
	   != NULL, "noteworthy links");
	ok(strstr(p, "On the back burner: needs rare hardware") != NULL, "back burner reason");
	{
		const char *f = strstr(p, "\nforgotten\n");

		ok(f && f > stale && f < done, "the stale one is in the stale section");
	}
	ok(done && strstr(done, "fixed lately") && !strstr(p, "fixed long ago"),
	   "fixed since the last report listed, older ones not");
	ok(!strstr(p, "on stable\n") && strstr(p, "1 more is open on other trees"),
	   "other trees only counted");
	ok(strstr(p, "Currently 5 regressions in mainline are open: 3 active (2 new since the last "
		     "report of 2024-03-03),\n1 on the back burner and 1 stale") != NULL,
	   "the open ones, all counted, and the new ones");
	ok(unh && strstr(unh, "* 2024-03-09, unknown verb\n  https://lore.kernel.org/r/u1@example.org/\n"
			      "    #regzbot frobnicate now\n"), "unhandled directive shown, indented");
	ok(line_of(p, "#regzbot introduced: <commit>") && line_of(p, "#regzbot introduced: <commit>")[0] == ' ',
	   "directive help is indented");
	for (const char *l = p; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (*l == '#')
			starts_hash++;
	is_int(starts_hash, 0, "no line starts with '#'");
	ok(reg_directives_parse(p, &dirs, &ndirs, &err) == BB_OK && ndirs == 0,
	   "the tracker reads no directive in its own report (%zu)", ndirs);
	reg_directives_free(dirs, ndirs);
	ok(g_utf8_validate(p, (gssize)out.len, NULL), "valid UTF-8");
	buf_release(&out);

	/* no previous report: "new" is the last 7 days */
	opt.last_report = 0;
	ok(reg_report_weekly_text(&out, &opt, items, 8, NULL, 0) == BB_OK, "weekly text without a "
	   "previous report");
	ok(strstr(out.data, "(2 reported in the last 7 days)") && !strstr(out.data, "directives not "
	   "acted on"), "new means the last 7 days; no unhandled section when none");
	buf_release(&out);
}

static void test_mail(struct bb_config *cfg)
{
	char *lists[] = { (char *)"linux-kernel@vger.kernel.org",
			  (char *)"Regressions <regressions@lists.linux.dev>", NULL };
	char *bad[] = { (char *)"not an address <", NULL };
	struct mail_message m = { NULL, NULL, 0 };
	struct bb_error err = BB_ERROR_INIT;

	ok(reg_report_compose_weekly(cfg, lists, "Hi, this is the report.\nLine two: Jürgen\n", NOW,
				     &m, &err) == BB_OK, "weekly mail composed: %s", err.message);
	is_str(m.message_id, "regressions-report-2024-03-10@example.org", "deterministic Message-ID");
	if (getenv("TEST_REPORT_SHOW"))
		diag("%s", m.text ? m.text : "(none)");
	ok(m.text && strstr(m.text, "\nSubject: Linux regressions report for mainline [2024-03-10]\n"),
	   "subject");
	ok(m.text && strcasestr(m.text, "\nMessage-ID: <regressions-report-2024-03-10@example.org>\n"),
	   "Message-ID header");
	ok(m.text && strstr(m.text, "linux-kernel@vger.kernel.org") &&
	   strstr(m.text, "regressions@lists.linux.dev"), "both lists in To:");
	ok(m.text && strstr(m.text, "\nAuto-Submitted: auto-generated\n") &&
	   strstr(m.text, "\nX-Bugbridge-Loop: example.org\n"), "auto-submitted and loop headers");
	ok(m.text && strstr(m.text, "Content-Type: text/plain; charset=utf-8") &&
	   strstr(m.text, "Line two: Jürgen"), "plain UTF-8 text, 8bit");
	ok(m.text && strstr(m.text, "Date: Sun, 10 Mar 2024 18:00:00 +0000\n"), "dated now");
	mail_message_release(&m);
	ok(reg_report_compose_weekly(cfg, bad, "x\n", NOW, &m, &err) != BB_OK, "a bad address is "
	   "refused");
	mail_message_release(&m);
}

static int exec_sql(struct store *db, const char *sql)
{
	struct bb_error err = BB_ERROR_INIT;

	if (store_exec(db, sql, &err) != BB_OK) {
		diag("%s", err.message);
		return 0;
	}
	return 1;
}

static ino_t inode_of(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? sb.st_ino : 0;
}

/* Whether the file system under base grants write leases (fcntl(2)
 * F_SETLEASE), which the report's writer asks for to find a spare that a
 * reader still has open. */
static int leases_work(void)
{
	char *path = str_printf("%s/lease-probe", base);
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) : -1, works = 0;

	if (fd >= 0) {
		works = fcntl(fd, F_SETLEASE, F_WRLCK) == 0;
		if (works)
			(void)fcntl(fd, F_SETLEASE, F_UNLCK);
		close(fd);
		unlink(path);
	}
	free(path);
	return works;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	return buf_detach(&b, NULL);
}

static void test_write(struct bb_config *cfg)
{
	struct bb_error err = BB_ERROR_INIT;
	struct store *db = NULL;
	char *dbpath = str_printf("%s/bugbridge.db", base);
	char *dir = str_printf("%s/reports", base), *path = NULL, *text = NULL, *msgid = NULL, *text2 = NULL;
	char sql[4096];
	struct json_object *top = NULL, *regs, *first, *v;
	xmlDocPtr doc;
	ino_t before;
	time_t last = 0;

	if (!ok(store_open(&db, dbpath, STORE_READ_WRITE, &err) == BB_OK, "store opened: %s",
		err.message))
		goto out;
	snprintf(sql, sizeof(sql),
		 "INSERT INTO reg_regression (id, title, state, branch, introduced, report_msgid,"
		 " reporter, created, updated, last_activity, activity_count, last_activity_by)"
		 " VALUES (1, '%s', 'open', 'mainline', 'v6.7..v6.8-rc1', 'r1@example.org',"
		 " 'Eve <eve@example.org>', %lld, %lld, %lld, 2, 'Bob <bob@example.org>'),"
		 " (2, 'stable one', 'fixed', 'linux-6.1.y', '', 'r2@example.org', '', %lld, %lld,"
		 " %lld, 1, '');"
		 "INSERT INTO reg_link VALUES (1, 'javascript:alert(3)', '<b>bold</b>', 'link');"
		 "INSERT INTO reg_event (regression, time, kind, text, message_id) VALUES"
		 " (1, %lld, 'reported', '<script>alert(4)</script>', 'r1@example.org'),"
		 " (2, %lld, 'fixed', 'fixed in 0123456789ab', '');"
		 "INSERT INTO reg_unhandled (time, message_id, line, reason) VALUES"
		 " (%lld, 'u@example.org', '#regzbot frob <i>x</i>', 'unknown verb');",
		 "<script>alert(1)</script> \"q\" ''s'' <img src=x onerror=alert(2)>",
		 (long long)(NOW - 3 * DAY), (long long)NOW, (long long)(NOW - DAY),
		 (long long)(NOW - 9 * DAY), (long long)NOW, (long long)(NOW - 2 * DAY),
		 (long long)(NOW - 3 * DAY), (long long)(NOW - 2 * DAY), (long long)(NOW - DAY));
	if (!ok(exec_sql(db, sql), "regressions inserted"))
		goto out;
	ok(reg_report_write(db, cfg, dir, NOW, &err) == BB_OK, "reports written: %s", err.message);
	path = str_printf("%s/regression/.1.html.spare", dir);
	ok(access(path, F_OK) != 0 && errno == ENOENT,
	   "a new folder gets its pages written straight, with no spares");
	free(path);

	path = str_printf("%s/regressions.json", dir);
	top = json_object_from_file(path);
	ok(top && json_object_object_get_ex(top, "version", &v) && json_object_get_int(v) == 1,
	   "regressions.json has version 1");
	if (top && json_object_object_get_ex(top, "regressions", &regs) &&
	    json_object_array_length(regs) == 2) {
		first = json_object_array_get_idx(regs, 0);
		ok(json_object_object_get_ex(first, "title", &v) &&
		   !strcmp(json_object_get_string(v), "<script>alert(1)</script> \"q\" 's' "
			   "<img src=x onerror=alert(2)>"), "the title as it is in JSON");
		ok(json_object_object_get_ex(first, "history", &v) &&
		   json_object_array_length(v) == 1, "history in JSON");
		ok(json_object_object_get_ex(first, "age_days", &v) && json_object_get_int(v) == 3,
		   "age in days");
	} else {
		ok(0, "two regressions in JSON");
	}
	ok(top && json_object_object_get_ex(top, "unhandled", &v) &&
	   json_object_array_length(v) == 1, "unhandled directives in JSON");
	json_object_put(top);
	free(path);

	path = str_printf("%s/changes.atom", dir);
	doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
	ok(doc && xmlDocGetRootElement(doc) &&
	   !strcmp((const char *)xmlDocGetRootElement(doc)->name, "feed"), "Atom feed parses");
	if (doc)
		xmlFreeDoc(doc);
	free(path);

	path = str_printf("%s/regression/1.html", dir);
	text = slurp(path);
	ok(text && strstr(text, "&lt;script&gt;alert(1)&lt;/script&gt; &quot;q&quot; &apos;s&apos; "
				"&lt;img src=x onerror=alert(2)&gt;"), "the page escapes the title");
	ok(text && !strstr(text, "<script") && !strstr(text, "<img") && !strstr(text, "<b>"),
	   "no markup from input on the page");
	ok(text && !strstr(text, "href=\"javascript") &&
	   strstr(text, "&lt;b&gt;bold&lt;/b&gt; (javascript:alert(3))"),
	   "a javascript: link is shown as text, not linked");
	free(text);
	text = NULL;
	before = inode_of(path);
	ok(reg_report_write(db, cfg, dir, NOW + 60, &err) == BB_OK, "written again");
	ok(before && inode_of(path) == before, "an unchanged page is not written again");
	ok(reg_report_write(db, cfg, dir, NOW + 10 * DAY, &err) == BB_OK, "written ten days later");
	text = slurp(path);
	ok(text && strstr(text, "<tr><th>Age</th><td>13 days"), "the page has its new age");
	free(text);
	text = NULL;
	free(path);
	path = str_printf("%s/regression/.1.html.spare", dir);
	text = slurp(path);
	ok(text && strstr(text, "<tr><th>Age</th><td>3 days"), "the previous version is the spare");
	free(text);
	text = NULL;
	free(path);
	path = str_printf("%s/regression/1.html", dir);
	ok(reg_report_write(db, cfg, dir, NOW + 20 * DAY, &err) == BB_OK && inode_of(path) == before,
	   "twenty days later the spare's inode is the page again");
	text = slurp(path);
	/* a run that stopped halfway through a new folder left a page cut short */
	ok(text && truncate(path, 100) == 0, "a page cut short");
	ok(reg_report_write(db, cfg, dir, NOW + 20 * DAY, &err) == BB_OK, "written once more");
	text2 = slurp(path);
	ok(text && text2 && !strcmp(text, text2), "the next run makes the page whole again");
	free(text);
	free(text2);
	text = text2 = NULL;
	free(path);

	/* a reader that still has a page open when it becomes the spare
	 * (bugbridge serve streaming it) keeps reading what it opened: the
	 * next run writes a new spare rather than that file in place */
	path = str_printf("%s/regression/1.html", dir);
	{
		int held = open(path, O_RDONLY | O_CLOEXEC);
		char *opened = slurp(path), *still = NULL;
		struct stat hs;

		ok(held >= 0 && reg_report_write(db, cfg, dir, NOW + 30 * DAY, &err) == BB_OK,
		   "a page held open by a reader, written thirty days later");
		ok(reg_report_write(db, cfg, dir, NOW + 40 * DAY, &err) == BB_OK,
		   "and forty days later, when the held file is the spare");
		if (held >= 0 && fstat(held, &hs) == 0 && (still = malloc((size_t)hs.st_size + 1))) {
			ssize_t n = pread(held, still, (size_t)hs.st_size, 0);

			still[n > 0 ? n : 0] = '\0';
		}
		if (leases_work())
			ok(opened && still && !strcmp(opened, still),
			   "the reader's file still holds the version it opened");
		else
			ok(1, "# SKIP this file system grants no leases (the spare is written"
			   " in place)");
		text = slurp(path);
		ok(text && strstr(text, "<tr><th>Age</th><td>43 days"), "the page is the new one");
		free(text);
		text = NULL;
		free(opened);
		free(still);
		if (held >= 0)
			close(held);
	}
	free(path);

	path = str_printf("%s/index.html", dir);
	text = slurp(path);
	ok(text && strstr(text, "href=\"trees/mainline.html\"") &&
	   strstr(text, "href=\"trees/linux-6.1.y.html\"") && strstr(text, "#regzbot frob &lt;i&gt;"),
	   "index links the trees and shows the unhandled directive");
	free(text);
	text = NULL;
	free(path);
	path = str_printf("%s/trees/linux-6.1.y.html", dir);
	ok(access(path, R_OK) == 0, "tree page written");
	free(path);
	path = str_printf("%s/weekly.txt", dir);
	text = slurp(path);
	ok(text && strstr(text, "\n<script>alert(1)</script>"), "weekly.txt written (twenty days "
	   "later: no longer new)");
	free(text);
	text = NULL;
	free(path);
	path = NULL;

	ok(reg_report_weekly_mail(db, cfg, NOW, &msgid, &err) == BB_ERR_CONFIG,
	   "no report_lists: the mail is refused");
	cfg->tracker_report_lists = strdup("linux-kernel@vger.kernel.org, regressions@lists.linux.dev");
	ok(reg_report_weekly_mail(db, cfg, NOW, &msgid, &err) == BB_OK, "weekly mail queued: %s",
	   err.message);
	is_str(msgid, "regressions-report-2024-03-10@example.org", "its Message-ID");
	free(msgid);
	msgid = NULL;
	ok(reg_report_weekly_mail(db, cfg, NOW + 3600, NULL, &err) == BB_OK, "queued again the same day");
	{
		sqlite3_stmt *q = NULL;

		store_prepare(db, &q, "SELECT count(*) FROM outbox WHERE message_id LIKE "
				      "'regressions-report-%'", &err);
		ok(q && sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 1,
		   "one outbox row");
		sqlite3_finalize(q);
	}
	ok(reg_report_last_sent(db, cfg, NOW, &last, &err) == BB_OK && last == 0,
	   "the report of the day is not the last one before it");
	ok(reg_report_last_sent(db, cfg, NOW + 7 * DAY, &last, &err) == BB_OK && last > 0,
	   "a week later it is");
out:
	store_close(db);
	free(dbpath);
	free(dir);
	free(path);
	free(text);
	free(msgid);
}

int main(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bb_config *cfg = NULL;
	char *cmd;

	log_setup(NULL, LOG_LEVEL_ERROR, NULL);
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	if (config_load_file(&cfg, NULL, &err) != BB_OK) {
		printf("Bail out! %s\n", err.message);
		return 1;
	}
	free(cfg->mail_domain);
	cfg->mail_domain = strdup("example.org");
	free(cfg->mail_from);
	cfg->mail_from = strdup("Regression Tracker <tracker@example.org>");

	test_escape();
	test_names();
	test_cycle();
	test_weekly_text();
	test_mail(cfg);
	test_write(cfg);

	config_free(cfg);
	mail_shutdown();
	xmlCleanupParser();
	cmd = str_printf("rm -rf '%s'", base);
	if (cmd && system(cmd) != 0)
		diag("could not remove %s", base);
	free(cmd);
	return done_testing();
}
