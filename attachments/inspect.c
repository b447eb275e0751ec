/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <glib.h>
#include <openssl/evp.h>

#include "attachments/inspect.h"
#include "core/buf.h"
#include "core/digest.h"

/* Bytes asked of libarchive (and of the file) at a time; one such buffer is
 * held per open level, so memory does not grow with the archive's size. */
#define INSPECT_BLOCK_SIZE (64 * 1024)
/* The ratio limit only applies once this much was decompressed: a 200-byte
 * tar of a 1 KiB text file is not a bomb. */
#define INSPECT_RATIO_FLOOR (1024 * 1024)
/* Each nested level holds a reader of its own; a zip quine could otherwise
 * make a generous max_depth cost a lot of memory. */
#define INSPECT_DEPTH_CEILING 16
/* While a nested reader decides what a member is, the bytes it pulls are
 * kept (up to this much) so that a second reader can start over on them. */
#define INSPECT_REPLAY_CAP (1024 * 1024)
/* Header reads that may fail in a row (ARCHIVE_FAILED/RETRY) before the
 * archive counts as damaged; stops a reader that never makes progress. */
#define INSPECT_MAX_HEADER_FAILURES 16

/* Defaults when the caller passes no limits (the same as config/config.c). */
#define INSPECT_DEFAULT_MEMBERS 10000
#define INSPECT_DEFAULT_TOTAL (4ULL * 1024 * 1024 * 1024)
#define INSPECT_DEFAULT_RATIO 200
#define INSPECT_DEFAULT_DEPTH 3

/* --- which filters may be enabled ------------------------------------------ */

/* archive_read_support_filter_X() returns ARCHIVE_WARN when libarchive was
 * built without the library for X and would run an external program instead;
 * those are never enabled. */
static int (*const inspect_filters[])(struct archive *a) = {
	archive_read_support_filter_gzip,
	archive_read_support_filter_bzip2,
	archive_read_support_filter_xz,
	archive_read_support_filter_lzma,
	archive_read_support_filter_lzip,
	archive_read_support_filter_zstd,
	archive_read_support_filter_lz4,
	archive_read_support_filter_compress,
};
#define INSPECT_FILTER_COUNT (sizeof(inspect_filters) / sizeof(inspect_filters[0]))

/* Probed once per process, under the lock; a probe that ran out of memory
 * is tried again by the next caller rather than cached. */
static int inspect_filter_builtin[INSPECT_FILTER_COUNT];
static int inspect_filters_probed;
static pthread_mutex_t inspect_filter_lock = PTHREAD_MUTEX_INITIALIZER;

/* Returns 0, or -1 when out of memory. */
static int probe_filters(void)
{
	size_t i;

	for (i = 0; i < INSPECT_FILTER_COUNT; i++) {
		struct archive *probe = archive_read_new();

		if (!probe)
			return -1;
		inspect_filter_builtin[i] = inspect_filters[i](probe) == ARCHIVE_OK;
		archive_read_free(probe);
	}
	return 0;
}

/* A reader for every supported format and every built-in filter, plus the
 * raw format so that a lone log.gz lists as one member.  No "all" helpers:
 * they enable mtree (which matches plain text) and program filters.  With
 * raw_only, the filters and the raw format only.  cpio only with_cpio: for
 * a stream that starts like one (see the cpio guard below). */
static enum bb_status new_reader(struct archive **out, int raw_only, int with_cpio)
{
	struct archive *a;
	enum bb_status result = BB_OK;
	size_t i;
	int ready;

	*out = NULL;
	pthread_mutex_lock(&inspect_filter_lock);
	if (!inspect_filters_probed)
		inspect_filters_probed = probe_filters() == 0;
	ready = inspect_filters_probed;
	pthread_mutex_unlock(&inspect_filter_lock);
	a = ready ? archive_read_new() : NULL;
	if (!a) {
		result = BB_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < INSPECT_FILTER_COUNT; i++) {
		if (inspect_filter_builtin[i] && inspect_filters[i](a) != ARCHIVE_OK) {
			/* The probe said built in; anything else now is unexpected
			 * and might mean an external program: refuse. */
			result = BB_ERR_INTERNAL;
			goto out;
		}
	}
	archive_read_support_format_raw(a);
	if (raw_only)
		goto done;
	/* Format support cannot run programs; a failure only means the format
	 * stays unsupported, which is no reason to refuse the rest. */
	archive_read_support_format_tar(a);
	archive_read_support_format_zip(a);
	if (with_cpio)
		archive_read_support_format_cpio(a);
	archive_read_support_format_7zip(a);
	archive_read_support_format_ar(a);
	archive_read_support_format_iso9660(a);
	archive_read_support_format_rar(a);
	archive_read_support_format_rar5(a);
	/* Empty input: with no filter it is plain, under gzip an empty file. */
	archive_read_support_format_empty(a);
done:
	*out = a;
	a = NULL;
out:
	if (a)
		archive_read_free(a);
	return result;
}

/* --- cpio headers, looked at before libarchive reads them ------------------ */

/* libarchive 3.6 (Debian 12) reads a cpio member's name with one read-ahead
 * of the size its header gives, and makes room for all of it first: the
 * newc header's 8 hex digits allow 4 GiB, and a 49,152-byte newc archive
 * whose namesize reads BBBBBBBB made it malloc(3149642686) (fixed upstream
 * later: "cpio: reject oversized pathnames before read-ahead").  So every
 * stream a reader of ours is handed (the blob, a member looked inside)
 * passes a cpio guard first.  When it starts like a cpio archive, each
 * header in it must name a path of at most INSPECT_CPIO_NAME_MAX bytes,
 * and no more than the stream has left: newc/crc ("070701"/"070702", the
 * namesize in 8 hex digits at offset 94 of 110 bytes), odc ("070707", 6
 * octal digits at offset 59 of 76), binary (2 bytes at offset 20 of 26,
 * the first header only: it cannot ask for more than 64 KiB).  Headers are
 * looked for at every offset where one could be, as libarchive does when
 * one is not where the last said (its find_newc_header()), not only where
 * the last says the next begins; a header the guard refuses is never
 * handed on, and the reader fails there, the archive damaged.  A cpio
 * under a compression (a .cpio.gz) would be decompressed inside
 * libarchive, out of the guard's sight: so a reader reads cpio only when
 * the stream it is handed starts like a cpio archive (cpio_magic()), and a
 * .cpio.gz lists as the lone compressed file it then is, its cpio looked
 * inside one level deeper, through a guard of its own. */
