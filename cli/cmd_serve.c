/* bugbridge serve: the blob store over HTTP until SIGTERM or SIGINT. */
#include "config.h"

#include <errno.h>
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
#include "core/log.h"
#include "mail/maintainers.h"
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

/* What the front door needs besides the store. */
struct serve_frontdoor {
	struct mnt_file *maintainers;
	struct router *router;
	struct bz_client *bz;
	struct frontdoor *fd;
};

static void serve_frontdoor_close(struct serve_frontdoor *f)
{
	frontdoor_free(f->fd);
	bz_client_free(f->bz);
	router_free(f->router);
	mnt_free(f->maintainers);
	memset(f, 0, sizeof(*f));
}

static enum bb_status serve_frontdoor_open(struct cli_context *ctx, struct serve_frontdoor *f,
					   struct bb_error *err)
{
	const struct bb_config *cfg = ctx->cfg;
	struct frontdoor_options fo;
	enum bb_status st;

	if (cfg->maintainers_file && (st = mnt_load(&f->maintainers, cfg->maintainers_file, err)))
		return st;
	if ((st = router_new(&f->router, cfg, f->maintainers, err)))
		return st;
	if (cfg->frontdoor_create_bugs && cfg->bz_url) {
		struct bz_client_options o;

		memset(&o, 0, sizeof(o));
		o.url = cfg->bz_url;
		o.api_key = cfg->bz_api_key;
		o.key_in_header = cfg->bz_key_in_header;
		o.ca_file = cfg->bz_ca_file;
		o.proxy = cfg->bz_proxy;
		o.timeout = (long)cfg->bz_timeout;
		o.subsystem_field = cfg->bz_subsystem_field;
		o.page_size = (unsigned)cfg->bz_page_size;
		if ((st = bz_client_new(&f->bz, &o, err)))
			return st;
	}
	memset(&fo, 0, sizeof(fo));
	fo.cfg = cfg;
	fo.blobs = ctx->blobs;
	fo.router = f->router;
	fo.bz = f->bz;
	fo.max_upload_size = cfg->max_upload_size;
	return frontdoor_new(&f->fd, &fo, err);
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

void cli_server_limits(const struct bb_config *cfg, struct blob_server_options *opt)
{
	opt->max_connections = serve_clamp(cfg->server_max_connections);
	opt->max_per_client = serve_clamp(cfg->server_max_connections_per_client);
	opt->header_timeout = serve_clamp(cfg->server_header_timeout < 0
						  ? 0 : (unsigned long long)cfg->server_header_timeout);
	opt->body_timeout = serve_clamp(cfg->server_body_timeout < 0
						? 0 : (unsigned long long)cfg->server_body_timeout);
	opt->trusted_proxies = cfg->server_trusted_proxies;
	serve_raise_nofile(opt->max_connections);
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
	struct serve_frontdoor front = { NULL, NULL, NULL, NULL };
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

	if (!opt.listen)
		opt.listen = ctx->cfg->listen;
	opt.upload_token = ctx->cfg->upload_token;
	opt.max_upload_size = ctx->cfg->max_upload_size;
	opt.threads = ctx->cfg->server_threads > 1024 ? 1024 : (unsigned)ctx->cfg->server_threads;
	cli_server_limits(ctx->cfg, &opt);
	reports_dir = reg_report_dir(ctx->cfg);
	if (!reports_dir) {
		bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
		rc = cli_fail(&err);
		goto out;
	}
	opt.reports_dir = reports_dir;

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

	if (ctx->cfg->frontdoor_enabled && serve_frontdoor_open(ctx, &front, &err)) {
		rc = cli_fail(&err);
		goto out;
	}
	opt.site = frontdoor_site(front.fd);
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
		/* the log file is reopened (logrotate); the rest of the
		 * configuration is read at start and needs a restart */
		sd_notify(0, "RELOADING=1");
		cli_reopen_log(ctx);
		log_event(LOG_LEVEL_INFO, "serve.sighup", LF_STR("action", "log reopened"),
			  LF_STR("config", "unchanged until a restart"));
		sd_notify(0, "READY=1");
	}
	sd_notify(0, "STOPPING=1");
	log_event(LOG_LEVEL_INFO, "serve.stopping", LF_STR("signal", sig == SIGINT ? "INT" : "TERM"));
out:
	blob_server_stop(srv);
	serve_frontdoor_close(&front);
	if (wrote_port)
		unlink(port_file);
	if (wrote_pid)
		unlink(pid_file);
	free(host);
	free(blob_root);
	free(reports_dir);
	return rc;
}
