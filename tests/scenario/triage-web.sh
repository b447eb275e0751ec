#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# "Where do I report this?" and "same crash, same bug" (issue 34, items 6
# and 7).  A sync reads a syzbot-style KASAN report (bug 801, a tracked
# regression) and records its crash signature; the same crash pasted by a
# person later (bug 802: another kernel, a module, no paths) is mailed with
# "Same crash: bug 801 (regression #1)", a look-alike (bug 803: a write in
# the same function) is not.  Then bugbridge serve's /triage page: the
# form, a pasted oops ranked against MAINTAINERS with lists, maintainers,
# B: and the reason, the triage block's hints (a distribution kernel,
# taint), the same crash linked; hostile text in the paste and in
# MAINTAINERS escaped (curl, and a real submission in headless Chromium,
# its DOM checked); nothing pasted in the database or the logs;
# triage_max_size (413), triage_rate_limit (429, apart from the report
# form's budget), cross-origin POSTs (403); no MAINTAINERS, no page (404).
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # SKIP $*"; }

HOSTILE='<img src=x onerror=alert(1)><script>alert(2)</script> "q" & co'
HOSTILE_ESC='&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt; &quot;q&quot; &amp; co'

cat >MAINTAINERS <<'EOF2'
List of maintainers
-------------------

USB HID/HIDBP DRIVERS (USB KEYBOARDS, MICE, REMOTE CONTROLS, ...)
M:	Hid Keeper <hid@example.org>
R:	Hid Reviewer <hid-review@example.org>
L:	linux-usb@vger.kernel.org
L:	linux-input@vger.kernel.org
S:	Maintained
B:	https://bugzilla.example.org/hid
F:	drivers/hid/usbhid/

EVIL <img src=x onerror=alert(3)> DRIVER
M:	Evil "<b>" Keeper <evil@example.org>
L:	evil@example.org
S:	Odd Fixes
F:	drivers/evil/

THE REST
L:	linux-kernel@vger.kernel.org
S:	Buried alive in reporters
F:	*
F:	*/
EOF2

# syzbot's report of the crash, a person's paste of it, and one that only looks alike
cat >syzbot.txt <<'EOF2'
==================================================================
BUG: KASAN: slab-use-after-free in hiddev_release+0x24b/0x2a0 drivers/hid/usbhid/hiddev.c:232
Read of size 8 at addr ffff88801d3b2f38 by task syz-executor.2/5461

CPU: 1 PID: 5461 Comm: syz-executor.2 Not tainted 6.5.0-rc1-syzkaller #0
Hardware name: Google Google Compute Engine/Google Compute Engine, BIOS Google 07/12/2023
Call Trace:
 <TASK>
 __dump_stack lib/dump_stack.c:88 [inline]
 dump_stack_lvl+0xd9/0x150 lib/dump_stack.c:106
 print_report+0xc4/0x620 mm/kasan/report.c:475
 kasan_report+0xda/0x110 mm/kasan/report.c:588
 __mutex_lock+0x9f1/0x1340 kernel/locking/mutex.c:747
 hiddev_release+0x24b/0x2a0 drivers/hid/usbhid/hiddev.c:232
 __fput+0x3f7/0xa70 fs/file_table.c:384
 </TASK>
EOF2
cat >person.txt <<'EOF2'
Unplugging my UPS crashes the machine, MARKER-7f3a9c:
[ 1234.567890] BUG: KASAN: use-after-free in hiddev_release+0x24b/0x2a0 [usbhid]
[ 1234.567899] Read of size 8 at addr ffff88801d3b2f38 by task upsd/812
[ 1234.567901] CPU: 3 PID: 812 Comm: upsd Tainted: G           OE      6.1.0-13-amd64 #1  Debian 6.1.55-1
[ 1234.567910] Call Trace:
[ 1234.567911]  <TASK>
[ 1234.567912]  dump_stack_lvl+0x44/0x5c
[ 1234.567920]  print_report+0x184/0x4be
[ 1234.567925]  kasan_report+0xc1/0xf0
[ 1234.567930]  __mutex_lock.constprop.0+0x9f1/0x1340
[ 1234.567935]  hiddev_release+0x24b/0x2a0 [usbhid]
[ 1234.567940]  __fput+0x3f7/0xa70
[ 1234.567945]  </TASK>
EOF2
cat >alike.txt <<'EOF2'
[   99.000001] BUG: KASAN: use-after-free in hiddev_release+0x30/0x2a0 [usbhid]
[   99.000002] Write of size 4 at addr ffff88801d3b2f38 by task upsd/812
[   99.000003] Call Trace:
[   99.000004]  dump_stack_lvl+0x44/0x5c
[   99.000005]  kasan_report+0xc1/0xf0
[   99.000006]  hiddev_release+0x30/0x2a0 [usbhid]
[   99.000007]  __fput+0x3f7/0xa70
EOF2