#define INSPECT_CPIO_NAME_MAX 65536
#define CPIO_NEWC_LEN 110
#define CPIO_ODC_LEN 76
#define CPIO_BIN_LEN 26

enum cpio_guard_state { CPIO_GUARD_START, CPIO_GUARD_ON, CPIO_GUARD_OFF };

struct cpio_guard {
	enum cpio_guard_state state;
	uint64_t size;           /* bytes in the stream, UINT64_MAX: not known */
	uint64_t next;           /* stream offset just past the bytes looked at */
	unsigned char tail[CPIO_NEWC_LEN - 1];  /* the last bytes, for a header cut
						 * by the end of a block */
	size_t tail_len;
	int refused;             /* a header was refused (why says which) */
	char why[200];
};

/* Whether the 2 bytes at p are the binary cpio magic, in either byte
 * order. */
static int cpio_binary_magic(const unsigned char *p)
{
	return (p[0] == 0xc7 && p[1] == 0x71) || (p[0] == 0x71 && p[1] == 0xc7);
}

/* Whether the n bytes at p start like a cpio archive, as libarchive's
 * bidder sees it (6 bytes at least): an ASCII magic (newc, crc, odc, afio)
 * or the binary one in either byte order. */
static int cpio_magic(const unsigned char *p, size_t n)
{
	return n >= 6 && (!memcmp(p, "07070", 5) || cpio_binary_magic(p));
}

static void cpio_guard_init(struct cpio_guard *g, uint64_t size)
{
	memset(g, 0, sizeof(*g));
	g->state = CPIO_GUARD_START;
	g->size = size;
}

/* Whether the n bytes at p are all digits of base (8 or 16). */
static int cpio_digits(const unsigned char *p, size_t n, int base)
{
	for (size_t i = 0; i < n; i++) {
		int d = g_ascii_xdigit_value((char)p[i]);

		if (d < 0 || d >= base)
			return 0;
	}
	return 1;
}

/* The value of n (at most 8) digits of base, checked by cpio_digits(). */
static unsigned long long cpio_number(const unsigned char *p, size_t n, int base)
{
	unsigned long long v = 0;

	for (size_t i = 0; i < n; i++)
		v = v * (unsigned)base + (unsigned)g_ascii_xdigit_value((char)p[i]);
	return v;
}

/* Whether the header at stream offset at, len bytes long, may name a path of
 * namesize bytes; if not, g->why says why. */
static int cpio_name_ok(struct cpio_guard *g, uint64_t at, unsigned len, unsigned long long namesize)
{
	if (namesize > INSPECT_CPIO_NAME_MAX) {
		snprintf(g->why, sizeof(g->why), "cpio header at byte %llu names a %llu-byte path "
			 "(more than %u): not read", (unsigned long long)at, namesize,
			 INSPECT_CPIO_NAME_MAX);
		return 0;
	}
	if (g->size != UINT64_MAX && (at > g->size || g->size - at < len ||
				      g->size - at - len < namesize)) {
		snprintf(g->why, sizeof(g->why), "cpio header at byte %llu names a %llu-byte path, "
			 "more than the %llu bytes after it: not read", (unsigned long long)at,
			 namesize, (unsigned long long)(g->size > at + len ? g->size - at - len : 0));
		return 0;
	}
	return 1;
}

/* Whether the avail bytes at p, at stream offset at, may start a header
 * libarchive would read (a newc or odc header with digits where they
 * belong), and if one does, whether its name size is fine.  1 when they
 * are fine or no header, 0 when refused, -1 when more bytes are needed to
 * tell. */
static int cpio_candidate(struct cpio_guard *g, const unsigned char *p, size_t avail, uint64_t at)
{
	if (avail < 6)
		return memcmp(p, "070707", avail) ? 1 : -1;
	if (!memcmp(p, "070701", 6) || !memcmp(p, "070702", 6)) {
		if (avail < CPIO_NEWC_LEN)
			return -1;
		if (!cpio_digits(p + 6, CPIO_NEWC_LEN - 6, 16))
			return 1;   /* not a header libarchive would read */
		return cpio_name_ok(g, at, CPIO_NEWC_LEN, cpio_number(p + 94, 8, 16));
	}
	if (!memcmp(p, "070707", 6)) {
		if (avail < CPIO_ODC_LEN)
			return -1;
		if (!cpio_digits(p + 6, CPIO_ODC_LEN - 6, 8))
			return 1;
		return cpio_name_ok(g, at, CPIO_ODC_LEN, cpio_number(p + 59, 6, 8));
	}
	return 1;
}

/* Keeps the last bytes handed on (the n at p), for a header the next block
 * finishes. */
static void cpio_guard_keep(struct cpio_guard *g, uint64_t at, const unsigned char *p, size_t n)
{
	g->next = at + n;
	if (n >= sizeof(g->tail)) {
		memcpy(g->tail, p + n - sizeof(g->tail), sizeof(g->tail));
		g->tail_len = sizeof(g->tail);
	} else {
		size_t keep = g->tail_len + n > sizeof(g->tail) ? sizeof(g->tail) - n : g->tail_len;

		memmove(g->tail, g->tail + g->tail_len - keep, keep);
		memcpy(g->tail + keep, p, n);
		g->tail_len = keep + n;
	}
}

