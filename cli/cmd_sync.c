/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugbridge sync and bugbridge daemon: mirror Bugzilla to the lists. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>

#include <glib.h>

#include <systemd/sd-daemon.h>

#include "bridge/submit.h"
#include "bridge/aging.h"
#include "bridge/digest.h"
#include "bridge/needinfo.h"
#include "bridge/sync.h"
#include "bugzilla/bz_fields.h"
#include "cli/cli.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "tracker/locate.h"
#include "tracker/report.h"
#include "triage/index.h"

static const char usage_sync[] =
	"usage: bugbridge sync [--once] [--dry-run] [--since DATE] [--from-start] [--yes]\n"
	"\n"
	"One round: polls Bugzilla for bugs changed since the last round, stores\n"
	"new attachments in the blob store, queues a mail for every new public\n"
	"comment and field change, and delivers the outbox.  With [archive]\n"
	"configured it first reads the list archive: replies to mirrored bugs\n"
	"become Bugzilla comments and #bugbridge commands act on the bugs.\n"
	"\n"
	"  --once      one round and exit (the default; for symmetry with daemon)\n"
	"  --dry-run   show what would be mailed; change nothing, send nothing\n"
	"  --since DATE  re-examine the bugs changed since DATE (2026-12-01 or\n"
	"              2026-12-01T08:00:00Z) instead of since the last round: a\n"
	"              bug not on the list yet gets its first mirror, one on it\n"
	"              a backlog summary of the public comments never mailed;\n"
	"              nothing already sent goes out again\n"
	"  --yes       send history above [bugzilla] backfill_confirm mails: a\n"
	"              first sync with first_sync = all or a date, or --since\n"
	"              (without it such a round says how much it would mail and\n"
	"              exits 78, sending nothing)\n"
	"  --from-start  an archive never read before is read from its first\n"
	"              mail instead of its end, once, with a progress bar: the\n"
	"              tracker learns its regressions and the replies to mirrored\n"
	"              bugs are posted, but no command in that history acts\n";

static const char usage_resync[] =
	"usage: bugbridge resync [--dry-run] BUG...\n"
	"\n"
	"Re-examines the named bugs whatever changed: a bug not on the list yet\n"
	"(and eligible) gets its first mirror, the report and a backlog summary;\n"
	"one already on it a backlog summary of the public comments that were\n"
	"never mailed, if any.  No Message-ID is ever sent twice.  The round's\n"
	"cursor stays where it is.\n"
	"\n"
	"  --dry-run   show what would be mailed; change nothing, send nothing\n";

static const char usage_daemon[] =
	"usage: bugbridge daemon [--interval DURATION]\n"
	"\n"
	"Runs sync rounds every [sync] interval (default 5m) until SIGTERM or\n"
	"SIGINT, which let the current round finish.  A round that fails with a\n"
	"temporary error is retried after a backoff.\n";

void cli_bz_options(const struct bb_config *cfg, struct bz_client_options *o)
{
	memset(o, 0, sizeof(*o));
	o->url = cfg->bz_url;
	o->api_key = cfg->bz_api_key;
	o->key_in_header = cfg->bz_key_in_header;
	o->ca_file = cfg->bz_ca_file;
	o->proxy = cfg->bz_proxy;
	o->timeout = (long)cfg->bz_timeout;
	o->subsystem_field = cfg->bz_subsystem_field;
	o->page_size = (unsigned)cfg->bz_page_size;
}

/* sc.open_private: the private store is opened (made, the first time)
 * when a withdrawn bug's blobs first need it, not by every round. */
static enum bb_status open_private(void *ctx, struct blob_store **out, struct bb_error *err)
{
	struct cli_bridge *b = ctx;
	enum bb_status s = cli_private_blobs_open(b->sc.cfg, &b->private_blobs, &b->private_db, err);

	*out = b->private_blobs;   /* (asked only while sc.private_blobs is NULL) */
	return s;
}

