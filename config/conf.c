/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>
#include <glib.h>
#include <gmime/gmime.h>

#include "config/conf.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/text.h"

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
	KEY_KEY_PLACE,   /* header or param */
	KEY_CHOICE,      /* one of key_spec.choices ("no|try|required") */
	KEY_PORT,        /* 1 to 65535 */
	KEY_PERIOD,      /* a duration of at least one second: intervals, timeouts */
};

struct key_spec {
	struct config_key pub;
	enum key_type type;
	size_t offset;
	const char *choices;   /* KEY_CHOICE: the values, '|'-separated */
};

#define OFF(field) offsetof(struct bb_config, field), NULL
/* a KEY_CHOICE key's field and values ("a|b|c") */
#define CHOICES(field, values) offsetof(struct bb_config, field), values

/* Whether value is one of choices ("a|b|c"). */
static int choice_ok(const char *choices, const char *value)
{
	size_t n = strlen(value);

	for (const char *p = choices; p && *p;) {
		size_t len = strcspn(p, "|");

		if (len == n && !strncmp(p, value, n))
			return 1;
		p += len + (p[len] == '|');
	}
	return 0;
}

/* "a, b or c" of choices "a|b|c"; malloc'd, NULL when out of memory. */
static char *choice_list(const char *choices)
{
	size_t n = strlen(choices), bars = 0, seen = 0;
	char *out = malloc(n * 2 + 8), *o = out;

	if (!out)
		return NULL;
	for (const char *p = choices; *p; p++)
		bars += *p == '|';
	for (const char *p = choices; *p; p++) {
		if (*p != '|') {
			*o++ = *p;
		} else if (++seen == bars) {
			memcpy(o, " or ", 4);
			o += 4;
		} else {
			memcpy(o, ", ", 2);
			o += 2;
		}
	}
	*o = '\0';
	return out;
}

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
	{ { "server", "upload_token_file", NULL, 0,
	    "read upload_token from this file instead (a bare name: from $CREDENTIALS_DIRECTORY)" }, KEY_STRING, OFF(upload_token_file) },
	{ { "server", "max_upload_size", "2G", 0,
	    "largest upload accepted" }, KEY_SIZE, OFF(max_upload_size) },
	{ { "server", "threading", "pool", 0,
	    "pool: [server] threads threads share the connections (blobs up to 4 MiB sent from"
	    " a shared mapping, larger ones from the file); per-connection: each connection"
	    " has a thread of its own" },
	  KEY_CHOICE, CHOICES(server_threading, "per-connection|pool") },
	{ { "server", "threads", NULL, 0,
	    "worker threads of the HTTP server with threading = pool (unset: one per CPU)" },
	  KEY_COUNT, OFF(server_threads) },
	{ { "server", "max_connections", "512", 0,
	    "connections served at once, all clients together; more get 503" }, KEY_COUNT, OFF(server_max_connections) },
	{ { "server", "max_connections_per_client", "16", 0,
	    "connections one address may hold at once (trusted_proxies are exempt)" }, KEY_COUNT, OFF(server_max_connections_per_client) },
	{ { "server", "header_timeout", "10s", 0,
	    "a connection must complete each request's headers within this time" }, KEY_DURATION, OFF(server_header_timeout) },
	{ { "server", "body_timeout", "120s", 0,
	    "once the headers are in, a request may stay idle this long" }, KEY_DURATION, OFF(server_body_timeout) },
	{ { "server", "min_body_rate", "1K", 0,
	    "a request's body must arrive at this many bytes a second on average, judged once it has taken 10 s; slower ones are cut (0: no floor)" }, KEY_SIZE, OFF(server_min_body_rate) },
	{ { "server", "trusted_proxies", NULL, 0,
	    "reverse proxies (ADDR or ADDR/BITS, IPv4 or IPv6, comma-separated) whose X-Forwarded-For is believed" }, KEY_STRING, OFF(server_trusted_proxies) },

	{ { "bugzilla", "url", NULL, 0,
	    "base URL of the Bugzilla to mirror, e.g. https://bugzilla.kernel.org" }, KEY_URL, OFF(bz_url) },
	{ { "bugzilla", "api_key", NULL, 1,
	    "API key of the bridge's account (secret); unset: anonymous" }, KEY_STRING, OFF(bz_api_key) },
	{ { "bugzilla", "api_key_file", NULL, 0,
	    "read api_key from this file instead (a bare name: from $CREDENTIALS_DIRECTORY)" }, KEY_STRING, OFF(bz_api_key_file) },
	{ { "bugzilla", "api_key_in", "auto", 0,
	    "auto (the header for a 5.1.x server, asked once at /rest/version; else param), header (X-BUGZILLA-API-KEY, Bugzilla 5.1) or param (api_key=, 5.0 and 5.2)" }, KEY_KEY_PLACE, OFF(bz_key_in_header) },
	{ { "bugzilla", "ca_file", NULL, 0,
	    "CA bundle for TLS verification (default: the system's)" }, KEY_PATH, OFF(bz_ca_file) },
	{ { "bugzilla", "proxy", NULL, 0,
	    "HTTP(S) proxy URL" }, KEY_STRING, OFF(bz_proxy) },
	{ { "bugzilla", "timeout", "60s", 0,
	    "time limit of one request" }, KEY_PERIOD, OFF(bz_timeout) },
	{ { "bugzilla", "page_size", "100", 0,
	    "bugs per search request (servers cap it)" }, KEY_COUNT, OFF(bz_page_size) },
	{ { "bugzilla", "subsystem_field", NULL, 0,
	    "custom field naming a subsystem, such as cf_subsystem" }, KEY_STRING, OFF(bz_subsystem_field) },
	{ { "bugzilla", "products", NULL, 0,
	    "comma-separated products to mirror; unset: all" }, KEY_STRING, OFF(bz_products) },
	{ { "bugzilla", "components", NULL, 0,
	    "comma-separated components to mirror; unset: all" }, KEY_STRING, OFF(bz_components) },
	{ { "bugzilla", "statuses", "UNCONFIRMED, NEW, ASSIGNED, REOPENED, NEEDINFO, CONFIRMED, IN_PROGRESS", 0,
	    "statuses of the bugs that are mirrored (open bugs)" }, KEY_STRING, OFF(bz_statuses) },
	{ { "bugzilla", "keyword", NULL, 0,
	    "only mirror bugs with this keyword (or with a flag of [bugzilla] flag)" }, KEY_STRING, OFF(bz_keyword) },
	{ { "bugzilla", "flag", NULL, 0,
	    "comma-separated flags, name and status (bugbot+): only mirror bugs with one of them (or the keyword)" }, KEY_STRING, OFF(bz_flag) },
	{ { "bugzilla", "kernel_field", "cf_kernel_version", 0,
	    "field naming the kernel version (the mail's Kernel: line)" }, KEY_STRING, OFF(bz_kernel_field) },
	{ { "bugzilla", "close_on_fix", NULL, 0,
	    "comma-separated [tree] names: a commit there whose Closes:/Link: names a mirrored bug sets it RESOLVED FIXED; unset: none" }, KEY_STRING, OFF(bz_close_on_fix) },
	{ { "bugzilla", "max_age", "0", 0,
	    "only mirror bugs changed within this time; 0: any age" }, KEY_DURATION, OFF(bz_max_age) },
	{ { "bugzilla", "visibility_interval", "1h", 0,
	    "how often every mirrored bug is checked still visible to the account (400 a request); one hidden from it or deleted is withdrawn; 0: every round" }, KEY_DURATION, OFF(bz_visibility_interval) },
	{ { "bugzilla", "first_sync", "now", 0,
	    "where the first sync of a data folder starts: now (nothing older is mailed), all, or a date (2026-12-01)" }, KEY_STRING, OFF(bz_first_sync) },
	{ { "bugzilla", "backfill_confirm", "50", 0,
	    "history (first_sync all or a date, sync --since) that would mail more than this needs sync --yes" }, KEY_COUNT, OFF(bz_backfill_confirm) },
	{ { "bugzilla", "attachment_max_size", "1G", 0,
	    "attachments larger than this are linked to Bugzilla, not stored" }, KEY_SIZE, OFF(bz_attachment_max_size) },

	{ { "mail", "domain", "bugbridge.invalid", 0,
	    "domain of the Message-IDs bugbridge makes (one it owns)" }, KEY_STRING, OFF(mail_domain) },
	{ { "mail", "from", "bugbridge <bugbridge@localhost>", 0,
	    "From: of mirrored mail" }, KEY_STRING, OFF(mail_from) },
	{ { "mail", "subject", "[Bug {id}] {summary}", 0,
	    "Subject: with {id} and {summary}" }, KEY_STRING, OFF(mail_subject) },
	{ { "mail", "show_addresses", "false", 0,
	    "show people's addresses, not only their names, in mail, reports and exports" },
	  KEY_BOOL, OFF(mail_show_addresses) },
	{ { "mail", "cc_reporter", "false", 0,
	    "ask a bug's reporter once, in a mail of their own, to be Cc'd (a reply \"#bugbridge subscribe\" on the list); never Cc'd without" }, KEY_BOOL, OFF(mail_cc_reporter) },
	{ { "mail", "inline_text_limit", "4K", 0,
	    "text attachments up to this size are quoted in the mail; 0: never" }, KEY_SIZE, OFF(mail_inline_limit) },
	{ { "mail", "footer", NULL, 0,
	    "an extra line for the footer of every mail" }, KEY_STRING, OFF(mail_footer) },

	{ { "smtp", "host", NULL, 0,
	    "SMTP server; unset: mail goes to smtp.maildir (or smtp.mbox)" }, KEY_STRING, OFF(smtp_host) },
	{ { "smtp", "port", "25", 0,
	    "SMTP port (587 for submission)" }, KEY_PORT, OFF(smtp_port) },
	{ { "smtp", "starttls", NULL, 0,
	    "no, try or required (unset: required with a user or password, try without)" },
	  KEY_CHOICE, CHOICES(smtp_starttls, "no|try|required") },
	{ { "smtp", "user", NULL, 0,
	    "SMTP AUTH user name" }, KEY_STRING, OFF(smtp_user) },
	{ { "smtp", "password", NULL, 1,
	    "SMTP AUTH password (secret)" }, KEY_STRING, OFF(smtp_password) },
	{ { "smtp", "password_file", NULL, 0,
	    "read password from this file instead (a bare name: from $CREDENTIALS_DIRECTORY)" }, KEY_STRING, OFF(smtp_password_file) },
	{ { "smtp", "ca_file", NULL, 0,
	    "PEM file of the CAs trusted for STARTTLS (unset: the system's)" },
	  KEY_PATH, OFF(smtp_ca_file) },
	{ { "smtp", "timeout", "60s", 0,
	    "time limit of an SMTP exchange" }, KEY_PERIOD, OFF(smtp_timeout) },
	{ { "smtp", "maildir", NULL, 0,
	    "Maildir that receives the mail when no SMTP host is set (default: data_dir/mail)" }, KEY_PATH, OFF(smtp_maildir) },
	{ { "smtp", "mbox", NULL, 0,
	    "mbox file that receives the mail instead of the Maildir" }, KEY_PATH, OFF(smtp_mbox) },
	{ { "smtp", "batch", "100", 0,
	    "mails sent over one SMTP session" }, KEY_COUNT, OFF(smtp_batch) },

	{ { "routing", "maintainers_file", NULL, 0,
	    "the kernel's MAINTAINERS file, for routing by section" }, KEY_PATH, OFF(maintainers_file) },
	{ { "routing", "default_lists", NULL, 0,
	    "lists for bugs no [route] matches" }, KEY_STRING, OFF(default_lists) },
	{ { "routing", "default_people", NULL, 0,
	    "people (Cc:) for bugs no [route] matches" }, KEY_STRING, OFF(default_people) },
	{ { "routing", "by_content", "suggest", 0,
	    "off, suggest (the report's triage and the MAINTAINERS sections its logs point at go into its first mail and one comment on the bug) or route (also mail the top section's lists when no [route] matched)" },
	  KEY_CHOICE, CHOICES(routing_by_content, "off|suggest|route") },

	{ { "archive", "url", NULL, 0,
	    "the list archive to read replies from: a public-inbox inbox URL such as https://lore.kernel.org/linux-usb" }, KEY_URL, OFF(archive_url) },
	{ { "archive", "kind", "public-inbox", 0,
	    "how to read it: public-inbox (git epochs), atom (new.atom), maildir or mbox" }, KEY_STRING, OFF(archive_kind) },
	{ { "archive", "path", NULL, 0,
	    "the local Maildir or mbox that receives the list, for kind maildir or mbox; for kind public-inbox (without url), a local v2 inbox read in place (the folder holding git/0.git)" }, KEY_PATH, OFF(archive_path) },
	{ { "archive", "link_url", NULL, 0,
	    "inbox URL used in links to archived mails (default: url)" }, KEY_URL, OFF(archive_link_url) },
	{ { "archive", "max_mail_size", "64M", 0,
	    "a larger mail in the archive is skipped (and logged), never read into memory" }, KEY_SIZE, OFF(archive_max_mail_size) },

	{ { "inbound", "enabled", "true", 0,
	    "post list replies to the bugs they answer (when [archive] is set)" }, KEY_BOOL, OFF(inbound_enabled) },
	{ { "inbound", "commands", "true", 0,
	    "act on #bugbridge command lines from allowed senders" }, KEY_BOOL, OFF(inbound_commands) },
	{ { "inbound", "allow", NULL, 0,
	    "addresses allowed to give commands for any bug (besides the M: entries of a bug's MAINTAINERS section and its routed people)" }, KEY_STRING, OFF(inbound_allow) },
	{ { "inbound", "allow_group", NULL, 0,
	    "Bugzilla group whose members may give commands for any bug (bugbridge's account needs editusers to see membership)" }, KEY_STRING, OFF(inbound_allow_group) },
	{ { "inbound", "close_resolution", "FIXED", 0,
	    "resolution of #bugbridge close without one" }, KEY_STRING, OFF(inbound_close_resolution) },
	{ { "inbound", "reopen_status", NULL, 0,
	    "status #bugbridge reopen sets; unset: the first open status the Bugzilla's workflow allows from the bug's current one (REOPENED on bugzilla.kernel.org, CONFIRMED on a stock Bugzilla 5)" }, KEY_STRING, OFF(inbound_reopen_status) },
	{ { "inbound", "attachments", "blob", 0,
	    "where attachments of list mail go: blob (the blob store, linked in the comment) or bugzilla (uploaded to the bug as well)" }, KEY_STRING, OFF(inbound_attachments) },
	{ { "inbound", "authenticate", "dkim-or-authserv", 0,
	    "who may act by mail: dkim (a DKIM signature aligned with From:, verified by bugbridge), authserv (the trusted receiving server's Authentication-Results), dkim-or-authserv, or none (anyone who writes an allowed address into From:; test setups only)" }, KEY_CHOICE,
	  CHOICES(inbound_authenticate, "dkim|authserv|dkim-or-authserv|none") },
	{ { "inbound", "trusted_authserv_id", NULL, 0,
	    "authserv-id of the receiving server whose own Authentication-Results are believed (lore: smtp.subspace.kernel.org); unset: none are" }, KEY_STRING, OFF(inbound_trusted_authserv_id) },
	{ { "inbound", "authserv_methods", "dmarc", 0,
	    "which of the trusted server's results count: dmarc, dkim or dmarc,dkim; name only a method the server reports on every mail it receives (lore's writes dmarc= on each, dkim= only in ARC-Authentication-Results)" }, KEY_CHOICE,
	  CHOICES(inbound_authserv_methods, "dmarc|dkim|dmarc,dkim") },
	{ { "inbound", "dkim_key_file", NULL, 0,
	    "file of \"<selector>._domainkey.<domain> <key record>\" lines that serves DKIM keys instead of DNS (tests only)" }, KEY_PATH, OFF(inbound_dkim_key_file) },
	{ { "inbound", "dns_timeout", "2s", 0,
	    "longest wait for all of a mail's DKIM key lookups in DNS together; a mail whose keys DNS did not give waits for a later round (up to 24 hours, then its commands are refused)" }, KEY_PERIOD, OFF(inbound_dns_timeout) },
	{ { "inbound", "answer_limit", "10", 0,
	    "most answers to commands mailed to one thread per hour, and to one sender over all threads" }, KEY_COUNT, OFF(inbound_answer_limit) },
	{ { "inbound", "track", "true", 0,
	    "#bugbridge track in a list thread creates a bug from it" }, KEY_BOOL, OFF(inbound_track) },
	{ { "inbound", "track_product", NULL, 0,
	    "product of bugs created by #bugbridge track" }, KEY_STRING, OFF(inbound_track_product) },
	{ { "inbound", "track_component", NULL, 0,
	    "component of bugs created by #bugbridge track" }, KEY_STRING, OFF(inbound_track_component) },
	{ { "inbound", "track_version", "unspecified", 0,
	    "version of bugs created by #bugbridge track" }, KEY_STRING, OFF(inbound_track_version) },
	{ { "inbound", "track_op_sys", "Linux", 0,
	    "op_sys of bugs created by #bugbridge track" }, KEY_STRING, OFF(inbound_track_op_sys) },
	{ { "inbound", "track_platform", "All", 0,
	    "platform of bugs created by #bugbridge track" }, KEY_STRING, OFF(inbound_track_platform) },

	{ { "aging", "needinfo_remind", "14d", 0,
	    "a #bugbridge needinfo question unanswered this long gets one reminder on the bug's thread" }, KEY_DURATION, OFF(aging_needinfo_remind) },
	{ { "aging", "needinfo_close", "30d", 0,
	    "unanswered this long after the reminder, the bug is closed (a reply from the person asked reopens it)" }, KEY_DURATION, OFF(aging_needinfo_close) },
	{ { "aging", "close_resolution", NULL, 0,
	    "resolution of a bug closed for want of an answer; unset: the first of INSUFFICIENT_DATA, INVALID the Bugzilla has" }, KEY_STRING, OFF(aging_close_resolution) },
	{ { "aging", "ping_after", "180d", 0,
	    "an open bug without activity this long, reported on a kernel older than the newest release of a watched [tree], is asked once per release on its thread whether it still happens (0: never)" }, KEY_DURATION, OFF(aging_ping_after) },
	{ { "aging", "ping_close", "60d", 0,
	    "without an answer this long after that question, the bug is closed (a reply from its reporter reopens it)" }, KEY_DURATION, OFF(aging_ping_close) },
	{ { "aging", "daily_limit", "10", 0,
	    "at most this many of those questions per list and day (UTC), the bugs quiet longest first" }, KEY_COUNT, OFF(aging_daily_limit) },
	{ { "digest", "schedule", "off", 0,
	    "the daemon mails each list a digest of its open bugs every week or month (the first one a whole period after this is set), or never (off; `bugbridge digest` mails one by hand)" },
	  KEY_CHOICE, CHOICES(digest_schedule, "off|weekly|monthly") },
	{ { "digest", "day", "1", 0,
	    "the day the digest goes out: weekly, 1 (Monday) to 7 (Sunday); monthly, the day of the month, 1 to 28" }, KEY_COUNT, OFF(digest_day) },
	{ { "digest", "hour", "8", 0,
	    "the hour (UTC, 0 to 23) of that day from which the digest goes out" },
	  KEY_CHOICE, CHOICES(digest_hour, "0|1|2|3|4|5|6|7|8|9|10|11|12|13|14|15|16|17|18|19|20|21|22|23") },
	{ { "digest", "exclude_lists", NULL, 0,
	    "lists that get no digest (addresses, comma-separated)" }, KEY_STRING, OFF(digest_exclude_lists) },

	{ { "tracker", "regression_field", "cf_regression", 0,
	    "Bugzilla field whose value Yes flags a bug as a regression" }, KEY_STRING, OFF(tracker_regression_field) },
	{ { "tracker", "regression_keyword", "regression", 0,
	    "Bugzilla keyword that flags a bug as a regression" }, KEY_STRING, OFF(tracker_regression_keyword) },
	{ { "tracker", "bisect_field", "cf_bisect_commit", 0,
	    "Bugzilla field naming the commit a bisection found" }, KEY_STRING, OFF(tracker_bisect_field) },
	{ { "tracker", "stale_after", "90d", 0,
	    "a regression without activity for this long is listed as stale" }, KEY_DURATION, OFF(tracker_stale_after) },
	{ { "tracker", "report_dir", NULL, 0,
	    "folder the reports (HTML, JSON, Atom, weekly text) are written to (default: data_dir/reports)" }, KEY_PATH, OFF(tracker_report_dir) },
	{ { "tracker", "report_url", NULL, 0,
	    "public URL of the reports, for links in the feed and the weekly mail (default: <[blob] base_url>/regressions)" }, KEY_URL, OFF(tracker_report_url) },
	{ { "tracker", "report_lists", NULL, 0,
	    "comma-separated addresses the weekly report is mailed to (regressions report --send)" }, KEY_STRING, OFF(tracker_report_lists) },
	{ { "tracker", "default_branch", "mainline", 0,
	    "the tree ([tree NAME]) a regression is filed under when neither the tree holding its culprit nor its introduced range tells" }, KEY_STRING, OFF(tracker_default_branch) },
	{ { "tracker", "regressions_list", "regressions@lists.linux.dev", 0,
	    "list Cc'd once on the next mail of a bug tracked as a regression (empty: none)" }, KEY_STRING, OFF(tracker_regressions_list) },
	{ { "tracker", "culprit_cc", "true", 0,
	    "Cc a culprit commit's author and its Signed-off-by, Reviewed-by and Acked-by people once on the bug's next mail" }, KEY_BOOL, OFF(tracker_culprit_cc) },

	{ { "frontdoor", "enabled", "false", 0,
	    "bugbridge serve also shows a form to file reports (GET /, POST /report, GET /confirm/TOKEN) and the bug pages (/bugs, /bug/ID)" }, KEY_BOOL, OFF(frontdoor_enabled) },
	{ { "frontdoor", "base_url", NULL, 0,
	    "public URL of the front door, for the confirmation link (default: [blob] base_url)" }, KEY_URL, OFF(frontdoor_base_url) },
	{ { "frontdoor", "rate_limit", "5", 0,
	    "reports (POSTs to /report, refused ones included) one client may submit per hour" }, KEY_COUNT, OFF(frontdoor_rate_limit) },
	{ { "frontdoor", "day_limit", "20", 0,
	    "reports (POSTs to /report, refused ones included) one client may submit per day" }, KEY_COUNT, OFF(frontdoor_day_limit) },
	{ { "frontdoor", "confirm_limit", "3", 0,
	    "confirmation mails one e-mail address may be sent per day (refused reports excluded); more reports to it are refused" }, KEY_COUNT, OFF(frontdoor_confirm_limit) },
	{ { "frontdoor", "day_bytes", "1G", 0,
	    "bytes one client may POST to /report per day, attachments included" }, KEY_SIZE, OFF(frontdoor_day_bytes) },
	{ { "frontdoor", "confirm_window", "7d", 0,
	    "how long a confirmation link works; then the unconfirmed report and its quarantined attachments are removed" }, KEY_DURATION, OFF(frontdoor_confirm_window) },
	{ { "frontdoor", "create_bugs", "false", 0,
	    "a confirmed report also becomes a Bugzilla bug (needs [bugzilla] url and api_key)" }, KEY_BOOL, OFF(frontdoor_create_bugs) },
	{ { "frontdoor", "product", NULL, 0,
	    "Bugzilla product of a report whose filer picked no [route] (default: [inbound] track_product)" }, KEY_STRING, OFF(frontdoor_product) },
	{ { "frontdoor", "component", NULL, 0,
	    "Bugzilla component of a report whose filer picked no [route] (default: [inbound] track_component)" }, KEY_STRING, OFF(frontdoor_component) },
	{ { "frontdoor", "triage_max_size", "256K", 0,
	    "largest text the /triage page (where to report a pasted oops; served with [routing] maintainers_file) reads" }, KEY_SIZE, OFF(frontdoor_triage_max_size) },
	{ { "frontdoor", "triage_rate_limit", "60", 0,
	    "texts one client may ask /triage about per hour (a budget of its own, apart from rate_limit)" }, KEY_COUNT, OFF(frontdoor_triage_rate_limit) },

	{ { "submit", "kind", "maildir", 0,
	    "how the submit box is read: maildir or mbox" }, KEY_CHOICE, CHOICES(submit_kind, "maildir|mbox") },
	{ { "submit", "path", NULL, 0,
	    "the Maildir or mbox an MTA delivers the submit address's mail to: each mail there from an authenticated sender becomes a Bugzilla bug (read each round, never modified); unset: no bugs are filed by mail" }, KEY_PATH, OFF(submit_path) },
	{ { "submit", "address", NULL, 0,
	    "the address people write to in order to file a bug (named in answers and in the bug's description)" }, KEY_STRING, OFF(submit_address) },
	{ { "submit", "max_mail_size", "128M", 0,
	    "a larger mail in the submit box is skipped (and logged); a 50 MiB attachment is about 68 MiB in base64" }, KEY_SIZE, OFF(submit_max_mail_size) },
	{ { "submit", "bugzilla_attachment_max", "1000K", 0,
	    "attachments of a submitted mail up to this size are also uploaded to the Bugzilla bug (every one goes to the blob store, linked from the description)" }, KEY_SIZE, OFF(submit_bugzilla_attachment_max) },
	{ { "submit", "trusted_authserv_id", NULL, 0,
	    "authserv-id of the MTA that delivers to the submit box, whose Authentication-Results are believed (default: [inbound] trusted_authserv_id); the rest of [inbound]'s authentication settings apply" }, KEY_STRING, OFF(submit_trusted_authserv_id) },

	{ { "sync", "interval", "5m", 0,
	    "time between rounds of bugbridge daemon" }, KEY_PERIOD, OFF(sync_interval) },
	{ { "sync", "retry_min", "1m", 0,
	    "first wait after a temporary failure (doubles each time)" }, KEY_PERIOD, OFF(retry_min) },
	{ { "sync", "retry_max", "6h", 0,
	    "longest wait between retries" }, KEY_PERIOD, OFF(retry_max) },
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

