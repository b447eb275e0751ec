/* Configuration: an INI file read with GLib's GKeyFile.
 *
 * Where it comes from, first match wins: the --config option, then
 * $BUGBRIDGE_CONFIG, then ./bugbridge.conf, then built-in defaults that work
 * out of the box (state under ./bugbridge-data/).  An explicitly named file
 * must exist.  Relative paths inside a file are relative to the file's folder.
 *
 * Every key is known in advance: a misspelt key or section is an error, not
 * a silent default.  A file that holds a secret (such as server.upload_token)
 * and that others may read (mode o+r), or others may change, is refused.
 */
#ifndef BB_CONFIG_H
#define BB_CONFIG_H

#include "core/log.h"
#include "core/status.h"

struct bb_config {
	char *source;            /* the file read, or NULL for built-in defaults */

	/* [core] */
	char *data_dir;          /* absolute or relative to the working folder */
	enum log_level log_level;
	char *log_file;          /* NULL: standard error */

	/* [blob] */
	char *blob_base_url;     /* public URL prefix of bugbridge serve */
	int store_archive_members;
	unsigned long long archive_max_members;
	unsigned long long archive_max_total;   /* bytes, all members together */
	unsigned long long archive_max_ratio;   /* uncompressed / compressed */
	unsigned long long archive_max_depth;   /* archives inside archives */
	long long gc_grace;                     /* seconds */

	/* [server] */
	char *listen;            /* address:port */
	char *upload_token;      /* secret; NULL disables uploads */
	unsigned long long max_upload_size;
	unsigned long long server_threads;
};

/* Loads the configuration.  explicit_path is the --config value or NULL.
 * On success *out is to be freed with config_free(). */
enum bb_status config_load(struct bb_config **out, const char *explicit_path,
			   struct bb_error *err);
/* Loads from one file without the search (for tests); NULL for defaults. */
enum bb_status config_load_file(struct bb_config **out, const char *path,
				struct bb_error *err);
void config_free(struct bb_config *cfg);

/* Joins the data folder and a relative name; free() the result. */
char *config_data_path(const struct bb_config *cfg, const char *name);

/* Describes every key, for `bugbridge config` and the sample-file test. */
struct config_key {
	const char *section;
	const char *key;
	const char *default_value;  /* as written in the file; NULL: unset */
	int secret;
	const char *summary;
};
const struct config_key *config_keys(size_t *count);

#endif
