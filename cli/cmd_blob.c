/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge blob: the attachment store from the command line. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/cli.h"
#include "core/buf.h"
#include "core/digest.h"
#include "core/fsutil.h"

#define JSON_SHAPE_VERSION 1

static const char usage_blob[] =
	"usage: bugbridge blob <subcommand> [<args>]\n"
	"\n"
	"  put [--name NAME] [--type TYPE] [--origin ORIGIN [--ref REF]] [--pin] [--json] FILE...|-\n"
	"                           store files (or standard input) by their SHA-256\n"
	"  get HASH [-o FILE]       write a blob to standard output or FILE\n"
	"  ls [--json]              list stored blobs\n"
	"  show [--json] HASH       metadata, names, references and archive listing\n"
	"  verify [--json] [HASH...]  rehash blobs; exit 65 if any is corrupt or missing\n"
	"  gc [--yes] [--grace DURATION] [--json]\n"
	"                           remove unreferenced blobs older than the grace period\n"
	"                           (a dry run unless --yes)\n"
	"  pin HASH / unpin HASH    keep a blob forever / let gc remove it again\n"
	"\n"
	"HASH is sha256:<64 hex digits> or just the digits.\n";

static const char usage_put[] =
	"usage: bugbridge blob put [options] FILE...|-\n"
	"\n"
	"Stores each FILE (or standard input for -) in the blob store and prints\n"
	"sha256:<hex> and its URL.  Content already stored is not written again.\n"
	"\n"
	"  --name NAME      file name to record (default: the file's own name)\n"
	"  --type TYPE      content type the uploader claims (recorded, never trusted)\n"
	"  --origin ORIGIN  upload (default), bugzilla-attachment, mail-part, ...\n"
	"  --ref REF        origin reference: attachment id, Message-ID, ...\n"
	"  --pin            keep the blob even when nothing else references it\n"
	"  --json           print the result as JSON\n";

static const char usage_get[] =
	"usage: bugbridge blob get HASH [-o FILE]\n"
	"\n"
	"Writes the blob to standard output, or to FILE (written to a temporary\n"
	"name and renamed once complete).  The bytes are rehashed on the way; a\n"
	"corrupt blob is an error (exit 65) and FILE is not created.\n";

static const char usage_ls[] =
	"usage: bugbridge blob ls [--json]\n";
static const char usage_show[] =
	"usage: bugbridge blob show [--json] HASH\n";
static const char usage_verify[] =
	"usage: bugbridge blob verify [--json] [HASH...]\n"
	"\n"
	"Rehashes the named blobs (all when none are named) and reports any whose\n"
	"file is missing, has the wrong size or no longer matches its hash.\n"
	"Exits 65 if any does.\n";
static const char usage_gc[] =
	"usage: bugbridge blob gc [--yes] [--grace DURATION] [--json]\n"
	"\n"
	"Lists (or with --yes removes) blobs that nothing references and that were\n"
	"last stored longer ago than the grace period ([blob] gc_grace, default\n"
	"30d), the members they leave unreferenced, files in the store without\n"
	"metadata, and temporary files left by interrupted writes.\n";
static const char usage_pin[] =
	"usage: bugbridge blob pin HASH\n"
	"       bugbridge blob unpin HASH\n";

static int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}

/* A blob named on the command line: its full hash, or a unique prefix of
 * at least 7 hex digits (looked up in the store, opened in mode). */
static int parse_hash_arg(struct cli_context *ctx, const char *arg, char hex[BLOB_HEX_LEN + 1],
			  enum store_mode mode)
{
	struct bb_error err = BB_ERROR_INIT;
	int rc;

	if (blob_parse_hash(arg, hex, NULL) == BB_OK)
		return EX_OK;
	if ((rc = cli_open_store(ctx, mode)))
		return rc;
	if (blob_resolve(ctx->blobs, arg, hex, &err))
		return cli_fail(&err);
	return EX_OK;
}

static char *format_time(time_t t, char *out, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return out;
}

