/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sender authentication for mail commands: see auth.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* OpenDKIM's dkim.h uses u_char */
#endif
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <netinet/in.h>
#include <arpa/nameser.h>
#include <resolv.h>

#include <gmime/gmime.h>
#include <dkim.h>
#include <libpsl.h>

#include "core/log.h"
#include "mail/auth.h"

/* --- small helpers ------------------------------------------------------ */

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static void lower_string(char *s)
{
	for (; *s; s++)
		*s = lower(*s);
}

/* --- Authentication-Results (RFC 8601) ----------------------------------- */

struct lexer {
	const char *p, *end;
};

/* Skips blanks and comments (nested, with quoted pairs); -1 on a comment
 * that never ends. */
static int skip_cfws(struct lexer *lx)
{
	while (lx->p < lx->end) {
		size_t depth = 0;

		if (is_blank(*lx->p)) {
			lx->p++;
			continue;
		}
		if (*lx->p != '(')
			return 0;
		do {
			char c = *lx->p++;

			if (c == '\\' && lx->p < lx->end)
				lx->p++;
			else if (c == '(')
				depth++;
			else if (c == ')')
				depth--;
		} while (depth && lx->p < lx->end);
		if (depth)
			return -1;
	}
	return 0;
}

/* Appends c to out (size bytes, NUL kept); -1 when full. */
static int put(char *out, size_t size, size_t *n, char c)
{
	if (*n + 1 >= size)
		return -1;
	out[(*n)++] = c;
	out[*n] = '\0';
	return 0;
}

/* A quoted-string at lx->p (which is '"'), unescaped, appended to out. */
static int read_quoted(struct lexer *lx, char *out, size_t size, size_t *n)
{
	lx->p++;
	while (lx->p < lx->end && *lx->p != '"') {
		char c = *lx->p++;

		if (c == '\\') {
			if (lx->p >= lx->end)
				return -1;
			c = *lx->p++;
		}
		if (c == '\0' || put(out, size, n, c))
			return -1;
	}
	if (lx->p >= lx->end)
		return -1;
	lx->p++;
	return 0;
}

/* RFC 2045 token characters. */
static int is_token_char(char c)
{
	return c > 0x20 && c < 0x7f && !strchr("()<>@,;:\\\"/[]?=", c);
}

/* A value: token or quoted-string (RFC 2045).  Empty is an error. */
static int read_value(struct lexer *lx, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	if (lx->p < lx->end && *lx->p == '"')
		return read_quoted(lx, out, size, &n) || !n ? -1 : 0;
	while (lx->p < lx->end && is_token_char(*lx->p))
		if (put(out, size, &n, *lx->p++))
			return -1;
	return n ? 0 : -1;
}

/* A Keyword (ldh-str), lower-cased.  Empty is an error. */
static int read_keyword(struct lexer *lx, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	while (lx->p < lx->end && (g_ascii_isalnum(*lx->p) || *lx->p == '-' || *lx->p == '_'))
		if (put(out, size, &n, lower(*lx->p++)))
			return -1;
	return n ? 0 : -1;
}

/* A pvalue: a value, or [[local-part] "@"] domain-name, where the
 * local-part may be a quoted string.  Empty is an error. */
static int read_pvalue(struct lexer *lx, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	while (lx->p < lx->end) {
		char c = *lx->p;

		if (c == '"') {
			if (read_quoted(lx, out, size, &n))
				return -1;
			continue;
		}
		if (!(g_ascii_isalnum(c) || strchr("!#$%&'*+-/=?^_`{|}~.@:[]", c)))
			break;
		if (put(out, size, &n, c))
			return -1;
		lx->p++;
	}
	return n ? 0 : -1;
}

/* Skips to the next ';' outside comments and quoted strings (or the end):
 * recovery after a resinfo that did not parse. */
static void skip_resinfo(struct lexer *lx)
{
	while (lx->p < lx->end && *lx->p != ';') {
		if (*lx->p == '(') {
			if (skip_cfws(lx)) {
				lx->p = lx->end;
				return;
			}
		} else if (*lx->p == '"') {
			/* a quoted string, however long; an unterminated one ends all */
			lx->p++;
			while (lx->p < lx->end && *lx->p != '"')
				lx->p += *lx->p == '\\' && lx->p + 1 < lx->end ? 2 : 1;
			if (lx->p < lx->end)
				lx->p++;
		} else {
			lx->p++;
		}
	}
}

/* The domain part of a property value: after the last '@', lower-cased. */
static void store_domain(char *dst, const char *value)
{
	const char *at = strrchr(value, '@');

	if (dst[0])
		return; /* the first occurrence counts */
	snprintf(dst, AUTH_VALUE_MAX + 1, "%s", at ? at + 1 : value);
	lower_string(dst);
}

