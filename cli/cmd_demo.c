/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "bridge/sync.h"
#include "bugzilla/bz_xml.h"
#include "cli/cli.h"
#include "core/buf.h"
#include "core/digest.h"
#include "core/fsutil.h"
#include "mail/outbox.h"
#include "web/blob_http.h"

static const char usage_demo[] =
	"usage: bugbridge demo [--demo-dir DIR] [--serve]\n"
	"\n"
	"A whole run on the bundled sample data, with the configuration in effect\n"
	"(the built-in defaults unless a file says otherwise):\n"
	"  1. stores the bundled attachments (a kernel log, a firmware debug dump,\n"
	"     a crash bundle archive) in the blob store;\n"
	"  2. mirrors a sample Bugzilla export (show_bug.cgi?ctype=xml) to mail:\n"
	"     routes each bug with a sample MAINTAINERS file, stores attachments,\n"
	"     composes one thread per bug and delivers it to the outbox Maildir\n"
	"     (private comments and restricted bugs are left out);\n"
	"  3. starts the blob server on a free port of 127.0.0.1 and fetches every\n"
	"     blob back, checking its SHA-256.\n"
	"Running it again mails nothing new.  With --serve the server keeps\n"
	"running until interrupted.\n"
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

/* ------------------------------------------------ mirroring the export */

struct demo_data {
	long long attachment_id;
	char *bytes;
	size_t len;
};

struct demo_read {
	struct bz_bug *bugs;
	size_t nbugs;
	struct demo_data *data;
	size_t ndata;
};

static enum bb_status demo_bug(void *ctx, struct bz_bug *bug)
{
	struct demo_read *r = ctx;
	struct bz_bug *nb = realloc(r->bugs, (r->nbugs + 1) * sizeof(*nb));

	if (!nb) {
		bz_bug_free(bug);
		return BB_ERR_NOMEM;
	}
	r->bugs = nb;
	r->bugs[r->nbugs++] = *bug;
	free(bug); /* the contents moved into the array */
	return BB_OK;
}

static enum bb_status demo_not_found(void *ctx, long long id, const char *error)
{
	(void)ctx;
	printf("   bug %lld: the export says %s; skipped\n", id, error);
	return BB_OK;
}

/* The reader hands attachment bytes over in chunks, then once with
 * data == NULL when the attachment is complete. */
static enum bb_status demo_attachment(void *ctx, long long bug_id, long long attachment_id,
				      const void *data, size_t len)
{
	struct demo_read *r = ctx;
	struct demo_data *d = r->ndata ? &r->data[r->ndata - 1] : NULL;

	(void)bug_id;
	if (!data)
		return BB_OK;
	if (!d || d->attachment_id != attachment_id) {
		struct demo_data *nd = realloc(r->data, (r->ndata + 1) * sizeof(*nd));

		if (!nd)
			return BB_ERR_NOMEM;
		r->data = nd;
		d = &nd[r->ndata++];
		d->attachment_id = attachment_id;
		d->bytes = NULL;
		d->len = 0;
	}
	{
		char *nb = realloc(d->bytes, d->len + len + 1);

		if (!nb)
			return BB_ERR_NOMEM;
		memcpy(nb + d->len, data, len);
		d->bytes = nb;
		d->len += len;
	}
	return BB_OK;
}

static void demo_read_release(struct demo_read *r)
{
	for (size_t i = 0; i < r->nbugs; i++)
		bz_bug_release(&r->bugs[i]);
	free(r->bugs);
	for (size_t i = 0; i < r->ndata; i++)
		free(r->data[i].bytes);
	free(r->data);
}

static void demo_mail(void *ctx, long long bug_id, const char *message_id, const char *subject)
{
	(void)ctx;
	printf("   bug %-7lld <%s>\n               %s\n", bug_id, message_id, subject);
}

/* Routing for the demo when the configuration has none: the sample
 * MAINTAINERS file and two rules. */
static int demo_routing(struct bb_config *cfg, const char *dir)
{
	static const struct {
		const char *name, *component, *section;
	} rules[] = {
		{ "wireless", "network-wireless-intel", "INTEL WIRELESS WIFI LINK (iwlwifi)" },
		{ "usb", "USB", "USB SUBSYSTEM" },
	};
	size_t n = sizeof(rules) / sizeof(rules[0]);

	if (cfg->nroutes || cfg->default_lists)
		return 0;
	free(cfg->maintainers_file);
	cfg->maintainers_file = str_printf("%s/MAINTAINERS-sample", dir);
	cfg->default_lists = strdup("linux-kernel@lists.example.org");
	cfg->routes = calloc(n, sizeof(*cfg->routes));
	if (!cfg->maintainers_file || !cfg->default_lists || !cfg->routes)
		return -1;
	for (size_t i = 0; i < n; i++) {
		cfg->routes[i].name = strdup(rules[i].name);
		cfg->routes[i].component = strdup(rules[i].component);
		cfg->routes[i].maintainers_section = strdup(rules[i].section);
		cfg->nroutes++;
	}
	return 1;
}

