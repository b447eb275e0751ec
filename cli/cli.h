/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Folder cli/: the command line, the top layer: the only code that prints or
 * exits.  It may use every folder.
 *
 * The command line: one binary, subcommands from a table (cli/main.c).
 *
 * main() parses the global options, then prepares what a command's flags
 * ask for (configuration, logging, database, blob store) and calls it with
 * the remaining arguments (argv[0] is the command name).  A command returns
 * a sysexits code.  Only cli/ prints or exits.
 */
#ifndef BB_CLI_H
#define BB_CLI_H

#include <stdint.h>
#include <stdio.h>
#include <sysexits.h>

#include "attachments/blob.h"
#include "config/conf.h"
#include "core/status.h"
#include "core/store.h"

enum cli_needs {
	CLI_NEEDS_CONFIG = 1 << 0,
	CLI_NEEDS_DB_READ = 1 << 1,   /* also opens the blob store */
	CLI_NEEDS_DB_WRITE = 1 << 2,  /* also opens the blob store */
};

struct cli_context {
	const char *config_path;      /* --config, or NULL */
	struct bb_config *cfg;
	struct store *db;
	struct blob_store *blobs;
	int quiet;
	int verbose;
	FILE *log_sink;               /* where log lines go (stderr or log_file) */
};

struct cli_command {
	const char *name;
	int (*run)(struct cli_context *ctx, int argc, char **argv);
	unsigned needs;
	const char *summary;
};

/* Each command, in its own file. */
int cmd_blob(struct cli_context *ctx, int argc, char **argv);
int cmd_sync(struct cli_context *ctx, int argc, char **argv);
int cmd_resync(struct cli_context *ctx, int argc, char **argv);
int cmd_daemon(struct cli_context *ctx, int argc, char **argv);
int cmd_status(struct cli_context *ctx, int argc, char **argv);
int cmd_outbox(struct cli_context *ctx, int argc, char **argv);
int cmd_serve(struct cli_context *ctx, int argc, char **argv);
/* cmd_serve.c: the [server] connection limits, timeouts and trusted
 * proxies of cfg into opt (web/blob_http.h), for serve and demo --serve;
 * lifts the soft open-files limit as far as they need. */
struct blob_server_options;
void cli_server_limits(const struct bb_config *cfg, struct blob_server_options *opt);
int cmd_config(struct cli_context *ctx, int argc, char **argv);
int cmd_demo(struct cli_context *ctx, int argc, char **argv);
int cmd_regressions(struct cli_context *ctx, int argc, char **argv);
int cmd_bugs(struct cli_context *ctx, int argc, char **argv);
int cmd_digest(struct cli_context *ctx, int argc, char **argv);
int cmd_export(struct cli_context *ctx, int argc, char **argv);
int cmd_import(struct cli_context *ctx, int argc, char **argv);
int cmd_triage(struct cli_context *ctx, int argc, char **argv);
int cmd_triage_index(struct cli_context *ctx, int argc, char **argv);
/* cmd_triage_index.c: the kernel index's path: given, else TRI_INDEX_FILE in
 * the data folder of the configuration (loaded if need be); NULL when there is
 * none (said unless quiet_missing).  malloc'd. */
char *cli_triage_index_path(struct cli_context *ctx, const char *given, int quiet_missing);
int cmd_check(struct cli_context *ctx, int argc, char **argv);

/* cmd_blob.c: rehashes every blob of the store (or the nhashes named),
 * opening the store read-only.  Each result goes into results (a JSON
 * array) when given, else is printed: the bad always, the good when
 * print_good.  Returns a sysexits code for an error, else EX_OK with
 * *checked and *bad set. */
struct json_object;
int cli_verify_blobs(struct cli_context *ctx, char **hashes, int nhashes,
		     struct json_object *results, int print_good, size_t *checked, size_t *bad);
/* cmd_check.c: PRAGMA quick_check of the open database; logs and prints
 * what is damaged.  EX_OK when sound, EX_DATAERR when damaged, another
 * code when the check could not run. */
int cli_check_database(struct cli_context *ctx);

/* SIGHUP, for the daemon and the server (cli/main.c).  cli_reopen_log()
 * opens [general] log_file again (after logrotate moved it) at the level
 * ctx->cfg asks for, keeping the run id.  cli_reload_config() reads the
 * configuration file again into *fresh; a file that does not load, or that
 * moves data_dir (which needs a restart), is logged and refused, and the
 * old configuration stays.  Returns 0 when *fresh is ready to use. */
void cli_reopen_log(struct cli_context *ctx);
int cli_reload_config(struct cli_context *ctx, struct bb_config **fresh, struct bb_error *why);
/* The end of a reload (daemon, serve): tells systemd (READY=1, and
 * STATUS=configuration reloaded or "reload refused: <reason>") and writes
 * the answer that bugbridge reload waits for, <data_dir>/reload-<pid>:
 * "<serial> ok" or "<serial> refused <reason>" (reason NULL: loaded). */
