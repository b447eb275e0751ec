/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mail/archive.c without a network: the mbox splitter (mboxrd quoting,
 * separators, offsets, any feed sizes, incomplete and hostile input), the
 * Atom parser (public-inbox's feed, DTDs and entities refused), gzip
 * checks, option and cursor errors, and the Maildir and mbox sources with
 * files made here (mtimes set, files moved, rewritten, locked). */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "mail/archive.h"
#include "mail/archive_source.h"
#include "tests/unit/tap.h"

/* --------------------------------------------------------------- helpers */

#define MAX_GOT 16

struct got {
	size_t n, nulls;
	char text[MAX_GOT][512];
	uint64_t end[MAX_GOT + 8];
	char position[MAX_GOT][512];
	int stop_at;      /* return BB_ERR_INTERRUPTED for message number stop_at (1-based) */
};

static enum bb_status on_split(void *ctx, const char *raw, size_t len, uint64_t end)
{
	struct got *g = ctx;

	if (!raw) {
		g->end[MAX_GOT + (g->nulls < 8 ? g->nulls : 7)] = end;
		g->nulls++;
		return BB_OK;
	}
	if (g->n < MAX_GOT) {
		snprintf(g->text[g->n], sizeof(g->text[0]), "%.*s", (int)len, raw);
		g->end[g->n] = end;
	}
	g->n++;
	return BB_OK;
}

static enum bb_status split(const char *data, size_t len, size_t piece, size_t max, int complete,
			    struct got *g, struct bb_error *err)
{
	struct archive_mbox *m = archive_mbox_new(0, max, on_split, g);
	enum bb_status st = BB_OK;

	memset(g, 0, sizeof(*g));
	bb_error_clear(err);
	for (size_t at = 0; at < len && !st; at += piece)
		st = archive_mbox_feed(m, data + at, len - at < piece ? len - at : piece, err);
	if (!st)
		st = archive_mbox_finish(m, complete, err);
	archive_mbox_free(m);
	return st;
}

static enum bb_status on_message(void *ctx, const char *raw, size_t len, const char *position)
{
	struct got *g = ctx;

	if (g->stop_at && (int)g->n + 1 == g->stop_at)
		return BB_ERR_INTERRUPTED;
	if (g->n < MAX_GOT) {
		snprintf(g->text[g->n], sizeof(g->text[0]), "%.*s", (int)len, raw);
		snprintf(g->position[g->n], sizeof(g->position[0]), "%s", position ? position : "-");
	}
	g->n++;
	return BB_OK;
}

static char work[256];

static void write_file(const char *path, const char *text, long long mtime)
{
	FILE *f = fopen(path, "wb");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		printf("# cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (mtime) {
		struct timespec ts[2] = { { (time_t)mtime, 0 }, { (time_t)mtime, 0 } };

		utimensat(AT_FDCWD, path, ts, 0);
	}
}

static void append_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "ab");

	if (!f || fputs(text, f) < 0 || fclose(f))
		exit(1);
}

/* gzip of data, made with libarchive's writer (raw format, gzip filter). */
static size_t gzip_of(const char *data, size_t len, unsigned char *out, size_t cap)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	size_t used = 0;

	archive_write_add_filter_gzip(a);
	archive_write_set_format_raw(a);
	archive_write_set_bytes_in_last_block(a, 1);
	archive_write_open_memory(a, out, cap, &used);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_write_header(a, e);
	archive_write_data(a, data, len);
	archive_write_close(a);
	archive_write_free(a);
	archive_entry_free(e);
	return used;
}

static struct archive_source *local_source(const char *kind, const char *path)
{
	struct archive_options opt;
	struct archive_source *src = NULL;
	struct bb_error err = BB_ERROR_INIT;

	memset(&opt, 0, sizeof(opt));
	opt.kind = kind;
	opt.path = path;
	if (archive_source_new(&src, &opt, &err))
		printf("# archive_source_new: %s\n", err.message);
	return src;
}

/* ------------------------------------------------------------- the splitter */

/* archive_is_hex_string(): lowercase hex digits only, at every length
 * around the 16 bytes it looks at a time, with any other byte anywhere */
static void test_hex_string(void)
{
	char s[72];
	int bad = 0;

	for (size_t len = 0; len <= 70; len++) {
		for (size_t i = 0; i < len; i++)
			s[i] = "0123456789abcdef"[(i * 7 + len) % 16];
		if (!archive_is_hex_string(s, len) && !bad++)
			diag("%zu hex digits not taken", len);
		for (size_t at = 0; at < len; at += 3) {
			char keep = s[at];

			for (int c = 0; c < 256; c++) {
				int hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');

				s[at] = (char)c;
				if (archive_is_hex_string(s, len) != hex && !bad++)
					diag("byte %#x at %zu of %zu: %d", c, at, len, !hex);
			}
			s[at] = keep;
		}
	}
	is_int(bad, 0, "hex strings: lowercase hex digits only, lengths 0 to 70");
}

