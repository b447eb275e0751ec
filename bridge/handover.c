/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Handing a bug over by mail (see handover.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <glib.h>
#include <json-c/json.h>
#include <sqlite3.h>

#include "bridge/follow.h"
#include "bridge/handover.h"
#include "bridge/inbound.h"
#include "bridge/route.h"
#include "bridge/sync_route.h"
#include "bugzilla/bz_client.h"
#include "bugzilla/bz_fields.h"
#include "bugzilla/bz_json.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/store.h"
#include "mail/mail.h"
#include "mail/maintainers.h"
#include "mail/outbox.h"

/* The reason quoted from the mail: at most so many lines. */
#define WHY_LINES 20

char *handover_change(const struct mailcmd *c, const char *sender)
{
	json_object *o = json_object_new_object();
	char *out;

	if (!o)
		return NULL;
	json_object_object_add(o, "reassign", json_object_new_string(c->arg ? c->arg : ""));
	json_object_object_add(o, "by", json_object_new_string(sender ? sender : ""));
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return out;
}

/* One text column of the first row of sql with the integer binds a and
 * b (b < 0: only a); malloc'd, NULL when none. */
static char *one_text(struct sync_context *sc, const char *sql, long long a, long long b)
{
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	if (store_prepare(sc->db, &st, sql, NULL))
		return NULL;
	sqlite3_bind_int64(st, 1, a);
	if (b >= 0)
		sqlite3_bind_int64(st, 2, b);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		out = store_column_dup(st, 0);
	sqlite3_finalize(st);
	return out;
}

char *handover_thread_root(struct sync_context *sc, long long bug_id)
{
	char *id = one_text(sc, "SELECT message_id FROM handover WHERE bug_id = ? AND"
				" message_id IS NOT NULL ORDER BY seq DESC LIMIT 1", bug_id, -1);

	if (!id)
		id = one_text(sc, "SELECT message_id FROM bz_comment WHERE bug_id = ? AND count = 0"
				  " AND message_id IS NOT NULL", bug_id, -1);
	return id ? id : mail_message_id(sc->cfg->mail_domain, bug_id, 0);
}

/* The lists of route, lower case, ", " between them ("" for none);
 * malloc'd. */
static char *lists_text(const struct route_result *route)
{
	struct buf b = BUF_INIT;

	buf_addstr(&b, "");
	for (size_t i = 0; route->to && route->to[i]; i++) {
		char *low = g_ascii_strdown(route->to[i], -1);

		buf_addf(&b, "%s%s", i ? ", " : "", low);
		g_free(low);
	}
	return buf_detach(&b, NULL);
}

/* The lists bug would go to with product and component; "" when no
 * route gives one. */
static enum bb_status lists_of(struct sync_context *sc, const struct bz_bug *bug,
			       const char *product, const char *component, char **out,
			       struct bb_error *err)
{
	struct route_result route = { NULL, NULL, NULL };
	struct bz_bug moved = *bug;
	enum bb_status s;

	moved.product = (char *)product;
	moved.component = (char *)component;
	*out = NULL;
	if ((s = router_route(sc->router, &moved, &route, err)) == BB_ERR_NOT_FOUND) {
		bb_error_clear(err);
		s = BB_OK;
	}
	if (!s && !(*out = lists_text(&route)))
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	route_result_release(&route);
	return s;
}

/* What target names: a route's or MAINTAINERS section's product (else
 * the bug's) and component, "<product>/<component>", or a component of
 * the bug's product.  *section gets the route or section name matched
 * (NULL: none).  Copies in *product and *component (g_free()). */
static void target_of(struct sync_context *sc, const struct bz_bug *bug, const char *target,
		      char **product, char **component, const char **section)
{
	const char *slash = strchr(target, '/');

	*section = NULL;
	for (size_t i = 0; i < sc->cfg->nroutes; i++) {
		const struct config_route *r = &sc->cfg->routes[i];

		if (!r->component)
			continue;
		if (!strcasecmp(r->name, target) ||
		    (r->maintainers_section && !strcasecmp(r->maintainers_section, target))) {
			*product = g_strdup(r->product && *r->product ? r->product : bug->product);
			*component = g_strdup(r->component);
			*section = r->maintainers_section ? r->maintainers_section : r->name;
			return;
		}
	}
	if (slash) {
		*product = g_strstrip(g_strndup(target, (size_t)(slash - target)));
		*component = g_strstrip(g_strdup(slash + 1));
	} else {
		*product = g_strdup(bug->product ? bug->product : "");
		*component = g_strdup(target);
	}
}

/* Whether the server has product and component (their spelling then
 * replaces the given one): NULL, else why not, listing what it has
 * (malloc'd).  Without the server's answer the change is sent as given
 * and Bugzilla's refusal tells; a temporary failure is returned. */
static enum bb_status target_legal(struct sync_context *sc, char **product, char **component,
				   char **why, struct bb_error *err)
{
	const struct bz_fields *f = NULL;
	const char *canon = NULL;
	char **names = NULL;
	struct bb_error ferr = BB_ERROR_INIT;
	enum bb_status s;

	*why = NULL;
	if (!**product || !**component) {
		*why = strdup("\"reassign\" needs a component, <product>/<component> or a "
			      "MAINTAINERS section");
		return *why ? BB_OK : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	bz_fields_get(sc->bz, &f, NULL);
	switch (f ? bz_fields_legal_value(f, "product", *product, &canon) : -1) {
	case 1:
		if (canon && strcmp(canon, *product)) {
			g_free(*product);
			*product = g_strdup(canon);
		}
		break;
	case 0: {
		char *list = bz_field_values_text(bz_fields_find(f, "product"));

		*why = str_printf("no product \"%s\" on this Bugzilla; it has: %s", *product,
				  list && *list ? list : "(not told)");
		free(list);
		return *why ? BB_OK : bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	default: {
		/* the server did not say (a stock 5.2 lists no product
		 * values): a product mirrored here in its configured spelling */
		char **mirrored = sc->cfg->bz_products ? config_list(sc->cfg->bz_products, NULL) : NULL;

		for (size_t i = 0; mirrored && mirrored[i]; i++)
			if (!strcasecmp(mirrored[i], *product)) {
				g_free(*product);
				*product = g_strdup(mirrored[i]);
				break;
			}
		config_list_free(mirrored);
		break;
	}
	}
	if ((s = bz_product_components(sc->bz, *product, &names, NULL, &ferr))) {
		if (s == BB_ERR_NOMEM || status_retry_class(s) != BB_RETRY_GIVE_UP) {
			s = bb_error_set(err, ferr.code, "%s", ferr.message);
			err->retry_after = ferr.retry_after;
			return s;
		}
		log_event(LOG_LEVEL_WARN, "handover.components_unavailable",
			  LF_STR("product", *product), LF_STR("error", ferr.message));
		bb_error_clear(&ferr);
		return BB_OK;
	}
	if (!names) {
		/* a stock 5.2 lists no product values in /rest/field/bug: the
		 * products mirrored here */
		*why = sc->cfg->bz_products && *sc->cfg->bz_products
			? str_printf("no product \"%s\" on this Bugzilla; the products mirrored "
				     "here: %s", *product, sc->cfg->bz_products)
			: str_printf("no product \"%s\" on this Bugzilla", *product);
	} else {
		struct buf list = BUF_INIT;
		size_t i = 0;

		while (names[i] && strcasecmp(names[i], *component))
			i++;
		if (names[i]) {
			g_free(*component);
			*component = g_strdup(names[i]);
		} else {
			buf_addstr(&list, "");
			for (size_t k = 0; names[k]; k++)
				buf_addf(&list, "%s%s", k ? ", " : "", names[k]);
			*why = str_printf("no component \"%s\" in product \"%s\"; it has: %s",
					  *component, *product, list.len ? list.data : "(none)");
			buf_release(&list);
		}
		bz_names_free(names);
	}
	return BB_OK;
}

/* What a move must change beside product and component: the bug's
 * version and target milestone where the new product lacks them (a stock
 * 5.2 refuses to move a bug to a product without its version, and with
 * usetargetmilestone on without its milestone: Bugzilla::Bug::_set_product()
 * outside the browser).  A version becomes "unspecified" when the product
 * has that, else its first active one; a milestone the product's default
 * (else its first active one).  Nothing when Bugzilla has the bug in that
 * product already (moved before a crash).  Each value and what it was
 * (was_*) malloc'd or NULL. */
struct moved_values {
	char *version, *was_version, *milestone, *was_milestone;
};

static void moved_values_release(struct moved_values *m)
{
	free(m->version);
	free(m->was_version);
	free(m->milestone);
	free(m->was_milestone);
	memset(m, 0, sizeof(*m));
}

/* The entry of names equal to value (any case), else preferred's, else
 * the first; NULL when value is there or names is empty. */
static const char *replacement(char *const *names, const char *value, const char *preferred)
{
	size_t i = 0;

	while (names[i] && strcasecmp(names[i], value))
		i++;
	if (names[i] || !names[0])
		return NULL;
	for (i = 0; preferred && *preferred && names[i]; i++)
		if (!strcmp(names[i], preferred))
			return names[i];
	return names[0];
}

/* " (version unspecified, target milestone ---: Net has no 6.8 nor 6.9)"
 * for the command's answer; malloc'd, NULL when out of memory. */
static char *moved_note(const struct moved_values *m, const char *product)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, " (");
	if (m->version)
		buf_addf(&b, "version %s%s", m->version, m->milestone ? ", " : "");
	if (m->milestone)
		buf_addf(&b, "target milestone %s", m->milestone);
	buf_addf(&b, ": %s has no %s%s%s)", product, m->version ? m->was_version : "",
		 m->version && m->milestone ? " nor " : "", m->milestone ? m->was_milestone : "");
	return buf_detach(&b, NULL);
}

static enum bb_status moved_values_for(struct sync_context *sc, long long bug_id,
				       const char *product, struct moved_values *m,
				       struct bb_error *err)
{
	struct bz_bug *bugs = NULL;
	struct bz_product_names names = { NULL, NULL, NULL, NULL };
	struct bb_error berr = BB_ERROR_INIT;
	const char *v;
	size_t n = 0;
	enum bb_status s;

	memset(m, 0, sizeof(*m));
	if ((s = bz_search_page(sc->bz, bug_id - 1, 0, 1, &bugs, &n, &berr)) ||
	    !(n == 1 && bugs[0].id == bug_id && bugs[0].product &&
	      strcasecmp(bugs[0].product, product)) ||
	    (s = bz_product_names(sc->bz, product, &names, &berr)) || !names.components)
		goto out;
	if (bugs[0].version && names.versions &&
	    (v = replacement(names.versions, bugs[0].version, "unspecified")) &&
	    (!(m->version = strdup(v)) || !(m->was_version = strdup(bugs[0].version))))
		s = bb_error_set(&berr, BB_ERR_NOMEM, "out of memory");
	if (!s && bugs[0].target_milestone && *bugs[0].target_milestone && names.milestones &&
	    (v = replacement(names.milestones, bugs[0].target_milestone,
			     names.default_milestone)) &&
	    (!(m->milestone = strdup(v)) || !(m->was_milestone = strdup(bugs[0].target_milestone))))
		s = bb_error_set(&berr, BB_ERR_NOMEM, "out of memory");
out:
	if (s && (s == BB_ERR_NOMEM || status_retry_class(s) != BB_RETRY_GIVE_UP)) {
		s = bb_error_set(err, berr.code, "%s", berr.message);
		err->retry_after = berr.retry_after;
	} else {
		s = BB_OK;   /* cannot be seen: the update tells */
	}
	bb_error_clear(&berr);
	for (size_t k = 0; k < n; k++)
		bz_bug_release(&bugs[k]);
	free(bugs);
	bz_product_names_release(&names);
	if (s)
		moved_values_release(m);
	return s;
}

/* The pending hand-over of the command, if any. */
struct pending {
	long long seq;
	char *product, *component, *old_lists, *new_lists, *by;
	int done;
};

static void pending_release(struct pending *p)
{
	free(p->product);
	free(p->component);
	free(p->old_lists);
	free(p->new_lists);
	free(p->by);
	memset(p, 0, sizeof(*p));
}

static int pending_load(struct sync_context *sc, long long row, int seq, struct pending *p)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	memset(p, 0, sizeof(*p));
	if (store_prepare(sc->db, &st, "SELECT seq, product, component, old_lists, new_lists, by_addr,"
				      " state = 'done' FROM handover WHERE mail = ? AND cmd = ?", NULL))
		return 0;
	sqlite3_bind_int64(st, 1, row);
	sqlite3_bind_int(st, 2, seq);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = 1;
		p->seq = sqlite3_column_int64(st, 0);
		p->product = store_column_dup(st, 1);
		p->component = store_column_dup(st, 2);
		p->old_lists = store_column_dup(st, 3);
		p->new_lists = store_column_dup(st, 4);
		p->by = store_column_dup(st, 5);
		p->done = sqlite3_column_int(st, 6);
	}
	sqlite3_finalize(st);
	return found;
}

