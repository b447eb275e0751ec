/* SPDX-License-Identifier: GPL-2.0-or-later */
/* web/http_guard.c: trusted proxies and X-Forwarded-For, the counting of
 * the per-client limit, the body rate (on socket pairs) and the budget
 * key, without a server. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/tap.h"
#include "web/http_guard.h"

static struct sockaddr_storage peer_storage;

/* A socket address for a numeric address, IPv4 or IPv6. */
static const struct sockaddr *peer(const char *text)
{
	memset(&peer_storage, 0, sizeof(peer_storage));
	if (strchr(text, ':')) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&peer_storage;

		in6->sin6_family = AF_INET6;
		inet_pton(AF_INET6, text, &in6->sin6_addr);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&peer_storage;

		in->sin_family = AF_INET;
		inet_pton(AF_INET, text, &in->sin_addr);
	}
	return (const struct sockaddr *)&peer_storage;
}

static struct http_guard *guard(const char *proxies, unsigned per_client)
{
	struct http_guard_options o = { .max_per_client = per_client, .trusted_proxies = proxies };
	struct http_guard *g = NULL;
	struct bb_error err = BB_ERROR_INIT;

	if (http_guard_new(&g, &o, &err) != BB_OK)
		printf("# %s\n", err.message);
	return g;
}

static const char *client(struct http_guard *g, const char *from, const char *xff)
{
	static char out[HTTP_GUARD_CLIENT_MAX];

	http_guard_client(g, peer(from), xff, out, sizeof(out));
	return out;
}

static void test_proxies(void)
{
	static const char *const bad[] = {
		"10.0.0.0/33", "::1/129", "1.2.3.4/", "1.2.3", "example.org", "1.2.3.4/x",
		"[::1", "1.2.3.4:80",
	};
	struct http_guard *g;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct http_guard_options o = { .trusted_proxies = bad[i] };
		struct bb_error err = BB_ERROR_INIT;

		g = NULL;
		ok(http_guard_new(&g, &o, &err) == BB_ERR_CONFIG && strstr(err.message, bad[i]),
		   "trusted_proxies \"%s\" is refused, named", bad[i]);
		http_guard_free(g);
	}
	g = guard(" 10.1.0.0/16 ,192.0.2.1, 2001:db8::/32, [::1] ", 0);
	ok(g != NULL, "a list of IPv4 and IPv6 addresses and networks is accepted");
	ok(http_guard_is_trusted(g, peer("10.1.200.3")), "an address inside 10.1.0.0/16 is trusted");
	ok(!http_guard_is_trusted(g, peer("10.2.0.1")), "one outside is not");
	ok(http_guard_is_trusted(g, peer("192.0.2.1")), "a single address is trusted");
	ok(!http_guard_is_trusted(g, peer("192.0.2.2")), "  its neighbour is not");
	ok(http_guard_is_trusted(g, peer("2001:db8:ffff::9")), "an IPv6 network is trusted");
	ok(http_guard_is_trusted(g, peer("::1")), "[::1] in brackets is understood");
	ok(http_guard_is_trusted(g, peer("::ffff:192.0.2.1")), "an IPv4-mapped peer matches its IPv4 entry");

	is_str(client(g, "203.0.113.5", "198.51.100.1"), "203.0.113.5",
	       "an untrusted peer's X-Forwarded-For is ignored");
	is_str(client(g, "192.0.2.1", NULL), "192.0.2.1", "a proxy without the header is the client");
	is_str(client(g, "192.0.2.1", "198.51.100.1"), "198.51.100.1", "a trusted proxy's is read");
	is_str(client(g, "192.0.2.1", "6.6.6.6, 198.51.100.1, 10.1.0.7"), "198.51.100.1",
	       "right to left, past trusted hops, ignoring what the client wrote further left");
	is_str(client(g, "192.0.2.1", "10.1.0.8, 10.1.0.7"), "10.1.0.8",
	       "all hops trusted: the leftmost");
	is_str(client(g, "192.0.2.1", "6.6.6.6, junk, 10.1.0.7"), "10.1.0.7",
	       "garbage stops the walk at the last address believed");
	is_str(client(g, "192.0.2.1", "6.6.6.6,,  "), "6.6.6.6", "empty entries are skipped");
	is_str(client(g, "192.0.2.1", "[2001:db8:1::5]:443"), "2001:db8:1::5", "IPv6 with a port");
	is_str(client(g, "192.0.2.1", "198.51.100.1:8080"), "198.51.100.1", "IPv4 with a port");
	is_str(client(g, "192.0.2.1", "::ffff:198.51.100.2"), "198.51.100.2", "IPv4-mapped is IPv4");
	http_guard_free(g);
}

