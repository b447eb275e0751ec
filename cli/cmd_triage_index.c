/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge triage-index: the kernel index that locates a report's symbols
 * and modules without a watched git tree (triage/index.h). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "core/fsutil.h"
#include "triage/index.h"

static const char usage[] =
	"usage: bugbridge triage-index build [--output PATH] SOURCE\n"
	"       bugbridge triage-index show [--index PATH] [--arch ARCH] [NAME...]\n"
	"\n"
	"build reads SOURCE, a kernel source tree (a folder) or a tarball of one\n"
	"(Debian's linux-source-6.1 ships /usr/src/linux-source-6.1.tar.xz), once,\n"
	"and writes the kernel index: where each function is defined (a .c file's\n"
	"definition lines), where each module is built (Kbuild's obj-... += name.o)\n"
	"and the module names of Kconfig help texts.  The index goes to --output,\n"
	"else to " TRI_INDEX_FILE " in the configuration's data folder, where\n"
	"`bugbridge triage` and the sync's routing by content find it when no git\n"
	"tree is watched ([tree NAME]): symbols and modules are then located as the\n"
	"tree's `git grep` would.\n"
	"\n"
	"show prints what the index was built from, and for each NAME where it is\n"
	"defined (a function) and built (a module), as triage would be told.\n"
	"\n"
	"  --output PATH  where build writes the index\n"
	"  --index PATH   the index show reads (default: the data folder's)\n"
	"  --arch ARCH    the architecture a report ran on (x86, arm64, ...)\n";

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The index path: given, else the data folder's (NULL, said, when there is
 * no configuration). */
char *cli_triage_index_path(struct cli_context *ctx, const char *given, int quiet_missing)
{
	struct bb_error err = BB_ERROR_INIT;
	struct bb_config *owned = NULL;
	char *path;

	if (given)
		return strdup(given);
	if (ctx->cfg)
		return config_data_path(ctx->cfg, TRI_INDEX_FILE);
	if (config_load(&owned, ctx->config_path, &err) != BB_OK) {
		if (!quiet_missing)
			cli_error("no configuration (%s): give the index's path", err.message);
		return NULL;
	}
	path = config_data_path(owned, TRI_INDEX_FILE);
	config_free(owned);
	return path;
}

static int build(struct cli_context *ctx, const char *output, const char *source)
{
	struct bb_error err = BB_ERROR_INIT;
	struct tri_index_stats st;
	char *path = cli_triage_index_path(ctx, output, 0);
	double t0 = now_s();
	struct stat sb;
	int rc = EX_OK;

	if (!path)
		return EX_CONFIG;
	if ((!output && fs_mkdir_parents(path, &err) != BB_OK) ||
	    tri_index_build(source, path, &st, &err) != BB_OK) {
		rc = cli_fail(&err);
	} else if (!ctx->quiet) {
		printf("%s: %lu files, %lu read; %lu definitions, %lu kept; %lu module places "
		       "(%lu from Kconfig); %.1f MB in %.1f s\n", path, st.files, st.sources,
		       st.definitions, st.symbols, st.modules, st.kconfig,
		       stat(path, &sb) ? 0.0 : sb.st_size / 1e6, now_s() - t0);
	}
	free(path);
	return rc;
}

static int show(struct cli_context *ctx, const char *given, const char *arch, int n,
		char **names)
{
	static const char *const keys[] = { "source", "built", "files", "symbols", "modules" };
	struct bb_error err = BB_ERROR_INIT;
	struct tri_index *ix = NULL;
	char *path = cli_triage_index_path(ctx, given, 0);

	if (!path)
		return EX_CONFIG;
	if (tri_index_open(&ix, path, &err) != BB_OK) {
		free(path);
		return cli_fail(&err);
	}
	printf("index: %s\n", path);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *v = tri_index_meta(ix, keys[i]);

		printf("%s: %s\n", keys[i], v ? v : "-");
		free(v);
	}
	for (int i = 0; i < n; i++) {
		char *s = tri_index_symbol(ix, names[i], arch);
		char *m = tri_index_module(ix, names[i], arch);

		printf("%s: defined in %s; module built in %s\n", names[i], s ? s : "-",
		       m ? m : "-");
		free(s);
		free(m);
	}
	tri_index_free(ix);
	free(path);
	return EX_OK;
}

int cmd_triage_index(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "index", required_argument, NULL, 'i' },
		{ "arch", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL, *index = NULL, *arch = NULL, *verb;
	int opt;

	while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'i': index = optarg; break;
		case 'a': arch = optarg; break;
		case 'h': return cli_usage(stdout, usage);
		default: return cli_usage(stderr, usage);
		}
	}
	if (optind >= argc)
		return cli_usage(stderr, usage);
	verb = argv[optind++];
	/* options may follow the verb too */
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'i': index = optarg; break;
		case 'a': arch = optarg; break;
		case 'h': return cli_usage(stdout, usage);
		default: return cli_usage(stderr, usage);
		}
	}
	if (!strcmp(verb, "build") && argc - optind == 1 && !index && !arch)
		return build(ctx, output, argv[optind]);
	if (!strcmp(verb, "show") && !output)
		return show(ctx, index, arch, argc - optind, argv + optind);
	return cli_usage(stderr, usage);
}
