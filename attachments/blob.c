/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <glib.h>
#include <magic.h>

#include "attachments/blob.h"
#include "attachments/blob_rows.h"
#include "core/buf.h"
#include "core/digest.h"
#include "core/fsutil.h"
#include "core/log.h"

#define BLOB_NBUF 4            /* buffers in flight between hashing and writing */
#define BLOB_MAGIC_HEAD (256 * 1024) /* bytes libmagic looks at */
#define BLOB_ASYNC_MIN (4ULL * BLOB_CHUNK_SIZE) /* files below this are written inline */

struct blob_store {
	char *root;       /* <data>/blobs */
	char *tree;       /* <data>/blobs/sha256 */
	char *tmpdir;     /* <data>/blobs/tmp */
	char *base_url;
	struct store *db;
	pthread_mutex_t lock; /* db and magic */
	magic_t magic;
	struct inspect_limits limits;
	int store_members;
	int use_tmpfile;  /* O_TMPFILE + linkat works here */
};

struct blob_writer {
	struct blob_store *bs;
	int fd;
	char *tmp_path;        /* named temporary file, or NULL with O_TMPFILE */
	struct sha256 md;
	uint64_t size, max_size;
	char *head;            /* the first BLOB_MAGIC_HEAD bytes (not zeroed:
				* an archive's members make one writer each) */
	size_t head_len;

	/* Data is gathered into bufs[submitted % BLOB_NBUF]; full buffers are
	 * written either inline or, in async mode, by a writer thread, so that
	 * hashing the next chunk overlaps writing the previous one. */
	char *bufs[BLOB_NBUF];
	size_t lens[BLOB_NBUF];
	size_t fill;           /* bytes in the buffer being filled */
	uint64_t submitted, written;
	int async;
	int thread_running;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int write_errno;       /* first write error, from either thread */
	int closing;
	int batched;           /* the caller made the data durable (syncfs) and
				* makes the new name durable after placing */
};

/* ---------------------------------------------------------------- helpers */

static int is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

enum bb_status blob_parse_hash(const char *text, char out[BLOB_HEX_LEN + 1],
			       struct bb_error *err)
{
	const char *p = text;
	size_t i;

	if (!strncmp(p, "sha256:", 7))
		p += 7;
	for (i = 0; i < BLOB_HEX_LEN; i++) {
		if (!is_hex_digit(p[i]))
			break;
		out[i] = (char)(p[i] >= 'A' && p[i] <= 'F' ? p[i] - 'A' + 'a' : p[i]);
	}
	if (i != BLOB_HEX_LEN || p[i] != '\0') {
		out[0] = '\0';
		return bb_error_set(err, BB_ERR_INVALID,
				    "\"%.80s\" is not a blob hash (want sha256:<64 hex digits>)", text);
	}
	out[BLOB_HEX_LEN] = '\0';
	return BB_OK;
}

enum bb_status blob_resolve(struct blob_store *bs, const char *text, char out[BLOB_HEX_LEN + 1],
			    struct bb_error *err)
{
	const char *p = !strncmp(text, "sha256:", 7) ? text + 7 : text;
	char lo[BLOB_HEX_LEN + 1], hi[BLOB_HEX_LEN + 2], found[2][BLOB_HEX_LEN + 1];
	size_t len = strlen(p), n = 0;
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if (len == BLOB_HEX_LEN || len < BLOB_PREFIX_MIN || len > BLOB_HEX_LEN ||
	    strspn(p, "0123456789abcdefABCDEF") != len)
		return blob_parse_hash(text, out, err);
	for (size_t i = 0; i <= len; i++)
		lo[i] = (char)(p[i] >= 'A' && p[i] <= 'F' ? p[i] - 'A' + 'a' : p[i]);
	/* the hashes that start with lo sort from lo up to lo + "g" */
	snprintf(hi, sizeof(hi), "%sg", lo);
	if ((s = store_prepare(bs->db, &st, "SELECT hash FROM blob WHERE hash >= ? AND hash < ?"
					    " ORDER BY hash LIMIT 2", err)))
		return s;
	sqlite3_bind_text(st, 1, lo, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, hi, -1, SQLITE_STATIC);
	while (n < 2 && sqlite3_step(st) == SQLITE_ROW)
		snprintf(found[n++], sizeof(found[0]), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	out[0] = '\0';
	if (n == 0)
		return bb_error_set(err, BB_ERR_NOT_FOUND, "no stored blob's hash starts with %s", lo);
	if (n > 1)
		return bb_error_set(err, BB_ERR_INVALID, "%s is ambiguous: sha256:%.16s... and "
				    "sha256:%.16s... (and maybe more) start with it; give more digits",
				    lo, found[0], found[1]);
	memcpy(out, found[0], BLOB_HEX_LEN + 1);
	return BB_OK;
}

char *blob_path(const struct blob_store *bs, const char *hex)
{
	return str_printf("%s/%.2s/%s", bs->tree, hex, hex + 2);
}

static char *blob_dir(const struct blob_store *bs, const char *hex)
{
	return str_printf("%s/%.2s", bs->tree, hex);
}

char *blob_url(const struct blob_store *bs, const char *hex, const char *name)
{
	char *escaped, *url;

	if (!name || !*name)
		return str_printf("%s/blob/sha256/%s", bs->base_url, hex);
	escaped = curl_easy_escape(NULL, name, (int)strlen(name));
	if (!escaped)
		return NULL;
	url = str_printf("%s/blob/sha256/%s/%s", bs->base_url, hex, escaped);
	curl_free(escaped);
	return url;
}

const char *blob_check_str(enum blob_check c)
{
	switch (c) {
	case BLOB_CHECK_OK: return "ok";
	case BLOB_CHECK_MISSING: return "missing";
	case BLOB_CHECK_CORRUPT: return "corrupt";
	case BLOB_CHECK_SIZE: return "wrong-size";
	case BLOB_CHECK_UNKNOWN: return "unknown";
	}
	return "?";
}

static enum bb_status db_fail(struct blob_store *bs, struct bb_error *err, const char *what)
{
	return store_fail(bs->db, err, what);
}

/* ---------------------------------------------------------- store setup */

/* Can this file system give us unnamed temporary files that we can link? */
static int probe_tmpfile(const char *tmpdir)
{
	char *probe = str_printf("%s/.probe-%ld", tmpdir, (long)getpid());
	char proc[64];
	int fd, works = 0;

	if (!probe)
		return 0;
	fd = open(tmpdir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		unlink(probe);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, probe, AT_SYMLINK_FOLLOW) == 0) {
			works = 1;
			unlink(probe);
		}
		close(fd);
	}
	free(probe);
	return works;
}

enum bb_status blob_store_open(struct blob_store **out, const struct blob_options *opt,
			       struct store *db, struct bb_error *err)
{
	struct blob_store *bs;
	enum bb_status s = BB_OK;

	*out = NULL;
	bs = calloc(1, sizeof(*bs));
	if (!bs)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	{
		pthread_mutexattr_t attr;

		/* recursive: iterator callbacks may look up other blobs */
		pthread_mutexattr_init(&attr);
		pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
		pthread_mutex_init(&bs->lock, &attr);
		pthread_mutexattr_destroy(&attr);
	}
	bs->db = db;
	bs->limits = opt->limits;
	bs->store_members = opt->store_members;
	bs->root = strdup(opt->root);
	bs->tree = str_printf("%s/sha256", opt->root);
	bs->tmpdir = str_printf("%s/tmp", opt->root);
	bs->base_url = strdup(opt->base_url ? opt->base_url : "");
	if (!bs->root || !bs->tree || !bs->tmpdir || !bs->base_url) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (!opt->read_only) {
		if ((s = fs_mkdir_p(bs->tree, err)) || (s = fs_mkdir_p(bs->tmpdir, err)))
			goto out;
		bs->use_tmpfile = probe_tmpfile(bs->tmpdir);
	}

