/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Routing (see route.h): which bugs are mirrored and who gets their mail.
 *
 * Everything that can be checked once is checked in router_new(): comma
 * lists are split, MAINTAINERS sections looked up and every recipient must
 * hold an address, so that a typo in the configuration stops the start and
 * does not silently drop mail later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge/route.h"
#include "bugzilla/bz_fields.h"
#include "core/buf.h"

struct router_rule {
	const struct config_route *conf;
	char **lists;                          /* the rule's own, split */
	char **people;
	const struct mnt_section *section;     /* NULL if the rule names none */
};

struct router {
	const struct bb_config *cfg;
	char **products, **components, **statuses;   /* empty: no filter */
	char **flags;                                /* [bugzilla] flag, "name+" */
	struct router_rule *rules;
	size_t nrules;
	char **default_lists, **default_people;
};

/* A growing NULL-terminated array of malloc'd strings. */
struct route_strv {
	char **v;
	size_t n, alloc;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static int span_equal_nocase(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen != blen)
		return 0;
	for (size_t i = 0; i < alen; i++)
		if (ascii_lower(a[i]) != ascii_lower(b[i]))
			return 0;
	return 1;
}

static void trim_span(const char **s, size_t *len)
{
	while (*len && is_space(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && is_space((*s)[*len - 1]))
		(*len)--;
}

/* a and b equal ignoring ASCII case and surrounding white space. */
static int text_equal_nocase(const char *a, const char *b)
{
	size_t alen = strlen(a), blen = strlen(b);

	trim_span(&a, &alen);
	trim_span(&b, &blen);
	return span_equal_nocase(a, alen, b, blen);
}

/* want equals value or one of the ", "-joined items of value. */
static int list_value_matches(const char *want, const char *value)
{
	size_t wlen = strlen(want);
	const char *p = value;

	trim_span(&want, &wlen);
	if (text_equal_nocase(want, value))
		return 1;
	while (*p) {
		const char *end = strchr(p, ','), *item = p;
		size_t len;

		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		trim_span(&item, &len);
		if (span_equal_nocase(item, len, want, wlen))
			return 1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int in_list_nocase(char *const *list, const char *s)
{
	for (; *list; list++)
		if (text_equal_nocase(*list, s))
			return 1;
	return 0;
}

int route_address_equal(const char *a, const char *b)
{
	size_t alen, blen;
	const char *x = mnt_address_span(a, &alen), *y = mnt_address_span(b, &blen);

	return span_equal_nocase(x, alen, y, blen);
}

int route_has_address(char *const *v, const char *entry)
{
	for (; v && *v; v++)
		if (route_address_equal(*v, entry))
			return 1;
	return 0;
}

static size_t strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

int route_cc_add(struct route_result *route, const char *entry)
{
	size_t n = strv_len(route->cc);
	char **cc, *copy = strdup(entry);

	if (!copy || !(cc = realloc(route->cc, (n + 2) * sizeof(*cc)))) {
		free(copy);
		return -1;
	}
	cc[n] = copy;
	cc[n + 1] = NULL;
	route->cc = cc;
	return 0;
}

/* Adds entry's bare address to out (k entries so far) unless it is there
 * or empty; 0, or -1 when out of memory. */
static int envelope_add(char **out, size_t *k, const char *entry)
{
	char *a;

	if (route_has_address(out, entry))
		return 0;
	if (!(a = mnt_address(entry)))
		return -1;
	if (*a)
		out[(*k)++] = a;
	else
		free(a);
	return 0;
}

char **route_envelope(const struct route_result *r, const char *extra)
{
	size_t n = strv_len(r->to) + strv_len(r->cc) + 1, k = 0;
	char **out = calloc(n + 1, sizeof(*out));
	int bad = !out;

	for (size_t i = 0; !bad && r->to && r->to[i]; i++)
		bad = envelope_add(out, &k, r->to[i]);
	for (size_t i = 0; !bad && r->cc && r->cc[i]; i++)
		bad = envelope_add(out, &k, r->cc[i]);
	if (!bad && extra)
		bad = envelope_add(out, &k, extra);
	if (bad) {
		route_envelope_free(out);
		return NULL;
	}
	return out;
}

void route_envelope_free(char **rcpt)
{
	for (size_t i = 0; rcpt && rcpt[i]; i++)
		free(rcpt[i]);
	free(rcpt);
}

static void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

/* Appends entry (its bare address if bare) unless its address is in sv
 * already or in except. */
static enum bb_status strv_add_unique(struct route_strv *sv, const char *entry, int bare,
				      char *const *except)
{
	size_t len;
	const char *addr = mnt_address_span(entry, &len);
	char *copy;

	if (!len || route_has_address(sv->v, entry) || route_has_address(except, entry))
		return BB_OK;
	if (sv->n + 1 >= sv->alloc) {
		size_t alloc = sv->alloc ? sv->alloc * 2 : 8;
		char **v = realloc(sv->v, alloc * sizeof(*v));

		if (!v)
			return BB_ERR_NOMEM;
		sv->v = v;
		sv->alloc = alloc;
	}
	if (bare) {
		copy = strndup(addr, len);
	} else {
		size_t elen = strlen(entry);

		trim_span(&entry, &elen);
		copy = strndup(entry, elen);
	}
	if (!copy)
		return BB_ERR_NOMEM;
	sv->v[sv->n++] = copy;
	sv->v[sv->n] = NULL;
	return BB_OK;
}

static enum bb_status strv_add_all(struct route_strv *sv, char *const *entries, int bare,
				   char *const *except)
{
	enum bb_status st = BB_OK;

	for (; entries && *entries && st == BB_OK; entries++)
		st = strv_add_unique(sv, *entries, bare, except);
	return st;
}

/* Ensures a NULL-terminated array even when nothing was added. */
static char **strv_finish(struct route_strv *sv)
{
	char **v = sv->v;

	if (!v)
		v = calloc(1, sizeof(*v));
	sv->v = NULL;
	sv->n = sv->alloc = 0;
	return v;
}

/* config_list() that tells running out of memory apart. */
static enum bb_status split_list(char ***out, const char *text, struct bb_error *err)
{
	*out = config_list(text, NULL);
	return *out ? BB_OK : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
}

/* The same for an address list (config_address_list()). */
static enum bb_status split_addresses(char ***out, const char *text, struct bb_error *err)
{
	*out = config_address_list(text, NULL);
	return *out ? BB_OK : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
}

/* Every item of list must hold an address. */
static enum bb_status check_addresses(char *const *list, const char *where, const char *key,
				      struct bb_error *err)
{
	for (; *list; list++) {
		size_t len;

		mnt_address_span(*list, &len);
		if (!len)
			return bb_error_set(err, BB_ERR_CONFIG,
					    "%s %s: \"%s\" holds no mail address", where, key, *list);
	}
	return BB_OK;
}

/* ASCII case-insensitive strstr, for suggestions. */
static int contains_nocase(const char *hay, const char *needle)
{
	size_t nlen = strlen(needle);

	trim_span(&needle, &nlen);
	if (!nlen)
		return 0;
	for (; *hay; hay++)
		if (span_equal_nocase(hay, strnlen(hay, nlen), needle, nlen))
			return 1;
	return 0;
}

static enum bb_status rule_init(struct router_rule *rule, const struct config_route *conf,
				const struct bb_config *cfg, const struct mnt_file *mf,
				struct bb_error *err)
{
	enum bb_status st;
	char where[300];

	snprintf(where, sizeof(where), "[route %s]", conf->name ? conf->name : "");
	rule->conf = conf;
	st = split_addresses(&rule->lists, conf->lists, err);
	if (st == BB_OK)
		st = split_addresses(&rule->people, conf->people, err);
	if (st == BB_OK)
		st = check_addresses(rule->lists, where, "lists", err);
	if (st == BB_OK)
		st = check_addresses(rule->people, where, "people", err);
	if (st != BB_OK)
		goto out;
	if (conf->subsystem && !cfg->bz_subsystem_field) {
		st = bb_error_set(err, BB_ERR_CONFIG,
				  "%s matches on subsystem \"%s\" but [bugzilla] subsystem_field "
				  "is not set, so no bug has a subsystem", where, conf->subsystem);
		goto out;
	}
	if (!conf->maintainers_section)
		goto out;
	if (!mf) {
		st = bb_error_set(err, BB_ERR_CONFIG,
				  "%s names MAINTAINERS section \"%s\" but no MAINTAINERS file is "
				  "loaded (set [routing] maintainers_file)", where,
				  conf->maintainers_section);
		goto out;
	}
	rule->section = mnt_find(mf, conf->maintainers_section);
	if (!rule->section) {
		const char *hint = NULL;

		for (size_t i = 0; i < mnt_count(mf) && !hint; i++)
			if (contains_nocase(mnt_section_at(mf, i)->name, conf->maintainers_section))
				hint = mnt_section_at(mf, i)->name;
		st = bb_error_set(err, BB_ERR_CONFIG,
				  "%s names MAINTAINERS section \"%s\", which %s does not have%s%s%s",
				  where, conf->maintainers_section,
				  cfg->maintainers_file ? cfg->maintainers_file : "the MAINTAINERS file",
				  hint ? " (did you mean \"" : "", hint ? hint : "",
				  hint ? "\"?)" : "");
	}
out:
	return st;
}

enum bb_status router_new(struct router **out, const struct bb_config *cfg,
			  const struct mnt_file *mf, struct bb_error *err)
{
	struct router *r = calloc(1, sizeof(*r));
	enum bb_status st = BB_OK;

	*out = NULL;
	if (!r) {
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	r->cfg = cfg;
	st = split_list(&r->products, cfg->bz_products, err);
	if (st == BB_OK)
		st = split_list(&r->components, cfg->bz_components, err);
	if (st == BB_OK)
		st = split_list(&r->statuses, cfg->bz_statuses, err);
	if (st == BB_OK)
		st = split_list(&r->flags, cfg->bz_flag, err);
	if (st == BB_OK)
		st = split_addresses(&r->default_lists, cfg->default_lists, err);
	if (st == BB_OK)
		st = split_addresses(&r->default_people, cfg->default_people, err);
	if (st == BB_OK)
		st = check_addresses(r->default_lists, "[routing]", "default_lists", err);
	if (st == BB_OK)
		st = check_addresses(r->default_people, "[routing]", "default_people", err);
	if (st != BB_OK)
		goto out;
	if (cfg->nroutes) {
		r->rules = calloc(cfg->nroutes, sizeof(*r->rules));
		if (!r->rules) {
			st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	for (size_t i = 0; i < cfg->nroutes && st == BB_OK; i++, r->nrules++)
		st = rule_init(&r->rules[i], &cfg->routes[i], cfg, mf, err);
out:
	if (st == BB_OK)
		*out = r;
	else
		router_free(r);
	return st;
}

void router_free(struct router *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nrules; i++) {
		config_list_free(r->rules[i].lists);
		config_list_free(r->rules[i].people);
	}
	free(r->rules);
	config_list_free(r->products);
	config_list_free(r->components);
	config_list_free(r->statuses);
	config_list_free(r->flags);
	config_list_free(r->default_lists);
	config_list_free(r->default_people);
	free(r);
}

int router_wants(const struct router *r, const struct bz_bug *bug, time_t now,
		 const char **reason)
{
	const struct bb_config *cfg = r->cfg;
	const char *why = NULL;

	if (bug->groups && bug->groups[0])
		why = "restricted to groups";
	else if (r->products[0] && !in_list_nocase(r->products, bug->product))
		why = "product not mirrored";
	else if (r->components[0] && !in_list_nocase(r->components, bug->component))
		why = "component not mirrored";
	else if (r->statuses[0]) {
		why = "status not mirrored";
		for (char **s = r->statuses; *s; s++)
			if (!strcmp(*s, bug->status))
				why = NULL;
	}
	/* the gate the search asked for, checked again on each bug */
	if (!why && !bz_bug_in_gate(bug, cfg->bz_keyword, r->flags))
		why = "lacks the keyword or flag";
	if (!why && cfg->bz_max_age > 0 &&
	    (bug->last_change_time == (time_t)-1 ||
	     (long long)now - (long long)bug->last_change_time > cfg->bz_max_age))
		why = "not changed recently";
	if (reason)
		*reason = why;
	return why == NULL;
}

static int rule_matches(const struct router_rule *rule, const struct bz_bug *bug,
			const char *subsystem)
{
	const struct config_route *c = rule->conf;

	if (c->product && !text_equal_nocase(c->product, bug->product))
		return 0;
	if (c->component && !text_equal_nocase(c->component, bug->component))
		return 0;
	if (c->subsystem && !(subsystem && list_value_matches(c->subsystem, subsystem)))
		return 0;
	return 1;
}

/* Fills to and cc from lists and people (first) and section's L:/M:. */
static enum bb_status collect(struct route_strv *to, struct route_strv *cc, char *const *lists,
			      char *const *people, const struct mnt_section *section)
{
	enum bb_status st;

	st = strv_add_all(to, lists, 1, NULL);
	if (st == BB_OK && section)
		st = strv_add_all(to, section->lists, 1, NULL);
	if (st == BB_OK)
		st = strv_add_all(cc, people, 0, to->v);
	if (st == BB_OK && section)
		st = strv_add_all(cc, section->maintainers, 0, to->v);
	return st;
}

static void strv_clear(struct route_strv *sv)
{
	strv_free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

enum bb_status router_route(const struct router *r, const struct bz_bug *bug,
			    struct route_result *res, struct bb_error *err)
{
	struct route_strv to = { NULL, 0, 0 }, cc = { NULL, 0, 0 };
	const char *subsystem = NULL, *rule = NULL;
	enum bb_status st = BB_OK;

	memset(res, 0, sizeof(*res));
	if (r->cfg->bz_subsystem_field)
		subsystem = bz_bug_field(bug, r->cfg->bz_subsystem_field);
	for (size_t i = 0; i < r->nrules && !rule; i++) {
		const struct router_rule *ru = &r->rules[i];

		if (!rule_matches(ru, bug, subsystem))
			continue;
		st = collect(&to, &cc, ru->lists, ru->people, ru->section);
		if (st != BB_OK) {
			st = bb_error_set(err, st, "out of memory routing bug %lld", bug->id);
			goto out;
		}
		if (to.n || cc.n)
			rule = ru->conf->name;
		/* else: a rule that gives nobody (an orphaned section) is passed over */
	}
	if (!rule) {
		st = collect(&to, &cc, r->default_lists, r->default_people, NULL);
		if (st != BB_OK) {
			st = bb_error_set(err, st, "out of memory routing bug %lld", bug->id);
			goto out;
		}
		rule = "default";
	}
	if (!to.n && !cc.n) {
		st = bb_error_set(err, BB_ERR_NOT_FOUND,
				  "bug %lld (product \"%s\", component \"%s\"%s%s%s) matches no "
				  "[route] rule with recipients and [routing] default_lists and "
				  "default_people are empty", bug->id, bug->product, bug->component,
				  subsystem ? ", subsystem \"" : "", subsystem ? subsystem : "",
				  subsystem ? "\"" : "");
		goto out;
	}
	res->to = strv_finish(&to);
	res->cc = strv_finish(&cc);
	res->rule = rule;
	if (!res->to || !res->cc) {
		route_result_release(res);
		st = bb_error_set(err, BB_ERR_NOMEM, "out of memory routing bug %lld", bug->id);
	}
out:
	strv_clear(&to);
	strv_clear(&cc);
	return st;
}

void route_result_release(struct route_result *res)
{
	if (!res)
		return;
	strv_free(res->to);
	strv_free(res->cc);
	memset(res, 0, sizeof(*res));
}

/* Every address of a is in b and the other way round. */
static int same_addresses(char *const *a, char *const *b)
{
	for (char *const *p = a; p && *p; p++)
		if (!route_has_address(b, *p))
			return 0;
	for (char *const *p = b; p && *p; p++)
		if (!route_has_address(a, *p))
			return 0;
	return 1;
}

int router_same_recipients(const struct route_result *a, const struct route_result *b)
{
	return same_addresses(a->to, b->to) && same_addresses(a->cc, b->cc);
}

char *route_result_describe(const struct route_result *r)
{
	struct buf b = BUF_INIT;
	enum bb_status st = BB_OK;
	size_t nto = strv_len(r->to), ncc = strv_len(r->cc);

	for (size_t i = 0; i < nto && st == BB_OK; i++)
		st = buf_addf(&b, "%s%s", i ? ", " : "", r->to[i]);
	if (ncc && st == BB_OK)
		st = buf_addstr(&b, nto ? "; Cc: " : "Cc: ");
	for (size_t i = 0; i < ncc && st == BB_OK; i++)
		st = buf_addf(&b, "%s%s", i ? ", " : "", r->cc[i]);
	if (!nto && !ncc && st == BB_OK)
		st = buf_addstr(&b, "(nobody)");
	if (st != BB_OK) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}
