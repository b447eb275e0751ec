#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The front door's pages of mirrored bugs (issue 38, item 4): a bug's page
# links its thread in the list archive (its root, the report mail), shows
# its public comments as the bridge mailed them (never a private one) and the triage block the
# bridge made for its report; the bug list shows each bug's age and
# whether a #bugbridge needinfo question waits on it.  Hostile text in a
# comment stays text (Chromium's DOM, when Chromium is installed).  Each
# list has an Atom feed of its bugs; `bugbridge bugs [--json]` lists them.
# A bug restricted after it was mirrored is on no page, feed or list.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"

skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # SKIP $*"; }
HOSTILE='<img src=x onerror=alert(1)><script>alert(2)</script> "q" & co'
DAY=86400
# the archive reads mails dated after its reading began, on the real clock
START=$(date +%s)
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
day() { date -u -d "@$1" +%Y-%m-%d; }
BUGBRIDGE_TEST_NOW=$START
export BUGBRIDGE_TEST_NOW

cat >MAINTAINERS <<'EOF2'
List of maintainers
-------------------

INTEL WIRELESS WIFI LINK (iwlwifi)
M:	Wifi Keeper <wifi@example.org>
L:	linux-wireless@vger.kernel.org
S:	Supported
F:	drivers/net/wireless/intel/iwlwifi/

THE REST
L:	linux-kernel@vger.kernel.org
S:	Buried alive in reporters
F:	*
F:	*/
EOF2

cat >state.py <<'PY'
import json, sys, time
start = int(sys.argv[2])
iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
log = """Wi-Fi dies after resume on 6.8, worked in 6.7.

[  812.551] BUG: kernel NULL pointer dereference, address: 0000000000000008
[  812.551] Oops: 0000 [#1] PREEMPT SMP NOPTI
[  812.551] RIP: 0010:iwl_mvm_rx_tx_cmd+0x1a/0x3c0 [iwlmvm]
[  812.551] Call Trace:
[  812.551]  <TASK>
[  812.551]  iwl_mvm_rx_common+0x9c/0x2a0 [iwlmvm]
[  812.551]  iwl_pcie_rx_handle+0x3b0/0x9a0 [iwlwifi]
[  812.551]  </TASK>
"""
state = {
  "clock": {"now": iso(start)},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "vendor"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "dev@example.org", "real_name": "Dev", "insider": True},
            {"login": "lead@example.org", "real_name": "Lead"}],
  "groups": [{"name": "vendor", "description": "the bridge sees it, so it sees the bug go"}],
  "products": [{"name": "Drivers", "components": ["Wireless", "USB"]}],
  "bugs": [
    {"id": 701, "summary": "wifi dies after resume", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": iso(start - 3600), "cf_regression": "Yes",
     "comments": [{"creator": "ines@example.net", "creation_time": iso(start - 3600),
                   "text": log},
                  {"creator": "dev@example.org", "creation_time": iso(start - 3000),
                   "text": "SECRET vendor notes, not for the list", "is_private": True},
                  {"creator": "ines@example.net", "creation_time": iso(start - 2400),
                   "text": "Collected with iwlwifi.debug=0x1: " + sys.argv[1]}],
     "attachments": [{"file_name": "trace.txt", "summary": "trace", "content_type": "text/plain",
                      "creator": "ines@example.net", "creation_time": iso(start - 3600),
                      "text": "t" * 3000}]},
    {"id": 702, "summary": "usb hub resets", "product": "Drivers", "component": "USB",
     "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": iso(start - 550 * 86400), "description": "The hub resets."},
    {"id": 703, "summary": "closed after the first round", "product": "Drivers", "component": "USB",
     "status": "NEW", "creator": "ines@example.net",
     "creation_time": iso(start - 95 * 86400), "description": "Old."},
    {"id": 704, "summary": "restricted after the first round", "product": "Drivers",
     "component": "USB", "status": "NEW", "creator": "ines@example.net",
     "creation_time": iso(start - 80 * 86400), "description": "Vendor."}
  ]
}
json.dump(state, open("state.json", "w"))
PY
python3 state.py "$HOSTILE" "$START"
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }

