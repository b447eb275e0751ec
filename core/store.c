/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "core/buf.h"
#include "core/digest.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/store.h"
#include "core/store_schema.h"

/* Each entry takes the schema from version i to version i + 1.  Never edit a
 * migration that has been released; add a new one, then write the schema a
 * new database is given at once again (BUGBRIDGE_PRINT_FRESH_SCHEMA=1
 * tests/unit/test-store > core/store_schema.c; test-store fails until then,
 * while a new database gets the old one and the steps after it). */
static const char *const migrations[] = {
	/* 0 -> 1: the attachment store */
	"CREATE TABLE meta ("
	"  key TEXT PRIMARY KEY,"
	"  value TEXT NOT NULL"
	") WITHOUT ROWID;"
	"CREATE TABLE blob ("
	"  hash TEXT PRIMARY KEY,"              /* lowercase hex SHA-256 */
	"  size INTEGER NOT NULL,"
	"  content_type TEXT NOT NULL,"         /* from the bytes (libmagic) */
	"  first_seen INTEGER NOT NULL,"        /* unix seconds */
	"  last_seen INTEGER NOT NULL,"         /* last time it was stored again */
	"  archive_status TEXT,"                /* NULL: not an archive; ok, too-large, error */
	"  archive_format TEXT,"
	"  archive_note TEXT"
	") WITHOUT ROWID;"
	"CREATE INDEX blob_by_size ON blob(size);"
	"CREATE TABLE blob_name ("
	"  id INTEGER PRIMARY KEY,"
	"  hash TEXT NOT NULL REFERENCES blob(hash) ON DELETE CASCADE,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  declared_type TEXT NOT NULL DEFAULT '',"  /* what the uploader claimed */
	"  origin TEXT NOT NULL,"                    /* upload, bugzilla-attachment, mail-part, archive-member */
	"  origin_ref TEXT NOT NULL DEFAULT '',"     /* attachment id, message-id, parent hash */
	"  added INTEGER NOT NULL,"
	"  UNIQUE (hash, name, declared_type, origin, origin_ref)"
	");"
	"CREATE TABLE blob_member ("
	"  parent TEXT NOT NULL REFERENCES blob(hash) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  depth INTEGER NOT NULL,"             /* 1 for a direct member */
	"  path TEXT NOT NULL,"                 /* nested members: outer.zip!/inner/file */
	"  kind TEXT NOT NULL,"                 /* file, dir, symlink, hardlink, other */
	"  size INTEGER,"
	"  hash TEXT,"                          /* SHA-256 of the member's bytes */
	"  note TEXT,"
	"  PRIMARY KEY (parent, seq)"
	") WITHOUT ROWID;"
	"CREATE INDEX blob_member_by_hash ON blob_member(hash);"
	"CREATE TABLE blob_ref ("
	"  hash TEXT NOT NULL REFERENCES blob(hash) ON DELETE CASCADE,"
	"  kind TEXT NOT NULL,"                 /* pin, member-of, bug-attachment, mail */
	"  ref TEXT NOT NULL,"
	"  created INTEGER NOT NULL,"
	"  PRIMARY KEY (hash, kind, ref)"
	") WITHOUT ROWID;"
	"CREATE INDEX blob_ref_by_ref ON blob_ref(kind, ref);",

	/* 1 -> 2: the outbound bridge */
	"CREATE TABLE cursor ("
	"  source TEXT PRIMARY KEY,"            /* bugzilla:<url>, archive:<url>, ... */
	"  value TEXT NOT NULL,"                /* e.g. a Bugzilla time 2026-12-03T08:01:55Z */
	"  updated INTEGER NOT NULL"
	") WITHOUT ROWID;"
	"CREATE TABLE bz_bug ("
	"  id INTEGER PRIMARY KEY,"             /* Bugzilla bug id */
	"  summary TEXT NOT NULL DEFAULT '',"
	"  product TEXT NOT NULL DEFAULT '',"
	"  component TEXT NOT NULL DEFAULT '',"
	"  subsystem TEXT NOT NULL DEFAULT '',"
	"  status TEXT NOT NULL DEFAULT '',"
	"  resolution TEXT NOT NULL DEFAULT '',"
	"  severity TEXT NOT NULL DEFAULT '',"
	"  priority TEXT NOT NULL DEFAULT '',"
	"  assigned_to TEXT NOT NULL DEFAULT '',"
	"  reporter TEXT NOT NULL DEFAULT '',"
	"  creation_time INTEGER NOT NULL DEFAULT 0,"
	"  last_change_time INTEGER NOT NULL DEFAULT 0,"
	"  restricted INTEGER NOT NULL DEFAULT 0,"    /* in a group: never mailed */
	"  mirrored INTEGER NOT NULL DEFAULT 1,"      /* 0: not (or no longer) mirrored */
	"  recipients TEXT NOT NULL DEFAULT '',"      /* To/Cc of the last mail */
	"  fields TEXT NOT NULL DEFAULT '{}'"         /* JSON snapshot for change notes */
	");"
	"CREATE TABLE bz_comment ("
	"  id INTEGER PRIMARY KEY,"             /* Bugzilla comment id */
	"  bug_id INTEGER NOT NULL,"
	"  count INTEGER NOT NULL,"             /* 0 is the description */
	"  author TEXT NOT NULL DEFAULT '',"
	"  time INTEGER NOT NULL DEFAULT 0,"
	"  is_private INTEGER NOT NULL DEFAULT 0,"
	"  origin TEXT NOT NULL DEFAULT 'bugzilla',"  /* bridge: posted by bugbridge, never mailed back */
	"  message_id TEXT"                     /* the mail made of it, if any */
	");"
	"CREATE INDEX bz_comment_by_bug ON bz_comment(bug_id, count);"
	"CREATE TABLE bz_attachment ("
	"  id INTEGER PRIMARY KEY,"             /* Bugzilla attachment id */
	"  bug_id INTEGER NOT NULL,"
	"  file_name TEXT NOT NULL DEFAULT '',"
	"  content_type TEXT NOT NULL DEFAULT '',"
	"  size INTEGER NOT NULL DEFAULT 0,"
	"  is_private INTEGER NOT NULL DEFAULT 0,"
	"  blob_hash TEXT,"                     /* set once stored */
	"  state TEXT NOT NULL DEFAULT 'pending'," /* pending, stored, failed, skipped */
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_attempt INTEGER NOT NULL DEFAULT 0,"
	"  last_error TEXT"
	");"
	"CREATE INDEX bz_attachment_by_bug ON bz_attachment(bug_id);"
	"CREATE TABLE outbox ("
	"  id INTEGER PRIMARY KEY,"
	"  message_id TEXT NOT NULL UNIQUE,"    /* without angle brackets */
	"  bug_id INTEGER,"
	"  comment_id INTEGER,"
	"  sender TEXT NOT NULL,"               /* envelope sender */
	"  recipients TEXT NOT NULL,"           /* comma-separated envelope recipients */
	"  message BLOB NOT NULL,"              /* the whole RFC 5322 message, CRLF-free */
	"  state TEXT NOT NULL DEFAULT 'queued',"  /* queued, sent, failed */
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_attempt INTEGER NOT NULL DEFAULT 0,"
	"  last_error TEXT,"
	"  created INTEGER NOT NULL,"
	"  sent INTEGER"
	");"
	"CREATE INDEX outbox_by_state ON outbox(state, next_attempt);",

	/* 2 -> 3: the inbound bridge */
	"CREATE TABLE in_mail ("
	"  id INTEGER PRIMARY KEY,"
	"  message_id TEXT NOT NULL UNIQUE,"    /* without angle brackets */
	"  source TEXT NOT NULL,"               /* the archive it came from */
	"  bug_id INTEGER,"                     /* the bug it belongs to, NULL if none */
	"  parent TEXT,"                        /* the known Message-ID it answers */
	"  from_addr TEXT NOT NULL DEFAULT '',"
	"  subject TEXT NOT NULL DEFAULT '',"
	"  date INTEGER NOT NULL DEFAULT 0,"
	/* seen (belongs to no bug), ignored (own mail, auto-reply, ...),
	 * intent (a comment is about to be posted), posted, no-comment
	 * (commands only), rejected (malformed) */
	"  state TEXT NOT NULL,"
	"  reason TEXT,"
	"  comment TEXT,"                       /* the comment to post, NULL if none */
	"  comment_id INTEGER,"                 /* the Bugzilla comment made of it */
	"  updated INTEGER NOT NULL"
	");"
	"CREATE INDEX in_mail_by_bug ON in_mail(bug_id);"
	"CREATE TABLE in_command ("
	"  mail INTEGER NOT NULL REFERENCES in_mail(id),"
	"  seq INTEGER NOT NULL,"               /* its place among the mail's commands */
	"  bug_id INTEGER,"
	"  line TEXT NOT NULL,"                 /* the command as written */
	"  change TEXT,"                        /* JSON {field: value} to PUT, NULL if local */
	/* intent, done, refused (sender not allowed), failed (Bugzilla said no),
	 * invalid (not understood: answered on the thread) */
	"  state TEXT NOT NULL,"
	"  note TEXT,"
	"  PRIMARY KEY (mail, seq)"
	") WITHOUT ROWID;"
	/* real names of Bugzilla accounts, so each is asked for once */
	"CREATE TABLE bz_user ("
	"  login TEXT PRIMARY KEY,"
	"  real_name TEXT NOT NULL,"            /* '' when the server did not tell */
	"  updated INTEGER NOT NULL"
	") WITHOUT ROWID;",

	/* 3 -> 4: the regression tracker (tracker/tracker.h) */
	"CREATE TABLE reg_regression ("
	"  id INTEGER PRIMARY KEY,"
	"  title TEXT NOT NULL DEFAULT '',"
	"  state TEXT NOT NULL DEFAULT 'open',"  /* open, fix-incoming, fixed, resolved, inconclusive, duplicate */
	"  branch TEXT NOT NULL DEFAULT 'mainline',"
	"  introduced TEXT NOT NULL DEFAULT '',"
	"  culprit TEXT NOT NULL DEFAULT '',"
	"  report_msgid TEXT NOT NULL DEFAULT '',"
	"  report_url TEXT NOT NULL DEFAULT '',"
	"  bug_id INTEGER NOT NULL DEFAULT 0,"
	"  reporter TEXT NOT NULL DEFAULT '',"
	"  dup_of INTEGER NOT NULL DEFAULT 0,"
	"  fix_commit TEXT NOT NULL DEFAULT '',"
	"  fix_subject TEXT NOT NULL DEFAULT '',"
	"  fix_tree TEXT NOT NULL DEFAULT '',"
	"  resolution TEXT NOT NULL DEFAULT '',"
	"  backburner INTEGER NOT NULL DEFAULT 0,"
	"  ignore_activity INTEGER NOT NULL DEFAULT 0,"
	"  poked INTEGER NOT NULL DEFAULT 0,"
	"  created INTEGER NOT NULL,"
	"  updated INTEGER NOT NULL,"
	"  last_activity INTEGER NOT NULL,"
	"  activity_count INTEGER NOT NULL DEFAULT 0,"
	"  last_activity_by TEXT NOT NULL DEFAULT '',"
	"  last_activity_msgid TEXT NOT NULL DEFAULT ''"
	");"
	"CREATE INDEX reg_by_bug ON reg_regression(bug_id) WHERE bug_id > 0;"
	/* mails of a regression: report, thread (seen in it), monitor (a
	 * thread it watches) */
	"CREATE TABLE reg_mail ("
	"  message_id TEXT NOT NULL,"
	"  regression INTEGER NOT NULL REFERENCES reg_regression(id) ON DELETE CASCADE,"
	"  kind TEXT NOT NULL,"
	"  PRIMARY KEY (message_id, regression)"
	") WITHOUT ROWID;"
	"CREATE INDEX reg_mail_by_regression ON reg_mail(regression);"
	"CREATE TABLE reg_link ("
	"  regression INTEGER NOT NULL REFERENCES reg_regression(id) ON DELETE CASCADE,"
	"  url TEXT NOT NULL,"
	"  title TEXT NOT NULL DEFAULT '',"
	"  kind TEXT NOT NULL,"                 /* link, monitor */
	"  PRIMARY KEY (regression, url)"
	") WITHOUT ROWID;"
	"CREATE TABLE reg_event ("
	"  id INTEGER PRIMARY KEY,"
	"  regression INTEGER NOT NULL REFERENCES reg_regression(id) ON DELETE CASCADE,"
	"  time INTEGER NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  text TEXT NOT NULL DEFAULT '',"
	"  message_id TEXT NOT NULL DEFAULT ''"
	");"
	"CREATE INDEX reg_event_by_regression ON reg_event(regression, time);"
	"CREATE INDEX reg_event_by_time ON reg_event(time);"
	"CREATE INDEX reg_event_by_message ON reg_event(message_id) WHERE message_id != '';"
	"CREATE TABLE reg_unhandled ("
	"  id INTEGER PRIMARY KEY,"
	"  time INTEGER NOT NULL,"
	"  message_id TEXT NOT NULL,"
	"  line TEXT NOT NULL,"
	"  reason TEXT NOT NULL,"
	"  UNIQUE (message_id, line)"
	");"
	/* where a regression's fix was seen */
	"CREATE TABLE reg_fix ("
	"  regression INTEGER NOT NULL REFERENCES reg_regression(id) ON DELETE CASCADE,"
	"  tree TEXT NOT NULL,"
	"  commit_hash TEXT NOT NULL,"
	"  subject TEXT NOT NULL DEFAULT '',"
	"  time INTEGER NOT NULL,"
	"  PRIMARY KEY (regression, tree, commit_hash)"
	") WITHOUT ROWID;"
	/* notes for the Bugzilla bug of a regression (its fix), posted once */
	"CREATE TABLE reg_push ("
	"  id INTEGER PRIMARY KEY,"
	"  regression INTEGER NOT NULL,"
	"  bug_id INTEGER NOT NULL,"
	"  marker TEXT NOT NULL UNIQUE,"        /* a line only this note carries */
	"  text TEXT NOT NULL,"
	"  state TEXT NOT NULL DEFAULT 'intent'," /* intent, posted */
	"  comment_id INTEGER,"
	"  created INTEGER NOT NULL"
	");",

	/* 4 -> 5: migration off Bugzilla (bugbridge import / export) and the
	 * front door for filing reports; and the index the inbound side
	 * needs to find a list mail's parent among the mailed comments */
	"CREATE INDEX bz_comment_by_message_id ON bz_comment(message_id)"
	"  WHERE message_id IS NOT NULL;"
	"CREATE TABLE imp_bug ("
	"  id INTEGER PRIMARY KEY,"             /* the Bugzilla bug id */
	"  source TEXT NOT NULL,"               /* the instance URL, or xml:<file> */
	"  summary TEXT NOT NULL DEFAULT '',"
	"  product TEXT NOT NULL DEFAULT '',"
	"  component TEXT NOT NULL DEFAULT '',"
	"  status TEXT NOT NULL DEFAULT '',"
	"  resolution TEXT NOT NULL DEFAULT '',"
	"  severity TEXT NOT NULL DEFAULT '',"
	"  priority TEXT NOT NULL DEFAULT '',"
	"  version TEXT NOT NULL DEFAULT '',"
	"  reporter TEXT NOT NULL DEFAULT '',"  /* login */
	"  reporter_name TEXT NOT NULL DEFAULT '',"
	"  assigned_to TEXT NOT NULL DEFAULT '',"
	"  url TEXT NOT NULL DEFAULT '',"
	"  dupe_of INTEGER NOT NULL DEFAULT 0,"
	"  creation_time INTEGER NOT NULL DEFAULT 0,"
	"  last_change_time INTEGER NOT NULL DEFAULT 0,"
	"  keywords TEXT NOT NULL DEFAULT '[]',"  /* JSON arrays ... */
	"  cc TEXT NOT NULL DEFAULT '[]',"
	"  groups TEXT NOT NULL DEFAULT '[]',"  /* non-empty: restricted, never exported publicly */
	"  flags TEXT NOT NULL DEFAULT '[]',"   /* [{name, status, setter, requestee}] */
	"  fields TEXT NOT NULL DEFAULT '{}',"  /* custom fields: {cf_x: value} */
	"  complete INTEGER NOT NULL DEFAULT 0," /* comments, attachments, history all in */
	"  imported INTEGER NOT NULL"           /* when an import last changed it */
	");"
	"CREATE TABLE imp_comment ("
	"  id INTEGER PRIMARY KEY,"             /* the Bugzilla comment id */
	"  bug_id INTEGER NOT NULL,"
	"  count INTEGER NOT NULL,"
	"  author TEXT NOT NULL DEFAULT '',"
	"  author_name TEXT NOT NULL DEFAULT '',"
	"  time INTEGER NOT NULL DEFAULT 0,"
	"  text TEXT NOT NULL DEFAULT '',"
	"  is_private INTEGER NOT NULL DEFAULT 0,"  /* stays private: never exported publicly */
	"  attachment_id INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE INDEX imp_comment_by_bug ON imp_comment(bug_id, count);"
	"CREATE TABLE imp_attachment ("
	"  id INTEGER PRIMARY KEY,"
	"  bug_id INTEGER NOT NULL,"
	"  file_name TEXT NOT NULL DEFAULT '',"
	"  summary TEXT NOT NULL DEFAULT '',"
	"  content_type TEXT NOT NULL DEFAULT '',"
	"  size INTEGER NOT NULL DEFAULT 0,"    /* as Bugzilla reports it */
	"  creator TEXT NOT NULL DEFAULT '',"
	"  time INTEGER NOT NULL DEFAULT 0,"
	"  is_private INTEGER NOT NULL DEFAULT 0,"
	"  is_obsolete INTEGER NOT NULL DEFAULT 0,"
	"  is_patch INTEGER NOT NULL DEFAULT 0,"
	"  blob_hash TEXT,"                     /* in the blob store once fetched */
	"  state TEXT NOT NULL DEFAULT 'pending'," /* pending, stored, failed */
	"  note TEXT"                           /* why it failed (size mismatch, ...) */
	");"
	"CREATE INDEX imp_attachment_by_bug ON imp_attachment(bug_id);"
	"CREATE TABLE imp_history ("
	"  bug_id INTEGER NOT NULL,"
	"  seq INTEGER NOT NULL,"               /* order within the bug */
	"  who TEXT NOT NULL DEFAULT '',"
	"  time INTEGER NOT NULL DEFAULT 0,"
	"  field TEXT NOT NULL,"
	"  removed TEXT NOT NULL DEFAULT '',"
	"  added TEXT NOT NULL DEFAULT '',"
	"  attachment_id INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (bug_id, seq)"
	") WITHOUT ROWID;"
	/* what an import left out, with the reason, for its summary */
	"CREATE TABLE imp_skip ("
	"  id INTEGER PRIMARY KEY,"
	"  source TEXT NOT NULL,"
	"  bug_id INTEGER NOT NULL DEFAULT 0,"
	"  what TEXT NOT NULL,"                 /* bug, comment, attachment, file */
	"  ref TEXT NOT NULL DEFAULT '',"
	"  reason TEXT NOT NULL,"
	"  time INTEGER NOT NULL"
	");"
	/* reports filed through bugbridge serve's front door */
	"CREATE TABLE fd_report ("
	"  id INTEGER PRIMARY KEY,"
	"  token TEXT NOT NULL UNIQUE,"         /* secret in the confirmation link */
	"  email TEXT NOT NULL,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  title TEXT NOT NULL,"
	"  description TEXT NOT NULL,"
	"  kernel_version TEXT NOT NULL DEFAULT '',"
	"  regression TEXT NOT NULL DEFAULT '',"  /* last good version, culprit, ... */
	"  product TEXT NOT NULL DEFAULT '',"
	"  component TEXT NOT NULL DEFAULT '',"
	"  state TEXT NOT NULL DEFAULT 'unconfirmed'," /* unconfirmed, confirmed, sent, expired */
	"  message_id TEXT,"                    /* the mail it became */
	"  bug_id INTEGER NOT NULL DEFAULT 0,"  /* the Bugzilla bug, where configured */
	"  client TEXT NOT NULL DEFAULT '',"    /* the submitter's address, for rate limits */
	"  created INTEGER NOT NULL,"
	"  confirmed INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE TABLE fd_attachment ("
	"  report INTEGER NOT NULL REFERENCES fd_report(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  blob_hash TEXT NOT NULL,"
	"  file_name TEXT NOT NULL DEFAULT '',"
	"  PRIMARY KEY (report, seq)"
	") WITHOUT ROWID;",
	/* 5 -> 6: fix directives looked up in a tree's history */
	"CREATE TABLE reg_fix_lookup ("
	"  regression INTEGER NOT NULL,"
	"  tree TEXT NOT NULL,"
	"  fix TEXT NOT NULL,"                  /* the commit or subject looked for */
	"  PRIMARY KEY (regression, tree)"
	") WITHOUT ROWID;",
	/* 6 -> 7: the front door's per-client budgets, one row per POST to
	 * /report (refused ones included), reserved when the request starts */
	"CREATE TABLE fd_budget ("
	"  id INTEGER PRIMARY KEY,"
	"  client TEXT NOT NULL,"
	"  time INTEGER NOT NULL,"
	"  bytes INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE INDEX fd_budget_client ON fd_budget (client, time);",
	/* 7 -> 8: who a list mail's sender is: a mail whose sender was
	 * authenticated ([inbound] authenticate) gets its commands answered;
	 * a regression's history marks what an unauthenticated sender's
	 * #regzbot directive did, with the reason */
	("ALTER TABLE in_mail ADD COLUMN authenticated INTEGER NOT NULL DEFAULT 0;"
	 "ALTER TABLE reg_event ADD COLUMN unverified TEXT NOT NULL DEFAULT '';"),
	/* 8 -> 9: an imported bug keeps its structure: aliases (a JSON array,
	 * Bugzilla 5 has a list), QA contact (a login), target milestone,
	 * OS, platform, and its dependency graph (JSON arrays of bug ids).
	 * An import always writes alias as a list: '' marks a bug imported
	 * before, which the next import reads again, and the next REST import
	 * is a whole pass (its cursor starts over) so that it sees them all */
	("ALTER TABLE imp_bug ADD COLUMN alias TEXT NOT NULL DEFAULT '';"
	 "ALTER TABLE imp_bug ADD COLUMN qa_contact TEXT NOT NULL DEFAULT '';"
	 "ALTER TABLE imp_bug ADD COLUMN target_milestone TEXT NOT NULL DEFAULT '';"
	 "ALTER TABLE imp_bug ADD COLUMN op_sys TEXT NOT NULL DEFAULT '';"
	 "ALTER TABLE imp_bug ADD COLUMN platform TEXT NOT NULL DEFAULT '';"
	 "ALTER TABLE imp_bug ADD COLUMN depends_on TEXT NOT NULL DEFAULT '[]';"
	 "ALTER TABLE imp_bug ADD COLUMN blocks TEXT NOT NULL DEFAULT '[]';"
	 "DELETE FROM cursor WHERE source LIKE 'import:%' AND source NOT LIKE 'import:xml:%';"),
	/* 9 -> 10: ordinary mirrored bugs follow their fixes too: a reg_push
	 * note of regression 0 is for a bug that is no regression, and
	 * close_fixed = 1 asks that the bug, still open once the note is
	 * posted, be set RESOLVED FIXED ([bugzilla] close_on_fix) */
	"ALTER TABLE reg_push ADD COLUMN close_fixed INTEGER NOT NULL DEFAULT 0;",
	/* 10 -> 11: a list reply whose posting failed for a temporary reason
	 * backs off on its own, so that one bug's trouble never holds up the
	 * replies to the others */
	("ALTER TABLE in_mail ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;"
	 "ALTER TABLE in_mail ADD COLUMN next_attempt INTEGER NOT NULL DEFAULT 0;"),
	/* 11 -> 12: who a bug's mail was Cc'd to beyond its route, once each:
	 * a culprit's author and signers, the regressions list.  A row whose
	 * address is "" records that a culprit was looked up (reason
	 * "culprit <hash>"), so that git is asked once. */
	"CREATE TABLE bug_cc ("
	"  bug_id INTEGER NOT NULL,"
	"  address TEXT NOT NULL,"      /* bare, lower case; "" for a lookup */
	"  entry TEXT NOT NULL,"        /* "Name <addr>" as Cc'd */
	"  reason TEXT NOT NULL,"
	"  message_id TEXT,"            /* the mail that carried it */
	"  added INTEGER NOT NULL,"
	"  PRIMARY KEY (bug_id, address, reason)"
	");",
	/* 12 -> 13: the culprit whose tree decided a regression's branch, so
	 * that the watched trees are asked once per culprit */
	"ALTER TABLE reg_regression ADD COLUMN culprit_checked TEXT NOT NULL DEFAULT '';",
	/* 13 -> 14: commits a Fixes: line names as a bug's cause, from a
	 * patch or a commit that names the bug and from its public comments:
	 * culprits whose people the bug's next mail Cc's (bug_cc) */
	"CREATE TABLE bug_culprit ("
	"  bug_id INTEGER NOT NULL,"
	"  commit_hash TEXT NOT NULL,"  /* lower-case hex, 8 to 40 digits */
	"  source TEXT NOT NULL,"       /* "patch <msgid>", "commit <hash> in <tree>", "comment <id>" */
	"  added INTEGER NOT NULL,"
	"  PRIMARY KEY (bug_id, commit_hash)"
	");",
	/* 14 -> 15: the threads of the list mails the tracker read, so that a
	 * regression added from a thread counts the thread's earlier mails,
	 * as regzbot does; kept TRACKER_THREAD_DAYS after a mail was read */
	("CREATE TABLE list_thread ("
	 "  message_id TEXT PRIMARY KEY,"
	 "  root TEXT NOT NULL,"         /* References' first, else In-Reply-To, else itself */
	 "  from_who TEXT NOT NULL,"     /* \"Name <addr>\" */
	 "  date INTEGER NOT NULL,"      /* the mail's Date: */
	 "  seen INTEGER NOT NULL"       /* when it was read */
	 ") WITHOUT ROWID;"
	 "CREATE INDEX list_thread_root ON list_thread (root);"
	 "CREATE INDEX list_thread_seen ON list_thread (seen);"),
	/* 15 -> 16: the section [routing] by_content = route chose for a bug,
	 * once: its recipients stay the same while its logs, the watched tree
	 * or the ranking change ("" when nothing matched) */
	"CREATE TABLE bug_content_route ("
	"  bug_id INTEGER PRIMARY KEY,"
	"  section TEXT NOT NULL,"
	"  chosen INTEGER NOT NULL"
	");",
	/* 16 -> 17: list_thread's rows are pruned once a day by a scan, not
	 * by an index on when they were read: every mail of a round is read
	 * in the same second, so that index was ordered by Message-ID after
	 * all, and kept up at a fifth of the cost of every list mail */
	"DROP INDEX IF EXISTS list_thread_seen;",
	/* 17 -> 18: the regression a report elsewhere (a GitHub issue, another
	 * Bugzilla) belongs to is looked up by its URL for every "introduced:"
	 * and "dup:" naming one: a scan of every regression without this */
	"CREATE INDEX reg_by_report_url ON reg_regression(report_url) WHERE report_url != '';",
	/* 18 -> 19: list mails whose sender could not be checked because DNS
	 * did not answer for a DKIM key: read past (the archive's cursor
	 * moved on), they wait here, as archived, for a later round to check
	 * them again; the transaction that records one in in_mail (or what
	 * else becomes of it) deletes its row.  [inbound] dns_timeout */
	"CREATE TABLE in_wait ("
	"  message_id TEXT PRIMARY KEY,"
	"  raw BLOB NOT NULL,"          /* the mail as archived */
	"  since INTEGER NOT NULL,"     /* when it began to wait */
	"  checked INTEGER NOT NULL,"   /* its last check */
	"  checks INTEGER NOT NULL,"    /* how many there were */
	"  reason TEXT NOT NULL"        /* what the last one said */
	");",
	/* 19 -> 20: the crash signatures (triage/signature.h) of a bug's
	 * oopses, read when its report mail's triage block is made, so that
	 * a later report of the same crash names the bug (tracker/samecrash.h) */
	("CREATE TABLE bug_signature ("
	 "  bug_id INTEGER NOT NULL,"
	 "  key TEXT NOT NULL,"          /* "KASAN: use-after-free Read in hiddev_release" */
	 "  title TEXT NOT NULL,"        /* as syzbot would title it, module too */
	 "  added INTEGER NOT NULL,"
	 "  PRIMARY KEY (bug_id, key)"
	 ");"
	 "CREATE INDEX bug_signature_key ON bug_signature (key);"),
	/* the #bugbridge needinfo questions (bridge/needinfo.h): who was
	 * asked what, and how far the question got (waiting, reminded,
	 * closing, closed, reopening, reopened, answered, ended); each step
	 * is recorded with the mail it queues, in one transaction */
	("CREATE TABLE needinfo ("
	 "  id INTEGER PRIMARY KEY,"     /* numbers its mails' Message-IDs */
	 "  bug_id INTEGER NOT NULL,"
	 "  asked TEXT NOT NULL,"        /* the address asked */
	 "  reporter INTEGER NOT NULL,"  /* asked as the reporter: kept off the headers */
	 "  question TEXT NOT NULL,"
	 "  asked_by TEXT NOT NULL,"
	 "  mail TEXT NOT NULL UNIQUE,"  /* Message-ID of the mail that asked */
	 "  state TEXT NOT NULL,"
	 "  asked_at INTEGER NOT NULL,"
	 "  reminded_at INTEGER,"
	 "  closed_at INTEGER,"
	 "  answer TEXT,"                /* the reply that answered, or reopened */
	 "  updated INTEGER NOT NULL"
	 ");"
	 "CREATE INDEX needinfo_bug ON needinfo (bug_id);"),
	/* 21 -> 22: how Bugzilla shows that a needinfo question waits (bridge/needinfo.h):
	 * mark is 'flag' (the server's needinfo flag), 'status' (its NEEDINFO
	 * status; prev_status the one to go back to), 'keyword' (its needinfo
	 * keyword) or 'bridge' (nothing: the bridge's own state); marked,
	 * whether the bug has it now */
	("ALTER TABLE needinfo ADD COLUMN mark TEXT NOT NULL DEFAULT 'bridge';"
	 "ALTER TABLE needinfo ADD COLUMN prev_status TEXT;"
	 "ALTER TABLE needinfo ADD COLUMN marked INTEGER NOT NULL DEFAULT 0;"),
	/* 22 -> 23: "still happening?" (bridge/aging.h): the newest release
	 * each watched tree showed (tracker/release.h), and per bug and
	 * release the one ping, or why there was none (state skipped: judged
	 * at the bug's last_change_time seen_change); each step is recorded
	 * with the mail it queues, in one transaction */
	("CREATE TABLE tree_release ("
	 "  tree TEXT PRIMARY KEY,"
	 "  tag TEXT NOT NULL,"          /* "v6.9" */
	 "  commit_id TEXT NOT NULL"
	 ");"
	 "CREATE TABLE aging_ping ("
	 "  id INTEGER PRIMARY KEY,"     /* numbers its mail's Message-ID */
	 "  bug_id INTEGER NOT NULL,"
	 "  release TEXT NOT NULL,"      /* the release asked about */
	 "  state TEXT NOT NULL,"        /* skipped, pinged, answered, closing, closed, ended */
	 "  reason TEXT NOT NULL DEFAULT '',"
	 "  kernel TEXT NOT NULL DEFAULT '',"   /* the bug's kernel, as read */
	 "  lists TEXT NOT NULL DEFAULT '',"    /* the lists mailed, one a line */
	 "  seen_change INTEGER NOT NULL DEFAULT 0,"
	 "  pinged_at INTEGER,"
	 "  closed_at INTEGER,"
	 "  updated INTEGER NOT NULL,"
	 "  UNIQUE (bug_id, release)"
	 ");"
	 "CREATE INDEX aging_ping_state ON aging_ping (state, pinged_at);"),
	/* 23 -> 24: who follows a bug by mail (bridge/follow.h), per bug and
	 * address (bare, lower case): state 'in' (Cc'd on the bug's mails, by
	 * "#bugbridge subscribe"), 'out' (never Cc'd on them, not even as the
	 * bridge's own culprit or reporter Cc, by "#bugbridge unsubscribe"),
	 * or 'asked' (the reporter was asked once, [mail] cc_reporter, and
	 * has not answered); mail is the in_mail row of the command */
	("CREATE TABLE follow ("
	 "  bug_id INTEGER NOT NULL,"
	 "  address TEXT NOT NULL,"
	 "  entry TEXT NOT NULL,"        /* as Cc'd: the address as written */
	 "  state TEXT NOT NULL,"
	 "  mail INTEGER,"
	 "  updated INTEGER NOT NULL,"
	 "  PRIMARY KEY (bug_id, address)"
	 ");"),
	/* 24 -> 25: a report the submit box keeps for its sender's link keeps
	 * the @version and @severity its mail gave too ('' when none), filed
	 * with them once confirmed */
	("ALTER TABLE fd_report ADD COLUMN bz_version TEXT NOT NULL DEFAULT '';"
	 "ALTER TABLE fd_report ADD COLUMN severity TEXT NOT NULL DEFAULT '';"),
	/* 25 -> 26: the digest per list (bridge/digest.h): one row per list
	 * and period, recorded with its mail in one transaction, and its
	 * numbered entries, so that "#bugbridge <n> <command>" in a reply
	 * names the same bug whenever it is read; bug_mute, the bugs a
	 * maintainer muted with "#bugbridge no-reminders" (no needinfo
	 * reminder, no aging ping, no digest entry) */
	("CREATE TABLE digest ("
	 "  id INTEGER PRIMARY KEY,"
	 "  list TEXT NOT NULL,"         /* bare address, lower case */
	 "  period TEXT NOT NULL,"       /* 2026-12, 2026-W51, or a day for a run by hand */
	 "  message_id TEXT NOT NULL UNIQUE,"
	 "  sent_at INTEGER NOT NULL,"
	 "  UNIQUE (list, period)"
	 ");"
	 "CREATE TABLE digest_entry ("
	 "  digest INTEGER NOT NULL,"
	 "  n INTEGER NOT NULL,"         /* 1-based, oldest bug first */
	 "  bug_id INTEGER NOT NULL,"
	 "  is_new INTEGER NOT NULL DEFAULT 0,"
	 "  PRIMARY KEY (digest, n)"
	 ");"
	 "CREATE TABLE bug_mute ("
	 "  bug_id INTEGER PRIMARY KEY,"
	 "  by_addr TEXT NOT NULL,"
	 "  mail INTEGER,"               /* the in_mail row of the command */
	 "  at INTEGER NOT NULL"
	 ");"),
	/* 26 -> 27: hand-overs ("#bugbridge reassign", bridge/handover.h):
	 * one row per bug and hand-over, written before Bugzilla's change
	 * (pending, with the lists before and after) and done with its mails
	 * in one transaction; message_id the hand-over mail's, which later
	 * mails of the bug's thread answer */
	("CREATE TABLE handover ("
	 "  bug_id INTEGER NOT NULL,"
	 "  seq INTEGER NOT NULL,"          /* 1, 2, ... per bug */
	 "  mail INTEGER NOT NULL,"         /* the command: in_command (mail, cmd) */
	 "  cmd INTEGER NOT NULL,"
	 "  product TEXT NOT NULL,"
	 "  component TEXT NOT NULL,"
	 "  old_lists TEXT NOT NULL,"       /* ", " between them */
	 "  new_lists TEXT NOT NULL,"
	 "  by_addr TEXT NOT NULL,"
	 "  state TEXT NOT NULL,"           /* pending, done */
	 "  message_id TEXT,"               /* NULL: pending, or the lists stayed */
	 "  at INTEGER NOT NULL,"
	 "  PRIMARY KEY (bug_id, seq),"
	 "  UNIQUE (mail, cmd)"
	 ");"),
	/* 27 -> 28: list_thread's rows in the order they were written (a
	 * table with rowids), the Message-ID unique beside them: ordered by
	 * Message-ID, each new row went somewhere in the middle of the
	 * table's pages, which SQLite kept splitting and rebalancing (the
	 * inserts were a sixth of bugbridge's own instructions on a
	 * 40,596-mail history read, and each transaction wrote most of the
	 * table's pages to the log again) */
	("CREATE TABLE list_thread_rows ("
	 "  message_id TEXT NOT NULL UNIQUE,"
	 "  root TEXT NOT NULL,"
	 "  from_who TEXT NOT NULL,"
	 "  date INTEGER NOT NULL,"
	 "  seen INTEGER NOT NULL"
	 ");"
	 "INSERT INTO list_thread_rows (message_id, root, from_who, date, seen)"
	 "  SELECT message_id, root, from_who, date, seen FROM list_thread;"
	 "DROP TABLE list_thread;"
	 "ALTER TABLE list_thread_rows RENAME TO list_thread;"
	 "CREATE INDEX list_thread_root ON list_thread (root);"),
	/* 28 -> 29: list_thread's rows are found by integer keys of their
	 * Message-ID and root (text_key(), store_text_key()), the text
	 * compared beside them, where two indexes of the texts themselves
	 * were: each row's insert went down both comparing random text keys,
	 * and split index pages of 60-byte entries (on a 40,596-mail history
	 * read a row's insert took 13,500 instructions, 11,800 so; most of
	 * the rest is SQLite rebalancing the pages of two indexes whose keys
	 * come in no order, which any index of a Message-ID costs).  A
	 * Message-ID has one row: its writer asks first (thread_rows.c), as
	 * a unique index no longer does. */
	("CREATE TABLE list_thread_rows ("
	 "  message_id TEXT NOT NULL,"
	 "  mid_key INTEGER NOT NULL,"      /* text_key(message_id) */
	 "  root TEXT NOT NULL,"
	 "  root_key INTEGER NOT NULL,"     /* text_key(root) */
	 "  from_who TEXT NOT NULL,"
	 "  date INTEGER NOT NULL,"
	 "  seen INTEGER NOT NULL"
	 ");"
	 "INSERT INTO list_thread_rows (message_id, mid_key, root, root_key, from_who, date, seen)"
	 "  SELECT message_id, text_key(message_id), root, text_key(root), from_who, date, seen"
	 "  FROM list_thread ORDER BY rowid;"
	 "DROP TABLE list_thread;"
	 "ALTER TABLE list_thread_rows RENAME TO list_thread;"
	 "CREATE INDEX list_thread_mid ON list_thread (mid_key);"
	 "CREATE INDEX list_thread_root ON list_thread (root_key);"),
};

