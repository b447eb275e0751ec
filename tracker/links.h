/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Links to mail and to Bugzilla bugs, as they appear in #regzbot
 * directives, commit trailers (Link:, Closes:) and mail text.
 *
 * One mail has many URLs (kernel-conventions.md, "Links to mail"): lore's
 * https://lore.kernel.org/r/<msgid>, /<list>/<msgid>/, /all/<msgid>/, each
 * with /T/, /t/, /raw, /t.mbox.gz ... after the Message-ID and a #fragment,
 * http:// as well as https://, lkml.kernel.org/r/<msgid>, b4's
 * patch.msgid.link/<msgid> (and msgid.link/<msgid>), the Message-ID
 * percent-encoded (%40 for '@', %2F for '/', ...).  Matching a link to a
 * tracked mail compares the bare Message-ID these functions return, never
 * the URL.
 *
 * Nothing here trusts its input: any NUL-terminated string may be passed;
 * the functions hold no state, are safe from several threads and take time
 * linear in the length of the input.
 */
#ifndef BB_TRACKER_LINKS_H
#define BB_TRACKER_LINKS_H

#include <stddef.h>

/* Longest URL looked at, in bytes; longer ones are no link (NULL / 0). */
#define REG_LINK_URL_MAX 4096
/* Longest Message-ID returned (as inmail.h: RFC 5322's line limit). */
#define REG_LINK_MESSAGE_ID_MAX 998

/* The bare Message-ID (no <>, percent-decoding undone) a mail link points
 * to, or NULL if url is not a link to one mail on lore.kernel.org,
 * lkml.kernel.org, patch.msgid.link or msgid.link.  Host and scheme are
 * read without regard to case; a '<' before and a '>' after the URL are
 * dropped.  A Message-ID must be printable ASCII without blank, '<' or '>',
 * with an '@' that has text on both sides (a link to a list or a search is
 * no link to a mail).  Returns a malloc'd string (free() it); NULL also when out of
 * memory. */
char *reg_link_message_id(const char *url);

/* The bug number of a Bugzilla bug URL, <base>/show_bug.cgi?id=N (other
 * query parameters and a #fragment allowed, e.g. "#c9") or, when
 * bugzilla_base is given, the short link <base>/N that Bugzilla's own
 * rewrite rule serves (no query; a #fragment allowed), or 0 if url is no
 * such URL.  bugzilla_base is the Bugzilla's base URL
 * ("https://bugzilla.kernel.org", a trailing '/' allowed); http and https
 * count as the same, the host is compared without regard to case.  NULL:
 * any http(s) host.  A bug alias (id=some-name) gives 0: only the Bugzilla
 * can resolve it. */
long long reg_link_bugzilla_id(const char *url, const char *bugzilla_base);

/* Whether two URLs name the same report on another tracker (a Bugzilla
 * that is not the configured one, a GitHub or GitLab issue, any page), as a
 * patch's Link:/Closes: trailer and a regression's report or duplicate
 * report write it: http and https count as the same, the host (and port)
 * is compared without regard to case, a #fragment ("#c9") and a trailing
 * '/' of the path do not count, the query must be the same, except that
 * two Bugzilla bug URLs (show_bug.cgi?id=N) are the same when their host,
 * port, path and bug number are, whatever other parameters they carry.
 * 0 when either is no http(s) URL. */
int reg_link_same_report(const char *a, const char *b);

/* The link to one mail that resolves whatever list carried it: the scheme
 * and host (and port) of inbox_url (a public-inbox inbox, such as
 * "https://lore.kernel.org/linux-wireless"; NULL: lore.kernel.org), then
 * "/r/<Message-ID>/", the Message-ID percent-encoded.  malloc'd; NULL when
 * inbox_url is no URL with a host, or out of memory. */
char *reg_link_mail(const char *inbox_url, const char *message_id);

/* The next line of the text from *pos to end (*pos moves past it), without
 * its line end (a CR before the LF is dropped), as inmail_lines_next()
 * splits it but without its kind: 1, or 0 at the end. */
int reg_next_line(const char **pos, const char *end, const char **line, size_t *len);

/* The host of the Bugzilla at base as reg_link_bugzilla_id() compares a
 * URL's with it (malloc'd, as written); NULL when base is NULL or has no
 * host, or out of memory. */
char *reg_link_host(const char *base);
/* 0 when text (len bytes) surely cites no bug of the Bugzilla whose host
 * (reg_link_host()) is bugzilla_host by reg_link_bugzilla_id(): it does
 * not hold that host, in any case; else 1 (NULL, no host: it may). */
int reg_text_may_cite_bugzilla(const char *text, size_t len, const char *bugzilla_host);

/* The URL a Link:/Closes: trailer names, from its value (the n bytes after
 * the colon): stripped, up to its first blank (what follows it, "# v6.7"
 * or "[1]", is no part), into out (size bytes): 1; 0 when n does not fit. */
int reg_trailer_url(const char *v, size_t n, char *out, size_t size);

/* The Link:/Closes: trailers of a patch read from its raw text (len bytes
 * from the body's start): for each whose line the decode leaves as it is,
 * the URL patch_posted() (tracker.c) reads from it -- the text after the
 * colon, stripped, up to a blank -- is passed to fn, which returns nonzero
 * to stop.  1 when fn did, or when the decode may give other trailers
 * (a lone CR, quoted-printable "=0A" or "=0D" anywhere, a byte it drops or
 * a quoted-printable "=" in a trailer line or where its word may be); 0
 * when no trailer does anything. */
int reg_raw_trailers(const char *text, size_t len, int (*fn)(const char *value, void *ctx),
		     void *ctx);

#endif
