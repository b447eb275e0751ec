/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge status and bugbridge outbox. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "bridge/sync.h"
#include "cli/cli.h"
#include "mail/outbox.h"

static const char usage_status[] =
	"usage: bugbridge status [--json]\n"
	"\n"
	"Cursors, mirrored bugs and comments, outbox counts and the mails that\n"
	"failed with the server's answer.\n";

static const char usage_outbox[] =
	"usage: bugbridge outbox [--json] [--state queued|sent|failed]\n"
	"       bugbridge outbox retry\n"
	"       bugbridge outbox deliver\n"
	"\n"
	"Lists the outbox; retry puts failed and deferred mails back in the\n"
	"queue; deliver sends what is due now.\n";

static long long count_of(struct store *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long n = 0;

	if (store_prepare(db, &st, sql, NULL) == BB_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void print_time(char *out, size_t len, time_t t)
{
	struct tm tm;

	if (!t) {
		snprintf(out, len, "-");
		return;
	}
	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The latest refused mail commands with why (newest first): into array
 * when given, else printed. */
#define STATUS_REFUSALS_MAX 10
static void refusals(struct store *db, struct json_object *array)
{
	sqlite3_stmt *st = NULL;

	if (store_prepare(db, &st,
			  "SELECT m.message_id, m.from_addr, c.bug_id, c.line, c.note FROM in_command c"
			  " JOIN in_mail m ON m.id = c.mail WHERE c.state = 'refused'"
			  " ORDER BY m.id DESC, c.seq LIMIT ?", NULL) != BB_OK)
		return;
	sqlite3_bind_int(st, 1, STATUS_REFUSALS_MAX);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *mid = (const char *)sqlite3_column_text(st, 0);
		const char *from = (const char *)sqlite3_column_text(st, 1);
		const char *line = (const char *)sqlite3_column_text(st, 3);
		const char *note = (const char *)sqlite3_column_text(st, 4);

		if (array) {
			struct json_object *o = json_object_new_object();

			json_object_object_add(o, "message_id", json_object_new_string(mid ? mid : ""));
			json_object_object_add(o, "from", from ? json_object_new_string(from) : NULL);
			json_object_object_add(o, "bug_id", sqlite3_column_type(st, 2) == SQLITE_NULL
				? NULL : json_object_new_int64(sqlite3_column_int64(st, 2)));
			json_object_object_add(o, "command", json_object_new_string(line ? line : ""));
			json_object_object_add(o, "reason", json_object_new_string(note ? note : ""));
			json_object_array_add(array, o);
		} else {
			printf("    <%s> from %s: %s\n      %s\n", mid ? mid : "", from ? from : "?",
			       line ? line : "", note ? note : "");
		}
	}
	sqlite3_finalize(st);
}

struct row_print {
	struct json_object *array;
	int only_failed;
};

static enum bb_status row_cb(void *ctx, const struct outbox_row *r)
{
	struct row_print *rp = ctx;
	char created[32], next[32];

	if (rp->array) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "id", json_object_new_int64(r->id));
		json_object_object_add(o, "message_id", json_object_new_string(r->message_id));
		json_object_object_add(o, "state", json_object_new_string(r->state));
		json_object_object_add(o, "bug_id", json_object_new_int64(r->bug_id));
		json_object_object_add(o, "recipients", json_object_new_string(r->recipients));
		json_object_object_add(o, "attempts", json_object_new_int(r->attempts));
		json_object_object_add(o, "last_error", r->last_error
				       ? json_object_new_string(r->last_error) : NULL);
		json_object_object_add(o, "created", json_object_new_int64((int64_t)r->created));
		json_object_object_add(o, "next_attempt", json_object_new_int64((int64_t)r->next_attempt));
		json_object_array_add(rp->array, o);
		return BB_OK;
	}
	print_time(created, sizeof(created), r->created);
	print_time(next, sizeof(next), r->next_attempt);
	printf("%-7s bug %-7lld <%s> to %s  (created %s, %d attempt%s%s%s)%s%s\n", r->state,
	       r->bug_id, r->message_id, r->recipients, created, r->attempts,
	       r->attempts == 1 ? "" : "s", !strcmp(r->state, "queued") ? ", next " : "",
	       !strcmp(r->state, "queued") ? next : "", r->last_error ? "\n        " : "",
	       r->last_error ? r->last_error : "");
	return BB_OK;
}

