/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mbox in list archives (archive_mbox.h): the mboxrd splitter that the mbox
 * file reader and the thread download (archive_atom.c) feed, and the reader
 * for a local mbox file, which an MTA appends to and which is never
 * modified: read from the cursor's offset once the hash of the bytes before
 * it still matches.  What it reads of the source and the calls it hands
 * messages over with are in archive_source.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/run.h"
#include "mail/archive.h"
#include "mail/archive_mbox.h"
#include "mail/archive_source.h"

#define ARCHIVE_MBOX_CHUNK ((size_t)1 << 20)
#define ARCHIVE_MBOX_CHECK_BYTES 64

/* ---------------------------------------------------------------------------
 * mbox splitting (mboxrd)
 */

struct archive_mbox {
	archive_mbox_fn fn;
	void *ctx;
	size_t max_message;
	uint64_t offset;      /* stream offset of the next byte fed */
	struct buf line;      /* a line split across feeds */
	uint64_t line_start;
	int line_overflow;    /* the line was longer than max_message */
	struct buf msg;
	int in_message;       /* a From_ line was seen */
	int too_large;
	size_t blank_len;     /* length of msg's last line if it is empty, else 0 */
	enum bb_status stopped;
};

struct archive_mbox *archive_mbox_new(uint64_t start_offset, size_t max_message,
				      archive_mbox_fn fn, void *ctx)
{
	struct archive_mbox *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->fn = fn;
	m->ctx = ctx;
	m->max_message = max_message ? max_message : ARCHIVE_DEFAULT_MAX_MESSAGE;
	m->offset = start_offset;
	buf_init(&m->line);
	buf_init(&m->msg);
	return m;
}

void archive_mbox_free(struct archive_mbox *m)
{
	if (!m)
		return;
	buf_release(&m->line);
	buf_release(&m->msg);
	free(m);
}

static enum bb_status mbox_emit(struct archive_mbox *m, uint64_t end, struct bb_error *err)
{
	enum bb_status st;
	size_t len = m->msg.len;

	if (m->blank_len && !m->too_large)
		len -= m->blank_len;   /* the separator before the next From_ */
	if (m->too_large || len == 0)
		st = m->fn(m->ctx, NULL, 0, end);
	else {
		buf_truncate(&m->msg, len);
		st = m->fn(m->ctx, m->msg.data, len, end);
	}
	buf_reset(&m->msg);
	m->too_large = 0;
	m->blank_len = 0;
	if (st) {
		m->stopped = st;
		if (err && err->code == BB_OK)
			bb_error_set(err, st, "stopped by the message handler (%s)", status_str(st));
	}
	return st;
}

static enum bb_status mbox_append(struct archive_mbox *m, const char *data, size_t len)
{
	if (m->too_large)
		return BB_OK;
	if (len > m->max_message - m->msg.len) {
		m->too_large = 1;
		buf_release(&m->msg);
		return BB_OK;
	}
	return buf_add(&m->msg, data, len);
}

/* One whole line (with its '\n', or without at the end of a complete
 * stream).  overflow: the line was too long to keep; l holds its start. */
static enum bb_status mbox_line(struct archive_mbox *m, const char *l, size_t n, uint64_t start,
				int overflow, struct bb_error *err)
{
	int is_from = n >= 5 && !memcmp(l, "From ", 5);
	int blank = !overflow && ((n == 1 && l[0] == '\n') ||
				  (n == 2 && l[0] == '\r' && l[1] == '\n'));
	enum bb_status st;

	if (!m->in_message) {
		if (blank || n == 0)
			return BB_OK;
		if (!is_from) {
			char head[40];
			size_t show = n && l[n - 1] == '\n' ? n - 1 : n;

			if (show && l[show - 1] == '\r')
				show--;
			run_clean_line(l, show < 30 ? show : 30, head, sizeof(head));
			m->stopped = BB_ERR_INVALID;
			return bb_error_set(err, BB_ERR_INVALID,
					    "not an mbox: \"%s\" at offset %" PRIu64
					    " where a From_ line should be", head, start);
		}
		m->in_message = 1;
		m->blank_len = 0;
		return BB_OK;
	}
	if (is_from && m->blank_len) {
		if ((st = mbox_emit(m, start, err)))
			return st;
		return BB_OK;
	}
	if (overflow) {
		m->too_large = 1;
		buf_release(&m->msg);
		m->blank_len = 0;
		return BB_OK;
	}
	if (l[0] == '>') {
		size_t q = 1;

		while (q < n && l[q] == '>')
			q++;
		if (n - q >= 5 && !memcmp(l + q, "From ", 5)) {
			l++;   /* mboxrd: one '>' was added when the file was written */
			n--;
		}
	}
	if (mbox_append(m, l, n))
		return archive_nomem(err);
	m->blank_len = blank ? n : 0;
	return BB_OK;
}

