/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fix detection in git trees: fetching, incremental scans of commit
 * messages for trailers, ancestry and subject queries.  The contract is in
 * gitscan.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/run.h"
#include "tracker/gitscan.h"
#include "tracker/links.h"

#define GITSCAN_DEFAULT_TIMEOUT 300
#define GITSCAN_READ_SIZE ((size_t)1 << 20)   /* the scan buffer, grown only for
					       * a message that does not fit */
#define GITSCAN_PIPE_SIZE (1 << 20)           /* asked of the kernel for git's
					       * stdout: fewer wake-ups */
#define GITSCAN_OUTPUT_CAP ((size_t)64 << 10) /* stdout of small git commands */
#define GITSCAN_OID_MAX 64                    /* SHA-256 repositories */
#define GITSCAN_NAME_MAX 100
#define GITSCAN_REF_MAX 255
#define GITSCAN_MESSAGE_MAX 300               /* of git's stderr, in errors */

struct gitscan_tree {
	char *name;
	char *path;          /* the repository folder */
	char *url;           /* NULL: local */
	const char *protocol;/* url's: "https", "http", "git", "file" */
	char *ref;           /* as configured */
	char *remote_ref;    /* url trees: the full ref fetched */
	char *scan_ref;      /* the ref scanned */
	char *first_start;
	unsigned long first_depth;
	long timeout;
	char *git_program;
	char *bugzilla_base;
	struct gitscan_stats stats;
	struct gitscan_parser *parser;
	char *rbuf;          /* the scan buffer, rsize bytes */
	size_t rsize;
};

/* ---------------------------------------------------------------------------
 * Small helpers
 */

static enum bb_status nomem(struct bb_error *err)
{
	return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
}

static long long elapsed_ms(const struct timespec *start)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)(t.tv_sec - start->tv_sec) * 1000 +
	       (t.tv_nsec - start->tv_nsec) / 1000000;
}

static int is_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* A full object name: 40 (SHA-1) or 64 (SHA-256) hex digits. */
static int is_object_name(const char *s)
{
	size_t len = strlen(s);

	return (len == 40 || len == GITSCAN_OID_MAX) && is_hex(s, len);
}

static int valid_tree_name(const char *s)
{
	size_t len = s ? strlen(s) : 0;

	if (!len || len > GITSCAN_NAME_MAX || s[0] == '.' || s[0] == '-' || strstr(s, "..") ||
	    (len >= 5 && !strcmp(s + len - 5, ".lock")))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return 0;
	return 1;
}

/* A ref or commit name git will take as one revision and never as an
 * option or a range: git check-ref-format's rules, loosely. */
static int valid_rev_name(const char *s)
{
	size_t len = s ? strlen(s) : 0;

	if (!len || len > GITSCAN_REF_MAX || s[0] == '-' || s[0] == '/' || s[len - 1] == '/' ||
	    s[len - 1] == '.' || strstr(s, "..") || strstr(s, "@{") || strstr(s, "//") ||
	    (len >= 5 && !strcmp(s + len - 5, ".lock")))
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch <= 0x20 || ch == 0x7f || strchr("~^:?*[\\", ch))
			return 0;
	}
	return 1;
}

static enum bb_status copy_opt(const char *s, char **out)
{
	*out = NULL;
	if (!s || !*s)
		return BB_OK;
	*out = strdup(s);
	return *out ? BB_OK : BB_ERR_NOMEM;
}

/* The repository's git folder: <path>/.git for a clone with a work tree. */
static char *git_dir(const struct gitscan_tree *t)
{
	char *dotgit = str_printf("%s/.git", t->path);
	struct stat st;

	if (dotgit && stat(dotgit, &st) == 0)
		return dotgit;
	free(dotgit);
	return strdup(t->path);
}

/* ---------------------------------------------------------------------------
 * Trees
 */

static const char *url_protocol(const char *url)
{
	static const char *const schemes[][2] = {
		{ "https://", "https" }, { "http://", "http" },
		{ "git://", "git" },     { "file://", "file" },
	};

	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return NULL;
	if (url[0] == '/')
		return "file";
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		size_t n = strlen(schemes[i][0]);

		if (!strncasecmp(url, schemes[i][0], n) && url[n])
			return schemes[i][1];
	}
	return NULL;
}

enum bb_status gitscan_tree_new(struct gitscan_tree **out, const struct gitscan_options *opt,
				struct bb_error *err)
{
	struct gitscan_tree *t;
	enum bb_status st = BB_OK;

	*out = NULL;
	if (!valid_tree_name(opt->name))
		return bb_error_set(err, BB_ERR_CONFIG,
				    "tree name \"%s\": use letters, digits, '.', '_' and '-'",
				    opt->name ? opt->name : "");
	if (!valid_rev_name(opt->ref))
		return bb_error_set(err, BB_ERR_CONFIG, "tree %s: ref \"%s\" is not a usable ref name",
				    opt->name, opt->ref ? opt->ref : "");
	if (opt->first_scan_start && !valid_rev_name(opt->first_scan_start))
		return bb_error_set(err, BB_ERR_CONFIG, "tree %s: first scan start \"%s\" is not a usable name",
				    opt->name, opt->first_scan_start);
	if (opt->url && *opt->url && !url_protocol(opt->url))
		return bb_error_set(err, BB_ERR_CONFIG,
				    "tree %s: url must be https://, http://, git://, file:// or an absolute path",
				    opt->name);
	if (!(opt->path && *opt->path) && !(opt->url && *opt->url && opt->state_dir && *opt->state_dir))
		return bb_error_set(err, BB_ERR_CONFIG, "tree %s: needs a path, or a url and a state folder",
				    opt->name);
	t = calloc(1, sizeof(*t));
	if (!t)
		return nomem(err);
	if (copy_opt(opt->name, &t->name) || copy_opt(opt->url, &t->url) ||
	    copy_opt(opt->ref, &t->ref) || copy_opt(opt->first_scan_start, &t->first_start) ||
	    copy_opt(opt->git_program ? opt->git_program : "git", &t->git_program) ||
	    copy_opt(opt->bugzilla_base, &t->bugzilla_base)) {
		st = nomem(err);
		goto out;
	}
	if (opt->path && *opt->path)
		t->path = strdup(opt->path);
	else
		t->path = str_printf("%s/trees.git", opt->state_dir);
	if (!t->path) {
		st = nomem(err);
		goto out;
	}
	if (t->url) {
		t->protocol = url_protocol(t->url);
		t->remote_ref = !strncmp(t->ref, "refs/", 5) ? strdup(t->ref)
							    : str_printf("refs/heads/%s", t->ref);
		t->scan_ref = str_printf("refs/bugbridge/%s", t->name);
	} else {
		t->scan_ref = strdup(t->ref);
	}
	if ((t->url && !t->remote_ref) || !t->scan_ref) {
		st = nomem(err);
		goto out;
	}
	t->first_depth = opt->first_scan_depth;
	t->timeout = opt->timeout > 0 ? opt->timeout : GITSCAN_DEFAULT_TIMEOUT;
	t->parser = gitscan_parser_new(t->bugzilla_base);
	if (!t->parser)
		st = nomem(err);
out:
	if (st) {
		gitscan_tree_free(t);
		return st;
	}
	*out = t;
	return BB_OK;
}

