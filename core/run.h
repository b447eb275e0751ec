/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run: child processes (the real `git` program), started with an argv array
 * and never through a shell.
 *
 * This is the way mail/archive.c runs git, as a helper others can share:
 * posix_spawnp() with stdin from /dev/null (or a socket the caller writes
 * to), stdout and stderr on pipes, the child starting with no blocked
 * signals and SIGPIPE at its default (so a reader that goes away ends it),
 * and for git a clean environment: ours minus GIT_*, LC_*, LANG, LANGUAGE,
 * PAGER and SSH_ASKPASS, plus GIT_CONFIG_NOSYSTEM=1,
 * GIT_CONFIG_GLOBAL=/dev/null, GIT_TERMINAL_PROMPT=0, GIT_PAGER=cat,
 * PAGER=cat and LC_ALL=C (so git's messages can be matched).
 *
 * stderr is read while stdout is, so a chatty child never blocks on a full
 * pipe; the first RUN_STDERR_CAP bytes are kept for the error message.
 * Nothing here prints or exits.  A struct run_child belongs to one thread.
 */
#ifndef BB_RUN_H
#define BB_RUN_H

#include <stddef.h>
#include <sys/types.h>

#include "core/buf.h"
#include "core/status.h"

/* Bytes of a child's stderr kept for messages. */
#define RUN_STDERR_CAP 8192

/* A NULL-terminated array of malloc'd strings, for argv. */
struct run_args {
	char **v;      /* NULL until the first push; then always NULL-terminated */
	size_t n, alloc;
};

#define RUN_ARGS_INIT { NULL, 0, 0 }

/* Appends a copy of s.  BB_ERR_NOMEM. */
enum bb_status run_args_push(struct run_args *a, const char *s);
/* Appends s, a malloc'd string that a now owns (freed here on failure; NULL
 * is taken for a failed allocation and gives BB_ERR_NOMEM). */
enum bb_status run_args_push_owned(struct run_args *a, char *s);
/* Frees the strings and the array; a is empty and reusable. */
void run_args_clear(struct run_args *a);

struct run_child {
	pid_t pid;            /* -1 when none is running */
	int in_fd;            /* a socket to the child's stdin (written with
			       * MSG_NOSIGNAL: a dead child is an error, not a
			       * SIGPIPE for the caller's process), or -1 */
	int out_fd, err_fd;   /* pipes from its stdout and stderr, or -1 */
	int out_eof;          /* stdout has ended */
	struct buf errout;    /* what it wrote to stderr, at most RUN_STDERR_CAP */
	const char *what;     /* "git fetch", for messages; not owned */
	size_t gather;        /* run_child_gather(); 0: read what is there */
};

void run_child_init(struct run_child *c, const char *what);

/* The environment for git described above, a calloc'd array (free() it, not
 * the strings, which belong to environ or are literals); NULL when out of
 * memory. */
char **run_git_environment(void);

/* Starts argv[0] (looked up in PATH) with argv and env (NULL: ours).  With
 * with_stdin, c->in_fd is a socket to its stdin; otherwise stdin is
 * /dev/null.  BB_ERR_CONFIG when the program cannot be run ("cannot run git
 * (git log): No such file or directory"), BB_ERR_IO when pipes cannot be
 * made.  On failure nothing is left running or open. */
enum bb_status run_child_spawn(struct run_child *c, char *const argv[], char *const env[],
			       int with_stdin, struct bb_error *err);

/* Waits until the child's stdout has something to read (*ready = 1) or
 * has ended with nothing (*ready = 0), reading nothing from it (stderr is
 * collected meanwhile): whether a child to read it is worth starting. */
enum bb_status run_child_poll_output(struct run_child *c, int *ready, struct bb_error *err);

/* Asks for a pipe of bytes from the child's stdout (F_SETPIPE_SZ), so it
 * can run further ahead of its reader; best effort (the system's limit,
 * /proc/sys/fs/pipe-max-size, may give less). */
void run_child_pipe_size(struct run_child *c, int bytes);

/* For a child that streams much output (git cat-file asked many objects
 * ahead): when run_child_read() finds fewer than bytes waiting and more to
 * come, it first naps RUN_GATHER_NAP_US, so that one wake-up reads a large
 * piece.  Each wake-up is a switch of process both ways; reading a mail
 * stream as it trickled in cost more CPU than parsing the mails.  Not for
 * a child answering requests one by one: each answer would wait the nap. */
#define RUN_GATHER_NAP_US 500
void run_child_gather(struct run_child *c, size_t bytes);

/* Reads up to size bytes of stdout into dst, waiting until some are there
 * (stderr is collected meanwhile).  *got is 0 once stdout has ended. */
enum bb_status run_child_read(struct run_child *c, void *dst, size_t size, size_t *got,
			      struct bb_error *err);

/* Writes all of data to the child's stdin (with_stdin). */
enum bb_status run_child_write(struct run_child *c, const void *data, size_t len,
			       struct bb_error *err);
/* Writes what the child's stdin takes now of data, without waiting: *wrote
 * is 0 when it takes nothing (its stdin is full).  For a child that answers
 * requests while more are written: the caller writes ahead, reads answers,
 * and never waits on both. */
enum bb_status run_child_write_some(struct run_child *c, const void *data, size_t len,
				    size_t *wrote, struct bb_error *err);
/* Ends the child's stdin (it reads to its end), keeping its output open. */
void run_child_close_input(struct run_child *c);

/* Closes our ends, reads stderr to its end and reaps the child; *status is
 * its exit code, or 128 + signal number (255 if it was never started). */
void run_child_wait(struct run_child *c, int *status);

/* Ends a child that may still run (SIGTERM, after an early stop), reaps it
 * and frees everything; c can be given to run_child_init() again. */
void run_child_release(struct run_child *c);

/* The last non-empty line of git's stderr, minus "fatal: " or "error: ", as
 * one printable line (control characters become '?') in out (size n);
 * "no message" when there is none. */
void run_git_message(const struct buf *errout, char *out, size_t n);

/* Copies text into out (size n) as one printable line: trailing newlines
 * and spaces go, control characters become '?'. */
void run_clean_line(const char *text, size_t len, char *out, size_t n);

#endif