int cli_bridge_open(struct cli_context *ctx, struct cli_bridge *b)
{
	struct bb_error err = BB_ERROR_INIT;
	int rc;

	memset(b, 0, sizeof(*b));
	if ((rc = cli_read_secrets(ctx)) || (rc = cli_open_store(ctx, STORE_READ_WRITE)))
		return rc;
	if (ctx->cfg->maintainers_file &&
	    mnt_load(&b->maintainers, ctx->cfg->maintainers_file, &err))
		goto fail;
	if (router_new(&b->router, ctx->cfg, b->maintainers, &err))
		goto fail;
	if (ctx->cfg->bz_url) {
		struct bz_client_options o;
		const char *fields[4] = { NULL };
		char **flags = config_list(ctx->cfg->bz_flag, NULL);
		size_t nf = 0;

		/* every field bugbridge reads is asked for in the search */
		if (ctx->cfg->bz_kernel_field && *ctx->cfg->bz_kernel_field)
			fields[nf++] = ctx->cfg->bz_kernel_field;
		if (ctx->cfg->tracker_bisect_field && *ctx->cfg->tracker_bisect_field)
			fields[nf++] = ctx->cfg->tracker_bisect_field;
		if (ctx->cfg->tracker_regression_field && *ctx->cfg->tracker_regression_field)
			fields[nf++] = ctx->cfg->tracker_regression_field;
		cli_bz_options(ctx->cfg, &o);
		o.fields = fields;
		o.flags = (const char *const *)flags;
		if (bz_client_new(&b->bz, &o, &err)) {
			config_list_free(flags);
			goto fail;
		}
		config_list_free(flags);
	}
	if (strcmp(ctx->cfg->inbound_attachments, "blob") &&
	    strcmp(ctx->cfg->inbound_attachments, "bugzilla")) {
		bb_error_set(&err, BB_ERR_CONFIG, "[inbound] attachments: \"%s\" is neither blob"
			     " nor bugzilla", ctx->cfg->inbound_attachments);
		goto fail;
	}
	if ((ctx->cfg->archive_url || ctx->cfg->archive_path) && ctx->cfg->inbound_enabled) {
		struct archive_options o;

		memset(&o, 0, sizeof(o));
		b->archive_state = config_data_path(ctx->cfg, "archive");
		o.kind = ctx->cfg->archive_kind;
		o.url = ctx->cfg->archive_url;
		o.path = ctx->cfg->archive_path;
		o.state_dir = b->archive_state;
		o.max_message_size = (size_t)ctx->cfg->archive_max_mail_size;
		o.timeout = (long)ctx->cfg->bz_timeout;
		if (!b->archive_state) {
			bb_error_set(&err, BB_ERR_NOMEM, "out of memory");
			goto fail;
		}
		if (archive_source_new(&b->archive, &o, &err))
			goto fail;
		b->inbound.source = ctx->cfg->archive_url ? ctx->cfg->archive_url
							  : ctx->cfg->archive_path;
		b->inbound.archive_url = ctx->cfg->archive_link_url ? ctx->cfg->archive_link_url
								    : ctx->cfg->archive_url;
		b->inbound.commands = ctx->cfg->inbound_commands;
		b->inbound.track = ctx->cfg->inbound_track;
	}
	{
		struct archive_options so;

		if (submit_archive_options(ctx->cfg, &so) &&
		    archive_source_new(&b->submit, &so, &err))
			goto fail;
	}
	{
		struct tracker_options to;

		memset(&to, 0, sizeof(to));
		to.bugzilla_url = ctx->cfg->bz_url;
		to.archive_url = ctx->cfg->archive_link_url ? ctx->cfg->archive_link_url
							    : ctx->cfg->archive_url;
		to.regression_field = ctx->cfg->tracker_regression_field;
		to.regression_keyword = ctx->cfg->tracker_regression_keyword;
		to.bisect_field = ctx->cfg->tracker_bisect_field;
		to.stale_after = ctx->cfg->tracker_stale_after;
		to.default_branch = ctx->cfg->tracker_default_branch;
		if (tracker_new(&b->tracker, ctx->db, &to, &err))
			goto fail;
	}
	b->sc.cfg = ctx->cfg;
	b->sc.db = ctx->db;
	b->sc.tracker = b->tracker;
	if (b->maintainers && ctx->cfg->routing_by_content &&
	    strcmp(ctx->cfg->routing_by_content, "off")) {
		b->sc.matcher = b->matcher = tri_matcher_new(b->maintainers);
		if (ctx->cfg->ntrees) {
			char *dir = config_data_path(ctx->cfg, "trees");

			b->locator = locate_new(ctx->cfg, dir);
			b->sc.locator = locate_triage(b->locator);
			free(dir);
		} else {
			/* no tree: the kernel index of bugbridge triage-index build */
			char *path = config_data_path(ctx->cfg, TRI_INDEX_FILE);
			struct bb_error ierr = BB_ERROR_INIT;

			if (tri_index_open(&b->index, path, &ierr) == BB_OK)
				b->sc.locator = tri_index_locator(b->index);
			else if (ierr.code != BB_ERR_NOT_FOUND)
				log_event(LOG_LEVEL_WARN, "triage.index_failed", LF_STR("path", path),
					  LF_STR("error", ierr.message));
			free(path);
		}
	}
	b->sc.blobs = ctx->blobs;
	b->sc.open_private = open_private;
	b->sc.open_private_ctx = b;
	b->sc.bz = b->bz;
	b->sc.router = b->router;
	return EX_OK;
fail:
	rc = cli_fail(&err);
	cli_bridge_close(b);
	return rc;
}

