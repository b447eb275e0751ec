/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for tracker/directive.c and tracker/links.c: the real
 * #regzbot mails of the shared corpus ($BUGBRIDGE_SHARED/corpus/mail/,
 * decoded with inmail_decode()) each give exactly the directives a human
 * reads there; every verb and alias; where a directive counts (column 0,
 * not quoted, not in a diff; after a signature it does) and how
 * continuation lines join; what is kept as unhandled; limits and hostile
 * bytes; every form of mail and Bugzilla link; and what the tracker does
 * with them on a real store, checked against regzbot's reference
 * (docs/reference.md): per-mail ignore-activity and poke, #forregzbot,
 * dup against dup-of, introduced with the report's URL, ^backmonitor,
 * ^^introduced, the whole line of a directive not acted on. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "core/buf.h"
#include "core/store.h"
#include "mail/inmail.h"
#include "mail/mail.h"
#include "tracker/directive.h"
#include "tracker/links.h"
#include "tracker/thread_rows.h"
#include "tracker/tracker.h"
#include "tests/unit/tap.h"

static char shared[4096];

/* What one directive must parse to; NULL strings must be NULL, error is a
 * part of the expected message (NULL: understood). */
struct want {
	enum reg_verb verb;
	const char *verb_text, *arg;
	const char *from, *to;
	int open;
	char anchor;
	const char *url;
	const char *fix_commit, *fix_subject;
	const char *error;
	const char *introduced;   /* checked when set */
	unsigned ancestor;        /* checked when anchor is '^' */
};

static int same(const char *got, const char *want)
{
	return want ? got && !strcmp(got, want) : !got;
}

static const char *show(const char *s)
{
	return s ? s : "(null)";
}

static int matches(const struct reg_directive *d, const struct want *w)
{
	return d->verb == w->verb && (!w->verb_text || same(d->verb_text, w->verb_text)) &&
		same(d->arg, w->arg ? w->arg : "") && same(d->commit_from, w->from) &&
		same(d->commit_to, w->to) && d->range_open == w->open && d->anchor == w->anchor &&
		same(d->url, w->url) && same(d->fix_commit, w->fix_commit) &&
		same(d->fix_subject, w->fix_subject) &&
		(!w->introduced || same(d->introduced, w->introduced)) &&
		(d->anchor != '^' || !w->ancestor || d->ancestor == w->ancestor) &&
		(w->error ? d->error && strstr(d->error, w->error) : !d->error);
}

static void dump(const struct reg_directive *d)
{
	diag("got %s [%s] arg=\"%s\" from=%s to=%s open=%d anchor=%c url=%s fix=%s/%s error=%s",
	     reg_verb_str(d->verb), show(d->verb_text), show(d->arg), show(d->commit_from),
	     show(d->commit_to), d->range_open, d->anchor ? d->anchor : '0', show(d->url),
	     show(d->fix_commit), show(d->fix_subject), show(d->error));
}

/* Parses body and checks it gives exactly the n directives wanted. */
static void expect(const char *body, const struct want *want, size_t nwant, const char *name)
{
	struct reg_directive *d = NULL;
	size_t n = 0;
	struct bb_error err = BB_ERROR_INIT;

	if (!ok(reg_directives_parse(body, &d, &n, &err) == BB_OK && n == nwant,
		"%s: %zu directive(s)", name, nwant)) {
		diag("got %zu", n);
		for (size_t i = 0; i < n; i++)
			dump(&d[i]);
		reg_directives_free(d, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (!ok(matches(&d[i], &want[i]), "%s: #%zu is %s \"%s\"", name, i + 1,
			reg_verb_str(want[i].verb), show(want[i].arg)))
			dump(&d[i]);
	reg_directives_free(d, n);
}

static void one(const char *body, struct want w, const char *name)
{
	expect(body, &w, 1, name);
}

static size_t count(const char *body)
{
	struct reg_directive *d = NULL;
	size_t n = 0;
	struct bb_error err = BB_ERROR_INIT;

	if (reg_directives_parse(body, &d, &n, &err) != BB_OK)
		return (size_t)-1;
	reg_directives_free(d, n);
	return n;
}

/* --- the real mails ---------------------------------------------------------- */

#define BZ "https://bugzilla.kernel.org/show_bug.cgi?id="
#define IGNORE_ACTIVITY { .verb = REG_IGNORE_ACTIVITY }

static const struct corpus_mail {
	const char *file;
	size_t n;
	struct want want[4];
} corpus_mails[] = {
	/* replies quoting someone's directives: nothing */
	{ "0d986e141a0c.eml", 0, { { 0 } } },
	{ "4cf390bda14c.eml", 0, { { 0 } } },
	{ "7f46f3d96243.eml", 0, { { 0 } } },
	{ "88f6aeb05bb7.eml", 0, { { 0 } } },
	{ "96c5a640dec5.eml", 0, { { 0 } } },
	{ "b1a203bd52d1.eml", 0, { { 0 } } },
	{ "ff0e99d5967b.eml", 0, { { 0 } } },
	/* quoted inside an Outlook "-----Original Message-----" quote */
	{ "e634c523424f.eml", 0, { { 0 } } },
	/* below the "--" footer: still a directive */
	{ "37f63e5a900f.eml", 1, { { .verb = REG_POKE } } },
	{ "40f0f90719bd.eml", 3, {
		{ .verb = REG_INTRODUCED_PARENT, .arg = "14c200b7ca46b9a9f4af9e81d258a5827432",
		  .from = "14c200b7ca46b9a9f4af9e81d258a5827432", .anchor = '^' },
		{ .verb = REG_TITLE,
		  .arg = "platform/x86: intel-vbtn: suspend broken on Thinkpad X1 Tablet Gen2" },
		IGNORE_ACTIVITY } },
	/* the report's Bugzilla URL on a continuation line */
	{ "45e2712778db.eml", 3, {
		{ .verb = REG_INTRODUCED, .arg = "v6.1.15..v6.1.20 " BZ "217225",
		  .from = "v6.1.15", .to = "v6.1.20", .url = BZ "217225" },
		{ .verb = REG_TITLE, .arg = "platform: thinkpad: can no longer alter /proc/acpi/ibm/fan" },
		IGNORE_ACTIVITY } },
	{ "5795cb3f671b.eml", 3, {
		{ .verb = REG_INTRODUCED_PARENT, .arg = "804951203aa541ad6720c9726 " BZ "218143",
		  .from = "804951203aa541ad6720c9726", .anchor = '^', .url = BZ "218143" },
		{ .verb = REG_TITLE, .arg = "platform/x86/intel/pmc: bad performance regression "
		  "whereby the TV streams are basically unstable" },
		IGNORE_ACTIVITY } },
	{ "6983f6f4cde7.eml", 3, {
		{ .verb = REG_INTRODUCED, .arg = "5829f8a897e4f0 " BZ "217234",
		  .from = "5829f8a897e4f0", .url = BZ "217234" },
		{ .verb = REG_TITLE, .arg = "platform/x86: ideapad-laptop: Touchpad disabled after wakeup" },
		IGNORE_ACTIVITY } },
	/* quoting the thread, then the writer's own directive */
	{ "6d0ce745e782.eml", 1, {
		{ .verb = REG_INTRODUCED, .arg = "a9c4a912b7dc7ff922d4b9261160c001558f9755",
		  .from = "a9c4a912b7dc7ff922d4b9261160c001558f9755" } } },
	/* "/": the thread's root is the report */
	{ "6ff6aa233d6b.eml", 3, {
		{ .verb = REG_INTRODUCED, .arg = "7c45534afa4435 /", .from = "7c45534afa4435",
		  .anchor = '/' },
		{ .verb = REG_TITLE, .arg = "platform/x86/amd/pmf: system freezes after resuming from suspend" },
		IGNORE_ACTIVITY } },
	{ "a4371520d133.eml", 3, {
		{ .verb = REG_INTRODUCED_PARENT, .arg = "0c4cae1bc00d", .from = "0c4cae1bc00d",
		  .anchor = '^' },
		{ .verb = REG_TITLE,
		  .arg = "PM: hibernate: & platform/x86/intel/hid: hibernate on Dell Latitude 7430 fails" },
		IGNORE_ACTIVITY } },
	{ "a916db0a000a.eml", 2, {
		{ .verb = REG_INTRODUCED, .arg = "v6.4..v6.5-rc1 " BZ "217726", .from = "v6.4",
		  .to = "v6.5-rc1", .url = BZ "217726" },
		{ .verb = REG_TITLE, .arg = "ASUE140D:00 04F3:31B9 doesn't respond to input" } } },
	/* quoted-printable, multipart/signed */
	{ "acf53bf39d7d.eml", 1, {
		{ .verb = REG_INTRODUCED_PARENT, .verb_text = "^introduced", .arg = "v6.5..v6.6",
		  .from = "v6.5", .to = "v6.6", .anchor = '^' } } },
	{ "ae0811665de9.eml", 3, {
		{ .verb = REG_INTRODUCED, .arg = "v6.1.3..v6.1.4 " BZ "217026", .from = "v6.1.3",
		  .to = "v6.1.4", .url = BZ "217026" },
		{ .verb = REG_TITLE, .arg = "backlight: brightness control stopped working on a Ryzen "
		  "system with hybrid graphics" },
		IGNORE_ACTIVITY } },
	{ "ca154d2fa42e.eml", 3, {
		{ .verb = REG_INTRODUCED, .arg = "4b4967cbd2685f31 " BZ "217020",
		  .from = "4b4967cbd2685f31", .url = BZ "217020" },
		{ .verb = REG_TITLE, .arg = "hp-wmi: changing platform profile became impossible" },
		IGNORE_ACTIVITY } },
	{ "d00c8d4c7d33.eml", 1, {
		{ .verb = REG_INTRODUCED, .arg = "v6.5..v6.6-rc7 " BZ "218045", .from = "v6.5",
		  .to = "v6.6-rc7", .url = BZ "218045" } } },
	{ "d58841726bfc.eml", 2, {
		{ .verb = REG_INTRODUCED, .arg = "v5.18..v5.19 " BZ "216355", .from = "v5.18",
		  .to = "v5.19", .url = BZ "216355" },
		IGNORE_ACTIVITY } },
	{ "fd71798ee7ff.eml", 4, {
		{ .verb = REG_INTRODUCED_PARENT, .arg = "847e1eb30e269a094da046c08273abe3f3361cf2",
		  .from = "847e1eb30e269a094da046c08273abe3f3361cf2", .anchor = '^' },
		{ .verb = REG_DUP, .verb_text = "duplicate", .arg = BZ "218531", .url = BZ "218531" },
		{ .verb = REG_TITLE, .arg = "platform/x86: p2sb: Continuous ACPI errors resulting in "
		  "high CPU usage by journald" },
		IGNORE_ACTIVITY } },
};

static char *read_file(const char *path, size_t *len)
{
	gchar *data;
	gsize n;

	if (!g_file_get_contents(path, &data, &n, NULL))
		return NULL;
	*len = n;
	return data;
}

/* The decoded body of a corpus mail (free() it), or NULL. */
static char *corpus_body(const char *path)
{
	size_t len;
	char *raw = read_file(path, &len), *text = NULL;
	struct inmail_body b;
	struct bb_error err = BB_ERROR_INIT;

	if (raw && inmail_decode(raw, len, &b, &err) == BB_OK) {
		text = strdup(b.text);
		inmail_body_release(&b);
	}
	g_free(raw);
	return text;
}

static char *corpus_message_id(const char *path)
{
	size_t len;
	char *raw = read_file(path, &len), *id = NULL;
	struct inmail m;
	struct bb_error err = BB_ERROR_INIT;

	if (raw && inmail_parse_headers(raw, len, NULL, &m, &err) == BB_OK) {
		id = m.message_id ? strdup(m.message_id) : NULL;
		inmail_release(&m);
	}
	g_free(raw);
	return id;
}

/* Every other mail of the corpus: no directive (recursive walk). */
static void walk_others(const char *dir, size_t *mails, size_t *with)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *name;

	if (!d)
		return;
	while ((name = g_dir_read_name(d))) {
		char *path = g_build_filename(dir, name, NULL);

		if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
			if (strcmp(name, "regzbot"))
				walk_others(path, mails, with);
		} else {
			char *body = corpus_body(path);

			if (body) {
				size_t n = count(body);

				(*mails)++;
				if (n) {
					(*with)++;
					diag("%s: %zu directive(s)", path, n);
				}
				free(body);
			}
		}
		g_free(path);
	}
	g_dir_close(d);
}