	bs->magic = magic_open(MAGIC_MIME_TYPE | MAGIC_MIME_ENCODING | MAGIC_ERROR |
			       MAGIC_NO_CHECK_COMPRESS);
	if (!bs->magic || magic_load(bs->magic, NULL) != 0) {
		s = bb_error_set(err, BB_ERR_CONFIG, "cannot load libmagic's database: %s",
				 bs->magic ? magic_error(bs->magic) : "out of memory");
		goto out;
	}
out:
	if (s) {
		blob_store_close(bs);
		return s;
	}
	*out = bs;
	return BB_OK;
}

void blob_store_close(struct blob_store *bs)
{
	if (!bs)
		return;
	if (bs->magic)
		magic_close(bs->magic);
	pthread_mutex_destroy(&bs->lock);
	free(bs->root);
	free(bs->tree);
	free(bs->tmpdir);
	free(bs->base_url);
	free(bs);
}

/* Content type from the first bytes, as "type/subtype" plus "; charset=x"
 * for text.  Called with bs->lock held. */
static void detect_type(struct blob_store *bs, const void *head, size_t len,
			char *out, size_t outlen)
{
	const char *m;

	if (len == 0) {
		snprintf(out, outlen, "application/x-empty");
		return;
	}
	m = magic_buffer(bs->magic, head, len);
	if (!m || !*m) {
		snprintf(out, outlen, "application/octet-stream");
		return;
	}
	snprintf(out, outlen, "%s", m);
	/* "; charset=binary" says nothing a client can use */
	{
		char *cs = strstr(out, "; charset=binary");

		if (cs)
			*cs = '\0';
	}
}

/* ------------------------------------------------------------- the writer */