void cli_bridge_close(struct cli_bridge *b)
{
	tracker_free(b->tracker);
	blob_private_close(b->private_blobs, b->private_db);
	archive_source_free(b->archive);
	archive_source_free(b->submit);
	free(b->archive_state);
	bz_client_free(b->bz);
	router_free(b->router);
	tri_matcher_free(b->matcher);
	locate_free(b->locator);
	tri_index_free(b->index);
	mnt_free(b->maintainers);
	memset(b, 0, sizeof(*b));
}

/* One sync or daemon per data folder: two would mail the same changes twice
 * and fight over cursors.  The lock is data_dir/bugbridge.lock, held (flock)
 * until the process ends, a crash included; the file names the holder. */
static int lock_data_dir(struct cli_context *ctx, const char *what)
{
	char *path = config_data_path(ctx->cfg, "bugbridge.lock"), holder[128] = "", *nl;
	int fd = path ? fs_open_private(path, O_RDWR) : -1;
	ssize_t n;

	if (fd < 0) {
		int e = errno;

		cli_error("cannot open %s: %s", path ? path : "the lock file", strerror(e));
		free(path);
		/* a user who may read the data folder but not write it, or a
		 * folder mounted read-only: no restart fixes either (77, which
		 * the units' RestartPreventExitStatus= names) */
		return e == EACCES || e == EPERM || e == EROFS ? EX_NOPERM : EX_CANTCREAT;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;

		n = pread(fd, holder, sizeof(holder) - 1, 0);
		holder[n > 0 ? n : 0] = '\0';
		if ((nl = strchr(holder, '\n')))
			*nl = '\0';
		close(fd);
		if (e == EWOULDBLOCK) {
			cli_error("%s is in use by another bugbridge (%s); not starting a second one",
				  ctx->cfg->data_dir, holder[0] ? holder : "pid unknown");
			free(path);
			return EX_TEMPFAIL;
		}
		cli_error("cannot lock %s: %s", path, strerror(e));
		free(path);
		return EX_IOERR;
	}
	n = snprintf(holder, sizeof(holder), "pid %ld, bugbridge %s\n", (long)getpid(), what);
	if (ftruncate(fd, 0) != 0 || pwrite(fd, holder, (size_t)n, 0) != n)
		log_event(LOG_LEVEL_WARN, "lock.note_failed", LF_STR("path", path),
			  LF_STR("error", strerror(errno)));
	free(path);
	/* fd stays open, and the lock with it, until exit */
	return EX_OK;
}

/* The startup check of the configured field names against the Bugzilla's
 * (GET /rest/field/bug): a warning for each it lacks.  Once a day (UTC),
 * remembered in the cursor "bugzilla:fields-checked", so neither a run of
 * `sync` every few minutes nor a daemon asks more often; a failure to ask
 * is logged and tried again next round. */
