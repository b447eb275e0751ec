/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Connection bounds of bugbridge serve (http_guard.h).
 *
 * Choices the header leaves open, made here:
 *
 *  - MHD calls the accept policy and then, in the same thread and before it
 *    accepts anything else, the "connection started" notification.  The
 *    policy counts the connection at once (so that parallel accepts cannot
 *    all pass the limit) and leaves what it counted in a thread-local
 *    "pending" slot that the notification takes over.  Should MHD give up
 *    on the connection in between (out of memory), the next accept in that
 *    thread finds the slot still full and gives the count back.
 *  - IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) count, match and are
 *    named as the IPv4 address they carry.  For the per-peer limit an IPv6
 *    peer is its /64, which one host commonly has to itself.
 *  - The sweeper looks once a second, so a late connection is closed
 *    within a second of its deadline, and a slow body within a second of
 *    its rate falling under the floor.
 *  - A body's rate is its bytes over the time since its headers came in,
 *    judged from body_grace_ms on: a client that sends one byte every few
 *    seconds is cut then, while an upload that started well may slow down
 *    for a while (its average falls slowly; body_timeout is its idle
 *    limit).  What a body's rate is, MHD decides too: it reads as fast as
 *    the request's handler takes the data.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "web/http_guard.h"

#define HTTP_GUARD_SWEEP_MS 1000
#define HTTP_GUARD_LOG_EVERY_MS 10000

struct guard_addr {
	int family;                 /* AF_INET or AF_INET6 (never v4-mapped) */
	unsigned char bytes[16];    /* 4 used for AF_INET */
};

struct guard_net {
	struct guard_addr addr;     /* masked to bits */
	unsigned bits;
};

struct guard_peer {
	struct guard_addr addr;
	unsigned count;
};

struct http_guard_conn {
	struct http_guard_conn *prev, *next;
	int fd;
	struct guard_addr addr;
	int per_peer;               /* counted in the peer table */
	int overflow;               /* past max_connections: answer 503 */
	int in_request;             /* headers complete, answer not yet done */
	int cut;                    /* shut down by the sweeper */
	int cut_body;               /* ... because its body came too slowly */
	uint64_t deadline_ms;       /* headers due by then (monotonic) */
	int receiving;              /* a body is arriving: its rate is judged */
	uint64_t body_start_ms;     /* when its headers came in (monotonic) */
	uint64_t body_bytes;        /* of the body so far */
	unsigned long long min_rate; /* bytes a second; 0: no floor */
};

struct http_guard {
	unsigned max_connections, max_per_client, header_timeout, reserve;
	unsigned body_grace_ms;
	struct guard_net *proxies;
	size_t nproxies;

	pthread_mutex_t lock;       /* guards what follows */
	pthread_cond_t wake;
	int stopping;
	pthread_t sweeper;
	int sweeper_running;
	unsigned total;             /* connections counted, pending included */
	struct guard_peer *peers;
	size_t npeers, peers_cap;
	struct http_guard_conn *conns;
	/* since the last log line */
	unsigned long refused_peer, refused_total, cut_late, cut_slow_body;
	uint64_t logged_ms;
};

/* What http_guard_admit() counted for the connection MHD is about to start
 * in this thread (see the top of the file). */
static _Thread_local struct {
	struct http_guard *guard;   /* NULL: nothing pending */
	struct guard_addr addr;
	int per_peer, overflow;
} guard_pending;

static uint64_t guard_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ------------------------------------------------------------- addresses */

/* An IPv6 address, or the IPv4 address it maps. */
static void guard_addr_from_in6(struct guard_addr *out, const unsigned char bytes[16])
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memset(out, 0, sizeof(*out));
	if (!memcmp(bytes, mapped, sizeof(mapped))) {
		out->family = AF_INET;
		memcpy(out->bytes, bytes + 12, 4);
	} else {
		out->family = AF_INET6;
		memcpy(out->bytes, bytes, 16);
	}
}

/* The address of a socket address; 0 if it is neither IPv4 nor IPv6. */
static int guard_addr_from_sockaddr(struct guard_addr *out, const struct sockaddr *sa)
{
	memset(out, 0, sizeof(*out));
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET) {
		struct sockaddr_in in;

		memcpy(&in, sa, sizeof(in));
		out->family = AF_INET;
		memcpy(out->bytes, &in.sin_addr, 4);
		return 1;
	}
	if (sa->sa_family == AF_INET6) {
		struct sockaddr_in6 in6;

		memcpy(&in6, sa, sizeof(in6));
		guard_addr_from_in6(out, in6.sin6_addr.s6_addr);
		return 1;
	}
	return 0;
}