static void *writer_thread(void *arg)
{
	struct blob_writer *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->written == w->submitted && !w->closing)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->written == w->submitted && w->closing)
			break;
		{
			size_t idx = (size_t)(w->written % BLOB_NBUF);
			size_t len = w->lens[idx];
			int failed = w->write_errno != 0;
			int e = 0;

			pthread_mutex_unlock(&w->mu);
			if (!failed && fs_write_all(w->fd, w->bufs[idx], len) != 0)
				e = errno;
			else if (!failed)
				sync_file_range(w->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
			pthread_mutex_lock(&w->mu);
			if (e && !w->write_errno)
				w->write_errno = e;
			w->written++;
			pthread_cond_broadcast(&w->cv);
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static enum bb_status write_error(struct blob_writer *w, int e, struct bb_error *err)
{
	if (e == ENOSPC || e == EDQUOT)
		return bb_error_set(err, BB_ERR_NO_SPACE,
				    "disk full while storing a blob in %s; nothing was stored",
				    w->bs->root);
	return bb_error_errno(err, e, "cannot write a blob in %s", w->bs->tmpdir);
}

/* Hands the buffer being filled to the writer (thread, or inline). */
static enum bb_status writer_submit(struct blob_writer *w, struct bb_error *err)
{
	size_t idx = (size_t)(w->submitted % BLOB_NBUF);
	int e;

	if (w->fill == 0)
		return BB_OK;
	if (!w->async) {
		if (fs_write_all(w->fd, w->bufs[idx], w->fill) != 0)
			return write_error(w, errno, err);
		w->fill = 0;
		return BB_OK;
	}
	pthread_mutex_lock(&w->mu);
	w->lens[idx] = w->fill;
	w->submitted++;
	w->fill = 0;
	pthread_cond_broadcast(&w->cv);
	/* wait until the next buffer to fill is free again */
	while (w->submitted - w->written >= BLOB_NBUF)
		pthread_cond_wait(&w->cv, &w->mu);
	e = w->write_errno;
	pthread_mutex_unlock(&w->mu);
	return e ? write_error(w, e, err) : BB_OK;
}

/* Waits for all submitted buffers and stops the thread. */
static int writer_drain(struct blob_writer *w)
{
	int e;

	if (!w->thread_running)
		return w->write_errno;
	pthread_mutex_lock(&w->mu);
	w->closing = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	w->thread_running = 0;
	e = w->write_errno;
	return e;
}

static enum bb_status writer_create(struct blob_store *bs, uint64_t max_size, int async,
				    struct blob_writer **out, struct bb_error *err)
{
	struct blob_writer *w;
	enum bb_status s = BB_OK;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	w->bs = bs;
	w->fd = -1;
	w->max_size = max_size;
	w->async = async;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (!(w->head = malloc(BLOB_MAGIC_HEAD))) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < (async ? BLOB_NBUF : 1); i++) {
		w->bufs[i] = malloc(BLOB_CHUNK_SIZE);
		if (!w->bufs[i]) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	if ((s = sha256_init(&w->md))) {
		bb_error_set(err, s, "cannot set up SHA-256");
		goto out;
	}
	if (bs->use_tmpfile) {
		w->fd = open(bs->tmpdir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	} else {
		w->tmp_path = str_printf("%s/put-XXXXXX", bs->tmpdir);
		if (!w->tmp_path) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		w->fd = mkostemp(w->tmp_path, O_CLOEXEC);
	}
	if (w->fd < 0) {
		s = bb_error_errno(err, errno, "cannot create a temporary file in %s", bs->tmpdir);
		free(w->tmp_path);
		w->tmp_path = NULL;
		goto out;
	}
	if (async) {
		if (pthread_create(&w->thread, NULL, writer_thread, w) != 0)
			w->async = 0; /* fall back to writing inline */
		else
			w->thread_running = 1;
	}
out:
	if (s) {
		blob_writer_abort(w);
		return s;
	}
	*out = w;
	return BB_OK;
}

enum bb_status blob_writer_open(struct blob_store *bs, uint64_t max_size,
				struct blob_writer **out, struct bb_error *err)
{
	return writer_create(bs, max_size, 0, out, err);
}

uint64_t blob_writer_size(const struct blob_writer *w)
{
	return w->size;
}

static void writer_note_head(struct blob_writer *w, const void *data, size_t len)
{
	if (w->head_len < BLOB_MAGIC_HEAD) {
		size_t n = BLOB_MAGIC_HEAD - w->head_len;

		if (n > len)
			n = len;
		memcpy(w->head + w->head_len, data, n);
		w->head_len += n;
	}
}

enum bb_status blob_writer_write(struct blob_writer *w, const void *data, size_t len,
				 struct bb_error *err)
{
	const char *p = data;
	enum bb_status s;

	if (w->max_size && (w->size + len > w->max_size || w->size + len < w->size))
		return bb_error_set(err, BB_ERR_TOO_LARGE,
				    "blob is larger than the limit of %llu bytes",
				    (unsigned long long)w->max_size);
	sha256_update(&w->md, data, len);
	writer_note_head(w, data, len);
	w->size += len;
	while (len > 0) {
		size_t idx = (size_t)(w->submitted % BLOB_NBUF);
		size_t n = BLOB_CHUNK_SIZE - w->fill;

		if (n > len)
			n = len;
		memcpy(w->bufs[w->async ? idx : 0] + w->fill, p, n);
		w->fill += n;
		p += n;
		len -= n;
		if (w->fill == BLOB_CHUNK_SIZE && (s = writer_submit(w, err)))
			return s;
	}
	test_hook("blob.write");
	return BB_OK;
}

/* Reads fd to its end straight into the writer's buffers. */
static enum bb_status writer_fill_from_fd(struct blob_writer *w, int fd, uint64_t total,
					  blob_progress_fn progress, void *pctx,
					  struct bb_error *err)
{
	enum bb_status s;

	for (;;) {
		size_t idx = w->async ? (size_t)(w->submitted % BLOB_NBUF) : 0;
		char *dst = w->bufs[idx] + w->fill;
		ssize_t n = fs_read_full(fd, dst, BLOB_CHUNK_SIZE - w->fill);

		if (n < 0)
			return bb_error_errno(err, errno, "cannot read the input");
		if (n == 0)
			break;
		if (w->max_size && w->size + (uint64_t)n > w->max_size)
			return bb_error_set(err, BB_ERR_TOO_LARGE,
					    "blob is larger than the limit of %llu bytes",
					    (unsigned long long)w->max_size);
		sha256_update(&w->md, dst, (size_t)n);
		writer_note_head(w, dst, (size_t)n);
		w->size += (uint64_t)n;
		w->fill += (size_t)n;
		if (w->fill == BLOB_CHUNK_SIZE && (s = writer_submit(w, err)))
			return s;
		if (progress)
			progress(pctx, w->size, total);
		test_hook("blob.write");
	}
	return BB_OK;
}

#ifdef HAVE_COPY_FILE_RANGE
/* Copying a regular file: the kernel copies it into the temporary file
 * (copy_file_range, as cp(1) does, with no copy through user space) in a
 * second thread, while this thread hashes the temporary file's pages right
 * behind it.  So the hash is of the bytes actually written, even if the
 * input changes meanwhile, and hashing overlaps copying. */
struct copier {
	int in, out;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t copied;   /* bytes in the temporary file so far */
	int done;
	int error;         /* errno of a failed copy_file_range */
};

#define COPY_STEP (8 * BLOB_CHUNK_SIZE)

static void *copier_thread(void *arg)
{
	struct copier *c = arg;
	int e = 0;

	for (;;) {
		ssize_t n = copy_file_range(c->in, NULL, c->out, NULL, COPY_STEP, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			break;
		}
		if (n == 0)
			break;
		/* start writing back right away, so the disk works while the
		 * other thread hashes and the final fsync has little left */
		sync_file_range(c->out, (off_t)c->copied, n, SYNC_FILE_RANGE_WRITE);
		pthread_mutex_lock(&c->mu);
		c->copied += (uint64_t)n;
		pthread_cond_signal(&c->cv);
		pthread_mutex_unlock(&c->mu);
	}
	/* The content is almost surely new (known sizes are hashed first), so
	 * make it durable now, while the other thread still hashes: the fsync
	 * before the rename then finds nothing left to do. */
	if (!e && fdatasync(c->out) != 0)
		e = errno;
	pthread_mutex_lock(&c->mu);
	c->error = e;
	c->done = 1;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* Returns BB_ERR_UNSUPPORTED (with nothing written) when the kernel cannot
 * copy between these files, so the caller can read and write instead. */
static enum bb_status writer_copy_file(struct blob_writer *w, int fd, uint64_t total,
				       blob_progress_fn progress, void *pctx,
				       struct bb_error *err)
{
	struct copier c = { fd, w->fd, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			    0, 0, 0 };
	pthread_t thread;
	uint64_t hashed = 0;
	enum bb_status s = BB_OK;
	off_t start = lseek(fd, 0, SEEK_CUR);

	if (start < 0 || pthread_create(&thread, NULL, copier_thread, &c) != 0)
		return BB_ERR_UNSUPPORTED;
	for (;;) {
		uint64_t avail;
		int done, e;

		pthread_mutex_lock(&c.mu);
		while (c.copied == hashed && !c.done)
			pthread_cond_wait(&c.cv, &c.mu);
		avail = c.copied;
		done = c.done;
		e = c.error;
		pthread_mutex_unlock(&c.mu);
		while (hashed < avail && !s) {
			size_t want = avail - hashed > BLOB_CHUNK_SIZE ? BLOB_CHUNK_SIZE
								     : (size_t)(avail - hashed);
			ssize_t n = pread(w->fd, w->bufs[0], want, (off_t)hashed);

			if (n <= 0) {
				s = bb_error_errno(err, n < 0 ? errno : EIO,
						   "cannot read back the temporary file");
				break;
			}
			sha256_update(&w->md, w->bufs[0], (size_t)n);
			writer_note_head(w, w->bufs[0], (size_t)n);
			hashed += (uint64_t)n;
			if (progress)
				progress(pctx, hashed, total);
			test_hook("blob.write");
		}
		if (s || done) {
			if (!s && e) {
				if (hashed == 0 && (e == EXDEV || e == ENOSYS || e == EOPNOTSUPP ||
						    e == EINVAL || e == EBADF))
					s = BB_ERR_UNSUPPORTED;
				else
					s = write_error(w, e, err);
			}
			if (s || hashed == avail)
				break;
		}
	}
	pthread_join(thread, NULL);
	if (s == BB_ERR_UNSUPPORTED && lseek(fd, start, SEEK_SET) < 0)
		s = bb_error_errno(err, errno, "cannot rewind the input");
	w->size = hashed;
	return s;
}
#endif

void blob_writer_abort(struct blob_writer *w)
{
	if (!w)
		return;
	writer_drain(w);
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp_path) {
		unlink(w->tmp_path);
		free(w->tmp_path);
	}
	sha256_release(&w->md);
	free(w->head);
	for (int i = 0; i < BLOB_NBUF; i++)
		free(w->bufs[i]);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
}

/* Makes the written data durable and gives it its final name, unless a
 * file of that name is there already.  *placed tells whether we made it. */
static enum bb_status writer_place(struct blob_writer *w, const char *hex, int *placed,
				   struct bb_error *err)
{
	char *dir = blob_dir(w->bs, hex), *path = blob_path(w->bs, hex);
	struct stat sb;
	enum bb_status s = BB_OK;
	int dir_existed, r;

	*placed = 0;
	if (!dir || !path) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (stat(path, &sb) == 0)
		goto out; /* same content is stored: nothing to write */
	if (!w->batched) {
		if (fsync(w->fd) != 0) {
			s = write_error(w, errno, err);
			goto out;
		}
		test_hook("blob.synced");
	}
	if (fchmod(w->fd, 0444) != 0) {
		s = bb_error_errno(err, errno, "cannot make the blob read-only");
		goto out;
	}
	dir_existed = stat(dir, &sb) == 0;
	if (!dir_existed && mkdir(dir, 0755) != 0 && errno != EEXIST) {
		s = bb_error_errno(err, errno, "cannot create folder %s", dir);
		goto out;
	}
	if (w->tmp_path) {
		r = rename(w->tmp_path, path);
		if (r == 0) {
			free(w->tmp_path);
			w->tmp_path = NULL;
		}
	} else {
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", w->fd);
		r = linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
		if (r != 0 && errno == EEXIST)
			goto out; /* stored by someone else meanwhile */
	}
	if (r != 0) {
		s = bb_error_errno(err, errno, "cannot move the blob into %s", path);
		goto out;
	}
	*placed = 1;
	if (w->batched)
		goto out;
	if ((s = fs_fsync_dir(dir, err)))
		goto out;
	if (!dir_existed)
		s = fs_fsync_dir(w->bs->tree, err);
	test_hook("blob.placed");
out:
	free(dir);
	free(path);
	return s;
}

/* Writes what is still buffered, waits for the writer thread, and gives the
 * hash of everything written. */
static enum bb_status writer_finish(struct blob_writer *w, char hex[BLOB_HEX_LEN + 1],
				    struct bb_error *err)
{
	size_t idx = w->async ? (size_t)(w->submitted % BLOB_NBUF) : 0;
	int e = writer_drain(w);

	if (e)
		return write_error(w, e, err);
	if (w->fill) {
		if (fs_write_all(w->fd, w->bufs[idx], w->fill) != 0)
			return write_error(w, errno, err);
		w->fill = 0;
	}
	if (sha256_final_hex(&w->md, hex))
		return bb_error_set(err, BB_ERR_INTERNAL, "SHA-256 failed");
	return BB_OK;
}

/* ------------------------------------------------------------- metadata */

struct member_rec {
	char *path;
	unsigned depth;
	char kind[16];
	uint64_t size;
	char hash[BLOB_HEX_LEN + 1];
	char *note;
	char content_type[128];
	int stored;   /* stored as a blob of its own */
};

/* Members written but not yet placed: their data is made durable by one
 * syncfs() per batch instead of one fsync() per file, then they are named,
 * then the names by one more (an archive may hold 10,000 members). */
#define MEMBER_BATCH 64

struct inspection {
	struct blob_store *bs;
	struct member_rec *members;
	size_t n, alloc;
	struct inspect_report report;
	struct blob_writer *batch[MEMBER_BATCH];
	char batch_hex[MEMBER_BATCH][BLOB_HEX_LEN + 1];
	size_t nbatch;
	struct blob_writer *mw;      /* member being stored as a blob */
	int pending_stored;          /* the member just ended was stored */
	char pending_type[128];
	enum bb_status failure;      /* what stopped a member from being stored */
	struct bb_error member_err;
};

static void inspection_release(struct inspection *in)
{
	for (size_t i = 0; i < in->n; i++) {
		free(in->members[i].path);
		free(in->members[i].note);
	}
	free(in->members);
	blob_writer_abort(in->mw);
	in->mw = NULL;
	for (size_t i = 0; i < in->nbatch; i++)
		blob_writer_abort(in->batch[i]);
	in->nbatch = 0;
}

/* Makes the file system holding the store durable: the data of the batch's
 * files, then their names. */
static enum bb_status sync_store_fs(struct blob_store *bs, struct bb_error *err)
{
	int fd = open(bs->tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return bb_error_errno(err, errno, "cannot open %s", bs->tree);
	r = syncfs(fd);
	close(fd);
	return r ? bb_error_errno(err, errno, "cannot make %s durable", bs->tree) : BB_OK;
}

/* Places the batched members: their data durable first, then their names. */
static enum bb_status flush_members(struct inspection *in, struct bb_error *err)
{
	enum bb_status s = BB_OK;
	size_t placed_any = 0;

	if (!in->nbatch)
		return BB_OK;
	s = sync_store_fs(in->bs, err);
	if (!s)
		test_hook("blob.synced");
	for (size_t i = 0; i < in->nbatch; i++) {
		int placed = 0;

		if (!s) {
			in->batch[i]->batched = 1;
			s = writer_place(in->batch[i], in->batch_hex[i], &placed, err);
			placed_any += (size_t)placed;
		}
		blob_writer_abort(in->batch[i]);
		in->batch[i] = NULL;
	}
	in->nbatch = 0;
	if (!s && placed_any && !(s = sync_store_fs(in->bs, err)))
		test_hook("blob.placed");
	return s;
}

static enum bb_status on_member(void *ctx, const struct inspect_member *m)
{
	struct inspection *in = ctx;
	struct member_rec *r;

	if (in->n == in->alloc) {
		size_t alloc = in->alloc ? in->alloc * 2 : 32;
		struct member_rec *p = realloc(in->members, alloc * sizeof(*p));

		if (!p)
			return BB_ERR_NOMEM;
		in->members = p;
		in->alloc = alloc;
	}
	r = &in->members[in->n];
	memset(r, 0, sizeof(*r));
	r->path = strdup(m->path);
	r->note = m->note ? strdup(m->note) : NULL;
	if (!r->path || (m->note && !r->note)) {
		free(r->path);
		free(r->note);
		return BB_ERR_NOMEM;
	}
	r->depth = m->depth;
	snprintf(r->kind, sizeof(r->kind), "%s", m->kind);
	r->size = m->size;
	if (m->hash)
		snprintf(r->hash, sizeof(r->hash), "%s", m->hash);
	if (in->pending_stored && m->hash) {
		r->stored = 1;
		memcpy(r->content_type, in->pending_type, sizeof(r->content_type));
	}
	in->pending_stored = 0;
	in->n++;
	return BB_OK;
}

static enum bb_status on_data_begin(void *ctx, const struct inspect_member *m)
{
	struct inspection *in = ctx;

	(void)m;
	blob_writer_abort(in->mw);
	in->mw = NULL;
	in->pending_stored = 0;
	return writer_create(in->bs, 0, 0, &in->mw, &in->member_err);
}

static enum bb_status on_data(void *ctx, const void *bytes, size_t len)
{
	struct inspection *in = ctx;

	return in->mw ? blob_writer_write(in->mw, bytes, len, &in->member_err) : BB_OK;
}

static enum bb_status on_data_end(void *ctx, const struct inspect_member *m, int ok)
{
	struct inspection *in = ctx;
	char hex[BLOB_HEX_LEN + 1], *path = NULL;
	enum bb_status s = BB_OK;
	struct stat sb;

	if (!in->mw || !ok)
		goto out;
	if ((s = writer_finish(in->mw, hex, &in->member_err)))
		goto out;
	if (m->hash && strcmp(hex, m->hash) != 0) {
		s = bb_error_set(&in->member_err, BB_ERR_INTERNAL,
				 "member %s hashed differently by the inspector and the store",
				 m->path);
		goto out;
	}
	pthread_mutex_lock(&in->bs->lock);
	detect_type(in->bs, in->mw->head, in->mw->head_len, in->pending_type,
		    sizeof(in->pending_type));
	pthread_mutex_unlock(&in->bs->lock);
	path = blob_path(in->bs, hex);
	if (!path) {
		s = bb_error_set(&in->member_err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (stat(path, &sb) != 0) {
		/* placed with its batch (flush_members()); its buffers go now */
		for (int i = 0; i < BLOB_NBUF; i++) {
			free(in->mw->bufs[i]);
			in->mw->bufs[i] = NULL;
		}
		free(in->mw->head);
		in->mw->head = NULL;
		in->batch[in->nbatch] = in->mw;
		memcpy(in->batch_hex[in->nbatch], hex, sizeof(hex));
		in->nbatch++;
		in->mw = NULL;
		if (in->nbatch == MEMBER_BATCH && (s = flush_members(in, &in->member_err)))
			goto out;
	}
	in->pending_stored = 1;
out:
	free(path);
	blob_writer_abort(in->mw);
	in->mw = NULL;
	return s;
}

/* Lists the archive in the stored file at path (if it is one). */
static enum bb_status inspect_stored(struct blob_store *bs, const char *path, uint64_t size,
				     struct inspection *in, struct bb_error *err)
{
	struct inspect_callbacks cb = { in, on_member, NULL, NULL, NULL };
	enum bb_status s;
	int fd;

	in->bs = bs;
	if (bs->store_members) {
		cb.data_begin = on_data_begin;
		cb.data = on_data;
		cb.data_end = on_data_end;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bb_error_errno(err, errno, "cannot read back %s", path);
	s = inspect_fd(fd, size, &bs->limits, &cb, &in->report, err);
	close(fd);
	if (!s)
		s = flush_members(in, &in->member_err);
	if (s && in->member_err.code)
		*err = in->member_err;
	return s;
}

static int row_exists(struct blob_store *bs, const char *hex)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (store_prepare(bs->db, &st, "SELECT 1 FROM blob WHERE hash = ?", NULL))
		return 0;
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

static int row_exists_locked(struct blob_store *bs, const char *hex)
{
	int found;

	pthread_mutex_lock(&bs->lock);
	found = row_exists(bs, hex);
	pthread_mutex_unlock(&bs->lock);
	return found;
}

static int size_exists(struct blob_store *bs, uint64_t size)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	pthread_mutex_lock(&bs->lock);
	if (!store_prepare(bs->db, &st, "SELECT 1 FROM blob WHERE size = ? LIMIT 1", NULL)) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)size);
		found = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&bs->lock);
	return found;
}

static enum bb_status step_done(struct blob_store *bs, sqlite3_stmt *st, struct bb_error *err,
				const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_fail(bs, err, what);
	return BB_OK;
}

static enum bb_status insert_blob_row(struct blob_store *bs, const char *hex, uint64_t size,
				      const char *type, time_t now, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(bs->db, &st,
			       "INSERT INTO blob (hash, size, content_type, first_seen, last_seen)"
			       " VALUES (?1, ?2, ?3, ?4, ?4)"
			       " ON CONFLICT (hash) DO UPDATE SET last_seen = excluded.last_seen",
			       err)))
		return s;
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)size);
	sqlite3_bind_text(st, 3, type, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)now);
	s = step_done(bs, st, err, "recording a blob");
	sqlite3_finalize(st);
	return s;
}

