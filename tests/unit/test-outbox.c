/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for mail/outbox.c with a real SQLite store: queueing, Maildir
 * and mbox delivery, and SMTP delivery against tests/lib/smtp_sink.py
 * (Debian's python3-aiosmtpd): batches, 4xx backoff, 5xx failure, retry,
 * partial recipients, a server that is down, a dropped connection, AUTH. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/store.h"
#include "mail/outbox.h"
#include "tests/unit/tap.h"

#define PYTHON "/usr/bin/python3"
#define SENDER "bugbridge <bb@example.org>"
#define PASSWORD "s3cret-Pa55"

extern char **environ;

static char base[] = "/tmp/bb-outbox-XXXXXX";
static char *recipients[] = { (char *)"list@example.org", (char *)"Some Person <p@example.org>", NULL };

/* --- helpers ------------------------------------------------------------------ */


/* A small message; odd lines check dot-stuffing and From_ quoting. */
static char *make_message(const char *id, int eight_bit)
{
	return str_printf("From: bugbridge <bb@example.org>\n"
			  "To: list@example.org\n"
			  "Subject: test %s\n"
			  "Date: Wed, 03 Dec 2025 08:01:55 +0000\n"
			  "Message-ID: <%s>\n"
			  "MIME-Version: 1.0\n"
			  "Content-Type: text/plain; charset=utf-8\n"
			  "Content-Transfer-Encoding: %s\n"
			  "\n"
			  "Body of %s.\n"
			  ".leading dot\n"
			  "From the start of a line\n"
			  ">From already quoted\n"
			  "%s\n"
			  "-- \nfooter\n",
			  id, id, eight_bit ? "8bit" : "7bit", id,
			  eight_bit ? "Gr\xc3\xbc\xc3\x9f\x65 \xe2\x86\x92 done" : "plain");
}

static int add(struct store *db, const char *id, int eight_bit, char *const *rcpt)
{
	struct bb_error err = BB_ERROR_INIT;
	char *msg = make_message(id, eight_bit);
	enum bb_status s = outbox_add(db, id, 1, 0, SENDER, rcpt, msg, strlen(msg), &err);

	if (s)
		diag("outbox_add %s: %s", id, err.message);
	free(msg);
	return s == BB_OK;
}

struct row {
	char state[16];
	int attempts;
	long long next_attempt, sent;
	char last_error[512];
	char recipients[256];
	char *message;
	size_t len;
};

static int get_row(struct store *db, const char *id, struct row *r)
{
	sqlite3_stmt *q = NULL;
	int found = 0;

	memset(r, 0, sizeof(*r));
	if (store_prepare(db, &q, "SELECT state, attempts, next_attempt, coalesce(sent, 0),"
			  " coalesce(last_error, ''), recipients, message FROM outbox"
			  " WHERE message_id = ?", NULL))
		return 0;
	sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW) {
		found = 1;
		snprintf(r->state, sizeof(r->state), "%s", (const char *)sqlite3_column_text(q, 0));
		r->attempts = sqlite3_column_int(q, 1);
		r->next_attempt = sqlite3_column_int64(q, 2);
		r->sent = sqlite3_column_int64(q, 3);
		snprintf(r->last_error, sizeof(r->last_error), "%s", (const char *)sqlite3_column_text(q, 4));
		snprintf(r->recipients, sizeof(r->recipients), "%s", (const char *)sqlite3_column_text(q, 5));
		r->len = (size_t)sqlite3_column_bytes(q, 6);
		r->message = malloc(r->len + 1);
		if (r->message) {
			memcpy(r->message, sqlite3_column_blob(q, 6), r->len);
			r->message[r->len] = '\0';
		}
	}
	sqlite3_finalize(q);
	return found;
}

static void row_release(struct row *r)
{
	free(r->message);
	r->message = NULL;
}

static int count_lines_starting(const char *text, const char *prefix)
{
	int n = 0;
	size_t plen = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, prefix, plen))
			n++;
	return n;
}

/* --- the SMTP sink ----------------------------------------------------------- */

struct sink {
	pid_t pid;
	char *dir, *port_file, *pid_file;
	unsigned port;
};

static int run_quietly(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status = -1;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) == 0)
		waitpid(pid, &status, 0);
	posix_spawn_file_actions_destroy(&fa);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int have_aiosmtpd(void)
{
	char *argv[] = { (char *)PYTHON, (char *)"-c", (char *)"import aiosmtpd.smtp", NULL };

	return access(PYTHON, X_OK) == 0 && run_quietly(argv) == 0;
}

static const char *top_srcdir(void)
{
	const char *d = getenv("top_srcdir");

	return d && *d ? d : ABS_SRCDIR;
}

