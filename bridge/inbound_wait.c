/* SPDX-License-Identifier: GPL-2.0-or-later */
/* List mails whose sender's check waits for DNS.  Who sent a mail that
 * carries a command or a directive is decided before any transaction opens
 * (inbound.c), asking DNS for its DKIM keys within [inbound] dns_timeout;
 * the round's checks all together within DNS_ROUND_TIMEOUTS of it.  A
 * mail whose keys DNS did not give is not authenticated for now
 * (auth_verdict.temporary): it is kept as archived in in_wait (the
 * archive's cursor moves past it) and nothing else is done with it.  Each
 * later round reads it from there before the archive and handles it as if
 * just read: checked again, it goes on waiting, or is handled whole (its
 * comment, commands and directives), the transaction that records that
 * deleting its row (the "cursor" INBOUND_WAIT_CURSOR moving past it), so
 * a crash in between repeats nothing and loses nothing.  After DNS_WAIT_MAX
 * of waiting, the check's verdict is final: not authenticated, "DNS did
 * not answer". */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bridge/inbound.h"
#include "bridge/inbound_rows.h"
#include "bridge/inbound_sender.h"
#include "bridge/inbound_wait.h"
#include "core/log.h"
#include "core/store.h"

/* A round's sender checks wait for DNS this many [inbound] dns_timeout at
 * most, all together: the mails to check after that wait for the next
 * round without asking (their lookups would most likely go unanswered as
 * well, and the round has the rest of the archive to read). */
#define DNS_ROUND_TIMEOUTS 10

/* How long a mail waits for DNS to answer for its sender's DKIM keys:
 * then its check is final (not authenticated), and its commands are
 * refused. */
#define DNS_WAIT_MAX (24 * 3600)

/* Most waiting mails a round reads again (the rest: the next round). */
#define WAITING_PER_ROUND 256

long inbound_dns_timeout_ms(const struct bb_config *cfg)
{
	return cfg->inbound_dns_timeout > 0 && cfg->inbound_dns_timeout < 3600
		       ? (long)cfg->inbound_dns_timeout * 1000 : AUTH_DNS_TIMEOUT_MS;
}

/* The round's time for DNS in milliseconds: DNS_ROUND_TIMEOUTS times
 * timeout, or for the test suite $BUGBRIDGE_TEST_DNS_ROUND_MS. */
static long long round_budget_ms(long timeout)
{
	const char *env = getenv("BUGBRIDGE_TEST_DNS_ROUND_MS");
	char *end;
	long long ms;

	if (env && *env) {
		ms = strtoll(env, &end, 10);
		if (!*end && ms >= 0)
			return ms;
	}
	return (long long)timeout * DNS_ROUND_TIMEOUTS;
}

static long long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

enum bb_status inbound_round_sender_verdict(struct sync_context *sc,
					    const struct inbound_options *opt,
					    const struct inmail *m, const char *raw, size_t len,
					    struct inbound_stats *stats, struct auth_verdict *v,
					    struct bb_error *err)
{
	long timeout = inbound_dns_timeout_ms(sc->cfg);
	long long left = round_budget_ms(timeout) - stats->dns_ms;
	struct timespec t0;
	enum bb_status s;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* negative: no time at all, no lookup is made */
	s = inbound_sender_verdict_within(sc, opt, m, raw, len,
					  left <= 0 ? -1 : left < timeout ? (long)left : timeout, v,
					  err);
	stats->dns_ms += ms_since(&t0);
	if (!s && v->temporary && left <= 0)
		snprintf(v->reason, sizeof(v->reason),
			 "not checked: this round waited %lld s for DNS already", stats->dns_ms / 1000);
	return s;
}

int inbound_sender_may_wait(const struct sync_context *sc, const struct inbound_options *opt,
			    const struct inmail *m)
{
	const struct bb_config *cfg = sc->cfg;
	int mode = auth_mode_parse(cfg->inbound_authenticate ? cfg->inbound_authenticate
							      : "dkim-or-authserv");

	return (mode < 0 || mode == AUTH_MODE_DKIM || mode == AUTH_MODE_DKIM_OR_AUTHSERV) &&
	       !(cfg->inbound_dkim_key_file && *cfg->inbound_dkim_key_file) &&
	       !inbound_from_history(opt, m);
}