static void test_corpus(void)
{
	char dir[8192], path[8400];
	size_t mails = 0, with = 0;
	GDir *d;
	const char *name;
	int listed = 0, found = 0;

	snprintf(dir, sizeof(dir), "%s/corpus/mail/lkml-archive/platform-driver-x86/regzbot", shared);
	if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
		printf("ok %d # SKIP no mail corpus at %s (set BUGBRIDGE_SHARED)\n", ++tap_count, dir);
		return;
	}
	for (size_t i = 0; i < sizeof(corpus_mails) / sizeof(corpus_mails[0]); i++) {
		const struct corpus_mail *c = &corpus_mails[i];
		char *body;

		snprintf(path, sizeof(path), "%s/%s", dir, c->file);
		body = corpus_body(path);
		if (!ok(body != NULL, "%s decodes", c->file))
			continue;
		expect(body, c->want, c->n, c->file);
		free(body);
	}
	/* the table covers every mail of the folder */
	d = g_dir_open(dir, 0, NULL);
	while (d && (name = g_dir_read_name(d))) {
		found++;
		for (size_t i = 0; i < sizeof(corpus_mails) / sizeof(corpus_mails[0]); i++)
			listed += !strcmp(name, corpus_mails[i].file);
	}
	if (d)
		g_dir_close(d);
	is_int(listed, found, "every mail of regzbot/ has its expected directives");

	/* a lore link split by a quoted-printable soft line break is whole
	 * after decoding, and names the report it points to */
	snprintf(path, sizeof(path), "%s/acf53bf39d7d.eml", dir);
	{
		char *body = corpus_body(path), *id = NULL, *target;
		const char *url = body ? strstr(body, "https://lore.kernel.org/regressions/") : NULL;

		if (url) {
			char *u = g_strndup(url, strcspn(url, " \n"));

			id = reg_link_message_id(u);
			g_free(u);
		}
		snprintf(path, sizeof(path), "%s/d00c8d4c7d33.eml", dir);
		target = corpus_message_id(path);
		ok(id && target && !strcmp(id, target),
		   "QP-split lore link names the report mail (%s = %s)", show(id), show(target));
		free(id);
		free(target);
		free(body);
	}

	snprintf(dir, sizeof(dir), "%s/corpus/mail", shared);
	walk_others(dir, &mails, &with);
	ok(mails > 100 && with == 0, "the other %zu corpus mails carry no directive", mails);
}

/* --- verbs ---------------------------------------------------------------------- */

static void test_aliases(void)
{
	static const struct {
		const char *alias;
		enum reg_verb verb;
		const char *arg;
	} aliases[] = {
		{ "introduced", REG_INTRODUCED, "1234567890ab" },
		{ "^introduced", REG_INTRODUCED_PARENT, "1234567890ab" },
		{ "title", REG_TITLE, "Some title" },
		{ "subject", REG_TITLE, "Some title" },
		{ "summary", REG_TITLE, "Some title" },
		{ "from", REG_FROM, "Jane Doe <jane@example.org>" },
		{ "link", REG_LINK, "https://lore.kernel.org/r/a@b" },
		{ "related-brief", REG_LINK, "https://lore.kernel.org/r/a@b" },
		{ "monitor", REG_MONITOR, "https://lore.kernel.org/r/a@b" },
		{ "related", REG_MONITOR, "https://lore.kernel.org/r/a@b" },
		{ "unlink", REG_UNLINK, "https://lore.kernel.org/r/a@b" },
		{ "unmonitor", REG_UNLINK, "https://lore.kernel.org/r/a@b" },
		{ "unrelated", REG_UNLINK, "https://lore.kernel.org/r/a@b" },
		{ "dup", REG_DUP, "https://lore.kernel.org/r/a@b" },
		{ "dupof", REG_DUP_OF, "https://lore.kernel.org/r/a@b" },
		{ "dup-of", REG_DUP_OF, "https://lore.kernel.org/r/a@b" },
		{ "duplicate", REG_DUP, "https://lore.kernel.org/r/a@b" },
		{ "duplicate-of", REG_DUP_OF, "https://lore.kernel.org/r/a@b" },
		{ "^backmonitor", REG_BACKMONITOR, "https://lore.kernel.org/r/a@b" },
		{ "introduced^", REG_INTRODUCED_PARENT, "1234567890ab" },
		{ "^^introduced", REG_INTRODUCED_PARENT, "1234567890ab" },
		{ "fix", REG_FIX, "1234567890ab" },
		{ "fixed-by", REG_FIX, "1234567890ab" },
		{ "fixedby", REG_FIX, "1234567890ab" },
		{ "resolve", REG_RESOLVE, "" },
		{ "resolved", REG_RESOLVE, "" },
		{ "invalid", REG_RESOLVE, "" },
		{ "inconclusive", REG_INCONCLUSIVE, "" },
		{ "backburner", REG_BACKBURNER, "" },
		{ "back-burner", REG_BACKBURNER, "" },
		{ "unbackburn", REG_UNBACKBURNER, "" },
		{ "unbackburner", REG_UNBACKBURNER, "" },
		{ "unback-burner", REG_UNBACKBURNER, "" },
		{ "poke", REG_POKE, "" },
		{ "note", REG_NOTE, "a note" },
		{ "ignore-activity", REG_IGNORE_ACTIVITY, "" },
		{ "activity-ignore", REG_IGNORE_ACTIVITY, "" },
	};

	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		for (int form = 0; form < 3; form++) {
			char body[256], upper[64];
			struct reg_directive *d = NULL;
			size_t n = 0;
			struct bb_error err = BB_ERROR_INIT;
			const char *verb = aliases[i].alias;

			if (form == 2) {   /* any case */
				snprintf(upper, sizeof(upper), "%s", verb);
				for (char *p = upper; *p; p++)
					*p = (char)g_ascii_toupper(*p);
				verb = upper;
			}
			snprintf(body, sizeof(body), "%s %s%s %s\n", form == 2 ? "#REGZBOT" : "#regzbot",
				 verb, form == 1 ? ":" : "", aliases[i].arg);
			if (!ok(reg_directives_parse(body, &d, &n, &err) == BB_OK && n == 1 &&
				d[0].verb == aliases[i].verb && !d[0].error && !strcmp(d[0].verb_text, verb) &&
				!strcmp(d[0].arg, aliases[i].arg),
				"alias %s%s%s -> %s", verb, form == 1 ? ":" : "", form == 2 ? " (upper case)" : "",
				reg_verb_str(aliases[i].verb)) && n == 1)
				dump(&d[0]);
			reg_directives_free(d, n);
		}
	}
	is_str(reg_verb_str(REG_INTRODUCED_PARENT), "^introduced", "canonical name of ^introduced");
	is_str(reg_verb_str(REG_DUP), "dup", "canonical name of dup");
	is_str(reg_verb_str(REG_DUP_OF), "dup-of", "canonical name of dup-of");
	is_str(reg_verb_str(REG_BACKMONITOR), "^backmonitor", "canonical name of ^backmonitor");
	is_str(reg_verb_str(REG_UNBACKBURNER), "unbackburner", "canonical name of unbackburner");
	is_str(reg_verb_str(REG_UNKNOWN), "unknown", "name of REG_UNKNOWN");
	is_str(reg_verb_str((enum reg_verb)999), "unknown", "name of a bogus verb");
}

#define W(...) ((struct want){ __VA_ARGS__ })

static void test_introduced(void)
{
	one("#regzbot introduced: 1234abcd\n",
	    W(.verb = REG_INTRODUCED, .arg = "1234abcd", .from = "1234abcd"), "8 hex digits");
	one("#regzbot introduced 1234ABCDEF\n",
	    W(.verb = REG_INTRODUCED, .arg = "1234ABCDEF", .from = "1234abcdef"), "hex lower-cased");
	one("#regzbot introduced 1234abc\n",
	    W(.verb = REG_INTRODUCED, .arg = "1234abc", .error = "commit"), "7 hex digits: not understood");
	one("#regzbot introduced v6.5\n",
	    W(.verb = REG_INTRODUCED, .arg = "v6.5", .error = "range"), "a lone tag: not understood");
	one("#regzbot introduced\n",
	    W(.verb = REG_INTRODUCED, .error = "commit"), "no culprit");
	one("#regzbot introduced: deadbeef00..cafebabe00\n",
	    W(.verb = REG_INTRODUCED, .arg = "deadbeef00..cafebabe00", .from = "deadbeef00",
	      .to = "cafebabe00"), "commit range");
	one("#regzbot introduced: v6.1..\n",
	    W(.verb = REG_INTRODUCED, .arg = "v6.1..", .from = "v6.1", .open = 1), "open range");
	one("#regzbot introduced: next-20240101..next-20240102\n",
	    W(.verb = REG_INTRODUCED, .arg = "next-20240101..next-20240102", .from = "next-20240101",
	      .to = "next-20240102"), "linux-next tags");
	one("#regzbot introduced: v6.1...v6.2\n",
	    W(.verb = REG_INTRODUCED, .arg = "v6.1...v6.2", .error = "range"), "three dots");
	one("#regzbot introduced: ..v6.2\n",
	    W(.verb = REG_INTRODUCED, .arg = "..v6.2", .error = "range"), "range without a start");
	one("#regzbot introduced: abc..def\n",
	    W(.verb = REG_INTRODUCED, .arg = "abc..def", .error = "range"), "short hashes in a range");
	one("#regzbot introduced 1234abcd ^\n",
	    W(.verb = REG_INTRODUCED, .arg = "1234abcd ^", .from = "1234abcd", .anchor = '^'),
	    "anchor ^");
	one("#regzbot introduced 1234abcd ~\n",
	    W(.verb = REG_INTRODUCED, .arg = "1234abcd ~", .from = "1234abcd", .anchor = '~'),
	    "anchor ~");
	one("#regzbot introduced v6.1..v6.2 /\n",
	    W(.verb = REG_INTRODUCED, .arg = "v6.1..v6.2 /", .from = "v6.1", .to = "v6.2",
	      .anchor = '/'), "range and anchor /");
	one("#regzbot introduced v6.1..v6.2 <https://lore.kernel.org/r/x@y>.\n",
	    W(.verb = REG_INTRODUCED, .arg = "v6.1..v6.2 <https://lore.kernel.org/r/x@y>.",
	      .from = "v6.1", .to = "v6.2", .url = "https://lore.kernel.org/r/x@y"),
	    "URL in <> with a full stop");
	one("#regzbot ^introduced v6.1..v6.2 /\n",
	    W(.verb = REG_INTRODUCED_PARENT, .arg = "v6.1..v6.2 /", .from = "v6.1", .to = "v6.2",
	      .anchor = '^'), "^introduced keeps '^'");
	/* regzbot reads every word after the culprit for the report's pointer */
	one("#regzbot introduced 1234abcd (\"subject of it\") https://example.org/x\n",
	    W(.verb = REG_INTRODUCED, .arg = "1234abcd (\"subject of it\") https://example.org/x",
	      .from = "1234abcd", .url = "https://example.org/x",
	      .introduced = "1234abcd (\"subject of it\")"),
	    "a URL after the commit's subject is the report, the subject stays the culprit's");
	one("#regzbot introduced: v5.18..v5.19 https://bugzilla.kernel.org/show_bug.cgi?id=216000\n",
	    W(.verb = REG_INTRODUCED, .arg = "v5.18..v5.19 https://bugzilla.kernel.org/show_bug.cgi?id=216000",
	      .from = "v5.18", .to = "v5.19", .url = "https://bugzilla.kernel.org/show_bug.cgi?id=216000",
	      .introduced = "v5.18..v5.19"), "introduced: a range and the report's URL");
	one("#regzbot introduced: 1234abcd5678 /\n",
	    W(.verb = REG_INTRODUCED, .arg = "1234abcd5678 /", .from = "1234abcd5678", .anchor = '/',
	      .introduced = "1234abcd5678"), "introduced: <sha> / drops the '/'");
	one("#regzbot introduced: 1234abcd5678 ^ https://lore.kernel.org/r/dup@x/\n",
	    W(.verb = REG_INTRODUCED, .arg = "1234abcd5678 ^ https://lore.kernel.org/r/dup@x/",
	      .from = "1234abcd5678", .anchor = '^', .ancestor = 1,
	      .url = "https://lore.kernel.org/r/dup@x/", .introduced = "1234abcd5678"),
	    "introduced with ^ and a URL: the parent is the report, the URL another report");
	one("#regzbot ^^introduced: v6.1..v6.2\n",
	    W(.verb = REG_INTRODUCED_PARENT, .arg = "v6.1..v6.2", .from = "v6.1", .to = "v6.2",
	      .anchor = '^', .ancestor = 2, .introduced = "v6.1..v6.2"),
	    "^^introduced: the grandparent is the report");
	one("#regzbot ^introduced: v6.1..v6.2\n",
	    W(.verb = REG_INTRODUCED_PARENT, .arg = "v6.1..v6.2", .from = "v6.1", .to = "v6.2",
	      .anchor = '^', .ancestor = 1, .introduced = "v6.1..v6.2"),
	    "^introduced: the parent is the report");
	{
		static const char hex65[] =
			"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0";
		char body[128];

		snprintf(body, sizeof(body), "#regzbot introduced %s\n", hex65);
		one(body, W(.verb = REG_INTRODUCED, .arg = hex65, .error = "commit"),
		    "65 hex digits: not a commit");
	}
}

