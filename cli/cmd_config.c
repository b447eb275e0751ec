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
					       json_object_new_string(config_value(ctx->cfg, i, tmp, sizeof(tmp))));
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
		printf("%s = %s\n", keys[i].key, config_value(ctx->cfg, i, tmp, sizeof(tmp)));
	}
	for (size_t i = 0; i < ctx->cfg->nroutes; i++) {
		const struct config_route *r = &ctx->cfg->routes[i];

		printf("\n[route %s]\n", r->name);
		if (r->product)
			printf("product = %s\n", r->product);
		if (r->component)
			printf("component = %s\n", r->component);
		if (r->subsystem)
			printf("subsystem = %s\n", r->subsystem);
		if (r->lists)
			printf("lists = %s\n", r->lists);
		if (r->people)
			printf("people = %s\n", r->people);
		if (r->maintainers_section)
			printf("maintainers_section = %s\n", r->maintainers_section);
	}
	return EX_OK;
}
