#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "config/conf.h"
#include "core/buf.h"
#include "core/fsutil.h"

enum key_type {
	KEY_STRING,
	KEY_PATH,      /* relative to the config file's folder */
	KEY_BOOL,
	KEY_SIZE,      /* 10M, 2G */
	KEY_COUNT,     /* plain positive number */
	KEY_DURATION,  /* 30d */
	KEY_LOG_LEVEL,
	KEY_URL,
	KEY_LISTEN,
};

struct key_spec {
	struct config_key pub;
	enum key_type type;
	size_t offset;
};

#define OFF(field) offsetof(struct bb_config, field)

static const struct key_spec keys[] = {
	{ { "core", "data_dir", "./bugbridge-data", 0,
	    "folder holding the state database and the blob store" }, KEY_PATH, OFF(data_dir) },
	{ { "core", "log_level", "warn", 0,
	    "error, warn, info or debug (info logs every stored blob and request)" }, KEY_LOG_LEVEL, OFF(log_level) },
	{ { "core", "log_file", NULL, 0,
	    "append log lines to this file instead of standard error" }, KEY_PATH, OFF(log_file) },
	{ { "blob", "base_url", "http://127.0.0.1:8080", 0,
	    "public URL under which `bugbridge serve` (or any web server "
	    "serving data_dir/blobs) is reached; blob links start with it" }, KEY_URL, OFF(blob_base_url) },
	{ { "blob", "store_archive_members", "false", 0,
	    "also store every member of an archive as a blob of its own" }, KEY_BOOL, OFF(store_archive_members) },
	{ { "blob", "archive_max_members", "10000", 0,
	    "inspect at most this many members of one archive" }, KEY_COUNT, OFF(archive_max_members) },
	{ { "blob", "archive_max_total", "4G", 0,
	    "stop inspecting when members add up to more than this" }, KEY_SIZE, OFF(archive_max_total) },
	{ { "blob", "archive_max_ratio", "200", 0,
	    "stop when members add up to more than this many times the archive's size" }, KEY_COUNT, OFF(archive_max_ratio) },
	{ { "blob", "archive_max_depth", "3", 0,
	    "look into archives inside archives this many levels deep" }, KEY_COUNT, OFF(archive_max_depth) },
	{ { "blob", "gc_grace", "30d", 0,
	    "`blob gc` keeps unreferenced blobs stored more recently than this" }, KEY_DURATION, OFF(gc_grace) },
	{ { "server", "listen", "127.0.0.1:8080", 0,
	    "address and port of `bugbridge serve` (port 0 picks a free one)" }, KEY_LISTEN, OFF(listen) },
	{ { "server", "upload_token", NULL, 1,
	    "bearer token for POST/PUT /upload; unset disables uploads (secret)" }, KEY_STRING, OFF(upload_token) },
	{ { "server", "max_upload_size", "2G", 0,
	    "largest upload accepted" }, KEY_SIZE, OFF(max_upload_size) },
	{ { "server", "threads", "8", 0,
	    "worker threads of the HTTP server" }, KEY_COUNT, OFF(server_threads) },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

const struct config_key *config_keys(size_t *count)
{
	static struct config_key pub[NKEYS];

	for (size_t i = 0; i < NKEYS; i++)
		pub[i] = keys[i].pub;
	*count = NKEYS;
	return pub;
}

static void *field(struct bb_config *cfg, const struct key_spec *k)
{
	return (char *)cfg + k->offset;
}

static char *resolve_path(const char *base_dir, const char *value)
{
	if (value[0] == '/' || !base_dir)
		return strdup(value);
	if (value[0] == '.' && value[1] == '/')
		value += 2;
	return str_printf("%s/%s", base_dir, value);
}

static enum bb_status set_value(struct bb_config *cfg, const struct key_spec *k,
				const char *value, const char *base_dir,
				struct bb_error *err)
{
	const char *sec = k->pub.section, *name = k->pub.key;
	void *p = field(cfg, k);

	switch (k->type) {
	case KEY_STRING:
	case KEY_URL:
	case KEY_LISTEN:
	case KEY_PATH: {
		char **sp = p;
		char *copy;

		if (k->type == KEY_URL) {
			if (strncmp(value, "http://", 7) && strncmp(value, "https://", 8))
				return bb_error_set(err, BB_ERR_CONFIG,
						    "[%s] %s: \"%s\" is not an http:// or https:// URL",
						    sec, name, value);
		}
		if (k->type == KEY_LISTEN) {
			const char *colon = strrchr(value, ':');
			char *end;
			long port;

			if (!colon)
				return bb_error_set(err, BB_ERR_CONFIG,
						    "[%s] %s: \"%s\" is not address:port", sec, name, value);
			port = strtol(colon + 1, &end, 10);
			if (*end || end == colon + 1 || port < 0 || port > 65535)
				return bb_error_set(err, BB_ERR_CONFIG,
						    "[%s] %s: bad port in \"%s\"", sec, name, value);
		}
		copy = k->type == KEY_PATH ? resolve_path(base_dir, value) : strdup(value);
		if (!copy)
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		if (k->type == KEY_URL) {
			size_t len = strlen(copy);

			while (len > 0 && copy[len - 1] == '/')
				copy[--len] = '\0';
		}
		free(*sp);
		*sp = copy;
		return BB_OK;
	}
	case KEY_BOOL: {
		int *ip = p;

		if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") ||
		    !strcmp(value, "1") || !strcasecmp(value, "on"))
			*ip = 1;
		else if (!strcasecmp(value, "false") || !strcasecmp(value, "no") ||
			 !strcmp(value, "0") || !strcasecmp(value, "off"))
			*ip = 0;
		else
			return bb_error_set(err, BB_ERR_CONFIG,
					    "[%s] %s: \"%s\" is not true or false", sec, name, value);
		return BB_OK;
	}
	case KEY_SIZE:
	case KEY_COUNT: {
		unsigned long long *up = p, n;

		int bad = parse_size(value, &n) != 0;

		if (k->type == KEY_COUNT && strspn(value, "0123456789") != strlen(value))
			bad = 1;
		if (bad)
			return bb_error_set(err, BB_ERR_CONFIG,
					    k->type == KEY_SIZE
						    ? "[%s] %s: \"%s\" is not a size (like 512K, 10M, 2G)"
						    : "[%s] %s: \"%s\" is not a number",
					    sec, name, value);
		if (n == 0 && k->type == KEY_COUNT)
			return bb_error_set(err, BB_ERR_CONFIG,
					    "[%s] %s: must be at least 1", sec, name);
		*up = n;
		return BB_OK;
	}
	case KEY_DURATION: {
		long long *lp = p;

		if (parse_duration(value, lp) != 0)
			return bb_error_set(err, BB_ERR_CONFIG,
					    "[%s] %s: \"%s\" is not a duration (like 90s, 15m, 12h, 30d)",
					    sec, name, value);
		return BB_OK;
	}
	case KEY_LOG_LEVEL: {
		int level = log_level_parse(value);

		if (level < 0)
			return bb_error_set(err, BB_ERR_CONFIG,
					    "[%s] %s: \"%s\" is not error, warn, info or debug",
					    sec, name, value);
		*(enum log_level *)p = (enum log_level)level;
		return BB_OK;
	}
	}
	return bb_error_set(err, BB_ERR_INTERNAL, "unknown key type");
}

