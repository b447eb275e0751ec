/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The list archive reader for a local Maildir (archive_maildir.h): new/ and
 * cur/ listed and ordered by (mtime, unique name), the cursor's horizon and
 * names, each message read whole.  The Maildir is never modified.  What it
 * reads of the source and the calls it hands messages over with are in
 * archive_source.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/run.h"
#include "mail/archive.h"
#include "mail/archive_maildir.h"
#include "mail/archive_source.h"

/* ---------------------------------------------------------------------------
 * Maildir
 */

struct md_entry {
	char *name;       /* the unique part (before ':') */
	char *file;       /* "new/<file>" or "cur/<file>" */
	long long mtime;  /* seconds, capped at now */
	int done;
};

struct md_list {
	struct md_entry *e;
	size_t n, alloc;
};

static void md_list_release(struct md_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->e[i].name);
		free(l->e[i].file);
	}
	free(l->e);
	l->e = NULL;
	l->n = l->alloc = 0;
}

static int md_cmp_name(const void *a, const void *b)
{
	const struct md_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->file, y->file);
}

static int md_cmp_order(const void *a, const void *b)
{
	const struct md_entry *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

static enum bb_status md_scan_sub(const char *path, const char *sub, long long now,
				  struct md_list *l, int *found, struct bb_error *err)
{
	char *dir = str_printf("%s/%s", path, sub);
	DIR *d;
	struct dirent *de;
	enum bb_status st = BB_OK;

	if (!dir)
		return archive_nomem(err);
	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT)
			st = bb_error_errno(err, errno, "cannot read %s", dir);
		free(dir);
		return st;
	}
	*found = 1;
	while ((errno = 0, de = readdir(d))) {
		struct stat sb;
		size_t ulen;

		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode))
			continue;   /* gone already, or not a message file */
		if (l->n == l->alloc) {
			size_t grow = l->alloc ? l->alloc * 2 : 64;
			struct md_entry *more = realloc(l->e, grow * sizeof(*more));

			if (!more) {
				st = archive_nomem(err);
				goto out;
			}
			l->e = more;
			l->alloc = grow;
		}
		ulen = strcspn(de->d_name, ":");
		l->e[l->n].name = strndup(de->d_name, ulen);
		l->e[l->n].file = str_printf("%s/%s", sub, de->d_name);
		l->e[l->n].mtime = (long long)sb.st_mtime < now ? (long long)sb.st_mtime : now;
		l->e[l->n].done = 0;
		if (!l->e[l->n].name || !l->e[l->n].file) {
			free(l->e[l->n].name);
			free(l->e[l->n].file);
			st = archive_nomem(err);
			goto out;
		}
		l->n++;
	}
	if (errno)
		st = bb_error_errno(err, errno, "cannot read %s", dir);
out:
	closedir(d);
	free(dir);
	return st;
}

/* Lists new/ and cur/, one entry per unique name, in (mtime, name) order. */
static enum bb_status md_scan(const char *path, long long now, struct md_list *l,
			      struct bb_error *err)
{
	enum bb_status st;
	int found = 0;
	struct stat sb;
	size_t k = 0;

	if (stat(path, &sb))
		return bb_error_errno(err, errno, "Maildir %s", path);
	if ((st = md_scan_sub(path, "new", now, l, &found, err)) ||
	    (st = md_scan_sub(path, "cur", now, l, &found, err)))
		return st;
	if (!found)
		return bb_error_set(err, BB_ERR_INVALID, "%s is not a Maildir (no new/ or cur/)",
				    path);
	if (!l->n)
		return BB_OK;
	/* a message being moved from new/ to cur/ may be seen in both */
	qsort(l->e, l->n, sizeof(*l->e), md_cmp_name);
	for (size_t i = 0; i < l->n; i++) {
		if (k && !strcmp(l->e[k - 1].name, l->e[i].name)) {
			free(l->e[i].name);
			free(l->e[i].file);
			continue;
		}
		l->e[k++] = l->e[i];
	}
	l->n = k;
	qsort(l->e, l->n, sizeof(*l->e), md_cmp_order);
	return BB_OK;
}

struct md_cursor {
	long long horizon;   /* -1: none (read everything) */
	struct run_args names; /* sorted */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static enum bb_status parse_md_cursor(const char *cursor, struct md_cursor *c,
				      struct bb_error *err)
{
	const char *p, *end;

