/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bug fields of a Bugzilla (bz_fields.h): GET /rest/field/bug decoded,
 * kept by the client, and the checks built on it.
 *
 * An answer is {"fields": [{"id", "name", "display_name", "type",
 * "is_custom", "values": [{"name", "sort_key", "is_open", "can_change_to":
 * [{"name", "comment_required"}]}], ...}]} (Bugzilla 5.2, fixture
 * 026-fields-all).  bug_status's first value has a null name: the
 * statuses a new bug may start in.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json-c/json.h>

#include "bugzilla/bz_fields.h"
#include "bugzilla/bz_json.h"
#include "bugzilla/bz_transport.h"
#include "core/buf.h"
#include "core/log.h"

#define BZ_FIELDS_MAX_AGE 86400   /* a daemon asks again after a day */

/* REST bug object names -> Bugzilla field names. */
static const struct {
	const char *rest, *field;
} aliases[] = {
	{ "id", "bug_id" }, { "summary", "short_desc" }, { "status", "bug_status" },
	{ "severity", "bug_severity" }, { "platform", "rep_platform" },
	{ "url", "bug_file_loc" }, { "whiteboard", "status_whiteboard" },
	{ "creator", "reporter" }, { "creation_time", "creation_ts" },
	{ "last_change_time", "delta_ts" }, { "depends_on", "dependson" },
	{ "blocks", "blocked" }, { "dupe_of", "dup_id" }, { "groups", "bug_group" },
	{ "flags", "flagtypes.name" }, { "is_confirmed", "everconfirmed" },
	{ "comments", "longdesc" }, { "tags", "tag" },
};

static void strv_release(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

static void field_info_release(struct bz_field_info *fi)
{
	for (size_t k = 0; k < fi->nvalues; k++) {
		free(fi->values[k].name);
		strv_release(fi->values[k].can_change_to);
	}
	free(fi->values);
	free(fi->name);
	free(fi->display_name);
	memset(fi, 0, sizeof(*fi));
}

void bz_fields_free(struct bz_fields *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		field_info_release(&f->fields[i]);
	free(f->fields);
	free(f);
}

/* A string member as valid UTF-8 (malloc'd), NULL when absent or not a
 * string; *nomem set when out of memory. */
static char *jstr(json_object *v, int *nomem)
{
	char *s;

	if (!v || !json_object_is_type(v, json_type_string))
		return NULL;
	s = bz_text_repair(json_object_get_string(v), (size_t)json_object_get_string_len(v));
	if (!s)
		*nomem = 1;
	return s;
}

static int jbool(json_object *v, int dflt)
{
	if (!v || json_object_is_type(v, json_type_null))
		return dflt;
	if (json_object_is_type(v, json_type_boolean) || json_object_is_type(v, json_type_int))
		return json_object_get_int(v) != 0;
	if (json_object_is_type(v, json_type_string))
		return !strcmp(json_object_get_string(v), "1") ||
		       !strcasecmp(json_object_get_string(v), "true");
	return dflt;
}

static enum bb_status value_from_json(json_object *o, int is_status, struct bz_field_value *v)
{
	json_object *to = bz_jget(o, "can_change_to");
	size_t n, k = 0;
	int nomem = 0;

	memset(v, 0, sizeof(*v));
	v->name = jstr(bz_jget(o, "name"), &nomem);
	v->is_open = is_status ? jbool(bz_jget(o, "is_open"), 1) : -1;
	if (nomem)
		return BB_ERR_NOMEM;
	if (!is_status)
		return BB_OK;
	n = to && json_object_is_type(to, json_type_array) ? json_object_array_length(to) : 0;
	v->can_change_to = calloc(n + 1, sizeof(char *));
	if (!v->can_change_to)
		return BB_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(to, i);
		char *name = jstr(json_object_is_type(t, json_type_object) ? bz_jget(t, "name") : t,
				  &nomem);

		if (nomem)
			return BB_ERR_NOMEM;
		if (name)
			v->can_change_to[k++] = name;
	}
	return BB_OK;
}

