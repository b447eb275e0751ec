/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge serve: the blob store over HTTP until SIGTERM or SIGINT. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "cli/cli.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "mail/maintainers.h"
#include "triage/match.h"
#include "tracker/report.h"
#include "web/blob_http.h"
#include "web/frontdoor.h"

static const char serve_usage[] =
	"usage: bugbridge serve [--listen ADDR:PORT] [--port-file FILE] [--pid-file FILE]\n"
	"\n"
	"Serves the blob store over HTTP until SIGTERM or SIGINT:\n"
	"  GET|HEAD /blob/sha256/<hash>[/<name>]   a blob (ranges, ETag, immutable)\n"
	"  POST /upload[?name=FILE], PUT /upload[/FILE]\n"
	"                                     store an upload ([server] upload_token)\n"
	"  GET|HEAD /regressions/[<file>]     the regression reports, read-only\n"
	"                                     ([tracker] report_dir)\n"
	"  GET /, POST /report, GET /confirm/<token>, GET /bugs, GET /bug/<id>\n"
	"                                     the front door ([frontdoor] enabled)\n"
	"\n"
	"Options:\n"
	"  -l, --listen ADDR:PORT  listen there instead of [server] listen;\n"
	"                          port 0 picks a free port, IPv6 as [ADDR]:PORT\n"
	"  --port-file FILE        write the port bound to FILE once serving\n"
	"  --pid-file FILE         write the process id to FILE once serving\n"
	"  -h, --help              show this help\n";

enum {
	SERVE_OPT_PORT_FILE = 256,
	SERVE_OPT_PID_FILE,
};

/* Writes "<value>\n" to path through a temporary file and a rename, so a
 * reader polling for the file never sees it half written. */
static enum bb_status serve_write_number(const char *path, unsigned long value,
					 struct bb_error *err)
{
	char *tmp = NULL;
	FILE *f = NULL;
	enum bb_status st = BB_OK;

	tmp = str_printf("%s.tmp.%ld", path, (long)getpid());
	if (!tmp) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	f = fopen(tmp, "we");
	if (!f) {
		st = bb_error_errno(err, errno, "cannot write %s", tmp);
		goto out;
	}
	fprintf(f, "%lu\n", value);
	if (fclose(f) != 0) {
		f = NULL;
		st = bb_error_errno(err, errno, "cannot write %s", tmp);
		goto out;
	}
	f = NULL;
	if (rename(tmp, path) != 0) {
		st = bb_error_errno(err, errno, "cannot rename %s to %s", tmp, path);
		goto out;
	}
out:
	if (f)
		fclose(f);
	if (st && tmp)
		unlink(tmp);
	free(tmp);
	return st;
}

/* The host part of "host:port" or "[v6]:port" as it goes in a URL. */
static char *serve_url_host(const char *listen)
{
	const char *colon = strrchr(listen, ':');
	size_t len = colon ? (size_t)(colon - listen) : strlen(listen);

	if (len == 0 || (len == 1 && listen[0] == '*'))
		return strdup("0.0.0.0");
	return strndup(listen, len);
}

/* A configured count or duration as the server takes it. */
static unsigned serve_clamp(unsigned long long value)
{
	return value > 1000000u ? 1000000u : (unsigned)value;
}

/* One configuration and what the front door makes of it.  The front door
 * keeps it while a request that began with it runs (frontdoor_options
 * .release); cfg is freed with it unless it is ctx->cfg, which main()
 * frees. */
struct serve_gen {
	struct bb_config *cfg;
	int owns_cfg;
	struct mnt_file *maintainers;
	struct tri_matcher *matcher;   /* /triage's, of maintainers */
	struct router *router;
	struct bz_client *bz;
};

static void serve_gen_free(void *owner)
{
	struct serve_gen *g = owner;

	if (!g)
		return;
	bz_client_free(g->bz);
	router_free(g->router);
	tri_matcher_free(g->matcher);
	mnt_free(g->maintainers);
	if (g->owns_cfg)
		config_free(g->cfg);
	free(g);
}

/* The front door's part of cfg (not owned by the result). */
static enum bb_status serve_gen_new(struct serve_gen **out, struct bb_config *cfg,
				    struct bb_error *err)
{
	struct serve_gen *g = calloc(1, sizeof(*g));
	enum bb_status st = BB_OK;