/* Looks at the n bytes at p, at stream offset at; returns how many of them
 * may be handed on: n, or fewer, those before a refused header (g->refused
 * and g->why then set; 0 when the header began in bytes handed on before).
 * Each read is judged on its own: after a seek (a zip bidder reading the
 * end of the input) the bytes before a refused header may be asked for
 * again, and are handed on again; the refused header never is.  A stream
 * that does not start with a cpio magic is left alone. */
static size_t cpio_guard_feed(struct cpio_guard *g, uint64_t at, const unsigned char *p, size_t n)
{
	unsigned char window[2 * (CPIO_NEWC_LEN - 1)];
	size_t wlen, i;

	if (g->state == CPIO_GUARD_OFF || !n)
		return n;
	if (at != g->next)
		g->tail_len = 0;  /* a skip or a seek: a header cannot span it */
	/* headers that began in the tail, finished (or not) in this block */
	wlen = g->tail_len;
	memcpy(window, g->tail, wlen);
	memcpy(window + wlen, p, n < CPIO_NEWC_LEN - 1 ? n : CPIO_NEWC_LEN - 1);
	wlen += n < CPIO_NEWC_LEN - 1 ? n : CPIO_NEWC_LEN - 1;
	if (g->state == CPIO_GUARD_START) {
		if (at - g->tail_len != 0) {
			g->state = CPIO_GUARD_OFF;  /* not from the start: not ours to judge */
			return n;
		}
		if (wlen < 6) {
			memcpy(g->tail, window, wlen);
			g->tail_len = wlen;
			g->next = at + n;
			return n;
		}
		if (!memcmp(window, "07070", 5) || !memcmp(window, "070727", 6) ||
		    cpio_binary_magic(window)) {
			g->state = CPIO_GUARD_ON;
		} else {
			g->state = CPIO_GUARD_OFF;
			return n;
		}
	}
	/* the first header of a binary cpio: 2 bytes of namesize at offset 20,
	 * in the archive's byte order */
	if (at - g->tail_len == 0 && wlen >= CPIO_BIN_LEN && cpio_binary_magic(window)) {
		unsigned namesize = window[0] == 0xc7 ? window[20] | (unsigned)window[21] << 8
						      : (unsigned)window[20] << 8 | window[21];

		if (!cpio_name_ok(g, 0, CPIO_BIN_LEN, namesize)) {
			g->refused = 1;
			return 0;
		}
	}
	for (i = 0; i < g->tail_len; i++) {
		if (g->tail[i] != '0')
			continue;
		if (!cpio_candidate(g, window + i, wlen - i, at - g->tail_len + i)) {
			g->refused = 1;
			return 0;  /* it began in bytes already handed on */
		}
	}
	for (i = 0; i < n; i++) {
		const unsigned char *z = memchr(p + i, '0', n - i);

		if (!z)
			break;
		i = (size_t)(z - p);
		if (!cpio_candidate(g, z, n - i, at + i)) {
			g->refused = 1;
			cpio_guard_keep(g, at, p, i);
			return i;
		}
	}
	cpio_guard_keep(g, at, p, n);
	return n;
}

/* --- the state of one inspection ------------------------------------------- */

struct inspector {
	struct inspect_limits limits;
	uint64_t archive_size;
	const struct inspect_callbacks *cb;
	struct inspect_report *report;
	uint64_t seen;           /* member headers accepted, all levels */
	int stopped;             /* unwind: a limit was hit or something failed */
	int too_large;           /* the stop was a limit (note in report) */
	enum bb_status failure;  /* a callback's (or our own) failure, else BB_OK */
	int io_errno;            /* reading the outer archive failed */
};

__attribute__((format(printf, 2, 3)))
static void stop_too_large(struct inspector *in, const char *fmt, ...)
{
	va_list ap;

	if (!in->stopped) {
		va_start(ap, fmt);
		vsnprintf(in->report->note, sizeof(in->report->note), fmt, ap);
		va_end(ap);
		in->too_large = 1;
	}
	in->stopped = 1;
}

static void stop_failed(struct inspector *in, enum bb_status st)
{
	if (in->failure == BB_OK)
		in->failure = st;
	in->stopped = 1;
}

/* Counts n more decompressed bytes; 0 to go on, -1 when a limit is hit. */
static int account(struct inspector *in, uint64_t n)
{
	const struct inspect_limits *lim = &in->limits;
	uint64_t total;

	in->report->total += n;
	total = in->report->total;
	if (lim->max_total && total > lim->max_total) {
		stop_too_large(in, "stopped: members add up to more than %llu bytes (size limit)",
			       (unsigned long long)lim->max_total);
		return -1;
	}
	if (lim->max_ratio && total > INSPECT_RATIO_FLOOR) {
		uint64_t allowed = in->archive_size > UINT64_MAX / lim->max_ratio
			? UINT64_MAX : in->archive_size * lim->max_ratio;

		if (total > allowed) {
			stop_too_large(in, "stopped: members expand to more than %llu times "
				       "the archive size (ratio limit)",
				       (unsigned long long)lim->max_ratio);
			return -1;
		}
	}
	return 0;
}

static void copy_error(char *dst, size_t size, struct archive *a, const char *fallback)
{
	const char *msg = archive_error_string(a);

	snprintf(dst, size, "%s", msg && *msg ? msg : fallback);
}

/* --- reading one member's bytes --------------------------------------------- */

/* The bytes of one file member, pulled from the archive it is stored in.
 * Every byte passes through member_pull() exactly once: it is hashed, handed
 * to the sink, and counted against the limits there, whether the member is
 * drained or read by a nested reader. */
