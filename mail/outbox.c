/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The outbox (see outbox.h): queued mail in SQLite, delivered over SMTP
 * with libESMTP or to a local Maildir or mbox.
 *
 * Crash safety: a row's outcome is committed as soon as the server has
 * answered that message (libESMTP's message-sent event), not at the end of
 * the session.  A crash between the server's 250 and that commit leaves the
 * row queued, and the mail is sent again later with the same Message-ID,
 * which archives such as public-inbox store once.  Two processes delivering
 * the same outbox at once could both send a row; the daemon runs one.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include <auth-client.h>
#include <libesmtp.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "mail/outbox.h"

#define DEFAULT_BATCH 100
#define DEFAULT_RETRY_MIN 60
#define DEFAULT_RETRY_MAX (4 * 3600)

/* A queued row taken out for delivery. */
struct pending {
	long long id;
	char *message_id;
	char *sender;
	char **rcpt;              /* NULL-terminated envelope recipients */
	struct buf text;          /* the message as stored (LF line ends) */
	struct buf wire;          /* the same with CRLF, for SMTP */
	int attempts;
	int handed_out;           /* the SMTP message callback gave out the data */
	int recorded;             /* its outcome is committed */
};

enum outcome_kind { OUTCOME_SENT, OUTCOME_DEFERRED, OUTCOME_FAILED };

static const char *const outcome_names[] = { "sent", "deferred", "failed" };

struct outcome {
	enum outcome_kind kind;
	int code;                 /* the SMTP reply code that decided it, 0 if none */
	char error[512];          /* for last_error; "" for none */
	char *recipients;         /* malloc; new recipient list when only some are left */
	int auth_trouble;         /* MAIL FROM refused for want of a good login */
};

/* --- small helpers ---------------------------------------------------------- */

/* The bare address of "Name <addr>" or "addr" (malloc'd), or NULL if what is
 * left is not usable on an SMTP envelope. */
static char *envelope_address(const char *text)
{
	const char *start = text, *end;
	const char *lt = strrchr(text, '<');
	char *out;

	if (lt) {
		start = lt + 1;
		end = strchr(start, '>');
		if (!end)
			return NULL;
	} else {
		while (*start == ' ' || *start == '\t')
			start++;
		end = start + strlen(start);
		while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
	}
	for (const char *p = start; p < end; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == ',' || *p == '<' || *p == '>')
			return NULL;
	out = malloc((size_t)(end - start) + 1);
	if (out) {
		memcpy(out, start, (size_t)(end - start));
		out[end - start] = '\0';
	}
	return out;
}

static void free_strv(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

/* Splits "a, b, c" into a NULL-terminated malloc'd vector (NULL when out of
 * memory). */
static char **split_recipients(const char *list)
{
	size_t n = 1, i = 0;
	char **v;

	for (const char *p = list; *p; p++)
		n += *p == ',';
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		char *item = strndup(p, len), *addr;

		if (!item) {
			free_strv(v);
			return NULL;
		}
		addr = envelope_address(item);
		free(item);
		if (addr && *addr)
			v[i++] = addr;
		else
			free(addr);
		p += len;
		if (*p == ',')
			p++;
	}
	return v;
}

static void pending_release(struct pending *p)
{
	free(p->message_id);
	free(p->sender);
	free_strv(p->rcpt);
	buf_release(&p->text);
	buf_release(&p->wire);
}

static void pendings_free(struct pending *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pending_release(&rows[i]);
	free(rows);
}

/* The delay before attempt number attempts + 1, after attempts failures:
 * retry_min, doubling each time, at most retry_max. */
static long long backoff(const struct outbox_options *opt, int attempts)
{
	long long min = opt->retry_min > 0 ? opt->retry_min : DEFAULT_RETRY_MIN;
	long long max = opt->retry_max > 0 ? opt->retry_max : DEFAULT_RETRY_MAX;
	long long delay = min;

	if (max < min)
		max = min;
	for (int i = 1; i < attempts && delay < max; i++)
		delay = delay > LLONG_MAX / 2 ? max : delay * 2;
	return delay < max ? delay : max;
}

/* --- queueing --------------------------------------------------------------- */

enum bb_status outbox_add(struct store *db, const char *message_id, long long bug_id,
			  long long comment_id, const char *sender, char *const *recipients,
			  const char *message, size_t len, struct bb_error *err)
{
	struct buf rcpt = BUF_INIT, text = BUF_INIT;
	sqlite3_stmt *q = NULL;
	char *from = NULL;
	enum bb_status s = BB_OK;

	if (!message_id || !*message_id || !message || !len) {
		s = bb_error_set(err, BB_ERR_INVALID, "outbox: a mail needs a Message-ID and a text");
		goto out;
	}
	from = envelope_address(sender ? sender : "");
	if (!from) {
		s = bb_error_set(err, BB_ERR_INVALID, "outbox: unusable envelope sender \"%s\"",
				 sender ? sender : "");
		goto out;
	}
	for (char *const *r = recipients; r && *r && !s; r++) {
		char *addr = envelope_address(*r);

		if (!addr || !*addr)
			s = bb_error_set(err, BB_ERR_INVALID, "outbox: unusable recipient \"%s\"", *r);
		else if (buf_addf(&rcpt, "%s%s", rcpt.len ? ", " : "", addr))
			s = bb_error_set(err, BB_ERR_NOMEM, "outbox: out of memory");
		free(addr);
	}
	if (s)
		goto out;
	if (!rcpt.len) {
		s = bb_error_set(err, BB_ERR_INVALID, "outbox: mail %s has no recipients", message_id);
		goto out;
	}
	/* The table keeps messages CRLF-free; SMTP gets CRLF at delivery. */
	if (buf_grow(&text, len)) {
		s = bb_error_set(err, BB_ERR_NOMEM, "outbox: out of memory");
		goto out;
	}
	for (size_t i = 0; i < len; i++)
		if (message[i] != '\r' || (i + 1 < len && message[i + 1] != '\n'))
			text.data[text.len++] = message[i] == '\r' ? '\n' : message[i];
	text.data[text.len] = '\0';

	s = store_prepare(db, &q,
			  "INSERT OR IGNORE INTO outbox (message_id, bug_id, comment_id, sender,"
			  " recipients, message, state, attempts, next_attempt, created)"
			  " VALUES (?, ?, ?, ?, ?, ?, 'queued', 0, 0, ?)", err);
	if (s)
		goto out;
	sqlite3_bind_text(q, 1, message_id, -1, SQLITE_STATIC);
	if (bug_id > 0)
		sqlite3_bind_int64(q, 2, bug_id);
	if (comment_id > 0)
		sqlite3_bind_int64(q, 3, comment_id);
	sqlite3_bind_text(q, 4, from, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 5, rcpt.data, (int)rcpt.len, SQLITE_STATIC);
	sqlite3_bind_blob64(q, 6, text.data, text.len, SQLITE_STATIC);
	sqlite3_bind_int64(q, 7, (sqlite3_int64)time(NULL));
	if (sqlite3_step(q) != SQLITE_DONE)
		s = store_fail(db, err, "queueing a mail failed");
out:
	sqlite3_finalize(q);
	free(from);
	buf_release(&rcpt);
	buf_release(&text);
	return s;
}

enum bb_status outbox_record_sent(struct store *db, const char *message_id, long long bug_id,
				  const char *raw, size_t len, time_t when, int *added,
				  struct bb_error *err)
{
	sqlite3_stmt *q = NULL;
	enum bb_status s;

	*added = 0;
	if ((s = store_cached(db, &q, "INSERT INTO outbox (message_id, bug_id, sender,"
				      " recipients, message, state, created, sent)"
				      " VALUES (?1, ?2, '', '', ?3, 'sent', ?4, ?4)"
				      /* a copy queued again (a crash after sending it,
				       * a state put back) goes no more */
				      " ON CONFLICT (message_id) DO UPDATE SET state = 'sent',"
				      " sent = coalesce(sent, excluded.sent) WHERE state <> 'sent'", err)))
		return s;
	sqlite3_bind_text(q, 1, message_id, -1, SQLITE_STATIC);
	if (bug_id > 0)
		sqlite3_bind_int64(q, 2, bug_id);
	sqlite3_bind_blob64(q, 3, raw, len, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, (sqlite3_int64)when);
	if (sqlite3_step(q) != SQLITE_DONE)
		s = store_fail(db, err, "recording a sent mail");
	else
		*added = sqlite3_changes(db->db) > 0;
	store_cached_done(db, q);
	return s;
}

int outbox_has(struct store *db, const char *message_id)
{
	sqlite3_stmt *q = NULL;
	int found;

	if (store_cached(db, &q, "SELECT 1 FROM outbox WHERE message_id = ?", NULL))
		return 0;
	sqlite3_bind_text(q, 1, message_id, -1, SQLITE_STATIC);
	found = sqlite3_step(q) == SQLITE_ROW;
	store_cached_done(db, q);
	return found;
}

/* Loads up to limit queued rows due at now with id > after, by id. */
static enum bb_status load_due(struct store *db, time_t now, long long after, unsigned limit,
			       struct pending **out, size_t *count, struct bb_error *err)
{
	sqlite3_stmt *q = NULL;
	struct pending *rows = NULL;
	size_t n = 0;
	enum bb_status s;
	int rc = SQLITE_DONE;

	*out = NULL;
	*count = 0;
	rows = calloc(limit, sizeof(*rows));
	if (!rows)
		return bb_error_set(err, BB_ERR_NOMEM, "outbox: out of memory");
	s = store_prepare(db, &q,
			  "SELECT id, message_id, sender, recipients, message, attempts FROM outbox"
			  " WHERE state = 'queued' AND next_attempt <= ? AND id > ?"
			  " ORDER BY id LIMIT ?", err);
	if (s)
		goto out;
	sqlite3_bind_int64(q, 1, (sqlite3_int64)now);
	sqlite3_bind_int64(q, 2, after);
	sqlite3_bind_int(q, 3, (int)limit);
	while (n < limit && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct pending *p = &rows[n++];
		const char *mid = (const char *)sqlite3_column_text(q, 1);
		const char *sender = (const char *)sqlite3_column_text(q, 2);
		const char *rcpt = (const char *)sqlite3_column_text(q, 3);
		const void *msg = sqlite3_column_blob(q, 4);
		size_t len = (size_t)sqlite3_column_bytes(q, 4);

		buf_init(&p->text);
		buf_init(&p->wire);
		p->id = sqlite3_column_int64(q, 0);
		p->attempts = sqlite3_column_int(q, 5);
		p->message_id = strdup(mid ? mid : "");
		p->sender = strdup(sender ? sender : "");
		p->rcpt = split_recipients(rcpt ? rcpt : "");
		if (!p->message_id || !p->sender || !p->rcpt || buf_add(&p->text, msg, len)) {
			s = bb_error_set(err, BB_ERR_NOMEM, "outbox: out of memory");
			goto out;
		}
	}
	if (n < limit && rc != SQLITE_DONE)
		s = store_fail(db, err, "reading the outbox failed");
out:
	sqlite3_finalize(q);
	if (s) {
		pendings_free(rows, n);
		return s;
	}
	*out = rows;
	*count = n;
	return BB_OK;
}

/* Commits the outcome of one delivery and logs it. */
static enum bb_status record(struct store *db, const struct outbox_options *opt, const char *via,
			     struct pending *p, const struct outcome *o, time_t now,
			     struct outbox_stats *stats, struct bb_error *err)
{
	sqlite3_stmt *q = NULL;
	int attempts = p->attempts + 1;
	long long next = 0;
	enum bb_status s;

	/* The server (or the file system) has the mail; the row says queued. */
	if (o->kind == OUTCOME_SENT)
		test_hook("outbox.accepted");
	s = store_begin(db, err);
	if (s)
		return s;
	switch (o->kind) {
	case OUTCOME_SENT:
		s = store_prepare(db, &q, "UPDATE outbox SET state = 'sent', sent = ?2,"
				  " attempts = ?3, last_error = ?4 WHERE id = ?1", err);
		break;
	case OUTCOME_DEFERRED:
		next = (long long)now + backoff(opt, attempts);
		s = store_prepare(db, &q, "UPDATE outbox SET next_attempt = ?2, attempts = ?3,"
				  " last_error = ?4, recipients = coalesce(?5, recipients)"
				  " WHERE id = ?1", err);
		break;
	case OUTCOME_FAILED:
		s = store_prepare(db, &q, "UPDATE outbox SET state = 'failed', attempts = ?3,"
				  " last_error = ?4 WHERE id = ?1", err);
		break;
	}
	if (s)
		goto out;
	sqlite3_bind_int64(q, 1, p->id);
	sqlite3_bind_int64(q, 2, o->kind == OUTCOME_SENT ? (long long)now : next);
	sqlite3_bind_int(q, 3, attempts);
	if (o->error[0])
		sqlite3_bind_text(q, 4, o->error, -1, SQLITE_STATIC);
	if (o->kind == OUTCOME_DEFERRED && o->recipients)
		sqlite3_bind_text(q, 5, o->recipients, -1, SQLITE_STATIC);
	if (sqlite3_step(q) != SQLITE_DONE) {
		s = store_fail(db, err, "recording a delivery failed");
		goto out;
	}
	sqlite3_finalize(q);
	q = NULL;
	s = store_commit(db, err);
out:
	sqlite3_finalize(q);
	if (s) {
		store_rollback(db);
		return s;
	}
	test_hook("outbox.marked");
	p->recorded = 1;
	switch (o->kind) {
	case OUTCOME_SENT: stats->sent++; break;
	case OUTCOME_DEFERRED: stats->deferred++; break;
	case OUTCOME_FAILED: stats->failed++; break;
	}
	log_event(o->kind == OUTCOME_SENT ? LOG_LEVEL_INFO :
		  o->kind == OUTCOME_DEFERRED ? LOG_LEVEL_WARN : LOG_LEVEL_ERROR,
		  "outbox.delivery", LF_STR("message_id", p->message_id),
		  LF_STR("state", outcome_names[o->kind]), LF_INT("code", o->code),
		  LF_STR("via", via), LF_INT("attempts", attempts),
		  LF_INT("next_attempt", next), LF_STR("error", o->error));
	return BB_OK;
}

/* --- local delivery ---------------------------------------------------------- */

/* A Maildir file name: time.pid_random.host, host with '/' and ':' escaped
 * as the Maildir convention asks. */
static enum bb_status maildir_name(char *out, size_t len, struct bb_error *err)
{
	static unsigned long counter;
	char host[256] = "localhost", safe[512];
	uint32_t rnd = 0;
	size_t j = 0;

	if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd = (uint32_t)rand();
	if (gethostname(host, sizeof(host) - 1) != 0)
		strcpy(host, "localhost");
	host[sizeof(host) - 1] = '\0';
	for (const char *h = host; *h && j + 5 < sizeof(safe); h++) {
		if (*h == '/' || *h == ':') {
			j += (size_t)snprintf(safe + j, sizeof(safe) - j, "\\%03o", (unsigned char)*h);
		} else {
			safe[j++] = *h;
		}
	}
	safe[j] = '\0';
	if ((size_t)snprintf(out, len, "%lld.%ld_%lu%08x.%s", (long long)time(NULL),
			     (long)getpid(), __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED),
			     rnd, safe) >= len)
		return bb_error_set(err, BB_ERR_INVALID, "maildir: file name too long");
	return BB_OK;
}