/* Parses a numeric address text[0..len) (IPv4, IPv6, or IPv6 in brackets;
 * with allow_port also "a.b.c.d:port" and "[v6]:port").  0 if it is none. */
static int guard_addr_parse(struct guard_addr *out, const char *text, size_t len, int allow_port)
{
	char tmp[INET6_ADDRSTRLEN + 8];
	const char *colon;
	struct in6_addr a6;

	memset(out, 0, sizeof(*out));
	if (len > 0 && text[0] == '[') {
		const char *close = memchr(text, ']', len);

		if (!close || (close + 1 != text + len &&
			       !(allow_port && close[1] == ':' && close + 2 < text + len)))
			return 0;
		text++;
		len = (size_t)(close - text);
		if (len >= sizeof(tmp))
			return 0;
		memcpy(tmp, text, len);
		tmp[len] = '\0';
		if (inet_pton(AF_INET6, tmp, &a6) != 1)
			return 0;
		goto v6;
	}
	if (len == 0 || len >= sizeof(tmp))
		return 0;
	memcpy(tmp, text, len);
	tmp[len] = '\0';
	colon = strchr(tmp, ':');
	if (allow_port && colon && !strchr(colon + 1, ':') && strchr(tmp, '.'))
		tmp[colon - tmp] = '\0'; /* a.b.c.d:port */
	if (inet_pton(AF_INET, tmp, out->bytes) == 1) {
		out->family = AF_INET;
		return 1;
	}
	if (inet_pton(AF_INET6, tmp, &a6) != 1)
		return 0;
v6:
	guard_addr_from_in6(out, a6.s6_addr);
	return 1;
}

static int guard_addr_equal(const struct guard_addr *a, const struct guard_addr *b)
{
	return a->family == b->family &&
	       !memcmp(a->bytes, b->bytes, a->family == AF_INET ? 4 : 16);
}

static void guard_addr_mask(struct guard_addr *a, unsigned bits)
{
	unsigned total = a->family == AF_INET ? 32 : 128, i;

	for (i = bits; i < total; i++)
		a->bytes[i / 8] &= (unsigned char)~(0x80u >> (i % 8));
}

static int guard_addr_in(const struct guard_addr *a, const struct guard_net *net)
{
	struct guard_addr masked = *a;

	if (a->family != net->addr.family)
		return 0;
	guard_addr_mask(&masked, net->bits);
	return guard_addr_equal(&masked, &net->addr);
}

static int guard_trusted(const struct http_guard *g, const struct guard_addr *a)
{
	size_t i;

	for (i = 0; i < g->nproxies; i++)
		if (guard_addr_in(a, &g->proxies[i]))
			return 1;
	return 0;
}

static void guard_addr_format(const struct guard_addr *a, char *out, size_t out_len)
{
	if (!a->family || !inet_ntop(a->family, a->bytes, out, (socklen_t)out_len))
		snprintf(out, out_len, "-");
}

/* Parses "ADDR[/BITS], ..." into g->proxies. */
static enum bb_status guard_parse_proxies(struct http_guard *g, const char *list,
					  struct bb_error *err)
{
	const char *p = list, *end, *slash;
	enum bb_status st = BB_OK;

	while (p && *p) {
		struct guard_net net;
		size_t len;
		void *grown;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (!*p)
			break;
		end = p + strcspn(p, ",");
		len = (size_t)(end - p);
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		slash = memchr(p, '/', len);
		memset(&net, 0, sizeof(net));
		if (!guard_addr_parse(&net.addr, p, slash ? (size_t)(slash - p) : len, 0))
			goto bad;
		net.bits = net.addr.family == AF_INET ? 32 : 128;
		if (slash) {
			const char *d = slash + 1;
			unsigned bits = 0;

			if (d == p + len)
				goto bad;
			for (; d < p + len; d++) {
				if (*d < '0' || *d > '9' || bits > 128)
					goto bad;
				bits = bits * 10 + (unsigned)(*d - '0');
			}
			if (bits > net.bits)
				goto bad;
			net.bits = bits;
		}
		guard_addr_mask(&net.addr, net.bits);
		grown = realloc(g->proxies, (g->nproxies + 1) * sizeof(*g->proxies));
		if (!grown) {
			st = bb_error_set(err, BB_ERR_NOMEM, "out of memory");
			goto out;
		}
		g->proxies = grown;
		g->proxies[g->nproxies++] = net;
		p = end;
		continue;
bad:
		st = bb_error_set(err, BB_ERR_CONFIG,
				  "[server] trusted_proxies: \"%.*s\" is not an address or "
				  "address/bits", (int)len, p);
		goto out;
	}
out:
	return st;
}