static void test_counts(void)
{
	struct http_guard *g = guard("192.0.2.1", 2);
	struct http_guard_conn *c[4];
	int i;

	ok(http_guard_admit(g, peer("203.0.113.5"), sizeof(struct sockaddr_in)), "first connection in");
	c[0] = http_guard_opened(g, -1, peer("203.0.113.5"));
	ok(http_guard_admit(g, peer("203.0.113.5"), sizeof(struct sockaddr_in)), "second in");
	c[1] = http_guard_opened(g, -1, peer("203.0.113.5"));
	ok(!http_guard_admit(g, peer("203.0.113.5"), sizeof(struct sockaddr_in)),
	   "a third from the same address is refused");
	ok(http_guard_admit(g, peer("203.0.113.6"), sizeof(struct sockaddr_in)), "another address is not");
	c[2] = http_guard_opened(g, -1, peer("203.0.113.6"));
	http_guard_closed(g, c[0]);
	ok(http_guard_admit(g, peer("203.0.113.5"), sizeof(struct sockaddr_in)),
	   "once one closes, the address may connect again");
	c[3] = http_guard_opened(g, -1, peer("203.0.113.5"));
	for (i = 0; i < 5; i++) {
		if (!http_guard_admit(g, peer("192.0.2.1"), sizeof(struct sockaddr_in)))
			break;
		http_guard_closed(g, http_guard_opened(g, -1, peer("192.0.2.1")));
	}
	ok(i == 5, "a trusted proxy is not limited");
	ok(http_guard_admit(g, peer("2001:db8:1:2::1"), sizeof(struct sockaddr_in6)), "IPv6 in");
	http_guard_opened(g, -1, peer("2001:db8:1:2::1"));
	ok(http_guard_admit(g, peer("2001:db8:1:2::2"), sizeof(struct sockaddr_in6)), "same /64 in");
	http_guard_opened(g, -1, peer("2001:db8:1:2::2"));
	ok(!http_guard_admit(g, peer("2001:db8:1:2::3"), sizeof(struct sockaddr_in6)),
	   "a third from the same /64 is refused");
	ok(http_guard_admit(g, peer("2001:db8:1:3::1"), sizeof(struct sockaddr_in6)),
	   "another /64 is not");
	http_guard_closed(g, c[1]);
	http_guard_closed(g, c[2]);
	http_guard_closed(g, c[3]);
	http_guard_free(g); /* frees the connections still listed */
}

/* 1 if the guard shut down the other end of the pair: its peer reads EOF. */
static int was_shut(int fd, int wait_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&p, 1, wait_ms) == 1 && recv(fd, &c, 1, MSG_DONTWAIT) == 0;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void test_body_rate(void)
{
	/* the grace a test may shorten: 500 ms; the sweeper looks every second */
	struct http_guard_options o = { .body_grace_ms = 500 };
	enum { SLOW, FAST, ENDED, NO_FLOOR, HEADERS, N };
	static const char *const what[N] = {
		"10 bytes in over a second", "100 KB at once", "a body that ended",
		"no floor (min_rate 0)", "headers still coming (header_timeout 0)",
	};
	struct http_guard_conn *c[N];
	struct http_guard *g = NULL;
	struct bb_error err = BB_ERROR_INIT;
	struct timespec t0;
	int sv[N][2], i;

	ok(http_guard_new(&g, &o, &err) == BB_OK, "a guard with a body grace of 500 ms");
	for (i = 0; i < N; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]) != 0) {
			printf("Bail out! socketpair: %s\n", strerror(errno));
			exit(1);
		}
		ok(http_guard_admit(g, peer("203.0.113.5"), sizeof(struct sockaddr_in)), "%s: in", what[i]);
		c[i] = http_guard_opened(g, sv[i][0], peer("203.0.113.5"));
		if (i != HEADERS) {
			http_guard_request_begins(g, c[i]);
			http_guard_body_begins(g, c[i], i == NO_FLOOR ? 0 : 1000);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	http_guard_body_data(g, c[SLOW], 10);
	http_guard_body_data(g, c[FAST], 100000);
	http_guard_body_ends(g, c[ENDED]);
	ok(was_shut(sv[SLOW][1], 3000), "%s against a floor of 1000 a second: cut", what[SLOW]);
	ok(seconds_since(&t0) >= 0.5, "  not before the grace (%.2f s)", seconds_since(&t0));
	ok(http_guard_cut_slow_body(g, c[SLOW]), "  and the guard says why");
	for (i = FAST; i < N; i++) {
		ok(!was_shut(sv[i][1], i == FAST ? 1200 : 0), "%s: not cut", what[i]);
		ok(!http_guard_cut_slow_body(g, c[i]), "  nor said to be");
	}
	/* an answer is done: the next request's body starts a new count */
	http_guard_request_ends(g, c[FAST]);
	http_guard_request_begins(g, c[FAST]);
	http_guard_body_begins(g, c[FAST], 1000);
	ok(was_shut(sv[FAST][1], 3000), "the next body on that connection is judged on its own");
	for (i = 0; i < N; i++) {
		http_guard_closed(g, c[i]);
		close(sv[i][0]);
		close(sv[i][1]);
	}
	http_guard_free(g);
}

static void test_budget_key(void)
{
	static const struct {
		const char *client, *key;
	} cases[] = {
		{ "203.0.113.5", "203.0.113.5" },
		{ "2001:db8:1:2::1", "2001:db8:1:2::/64" },
		{ "2001:db8:1:2:ffff:eeee:dddd:cccc", "2001:db8:1:2::/64" },
		{ "2001:db8:1:3::1", "2001:db8:1:3::/64" },
		{ "::1", "::/64" },
		{ "fe80::1:2:3:4", "fe80::/64" },
		{ "-", "-" },
	};
	char key[HTTP_GUARD_CLIENT_MAX];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		http_guard_budget_key(cases[i].client, key, sizeof(key));
		is_str(key, cases[i].key, "the budget key of %s", cases[i].client);
	}
}

int main(void)
{
	test_proxies();
	test_counts();
	test_body_rate();
	test_budget_key();
	return done_testing();
}