/* One resinfo after its ';'.  0 and *r filled, or -1. */
static int parse_resinfo(struct lexer *lx, struct auth_resinfo *r)
{
	char ptype[33], property[33], pvalue[AUTH_VALUE_MAX + 1];

	memset(r, 0, sizeof(*r));
	if (skip_cfws(lx) || read_keyword(lx, r->method, sizeof(r->method)) || skip_cfws(lx))
		return -1;
	if (lx->p < lx->end && *lx->p == '/') {   /* method-version */
		lx->p++;
		if (skip_cfws(lx) || lx->p >= lx->end || !g_ascii_isdigit(*lx->p))
			return -1;
		while (lx->p < lx->end && g_ascii_isdigit(*lx->p))
			lx->p++;
		if (skip_cfws(lx))
			return -1;
	}
	if (lx->p >= lx->end || *lx->p != '=')
		return -1;
	lx->p++;
	if (skip_cfws(lx) || read_keyword(lx, r->result, sizeof(r->result)))
		return -1;
	for (;;) {
		if (skip_cfws(lx))
			return -1;
		if (lx->p >= lx->end || *lx->p == ';')
			return 0;
		if (read_keyword(lx, ptype, sizeof(ptype)) || skip_cfws(lx))
			return -1;
		if (!strcmp(ptype, "reason")) {
			if (lx->p >= lx->end || *lx->p != '=')
				return -1;
			lx->p++;
			if (skip_cfws(lx) || read_value(lx, pvalue, sizeof(pvalue)))
				return -1;
			continue;
		}
		if (lx->p >= lx->end || *lx->p != '.')
			return -1;
		lx->p++;
		if (skip_cfws(lx) || read_keyword(lx, property, sizeof(property)) ||
		    skip_cfws(lx) || lx->p >= lx->end || *lx->p != '=')
			return -1;
		lx->p++;
		if (skip_cfws(lx) || read_pvalue(lx, pvalue, sizeof(pvalue)))
			return -1;
		if (strcmp(ptype, "header"))
			continue;
		if (!strcmp(property, "d"))
			store_domain(r->header_d, pvalue);
		else if (!strcmp(property, "i"))
			store_domain(r->header_i, pvalue);
		else if (!strcmp(property, "from"))
			store_domain(r->header_from, pvalue);
	}
}

int auth_results_parse(const char *value, size_t len, struct auth_results *out)
{
	struct lexer lx = { value, value + len };

	memset(out, 0, sizeof(*out));
	if (skip_cfws(&lx) || read_value(&lx, out->authserv_id, sizeof(out->authserv_id)) ||
	    skip_cfws(&lx))
		goto bad;
	lower_string(out->authserv_id);
	if (lx.p < lx.end && g_ascii_isdigit(*lx.p)) {   /* authres-version */
		while (lx.p < lx.end && g_ascii_isdigit(*lx.p))
			lx.p++;
		if (skip_cfws(&lx))
			goto bad;
	}
	if (lx.p < lx.end && *lx.p != ';')
		goto bad;
	while (lx.p < lx.end) {
		struct auth_resinfo r;

		lx.p++;   /* the ';' */
		if (parse_resinfo(&lx, &r) || (lx.p < lx.end && *lx.p != ';')) {
			skip_resinfo(&lx);
			continue;
		}
		if (out->nres < AUTH_RESINFO_MAX)
			out->res[out->nres++] = r;
	}
	return 0;
bad:
	memset(out, 0, sizeof(*out));
	return -1;
}

/* --- domains -------------------------------------------------------------- */

/* The Public Suffix List, read once for the process: the newer of the
 * system's list (Debian's publicsuffix package) and the one built into
 * libpsl.  NULL when neither is there: then only equal domains align. */
static const psl_ctx_t *suffix_list(void)
{
	static const psl_ctx_t *list;
	static gsize once;

	if (g_once_init_enter(&once)) {
		const psl_ctx_t *l = psl_latest(NULL);

		list = l ? l : psl_builtin();
		g_once_init_leave(&once, 1);
	}
	return list;
}

const char *auth_org_domain(const char *domain)
{
	const psl_ctx_t *list = suffix_list();
	const char *org = list ? psl_registrable_domain(list, domain) : NULL;

	/* a public suffix itself (or no list): its own organizational domain */
	return org ? org : domain;
}

int auth_aligned(const char *a, const char *b)
{
	char la[AUTH_VALUE_MAX + 1], lb[AUTH_VALUE_MAX + 1];

	if (!a || !b || !*a || !*b || strlen(a) > AUTH_VALUE_MAX || strlen(b) > AUTH_VALUE_MAX)
		return 0;
	snprintf(la, sizeof(la), "%s", a);
	snprintf(lb, sizeof(lb), "%s", b);
	lower_string(la);
	lower_string(lb);
	return !strcmp(auth_org_domain(la), auth_org_domain(lb));
}

size_t auth_header_block(const char *raw, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (raw[i] != '\n')
			continue;
		if (i + 1 < len && raw[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && raw[i + 1] == '\r' && raw[i + 2] == '\n')
			return i + 3;
	}
	return len;
}

/* --- policy names -------------------------------------------------------- */

static const char *const mode_names[] = { "dkim-or-authserv", "dkim", "authserv", "none" };