	c->horizon = -1;
	memset(&c->names, 0, sizeof(c->names));
	if (!cursor)
		return BB_OK;
	if (strncmp(cursor, "maildir:", 8) || archive_parse_long(cursor + 8, &end, LLONG_MAX / 4,
								 &c->horizon) || *end != ':')
		goto bad;
	p = end + 1;
	while (*p) {
		size_t len = strcspn(p, "/");

		if (!len || memchr(p, ':', len))
			goto bad;
		if (run_args_push_owned(&c->names, strndup(p, len))) {
			run_args_clear(&c->names);
			return archive_nomem(err);
		}
		p += len;
		if (*p == '/')
			p++;
	}
	if (c->names.n)
		qsort(c->names.v, c->names.n, sizeof(char *), cmp_str);
	return BB_OK;
bad:
	run_args_clear(&c->names);
	c->horizon = -1;
	return bb_error_set(err, BB_ERR_INVALID,
			    "not a Maildir cursor (maildir:<time>:<name>/...): \"%.80s\"", cursor);
}

/* maildir:<horizon>:<names of the done entries with an mtime at or after
 * it>.  Entries are read in order, so those are the entries of [0,
 * read_end) from the first one at the horizon on, and the entries from
 * read_end on that the old cursor named (ahead[], ascending indexes): the
 * cost is the size of the cursor, not of the Maildir. */
static char *md_cursor_text(const struct md_list *l, long long horizon, size_t read_end,
			    const size_t *ahead, size_t nahead)
{
	struct buf b = BUF_INIT;
	size_t lo = 0, hi = read_end;
	int first = 1;

	if (buf_addf(&b, "maildir:%lld:", horizon < 0 ? 0 : horizon))
		return NULL;
	while (lo < hi) {   /* the first entry of [0, read_end) at the horizon */
		size_t mid = lo + (hi - lo) / 2;

		if (l->e[mid].mtime < horizon)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < read_end; i++) {
		if (!l->e[i].done)
			continue;
		if ((!first && buf_addch(&b, '/')) || buf_addstr(&b, l->e[i].name))
			goto fail;
		first = 0;
	}
	for (size_t k = 0; k < nahead; k++) {
		size_t i = ahead[k];

		if (i < read_end || l->e[i].mtime < horizon)
			continue;
		if ((!first && buf_addch(&b, '/')) || buf_addstr(&b, l->e[i].name))
			goto fail;
		first = 0;
	}
	return buf_detach(&b, NULL);
fail:
	buf_release(&b);
	return NULL;
}

/* The position after each message of a poll, kept up to date as messages
 * are read: the same set of names md_cursor_text() gives (the done
 * entries with an mtime at or after the horizon: those the old cursor
 * named, then those read in this poll, each group in list order), but a
 * message read at an unchanged horizon only appends its name, so messages
 * sharing one mtime second cost the length of their names, not the square
 * of their number.  When the horizon moves, the text is made again from
 * the entries at or after it. */
struct md_position {
	struct buf text;
	long long horizon;
	int built, empty;      /* empty: no name in text yet */
	size_t *read;          /* indexes of the entries done in this poll, in order */
	size_t nread;
};

/* The first of n indexes into l (ascending mtimes) at or after horizon. */
static size_t md_first_at(const struct md_list *l, const size_t *idx, size_t n, long long horizon)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->e[idx[mid]].mtime < horizon)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static enum bb_status md_position_add_name(struct md_position *p, const char *name)
{
	if (!p->empty && buf_addch(&p->text, '/'))
		return BB_ERR_NOMEM;
	p->empty = 0;
	return buf_addstr(&p->text, name);
}

/* Records entry i as done (it must come after the ones before in list
 * order) at horizon and brings the text up to date. */
static enum bb_status md_position_done(struct md_position *p, const struct md_list *l, size_t i,
				       long long horizon, const size_t *ahead, size_t nahead)
{
	p->read[p->nread++] = i;
	if (p->built && p->horizon == horizon)
		return l->e[i].mtime < horizon ? BB_OK : md_position_add_name(p, l->e[i].name);
	buf_reset(&p->text);
	p->horizon = horizon;
	p->built = 1;
	p->empty = 1;
	if (buf_addf(&p->text, "maildir:%lld:", horizon < 0 ? 0 : horizon))
		return BB_ERR_NOMEM;
	for (size_t k = md_first_at(l, ahead, nahead, horizon); k < nahead; k++)
		if (md_position_add_name(p, l->e[ahead[k]].name))
			return BB_ERR_NOMEM;
	for (size_t k = md_first_at(l, p->read, p->nread, horizon); k < p->nread; k++)
		if (md_position_add_name(p, l->e[p->read[k]].name))
			return BB_ERR_NOMEM;
	return BB_OK;
}

/* Reads a message file; a file renamed between the listing and now (new/
 * to cur/, a flag change) is looked for by its unique name.  *gone = 1
 * when it is not there any more. */
