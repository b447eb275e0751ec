#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bugbridge serve's front door: the report form (curl, and a real submission
# in headless Chromium through the DevTools protocol), the confirmation mail
# and its link, the report mail to the routed list (attachments as sha256
# lines and blob links, the blob's hash checked), the Bugzilla bug filed in
# the fake Bugzilla, the rate limit, the size limit, and the bug pages
# (filters, text search, no private comment, no restricted bug), with
# hostile text escaped everywhere (checked in Chromium's DOM as well).
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"

skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # SKIP $*"; }

HOSTILE='<img src=x onerror=alert(1)><script>alert(2)</script> "q" & co'
HOSTILE_ESC='&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt; &quot;q&quot; &amp; co'

# --- a fake Bugzilla that takes new bugs -----------------------------------------
cat >state.json <<'EOF'
{"users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
            "groups": ["editbugs"]}],
 "params": {"defaultopsys": "Linux", "defaultplatform": "All"},
 "products": [{"name": "Drivers", "versions": ["unspecified"],
               "components": ["USB", "Other", "network-wireless-intel"]}]}
EOF
fakebz_start state.json

# --- imported bugs to browse, one with a hostile summary and comment -------------
python3 - "$top_srcdir/demo/bugzilla-sample.xml" "$HOSTILE" <<'EOF'
import sys
from xml.sax.saxutils import escape
s = open(sys.argv[1], encoding="utf-8").read()
old = "xhci_hcd: USB 3 hub disconnects every few minutes — «device descriptor read/64, error -71»"
assert old in s
s = s.replace(old, "xhci_hcd hub " + escape(sys.argv[2], {'"': "&quot;"}))
open("bugs.xml", "w", encoding="utf-8").write(s)
EOF

PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
write_config <<EOF
$(serve_config_head)
max_upload_size = 8M
$(frontdoor_bridge_config)
[route wifi]
product = Drivers
component = network-wireless-intel
lists = linux-wireless@vger.kernel.org
[route usb]
product = Drivers
component = USB
lists = linux-usb@vger.kernel.org
people = USB Maintainer <usb-maint@example.org>
[frontdoor]
enabled = true
base_url = $BASE/
rate_limit = 12
create_bugs = true
product = Drivers
component = Other
EOF

bb import --from-xml bugs.xml >import.out 2>&1 || { cat import.out; not_ok "import the sample bugs"; }

# wait_for_port FILE PID

"$BUGBRIDGE" serve --port-file "$WORK/port" --pid-file "$WORK/pid" \
	>/dev/null 2>"$WORK/serve.log" &
server=$!
CLEANUP_PIDS="$CLEANUP_PIDS $server"
wait_for_port "$WORK/port" "$server" || { cat "$WORK/serve.log"; skip_all "the server did not start"; }