#define SCHEMA_VERSION ((int)(sizeof(migrations) / sizeof(migrations[0])))

int store_schema_version(void)
{
	return SCHEMA_VERSION;
}

enum bb_status store_fail(struct store *st, struct bb_error *err, const char *what)
{
	int code = st && st->db ? sqlite3_errcode(st->db) : SQLITE_ERROR;
	enum bb_status s;

	switch (code & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		s = BB_ERR_BUSY;
		break;
	case SQLITE_FULL:
		s = BB_ERR_NO_SPACE;
		break;
	case SQLITE_NOMEM:
		s = BB_ERR_NOMEM;
		break;
	case SQLITE_READONLY:
	case SQLITE_PERM:
	case SQLITE_CANTOPEN:
		s = BB_ERR_PERMISSION;
		break;
	case SQLITE_NOTADB:
		return bb_error_set(err, BB_ERR_CORRUPT,
				    "the database %s is not an SQLite database (%s): restore it from "
				    "a backup (bugbridge(1), BACKUP AND RESTORE), or move it away to "
				    "start a new one", st && st->path ? st->path : "?",
				    sqlite3_errmsg(st->db));
	case SQLITE_CORRUPT:
		s = BB_ERR_CORRUPT;   /* damage: bugbridge check says where */
		break;
	default:
		s = BB_ERR_DATABASE;
	}
	return bb_error_set(err, s, "%s: database %s: %s", what,
			    st && st->path ? st->path : "?",
			    st && st->db ? sqlite3_errmsg(st->db) : "cannot open");
}

