#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bugbridge export json names one person one way, wherever they appear: a
# comment's author (whether or not the import learned their name on that
# comment), the reporter, the assignee, the QA contact, an attachment's
# creator, who made a change and a person a change names, a flag's setter
# and requestee.  Where addresses
# are shown (--include-private, [mail] show_addresses) the login is the
# key, with the one real name beside it in person objects; in the public
# export a person is that name (else the login's local part), never an
# address.
. "$top_srcdir/tests/lib/common.sh"

write_config <<EOF2
[bugzilla]
url = https://bugzilla.example.org
[mail]
domain = bugbridge.test
from = Bugzilla bridge <bridge@bugbridge.test>
[routing]
default_lists = list@lists.test
EOF2

check "a command creates the store" bb outbox retry
# What an import may leave: Dev Eloper's name known on one of his comments
# only (the other came from an XML export without it), Wendy's only from
# what the bridge learnt of Bugzilla's users; the QA contact's nowhere.
python3 - "$WORK/data/bugbridge.db" <<'EOF2'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
src = "https://bugzilla.example.org"
t0 = 1796284800  # 2026-12-03
db.execute("INSERT INTO imp_bug (id, source, summary, product, component, status, severity,"
           " version, reporter, reporter_name, assigned_to, qa_contact, creation_time,"
           " last_change_time, keywords, cc, groups, flags, fields, complete, imported)"
           " VALUES (301, ?, 'usb: hub resets', 'Drivers', 'USB', 'ASSIGNED', 'normal', '6.6',"
           " 'ines@example.net', 'Ines Reporter', 'dev@example.org', 'qa.person@example.net',"
           " ?, ?, '[]', '[]', '[]', ?, '{}', 1, ?)", (src, t0, t0 + 3600,
           '[{"name": "needinfo", "status": "?", "setter": "dev@example.org",'
           ' "requestee": "wendy@example.org"}]', t0))
def comment(id, count, author, name, text):
    db.execute("INSERT INTO imp_comment (id, bug_id, count, author, author_name, time, text)"
               " VALUES (?, 301, ?, ?, ?, ?, ?)", (id, count, author, name, t0 + 60 * count, text))
comment(9501, 0, "ines@example.net", "Ines Reporter", "The hub resets every second.")
comment(9502, 1, "dev@example.org", "Dev Eloper", "Which hub?")
comment(9503, 2, "dev@example.org", "", "A comment whose author's name was not imported.")
comment(9504, 3, "wendy@example.org", "", "Wendy has no name on her comment either.")
db.execute("INSERT INTO imp_attachment (id, bug_id, file_name, summary, content_type, size,"
           " creator, time, state) VALUES (601, 301, 'lsusb.txt', 'lsusb', 'text/plain', 10,"
           " 'dev@example.org', ?, 'stored')", (t0 + 200,))
db.executemany("INSERT INTO imp_history (bug_id, seq, who, time, field, removed, added,"
               " attachment_id) VALUES (301, ?, ?, ?, ?, ?, ?, 0)",
               [(1, "wendy@example.org", t0 + 100, "assigned_to", "wendy@example.org",
                 "dev@example.org"),
                (2, "dev@example.org", t0 + 110, "status", "NEW", "ASSIGNED")])
db.execute("INSERT INTO bz_user (login, real_name, updated) VALUES"
           " ('wendy@example.org', 'Wendy Maintainer', ?)", (t0,))
db.commit()
EOF2

check "export json" bb export json -o public.json
check "export json --include-private" bb export json --include-private -o private.json
check "the public export names each person one way, by name" python3 - public.json <<'EOF2'
import json, re, sys
text = open(sys.argv[1]).read()
b = json.loads(text)["bugs"][0]
authors = [c["author"] for c in b["comments"]]
assert authors == [{"name": "Ines Reporter"}, {"name": "Dev Eloper"}, {"name": "Dev Eloper"},
                   {"name": "Wendy Maintainer"}], authors
assert b["reporter"] == {"name": "Ines Reporter"}, b["reporter"]
assert b["assigned_to"] == "Dev Eloper", b["assigned_to"]
assert b["qa_contact"] == "qa.person", b["qa_contact"]
assert b["attachments"][0]["creator"] == "Dev Eloper", b["attachments"][0]["creator"]
h = [(x["who"], x["removed"], x["added"]) for x in b["history"]]
assert h == [("Wendy Maintainer", "Wendy Maintainer", "Dev Eloper"),
             ("Dev Eloper", "NEW", "ASSIGNED")], h
f = b["flags"][0]
assert (f["setter"], f["requestee"]) == ("Dev Eloper", "Wendy Maintainer"), f
assert "@" not in re.sub(r"[^\s\"/]*@bugbridge\.test", "", text), "an address in the public export"
EOF2
check "with addresses: the login is the key, the one name beside it" python3 - private.json <<'EOF2'
import json, sys
b = json.load(open(sys.argv[1]))["bugs"][0]
authors = [c["author"] for c in b["comments"]]
assert authors == [{"login": "ines@example.net", "name": "Ines Reporter"},
                   {"login": "dev@example.org", "name": "Dev Eloper"},
                   {"login": "dev@example.org", "name": "Dev Eloper"},
                   {"login": "wendy@example.org", "name": "Wendy Maintainer"}], authors
assert b["reporter"] == {"login": "ines@example.net", "name": "Ines Reporter"}, b["reporter"]
assert b["assigned_to"] == "dev@example.org" and b["qa_contact"] == "qa.person@example.net"
assert b["attachments"][0]["creator"] == "dev@example.org"
f = b["flags"][0]
assert (f["setter"], f["requestee"]) == ("dev@example.org", "wendy@example.org"), f
h = [(x["who"], x["removed"], x["added"]) for x in b["history"]]
assert h == [("wendy@example.org", "wendy@example.org", "dev@example.org"),
             ("dev@example.org", "NEW", "ASSIGNED")], h
EOF2

done_testing
