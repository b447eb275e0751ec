#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A bug's first mirror, whenever it comes: its report, then the public
# comments it already had in one backlog summary, not one mail each.  The
# cases where a bug becomes eligible late: the gate keyword added after it
# was filed (bugspray's workflow), a move into a mirrored product, an
# embargo group removed; and a first sync of many old bugs.  Mail goes to
# the data folder's Maildir (no [smtp]); the fake Bugzilla's clock moves on.
. "$top_srcdir/tests/lib/common.sh"

cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "dev@example.org", "real_name": "Dev Eloper", "insider": true}],
  "groups": [{"name": "security", "description": "embargoed"}],
  "products": [{"name": "Drivers", "components": ["Wireless"]},
               {"name": "Triage", "components": ["Incoming"]}],
  "bugs": [
    {"id": 501, "summary": "wifi: dies after resume", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-01T08:00:00Z", "keywords": ["bugbot"],
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-01T08:00:00Z",
                   "text": "Wi-Fi dies after resume."}]}
  ]
}
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
# mails: the files of the Maildir (sent mail)
mails() { find "$WORK/data/mail" -type f 2>/dev/null | sort; }
# count PATTERN: mails with a line matching it
count() { mails | xargs -r grep -l -i -E -- "$1" 2>/dev/null | wc -l; }
# mail_of MSGID: the file of that mail
mail_of() { mails | xargs -r grep -l -i -F -- "Message-ID: <$1>" 2>/dev/null | head -1; }

write_config <<EOF2
$(fakebz_bridge_config --bugzilla "keyword = bugbot" --lists wireless@lists.test)
EOF2

check "first sync" bb sync
is "the gated bug is mailed" "$(count 'Message-ID: <bug-501@bugbridge.test>')" "1"

# 502: filed without the keyword, three public comments and a private one,
# an attachment; triaged a day later (the keyword added)
random_bytes 3000 7 >dump.bin
admin bug '{"id": 502, "summary": "usb: hub resets", "product": "Drivers", "component": "Wireless",
 "status": "NEW", "creator": "ines@example.net", "creation_time": "2026-12-03T09:00:00Z",
 "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T09:00:00Z",
               "text": "The hub resets every second."}]}'
check "a sync while it is not gated in" bb sync
is "mails nothing for it" "$(count 'Bug 502')" "0"
admin clock '{"advance": 600}'
admin comment '{"bug_id": 502, "creator": "dev@example.org", "text": "First old comment: can you bisect?"}'
admin clock '{"advance": 600}'
admin comment '{"bug_id": 502, "creator": "dev@example.org", "text": "PRIVATE-NOTE not for the list", "is_private": true}'
admin clock '{"advance": 600}'
admin attachment "{\"bug_id\": 502, \"file_name\": \"dump.bin\", \"summary\": \"hub dump\",
 \"content_type\": \"application/octet-stream\", \"data\": \"$(base64 -w0 dump.bin)\",
 \"creator\": \"ines@example.net\", \"comment\": \"Second old comment: the dump.\"}"
admin clock '{"advance": 600}'
python3 -c 'print("Third old comment, a long one.\n" + "a log line\n" * 40, end="")' >long.txt
admin comment "$(python3 -c 'import json,sys; print(json.dumps({"bug_id": 502, "creator": "ines@example.net", "text": open("long.txt").read()}))')"
check "a sync before the triage" bb sync
is "still nothing" "$(count 'Bug 502')" "0"
admin clock '{"advance": 86400}'
admin bug '{"id": 502, "merge": true, "keywords": ["bugbot"]}'
check "the sync after the keyword was added" bb sync
is "the report goes out" "$(count 'Message-ID: <bug-502@bugbridge.test>')" "1"
like "with the description" "$(cat "$(mail_of bug-502@bugbridge.test)")" "The hub resets every second"
backlog=$(mail_of bug-502-s1@bugbridge.test)
check "and one backlog summary" test -n "$backlog"
is "two mails for the bug in all" "$(count 'Subject: (Re: )?\[Bug 502\]')" "2"
text=$(cat "$backlog" 2>/dev/null)
like "a reply to the report" "$text" "In-Reply-To: <bug-502@bugbridge.test>"
like "naming each public comment with its author" "$text" "Comment #1 by Dev Eloper"
like "the second" "$text" "Comment #3 by Ines Reporter"
like "the third" "$text" "Comment #4 by Ines Reporter"
like "with the start of its text" "$text" "First old comment: can you bisect"
unlike "never the private one" "$text" "PRIVATE-NOTE"
is "whose text reached no mail at all" "$(count 'PRIVATE-NOTE')" "0"
like "a long text is cut" "$text" "\[\.\.\.\]"
is "to at most 12 lines" "$(printf '%s\n' "$text" | grep -c 'a log line')" "11"
like "with a link to the comment" "$text" "show_bug.cgi\?id=502#c4"
like "and the attachments as links" "$text" "Attachment [0-9]+: dump.bin"
check "another sync" bb sync
is "mails nothing more" "$(count 'Subject: (Re: )?\[Bug 502\]')" "2"
admin clock '{"advance": 60}'
admin comment '{"bug_id": 502, "creator": "dev@example.org", "text": "A new comment after the mirror."}'
check "a sync after a new comment" bb sync
new=$(mail_of bug-502-c5@bugbridge.test)
check "a later comment is a reply of its own" test -n "$new"
like "in the thread" "$(cat "$new" 2>/dev/null)" "In-Reply-To: <bug-502@bugbridge.test>"