int auth_mode_parse(const char *name)
{
	for (size_t i = 0; name && i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (!strcmp(name, mode_names[i]))
			return (int)i;
	return -1;
}

const char *auth_mode_name(enum auth_mode mode)
{
	return (unsigned)mode < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[mode]
									     : "?";
}

/* --- the header fields, in order, through GMime -------------------------- */

/* The mail's header section parsed by GMime (the body is not read). */
struct parsed_head {
	GMimeMessage *message;
	GMimeHeaderList *headers;
	int from_fields;
};

static size_t skip_mbox_line(const char *raw, size_t len)
{
	const char *nl;

	if (len < 5 || memcmp(raw, "From ", 5))
		return 0;
	nl = memchr(raw, '\n', len);
	return nl ? (size_t)(nl + 1 - raw) : len;
}

static int parse_head(const char *raw, size_t len, struct parsed_head *h)
{
	size_t skip = skip_mbox_line(raw, len), head = auth_header_block(raw + skip, len - skip);
	GMimeStream *stream = g_mime_stream_mem_new_with_buffer(raw + skip, head);
	GMimeParser *parser = g_mime_parser_new_with_stream(stream);

	memset(h, 0, sizeof(*h));
	h->message = g_mime_parser_construct_message(parser, NULL);
	g_object_unref(parser);
	g_object_unref(stream);
	if (!h->message)
		return -1;
	h->headers = g_mime_object_get_header_list(GMIME_OBJECT(h->message));
	for (int i = 0; i < g_mime_header_list_get_count(h->headers); i++)
		if (!g_ascii_strcasecmp(g_mime_header_get_name(
				g_mime_header_list_get_header_at(h->headers, i)), "From"))
			h->from_fields++;
	return 0;
}

static void head_release(struct parsed_head *h)
{
	if (h->message)
		g_object_unref(h->message);
	memset(h, 0, sizeof(*h));
}

/* The one From: address's domain, lower-cased, into out; -1 if the mail
 * has no From:, several From: fields, or a From: with other than one
 * mailbox (DMARC cannot name one author then). */
static int head_from_domain(struct parsed_head *h, char *out, size_t size)
{
	InternetAddressList *list = g_mime_message_get_from(h->message);
	InternetAddress *a;
	const char *addr, *at;

	if (h->from_fields != 1 || !list || internet_address_list_length(list) != 1)
		return -1;
	a = internet_address_list_get_address(list, 0);
	if (!INTERNET_ADDRESS_IS_MAILBOX(a))
		return -1;
	addr = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(a));
	at = addr ? strrchr(addr, '@') : NULL;
	if (!at || !at[1] || strlen(at + 1) >= size)
		return -1;
	snprintf(out, size, "%s", at + 1);
	lower_string(out);
	return 0;
}

/* The host a Received: value names after "by" (comments and the date
 * after ';' are skipped), lower-cased into out; "" if none. */
static void received_by(const char *value, char *out, size_t size)
{
	struct lexer lx = { value, value + strlen(value) };
	char word[AUTH_VALUE_MAX + 1];
	int after_by = 0;

	out[0] = '\0';
	while (!skip_cfws(&lx) && lx.p < lx.end && *lx.p != ';') {
		size_t n = 0;

		word[0] = '\0';
		while (lx.p < lx.end && !is_blank(*lx.p) && *lx.p != '(' && *lx.p != ';') {
			if (n + 1 < sizeof(word))
				word[n++] = lower(*lx.p);
			lx.p++;
		}
		word[n] = '\0';
		if (after_by) {
			snprintf(out, size, "%s", word);
			return;
		}
		after_by = !strcmp(word, "by");
	}
}

/* --- the fields a mail has once, and its signatures' tags ----------------- */

/* The fields RFC 5322 (section 3.6) allows once, that name the author, the
 * mail and its thread, or that a signature commonly covers. */
static const char *const single_fields[] = {
	"From", "Sender", "To", "Cc", "Subject", "Date", "Message-ID", "In-Reply-To", "References"
};
enum { F_FROM, F_SENDER, F_TO, F_CC, F_SUBJECT, F_DATE, F_MESSAGE_ID, F_IN_REPLY_TO,
       F_REFERENCES, F_SINGLE };

struct field_counts {
	unsigned n[F_SINGLE];
	int stray_line;   /* a line of the header section that is no field */
};

/* Counts single_fields in the header section as DKIM reads it: each line
 * that does not start with a blank starts a field, named by what stands
 * before its ':' (blanks there dropped, as relaxed canonicalization does).
 * The bridge's parser (mail/inmail.c), OpenDKIM and GMime each keep one of
 * two such fields (not all the same one): a mail that has two is never
 * authenticated, so whichever each reads, no signature vouches for what
 * another part acts on. */
static void count_fields(const char *raw, size_t len, struct field_counts *fc)
{
	size_t skip = skip_mbox_line(raw, len);
	const char *p = raw + skip, *stop = p + auth_header_block(raw + skip, len - skip);

	memset(fc, 0, sizeof(*fc));
	while (p < stop) {
		const char *nl = memchr(p, '\n', (size_t)(stop - p)), *colon;
		size_t n = (size_t)((nl ? nl : stop) - p), name;

		if (n && p[n - 1] == '\r')
			n--;
		if (!n)
			break;   /* the blank line that ends the header */
		if (p[0] != ' ' && p[0] != '\t') {
			colon = memchr(p, ':', n);
			name = colon ? (size_t)(colon - p) : 0;
			while (name && (p[name - 1] == ' ' || p[name - 1] == '\t'))
				name--;
			if (!name)
				fc->stray_line = 1;
			for (int i = 0; name && i < F_SINGLE; i++)
				if (strlen(single_fields[i]) == name &&
				    !g_ascii_strncasecmp(p, single_fields[i], name))
					fc->n[i]++;
		}
		p = nl ? nl + 1 : stop;
	}
}

/* Why the header's fields keep the mail from acting, into out; 0 if they
 * do not. */
static int fields_refused(const struct field_counts *fc, char *out, size_t size)
{
	if (fc->stray_line) {
		snprintf(out, size, "the header holds a line that is no field");
		return 1;
	}
	for (int i = 0; i < F_SINGLE; i++)
		if (fc->n[i] > 1) {
			snprintf(out, size, "more than one %s: field", single_fields[i]);
			return 1;
		}
	return 0;
}

