#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Builds the list traffic of the inbound benchmark (tests/bench/bench-ingest.sh)
from the real mail corpus: COUNT mails appended to an mboxrd file, each a
corpus mail with a fresh Message-ID (the Message-ID field is replaced, every
other byte kept), taken in a fixed shuffled order, round after round.

A small share of them (--match-share, default 0.005) answer a mirrored bug:
their In-Reply-To and References name <bug-N@DOMAIN>, bugbridge's own
Message-ID of bug N's first mail, and their Subject is "Re: [Bug N] ...".
One in --command-every of those is a plain-text mail from --command-from
whose body starts with a "#bugbridge severity major" line.

Python 3 standard library only.

  bench-ingest-gen.py --corpus DIR --count N --out MBOX --domain D --bugs B
                      [--match-share F] [--command-every K] [--command-from ADDR]
                      [--seed S]

Prints one line: "mails N bytes B matched M commands C sources S".
"""
import argparse
import email.utils
import mailbox
import os
import random
import re
import sys

FROM_LINE = b"From bench-ingest@bugbridge Thu Jan  1 00:00:00 1970\n"


def corpus_messages(top):
    """Every message of the corpus as bytes: single-message files whole,
    mboxes split.  Fuzzer-made inputs (*/fuzz/*) are left out: they are not
    list traffic."""
    out = []
    for root, dirs, files in os.walk(top):
        dirs.sort()
        if os.path.basename(root) == "fuzz":
            dirs[:] = []
            continue
        for name in sorted(files):
            if not name.endswith((".eml", ".mbox", ".txt")) or name == "SOURCES.md":
                continue
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                data = f.read()
            if data.startswith(b"From "):
                box = mailbox.mbox(path, create=False)
                for key in box.keys():
                    raw = box.get_bytes(key)
                    if raw.strip():
                        out.append(raw)
                box.close()
            elif data.strip():
                out.append(data)
    return out


def split_head(raw):
    """(header lines, body) with each line keeping its line end; the empty
    line between them belongs to the body."""
    lines = raw.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line in (b"\n", b"\r\n"):
            return lines[:i], b"".join(lines[i:])
    return lines, b""


def fields(head):
    """Header lines grouped into fields (a field and its continuations)."""
    out = []
    for line in head:
        if line[:1] in (b" ", b"\t") and out:
            out[-1].append(line)
        else:
            out.append([line])
    return out


def name_of(field):
    m = re.match(rb"([^:\s]+)\s*:", field[0])
    return m.group(1).lower() if m else b""


def eol_of(raw):
    return b"\r\n" if b"\r\n" in raw[:2000] else b"\n"


def rewrite(raw, message_id, drop=(), add=(), body_prefix=b""):
    """raw with its Message-ID field replaced by message_id (added at the
    end of the header if it had none), the fields named in drop removed and
    the lines of add appended to the header."""
    eol = eol_of(raw)
    head, body = split_head(raw)
    out, done = [], False
    for f in fields(head):
        n = name_of(f)
        if n == b"message-id":
            if not done:
                out.append(b"Message-ID: <" + message_id + b">" + eol)
                done = True
            continue
        if n in drop:
            continue
        out.extend(f)
    if out and not out[-1].endswith(b"\n"):
        out[-1] += eol
    if not done:
        out.append(b"Message-ID: <" + message_id + b">" + eol)
    for line in add:
        out.append(line + eol)
    if not body:
        body = eol
    if body_prefix:
        # after the empty line that starts the body
        first = body.index(b"\n") + 1
        body = body[:first] + body_prefix.replace(b"\n", eol) + body[first:]
    return b"".join(out) + body


def plain_text(raw):
    """Whether the mail is one text/plain part without transfer encoding, so
    a command line put at the start of its body reads as written."""
    head, _ = split_head(raw)
    for f in fields(head):
        n = name_of(f)
        v = b"".join(f).lower()
        if n == b"content-type" and b"text/plain" not in v:
            return False
        if n == b"content-transfer-encoding" and (b"base64" in v or b"quoted" in v):
            return False
        if n == b"content-type" and re.search(rb"charset=\"?(utf-16|utf-32|utf-7|iso-2022)", v):
            return False
    return True


def mboxrd(raw):
    """One message as an mboxrd entry: From_ line, ">From " quoting, a
    newline at the end, the separating empty line."""
    body = re.sub(rb"(?m)^(>*From )", rb">\1", raw)
    if not body.endswith(b"\n"):
        body += b"\n"
    return FROM_LINE + body + b"\n"


def sign(raw, key, sender):
    """raw with a DKIM-Signature (python3-dkim) over From, Date, Subject,
    Message-ID, In-Reply-To and References; signed in CRLF, stored in LF as
    the archive keeps it."""
    import dkim
    domain = email.utils.parseaddr(sender)[1].rpartition("@")[2].encode()
    crlf = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    sig = dkim.sign(crlf, b"s1", domain, key,
                    include_headers=[b"from", b"date", b"subject", b"message-id",
                                     b"in-reply-to", b"references"])
    return (sig + crlf).replace(b"\r\n", b"\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--domain", required=True)
    ap.add_argument("--bugs", type=int, required=True)
    ap.add_argument("--match-share", type=float, default=0.005)
    ap.add_argument("--command-every", type=int, default=10)
    ap.add_argument("--command-from", default="Bench Lead <lead@bench.test>")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dkim-key", help="PEM key: sign the command mails (selector s1, d= the"
                    " domain of --command-from), as the sender's server would")
    a = ap.parse_args()

    dkim_key = open(a.dkim_key, "rb").read() if a.dkim_key else None
    corpus = corpus_messages(a.corpus)
    if not corpus:
        sys.exit("bench-ingest-gen: no mail in %s" % a.corpus)
    rng = random.Random(a.seed)
    order = list(range(len(corpus)))
    plain = [i for i in order if plain_text(corpus[i])]
    every = int(round(1 / a.match_share)) if a.match_share > 0 else 0
    domain = a.domain.encode()
    reply_drop = (b"in-reply-to", b"references", b"subject")
    command_drop = reply_drop + (b"from", b"sender", b"reply-to", b"date", b"authentication-results",
                                 b"arc-authentication-results", b"auto-submitted",
                                 b"precedence", b"x-autoreply", b"list-id")
    matched = commands = nbytes = 0
    pos = len(order)
    with open(a.out, "ab") as out:
        for n in range(a.count):
            if pos == len(order):
                rng.shuffle(order)
                pos = 0
            src = corpus[order[pos]]
            pos += 1
            mid = b"bench.%d.%d@ingest.example.org" % (n, order[pos - 1])
            if every and n % every == every // 2:
                bug = (n // every) % a.bugs + 1
                parent = b"bug-%d@%s" % (bug, domain)
                add = [b"In-Reply-To: <" + parent + b">", b"References: <" + parent + b">",
                       b"Subject: Re: [Bug %d] bench bug %d: firmware timeout after resume"
                       % (bug, bug)]
                if a.command_every and matched % a.command_every == 0:
                    src = corpus[plain[(n // every) % len(plain)]]
                    add.append(b"From: " + a.command_from.encode())
                    # a command acts only in a mail newer than the archive's start
                    add.append(b"Date: " + email.utils.formatdate().encode())
                    raw = rewrite(src, mid, command_drop, add,
                                  b"#bugbridge severity major\n\n")
                    if dkim_key:
                        raw = sign(raw, dkim_key, a.command_from)
                    commands += 1
                else:
                    raw = rewrite(src, mid, reply_drop, add)
                matched += 1
            else:
                raw = rewrite(src, mid)
            entry = mboxrd(raw)
            nbytes += len(entry)
            out.write(entry)
    print("mails %d bytes %d matched %d commands %d sources %d"
          % (a.count, nbytes, matched, commands, len(corpus)))


if __name__ == "__main__":
    main()