enum bb_status store_exec(struct store *st, const char *sql, struct bb_error *err)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, err, "query failed");
	return BB_OK;
}

enum bb_status store_prepare(struct store *st, sqlite3_stmt **stmt,
			     const char *sql, struct bb_error *err)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) != SQLITE_OK) {
		*stmt = NULL;
		return store_fail(st, err, "preparing a query failed");
	}
	return BB_OK;
}

static void finalize_cached(gpointer stmt)
{
	sqlite3_finalize(stmt);
}

#define KEPT_IDLE GINT_TO_POINTER(1)
#define KEPT_LENT GINT_TO_POINTER(2)
#define RECENT_MAX (4 * STORE_CACHED_MAX)

enum bb_status store_cached(struct store *st, sqlite3_stmt **stmt, const char *sql,
			    struct bb_error *err)
{
	char *key;
	int nested = 0;

	if (!st->cached) {
		st->cached = g_hash_table_new_full(g_str_hash, g_str_equal, free, finalize_cached);
		st->kept = g_hash_table_new(g_direct_hash, g_direct_equal);
		st->recent = g_hash_table_new(g_direct_hash, g_direct_equal);
	}
	/* by the text's address first (the text may have changed there) */
	if ((*stmt = g_hash_table_lookup(st->recent, sql)) && strcmp(sqlite3_sql(*stmt), sql))
		*stmt = NULL;
	if (!*stmt && (*stmt = g_hash_table_lookup(st->cached, sql))) {
		if (g_hash_table_size(st->recent) >= RECENT_MAX)
			g_hash_table_remove_all(st->recent);
		g_hash_table_insert(st->recent, (gpointer)sql, *stmt);
	}
	if (*stmt) {
		if (g_hash_table_lookup(st->kept, *stmt) == KEPT_IDLE) {
			g_hash_table_insert(st->kept, *stmt, KEPT_LENT);
			return BB_OK;
		}
		nested = 1;   /* in use further up: a statement of its own */
	}
	if (sqlite3_prepare_v3(st->db, sql, -1, nested ? 0 : SQLITE_PREPARE_PERSISTENT, stmt,
			       NULL) != SQLITE_OK) {
		*stmt = NULL;
		return store_fail(st, err, "preparing a query failed");
	}
	/* kept only when its text is the whole of sql (one statement) */
	if (!nested && g_hash_table_size(st->cached) < STORE_CACHED_MAX && sqlite3_sql(*stmt) &&
	    !strcmp(sqlite3_sql(*stmt), sql) && (key = strdup(sql))) {
		g_hash_table_insert(st->cached, key, *stmt);
		g_hash_table_insert(st->kept, *stmt, KEPT_LENT);
	}
	return BB_OK;
}

