/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A mirrored bug's recipients as a round of the sync computes them, for
 * the round itself (bridge/sync.c) and for what changes a bug's route
 * between rounds (a hand-over, bridge/handover.c), so that both record
 * the same text and the next round sees no change where there is none.
 *
 * The route is router_route()'s (bridge/route.h) for the bug's product and
 * component, plus, with [routing] by_content = route and no [route] rule
 * of its own (the "default" rule), the lists of the MAINTAINERS section
 * its description points at, chosen once per bug and kept
 * (bug_content_route). */
#ifndef BB_SYNC_ROUTE_H
#define BB_SYNC_ROUTE_H

#include "bridge/route.h"
#include "bridge/sync.h"
#include "bugzilla/bug.h"

/* Adds the content route's lists to route->to (see above); nothing when
 * the bug has a rule of its own, by_content is not "route", or nothing
 * was matched.  Out of memory leaves route as it was. */
void sync_route_by_content(struct sync_context *sc, const struct bz_bug *bug,
			   struct route_result *route);

/* The route's recipients in words, as bz_bug.recipients records them and
 * the "Recipients changed" note names them: "a@x, b@y; Cc: Name <c@z>".
 * malloc'd, NULL when out of memory. */
char *sync_describe_recipients(const struct route_result *r);

#endif
