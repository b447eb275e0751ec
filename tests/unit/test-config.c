/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for config/: defaults, files, validation, secrets. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "config/conf.h"
#include "core/buf.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/bb-config-XXXXXX";

static char *write_file(const char *name, mode_t mode, const char *text)
{
	char *path = str_printf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
	chmod(path, mode);
	return path;
}

static void test_defaults(void)
{
	struct bb_config *cfg = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *p;

	ok(config_load_file(&cfg, NULL, &err) == BB_OK, "built-in defaults load");
	ok(cfg->source == NULL, "no source file");
	is_str(cfg->data_dir, "./bugbridge-data", "default data folder");
	is_str(cfg->blob_base_url, "http://127.0.0.1:8080", "default base URL");
	is_str(cfg->listen, "127.0.0.1:8080", "default listen address");
	ok(cfg->upload_token == NULL, "uploads disabled by default");
	is_int(cfg->gc_grace, 30 * 86400, "default grace 30 days");
	is_int(cfg->archive_max_ratio, 200, "default ratio limit");
	is_int(cfg->max_upload_size, 2ULL << 30, "default upload limit 2G");
	is_str(cfg->inbound_authenticate, "dkim-or-authserv", "commands need DKIM or a trusted server");
	ok(cfg->inbound_trusted_authserv_id == NULL && cfg->inbound_dkim_key_file == NULL,
	   "no server is trusted and DKIM keys come from DNS by default");
	is_int(cfg->inbound_answer_limit, 10, "default answer limit 10 per thread and hour");
	p = config_data_path(cfg, "blobs");
	is_str(p, "./bugbridge-data/blobs", "data path join");
	free(p);
	config_free(cfg);
}

static void test_file(void)
{
	struct bb_config *cfg = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *path, *want;

	path = write_file("good.conf", 0600,
			  "[core]\ndata_dir = state\nlog_level = debug\n"
			  "[blob]\nbase_url = https://blobs.example.org/\nstore_archive_members = yes\n"
			  "archive_max_total = 512M\ngc_grace = 12h\n"
			  "[server]\nlisten = [::1]:0\nupload_token = t0ken\nmax_upload_size = 10M\n");
	ok(config_load_file(&cfg, path, &err) == BB_OK, "a full file loads: %s", err.message);
	want = str_printf("%s/state", dir);
	is_str(cfg->data_dir, want, "relative data_dir is relative to the file's folder");
	free(want);
	free(path);
	config_free(cfg);
	cfg = NULL;
	path = write_file("no-data-dir.conf", 0600, "[core]\nlog_level = debug\n");
	unsetenv("STATE_DIRECTORY");
	ok(config_load_file(&cfg, path, &err) == BB_OK, "a file without data_dir loads");
	want = str_printf("%s/bugbridge-data", dir);
	is_str(cfg->data_dir, want, "without data_dir, the data folder is beside the file, not in the working directory");
	free(want);
	config_free(cfg);
	cfg = NULL;
	setenv("STATE_DIRECTORY", "/var/lib/bugbridge-test:/var/lib/other", 1);
	ok(config_load_file(&cfg, path, &err) == BB_OK, "loads with STATE_DIRECTORY");
	is_str(cfg->data_dir, "/var/lib/bugbridge-test", "$STATE_DIRECTORY's first folder wins");
	unsetenv("STATE_DIRECTORY");
	free(path);
	config_free(cfg);
	cfg = NULL;
	path = write_file("good.conf", 0600,
			  "[core]\ndata_dir = state\nlog_level = debug\n"
			  "[blob]\nbase_url = https://blobs.example.org/\nstore_archive_members = yes\n"
			  "archive_max_total = 512M\ngc_grace = 12h\n"
			  "[server]\nlisten = [::1]:0\nupload_token = t0ken\nmax_upload_size = 10M\n");
	ok(config_load_file(&cfg, path, &err) == BB_OK, "the full file loads again");
	is_int(cfg->log_level, LOG_LEVEL_DEBUG, "log level");
	is_str(cfg->blob_base_url, "https://blobs.example.org", "trailing slash dropped from base URL");
	is_int(cfg->store_archive_members, 1, "boolean yes");
	is_int(cfg->archive_max_total, 512ULL << 20, "size with suffix");
	is_int(cfg->gc_grace, 12 * 3600, "duration in hours");
	is_str(cfg->upload_token, "t0ken", "secret read from a private file");
	is_str(cfg->listen, "[::1]:0", "IPv6 listen address");
	is_str(cfg->source, path, "source recorded");
	config_free(cfg);
	free(path);
}

