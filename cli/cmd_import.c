/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge import: a whole Bugzilla (REST or XML exports) into the store. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/cli.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "migrate/import.h"

static const char usage[] =
	"usage: bugbridge import [--from URL | --from-xml FILE|DIR] [options]\n"
	"\n"
	"Imports every bug with its comments (private ones stay marked private),\n"
	"attachments (into the blob store, checked against the size Bugzilla\n"
	"reports), history, CC list, keywords, flags and custom fields.  An\n"
	"interrupted import resumes where it stopped; importing again writes only\n"
	"what changed since.  Ends with a summary and every item skipped, with\n"
	"the reason.\n"
	"\n"
	"  --from URL             a Bugzilla over REST (default: [bugzilla] url)\n"
	"  --from-xml PATH        show_bug.cgi?ctype=xml exports: a file, or a folder\n"
	"                         whose *.xml files are read in name order\n"
	"  --api-key-file FILE    the API key for private data (else $BUGBRIDGE_API_KEY,\n"
	"                         else [bugzilla] api_key when URL is the configured one;\n"
	"                         without a key only public data is imported)\n"
	"  --batch N              bugs per request and transaction (default 100)\n"
	"  --max-attachment-size SIZE  skip larger attachments (default:\n"
	"                         [bugzilla] attachment_max_size)\n"
	"  --include-private      keep the bytes of private attachments and of\n"
	"                         attachments of bugs in groups, in the private store\n"
	"                         <data_dir>/private-blobs that nothing serves; without\n"
	"                         it only their SHA-256 is recorded.  They never go\n"
	"                         into the served blob store; ones an older import put\n"
	"                         there are moved out\n"
	"  --json                 print the summary as JSON (shape version 1)\n";

/* ------------------------------------------------------------ progress */

struct progress {
	const char *unit;
	int tty, quiet, drawn;
	struct timespec start, last;
	unsigned long long first;   /* progress_done when this run began */
	const struct import_stats *st;
};

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void progress_draw(struct progress *p, const struct import_stats *st, int final)
{
	unsigned long long done = st->progress_done, total = st->progress_total;
	double elapsed = since(&p->start);
	double rate = elapsed > 0 ? (double)st->bugs_seen / elapsed : 0;
	double unit_rate = elapsed > 0 && done > p->first ? (double)(done - p->first) / elapsed : 0;
	char eta[32] = "";
	int pct = total ? (int)(done * 100 / total) : 0;

	if (!final && total && unit_rate > 0 && done < total) {
		unsigned long left = (unsigned long)((double)(total - done) / unit_rate);

		snprintf(eta, sizeof(eta), ", ETA %lu:%02lu", left / 60, left % 60);
	}
	if (p->tty) {
		char bar[25];
		int filled = total ? (int)(24 * done / total) : 0;

		for (int i = 0; i < 24; i++)
			bar[i] = i < filled ? '#' : '.';
		bar[24] = '\0';
		fprintf(stderr, "\rimport [%s] %3d%% %llu/%llu %s, %lu bugs (%.0f bugs/s%s)\033[K",
			bar, pct, done, total, p->unit, st->bugs_seen, rate, eta);
		if (final)
			fputc('\n', stderr);
	} else {
		fprintf(stderr, "bugbridge: import: %llu/%llu %s (%d%%), %lu bugs read, "
			"%lu written, %.0f bugs/s%s\n", done, total, p->unit, pct, st->bugs_seen,
			st->bugs_written, rate, eta);
	}
	p->drawn = 1;
	fflush(stderr);
}

static void progress_cb(void *ctx, const struct import_stats *st)
{
	struct progress *p = ctx;

	p->st = st;
	if (p->quiet)
		return;
	if (!p->drawn && !p->first && st->progress_done)
		p->first = st->progress_done;
	if (p->drawn && since(&p->last) < (p->tty ? 0.2 : 5.0))
		return;
	clock_gettime(CLOCK_MONOTONIC, &p->last);
	progress_draw(p, st, 0);
}

/* ------------------------------------------------------------- summary */

struct skip_list {
	unsigned long n;
	json_object *json;
};

static enum bb_status print_skip(void *ctx, const struct import_skip *k)
{
	struct skip_list *l = ctx;

	l->n++;
	if (l->json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "source", json_object_new_string(k->source));
		json_object_object_add(o, "bug", json_object_new_int64(k->bug_id));
		json_object_object_add(o, "what", json_object_new_string(k->what));
		json_object_object_add(o, "ref", json_object_new_string(k->ref));
		json_object_object_add(o, "reason", json_object_new_string(k->reason));
		json_object_array_add(l->json, o);
		return BB_OK;
	}
	if (l->n <= 50) {
		if (!strcmp(k->what, "file"))
			printf("  skipped file %s: %s\n", k->ref, k->reason);
		else if (!strcmp(k->what, "bug"))
			printf("  skipped bug %s: %s\n", k->ref, k->reason);
		else
			printf("  skipped %s %s of bug %lld: %s\n", k->what, k->ref, k->bug_id,
			       k->reason);
	}
	return BB_OK;
}