# a list archive the needinfo question and a reply are read from
. "$top_srcdir/tests/lib/atom_archive.sh"
ATOM_REPLY_SUBJECT='Re: [Bug {bug}]'
export ATOM_REPLY_SUBJECT
atom_archive_start

PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
write_config <<EOF
$(serve_config_head)
max_upload_size = 2G
$(fakebz_bridge_config)
[smtp]
maildir = $WORK/data/mail
[routing]
maintainers_file = $WORK/MAINTAINERS
default_lists = list@lists.test
[archive]
kind = atom
url = $arch
[inbound]
authenticate = none
allow = Lead <lead@example.org>
[frontdoor]
enabled = true
base_url = $BASE/
EOF

check "a sync mirrors the bugs" bb --quiet sync
admin bug '{"id": 703, "merge": true, "status": "RESOLVED", "resolution": "FIXED"}'
admin bug '{"id": 704, "merge": true, "groups": ["vendor"]}'
atom_reply "Lead <lead@example.org>" ask-702@example.org \
	bug-702@bugbridge.test "$(printf '#bugbridge needinfo reporter Which hub is it?\n')"
atom_reply "Olaf Owner <olaf@example.net>" reply-701@example.org \
	bug-701@bugbridge.test "$(printf 'Same here on a T14 with 6.8.1.\n')"
check "a sync reads the needinfo question and a reply" bb --quiet sync
check "a sync sees the reply's comment" bb --quiet sync
is "the question waits" "$(reg "SELECT state FROM needinfo WHERE bug_id = 702")" "waiting"

# a week later, as the pages see it
BUGBRIDGE_TEST_NOW=$((START + 7 * DAY + 3 * 3600))
serve_start --pid-file "$WORK/pid"

# --- a bug's page
curl -s -o bug.html "$BASE/bug/701"
like "the page links the bug's thread in the archive (its root, the report mail)" \
	"$(cat bug.html)" "<a id=\"thread\" href=\"$arch/bug-701@bugbridge.test/\">"
unlike "it no longer only names the thread" "$(cat bug.html)" "are in the list archive's thread"
like "it shows the description as mailed" "$(tr '\n' '~' <bug.html)" \
	'<div class="comment" id="c0"><h3>Description #0 ines [0-9-]+ [0-9:]+ UTC</h3><pre>[^<]*Wi-Fi dies after resume'
like "and the public comment" "$(tr '\n' '~' <bug.html)" \
	'<div class="comment" id="c2"><h3>Comment #2 ines [0-9-]+ [0-9:]+ UTC</h3><pre>[^<]*Collected with iwlwifi.debug=0x1'
like "and a comment that came from the list" "$(tr '\n' '~' <bug.html)" \
	'<div class="comment" id="c4"><h3>Comment #4 olaf [^<]*</h3><pre>[^<]*Same here on a T14 with 6.8.1.'
unlike "never the private comment" "$(cat bug.html)" "SECRET|vendor notes|id=\"c1\""
unlike "nor the mail's footer" "$(cat bug.html)" "You are receiving this mail"
unlike "no addresses on the page" "$(cat bug.html)" "ines@example.net|dev@example.org|olaf@example.net"
like "the triage block the bridge made" "$(tr '\n' '~' <bug.html)" \
	'<h2>Triage</h2>~<pre id="triage">Triage \(read from the report by bugbridge; it may be wrong\):'
like "with its sections" "$(cat bug.html)" "Sections: +1. INTEL WIRELESS WIFI LINK"
grep -qF '&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;' bug.html &&
	ok "hostile text in a comment is escaped" || not_ok "hostile text in a comment is escaped"
# --- in a real browser
. "$top_srcdir/tests/lib/browser.sh"
browser_find
if [ -z "$CHROMIUM" ]; then
	diag "chromium is not installed; browser checks skipped"
	skip "chromium is not installed"
	skip "chromium is not installed"
else
	browser_dump "$BASE/bug/701" >dom-bug.html
	is "Chromium: the bug page shows the hostile comment as text only" \
		"$(dom_check dom-bug.html "$HOSTILE" b)" "fine"
	browser_dump "$BASE/bugs" >dom-list.html
	like "Chromium: the list's chart is an SVG image in the page" "$(tr '\n' '~' <dom-list.html)" \
		'<svg [^>]*role="img".*<polyline class="bugs"'
