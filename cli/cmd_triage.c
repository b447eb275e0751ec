/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge triage: what a report's text says and whose bug it is, without
 * sending anything (triage/reader.h, triage/match.h). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bugzilla/bz_client.h"
#include "cli/cli.h"
#include "core/buf.h"
#include "core/log.h"
#include "mail/maintainers.h"
#include "tracker/locate.h"
#include "tracker/samecrash.h"
#include "triage/index.h"
#include "triage/match.h"
#include "triage/reader.h"

static const char usage[] =
	"usage: bugbridge triage [--json] [--maintainers PATH] [--max N] [--no-tree]\n"
	"                        [--index PATH] FILE|-|--bug N\n"
	"\n"
	"Reads a bug report (a kernel log, a description, an attachment; - for\n"
	"standard input) and prints what it says: the kernel version and whether\n"
	"it is a distribution build, the oopses, warnings and panics with their\n"
	"taint flags, RIP/pc and call trace, the machine, firmware files, PCI and\n"
	"USB ids, source paths and drivers; then the MAINTAINERS sections it\n"
	"points at, best first, each with the report line and pattern that\n"
	"matched.  MAINTAINERS is --maintainers, else [routing] maintainers_file\n"
	"of the configuration if one loads; without it, only the findings are\n"
	"printed.  When the configuration watches git trees ([tree NAME]), the\n"
	"first one whose `git grep` works tells where the report's symbols are\n"
	"defined and where its modules are built (Kbuild's obj-... += name.o),\n"
	"and those files count as paths.  Without a tree, the kernel index of\n"
	"`bugbridge triage-index build` (--index, else " TRI_INDEX_FILE " in the\n"
	"data folder) tells the same.  Each section says why it was chosen (why:,\n"
	"then the other clues that counted, and:): which report line named which\n"
	"file, function or module, where that is defined or built, and the\n"
	"pattern that matched.  Each crash gets a signature (its kind and guilty\n"
	"frame, as syzbot titles it); with a configuration whose database has\n"
	"them, the open bugs and tracked regressions of the same crash are named.\n"
	"Nothing is sent or stored.\n"
	"\n"
	"  --bug N          read bug N from [bugzilla] url with the configured key:\n"
	"                   its description, every comment and text attachment\n"
	"                   the key may see, private ones included (for the admin's\n"
	"                   eyes: nothing is sent or posted)\n"
	"  --index PATH     locate symbols and modules with this kernel index\n"
	"                   (bugbridge triage-index build), even with a tree\n"
	"  --json           one JSON object (\"version\": 1)\n"
	"  --maintainers P  the MAINTAINERS file to rank sections from\n"
	"  --max N          at most N sections (default 5)\n"
	"  --no-tree        ask neither the watched git trees nor the kernel index:\n"
	"                   symbols and modules are matched by their names only\n";

