#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A real mailing list for tests: SMTP -> public-inbox -> HTTP, on 127.0.0.1.

    /usr/bin/python3 listlab.py --dir DIR [--list test@lists.lab] [--name test]

Sets up a public-inbox v2 inbox in DIR (private HOME, PI_CONFIG, TMPDIR),
starts public-inbox-httpd on a free port, and runs an SMTP server (Debian's
python3-aiosmtpd) on another free port whose handler gives every message
addressed to the list to public-inbox-mda, so the SMTP 250 comes only once the
message is in the archive.  Mail the archive would silently drop (it lands in
PI_EMERGENCY) is answered with 550, so failures are loud.  A mail with more than one
Message-ID, which public-inbox-mda drops but lore's public-inbox-watch (fed
by vger) does not, is imported as watch imports it instead.  Every message is
also kept as DIR/received/<n>.eml with its envelope in <n>.json, so tests can
check the copies to people as well.

Writes DIR/listlab.json ({"smtp_port", "http_port", "list", "name",
"inbox_url", "pid"}) once both servers listen.  SIGTERM stops both.

With --authserv-id ID the lab is also the list's receiving server, laid out
as vger's mail reaches lore (shared/notes/kernel-conventions.md): it
verifies each list mail's DKIM signatures (python3-dkim, keys from the
--dkim-keys file of "<selector>._domainkey.<domain> <record>" lines instead
of DNS), says what SPF says (no DNS here either: the envelope sender's
domain passes when --spf-pass names it, as if its record listed the lab,
else none) and what a DMARC verifier would (RFC 7489: pass when a DKIM pass
or an SPF pass is aligned with the From: domain by the Public Suffix List,
read with libpsl as bugbridge does; otherwise fail, as if the domain
published p=none, or none for a domain --dmarc-none says publishes no
DMARC record).  On top of the mail, newest first: the list's
re-injection hop "Received: ... by ID" with its empty
"Authentication-Results: ID;" and X-Original-To, then the delivery hop
"Received: ... by ID" with its milters' "Authentication-Results: ID; arc=",
"ARC-Authentication-Results: i=N; ID; dkim=...; spf=...; dmarc=..." (the
only place its dkim= results are), and one "Authentication-Results: ID;
dmarc=" and one "...; spf=" header.  Like vger's, the server does not strip
Authentication-Results the sender wrote (RFC 8601 section 5 says it
should): they stay in the mail below, right under the server's own.
The recipe and its pitfalls: shared/notes/listlab.md.
"""
import argparse
import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

from aiosmtpd.controller import Controller


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run(cmd, env, **kw):
    return subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, **kw)


_psl = None


def org_domain(domain):
    """The organizational domain by the Public Suffix List (libpsl, the
    newer of the system's list and its built-in one, as bugbridge reads it)."""
    global _psl
    import ctypes
    import ctypes.util
    if _psl is None:
        lib = ctypes.CDLL(ctypes.util.find_library("psl") or "libpsl.so.5")
        lib.psl_latest.restype = ctypes.c_void_p
        lib.psl_latest.argtypes = [ctypes.c_char_p]
        lib.psl_registrable_domain.restype = ctypes.c_char_p
        lib.psl_registrable_domain.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        _psl = (lib, lib.psl_latest(None))
    lib, ctx = _psl
    domain = domain.lower().rstrip(".")
    org = lib.psl_registrable_domain(ctx, domain.encode()) if ctx and domain else None
    return org.decode() if org else domain


def aligned(a, b):
    return bool(a) and bool(b) and org_domain(a) == org_domain(b)


def stamp(raw, authserv_id, keys_file, listaddr, mail_from, spf_pass, no_dmarc, hop):
    """The mail as the receiving server passes it on to the archive: its two
    hops and their authentication headers on top (see the module's text)."""
    import email
    import email.utils
    import dkim

    keys = {}
    if keys_file and os.path.exists(keys_file):
        for line in open(keys_file, encoding="ascii"):
            name, _, record = line.strip().partition(" ")
            if name:
                keys[name.lower()] = record.encode()

    def lookup(name, timeout=5):
        return keys.get(name.decode().rstrip(".").lower())

    dkim_results, dkim_pass = [], []
    d = dkim.DKIM(raw)
    header = re.split(rb"\r?\n\r?\n", raw, maxsplit=1)[0]
    for i in range(len(re.findall(rb"(?im)^dkim-signature:", header))):
        try:
            good = d.verify(idx=i, dnsfunc=lookup)
        except Exception:
            good = False
        domain = (d.domain or b"").decode(errors="replace").lower()
        dkim_results.append("dkim=%s header.d=%s" % ("pass" if good else "fail", domain))
        if good:
            dkim_pass.append(domain)
    if not dkim_results:
        dkim_results.append("dkim=none")

    mf_domain = (mail_from or "").rpartition("@")[2].lower()
    spf = "pass" if mf_domain and mf_domain in spf_pass else "none"
    froms = email.message_from_bytes(header + b"\r\n\r\n").get_all("From") or []
    addrs = email.utils.getaddresses(froms)
    from_domain = addrs[0][1].rpartition("@")[2].lower() if len(addrs) == 1 else ""
    if not from_domain:
        dmarc = "dmarc=permerror"
    elif org_domain(from_domain) in no_dmarc:
        dmarc = "dmarc=none header.from=%s" % from_domain
    elif any(aligned(x, from_domain) for x in dkim_pass) or (
            spf == "pass" and aligned(mf_domain, from_domain)):
        dmarc = "dmarc=pass (p=none dis=none) header.from=%s" % from_domain
    else:
        dmarc = "dmarc=fail (p=none dis=none) header.from=%s" % from_domain
    spf_result = "spf=%s smtp.mailfrom=%s" % (spf, mf_domain or "<>")
    arc_i = len(re.findall(rb"(?im)^arc-seal:", header)) + 1
    now = email.utils.formatdate()
    head = ("Received: from localhost.localdomain (localhost.localdomain [127.0.0.1])\r\n"
            "\tby %s (listlab) with ESMTP id R%05d;\r\n\t%s\r\n" % (authserv_id, hop, now))
    head += "Authentication-Results: %s;\r\n" % authserv_id
    head += "X-Original-To: %s\r\n" % listaddr
    head += ("Received: from client.example (localhost [127.0.0.1])\r\n"
             "\tby %s (listlab) with SMTP id D%05d;\r\n\t%s\r\n" % (authserv_id, hop, now))
    head += "Authentication-Results: %s; arc=none smtp.client-ip=127.0.0.1\r\n" % authserv_id
    head += "ARC-Authentication-Results: i=%d; %s;\r\n\t%s\r\n" % (
        arc_i, authserv_id, ";\r\n\t".join(dkim_results + [spf_result, dmarc]))
    head += "Authentication-Results: %s; %s\r\n" % (authserv_id, dmarc)
    head += "Authentication-Results: %s; %s\r\n" % (authserv_id, spf_result)
    return head.encode() + raw


class Lab:
    def __init__(self, root, listaddr, name):
        self.root = os.path.abspath(root)
        self.list = listaddr
        self.name = name
        self.inbox = os.path.join(self.root, "inbox")
        self.received = os.path.join(self.root, "received")
        self.emergency = os.path.join(self.root, "emergency")
        self.count = 0
        home = os.path.join(self.root, "home")
        tmp = os.path.join(self.root, "tmp")
        for d in (home, tmp, self.received, self.emergency):
            os.makedirs(d, exist_ok=True)
        self.env = dict(os.environ, HOME=home, TMPDIR=tmp,
                        PI_CONFIG=os.path.join(home, "pi-config"),
                        PI_EMERGENCY=self.emergency, GIT_CONFIG_NOSYSTEM="1",
                        GIT_CONFIG_GLOBAL=os.path.join(home, "gitconfig"))
        self.http_port = free_port()
        self.smtp_port = None
        self.authserv_id = None
        self.dkim_keys = None
        self.spf_pass = set()
        self.no_dmarc = set()

    def setup(self):
        url = "http://127.0.0.1:%d/%s" % (self.http_port, self.name)
        run(["public-inbox-init", "-V2", "-L", "full", "--ng", self.name + ".lists.lab",
             self.name, self.inbox, url, self.list], self.env)
        run(["git", "config", "-f", self.env["PI_CONFIG"], "publicinboxmda.spamcheck",
             "none"], self.env)
        psgi = os.path.join(self.root, "app.psgi")
        with open(psgi, "w") as f:
            f.write("use strict; use PublicInbox::WWW; use Plack::Builder;\n"
                    "my $www = PublicInbox::WWW->new; $www->preload;\n"
                    "builder { enable 'Head'; sub { $www->call(@_) } };\n")
        log = open(os.path.join(self.root, "httpd.log"), "ab")
        self.httpd = subprocess.Popen(
            ["public-inbox-httpd", "-W0", "-l", "http://127.0.0.1:%d" % self.http_port, psgi],
            env=self.env, stdout=log, stderr=log)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.http_port), 0.2).close()
                return
            except OSError:
                if self.httpd.poll() is not None:
                    raise SystemExit("public-inbox-httpd exited; see httpd.log")
                time.sleep(0.05)
        raise SystemExit("public-inbox-httpd did not start")

    def emergency_count(self):
        n = 0
        for sub in ("new", "cur", "tmp"):
            d = os.path.join(self.emergency, sub)
            if os.path.isdir(d):
                n += len(os.listdir(d))
        return n

    def already_archived(self, raw):
        """Whether the inbox holds a message with raw's Message-ID and body."""
        import email
        msg = email.message_from_bytes(raw)
        mid = (msg.get("Message-ID") or "").strip().strip("<>")
        if not mid:
            return False
        out = subprocess.run(["curl", "-sf", "http://127.0.0.1:%d/%s/%s/raw"
                              % (self.http_port, self.name, mid)], capture_output=True)
        if out.returncode != 0:
            return False
        def body(b):
            b = b.replace(b"\r\n", b"\n")
            return b.split(b"\n\n", 1)[1] if b"\n\n" in b else b""
        return body(out.stdout).strip() == body(raw).strip()

    def drop_emergency_since(self, before):
        files = []
        for sub in ("new", "cur", "tmp"):
            d = os.path.join(self.emergency, sub)
            if os.path.isdir(d):
                files += [os.path.join(d, n) for n in os.listdir(d)]
        files.sort(key=os.path.getmtime)
        for f in files[before:]:
            os.unlink(f)

    def import_as_watch(self, raw):
        """What public-inbox-watch does with a mail: the inbox's importer
        adds it, without public-inbox-mda's check of one Message-ID."""
        perl = ("my $ibx = PublicInbox::Config->new->lookup_name($ARGV[0]) or die qq(no inbox\\n);"
                "my $im = PublicInbox::InboxWritable->new($ibx)->importer(0);"
                "my $eml = PublicInbox::Eml->new(do { local $/; my $s = <STDIN>; \\$s });"
                "my $r = $im->add($eml); $im->done; exit($r ? 0 : 3);")
        return subprocess.run(["perl", "-MPublicInbox::Config", "-MPublicInbox::Eml",
                               "-MPublicInbox::InboxWritable", "-e", perl, self.name],
                              input=raw, env=self.env, capture_output=True)

    async def handle_DATA(self, server, session, envelope):
        if self.authserv_id and any(r.lower() == self.list.lower() for r in envelope.rcpt_tos):
            envelope.original_content = stamp(envelope.original_content, self.authserv_id,
                                              self.dkim_keys, self.list, envelope.mail_from,
                                              self.spf_pass, self.no_dmarc, self.count + 1)
        self.count += 1
        base = os.path.join(self.received, "%06d" % self.count)
        with open(base + ".eml", "wb") as f:
            f.write(envelope.original_content)
        with open(base + ".json", "w") as f:
            json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos}, f)
        if not any(r.lower() == self.list.lower() for r in envelope.rcpt_tos):
            return "250 OK (not for the list: kept in received/ only)"
        before = self.emergency_count()
        env = dict(self.env, ORIGINAL_RECIPIENT=self.list)
        p = await asyncio.get_running_loop().run_in_executor(
            None, lambda: subprocess.run(["public-inbox-mda"], input=envelope.original_content,
                                         env=env, capture_output=True))
        if p.returncode != 0:
            return "550 public-inbox-mda refused the message (exit %d): %s" % (
                p.returncode, p.stderr.decode(errors="replace").strip()[:200])
        if self.emergency_count() != before and len(re.findall(
                rb"(?im)^message-id[ \t]*:", re.split(rb"\r?\n\r?\n", envelope.original_content,
                                                     maxsplit=1)[0])) > 1:
            w = await asyncio.get_running_loop().run_in_executor(
                None, lambda: self.import_as_watch(envelope.original_content))
            if w.returncode == 0:
                self.drop_emergency_since(before)
                return "250 OK archived (as public-inbox-watch imports it)"
        if self.emergency_count() != before:
            err = p.stderr.decode(errors="replace")
            if "CONFLICT" in err and "exists" in err and self.already_archived(
                    envelope.original_content):
                # the very message again (a sender's retry): the archive
                # keeps its copy, as a list server would; the emergency
                # copy is only noise
                self.drop_emergency_since(before)
                return "250 OK (already archived)"
            return "550 the archive dropped the message (see PI_EMERGENCY)"
        return "250 OK archived"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--list", default="test@lists.lab")
    ap.add_argument("--name", default="test")
    ap.add_argument("--authserv-id")
    ap.add_argument("--dkim-keys")
    ap.add_argument("--spf-pass", default="",
                    help="comma-separated envelope sender domains whose SPF passes")
    ap.add_argument("--dmarc-none", default="",
                    help="comma-separated domains that publish no DMARC record")
    a = ap.parse_args()
    lab = Lab(a.dir, a.list, a.name)
    lab.authserv_id = a.authserv_id
    lab.dkim_keys = a.dkim_keys
    lab.spf_pass = {x.strip().lower() for x in a.spf_pass.split(",") if x.strip()}
    lab.no_dmarc = {x.strip().lower() for x in a.dmarc_none.split(",") if x.strip()}
    lab.setup()
    controller = Controller(lab, hostname="127.0.0.1", port=free_port(),
                            data_size_limit=64 * 1024 * 1024)
    controller.start()
    lab.smtp_port = controller.port
    info = {"smtp_port": lab.smtp_port, "http_port": lab.http_port, "list": lab.list,
            "name": lab.name, "pid": os.getpid(),
            "inbox_url": "http://127.0.0.1:%d/%s" % (lab.http_port, lab.name)}
    tmp = os.path.join(lab.root, "listlab.json.tmp")
    with open(tmp, "w") as f:
        json.dump(info, f)
    os.rename(tmp, os.path.join(lab.root, "listlab.json"))

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    try:
        while not stop:
            time.sleep(0.1)
    finally:
        controller.stop()
        lab.httpd.terminate()
        try:
            lab.httpd.wait(10)
        except subprocess.TimeoutExpired:
            lab.httpd.kill()


if __name__ == "__main__":
    sys.exit(main())