static struct json_object *json_time(time_t t)
{
	char buf[32];

	return json_object_new_string(format_time(t, buf, sizeof(buf)));
}

/* ------------------------------------------------------------------ put */

static int put_one(struct cli_context *ctx, const char *file, const struct blob_origin *o,
		   int pin, struct json_object *results)
{
	struct bb_error err = BB_ERROR_INIT;
	struct blob_origin origin = *o;
	struct blob_info info;
	struct cli_progress *progress = NULL;
	char *url = NULL;
	const char *base;
	struct stat sb;
	int fd = -1, rc = EX_OK;
	enum bb_status s;

	if (!strcmp(file, "-")) {
		fd = STDIN_FILENO;
	} else {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			bb_error_errno(&err, errno, "%s", file);
			return cli_fail(&err);
		}
		if (!origin.name) {
			base = strrchr(file, '/');
			origin.name = base ? base + 1 : file;
		}
	}
	if (!origin.name)
		origin.name = "";
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= 64 * 1024 * 1024)
		progress = cli_progress_start(*origin.name ? origin.name : "stdin",
					      (uint64_t)sb.st_size, ctx->quiet);
	else if (!S_ISREG(sb.st_mode))
		progress = cli_progress_start(*origin.name ? origin.name : "stdin", 0, ctx->quiet);
	s = blob_put_fd(ctx->blobs, fd, &origin, progress ? cli_progress_cb : NULL, progress,
			&info, &err);
	cli_progress_done(progress);
	if (fd != STDIN_FILENO)
		close(fd);
	if (s) {
		cli_error("%s: %s", file, err.message);
		return cli_exit_code(err.code);
	}
	if (pin && (s = blob_add_ref(ctx->blobs, info.hash, "pin", "", &err)))
		return cli_fail(&err);
	url = blob_url(ctx->blobs, info.hash, origin.name);
	if (results) {
		struct json_object *r = json_object_new_object();

		json_object_object_add(r, "file", json_object_new_string(file));
		json_object_object_add(r, "hash", json_object_new_string(info.hash));
		json_object_object_add(r, "size", json_object_new_uint64(info.size));
		json_object_object_add(r, "content_type", json_object_new_string(info.content_type));
		json_object_object_add(r, "url", json_object_new_string(url ? url : ""));
		json_object_object_add(r, "already_stored",
				       json_object_new_boolean(info.already_stored));
		json_object_array_add(results, r);
	} else {
		char size[24];

		printf("sha256:%s\n%s\n", info.hash, url ? url : "");
		format_size(info.size, size, sizeof(size));
		if (!ctx->quiet) {
			fprintf(stderr, "bugbridge: %s: %s, %s, %s", file,
				info.already_stored ? "already stored" : "stored", size,
				info.content_type);
			if (info.archive_status != INSPECT_NOT_ARCHIVE)
				fprintf(stderr, ", %s archive%s%s", info.archive_format,
					info.archive_note[0] ? ": " : "", info.archive_note);
			fputc('\n', stderr);
		}
	}
	free(url);
	return rc;
}

static int blob_put(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "type", required_argument, NULL, 't' },
		{ "origin", required_argument, NULL, 'O' },
		{ "ref", required_argument, NULL, 'r' },
		{ "pin", no_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct blob_origin origin = { NULL, "", "upload", "cli" };
	struct json_object *results = NULL;
	int opt, pin = 0, json = 0, rc = EX_OK;

	while ((opt = getopt_long(argc, argv, "n:t:O:r:pjh", options, NULL)) != -1) {
		switch (opt) {
		case 'n': origin.name = optarg; break;
		case 't': origin.declared_type = optarg; break;
		case 'O': origin.origin = optarg; break;
		case 'r': origin.origin_ref = optarg; break;
		case 'p': pin = 1; break;
		case 'j': json = 1; break;
		case 'h': return cli_usage(stdout, usage_put);
		default: return cli_usage(stderr, usage_put);
		}
	}
	if (optind >= argc)
		return cli_usage(stderr, usage_put);
	if (origin.name && argc - optind > 1) {
		cli_error("--name applies to one file only");
		return EX_USAGE;
	}
	if ((rc = cli_open_store(ctx, STORE_READ_WRITE)))
		return rc;
	if (json)
		results = json_object_new_array();
	rc = EX_OK;
	for (int i = optind; i < argc; i++) {
		int r = put_one(ctx, argv[i], &origin, pin, results);

		if (r && !rc)
			rc = r; /* go on with the other files, report the first failure */
	}
	if (json) {
		struct json_object *top = json_object_new_object();

		json_object_object_add(top, "version", json_object_new_int(JSON_SHAPE_VERSION));
		json_object_object_add(top, "blobs", results);
		cli_print_json(top);
		json_object_put(top);
	}
	return rc;
}