static const void *cfield(const struct bb_config *cfg, const struct key_spec *k)
{
	return (const char *)cfg + k->offset;
}

const char *config_value(const struct bb_config *cfg, size_t i, char *tmp, size_t len)
{
	const struct key_spec *k;
	const void *p;

	if (i >= NKEYS)
		return "";
	k = &keys[i];
	p = cfield(cfg, k);
	switch (k->type) {
	case KEY_STRING:
	case KEY_PATH:
	case KEY_URL:
	case KEY_LISTEN:
	case KEY_CHOICE: {
		const char *v = *(char *const *)p;

		if (k->pub.secret)
			return v ? "<set>" : "<unset>";
		return v ? v : "";
	}
	case KEY_BOOL:
		return *(const int *)p ? "true" : "false";
	case KEY_KEY_PLACE:
		return *(const int *)p == CONFIG_KEY_AUTO ? "auto"
		       : *(const int *)p == CONFIG_KEY_HEADER ? "header" : "param";
	case KEY_SIZE:
	case KEY_COUNT:
	case KEY_PORT:
		snprintf(tmp, len, "%llu", *(const unsigned long long *)p);
		return tmp;
	case KEY_DURATION:
	case KEY_PERIOD:
		snprintf(tmp, len, "%llds", *(const long long *)p);
		return tmp;
	case KEY_LOG_LEVEL:
		return log_level_name(*(const enum log_level *)p);
	}
	return "";
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

/* An http(s) URL with a host, as libcurl (which will fetch it) reads it. */
static int url_usable(const char *value)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	int ok;

	ok = u && curl_url_set(u, CURLUPART_URL, value, 0) == CURLUE_OK &&
	     curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	     curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	     (!strcmp(scheme, "http") || !strcmp(scheme, "https")) && *host;
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return ok;
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

		if (k->type == KEY_URL && !url_usable(value))
			return bb_error_set(err, BB_ERR_CONFIG,
					    "[%s] %s: \"%s\" is not an http:// or https:// URL with a host",
					    sec, name, value);
		if (k->type == KEY_LISTEN) {
			const char *colon = strrchr(value, ':');
			char *end;
			long port;

			if (!colon)
				return bb_error_set(err, BB_ERR_CONFIG,
						    "[%s] %s: \"%s\" is not address:port", sec, name, value);
			errno = 0;
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
	case KEY_PORT: {
		unsigned long long *up = p;
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(value, &end, 10);
		if (!*value || *end || errno || !isdigit((unsigned char)value[0]) || n < 1 || n > 65535)
			return bb_error_set(err, BB_ERR_CONFIG,
					    "[%s] %s: \"%s\" is not a port (1 to 65535)", sec, name, value);
		*up = n;
		return BB_OK;
	}
	case KEY_PERIOD: {
		long long *lp = p;

		if (parse_duration(value, lp) != 0)
			return bb_error_set(err, BB_ERR_CONFIG,
					    "[%s] %s: \"%s\" is not a duration (like 90s, 15m, 12h, 30d)",
					    sec, name, value);
		if (*lp < 1)
			return bb_error_set(err, BB_ERR_CONFIG,
					    "[%s] %s: must be at least 1s (0 would mean no pause at all)",
					    sec, name);
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
	case KEY_KEY_PLACE:
		if (strcmp(value, "header") && strcmp(value, "param") && strcmp(value, "auto"))
			return bb_error_set(err, BB_ERR_CONFIG,
					    "[%s] %s: \"%s\" is not auto, header or param", sec, name,
					    value);
		*(int *)p = !strcmp(value, "header") ? CONFIG_KEY_HEADER
			    : !strcmp(value, "auto") ? CONFIG_KEY_AUTO : CONFIG_KEY_PARAM;
		return BB_OK;
	case KEY_CHOICE: {
		char **sp = p;

		if (!choice_ok(k->choices, value)) {
			char *list = choice_list(k->choices);

			bb_error_set(err, BB_ERR_CONFIG, "[%s] %s: \"%s\" is not %s", sec, name, value,
				     list ? list : k->choices);
			free(list);
			return BB_ERR_CONFIG;
		}
		free(*sp);
		*sp = strdup(value);
		return *sp ? BB_OK : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
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

/* The line of [section] key in the file (of [section] when key is NULL),
 * for error messages; 0 when it cannot be told.  GKeyFile, which read the
 * file, keeps no line numbers, so this only finds the line again: a group
 * header is "[name]", a key line "name =" (GKeyFile trims the blanks). */
static unsigned find_line(const char *path, const char *section, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[4096], *p, *end;
	unsigned n = 0, found = 0;
	int in_section = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		n++;
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (*p == '[') {
			end = strchr(p, ']');
			in_section = end && (size_t)(end - p - 1) == strlen(section) &&
				     !strncmp(p + 1, section, strlen(section));
			if (in_section && !key)
				found = n;
			continue;
		}
		if (in_section && key && !strncmp(p, key, strlen(key))) {
			for (p += strlen(key); *p == ' ' || *p == '\t'; p++)
				;
			if (*p == '=')
				found = n;
		}
	}
	fclose(f);
	return found;
}

/* "config FILE:LINE" (or "config FILE" when the line is not known). */
static char *where(const char *path, const char *section, const char *key)
{
	unsigned line = find_line(path, section, key);

	return line ? str_printf("config %s:%u", path, line) : str_printf("config %s", path);
}

/* ", did you mean ..." for an unknown section or key, or "". */
static char *suggestion(const char *section, const char *key)
{
	const char *names[NKEYS], *near;
	size_t n = 0;

	if (!key) {
		for (size_t i = 0; i < NKEYS; i++)
			if (!n || strcmp(names[n - 1], keys[i].pub.section))
				names[n++] = keys[i].pub.section;
		near = text_closest(section, names, n);
		return near ? str_printf("; did you mean [%s]?", near) : strdup("");
	}
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].pub.section, section))
			names[n++] = keys[i].pub.key;
	if ((near = text_closest(key, names, n)))
		return str_printf("; did you mean \"%s\"?", near);
	/* the right key in the wrong section */
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].pub.key, key))
			return str_printf("; it belongs in [%s]", keys[i].pub.section);
	return strdup("");
}

