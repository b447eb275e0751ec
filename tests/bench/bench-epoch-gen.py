#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes a `git fast-import` stream of one public-inbox v2 epoch to stdout
(tests/bench/bench-epoch.sh): COUNT mails (argv[2]) made from the real
mails (*.eml) under the folder argv[1], one commit per mail with the mail as
the blob `m` at the root of its tree, as public-inbox v2 stores them.  With
argv[3] "v1", a v1 inbox instead: each commit adds its mail as the file
<xx>/<38 hex> named by the SHA-1 of its Message-ID, and the files stay.

Each mail keeps a real mail's headers and body; its Message-ID, Subject,
Date, In-Reply-To and References are replaced so that every mail is
distinct, and about two in three reply to an earlier mail (threads form).
The stream is the same for the same corpus and count (a fixed seed)."""
import hashlib
import os
import random
import sys

REPLACED = (b"message-id", b"subject", b"date", b"in-reply-to", b"references")


def templates(folder):
    out = []
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if not name.endswith(".eml"):
                continue
            with open(os.path.join(root, name), "rb") as f:
                data = f.read().replace(b"\r\n", b"\n")
            head, sep, body = data.partition(b"\n\n")
            if not sep or len(data) > 512 * 1024:
                continue
            kept, skip = [], False
            for line in head.split(b"\n"):
                if line[:1] in (b" ", b"\t"):
                    if not skip:
                        kept.append(line)
                    continue
                skip = line.split(b":", 1)[0].strip().lower() in REPLACED
                if not skip and not line.startswith(b"From "):
                    kept.append(line)
            subject = b"mail"
            for line in head.split(b"\n"):
                if line.lower().startswith(b"subject:"):
                    subject = line[8:].strip() or subject
                    break
            out.append((b"\n".join(kept), subject, body))
    out.sort(key=lambda t: (t[1], len(t[2])))
    return out


def main():
    folder, count = sys.argv[1], int(sys.argv[2])
    v1 = len(sys.argv) > 3 and sys.argv[3] == "v1"
    mails = templates(folder)
    if not mails:
        sys.exit("bench-epoch-gen: no .eml mails under %s" % folder)
    rnd = random.Random(14)
    out = sys.stdout.buffer
    base = 1700000000
    roots = []   # (message-id, subject) of recent thread starters
    ids = []
    for i in range(count):
        head, subject, body = mails[rnd.randrange(len(mails))]
        msgid = b"<bench.%d.%x@bench.test>" % (i, rnd.getrandbits(32))
        t = base + i * 37
        date = b"Date: %s" % _date(t)
        if roots and rnd.random() < 0.66:
            parent_i = max(0, len(ids) - 1 - int(rnd.expovariate(1 / 30.0)))
            parent = ids[parent_i]
            root_id, root_subject = roots[rnd.randrange(max(0, len(roots) - 40), len(roots))]
            subj = b"Subject: Re: " + root_subject
            thread = b"In-Reply-To: %s\nReferences: %s %s" % (parent, root_id, parent)
        else:
            root_subject = b"[%d] " % i + subject
            roots.append((msgid, root_subject))
            subj = b"Subject: " + root_subject
            thread = None
        ids.append(msgid)
        lines = [head, b"Message-ID: " + msgid, subj, date]
        if thread:
            lines.append(thread)
        mail = b"\n".join(lines) + b"\n\n" + body
        out.write(b"blob\nmark :%d\ndata %d\n" % (2 * i + 1, len(mail)))
        out.write(mail)
        out.write(b"\ncommit refs/heads/master\nmark :%d\n" % (2 * i + 2))
        who = b"bench <bench@bench.test> %d +0000\n" % t
        out.write(b"author " + who + b"committer " + who)
        msg = b"mail %d\n" % i
        out.write(b"data %d\n" % len(msg) + msg)
        if i:
            out.write(b"from :%d\n" % (2 * i))
        if v1:
            h = hashlib.sha1(msgid[1:-1]).hexdigest().encode()
            path = h[:2] + b"/" + h[2:]
        else:
            path = b"m"
        out.write(b"M 100644 :%d %s\n\n" % (2 * i + 1, path))
    out.write(b"done\n")


def _date(t):
    import email.utils
    return email.utils.formatdate(t, usegmt=True).encode()


if __name__ == "__main__":
    main()