static void test_split(void)
{
	static const char mbox[] =
		"From a@b Thu Jan  1 00:00:00 1970\n"
		"Subject: one\n"
		"\n"
		">From here\n"
		">>From there\n"
		"From inside a paragraph stays\n"
		">not From\n"
		"\n"
		"From b@c Thu Jan  1 00:00:00 1970\n"
		"Subject: two\n"
		"\n"
		"body\n"
		"\n"
		"\n"
		"From c@d Thu Jan  1 00:00:00 1970\n"
		"Subject: three\n"
		"\n"
		"last\n";
	struct bb_error err = BB_ERROR_INIT;
	struct got g, whole;
	size_t len = strlen(mbox);
	int same = 1;

	is_int(split(mbox, len, len, 0, 1, &whole, &err), BB_OK, "an mboxrd file splits");
	is_int(whole.n, 3, "into three messages");
	is_str(whole.text[0], "Subject: one\n\nFrom here\n>From there\nFrom inside a paragraph stays\n>not From\n",
	       "mboxrd quoting undone, an unquoted From inside a paragraph kept");
	is_str(whole.text[1], "Subject: two\n\nbody\n\n", "only the separating empty line is dropped");
	is_str(whole.text[2], "Subject: three\n\nlast\n", "the last message");
	is_int(whole.end[0], strstr(mbox, "From b@c") - mbox, "offset after the first message");
	is_int(whole.end[1], strstr(mbox, "From c@d") - mbox, "offset after the second");
	is_int(whole.end[2], len, "offset after the last is the end");
	for (size_t piece = 1; piece < 40; piece++) {
		if (split(mbox, len, piece, 0, 1, &g, &err) || g.n != whole.n)
			same = 0;
		for (size_t i = 0; same && i < g.n; i++)
			if (strcmp(g.text[i], whole.text[i]) || g.end[i] != whole.end[i])
				same = 0;
	}
	ok(same, "fed in pieces of 1..39 bytes, the same messages and offsets");

	{
		static const char crlf[] = "From x\r\nA: 1\r\n\r\n>From q\r\n\r\nFrom y\r\nB: 2\r\n\r\nz\r\n";

		is_int(split(crlf, strlen(crlf), 7, 0, 1, &g, &err), BB_OK, "CRLF mbox");
		is_int(g.n, 2, "two messages");
		is_str(g.text[0], "A: 1\r\n\r\nFrom q\r\n", "CRLF kept, quoting and separator handled");
	}
	{
		static const char lead[] = "\n\nFrom x\nA: 1\n\nFrom y\n\nFrom z\nC: 3\n";

		is_int(split(lead, strlen(lead), 100, 0, 1, &g, &err), BB_OK,
		       "empty lines before the first From_ line");
		is_int(g.n, 2, "an empty message is not delivered");
		is_int(g.nulls, 1, "but its offset is reported");
	}
	is_int(split("Subject: x\n\nbody\n", 17, 17, 0, 1, &g, &err), BB_ERR_INVALID,
	       "no From_ line: not an mbox");
	ok(strstr(err.message, "not an mbox") != NULL, "the error says so: %s", err.message);
	is_int(split("", 0, 1, 0, 1, &g, &err), BB_OK, "an empty stream");
	is_int(g.n, 0, "has no message");

	{
		static const char part[] = "From x\nA: 1\n\nbody\n\nFrom y\nB: 2\n\nunfinish";

		is_int(split(part, strlen(part), 5, 0, 0, &g, &err), BB_ERR_TEMPORARY,
		       "a last line without newline, more may come: temporary");
		is_int(g.n, 1, "the complete message before it is delivered");
		is_int(split(part, strlen(part), 5, 0, 1, &g, &err), BB_OK,
		       "the same stream known complete");
		is_int(g.n, 2, "delivers the last message as it is");
		is_str(g.text[1], "B: 2\n\nunfinish", "without a newline");
	}
	{
		static const char big[] = "From x\nA: 1\n\n0123456789012345678901234567890123456789\n\n"
					  "From y\nB: 2\n\nsmall\n";

		is_int(split(big, strlen(big), 3, 32, 1, &g, &err), BB_OK, "a message over the limit");
		is_int(g.n, 1, "is not delivered");
		is_int(g.nulls, 1, "but reported as skipped");
		is_str(g.text[0], "B: 2\n\nsmall\n", "the next one is");
	}
	{
		char *huge = malloc(300000);

		memcpy(huge, "From x\nA: 1\n\n", 13);
		memset(huge + 13, 'x', 300000 - 13);   /* one endless line */
		is_int(split(huge, 300000, 4096, 1000, 1, &g, &err), BB_OK,
		       "an endless line over the limit does not grow memory");
		is_int(g.nulls, 1, "and is skipped");
		free(huge);
	}
	{
		struct got stop;
		struct archive_mbox *m;

		memset(&stop, 0, sizeof(stop));
		m = archive_mbox_new(1000, 0, on_split, &stop);
		is_int(archive_mbox_feed(m, "From x\nA: 1\n", 12, &err), BB_OK, "a stream from offset 1000");
		is_int(archive_mbox_finish(m, 1, &err), BB_OK, "ends");
		is_int(stop.end[0], 1012, "offsets count from the start offset");
		archive_mbox_free(m);
	}
}