/* Records the hand-over pending, numbered after the bug's others. */
static enum bb_status pending_record(struct sync_context *sc, long long row, int seq,
				     long long bug_id, struct pending *p, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_begin(sc->db, err)))
		return s;
	if (!(s = store_prepare(sc->db, &st, "INSERT INTO handover (bug_id, seq, mail, cmd, product,"
				       " component, old_lists, new_lists, by_addr, state, at) SELECT ?1,"
				       " COALESCE(MAX(seq), 0) + 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending',"
				       " ?9 FROM handover WHERE bug_id = ?1", err))) {
		sqlite3_bind_int64(st, 1, bug_id);
		sqlite3_bind_int64(st, 2, row);
		sqlite3_bind_int(st, 3, seq);
		sqlite3_bind_text(st, 4, p->product, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, p->component, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, p->old_lists, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, p->new_lists, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 8, p->by, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 9, (sqlite3_int64)time(NULL));
		if (sqlite3_step(st) != SQLITE_DONE)
			s = store_fail(sc->db, err, "recording a hand-over");
		sqlite3_finalize(st);
	}
	s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	if (!s) {
		char *n = one_text(sc, "SELECT seq FROM handover WHERE mail = ? AND cmd = ?", row, seq);

		p->seq = n ? strtoll(n, NULL, 10) : 0;
		free(n);
		test_hook("handover.pending");
	}
	return s;
}