static void test_other_verbs(void)
{
	static const char subject[] = "platform/x86: foo: Fix bar";
	static const char git_url[] = "https://git.kernel.org/linus/1234567890ab";

	one("#regzbot title:   Spaces \t collapsed  \n",
	    W(.verb = REG_TITLE, .arg = "Spaces collapsed"), "title trimmed and collapsed");
	one("#regzbot title\n", W(.verb = REG_TITLE, .error = "text"), "title without text");
	one("#regzbot note\n", W(.verb = REG_NOTE, .error = "text"), "note without text");
	one("#regzbot from\n", W(.verb = REG_FROM, .error = "text"), "from without text");
	one("#regzbot from: Jane Doe <jane@example.org>\n",
	    W(.verb = REG_FROM, .arg = "Jane Doe <jane@example.org>"), "from");
	one("#regzbot link: https://lore.kernel.org/all/a@b/ Earlier report\n",
	    W(.verb = REG_LINK, .arg = "https://lore.kernel.org/all/a@b/ Earlier report",
	      .url = "https://lore.kernel.org/all/a@b/"), "link with a description");
	one("#regzbot link: see the other thread\n",
	    W(.verb = REG_LINK, .arg = "see the other thread", .error = "URL"), "link without a URL");
	one("#regzbot monitor\n", W(.verb = REG_MONITOR, .error = "URL"), "monitor without a URL");
	one("#regzbot dup-of: " BZ "1\n", W(.verb = REG_DUP_OF, .arg = BZ "1", .url = BZ "1"),
	    "dup-of a bug");
	one("#regzbot duplicate: " BZ "217000\n",
	    W(.verb = REG_DUP, .arg = BZ "217000", .url = BZ "217000"), "duplicate: a bug");
	one("#regzbot ^backmonitor: https://lore.kernel.org/r/rep@x/\n",
	    W(.verb = REG_BACKMONITOR, .arg = "https://lore.kernel.org/r/rep@x/",
	      .url = "https://lore.kernel.org/r/rep@x/"), "^backmonitor names a regression");
	one("#regzbot ^backmonitor\n", W(.verb = REG_BACKMONITOR, .error = "URL"),
	    "^backmonitor without a URL");
	one("#regzbot fix: 1234567890ab\n",
	    W(.verb = REG_FIX, .arg = "1234567890ab", .fix_commit = "1234567890ab"), "fix by hash");
	one("#regzbot fix: 1234567890AB (\"platform/x86: foo: Fix bar\")\n",
	    W(.verb = REG_FIX, .arg = "1234567890AB (\"platform/x86: foo: Fix bar\")",
	      .fix_commit = "1234567890ab", .fix_subject = subject), "fix by hash and subject");
	one("#regzbot fixed-by: platform/x86: foo: Fix bar\n",
	    W(.verb = REG_FIX, .arg = subject, .fix_subject = subject), "fix by subject");
	one("#regzbot fix: \"platform/x86: foo: Fix bar\"\n",
	    W(.verb = REG_FIX, .arg = "\"platform/x86: foo: Fix bar\"", .fix_subject = subject),
	    "fix by quoted subject");
	one("#regzbot fix: 1234567890ab ( \"platform/x86: foo: Fix bar\" )\n",
	    W(.verb = REG_FIX, .arg = "1234567890ab ( \"platform/x86: foo: Fix bar\" )",
	      .fix_commit = "1234567890ab", .fix_subject = subject), "fix: blanks inside () and quotes");
	one("#regzbot fix: 1234567890ab: \xe2\x80\x9cplatform/x86: foo: Fix bar\xe2\x80\x9d\n",
	    W(.verb = REG_FIX, .arg = "1234567890ab: \xe2\x80\x9cplatform/x86: foo: Fix bar\xe2\x80\x9d",
	      .fix_commit = "1234567890ab", .fix_subject = subject), "fix: hash, ':' and typographic quotes");
	one("#regzbot fix: https://git.kernel.org/linus/1234567890ab\n",
	    W(.verb = REG_FIX, .arg = git_url, .url = git_url), "fix by URL");
	one("#regzbot fix\n", W(.verb = REG_FIX, .error = "hash or subject"), "fix without anything");
	one("#regzbot resolve: user error\n",
	    W(.verb = REG_RESOLVE, .verb_text = "resolve", .arg = "user error"), "resolve with a reason");
	one("#regzbot invalid: not a regression\n",
	    W(.verb = REG_RESOLVE, .verb_text = "invalid", .arg = "not a regression"),
	    "invalid keeps its spelling");
	one("#regzbot backburner: needs hardware nobody has\n",
	    W(.verb = REG_BACKBURNER, .arg = "needs hardware nobody has"), "backburner with a reason");
	one("#regzbot inconclusive: reporter vanished\n",
	    W(.verb = REG_INCONCLUSIVE, .arg = "reporter vanished"), "inconclusive with a reason");
}

/* --- where a directive counts -------------------------------------------------- */

static void test_where(void)
{
	const struct want poke = { .verb = REG_POKE }, title = { .verb = REG_TITLE, .arg = "A title" };

	is_int(count("> #regzbot poke\n"), 0, "quoted: no directive");
	is_int(count(">#regzbot poke\n>> #regzbot poke\n"), 0, "quoted without a blank, twice: none");
	is_int(count(" #regzbot poke\n\t#regzbot poke\n"), 0, "indented: none");
	is_int(count("say #regzbot poke\n"), 0, "not at the start of the line: none");
	is_int(count("#regzbotpoke\n#regzbot-poke\n#regzbots poke\n"), 0, "not the keyword: none");
	is_int(count("Ok.\n-----Original Message-----\nFrom: x\n\n#regzbot poke\n"), 0,
	       "in an Outlook quote: none");
	is_int(count("Ok.\n________________________________\nFrom: x\nSent: y\n\n#regzbot poke\n"),
	       0, "below Outlook's rule and From:: none");
	is_int(count("Ok.\nFrom: x\nSent: y\nSubject: z\n\n#regzbot poke\n"), 0,
	       "below desktop Outlook's From: and Sent: lines: none");
	is_int(count("FYI.\n\n---------- Forwarded message ---------\nFrom: x\n\n#regzbot poke\n"),
	       0, "in a Gmail forward: none");
	is_int(count("FYI.\n\nBegin forwarded message:\n\n#regzbot poke\n"), 0,
	       "in an Apple Mail forward: none");
	is_int(count("FYI.\n-- \nJane\n-------- Forwarded Message --------\n#regzbot poke\n"), 0,
	       "in a forward below the signature: none");
	is_int(count("-- \nbot footer\n#regzbot poke\n"), 1,
	       "below a signature without a forward: still read");
	is_int(count("#regzbot poke\n\n---------- Forwarded message ---------\n#regzbot poke\n"), 1,
	       "the own one above a forward is read");
	is_int(count("diff --git a/x b/x\n#regzbot poke\n"), 0, "among a diff's headers: none");
	is_int(count(""), 0, "empty body");
	is_int(count(NULL), 0, "no body");
	one("#Regzbot poke\n", poke, "keyword in mixed case");
	one("#regzbot: poke\n", poke, "a ':' after the keyword");
	one("#regzbot poke", poke, "no line end");
	one("#regzbot poke\r\n", poke, "CRLF");
	one("Thanks\n-- \nJane\n#regzbot poke\n", poke, "after a signature: still a directive");
	one("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n#regzbot poke\n", poke,
	    "after a hunk: a directive");
	one("#regzbot title: A title\n-- \nJane Doe\n", title, "the signature marker ends a paragraph");
	one("#regzbot title: A title\n---\n drivers/x.c | 2 +-\n", title, "a '---' rule ends it");
	one("#regzbot title: A title\n> quoted\n", title, "a quoted line ends it");
	one("#regzbot title: A title\n\nMore prose.\n", title, "a blank line ends it");
	one("#regzbot title: A title\n \t \nMore prose.\n", title, "a line of blanks ends it");
	one("#regzbot title: A title\n    #regzbot invalid-verb: shown in help\n", title,
	    "an indented #regzbot line ends the directive above and is none itself");
	one("#regzbot title: A title\n\t#regzbot poke\nnot mine\n", title,
	    "nor do lines after an indented one continue it");
	{
		struct reg_directive *d = NULL;
		size_t n = 0;
		struct bb_error err = BB_ERROR_INIT;

		ok(reg_directives_parse("#regzbot invalid-verb: known bios issue,\nsee the BIOS update\n"
					"#REGZBOT  poke\n#regzbot dup: https://lore.kernel.org/r/x@y/\n",
					&d, &n, &err) == BB_OK && n == 3, "text: three directives");
		if (n == 3) {
			is_str(d[0].text, "#regzbot invalid-verb: known bios issue, see the BIOS update",
			       "text: the whole directive with its verb and continuation line");
			is_str(d[1].text, "#REGZBOT poke", "text: as written, blanks collapsed");
			is_str(d[2].text, "#regzbot dup: https://lore.kernel.org/r/x@y/",
			       "text: a directive with a URL");
		}
		reg_directives_free(d, n);
	}
	{
		const struct want w[] = {
			{ .verb = REG_TITLE, .arg = "A title over two lines" },
			{ .verb = REG_INTRODUCED, .arg = "v6.1..v6.2 " BZ "5", .from = "v6.1", .to = "v6.2", .url = BZ "5" },
			{ .verb = REG_IGNORE_ACTIVITY },
		};

		expect("Hi,\n\nSee this:\n#regzbot title: A title\nover two lines\n"
		       "#regzbot introduced v6.1..v6.2\n" BZ "5\n#regzbot ignore-activity\n\nBye\n",
		       w, 3, "three in a paragraph after prose, continuations joined");
	}
	{
		const struct want w[] = { { .verb = REG_TITLE, .arg = "quoted one" }, { .verb = REG_POKE } };

		expect("On Mon, Jane wrote:\n> #regzbot title: not mine\n\n#regzbot title: quoted one\n"
		       "\n#regzbot poke\n", w, 2, "the quoted one ignored, the own two read");
	}
	{
		struct reg_directive *d = NULL;
		size_t n = 0;
		struct bb_error err = BB_ERROR_INIT;

		ok(reg_directives_parse("a\nb\n\n#regzbot poke\nc\n#regzbot note: x\n", &d, &n, &err) ==
		   BB_OK && n == 2 && d[0].line == 4 && d[1].line == 6, "line numbers of the keyword lines");
		reg_directives_free(d, n);
	}
}

/* --- unhandled ------------------------------------------------------------------ */

static void test_unhandled(void)
{
	one("#regzbot frobnicate: the thing\n",
	    W(.verb = REG_UNKNOWN, .verb_text = "frobnicate", .arg = "the thing", .error = "unknown"),
	    "unknown verb kept");
	one("#regzbot\n", W(.verb = REG_UNKNOWN, .verb_text = "", .error = "no command"),
	    "keyword alone");
	one("#regzbot:\n", W(.verb = REG_UNKNOWN, .verb_text = "", .error = "no command"),
	    "keyword and ':'");
	one("#regzbot introduce v6.1..v6.2\n",
	    W(.verb = REG_UNKNOWN, .verb_text = "introduce", .arg = "v6.1..v6.2", .error = "unknown"),
	    "a misspelt verb");
	{
		const struct want w[] = {
			{ .verb = REG_UNKNOWN, .verb_text = "fixme", .arg = "", .error = "unknown" },
			{ .verb = REG_TITLE, .arg = "Still read" },
		};

		expect("#regzbot fixme\n#regzbot title Still read\n", w, 2,
		       "an unknown verb does not hide the next");
	}
}

/* --- limits and hostile input ----------------------------------------------- */