static void expect_error(const char *name, const char *text, mode_t mode, enum bb_status code,
			 const char *fragment)
{
	struct bb_config *cfg = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *path = write_file(name, mode, text);

	is_int(config_load_file(&cfg, path, &err), code, "%s is refused", name);
	ok(strstr(err.message, fragment) != NULL, "%s: message says \"%s\" (got: %s)", name,
	   fragment, err.message);
	ok(cfg == NULL, "%s: no config returned", name);
	free(path);
}

static void test_errors(void)
{
	struct bb_config *cfg = NULL;
	struct bb_error err = BB_ERROR_INIT;

	expect_error("typo-key.conf", "[core]\ndata_dri = x\n", 0600, BB_ERR_CONFIG,
		     "unknown key \"data_dri\" in [core]");
	expect_error("typo-section.conf", "[cor]\ndata_dir = x\n", 0600, BB_ERR_CONFIG,
		     "unknown section [cor]");
	expect_error("bad-size.conf", "[server]\nmax_upload_size = lots\n", 0600, BB_ERR_CONFIG,
		     "is not a size");
	expect_error("digest-hour.conf", "[digest]\nschedule = weekly\nhour = 24\n", 0600,
		     BB_ERR_CONFIG, "is not 0, 1, 2");
	expect_error("digest-day.conf", "[digest]\nschedule = weekly\nday = 8\n", 0600,
		     BB_ERR_CONFIG, "[digest] day: 8 is not a day of the week");
	expect_error("digest-month.conf", "[digest]\nschedule = monthly\nday = 31\n", 0600,
		     BB_ERR_CONFIG, "[digest] day: 31 is not a day every month has");
	{
		char *path = write_file("digest-midnight.conf", 0600,
					"[digest]\nschedule = monthly\nday = 28\nhour = 0\n");

		ok(config_load_file(&cfg, path, &err) == BB_OK && cfg->digest_hour &&
		   !strcmp(cfg->digest_hour, "0") && cfg->digest_day == 28,
		   "[digest] monthly on the 28th at 0:00 UTC is taken");
		config_free(cfg);
		cfg = NULL;
		free(path);
	}
	expect_error("bad-authenticate.conf", "[inbound]\nauthenticate = spf\n", 0600, BB_ERR_CONFIG,
		     "is not dkim, authserv, dkim-or-authserv or none");
	expect_error("bad-bool.conf", "[blob]\nstore_archive_members = maybe\n", 0600, BB_ERR_CONFIG,
		     "is not true or false");
	expect_error("bad-url.conf", "[blob]\nbase_url = ftp://x\n", 0600, BB_ERR_CONFIG,
		     "is not an http");
	expect_error("bad-listen.conf", "[server]\nlisten = localhost\n", 0600, BB_ERR_CONFIG,
		     "is not address:port");
	expect_error("bad-level.conf", "[core]\nlog_level = loud\n", 0600, BB_ERR_CONFIG,
		     "is not error, warn");
	expect_error("zero-count.conf", "[blob]\narchive_max_depth = 0\n", 0600, BB_ERR_CONFIG,
		     "must be at least 1");
	expect_error("syntax.conf", "this is not ini\n", 0600, BB_ERR_CONFIG, "syntax.conf");
	/* where, and what was meant */
	expect_error("line.conf", "# a comment\n[core]\nlog_level = info\n\nlog_levle = warn\n", 0600,
		     BB_ERR_CONFIG, "line.conf:5: unknown key \"log_levle\" in [core]; did you mean \"log_level\"?");
	expect_error("swapped.conf", "[smpt]\nport = 25\n", 0600, BB_ERR_CONFIG,
		     "swapped.conf:1: unknown section [smpt]; did you mean [smtp]?");
	expect_error("elsewhere.conf", "[core]\nport = 25\n", 0600, BB_ERR_CONFIG,
		     "elsewhere.conf:2: unknown key \"port\" in [core]; it belongs in [smtp]");
	expect_error("far.conf", "[core]\nfrobnication = 1\n", 0600, BB_ERR_CONFIG,
		     "unknown key \"frobnication\" in [core]");
	expect_error("value-line.conf", "[blob]\n\n  store_archive_members = maybe\n", 0600,
		     BB_ERR_CONFIG, "value-line.conf:3: [blob] store_archive_members");
	/* ranges */
	expect_error("port-high.conf", "[smtp]\nport = 99999\n", 0600, BB_ERR_CONFIG,
		     "\"99999\" is not a port (1 to 65535)");
	expect_error("port-zero.conf", "[smtp]\nport = 0\n", 0600, BB_ERR_CONFIG, "is not a port");
	expect_error("port-sign.conf", "[smtp]\nport = -25\n", 0600, BB_ERR_CONFIG, "is not a port");
	expect_error("interval-zero.conf", "[sync]\ninterval = 0\n", 0600, BB_ERR_CONFIG,
		     "[sync] interval: must be at least 1s");
	expect_error("timeout-zero.conf", "[smtp]\ntimeout = 0s\n", 0600, BB_ERR_CONFIG,
		     "[smtp] timeout: must be at least 1s");
	/* an address list that would lose people in silence */
	expect_error("semicolons.conf", "[routing]\ndefault_lists = a@example.org; b@example.org\n",
		     0600, BB_ERR_CONFIG, "[routing] default_lists: \"a@example.org; b@example.org\" is"
		     " not a comma-separated list of addresses: 1 of its 2");
	expect_error("no-brackets.conf", "[route usb]\ncomponent = USB\npeople = Doe John j@example.org\n",
		     0600, BB_ERR_CONFIG, "[route usb] people: \"Doe John j@example.org\"");
	expect_error("allow-junk.conf", "[inbound]\nallow = a@example.org, @@\n", 0600, BB_ERR_CONFIG,
		     "[inbound] allow");
	{
		char *path = write_file("names.conf", 0600,
					"[routing]\ndefault_lists = \"Doe, John\" <j@example.org>,"
					" Team (a@b in a comment) <t@example.org>, \"a@b\" <x@example.org>\n"
					"[tracker]\nreport_lists = list: a@example.org, b@example.org;\n");

		ok(config_load_file(&cfg, path, &err) == BB_OK, "quoted names, comments and a group"
		   " with '@' in them load: %s", err.message);
		config_free(cfg);
		cfg = NULL;
		free(path);
	}
	/* a URL as libcurl will read it */
	expect_error("url-no-host.conf", "[bugzilla]\nurl = https://\n", 0600, BB_ERR_CONFIG,
		     "\"https://\" is not an http:// or https:// URL with a host");
	expect_error("url-garbage.conf", "[bugzilla]\nurl = https://exa mple.org/\n", 0600,
		     BB_ERR_CONFIG, "URL with a host");
	expect_error("world-readable.conf", "[server]\nupload_token = s3cr3t-value\n", 0644,
		     BB_ERR_CONFIG, "readable by others");
	expect_error("world-writable.conf", "[server]\nupload_token = s3cr3t-value\n", 0602,
		     BB_ERR_CONFIG, "writable by others");
	{
		char *path = write_file("secret-msg.conf", 0644, "[server]\nupload_token = s3cr3t-value\n");

		config_load_file(&cfg, path, &err);
		ok(strstr(err.message, "s3cr3t") == NULL, "the refusal does not print the secret");
		ok(strstr(err.message, "chmod") != NULL, "the refusal says how to fix it");
		free(path);
	}
	{
		char *path = write_file("public-nosecret.conf", 0644, "[core]\nlog_level = info\n");

		ok(config_load_file(&cfg, path, &err) == BB_OK,
		   "a world-readable file without secrets is fine");
		config_free(cfg);
		free(path);
	}
	{
		char *path = write_file("group-read.conf", 0640, "[server]\nupload_token = x\n");

		ok(config_load_file(&cfg, path, &err) == BB_OK,
		   "a secret in a group-readable (0640) file is accepted");
		config_free(cfg);
		free(path);
	}
	{
		char *path = str_printf("%s/missing.conf", dir);

		is_int(config_load_file(&cfg, path, &err), BB_ERR_NOT_FOUND, "a missing file is an error");
		ok(strstr(err.message, "no such file") != NULL, "saying so");
		free(path);
	}
}

