/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge check: is the data folder sound?  The database's own check
 * (PRAGMA quick_check) and every blob rehashed. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli/cli.h"
#include "core/log.h"

static const char usage_check[] =
	"usage: bugbridge check [--json] [--database-only]\n"
	"\n"
	"Checks the data folder: the database with SQLite's PRAGMA quick_check,\n"
	"then every blob rehashed as blob verify does.  Prints what is damaged;\n"
	"exits 65 on damage, 0 when all is sound.\n"
	"\n"
	"  --database-only  skip the blobs (they may take long to read)\n"
	"  -j, --json       the results as JSON\n";

/* The database's check: damage into *damage (NULL when sound). */
static int quick_check(struct cli_context *ctx, char **damage)
{
	struct bb_error err = BB_ERROR_INIT;

	*damage = NULL;
	if (store_quick_check(ctx->db, damage, &err))
		return cli_fail(&err);
	return EX_OK;
}

int cli_check_database(struct cli_context *ctx)
{
	char *damage = NULL;
	int rc = quick_check(ctx, &damage);

	if (rc || !damage)
		return rc;
	log_event(LOG_LEVEL_ERROR, "store.damaged", LF_STR("path", ctx->db->path),
		  LF_STR("check", damage));
	cli_error("the database %s is damaged (PRAGMA quick_check):\n%s\n"
		  "Stop every bugbridge using it and restore it from a backup "
		  "(bugbridge(1), BACKUP AND RESTORE).", ctx->db->path, damage);
	free(damage);
	return EX_DATAERR;
}

int cmd_check(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "database-only", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct json_object *results = NULL;
	char *damage = NULL;
	size_t checked = 0, bad = 0;
	int opt, json = 0, database_only = 0, rc;

	while ((opt = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case 'd': database_only = 1; break;
		case 'h': return cli_usage(stdout, usage_check);
		default: return cli_usage(stderr, usage_check);
		}
	}
	if (optind != argc)
		return cli_usage(stderr, usage_check);
	/* read-only: a check changes nothing, and runs beside the daemon */
	if ((rc = cli_open_store(ctx, STORE_READ_ONLY)) || (rc = quick_check(ctx, &damage)))
		return rc;
	if (!json) {
		if (damage)
			printf("database %s: damaged\n%s\n", ctx->db->path, damage);
		else if (!ctx->quiet)
			printf("database %s: ok\n", ctx->db->path);
	}
	if (!database_only) {
		if (json)
			results = json_object_new_array();
		rc = cli_verify_blobs(ctx, NULL, 0, results, 0, &checked, &bad);
		if (rc) {
			json_object_put(results);
			free(damage);
			return rc;
		}
		if (!json && (bad || !ctx->quiet))
			printf("blobs: %zu checked, %zu bad\n", checked, bad);
	}
	if (json) {
		struct json_object *top = json_object_new_object(), *db = json_object_new_object();

		json_object_object_add(top, "version", json_object_new_int(1));
		json_object_object_add(db, "path", json_object_new_string(ctx->db->path));
		json_object_object_add(db, "ok", json_object_new_boolean(!damage));
		json_object_object_add(db, "damage", damage ? json_object_new_string(damage) : NULL);
		json_object_object_add(top, "database", db);
		if (!database_only) {
			struct json_object *blobs = json_object_new_object();

			json_object_object_add(blobs, "checked", json_object_new_uint64(checked));
			json_object_object_add(blobs, "bad", json_object_new_uint64(bad));
			json_object_object_add(blobs, "results", results);
			json_object_object_add(top, "blobs", blobs);
		}
		cli_print_json(top);
		json_object_put(top);
	}
	if (damage)
		log_event(LOG_LEVEL_ERROR, "store.damaged", LF_STR("path", ctx->db->path),
			  LF_STR("check", damage));
	rc = damage || bad ? EX_DATAERR : EX_OK;
	free(damage);
	return rc;
}