	*out = NULL;
	if (!g)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	g->cfg = cfg;
	if (!cfg->frontdoor_enabled)
		goto out; /* only the delivery thread looks, at [mail] and [smtp] */
	if (cfg->maintainers_file && (st = mnt_load(&g->maintainers, cfg->maintainers_file, err)))
		goto out;
	if ((st = router_new(&g->router, cfg, g->maintainers, err)))
		goto out;
	if (g->maintainers)
		g->matcher = tri_matcher_new(g->maintainers);
	if (cfg->frontdoor_create_bugs && cfg->bz_url) {
		struct bz_client_options o;

		cli_bz_options(cfg, &o);
		if ((st = bz_client_new(&g->bz, &o, err)))
			goto out;
	}
out:
	if (st)
		serve_gen_free(g);
	else
		*out = g;
	return st;
}

static void serve_frontdoor_options(struct cli_context *ctx, struct serve_gen *g,
				    struct frontdoor_options *fo)
{
	memset(fo, 0, sizeof(*fo));
	fo->cfg = g->cfg;
	fo->blobs = ctx->blobs;
	fo->router = g->router;
	fo->bz = g->bz;
	fo->matcher = g->matcher;
	fo->max_upload_size = g->cfg->max_upload_size;
	fo->release = serve_gen_free;
	fo->owner = g;
}

/* What the server takes from cfg that a reload may change. */
static void serve_live_options(const struct bb_config *cfg, const char *reports_dir,
			       struct blob_server_options *opt)
{
	opt->upload_token = cfg->upload_token;
	opt->max_upload_size = cfg->max_upload_size;
	opt->reports_dir = reports_dir;
	opt->body_timeout = serve_clamp(cfg->server_body_timeout < 0
						? 0 : (unsigned long long)cfg->server_body_timeout);
	opt->min_body_rate = cfg->server_min_body_rate;
}

/* Every connection holds a descriptor: lifts the soft limit on open files
 * towards the hard one when max_connections needs more.  A failure leaves
 * the limit as it was; the server then refuses what it cannot open. */
static void serve_raise_nofile(unsigned max_connections)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)max_connections + 128; /* the store, the log, the rest */

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ? rl.rlim_max : want;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		log_event(LOG_LEVEL_WARN, "serve.nofile", LF_UINT("wanted", (uint64_t)want));
}

/* The keys read once, into long-lived objects, that a SIGHUP does not
 * change: the listening socket and MHD's thread pool, connection limit
 * and first timeout (MHD_start_daemon), the connection guard (its limits,
 * its header deadline and the trusted proxies its per-client counts rest
 * on), and the blob store opened at start ([blob]).  [core] data_dir is
 * refused by cli_reload_config(). */
static const char *const serve_restart_keys[][2] = {
	{ "server", "listen" }, { "server", "threading" }, { "server", "threads" },
	{ "server", "max_connections" }, { "server", "max_connections_per_client" },
	{ "server", "header_timeout" }, { "server", "trusted_proxies" },
	{ "blob", NULL },
};

/* The keys of serve_restart_keys whose values differ, "section.key,...";
 * listen only when it came from the file.  NULL when none (or no memory). */
static char *serve_restart_needed(const struct bb_config *old, const struct bb_config *fresh,
				  int listen_from_file)
{
	const struct config_key *keys;
	struct buf list = BUF_INIT;
	size_t n, i, j;

	keys = config_keys(&n);
	for (i = 0; i < n; i++) {
		char a[64], b[64];
		const char *va, *vb;

		for (j = 0; j < sizeof(serve_restart_keys) / sizeof(serve_restart_keys[0]); j++)
			if (!strcmp(keys[i].section, serve_restart_keys[j][0]) &&
			    (!serve_restart_keys[j][1] || !strcmp(keys[i].key, serve_restart_keys[j][1])))
				break;
		if (j == sizeof(serve_restart_keys) / sizeof(serve_restart_keys[0]) ||
		    (!listen_from_file && !strcmp(keys[i].key, "listen")))
			continue;
		va = config_value(old, i, a, sizeof(a));
		vb = config_value(fresh, i, b, sizeof(b));
		if (strcmp(va ? va : "", vb ? vb : ""))
			buf_addf(&list, "%s%s.%s", list.len ? "," : "", keys[i].section, keys[i].key);
	}
	if (!list.len) {
		buf_release(&list);
		return NULL;
	}
	return buf_detach(&list, NULL);
}