/* ------------------------------------------------------------------ get */

static int blob_get(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bb_error err = BB_ERROR_INIT;
	char hex[BLOB_HEX_LEN + 1], got[BLOB_HEX_LEN + 1];
	struct blob_info info;
	const char *output = NULL;
	char *tmp = NULL, *chunk = NULL;
	struct sha256 md = { NULL };
	int opt, in = -1, out = STDOUT_FILENO, rc;

	while ((opt = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'h': return cli_usage(stdout, usage_get);
		default: return cli_usage(stderr, usage_get);
		}
	}
	if (optind != argc - 1)
		return cli_usage(stderr, usage_get);
	if ((rc = parse_hash_arg(ctx, argv[optind], hex, STORE_READ_ONLY)))
		return rc;
	if ((rc = cli_open_store(ctx, STORE_READ_ONLY)))
		return rc;
	if (blob_open(ctx->blobs, hex, &in, &info, &err))
		return cli_fail(&err);
	if (!output && isatty(STDOUT_FILENO) && strncmp(info.content_type, "text/", 5)) {
		cli_error("sha256:%s is %s; not writing binary data to a terminal (use -o FILE)",
			  hex, info.content_type);
		close(in);
		return EX_USAGE;
	}
	if (output) {
		if (!(tmp = str_printf("%s.bugbridge-XXXXXX", output))) {
			rc = EX_OSERR;
			goto out;
		}
		out = mkostemp(tmp, O_CLOEXEC);
		if (out < 0) {
			bb_error_errno(&err, errno, "cannot create %s", output);
			free(tmp);
			tmp = NULL;
			rc = cli_fail(&err);
			goto out;
		}
	}
	chunk = malloc(BLOB_CHUNK_SIZE);
	if (!chunk || sha256_init(&md)) {
		rc = EX_OSERR;
		goto out;
	}
	for (;;) {
		ssize_t n = fs_read_full(in, chunk, BLOB_CHUNK_SIZE);

		if (n < 0) {
			bb_error_errno(&err, errno, "cannot read sha256:%s", hex);
			rc = cli_fail(&err);
			goto out;
		}
		if (n == 0)
			break;
		sha256_update(&md, chunk, (size_t)n);
		if (fs_write_all(out, chunk, (size_t)n) != 0) {
			bb_error_errno(&err, errno, "cannot write %s", output ? output : "standard output");
			rc = cli_fail(&err);
			goto out;
		}
	}
	sha256_final_hex(&md, got);
	if (strcmp(got, hex) != 0) {
		cli_error("sha256:%s is corrupt: its file hashes to %s (see bugbridge blob verify)",
			  hex, got);
		rc = EX_DATAERR;
		goto out;
	}
	if (tmp) {
		if (fsync(out) != 0 || rename(tmp, output) != 0) {
			bb_error_errno(&err, errno, "cannot write %s", output);
			rc = cli_fail(&err);
			goto out;
		}
		free(tmp);
		tmp = NULL;
	}
	rc = EX_OK;
out:
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	if (out != STDOUT_FILENO && out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	sha256_release(&md);
	free(chunk);
	return rc;
}

/* ------------------------------------------------------------ ls / show */

struct list_ctx {
	struct cli_context *cli;
	struct json_object *array;
	struct buf first_name;
	int count;
};

static enum bb_status first_name_cb(void *p, const struct blob_name *n)
{
	struct buf *b = p;

	if (b->len == 0 && *n->name)
		buf_addstr(b, n->name);
	return BB_OK;
}

static enum bb_status names_json_cb(void *p, const struct blob_name *n)
{
	struct json_object *arr = p, *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(n->name));
	json_object_object_add(o, "declared_type", json_object_new_string(n->declared_type));
	json_object_object_add(o, "origin", json_object_new_string(n->origin));
	json_object_object_add(o, "origin_ref", json_object_new_string(n->origin_ref));
	json_object_object_add(o, "added", json_time(n->added));
	json_object_array_add(arr, o);
	return BB_OK;
}