/* AUTH never goes out in clear: STARTTLS defaults to required with a
 * login, and "no" with a login is refused. */
static void test_starttls(void)
{
	struct bb_config *cfg = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *path;

	ok(config_load_file(&cfg, NULL, &err) == BB_OK, "defaults load");
	is_str(cfg->smtp_starttls, "try", "no login: starttls defaults to try");
	config_free(cfg);
	path = write_file("login.conf", 0600, "[smtp]\nhost = mx.example.org\nuser = bb\n"
			  "password = s3cr3t\n");
	ok(config_load_file(&cfg, path, &err) == BB_OK, "a login loads: %s", err.message);
	is_str(cfg ? cfg->smtp_starttls : NULL, "required", "with a login, starttls defaults to required");
	config_free(cfg);
	free(path);
	path = write_file("login-try.conf", 0600, "[smtp]\nuser = bb\npassword = s3cr3t\n"
			  "starttls = try\n");
	ok(config_load_file(&cfg, path, &err) == BB_OK, "an explicit try with a login loads");
	config_free(cfg);
	free(path);
	expect_error("login-no-tls.conf", "[smtp]\nuser = bb\npassword = s3cr3t\nstarttls = no\n",
		     0600, BB_ERR_CONFIG, "would send the password in clear");
	expect_error("password-no-tls.conf", "[smtp]\npassword = s3cr3t\nstarttls = no\n",
		     0600, BB_ERR_CONFIG, "starttls = no");
	path = write_file("no-login-no-tls.conf", 0600, "[smtp]\nstarttls = no\n");
	ok(config_load_file(&cfg, path, &err) == BB_OK, "starttls = no without a login loads");
	is_str(cfg ? cfg->smtp_starttls : NULL, "no", "and stays no");
	config_free(cfg);
	free(path);
}