/* The words of the comment a list mail was made of
 * (inbound_compose_comment(): a lead line "<name> replied on the list
 * ...:" and a blank one, the words, "Archived at <link>" and the
 * Message-ID): from the return value to *end, blank lines around them
 * left out. */
static const char *comment_words(const char *text, const char **end)
{
	const char *start = text, *nl = strchr(text, '\n'), *p;

	if (nl && nl > text && nl[-1] == ':' && nl[1] == '\n')
		start = nl + 2;
	*end = start + strlen(start);
	for (p = strstr(start, "\nArchived at "); p; p = strstr(p + 1, "\nArchived at "))
		*end = p;
	while (start < *end && (*start == '\n' || *start == ' '))
		start++;
	while (*end > start && ((*end)[-1] == '\n' || (*end)[-1] == ' '))
		(*end)--;
	return start;
}

/* The text that heads the hand-over mail. */
static char *handover_text(struct sync_context *sc, long long row, long long bug_id,
			   const struct pending *p, const char *target)
{
	struct buf b = BUF_INIT;
	char *why = one_text(sc, "SELECT comment FROM in_mail WHERE id = ?", row, -1);
	char *suggested = one_text(sc, "SELECT section FROM bug_content_route WHERE bug_id = ?",
				   bug_id, -1);
	const char *section = NULL, *line = NULL, *end = NULL;
	char *product = NULL, *component = NULL;
	struct bz_bug none;

	memset(&none, 0, sizeof(none));
	buf_addf(&b, "Bug %lld (%s/%s) is handed over to this list by %s,\n"
		 "from %s:\n\n  #bugbridge reassign %s\n\n", bug_id, p->product, p->component,
		 p->by, *p->old_lists ? p->old_lists : "no list", target);
	if (why && *(line = comment_words(why, &end))) {
		buf_addf(&b, "Why, in the words of %s:\n\n", p->by);
		for (int n = 0; line < end && n < WHY_LINES; n++) {
			const char *nl = memchr(line, '\n', (size_t)(end - line));
			size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);

			buf_addstr(&b, len ? "  " : "");
			buf_add(&b, line, len);
			buf_addstr(&b, "\n");
			line = nl ? nl + 1 : end;
		}
		if (line < end)
			buf_addstr(&b, "  [...]\n");
		buf_addstr(&b, "\n");
	} else {
		buf_addstr(&b, "No reason was given.\n\n");
	}
	none.product = p->product;
	target_of(sc, &none, target, &product, &component, &section);
	if (suggested && *suggested && (!section || strcasecmp(section, suggested)) &&
	    strcasecmp(target, suggested))
		buf_addf(&b, "Content routing suggested another place for it: the MAINTAINERS\n"
			 "section \"%s\".\n", suggested);
	g_free(product);
	g_free(component);
	free(why);
	free(suggested);
	return buf_detach(&b, NULL);
}