void gitscan_tree_free(struct gitscan_tree *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->path);
	free(t->url);
	free(t->ref);
	free(t->remote_ref);
	free(t->scan_ref);
	free(t->first_start);
	free(t->git_program);
	free(t->bugzilla_base);
	gitscan_parser_free(t->parser);
	free(t->rbuf);
	free(t);
}

const char *gitscan_tree_name(const struct gitscan_tree *t)
{
	return t->name;
}

const char *gitscan_tree_path(const struct gitscan_tree *t)
{
	return t->path;
}

const char *gitscan_tree_ref(const struct gitscan_tree *t)
{
	return t->scan_ref;
}

const struct gitscan_stats *gitscan_tree_stats(const struct gitscan_tree *t)
{
	return &t->stats;
}

/* ---------------------------------------------------------------------------
 * Running git
 */

/* git, --git-dir and the options every command gets.  Repository config
 * that would change what log prints is overridden. */
static enum bb_status git_args(struct gitscan_tree *t, struct run_args *a, int with_dir)
{
	if (run_args_push(a, t->git_program))
		return BB_ERR_NOMEM;
	if (with_dir) {
		char *dir = git_dir(t);

		if (!dir || run_args_push_owned(a, str_printf("--git-dir=%s", dir))) {
			free(dir);
			return BB_ERR_NOMEM;
		}
		free(dir);
	}
	if (run_args_push(a, "-c") || run_args_push(a, "log.showSignature=false"))
		return BB_ERR_NOMEM;
	return BB_OK;
}

static int has(const struct buf *b, const char *needle)
{
	return strstr(b->data, needle) != NULL;
}

/* Folds a failed git command by what it said (LC_ALL=C).  Network
 * commands (fetch) may fail for more reasons. */
static enum bb_status fold_git(const struct buf *e, int network)
{
	const char *p = strstr(e->data, "returned error: ");

	if (has(e, "cannot lock ref") || (has(e, "Unable to create") && has(e, ".lock")))
		return BB_ERR_BUSY;
	if (has(e, "No space left"))
		return BB_ERR_NO_SPACE;
	if (has(e, "is ambiguous"))
		return BB_ERR_INVALID;
	if (network) {
		if (p) {
			long code = strtol(p + 16, NULL, 10);

			if (code >= 400)
				return status_from_http(code);
		}
		if (has(e, "not found") || has(e, "does not exist") ||
		    has(e, "couldn't find remote ref") || has(e, "does not appear to be a git repository"))
			return BB_ERR_NOT_FOUND;
		if (has(e, "Authentication failed") || has(e, "could not read Username") ||
		    has(e, "could not read Password"))
			return BB_ERR_AUTH;
		if (has(e, "SSL certificate problem") || has(e, "certificate verification") ||
		    has(e, "server certificate") || has(e, "transport '"))
			return BB_ERR_CONFIG;
		if (has(e, "Permission denied"))
			return BB_ERR_PERMISSION;
		if (has(e, "protocol error") || has(e, "bad line length") ||
		    has(e, "invalid server response"))
			return BB_ERR_PROTOCOL;
		/* resolve, connect, timeouts, resets, "early EOF", 5xx without a code */
		return BB_ERR_TEMPORARY;
	}
	if (has(e, "not a git repository") || has(e, "unknown revision") ||
	    has(e, "bad revision") || has(e, "Not a valid") || has(e, "Needed a single revision") ||
	    has(e, "bad object") || has(e, "not a valid"))
		return BB_ERR_NOT_FOUND;
	if (has(e, "Permission denied"))
		return BB_ERR_PERMISSION;
	return BB_ERR_IO;
}

/* What git said, for an error message: its first "fatal: " line (git adds
 * hints after it, such as "Please make sure you have the correct access
 * rights"), else its last line. */
static void git_said(const struct buf *errout, char *out, size_t n)
{
	const char *f = errout->data;

	while ((f = strstr(f, "fatal: ")) && f != errout->data && f[-1] != '\n')
		f++;
	if (f) {
		const char *nl = strchr(f + 7, '\n');

		run_clean_line(f + 7, nl ? (size_t)(nl - f - 7) : strlen(f + 7), out, n);
		return;
	}
	run_git_message(errout, out, n);
}

static void log_git(const char *what, const struct gitscan_tree *t, int status,
		    const struct timespec *start)
{
	log_event(LOG_LEVEL_DEBUG, "gitscan.git", LF_STR("tree", t->name), LF_STR("command", what),
		  LF_INT("exit", status), LF_INT("ms", elapsed_ms(start)));
}

/* Runs a small git command to its end.  stdout (at most cap bytes) goes
 * to out if it is not NULL; more is BB_ERR_TOO_LARGE, or with truncated,
 * read and dropped (*truncated set).  With exit_status, any exit is BB_OK
 * and *exit_status says which (errout, if not NULL, gets stderr); without,
 * an exit other than 0 is an error folded by fold_git(). */
static enum bb_status git_run_capped(struct gitscan_tree *t, struct run_args *a, const char *what,
				     int network, struct buf *out, size_t cap, int *truncated,
				     int *exit_status, struct buf *errout, struct bb_error *err)
{
	struct run_child c;
	struct timespec start;
	char **env = NULL;
	char tmp[4096];
	enum bb_status st;
	int status = 255;

	run_child_init(&c, what);
	clock_gettime(CLOCK_MONOTONIC, &start);
	env = run_git_environment();
	if (!env) {
		st = nomem(err);
		goto out;
	}
	if ((st = run_child_spawn(&c, a->v, env, 0, err)))
		goto out;
	t->stats.git_commands++;
	for (;;) {
		size_t got;

		if ((st = run_child_read(&c, tmp, sizeof(tmp), &got, err)))
			goto out;
		if (!got)
			break;
		if (out) {
			if (out->len + got > cap && truncated) {
				*truncated = 1;
				got = cap - out->len;
			} else if (out->len + got > cap) {
				st = bb_error_set(err, BB_ERR_TOO_LARGE, "tree %s: %s: too much output",
						  t->name, what);
				goto out;
			}
			if (got && buf_add(out, tmp, got)) {
				st = nomem(err);
				goto out;
			}
		}
	}
	run_child_wait(&c, &status);
	log_git(what, t, status, &start);
	if (exit_status) {
		*exit_status = status;
		if (errout) {
			buf_release(errout);
			*errout = c.errout;
			buf_init(&c.errout);
		}
	} else if (status != 0) {
		char message[GITSCAN_MESSAGE_MAX];

		git_said(&c.errout, message, sizeof(message));
		st = bb_error_set(err, fold_git(&c.errout, network), "tree %s: %s: %s", t->name, what,
				  message);
	}
out:
	run_child_release(&c);
	free(env);
	return st;
}

static enum bb_status git_run(struct gitscan_tree *t, struct run_args *a, const char *what,
			      int network, struct buf *out, int *exit_status, struct buf *errout,
			      struct bb_error *err)
{
	return git_run_capped(t, a, what, network, out, GITSCAN_OUTPUT_CAP, NULL, exit_status,
			      errout, err);
}

/* BB_ERR_NOT_FOUND with a clear message when the repository folder is not
 * there. */
static enum bb_status check_repository(struct gitscan_tree *t, struct bb_error *err)
{
	struct stat st;