/* [bugzilla] api_key_in (auto by default), flag and kernel_field. */
static void test_bugzilla_keys(void)
{
	struct bb_config *cfg = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *path;

	ok(config_load_file(&cfg, NULL, &err) == BB_OK, "defaults load");
	ok(cfg && cfg->bz_key_in_header == CONFIG_KEY_AUTO, "api_key_in defaults to auto");
	is_str(cfg ? cfg->bz_kernel_field : NULL, "cf_kernel_version",
	       "kernel_field defaults to cf_kernel_version");
	ok(cfg && !cfg->bz_flag, "no flag by default");
	config_free(cfg);
	path = write_file("bz-keys.conf", 0600, "[bugzilla]\napi_key_in = header\n"
			  "flag = bugbot+, review?\nkernel_field = cf_kernel\n");
	ok(config_load_file(&cfg, path, &err) == BB_OK, "flag, kernel_field, api_key_in load: %s",
	   err.message);
	ok(cfg && cfg->bz_key_in_header == CONFIG_KEY_HEADER, "api_key_in = header");
	is_str(cfg ? cfg->bz_flag : NULL, "bugbot+, review?", "flag");
	is_str(cfg ? cfg->bz_kernel_field : NULL, "cf_kernel", "kernel_field");
	config_free(cfg);
	free(path);
	path = write_file("bz-param.conf", 0600, "[bugzilla]\napi_key_in = param\n");
	ok(config_load_file(&cfg, path, &err) == BB_OK && cfg->bz_key_in_header == CONFIG_KEY_PARAM,
	   "api_key_in = param");
	config_free(cfg);
	free(path);
	expect_error("bz-bad-place.conf", "[bugzilla]\napi_key_in = cookie\n", 0600,
		     BB_ERR_CONFIG, "auto, header or param");
}

static void test_trees(void)
{
	struct bb_config *cfg = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *path, *want;

	path = write_file("trees.conf", 0600,
			  "[tree mainline]\npath = git/linux\nref = master\nupstream = next\n"
			  "[tree next]\nurl = https://git.example.org/next.git\nref = master\n"
			  "[route usb]\ncomponent = USB\nlists = linux-usb@vger.kernel.org\n");
	ok(config_load_file(&cfg, path, &err) == BB_OK, "[tree NAME] sections load: %s", err.message);
	if (cfg) {
		is_int(cfg->ntrees, 2, "two trees, in file order");
		is_str(cfg->trees[0].name, "mainline", "the tree's name");
		want = str_printf("%s/git/linux", dir);
		is_str(cfg->trees[0].path, want, "a relative path is relative to the file's folder");
		free(want);
		is_str(cfg->trees[0].upstream, "next", "its upstream");
		is_str(cfg->trees[1].url, "https://git.example.org/next.git", "a mirrored tree's URL");
		ok(cfg->trees[1].path == NULL, "with no path");
		is_int(cfg->nroutes, 1, "routes still load beside trees");
		is_str(cfg->tracker_regression_field, "cf_regression", "tracker defaults");
		is_int(cfg->tracker_stale_after, 90 * 24 * 3600, "stale after 90 days");
	}
	config_free(cfg);
	free(path);
	expect_error("tree-key.conf", "[tree x]\npath = /a\nref = m\nbranch = m\n", 0600,
		     BB_ERR_CONFIG, "unknown key \"branch\" in [tree x] (known: path, url, ref, upstream)");
	expect_error("tree-ref.conf", "[tree x]\npath = /a\n", 0600, BB_ERR_CONFIG,
		     "names no ref");
	expect_error("tree-repo.conf", "[tree x]\nref = master\n", 0600, BB_ERR_CONFIG,
		     "names no repository");
}

