/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/: buffer, status codes, logging, file helpers, how
 * people are named in what is published, child processes piped into each
 * other. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/clock.h"
#include "core/digest.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/run.h"
#include "core/status.h"
#include "core/text.h"
#include "tests/unit/tap.h"

static void test_buf(void)
{
	struct buf b = BUF_INIT;
	size_t len;
	char *p;

	is_int(b.len, 0, "empty buf has length 0");
	is_str(b.data, "", "empty buf is an empty string");
	ok(buf_addstr(&b, "hello") == BB_OK, "append a string");
	ok(buf_addch(&b, ' ') == BB_OK && buf_addf(&b, "%d-%s", 42, "x") == BB_OK, "append char and format");
	is_str(b.data, "hello 42-x", "contents after appends");
	is_int(b.len, 10, "length after appends");
	ok(buf_add(&b, "\0bin", 4) == BB_OK && b.len == 14 && b.data[14] == '\0' && b.data[10] == '\0',
	   "binary data keeps embedded NUL and a terminating NUL");
	buf_truncate(&b, 5);
	is_str(b.data, "hello", "truncate");
	for (int i = 0; i < 10000; i++)
		buf_addch(&b, 'a');
	is_int(b.len, 10005, "grows past many reallocations");
	p = buf_detach(&b, &len);
	is_int(len, 10005, "detach gives the length");
	ok(b.len == 0 && b.data[0] == '\0', "detach leaves the buf empty");
	free(p);
	p = buf_detach(&b, NULL);
	ok(p && p[0] == '\0', "detaching an empty buf gives a freeable empty string");
	free(p);

	buf_init_capped(&b, 8);
	ok(buf_addstr(&b, "12345678") == BB_OK, "capped buf takes up to its cap");
	is_int(buf_addch(&b, '9'), BB_ERR_TOO_LARGE, "one byte past the cap is refused");
	is_str(b.data, "12345678", "refused append leaves contents unchanged");
	is_int(buf_addf(&b, "%s", "x"), BB_ERR_TOO_LARGE, "formatted append past the cap is refused");
	buf_release(&b);
	is_int(b.cap, 8, "release keeps the cap");
	buf_release(&b);

	p = str_printf("%s/%03d", "dir", 7);
	is_str(p, "dir/007", "str_printf");
	free(p);
}

static void test_status(void)
{
	struct bb_error err = BB_ERROR_INIT;

	is_str(status_str(BB_OK), "ok", "status name of ok");
	is_str(status_str(BB_ERR_NOT_FOUND), "not-found", "status name of not-found");
	is_str(status_str((enum bb_status)999), "unknown", "unknown status has a name");
	is_int(status_retry_class(BB_ERR_TEMPORARY), BB_RETRY_LATER, "temporary -> retry later");
	is_int(status_retry_class(BB_ERR_IO), BB_RETRY_NOW, "io -> retry now");
	is_int(status_retry_class(BB_ERR_AUTH), BB_RETRY_GIVE_UP, "auth -> give up");
	is_int(status_retry_class(BB_ERR_NO_SPACE), BB_RETRY_LATER, "disk full -> retry later");
	is_int(status_from_http(200), BB_OK, "HTTP 200");
	is_int(status_from_http(206), BB_OK, "HTTP 206");
	is_int(status_from_http(401), BB_ERR_AUTH, "HTTP 401");
	is_int(status_from_http(403), BB_ERR_AUTH, "HTTP 403");
	is_int(status_from_http(404), BB_ERR_NOT_FOUND, "HTTP 404");
	is_int(status_from_http(429), BB_ERR_TEMPORARY, "HTTP 429");
	is_int(status_from_http(503), BB_ERR_TEMPORARY, "HTTP 503");
	is_int(status_from_http(500), BB_ERR_TEMPORARY, "HTTP 500");
	is_int(status_from_http(400), BB_ERR_INVALID, "HTTP 400");
	is_int(status_from_http(413), BB_ERR_TOO_LARGE, "HTTP 413");
	is_int(status_from_smtp(250), BB_OK, "SMTP 250");
	is_int(status_from_smtp(451), BB_ERR_TEMPORARY, "SMTP 451");
	is_int(status_retry_class(status_from_smtp(550)), BB_RETRY_GIVE_UP, "SMTP 550 gives up");
	is_int(status_from_smtp(535), BB_ERR_AUTH, "SMTP 535");
	is_int(status_from_errno(ENOSPC), BB_ERR_NO_SPACE, "ENOSPC");
	is_int(status_from_errno(ENOENT), BB_ERR_NOT_FOUND, "ENOENT");
	is_int(status_from_errno(EACCES), BB_ERR_PERMISSION, "EACCES");
	is_int(bb_error_errno(&err, ENOENT, "cannot open %s", "x"), BB_ERR_NOT_FOUND,
	       "bb_error_errno returns the folded code");
	is_str(err.message, "cannot open x: No such file or directory", "bb_error_errno message");
	bb_error_clear(&err);
	is_int(err.code, BB_OK, "clear resets the code");
	is_int(bb_error_set(NULL, BB_ERR_IO, "ignored"), BB_ERR_IO, "NULL error pointer is allowed");
}