static void check_fields(struct cli_bridge *b)
{
	const struct bb_config *cfg = b->sc.cfg;
	const struct bz_field_want want[] = {
		{ "[bugzilla] kernel_field", cfg->bz_kernel_field },
		{ "[bugzilla] subsystem_field", cfg->bz_subsystem_field },
		{ "[tracker] bisect_field", cfg->tracker_bisect_field },
		{ "[tracker] regression_field", cfg->tracker_regression_field },
		{ "[bugzilla] flag", cfg->bz_flag && *cfg->bz_flag ? "flagtypes.name" : NULL },
	};
	static const char cursor[] = "bugzilla:fields-checked";
	struct bb_error err = BB_ERROR_INIT;
	char today[STORE_DAY_LEN];
	int done;

	if (!b->bz)
		return;
	if (!store_cursor_today(b->sc.db, cursor, time(NULL), today, &done, &err) && done)
		return;
	bb_error_clear(&err);
	if (bz_fields_check(b->bz, want, sizeof(want) / sizeof(want[0]), NULL, &err)) {
		log_event(LOG_LEVEL_WARN, "bz.fields.unknown",
			  LF_STR("reason", err.message));
		return;
	}
	if (!b->sc.dry_run && store_cursor_set(b->sc.db, cursor, today, &err))
		log_event(LOG_LEVEL_WARN, "bz.fields.unknown", LF_STR("reason", err.message));
}

/* One round of both sides: the archive to Bugzilla, then Bugzilla to the
 * lists, with delivery (of the notices the archive's commands queued too).
 * The archive goes first so that what the list already holds is known
 * before anything is mailed: after a state put back from an older backup,
 * the archive is read again from the backup's cursor, and the bridge's own
 * mails in it (their X-Bugbridge-Mark made with this state's key) are not
 * mailed again, nor are its comments of list mails. */
/* What the recovery did (recovered) is part of the round's figures
 * (inbound_round() starts its own from zero). */
static void inbound_stats_add(struct inbound_stats *in, const struct inbound_stats *recovered)
{
	in->mails += recovered->mails;
	in->matched += recovered->matched;
	in->posted += recovered->posted;
	in->ignored += recovered->ignored;
	in->rejected += recovered->rejected;
	in->commands_done += recovered->commands_done;
	in->commands_refused += recovered->commands_refused;
	in->commands_failed += recovered->commands_failed;
	in->commands_invalid += recovered->commands_invalid;
	in->bugs_created += recovered->bugs_created;
	in->replies_queued += recovered->replies_queued;
	in->deferred += recovered->deferred;
	in->waiting += recovered->waiting;
	in->dns_ms += recovered->dns_ms;
	in->bytes += recovered->bytes;
}

static enum bb_status bridge_round(struct cli_bridge *b, struct sync_stats *st,
				   struct inbound_stats *in, struct bb_error *err)
{
	struct bb_error archive_err = BB_ERROR_INIT, submit_err = BB_ERROR_INIT;
	struct inbound_stats recovered;
	enum bb_status s, archive = BB_OK;