static int section_known(const char *section)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].pub.section, section))
			return 1;
	return 0;
}

static int is_string_key(const struct key_spec *k)
{
	switch (k->type) {
	case KEY_STRING:
	case KEY_PATH:
	case KEY_URL:
	case KEY_LISTEN:
	case KEY_CHOICE:
		return 1;
	default:
		return 0;
	}
}

static void free_secret(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void config_free(struct bb_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < NKEYS; i++) {
		char **sp;

		if (!is_string_key(&keys[i]))
			continue;
		sp = field(cfg, &keys[i]);
		if (keys[i].pub.secret)
			free_secret(*sp);
		else
			free(*sp);
	}
	for (size_t i = 0; i < cfg->nroutes; i++) {
		struct config_route *r = &cfg->routes[i];

		free(r->name);
		free(r->product);
		free(r->component);
		free(r->subsystem);
		free(r->lists);
		free(r->people);
		free(r->maintainers_section);
	}
	free(cfg->routes);
	for (size_t i = 0; i < cfg->ntrees; i++) {
		free(cfg->trees[i].name);
		free(cfg->trees[i].path);
		free(cfg->trees[i].url);
		free(cfg->trees[i].ref);
		free(cfg->trees[i].upstream);
	}
	free(cfg->trees);
	free(cfg->source);
	free(cfg->secrets_dir);
	free(cfg->inline_secret);
	free(cfg);
}