struct member_stream {
	struct inspector *in;
	struct archive *source;
	unsigned char *block;    /* INSPECT_BLOCK_SIZE bytes, owned by the level */
	EVP_MD_CTX *sha;
	uint64_t size;
	int to_sink;
	int at_end;
	int read_error;          /* archive_read_data()'s code, 0 if none */
	char error[200];
	/* Bytes a nested reader pulled while deciding what the member is, for
	 * a second reader to read again (they are hashed only once). */
	struct buf replay;       /* capped at INSPECT_REPLAY_CAP */
	size_t replay_pos;
	int recording;           /* keep pulled bytes in replay */
	int replay_lost;         /* more than the cap was pulled */
	int replaying;           /* nested_read serves replay first */
	struct cpio_guard cpio;  /* what the first nested reader is handed */
	int guarded;             /* feed cpio (the first reader, which may read cpio) */
};

/* Reads the next chunk into ms->block: its length, 0 at the end, -1 when the
 * member cannot be read on (ms->read_error) or the inspection stops. */
static la_ssize_t member_pull(struct member_stream *ms)
{
	struct inspector *in = ms->in;
	la_ssize_t n, result = -1;
	enum bb_status st;

	if (ms->at_end) {
		result = 0;
		goto out;
	}
	if (ms->read_error || in->stopped)
		goto out;
	n = archive_read_data(ms->source, ms->block, INSPECT_BLOCK_SIZE);
	if (n < 0) {
		ms->read_error = (int)n;
		copy_error(ms->error, sizeof(ms->error), ms->source, "unreadable member data");
		goto out;
	}
	if (n == 0) {
		ms->at_end = 1;
		result = 0;
		goto out;
	}
	if (EVP_DigestUpdate(ms->sha, ms->block, (size_t)n) != 1) {
		stop_failed(in, BB_ERR_INTERNAL);
		goto out;
	}
	ms->size += (uint64_t)n;
	if (ms->to_sink && in->cb->data) {
		st = in->cb->data(in->cb->ctx, ms->block, (size_t)n);
		if (st != BB_OK) {
			stop_failed(in, st);
			goto out;
		}
	}
	if (account(in, (uint64_t)n) != 0)
		goto out;
	result = n;
out:
	return result;
}

/* libarchive read callback of a nested reader: pulls from the parent (after
 * what is left to replay). */
static la_ssize_t nested_read(struct archive *a, void *client, const void **block)
{
	struct member_stream *ms = client;
	la_ssize_t n;
	uint64_t at;

	if (ms->guarded && ms->cpio.refused) {
		archive_set_error(a, EINVAL, "%s", ms->cpio.why);
		return ARCHIVE_FATAL;
	}
	if (ms->replaying && ms->replay_pos < ms->replay.len) {
		size_t left = ms->replay.len - ms->replay_pos;

		n = left < INSPECT_BLOCK_SIZE ? (la_ssize_t)left : INSPECT_BLOCK_SIZE;
		/* copied: the replay may be released while the reader still
		 * reads the block it was handed last */
		memcpy(ms->block, ms->replay.data + ms->replay_pos, (size_t)n);
		*block = ms->block;
		at = ms->replay_pos;
		ms->replay_pos += (size_t)n;
	} else {
		at = ms->size;
		n = member_pull(ms);
		*block = ms->block;
		if (n > 0 && ms->recording && !ms->replay_lost &&
		    buf_add(&ms->replay, ms->block, (size_t)n) != BB_OK) {
			/* Over the cap (or out of memory): no second reader then. */
			ms->replay_lost = 1;
			buf_release(&ms->replay);
		}
		/* recorded while replaying: served already, not to serve again */
		if (ms->replaying)
			ms->replay_pos = ms->replay.len;
	}
	/* What is not handed on is hashed all the same. */
	if (n > 0 && ms->guarded) {
		n = (la_ssize_t)cpio_guard_feed(&ms->cpio, at, *block, (size_t)n);
		if (!n) {
			archive_set_error(a, EINVAL, "%s", ms->cpio.why);
			n = ARCHIVE_FATAL;
			goto out;
		}
	}
	if (n < 0) {
		if (ms->in->stopped)
			archive_set_error(a, ECANCELED, "inspection stopped");
		else
			archive_set_error(a, EIO, "the enclosing archive could not be read");
		n = ARCHIVE_FATAL;
	}
out:
	return n;
}

/* --- levels ------------------------------------------------------------------ */

enum level_outcome {
	LEVEL_DONE,      /* every member listed */
	LEVEL_DAMAGED,   /* the reader failed; message in the caller's buffer */
	LEVEL_STOPPED,   /* in->stopped: unwind */
};

enum reader_class {
	CLASS_PLAIN,       /* not an archive: raw (or empty) format, no filter */
	CLASS_ARCHIVE,     /* a format (or a filter) was recognised */
	CLASS_UNREADABLE,  /* recognised, but the first header failed */
	CLASS_EMPTY_TAR,   /* starts with a zero block: see classify() */
};

static int is_compressed(struct archive *a)
{
	return archive_filter_count(a) > 0 && archive_filter_code(a, 0) != ARCHIVE_FILTER_NONE;
}

/* What the first archive_read_next_header() (result r) says about the input. */
static enum reader_class classify(struct archive *a, int r)
{
	int format = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
	int compressed = is_compressed(a);

	if (r == ARCHIVE_FATAL)
		return compressed || (format && format != ARCHIVE_FORMAT_RAW)
			? CLASS_UNREADABLE : CLASS_PLAIN;
	/* libarchive takes any input that starts with 512 zero bytes for a
	 * tar holding nothing but its end marker.  Such input is far more
	 * often a disk image, or a gzip of zeros (a bomb): the caller reads it
	 * again as a lone compressed file, or as no archive. */
	if (r == ARCHIVE_EOF && format == ARCHIVE_FORMAT_TAR)
		return CLASS_EMPTY_TAR;
	if ((format == ARCHIVE_FORMAT_RAW || format == ARCHIVE_FORMAT_EMPTY) && !compressed)
		return CLASS_PLAIN;
	return CLASS_ARCHIVE;
}