/* Records the bug moved in the mirror's state as the next round would:
 * its product and component (columns and the fields a round compares)
 * and the recipients its mails now go to. */
static enum bb_status record_move(struct sync_context *sc, long long bug_id,
				  const struct pending *p, const char *recipients,
				  struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st, "UPDATE bz_bug SET product = ?1, component = ?2,"
				       " recipients = ?3, fields = CASE WHEN json_valid(fields) THEN"
				       " json_set(fields, '$.product', ?1, '$.component', ?2)"
				       " ELSE fields END WHERE id = ?4",
			       err)))
		return s;
	sqlite3_bind_text(st, 1, p->product, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, p->component, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, recipients, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, bug_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a bug's move");
	sqlite3_finalize(st);
	return s;
}

/* Queues the hand-over mail on the new lists and the pointer on the old
 * thread, marks the hand-over done and ends the command (one
 * transaction). */
static enum bb_status finish(struct sync_context *sc, long long row, int seq, long long bug_id,
			     const struct pending *p, const char *target, const char *version_note,
			     struct bb_error *err)
{
	struct route_result to = { NULL, NULL, NULL }, from = { NULL, NULL, NULL };
	struct mail_options mopt;
	struct mail_message hand = { NULL, NULL, 0 }, ptr = { NULL, NULL, 0 };
	struct bz_bug bug, moved;
	const struct bz_comment *report = NULL, **comments = NULL;
	char **rcpt = NULL, *sender = NULL, *text = NULL, *line = NULL, *root = NULL;
	char *note = NULL, *recipients = NULL;
	size_t n = 0;
	int have_bug = 0, lists_changed = strcmp(p->old_lists, p->new_lists) != 0;
	enum bb_status s = BB_OK;