void cli_server_limits(const struct bb_config *cfg, struct blob_server_options *opt)
{
	opt->max_connections = serve_clamp(cfg->server_max_connections);
	opt->max_per_client = serve_clamp(cfg->server_max_connections_per_client);
	opt->header_timeout = serve_clamp(cfg->server_header_timeout < 0
						  ? 0 : (unsigned long long)cfg->server_header_timeout);
	opt->body_timeout = serve_clamp(cfg->server_body_timeout < 0
						? 0 : (unsigned long long)cfg->server_body_timeout);
	opt->min_body_rate = cfg->server_min_body_rate;
	opt->trusted_proxies = cfg->server_trusted_proxies;
	serve_raise_nofile(opt->max_connections);
}

/* What serve runs, for the reload. */
struct serve_state {
	struct blob_server *srv;
	struct frontdoor *fd;      /* NULL until [frontdoor] is first enabled */
	struct serve_gen *gen;     /* the current one, when fd is NULL */
	int listen_from_file;      /* no --listen */
};

/* The log after a reload.  While the server's threads may be logging, the
 * stream log_setup() was given must stay valid: a file that is still a
 * file is reopened under the same FILE (dup2() while its lock is held, so
 * no line is cut), and log_setup() is called again only when the level or
 * the kind of sink changes. */
static void serve_reopen_log(struct cli_context *ctx, enum log_level old_level,
			     const char *old_file)
{
	enum log_level level = ctx->verbose ? LOG_LEVEL_DEBUG
			       : ctx->quiet ? LOG_LEVEL_ERROR : ctx->cfg->log_level;
	int fd;

	if (!ctx->log_sink || ctx->log_sink == stderr || !ctx->cfg->log_file || !old_file) {
		if (ctx->cfg->log_file || old_file)
			cli_reopen_log(ctx);
		else if (level != old_level)
			log_setup(ctx->log_sink, level, log_run_id());
		return;
	}
	fd = fs_open_private(ctx->cfg->log_file, O_WRONLY | O_APPEND);
	if (fd < 0) {
		log_event(LOG_LEVEL_ERROR, "log.reopen_failed", LF_STR("file", ctx->cfg->log_file),
			  LF_STR("error", strerror(errno)));
		return;
	}
	flockfile(ctx->log_sink);
	fflush(ctx->log_sink);
	dup2(fd, fileno(ctx->log_sink));
	funlockfile(ctx->log_sink);
	close(fd);
	if (level != old_level) {
		char run[16];

		snprintf(run, sizeof(run), "%s", log_run_id());
		log_setup(ctx->log_sink, level, run);
	}
	log_event(LOG_LEVEL_INFO, "log.reopened", LF_STR("file", ctx->cfg->log_file));
}

/* SIGHUP: the configuration file is read again (cli_reload_config(): a
 * file that does not load, or moves data_dir, keeps the old one) and what
 * may change while serving switches over; keys that need a restart keep
 * their old values and are named in the log. */
