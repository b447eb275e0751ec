#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The regression tracker's output: `bugbridge regressions list|show|report`,
# the reports (HTML per tree and per regression, versioned JSON, an Atom
# feed, the weekly text and its mail through the outbox), served read-only
# by `bugbridge serve` under /regressions/ and loaded in headless Chromium,
# with a regression whose title, links and history are hostile.
. "$top_srcdir/tests/lib/common.sh"

command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"

skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # SKIP $*"; }

write_config <<EOF2
[server]
listen = 127.0.0.1:0
[bugzilla]
first_sync = all
backfill_confirm = 100000
url = https://bugzilla.kernel.org
[mail]
domain = example.org
from = Regression Tracker <tracker@example.org>
[tracker]
report_lists = linux-kernel@vger.kernel.org, regressions@lists.linux.dev
EOF2

NOW=$(date +%s)
HOSTILE='<script>alert(1);document.title="PWNED"</script> "quoted" '"'"'single'"'"' <img src=x onerror="alert(2);document.body.dataset.pwned=1">'
export NOW HOSTILE

# --- an empty tracker ----------------------------------------------------------
out=$(bb regressions --help)
like "regressions --help shows the subcommands" "$out" "bugbridge regressions report \[--dir DIR\] \[--send\]"
out=$(bb help 2>&1)
like "regressions is in the command list" "$out" "regressions +list and show tracked regressions"
check "an empty list works (and, read-only, makes no database)" bb regressions list
check "the data folder is left alone" test ! -e "$WORK/data/bugbridge.db"
printf 'x\n' >"$WORK/x.txt"
check "a writing command makes the database" bb blob put "$WORK/x.txt"
check_exit "an unknown state is a usage error" 64 bb regressions list --state nonsense
check_exit "show without an id is a usage error" 64 bb regressions show
check_exit "show of an unknown regression" 66 bb regressions show 999
check_exit "an unknown subcommand is a usage error" 64 bb regressions frob

# --- regressions, straight into the schema-4 tables ----------------------------
python3 - "$WORK/data/bugbridge.db" <<'PY'
import os, sqlite3, sys
now = int(os.environ["NOW"]); day = 86400
db = sqlite3.connect(sys.argv[1])
cols = ("id, title, state, branch, introduced, culprit, report_msgid, report_url, bug_id,"
        " reporter, created, updated, last_activity, activity_count, last_activity_by,"
        " last_activity_msgid, fix_commit, fix_subject, fix_tree, backburner, resolution, dup_of")
