#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bugbridge export: an imported Bugzilla (imp_* rows) becomes mbox threads
# that a real public-inbox archives, a redirect map, CSV and JSON; nothing
# private gets out.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

listlab_start

write_config <<EOF2
[bugzilla]
first_sync = all
backfill_confirm = 100000
url = https://bugzilla.example.org
[mail]
domain = bugbridge.test
from = Bugzilla bridge <bridge@bugbridge.test>
[routing]
default_lists = $LISTLAB_LIST
[blob]
base_url = http://blobs.test
[archive]
link_url = $LISTLAB_URL
EOF2

check "a command creates the store" bb status
random_bytes 3000 7 >fw.bin
printf 'PRIVATE-ATTACHMENT-TEXT\n' >secret.txt
fw_hash=$(sha256_of fw.bin)
secret_hash=$(sha256_of secret.txt)
check "the attachment goes into the blob store" bb blob put fw.bin
check "and the private one" bb blob put secret.txt

# What `bugbridge import` leaves: bug 201 public (a private comment, a reply
# to comment 1 with lines an mbox must quote, an attachment, a private
# attachment), 202 restricted, 203 public, 204 still being imported.
python3 - "$WORK/data/bugbridge.db" "$fw_hash" "$secret_hash" <<'EOF2'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
fw, secret = sys.argv[2], sys.argv[3]
src = "https://bugzilla.example.org"
t0 = 1796284800  # 2026-12-03
def bug(id, summary, groups="[]", complete=1, **kw):
    db.execute("INSERT INTO imp_bug (id, source, summary, product, component, status,"
               " severity, version, reporter, reporter_name, creation_time, last_change_time,"
               " keywords, cc, groups, flags, fields, complete, imported)"
               " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
               (id, src, summary, "Drivers", "Wireless", "NEW", "normal", "6.6",
                "ines@example.net", "Ines Reporter", t0, t0 + 3600, '["regression"]',
                '["dev@example.org"]', groups,
                '[{"name": "needinfo", "status": "?", "setter": "dev@example.org", "requestee": "ines@example.net"}]',
                '{"cf_kernel_version": "6.6.1", "cf_tree": ["mainline", "stable"]}',
                complete, t0))
def comment(id, bug_id, count, text, private=0, att=0, author="ines@example.net", name="Ines Reporter"):
    db.execute("INSERT INTO imp_comment (id, bug_id, count, author, author_name, time, text,"
               " is_private, attachment_id) VALUES (?,?,?,?,?,?,?,?,?)",
               (id, bug_id, count, author, name, t0 + 60 * count, text, private, att))
bug(201, "iwlwifi: firmware crash after resume")
comment(9001, 201, 0, "Wi-Fi dies after every resume since 6.6.1.")
comment(9002, 201, 1, "Which firmware file?", author="dev@example.org", name="Dev Eloper")
comment(9003, 201, 2, "PRIVATE-SECRET-NOTE do not export", private=1, att=502,
        author="dev@example.org", name="Dev Eloper")
comment(9004, 201, 3, "(In reply to Dev Eloper from comment #1)\n> Which firmware file?\n\n"
        "From the start it was iwlwifi-ty-a0-gf-a0-83.ucode.\n>From a quoted line\n",
        att=501)
db.execute("INSERT INTO imp_attachment (id, bug_id, file_name, summary, content_type, size,"
           " creator, time, blob_hash, state) VALUES (501, 201, 'fw.bin', 'firmware dump',"
           " 'application/octet-stream', 3000, 'ines@example.net', ?, ?, 'stored')", (t0 + 180, fw))
db.execute("INSERT INTO imp_attachment (id, bug_id, file_name, summary, content_type, size,"
           " creator, time, is_private, blob_hash, state) VALUES (502, 201, 'secret.txt',"
           " 'PRIVATE-ATTACHMENT-SUMMARY', 'text/plain', 24, 'dev@example.org', ?, 1, ?, 'stored')",
           (t0 + 120, secret))
db.executemany("INSERT INTO imp_history (bug_id, seq, who, time, field, removed, added,"
               " attachment_id) VALUES (?,?,?,?,?,?,?,?)",
               [(201, 1, "dev@example.org", t0 + 100, "status", "NEW", "ASSIGNED", 0),
                (201, 2, "dev@example.org", t0 + 130, "attachments.description", "",
                 "PRIVATE-HISTORY", 502)])
