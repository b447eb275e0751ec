/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bug fields a Bugzilla has (GET /rest/field/bug): their names, the
 * legal values of select fields, and the status workflow.
 *
 * The client asks once per process (and again when its copy is a day old)
 * and keeps the answer: bz_fields_get().  Field names are Bugzilla's own
 * ("bug_status", "rep_platform", "cf_regression"); bz_fields_find() also
 * takes the names bug objects use in REST ("status", "platform", "severity",
 * "summary", "url", ...).
 */
#ifndef BB_BZ_FIELDS_H
#define BB_BZ_FIELDS_H

#include <stddef.h>
#include <time.h>

#include "bugzilla/bug.h"
#include "core/status.h"

struct bz_client;

/* Bugzilla's field types (Bugzilla::Constants FIELD_TYPE_*). */
enum bz_field_type {
	BZ_FIELD_UNKNOWN = 0,     /* standard fields of no particular type */
	BZ_FIELD_FREETEXT = 1,
	BZ_FIELD_SINGLE_SELECT = 2,
	BZ_FIELD_MULTI_SELECT = 3,
	BZ_FIELD_TEXTAREA = 4,
	BZ_FIELD_DATETIME = 5,
	BZ_FIELD_BUG_ID = 6,
	BZ_FIELD_BUG_URLS = 7,
	BZ_FIELD_KEYWORDS = 8,
	BZ_FIELD_DATE = 9,
	BZ_FIELD_INTEGER = 10,
};

struct bz_field_value {
	char *name;               /* NULL only for bug_status's "new bug" entry,
				   * whose can_change_to are the initial statuses */
	int is_open;              /* bug_status: 1 open, 0 closed; -1 elsewhere */
	char **can_change_to;     /* bug_status: NULL-terminated (never NULL for
				   * it); NULL for other fields */
};

struct bz_field_info {
	char *name;               /* "bug_status", "cf_regression" */
	char *display_name;       /* "Status"; "" when not told */
	int type;                 /* enum bz_field_type, or what the server said */
	int is_custom;
	struct bz_field_value *values;  /* select fields; in the server's order */
	size_t nvalues;
};

struct bz_fields {
	struct bz_field_info *fields;
	size_t n;
	time_t fetched;           /* when the client asked (0: parsed from text) */
};

/* The server's fields, asked at most once per process and day (the copy
 * is the client's: valid until the client is freed or asks again; do not
 * free it).  Not counted in bz_client_requests(). */
enum bb_status bz_fields_get(struct bz_client *c, const struct bz_fields **fields,
			     struct bb_error *err);

/* The field named name (Bugzilla's name or the REST bug object's), or
 * NULL. */
const struct bz_field_info *bz_fields_find(const struct bz_fields *f, const char *name);
/* The value of a select field (exact, then case-insensitive), or NULL. */
const struct bz_field_value *bz_field_value_find(const struct bz_field_info *fi,
						 const char *value);
/* Whether the workflow lets a bug go from status from (NULL: a new bug)
 * to status to: 1 yes, 0 no, -1 the server did not tell (no bug_status or
 * no such status). */
int bz_fields_status_can_change(const struct bz_fields *f, const char *from, const char *to);

/* Whether value is a legal value of field (Bugzilla's name or the REST
 * one): 1 yes, *canon (may be NULL) then the server's spelling of it
 * (matched exactly, then in any case: "high" -> "High"); 0 no; -1 the
 * server did not tell (no such field, or one without values). */
int bz_fields_legal_value(const struct bz_fields *f, const char *field, const char *value,
			  const char **canon);
/* The legal values of a select field in the server's order, ", "
 * between them ("Highest, High, Normal, Low, Lowest, ---"), without the
 * empty value and bug_status's new-bug entry; malloc'd, NULL when out of
 * memory.  "" for a field without values. */
char *bz_field_values_text(const struct bz_field_info *fi);
/* The status "#bugbridge reopen" sets on a bug in status from, when no
 * status is configured: the first open status (in the server's order)
 * other than UNCONFIRMED that the workflow lets from go to, else
 * UNCONFIRMED if it may; when the workflow says nothing of from (from
 * NULL or unknown) or lets it go to no open status, the first open status
 * other than UNCONFIRMED (else UNCONFIRMED).  NULL when the server told
 * of no open status: the caller's fallback (REOPENED). */
const char *bz_fields_reopen_status(const struct bz_fields *f, const char *from);

/* Whether the server has an active, requestable bug flag type called name
 * (any case) for bugs of product and component (GET
 * /rest/flag_type/<product>/<component>, Bugzilla 5.0's FlagType.get):
 * *found 1 or 0, and *requesteeble (may be NULL) whether it takes a
 * requestee.  A stock 5.2 has none.  Not counted in bz_client_requests(). */
enum bb_status bz_flag_type_find(struct bz_client *c, const char *product, const char *component,
				 const char *name, int *requesteeble, int *found,
				 struct bb_error *err);

/* The active components of product, in the server's order (GET
 * /rest/product/<name>), and (versions not NULL) its active versions:
 * NULL-terminated malloc'd lists (bz_names_free()), *components NULL when
 * the server has no such product (or none the account may see).  Not
 * counted in bz_client_requests(). */
enum bb_status bz_product_components(struct bz_client *c, const char *product,
				     char ***components, char ***versions, struct bb_error *err);
void bz_names_free(char **names);

/* A product's active components, versions and milestones (NULL-terminated,
 * in the server's order) and its default milestone ("" when the server
 * names none), from the same GET /rest/product/<name>: what a bug moved to
 * it may keep.  components NULL when there is no such product. */
struct bz_product_names {
	char **components, **versions, **milestones;
	char *default_milestone;
};
enum bb_status bz_product_names(struct bz_client *c, const char *product,
				struct bz_product_names *out, struct bb_error *err);
void bz_product_names_release(struct bz_product_names *p);

/* A configured field name and the key that names it, for the startup check. */
struct bz_field_want {
	const char *key;          /* "[tracker] bisect_field" */
	const char *field;        /* "cf_bisect_commit"; NULL or "": skipped */
};
/* Logs a warning (event bz.field.missing, with key and field) for each
 * wanted field the server does not have; *missing (may be NULL) gets
 * their number.  Fails only when the field list cannot be had. */
enum bb_status bz_fields_check(struct bz_client *c, const struct bz_field_want *want, size_t n,
			       size_t *missing, struct bb_error *err);

/* Parses a GET /rest/field/bug answer (for tests and fuzzing).
 * BB_ERR_PROTOCOL for a body that is not an object with a "fields" list;
 * entries without a name are skipped. */
enum bb_status bz_parse_fields(const char *json, size_t len, struct bz_fields **out,
			       struct bb_error *err);
void bz_fields_free(struct bz_fields *f);

/* The gate of the mirror: whether the bug carries the keyword (any case)
 * or one of the flags, each "name" followed by its status ("bugbot+",
 * "review?"; a bare name matches + and ?), read from bug->flags.  Both
 * unset: every bug passes. */
int bz_bug_in_gate(const struct bz_bug *bug, const char *keyword, char *const *flags);

#endif