static void test_log(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	log_setup(f, LOG_LEVEL_INFO, "abcd1234");
	log_event(LOG_LEVEL_INFO, "unit.test", LF_STR("name", "two words"), LF_INT("n", -5),
		  LF_UINT("size", 42), LF_STR("upload_token", "s3cr3t"),
		  LF_SECRET("x", "hunter2"), LF_STR("api_key", "k3y"), LF_STR("nl", "a\nb"));
	log_event(LOG_LEVEL_DEBUG, "unit.hidden", LF_STR("k", "v"));
	fflush(f);
	ok(strstr(text, "level=info run=abcd1234 event=unit.test") != NULL, "line has level, run and event");
	ok(strstr(text, "name=\"two words\"") != NULL, "values with spaces are quoted");
	ok(strstr(text, "n=-5 size=42") != NULL, "numbers are written plainly");
	ok(strstr(text, "s3cr3t") == NULL && strstr(text, "upload_token=<redacted>"),
	   "a key naming a token is redacted");
	ok(strstr(text, "hunter2") == NULL && strstr(text, "x=<redacted>"), "LF_SECRET is redacted");
	ok(strstr(text, "k3y") == NULL, "api_key is redacted");
	ok(strstr(text, "nl=\"a\\nb\"") != NULL, "newlines are escaped: one event, one line");
	ok(strstr(text, "unit.hidden") == NULL, "debug lines are filtered at info level");
	{
		int lines = 0;

		for (char *p = text; *p; p++)
			lines += *p == '\n';
		is_int(lines, 1, "exactly one line was written");
	}
	ok(strncmp(text, "ts=", 3) == 0, "line starts with a timestamp");
	log_setup(NULL, LOG_LEVEL_INFO, NULL);
	fclose(f);
	free(text);

	/* a library's GLib message becomes one record of the log */
	text = NULL;
	f = open_memstream(&text, &len);
	log_capture_glib();
	log_capture_glib();   /* a second call changes nothing */
	log_setup(f, LOG_LEVEL_INFO, "abcd1234");
	g_log("GMime", G_LOG_LEVEL_WARNING, "cannot read %s", "a\nb");
	g_log("GMime", G_LOG_LEVEL_DEBUG, "unseen");
	fflush(f);
	ok(text && strstr(text, "level=warn run=abcd1234 event=glib.message domain=GMime "
				"message=\"cannot read a\\nb\"\n"),
	   "a GLib warning is a record: level, domain and its text on one line");
	ok(text && !strstr(text, "unseen"), "a GLib debug message is not (G_MESSAGES_DEBUG unset)");
	log_setup(NULL, LOG_LEVEL_INFO, NULL);
	fclose(f);
	free(text);
	is_int(log_level_parse("debug"), LOG_LEVEL_DEBUG, "parse debug");
	is_int(log_level_parse("WARNING"), LOG_LEVEL_WARN, "parse WARNING");
	is_int(log_level_parse("loud"), -1, "reject unknown level");
	ok(log_key_is_secret("Authorization") && log_key_is_secret("smtp_password") &&
	   !log_key_is_secret("hash"), "secret key names");
}

/* 1 if the record holds exactly this "NAME=value" item (or MESSAGE's start). */
static int has_item(const struct buf *rec, const char *item)
{
	for (const char *p = rec->data; p < rec->data + rec->len; p += strlen(p) + 1)
		if (!strncmp(p, item, strlen(item)))
			return 1;
	return 0;
}