static const struct key_spec *find_key(const char *section, const char *key)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].pub.section, section) && !strcmp(keys[i].pub.key, key))
			return &keys[i];
	return NULL;
}

static int section_known(const char *section)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].pub.section, section))
			return 1;
	return 0;
}

void config_free(struct bb_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->source);
	free(cfg->data_dir);
	free(cfg->log_file);
	free(cfg->blob_base_url);
	free(cfg->listen);
	if (cfg->upload_token) {
		explicit_bzero(cfg->upload_token, strlen(cfg->upload_token));
		free(cfg->upload_token);
	}
	free(cfg);
}

static enum bb_status check_permissions(const char *path, const char *secret_key,
					struct bb_error *err)
{
	struct stat sb;

	if (stat(path, &sb) != 0)
		return bb_error_errno(err, errno, "cannot read config %s", path);
	if (sb.st_mode & (S_IROTH | S_IWOTH))
		return bb_error_set(err, BB_ERR_CONFIG,
				    "config %s holds a secret ([server] %s) and is %s by others; "
				    "refusing to use it (fix with: chmod o-rw %s)",
				    path, secret_key,
				    (sb.st_mode & S_IROTH) ? "readable" : "writable", path);
	if (sb.st_mode & S_IWGRP)
		return bb_error_set(err, BB_ERR_CONFIG,
				    "config %s holds a secret ([server] %s) and is writable by its group; "
				    "refusing to use it (fix with: chmod g-w %s)",
				    path, secret_key, path);
	return BB_OK;
}

