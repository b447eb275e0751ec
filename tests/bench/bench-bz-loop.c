/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The baseline of bench-sync.sh: one sync round the way a Bugzilla REST
 * client is usually written, bug by bug.
 *
 *   bench-bz-loop [--dry-run]      (configuration from $BUGBRIDGE_CONFIG)
 *
 * It makes the same search as bugbridge sync (bz_search_changed()), then for
 * every wanted bug
 *     GET /rest/bug/N
 *     GET /rest/bug/N/comment
 *     GET /rest/bug/N/attachment?exclude_fields=data
 * and hands the bugs to the same composing, outbox and delivery code
 * (sync_apply(), outbox_deliver()), so that a comparison with bugbridge sync
 * measures the fetch pattern and nothing else.  Comment authors' real names
 * come from one batched user lookup, as in bugbridge sync, so both send the
 * same mail.
 *
 * Kept small on purpose: the bugs it wants are those the router wants (a
 * fresh instance has mirrored nothing yet), and attachments are listed but
 * not downloaded (the benchmark's bugs have none).  The comment and
 * attachment requests go through bz_fetch_comments() and
 * bz_fetch_attachments() with one bug each, which is exactly the per-bug
 * request; GET /rest/bug/N has no bz_ function, so it is made here with
 * libcurl and parsed with bz_parse_bugs().
 *
 * Prints one line: bugs, mails queued and sent, requests made.  Exit 0 on
 * success, 1 on failure (with the error on standard error).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "attachments/blob.h"
#include "bridge/route.h"
#include "bridge/sync.h"
#include "bugzilla/bz_client.h"
#include "config/conf.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/store.h"
#include "mail/maintainers.h"

#define RESPONSE_CAP ((size_t)64 << 20)

struct bug_getter {
	CURL *curl;
	struct curl_slist *headers;
	const struct bb_config *cfg;
	char *key_param;           /* "&api_key=..." escaped, or "" */
	unsigned long requests;
};

static size_t collect(char *data, size_t size, size_t n, void *ctx)
{
	return buf_add(ctx, data, size * n) == BB_OK ? size * n : 0;
}

static enum bb_status getter_init(struct bug_getter *g, const struct bb_config *cfg,
				  struct bb_error *err)
{
	memset(g, 0, sizeof(*g));
	g->cfg = cfg;
	g->curl = curl_easy_init();
	if (!g->curl)
		return bb_error_set(err, BB_ERR_NOMEM, "cannot make a curl handle");
	/* the baseline is a plain client: auto (the server's version) counts as the parameter */
	if (cfg->bz_api_key && cfg->bz_key_in_header == CONFIG_KEY_HEADER) {
		char *h = str_printf("X-BUGZILLA-API-KEY: %s", cfg->bz_api_key);

		g->headers = h ? curl_slist_append(NULL, h) : NULL;
		free(h);
	}
	if (cfg->bz_api_key && cfg->bz_key_in_header != CONFIG_KEY_HEADER) {
		char *esc = curl_easy_escape(g->curl, cfg->bz_api_key, 0);

		g->key_param = esc ? str_printf("?api_key=%s", esc) : NULL;
		curl_free(esc);
	} else {
		g->key_param = strdup("");
	}
	if (!g->key_param)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	curl_easy_setopt(g->curl, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(g->curl, CURLOPT_TIMEOUT, cfg->bz_timeout > 0 ? (long)cfg->bz_timeout : 60L);
	curl_easy_setopt(g->curl, CURLOPT_WRITEFUNCTION, collect);
	if (g->headers)
		curl_easy_setopt(g->curl, CURLOPT_HTTPHEADER, g->headers);
	if (cfg->bz_ca_file)
		curl_easy_setopt(g->curl, CURLOPT_CAINFO, cfg->bz_ca_file);
	if (cfg->bz_proxy)
		curl_easy_setopt(g->curl, CURLOPT_PROXY, cfg->bz_proxy);
	return BB_OK;
}

static void getter_release(struct bug_getter *g)
{
	curl_easy_cleanup(g->curl);
	curl_slist_free_all(g->headers);
	free(g->key_param);
}

/* GET /rest/bug/<id>: replaces *bug with the fresh copy (all default fields). */
static enum bb_status get_bug(struct bug_getter *g, struct bz_bug *bug, struct bb_error *err)
{
	struct buf body;
	struct bz_bug *fresh = NULL;
	size_t count = 0;
	char *url = NULL;
	long code = 0;
	CURLcode rc;
	enum bb_status s;

	buf_init_capped(&body, RESPONSE_CAP);
	url = str_printf("%s/rest/bug/%lld%s", g->cfg->bz_url, bug->id, g->key_param);
	if (!url) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	curl_easy_setopt(g->curl, CURLOPT_URL, url);
	curl_easy_setopt(g->curl, CURLOPT_WRITEDATA, &body);
	rc = curl_easy_perform(g->curl);
	g->requests++;
	curl_easy_getinfo(g->curl, CURLINFO_RESPONSE_CODE, &code);
	if (rc != CURLE_OK || code != 200) {
		s = bb_error_set(err, BB_ERR_TEMPORARY, "GET /rest/bug/%lld: %s (HTTP %ld)", bug->id,
				 curl_easy_strerror(rc), code);
		goto out;
	}
	if ((s = bz_parse_bugs(body.data, body.len, g->cfg->bz_subsystem_field, &fresh, &count,
			       err)))
		goto out;
	if (count != 1 || fresh[0].id != bug->id) {
		s = bb_error_set(err, BB_ERR_PROTOCOL, "GET /rest/bug/%lld: %zu bugs in the answer",
				 bug->id, count);
		goto out;
	}
	bz_bug_release(bug);
	*bug = fresh[0];
	count = 0;
out:
	for (size_t i = 0; i < count; i++)
		bz_bug_release(&fresh[i]);
	free(fresh);
	free(url);
	buf_release(&body);
	return s;
}

/* One batched lookup of the comment authors still without a real name
 * (what bugbridge sync does too, so both send the same mail). */
static enum bb_status fill_real_names(struct bz_client *bz, struct bz_bug *bugs, size_t n,
				      struct bb_error *err)
{
	struct bz_user *users = NULL;
	size_t nusers = 0;
	enum bb_status s = BB_OK;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < bugs[i].ncomments; k++) {
			const struct bz_user *a = &bugs[i].comments[k].author;
			size_t u = 0;

			if (a->real_name[0] || !a->login[0])
				continue;
			while (u < nusers && strcmp(users[u].login, a->login))
				u++;
			if (u < nusers)
				continue;
			struct bz_user *more = realloc(users, (nusers + 1) * sizeof(*users));

			if (!more) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				goto out;
			}
			users = more;
			users[nusers].login = strdup(a->login);
			users[nusers].real_name = NULL;
			nusers++;
			if (!users[nusers - 1].login) {
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
				goto out;
			}
		}
	if (!nusers || (s = bz_fetch_users(bz, users, nusers, err)))
		goto out;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < bugs[i].ncomments; k++) {
			struct bz_user *a = &bugs[i].comments[k].author;

			for (size_t u = 0; u < nusers && !a->real_name[0]; u++) {
				char *name;

				if (strcmp(users[u].login, a->login) || !users[u].real_name ||
				    !users[u].real_name[0] || !(name = strdup(users[u].real_name)))
					continue;
				free(a->real_name);
				a->real_name = name;
			}
		}