static void serve_reload(struct cli_context *ctx, struct serve_state *ss)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bb_config *fresh = NULL, *old = ctx->cfg;
	struct serve_gen *gen = NULL, *old_gen = NULL;
	struct frontdoor *new_fd = NULL;
	struct frontdoor_options fo;
	struct blob_server_options opt;
	char *new_reports = NULL, *restart = NULL;
	enum log_level old_level = ctx->verbose ? LOG_LEVEL_DEBUG
				   : ctx->quiet ? LOG_LEVEL_ERROR : old->log_level;
	char *old_log = old->log_file ? strdup(old->log_file) : NULL;
	char reason[sizeof(err.message)] = "";
	int loaded = 0;

	sd_notify(0, "RELOADING=1\nSTATUS=reloading the configuration");
	if (cli_reload_config(ctx, &fresh, &err) != 0) {
		snprintf(reason, sizeof(reason), "%s", err.message);
		bb_error_clear(&err);
		goto done; /* logged */
	}
	if (!(new_reports = reg_report_dir(fresh))) {
		bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
		goto failed;
	}
	/* everything that can refuse the file comes before anything changes */
	if (serve_gen_new(&gen, fresh, &err))
		goto failed;
	serve_frontdoor_options(ctx, gen, &fo);
	if (frontdoor_check(&fo, &err))
		goto failed;
	if (fresh->frontdoor_enabled && !ss->fd && frontdoor_new(&new_fd, &fo, &err))
		goto failed;
	memset(&opt, 0, sizeof(opt));
	serve_live_options(fresh, new_reports, &opt);
	opt.site = fresh->frontdoor_enabled ? frontdoor_site(new_fd ? new_fd : ss->fd) : NULL;
	if (blob_server_update(ss->srv, &opt, &err)) {
		if (new_fd) {
			frontdoor_free(new_fd); /* it never served; it hands gen back */
			gen = NULL;
		}
		goto failed;
	}

	/* the server's part is switched; now the front door's */
	restart = serve_restart_needed(old, fresh, ss->listen_from_file);
	old_gen = ss->gen;
	old_gen->owns_cfg = 1; /* ctx->cfg becomes fresh: old goes with its generation */
	if (new_fd) {
		ss->fd = new_fd;       /* it holds gen now */
		serve_gen_free(old_gen); /* nothing used it but this thread */
	} else if (ss->fd) {
		/* the old generation goes when the last request that began
		 * with it ends (or now) */
		if (frontdoor_update(ss->fd, &fo, &err)) {
			old_gen->owns_cfg = 0;
			log_event(LOG_LEVEL_ERROR, "config.reload_failed", LF_STR("error", err.message),
				  LF_STR("kept", "the front door's configuration in effect"));
			snprintf(reason, sizeof(reason), "%s", err.message);
			bb_error_clear(&err);
			goto done;
		}
	} else {
		serve_gen_free(old_gen);
	}
	ss->gen = gen;
	gen = NULL;
	ctx->cfg = fresh;
	fresh = NULL;
	loaded = 1;
	goto done;
failed:
	log_event(LOG_LEVEL_ERROR, "config.reload_failed", LF_STR("error", err.message),
		  LF_STR("kept", "the configuration in effect"));
	snprintf(reason, sizeof(reason), "%s", err.message);
	bb_error_clear(&err);
done:
	serve_gen_free(gen); /* owns_cfg is 0: fresh is freed below */
	if (fresh)
		config_free(fresh);
	free(new_reports);
	/* the new file may name another log file or level: reopen first, so
	 * what the reload did is in the file being written from now on */
	serve_reopen_log(ctx, old_level, old_log);
	if (loaded) {
		log_event(LOG_LEVEL_INFO, "config.reloaded",
			  LF_STR("file", ctx->config_path ? ctx->config_path : "-"));
		if (restart)
			log_event(LOG_LEVEL_WARN, "config.restart_needed", LF_STR("keys", restart),
				  LF_STR("kept", "the values in effect until bugbridge serve restarts"));
	}
	log_event(LOG_LEVEL_INFO, "serve.sighup", LF_STR("action", "log reopened"),
		  LF_STR("config", loaded ? "reloaded" : "kept"));
	free(restart);
	free(old_log);
	cli_reload_done(ctx, reason[0] ? reason : NULL, "configuration reloaded");
}

