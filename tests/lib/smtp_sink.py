#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A scriptable SMTP server for bugbridge's tests (Debian's python3-aiosmtpd).

    /usr/bin/python3 smtp_sink.py --port-file F --dir D [--pid-file P] [options]

Listens on 127.0.0.1 on a free port (port 0) and writes that port to F once
it accepts connections (written to F.tmp and renamed, so a reader never sees
half a number).  Every accepted message is stored as D/<n>.eml (the message
as received, CRLF turned into LF) with its envelope in D/<n>.json:
    {"n": 1, "mail_from": "...", "rcpt_tos": [...], "mail_options": [...],
     "rcpt_options": [...], "auth_login": "user" or null, "peer": "..."}
Every command the test may care about is appended to D/events.log, one JSON
object per line (connect, auth, mail, rcpt, data, reject, drop).

Failures, from flags at start or from a control file at run time:
  --fail-rcpt CODE:N      reject every RCPT of the next N transactions
  --fail-rcpt-match ADDR  ... but only RCPTs of this address
  --fail-data CODE:N      reject the DATA of the next N messages
  --drop-after N          accept N more messages, then close the connection
                          when the next message's data has arrived, with
                          no reply (--drop-store: store that message first,
                          as a server that crashed after queueing it would)
  --auth-user U --auth-password P
                          require AUTH (PLAIN or LOGIN) before MAIL; AUTH is
                          accepted in clear too (auth_require_tls=False), so
                          a test sees a client that sends a password in
                          clear: the "auth" event says whether TLS was on
  --tls-cert FILE --tls-key FILE
                          offer STARTTLS with this certificate (PEM); a
                          "starttls" event is logged when a client takes it
The control file (--control, default D/control.json) holds a JSON object
with any of: fail_rcpt_code, fail_rcpt_count, fail_rcpt_match,
fail_data_code, fail_data_count, drop_after, drop_store.  The sink reads it
at the start of each transaction and then deletes it, so a test writes a
new one (to a temporary name, then renamed) for every change; values given
replace the current ones.  Codes 4xx are temporary, 5xx permanent.