/* Starts the sink with extra arguments (NULL-terminated); 1 when listening. */
static int sink_start(struct sink *k, const char *name, const char *const *extra)
{
	char *script = str_printf("%s/tests/lib/smtp_sink.py", top_srcdir());
	const char *argv[32];
	size_t n = 0;
	posix_spawn_file_actions_t fa;
	int ok_started = 0;

	memset(k, 0, sizeof(*k));
	k->dir = str_printf("%s/%s", base, name);
	k->port_file = str_printf("%s/%s.port", base, name);
	k->pid_file = str_printf("%s/%s.pid", base, name);
	argv[n++] = PYTHON;
	argv[n++] = script;
	argv[n++] = "--port-file";
	argv[n++] = k->port_file;
	argv[n++] = "--dir";
	argv[n++] = k->dir;
	argv[n++] = "--pid-file";
	argv[n++] = k->pid_file;
	for (; extra && *extra && n < 30; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 2, 1); /* keep TAP output clean */
	if (posix_spawn(&k->pid, PYTHON, &fa, NULL, (char *const *)argv, environ) != 0)
		k->pid = 0;
	posix_spawn_file_actions_destroy(&fa);
	for (int i = 0; k->pid && i < 300; i++) {
		size_t len;
		char *port = tap_slurp(k->port_file, &len);

		if (port) {
			k->port = (unsigned)strtoul(port, NULL, 10);
			free(port);
			ok_started = k->port > 0;
			break;
		}
		if (waitpid(k->pid, NULL, WNOHANG) == k->pid) {
			k->pid = 0;
			break;
		}
		usleep(50 * 1000);
	}
	free(script);
	return ok_started;
}

static void sink_stop(struct sink *k)
{
	if (k->pid > 0) {
		kill(k->pid, SIGTERM);
		waitpid(k->pid, NULL, 0);
		k->pid = 0;
	}
	free(k->dir);
	free(k->port_file);
	free(k->pid_file);
	k->dir = k->port_file = k->pid_file = NULL;
}

static void sink_control(struct sink *k, const char *json)
{
	char *tmp = str_printf("%s/control.json.tmp", k->dir);
	char *path = str_printf("%s/control.json", k->dir);
	FILE *f = fopen(tmp, "w");

	if (f) {
		fputs(json, f);
		fclose(f);
		rename(tmp, path);
	}
	free(tmp);
	free(path);
}

static int sink_count(struct sink *k)
{
	int n = 0;

	for (;;) {
		char *p = str_printf("%s/%d.json", k->dir, n + 1);
		int there = access(p, F_OK) == 0;

		free(p);
		if (!there)
			return n;
		n++;
	}
}

static char *sink_file(struct sink *k, int n, const char *ext)
{
	char *p = str_printf("%s/%d.%s", k->dir, n, ext);
	size_t len;
	char *text = tap_slurp(p, &len);

	free(p);
	return text;
}

/* How many stored messages carry Message-ID <id>; *last gets the number of
 * the last one. */
static int sink_copies(struct sink *k, const char *id, int *last)
{
	char *needle = str_printf("\nMessage-ID: <%s>\n", id);
	int copies = 0, total = sink_count(k);

	for (int i = 1; i <= total; i++) {
		char *text = sink_file(k, i, "eml");

		if (text && strstr(text, needle)) {
			copies++;
			if (last)
				*last = i;
		}
		free(text);
	}
	free(needle);
	return copies;
}

/* --- tests ------------------------------------------------------------------- */

static void test_queue(struct store *db)
{
	struct bb_error err = BB_ERROR_INIT;
	char *bad[] = { (char *)"two words@example.org", NULL }, *none[] = { NULL };
	unsigned long queued, sent, failed;
	struct row r;

	ok(add(db, "q1@test", 0, recipients), "queue a mail");
	ok(add(db, "q1@test", 0, recipients), "queueing it again is a no-op");
	ok(outbox_counts(db, &queued, &sent, &failed, &err) == BB_OK && queued == 1 && sent == 0 &&
	   failed == 0, "one queued row");
	ok(get_row(db, "q1@test", &r), "row is there");
	is_str(r.recipients, "list@example.org, p@example.org", "envelope recipients, bare, joined");
	is_str(r.state, "queued", "state queued");
	row_release(&r);
	is_int(outbox_add(db, "q2@test", 1, 0, SENDER, bad, "x\n", 2, &err), BB_ERR_INVALID,
	       "unusable recipient refused");
	is_int(outbox_add(db, "q2@test", 1, 0, SENDER, none, "x\n", 2, &err), BB_ERR_INVALID,
	       "no recipients refused");
	{
		const char *crlf = "Subject: x\r\nMessage-ID: <q3@test>\r\n\r\nbody\r\n";

		ok(outbox_add(db, "q3@test", 1, 0, SENDER, recipients, crlf, strlen(crlf), &err) == BB_OK,
		   "queue a CRLF message");
		ok(get_row(db, "q3@test", &r) && r.message && !strchr(r.message, '\r'),
		   "stored CRLF-free");
		row_release(&r);
	}
}