static void test_limits(void)
{
	struct buf b = BUF_INIT;
	struct reg_directive *d = NULL;
	size_t n = 0;
	struct bb_error err = BB_ERROR_INIT;
	clock_t t0;

	for (int i = 0; i < REG_DIRECTIVES_MAX + 10; i++)
		buf_addf(&b, "#regzbot note: %d\n", i);
	if (ok(reg_directives_parse(b.data, &d, &n, &err) == BB_OK && n == REG_DIRECTIVES_MAX + 1,
	       "too many: %d kept and one more entry", REG_DIRECTIVES_MAX)) {
		ok(d[REG_DIRECTIVES_MAX - 1].verb == REG_NOTE && !d[REG_DIRECTIVES_MAX - 1].error,
		   "the last one kept is a note");
		ok(d[REG_DIRECTIVES_MAX].verb == REG_UNKNOWN && d[REG_DIRECTIVES_MAX].error &&
		   strstr(d[REG_DIRECTIVES_MAX].error, "not read") &&
		   d[REG_DIRECTIVES_MAX].line == REG_DIRECTIVES_MAX + 1, "then: the rest were not read");
	}
	reg_directives_free(d, n);

	/* a title that goes on for 1 MiB of continuation lines */
	buf_reset(&b);
	buf_addstr(&b, "#regzbot title: long\n");
	for (int i = 0; i < 64 * 1024; i++)
		buf_addstr(&b, "fifteen letters\n");
	t0 = clock();
	if (ok(reg_directives_parse(b.data, &d, &n, &err) == BB_OK && n == 1, "a huge paragraph: one")) {
		ok(d[0].verb == REG_TITLE && d[0].error && strstr(d[0].error, "longer") &&
		   strlen(d[0].arg) <= REG_ARG_MAX && strlen(d[0].arg) > REG_ARG_MAX - 20,
		   "cut at %d bytes (%zu), with an error", REG_ARG_MAX, strlen(d[0].arg));
		reg_directives_free(d, n);
	}
	/* printable ASCII fills the argument to the byte, blanks between
	 * words included */
	buf_reset(&b);
	buf_addstr(&b, "#regzbot note: ab  cd ");
	for (int i = 0; i < REG_ARG_MAX; i++)
		buf_addch(&b, 'x');
	if (ok(reg_directives_parse(b.data, &d, &n, &err) == BB_OK && n == 1, "a long ASCII note")) {
		ok(strlen(d[0].arg) == REG_ARG_MAX && !strncmp(d[0].arg, "ab cd xxx", 9) && d[0].error,
		   "cut at exactly %d bytes (%zu)", REG_ARG_MAX, strlen(d[0].arg));
		reg_directives_free(d, n);
	}
	/* a cut never splits a character */
	buf_reset(&b);
	buf_addstr(&b, "#regzbot note: ");
	for (int i = 0; i < REG_ARG_MAX; i++)
		buf_addstr(&b, "\xe2\x82\xac");  /* € */
	if (ok(reg_directives_parse(b.data, &d, &n, &err) == BB_OK && n == 1, "a long UTF-8 note")) {
		ok(g_utf8_validate(d[0].arg, -1, NULL) && strlen(d[0].arg) % 3 == 0 && d[0].error,
		   "cut at a character");
		reg_directives_free(d, n);
	}
	/* many directive lines and many short lines: linear */
	buf_reset(&b);
	for (int i = 0; i < 200000; i++)
		buf_addstr(&b, i % 2 ? "x\n" : "\n");
	for (int i = 0; i < 200000; i++)
		buf_addstr(&b, "> #regzbot poke\n");
	if (ok(reg_directives_parse(b.data, &d, &n, &err) == BB_OK && n == 0, "4 MB of noise: none"))
		reg_directives_free(d, n);
	ok((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0, "large inputs parse fast (%.2fs)",
	   (double)(clock() - t0) / CLOCKS_PER_SEC);
	{
		char verb[300];

		memset(verb, 'a', sizeof(verb) - 1);
		verb[sizeof(verb) - 1] = '\0';
		buf_reset(&b);
		buf_addf(&b, "#regzbot %s x\n", verb);
		if (ok(reg_directives_parse(b.data, &d, &n, &err) == BB_OK && n == 1, "a 299-byte verb")) {
			ok(d[0].verb == REG_UNKNOWN && strlen(d[0].verb_text) == REG_VERB_MAX &&
			   !strcmp(d[0].arg, "x"), "unknown, cut to %d bytes", REG_VERB_MAX);
			reg_directives_free(d, n);
		}
	}
	buf_release(&b);

	/* hostile bytes: controls, escapes, invalid UTF-8, bidi overrides */
	if (ok(reg_directives_parse("#regzbot title a\x01\x1b[31mb \xff\xfe c\xe2\x80\xae" "d\xc2\xa0" "e\n"
				    "#regzbot zz\x07\xff: q\n", &d, &n, &err) == BB_OK && n == 2,
	       "hostile bytes: parses")) {
		is_str(d[0].arg, "a[31mb \xef\xbf\xbd\xef\xbf\xbd cd e", "title cleaned");
		ok(d[1].verb == REG_UNKNOWN && g_utf8_validate(d[1].verb_text, -1, NULL) &&
		   !strchr(d[1].verb_text, '\x07'), "unknown verb cleaned (\"%s\")", d[1].verb_text);
		reg_directives_free(d, n);
	}
	{
		static const char body[] = "#regzbot poke\0#regzbot note: hidden\n";

		is_int(count(body), 1, "text after a NUL is not read");
	}
}

/* --- links ---------------------------------------------------------------------- */

static void msgid(const char *url, const char *want)
{
	char *got = reg_link_message_id(url);

	if (want)
		is_str(got, want, "message id of %s", url);
	else if (!ok(got == NULL, "no message id in %s", url))
		diag("got %s", got);
	free(got);
}

static void test_links(void)
{
	static const char id[] = "20240318191153.6978-1-corngood@gmail.com";
	static const char cites[] = "See HTTPS://BugZilla.Kernel.ORG/show_bug.cgi?id=218000.\n";
	char *kernel = reg_link_host("https://bugzilla.kernel.org");
	char *other = reg_link_host("https://bugzilla.example.org:8443/bz/");
	char *none = reg_link_host("bugzilla");

	/* a text may cite a bug only where it holds the Bugzilla's host, in
	 * any case (what bug_notes_mentions() reads no further without), the
	 * host as reg_link_bugzilla_id() compares a URL's with it */
	ok(kernel && !strcmp(kernel, "bugzilla.kernel.org") && other &&
	   !strcmp(other, "bugzilla.example.org") && !none && !reg_link_host(NULL),
	   "links: a Bugzilla's host is its URL's, without its port or path; none without one");
	ok(reg_text_may_cite_bugzilla(cites, strlen(cites), kernel) &&
	   reg_link_bugzilla_id("HTTPS://BugZilla.Kernel.ORG/show_bug.cgi?id=218000",
				"https://bugzilla.kernel.org") == 218000,
	   "links: a text holding the host in another case may cite a bug, and does");
	ok(!reg_text_may_cite_bugzilla(cites, strlen(cites), other),
	   "links: a text without the host cites none of its bugs");
	ok(reg_text_may_cite_bugzilla(cites, strlen(cites), NULL),
	   "links: without a Bugzilla, any text may cite a bug");
	free(kernel);
	free(other);

	msgid("https://lore.kernel.org/r/20240318191153.6978-1-corngood@gmail.com", id);
	msgid("https://lore.kernel.org/r/20240318191153.6978-1-corngood@gmail.com/", id);
	msgid("https://lore.kernel.org/linux-pm/20240318191153.6978-1-corngood@gmail.com/", id);
	msgid("https://lore.kernel.org/all/20240318191153.6978-1-corngood@gmail.com/", id);
	msgid("https://lore.kernel.org/all/20240318191153.6978-1-corngood@gmail.com/T/", id);
	msgid("https://lore.kernel.org/all/20240318191153.6978-1-corngood@gmail.com/T/#u", id);
	msgid("https://lore.kernel.org/all/20240318191153.6978-1-corngood@gmail.com/t/", id);
	msgid("https://lore.kernel.org/all/20240318191153.6978-1-corngood@gmail.com/raw", id);
	msgid("https://lore.kernel.org/all/20240318191153.6978-1-corngood@gmail.com/t.mbox.gz", id);
	msgid("https://lore.kernel.org/lkml/20240318191153.6978-1-corngood@gmail.com/#r", id);
	msgid("https://lore.kernel.org/lkml/20240318191153.6978-1-corngood@gmail.com/?q=x", id);
	msgid("http://lore.kernel.org/r/20240318191153.6978-1-corngood@gmail.com", id);
	msgid("HTTPS://Lore.Kernel.ORG/r/20240318191153.6978-1-corngood@gmail.com", id);
	msgid("https://lore.kernel.org//r//20240318191153.6978-1-corngood@gmail.com", id);
	msgid("https://lore.kernel.org/r/20240318191153.6978-1-corngood%40gmail.com", id);
	msgid("https://lore.kernel.org/r/%3C20240318191153.6978-1-corngood%40gmail.com%3E", id);
	msgid("<https://lore.kernel.org/r/20240318191153.6978-1-corngood@gmail.com>", id);
	msgid("https://lore.kernel.org/20240318191153.6978-1-corngood@gmail.com", id);
	msgid("https://lkml.kernel.org/r/20240318191153.6978-1-corngood@gmail.com", id);
	msgid("https://patch.msgid.link/20240318191153.6978-1-corngood@gmail.com", id);
	msgid("https://msgid.link/r/20240318191153.6978-1-corngood@gmail.com", id);
	msgid("https://lore.kernel.org/all/CAHk-%3Dwg%2Babc%2Fdef@mail.gmail.com/", "CAHk-=wg+abc/def@mail.gmail.com");
	msgid("https://lore.kernel.org/regressions/b5646db3-acff-45aa-baef-df3f660486fb@gmail.com/",
	      "b5646db3-acff-45aa-baef-df3f660486fb@gmail.com");
	/* not a link to one mail */
	msgid("https://lore.kernel.org/linux-pm/", NULL);
	msgid("https://lore.kernel.org/all/", NULL);
	msgid("https://lore.kernel.org/lkml/?q=s:regression", NULL);
	msgid("https://lore.kernel.org/linux-pm/_/text/config/", NULL);
	msgid("https://example.org/r/20240318191153.6978-1-corngood@gmail.com", NULL);
	msgid("ftp://lore.kernel.org/r/a@b", NULL);
	msgid("lore.kernel.org/r/a@b", NULL);
	msgid("https://user@lore.kernel.org/r/a@b", NULL);
	msgid("https://lore.kernel.org/r/no-at-sign", NULL);
	msgid("https://lore.kernel.org/r/@b", NULL);
	msgid("https://lore.kernel.org/r/a@", NULL);
	msgid("https://lore.kernel.org/r/a%ZZ@b", NULL);
	msgid("https://lore.kernel.org/r/a%00@b", NULL);
	msgid("https://lore.kernel.org/r/a%20b@c", NULL);
	msgid("https://lore.kernel.org/r/a b@c", NULL);
	msgid("https://lore.kernel.org/r/a%3Eb@c", NULL);
	msgid("https://lore.kernel.org/r/\xc3\xa4@b", NULL);
	msgid("", NULL);
	ok(reg_link_message_id(NULL) == NULL, "no message id in NULL");
	{
		struct buf b = BUF_INIT;
		char *got;

		buf_addstr(&b, "https://lore.kernel.org/r/");
		for (int i = 0; i < 1000; i++)
			buf_addch(&b, 'x');
		buf_addstr(&b, "@b");
		ok(reg_link_message_id(b.data) == NULL, "a Message-ID over %d bytes", REG_LINK_MESSAGE_ID_MAX);
		buf_reset(&b);
		buf_addstr(&b, "https://lore.kernel.org/r/a@b/");
		for (int i = 0; i < REG_LINK_URL_MAX; i++)
			buf_addch(&b, 'x');
		got = reg_link_message_id(b.data);
		ok(got == NULL, "a URL over %d bytes", REG_LINK_URL_MAX);
		free(got);
		buf_release(&b);
	}

	is_int(reg_link_bugzilla_id(BZ "217726", NULL), 217726, "bugzilla: any host");
	is_int(reg_link_bugzilla_id(BZ "217726#c9", "https://bugzilla.kernel.org"), 217726, "with #c9");
	is_int(reg_link_bugzilla_id(BZ "217726", "https://bugzilla.kernel.org/"), 217726, "base with '/'");
	is_int(reg_link_bugzilla_id("http://Bugzilla.Kernel.org/show_bug.cgi?id=5",
				    "https://bugzilla.kernel.org"), 5, "http, host case");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/show_bug.cgi?format=multiple&id=7", NULL),
	       7, "id not first");
	is_int(reg_link_bugzilla_id("<" BZ "8>", NULL), 8, "in <>");
	is_int(reg_link_bugzilla_id("https://bugs.example.org/bz/show_bug.cgi?id=9",
				    "https://bugs.example.org/bz"), 9, "base with a path");
	is_int(reg_link_bugzilla_id("https://bugs.example.org/show_bug.cgi?id=9",
				    "https://bugs.example.org/bz"), 0, "other path");
	is_int(reg_link_bugzilla_id("https://bugzilla.redhat.com/show_bug.cgi?id=2229165",
				    "https://bugzilla.kernel.org"), 0, "other Bugzilla");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org:8443/show_bug.cgi?id=1",
				    "https://bugzilla.kernel.org"), 0, "other port");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/show_bug.cgi?id=some-alias", NULL), 0, "alias");

	/* the same report on another tracker, as a patch's trailer writes it */
	ok(reg_link_same_report(BZ "216000", "http://Bugzilla.Kernel.org/show_bug.cgi?id=216000#c3"),
	   "same report: http, host case, #fragment");
	ok(reg_link_same_report(BZ "216000", "https://bugzilla.kernel.org/show_bug.cgi?format=multiple&id=216000"),
	   "same report: another parameter beside id");
	ok(!reg_link_same_report(BZ "216000", BZ "2160001"), "not the same: another bug");
	ok(!reg_link_same_report(BZ "216000", "https://bugzilla.redhat.com/show_bug.cgi?id=216000"),
	   "not the same: another Bugzilla");
	ok(!reg_link_same_report(BZ "216000", "https://bugzilla.kernel.org:8443/show_bug.cgi?id=216000"),
	   "not the same: another port");
	ok(reg_link_same_report("https://github.com/o/r/issues/12", "https://github.com/o/r/issues/12/"),
	   "same report: a '/' at the path's end");
	ok(!reg_link_same_report("https://github.com/o/r/issues/12", "https://github.com/o/r/issues/123"),
	   "not the same: another issue");
	ok(!reg_link_same_report("https://example.org/p?a=1", "https://example.org/p?a=2"),
	   "not the same: another query");
	ok(!reg_link_same_report("https://example.org/p?", "https://example.org/p"),
	   "not the same: an empty query against none");
	ok(!reg_link_same_report("ftp://example.org/p", "ftp://example.org/p"), "no http(s) URL");
	ok(!reg_link_same_report(NULL, BZ "1"), "NULL");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/show_bug.cgi?id=", NULL), 0, "empty id");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/show_bug.cgi?bid=3", NULL), 0, "no id=");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/show_bug.cgi", NULL), 0, "no query");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/show_bug.cgi?id=1234567890123456", NULL), 0,
	       "16 digits");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/buglist.cgi?id=3", NULL), 0, "buglist");
	is_int(reg_link_bugzilla_id("https://lore.kernel.org/r/a@b", NULL), 0, "a mail link");
	is_int(reg_link_bugzilla_id(NULL, NULL), 0, "NULL");
	is_int(reg_link_bugzilla_id(BZ "3", "not a url"), 0, "bad base");
	{
		char *l = reg_link_mail("https://lore.kernel.org/linux-wireless", "a/b c@x.org");

		is_str(l, "https://lore.kernel.org/r/a%2Fb%20c@x.org/",
		       "mail link: the inbox's host, /r/, the Message-ID encoded");
		free(l);
		l = reg_link_mail("http://127.0.0.1:8080/test/", "m@x");
		is_str(l, "http://127.0.0.1:8080/r/m@x/", "mail link: with a port");
		free(l);
		l = reg_link_mail(NULL, "m@x");
		is_str(l, "https://lore.kernel.org/r/m@x/", "mail link: lore by default");
		free(l);
		ok(reg_link_mail("not a url", "m@x") == NULL, "mail link: no URL, no link");
	}
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/217726", "https://bugzilla.kernel.org"),
	       217726, "short link");
	is_int(reg_link_bugzilla_id("<http://Bugzilla.kernel.org/217726#c3>", "https://bugzilla.kernel.org/"),
	       217726, "short link with #c3, in <>");
	is_int(reg_link_bugzilla_id("https://bugs.example.org/bz/42", "https://bugs.example.org/bz"), 42,
	       "short link under a base path");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/217726", NULL), 0,
	       "short link: only with a known base");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/217726?x=1", "https://bugzilla.kernel.org"),
	       0, "short link with a query: no");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/2177x", "https://bugzilla.kernel.org"), 0,
	       "short link: digits only");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/0", "https://bugzilla.kernel.org"), 0,
	       "short link: bug 0 is none");
	is_int(reg_link_bugzilla_id("https://bugzilla.kernel.org/1/2", "https://bugzilla.kernel.org"), 0,
	       "short link: one segment");
	is_int(reg_link_bugzilla_id("https://github.com/217726", "https://bugzilla.kernel.org"), 0,
	       "short link: another host");
}