/* Whether archive_read_open1() failed on a plain input (no filter and no
 * format recognised), rather than on a filter that recognised its magic but
 * could not go on (a gzip stream cut short in its first block, say). */
static int open_failed_plain(struct archive *a)
{
	return archive_filter_count(a) > 0 && !is_compressed(a);
}

enum member_kind { KIND_FILE, KIND_DIR, KIND_SYMLINK, KIND_HARDLINK, KIND_OTHER };

static const char *const kind_names[] = {
	[KIND_FILE] = "file",
	[KIND_DIR] = "dir",
	[KIND_SYMLINK] = "symlink",
	[KIND_HARDLINK] = "hardlink",
	[KIND_OTHER] = "other",
};

static enum member_kind member_kind(struct archive_entry *entry)
{
	if (archive_entry_hardlink(entry))
		return KIND_HARDLINK;
	switch (archive_entry_filetype(entry)) {
	case AE_IFREG:
	case 0: /* no type recorded; the member may still carry data */
		return KIND_FILE;
	case AE_IFDIR:
		return KIND_DIR;
	case AE_IFLNK:
		return KIND_SYMLINK;
	default:
		return KIND_OTHER;
	}
}

/* Whether the member's bytes are read and hashed: files, and hard links
 * that carry the data (cpio stores it with the last link), unless it is
 * encrypted (there is no passphrase to give). */
static int carries_data(struct archive_entry *entry, enum member_kind kind)
{
	if (archive_entry_is_data_encrypted(entry))
		return 0;
	if (kind == KIND_FILE)
		return 1;
	return kind == KIND_HARDLINK && archive_entry_size_is_set(entry) &&
		archive_entry_size(entry) > 0;
}

static enum level_outcome list_level(struct inspector *in, struct archive *a, int r,
				     struct archive_entry *entry, const char *prefix,
				     unsigned depth, char *damage, size_t damage_size);

/* Tries to open the member in ms as an archive of its own and lists its
 * members one level deeper.  Whatever it consumes is hashed by member_pull();
 * the caller drains the rest.  Explains in note anything the caller should
 * know about the member (depth limit, a nested archive that failed). */
static void look_inside(struct inspector *in, struct member_stream *ms, const char *path,
			unsigned depth, char *note, size_t note_size)
{
	struct archive *nested = NULL;
	struct archive_entry *entry = NULL;
	enum reader_class verdict = CLASS_PLAIN;
	char damage[200];
	enum bb_status st;
	la_ssize_t first;
	int r, pass, with_cpio;

	/* The first block, kept to be read again: whether the member starts
	 * like a cpio archive decides whether the reader may read cpio. */
	ms->recording = 1;
	first = member_pull(ms);
	if (first < 0)
		goto out;
	if (first > 0 && buf_add(&ms->replay, ms->block, (size_t)first) != BB_OK) {
		stop_failed(in, BB_ERR_NOMEM);
		goto out;
	}
	with_cpio = cpio_magic(ms->block, (size_t)first);
	ms->replaying = 1;
	ms->replay_pos = 0;
	ms->guarded = 1;
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			/* Start over on the same bytes, as a lone compressed file. */
			archive_read_free(nested);
			nested = NULL;
			ms->recording = 0;
			ms->replaying = 1;
			ms->replay_pos = 0;
			ms->guarded = 0;   /* no cpio in a raw reader */
		}
		st = new_reader(&nested, pass == 1, with_cpio);
		if (st != BB_OK) {
			stop_failed(in, st);
			goto out;
		}
		archive_read_set_read_callback(nested, nested_read);
		archive_read_set_callback_data(nested, ms);
		r = archive_read_open1(nested);
		if (ms->read_error || in->stopped)
			goto out;
		if (ms->cpio.refused) {
			snprintf(note, note_size, "nested archive not inspected: %s", ms->cpio.why);
			goto out;
		}
		if (r != ARCHIVE_OK && open_failed_plain(nested))
			goto out;
		if (r != ARCHIVE_OK) {
			copy_error(damage, sizeof(damage), nested, "unknown error");
			snprintf(note, note_size, "nested archive not inspected: %s", damage);
			goto out;
		}
		r = archive_read_next_header(nested, &entry);
		if (ms->read_error || in->stopped)
			goto out;
		if (ms->cpio.refused) {
			snprintf(note, note_size, "nested archive not inspected: %s", ms->cpio.why);
			goto out;
		}
		verdict = classify(nested, r);
		if (verdict != CLASS_EMPTY_TAR)
			break;
		if (!is_compressed(nested) || ms->replay_lost)
			goto out;
	}
	/* Decided: nothing more to keep, and once what was kept is read
	 * again, nothing to serve from it. */
	ms->recording = 0;
	if (ms->replay_pos >= ms->replay.len) {
		ms->replaying = 0;
		buf_release(&ms->replay);
		ms->replay_pos = 0;
	}
	switch (verdict) {
	case CLASS_PLAIN:
	case CLASS_EMPTY_TAR:
		goto out;
	case CLASS_UNREADABLE:
		/* Damaged, or a format that needs to seek (7z, some zips). */
		copy_error(damage, sizeof(damage), nested, "unknown error");
		snprintf(note, note_size, "nested archive not inspected: %s", damage);
		goto out;
	case CLASS_ARCHIVE:
		break;
	}
	if (depth >= in->limits.max_depth) {
		snprintf(note, note_size, "nested archive not inspected (depth limit)");
		goto out;
	}
	if (list_level(in, nested, r, entry, path, depth + 1, damage, sizeof(damage))
	    == LEVEL_DAMAGED && !ms->read_error && !in->stopped)
		/* Damaged, or a format that needed to seek after all (a tiny 7z
		 * lists its members, then cannot go back to their data). */
		snprintf(note, note_size, "nested archive not fully inspected: %s",
			 ms->cpio.refused ? ms->cpio.why : damage);
