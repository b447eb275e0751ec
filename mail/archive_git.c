/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The list archive reader for public-inbox inboxes (archive_git.h): git
 * epochs mirrored with the real `git` program (child processes, clone,
 * fetch, probing for new epochs, the state folder's lock) and their commits
 * walked oldest first through one `git cat-file --batch`.  archive_poll()
 * and archive_tail() (archive.c) call it for sources of kind
 * "public-inbox"; what it reads of the source and the calls it hands
 * messages over with are in archive_source.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/run.h"
#include "mail/archive.h"
#include "mail/archive_git.h"
#include "mail/archive_source.h"

#define ARCHIVE_PROBE_CAP ((size_t)1 << 20)        /* info/refs of an epoch */
#define ARCHIVE_GIT_OUTPUT_CAP ((size_t)1 << 20)   /* stdout of small git commands */
#define ARCHIVE_MAX_EPOCH 100000L
#define ARCHIVE_OID_MAX 64                         /* SHA-256 repositories */
#define ARCHIVE_GIT_READ ((size_t)256 << 10)       /* asked of a child's stdout per read */
#define ARCHIVE_GIT_PIPE (1 << 20)                 /* the git children's stdout pipes, if allowed */

/* ---------------------------------------------------------------------------
 * Small helpers
 */

/* Removes a folder tree (a half-made clone). */
static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path) && errno != ENOENT ? -1 : 0;
}

static int remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Whether text (len bytes) is a commit name: 40 or 64 hex digits. */
static int is_oid(const char *text, size_t len)
{
	return (len == 40 || len == 64) && archive_is_hex_string(text, len);
}

/* ---------------------------------------------------------------------------
 * Child processes (git)
 */

/* A git child (core/run.h) whose stdout is read by lines or by byte counts:
 * rbuf holds what has been read from it but not consumed yet. */
struct child {
	struct run_child run;
	struct buf rbuf;
	size_t rpos;
	int skipping;   /* passing over a line too long (child_next_line()) */
};

static void child_init(struct child *c, const char *what)
{
	run_child_init(&c->run, what);
	buf_init(&c->rbuf);
	c->rpos = 0;
	c->skipping = 0;
}

/* Starts argv with git's clean environment (run_git_environment()). */
static enum bb_status child_spawn(struct archive_source *src, struct run_args *argv, int with_stdin,
				  struct child *c, struct bb_error *err)
{
	char **env = run_git_environment();
	enum bb_status st;

	if (!env)
		return archive_nomem(err);
	st = run_child_spawn(&c->run, argv->v, env, with_stdin, err);
	free(env);
	if (st == BB_OK)
		src->stats.git_commands++;
	return st;
}

/* Drops the consumed bytes of b (those before *pos) when there are some,
 * no fewer than least and no fewer than the bytes after them: moving those
 * is then cheaper than keeping the consumed ones. */
static void drop_consumed(struct buf *b, size_t *pos, size_t least)
{
	size_t rest = b->len - *pos;

	if (!*pos || *pos < rest || *pos < least)
		return;
	memmove(b->data, b->data + *pos, rest);
	buf_truncate(b, rest);
	*pos = 0;
}

/* Reads what is there from stdout (into rbuf, ARCHIVE_GIT_READ at a time,
 * straight into its free space) and stderr, waiting until stdout has
 * something or ends.  What was consumed is dropped first when that is
 * cheaper than keeping it (it moves no more than it frees). */
static enum bb_status child_fill(struct child *c, struct bb_error *err)
{
	size_t got;
	enum bb_status st;

	drop_consumed(&c->rbuf, &c->rpos, 0);
	if (buf_grow(&c->rbuf, ARCHIVE_GIT_READ))
		return archive_nomem(err);
	if ((st = run_child_read(&c->run, c->rbuf.data + c->rbuf.len, ARCHIVE_GIT_READ, &got,
				 err)))
		return st;
	c->rbuf.len += got;
	c->rbuf.data[c->rbuf.len] = '\0';
	return BB_OK;
}

/* The next line of stdout, in place in rbuf with its '\n' made a NUL
 * (*line, *len without it; good until the next read); *got = 0 at the
 * end.  A line longer than max is an error, or with skip passed over (the
 * line after it is the next). */
static enum bb_status child_next_line(struct child *c, size_t max, int skip, char **line,
				      size_t *len, int *got, struct bb_error *err)
{
	enum bb_status st;

	*got = 0;
	for (;;) {
		char *start = c->rbuf.data + c->rpos;
		size_t avail = c->rbuf.len - c->rpos;
		char *nl = memchr(start, '\n', avail);

		if (nl) {
			c->rpos += (size_t)(nl - start) + 1;
			if (c->skipping) {
				c->skipping = 0;
				continue;
			}
			*nl = '\0';
			*line = start;
			*len = (size_t)(nl - start);
			*got = 1;
			return BB_OK;
		}
		if (c->run.out_eof) {
			c->rpos += avail;
			if (avail && !c->skipping) {
				/* (child_fill() keeps a NUL after what it read) */
				*line = start;
				*len = avail;
				*got = 1;
			}
			c->skipping = 0;
			return BB_OK;
		}
		if (avail > max) {
			if (!skip)
				return bb_error_set(err, BB_ERR_PROTOCOL,
						    "%s: a line of output is too long", c->run.what);
			c->skipping = 1;
			c->rpos += avail;
		}
		if ((st = child_fill(c, err)))
			return st;
	}
}

/* Exactly n bytes of stdout into out (or thrown away when out is NULL). */
static enum bb_status child_read_bytes(struct child *c, size_t n, struct buf *out,
				       struct bb_error *err)
{
	enum bb_status st;

	while (n) {
		size_t avail = c->rbuf.len - c->rpos, take;

		if (!avail) {
			if (c->run.out_eof)
				return bb_error_set(err, BB_ERR_IO, "%s: output ended early",
						    c->run.what);
			if ((st = child_fill(c, err)))
				return st;
			continue;
		}
		take = avail < n ? avail : n;
		if (out && buf_add(out, c->rbuf.data + c->rpos, take))
			return archive_nomem(err);
		c->rpos += take;
		n -= take;
	}
	return BB_OK;
}

/* Ends a child that may still run (after an early stop). */
static void child_release(struct child *c)
{
	run_child_release(&c->run);
	buf_release(&c->rbuf);
}

static int has(const struct buf *b, const char *needle)
{
	return strstr(b->data, needle) != NULL;
}