enum bb_status archive_mbox_feed(struct archive_mbox *m, const void *data, size_t len,
				 struct bb_error *err)
{
	const char *p = data, *end = p + len;
	enum bb_status st;

	if (m->stopped)
		return m->stopped;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t take = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		if (!m->line.len && !m->line_overflow && nl) {
			/* the whole line is here: no copy */
			st = mbox_line(m, p, take, m->offset, 0, err);
		} else {
			if (!m->line.len && !m->line_overflow)
				m->line_start = m->offset;
			if (!m->line_overflow) {
				if (take > m->max_message + 2 - m->line.len) {
					/* keep the start: enough to tell a From_ line */
					size_t keep = m->line.len < 8 ? 8 - m->line.len : 0;

					if (buf_add(&m->line, p, keep < take ? keep : take))
						return archive_nomem(err);
					m->line_overflow = 1;
				} else if (buf_add(&m->line, p, take)) {
					return archive_nomem(err);
				}
			}
			st = BB_OK;
			if (nl) {
				st = mbox_line(m, m->line.data, m->line.len, m->line_start,
					       m->line_overflow, err);
				buf_reset(&m->line);
				m->line_overflow = 0;
			}
		}
		m->offset += take;
		p += take;
		if (st)
			return st;
	}
	return BB_OK;
}

enum bb_status archive_mbox_finish(struct archive_mbox *m, int complete, struct bb_error *err)
{
	enum bb_status st;

	if (m->stopped)
		return m->stopped;
	if (m->line.len || m->line_overflow) {
		if (!complete)
			return bb_error_set(err, BB_ERR_TEMPORARY,
					    "the last message is incomplete (no newline at the end)");
		st = mbox_line(m, m->line.data, m->line.len, m->line_start, m->line_overflow, err);
		buf_reset(&m->line);
		m->line_overflow = 0;
		if (st)
			return st;
	}
	if (!m->in_message)
		return BB_OK;
	m->in_message = 0;
	return mbox_emit(m, m->offset, err);
}

/* ---------------------------------------------------------------------------
 * mbox file
 */

/* Hash of the file's first bytes and the bytes before offset. */
static enum bb_status mbox_check(int fd, uint64_t offset, char out[ARCHIVE_HASH_LEN + 1],
				 struct bb_error *err)
{
	unsigned char both[2 * ARCHIVE_MBOX_CHECK_BYTES + 1];
	size_t head = offset < ARCHIVE_MBOX_CHECK_BYTES ? (size_t)offset : ARCHIVE_MBOX_CHECK_BYTES;
	size_t tail = head;
	ssize_t n;

	n = pread(fd, both, head, 0);
	if (n != (ssize_t)head)
		goto fail;
	both[head] = '|';
	n = pread(fd, both + head + 1, tail, (off_t)(offset - tail));
	if (n != (ssize_t)tail)
		goto fail;
	if (archive_hash16(both, head + 1 + tail, out))
		return archive_nomem(err);
	return BB_OK;
fail:
	return bb_error_errno(err, n < 0 ? errno : EIO, "cannot read the mbox");
}

static enum bb_status parse_mbox_cursor(const char *cursor, uint64_t *offset, char *check,
					struct bb_error *err)
{
	const char *end;
	long long off;

	*offset = 0;
	check[0] = '\0';
	if (!cursor)
		return BB_OK;
	if (strncmp(cursor, "mbox:", 5) ||
	    archive_parse_long(cursor + 5, &end, LLONG_MAX / 2, &off))
		goto bad;
	if (*end == ':') {
		if (strlen(end + 1) != ARCHIVE_HASH_LEN ||
		    !archive_is_hex_string(end + 1, ARCHIVE_HASH_LEN))
			goto bad;
		memcpy(check, end + 1, ARCHIVE_HASH_LEN + 1);
	} else if (*end || off) {
		goto bad;
	}
	*offset = (uint64_t)off;
	return BB_OK;
bad:
	return bb_error_set(err, BB_ERR_INVALID, "not an mbox cursor (mbox:<offset>:<check>): \"%.80s\"",
			    cursor);
}

static char *mbox_cursor_text(int fd, uint64_t offset, struct bb_error *err)
{
	char check[ARCHIVE_HASH_LEN + 1];
	char *text;

	if (mbox_check(fd, offset, check, err))
		return NULL;
	text = str_printf("mbox:%" PRIu64 ":%s", offset, check);
	if (!text)
		archive_nomem(err);
	return text;
}