rows = [
    (1, os.environ["HOSTILE"], "open", "mainline", "v6.7..v6.8-rc1", "abcdef123456",
     "report-1@example.org", "", 0, "Eve <eve@evil.example>", now - 3 * day, now, now - day, 4,
     "Mallory <m@evil.example>", "last-1@example.org", "", "", "", 0, "", 0),
    (2, "drm/amd: flicker after resume", "fix-incoming", "mainline", "v6.7..", "",
     "report-2@example.org", "", 217225, "Jane Doe <jane@example.org>", now - 10 * day, now,
     now - 2 * day, 7, "Jane Doe <jane@example.org>", "last-2@example.org", "0123456789ab",
     "drm/amd: fix flicker", "next", 0, "", 0),
    (3, "usb: parked", "open", "mainline", "", "", "report-3@example.org", "", 0, "P", now - 100 * day,
     now, now - 20 * day, 2, "P", "", "", "", "", 1, "needs rare hardware", 0),
    (4, "net: forgotten", "open", "mainline", "v6.5..v6.6", "", "report-4@example.org", "", 0, "F",
     now - 200 * day, now, now - 120 * day, 1, "F", "", "", "", "", 0, "", 0),
    (5, "ext4: fixed lately", "fixed", "mainline", "v6.8-rc1", "", "report-5@example.org", "", 0, "X",
     now - 20 * day, now - day, now - day, 3, "X", "", "fedcba987654", "ext4: fix it", "mainline", 0, "", 0),
    (6, "stable: on 6.1", "open", "linux-6.1.y", "v6.1.15..v6.1.20", "", "report-6@example.org",
     "", 0, "S", now - 5 * day, now, now - 5 * day, 1, "S", "", "", "", "", 0, "", 0),
    (7, "dup of the hostile one", "duplicate", "mainline", "", "", "report-7@example.org", "", 0,
     "D", now - 2 * day, now, now - 2 * day, 1, "D", "", "", "", "", 0, "", 1),
    (8, "branch with markup", "open", "<b>x</b>/../y", "", "", "report-8@example.org", "", 0, "B",
     now - day, now, now - day, 1, "B", "", "", "", "", 0, "", 0),
]
db.executemany("INSERT INTO reg_regression (%s) VALUES (%s)" % (cols, ",".join("?" * 22)), rows)
db.executemany("INSERT INTO reg_link (regression, url, title, kind) VALUES (?, ?, ?, ?)", [
    (1, "javascript:alert(3)", "<b>bold</b> link", "link"),
    (1, "https://lore.kernel.org/r/related@example.org/", 'related "thread"', "monitor"),
    (2, "https://lore.kernel.org/r/bisect@example.org/", "the bisection", "link"),
])
db.executemany("INSERT INTO reg_event (regression, time, kind, text, message_id) VALUES (?, ?, ?, ?, ?)", [
    (1, now - 3 * day, "reported", "<script>alert(4)</script>", "report-1@example.org"),
    (1, now - day, "note", "<img src=y onerror=alert(5)>", "last-1@example.org"),
    (2, now - 2 * day, "fix", "0123456789ab seen in next", ""),
    (5, now - day, "fixed", "fedcba987654 in mainline", ""),
])
db.execute("INSERT INTO reg_unhandled (time, message_id, line, reason) VALUES (?, ?, ?, ?)",
           (now - 3600, "odd@example.org", "#regzbot frobnicate <script>alert(6)</script>", "unknown verb"))
db.commit()
PY
ok "regressions inserted"