char **config_list(const char *text, size_t *count)
{
	char **out;
	size_t n = 0, cap = 4;
	const char *p = text ? text : "";

	out = calloc(cap + 1, sizeof(*out));
	if (!out)
		return NULL;
	while (*p) {
		const char *end = strchr(p, ','), *a = p, *b;

		if (!end)
			end = p + strlen(p);
		b = end;
		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (b > a) {
			if (n == cap) {
				char **np = realloc(out, (cap * 2 + 1) * sizeof(*out));

				if (!np) {
					config_list_free(out);
					return NULL;
				}
				out = np;
				cap *= 2;
			}
			out[n] = strndup(a, (size_t)(b - a));
			if (!out[n]) {
				config_list_free(out);
				return NULL;
			}
			out[++n] = NULL;
		}
		p = *end ? end + 1 : end;
	}
	if (count)
		*count = n;
	return out;
}

/* GMime's parser needs the library set up.  mail_init() may come later or
 * not at all (config is below mail); g_mime_init() counts its callers, so
 * this one stays for the life of the process. */
static pthread_once_t gmime_once = PTHREAD_ONCE_INIT;

static void gmime_init_once(void)
{
	g_mime_init();
}

/* Appends the mailboxes of ia (a group's members) to out as text. */
static int address_texts(GPtrArray *out, InternetAddress *ia)
{
	char *text;

	if (INTERNET_ADDRESS_IS_GROUP(ia)) {
		InternetAddressList *members =
			internet_address_group_get_members(INTERNET_ADDRESS_GROUP(ia));

		for (int i = 0; i < internet_address_list_length(members); i++)
			if (address_texts(out, internet_address_list_get_address(members, i)))
				return -1;
		return 0;
	}
	text = internet_address_to_string(ia, NULL, FALSE);
	if (!text)
		return -1;
	g_ptr_array_add(out, text);
	return 0;
}