/* ---------------------------------------------------------------- counts */

static struct guard_peer *guard_peer_find(struct http_guard *g, const struct guard_addr *a)
{
	size_t i;

	for (i = 0; i < g->npeers; i++)
		if (guard_addr_equal(&g->peers[i].addr, a))
			return &g->peers[i];
	return NULL;
}

/* Gives back one connection of a (lock held). */
static void guard_release(struct http_guard *g, const struct guard_addr *a, int per_peer)
{
	struct guard_peer *peer;

	if (g->total > 0)
		g->total--;
	if (!per_peer || !(peer = guard_peer_find(g, a)))
		return;
	if (--peer->count == 0)
		*peer = g->peers[--g->npeers];
}

/* Logs what was refused or cut since the last line, at most every 10 s
 * (lock held): an attack must not flood the log. */
static void guard_log_counts(struct http_guard *g, uint64_t now)
{
	if (now - g->logged_ms < HTTP_GUARD_LOG_EVERY_MS ||
	    !(g->refused_peer || g->refused_total || g->cut_late || g->cut_slow_body))
		return;
	log_event(LOG_LEVEL_WARN, "http.limits", LF_UINT("refused_per_client", g->refused_peer),
		  LF_UINT("refused_overload", g->refused_total),
		  LF_UINT("cut_slow_headers", g->cut_late),
		  LF_UINT("cut_slow_bodies", g->cut_slow_body), LF_UINT("connections", g->total));
	g->refused_peer = g->refused_total = g->cut_late = g->cut_slow_body = 0;
	g->logged_ms = now;
}

int http_guard_admit(struct http_guard *g, const struct sockaddr *addr, socklen_t addr_len)
{
	struct guard_addr a;
	struct guard_peer *peer = NULL;
	int per_peer = 0, ok = 0;

	(void)addr_len;
	pthread_mutex_lock(&g->lock);
	if (guard_pending.guard == g) {
		/* MHD dropped the connection counted last time (see the top) */
		guard_release(g, &guard_pending.addr, guard_pending.per_peer);
		guard_pending.guard = NULL;
	}
	if (!guard_addr_from_sockaddr(&a, addr))
		goto out; /* neither IPv4 nor IPv6 */
	if (g->max_connections && g->total >= g->max_connections + g->reserve) {
		g->refused_total++;
		goto out;
	}
	if (g->max_per_client && !guard_trusted(g, &a)) {
		/* one IPv6 host commonly has a whole /64 to pick from */
		if (a.family == AF_INET6)
			guard_addr_mask(&a, 64);
		peer = guard_peer_find(g, &a);
		if (peer && peer->count >= g->max_per_client) {
			g->refused_peer++;
			goto out;
		}
		if (!peer) {
			if (g->npeers == g->peers_cap) {
				size_t cap = g->peers_cap ? g->peers_cap * 2 : 64;
				void *grown = realloc(g->peers, cap * sizeof(*g->peers));

				if (!grown)
					goto out;
				g->peers = grown;
				g->peers_cap = cap;
			}
			peer = &g->peers[g->npeers++];
			peer->addr = a;
			peer->count = 0;
		}
		peer->count++;
		per_peer = 1;
	}
	g->total++;
	guard_pending.guard = g;
	guard_pending.addr = a;
	guard_pending.per_peer = per_peer;
	guard_pending.overflow = g->max_connections && g->total > g->max_connections;
	ok = 1;
out:
	guard_log_counts(g, guard_now_ms());
	pthread_mutex_unlock(&g->lock);
	return ok;
}