static void summary(struct cli_context *ctx, const char *source, const char *skip_source,
		    const struct import_stats *st, int json, double seconds, enum bb_status s)
{
	struct bb_error err = BB_ERROR_INIT;
	struct skip_list skips = { 0, NULL };

	if (json) {
		json_object *o = json_object_new_object();

		skips.json = json_object_new_array();
		if (skip_source)
			import_each_skip(ctx->db, skip_source, print_skip, &skips, &err);
		json_object_object_add(o, "version", json_object_new_int(1));
		json_object_object_add(o, "source", json_object_new_string(source));
		json_object_object_add(o, "complete", json_object_new_boolean(s == BB_OK));
		json_object_object_add(o, "resumed", json_object_new_boolean(st->resumed));
		json_object_object_add(o, "incremental", json_object_new_boolean(st->incremental));
		json_object_object_add(o, "bugs_read", json_object_new_int64((int64_t)st->bugs_seen));
		json_object_object_add(o, "bugs_written",
				       json_object_new_int64((int64_t)st->bugs_written));
		json_object_object_add(o, "bugs_unchanged",
				       json_object_new_int64((int64_t)st->bugs_unchanged));
		json_object_object_add(o, "comments", json_object_new_int64((int64_t)st->comments));
		json_object_object_add(o, "private_comments",
				       json_object_new_int64((int64_t)st->private_comments));
		json_object_object_add(o, "attachments",
				       json_object_new_int64((int64_t)st->attachments));
		json_object_object_add(o, "attachments_stored",
				       json_object_new_int64((int64_t)st->attachments_stored));
		json_object_object_add(o, "attachments_private",
				       json_object_new_int64((int64_t)st->attachments_private));
		json_object_object_add(o, "attachments_hash_only",
				       json_object_new_int64((int64_t)st->attachments_hash_only));
		json_object_object_add(o, "blobs_unpublished",
				       json_object_new_int64((int64_t)st->blobs_unpublished));
		json_object_object_add(o, "history", json_object_new_int64((int64_t)st->history));
		json_object_object_add(o, "files", json_object_new_int64((int64_t)st->files));
		json_object_object_add(o, "skipped_now", json_object_new_int64((int64_t)st->skipped));
		json_object_object_add(o, "seconds", json_object_new_double(seconds));
		json_object_object_add(o, "skipped", skips.json);
		cli_print_json(o);
		json_object_put(o);
		return;
	}
	printf("import from %s%s%s:\n", source, st->resumed ? " (resumed)" : "",
	       st->incremental ? " (changes only)" : "");
	printf("  bugs: %lu read, %lu written, %lu unchanged", st->bugs_seen, st->bugs_written,
	       st->bugs_unchanged);
	if (st->files)
		printf(" (%lu file%s)", st->files, st->files == 1 ? "" : "s");
	printf("\n  comments: %lu (%lu private)\n", st->comments, st->private_comments);
	printf("  attachments: %lu (%lu stored in the blob store now)\n", st->attachments,
	       st->attachments_stored);
	if (st->attachments_private || st->attachments_hash_only || st->blobs_unpublished)
		printf("  private attachments: %lu kept in the private store, %lu hashed only, "
		       "%lu blobs moved out of the served store\n", st->attachments_private,
		       st->attachments_hash_only, st->blobs_unpublished);
	if (!st->files)
		printf("  history changes: %lu\n", st->history);
	printf("  time: %.1f s (%.0f bugs/s)\n", seconds,
	       seconds > 0 ? (double)st->bugs_seen / seconds : 0.0);
	if (skip_source)
		import_each_skip(ctx->db, skip_source, print_skip, &skips, &err);
	printf("  skipped: %lu (%lu new this run)\n", skips.n, st->skipped);
	if (skips.n > 50)
		printf("  ... and %lu more (table imp_skip)\n", skips.n - 50);
}

/* -------------------------------------------------------------- command */