char **config_address_list(const char *text, size_t *count)
{
	InternetAddressList *list = NULL;
	GPtrArray *texts = g_ptr_array_new_with_free_func(g_free);
	char **out = NULL;
	int failed = 0;

	pthread_once(&gmime_once, gmime_init_once);
	if (text)
		list = internet_address_list_parse(NULL, text);
	for (int i = 0; list && !failed && i < internet_address_list_length(list); i++)
		failed = address_texts(texts, internet_address_list_get_address(list, i));
	if (!failed)
		out = calloc(texts->len + 1, sizeof(*out));
	for (guint i = 0; out && i < texts->len; i++) {
		if (!(out[i] = strdup(g_ptr_array_index(texts, i)))) {
			config_list_free(out);
			out = NULL;
		}
	}
	if (out && count)
		*count = texts->len;
	if (list)
		g_object_unref(list);
	g_ptr_array_free(texts, TRUE);
	return out;
}

/* The '@' signs of an address list's text outside quoted strings and
 * comments: one a mailbox, as the text was meant. */
static size_t text_ats(const char *text)
{
	size_t n = 0;
	int quoted = 0, depth = 0;

	for (const char *p = text; p && *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '"' && !depth)
			quoted = !quoted;
		else if (*p == '(' && !quoted)
			depth++;
		else if (*p == ')' && !quoted && depth)
			depth--;
		else if (*p == '@' && !quoted && !depth)
			n++;
	}
	return n;
}

/* The '@' signs of the addresses GMime read from it. */
static size_t parsed_ats(InternetAddressList *list)
{
	size_t n = 0;

	for (int i = 0; list && i < internet_address_list_length(list); i++) {
		InternetAddress *ia = internet_address_list_get_address(list, i);

		if (INTERNET_ADDRESS_IS_GROUP(ia)) {
			n += parsed_ats(internet_address_group_get_members(INTERNET_ADDRESS_GROUP(ia)));
		} else {
			const char *addr = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia));

			for (const char *p = addr; p && *p; p++)
				n += *p == '@';
		}
	}
	return n;
}

