#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The front door against a hostile user (issue 11): a refused form keeps
# nothing; an unconfirmed report's attachments wait in a quarantine no route
# serves, enter the blob store on confirmation and are removed after the
# confirmation window; per-client budgets are reserved when a POST starts
# (10 parallel submissions against a limit of 3: exactly 3 taken; refused
# forms count; bytes count; a restart forgets nothing); POSTs from another
# origin get 403; the confirmation mail carries no name of the filer's in
# its header and the title only quoted and cut in its body; no mail leaves
# from a request (a relay that never answers does not slow the pages);
# error pages show no server path; file names and titles lose bidi
# controls; pages send script-src 'none' and nosniff.  The confirmation
# page and a refused form are checked in headless Chromium.
#
# Curl's requests come from other loopback addresses (--interface
# 127.0.0.N) so each part has budgets of its own; Chromium's come from
# 127.0.0.1.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || skip_all "python3-aiosmtpd is not installed"
curl -s -o /dev/null --interface 127.0.0.2 --max-time 2 "http://127.0.0.1:1/" 2>/dev/null
[ $? = 45 ] && skip_all "cannot send from 127.0.0.2"

skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # SKIP $*"; }

# until COMMAND...: until it succeeds (bounded: 30 s)
until_ok() {
	i=0
	until "$@"; do
		[ $i -ge 300 ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
}
# sql QUERY: one value from the state database
sql() { python3 -c 'import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()
print(r[0] if r else "")' "$WORK/data/bugbridge.db" "$1"; }
blob_files() { find "$WORK/data/blobs/sha256" -type f 2>/dev/null | wc -l | tr -d ' '; }
quarantine_files() { find "$WORK/data/quarantine" -type f 2>/dev/null | wc -l | tr -d ' '; }

# --- the SMTP sink, and a relay that accepts and never answers ---------------------------
mkdir sink
/usr/bin/python3 "$top_srcdir/tests/lib/smtp_sink.py" --port-file sink.port --dir sink \
	>sink.out 2>&1 &
sink_pid=$!
CLEANUP_PIDS="$CLEANUP_PIDS $sink_pid"
wait_for_port sink.port "$sink_pid" || { cat sink.out; skip_all "the SMTP sink did not start"; }
python3 - hang.port <<'EOF' >hang.out 2>&1 &
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    c, _ = s.accept()
    held.append(c)  # never a byte back
EOF
hang_pid=$!
CLEANUP_PIDS="$CLEANUP_PIDS $hang_pid"
wait_for_port hang.port "$hang_pid" || skip_all "the silent relay did not start"

PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
# config SMTP_PORT CONFIRM_WINDOW
config() {
	write_config <<EOF
$(serve_config_head)
max_upload_size = 32M
[mail]
domain = bridge.example.org
from = Bridge <bridge@example.org>
[smtp]
host = 127.0.0.1
port = $1
timeout = 3s
[routing]
default_lists = linux-kernel@vger.kernel.org
[frontdoor]
enabled = true
base_url = $BASE
rate_limit = 3
day_bytes = 16M
confirm_window = $2
EOF
}
server=""
start_server() {
	rm -f "$WORK/port"
	"$BUGBRIDGE" serve --port-file "$WORK/port" --pid-file "$WORK/pid" \
		>/dev/null 2>>"$WORK/serve.log" &
	server=$!
	CLEANUP_PIDS="$CLEANUP_PIDS $server"
	wait_for_port "$WORK/port" "$server"
}

config "$(cat sink.port)" 7d
start_server || { cat serve.log; not_ok "the server starts"; done_testing; exit 1; }

# from N: curl from 127.0.0.N, POSTs with the front door's own Origin
from() { n=$1; shift; curl -s --max-time 60 --interface "127.0.0.$n" "$@"; }
post() { n=$1; shift; from "$n" -H "Origin: $BASE" "$@"; }

# --- headers of every page ---------------------------------------------------------------
csp_ok() { printf '%s' "$1" | tr -d '\r' | grep -i '^Content-Security-Policy:' | grep -q "script-src 'none'"; }
nosniff_ok() { printf '%s' "$1" | tr -d '\r' | grep -qi '^X-Content-Type-Options: nosniff'; }
h=$(from 2 -D - -o /dev/null "$BASE/")
csp_ok "$h" && ok "the form sends script-src 'none'" || not_ok "the form sends script-src 'none'"
nosniff_ok "$h" && ok "the form sends nosniff" || not_ok "the form sends nosniff"
h=$(from 2 -D - -o /dev/null "$BASE/bugs")
csp_ok "$h" && ok "the bug list sends script-src 'none'" || not_ok "the bug list sends script-src 'none'"

# --- a refused form keeps nothing ----------------------------------------------------------
random_bytes 2097152 21 >refused.bin
REFUSED=$(sha256_of refused.bin)
blobs_before=$(blob_files)
code=$(post 2 -D refused.h -o refused.html -w '%{http_code}' -F 'email=not an address' \
	-F title=t -F description=d -F attachment=@refused.bin "$BASE/report")
is "a form with a bad address is refused (400)" "$code" "400"
csp_ok "$(cat refused.h)" && ok "the refusal sends script-src 'none'" ||
	not_ok "the refusal sends script-src 'none'"
is "the refused form's attachment is not served" \
	"$(from 2 -o /dev/null -w '%{http_code}' "$BASE/blob/sha256/$REFUSED")" "404"
is "the refused form stored no blob" "$(blob_files)" "$blobs_before"
is "and left nothing in the quarantine" "$(quarantine_files)" "0"

# --- refused forms count against the budget --------------------------------------------------
codes=""
for i in 1 2 3 4; do
	codes="$codes $(post 4 -o /dev/null -w '%{http_code}' -F 'email=bad' -F title=t \
		-F description=d "$BASE/report")"
done
is "the fourth refused form within the hour is answered 429" "$codes" " 400 400 400 429"
is "GETs do not count" "$(from 4 -o /dev/null -w '%{http_code}' "$BASE/bugs")" "200"

# --- 10 parallel submissions against a limit of 3 ---------------------------------------------
random_bytes 1048576 22 >par.bin
pids=""
i=0
while [ $i -lt 10 ]; do
	post 3 -o /dev/null -w '%{http_code}\n' -F email=par@example.org -F "title=parallel $i" \
		-F description=d -F attachment=@par.bin "$BASE/report" >"par.$i" &
	pids="$pids $!"
	i=$((i + 1))
done
wait $pids
is "exactly 3 of 10 parallel submissions are taken" "$(cat par.* | grep -c '^202$')" "3"
is "the other 7 are answered 429" "$(cat par.* | grep -c '^429$')" "7"
is "3 reports stored from that client" "$(sql "SELECT count(*) FROM fd_report WHERE client = '127.0.0.3'")" "3"

# --- the bytes budget (16M a day) --------------------------------------------------------------
random_bytes 10485760 23 >big.bin
is "a 10 MB report is taken" "$(post 5 -o /dev/null -w '%{http_code}' -F email=big@example.org \
	-F title=big -F description=d -F attachment=@big.bin "$BASE/report")" "202"
is "a second one passes the day's bytes: 429" "$(post 5 -o /dev/null -w '%{http_code}' \
	-F email=big@example.org -F title=big2 -F description=d -F attachment=@big.bin "$BASE/report")" "429"

# --- Origin / Referer ----------------------------------------------------------------------------
is "a POST without Origin or Referer: 403" "$(from 6 -o cross.html -w '%{http_code}' \
	-F email=o@example.org -F title=t -F description=d "$BASE/report")" "403"
like "with a page that says why" "$(cat cross.html)" "only be sent from the front door"
is "a POST from another origin: 403" "$(from 6 -o /dev/null -w '%{http_code}' \
	-H 'Origin: http://evil.example' -F email=o@example.org -F title=t -F description=d \
	"$BASE/report")" "403"
is "Origin null: 403" "$(from 6 -o /dev/null -w '%{http_code}' -H 'Origin: null' \
	-F email=o@example.org -F title=t -F description=d "$BASE/report")" "403"
is "a Referer from another site: 403" "$(from 6 -o /dev/null -w '%{http_code}' \
	-H "Referer: http://127.0.0.1:$PORT.evil.example/" -F email=o@example.org -F title=t \
	-F description=d "$BASE/report")" "403"
is "a Referer from the front door's page (no Origin): taken" "$(from 6 -o /dev/null \
	-w '%{http_code}' -H "Referer: $BASE/" -F email=o@example.org -F title=referer \
	-F description=d "$BASE/report")" "202"

# --- the confirmation mail ------------------------------------------------------------------------
LONG_TITLE="Evil <attacker@evil.example> wins a prize: $(printf 'x%.0s' $(seq 1 120)) END"
BIDI=$(printf 'gnp\342\200\256.exe')
random_bytes 300000 24 >named.bin
NAMED=$(sha256_of named.bin)
code=$(post 7 -o mailrep.html -w '%{http_code}' \
	--form-string "name=Prize Committee <winner@evil.example>" -F email=victim@example.net \
	--form-string "title=$LONG_TITLE $BIDI" --form-string "description=click" \
	-F "attachment=@named.bin;filename=some/dir/$BIDI" "$BASE/report")
is "a report with a hostile name and title is taken" "$code" "202"
is "its attachment is not served before confirmation" \
	"$(from 7 -o /dev/null -w '%{http_code}' "$BASE/blob/sha256/$NAMED")" "404"
is "nor in the blob store" "$(find "$WORK/data/blobs/sha256" -name "${NAMED#??}" | wc -l | tr -d ' ')" "0"
mailfile() { grep -l "$1" sink/*.eml 2>/dev/null | head -1; }
until_ok test -n "$(mailfile 'To: victim@example.net')"
m=$(mailfile 'To: victim@example.net')
test -n "$m" && ok "the confirmation mail reached the relay" || not_ok "the confirmation mail reached the relay"
headers=$(sed '/^$/q' "$m" 2>/dev/null)
like "To: is the bare address" "$headers" "^To: victim@example.net\$"
unlike "no name of the filer's in the header" "$headers" "Prize|winner@evil"
like "the Subject is fixed" "$headers" "^Subject: Confirm your bug report\$"
unlike "the title is not in the header" "$headers" "attacker|prize"
body=$(sed '1,/^$/d' "$m" 2>/dev/null)
like "the body quotes the title, cut" "$body" '"Evil <attacker@evil.example> wins a prize: x+\.\.\."'
unlike "not all of it" "$body" "END"
is "the envelope goes to the bare address only" \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rcpt_tos"])' "${m%.eml}.json")" \
	"['victim@example.net']"

# confirming: the attachment becomes public, its name clean
token=$(sql "SELECT token FROM fd_report WHERE email = 'victim@example.net'")
rid=$(sql "SELECT id FROM fd_report WHERE email = 'victim@example.net'")
is "its attachment waits in the quarantine" "$(ls "$WORK/data/quarantine/$rid" 2>/dev/null)" "1"
is "the title lost its bidi override" \
	"$(sql "SELECT instr(title, char(8238)) FROM fd_report WHERE id = $rid")" "0"
is "a confirming POST from another origin: 403" "$(from 7 -o /dev/null -w '%{http_code}' \
	-H 'Origin: http://evil.example' -d confirm=1 "$BASE/confirm/$token")" "403"
is "and it confirmed nothing" "$(sql "SELECT state FROM fd_report WHERE id = $rid")" "unconfirmed"
is "confirming from the page: 200" "$(post 7 -o confirmed.html -w '%{http_code}' -d confirm=1 \
	"$BASE/confirm/$token")" "200"
is "the quarantine let it go" "$(ls "$WORK/data/quarantine/$rid" 2>/dev/null)" ""
until_ok test -n "$(mailfile "^Message-Id: <report-$rid\.[0-9a-f]\{12\}@bridge.example.org>")"
rm_=$(mailfile "^Message-Id: <report-$rid\.[0-9a-f]\{12\}@bridge.example.org>")
link=$(grep -o "$BASE/blob/sha256/$NAMED/[^ ]*" "$rm_" 2>/dev/null | head -1)
like "the report mail links the attachment by its base name, without the override" "$link" \
	"/$NAMED/gnp\\.exe\$"
is "the link works" "$(from 7 -o named.out -w '%{http_code}' "$link")" "200"
is "with the file's bytes" "$(sha256_of named.out)" "$NAMED"

# --- error pages show no server path ----------------------------------------------------------------
mv "$WORK/data/quarantine/tmp" "$WORK/data/quarantine/tmp.away"
touch "$WORK/data/quarantine/tmp"
mv "$WORK/data/blobs/tmp" "$WORK/data/blobs/tmp.away" 2>/dev/null && touch "$WORK/data/blobs/tmp"
printf 'a log line\n' >dmesg.txt
code=$(post 8 -o broken.html -w '%{http_code}' -F email=b@example.org -F title=t -F description=d \
	-F attachment=@dmesg.txt "$BASE/report")
rm -f "$WORK/data/quarantine/tmp" "$WORK/data/blobs/tmp"
mv "$WORK/data/quarantine/tmp.away" "$WORK/data/quarantine/tmp"
mv "$WORK/data/blobs/tmp.away" "$WORK/data/blobs/tmp" 2>/dev/null
like "storing that fails answers 5xx" "$code" "^5"
unlike "its page shows no server path" "$(cat broken.html)" "$WORK|/data/|No such|Not a directory"
grep -q 'event=frontdoor.storing_failed' bb.log && ok "the details are in the log" ||
	not_ok "the details are in the log"

# --- in a real browser ---------------------------------------------------------------------------------
. "$top_srcdir/tests/lib/browser.sh"
browser_find
if [ -z "$CHROMIUM" ]; then
	diag "chromium is not installed; browser checks skipped"
	for n in 1 2 3 4; do skip "chromium is not installed"; done
else
	blobs_before=$(blob_files) quarantine_before=$(quarantine_files)
	random_bytes 400000 25 >browser.bin
	out=$(timeout 180 python3 "$top_srcdir/tests/lib/cdp_submit.py" "$CHROMIUM" "$WORK/cdp1" \
		"$BASE/" browser.bin email=browser@example.net "title=   " description=typed 2>cdp.err)
	like "Chromium: a refused form shows the refusal page" "$out" \
		"^The report is not complete.*Give the report a title"
	is "Chromium: the refused form stored no blob" "$(blob_files) $(quarantine_files)" \
		"$blobs_before $quarantine_before"
	post 9 -o /dev/null -F email=chrome@example.net --form-string "title=<b>bold</b>" \
		-F description=d "$BASE/report"
	ctoken=$(sql "SELECT token FROM fd_report WHERE email = 'chrome@example.net'")
	out=$(timeout 180 python3 "$top_srcdir/tests/lib/cdp_submit.py" "$CHROMIUM" "$WORK/cdp2" \
		"$BASE/confirm/$ctoken" - 2>>cdp.err)
	like "Chromium: the confirmation page's button sends the report (Origin accepted)" "$out" \
		"^Report sent"
	like "Chromium: the title is text on it" "$out" "<b>bold</b>"
	test -s cdp.err && diag "cdp: $(cat cdp.err)"
fi

# --- a restart forgets no budget; a relay that never answers slows no page --------------------------------
stop_server "$server"
is "the server stops cleanly" "$?" "0"
config "$(cat hang.port)" 1s
start_server || not_ok "the server starts again"
is "after a restart the parallel client is still over its budget" \
	"$(post 3 -o /dev/null -w '%{http_code}' -F email=par@example.org -F title=again \
	-F description=d "$BASE/report")" "429"
random_bytes 100000 26 >slow.bin
is "with a relay that never answers a report is still taken" \
	"$(post 10 --max-time 5 -o /dev/null -w '%{http_code}' -F email=slow@example.org -F title=slow \
	-F description=d -F attachment=@slow.bin "$BASE/report")" "202"
sid=$(sql "SELECT id FROM fd_report WHERE email = 'slow@example.org'")
is "its mail is pending" "$(sql "SELECT state FROM outbox WHERE message_id LIKE 'report-$sid.%-confirm@bridge.example.org'")" "queued"
is "GET /bugs answers while the relay hangs" \
	"$(from 10 --max-time 3 -o /dev/null -w '%{http_code}' "$BASE/bugs")" "200"
is "and so does GET /" "$(from 10 --max-time 3 -o /dev/null -w '%{http_code}' "$BASE/")" "200"

# the confirmation window (1s here) passes: the quarantine is emptied
stoken=$(sql "SELECT token FROM fd_report WHERE id = $sid")
until_ok test "$(sql "SELECT state FROM fd_report WHERE id = $sid")" = expired
is "the unconfirmed report expired" "$(sql "SELECT state FROM fd_report WHERE id = $sid")" "expired"
is "its attachment left the quarantine" "$(ls "$WORK/data/quarantine/$sid" 2>/dev/null)" ""
is "its link answers 410" "$(from 10 --max-time 3 -o /dev/null -w '%{http_code}' "$BASE/confirm/$stoken")" "410"

stop_server "$server"
is "the server stops cleanly with a delivery hanging" "$?" "0"

done_testing