static enum bb_status field_from_json(json_object *o, struct bz_field_info *fi)
{
	json_object *values = bz_jget(o, "values");
	size_t n;
	int nomem = 0, is_status;
	enum bb_status st;

	memset(fi, 0, sizeof(*fi));
	if (!json_object_is_type(o, json_type_object))
		return BB_ERR_INVALID;
	fi->name = jstr(bz_jget(o, "name"), &nomem);
	if (nomem)
		return BB_ERR_NOMEM;
	if (!fi->name || !fi->name[0])
		return BB_ERR_INVALID;
	fi->display_name = jstr(bz_jget(o, "display_name"), &nomem);
	if (!fi->display_name && !nomem && !(fi->display_name = strdup("")))
		nomem = 1;
	if (nomem)
		return BB_ERR_NOMEM;
	fi->type = (int)bz_jnum(bz_jget(o, "type"));
	fi->is_custom = jbool(bz_jget(o, "is_custom"), !strncmp(fi->name, "cf_", 3));
	is_status = !strcmp(fi->name, "bug_status");
	n = values && json_object_is_type(values, json_type_array) ? json_object_array_length(values)
								     : 0;
	if (!n)
		return BB_OK;
	fi->values = calloc(n, sizeof(*fi->values));
	if (!fi->values)
		return BB_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(values, i);

		if (!json_object_is_type(v, json_type_object))
			continue;
		st = value_from_json(v, is_status, &fi->values[fi->nvalues]);
		fi->nvalues++;   /* freed with the field even when half filled */
		if (st)
			return st;
		if (!fi->values[fi->nvalues - 1].name && !is_status) {
			fi->nvalues--;   /* a nameless value of another field: skip */
			free(fi->values[fi->nvalues].name);
		}
	}
	return BB_OK;
}

static enum bb_status fields_from_root(json_object *root, struct bz_fields **out,
				       struct bb_error *err)
{
	json_object *list = bz_jget(root, "fields");
	struct bz_fields *f;
	size_t n;
	enum bb_status st = BB_OK;

	*out = NULL;
	if (!list || !json_object_is_type(list, json_type_array))
		return bb_error_set(err, BB_ERR_PROTOCOL, "answer has no \"fields\" list");
	n = json_object_array_length(list);
	f = calloc(1, sizeof(*f));
	if (!f || (n && !(f->fields = calloc(n, sizeof(*f->fields))))) {
		free(f);
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		st = field_from_json(json_object_array_get_idx(list, i), &f->fields[f->n]);
		f->n++;
		if (st == BB_ERR_INVALID) {
			/* skipped: free what it holds and reuse the slot */
			field_info_release(&f->fields[--f->n]);
			st = BB_OK;
			continue;
		}
		if (st)
			break;
	}
	if (st) {
		bz_fields_free(f);
		return bb_error_set(err, st, "out of memory");
	}
	*out = f;
	return BB_OK;
}

enum bb_status bz_parse_fields(const char *json, size_t len, struct bz_fields **out,
			       struct bb_error *err)
{
	json_object *root = NULL;
	enum bb_status st;

	*out = NULL;
	st = bz_json_parse_object(json, len, &root, err);
	if (!st)
		st = bz_fold_error_object(NULL, NULL, root, 0, err);
	if (!st)
		st = fields_from_root(root, out, err);
	json_object_put(root);
	return st;
}

enum bb_status bz_fields_get(struct bz_client *c, const struct bz_fields **fields,
			     struct bb_error *err)
{
	struct bz_fields **cache = bz_client_fields_cache(c);
	json_object *root = NULL;
	struct bz_fields *f = NULL;
	time_t now = time(NULL);
	enum bb_status st;