enum bb_status config_address_list_check(const char *text, const char *where,
					 struct bb_error *err)
{
	InternetAddressList *list;
	size_t want = text_ats(text), got;

	if (!want)
		return BB_OK;
	pthread_once(&gmime_once, gmime_init_once);
	list = internet_address_list_parse(NULL, text);
	got = parsed_ats(list);
	if (list)
		g_object_unref(list);
	if (got < want)
		return bb_error_set(err, BB_ERR_CONFIG,
				    "%s: \"%s\" is not a comma-separated list of addresses: %zu of its"
				    " %zu addresses could be read (separate them with commas, put a"
				    " name with a comma in double quotes, an address in <>)",
				    where, text, got, want);
	return BB_OK;
}

void config_list_free(char **list)
{
	if (!list)
		return;
	for (char **p = list; *p; p++)
		free(*p);
	free(list);
}

/* Reads the keys of a [KIND NAME] section into slots, known[i] into
 * *slots[i]; an unknown key is an error naming the known ones. */
static enum bb_status read_named_section(GKeyFile *kf, const char *group, const char *path,
					 const char *const *known, char **const *slots,
					 struct bb_error *err)
{
	gchar **names = g_key_file_get_keys(kf, group, NULL, NULL);
	enum bb_status s = BB_OK;

	for (gchar **k = names; k && *k && !s; k++) {
		int idx = -1;
		gchar *value;

		for (int i = 0; known[i]; i++)
			if (!strcmp(*k, known[i]))
				idx = i;
		if (idx < 0) {
			gchar *list = g_strjoinv(", ", (gchar **)known);

			s = bb_error_set(err, BB_ERR_CONFIG, "config %s: unknown key \"%s\" in [%s]"
					 " (known: %s)", path, *k, group, list);
			g_free(list);
			break;
		}
		value = g_key_file_get_string(kf, group, *k, NULL);
		if (value) {
			g_strstrip(value);
			free(*slots[idx]);
			*slots[idx] = *value ? strdup(value) : NULL;
			g_free(value);
		}
	}
	g_strfreev(names);
	return s;
}

/* [route NAME]: one routing rule. */
static enum bb_status load_route(struct bb_config *cfg, GKeyFile *kf, const char *group,
				 const char *path, struct bb_error *err)
{
	static const char *const known[] = { "product", "component", "subsystem", "lists",
					     "people", "maintainers_section", NULL };
	struct config_route *r, *np;
	enum bb_status s;

	np = realloc(cfg->routes, (cfg->nroutes + 1) * sizeof(*np));
	if (!np)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	cfg->routes = np;
	r = &cfg->routes[cfg->nroutes++];
	memset(r, 0, sizeof(*r));
	r->name = strdup(group + strlen("route "));
	{
		char **const slots[] = { &r->product, &r->component, &r->subsystem, &r->lists,
					 &r->people, &r->maintainers_section };

		s = read_named_section(kf, group, path, known, slots, err);
	}
	if (!s && !r->lists && !r->people && !r->maintainers_section)
		s = bb_error_set(err, BB_ERR_CONFIG,
				 "config %s: [%s] names no recipients (lists, people or "
				 "maintainers_section)", path, group);
	return s;
}

/* [tree NAME]: a git tree the regression tracker watches. */
static enum bb_status load_tree(struct bb_config *cfg, GKeyFile *kf, const char *group,
				const char *path, const char *base_dir, struct bb_error *err)
{
	static const char *const known[] = { "path", "url", "ref", "upstream", NULL };
	struct config_tree *t, *nt;
	enum bb_status s;

	nt = realloc(cfg->trees, (cfg->ntrees + 1) * sizeof(*nt));
	if (!nt)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	cfg->trees = nt;
	t = &cfg->trees[cfg->ntrees++];
	memset(t, 0, sizeof(*t));
	t->name = strdup(group + strlen("tree "));
	{
		char **const slots[] = { &t->path, &t->url, &t->ref, &t->upstream };

		s = read_named_section(kf, group, path, known, slots, err);
	}
	if (!s && t->path && t->path[0] != '/') {
		char *abs = resolve_path(base_dir, t->path);

		free(t->path);
		t->path = abs;
	}
	if (!s && !t->path && !t->url)
		s = bb_error_set(err, BB_ERR_CONFIG, "config %s: [%s] names no repository (path or"
				 " url)", path, group);
	if (!s && !t->ref)
		s = bb_error_set(err, BB_ERR_CONFIG, "config %s: [%s] names no ref to follow", path,
				 group);
	return s;
}

static enum bb_status check_permissions(const char *path, const char *secret_key,
					struct bb_error *err)
{
	struct stat sb;

	if (stat(path, &sb) != 0)
		return bb_error_errno(err, errno, "cannot read config %s", path);
	if (sb.st_mode & (S_IROTH | S_IWOTH))
		return bb_error_set(err, BB_ERR_CONFIG,
				    "config %s holds a secret (%s) and is %s by others; "
				    "refusing to use it (fix with: chmod o-rw %s)",
				    path, secret_key,
				    (sb.st_mode & S_IROTH) ? "readable" : "writable", path);
	if (sb.st_mode & S_IWGRP)
		return bb_error_set(err, BB_ERR_CONFIG,
				    "config %s holds a secret (%s) and is writable by its group; "
				    "refusing to use it (fix with: chmod g-w %s)",
				    path, secret_key, path);
	return BB_OK;
}

/* Secrets kept out of the configuration file: systemd's LoadCredential=
 * puts them in $CREDENTIALS_DIRECTORY (a bare name is looked up there),
 * else the path is relative to the file's folder.  A trailing newline is
 * not part of the secret. */
struct credential {
	const char *section, *file_key, *key;
	char **file, **secret;
};

/* The three secrets that may be kept in files, with their keys. */
static void credentials_of(struct bb_config *cfg, struct credential out[3])
{
	const struct credential creds[3] = {
		{ "server", "upload_token_file", "upload_token", &cfg->upload_token_file,
		  &cfg->upload_token },
		{ "bugzilla", "api_key_file", "api_key", &cfg->bz_api_key_file, &cfg->bz_api_key },
		{ "smtp", "password_file", "password", &cfg->smtp_password_file, &cfg->smtp_password },
	};

	memcpy(out, creds, sizeof(creds));
}

/* Where the file of a secret is: a bare name in $CREDENTIALS_DIRECTORY
 * when systemd's LoadCredential= made one (*in_credentials 1), else
 * relative to the configuration's folder.  NULL when out of memory. */
static char *credential_path(const struct bb_config *cfg, const char *name, int *in_credentials)
{
	const char *credentials = getenv("CREDENTIALS_DIRECTORY");

	*in_credentials = credentials && credentials[0] == '/' && !strchr(name, '/');
	return *in_credentials ? str_printf("%s/%s", credentials, name)
			       : resolve_path(cfg->secrets_dir, name);
}

/* At load: a secret given twice is a configuration error. */
static enum bb_status credentials_check(struct bb_config *cfg, struct bb_error *err)
{
	struct credential creds[3];

	credentials_of(cfg, creds);
	for (size_t i = 0; i < 3; i++)
		if (*creds[i].file && **creds[i].file && *creds[i].secret)
			return bb_error_set(err, BB_ERR_CONFIG, "[%s] %s and %s are both set; keep one",
					    creds[i].section, creds[i].key, creds[i].file_key);
	return BB_OK;
}

/* Secrets may come from files: [server] upload_token_file, [bugzilla]
 * api_key_file, [smtp] password_file.  A bare name is looked up in
 * $CREDENTIALS_DIRECTORY when systemd's LoadCredential= made one, else the
 * path is relative to the file's folder.  A trailing newline is not part
 * of the secret. */