struct http_guard_conn *http_guard_opened(struct http_guard *g, int fd,
					  const struct sockaddr *addr)
{
	struct http_guard_conn *conn = calloc(1, sizeof(*conn));

	pthread_mutex_lock(&g->lock);
	if (guard_pending.guard != g) {
		/* not through the accept policy: count it now, unlimited */
		struct guard_addr a;

		guard_addr_from_sockaddr(&a, addr);
		guard_pending.guard = g;
		guard_pending.addr = a;
		guard_pending.per_peer = 0;
		guard_pending.overflow = 0;
		g->total++;
	}
	if (!conn) {
		/* unwatched, but its count must go */
		guard_release(g, &guard_pending.addr, guard_pending.per_peer);
		guard_pending.guard = NULL;
		goto out;
	}
	conn->fd = fd;
	conn->addr = guard_pending.addr;
	conn->per_peer = guard_pending.per_peer;
	conn->overflow = guard_pending.overflow;
	conn->deadline_ms = guard_now_ms() + (uint64_t)g->header_timeout * 1000u;
	guard_pending.guard = NULL;
	conn->next = g->conns;
	if (g->conns)
		g->conns->prev = conn;
	g->conns = conn;
out:
	pthread_mutex_unlock(&g->lock);
	return conn;
}

void http_guard_closed(struct http_guard *g, struct http_guard_conn *conn)
{
	if (!conn)
		return;
	pthread_mutex_lock(&g->lock);
	if (conn->prev)
		conn->prev->next = conn->next;
	else
		g->conns = conn->next;
	if (conn->next)
		conn->next->prev = conn->prev;
	guard_release(g, &conn->addr, conn->per_peer);
	pthread_mutex_unlock(&g->lock);
	free(conn);
}

int http_guard_request_begins(struct http_guard *g, struct http_guard_conn *conn)
{
	int overflow = 0;

	if (!conn)
		return 0;
	pthread_mutex_lock(&g->lock);
	conn->in_request = 1;
	overflow = conn->overflow;
	pthread_mutex_unlock(&g->lock);
	return overflow;
}

void http_guard_request_ends(struct http_guard *g, struct http_guard_conn *conn)
{
	if (!conn)
		return;
	pthread_mutex_lock(&g->lock);
	conn->in_request = 0;
	conn->receiving = 0;
	conn->deadline_ms = guard_now_ms() + (uint64_t)g->header_timeout * 1000u;
	pthread_mutex_unlock(&g->lock);
}

void http_guard_body_begins(struct http_guard *g, struct http_guard_conn *conn,
			    unsigned long long min_rate)
{
	if (!conn)
		return;
	pthread_mutex_lock(&g->lock);
	conn->receiving = 1;
	conn->body_start_ms = guard_now_ms();
	conn->body_bytes = 0;
	conn->min_rate = min_rate;
	pthread_mutex_unlock(&g->lock);
}

void http_guard_body_data(struct http_guard *g, struct http_guard_conn *conn, size_t n)
{
	if (!conn)
		return;
	pthread_mutex_lock(&g->lock);
	conn->body_bytes += n;
	pthread_mutex_unlock(&g->lock);
}

void http_guard_body_ends(struct http_guard *g, struct http_guard_conn *conn)
{
	if (!conn)
		return;
	pthread_mutex_lock(&g->lock);
	conn->receiving = 0;
	pthread_mutex_unlock(&g->lock);
}

int http_guard_cut_slow_body(struct http_guard *g, struct http_guard_conn *conn)
{
	int cut;

	if (!conn)
		return 0;
	pthread_mutex_lock(&g->lock);
	cut = conn->cut_body;
	pthread_mutex_unlock(&g->lock);
	return cut;
}

/* Whether conn's body has been arriving for the grace time and, on
 * average, under its floor (lock held). */
static int guard_body_too_slow(const struct http_guard *g, const struct http_guard_conn *conn,
			       uint64_t now)
{
	uint64_t elapsed;

	if (!conn->receiving || !conn->min_rate || now < conn->body_start_ms)
		return 0;
	elapsed = now - conn->body_start_ms;
	if (elapsed < g->body_grace_ms)
		return 0;
	/* bytes / (elapsed / 1000) < min_rate, without a division */
	return conn->body_bytes < UINT64_MAX / 1000 &&
	       conn->body_bytes * 1000 < (uint64_t)conn->min_rate * elapsed;
}

/* The sweeper: closes connections whose headers are late or whose body
 * comes too slowly.  The record of a
 * connection leaves the list (in http_guard_closed(), under the lock)
 * before MHD closes its socket, so the descriptor shut down here is always
 * the connection's own. */