/* --- what the tracker does with them ------------------------------------------- */

static struct store *tdb;
static struct tracker *trk;

#define LORE "https://lore.kernel.org/r/"
#define T0 1700000000LL   /* a fixed clock: 2023-11-14 22:13:20 UTC */

/* Feeds one list mail to the tracker: id and its parent (with References
 * "refs", oldest first, blank-separated ids without <>), sent at T0 +
 * minutes.  1 when it was read. */
static int feed_mail(const char *id, const char *parent, const char *refs, int minutes,
		     const char *subject, const char *body)
{
	struct buf raw = BUF_INIT, r = BUF_INIT;
	struct inmail m;
	struct bb_error err = BB_ERROR_INIT;
	time_t when = (time_t)(T0 + 60LL * minutes);
	char date[64];
	int read;

	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", gmtime(&when));
	if (refs) {
		char *copy = g_strdup(refs), *save = NULL;

		for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
			buf_addf(&r, " <%s>", w);
		g_free(copy);
	}
	buf_addf(&raw, "Message-ID: <%s>\nFrom: Some One <some@example.org>\nDate: %s\n"
		 "Subject: %s\n", id, date, subject);
	if (parent)
		buf_addf(&raw, "In-Reply-To: <%s>\n", parent);
	if (refs)
		buf_addf(&raw, "References:%s\n", r.data);
	buf_addf(&raw, "\n%s", body);
	memset(&m, 0, sizeof(m));
	read = inmail_parse_headers(raw.data, raw.len, NULL, &m, &err) == BB_OK &&
	       tracker_mail(trk, &m, raw.data + m.body_offset, NULL, &err) == BB_OK;
	if (!read)
		diag("mail %s not read: %s\n%s", id, err.message, raw.data);
	inmail_release(&m);
	buf_release(&raw);
	buf_release(&r);
	return read;
}

static void feed(const char *id, const char *parent, const char *refs, int minutes,
		 const char *subject, const char *body)
{
	ok(feed_mail(id, parent, refs, minutes, subject, body), "tracker: mail %s read", id);
}

/* tracker_wants_body() of a patch mail id (subject and raw body as given),
 * with the flags of the raw scan. */
static int wants(const char *id, const char *subject, const char *body)
{
	struct buf raw = BUF_INIT;
	struct inmail m;
	struct bb_error err = BB_ERROR_INIT;
	int want = -1;

	buf_addf(&raw, "Message-ID: <%s>\nFrom: Some One <some@example.org>\n"
		 "Date: Tue, 14 Nov 2023 22:13:20 +0000\nSubject: %s\n\n%s", id, subject, body);
	memset(&m, 0, sizeof(m));
	if (inmail_parse_headers(raw.data, raw.len, NULL, &m, &err) == BB_OK)
		want = tracker_wants_body(trk, &m, inmail_raw_scan(raw.data, raw.len), raw.data,
					  raw.len);
	inmail_release(&m);
	buf_release(&raw);
	return want;
}

/* The first row of a query, its columns joined by '|' ("" if none). */
static const char *q(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *q(const char *fmt, ...)
{
	static char out[2048];
	sqlite3_stmt *st = NULL;
	char *sql;
	va_list ap;

	va_start(ap, fmt);
	sql = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	out[0] = '\0';
	if (store_prepare(tdb, &st, sql, NULL)) {
		snprintf(out, sizeof(out), "(bad query %s)", sql);
	} else if (sqlite3_step(st) == SQLITE_ROW) {
		size_t len = 0;

		for (int i = 0; i < sqlite3_column_count(st) && len < sizeof(out) - 1; i++) {
			const unsigned char *v = sqlite3_column_text(st, i);

			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", i ? "|" : "",
						v ? (const char *)v : "");
		}
	}
	sqlite3_finalize(st);
	g_free(sql);
	return out;
}

#define REG(msgid) "(SELECT id FROM reg_regression WHERE report_msgid = '" msgid "')"
/* (inside a transaction, the activity kept in memory is written first) */
#define ACTIVITY(msgid) (tracker_flush(trk, NULL), \
			 q("SELECT activity_count, last_activity - %lld, last_activity_msgid" \
			   " FROM reg_regression WHERE report_msgid = '%s'", T0, msgid))

/* list_thread's keys are a public function of the text (store_text_key()):
 * a sender may choose Message-IDs that share another's key, as the rows
 * below are made to (their keys copied from other texts).  Each answer
 * still belongs to its own text: a shared key is a second row to compare. */
static void test_thread_keys_shared(const char *dir)
{
	struct bb_error err = BB_ERROR_INIT;
	struct store *st = NULL;
	char path[96], *root = NULL;
	int added = 0;

	snprintf(path, sizeof(path), "%s/keys.db", dir);
	if (!ok(store_open(&st, path, STORE_READ_WRITE, &err) == BB_OK, "shared keys: a store: %s",
		err.message))
		return;
	/* forged rows, first: other Message-IDs and roots under the keys of
	 * the mails that come after them */
	ok(store_exec(st, "INSERT INTO list_thread (message_id, mid_key, root, root_key, from_who,"
		      " date, seen) VALUES ('forged@x', text_key('victim@x'), 'forged-root@x',"
		      " text_key('victim-root@x'), 'F', 2, 2), ('forged2@x', text_key('later@x'),"
		      " 'victim-root@x', text_key('forged-root@x'), 'F', 3, 3)", &err) == BB_OK,
	   "shared keys: rows forged to share other mails' keys");
	ok(thread_row_insert(st, "victim@x", "victim-root@x", "V <v@x>", 1, 1, &added, &err) ==
		   BB_OK && added, "shared keys: a mail whose key a forged row holds gets its row");
	ok(thread_row_root(st, "victim@x", &root, &err) == BB_OK && root &&
	   !strcmp(root, "victim-root@x"), "shared keys: a Message-ID's root is its own row's");
	free(root);
	ok(thread_row_insert(st, "later@x", "later@x", "L", 4, 4, &added, &err) == BB_OK && added,
	   "shared keys: so does another");
	ok(thread_row_insert(st, "victim@x", "other@x", "V", 5, 5, &added, &err) == BB_OK && !added,
	   "shared keys: a mail that has its row gets no second one");
	store_close(st);
}

