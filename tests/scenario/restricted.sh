#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A bug restricted to a group after it was mirrored is withdrawn by the
# next sync: gone from the front door's /bugs and /bug/N, list replies to
# its thread are not posted into it (and the log says why), and its
# attachment's blob is no longer served.  A bug put in a group bugbridge's
# account is not in simply vanishes from its searches: it is withdrawn when
# a reply to it finds Bugzilla refusing (error 102).
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

listlab_start
random_bytes 4000 11 >fw.bin
fw_hash=$(sha256_of fw.bin)

cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "security"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "groups": [{"name": "security", "description": "embargoed"},
             {"name": "vendor", "description": "a group the bridge is not in"}],
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
    {"id": 301, "summary": "iwlwifi: soon-embargoed crash", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "The firmware crashes; dump attached."}],
     "attachments": [{"file_name": "fw-dump.bin", "summary": "firmware dump",
                      "content_type": "application/octet-stream", "data": "$(base64 -w0 fw.bin)",
                      "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z"}]},
    {"id": 302, "summary": "usb: a bug that stays public", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:10:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:10:00Z",
                   "text": "Another one."}]},
    {"id": 303, "summary": "wifi: soon hidden from the bridge", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:20:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:20:00Z",
                   "text": "A third one."}]}
  ]
}
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
# comments of a bug as the server has them, whoever may see it
all_comments() {
	curl -sf "$bz/__admin/state" |
		python3 -c 'import json,sys; print([len(b.get("comments", [])) for b in json.load(sys.stdin)["bugs"] if b["id"] == int(sys.argv[1])][0])' "$1"
}
ncomments() {
	curl -sf "$bz/rest/bug/$1/comment?api_key=bridgekey0123" |
		python3 -c 'import json,sys; b=json.load(sys.stdin)["bugs"]; print(len(list(b.values())[0]["comments"]))'
}

write_config <<EOF2
$(listlab_bridge_config)
[archive]
url = $LISTLAB_URL
[blob]
base_url = http://blobs.test
[server]
listen = 127.0.0.1:0
[frontdoor]
enabled = true
EOF2

serve_start
URL="http://127.0.0.1:$(cat "$WORK/port")"
code() { curl -s -o "$WORK/body" -w '%{http_code}' "$URL$1"; }

check "first sync mirrors both bugs" bb sync
like "the bug's thread is in the archive" "$(listlab_raw bug-301@bugbridge.test)" "Subject: \[Bug 301\]"
is "/bugs lists it" "$(code /bugs)" 200
like "with its summary" "$(cat "$WORK/body")" "soon-embargoed crash"
is "/bug/301 shows it" "$(code /bug/301)" 200
is "its attachment is served" "$(code "/blob/sha256/$fw_hash")" 200

# a reply on the list while the bug is public is posted, as before
printf 'Looking into it.\n' |
	listlab_send "Wendy Maintainer <wendy@example.org>" reply-1@example.org bug-301@bugbridge.test \
		"Re: [Bug 301] iwlwifi: soon-embargoed crash"
check "sync after a reply" bb sync
is "the reply was posted while the bug was public" "$(ncomments 301)" 2

# --- the bug is put in a group ------------------------------------------------------
# the private store is made when a withdrawn bug's blobs first need it, not
# by every round; one that cannot be made fails the round and drops nothing
is "no round has made the private store yet" "$(test -e "$WORK/data/private-blobs" && echo made)" ""
admin bug '{"id": 301, "merge": true, "groups": ["security"]}'
: >"$WORK/data/private-blobs"
bb sync >/dev/null 2>"$WORK/sync0.err"
unlike "sync fails while the private store cannot be made" "$?" "^0$"
like "and says why" "$(cat "$WORK/sync0.err")" "private-blobs"
check "the blob is not dropped" test -s "$WORK/data/blobs/sha256/$(echo "$fw_hash" | cut -c1-2)/$(echo "$fw_hash" | cut -c3-)"
rm -f "$WORK/data/private-blobs"
bb -v sync >"$WORK/sync.out" 2>"$WORK/sync.err"
is "sync after the restriction succeeds" "$?" 0
like "sync says it withdrew the bug" "$(cat "$WORK/sync.err")" "1 bug restricted since mirrored: withdrawn"
is "/bugs answers" "$(code /bugs)" 200
unlike "/bugs no longer lists it" "$(cat "$WORK/body")" "soon-embargoed crash"
like "/bugs still lists the public one" "$(cat "$WORK/body")" "a bug that stays public"
is "/bug/301 is gone" "$(code /bug/301)" 404
unlike "and says nothing of it" "$(cat "$WORK/body")" "soon-embargoed"
is "its blob is no longer served" "$(code "/blob/sha256/$fw_hash")" 404
check "its bytes are kept in the private store" \
	cmp "$WORK/data/private-blobs/sha256/$(echo "$fw_hash" | cut -c1-2)/$(echo "$fw_hash" | cut -c3-)" fw.bin

printf 'Here is a patch for the embargoed crash.\n' |
	listlab_send "Wendy Maintainer <wendy@example.org>" reply-2@example.org reply-1@example.org \
		"Re: [Bug 301] iwlwifi: soon-embargoed crash"
bb -v sync >"$WORK/sync2.out" 2>"$WORK/sync2.err"
is "sync after a reply to the restricted bug succeeds" "$?" 0
is "the reply is not posted into the restricted bug" "$(ncomments 301)" 2
like "the log says why" "$(cat "$WORK/sync2.err")" "inbound.ignored.*bug=301.*not public"
check "a second sync changes nothing" bb sync
is "still not posted" "$(ncomments 301)" 2

# --- public again: listed, its blob served again ------------------------------------
admin bug '{"id": 301, "merge": true, "groups": []}'
check "sync after the bug is public again" bb sync
is "/bug/301 is back" "$(code /bug/301)" 200
is "its blob is served again" "$(code "/blob/sha256/$fw_hash")" 200
check "with the same bytes" sh -c "curl -sf '$URL/blob/sha256/$fw_hash' | cmp - fw.bin"

# --- a bug hidden from the bridge's account ------------------------------------------
like "/bugs lists bug 303" "$(code /bugs >/dev/null; cat "$WORK/body")" "soon hidden from the bridge"
admin bug '{"id": 303, "merge": true, "groups": ["vendor"]}'
check "a sync while the bug is hidden" bb sync
printf 'A reply to the hidden bug.\n' |
	listlab_send "Wendy Maintainer <wendy@example.org>" reply-3@example.org bug-303@bugbridge.test \
		"Re: [Bug 303] wifi: soon hidden from the bridge"
bb sync >"$WORK/sync3.out" 2>"$WORK/sync3.err"
is "the sync after a reply to it succeeds" "$?" 0
is "the reply is not posted" "$(all_comments 303)" 1
like "the log says why" "$(cat "$WORK/sync3.err")" "inbound.ignored.*bug=303.*no longer visible"
is "/bugs answers" "$(code /bugs)" 200
unlike "/bugs no longer lists the hidden bug" "$(cat "$WORK/body")" "soon hidden from the bridge"
is "/bug/303 is gone" "$(code /bug/303)" 404
check "the next sync succeeds" bb sync

done_testing