static enum bb_status maildir_deliver(const char *dir, const struct pending *p,
				      struct bb_error *err)
{
	char name[600], *tmp = NULL, *new_dir = NULL, *dest = NULL;
	int fd = -1;
	enum bb_status s = BB_OK;
	static const char *const subdirs[] = { "tmp", "new", "cur" };

	/* the mails hold /confirm/<token> links: the modes of the data
	 * folder (core/fsutil.h), whatever the umask and wherever the folder
	 * is; one made more open before (0755) is narrowed */
	if ((s = fs_mkdir_private(dir, err)) || (s = fs_narrow_mode(dir, FS_PRIVATE_DIR_MODE, err)))
		goto out;
	for (size_t i = 0; i < 3 && !s; i++) {
		char *sub = str_printf("%s/%s", dir, subdirs[i]);

		s = sub ? fs_mkdir_private(sub, err)
			: bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		free(sub);
	}
	if (s)
		goto out;
	s = maildir_name(name, sizeof(name), err);
	if (s)
		goto out;
	tmp = str_printf("%s/tmp/%s", dir, name);
	new_dir = str_printf("%s/new", dir);
	dest = str_printf("%s/new/%s", dir, name);
	if (!tmp || !new_dir || !dest) {
		s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, FS_PRIVATE_FILE_MODE);
	/* exactly this mode: the umask may have taken the group's bit */
	if (fd < 0 || fchmod(fd, FS_PRIVATE_FILE_MODE) != 0) {
		s = bb_error_errno(err, errno, "maildir: cannot create %s", tmp);
		goto out;
	}
	if (fs_write_all(fd, p->text.data, p->text.len) != 0 || fsync(fd) != 0) {
		s = bb_error_errno(err, errno, "maildir: cannot write %s", tmp);
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		s = bb_error_errno(err, errno, "maildir: cannot write %s", tmp);
		goto out;
	}
	fd = -1;
	if (rename(tmp, dest) != 0) {
		s = bb_error_errno(err, errno, "maildir: cannot move the mail into %s", new_dir);
		goto out;
	}
	s = fs_fsync_dir(new_dir, err);
out:
	if (fd >= 0)
		close(fd);
	if (s && tmp)
		unlink(tmp);
	free(tmp);
	free(new_dir);
	free(dest);
	return s;
}