static int sig_covers(DKIM_SIGINFO *sig, const char *field)
{
	return dkim_sig_hdrsigned(sig, (u_char *)field);
}

/* Why the signature sig, by its tags alone (d=, h=, l=), cannot vouch
 * for a command of a mail from from_domain, into out; "" if it can.  The
 * bug a command acts on is named by In-Reply-To and References: each the
 * mail carries must be signed (listing an absent one signs its absence),
 * as must From and Message-ID (no replay under another id); a body
 * length (l=) leaves the rest of the body to whoever adds it. */
static void sig_unfit(DKIM_SIGINFO *sig, const char *from_domain, const struct field_counts *fc,
		      char *out, size_t size)
{
	const char *d = (const char *)dkim_sig_getdomain(sig);
	const char *l = (const char *)dkim_sig_gettagvalue(sig, 0, (u_char *)"l");

	out[0] = '\0';
	if (!d)
		snprintf(out, size, "a DKIM signature without d=");
	else if (!auth_aligned(d, from_domain))
		snprintf(out, size, "the DKIM signature of %s is not aligned with the From: domain %s",
			 d, from_domain);
	else if (!sig_covers(sig, "from") || !sig_covers(sig, "message-id") ||
		 !(sig_covers(sig, "in-reply-to") || sig_covers(sig, "references")))
		snprintf(out, size,
			 "the DKIM signature of %s does not cover From, Message-ID and In-Reply-To or References",
			 d);
	else if (fc->n[F_IN_REPLY_TO] && !sig_covers(sig, "in-reply-to"))
		snprintf(out, size, "the DKIM signature of %s does not cover the mail's In-Reply-To:", d);
	else if (fc->n[F_REFERENCES] && !sig_covers(sig, "references"))
		snprintf(out, size, "the DKIM signature of %s does not cover the mail's References:", d);
	else if (l)
		snprintf(out, size, "the DKIM signature of %s covers only part of the body (l=%.20s)",
			 d, l);
}

/* A new DKIM library that takes LF line ends as CRLF, with flags besides;
 * NULL if it cannot be set up. */
static DKIM_LIB *library_new(unsigned int flags)
{
	DKIM_LIB *l = dkim_init(NULL, NULL);

	flags |= DKIM_LIBFLAGS_FIXCRLF;
	if (l)
		dkim_options(l, DKIM_OP_SETOPT, DKIM_OPTS_FLAGS, &flags, sizeof(flags));
	return l;
}

/* The library for reading signatures without checking them: signature
 * processing (the key lookup) waits for dkim_eom(), which is never called,
 * so nothing is asked of DNS. */
static DKIM_LIB *tags_library(void)
{
	static DKIM_LIB *lib;
	static gsize once;

	if (g_once_init_enter(&once)) {
		lib = library_new(DKIM_LIBFLAGS_DELAYSIGPROC);
		g_once_init_leave(&once, 1);
	}
	return lib;
}

/* The d= of the mail's DKIM signatures whose tags fit a command
 * (sig_unfit()), read by OpenDKIM from the header alone, not verified: up
 * to max of them into doms; *n their count.  problem says why the first
 * that does not fit does not ("no DKIM signature" if there is none). */
static enum bb_status fit_signatures(const char *raw, size_t len, const char *from_domain,
				     const struct field_counts *fc,
				     char (*doms)[AUTH_VALUE_MAX + 1], int max, int *n,
				     char *problem, size_t size, struct bb_error *err)
{
	DKIM_LIB *lib = tags_library();
	DKIM *dkim;
	DKIM_SIGINFO **sigs = NULL;
	DKIM_STAT st;
	int nsigs = 0;
	size_t skip = skip_mbox_line(raw, len), head = auth_header_block(raw + skip, len - skip);

	*n = 0;
	snprintf(problem, size, "no DKIM signature");
	if (!lib || !(dkim = dkim_verify(lib, (const unsigned char *)"bugbridge", NULL, &st)))
		return bb_error_set(err, BB_ERR_NOMEM, "cannot set up the DKIM library");
	st = dkim_chunk(dkim, (u_char *)(raw + skip), head);
	if (st == DKIM_STAT_OK)
		st = dkim_chunk(dkim, NULL, 0);
	if (st == DKIM_STAT_OK && dkim_getsiglist(dkim, &sigs, &nsigs) == DKIM_STAT_OK) {
		for (int i = 0; i < nsigs; i++) {
			char why[400];

			sig_unfit(sigs[i], from_domain, fc, why, sizeof(why));
			if (!why[0] && *n < max) {
				snprintf(doms[*n], AUTH_VALUE_MAX + 1, "%s",
					 (const char *)dkim_sig_getdomain(sigs[i]));
				lower_string(doms[(*n)++]);
			} else if (why[0] && !strcmp(problem, "no DKIM signature")) {
				snprintf(problem, size, "%s", why);
			}
		}
	}
	dkim_free(dkim);
	return BB_OK;
}

/* --- the trusted receiving server ---------------------------------------- */

/* Fields a receiving server and its milters put on top of a mail (trace,
 * authentication, ARC, delivery): the server's own block holds only these.
 * The first other field (From:, DKIM-Signature:, Subject: ...) was written
 * by the sender, and so was every Authentication-Results after it. */
static int trace_field(const char *name)
{
	static const char *const names[] = {
		"Received", "Authentication-Results", "ARC-Seal", "ARC-Message-Signature",
		"ARC-Authentication-Results", "X-Original-To", "Delivered-To", "Return-Path",
		"Received-SPF", NULL
	};

	for (int i = 0; names[i]; i++)
		if (!g_ascii_strcasecmp(name, names[i]))
			return 1;
	return 0;
}