enum bb_status config_load_file(struct bb_config **out, const char *path,
				struct bb_error *err)
{
	struct bb_config *cfg;
	GKeyFile *kf = NULL;
	GError *gerr = NULL;
	gchar **groups = NULL;
	char *base_dir = NULL;
	const char *secret_key = NULL;
	enum bb_status s = BB_OK;

	*out = NULL;
	cfg = calloc(1, sizeof(*cfg));
	if (!cfg)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");

	for (size_t i = 0; i < NKEYS && !s; i++)
		if (keys[i].pub.default_value)
			s = set_value(cfg, &keys[i], keys[i].pub.default_value, NULL, err);
	if (s || !path)
		goto out;

	if (!(cfg->source = strdup(path))) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	kf = g_key_file_new();
	if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &gerr)) {
		if (g_error_matches(gerr, G_FILE_ERROR, G_FILE_ERROR_NOENT))
			s = bb_error_set(err, BB_ERR_NOT_FOUND, "config %s: no such file", path);
		else
			s = bb_error_set(err, BB_ERR_CONFIG, "config %s: %s", path, gerr->message);
		goto out;
	}
	{
		char *dir = g_path_get_dirname(path);

		if (dir[0] == '/' || !strcmp(dir, ".")) {
			base_dir = strcmp(dir, ".") ? strdup(dir) : NULL;
		} else {
			char cwd[PATH_MAX];

			base_dir = getcwd(cwd, sizeof(cwd)) ? str_printf("%s/%s", cwd, dir) : NULL;
		}
		g_free(dir);
	}

	groups = g_key_file_get_groups(kf, NULL);
	for (gchar **g = groups; *g && !s; g++) {
		gchar **names;

		if (!section_known(*g)) {
			s = bb_error_set(err, BB_ERR_CONFIG, "config %s: unknown section [%s]", path, *g);
			break;
		}
		names = g_key_file_get_keys(kf, *g, NULL, NULL);
		for (gchar **k = names; k && *k && !s; k++) {
			const struct key_spec *spec = find_key(*g, *k);
			gchar *value;

			if (!spec) {
				s = bb_error_set(err, BB_ERR_CONFIG,
						 "config %s: unknown key \"%s\" in [%s]", path, *k, *g);
				break;
			}
			value = g_key_file_get_string(kf, *g, *k, NULL);
			if (!value)
				value = g_strdup("");
			g_strstrip(value);
			if (spec->pub.secret && *value)
				secret_key = spec->pub.key;
			if (*value || spec->pub.secret) {
				s = set_value(cfg, spec, value, base_dir, err);
				if (s) {
					/* name the file; values of secrets are never quoted */
					if (err) {
						char *msg = str_printf("config %s: %s", path, err->message);

						if (msg) {
							snprintf(err->message, sizeof(err->message), "%s", msg);
							free(msg);
						}
					}
				}
			}
			if (spec->pub.secret)
				explicit_bzero(value, strlen(value));
			g_free(value);
		}
		g_strfreev(names);
	}
	if (!s && secret_key)
		s = check_permissions(path, secret_key, err);
	if (!s && cfg->upload_token && !*cfg->upload_token) {
		free(cfg->upload_token);
		cfg->upload_token = NULL;
	}
out:
	g_strfreev(groups);
	if (gerr)
		g_error_free(gerr);
	if (kf)
		g_key_file_free(kf);
	free(base_dir);
	if (s) {
		config_free(cfg);
		return s;
	}
	*out = cfg;
	return BB_OK;
}

enum bb_status config_load(struct bb_config **out, const char *explicit_path,
			   struct bb_error *err)
{
	const char *env = getenv("BUGBRIDGE_CONFIG");

	if (explicit_path)
		return config_load_file(out, explicit_path, err);
	if (env && *env)
		return config_load_file(out, env, err);
	if (access("bugbridge.conf", F_OK) == 0)
		return config_load_file(out, "bugbridge.conf", err);
	return config_load_file(out, NULL, err);
}

char *config_data_path(const struct bb_config *cfg, const char *name)
{
	size_t len = strlen(cfg->data_dir);

	while (len > 1 && cfg->data_dir[len - 1] == '/')
		len--;
	return str_printf("%.*s/%s", (int)len, cfg->data_dir, name);
}