out:
	for (size_t u = 0; u < nusers; u++) {
		free(users[u].login);
		free(users[u].real_name);
	}
	free(users);
	return s;
}

struct run {
	struct bb_config *cfg;
	struct store *db;
	struct blob_store *blobs;
	struct mnt_file *maintainers;
	struct router *router;
	struct bz_client *bz;
	struct bug_getter getter;
	struct bz_bug *bugs;
	size_t nbugs;
	char **products, **components;
	char *cursor, *cursor_name;
};

static enum bb_status open_all(struct run *r, struct bb_error *err)
{
	struct blob_options bopt;
	struct bz_client_options o;
	char *db_path = NULL, *blob_root = NULL;
	enum bb_status s;

	if ((s = config_load(&r->cfg, NULL, err)))
		goto out;
	log_setup(stderr, r->cfg->log_level, NULL);
	if (!r->cfg->bz_url) {
		s = bb_error_set(err, BB_ERR_CONFIG, "no [bugzilla] url in the configuration");
		goto out;
	}
	db_path = config_data_path(r->cfg, "bugbridge.db");
	blob_root = config_data_path(r->cfg, "blobs");
	if (!db_path || !blob_root) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((s = store_open(&r->db, db_path, STORE_READ_WRITE, err)))
		goto out;
	memset(&bopt, 0, sizeof(bopt));
	bopt.root = blob_root;
	bopt.base_url = r->cfg->blob_base_url;
	bopt.limits.max_members = r->cfg->archive_max_members;
	bopt.limits.max_total = r->cfg->archive_max_total;
	bopt.limits.max_ratio = r->cfg->archive_max_ratio;
	bopt.limits.max_depth = r->cfg->archive_max_depth;
	bopt.store_members = r->cfg->store_archive_members;
	if ((s = blob_store_open(&r->blobs, &bopt, r->db, err)))
		goto out;
	if (r->cfg->maintainers_file &&
	    (s = mnt_load(&r->maintainers, r->cfg->maintainers_file, err)))
		goto out;
	if ((s = router_new(&r->router, r->cfg, r->maintainers, err)))
		goto out;
	memset(&o, 0, sizeof(o));
	o.url = r->cfg->bz_url;
	o.api_key = r->cfg->bz_api_key;
	o.key_in_header = r->cfg->bz_key_in_header;
	o.ca_file = r->cfg->bz_ca_file;
	o.proxy = r->cfg->bz_proxy;
	o.timeout = (long)r->cfg->bz_timeout;
	o.subsystem_field = r->cfg->bz_subsystem_field;
	o.page_size = (unsigned)r->cfg->bz_page_size;
	if ((s = bz_client_new(&r->bz, &o, err)))
		goto out;
	s = getter_init(&r->getter, r->cfg, err);
out:
	free(db_path);
	free(blob_root);
	return s;
}

