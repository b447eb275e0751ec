/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for bridge/mailcmd.c: every verb, where a command counts
 * (not quoted, not in a diff, not in the signature, not in a forwarded
 * mail, not #regzbot), what is reported as not understood, and real corpus
 * mail bodies ($BUGBRIDGE_SHARED/corpus/mail/) with and without a command
 * added; and bridge/cmdchange.c's cmdchange_already(): which changes a bug
 * already has. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "bridge/cmdchange.h"
#include "bridge/mailcmd.h"
#include "bugzilla/bug.h"
#include "core/buf.h"
#include "mail/inmail.h"
#include "mail/mail.h"
#include "tests/unit/tap.h"

static char shared[4096];

struct want {
	enum mailcmd_verb verb;
	const char *arg;
	long long dup_of;
};

/* Parses body and checks it gives exactly the one command wanted. */
static void one(const char *body, enum mailcmd_verb verb, const char *arg, long long dup_of,
		const char *name)
{
	struct mailcmd *c = NULL;
	size_t n = 0;
	struct bb_error err = BB_ERROR_INIT;

	if (!ok(mailcmd_parse(body, &c, &n, &err) == BB_OK && n == 1, "%s: one command", name)) {
		diag("got %zu", n);
		mailcmd_free(c, n);
		return;
	}
	if (!ok(c[0].verb == verb && (arg ? c[0].arg && !strcmp(c[0].arg, arg) : !c[0].arg) &&
		c[0].dup_of == dup_of, "%s: %s %s", name, mailcmd_verb_str(verb), arg ? arg : ""))
		diag("got %s arg=%s error=%s", mailcmd_verb_str(c[0].verb), c[0].arg ? c[0].arg : "(null)",
		     c[0].error ? c[0].error : "(none)");
	mailcmd_free(c, n);
}

static void invalid(const char *body, const char *why, const char *name)
{
	struct mailcmd *c = NULL;
	size_t n = 0;
	struct bb_error err = BB_ERROR_INIT;

	if (!ok(mailcmd_parse(body, &c, &n, &err) == BB_OK && n == 1, "%s: one entry", name)) {
		mailcmd_free(c, n);
		return;
	}
	if (!ok(c[0].verb == MAILCMD_INVALID && c[0].error && strstr(c[0].error, why) && !c[0].arg &&
		c[0].text && c[0].line > 0, "%s: not understood (%s)", name,
		c[0].error ? c[0].error : "no error"))
		diag("got %s", mailcmd_verb_str(c[0].verb));
	mailcmd_free(c, n);
}

static size_t count(const char *body)
{
	struct mailcmd *c = NULL;
	size_t n = 0;
	struct bb_error err = BB_ERROR_INIT;

	if (mailcmd_parse(body, &c, &n, &err) != BB_OK)
		return (size_t)-1;
	mailcmd_free(c, n);
	return n;
}

static void test_verbs(void)
{
	one("#bugbridge close\n", MAILCMD_CLOSE, NULL, 0, "close");
	one("#bugbridge close code_fix\n", MAILCMD_CLOSE, "CODE_FIX", 0, "close with resolution");
	one("#bugbridge close DUPLICATE 12345\n", MAILCMD_CLOSE, "DUPLICATE", 12345, "duplicate");
	one("#bugbridge close duplicate #777\n", MAILCMD_CLOSE, "DUPLICATE", 777, "duplicate #N");
	one("#bugbridge reopen", MAILCMD_REOPEN, NULL, 0, "reopen without a line end");
	one("#bugbridge reassign Network\n", MAILCMD_REASSIGN, "Network", 0, "reassign component");
	one("#bugbridge reassign  INTEL WIRELESS WIFI LINK (iwlwifi)  \n", MAILCMD_REASSIGN,
	    "INTEL WIRELESS WIFI LINK (iwlwifi)", 0, "reassign MAINTAINERS section");
	one("#bugbridge assign me\n", MAILCMD_ASSIGN, "me", 0, "assign me");
	one("#bugbridge assign ME\n", MAILCMD_ASSIGN, "me", 0, "assign ME");
	one("#bugbridge assign jane@example.org\n", MAILCMD_ASSIGN, "jane@example.org", 0, "assign addr");
	one("#bugbridge assign Jane Doe <jane@example.org>\n", MAILCMD_ASSIGN, "jane@example.org", 0,
	    "assign name and address");
	one("#bugbridge title Resume hangs on \xc3\x9c" "ber-Laptop 3000\n", MAILCMD_TITLE,
	    "Resume hangs on \xc3\x9c" "ber-Laptop 3000", 0, "title, UTF-8");
	one("#bugbridge title: with a colon\n", MAILCMD_TITLE, "with a colon", 0, "title:");
	one("#bugbridge priority P1\n", MAILCMD_PRIORITY, "P1", 0, "priority");
	one("#bugbridge severity high\n", MAILCMD_SEVERITY, "high", 0, "severity");
	one("#bugbridge stop\n", MAILCMD_STOP, NULL, 0, "stop");
	one("#bugbridge track\n", MAILCMD_TRACK, NULL, 0, "track");
	one("#bugbridge subscribe\n", MAILCMD_SUBSCRIBE, NULL, 0, "subscribe");
	one("#bugbridge Unsubscribe\n", MAILCMD_UNSUBSCRIBE, NULL, 0, "unsubscribe");
	one("#bugbridge uncc\n", MAILCMD_UNSUBSCRIBE, NULL, 0, "uncc is unsubscribe");
	invalid("#bugbridge subscribe jane@example.org\n", "this command takes no argument",
		"subscribe is for the sender only");
	invalid("#bugbridge uncc me\n", "this command takes no argument", "uncc takes nothing");
	one("  #BugBridge   CLOSE   fixed\r\n", MAILCMD_CLOSE, "FIXED", 0, "indented, any case, CRLF");
	one("#bugbridge: reopen\n", MAILCMD_REOPEN, NULL, 0, "keyword with a colon");
}

static void test_where(void)
{
	is_int(count("> #bugbridge close\n"), 0, "quoted: no command");
	is_int(count(">> #bugbridge close\n"), 0, "quoted twice: no command");
	is_int(count("#regzbot introduced: v6.1..v6.2\n#regzbot title: foo\n"), 0,
	       "#regzbot lines are not bridge commands");
	is_int(count("#bugbridges close\n#bugbridge-x close\nsay #bugbridge close\n"), 0,
	       "not the keyword, or not at the start of the line");
	is_int(count("Thanks\n-- \nJane\n#bugbridge close\n"), 0, "in the signature: no command");
	is_int(count("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n #bugbridge close\n-a\n+b\n"),
	       0, "a diff context line: no command");
	is_int(count("Fine.\n-----Original Message-----\n#bugbridge close\n"), 0,
	       "in an Outlook quote: no command");
	/* what a forwarded or Outlook-quoted mail said is not the sender's
	 * command: everything below such a line of its own */
	is_int(count("FYI.\n\n________________________________\nFrom: Jane <jane@example.org>\n"
		     "Sent: Monday\n\n#bugbridge close\n"), 0,
	       "below Outlook's rule and From:: no command");
	is_int(count("FYI.\n\n________________________________\n\nFrom: Jane\n#bugbridge close\n"), 0,
	       "below Outlook's rule, a blank line, From:: no command");
	is_int(count("Ok.\n\nFrom: Jane <jane@example.org>\nSent: Monday, 7 December 2026 09:00\n"
		     "To: list\nSubject: crash\n\n#bugbridge close\n"), 0,
	       "below desktop Outlook's From: and Sent: lines: no command");
	is_int(count("Ok.\n\nVon: Jane\nGesendet: Montag\n#bugbridge close\n"), 0,
	       "below its German From: and Sent: lines: no command");
	is_int(count("From: the report below\n#bugbridge close\n"), 1,
	       "a From: line without Sent: after it: no marker");
	is_int(count("FYI.\n\n---------- Forwarded message ---------\nFrom: Jane\n"
		     "Date: Mon\n\n#bugbridge close\n"), 0, "in a Gmail forward: no command");
	is_int(count("FYI.\n\n-------- Forwarded Message --------\n#bugbridge close\n"), 0,
	       "in a Thunderbird forward: no command");
	is_int(count("FYI.\n\nBegin forwarded message:\n\n#bugbridge close\n"), 0,
	       "in an Apple Mail forward: no command");
	is_int(count("FYI.\n-------- Original Message --------\n#bugbridge close\n"), 0,
	       "below Thunderbird's Original Message: no command");
	is_int(count("Bye\n-- \nJane\n---------- Forwarded message ---------\n#bugbridge close\n"),
	       0, "a forward below the signature: no command");
	is_int(count("#bugbridge reopen\n\n---------- Forwarded message ---------\n"
		     "#bugbridge close\n"), 1, "the own command above a forward is read");
	/* only a line of its own is a marker */
	is_int(count("Begin forwarded message: not really\n#bugbridge close\n"), 1,
	       "words after \"Begin forwarded message:\": no marker");
	is_int(count("Forwarded message\n#bugbridge close\n"), 1,
	       "\"Forwarded message\" without its rules: no marker");
	is_int(count("________________________________\nNot a header\n#bugbridge close\n"), 1,
	       "a rule of underscores not followed by From:: no marker");
	is_int(count("About the forwarded message below:\n#bugbridge close\n"), 1,
	       "the words in a sentence: no marker");
	is_int(count(""), 0, "empty body");
	is_int(count("On Mon, Jane wrote:\n> #bugbridge close\n\n#bugbridge reopen\n"
		     "#bugbridge priority P2\n"), 2, "quoted one ignored, own two read");
}

/* "needinfo [reporter|<address>] <question>": whom it asks, and the
 * question; an address in angle brackets or as "Name <addr>" is read as
 * the address alone. */
static void needinfo(const char *body, const char *to, const char *question, const char *name)
{
	struct mailcmd *c = NULL;
	size_t n = 0;
	struct bb_error err = BB_ERROR_INIT;

	if (!ok(mailcmd_parse(body, &c, &n, &err) == BB_OK && n == 1, "%s: one command", name)) {
		mailcmd_free(c, n);
		return;
	}
	if (!ok(c[0].verb == MAILCMD_NEEDINFO && c[0].to && !strcmp(c[0].to, to) && c[0].arg &&
		!strcmp(c[0].arg, question), "%s: needinfo %s: %s", name, to, question))
		diag("got %s to=%s arg=%s error=%s", mailcmd_verb_str(c[0].verb),
		     c[0].to ? c[0].to : "(null)", c[0].arg ? c[0].arg : "(null)",
		     c[0].error ? c[0].error : "(none)");
	mailcmd_free(c, n);
}

static void test_needinfo(void)
{
	needinfo("#bugbridge needinfo reporter Which firmware?\n", "reporter", "Which firmware?",
		 "the reporter");
	needinfo("#bugbridge NeedInfo: Reporter  does   6.8 fix it?\n", "reporter", "does 6.8 fix it?",
		 "any case, a colon, blanks collapsed");
	needinfo("#bugbridge needinfo Which laptop?\n", "reporter", "Which laptop?",
		 "no one named: the reporter");
	needinfo("#bugbridge needinfo olaf@example.net Does 6.8 crash?\n", "olaf@example.net",
		 "Does 6.8 crash?", "an address");
	needinfo("#bugbridge needinfo <olaf@example.net> Does 6.8 crash?\n", "olaf@example.net",
		 "Does 6.8 crash?", "an address in angle brackets");
	invalid("#bugbridge needinfo\n", "needs the question", "needinfo without a question");
	invalid("#bugbridge needinfo reporter\n", "needs the question", "needinfo of no question");
	invalid("#bugbridge needinfo olaf@ Why?\n", "e-mail address", "needinfo of a broken address");
	{
		struct mailcmd *c = NULL;
		size_t n = 0;
		char *reply;

		mailcmd_parse("#bugbridge needinfo\n", &c, &n, NULL);
		reply = mailcmd_error_reply(c, n);
		ok(reply && strstr(reply, "#bugbridge needinfo [reporter|<address>] <question>"),
		   "the reply to a command not understood lists needinfo");
		free(reply);
		mailcmd_free(c, n);
	}
}

static void test_invalid(void)
{
	invalid("#bugbridge\n", "missing", "keyword alone");
	invalid("#bugbridge frobnicate now\n", "unknown", "unknown verb");
	invalid("#bugbridge reopen please\n", "no argument", "reopen with an argument");
	invalid("#bugbridge stop it\n", "no argument", "stop with an argument");
	invalid("#bugbridge close FIXED now\n", "one resolution", "close with two words");
	invalid("#bugbridge close fixed!\n", "resolution", "close with a bad word");
	invalid("#bugbridge close DUPLICATE\n", "number", "duplicate without a bug");
	invalid("#bugbridge close DUPLICATE abc\n", "number", "duplicate of a word");
	invalid("#bugbridge reassign\n", "component", "reassign without a target");
	invalid("#bugbridge assign\n", "address", "assign nobody");
	invalid("#bugbridge assign not an address\n", "address", "assign words");
	invalid("#bugbridge assign a@b.org, c@d.org\n", "one e-mail address", "assign two");
	invalid("#bugbridge title\n", "title", "title without text");
	invalid("#bugbridge priority\n", "priority", "priority without a value");
	invalid("#bugbridge priority very high\n", "priority", "priority of two words");
	invalid("#bugbridge severity\n", "severity", "severity without a value");
	/* found by fuzz-mailcmd: nothing left once controls are dropped */
	invalid("#bugbridge title: \x12\x01\n", "title", "title of control characters");
	invalid("#bugbridge reassign \x1b\n", "component", "reassign to a control character");
	{
		struct buf b = BUF_INIT;

		buf_addstr(&b, "#bugbridge title ");
		for (int i = 0; i < 300; i++)
			buf_addch(&b, 'x');
		invalid(b.data, "longer than 255", "a title too long");
		buf_reset(&b);
		buf_addstr(&b, "#bugbridge reassign ");
		for (int i = 0; i < MAILCMD_LINE_MAX; i++)
			buf_addch(&b, 'x');
		invalid(b.data, "too long", "a line too long");
		buf_release(&b);
	}
}

static void test_many_and_reply(void)
{
	struct buf b = BUF_INIT;
	struct mailcmd *c = NULL;
	size_t n = 0;
	struct bb_error err = BB_ERROR_INIT;
	char *reply;

	for (int i = 0; i < 1000; i++)
		buf_addstr(&b, "#bugbridge priority P3\n");
	if (ok(mailcmd_parse(b.data, &c, &n, &err) == BB_OK, "1000 commands: parses")) {
		ok(n == MAILCMD_MAX + 1 && c[MAILCMD_MAX].verb == MAILCMD_INVALID &&
		   strstr(c[MAILCMD_MAX].error, "more than") && c[MAILCMD_MAX].line == MAILCMD_MAX + 1,
		   "1000 commands: %d read, then one entry saying the rest were not", MAILCMD_MAX);
		mailcmd_free(c, n);
	}
	buf_release(&b);

	if (ok(mailcmd_parse("Hi,\n\n#bugbridge close WONTFIX\n#bugbridge frob\n\n"
			     "#bugbridge assign nobody\n", &c, &n, &err) == BB_OK && n == 3,
	       "mixed: three entries")) {
		ok(c[0].verb == MAILCMD_CLOSE && c[0].line == 3, "mixed: close on line 3");
		ok(c[1].verb == MAILCMD_INVALID && c[1].line == 4, "mixed: unknown on line 4");
		ok(c[2].verb == MAILCMD_INVALID && c[2].line == 6, "mixed: bad assign on line 6");
		reply = mailcmd_error_reply(c, n);
		ok(reply && strstr(reply, "line 4: #bugbridge frob") && strstr(reply, "line 6") &&
		   !strstr(reply, "line 3:") && strstr(reply, "these commands"),
		   "one reply names each line not understood and why");
		free(reply);
		mailcmd_free(c, n);
	}
	if (ok(mailcmd_parse("#bugbridge reopen\n", &c, &n, &err) == BB_OK, "all fine: parses")) {
		ok(mailcmd_error_reply(c, n) == NULL, "all understood: no reply");
		mailcmd_free(c, n);
	}
	is_str(mailcmd_verb_str(MAILCMD_SEVERITY), "severity", "verb names");
	is_str(mailcmd_verb_str(MAILCMD_INVALID), "invalid", "invalid's name");
}

/* A control character or invalid UTF-8 in a command line does not get
 * into what the caller hands to Bugzilla or a reply. */
static void test_hostile(void)
{
	struct mailcmd *c = NULL;
	size_t n = 0;
	struct bb_error err = BB_ERROR_INIT;

	if (ok(mailcmd_parse("#bugbridge title a\x01\x1b[31mb \xff\xfe c\n#bugbridge zz\x07\xff\n",
			     &c, &n, &err) == BB_OK && n == 2, "hostile bytes: parses")) {
		ok(c[0].verb == MAILCMD_TITLE && g_utf8_validate(c[0].arg, -1, NULL) &&
		   !strchr(c[0].arg, '\x1b') && !strchr(c[0].arg, '\x01'),
		   "title cleaned (\"%s\")", c[0].arg);
		ok(c[1].verb == MAILCMD_INVALID && g_utf8_validate(c[1].text, -1, NULL) &&
		   !strchr(c[1].text, '\x07'), "invalid line text cleaned");
		mailcmd_free(c, n);
	}
}

/* Corpus bodies carry no bridge command; one added to a real reply is
 * found, on the line it was added. */
struct corpus_state {
	size_t mails, commands, failures;
};

static void corpus_reply(const char *rel)
{
	char path[8192];
	gchar *data;
	gsize len;
	struct inmail_body b;
	struct bb_error err = BB_ERROR_INIT;
	struct mailcmd *c = NULL;
	size_t n = 0;
	struct buf body = BUF_INIT;

	snprintf(path, sizeof(path), "%s/corpus/mail/%s", shared, rel);
	if (!g_file_get_contents(path, &data, &len, NULL)) {
		ok(0, "%s readable", rel);
		return;
	}
	if (!ok(inmail_decode(data, len, &b, &err) == BB_OK, "%s decodes", rel)) {
		g_free(data);
		return;
	}
	ok(mailcmd_parse(b.text, &c, &n, &err) == BB_OK && n == 0, "%s: no command as written", rel);
	mailcmd_free(c, n);
	/* the maintainer adds a command above the quote */
	buf_addstr(&body, "#bugbridge close CODE_FIX\n\n");
	buf_addstr(&body, b.text);
	buf_addstr(&body, "\n> #bugbridge reopen\n");
	if (ok(mailcmd_parse(body.data, &c, &n, &err) == BB_OK && n == 1, "%s: the added command", rel)) {
		ok(c[0].verb == MAILCMD_CLOSE && !strcmp(c[0].arg, "CODE_FIX") && c[0].line == 1,
		   "%s: close CODE_FIX on line 1, the quoted one ignored", rel);
		mailcmd_free(c, n);
	}
	buf_release(&body);
	inmail_body_release(&b);
	g_free(data);
}

static void test_corpus(void)
{
	char probe[8192];
	static const char *const mails[] = {
		"lkml-archive/platform-driver-x86/patch-threads/asus-wmi-bug-219517/03-976517f98c25.eml",
		"lkml-archive/platform-driver-x86/regzbot/5795cb3f671b.eml",
		"lkml-archive/platform-driver-x86/bugzilla-daemon/misc/9d7a6439ee6d.eml",
		"lkml-archive/platform-driver-x86/charset/5e0ea6ef8943.eml",
	};

	snprintf(probe, sizeof(probe), "%s/corpus/mail/%s", shared, mails[0]);
	if (!g_file_test(probe, G_FILE_TEST_EXISTS)) {
		printf("ok %d # SKIP no mail corpus at %s/corpus/mail (set BUGBRIDGE_SHARED)\n",
		       ++tap_count, shared);
		return;
	}
	for (size_t i = 0; i < sizeof(mails) / sizeof(mails[0]); i++)
		corpus_reply(mails[i]);
}

/* cmdchange_already() of change (JSON) on a bug in status/resolution;
 * NULL or the "already ..." text. */
static char *already(const struct bz_fields *f, const char *status, const char *resolution,
		     long long dupe_of, const char *change)
{
	struct bz_bug bug;
	json_object *o = json_tokener_parse(change);
	char *out;
	int nomem = 0;

	memset(&bug, 0, sizeof(bug));
	bug.id = 7;
	bug.summary = (char *)"iwlwifi: crash";
	bug.component = (char *)"Wireless";
	bug.status = (char *)status;
	bug.resolution = (char *)resolution;
	bug.priority = (char *)"High";
	bug.severity = (char *)"major";
	bug.assigned_to.login = (char *)"Wendy@example.org";
	bug.dupe_of = dupe_of;
	out = cmdchange_already(f, &bug, o, &nomem);
	json_object_put(o);
	return nomem ? strdup("out of memory") : out;
}

static void is_already(const struct bz_fields *f, const char *status, const char *resolution,
		       long long dupe_of, const char *change, const char *want, const char *name)
{
	char *got = already(f, status, resolution, dupe_of, change);

	if (want)
		is_str(got, want, "already: %s", name);
	else
		ok(!got, "not already: %s%s%s", name, got ? " -- got " : "", got ? got : "");
	free(got);
}

static void test_already(void)
{
	/* a 5.2's statuses, as GET /rest/field/bug gives them */
	static const char fields_json[] =
		"{\"fields\": [{\"name\": \"bug_status\", \"type\": 2, \"values\": ["
		"{\"name\": \"UNCONFIRMED\", \"is_open\": true, \"can_change_to\": []},"
		"{\"name\": \"CONFIRMED\", \"is_open\": true, \"can_change_to\": []},"
		"{\"name\": \"IN_PROGRESS\", \"is_open\": true, \"can_change_to\": []},"
		"{\"name\": \"RESOLVED\", \"is_open\": false, \"can_change_to\": []},"
		"{\"name\": \"VERIFIED\", \"is_open\": false, \"can_change_to\": []}]}]}";
	struct bz_fields *f = NULL;
	struct bb_error err = BB_ERROR_INIT;

	ok(bz_parse_fields(fields_json, sizeof(fields_json) - 1, &f, &err) == BB_OK && f,
	   "the statuses parse");
	is_already(f, "CONFIRMED", "", 0, "{\"status\": \"IN_PROGRESS\"}", "already open: CONFIRMED",
		   "reopen of an open bug (it would move it on)");
	is_already(f, "RESOLVED", "FIXED", 0, "{\"status\": \"CONFIRMED\"}", NULL,
		   "reopen of a closed bug");
	is_already(f, "RESOLVED", "FIXED", 0, "{\"status\": \"RESOLVED\", \"resolution\": \"FIXED\"}",
		   "already closed: RESOLVED FIXED", "close of a bug closed so");
	is_already(f, "VERIFIED", "FIXED", 0, "{\"status\": \"RESOLVED\", \"resolution\": \"FIXED\"}",
		   "already closed: VERIFIED FIXED", "close of a verified bug: not sent back to RESOLVED");
	is_already(f, "RESOLVED", "WONTFIX", 0,
		   "{\"status\": \"RESOLVED\", \"resolution\": \"FIXED\"}", NULL,
		   "close with another resolution");
	is_already(f, "CONFIRMED", "", 0, "{\"status\": \"RESOLVED\", \"resolution\": \"FIXED\"}",
		   NULL, "close of an open bug");
	is_already(f, "RESOLVED", "DUPLICATE", 5,
		   "{\"status\": \"RESOLVED\", \"resolution\": \"DUPLICATE\", \"dupe_of\": \"5\"}",
		   "already closed: RESOLVED DUPLICATE, a duplicate of bug 5", "duplicate of the same bug");
	is_already(f, "RESOLVED", "DUPLICATE", 5,
		   "{\"status\": \"RESOLVED\", \"resolution\": \"DUPLICATE\", \"dupe_of\": \"6\"}",
		   NULL, "duplicate of another bug");
	is_already(f, "CONFIRMED", "", 0, "{\"assigned_to\": \"wendy@EXAMPLE.org\"}",
		   "already assigned to Wendy@example.org", "assign to the assignee, any case");
	is_already(f, "CONFIRMED", "", 0, "{\"assigned_to\": \"jane@example.org\"}", NULL,
		   "assign to someone else");
	is_already(f, "CONFIRMED", "", 0, "{\"component\": \"wireless\"}",
		   "already in component Wireless", "reassign to its component");
	is_already(f, "CONFIRMED", "", 0, "{\"component\": \"USB\"}", NULL, "reassign elsewhere");
	is_already(f, "CONFIRMED", "", 0, "{\"priority\": \"High\"}", "already of priority High",
		   "its priority");
	is_already(f, "CONFIRMED", "", 0, "{\"priority\": \"Low\"}", NULL, "another priority");
	is_already(f, "CONFIRMED", "", 0, "{\"severity\": \"major\"}", "already of severity major",
		   "its severity");
	is_already(f, "CONFIRMED", "", 0, "{\"summary\": \"iwlwifi: crash\"}", "already titled so",
		   "its title");
	is_already(f, "CONFIRMED", "", 0, "{\"summary\": \"iwlwifi: Crash\"}", NULL,
		   "a title that differs in case is a change");
	/* without the server's statuses: open is having no resolution */
	is_already(NULL, "REOPENED", "", 0, "{\"status\": \"REOPENED\"}", "already open: REOPENED",
		   "no status list: reopen of a bug without resolution");
	is_already(NULL, "CLOSED", "FIXED", 0,
		   "{\"status\": \"RESOLVED\", \"resolution\": \"FIXED\"}",
		   "already closed: CLOSED FIXED", "no status list: close of a bug with that resolution");
	bz_fields_free(f);
}

/* "#bugbridge <n> <verb>": an entry of a digest in a reply to one
 * (mailcmd_parse_entries()), not understood anywhere else; no-reminders. */
static void test_entries(void)
{
	struct mailcmd *c = NULL;
	size_t n = 0;
	struct bb_error err = BB_ERROR_INIT;

	one("#bugbridge no-reminders\n", MAILCMD_NO_REMINDERS, NULL, 0, "no-reminders");
	invalid("#bugbridge no-reminders please\n", "this command takes no argument",
		"no-reminders takes nothing");
	invalid("#bugbridge 3 close INVALID\n", "unknown command",
		"an entry number on a bug's thread");
	ok(mailcmd_parse_entries("Seen.\n\n#bugbridge 3 close INVALID\n#bugbridge 12: reopen\n"
				 "#bugbridge title New words\n> #bugbridge 4 stop\n", &c, &n,
				 &err) == BB_OK && n == 3, "entries: three commands (the quoted one not)");
	ok(n == 3 && c[0].verb == MAILCMD_CLOSE && c[0].entry == 3 && c[0].arg &&
	   !strcmp(c[0].arg, "INVALID"), "entry 3: close INVALID");
	ok(n == 3 && c[1].verb == MAILCMD_REOPEN && c[1].entry == 12, "entry 12: reopen");
	ok(n == 3 && c[2].verb == MAILCMD_TITLE && c[2].entry == 0, "no number: entry 0");
	mailcmd_free(c, n);
	ok(mailcmd_parse_entries("#bugbridge 3\n", &c, &n, &err) == BB_OK && n == 1 &&
	   c[0].verb == MAILCMD_INVALID, "a number and no command is not understood");
	mailcmd_free(c, n);
}

int main(void)
{
	test_entries();
	tap_shared_dir(shared, sizeof(shared));
	test_verbs();
	test_where();
	test_invalid();
	test_needinfo();
	test_many_and_reply();
	test_hostile();
	test_corpus();
	test_already();
	mail_shutdown();
	return done_testing();
}
