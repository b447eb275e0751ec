/* What a #bugbridge command asks of Bugzilla (bridge/cmdchange.c). */
#ifndef BB_CMDCHANGE_H
#define BB_CMDCHANGE_H

#include <json-c/json.h>

#include "bridge/mailcmd.h"
#include "bridge/sync.h"

/* The Bugzilla change a command asks for, as a JSON object (a string to
 * keep); NULL for commands that change nothing there (stop).  *note gets
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

#endif