static void close_all(struct run *r)
{
	for (size_t i = 0; i < r->nbugs; i++)
		bz_bug_release(&r->bugs[i]);
	free(r->bugs);
	config_list_free(r->products);
	config_list_free(r->components);
	free(r->cursor);
	free(r->cursor_name);
	getter_release(&r->getter);
	bz_client_free(r->bz);
	router_free(r->router);
	mnt_free(r->maintainers);
	blob_store_close(r->blobs);
	store_close(r->db);
	config_free(r->cfg);
}

static enum bb_status one_round(struct run *r, int dry_run, struct sync_stats *stats,
				struct bb_error *err)
{
	struct sync_context sc;
	struct bz_filter filter;
	char now_text[32];
	time_t now, since = 0;
	size_t wanted = 0;
	enum bb_status s;

	memset(stats, 0, sizeof(*stats));
	r->cursor_name = sync_cursor_name(r->cfg);
	if ((s = store_cursor_get(r->db, r->cursor_name, &r->cursor, NULL, err)) ||
	    (s = bz_server_time(r->bz, &now, err)))
		return s;
	if (r->cursor)
		since = bz_parse_time(r->cursor) - 1;
	else if (r->cfg->bz_max_age)
		since = now - r->cfg->bz_max_age;
	r->products = config_list(r->cfg->bz_products, NULL);
	r->components = config_list(r->cfg->bz_components, NULL);
	memset(&filter, 0, sizeof(filter));
	filter.products = r->products && r->products[0] ? r->products : NULL;
	filter.components = r->components && r->components[0] ? r->components : NULL;
	filter.keyword = r->cfg->bz_keyword;
	if ((s = bz_search_changed(r->bz, since, &filter, &r->bugs, &r->nbugs, err)))
		return s;

	/* the loop: three requests for every bug wanted */
	for (size_t i = 0; i < r->nbugs; i++) {
		if (!router_wants(r->router, &r->bugs[i], now, NULL))
			continue;
		if (wanted != i) {
			struct bz_bug tmp = r->bugs[wanted];

			r->bugs[wanted] = r->bugs[i];
			r->bugs[i] = tmp;
		}
		if ((s = get_bug(&r->getter, &r->bugs[wanted], err)) ||
		    (s = bz_fetch_comments(r->bz, &r->bugs[wanted], 1, r->cursor ? since : 0, err)) ||
		    (s = bz_fetch_attachments(r->bz, &r->bugs[wanted], 1, err)))
			return s;
		wanted++;
	}
	if ((s = fill_real_names(r->bz, r->bugs, wanted, err)))
		return s;

	memset(&sc, 0, sizeof(sc));
	sc.cfg = r->cfg;
	sc.db = r->db;
	sc.blobs = r->blobs;
	sc.bz = r->bz;
	sc.router = r->router;
	sc.dry_run = dry_run;
	bz_format_time(now, now_text, sizeof(now_text));
	if ((s = sync_apply(&sc, r->bugs, wanted, r->cursor_name, now_text, stats, err)))
		return s;
	stats->bugs_seen = r->nbugs;
	stats->requests = bz_client_requests(r->bz) + r->getter.requests;
	if (!dry_run) {
		struct outbox_options oopt;

		sync_outbox_options(r->cfg, &oopt);
		s = outbox_deliver(r->db, &oopt, time(NULL), &stats->delivery, err);
	}
	return s;
}

int main(int argc, char **argv)
{
	struct bb_error err = BB_ERROR_INIT;
	struct sync_stats stats;
	struct run r;
	int dry_run = argc > 1 && !strcmp(argv[1], "--dry-run");
	enum bb_status s;

	if (argc > 2 || (argc == 2 && !dry_run)) {
		fprintf(stderr, "usage: bench-bz-loop [--dry-run]\n");
		return 2;
	}
	memset(&r, 0, sizeof(r));
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "bench-bz-loop: cannot initialise libcurl\n");
		return 1;
	}
	s = open_all(&r, &err);
	if (!s)
		s = one_round(&r, dry_run, &stats, &err);
	if (s)
		fprintf(stderr, "bench-bz-loop: %s: %s\n", status_str(s), err.message);
	else
		printf("bench-bz-loop: %lu bugs, %lu mails queued, %lu sent, %lu requests\n",
		       stats.bugs_seen, stats.mails_queued, stats.delivery.sent, stats.requests);
	close_all(&r);
	log_setup(NULL, LOG_LEVEL_ERROR, NULL);
	curl_global_cleanup();
	return s ? 1 : 0;
}