static void test_search(void)
{
	struct bb_config *cfg = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *env = write_file("env.conf", 0600, "[core]\nlog_level = error\n");
	char *cwd_file = write_file("bugbridge.conf", 0600, "[core]\nlog_level = debug\n");
	char *old = getcwd(NULL, 0);

	ok(chdir(dir) == 0, "enter the temp folder");
	setenv("BUGBRIDGE_CONFIG", env, 1);
	ok(config_load(&cfg, NULL, &err) == BB_OK && cfg->log_level == LOG_LEVEL_ERROR,
	   "$BUGBRIDGE_CONFIG wins over ./bugbridge.conf");
	config_free(cfg);
	ok(config_load(&cfg, cwd_file, &err) == BB_OK && cfg->log_level == LOG_LEVEL_DEBUG,
	   "--config wins over $BUGBRIDGE_CONFIG");
	config_free(cfg);
	unsetenv("BUGBRIDGE_CONFIG");
	ok(config_load(&cfg, NULL, &err) == BB_OK && cfg->source &&
	   !strcmp(cfg->source, "bugbridge.conf"), "./bugbridge.conf is found");
	config_free(cfg);
	unlink(cwd_file);
	ok(config_load(&cfg, NULL, &err) == BB_OK && cfg->source == NULL,
	   "built-in defaults when there is no file");
	config_free(cfg);
	ok(chdir(old) == 0, "leave the temp folder");
	free(old);
	free(env);
	free(cwd_file);
}

/* Every key is documented in the sample, and the sample itself loads. */
static void test_sample(void)
{
	const char *srcdir = getenv("top_srcdir");
	char *sample = str_printf("%s/config/bugbridge.conf.sample", srcdir ? srcdir : "..");
	const struct config_key *keys;
	struct bb_config *cfg = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct buf text = BUF_INIT;
	char chunk[4096];
	size_t n, count;
	FILE *f = fopen(sample, "r");

	if (!ok(f != NULL, "sample config at %s", sample)) {
		free(sample);
		return;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&text, chunk, n);
	fclose(f);
	keys = config_keys(&count);
	for (size_t i = 0; i < count; i++) {
		char *line = str_printf("\n#%s = ", keys[i].key);
		char *section = str_printf("[%s]", keys[i].section);

		ok(strstr(text.data, line) && strstr(text.data, section),
		   "sample documents [%s] %s", keys[i].section, keys[i].key);
		if (keys[i].default_value && !keys[i].secret) {
			char *full = str_printf("\n#%s = %s\n", keys[i].key, keys[i].default_value);

			ok(strstr(text.data, full) != NULL, "sample shows the default of %s (%s)",
			   keys[i].key, keys[i].default_value);
			free(full);
		}
		free(line);
		free(section);
	}
	ok(config_load_file(&cfg, sample, &err) == BB_OK, "the sample loads as it is: %s", err.message);
	config_free(cfg);
	buf_release(&text);
	free(sample);
}

/* Secrets in files of their own (systemd's LoadCredential=) */
/* A file that loads, whose secrets' files are refused when read. */
static void expect_secret_error(const char *name, const char *text, enum bb_status code,
				const char *fragment)
{
	struct bb_config *cfg = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *path = write_file(name, 0600, text);

	is_int(config_load_file(&cfg, path, &err), BB_OK,
	       "%s loads: its secrets are read only when needed (%s)", name, err.message);
	if (cfg)
		is_int(config_read_secrets(cfg, &err), code, "%s: reading its secrets is refused",
		       name);
	ok(strstr(err.message, fragment) != NULL, "%s: message says \"%s\" (got: %s)", name,
	   fragment, err.message);
	config_free(cfg);
	free(path);
}

