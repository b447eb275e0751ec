/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who sent a mail, as far as a DKIM signature or a trusted receiving
 * server can tell: the building blocks of the inbound bridge's command
 * authorization (README, "Who may act by mail"; bugbridge(1)).
 *
 * A sender is who a signature says it is.  Two kinds of evidence count,
 * and only for the From: domain:
 *
 *   - DKIM (RFC 6376), verified here on the archived bytes with OpenDKIM's
 *     library: a passing signature whose d= aligns with the From: domain
 *     (DMARC relaxed alignment, by the Public Suffix List) and that is fit
 *     for commands: its h= covers From, Message-ID, In-Reply-To or
 *     References, and each of In-Reply-To and References the mail has (so
 *     a signed mail cannot be replayed under another Message-ID or aimed at
 *     another thread), and it has no l= (a body length would leave the
 *     rest of the body to whoever adds it).
 *   - Authentication-Results (RFC 8601) written by a trusted receiving
 *     server: only headers carrying its authserv-id that sit between the
 *     topmost "Received: ... by <that server>" (and further ones by it,
 *     as a list's re-injection adds) and the next Received: written by
 *     another host, or the first field that is no trace, authentication or
 *     ARC field.  Only the methods the server reports on every mail count
 *     (authserv_methods: dmarc, as lore's server, by default): a forged
 *     result on top of a mail the server did not clean lands in that block
 *     too, so two results of a counted method there refuse the mail
 *     ("conflicting Authentication-Results"), as does a dmarc=fail.  A
 *     pass counts only if the mail carries a DKIM signature whose tags
 *     (read by OpenDKIM, not verified here) are fit for commands as above:
 *     a DMARC pass by SPF alone vouches for no header.
 *
 * Whatever the evidence, a mail with more than one From, Sender, To, Cc,
 * Subject, Date, Message-ID, In-Reply-To or References field (RFC 5322
 * allows one), or a header line that is no field, is never authenticated:
 * what a signature covers and what the bridge reads could be different
 * fields.
 *
 * Organizational domains come from the Public Suffix List (libpsl, the
 * newer of the system's list and its built-in one), private section
 * included, as DMARC (RFC 7489 section 3.2) asks.
 *
 * Nothing here prints; results carry a reason for the log and the status.
 * GMime must be initialised (mail_init()).  Thread-safe on distinct
 * objects.
 */
#ifndef BB_AUTH_H
#define BB_AUTH_H

#include <stddef.h>

#include "core/status.h"

/* Longest property value, method or authserv-id kept; a longer one makes
 * its resinfo (or the whole header) unusable rather than cut. */
#define AUTH_VALUE_MAX 255
/* Most resinfo entries read from one Authentication-Results header. */
#define AUTH_RESINFO_MAX 32

/* One "method=result props..." of an Authentication-Results header.  All
 * strings are NUL-terminated, lower-cased (methods, results, property
 * names and domains are case-insensitive), "" when absent. */
struct auth_resinfo {
	char method[33];                     /* "dkim", "dmarc", "spf", ... */
	char result[33];                     /* "pass", "fail", "none", ... */
	char header_d[AUTH_VALUE_MAX + 1];   /* dkim: header.d */
	char header_i[AUTH_VALUE_MAX + 1];   /* dkim: header.i (its domain part) */
	char header_from[AUTH_VALUE_MAX + 1];/* dmarc: header.from */
};

struct auth_results {
	char authserv_id[AUTH_VALUE_MAX + 1]; /* lower-cased */
	struct auth_resinfo res[AUTH_RESINFO_MAX];
	size_t nres;
};

/* Parses one Authentication-Results field value (unfolded or folded; CR
 * and LF count as blanks) per RFC 8601: authserv-id (token or quoted
 * string), optional version, then "none" or resinfos; comments (nested,
 * with quoted pairs) and quoted strings anywhere CFWS is allowed.  A
 * resinfo that does not follow the grammar, or holds a value longer than
 * AUTH_VALUE_MAX, is dropped (the rest still count); entries beyond
 * AUTH_RESINFO_MAX are dropped.  Returns 0 when an authserv-id was read,
 * -1 when the header is unusable (out is then empty).  Never allocates. */
int auth_results_parse(const char *value, size_t len, struct auth_results *out);

/* The organizational domain of a lower-case domain name by the Public
 * Suffix List (the domain itself if it is a public suffix, or without a
 * list): points into domain. */
const char *auth_org_domain(const char *domain);
/* DMARC relaxed alignment: both domains have the same organizational
 * domain (case-insensitive).  0 for NULL or empty names. */
int auth_aligned(const char *a, const char *b);

/* The length of the header section of raw/len, including the blank line
 * that ends it (or all of raw when there is no body); a leading mbox
 * "From " line is part of it. */
size_t auth_header_block(const char *raw, size_t len);

/* How a command's sender must be authenticated ([inbound] authenticate). */
enum auth_mode {
	AUTH_MODE_DKIM_OR_AUTHSERV = 0,  /* the default */
	AUTH_MODE_DKIM,
	AUTH_MODE_AUTHSERV,
	AUTH_MODE_NONE,                  /* private test setups only */
};
/* "dkim", "authserv", "dkim-or-authserv", "none" -> mode; -1 if unknown. */
int auth_mode_parse(const char *name);
const char *auth_mode_name(enum auth_mode mode);

struct auth_policy {
	enum auth_mode mode;
	const char *trusted_authserv_id; /* NULL: no server is trusted */
	/* A file of "<selector>._domainkey.<domain> <key record>" lines that
	 * serves DKIM keys instead of DNS (tests); NULL: DNS. */
	const char *dkim_key_file;
	/* The longest wait for all of a mail's DKIM key lookups in DNS
	 * together, in milliseconds ([inbound] dns_timeout); 0:
	 * AUTH_DNS_TIMEOUT_MS; negative: none (no lookup is made). */
	long dns_timeout_ms;
	/* The methods of the trusted server's results that count, comma- or
	 * blank-separated ([inbound] authserv_methods): "dmarc" (NULL: that),
	 * "dkim", or both.  List only what the server reports on every mail. */
	const char *authserv_methods;
};

/* The default of auth_policy.dns_timeout_ms. */
#define AUTH_DNS_TIMEOUT_MS 2000

/* The methods of auth_policy.authserv_methods that count, as a mask (0:
 * none of them can vouch for a sender; NULL or "" is "dmarc"). */
unsigned auth_methods_parse(const char *names);

/* The evidence found for one mail.  reason is a short sentence for the
 * log and the status ("DKIM signature of example.org verified", "no
 * valid DKIM signature aligned with the From: domain (body hash
 * mismatch)"...). */
struct auth_verdict {
	int authenticated;
	const char *method;        /* "dkim", "authserv", "none"; NULL if not */
	char from_domain[AUTH_VALUE_MAX + 1];
	char reason[512];
	/* Authentication-Results with the trusted id found outside the
	 * server's own block (written by someone else): counted for the log. */
	unsigned ignored_results;
	/* Not authenticated for now only: the key of a DKIM signature that
	 * could have counted was not fetched (DNS did not answer in time, or
	 * answered with an error), so a later check may authenticate the
	 * sender.  Never set with authenticated. */
	int temporary;
	/* The trusted server's own dmarc=pass for the From: domain, in its
	 * block, neither contradicted (dmarc=fail) nor doubled, with dmarc
	 * among the counted methods: the domain's DMARC check passed, by DKIM
	 * or by aligned SPF.  Set whether or not the sender is authenticated
	 * (a pass by SPF alone never is): it says that the From: address is
	 * the domain's to use, so a mail to it (a confirmation link) goes to
	 * whoever sent this one, not to a forged victim. */
	int dmarc_pass;
};

/* Checks raw/len (one message as archived, LF or CRLF line ends) against
 * the policy and fills v.  A mail that does not authenticate is no error:
 * v->authenticated is 0 and v->reason says why.  The only error is
 * BB_ERR_NOMEM (also when OpenDKIM cannot set up a verification); v then
 * says "not authenticated".  Logs auth.results_ignored when headers with
 * the trusted id were found outside the server's own block.
 *
 * DKIM keys come from DNS (unless dkim_key_file) through the system's
 * resolver (resolv.conf), one lookup a signature; all of them together
 * wait at most policy->dns_timeout_ms (each lookup at least a second: the
 * resolver counts in seconds), and a lookup that would start after that
 * is not made.  A key not fetched leaves v->temporary set. */
enum bb_status auth_check(const struct auth_policy *policy, const char *raw, size_t len,
			  struct auth_verdict *v, struct bb_error *err);

/* The parts of auth_check(), for tests and callers that want one kind of
 * evidence: each fills v as auth_check() would for that mode alone.
 * from_domain is the From: domain (lower-case). */
enum bb_status auth_check_dkim(const char *raw, size_t len, const char *from_domain,
			       const char *dkim_key_file, long dns_timeout_ms,
			       struct auth_verdict *v, struct bb_error *err);
enum bb_status auth_check_authserv(const char *raw, size_t len, const char *from_domain,
				   const char *authserv_id, const char *methods,
				   struct auth_verdict *v, struct bb_error *err);

#endif
