/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>
#include <glib.h>
#include <systemd/sd-daemon.h>

#include "cli/cli.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/text.h"

static int cmd_help(struct cli_context *ctx, int argc, char **argv);
static int cmd_version(struct cli_context *ctx, int argc, char **argv);

static const struct cli_command commands[] = {
	{ "blob", cmd_blob, CLI_NEEDS_CONFIG,
	  "store, fetch, list, check and clean up attachment blobs" },
	{ "sync", cmd_sync, CLI_NEEDS_CONFIG,
	  "one round: Bugzilla changes to list mail, then delivery" },
	{ "resync", cmd_resync, CLI_NEEDS_CONFIG,
	  "re-examine named bugs: mail what never went out, nothing twice" },
	{ "daemon", cmd_daemon, CLI_NEEDS_CONFIG,
	  "sync rounds on an interval until SIGTERM" },
	{ "status", cmd_status, CLI_NEEDS_CONFIG,
	  "cursors, mirrored bugs, outbox counts and failures" },
	{ "reload", cmd_reload, 0,
	  "make a running daemon or server read its configuration again; wait for its answer" },
	{ "check", cmd_check, CLI_NEEDS_CONFIG,
	  "check the database (PRAGMA quick_check) and rehash every blob" },
	{ "outbox", cmd_outbox, CLI_NEEDS_CONFIG,
	  "list, retry or deliver the mail outbox" },
	{ "regressions", cmd_regressions, CLI_NEEDS_CONFIG,
	  "list and show tracked regressions; write and mail the reports" },
	{ "bugs", cmd_bugs, CLI_NEEDS_CONFIG,
	  "list the mirrored bugs: age, activity, needinfo, regression flag" },
	{ "digest", cmd_digest, CLI_NEEDS_CONFIG | CLI_NEEDS_DB_WRITE,
	  "mail each list the digest of its open bugs (once a period)" },
	{ "import", cmd_import, CLI_NEEDS_CONFIG | CLI_NEEDS_DB_WRITE,
	  "a whole Bugzilla (REST or XML exports) into the store, resumable" },
	{ "export", cmd_export, CLI_NEEDS_CONFIG,
	  "an imported Bugzilla as mbox threads, redirect maps or JSON" },
	{ "serve", cmd_serve, CLI_NEEDS_CONFIG | CLI_NEEDS_DB_WRITE,
	  "serve blobs over HTTP and accept uploads" },
	{ "demo", cmd_demo, CLI_NEEDS_CONFIG,
	  "store the bundled demo data and fetch it back over HTTP" },
	{ "config", cmd_config, CLI_NEEDS_CONFIG,
	  "show the configuration in effect (secrets hidden)" },
	{ "triage", cmd_triage, 0,
	  "what a report's logs say and which MAINTAINERS sections it points at" },
	{ "triage-index", cmd_triage_index, 0,
	  "build the kernel index triage locates symbols and modules with" },
	{ "version", cmd_version, 0, "print the version" },
	{ "help", cmd_help, 0, "show help for bugbridge or a command" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char usage_head[] =
	"usage: bugbridge [--config FILE] [--as-owner] [-q | -v] <command> [<args>]\n"
	"       bugbridge <command> --help\n"
	"       bugbridge --version\n"
	"\n"
	"bugbridge mirrors Bugzilla bugs to mailing lists and keeps their\n"
	"attachments in a content-addressed store.\n"
	"\n"
	"Options:\n"
	"  -c, --config FILE  read FILE (default: $BUGBRIDGE_CONFIG, ./bugbridge.conf,\n"
	"                     the user's, then the system's bugbridge.conf)\n"
	"      --as-owner     started by root on a data folder of another user (the\n"
	"                     service's), run as that user instead of refusing\n"
	"  -q, --quiet        only errors; no progress bars\n"
	"  -v, --verbose      log debug lines to standard error\n"
	"  -h, --help         show this help\n"
	"  -V, --version      print the version\n"
	"\n"
	"Commands:\n";

static void print_usage(FILE *out)
{
	fputs(usage_head, out);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fputs("\nSee bugbridge(1) and bugbridge.conf(5).\n", out);
}

static const struct cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int cmd_version(struct cli_context *ctx, int argc, char **argv)
{
	(void)ctx;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cli_usage(stdout, "usage: bugbridge version\n");
	printf("bugbridge %s\n", PACKAGE_VERSION);
	return EX_OK;
}

static int cmd_help(struct cli_context *ctx, int argc, char **argv)
{
	const struct cli_command *cmd;
	char *args[] = { NULL, (char *)"--help", NULL };

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_usage(stdout);
		return EX_OK;
	}
	cmd = find_command(argv[1]);
	if (!cmd || cmd->run == cmd_help) {
		if (!cmd)
			cli_error("no such command: %s (see bugbridge help)", argv[1]);
		return cmd ? cli_usage(stdout, "usage: bugbridge help [<command>]\n") : EX_USAGE;
	}
	args[0] = (char *)cmd->name;
	optind = 0;
	return cmd->run(ctx, 2, args);
}

static void blob_options_from_config(const struct bb_config *cfg, struct blob_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->base_url = cfg->blob_base_url;
	opt->limits.max_members = cfg->archive_max_members;
	opt->limits.max_total = cfg->archive_max_total;
	opt->limits.max_ratio = cfg->archive_max_ratio;
	opt->limits.max_depth = cfg->archive_max_depth;
	opt->store_members = cfg->store_archive_members;
}

enum bb_status cli_private_blobs_open(const struct bb_config *cfg, struct blob_store **bs,
				      struct store **db, struct bb_error *err)
{
	struct blob_options opt;
	char *root = config_data_path(cfg, "private-blobs");
	enum bb_status s;

	*bs = NULL;
	*db = NULL;
	blob_options_from_config(cfg, &opt);
	if (!root)
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	else
		s = blob_private_open(bs, db, root, &opt, err);
	free(root);
	return s;
}

int cli_open_private_blobs(struct cli_context *ctx, struct blob_store **bs, struct store **db)
{
	struct bb_error err = BB_ERROR_INIT;

	return cli_private_blobs_open(ctx->cfg, bs, db, &err) ? cli_fail(&err) : EX_OK;
}

int cli_read_secrets(struct cli_context *ctx)
{
	struct bb_error err = BB_ERROR_INIT;

	return config_read_secrets(ctx->cfg, &err) ? cli_fail(&err) : EX_OK;
}

void cli_warn_secrets(const struct bb_config *cfg)
{
	char **warnings = config_secret_warnings(cfg);

	for (char **w = warnings; w && *w; w++)
		log_event(LOG_LEVEL_WARN, "config.secret_readable", LF_STR("what", *w));
	g_strfreev(warnings);
}

int cli_open_store(struct cli_context *ctx, enum store_mode mode)
{
	struct bb_error err = BB_ERROR_INIT;
	struct blob_options opt;
	char *db_path = NULL, *blob_root = NULL;
	enum bb_status s;

	if (ctx->db)
		return EX_OK;
	db_path = config_data_path(ctx->cfg, "bugbridge.db");
	blob_root = config_data_path(ctx->cfg, "blobs");
	if (!db_path || !blob_root) {
		s = bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = store_open(&ctx->db, db_path, mode, &err)))
		goto out;
	blob_options_from_config(ctx->cfg, &opt);
	opt.root = blob_root;
	opt.read_only = mode == STORE_READ_ONLY;
	s = blob_store_open(&ctx->blobs, &opt, ctx->db, &err);
out:
	free(db_path);
	free(blob_root);
	return s ? cli_fail(&err) : EX_OK;
}