static enum bb_status insert_name(struct blob_store *bs, const char *hex,
				  const struct blob_origin *o, time_t now, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(bs->db, &st,
			       "INSERT OR IGNORE INTO blob_name"
			       " (hash, name, declared_type, origin, origin_ref, added)"
			       " VALUES (?, ?, ?, ?, ?, ?)", err)))
		return s;
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, o && o->name ? o->name : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, o && o->declared_type ? o->declared_type : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, o && o->origin && *o->origin ? o->origin : "upload", -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(st, 5, o && o->origin_ref ? o->origin_ref : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)now);
	s = step_done(bs, st, err, "recording a blob's name");
	sqlite3_finalize(st);
	return s;
}

static enum bb_status insert_ref(struct blob_store *bs, const char *hex, const char *kind,
				 const char *ref, time_t now, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(bs->db, &st,
			       "INSERT OR IGNORE INTO blob_ref (hash, kind, ref, created)"
			       " VALUES (?, ?, ?, ?)", err)))
		return s;
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, ref ? ref : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)now);
	s = step_done(bs, st, err, "recording a blob reference");
	sqlite3_finalize(st);
	return s;
}

static enum bb_status record_inspection(struct blob_store *bs, const char *hex,
					const struct inspection *in, time_t now,
					struct bb_error *err)
{
	sqlite3_stmt *up = NULL, *mem = NULL;
	enum bb_status s;