char *store_column_dup(sqlite3_stmt *stmt, int i)
{
	const unsigned char *t = sqlite3_column_text(stmt, i);

	return t ? strdup((const char *)t) : NULL;
}

void store_cached_done(struct store *st, sqlite3_stmt *stmt)
{
	if (!stmt)
		return;
	if (st->kept && g_hash_table_lookup(st->kept, stmt) == KEPT_LENT) {
		sqlite3_reset(stmt);
		sqlite3_clear_bindings(stmt);
		g_hash_table_insert(st->kept, stmt, KEPT_IDLE);
		return;
	}
	sqlite3_finalize(stmt);
}

int store_file_version(struct store *st)
{
	sqlite3_stmt *stmt = NULL;
	int version = -1;

	if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &stmt, NULL) == SQLITE_OK &&
	    sqlite3_step(stmt) == SQLITE_ROW)
		version = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return version;
}

/* ------------------------------------------------------------ key sets */

struct store_keyset {
	/* the fingerprint of each key (key_fingerprint()), as the key of a
	 * table without values: NULL when not read (yet) */
	GHashTable *keys;
	unsigned long generation;  /* of the store, when it was (to be) read */
	unsigned asked;            /* at that generation, while not read */
	int too_many;              /* the column is past STORE_KEYS_MAX */
};