/* Appends the mbox entry for p to out: a From_ line, the message with
 * mboxrd quoting (a '>' before every line matching ^>*From ), a blank
 * line. */
static enum bb_status mbox_entry(struct buf *out, const struct pending *p, time_t now)
{
	char date[64];
	struct tm tm;
	const char *text = p->text.data, *end = p->text.data + p->text.len;
	enum bb_status s;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", &tm);
	s = buf_addf(out, "From %s %s\n", *p->sender ? p->sender : "MAILER-DAEMON", date);
	while (!s && text < end) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		const char *line_end = nl ? nl + 1 : end;
		const char *q = text;

		while (q < line_end && *q == '>')
			q++;
		if ((size_t)(line_end - q) >= 5 && !memcmp(q, "From ", 5))
			s = buf_addch(out, '>');
		if (!s)
			s = buf_add(out, text, (size_t)(line_end - text));
		text = line_end;
	}
	if (!s && (out->len == 0 || out->data[out->len - 1] != '\n'))
		s = buf_addch(out, '\n');
	if (!s)
		s = buf_addch(out, '\n');
	return s;
}

static enum bb_status mbox_deliver(const char *path, const struct pending *p, time_t now,
				   struct bb_error *err)
{
	struct buf entry = BUF_INIT;
	struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat st;
	char tail[2];
	int fd = -1;
	enum bb_status s;