/* Folds a failed network git command by what it said (LC_ALL=C). */
static enum bb_status fold_git(const struct buf *e)
{
	const char *p = strstr(e->data, "returned error: ");

	if (p) {
		long code = strtol(p + 16, NULL, 10);

		if (code >= 400)
			return status_from_http(code);
	}
	if (has(e, "not found") || has(e, "does not exist"))
		return BB_ERR_NOT_FOUND;
	if (has(e, "Authentication failed") || has(e, "could not read Username") ||
	    has(e, "could not read Password"))
		return BB_ERR_AUTH;
	if (has(e, "SSL certificate problem") || has(e, "certificate verification") ||
	    has(e, "server certificate"))
		return BB_ERR_CONFIG;
	if (has(e, "No space left"))
		return BB_ERR_NO_SPACE;
	if (has(e, "Permission denied"))
		return BB_ERR_PERMISSION;
	if (has(e, "not valid: is this a git repository") ||
	    has(e, "does not appear to be a git repository") || has(e, "protocol error") ||
	    has(e, "bad line length") || has(e, "invalid server response") ||
	    has(e, "not a git repository") || has(e, "unknown value for config"))
		return BB_ERR_PROTOCOL;
	/* resolve, connect, timeouts, resets, "early EOF", 5xx without a code */
	return BB_ERR_TEMPORARY;
}

static enum bb_status git_argv(struct archive_source *src, struct run_args *v, const char *git_dir)
{
	char *s;

	if (run_args_push(v, src->git_program))
		return BB_ERR_NOMEM;
	if (git_dir && run_args_push_owned(v, str_printf("--git-dir=%s", git_dir)))
		return BB_ERR_NOMEM;
	if (run_args_push(v, "-c") || run_args_push(v, "http.lowSpeedLimit=1") ||
	    run_args_push(v, "-c") ||
	    run_args_push_owned(v, str_printf("http.lowSpeedTime=%ld", src->timeout)) ||
	    run_args_push(v, "-c") || run_args_push(v, "protocol.allow=never") ||
	    run_args_push(v, "-c") || run_args_push(v, "protocol.http.allow=always") ||
	    run_args_push(v, "-c") || run_args_push(v, "protocol.https.allow=always") ||
	    run_args_push(v, "-c") || run_args_push(v, "credential.helper=") ||
	    run_args_push(v, "-c") || run_args_push(v, "core.askPass=") ||
	    /* a local inbox's own configuration cannot make `git log` run
	     * its gpg.program on a signed commit */
	    run_args_push(v, "-c") || run_args_push(v, "log.showSignature=false"))
		return BB_ERR_NOMEM;
	if (src->proxy) {
		s = str_printf("http.proxy=%s", src->proxy);
		if (run_args_push(v, "-c") || run_args_push_owned(v, s))
			return BB_ERR_NOMEM;
	}
	if (src->ca_file) {
		s = str_printf("http.sslCAInfo=%s", src->ca_file);
		if (run_args_push(v, "-c") || run_args_push_owned(v, s))
			return BB_ERR_NOMEM;
	}
	return BB_OK;
}

/* Runs a git command to its end.  stdout goes to out (capped) if out is
 * not NULL.  A failure of a network command (remote set) is folded by
 * fold_git() and names remote; others are BB_ERR_IO. */
static enum bb_status git_run(struct archive_source *src, struct run_args *argv, const char *what,
			      const char *remote, struct buf *out, int *exit_status,
			      struct bb_error *err)
{
	struct child c;
	struct timespec start;
	enum bb_status st;
	int status = 255;
	char message[300];

	child_init(&c, what);
	clock_gettime(CLOCK_MONOTONIC, &start);
	if ((st = child_spawn(src, argv, 0, &c, err)))
		goto out;
	for (;;) {
		if ((st = child_fill(&c, err)))
			goto out;
		if (out && c.rbuf.len > ARCHIVE_GIT_OUTPUT_CAP) {
			st = bb_error_set(err, BB_ERR_TOO_LARGE, "%s: too much output", what);
			goto out;
		}
		if (c.run.out_eof)
			break;
		if (!out) {
			buf_reset(&c.rbuf);
			c.rpos = 0;
		}
	}
	run_child_wait(&c.run, &status);
	if (exit_status)
		*exit_status = status;
	log_event(LOG_LEVEL_DEBUG, "archive.git", LF_STR("command", what),
		  LF_STR("remote", remote ? remote : ""), LF_INT("exit", status),
		  LF_INT("ms", archive_elapsed_ms(&start)));
	if (status != 0) {
		run_git_message(&c.run.errout, message, sizeof(message));
		if (remote)
			st = bb_error_set(err, fold_git(&c.run.errout), "%s %s: %s", what, remote,
					  message);
		else
			st = bb_error_set(err, BB_ERR_IO, "%s: %s", what, message);
		goto out;
	}
	if (out) {
		buf_release(out);
		*out = c.rbuf;
		buf_init(&c.rbuf);
	}
out:
	child_release(&c);
	return st;
}

/* ---------------------------------------------------------------------------
 * public-inbox: git epochs
 */

struct git_pos {
	long epoch;
	char commit[ARCHIVE_OID_MAX + 1]; /* "" = before the epoch's first commit */
};

static char *git_cursor(const struct git_pos *p)
{
	return str_printf("git:%ld:%s", p->epoch, p->commit);
}

static enum bb_status parse_git_cursor(const char *cursor, struct git_pos *p, struct bb_error *err)
{
	const char *s, *end;
	long long epoch;
	size_t len;

	p->epoch = 0;
	p->commit[0] = '\0';
	if (!cursor)
		return BB_OK;
	if (strncmp(cursor, "git:", 4) ||
	    archive_parse_long(cursor + 4, &end, ARCHIVE_MAX_EPOCH, &epoch) || *end != ':')
		goto bad;
	s = end + 1;
	len = strlen(s);
	if (len && !is_oid(s, len))
		goto bad;
	p->epoch = (long)epoch;
	memcpy(p->commit, s, len + 1);
	return BB_OK;
bad:
	return bb_error_set(err, BB_ERR_INVALID,
			    "not a public-inbox cursor (git:<epoch>:<commit>): \"%.80s\"", cursor);
}

/* The folder of the epochs: the mirrors, or a local inbox's git/. */
static char *epochs_dir(struct archive_source *src)
{
	return src->local ? str_printf("%s/git", src->path) : strdup(src->dir);
}