static const char *const keys_fill_sql[STORE_KEYS_N] = {
	[STORE_KEYS_REG_MAIL] = "SELECT message_id FROM reg_mail",
	[STORE_KEYS_REG_NOTED] = "SELECT message_id FROM reg_unhandled UNION ALL"
				 " SELECT message_id FROM reg_event WHERE message_id != ''",
	[STORE_KEYS_MAIL] = "SELECT message_id FROM in_mail UNION ALL"
			    " SELECT message_id FROM bz_comment WHERE message_id IS NOT NULL"
			    " UNION ALL SELECT message_id FROM in_wait",
	[STORE_KEYS_THREAD] = "SELECT message_id FROM list_thread",
};

static void keyset_empty(struct store_keyset *ks, unsigned long generation)
{
	if (ks->keys)
		g_hash_table_destroy(ks->keys);
	ks->keys = NULL;
	ks->generation = generation;
	ks->asked = 0;
	ks->too_many = 0;
}

/* As an outermost transaction begins: another connection's commits since
 * the last (PRAGMA data_version moved; or it could not be read) make every
 * set stale, which a new generation says. */
static void keys_check(struct store *st)
{
	sqlite3_stmt *stmt = NULL;
	long long version = -1;

	if (!store_cached(st, &stmt, "PRAGMA data_version", NULL)) {
		if (sqlite3_step(stmt) == SQLITE_ROW)
			version = sqlite3_column_int64(stmt, 0);
		store_cached_done(st, stmt);
	}
	if (version < 0 || version != st->data_version)
		st->generation++;
	st->data_version = version;
}

/* The hash of text from seed: eight bytes a step, read as little-endian
 * words (a key stored in a database is the same on every machine).  The
 * last 1 to 7 bytes are the word of them alone (zeros above); a text of
 * 8 bytes or more reads them as the top of the word that ends the text,
 * shifted down: one load, where a copy of a varying length was a call
 * to memcpy() that cost a fifth of the hash. */
static uint64_t key_hash64(const char *s, uint64_t seed)
{
	size_t len = strlen(s), n = len;
	uint64_t h = seed ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ GUINT64_FROM_LE(w)) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (n) {
		if (len >= 8) {
			memcpy(&w, s + n - 8, 8);
			w = GUINT64_FROM_LE(w) >> (64 - 8 * n);
		} else {
			w = 0;
			memcpy(&w, s, n);
			w = GUINT64_FROM_LE(w);
		}
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 29;
	return h;
}