	*fields = NULL;
	if (*cache && now - (*cache)->fetched < BZ_FIELDS_MAX_AGE && now >= (*cache)->fetched) {
		*fields = *cache;
		return BB_OK;
	}
	st = bz_get_meta_json(c, "/rest/field/bug", &root, err);
	if (!st)
		st = fields_from_root(root, &f, err);
	json_object_put(root);
	if (st) {
		if (*cache) {
			/* keep the old copy for another day rather than ask again */
			(*cache)->fetched = now;
			*fields = *cache;
		}
		return st;
	}
	f->fetched = now;
	bz_fields_free(*cache);
	*cache = f;
	*fields = f;
	log_event(LOG_LEVEL_DEBUG, "bz.fields", LF_UINT("fields", f->n));
	return BB_OK;
}

const struct bz_field_info *bz_fields_find(const struct bz_fields *f, const char *name)
{
	if (!f || !name)
		return NULL;
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	for (size_t a = 0; a < sizeof(aliases) / sizeof(aliases[0]); a++)
		if (!strcmp(aliases[a].rest, name))
			return bz_fields_find(f, aliases[a].field);
	return NULL;
}

const struct bz_field_value *bz_field_value_find(const struct bz_field_info *fi,
						 const char *value)
{
	if (!fi || !value)
		return NULL;
	for (size_t i = 0; i < fi->nvalues; i++)
		if (fi->values[i].name && !strcmp(fi->values[i].name, value))
			return &fi->values[i];
	for (size_t i = 0; i < fi->nvalues; i++)
		if (fi->values[i].name && !strcasecmp(fi->values[i].name, value))
			return &fi->values[i];
	return NULL;
}

int bz_fields_status_can_change(const struct bz_fields *f, const char *from, const char *to)
{
	const struct bz_field_info *fi = bz_fields_find(f, "bug_status");
	const struct bz_field_value *v = NULL;

	if (!fi || !to)
		return -1;
	if (from) {
		v = bz_field_value_find(fi, from);
	} else {
		for (size_t i = 0; i < fi->nvalues && !v; i++)
			if (!fi->values[i].name)
				v = &fi->values[i];
	}
	if (!v || !v->can_change_to)
		return -1;
	for (char **p = v->can_change_to; *p; p++)
		if (!strcasecmp(*p, to))
			return 1;
	return 0;
}

int bz_fields_legal_value(const struct bz_fields *f, const char *field, const char *value,
			  const char **canon)
{
	const struct bz_field_info *fi = bz_fields_find(f, field);
	const struct bz_field_value *v;
	size_t named = 0;

	if (canon)
		*canon = NULL;
	for (size_t i = 0; fi && i < fi->nvalues; i++)
		named += fi->values[i].name != NULL;
	if (!named || !value)
		return -1;
	if (!(v = bz_field_value_find(fi, value)))
		return 0;
	if (canon)
		*canon = v->name;
	return 1;
}

char *bz_field_values_text(const struct bz_field_info *fi)
{
	size_t len = 1;
	char *out, *p;

	for (size_t i = 0; fi && i < fi->nvalues; i++)
		if (fi->values[i].name && fi->values[i].name[0])
			len += strlen(fi->values[i].name) + 2;
	if (!(out = malloc(len)))
		return NULL;
	p = out;
	*p = '\0';
	for (size_t i = 0; fi && i < fi->nvalues; i++) {
		const char *name = fi->values[i].name;
		size_t n;

		if (!name || !name[0])
			continue;
		if (p != out) {
			memcpy(p, ", ", 2);
			p += 2;
		}
		n = strlen(name);
		memcpy(p, name, n + 1);
		p += n;
	}
	return out;
}

/* The first open status, UNCONFIRMED last; with from, only those it may
 * go to. */
static const char *first_open(const struct bz_field_info *fi, const struct bz_field_value *from)
{
	const char *unconfirmed = NULL;

	for (size_t i = 0; i < fi->nvalues; i++) {
		const struct bz_field_value *v = &fi->values[i];
		int allowed = !from;

		if (!v->name || v->is_open != 1 || v == from)
			continue;
		for (char **p = from ? from->can_change_to : NULL; p && *p && !allowed; p++)
			allowed = !strcasecmp(*p, v->name);
		if (!allowed)
			continue;
		if (strcasecmp(v->name, "UNCONFIRMED"))
			return v->name;
		if (!unconfirmed)
			unconfirmed = v->name;
	}
	return unconfirmed;
}