	if (stat(t->path, &st) == 0)
		return BB_OK;
	if (t->url && errno == ENOENT)
		return bb_error_set(err, BB_ERR_NOT_FOUND, "tree %s: not fetched yet (no repository at %s)",
				    t->name, t->path);
	if (errno == ENOENT)
		return bb_error_set(err, BB_ERR_NOT_FOUND, "tree %s: no git repository at %s", t->name,
				    t->path);
	return bb_error_errno(err, errno, "tree %s: %s", t->name, t->path);
}

/* Resolves name to a commit's full hex into hash (GITSCAN_OID_MAX + 1
 * bytes).  BB_ERR_NOT_FOUND (with what in the message) if there is none. */
static enum bb_status rev_parse(struct gitscan_tree *t, const char *name, const char *what,
				char hash[GITSCAN_OID_MAX + 1], struct bb_error *err)
{
	struct run_args a = RUN_ARGS_INIT;
	struct buf out = BUF_INIT, errout = BUF_INIT;
	enum bb_status st;
	int status = 0;
	size_t len;

	if ((st = git_args(t, &a, 1)) || (st = run_args_push(&a, "rev-parse")) ||
	    (st = run_args_push(&a, "--verify")) ||
	    (st = run_args_push_owned(&a, str_printf("%s^{commit}", name)))) {
		st = nomem(err);
		goto out;
	}
	if ((st = git_run(t, &a, "git rev-parse", 0, &out, &status, &errout, err)))
		goto out;
	if (status != 0) {
		char message[GITSCAN_MESSAGE_MAX];
		enum bb_status code = fold_git(&errout, 0);

		git_said(&errout, message, sizeof(message));
		if (code == BB_ERR_NOT_FOUND && !has(&errout, "not a git repository"))
			st = bb_error_set(err, code, "tree %s: %s \"%s\" not found", t->name, what, name);
		else if (code == BB_ERR_INVALID)
			st = bb_error_set(err, code, "tree %s: %s \"%s\" is ambiguous", t->name, what,
					  name);
		else
			st = bb_error_set(err, code, "tree %s: git rev-parse: %s", t->name, message);
		goto out;
	}
	len = strcspn(out.data, "\n");
	out.data[len] = '\0';
	if (!is_object_name(out.data)) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "tree %s: git rev-parse gave no object name",
				  t->name);
		goto out;
	}
	memcpy(hash, out.data, len + 1);
out:
	run_args_clear(&a);
	buf_release(&out);
	buf_release(&errout);
	return st;
}

/* ---------------------------------------------------------------------------
 * Fetching
 */

enum bb_status gitscan_fetch(struct gitscan_tree *t, struct bb_error *err)
{
	struct run_args a = RUN_ARGS_INIT;
	struct timespec start;
	struct stat sb;
	enum bb_status st = BB_OK;

	if (!t->url)
		return BB_OK;
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (stat(t->path, &sb) != 0) {
		char *parent = strdup(t->path), *slash;

		if (!parent)
			return nomem(err);
		slash = strrchr(parent, '/');
		if (slash && slash != parent) {
			*slash = '\0';
			st = fs_mkdir_p(parent, err);
		}
		free(parent);
		if (st)
			return st;
		if ((st = git_args(t, &a, 0)) || (st = run_args_push(&a, "init")) ||
		    (st = run_args_push(&a, "--bare")) || (st = run_args_push(&a, "--quiet")) ||
		    (st = run_args_push(&a, t->path))) {
			st = nomem(err);
			goto out;
		}
		if ((st = git_run(t, &a, "git init", 0, NULL, NULL, NULL, err)))
			goto out;
		run_args_clear(&a);
	}
	if ((st = git_args(t, &a, 1)) || (st = run_args_push(&a, "-c")) ||
	    (st = run_args_push(&a, "protocol.allow=never")) || (st = run_args_push(&a, "-c")) ||
	    (st = run_args_push_owned(&a, str_printf("protocol.%s.allow=always", t->protocol))) ||
	    (st = run_args_push(&a, "-c")) || (st = run_args_push(&a, "http.lowSpeedLimit=1")) ||
	    (st = run_args_push(&a, "-c")) ||
	    (st = run_args_push_owned(&a, str_printf("http.lowSpeedTime=%ld", t->timeout))) ||
	    (st = run_args_push(&a, "-c")) || (st = run_args_push(&a, "credential.helper=")) ||
	    (st = run_args_push(&a, "-c")) || (st = run_args_push(&a, "core.askPass=")) ||
	    (st = run_args_push(&a, "-c")) || (st = run_args_push(&a, "gc.autoDetach=false")) ||
	    (st = run_args_push(&a, "fetch")) || (st = run_args_push(&a, "--quiet")) ||
	    (st = run_args_push(&a, "--no-tags")) || (st = run_args_push(&a, "--no-write-fetch-head")) ||
	    (st = run_args_push(&a, "--no-recurse-submodules")) ||
	    (st = run_args_push(&a, "--end-of-options")) || (st = run_args_push(&a, t->url)) ||
	    (st = run_args_push_owned(&a, str_printf("+%s:%s", t->remote_ref, t->scan_ref)))) {
		st = nomem(err);
		goto out;
	}
	if ((st = git_run(t, &a, "git fetch", 1, NULL, NULL, NULL, err)))
		goto out;
	t->stats.fetches++;
	log_event(LOG_LEVEL_INFO, "gitscan.fetch", LF_STR("tree", t->name),
		  LF_STR("ref", t->remote_ref), LF_INT("ms", elapsed_ms(&start)));
out:
	run_args_clear(&a);
	return st;
}

/* ---------------------------------------------------------------------------
 * The message parser
 */

#define NO_STRING ((size_t)-1)

struct trailer_item {
	enum gitscan_trailer_kind kind;
	size_t key, value;  /* offsets in strings */
	size_t message_id;  /* offset in strings, or NO_STRING */
	long long bugzilla_id;
};

struct gitscan_parser {
	struct buf strings;               /* the subject, keys and values */
	struct trailer_item *items;
	struct gitscan_trailer *trailers;
	size_t n, alloc;
	char upstream[GITSCAN_OID_MAX + 1];
	char *bugzilla_base;
};

struct gitscan_parser *gitscan_parser_new(const char *bugzilla_base)
{
	struct gitscan_parser *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	buf_init(&p->strings);
	if (bugzilla_base && *bugzilla_base) {
		p->bugzilla_base = strdup(bugzilla_base);
		if (!p->bugzilla_base) {
			free(p);
			return NULL;
		}
	}
	return p;
}

void gitscan_parser_free(struct gitscan_parser *p)
{
	if (!p)
		return;
	free(p->bugzilla_base);
	buf_release(&p->strings);
	free(p->items);
	free(p->trailers);
	free(p);
}

/* Trailer keys the kernel uses: one of them in a paragraph makes it a
 * trailer block even with some other lines (git's "recognized prefix"). */
static const char *const kernel_keys[] = {
	"Signed-off-by", "Link", "Closes", "Fixes", "Reported-by", "Reviewed-by",
	"Acked-by", "Tested-by", "Suggested-by", "Co-developed-by", "Cc",
	"Reported-and-tested-by", "Message-ID",
};

static const struct {
	const char *key;
	enum gitscan_trailer_kind kind;
} kinds[] = {
	{ "Link", GITSCAN_TRAILER_LINK },
	{ "Closes", GITSCAN_TRAILER_CLOSES },
	{ "Fixes", GITSCAN_TRAILER_FIXES },
	{ "Reported-by", GITSCAN_TRAILER_REPORTED_BY },
	{ "Message-ID", GITSCAN_TRAILER_MESSAGE_ID },
};