static int read_input(const char *name, char **text, size_t *len)
{
	FILE *f = strcmp(name, "-") ? fopen(name, "rb") : stdin;
	struct buf b = BUF_INIT;
	char chunk[65536];
	size_t n;
	int rc = EX_OK;

	if (!f) {
		cli_error("cannot open %s: %s", name, strerror(errno));
		return EX_NOINPUT;
	}
	/* the reader looks at TRI_MAX_INPUT bytes; reading one more tells it
	 * the text was longer */
	while (b.len <= TRI_MAX_INPUT && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (buf_add(&b, chunk, n)) {
			cli_error("out of memory");
			rc = EX_OSERR;
			break;
		}
	if (ferror(f)) {
		cli_error("cannot read %s", name);
		rc = EX_IOERR;
	}
	if (f != stdin)
		fclose(f);
	*text = buf_detach(&b, len);
	return rc;
}

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *json_report(const struct tri_report *r)
{
	struct json_object *top = json_object_new_object(), *k = json_object_new_object();
	struct json_object *a, *t;
	char letters[32];

	json_object_object_add(k, "version", jstr(r->kernel.version));
	json_object_object_add(k, "kind", json_object_new_string(tri_kernel_kind_str(r->kernel.kind)));
	json_object_object_add(k, "upstream", jstr(r->kernel.upstream));
	json_object_object_add(k, "distribution", jstr(r->kernel.distro));
	json_object_object_add(k, "line", json_object_new_int64((int64_t)r->kernel.line));
	json_object_object_add(top, "kernel", k);
	json_object_object_add(top, "hardware", jstr(r->hardware));
	t = json_object_new_array();
	for (size_t i = 0; TRI_TAINT_LETTERS[i]; i++)
		if (r->taint_flags & (1u << i)) {
			struct json_object *o = json_object_new_object();
			char letter[2] = { TRI_TAINT_LETTERS[i], 0 };

			json_object_object_add(o, "flag", json_object_new_string(letter));
			json_object_object_add(o, "meaning", jstr(tri_taint_meaning(letter[0])));
			json_object_array_add(t, o);
		}
	json_object_object_add(top, "taint", t);
	json_object_object_add(top, "taint_letters",
			       json_object_new_string(tri_taint_letters(r->taint_flags, letters)));
	a = json_object_new_array();
	for (size_t i = 0; i < r->noopses; i++) {
		const struct tri_oops *o = &r->oopses[i];
		struct json_object *jo = json_object_new_object(), *frames = json_object_new_array();

		json_object_object_add(jo, "kind", json_object_new_string(tri_oops_kind_str(o->kind)));
		json_object_object_add(jo, "first_line", jstr(o->first_line));
		json_object_object_add(jo, "line", json_object_new_int64((int64_t)o->line));
		json_object_object_add(jo, "taint", jstr(o->taint));
		json_object_object_add(jo, "comm", jstr(o->comm));
		json_object_object_add(jo, "pc_symbol", jstr(o->pc_symbol));
		json_object_object_add(jo, "pc_module", jstr(o->pc_module));
		json_object_object_add(jo, "lr_symbol", jstr(o->lr_symbol));
		json_object_object_add(jo, "path", jstr(o->path));
		json_object_object_add(jo, "panic", jstr(o->panic));
		for (size_t j = 0; j < o->nframes; j++) {
			struct json_object *f = json_object_new_object();

			json_object_object_add(f, "symbol", jstr(o->frames[j].symbol));
			json_object_object_add(f, "module", jstr(o->frames[j].module));
			json_object_object_add(f, "path", jstr(o->frames[j].path));
			json_object_object_add(f, "unreliable",
					       json_object_new_boolean(o->frames[j].unreliable));
			json_object_array_add(frames, f);
		}
		json_object_object_add(jo, "frames", frames);
		json_object_array_add(a, jo);
	}
	json_object_object_add(top, "oopses", a);
	a = json_object_new_array();
	for (size_t i = 0; i < r->nmodules; i++)
		json_object_array_add(a, json_object_new_string(r->modules[i]));
	json_object_object_add(top, "modules", a);
	a = json_object_new_array();
	for (size_t i = 0; i < r->nfirmware; i++) {
		const struct tri_firmware *f = &r->firmware[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "file", jstr(f->file));
		json_object_object_add(o, "version", jstr(f->version));
		json_object_object_add(o, "driver", jstr(f->driver));
		json_object_object_add(o, "failed", json_object_new_boolean(f->failed));
		json_object_object_add(o, "error", f->error ? json_object_new_int(f->error) : NULL);
		json_object_object_add(o, "line", json_object_new_int64((int64_t)f->line));
		json_object_array_add(a, o);
	}
	json_object_object_add(top, "firmware", a);
	a = json_object_new_array();
	for (size_t i = 0; i < r->ndevices; i++) {
		char id[16];

		snprintf(id, sizeof(id), "%04x:%04x", r->devices[i].vendor, r->devices[i].device);
		t = json_object_new_object();
		json_object_object_add(t, "bus", json_object_new_string(
					       r->devices[i].bus == TRI_BUS_USB ? "usb" : "pci"));
		json_object_object_add(t, "id", json_object_new_string(id));
		json_object_array_add(a, t);
	}
	json_object_object_add(top, "devices", a);
	a = json_object_new_array();
	for (size_t i = 0; i < r->npaths; i++)
		json_object_array_add(a, json_object_new_string(r->paths[i].path));
	json_object_object_add(top, "paths", a);
	a = json_object_new_array();
	for (size_t i = 0; i < r->ndrivers; i++)
		json_object_array_add(a, json_object_new_string(r->drivers[i].name));
	json_object_object_add(top, "drivers", a);
	return top;
}

static void print_report(const struct tri_report *r)
{
	if (r->kernel.version) {
		printf("kernel: %s (%s", r->kernel.version, tri_kernel_kind_str(r->kernel.kind));
		if (r->kernel.distro)
			printf(", %s", r->kernel.distro);
		if (r->kernel.upstream)
			printf(", based on %s", r->kernel.upstream);
		printf("; line %zu)\n", r->kernel.line);
		if (r->kernel.kind == TRI_KERNEL_DISTRO)
			printf("  note: a distribution kernel; ask for a report on a mainline or stable build\n");
	} else {
		printf("kernel: not found\n");
	}
	if (r->hardware)
		printf("machine: %s\n", r->hardware);
	if (r->taint_flags) {
		char letters[32];

		printf("tainted: %s\n", tri_taint_letters(r->taint_flags, letters));
		for (size_t i = 0; letters[i]; i++)
			printf("  %c: %s\n", letters[i], tri_taint_meaning(letters[i]));
	}
	for (size_t i = 0; i < r->noopses; i++) {
		const struct tri_oops *o = &r->oopses[i];
		size_t shown = 0;

		printf("%s (line %zu): %s\n", tri_oops_kind_str(o->kind), o->line, o->first_line);
		if (o->path)
			printf("  file: %s\n", o->path);
		if (o->pc_symbol)
			printf("  pc: %s%s%s%s\n", o->pc_symbol, o->pc_module ? " [" : "",
			       o->pc_module ? o->pc_module : "", o->pc_module ? "]" : "");
		if (o->comm)
			printf("  comm: %s\n", o->comm);
		if (o->nframes) {
			printf("  trace:");
			for (size_t j = 0; j < o->nframes && shown < 8; j++) {
				if (o->frames[j].unreliable)
					continue;
				printf("%s %s%s%s%s", shown ? "," : "", o->frames[j].symbol,
				       o->frames[j].module ? " [" : "",
				       o->frames[j].module ? o->frames[j].module : "",
				       o->frames[j].module ? "]" : "");
				shown++;
			}
			printf("\n");
		}
		if (o->panic)
			printf("  panic: %s\n", o->panic);
	}
	if (r->nmodules)
		printf("modules linked in: %zu (line %zu)\n", r->nmodules, r->modules_line);
	for (size_t i = 0; i < r->nfirmware; i++) {
		const struct tri_firmware *f = &r->firmware[i];

		printf("firmware (line %zu): %s%s%s%s", f->line, f->file ? f->file : "",
		       f->file && f->version ? " " : "", f->version ? "version " : "",
		       f->version ? f->version : "");
		if (f->failed)
			printf(f->error ? " failed (%d)" : " failed", f->error);
		if (f->driver)
			printf(" [%s]", f->driver);
		printf("\n");
	}
	for (size_t i = 0; i < r->ndevices; i++)
		printf("device: %s %04x:%04x (line %zu)\n", r->devices[i].bus == TRI_BUS_USB ? "usb" : "pci",
		       r->devices[i].vendor, r->devices[i].device, r->devices[i].line);
	for (size_t i = 0; i < r->npaths; i++)
		printf("path (line %zu): %s\n", r->paths[i].line, r->paths[i].path);
	if (r->ndrivers) {
		printf("drivers:");
		for (size_t i = 0; i < r->ndrivers; i++)
			printf(" %s", r->drivers[i].name);
		printf("\n");
	}
}

/* A text attachment's bytes, appended to a buf (bz_download_attachment). */
static enum bb_status to_buf(void *ctx, const void *data, size_t len)
{
	return buf_add(ctx, data, len);
}

/* Bug id's text as the key sees it: description, comments (private ones
 * too: this is the admin's local view) and text attachments up to 1 MiB
 * each.  *privates counts the private pieces read. */
static int read_bug(struct cli_context *ctx, const char *id_text, char **text, size_t *len,
		    size_t *privates)
{
	struct bz_client_options o;
	struct bz_client *bz = NULL;
	struct bz_bug *bugs = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct buf b = BUF_INIT;
	size_t n = 0;
	char *end;
	long long id;
	int rc = EX_OK;

	*privates = 0;
	errno = 0;
	id = strtoll(id_text, &end, 10);
	if (errno || *end || id <= 0) {
		cli_error("--bug wants a bug number, not %s", id_text);
		return EX_USAGE;
	}
	if (!ctx->cfg && config_load(&ctx->cfg, ctx->config_path, &err))
		return cli_fail(&err);
	if (!ctx->cfg->bz_url) {
		cli_error("--bug needs [bugzilla] url in the configuration");
		return EX_CONFIG;
	}
	if ((rc = cli_read_secrets(ctx)))
		return rc;
	cli_bz_options(ctx->cfg, &o);
	if (bz_client_new(&bz, &o, &err) || bz_search_page(bz, id - 1, 0, 1, &bugs, &n, &err) ||
	    (n && bugs[0].id == id &&
	     (bz_fetch_comments(bz, bugs, 1, 0, &err) || bz_fetch_attachments(bz, bugs, 1, &err)))) {
		rc = cli_fail(&err);
		goto out;
	}
	if (!n || bugs[0].id != id) {
		cli_error("bug %lld: not found, or not visible to the configured key", id);
		rc = EX_NOINPUT;
		goto out;
	}
	for (size_t i = 0; i < bugs[0].ncomments; i++) {
		*privates += bugs[0].comments[i].is_private != 0;
		buf_addstr(&b, bugs[0].comments[i].text ? bugs[0].comments[i].text : "");
		buf_addch(&b, '\n');
	}
	for (size_t i = 0; i < bugs[0].nattachments; i++) {
		const struct bz_attachment *a = &bugs[0].attachments[i];
		size_t before = b.len;
		uint64_t size = 0;

		if (!a->content_type || strncmp(a->content_type, "text/", 5) || a->is_obsolete)
			continue;
		if (bz_download_attachment(bz, a->id, 1u << 20, to_buf, &b, &size, &err)) {
			cli_warn("attachment %lld: %s (left out)", a->id, err.message);
			bb_error_clear(&err);
			buf_truncate(&b, before);
			continue;
		}
		*privates += a->is_private != 0;
		buf_addch(&b, '\n');
	}
	*text = buf_detach(&b, len);
out:
	for (size_t i = 0; i < n; i++)
		bz_bug_release(&bugs[i]);
	free(bugs);
	bz_client_free(bz);
	buf_release(&b);
	return rc;
}

/* The configuration if one loads (its absence is no error: the findings
 * are still worth printing); *owned is the caller's to free. */
/* Same crash, same bug: r's crash signatures and the open bugs and
 * tracked regressions of the data folder's database (read-only, when
 * cfg has one) with the same; bug self (0: none) aside.  Into top's new
 * keys "signatures" and "same_crash" (null without a database), or
 * printed when top is NULL. */
static void same_crash(const struct bb_config *cfg, const struct tri_report *r, const char *text,
		       size_t len, long long self, struct json_object *top)
{
	struct tri_signature *sigs;
	struct samecrash_hit *hits = NULL;
	size_t n = tri_signatures(r, text, len, &sigs), nh = 0;
	char *path = n && cfg ? config_data_path(cfg, "bugbridge.db") : NULL;
	struct store *db = NULL;
	struct json_object *js = json_object_new_array(), *jh = NULL;

	if (path && !access(path, R_OK) && !store_open(&db, path, STORE_READ_ONLY, NULL) &&
	    !samecrash_find(db, sigs, n, self, &hits, &nh, NULL))
		jh = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "title", json_object_new_string(sigs[i].title));
		json_object_object_add(o, "key", json_object_new_string(sigs[i].key));
		json_object_object_add(o, "frame", json_object_new_string(sigs[i].frame));
		json_object_object_add(o, "module", sigs[i].module ? json_object_new_string(
						    sigs[i].module) : NULL);
		json_object_object_add(o, "line", json_object_new_int64((int64_t)sigs[i].line));
		json_object_array_add(js, o);
		if (!top)
			printf("crash: %s\n", sigs[i].title);
		for (size_t k = 0; k < nh; k++) {
			char *what = hits[k].title == sigs[i].title ? samecrash_hit_text(&hits[k]) : NULL;

			if (what && !top)
				printf("  same crash as %s\n", what);
			free(what);
		}
	}
	for (size_t k = 0; k < nh; k++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "bug", json_object_new_int64(hits[k].bug));
		json_object_object_add(o, "regression", hits[k].regression
				       ? json_object_new_int64(hits[k].regression) : NULL);
		json_object_object_add(o, "signature", json_object_new_string(hits[k].title));
		json_object_array_add(jh, o);
	}
	if (top) {
		json_object_object_add(top, "signatures", js);
		json_object_object_add(top, "same_crash", jh);
	} else {
		json_object_put(js);
		json_object_put(jh);
	}
	store_close(db);
	free(path);
	free(hits);
	tri_signatures_free(sigs, n);
}