/* The methods [inbound] authserv_methods names that can vouch for a
 * sender (others are ignored): a bit each. */
enum { METHOD_DMARC = 1, METHOD_DKIM = 2 };

/* The bit of a method's name (any case), 0 for the others. */
static unsigned method_bit(const char *method)
{
	return !g_ascii_strcasecmp(method, "dmarc") ? METHOD_DMARC
	       : !g_ascii_strcasecmp(method, "dkim") ? METHOD_DKIM : 0;
}

unsigned auth_methods_parse(const char *names)
{
	unsigned mask = 0;
	char **words;

	if (!names || !*names)
		return METHOD_DMARC;
	words = g_strsplit_set(names, ", \t", -1);
	for (char **w = words; *w; w++)
		mask |= method_bit(*w);
	g_strfreev(words);
	return mask;
}

/* auth_check_authserv() on the mail's header as parsed (NULL: unreadable)
 * and its field counts. */
static enum bb_status authserv_verdict(const char *raw, size_t len, const struct parsed_head *h,
				       const struct field_counts *fc, const char *from_domain,
				       const char *authserv_id, const char *methods,
				       struct auth_verdict *v, struct bb_error *err)
{
	unsigned counted = auth_methods_parse(methods);
	int state = 0;   /* 0 above the server's Received:, 1 in its block, 2 below */
	int dmarc_fail = 0, window = 0, nfit = 0;
	unsigned ndmarc = 0, ndkim = 0;
	struct auth_results *ar = malloc(sizeof(*ar));
	char by[AUTH_VALUE_MAX + 1], how[AUTH_VALUE_MAX + 64] = "";
	char pass_dkim_d[AUTH_VALUE_MAX + 1] = "", pass_dmarc[AUTH_VALUE_MAX + 1] = "";
	char fit[4][AUTH_VALUE_MAX + 1], problem[400];
	enum bb_status s = BB_OK;

	v->authenticated = 0;
	v->method = NULL;
	if (!ar)
		return bb_error_set(err, BB_ERR_NOMEM, "out of memory");
	if (!authserv_id || !*authserv_id) {
		snprintf(v->reason, sizeof(v->reason), "no trusted authserv-id is configured");
		goto out;
	}
	if (!counted) {
		snprintf(v->reason, sizeof(v->reason),
			 "[inbound] authserv_methods names neither dmarc nor dkim");
		goto out;
	}
	if (!h) {
		snprintf(v->reason, sizeof(v->reason), "the mail has no readable header");
		goto out;
	}
	for (int i = 0; i < g_mime_header_list_get_count(h->headers); i++) {
		GMimeHeader *f = g_mime_header_list_get_header_at(h->headers, i);
		const char *name = g_mime_header_get_name(f);
		const char *value = g_mime_header_get_raw_value(f);

		if (!value)
			continue;
		if (!g_ascii_strcasecmp(name, "Received")) {
			received_by(value, by, sizeof(by));
			/* only the topmost block: a "by" the server further
			 * down may be forged by the sender */
			if (!g_ascii_strcasecmp(by, authserv_id) && state < 2)
				state = window = 1;
			else if (state == 1)
				state = 2;
			continue;
		}
		if (state == 1 && !trace_field(name))
			state = 2;   /* the mail's own header, or its sender's, starts */
		if (g_ascii_strcasecmp(name, "Authentication-Results") ||
		    auth_results_parse(value, strlen(value), ar) ||
		    g_ascii_strcasecmp(ar->authserv_id, authserv_id))
			continue;
		if (state != 1) {
			v->ignored_results++;
			continue;
		}
		/* the block: the server's own headers, and any a sender put on
		 * top of its mail, which the server did not remove */
		for (size_t r = 0; r < ar->nres; r++) {
			const struct auth_resinfo *ri = &ar->res[r];
			unsigned bit = method_bit(ri->method) & counted;

			if (bit == METHOD_DMARC) {
				ndmarc++;
				if (ri->header_from[0] && g_ascii_strcasecmp(ri->header_from, from_domain))
					continue;   /* about another author */
				if (!strcmp(ri->result, "fail"))
					dmarc_fail = 1;
				else if (!strcmp(ri->result, "pass") && ri->header_from[0])
					snprintf(pass_dmarc, sizeof(pass_dmarc), "%s", ri->header_from);
			} else if (bit == METHOD_DKIM) {
				const char *d = ri->header_d[0] ? ri->header_d : ri->header_i;

				ndkim++;
				if (!strcmp(ri->result, "pass") && auth_aligned(d, from_domain) &&
				    !pass_dkim_d[0])
					snprintf(pass_dkim_d, sizeof(pass_dkim_d), "%s", d);
			}
		}
	}
	if (!window) {
		snprintf(v->reason, sizeof(v->reason),
			 "no Received: header by %s (the mail did not pass the trusted server)",
			 authserv_id);
		goto out;
	}
	if (ndmarc > 1 || ndkim > 1) {
		/* the server writes one; another was the sender's */
		snprintf(v->reason, sizeof(v->reason),
			 "conflicting Authentication-Results: %u %s= results of %s", ndmarc > 1 ? ndmarc
			 : ndkim, ndmarc > 1 ? "dmarc" : "dkim", authserv_id);
		goto out;
	}
	if (dmarc_fail) {
		snprintf(v->reason, sizeof(v->reason), "%s says dmarc=fail for %s", authserv_id,
			 from_domain);
		goto out;
	}
	v->dmarc_pass = pass_dmarc[0] != '\0';
	if (!pass_dmarc[0] && !pass_dkim_d[0]) {
		snprintf(v->reason, sizeof(v->reason), "%s reports no %s aligned with the From: domain %s",
			 authserv_id, counted == METHOD_DMARC ? "dmarc=pass"
				      : counted == METHOD_DKIM ? "dkim=pass" : "dkim=pass or dmarc=pass",
			 from_domain);
		goto out;
	}
	/* a pass is the server's word for the author's domain; that the
	 * mail's thread and id are what the author signed is in the signature
	 * itself, read here (the server verified it, or DMARC passed by SPF
	 * alone, which vouches for no header: then there is none that fits) */
	if ((s = fit_signatures(raw, len, from_domain, fc, fit, 4, &nfit, problem, sizeof(problem),
				err)))
		goto out;
	if (pass_dmarc[0] && nfit) {
		snprintf(how, sizeof(how), "dmarc=pass header.from=%s (DKIM signature of %s)", pass_dmarc,
			 fit[0]);
	} else if (pass_dkim_d[0]) {
		for (int i = 0; i < nfit && !how[0]; i++)
			if (!strcmp(fit[i], pass_dkim_d))
				snprintf(how, sizeof(how), "dkim=pass header.d=%s", pass_dkim_d);
	}
	if (!how[0]) {
		snprintf(v->reason, sizeof(v->reason),
			 "%s reports %s=pass, but the mail has no DKIM signature fit for commands (%s)",
			 authserv_id, pass_dmarc[0] ? "dmarc" : "dkim",
			 nfit ? "the server's dkim=pass is for another signature" : problem);
		goto out;
	}
	v->authenticated = 1;
	v->method = "authserv";
	snprintf(v->reason, sizeof(v->reason), "%s: %s", authserv_id, how);
out:
	free(ar);
	return s;
}

