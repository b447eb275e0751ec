/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Routing: which bugs are mirrored, and to whom their mail goes.
 *
 * Rules come from the configuration ([route NAME] sections, first match
 * wins, then [routing] default_lists/default_people) and may name a
 * MAINTAINERS section, whose L: entries become list recipients and M:
 * entries people.  A rule's product/component/subsystem match
 * case-insensitively (ASCII, ignoring surrounding white space); unset ones
 * match anything.  The subsystem is the bug's [bugzilla] subsystem_field;
 * when that holds several values ("a, b"), the rule matches any of them.
 */
#ifndef BB_ROUTE_H
#define BB_ROUTE_H

#include <time.h>

#include "bugzilla/bug.h"
#include "config/conf.h"
#include "core/status.h"
#include "mail/maintainers.h"

struct route_result {
	char **to;                /* lists: bare addresses, NULL-terminated, de-duplicated
				   * case-insensitively */
	char **cc;                /* people: "Name <addr>" or addr, NULL-terminated; none
				   * whose address is already in to or earlier in cc */
	const char *rule;         /* the matching rule's name (owned by the config), or
				   * "default" */
};

struct router;

/* Checks the rules against the configuration and mf, and fails with
 * BB_ERR_CONFIG (the message names the rule) when:
 *   - a rule names a maintainers_section and mf is NULL (no MAINTAINERS
 *     file loaded), or mf has no section of that name;
 *   - a rule matches on subsystem but [bugzilla] subsystem_field is unset;
 *   - an item of lists, people, default_lists or default_people holds no
 *     address.
 * cfg and mf (may be NULL) must outlive the router.  Free with
 * router_free(). */
enum bb_status router_new(struct router **out, const struct bb_config *cfg,
			  const struct mnt_file *mf, struct bb_error *err);
void router_free(struct router *r);

/* Whether bug is mirrored:
 *   - never a bug restricted to groups;
 *   - its product in [bugzilla] products and its component in components
 *     (case-insensitive; an unset or empty list allows all);
 *   - its status in statuses (case-sensitive, as Bugzilla's are upper case;
 *     an empty list allows all);
 *   - keyword (if set): among the bug's keywords (case-insensitive), or a
 *     flag of that name granted or requested ("name+", "name?") in the bug's
 *     "flags" field, if the reader provides one (items joined with ", ");
 *   - max_age (if not 0): now - last_change_time <= max_age.
 * reason (if not NULL) gets why not, a static string for logs; NULL when the
 * bug is wanted. */
int router_wants(const struct router *r, const struct bz_bug *bug, time_t now,
		 const char **reason);

/* Recipients of mail about bug: the first rule that matches and gives at
 * least one recipient (to = the rule's lists, then its MAINTAINERS
 * section's L:; cc = the rule's people, then the section's M:), else
 * default_lists and default_people.  BB_ERR_NOT_FOUND when that gives
 * nobody; the message names the bug, its product and component.  res is
 * always initialised: on failure it is empty.  Free with
 * route_result_release(). */
enum bb_status router_route(const struct router *r, const struct bz_bug *bug,
			    struct route_result *res, struct bb_error *err);
void route_result_release(struct route_result *res);

/* Whether a and b reach the same addresses the same way (to as to, cc as
 * cc), ignoring order, case and display names. */
int router_same_recipients(const struct route_result *a, const struct route_result *b);
/* "linux-wireless@vger.kernel.org; Cc: Johannes Berg <johannes@sipsolutions.net>"
 * (lists joined with ", ", "; Cc: " and people only when there are some;
 * "(nobody)" for an empty result).  malloc'd; NULL when out of memory. */
char *route_result_describe(const struct route_result *r);

/* Whether the addresses of two entries ("Name <a@x>", "a@x") are the same,
 * case aside (mnt_address_span()). */
int route_address_equal(const char *a, const char *b);
/* Whether the NULL-terminated list (may be NULL) holds entry's address. */
int route_has_address(char *const *list, const char *entry);
/* Adds a copy of entry at the end of route->cc; 0, or -1 when out of
 * memory (route unchanged). */
int route_cc_add(struct route_result *route, const char *entry);
/* The SMTP envelope of a mail to r: the bare addresses of r->to, then of
 * r->cc, then extra (NULL or an entry of its own, in the envelope only:
 * a reporter, for instance), each once.  NULL-terminated, malloc'd, each
 * entry too (route_envelope_free()); NULL when out of memory. */
char **route_envelope(const struct route_result *r, const char *extra);
void route_envelope_free(char **rcpt);

#endif