/* ------------------------------------------------------------------- Atom */

static void test_atom(void)
{
	static const char feed[] =
		"<?xml version=\"1.0\" encoding=\"us-ascii\"?>\n"
		"<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:thr=\"http://purl.org/syndication/thread/1.0\">"
		"<title>public inbox</title><link rel=\"alternate\" href=\"http://x/test/\"/>"
		"<entry><author><name>T</name></author><title>Re: one</title>"
		"<link href=\"http://x/test/m2@example.org/\"/>"
		"<id>urn:uuid:30a94b22-f1f6-97f4-44cf-2b9f2375ad45</id>"
		"<thr:in-reply-to ref=\"urn:uuid:3\" href=\"http://x/test/m1@example.org/\"/></entry>"
		"<entry><link rel=\"replies\" href=\"http://x/other\"/>"
		"<link rel=\"alternate\" href=\"http://x/test/m1@example.org/\"/>"
		"<id>\n  urn:uuid:3aff3cc0 </id></entry>"
		"<entry><title>no id</title><link href=\"http://x/test/m0/\"/></entry>"
		"</feed>";
	static const char xxe[] =
		"<?xml version=\"1.0\"?><!DOCTYPE feed [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
		"<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>&x;</id></entry></feed>";
	static const char laughs[] =
		"<?xml version=\"1.0\"?><!DOCTYPE feed [<!ENTITY a \"aaaaaaaaaa\">"
		"<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">]>"
		"<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>&c;</id></entry></feed>";
	static const char rss[] = "<rss><channel><item><guid>x</guid></item></channel></rss>";
	static const char unnamespaced[] = "<feed><entry><id>x</id></entry></feed>";
	struct archive_atom_entry *e = NULL;
	struct bb_error err = BB_ERROR_INIT;
	size_t n = 0;

	is_int(archive_atom_parse(feed, strlen(feed), &e, &n, &err), BB_OK,
	       "public-inbox's new.atom parses");
	is_int(n, 2, "two entries (one without an id is left out)");
	if (n == 2) {
		is_str(e[0].id, "urn:uuid:30a94b22-f1f6-97f4-44cf-2b9f2375ad45", "first id");
		is_str(e[0].link, "http://x/test/m2@example.org/", "a link without rel is the entry's");
		is_str(e[1].id, "urn:uuid:3aff3cc0", "ids are trimmed");
		is_str(e[1].link, "http://x/test/m1@example.org/", "rel=alternate, not rel=replies");
	}
	archive_atom_entries_free(e, n);
	is_int(archive_atom_parse(xxe, strlen(xxe), &e, &n, &err), BB_ERR_PROTOCOL,
	       "an external entity: refused");
	diag("%s", err.message);
	is_int(archive_atom_parse(laughs, strlen(laughs), &e, &n, &err), BB_ERR_PROTOCOL,
	       "nested entities (billion laughs): refused");
	is_int(archive_atom_parse(rss, strlen(rss), &e, &n, &err), BB_ERR_PROTOCOL, "RSS is no Atom");
	is_int(archive_atom_parse(unnamespaced, strlen(unnamespaced), &e, &n, &err), BB_ERR_PROTOCOL,
	       "a <feed> outside the Atom namespace is no Atom");
	is_int(archive_atom_parse("<feed", 5, &e, &n, &err), BB_ERR_PROTOCOL, "truncated XML");
	ok(strstr(err.message, "not an Atom feed") != NULL, "with a message: %s", err.message);
	{
		static const char noids[] = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry>"
					    "<title>x</title></entry><entry><id> </id></entry></feed>";

		is_int(archive_atom_parse(noids, strlen(noids), &e, &n, &err), BB_OK,
		       "a feed whose entries have no id");
		ok(e == NULL && n == 0, "gives no entries and no array (found by the fuzzer)");
	}
	is_int(archive_atom_parse("", 0, &e, &n, &err), BB_ERR_PROTOCOL, "empty input");
	ok(e == NULL && n == 0, "nothing is returned on failure");
}

/* ------------------------------------------------------------------- gzip */