int cmd_status(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bb_error err = BB_ERROR_INIT;
	unsigned long queued = 0, sent = 0, failed = 0;
	char *name, *cursor = NULL, when[32];
	time_t updated = 0;
	int opt, json = 0, rc;
	long long bugs, comments, att_failed, posted, ignored, refused, pending, cmd_done, cmd_refused,
		cmd_failed, waiting;
	char *arch_name = NULL, *arch_cursor = NULL;
	time_t arch_updated = 0;

	while ((opt = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case 'h': return cli_usage(stdout, usage_status);
		default: return cli_usage(stderr, usage_status);
		}
	}
	if (optind != argc)
		return cli_usage(stderr, usage_status);
	if ((rc = cli_open_store(ctx, STORE_READ_ONLY)))
		return rc;
	name = sync_cursor_name(ctx->cfg);
	if (store_cursor_get(ctx->db, name, &cursor, &updated, &err) ||
	    outbox_counts(ctx->db, &queued, &sent, &failed, &err)) {
		free(name);
		return cli_fail(&err);
	}
	bugs = count_of(ctx->db, "SELECT count(*) FROM bz_bug WHERE mirrored = 1");
	comments = count_of(ctx->db, "SELECT count(*) FROM bz_comment WHERE message_id IS NOT NULL");
	att_failed = count_of(ctx->db, "SELECT count(*) FROM bz_attachment WHERE state = 'failed'");
	posted = count_of(ctx->db, "SELECT count(*) FROM in_mail WHERE state = 'posted'"
				   " AND comment_id IS NOT NULL");
	ignored = count_of(ctx->db, "SELECT count(*) FROM in_mail WHERE state = 'ignored'");
	refused = count_of(ctx->db, "SELECT count(*) FROM in_mail WHERE state = 'refused'");
	pending = count_of(ctx->db, "SELECT count(*) FROM in_mail WHERE state IN ('intent', 'track')");
	cmd_done = count_of(ctx->db, "SELECT count(*) FROM in_command WHERE state = 'done'");
	cmd_refused = count_of(ctx->db, "SELECT count(*) FROM in_command WHERE state = 'refused'");
	cmd_failed = count_of(ctx->db, "SELECT count(*) FROM in_command WHERE state IN"
				       " ('failed', 'invalid')");
	waiting = count_of(ctx->db, "SELECT count(*) FROM in_wait");
	arch_name = inbound_cursor_name(ctx->cfg);
	if (arch_name)
		store_cursor_get(ctx->db, arch_name, &arch_cursor, &arch_updated, NULL);
	if (json) {
		struct json_object *top = json_object_new_object(), *c = json_object_new_object();
		struct json_object *o = json_object_new_object();
		struct row_print rp = { json_object_new_array(), 1 };

		json_object_object_add(top, "version", json_object_new_int(1));
		json_object_object_add(top, "database", json_object_new_string(ctx->db->path));
		json_object_object_add(top, "database_exists", json_object_new_boolean(!ctx->db->missing));
		json_object_object_add(c, "name", json_object_new_string(name));
		json_object_object_add(c, "value", cursor ? json_object_new_string(cursor) : NULL);
		json_object_object_add(c, "updated", json_object_new_int64((int64_t)updated));
		json_object_object_add(top, "bugzilla_cursor", c);
		json_object_object_add(top, "bugs_mirrored", json_object_new_int64(bugs));
		json_object_object_add(top, "comments_mailed", json_object_new_int64(comments));
		json_object_object_add(top, "attachments_failed", json_object_new_int64(att_failed));
		json_object_object_add(o, "queued", json_object_new_int64((int64_t)queued));
		json_object_object_add(o, "sent", json_object_new_int64((int64_t)sent));
		json_object_object_add(o, "failed", json_object_new_int64((int64_t)failed));
		json_object_object_add(top, "outbox", o);
		{
			struct json_object *a = json_object_new_object();

			json_object_object_add(a, "name", json_object_new_string(arch_name ? arch_name : ""));
			json_object_object_add(a, "value", arch_cursor ? json_object_new_string(arch_cursor)
								      : NULL);
			json_object_object_add(a, "updated", json_object_new_int64((int64_t)arch_updated));
			json_object_object_add(a, "replies_posted", json_object_new_int64(posted));
			json_object_object_add(a, "mails_ignored", json_object_new_int64(ignored));
			json_object_object_add(a, "replies_refused", json_object_new_int64(refused));
			json_object_object_add(a, "pending", json_object_new_int64(pending));
			json_object_object_add(a, "commands_done", json_object_new_int64(cmd_done));
			json_object_object_add(a, "commands_refused", json_object_new_int64(cmd_refused));
			json_object_object_add(a, "commands_failed", json_object_new_int64(cmd_failed));
			json_object_object_add(a, "waiting_for_dns", json_object_new_int64(waiting));
			{
				struct json_object *r = json_object_new_array();

				refusals(ctx->db, r);
				json_object_object_add(a, "latest_refusals", r);
			}
			json_object_object_add(top, "archive", a);
		}
		outbox_each(ctx->db, "failed", row_cb, &rp, NULL);
		json_object_object_add(top, "failures", rp.array);
		cli_print_json(top);
		json_object_put(top);
	} else {
		print_time(when, sizeof(when), updated);
		if (ctx->db->missing)
			printf("database:     %s does not exist yet (nothing has run with this"
			       " configuration)\n", ctx->db->path);
		printf("bugzilla:     %s\n", ctx->cfg->bz_url ? ctx->cfg->bz_url : "(not configured)");
		printf("cursor:       %s (moved %s)\n", cursor ? cursor : "(never synced)", when);
		printf("mirrored:     %lld bugs, %lld comments mailed\n", bugs, comments);
		printf("attachments:  %lld failed to download (retried)\n", att_failed);
		printf("outbox:       %lu queued, %lu sent, %lu failed\n", queued, sent, failed);
		if (ctx->cfg->archive_url || ctx->cfg->archive_path || arch_cursor) {
			print_time(when, sizeof(when), arch_updated);
			printf("archive:      %s\n", arch_name ? arch_name + 8 : "");
			printf("  cursor:     %s (moved %s)\n", arch_cursor ? arch_cursor : "(never read)",
			       when);
			printf("  replies:    %lld posted, %lld ignored, %lld refused by Bugzilla,"
			       " %lld pending\n", posted, ignored, refused, pending);
			printf("  commands:   %lld done, %lld refused, %lld failed or not understood\n",
			       cmd_done, cmd_refused, cmd_failed);
			if (waiting)
				printf("  waiting:    %lld mails whose sender's DKIM keys DNS has not"
				       " given yet\n", waiting);
			if (cmd_refused) {
				printf("  latest refusals:\n");
				refusals(ctx->db, NULL);
			}
		}
		if (failed) {
			struct row_print rp = { NULL, 1 };

			printf("failures:\n");
			outbox_each(ctx->db, "failed", row_cb, &rp, NULL);
		}
	}
	free(cursor);
	free(name);
	free(arch_cursor);
	free(arch_name);
	return EX_OK;
}