const char *bz_fields_reopen_status(const struct bz_fields *f, const char *from)
{
	const struct bz_field_info *fi = bz_fields_find(f, "bug_status");
	const struct bz_field_value *cur = from ? bz_field_value_find(fi, from) : NULL;
	const char *to = NULL;

	if (!fi)
		return NULL;
	if (cur && cur->can_change_to)
		to = first_open(fi, cur);
	return to ? to : first_open(fi, NULL);
}

enum bb_status bz_fields_check(struct bz_client *c, const struct bz_field_want *want, size_t n,
			       size_t *missing, struct bb_error *err)
{
	const struct bz_fields *f = NULL;
	enum bb_status st;
	size_t count = 0;

	if (missing)
		*missing = 0;
	st = bz_fields_get(c, &f, err);
	if (!f)
		return st;
	for (size_t i = 0; i < n; i++) {
		if (!want[i].field || !want[i].field[0])
			continue;
		/* the same field named twice is warned about once */
		int seen = 0;

		for (size_t k = 0; k < i && !seen; k++)
			seen = want[k].field && !strcmp(want[k].field, want[i].field) &&
			       !bz_fields_find(f, want[k].field);
		if (bz_fields_find(f, want[i].field))
			continue;
		count++;
		if (!seen)
			log_event(LOG_LEVEL_WARN, "bz.field.missing", LF_STR("key", want[i].key),
				  LF_STR("field", want[i].field),
				  LF_STR("reason", "the Bugzilla has no such field: bugs will"
					 " not carry it"));
	}
	if (missing)
		*missing = count;
	bb_error_clear(err);
	return BB_OK;
}

/* ---- the gate ------------------------------------------------------------ */

static int flag_matches(const char *name, const char *status, const char *want)
{
	size_t wlen = strlen(want), nlen = strlen(name);

	while (wlen && (want[wlen - 1] == ' ' || want[wlen - 1] == '\t'))
		wlen--;
	while (*want == ' ' || *want == '\t') {
		want++;
		wlen--;
	}
	if (!wlen)
		return 0;
	if (want[wlen - 1] == '+' || want[wlen - 1] == '-' || want[wlen - 1] == '?')
		return nlen == wlen - 1 && !strncasecmp(name, want, nlen) && status &&
		       status[0] == want[wlen - 1];
	return nlen == wlen && !strncasecmp(name, want, nlen) && status &&
	       (status[0] == '+' || status[0] == '?');
}

int bz_bug_in_gate(const struct bz_bug *bug, const char *keyword, char *const *flags)
{
	json_object *list = NULL;
	int want_keyword = keyword && keyword[0], want_flags = flags && flags[0], hit = 0;

	if (!want_keyword && !want_flags)
		return 1;
	if (want_keyword)
		for (char **k = bug->keywords; k && *k && !hit; k++)
			hit = !strcasecmp(*k, keyword);
	if (hit || !want_flags || !bug->flags)
		return hit;
	list = json_tokener_parse(bug->flags);
	for (size_t i = 0; list && json_object_is_type(list, json_type_array) &&
			   i < json_object_array_length(list) && !hit; i++) {
		json_object *f = json_object_array_get_idx(list, i);
		const char *name = json_object_get_string(bz_jget(f, "name"));
		const char *status = json_object_get_string(bz_jget(f, "status"));

		for (char *const *w = flags; *w && !hit && name; w++)
			hit = flag_matches(name, status, *w);
	}
	json_object_put(list);
	return hit;
}