static void test_tracker(void)
{
	struct tracker_options o;
	struct bb_error err = BB_ERROR_INIT;
	char dir[] = "/tmp/test-directive.XXXXXX", path[64];

	if (!ok(mkdtemp(dir) != NULL, "tracker: a temporary folder"))
		return;
	snprintf(path, sizeof(path), "%s/bb.db", dir);
	memset(&o, 0, sizeof(o));
	o.bugzilla_url = "https://bugzilla.kernel.org";
	if (!ok(store_open(&tdb, path, STORE_READ_WRITE, &err) == BB_OK &&
		tracker_new(&trk, tdb, &o, &err) == BB_OK, "tracker: store and tracker: %s",
		err.message))
		return;
	test_thread_keys_shared(dir);

	/* ignore-activity and poke: only the mail that carries them is no
	 * activity; the replies after it count (regzbot: "Regzbot will not
	 * consider a mail with this command as an activity") */
	feed("r1@x", NULL, NULL, 0, "[REGRESSION] wifi dies", "It broke.\n\n#regzbot introduced: v6.1..v6.2\n");
	is_str(ACTIVITY("r1@x"), "1|0|r1@x", "r1: a new regression: its report, which carries the"
	       " directive, is its first activity (as regzbot's export counts it)");
	feed("r1a@x", "r1@x", "r1@x", 10, "Re: [REGRESSION] wifi dies",
	     "#regzbot title: iwlwifi dies after resume\n#regzbot ignore-activity\n");
	is_str(ACTIVITY("r1@x"), "1|0|r1@x", "ignore-activity: that mail is no activity");
	is_str(q("SELECT title, ignore_activity FROM reg_regression WHERE id = " REG("r1@x")),
	       "iwlwifi dies after resume|0", "its directives act; nothing sticky is set");
	feed("r1b@x", "r1a@x", "r1@x r1a@x", 20, "Re: [REGRESSION] wifi dies", "Same here.\n");
	is_str(ACTIVITY("r1@x"), "2|1200|r1b@x", "a later reply counts again");
	feed("r1c@x", "r1b@x", "r1@x r1a@x r1b@x", 30, "Re: [REGRESSION] wifi dies",
	     "Any news?\n\n#regzbot poke\n");
	is_str(ACTIVITY("r1@x"), "2|1200|r1b@x", "poke: that mail is no activity");
	is_str(q("SELECT poked - %lld FROM reg_regression WHERE id = " REG("r1@x"), T0), "1800",
	       "poke: the poke is recorded");
	feed("r1d@x", "r1c@x", "r1@x r1c@x", 40, "Re: [REGRESSION] wifi dies", "Still broken.\n");
	is_str(ACTIVITY("r1@x"), "3|2400|r1d@x", "the reply to the poke counts");
	feed("r1e@x", "r1d@x", "r1@x r1d@x", 50, "Re: [REGRESSION] wifi dies #forregzbot",
	     "#regzbot note: bisecting\n");
	is_str(ACTIVITY("r1@x"), "3|2400|r1d@x", "#forregzbot in the subject: no activity");
	is_str(q("SELECT count(*) FROM reg_event WHERE kind = 'note' AND message_id = 'r1e@x'"), "1",
	       "#forregzbot: its directives are read");
	feed("r1f@x", "r1e@x", "r1@x r1e@x", 60, "Re: [REGRESSION] wifi dies", "Thanks.\n");
	is_str(ACTIVITY("r1@x"), "4|3600|r1f@x", "the reply to a #forregzbot mail counts");

	/* the whole directive is shown when not acted on; an indented
	 * #regzbot line is none and is not glued onto the one above */
	feed("r1g@x", "r1@x", "r1@x", 70, "Re: [REGRESSION] wifi dies",
	     "#regzbot invalid-verb: known bios issue\n#regzbot title: wifi: dies after resume\n"
	     "    #regzbot frobnicate: an example\n");
	is_str(q("SELECT line, reason FROM reg_unhandled WHERE message_id = 'r1g@x'"),
	       "#regzbot invalid-verb: known bios issue|unknown command",
	       "not acted on: the whole line, verb included");
	is_str(q("SELECT count(*) FROM reg_unhandled WHERE message_id = 'r1g@x'"), "1",
	       "the indented line is no directive");
	is_str(q("SELECT title FROM reg_regression WHERE id = " REG("r1@x")),
	       "wifi: dies after resume", "nor part of the title above it");
	feed("u0@x", NULL, NULL, 75, "Untracked", "#regzbot title: nothing to retitle\n");
	is_str(q("SELECT line FROM reg_unhandled WHERE message_id = 'u0@x'"),
	       "#regzbot title: nothing to retitle", "outside a tracked thread: the whole line");

	/* introduced with a trailing URL: the URL is the report, the range
	 * stays the range; "<sha> /": the thread's root is the report */
	feed("i2@x", NULL, NULL, 80, "Fwd: Bug 216000",
	     "#regzbot introduced: v5.18..v5.19 https://bugzilla.kernel.org/show_bug.cgi?id=216000\n");
	is_str(q("SELECT introduced, bug_id, report_url, report_msgid FROM reg_regression WHERE"
		 " bug_id = 216000"), "v5.18..v5.19|216000|https://bugzilla.kernel.org/show_bug.cgi?id=216000|",
	       "introduced + URL: the bug is the report, the range kept without it");
	is_str(q("SELECT r.bug_id FROM reg_mail m JOIN reg_regression r ON r.id = m.regression"
		 " WHERE m.message_id = 'i2@x'"), "216000", "the mail with the directive is linked to it");
	feed("i3@x", NULL, NULL, 90, "usb: hangs", "It hangs.\n");
	feed("i3a@x", "i3@x", "i3@x", 100, "Re: usb: hangs", "#regzbot introduced: 1234ABCD5678 /\n");
	is_str(q("SELECT introduced, culprit FROM reg_regression WHERE report_msgid = 'i3@x'"),
	       "1234ABCD5678|1234abcd5678",
	       "introduced <sha> /: the root is the report, the culprit as written without '/'");

	/* a report in another tracker: the URL is the report, and dup-of finds it */
	feed("gh@x", NULL, NULL, 105, "Fwd: PCI ASPM hangs",
	     "#regzbot introduced: f3ac2ff14834 (\"PCI/ASPM: Enable all states\")"
	     " https://github.com/chzigotzky/kernels/issues/17\n");
	is_str(q("SELECT introduced, report_msgid, bug_id FROM reg_regression WHERE report_url ="
		 " 'https://github.com/chzigotzky/kernels/issues/17'"),
	       "f3ac2ff14834 (\"PCI/ASPM: Enable all states\")||0",
	       "introduced + a URL elsewhere: that URL is the report");
	feed("gh2@x", NULL, NULL, 106, "pci hangs", "#regzbot introduced: f3ac2ff14834\n");
	feed("gh2a@x", "gh2@x", "gh2@x", 107, "Re: pci hangs",
	     "#regzbot dup-of: https://github.com/chzigotzky/kernels/issues/17\n");
	is_str(q("SELECT state, dup_of = (SELECT id FROM reg_regression WHERE report_url ="
		 " 'https://github.com/chzigotzky/kernels/issues/17') FROM reg_regression WHERE"
		 " report_msgid = 'gh2@x'"), "duplicate|1", "dup-of a report elsewhere that is tracked");

	/* ^^introduced: the grandparent is the report */
	feed("g4@x", NULL, NULL, 110, "sound: crackles", "It crackles.\n");
	feed("g4a@x", "g4@x", "g4@x", 111, "Re: sound: crackles", "Me too.\n");
	feed("g4b@x", "g4a@x", "g4@x g4a@x", 112, "Re: sound: crackles",
	     "#regzbot ^^introduced: v6.5..v6.6\n");
	is_str(q("SELECT introduced, title FROM reg_regression WHERE report_msgid = 'g4@x'"),
	       "v6.5..v6.6|sound: crackles", "^^introduced: the grandparent's mail is the report");
	feed("g5b@x", "g5a@x", NULL, 113, "Re: no references", "#regzbot ^^introduced: v6.5..v6.6\n");
	is_str(q("SELECT reason FROM reg_unhandled WHERE message_id = 'g5b@x'"),
	       "no report to attach the regression to", "^^introduced without References: not known");

	/* dup/duplicate in a tracked thread: another report of this one */
	feed("r1h@x", "r1@x", "r1@x", 120, "Re: [REGRESSION] wifi dies",
	     "#regzbot duplicate: https://bugzilla.kernel.org/show_bug.cgi?id=217000\n"
	     "#regzbot dup: https://lore.kernel.org/all/other@x/\n"
	     "#regzbot dup: https://lore.kernel.org/r/i3@x/\n");
	/* (r1g and r1h are replies in the thread: activity, 5 mails so far) */
	is_str(q("SELECT count(*) FROM reg_unhandled WHERE message_id = 'r1h@x'"), "0",
	       "dup naming untracked reports: accepted");
	is_str(q("SELECT state, dup_of = 0 FROM reg_regression WHERE id = " REG("r1@x")), "open|1",
	       "dup: this regression stays open, no duplicate itself");
	is_str(q("SELECT group_concat(url, ' ') FROM (SELECT url FROM reg_link WHERE kind = 'duplicate'"
		 " AND regression = " REG("r1@x") " ORDER BY url)"),
	       "https://bugzilla.kernel.org/show_bug.cgi?id=217000 https://lore.kernel.org/all/other@x/"
	       " https://lore.kernel.org/r/i3@x/", "dup: the three are listed as duplicate reports");
	is_str(q("SELECT state, dup_of = " REG("r1@x") " FROM reg_regression WHERE report_msgid = 'i3@x'"),
	       "duplicate|1", "dup naming a tracked regression: that one is the duplicate");
	feed("other-a@x", "other@x", "other@x", 130, "Re: other report", "Here too.\n");
	is_str(ACTIVITY("r1@x"), "7|7800|other-a@x", "dup: a reply in the duplicate's thread counts");

	/* dup-of: this regression is the duplicate */
	feed("d6@x", NULL, NULL, 140, "wifi gone", "#regzbot introduced: v6.1..v6.2\n");
	feed("d6a@x", "d6@x", "d6@x", 141, "Re: wifi gone",
	     "#regzbot dup-of: https://lore.kernel.org/r/r1@x/\n");
	is_str(q("SELECT state, dup_of = " REG("r1@x") " FROM reg_regression WHERE report_msgid = 'd6@x'"),
	       "duplicate|1", "dup-of: this one is the duplicate of the named regression");
	is_str(q("SELECT count(*) FROM reg_link WHERE regression = " REG("r1@x") " AND kind ="
		 " 'duplicate' AND url LIKE '%%d6@x%%'"), "1",
	       "dup-of: listed among the other's duplicate reports");
	feed("d6b@x", "d6@x", "d6@x", 142, "Re: wifi gone",
	     "#regzbot dup-of: https://lore.kernel.org/r/nowhere@x/\n");
	is_str(q("SELECT line, reason FROM reg_unhandled WHERE message_id = 'd6b@x'"),
	       "#regzbot dup-of: https://lore.kernel.org/r/nowhere@x/|duplicate of a report that is"
	       " not tracked", "dup-of an untracked report: not acted on, the whole line shown");
	/* dup in a thread no regression has: this thread is the duplicate */
	feed("u7@x", NULL, NULL, 150, "wifi broken", "Wifi broke.\n");
	feed("u7a@x", "u7@x", "u7@x", 151, "Re: wifi broken",
	     "#regzbot dup: https://lore.kernel.org/r/r1@x/\n");
	is_str(q("SELECT count(*) FROM reg_link WHERE regression = " REG("r1@x") " AND kind ="
		 " 'duplicate' AND url LIKE '%%u7@x%%'"), "1",
	       "dup in an untracked thread: the thread is the other's duplicate report");
	feed("u7b@x", "u7@x", "u7@x", 160, "Re: wifi broken", "Any fix?\n");
	is_str(ACTIVITY("r1@x"), "8|9600|u7b@x", "and its replies count for that regression");

	/* ^backmonitor: the parent's thread is monitored (its mails read so far
	 * count, as regzbot reads a monitored thread whole), this mail is no
	 * activity */
	feed("p8@x", NULL, NULL, 170, "[PATCH] wifi: fix resume", "A fix.\n");
	feed("p8a@x", "p8@x", "p8@x", 171, "Re: [PATCH] wifi: fix resume",
	     "Please add a Link: next time.\n\n#regzbot ^backmonitor: https://lore.kernel.org/r/r1@x/\n");
	is_str(q("SELECT kind FROM reg_mail WHERE message_id = 'p8@x' AND regression = " REG("r1@x")),
	       "monitor", "^backmonitor: the parent mail is monitored");
	is_str(ACTIVITY("r1@x"), "9|10200|p8@x", "^backmonitor: the parent counts, that mail is no"
	       " activity");
	feed("p8b@x", "p8@x", "p8@x", 180, "Re: [PATCH] wifi: fix resume", "Applied.\n");
	is_str(ACTIVITY("r1@x"), "10|10800|p8b@x", "a reply in the monitored thread counts");
	feed("p8c@x", "p8@x", "p8@x", 181, "Re: [PATCH] wifi: fix resume",
	     "#regzbot ^backmonitor: https://lore.kernel.org/r/nowhere@x/\n");
	is_str(q("SELECT reason FROM reg_unhandled WHERE message_id = 'p8c@x'"),
	       "names no tracked regression", "^backmonitor of no regression: not acted on");

	/* a patch's body is decoded for its Link:/Closes: trailers only when
	 * one may do something (read from the raw text): one naming a
	 * regression's mail, the patch itself (it may join a regression's
	 * thread first), a bug; or one the decode may change */
	ok(wants("w1@x", "[PATCH] wifi: a cleanup", "Tidy.\n\nLink: " LORE "elsewhere@x/\n---\n") == 0,
	   "wants body: not for a patch linking a mail of no regression");
	ok(wants("w2@x", "[PATCH] wifi: fix", "Fix.\n\nLink: " LORE "r1@x/\n---\n") == 1,
	   "wants body: a patch linking a regression's report");
	ok(wants("w3@x", "[PATCH] wifi: fix", "Fix.\n\nLink: " LORE "w3@x/\n---\n") == 1,
	   "wants body: a patch linking itself");
	ok(wants("w4@x", "[PATCH] wifi: fix", "Fix.\n\nCloses: https://bugzilla.kernel.org/"
		 "show_bug.cgi?id=216000\n---\n") == 1, "wants body: a patch closing a bug");
	ok(wants("w5@x", "[PATCH] wifi: fix", "Fix.\n\nLink: " LORE "r1=\n@x/\n---\n") == 1,
	   "wants body: a trailer quoted-printable may have cut");
	ok(wants("w6@x", "[PATCH] wifi: fix", "Fix.\n\nLink: " LORE "elsewhere@x/\n"
		 "=4Cink: " LORE "r1@x/\n---\n") == 1,
	   "wants body: a trailer written in quoted-printable");
	ok(wants("w7@x", "[PATCH] wifi: fix", "Fix.\n\nLink: " LORE "elsewhere@x/=0ALink: " LORE
		 "r1@x/\n---\n") == 1, "wants body: a line end written in quoted-printable");

	/* monitor: the thread's mails read so far count (regzbot reads a
	 * monitored thread whole), once however often it is named */
	feed("m9@x", NULL, NULL, 190, "wifi: resume hangs on another laptop", "Also here.\n");
	feed("m9a@x", "m9@x", "m9@x", 191, "Re: wifi: resume hangs on another laptop", "Same.\n");
	feed("r1m@x", "r1@x", "r1@x", 192, "Re: [REGRESSION] wifi dies",
	     "#regzbot monitor: https://lore.kernel.org/r/m9@x/\n");
	is_str(ACTIVITY("r1@x"), "13|11520|r1m@x", "monitor: the thread's two mails and this one count");
	feed("r1n@x", "r1@x", "r1@x", 193, "Re: [REGRESSION] wifi dies",
	     "#regzbot monitor: https://lore.kernel.org/r/m9@x/ the other laptop\n");
	is_str(ACTIVITY("r1@x"), "14|11580|r1n@x", "monitor again: that thread is not counted twice");
	feed("m9b@x", "m9a@x", "m9@x m9a@x", 194, "Re: wifi: resume hangs on another laptop", "Fixed?\n");
	is_str(ACTIVITY("r1@x"), "15|11640|m9b@x", "a later reply there counts");

	/* a regression added from a thread: the thread's earlier mails the
	 * store holds (a bug's list thread, in_mail) count as activity */
	ok(store_exec(tdb, "INSERT INTO in_mail (message_id, source, bug_id, parent, from_addr,"
			   " subject, date, state, updated) VALUES"
			   " ('b9@x', 'a', 42, NULL, 'rep@x', 'cam', 1700012000, 'posted', 1),"
			   " ('b9a@x', 'a', 42, 'b9@x', 'dev@x', 'Re: cam', 1700012600, 'posted', 1),"
			   " ('b9b@x', 'a', 42, 'b9a@x', 'rep@x', 'Re: cam', 1700013200, 'no-comment', 1),"
			   " ('b9c@x', 'a', 42, 'b9a@x', 'bridge@x', 'Re: cam', 1700013300, 'ignored', 1),"
			   " ('x9@x', 'a', 43, NULL, 'other@x', 'other', 1700013400, 'posted', 1);",
		      &err) == BB_OK, "in_mail: a bug's list thread: %s", err.message);
	feed("b9d@x", "b9@x", "b9@x", 240, "Re: cam", "#regzbot ^introduced: v6.7..v6.8\n"
	     "#regzbot ignore-activity\n");
	is_str(q("SELECT activity_count, last_activity, last_activity_msgid, last_activity_by FROM"
		 " reg_regression WHERE report_msgid = 'b9@x'"), "3|1700013200|b9b@x|rep@x",
	       "^introduced: the report and the thread's two earlier replies count (not the"
	       " bridge's own mail, not another bug's)");
	is_str(q("SELECT created, reporter FROM reg_regression WHERE report_msgid = 'b9@x'"),
	       "1700012000|rep@x", "^introduced: reported when and by whom the parent mail was");
	is_str(q("SELECT count(*) FROM reg_mail WHERE regression = " REG("b9@x") " AND message_id"
		 " IN ('b9a@x', 'b9b@x', 'b9d@x')"), "3", "and belong to the regression's thread");

	/* in a long run of mail inside one transaction (as a round reads an
	 * archive), lookups of Message-IDs the tracker does not know are
	 * answered from sets in memory (store_keys_may_hold()); what it
	 * knows, from those sets or written in the run, is still found */
	ok(store_begin(tdb, &err) == BB_OK, "a run: one transaction");
	feed("k1@x", NULL, NULL, 300, "[REGRESSION] disk stalls",
	     "It stalls.\n\n#regzbot introduced: v6.8..v6.9\n");
	{
		int unread = 0;

		for (int i = 0; i < 2 * STORE_KEYS_FILL_AFTER; i++) {
			char id[32];

			snprintf(id, sizeof(id), "noise%d@x", i);
			unread += !feed_mail(id, i ? "noise0@x" : NULL, i ? "noise0@x" : NULL, 301,
					     "chatter", "Hello.\n");
		}
		is_int(unread, 0, "a run: %d mails of chatter read", 2 * STORE_KEYS_FILL_AFTER);
	}
	feed("k1a@x", "k1@x", "k1@x", 310, "Re: [REGRESSION] disk stalls", "Same here.\n");
	is_str(ACTIVITY("k1@x"), "2|18600|k1a@x", "a run: a reply to a report made in it counts");
	feed("k1a@x", "k1@x", "k1@x", 310, "Re: [REGRESSION] disk stalls", "Same here.\n");
	is_str(ACTIVITY("k1@x"), "2|18600|k1a@x", "a run: the same reply read again counts once");
	feed("k1b@x", "k1a@x", "k1a@x", 320, "Re: [REGRESSION] disk stalls", "Me too.\n");
	is_str(ACTIVITY("k1@x"), "3|19200|k1b@x", "a run: a reply to the reply counts");
	{
		char before[256];

		snprintf(before, sizeof(before), "%s", ACTIVITY("r1@x"));
		feed("r1d@x", "r1c@x", "r1@x r1c@x", 40, "Re: [REGRESSION] wifi dies",
		     "Still broken.\n");
		is_str(ACTIVITY("r1@x"), before, "a run: a reply read before the run counts once");
	}
	feed("k2@x", "r1@x", "r1@x", 330, "Re: [REGRESSION] wifi dies", "#regzbot frobnicate\n");
	feed("k2@x", "r1@x", "r1@x", 330, "Re: [REGRESSION] wifi dies", "#regzbot frobnicate\n");
	is_str(q("SELECT count(*) FROM reg_unhandled WHERE message_id = 'k2@x'"), "1",
	       "a run: an unhandled directive read twice is recorded once");
	ok(store_commit(tdb, &err) == BB_OK, "a run: committed");
	is_str(q("SELECT count(*) FROM reg_mail WHERE message_id LIKE 'noise%%'"), "0",
	       "a run: the chatter belongs to no regression");

	/* a transaction's activity is written as it commits: as mail by mail
	 * (the latest date; the sender and id of the last mail read), and
	 * not at all when it is rolled back */
	ok(store_begin(tdb, &err) == BB_OK, "activity: a transaction");
	feed("k1c@x", "k1b@x", "k1b@x", 340, "Re: [REGRESSION] disk stalls", "A.\n");
	feed("k1d@x", "k1b@x", "k1b@x", 350, "Re: [REGRESSION] disk stalls", "B.\n");
	feed("k1e@x", "k1b@x", "k1b@x", 345, "Re: [REGRESSION] disk stalls", "C.\n");
	ok(store_commit(tdb, &err) == BB_OK, "activity: committed");
	is_str(ACTIVITY("k1@x"), "6|21000|k1e@x", "activity: three mails in one transaction");
	ok(store_begin(tdb, &err) == BB_OK, "activity: another transaction");
	feed("k1f@x", "k1b@x", "k1b@x", 360, "Re: [REGRESSION] disk stalls", "D.\n");
	store_rollback(tdb);
	is_str(ACTIVITY("k1@x"), "6|21000|k1e@x", "activity: a rolled-back mail does not count");
	ok(store_begin(tdb, &err) == BB_OK && store_commit(tdb, &err) == BB_OK,
	   "activity: an empty transaction");
	is_str(ACTIVITY("k1@x"), "6|21000|k1e@x", "activity: ... not later either");
	ok(store_begin(tdb, &err) == BB_OK, "activity: the mail read again");
	feed("k1f@x", "k1b@x", "k1b@x", 360, "Re: [REGRESSION] disk stalls", "D.\n");
	ok(store_commit(tdb, &err) == BB_OK, "activity: committed again");
	is_str(ACTIVITY("k1@x"), "7|21600|k1f@x", "activity: it counts once");

	/* a regression's updated time, the time of its latest event: stamped
	 * at once outside a transaction; inside one, kept and written with
	 * the activity as it commits, or alone for a mail that is no activity
	 * (ignore-activity); not at all when rolled back */
#define UPDATED(msgid) q("SELECT updated - %lld, activity_count, last_activity - %lld," \
			 " last_activity_msgid FROM reg_regression WHERE report_msgid = '%s'", \
			 T0, T0, msgid)
	feed("k1g@x", "k1b@x", "k1b@x", 370, "Re: [REGRESSION] disk stalls",
	     "#regzbot title: disk stalls on resume\n");
	is_str(UPDATED("k1@x"), "22200|8|22200|k1g@x", "updated: an event outside a transaction");
	ok(store_begin(tdb, &err) == BB_OK, "updated: a transaction");
	feed("k1h@x", "k1b@x", "k1b@x", 380, "Re: [REGRESSION] disk stalls",
	     "#regzbot title: disk stalls after resume\n");
	feed("k1i@x", "k1b@x", "k1b@x", 390, "Re: [REGRESSION] disk stalls",
	     "#regzbot ignore-activity\n#regzbot title: disk stalls after suspend\n");
	is_str(q("SELECT updated - %lld FROM reg_regression WHERE report_msgid = 'k1@x'", T0),
	       "22200", "updated: not written before the commit");
	ok(store_commit(tdb, &err) == BB_OK, "updated: committed");
	is_str(UPDATED("k1@x"), "23400|9|22800|k1h@x",
	       "updated: the later event's time, written with the one mail of activity");
	ok(store_begin(tdb, &err) == BB_OK, "updated: another transaction");
	feed("k1j@x", "k1b@x", "k1b@x", 400, "Re: [REGRESSION] disk stalls",
	     "#regzbot ignore-activity\n#regzbot title: disk stalls\n");
	ok(store_commit(tdb, &err) == BB_OK, "updated: committed again");
	is_str(UPDATED("k1@x"), "24000|9|22800|k1h@x",
	       "updated: an event alone (no activity) stamps the time, the activity unchanged");
	ok(store_begin(tdb, &err) == BB_OK, "updated: a transaction rolled back");
	feed("k1k@x", "k1b@x", "k1b@x", 410, "Re: [REGRESSION] disk stalls",
	     "#regzbot title: disk stalls sometimes\n");
	store_rollback(tdb);
	is_str(UPDATED("k1@x"), "24000|9|22800|k1h@x", "updated: a rolled-back event leaves it");