mails() { ls "$WORK/mail/new" 2>/dev/null | wc -l | tr -d ' '; }
# wait_mails N: until the delivery thread has delivered N mails (bounded)
wait_mails() {
	i=0
	while [ "$(mails)" -lt "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
# POSTs come from the front door's own pages
post() { curl -H "Origin: $BASE" "$@"; }
mail_with() { grep -l -- "$1" "$WORK"/mail/new/* 2>/dev/null | head -1; }

# --- the form ------------------------------------------------------------------------
headers=$(curl -s -D - -o form.html "$BASE/" | tr -d '\r')
like "GET / answers 200" "$headers" "^HTTP/1.1 200"
like "the pages carry a Content-Security-Policy" "$headers" "^Content-Security-Policy: default-src 'self'"
like "the pages are not sniffed" "$headers" "^X-Content-Type-Options: nosniff"
like "the form is a multipart POST to /report" "$(cat form.html)" 'method="post" action="/report" enctype="multipart/form-data"'
like "the form says the report will be public" "$(cat form.html)" "Your report will be public"
like "the form offers the routes" "$(cat form.html)" '<option value="1">Drivers / USB \(usb\)</option>'
is "GET /report is the form too" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/report")" "200"
is "the style sheet is served" "$(curl -s -o /dev/null -w '%{http_code} %{content_type}' "$BASE/frontdoor.css")" \
	"200 text/css; charset=utf-8"
is "PUT /report is refused" "$(curl -s -o /dev/null -w '%{http_code}' -T form.html "$BASE/report")" "405"
is "the blob server still answers beside it" \
	"$(curl -s -o /dev/null -w '%{http_code}' "$BASE/blob/sha256/$(printf '%064d' 0)")" "404"

# --- a report with a 3 MB attachment -------------------------------------------------
random_bytes 3145728 11 >dump.bin
DUMP=$(sha256_of dump.bin)
printf 'a log line\n' >dmesg.txt
code=$(post -s -o submit.html -w '%{http_code}' --form-string "name=Eve Tester" \
	-F email=eve@example.net --form-string "title=$HOSTILE" \
	--form-string "description=The hub drops <b>every</b> minute." \
	-F kernel_version=6.7.1 --form-string "regression=6.6 worked; 6.7 broke" -F route=1 \
	-F "attachment=@dump.bin;type=application/octet-stream" -F "attachment=@dmesg.txt" "$BASE/report")
is "the report is taken (202)" "$code" "202"
like "the answer says to check the mail" "$(cat submit.html)" "Check your mail"
like "the answer lists the attachment's hash" "$(cat submit.html)" "sha256:$DUMP"
grep -qF "$HOSTILE_ESC" submit.html && ok "the hostile title is escaped on the answer page" ||
	not_ok "the hostile title is escaped on the answer page"
grep -q '<script>' submit.html && not_ok "no script element in the answer" || ok "no script element in the answer"
is "the attachment is not served before confirmation" \
	"$(curl -s -o /dev/null -w '%{http_code}' "$BASE/blob/sha256/$DUMP")" "404"

wait_mails 1
is "one mail so far: the confirmation" "$(mails)" "1"
confirm_mail=$(mail_with "^Message-Id: <report-1\.[0-9a-f]\{12\}-confirm@bridge.example.org>")
test -n "$confirm_mail" && ok "the confirmation mail has its Message-ID" || not_ok "the confirmation mail has its Message-ID"
like "it goes to the filer's bare address" "$(cat "$confirm_mail")" "^To: eve@example.net\$"
link=$(grep -o "$BASE/confirm/[0-9a-f]*" "$confirm_mail" | head -1)
like "it holds the confirmation link" "$link" "/confirm/[0-9a-f]{32}\$"
test -z "$(mail_with 'linux-usb@vger.kernel.org')" && ok "nothing reaches the list before confirmation" ||
	not_ok "nothing reaches the list before confirmation"

# --- confirming ------------------------------------------------------------------------
curl -s -I "$link" >/dev/null
test -z "$(mail_with 'linux-usb@vger.kernel.org')" && ok "a HEAD of the link confirms nothing" ||
	not_ok "a HEAD of the link confirms nothing"
code=$(curl -s -o confirm-page.html -w '%{http_code}' "$link")
is "the link shows a page (200)" "$code" "200"
like "with a button that posts back to it" "$(cat confirm-page.html)" '<form method="post" action="">'
grep -qF "$HOSTILE_ESC" confirm-page.html && ok "the title is escaped on it" ||
	not_ok "the title is escaped on it"
test -z "$(mail_with 'linux-usb@vger.kernel.org')" &&
	ok "following the link alone confirms nothing (a mail scanner fetching it sends nothing)" ||
	not_ok "following the link alone confirms nothing (a mail scanner fetching it sends nothing)"
code=$(post -s -o confirm.html -w '%{http_code}' -d confirm=1 "$link")
is "pressing the button confirms (200)" "$code" "200"
like "the page says where it went" "$(cat confirm.html)" "sent to linux-usb@vger.kernel.org"
grep -qF "$HOSTILE_ESC" confirm.html && ok "the title is escaped on the confirmation page" ||
	not_ok "the title is escaped on the confirmation page"
is "the attachment is in the blob store once confirmed" "$(bb blob show --json "$DUMP" | python3 -c 'import json,sys; print(json.load(sys.stdin)["blob"]["size"])')" "3145728"
wait_mails 2
# report-<id>.<the start of the token's SHA-256>: ids start over after a
# restore, tokens do not
ref=$(printf '%s' "${link##*/}" | sha256sum | cut -c1-12)
report=$(mail_with "^Message-Id: <report-1\.$ref@bridge.example.org>")
test -n "$report" && ok "the report mail's Message-ID is the report's id and reference" ||
	not_ok "the report mail's Message-ID is the report's id and reference"
report_text=$(cat "$report")
like "it goes to the routed list" "$report_text" "^To: linux-usb@vger.kernel.org"
like "with the route's people and the filer in Cc" "$report_text" "^Cc: USB Maintainer <usb-maint@example.org>, Eve Tester <eve@example.net>"
like "the subject marks the regression" "$report_text" "^Subject: \[REGRESSION\] <img"
like "it is plain text, no MIME attachment" "$report_text" "^Content-Type: text/plain; charset=utf-8"
unlike "no multipart" "$report_text" "multipart/"
like "the attachment is a sha256 line" "$report_text" "^  sha256:$DUMP\$"
like "the regression details are in it" "$report_text" "6.6 worked; 6.7 broke"
url=$(grep -o "$BASE/blob/sha256/$DUMP/dump.bin" "$report" | head -1)
like "with its blob URL" "$url" "dump.bin\$"
curl -s -o fetched.bin "$url"
is "the blob behind the link has the file's hash" "$(sha256_of fetched.bin)" "$DUMP"
bug_id=$(grep -o 'show_bug.cgi?id=[0-9]*' confirm.html | head -1 | cut -d= -f2)
like "a Bugzilla bug was filed" "$bug_id" "^[0-9][0-9]*\$"
like "the report mail links the bug" "$report_text" "^Bugzilla: $bz/show_bug.cgi\\?id=$bug_id\$"
bug_json=$(curl -sf "$bz/rest/bug/$bug_id?api_key=bridgekey0123")
is "the bug is in Drivers / USB with the title" "$(printf '%s' "$bug_json" | python3 -c '
import json, sys; b = json.load(sys.stdin)["bugs"][0]; print(b["product"], b["component"], b["summary"])')" \
	"Drivers USB $HOSTILE"
is "its URL is the report mail's (no archive: the Message-ID)" "$(printf '%s' "$bug_json" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["bugs"][0]["url"])')" \
	"<report-1.$ref@bridge.example.org>"
like "its description holds the attachment's hash" \
	"$(curl -sf "$bz/rest/bug/$bug_id/comment?api_key=bridgekey0123")" "sha256:$DUMP"

before=$(mails)
code=$(post -s -o again.html -w '%{http_code}' -d confirm=1 "$link")
is "confirming again changes nothing (200)" "$code" "200"
like "it says so" "$(cat again.html)" "Already confirmed"
like "and so does the link" "$(curl -s "$link")" "Already confirmed"
is "other methods: 405" "$(curl -s -o /dev/null -w '%{http_code}' -X PUT "$link")" "405"
is "no second mail" "$(mails)" "$before"
is "no second bug" "$(curl -sf "$bz/rest/bug?product=Drivers&api_key=bridgekey0123" | python3 -c '
import json, sys; print(len(json.load(sys.stdin)["bugs"]))')" "1"
is "an unknown token is 404" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/confirm/$(printf '%032d' 0)")" "404"
is "a malformed token is 404" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/confirm/xyz")" "404"

# --- refusals -----------------------------------------------------------------------------
is "no address: 400" "$(post -s -o /dev/null -w '%{http_code}' -F title=t -F description=d "$BASE/report")" "400"
is "a bad address: 400" "$(post -s -o /dev/null -w '%{http_code}' -F 'email=a b@c' -F title=t -F description=d "$BASE/report")" "400"
is "an unknown route: 400" "$(post -s -o /dev/null -w '%{http_code}' -F email=a@b.org -F title=t -F description=d -F route=7 "$BASE/report")" "400"
is "not a form: 400" "$(post -s -o /dev/null -w '%{http_code}' -H 'Content-Type: text/plain' --data-binary x "$BASE/report")" "400"
random_bytes 9000000 12 >huge.bin
is "an attachment past max_upload_size: 413" \
	"$(post -s -o /dev/null -w '%{http_code}' -F email=a@b.org -F title=t -F description=d -F attachment=@huge.bin "$BASE/report")" "413"
is "refusals mail nothing" "$(mails)" "$before"

# --- bug pages ------------------------------------------------------------------------------
curl -s -D list.h -o list.html "$BASE/bugs"
like "the bug list lists the public bugs" "$(grep -o 'href="/bug/[0-9]*"' list.html | tr '\n' ' ')" \
	'href="/bug/218104" href="/bug/218131"'
unlike "not the restricted one" "$(cat list.html)" "218140"
grep -qF "xhci_hcd hub $HOSTILE_ESC" list.html && ok "the hostile summary is escaped in the list" ||
	not_ok "the hostile summary is escaped in the list"
ids() { curl -s "$BASE/bugs?$1" | grep -o 'href="/bug/[0-9]*"' | cut -d/ -f3 | tr -d '"' | tr '\n' ' '; }
is "filter: regression=yes" "$(ids regression=yes)" "218104 "
is "filter: regression=no" "$(ids regression=no)" "218131 "
is "filter: component" "$(ids component=USB)" "218131 "
is "filter: status" "$(ids status=NEW)" "218104 "
is "search: a summary word" "$(ids q=firmware)" "218104 "
is "search: text of a public comment" "$(ids q=iwlwifi.debug%3D0x1)" "218104 "
is "search: text of a private comment finds nothing" "$(ids q=serial+number)" ""
is "search: % is literal" "$(ids q=%25)" ""
curl -s -o listq.html "$BASE/bugs?q=%22%3E%3Cscript%3Ealert(3)%3C%2Fscript%3E"
grep -qF 'value="&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;"' listq.html &&
	ok "the search text is escaped in its attribute" || not_ok "the search text is escaped in its attribute"
curl -s -o bug.html "$BASE/bug/218104"
like "a bug page shows its attachment links" "$(cat bug.html)" \
	"href=\"$BASE/blob/sha256/[0-9a-f]*/iwlwifi-debug.bin\""
like "with their hashes" "$(cat bug.html)" "sha256:[0-9a-f]{64}</code>"
like "and the public comments" "$(cat bug.html)" "Collected with iwlwifi.debug=0x1"
unlike "never a private comment" "$(cat bug.html)" "serial number"
unlike "no addresses on the page" "$(cat bug.html)" "ines.reporter@example.net"
is "a restricted bug is 404" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/bug/218140")" "404"
is "an unknown bug is 404" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/bug/1")" "404"
is "a malformed id is 404" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/bug/12x")" "404"
curl -s -o hostile.html "$BASE/bug/218131"
grep -qF "$HOSTILE_ESC" hostile.html && ok "the hostile title is escaped on its bug page" ||
	not_ok "the hostile title is escaped on its bug page"

# --- in a real browser ----------------------------------------------------------------------
. "$top_srcdir/tests/lib/browser.sh"
browser_find

if [ -z "$CHROMIUM" ]; then
	diag "chromium is not installed (Debian: apt-get install chromium); browser checks skipped"
	for n in 1 2 3 4 5 6 7; do skip "chromium is not installed"; done
else
	browser_dump "$BASE/" >dom-form.html
	like "Chromium: the form renders" "$(cat dom-form.html)" 'id="submit"'
	is "Chromium: the form page is clean" "$(dom_check dom-form.html "Your report will be public" b)" "fine"
	browser_dump "$BASE/bugs" >dom-list.html
	is "Chromium: the list shows the hostile summary as text only" \
		"$(dom_check dom-list.html "xhci_hcd hub $HOSTILE" b)" "fine"
	browser_dump "$BASE/bug/218131" >dom-bug.html
	is "Chromium: the bug page shows the hostile title as text only" \
		"$(dom_check dom-bug.html "$HOSTILE" b)" "fine"
	# a real submission: fields typed, the file chosen, the button clicked
	random_bytes 500000 13 >browser.bin
	out=$(timeout 180 python3 "$top_srcdir/tests/lib/cdp_submit.py" "$CHROMIUM" "$WORK/cdp" \
		"$BASE/" browser.bin email=browser@example.net "title=<b>from the browser</b>" \
		"description=typed in Chromium" kernel_version=6.8 route=0 2>cdp.err)
	like "Chromium: submitting the form lands on the answer page" "$out" "^Check your mail"
	like "Chromium: the file it sent arrived with its hash" "$out" "sha256:$(sha256_of browser.bin)"
	like "Chromium: the title it typed is shown as text" "$out" "<b>from the browser</b>"
	test -s cdp.err && diag "cdp: $(cat cdp.err)"
fi

# --- the rate limit (12 POSTs an hour from one address, refused ones included) ----------------
# each to an address of its own: confirm_limit (3 mails an address a day) is not what is tested
n=0
while [ $n -lt 14 ]; do
	code=$(post -s -D rl.h -o /dev/null -w '%{http_code}' -F email=r$n@example.org -F title=rl \
		-F description=d "$BASE/report")
	[ "$code" = 429 ] && break
	n=$((n + 1))
done
count=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM fd_budget WHERE client NOT LIKE '"'mail:%'"'").fetchone()[0])' "$WORK/data/bugbridge.db")
is "the thirteenth POST within the hour is refused with 429" "$code $count" "429 12"
like "with Retry-After" "$(tr -d '\r' <rl.h)" "^Retry-After: [0-9]"

# --- stopping --------------------------------------------------------------------------------
kill -TERM "$server"
wait "$server"
is "the server stops cleanly on SIGTERM" "$?" "0"
# stopped: off the list (the fake Bugzilla stays on it, stopped at the end)
CLEANUP_PIDS=$(printf '%s\n' $CLEANUP_PIDS | grep -vx "$server" | tr '\n' ' ')
grep -q "event=frontdoor.rate_limited" "$WORK/bb.log" && ok "the log has the refusal" ||
	not_ok "the log has the refusal"

done_testing
