#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A reply longer than Bugzilla takes: 5.2 counts a comment's 65,535
# characters in Unicode code points, and so does the fake Bugzilla.  The
# reply is cut before it is posted (Bugzilla is asked once, and never
# refuses it), in code points, its note and footer inside the 65,535; the
# database keeps what was posted, the blob store the whole text.
. "$top_srcdir/tests/lib/common.sh"

cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "products": [{"name": "Drivers", "components": ["USB"]}],
  "bugs": [
    {"id": 201, "summary": "usb: hub stops after resume", "product": "Drivers",
     "component": "USB", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "The hub stops after every resume."}]},
    {"id": 202, "summary": "a bug for the fake's own limit", "product": "Drivers",
     "component": "USB", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Not mirrored."}]}
  ]
}
EOF2
fakebz_start state.json

# post_chars N CHAR: the HTTP status of adding a comment of N times CHAR to bug 202
post_chars() {
	/usr/bin/python3 -c 'import json, sys; print(json.dumps({"comment": sys.argv[2] * int(sys.argv[1])}))' \
		"$1" "$2" >body.json
	curl -s -o post.out -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
		--data-binary @body.json "$bz/rest/bug/202/comment?api_key=bridgekey0123"
}
# the fake counts as 5.2 does: characters, not bytes (131,070 bytes of "ü")
is "the fake Bugzilla takes 65,535 two-byte characters" "$(post_chars 65535 ü)" "201"
is "not 65,536" "$(post_chars 65536 ü)" "400"
like "refusing them with error 114" "$(cat post.out)" '"code": *114'

: >"$WORK/list.mbox"
write_config <<EOF2
$(fakebz_bridge_config)
[smtp]
maildir = $WORK/mail
[routing]
default_lists = list@lists.test
[archive]
kind = mbox
path = $WORK/list.mbox
[blob]
base_url = http://blobs.test
EOF2
check "a first round mirrors bug 201" bb sync
is "bug 201 is mirrored" "$(reg "select mirrored from bz_bug where id = 201")" "1"

# a reply of 70,000 times "ü" (140,000 bytes), then one line of its own
/usr/bin/python3 - "$WORK/list.mbox" <<'EOF2'
import sys
with open(sys.argv[1], "a", encoding="utf-8") as f:
    f.write("From tess@example.org Thu Dec  3 08:00:00 2026\n"
            "From: Tess Ter <tess@example.org>\nTo: list@lists.test\n"
            "Subject: Re: [Bug 201] usb: hub stops after resume\n"
            "Date: Thu, 03 Dec 2026 08:00:00 +0000\n"
            "Message-ID: <long-u@example.org>\n"
            "In-Reply-To: <bug-201@bugbridge.test>\n"
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
            "Content-Transfer-Encoding: 8bit\n\n")
    for i in range(70):
        f.write("ü" * 1000 + "\n")
    f.write("The last line.\n\n")
EOF2
curl -sf -X POST "$bz/__admin/reset_log" >/dev/null
check "sync reads the long reply" bb sync
is "it is posted" "$(reg "select state from in_mail where message_id = 'long-u@example.org'")" "posted"
is "asking Bugzilla once: cut before posting, never refused" \
	"$(curl -sf "$bz/__admin/log?path_prefix=/rest/bug/201/comment&method=POST" |
		/usr/bin/python3 -c 'import json, sys; print([r["status"] for r in json.load(sys.stdin)["requests"]])')" "[201]"
curl -sf "$bz/rest/bug/201/comment?api_key=bridgekey0123" |
	/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["bugs"]["201"]["comments"][-1]["text"], end="")' >posted.txt
