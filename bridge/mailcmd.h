/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Commands in list mail: "#bugbridge <verb> [argument]".
 *
 * A command stands on its own line of the writer's own text: not in quoted
 * text, not in a diff, not in the signature, not below a line that starts
 * a forwarded or Outlook-quoted mail ("---------- Forwarded message
 * ---------", "Begin forwarded message:", "-----Original Message-----", a
 * rule of underscores before "From:", Outlook's "From:" line before
 * "Sent:"): inmail_lines_next() decides.
 * Blanks before it are allowed; the keyword and verb are read without
 * regard to case, and a ':' after either is tolerated ("#bugbridge title:
 * New title").  The verbs:
 *
 *   close [RESOLUTION]          resolution upper-cased (FIXED, CODE_FIX, ...);
 *   close DUPLICATE <bug>       dup_of set
 *   reopen
 *   reassign <target>           the rest of the line: <product>/<component>,
 *                               a component, a route or MAINTAINERS section
 *                               (bridge/handover.h hands the bug over)
 *   assign <address|me>         an address ("Name <a@b>" accepted) or "me"
 *   title <text>                the rest of the line, at most 255 characters
 *   priority <value>            one word
 *   severity <value>            one word
 *   stop                        stop mirroring this bug
 *   track                       mirror this bug
 *   needinfo [reporter|<address>] <question>
 *                               ask the reporter (the default) or an address;
 *                               the question is the rest of the line
 *   subscribe                   Cc the sender on the bug's mails
 *   unsubscribe (or uncc)       Cc the sender on them no more
 *   no-reminders                no needinfo reminders, aging questions or
 *                               digest entries for this bug (bridge/digest.h)
 *
 * In a reply to a digest, "#bugbridge <n> <verb> ..." names entry n of the
 * digest (mailcmd_parse_entries(), mailcmd.entry); elsewhere a number there
 * is not understood.
 *
 * Which resolutions, priorities and severities exist is Bugzilla's to say;
 * only the form is checked here.  An unknown verb or a malformed argument
 * gives a MAILCMD_INVALID entry with the line and what was not understood,
 * never silence.  "#regzbot" lines are not bridge commands and are left
 * alone.
 */
#ifndef BB_MAILCMD_H
#define BB_MAILCMD_H

#include <stddef.h>

#include "core/status.h"

/* Most commands read from one mail; the rest give one MAILCMD_INVALID. */
#define MAILCMD_MAX 32
/* Longest command line read, in bytes; longer ones are MAILCMD_INVALID. */
#define MAILCMD_LINE_MAX 1000

enum mailcmd_verb {
	MAILCMD_INVALID = 0,
	MAILCMD_CLOSE,
	MAILCMD_REOPEN,
	MAILCMD_REASSIGN,
	MAILCMD_ASSIGN,
	MAILCMD_TITLE,
	MAILCMD_PRIORITY,
	MAILCMD_SEVERITY,
	MAILCMD_STOP,
	MAILCMD_TRACK,
	MAILCMD_NEEDINFO,
	MAILCMD_SUBSCRIBE,
	MAILCMD_UNSUBSCRIBE,
	MAILCMD_NO_REMINDERS,
};

struct mailcmd {
	enum mailcmd_verb verb;
	/* close: the resolution or NULL; reassign: the target as written;
	 * assign: the address, or "me"; title; priority; severity.  NULL for
	 * verbs without one; needinfo: the question.  UTF-8, no controls. */
	char *arg;
	char *to;          /* needinfo: "reporter" or the address asked; else NULL */
	long long dup_of;  /* close DUPLICATE <bug>, else 0 */
	int entry;         /* "#bugbridge <n> <verb>": n, else 0 */
	unsigned line;     /* 1-based line number in the body */
	char *text;        /* the line as written (trimmed, cleaned), for replies */
	char *error;       /* MAILCMD_INVALID: what was not understood, else NULL */
};

/* Reads the commands of a mail body (UTF-8, as inmail_decode() gives it).
 * On success *cmds is a malloc'd array of *n entries in body order (NULL
 * and 0 if none; mailcmd_free() it).  Only BB_ERR_NOMEM is an error. */
enum bb_status mailcmd_parse(const char *body, struct mailcmd **cmds, size_t *n,
			     struct bb_error *err);
/* The same for a reply to a digest: "#bugbridge <n> <verb> ..." gives
 * entry n (mailcmd.entry; 0 when no number is written). */
enum bb_status mailcmd_parse_entries(const char *body, struct mailcmd **cmds, size_t *n,
				     struct bb_error *err);
void mailcmd_free(struct mailcmd *cmds, size_t n);
/* "close", "reopen", ...; "invalid" for MAILCMD_INVALID. */
const char *mailcmd_verb_str(enum mailcmd_verb verb);
/* The text of the one reply a mail with invalid commands gets: each
 * command that was not understood, with its line and why, and the list of
 * commands.  malloc'd (free() it); NULL if all commands were understood
 * (or out of memory: check for errors with n and cmds first). */
char *mailcmd_error_reply(const struct mailcmd *cmds, size_t n);

#endif