	memset(in, 0, sizeof(*in));
	memset(&recovered, 0, sizeof(recovered));
	/* a crashed round's inbound half first: what it posted or created is
	 * recorded before the outbound pass could mail it back; a deferred
	 * reply due now is posted here too, and counts in the round's summary */
	if (b->archive && !b->sc.dry_run &&
	    (s = inbound_recover(&b->sc, b->archive, &b->inbound, &recovered, err))) {
		*in = recovered;
		return s;
	}
	/* the trees move between rounds: symbols are looked up afresh */
	locate_reset(b->locator);
	/* an archive that cannot be read now does not hold the mail back:
	 * its error ends the round, after the rest of it */
	archive = b->archive ? inbound_round(&b->sc, b->archive, &b->inbound, in, &archive_err)
			     : BB_OK;
	inbound_stats_add(in, &recovered);
	if (archive) {
		if (archive == BB_ERR_NOMEM || archive == BB_ERR_DATABASE) {
			*err = archive_err;
			return archive;
		}
		log_event(LOG_LEVEL_WARN, "sync.archive_failed", LF_STR("error", archive_err.message),
			  LF_STR("reason", "Bugzilla's changes are mailed all the same"));
	}
	/* the submit box before the outbound pass: its new bugs go out now */
	if (b->submit && (s = submit_round(&b->sc, b->submit, &b->submit_stats, &submit_err))) {
		if (s == BB_ERR_NOMEM || s == BB_ERR_DATABASE) {
			*err = submit_err;
			return s;
		}
		log_event(LOG_LEVEL_WARN, "sync.submit_failed", LF_STR("error", submit_err.message),
			  LF_STR("reason", "the box is read again next round"));
		if (!archive) {
			archive = s;
			archive_err = submit_err;
		}
	}
	/* needinfo questions whose time came (bridge/needinfo.h): reminders
	 * queued, bugs closed or reopened, before the sync mails and delivers */
	if (b->sc.bz && !b->sc.dry_run) {
		struct needinfo_stats ns;
		struct aging_stats as;
		struct digest_stats ds;

		if ((s = needinfo_round(&b->sc, &ns, err))) {
			if (s == BB_ERR_NOMEM || s == BB_ERR_DATABASE)
				return s;
			log_event(LOG_LEVEL_WARN, "needinfo.round_failed", LF_STR("error", err->message),
				  LF_STR("reason", "the rest waits for the next round"));
			bb_error_clear(err);
		}
		if ((s = aging_round(&b->sc, &as, err))) {   /* bridge/aging.h */
			if (s == BB_ERR_NOMEM || s == BB_ERR_DATABASE)
				return s;
			log_event(LOG_LEVEL_WARN, "aging.round_failed", LF_STR("error", err->message),
				  LF_STR("reason", "the rest waits for the next round"));
			bb_error_clear(err);
		}
		/* the digests, on [digest] schedule (bridge/digest.h): queued
		 * here, delivered by this round */
		if ((s = digest_round(&b->sc, &ds, err))) {
			if (s == BB_ERR_NOMEM || s == BB_ERR_DATABASE)
				return s;
			log_event(LOG_LEVEL_WARN, "digest.round_failed", LF_STR("error", err->message),
				  LF_STR("reason", "tried again next round"));
			bb_error_clear(err);
		}
	}
	if ((s = sync_round(&b->sc, st, err)))
		return s;
	check_fields(b);
	if (b->sc.cfg->ntrees && !b->sc.dry_run) {
		struct tracker_tree_stats ts;
		char *dir = config_data_path(b->sc.cfg, "trees");

		s = dir ? tracker_scan_trees(b->tracker, b->sc.cfg, dir, &ts, err)
			: bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		free(dir);
		if (s)
			return s;
	}
	if (b->bz && !b->sc.dry_run) {
		unsigned long notes;

		if ((s = tracker_push(b->tracker, b->bz, &notes, err)))
			return s;
	}
	if (!b->sc.dry_run) {
		/* the reports follow every round; trouble writing them is logged
		 * and fails no round */
		struct bb_error report_err = BB_ERROR_INIT;
		char *dir = reg_report_dir(b->sc.cfg);

		if (!dir || reg_report_write(b->sc.db, b->sc.cfg, dir, time(NULL), &report_err))
			log_event(LOG_LEVEL_WARN, "tracker.report_failed",
				  LF_STR("error", dir ? report_err.message : "out of memory"));
		free(dir);
	}
	if (archive)
		*err = archive_err;
	return archive;
}

static void report_inbound(struct cli_context *ctx, const struct cli_bridge *b,
			   const struct inbound_stats *in)
{
	const struct submit_stats *su = &b->submit_stats;

	if (!ctx->quiet && b->submit)
		fprintf(stderr, "bugbridge: submit box: %lu mail%s read, %lu bug%s filed, %lu refused, "
			"%lu from senders not authenticated\n", su->mails, su->mails == 1 ? "" : "s",
			su->filed, su->filed == 1 ? "" : "s", su->refused, su->unauthenticated);
	if (ctx->quiet || !b->archive)
		return;
	fprintf(stderr,
		"bugbridge: archive: %lu mail%s read, %lu for mirrored bugs, %lu posted, "
		"%lu ignored, %lu rejected; commands: %lu done, %lu refused, %lu failed, "
		"%lu not understood; %lu bug%s created",
		in->mails, in->mails == 1 ? "" : "s", in->matched, in->posted, in->ignored,
		in->rejected, in->commands_done, in->commands_refused, in->commands_failed,
		in->commands_invalid, in->bugs_created, in->bugs_created == 1 ? "" : "s");
	if (in->deferred)
		fprintf(stderr, "; %lu repl%s deferred (Bugzilla failed for now; each is tried "
			"again later)", in->deferred, in->deferred == 1 ? "y" : "ies");
	fputc('\n', stderr);
}

