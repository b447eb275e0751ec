/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge regressions: list, show and report the tracked regressions. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "bridge/sync.h"
#include "cli/cli.h"
#include "core/buf.h"
#include "mail/outbox.h"
#include "tracker/report.h"
#include "tracker/tracker.h"

static const char usage_regressions[] =
	"usage: bugbridge regressions [list] [--json] [--all | --state STATE]\n"
	"       bugbridge regressions show [--json] ID\n"
	"       bugbridge regressions report [--dir DIR] [--send] [--now SECONDS]\n"
	"\n"
	"The regressions the tracker knows about.\n"
	"\n"
	"  list     the open ones (open and fix-incoming), newest first, with age\n"
	"           and last activity in days; --all lists every one, --state\n"
	"           only those in STATE (open, fix-incoming, fixed, resolved,\n"
	"           inconclusive, duplicate)\n"
	"  show     one regression with its links and history\n"
	"  report   writes the reports to DIR (default [tracker] report_dir):\n"
	"           index.html, trees/<tree>.html, regression/<id>.html,\n"
	"           regressions.json, changes.atom and weekly.txt, which\n"
	"           `bugbridge serve` serves under /regressions/; --send also\n"
	"           queues the weekly report mail to [tracker] report_lists and\n"
	"           delivers the outbox\n"
	"\n"
	"Options:\n"
	"  --json          machine-readable output (\"version\": 1)\n"
	"  --all           list every regression, whatever its state\n"
	"  --state STATE   list the regressions in STATE\n"
	"  --dir DIR       write the reports there\n"
	"  --send          queue and deliver the weekly report mail\n"
	"  --now SECONDS   write the reports as of that Unix time (for tests)\n"
	"  -h, --help      show this help\n";

enum {
	REG_OPT_STATE = 256,
	REG_OPT_DIR,
	REG_OPT_SEND,
	REG_OPT_NOW,
	REG_OPT_ALL,
};

static long long stale_after(const struct cli_context *ctx)
{
	return ctx->cfg->tracker_stale_after > 0 ? ctx->cfg->tracker_stale_after : 90LL * 86400;
}

static long long days_since(time_t then, time_t now)
{
	return then && now > then ? (long long)(now - then) / 86400 : 0;
}

static void print_day(char *out, size_t len, time_t t)
{
	struct tm tm;

	if (!t) {
		snprintf(out, len, "-");
		return;
	}
	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%d %H:%M UTC", &tm);
}

/* Prints text from mail or Bugzilla as one clean line (no terminal
 * escapes), at most max characters (0: all). */
static void print_clean(const char *text, size_t max)
{
	struct buf b = BUF_INIT;

	if (reg_text_line(&b, text, max) == BB_OK)
		fputs(b.data, stdout);
	buf_release(&b);
}

static int parse_id(const char *text, long long *id)
{
	char *end;

	if (*text == '#')
		text++;
	errno = 0;
	*id = strtoll(text, &end, 10);
	return !errno && end != text && !*end && *id > 0;
}

static int regressions_list(struct cli_context *ctx, int json, int all, const char *state)
{
	struct bb_error err = BB_ERROR_INIT;
	struct reg_regression *regs = NULL;
	struct json_object *top = NULL, *arr = NULL;
	enum reg_state want = REG_STATE_OPEN;
	size_t n = 0, shown = 0;
	time_t now = time(NULL);
	char *base_url = NULL;
	int rc;

	if (state) {
		want = reg_state_parse(state);
		if (strcmp(reg_state_str(want), state)) {
			cli_error("unknown state \"%s\" (open, fix-incoming, fixed, resolved, "
				  "inconclusive, duplicate)", state);
			return EX_USAGE;
		}
	}
	if ((rc = cli_open_store(ctx, STORE_READ_ONLY)))
		return rc;
	if (reg_load_all(ctx->db, now, stale_after(ctx), &regs, &n, &err))
		return cli_fail(&err);
	for (size_t i = 0; i < n && !ctx->cfg->mail_show_addresses; i++)
		reg_regression_hide_addresses(&regs[i]);
	base_url = reg_report_base_url(ctx->cfg);
	if (json) {
		top = json_object_new_object();
		arr = json_object_new_array();
		json_object_object_add(top, "version", json_object_new_int(REG_REPORT_VERSION));
	}
	for (size_t i = 0; i < n; i++) {
		const struct reg_regression *r = &regs[i];
		int active = r->state == REG_STATE_OPEN || r->state == REG_STATE_FIX_INCOMING;

		if (state ? r->state != want : !all && !active)
			continue;
		shown++;
		if (json) {
			struct reg_report_item it = { r, NULL, 0, NULL, 0 };

			json_object_array_add(arr, reg_report_json(&it, now, base_url, 0));
			continue;
		}
		if (shown == 1)
			printf("%6s  %-12s  %-12s  %5s  %5s  %s\n", "ID", "STATE", "BRANCH", "AGE",
			       "IDLE", "TITLE");
		printf("%6lld  %-12s  %-12s  %4lldd  ", r->id, reg_state_str(r->state), r->branch,
		       days_since(r->created, now));
		if (r->last_activity)
			printf("%4lldd  ", days_since(r->last_activity, now));
		else
			printf("%5s  ", "-");
		print_clean(r->title, 100);
		if (r->stale && active)
			fputs("  [stale]", stdout);
		if (r->backburner)
			fputs("  [back burner]", stdout);
		putchar('\n');
	}
	if (json) {
		json_object_object_add(top, "regressions", arr);
		cli_print_json(top);
		json_object_put(top);
	} else if (!shown && !ctx->quiet) {
		fprintf(stderr, "bugbridge: no %s%sregressions\n", state ? state : "",
			state ? " " : all ? "" : "open ");
	}
	for (size_t i = 0; i < n; i++)
		reg_regression_release(&regs[i]);
	free(regs);
	free(base_url);
	return EX_OK;
}