/* Under systemd with stderr on the journal, records go natively. */
static void test_journal(void)
{
	char path[] = "/tmp/bb-journal-XXXXXX", env[64], *text = NULL;
	struct buf rec = BUF_INIT;
	struct stat st;
	size_t n, items = 0, len = 0;
	int fd = mkstemp(path);
	FILE *f;

	if (!ok(fd >= 0 && fstat(fd, &st) == 0, "a stream to pretend journald gave us"))
		return;
	unsetenv("JOURNAL_STREAM");
	ok(!log_stream_is_journal(fd), "no JOURNAL_STREAM: not the journal");
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	ok(log_stream_is_journal(fd), "JOURNAL_STREAM naming the stream's device and inode: the journal");
	ok(!log_stream_is_journal(0) || isatty(0) == 0, "another stream is not");
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", env, 1);
	ok(!log_stream_is_journal(fd), "a redirected stderr (other inode) is not the journal");
	setenv("JOURNAL_STREAM", "garbage", 1);
	ok(!log_stream_is_journal(fd), "a malformed JOURNAL_STREAM is ignored");

	log_setup(NULL, LOG_LEVEL_INFO, "abcd1234");
	n = log_journal_record(LOG_LEVEL_WARN, "unit.test",
			       (const struct log_field[]){ LF_STR("hash", "ab cd"), LF_INT("n", -5),
							   LF_STR("upload_token", "s3cr3t"),
							   LF_STR("multi-line", "a\nb") }, 4, &rec);
	for (const char *p = rec.data; p < rec.data + rec.len; p += strlen(p) + 1)
		items++;
	is_int(n, 9, "five fixed fields and one per log field");
	is_int(items, n, "as many NUL-terminated items");
	ok(has_item(&rec, "PRIORITY=4"), "warn is syslog priority 4 (warning)");
	ok(has_item(&rec, "MESSAGE=unit.test hash=\"ab cd\" n=-5"),
	   "MESSAGE is the logfmt text");
	ok(has_item(&rec, "BB_EVENT=unit.test") && has_item(&rec, "BB_RUN=abcd1234"),
	   "event and run are fields of their own");
	ok(has_item(&rec, "BB_HASH=ab cd"), "fields are BB_<KEY>, values unquoted");
	ok(has_item(&rec, "BB_MULTI_LINE=a\nb"),
	   "names are upper case with '_'; values keep their newlines");
	ok(!has_item(&rec, "s3cr3t") &&
	   has_item(&rec, "BB_UPLOAD_TOKEN=<redacted>"), "secrets stay redacted");
	buf_release(&rec);

	/* Where no journald listens (this test's machine, usually), a stale
	 * JOURNAL_STREAM does not swallow the lines: they are written */
	if (access("/run/systemd/journal/socket", F_OK) != 0) {
		snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
		setenv("JOURNAL_STREAM", env, 1);
		f = fdopen(fd, "w");
		log_setup(f, LOG_LEVEL_INFO, "abcd1234");
		log_event(LOG_LEVEL_ERROR, "unit.fallback", LF_STR("k", "v"));
		log_setup(NULL, LOG_LEVEL_INFO, NULL);
		fclose(f);
		f = fopen(path, "r");
		if (f) {
			text = calloc(1, 4096);
			len = text ? fread(text, 1, 4095, f) : 0;
			fclose(f);
		}
		ok(len && strstr(text, "event=unit.fallback k=v"), "without journald the line is written");
		free(text);
	} else {
		close(fd);
		printf("ok %d # SKIP a journald listens here\n", ++tap_count);
	}
	unsetenv("JOURNAL_STREAM");
	unlink(path);
}

