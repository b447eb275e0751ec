/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge export: an imported Bugzilla as mail threads, redirects and
 * JSON (migrate/export.h). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge/sync.h"
#include "cli/cli.h"
#include "core/buf.h"
#include "migrate/export.h"

static const char usage_export[] =
	"usage: bugbridge export mbox [--bug N] [--to ADDR]... DIR\n"
	"       bugbridge export redirects [--prefix PATH]... DIR\n"
	"       bugbridge export json [--bug N] [--include-private] [-o FILE]\n"
	"\n"
	"Exports the Bugzilla instance `bugbridge import` brought in.  Bugs\n"
	"restricted to groups, private comments and private attachments are\n"
	"never in the mbox or the redirects (nor in the JSON without\n"
	"--include-private); bugs whose import is not complete are left out.\n"
	"People are named, never by login address, unless --include-private or\n"
	"[mail] show_addresses.\n"
	"\n"
	"  mbox       DIR/bug-N.mbox (mboxrd) for each bug: one thread, the mails\n"
	"             the bridge would send, with the same Message-IDs\n"
	"             (bug-N@[mail] domain, bug-N-cK@...), plain text, attachments\n"
	"             as blob links; feed each mail to public-inbox-mda\n"
	"  redirects  DIR/redirects.map (an nginx map setting $bugbridge_new) and\n"
	"             DIR/redirects.csv: show_bug.cgi?id=N to the thread in the\n"
	"             archive ([archive] link_url, url, else lore.kernel.org/r),\n"
	"             attachment.cgi?id=M to the blob URL\n"
	"  json       everything, {\"version\": 1, \"bugs\": [...]}, to standard\n"
	"             output or FILE\n"
	"\n"
	"Options:\n"
	"  --bug N            only bug N\n"
	"  --to ADDR          recipient (the list) of the mails; repeatable\n"
	"                     (default [routing] default_lists)\n"
	"  --archive-url URL  the archive the threads are linked in\n"
	"  --prefix PATH      a path the old Bugzilla was served under; repeatable\n"
	"                     (default \"\" and /bugzilla)\n"
	"  --include-private  json: restricted bugs and private comments and\n"
	"                     attachments too, marked, and login addresses\n"
	"                     (for admins only)\n"
	"  -o, --output FILE  json: write FILE (atomically) instead of stdout\n"
	"  -h, --help         show this help\n";

enum {
	EXP_OPT_BUG = 256,
	EXP_OPT_TO,
	EXP_OPT_ARCHIVE,
	EXP_OPT_PREFIX,
	EXP_OPT_PRIVATE,
};

/* Appends s to a NULL-terminated list; 0 when out of memory. */
static int list_add(char ***list, size_t *n, const char *s)
{
	char **grown = realloc(*list, (*n + 2) * sizeof(**list));

	if (!grown)
		return 0;
	*list = grown;
	grown[*n] = strdup(s);
	grown[*n + 1] = NULL;
	if (!grown[*n])
		return 0;
	(*n)++;
	return 1;
}

static void report(const char *what, const struct export_stats *st, int quiet)
{
	if (quiet)
		return;
	fprintf(stderr, "bugbridge: exported %lld bug%s (%s", st->bugs, st->bugs == 1 ? "" : "s", what);
	if (!strcmp(what, "mbox"))
		fprintf(stderr, ": %lld mails", st->mails);
	else if (!strcmp(what, "redirects"))
		fprintf(stderr, ": %lld old URLs", st->redirects);
	fprintf(stderr, "); left out: %lld restricted, %lld incomplete, %lld private "
		"comments, %lld private attachments\n", st->restricted, st->incomplete,
		st->private_comments, st->private_attachments);
}