python3 - "$WORK" <<'EOF2'
import json, sys
w = sys.argv[1]
def bug(id, summary, text, when, regression="No"):
    return {"id": id, "summary": summary, "product": "Drivers", "component": "Other",
            "status": "NEW", "creator": "ines@example.net", "creation_time": when,
            "cf_regression": regression,
            "comments": [{"creator": "ines@example.net", "creation_time": when, "text": text}]}
state = {
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "products": [{"name": "Drivers", "components": ["Other"]}],
  "bugs": [bug(801, "KASAN: slab-use-after-free Read in hiddev_release",
               open(w + "/syzbot.txt").read(), "2026-12-03T08:00:00Z", "Yes")]}
json.dump(state, open(w + "/state.json", "w"))
json.dump(bug(802, "UPS unplug crashes", open(w + "/person.txt").read(), "2026-12-03T09:05:00Z"),
          open(w + "/802.json", "w"))
json.dump(bug(803, "hiddev crash on close", open(w + "/alike.txt").read(), "2026-12-03T09:05:00Z"),
          open(w + "/803.json", "w"))
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "@$2" "$bz/__admin/$1" >/dev/null; }
mail_of() { find "$WORK/data/mail" -type f 2>/dev/null | xargs -r grep -l -i -F "Message-ID: <bug-$1@bugbridge.test>" | head -1; }

PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
write_config <<EOF2
log_file = $WORK/bb.log
$(fakebz_bridge_config)
[blob]
base_url = $BASE
[server]
listen = 127.0.0.1:$PORT
[routing]
maintainers_file = $WORK/MAINTAINERS
default_lists = triage@lists.test
by_content = suggest
[frontdoor]
enabled = true
base_url = $BASE/
triage_rate_limit = 9
triage_max_size = 4K
EOF2

# --- same crash, same bug, in the sync's triage block -----------------------------------
check "the first sync reads bug 801" bb sync
like "its signature is recorded, as syzbot titles it" \
	"$(reg "SELECT title FROM bug_signature WHERE bug_id = 801")" \
	"^KASAN: slab-use-after-free Read in hiddev_release$"
like "and the report mail names it" "$(cat "$(mail_of 801)")" "Crash: +KASAN: slab-use-after-free Read in hiddev_release"
unlike "a bug is no duplicate of itself" "$(cat "$(mail_of 801)")" "Same crash"
admin bug 802.json
admin bug 803.json
curl -sf -X POST --data-binary '{"advance": 600}' "$bz/__admin/clock" >/dev/null
check "the next sync reads bugs 802 and 803" bb sync
like "a person's paste of the same crash names bug 801 and its regression" \
	"$(cat "$(mail_of 802)")" "Same crash: +bug 801 \\(regression #1\\): KASAN: use-after-free Read in hiddev_release \\[usbhid\\]"
like "a look-alike (a write) is a crash of its own" "$(cat "$(mail_of 803)")" "Crash: +KASAN: use-after-free Write in hiddev_release"
unlike "and names no bug" "$(cat "$(mail_of 803)")" "Same crash"
out=$(bb triage --json person.txt)
is "triage --json: the signature and the same crash (new keys, version 1)" "$(printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
print(j["version"], j["signatures"][0]["key"], [(h["bug"], h["regression"]) for h in j["same_crash"]])')" \
	"1 KASAN: use-after-free Read in hiddev_release [(802, None), (801, 1)]"