static char *read_key_file(const char *path, struct bb_error *err)
{
	FILE *f = fopen(path, "r");
	char line[512], *p;

	if (!f) {
		bb_error_errno(err, errno, "cannot read %s", path);
		return NULL;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	p = line + strcspn(line, "\r\n");
	*p = '\0';
	return strdup(line);
}

int cmd_import(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "from-xml", required_argument, NULL, 'x' },
		{ "api-key-file", required_argument, NULL, 'k' },
		{ "batch", required_argument, NULL, 'b' },
		{ "max-attachment-size", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "include-private", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bb_error err = BB_ERROR_INIT;
	struct import_options opt;
	struct import_stats st;
	struct progress prog;
	struct bz_client *bz = NULL;
	struct blob_store *private_blobs = NULL;
	struct store *private_db = NULL;
	const char *url = NULL, *xml = NULL, *key_file = NULL;
	char *key = NULL, *skip_source = NULL, *source = NULL;
	unsigned long long size;
	struct timespec t0;
	enum bb_status s;
	int opt_c, json = 0, rc;

	int max_given = 0;

	memset(&opt, 0, sizeof(opt));
	optind = 1;
	while ((opt_c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt_c) {
		case 'f': url = optarg; break;
		case 'x': xml = optarg; break;
		case 'k': key_file = optarg; break;
		case 'j': json = 1; break;
		case 'p': opt.include_private = 1; break;
		case 'b':
			if (parse_size(optarg, &size) || !size || size > 10000) {
				cli_error("--batch: \"%s\" is not a number from 1 to 10000", optarg);
				return EX_USAGE;
			}
			opt.batch = (unsigned)size;
			break;
		case 'm':
			if (parse_size(optarg, &size)) {
				cli_error("--max-attachment-size: \"%s\" is not a size", optarg);
				return EX_USAGE;
			}
			opt.attachment_max_size = size;
			max_given = 1;
			break;
		case 'h': return cli_usage(stdout, usage);
		default: return cli_usage(stderr, usage);
		}
	}
	if (!max_given)
		opt.attachment_max_size = ctx->cfg->bz_attachment_max_size;
	if (optind < argc || (url && xml)) {
		cli_error("give one of --from URL and --from-xml PATH");
		return cli_usage(stderr, usage);
	}
	if (!url && !xml)
		url = ctx->cfg->bz_url;
	if (!url && !xml) {
		cli_error("nothing to import from: give --from URL or --from-xml PATH "
			  "(or set [bugzilla] url)");
		return EX_USAGE;
	}
	if ((rc = cli_open_private_blobs(ctx, &private_blobs, &private_db)))
		return rc;
	opt.private_blobs = private_blobs;
	memset(&prog, 0, sizeof(prog));
	prog.unit = xml ? "files" : "bug ids";
	prog.tty = isatty(STDERR_FILENO);
	prog.quiet = ctx->quiet;
	clock_gettime(CLOCK_MONOTONIC, &prog.start);
	opt.progress = progress_cb;
	opt.progress_ctx = &prog;
	t0 = prog.start;

	if (xml) {
		source = strdup(xml);
		skip_source = import_xml_source(xml);
		s = import_xml(ctx->db, ctx->blobs, xml, &opt, &st, &err);
	} else {
		struct bz_client_options o;
		size_t len = strlen(url);

		source = strdup(url);
		while (source && len > 1 && source[len - 1] == '/')
			source[--len] = '\0';
		if (key_file) {
			if (!(key = read_key_file(key_file, &err))) {
				rc = cli_fail(&err);
				goto out;
			}
		} else if (getenv("BUGBRIDGE_API_KEY") && *getenv("BUGBRIDGE_API_KEY")) {
			key = strdup(getenv("BUGBRIDGE_API_KEY"));
		} else if (ctx->cfg->bz_url && source && !strcmp(ctx->cfg->bz_url, source)) {
			/* the configured Bugzilla: its key, read only now */
			if ((rc = cli_read_secrets(ctx)))
				goto out;
			if (ctx->cfg->bz_api_key)
				key = strdup(ctx->cfg->bz_api_key);
		}
		memset(&o, 0, sizeof(o));
		o.url = source;
		o.api_key = key;
		o.key_in_header = ctx->cfg->bz_key_in_header;
		o.ca_file = ctx->cfg->bz_ca_file;
		o.proxy = ctx->cfg->bz_proxy;
		o.timeout = (long)ctx->cfg->bz_timeout;
		o.page_size = opt.batch ? opt.batch : 100;
		if (!source) {
			bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
			rc = cli_fail(&err);
			goto out;
		}
		if (bz_client_new(&bz, &o, &err)) {
			rc = cli_fail(&err);
			goto out;
		}
		skip_source = strdup(source);
		s = import_rest(ctx->db, ctx->blobs, bz, source, &opt, &st, &err);
	}
	if (prog.drawn || (!ctx->quiet && !s))
		progress_draw(&prog, &st, 1);
	if (!ctx->quiet || json)
		summary(ctx, source ? source : "", skip_source, &st, json, since(&t0), s);
	if (bz && !ctx->quiet && !json)
		printf("  requests: %lu\n", bz_client_requests(bz));
	if (s) {
		rc = cli_fail(&err);
		if (rc == EX_TEMPFAIL || s == BB_ERR_NOT_FOUND || s == BB_ERR_AUTH)
			cli_error("what was imported is kept; the same command resumes");
		goto out;
	}
	rc = EX_OK;
out:
	bz_client_free(bz);
	blob_private_close(private_blobs, private_db);
	if (key) {
		memset(key, 0, strlen(key));
		free(key);
	}
	free(skip_source);
	free(source);
	return rc;
}