static void print_mail(void *ctx, long long bug_id, const char *message_id, const char *subject)
{
	int *dry = ctx;

	printf("%s bug %lld <%s> %s\n", *dry ? "would mail" : "queued", bug_id, message_id,
	       subject);
}

static void report_round(struct cli_context *ctx, const struct sync_stats *st, int dry_run)
{
	if (ctx->quiet)
		return;
	fprintf(stderr,
		"bugbridge: %lu bug%s changed, %lu mirrored, %lu skipped; %lu new comment%s "
		"(%lu private); %lu mail%s %s; attachments: %lu stored, %lu failed; "
		"%lu request%s\n",
		st->bugs_seen, st->bugs_seen == 1 ? "" : "s", st->bugs_mirrored, st->bugs_skipped,
		st->comments_new, st->comments_new == 1 ? "" : "s", st->comments_private,
		st->mails_queued, st->mails_queued == 1 ? "" : "s",
		dry_run ? "would be queued" : "queued", st->attachments_stored,
		st->attachments_failed, st->requests, st->requests == 1 ? "" : "s");
	if (st->bugs_withdrawn)
		fprintf(stderr, "bugbridge: %lu bug%s restricted since mirrored: withdrawn (unlisted, "
			"no more list replies posted, blobs no longer served)\n", st->bugs_withdrawn,
			st->bugs_withdrawn == 1 ? "" : "s");
	if (!dry_run)
		fprintf(stderr, "bugbridge: delivery: %lu sent, %lu deferred, %lu failed\n",
			st->delivery.sent, st->delivery.deferred, st->delivery.failed);
}

/* Whether a round did or saw anything worth a line: a daemon's idle
 * rounds write nothing at the default level.  A mail deferred again is no
 * news (the outbox logs each attempt); one sent or failed is. */
static int round_had_news(const struct sync_stats *st, const struct inbound_stats *in)
{
	return st->bugs_seen || st->mails_queued || st->bugs_withdrawn ||
	       st->attachments_stored || st->attachments_failed || st->delivery.sent ||
	       st->delivery.failed || in->mails || in->deferred;
}

/* The progress of a first read of an archive's history. */
static void history_progress(void *ctx, unsigned long mails, unsigned long long bytes)
{
	char label[64];

	snprintf(label, sizeof(label), "reading the archive: %lu mails", mails);
	cli_progress_label(ctx, label);
	cli_progress_update(ctx, bytes, 0);
}

int cmd_sync(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "since", required_argument, NULL, 's' },
		{ "from-start", no_argument, NULL, 'F' },
		{ "yes", no_argument, NULL, 'y' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bb_error err = BB_ERROR_INIT;
	struct cli_bridge b;
	struct sync_stats st;
	struct inbound_stats in;
	struct cli_progress *progress = NULL;
	int opt, dry_run = 0, rc, from_start = 0, yes = 0;
	time_t since = 0;

	while ((opt = getopt_long(argc, argv, "onyh", options, NULL)) != -1) {
		switch (opt) {
		case 'o': break;
		case 'n': dry_run = 1; break;
		case 'F': from_start = 1; break;
		case 'y': yes = 1; break;
		case 's':
			if (!(since = parse_date(optarg))) {
				cli_error("--since: \"%s\" is not a date (like 2026-12-01 or "
					  "2026-12-01T08:00:00Z)", optarg);
				return EX_USAGE;
			}
			break;
		case 'h': return cli_usage(stdout, usage_sync);
		default: return cli_usage(stderr, usage_sync);
		}
	}
	if (optind != argc)
		return cli_usage(stderr, usage_sync);
	/* a dry run changes nothing, so it may look while the daemon runs */
	if ((rc = cli_open_store(ctx, STORE_READ_WRITE)) ||
	    (!dry_run && (rc = lock_data_dir(ctx, "sync"))))
		return rc;
	if ((rc = cli_bridge_open(ctx, &b)))
		return rc;
	b.sc.dry_run = dry_run;
	b.sc.on_mail = print_mail;
	b.sc.on_mail_ctx = &dry_run;
	b.sc.since = since;
	b.sc.backfill_confirmed = yes;
	if (from_start) {
		progress = cli_progress_start("reading the archive", 0, ctx->quiet);
		b.inbound.from_start = 1;
		b.inbound.progress = history_progress;
		b.inbound.progress_ctx = progress;
	}
	rc = bridge_round(&b, &st, &in, &err);
	cli_progress_done(progress);
	if (rc) {
		rc = cli_fail(&err);
	} else {
		report_round(ctx, &st, dry_run);
		report_inbound(ctx, &b, &in);
		if (!dry_run)
			rc = cli_delivery_exit(&st.delivery);
		/* a reply Bugzilla could not take yet: temporary, as deferred mail */
		if (rc == EX_OK && in.deferred)
			rc = EX_TEMPFAIL;
	}
	cli_bridge_close(&b);
	return rc;
}