bug(202, "EMBARGOED security bug", groups='["security"]')
comment(9101, 202, 0, "EMBARGOED details")
bug(203, "usb: hub resets in a loop")
comment(9201, 203, 0, "The hub resets every second.")
bug(204, "half imported bug", complete=0)
comment(9301, 204, 0, "HALF-IMPORTED text")
db.commit()
EOF2

# ------------------------------------------------------------------- mbox
check "export mbox" bb export mbox out
is "one mbox per exported bug" "$(cd out && ls | tr '\n' ' ')" "bug-201.mbox bug-203.mbox "
is "bug 201 has three mails (the private comment is left out)" \
	"$(grep -c '^From mboxrd@z ' out/bug-201.mbox)" "3"
is "Message-IDs are the bridge's" \
	"$(grep -i '^Message-ID:' out/bug-201.mbox | sed 's/^[^:]*: *//' | tr '\n' ' ')" \
	"<bug-201@bugbridge.test> <bug-201-c1@bugbridge.test> <bug-201-c3@bugbridge.test> "
like "mboxrd quoting of From lines" "$(cat out/bug-201.mbox)" '^>From the start'
like "and of quoted From lines" "$(cat out/bug-201.mbox)" '^>>From a quoted line'
unlike "no private text in the mbox" "$(cat out/*.mbox)" 'PRIVATE|EMBARGOED|HALF-IMPORTED|secret.txt'
unlike "no MIME attachments" "$(cat out/*.mbox)" 'multipart|Content-Disposition: attachment'
like "the attachment as a blob link" "$(cat out/bug-201.mbox)" "URL: +http://blobs.test/blob/sha256/$fw_hash/fw.bin"
like "with its hash" "$(cat out/bug-201.mbox)" "Hash: +sha256:$fw_hash"
cp out/bug-201.mbox first-201.mbox
check "a second export" bb export mbox out
check "writes the same bytes" cmp out/bug-201.mbox first-201.mbox
rm -rf one
check "export mbox --bug 203" bb export mbox --bug 203 one
is "writes only that bug" "$(ls one | tr '\n' ' ')" "bug-203.mbox "
check_exit "a restricted bug is refused" 66 bb export mbox --bug 202 one
check_exit "so is an unknown one" 66 bb export mbox --bug 999 one
check_exit "an unknown format is a usage error" 64 bb export pdf one
is "nothing but the mbox files is left in the folder" "$(ls out | tr '\n' ' ')" "bug-201.mbox bug-203.mbox "

# Into the archive: every mail through SMTP to public-inbox-mda.
check "the archive takes every mail" /usr/bin/python3 - "$LISTLAB_SMTP_PORT" "$LISTLAB_LIST" out/bug-201.mbox out/bug-203.mbox <<'EOF2'
import re, smtplib, sys
port, lst = int(sys.argv[1]), sys.argv[2]
msgs = []
for path in sys.argv[3:]:
    cur = None
    for line in open(path, "rb").read().split(b"\n"):
        if line.startswith(b"From mboxrd@z "):
            if cur is not None:
                msgs.append(cur)
            cur = []
            continue
        cur.append(re.sub(rb"^>(>*From )", rb"\1", line))
    msgs.append(cur)
with smtplib.SMTP("127.0.0.1", port) as s:
    for m in msgs:
        while m and m[-1] == b"":
            m.pop()
        s.sendmail("bridge@bugbridge.test", [lst], b"\r\n".join(m) + b"\r\n")