static void test_gzip(void)
{
	static const char text[] = "From x\nA: 1\n\nhello\n";
	unsigned char gz[4096], bad[4096], two[8192];
	struct bb_error err = BB_ERROR_INIT;
	size_t len = gzip_of(text, strlen(text), gz, sizeof(gz)), out_len = 0, len2;
	char *out = NULL;

	ok(len > 20, "made a gzip file of %zu bytes", len);
	is_int(archive_gunzip(gz, len, 1 << 20, &out, &out_len, &err), BB_OK, "it decompresses");
	ok(out && out_len == strlen(text) && !memcmp(out, text, out_len), "to the text");
	free(out);
	out = NULL;
	is_int(archive_gunzip(gz, len - 3, 1 << 20, &out, &out_len, &err), BB_ERR_PROTOCOL,
	       "truncated gzip: protocol error");
	diag("%s", err.message);
	memcpy(bad, gz, len);
	bad[len - 6] ^= 0x40;   /* the CRC, which libarchive does not check */
	is_int(archive_gunzip(bad, len, 1 << 20, &out, &out_len, &err), BB_ERR_PROTOCOL,
	       "a wrong CRC-32 is caught");
	ok(strstr(err.message, "CRC") != NULL, "and named: %s", err.message);
	is_int(archive_gunzip(text, strlen(text), 1 << 20, &out, &out_len, &err), BB_ERR_PROTOCOL,
	       "plain text is not gzip");
	is_int(archive_gunzip(gz, len, 4, &out, &out_len, &err), BB_ERR_TOO_LARGE,
	       "decompressing over the limit");
	memcpy(two, gz, len);
	len2 = gzip_of("From y\nB: 2\n\n", 13, two + len, sizeof(two) - len);
	is_int(archive_gunzip(two, len + len2, 1 << 20, &out, &out_len, &err), BB_OK,
	       "two gzip members");
	is_int(out_len, strlen(text) + 13, "decompress to both texts");
	free(out);
}

/* ------------------------------------------------------- options, cursors */

static void test_options(void)
{
	struct archive_options opt;
	struct archive_source *src = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct got g;

	memset(&opt, 0, sizeof(opt));
	opt.kind = "imap";
	is_int(archive_source_new(&src, &opt, &err), BB_ERR_CONFIG, "unknown kind");
	ok(src == NULL, "no source");
	opt.kind = "public-inbox";
	opt.url = "https://lore.kernel.org/lkml";
	is_int(archive_source_new(&src, &opt, &err), BB_ERR_CONFIG, "public-inbox without a state folder");
	opt.state_dir = work;
	opt.url = "ftp://lore.kernel.org/lkml";
	is_int(archive_source_new(&src, &opt, &err), BB_ERR_CONFIG, "an ftp:// url");
	opt.url = "https://lore.kernel.org/lkml?x=1";
	is_int(archive_source_new(&src, &opt, &err), BB_ERR_CONFIG, "a url with a query");
	opt.url = "https://user:secret@lore.kernel.org/lkml";
	is_int(archive_source_new(&src, &opt, &err), BB_ERR_CONFIG, "a url with credentials");
	ok(strstr(err.message, "secret") == NULL, "whose password is not repeated");
	opt.url = "https://lore.kernel.org/lkml/";
	is_int(archive_source_new(&src, &opt, &err), BB_OK, "a good url");
	ok(src && strstr(archive_source_dir(src), "/lore.kernel.org_lkml-") != NULL,
	   "state folder named after it: %s", src ? archive_source_dir(src) : "");
	is_int(archive_poll(src, "mbox:0", on_message, &g, NULL, &err), BB_ERR_INVALID,
	       "a cursor of another kind");
	is_int(archive_poll(src, "git:1:abc", on_message, &g, NULL, &err), BB_ERR_INVALID,
	       "a git cursor with a short commit");
	is_int(archive_fetch_thread(src, "<>", on_message, &g, &err), BB_ERR_INVALID,
	       "an empty Message-ID");
	archive_source_free(src);
	src = NULL;
	opt.git_program = "/nonexistent/git";
	opt.url = "http://127.0.0.1:9/test";
	is_int(archive_source_new(&src, &opt, &err), BB_OK, "a source whose git is missing");
	is_int(archive_poll(src, NULL, on_message, &g, NULL, &err), BB_ERR_CONFIG,
	       "polls with a configuration error");
	ok(strstr(err.message, "/nonexistent/git") != NULL, "naming the program: %s", err.message);
	opt.git_program = NULL;
	is_int(archive_fetch_thread(src, "a b@c", on_message, &g, &err), BB_ERR_INVALID,
	       "a Message-ID with a space");
	archive_source_free(src);
	src = NULL;
	opt.kind = "maildir";
	opt.path = NULL;
	is_int(archive_source_new(&src, &opt, &err), BB_ERR_CONFIG, "maildir without a path");
	src = local_source("maildir", "/nonexistent/maildir");
	is_int(archive_poll(src, NULL, on_message, &g, NULL, &err), BB_ERR_NOT_FOUND,
	       "a missing Maildir");
	is_int(archive_fetch_thread(src, "a@b", on_message, &g, &err), BB_ERR_UNSUPPORTED,
	       "no thread download from a Maildir");
	archive_source_free(src);
}

/* ---------------------------------------------------------------- Maildir */

static char *poll_all(struct archive_source *src, const char *cursor, struct got *g,
		      enum bb_status *st)
{
	struct bb_error err = BB_ERROR_INIT;
	char *next = NULL;
	int stop = g->stop_at;

	memset(g, 0, sizeof(*g));
	g->stop_at = stop;
	*st = archive_poll(src, cursor, on_message, g, &next, &err);
	if (*st)
		printf("# poll: %s\n", err.message);
	return next;
}