static const char cherry_pick[] = "(cherry picked from commit ";

static int is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f' || ch == '\n';
}

static int is_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!is_space(s[i]))
			return 0;
	return 1;
}

/* Letters, digits and '-' (ASCII): the characters of a trailer token. */
static int is_token_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '-';
}

/* git's find_separator(): the offset of the ':' after a token of letters,
 * digits and '-' (whitespace allowed before the colon), or -1.  A trailer
 * line has it at 1 or more and does not start with whitespace. */
static long find_separator(const char *s, size_t len)
{
	int white = 0;

	for (size_t i = 0; i < len; i++) {
		char ch = s[i];

		if (ch == ':')
			return (long)i;
		if (!white && is_token_char(ch))
			continue;
		if (i && (ch == ' ' || ch == '\t')) {
			white = 1;
			continue;
		}
		break;
	}
	return -1;
}

static size_t token_len(const char *s, long sep)
{
	size_t n = (size_t)sep;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n;
}

static int key_is(const char *s, size_t len, const char *key)
{
	/* the first letter and the length rule out most keys cheaply */
	return ((*s ^ *key) & ~0x20) == 0 && strlen(key) == len && !strncasecmp(s, key, len);
}

static int is_kernel_key(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(kernel_keys) / sizeof(kernel_keys[0]); i++)
		if (key_is(s, len, kernel_keys[i]))
			return 1;
	return 0;
}

static int starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

enum line_type { LINE_BLANK, LINE_COMMENT, LINE_CONTINUATION, LINE_TRAILER, LINE_OTHER };

/* What a line is; *recognized (unless NULL) says whether it is a known
 * kernel trailer. */
static enum line_type classify(const char *s, size_t len, int *recognized)
{
	long sep;

	if (recognized)
		*recognized = 0;
	if (is_blank(s, len))
		return LINE_BLANK;
	if (s[0] == '#')
		return LINE_COMMENT;
	if (is_space(s[0]))
		return LINE_CONTINUATION;
	if (starts_with(s, len, cherry_pick)) {
		if (recognized)
			*recognized = 1;
		return LINE_TRAILER;
	}
	sep = find_separator(s, len);
	if (sep < 1)
		return LINE_OTHER;
	if (recognized)
		*recognized = is_kernel_key(s, token_len(s, sep));
	return LINE_TRAILER;
}

/* The line ending just before offset end (exclusive, after its '\n' if
 * any): [*ls, *le) without the '\n'. */
static void line_before(const char *m, size_t end, size_t *ls, size_t *le)
{
	const char *nl;

	*le = end;
	if (end && m[end - 1] == '\n')
		(*le)--;
	nl = *le ? memrchr(m, '\n', *le) : NULL;
	*ls = nl ? (size_t)(nl - m) + 1 : 0;
}

struct para_counts {
	int trailers, others, recognized;
};

/* Counts the lines of the paragraph [start, end) as git does: a
 * continuation line counts with the trailer above it, or as another line
 * when there is none; comments count as neither. */
static void count_paragraph(const char *m, size_t start, size_t end, struct para_counts *pc)
{
	int prev_trailer = 0;

	pc->trailers = pc->others = pc->recognized = 0;
	while (start < end) {
		const char *nl = memchr(m + start, '\n', end - start);
		size_t le = nl ? (size_t)(nl - m) : end, len = le - start;
		int rec;

		switch (classify(m + start, len, &rec)) {
		case LINE_TRAILER:
			pc->trailers++;
			pc->recognized |= rec;
			prev_trailer = 1;
			break;
		case LINE_CONTINUATION:
			if (!prev_trailer)
				pc->others++;
			break;
		case LINE_COMMENT:
			prev_trailer = 0;
			break;
		case LINE_BLANK:
			break;
		case LINE_OTHER:
			pc->others++;
			prev_trailer = 0;
			break;
		}
		start = le + 1;
	}
}

/* The paragraph ending at end (skipping blank lines before end), starting
 * at or after floor: *ps..*pe.  0 if there is none (only blank lines, or
 * it would reach before floor without a blank line). */
static int paragraph_before(const char *m, size_t end, size_t floor, size_t *ps, size_t *pe)
{
	size_t ls, le;

	*pe = 0;
	while (end > floor) {
		line_before(m, end, &ls, &le);
		if (ls < floor)
			return 0;
		if (!is_blank(m + ls, le - ls)) {
			if (!*pe)
				*pe = end;
		} else if (*pe) {
			*ps = end;  /* just after this blank line */
			return 1;
		}
		end = ls;
	}
	return 0;
}

/* hex of at least 7 digits at s into p->upstream (if not set yet). */
static void take_upstream(struct gitscan_parser *p, const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && n <= GITSCAN_OID_MAX && isxdigit((unsigned char)s[n]))
		n++;
	if (p->upstream[0] || n < 7 || n > GITSCAN_OID_MAX)
		return;
	for (size_t i = 0; i < n; i++)
		p->upstream[i] = (char)tolower((unsigned char)s[i]);
	p->upstream[n] = '\0';
}

/* "commit <hex> upstream." or "[ Upstream commit <hex> ]", the first line
 * of a stable backport's body. */
static void find_upstream_line(struct gitscan_parser *p, const char *s, size_t len)
{
	while (len && is_space(*s)) {
		s++;
		len--;
	}
	if (len && *s == '[') {
		s++;
		len--;
		while (len && is_space(*s)) {
			s++;
			len--;
		}
		if (len > 16 && !strncasecmp(s, "upstream commit ", 16))
			take_upstream(p, s + 16, len - 16);
		return;
	}
	if (len > 7 && !strncasecmp(s, "commit ", 7)) {
		size_t n = 7;

		while (n < len && isxdigit((unsigned char)s[n]))
			n++;
		if (n < len && n + 9 <= len && !strncasecmp(s + n, " upstream", 9))
			take_upstream(p, s + 7, n - 7);
	}
}

static enum bb_status add_trailer(struct gitscan_parser *p, const char *key, size_t klen,
				  const char *value, size_t vlen)
{
	struct trailer_item *it;

	if (p->n == p->alloc) {
		size_t alloc = p->alloc ? p->alloc * 2 : 16;
		struct trailer_item *items = realloc(p->items, alloc * sizeof(*items));
		struct gitscan_trailer *tr;

		if (!items)
			return BB_ERR_NOMEM;
		p->items = items;
		tr = realloc(p->trailers, alloc * sizeof(*tr));
		if (!tr)
			return BB_ERR_NOMEM;
		p->trailers = tr;
		p->alloc = alloc;
	}
	it = &p->items[p->n++];
	it->kind = GITSCAN_TRAILER_OTHER;
	it->message_id = NO_STRING;
	it->bugzilla_id = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (key_is(key, klen, kinds[i].key))
			it->kind = kinds[i].kind;
	it->key = p->strings.len;
	if (buf_add(&p->strings, key, klen) || buf_addch(&p->strings, '\0'))
		return BB_ERR_NOMEM;
	it->value = p->strings.len;
	if (buf_add(&p->strings, value, vlen) || buf_addch(&p->strings, '\0'))
		return BB_ERR_NOMEM;
	return BB_OK;
}

/* Appends a continuation to the last trailer's value (the last string in
 * strings), joined with one space. */
