#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A list reply Bugzilla cannot take for now is deferred (it backs off on its
# own); the round that posts it later counts it as posted: in the round's
# summary, and in status --json's replies_posted.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"

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
                   "text": "The hub stops after every resume."}]}
  ]
}
EOF2
fakebz_start state.json
# comments BUG: the texts of the bug's comments, one JSON string per line
comments() {
	curl -sf "$bz/rest/bug/$1/comment?api_key=bridgekey0123" |
		python3 -c 'import json,sys; b=json.load(sys.stdin)["bugs"]; [print(json.dumps(c["text"])) for c in list(b.values())[0]["comments"]]'
}
# reply ID TEXT: a list reply to bug 201's report, appended to the archive
reply() {
	printf 'From ines@example.net Thu Dec  3 09:30:00 2026\nFrom: Ines Reporter <ines@example.net>\nTo: list@lists.test\nSubject: Re: [Bug 201] usb: hub stops after resume\nDate: Thu, 03 Dec 2026 09:30:00 +0000\nMessage-ID: <%s>\nIn-Reply-To: <bug-201@bugbridge.test>\nReferences: <bug-201@bugbridge.test>\n\n%s\n\n' \
		"$1" "$2" >>"$WORK/list.mbox"
}
posted_json() { bb status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["archive"]["replies_posted"])'; }
summary() { grep '^bugbridge: archive:' "$1"; }

printf 'From tess@example.org Thu Dec  3 08:00:00 2026\nFrom: Tess <tess@example.org>\nTo: list@lists.test\nSubject: hello\nDate: Thu, 03 Dec 2026 08:00:00 +0000\nMessage-ID: <filler-1@example.org>\n\nHello.\n\n' \
	>"$WORK/list.mbox"
write_config <<EOF2
$(fakebz_bridge_config)
[smtp]
maildir = $WORK/mail
[routing]
default_lists = list@lists.test
[archive]
kind = mbox
path = $WORK/list.mbox
EOF2

check "the first sync mirrors the bug and starts the archive at its end" bb sync

reply posted-1@example.net "POSTED-ONE: a reply Bugzilla takes at once."
"$BUGBRIDGE" sync 2>sync1.err
is "a sync after a reply" "$?" 0
like "its summary counts it as posted" "$(summary sync1.err)" "1 for mirrored bugs, 1 posted"
is "status --json counts it" "$(posted_json)" 1

# Bugzilla fails the next reply's post for now (503, more than the client's retries)
curl -sf -X POST --data-binary '{"count": 30, "status": 503, "method": "POST",
	"path_prefix": "/rest/bug/201/comment"}' "$bz/__admin/fail" >/dev/null
reply defer-1@example.net "DEFER-ONE: a reply Bugzilla cannot take just now."
"$BUGBRIDGE" sync 2>sync2.err
is "a sync while Bugzilla fails the post exits 75 (temporary)" "$?" 75
like "its summary says the reply is deferred" "$(summary sync2.err)" "0 posted.*1 reply deferred"
is "Bugzilla has not got it" "$(comments 201 | grep -c DEFER-ONE)" 0
is "status --json does not count it yet" "$(posted_json)" 1

curl -sf -X POST --data-binary '{"clear": true}' "$bz/__admin/fail" >/dev/null
# due now (instead of waiting out its back-off)
/usr/bin/python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("update in_mail set next_attempt = 0 where message_id = ?", ("defer-1@example.net",)); c.commit()' \
	"$WORK/data/bugbridge.db"
"$BUGBRIDGE" sync 2>sync3.err
is "the sync once it is due succeeds" "$?" 0
is "it posts the deferred reply, once" "$(comments 201 | grep -c DEFER-ONE)" 1
like "its summary counts it as posted" "$(summary sync3.err)" "0 mails read, 0 for mirrored bugs, 1 posted"
unlike "and no longer deferred" "$(summary sync3.err)" "deferred"
is "status --json counts both replies" "$(posted_json)" 2
like "as status does" "$(bb status)" "replies: +2 posted"

"$BUGBRIDGE" sync 2>sync4.err
is "the next sync succeeds" "$?" 0
like "and posts nothing" "$(summary sync4.err)" "0 posted"
is "status --json still counts two" "$(posted_json)" 2

done_testing