/* "Did you mean": close words are found, far ones are not */
static void test_closest(void)
{
	static const char *const words[] = { "sync", "status", "serve", "blob", "regressions" };

	is_str(text_closest("sycn", words, 5), "sync", "a swap of neighbours is one step");
	is_str(text_closest("stauts", words, 5), "status", "status from stauts");
	is_str(text_closest("Blob", words, 5), "blob", "case does not count");
	is_str(text_closest("regresions", words, 5), "regressions", "a missing letter");
	ok(text_closest("frobnicate", words, 5) == NULL, "nothing close: no suggestion");
	ok(text_closest("x", words, 5) == NULL, "a one-letter word suggests nothing far");
	ok(text_closest("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			words, 5) == NULL, "an over-long word is no problem");
}

/* text_find_ci: either case, NULs in the haystack, no reading past it */
static void test_find_ci(void)
{
	static const char hay[] = "see Bugzilla.Kernel.org/x\0bugzilla.kernel.org";
	const char *tail = hay + sizeof(hay) - 1 - 19;
	static const char rep[] = "bBbbugz";
	char *edge = malloc(8);

	ok(text_find_ci(hay, 3, "bugzilla") == NULL, "too short a haystack");
	ok(text_find_ci(hay, sizeof(hay) - 1, "bugzilla.kernel.org") == hay + 4,
	   "found in another case, at the first place");
	ok(text_find_ci(hay + 5, sizeof(hay) - 6, "bugzilla.kernel.org") == tail,
	   "found after a NUL byte");
	ok(text_find_ci(hay, 25, "kernel.org/x\0") == hay + 13, "a needle at the very end");
	ok(text_find_ci(hay, 24, "kernel.org/x") == NULL, "one byte short is not found");
	ok(text_find_ci(rep, 7, "bugz") == rep + 3, "repeated first letters");
	ok(text_find_ci("x.y", 3, ".") != NULL && text_find_ci("xy", 2, ".") == NULL,
	   "a first byte that is no letter");
	/* a buffer that ends where the needle would go on (ASan checks) */
	memcpy(edge, "xxxxxbug", 8);
	ok(text_find_ci(edge, 8, "bugzilla") == NULL, "a needle cut by the end is not read past");
	ok(text_find_ci(edge, 8, "BUG") == edge + 5, "a needle that ends with the haystack");
	free(edge);
	/* against a byte-by-byte search: haystacks of every length to 80 of
	 * bytes the needles hold (in either case, NULs among them), needles
	 * whose rarest byte is first, last, inside or a byte no list mail
	 * has; the needle now and then put in, in another case */
	{
		static const char bytes[] = "bBuUgGzZ.-1\0\n7q~";
		static const char *const needles[] = { "bug", "Bu", "\n---", "127.0.0.1", "z", "~q",
						       "gz.", "bugzilla.kernel.org", "-1" };
		char h[96];
		unsigned long state = 7;
		int bad = 0, found = 0;

		for (int round = 0; round < 9000; round++) {
			size_t len = (size_t)(round % 81);
			const char *nd = needles[round % 9], *want = NULL, *got;
			size_t n = strlen(nd);

			for (size_t i = 0; i < len; i++) {
				state = state * 1103515245 + 12345;
				h[i] = bytes[(state >> 16) % (sizeof(bytes) - 1)];
			}
			if (round % 4 == 0 && len >= n) {
				size_t at = (state >> 8) % (len - n + 1);

				for (size_t i = 0; i < n; i++)
					h[at + i] = (char)(i % 2 ? g_ascii_toupper(nd[i]) : nd[i]);
			}
			for (size_t i = 0; !want && i + n <= len; i++)
				if (!g_ascii_strncasecmp(h + i, nd, n))
					want = h + i;
			got = text_find_ci(h, len, nd);
			found += want != NULL;
			if (got != want && !bad++)
				diag("text_find_ci of \"%s\" in %zu bytes: %td, not %td", nd, len,
				     got ? got - h : -1, want ? want - h : -1);
		}
		is_int(bad, 0, "text_find_ci: as a byte-by-byte search, 9000 haystacks");
		ok(found > 1500, "text_find_ci: %d of them hold the needle", found);
	}
}

static void test_fsutil(void)
{
	unsigned long long n;
	long long d;
	char out[32], dir[] = "/tmp/bb-core-XXXXXX", *deep;
	struct stat sb;

	ok(parse_size("512", &n) == 0 && n == 512, "size without unit");
	ok(parse_size("64K", &n) == 0 && n == 65536, "size 64K");
	ok(parse_size("10M", &n) == 0 && n == 10485760, "size 10M");
	ok(parse_size("2GiB", &n) == 0 && n == 2147483648ULL, "size 2GiB");
	ok(parse_size("1G", &n) == 0 && n == 1073741824ULL, "size 1G");
	ok(parse_size("-1", &n) != 0, "negative size rejected");
	ok(parse_size("12Q", &n) != 0, "unknown unit rejected");
	ok(parse_size("", &n) != 0, "empty size rejected");
	ok(parse_size("99999999999999999999", &n) != 0, "overflowing size rejected");
	ok(parse_duration("30d", &d) == 0 && d == 30 * 86400, "duration 30d");
	ok(parse_duration("15m", &d) == 0 && d == 900, "duration 15m");
	ok(parse_duration("0", &d) == 0 && d == 0, "duration 0");
	ok(parse_duration("2x", &d) != 0, "bad duration rejected");
	format_size(1536, out, sizeof(out));
	is_str(out, "1.5 KiB", "format 1536 bytes");
	format_size(12, out, sizeof(out));
	is_str(out, "12 bytes", "format 12 bytes");

	ok(mkdtemp(dir) != NULL, "temp folder");
	deep = str_printf("%s/a/b/c", dir);
	ok(fs_mkdir_p(deep, NULL) == BB_OK && stat(deep, &sb) == 0 && S_ISDIR(sb.st_mode),
	   "mkdir -p creates nested folders");
	ok(fs_mkdir_p(deep, NULL) == BB_OK, "mkdir -p on an existing folder is fine");
	ok(fs_fsync_dir(deep, NULL) == BB_OK, "fsync a folder");
	free(deep);
	deep = str_printf("rm -rf %s", dir);
	ok(system(deep) == 0, "cleanup");
	free(deep);
}

static void person_is(const char *person, int show, const char *want, const char *what)
{
	char *got = text_person_published(person, show);

	is_str(got, want, "%s", what);
	free(got);
}

static void test_published_names(void)
{
	char *got;

	person_is("Ines Reporter <ines@example.net>", 0, "Ines Reporter", "name alone");
	person_is("\"Doe, Jane\" <jane@example.org>", 0, "Doe, Jane", "quoted name");
	person_is("ines@example.net", 0, "ines", "a bare address: its local part");
	person_is("ines@example.net <ines@example.net>", 0, "ines", "a name that is an address");
	person_is("Ines", 0, "Ines", "a bare name");
	person_is("", 0, "", "nobody");
	person_is("Ines Reporter <ines@example.net>", 1, "Ines Reporter <ines@example.net>",
		  "show_addresses keeps it whole");
	got = text_user_published("dev@example.org", "Dev Eloper", 0);
	is_str(got, "Dev Eloper", "user by name");
	free(got);
	got = text_user_published("dev@example.org", "", 1);
	is_str(got, "dev@example.org", "user without a name, addresses shown");
	free(got);
	got = text_hide_addresses("dev@example.org, a.b+c@mail.example.com; not@home and me@x");
	is_str(got, "dev, a.b+c; not@home and me@x",
	       "addresses (with a dotted domain) in text cut to their local part");
	free(got);
}

/* Reads all of c's stdout into out. */
static enum bb_status read_all(struct run_child *c, struct buf *out, struct bb_error *err)
{
	char tmp[7];   /* small: several reads */
	size_t got;
	enum bb_status st;

	do {
		if ((st = run_child_read(c, tmp, sizeof(tmp), &got, err)))
			return st;
		buf_add(out, tmp, got);
	} while (got);
	return BB_OK;
}

/* A descriptor of ours without close-on-exec never reaches a child. */
static void test_run_no_leak(void)
{
	struct run_args args = RUN_ARGS_INIT;
	struct run_child c;
	struct bb_error err = BB_ERROR_INIT;
	struct buf out = BUF_INIT;
	int fd = open("/dev/null", O_RDONLY), status = -1;
	char *script = str_printf("test -e /proc/self/fd/%d && echo leaked || echo closed", fd);

	ok(fd > 2 && script && !run_args_push(&args, "sh") && !run_args_push(&args, "-c") &&
	   !run_args_push(&args, script), "a descriptor without close-on-exec");
	run_child_init(&c, "sh");
	ok(run_child_spawn(&c, args.v, NULL, 0, &err) == BB_OK && read_all(&c, &out, &err) == BB_OK,
	   "a child asked whether it has it");
	run_child_wait(&c, &status);
#ifdef HAVE_POSIX_SPAWN_FILE_ACTIONS_ADDCLOSEFROM_NP
	is_str(out.data, "closed\n", "the child does not have it");
#else
	ok(1, "# SKIP no posix_spawn_file_actions_addclosefrom_np");
#endif
	buf_release(&out);
	run_child_release(&c);
	run_args_clear(&args);
	free(script);
	close(fd);
}

/* run_child_gather(): a child that trickles its output in small writes is
 * read whole and in order, its stderr kept, its end seen (the nap is taken
 * when little is waiting: the reads here ask for much) */
static void test_run_gather(void)
{
	struct run_args args = RUN_ARGS_INIT;
	struct run_child c;
	struct bb_error err = BB_ERROR_INIT;
	struct buf out = BUF_INIT, want = BUF_INIT;
	char chunk[65536];
	size_t got;
	int status = -1, reads = 0, failed = 0;

	ok(!run_args_push(&args, "sh") && !run_args_push(&args, "-c") &&
	   !run_args_push(&args, "i=0; while [ $i -lt 40 ]; do printf 'line %d\\n' $i; "
			 "i=$((i+1)); done; sleep 0.01; printf 'late\\n'; echo oops >&2"),
	   "a trickling child's arguments");
	for (int i = 0; i < 40; i++)
		buf_addf(&want, "line %d\n", i);
	buf_addstr(&want, "late\n");
	run_child_init(&c, "sh");
	run_child_gather(&c, sizeof(chunk));
	ok(run_child_spawn(&c, args.v, NULL, 0, &err) == BB_OK, "started");
	do {
		if (run_child_read(&c, chunk, sizeof(chunk), &got, &err) != BB_OK) {
			failed = 1;
			break;
		}
		buf_add(&out, chunk, got);
		reads++;
	} while (got);
	ok(!failed && reads >= 2, "read to its end");
	is_str(out.data, want.data, "all of it, in order");
	run_child_wait(&c, &status);
	is_int(status, 0, "it exits 0");
	ok(c.errout.data && strstr(c.errout.data, "oops"), "its stderr is kept");
	run_child_release(&c);
	buf_release(&out);
	buf_release(&want);
	run_args_clear(&args);
}

static void test_run_feed(void)
{
	struct run_args cat_args = RUN_ARGS_INIT, true_args = RUN_ARGS_INIT;
	struct run_child c;
	struct bb_error err = BB_ERROR_INIT;
	struct buf in = BUF_INIT, out = BUF_INIT;
	size_t pos = 0, wrote = 0;
	int ready = -1, status = -1, full = 0, failed = 0;
	siginfo_t gone;
	char chunk[65536];

	ok(!run_args_push(&cat_args, "cat") && !run_args_push(&true_args, "true"),
	   "argument lists");
	/* a child with output is ready; one that ends with none is not */
	run_child_init(&c, "true");
	ok(run_child_spawn(&c, true_args.v, NULL, 0, &err) == BB_OK &&
	   run_child_poll_output(&c, &ready, &err) == BB_OK && ready == 0,
	   "run_child_poll_output: a child that ends with no output is not ready");
	run_child_wait(&c, &status);
	is_int(status, 0, "and exits 0");
	run_child_release(&c);

	/* 4 MiB through cat: written ahead as far as its stdin takes, its
	 * output read whenever nothing more is taken, never waiting on both */
	for (int i = 0; in.len < ((size_t)4 << 20); i++)
		buf_addf(&in, "request %d\n", i);
	run_child_init(&c, "cat");
	ok(run_child_spawn(&c, cat_args.v, NULL, 1, &err) == BB_OK, "cat started with a stdin");
	while (!failed && pos < in.len) {
		size_t got;

		if (run_child_write_some(&c, in.data + pos, in.len - pos, &wrote, &err)) {
			failed = 1;
			break;
		}
		pos += wrote;
		if (wrote)
			continue;
		full++;
		if (run_child_read(&c, chunk, sizeof(chunk), &got, &err) || !got)
			failed = 1;
		else
			buf_add(&out, chunk, got);
	}
	ok(!failed && pos == in.len, "run_child_write_some: all written");
	ok(full > 0, "its stdin was full at times, and the write did not wait");
	run_child_close_input(&c);
	ok(c.in_fd == -1, "run_child_close_input: our end is closed");
	for (;;) {
		size_t got;

		if (run_child_read(&c, chunk, sizeof(chunk), &got, &err)) {
			failed = 1;
			break;
		}
		if (!got)
			break;
		buf_add(&out, chunk, got);
	}
	ok(!failed && out.len == in.len && !memcmp(out.data, in.data, in.len),
	   "its output ends after its stdin did, and is what was written");
	run_child_wait(&c, &status);
	is_int(status, 0, "cat exits 0");
	run_child_release(&c);

	/* a child that is gone: an error, not a SIGPIPE */
	run_child_init(&c, "true");
	ok(run_child_spawn(&c, true_args.v, NULL, 1, &err) == BB_OK &&
	   run_child_poll_output(&c, &ready, &err) == BB_OK && ready == 0, "true started and ended");
	/* poll() may see stdout end before the kernel has let go of the
	 * child's end of stdin: wait, without reaping, until it is a zombie,
	 * by when everything it held is closed */
	ok(waitid(P_PID, (id_t)c.pid, &gone, WEXITED | WNOWAIT) == 0, "true is gone");
	ok(run_child_write_some(&c, "x\n", 2, &wrote, &err) == BB_ERR_IO,
	   "run_child_write_some to a child that is gone: an error");
	run_child_wait(&c, &status);
	run_child_release(&c);
	buf_release(&in);
	buf_release(&out);
	run_args_clear(&cat_args);
	run_args_clear(&true_args);
}

/* bb_now(): the system's time, or BUGBRIDGE_TEST_NOW when it is a number. */
static void test_clock(void)
{
	time_t before = time(NULL), t;

	unsetenv("BUGBRIDGE_TEST_NOW");
	t = bb_now();
	ok(t >= before && t <= time(NULL), "bb_now: the system's time");
	setenv("BUGBRIDGE_TEST_NOW", "1796979600", 1);
	ok(bb_now() == 1796979600, "bb_now: BUGBRIDGE_TEST_NOW when set");
	setenv("BUGBRIDGE_TEST_NOW", "17969x", 1);
	t = bb_now();
	ok(t >= before && t <= time(NULL), "bb_now: a value that is no number is ignored");
	setenv("BUGBRIDGE_TEST_NOW", "", 1);
	t = bb_now();
	ok(t >= before && t <= time(NULL), "bb_now: an empty value is ignored");
	unsetenv("BUGBRIDGE_TEST_NOW");
	{
		char day[11];

		bb_day_text(1796979600, day, sizeof(day));
		is_str(day, "2026-12-11", "bb_day_text: the day, UTC");
		bb_day_text(1796979600 - 1796979600 % 86400 - 1, day, sizeof(day));
		is_str(day, "2026-12-10", "bb_day_text: the second before midnight is the day before");
	}
}

/* The one hex writer agrees with GLib's for a digest both can make. */
static void test_hex(void)
{
	static const unsigned char bytes[] = { 0x00, 0x0f, 0xa5, 0xff, 0x10 };
	char out[2 * sizeof(bytes) + 1], ours[SHA256_HEX_LEN + 1];
	gchar *glib = g_compute_checksum_for_string(G_CHECKSUM_SHA256, "abc", 3);

	memset(out, 'x', sizeof(out));
	hex_encode(bytes, sizeof(bytes), out);
	is_str(out, "000fa5ff10", "hex_encode: lower case, two digits a byte, NUL-terminated");
	hex_encode(bytes, 0, out);
	is_str(out, "", "hex_encode: no bytes, no digits");
	ok(sha256_hex("abc", 3, ours) == BB_OK && !strcmp(ours, glib),
	   "sha256_hex(\"abc\") is GLib's g_checksum hex (%s)", ours);
	g_free(glib);
}

int main(void)
{
	test_hex();
	test_clock();
	test_find_ci();
	test_run_gather();
	test_run_feed();
	test_run_no_leak();
	test_published_names();
	test_buf();
	test_status();
	test_log();
	test_journal();
	test_closest();
	test_fsutil();
	return done_testing();
}