print(len(msgs), "mails sent")
EOF2
thread_count() {
	curl -sf "$LISTLAB_URL/$1/t.mbox.gz" | gzip -dc | grep -ci '^Message-ID:'
}
is "bug 201 is one thread of three in the archive" "$(thread_count bug-201@bugbridge.test)" "3"
is "bug 203 a thread of one" "$(thread_count bug-203@bugbridge.test)" "1"
raw=$(listlab_raw bug-201-c3@bugbridge.test)
like "the reply answers comment 1" "$raw" "In-Reply-To: <bug-201-c1@bugbridge.test>"
like "with the thread's root in References" "$raw" "References: <bug-201@bugbridge.test>"
like "its From line came through unquoted" "$(cat "$WORK"/listlab/received/*.eml)" '^From the start'
check_exit "the private comment is not in the archive" 22 curl -sf -o /dev/null "$LISTLAB_URL/bug-201-c2@bugbridge.test/raw"
is "four mails in the archive" "$(ls "$WORK"/listlab/received/*.eml | wc -l)" "4"
is "nothing fell into public-inbox's emergency folder" "$(find "$WORK/listlab/emergency" -type f | wc -l)" "0"
unlike "no private text in the archive" "$(cat "$WORK"/listlab/received/*.eml)" 'PRIVATE|EMBARGOED'

# -------------------------------------------------------------- redirects
check "export redirects" bb export redirects --prefix / --prefix /bugzilla/ --prefix /bz redir
check "the nginx map parses and says what it should" python3 - redir/redirects.map "$LISTLAB_URL" "$fw_hash" <<'EOF2'
import re, sys
text = open(sys.argv[1]).read()
url, fw = sys.argv[2], sys.argv[3]
body = [l for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")]
assert body[0] == 'map "$uri?id=$arg_id" $bugbridge_new {', body[0]
assert body[-1] == "}", body[-1]
entries = {}
for line in body[1:-1]:
    m = re.fullmatch(r'\s+("(?:[^"\\]|\\.)*"|default)\s+"((?:[^"\\]|\\.)*)";', line)
    assert m, "bad map line: %r" % line
    key = m.group(1).strip('"')
    assert key not in entries, "duplicate key " + key
    entries[key] = m.group(2)
assert entries.pop("default") == ""
want = {}
for p in ("", "/bugzilla", "/bz"):
    want[p + "/show_bug.cgi?id=201"] = url + "/bug-201@bugbridge.test/"
    want[p + "/show_bug.cgi?id=203"] = url + "/bug-203@bugbridge.test/"
    want[p + "/attachment.cgi?id=501"] = "http://blobs.test/blob/sha256/%s/fw.bin" % fw
assert entries == want, entries
EOF2
check "the CSV parses and says what it should" python3 - redir/redirects.csv "$LISTLAB_URL" <<'EOF2'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["old_url", "new_url", "kind", "bug_id", "attachment_id"], rows[0]
got = {r[0]: (r[1], r[2], r[3], r[4]) for r in rows[1:]}
assert len(rows) == 4, rows
b = "https://bugzilla.example.org"
assert got[b + "/show_bug.cgi?id=201"] == (sys.argv[2] + "/bug-201@bugbridge.test/", "bug", "201", "")
assert got[b + "/attachment.cgi?id=501"][1:] == ("attachment", "201", "501")
assert b + "/show_bug.cgi?id=202" not in got and b + "/attachment.cgi?id=502" not in got
EOF2
link=$(grep -F '"/show_bug.cgi?id=203"' redir/redirects.map | sed 's/.* "\(.*\)";/\1/')
check "the new home of bug 203 is its thread in the archive" curl -sf -o /dev/null "$link"
check "the default prefixes" bb export redirects redir2
like "are / and /bugzilla" "$(cat redir2/redirects.map)" '"/bugzilla/show_bug.cgi\?id=201"'
if command -v nginx >/dev/null 2>&1; then
	mkdir -p ngx
	printf 'pid %s/ngx/pid;\nerror_log %s/ngx/err.log;\nevents {}\nhttp {\n include %s/redir/redirects.map;\n server { listen 127.0.0.1:1; if ($bugbridge_new) { return 301 $bugbridge_new; } }\n}\n' \
		"$WORK" "$WORK" "$WORK" >ngx/nginx.conf
	check "nginx accepts the map" nginx -t -q -p "$WORK/ngx" -c "$WORK/ngx/nginx.conf"
fi

# ------------------------------------------------------------------- json
# the structure an import keeps: 201 depends on the restricted 202 and on
# 203, has two aliases and a QA contact; 204 is a row of an import before
# schema 9 (alias '')
python3 - "$WORK/data/bugbridge.db" <<'EOF2'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE imp_bug SET depends_on = '[202,203]', alias = '[\"iwl-resume\",\"fw-crash\"]',"
           " qa_contact = 'qa.person@example.net', target_milestone = '6.8', op_sys = 'Linux',"
           " platform = 'x86_64' WHERE id = 201")