	if ((s = store_prepare(bs->db, &up,
			       "UPDATE blob SET archive_status = ?, archive_format = ?,"
			       " archive_note = ? WHERE hash = ?", err)))
		goto out;
	{
		char format[160];

		snprintf(format, sizeof(format), "%s%s%s", in->report.format,
			 in->report.filters[0] ? "+" : "", in->report.filters);
		sqlite3_bind_text(up, 1, inspect_status_str(in->report.status), -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 2, format, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(up, 3, in->report.note, -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 4, hex, -1, SQLITE_STATIC);
		if ((s = step_done(bs, up, err, "recording an archive")))
			goto out;
	}
	if ((s = store_prepare(bs->db, &mem,
			       "INSERT OR IGNORE INTO blob_member"
			       " (parent, seq, depth, path, kind, size, hash, note)"
			       " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", err)))
		goto out;
	for (size_t i = 0; i < in->n; i++) {
		const struct member_rec *r = &in->members[i];

		sqlite3_bind_text(mem, 1, hex, -1, SQLITE_STATIC);
		sqlite3_bind_int64(mem, 2, (sqlite3_int64)i);
		sqlite3_bind_int(mem, 3, (int)r->depth);
		sqlite3_bind_text(mem, 4, r->path, -1, SQLITE_STATIC);
		sqlite3_bind_text(mem, 5, r->kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(mem, 6, (sqlite3_int64)r->size);
		if (r->hash[0])
			sqlite3_bind_text(mem, 7, r->hash, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(mem, 7);
		if (r->note)
			sqlite3_bind_text(mem, 8, r->note, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(mem, 8);
		if ((s = step_done(bs, mem, err, "recording an archive member")))
			goto out;
		if (r->stored) {
			struct blob_origin o = { r->path, "", "archive-member", hex };

			if ((s = insert_blob_row(bs, r->hash, r->size, r->content_type, now, err)) ||
			    (s = insert_name(bs, r->hash, &o, now, err)) ||
			    (s = insert_ref(bs, r->hash, "member-of", hex, now, err)))
				goto out;
		}
	}
out:
	sqlite3_finalize(up);
	sqlite3_finalize(mem);
	return s;
}

/* Records the blob hex (already in place unless w can still place it) and
 * one more name for it.  type is the detected content type, used when the
 * blob is new.  Returns BB_ERR_NOT_FOUND if the file vanished and w is NULL,
 * so the caller can write it. */
static enum bb_status record(struct blob_store *bs, struct blob_writer *w, const char *hex,
			     uint64_t size, const char *type, const struct blob_origin *origin,
			     struct blob_info *info, struct bb_error *err)
{
	struct inspection in;
	char *path = blob_path(bs, hex);
	time_t now = time(NULL);
	int known, placed = 0, inspected = 0;
	struct stat sb;
	enum bb_status s = BB_OK;

	memset(&in, 0, sizeof(in));
	if (!path)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	pthread_mutex_lock(&bs->lock);
	known = row_exists(bs, hex);
	pthread_mutex_unlock(&bs->lock);

	if (w && (s = writer_place(w, hex, &placed, err)))
		goto out;
	if (!known) {
		/* first time: list the archive before taking the database lock */
		if ((s = inspect_stored(bs, path, size, &in, err)))
			goto out;
		inspected = in.report.status != INSPECT_NOT_ARCHIVE;
	}

	pthread_mutex_lock(&bs->lock);
	if ((s = store_begin(bs->db, err)))
		goto unlock;
	/* gc may have removed the file since; it holds the write lock while it
	 * deletes, so this check cannot race with it */
	if (stat(path, &sb) != 0) {
		if (!w) {
			s = bb_error_set(err, BB_ERR_NOT_FOUND, "blob file vanished");
			goto rollback;
		}
		if ((s = writer_place(w, hex, &placed, err)))
			goto rollback;
	}
	if ((s = insert_blob_row(bs, hex, size, type, now, err)) ||
	    (s = insert_name(bs, hex, origin, now, err)))
		goto rollback;
	if (inspected && (s = record_inspection(bs, hex, &in, now, err)))
		goto rollback;
	if ((s = store_commit(bs->db, err)))
		goto unlock;
	test_hook("blob.recorded");
	goto unlock;
rollback:
	store_rollback(bs->db);
unlock:
	pthread_mutex_unlock(&bs->lock);
	if (!s) {
		log_event(LOG_LEVEL_INFO, "blob.stored", LF_STR("hash", hex), LF_UINT("size", size),
			  LF_STR("type", type), LF_INT("new", !known),
			  LF_STR("origin", origin && origin->origin ? origin->origin : "upload"),
			  LF_STR("name", origin && origin->name ? origin->name : ""));
		s = blob_lookup(bs, hex, info, err);
		if (!s && info)
			info->already_stored = known || (w && !placed);
	}
out:
	inspection_release(&in);
	free(path);
	return s;
}

enum bb_status blob_writer_commit(struct blob_writer *w, const struct blob_origin *origin,
				  struct blob_info *info, struct bb_error *err)
{
	char hex[BLOB_HEX_LEN + 1], type[128];
	enum bb_status s;

	if ((s = writer_finish(w, hex, err)))
		goto out;
	pthread_mutex_lock(&w->bs->lock);
	detect_type(w->bs, w->head, w->head_len, type, sizeof(type));
	pthread_mutex_unlock(&w->bs->lock);
	s = record(w->bs, w, hex, w->size, type, origin, info, err);
out:
	blob_writer_abort(w);
	return s;
}

/* Hashes fd from its start without writing anything. */
static enum bb_status hash_fd(int fd, uint64_t total, char hex[BLOB_HEX_LEN + 1],
			      uint64_t *size, blob_progress_fn progress, void *pctx,
			      struct bb_error *err)
{
	struct sha256 md = { NULL };
	char *chunk = malloc(BLOB_CHUNK_SIZE);
	uint64_t done = 0;
	enum bb_status s = BB_OK;

	if (!chunk || sha256_init(&md)) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (;;) {
		ssize_t n = pread(fd, chunk, BLOB_CHUNK_SIZE, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			s = bb_error_errno(err, errno, "cannot read the input");
			goto out;
		}
		if (n == 0)
			break;
		sha256_update(&md, chunk, (size_t)n);
		done += (uint64_t)n;
		if (progress)
			progress(pctx, done, total);
	}
	if (sha256_final_hex(&md, hex)) {
		s = bb_error_set(err, BB_ERR_INTERNAL, "SHA-256 failed");
		goto out;
	}
	*size = done;
out:
	sha256_release(&md);
	free(chunk);
	return s;
}

enum bb_status blob_put_fd(struct blob_store *bs, int fd, const struct blob_origin *origin,
			   blob_progress_fn progress, void *pctx,
			   struct blob_info *info, struct bb_error *err)
{
	struct blob_writer *w = NULL;
	struct stat sb;
	uint64_t total = 0;
	int regular, async = 1;
	enum bb_status s;

	if (fstat(fd, &sb) != 0)
		return bb_error_errno(err, errno, "cannot examine the input");
	if (S_ISDIR(sb.st_mode))
		return bb_error_set(err, BB_ERR_INVALID, "is a folder, not a file");
	regular = S_ISREG(sb.st_mode);
	if (regular) {
		total = (uint64_t)sb.st_size;
		async = total >= BLOB_ASYNC_MIN;
#ifdef HAVE_POSIX_FADVISE
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
		/* Content of this size may be stored already: hash first, so
		 * that storing it again writes nothing. */
		if (size_exists(bs, total)) {
			char hex[BLOB_HEX_LEN + 1];
			uint64_t size;

			if ((s = hash_fd(fd, total, hex, &size, progress, pctx, err)))
				return s;
			pthread_mutex_lock(&bs->lock);
			s = row_exists(bs, hex) ? BB_OK : BB_ERR_NOT_FOUND;
			pthread_mutex_unlock(&bs->lock);
			if (!s) {
				struct blob_info known;

				s = blob_lookup(bs, hex, &known, err);
				if (!s)
					s = record(bs, NULL, hex, size, known.content_type, origin,
						   info, err);
				if (s != BB_ERR_NOT_FOUND)
					return s;
			}
			bb_error_clear(err);
			if (lseek(fd, 0, SEEK_SET) != 0)
				return bb_error_errno(err, errno, "cannot rewind the input");
		}
	}
#ifdef HAVE_COPY_FILE_RANGE
	if (regular && total >= BLOB_ASYNC_MIN) {
		if ((s = writer_create(bs, 0, 0, &w, err)))
			return s;
		s = writer_copy_file(w, fd, total, progress, pctx, err);
		if (s == BB_OK)
			return blob_writer_commit(w, origin, info, err);
		blob_writer_abort(w);
		w = NULL;
		if (s != BB_ERR_UNSUPPORTED)
			return s;
		bb_error_clear(err);
	}
#endif
	if ((s = writer_create(bs, 0, async, &w, err)))
		return s;
	if ((s = writer_fill_from_fd(w, fd, total, progress, pctx, err))) {
		blob_writer_abort(w);
		return s;
	}
	return blob_writer_commit(w, origin, info, err);
}

enum bb_status blob_put_memory(struct blob_store *bs, const void *data, size_t len,
			       const struct blob_origin *origin, struct blob_info *info,
			       struct bb_error *err)
{
	struct blob_writer *w;
	enum bb_status s;

	if ((s = blob_writer_open(bs, 0, &w, err)))
		return s;
	if ((s = blob_writer_write(w, data, len, err))) {
		blob_writer_abort(w);
		return s;
	}
	return blob_writer_commit(w, origin, info, err);
}

/* -------------------------------------------------------------- reading */

static void info_from_row(sqlite3_stmt *st, int col, struct blob_info *info)
{
	const unsigned char *t;

	memset(info, 0, sizeof(*info));
	snprintf(info->hash, sizeof(info->hash), "%s", (const char *)sqlite3_column_text(st, col));
	info->size = (uint64_t)sqlite3_column_int64(st, col + 1);
	snprintf(info->content_type, sizeof(info->content_type), "%s",
		 (const char *)sqlite3_column_text(st, col + 2));
	info->first_seen = (time_t)sqlite3_column_int64(st, col + 3);
	info->last_seen = (time_t)sqlite3_column_int64(st, col + 4);
	t = sqlite3_column_text(st, col + 5);
	info->archive_status = INSPECT_NOT_ARCHIVE;
	if (t) {
		if (!strcmp((const char *)t, "ok"))
			info->archive_status = INSPECT_OK;
		else if (!strcmp((const char *)t, "too-large"))
			info->archive_status = INSPECT_TOO_LARGE;
		else if (!strcmp((const char *)t, "damaged"))
			info->archive_status = INSPECT_DAMAGED;
	}
	t = sqlite3_column_text(st, col + 6);
	snprintf(info->archive_format, sizeof(info->archive_format), "%s", t ? (const char *)t : "");
	t = sqlite3_column_text(st, col + 7);
	snprintf(info->archive_note, sizeof(info->archive_note), "%s", t ? (const char *)t : "");
}

#define INFO_COLUMNS "hash, size, content_type, first_seen, last_seen," \
	" archive_status, archive_format, archive_note"

enum bb_status blob_lookup(struct blob_store *bs, const char *hex, struct blob_info *info,
			   struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	int rc;

	pthread_mutex_lock(&bs->lock);
	if ((s = store_prepare(bs->db, &st, "SELECT " INFO_COLUMNS " FROM blob WHERE hash = ?",
			       err)))
		goto out;
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (info)
			info_from_row(st, 0, info);
	} else if (rc == SQLITE_DONE) {
		s = bb_error_set(err, BB_ERR_NOT_FOUND, "no blob sha256:%s", hex);
	} else {
		s = db_fail(bs, err, "looking up a blob");
	}
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&bs->lock);
	return s;
}

enum bb_status blob_open(struct blob_store *bs, const char *hex, int *fd,
			 struct blob_info *info, struct bb_error *err)
{
	char *path;
	enum bb_status s;

	*fd = -1;
	if ((s = blob_lookup(bs, hex, info, err)))
		return s;
	if (!(path = blob_path(bs, hex)))
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		if (errno == ENOENT)
			s = bb_error_set(err, BB_ERR_NOT_FOUND,
					 "blob sha256:%s is recorded but its file %s is missing "
					 "(see bugbridge blob verify)", hex, path);
		else
			s = bb_error_errno(err, errno, "cannot open %s", path);
	}
	free(path);
	return s;
}

enum bb_status blob_each(struct blob_store *bs,
			 enum bb_status (*fn)(void *ctx, const struct blob_info *info),
			 void *ctx, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	struct blob_info info;
	enum bb_status s;
	int rc;

	pthread_mutex_lock(&bs->lock);
	if ((s = store_prepare(bs->db, &st, "SELECT " INFO_COLUMNS " FROM blob"
			       " ORDER BY first_seen, hash", err)))
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		info_from_row(st, 0, &info);
		if ((s = fn(ctx, &info)))
			goto out;
	}
	if (rc != SQLITE_DONE)
		s = db_fail(bs, err, "listing blobs");
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&bs->lock);
	return s;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

