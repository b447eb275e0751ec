/* bugbridge demo: the blob store and server on bundled data, end to end. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>

#include "attachments/blob_http.h"
#include "cli/cli.h"
#include "core/buf.h"
#include "core/digest.h"
#include "core/fsutil.h"

static const char usage_demo[] =
	"usage: bugbridge demo [--demo-dir DIR] [--serve]\n"
	"\n"
	"Stores the bundled demo attachments (a kernel log, a firmware debug dump\n"
	"and a crash bundle archive) in the blob store under the configured data\n"
	"folder, starts the blob server on a free port of 127.0.0.1, fetches every\n"
	"blob back over HTTP and checks its SHA-256, and prints the archive\n"
	"listing.  With --serve it keeps serving until interrupted.\n"
	"\n"
	"  --demo-dir DIR  take the demo files from DIR\n"
	"  --serve         keep the server running (Ctrl-C or SIGTERM stops it)\n";

static const char *const demo_files[] = {
	"dmesg-6.6.1-suspend.txt",
	"iwlwifi-debug.bin",
	"crash-bundle.tar.gz",
};
#define NDEMO (sizeof(demo_files) / sizeof(demo_files[0]))

static int dir_has_demo(const char *dir)
{
	char *p = str_printf("%s/%s", dir, demo_files[0]);
	int ok = p && access(p, R_OK) == 0;

	free(p);
	return ok;
}

/* The bundled files: next to the binary (a build tree), in the source tree
 * it was built from, or where `make install` put them. */
static char *find_demo_dir(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *env = getenv("BUGBRIDGE_DEMO_DIR");
	char *cand;

	if (env && *env)
		return strdup(env);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			cand = str_printf("%s/demo", exe);
			if (cand && dir_has_demo(cand))
				return cand;
			free(cand);
		}
	}
	if (dir_has_demo(ABS_SRCDIR "/demo"))
		return strdup(ABS_SRCDIR "/demo");
	return strdup(PKGDATADIR "/demo");
}

struct fetch {
	struct sha256 md;
	uint64_t bytes;
};

static size_t fetch_write(char *data, size_t size, size_t nmemb, void *p)
{
	struct fetch *f = p;

	sha256_update(&f->md, data, size * nmemb);
	f->bytes += size * nmemb;
	return size * nmemb;
}

/* GETs url and compares the body's SHA-256 with want. */
static int fetch_and_check(CURL *curl, const char *url, const char *want, long *status)
{
	struct fetch f = { { NULL }, 0 };
	char got[SHA256_HEX_LEN + 1];
	CURLcode rc;

	if (sha256_init(&f.md))
		return -1;
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, fetch_write);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &f);
	rc = curl_easy_perform(curl);
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
	sha256_final_hex(&f.md, got);
	if (rc != CURLE_OK)
		return -1;
	return strcmp(got, want) == 0 ? 0 : 1;
}

static enum bb_status print_member(void *ctx, const struct inspect_member *m)
{
	char size[24];

	(void)ctx;
	format_size(m->size, size, sizeof(size));
	printf("      %-40s %10s  %s\n", m->path, size, m->hash ? m->hash : "");
	return BB_OK;
}

