/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A mirrored bug's recipients as a round computes them: see sync_route.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <sqlite3.h>

#include "bridge/sync_route.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/store.h"
#include "mail/maintainers.h"
#include "triage/match.h"

static char *join_people(char *const *list, const char *sep)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; list && list[i]; i++)
		buf_addf(&b, "%s%s", i ? sep : "", list[i]);
	return buf_detach(&b, NULL);
}

char *sync_describe_recipients(const struct route_result *r)
{
	char *to = join_people(r->to, ", "), *cc = join_people(r->cc, ", ");
	char *out = str_printf("%s%s%s", to, *cc ? "; Cc: " : "", cc);

	free(to);
	free(cc);
	return out;
}

/* The section by_content = route chose for the bug before: 1 with *top
 * (NULL when none matched then), 0 when it never chose or the section is
 * gone from MAINTAINERS. */
static int content_route_known(struct sync_context *sc, long long bug,
			       const struct mnt_section **top)
{
	sqlite3_stmt *st = NULL;
	int known = 0;

	*top = NULL;
	if (store_cached(sc->db, &st, "SELECT section FROM bug_content_route WHERE bug_id = ?",
			 NULL))
		return 0;
	sqlite3_bind_int64(st, 1, bug);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		*top = name && *name ? mnt_find(tri_matcher_file(sc->matcher), name) : NULL;
		known = !(name && *name) || *top;
	}
	store_cached_done(sc->db, st);
	return known;
}

/* [routing] by_content = route: a bug no [route] rule matched also goes
 * to the lists of the section its description points at first, chosen
 * once per bug (bug_content_route): the reader, the matcher and the tree's
 * greps run for its first mail, not each round it changes. */
void sync_route_by_content(struct sync_context *sc, const struct bz_bug *bug,
			   struct route_result *route)
{
	struct tri_report *report = NULL;
	struct tri_ranking *rank = NULL;
	const struct mnt_section *top;
	size_t n = 0;

	if (!sc->matcher || !sc->cfg->routing_by_content ||
	    strcmp(sc->cfg->routing_by_content, "route") || !route->rule ||
	    strcmp(route->rule, "default"))
		return;
	if (!content_route_known(sc, bug->id, &top)) {
		sqlite3_stmt *st = NULL;

		if (!sync_triage_of(sc, bug, 1, &report, &rank))
			return;
		top = rank && rank->n ? rank->matches[0].section : NULL;
		if (!store_cached(sc->db, &st, "INSERT OR REPLACE INTO bug_content_route (bug_id,"
				  " section, chosen) VALUES (?, ?, ?)", NULL)) {
			sqlite3_bind_int64(st, 1, bug->id);
			sqlite3_bind_text(st, 2, top ? top->name : "", -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL));
			if (sqlite3_step(st) != SQLITE_DONE)
				log_event(LOG_LEVEL_WARN, "sync.route_by_content",
					  LF_INT("bug", bug->id), LF_STR("error", "not recorded"));
			store_cached_done(sc->db, st);
		}
	}
	while (route->to && route->to[n])
		n++;
	for (size_t i = 0; top && top->lists[i]; i++) {
		char **to;
		int known = 0;

		for (size_t k = 0; k < n && !known; k++)
			known = !strcasecmp(route->to[k], top->lists[i]);
		if (known || !(to = realloc(route->to, (n + 2) * sizeof(*to))))
			continue;
		route->to = to;
		if ((to[n] = strdup(top->lists[i])))
			n++;
		to[n] = NULL;
	}
	if (top)
		log_event(LOG_LEVEL_INFO, "sync.route_by_content", LF_INT("bug", bug->id),
			  LF_STR("section", top->name));
	tri_ranking_free(rank);
	tri_report_free(report);
}