/* Runs sql (one parameter, the hash) under the lock and hands each row to
 * row(), which turns it into the caller's struct and calls the caller's
 * callback. */
typedef enum bb_status (*name_fn)(void *ctx, const struct blob_name *n);
typedef enum bb_status (*member_fn)(void *ctx, const struct inspect_member *m);
typedef enum bb_status (*ref_fn)(void *ctx, const struct blob_ref *r);

struct row_walk {
	union {
		name_fn name;
		member_fn member;
		ref_fn ref;
	} fn;
	void *ctx;
};

static enum bb_status each_row(struct blob_store *bs, const char *sql, const char *hex,
			       enum bb_status (*row)(sqlite3_stmt *st, const struct row_walk *w),
			       const struct row_walk *walk, const char *what,
			       struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	int rc;

	pthread_mutex_lock(&bs->lock);
	if ((s = store_prepare(bs->db, &st, sql, err)))
		goto out;
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((s = row(st, walk)))
			goto out;
	if (rc != SQLITE_DONE)
		s = db_fail(bs, err, what);
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&bs->lock);
	return s;
}

static const char *col_text_or_null(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NULL : col_text(st, i);
}

static enum bb_status name_row(sqlite3_stmt *st, const struct row_walk *w)
{
	struct blob_name n = { col_text(st, 0), col_text(st, 1), col_text(st, 2),
			       col_text(st, 3), (time_t)sqlite3_column_int64(st, 4) };

