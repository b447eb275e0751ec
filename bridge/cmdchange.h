/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a #bugbridge command asks of Bugzilla (bridge/cmdchange.c). */
#ifndef BB_CMDCHANGE_H
#define BB_CMDCHANGE_H

#include <json-c/json.h>

#include "bridge/handover.h"
#include "bridge/mailcmd.h"
#include "bridge/sync.h"
#include "bugzilla/bz_fields.h"

/* The Bugzilla change a command asks for, as a JSON object (a string to
 * keep); NULL for commands that change nothing there (stop).  needinfo's
 * is {"needinfo": question, "to": "reporter" or the address, "by": the
 * sender}, which bridge/needinfo.c does (needinfo_command()).  *note gets
 * why a command cannot be done.  Values are as written: cmdchange_legal()
 * checks them against the server's when the command is done; a reopen
 * without [inbound] reopen_status asks for status "", the status the
 * workflow allows then. */
char *cmdchange_of(struct sync_context *sc, const struct mailcmd *c, const char *sender,
		   const char **note);

/* Makes a recorded change (do_command()) one the server takes: each
 * value of a field with legal values (GET /rest/field/bug, kept by the
 * client) in the server's spelling ("high" -> "High", "p1" -> "P1"), and
 * reopen's status "" the first open status the workflow allows from the
 * bug's current one (bz_fields_reopen_status(); the bug as stored).  NULL
 * when it is fine; else why not, malloc'd, listing the legal values: the
 * change is not sent.  Without the server's list (it could not be had)
 * values go as given, and reopen's status is REOPENED.  *nomem is set
 * when out of memory. */
char *cmdchange_legal(struct sync_context *sc, long long bug_id, json_object *o, int *nomem);

/* Whether bug (as Bugzilla has it now) already has the change o (a
 * recorded change after cmdchange_legal()): a close whose resolution (and
 * duplicate) the closed bug has, a reopen of a bug that is open (by the
 * server's open statuses f, else by an empty resolution), a component,
 * assignee (any case), title, priority or severity it has.  Then what it
 * has, "already ...", malloc'd (*nomem set when out of memory); else NULL:
 * the change is to be made. */
char *cmdchange_already(const struct bz_fields *f, const struct bz_bug *bug, json_object *o,
			int *nomem);

/* cmdchange_already() of the bug as Bugzilla has it now (one GET): *already
 * is NULL when the change is to be made, or when the bug cannot be seen
 * (the change then tells).  Bugzilla's failure is returned. */
enum bb_status cmdchange_current(struct sync_context *sc, long long bug_id, json_object *o,
				 char **already, struct bb_error *err);

#endif