static char *epoch_dir(struct archive_source *src, long epoch)
{
	if (src->v1)
		return strdup(src->path);   /* one repository, epoch 0 */
	return src->local ? str_printf("%s/git/%ld.git", src->path, epoch)
			  : str_printf("%s/%ld.git", src->dir, epoch);
}

static char *epoch_url(struct archive_source *src, long epoch)
{
	return str_printf("%s/%ld", src->url, epoch);
}

static int epoch_present(struct archive_source *src, long epoch)
{
	char *dir = epoch_dir(src, epoch);
	struct stat st;
	int present = dir && !stat(dir, &st) && S_ISDIR(st.st_mode);

	free(dir);
	return present;
}

/* The highest epoch mirrored here, or -1. */
static long newest_local_epoch(struct archive_source *src)
{
	char *dir = epochs_dir(src);
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	long newest = -1;

	free(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		const char *end;
		long long e;

		if (archive_parse_long(de->d_name, &end, ARCHIVE_MAX_EPOCH, &e) ||
		    strcmp(end, ".git"))
			continue;
		if (e > newest && epoch_present(src, (long)e))
			newest = (long)e;
	}
	closedir(d);
	return newest;
}

static enum bb_status clone_remote(struct archive_source *src, long epoch, struct bb_error *err)
{
	struct run_args argv = RUN_ARGS_INIT;
	char *dir = epoch_dir(src, epoch), *part = NULL, *url = epoch_url(src, epoch);
	enum bb_status st;

	if (!dir || !url || !(part = str_printf("%s.part", dir))) {
		st = archive_nomem(err);
		goto out;
	}
	if (remove_tree(part)) {
		st = bb_error_errno(err, errno, "cannot remove the half-made clone %s", part);
		goto out;
	}
	if (git_argv(src, &argv, NULL) || run_args_push(&argv, "clone") ||
	    run_args_push(&argv, "--mirror") || run_args_push(&argv, "--quiet") ||
	    run_args_push(&argv, "--template=") || run_args_push(&argv, "--") ||
	    run_args_push(&argv, url) || run_args_push(&argv, part)) {
		st = archive_nomem(err);
		goto out;
	}
	src->stats.git_clones++;
	st = git_run(src, &argv, "git clone", url, NULL, NULL, err);
	if (st) {
		remove_tree(part);
		if (st == BB_ERR_NOT_FOUND && epoch == 0)
			bb_error_set(err, st, "no git epoch at %s: is %s a public-inbox v2 inbox?",
				     url, src->url);
		goto out;
	}
	if (rename(part, dir)) {
		st = bb_error_errno(err, errno, "cannot rename %s", part);
		remove_tree(part);
		goto out;
	}
	log_event(LOG_LEVEL_INFO, "archive.cloned", LF_STR("url", url), LF_INT("epoch", epoch));
out:
	run_args_clear(&argv);
	free(dir);
	free(part);
	free(url);
	return st;
}

/* An epoch's mirror made, or for a local inbox, found. */
static enum bb_status git_clone(struct archive_source *src, long epoch, struct bb_error *err)
{
	if (!src->local)
		return clone_remote(src, epoch, err);
	/* read in place: there or not */
	return epoch_present(src, epoch)
		       ? BB_OK
		       : bb_error_set(err, BB_ERR_NOT_FOUND,
				      "%s: no epoch %ld (git/%ld.git) and no repository: is it a"
				      " public-inbox v2 inbox (or a v1 one)?", src->path, epoch, epoch);
}

static enum bb_status git_fetch(struct archive_source *src, long epoch, struct bb_error *err)
{
	struct run_args argv = RUN_ARGS_INIT;
	char *dir, *url;
	enum bb_status st;

	if (src->local)   /* public-inbox writes it in place: nothing to fetch */
		return BB_OK;
	dir = epoch_dir(src, epoch);
	url = epoch_url(src, epoch);
	if (!dir || !url || git_argv(src, &argv, dir) || run_args_push(&argv, "fetch") ||
	    run_args_push(&argv, "--quiet") || run_args_push(&argv, "origin")) {
		st = archive_nomem(err);
		goto out;
	}
	src->stats.git_fetches++;
	st = git_run(src, &argv, "git fetch", url, NULL, NULL, err);
out:
	run_args_clear(&argv);
	free(dir);
	free(url);
	return st;
}

/* Whether epoch exists on the server: GET <url>/<epoch>/info/refs. */
static enum bb_status probe_epoch(struct archive_source *src, long epoch, int *exists,
				  struct bb_error *err)
{
	struct buf body = BUF_INIT;
	struct bb_error probe_err = BB_ERROR_INIT;
	char *url = str_printf("%s/%ld/info/refs?service=git-upload-pack", src->url, epoch);
	enum bb_status st;

	*exists = 0;
	if (!url)
		return archive_nomem(err);
	src->stats.epoch_probes++;
	if (src->local) {
		free(url);
		*exists = epoch_present(src, epoch);
		return BB_OK;
	}
	st = archive_http_get(src, url, ARCHIVE_PROBE_CAP, &body, &probe_err);
	if (st == BB_OK) {
		*exists = 1;
	} else if (st == BB_ERR_NOT_FOUND) {
		st = BB_OK;
	} else if (err) {
		*err = probe_err;
	}
	buf_release(&body);
	free(url);
	return st;
}

static char *probe_stamp_path(struct archive_source *src)
{
	return str_printf("%s/last-probe", src->dir);
}

static int probe_due(struct archive_source *src)
{
	char *path;
	char text[32];
	long long last;
	const char *end;
	ssize_t n;
	int fd, due = 1;

	if (src->probe_interval < 0)
		return 1;
	path = probe_stamp_path(src);
	if (!path)
		return 1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return 1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n > 0) {
		text[n] = '\0';
		if (!archive_parse_long(text, &end, LLONG_MAX / 2, &last))
			due = archive_now_seconds() - last >= src->probe_interval ||
			      last > archive_now_seconds();
	}
	return due;
}

static void probe_stamp(struct archive_source *src)
{
	char *path = probe_stamp_path(src);
	char text[32];
	int fd, n;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	free(path);
	if (fd < 0)
		return;
	n = snprintf(text, sizeof(text), "%lld\n", archive_now_seconds());
	if (fs_write_all(fd, text, (size_t)n))
		log_event(LOG_LEVEL_WARN, "archive.state", LF_STR("reason", "cannot note the probe"));
	close(fd);
}

/* Takes the state folder's lock (released by closing *fd). */
static enum bb_status lock_state(struct archive_source *src, int *fd, struct bb_error *err)
{
	char *path;
	enum bb_status st;