	s = fs_mkdir_parents(path, err);
	if (s)
		goto out;
	/* private as the data folder's files (core/fsutil.h): the mails hold
	 * /confirm/<token> links; an existing mbox of ours is narrowed */
	fd = fs_open_private(path, O_RDWR | O_APPEND);
	if (fd < 0) {
		s = bb_error_errno(err, errno, "mbox: cannot open %s", path);
		goto out;
	}
	while (fcntl(fd, F_SETLKW, &lock) != 0) {
		if (errno != EINTR) {
			s = bb_error_errno(err, errno, "mbox: cannot lock %s", path);
			goto out;
		}
	}
	if (fstat(fd, &st) != 0) {
		s = bb_error_errno(err, errno, "mbox: cannot use %s", path);
		goto out;
	}
	/* An entry must follow a blank line; mend a file someone left short. */
	if (st.st_size == 1 && pread(fd, tail, 1, 0) == 1 && tail[0] != '\n')
		s = buf_addstr(&entry, "\n\n");
	else if (st.st_size == 1)
		s = buf_addstr(&entry, "\n");
	else if (st.st_size >= 2 && pread(fd, tail, 2, st.st_size - 2) == 2 &&
		 (tail[0] != '\n' || tail[1] != '\n'))
		s = buf_addstr(&entry, tail[1] == '\n' ? "\n" : "\n\n");
	if (!s)
		s = mbox_entry(&entry, p, now);
	if (s) {
		s = bb_error_set(err, s, "mbox: out of memory");
		goto out;
	}
	if (fs_write_all(fd, entry.data, entry.len) != 0 || fsync(fd) != 0) {
		s = bb_error_errno(err, errno, "mbox: cannot write %s", path);
		/* leave no half entry behind */
		if (ftruncate(fd, st.st_size) == 0)
			fsync(fd);
		goto out;
	}
out:
	if (fd >= 0)
		close(fd); /* releases the lock */
	buf_release(&entry);
	return s;
}

static enum bb_status deliver_local(struct store *db, const struct outbox_options *opt,
				    time_t now, struct pending *rows, size_t n,
				    struct outbox_stats *stats, struct bb_error *err)
{
	const char *via = opt->mbox && *opt->mbox ? "mbox" : "maildir";
	enum bb_status s = BB_OK;

	for (size_t i = 0; i < n && !s; i++) {
		struct bb_error derr = BB_ERROR_INIT;
		struct outcome o = { .kind = OUTCOME_SENT };
		enum bb_status ds = opt->mbox && *opt->mbox ? mbox_deliver(opt->mbox, &rows[i], now, &derr)
			: maildir_deliver(opt->maildir, &rows[i], &derr);

		if (ds) {
			/* The file system may recover (space, permissions): retry later. */
			o.kind = OUTCOME_DEFERRED;
			snprintf(o.error, sizeof(o.error), "%s", derr.message);
		}
		s = record(db, opt, via, &rows[i], &o, now, stats, err);
	}
	return s;
}

/* --- SMTP -------------------------------------------------------------------- */

struct smtp_run {
	struct store *db;
	const struct outbox_options *opt;
	time_t now;
	struct outbox_stats *stats;
	enum bb_status status;    /* first database failure while recording */
	struct bb_error *err;
	const char *user, *password;
	int unanswered;           /* rows the server never answered (session trouble) */
	const char *tls_trouble;  /* why the session stopped before TLS, or NULL */
	char auth_trouble[512];   /* the server's words refusing the login, or "" */
};

static pthread_once_t auth_once = PTHREAD_ONCE_INIT;

