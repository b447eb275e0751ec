/* Routing: which bugs are mirrored, and to whom their mail goes.
 *
 * Rules come from the configuration ([route NAME] sections, first match
 * wins, then [routing] default_lists/default_people) and may name a
 * MAINTAINERS section, whose L: entries become list recipients and M:
 * entries people.  A rule's product/component/subsystem match
 * case-insensitively; unset ones match anything.
 */
#ifndef BB_ROUTE_H
#define BB_ROUTE_H

#include "bridge/bug.h"
#include "bridge/maintainers.h"
#include "config/conf.h"
#include "core/status.h"

struct route_result {
	char **to;                /* lists, NULL-terminated, de-duplicated addresses */
	char **cc;                /* people: "Name <addr>" or addr */
	const char *rule;         /* the matching rule's name, or "default" */
};

struct router;

/* cfg and mf (may be NULL) must outlive the router. */
enum bb_status router_new(struct router **out, const struct bb_config *cfg,
			  const struct mnt_file *mf, struct bb_error *err);
void router_free(struct router *r);

/* Whether bug is mirrored: configured products, components, statuses,
 * keyword and age (now - last change), and never a bug restricted to groups.
 * reason (if not NULL) gets why not, for logs. */
int router_wants(const struct router *r, const struct bz_bug *bug, time_t now,
		 const char **reason);

/* Recipients of mail about bug.  BB_ERR_NOT_FOUND when nothing routes it
 * (no rule, no default).  Free with route_result_release(). */
enum bb_status router_route(const struct router *r, const struct bz_bug *bug,
			    struct route_result *res, struct bb_error *err);
void route_result_release(struct route_result *res);

#endif