fi

curl -s -o bug702.html "$BASE/bug/702"
like "a question waiting shows on the bug's page" "$(cat bug702.html)" \
	"<tr><th>Needinfo</th><td>waiting since $(day "$START")</td></tr>"
unlike "a bug without triage has no block" "$(cat bug702.html)" 'id="triage"'

# --- sizes as people read them
like "the form gives the upload limit in binary units" "$(curl -s "$BASE/")" "any size up to 2\.0.GiB each\)"
unlike "not in bytes" "$(curl -s "$BASE/")" "2147483648"
like "an attachment's size on its bug's page too" "$(cat bug.html)" \
	'<a href="[^"]*/trace.txt">trace.txt</a> \(2\.9.KiB\) <code class="sha256">'

# --- the bug list
curl -s -o list.html "$BASE/bugs"
like "the list has an age and a needinfo column" "$(cat list.html)" "<th>Age</th><th>Needinfo</th>"
like "a bug a week old" "$(cat list.html)" \
	"<a href=\"/bug/701\">701</a>.*<td class=\"age\"><time datetime=\"$(day $((START - 3600)))\">7 days</time></td><td class=\"needinfo\"></td>"
like "a bug a year and a half old, waiting on its reporter" "$(cat list.html)" \
	"<a href=\"/bug/702\">702</a>.*<td class=\"age\"><time datetime=\"$(day $((START - 550 * DAY)))\">18 months</time></td><td class=\"needinfo\">waiting since $(day "$START")</td>"

# --- the backlog's chart: open bugs and open regressions per week for a year
# weeks end with the UTC day of now: 703 (filed 95 days ago, closed a week
# ago) is open in the last 15 of them, 701 (filed a week ago) replaces it
# in the last two, 702 is open in all; 701's regression is in the last two
counts() { python3 -c 'import re,sys; print(re.search(r"<polyline class=\"%s\"[^>]* data-counts=\"([^\"]*)\"" % sys.argv[1], sys.stdin.read()).group(1))' "$1"; }
rep() { python3 -c 'import sys; print(" ".join([sys.argv[1]] * int(sys.argv[2]) + [sys.argv[3]] * int(sys.argv[4])))' "$@"; }
like "the bug list has the chart, made by the server" "$(cat list.html)" '<figure id="backlog">'
like "an inline SVG image" "$(cat list.html)" '<svg xmlns="http://www.w3.org/2000/svg" role="img"'
is "open bugs per week" "$(counts bugs <list.html)" "$(rep 1 37 2 15)"
is "open regressions per week" "$(counts regressions <list.html)" "$(rep 0 50 1 2)"
like "the caption says it in words" "$(cat list.html)" \
	"<figcaption>Open bugs and open regressions per week over the last year: 2 and 1 now, 1 and 0 a year ago.</figcaption>"
unlike "no script on the page" "$(cat list.html)" "<script"
check "regressions report writes the index" bb regressions report --now "$BUGBRIDGE_TEST_NOW"
curl -s -o regindex.html "$BASE/regressions/index.html"
is "the regressions index has the same chart: bugs" "$(counts bugs <regindex.html)" "$(rep 1 37 2 15)"
is "and regressions" "$(counts regressions <regindex.html)" "$(rep 0 50 1 2)"

# --- a feed per list
like "the list page links each list's feed" "$(cat list.html)" \
	'<p id="feeds">Atom feeds: <a href="/bugs/list@lists.test.atom">list@lists.test</a></p>'
code=$(curl -s -o feed.xml -w '%{http_code} %{content_type}' "$BASE/bugs/list@lists.test.atom")
is "the list's feed is served as Atom" "$code" "200 application/atom+xml; charset=utf-8"
cat >feed_check.py <<'PYEOF'
import sys
import xml.etree.ElementTree as ET
A = "{http://www.w3.org/2005/Atom}"
base, arch = sys.argv[2:4]
feed = ET.parse(sys.argv[1]).getroot()
out = [feed.find(A + "title").text, feed.find(A + "id").text == base + "/bugs/list@lists.test.atom"]
entries = feed.findall(A + "entry")
out.append(" ".join(e.find(A + "id").text.rsplit("/", 1)[1] for e in entries))
for e in entries:
    if e.find(A + "id").text.endswith("/702"):
        links = {l.get("rel"): l.get("href") for l in e.findall(A + "link")}
        out += [e.find(A + "title").text, links["alternate"] == base + "/bug/702",
                links["related"] == arch + "/bug-702@bugbridge.test/", e.find(A + "summary").text,
                e.find(A + "updated").text is not None]