static enum bb_status refs_json_cb(void *p, const struct blob_ref *r)
{
	struct json_object *arr = p, *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(r->kind));
	json_object_object_add(o, "ref", json_object_new_string(r->ref));
	json_object_object_add(o, "created", json_time(r->created));
	json_object_array_add(arr, o);
	return BB_OK;
}

static enum bb_status members_json_cb(void *p, const struct inspect_member *m)
{
	struct json_object *arr = p, *o = json_object_new_object();

	json_object_object_add(o, "path", json_object_new_string(m->path));
	json_object_object_add(o, "depth", json_object_new_int((int)m->depth));
	json_object_object_add(o, "kind", json_object_new_string(m->kind));
	json_object_object_add(o, "size", json_object_new_uint64(m->size));
	json_object_object_add(o, "hash", m->hash ? json_object_new_string(m->hash) : NULL);
	if (m->note)
		json_object_object_add(o, "note", json_object_new_string(m->note));
	json_object_array_add(arr, o);
	return BB_OK;
}

static struct json_object *blob_json(struct cli_context *ctx, const struct blob_info *info,
				     int detailed)
{
	struct json_object *o = json_object_new_object(), *names = json_object_new_array();
	struct json_object *refs = json_object_new_array();
	char *url = blob_url(ctx->blobs, info->hash, NULL);

	json_object_object_add(o, "hash", json_object_new_string(info->hash));
	json_object_object_add(o, "size", json_object_new_uint64(info->size));
	json_object_object_add(o, "content_type", json_object_new_string(info->content_type));
	json_object_object_add(o, "first_seen", json_time(info->first_seen));
	json_object_object_add(o, "last_seen", json_time(info->last_seen));
	json_object_object_add(o, "url", json_object_new_string(url ? url : ""));
	free(url);
	blob_each_name(ctx->blobs, info->hash, names_json_cb, names, NULL);
	json_object_object_add(o, "names", names);
	blob_each_ref(ctx->blobs, info->hash, refs_json_cb, refs, NULL);
	json_object_object_add(o, "references", refs);
	if (info->archive_status != INSPECT_NOT_ARCHIVE) {
		struct json_object *a = json_object_new_object();

		json_object_object_add(a, "status",
				       json_object_new_string(inspect_status_str(info->archive_status)));
		json_object_object_add(a, "format", json_object_new_string(info->archive_format));
		json_object_object_add(a, "note", json_object_new_string(info->archive_note));
		if (detailed) {
			struct json_object *members = json_object_new_array();

			blob_each_member(ctx->blobs, info->hash, members_json_cb, members, NULL);
			json_object_object_add(a, "members", members);
		}
		json_object_object_add(o, "archive", a);
	} else {
		json_object_object_add(o, "archive", NULL);
	}
	return o;
}

static enum bb_status ls_cb(void *p, const struct blob_info *info)
{
	struct list_ctx *lc = p;
	char size[24], when[32];