SIGTERM (or SIGINT) stops the server, and so does the end of the process
that started it.
"""

import argparse
import asyncio
import ssl
import json
import logging
import os
import signal
import sys
import warnings

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def parse_code_count(text):
    code, _, count = text.partition(":")
    return int(code), int(count or "1")


def write_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)


class Sink:
    def __init__(self, args):
        self.dir = args.dir
        self.control = args.control or os.path.join(args.dir, "control.json")
        self.count = 0
        self.fail_rcpt_code, self.fail_rcpt_count = (
            parse_code_count(args.fail_rcpt) if args.fail_rcpt else (0, 0))
        self.fail_rcpt_match = args.fail_rcpt_match
        self.fail_data_code, self.fail_data_count = (
            parse_code_count(args.fail_data) if args.fail_data else (0, 0))
        self.drop_after = args.drop_after if args.drop_after is not None else -1
        self.drop_store = args.drop_store
        self.user = args.auth_user
        self.password = args.auth_password
        # the scripted failure of the current transaction, per connection
        self.failing = {}

    # --- bookkeeping ---------------------------------------------------
    def event(self, kind, **fields):
        fields["event"] = kind
        with open(os.path.join(self.dir, "events.log"), "a") as f:
            f.write(json.dumps(fields, sort_keys=True) + "\n")

    def read_control(self):
        try:
            with open(self.control) as f:
                ctl = json.load(f)
            os.unlink(self.control)
        except FileNotFoundError:
            return
        except (OSError, ValueError) as e:
            self.event("control-error", error=str(e))
            return
        for key in ("fail_rcpt_code", "fail_rcpt_count", "fail_rcpt_match",
                    "fail_data_code", "fail_data_count", "drop_after",
                    "drop_store"):
            if key in ctl:
                setattr(self, key, ctl[key])
        self.event("control", **ctl)

    @staticmethod
    def reply(code, what):
        if 400 <= code < 500:
            return "%d 4.3.0 sink: %s deferred, try again later" % (code, what)
        return "%d 5.7.1 sink: %s rejected for good" % (code, what)

    # --- aiosmtpd handler hooks ----------------------------------------
    def handle_STARTTLS(self, server, session, envelope):
        # called by aiosmtpd after the handshake (not a coroutine)
        self.event("starttls")
        return True

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        self.read_control()
        fail_rcpt = 0
        if self.fail_rcpt_count > 0:
            self.fail_rcpt_count -= 1
            fail_rcpt = self.fail_rcpt_code
        self.failing[id(server)] = fail_rcpt
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        self.event("mail", address=address, options=mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        code = self.failing.get(id(server), 0)
        if code and (not self.fail_rcpt_match or self.fail_rcpt_match == address):
            self.event("reject", stage="rcpt", address=address, code=code)
            return self.reply(code, "recipient <%s>" % address)
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        self.event("rcpt", address=address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.drop_after == 0:
            self.drop_after = -1
            stored = self.store(session, envelope) if self.drop_store else None
            self.event("drop", stored=stored)
            server.transport.abort()
            return "421 4.3.0 sink: dropping the connection"
        if self.fail_data_count > 0:
            self.fail_data_count -= 1
            self.event("reject", stage="data", code=self.fail_data_code)
            return self.reply(self.fail_data_code, "message")
        n = self.store(session, envelope)
        if self.drop_after > 0:
            self.drop_after -= 1
        return "250 2.0.0 OK: stored as %d" % n

    def store(self, session, envelope):
        self.count += 1
        n = self.count
        content = envelope.original_content or envelope.content or b""
        if isinstance(content, str):
            content = content.encode("utf-8", "surrogateescape")
        content = content.replace(b"\r\n", b"\n")
        write_atomic(os.path.join(self.dir, "%d.eml" % n), content)
        meta = {
            "n": n,
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "mail_options": envelope.mail_options,
            "rcpt_options": envelope.rcpt_options,
            "auth_login": (session.auth_data.login.decode("utf-8", "replace")
                           if isinstance(session.auth_data, LoginPassword) else None),
            "peer": str(session.peer),
        }
        write_atomic(os.path.join(self.dir, "%d.json" % n),
                     (json.dumps(meta, sort_keys=True) + "\n").encode())
        self.event("data", n=n, mail_from=envelope.mail_from, rcpt_tos=envelope.rcpt_tos)
        return n

    def authenticate(self, server, session, envelope, mechanism, auth_data):
        good = (isinstance(auth_data, LoginPassword)
                and auth_data.login.decode("utf-8", "replace") == self.user
                and auth_data.password.decode("utf-8", "replace") == self.password)
        self.event("auth", mechanism=mechanism, success=good,
                   tls=session.ssl is not None,
                   login=(auth_data.login.decode("utf-8", "replace")
                          if isinstance(auth_data, LoginPassword) else None))
        return AuthResult(success=good, handled=False,
                          auth_data=auth_data if good else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--pid-file")
    ap.add_argument("--control")
    ap.add_argument("--fail-rcpt", metavar="CODE:N")
    ap.add_argument("--fail-rcpt-match", metavar="ADDR")
    ap.add_argument("--fail-data", metavar="CODE:N")
    ap.add_argument("--drop-after", type=int, metavar="N")
    ap.add_argument("--drop-store", action="store_true")
    ap.add_argument("--auth-user")
    ap.add_argument("--auth-password")
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    args = ap.parse_args()
    # AUTH without TLS is what the tests want; keep stderr for real trouble.
    warnings.filterwarnings("ignore")
    logging.getLogger("mail.log").setLevel(logging.ERROR)
    os.makedirs(args.dir, exist_ok=True)

    sink = Sink(args)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    auth = bool(args.auth_user)
    tls = None
    if args.tls_cert:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(args.tls_cert, args.tls_key)

    def factory():
        return SMTP(sink, hostname="sink.test", loop=loop,
                    auth_required=auth, auth_require_tls=False,
                    authenticator=sink.authenticate if auth else None,
                    tls_context=tls, require_starttls=False)

    server = loop.run_until_complete(
        loop.create_server(factory, host="127.0.0.1", port=0))
    port = server.sockets[0].getsockname()[1]

    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))

    # A test that crashed never sends SIGTERM: stop once the parent is gone.
    parent = os.getppid()

    async def watch_parent():
        while not stop.done():
            if os.getppid() != parent:
                stop.set_result(None)
                break
            await asyncio.sleep(1)

    watcher = loop.create_task(watch_parent())

    if args.pid_file:
        write_atomic(args.pid_file, b"%d\n" % os.getpid())
    sink.event("listening", port=port)
    write_atomic(args.port_file, b"%d\n" % port)
    try:
        loop.run_until_complete(stop)
    finally:
        watcher.cancel()
        server.close()
        loop.run_until_complete(server.wait_closed())
        loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