void cli_reload_done(struct cli_context *ctx, const char *reason, const char *status);
/* Where the answer to a reload of process pid is: reload-<pid> in
 * $RUNTIME_DIRECTORY (the units' RuntimeDirectory=, which ExecReload=
 * shares), else in cfg's data_dir (cfg NULL: nowhere, NULL).  NULL also
 * when out of memory. */
char *cli_reload_answer_path(const struct bb_config *cfg, long pid);
/* Removes the answer as the process ends. */
void cli_reload_forget(struct cli_context *ctx);
int cmd_reload(struct cli_context *ctx, int argc, char **argv);

/* Reads the secrets kept in files (config_read_secrets()): only the
 * commands that use one call it, so that status, config, blob, export and
 * regressions work for a user who may not read them.  Returns a sysexits
 * code (77 for a secret this user may not read). */
int cli_read_secrets(struct cli_context *ctx);
/* Logs, at warn, each secret that others than the service's user may read
 * (config_secret_warnings()): at the start of daemon and serve. */
void cli_warn_secrets(const struct bb_config *cfg);

/* Opens the database and blob store named by ctx->cfg (for commands such as
 * demo that decide late whether they need them).  Returns a sysexits code. */
int cli_open_store(struct cli_context *ctx, enum store_mode mode);
/* Opens the private blob store <data_dir>/private-blobs (attachments/blob.h)
 * with the configured limits; close with blob_private_close(). */
int cli_open_private_blobs(struct cli_context *ctx, struct blob_store **bs, struct store **db);
/* The same, with the error in err rather than on stderr. */
enum bb_status cli_private_blobs_open(const struct bb_config *cfg, struct blob_store **bs,
				      struct store **db, struct bb_error *err);

/* What sync, daemon and demo share (cli/cmd_sync.c): the store, MAINTAINERS,
 * the router, the Bugzilla client (if configured) and a sync context. */
#include "bridge/inbound.h"
#include "bridge/submit.h"
#include "bridge/sync.h"
#include "tracker/locate.h"
#include "tracker/tracker.h"
struct cli_bridge {
	struct mnt_file *maintainers;
	struct tri_matcher *matcher;     /* sc.matcher */
	struct locate *locator;          /* sc.locator's; NULL without trees */
	struct tri_index *index;         /* sc.locator's without trees; NULL without one */
	struct router *router;
	struct bz_client *bz;
	struct archive_source *archive; /* NULL: no inbound bridge */
	struct archive_source *submit;  /* the submit box; NULL: none */
	struct submit_stats submit_stats; /* its last round's */
	struct tracker *tracker;
	struct inbound_options inbound;
	char *archive_state;
	struct blob_store *private_blobs;  /* sc.private_blobs, once opened */
	struct store *private_db;
	struct sync_context sc;
};
int cli_bridge_open(struct cli_context *ctx, struct cli_bridge *b);
/* The Bugzilla client's options from [bugzilla] (url, key and where it
 * goes, CA file, proxy, timeout, subsystem field, page size). */
struct bz_client_options;
void cli_bz_options(const struct bb_config *cfg, struct bz_client_options *o);
void cli_bridge_close(struct cli_bridge *b);

/* --- output helpers (cli/output.c) --- */

/* "bugbridge: message" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* As cli_error(), at priority crit under journald: a fatal configuration
 * error (cli_fail() of BB_ERR_CONFIG). */
void cli_crit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Reports err as above and returns the sysexits code for its status. */
int cli_fail(const struct bb_error *err);
/* The sysexits code for a status. */
int cli_exit_code(enum bb_status st);
/* What a delivery run tells cron and monitoring: 65 (EX_DATAERR) if the
 * relay refused a mail for good, else 75 (EX_TEMPFAIL) if one was deferred,
 * else 0. */
struct outbox_stats;
int cli_delivery_exit(const struct outbox_stats *st);

/* A progress bar on standard error when it is a terminal (done/total,
 * rate, ETA), plain lines every few seconds otherwise when verbose, silent
 * when quiet. */
struct cli_progress;
struct cli_progress *cli_progress_start(const char *label, uint64_t total, int quiet);
void cli_progress_update(struct cli_progress *p, uint64_t done, uint64_t total);
void cli_progress_label(struct cli_progress *p, const char *label);
void cli_progress_done(struct cli_progress *p);
/* Adapter with the blob_progress_fn signature; ctx is a struct cli_progress *. */
void cli_progress_cb(void *ctx, uint64_t done, uint64_t total);

/* text from outside (archive member names, file names, refs) made safe
 * for a terminal: control characters (C0, DEL, C1, U+2028/9), Unicode
 * format characters (bidi overrides, zero-width ...; core/text.h) and
 * bytes that are not UTF-8 become visible escapes (\x1b, \u202e), and a
 * backslash is doubled so that an escape cannot be faked.  The string
 * stays valid until 16 more calls; NULL gives "". */
const char *cli_safe(const char *text);

/* Prints a json-c object to stdout, pretty, with a newline. */
struct json_object;
void cli_print_json(struct json_object *obj);

/* Standard handling of -h/--help inside a command: prints usage to stdout
 * and returns EX_OK. */
int cli_usage(FILE *out, const char *usage);

#endif