static void test_maildir(void)
{
	char md[300], path[600], to[600];
	struct archive_source *src;
	struct got g;
	enum bb_status st;
	char *c1, *c2, *c3, *c4;
	long long now = (long long)time(NULL);

	snprintf(md, sizeof(md), "%s/Maildir", work);
	mkdir(md, 0700);
	snprintf(path, sizeof(path), "%s/new", md);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/cur", md);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/tmp", md);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/new/1000.b.host", md);
	write_file(path, "Message-ID: <b>\n\nB\n", now - 3000);
	snprintf(path, sizeof(path), "%s/cur/1000.a.host:2,S", md);
	write_file(path, "Message-ID: <a>\n\nA\n", now - 3000);
	snprintf(path, sizeof(path), "%s/new/0999.c.host", md);
	write_file(path, "Message-ID: <c>\n\nC\n", now - 1000);
	snprintf(path, sizeof(path), "%s/tmp/1.being.written", md);
	write_file(path, "Message-ID: <tmp>\n\n", now);
	src = local_source("maildir", md);

	memset(&g, 0, sizeof(g));
	c1 = poll_all(src, NULL, &g, &st);
	is_int(st, BB_OK, "Maildir: first poll");
	is_int(g.n, 3, "reads new/ and cur/, not tmp/");
	is_str(g.text[0], "Message-ID: <a>\n\nA\n", "in (mtime, name) order: a");
	is_str(g.text[1], "Message-ID: <b>\n\nB\n", "b");
	is_str(g.text[2], "Message-ID: <c>\n\nC\n", "then the newer c");
	is_str(g.position[2], c1, "the last position is the poll's cursor");
	diag("cursor %s", c1);

	c2 = poll_all(src, c1, &g, &st);
	is_int(g.n, 0, "second poll: nothing new");
	snprintf(path, sizeof(path), "%s/new/0999.c.host", md);
	snprintf(to, sizeof(to), "%s/cur/0999.c.host:2,RS", md);
	rename(path, to);
	free(c2);
	c2 = poll_all(src, c1, &g, &st);
	is_int(g.n, 0, "a message moved to cur/ with flags is not new");

	/* delivered late: older than the newest read, within the slack */
	snprintf(path, sizeof(path), "%s/new/0998.late.host", md);
	write_file(path, "Message-ID: <late>\n\nL\n", now - 1000 - 60);
	snprintf(path, sizeof(path), "%s/new/2000.d.host", md);
	write_file(path, "Message-ID: <d>\n\nD\n", now);
	c3 = poll_all(src, c2, &g, &st);
	is_int(g.n, 2, "a new message and one renamed into new/ late (within the slack)");
	is_str(g.text[0], "Message-ID: <late>\n\nL\n", "the late one first (older mtime)");
	is_str(g.text[1], "Message-ID: <d>\n\nD\n", "then the new one");

	/* the caller stops after one: the cursor it keeps is that message's */
	snprintf(path, sizeof(path), "%s/new/2001.e.host", md);
	write_file(path, "Message-ID: <e>\n\nE\n", now);
	snprintf(path, sizeof(path), "%s/new/2002.f.host", md);
	write_file(path, "Message-ID: <f>\n\nF\n", now);
	g.stop_at = 2;
	c4 = poll_all(src, c3, &g, &st);
	is_int(st, BB_ERR_INTERRUPTED, "the handler stops the poll");
	ok(c4 == NULL, "no cursor for the poll");
	is_int(g.n, 1, "after one message");
	{
		char kept[512];

		snprintf(kept, sizeof(kept), "%s", g.position[0]);
		g.stop_at = 0;
		free(poll_all(src, kept, &g, &st));
		is_int(g.n, 1, "polling from that message's position reads the rest");
		is_str(g.text[0], "Message-ID: <f>\n\nF\n", "f");
	}
	{
		char *t = NULL;
		struct bb_error err = BB_ERROR_INIT;

		is_int(archive_tail(src, &t, &err), BB_OK, "Maildir tail");
		free(poll_all(src, t, &g, &st));
		is_int(g.n, 0, "reads nothing after the tail");
		free(t);
	}
	is_int(archive_poll(src, "maildir:x", on_message, &g, NULL, NULL), BB_ERR_INVALID,
	       "a broken Maildir cursor");
	archive_source_free(src);
	free(c1);
	free(c2);
	free(c3);
}

/* Counts of each message "Message-ID: <N>" a poll hands over; the
 * handler refuses message number stop_at (1-based) of the poll. */
#define SAME_MAILS 600

struct seen {
	int count[SAME_MAILS + 8];
	size_t n, stop_at;
	char *position;   /* of the last message handed over */
};

static enum bb_status on_seen(void *ctx, const char *raw, size_t len, const char *position)
{
	struct seen *s = ctx;
	int id = -1;