int cmd_demo(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "demo-dir", required_argument, NULL, 'd' },
		{ "serve", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bb_error err = BB_ERROR_INIT;
	struct blob_server_options sopt;
	struct blob_server *srv = NULL;
	struct blob_info infos[NDEMO];
	char *dir = NULL;
	CURL *curl = NULL;
	sigset_t sigs;
	int opt, serve = 0, rc, failures = 0;

	while ((opt = getopt_long(argc, argv, "d:sh", options, NULL)) != -1) {
		switch (opt) {
		case 'd': free(dir); dir = strdup(optarg); break;
		case 's': serve = 1; break;
		case 'h': free(dir); return cli_usage(stdout, usage_demo);
		default: free(dir); return cli_usage(stderr, usage_demo);
		}
	}
	if (optind != argc) {
		free(dir);
		return cli_usage(stderr, usage_demo);
	}
	if (!dir)
		dir = find_demo_dir();
	if (!dir || !dir_has_demo(dir)) {
		cli_error("demo files not found in %s (use --demo-dir DIR)", dir ? dir : "?");
		free(dir);
		return EX_NOINPUT;
	}
	if ((rc = cli_open_store(ctx, STORE_READ_WRITE)))
		goto out;

	printf("bugbridge demo: data folder %s\n\n1. Storing the bundled attachments\n",
	       ctx->cfg->data_dir);
	for (size_t i = 0; i < NDEMO; i++) {
		struct blob_origin origin = { demo_files[i], "", "demo", "bundled" };
		char *path = str_printf("%s/%s", dir, demo_files[i]);
		char size[24];
		int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;

		if (fd < 0) {
			cli_error("%s: %s", path ? path : demo_files[i], strerror(errno));
			free(path);
			rc = EX_NOINPUT;
			goto out;
		}
		if (blob_put_fd(ctx->blobs, fd, &origin, NULL, NULL, &infos[i], &err)) {
			close(fd);
			free(path);
			rc = cli_fail(&err);
			goto out;
		}
		close(fd);
		free(path);
		format_size(infos[i].size, size, sizeof(size));
		printf("   %-26s sha256:%s\n   %-26s %s, %s%s\n", demo_files[i], infos[i].hash, "",
		       size, infos[i].content_type,
		       infos[i].already_stored ? " (already stored: nothing written)" : "");
	}

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	memset(&sopt, 0, sizeof(sopt));
	sopt.listen = serve ? ctx->cfg->listen : "127.0.0.1:0";
	sopt.upload_token = ctx->cfg->upload_token;
	sopt.max_upload_size = ctx->cfg->max_upload_size;
	sopt.threads = 2;
	if (blob_server_start(&srv, ctx->blobs, &sopt, &err)) {
		rc = cli_fail(&err);
		goto out;
	}
	printf("\n2. Blob server listening on http://127.0.0.1:%u/; fetching every blob back\n",
	       blob_server_port(srv));
	curl = curl_easy_init();
	if (!curl) {
		cli_error("cannot initialise libcurl");
		rc = EX_SOFTWARE;
		goto out;
	}
	for (size_t i = 0; i < NDEMO; i++) {
		char *url = str_printf("http://127.0.0.1:%u/blob/sha256/%s/%s", blob_server_port(srv),
				       infos[i].hash, demo_files[i]);
		long status = 0;
		int r = url ? fetch_and_check(curl, url, infos[i].hash, &status) : -1;

		printf("   GET %-70s %ld %s\n", url ? url : "?", status,
		       r == 0 ? "hash ok" : r > 0 ? "HASH MISMATCH" : "request failed");
		if (r != 0 || status != 200)
			failures++;
		free(url);
	}

	printf("\n3. Archive listing of crash-bundle.tar.gz (%s%s%s)\n", infos[2].archive_format,
	       infos[2].archive_note[0] ? ": " : "", infos[2].archive_note);
	if (blob_each_member(ctx->blobs, infos[2].hash, print_member, NULL, &err)) {
		rc = cli_fail(&err);
		goto out;
	}
	printf("\nLinks as mail would carry them (base_url %s):\n", ctx->cfg->blob_base_url);
	for (size_t i = 0; i < NDEMO; i++) {
		char *url = blob_url(ctx->blobs, infos[i].hash, demo_files[i]);

		printf("   %s\n", url ? url : "?");
		free(url);
	}
	if (failures) {
		cli_error("%d blob%s did not come back intact", failures, failures == 1 ? "" : "s");
		rc = EX_SOFTWARE;
		goto out;
	}
	printf("\nAll %zu blobs stored and served intact.  `bugbridge serve` serves them at %s.\n",
	       NDEMO, ctx->cfg->blob_base_url);
	if (serve) {
		int sig = 0;

		printf("Serving on %s until interrupted.\n", ctx->cfg->listen);
		fflush(stdout);
		sigwait(&sigs, &sig);
	}
	rc = EX_OK;
out:
	if (curl)
		curl_easy_cleanup(curl);
	blob_server_stop(srv);
	free(dir);
	return rc;
}
