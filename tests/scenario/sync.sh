#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# End to end: bugs in the fake Bugzilla become threads in a real public-inbox
# archive (SMTP -> public-inbox-mda), through bugbridge sync.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

listlab_start
random_bytes 5000 5 >fw.bin
fw_hash=$(sha256_of fw.bin)
fw_b64=$(base64 -w0 fw.bin)

cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123"},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "dev@example.org", "real_name": "Dev Eloper", "insider": true}],
  "groups": [{"name": "security", "description": "embargoed"}],
  "products": [{"name": "Drivers", "components": ["Wireless", "USB"]},
               {"name": "Other", "components": ["Misc"]}],
  "bugs": [
    {"id": 101, "summary": "iwlwifi: firmware crash after resume", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Wi-Fi dies after every resume since 6.6.1."},
                  {"creator": "dev@example.org", "creation_time": "2026-12-03T08:10:00Z",
                   "text": "PRIVATE-SECRET-NOTE do not mail", "is_private": true}],
     "attachments": [{"file_name": "fw-dump.bin", "summary": "firmware dump",
                      "content_type": "application/octet-stream", "data": "$fw_b64",
                      "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z"}]},
    {"id": 102, "summary": "EMBARGOED security bug", "product": "Drivers",
     "component": "USB", "status": "NEW", "groups": ["security"],
     "creation_time": "2026-12-03T08:20:00Z"},
    {"id": 103, "summary": "a bug of another product", "product": "Other",
     "component": "Misc", "status": "NEW", "creation_time": "2026-12-03T08:30:00Z"}
  ]
}
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
requests() { curl -sf "$bz/__admin/log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'; }

write_config <<EOF2
$(listlab_bridge_config)
[blob]
base_url = http://blobs.test
[route usb]
component = USB
lists = $LISTLAB_LIST, linux-usb@lists.lab
EOF2

check "first sync" bb sync
raw=$(listlab_raw bug-101@bugbridge.test)
like "the bug starts a thread in the archive" "$raw" "Subject: \[Bug 101\] iwlwifi: firmware crash after resume"
like "with its description" "$raw" "Wi-Fi dies after every resume"
like "and the attachment's hash" "$raw" "sha256:$fw_hash"
like "and its URL" "$raw" "http://blobs.test/blob/sha256/$fw_hash/fw-dump.bin"
check "the attachment is in the blob store with the right bytes" \
	sh -c "'$BUGBRIDGE' blob get $fw_hash | cmp - fw.bin"
is "the private comment reached nobody" "$(grep -l PRIVATE-SECRET-NOTE "$WORK"/listlab/received/*.eml 2>/dev/null | wc -l)" "0"
is "the restricted bug reached nobody" "$(grep -l EMBARGOED "$WORK"/listlab/received/*.eml 2>/dev/null | wc -l)" "0"
is "the other product's bug is not mirrored" "$(grep -l 'Bug 103' "$WORK"/listlab/received/*.eml 2>/dev/null | wc -l)" "0"
sent=$(ls "$WORK"/listlab/received/*.eml | wc -l)
is "one mail so far" "$sent" "1"

before=$(requests)
check "second sync" bb sync
after=$(requests)
is "an unchanged instance costs 2 requests" "$((after - before))" "2"
is "the second sync mails nothing" "$(ls "$WORK"/listlab/received/*.eml | wc -l)" "$sent"

admin clock '{"advance": 60}'
admin comment '{"bug_id": 101, "creator": "dev@example.org", "text": "Please try the patch in the next mail."}'
check "sync after a new comment" bb sync
raw=$(listlab_raw bug-101-c2@bugbridge.test)
like "the comment is a reply in the thread" "$raw" "In-Reply-To: <bug-101@bugbridge.test>"
like "attributed to its author" "$raw" "Dev Eloper"
thread=$(curl -sf "$LISTLAB_URL/bug-101@bugbridge.test/t.mbox.gz" | gzip -dc | grep -c '^Message-Id:\|^Message-ID:')
is "the archive holds the thread of two mails" "$thread" "2"

admin clock '{"advance": 60}'
admin bug '{"id": 101, "merge": true, "status": "RESOLVED", "resolution": "FIXED"}'
check "sync after closing the bug" bb sync
all=$(cat "$WORK"/listlab/received/*.eml)
like "the status change is mailed" "$all" "Status: NEW → RESOLVED FIXED"

admin clock '{"advance": 60}'
admin bug '{"id": 101, "merge": true, "component": "USB"}'
check "sync after a component change" bb sync
last=$(ls "$WORK"/listlab/received/*.json | tail -1)
like "the next mail goes to the new recipients" "$(cat "$last")" "linux-usb@lists.lab"
like "and says so" "$(cat "${last%.json}.eml")" "Recipients changed"
like "with the component change" "$(cat "${last%.json}.eml")" "Component: Wireless → USB"

out=$(bb status --json)
is "status counts the sent mails" "$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["outbox"]["sent"], d["outbox"]["failed"])')" "4 0"
check "sync --dry-run changes nothing" bb sync --dry-run
is "and sends nothing" "$(ls "$WORK"/listlab/received/*.eml | wc -l)" "4"

# An attachment that cannot be downloaded is noted in its mail, retried in a
# later round, and announced in the thread once it is stored.
printf 'resume: firmware error 0x%s\n' 1 2 3 >dmesg.txt
dmesg_hash=$(sha256_of dmesg.txt)
admin clock '{"advance": 60}'
admin fail '{"count": 20, "status": 500, "path_prefix": "/attachment.cgi"}'
admin fail '{"count": 20, "status": 500, "path_prefix": "/rest/bug/attachment/"}'
att_id=$(curl -sf -X POST --data-binary "{\"bug_id\": 101, \"file_name\": \"dmesg.txt\",
	\"summary\": \"dmesg\", \"content_type\": \"text/plain\", \"data\": \"$(base64 -w0 dmesg.txt)\",
	\"creator\": \"dev@example.org\", \"comment\": \"dmesg after resume attached\"}" \
	"$bz/__admin/attachment" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
check "sync while an attachment cannot be downloaded" bb sync
last=$(ls "$WORK"/listlab/received/*.eml | tail -1)
like "its comment is mailed anyway" "$(cat "$last")" "dmesg after resume attached"
like "saying the attachment is not stored yet" "$(cat "$last")" "not stored yet"
unlike "without a hash" "$(cat "$last")" "$dmesg_hash"
is "status counts the failed download" \
	"$(bb status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["attachments_failed"])')" "1"
mails=$(ls "$WORK"/listlab/received/*.eml | wc -l)
admin fail '{"clear": true}'
check "a sync before the retry time" bb sync
is "does not retry yet" "$(ls "$WORK"/listlab/received/*.eml | wc -l)" "$mails"
admin clock '{"advance": 120}'
check "a sync after the retry time" bb sync
raw=$(listlab_raw "bug-101-a$att_id@bugbridge.test")
like "announces the stored attachment in the thread" "$raw" "In-Reply-To: <bug-101@bugbridge.test>"
like "with its hash" "$raw" "sha256:$dmesg_hash"
like "and quotes the small text" "$raw" "firmware error 0x3"
check "the blob store holds it" sh -c "'$BUGBRIDGE' blob get $dmesg_hash | cmp - dmesg.txt"
is "status has no failed download left" \
	"$(bb status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["attachments_failed"])')" "0"
check "one more sync" bb sync
is "mails nothing more" "$(ls "$WORK"/listlab/received/*.eml | wc -l)" "$((mails + 1))"

# The daemon: SIGTERM in the middle of a round lets the round finish (its
# mail is sent), then the daemon exits 0.
admin clock '{"advance": 60}'
admin comment '{"bug_id": 101, "creator": "dev@example.org", "text": "A comment the daemon mails."}'
admin fail '{"count": 1, "mode": "slow", "delay": 2, "path_prefix": "/rest/time"}'
before=$(requests)
"$BUGBRIDGE" daemon --interval 1h >daemon.out 2>daemon.err &
dpid=$!
CLEANUP_PIDS="$CLEANUP_PIDS $dpid"
for _ in $(seq 1 100); do [ "$(requests)" -gt "$before" ] && break; sleep 0.05; done
kill -TERM "$dpid"
wait "$dpid"
is "the daemon exits 0 on SIGTERM" "$?" "0"
like "after finishing the round it was in" "$(cat "$(ls "$WORK"/listlab/received/*.eml | tail -1)")" \
	"A comment the daemon mails."
is "and starts no other round" "$(grep -c 'changed.*mirrored' daemon.err)" "1"

done_testing