#undef UPDATED

	/* a reply takes its parent's root, remembered from the parent's
	 * row; when another connection has written, the row is read again */
	{
		struct store *other = NULL;

		ok(store_begin(tdb, &err) == BB_OK, "roots: a transaction");
		feed("t1@x", NULL, NULL, 400, "a thread", "Hi.\n");
		feed("t1a@x", "t1@x", "t1@x", 401, "Re: a thread", "Hi.\n");
		feed("t1b@x", "t1a@x", "t1a@x", 402, "Re: a thread", "Hi.\n");
		ok(store_commit(tdb, &err) == BB_OK, "roots: committed");
		is_str(q("SELECT group_concat(root) FROM list_thread WHERE message_id IN"
			 " ('t1a@x', 't1b@x')"), "t1@x,t1@x",
		       "roots: a reply to a reply naming only its parent has the thread's root");
		ok(store_open(&other, path, STORE_READ_WRITE, &err) == BB_OK &&
		   store_exec(other, "UPDATE list_thread SET root = 'moved@x', root_key ="
			      " text_key('moved@x') WHERE message_id = 't1b@x'", &err) == BB_OK,
		   "roots: another connection moves a row");
		store_close(other);
		ok(store_begin(tdb, &err) == BB_OK, "roots: the next transaction");
		feed("t1c@x", "t1b@x", "t1b@x", 403, "Re: a thread", "Hi.\n");
		ok(store_commit(tdb, &err) == BB_OK, "roots: committed again");
		is_str(q("SELECT root FROM list_thread WHERE message_id = 't1c@x'"), "moved@x",
		       "roots: the parent's row as it is now gives the root");

		/* a transaction's rows are written as it commits: a mail read
		 * again whose row is there (with a root it would not be given
		 * now) keeps that row, and its replies read after it in the
		 * same transaction, and theirs, take the root the row has */
		ok(store_begin(tdb, &err) == BB_OK, "kept rows: a transaction");
		feed("t1b@x", "t1a@x", "t1a@x", 410, "Re: a thread", "Hi again.\n");
		feed("t1d@x", "t1b@x", "t1b@x", 411, "Re: a thread", "Hi.\n");
		feed("t1e@x", "t1d@x", "t1d@x", 412, "Re: a thread", "Hi.\n");
		/* a mail read twice in the transaction: the first row stays,
		 * and a reply read after the second takes the first's root */
		feed("t2@x", NULL, NULL, 413, "another thread", "Hi.\n");
		feed("t2@x", "t1a@x", "t1a@x", 414, "Re: a thread", "Hi.\n");
		feed("t2a@x", "t2@x", "t2@x", 415, "Re: another thread", "Hi.\n");
		ok(store_commit(tdb, &err) == BB_OK, "kept rows: committed");
		is_str(q("SELECT root, date = %lld FROM list_thread WHERE message_id = 't1b@x'",
			 T0 + 60LL * 402), "moved@x|1", "kept rows: the row read first stays");
		is_str(q("SELECT count(*) FROM list_thread WHERE message_id IN ('t1b@x', 't2@x')"), "2",
		       "kept rows: one row a Message-ID");
		is_str(q("SELECT group_concat(root) FROM (SELECT root FROM list_thread WHERE message_id"
			 " IN ('t1d@x', 't1e@x') ORDER BY message_id)"), "moved@x,moved@x",
		       "kept rows: the replies of a mail read again take the root its row has");
		is_str(q("SELECT group_concat(root) FROM (SELECT root FROM list_thread WHERE message_id"
			 " IN ('t2@x', 't2a@x') ORDER BY message_id)"), "t2@x,t2@x",
		       "kept rows: a mail read twice keeps its first row, and its reply the root");
		/* (and the next transaction reads them as written) */
		ok(store_begin(tdb, &err) == BB_OK, "kept rows: the next transaction");
		feed("t1f@x", "t1e@x", "t1e@x", 416, "Re: a thread", "Hi.\n");
		ok(store_commit(tdb, &err) == BB_OK, "kept rows: committed again");
		is_str(q("SELECT root FROM list_thread WHERE message_id = 't1f@x'"), "moved@x",
		       "kept rows: a reply in the next transaction takes its parent's root");

		/* rows of a transaction rolled back are not written, nor are
		 * their roots remembered */
		ok(store_begin(tdb, &err) == BB_OK, "kept rows: a transaction to roll back");
		feed("t3@x", NULL, NULL, 417, "a third thread", "Hi.\n");
		store_rollback(tdb);
		ok(store_begin(tdb, &err) == BB_OK, "kept rows: and one after it");
		feed("t3a@x", "t3@x", "t0@x t3@x", 418, "Re: a third thread", "Hi.\n");
		ok(store_commit(tdb, &err) == BB_OK, "kept rows: committed after the rollback");
		is_str(q("SELECT (SELECT count(*) FROM list_thread WHERE message_id = 't3@x'),"
			 " (SELECT root FROM list_thread WHERE message_id = 't3a@x')"), "0|t0@x",
		       "kept rows: the rolled-back mail has no row; its reply's root is the first"
		       " it names");
	}

	/* a transaction's rows go THREAD_ROWS_RUN at a time in one statement
	 * when the set of list_thread's ids says all of them are new
	 * (thread_rows.h): a run with a mail whose row is there (written by
	 * another connection) is written row by row, as before, its replies in
	 * the run taking the root that row has; a run of new rows whose
	 * replies name parents in the same run takes their roots */
	{
		struct store *other = NULL;
		char id[32], parent[32];

		ok(store_open(&other, path, STORE_READ_WRITE, &err) == BB_OK &&
		   store_exec(other, "INSERT INTO list_thread VALUES ('old@x', text_key('old@x'),"
			      " 'moved2@x', text_key('moved2@x'), 'x', 1, strftime('%s', 'now'))",
			      &err) == BB_OK,
		   "runs: a mail read before (by another run)");
		store_close(other);
		ok(store_begin(tdb, &err) == BB_OK, "runs: a transaction of eight runs");
		/* new threads first: as many asks as the set of list_thread's
		 * ids waits for before it is read (STORE_KEYS_FILL_AFTER) */
		for (int i = 0; i < 5 * THREAD_ROWS_RUN; i++) {
			snprintf(id, sizeof(id), "pre%d@x", i);
			feed(id, NULL, NULL, 590, "a thread of one", "Hi.\n");
		}
		feed("runa0@x", NULL, NULL, 600, "a run", "Hi.\n");
		feed("old@x", "runa0@x", "runa0@x", 601, "Re: a run", "Hi again.\n");
		memcpy(parent, "old@x", sizeof("old@x"));
		for (int i = 2; i < 2 * THREAD_ROWS_RUN + 5; i++) {
			/* the first run: replies to the mail read again; the
			 * others: a new thread, each naming only its parent */
			snprintf(id, sizeof(id), "runa%d@x", i);
			if (i == THREAD_ROWS_RUN)
				feed(id, NULL, NULL, 600 + i, "another run", "Hi.\n");
			else
				feed(id, parent, parent, 600 + i, "Re: a run", "Hi.\n");
			memcpy(parent, id, sizeof(id));
		}
		ok(store_commit(tdb, &err) == BB_OK, "runs: committed");
		is_str(q("SELECT count(*) FROM list_thread WHERE message_id GLOB 'pre*@x'"
			 " AND root = message_id"), "320", "runs: the new threads, each its own root");
		is_str(q("SELECT root || '|' || date FROM list_thread WHERE message_id = 'old@x'"),
		       "moved2@x|1", "runs: the row read before stays");
		is_str(q("SELECT count(*) || '|' || min(root) || '|' || max(root) FROM list_thread"
			 " WHERE message_id GLOB 'runa[0-9]*@x' AND message_id != 'runa0@x'"
			 " AND CAST(substr(message_id, 5) AS INTEGER) < %d", THREAD_ROWS_RUN),
		       "62|moved2@x|moved2@x",
		       "runs: its replies in its run, and theirs, take the root its row has");
		is_str(q("SELECT count(*) || '|' || min(root) || '|' || max(root) FROM list_thread"
			 " WHERE message_id GLOB 'runa[0-9]*@x'"
			 " AND CAST(substr(message_id, 5) AS INTEGER) >= %d", THREAD_ROWS_RUN),
		       "69|runa64@x|runa64@x",
		       "runs: a run of new rows (and the rows after it) take their parents' roots");
	}

	/* no unique index keeps one row a Message-ID (mid_key is a hash):
	 * a restart reading the same mails again -- another connection wrote
	 * since, and the set of ids is read anew -- writes no second row, in
	 * runs or one by one, and a row written meanwhile stays as it is */
	{
		struct store *other = NULL;
		char id[32];

		ok(store_open(&other, path, STORE_READ_WRITE, &err) == BB_OK &&
		   store_exec(other, "INSERT INTO list_thread VALUES ('again@x', text_key('again@x'),"
			      " 'again@x', text_key('again@x'), 'x', 2, strftime('%s', 'now'))",
			      &err) == BB_OK, "again: a mail read by another run");
		store_close(other);
		ok(store_begin(tdb, &err) == BB_OK, "again: a transaction reading mails again");
		for (int i = 0; i < 5 * THREAD_ROWS_RUN; i++) {
			snprintf(id, sizeof(id), "pre%d@x", i);
			feed(id, NULL, NULL, 700, "a thread of one", "Hi again.\n");
		}
		feed("again@x", NULL, NULL, 701, "again", "Hi.\n");
		for (int i = 0; i < 2 * THREAD_ROWS_RUN + 5; i++) {
			snprintf(id, sizeof(id), "runa%d@x", i);
			feed(id, NULL, NULL, 702, "Re: a run", "Hi again.\n");
		}
		ok(store_commit(tdb, &err) == BB_OK, "again: committed");
		is_str(q("SELECT count(*) || '|' || count(DISTINCT message_id) FROM list_thread"
			 " WHERE message_id GLOB 'pre*@x' OR message_id GLOB 'runa*@x'"
			 " OR message_id = 'again@x'"), "454|454", "again: one row a Message-ID");
		is_str(q("SELECT root || '|' || date FROM list_thread WHERE message_id = 'again@x'"),
		       "again@x|2", "again: the row there stays");
		is_str(q("SELECT count(*) FROM list_thread WHERE message_id GLOB 'pre*@x'"
			 " AND date = %lld", T0 + 60LL * 590), "320",
		       "again: the rows read first stay");
	}

	/* a chain of replies longer than the roots kept in memory, each
	 * naming only its parent: where the memory is emptied, the reply's
	 * root (the parent's, from memory) was read after it was freed (and
	 * could come out as another Message-ID: valgrind on the 40,000-mail
	 * bench round) */
	{
		int n = TRACKER_ROOTS_MAX + 3, read = 0;
		char id[32], parent[32], want[64];

		ok(store_begin(tdb, &err) == BB_OK, "roots: a long chain in one transaction");
		for (int i = 0; i < n; i++) {
			snprintf(id, sizeof(id), "chain%d@x", i);
			read += feed_mail(id, i ? parent : NULL, i ? parent : NULL, 500, "a long thread",
					  "Hi.\n");
			memcpy(parent, id, sizeof(id));
		}
		ok(store_commit(tdb, &err) == BB_OK, "roots: the chain committed");
		is_int(read, n, "roots: every mail of the chain read");
		snprintf(want, sizeof(want), "%d|chain0@x|chain0@x", n);
		is_str(q("SELECT count(*), min(root), max(root) FROM list_thread WHERE message_id LIKE"
			 " 'chain%%@x'"), want,
		       "roots: every mail of the chain has its first mail as root, across the"
		       " memory's limit");
	}

	/* list_thread's rows read more than TRACKER_THREAD_DAYS ago go, once
	 * a day (a tracker's first list mail; the cursor says the day) */
	{
		long long now = (long long)time(NULL), old = now - (TRACKER_THREAD_DAYS + 1) * 86400LL;
		struct tracker_options to;

		memset(&to, 0, sizeof(to));
		to.bugzilla_url = "https://bugzilla.kernel.org";
		ok(store_exec(tdb, "DELETE FROM cursor WHERE source = 'tracker:threads-pruned'", &err) ==
		   BB_OK, "prune: no day recorded");
		{
			char *sql = g_strdup_printf("INSERT INTO list_thread VALUES ('gone@x',"
						    " text_key('gone@x'), 'gone@x', text_key('gone@x'),"
						    " 'x', 0, %lld), ('kept@x', text_key('kept@x'),"
						    " 'kept@x', text_key('kept@x'), 'x', 0, %lld)",
						    old, now - 86400LL);

			ok(store_exec(tdb, sql, &err) == BB_OK, "prune: an old row and a recent one");
			g_free(sql);
		}
		tracker_free(trk);
		ok(tracker_new(&trk, tdb, &to, &err) == BB_OK, "prune: a new tracker (a new run)");
		feed("p1@x", NULL, NULL, 400, "prune one", "Hi.\n");
		is_str(q("SELECT group_concat(message_id) FROM list_thread WHERE message_id IN"
			 " ('gone@x', 'kept@x')"), "kept@x", "prune: the old row went, the recent stayed");
		is_int(strlen(q("SELECT value FROM cursor WHERE source = 'tracker:threads-pruned'")), 10,
		       "prune: the day is recorded");
		{
			char *sql = g_strdup_printf("INSERT INTO list_thread VALUES ('gone2@x',"
						    " text_key('gone2@x'), 'gone2@x',"
						    " text_key('gone2@x'), 'x', 0, %lld)", old);

			ok(store_exec(tdb, sql, &err) == BB_OK, "prune: another old row");
			g_free(sql);
		}
		tracker_free(trk);
		ok(tracker_new(&trk, tdb, &to, &err) == BB_OK, "prune: another run the same day");
		feed("p2@x", NULL, NULL, 401, "prune two", "Hi.\n");
		is_str(q("SELECT count(*) FROM list_thread WHERE message_id = 'gone2@x'"), "1",
		       "prune: not pruned twice a day");
		ok(store_exec(tdb, "UPDATE cursor SET value = '2000-01-01' WHERE source ="
				   " 'tracker:threads-pruned'", &err) == BB_OK, "prune: as if a day passed");
		tracker_free(trk);
		ok(tracker_new(&trk, tdb, &to, &err) == BB_OK, "prune: a run the next day");
		feed("p3@x", NULL, NULL, 402, "prune three", "Hi.\n");
		is_str(q("SELECT count(*) FROM list_thread WHERE message_id = 'gone2@x'"), "0",
		       "prune: pruned again the next day");
	}

	tracker_free(trk);
	store_close(tdb);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	tap_shared_dir(shared, sizeof(shared));
	test_corpus();
	test_aliases();
	test_introduced();
	test_other_verbs();
	test_where();
	test_unhandled();
	test_limits();
	test_links();
	test_tracker();
	mail_shutdown();
	return done_testing();
}