/* Whether a From_ line starts at offset (after empty lines), or the file
 * ends there. */
static int mbox_from_at(int fd, uint64_t offset, uint64_t size)
{
	char head[4096];
	ssize_t n;
	size_t i = 0;

	if (offset == size)
		return 1;
	n = pread(fd, head, sizeof(head), (off_t)offset);
	if (n <= 0)
		return 0;
	while (i < (size_t)n && (head[i] == '\n' || (head[i] == '\r' && i + 1 < (size_t)n &&
						     head[i + 1] == '\n')))
		i += head[i] == '\r' ? 2 : 1;
	if (i == (size_t)n)
		return 1;   /* only empty lines so far */
	return (size_t)n - i >= 5 ? !memcmp(head + i, "From ", 5)
				  : !memcmp(head + i, "From ", (size_t)n - i);
}

struct mbox_ctx {
	struct archive_source *src;
	archive_message_fn fn;
	void *ctx;
	int fd;
	char *position;      /* after the last message looked at */
	struct bb_error *err;
	/* What a cursor's check hashes, kept from the reading so that a
	 * message's cursor costs no read: the file's first bytes, the chunk
	 * being fed and the last bytes of the chunk before it. */
	unsigned char head[ARCHIVE_MBOX_CHECK_BYTES];
	size_t head_len;
	const char *chunk;
	uint64_t chunk_at;
	size_t chunk_len;
	unsigned char before[ARCHIVE_MBOX_CHECK_BYTES]; /* the bytes before chunk_at */
	size_t before_len;
};

/* mbox_cursor_text() from the bytes at hand; reads only when they are not. */
static char *mbox_cursor_text_kept(struct mbox_ctx *mc, uint64_t offset)
{
	unsigned char both[2 * ARCHIVE_MBOX_CHECK_BYTES + 1];
	size_t n = offset < ARCHIVE_MBOX_CHECK_BYTES ? (size_t)offset : ARCHIVE_MBOX_CHECK_BYTES;
	uint64_t from = offset - n;
	char check[ARCHIVE_HASH_LEN + 1];
	char *text;

	if (n > mc->head_len || offset < mc->chunk_at || offset > mc->chunk_at + mc->chunk_len ||
	    from + mc->before_len < mc->chunk_at)
		return mbox_cursor_text(mc->fd, offset, mc->err);
	memcpy(both, mc->head, n);
	both[n] = '|';
	if (from >= mc->chunk_at) {
		memcpy(both + n + 1, mc->chunk + (from - mc->chunk_at), n);
	} else {
		size_t early = (size_t)(mc->chunk_at - from);

		memcpy(both + n + 1, mc->before + (mc->before_len - early), early);
		memcpy(both + n + 1 + early, mc->chunk, n - early);
	}
	if (archive_hash16(both, 2 * n + 1, check)) {
		archive_nomem(mc->err);
		return NULL;
	}
	text = str_printf("mbox:%" PRIu64 ":%s", offset, check);
	if (!text)
		archive_nomem(mc->err);
	return text;
}

static enum bb_status mbox_on_message(void *ctx, const char *raw, size_t len, uint64_t end)
{
	struct mbox_ctx *m = ctx;
	char *position = mbox_cursor_text_kept(m, end);

	if (!position)
		return m->err ? m->err->code : BB_ERR_IO;
	free(m->position);
	m->position = position;
	if (!raw) {
		archive_log_skip(m->src, "too-large-or-empty", position);
		return BB_OK;
	}
	return archive_deliver(m->src, m->fn, m->ctx, raw, len, position, m->err);
}

enum bb_status archive_poll_mbox(struct archive_source *src, const char *cursor,
				 archive_message_fn fn, void *ctx, int tail, char **next_cursor,
				 struct bb_error *err)
{
	struct mbox_ctx mc = { .src = src, .fn = fn, .ctx = ctx, .fd = -1, .err = err };
	struct archive_mbox *m = NULL;
	struct flock lk;
	struct stat sb;
	uint64_t offset, size;
	char check[ARCHIVE_HASH_LEN + 1], now_check[ARCHIVE_HASH_LEN + 1];
	char *lock_path = NULL, *chunk = NULL;
	int settled;
	enum bb_status st;