db.execute("UPDATE imp_bug SET blocks = '[201]', alias = '[]' WHERE id IN (202, 203)")
db.commit()
EOF2
check "export json" bb export json -o all.json
check "the JSON carries the structure, the QA contact by name" python3 - all.json <<'EOF2'
import json, sys
text = open(sys.argv[1]).read()
b = {x["id"]: x for x in json.loads(text)["bugs"]}
got = {k: b[201][k] for k in ("depends_on", "blocks", "alias", "qa_contact", "target_milestone", "op_sys", "platform")}
assert got == {"depends_on": [202, 203], "blocks": [], "alias": ["iwl-resume", "fw-crash"],
               "qa_contact": "qa.person", "target_milestone": "6.8", "op_sys": "Linux",
               "platform": "x86_64"}, got
assert b[203]["blocks"] == [201] and b[203]["depends_on"] == [] and b[203]["qa_contact"] == ""
assert b[204]["alias"] == [] and b[204]["depends_on"] == [] and b[204]["blocks"] == []
assert 202 not in b and "EMBARGOED" not in text and "qa.person@" not in text
EOF2
check "with show_addresses or --include-private: the QA contact's address" sh -c \
	"'$BUGBRIDGE' export json --include-private | grep -q '\"qa_contact\": \"qa.person@example.net\"'"
check "the JSON says what it should and nothing private" python3 - all.json "$fw_hash" <<'EOF2'
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text)
assert d["version"] == 1 and d["include_private"] is False
ids = [b["id"] for b in d["bugs"]]
assert ids == [201, 203, 204], ids
assert d["count"] == 3
b = d["bugs"][0]
assert [c["count"] for c in b["comments"]] == [0, 1, 3]
assert [c["message_id"] for c in b["comments"]] == ["bug-201@bugbridge.test", "bug-201-c1@bugbridge.test", "bug-201-c3@bugbridge.test"]
assert len(b["attachments"]) == 1 and b["attachments"][0]["hash"] == "sha256:" + sys.argv[2]
assert b["attachments"][0]["url"].endswith("/fw.bin")
assert [h["field"] for h in b["history"]] == ["status"]
assert b["keywords"] == ["regression"] and b["cc_count"] == 1 and "cc" not in b
assert b["flags"][0]["name"] == "needinfo" and b["fields"]["cf_tree"] == ["mainline", "stable"]
assert b["bugzilla_url"] == "https://bugzilla.example.org/show_bug.cgi?id=201"
assert "groups" not in b
assert d["bugs"][2]["complete"] is False and d["bugs"][2]["message_id"] is None
for word in ("PRIVATE", "EMBARGOED", "secret.txt"):
    assert word not in text, word
EOF2
check "export json --include-private" sh -c "'$BUGBRIDGE' export json --include-private >private.json"
check "has everything, marked" python3 - private.json <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["include_private"] is True
assert [b["id"] for b in d["bugs"]] == [201, 202, 203, 204]
b = d["bugs"][0]
assert [c["is_private"] for c in b["comments"]] == [False, False, True, False]
assert b["comments"][2]["message_id"] is None
assert [a["is_private"] for a in b["attachments"]] == [False, True]
assert d["bugs"][1]["restricted"] is True and d["bugs"][1]["groups"] == ["security"]
assert b["cc"] == ["dev@example.org"]
EOF2
check "export json --bug 203" sh -c "'$BUGBRIDGE' export json --bug 203 >one.json"
is "holds that bug" "$(python3 -c 'import json,sys; print([b["id"] for b in json.load(open(sys.argv[1]))["bugs"]])' one.json)" "[203]"
check_exit "--bug of a restricted bug" 66 bb export json --bug 202
check_exit "-o is for json only" 64 bb export mbox -o x out