static enum bb_status md_read(struct archive_source *src, struct md_entry *e, struct buf *msg,
			      int *gone, struct bb_error *err)
{
	char *path = str_printf("%s/%s", src->path, e->file);
	enum bb_status st = BB_OK;
	struct stat sb;
	int fd;

	*gone = 0;
	buf_reset(msg);
	if (!path)
		return archive_nomem(err);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT) {
		struct md_list again = { NULL, 0, 0 };
		int found = 0;

		free(path);
		path = NULL;
		for (int s = 0; s < 2 && !path; s++) {
			md_list_release(&again);
			if (md_scan_sub(src->path, s ? "cur" : "new", archive_now_seconds(), &again,
					&found, NULL))
				break;
			for (size_t i = 0; i < again.n; i++)
				if (!strcmp(again.e[i].name, e->name)) {
					path = str_printf("%s/%s", src->path, again.e[i].file);
					break;
				}
		}
		md_list_release(&again);
		if (!path) {
			*gone = 1;
			return BB_OK;
		}
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd < 0) {
		if (errno == ENOENT)
			*gone = 1;
		else
			st = bb_error_errno(err, errno, "cannot open %s", path);
		goto out;
	}
	if (fstat(fd, &sb)) {
		st = bb_error_errno(err, errno, "cannot stat %s", path);
		goto out;
	}
	if ((unsigned long long)sb.st_size > src->max_message) {
		st = BB_ERR_TOO_LARGE;
		goto out;
	}
	if ((st = buf_grow(msg, (size_t)sb.st_size + 1))) {
		archive_nomem(err);
		goto out;
	}
	for (;;) {
		char chunk[65536];
		ssize_t n = fs_read_full(fd, chunk, sizeof(chunk));

		if (n < 0) {
			st = bb_error_errno(err, errno, "cannot read %s", path);
			goto out;
		}
		if (n == 0)
			break;
		if (msg->len + (size_t)n > src->max_message) {
			st = BB_ERR_TOO_LARGE;
			goto out;
		}
		if (buf_add(msg, chunk, (size_t)n)) {
			st = archive_nomem(err);
			goto out;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	free(path);
	return st;
}

enum bb_status archive_poll_maildir(struct archive_source *src, const char *cursor,
				    archive_message_fn fn, void *ctx, int tail, char **next_cursor,
				    struct bb_error *err)
{
	struct md_cursor c;
	struct md_list l = { NULL, 0, 0 };
	struct md_position pos = { BUF_INIT, 0, 0, 1, NULL, 0 };
	struct buf msg = BUF_INIT;
	long long now = archive_now_seconds(), horizon, handed_horizon = -1;
	size_t *ahead = NULL, nahead = 0, handed_len = 0;
	enum bb_status st;

	if ((st = parse_md_cursor(cursor, &c, err)) || (st = md_scan(src->path, now, &l, err)))
		goto out;
	horizon = c.horizon;
	ahead = calloc(c.names.n ? c.names.n : 1, sizeof(*ahead));
	pos.read = calloc(l.n ? l.n : 1, sizeof(*pos.read));
	if (!ahead || !pos.read) {
		st = archive_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		if (tail || (c.horizon >= 0 && l.e[i].mtime < c.horizon)) {
			l.e[i].done = 1;
		} else if (c.horizon >= 0 && nahead < c.names.n &&
			   bsearch(&l.e[i].name, c.names.v, c.names.n, sizeof(char *), cmp_str)) {
			l.e[i].done = 1;
			ahead[nahead++] = i;
		}
	}
	for (size_t i = 0; i < l.n; i++) {
		int gone = 0;

		if (l.e[i].done)
			continue;
		st = md_read(src, &l.e[i], &msg, &gone, err);
		if (st && st != BB_ERR_TOO_LARGE)
			goto out;
		l.e[i].done = 1;
		if (l.e[i].mtime - ARCHIVE_MAILDIR_SLACK > horizon)
			horizon = l.e[i].mtime - ARCHIVE_MAILDIR_SLACK;
		if (md_position_done(&pos, &l, i, horizon, ahead, nahead)) {
			st = archive_nomem(err);
			goto out;
		}
		if (st == BB_ERR_TOO_LARGE || gone) {
			archive_log_skip(src, gone ? "gone" : "too-large", l.e[i].file);
			st = BB_OK;
			continue;
		}
		/* at one horizon the text only grows (md_position_done()) */
		src->position_kept = pos.horizon == handed_horizon ? handed_len : 0;
		handed_horizon = pos.horizon;
		handed_len = pos.text.len;
		if ((st = archive_deliver(src, fn, ctx, msg.data, msg.len, pos.text.data, err)))
			goto out;
	}
	if (tail && l.n && l.e[l.n - 1].mtime - ARCHIVE_MAILDIR_SLACK > horizon)
		horizon = l.e[l.n - 1].mtime - ARCHIVE_MAILDIR_SLACK;
	if (!next_cursor)
		goto out;
	if (pos.built && !tail)   /* the last message's position */
		*next_cursor = buf_detach(&pos.text, NULL);
	else
		*next_cursor = md_cursor_text(&l, horizon, l.n, ahead, nahead);
	if (!*next_cursor)
		st = archive_nomem(err);
out:
	run_args_clear(&c.names);
	md_list_release(&l);
	buf_release(&msg);
	buf_release(&pos.text);
	free(pos.read);
	free(ahead);
	return st;
}