print("\n".join(str(x) for x in out))
PYEOF
is "its entries: the public bugs on the list, newest activity first, each with its page, thread, state and needinfo" \
	"$(python3 feed_check.py feed.xml "$BASE" "$arch" 2>&1)" "$(printf '%s\n' "Bugs on list@lists.test" True \
	"703 701 702" "[Bug 702] usb hub resets" True True \
	"CONFIRMED, Drivers/USB, filed 18 months ago; needinfo: waiting since $(day "$START")" True)"
unlike "a bug made restricted is in no feed" "$(cat feed.xml)" "/bug/704"
unlike "nor on the list" "$(cat list.html)" 'href="/bug/704"'
is "a list no bug went to: 404" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/bugs/other@lists.test.atom")" "404"
is "a name that is no list: 404" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/bugs/no-address.atom")" "404"
is "not a feed: 404" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/bugs/list@lists.test")" "404"

# --- bugbridge bugs
bb bugs --json >bugs.json 2>bugs.err
cat >bugs_check.py <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
bz, arch, base = sys.argv[2:5]
assert d["version"] == 1, d
bugs = {b["id"]: b for b in d["bugs"]}
out = []
out.append(" ".join(str(b["id"]) for b in d["bugs"]))
b = bugs[701]
out.append("%s|%s|%s|%s|%s|%d|%d" % (b["summary"], b["product"], b["component"], b["status"],
                                      b["regression"], b["regression_id"] > 0, b["age_days"]))
out.append("%s|%s|%s|%s" % (b["url"] == bz + "/show_bug.cgi?id=701",
                            b["thread"] == arch + "/bug-701@bugbridge.test/",
                            b["thread_message_id"], b["page"] == base + "/bug/701"))
out.append("%s|%s" % (b["needinfo"], b["last_activity"] is not None))
b = bugs[702]
out.append("%s|%s|%s|%d" % (b["needinfo"]["state"], b["needinfo"]["reporter_asked"],
                             b["regression"], b["age_days"]))
print("\n".join(out))
PYEOF
is "bugs --json: the open mirrored bugs, most recent activity first, and their fields" \
	"$(python3 bugs_check.py bugs.json "$bz" "$arch" "$BASE")" "$(printf '%s\n' \
	"701 702" "wifi dies after resume|Drivers|Wireless|NEW|True|1|7" \
	"True|True|bug-701@bugbridge.test|True" "None|True" "waiting|True|False|557")"
unlike "bugs --json names no one's address" "$(cat bugs.json)" "@example\\.(net|org)"
like "bugs --all --json: the closed one too" "$(bb bugs --all --json)" '"id": ?703'
bb bugs >bugs.txt
like "bugs: a table" "$(head -1 bugs.txt)" "^ +ID +STATUS +AGE +IDLE +NEEDINFO +REG +PRODUCT/COMPONENT: SUMMARY"
like "with the needinfo state" "$(cat bugs.txt)" "702 +CONFIRMED +557d +[0-9]+d +waiting since $(day "$START") +- +Drivers/USB: usb hub resets"
like "and the regression flag" "$(cat bugs.txt)" "701 +NEW +7d +[0-9]+d +- +yes +Drivers/Wireless: wifi dies after resume"
unlike "not the closed one" "$(cat bugs.txt)" "703"
unlike "nor the restricted one, even with --all" "$(bb bugs --all)" "704"

kill -TERM "$server"
wait "$server"
is "the server stops cleanly" "$?" "0"
CLEANUP_PIDS=$(printf '%s\n' $CLEANUP_PIDS | grep -vx "$server" | tr '\n' ' ')
done_testing
