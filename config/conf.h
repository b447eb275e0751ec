/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Folder config/: the configuration (GKeyFile INI), the sample file and
 * the systemd units.  It may use core/.
 *
 * Configuration: an INI file read with GLib's GKeyFile.
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

/* [bugzilla] api_key_in (bb_config.bz_key_in_header). */
#define CONFIG_KEY_PARAM 0
#define CONFIG_KEY_HEADER 1
#define CONFIG_KEY_AUTO 2

struct bb_config {
	char *source;            /* the file read, or NULL for built-in defaults */
	/* Secrets in files (api_key_file, password_file, upload_token_file)
	 * are read by config_read_secrets(), not by the load: the commands
	 * that need none (status, config, blob, export, regressions) work for
	 * a user who may not read them.  Relative names are relative to
	 * secrets_dir (the configuration file's folder). */
	char *secrets_dir;
	int secrets_read;
	char *inline_secret;     /* "[section] key" of a secret written in the file itself */

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
	char *upload_token_file; /* where upload_token was read from, or NULL */
	unsigned long long max_upload_size;
	char *server_threading;          /* per-connection, pool */
	unsigned long long server_threads; /* the pool's, with threading = pool */
	unsigned long long server_max_connections;        /* all peers together */
	unsigned long long server_max_connections_per_client; /* per peer, proxies exempt */
	long long server_header_timeout;  /* seconds until a request's headers are in */
	long long server_body_timeout;    /* idle seconds once they are */
	unsigned long long server_min_body_rate; /* bytes a second a body averages; 0: any */
	char *server_trusted_proxies;     /* "ADDR[/BITS],..."; NULL: none */

	/* [bugzilla] */
	char *bz_url;            /* base URL, no trailing slash; NULL: not configured */
	char *bz_api_key;        /* secret; NULL: anonymous */
	char *bz_api_key_file;   /* where bz_api_key was read from, or NULL */
	int bz_key_in_header;    /* CONFIG_KEY_PARAM (api_key=, 5.0/5.2), CONFIG_KEY_HEADER
				  * (X-BUGZILLA-API-KEY, 5.1) or CONFIG_KEY_AUTO (the
				  * header for a 5.1.x server); the values of
				  * bugzilla/bz_client.h's BZ_KEY_* */
	char *bz_ca_file;
	char *bz_proxy;
	long long bz_timeout;    /* seconds per request */
	unsigned long long bz_page_size;
	char *bz_subsystem_field;        /* e.g. cf_subsystem; NULL: none */
	char *bz_products;       /* comma-separated lists; NULL or "": all */
	char *bz_components;
	char *bz_statuses;       /* which statuses are mirrored */
	char *bz_keyword;        /* only bugs with this keyword (or a bz_flag); NULL: all */
	char *bz_flag;           /* comma-separated flags "name+"; NULL: none */
	char *bz_kernel_field;   /* the kernel version field (cf_kernel_version) */
	char *bz_close_on_fix;   /* comma-separated [tree] names where a fix closes
				  * the mirrored bug it names; NULL: none */
	long long bz_max_age;    /* only bugs changed within; 0: any age */
	long long bz_visibility_interval; /* seconds between visibility checks; 0: every round */
	char *bz_first_sync;     /* "now", "all" or a date */
	long long bz_first_since;/* the same: -1 now, 0 all, else the date */
	unsigned long long bz_backfill_confirm; /* history above this many mails needs --yes */
	unsigned long long bz_attachment_max_size;

	/* [mail] */
	char *mail_domain;       /* right-hand side of Message-IDs */
	char *mail_from;
	char *mail_subject;      /* with {id} and {summary} */
	int mail_show_addresses;
	int mail_cc_reporter;
	unsigned long long mail_inline_limit;
	char *mail_footer;

	/* [smtp] */
	char *smtp_host;         /* NULL: deliver to smtp_maildir or smtp_mbox */
	unsigned long long smtp_port;
	char *smtp_starttls;     /* no, try, required */
	char *smtp_user;
	char *smtp_password;     /* secret */
	char *smtp_password_file; /* where smtp_password was read from, or NULL */
	char *smtp_ca_file;      /* CAs trusted for STARTTLS; NULL: the system's */
	long long smtp_timeout;
	char *smtp_maildir;
	char *smtp_mbox;
	unsigned long long smtp_batch;