	lc->count++;
	if (lc->array) {
		json_object_array_add(lc->array, blob_json(lc->cli, info, 0));
		return BB_OK;
	}
	buf_reset(&lc->first_name);
	blob_each_name(lc->cli->blobs, info->hash, first_name_cb, &lc->first_name, NULL);
	format_size(info->size, size, sizeof(size));
	printf("sha256:%s  %10s  %-28s  %s  %s\n", info->hash, size, cli_safe(info->content_type),
	       format_time(info->first_seen, when, sizeof(when)),
	       lc->first_name.len ? cli_safe(lc->first_name.data) : "-");
	return BB_OK;
}

static int json_flag_only(int argc, char **argv, const char *usage, int *json, int *first)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	*json = 0;
	while ((opt = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		switch (opt) {
		case 'j': *json = 1; break;
		case 'h': return cli_usage(stdout, usage) ? EX_USAGE : -1;
		default: return cli_usage(stderr, usage);
		}
	}
	*first = optind;
	return EX_OK;
}

static int blob_ls(struct cli_context *ctx, int argc, char **argv)
{
	struct bb_error err = BB_ERROR_INIT;
	struct list_ctx lc = { ctx, NULL, BUF_INIT, 0 };
	int json, first, rc;

	if ((rc = json_flag_only(argc, argv, usage_ls, &json, &first)))
		return rc < 0 ? EX_OK : rc;
	if (first != argc)
		return cli_usage(stderr, usage_ls);
	if ((rc = cli_open_store(ctx, STORE_READ_ONLY)))
		return rc;
	if (json)
		lc.array = json_object_new_array();
	if (blob_each(ctx->blobs, ls_cb, &lc, &err))
		rc = cli_fail(&err);
	if (json) {
		struct json_object *top = json_object_new_object();

		json_object_object_add(top, "version", json_object_new_int(JSON_SHAPE_VERSION));
		json_object_object_add(top, "blobs", lc.array);
		if (!rc)
			cli_print_json(top);
		json_object_put(top);
	}
	buf_release(&lc.first_name);
	return rc;
}

static enum bb_status show_name_cb(void *p, const struct blob_name *n)
{
	char when[32];

	(void)p;
	printf("  %-20s %s%s%s%s%s  (%s)\n", cli_safe(n->origin), *n->name ? cli_safe(n->name) : "-",
	       *n->origin_ref ? "  ref=" : "", cli_safe(n->origin_ref),
	       *n->declared_type ? "  declared=" : "", cli_safe(n->declared_type),
	       format_time(n->added, when, sizeof(when)));
	return BB_OK;
}

static enum bb_status show_ref_cb(void *p, const struct blob_ref *r)
{
	char when[32];

	(void)p;
	printf("  %-20s %s  (%s)\n", cli_safe(r->kind), *r->ref ? cli_safe(r->ref) : "-",
	       format_time(r->created, when, sizeof(when)));
	return BB_OK;
}

static enum bb_status show_member_cb(void *p, const struct inspect_member *m)
{
	char size[24];

	(void)p;
	format_size(m->size, size, sizeof(size));
	printf("  %-8s %10s  %s  %s%s%s\n", cli_safe(m->kind), size, m->hash ? m->hash : "-",
	       cli_safe(m->path), m->note ? "  # " : "", m->note ? cli_safe(m->note) : "");
	return BB_OK;
}