enum bb_status config_read_secrets(struct bb_config *cfg, struct bb_error *err)
{
	struct credential creds[3];

	if (cfg->secrets_read)
		return BB_OK;
	credentials_of(cfg, creds);
	for (size_t i = 0; i < 3; i++) {
		const char *name = *creds[i].file;
		char *path, *text = NULL;
		gsize len = 0;
		GError *gerr = NULL;
		int in_credentials;

		if (!name || !*name)
			continue;
		if (!(path = credential_path(cfg, name, &in_credentials)))
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		if (!g_file_get_contents(path, &text, &len, &gerr)) {
			/* not this user's to read: permission (77), not a bad file */
			enum bb_status code = g_error_matches(gerr, G_FILE_ERROR, G_FILE_ERROR_ACCES) ||
					      g_error_matches(gerr, G_FILE_ERROR, G_FILE_ERROR_PERM)
				? BB_ERR_PERMISSION : BB_ERR_CONFIG;

			bb_error_set(err, code, "[%s] %s: %s", creds[i].section, creds[i].file_key,
				     gerr->message);
			g_error_free(gerr);
			free(path);
			return code;
		}
		/* a file of ours holding a secret is private, like the config */
		if (!in_credentials) {
			enum bb_status s = check_permissions(path, creds[i].file_key, err);

			if (s) {
				explicit_bzero(text, len);
				g_free(text);
				free(path);
				return s;
			}
		}
		free(path);
		while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
			text[--len] = '\0';
		if (!len || memchr(text, '\0', len) || memchr(text, '\n', len)) {
			g_free(text);
			return bb_error_set(err, BB_ERR_CONFIG, "[%s] %s: the file must hold one line",
					    creds[i].section, creds[i].file_key);
		}
		free_secret(*creds[i].secret);
		*creds[i].secret = strdup(text);
		explicit_bzero(text, len);
		g_free(text);
		if (!*creds[i].secret)
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	cfg->secrets_read = 1;
	return BB_OK;
}

char **config_secret_warnings(const struct bb_config *cfg)
{
	struct credential creds[3];
	GPtrArray *out = g_ptr_array_new();
	struct stat sb;

	credentials_of((struct bb_config *)cfg, creds);
	if (cfg->inline_secret && cfg->source && stat(cfg->source, &sb) == 0 &&
	    (sb.st_mode & S_IRGRP))
		g_ptr_array_add(out, g_strdup_printf(
			"%s is written in %s, which its group may read: put it in a file only the "
			"service's user may read (%s_file, mode 0600, or systemd's LoadCredential=)",
			cfg->inline_secret, cfg->source, strchr(cfg->inline_secret, ' ') + 1));
	for (size_t i = 0; i < 3; i++) {
		const char *name = *creds[i].file;
		char *path;
		int in_credentials;

		if (!name || !*name || !(path = credential_path(cfg, name, &in_credentials)))
			continue;
		if (!in_credentials && stat(path, &sb) == 0 && (sb.st_mode & S_IRGRP))
			g_ptr_array_add(out, g_strdup_printf(
				"[%s] %s: %s may be read by its group: chmod 0600 it, owned by the "
				"service's user", creds[i].section, creds[i].file_key, path));
		free(path);
	}
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

/* The address settings are read as address lists (config_address_list());
 * a list GMime reads fewer addresses from than its text holds ("a@x;
 * b@y", "Doe John j@x") would lose people in silence: refused here, naming
 * the key. */
static enum bb_status settle_addresses(const struct bb_config *cfg, const char *path,
				       struct bb_error *err)
{
	const struct {
		const char *where, *text;
	} settings[] = {
		{ "[routing] default_lists", cfg->default_lists },
		{ "[routing] default_people", cfg->default_people },
		{ "[inbound] allow", cfg->inbound_allow },
		{ "[tracker] report_lists", cfg->tracker_report_lists },
	};
	enum bb_status s = BB_OK;
	char where[256];

	for (size_t i = 0; i < G_N_ELEMENTS(settings) && !s; i++) {
		snprintf(where, sizeof(where), "config %s: %s", path, settings[i].where);
		s = config_address_list_check(settings[i].text, where, err);
	}
	for (size_t i = 0; i < cfg->nroutes && !s; i++) {
		snprintf(where, sizeof(where), "config %s: [route %s] lists", path,
			 cfg->routes[i].name ? cfg->routes[i].name : "");
		s = config_address_list_check(cfg->routes[i].lists, where, err);
		if (!s) {
			snprintf(where, sizeof(where), "config %s: [route %s] people", path,
				 cfg->routes[i].name ? cfg->routes[i].name : "");
			s = config_address_list_check(cfg->routes[i].people, where, err);
		}
	}
	return s;
}

/* [bugzilla] first_sync: now, all or a date, into bz_first_since. */
static enum bb_status settle_first_sync(struct bb_config *cfg, const char *path,
					struct bb_error *err)
{
	const char *v = cfg->bz_first_sync;

	if (!strcmp(v, "now"))
		cfg->bz_first_since = -1;
	else if (!strcmp(v, "all"))
		cfg->bz_first_since = 0;
	else if (!(cfg->bz_first_since = parse_date(v)))
		return bb_error_set(err, BB_ERR_CONFIG,
				    "config %s: [bugzilla] first_sync: \"%s\" is not now, all or a "
				    "date (like 2026-12-01 or 2026-12-01T08:00:00Z)",
				    path ? path : "(built-in defaults)", v);
	return BB_OK;
}

/* [digest] day names a day of the schedule's period: 1 to 7 (weekly) or
 * 1 to 28 (monthly, so that every month has it). */
static enum bb_status settle_digest(const struct bb_config *cfg, const char *path,
				    struct bb_error *err)
{
	int monthly = cfg->digest_schedule && !strcmp(cfg->digest_schedule, "monthly");

	if (cfg->digest_day > (monthly ? 28u : 7u))
		return bb_error_set(err, BB_ERR_CONFIG, "config %s: [digest] day: %llu is not %s",
				    path ? path : "(built-in defaults)", cfg->digest_day,
				    monthly ? "a day every month has (1 to 28)"
					    : "a day of the week (1, Monday, to 7, Sunday)");
	return BB_OK;
}

/* AUTH never goes out in clear: with a login, STARTTLS defaults to
 * required, and "no" is refused (the outbox also holds a session with a
 * login to STARTTLS when "try" is set). */
static enum bb_status settle_starttls(struct bb_config *cfg, const char *path,
				      struct bb_error *err)
{
	/* a password file counts before it is read (config_read_secrets()) */
	int login = (cfg->smtp_user && *cfg->smtp_user) || cfg->smtp_password ||
		    (cfg->smtp_password_file && *cfg->smtp_password_file);

	if (!cfg->smtp_starttls) {
		cfg->smtp_starttls = strdup(login ? "required" : "try");
		return cfg->smtp_starttls ? BB_OK : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	if (login && !strcmp(cfg->smtp_starttls, "no"))
		return bb_error_set(err, BB_ERR_CONFIG,
				    "config %s: [smtp] starttls = no with a user or password would "
				    "send the password in clear; use required (the default with a "
				    "login)", path ? path : "(built-in defaults)");
	return BB_OK;
}

/* $NAME, or $HOME/fallback when NAME is unset or not absolute (as the XDG
 * base directory specification says); NULL without a HOME. */
static char *xdg_dir(const char *name, const char *fallback)
{
	const char *v = getenv(name), *home = getenv("HOME");

	if (v && v[0] == '/')
		return strdup(v);
	if (home && home[0] == '/')
		return str_printf("%s/%s", home, fallback);
	return NULL;
}

/* 1 when the folder real (canonical) is top or below it; top may be
 * NULL or a path that does not exist (then 0). */
static int folder_under(const char *real, const char *top)
{
	char *t = top ? realpath(top, NULL) : NULL;
	size_t n = t ? strlen(t) : 0;
	int under = t && !strncmp(real, t, n) && (real[n] == '/' || !real[n] || n == 1);

	free(t);
	return under;
}

/* The data folder of a configuration file that sets no data_dir, whatever
 * the working directory: $STATE_DIRECTORY (systemd's StateDirectory=),
 * else /var/lib/bugbridge (the units') for a file under SYSCONFDIR, else
 * $XDG_STATE_HOME/bugbridge for a file under $XDG_CONFIG_HOME, else
 * bugbridge-data beside the file.  folder is the file's folder, absolute
 * (NULL: the working directory, where a bare "bugbridge.conf" is).  NULL
 * only when out of memory. */
static char *file_data_dir(const char *folder)
{
	const char *sd = getenv("STATE_DIRECTORY");
	char cwd[PATH_MAX], *real, *dir = NULL;

	if (sd && sd[0] == '/')
		return strndup(sd, strcspn(sd, ":"));
	if (!folder)
		folder = getcwd(cwd, sizeof(cwd)) ? cwd : ".";
	real = realpath(folder, NULL);
	if (real && folder_under(real, SYSCONFDIR)) {
		/* where the units keep it: systemd's StateDirectory= is under
		 * /var/lib whatever the prefix (LOCALSTATEDIR is /usr/local/var
		 * for a build with the default prefix, /usr/var for --prefix=/usr) */
		dir = strdup("/var/lib/bugbridge");
	} else if (real) {
		char *config_home = xdg_dir("XDG_CONFIG_HOME", ".config");

		if (folder_under(real, config_home)) {
			char *state_home = xdg_dir("XDG_STATE_HOME", ".local/state");

			dir = state_home ? str_printf("%s/bugbridge", state_home) : NULL;
			free(state_home);
		}
		free(config_home);
	}
	if (!dir)
		dir = str_printf("%s/bugbridge-data", real ? real : folder);
	free(real);
	return dir;
}

static enum bb_status load_file(struct bb_config **out, const char *path,
				struct bb_error *err)
{
	struct bb_config *cfg;
	GKeyFile *kf = NULL;
	GError *gerr = NULL;
	gchar **groups = NULL;
	char *base_dir = NULL;
	char secret_key[96] = "";
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
		else if (g_error_matches(gerr, G_FILE_ERROR, G_FILE_ERROR_ACCES) ||
			 g_error_matches(gerr, G_FILE_ERROR, G_FILE_ERROR_PERM))
			/* not this user's to read: permission (77), not a bad file */
			s = bb_error_set(err, BB_ERR_PERMISSION, "config %s: %s", path, gerr->message);
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

	/* the built-in ./bugbridge-data is for a run without a file (the demo);
	 * a file's state never depends on the working directory */
	free(cfg->data_dir);
	if (!(cfg->data_dir = file_data_dir(base_dir))) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	groups = g_key_file_get_groups(kf, NULL);
	for (gchar **g = groups; *g && !s; g++) {
		gchar **names;

		if (!strncmp(*g, "route ", 6) && (*g)[6]) {
			s = load_route(cfg, kf, *g, path, err);
			continue;
		}
		if (!strncmp(*g, "tree ", 5) && (*g)[5]) {
			s = load_tree(cfg, kf, *g, path, base_dir, err);
			continue;
		}
		if (!section_known(*g)) {
			char *at = where(path, *g, NULL), *hint = suggestion(*g, NULL);

			s = bb_error_set(err, BB_ERR_CONFIG, "%s: unknown section [%s]%s",
					 at ? at : path, *g, hint ? hint : "");
			free(at);
			free(hint);
			break;
		}
		names = g_key_file_get_keys(kf, *g, NULL, NULL);
		for (gchar **k = names; k && *k && !s; k++) {
			const struct key_spec *spec = find_key(*g, *k);
			gchar *value;

			if (!spec) {
				char *at = where(path, *g, *k), *hint = suggestion(*g, *k);

				s = bb_error_set(err, BB_ERR_CONFIG, "%s: unknown key \"%s\" in [%s]%s",
						 at ? at : path, *k, *g, hint ? hint : "");
				free(at);
				free(hint);
				break;
			}
			value = g_key_file_get_string(kf, *g, *k, NULL);
			if (!value)
				value = g_strdup("");
			g_strstrip(value);
			if (spec->pub.secret && *value)
				snprintf(secret_key, sizeof(secret_key), "[%s] %s", *g, *k);
			if (*value || spec->pub.secret) {
				s = set_value(cfg, spec, value, base_dir, err);
				if (s) {
					/* name the file; values of secrets are never quoted */
					if (err) {
						char *at = where(path, *g, *k);
						char *msg = str_printf("%s: %s", at ? at : path,
								       err->message);

						free(at);
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
	if (!s && secret_key[0])
		s = check_permissions(path, secret_key, err);
	if (!s && secret_key[0] && !(cfg->inline_secret = strdup(secret_key)))
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if (!s) {
		char cwd[PATH_MAX];

		cfg->secrets_dir = base_dir ? strdup(base_dir)
			: strdup(getcwd(cwd, sizeof(cwd)) ? cwd : ".");
		s = cfg->secrets_dir ? credentials_check(cfg, err)
				     : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	/* an empty secret means unset */
	for (size_t i = 0; i < NKEYS && !s; i++) {
		char **sp;

		if (!keys[i].pub.secret || !is_string_key(&keys[i]))
			continue;
		sp = field(cfg, &keys[i]);
		if (*sp && !**sp) {
			free(*sp);
			*sp = NULL;
		}
	}
out:
	if (!s)
		s = settle_starttls(cfg, path, err);
	if (!s)
		s = settle_first_sync(cfg, path, err);
	if (!s)
		s = settle_digest(cfg, path, err);
	if (!s)
		s = settle_addresses(cfg, path, err);
	if (!s && !cfg->smtp_maildir && !cfg->smtp_mbox)
		cfg->smtp_maildir = config_data_path(cfg, "mail");
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

enum bb_status config_load_file(struct bb_config **out, const char *path,
				struct bb_error *err)
{
	return load_file(out, path, err);
}

enum bb_status config_load(struct bb_config **out, const char *explicit_path,
			   struct bb_error *err)
{
	const char *env = getenv("BUGBRIDGE_CONFIG");
	char *dir, *path;
	enum bb_status s;

	if (explicit_path)
		return load_file(out, explicit_path, err);
	if (env && *env)
		return load_file(out, env, err);
	if (access("bugbridge.conf", F_OK) == 0)
		return load_file(out, "bugbridge.conf", err);
	/* the user's own, then the system's */
	dir = xdg_dir("XDG_CONFIG_HOME", ".config");
	path = dir ? str_printf("%s/bugbridge/bugbridge.conf", dir) : NULL;
	free(dir);
	if (!path || access(path, F_OK) != 0) {
		free(path);
		path = str_printf("%s/bugbridge/bugbridge.conf", SYSCONFDIR);
	}
	if (path && access(path, F_OK) == 0) {
		s = load_file(out, path, err);
		free(path);
		return s;
	}
	free(path);
	return load_file(out, NULL, err);
}

char *config_data_path(const struct bb_config *cfg, const char *name)
{
	size_t len = strlen(cfg->data_dir);

	while (len > 1 && cfg->data_dir[len - 1] == '/')
		len--;
	return str_printf("%.*s/%s", (int)len, cfg->data_dir, name);
}
