/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for attachments/blob.c: the content-addressed store. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "attachments/blob.h"
#include "core/buf.h"
#include "core/store.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/bb-blob-XXXXXX";
static struct store *db;
static struct blob_store *bs;

static void sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char d[32];
	unsigned int n = 0;

	EVP_Digest(data, len, d, &n, EVP_sha256(), NULL);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* Regular files anywhere under path (recursively). */
static int count_files(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *p;
		struct stat sb;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = str_printf("%s/%s", path, de->d_name);
		if (lstat(p, &sb) == 0)
			n += S_ISDIR(sb.st_mode) ? count_files(p) : 1;
		free(p);
	}
	closedir(d);
	return n;
}

static int count_rows(const char *sql)
{
	sqlite3_stmt *q = NULL;
	int n = -1;

	if (store_prepare(db, &q, sql, NULL) == BB_OK && sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return n;
}

static char *tree(void)
{
	return str_printf("%s/blobs/sha256", dir);
}

static void open_store(int store_members)
{
	struct blob_options opt = { NULL, "http://blobs.test", { 1000, 1 << 30, 100, 3 }, store_members, 0 };
	struct bb_error err = BB_ERROR_INIT;
	char *root = str_printf("%s/blobs", dir);
	char *dbp = str_printf("%s/state.db", dir);

	opt.root = root;
	if (store_open(&db, dbp, STORE_READ_WRITE, &err) || blob_store_open(&bs, &opt, db, &err)) {
		printf("Bail out! cannot open store: %s\n", err.message);
		exit(1);
	}
	free(root);
	free(dbp);
}

static void close_store(void)
{
	blob_store_close(bs);
	store_close(db);
	bs = NULL;
	db = NULL;
}

static void test_hashes_and_urls(void)
{
	char hex[65];
	char *p;

	ok(blob_parse_hash("sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
			   hex, NULL) == BB_OK, "sha256: prefix and upper case accepted");
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	       "normalised to lower case");
	is_int(blob_parse_hash("e3b0c4", hex, NULL), BB_ERR_INVALID, "short hash rejected");
	is_int(blob_parse_hash("../../etc/passwd", hex, NULL), BB_ERR_INVALID, "path rejected");
	is_int(blob_parse_hash("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855/..",
			       hex, NULL), BB_ERR_INVALID, "trailing junk rejected");
	is_int(blob_parse_hash("g3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
			       hex, NULL), BB_ERR_INVALID, "non-hex rejected");
	p = blob_url(bs, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		     "dmesg log.txt");
	is_str(p, "http://blobs.test/blob/sha256/e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855/dmesg%20log.txt",
	       "URL with an escaped file name");
	free(p);
	p = blob_path(bs, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	ok(p && strstr(p, "/blobs/sha256/e3/b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
	   "fan-out path ab/cdef...");
	free(p);
}

static enum bb_status collect_name(void *ctx, const struct blob_name *n)
{
	struct buf *b = ctx;

	buf_addf(b, "%s|%s|%s|%s;", n->name, n->declared_type, n->origin, n->origin_ref);
	return BB_OK;
}

static void test_put(void)
{
	static const char text[] = "[    0.000000] Linux version 6.6.1\nplain log text\n";
	struct blob_origin o1 = { "dmesg.txt", "application/x-msdownload", "upload", "cli" };
	struct blob_origin o2 = { "boot.log", "", "bugzilla-attachment", "304211" };
	struct bb_error err = BB_ERROR_INIT;
	struct blob_info info, again;
	struct buf names = BUF_INIT;
	char want[65], *path, *t = tree();
	struct stat sb;

	sha256_hex(text, strlen(text), want);
	ok(blob_put_memory(bs, text, strlen(text), &o1, &info, &err) == BB_OK, "put a text");
	is_str(info.hash, want, "hash is the SHA-256 of the bytes");
	is_int(info.size, strlen(text), "size recorded");
	ok(!strncmp(info.content_type, "text/plain", 10),
	   "type from the bytes (%s), not the uploader's claim", info.content_type);
	ok(!info.already_stored, "first put stores");
	path = blob_path(bs, want);
	ok(stat(path, &sb) == 0 && sb.st_size == (off_t)strlen(text), "file in place");
	ok((sb.st_mode & 0777) == 0444, "blob file is read-only");
	ok(blob_put_memory(bs, text, strlen(text), &o2, &again, &err) == BB_OK, "put again");
	ok(again.already_stored, "second put reports already stored");
	ok(again.first_seen == info.first_seen, "first-seen time unchanged");
	is_int(count_files(t), 1, "still one file in the tree");
	blob_each_name(bs, want, collect_name, &names, NULL);
	is_str(names.data, "dmesg.txt|application/x-msdownload|upload|cli;boot.log||bugzilla-attachment|304211;",
	       "every name, claimed type and origin kept");
	free(path);
	buf_release(&names);

	/* empty content is a blob too */
	ok(blob_put_memory(bs, "", 0, NULL, &info, &err) == BB_OK, "put empty content");
	is_str(info.hash, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	       "hash of nothing");
	{
		char tmp[256];
		char *tmpdir = str_printf("%s/blobs/tmp", dir);

		snprintf(tmp, sizeof(tmp), "%s", tmpdir);
		is_int(count_files(tmp), 0, "no temporary files left behind");
		free(tmpdir);
	}
	free(t);
}

static void test_writer_limits(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct blob_writer *w = NULL;
	struct blob_info info;
	char chunk[1000];
	char *t = tree(), *tmpdir = str_printf("%s/blobs/tmp", dir);
	int before_files = count_files(t), before_rows = count_rows("SELECT count(*) FROM blob");
	enum bb_status s = BB_OK;

	memset(chunk, 'z', sizeof(chunk));
	ok(blob_writer_open(bs, 2500, &w, &err) == BB_OK, "writer with a 2500-byte limit");
	for (int i = 0; i < 3 && !s; i++)
		s = blob_writer_write(w, chunk, sizeof(chunk), &err);
	is_int(s, BB_ERR_TOO_LARGE, "third write passes the limit");
	ok(strstr(err.message, "2500") != NULL, "message names the limit");
	blob_writer_abort(w);
	is_int(count_files(t), before_files, "no blob file from the aborted writer");
	is_int(count_files(tmpdir), 0, "no temporary file from the aborted writer");
	is_int(count_rows("SELECT count(*) FROM blob"), before_rows, "no metadata from the aborted writer");

	ok(blob_writer_open(bs, 0, &w, &err) == BB_OK, "streaming writer");
	for (int i = 0; i < 5000; i++)
		blob_writer_write(w, chunk, sizeof(chunk), &err); /* 5 MB in small pieces */
	is_int(blob_writer_size(w), 5000000, "writer counts bytes");
	ok(blob_writer_commit(w, NULL, &info, &err) == BB_OK, "commit a streamed blob");
	{
		char *all = malloc(5000000), want[65];

		memset(all, 'z', 5000000);
		sha256_hex(all, 5000000, want);
		is_str(info.hash, want, "streamed blob hash matches");
		free(all);
	}
	free(t);
	free(tmpdir);
}

static char *write_temp(const char *name, const void *data, size_t len)
{
	char *p = str_printf("%s/%s", dir, name);
	FILE *f = fopen(p, "wb");

	fwrite(data, 1, len, f);
	fclose(f);
	return p;
}

static void test_put_fd(void)
{
	size_t big = 9 * 1024 * 1024 + 123; /* async path, odd tail */
	char *data = malloc(big), want[65], *path;
	struct bb_error err = BB_ERROR_INIT;
	struct blob_info info;
	int fd, pipefd[2];

	for (size_t i = 0; i < big; i++)
		data[i] = (char)(i * 2654435761u >> 13);
	sha256_hex(data, big, want);
	path = write_temp("big.bin", data, big);
	fd = open(path, O_RDONLY);
	ok(blob_put_fd(bs, fd, NULL, NULL, NULL, &info, &err) == BB_OK, "put a 9 MiB file");
	close(fd);
	is_str(info.hash, want, "hash of the big file (writer thread path)");
	{
		char *stored = blob_path(bs, want);
		struct stat sb;

		ok(stat(stored, &sb) == 0 && (size_t)sb.st_size == big, "stored file has the full size");
		free(stored);
	}
	/* same size, different content: must not be mistaken for the stored one */
	data[big / 2] ^= 1;
	free(path);
	path = write_temp("big2.bin", data, big);
	fd = open(path, O_RDONLY);
	ok(blob_put_fd(bs, fd, NULL, NULL, NULL, &info, &err) == BB_OK, "put a same-size file");
	close(fd);
	ok(strcmp(info.hash, want) != 0 && !info.already_stored, "stored as new content");
	/* the same content again: hashed, nothing written */
	fd = open(path, O_RDONLY);
	ok(blob_put_fd(bs, fd, NULL, NULL, NULL, &info, &err) == BB_OK && info.already_stored,
	   "same content again is already stored");
	close(fd);
	free(path);

	/* a pipe */
	ok(pipe(pipefd) == 0, "pipe");
	if (fork() == 0) {
		close(pipefd[0]);
		for (size_t off = 0; off < 3000000; off += 100000)
			if (write(pipefd[1], data, 100000) != 100000)
				_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	ok(blob_put_fd(bs, pipefd[0], NULL, NULL, NULL, &info, &err) == BB_OK, "put from a pipe");
	close(pipefd[0]);
	{
		char *expect = malloc(3000000);

		for (size_t off = 0; off < 3000000; off += 100000)
			memcpy(expect + off, data, 100000);
		sha256_hex(expect, 3000000, want);
		is_str(info.hash, want, "pipe content hashed correctly");
		free(expect);
	}
	fd = open(dir, O_RDONLY);
	is_int(blob_put_fd(bs, fd, NULL, NULL, NULL, &info, &err), BB_ERR_INVALID, "a folder is refused");
	close(fd);
	free(data);
}

struct racer {
	const char *data;
	size_t len;
	enum bb_status s;
	char hash[65];
};

static void *race(void *p)
{
	struct racer *r = p;
	struct blob_info info;

	r->s = blob_put_memory(bs, r->data, r->len, NULL, &info, NULL);
	memcpy(r->hash, info.hash, 65);
	return NULL;
}

static void test_concurrent(void)
{
	static char data[300000];
	struct racer r[6];
	pthread_t t[6];
	char *path, want[65];
	int same = 1;

	memset(data, 'q', sizeof(data));
	data[0] = 'Q';
	sha256_hex(data, sizeof(data), want);
	for (int i = 0; i < 6; i++) {
		r[i].data = data;
		r[i].len = sizeof(data);
		pthread_create(&t[i], NULL, race, &r[i]);
	}
	for (int i = 0; i < 6; i++) {
		pthread_join(t[i], NULL);
		same &= r[i].s == BB_OK && !strcmp(r[i].hash, want);
	}
	ok(same, "six threads storing the same content all succeed with the same hash");
	path = blob_path(bs, want);
	ok(access(path, R_OK) == 0, "the blob exists once");
	free(path);
	{
		char *sql = str_printf("SELECT count(*) FROM blob WHERE hash = '%s'", want);

		is_int(count_rows(sql), 1, "one metadata row");
		free(sql);
	}
}

static void test_verify_and_gc(void)
{
	static const char a[] = "blob A: a crash dump", b[] = "blob B: a firmware image",
			  c[] = "blob C: pinned";
	struct bb_error err = BB_ERROR_INIT;
	struct blob_info ia, ib, ic;
	struct blob_gc_stats stats;
	enum blob_check check;
	char *path;
	int fd;

	blob_put_memory(bs, a, sizeof(a), NULL, &ia, &err);
	blob_put_memory(bs, b, sizeof(b), NULL, &ib, &err);
	blob_put_memory(bs, c, sizeof(c), NULL, &ic, &err);
	ok(blob_add_ref(bs, ic.hash, "pin", "", &err) == BB_OK, "pin C");
	ok(blob_verify(bs, ia.hash, &check, NULL, NULL, &err) == BB_OK && check == BLOB_CHECK_OK,
	   "A verifies");

	/* flip one byte of A */
	path = blob_path(bs, ia.hash);
	chmod(path, 0644);
	fd = open(path, O_WRONLY);
	ok(pwrite(fd, "X", 1, 3) == 1, "corrupt A on disk");
	close(fd);
	ok(blob_verify(bs, ia.hash, &check, NULL, NULL, &err) == BB_OK && check == BLOB_CHECK_CORRUPT,
	   "verify finds A corrupt");
	unlink(path);
	free(path);
	ok(blob_verify(bs, ia.hash, &check, NULL, NULL, &err) == BB_OK && check == BLOB_CHECK_MISSING,
	   "verify finds A missing");
	ok(blob_verify(bs, "0000000000000000000000000000000000000000000000000000000000000000",
		       &check, NULL, NULL, &err) == BB_OK && check == BLOB_CHECK_UNKNOWN,
	   "an unknown hash is reported as unknown");
	{
		int fd2 = -1;

		is_int(blob_open(bs, ia.hash, &fd2, NULL, &err), BB_ERR_NOT_FOUND,
		       "opening a missing file says not found");
		ok(strstr(err.message, "missing") != NULL, "and why");
	}

	/* gc: within the grace period nothing goes */
	ok(blob_gc(bs, time(NULL), 3600, 0, NULL, NULL, &stats, &err) == BB_OK, "gc with grace");
	is_int(stats.blobs, 0, "nothing removed within the grace period");
	/* dry run past the grace period */
	ok(blob_gc(bs, time(NULL) + 7200, 3600, 1, NULL, NULL, &stats, &err) == BB_OK, "gc dry run");
	ok(stats.blobs >= 2, "dry run counts unreferenced blobs (%llu)", (unsigned long long)stats.blobs);
	ok(blob_lookup(bs, ib.hash, NULL, NULL) == BB_OK, "dry run removed nothing from the database");
	path = blob_path(bs, ib.hash);
	ok(access(path, F_OK) == 0, "dry run removed no file");
	ok(blob_gc(bs, time(NULL) + 7200, 3600, 0, NULL, NULL, &stats, &err) == BB_OK, "gc for real");
	ok(access(path, F_OK) != 0, "B's file is gone");
	is_int(blob_lookup(bs, ib.hash, NULL, NULL), BB_ERR_NOT_FOUND, "B's metadata is gone");
	free(path);
	ok(blob_lookup(bs, ic.hash, NULL, NULL) == BB_OK, "pinned C is kept");
	is_int(count_rows("SELECT count(*) FROM blob_name WHERE hash NOT IN (SELECT hash FROM blob)"), 0,
	       "no dangling names");

	/* a stray file (no metadata) older than the grace period */
	{
		char *t = tree(), *stray_dir = str_printf("%s/ab", t);
		char *stray = str_printf("%s/%s", stray_dir,
					 "cdef000000000000000000000000000000000000000000000000000000000000");
		FILE *f;

		mkdir(stray_dir, 0755);
		f = fopen(stray, "w");
		fputs("left by a crash between placing and recording", f);
		fclose(f);
		ok(blob_gc(bs, time(NULL) + 7200, 3600, 0, NULL, NULL, &stats, &err) == BB_OK &&
		   access(stray, F_OK) != 0, "gc removes a stray file");
		free(stray);
		free(stray_dir);
		free(t);
	}
	ok(blob_remove_ref(bs, ic.hash, "pin", "", &err) == BB_OK, "unpin C");
	is_int(blob_remove_ref(bs, ic.hash, "pin", "", &err), BB_ERR_NOT_FOUND, "unpin twice fails");
}

struct member_list {
	struct buf text;
};

static enum bb_status collect_member(void *ctx, const struct inspect_member *m)
{
	struct buf *b = ctx;

	buf_addf(b, "%s:%llu:%.8s;", m->path, (unsigned long long)m->size, m->hash ? m->hash : "-");
	return BB_OK;
}

static void test_archive_members(void)
{
	struct bb_error err = BB_ERROR_INIT;
	struct blob_info info, member;
	struct buf list = BUF_INIT;
	char *cmd, *tgz, fw_hash[65];
	static const char fw[] = "FIRMWARE-IMAGE-0001 pretend this is a binary blob";
	int fd;

	close_store();
	open_store(1);
	cmd = str_printf("cd %s && mkdir -p arch/a arch/b && printf '%%s' '%s' > arch/a/fw.bin && "
			 "cp arch/a/fw.bin arch/b/fw-copy.bin && echo notes > arch/notes.txt && "
			 "tar -C arch -czf fw.tar.gz a b notes.txt", dir, fw);
	ok(system(cmd) == 0, "made a tar.gz with two copies of one firmware file");
	free(cmd);
	tgz = str_printf("%s/fw.tar.gz", dir);
	fd = open(tgz, O_RDONLY);
	ok(blob_put_fd(bs, fd, NULL, NULL, NULL, &info, &err) == BB_OK, "put the archive: %s", err.message);
	close(fd);
	is_int(info.archive_status, INSPECT_OK, "archive inspected");
	blob_each_member(bs, info.hash, collect_member, &list, NULL);
	sha256_hex(fw, strlen(fw), fw_hash);
	ok(strstr(list.data, "a/fw.bin:") && strstr(list.data, "b/fw-copy.bin:") &&
	   strstr(list.data, "notes.txt:6:"), "members listed: %s", list.data);
	ok(blob_lookup(bs, fw_hash, &member, &err) == BB_OK, "firmware member stored as its own blob");
	{
		char *sql = str_printf("SELECT count(*) FROM blob_name WHERE hash = '%s' AND origin = 'archive-member'", fw_hash);
		char *sql2 = str_printf("SELECT count(*) FROM blob_ref WHERE hash = '%s' AND kind = 'member-of'", fw_hash);

		is_int(count_rows(sql), 2, "stored once, with both member names");
		is_int(count_rows(sql2), 1, "referenced by its archive");
		free(sql);
		free(sql2);
	}
	/* gc: the archive goes, and then its members */
	{
		struct blob_gc_stats stats;

		ok(blob_gc(bs, time(NULL) + 7200, 60, 0, NULL, NULL, &stats, &err) == BB_OK, "gc everything");
		is_int(blob_lookup(bs, fw_hash, NULL, NULL), BB_ERR_NOT_FOUND,
		       "members of a removed archive are removed too");
	}
	/* unpublished: the archive goes, and the members only it kept */
	{
		int moved = 0;
		char *sql = str_printf("SELECT count(*) FROM blob WHERE hash = '%s'", fw_hash);

		fd = open(tgz, O_RDONLY);
		ok(blob_put_fd(bs, fd, NULL, NULL, NULL, &info, &err) == BB_OK &&
		   blob_lookup(bs, fw_hash, NULL, NULL) == BB_OK, "the archive again, with its members");
		close(fd);
		ok(blob_unpublish(bs, NULL, info.hash, &moved, &err) == BB_OK && moved,
		   "the archive unpublished: %s", err.message);
		is_int(blob_lookup(bs, info.hash, NULL, NULL), BB_ERR_NOT_FOUND, "the archive is gone");
		is_int(count_rows(sql), 0, "and so is its firmware member");
		free(sql);
	}
	buf_release(&list);
	free(tgz);
}

/* Abbreviated hashes, as git takes them: a unique prefix of 7 or more */
static void test_prefix(void)
{
	struct bb_error err = BB_ERROR_INIT;
	char hex[BLOB_HEX_LEN + 1], a[BLOB_HEX_LEN + 1], b[BLOB_HEX_LEN + 1], *sql;
	struct blob_origin o = { "p.txt", "", "test", "" };
	struct blob_info info;

	ok(blob_put_memory(bs, "prefix test\n", 12, &o, &info, &err) == BB_OK, "a blob to find");
	is_int(blob_resolve(bs, info.hash, hex, &err), BB_OK, "the full hash resolves");
	is_str(hex, info.hash, "to itself");
	memcpy(a, info.hash, 7);
	a[7] = '\0';
	is_int(blob_resolve(bs, a, hex, &err), BB_OK, "7 hex digits resolve (%s)", err.message);
	is_str(hex, info.hash, "to the blob they start");
	snprintf(b, sizeof(b), "sha256:%.9s", info.hash);
	b[7] = (char)(b[7] >= 'a' ? b[7] - 32 : b[7]);
	is_int(blob_resolve(bs, b, hex, &err), BB_OK, "with sha256: and upper case too");
	a[6] = '\0';
	is_int(blob_resolve(bs, a, hex, &err), BB_ERR_INVALID, "6 digits are too few");
	is_int(blob_resolve(bs, "0000000", hex, &err), BB_ERR_NOT_FOUND, "a prefix nothing has");
	ok(strstr(err.message, "no stored blob") != NULL, "says so: %s", err.message);
	is_int(blob_resolve(bs, "abcdefg", hex, &err), BB_ERR_INVALID, "not hex: not a hash");
	/* two rows that share a prefix (no two real hashes would, here) */
	memset(a, 'e', BLOB_HEX_LEN);
	a[BLOB_HEX_LEN] = '\0';
	memcpy(b, a, sizeof(a));
	b[BLOB_HEX_LEN - 1] = 'f';
	sql = str_printf("INSERT INTO blob (hash, size, content_type, first_seen, last_seen) VALUES"
			 " ('%s', 1, 'text/plain', 0, 0), ('%s', 1, 'text/plain', 0, 0)", a, b);
	if (store_exec(db, sql, &err) == BB_OK) {
		is_int(blob_resolve(bs, "eeeeeee", hex, &err), BB_ERR_INVALID, "an ambiguous prefix");
		ok(strstr(err.message, "ambiguous") && strstr(err.message, "eeeeeeeeeeeeeeee"),
		   "is refused, naming what it matches: %s", err.message);
		is_int(blob_resolve(bs, b, hex, &err), BB_OK, "a full hash is never ambiguous");
		store_exec(db, "DELETE FROM blob WHERE hash LIKE 'eeeeeeeeee%'", NULL);
	} else {
		ok(0, "insert two rows that share a prefix: %s", err.message);
	}
	free(sql);
}

int main(void)
{
	char *cmd;

	if (!mkdtemp(dir))
		return 99;
	open_store(0);
	test_hashes_and_urls();
	test_put();
	test_writer_limits();
	test_put_fd();
	test_concurrent();
	test_verify_and_gc();
	test_archive_members();
	test_prefix();
	close_store();
	cmd = str_printf("rm -rf %s", dir);
	ok(system(cmd) == 0, "cleanup");
	free(cmd);
	return done_testing();
}
