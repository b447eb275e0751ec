#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# #bugbridge commands set values the Bugzilla has (GET /rest/field/bug):
# reopen takes the first open status its workflow allows, priority and
# severity are matched in any case and sent as the server spells them, and
# a value the server lacks is not sent but answered with the legal ones.
# First a stock 5.2 (CONFIRMED, priorities Highest..Lowest), then one that
# kept the old workflow as bugzilla.kernel.org did (REOPENED, P1..P5).
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

listlab_start_dkim example.org

cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "editusers"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "lead@example.org", "real_name": "Lead"}],
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
    {"id": 301, "summary": "iwlwifi: firmware crash after resume", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z", "description": "Wi-Fi dies after resume."},
    {"id": 302, "summary": "iwlwifi: scan fails", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z", "description": "No networks found."}
  ]
}
EOF2
fakebz_start state.json
field() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0][sys.argv[1]])' "$2"
}
# answer MSGID: the bridge's answer to that mail (its file); flat: on one line
answer() { grep -l "In-Reply-To: <$1>" "$WORK"/listlab/received/*.eml 2>/dev/null | xargs -r grep -l "X-Bugbridge-Loop"; }
flat() { tr -d '\r' <"$1" | tr '\n' '~'; }
# command BUG MSGID <BODY: the allowed maintainer's signed mail on the bug's thread
cmd_mail() {
	listlab_send "Lead <lead@example.org>" "$2" "bug-$1@bugbridge.test" "Re: [Bug $1] iwlwifi"
}

write_config <<EOF2
$(listlab_bridge_config)
[route wireless]
component = Wireless
lists = $LISTLAB_LIST
$(listlab_dkim_config)
allow = Lead <lead@example.org>
EOF2

check "first sync: the bugs go to the list" bb sync

# A stock 5.2: no REOPENED, priorities Highest .. Lowest
printf '#bugbridge close\n' | cmd_mail 301 close-1@example.org
check "sync after close" bb sync
is "close sets RESOLVED" "$(field 301 status)" "RESOLVED"
is "with the default resolution, which 5.2 has" "$(field 301 resolution)" "FIXED"

printf '#bugbridge reopen\n#bugbridge priority high\n#bugbridge priority P1\n#bugbridge severity BLOCKER\n#bugbridge close CODE_FIX\n' |
	cmd_mail 301 cmd-1@example.org
check "sync after reopen, priority, severity" bb sync
is "reopen without reopen_status: CONFIRMED, the 5.2 workflow's first open status from RESOLVED" \
	"$(field 301 status)" "CONFIRMED"
is "priority high is the server's High" "$(field 301 priority)" "High"
is "severity BLOCKER is blocker" "$(field 301 severity)" "blocker"
a=$(answer cmd-1@example.org)
is "one answer" "$(echo "$a" | grep -c .)" "1"
like "reopen done" "$(flat "$a")" "#bugbridge reopen~ +done~"
like "priority high done" "$(flat "$a")" "#bugbridge priority high~ +done~"
like "priority P1 is refused with the legal priorities" "$(flat "$a")" \
	"#bugbridge priority P1~ +failed: no priority \"P1\" on this Bugzilla; it has: Highest, High, Normal, Low, Lowest, ---~"
like "severity done" "$(flat "$a")" "#bugbridge severity BLOCKER~ +done~"
like "an unknown resolution is refused with the legal ones" "$(flat "$a")" \
	"#bugbridge close CODE_FIX~ +failed: no resolution \"CODE_FIX\" on this Bugzilla; it has: FIXED, INVALID, WONTFIX, DUPLICATE, WORKSFORME~"
like "Cc'd to the authenticated sender" "$(cat "$a")" "^Cc: .*lead@example.org"
is "the refused values were never sent (the others were)" "$(curl -sf "$bz/__admin/log?path_prefix=/rest/bug/301&method=PUT" |
	python3 -c 'import json,sys; r=[json.dumps(x["body"]) for x in json.load(sys.stdin)["requests"]]; print(any("High" in b for b in r), any("P1" in b or "CODE_FIX" in b for b in r))')" "True False"

# A Bugzilla that kept the old workflow (bugzilla.kernel.org)
curl -sf "$bz/__admin/state" | python3 -c '
import json, sys
d = json.load(sys.stdin)
d["workflow"] = "kernel.org"
d.pop("statuses", None)
for b in d["bugs"]:
    b["status"] = "NEW"
    b["priority"] = "P3"
print(json.dumps(d))' >state2.json
check "the fake switches to the old workflow" curl -sf -X POST --data-binary @state2.json "$bz/__admin/state"
is "it has REOPENED" "$(curl -sf "$bz/rest/field/bug/bug_status/values" | python3 -c 'import json,sys; print(" ".join(v for v in json.load(sys.stdin)["values"] if v))')" \
	"UNCONFIRMED NEW ASSIGNED REOPENED RESOLVED VERIFIED CLOSED"
printf '#bugbridge close\n' | cmd_mail 302 close-2@example.org
check "sync after close on the old workflow" bb sync
is "closed" "$(field 302 status)" "RESOLVED"
printf '#bugbridge reopen\n#bugbridge priority p1\n#bugbridge priority High\n' | cmd_mail 302 cmd-2@example.org
check "sync after reopen and priority on the old workflow" bb sync
is "reopen gives REOPENED" "$(field 302 status)" "REOPENED"
is "priority p1 is P1" "$(field 302 priority)" "P1"
a=$(answer cmd-2@example.org)
like "High is refused there, with P1 .. P5" "$(flat "$a")" \
	"#bugbridge priority High~ +failed: no priority \"High\" on this Bugzilla; it has: P1, P2, P3, P4, P5~"

done_testing