	return w->fn.name(w->ctx, &n);
}

static enum bb_status member_row(sqlite3_stmt *st, const struct row_walk *w)
{
	struct inspect_member m = {
		col_text(st, 0), (unsigned)sqlite3_column_int(st, 1), col_text(st, 2),
		(uint64_t)sqlite3_column_int64(st, 3), col_text_or_null(st, 4),
		col_text_or_null(st, 5),
	};

	return w->fn.member(w->ctx, &m);
}

static enum bb_status ref_row(sqlite3_stmt *st, const struct row_walk *w)
{
	struct blob_ref r = { col_text(st, 0), col_text(st, 1),
			      (time_t)sqlite3_column_int64(st, 2) };

	return w->fn.ref(w->ctx, &r);
}

enum bb_status blob_each_name(struct blob_store *bs, const char *hex, name_fn fn, void *ctx,
			      struct bb_error *err)
{
	struct row_walk w = { .fn.name = fn, .ctx = ctx };

	return each_row(bs, "SELECT name, declared_type, origin, origin_ref, added"
			    " FROM blob_name WHERE hash = ? ORDER BY id",
			hex, name_row, &w, "listing blob names", err);
}

enum bb_status blob_each_member(struct blob_store *bs, const char *hex, member_fn fn,
				void *ctx, struct bb_error *err)
{
	struct row_walk w = { .fn.member = fn, .ctx = ctx };

	return each_row(bs, "SELECT path, depth, kind, size, hash, note"
			    " FROM blob_member WHERE parent = ? ORDER BY seq",
			hex, member_row, &w, "listing archive members", err);
}

enum bb_status blob_each_ref(struct blob_store *bs, const char *hex, ref_fn fn, void *ctx,
			     struct bb_error *err)
{
	struct row_walk w = { .fn.ref = fn, .ctx = ctx };

	return each_row(bs, "SELECT kind, ref, created FROM blob_ref WHERE hash = ?"
			    " ORDER BY created, kind, ref",
			hex, ref_row, &w, "listing blob references", err);
}

/* ---------------------------------------------------------- references */

enum bb_status blob_add_ref(struct blob_store *bs, const char *hex, const char *kind,
			    const char *ref, struct bb_error *err)
{
	enum bb_status s;

	if ((s = blob_lookup(bs, hex, NULL, err)))
		return s;
	pthread_mutex_lock(&bs->lock);
	s = insert_ref(bs, hex, kind, ref, time(NULL), err);
	pthread_mutex_unlock(&bs->lock);
	return s;
}

enum bb_status blob_remove_ref(struct blob_store *bs, const char *hex, const char *kind,
			       const char *ref, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	pthread_mutex_lock(&bs->lock);
	if (!(s = store_prepare(bs->db, &st,
				"DELETE FROM blob_ref WHERE hash = ? AND kind = ? AND ref = ?", err))) {
		sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, ref ? ref : "", -1, SQLITE_STATIC);
		s = step_done(bs, st, err, "removing a blob reference");
		if (!s && sqlite3_changes(bs->db->db) == 0)
			s = bb_error_set(err, BB_ERR_NOT_FOUND, "sha256:%s has no %s reference",
					 hex, kind);
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&bs->lock);
	return s;
}

/* ------------------------------------------------------------- checking */

enum bb_status blob_verify(struct blob_store *bs, const char *hex, enum blob_check *result,
			   blob_progress_fn progress, void *pctx, struct bb_error *err)
{
	struct blob_info info;
	char got[BLOB_HEX_LEN + 1];
	uint64_t size = 0;
	struct stat sb;
	enum bb_status s;
	int fd;

	*result = BLOB_CHECK_OK;
	s = blob_open(bs, hex, &fd, &info, err);
	if (s == BB_ERR_NOT_FOUND) {
		bb_error_clear(err);
		*result = row_exists_locked(bs, hex) ? BLOB_CHECK_MISSING : BLOB_CHECK_UNKNOWN;
		return BB_OK;
	}
	if (s)
		return s;
	if (fstat(fd, &sb) == 0 && (uint64_t)sb.st_size != info.size)
		*result = BLOB_CHECK_SIZE;
	s = hash_fd(fd, (uint64_t)sb.st_size, got, &size, progress, pctx, err);
	close(fd);
	if (s)
		return s;
	if (strcmp(got, hex) != 0)
		*result = BLOB_CHECK_CORRUPT;
	if (*result != BLOB_CHECK_OK)
		log_event(LOG_LEVEL_WARN, "blob.verify_failed", LF_STR("hash", hex),
			  LF_STR("result", blob_check_str(*result)), LF_STR("actual", got));
	return BB_OK;
}

/* ------------------------------------------------------------------ gc */

struct gc_run {
	struct blob_store *bs;
	int dry_run;
	void (*fn)(void *ctx, const struct blob_gc_item *item);
	void *ctx;
	struct blob_gc_stats *stats;
};

static void gc_report(struct gc_run *run, const char *hash, const char *path, uint64_t size,
		      const char *reason)
{
	struct blob_gc_item item = { hash, path, size, reason };

	run->stats->blobs++;
	run->stats->bytes += size;
	if (run->fn)
		run->fn(run->ctx, &item);
	log_event(LOG_LEVEL_INFO, run->dry_run ? "blob.gc_would_remove" : "blob.gc_removed",
		  LF_STR("hash", hash ? hash : "-"), LF_STR("path", path),
		  LF_UINT("size", size), LF_STR("reason", reason));
}

