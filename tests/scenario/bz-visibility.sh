#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A mirrored bug put in a group the bridge's account is not in drops out of
# the changed-bugs search without a trace.  Every [bugzilla]
# visibility_interval (of Bugzilla's clock; the last check's time is kept
# in the state) each mirrored bug is asked for, 400 a request
# (GET /rest/bug?id=...&include_fields=id,groups); one the search lacks is
# asked alone, and a bug Bugzilla refuses (102) is withdrawn as a restricted
# one is: off the front door, its blob no longer served, its row restricted.
# Before the interval has passed nothing is asked.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"

random_bytes 3000 7 >fw.bin
fw_hash=$(sha256_of fw.bin)

cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "groups": [{"name": "vendor", "description": "a group the bridge is not in"}],
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
    {"id": 501, "summary": "iwlwifi: soon hidden from the bridge", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "The firmware crashes; dump attached."}],
     "attachments": [{"file_name": "fw-dump.bin", "summary": "firmware dump",
                      "content_type": "application/octet-stream", "data": "$(base64 -w0 fw.bin)",
                      "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z"}]},
    {"id": 502, "summary": "usb: a bug that stays public", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:10:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:10:00Z",
                   "text": "Another one."}]}
  ]
}
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
# visibility requests since the log was last reset: the searches by id
# (include_fields=id,groups) and the bugs asked alone, as "SEARCHES ALONE IDS"
visibility_requests() {
	curl -sf "$bz/__admin/log?path_prefix=/rest/bug" | python3 -c '
import json, sys
reqs = json.load(sys.stdin)["requests"]
vis = [e for e in reqs if e["query"].get("include_fields") == ["id,groups"]]
searches = [e for e in vis if e["path"] == "/rest/bug"]
alone = [e for e in vis if e["path"] != "/rest/bug"]
print(len(searches), len(alone), ";".join(e["query"]["id"][0] for e in searches))'
}
reset_log() { curl -sf -X POST -d '{}' "$bz/__admin/reset_log" >/dev/null; }

write_config <<EOF2
$(frontdoor_bridge_config)
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

check "the first sync mirrors both bugs" bb sync
is "/bug/501 shows it" "$(code /bug/501)" 200
is "its attachment is served" "$(code "/blob/sha256/$fw_hash")" 200
is "the first sync checked the mirrored bugs once, in one search" "$(visibility_requests)" \
	"1 0 501,502"

# --- hidden from the bridge: the changed-bugs search no longer shows it ------------
admin bug '{"id": 501, "merge": true, "groups": ["vendor"]}'
is "Bugzilla refuses the bug to the bridge's account" \
	"$(curl -s "$bz/rest/bug/501?api_key=bridgekey0123" | python3 -c 'import json,sys; print(json.load(sys.stdin)["code"])')" \
	"102"
admin clock '{"advance": 1800}'
reset_log
check "a sync half an hour later" bb sync
is "asks nothing of visibility: the hour has not passed" "$(visibility_requests)" "0 0 "
is "so /bug/501 still shows the hidden bug" "$(code /bug/501)" 200

admin clock '{"advance": 1801}'
reset_log
bb -v sync >sync.out 2>sync.err
is "a sync once the hour has passed succeeds" "$?" 0
is "it searched the mirrored bugs once and asked the missing one alone" \
	"$(visibility_requests)" "1 1 501,502"
like "it says it withdrew the bug" "$(cat sync.err)" "event=sync.hidden bug=501 .*no longer visible"
like "as a restricted one" "$(cat sync.err)" "1 bug restricted since mirrored: withdrawn"
is "/bugs answers" "$(code /bugs)" 200
unlike "/bugs no longer lists it" "$(cat "$WORK/body")" "soon hidden from the bridge"
like "/bugs still lists the public one" "$(cat "$WORK/body")" "a bug that stays public"
is "/bug/501 is gone" "$(code /bug/501)" 404
is "its blob is no longer served" "$(code "/blob/sha256/$fw_hash")" 404
is "its row is restricted" "$(reg 'SELECT mirrored, restricted FROM bz_bug WHERE id = 501')" "1|1"
is "the other stays public" "$(reg 'SELECT mirrored, restricted FROM bz_bug WHERE id = 502')" "1|0"

reset_log
check "the next sync" bb sync
is "asks nothing again before the next hour (the time is in the state)" "$(visibility_requests)" "0 0 "

# --- visibility_interval = 0: every round --------------------------------------------
sed -i 's/^\[bugzilla\]$/[bugzilla]\nvisibility_interval = 0/' "$BUGBRIDGE_CONFIG"
reset_log
check "a sync with visibility_interval = 0" bb sync
is "checks at once; the withdrawn bug is no longer asked for" "$(visibility_requests)" "1 0 502"
reset_log
check "and again" bb sync
is "every round" "$(visibility_requests)" "1 0 502"

# --- public again: the changed-bugs search brings it back -----------------------------
admin bug '{"id": 501, "merge": true, "groups": []}'
check "a sync after the bug is public again" bb sync
is "/bug/501 is back" "$(code /bug/501)" 200
is "its blob is served again" "$(code "/blob/sha256/$fw_hash")" 200

done_testing