# ------------------------------------------- the same mails as the bridge
# Bug 301 mirrored by `bugbridge sync` from the fake Bugzilla, then imported
# (imp_* rows from the same REST answers) and exported: the same mails.
cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123"},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "dev@example.org", "real_name": "Dev Eloper", "insider": true}],
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
    {"id": 301, "summary": "mt7921e: probe fails with -110", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Probe fails since 6.7-rc1.\nFrom dmesg: timeout"}]}
  ]
}
EOF2
fakebz_start state.json
mv "$WORK/bugbridge.conf" "$WORK/export.conf"
write_config <<EOF2
$(fakebz_bridge_config --key-in --products "" --maildir "$WORK/sent" --lists "$LISTLAB_LIST")
EOF2
check "the bridge mirrors bug 301" bb sync
# comments that come after the report: one mail each (older ones would
# have gone out in one backlog summary, which an export does not make)
for c in '{"bug_id": 301, "creator": "dev@example.org", "text": "Does 6.6 work?"}' \
	'{"bug_id": 301, "creator": "dev@example.org", "text": "PRIVATE-TOO", "is_private": true}' \
	'{"bug_id": 301, "creator": "ines@example.net", "text": "(In reply to Dev Eloper from comment #1)\n> Does 6.6 work?\n\nYes."}'; do
	curl -sf -X POST --data-binary '{"advance": 300}' "$bz/__admin/clock" >/dev/null
	curl -sf -X POST --data-binary "$c" "$bz/__admin/comment" >/dev/null
done
check "and its comments" bb sync
check "the import's rows for bug 301" python3 - "$WORK/data/bugbridge.db" "$bz" <<'EOF2'
import calendar, json, sqlite3, sys, time, urllib.request
db = sqlite3.connect(sys.argv[1])
bz = sys.argv[2]
def get(path):
    return json.load(urllib.request.urlopen(bz + path + ("&" if "?" in path else "?") + "api_key=bridgekey0123"))
def t(s):
    return calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))
b = get("/rest/bug/301")["bugs"][0]
db.execute("INSERT INTO imp_bug (id, source, summary, product, component, status, resolution,"
           " severity, priority, version, reporter, reporter_name, assigned_to, url, creation_time,"
           " last_change_time, keywords, cc, groups, complete, imported)"
           " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,1,0)",
           (b["id"], bz, b["summary"], b["product"], b["component"], b["status"], b["resolution"],
            b["severity"], b["priority"], b["version"], b["creator"],
            b.get("creator_detail", {}).get("real_name", ""), b["assigned_to"], b.get("url", ""),
            t(b["creation_time"]), t(b["last_change_time"]), json.dumps(b.get("keywords", [])),
            json.dumps(b.get("cc", [])), json.dumps(b.get("groups", []))))
for c in get("/rest/bug/301/comment")["bugs"]["301"]["comments"]:
    u = get("/rest/user?names=" + c["creator"])["users"][0]
    db.execute("INSERT INTO imp_comment (id, bug_id, count, author, author_name, time, text,"
               " is_private) VALUES (?,?,?,?,?,?,?,?)",
               (c["id"], 301, c["count"], c["creator"], u.get("real_name", ""), t(c["time"]),
                c["text"], int(c["is_private"])))
db.commit()
EOF2
check "export mbox --bug 301" bb export mbox --bug 301 same
check "the exported mails are the mails the bridge sent" python3 - same/bug-301.mbox "$WORK"/sent/new/* <<'EOF2'
import email, email.policy, re, sys
def norm(raw):
    m = email.message_from_bytes(raw, policy=email.policy.compat32)
    head = [(k.lower(), str(v)) for k, v in m.items() if k.lower() not in ("to", "cc")]
    return head, m.get_payload(decode=True)
exported = []
cur = None
for line in open(sys.argv[1], "rb").read().split(b"\n"):
    if line.startswith(b"From mboxrd@z "):
        if cur is not None:
            exported.append(cur)
        cur = []
        continue
    cur.append(re.sub(rb"^>(>*From )", rb"\1", line))
exported.append(cur)
exported = [b"\n".join(m).rstrip(b"\n") + b"\n" for m in exported]
sent = [open(p, "rb").read().replace(b"\r\n", b"\n") for p in sys.argv[2:]]
a = {dict(norm(m)[0])["message-id"]: norm(m) for m in exported}
b = {dict(norm(m)[0])["message-id"]: norm(m) for m in sent}
assert sorted(a) == sorted(b), (sorted(a), sorted(b))
assert len(a) == 3, sorted(a)
for k in a:
    assert a[k] == b[k], (k, a[k], b[k])
EOF2

done_testing