/* Removes unreferenced blobs last stored before cutoff, round after round,
 * since removing an archive can leave its members unreferenced. */
static enum bb_status gc_blobs(struct gc_run *run, time_t cutoff, struct bb_error *err)
{
	struct blob_store *bs = run->bs;
	sqlite3_stmt *pick = NULL, *unref = NULL, *del = NULL;
	enum bb_status s;
	int removed;

	if ((s = store_prepare(bs->db, &pick,
			       "SELECT hash, size FROM blob b WHERE last_seen <= ? AND NOT EXISTS"
			       " (SELECT 1 FROM blob_ref r WHERE r.hash = b.hash) LIMIT 256", err)) ||
	    (s = store_prepare(bs->db, &unref,
			       "DELETE FROM blob_ref WHERE kind = 'member-of' AND ref = ?", err)) ||
	    (s = store_prepare(bs->db, &del, "DELETE FROM blob WHERE hash = ?", err)))
		goto out;
	do {
		char hashes[256][BLOB_HEX_LEN + 1];
		uint64_t sizes[256];
		int n = 0, rc;

		removed = 0;
		sqlite3_bind_int64(pick, 1, (sqlite3_int64)cutoff);
		while (n < 256 && (rc = sqlite3_step(pick)) == SQLITE_ROW) {
			snprintf(hashes[n], sizeof(hashes[n]), "%s", col_text(pick, 0));
			sizes[n] = (uint64_t)sqlite3_column_int64(pick, 1);
			n++;
		}
		sqlite3_reset(pick);
		for (int i = 0; i < n; i++) {
			char *path = blob_path(bs, hashes[i]);

			if (!path) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				goto out;
			}
			sqlite3_bind_text(unref, 1, hashes[i], -1, SQLITE_STATIC);
			sqlite3_bind_text(del, 1, hashes[i], -1, SQLITE_STATIC);
			if ((s = step_done(bs, unref, err, "removing member references")) ||
			    (s = step_done(bs, del, err, "removing a blob"))) {
				free(path);
				goto out;
			}
			if (!run->dry_run && unlink(path) != 0 && errno != ENOENT) {
				s = bb_error_errno(err, errno, "cannot remove %s", path);
				free(path);
				goto out;
			}
			gc_report(run, hashes[i], path, sizes[i], "unreferenced");
			free(path);
			removed++;
		}
	} while (removed > 0);
out:
	sqlite3_finalize(pick);
	sqlite3_finalize(unref);
	sqlite3_finalize(del);
	return s;
}

/* Files in the tree without metadata, and leftover temporary files. */
static enum bb_status gc_files(struct gc_run *run, time_t cutoff, time_t tmp_cutoff,
			       struct bb_error *err)
{
	struct blob_store *bs = run->bs;
	enum bb_status s = BB_OK;
	DIR *top = NULL, *sub = NULL;
	struct dirent *de, *fe;
	struct stat sb;

	if (!(top = opendir(bs->tree)))
		return bb_error_errno(err, errno, "cannot read %s", bs->tree);
	while ((de = readdir(top))) {
		char *dir;

		if (strlen(de->d_name) != 2 || !is_hex_digit(de->d_name[0]) ||
		    !is_hex_digit(de->d_name[1]))
			continue;
		if (!(dir = str_printf("%s/%s", bs->tree, de->d_name)))
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		sub = opendir(dir);
		while (sub && (fe = readdir(sub))) {
			char hex[BLOB_HEX_LEN + 1], *path;
			int valid = strlen(fe->d_name) == BLOB_HEX_LEN - 2;

			if (fe->d_name[0] == '.')
				continue;
			if (valid) {
				memcpy(hex, de->d_name, 2);
				memcpy(hex + 2, fe->d_name, BLOB_HEX_LEN - 2);
				hex[BLOB_HEX_LEN] = '\0';
				valid = blob_parse_hash(hex, hex, NULL) == BB_OK;
			}
			path = str_printf("%s/%s", dir, fe->d_name);
			if (!path)
				continue;
			if (lstat(path, &sb) == 0 && sb.st_mtime <= cutoff &&
			    (!valid || !row_exists(bs, hex))) {
				if (!run->dry_run && unlink(path) != 0 && errno != ENOENT) {
					s = bb_error_errno(err, errno, "cannot remove %s", path);
				} else {
					gc_report(run, NULL, path, (uint64_t)sb.st_size, "stray file");
				}
			}
			free(path);
			if (s)
				break;
		}
		if (sub)
			closedir(sub);
		sub = NULL;
		free(dir);
		if (s)
			goto out;
	}
	closedir(top);
	top = NULL;

	if (!(top = opendir(bs->tmpdir)))
		goto out;
	while ((de = readdir(top))) {
		char *path;

		if (de->d_name[0] == '.' && strncmp(de->d_name, ".probe-", 7))
			continue;
		if (!(path = str_printf("%s/%s", bs->tmpdir, de->d_name)))
			break;
		if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_mtime < tmp_cutoff) {
			if (run->dry_run || unlink(path) == 0)
				gc_report(run, NULL, path, (uint64_t)sb.st_size,
					  "stale temporary file");
		}
		free(path);
	}
out:
	if (top)
		closedir(top);
	return s;
}

enum bb_status blob_gc(struct blob_store *bs, time_t now, long long grace, int dry_run,
		       void (*fn)(void *ctx, const struct blob_gc_item *item), void *ctx,
		       struct blob_gc_stats *stats, struct bb_error *err)
{
	struct blob_gc_stats local;
	struct gc_run run = { bs, dry_run, fn, ctx, stats ? stats : &local };
	time_t cutoff = now - (time_t)grace;
	time_t tmp_cutoff = cutoff < now - 3600 ? cutoff : now - 3600;
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	memset(run.stats, 0, sizeof(*run.stats));
	pthread_mutex_lock(&bs->lock);
	/* One write transaction: a concurrent put waits, and re-checks that its
	 * file is still there before recording it (see record()). */
	if ((s = store_begin(bs->db, err)))
		goto unlock;
	if ((s = gc_blobs(&run, cutoff, err)) || (s = gc_files(&run, cutoff, tmp_cutoff, err)))
		goto rollback;
	if (!(s = store_prepare(bs->db, &st,
				"SELECT (SELECT count(*) FROM blob b WHERE EXISTS"
				" (SELECT 1 FROM blob_ref r WHERE r.hash = b.hash)),"
				" (SELECT count(*) FROM blob b WHERE NOT EXISTS"
				" (SELECT 1 FROM blob_ref r WHERE r.hash = b.hash))", err))) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			run.stats->kept_referenced = (uint64_t)sqlite3_column_int64(st, 0);
			run.stats->kept_recent = (uint64_t)sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
	}
	if (dry_run)
		goto rollback;
	s = store_commit(bs->db, err);
	goto unlock;
rollback:
	store_rollback(bs->db);
unlock:
	pthread_mutex_unlock(&bs->lock);
	return s;
}

/* ------------------------------------------------ for blob_private.c */

struct store *blob_store_db(struct blob_store *bs)
{
	return bs->db;
}

void blob_store_lock(struct blob_store *bs)
{
	pthread_mutex_lock(&bs->lock);
}

void blob_store_unlock(struct blob_store *bs)
{
	pthread_mutex_unlock(&bs->lock);
}

enum bb_status blob_name_insert(struct blob_store *bs, const char *hex,
				const struct blob_origin *o, time_t now, struct bb_error *err)
{
	return insert_name(bs, hex, o, now, err);
}
