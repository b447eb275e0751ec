#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The front door files a report's Bugzilla bug once: a crash of `bugbridge
# serve` after Bugzilla filed the bug and before its id was recorded, and an
# answer of Bugzilla's lost after it filed the bug, both leave one bug, found
# again by its URL (the report mail's) on the next confirmation and linked
# from the report mail; and a report filed after the database was restored
# from an older copy (its id taken again) gets a Message-ID of its own.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"

cat >state.json <<'EOF'
{"users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
            "groups": ["editbugs"]}],
 "params": {"defaultopsys": "Linux", "defaultplatform": "All"},
 "products": [{"name": "Drivers", "versions": ["unspecified"], "components": ["Other"]}]}
EOF
fakebz_start state.json

PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
write_config <<EOF
$(serve_config_head)
$(frontdoor_bridge_config)
[archive]
link_url = https://lore.kernel.org/all
[frontdoor]
enabled = true
base_url = $BASE/
create_bugs = true
product = Drivers
component = Other
EOF

sql() { python3 -c 'import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()
print(r[0] if r else "")' "$WORK/data/bugbridge.db" "$1"; }
post() { curl -s -H "Origin: $BASE" "$@"; }
bugs() { curl -sf "$bz/rest/bug?product=Drivers&api_key=bridgekey0123" | python3 -c '
import json, sys; print(len(json.load(sys.stdin)["bugs"]))'; }
bug_url() { curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" | python3 -c '
import json, sys; print(json.load(sys.stdin)["bugs"][0]["url"])'; }
mail_with() { grep -l -- "$1" "$WORK"/mail/new/* 2>/dev/null | head -1; }
# start_server [ENV=VALUE]: bugbridge serve in the background ($server)
start_server() {
	rm -f "$WORK/port"
	env "$@" "$BUGBRIDGE" serve --port-file "$WORK/port" --pid-file "$WORK/pid" \
		>/dev/null 2>>"$WORK/serve.log" &
	server=$!
	CLEANUP_PIDS="$CLEANUP_PIDS $server"
	wait_for_port "$WORK/port" "$server"
}
# confirm TOKEN PAGE BUGS WHAT: POSTs the confirmation (the answer in PAGE);
# checks the answer (200), that Bugzilla has BUGS bugs and that the
# report's bug is recorded: $id
confirm() {
	code=$(post -o "$2" -w '%{http_code}' -d confirm=1 "$BASE/confirm/$1")
	is "$4: the confirmation goes through (200)" "$code" "200"
	is "$4: Bugzilla has $3 bugs, not one more" "$(bugs)" "$3"
	id=$(sql "SELECT bug_id FROM fd_report WHERE token = '$1'")
	like "$4: the report's bug is recorded" "$id" "^[1-9][0-9]*\$"
}
# report TITLE: files a report; prints its confirmation token (each title
# from an address of its own: one address gets [frontdoor] confirm_limit
# confirmation mails a day)
report() {
	post -o /dev/null -F "email=eve-$(printf '%s' "$1" | cksum | cut -d' ' -f1)@example.net" \
		--form-string "title=$1" \
		-F description=d -F kernel_version=6.7 "$BASE/report"
	sql "SELECT token FROM fd_report WHERE title = '$1'"
}

# --- a crash between filing the bug and recording its id -------------------------------
start_server BUGBRIDGE_CRASH_AT=frontdoor.bug_filed || { cat serve.log; skip_all "serve did not start"; }
token=$(report "crash between filing and recording")
like "a report waits for its confirmation" "$token" "^[0-9a-f]{32}\$"
post -o /dev/null "$BASE/confirm/$token" -d confirm=1
wait "$server" 2>/dev/null
is "serve stopped where the bug was filed" "$(grep -c 'test hook frontdoor.bug_filed' serve.log)" "1"
is "Bugzilla has the bug" "$(bugs)" "1"
is "its id was not recorded" "$(sql "SELECT bug_id FROM fd_report WHERE token = '$token'")" "0"
start_server || { cat serve.log; not_ok "serve starts again"; done_testing; exit 1; }
confirm "$token" confirmed.html 1 "after the crash"
like "the page links it" "$(cat confirmed.html)" "show_bug.cgi\\?id=$id\""
mid=$(sql "SELECT message_id FROM fd_report WHERE token = '$token'")
is "its URL is the report mail's archive link" "$(bug_url "$id")" "https://lore.kernel.org/all/$mid/"
i=0
while [ -z "$(mail_with "^Message-Id: <$mid>")" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
like "the report mail links the bug" "$(cat "$(mail_with "^Message-Id: <$mid>")" 2>/dev/null)" \
	"show_bug.cgi\\?id=$id"

# --- Bugzilla files the bug, and its answer is lost ----------------------------------------
token=$(report "an answer lost")
curl -sf -X POST -d '{"count": 1, "mode": "drop_after", "method": "POST", "path_prefix": "/rest/bug"}' \
	"$bz/__admin/fail" >/dev/null
confirm "$token" lost.html 2 "after the lost answer"
unlike "the page does not say it failed" "$(cat lost.html)" "could not be filed"
is "found by its URL" "$(bug_url "$id")" \
	"https://lore.kernel.org/all/$(sql "SELECT message_id FROM fd_report WHERE token = '$token'")/"

# --- Bugzilla cannot be asked: nothing is filed blind -----------------------------------------
token=$(report "bugzilla away")
curl -sf -X POST -d '{"count": 50, "status": 503, "method": "GET", "path_prefix": "/rest/bug"}' \
	"$bz/__admin/fail" >/dev/null
code=$(post -o away.html -w '%{http_code}' -d confirm=1 "$BASE/confirm/$token")
is "the report still goes to the list (200)" "$code" "200"
like "the page says the bug could not be filed" "$(cat away.html)" "could not be filed"
curl -sf -X POST -d '{"clear": true}' "$bz/__admin/fail" >/dev/null
is "no bug was filed without the search" "$(bugs)" "2"

# --- a restore from an older copy: report ids are taken again -------------------------------
stop_server "$server"
cp "$WORK/data/bugbridge.db" before.db
start_server || { cat serve.log; not_ok "serve starts again"; done_testing; exit 1; }
token=$(report "before the restore")
post -o /dev/null -d confirm=1 "$BASE/confirm/$token"
old_mid=$(sql "SELECT message_id FROM fd_report WHERE token = '$token'")
old_bug=$(sql "SELECT bug_id FROM fd_report WHERE token = '$token'")
stop_server "$server"
cp before.db "$WORK/data/bugbridge.db"
rm -f "$WORK/data/bugbridge.db-wal" "$WORK/data/bugbridge.db-shm"
start_server || { cat serve.log; not_ok "serve starts after the restore"; done_testing; exit 1; }
token=$(report "after the restore")
post -o /dev/null -d confirm=1 "$BASE/confirm/$token"
new_mid=$(sql "SELECT message_id FROM fd_report WHERE token = '$token'")
is "the restored database gives the report the same id" "${new_mid%%.*}" "${old_mid%%.*}"
test -n "$new_mid" && [ "$new_mid" != "$old_mid" ] &&
	ok "but a Message-ID of its own ($new_mid, not $old_mid)" ||
	not_ok "but a Message-ID of its own ($new_mid, not $old_mid)"
new_bug=$(sql "SELECT bug_id FROM fd_report WHERE token = '$token'")
test -n "$new_bug" && [ "$new_bug" != "$old_bug" ] && [ "$new_bug" -gt 0 ] &&
	ok "and a bug of its own ($new_bug, not $old_bug)" ||
	not_ok "and a bug of its own ($new_bug, not $old_bug)"
stop_server "$server"

done_testing
