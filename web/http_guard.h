/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Connection bounds of bugbridge serve (web/blob_http.c uses them): who may
 * connect, for how long, and who the client really is behind a proxy.
 *
 *  - A total limit: past max_connections, a small reserve of connections is
 *    still accepted, flagged "overflow", so that their first request gets a
 *    quick 503 instead of waiting in the kernel's queue.
 *  - A per-peer limit (max_per_client), counted in the accept policy and
 *    released when the connection closes; trusted proxies are exempt; an
 *    IPv6 peer counts as its /64.
 *  - A header deadline: a connection must have sent a request's complete
 *    headers within header_timeout of opening (or of its previous answer).
 *    MHD's own timeout is idle time and restarts with every byte, so a
 *    sweeper thread closes late connections itself (shutdown() of their
 *    socket, which MHD then sees as the client going away).
 *  - A body rate: once a request's body has been arriving for body_grace_ms,
 *    the sweeper closes the connection when the body's average rate since
 *    its headers came in is under the request's min_body_rate.  MHD's idle
 *    timeout (body_timeout) cannot see a client that sends one byte every
 *    few seconds; a deadline for the whole body would cut honest large
 *    uploads.
 *  - Trusted proxies and X-Forwarded-For, and the key an address's budgets
 *    are counted under (an IPv6 address's /64).
 *
 * All functions are thread-safe; the MHD callbacks run in MHD's worker
 * threads.
 */
#ifndef BB_HTTP_GUARD_H
#define BB_HTTP_GUARD_H

#include <stddef.h>
#include <sys/socket.h>

#include "core/status.h"

/* Longest client string with its NUL (an IPv6 address). */
#define HTTP_GUARD_CLIENT_MAX 64

struct http_guard_options {
	unsigned max_connections;  /* served at once; 0: no limit of ours */
	unsigned max_per_client;   /* per peer address; 0: no limit */
	unsigned header_timeout;   /* seconds; 0: no deadline */
	const char *trusted_proxies; /* "ADDR[/BITS],..." or NULL */
	unsigned body_grace_ms;    /* a body's rate is judged after this; 0: 10 s */
};

/* How long a body may arrive before its rate is judged (milliseconds). */
#define HTTP_GUARD_BODY_GRACE_MS 10000

struct http_guard;
struct http_guard_conn;

/* A new guard with its sweeper thread; free it with http_guard_free() after
 * MHD has stopped.  BB_ERR_CONFIG for a malformed trusted_proxies (the
 * message names the entry), BB_ERR_NOMEM. */
enum bb_status http_guard_new(struct http_guard **out, const struct http_guard_options *opt,
			      struct bb_error *err);
void http_guard_free(struct http_guard *g);

/* How many connections MHD itself should allow: max_connections plus the
 * overflow reserve. */
unsigned http_guard_hard_limit(const struct http_guard *g);

/* MHD's accept policy: 1 to accept the peer, 0 to close at once.  An
 * accepted connection is counted until http_guard_closed(). */
int http_guard_admit(struct http_guard *g, const struct sockaddr *addr, socklen_t addr_len);
/* MHD_CONNECTION_NOTIFY_STARTED, in the thread that called
 * http_guard_admit() for it: the connection's record (NULL when out of
 * memory; it is then not watched), for MHD's socket context. */
struct http_guard_conn *http_guard_opened(struct http_guard *g, int fd,
					  const struct sockaddr *addr);
/* MHD_CONNECTION_NOTIFY_CLOSED: forgets conn (may be NULL) and frees it. */
void http_guard_closed(struct http_guard *g, struct http_guard_conn *conn);

/* A request's headers are complete: its deadline no longer applies.
 * Returns 1 if the connection is past max_connections and should be
 * answered 503. */
int http_guard_request_begins(struct http_guard *g, struct http_guard_conn *conn);
/* A request has ended: the next one must have its headers in within
 * header_timeout. */
void http_guard_request_ends(struct http_guard *g, struct http_guard_conn *conn);

/* The request's body begins to arrive (called when its headers are in):
 * from body_grace_ms on, the connection is closed when fewer than
 * min_rate bytes a second (0: no floor) have arrived on average since
 * then, counted by http_guard_body_data().  The closing is counted in the
 * rate-limited http.limits log line. */
void http_guard_body_begins(struct http_guard *g, struct http_guard_conn *conn,
			    unsigned long long min_rate);
/* n more bytes of the body arrived. */
void http_guard_body_data(struct http_guard *g, struct http_guard_conn *conn, size_t n);
/* The body is complete (or no more will be read: an answer is queued): its
 * rate is no longer judged.  Also implied by http_guard_request_ends(). */
void http_guard_body_ends(struct http_guard *g, struct http_guard_conn *conn);
/* 1 if the guard closed conn because its body came too slowly. */
int http_guard_cut_slow_body(struct http_guard *g, struct http_guard_conn *conn);

/* 1 if addr is one of the trusted proxies. */
int http_guard_is_trusted(const struct http_guard *g, const struct sockaddr *addr);

/* The client of a request from peer addr: the peer's numeric address, or,
 * when the peer is a trusted proxy and xff (the X-Forwarded-For values, in
 * order, joined with commas; may be NULL) names one, the rightmost address
 * in it that is not a trusted proxy.  An entry that is not an address ends
 * the walk: the last address believed is the client.  Writes at most
 * out_len bytes (HTTP_GUARD_CLIENT_MAX suffices), "-" if addr is unusable.
 * Returns 1 if the client came from X-Forwarded-For. */
int http_guard_client(const struct http_guard *g, const struct sockaddr *addr, const char *xff,
		      char *out, size_t out_len);

/* The key a client's budgets are counted under, from its numeric address
 * client (as http_guard_client() writes it): an IPv4 address as it is, an
 * IPv6 address as its /64 ("2001:db8:1:2::/64"), since one IPv6 host
 * commonly has a whole /64 to pick addresses from.  Anything else is
 * copied as it is.  Writes at most out_len bytes (HTTP_GUARD_CLIENT_MAX
 * suffices). */
void http_guard_budget_key(const char *client, char *out, size_t out_len);

#endif