int inbound_mail_seen_or_waiting(struct sync_context *sc, const char *message_id)
{
	sqlite3_stmt *st = NULL;
	int seen;

	/* (the set holds in_wait's ids too: most list mail is in neither) */
	if (!store_keys_may_hold(sc->db, STORE_KEYS_MAIL, message_id))
		return 0;
	if (store_cached(sc->db, &st, "SELECT 1 FROM in_mail WHERE message_id = ?1"
				      " UNION ALL SELECT 1 FROM in_wait WHERE message_id = ?1", NULL))
		return inbound_mail_seen(sc, message_id);
	sqlite3_bind_text(st, 1, message_id, -1, SQLITE_STATIC);
	seen = sqlite3_step(st) == SQLITE_ROW;
	store_cached_done(sc->db, st);
	return seen;
}

enum bb_status inbound_wait_record(struct sync_context *sc, const char *message_id,
				   const char *raw, size_t len, time_t since,
				   const struct auth_verdict *v, struct inbound_stats *stats,
				   struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 now = (sqlite3_int64)time(NULL);
	enum bb_status s;

	stats->waiting++;
	log_event(LOG_LEVEL_WARN, "inbound.dns_wait", LF_STR("message_id", message_id),
		  LF_INT("since", since ? (long long)since : (long long)now),
		  LF_STR("reason", v->reason));
	if (sc->dry_run)
		return BB_OK;
	if ((s = store_prepare(sc->db, &st, "INSERT INTO in_wait (message_id, raw, since, checked,"
				      " checks, reason) VALUES (?1, ?2, ?3, ?3, 1, ?4)"
				      " ON CONFLICT (message_id) DO UPDATE SET checked = ?3,"
				      " checks = checks + 1, reason = ?4", err)))
		return s;
	sqlite3_bind_text(st, 1, message_id, -1, SQLITE_STATIC);
	sqlite3_bind_blob64(st, 2, raw, len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, now);
	sqlite3_bind_text(st, 4, v->reason, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a mail that waits for DNS");
	else
		store_keys_add(sc->db, STORE_KEYS_MAIL, message_id);
	sqlite3_finalize(st);
	return s;
}

enum bb_status inbound_wait_done(struct sync_context *sc, const char *message_id,
				 struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	enum bb_status s;

	if ((s = store_prepare(sc->db, &st, "DELETE FROM in_wait WHERE message_id = ?", err)))
		return s;
	sqlite3_bind_text(st, 1, message_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		s = store_fail(sc->db, err, "recording a mail that waited for DNS");
	sqlite3_finalize(st);
	return s;
}

void inbound_wait_over(struct auth_verdict *v, time_t since)
{
	char last[sizeof(v->reason)];

	if (!v->temporary || time(NULL) - since < DNS_WAIT_MAX)
		return;
	snprintf(last, sizeof(last), "%s", v->reason);
	v->temporary = 0;
	snprintf(v->reason, sizeof(v->reason), "DNS did not answer for %d hours (%.400s)",
		 DNS_WAIT_MAX / 3600, last);
}

enum bb_status inbound_check_waiting(struct sync_context *sc, const struct inbound_options *opt,
				     inbound_waited_fn *handle, struct inbound_stats *stats,
				     struct bb_error *err)
{
	sqlite3_stmt *st = NULL;
	char *ids[WAITING_PER_ROUND];
	size_t n = 0;
	enum bb_status s;

	if (sc->dry_run)
		return BB_OK;
	if ((s = store_prepare(sc->db, &st, "SELECT message_id FROM in_wait ORDER BY since"
				      " LIMIT ?", err)))
		return s;
	sqlite3_bind_int(st, 1, WAITING_PER_ROUND);
	while (n < WAITING_PER_ROUND && sqlite3_step(st) == SQLITE_ROW)
		if ((ids[n] = store_column_dup(st, 0)))
			n++;
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++) {
		char *raw = NULL;
		size_t len = 0;
		time_t since = 0;

		if (s)
			goto next;
		if ((s = store_prepare(sc->db, &st, "SELECT raw, since FROM in_wait"
					      " WHERE message_id = ?", err)))
			goto next;
		sqlite3_bind_text(st, 1, ids[i], -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			len = (size_t)sqlite3_column_bytes(st, 0);
			since = (time_t)sqlite3_column_int64(st, 1);
			if ((raw = malloc(len + 1))) {
				if (len)
					memcpy(raw, sqlite3_column_blob(st, 0), len);
				raw[len] = '\0';
			}
		}
		sqlite3_finalize(st);
		if (!since)
			goto next;   /* gone since */
		if (!raw) {
			s = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto next;
		}
		s = handle(sc, opt, raw, len, ids[i], since, stats, err);
next:
		free(raw);
		free(ids[i]);
	}
	return s;
}