int cmd_resync(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bb_error err = BB_ERROR_INIT;
	struct cli_bridge b;
	struct sync_stats st;
	long long *ids;
	size_t n = 0;
	int opt, dry_run = 0, rc;

	while ((opt = getopt_long(argc, argv, "nh", options, NULL)) != -1) {
		switch (opt) {
		case 'n': dry_run = 1; break;
		case 'h': return cli_usage(stdout, usage_resync);
		default: return cli_usage(stderr, usage_resync);
		}
	}
	if (optind == argc)
		return cli_usage(stderr, usage_resync);
	if (!(ids = calloc((size_t)(argc - optind), sizeof(*ids)))) {
		cli_error("out of memory");
		return EX_OSERR;
	}
	for (int i = optind; i < argc; i++) {
		char *end;
		long long id = strtoll(argv[i], &end, 10);

		if (*end || id <= 0) {
			cli_error("resync: \"%s\" is not a bug number", argv[i]);
			free(ids);
			return EX_USAGE;
		}
		ids[n++] = id;
	}
	if ((rc = cli_open_store(ctx, STORE_READ_WRITE)) ||
	    (!dry_run && (rc = lock_data_dir(ctx, "resync"))) ||
	    (rc = cli_bridge_open(ctx, &b))) {
		free(ids);
		return rc;
	}
	b.sc.dry_run = dry_run;
	b.sc.on_mail = print_mail;
	b.sc.on_mail_ctx = &dry_run;
	b.sc.only = ids;
	b.sc.nonly = n;
	if (sync_round(&b.sc, &st, &err)) {
		rc = cli_fail(&err);
	} else {
		report_round(ctx, &st, dry_run);
		if (!dry_run)
			rc = cli_delivery_exit(&st.delivery);
	}
	cli_bridge_close(&b);
	free(ids);
	return rc;
}

/* SIGHUP between rounds: the configuration is read again and the log file
 * reopened.  A new file that does not load keeps the old one; so does one
 * the bridge cannot start with (a MAINTAINERS file gone, say).  The wait
 * for the next round starts over. */
static void daemon_reload(struct cli_context *ctx, struct cli_bridge *b, long long *interval)
{
	struct bb_config *fresh, *old = ctx->cfg;
	struct bb_error why = BB_ERROR_INIT;
	int loaded = 0, refused = 0;

	sd_notify(0, "RELOADING=1\nSTATUS=reloading the configuration");
	if (cli_reload_config(ctx, &fresh, &why) == 0) {
		cli_bridge_close(b);
		ctx->cfg = fresh;
		if (cli_bridge_open(ctx, b) == EX_OK) {
			config_free(old);
			if (interval)
				*interval = ctx->cfg->sync_interval;
			loaded = 1;
		} else {
			ctx->cfg = old;
			config_free(fresh);
			refused = 1;
			if (cli_bridge_open(ctx, b) != EX_OK)
				log_event(LOG_LEVEL_ERROR, "daemon.reopen_failed");
		}
	}
	/* the new file may name another log file or level: reopen first, so
	 * what the reload did is in the file being written from now on */
	cli_reopen_log(ctx);
	if (loaded)
		log_event(LOG_LEVEL_INFO, "config.reloaded",
			  LF_STR("file", ctx->config_path ? ctx->config_path : "-"));
	else if (refused)
		log_event(LOG_LEVEL_ERROR, "config.reload_failed",
			  LF_STR("error", "the bridge cannot start with the new file"),
			  LF_STR("kept", "the configuration in effect"));
	cli_reload_done(ctx, loaded ? NULL : refused ? "the bridge cannot start with the new file"
					     : why.message,
			"configuration reloaded; waiting for the next round");
}