static FILE *open_log(const struct bb_config *cfg)
{
	FILE *f;
	int fd;

	if (!cfg || !cfg->log_file)
		return stderr;
	/* the log names reports, addresses and clients: 0640, whatever the umask */
	fd = fs_open_private(cfg->log_file, O_WRONLY | O_APPEND);
	f = fd >= 0 ? fdopen(fd, "a") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		cli_warn("cannot open log file %s; logging to standard error", cfg->log_file);
		return stderr;
	}
	return f;
}

static enum log_level log_level_for(const struct cli_context *ctx)
{
	if (ctx->verbose)
		return LOG_LEVEL_DEBUG;
	if (ctx->quiet)
		return LOG_LEVEL_ERROR;
	return ctx->cfg->log_level;
}

void cli_reopen_log(struct cli_context *ctx)
{
	FILE *old = ctx->log_sink;
	char run[16];

	snprintf(run, sizeof(run), "%s", log_run_id());
	log_setup(NULL, LOG_LEVEL_ERROR, run);
	if (old && old != stderr)
		fclose(old);
	ctx->log_sink = open_log(ctx->cfg);
	log_setup(ctx->log_sink, log_level_for(ctx), run);
	log_event(LOG_LEVEL_INFO, "log.reopened", LF_STR("file", ctx->cfg->log_file
								    ? ctx->cfg->log_file : "-"));
}

