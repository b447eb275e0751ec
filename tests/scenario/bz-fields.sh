#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What bugbridge asks of Bugzilla: the gate's flag in the search itself (a
# bug carrying only the flag is mirrored, one without it is not), every
# field it reads in include_fields (cf_kernel_version reaches the mail's
# Kernel: line), a startup warning for a configured field the server lacks
# (GET /rest/field/bug at most once a day), api_key_in = auto against a 5.2
# (GET /rest/version once per run, then the key as a parameter), and error
# messages that name the request's URL without the key.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

listlab_start

cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123"},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "fields": {"cf_kernel_version": {"description": "Kernel Version"},
             "cf_regression": {"description": "Regression", "values": ["---", "No", "Yes"]}},
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
    {"id": 401, "summary": "iwlwifi: flagged for the bot", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z", "cf_kernel_version": "6.12.3",
     "flags": [{"id": 1, "type_id": 1, "name": "bugbot", "status": "+",
                "setter": "ines@example.net"}],
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Only the flag says mirror me."}]},
    {"id": 402, "summary": "iwlwifi: not flagged", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:10:00Z", "cf_kernel_version": "6.11",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:10:00Z",
                   "text": "Nobody flagged this one."}]},
    {"id": 403, "summary": "iwlwifi: flag asked, not granted", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:20:00Z",
     "flags": [{"id": 2, "type_id": 1, "name": "bugbot", "status": "?",
                "setter": "ines@example.net"}],
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:20:00Z",
                   "text": "Asked for the bot only."}]}
  ]
}
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
# count PATH: requests to PATH in the fake's log
count() { curl -sf "$bz/__admin/log" | python3 -c 'import json,sys; print(sum(1 for e in json.load(sys.stdin)["requests"] if e["path"] == sys.argv[1]))' "$1"; }

# api_key_in left to its default (auto); the gate is the flag alone
write_config <<EOF2
$(listlab_bridge_config | sed -e '/^api_key_in = /d' -e 's/^products = Drivers$/products = Drivers\nflag = bugbot+/')
EOF2
unlike "the configuration leaves api_key_in to its default" "$(cat "$WORK/bugbridge.conf")" "api_key_in"
is "which is auto" "$(bb config --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["settings"]["bugzilla"]["api_key_in"])')" "auto"

check "first sync" sh -c "'$BUGBRIDGE' sync 2>sync1.err"
raw=$(listlab_raw bug-401@bugbridge.test)
like "the bug carrying only the flag is mirrored" "$raw" "Subject: \[Bug 401\] iwlwifi: flagged for the bot"
like "its cf_kernel_version is on the Kernel: line" "$raw" "Kernel: *6.12.3"
is "the bug without the flag is not" "$(grep -l 'Bug 402' "$WORK"/listlab/received/*.eml 2>/dev/null | wc -l)" "0"
is "nor the one whose flag is only asked (bugbot?)" "$(grep -l 'Bug 403' "$WORK"/listlab/received/*.eml 2>/dev/null | wc -l)" "0"

search=$(curl -sf "$bz/__admin/log?path_prefix=/rest/bug" | python3 -c '
import json, sys
for e in json.load(sys.stdin)["requests"]:
    if e["path"] == "/rest/bug":
        q = e["query"]
        print(q.get("f1"), q.get("j1"), q.get("f2"), q.get("o2"), q.get("v2"), q.get("f3"),
              "flags" in q["include_fields"][0].split(","),
              "cf_kernel_version" in q["include_fields"][0].split(","),
              "cf_bisect_commit" in q["include_fields"][0].split(","),
              e["api_key_via"], e["user"])
        break')
is "the search asks for the flag and the fields, the key as a parameter" "$search" \
	"['OP'] ['OR'] ['flagtypes.name'] ['equals'] ['bugbot+'] ['CP'] True True True param bridge@example.org"
is "/rest/version asked once" "$(count /rest/version)" "1"
version_key=$(curl -sf "$bz/__admin/log?path_prefix=/rest/version" | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"][0]["api_key"])')
is "without the key" "$version_key" "False"
is "/rest/field/bug asked once" "$(count /rest/field/bug)" "1"
like "a configured field the server lacks is a warning" "$(cat sync1.err)" \
	"bz.field.missing.*key=\"\[tracker\] bisect_field\".*field=cf_bisect_commit"
unlike "a field it has is not" "$(cat sync1.err)" "field=cf_kernel_version"
unlike "nor is the flag field" "$(cat sync1.err)" "field=flagtypes.name"

admin clock '{"advance": 60}'
admin bug '{"id": 402, "merge": true, "flags": [{"id": 3, "type_id": 1, "name": "bugbot", "status": "+", "setter": "ines@example.net"}]}'
check "second sync" sh -c "'$BUGBRIDGE' sync 2>sync2.err"
like "a bug that gets the flag is mirrored then" "$(listlab_raw bug-402@bugbridge.test)" "Kernel: *6.11"
is "/rest/field/bug is not asked again the same day" "$(count /rest/field/bug)" "1"
is "/rest/version once per run" "$(count /rest/version)" "2"
unlike "and no warning again" "$(cat sync2.err)" "bz.field.missing"

# a key Bugzilla refuses: the message names the URL, not the key
write_config <<EOF2
$(listlab_bridge_config | sed -e 's/^api_key = .*/api_key = wrongkey0123456789/' -e 's/^api_key_in = .*/api_key_in = param/')
EOF2
check_exit "a sync with a bad key fails" 77 sh -c "'$BUGBRIDGE' sync 2>sync3.err"
err=$(cat sync3.err)
like "the error names the request's URL" "$err" "\(from $bz/rest/time\)"
unlike "without the key" "$err" "wrongkey0123456789"
unlike "nor an api_key parameter" "$err" "api_key="

done_testing
