/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge bugs: the mirrored public bugs, as `regressions list` lists
 * the regressions (issue 38, item 4). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "bugzilla/bug.h"
#include "cli/cli.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/text.h"
#include "tracker/report.h"
#include "web/bugpages.h"

#define BUGS_JSON_VERSION 1

static const char usage_bugs[] =
	"usage: bugbridge bugs [--json] [--all]\n"
	"\n"
	"The bugs the bridge mirrors to the lists (never a restricted one), most\n"
	"recent activity first: id, status, age and days since the last\n"
	"activity, needinfo state, whether it is a tracked regression, product /\n"
	"component and summary.  Without --all only the open ones (no\n"
	"resolution).\n"
	"\n"
	"Options:\n"
	"  --json          machine-readable output (\"version\": 1)\n"
	"  --all           closed bugs too\n"
	"  -h, --help      show this help\n";

enum { BUGS_OPT_ALL = 256 };

static long long days_since(time_t then, time_t now)
{
	return then && now > then ? (long long)(now - then) / 86400 : 0;
}

static void add_string(struct json_object *o, const char *key, const char *value)
{
	json_object_object_add(o, key, value ? json_object_new_string(value) : NULL);
}

static void add_time(struct json_object *o, const char *key, time_t t)
{
	char iso[32];
	struct tm tm;

	if (!t || !gmtime_r(&t, &tm)) {
		json_object_object_add(o, key, NULL);
		return;
	}
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_object_add(o, key, json_object_new_string(iso));
}

/* The latest needinfo question of bug as JSON (NULL: none). */
static struct json_object *needinfo_json(struct store *db, long long bug)
{
	sqlite3_stmt *q = NULL;
	struct json_object *o = NULL;

	if (store_prepare(db, &q, "SELECT state, reporter, asked_at, reminded_at, closed_at "
			  "FROM needinfo WHERE bug_id = ?1 ORDER BY id DESC LIMIT 1", NULL))
		return NULL;
	sqlite3_bind_int64(q, 1, bug);
	if (sqlite3_step(q) == SQLITE_ROW) {
		o = json_object_new_object();
		add_string(o, "state", (const char *)sqlite3_column_text(q, 0));
		/* an address asked is not printed: only whether it was the reporter */
		json_object_object_add(o, "reporter_asked",
				       json_object_new_boolean(sqlite3_column_int(q, 1)));
		add_time(o, "asked", (time_t)sqlite3_column_int64(q, 2));
		add_time(o, "reminded", (time_t)sqlite3_column_int64(q, 3));
		add_time(o, "closed", (time_t)sqlite3_column_int64(q, 4));
	}
	sqlite3_finalize(q);
	return o;
}

/* Prints text from Bugzilla as one clean line (no terminal escapes). */
static void print_clean(const char *text, size_t max)
{
	struct buf b = BUF_INIT;

	if (reg_text_line(&b, text, max) == BB_OK)
		fputs(b.data, stdout);
	buf_release(&b);
}

