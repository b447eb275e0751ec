/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for mail/auth.c: the Authentication-Results parser, domain
 * alignment by the Public Suffix List, the trusted receiving server's
 * block (in the layout of vger's mail on lore), the fields a mail may have
 * once, and DKIM verification with OpenDKIM of mails signed by a real
 * signer (python3-dkim's dkimsign) with a key made by openssl here and
 * published through OpenDKIM's file query method. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "mail/auth.h"
#include "mail/mail.h"
#include "tests/unit/tap.h"

static char work[] = "/tmp/bb-test-auth-XXXXXX";
static char key_file[256];

/* ------------------------------------------------------------ the parser */

static void test_parser(void)
{
	struct auth_results ar;
	const char *v;

	v = " smtp.subspace.kernel.org; dmarc=pass (p=none dis=none) header.from=Author.Example";
	is_int(auth_results_parse(v, strlen(v), &ar), 0, "A-R: parsed");
	is_str(ar.authserv_id, "smtp.subspace.kernel.org", "A-R: authserv-id");
	is_int(ar.nres, 1, "A-R: one resinfo");
	is_str(ar.res[0].method, "dmarc", "A-R: method");
	is_str(ar.res[0].result, "pass", "A-R: result");
	is_str(ar.res[0].header_from, "author.example", "A-R: header.from, lower-cased");

	v = "mx.example.org 1;\r\n\tdkim=pass (2048-bit key; unprotected) header.d=example.org"
	    " header.i=@example.org header.b=\"AbC;d=x\";\r\n spf=fail smtp.mailfrom=a@evil.example;"
	    " DMARC/1 = FAIL reason=\"dmarc; policy\" header.from=example.org";
	is_int(auth_results_parse(v, strlen(v), &ar), 0, "A-R: version, comments, folding");
	is_int(ar.nres, 3, "A-R: three resinfos (';' in a comment and a quoted string do not split)");
	is_str(ar.res[0].header_d, "example.org", "A-R: header.d");
	is_str(ar.res[0].header_i, "example.org", "A-R: header.i keeps its domain");
	is_str(ar.res[1].method, "spf", "A-R: second method");
	is_str(ar.res[2].method, "dmarc", "A-R: method-version and blanks around '='");
	is_str(ar.res[2].result, "fail", "A-R: result lower-cased");
	is_str(ar.res[2].header_from, "example.org", "A-R: property after a quoted reason");

	v = "\"quoted id\"; none";
	is_int(auth_results_parse(v, strlen(v), &ar), 0, "A-R: quoted authserv-id, no result");
	is_str(ar.authserv_id, "quoted id", "A-R: quoted authserv-id unquoted");
	is_int(ar.nres, 0, "A-R: 'none' is no result");

	v = "mx (a (nested) comment) ; dkim=pass header.d=(c)example.org";
	is_int(auth_results_parse(v, strlen(v), &ar), 0, "A-R: nested comment");
	is_str(ar.res[0].header_d, "example.org", "A-R: comment before a pvalue");

	v = "mx; dkim=pass header.d=a.example junk here; dmarc=pass header.from=b.example";
	is_int(auth_results_parse(v, strlen(v), &ar), 0, "A-R: a bad resinfo");
	is_int(ar.nres, 1, "A-R: the bad resinfo is dropped, the next one kept");
	is_str(ar.res[0].header_from, "b.example", "A-R: the good one");

	v = "mx; dkim=pass header.d=example.org (unterminated";
	is_int(auth_results_parse(v, strlen(v), &ar), 0, "A-R: unterminated comment in a resinfo");
	is_int(ar.nres, 0, "A-R: that resinfo does not count");

	v = "mx (unterminated; dkim=pass";
	is_int(auth_results_parse(v, strlen(v), &ar), -1, "A-R: unterminated comment after the id");
	v = "";
	is_int(auth_results_parse(v, 0, &ar), -1, "A-R: empty");
	v = "\"\"; dkim=pass header.d=example.org";
	is_int(auth_results_parse(v, strlen(v), &ar), -1, "A-R: empty quoted authserv-id (found by fuzzing)");
	v = "mx extra; dkim=pass header.d=example.org";
	is_int(auth_results_parse(v, strlen(v), &ar), -1, "A-R: garbage after the authserv-id");

	{
		struct buf b = BUF_INIT;

		buf_addstr(&b, "mx; dkim=pass header.d=");
		for (int i = 0; i < 300; i++)
			buf_addch(&b, 'a');
		buf_addstr(&b, ".example.org; dkim=pass header.d=ok.example");
		is_int(auth_results_parse(b.data, b.len, &ar), 0, "A-R: an over-long value");
		ok(ar.nres == 1 && !strcmp(ar.res[0].header_d, "ok.example"),
		   "A-R: the over-long value's resinfo is dropped, not cut");
		buf_release(&b);
	}
	{
		struct buf b = BUF_INIT;

		buf_addstr(&b, "mx");
		for (int i = 0; i < 100; i++)
			buf_addf(&b, "; dkim=pass header.d=d%d.example", i);
		is_int(auth_results_parse(b.data, b.len, &ar), 0, "A-R: many resinfos");
		is_int(ar.nres, AUTH_RESINFO_MAX, "A-R: capped at AUTH_RESINFO_MAX");
		buf_release(&b);
	}
}

static void test_domains(void)
{
	is_str(auth_org_domain("vger.kernel.org"), "kernel.org", "org domain: last two labels");
	is_str(auth_org_domain("kernel.org"), "kernel.org", "org domain: two labels");
	is_str(auth_org_domain("mail.bt.co.uk"), "bt.co.uk", "org domain: co.uk takes three");
	is_str(auth_org_domain("example.com.au"), "example.com.au", "org domain: com.au");
	is_str(auth_org_domain("mail.ibm.de"), "ibm.de", "org domain: a short name is no suffix");
	is_str(auth_org_domain("localhost"), "localhost", "org domain: one label");
	/* the Public Suffix List, not "the last two labels" */
	is_str(auth_org_domain("ellerman.id.au"), "ellerman.id.au", "org domain: id.au is a suffix");
	is_str(auth_org_domain("mail.ellerman.id.au"), "ellerman.id.au", "org domain: under id.au");
	ok(!auth_aligned("attacker.id.au", "ellerman.id.au"), "not aligned: siblings under id.au");
	ok(auth_aligned("mail.ellerman.id.au", "Ellerman.id.au"), "aligned: a subdomain under id.au");
	ok(!auth_aligned("attacker.me.uk", "someone.me.uk"), "not aligned: siblings under me.uk");
	is_str(auth_org_domain("smtp.someone.me.uk"), "someone.me.uk", "org domain: under me.uk");
	ok(!auth_aligned("attacker.eu.org", "someone.eu.org"),
	   "not aligned: siblings under eu.org (the list's private section)");
	ok(auth_aligned("lists.someone.eu.org", "someone.eu.org"), "aligned: a subdomain under eu.org");
	is_str(auth_org_domain("id.au"), "id.au", "org domain: a public suffix is its own");
	is_int(auth_methods_parse(NULL), auth_methods_parse("dmarc"), "methods: dmarc by default");
	ok(auth_methods_parse("dmarc,dkim") == (auth_methods_parse("dmarc") | auth_methods_parse("dkim")) &&
	   auth_methods_parse("dkim") != auth_methods_parse("dmarc"), "methods: both");
	is_int(auth_methods_parse("spf arc"), 0, "methods: spf and arc never count");
	ok(auth_aligned("mail.Example.org", "example.ORG"), "aligned: subdomain, any case");
	ok(!auth_aligned("example.org", "example.net"), "not aligned: other domain");
	ok(!auth_aligned("evil.co.uk", "bt.co.uk"), "not aligned: siblings under co.uk");
	ok(!auth_aligned("kernel.org.evil.example", "kernel.org"), "not aligned: suffix trick");
	ok(!auth_aligned("", "kernel.org") && !auth_aligned(NULL, "kernel.org"), "not aligned: empty");
	is_int(auth_header_block("A: b\nC: d\n\nbody\n", 16), 11, "header block: LF");
	is_int(auth_header_block("A: b\r\n\r\nbody", 12), 8, "header block: CRLF");
	is_int(auth_header_block("A: b\n", 5), 5, "header block: no body");
	is_int(auth_mode_parse("dkim-or-authserv"), AUTH_MODE_DKIM_OR_AUTHSERV, "mode names");
	is_int(auth_mode_parse("DKIM"), -1, "mode names are exact");
	is_str(auth_mode_name(AUTH_MODE_AUTHSERV), "authserv", "mode name");
}

/* ------------------------------------------------------------ signing */

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}


/* Makes a key for selector/domain and publishes it in the key file. */
static int make_key(const char *selector, const char *domain)
{
	return run("cd %s && openssl genrsa -out %s.%s.pem 2048 2>/dev/null &&"
		   " printf '%%s._domainkey.%%s v=DKIM1; k=rsa; p=%%s\\n' %s %s"
		   " \"$(openssl rsa -in %s.%s.pem -pubout -outform DER 2>/dev/null | base64 -w0)\""
		   " >> %s", work, selector, domain, selector, domain, selector, domain, key_file);
}

static const char *const plain_mail =
	"From: Maintainer <maintainer@example.org>\n"
	"To: linux-usb@vger.kernel.org\n"
	"Subject: Re: [Bug 100] USB resets\n"
	"Date: Thu, 03 Dec 2026 10:00:00 +0000\n"
	"Message-ID: <cmd-1@example.org>\n"
	"In-Reply-To: <bug-100-c0@bugbridge.example>\n"
	"References: <bug-100-c0@bugbridge.example>\n"
	"\n"
	"#bugbridge close\n";

/* Signs text with dkimsign (selector s1 of domain) into name; the signed
 * bytes are returned (free()). */
static char *sign(const char *name, const char *text, const char *domain, size_t *len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s.in", work, name);
	{
		FILE *f = fopen(path, "w");

		if (!f)
			return NULL;
		fputs(text, f);
		fclose(f);
	}
	if (run("cd %s && dkimsign s1 %s s1.%s.pem < %s.in > %s.eml", work, domain, domain, name,
		name))
		return NULL;
	snprintf(path, sizeof(path), "%s/%s.eml", work, name);
	return tap_slurp(path, len);
}

/* The same through python3-dkim's library, signing only the given
 * headers (dkimsign always signs the usual set); more: further arguments
 * of dkim.sign() ("length=True"). */
static char *sign_py(const char *name, const char *text, const char *domain,
		     const char *headers, const char *more, size_t *len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.in", work, name);
	if (!(f = fopen(path, "w")))
		return NULL;
	fputs(text, f);
	fclose(f);
	if (run("cd %s && /usr/bin/python3 -c 'import dkim,sys; m=open(\"%s.in\",\"rb\").read();"
		" sys.stdout.buffer.write(dkim.sign(m,b\"s1\",b\"%s\",open(\"s1.%s.pem\",\"rb\").read(), linesep=b\"\\n\","
		" include_headers=[h.encode() for h in \"%s\".split()]%s)+m)' > %s.eml",
		work, name, domain, domain, headers, more, name))
		return NULL;
	snprintf(path, sizeof(path), "%s/%s.eml", work, name);
	return tap_slurp(path, len);
}

static char *sign_headers(const char *name, const char *text, const char *domain,
			  const char *headers, size_t *len)
{
	return sign_py(name, text, domain, headers, "", len);
}

/* The mail as vger passes it to lore (shared/notes/kernel-conventions.md):
 * the list's re-injection hop with its empty Authentication-Results, the
 * delivery hop, its milters' arc=, ARC-Authentication-Results (the only
 * place its dkim= is) and the dmarc= and spf= headers given, then the mail
 * as the sender sent it. */
static char *vger(const char *sent, const char *server_results)
{
	return str_printf("Received: from smtp.subspace.kernel.org (relay.kernel.org [52.25.139.140])"
			  " by lore.example (Postfix) with ESMTPS id 1; Thu, 3 Dec 2026 10:00:03 +0000\n"
			  "Received: from localhost.localdomain (localhost.localdomain [127.0.0.1])\n"
			  "\tby smtp.subspace.kernel.org (Postfix) with ESMTP id 2;\n"
			  "\tThu, 3 Dec 2026 10:00:02 +0000\n"
			  "Authentication-Results: smtp.subspace.kernel.org;\n"
			  "X-Original-To: linux-usb@vger.kernel.org\n"
			  "Received: from mail.example.org (mail.example.org [192.0.2.15])\n"
			  "\tby smtp.subspace.kernel.org (Postfix) with ESMTPS id 3;\n"
			  "\tThu, 3 Dec 2026 10:00:01 +0000\n"
			  "Authentication-Results: smtp.subspace.kernel.org; arc=none smtp.client-ip=192.0.2.15\n"
			  "ARC-Seal: i=1; a=rsa-sha256; d=subspace.kernel.org; s=arc; cv=none; b=AAAA\n"
			  "ARC-Authentication-Results: i=1; smtp.subspace.kernel.org; dkim=pass"
			  " header.d=example.org; dmarc=pass header.from=example.org\n"
			  "%s%s", server_results, sent);
}

/* The mail as lore archives it: the list server's Received: and A-R on top. */
static char *archived(const char *signed_mail, const char *server_results)
{
	return str_printf("Received: from smtp.subspace.kernel.org (relay.kernel.org [52.25.139.140])"
			  " by lore.example (Postfix) with ESMTPS id 1; Thu, 3 Dec 2026 10:00:02 +0000\n"
			  "Received: from mail.example.org (mail.example.org [192.0.2.15]) by"
			  " smtp.subspace.kernel.org (Postfix) with ESMTPS id 2;\n\tThu, 3 Dec 2026 10:00:01 +0000\n"
			  "%s"
			  "Received: by mail.example.org with SMTPS id 3; Thu, 3 Dec 2026 10:00:00 +0000\n"
			  "%s", server_results, signed_mail);
}

static void test_dkim(void)
{
	struct auth_verdict v;
	struct bb_error err = BB_ERROR_INIT;
	struct auth_policy dkim_only = { .mode = AUTH_MODE_DKIM, .dkim_key_file = key_file };
	size_t len;
	char *mail, *copy, *lore, *p;

	mail = sign("good", plain_mail, "example.org", &len);
	ok(mail && strstr(mail, "DKIM-Signature:"), "dkimsign signed the mail");
	if (!mail)
		return;
	is_int(auth_check(&dkim_only, mail, len, &v, &err), BB_OK, "dkim: checked");
	ok(v.authenticated && !strcmp(v.method, "dkim"), "dkim: a signed maintainer's mail passes");
	is_str(v.reason, "DKIM signature of example.org verified", "dkim: the reason names d=");
	is_str(v.from_domain, "example.org", "dkim: the From: domain");

	lore = archived(mail, "Authentication-Results: smtp.subspace.kernel.org; spf=pass"
			      " smtp.mailfrom=example.org\n");
	auth_check(&dkim_only, lore, strlen(lore), &v, &err);
	ok(v.authenticated, "dkim: still passes with the archive's headers on top (LF line ends)");
	free(lore);

	copy = strdup(mail);
	p = strstr(copy, "#bugbridge close");
	memcpy(p, "#bugbridge stop!", 16);
	auth_check(&dkim_only, copy, len, &v, &err);
	ok(!v.authenticated, "dkim: body changed after signing is refused");
	ok(strstr(v.reason, "body hash mismatch") != NULL, "dkim: reason says body hash mismatch (%s)",
	   v.reason);
	free(copy);

	copy = strdup(mail);
	p = strstr(copy, "cmd-1@");
	p[4] = '2';
	auth_check(&dkim_only, copy, len, &v, &err);
	ok(!v.authenticated && strstr(v.reason, "does not verify"),
	   "dkim: a replay under another Message-ID is refused (%s)", v.reason);
	free(copy);
	free(mail);

	mail = sign("other", plain_mail, "attacker.example", &len);
	auth_check(&dkim_only, mail, len, &v, &err);
	ok(!v.authenticated && strstr(v.reason, "not aligned with the From: domain example.org"),
	   "dkim: d= of another domain is refused (%s)", v.reason);
	free(mail);

	auth_check(&dkim_only, plain_mail, strlen(plain_mail), &v, &err);
	ok(!v.authenticated && !strcmp(v.reason, "no DKIM signature"), "dkim: no signature (%s)",
	   v.reason);

	mail = sign_headers("partial", plain_mail, "example.org", "from subject in-reply-to", &len);
	auth_check(&dkim_only, mail, len, &v, &err);
	ok(mail && !v.authenticated && strstr(v.reason, "does not cover"),
	   "dkim: h= without Message-ID does not count (%s)", v.reason);
	free(mail);
	mail = sign_headers("noreply", plain_mail, "example.org", "from message-id subject", &len);
	auth_check(&dkim_only, mail, len, &v, &err);
	ok(mail && !v.authenticated && strstr(v.reason, "does not cover"),
	   "dkim: h= without In-Reply-To or References does not count");
	free(mail);
	mail = sign_headers("refs", plain_mail, "example.org", "from message-id references", &len);
	auth_check(&dkim_only, mail, len, &v, &err);
	ok(mail && !v.authenticated && strstr(v.reason, "does not cover the mail's In-Reply-To:"),
	   "dkim: h= without the In-Reply-To the mail has does not count (%s)", v.reason);
	free(mail);
	{
		char *refs_only = strdup(plain_mail);

		p = strstr(refs_only, "In-Reply-To:");
		memmove(p, strchr(p, '\n') + 1, strlen(strchr(p, '\n') + 1) + 1);
		mail = sign_headers("refs2", refs_only, "example.org", "from message-id references", &len);
		auth_check(&dkim_only, mail, len, &v, &err);
		ok(mail && v.authenticated,
		   "dkim: h= with References alone counts for a mail without In-Reply-To");
		free(mail);
		free(refs_only);
	}

	{
		/* a second From: that the signature does not cover */
		char *two = str_printf("From: boss@example.org\n%s", plain_mail);

		mail = sign("two", plain_mail, "example.org", &len);
		free(two);
		two = str_printf("From: boss@example.org\n%s", mail);
		auth_check(&dkim_only, two, strlen(two), &v, &err);
		ok(!v.authenticated && !strcmp(v.reason, "more than one From: field"),
		   "dkim: two From: fields are refused (%s)", v.reason);
		free(two);
		free(mail);
	}
}

static void test_authserv(void)
{
	struct auth_verdict v;
	struct bb_error err = BB_ERROR_INIT;
	struct auth_policy serv = { .mode = AUTH_MODE_AUTHSERV,
				    .trusted_authserv_id = "smtp.subspace.kernel.org",
				    .dkim_key_file = key_file };
	struct auth_policy both = { .mode = AUTH_MODE_DKIM_OR_AUTHSERV,
				    .trusted_authserv_id = "smtp.subspace.kernel.org",
				    .dkim_key_file = key_file };
	char *lore, *forged, *signed_mail;
	size_t len;

	signed_mail = sign("serv", plain_mail, "example.org", &len);
	if (!signed_mail) {
		ok(0, "dkimsign signed the mail");
		return;
	}
	lore = archived(signed_mail,
			"Authentication-Results: smtp.subspace.kernel.org; arc=none smtp.client-ip=192.0.2.15\n"
			"Authentication-Results: smtp.subspace.kernel.org; dmarc=pass (p=none dis=none)"
			" header.from=example.org\n");
	auth_check(&serv, lore, strlen(lore), &v, &err);
	ok(v.authenticated && !strcmp(v.method, "authserv"), "authserv: the server's dmarc=pass counts");
	is_str(v.reason, "smtp.subspace.kernel.org: dmarc=pass header.from=example.org"
	       " (DKIM signature of example.org)", "authserv: reason");
	free(lore);

	/* the sender's own "pass" below the server's real fail */
	lore = archived("Authentication-Results: smtp.subspace.kernel.org; dmarc=pass header.from=example.org\n"
			"Authentication-Results: smtp.subspace.kernel.org; dkim=pass header.d=example.org\n",
			"Authentication-Results: smtp.subspace.kernel.org; dkim=fail header.d=example.org;"
			" spf=fail smtp.mailfrom=example.org\n");
	forged = str_printf("%s%s", lore, plain_mail);
	auth_check(&serv, forged, strlen(forged), &v, &err);
	ok(!v.authenticated, "authserv: a forged dmarc=pass below a real fail is not believed");
	is_int(v.ignored_results, 2, "authserv: the forged headers are counted as ignored");
	ok(strstr(v.reason, "reports no dmarc=pass aligned") != NULL, "authserv: reason (%s)", v.reason);
	auth_check(&both, forged, strlen(forged), &v, &err);
	ok(!v.authenticated && strstr(v.reason, "no DKIM signature"),
	   "dkim-or-authserv: both reasons given (%s)", v.reason);
	free(forged);
	free(lore);

	{
		/* lore's real layout: the list's re-injection, then the
		 * author's hop, both by the server, its milters' headers below */
		char *m = str_printf(
			"Received: from smtp.subspace.kernel.org (relay.kernel.org [52.25.139.140]) by lore.example\n"
			"Received: from localhost.localdomain by smtp.subspace.kernel.org (Postfix) with ESMTP\n"
			"Authentication-Results: smtp.subspace.kernel.org;\n"
			"X-Original-To: linux-usb@vger.kernel.org\n"
			"Received: from mail.example.org (mail.example.org [192.0.2.15])\n"
			"\t(using TLSv1.3) by smtp.subspace.kernel.org (Postfix) with ESMTPS id 4;\n"
			"\tThu, 3 Dec 2026 10:00:01 +0000\n"
			"Authentication-Results: smtp.subspace.kernel.org; arc=pass smtp.client-ip=192.0.2.15\n"
			"ARC-Authentication-Results: i=2; smtp.subspace.kernel.org; dmarc=pass header.from=example.org\n"
			"Authentication-Results: smtp.subspace.kernel.org;\n"
			"\tdkim=pass (2048-bit key) header.d=example.org header.i=@example.org\n"
			"Authentication-Results: smtp.subspace.kernel.org; spf=pass smtp.mailfrom=example.org\n"
			"Received: by mx.example.org with SMTPS\n"
			"%s", signed_mail);
		struct auth_policy dkim_counts = serv;

		auth_check(&serv, m, strlen(m), &v, &err);
		ok(!v.authenticated && strstr(v.reason, "reports no dmarc=pass"),
		   "authserv: a dkim=pass does not count unless authserv_methods names dkim (%s)",
		   v.reason);
		dkim_counts.authserv_methods = "dkim";
		auth_check(&dkim_counts, m, strlen(m), &v, &err);
		ok(v.authenticated, "authserv: lore's layout, an aligned dkim=pass in the second block");
		is_str(v.reason, "smtp.subspace.kernel.org: dkim=pass header.d=example.org",
		       "authserv: the reason names the header");
		free(m);
	}

	{
		/* sent straight to the server: no Received: of the sender's,
		 * its forged header after its From: */
		char *m = str_printf("Received: from x by smtp.subspace.kernel.org with SMTP\n"
				     "Authentication-Results: smtp.subspace.kernel.org; dkim=none\n"
				     "From: Maintainer <maintainer@example.org>\n"
				     "Authentication-Results: smtp.subspace.kernel.org; dmarc=pass"
				     " header.from=example.org\n%s", strchr(plain_mail, '\n') + 1);

		auth_check(&serv, m, strlen(m), &v, &err);
		ok(!v.authenticated && v.ignored_results == 1,
		   "authserv: an A-R after the sender's own first field is the sender's");
		free(m);
	}

	lore = archived(signed_mail, "Authentication-Results: smtp.subspace.kernel.org; dmarc=pass"
				     " header.from=author.example; dkim=pass header.d=author.example\n");
	auth_check(&serv, lore, strlen(lore), &v, &err);
	ok(!v.authenticated, "authserv: the server's pass for another From: domain does not count");
	free(lore);

	lore = archived(signed_mail, "Authentication-Results: smtp.subspace.kernel.org; dmarc=fail"
				     " header.from=example.org; dkim=pass header.d=example.org\n");
	auth_check(&serv, lore, strlen(lore), &v, &err);
	ok(!v.authenticated && strstr(v.reason, "dmarc=fail"), "authserv: dmarc=fail wins over a pass");
	free(lore);

	lore = archived(signed_mail, "Authentication-Results: other.example; dmarc=pass"
				     " header.from=example.org\n");
	auth_check(&serv, lore, strlen(lore), &v, &err);
	ok(!v.authenticated, "authserv: another authserv-id is not believed");
	ok(!v.dmarc_pass, "authserv: nor is its dmarc=pass");
	free(lore);

	/* a DMARC pass by SPF alone: no command, but the From: is the
	 * sender's (a confirmation link may go there) */
	lore = archived(plain_mail, "Authentication-Results: smtp.subspace.kernel.org; dmarc=pass"
				    " header.from=example.org; spf=pass smtp.mailfrom=example.org\n");
	auth_check(&both, lore, strlen(lore), &v, &err);
	ok(!v.authenticated && v.dmarc_pass,
	   "dkim-or-authserv: a dmarc=pass without a signature authenticates nothing, and is told");
	free(lore);
	lore = archived(plain_mail, "Authentication-Results: smtp.subspace.kernel.org; dmarc=fail"
				    " header.from=example.org\n");
	auth_check(&both, lore, strlen(lore), &v, &err);
	ok(!v.dmarc_pass, "dkim-or-authserv: dmarc=fail is no pass");
	free(lore);
	lore = archived(plain_mail, "Authentication-Results: smtp.subspace.kernel.org; dmarc=pass"
				    " header.from=author.example\n");
	auth_check(&both, lore, strlen(lore), &v, &err);
	ok(!v.dmarc_pass, "dkim-or-authserv: a pass for another From: domain is no pass");
	free(lore);

	{
		/* no Received: by the server at all: all A-Rs are the sender's */
		char *m = str_printf("Authentication-Results: smtp.subspace.kernel.org; dmarc=pass"
				     " header.from=example.org\n%s", plain_mail);

		auth_check(&serv, m, strlen(m), &v, &err);
		ok(!v.authenticated && strstr(v.reason, "no Received: header by"),
		   "authserv: no Received: by the server (%s)", v.reason);
		is_int(v.ignored_results, 1, "authserv: its A-R is ignored");
		free(m);
	}
	{
		struct auth_policy none = { .mode = AUTH_MODE_NONE };
		struct auth_policy untrusted = { .mode = AUTH_MODE_AUTHSERV };

		auth_check(&none, plain_mail, strlen(plain_mail), &v, &err);
		ok(v.authenticated && !strcmp(v.method, "none"), "none: everything passes");
		auth_check(&untrusted, plain_mail, strlen(plain_mail), &v, &err);
		ok(!v.authenticated && strstr(v.reason, "no trusted authserv-id"),
		   "authserv without an id trusts nothing");
	}
	free(signed_mail);
}

/* Item 1 of the review: what a sender puts on top of a mail it sends
 * straight to the list lands in the server's block when the server does
 * not strip it; only the methods the server writes on every mail count,
 * two results of one refuse, and a pass needs a DKIM signature fit for
 * commands (items 4 and 6: h= and l= read in authserv mode too). */
static void test_forged_on_top(void)
{
	struct auth_verdict v;
	struct bb_error err = BB_ERROR_INIT;
	struct auth_policy serv = { .mode = AUTH_MODE_AUTHSERV,
				    .trusted_authserv_id = "smtp.subspace.kernel.org",
				    .dkim_key_file = key_file };
	struct auth_policy dkim_counts = serv;
	const char *unsigned_results =
		"Authentication-Results: smtp.subspace.kernel.org; dmarc=none (p=none dis=none)"
		" header.from=example.org\n"
		"Authentication-Results: smtp.subspace.kernel.org; spf=none smtp.mailfrom=example.org\n";
	const char *pass_results =
		"Authentication-Results: smtp.subspace.kernel.org; dmarc=pass (p=none dis=none)"
		" header.from=example.org\n"
		"Authentication-Results: smtp.subspace.kernel.org; spf=pass smtp.mailfrom=example.org\n";
	char *sent, *m, *mail;
	size_t len;

	dkim_counts.authserv_methods = "dmarc,dkim";
	sent = str_printf("Authentication-Results: smtp.subspace.kernel.org; dkim=pass"
			  " header.d=example.org\n%s", plain_mail);
	m = vger(sent, unsigned_results);
	auth_check(&serv, m, strlen(m), &v, &err);
	ok(!v.authenticated && strstr(v.reason, "reports no dmarc=pass aligned"),
	   "forged on top: a dkim=pass the server never writes outside ARC does not count (%s)",
	   v.reason);
	auth_check(&dkim_counts, m, strlen(m), &v, &err);
	ok(!v.authenticated && strstr(v.reason, "no DKIM signature fit for commands (no DKIM signature)"),
	   "forged on top: counted, it still needs the mail's own signature (%s)", v.reason);
	free(m);
	free(sent);

	sent = str_printf("Authentication-Results: smtp.subspace.kernel.org; dmarc=pass"
			  " header.from=example.org\n%s", plain_mail);
	m = vger(sent, unsigned_results);
	auth_check(&serv, m, strlen(m), &v, &err);
	ok(!v.authenticated && strstr(v.reason, "conflicting Authentication-Results"),
	   "forged on top: a second dmarc= result refuses the mail (%s)", v.reason);
	free(m);
	free(sent);

	sent = str_printf("Received: from a.example by smtp.subspace.kernel.org with SMTP\n"
			  "Authentication-Results: smtp.subspace.kernel.org; dmarc=pass"
			  " header.from=example.org\n%s", plain_mail);
	m = vger(sent, unsigned_results);
	auth_check(&serv, m, strlen(m), &v, &err);
	ok(!v.authenticated && strstr(v.reason, "conflicting Authentication-Results"),
	   "forged on top: with a forged Received: by the server too (%s)", v.reason);
	free(m);
	free(sent);

	m = vger(plain_mail, pass_results);
	auth_check(&serv, m, strlen(m), &v, &err);
	ok(!v.authenticated && strstr(v.reason, "no DKIM signature fit for commands (no DKIM signature)"),
	   "a dmarc=pass by SPF alone does not authenticate (%s)", v.reason);
	free(m);

	mail = sign("vger", plain_mail, "example.org", &len);
	m = vger(mail, pass_results);
	auth_check(&serv, m, strlen(m), &v, &err);
	ok(v.authenticated, "vger's layout: dmarc=pass and a fit signature authenticate (%s)", v.reason);
	free(m);
	sent = str_printf("Authentication-Results: smtp.subspace.kernel.org; dmarc=pass"
			  " header.from=example.org\n%s", mail);
	m = vger(sent, pass_results);
	auth_check(&serv, m, strlen(m), &v, &err);
	ok(!v.authenticated && strstr(v.reason, "conflicting"),
	   "two dmarc=pass are a conflict too, whatever their values");
	free(m);
	free(sent);
	free(mail);

	mail = sign_headers("vger-partial", plain_mail, "example.org", "from subject in-reply-to references",
			    &len);
	m = vger(mail, pass_results);
	auth_check(&serv, m, strlen(m), &v, &err);
	ok(mail && !v.authenticated && strstr(v.reason, "does not cover From, Message-ID"),
	   "authserv reads h=: a signature without Message-ID does not count (%s)", v.reason);
	free(m);
	free(mail);

	mail = sign("vger-other", plain_mail, "attacker.example", &len);
	m = vger(mail, pass_results);
	auth_check(&serv, m, strlen(m), &v, &err);
	ok(!v.authenticated && strstr(v.reason, "not aligned with the From: domain"),
	   "authserv reads d=: a signature of another domain does not count (%s)", v.reason);
	free(m);
	free(mail);

	mail = sign_py("vger-l", plain_mail, "example.org", "from message-id in-reply-to references",
		       ", length=True", &len);
	m = vger(mail, pass_results);
	auth_check(&serv, m, strlen(m), &v, &err);
	ok(mail && !v.authenticated && strstr(v.reason, "only part of the body (l="),
	   "authserv reads l=: a body length does not count (%s)", v.reason);
	free(m);
	free(mail);
}

/* Items 2 to 4: one header view for the signature and the bridge (a field
 * RFC 5322 allows once, twice, never acts), the threading fields a mail
 * has must be signed, and a signed body length does not count. */
static void test_fields(void)
{
	static const char *const once[] = {
		/* the signed mail has no Sender: or Cc: (two added) */
		"From: boss@example.org", "Sender: boss@example.org\nSender: a@example.org",
		"To: x@example.net", "Cc: x@example.net\nCc: y@example.net", "Subject: [Bug 200] other",
		"Date: Fri, 04 Dec 2026 10:00:00 +0000",
		"Message-ID: <replay-1@attacker.example>", "In-Reply-To: <bug-200-c0@bugbridge.example>",
		"References: <bug-200-c0@bugbridge.example>"
	};
	struct auth_verdict v;
	struct bb_error err = BB_ERROR_INIT;
	struct auth_policy dkim_only = { .mode = AUTH_MODE_DKIM, .dkim_key_file = key_file };
	struct auth_policy serv = { .mode = AUTH_MODE_AUTHSERV,
				    .trusted_authserv_id = "smtp.subspace.kernel.org",
				    .dkim_key_file = key_file };
	char *mail, *m, *lore;
	size_t len;

	mail = sign("fields", plain_mail, "example.org", &len);
	if (!mail) {
		ok(0, "dkimsign signed the mail");
		return;
	}
	for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++) {
		char name[32];

		snprintf(name, sizeof(name), "%.*s", (int)(strchr(once[i], ':') - once[i]), once[i]);
		m = str_printf("%s\n%s", once[i], mail);
		auth_check(&dkim_only, m, strlen(m), &v, &err);
		ok(!v.authenticated && strstr(v.reason, "more than one ") &&
		   strstr(v.reason, name), "a second %s: on top of a signed mail: refused (%s)", name,
		   v.reason);
		free(m);
	}
	m = str_printf("Message-ID: <replay-1@attacker.example>\n%s", mail);
	lore = vger(m, "Authentication-Results: smtp.subspace.kernel.org; dmarc=pass"
		    " header.from=example.org\n");
	auth_check(&serv, lore, strlen(lore), &v, &err);
	is_str(v.reason, "more than one Message-ID: field", "a replay under a second Message-ID,"
	       " in authserv mode too");
	free(lore);
	free(m);
	m = str_printf("X-Note: a\nMessage-ID <replay-1@attacker.example>\n%s", mail);
	auth_check(&dkim_only, m, strlen(m), &v, &err);
	is_str(v.reason, "the header holds a line that is no field", "a header line that is no field");
	free(m);
	m = str_printf("message-id : <replay-1@attacker.example>\n%s", mail);
	auth_check(&dkim_only, m, strlen(m), &v, &err);
	is_str(v.reason, "more than one Message-ID: field", "field names in any case, blanks before ':'");
	free(m);
	free(mail);

	{
		/* signed without References: one added names another bug */
		const char *no_refs =
			"From: Maintainer <maintainer@example.org>\n"
			"To: linux-usb@vger.kernel.org\n"
			"Subject: Re: [Bug 100] USB resets\n"
			"Date: Thu, 03 Dec 2026 10:00:00 +0000\n"
			"Message-ID: <cmd-2@example.org>\n"
			"In-Reply-To: <bug-100-c0@bugbridge.example>\n"
			"\n"
			"#bugbridge close\n";

		mail = sign_headers("irt", no_refs, "example.org", "from message-id in-reply-to subject",
				    &len);
		auth_check(&dkim_only, mail, len, &v, &err);
		ok(mail && v.authenticated, "dkim: h= with In-Reply-To, the mail has no References");
		m = str_printf("References: <bug-200-c0@bugbridge.example>\n%s", mail);
		auth_check(&dkim_only, m, strlen(m), &v, &err);
		ok(!v.authenticated && strstr(v.reason, "does not cover the mail's References:"),
		   "dkim: a References: added to a signature without it is refused (%s)", v.reason);
		lore = vger(m, "Authentication-Results: smtp.subspace.kernel.org; dmarc=pass"
			    " header.from=example.org\n");
		auth_check(&serv, lore, strlen(lore), &v, &err);
		ok(!v.authenticated && strstr(v.reason, "does not cover the mail's References:"),
		   "authserv: the same (%s)", v.reason);
		free(lore);
		free(m);
		free(mail);
	}

	mail = sign_py("len", plain_mail, "example.org", "from message-id in-reply-to references",
		       ", length=True", &len);
	auth_check(&dkim_only, mail, len, &v, &err);
	ok(mail && !v.authenticated && strstr(v.reason, "only part of the body (l="),
	   "dkim: a signature with l= does not count (%s)", v.reason);
	m = str_printf("%s\n#bugbridge reopen\n", mail);
	auth_check(&dkim_only, m, strlen(m), &v, &err);
	ok(!v.authenticated && strstr(v.reason, "only part of the body"),
	   "dkim: nor with lines added after the signed length (%s)", v.reason);
	free(m);
	free(mail);
}