like "triage prints it" "$(bb triage person.txt)" "same crash as bug 801 \\(regression #1\\)"

# --- the page ----------------------------------------------------------------------------
"$BUGBRIDGE" serve --port-file "$WORK/port" --pid-file "$WORK/pid" >/dev/null 2>"$WORK/serve.log" &
server=$!
CLEANUP_PIDS="$CLEANUP_PIDS $server"
wait_for_port "$WORK/port" "$server" || { cat "$WORK/serve.log"; skip_all "the server did not start"; }

post() { curl -s -H "Origin: $BASE" "$@"; }
hostile=$(cat person.txt; echo "[ 1234.567999] Hardware name: $HOSTILE")
printf '%s\n' "$hostile" >hostile.txt

curl -s -D get.h -o get.html "$BASE/triage"
like "GET /triage: the form" "$(cat get.html)" '<textarea id="text" name="text"'
like "with the front door's CSP" "$(tr -d '\r' <get.h)" "Content-Security-Policy: default-src 'self'; script-src 'none'"
code=$(post -o answer.html -w '%{http_code}' -F "text=<hostile.txt" "$BASE/triage")
is "POST /triage answers" "$code" "200"
a=$(cat answer.html)
like "the section first" "$a" "<li><h3>USB HID/HIDBP DRIVERS \\(USB KEYBOARDS, MICE, REMOTE CONTROLS, ...\\)</h3>"
like "with its lists as mail links" "$a" '<a href="mailto:linux-usb@vger.kernel.org">linux-usb@vger.kernel.org</a>, <a href="mailto:linux-input@vger.kernel.org">'
like "its maintainers, escaped" "$a" "Hid Keeper &lt;hid@example.org&gt;"
like "its reviewers" "$a" "<dt>Reviewers</dt><dd>Hid Reviewer &lt;hid-review@example.org&gt;</dd>"
like "where it wants bug reports" "$a" "<dt>Bug reports</dt><dd>https://bugzilla.example.org/hid</dd>"
like "and why" "$a" 'class="reason">[^<]*hiddev_release[^<]*matched F: drivers/hid/usbhid/'
like "the hints: a distribution kernel" "$a" "6.1.0-13-amd64 \\(Debian build"
like "the maintainers may ask for a mainline one" "$a" "a distribution kernel: the maintainers may ask for a mainline one"
like "the taint" "$a" "O \\(externally-built \\(.*out-of-tree.*\\) module was loaded\\)"
like "the same crash, linked" "$a" 'KASAN: use-after-free Read in hiddev_release \[usbhid\]</code>: the same crash as <a href="/bug/802">bug 802</a>, <a href="/bug/801">bug 801 \(regression #1\)</a>'
case "$a" in *"$HOSTILE_ESC"*) ok "the hostile machine name is escaped" ;; *) not_ok "the hostile machine name is escaped" ;; esac
unlike "no markup from the paste" "$a" "<img|<script"

printf 'drivers/evil/evil.c\n' >evil.txt
e=$(post -F "text=<evil.txt" "$BASE/triage")
like "a path alone finds its section, its hostile name escaped" "$e" "<h3>EVIL &lt;img src=x onerror=alert\\(3\\)&gt; DRIVER</h3>"
like "and its maintainer's" "$e" 'Evil &quot;&lt;b&gt;&quot; Keeper'
like "and, as get_maintainer.pl names them for the file, the lists of the sections around it" \
	"$e" '<dt>Also to</dt><dd><a href="mailto:linux-kernel@vger.kernel.org">linux-kernel@vger.kernel.org</a></dd>'
unlike "none where a function it names chose the section (no file)" "$a" "Also to"
n=$(post --data-urlencode "text=hiddev" "$BASE/triage")
like "an urlencoded form works too" "$n" "Where do I report this"
z=$(post --data-urlencode "text=hello" "$BASE/triage")
like "nothing to go on: says so" "$z" "Nothing in the text points at a section"

head -c 6000 /dev/zero | tr '\0' 'a' >big.txt
is "a text past triage_max_size is refused" "$(post -o /dev/null -w '%{http_code}' -F "text=<big.txt" "$BASE/triage")" "413"
is "a POST from another site is refused" \
	"$(curl -s -o /dev/null -w '%{http_code}' -H 'Origin: http://evil.example' -F text=x "$BASE/triage")" "403"
