#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The baseline of the inbound benchmark (tests/bench/bench-ingest.sh): what a
mail bot built on Python's standard `email` package does with each mail of
an mboxrd file - parse it, look up Message-ID, In-Reply-To, References,
From and Subject, and extract the text body.

  bench-ingest-py.py MBOX default|compat32

  default   email.message_from_bytes(raw, policy=email.policy.default) (the
            modern EmailMessage API); body: get_body(preferencelist=
            ('plain',)).get_content(), else the first text part
  compat32  email.message_from_bytes(raw) (the legacy default policy);
            body: the first text/plain leaf found by walk(),
            get_payload(decode=True) decoded with its charset

The mbox is read in 8 MiB chunks and split at lines starting "From "
(mboxrd: a body line "From " is always quoted), ">From" unquoted, so the
split costs little next to the parse.  Prints one line:
  "mails N seconds S ids I bodies T errors E"
(seconds: the loop, without interpreter start-up; ids: mails with a
Message-ID; bodies: mails with a non-empty text body).
"""
import email
import email.policy
import re
import sys
import time

UNQUOTE = re.compile(rb"(?m)^>(>*From )")


def body_default(msg):
    part = msg.get_body(preferencelist=("plain",))
    if part is None:
        for p in msg.walk():
            if p.get_content_maintype() == "text":
                part = p
                break
    if part is None:
        return ""
    try:
        return part.get_content()
    except (LookupError, UnicodeError, AssertionError, KeyError):
        payload = part.get_payload(decode=True) or b""
        return payload.decode("utf-8", "replace")


def body_compat32(msg):
    for p in msg.walk():
        if p.get_content_type() == "text/plain" and not p.is_multipart():
            payload = p.get_payload(decode=True) or b""
            charset = p.get_content_charset() or "us-ascii"
            try:
                return payload.decode(charset, "replace")
            except LookupError:
                return payload.decode("utf-8", "replace")
    return ""


def messages(path):
    """Each message of the mboxrd file, as bytes."""
    rest = b""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(8 << 20)
            if not chunk:
                break
            parts = (rest + chunk).split(b"\nFrom ")
            rest = parts.pop()
            for p in parts:
                yield p
    if rest:
        yield rest[:-1] if rest.endswith(b"\n\n") else rest


def main():
    path, policy = sys.argv[1], sys.argv[2]
    if policy == "default":
        parse = lambda raw: email.message_from_bytes(raw, policy=email.policy.default)
        body = body_default
    elif policy == "compat32":
        parse = email.message_from_bytes
        body = body_compat32
    else:
        sys.exit("usage: bench-ingest-py.py MBOX default|compat32")
    n = ids = bodies = errors = 0
    start = time.monotonic()
    for chunk in messages(path):
        nl = chunk.find(b"\n")     # the rest of the From_ line
        raw = UNQUOTE.sub(rb"\1", chunk[nl + 1:])
        n += 1
        try:
            msg = parse(raw)
            mid = msg["Message-ID"]
            msg["In-Reply-To"]
            msg["References"]
            msg["From"]
            msg["Subject"]
            text = body(msg)
        except Exception:          # a bot must survive any mail
            errors += 1
            continue
        ids += bool(mid and str(mid).strip())
        bodies += bool(text and text.strip())
    seconds = time.monotonic() - start
    print("mails %d seconds %.3f ids %d bodies %d errors %d"
          % (n, seconds, ids, bodies, errors))


if __name__ == "__main__":
    main()