	*fd = -1;
	if ((st = fs_mkdir_p(src->dir, err)))
		return st;
	path = str_printf("%s/lock", src->dir);
	if (!path)
		return archive_nomem(err);
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0) {
		st = bb_error_errno(err, errno, "cannot open %s", path);
		free(path);
		return st;
	}
	free(path);
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		st = errno == EWOULDBLOCK
			? bb_error_set(err, BB_ERR_BUSY, "%s is being polled by another process",
				       src->dir)
			: bb_error_errno(err, errno, "cannot lock %s", src->dir);
		close(*fd);
		*fd = -1;
		return st;
	}
	return BB_OK;
}

/* What a walk over one epoch needs. */
struct git_walk {
	struct archive_source *src;
	archive_message_fn fn;
	void *ctx;
	struct git_pos pos;   /* where the caller stands */
	unsigned long walked; /* commits looked at in the current epoch */
	/* the cursor past the answer being handed over, "git:<epoch>:<commit>"
	 * (git_cursor()'s form): its "git:<epoch>:" is made once an epoch */
	char where[ARCHIVE_OID_MAX + 32];
	size_t where_prefix;  /* its length; 0: not made yet */
	long where_epoch;
};

/* w->where for commit (commit_len <= ARCHIVE_OID_MAX) in epoch. */
static const char *walk_where(struct git_walk *w, long epoch, const char *commit,
			      size_t commit_len)
{
	if (!w->where_prefix || w->where_epoch != epoch) {
		w->where_prefix = (size_t)snprintf(w->where, sizeof(w->where), "git:%ld:", epoch);
		w->where_epoch = epoch;
	}
	memcpy(w->where + w->where_prefix, commit, commit_len);
	w->where[w->where_prefix + commit_len] = '\0';
	return w->where;
}

static int looks_like_bad_revision(const struct buf *e)
{
	return has(e, "bad revision") || has(e, "unknown revision") ||
	       has(e, "Invalid revision range") || has(e, "bad object") ||
	       has(e, "ambiguous argument");
}

/* The `git cat-file --batch` that answers "<object> <rest>" lines with the
 * object and the rest (the commit the cursor names) in repository dir. */
static enum bb_status cat_file_argv(struct archive_source *src, const char *dir,
				    struct run_args *argv)
{
	if (git_argv(src, argv, dir) || run_args_push(argv, "cat-file") ||
	    run_args_push(argv, "--batch=%(objectname) %(objecttype) %(objectsize) %(rest)"))
		return BB_ERR_NOMEM;
	return BB_OK;
}

/* Logs that the cursor's commit (git:<epoch>:<from>) is gone from where
 * ("epoch", "inbox"), so that it is read again from its start. */
static void log_rewind(struct archive_source *src, long epoch, char *from, const char *where)
{
	char cursor[ARCHIVE_OID_MAX + 32], reason[64];

	snprintf(cursor, sizeof(cursor), "git:%ld:%s", epoch, from);
	snprintf(reason, sizeof(reason), "commit not in the %s", where);
	src->stats.rewinds++;
	log_event(LOG_LEVEL_WARN, "archive.rewind", LF_STR("kind", "public-inbox"),
		  LF_STR("cursor", cursor), LF_STR("reason", reason));
	from[0] = '\0';
}

/* One answer of cat-file (line, its header of len bytes, then the object
 * on its stdout): "<object> <type> <size> <commit>", or "<commit>:m missing" (v2)
 * and "<blob> missing" (v1: asked is the commit the request named; NULL
 * for v2, whose answers name it).  The message is handed over from
 * cat-file's buffer itself when it is whole there (the '\n' after it
 * turned into the NUL the handler is promised).  What is not a message
 * (no object, an object that is not a blob: a broken or hostile inbox) is
 * logged and passed, so that one bad commit does not stop the archive. */
static enum bb_status walk_answer(struct git_walk *w, struct child *cat, const char *line,
				  size_t line_len, long epoch, const char *asked, struct bb_error *err)
{
	struct archive_source *src = w->src;
	const char *p, *commit, *type = NULL, *where;
	size_t commit_len, type_len = 0;
	long long size = 0;
	enum bb_status st;
	int blob;

	if (line_len > 8 && !strcmp(line + line_len - 8, " missing")) {
		size_t len = line_len - 8;

		if (asked && is_oid(line, len)) {
			/* v1: the blob a commit names is not in the repository */
			commit = asked;
			commit_len = strlen(asked);
		} else {
			/* v2: no message in this commit: public-inbox removed
			 * one (purge, spam) */
			commit = line;
			commit_len = len;
			if (asked || commit_len < 2 || strncmp(line + commit_len - 2, ":m", 2) ||
			    !is_oid(commit, commit_len - 2))
				goto bad;
			commit_len -= 2;
		}
	} else {
		/* "<object> <type> <size> <commit>" */
		if (!(p = strchr(line, ' ')))
			goto bad;
		type = p + 1;
		type_len = strcspn(type, " ");
		if (!type_len || type[type_len] != ' ' ||
		    archive_parse_long(type + type_len + 1, &p, LLONG_MAX / 2, &size) || *p != ' ')
			goto bad;
		commit = p + 1;
		commit_len = strlen(commit);
		if (!is_oid(commit, commit_len))
			goto bad;
	}
	w->walked++;
	w->pos.epoch = epoch;
	memcpy(w->pos.commit, commit, commit_len);
	w->pos.commit[commit_len] = '\0';
	where = walk_where(w, epoch, commit, commit_len);
	if (!type) {
		log_event(LOG_LEVEL_INFO, "archive.no_message", LF_STR("where", where));
		src->stats.skipped++;
		return BB_OK;
	}
	blob = type_len == 4 && !strncmp(type, "blob", 4);
	if (!blob || (unsigned long long)size > src->max_message) {
		if ((st = child_read_bytes(cat, (size_t)size + 1, NULL, err)))
			return st;
		archive_log_skip(src, blob ? "too-large" : "not-a-file", where);
		return BB_OK;
	}
	/* the whole message and its '\n' in cat-file's buffer */
	while (cat->rbuf.len - cat->rpos < (size_t)size + 1) {
		if (cat->run.out_eof)
			return bb_error_set(err, BB_ERR_IO, "%s: output ended early", cat->run.what);
		if ((st = child_fill(cat, err)))
			return st;
	}
	{
		char *msg = cat->rbuf.data + cat->rpos;

		if (msg[size] != '\n')
			return bb_error_set(err, BB_ERR_IO, "git cat-file: no newline after %s",
					    where);
		msg[size] = '\0';
		cat->rpos += (size_t)size + 1;
		/* where is the cursor past this message (git_cursor()'s form) */
		st = archive_deliver(src, w->fn, w->ctx, msg, (size_t)size, where, err);
	}
	return st;
bad:
	return bb_error_set(err, BB_ERR_IO, "git cat-file answered \"%.80s\"", line);
}