static int demo_mirror(struct cli_context *ctx, const char *dir)
{
	struct bz_xml_callbacks cb;
	struct bb_error err = BB_ERROR_INIT;
	struct demo_read r;
	struct cli_bridge b;
	struct sync_stats st;
	struct outbox_options oopt;
	char *xml = str_printf("%s/bugzilla-sample.xml", dir);
	int rc, own_routing;

	memset(&r, 0, sizeof(r));
	memset(&st, 0, sizeof(st));
	own_routing = demo_routing(ctx->cfg, dir);
	if (own_routing < 0 || !xml) {
		free(xml);
		return EX_OSERR;
	}
	printf("\n2. Mirroring a sample Bugzilla export to mail\n");
	if (own_routing)
		printf("   routing: the sample MAINTAINERS file, rules for wireless and USB, "
		       "other bugs to %s\n", ctx->cfg->default_lists);
	if ((rc = cli_bridge_open(ctx, &b))) {
		free(xml);
		return rc;
	}
	if (!ctx->cfg->bz_url)
		ctx->cfg->bz_url = strdup("https://bugzilla.example.org");
	memset(&cb, 0, sizeof(cb));
	cb.ctx = &r;
	cb.bug = demo_bug;
	cb.not_found = demo_not_found;
	cb.attachment_data = demo_attachment;
	if (bz_xml_read_file(xml, &cb, &err))
		goto fail;
	printf("   read %zu bugs from %s\n", r.nbugs, xml);
	for (size_t i = 0; i < r.nbugs; i++) {
		for (size_t k = 0; k < r.bugs[i].nattachments; k++) {
			const struct bz_attachment *a = &r.bugs[i].attachments[k];

			for (size_t d = 0; d < r.ndata; d++)
				if (r.data[d].attachment_id == a->id && !a->is_private &&
				    !(r.bugs[i].groups && r.bugs[i].groups[0]) &&
				    sync_store_attachment_data(&b.sc, a, r.data[d].bytes,
							       r.data[d].len, &err))
					goto fail;
		}
	}
	b.sc.on_mail = demo_mail;
	if (sync_apply(&b.sc, r.bugs, r.nbugs, "demo:bugzilla-sample.xml", "read", &st, &err))
		goto fail;
	if (!st.mails_queued)
		printf("   nothing new: every comment was mirrored by an earlier run\n");
	sync_outbox_options(ctx->cfg, &oopt);
	if (outbox_deliver(ctx->db, &oopt, time(NULL), &st.delivery, &err))
		goto fail;
	printf("   %lu bug%s mirrored, %lu skipped (restricted or not wanted), %lu private "
	       "comment%s left out\n", st.bugs_mirrored, st.bugs_mirrored == 1 ? "" : "s",
	       st.bugs_skipped, st.comments_private, st.comments_private == 1 ? "" : "s");
	printf("   %lu mail%s delivered to %s\n", st.delivery.sent,
	       st.delivery.sent == 1 ? "" : "s",
	       ctx->cfg->smtp_host ? ctx->cfg->smtp_host
				   : ctx->cfg->smtp_mbox ? ctx->cfg->smtp_mbox : ctx->cfg->smtp_maildir);
	rc = EX_OK;
	goto out;
fail:
	rc = cli_fail(&err);
out:
	demo_read_release(&r);
	cli_bridge_close(&b);
	free(xml);
	return rc;
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

	if ((rc = demo_mirror(ctx, dir)))
		goto out;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	memset(&sopt, 0, sizeof(sopt));
	sopt.listen = serve ? ctx->cfg->listen : "127.0.0.1:0";
	sopt.upload_token = ctx->cfg->upload_token;
	sopt.max_upload_size = ctx->cfg->max_upload_size;
	sopt.threads = 2;
	cli_server_limits(ctx->cfg, &sopt);
	if (blob_server_start(&srv, ctx->blobs, &sopt, &err)) {
		rc = cli_fail(&err);
		goto out;
	}
	printf("\n3. Blob server listening on http://127.0.0.1:%u/; fetching every blob back\n",
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

	printf("\n4. Archive listing of crash-bundle.tar.gz (%s%s%s)\n", infos[2].archive_format,
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