enum bb_status bz_flag_type_find(struct bz_client *c, const char *product, const char *component,
				 const char *name, int *requesteeble, int *found,
				 struct bb_error *err)
{
	char *p = bz_client_escape(c, product ? product : "");
	char *k = bz_client_escape(c, component ? component : "");
	char *path = p && k ? str_printf("/rest/flag_type/%s/%s", p, k) : NULL;
	json_object *root = NULL, *list;
	enum bb_status st;

	*found = 0;
	if (requesteeble)
		*requesteeble = 0;
	curl_free(p);
	curl_free(k);
	if (!path)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	st = bz_get_meta_json(c, path, &root, err);
	free(path);
	list = st ? NULL : bz_jget(root, "bug");
	for (size_t i = 0; list && json_object_is_type(list, json_type_array) &&
			   i < json_object_array_length(list); i++) {
		json_object *t = json_object_array_get_idx(list, i), *v;

		if (!(v = bz_jget(t, "name")) || !json_object_is_type(v, json_type_string) ||
		    strcasecmp(json_object_get_string(v), name) ||
		    ((v = bz_jget(t, "is_active")) && !json_object_get_boolean(v)) ||
		    ((v = bz_jget(t, "is_requestable")) && !json_object_get_boolean(v)))
			continue;
		*found = 1;
		if (requesteeble)
			*requesteeble = (v = bz_jget(t, "is_requesteeble")) && json_object_get_boolean(v);
		break;
	}
	json_object_put(root);
	return st;
}

/* The names of the active entries of a product's list (components,
 * versions) into *names (NULL-terminated, malloc'd); an empty list when
 * arr is no array. */
static enum bb_status active_names(json_object *arr, char ***names, struct bb_error *err)
{
	size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr)
								     : 0, k = 0;

	if (!(*names = calloc(n + 1, sizeof(**names))))
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i), *v;

		if ((v = bz_jget(e, "is_active")) && !json_object_get_boolean(v))
			continue;
		if (!(v = bz_jget(e, "name")) || !json_object_is_type(v, json_type_string))
			continue;
		if (!((*names)[k++] = strdup(json_object_get_string(v))))
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	return BB_OK;
}

void bz_names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

void bz_product_names_release(struct bz_product_names *p)
{
	bz_names_free(p->components);
	bz_names_free(p->versions);
	bz_names_free(p->milestones);
	free(p->default_milestone);
	memset(p, 0, sizeof(*p));
}

enum bb_status bz_product_names(struct bz_client *c, const char *product,
				struct bz_product_names *out, struct bb_error *err)
{
	char *p = bz_client_escape(c, product ? product : "");
	char *path = p ? str_printf("/rest/product/%s", p) : NULL;
	json_object *root = NULL, *list, *one, *v;
	enum bb_status st;

	memset(out, 0, sizeof(*out));
	curl_free(p);
	if (!path)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	st = bz_get_meta_json(c, path, &root, err);
	free(path);
	list = st ? NULL : bz_jget(root, "products");
	if (list && json_object_is_type(list, json_type_array) && json_object_array_length(list)) {
		one = json_object_array_get_idx(list, 0);
		v = bz_jget(one, "default_milestone");
		if (!(st = active_names(bz_jget(one, "components"), &out->components, err)) &&
		    !(st = active_names(bz_jget(one, "versions"), &out->versions, err)) &&
		    !(st = active_names(bz_jget(one, "milestones"), &out->milestones, err)) &&
		    !(out->default_milestone = strdup(v && json_object_is_type(v, json_type_string)
						      ? json_object_get_string(v) : "")))
			st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		if (st)
			bz_product_names_release(out);
	}
	json_object_put(root);
	return st;
}

enum bb_status bz_product_components(struct bz_client *c, const char *product,
				     char ***components, char ***versions, struct bb_error *err)
{
	struct bz_product_names names;
	enum bb_status st = bz_product_names(c, product, &names, err);

	*components = names.components;
	if (versions)
		*versions = names.versions;
	else
		bz_names_free(names.versions);
	names.components = names.versions = NULL;
	bz_product_names_release(&names);
	return st;
}