static void auth_init_once(void)
{
	auth_client_init();
}

/* libESMTP asks for the message text; it comes in one piece.  len NULL
 * means "rewind".  Nothing goes into *ctx (libESMTP would free() it). */
static const char *smtp_message_data(void **ctx, int *len, void *arg)
{
	struct pending *p = arg;

	(void)ctx;
	if (!len) {
		p->handed_out = 0;
		return NULL;
	}
	if (p->handed_out) {
		*len = 0;
		return NULL;
	}
	p->handed_out = 1;
	*len = (int)p->wire.len;
	return p->wire.data;
}

static int smtp_auth_interact(auth_client_request_t request, char **result, int fields,
			      void *arg)
{
	struct smtp_run *run = arg;

	for (int i = 0; i < fields; i++) {
		if (request[i].flags & AUTH_USER)
			result[i] = (char *)run->user;
		else if (request[i].flags & AUTH_PASS)
			result[i] = (char *)run->password;
		else
			return 0; /* a realm or other field we do not have */
	}
	return 1;
}

/* "550 5.1.1 text" from a status, on one line. */
static void status_text(const smtp_status_t *st, char *out, size_t len)
{
	size_t n;

	if (st->enh_class)
		snprintf(out, len, "%d %d.%d.%d %s", st->code, st->enh_class, st->enh_subject,
			 st->enh_detail, st->text ? st->text : "");
	else
		snprintf(out, len, "%d %s", st->code, st->text ? st->text : "");
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < ' ')
			*p = ' ';
	n = strlen(out);
	while (n > 0 && out[n - 1] == ' ')
		out[--n] = '\0';
}

static int smtp_class(int code)
{
	return code / 100;
}

/* What the server said about one message, gathered recipient by recipient. */
struct verdict {
	const smtp_status_t *reverse_path, *message;
	const char *session_error;
	struct buf temp;          /* recipients to try again, "a, b" */
	int ok, temp_count, perm;
	int code;                 /* the reply that decided the outcome */
	char temp_error[512], perm_error[512];
	enum bb_status status;
};

static void verdict_note(char *dest, size_t len, const char *who, const char *what)
{
	if (dest[0])
		return; /* keep the first */
	if (who)
		snprintf(dest, len, "%s: %s", who, what);
	else
		snprintf(dest, len, "%s", what);
}

static void verdict_recipient(smtp_recipient_t recipient, const char *mailbox, void *arg)
{
	struct verdict *v = arg;
	const smtp_status_t *rs = smtp_recipient_status(recipient);
	const smtp_status_t *decider = rs;
	char text[400];
	int cls = smtp_class(rs->code), temp;

	/* A recipient the server took depends on the message's own fate. */
	if (cls == 2 && smtp_class(v->message->code) != 2) {
		decider = v->message;
		cls = smtp_class(v->message->code);
	}
	/* MAIL FROM refused: no RCPT was sent. */
	if (rs->code == 0 && smtp_class(v->reverse_path->code) >= 4) {
		decider = v->reverse_path;
		cls = smtp_class(v->reverse_path->code);
		/* "authentication required/failed" needs the admin, not a new mail */
		if (decider->code == 530 || decider->code == 535)
			cls = 4;
	}
	if (cls == 2) {
		v->ok++;
		if (!v->code)
			v->code = v->message->code;
		return;
	}
	temp = cls != 5;
	if (decider->code)
		status_text(decider, text, sizeof(text));
	else
		snprintf(text, sizeof(text), "no answer: %s",
			 v->session_error ? v->session_error : "the session ended early");
	if (temp) {
		v->temp_count++;
		if (!v->status)
			v->status = buf_addf(&v->temp, "%s%s", v->temp.len ? ", " : "", mailbox);
		verdict_note(v->temp_error, sizeof(v->temp_error),
			     decider == rs && rs->code ? mailbox : NULL, text);
	} else {
		v->perm++;
		verdict_note(v->perm_error, sizeof(v->perm_error),
			     decider == rs ? mailbox : NULL, text);
	}
	if (!v->code || smtp_class(v->code) == 2)
		v->code = decider->code;
}

/* Decides a row's outcome from the statuses libESMTP collected. */
static enum bb_status smtp_outcome(smtp_message_t m, const char *session_error,
				   struct outcome *o)
{
	struct verdict v = { .reverse_path = smtp_reverse_path_status(m),
			     .message = smtp_message_transfer_status(m),
			     .session_error = session_error, .temp = BUF_INIT };
	static const smtp_status_t none = { 0, NULL, 0, 0, 0 };

	if (!v.reverse_path)
		v.reverse_path = &none;
	if (!v.message)
		v.message = &none;
	smtp_enumerate_recipients(m, verdict_recipient, &v);
	memset(o, 0, sizeof(*o));
	o->code = v.code;
	/* 530 authentication required, 534 mechanism too weak, 535 bad
	 * credentials, 538 encryption required (RFC 4954): the login is
	 * wrong or missing, which a new try will not change */
	o->auth_trouble = v.reverse_path->code == 530 || v.reverse_path->code == 534 ||
			  v.reverse_path->code == 535 || v.reverse_path->code == 538;
	if (v.status) {
		buf_release(&v.temp);
		return v.status;
	}
	if (v.temp_count) {
		o->kind = OUTCOME_DEFERRED;
		if (v.ok || v.perm)
			o->recipients = buf_detach(&v.temp, NULL);
		if (v.perm)
			snprintf(o->error, sizeof(o->error), "%.240s; not delivered: %.240s",
				 v.temp_error, v.perm_error);
		else
			snprintf(o->error, sizeof(o->error), "%s", v.temp_error);
	} else if (v.ok) {
		o->kind = OUTCOME_SENT;
		if (v.perm)
			snprintf(o->error, sizeof(o->error), "not delivered: %.480s", v.perm_error);
	} else {
		o->kind = OUTCOME_FAILED;
		snprintf(o->error, sizeof(o->error), "%s",
			 v.perm_error[0] ? v.perm_error : "no recipients");
	}
	buf_release(&v.temp);
	return BB_OK;
}