int cmd_daemon(struct cli_context *ctx, int argc, char **argv)
{
	static const struct option options[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_bridge b;
	long long interval = -1, backoff = 0;
	sigset_t sigs;
	int opt, rc, stop = 0, fixed_interval;

	while ((opt = getopt_long(argc, argv, "i:h", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (parse_duration(optarg, &interval) != 0 || interval <= 0) {
				cli_error("--interval: \"%s\" is not a duration (like 90s, 5m)", optarg);
				return EX_USAGE;
			}
			break;
		case 'h': return cli_usage(stdout, usage_daemon);
		default: return cli_usage(stderr, usage_daemon);
		}
	}
	if (optind != argc)
		return cli_usage(stderr, usage_daemon);
	fixed_interval = interval >= 0;
	if (!fixed_interval)
		interval = ctx->cfg->sync_interval;
	/* signals are taken only between rounds: a round always finishes */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	if ((rc = cli_open_store(ctx, STORE_READ_WRITE)) || (rc = lock_data_dir(ctx, "daemon")))
		return rc;
	if ((rc = cli_bridge_open(ctx, &b)))
		return rc;
	log_event(LOG_LEVEL_INFO, "daemon.start", LF_INT("interval", interval));
	cli_warn_secrets(ctx->cfg);
	/* the check reads the whole database: after READY=1, so that a large
	 * one does not miss the unit's start timeout */
	sd_notify(0, "READY=1\nSTATUS=checking the database");
	if ((rc = cli_check_database(ctx))) {
		sd_notifyf(0, "STATUS=stopped: the database %s is damaged", ctx->db->path);
		cli_bridge_close(&b);
		return rc;
	}
	sd_notify(0, "STATUS=first round");
	while (!stop) {
		struct bb_error err = BB_ERROR_INIT;
		struct sync_stats st;
		struct inbound_stats in;
		struct timespec wait;
		long long pause = interval;
		int sig;

		if (bridge_round(&b, &st, &in, &err)) {
			enum bb_retry r = status_retry_class(err.code);

			log_event(LOG_LEVEL_WARN, "daemon.round_failed", LF_STR("error", err.message),
				  LF_STR("retry", retry_str(r)));
			sd_notifyf(0, "STATUS=last round failed (%s), retrying", err.message);
			if (r == BB_RETRY_GIVE_UP && err.code != BB_ERR_AUTH) {
				rc = cli_fail(&err);
				break;
			}
			backoff = backoff ? backoff * 2 : ctx->cfg->retry_min;
			if (backoff > ctx->cfg->retry_max)
				backoff = ctx->cfg->retry_max;
			pause = backoff;
			if (err.retry_after > time(NULL))
				pause = (long long)(err.retry_after - time(NULL));
		} else {
			backoff = 0;
			/* an idle round says nothing at the default level: its
			 * sync.round line is at debug, and so is no summary here */
			if (round_had_news(&st, &in)) {
				report_round(ctx, &st, 0);
				report_inbound(ctx, &b, &in);
			}
			sd_notifyf(0, "STATUS=last round: %lu bugs changed, %lu mails queued, %lu sent, "
				   "%lu deferred; %lu list mails read",
				   st.bugs_seen, st.mails_queued, st.delivery.sent, st.delivery.deferred,
				   in.mails);
		}
		wait.tv_sec = (time_t)pause;
		wait.tv_nsec = 0;
		while ((sig = sigtimedwait(&sigs, NULL, &wait)) == SIGHUP)
			daemon_reload(ctx, &b, fixed_interval ? NULL : &interval);
		if (sig == SIGTERM || sig == SIGINT) {
			log_event(LOG_LEVEL_INFO, "daemon.stop", LF_INT("signal", sig));
			sd_notify(0, "STOPPING=1");
			stop = 1;
		}
	}
	cli_reload_forget(ctx);
	cli_bridge_close(&b);
	return rc;
}