static void show_field(const char *label, const char *value)
{
	if (!value || !*value)
		return;
	printf("%-15s ", label);
	print_clean(value, 0);
	putchar('\n');
}

static int regressions_show(struct cli_context *ctx, int json, long long id)
{
	struct bb_error err = BB_ERROR_INIT;
	struct reg_regression r;
	struct reg_link *links = NULL;
	struct reg_event *events = NULL;
	size_t nlinks = 0, nevents = 0;
	time_t now = time(NULL);
	char when[40], *base_url = NULL, *triage = NULL;
	int rc;

	if ((rc = cli_open_store(ctx, STORE_READ_ONLY)))
		return rc;
	memset(&r, 0, sizeof(r));
	if (reg_load_one(ctx->db, id, now, stale_after(ctx), &r, &links, &nlinks, &events,
			 &nevents, &err))
		return cli_fail(&err);
	if (!ctx->cfg->mail_show_addresses) {
		reg_regression_hide_addresses(&r);
		for (size_t i = 0; i < nevents; i++)
			reg_event_hide_addresses(&events[i]);
	}
	base_url = reg_report_base_url(ctx->cfg);
	triage = reg_triage_block(ctx->db, r.bug_id);
	if (json) {
		struct reg_report_item it = { &r, links, nlinks, events, nevents };
		struct json_object *top = json_object_new_object();
		struct json_object *reg = reg_report_json(&it, now, base_url, 1);

		/* the bug's triage block (bugbridge.conf(5), [routing] by_content) */
		json_object_object_add(reg, "triage", triage ? json_object_new_string(triage) : NULL);
		json_object_object_add(top, "version", json_object_new_int(REG_REPORT_VERSION));
		json_object_object_add(top, "regression", reg);
		cli_print_json(top);
		json_object_put(top);
		goto out;
	}
	printf("Regression #%lld: ", r.id);
	print_clean(r.title, 0);
	printf("\n%-15s %s%s%s\n", "State:", reg_state_str(r.state),
	       r.stale && (r.state == REG_STATE_OPEN || r.state == REG_STATE_FIX_INCOMING) ? ", stale" : "",
	       r.backburner ? ", on the back burner" : "");
	show_field("Tree:", r.branch);
	print_day(when, sizeof(when), r.created);
	printf("%-15s %lld day%s (reported %s)\n", "Age:", days_since(r.created, now),
	       days_since(r.created, now) == 1 ? "" : "s", when);
	if (r.last_activity) {
		print_day(when, sizeof(when), r.last_activity);
		long long d = days_since(r.last_activity, now);

		printf("%-15s %lld day%s ago (%s)", "Last activity:", d, d == 1 ? "" : "s", when);
		if (*r.last_activity_by) {
			fputs(" by ", stdout);
			print_clean(r.last_activity_by, 0);
		}
		putchar('\n');
	}
	printf("%-15s %lld\n", "Activities:", r.activity_count);
	show_field("Introduced:", r.introduced);
	show_field("Culprit:", r.culprit);
	show_field("Reported by:", r.reporter);
	show_field("Report:", r.report_url);
	show_field("Report mail:", r.report_msgid);
	if (r.bug_id > 0)
		printf("%-15s %lld\n", "Bug:", r.bug_id);
	show_field("Fix:", r.fix_commit);
	show_field("Fix subject:", r.fix_subject);
	show_field("Fix seen in:", r.fix_tree);
	if (r.dup_of > 0)
		printf("%-15s #%lld\n", "Duplicate of:", r.dup_of);
	show_field(r.backburner ? "Back burner:" : "Resolution:", r.resolution);
	printf("%-15s %s/regression/%lld.html\n", "Page:", base_url ? base_url : "", r.id);
	for (char *line = triage, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		print_clean(line, 0);   /* each line of the bug's triage block */
		putchar('\n');
		if (nl)
			*nl = '\n';
	}
	if (nlinks) {
		printf("Links:\n");
		for (size_t i = 0; i < nlinks; i++) {
			fputs("  ", stdout);
			print_clean(links[i].url, 0);
			if (*links[i].title) {
				fputs("  ", stdout);
				print_clean(links[i].title, 0);
			}
			if (strcmp(links[i].kind, "link"))
				printf(" (%s)", links[i].kind);
			putchar('\n');
		}
	}
	if (nevents) {
		printf("History:\n");
		for (size_t i = 0; i < nevents; i++) {
			print_day(when, sizeof(when), events[i].time);
			printf("  %s  ", when);
			print_clean(events[i].kind, 40);
			if (*events[i].text) {
				fputs(": ", stdout);
				print_clean(events[i].text, 0);
			}
			if (*events[i].message_id) {
				fputs(" <", stdout);
				print_clean(events[i].message_id, 0);
				putchar('>');
			}
			if (*events[i].unverified) {
				fputs(" [sender not authenticated: ", stdout);
				print_clean(events[i].unverified, 0);
				putchar(']');
			}
			putchar('\n');
		}
	}
out:
	free(triage);
	reg_regression_release(&r);
	reg_links_free(links, nlinks);
	reg_events_free(events, nevents);
	free(base_url);
	return EX_OK;
}