static void smtp_record(struct smtp_run *run, smtp_message_t m, const char *session_error)
{
	struct pending *p = smtp_message_get_application_data(m);
	struct outcome o;
	enum bb_status s;

	if (!p || p->recorded || run->status)
		return;
	s = smtp_outcome(m, session_error, &o);
	if (!s) {
		if (o.kind == OUTCOME_DEFERRED && o.code == 0)
			run->unanswered++;
		if (o.auth_trouble && !run->auth_trouble[0])
			snprintf(run->auth_trouble, sizeof(run->auth_trouble), "%s", o.error);
		s = record(run->db, run->opt, "smtp", p, &o, run->now, run->stats, run->err);
	} else {
		bb_error_set(run->err, s, "outbox: out of memory");
	}
	free(o.recipients);
	if (s)
		run->status = s;
}

/* The server has answered a message's DATA (or refused it): commit that row
 * now rather than after the whole batch. */
static void smtp_event(smtp_session_t session, int event, void *arg, ...)
{
	struct smtp_run *run = arg;
	smtp_message_t m;
	va_list ap;

	(void)session;
	/* STARTTLS trouble ends the session before MAIL FROM (and before
	 * AUTH): say why, rather than "no answer" */
	if (event == SMTP_EV_EXTNA_STARTTLS)
		run->tls_trouble = "the server offers no STARTTLS, which this session requires "
				   "(nothing was sent, no password went out)";
	else if (event == SMTP_EV_INVALID_PEER_CERTIFICATE || event == SMTP_EV_NO_PEER_CERTIFICATE ||
		 event == SMTP_EV_WRONG_PEER_CERTIFICATE)
		run->tls_trouble = "the server's TLS certificate is not trusted for this host "
				   "(nothing was sent)";
	else if (event == SMTP_EV_UNUSABLE_CA_LIST)
		run->tls_trouble = "the CA list in ~/.authenticate cannot be used (mode or owner)";
	if (event != SMTP_EV_MESSAGESENT)
		return;
	va_start(ap, arg);
	m = va_arg(ap, smtp_message_t);
	va_end(ap);
	smtp_record(run, m, NULL);
}

static void smtp_record_rest(smtp_message_t m, void *arg)
{
	struct smtp_run *run = arg;
	char text[256];

	if (run->tls_trouble)
		snprintf(text, sizeof(text), "%s", run->tls_trouble);
	else
		smtp_strerror(smtp_errno(), text, sizeof(text));
	smtp_record(run, m, text);
}

/* Prepares the CRLF copy of a row's message. */
static enum bb_status wire_text(struct pending *p)
{
	enum bb_status s = buf_grow(&p->wire, p->text.len + p->text.len / 16 + 2);

	for (size_t i = 0; i < p->text.len && !s; i++) {
		if (p->text.data[i] == '\n')
			s = buf_addch(&p->wire, '\r');
		if (!s)
			s = buf_addch(&p->wire, p->text.data[i]);
	}
	if (!s && (p->wire.len == 0 || p->wire.data[p->wire.len - 1] != '\n'))
		s = buf_addstr(&p->wire, "\r\n");
	return s;
}

/* The TLS context of one session.  libESMTP can make its own, but the one
 * it makes (1.1.0, Debian 12) is cached for the process and freed with the
 * first session that used it: the second STARTTLS session of a process
 * (the daemon's next round) used freed memory and crashed.  A context of
 * ours, handed over with smtp_starttls_set_ctx() (which takes a reference)
 * and freed after the session, has no such life-time trouble, and trusts
 * the system's CAs (or [smtp] ca_file) rather than ~/.authenticate.
 * libESMTP still checks the verification result and the host name. */
static enum bb_status tls_context(const struct outbox_options *opt, SSL_CTX **out,
				  struct bb_error *err)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	int loaded;

	*out = NULL;
	if (!ctx)
		return bb_error_set(err, BB_ERR_NOMEM, "smtp: cannot set up TLS");
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	if (opt->ca_file && *opt->ca_file)
		loaded = SSL_CTX_load_verify_locations(ctx, opt->ca_file, NULL) == 1;
	else
		loaded = SSL_CTX_set_default_verify_paths(ctx) == 1;
	if (!loaded) {
		SSL_CTX_free(ctx);
		return bb_error_set(err, BB_ERR_CONFIG, "smtp: cannot read the trusted CAs%s%s",
				    opt->ca_file ? " in " : "", opt->ca_file ? opt->ca_file : "");
	}
	*out = ctx;
	return BB_OK;
}

static enum bb_status deliver_smtp(struct store *db, const struct outbox_options *opt,
				   time_t now, struct pending *rows, size_t n,
				   struct outbox_stats *stats, int *session_trouble,
				   struct bb_error *err)
{
	struct smtp_run run = { .db = db, .opt = opt, .now = now, .stats = stats, .err = err,
				.user = opt->user, .password = opt->password ? opt->password : "" };
	smtp_session_t session = NULL;
	auth_context_t auth = NULL;
	SSL_CTX *tls_ctx = NULL;
	enum starttls_option tls = Starttls_ENABLED;
	char server[300];
	enum bb_status s = BB_OK;