# 503: moved from an unmirrored product; 504: an embargo lifted
admin clock '{"advance": 60}'
admin bug '{"id": 503, "summary": "triage: display flickers", "product": "Triage", "component": "Incoming",
 "status": "NEW", "creator": "ines@example.net", "keywords": ["bugbot"],
 "comments": [{"creator": "ines@example.net", "text": "The display flickers."},
              {"creator": "dev@example.org", "text": "Moving it to drivers."}]}'
admin bug '{"id": 504, "summary": "embargoed: oops in the driver", "product": "Drivers", "component": "Wireless",
 "status": "NEW", "creator": "ines@example.net", "keywords": ["bugbot"], "groups": ["security"],
 "comments": [{"creator": "ines@example.net", "text": "An oops, embargoed."},
              {"creator": "dev@example.org", "text": "Fix ready, embargo ends Friday."}]}'
check "a sync while they are not eligible" bb sync
is "neither is mailed" "$(count 'Bug 50[34]')" "0"
admin clock '{"advance": 3600}'
admin bug '{"id": 503, "merge": true, "product": "Drivers", "component": "Wireless"}'
admin bug '{"id": 504, "merge": true, "groups": []}'
check "the sync after the move and the embargo's end" bb sync
is "the moved bug: report and backlog" "$(count 'Subject: (Re: )?\[Bug 503\]')" "2"
like "its backlog has the old comment" "$(cat "$(mail_of bug-503-s1@bugbridge.test)" 2>/dev/null)" "Moving it to drivers"
is "the bug out of its embargo: report and backlog" "$(count 'Subject: (Re: )?\[Bug 504\]')" "2"
like "its backlog has the old comment" "$(cat "$(mail_of bug-504-s1@bugbridge.test)" 2>/dev/null)" "embargo ends Friday"

# Re-examining: comments the bridge never saw (written with an old date, so
# their bug's change time stayed behind the cursor) go out in one backlog
# summary by `sync --since` and `resync`; nothing is sent twice
admin comment '{"bug_id": 501, "creator": "dev@example.org", "creation_time": "2026-12-02T10:00:00Z",
 "text": "MISSED-ONE, written while the bridge was away."}'
check "a sync" bb sync
is "does not see it" "$(count 'MISSED-ONE')" "0"
check_exit "sync --since takes a date" 64 bb sync --since yesterday
check "sync --since 2026-12-02" bb sync --since 2026-12-02
is "mails it once" "$(count 'MISSED-ONE')" "1"
like "in a backlog summary" "$(cat "$(mail_of bug-501-s1@bugbridge.test)" 2>/dev/null)" "Comment #1 by Dev Eloper"
check "sync --since again" bb sync --since 2026-12-02T00:00:00Z
is "sends nothing twice" "$(count 'MISSED-ONE')" "1"
admin comment '{"bug_id": 501, "creator": "dev@example.org", "creation_time": "2026-12-02T11:00:00Z",
 "text": "MISSED-TWO, also while away."}'
before=$(mails | wc -l)
check "resync 501" bb resync 501
is "mails the missed comment" "$(count 'MISSED-TWO')" "1"
is "in one mail" "$(( $(mails | wc -l) - before ))" "1"
check "resync 501 again" bb resync 501
is "sends nothing twice" "$(( $(mails | wc -l) - before ))" "1"
check_exit "resync wants bug numbers" 64 bb resync abc

# A first sync of many old bugs: one report and one summary each
n=40
python3 - "$n" >many.json <<'EOF2'
import json, sys
n = int(sys.argv[1])
bugs = [{"id": 600 + i, "summary": "old bug %d" % i, "product": "Drivers", "component": "Wireless",
         "status": "NEW", "creator": "ines@example.net", "keywords": ["bugbot"],
         "creation_time": "2026-11-01T08:00:00Z",
         "comments": [{"creator": "ines@example.net", "creation_time": "2026-11-01T08:00:00Z",
                       "text": "Report %d." % i}] +
                     [{"creator": "dev@example.org", "creation_time": "2026-11-01T09:%02d:00Z" % k,
                       "text": "Old comment %d of bug %d." % (k, i)} for k in range(1, 4)]}
        for i in range(n)]
print(json.dumps(bugs))
EOF2
python3 -c 'import json,sys,urllib.request
for b in json.load(open("many.json")):
    urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/__admin/bug", data=json.dumps(b).encode(), method="POST"))' "$bz"
before=$(mails | wc -l)
check "a sync that meets $n old bugs of 4 comments each" bb sync
is "queues 2 mails per bug, not 4" "$(( $(mails | wc -l) - before ))" "$((2 * n))"

done_testing