/* A real lore mail (a pull request from intel.com): the server wrote
 * spf=fail and dmarc=pass below its own Received: lines; its one dmarc=
 * result is read, but intel.com's signature covers no In-Reply-To or
 * References (a new thread's mail), so it could be replayed into any
 * thread: not authenticated for commands.  A policy trusting another
 * server id finds nothing it trusts. */
static void test_corpus(void)
{
	char path[8192], shared[4096];
	char *raw;
	size_t len = 0;
	struct auth_verdict v;
	struct bb_error err = BB_ERROR_INIT;
	struct auth_policy lore = { .mode = AUTH_MODE_AUTHSERV,
				    .trusted_authserv_id = "smtp.subspace.kernel.org" };
	struct auth_policy other = { .mode = AUTH_MODE_AUTHSERV, .trusted_authserv_id = "mx.example.net" };

	tap_shared_dir(shared, sizeof(shared));
	snprintf(path, sizeof(path), "%s/corpus/mail/lkml-archive/platform-driver-x86/gitpull/"
		 "9e93a8cc9a0f.eml", shared);
	if (!(raw = tap_slurp(path, &len))) {
		printf("# skipped the corpus case: %s is not readable (set BUGBRIDGE_SHARED)\n", path);
		return;
	}
	ok(auth_check(&lore, raw, len, &v, &err) == BB_OK && !v.authenticated &&
	   !strcmp(v.from_domain, "intel.com") &&
	   strstr(v.reason, "dmarc=pass, but the mail has no DKIM signature fit for commands"
			    " (the DKIM signature of intel.com does not cover From, Message-ID and"
			    " In-Reply-To or References)"),
	   "corpus: lore's dmarc=pass for a real intel.com mail, whose signature covers no thread (%s)",
	   v.reason);
	ok(auth_check(&other, raw, len, &v, &err) == BB_OK && !v.authenticated,
	   "corpus: another server id finds nothing to trust (%s)", v.reason);
	free(raw);
}

int main(void)
{
	mail_init();
	test_parser();
	test_domains();
	if (!mkdtemp(work)) {
		ok(0, "temp folder");
		return done_testing();
	}
	snprintf(key_file, sizeof(key_file), "%s/keys", work);
	ok(make_key("s1", "example.org") == 0 && make_key("s1", "attacker.example") == 0,
	   "made keys with openssl and published them");
	test_dkim();
	test_authserv();
	test_forged_on_top();
	test_fields();
	test_corpus();
	run("rm -rf %s", work);
	return done_testing();
}