static enum bb_status continue_trailer(struct gitscan_parser *p, const char *s, size_t len)
{
	buf_truncate(&p->strings, p->strings.len - 1);  /* its NUL */
	if ((p->strings.len > p->items[p->n - 1].value && buf_addch(&p->strings, ' ')) ||
	    buf_add(&p->strings, s, len) || buf_addch(&p->strings, '\0'))
		return BB_ERR_NOMEM;
	return BB_OK;
}

static void trim(const char **s, size_t *len)
{
	while (*len && is_space(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && is_space((*s)[*len - 1]))
		(*len)--;
}

/* Takes the trailers of the block [start, end). */
static enum bb_status extract_trailers(struct gitscan_parser *p, const char *m, size_t start,
				       size_t end)
{
	int open = 0;
	enum bb_status st;

	while (start < end) {
		const char *nl = memchr(m + start, '\n', end - start);
		size_t le = nl ? (size_t)(nl - m) : end, len = le - start;
		const char *s = m + start;

		switch (classify(s, len, NULL)) {
		case LINE_TRAILER:
			if (starts_with(s, len, cherry_pick)) {
				take_upstream(p, s + sizeof(cherry_pick) - 1,
					      len - (sizeof(cherry_pick) - 1));
				open = 0;
			} else {
				long sep = find_separator(s, len);
				const char *v = s + sep + 1;
				size_t vlen = len - (size_t)sep - 1;

				trim(&v, &vlen);
				if ((st = add_trailer(p, s, token_len(s, sep), v, vlen)))
					return st;
				open = 1;
			}
			break;
		case LINE_CONTINUATION:
			if (open) {
				trim(&s, &len);
				if ((st = continue_trailer(p, s, len)))
					return st;
			}
			break;
		case LINE_COMMENT:
		case LINE_OTHER:
			open = 0;
			break;
		case LINE_BLANK:
			open = 0;
			break;
		}
		start = le + 1;
	}
	return BB_OK;
}

/* The Message-ID and bug number a Link:, Closes: or Message-ID: trailer
 * points at (its first word: "Link: <url> # v2" and "Link: <url> [1]" are
 * common), added to strings. */
static enum bb_status link_ids(struct gitscan_parser *p, struct trailer_item *it)
{
	char word[REG_LINK_URL_MAX + 3];
	const char *v = p->strings.data + it->value;
	size_t n = 0;
	char *id = NULL;

	while (v[n] && !is_space(v[n]))
		n++;
	if (!n || n >= sizeof(word))
		return BB_OK;
	memcpy(word, v, n);
	word[n] = '\0';
	if (it->kind == GITSCAN_TRAILER_MESSAGE_ID) {
		const char *s = word;

		if (*s == '<' && word[n - 1] == '>') {
			s++;
			word[--n] = '\0';
		}
		if (*s && *s != '@' && strchr(s, '@') && s[strlen(s) - 1] != '@' && !strchr(s, '<') &&
		    !strchr(s, '>')) {
			it->message_id = p->strings.len;
			if (buf_addstr(&p->strings, s) || buf_addch(&p->strings, '\0'))
				return BB_ERR_NOMEM;
		}
		return BB_OK;
	}
	id = reg_link_message_id(word);
	if (id) {
		it->message_id = p->strings.len;
		if (buf_addstr(&p->strings, id) || buf_addch(&p->strings, '\0')) {
			free(id);
			return BB_ERR_NOMEM;
		}
		free(id);
	} else if (p->bugzilla_base) {
		it->bugzilla_id = reg_link_bugzilla_id(word, p->bugzilla_base);
	}
	return BB_OK;
}

/* Finds the trailer block: *start..end of the message, or *start = len. */
static void find_trailer_block(const char *m, size_t len, size_t *start)
{
	size_t title_end = len, pos = 0, ps, pe, ps2, pe2;
	struct para_counts pc;

	*start = len;
	/* the first paragraph is the title and cannot be trailers */
	while (pos < len) {
		const char *nl = memchr(m + pos, '\n', len - pos);
		size_t le = nl ? (size_t)(nl - m) : len;

		if (m[pos] != '#' && is_blank(m + pos, le - pos)) {
			title_end = pos;
			break;
		}
		pos = le + 1;
	}
	if (title_end >= len)
		return;
	/* the last paragraph; it must start after a blank line that is at or
	 * after the title's end */
	if (!paragraph_before(m, len, title_end, &ps, &pe))
		return;
	count_paragraph(m, ps, pe, &pc);
	if (!pc.trailers || !(pc.others == 0 || (pc.recognized && pc.trailers * 3 >= pc.others)))
		return;
	*start = ps;
	/* kernel leniency: whole paragraphs of trailers just before it */
	while (paragraph_before(m, ps, title_end, &ps2, &pe2)) {
		count_paragraph(m, ps2, pe2, &pc);
		if (!pc.trailers || pc.others || !pc.recognized)
			break;
		*start = ps = ps2;
	}
}

enum bb_status gitscan_parse_message(struct gitscan_parser *p, const char *hash, const char *m,
				     size_t len, struct gitscan_commit *c)
{
	size_t pos = 0, block;
	int first = 1;
	enum bb_status st;

	buf_reset(&p->strings);
	p->n = 0;
	p->upstream[0] = '\0';
	memset(c, 0, sizeof(*c));
	c->hash = hash;
	c->message = m;
	c->message_len = len;

	/* the subject: the first paragraph after any blank lines, its lines
	 * trimmed at the end and joined by spaces (git's %s) */
	for (;;) {
		const char *nl = pos < len ? memchr(m + pos, '\n', len - pos) : NULL;
		size_t le = nl ? (size_t)(nl - m) : len, l = le - pos;

		if (pos >= len)
			break;
		while (l && is_space(m[pos + l - 1]))
			l--;
		if (!l) {
			if (!first)
				break;
		} else {
			if (!first && buf_addch(&p->strings, ' '))
				return BB_ERR_NOMEM;
			if (buf_add(&p->strings, m + pos, l))
				return BB_ERR_NOMEM;
			first = 0;
		}
		pos = le + 1;
	}
	if (buf_addch(&p->strings, '\0'))
		return BB_ERR_NOMEM;
	/* the first line after the subject, for "commit <hex> upstream." */
	while (pos < len) {
		const char *nl = memchr(m + pos, '\n', len - pos);
		size_t le = nl ? (size_t)(nl - m) : len;

		if (!is_blank(m + pos, le - pos)) {
			find_upstream_line(p, m + pos, le - pos);
			break;
		}
		pos = le + 1;
	}

	find_trailer_block(m, len, &block);
	if (block < len && (st = extract_trailers(p, m, block, len)))
		return st;

	for (size_t i = 0; i < p->n; i++) {
		enum gitscan_trailer_kind k = p->items[i].kind;

		if ((k == GITSCAN_TRAILER_LINK || k == GITSCAN_TRAILER_CLOSES ||
		     k == GITSCAN_TRAILER_MESSAGE_ID) &&
		    (st = link_ids(p, &p->items[i])))
			return st;
	}

	/* the strings are in place: point into them */
	c->subject = p->strings.data;
	for (size_t i = 0; i < p->n; i++) {
		const struct trailer_item *it = &p->items[i];

		p->trailers[i].kind = it->kind;
		p->trailers[i].key = p->strings.data + it->key;
		p->trailers[i].value = p->strings.data + it->value;
		p->trailers[i].message_id =
			it->message_id == NO_STRING ? NULL : p->strings.data + it->message_id;
		p->trailers[i].bugzilla_id = it->bugzilla_id;
	}
	c->trailers = p->n ? p->trailers : NULL;
	c->n_trailers = p->n;
	c->upstream = p->upstream[0] ? p->upstream : NULL;
	return BB_OK;
}

/* ---------------------------------------------------------------------------
 * Streaming git log
 */

/* What a log stream does with each commit. */
struct log_sink {
	gitscan_commit_fn fn;
	void *ctx;
	const char *subject;   /* gitscan_find_subject(): only commits with this
				* subject (trimmed) go to fn */
	size_t subject_len;
};

static enum bb_status deliver(struct gitscan_tree *t, struct log_sink *sink, const char *hash,
			      size_t hash_len, const char *m, size_t len, struct bb_error *err)
{
	struct gitscan_commit c;
	enum bb_status st;

	if ((hash_len != 40 && hash_len != GITSCAN_OID_MAX) || !is_hex(hash, hash_len))
		return bb_error_set(err, BB_ERR_PROTOCOL, "tree %s: git log: unexpected output",
				    t->name);
	if (gitscan_parse_message(t->parser, hash, m, len, &c))
		return nomem(err);
	if (sink->subject) {
		const char *s = c.subject;
		size_t n = strlen(s);

		trim(&s, &n);
		if (n != sink->subject_len || memcmp(s, sink->subject, n))
			return BB_OK;
	}
	t->stats.commits++;
	t->stats.trailers += c.n_trailers;
	st = sink->fn(sink->ctx, &c);
	if (st && err && err->code == BB_OK)
		bb_error_set(err, st, "tree %s: stopped by the commit handler", t->name);
	return st;
}

/* The git environment plus GIT_FLUSH=0: git log flushes stdout after every
 * commit when it is not a regular file, a write and a wake-up of this
 * process per commit; without, it writes full stdio buffers.  Free with
 * free(). */
static char **log_environment(void)
{
	char **env = run_git_environment(), **more;
	size_t n = 0;

	if (!env)
		return NULL;
	while (env[n])
		n++;
	more = realloc(env, (n + 2) * sizeof(*env));
	if (!more) {
		free(env);
		return NULL;
	}
	more[n] = (char *)"GIT_FLUSH=0";
	more[n + 1] = NULL;
	return more;
}

/* Runs `git log -z --format=%H%x00%B <extra args>` and hands each commit
 * to the sink.  The output is parsed in place in t->rbuf: a record is
 * "<hash>\0<message>\0"; only a partial record at the end of the buffer is
 * moved to its front before the next read. */
static enum bb_status stream_log(struct gitscan_tree *t, struct run_args *a, struct log_sink *sink,
				 struct bb_error *err)
{
	struct run_child c;
	struct timespec start;
	char **env = NULL;
	size_t begin = 0, end = 0;
	int skipping = 0, status = 255;
	enum bb_status st;

	run_child_init(&c, "git log");
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (!t->rbuf) {
		t->rbuf = malloc(GITSCAN_READ_SIZE);
		if (!t->rbuf) {
			st = nomem(err);
			goto out;
		}
		t->rsize = GITSCAN_READ_SIZE;
	}
	env = log_environment();
	if (!env) {
		st = nomem(err);
		goto out;
	}
	if ((st = run_child_spawn(&c, a->v, env, 0, err)))
		goto out;
	t->stats.git_commands++;
#ifdef F_SETPIPE_SZ
	(void)fcntl(c.out_fd, F_SETPIPE_SZ, GITSCAN_PIPE_SIZE);
#endif
	for (;;) {
		size_t got;

		/* every complete record in [begin, end) */
		while (begin < end) {
			char *p = t->rbuf + begin, *z1, *z2;
			size_t avail = end - begin;

			if (skipping) {
				z1 = memchr(p, '\0', avail);
				if (!z1) {
					begin = end;
					break;
				}
				begin = (size_t)(z1 - t->rbuf) + 1;
				skipping = 0;
				continue;
			}
			z1 = memchr(p, '\0', avail);
			if (!z1)
				break;
			z2 = memchr(z1 + 1, '\0', (size_t)(t->rbuf + end - (z1 + 1)));
			if (!z2)
				break;
			if ((st = deliver(t, sink, p, (size_t)(z1 - p), z1 + 1, (size_t)(z2 - z1 - 1),
					  err)))
				goto out;
			begin = (size_t)(z2 - t->rbuf) + 1;
		}
		if (begin == end) {
			begin = end = 0;
		} else if (begin) {
			memmove(t->rbuf, t->rbuf + begin, end - begin);
			end -= begin;
			begin = 0;
		}
		if (end == t->rsize) {
			/* one record fills the buffer */
			char *z1 = memchr(t->rbuf, '\0', end);

			if (!z1 || z1 - t->rbuf > GITSCAN_OID_MAX) {
				st = bb_error_set(err, BB_ERR_PROTOCOL, "tree %s: git log: unexpected output",
						  t->name);
				goto out;
			}
			if (t->rsize >= GITSCAN_MAX_MESSAGE + GITSCAN_OID_MAX + 2) {
				*z1 = '\0';
				t->stats.skipped++;
				log_event(LOG_LEVEL_WARN, "gitscan.skip", LF_STR("tree", t->name),
					  LF_STR("commit", t->rbuf), LF_STR("reason", "message too large"));
				skipping = 1;
				begin = end = 0;
			} else {
				size_t size = t->rsize * 2;
				char *nb;

				if (size > GITSCAN_MAX_MESSAGE + GITSCAN_OID_MAX + 2)
					size = GITSCAN_MAX_MESSAGE + GITSCAN_OID_MAX + 2;
				nb = realloc(t->rbuf, size);
				if (!nb) {
					st = nomem(err);
					goto out;
				}
				t->rbuf = nb;
				t->rsize = size;
			}
		}
		if ((st = run_child_read(&c, t->rbuf + end, t->rsize - end, &got, err)))
			goto out;
		if (!got)
			break;
		end += got;
		t->stats.bytes += got;
	}
	run_child_wait(&c, &status);
	log_git("git log", t, status, &start);
	if (status != 0) {
		char message[GITSCAN_MESSAGE_MAX];

		git_said(&c.errout, message, sizeof(message));
		st = bb_error_set(err, fold_git(&c.errout, 0), "tree %s: git log: %s", t->name, message);
		goto out;
	}
	if (end || skipping)
		st = bb_error_set(err, BB_ERR_PROTOCOL, "tree %s: git log: output ended inside a commit",
				  t->name);
out:
	run_child_release(&c);
	free(env);
	/* a buffer grown for one huge message does not stay grown */
	if (t->rsize > GITSCAN_READ_SIZE) {
		free(t->rbuf);
		t->rbuf = NULL;
		t->rsize = 0;
	}
	return st;
}

static enum bb_status log_args(struct gitscan_tree *t, struct run_args *a)
{
	if (git_args(t, a, 1) || run_args_push(a, "log") || run_args_push(a, "-z") ||
	    run_args_push(a, "--no-color") || run_args_push(a, "--no-notes") ||
	    run_args_push(a, "--encoding=UTF-8") || run_args_push(a, "--format=%H%x00%B"))
		return BB_ERR_NOMEM;
	return BB_OK;
}

/* 1 if the repository has the commit. */
static enum bb_status have_commit(struct gitscan_tree *t, const char *hash, int *have,
				  struct bb_error *err)
{
	struct run_args a = RUN_ARGS_INIT;
	enum bb_status st;
	int status = 0;

	if (git_args(t, &a, 1) || run_args_push(&a, "cat-file") || run_args_push(&a, "-e") ||
	    run_args_push_owned(&a, str_printf("%s^{commit}", hash))) {
		st = nomem(err);
		goto out;
	}
	if ((st = git_run(t, &a, "git cat-file", 0, NULL, &status, NULL, err)))
		goto out;
	*have = status == 0;
out:
	run_args_clear(&a);
	return st;
}

enum bb_status gitscan_scan(struct gitscan_tree *t, const char *cursor, gitscan_commit_fn fn,
			    void *ctx, char **next_cursor, struct bb_error *err)
{
	struct run_args a = RUN_ARGS_INIT;
	struct log_sink sink = { fn, ctx, NULL, 0 };
	struct timespec start;
	char tip[GITSCAN_OID_MAX + 1], from[GITSCAN_OID_MAX + 1] = "";
	unsigned long long commits_before = t->stats.commits;
	unsigned long depth = 0;
	enum bb_status st;

	if (next_cursor)
		*next_cursor = NULL;
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (cursor && !is_object_name(cursor))
		return bb_error_set(err, BB_ERR_INVALID, "tree %s: cursor \"%.80s\" is not a commit name",
				    t->name, cursor);
	if ((st = check_repository(t, err)))
		return st;
	if ((st = rev_parse(t, t->scan_ref, "ref", tip, err)))
		return st;
	if (cursor && !strcasecmp(cursor, tip))
		goto done;
	if (cursor) {
		int have = 0;

		if ((st = have_commit(t, cursor, &have, err)))
			return st;
		if (have) {
			snprintf(from, sizeof(from), "%s", cursor);
		} else {
			t->stats.rewinds++;
			log_event(LOG_LEVEL_WARN, "gitscan.rewind", LF_STR("tree", t->name),
				  LF_STR("cursor", cursor), LF_STR("tip", tip));
			cursor = NULL;
		}
	}
	if (!cursor) {
		if (t->first_start) {
			if ((st = rev_parse(t, t->first_start, "first scan start", from, err)))
				return st;
		} else {
			depth = t->first_depth;
		}
	}
	if (log_args(t, &a) ||
	    (depth && run_args_push_owned(&a, str_printf("--max-count=%lu", depth))) ||
	    run_args_push(&a, tip) || (from[0] && run_args_push_owned(&a, str_printf("^%s", from)))) {
		st = nomem(err);
		goto out;
	}
	if ((st = stream_log(t, &a, &sink, err)))
		goto out;
	log_event(LOG_LEVEL_INFO, "gitscan.scan", LF_STR("tree", t->name), LF_STR("tip", tip),
		  LF_UINT("commits", t->stats.commits - commits_before),
		  LF_INT("ms", elapsed_ms(&start)));
done:
	t->stats.scans++;
	if (next_cursor) {
		*next_cursor = strdup(tip);
		if (!*next_cursor)
			st = nomem(err);
	}
out:
	run_args_clear(&a);
	return st;
}

enum bb_status gitscan_find_subject(struct gitscan_tree *t, const char *subject, const char *start,
				    gitscan_commit_fn fn, void *ctx, struct bb_error *err)
{
	struct run_args a = RUN_ARGS_INIT;
	struct log_sink sink = { fn, ctx, subject, 0 };
	char tip[GITSCAN_OID_MAX + 1], from[GITSCAN_OID_MAX + 1] = "";
	size_t n = subject ? strlen(subject) : 0;
	enum bb_status st;

	trim(&sink.subject, &n);
	sink.subject_len = n;
	if (!n || memchr(sink.subject, '\n', n))
		return bb_error_set(err, BB_ERR_INVALID, "tree %s: an empty or multi-line subject",
				    t->name);
	if (start && !valid_rev_name(start))
		return bb_error_set(err, BB_ERR_INVALID, "tree %s: \"%.80s\" is not a commit name",
				    t->name, start);
	if ((st = check_repository(t, err)) || (st = rev_parse(t, t->scan_ref, "ref", tip, err)))
		return st;
	if (start && (st = rev_parse(t, start, "start", from, err)))
		return st;
	if (log_args(t, &a) || run_args_push(&a, "--fixed-strings") ||
	    run_args_push_owned(&a, str_printf("--grep=%.*s", (int)n, sink.subject)) ||
	    run_args_push(&a, tip) || (from[0] && run_args_push_owned(&a, str_printf("^%s", from)))) {
		st = nomem(err);
		goto out;
	}
	st = stream_log(t, &a, &sink, err);
out:
	run_args_clear(&a);
	return st;
}

enum bb_status gitscan_find_grep(struct gitscan_tree *t, const char *pattern, unsigned max,
				 gitscan_commit_fn fn, void *ctx, struct bb_error *err)
{
	struct run_args a = RUN_ARGS_INIT;
	struct log_sink sink = { fn, ctx, NULL, 0 };
	char tip[GITSCAN_OID_MAX + 1];
	enum bb_status st;

	if (!pattern || !*pattern || strchr(pattern, '\n') || !max)
		return bb_error_set(err, BB_ERR_INVALID, "tree %s: no pattern to look for", t->name);
	if ((st = check_repository(t, err)) || (st = rev_parse(t, t->scan_ref, "ref", tip, err)))
		return st;
	if (log_args(t, &a) || run_args_push(&a, "--extended-regexp") ||
	    run_args_push_owned(&a, str_printf("--grep=%s", pattern)) ||
	    run_args_push_owned(&a, str_printf("--max-count=%u", max)) || run_args_push(&a, tip)) {
		st = nomem(err);
		goto out;
	}
	st = stream_log(t, &a, &sink, err);
out:
	run_args_clear(&a);
	return st;
}

enum bb_status gitscan_find_commit(struct gitscan_tree *t, const char *commit,
				   gitscan_commit_fn fn, void *ctx, struct bb_error *err)
{
	struct run_args a = RUN_ARGS_INIT;
	struct log_sink sink = { fn, ctx, NULL, 0 };
	char hash[GITSCAN_OID_MAX + 1];
	enum bb_status st;
	int contained = 0;

	if ((st = gitscan_contains(t, commit, NULL, &contained, err)))
		return st;
	if (!contained)
		return BB_OK;
	if ((st = rev_parse(t, commit, "commit", hash, err)))
		return st;
	if (log_args(t, &a) || run_args_push(&a, "-1") || run_args_push(&a, hash)) {
		st = nomem(err);
		goto out;
	}
	st = stream_log(t, &a, &sink, err);
out:
	run_args_clear(&a);
	return st;
}

enum bb_status gitscan_contains(struct gitscan_tree *t, const char *commit, const char *ref,
				int *contained, struct bb_error *err)
{
	struct run_args a = RUN_ARGS_INIT;
	char c_hash[GITSCAN_OID_MAX + 1], r_hash[GITSCAN_OID_MAX + 1];
	enum bb_status st;
	int status = 0;

	*contained = 0;
	if (!valid_rev_name(commit))
		return bb_error_set(err, BB_ERR_INVALID, "tree %s: \"%.80s\" is not a commit name",
				    t->name, commit ? commit : "");
	if (ref && !valid_rev_name(ref))
		return bb_error_set(err, BB_ERR_INVALID, "tree %s: \"%.80s\" is not a ref name",
				    t->name, ref);
	if ((st = check_repository(t, err)) || (st = rev_parse(t, commit, "commit", c_hash, err)) ||
	    (st = rev_parse(t, ref ? ref : t->scan_ref, "ref", r_hash, err)))
		return st;
	if (git_args(t, &a, 1) || run_args_push(&a, "merge-base") ||
	    run_args_push(&a, "--is-ancestor") || run_args_push(&a, c_hash) ||
	    run_args_push(&a, r_hash)) {
		st = nomem(err);
		goto out;
	}
	if ((st = git_run(t, &a, "git merge-base", 0, NULL, &status, NULL, err)))
		goto out;
	if (status > 1) {
		st = bb_error_set(err, BB_ERR_IO, "tree %s: git merge-base failed (exit %d)", t->name,
				  status);
		goto out;
	}
	*contained = status == 0;
out:
	run_args_clear(&a);
	return st;
}

enum bb_status gitscan_resolve(struct gitscan_tree *t, const char *name, char **hash,
			       struct bb_error *err)
{
	char h[GITSCAN_OID_MAX + 1];
	enum bb_status st;

	*hash = NULL;
	if (!valid_rev_name(name))
		return bb_error_set(err, BB_ERR_INVALID, "tree %s: \"%.80s\" is not a commit name",
				    t->name, name ? name : "");
	if ((st = check_repository(t, err)) || (st = rev_parse(t, name, "commit", h, err)))
		return st;
	*hash = strdup(h);
	return *hash ? BB_OK : nomem(err);
}

enum bb_status gitscan_show(struct gitscan_tree *t, const char *name, char **author,
			    char **message, struct bb_error *err)
{
	char h[GITSCAN_OID_MAX + 1];
	struct run_args a = RUN_ARGS_INIT;
	struct buf out = BUF_INIT, errout = BUF_INIT;
	enum bb_status st;
	int status = 0;
	size_t alen;

	*author = *message = NULL;
	if (!valid_rev_name(name))
		return bb_error_set(err, BB_ERR_INVALID, "tree %s: \"%.80s\" is not a commit name",
				    t->name, name ? name : "");
	if ((st = check_repository(t, err)) || (st = rev_parse(t, name, "commit", h, err)))
		return st;
	if (git_args(t, &a, 1) || run_args_push(&a, "log") || run_args_push(&a, "-1") ||
	    run_args_push(&a, "--no-color") || run_args_push(&a, "--no-notes") ||
	    run_args_push(&a, "--encoding=UTF-8") || run_args_push(&a, "--format=%an <%ae>%x00%B") ||
	    run_args_push(&a, h) || run_args_push(&a, "--")) {
		st = nomem(err);
		goto out;
	}
	if ((st = git_run(t, &a, "git log", 0, &out, &status, &errout, err)))
		goto out;
	if (status != 0) {
		char said[GITSCAN_MESSAGE_MAX];

		git_said(&errout, said, sizeof(said));
		st = bb_error_set(err, fold_git(&errout, 0), "tree %s: git log: %s", t->name, said);
		goto out;
	}
	if (!out.data || (alen = strnlen(out.data, out.len)) == out.len ||
	    out.len - alen - 1 > GITSCAN_MAX_MESSAGE) {
		st = bb_error_set(err, BB_ERR_PROTOCOL, "tree %s: git log: unexpected output", t->name);
		goto out;
	}
	*author = strdup(out.data);
	*message = strndup(out.data + alen + 1, out.len - alen - 1);
	if (!*author || !*message) {
		free(*author);
		free(*message);
		*author = *message = NULL;
		st = nomem(err);
	}
out:
	run_args_clear(&a);
	buf_release(&out);
	buf_release(&errout);
	return st;
}

/* ---------------------------------------------------------------------------
 * Searching the tree's files
 */

/* Hands each "<hash>:path\0line\0text\n" record of git grep -z -n to fn. */
static enum bb_status grep_records(const char *hash, char *data, size_t len, gitscan_grep_fn fn,
				   void *ctx)
{
	size_t hlen = strlen(hash);
	char *p = data, *end = data + len;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *path, *num, *text, *stop;
		unsigned long line;
		enum bb_status st;

		if (!nl)
			break;      /* a record cut by the output cap */
		*nl = '\0';
		path = p;
		p = nl + 1;
		if (strncmp(path, hash, hlen) || path[hlen] != ':')
			continue;
		path += hlen + 1;
		if (!(num = memchr(path, '\0', (size_t)(nl - path))))
			continue;
		num++;
		if (!(text = memchr(num, '\0', (size_t)(nl - num))))
			continue;
		text++;
		errno = 0;
		line = strtoul(num, &stop, 10);
		if (errno || *stop || stop == num)
			continue;
		if ((st = fn(ctx, path, line, text)))
			return st;
	}
	return BB_OK;
}

