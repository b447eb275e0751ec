/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a #bugbridge command asks of Bugzilla: the change it makes
 * (cmdchange_of()), and that change in the values the server takes
 * (cmdchange_legal()).  Split from inbound.c, which records the commands
 * (inbound_finish.c does them). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "bridge/cmdchange.h"
#include "bridge/digest.h"
#include "bridge/follow.h"
#include "bridge/handover.h"
#include "bugzilla/bz_client.h"
#include "bugzilla/bz_fields.h"
#include "bugzilla/bz_json.h"
#include "core/buf.h"
#include "core/log.h"

char *cmdchange_of(struct sync_context *sc, const struct mailcmd *c, const char *sender,
		   const char **note)
{
	json_object *o = json_object_new_object();
	char *out = NULL;

	*note = NULL;
	if (!o)
		return NULL;
	switch (c->verb) {
	case MAILCMD_CLOSE:
		json_object_object_add(o, "status", json_object_new_string("RESOLVED"));
		json_object_object_add(o, "resolution", json_object_new_string(
			c->dup_of ? "DUPLICATE" : c->arg && *c->arg ? c->arg
					: sc->cfg->inbound_close_resolution));
		if (c->dup_of) {
			char id[32];

			snprintf(id, sizeof(id), "%lld", c->dup_of);
			json_object_object_add(o, "dupe_of", json_object_new_string(id));
		}
		break;
	case MAILCMD_REOPEN:
		json_object_object_add(o, "status", json_object_new_string(
			sc->cfg->inbound_reopen_status ? sc->cfg->inbound_reopen_status : ""));
		break;
	case MAILCMD_REASSIGN:
		/* the product and component, checked, and the hand-over:
		 * bridge/handover.c does it */
		json_object_put(o);
		if (!(out = handover_change(c, sender)))
			*note = "out of memory";
		return out;
	case MAILCMD_ASSIGN:
		json_object_object_add(o, "assigned_to", json_object_new_string(
			!strcasecmp(c->arg, "me") ? sender : c->arg));
		break;
	case MAILCMD_TITLE:
		json_object_object_add(o, "summary", json_object_new_string(c->arg));
		break;
	case MAILCMD_PRIORITY:
		json_object_object_add(o, "priority", json_object_new_string(c->arg));
		break;
	case MAILCMD_SEVERITY:
		json_object_object_add(o, "severity", json_object_new_string(c->arg));
		break;
	case MAILCMD_NEEDINFO:
		/* no field of Bugzilla's: bridge/needinfo.c does it */
		json_object_object_add(o, "needinfo", json_object_new_string(c->arg));
		json_object_object_add(o, "to", json_object_new_string(c->to));
		json_object_object_add(o, "by", json_object_new_string(sender ? sender : ""));
		break;
	case MAILCMD_NO_REMINDERS:
		/* the bridge's own: bridge/digest.c does it */
		json_object_put(o);
		if (!(out = digest_mute_change(sender)))
			*note = "out of memory";
		return out;
	case MAILCMD_SUBSCRIBE:
	case MAILCMD_UNSUBSCRIBE:
		/* the sender's own Cc: bridge/follow.c does it */
		json_object_put(o);
		if (!(out = follow_change(c, sender)))
			*note = "out of memory";
		return out;
	default:
		json_object_put(o);
		return NULL;
	}
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	if (!out)
		*note = "out of memory";
	return out;
}

/* The fields of a change whose values are the server's to list. */
static const struct {
	const char *key, *field;
} legal_fields[] = {
	{ "status", "bug_status" },
	{ "resolution", "resolution" },
	{ "priority", "priority" },
	{ "severity", "bug_severity" },
};