/* The hash of a key of a set: eight bytes a step (g_str_hash() took one,
 * and the sets are asked of every Message-ID a mail names), from a seed
 * drawn once per process, so that keys chosen to collide (Message-IDs
 * are anyone's to choose) cannot be chosen ahead. */
static uint64_t key_seed(void)
{
	static uint64_t seed;
	static gsize seeded;

	if (g_once_init_enter(&seeded)) {
		if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
			seed = (uint64_t)g_get_monotonic_time();
		g_once_init_leave(&seeded, 1);
	}
	return seed;
}

guint store_key_hash(gconstpointer p)
{
	return (guint)key_hash64(p, key_seed());
}

/* What a key set holds of a key: its seeded hash (store_key_print()),
 * as wide as a pointer (64 bits here), kept as the pointer key of a table
 * that compares pointers.  Two keys with one fingerprint only make "may hold" say yes
 * for a key the column lacks, which costs a lookup; a key the column has
 * always has its fingerprint in the set.  (A copy of each key cost a
 * g_strdup() per key added, a string comparison per key found and about
 * 100 bytes a key, out of the CPU's caches on every ask.) */
uint64_t store_key_print(const char *key)
{
	return key_hash64(key, key_seed());
}

static gpointer key_fingerprint(uint64_t print)
{
	return GSIZE_TO_POINTER((gsize)print);
}

/* A fixed seed: the keys are stored, and must never change (a new
 * function would need a migration that computes every stored key again).
 * Anyone can compute them, so Message-IDs can be chosen to share a key;
 * that costs the rows of the key read to compare their text (as a long
 * thread's rows share one root), never a wrong answer. */
long long store_text_key(const char *text)
{
	return (long long)key_hash64(text, 0x6275676272696467ULL);
}

/* text_key(x) in SQL: store_text_key() of x's text, NULL for NULL. */
static void sql_text_key(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *text = sqlite3_value_text(argv[0]);

	(void)argc;
	if (text)
		sqlite3_result_int64(ctx, store_text_key((const char *)text));
	else
		sqlite3_result_null(ctx);
}

/* The SQL functions of the schema, on a connection just opened. */
static enum bb_status store_functions(struct store *st, struct bb_error *err)
{
	if (sqlite3_create_function(st->db, "text_key", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC |
				    SQLITE_INNOCUOUS, NULL, sql_text_key, NULL, NULL) != SQLITE_OK)
		return store_fail(st, err, "adding SQL functions failed");
	return BB_OK;
}

/* Reads the whole column into ks; 0 when done. */
static int keyset_fill(struct store *st, struct store_keyset *ks, enum store_keys which)
{
	sqlite3_stmt *stmt = NULL;
	GHashTable *set;
	int rc;

	if (store_prepare(st, &stmt, keys_fill_sql[which], NULL))
		return -1;
	set = g_hash_table_new(NULL, NULL);   /* (the fingerprints, compared as pointers) */
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(stmt, 0);

		if (g_hash_table_size(set) >= STORE_KEYS_MAX) {
			ks->too_many = 1;
			break;
		}
		if (key)
			g_hash_table_add(set, key_fingerprint(store_key_print(key)));
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		g_hash_table_destroy(set);
		return -1;
	}
	ks->keys = set;
	return 0;
}

/* keyset_to_ask() of a set not read, or read at another generation. */
static struct store_keyset *keyset_to_read(struct store *st, enum store_keys which)
{
	struct store_keyset *ks;

	if (!(ks = st->keys[which])) {
		if (!(ks = calloc(1, sizeof(*ks))))
			return NULL;
		ks->generation = st->generation;
		st->keys[which] = ks;
	}
	if (ks->generation != st->generation)
		keyset_empty(ks, st->generation);
	if (!ks->keys) {
		if (ks->too_many || ++ks->asked < STORE_KEYS_FILL_AFTER)
			return NULL;
		if (keyset_fill(st, ks, which)) {
			ks->asked = 0;   /* tried again after as many asks (not past the cap) */
			return NULL;
		}
	}
	return ks;
}

/* The set which names, to be asked: NULL when the answer is "may".  (Its
 * common case inline: the sets are asked of every Message-ID a mail
 * names, some 400,000 times on a history read.) */
static inline struct store_keyset *keyset_to_ask(struct store *st, enum store_keys which)
{
	struct store_keyset *ks;

	if (!st || (unsigned)which >= STORE_KEYS_N || st->depth <= 0)
		return NULL;
	ks = st->keys[which];
	if (G_LIKELY(ks && ks->keys && ks->generation == st->generation))
		return ks;
	return keyset_to_read(st, which);
}

int store_keys_may_hold(struct store *st, enum store_keys which, const char *key)
{
	struct store_keyset *ks = key ? keyset_to_ask(st, which) : NULL;

	/* (an empty set, as the mirrored mail's is on a list no bug went to,
	 * holds nothing without hashing the key) */
	return !ks || (g_hash_table_size(ks->keys) &&
		       g_hash_table_contains(ks->keys, key_fingerprint(store_key_print(key))));
}

int store_keys_may_hold_print(struct store *st, enum store_keys which, uint64_t print)
{
	struct store_keyset *ks = keyset_to_ask(st, which);

	return !ks || (g_hash_table_size(ks->keys) &&
		       g_hash_table_contains(ks->keys, key_fingerprint(print)));
}

void store_keys_add_print(struct store *st, enum store_keys which, uint64_t print)
{
	struct store_keyset *ks;

	if (!st || (unsigned)which >= STORE_KEYS_N || !(ks = st->keys[which]) || !ks->keys)
		return;   /* (read whole when it is filled, this key with it) */
	if (ks->generation != st->generation) {
		keyset_empty(ks, st->generation);
		return;
	}
	if (g_hash_table_size(ks->keys) >= STORE_KEYS_MAX) {
		keyset_empty(ks, st->generation);
		ks->too_many = 1;
		return;
	}
	g_hash_table_add(ks->keys, key_fingerprint(print));
}

void store_keys_add(struct store *st, enum store_keys which, const char *key)
{
	/* (hashed only when the set is held) */
	if (key && st && (unsigned)which < STORE_KEYS_N && st->keys[which] && st->keys[which]->keys)
		store_keys_add_print(st, which, store_key_print(key));
}

static enum bb_status begin(struct store *st, const char *sql, struct bb_error *err)
{
	if (st->depth++ > 0)
		return BB_OK;
	st->failed = 0;
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		st->depth = 0;
		return store_fail(st, err, "starting a transaction failed");
	}
	keys_check(st);
	return BB_OK;
}

enum bb_status store_begin_read(struct store *st, struct bb_error *err)
{
	return begin(st, "BEGIN DEFERRED", err);
}

enum bb_status store_begin(struct store *st, struct bb_error *err)
{
	return begin(st, "BEGIN IMMEDIATE", err);
}

enum bb_status store_commit(struct store *st, struct bb_error *err)
{
	if (st->depth <= 0)
		return bb_error_set(err, BB_ERR_INTERNAL, "commit without a transaction");
	/* the hook's writes, inside the transaction (it may nest its own);
	 * not when SQLite has ended it already (an error that rolls back,
	 * as a full disk does): they would be committed on their own */
	if (st->depth == 1 && !st->failed && st->hook) {
		enum bb_status s;

		if (sqlite3_get_autocommit(st->db)) {
			st->hook->rolled_back(st->hook->ctx);
		} else if ((s = st->hook->before_commit(st->hook->ctx, err))) {
			store_rollback(st);
			return s;
		}
	}
	if (--st->depth > 0)
		return BB_OK;
	if (st->failed) {
		st->failed = 0;
		return bb_error_set(err, BB_ERR_DATABASE,
				    "transaction was rolled back by an inner step");
	}
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		enum bb_status s = store_fail(st, err, "commit failed");

		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		if (st->hook)
			st->hook->rolled_back(st->hook->ctx);
		return s;
	}
	return BB_OK;
}

void store_rollback(struct store *st)
{
	if (st->depth <= 0)
		return;
	if (!st->failed) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		if (st->hook)
			st->hook->rolled_back(st->hook->ctx);
	}
	st->failed = 1;
	if (--st->depth == 0)
		st->failed = 0;
}

enum bb_status store_set_commit_hook(struct store *st, const struct store_commit_hook *hook,
				     struct bb_error *err)
{
	if (hook && st->hook && st->hook != hook)
		return bb_error_set(err, BB_ERR_INTERNAL, "the store has a commit hook already");
	st->hook = hook;
	return BB_OK;
}

/* A schema version that could be read and that this binary understands. */
static enum bb_status version_usable(struct store *st, int version, struct bb_error *err)
{
	if (version < 0)
		return store_fail(st, err, "reading the schema version failed");
	if (version > SCHEMA_VERSION)
		return bb_error_set(err, BB_ERR_DATABASE,
				    "database %s has schema version %d, newer than this "
				    "bugbridge understands (%d); upgrade bugbridge",
				    st->path, version, SCHEMA_VERSION);
	return BB_OK;
}

/* Whether the database has no table, index or view yet (a new one). */
static int store_blank(struct store *st)
{
	sqlite3_stmt *stmt = NULL;
	int blank = 0;

	if (store_prepare(st, &stmt, "SELECT count(*) FROM sqlite_master", NULL))
		return 0;
	blank = sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_int(stmt, 0) == 0;
	sqlite3_finalize(stmt);
	return blank;
}

static enum bb_status migrate(struct store *st, struct bb_error *err)
{
	int version = store_file_version(st), from;
	char pragma[64];
	enum bb_status s;

