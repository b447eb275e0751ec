/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The front door's pages about bugs (issue 38, item 4), apart from the
 * report form (web/frontdoor.c):
 *
 *   GET  /bugs?status=&component=&regression=yes|no&q=
 *                   imported (imp_bug) and mirrored (bz_bug) public bugs,
 *                   newest activity first, with their age and whether a
 *                   #bugbridge needinfo question waits on them (table
 *                   needinfo, bridge/needinfo.h); q searches summaries and
 *                   public comments
 *   GET  /bugs/<list>.atom
 *                   an Atom 1.0 feed of the public mirrored bugs whose
 *                   mails go to the list <list> (an address, as in
 *                   [route] lists; the lists of bz_bug.recipients), the
 *                   most recent activity first (at most 100): each
 *                   entry links the bug's page and its thread, its
 *                   summary says status, product/component, age and
 *                   needinfo state; 404 for a list no such bug went to.
 *                   The list page links each list's feed.
 *   GET  /bug/<id>  one bug: its fields, a link to its thread in the list
 *                   archive ([archive] link_url, else url: the thread's
 *                   root, the bug's report mail), its public attachments,
 *                   its triage block (the one the bridge made for its
 *                   report mail, tracker_triage_note()) and its public
 *                   comments: an imported bug's from the import, a
 *                   mirrored bug's as the bridge mailed them (the outbox;
 *                   a comment that is private now is not shown, nor a
 *                   mail that carried one); restricted bugs are not found
 *
 * Every text goes through frontdoor_escape(); the pages carry the front
 * door's headers (fd_queue()).  The caller holds no lock; the pages take
 * db_lock around their reads. */
#ifndef BB_WEB_BUGPAGES_H
#define BB_WEB_BUGPAGES_H

#include <pthread.h>
#include <time.h>

#include <microhttpd.h>

#include "attachments/blob.h"
#include "config/conf.h"
#include "core/buf.h"
#include "core/store.h"

/* What the front door lends the pages for one request. */
struct bugpages_env {
	const struct bb_config *cfg;
	struct store *db;                   /* the front door's request connection */
	pthread_mutex_t *db_lock;           /* guards db */
	struct blob_store *blobs;           /* attachment links */
	const char *base_url;               /* the front door's, no trailing slash */
};

/* The pages' dispatcher: path is "/bugs", "/bugs/<list>.atom" or
 * "/bug/<id>" (GET and HEAD). */
enum MHD_Result bugpages_handle(const struct bugpages_env *env, struct MHD_Connection *conn,
				const char *path, unsigned *status);

enum MHD_Result bugpages_list(const struct bugpages_env *env, struct MHD_Connection *conn,
			      unsigned *status);
/* id_text: the path after "/bug/" */
enum MHD_Result bugpages_bug(const struct bugpages_env *env, struct MHD_Connection *conn,
			     const char *id_text, unsigned *status);

/* An age as people say it: "today", "1 day", "12 days", "5 weeks",
 * "3 months", "2 years" (seconds; negative counts as 0); into out. */
void bugpages_age(char *out, size_t size, long long seconds);

/* The needinfo state of bug shown on the pages and by `bugbridge bugs`:
 * its latest question's, in words ("waiting since 2026-12-01",
 * "reminded 2026-12-15", "closed unanswered"), "" when none waits or
 * was left unanswered; into out.  The caller serializes db. */
void bugpages_needinfo(struct store *db, long long bug, char *out, size_t size);

/* Where the list archive ([archive] link_url, else url) shows bug's
 * thread: its root, the Message-ID of the description's mail, else the
 * bridge's report Message-ID (mail_message_id()); NULL without an
 * archive.  *root (when root is not NULL) gets that Message-ID; both
 * malloc'd.  The caller serializes db. */
char *bugpages_thread_link(const struct bb_config *cfg, struct store *db, long long id,
			   char **root);

#endif