# --- list and show ----------------------------------------------------------------
out=$(bb regressions list)
like "list shows the open ones" "$out" "drm/amd: flicker after resume"
like "under a header line" "$(printf '%s\n' "$out" | head -1)" "^ +ID +STATE +BRANCH +AGE +IDLE +TITLE$"
is "one header only" "$(printf '%s\n' "$out" | grep -c 'STATE')" "1"
unlike "list leaves out the fixed ones" "$out" "ext4: fixed lately"
like "list marks a stale one" "$out" "net: forgotten  \[stale\]"
out=$(bb regressions list --all)
like "list --all shows the fixed ones" "$out" "ext4: fixed lately"
out=$(bb regressions list --state duplicate)
is "list --state duplicate: the header and one" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" "2"
out=$(bb regressions list --all --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["version"], len(d["regressions"]), sorted(r["id"] for r in d["regressions"])[0])')
is "list --json is versioned and complete" "$out" "1 8 1"
out=$(bb regressions show 1)
like "show prints the title" "$out" "Regression #1: <script>alert"
like "show prints the history" "$out" "reported: <script>alert\(4\)</script>"
out=$(bb regressions show '#2' --json | python3 -c '
import json, sys
r = json.load(sys.stdin)["regression"]
print(r["state"], r["fix_commit"], r["bug_id"], len(r["links"]), len(r["history"]), r["age_days"])')
is "show --json has links and history" "$out" "fix-incoming 0123456789ab 217225 1 1 10"

# --- the reports ------------------------------------------------------------------
R="$WORK/data/reports"
check "regressions report writes the reports" bb regressions report --now "$NOW"
for f in index.html style.css regressions.json changes.atom weekly.txt regression/1.html \
	regression/8.html trees/mainline.html trees/linux-6.1.y.html; do
	test -s "$R/$f" || not_ok "report file $f"
done
ok "every report file is there"
ls -a "$R" "$R/regression" "$R/trees" | grep -q '\.tmp' && not_ok "temporary files left" || ok "no temporary files left"
out=$(ls "$R/trees")
unlike "a tree name with a path stays in trees/" "$out" "/"

out=$(python3 - "$R/regressions.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
regs = {r["id"]: r for r in d["regressions"]}
problems = []
if d["version"] != 1: problems.append("version")
if len(regs) != 8: problems.append("count")
if regs[1]["title"] != os.environ["HOSTILE"]: problems.append("hostile title")
if regs[1]["links"][0]["url"] != "javascript:alert(3)" and regs[1]["links"][1]["url"] != "javascript:alert(3)": problems.append("links")
if [e["kind"] for e in regs[1]["history"]] != ["reported", "note"]: problems.append("history")
if not regs[4]["stale"] or regs[2]["stale"]: problems.append("stale")
if not regs[3]["backburner"]: problems.append("backburner")
if regs[7]["duplicate_of"] != 1: problems.append("dup")
if regs[1]["age_days"] != 3: problems.append("age")
if len(d["unhandled"]) != 1 or "frobnicate" not in d["unhandled"][0]["line"]: problems.append("unhandled")
print(" ".join(problems) or "fine")
PY
)
is "regressions.json: versioned, everything in it, text as it came" "$out" "fine"

out=$(python3 - "$R/changes.atom" <<'PY'
import os, sys
import xml.etree.ElementTree as ET
A = "{http://www.w3.org/2005/Atom}"
root = ET.parse(sys.argv[1]).getroot()
problems = []
if root.tag != A + "feed": problems.append("root")
for tag in ("id", "title", "updated"):
    if root.find(A + tag) is None: problems.append("feed " + tag)
entries = root.findall(A + "entry")
if len(entries) != 4: problems.append("entries %d" % len(entries))
ids = [e.find(A + "id").text for e in entries]
if len(set(ids)) != len(ids): problems.append("ids not unique")
for e in entries:
    for tag in ("id", "title", "updated", "summary"):
        if e.find(A + tag) is None: problems.append("entry " + tag)
if not any(os.environ["HOSTILE"] in e.find(A + "title").text for e in entries): problems.append("hostile title")
if not any(e.find(A + "summary").text == "<script>alert(4)</script>" for e in entries): problems.append("summary")
print(" ".join(problems) or "fine")
PY
)
is "changes.atom: an Atom 1.0 feed of the events" "$out" "fine"

weekly=$(cat "$R/weekly.txt")
like "weekly: the current cycle with a culprit" "$weekly" "^current cycle \(v6.8\), culprit identified$"
like "weekly: the back burner" "$weekly" "^on the back burner$"
like "weekly: stale regressions" "$weekly" "^stale: no activity for 90 days$"
like "weekly: directives not acted on" "$weekly" "^directives not acted on$"
like "weekly: new ones marked" "$weekly" '^\[ \*NEW\* \] <script>alert'
like "weekly: fix incoming" "$weekly" "^\* drm/amd: fix flicker$"
unlike "weekly: no line starts with #" "$weekly" "^#"

# --- the weekly mail through the outbox ------------------------------------------
printf '[core]\ndata_dir = %s/data\n' "$WORK" >"$WORK/nolists.conf"
check_exit "report --send without report_lists is a config error" 78 \
	bb --config "$WORK/nolists.conf" regressions report --send
check "report --send queues and delivers the weekly mail" bb regressions report --send
check "report --send again the same day" bb regressions report --send
is "one weekly mail in the Maildir" "$(ls "$WORK/data/mail/new" | wc -l | tr -d ' ')" "1"
mail=$(cat "$WORK/data/mail/new/"* 2>/dev/null)
like "the mail's subject" "$mail" "^Subject: Linux regressions report for mainline \[[0-9]{4}-[0-9]{2}-[0-9]{2}\]$"
like "the mail's Message-ID" "$mail" "^Message-I[Dd]: <regressions-report-[0-9-]+@example.org>$"
like "the mail goes to the lists" "$mail" "^To: linux-kernel@vger.kernel.org, regressions@lists.linux.dev$"
like "the mail is the weekly text" "$mail" "^current cycle \(v6.8\), culprit identified$"

# --- served by bugbridge serve ----------------------------------------------------
"$BUGBRIDGE" serve --port-file "$WORK/port" --pid-file "$WORK/pid" >/dev/null 2>"$WORK/serve.log" &
server=$!
CLEANUP_PIDS="$server"
i=0
while [ ! -s "$WORK/port" ] && [ $i -lt 100 ]; do
	kill -0 "$server" 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
PORT=$(cat "$WORK/port" 2>/dev/null)
BASE="http://127.0.0.1:$PORT"
type_of() { curl -s -o /dev/null -w '%{http_code} %{content_type}' --path-as-is "$BASE$1"; }
is "index served as HTML" "$(type_of /regressions/)" "200 text/html; charset=utf-8"
is "a regression's page" "$(type_of /regressions/regression/1.html)" "200 text/html; charset=utf-8"
is "a tree's page" "$(type_of /regressions/trees/linux-6.1.y.html)" "200 text/html; charset=utf-8"
is "the JSON" "$(type_of /regressions/regressions.json)" "200 application/json"
is "the Atom feed" "$(type_of /regressions/changes.atom)" "200 application/atom+xml; charset=utf-8"
is "the weekly text" "$(type_of /regressions/weekly.txt)" "200 text/plain; charset=utf-8"
is "the style sheet" "$(type_of /regressions/style.css)" "200 text/css; charset=utf-8"
is "/regressions redirects" "$(type_of /regressions)" "301 application/json"
is "no way up" "$(type_of /regressions/../bugbridge.db | cut -c1-3)" "400"
is "no escaped way up" "$(type_of /regressions/%2e%2e/bugbridge.db | cut -c1-3)" "400"
is "no way up from a folder" "$(type_of /regressions/regression/../../bugbridge.db | cut -c1-3)" "400"
is "no other file" "$(type_of /regressions/bugbridge.db | cut -c1-3)" "404"
is "no hidden file" "$(type_of /regressions/.index.html.spare | cut -c1-3)" "404"
is "no hidden file below" "$(type_of /regressions/regression/.1.html.spare | cut -c1-3)" "404"
is "no other folder" "$(type_of /regressions/mail/new.html | cut -c1-3)" "404"
ln -s "$WORK/data/bugbridge.db" "$R/trees/evil.html"
is "no symbolic link" "$(type_of /regressions/trees/evil.html | cut -c1-3)" "404"
rm -f "$R/trees/evil.html"
is "read-only" "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data x "$BASE/regressions/index.html")" "405"
headers=$(curl -sI "$BASE/regressions/regression/1.html" | tr -d '\r')
like "pages forbid scripts" "$headers" "^Content-Security-Policy: default-src 'none'; style-src 'self'"
like "pages are not sniffed" "$headers" "^X-Content-Type-Options: nosniff"
curl -s "$BASE/regressions/regression/1.html" | cmp -s - "$R/regression/1.html" && ok "served bytes are the file" || not_ok "served bytes are the file"

# conditional requests and ranges, as a feed reader or a resumed download
# asks them
P=/regressions/changes.atom
header_of() { printf '%s\n' "$headers" | sed -n "s/^$1: //Ip" | head -n 1; }
headers=$(curl -sI "$BASE$P" | tr -d '\r')
etag=$(header_of ETag) modified=$(header_of Last-Modified)
like "a page has a strong ETag" "$etag" '^"r-[0-9a-f]+-[0-9a-f]+-[0-9a-f]+\.[0-9]{9}"$'
like "and a Last-Modified date" "$modified" '^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} GMT$'
like "and takes ranges" "$headers" "^Accept-Ranges: bytes"
code() { : >"$WORK/got"; curl -s -o "$WORK/got" -w '%{http_code}' "$@"; }
is "If-None-Match with its ETag: 304" "$(code -H "If-None-Match: $etag" "$BASE$P")" "304"
is "with an empty body" "$(wc -c <"$WORK/got")" "0"
is "HEAD too" "$(curl -sI -o /dev/null -w '%{http_code}' -H "If-None-Match: W/$etag" "$BASE$P")" "304"
is "If-None-Match with another ETag: 200" "$(code -H 'If-None-Match: "r-0-0-0.000000000"' "$BASE$P")" "200"
is "If-Modified-Since its date: 304" "$(code -H "If-Modified-Since: $modified" "$BASE$P")" "304"
is "If-Modified-Since an older date: 200" \
	"$(code -H 'If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT' "$BASE$P")" "200"
is "If-Modified-Since beside an If-None-Match that does not match: 200" \
	"$(code -H "If-Modified-Since: $modified" -H 'If-None-Match: "other"' "$BASE$P")" "200"
size=$(wc -c <"$R/changes.atom")
is "Range bytes=0-9: 206" "$(code -H 'Range: bytes=0-9' "$BASE$P")" "206"
is "the first 10 bytes" "$(od -An -c "$WORK/got")" "$(head -c 10 "$R/changes.atom" | od -An -c)"
like "with their Content-Range" "$(curl -s -o /dev/null -D - -H 'Range: bytes=0-9' "$BASE$P" | tr -d '\r')" \
	"^Content-Range: bytes 0-9/$size\$"
is "Range bytes=-5: the last 5 bytes" "$(code -H 'Range: bytes=-5' "$BASE$P"; od -An -c "$WORK/got")" \
	"206$(tail -c 5 "$R/changes.atom" | od -An -c)"
is "a range past the end: 416" "$(code -H "Range: bytes=$size-" "$BASE$P")" "416"
is "If-Range naming another version: the whole page" \
	"$(code -H 'Range: bytes=0-9' -H 'If-Range: "r-0-0-0.000000000"' "$BASE$P"; wc -c <"$WORK/got")" "200$size"
is "If-Range naming this one: the range" \
	"$(code -H 'Range: bytes=0-9' -H "If-Range: $etag" "$BASE$P"; wc -c <"$WORK/got")" "20610"
cp "$R/changes.atom" "$WORK/atom.orig"
printf '\n' >>"$R/changes.atom"
is "a page written again: the old ETag is not current" \
	"$(code -H "If-None-Match: $etag" "$BASE$P")" "200"
cp "$WORK/atom.orig" "$R/changes.atom"

# --- in a real browser -------------------------------------------------------------
. "$top_srcdir/tests/lib/browser.sh"
browser_find
# The hostile title would change the page's title and the body's
# attributes if any of it ran, and an alert() that fired would hold
# --dump-dom until the timeout and leave an empty DOM: dom_check fails on
# all three.

if [ -z "$CHROMIUM" ]; then
	diag "chromium is not installed (Debian: apt-get install chromium); browser checks skipped"
	for n in 1 2 3 4 5; do skip "chromium is not installed"; done
else
	browser_dump "$BASE/regressions/regression/1.html" >"$WORK/dom1.html"
	is "Chromium: the hostile title is text, nothing of it runs (served)" \
		"$(dom_check "$WORK/dom1.html" "$HOSTILE")" "fine"
	grep -q 'alert(4)' "$WORK/dom1.html" && ok "Chromium: the hostile history is shown as text" ||
		not_ok "Chromium: the hostile history is shown as text"
	# the same page from disk without its Content-Security-Policy: only the
	# escaping stands between the title and the browser
	sed '/Content-Security-Policy/d' "$R/regression/1.html" >"$R/regression/nocsp.html"
	browser_dump "file://$R/regression/nocsp.html" >"$WORK/dom-nocsp.html"
	is "Chromium: escaped even without the Content-Security-Policy" \
		"$(dom_check "$WORK/dom-nocsp.html" "$HOSTILE")" "fine"
	browser_dump "$BASE/regressions/" >"$WORK/dom-index.html"
	is "Chromium: the index shows the unhandled directive as text" \
		"$(dom_check "$WORK/dom-index.html" "#regzbot frobnicate <script>alert(6)</script>")" "fine"
	browser_dump "$BASE/regressions/trees/mainline.html" >"$WORK/dom-tree.html"
	is "Chromium: the tree page lists the hostile title as text" \
		"$(dom_check "$WORK/dom-tree.html" "$HOSTILE")" "fine"
fi

kill -TERM "$server"
wait "$server"
is "serve stops cleanly" "$?" "0"
CLEANUP_PIDS=$(printf '%s\n' $CLEANUP_PIDS | grep -vx "$server" | tr '\n' ' ')

done_testing