/* Whether a local inbox is a v1 one: no git/ folder of epochs, and the
 * folder is a git repository itself (HEAD, objects/). */
static int local_v1(struct archive_source *src)
{
	char *epochs = str_printf("%s/git", src->path), *head = str_printf("%s/HEAD", src->path);
	char *objects = str_printf("%s/objects", src->path);
	struct stat st;
	int v1 = epochs && head && objects && stat(epochs, &st) && !stat(head, &st) &&
		 S_ISREG(st.st_mode) && !stat(objects, &st) && S_ISDIR(st.st_mode);

	free(epochs);
	free(head);
	free(objects);
	return v1;
}

/* Whether a `git log --raw` line names a message file a commit of a v1
 * inbox added (or replaced): ":<modes> <old> <new> A|M\t<ab>/<38 hex>",
 * the message's blob into blob. */
static int v1_message_line(const char *line, char blob[ARCHIVE_OID_MAX + 1])
{
	const char *tab = strchr(line, '\t'), *p = tab;
	size_t len, hex;

	if (line[0] != ':' || !tab || tab - line < 4)
		return 0;
	if (tab[-1] != 'A' && tab[-1] != 'M')
		return 0;
	/* the new object is the word before the status */
	p = tab - 2;
	if (*p != ' ')
		return 0;
	len = 0;
	while (p > line && p[-1] != ' ') {
		p--;
		len++;
	}
	if (!is_oid(p, len))
		return 0;
	hex = strlen(tab + 1);
	if ((hex != 41 && hex != 65) || tab[3] != '/' || !archive_is_hex_string(tab + 1, 2) ||
	    !archive_is_hex_string(tab + 4, hex - 3))
		return 0;
	memcpy(blob, p, len);
	blob[len] = '\0';
	return 1;
}

/* What cat-file is asked while an epoch is walked, made from what the
 * lister prints, and written ahead of the answers (feed_cat()), which
 * walk_answer() reads.
 *
 * v2: `git rev-list --objects --in-commit-order` names each commit, then
 * the objects its tree adds (the tree, then the message blob as "<blob>
 * m"), and each commit becomes one request -- "<blob> <commit>" for the
 * blob its "m" names, else "<commit>:m <commit>" (a commit whose message
 * rev-list did not list: it removed one, its blob is one listed before, or
 * its tree or blob is missing from a broken repository, which
 * --missing=allow-any passes over rather than failing the walk).  Asking
 * for the blob itself spares cat-file reading each commit and its tree
 * again to find it.
 *
 * v1 (one repository whose commits each add messages as files named by
 * the SHA-1 of their Message-ID): `git log --raw` names each commit
 * ("commit <commit>") and the files it added or replaced, and each of
 * those blobs becomes a request "<blob> <commit>"; all but a commit's last
 * name the commit before it whose messages were asked for (its own when
 * there is none), so that the cursor passes a commit only with its last
 * message.  A commit that removed a message (a purge) asks for nothing.
 * cat-file answers a blob it lacks with "<blob> missing", without the
 * rest of the request, so the commit each request names is also queued
 * (named) for its answer. */
struct feed {
	struct child *rev;     /* rev-list (v1: git log) */
	int v1;
	const char *dir;       /* the repository, for errors */
	struct buf req;        /* requests not yet written, from req_pos */
	size_t req_pos;
	unsigned long written; /* requests written whole */
	unsigned long asked;   /* answers begun */
	char commit[ARCHIVE_OID_MAX + 1]; /* the commit being listed, "" none */
	int has_message;       /* v2: its request is made */
	int rev_done;          /* rev-list's output has ended */
	/* v1 */
	char prev[ARCHIVE_OID_MAX + 1];     /* the last commit whose messages were asked for */
	char (*blobs)[ARCHIVE_OID_MAX + 1]; /* the blobs the commit being listed adds */
	size_t nblobs;
	struct buf named;      /* the commit of each request not answered yet, from named_pos
				* (ARCHIVE_OID_MAX + 1 bytes each) */
	size_t named_pos;
};

#define V1_COMMIT_MESSAGES 64   /* messages one v1 commit may add */
#define FEED_LOW ((size_t)64 << 10)   /* requests made ahead of what is written */
#define FEED_AHEAD 256                /* unanswered requests below which more are written */
/* Longer lines of rev-list's output are none that feed_line() reads (a
 * commit, "<blob> m"): a path that long in a hostile inbox's tree is
 * passed over, not an error that would stop the epoch every round. */
#define FEED_LINE_MAX 256

/* Empties f for a walk of repository dir (v1: a v1 inbox) from commit
 * from, keeping its buffers' memory. */
static void feed_reset(struct feed *f, int v1, const char *dir, const char *from)
{
	struct buf req = f->req, named = f->named;
	char (*blobs)[ARCHIVE_OID_MAX + 1] = f->blobs;

	buf_reset(&req);
	buf_reset(&named);
	memset(f, 0, sizeof(*f));
	f->req = req;
	f->named = named;
	f->blobs = blobs;
	f->v1 = v1;
	f->dir = dir;
	snprintf(f->prev, sizeof(f->prev), "%s", from);
}

static void feed_release(struct feed *f)
{
	buf_release(&f->req);
	buf_release(&f->named);
	free(f->blobs);
	f->blobs = NULL;
}

/* Adds the request "<object><suffix> <commit>\n" (commit: at most
 * ARCHIVE_OID_MAX bytes). */
static enum bb_status feed_request(struct feed *f, const char *object, size_t len,
				   const char *suffix, const char *commit, struct bb_error *err)
{
	char named[ARCHIVE_OID_MAX + 1] = "";
	size_t commit_len = strlen(commit);

	f->has_message = 1;
	if (buf_add(&f->req, object, len) || buf_addstr(&f->req, suffix) ||
	    buf_addch(&f->req, ' ') || buf_add(&f->req, commit, commit_len) ||
	    buf_addch(&f->req, '\n'))
		return archive_nomem(err);
	if (f->v1) {
		memcpy(named, commit, commit_len);
		drop_consumed(&f->named, &f->named_pos, 0);
		if (buf_add(&f->named, named, sizeof(named)))
			return archive_nomem(err);
	}
	return BB_OK;
}