static int blob_show(struct cli_context *ctx, int argc, char **argv)
{
	struct bb_error err = BB_ERROR_INIT;
	struct blob_info info;
	char hex[BLOB_HEX_LEN + 1], size[24], when[32];
	char *url, *path;
	int json, first, rc;

	if ((rc = json_flag_only(argc, argv, usage_show, &json, &first)))
		return rc < 0 ? EX_OK : rc;
	if (first != argc - 1)
		return cli_usage(stderr, usage_show);
	if ((rc = parse_hash_arg(ctx, argv[first], hex, STORE_READ_ONLY)))
		return rc;
	if ((rc = cli_open_store(ctx, STORE_READ_ONLY)))
		return rc;
	if (blob_lookup(ctx->blobs, hex, &info, &err))
		return cli_fail(&err);
	if (json) {
		struct json_object *top = json_object_new_object();

		json_object_object_add(top, "version", json_object_new_int(JSON_SHAPE_VERSION));
		json_object_object_add(top, "blob", blob_json(ctx, &info, 1));
		cli_print_json(top);
		json_object_put(top);
		return EX_OK;
	}
	url = blob_url(ctx->blobs, hex, NULL);
	path = blob_path(ctx->blobs, hex);
	format_size(info.size, size, sizeof(size));
	printf("hash:          sha256:%s\n", hex);
	printf("size:          %llu (%s)\n", (unsigned long long)info.size, size);
	printf("content type:  %s\n", cli_safe(info.content_type));
	printf("first stored:  %s\n", format_time(info.first_seen, when, sizeof(when)));
	printf("last stored:   %s\n", format_time(info.last_seen, when, sizeof(when)));
	printf("url:           %s\n", url ? url : "");
	printf("file:          %s\n", path ? path : "");
	free(url);
	free(path);
	printf("names:\n");
	blob_each_name(ctx->blobs, hex, show_name_cb, NULL, NULL);
	printf("references:\n");
	blob_each_ref(ctx->blobs, hex, show_ref_cb, NULL, NULL);
	if (info.archive_status != INSPECT_NOT_ARCHIVE) {
		printf("archive:       %s, %s%s%s\n", cli_safe(info.archive_format),
		       inspect_status_str(info.archive_status),
		       info.archive_note[0] ? ": " : "", cli_safe(info.archive_note));
		printf("members:\n");
		blob_each_member(ctx->blobs, hex, show_member_cb, NULL, NULL);
	}
	return EX_OK;
}

/* --------------------------------------------------------------- verify */

struct hash_list {
	char (*hashes)[BLOB_HEX_LEN + 1];
	size_t n, alloc;
	uint64_t bytes;
};

static enum bb_status collect_cb(void *p, const struct blob_info *info)
{
	struct hash_list *l = p;

	if (l->n == l->alloc) {
		size_t alloc = l->alloc ? l->alloc * 2 : 64;
		void *np = realloc(l->hashes, alloc * sizeof(*l->hashes));

		if (!np)
			return BB_ERR_NOMEM;
		l->hashes = np;
		l->alloc = alloc;
	}
	memcpy(l->hashes[l->n++], info->hash, BLOB_HEX_LEN + 1);
	l->bytes += info->size;
	return BB_OK;
}

struct verify_progress {
	struct cli_progress *bar;
	uint64_t before;
};

static void verify_progress_cb(void *p, uint64_t done, uint64_t total)
{
	struct verify_progress *vp = p;

	(void)total;
	cli_progress_update(vp->bar, vp->before + done, 0);
}

int cli_verify_blobs(struct cli_context *ctx, char **hashes, int nhashes,
		     struct json_object *results, int print_good, size_t *checked, size_t *bad)
{
	struct bb_error err = BB_ERROR_INIT;
	struct hash_list list = { NULL, 0, 0, 0 };
	struct verify_progress vp = { NULL, 0 };
	int rc = EX_OK;

	*checked = *bad = 0;
	for (int i = 0; i < nhashes; i++) {
		struct blob_info fake;

		if ((rc = parse_hash_arg(ctx, hashes[i], fake.hash, STORE_READ_ONLY)))
			goto out;
		fake.size = 0;
		collect_cb(&list, &fake);
	}
	if ((rc = cli_open_store(ctx, STORE_READ_ONLY)))
		goto out;
	if (!nhashes && blob_each(ctx->blobs, collect_cb, &list, &err)) {
		rc = cli_fail(&err);
		goto out;
	}
	vp.bar = cli_progress_start("verifying", list.bytes, ctx->quiet || list.bytes < (64 << 20));
	for (size_t i = 0; i < list.n; i++) {
		enum blob_check result;
		struct blob_info info;

		if (blob_verify(ctx->blobs, list.hashes[i], &result, verify_progress_cb, &vp, &err)) {
			cli_progress_done(vp.bar);
			vp.bar = NULL;
			rc = cli_fail(&err);
			goto out;
		}
		if (!blob_lookup(ctx->blobs, list.hashes[i], &info, NULL))
			vp.before += info.size;
		if (result != BLOB_CHECK_OK)
			(*bad)++;
		if (results) {
			struct json_object *o = json_object_new_object();

			json_object_object_add(o, "hash", json_object_new_string(list.hashes[i]));
			json_object_object_add(o, "result",
					       json_object_new_string(blob_check_str(result)));
			json_object_array_add(results, o);
		} else if (result != BLOB_CHECK_OK || print_good) {
			if (vp.bar && result != BLOB_CHECK_OK)
				fputc('\n', stderr);
			printf("sha256:%s %s\n", list.hashes[i], blob_check_str(result));
		}
	}
	cli_progress_done(vp.bar);
	*checked = list.n;
out:
	free(list.hashes);
	return rc;
}

