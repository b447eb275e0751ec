/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Folder bugzilla/: the Bugzilla driver: the bug model (this header), the REST
 * client (json-c), the XML export reader (libxml2).  It may use
 * attachments/, config/ and core/.
 *
 * The Bugzilla data bugbridge works with, as read from REST or from an XML
 * export (bugzilla/bz_client.h, bugzilla/bz_xml.h).
 *
 * Every string is malloc'd, UTF-8 (invalid sequences repaired with U+FFFD
 * by the reader), never NULL ("" when absent).  bz_bug_free() frees a bug
 * with its comments, attachments and fields.
 */
#ifndef BB_BUG_H
#define BB_BUG_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct bz_user {
	char *login;             /* the account name, usually an address */
	char *real_name;         /* "" if unknown */
};

struct bz_comment {
	long long id;            /* unique on the server */
	long long bug_id;
	int count;               /* 0 is the description, then 1, 2, ... */
	struct bz_user author;
	time_t time;
	char *text;
	int is_private;
	long long attachment_id; /* the attachment this comment announces, 0 if none */
};

struct bz_attachment {
	long long id;
	long long bug_id;
	char *file_name;
	char *summary;
	char *content_type;      /* as Bugzilla has it (the uploader's claim) */
	struct bz_user creator;
	time_t creation_time;
	uint64_t size;
	int is_private, is_obsolete, is_patch;
};

/* A field bugbridge does not model itself (custom fields such as
 * cf_subsystem, cf_regression, cf_bisect_commit). */
struct bz_field {
	char *name;
	char *value;             /* lists are joined with ", " */
};

struct bz_bug {
	long long id;
	char *summary;
	char *product, *component;
	char *status, *resolution;
	char *severity, *priority;
	char *version;
	char *url;               /* the bug's own URL field */
	struct bz_user creator;  /* the reporter */
	struct bz_user assigned_to;
	time_t creation_time, last_change_time;
	char **keywords;         /* NULL-terminated, never NULL */
	char **groups;           /* non-empty: restricted, never mailed */
	char **cc;               /* logins */
	long long dupe_of;       /* 0 if not a duplicate */
	/* the structure a migration keeps (bugbridge import) */
	char **alias;            /* NULL-terminated, never NULL (5.x: a list) */
	struct bz_user qa_contact;   /* login "" when there is none */
	char *target_milestone;
	char *op_sys;
	char *platform;          /* REST platform, XML rep_platform */
	long long *depends_on;   /* bug ids, ascending, no repeats; */
	size_t ndepends_on;      /* NULL when none */
	long long *blocks;
	size_t nblocks;
	struct bz_field *fields;
	size_t nfields;
	char *flags;             /* JSON array [{name, status, setter, requestee}],
				  * NULL when the reader was not asked for them */
	struct bz_comment *comments;   /* ordered by count */
	size_t ncomments;
	struct bz_attachment *attachments;
	size_t nattachments;
};

/* Whether a bug is public: the one rule the sync, the inbound side, the
 * import and the front door share.  A bug in any group is restricted: its
 * comments are never mailed, its list replies never posted, it is never
 * listed, and its attachments are never in the served blob store.
 *
 * bz_bug_is_public() judges a bug as read from Bugzilla (REST or XML);
 * bz_bug_row_is_public() a mirrored bug as the store keeps it (bz_bug's
 * mirrored and restricted columns); BZ_BUG_PUBLIC_SQL is the same test
 * for a query's WHERE on bz_bug, and BZ_BUG_PUBLIC_SQL_AS("b.") for one
 * that names the table.  They must agree: change them together. */
int bz_bug_is_public(const struct bz_bug *bug);
int bz_bug_row_is_public(int mirrored, int restricted);
#define BZ_BUG_PUBLIC_SQL_AS(prefix) "(" prefix "mirrored = 1 AND " prefix "restricted = 0)"
#define BZ_BUG_PUBLIC_SQL BZ_BUG_PUBLIC_SQL_AS("")
/* The same for an imported bug (imp_bug): column is its JSON list of groups. */
#define BZ_GROUPS_PUBLIC_SQL(column) "(json_array_length(" column ") = 0)"
/* An imported bug (imp_bug, its columns under prefix) is public when it
 * is in no group and the sync has not seen it restricted since. */
#define BZ_IMP_BUG_PUBLIC_SQL_AS(prefix)                                              \
	"(" BZ_GROUPS_PUBLIC_SQL(prefix "groups") " AND NOT EXISTS (SELECT 1 FROM bz_bug" \
	" bz_public_w WHERE bz_public_w.id = " prefix "id AND bz_public_w.restricted <> 0))"

void bz_bug_free(struct bz_bug *bug);
void bz_bug_release(struct bz_bug *bug);   /* frees the contents, not bug */
/* Appends id to a list of bug ids (depends_on, blocks) unless it is not a
 * bug id (<= 0).  -1 when out of memory (the list stays as it was), else
 * 0.  bz_bug_ids_tidy() then sorts the list and drops repeats. */
int bz_bug_ids_add(long long **ids, size_t *n, long long id);
void bz_bug_ids_tidy(long long *ids, size_t *n);
/* A custom field's value, or NULL. */
const char *bz_bug_field(const struct bz_bug *bug, const char *name);
/* Parses Bugzilla's "2026-12-03T08:01:55Z", and what XML exports write:
 * "2026-12-03 08:01:55 +0000", "2008-10-08 14:11 EDT" (seconds optional,
 * numeric offsets or common zone abbreviations in any case, no zone
 * meaning UTC).  The date and time are read by GLib's ISO 8601 reader
 * (g_date_time_new_from_iso8601()); a zone word after them through one
 * table of abbreviations (bug.c says which zone an ambiguous one means).
 * Returns (time_t)-1 if it cannot. */
time_t bz_parse_time(const char *text);
/* bz_parse_time() with flags: BZ_TIME_UNKNOWN_ZONE_UTC reads a zone word
 * that is not in the table, and anything after it, as UTC (old exports
 * name their server's zone as its operating system did). */
#define BZ_TIME_UNKNOWN_ZONE_UTC 1u
time_t bz_parse_time_as(const char *text, unsigned flags);
/* Length of the well-formed UTF-8 sequence at s (n bytes available), as
 * GLib's validator sees it; 0 if there is none (bad lead byte, overlong
 * form, surrogate, beyond U+10FFFF, cut short). */
size_t bz_utf8_sequence(const unsigned char *s, size_t n);
/* Formats t as "2026-12-03T08:01:55Z" into out (at least 21 bytes). */
void bz_format_time(time_t t, char *out, size_t len);

#endif