enum bb_status auth_check_authserv(const char *raw, size_t len, const char *from_domain,
				   const char *authserv_id, const char *methods,
				   struct auth_verdict *v, struct bb_error *err)
{
	struct parsed_head h;
	struct field_counts fc;
	int unreadable = parse_head(raw, len, &h);
	enum bb_status s;

	count_fields(raw, len, &fc);
	s = authserv_verdict(raw, len, unreadable ? NULL : &h, &fc, from_domain, authserv_id, methods,
			     v, err);
	head_release(&h);
	return s;
}

/* --- DKIM, verified here ------------------------------------------------- */

static const char *sig_problem(DKIM_SIGINFO *sig)
{
	if (dkim_sig_getbh(sig) == DKIM_SIGBH_MISMATCH)
		return "body hash mismatch";
	if (dkim_sig_geterror(sig) != DKIM_SIGERROR_OK)
		return dkim_sig_geterrorstr(dkim_sig_geterror(sig));
	return "signature does not verify";
}

/* DKIM keys from DNS, within the mail's time.  OpenDKIM asks for the keys
 * one signature after the other, each through the stock resolver's
 * res_nsend(), which waits retrans seconds an attempt (resolv.conf's
 * defaults: 5 s, 2 attempts): 10 s a signature whose DNS never answers,
 * whatever DKIM_OPTS_TIMEOUT says (the stock resolver is synchronous: the
 * wait is over before OpenDKIM would time it).  The query functions below
 * replace the stock ones: each lookup gets what is left of the mail's time
 * (its attempts and their timeout cut to fit, a second at least), and a
 * lookup that would start after it is not made. */
struct dns_wait {
	struct __res_state res;    /* resolv.conf's, read for this mail */
	int retry;                 /* its attempts */
	struct timespec deadline;  /* CLOCK_MONOTONIC */
	unsigned asked, unanswered;
	size_t answer_len;         /* of the lookup just made */
};

/* The verification under way on this thread: OpenDKIM calls the query
 * functions from dkim_eom(), on its caller's thread. */
static _Thread_local struct dns_wait *dns_current;

/* The mail's time for its lookups: 0 is the default, negative none. */
static long dns_timeout(long timeout_ms)
{
	return !timeout_ms ? AUTH_DNS_TIMEOUT_MS : timeout_ms < 0 ? 0 : timeout_ms;
}

static long dns_ms_left(const struct dns_wait *w)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(w->deadline.tv_sec - t.tv_sec) * 1000 +
	       (w->deadline.tv_nsec - t.tv_nsec) / 1000000;
}

static int dns_query_start(void *srv, int type, unsigned char *query, unsigned char *buf,
			   size_t buflen, void **qh)
{
	struct dns_wait *w = dns_current;
	unsigned char packet[NS_PACKETSZ];
	long left;
	int n, secs;

	(void)srv;
	if (!w)
		return DKIM_DNS_ERROR;
	w->asked++;
	left = dns_ms_left(w);
	if (left <= 0) {
		w->unanswered++;
		return DKIM_DNS_ERROR;
	}
	secs = left >= 30000 ? 30 : (int)((left + 999) / 1000);
	w->res.retry = w->retry < secs ? w->retry : secs;
	w->res.retrans = secs / w->res.retry;
	n = res_nmkquery(&w->res, QUERY, (const char *)query, C_IN, type, NULL, 0, NULL, packet,
			 sizeof(packet));
	if (n < 0)
		return DKIM_DNS_ERROR;
	n = res_nsend(&w->res, packet, n, buf, buflen > 65535 ? 65535 : (int)buflen);
	if (n < 0) {
		w->unanswered++;   /* timed out, refused, or failed on every server */
		return DKIM_DNS_ERROR;
	}
	w->answer_len = (size_t)n;
	*qh = w;
	return DKIM_DNS_SUCCESS;
}