static void *guard_sweep(void *arg)
{
	struct http_guard *g = arg;
	struct http_guard_conn *conn;
	struct timespec ts;
	uint64_t now;

	pthread_mutex_lock(&g->lock);
	while (!g->stopping) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += HTTP_GUARD_SWEEP_MS / 1000;
		pthread_cond_timedwait(&g->wake, &g->lock, &ts);
		if (g->stopping)
			break;
		now = guard_now_ms();
		for (conn = g->conns; conn; conn = conn->next) {
			if (conn->cut)
				continue;
			if (conn->in_request) {
				if (!guard_body_too_slow(g, conn, now))
					continue;
				conn->cut_body = 1;
				g->cut_slow_body++;
			} else if (!g->header_timeout || now < conn->deadline_ms) {
				continue;
			} else {
				g->cut_late++;
			}
			shutdown(conn->fd, SHUT_RDWR);
			conn->cut = 1;
		}
		guard_log_counts(g, now);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

/* ------------------------------------------------------------- lifecycle */

enum bb_status http_guard_new(struct http_guard **out, const struct http_guard_options *opt,
			      struct bb_error *err)
{
	struct http_guard *g;
	pthread_condattr_t attr;
	enum bb_status st = BB_OK;
	int rc;

	*out = NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	g->max_connections = opt->max_connections;
	g->max_per_client = opt->max_per_client;
	g->header_timeout = opt->header_timeout;
	g->body_grace_ms = opt->body_grace_ms ? opt->body_grace_ms : HTTP_GUARD_BODY_GRACE_MS;
	/* room to answer 503 to a few more rather than leave them waiting */
	g->reserve = g->max_connections / 8 < 4 ? 4 : g->max_connections / 8;
	pthread_mutex_init(&g->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&g->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (opt->trusted_proxies && (st = guard_parse_proxies(g, opt->trusted_proxies, err)))
		goto out;
	/* always: a request's min_body_rate may come with a reload */
	if ((rc = pthread_create(&g->sweeper, NULL, guard_sweep, g)) != 0) {
		st = bb_error_errno(err, rc, "cannot start the connection sweeper");
		goto out;
	}
	g->sweeper_running = 1;
	*out = g;
	g = NULL;
out:
	http_guard_free(g);
	return st;
}

void http_guard_free(struct http_guard *g)
{
	struct http_guard_conn *conn, *next;

	if (!g)
		return;
	if (g->sweeper_running) {
		pthread_mutex_lock(&g->lock);
		g->stopping = 1;
		pthread_cond_broadcast(&g->wake);
		pthread_mutex_unlock(&g->lock);
		pthread_join(g->sweeper, NULL);
	}
	for (conn = g->conns; conn; conn = next) {
		next = conn->next;
		free(conn);
	}
	if (guard_pending.guard == g)
		guard_pending.guard = NULL;
	free(g->peers);
	free(g->proxies);
	pthread_cond_destroy(&g->wake);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

unsigned http_guard_hard_limit(const struct http_guard *g)
{
	return g->max_connections ? g->max_connections + g->reserve : 0;
}

int http_guard_is_trusted(const struct http_guard *g, const struct sockaddr *addr)
{
	struct guard_addr a;

	return guard_addr_from_sockaddr(&a, addr) && guard_trusted(g, &a);
}

int http_guard_client(const struct http_guard *g, const struct sockaddr *addr, const char *xff,
		      char *out, size_t out_len)
{
	struct guard_addr client, hop;
	const char *p;
	int forwarded = 0;

	if (!guard_addr_from_sockaddr(&client, addr)) {
		snprintf(out, out_len, "-");
		return 0;
	}
	if (!xff || !guard_trusted(g, &client))
		goto out;
	/* right to left: every trusted hop passes the question on */
	p = xff + strlen(xff);
	while (p > xff && guard_trusted(g, &client)) {
		const char *start = p, *end = p;

		while (start > xff && start[-1] != ',')
			start--;
		p = start > xff ? start - 1 : xff; /* past the comma */
		while (start < end && (*start == ' ' || *start == '\t'))
			start++;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (start == end)
			continue; /* an empty entry */
		if (!guard_addr_parse(&hop, start, (size_t)(end - start), 1))
			break;    /* garbage: believe nothing further left */
		client = hop;
		forwarded = 1;
	}
out:
	guard_addr_format(&client, out, out_len);
	return forwarded;
}

void http_guard_budget_key(const char *client, char *out, size_t out_len)
{
	struct guard_addr a;
	char text[INET6_ADDRSTRLEN];

	if (!guard_addr_parse(&a, client, strlen(client), 0) || a.family != AF_INET6) {
		snprintf(out, out_len, "%s", client);
		return;
	}
	guard_addr_mask(&a, 64);
	guard_addr_format(&a, text, sizeof(text));
	snprintf(out, out_len, "%s/64", text);
}