	memset(&bug, 0, sizeof(bug));
	if (lists_changed) {
		if ((s = sync_load_bug(sc, bug_id, 1, &bug, err)))
			goto out;
		have_bug = 1;
		/* the report and the public comments, as Bugzilla has them now */
		if ((s = bz_fetch_comments(sc->bz, &bug, 1, 0, err)))
			goto out;
		if (!(comments = calloc(bug.ncomments + 1, sizeof(*comments)))) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < bug.ncomments; i++) {
			if (bug.comments[i].is_private)
				continue;
			if (bug.comments[i].count == 0)
				report = &bug.comments[i];
			else
				comments[n++] = &bug.comments[i];
		}
		moved = bug;
		moved.product = p->product;
		moved.component = p->component;
		sync_mail_options(sc->cfg, &mopt);
		mopt.mark_key = sync_mark_key(sc);
		sender = mnt_address(sc->cfg->mail_from);
		text = handover_text(sc, row, bug_id, p, target);
		root = handover_thread_root(sc, bug_id);
		if (!sender || !text || !root) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	if ((s = store_begin(sc->db, err)))
		goto out;
	if (lists_changed) {
		/* the new lists: the hand-over mail, Cc'd as the bug's mails are */
		if ((s = router_route(sc->router, &moved, &to, err)) == BB_ERR_NOT_FOUND) {
			bb_error_clear(err);
			s = BB_OK;
		}
		if (!s) {
			sync_route_by_content(sc, &moved, &to);
			if (!(recipients = sync_describe_recipients(&to)))
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		}
		if (!s && to.to && to.to[0] && !(s = follow_route(sc, &moved, &to, 0, err)) &&
		    !(s = mail_compose_handover(&mopt, &moved, HANDOVER_SEQ_BASE + 10 * p->seq, text,
						report, comments, n, to.to, to.cc, &hand, err))) {
			if (!(rcpt = route_envelope(&to, NULL)))
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			else if (!outbox_has(sc->db, hand.message_id))
				s = outbox_add(sc->db, hand.message_id, bug_id, 0, sender, rcpt,
					       hand.text, hand.len, err);
			route_envelope_free(rcpt);
			rcpt = NULL;
		}
		/* the old thread: one line where it went */
		if (!s && (s = router_route(sc->router, &bug, &from, err)) == BB_ERR_NOT_FOUND) {
			bb_error_clear(err);
			s = BB_OK;
		}
		line = hand.message_id
			? str_printf("Bug %lld handed over to %s by %s: <%s>\n", bug_id,
				     p->new_lists, p->by, hand.message_id)
			: str_printf("Bug %lld handed over by %s; no list is routed its mails now.\n",
				     bug_id, p->by);
		if (!s && !line)
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		if (!s && from.to && from.to[0] && !(s = follow_route(sc, &bug, &from, 0, err)) &&
		    !(s = mail_compose_notice(&mopt, &bug, HANDOVER_SEQ_BASE + 10 * p->seq + 1, line,
					      0, from.to, from.cc, root, &ptr, err))) {
			if (!(rcpt = route_envelope(&from, NULL)))
				s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			else if (!outbox_has(sc->db, ptr.message_id))
				s = outbox_add(sc->db, ptr.message_id, bug_id, 0, sender, rcpt,
					       ptr.text, ptr.len, err);
		}
	}
	note = lists_changed ? str_printf("moved to %s/%s%s, handed over to %s", p->product,
					  p->component, version_note,
					  *p->new_lists ? p->new_lists : "no list")
			     : str_printf("moved to %s/%s%s; its mails still go to %s", p->product,
					  p->component, version_note,
					  *p->new_lists ? p->new_lists : "no list");
	if (!s && !note)
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if (!s) {
		sqlite3_stmt *st = NULL;

		if (!(s = store_prepare(sc->db, &st, "UPDATE handover SET state = 'done',"
					       " message_id = ? WHERE bug_id = ? AND seq = ?", err))) {
			sqlite3_bind_text(st, 1, hand.message_id, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 2, bug_id);
			sqlite3_bind_int64(st, 3, p->seq);
			if (sqlite3_step(st) != SQLITE_DONE)
				s = store_fail(sc->db, err, "recording a hand-over");
			sqlite3_finalize(st);
		}
	}
	/* the hand-over mail is the lists' notice of the move: the next round
	 * finds the bug where it is now, going where it goes now */
	if (!s && lists_changed)
		s = record_move(sc, bug_id, p, recipients, err);
	if (!s)
		s = inbound_command_end(sc, row, seq, 1, "done", note, err);
	s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
	if (!s)
		log_event(LOG_LEVEL_INFO, "handover.done", LF_INT("bug", bug_id),
			  LF_STR("from", p->old_lists), LF_STR("to", p->new_lists),
			  LF_STR("by", p->by), LF_STR("message_id", hand.message_id));
out:
	mail_message_release(&hand);
	mail_message_release(&ptr);
	route_envelope_free(rcpt);
	route_result_release(&to);
	route_result_release(&from);
	if (have_bug)
		bz_bug_release(&bug);
	free(comments);
	free(sender);
	free(text);
	free(line);
	free(root);
	free(note);
	free(recipients);
	return s;
}

