/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge digest: each list's digest of its open bugs, by hand (the
 * daemon mails them on [digest] schedule; bridge/digest.h). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "bridge/digest.h"
#include "cli/cli.h"
#include "core/clock.h"
#include "mail/outbox.h"

#define DIGEST_JSON_VERSION 1

static const char usage_digest[] =
	"usage: bugbridge digest [--dry-run] [--json] [--list ADDRESS] [--period NAME]\n"
	"\n"
	"Mails each list that has open bugs its digest: the bugs numbered oldest\n"
	"first with age, last activity, needinfo state, regression flag and link,\n"
	"those new since the list's last digest marked, and the counts.  A reply\n"
	"with \"#bugbridge <n> <command>\" acts on entry n.  Each\n"
	"list gets one digest a period (the [digest] schedule's week or month,\n"
	"else the UTC day): run again, it mails nothing more.  Lists in [digest]\n"
	"exclude_lists are left out, and so are bugs muted with \"#bugbridge\n"
	"no-reminders\" and private or restricted ones.\n"
	"\n"
	"Options:\n"
	"  --dry-run       print the digests; record, queue and send nothing\n"
	"  --json          list the digests as JSON (\"version\": 1)\n"
	"  --list ADDRESS  only this list's digest\n"
	"  --period NAME   the period the digest is for (default: see above)\n"
	"  -h, --help      show this help\n";

struct digest_out {
	int json, dry_run, quiet;
	struct json_object *arr;
};

static void add_time(struct json_object *o, const char *key, time_t t)
{
	char day[16];

	bb_day_text(t, day, sizeof(day));
	json_object_object_add(o, key, t > 0 ? json_object_new_string(day) : NULL);
}

static void seen(void *ctx, const char *list, const char *period, const char *message_id,
		 const struct digest_entry *e, size_t n, const char *text, int already)
{
	struct digest_out *out = ctx;
	struct json_object *d, *entries;

	if (!out->json) {
		if (out->dry_run) {
			printf("To: %s\nMessage-ID: <%s>\n\n%s\n", list, message_id, text);
		} else if (!out->quiet) {
			printf("%s %s <%s> %zu bug%s\n", already ? "sent before" : "queued", list,
			       message_id, n, n == 1 ? "" : "s");
		}
		return;
	}
	d = json_object_new_object();
	entries = json_object_new_array();
	json_object_object_add(d, "list", json_object_new_string(list));
	json_object_object_add(d, "period", json_object_new_string(period));
	json_object_object_add(d, "message_id", json_object_new_string(message_id));
	json_object_object_add(d, "state", json_object_new_string(
		out->dry_run && !already ? "would be queued" : already ? "sent before" : "queued"));
	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "n", json_object_new_int(e[i].n));
		json_object_object_add(x, "bug", json_object_new_int64(e[i].bug_id));
		json_object_object_add(x, "summary", json_object_new_string(e[i].summary));
		add_time(x, "created", e[i].created);
		add_time(x, "last_activity", e[i].changed);
		json_object_object_add(x, "needinfo", *e[i].needinfo
					  ? json_object_new_string(e[i].needinfo) : NULL);
		json_object_object_add(x, "regression", json_object_new_boolean(e[i].regression));
		json_object_object_add(x, "new", json_object_new_boolean(e[i].is_new));
		json_object_object_add(x, "url", *e[i].url ? json_object_new_string(e[i].url) : NULL);
		json_object_array_add(entries, x);
	}
	json_object_object_add(d, "entries", entries);
	json_object_array_add(out->arr, d);
}

int cmd_digest(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "list", required_argument, NULL, 'l' },
		{ "period", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bb_error err = BB_ERROR_INIT;
	struct digest_out out = { 0, 0, ctx->quiet, NULL };
	struct digest_stats st;
	struct cli_bridge b;
	const char *list = NULL, *period = NULL;
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'n': out.dry_run = 1; break;
		case 'j': out.json = 1; break;
		case 'l': list = optarg; break;
		case 'p': period = optarg; break;
		case 'h': return cli_usage(stdout, usage_digest);
		default: return cli_usage(stderr, usage_digest);
		}
	}
	if (optind != argc || (period && (!*period || strlen(period) > 24 ||
					  strspn(period, "0123456789-W") != strlen(period))))
		return cli_usage(stderr, usage_digest);
	if ((rc = cli_bridge_open(ctx, &b)))
		return rc;
	b.sc.dry_run = out.dry_run;
	if (out.json)
		out.arr = json_object_new_array();
	if (digest_run(&b.sc, period, list, out.dry_run, seen, &out, &st, &err)) {
		json_object_put(out.arr);
		cli_bridge_close(&b);
		return cli_fail(&err);
	}
	if (out.json) {
		struct json_object *top = json_object_new_object();

		json_object_object_add(top, "version", json_object_new_int(DIGEST_JSON_VERSION));
		json_object_object_add(top, "digests", out.arr);
		puts(json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(top);
	}
	if (!out.dry_run && st.queued) {
		struct outbox_options oopt;
		struct outbox_stats os;

		memset(&os, 0, sizeof(os));
		sync_outbox_options(ctx->cfg, &oopt);
		if (outbox_deliver(b.sc.db, &oopt, time(NULL), &os, &err)) {
			cli_bridge_close(&b);
			return cli_fail(&err);
		}
		rc = cli_delivery_exit(&os);
	}
	if (!ctx->quiet)
		fprintf(stderr, "bugbridge: digests: %lu list%s, %lu queued, %lu sent before; "
			"%lu bug%s listed, %lu no longer public left out\n", st.lists,
			st.lists == 1 ? "" : "s", st.queued, st.already, st.entries,
			st.entries == 1 ? "" : "s", st.hidden);
	cli_bridge_close(&b);
	return rc;
}