is "PUT is not allowed" "$(curl -s -o /dev/null -w '%{http_code}' -X PUT "$BASE/triage")" "405"

# --- in a real browser -------------------------------------------------------------------
. "$top_srcdir/tests/lib/browser.sh"
browser_find
if [ -z "$CHROMIUM" ]; then
	diag "chromium is not installed (Debian: apt-get install chromium); browser checks skipped"
	for n in 1 2 3 4; do skip "chromium is not installed"; done
else
	browser_dump "$BASE/triage" >dom-form.html
	is "Chromium: the form page is clean" "$(dom_check dom-form.html "Nothing you paste is kept or logged")" "fine"
	out=$(CDP_DOM="$WORK/dom-answer.html" timeout 180 python3 "$top_srcdir/tests/lib/cdp_submit.py" \
		"$CHROMIUM" "$WORK/cdp" "$BASE/triage" - "text=$hostile" 2>cdp.err)
	like "Chromium: pasting and sending lands on the answer" "$out" "USB HID/HIDBP DRIVERS.*linux-usb@vger.kernel.org"
	like "Chromium: with the same crash" "$out" "the same crash as bug 802, bug 801 \\(regression #1\\)"
	is "Chromium: the hostile paste is text only" "$(dom_check dom-answer.html "Machine:     $HOSTILE" b)" "fine"
	test -s cdp.err && diag "cdp: $(cat cdp.err)"
fi

# --- the budget: 9 an hour, its own ------------------------------------------------------
n=0
while [ $n -lt 12 ]; do
	code=$(post -D rl.h -o /dev/null -w '%{http_code}' --data-urlencode text=usbhid "$BASE/triage")
	[ "$code" = 429 ] && break
	n=$((n + 1))
done
rows=$(reg "SELECT count(*) FROM fd_budget WHERE client LIKE 'triage:%'")
is "the tenth POST within the hour is refused with 429" "$code $rows" "429 9"
like "with Retry-After" "$(tr -d '\r' <rl.h)" "^Retry-After: [0-9]"
is "the report form's budget is untouched" "$(reg "SELECT count(*) FROM fd_budget WHERE client NOT LIKE 'triage:%'")" "0"
is "GET /triage still answers" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/triage")" "200"

kill -TERM "$server"
wait "$server"
CLEANUP_PIDS=$(printf '%s\n' $CLEANUP_PIDS | grep -vx "$server" | tr '\n' ' ')
grep -q "event=frontdoor.triage_rate_limited" "$WORK/bb.log" && ok "the log has the refusal" ||
	not_ok "the log has the refusal"
# the marker was pasted only into the page (bug 802's text went to the data folder by the sync)
is "nothing pasted is in the logs" "$(cat "$WORK/bb.log" "$WORK/serve.log" | grep -c 'onerror=alert(1)')" "0"
kept=$(python3 - "$WORK/data/bugbridge.db" <<'EOF2'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
hits = 0
for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
    for row in db.execute('SELECT * FROM "%s"' % t):
        hits += sum(isinstance(v, (str, bytes)) and b"onerror=alert(1)" in (v if isinstance(v, bytes) else v.encode()) for v in row)
print(hits)
EOF2
)
is "nor in the database" "$kept" "0"

# --- without MAINTAINERS, no page --------------------------------------------------------
sed -i '/^maintainers_file/d; /^by_content/d' "$BUGBRIDGE_CONFIG"
"$BUGBRIDGE" serve --port-file "$WORK/port2" >/dev/null 2>"$WORK/serve2.log" &
server=$!
CLEANUP_PIDS="$CLEANUP_PIDS $server"
wait_for_port "$WORK/port2" "$server" || { cat "$WORK/serve2.log"; skip_all "the server did not start"; }
is "no MAINTAINERS file: /triage is 404" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/triage")" "404"
kill -TERM "$server"
wait "$server"
CLEANUP_PIDS=$(printf '%s\n' $CLEANUP_PIDS | grep -vx "$server" | tr '\n' ' ')

done_testing