	/* [routing] */
	char *maintainers_file;
	char *default_lists;
	char *default_people;
	char *routing_by_content;  /* off, suggest, route */

	/* [archive] */
	char *archive_url;       /* NULL: no inbound bridge */
	char *archive_kind;      /* public-inbox, atom, maildir, mbox */
	char *archive_path;
	char *archive_link_url;
	unsigned long long archive_max_mail_size;

	/* [inbound] */
	int inbound_enabled;
	int inbound_commands;
	char *inbound_allow;
	char *inbound_allow_group;
	char *inbound_close_resolution;
	char *inbound_reopen_status;
	char *inbound_attachments;   /* blob, bugzilla */
	/* who may act by mail: dkim, authserv, dkim-or-authserv, none */
	char *inbound_authenticate;
	char *inbound_trusted_authserv_id;  /* NULL: no server is trusted */
	char *inbound_authserv_methods;     /* dmarc, dkim, dmarc,dkim */
	char *inbound_dkim_key_file;        /* NULL: DKIM keys from DNS */
	long long inbound_dns_timeout;      /* seconds for a mail's DKIM key lookups */
	unsigned long long inbound_answer_limit; /* answers per thread, and per sender, per hour */
	int inbound_track;
	char *inbound_track_product, *inbound_track_component, *inbound_track_version;
	char *inbound_track_op_sys, *inbound_track_platform;

	/* [sync] */
	long long sync_interval;
	long long retry_min;     /* first backoff after a temporary failure */
	long long retry_max;

	/* [aging]: #bugbridge needinfo (bridge/needinfo.h) */
	long long aging_needinfo_remind;  /* unanswered this long: one reminder */
	long long aging_needinfo_close;   /* and this long after it: closed */
	char *aging_close_resolution;     /* NULL: INSUFFICIENT_DATA, else INVALID */
	/* [aging]: "still happening?" (bridge/aging.h) */
	long long aging_ping_after;       /* no activity this long: asked (0: never) */
	long long aging_ping_close;       /* no answer this long after: closed */
	unsigned long long aging_daily_limit;  /* pings per list a day */
	/* [digest]: the digest per list (bridge/digest.h) */
	char *digest_schedule;            /* off, weekly, monthly */
	unsigned long long digest_day;    /* weekly: 1 (Monday) to 7; monthly: 1 to 28 */
	char *digest_hour;                /* "0" to "23", UTC */
	char *digest_exclude_lists;       /* lists that get no digest; NULL: none */

	/* [tracker] */
	char *tracker_regression_field;
	char *tracker_regression_keyword;
	char *tracker_bisect_field;
	long long tracker_stale_after;
	char *tracker_report_dir;     /* NULL: data_dir/reports (tracker/report.h) */
	char *tracker_report_url;     /* NULL: <blob base_url>/regressions */
	char *tracker_report_lists;   /* To: of the weekly report; NULL: none */
	char *tracker_default_branch;   /* mainline */
	char *tracker_regressions_list; /* Cc'd once on a regression bug's mail; NULL: none */
	int tracker_culprit_cc;       /* Cc a culprit's author and signers once */

	/* [frontdoor] (bugbridge serve's report form and bug pages) */
	int frontdoor_enabled;
	char *frontdoor_base_url;     /* NULL: [blob] base_url */
	unsigned long long frontdoor_rate_limit; /* submissions per client per hour */
	unsigned long long frontdoor_day_limit;  /* submissions per client per day */
	unsigned long long frontdoor_confirm_limit; /* confirmation mails per address per day */
	unsigned long long frontdoor_day_bytes;  /* bytes POSTed per client per day */
	long long frontdoor_confirm_window;      /* seconds an unconfirmed report waits */
	int frontdoor_create_bugs;    /* also file the Bugzilla bug */
	char *frontdoor_product;      /* product/component when the filer is not sure */
	char *frontdoor_component;
	unsigned long long frontdoor_triage_max_size;   /* bytes of text /triage reads */
	unsigned long long frontdoor_triage_rate_limit; /* /triage texts per client per hour */