	*session_trouble = 0;
	if (!opt->starttls || !strcmp(opt->starttls, "try"))
		tls = Starttls_ENABLED;
	else if (!strcmp(opt->starttls, "no"))
		tls = Starttls_DISABLED;
	else if (!strcmp(opt->starttls, "required"))
		tls = Starttls_REQUIRED;
	else
		return bb_error_set(err, BB_ERR_CONFIG, "smtp: starttls must be no, try or required, "
				    "not \"%s\"", opt->starttls);
	/* AUTH never goes out in clear: a session with a login needs STARTTLS,
	 * and libESMTP, asked to require it, quits before AUTH when the
	 * server offers none (a relay, or someone between, stripping it) */
	if (opt->user && *opt->user) {
		if (tls == Starttls_DISABLED)
			return bb_error_set(err, BB_ERR_CONFIG, "smtp: starttls = no with a user "
					    "would send the password in clear");
		tls = Starttls_REQUIRED;
	}
	if ((size_t)snprintf(server, sizeof(server), "%s:%u", opt->smtp_host,
			     opt->smtp_port ? opt->smtp_port : 25) >= sizeof(server))
		return bb_error_set(err, BB_ERR_CONFIG, "smtp: host name too long");

	session = smtp_create_session();
	if (!session || !smtp_set_server(session, server)) {
		s = bb_error_set(err, BB_ERR_NOMEM, "smtp: cannot set up a session");
		goto out;
	}
	if (tls != Starttls_DISABLED) {
		if ((s = tls_context(opt, &tls_ctx, err)))
			goto out;
		if (!smtp_starttls_set_ctx(session, tls_ctx)) {
			s = bb_error_set(err, BB_ERR_CONFIG, "smtp: this libESMTP cannot do STARTTLS");
			goto out;
		}
	}
	if (!smtp_starttls_enable(session, tls) && tls == Starttls_REQUIRED) {
		s = bb_error_set(err, BB_ERR_CONFIG, "smtp: STARTTLS is required but this "
				 "libESMTP cannot do it");
		goto out;
	}
	if (opt->timeout > 0) {
		long ms = opt->timeout > LONG_MAX / 1000 ? LONG_MAX : opt->timeout * 1000;
		static const int which[] = { Timeout_GREETING, Timeout_ENVELOPE, Timeout_DATA,
					     Timeout_TRANSFER, Timeout_DATA2 };

		for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++)
			smtp_set_timeout(session, which[i] | Timeout_OVERRIDE_RFC2822_MINIMUM, ms);
	}
	if (opt->user && *opt->user) {
		pthread_once(&auth_once, auth_init_once);
		auth = auth_create_context();
		if (!auth) {
			s = bb_error_set(err, BB_ERR_NOMEM, "smtp: cannot set up AUTH");
			goto out;
		}
		auth_set_mechanism_flags(auth, AUTH_PLUGIN_PLAIN, 0);
		auth_set_interact_cb(auth, smtp_auth_interact, &run);
		smtp_auth_set_context(session, auth);
	}
	smtp_set_eventcb(session, smtp_event, &run);

	for (size_t i = 0; i < n; i++) {
		struct pending *p = &rows[i];
		smtp_message_t m;
		int eight_bit = 0;

		if (wire_text(p) || p->wire.len > INT_MAX) {
			s = bb_error_set(err, p->wire.len > INT_MAX ? BB_ERR_TOO_LARGE : BB_ERR_NOMEM,
					 "smtp: cannot prepare %s", p->message_id);
			goto out;
		}
		m = smtp_add_message(session);
		if (!m || !smtp_set_reverse_path(m, p->sender) ||
		    !smtp_set_messagecb(m, smtp_message_data, p)) {
			s = bb_error_set(err, BB_ERR_NOMEM, "smtp: cannot add %s", p->message_id);
			goto out;
		}
		smtp_message_set_application_data_release(m, p, NULL);
		for (size_t j = 0; j < p->text.len && !eight_bit; j++)
			eight_bit = (unsigned char)p->text.data[j] >= 0x80;
		if (eight_bit)
			smtp_8bitmime_set_body(m, E8bitmime_8BITMIME);
		for (char **r = p->rcpt; *r; r++)
			if (!smtp_add_recipient(m, *r)) {
				s = bb_error_set(err, BB_ERR_NOMEM, "smtp: cannot add %s", *r);
				goto out;
			}
	}

	if (!smtp_start_session(session))
		*session_trouble = 1;
	/* Rows the server never answered: refused connection, lost session,
	 * AUTH or STARTTLS trouble, MAIL FROM refused. */
	smtp_enumerate_messages(session, smtp_record_rest, &run);
	if (run.unanswered)
		*session_trouble = 1;
	s = run.status;
	/* no STARTTLS where it is required, a certificate nobody vouches for:
	 * trying again will not help, the admin must look (the rows stay
	 * queued, deferred, and go out once the relay or the settings are
	 * fixed) */
	if (!s && run.tls_trouble)
		s = bb_error_set(err, BB_ERR_CONFIG, "smtp %s: %s", server, run.tls_trouble);
	/* a login refused (or missing where the server wants one): the same,
	 * with the server's words */
	if (!s && run.auth_trouble[0])
		s = bb_error_set(err, BB_ERR_CONFIG, "smtp %s: the server refused the login%s%s: %s",
				 server, run.user ? " of " : " (no [smtp] user is set)",
				 run.user ? run.user : "", run.auth_trouble);
out:
	if (session)
		smtp_destroy_session(session);
	if (auth)
		auth_destroy_context(auth);
	SSL_CTX_free(tls_ctx);	/* the session held its own reference */
	return s;
}

/* --- the public entry points ---------------------------------------------------- */

/* One delivery of an outbox at a time, across processes and threads: an
 * flock() on <database>.deliver-lock, dropped with the descriptor (and by
 * the kernel when a process dies).  Returns the descriptor, -1 when there
 * is no file to lock (a database in memory, a read-only folder: delivery
 * goes on unlocked, as before), -2 when another delivery holds it. */
