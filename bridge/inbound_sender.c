/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who sent a list mail (inbound_sender.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <glib.h>

#include "bridge/inbound_sender.h"
#include "bridge/inbound_wait.h"
#include "bridge/route.h"
#include "bugzilla/bz_client.h"
#include "config/conf.h"
#include "core/log.h"
#include "mail/maintainers.h"

/* Whether addr is one of list's addresses (any case). */
int inbound_address_in(const char *addr, char *const *list)
{
	for (size_t i = 0; addr && list && list[i]; i++) {
		char *a = mnt_address(list[i]);
		int same = a && !strcasecmp(a, addr);

		free(a);
		if (same)
			return 1;
	}
	return 0;
}

/* Whether the sender may give commands for this bug: the allow-list, or
 * the people the bug's route names (M: of its MAINTAINERS section and the
 * route's people). */
int inbound_sender_allowed(struct sync_context *sc, const struct bz_bug *bug, const char *addr)
{
	char **allow = config_address_list(sc->cfg->inbound_allow, NULL);
	struct route_result route = { NULL, NULL, NULL };
	int yes = inbound_address_in(addr, allow);

	config_list_free(allow);
	if (!yes && bug && router_route(sc->router, bug, &route, NULL) == BB_OK)
		yes = inbound_address_in(addr, route.cc);
	route_result_release(&route);
	if (!yes && addr && sc->cfg->inbound_allow_group && sc->bz) {
		struct bb_error err = BB_ERROR_INIT;

		if (bz_user_in_group(sc->bz, addr, sc->cfg->inbound_allow_group, &yes, &err))
			log_event(LOG_LEVEL_WARN, "inbound.group_check_failed", LF_STR("from", addr),
				  LF_STR("error", err.message));
	}
	return yes;
}

/* Whether the mail is from before the archive's reading began (its
 * history): its commands never act.  A mail without a usable Date counts
 * as history. */
int inbound_from_history(const struct inbound_options *opt, const struct inmail *m)
{
	time_t date;

	if (!opt->commands_since)
		return 0;
	date = inmail_date(m);
	return date <= 0 || date < opt->commands_since;
}

/* Who sent the mail, by [inbound] authenticate (mail/auth.h): only mails
 * that carry a command are checked.  The verdict is about the From:
 * domain, so the address the allow-lists are asked about must be in it.
 * A mail of the archive's history (inbound_from_history()) is not
 * checked: its commands never act, and a signature of years ago is checked
 * against today's keys, if any (a backfill would ask DNS once per
 * directive); its directives are marked as from a sender not
 * authenticated, saying why. */
enum bb_status inbound_sender_verdict(struct sync_context *sc, const struct inbound_options *opt,
				      const struct inmail *m, const char *raw, size_t len,
				      struct auth_verdict *v, struct bb_error *err)
{
	return inbound_sender_verdict_within(sc, opt, m, raw, len,
					     inbound_dns_timeout_ms(sc->cfg), v, err);
}

enum bb_status inbound_sender_verdict_within(struct sync_context *sc,
					     const struct inbound_options *opt,
					     const struct inmail *m, const char *raw, size_t len,
					     long dns_timeout_ms, struct auth_verdict *v,
					     struct bb_error *err)
{
	const struct bb_config *cfg = sc->cfg;
	int mode = auth_mode_parse(cfg->inbound_authenticate ? cfg->inbound_authenticate
							      : "dkim-or-authserv");
	struct auth_policy policy = {
		.mode = mode < 0 ? AUTH_MODE_DKIM_OR_AUTHSERV : (enum auth_mode)mode,
		.trusted_authserv_id = cfg->inbound_trusted_authserv_id,
		.dkim_key_file = cfg->inbound_dkim_key_file,
		.authserv_methods = cfg->inbound_authserv_methods,
	};
	const char *at = m->from_addr ? strrchr(m->from_addr, '@') : NULL;
	enum bb_status s;

	policy.dns_timeout_ms = dns_timeout_ms;
	if (policy.mode != AUTH_MODE_NONE && inbound_from_history(opt, m)) {
		memset(v, 0, sizeof(*v));
		snprintf(v->reason, sizeof(v->reason),
			 "not checked: the mail is from the archive's history");
		return BB_OK;
	}
	if ((s = auth_check(&policy, raw, len, v, err)))
		return s;
	if (v->authenticated && policy.mode != AUTH_MODE_NONE &&
	    (!at || g_ascii_strcasecmp(at + 1, v->from_domain))) {
		v->authenticated = 0;
		snprintf(v->reason, sizeof(v->reason), "the From: address is not in the domain %s",
			 v->from_domain);
	}
	log_event(v->authenticated ? LOG_LEVEL_INFO : LOG_LEVEL_WARN, "inbound.sender_checked",
		  LF_STR("message_id", m->message_id), LF_STR("from", m->from_addr),
		  LF_STR("authenticated", v->authenticated ? "yes" : v->temporary ? "not yet" : "no"),
		  LF_STR("method", v->method ? v->method : ""), LF_STR("reason", v->reason));
	return BB_OK;
}