	(void)len;
	if (s->stop_at && s->n + 1 == s->stop_at)
		return BB_ERR_INTERRUPTED;
	if (sscanf(raw, "Message-ID: <%d>", &id) != 1 || id < 0 || id >= SAME_MAILS + 8)
		return BB_ERR_INTERNAL;
	s->count[id]++;
	s->n++;
	free(s->position);
	s->position = strdup(position);
	return BB_OK;
}

/* Issue 14: Maildir mails that share one mtime second are each read once,
 * in linear time (the timing is in make bench), and a poll resumed from
 * any message's position reads on without a skip or a repeat. */
static void test_maildir_same_mtime(void)
{
	char md[300], path[600];
	struct archive_source *src;
	struct seen s;
	struct bb_error err = BB_ERROR_INIT;
	long long now = (long long)time(NULL), t = now - 30;
	char *first = NULL, *next = NULL, *again = NULL;
	int once = 1, resumed = 1;

	snprintf(md, sizeof(md), "%s/SameMaildir", work);
	mkdir(md, 0700);
	for (int k = 0; k < 3; k++) {
		snprintf(path, sizeof(path), "%s/%s", md, k == 0 ? "new" : k == 1 ? "cur" : "tmp");
		mkdir(path, 0700);
	}
	for (int i = 0; i < SAME_MAILS; i++) {
		char text[64];

		/* names in no particular order against the ids */
		snprintf(path, sizeof(path), "%s/%s/%lld.M%dP%d.host%s", md, i % 3 ? "new" : "cur",
			 t, (i * 7919) % 10007, i, i % 3 ? "" : ":2,S");
		snprintf(text, sizeof(text), "Message-ID: <%d>\n\nbody %d\n", i, i);
		write_file(path, text, t);
	}
	src = local_source("maildir", md);
	memset(&s, 0, sizeof(s));
	is_int(archive_poll(src, NULL, on_seen, &s, &first, &err), BB_OK,
	       "%d mails of one mtime second: read", SAME_MAILS);
	for (int i = 0; i < SAME_MAILS; i++)
		once = once && s.count[i] == 1;
	ok(s.n == SAME_MAILS && once, "each exactly once (%zu handed over)", s.n);
	is_str(first, s.position, "the last position is the poll's cursor");
	free(s.position);

	/* stopped after k messages: the position of the kth reads the rest */
	for (size_t k = 1; k < SAME_MAILS; k += 97) {
		struct seen part, rest;
		int all = 1;

		memset(&part, 0, sizeof(part));
		part.stop_at = k + 1;
		archive_poll(src, NULL, on_seen, &part, NULL, NULL);
		memset(&rest, 0, sizeof(rest));
		if (part.n != k || archive_poll(src, part.position, on_seen, &rest, NULL, NULL)) {
			resumed = ok(0, "stopped after %zu: %zu read, resume failed", k, part.n);
		} else {
			for (int i = 0; i < SAME_MAILS; i++)
				all = all && part.count[i] + rest.count[i] == 1;
			if (!all || rest.n != SAME_MAILS - k)
				resumed = ok(0, "stopped after %zu: the rest read %zu", k, rest.n);
		}
		free(part.position);
		free(rest.position);
	}
	ok(resumed, "resumed from positions inside the same second: no skip, no repeat");

	/* late deliveries of the same second, names before and after the
	 * others', and a message moved to cur/ with flags */
	snprintf(path, sizeof(path), "%s/new/%lld.M0P0.late", md, t);
	write_file(path, "Message-ID: <600>\n\nlate\n", t);
	snprintf(path, sizeof(path), "%s/new/%lld.M99999P9.late", md, t);
	write_file(path, "Message-ID: <601>\n\nlate\n", t);
	{
		char from[600];

		snprintf(from, sizeof(from), "%s/new/%lld.M%dP%d.host", md, t, 7919 % 10007, 1);
		snprintf(path, sizeof(path), "%s/cur/%lld.M%dP%d.host:2,RS", md, t, 7919 % 10007, 1);
		ok(rename(from, path) == 0, "a read message moved to cur/");
	}
	memset(&s, 0, sizeof(s));
	is_int(archive_poll(src, first, on_seen, &s, &next, &err), BB_OK, "poll after late deliveries");
	ok(s.n == 2 && s.count[600] == 1 && s.count[601] == 1,
	   "only the two late ones (%zu handed over)", s.n);
	free(s.position);
	memset(&s, 0, sizeof(s));
	is_int(archive_poll(src, next, on_seen, &s, &again, &err), BB_OK, "and again");
	is_int(s.n, 0, "then nothing");
	free(s.position);
	archive_source_free(src);
	free(first);
	free(next);
	free(again);
}

/* ------------------------------------------------------------------- mbox */