int cli_reload_config(struct cli_context *ctx, struct bb_config **fresh, struct bb_error *why)
{
	struct bb_error err = BB_ERROR_INIT;

	*fresh = NULL;
	if (config_load(fresh, ctx->config_path, &err) || config_read_secrets(*fresh, &err)) {
		log_event(LOG_LEVEL_ERROR, "config.reload_failed", LF_STR("error", err.message),
			  LF_STR("kept", "the configuration in effect"));
		bb_error_set(why, err.code, "%s", err.message);
		bb_error_clear(&err);
		config_free(*fresh);
		*fresh = NULL;
		return -1;
	}
	if (strcmp((*fresh)->data_dir, ctx->cfg->data_dir) != 0) {
		log_event(LOG_LEVEL_ERROR, "config.reload_failed",
			  LF_STR("error", "data_dir changed; that needs a restart"),
			  LF_STR("kept", "the configuration in effect"));
		bb_error_set(why, BB_ERR_CONFIG, "data_dir changed; that needs a restart");
		config_free(*fresh);
		*fresh = NULL;
		return -1;
	}
	return 0;
}

char *cli_reload_answer_path(const struct bb_config *cfg, long pid)
{
	const char *runtime = getenv("RUNTIME_DIRECTORY");
	char name[64];

	snprintf(name, sizeof(name), "reload-%ld", pid);
	if (runtime && runtime[0] == '/')
		return str_printf("%.*s/%s", (int)strcspn(runtime, ":"), runtime, name);
	return cfg ? config_data_path(cfg, name) : NULL;
}

void cli_reload_done(struct cli_context *ctx, const char *reason, const char *status)
{
	static unsigned long serial;
	char *path = cli_reload_answer_path(ctx->cfg, (long)getpid());
	char *text = reason ? g_strdup_printf("%lu refused %s\n", ++serial, reason)
			    : g_strdup_printf("%lu ok\n", ++serial);
	GError *gerr = NULL;

	if (reason)
		sd_notifyf(0, "READY=1\nSTATUS=reload refused: %s", reason);
	else
		sd_notifyf(0, "READY=1\nSTATUS=%s", status);
	/* whole or not at all (a rename): bugbridge reload reads it as it
	 * changes */
	if (path && !g_file_set_contents_full(path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT,
					      0640, &gerr)) {
		log_event(LOG_LEVEL_WARN, "reload.answer_failed", LF_STR("path", path),
			  LF_STR("error", gerr->message));
		g_error_free(gerr);
	}
	free(path);
	g_free(text);
}

void cli_reload_forget(struct cli_context *ctx)
{
	char *path = ctx->cfg ? cli_reload_answer_path(ctx->cfg, (long)getpid()) : NULL;

	if (path)
		unlink(path);
	free(path);
}

/* Started by root on a data folder another user owns (the service's):
 * anything root made there (the database's -wal and -shm, a blob folder, a
 * log file) the service could no longer write.  Refused, naming the
 * command to use, unless as_owner: then the process becomes that user (its
 * group, no other groups).  Returns a sysexits code. */