/* The commit the next answer's request named (v1; NULL for v2, whose
 * answers name it, or when none is queued).  Good until the next request
 * is made. */
static const char *feed_named(struct feed *f)
{
	const char *named;

	if (!f->v1 || f->named.len - f->named_pos < ARCHIVE_OID_MAX + 1)
		return NULL;
	named = f->named.data + f->named_pos;
	f->named_pos += ARCHIVE_OID_MAX + 1;
	return named;
}

/* The requests of the commit being listed, if it has none yet (v2: one;
 * v1: one per message it adds). */
static enum bb_status feed_end_commit(struct feed *f, struct bb_error *err)
{
	enum bb_status st = BB_OK;

	if (!f->v1) {
		if (!f->commit[0] || f->has_message)
			return BB_OK;
		return feed_request(f, f->commit, strlen(f->commit), ":m", f->commit, err);
	}
	for (size_t i = 0; i < f->nblobs && !st; i++)
		st = feed_request(f, f->blobs[i], strlen(f->blobs[i]), "",
				  i + 1 < f->nblobs && f->prev[0] ? f->prev : f->commit, err);
	if (f->nblobs)
		memcpy(f->prev, f->commit, sizeof(f->prev));
	f->nblobs = 0;
	return st;
}

/* One line of rev-list's output: a commit ("<commit>"), or an object its
 * tree adds ("<object> <path>"; only a message's, "<blob> m", is read). */
static enum bb_status feed_line(struct feed *f, const char *line, size_t len,
				struct bb_error *err)
{
	const char *space = memchr(line, ' ', len);
	size_t oid = space ? (size_t)(space - line) : len;
	enum bb_status st;

	if (oid == len) {
		if (!is_oid(line, oid))
			goto bad;
		if ((st = feed_end_commit(f, err)))
			return st;
		memcpy(f->commit, line, oid);
		f->commit[oid] = '\0';
		f->has_message = 0;
		return BB_OK;
	}
	if (len != oid + 2 || line[oid + 1] != 'm' || !f->commit[0] || f->has_message)
		return BB_OK;   /* the tree, another path, or a second "m" */
	if (!is_oid(line, oid))
		goto bad;
	return feed_request(f, line, oid, "", f->commit, err);
bad:
	return bb_error_set(err, BB_ERR_IO, "git rev-list answered \"%.*s\"", (int)(len < 80 ? len : 80),
			    line);
}

/* One line of `git log --raw`'s output in a v1 inbox: a commit ("commit
 * <commit>"), or a file it changed (only a message added or replaced is
 * read: v1_message_line()). */
static enum bb_status feed_line_v1(struct feed *f, const char *line, size_t len,
				   struct bb_error *err)
{
	char text[FEED_LINE_MAX + 1], blob[ARCHIVE_OID_MAX + 1];
	enum bb_status st;

	if (len > 7 && !memcmp(line, "commit ", 7)) {
		if (!is_oid(line + 7, len - 7))
			return bb_error_set(err, BB_ERR_IO, "git log printed \"%.*s\"",
					    (int)(len < 80 ? len : 80), line);
		if ((st = feed_end_commit(f, err)))
			return st;
		memcpy(f->commit, line + 7, len - 7);
		f->commit[len - 7] = '\0';
		return BB_OK;
	}
	if (len > FEED_LINE_MAX || !f->commit[0])
		return BB_OK;
	memcpy(text, line, len);
	text[len] = '\0';
	if (!v1_message_line(text, blob))
		return BB_OK;
	if (f->nblobs == V1_COMMIT_MESSAGES)
		return bb_error_set(err, BB_ERR_IO, "commit %s of %s adds more than %d messages",
				    f->commit, f->dir, V1_COMMIT_MESSAGES);
	if (!f->blobs && !(f->blobs = calloc(V1_COMMIT_MESSAGES, sizeof(*f->blobs))))
		return archive_nomem(err);
	memcpy(f->blobs[f->nblobs++], blob, sizeof(blob));
	return BB_OK;
}

/* Writes requests to cat-file as far as its stdin takes them, once fewer
 * than FEED_AHEAD are unanswered (one write of many, not one per answer),
 * making more from rev-list's output while fewer than FEED_LOW bytes wait;
 * ends cat-file's stdin after the last.  Never waits on cat-file: it is
 * called before each answer is read, and leaves cat-file at least one
 * request it has not answered, or its stdin ended. */
static enum bb_status feed_cat(struct feed *f, struct child *cat, struct bb_error *err)
{
	enum bb_status st;
	int got;

	if (f->written - f->asked >= FEED_AHEAD)
		return BB_OK;
	for (;;) {
		size_t wrote, waiting;

		while (!f->rev_done && f->req.len - f->req_pos < FEED_LOW) {
			char *line = NULL;
			size_t len = 0;

			if ((st = child_next_line(f->rev, FEED_LINE_MAX, 1, &line, &len, &got, err)))
				return st;
			if (!got) {
				f->rev_done = 1;
				if ((st = feed_end_commit(f, err)))
					return st;
			} else if ((st = f->v1 ? feed_line_v1(f, line, len, err)
					       : feed_line(f, line, len, err))) {
				return st;
			}
		}
		waiting = f->req.len - f->req_pos;
		if (!waiting) {
			if (f->rev_done && cat->run.in_fd >= 0)
				run_child_close_input(&cat->run);
			return BB_OK;
		}
		if ((st = run_child_write_some(&cat->run, f->req.data + f->req_pos, waiting, &wrote,
					       err)))
			return st;
		if (!wrote && f->written > f->asked)
			return BB_OK;   /* its stdin is full: it has work */
		if (!wrote) {
			/* all it was asked is answered, so its stdin has room:
			 * a blocking write of the next request is safe */
			const char *nl = memchr(f->req.data + f->req_pos, '\n', waiting);

			wrote = (size_t)(nl - (f->req.data + f->req_pos)) + 1;
			if ((st = run_child_write(&cat->run, f->req.data + f->req_pos, wrote, err)))
				return st;
		}
		for (const char *p = f->req.data + f->req_pos, *e = p + wrote;
		     (p = memchr(p, '\n', (size_t)(e - p))); p++)
			f->written++;
		f->req_pos += wrote;
		/* (all written: emptied; else in pieces of FEED_LOW at least) */
		drop_consumed(&f->req, &f->req_pos, f->req_pos == f->req.len ? 0 : FEED_LOW);
	}
}

