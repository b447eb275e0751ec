#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A mirrored bug that leaves the mirrored set for a while and comes back:
# the public comments written while it was away go out when it returns, in
# one backlog summary (as a late-eligible bug's old comments do), never
# one mail each and never twice.  The ways away: a move to a product the
# bridge does not mirror (the changed-bugs search no longer shows it), a
# group the bridge's account is in (the bug is withdrawn as restricted),
# a group it is not in (the bug vanishes; the visibility check withdraws
# it).  A comment made after the return is a reply of its own.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"

cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "partners"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "dev@example.org", "real_name": "Dev Eloper", "insider": true}],
  "groups": [{"name": "partners", "description": "a group the bridge is in"},
             {"name": "vendor", "description": "a group the bridge is not in"}],
  "products": [{"name": "Drivers", "components": ["Wireless"]},
               {"name": "Triage", "components": ["Incoming"]}],
  "bugs": [
    {"id": 601, "summary": "wifi: moved away and back", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Wi-Fi dies after resume."}]},
    {"id": 602, "summary": "usb: restricted for a while", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:10:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:10:00Z",
                   "text": "The hub resets."}]},
    {"id": 603, "summary": "gpu: hidden for a while", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:20:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:20:00Z",
                   "text": "The screen goes black."}]},
    {"id": 604, "summary": "audio: a bug that stays, quiet for long", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:30:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:30:00Z",
                   "text": "No sound."}]}
  ]
}
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
mails() { find "$WORK/data/mail" -type f 2>/dev/null | sort; }
# count PATTERN: mails with a line matching it
count() { mails | xargs -r grep -l -i -E -- "$1" 2>/dev/null | wc -l; }
mail_of() { mails | xargs -r grep -l -i -F -- "Message-ID: <$1>" 2>/dev/null | head -1; }
comment() {
	admin clock '{"advance": 600}'
	admin comment "{\"bug_id\": $1, \"creator\": \"dev@example.org\", \"text\": \"$2\"${3-}}"
}

write_config <<EOF2
$(fakebz_bridge_config)
[routing]
default_lists = drivers@lists.test
EOF2
# every round checks the mirrored bugs' visibility
sed -i 's/^\[bugzilla\]$/[bugzilla]\nvisibility_interval = 0/' "$BUGBRIDGE_CONFIG"

check "the first sync mirrors the four bugs" bb sync
is "four reports" "$(count 'Message-ID: <bug-60[1-4]@bugbridge.test>')" "4"

# --- away: a product not mirrored, a group the bridge is in, one it is not in -----
admin clock '{"advance": 600}'
admin bug '{"id": 601, "merge": true, "product": "Triage", "component": "Incoming"}'
admin bug '{"id": 602, "merge": true, "groups": ["partners"]}'
admin bug '{"id": 603, "merge": true, "groups": ["vendor"]}'
check "a sync after they left" bb sync
is "601 stays mirrored: the search no longer shows it" \
	"$(reg 'SELECT mirrored, restricted FROM bz_bug WHERE id = 601')" "1|0"
is "602 (a group the bridge is in) is withdrawn as restricted" \
	"$(reg 'SELECT mirrored, restricted FROM bz_bug WHERE id = 602')" "1|1"
is "603 (a group the bridge is not in) vanished and is withdrawn too" \
	"$(reg 'SELECT mirrored, restricted FROM bz_bug WHERE id = 603')" "1|1"

comment 601 "AWAY-601-ONE, written in Triage."
comment 601 "AWAY-601-PRIVATE" ', "is_private": true'
comment 601 "AWAY-601-TWO, still in Triage."
comment 602 "AWAY-602-ONE, written while restricted."
comment 603 "AWAY-603-ONE, written while hidden."
check "a sync while they are away" bb sync
is "mails nothing of what they say" "$(count 'AWAY-60')" "0"
admin clock '{"advance": 3600}'
check "a sync an hour later" bb sync
is "still nothing" "$(count 'AWAY-60')" "0"
# 604 changes after a long quiet time: nothing of it was missed
admin clock '{"advance": 3600}'

# --- back -------------------------------------------------------------------------
admin bug '{"id": 601, "merge": true, "product": "Drivers", "component": "Wireless"}'
admin bug '{"id": 602, "merge": true, "groups": []}'
admin bug '{"id": 603, "merge": true, "groups": []}'
comment 604 "QUIET-604, after a long quiet time."
admin clock '{"advance": 60}'
before=$(mails | wc -l)
check "the sync after they came back" bb sync
summary=$(mail_of bug-601-s1@bugbridge.test)
check "601: the comments of its time away go out in one backlog summary" test -n "$summary"
text=$(cat "$summary" 2>/dev/null)
like "the first" "$text" "AWAY-601-ONE"
like "the second" "$text" "AWAY-601-TWO"
like "each named with its author" "$text" "Comment #1 by Dev Eloper"
like "a reply in the bug's thread" "$text" "In-Reply-To: <bug-601@bugbridge.test>"
is "once" "$(count 'AWAY-601-ONE')" "1"
is "not one mail each" "$(count 'AWAY-601-TWO')" "1"
is "never the private one" "$(count 'AWAY-601-PRIVATE')" "0"
summary=$(mail_of bug-602-s1@bugbridge.test)
check "602, restricted for a while: its missed comment in a backlog summary" test -n "$summary"
like "it is the one written while restricted" "$(cat "$summary" 2>/dev/null)" "AWAY-602-ONE"
is "602 is public again" "$(reg 'SELECT mirrored, restricted FROM bz_bug WHERE id = 602')" "1|0"
summary=$(mail_of bug-603-s1@bugbridge.test)
check "603, hidden for a while: its missed comment in a backlog summary" test -n "$summary"
like "it is the one written while hidden" "$(cat "$summary" 2>/dev/null)" "AWAY-603-ONE"
like "604's new comment is a reply of its own" \
	"$(cat "$(mail_of bug-604-c1@bugbridge.test)" 2>/dev/null)" "QUIET-604"
is "four mails in all" "$(( $(mails | wc -l) - before ))" "4"

before=$(mails | wc -l)
check "another sync" bb sync
is "sends nothing twice" "$(( $(mails | wc -l) - before ))" "0"
comment 601 "BACK-601, after the return."
check "a sync after a new comment" bb sync
new=$(mail_of bug-601-c4@bugbridge.test)
check "a comment after the return is a reply of its own" test -n "$new"
like "with its text" "$(cat "$new" 2>/dev/null)" "BACK-601"
is "and goes out once" "$(count 'BACK-601')" "1"

done_testing