static int run_as_owner(const struct bb_config *cfg, int as_owner, int argc, char **argv)
{
	struct stat sb;
	struct passwd *pw;
	gid_t gid;
	GString *cmdline;

	if (geteuid() != 0 || stat(cfg->data_dir, &sb) != 0 || sb.st_uid == 0)
		return EX_OK;
	pw = getpwuid(sb.st_uid);
	gid = pw ? pw->pw_gid : sb.st_gid;
	if (as_owner) {
		if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(sb.st_uid) != 0) {
			cli_error("--as-owner: cannot become uid %u: %s", (unsigned)sb.st_uid,
				  strerror(errno));
			return EX_NOPERM;
		}
		return EX_OK;
	}
	cmdline = g_string_new(NULL);
	for (int i = 0; i < argc; i++) {
		/* quoted only where a shell needs it */
		int plain = *argv[i] && strspn(argv[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
						    "0123456789_@%+=:,./-") == strlen(argv[i]);
		char *q = plain ? g_strdup(argv[i]) : g_shell_quote(argv[i]);

		g_string_append_printf(cmdline, " %s", q);
		g_free(q);
	}
	if (pw)
		cli_error("the data folder %s belongs to %s, and root would leave files there that "
			  "%s cannot write; run: sudo -u %s%s (or add --as-owner)", cfg->data_dir,
			  pw->pw_name, pw->pw_name, pw->pw_name, cmdline->str);
	else
		cli_error("the data folder %s belongs to uid %u, and root would leave files there "
			  "that it cannot write; run as that user (setpriv --reuid=%u --regid=%u "
			  "--clear-groups --%s), or add --as-owner", cfg->data_dir,
			  (unsigned)sb.st_uid, (unsigned)sb.st_uid, (unsigned)gid, cmdline->str);
	g_string_free(cmdline, TRUE);
	return EX_NOPERM;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "as-owner", no_argument, NULL, 'O' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_context ctx;
	const struct cli_command *cmd;
	struct bb_error err = BB_ERROR_INIT;
	int opt, rc, as_owner = 0, argc0 = argc;
	char **argv0 = argv;

	memset(&ctx, 0, sizeof(ctx));
	while ((opt = getopt_long(argc, argv, "+c:qvhV", options, NULL)) != -1) {
		switch (opt) {
		case 'c': ctx.config_path = optarg; break;
		case 'q': ctx.quiet = 1; break;
		case 'v': ctx.verbose = 1; break;
		case 'h': print_usage(stdout); return EX_OK;
		case 'V': return cmd_version(&ctx, 1, argv);
		case 'O': as_owner = 1; break;
		default: print_usage(stderr); return EX_USAGE;
		}
	}
	if (optind >= argc) {
		print_usage(stderr);
		return EX_USAGE;
	}
	cmd = find_command(argv[optind]);
	if (!cmd) {
		const char *names[NCOMMANDS], *near;

		for (size_t i = 0; i < NCOMMANDS; i++)
			names[i] = commands[i].name;
		near = text_closest(argv[optind], names, NCOMMANDS);
		if (near)
			cli_error("no such command: %s; did you mean \"%s\"? (see bugbridge help)",
				  argv[optind], near);
		else
			cli_error("no such command: %s (see bugbridge help)", argv[optind]);
		return EX_USAGE;
	}
	argc -= optind;
	argv += optind;
	optind = 0; /* reset getopt for the command */

	/* --help needs no configuration, so it works even with a broken one */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return cmd->run(&ctx, argc, argv);
	}

	log_capture_glib();
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		cli_error("cannot initialise libcurl");
		return EX_SOFTWARE;
	}
	if (cmd->needs & (CLI_NEEDS_CONFIG | CLI_NEEDS_DB_READ | CLI_NEEDS_DB_WRITE)) {
		if (config_load(&ctx.cfg, ctx.config_path, &err)) {
			rc = cli_fail(&err);
			goto out;
		}
		/* before anything is opened or made: the log file included */
		if (strcmp(cmd->name, "config") &&
		    (rc = run_as_owner(ctx.cfg, as_owner, argc0, argv0)))
			goto out;
		ctx.log_sink = open_log(ctx.cfg);
		log_setup(ctx.log_sink, log_level_for(&ctx), NULL);
		if (ctx.cfg->inbound_authenticate && !strcmp(ctx.cfg->inbound_authenticate, "none"))
			log_event(LOG_LEVEL_WARN, "inbound.authenticate_none",
				  LF_STR("why", "[inbound] authenticate = none: anyone who writes an"
						" allowed address into From: can act on bugs by mail"));
	}
	if (cmd->needs & (CLI_NEEDS_DB_READ | CLI_NEEDS_DB_WRITE)) {
		rc = cli_open_store(&ctx, cmd->needs & CLI_NEEDS_DB_WRITE ? STORE_READ_WRITE
									  : STORE_READ_ONLY);
		if (rc)
			goto out;
	}
	rc = cmd->run(&ctx, argc, argv);
out:
	blob_store_close(ctx.blobs);
	store_close(ctx.db);
	config_free(ctx.cfg);
	log_setup(NULL, LOG_LEVEL_ERROR, NULL);
	if (ctx.log_sink && ctx.log_sink != stderr)
		fclose(ctx.log_sink);
	curl_global_cleanup();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("cannot write to standard output");
		if (rc == EX_OK)
			rc = EX_IOERR;
	}
	return rc;
}