int cmd_serve(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "port-file", required_argument, NULL, SERVE_OPT_PORT_FILE },
		{ "pid-file", required_argument, NULL, SERVE_OPT_PID_FILE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bb_error err = BB_ERROR_INIT;
	struct blob_server_options opt;
	struct blob_server *srv = NULL;
	struct serve_state ss = { NULL, NULL, NULL, 0 };
	const char *port_file = NULL, *pid_file = NULL;
	char *host = NULL, *blob_root = NULL, *reports_dir = NULL;
	sigset_t stop_signals;
	int c, sig = 0, rc = EX_OK, wrote_port = 0, wrote_pid = 0;

	memset(&opt, 0, sizeof(opt));
	while ((c = getopt_long(argc, argv, "l:h", options, NULL)) != -1) {
		switch (c) {
		case 'l': opt.listen = optarg; break;
		case SERVE_OPT_PORT_FILE: port_file = optarg; break;
		case SERVE_OPT_PID_FILE: pid_file = optarg; break;
		case 'h': return cli_usage(stdout, serve_usage);
		default: return cli_usage(stderr, serve_usage);
		}
	}
	if (optind < argc)
		return cli_usage(stderr, serve_usage);
	if ((rc = cli_read_secrets(ctx)))
		return rc;
	cli_warn_secrets(ctx->cfg);

	if (!opt.listen) {
		opt.listen = ctx->cfg->listen;
		ss.listen_from_file = 1;
	}
	if (ctx->cfg->server_threading && !strcmp(ctx->cfg->server_threading, "pool")) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		unsigned long long n = ctx->cfg->server_threads ? ctx->cfg->server_threads
				       : cpus > 0 ? (unsigned long long)cpus : 1;

		opt.threads = n > 1024 ? 1024 : (unsigned)n;
	} else
		opt.threads = 0; /* a thread per connection */
	cli_server_limits(ctx->cfg, &opt);
	reports_dir = reg_report_dir(ctx->cfg);
	if (!reports_dir) {
		bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
		rc = cli_fail(&err);
		goto out;
	}
	serve_live_options(ctx->cfg, reports_dir, &opt);

	/* Blocked before any thread starts, so that every thread of the
	 * server inherits the mask and sigwait() below receives them.  They
	 * stay blocked until exit: a second signal must not kill us while the
	 * server drains. */
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGHUP);
	if ((c = pthread_sigmask(SIG_BLOCK, &stop_signals, NULL)) != 0) {
		bb_error_errno(&err, c, "cannot block signals");
		rc = cli_fail(&err);
		goto out;
	}

	if (serve_gen_new(&ss.gen, ctx->cfg, &err)) {
		rc = cli_fail(&err);
		goto out;
	}
	if (ctx->cfg->frontdoor_enabled) {
		struct frontdoor_options fo;

		serve_frontdoor_options(ctx, ss.gen, &fo);
		if (frontdoor_new(&ss.fd, &fo, &err)) {
			rc = cli_fail(&err);
			goto out;
		}
	}
	opt.site = frontdoor_site(ss.fd);
	if (blob_server_start(&srv, ctx->blobs, &opt, &err)) {
		rc = cli_fail(&err);
		goto out;
	}
	if (port_file) {
		if (serve_write_number(port_file, blob_server_port(srv), &err)) {
			rc = cli_fail(&err);
			goto out;
		}
		wrote_port = 1;
	}
	if (pid_file) {
		if (serve_write_number(pid_file, (unsigned long)getpid(), &err)) {
			rc = cli_fail(&err);
			goto out;
		}
		wrote_pid = 1;
	}
	if (!ctx->quiet) {
		host = serve_url_host(opt.listen);
		blob_root = config_data_path(ctx->cfg, "blobs");
		fprintf(stderr, "bugbridge: serving %s on http://%s:%u/\n",
			blob_root ? blob_root : ctx->cfg->data_dir, host ? host : opt.listen,
			blob_server_port(srv));
		fflush(stderr);
	}

	sd_notifyf(0, "READY=1\nSTATUS=serving on port %u", blob_server_port(srv));
	for (;;) {
		if ((c = sigwait(&stop_signals, &sig)) != 0) {
			bb_error_errno(&err, c, "cannot wait for signals");
			rc = cli_fail(&err);
			goto out;
		}
		if (sig != SIGHUP)
			break;
		ss.srv = srv;
		serve_reload(ctx, &ss);
	}
	sd_notify(0, "STOPPING=1");
	log_event(LOG_LEVEL_INFO, "serve.stopping", LF_STR("signal", sig == SIGINT ? "INT" : "TERM"));
out:
	blob_server_stop(srv);
	/* the front door hands its generation back (ctx->cfg stays for main) */
	if (ss.fd)
		frontdoor_free(ss.fd);
	else
		serve_gen_free(ss.gen);
	if (wrote_port)
		unlink(port_file);
	if (wrote_pid)
		unlink(pid_file);
	cli_reload_forget(ctx);
	free(host);
	free(blob_root);
	free(reports_dir);
	return rc;
}