/* Walks epoch from commit from ("" = its start) to its HEAD, oldest first
 * (a v1 inbox: its one repository, as epoch 0): `git rev-list --objects`
 * (v1: `git log --raw`) lists the commits and their messages' blobs,
 * feed_cat() asks one `git cat-file --batch` for them, and its output is
 * read in large pieces, so both git processes and the handler run at
 * once. */
static enum bb_status walk_epoch(struct git_walk *w, long epoch, const char *start,
				 struct bb_error *err)
{
	struct archive_source *src = w->src;
	struct run_args argv = RUN_ARGS_INIT, cat_argv = RUN_ARGS_INIT;
	struct child rev, cat;
	struct feed feed;
	int v1 = src->v1;
	char *dir = epoch_dir(src, epoch), *range = NULL;
	char message[300];
	enum bb_status st = BB_OK;
	int got, status, cat_status, answers_short, retried = 0;
	char from[ARCHIVE_OID_MAX + 1];

	snprintf(from, sizeof(from), "%s", start);   /* start may be w->pos.commit */
	child_init(&rev, v1 ? "git log" : "git rev-list");
	child_init(&cat, "git cat-file");
	memset(&feed, 0, sizeof(feed));
	buf_init(&feed.req);
	buf_init(&feed.named);
	w->walked = 0;
	if (!dir)
		return archive_nomem(err);
	if (cat_file_argv(src, dir, &cat_argv)) {
		st = archive_nomem(err);
		goto out;
	}
again:
	feed_reset(&feed, v1, dir, from);   /* (a retry starts with nothing asked) */
	free(range);
	range = from[0] ? str_printf("%s..HEAD", from) : strdup("HEAD");
	run_args_clear(&argv);
	if (!range || git_argv(src, &argv, dir) ||
	    (v1 ? run_args_push(&argv, "log") || run_args_push(&argv, "--reverse") ||
		  run_args_push(&argv, "--first-parent") || run_args_push(&argv, "--no-abbrev") ||
		  run_args_push(&argv, "--raw") || run_args_push(&argv, "--no-renames") ||
		  run_args_push(&argv, "--root") || run_args_push(&argv, "--format=commit %H")
		: run_args_push(&argv, "rev-list") || run_args_push(&argv, "--reverse") ||
		  run_args_push(&argv, "--first-parent") || run_args_push(&argv, "--objects") ||
		  run_args_push(&argv, "--in-commit-order") ||
		  run_args_push(&argv, "--missing=allow-any")) ||
	    run_args_push(&argv, range) || run_args_push(&argv, "--")) {
		st = archive_nomem(err);
		goto out;
	}
	if ((st = child_spawn(src, &argv, 0, &rev, err)))
		goto out;
	/* rev-list lists a round's commits several times faster than they
	 * are read: in a pipe of 64 KiB it was always just behind, each of
	 * its small writes woke the walk waiting for the next requests (a
	 * context switch each way, 10,000 a round of 40,000 mails) */
	run_child_pipe_size(&rev.run, ARCHIVE_GIT_PIPE);
	if ((st = run_child_poll_output(&rev.run, &got, err)))
		goto out;
	cat_status = answers_short = 0;
	if (got) {   /* (no cat-file for an epoch with nothing new) */
		if ((st = child_spawn(src, &cat_argv, 1, &cat, err)))
			goto out;
		run_child_pipe_size(&cat.run, ARCHIVE_GIT_PIPE);
		run_child_gather(&cat.run, ARCHIVE_GIT_READ / 4);
		feed.rev = &rev;
		for (;;) {
			char *answer = NULL;
			size_t answer_len = 0;

			if ((st = feed_cat(&feed, &cat, err)) ||
			    (st = child_next_line(&cat, ARCHIVE_GIT_OUTPUT_CAP, 0, &answer,
						  &answer_len, &got, err)))
				goto out;
			if (!got)
				break;
			feed.asked++;
			if ((st = walk_answer(w, &cat, answer, answer_len, epoch, feed_named(&feed),
					      err)))
				goto out;
		}
		run_child_wait(&cat.run, &cat_status);
		answers_short = feed.asked != feed.written || !feed.rev_done;
	}
	run_child_wait(&rev.run, &status);
	if (status != 0) {
		if (!w->walked && looks_like_bad_revision(&rev.run.errout)) {
			if (from[0] && !retried) {
				/* the cursor's commit is gone: read the epoch again */
				log_rewind(src, epoch, from, v1 ? "inbox" : "epoch");
				retried = 1;
				child_release(&cat);
				child_release(&rev);
				child_init(&cat, "git cat-file");
				child_init(&rev, v1 ? "git log" : "git rev-list");
				goto again;
			}
			goto out; /* an epoch without commits (no HEAD yet) */
		}
		run_git_message(&rev.run.errout, message, sizeof(message));
		st = bb_error_set(err, BB_ERR_IO, "%s in %s: %s", rev.run.what, dir, message);
		goto out;
	}
	if (cat_status != 0) {
		run_git_message(&cat.run.errout, message, sizeof(message));
		st = bb_error_set(err, BB_ERR_IO, "git cat-file in %s: %s", dir, message);
	} else if (answers_short) {
		st = bb_error_set(err, BB_ERR_IO, "git cat-file in %s: %lu answers to %lu requests",
				  dir, feed.asked, feed.written);
	} else if (v1 && feed.commit[0]) {
		/* every message up to the last commit was handed over: commits
		 * that only removed one are passed too */
		w->pos.epoch = 0;
		memcpy(w->pos.commit, feed.commit, sizeof(feed.commit));
	}
out:
	child_release(&cat);
	child_release(&rev);
	feed_release(&feed);
	run_args_clear(&argv);
	run_args_clear(&cat_argv);
	free(range);
	free(dir);
	return st;
}