	/* [submit] (bugs filed by mail: bridge/submit.h) */
	char *submit_kind;            /* maildir, mbox */
	char *submit_path;            /* NULL: no submit box */
	char *submit_address;         /* the address people write to */
	unsigned long long submit_max_mail_size;
	unsigned long long submit_bugzilla_attachment_max; /* also uploaded up to this */
	char *submit_trusted_authserv_id; /* NULL: [inbound] trusted_authserv_id */

	/* [route NAME] sections, in file order */
	struct config_route *routes;
	size_t nroutes;
	/* [tree NAME] sections, in file order */
	struct config_tree *trees;
	size_t ntrees;
};

/* A git tree the regression tracker watches: a local clone (path), or a
 * branch bugbridge mirrors from url; ref is the branch or ref to follow;
 * upstream names the tree fixes come from (next for mainline, mainline for
 * a stable branch), so a fix seen there is "incoming" here. */
struct config_tree {
	char *name;              /* the text after "tree " */
	char *path, *url, *ref, *upstream;
};

/* A routing rule: bugs matching product/component/subsystem (each NULL
 * for "any"; component and subsystem match case-insensitively) go to the
 * lists and people named, and to the L:/M: entries of a MAINTAINERS
 * section. */
struct config_route {
	char *name;              /* the text after "route " */
	char *product, *component, *subsystem;
	char *lists, *people, *maintainers_section;
};

/* Splits a comma-separated list ("a, b,c") into trimmed, non-empty items.
 * Returns a NULL-terminated array (never NULL unless out of memory), freed
 * with config_list_free(); *count (if not NULL) gets the number of items. */
char **config_list(const char *text, size_t *count);
/* Splits an address list setting ("\"Doe, John\" <j@x>, b@y") into its
 * mailboxes, as GMime's internet_address_list_parse() reads it (a comma
 * in a quoted name stays in the name, a group gives its members, what is
 * no address at all is skipped), each as GMime writes it back ("\"Doe,
 * John\" <j@x>", "b@y").  Returns and frees as config_list(). */
char **config_address_list(const char *text, size_t *count);
/* BB_ERR_CONFIG (the message starting with where) when GMime reads fewer
 * addresses from text than the '@' signs outside its quotes and comments
 * say it holds ("a@x; b@y", "Doe John j@x"): config_address_list() would
 * drop them without a word.  Config loading checks every address setting
 * with it. */
enum bb_status config_address_list_check(const char *text, const char *where,
					 struct bb_error *err);
void config_list_free(char **list);

/* Loads the configuration.  explicit_path is the --config value or NULL.
 * On success *out is to be freed with config_free(). */
enum bb_status config_load(struct bb_config **out, const char *explicit_path,
			   struct bb_error *err);
/* Loads from one file without the search (for tests); NULL for defaults. */
enum bb_status config_load_file(struct bb_config **out, const char *path,
				struct bb_error *err);
void config_free(struct bb_config *cfg);
/* Reads the secrets kept in files (once; later calls do nothing): a file
 * that cannot be read is BB_ERR_PERMISSION (77) when it is not this user's
 * to read, BB_ERR_CONFIG otherwise. */
enum bb_status config_read_secrets(struct bb_config *cfg, struct bb_error *err);
/* Secrets that others than the service's user may read, a sentence each
 * ("[bugzilla] api_key is written in FILE, which its group may read: ..."):
 * a NULL-terminated list (empty when there is none; NULL only when out of
 * memory) to be freed with g_strfreev().  Reads no secret. */
char **config_secret_warnings(const struct bb_config *cfg);

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
/* The value in effect of key number i of config_keys(), as text ("" when
 * unset; "<set>" or "<unset>" for secrets).  tmp holds numbers. */
const char *config_value(const struct bb_config *cfg, size_t i, char *tmp, size_t len);

#endif
