/* bugbridge config: the configuration in effect, secrets hidden. */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cli/cli.h"

static const char usage_config[] =
	"usage: bugbridge config [--json]\n"
	"       bugbridge config --keys\n"
	"\n"
	"Prints where the configuration came from and every key's value in effect.\n"
	"Secrets are shown as <set> or <unset>.  --keys lists every key with its\n"
	"default and meaning (see bugbridge.conf(5)).\n";

/* The value in effect, as text (static storage for numbers). */
static const char *value_of(const struct bb_config *cfg, const struct config_key *k,
			    char *tmp, size_t len)
{
	const char *sec = k->section, *key = k->key;

#define IS(s, n) (!strcmp(sec, s) && !strcmp(key, n))
	if (IS("core", "data_dir")) return cfg->data_dir;
	if (IS("core", "log_level")) return log_level_name(cfg->log_level);
	if (IS("core", "log_file")) return cfg->log_file ? cfg->log_file : "";
	if (IS("blob", "base_url")) return cfg->blob_base_url;
	if (IS("blob", "store_archive_members")) return cfg->store_archive_members ? "true" : "false";
	if (IS("blob", "gc_grace")) {
		snprintf(tmp, len, "%llds", cfg->gc_grace);
		return tmp;
	}
	if (IS("server", "listen")) return cfg->listen;
	if (IS("server", "upload_token")) return cfg->upload_token ? "<set>" : "<unset>";
	{
		unsigned long long v = 0;

		if (IS("blob", "archive_max_members")) v = cfg->archive_max_members;
		else if (IS("blob", "archive_max_total")) v = cfg->archive_max_total;
		else if (IS("blob", "archive_max_ratio")) v = cfg->archive_max_ratio;
		else if (IS("blob", "archive_max_depth")) v = cfg->archive_max_depth;
		else if (IS("server", "max_upload_size")) v = cfg->max_upload_size;
		else if (IS("server", "threads")) v = cfg->server_threads;
		else return "?";
		snprintf(tmp, len, "%llu", v);
		return tmp;
	}
#undef IS
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
	if (list_keys) {
		for (size_t i = 0; i < n; i++)
			printf("[%s] %s = %s\n    %s\n", keys[i].section, keys[i].key,
			       keys[i].default_value ? keys[i].default_value : "(unset)",
			       keys[i].summary);
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
					       json_object_new_string(value_of(ctx->cfg, &keys[i], tmp,
									       sizeof(tmp))));
		}
		json_object_object_add(top, "settings", sections);
		cli_print_json(top);
		json_object_put(top);
		return EX_OK;
	}
	printf("# from %s\n", ctx->cfg->source ? ctx->cfg->source : "built-in defaults");
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(keys[i].section, keys[i - 1].section))
			printf("%s[%s]\n", i ? "\n" : "", keys[i].section);
		printf("%s = %s\n", keys[i].key, value_of(ctx->cfg, &keys[i], tmp, sizeof(tmp)));
	}
	return EX_OK;
}