out:
	if (nested)
		archive_read_free(nested);
	ms->recording = 0;
	ms->replaying = 0;
	ms->guarded = 0;
	buf_release(&ms->replay);
}

/* Reports m to the member callback (unless a callback already failed). */
static void report_member(struct inspector *in, const struct inspect_member *m)
{
	enum bb_status st;

	if (in->failure != BB_OK)
		return;
	in->report->members++;
	if (in->cb->member) {
		st = in->cb->member(in->cb->ctx, m);
		if (st != BB_OK)
			stop_failed(in, st);
	}
}

/* Reads, hashes and reports one member of a that carries data (kind "file"
 * or "hardlink"), whose header gives its size as header_size (UINT64_MAX:
 * none); looks inside it first. */
static enum level_outcome read_file_member(struct inspector *in, struct archive *a,
					   uint64_t header_size, const char *path,
					   unsigned depth, const char *kind,
					   unsigned char *block, EVP_MD_CTX *sha,
					   char *damage, size_t damage_size)
{
	struct member_stream ms;
	struct inspect_member m = { path, depth, kind, 0, NULL, NULL };
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned md_len = 0;
	char hex[2 * EVP_MAX_MD_SIZE + 1], note[256] = "";
	int complete, began = 0;
	enum bb_status st;
	enum level_outcome result = LEVEL_DONE;

	memset(&ms, 0, sizeof(ms));
	ms.in = in;
	ms.source = a;
	ms.block = block;
	ms.sha = sha;
	buf_init_capped(&ms.replay, INSPECT_REPLAY_CAP);
	cpio_guard_init(&ms.cpio, header_size);
	/* Only direct members go to the sink: a nested member's bytes reach it
	 * as part of its container's, so sink calls never interleave. */
	ms.to_sink = depth == 1 && (in->cb->data_begin || in->cb->data || in->cb->data_end);
	if (EVP_DigestInit_ex(sha, EVP_sha256(), NULL) != 1) {
		stop_failed(in, BB_ERR_INTERNAL);
		result = LEVEL_STOPPED;
		goto out;
	}
	if (ms.to_sink && in->cb->data_begin) {
		st = in->cb->data_begin(in->cb->ctx, &m);
		if (st != BB_OK) {
			stop_failed(in, st);
			result = LEVEL_STOPPED;
			goto out;
		}
	}
	began = ms.to_sink;

	look_inside(in, &ms, path, depth, note, sizeof(note));
	while (member_pull(&ms) > 0)
		;

	complete = ms.at_end && !ms.read_error && !in->stopped;
	m.size = ms.size;
	if (complete) {
		if (EVP_DigestFinal_ex(sha, md, &md_len) != 1) {
			stop_failed(in, BB_ERR_INTERNAL);
			complete = 0;
		} else {
			hex_encode(md, md_len, hex);
			m.hash = hex;
		}
	}
	if (ms.read_error)
		snprintf(note, sizeof(note), "read failed: %s", ms.error);
	else if (!complete)
		snprintf(note, sizeof(note), "not read to the end: inspection stopped");
	m.note = note[0] ? note : NULL;

	if (began && in->cb->data_end) {
		st = in->cb->data_end(in->cb->ctx, &m, complete);
		if (st != BB_OK)
			stop_failed(in, st);
	}
	report_member(in, &m);

	if (in->stopped)
		result = LEVEL_STOPPED;
	else if (ms.read_error == ARCHIVE_FATAL) {
		snprintf(damage, damage_size, "%s", ms.error);
		result = LEVEL_DAMAGED;
	}
out:
	return result;
}

/* Lists the members of a, starting with the header already read (r, entry).
 * prefix is the path of the member a was opened from, NULL at the top. */
static enum level_outcome list_level(struct inspector *in, struct archive *a, int r,
				     struct archive_entry *entry, const char *prefix,
				     unsigned depth, char *damage, size_t damage_size)
{
	struct buf path = BUF_INIT;
	unsigned char *block = NULL;
	EVP_MD_CTX *sha = NULL;
	const char *name;
	enum member_kind kind;
	int header_failures = 0;
	enum level_outcome result = LEVEL_DONE;

	block = malloc(INSPECT_BLOCK_SIZE);
	sha = EVP_MD_CTX_new();
	if (!block || !sha) {
		stop_failed(in, BB_ERR_NOMEM);
		result = LEVEL_STOPPED;
		goto out;
	}
	for (;; r = archive_read_next_header(a, &entry)) {
		if (in->stopped) {
			result = LEVEL_STOPPED;
			goto out;
		}
		if (r == ARCHIVE_EOF)
			break;
		if (r == ARCHIVE_FATAL) {
			copy_error(damage, damage_size, a, "unreadable archive");
			result = LEVEL_DAMAGED;
			goto out;
		}
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			if (++header_failures > INSPECT_MAX_HEADER_FAILURES) {
				copy_error(damage, damage_size, a, "unreadable archive");
				result = LEVEL_DAMAGED;
				goto out;
			}
			continue;
		}
		header_failures = 0;
		if (in->limits.max_members && in->seen >= in->limits.max_members) {
			stop_too_large(in, "stopped: more than %llu members (member limit)",
				       (unsigned long long)in->limits.max_members);
			result = LEVEL_STOPPED;
			goto out;
		}
		in->seen++;

		name = archive_entry_pathname(entry);
		if (!name)
			name = archive_entry_pathname_utf8(entry);
		/* Only when it holds something: an empty buf shares one static
		 * byte among all threads, which must not be written. */
		if (path.len)
			buf_reset(&path);
		if ((prefix && buf_addf(&path, "%s!/", prefix) != BB_OK) ||
		    buf_addstr(&path, name ? name : "") != BB_OK) {
			stop_failed(in, BB_ERR_NOMEM);
			result = LEVEL_STOPPED;
			goto out;
		}

		kind = member_kind(entry);
		if (carries_data(entry, kind)) {
			result = read_file_member(in, a,
						  archive_entry_size_is_set(entry) &&
						  archive_entry_size(entry) >= 0
						  ? (uint64_t)archive_entry_size(entry) : UINT64_MAX,
						  path.data, depth, kind_names[kind],
						  block, sha, damage, damage_size);
			if (result != LEVEL_DONE)
				goto out;
		} else {
			struct inspect_member m = { path.data, depth, kind_names[kind], 0,
						    NULL, NULL };

			if (kind != KIND_FILE && archive_entry_size_is_set(entry) &&
			    archive_entry_size(entry) > 0)
				m.size = (uint64_t)archive_entry_size(entry);
			if (archive_entry_is_data_encrypted(entry))
				m.note = "encrypted: content not read";
			report_member(in, &m);
		}
	}