int cmd_export(struct cli_context *ctx, int argc, char **argv)
{
	unsigned char mark_key[STORE_SECRET_LEN];
	static const struct option options[] = {
		{ "bug", required_argument, NULL, EXP_OPT_BUG },
		{ "to", required_argument, NULL, EXP_OPT_TO },
		{ "archive-url", required_argument, NULL, EXP_OPT_ARCHIVE },
		{ "prefix", required_argument, NULL, EXP_OPT_PREFIX },
		{ "include-private", no_argument, NULL, EXP_OPT_PRIVATE },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct export_options eo;
	struct export_stats stats;
	struct export_file ef = { NULL, NULL, NULL };
	struct bb_error err = BB_ERROR_INIT;
	char **to = NULL, **prefixes = NULL, **defaults = NULL;
	size_t nto = 0, nprefixes = 0;
	const char *what, *output = NULL, *dir = NULL;
	char *nginx = NULL, *csv = NULL, *end;
	enum bb_status s = BB_OK;
	int opt, rc = EX_OK;

	memset(&eo, 0, sizeof(eo));
	memset(&stats, 0, sizeof(stats));
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return argc < 2 ? (fputs(usage_export, stderr), EX_USAGE)
				: cli_usage(stdout, usage_export);
	what = argv[1];
	if (strcmp(what, "mbox") && strcmp(what, "redirects") && strcmp(what, "json")) {
		cli_error("export: unknown format %s (mbox, redirects or json)", what);
		return EX_USAGE;
	}
	argc--;
	argv++;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
		switch (opt) {
		case EXP_OPT_BUG:
			eo.only_bug = strtoll(optarg, &end, 10);
			if (*end || eo.only_bug <= 0) {
				cli_error("export: --bug wants a bug number, not %s", optarg);
				rc = EX_USAGE;
				goto out;
			}
			break;
		case EXP_OPT_TO:
			if (!list_add(&to, &nto, optarg))
				goto nomem;
			break;
		case EXP_OPT_ARCHIVE: eo.archive_url = optarg; break;
		case EXP_OPT_PREFIX: {
			size_t len = strlen(optarg);

			while (len > 0 && optarg[len - 1] == '/')
				optarg[--len] = '\0';
			if (len && optarg[0] != '/') {
				cli_error("export: --prefix wants a path starting with /, not %s", optarg);
				rc = EX_USAGE;
				goto out;
			}
			if (!list_add(&prefixes, &nprefixes, optarg))
				goto nomem;
			break;
		}
		case EXP_OPT_PRIVATE: eo.include_private = 1; break;
		case 'o': output = optarg; break;
		case 'h': rc = cli_usage(stdout, usage_export); goto out;
		default: fputs(usage_export, stderr); rc = EX_USAGE; goto out;
		}
	}
	if (!strcmp(what, "json") ? optind != argc : optind != argc - 1) {
		fputs(usage_export, stderr);
		rc = EX_USAGE;
		goto out;
	}
	if (strcmp(what, "json") && (output || eo.include_private)) {
		cli_error("export: -o and --include-private are for json only");
		rc = EX_USAGE;
		goto out;
	}
	dir = optind < argc ? argv[optind] : NULL;
	if ((rc = cli_open_store(ctx, STORE_READ_ONLY)))
		goto out;

	/* the bridge's own mail options: the same mails, marked as the
	 * state marks them (a state that never mailed has no key yet) */
	sync_mail_options(ctx->cfg, &eo.mail);
	if (store_secret(ctx->db, SYNC_MARK_SECRET, 0, mark_key, NULL) == BB_OK)
		eo.mail.mark_key = mark_key;
	if (!ctx->cfg->bz_url)
		eo.mail.bug_url_base = NULL;
	eo.inline_limit = ctx->cfg->mail_inline_limit;
	if (!eo.archive_url)
		eo.archive_url = ctx->cfg->archive_link_url ? ctx->cfg->archive_link_url
							    : ctx->cfg->archive_url;
	if (!to && ctx->cfg->default_lists) {
		defaults = config_address_list(ctx->cfg->default_lists, NULL);
		eo.to = defaults;
	} else {
		eo.to = to;
	}
	eo.prefixes = prefixes;

	if (!strcmp(what, "mbox")) {
		s = export_mbox(ctx->db, ctx->blobs, &eo, dir, &stats, &err);
	} else if (!strcmp(what, "redirects")) {
		nginx = str_printf("%s/redirects.map", dir);
		csv = str_printf("%s/redirects.csv", dir);
		if (!nginx || !csv)
			goto nomem;
		s = export_redirects(ctx->db, ctx->blobs, &eo, nginx, csv, &stats, &err);
	} else if (output && strcmp(output, "-")) {
		if (!(s = export_file_open(&ef, output, &err))) {
			s = export_json(ctx->db, ctx->blobs, &eo, ef.f, &stats, &err);
			if (!s)
				s = export_file_commit(&ef, &err);
			else
				export_file_abort(&ef);
		}
	} else {
		s = export_json(ctx->db, ctx->blobs, &eo, stdout, &stats, &err);
	}
	if (s) {
		rc = cli_fail(&err);
		goto out;
	}
	report(what, &stats, ctx->quiet);
	goto out;
nomem:
	cli_error("out of memory");
	rc = EX_OSERR;
out:
	for (size_t i = 0; i < nto; i++)
		free(to[i]);
	free(to);
	for (size_t i = 0; i < nprefixes; i++)
		free(prefixes[i]);
	free(prefixes);
	config_list_free(defaults);
	free(nginx);
	free(csv);
	return rc;
}