static int blob_verify_cmd(struct cli_context *ctx, int argc, char **argv)
{
	struct json_object *results = NULL;
	size_t checked, bad;
	int json, first, rc;

	if ((rc = json_flag_only(argc, argv, usage_verify, &json, &first)))
		return rc < 0 ? EX_OK : rc;
	if (json)
		results = json_object_new_array();
	rc = cli_verify_blobs(ctx, argv + first, argc - first, results, !ctx->quiet, &checked, &bad);
	if (rc) {
		json_object_put(results);
		return rc;
	}
	if (json) {
		struct json_object *top = json_object_new_object();

		json_object_object_add(top, "version", json_object_new_int(JSON_SHAPE_VERSION));
		json_object_object_add(top, "checked", json_object_new_uint64(checked));
		json_object_object_add(top, "bad", json_object_new_uint64(bad));
		json_object_object_add(top, "results", results);
		cli_print_json(top);
		json_object_put(top);
	} else if (!ctx->quiet) {
		fprintf(stderr, "bugbridge: %zu blob%s checked, %zu bad\n", checked,
			checked == 1 ? "" : "s", bad);
	}
	return bad ? EX_DATAERR : EX_OK;
}

/* ------------------------------------------------------------------- gc */

struct gc_print {
	struct json_object *items;
	int dry_run;
};

static void gc_item_cb(void *p, const struct blob_gc_item *item)
{
	struct gc_print *gp = p;
	char size[24];

	if (gp->items) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "hash", item->hash ? json_object_new_string(item->hash) : NULL);
		json_object_object_add(o, "path", json_object_new_string(item->path));
		json_object_object_add(o, "size", json_object_new_uint64(item->size));
		json_object_object_add(o, "reason", json_object_new_string(item->reason));
		json_object_array_add(gp->items, o);
		return;
	}
	format_size(item->size, size, sizeof(size));
	printf("%s %s%s  %s  (%s)\n", gp->dry_run ? "would remove" : "removed",
	       item->hash ? "sha256:" : "", item->hash ? item->hash : cli_safe(item->path), size,
	       item->reason);
}