out:
	buf_release(&path);
	EVP_MD_CTX_free(sha);
	free(block);
	return result;
}

/* --- the outer archive -------------------------------------------------------- */

/* The outer archive: a file read with pread() or a buffer in memory. */
struct source {
	struct inspector *in;
	int fd;                      /* -1 for memory */
	const unsigned char *mem;
	uint64_t size;
	uint64_t pos;
	unsigned char *block;        /* for fd reads */
	struct cpio_guard cpio;      /* what the reader is handed */
};

static la_ssize_t source_read(struct archive *a, void *client, const void **out)
{
	struct source *src = client;
	size_t want;
	ssize_t n = 0;

	*out = NULL;
	if (src->pos >= src->size)
		goto out;
	want = src->size - src->pos < INSPECT_BLOCK_SIZE
		? (size_t)(src->size - src->pos) : INSPECT_BLOCK_SIZE;
	if (src->mem) {
		n = (ssize_t)want;
		*out = src->mem + src->pos;
	} else {
		do
			n = pread(src->fd, src->block, want, (off_t)src->pos);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			int saved = errno;

			src->in->io_errno = saved;
			archive_set_error(a, saved, "reading the archive: %s", strerror(saved));
			n = ARCHIVE_FATAL;
			goto out;
		}
		*out = src->block;
	}
	/* A refused header reads as the end of the input: an error would stay
	 * with the reader for good, and a bidder that looks at the end of the
	 * input (zip's) would take every other format's reading down with it. */
	if (n > 0)
		n = (ssize_t)cpio_guard_feed(&src->cpio, src->pos, *out, (size_t)n);
	src->pos += (uint64_t)n;
out:
	return n;
}

static la_int64_t source_skip(struct archive *a, void *client, la_int64_t request)
{
	struct source *src = client;
	uint64_t left = src->pos < src->size ? src->size - src->pos : 0;
	uint64_t step;

	(void)a;
	if (request <= 0)
		return 0;
	step = (uint64_t)request < left ? (uint64_t)request : left;
	src->pos += step;
	return (la_int64_t)step;
}

static la_int64_t source_seek(struct archive *a, void *client, la_int64_t offset, int whence)
{
	struct source *src = client;
	la_int64_t base, result = ARCHIVE_FATAL;

	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = (la_int64_t)src->pos;
		break;
	case SEEK_END:
		base = src->size > INT64_MAX ? INT64_MAX : (la_int64_t)src->size;
		break;
	default:
		archive_set_error(a, EINVAL, "bad seek");
		goto out;
	}
	if ((offset < 0 && offset < -base) || (offset > 0 && offset > INT64_MAX - base)) {
		archive_set_error(a, EINVAL, "seek out of range");
		goto out;
	}
	src->pos = (uint64_t)(base + offset);
	result = (la_int64_t)src->pos;
out:
	return result;
}