	if ((s = version_usable(st, version, err)))
		return s;
	if (version >= SCHEMA_VERSION)
		return BB_OK;
	/* every step in one transaction: all of them reach the disk or none
	 * (a new database is made with one commit, not one per step) */
	if ((s = store_begin(st, err)))
		return s;
	/* Re-read under the write lock: another process may have migrated. */
	if (store_file_version(st) != version) {
		store_rollback(st);
		return migrate(st, err);
	}
	from = version;
	/* a new database is given the schema at once, then the steps after
	 * it: step by step from the first, SQLite parsed its whole schema
	 * again after each ALTER TABLE (75 M instructions a new database, on
	 * every first run and in every test that makes one) */
	if (version == 0 && store_fresh_version > 0 && store_fresh_version <= SCHEMA_VERSION &&
	    !getenv("BUGBRIDGE_TEST_SCHEMA_STEPS") && store_blank(st)) {
		for (size_t i = 0; store_fresh_schema[i] && !s; i++)
			s = store_exec(st, store_fresh_schema[i], err);
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", store_fresh_version);
		if (!s && !(s = store_exec(st, pragma, err)))
			version = store_fresh_version;
	}
	for (; version < SCHEMA_VERSION && !s; version++) {
		s = store_exec(st, migrations[version], err);
		if (!s) {
			snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", version + 1);
			s = store_exec(st, pragma, err);
		}
	}
	if (s) {
		store_rollback(st);
		return s;
	}
	if ((s = store_commit(st, err)))
		return s;
	for (; from < SCHEMA_VERSION; from++)
		log_event(LOG_LEVEL_INFO, "store.migrated", LF_STR("path", st->path),
			  LF_INT("version", from + 1));
	return BB_OK;
}

/* SQLite's commit hook: a write that would commit on its own while the
 * store holds a transaction open is refused (SQLite rolls it back and the
 * statement fails).  That happens only when the transaction ended under
 * the store -- SQLite rolled it back itself (a full disk, an I/O error),
 * or an inner step rolled back -- and a caller went on writing: without
 * this, the rest of what it meant as one transaction would be committed
 * statement by statement, and half of it could stand.  The store's own
 * COMMIT runs at depth 0. */
static int refuse_lone_commit(void *ctx)
{
	const struct store *st = ctx;

	return st->depth > 0;
}

/* The database holds private comments, tokens and addresses: its folder is
 * made FS_PRIVATE_DIR_MODE and the file FS_PRIVATE_FILE_MODE, whatever the
 * umask (an existing file of ours is narrowed to it). */
/* An existing database file of 0 bytes (with no -wal holding its pages) is
 * someone else's or a damaged one (a restore that wrote nothing, a
 * truncation), never a new database to fill: taken as one, the next sync
 * would mail every bug again.  (A file without SQLite's header SQLite
 * refuses itself: store_fail().)  Only stat(): opening and closing the
 * file would drop the POSIX locks SQLite holds on it for this process's
 * other connections.  ENOENT is no error (*exists = 0). */
static enum bb_status store_check_empty(const char *path, int *exists, struct bb_error *err)
{
	struct stat sb, wal;
	char *wal_path;
	int wal_empty;

	*exists = 0;
	if (stat(path, &sb) != 0)
		return errno == ENOENT ? BB_OK
				       : bb_error_errno(err, errno, "cannot reach the database %s", path);
	*exists = 1;
	if (sb.st_size)
		return BB_OK;
	if (!(wal_path = str_printf("%s-wal", path)))
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	wal_empty = stat(wal_path, &wal) != 0 || !wal.st_size;
	free(wal_path);
	if (!wal_empty)
		return BB_OK;
	return bb_error_set(err, BB_ERR_CORRUPT,
			    "the database %s is empty (0 bytes), not a bugbridge database: "
			    "restore it from a backup (bugbridge(1), BACKUP AND RESTORE), or move it "
			    "away to start a new one (which mirrors everything again)", path);
}

/* Removes the "<path>.new-<pid>" files of processes that are gone (a crash
 * while a database was made). */
static void store_remove_stale(const char *path)
{
	char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
	char *prefix = g_strconcat(base, ".new-", NULL);
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *name;

	while (d && (name = g_dir_read_name(d))) {
		char *end;
		long pid;

		if (strncmp(name, prefix, strlen(prefix)))
			continue;
		pid = strtol(name + strlen(prefix), &end, 10);
		if (*end || pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) {
			char *stale = g_build_filename(dir, name, NULL);

			unlink(stale);
			g_free(stale);
		}
	}
	if (d)
		g_dir_close(d);
	g_free(prefix);
	g_free(base);
	g_free(dir);
}

/* A new database is made whole under a temporary name, its header and WAL
 * mode written, and only then linked in place: a crash while it is made
 * leaves no empty file behind (which store_check_empty() would refuse). */
static enum bb_status store_create(const char *path, struct bb_error *err)
{
	char *tmp = str_printf("%s.new-%ld", path, (long)getpid());
	sqlite3 *db = NULL;
	enum bb_status s = BB_OK;
	int fd;

	if (!tmp)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	store_remove_stale(path);
	unlink(tmp);
	fd = fs_open_private(tmp, O_RDWR);
	if (fd < 0) {
		s = bb_error_errno(err, errno, "cannot create the database %s", path);
		goto out;
	}
	close(fd);
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
		    SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;", NULL, NULL,
			 NULL) != SQLITE_OK) {
		s = bb_error_set(err, BB_ERR_DATABASE, "cannot create the database %s: %s", path,
				 db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	sqlite3_close(db);
	db = NULL;
	test_hook("store.create");
	/* link(), not rename(): a database another process made meanwhile
	 * stays (and is used) */
	if (link(tmp, path) != 0 && errno != EEXIST) {
		s = bb_error_errno(err, errno, "cannot create the database %s", path);
	} else {
		char *dir = g_path_get_dirname(path);

		s = fs_fsync_dir(dir, err);
		g_free(dir);
	}
out:
	if (db)
		sqlite3_close(db);
	unlink(tmp);
	free(tmp);
	return s;
}

static enum bb_status store_make_private(const char *path, struct bb_error *err)
{
	char *dir = strdup(path), *slash;
	enum bb_status s = BB_OK;
	int exists;

	if (!dir)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		s = fs_mkdir_private(dir, err);
	}
	free(dir);
	if (s)
		return s;
	if ((s = store_check_empty(path, &exists, err)))
		return s;
	if (exists)
		return fs_narrow_mode(path, FS_PRIVATE_FILE_MODE, err);
	return store_create(path, err);
}

static enum bb_status store_narrow(const char *path, const char *suffix, struct bb_error *err)
{
	char *p = str_printf("%s%s", path, suffix);
	enum bb_status s;

	if (!p)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	s = fs_narrow_mode(p, FS_PRIVATE_FILE_MODE, err);
	free(p);
	return s;
}

/* A database in WAL mode needs its -wal and -shm files even to be read.
 * bugbridge keeps them (SQLITE_FCNTL_PERSIST_WAL), but another tool (the
 * sqlite3 shell, a restore from a backup) may have removed them, and a
 * reader of the service's group cannot create them in a folder not theirs
 * to write.  With no -wal file no writer has the database open and all of
 * it is in the main file: then it is opened as immutable (a URI, returned),
 * else NULL (the file's own name is opened as it is). */
static char *store_immutable_uri(const char *path)
{
	char *wal = str_printf("%s-wal", path), *dir = strdup(path), *slash;
	int immutable;

	slash = dir ? strrchr(dir, '/') : NULL;
	if (slash)
		slash[slash == dir] = '\0';
	immutable = wal && dir && access(wal, F_OK) != 0 && errno == ENOENT &&
		    access(slash ? dir : ".", W_OK) != 0;
	free(wal);
	free(dir);
	if (!immutable)
		return NULL;
	return store_file_uri(path, "immutable=1");
}

char *store_file_uri(const char *path, const char *query)
{
	char *absolute = g_canonicalize_filename(path, NULL);
	char *uri = g_filename_to_uri(absolute, NULL, NULL);
	char *out = uri ? str_printf("%s%s%s", uri, query ? "?" : "", query ? query : "") : NULL;

	g_free(uri);
	g_free(absolute);
	return out;
}

/* Read-only: the file as it is, or, when there is none, an empty database
 * in memory (nothing is created on disk).  Sets *upgrade (and returns
 * BB_OK) when the file's schema is older and this user could upgrade it. */
static enum bb_status store_open_read_only(struct store *st, int *upgrade, struct bb_error *err)
{
	int version, rc;
	char *uri;