static int blob_gc_cmd(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "yes", no_argument, NULL, 'y' },
		{ "grace", required_argument, NULL, 'g' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bb_error err = BB_ERROR_INIT;
	struct blob_gc_stats stats;
	struct gc_print gp = { NULL, 1 };
	long long grace = -1;
	int opt, json = 0, rc;

	while ((opt = getopt_long(argc, argv, "yg:jh", options, NULL)) != -1) {
		switch (opt) {
		case 'y': gp.dry_run = 0; break;
		case 'g':
			if (parse_duration(optarg, &grace) != 0) {
				cli_error("--grace: \"%s\" is not a duration (like 0, 12h, 30d)", optarg);
				return EX_USAGE;
			}
			break;
		case 'j': json = 1; break;
		case 'h': return cli_usage(stdout, usage_gc);
		default: return cli_usage(stderr, usage_gc);
		}
	}
	if (optind != argc)
		return cli_usage(stderr, usage_gc);
	if (grace < 0)
		grace = ctx->cfg->gc_grace;
	if ((rc = cli_open_store(ctx, STORE_READ_WRITE)))
		return rc;
	if (json)
		gp.items = json_object_new_array();
	if (blob_gc(ctx->blobs, time(NULL), grace, gp.dry_run, gc_item_cb, &gp, &stats, &err)) {
		json_object_put(gp.items);
		return cli_fail(&err);
	}
	if (json) {
		struct json_object *top = json_object_new_object();

		json_object_object_add(top, "version", json_object_new_int(JSON_SHAPE_VERSION));
		json_object_object_add(top, "dry_run", json_object_new_boolean(gp.dry_run));
		json_object_object_add(top, "removed", json_object_new_uint64(stats.blobs));
		json_object_object_add(top, "bytes", json_object_new_uint64(stats.bytes));
		json_object_object_add(top, "kept_referenced",
				       json_object_new_uint64(stats.kept_referenced));
		json_object_object_add(top, "kept_recent", json_object_new_uint64(stats.kept_recent));
		json_object_object_add(top, "items", gp.items);
		cli_print_json(top);
		json_object_put(top);
	} else if (!ctx->quiet) {
		char size[24];

		format_size(stats.bytes, size, sizeof(size));
		fprintf(stderr, "bugbridge: %s %llu item%s (%s); kept %llu referenced, %llu within the grace period%s\n",
			gp.dry_run ? "would remove" : "removed", (unsigned long long)stats.blobs,
			stats.blobs == 1 ? "" : "s", size,
			(unsigned long long)stats.kept_referenced, (unsigned long long)stats.kept_recent,
			gp.dry_run && stats.blobs ? "; run with --yes to remove" : "");
	}
	return EX_OK;
}

/* ---------------------------------------------------------------- pin */

static int blob_pin(struct cli_context *ctx, int argc, char **argv, int pin)
{
	struct bb_error err = BB_ERROR_INIT;
	char hex[BLOB_HEX_LEN + 1];
	int rc;

	if (argc != 2 || argv[1][0] == '-')
		return cli_usage(argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr, usage_pin);
	if ((rc = cli_open_store(ctx, STORE_READ_WRITE)) ||
	    (rc = parse_hash_arg(ctx, argv[1], hex, STORE_READ_WRITE)))
		return rc;
	if (pin ? blob_add_ref(ctx->blobs, hex, "pin", "", &err)
		: blob_remove_ref(ctx->blobs, hex, "pin", "", &err))
		return cli_fail(&err);
	return EX_OK;
}

int cmd_blob(struct cli_context *ctx, int argc, char **argv)
{
	const char *sub;

	if (argc < 2)
		return cli_usage(stderr, usage_blob);
	sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help") || !strcmp(sub, "help"))
		return cli_usage(stdout, usage_blob);
	argc--;
	argv++;
	optind = 0;
	{
		/* getopt names the program by argv[0] in its messages */
		static char prog[64];

		snprintf(prog, sizeof(prog), "bugbridge blob %s", sub);
		argv[0] = prog;
	}
	if (!ctx->cfg && !wants_help(argc, argv)) {
		cli_error("internal error: configuration not loaded");
		return EX_SOFTWARE;
	}
	if (!strcmp(sub, "put"))
		return blob_put(ctx, argc, argv);
	if (!strcmp(sub, "get"))
		return blob_get(ctx, argc, argv);
	if (!strcmp(sub, "ls") || !strcmp(sub, "list"))
		return blob_ls(ctx, argc, argv);
	if (!strcmp(sub, "show"))
		return blob_show(ctx, argc, argv);
	if (!strcmp(sub, "verify"))
		return blob_verify_cmd(ctx, argc, argv);
	if (!strcmp(sub, "gc"))
		return blob_gc_cmd(ctx, argc, argv);
	if (!strcmp(sub, "pin") || !strcmp(sub, "unpin"))
		return blob_pin(ctx, argc, argv, !strcmp(sub, "pin"));
	cli_error("no such blob subcommand: %s", sub);
	return cli_usage(stderr, usage_blob);
}