	if ((st = parse_mbox_cursor(cursor, &offset, check, err)))
		goto out;
	mc.fd = open(src->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (mc.fd < 0) {
		st = bb_error_errno(err, errno, "mbox %s", src->path);
		goto out;
	}
	memset(&lk, 0, sizeof(lk));
	lk.l_type = F_RDLCK;
	lk.l_whence = SEEK_SET;
	if (fcntl(mc.fd, F_SETLK, &lk)) {
		st = (errno == EAGAIN || errno == EACCES)
			? bb_error_set(err, BB_ERR_BUSY, "mbox %s is locked by a writer", src->path)
			: bb_error_errno(err, errno, "cannot lock mbox %s", src->path);
		goto out;
	}
	if (!(lock_path = str_printf("%s.lock", src->path))) {
		st = archive_nomem(err);
		goto out;
	}
	if (!access(lock_path, F_OK)) {
		st = bb_error_set(err, BB_ERR_BUSY, "mbox %s is locked (%s exists)", src->path,
				  lock_path);
		goto out;
	}
	if (fstat(mc.fd, &sb)) {
		st = bb_error_errno(err, errno, "cannot stat %s", src->path);
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		st = bb_error_set(err, BB_ERR_INVALID, "mbox %s is not a file", src->path);
		goto out;
	}
	size = (uint64_t)sb.st_size;
	/* A last line without a newline is a message still being written,
	 * unless the file has not changed for a while: then it is complete
	 * (a downloaded mbox, e.g. from patchwork, can end so for good). */
	settled = (long long)sb.st_mtime <= archive_now_seconds() - ARCHIVE_MBOX_SETTLE;
	if (tail) {
		char last = '\n';

		if (size && pread(mc.fd, &last, 1, (off_t)(size - 1)) != 1) {
			st = bb_error_errno(err, errno, "cannot read %s", src->path);
			goto out;
		}
		if (last != '\n' && !settled) {
			st = bb_error_set(err, BB_ERR_TEMPORARY,
					  "mbox %s: the last message is incomplete (no newline at the end)",
					  src->path);
			goto out;
		}
		offset = size;
	} else if (offset) {
		int same = offset <= size;

		if (same && (st = mbox_check(mc.fd, offset, now_check, err)))
			goto out;
		same = same && !strcmp(check, now_check) && mbox_from_at(mc.fd, offset, size);
		if (!same) {
			src->stats.rewinds++;
			log_event(LOG_LEVEL_WARN, "archive.rewind", LF_STR("kind", "mbox"),
				  LF_STR("path", src->path),
				  LF_STR("reason", "the file was rewritten since the cursor"));
			offset = 0;
		}
	}
	if (!(mc.position = mbox_cursor_text(mc.fd, offset, err))) {
		st = err ? err->code : BB_ERR_IO;
		goto out;
	}
	if (offset < size) {
		ssize_t h;

		m = archive_mbox_new(offset, src->max_message, mbox_on_message, &mc);
		chunk = malloc(ARCHIVE_MBOX_CHUNK);
		if (!m || !chunk) {
			st = archive_nomem(err);
			goto out;
		}
		h = pread(mc.fd, mc.head, sizeof(mc.head), 0);
		mc.head_len = h > 0 ? (size_t)h : 0;
		mc.chunk = chunk;
		mc.chunk_at = offset;
		for (uint64_t at = offset; at < size;) {
			size_t want = size - at < ARCHIVE_MBOX_CHUNK ? (size_t)(size - at)
								     : ARCHIVE_MBOX_CHUNK;
			ssize_t n = pread(mc.fd, chunk, want, (off_t)at);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				st = bb_error_errno(err, n < 0 ? errno : EIO, "cannot read %s",
						    src->path);
				goto out;
			}
			mc.chunk_len = (size_t)n;
			if ((st = archive_mbox_feed(m, chunk, (size_t)n, err)))
				goto out;
			if ((size_t)n >= sizeof(mc.before)) {
				memcpy(mc.before, chunk + n - sizeof(mc.before), sizeof(mc.before));
				mc.before_len = sizeof(mc.before);
			} else {   /* a short read: keep what is still needed */
				size_t keep = sizeof(mc.before) - (size_t)n;

				if (keep > mc.before_len)
					keep = mc.before_len;
				memmove(mc.before, mc.before + mc.before_len - keep, keep);
				memcpy(mc.before + keep, chunk, (size_t)n);
				mc.before_len = keep + (size_t)n;
			}
			at += (uint64_t)n;
			mc.chunk_at = at;
			mc.chunk_len = 0;
		}
		if ((st = archive_mbox_finish(m, settled, err))) {
			if (st == BB_ERR_TEMPORARY)
				bb_error_set(err, st,
					     "mbox %s: the last message is incomplete (no newline at the end); "
					     "it is read once complete", src->path);
			goto out;
		}
	}
	if (next_cursor) {
		*next_cursor = mc.position;
		mc.position = NULL;
	}
out:
	archive_mbox_free(m);
	free(chunk);
	free(lock_path);
	free(mc.position);
	if (mc.fd >= 0)
		close(mc.fd);
	return st;
}