/* The commit HEAD of a local epoch names into out ("" when it has none). */
static enum bb_status epoch_head(struct archive_source *src, long epoch,
				 char out[ARCHIVE_OID_MAX + 1], struct bb_error *err)
{
	struct run_args argv = RUN_ARGS_INIT;
	struct buf text = BUF_INIT;
	struct bb_error ignored = BB_ERROR_INIT;
	char *dir = epoch_dir(src, epoch);
	enum bb_status st;
	size_t len;
	int status = 255;

	out[0] = '\0';
	if (!dir || git_argv(src, &argv, dir) || run_args_push(&argv, "rev-parse") ||
	    run_args_push(&argv, "--verify") || run_args_push(&argv, "-q") ||
	    run_args_push(&argv, "HEAD^{commit}")) {
		st = archive_nomem(err);
		goto out;
	}
	if (git_run(src, &argv, "git rev-parse", NULL, &text, &status, &ignored)) {
		/* exit 1 without a word: no commit yet */
		st = status == 1 ? BB_OK : bb_error_set(err, ignored.code, "%s", ignored.message);
		goto out;
	}
	len = strcspn(text.data, "\n");
	if (!is_oid(text.data, len)) {
		st = bb_error_set(err, BB_ERR_IO, "git rev-parse HEAD in %s printed \"%.80s\"", dir,
				  text.data);
		goto out;
	}
	memcpy(out, text.data, len);
	out[len] = '\0';
	st = BB_OK;
out:
	run_args_clear(&argv);
	buf_release(&text);
	free(dir);
	return st;
}

/* Probes for epochs after *newest; for each one found, fetches the one
 * before it once more (its last messages may have come after our fetch)
 * and walks it when w is set, then clones and walks the new one. */
static enum bb_status discover_epochs(struct archive_source *src, long *newest, struct git_walk *w,
				      struct bb_error *err)
{
	enum bb_status st;
	int exists;

	for (;;) {
		if ((st = probe_epoch(src, *newest + 1, &exists, err)))
			return st;
		probe_stamp(src);
		if (!exists)
			return BB_OK;
		log_event(LOG_LEVEL_INFO, "archive.epoch_new", LF_STR("url", src->url),
			  LF_INT("epoch", *newest + 1));
		if ((st = git_fetch(src, *newest, err)))
			return st;
		if (w && (st = walk_epoch(w, *newest, w->pos.epoch == *newest ? w->pos.commit : "",
					  err)))
			return st;
		if ((st = git_clone(src, *newest + 1, err)))
			return st;
		(*newest)++;
		if (w && (st = walk_epoch(w, *newest, "", err)))
			return st;
	}
}

enum bb_status archive_poll_public_inbox(struct archive_source *src, const char *cursor,
					 archive_message_fn fn, void *ctx, char **next_cursor,
					 struct bb_error *err)
{
	struct git_walk w;
	enum bb_status st;
	long newest, start_epoch;
	int lock_fd = -1, fresh = 0;

	memset(&w, 0, sizeof(w));
	w.src = src;
	w.fn = fn;
	w.ctx = ctx;
	if ((st = parse_git_cursor(cursor, &w.pos, err)) || (st = lock_state(src, &lock_fd, err)))
		goto out;
	if ((src->v1 = src->local && local_v1(src))) {
		if (w.pos.epoch != 0) {
			st = bb_error_set(err, BB_ERR_INVALID, "%s is a v1 inbox: cursor %s names"
					  " epoch %ld", src->path, cursor, w.pos.epoch);
			goto out;
		}
		if (!(st = walk_epoch(&w, 0, w.pos.commit, err)) && next_cursor &&
		    !(*next_cursor = git_cursor(&w.pos)))
			st = archive_nomem(err);
		goto out;
	}
	start_epoch = w.pos.epoch;
	newest = newest_local_epoch(src);
	if (newest < start_epoch) {
		/* nothing mirrored yet, or the cursor is past what is */
		if ((st = git_clone(src, start_epoch, err)))
			goto out;
		newest = start_epoch;
		fresh = 1;
	} else if ((st = git_fetch(src, newest, err))) {
		goto out;
	}
	for (long e = start_epoch; e <= newest; e++) {
		if (!epoch_present(src, e)) {
			if (src->local) {
				/* a local mirror of some epochs only
				 * (public-inbox-clone --epoch=~1): the
				 * history it has is read */
				log_event(LOG_LEVEL_INFO, "archive.epoch_absent",
					  LF_STR("path", src->path), LF_INT("epoch", e));
				continue;
			}
			if ((st = git_clone(src, e, err)))
				goto out;
		}
		if ((st = walk_epoch(&w, e, e == start_epoch ? w.pos.commit : "", err)))
			goto out;
	}
	if ((fresh || w.walked == 0) && probe_due(src) &&
	    (st = discover_epochs(src, &newest, &w, err)))
		goto out;
	if (w.pos.epoch < newest) {
		/* every epoch before the newest is read whole, and the newest
		 * had nothing (an epoch is only made with its first message) */
		w.pos.epoch = newest;
		w.pos.commit[0] = '\0';
	}
	if (next_cursor && !(*next_cursor = git_cursor(&w.pos)))
		st = archive_nomem(err);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	return st;
}

enum bb_status archive_tail_public_inbox(struct archive_source *src, char **cursor,
					 struct bb_error *err)
{
	struct git_pos pos;
	enum bb_status st;
	long newest;
	int lock_fd = -1, exists;

	if ((st = lock_state(src, &lock_fd, err)))
		goto out;
	if ((src->v1 = src->local && local_v1(src))) {
		newest = 0;
		goto head;
	}
	newest = newest_local_epoch(src);
	if (newest < 0) {
		if ((st = probe_epoch(src, 0, &exists, err)))
			goto out;
		if (!exists) {
			st = src->local
				? bb_error_set(err, BB_ERR_NOT_FOUND, "no git epoch at %s/git/0.git"
					       " and no repository: is %s a public-inbox v2 inbox"
					       " (or a v1 one)?", src->path, src->path)
				: bb_error_set(err, BB_ERR_NOT_FOUND, "no git epoch at %s/0: is %s"
					       " a public-inbox v2 inbox?", src->url, src->url);
			goto out;
		}
		newest = 0;
		for (;;) {
			if ((st = probe_epoch(src, newest + 1, &exists, err)))
				goto out;
			if (!exists)
				break;
			if (++newest >= ARCHIVE_MAX_EPOCH) {
				st = bb_error_set(err, BB_ERR_PROTOCOL, "%s: too many epochs", src->url);
				goto out;
			}
		}
		probe_stamp(src);
		if ((st = git_clone(src, newest, err)))
			goto out;
	} else {
		if ((st = git_fetch(src, newest, err)))
			goto out;
		if (probe_due(src) && (st = discover_epochs(src, &newest, NULL, err)))
			goto out;
	}
head:
	pos.epoch = newest;
	if ((st = epoch_head(src, newest, pos.commit, err)))
		goto out;
	if (!(*cursor = git_cursor(&pos)))
		st = archive_nomem(err);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	return st;
}