static const struct bb_config *optional_config(struct cli_context *ctx, struct bb_config **owned)
{
	struct bb_error err = BB_ERROR_INIT;

	*owned = NULL;
	if (ctx->cfg)
		return ctx->cfg;
	if (config_load(owned, ctx->config_path, &err) == BB_OK)
		return *owned;
	*owned = NULL;
	return NULL;
}

/* The MAINTAINERS path: --maintainers, else the configuration's. */
static char *maintainers_path(const struct bb_config *cfg, const char *given)
{
	if (given)
		return strdup(given);
	return cfg && cfg->maintainers_file ? strdup(cfg->maintainers_file) : NULL;
}

int cmd_triage(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "maintainers", required_argument, NULL, 'm' },
		{ "max", required_argument, NULL, 'n' },
		{ "bug", required_argument, NULL, 'b' },
		{ "no-tree", no_argument, NULL, 't' },
		{ "index", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, no_tree = 0, opt, rc;
	long max = 5;
	const char *given = NULL, *bug = NULL, *index_given = NULL;
	size_t privates = 0;
	char *text = NULL, *mpath = NULL, *end;
	size_t len = 0;
	struct tri_report *r = NULL;
	struct mnt_file *mf = NULL;
	struct tri_matcher *m = NULL;
	struct bb_config *owned_cfg = NULL;
	const struct bb_config *cfg;
	struct locate *loc = NULL;
	struct tri_index *ix = NULL;
	const struct tri_locator *locator = NULL;
	struct tri_ranking *rk = NULL;
	struct bb_error err = BB_ERROR_INIT;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case 'm': given = optarg; break;
		case 'b': bug = optarg; break;
		case 't': no_tree = 1; break;
		case 'i': index_given = optarg; break;
		case 'n':
			errno = 0;
			max = strtol(optarg, &end, 10);
			if (errno || *end || max < 1 || max > 100) {
				cli_error("--max wants a number from 1 to 100, not %s", optarg);
				return EX_USAGE;
			}
			break;
		case 'h': return cli_usage(stdout, usage);
		default: return cli_usage(stderr, usage);
		}
	}
	if (argc - optind != (bug ? 0 : 1))
		return cli_usage(stderr, usage);
	if ((rc = bug ? read_bug(ctx, bug, &text, &len, &privates)
		      : read_input(argv[optind], &text, &len)))
		goto out;
	if (privates)
		cli_warn("bug %s: %zu private comment%s or attachment%s read: this output is for "
			 "you only", bug, privates, privates == 1 ? "" : "s", privates == 1 ? "" : "s");
	r = tri_read(text, len);
	cfg = optional_config(ctx, &owned_cfg);
	mpath = maintainers_path(cfg, given);
	if (mpath) {
		if (mnt_load(&mf, mpath, &err) != BB_OK) {
			rc = cli_fail(&err);
			goto out;
		}
		m = tri_matcher_new(mf);
		if (cfg && cfg->ntrees && !no_tree && !index_given) {
			char *dir = config_data_path(cfg, "trees");

			loc = locate_new(cfg, dir);
			locator = locate_triage(loc);
			free(dir);
			/* a tree that cannot be searched says why (locate.tree_failed) */
			if (!ctx->quiet)
				log_setup(stderr, ctx->verbose ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARN, NULL);
		} else if (!no_tree && (index_given || cfg)) {
			/* no tree: the kernel index, the data folder's if there is one */
			char *ipath = index_given ? strdup(index_given)
						  : config_data_path(cfg, TRI_INDEX_FILE);

			if (tri_index_open(&ix, ipath, &err) == BB_OK) {
				locator = tri_index_locator(ix);
			} else if (index_given || err.code != BB_ERR_NOT_FOUND) {
				free(ipath);
				rc = cli_fail(&err);
				goto out;
			}
			bb_error_clear(&err);
			free(ipath);
		}
		rk = tri_match_located(m, r, text, len, (size_t)max, locator);
	} else if (!json) {
		cli_warn("no MAINTAINERS file (--maintainers or [routing] maintainers_file): "
			 "sections not ranked");
	}
	if (json) {
		struct json_object *top = json_object_new_object(), *sections = NULL;

		json_object_object_add(top, "version", json_object_new_int(1));
		json_object_object_add(top, "report", json_report(r));
		json_object_object_add(top, "truncated", json_object_new_boolean(r->truncated));
		json_object_object_add(top, "maintainers", jstr(mpath));
		if (rk) {
			sections = json_object_new_array();
			for (size_t i = 0; i < rk->n; i++) {
				const struct tri_match *x = &rk->matches[i];
				struct json_object *o = json_object_new_object(), *lists, *ev;

				json_object_object_add(o, "section", json_object_new_string(x->section->name));
				json_object_object_add(o, "score", json_object_new_double(x->score));
				json_object_object_add(o, "reason", jstr(x->reason));
				ev = json_object_new_array();
				for (size_t e = 0; e < x->nevidence; e++) {
					struct json_object *je = json_object_new_object();

					json_object_object_add(je, "text", jstr(x->evidence[e]));
					json_object_object_add(je, "score",
							       json_object_new_double(x->evidence_score[e]));
					json_object_array_add(ev, je);
				}
				json_object_object_add(o, "evidence", ev);
				lists = json_object_new_array();
				for (size_t l = 0; x->section->lists[l]; l++)
					json_object_array_add(lists, json_object_new_string(x->section->lists[l]));
				json_object_object_add(o, "lists", lists);
				/* get_maintainer.pl's lists for the evidence's file */
				lists = json_object_new_array();
				for (size_t l = 0; x->write_to[l]; l++)
					json_object_array_add(lists, json_object_new_string(x->write_to[l]));
				json_object_object_add(o, "write_to", lists);
				json_object_array_add(sections, o);
			}
		}
		json_object_object_add(top, "sections", sections);
		same_crash(cfg, r, text, len, bug ? strtoll(bug, NULL, 10) : 0, top);
		cli_print_json(top);
		json_object_put(top);
	} else {
		print_report(r);
		if (r->truncated)
			printf("note: only the first %u bytes were read\n", TRI_MAX_INPUT);
		if (rk) {
			printf("sections:\n");
			if (!rk->n)
				printf("  none matched\n");
			for (size_t i = 0; i < rk->n; i++) {
				const struct tri_match *x = &rk->matches[i];

				printf("  %zu. %s (score %.1f)\n", i + 1, x->section->name, x->score);
				for (size_t l = 0; x->section->lists[l]; l++)
					printf("     list: %s\n", x->section->lists[l]);
				/* the other sections' lists get_maintainer.pl names */
				for (size_t l = 0; x->write_to[l]; l++) {
					size_t own = 0;

					while (x->section->lists[own] &&
					       strcmp(x->section->lists[own], x->write_to[l]))
						own++;
					if (!x->section->lists[own])
						printf("     also: %s\n", x->write_to[l]);
				}
				if (x->reason)
					printf("     why: %s\n", x->reason);
				for (size_t e = 1; e < x->nevidence; e++)
					printf("     and: %s\n", x->evidence[e]);
			}
		}
		same_crash(cfg, r, text, len, bug ? strtoll(bug, NULL, 10) : 0, NULL);
	}
	rc = EX_OK;
out:
	tri_ranking_free(rk);
	locate_free(loc);
	tri_index_free(ix);
	config_free(owned_cfg);
	tri_matcher_free(m);
	mnt_free(mf);
	tri_report_free(r);
	free(mpath);
	free(text);
	return rc;
}