/* The answer is in before dns_query_start() returns (its handle is the
 * mail's dns_wait). */
static int dns_query_waitreply(void *srv, void *qh, struct timeval *timeout, size_t *bytes,
			       int *error, int *dnssec)
{
	(void)srv;
	(void)timeout;
	if (bytes)
		*bytes = ((struct dns_wait *)qh)->answer_len;
	if (error)
		*error = 0;
	if (dnssec)
		*dnssec = DKIM_DNSSEC_UNKNOWN;
	return DKIM_DNS_SUCCESS;
}

static int dns_query_cancel(void *srv, void *qh)
{
	(void)srv;
	(void)qh;
	return 0;
}

/* Starts the lookups of one verification: timeout_ms from now. */
static struct dns_wait *dns_wait_start(long timeout_ms)
{
	struct dns_wait *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	if (res_ninit(&w->res) != 0) {
		free(w);
		return NULL;
	}
	w->retry = w->res.retry > 0 ? w->res.retry : 1;
	clock_gettime(CLOCK_MONOTONIC, &w->deadline);
	timeout_ms = dns_timeout(timeout_ms);
	w->deadline.tv_sec += timeout_ms / 1000;
	w->deadline.tv_nsec += (timeout_ms % 1000) * 1000000;
	if (w->deadline.tv_nsec >= 1000000000) {
		w->deadline.tv_sec++;
		w->deadline.tv_nsec -= 1000000000;
	}
	dns_current = w;
	return w;
}

static void dns_wait_end(struct dns_wait *w)
{
	if (!w)
		return;
	dns_current = NULL;
	res_nclose(&w->res);
	free(w);
}

/* An aligned signature (one that could have authenticated the sender)
 * whose key was not fetched: its domain, or NULL. */
static const char *key_not_fetched(DKIM_SIGINFO **sigs, int nsigs, const char *from_domain)
{
	for (int i = 0; i < nsigs; i++) {
		const char *d = (const char *)dkim_sig_getdomain(sigs[i]);

		if (d && dkim_sig_geterror(sigs[i]) == DKIM_SIGERROR_KEYFAIL &&
		    auth_aligned(d, from_domain))
			return d;
	}
	return NULL;
}

/* The library for keys from DNS: one for the process, set up once.  (Its
 * query cache, DKIM_LIBFLAGS_CACHE, is not used: Debian's keeps it in
 * Berkeley DB, whose memory is lost at exit; the resolver caches keys.) */
static DKIM_LIB *dns_library(void)
{
	static DKIM_LIB *lib;
	static gsize once;

	if (g_once_init_enter(&once)) {
		DKIM_LIB *l = library_new(0);

		if (l) {
			/* a service handle of its own: the stock one is never set up */
			dkim_dns_set_query_service(l, (void *)&dns_current);
			dkim_dns_set_query_start(l, dns_query_start);
			dkim_dns_set_query_waitreply(l, dns_query_waitreply);
			dkim_dns_set_query_cancel(l, dns_query_cancel);
		}
		lib = l;
		g_once_init_leave(&once, 1);
	}
	return lib;
}

/* auth_check_dkim() given the mail's field counts. */
static enum bb_status dkim_verdict(const char *raw, size_t len, const struct field_counts *fc,
				   const char *from_domain, const char *dkim_key_file,
				   long dns_timeout_ms, struct auth_verdict *v, struct bb_error *err)
{
	int own = dkim_key_file && *dkim_key_file;   /* keys from a file: a library of its own */
	DKIM_LIB *lib = own ? library_new(0) : dns_library();
	DKIM *dkim = NULL;
	DKIM_SIGINFO **sigs = NULL;
	DKIM_STAT st;
	int nsigs = 0;
	size_t skip = skip_mbox_line(raw, len);
	enum bb_status s = BB_OK;
	char first_problem[400] = "";
	struct dns_wait *wait = NULL;
	const char *unfetched;

	v->authenticated = 0;
	v->method = NULL;
	v->temporary = 0;
	if (!lib)
		return bb_error_set(err, BB_ERR_NOMEM, "cannot set up the DKIM library");
	if (!own && !(wait = dns_wait_start(dns_timeout_ms)))
		return bb_error_set(err, BB_ERR_NOMEM, "cannot set up the resolver");
	if (own) {
		dkim_query_t method = DKIM_QUERY_FILE;

		dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_QUERYMETHOD, &method, sizeof(method));
		dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_QUERYINFO, (void *)dkim_key_file,
			     strlen(dkim_key_file));
	}
	dkim = dkim_verify(lib, (const unsigned char *)"bugbridge", NULL, &st);
	if (!dkim) {
		s = bb_error_set(err, BB_ERR_NOMEM, "cannot start DKIM verification: %s",
				 dkim_getresultstr(st));
		goto out;
	}
	st = dkim_chunk(dkim, (u_char *)(raw + skip), len - skip);
	if (st == DKIM_STAT_OK)
		st = dkim_chunk(dkim, NULL, 0);
	if (st == DKIM_STAT_OK)
		st = dkim_eom(dkim, NULL);
	if (st == DKIM_STAT_NOSIG) {
		snprintf(v->reason, sizeof(v->reason), "no DKIM signature");
		goto out;
	}
	if (dkim_getsiglist(dkim, &sigs, &nsigs) != DKIM_STAT_OK || nsigs <= 0) {
		snprintf(v->reason, sizeof(v->reason), "no usable DKIM signature (%s)",
			 dkim_getresultstr(st));
		goto out;
	}
	for (int i = 0; i < nsigs; i++) {
		const char *d = (const char *)dkim_sig_getdomain(sigs[i]);
		char problem[400] = "";

		if (!d)
			continue;
		if (!DKIM_SIG_CHECK(sigs[i]))
			snprintf(problem, sizeof(problem), "the DKIM signature of %s does not verify (%s)",
				 d, sig_problem(sigs[i]));
		else
			sig_unfit(sigs[i], from_domain, fc, problem, sizeof(problem));
		if (!problem[0]) {
			v->authenticated = 1;
			v->method = "dkim";
			snprintf(v->reason, sizeof(v->reason), "DKIM signature of %s verified", d);
			goto out;
		}
		if (!first_problem[0])
			snprintf(first_problem, sizeof(first_problem), "%s", problem);
	}
	if ((unfetched = key_not_fetched(sigs, nsigs, from_domain))) {
		v->temporary = 1;
		snprintf(v->reason, sizeof(v->reason),
			 "DNS did not answer for the DKIM key of %s (%u of %u lookups unanswered within %ld ms)",
			 unfetched, wait ? wait->unanswered : 0, wait ? wait->asked : 0,
			 dns_timeout(dns_timeout_ms));
		goto out;
	}
	snprintf(v->reason, sizeof(v->reason), "%s",
		 first_problem[0] ? first_problem : "no usable DKIM signature");