chars=$(/usr/bin/python3 -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' posted.txt)
check "the comment posted is at most 65,535 characters, its note included ($chars)" test "$chars" -le 65535
check "and keeps at least 60,000 of them: they are counted in code points, not bytes ($chars)" \
	test "$chars" -ge 60000
like "it says it is cut" "$(cat posted.txt)" "the reply is longer than Bugzilla takes"
like "keeps its archive link and marker" "$(tail -n 2 posted.txt)" "Message-ID: <long-u@example.org>"
whole=$(grep -oE 'sha256:[0-9a-f]{64}' posted.txt | tail -n 1 | cut -d: -f2)
bb blob get "$whole" >whole.txt 2>/dev/null
is "the blob store has the whole text: 70,000 ü" \
	"$(/usr/bin/python3 -c 'import sys; print(open(sys.argv[1], encoding="utf-8").read().count("ü"))' whole.txt)" \
	"70000"
like "and its last line" "$(cat whole.txt)" "The last line"
is "the database keeps what was posted, not the whole text" \
	"$(/usr/bin/python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]).execute("select comment from in_mail where message_id = ?", ("long-u@example.org",)).fetchone()[0]
print(c == open(sys.argv[2], encoding="utf-8").read())' "$WORK/data/bugbridge.db" posted.txt)" "True"

# a reply just within the limit is posted whole, uncut
/usr/bin/python3 - "$WORK/list.mbox" <<'EOF2'
import sys
with open(sys.argv[1], "a", encoding="utf-8") as f:
    f.write("From tess@example.org Thu Dec  3 08:00:00 2026\n"
            "From: Tess Ter <tess@example.org>\nTo: list@lists.test\n"
            "Subject: Re: [Bug 201] usb: hub stops after resume\n"
            "Date: Thu, 03 Dec 2026 08:00:00 +0000\n"
            "Message-ID: <fits-u@example.org>\n"
            "In-Reply-To: <bug-201@bugbridge.test>\n"
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
            "Content-Transfer-Encoding: 8bit\n\n")
    for i in range(60):
        f.write("ü" * 1000 + "\n")
    f.write("\n")
EOF2
check "sync reads a reply of 60,000 ü (120,000 bytes)" bb sync
curl -sf "$bz/rest/bug/201/comment?api_key=bridgekey0123" |
	/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["bugs"]["201"]["comments"][-1]["text"], end="")' >fits.txt
is "it is posted whole" "$(grep -o ü fits.txt | wc -l)" "60000"
unlike "with no note" "$(cat fits.txt)" "the reply is longer than Bugzilla takes"

# a 2 MB reply is cut down from its start, not whole: what is posted is
# the start of what the whole would give (its quote cut to its last three
# lines after "> [...]", as a short reply's is); the blob store has the
# whole text as written, its quote and signature too
/usr/bin/python3 - "$WORK/list.mbox" <<'EOF2'
import sys
with open(sys.argv[1], "a", encoding="utf-8") as f:
    f.write("From tess@example.org Thu Dec  3 08:00:00 2026\n"
            "From: Tess Ter <tess@example.org>\nTo: list@lists.test\n"
            "Subject: Re: [Bug 201] usb: hub stops after resume\n"
            "Date: Thu, 03 Dec 2026 08:00:00 +0000\n"
            "Message-ID: <big-quote@example.org>\n"
            "In-Reply-To: <bug-201@bugbridge.test>\n\n"
            "On Thu, 3 Dec 2026, Ines Reporter wrote:\n")
    for i in range(20000):
        f.write("> quoted line %06d of the report\n" % i)
    f.write("\n")
    for i in range(60000):
        f.write("own line %06d of the long answer\n" % i)
    f.write("-- \nTess\n" + "signature line\n" * 1000 + "\n")
EOF2
check "sync reads a 2 MB reply" bb sync
curl -sf "$bz/rest/bug/201/comment?api_key=bridgekey0123" |
	/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["bugs"]["201"]["comments"][-1]["text"], end="")' >big.txt
like "it is posted cut" "$(tail -n 8 big.txt)" "the reply is longer than Bugzilla takes"
is "its quote cut to its last three lines" "$(grep -c '^> quoted line' big.txt) $(grep -c '^> \[\.\.\.\]$' big.txt)" "3 1"
like "the last three" "$(grep '^> quoted' big.txt | head -n 1)" "019997"
like "then the answer's start" "$(sed -n '/^> quoted line 019999/{n;n;p}' big.txt)" "^own line 000000 "
chars=$(/usr/bin/python3 -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' big.txt)
check "within 65,535 characters, and near them ($chars)" test "$chars" -le 65535 -a "$chars" -ge 65000
whole=$(grep -oE 'sha256:[0-9a-f]{64}' big.txt | tail -n 1 | cut -d: -f2)
bb blob get "$whole" >bigwhole.txt 2>/dev/null
is "the blob has the whole text: the quote, the answer, the signature" \
	"$(grep -c '^> quoted line' bigwhole.txt) $(grep -c '^own line' bigwhole.txt) $(grep -c '^signature line$' bigwhole.txt)" \
	"20000 60000 1000"

done_testing