static void test_maildir(struct store *db)
{
	struct outbox_options opt = { 0 };
	struct outbox_stats st;
	struct bb_error err = BB_ERROR_INIT;
	char *maildir = str_printf("%s/Maildir", base);
	char *new_dir = str_printf("%s/new", maildir), *tmp_dir = str_printf("%s/tmp", maildir);
	DIR *d;
	struct dirent *de;
	int files = 0, matched = 0, tmp_files = 0;
	struct row r1, r2, r3;

	opt.maildir = maildir;
	ok(add(db, "md2@test", 1, recipients), "queue a second mail");
	{
		/* another delivery holds the outbox: this one sends nothing */
		char *lock_path = str_printf("%s/state.db.deliver-lock", base);
		int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

		ok(fd >= 0 && flock(fd, LOCK_EX) == 0, "hold the delivery lock as another process would");
		ok(outbox_deliver(db, &opt, 1000, &st, &err) == BB_OK && st.sent == 0,
		   "a delivery while another runs sends nothing");
		if (fd >= 0)
			close(fd);
		free(lock_path);
	}
	ok(outbox_deliver(db, &opt, 1000, &st, &err) == BB_OK, "deliver to a Maildir (%s)", err.message);
	is_int(st.sent, 3, "three mails delivered");
	is_int(st.deferred + st.failed, 0, "none deferred or failed");
	get_row(db, "q1@test", &r1);
	get_row(db, "md2@test", &r2);
	get_row(db, "q3@test", &r3);
	d = opendir(new_dir);
	while (d && (de = readdir(d))) {
		char *path, *text;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		files++;
		path = str_printf("%s/%s", new_dir, de->d_name);
		text = tap_slurp(path, &len);
		if (text && ((len == r1.len && !memcmp(text, r1.message, len)) ||
			     (len == r2.len && !memcmp(text, r2.message, len)) ||
			     (len == r3.len && !memcmp(text, r3.message, len))))
			matched++;
		free(text);
		free(path);
	}
	if (d)
		closedir(d);
	is_int(files, 3, "three files in new/");
	is_int(matched, 3, "each file holds one queued message byte for byte");
	d = opendir(tmp_dir);
	while (d && (de = readdir(d)))
		tmp_files += de->d_name[0] != '.';
	if (d)
		closedir(d);
	is_int(tmp_files, 0, "nothing left in tmp/");
	is_str(r1.state, "sent", "row marked sent");
	is_int(r1.sent, 1000, "sent time recorded");
	row_release(&r1);
	row_release(&r2);
	row_release(&r3);
	ok(outbox_deliver(db, &opt, 1001, &st, &err) == BB_OK && st.sent == 0,
	   "second delivery finds nothing to do");
	free(maildir);
	free(new_dir);
	free(tmp_dir);
}

static void test_mbox(struct store *db)
{
	struct outbox_options opt = { 0 };
	struct outbox_stats st;
	struct bb_error err = BB_ERROR_INIT;
	char *mbox = str_printf("%s/out/outgoing.mbox", base);
	char *text;
	size_t len = 0;

	opt.mbox = mbox;
	opt.maildir = "/nonexistent/not-used";
	ok(add(db, "mb1@test", 0, recipients) && add(db, "mb2@test", 1, recipients), "queue two");
	ok(outbox_deliver(db, &opt, 1100, &st, &err) == BB_OK && st.sent == 2,
	   "deliver to an mbox (%s)", err.message);
	text = tap_slurp(mbox, &len);
	ok(text != NULL, "the mbox exists");
	ok(text && !strncmp(text, "From bb@example.org ", 20), "starts with a From_ line");
	is_int(text ? count_lines_starting(text, "From ") : -1, 2, "one From_ line per mail");
	is_int(text ? count_lines_starting(text, ">From the start") : -1, 2, "From lines quoted");
	is_int(text ? count_lines_starting(text, ">>From already quoted") : -1, 2,
	       "quoted From lines quoted once more (mboxrd)");
	ok(text && len >= 2 && text[len - 1] == '\n' && text[len - 2] == '\n', "ends with a blank line");
	free(text);
	ok(add(db, "mb3@test", 0, recipients), "queue a third");
	ok(outbox_deliver(db, &opt, 1200, &st, &err) == BB_OK && st.sent == 1, "append it");
	text = tap_slurp(mbox, &len);
	is_int(text ? count_lines_starting(text, "From ") : -1, 3, "appended, three From_ lines");
	ok(text && strstr(text, "footer\n\nFrom bb@example.org"), "entries separated by a blank line");
	free(text);
	free(mbox);
}