static void test_mbox(void)
{
	char mb[300], lock[320];
	struct archive_source *src;
	struct got g;
	enum bb_status st;
	struct bb_error err = BB_ERROR_INIT;
	char *c1, *c2, *c3;

	snprintf(mb, sizeof(mb), "%s/list.mbox", work);
	write_file(mb, "From a Thu Jan  1 00:00:00 1970\nMessage-ID: <1>\n\n>From x\n\n"
		       "From b Thu Jan  1 00:00:00 1970\nMessage-ID: <2>\n\ntwo\n\n", 0);
	src = local_source("mbox", mb);
	memset(&g, 0, sizeof(g));
	c1 = poll_all(src, NULL, &g, &st);
	is_int(g.n, 2, "mbox: two messages");
	is_str(g.text[0], "Message-ID: <1>\n\nFrom x\n", "unquoted, without From_ line and separator");
	is_str(g.position[1], c1, "the last position is the poll's cursor");
	diag("cursor %s", c1);
	c2 = poll_all(src, c1, &g, &st);
	is_int(g.n, 0, "nothing new");
	free(c2);
	append_file(mb, "From c Thu Jan  1 00:00:00 1970\nMessage-ID: <3>\n\nthr");
	c2 = poll_all(src, c1, &g, &st);
	is_int(st, BB_ERR_TEMPORARY, "a message still being written: temporary");
	is_int(g.n, 0, "and nothing delivered");
	append_file(mb, "ee\n\n");
	c2 = poll_all(src, c1, &g, &st);
	is_int(g.n, 1, "once complete it is read");
	is_str(g.text[0], "Message-ID: <3>\n\nthree\n", "the third message");

	/* rewritten by a mail reader: read again from the start */
	write_file(mb, "From a Thu Jan  1 00:00:00 1970\nMessage-ID: <2>\n\ntwo\n\n"
		       "From b Thu Jan  1 00:00:00 1970\nMessage-ID: <3>\n\nthree\n\n", 0);
	c3 = poll_all(src, c2, &g, &st);
	is_int(g.n, 2, "a rewritten mbox is read again from the start");
	is_int(archive_source_stats(src)->rewinds, 1, "counted as a rewind");
	free(c3);

	snprintf(lock, sizeof(lock), "%s.lock", mb);
	write_file(lock, "", 0);
	c3 = poll_all(src, c2, &g, &st);
	is_int(st, BB_ERR_BUSY, "a dot-lock: busy");
	unlink(lock);
	{
		int ready[2], done[2];
		pid_t pid = -1;
		char c = 'x';

		if (pipe(ready) == 0 && pipe(done) == 0 && (pid = fork()) == 0) {
			int fd = open(mb, O_RDWR);
			struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

			close(ready[0]);
			close(done[1]);
			fcntl(fd, F_SETLK, &lk);
			if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
		close(ready[1]);
		close(done[0]);
		if (pid > 0 && read(ready[0], &c, 1) == 1) {
			c3 = poll_all(src, c2, &g, &st);
			is_int(st, BB_ERR_BUSY, "an fcntl() write lock: busy");
		}
		close(done[1]);   /* lets the child end */
		close(ready[0]);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	archive_source_free(src);

	write_file(mb, "Subject: not an mbox\n\n", 0);
	src = local_source("mbox", mb);
	c3 = poll_all(src, NULL, &g, &st);
	is_int(st, BB_ERR_INVALID, "a file that is no mbox: invalid");
	is_int(archive_tail(src, &c3, &err), BB_OK, "tail of any file ending in a newline");
	free(c3);
	archive_source_free(src);
	free(c1);
	free(c2);
}

/* Issue 14: an mbox whose last message has no final newline (a patchwork
 * download ends so) is read once it has been left alone for a while. */
static void test_mbox_no_final_newline(void)
{
	char mb[300];
	struct archive_source *src;
	struct got g;
	enum bb_status st;
	struct bb_error err = BB_ERROR_INIT;
	long long old = (long long)time(NULL) - ARCHIVE_MBOX_SETTLE - 600;
	char *c1, *c2, *t = NULL;

	snprintf(mb, sizeof(mb), "%s/patchwork.mbox", work);
	write_file(mb, "From a Thu Jan  1 00:00:00 1970\nMessage-ID: <p1>\n\none\n\n"
		       "From b Thu Jan  1 00:00:00 1970\nMessage-ID: <p2>\n\n"
		       "-- \n2.43.0", old);
	src = local_source("mbox", mb);
	memset(&g, 0, sizeof(g));
	c1 = poll_all(src, NULL, &g, &st);
	is_int(st, BB_OK, "no final newline, file settled: read");
	is_int(g.n, 2, "both messages");
	is_str(g.text[1], "Message-ID: <p2>\n\n-- \n2.43.0", "the last one up to the end of the file");
	ok(c1 && g.n == 2 && !strcmp(g.position[1], c1), "its position is the poll's cursor");
	c2 = poll_all(src, c1, &g, &st);
	ok(st == BB_OK && g.n == 0, "the next poll: nothing new, no error");
	free(c2);
	is_int(archive_tail(src, &t, &err), BB_OK, "a settled file without final newline can be tailed");
	free(t);
	/* a writer goes on: a message after it is read, with no rewind */
	append_file(mb, "\n\nFrom c Thu Jan  1 00:00:00 1970\nMessage-ID: <p3>\n\nthree\n\n");
	c2 = poll_all(src, c1, &g, &st);
	ok(st == BB_OK && g.n == 1 && !strcmp(g.text[0], "Message-ID: <p3>\n\nthree\n"),
	   "a message appended later is read after it");
	is_int(archive_source_stats(src)->rewinds, 0, "without a rewind");
	free(c2);
	/* just written: still taken for a message being written */
	write_file(mb, "From a Thu Jan  1 00:00:00 1970\nMessage-ID: <p1>\n\nhalf", 0);
	free(poll_all(src, NULL, &g, &st));
	is_int(st, BB_ERR_TEMPORARY, "no final newline, file just changed: temporary");
	is_int(g.n, 0, "nothing read");
	archive_source_free(src);
	free(c1);
}

/* Every position of a large mbox, as a poll hands them out. */
struct positions {
	char **v;
	size_t n;
};

static enum bb_status on_position(void *ctx, const char *raw, size_t len, const char *position)
{
	struct positions *p = ctx;
	char **v = realloc(p->v, (p->n + 1) * sizeof(*v));

	(void)raw;
	(void)len;
	if (!v)
		return BB_ERR_NOMEM;
	p->v = v;
	p->v[p->n++] = strdup(position);
	return BB_OK;
}

/* A message that ends (its separator included) at offset target. */
static void mbox_message_to(FILE *f, long target, int id)
{
	long at = ftell(f), left;

	fprintf(f, "From x Thu Jan  1 00:00:00 1970\nMessage-ID: <%d@t>\n\n", id);
	left = target - ftell(f) - 1; /* the separator's newline */
	while (left > 72) {
		fputs("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", f);
		left -= 72;
	}
	for (; left > 1; left--)
		fputc('y', f);
	fputs("\n\n", f);
	if (ftell(f) != target)
		printf("# message %d at %ld ends at %ld, not %ld\n", id, at, ftell(f), target);
}

/* The positions of messages read across the reader's 1 MiB chunks, their
 * checks taken from the bytes at hand, are those a poll starting there
 * accepts: messages end just before, at and just after chunk boundaries. */
static void test_mbox_chunks(void)
{
	static const long mib = 1L << 20;
	/* one message ends near each boundary k MiB, after a filler message */
	static const long near[] = { -100, -64, -1, 0, 1, 10, 63, 64, 65 };
	long ends[2 * sizeof(near) / sizeof(near[0]) + 1];
	size_t count = 0;
	char mb[300];
	struct archive_source *src;
	struct positions p = { NULL, 0 };
	struct bb_error err = BB_ERROR_INIT;
	char *next = NULL;
	FILE *f;
	int good = 1;

	for (size_t k = 0; k < sizeof(near) / sizeof(near[0]); k++) {
		ends[count++] = (long)(k + 1) * mib - 400000;
		ends[count++] = (long)(k + 1) * mib + near[k];
	}
	ends[count] = ends[count - 1] + 5000;
	count++;
	snprintf(mb, sizeof(mb), "%s/chunks.mbox", work);
	if (!(f = fopen(mb, "wb")))
		exit(1);
	for (size_t i = 0; i < count; i++)
		mbox_message_to(f, ends[i], (int)i);
	if (fclose(f))
		exit(1);
	src = local_source("mbox", mb);
	is_int(archive_poll(src, NULL, on_position, &p, &next, &err), BB_OK,
	       "a 9 MiB mbox read in chunks");
	is_int(p.n, count, "every message");
	for (size_t i = 0; i < p.n && i < count; i++) {
		char want[32];
		struct got g;
		enum bb_status st;
		uint64_t rewinds = archive_source_stats(src)->rewinds;
		char *c;

		snprintf(want, sizeof(want), "mbox:%ld:", ends[i]);
		if (strncmp(p.v[i], want, strlen(want))) {
			good = ok(0, "position %zu is %s", i, p.v[i]);
			continue;
		}
		memset(&g, 0, sizeof(g));
		c = poll_all(src, p.v[i], &g, &st);
		if (st || g.n != count - i - 1 || archive_source_stats(src)->rewinds != rewinds)
			good = ok(0, "a poll from the position after message %zu (%s): %zu read, "
				  "%s", i, p.v[i], g.n, archive_source_stats(src)->rewinds != rewinds
				  ? "rewound" : "no rewind");
		free(c);
	}
	ok(good, "a poll from each of them reads on from there, without a rewind");
	is_str(next, p.n ? p.v[p.n - 1] : "", "the last is the poll's cursor");
	for (size_t i = 0; i < p.n; i++)
		free(p.v[i]);
	free(p.v);
	free(next);
	archive_source_free(src);
}

int main(void)
{
	snprintf(work, sizeof(work), "%s/test-archive.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(work))
		return 1;
	test_hex_string();
	test_split();
	test_atom();
	test_gzip();
	test_options();
	test_maildir();
	test_maildir_same_mtime();
	test_mbox();
	test_mbox_no_final_newline();
	test_mbox_chunks();
	{
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
		if (system(cmd) != 0)
			diag("could not remove %s", work);
	}
	return done_testing();
}