static int bugs_list(struct cli_context *ctx, int json, int all)
{
	const struct bb_config *cfg = ctx->cfg;
	struct json_object *top = NULL, *arr = NULL;
	sqlite3_stmt *q = NULL;
	const char *door = cfg->frontdoor_base_url ? cfg->frontdoor_base_url : cfg->blob_base_url;
	size_t door_len = door ? strlen(door) : 0;
	time_t now = bb_now();
	unsigned long shown = 0;
	int rc;

	if ((rc = cli_open_store(ctx, STORE_READ_ONLY)))
		return rc;
	while (door_len && door[door_len - 1] == '/')
		door_len--;
	if (store_prepare(ctx->db, &q,
			  "SELECT b.id, b.summary, b.product, b.component, b.status, b.resolution,"
			  " b.creation_time, b.last_change_time,"
			  " (SELECT min(r.id) FROM reg_regression r WHERE r.bug_id = b.id)"
			  " FROM bz_bug b WHERE " BZ_BUG_PUBLIC_SQL_AS("b.")
			  " AND (?1 OR b.resolution = '')"
			  " ORDER BY b.last_change_time DESC, b.id DESC", NULL))
		return EX_SOFTWARE;
	sqlite3_bind_int(q, 1, all);
	if (json) {
		top = json_object_new_object();
		arr = json_object_new_array();
		json_object_object_add(top, "version", json_object_new_int(BUGS_JSON_VERSION));
	}
	while (sqlite3_step(q) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(q, 0);
		time_t created = (time_t)sqlite3_column_int64(q, 6);
		time_t changed = (time_t)sqlite3_column_int64(q, 7);
		long long reg = sqlite3_column_int64(q, 8);
		char *root = NULL;
		char *thread = bugpages_thread_link(cfg, ctx->db, id, &root);

		shown++;
		if (json) {
			struct json_object *o = json_object_new_object();
			char *url = cfg->bz_url ? str_printf("%s/show_bug.cgi?id=%lld", cfg->bz_url, id)
						: NULL;
			char *page = cfg->frontdoor_enabled && door_len
					     ? str_printf("%.*s/bug/%lld", (int)door_len, door, id)
					     : NULL;

			json_object_object_add(o, "id", json_object_new_int64(id));
			add_string(o, "summary", (const char *)sqlite3_column_text(q, 1));
			add_string(o, "product", (const char *)sqlite3_column_text(q, 2));
			add_string(o, "component", (const char *)sqlite3_column_text(q, 3));
			add_string(o, "status", (const char *)sqlite3_column_text(q, 4));
			add_string(o, "resolution", (const char *)sqlite3_column_text(q, 5));
			add_time(o, "created", created);
			add_time(o, "last_activity", changed);
			json_object_object_add(o, "age_days",
					       json_object_new_int64(days_since(created, now)));
			json_object_object_add(o, "idle_days",
					       json_object_new_int64(days_since(changed, now)));
			json_object_object_add(o, "needinfo", needinfo_json(ctx->db, id));
			json_object_object_add(o, "regression", json_object_new_boolean(reg > 0));
			json_object_object_add(o, "regression_id", json_object_new_int64(reg));
			add_string(o, "url", url);
			add_string(o, "thread_message_id", root);
			add_string(o, "thread", thread);
			add_string(o, "page", page);
			json_object_array_add(arr, o);
			free(url);
			free(page);
		} else {
			char needinfo[64];

			if (shown == 1)
				printf("%7s  %-11s  %5s  %5s  %-24s  %-4s  %s\n", "ID", "STATUS",
				       "AGE", "IDLE", "NEEDINFO", "REG", "PRODUCT/COMPONENT: SUMMARY");
			bugpages_needinfo(ctx->db, id, needinfo, sizeof(needinfo));
			printf("%7lld  %-11.11s  %4lldd  %4lldd  %-24s  %-4s  ", id,
			       (const char *)sqlite3_column_text(q, 4), days_since(created, now),
			       days_since(changed, now), *needinfo ? needinfo : "-",
			       reg > 0 ? "yes" : "-");
			print_clean((const char *)sqlite3_column_text(q, 2), 60);
			putchar('/');
			print_clean((const char *)sqlite3_column_text(q, 3), 60);
			fputs(": ", stdout);
			print_clean((const char *)sqlite3_column_text(q, 1), 100);
			putchar('\n');
		}
		free(thread);
		free(root);
	}
	sqlite3_finalize(q);
	if (json) {
		json_object_object_add(top, "bugs", arr);
		cli_print_json(top);
		json_object_put(top);
	} else if (!shown && !ctx->quiet) {
		fprintf(stderr, "bugbridge: no %smirrored bugs\n", all ? "" : "open ");
	}
	return EX_OK;
}

int cmd_bugs(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "all", no_argument, NULL, BUGS_OPT_ALL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, json = 0, all = 0;

	while ((opt = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case BUGS_OPT_ALL: all = 1; break;
		case 'h': return cli_usage(stdout, usage_bugs);
		default: return cli_usage(stderr, usage_bugs);
		}
	}
	if (optind != argc)
		return cli_usage(stderr, usage_bugs);
	return bugs_list(ctx, json, all);
}