/* The mode bits of path, -1 if it cannot be read. */
static int mode_of(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? (int)(sb.st_mode & 07777) : -1;
}

/* The one file in dir (str_printf()'d; NULL unless exactly one). */
static char *only_file(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *found = NULL;
	int n = 0;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n++ == 0)
			found = str_printf("%s/%s", dir, de->d_name);
	}
	if (d)
		closedir(d);
	if (n != 1) {
		free(found);
		found = NULL;
	}
	return found;
}

/* The outbox's Maildir and mbox hold /confirm/<token> links wherever they
 * are: the data folder's modes (0750, 0640), whatever the umask; a folder
 * or mbox an older version made world-readable is narrowed. */
static void test_private_modes(struct store *db)
{
	static const mode_t umasks[] = { 022, 0, 077 };
	struct outbox_options opt = { 0 };
	struct outbox_stats st;
	struct bb_error err = BB_ERROR_INIT;
	mode_t old = umask(0);
	size_t i;

	for (i = 0; i < sizeof(umasks) / sizeof(umasks[0]); i++) {
		char *maildir = str_printf("%s/modes-%03o/Maildir", base, (unsigned)umasks[i]);
		char *mbox = str_printf("%s/modes-%03o/out/outgoing.mbox", base, (unsigned)umasks[i]);
		char *mid = str_printf("modes-%03o@test", (unsigned)umasks[i]);
		char *mid2 = str_printf("modes-%03o-mbox@test", (unsigned)umasks[i]);
		char *new_dir = str_printf("%s/new", maildir), *file;
		static const char *const subdirs[] = { "", "/tmp", "/new", "/cur" };

		umask(umasks[i]);
		opt.maildir = maildir;
		opt.mbox = NULL;
		ok(add(db, mid, 0, recipients) &&
		   outbox_deliver(db, &opt, 1300, &st, &err) == BB_OK && st.sent == 1,
		   "umask %03o: deliver to a new Maildir (%s)", (unsigned)umasks[i], err.message);
		for (size_t j = 0; j < 4; j++) {
			char *sub = str_printf("%s%s", maildir, subdirs[j]);

			is_int(mode_of(sub), 0750, "  %s is 0750", subdirs[j][0] ? subdirs[j] + 1 : "the Maildir");
			free(sub);
		}
		file = only_file(new_dir);
		is_int(file ? mode_of(file) : -1, 0640, "  the mail in new/ is 0640");
		free(file);
		opt.mbox = mbox;
		ok(add(db, mid2, 0, recipients) &&
		   outbox_deliver(db, &opt, 1300, &st, &err) == BB_OK && st.sent == 1,
		   "umask %03o: deliver to a new mbox (%s)", (unsigned)umasks[i], err.message);
		is_int(mode_of(mbox), 0640, "  the mbox is 0640");
		free(maildir);
		free(mbox);
		free(mid);
		free(mid2);
		free(new_dir);
	}

	/* as an older version left them, under umask 022 */
	umask(022);
	{
		char *maildir = str_printf("%s/modes-old/Maildir", base);
		char *mbox = str_printf("%s/modes-old/old.mbox", base);
		char *cur = str_printf("%s/cur", maildir);
		char *parent = str_printf("%s/modes-old", base);
		int fd;

		ok(mkdir(parent, 0755) == 0 && mkdir(maildir, 0755) == 0 &&
		   mkdir(cur, 0755) == 0 && chmod(maildir, 0755) == 0 && chmod(cur, 0755) == 0,
		   "an old Maildir, 0755");
		fd = open(mbox, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		ok(fd >= 0 && fchmod(fd, 0644) == 0, "an old mbox, 0644");
		if (fd >= 0)
			close(fd);
		opt.maildir = maildir;
		opt.mbox = NULL;
		ok(add(db, "modes-old@test", 0, recipients) &&
		   outbox_deliver(db, &opt, 1300, &st, &err) == BB_OK && st.sent == 1,
		   "deliver to the old Maildir (%s)", err.message);
		is_int(mode_of(maildir), 0750, "  the Maildir is narrowed to 0750");
		opt.mbox = mbox;
		ok(add(db, "modes-old-mbox@test", 0, recipients) &&
		   outbox_deliver(db, &opt, 1300, &st, &err) == BB_OK && st.sent == 1,
		   "deliver to the old mbox (%s)", err.message);
		is_int(mode_of(mbox), 0640, "  the mbox is narrowed to 0640");
		free(maildir);
		free(mbox);
		free(cur);
		free(parent);
	}
	umask(old);
}

static struct outbox_options smtp_options(const struct sink *k)
{
	struct outbox_options opt = { 0 };

	opt.smtp_host = "127.0.0.1";
	opt.smtp_port = k->port;
	opt.starttls = "no";
	opt.timeout = 10;
	opt.batch = 2;
	opt.retry_min = 60;
	opt.retry_max = 600;
	return opt;
}

static void test_smtp(struct store *db)
{
	struct sink k;
	struct outbox_options opt;
	struct outbox_stats st;
	struct bb_error err = BB_ERROR_INIT;
	struct row r;
	unsigned long count;
	int last = 0;
	char id[64];

	if (!ok(sink_start(&k, "sink", NULL), "start the SMTP sink")) {
		sink_stop(&k);
		return;
	}
	opt = smtp_options(&k);

	/* a batch: five mails over three sessions of two */
	for (int i = 1; i <= 5; i++) {
		snprintf(id, sizeof(id), "s%d@test", i);
		add(db, id, i == 3, recipients);
	}
	ok(outbox_deliver(db, &opt, 2000, &st, &err) == BB_OK, "deliver over SMTP (%s)", err.message);
	is_int(st.sent, 5, "five sent");
	is_int(st.deferred + st.failed, 0, "nothing deferred or failed");
	is_int(sink_count(&k), 5, "the server stored five");
	for (int i = 1; i <= 5; i++) {
		char *eml, *json;

		snprintf(id, sizeof(id), "s%d@test", i);
		is_int(sink_copies(&k, id, &last), 1, "%s arrived once", id);
		eml = sink_file(&k, last, "eml");
		json = sink_file(&k, last, "json");
		get_row(db, id, &r);
		ok(eml && r.message && !strcmp(eml, r.message), "%s arrived byte for byte", id);
		ok(json && strstr(json, "\"mail_from\": \"bb@example.org\"") &&
		   strstr(json, "\"rcpt_tos\": [\"list@example.org\", \"p@example.org\"]"),
		   "%s envelope is right", id);
		if (i == 3)
			ok(json && strstr(json, "BODY=8BITMIME"), "8-bit mail announced as 8BITMIME");
		is_str(r.state, "sent", "%s marked sent", id);
		row_release(&r);
		free(eml);
		free(json);
	}

	/* 4xx: deferred with backoff, then delivered */
	sink_control(&k, "{\"fail_rcpt_code\": 451, \"fail_rcpt_count\": 1}");
	add(db, "t4@test", 0, recipients);
	ok(outbox_deliver(db, &opt, 3000, &st, &err) == BB_OK && st.deferred == 1 && st.sent == 0,
	   "451: deferred");
	get_row(db, "t4@test", &r);
	is_str(r.state, "queued", "still queued");
	is_int(r.attempts, 1, "one attempt counted");
	is_int(r.next_attempt, 3060, "next attempt after retry_min");
	ok(strstr(r.last_error, "451") != NULL, "last_error has the server's reply: %s", r.last_error);
	row_release(&r);
	ok(outbox_deliver(db, &opt, 3059, &st, &err) == BB_OK && st.sent + st.deferred == 0,
	   "not due yet: nothing happens");
	sink_control(&k, "{\"fail_rcpt_code\": 450, \"fail_rcpt_count\": 1}");
	ok(outbox_deliver(db, &opt, 3060, &st, &err) == BB_OK && st.deferred == 1, "450: deferred again");
	get_row(db, "t4@test", &r);
	is_int(r.next_attempt, 3060 + 120, "backoff doubles");
	row_release(&r);
	ok(outbox_deliver(db, &opt, 3180, &st, &err) == BB_OK && st.sent == 1, "then delivered");
	is_int(sink_copies(&k, "t4@test", NULL), 1, "arrived once");

	/* 5xx: failed, with the server's text; outbox_retry requeues it */
	sink_control(&k, "{\"fail_data_code\": 554, \"fail_data_count\": 1}");
	add(db, "t5@test", 0, recipients);
	ok(outbox_deliver(db, &opt, 4000, &st, &err) == BB_OK && st.failed == 1, "554: failed");
	get_row(db, "t5@test", &r);
	is_str(r.state, "failed", "state failed");
	ok(strstr(r.last_error, "554") && strstr(r.last_error, "rejected for good"),
	   "last_error holds code and text: %s", r.last_error);
	row_release(&r);
	is_int(sink_copies(&k, "t5@test", NULL), 0, "the server kept nothing");
	ok(outbox_retry(db, &count, &err) == BB_OK && count == 1, "outbox_retry requeues one");
	get_row(db, "t5@test", &r);
	ok(!strcmp(r.state, "queued") && r.next_attempt == 0 && r.attempts == 0, "queued, due now");
	row_release(&r);
	ok(outbox_deliver(db, &opt, 4001, &st, &err) == BB_OK && st.sent == 1, "delivered after retry");
	is_int(sink_copies(&k, "t5@test", NULL), 1, "arrived once");

	/* one recipient refused for good, the other takes it */
	sink_control(&k, "{\"fail_rcpt_code\": 550, \"fail_rcpt_count\": 1,"
			 " \"fail_rcpt_match\": \"p@example.org\"}");
	add(db, "t6@test", 0, recipients);
	ok(outbox_deliver(db, &opt, 4100, &st, &err) == BB_OK && st.sent == 1, "550 for one: sent");
	get_row(db, "t6@test", &r);
	ok(strstr(r.last_error, "p@example.org") && strstr(r.last_error, "550"),
	   "the refused recipient is noted: %s", r.last_error);
	row_release(&r);
	/* one recipient deferred: only it is tried again */
	sink_control(&k, "{\"fail_rcpt_code\": 451, \"fail_rcpt_count\": 1,"
			 " \"fail_rcpt_match\": \"p@example.org\"}");
	add(db, "t7@test", 0, recipients);
	ok(outbox_deliver(db, &opt, 4200, &st, &err) == BB_OK && st.deferred == 1, "451 for one: deferred");
	get_row(db, "t7@test", &r);
	is_str(r.recipients, "p@example.org", "only the deferred recipient is left");
	row_release(&r);
	sink_control(&k, "{\"fail_rcpt_match\": null}");
	ok(outbox_deliver(db, &opt, 4260, &st, &err) == BB_OK && st.sent == 1, "then sent to it");
	{
		int copies = sink_copies(&k, "t7@test", &last);
		char *json = sink_file(&k, last, "json");

		is_int(copies, 2, "two transactions, one per recipient");
		ok(json && strstr(json, "\"rcpt_tos\": [\"p@example.org\"]"), "the second one to p only");
		free(json);
	}

	/* the server is down: deferred, nothing lost */
	{
		struct outbox_options down = opt;
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t salen = sizeof(sa);
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		/* a port nobody listens on: bind one, note it, close it */
		bind(fd, (struct sockaddr *)&sa, sizeof(sa));
		getsockname(fd, (struct sockaddr *)&sa, &salen);
		close(fd);
		down.smtp_port = ntohs(sa.sin_port);
		add(db, "t8@test", 0, recipients);
		add(db, "t9@test", 0, recipients);
		ok(outbox_deliver(db, &down, 5000, &st, &err) == BB_OK && st.deferred == 2 && st.sent == 0,
		   "connection refused: both deferred");
		get_row(db, "t8@test", &r);
		ok(!strcmp(r.state, "queued") && r.attempts == 1 && r.next_attempt == 5060 &&
		   r.message && strstr(r.message, "Message-ID: <t8@test>"),
		   "still queued, message intact: %s", r.last_error);
		ok(r.last_error[0] != '\0', "the reason is recorded");
		row_release(&r);
		ok(outbox_deliver(db, &opt, 5060, &st, &err) == BB_OK && st.sent == 2,
		   "delivered once the server is back");
		ok(sink_copies(&k, "t8@test", NULL) == 1 && sink_copies(&k, "t9@test", NULL) == 1,
		   "each arrived once");
	}

	/* the connection drops in the middle of a batch */
	{
		struct outbox_options big = opt;
		int total = 0, dups = 0, lost = 0, dup_is_d3 = 1;

		big.batch = 10;
		sink_control(&k, "{\"drop_after\": 2, \"drop_store\": true}");
		for (int i = 1; i <= 5; i++) {
			snprintf(id, sizeof(id), "d%d@test", i);
			add(db, id, 0, recipients);
		}
		ok(outbox_deliver(db, &big, 6000, &st, &err) == BB_OK, "deliver into a dropped connection");
		is_int(st.sent, 2, "two were answered before the drop");
		is_int(st.deferred, 3, "the one in flight and the rest are deferred");
		ok(outbox_deliver(db, &big, 6060, &st, &err) == BB_OK && st.sent == 3, "the rest later");
		for (int i = 1; i <= 5; i++) {
			int c;

			snprintf(id, sizeof(id), "d%d@test", i);
			c = sink_copies(&k, id, NULL);
			total += c;
			lost += c == 0;
			if (c > 1) {
				dups += c - 1;
				dup_is_d3 &= i == 3;
			}
			get_row(db, id, &r);
			ok(!strcmp(r.state, "sent"), "%s sent", id);
			row_release(&r);
		}
		is_int(lost, 0, "nothing lost");
		ok(dups <= 1 && dup_is_d3, "no duplicate beyond the mail in flight (%d copies)", total);
	}
	sink_stop(&k);
}

/* A certificate for 127.0.0.1 made with openssl(1), for a sink that offers
 * STARTTLS; the outbox trusts it through outbox_options.ca_file.  0
 * without openssl. */
static int tls_setup(char **cert, char **key)
{
	char *cmd;
	int rc;

	*cert = str_printf("%s/sink-cert.pem", base);
	*key = str_printf("%s/sink-key.pem", base);
	cmd = str_printf("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1"
			 " -addext subjectAltName=DNS:127.0.0.1,IP:127.0.0.1"
			 " -keyout '%s' -out '%s' >/dev/null 2>&1", *key, *cert);
	rc = system(cmd);
	free(cmd);
	return rc == 0;
}

/* When a deferred row is due again. */
static long long due(struct store *db, const char *id)
{
	struct row r;
	long long t;

	get_row(db, id, &r);
	t = r.next_attempt;
	row_release(&r);
	return t;
}

/* The sink's events of a kind, as the lines of its events.log. */
static int sink_events(struct sink *k, const char *kind, const char *also)
{
	char *path = str_printf("%s/events.log", k->dir), *text, *want;
	size_t len;
	int n = 0;

	text = tap_slurp(path, &len);
	want = str_printf("\"event\": \"%s\"", kind);
	for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n"))
		if (strstr(line, want) && (!also || strstr(line, also)))
			n++;
	free(want);
	free(text);
	free(path);
	return n;
}

static void test_auth(struct store *db)
{
	const char *plain[] = { "--auth-user", "bb", "--auth-password", PASSWORD, NULL };
	const char *with_tls[] = { "--auth-user", "bb", "--auth-password", PASSWORD,
				   "--tls-cert", NULL, "--tls-key", NULL, NULL };
	struct sink k;
	struct outbox_options opt;
	struct outbox_stats st;
	struct bb_error err = BB_ERROR_INIT;
	struct row r;
	char *log_path = str_printf("%s/log.txt", base), *log_text;
	char *cert = NULL, *key = NULL;
	FILE *log = fopen(log_path, "w");
	size_t len;

	log_setup(log, LOG_LEVEL_DEBUG, "testrun1");

	/* A server (or someone between) that offers no STARTTLS never gets
	 * the password: not by default, not with "try", and "no" is refused */
	if (!ok(sink_start(&k, "authsink", plain), "start a sink that takes AUTH in clear")) {
		sink_stop(&k);
		goto out;
	}
	opt = smtp_options(&k);
	opt.starttls = NULL;	/* the default */
	add(db, "a0@test", 0, recipients);
	opt.user = "bb";
	opt.password = PASSWORD;
	ok(outbox_deliver(db, &opt, 6900, &st, &err) == BB_ERR_CONFIG && st.sent == 0 &&
	   st.deferred == 1, "no STARTTLS offered: not sent, and a configuration error (%s)",
	   err.message);
	ok(strstr(err.message, "offers no STARTTLS") != NULL, "which says why");
	get_row(db, "a0@test", &r);
	ok(strstr(r.last_error, "offers no STARTTLS") != NULL, "and the row says why: %s",
	   r.last_error);
	row_release(&r);
	opt.starttls = "try";
	ok(outbox_deliver(db, &opt, due(db, "a0@test"), &st, &err) == BB_ERR_CONFIG && st.sent == 0 &&
	   st.deferred == 1, "starttls = try with a login: not sent either");
	opt.starttls = "no";
	ok(outbox_deliver(db, &opt, due(db, "a0@test"), &st, &err) == BB_ERR_CONFIG,
	   "starttls = no with a login is refused (%s)", err.message);
	is_int(sink_events(&k, "auth", NULL), 0, "the server never saw AUTH");
	is_int(sink_copies(&k, "a0@test", NULL), 0, "nor the mail");
	sink_stop(&k);

	/* Over STARTTLS, AUTH works */
	if (!tls_setup(&cert, &key)) {
		printf("ok %d # SKIP openssl(1) cannot make a test certificate\n", ++tap_count);
		goto out;
	}
	with_tls[5] = cert;
	with_tls[7] = key;
	if (!ok(sink_start(&k, "tlssink", with_tls), "start a sink that offers STARTTLS")) {
		sink_stop(&k);
		goto out;
	}
	opt = smtp_options(&k);
	opt.starttls = NULL;
	opt.ca_file = cert;
	add(db, "a1@test", 0, recipients);
	opt.user = "bb";
	opt.password = "wrong";
	{
		/* a login the server refuses is the admin's to fix: a
		 * configuration error with the server's words, the mail kept
		 * (a session the loaded sink drops after STARTTLS is tried
		 * again) */
		enum bb_status ds = BB_OK;

		for (int attempt = 0; attempt < 5 && ds != BB_ERR_CONFIG; attempt++) {
			bb_error_clear(&err);
			ds = outbox_deliver(db, &opt, 7200 + attempt * 3600, &st, &err);
		}
		ok(ds == BB_ERR_CONFIG && st.deferred >= 1 && st.failed == 0 && st.sent == 0,
		   "wrong password: a configuration error, the mail deferred, not failed");
		ok(strstr(err.message, "refused the login of bb") && strstr(err.message, "53"),
		   "saying so with the server's words (%s)", err.message);
		ok(!strstr(err.message, "wrong"), "without the password");
	}
	get_row(db, "a1@test", &r);
	diag("after a wrong password: %s", r.last_error);
	row_release(&r);
	opt.password = PASSWORD;
	{
		/* A loaded machine can make the test sink (aiosmtpd) drop a
		 * session right after STARTTLS; the outbox defers then, and the
		 * next run sends.  What counts is that both go out, once. */
		unsigned sent = 0;

		for (int attempt = 0; attempt < 5 && sent < 2; attempt++) {
			long long t0 = due(db, "a0@test"), t1 = due(db, "a1@test");

			if (outbox_deliver(db, &opt, t0 > t1 ? t0 : t1, &st, &err) != BB_OK)
				break;
			sent += st.sent;
		}
		is_int(sent, 2, "right password: both sent (%s)", err.message);
	}
	{
		int last = 0;
		char *json;

		is_int(sink_copies(&k, "a1@test", &last), 1, "arrived once");
		json = sink_file(&k, last, "json");
		ok(json && strstr(json, "\"auth_login\": \"bb\""), "the server saw the login");
		free(json);
	}
	ok(sink_events(&k, "starttls", NULL) >= 2, "every session took STARTTLS");
	if (!ok(sink_events(&k, "auth", "\"success\": true") >= 1 &&
		sink_events(&k, "auth", "\"tls\": false") == 0, "and AUTH came only inside TLS")) {
		char *path = str_printf("%s/events.log", k.dir), *text = tap_slurp(path, &len);

		diag("the sink's events:\n%s", text ? text : "(none)");
		free(text);
		free(path);
	}
	get_row(db, "a0@test", &r);
	is_str(r.state, "sent", "the mail held back from the stripped session went out over TLS");
	row_release(&r);

	/* A certificate nobody vouches for is refused before AUTH */
	{
		int auths = sink_events(&k, "auth", NULL);

		opt.ca_file = NULL;	/* the system's CAs do not know the test's */
		add(db, "a2@test", 0, recipients);
		ok(outbox_deliver(db, &opt, 7300, &st, &err) == BB_ERR_CONFIG && st.sent == 0 &&
		   st.deferred == 1, "an untrusted certificate: not sent, a configuration error (%s)",
		   err.message);
		get_row(db, "a2@test", &r);
		ok(strstr(r.last_error, "certificate is not trusted") != NULL, "and the row says why: %s",
		   r.last_error);
		row_release(&r);
		is_int(sink_events(&k, "auth", NULL), auths, "the server saw no AUTH");
	}
	sink_stop(&k);
out:
	log_setup(NULL, LOG_LEVEL_ERROR, "testrun1");
	if (log)
		fclose(log);
	log_text = tap_slurp(log_path, &len);
	ok(log_text && strstr(log_text, "event=outbox.delivery"), "deliveries are logged");
	ok(log_text && !strstr(log_text, PASSWORD), "the password never reaches the log");
	free(log_text);
	free(log_path);
	free(cert);
	free(key);
}

static enum bb_status count_row(void *ctx, const struct outbox_row *r)
{
	unsigned long *n = ctx;

	(*n) += r->message_id && r->state && r->recipients;
	return BB_OK;
}

static void test_listing(struct store *db)
{
	struct bb_error err = BB_ERROR_INIT;
	unsigned long queued, sent, failed, listed = 0, all = 0;

	enum bb_status s1, s2;

	ok(outbox_counts(db, &queued, &sent, &failed, &err) == BB_OK, "counts");
	s1 = outbox_each(db, "sent", count_row, &listed, &err);
	ok(s1 == BB_OK && listed == sent, "outbox_each lists the sent rows (%lu of %lu)", listed, sent);
	s2 = outbox_each(db, NULL, count_row, &all, &err);
	ok(s2 == BB_OK && all == queued + sent + failed,
	   "outbox_each lists all rows (%lu)", all);
}

int main(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct store *db = NULL;
	char *path, *cmd;

	if (!mkdtemp(base)) {
		printf("Bail out! no temp folder\n");
		return 1;
	}
	path = str_printf("%s/state.db", base);
	if (!ok(store_open(&db, path, STORE_READ_WRITE, &err) == BB_OK, "open the store (%s)", err.message))
		return done_testing();
	test_queue(db);
	test_maildir(db);
	test_mbox(db);
	test_private_modes(db);
	if (have_aiosmtpd()) {
		test_smtp(db);
		test_auth(db);
	} else {
		printf("ok %d # SKIP python3-aiosmtpd not installed\n", ++tap_count);
	}
	test_listing(db);
	store_close(db);
	cmd = str_printf("rm -rf '%s'", base);
	if (!tap_failed && system(cmd) != 0)
		diag("could not remove %s", base);
	free(cmd);
	free(path);
	return done_testing();
}