static int regressions_report(struct cli_context *ctx, const char *dir_opt, int send, time_t now)
{
	struct bb_error err = BB_ERROR_INIT;
	char *dir = NULL, *message_id = NULL;
	int rc;

	if (send && (!ctx->cfg->tracker_report_lists || !*ctx->cfg->tracker_report_lists)) {
		cli_error("the weekly report has no recipients: set [tracker] report_lists");
		return EX_CONFIG;
	}
	/* the SMTP password, read only to send */
	if ((send && (rc = cli_read_secrets(ctx))) ||
	    (rc = cli_open_store(ctx, send ? STORE_READ_WRITE : STORE_READ_ONLY)))
		return rc;
	dir = dir_opt ? strdup(dir_opt) : reg_report_dir(ctx->cfg);
	if (!dir) {
		bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (reg_report_write(ctx->db, ctx->cfg, dir, now, &err))
		goto fail;
	if (!ctx->quiet)
		fprintf(stderr, "bugbridge: reports written to %s\n", dir);
	if (send) {
		struct outbox_options oopt;
		struct outbox_stats st;

		if (reg_report_weekly_mail(ctx->db, ctx->cfg, now, &message_id, &err))
			goto fail;
		memset(&st, 0, sizeof(st));
		sync_outbox_options(ctx->cfg, &oopt);
		if (outbox_deliver(ctx->db, &oopt, time(NULL), &st, &err))
			goto fail;
		if (!ctx->quiet)
			fprintf(stderr, "bugbridge: weekly report <%s> queued; outbox: %lu sent, "
				"%lu deferred, %lu failed\n", message_id, st.sent, st.deferred,
				st.failed);
		if (st.failed || st.deferred)
			rc = EX_TEMPFAIL;
	}
	free(dir);
	free(message_id);
	return rc;
fail:
	free(dir);
	free(message_id);
	return cli_fail(&err);
}

int cmd_regressions(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "all", no_argument, NULL, REG_OPT_ALL },
		{ "state", required_argument, NULL, REG_OPT_STATE },
		{ "dir", required_argument, NULL, REG_OPT_DIR },
		{ "send", no_argument, NULL, REG_OPT_SEND },
		{ "now", required_argument, NULL, REG_OPT_NOW },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *state = NULL, *dir = NULL, *sub = "list";
	long long now = (long long)time(NULL), id = 0;
	int opt, json = 0, all = 0, send = 0, rest;

	while ((opt = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case REG_OPT_ALL: all = 1; break;
		case REG_OPT_STATE: state = optarg; break;
		case REG_OPT_DIR: dir = optarg; break;
		case REG_OPT_SEND: send = 1; break;
		case REG_OPT_NOW: {
			char *end;

			errno = 0;
			now = strtoll(optarg, &end, 10);
			if (errno || end == optarg || *end || now <= 0) {
				cli_error("--now wants Unix seconds, not \"%s\"", optarg);
				return EX_USAGE;
			}
			break;
		}
		case 'h': return cli_usage(stdout, usage_regressions);
		default: return cli_usage(stderr, usage_regressions);
		}
	}
	rest = argc - optind;
	if (rest > 0)
		sub = argv[optind];
	if (!strcmp(sub, "list")) {
		if (rest > 1 || dir || send || (all && state))
			return cli_usage(stderr, usage_regressions);
		return regressions_list(ctx, json, all, state);
	}
	if (!strcmp(sub, "show")) {
		if (rest != 2 || all || state || dir || send)
			return cli_usage(stderr, usage_regressions);
		if (!parse_id(argv[optind + 1], &id)) {
			cli_error("not a regression id: %s", argv[optind + 1]);
			return EX_USAGE;
		}
		return regressions_show(ctx, json, id);
	}
	if (!strcmp(sub, "report")) {
		if (rest != 1 || json || all || state)
			return cli_usage(stderr, usage_regressions);
		return regressions_report(ctx, dir, send, (time_t)now);
	}
	cli_error("no such regressions subcommand: %s", sub);
	return cli_usage(stderr, usage_regressions);
}
