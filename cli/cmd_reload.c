/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge reload: the unit's ExecReload=.  Signals a daemon or server
 * (SIGHUP), waits for its answer and exits non-zero when it refused the
 * file, so that "systemctl reload" fails when the reload did.  (Debian 12's
 * systemd 252 has no Type=notify-reload, which would do this itself.) */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "cli/cli.h"
#include "core/fsutil.h"

static const char usage_reload[] =
	"usage: bugbridge reload [--timeout DURATION] PID\n"
	"\n"
	"Asks the bugbridge daemon or server PID to read its configuration again\n"
	"(SIGHUP) and waits for its answer: exit 0 when it took the new file, 78\n"
	"when it refused it (it keeps the configuration in effect; the reason is\n"
	"printed and logged), 75 when no answer came in time.  The systemd units\n"
	"run it as ExecReload=, with $MAINPID; the answer is in $RUNTIME_DIRECTORY\n"
	"there, else in the data folder.\n"
	"\n"
	"  --timeout DURATION  how long to wait for the answer (default 90s; a\n"
	"                      daemon answers between rounds)\n";

/* The serial of the answer at path, and its text after it; 0 when there
 * is none yet. */
static unsigned long read_answer(const char *path, char **rest)
{
	char *text = NULL, *end;
	unsigned long serial = 0;

	*rest = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return 0;
	serial = strtoul(text, &end, 10);
	if (end == text || *end != ' ') {
		g_free(text);
		return 0;
	}
	*rest = g_strdup(g_strchomp(end + 1));
	g_free(text);
	return serial;
}

int cmd_reload(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long timeout = 90;
	char *path, *answer = NULL, *end;
	unsigned long before;
	struct timespec start, now;
	long pid;
	int opt, rc = EX_TEMPFAIL;

	while ((opt = getopt_long(argc, argv, "t:h", options, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (parse_duration(optarg, &timeout) != 0 || timeout <= 0) {
				cli_error("--timeout: \"%s\" is not a duration (like 30s, 2m)", optarg);
				return EX_USAGE;
			}
			break;
		case 'h': return cli_usage(stdout, usage_reload);
		default: return cli_usage(stderr, usage_reload);
		}
	}
	if (optind + 1 != argc)
		return cli_usage(stderr, usage_reload);
	errno = 0;
	pid = strtol(argv[optind], &end, 10);
	if (errno || *end || pid <= 1) {
		cli_error("\"%s\" is not a process id", argv[optind]);
		return EX_USAGE;
	}
	/* the answer is in $RUNTIME_DIRECTORY under systemd; elsewhere in the
	 * data folder, which the configuration names */
	if (!getenv("RUNTIME_DIRECTORY") || getenv("RUNTIME_DIRECTORY")[0] != '/') {
		struct bb_error err = BB_ERROR_INIT;

		if (config_load(&ctx->cfg, ctx->config_path, &err)) {
			/* the process reads the same file: it will refuse it */
			kill((pid_t)pid, SIGHUP);
			cli_error("process %ld will refuse the new configuration and keep the one "
				  "in effect: %s", pid, err.message);
			return EX_CONFIG;
		}
	}
	if (!(path = cli_reload_answer_path(ctx->cfg, pid))) {
		cli_error("out of memory");
		return EX_OSERR;
	}
	before = read_answer(path, &answer);
	g_free(answer);
	answer = NULL;
	if (kill((pid_t)pid, SIGHUP) != 0) {
		int e = errno;

		cli_error("cannot signal process %ld: %s", pid, strerror(e));
		free(path);
		return e == EPERM ? EX_NOPERM : EX_NOINPUT;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		unsigned long serial = read_answer(path, &answer);

		if (serial && serial != before)
			break;
		g_free(answer);
		answer = NULL;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= timeout) {
			cli_error("process %ld did not answer the reload within %llds (%s); it may "
				  "still take it", pid, timeout,
				  kill((pid_t)pid, 0) == 0 ? "it is running" : "it is gone");
			free(path);
			return EX_TEMPFAIL;
		}
		g_usleep(50 * 1000);
	}
	if (!strcmp(answer, "ok")) {
		if (!ctx->quiet)
			fprintf(stderr, "bugbridge: process %ld reloaded its configuration\n", pid);
		rc = EX_OK;
	} else {
		cli_error("process %ld refused the new configuration and keeps the one in effect: %s",
			  pid, !strncmp(answer, "refused ", 8) ? answer + 8 : answer);
		rc = EX_CONFIG;
	}
	g_free(answer);
	free(path);
	return rc;
}