static void test_credentials(void)
{
	struct bb_config *cfg = NULL;
	struct bb_error err = BB_ERROR_INIT;
	char *path, *creds = str_printf("%s/creds", dir), *key;

	mkdir(creds, 0700);
	key = str_printf("%s/bugzilla-key", creds);
	{
		FILE *f = fopen(key, "w");

		fputs("k3y-from-systemd\n", f);
		fclose(f);
	}
	setenv("CREDENTIALS_DIRECTORY", creds, 1);
	path = write_file("cred.conf", 0644, "[bugzilla]\napi_key_file = bugzilla-key\n");
	is_int(config_load_file(&cfg, path, &err), BB_OK, "a file naming a secret's file loads (%s)",
	       err.message);
	ok(cfg && !cfg->bz_api_key, "the secret is not read by the load");
	is_int(cfg ? config_read_secrets(cfg, &err) : BB_ERR_INTERNAL, BB_OK,
	       "a bare name is read from $CREDENTIALS_DIRECTORY (%s)", err.message);
	is_str(cfg ? cfg->bz_api_key : NULL, "k3y-from-systemd", "without its newline");
	{
		char tmp[64];
		size_t n;
		const struct config_key *keys = config_keys(&n);

		for (size_t i = 0; cfg && i < n; i++)
			if (!strcmp(keys[i].section, "bugzilla") && !strcmp(keys[i].key, "api_key"))
				is_str(config_value(cfg, i, tmp, sizeof(tmp)), "<set>",
				       "config shows the key as <set>, never its value");
	}
	config_free(cfg);
	cfg = NULL;
	free(path);
	unsetenv("CREDENTIALS_DIRECTORY");

	path = write_file("smtp-pass", 0640, "s3cr3t\n");
	free(path);
	path = write_file("pass.conf", 0600, "[smtp]\nuser = bb\npassword_file = smtp-pass\n");
	is_int(config_load_file(&cfg, path, &err), BB_OK, "pass.conf loads (%s)", err.message);
	is_int(cfg ? config_read_secrets(cfg, &err) : BB_ERR_INTERNAL, BB_OK,
	       "a relative path is next to the file (%s)", err.message);
	is_str(cfg ? cfg->smtp_password : NULL, "s3cr3t", "the password is read");
	is_str(cfg ? cfg->smtp_starttls : NULL, "required", "and counts as a login: STARTTLS required");
	{
		char **w = config_secret_warnings(cfg);

		ok(w && w[0] && strstr(w[0], "password_file") && strstr(w[0], "may be read by its group")
		   && !w[1], "a secret's file its group may read is warned of (%s)", w && w[0] ? w[0] : "none");
		g_strfreev(w);
	}
	config_free(cfg);
	cfg = NULL;
	free(path);
	path = write_file("pass-only.conf", 0600, "[smtp]\npassword_file = smtp-pass\n");
	is_int(config_load_file(&cfg, path, &err), BB_OK, "a password file alone loads (%s)", err.message);
	is_str(cfg ? cfg->smtp_starttls : NULL, "required",
	       "and counts as a login before it is read: STARTTLS required");
	config_free(cfg);
	cfg = NULL;
	free(path);

	path = write_file("open-pass", 0644, "s3cr3t\n");
	free(path);
	expect_secret_error("open-pass.conf", "[smtp]\npassword_file = open-pass\n", BB_ERR_CONFIG,
			    "readable by others");
	expect_error("both.conf", "[bugzilla]\napi_key = x\napi_key_file = y\n", 0600, BB_ERR_CONFIG,
		     "[bugzilla] api_key and api_key_file are both set");
	expect_secret_error("missing-cred.conf", "[server]\nupload_token_file = nothing-here\n",
			    BB_ERR_CONFIG, "[server] upload_token_file:");
	path = write_file("two-lines", 0600, "a\nb\n");
	free(path);
	expect_secret_error("two-lines.conf", "[server]\nupload_token_file = two-lines\n",
			    BB_ERR_CONFIG, "must hold one line");
	if (geteuid() != 0) {
		path = write_file("not-mine", 0000, "x\n");
		free(path);
		expect_secret_error("not-mine.conf", "[server]\nupload_token_file = not-mine\n",
				    BB_ERR_PERMISSION, "Permission denied");
	}
	free(key);
	free(creds);
}

int main(void)
{
	char *cmd;

	if (!mkdtemp(dir))
		return 99;
	test_defaults();
	test_file();
	test_errors();
	test_starttls();
	test_bugzilla_keys();
	test_trees();
	test_credentials();
	test_search();
	test_sample();
	cmd = str_printf("rm -rf %s", dir);
	ok(system(cmd) == 0, "cleanup");
	free(cmd);
	return done_testing();
}
