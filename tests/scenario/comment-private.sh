#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A comment made private in Bugzilla after bugbridge mailed it (issue 38,
# item 4): the bridge's account is no insider, so the comment is simply
# gone from what Bugzilla shows it, and the sync fetches only the comments
# since its last round.  The change of the bug makes the sync look at all
# its comments again (bridge/sync_privacy.h): the comment is recorded
# private and the bug's page shows it no more, while the other public one
# stays.  Nothing is mailed about it.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"

cat >state.json <<'EOF'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "admin@example.org", "real_name": "Admin", "api_key": "adminkey0123",
             "groups": ["editbugs"], "insider": true},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
    {"id": 801, "summary": "iwlwifi: firmware crash", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-01T08:00:00Z",
     "comments": [
       {"id": 9000, "count": 0, "text": "Wi-Fi dies after resume.", "creator": "ines@example.net",
        "creation_time": "2026-12-01T08:00:00Z"},
       {"id": 9001, "count": 1, "text": "My serial number is XY-SOON-PRIVATE.",
        "creator": "ines@example.net", "creation_time": "2026-12-02T08:00:00Z"}]}
  ]
}
EOF
fakebz_start state.json

PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
write_config <<EOF
$(serve_config_head)
$(fakebz_bridge_config)
[smtp]
maildir = $WORK/data/mail
[routing]
default_lists = list@lists.test
[frontdoor]
enabled = true
base_url = $BASE/
EOF

check "a sync mirrors the bug and mails its comments" bb --quiet sync
is "the comment was mailed" "$(grep -l "XY-SOON-PRIVATE" data/mail/new/* | wc -l)" "1"
curl -sf -X POST --data '{"bug_id": 801, "text": "Still public: dmesg attached later.", "creator": "ines@example.net"}' \
	"$bz/__admin/comment" >comment.json
check "a sync mails a later comment" bb --quiet sync
id2=$(python3 -c 'import json; print(json.load(open("comment.json"))["id"])')
mails=$(ls data/mail/new | wc -l)

serve_start --pid-file "$WORK/pid"
like "the page shows the comment while it is public" "$(curl -s "$BASE/bug/801")" "XY-SOON-PRIVATE"

# a minute later an insider marks it private, as Bugzilla 5.2's PUT takes it
curl -sf -X POST --data '{"advance": 60}' "$bz/__admin/clock" >/dev/null
curl -sf -X PUT -H 'Content-Type: application/json' \
	--data '{"comment_is_private": {"9001": true}}' \
	"$bz/rest/bug/801?api_key=adminkey0123" >put.json
is "Bugzilla took the change" "$?" "0"
check "the next sync" bb --quiet sync
is "the state has it private" "$(reg "SELECT is_private FROM bz_comment WHERE id = 9001")" "1"
is "the other comment stays public" "$(reg "SELECT is_private FROM bz_comment WHERE id = $id2")" "0"
page=$(curl -s "$BASE/bug/801")
unlike "the page no longer shows the private comment" "$page" "XY-SOON-PRIVATE"
like "it still shows the public one" "$page" "Still public: dmesg attached later."
is "nothing was mailed about it" "$(ls data/mail/new | wc -l)" "$mails"
check "a round without a change" bb --quiet sync
is "no comment turns private by itself" "$(reg "SELECT count(*) FROM bz_comment WHERE is_private = 1")" "1"

kill -TERM "$server"
wait "$server"
CLEANUP_PIDS=$(printf '%s\n' $CLEANUP_PIDS | grep -vx "$server" | tr '\n' ' ')
done_testing
