# SPDX-License-Identifier: GPL-2.0-or-later
"""A list archive as the tests' bridge reads it over HTTP ([archive] kind =
atom): static files under ROOT/LIST (new.atom, <msgid>/raw), served by a
threaded server on 127.0.0.1 (tests/lib/atom_archive.sh starts and feeds it).

  atom_archive.py serve ROOT PORT_FILE
      serves ROOT; writes the port to PORT_FILE (renamed into place) once
      listening
  atom_archive.py reply ROOT/LIST URL FROM MSGID PARENT BODY
      adds a reply to PARENT (a bridge Message-ID, bug-<n>[-...]@...) from
      FROM with BODY, and puts it first in new.atom; its Subject is
      $ATOM_REPLY_SUBJECT with {bug} replaced by the bug's number (default
      "Re: [Bug {bug}] bug {bug}")
"""
import email.utils
import functools
import http.server
import os
import re
import sys
import time
from email.message import EmailMessage


def serve(root, port_file):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                          functools.partial(Quiet, directory=root))
    with open(port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    srv.serve_forever()


def reply(root, url, frm, mid, parent, body):
    m = EmailMessage()
    m["From"], m["To"] = frm, "list@lists.test"
    found = re.search(r"bug-([0-9]+)", parent)   # a reply to a digest names none
    bug = found.group(1) if found else "0"
    subject = os.environ.get("ATOM_REPLY_SUBJECT", "Re: [Bug {bug}] bug {bug}")
    m["Subject"] = subject.replace("{bug}", bug)
    m["Date"] = email.utils.formatdate(time.time() + 5)
    m["Message-ID"] = "<%s>" % mid
    m["In-Reply-To"] = m["References"] = "<%s>" % parent
    m.set_content(body)
    os.makedirs(os.path.join(root, mid))
    with open(os.path.join(root, mid, "raw"), "wb") as f:
        f.write(m.as_bytes())
    order = os.path.join(root, "order")
    ids = open(order).read().split() if os.path.exists(order) else []
    ids.append(mid)
    with open(order, "w") as f:
        f.write("\n".join(ids))
    entries = "".join('<entry><id>urn:msg:%s</id><link href="%s/%s/"/></entry>' % (i, url, i)
                      for i in reversed(ids))
    with open(os.path.join(root, "new.atom.tmp"), "w") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
                "<title>list</title>%s</feed>\n" % entries)
    os.rename(os.path.join(root, "new.atom.tmp"), os.path.join(root, "new.atom"))


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"] and len(sys.argv) == 4:
        serve(*sys.argv[2:4])
    elif sys.argv[1:2] == ["reply"] and len(sys.argv) == 8:
        reply(*sys.argv[2:8])
    else:
        sys.exit(__doc__)