out:
	if (dkim)
		dkim_free(dkim);
	if (own)
		dkim_close(lib);
	dns_wait_end(wait);
	return s;
}

enum bb_status auth_check_dkim(const char *raw, size_t len, const char *from_domain,
			       const char *dkim_key_file, long dns_timeout_ms,
			       struct auth_verdict *v, struct bb_error *err)
{
	struct field_counts fc;

	count_fields(raw, len, &fc);
	return dkim_verdict(raw, len, &fc, from_domain, dkim_key_file, dns_timeout_ms, v, err);
}

/* --- the policy ------------------------------------------------------------ */

enum bb_status auth_check(const struct auth_policy *policy, const char *raw, size_t len,
			  struct auth_verdict *v, struct bb_error *err)
{
	struct parsed_head h;
	struct field_counts fc;
	struct auth_verdict dkim_v, serv_v;
	enum bb_status s = BB_OK;

	memset(v, 0, sizeof(*v));
	if (policy->mode == AUTH_MODE_NONE) {
		v->authenticated = 1;
		v->method = "none";
		snprintf(v->reason, sizeof(v->reason), "[inbound] authenticate = none");
		return BB_OK;
	}
	count_fields(raw, len, &fc);
	if (fields_refused(&fc, v->reason, sizeof(v->reason)))
		return BB_OK;
	if (parse_head(raw, len, &h)) {
		snprintf(v->reason, sizeof(v->reason), "the mail has no readable header");
		return BB_OK;
	}
	if (head_from_domain(&h, v->from_domain, sizeof(v->from_domain))) {
		head_release(&h);
		snprintf(v->reason, sizeof(v->reason),
			 "the mail does not have exactly one From: address with a domain");
		return BB_OK;
	}
	memset(&dkim_v, 0, sizeof(dkim_v));
	memset(&serv_v, 0, sizeof(serv_v));
	if (policy->mode != AUTH_MODE_AUTHSERV)
		s = dkim_verdict(raw, len, &fc, v->from_domain, policy->dkim_key_file,
				 policy->dns_timeout_ms, &dkim_v, err);
	if (!s && !dkim_v.authenticated && policy->mode != AUTH_MODE_DKIM)
		s = authserv_verdict(raw, len, &h, &fc, v->from_domain, policy->trusted_authserv_id,
				     policy->authserv_methods, &serv_v, err);
	head_release(&h);
	if (s)
		return s;
	v->ignored_results = serv_v.ignored_results;
	v->dmarc_pass = serv_v.dmarc_pass;
	if (dkim_v.authenticated || serv_v.authenticated) {
		const struct auth_verdict *w = dkim_v.authenticated ? &dkim_v : &serv_v;

		v->authenticated = 1;
		v->method = w->method;
		snprintf(v->reason, sizeof(v->reason), "%s", w->reason);
	} else if (policy->mode == AUTH_MODE_DKIM) {
		snprintf(v->reason, sizeof(v->reason), "%s", dkim_v.reason);
	} else if (policy->mode == AUTH_MODE_AUTHSERV) {
		snprintf(v->reason, sizeof(v->reason), "%s", serv_v.reason);
	} else {
		snprintf(v->reason, sizeof(v->reason), "%.250s; %.250s", dkim_v.reason, serv_v.reason);
	}
	/* a key DNS did not give may still authenticate the sender */
	v->temporary = !v->authenticated && dkim_v.temporary;
	if (v->ignored_results)
		log_event(LOG_LEVEL_INFO, "auth.results_ignored",
			  LF_STR("authserv_id", policy->trusted_authserv_id),
			  LF_UINT("count", v->ignored_results),
			  LF_STR("why", "below the trusted server's own Received: block"));
	return s;
}