enum bb_status handover_command(struct sync_context *sc, long long row, int seq,
				long long bug_id, const char *change,
				struct inbound_stats *stats, struct bb_error *err)
{
	json_object *o = json_tokener_parse(change);
	const char *target = o ? bz_jstr(o, "reassign") : NULL, *by = o ? bz_jstr(o, "by") : NULL;
	const char *section = NULL;
	struct pending p;
	struct bz_bug bug;
	struct bz_change ch[4];
	struct moved_values mv = { NULL, NULL, NULL, NULL };
	size_t nch = 0;
	struct bb_error berr = BB_ERROR_INIT;
	char *product = NULL, *component = NULL, *why = NULL, *moved = NULL;
	int have_bug = 0;
	enum bb_status s = BB_OK;

	memset(&p, 0, sizeof(p));
	if (!target || !by) {
		json_object_put(o);
		return inbound_command_end(sc, row, seq, 1, "failed", "unreadable change", err);
	}
	if (!pending_load(sc, row, seq, &p)) {
		if ((s = sync_load_bug(sc, bug_id, 1, &bug, err)))
			goto out;
		have_bug = 1;
		target_of(sc, &bug, target, &product, &component, &section);
		if ((s = target_legal(sc, &product, &component, &why, err)))
			goto out;
		if (why) {
			stats->commands_refused++;
			log_event(LOG_LEVEL_INFO, "handover.refused", LF_INT("bug", bug_id),
				  LF_STR("target", target), LF_STR("reason", why));
			s = inbound_command_end(sc, row, seq, 1, "refused", why, err);
			goto out;
		}
		if (bug.product && bug.component && !strcasecmp(bug.product, product) &&
		    !strcasecmp(bug.component, component)) {
			why = str_printf("already in %s/%s", bug.product, bug.component);
			stats->commands_done++;
			s = why ? inbound_command_end(sc, row, seq, 1, "done", why, err)
				: bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		p.product = strdup(product);
		p.component = strdup(component);
		p.by = strdup(by);
		if (!p.product || !p.component || !p.by) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		if ((s = lists_of(sc, &bug, bug.product, bug.component, &p.old_lists, err)) ||
		    (s = lists_of(sc, &bug, product, component, &p.new_lists, err)) ||
		    (s = pending_record(sc, row, seq, bug_id, &p, err)))
			goto out;
	}
	if (p.done)
		goto out;   /* finished before; the command's end is written with it */
	/* Bugzilla: the same change again (after a crash) is no change */
	if ((s = moved_values_for(sc, bug_id, p.product, &mv, err)))
		goto out;
	ch[nch++] = (struct bz_change){ "product", p.product };
	ch[nch++] = (struct bz_change){ "component", p.component };
	if (mv.version)
		ch[nch++] = (struct bz_change){ "version", mv.version };
	if (mv.milestone)
		ch[nch++] = (struct bz_change){ "target_milestone", mv.milestone };
	if ((mv.version || mv.milestone) && !(moved = moved_note(&mv, p.product))) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (bz_update_bug(sc->bz, bug_id, ch, nch, &berr) != BB_OK) {
		if (status_retry_class(berr.code) != BB_RETRY_GIVE_UP) {
			s = bb_error_set(err, berr.code, "%s", berr.message);
			err->retry_after = berr.retry_after;
			goto out;
		}
		stats->commands_failed++;
		log_event(LOG_LEVEL_WARN, "handover.failed", LF_INT("bug", bug_id),
			  LF_STR("target", target), LF_STR("error", berr.message));
		if ((s = store_begin(sc->db, err)))
			goto out;
		{
			sqlite3_stmt *st = NULL;

			if (!(s = store_prepare(sc->db, &st, "DELETE FROM handover WHERE bug_id = ? AND"
						       " seq = ? AND state = 'pending'", err))) {
				sqlite3_bind_int64(st, 1, bug_id);
				sqlite3_bind_int64(st, 2, p.seq);
				if (sqlite3_step(st) != SQLITE_DONE)
					s = store_fail(sc->db, err, "dropping a hand-over");
				sqlite3_finalize(st);
			}
		}
		if (!s)
			s = inbound_command_end(sc, row, seq, 1, "failed", berr.message, err);
		s = s ? (store_rollback(sc->db), s) : store_commit(sc->db, err);
		goto out;
	}
	test_hook("handover.bugzilla");
	if (!(s = finish(sc, row, seq, bug_id, &p, target, moved ? moved : "", err))) {
		stats->commands_done++;
		test_hook("handover.done");
	}
out:
	bb_error_clear(&berr);
	pending_release(&p);
	if (have_bug)
		bz_bug_release(&bug);
	g_free(product);
	g_free(component);
	free(why);
	moved_values_release(&mv);
	free(moved);
	json_object_put(o);
	return s;
}