enum bb_status gitscan_grep(struct gitscan_tree *t, const char *regex,
			    const char *const *pathspecs, size_t max_output, gitscan_grep_fn fn,
			    void *ctx, int *truncated, struct bb_error *err)
{
	char hash[GITSCAN_OID_MAX + 1];
	struct run_args a = RUN_ARGS_INIT;
	struct buf out = BUF_INIT, errout = BUF_INIT;
	enum bb_status st;
	int status = 0, cut = 0;

	if (truncated)
		*truncated = 0;
	if (!regex || !*regex)
		return bb_error_set(err, BB_ERR_INVALID, "tree %s: git grep: no pattern", t->name);
	if ((st = check_repository(t, err)) || (st = rev_parse(t, t->scan_ref, "ref", hash, err)))
		return st;
	/* --no-column: a tree's grep.column would add a field to each line */
	if (git_args(t, &a, 1) || run_args_push(&a, "grep") || run_args_push(&a, "--no-color") ||
	    run_args_push(&a, "--no-column") || run_args_push(&a, "-n") ||
	    run_args_push(&a, "-I") || run_args_push(&a, "-z") || run_args_push(&a, "-E") || run_args_push(&a, "-e") || run_args_push(&a, regex) ||
	    run_args_push(&a, hash) || run_args_push(&a, "--")) {
		st = nomem(err);
		goto out;
	}
	for (size_t i = 0; pathspecs && pathspecs[i]; i++)
		if (run_args_push(&a, pathspecs[i])) {
			st = nomem(err);
			goto out;
		}
	if ((st = git_run_capped(t, &a, "git grep", 0, &out, max_output ? max_output :
				 GITSCAN_GREP_OUTPUT, &cut, &status, &errout, err)))
		goto out;
	if (status == 1 && !cut)
		goto out;   /* nothing matched */
	if (status != 0 && !(cut && out.len)) {
		char said[GITSCAN_MESSAGE_MAX];

		git_said(&errout, said, sizeof(said));
		st = bb_error_set(err, fold_git(&errout, 0), "tree %s: git grep: %s", t->name, said);
		goto out;
	}
	if (cut)
		log_event(LOG_LEVEL_WARN, "gitscan.grep_truncated", LF_STR("tree", t->name),
			  LF_UINT("bytes", out.len));
	if (truncated)
		*truncated = cut;
	if (out.len)
		st = grep_records(hash, out.data, out.len, fn, ctx);
	if (st)
		st = bb_error_set(err, st, "tree %s: git grep: stopped by the line handler", t->name);
out:
	run_args_clear(&a);
	buf_release(&out);
	buf_release(&errout);
	return st;
}