/* Writes the filter names, outermost first, "none" left out. */
static void describe_filters(struct archive *a, char *out, size_t size)
{
	int i, count = archive_filter_count(a);
	size_t len = 0;

	out[0] = '\0';
	for (i = count - 1; i >= 0; i--) {
		const char *name = archive_filter_name(a, i);
		int n;

		if (archive_filter_code(a, i) == ARCHIVE_FILTER_NONE || !name)
			continue;
		n = snprintf(out + len, size - len, "%s%s", len ? "," : "", name);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
}

static void set_limits(struct inspector *in, const struct inspect_limits *limits)
{
	if (limits) {
		in->limits = *limits;
	} else {
		in->limits.max_members = INSPECT_DEFAULT_MEMBERS;
		in->limits.max_total = INSPECT_DEFAULT_TOTAL;
		in->limits.max_ratio = INSPECT_DEFAULT_RATIO;
		in->limits.max_depth = INSPECT_DEFAULT_DEPTH;
	}
	if (in->limits.max_depth < 1)
		in->limits.max_depth = 1;
	if (in->limits.max_depth > INSPECT_DEPTH_CEILING)
		in->limits.max_depth = INSPECT_DEPTH_CEILING;
}

static enum bb_status inspect_source(struct source *src, const struct inspect_limits *limits,
				     const struct inspect_callbacks *cb,
				     struct inspect_report *report, struct bb_error *err)
{
	static const struct inspect_callbacks no_callbacks;
	struct inspector in;
	struct archive *a = NULL;
	struct archive_entry *entry = NULL;
	const char *format;
	char damage[sizeof(report->note)];
	enum reader_class verdict = CLASS_PLAIN;
	enum bb_status result = BB_OK;
	int r = ARCHIVE_FATAL, pass, with_cpio;
	unsigned char head[6];

	memset(&in, 0, sizeof(in));
	memset(report, 0, sizeof(*report));
	report->status = INSPECT_NOT_ARCHIVE;
	set_limits(&in, limits);
	in.archive_size = src->size;
	in.cb = cb ? cb : &no_callbacks;
	in.report = report;
	src->in = &in;

	/* cpio only for input that starts like it (see the cpio guard) */
	if (src->mem) {
		with_cpio = cpio_magic(src->mem, src->size < 6 ? (size_t)src->size : 6);
	} else {
		ssize_t got;

		do
			got = pread(src->fd, head, src->size < 6 ? (size_t)src->size : 6, 0);
		while (got < 0 && errno == EINTR);
		with_cpio = got > 0 && cpio_magic(head, (size_t)got);
	}
	for (pass = 0; pass < 2; pass++) {
		/* The second pass reads a gzip of zeros as a lone compressed
		 * file (see classify()). */
		if (a)
			archive_read_free(a);
		src->pos = 0;
		cpio_guard_init(&src->cpio, src->size);
		result = new_reader(&a, pass == 1, with_cpio);
		if (result != BB_OK) {
			bb_error_set(err, result, "cannot set up an archive reader");
			goto out;
		}
		archive_read_set_read_callback(a, source_read);
		archive_read_set_skip_callback(a, source_skip);
		archive_read_set_seek_callback(a, source_seek);
		archive_read_set_callback_data(a, src);

		r = archive_read_open1(a);
		if (in.io_errno)
			goto out;
		if (r == ARCHIVE_FATAL && archive_errno(a) == ENOMEM) {
			result = bb_error_set(err, BB_ERR_NOMEM, "out of memory reading the archive");
			goto out;
		}
		if (r != ARCHIVE_OK && open_failed_plain(a))
			goto out;
		if (r != ARCHIVE_OK) {
			report->status = INSPECT_DAMAGED;
			copy_error(report->note, sizeof(report->note), a, "unreadable archive");
			goto out;
		}
		r = archive_read_next_header(a, &entry);
		if (in.io_errno)
			goto out;
		if (r == ARCHIVE_FATAL && archive_errno(a) == ENOMEM) {
			result = bb_error_set(err, BB_ERR_NOMEM, "out of memory reading the archive");
			goto out;
		}
		verdict = classify(a, r);
		if (verdict != CLASS_EMPTY_TAR)
			break;
		if (!is_compressed(a))
			goto out;
	}
	switch (verdict) {
	case CLASS_PLAIN:
	case CLASS_EMPTY_TAR:
		goto out;
	case CLASS_UNREADABLE:
		report->status = INSPECT_DAMAGED;
		copy_error(report->note, sizeof(report->note), a, "unreadable archive");
		break;
	case CLASS_ARCHIVE:
		report->status = INSPECT_OK;
		break;
	}
	format = archive_format_name(a);
	snprintf(report->format, sizeof(report->format), "%s", format ? format : "");
	describe_filters(a, report->filters, sizeof(report->filters));
	if (report->status != INSPECT_OK)
		goto out;

	switch (list_level(&in, a, r, entry, NULL, 1, damage, sizeof(damage))) {
	case LEVEL_DONE:
		break;
	case LEVEL_DAMAGED:
		report->status = INSPECT_DAMAGED;
		snprintf(report->note, sizeof(report->note), "%s", damage);
		break;
	case LEVEL_STOPPED:
		if (in.too_large)
			report->status = INSPECT_TOO_LARGE;
		break;
	}
out:
	if (src->cpio.refused) {
		/* whatever libarchive said of it, and whatever was listed */
		report->status = INSPECT_DAMAGED;
		snprintf(report->note, sizeof(report->note), "%s", src->cpio.why);
		if (!report->format[0])
			snprintf(report->format, sizeof(report->format), "cpio");
	}
	if (result == BB_OK && in.io_errno)
		result = bb_error_errno(err, in.io_errno, "reading the archive");
	else if (result == BB_OK && in.failure != BB_OK)
		result = bb_error_set(err, in.failure, "archive inspection stopped: %s",
				      status_str(in.failure));
	if (a)
		archive_read_free(a);
	src->in = NULL;
	return result;
}

/* --- public entry points -------------------------------------------------------- */

const char *inspect_status_str(enum inspect_status st)
{
	switch (st) {
	case INSPECT_NOT_ARCHIVE: return "not-archive";
	case INSPECT_OK: return "ok";
	case INSPECT_TOO_LARGE: return "too-large";
	case INSPECT_DAMAGED: return "damaged";
	}
	return "unknown";
}

enum bb_status inspect_fd(int fd, uint64_t size, const struct inspect_limits *limits,
			  const struct inspect_callbacks *cb,
			  struct inspect_report *report, struct bb_error *err)
{
	struct source src;
	enum bb_status result;

	memset(&src, 0, sizeof(src));
	src.fd = fd;
	src.size = size;
	src.block = malloc(INSPECT_BLOCK_SIZE);
	if (!src.block) {
		result = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	result = inspect_source(&src, limits, cb, report, err);
out:
	free(src.block);
	return result;
}

enum bb_status inspect_memory(const void *data, size_t size,
			      const struct inspect_limits *limits,
			      const struct inspect_callbacks *cb,
			      struct inspect_report *report, struct bb_error *err)
{
	static const unsigned char empty[1];
	struct source src;

	memset(&src, 0, sizeof(src));
	src.fd = -1;
	src.mem = data ? data : empty;
	src.size = data ? size : 0;
	return inspect_source(&src, limits, cb, report, err);
}
