/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge config: the configuration in effect, secrets hidden. */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <json-c/json.h>

#include "cli/cli.h"

static const char usage_config[] =
	"usage: bugbridge config [--json]\n"
	"       bugbridge config --keys\n"
	"\n"
	"Prints where the configuration came from and every key's value in effect.\n"
	"Secrets are shown as <set> or <unset>.  --keys lists every key with its\n"
	"default and meaning (see bugbridge.conf(5)).\n";

/* The keys of [route NAME] and [tree NAME] sections, which may repeat. */
struct pair {
	const char *key, *value;
};

static const struct config_key section_keys[] = {
	{ "route NAME", "product", NULL, 0, "Bugzilla product the rule matches (unset: any)" },
	{ "route NAME", "component", NULL, 0, "component it matches, case-insensitively (unset: any)" },
	{ "route NAME", "subsystem", NULL, 0, "subsystem field value it matches (unset: any)" },
	{ "route NAME", "lists", NULL, 0, "comma-separated lists a matching bug is mailed to" },
	{ "route NAME", "people", NULL, 0, "comma-separated people Cc'd on a matching bug" },
	{ "route NAME", "maintainers_section", NULL, 0,
	  "MAINTAINERS section whose L: and M: entries are added" },
	{ "tree NAME", "path", NULL, 0, "local git clone of the tree, scanned for fixes" },
	{ "tree NAME", "url", NULL, 0, "where the tree is published (commit links)" },
	{ "tree NAME", "ref", NULL, 0, "the branch or ref that is followed" },
	{ "tree NAME", "upstream", NULL, 0, "the tree this one feeds (mainline for next)" },
};

static size_t route_pairs(const struct config_route *r, struct pair *out)
{
	const struct pair all[] = {
		{ "product", r->product }, { "component", r->component },
		{ "subsystem", r->subsystem }, { "lists", r->lists }, { "people", r->people },
		{ "maintainers_section", r->maintainers_section },
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i].value)
			out[n++] = all[i];
	return n;
}

static size_t tree_pairs(const struct config_tree *t, struct pair *out)
{
	const struct pair all[] = {
		{ "path", t->path }, { "url", t->url }, { "ref", t->ref }, { "upstream", t->upstream },
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i].value)
			out[n++] = all[i];
	return n;
}

static struct json_object *pairs_json(const struct pair *p, size_t n)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < n; i++)
		json_object_object_add(o, p[i].key, json_object_new_string(p[i].value));
	return o;
}

static void print_pairs(const char *kind, const char *name, const struct pair *p, size_t n)
{
	printf("\n[%s %s]\n", kind, name);
	for (size_t i = 0; i < n; i++)
		printf("%s = %s\n", p[i].key, p[i].value);
}

int cmd_config(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "keys", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct config_key *keys;
	size_t n;
	int opt, json = 0, list_keys = 0;
	char tmp[64];

	while ((opt = getopt_long(argc, argv, "jkh", options, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case 'k': list_keys = 1; break;
		case 'h': return cli_usage(stdout, usage_config);
		default: return cli_usage(stderr, usage_config);
		}
	}
	if (optind != argc)
		return cli_usage(stderr, usage_config);
	keys = config_keys(&n);
	/* the data folder as the commands will use it: absolute, so that an
	 * admin sees which one a command started elsewhere would share */
	if (!list_keys && ctx->cfg->data_dir[0] != '/') {
		char *abs = g_canonicalize_filename(ctx->cfg->data_dir, NULL);

		if (abs) {
			free(ctx->cfg->data_dir);
			ctx->cfg->data_dir = strdup(abs);
			g_free(abs);
			if (!ctx->cfg->data_dir) {
				cli_error("out of memory");
				return EX_OSERR;
			}
		}
	}
	if (!list_keys) {
		/* said, not logged: config is what an admin runs to look */
		char **warnings = config_secret_warnings(ctx->cfg);

		for (char **w = warnings; w && *w; w++)
			fprintf(stderr, "bugbridge: warning: %s\n", *w);
		g_strfreev(warnings);
	}
	if (list_keys) {
		for (size_t i = 0; i < n; i++)
			printf("[%s] %s = %s\n    %s\n", keys[i].section, keys[i].key,
			       keys[i].default_value ? keys[i].default_value : "(unset)",
			       keys[i].summary);
		for (size_t i = 0; i < sizeof(section_keys) / sizeof(section_keys[0]); i++)
			printf("[%s] %s = (unset)\n    %s\n", section_keys[i].section,
			       section_keys[i].key, section_keys[i].summary);
		return EX_OK;
	}
	if (json) {
		struct json_object *top = json_object_new_object(), *sections = json_object_new_object();

		json_object_object_add(top, "version", json_object_new_int(1));
		json_object_object_add(top, "source", ctx->cfg->source
				       ? json_object_new_string(ctx->cfg->source) : NULL);
		for (size_t i = 0; i < n; i++) {
			struct json_object *sec;

			if (!json_object_object_get_ex(sections, keys[i].section, &sec)) {
				sec = json_object_new_object();
				json_object_object_add(sections, keys[i].section, sec);
			}
			json_object_object_add(sec, keys[i].key,
					       json_object_new_string(config_value(ctx->cfg, i, tmp, sizeof(tmp))));
		}
		json_object_object_add(top, "settings", sections);
		{
			struct json_object *routes = json_object_new_object();
			struct json_object *trees = json_object_new_object();
			struct pair p[8];

			for (size_t i = 0; i < ctx->cfg->nroutes; i++)
				json_object_object_add(routes, ctx->cfg->routes[i].name,
						       pairs_json(p, route_pairs(&ctx->cfg->routes[i], p)));
			for (size_t i = 0; i < ctx->cfg->ntrees; i++)
				json_object_object_add(trees, ctx->cfg->trees[i].name,
						       pairs_json(p, tree_pairs(&ctx->cfg->trees[i], p)));
			json_object_object_add(top, "routes", routes);
			json_object_object_add(top, "trees", trees);
		}
		cli_print_json(top);
		json_object_put(top);
		return EX_OK;
	}
	printf("# from %s\n", ctx->cfg->source ? ctx->cfg->source : "built-in defaults");
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(keys[i].section, keys[i - 1].section))
			printf("%s[%s]\n", i ? "\n" : "", keys[i].section);
		printf("%s = %s\n", keys[i].key, config_value(ctx->cfg, i, tmp, sizeof(tmp)));
	}
	{
		struct pair p[8];

		for (size_t i = 0; i < ctx->cfg->nroutes; i++)
			print_pairs("route", ctx->cfg->routes[i].name, p,
				    route_pairs(&ctx->cfg->routes[i], p));
		for (size_t i = 0; i < ctx->cfg->ntrees; i++)
			print_pairs("tree", ctx->cfg->trees[i].name, p,
				    tree_pairs(&ctx->cfg->trees[i], p));
	}
	return EX_OK;
}