char *cmdchange_legal(struct sync_context *sc, long long bug_id, json_object *o, int *nomem)
{
	const struct bz_fields *f = NULL;
	struct bb_error ferr = BB_ERROR_INIT;
	json_object *v = NULL;
	char *why = NULL;

	*nomem = 0;
	if (bz_fields_get(sc->bz, &f, &ferr) != BB_OK && !f)
		log_event(LOG_LEVEL_WARN, "inbound.fields_unavailable", LF_INT("bug", bug_id),
			  LF_STR("error", ferr.message),
			  LF_STR("reason", "command values are sent unchecked"));
	if (json_object_object_get_ex(o, "status", &v) && json_object_is_type(v, json_type_string) &&
	    !json_object_get_string(v)[0]) {
		struct bz_bug bug;
		int have_bug = sync_load_bug(sc, bug_id, 0, &bug, NULL) == BB_OK;
		const char *to = bz_fields_reopen_status(f, have_bug ? bug.status : NULL);

		json_object_object_add(o, "status", json_object_new_string(to ? to : "REOPENED"));
		if (have_bug)
			bz_bug_release(&bug);
	}
	for (size_t i = 0; i < sizeof(legal_fields) / sizeof(legal_fields[0]) && !why; i++) {
		const char *value, *canon = NULL;
		char *list;

		if (!json_object_object_get_ex(o, legal_fields[i].key, &v) ||
		    !json_object_is_type(v, json_type_string))
			continue;
		value = json_object_get_string(v);
		switch (bz_fields_legal_value(f, legal_fields[i].field, value, &canon)) {
		case 1:
			if (strcmp(canon, value))
				json_object_object_add(o, legal_fields[i].key,
						       json_object_new_string(canon));
			break;
		case 0:
			list = bz_field_values_text(bz_fields_find(f, legal_fields[i].field));
			why = list ? str_printf("no %s \"%s\" on this Bugzilla; it has: %s",
						legal_fields[i].key, value, list) : NULL;
			free(list);
			if (!why)
				*nomem = 1;
			return why;
		default:
			break;   /* the server did not say: sent as given */
		}
	}
	return why;
}

static int same_ci(const char *a, const char *b)
{
	return a && b && !strcasecmp(a, b);
}

/* Whether the bug is open: its status's is_open as the server says, else
 * (no list, or a status it does not name) it has no resolution. */
static int bug_is_open(const struct bz_fields *f, const struct bz_bug *bug)
{
	const struct bz_field_value *v =
		bz_field_value_find(bz_fields_find(f, "bug_status"), bug->status ? bug->status : "");

	if (v && v->name && v->is_open >= 0)
		return v->is_open;
	return !bug->resolution || !*bug->resolution;
}

char *cmdchange_already(const struct bz_fields *f, const struct bz_bug *bug, json_object *o,
			int *nomem)
{
	const char *resolution = bz_jstr(o, "resolution"), *status = bz_jstr(o, "status");
	const char *summary = bz_jstr(o, "summary"), *dupe = bz_jstr(o, "dupe_of");
	/* the other changes: a value the bug has, in any case */
	const struct {
		const char *key, *say, *has;
	} plain[] = {
		{ "component", "in component", bug->component },
		{ "assigned_to", "assigned to", bug->assigned_to.login },
		{ "priority", "of priority", bug->priority },
		{ "severity", "of severity", bug->severity },
	};
	char *out = NULL;

	*nomem = 0;
	if (resolution) {
		/* close: a closed bug with that resolution (and duplicate) */
		if (bug_is_open(f, bug) || !same_ci(bug->resolution, resolution) ||
		    (dupe && bug->dupe_of != strtoll(dupe, NULL, 10)))
			return NULL;
		out = dupe ? str_printf("already closed: %s %s, a duplicate of bug %lld", bug->status,
					bug->resolution, bug->dupe_of)
			   : str_printf("already closed: %s %s", bug->status, bug->resolution);
	} else if (status) {
		/* reopen: an open bug */
		if (!bug_is_open(f, bug))
			return NULL;
		out = str_printf("already open: %s", bug->status);
	} else if (summary) {
		if (!bug->summary || strcmp(bug->summary, summary))
			return NULL;
		out = strdup("already titled so");
	} else {
		size_t i = 0, n = sizeof(plain) / sizeof(plain[0]);

		while (i < n && !bz_jstr(o, plain[i].key))
			i++;
		if (i == n || !same_ci(plain[i].has, bz_jstr(o, plain[i].key)))
			return NULL;
		out = str_printf("already %s %s", plain[i].say, plain[i].has);
	}
	if (!out)
		*nomem = 1;
	return out;
}

enum bb_status cmdchange_current(struct sync_context *sc, long long bug_id, json_object *o,
				 char **already, struct bb_error *err)
{
	const struct bz_fields *f = NULL;
	struct bz_bug *bugs = NULL;
	size_t n = 0;
	int nomem = 0;
	enum bb_status s;

	*already = NULL;
	/* the one bug: the first of those after bug_id - 1 */
	if ((s = bz_search_page(sc->bz, bug_id - 1, 0, 1, &bugs, &n, err)))
		return s;
	if (n == 1 && bugs[0].id == bug_id) {
		/* without the server's statuses (a copy may be left when
		 * asking again failed), open is told by the resolution */
		bz_fields_get(sc->bz, &f, NULL);
		*already = cmdchange_already(f, &bugs[0], o, &nomem);
	}
	for (size_t i = 0; i < n; i++)
		bz_bug_release(&bugs[i]);
	free(bugs);
	return nomem ? bb_error_set(err, BB_ERR_NOMEM, "out of memory") : BB_OK;
}