int cmd_outbox(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "state", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bb_error err = BB_ERROR_INIT;
	const char *state = NULL;
	int opt, json = 0, rc;

	while ((opt = getopt_long(argc, argv, "js:h", options, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case 's': state = optarg; break;
		case 'h': return cli_usage(stdout, usage_outbox);
		default: return cli_usage(stderr, usage_outbox);
		}
	}
	if (state && strcmp(state, "queued") && strcmp(state, "sent") && strcmp(state, "failed")) {
		cli_error("--state: \"%s\" is not queued, sent or failed", state);
		return EX_USAGE;
	}
	if (optind < argc && !strcmp(argv[optind], "retry")) {
		unsigned long n = 0;

		if ((rc = cli_open_store(ctx, STORE_READ_WRITE)))
			return rc;
		if (outbox_retry(ctx->db, &n, &err))
			return cli_fail(&err);
		if (!ctx->quiet)
			fprintf(stderr, "bugbridge: %lu mail%s queued again\n", n, n == 1 ? "" : "s");
		return EX_OK;
	}
	if (optind < argc && !strcmp(argv[optind], "deliver")) {
		struct outbox_options o;
		struct outbox_stats st;

		if ((rc = cli_read_secrets(ctx)) || (rc = cli_open_store(ctx, STORE_READ_WRITE)))
			return rc;
		sync_outbox_options(ctx->cfg, &o);
		if (outbox_deliver(ctx->db, &o, time(NULL), &st, &err))
			return cli_fail(&err);
		if (!ctx->quiet)
			fprintf(stderr, "bugbridge: %lu sent, %lu deferred, %lu failed\n", st.sent,
				st.deferred, st.failed);
		return cli_delivery_exit(&st);
	}
	if (optind != argc)
		return cli_usage(stderr, usage_outbox);
	if ((rc = cli_open_store(ctx, STORE_READ_ONLY)))
		return rc;
	{
		struct row_print rp = { json ? json_object_new_array() : NULL, 0 };

		if (outbox_each(ctx->db, state, row_cb, &rp, &err)) {
			json_object_put(rp.array);
			return cli_fail(&err);
		}
		if (json) {
			struct json_object *top = json_object_new_object();

			json_object_object_add(top, "version", json_object_new_int(1));
			json_object_object_add(top, "mails", rp.array);
			cli_print_json(top);
			json_object_put(top);
		}
	}
	return EX_OK;
}