	if (access(st->path, F_OK) != 0) {
		if (errno != ENOENT)
			return bb_error_errno(err, errno, "cannot reach the database %s", st->path);
		st->missing = 1;
		if (sqlite3_open_v2(":memory:", &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
				    NULL) != SQLITE_OK)
			return store_fail(st, err, "opening an empty stand-in failed");
		sqlite3_extended_result_codes(st->db, 1);
		if (store_functions(st, err) || migrate(st, err))
			return BB_ERR_DATABASE;
		return store_exec(st, "PRAGMA query_only = ON", err);
	}
	{
		int exists;
		enum bb_status s = store_check_empty(st->path, &exists, err);

		if (s)
			return s;
	}
	/* a file of ours an older version left wide is narrowed (a mode
	 * change, not a write); another user's stays as it is */
	if (fs_narrow_mode(st->path, FS_PRIVATE_FILE_MODE, err) ||
	    store_narrow(st->path, "-wal", err) || store_narrow(st->path, "-shm", err))
		return BB_ERR_PERMISSION;
	uri = store_immutable_uri(st->path);
	rc = sqlite3_open_v2(uri ? uri : st->path, &st->db, SQLITE_OPEN_READONLY |
			     SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0), NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return store_fail(st, err, "opening failed");
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, 10000);
	if (store_functions(st, err) ||
	    store_exec(st, "PRAGMA foreign_keys = ON; PRAGMA mmap_size = 268435456;", err))
		return BB_ERR_DATABASE;
	version = store_file_version(st);
	if (version_usable(st, version, err))
		return BB_ERR_DATABASE;
	if (version < SCHEMA_VERSION) {
		if (access(st->path, W_OK) == 0) {
			*upgrade = 1;
			return BB_OK;
		}
		return bb_error_set(err, BB_ERR_DATABASE,
				    "database %s has schema version %d and needs an upgrade to %d,"
				    " which a writing command by its owner does (bugbridge sync)",
				    st->path, version, SCHEMA_VERSION);
	}
	return BB_OK;
}

/* SQLite set up once, before its first use: without the statistics of
 * its memory use, which no one here reads and which took a mutex around
 * every allocation and free it made (half a million in a round that
 * reads 40,000 list mails).  Too late if something in this process used
 * SQLite first: it then keeps them, and nothing else changes. */
static void store_setup(void)
{
	static gsize done;

	if (g_once_init_enter(&done)) {
		(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
		g_once_init_leave(&done, 1);
	}
}

enum bb_status store_open(struct store **out, const char *path,
			  enum store_mode mode, struct bb_error *err)
{
	struct store *st;
	enum bb_status s;
	int flags;

	*out = NULL;
	store_setup();
	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	}
	if (mode == STORE_READ_ONLY) {
		int upgrade = 0;

		s = store_open_read_only(st, &upgrade, err);
		if (!s && upgrade) {
			/* an older schema this user may upgrade */
			store_close(st);
			if ((s = store_open(&st, path, STORE_READ_WRITE, err)))
				return s;
			s = store_exec(st, "PRAGMA query_only = ON", err);
		}
		goto out;
	}
	if ((s = store_make_private(path, err)))
		goto out;
	flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
		s = store_fail(st, err, "opening failed");
		goto out;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, 10000);
	sqlite3_commit_hook(st->db, refuse_lone_commit, st);
	if ((s = store_functions(st, err)))
		goto out;
	{
		/* keep -wal and -shm after the last writer closes: a reader of
		 * the service's group cannot create them (the folder is not
		 * theirs to write), but may use them */
		int persist = 1;

		sqlite3_file_control(st->db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
	}
	/* reads through a mapping, not a pread() per page; a page cache of
	 * 16 MiB (SQLite's default is 2 MiB), filled only as pages are used:
	 * a transaction of a history read dirties about 6 MB of index pages
	 * all over the file, and with 2 MiB SQLite spilled them to the -wal
	 * before the commit and read them back (a 40,596-mail read made
	 * 24,000 pwrite()s and 13,000 pread()s; 15,000 and 4,400 so) */
	s = store_exec(st, "PRAGMA journal_mode = WAL;"
			   "PRAGMA synchronous = FULL;"
			   "PRAGMA foreign_keys = ON;"
			   "PRAGMA mmap_size = 268435456;"
			   "PRAGMA cache_size = -16384;", err);
	if (s)
		goto out;
	s = migrate(st, err);
	if (s)
		goto out;
	/* SQLite gives its -wal and -shm files the database's mode; files of
	 * an older version may be wider */
	if ((s = store_narrow(path, "-wal", err)) || (s = store_narrow(path, "-shm", err)))
		goto out;
	if (mode == STORE_READ_ONLY)
		s = store_exec(st, "PRAGMA query_only = ON", err);
out:
	if (s) {
		store_close(st);
		return s;
	}
	*out = st;
	return BB_OK;
}

enum bb_status store_quick_check(struct store *st, char **damage, struct bb_error *err)
{
	sqlite3_stmt *stmt;
	struct buf out = BUF_INIT;
	enum bb_status s;
	int rc, lines = 0;

	*damage = NULL;
	if ((s = store_prepare(st, &stmt, "PRAGMA quick_check(20)", err)))
		return s;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *line = (const char *)sqlite3_column_text(stmt, 0);

		if (!line || !strcmp(line, "ok"))
			continue;
		if (buf_addf(&out, "%s%s", lines++ ? "\n" : "", line)) {
			sqlite3_finalize(stmt);
			buf_release(&out);
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		}
	}
	sqlite3_finalize(stmt);
	/* a page so damaged that the check itself cannot go on is damage too */
	if (rc != SQLITE_DONE && !lines) {
		if ((rc & 0xff) != SQLITE_CORRUPT && (rc & 0xff) != SQLITE_NOTADB)
			return store_fail(st, err, "the integrity check failed");
		if (buf_addstr(&out, sqlite3_errstr(rc)))
			return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		lines = 1;
	}
	if (lines)
		*damage = buf_detach(&out, NULL);
	buf_release(&out);
	return BB_OK;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	if (st->cached)
		g_hash_table_destroy(st->cached);
	if (st->kept)
		g_hash_table_destroy(st->kept);
	if (st->recent)
		g_hash_table_destroy(st->recent);
	for (int i = 0; i < STORE_KEYS_N; i++) {
		if (st->keys[i]) {
			keyset_empty(st->keys[i], 0);
			free(st->keys[i]);
		}
	}
	if (st->db)
		sqlite3_close_v2(st->db);
	free(st->path);
	free(st);
}

/* ------------------------------------------------------------ cursors */

enum bb_status store_cursor_today(struct store *db, const char *name, time_t now,
				  char today[STORE_DAY_LEN], int *done, struct bb_error *err)
{
	char *last = NULL;
	struct tm tm;
	enum bb_status s;

	gmtime_r(&now, &tm);
	strftime(today, STORE_DAY_LEN, "%Y-%m-%d", &tm);
	*done = 0;
	if ((s = store_cursor_get(db, name, &last, NULL, err)))
		return s;
	*done = last && !strcmp(last, today);
	free(last);
	return BB_OK;
}

enum bb_status store_cursor_get(struct store *db, const char *name, char **value,
				time_t *updated, struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;
	int rc;

	*value = NULL;
	if ((s = store_cached(db, &st, "SELECT value, updated FROM cursor WHERE source = ?", err)))
		return s;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*value = strdup((const char *)sqlite3_column_text(st, 0));
		if (updated)
			*updated = (time_t)sqlite3_column_int64(st, 1);
		if (!*value)
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	} else if (rc != SQLITE_DONE) {
		s = store_fail(db, err, "reading a cursor");
	}
	store_cached_done(db, st);
	return s;
}

enum bb_status store_cursor_set(struct store *db, const char *name, const char *value,
				struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_cached(db, &st,
			      "INSERT INTO cursor (source, value, updated) VALUES (?, ?, ?)"
			      " ON CONFLICT (source) DO UPDATE SET value = excluded.value,"
			      " updated = excluded.updated", err)))
		return s;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL));
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "moving a cursor");
	store_cached_done(db, st);
	return s;
}

/* The secret's hex text in the meta table, decoded into out; 1 when there
 * is one of the right form. */
static int secret_read(struct store *db, const char *key, unsigned char *out)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (store_prepare(db, &st, "SELECT value FROM meta WHERE key = ?", NULL))
		return 0;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == 2 * STORE_SECRET_LEN) {
		const char *hex = (const char *)sqlite3_column_text(st, 0);

		found = 1;
		for (size_t i = 0; i < STORE_SECRET_LEN && found; i++) {
			int hi = g_ascii_xdigit_value(hex[2 * i]), lo = g_ascii_xdigit_value(hex[2 * i + 1]);

			if (hi < 0 || lo < 0)
				found = 0;
			else
				out[i] = (unsigned char)(hi << 4 | lo);
		}
	}
	sqlite3_finalize(st);
	return found;
}

enum bb_status store_secret(struct store *db, const char *name, int make,
			    unsigned char out[STORE_SECRET_LEN], struct bb_error *err)
{
	unsigned char fresh[STORE_SECRET_LEN];
	char hex[2 * STORE_SECRET_LEN + 1];
	sqlite3_stmt *st = NULL;
	char *key = str_printf("secret.%s", name);
	enum bb_status s = BB_OK;

	if (!key)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if (secret_read(db, key, out))
		goto out;
	if (!make) {
		s = bb_error_set(err, BB_ERR_NOT_FOUND, "the state has no secret \"%s\"", name);
		goto out;
	}
	if (getrandom(fresh, sizeof(fresh), 0) != (ssize_t)sizeof(fresh)) {
		s = bb_error_set(err, BB_ERR_IO, "no random bytes for a secret: %s", strerror(errno));
		goto out;
	}
	hex_encode(fresh, STORE_SECRET_LEN, hex);
	/* another process may have made it first: its own is kept */
	if ((s = store_prepare(db, &st, "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", err)))
		goto out;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, hex, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(db, err, "keeping a secret of the state");
	sqlite3_finalize(st);
	if (!s && !secret_read(db, key, out))
		s = bb_error_set(err, BB_ERR_DATABASE, "the state's secret \"%s\" is malformed", name);
out:
	explicit_bzero(fresh, sizeof(fresh));
	free(key);
	return s;
}