static int deliver_lock(struct store *db)
{
	char *path;
	int fd;

	if (!db->path || !*db->path || !strcmp(db->path, ":memory:"))
		return -1;
	path = str_printf("%s.deliver-lock", db->path);
	fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;
	free(path);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int busy = errno == EWOULDBLOCK;

		close(fd);
		return busy ? -2 : -1;
	}
	return fd;
}

enum bb_status outbox_deliver(struct store *db, const struct outbox_options *opt, time_t now,
			      struct outbox_stats *stats, struct bb_error *err)
{
	struct outbox_stats local = { 0, 0, 0 };
	int smtp = opt->smtp_host && *opt->smtp_host;
	unsigned limit = opt->batch ? opt->batch : DEFAULT_BATCH;
	long long after = 0;
	enum bb_status s = BB_OK;
	int lock;

	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	if (!smtp && !(opt->mbox && *opt->mbox) && !(opt->maildir && *opt->maildir))
		return bb_error_set(err, BB_ERR_CONFIG,
				    "outbox: no SMTP host, Maildir or mbox to deliver to");
	if ((lock = deliver_lock(db)) == -2) {
		/* another process (or thread) is delivering this outbox: what
		 * is due is in its hands, and nothing is sent twice */
		log_event(LOG_LEVEL_INFO, "outbox.busy", LF_STR("reason", "another delivery runs"));
		return BB_OK;
	}
	for (;;) {
		struct pending *rows = NULL;
		size_t n = 0;
		int trouble = 0;

		s = load_due(db, now, after, limit, &rows, &n, err);
		if (s || n == 0) {
			pendings_free(rows, n);
			break;
		}
		after = rows[n - 1].id;
		if (smtp)
			s = deliver_smtp(db, opt, now, rows, n, stats, &trouble, err);
		else
			s = deliver_local(db, opt, now, rows, n, stats, err);
		pendings_free(rows, n);
		/* A server that is down or dropped us gets no more sessions
		 * this round; what is left stays due for the next one. */
		if (s || trouble)
			break;
	}
	if (lock >= 0)
		close(lock);   /* releases the lock */
	return s;
}

enum bb_status outbox_retry(struct store *db, unsigned long *count, struct bb_error *err)
{
	sqlite3_stmt *q = NULL;
	enum bb_status s;

	if (count)
		*count = 0;
	s = store_prepare(db, &q, "UPDATE outbox SET state = 'queued', next_attempt = 0,"
			  " attempts = 0 WHERE state = 'failed'"
			  " OR (state = 'queued' AND attempts > 0)", err);
	if (s)
		goto out;
	if (sqlite3_step(q) != SQLITE_DONE) {
		s = store_fail(db, err, "requeueing mail failed");
		goto out;
	}
	if (count)
		*count = (unsigned long)sqlite3_changes(db->db);
	log_event(LOG_LEVEL_INFO, "outbox.retry",
		  LF_UINT("count", (unsigned long)sqlite3_changes(db->db)));
out:
	sqlite3_finalize(q);
	return s;
}

enum bb_status outbox_each(struct store *db, const char *state,
			   enum bb_status (*fn)(void *ctx, const struct outbox_row *r),
			   void *ctx, struct bb_error *err)
{
	sqlite3_stmt *q = NULL;
	enum bb_status s;
	int rc;

	s = store_prepare(db, &q, "SELECT id, message_id, state, recipients, last_error, bug_id,"
			  " comment_id, attempts, created, next_attempt, sent FROM outbox"
			  " WHERE ?1 IS NULL OR state = ?1 ORDER BY id", err);
	if (s)
		goto out;
	if (state)
		sqlite3_bind_text(q, 1, state, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct outbox_row r = {
			.id = sqlite3_column_int64(q, 0),
			.message_id = (const char *)sqlite3_column_text(q, 1),
			.state = (const char *)sqlite3_column_text(q, 2),
			.recipients = (const char *)sqlite3_column_text(q, 3),
			.last_error = (const char *)sqlite3_column_text(q, 4),
			.bug_id = sqlite3_column_int64(q, 5),
			.comment_id = sqlite3_column_int64(q, 6),
			.attempts = sqlite3_column_int(q, 7),
			.created = (time_t)sqlite3_column_int64(q, 8),
			.next_attempt = (time_t)sqlite3_column_int64(q, 9),
			.sent = (time_t)sqlite3_column_int64(q, 10),
		};

		s = fn(ctx, &r);
		if (s)
			goto out;
	}
	if (rc != SQLITE_DONE)
		s = store_fail(db, err, "listing the outbox failed");
out:
	sqlite3_finalize(q);
	return s;
}

enum bb_status outbox_counts(struct store *db, unsigned long *queued, unsigned long *sent,
			     unsigned long *failed, struct bb_error *err)
{
	sqlite3_stmt *q = NULL;
	enum bb_status s;
	int rc;

	if (queued)
		*queued = 0;
	if (sent)
		*sent = 0;
	if (failed)
		*failed = 0;
	s = store_prepare(db, &q, "SELECT state, count(*) FROM outbox GROUP BY state", err);
	if (s)
		goto out;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(q, 0);
		unsigned long n = (unsigned long)sqlite3_column_int64(q, 1);

		if (!state)
			continue;
		if (!strcmp(state, "queued") && queued)
			*queued = n;
		else if (!strcmp(state, "sent") && sent)
			*sent = n;
		else if (!strcmp(state, "failed") && failed)
			*failed = n;
	}
	if (rc != SQLITE_DONE)
		s = store_fail(db, err, "counting the outbox failed");
out:
	sqlite3_finalize(q);
	return s;
}
