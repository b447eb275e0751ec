/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Exporting an imported Bugzilla instance (the imp_* tables, filled by
 * bugbridge import) for the move off Bugzilla:
 *
 *   mbox       each public bug as one mail thread, one mboxrd file per bug
 *              (<dir>/bug-<id>.mbox), ready for public-inbox-mda or any
 *              other importer.  The mails are composed by
 *              mail_compose_comment() exactly as the bridge composes them
 *              (same Message-IDs bug-<id>@<domain> and bug-<id>-c<count>@,
 *              same In-Reply-To/References, same body), so a bug mirrored
 *              by bugbridge sync and the same bug exported are the same
 *              mails and an archive stores them once.
 *   redirects  every old Bugzilla URL (show_bug.cgi?id=N,
 *              attachment.cgi?id=M) mapped to its new home (the thread in
 *              the archive, the blob URL), as an nginx map and as CSV.
 *   json       everything, versioned ({"version": 1, "bugs": [...]}).
 *
 * Privacy: a bug restricted to groups, a private comment and a private
 * attachment are never in the mbox or the redirects, and are in the JSON
 * only when include_private is set (for admins).  Bugs whose import is not
 * complete (imp_bug.complete = 0) are left out of the mbox and redirects,
 * so a thread is never archived half-composed.
 *
 * Everything streams: one bug at a time is read from SQLite, so memory
 * does not grow with the number of bugs.  Files are written to a temporary
 * name in the same folder, fsynced and renamed into place.
 *
 * No function here prints; errors are reported through err.
 */
#ifndef BB_EXPORT_H
#define BB_EXPORT_H

#include <stdio.h>

#include "attachments/blob.h"
#include "core/status.h"
#include "core/store.h"
#include "mail/mail.h"

#define EXPORT_JSON_VERSION 1
/* Thread links when no [archive] link_url or url is configured. */
#define EXPORT_DEFAULT_ARCHIVE "https://lore.kernel.org/r"

struct export_options {
	struct mail_options mail;   /* as the bridge has it (domain, from, subject, ...);
				     * mail.bug_url_base NULL or "": the bug's import source */
	char *const *to;            /* NULL-terminated recipients of the mbox mails (the list) */
	char *const *cc;            /* NULL-terminated, may be NULL */
	unsigned long long inline_limit; /* quote text attachments up to this size ([mail]) */
	const char *archive_url;    /* links to threads: <archive_url>/<Message-ID>/;
				     * NULL: EXPORT_DEFAULT_ARCHIVE */
	char *const *prefixes;      /* redirects: path prefixes of the old Bugzilla
				     * ("" and "/bugzilla"); NULL: those two */
	long long only_bug;         /* 0: every bug; else only this one */
	int include_private;        /* json only: restricted bugs, private comments
				     * and attachments too, marked as such */
};

struct export_stats {
	long long bugs;             /* exported */
	long long mails;            /* mbox: mails written */
	long long restricted;       /* bugs left out: restricted to groups */
	long long incomplete;       /* bugs left out: import not complete */
	long long private_comments; /* comments left out */
	long long private_attachments;
	long long attachments;      /* attachments linked (with a blob) */
	long long redirects;        /* redirects: old URLs mapped */
};

/* Writes <dir>/bug-<id>.mbox for every public, complete bug (or only
 * opt->only_bug) and removes a stale file of a bug that is restricted now.
 * dir is created if missing.  BB_ERR_NOT_FOUND when only_bug is set and
 * not exported (unknown, restricted or incomplete); BB_ERR_CONFIG without
 * recipients or a usable domain. */
enum bb_status export_mbox(struct store *db, struct blob_store *bs,
			   const struct export_options *opt, const char *dir,
			   struct export_stats *stats, struct bb_error *err);

/* Writes the redirect map to nginx_path and the CSV to csv_path (either may
 * be NULL).  The nginx file holds one map block keyed on "$uri?id=$arg_id",
 * which matches the old URLs whatever the order of their parameters; the
 * CSV has the header line "old_url,new_url,kind,bug_id,attachment_id". */
enum bb_status export_redirects(struct store *db, struct blob_store *bs,
				const struct export_options *opt, const char *nginx_path,
				const char *csv_path, struct export_stats *stats,
				struct bb_error *err);

/* Streams the JSON document to out (not closed).  BB_ERR_IO on a write
 * error. */
enum bb_status export_json(struct store *db, struct blob_store *bs,
			   const struct export_options *opt, FILE *out,
			   struct export_stats *stats, struct bb_error *err);

/* The link to a thread: <archive_url>/<message_id>/ with the Message-ID
 * percent-encoded where needed.  malloc'd; NULL when out of memory. */
char *export_thread_url(const struct export_options *opt, const char *message_id);

/* A file written atomically: export_file_open() creates a temporary file
 * next to path; export_file_commit() flushes, fsyncs and renames it into
 * place; export_file_abort() removes it.  Both release ef. */
struct export_file {
	char *path;
	char *tmp;
	FILE *f;
};
enum bb_status export_file_open(struct export_file *ef, const char *path, struct bb_error *err);
enum bb_status export_file_commit(struct export_file *ef, struct bb_error *err);
void export_file_abort(struct export_file *ef);

#endif
