#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An admin puts back an older copy of the state database (a backup made
# with sqlite3's .backup while bugbridge ran, as bugbridge(1) says).  The
# world still holds what the copy forgot: Bugzilla has the comments and
# bugs the bridge made, the list archive the mails it sent.  Nothing of the
# past acts twice: no list reply is posted again, no command runs again,
# no tracked thread becomes a second bug, no mail goes out again, and the
# bridge's own comment of a list reply is never mailed.  What tells the
# bridge's own mail in the archive (X-Bugbridge-Mark) cannot be forged by
# borrowing its Message-ID and loop header.  An archive that cannot be
# read does not hold Bugzilla's changes back.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

listlab_start

cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "editusers"]},
            {"login": "dev@example.org", "real_name": "Dev Eloper", "api_key": "devkey0123",
             "groups": ["editbugs"]},
            {"login": "lead@example.org", "real_name": "Lead"},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "products": [{"name": "Drivers", "components": ["Wireless", "USB"]}],
  "bugs": [
    {"id": 101, "summary": "iwlwifi: firmware crash after resume", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Wi-Fi dies after every resume since 6.6.1."}]}
  ]
}
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
ncomments() {
	curl -sf "$bz/rest/bug/$1/comment?api_key=bridgekey0123" |
		python3 -c 'import json,sys; b=json.load(sys.stdin)["bugs"]; print(len(list(b.values())[0]["comments"]))'
}
status() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0]["status"])'
}
nbugs() {
	curl -sf "$bz/rest/bug?product=Drivers&api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(len(json.load(sys.stdin)["bugs"]))'
}
# received ID: how many mails with Message-ID <ID> the list received
received() { grep -l -i "^Message-ID: *<$1>" "$WORK"/listlab/received/*.eml 2>/dev/null | wc -l; }
nreceived() { ls "$WORK"/listlab/received/*.eml 2>/dev/null | wc -l; }
db="$WORK/data/bugbridge.db"
restore() {
	rm -f "$db-wal" "$db-shm"
	cp "$1" "$db"
}

write_config <<EOF2
$(listlab_bridge_config)
[archive]
url = $LISTLAB_URL
[inbound]
authenticate = none
allow = Lead <lead@example.org>
track_product = Drivers
track_component = USB
EOF2

check "sync" bb sync
is "the bug is mailed" "$(received bug-101@bugbridge.test)" "1"
like "the bridge's mail carries its mark" \
	"$(grep -h -i '^X-Bugbridge-Mark:' "$WORK"/listlab/received/*.eml | tr -d '\r')" "^X-Bugbridge-Mark: [0-9a-f]{32}$"
sqlite3 "$db" ".backup '$WORK/backup.db'"

# after the backup: a comment on Bugzilla; a list reply with a command; a
# list thread tracked into a new bug; then a human reopens the bug
admin clock '{"advance": 60}'
admin comment '{"bug_id": 101, "creator": "dev@example.org", "text": "Please try the patch."}'
printf 'The patch fixes it here.\n\n#bugbridge close\n' |
	listlab_send "Lead <lead@example.org>" reply-1@example.org \
		bug-101@bugbridge.test "Re: [Bug 101] iwlwifi: firmware crash after resume"
printf 'The hub at 1-1 resets every second since 6.7.\n' |
	listlab_send "Ines Reporter <ines@example.net>" usb-1@example.org "" "usb: hub resets in a loop"
printf 'Let us track this.\n\n#bugbridge track\n' |
	listlab_send "Lead <lead@example.org>" usb-2@example.org usb-1@example.org "Re: usb: hub resets in a loop"
check "sync" bb sync
check "sync again (the bridge's mails read back)" bb sync
is "the reply is posted" "$(ncomments 101)" "3"
is "its command closed the bug" "$(status 101)" "RESOLVED"
is "the thread became one bug" "$(nbugs)" "2"
admin clock '{"advance": 60}'
curl -sf -X PUT -H 'Content-Type: application/json' --data-binary '{"status": "CONFIRMED"}' \
	"$bz/rest/bug/101?api_key=devkey0123" >/dev/null
is "a human reopens it" "$(status 101)" "CONFIRMED"
check "sync" bb sync
is "the comment was mailed" "$(received bug-101-c1@bugbridge.test)" "1"
bugs_before=$(nbugs)
mails_before=$(nreceived)

restore "$WORK/backup.db"
check "sync after the restore" bb sync
check "and again" bb sync
is "the reply is not posted again" "$(ncomments 101)" "3"
is "its command does not run again" "$(status 101)" "CONFIRMED"
is "no second bug of the thread" "$(nbugs)" "$bugs_before"
is "the tracked bug's comments are not posted again" "$(ncomments 102)" "2"
is "the comment is not mailed again" "$(received bug-101-c1@bugbridge.test)" "1"
is "the bridge's comment of the reply is never mailed" "$(received bug-101-c2@bugbridge.test)" "0"
is "the list got no mail" "$(nreceived)" "$mails_before"
is "the mail's command is recorded as done before" \
	"$(sqlite3 "$db" "SELECT c.state || ': ' || c.note FROM in_command c JOIN in_mail m ON m.id = c.mail
			  WHERE m.message_id = 'reply-1@example.org'")" \
	"done: done before: the bug has the mail's comment"

# the mark cannot be forged: a mail that borrows the bridge's Message-ID
# for a comment yet to come, with its loop header and a made-up mark,
# does not stop that comment's mail
printf 'Spoofed.\n' |
	listlab_send "Bugzilla bridge <bridge@bugbridge.test>" bug-101-c3@bugbridge.test \
		bug-101@bugbridge.test "Re: [Bug 101] iwlwifi: firmware crash after resume" \
		"X-Bugbridge-Loop: bugbridge.test" "X-Bugbridge-Mark: 0123456789abcdef0123456789abcdef"
check "sync reads the forgery" bb sync
admin clock '{"advance": 60}'
admin comment '{"bug_id": 101, "creator": "dev@example.org", "text": "Third comment."}'
check "sync" bb sync
is "the comment the forgery named is mailed all the same" \
	"$(grep -l "Third comment" "$WORK"/listlab/received/*.eml | wc -l)" "1"

# an archive that cannot be read: Bugzilla's changes are mailed all the same
n=$(nreceived)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed -i "s|^url = $LISTLAB_URL|url = http://127.0.0.1:$port/list/|" "$WORK/bugbridge.conf"
admin clock '{"advance": 60}'
admin comment '{"bug_id": 101, "creator": "dev@example.org", "text": "Fourth comment."}'
"$BUGBRIDGE" sync >"$WORK/out" 2>&1
rc=$?
like "the round fails (the archive)" "$rc" "^[1-9][0-9]*$"
like "saying so" "$(cat "$WORK/out")" "sync.archive_failed"
is "but the comment is mailed" "$(nreceived)" "$((n + 1))"

done_testing
