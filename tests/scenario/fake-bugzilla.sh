#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The fake Bugzilla (tests/lib/fake_bugzilla.py) against the recorded real
# Bugzilla 5.2 ($BUGBRIDGE_SHARED/fixtures/bugzilla-5): same top-level keys,
# field names and JSON types, same error codes and HTTP statuses, the same
# privacy and time rules; then its test controls (admin API, clock, failure
# injection, request log, the mod_perl reset quirk) and tests/lib/fakebz.h.
# The fixtures are read where they are, never copied into the project.
. "$top_srcdir/tests/lib/common.sh"

: "${BUGBRIDGE_SHARED:=$top_srcdir/../shared}"
FIX="$BUGBRIDGE_SHARED/fixtures/bugzilla-5"
[ -d "$FIX" ] || skip_all "no Bugzilla fixtures in $FIX (set BUGBRIDGE_SHARED)"
command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=$(command -v python3) || skip_all "python3 is not installed"
FAKE="$top_srcdir/tests/lib/fake_bugzilla.py"

# --- helpers -------------------------------------------------------------------
cat >"$WORK/check.py" <<'EOF'
"""Compares answers with fixtures.  Usage (FILE: a path, or a fixture name):
  same FIXTURE FPATH FILE PATH  deep comparison of keys and JSON types at two
                                dotted paths ("bugs.0", "bugs.*.comments.0";
                                * is a dict's first value); null fits anything,
                                maps keyed by ids compare their first values
  keys FIXTURE FILE             same top-level keys
  error FIXTURE FILE STATUS     same error keys, code and HTTP status
  json FILE EXPR                prints EXPR of the JSON document d
  xml FILE EXPR                 prints EXPR of the XML root element
  status FIXTURE                the HTTP status a fixture recorded
"""
import json, os, sys
import xml.etree.ElementTree as ET

FIX = os.environ["FIX"]

def path_of(name):
    return name if os.path.exists(name) else os.path.join(FIX, name)

def load(name):
    with open(path_of(name), encoding="utf-8") as f:
        return json.load(f)

def walk(obj, path):
    for part in path.split(".") if path else []:
        if isinstance(obj, list):
            obj = obj[int(part)]
        elif part == "*":
            obj = next(iter(obj.values()))
        else:
            obj = obj[part]
    return obj

def kind(v):
    if v is None: return "null"
    if isinstance(v, bool): return "bool"
    if isinstance(v, (int, float)): return "number"
    if isinstance(v, str): return "string"
    if isinstance(v, list): return "array"
    return "object"

def compare(want, got, where, problems):
    kw, kg = kind(want), kind(got)
    if "null" in (kw, kg):
        return
    if kw != kg:
        problems.append("%s: fixture has %s, we have %s" % (where, kw, kg))
    elif kw == "object" and want and got and all(
            k.isdigit() for k in list(want) + list(got)):
        # a map keyed by bug/comment/attachment ids: compare one value
        compare(next(iter(want.values())), next(iter(got.values())), where + ".<id>",
                problems)
    elif kw == "object":
        for k in sorted(set(want) - set(got)):
            problems.append("%s.%s: missing" % (where, k))
        for k in sorted(set(got) - set(want)):
            problems.append("%s.%s: not in the fixture" % (where, k))
        for k in sorted(set(want) & set(got)):
            compare(want[k], got[k], "%s.%s" % (where, k), problems)
    elif kw == "array" and want and got:
        compare(want[0], got[0], where + "[0]", problems)

def status_of(fixture):
    base = path_of(fixture).rsplit(".", 1)[0]
    if base.endswith(".request"):
        base = base[:-8]
    with open(base + ".headers", encoding="utf-8") as f:
        return f.readline().split()[1]

cmd, args = sys.argv[1], sys.argv[2:]
if cmd == "same":
    problems = []
    compare(walk(load(args[0]), args[1]), walk(load(args[2]), args[3]), "", problems)
    print("\n".join(problems) if problems else "same")
elif cmd == "keys":
    want, got = sorted(load(args[0])), sorted(load(args[1]))
    print("same" if want == got else "fixture %s, we %s" % (want, got))
elif cmd == "error":
    want, got = load(args[0]), load(args[1])
    problems = []
    if sorted(want) != sorted(got):
        problems.append("keys: fixture %s, we %s" % (sorted(want), sorted(got)))
    for key in ("error", "code", "documentation"):
        if want.get(key) != got.get(key):
            problems.append("%s: fixture %r, we %r" % (key, want.get(key), got.get(key)))
    if status_of(args[0]) != args[2]:
        problems.append("HTTP status: fixture %s, we %s" % (status_of(args[0]), args[2]))
    print("; ".join(problems) if problems else "same")
elif cmd == "json":
    d = load(args[0])
    value = eval(args[1])
    print(value if isinstance(value, str) else json.dumps(value, sort_keys=True))
elif cmd == "xml":
    root = ET.parse(path_of(args[0])).getroot()
    value = eval(args[1])
    print(value if isinstance(value, str) else json.dumps(value, sort_keys=True))
elif cmd == "status":
    print(status_of(args[0]))
EOF
export FIX
py() { "$PYTHON" "$WORK/check.py" "$@"; }

# fetch ARGS...: body to $WORK/body, headers (no CR) to $WORK/headers; prints
# the status code
fetch() {
	rm -f "$WORK/body" "$WORK/headers.raw"
	curl -s -o "$WORK/body" -D "$WORK/headers.raw" -w '%{http_code}' "$@"
	tr -d '\r' <"$WORK/headers.raw" >"$WORK/headers" 2>/dev/null
}
header() { grep -i "^$1:" "$WORK/headers" | head -1 | cut -d' ' -f2-; }
jq_() { py json "$WORK/body" "$1"; }

# compare_error NAME FIXTURE CURL-ARGS...: same error as the fixture
compare_error() {
	local name=$1 fixture=$2; shift 2
	local code
	code=$(fetch "$@")
	is "$name (as $fixture)" "$(py error "$fixture" "$WORK/body" "$code")" "same"
}

# start_fake NAME ARGS...: a server with files $WORK/NAME.*; sets PID and URL
start_fake() {
	local name=$1; shift
	"$PYTHON" "$FAKE" --port-file "$WORK/$name.port" --pid-file "$WORK/$name.pid" \
		--log "$WORK/$name.log" "$@" 2>"$WORK/$name.stderr" &
	PID=$!
	CLEANUP_PIDS="$CLEANUP_PIDS $PID"
	if ! wait_for_port "$WORK/$name.port" "$PID"; then
		sed 's/^/#   /' "$WORK/$name.stderr"
		return 1
	fi
	URL="http://127.0.0.1:$(cat "$WORK/$name.port")"
}

# stop_fake PID: SIGTERM; returns its exit status (137 if it had to be killed)
stop_fake() {
	kill -TERM "$1"
	( sleep 10; kill -KILL "$1" 2>/dev/null ) >/dev/null 2>&1 &
	watchdog=$!
	wait "$1"
	stop_rc=$?
	kill "$watchdog" 2>/dev/null
	wait "$watchdog" 2>/dev/null
	CLEANUP_PIDS=$(echo "$CLEANUP_PIDS" | sed "s/ $1\$//; s/ $1 / /")
	return $stop_rc
}

admin() { curl -s -f -X POST --data-binary "$2" "$URL/__admin/$1"; }

# --- a seed state ------------------------------------------------------------------
random_bytes 4096 6 >"$WORK/blob.bin"
BLOB_SHA=$(sha256_of "$WORK/blob.bin")
cat >"$WORK/state.json" <<'EOF'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "maintainer": "admin@example.com",
  "fields": {"cf_regression": {"description": "Regression",
                               "values": ["---", "No", "Yes"], "default": "---"}},
  "users": [
    {"login": "admin@example.com", "real_name": "Bugzilla Admin", "api_key": "KEY-OF-ADMIN",
     "groups": ["admin", "editbugs"]},
    {"login": "alice.reporter@example.com", "real_name": "Alice Reporter",
     "api_key": "KEY-OF-ALICE"},
    {"login": "bob.netdev@example.com", "real_name": "Bob Netdev", "api_key": "KEY-OF-BOB",
     "insider": true, "groups": ["editbugs"]},
    {"login": "dave.user@example.com", "real_name": "Dave User", "api_key": "KEY-OF-DAVE"},
    {"login": "erin.triage@example.com", "real_name": "Erin Triage", "api_key": "KEY-OF-ERIN"}
  ],
  "products": [
    {"name": "Drivers", "description": "Linux kernel device drivers",
     "components": [{"name": "Network", "default_assigned_to": "bob.netdev@example.com",
                     "default_qa_contact": "erin.triage@example.com"},
                    {"name": "USB", "default_assigned_to": "bob.netdev@example.com",
                     "default_qa_contact": "erin.triage@example.com"}]},
    {"name": "File System", "components": [{"name": "ext4",
                     "default_assigned_to": "alice.reporter@example.com",
                     "default_qa_contact": "erin.triage@example.com"}]}
  ],
  "bugs": [
    {"id": 1, "summary": "r8169: NETDEV WATCHDOG: transmit queue 0 timed out after resume",
     "product": "Drivers", "component": "Network", "status": "IN_PROGRESS",
     "severity": "major", "priority": "High", "platform": "PC",
     "creator": "alice.reporter@example.com", "whiteboard": "bisected",
     "url": "https://lore.kernel.org/netdev/x@example.com/",
     "cc": ["dave.user@example.com", "erin.triage@example.com"], "blocks": [5],
     "cf_regression": "Yes",
     "creation_time": "2026-12-03T08:01:55Z", "last_change_time": "2026-12-03T08:02:29Z",
     "comments": [
       {"text": "Since 6.12-rc3 the NIC stops transmitting after resume.",
        "creation_time": "2026-12-03T08:01:55Z"},
       {"text": "Can you bisect?", "creator": "bob.netdev@example.com",
        "creation_time": "2026-12-03T08:01:57Z"},
       {"text": "Realtek confirmed off-list.", "creator": "bob.netdev@example.com",
        "creation_time": "2026-12-03T08:01:58Z", "is_private": true},
       {"text": "Created attachment 1\ndmesg after resume", "attachment_id": 1,
        "creation_time": "2026-12-03T08:01:59Z"}],
     "attachments": [
       {"id": 1, "file_name": "dmesg-6.12.1-resume.txt", "summary": "dmesg after resume",
        "content_type": "text/plain", "text": "[81236.201359] PM: suspend entry (deep)\n",
        "creation_time": "2026-12-03T08:01:59Z"},
       {"id": 2, "file_name": "rtl8168h-2-fw-dump.bin", "summary": "firmware dump",
        "data_file": "blob.bin", "creation_time": "2026-12-03T08:02:01Z"},
       {"id": 3, "file_name": "lspci-vvv.txt", "summary": "lspci -vvv (serial number)",
        "content_type": "text/plain", "text": "03:00.0 Ethernet controller\n",
        "is_private": true, "creation_time": "2026-12-03T08:02:02Z"}],
     "history": [
       {"when": "2026-12-03T08:01:59Z", "who": "erin.triage@example.com",
        "changes": [{"field_name": "status", "removed": "UNCONFIRMED", "added": "CONFIRMED"}]},
       {"when": "2026-12-03T08:02:03Z", "who": "bob.netdev@example.com",
        "changes": [{"field_name": "attachments.isprivate", "removed": "0", "added": "1",
                     "attachment_id": 3}]},
       {"when": "2026-12-03T08:02:06Z", "who": "bob.netdev@example.com",
        "changes": [{"field_name": "status", "removed": "CONFIRMED",
                     "added": "IN_PROGRESS"}]}]},
    {"id": 2, "summary": "xhci_hcd: USB 3.0 hub disconnects", "product": "Drivers",
     "component": "USB", "alias": ["usb-hub"], "creator": "dave.user@example.com",
     "cf_regression": "No", "last_change_time": "2026-12-03T08:02:35Z",
     "comments": [{"text": "My hub drops off the bus.", "creation_time": "2026-12-03T08:02:07Z"},
                  {"text": "Tried 6.12.3: same.", "creation_time": "2026-12-03T08:02:35Z"}]},
    {"id": 3, "summary": "ext4: embargoed corruption", "product": "File System",
     "component": "ext4", "groups": ["security"], "creator": "alice.reporter@example.com",
     "last_change_time": "2026-12-03T08:02:10Z"},
    {"id": 4, "summary": "usb: resume hangs", "product": "Drivers", "component": "USB",
     "creator": "erin.triage@example.com", "last_change_time": "2026-12-03T08:30:01Z",
     "comments": [{"text": "description", "creation_time": "2026-12-03T08:29:00Z"},
                  {"text": "at the second", "creation_time": "2026-12-03T08:30:00Z"},
                  {"text": "one second later", "creation_time": "2026-12-03T08:30:01Z"}]},
    {"id": 5, "summary": "Tracking: fs regressions", "product": "File System",
     "component": "ext4", "cf_regression": "Yes", "last_change_time": "2026-12-03T08:40:00Z"},
    {"id": 6, "summary": "ext4: six", "product": "File System", "component": "ext4",
     "last_change_time": "2026-12-03T08:40:00Z"},
    {"id": 7, "summary": "ext4: seven", "product": "File System", "component": "ext4",
     "status": "RESOLVED", "resolution": "FIXED", "last_change_time": "2026-12-03T08:39:59Z"},
    {"id": 8, "summary": "ext4: eight", "product": "File System", "component": "ext4",
     "cf_regression": "Yes", "last_change_time": "2026-12-03T08:41:00Z"},
    {"id": 9, "summary": "ext4: nine", "product": "File System", "component": "ext4",
     "last_change_time": "2026-12-03T08:40:00Z"},
    {"id": 10, "summary": "ext4: ten", "product": "File System", "component": "ext4",
     "status": "VERIFIED", "resolution": "WONTFIX", "last_change_time": "2026-12-03T08:38:00Z"}
  ]
}
EOF

# --- start -------------------------------------------------------------------------
if ! start_fake fake --state "$WORK/state.json"; then
	not_ok "the fake Bugzilla starts and writes its port file"
	done_testing
	exit 1
fi
SERVER=$PID
ok "the fake Bugzilla starts and writes its port file"
is "  and its pid file" "$(cat "$WORK/fake.pid")" "$SERVER"
ADMIN="api_key=KEY-OF-ADMIN"

# --- server metadata -----------------------------------------------------------------
fetch "$URL/rest/version" >/dev/null
is "/rest/version has the keys of 001" "$(py keys 001-version.json "$WORK/body")" "same"
is "  and says 5.2" "$(jq_ 'd["version"]')" "5.2"
fetch "$URL/rest/time" >/dev/null
is "/rest/time has the keys of 003" "$(py keys 003-time.json "$WORK/body")" "same"
is "  and tells the server clock" "$(jq_ 'd["db_time"] + " " + d["web_time_utc"]')" \
	"2026-12-03T09:00:00Z 2026-12-03T09:00:00Z"
is "  typed application/json; charset=UTF-8" "$(header Content-Type)" "application/json; charset=UTF-8"
like "  with a Content-Length" "$(header Content-Length)" "^[0-9]+$"

# --- bugs -------------------------------------------------------------------------
fetch "$URL/rest/bug/1" >/dev/null
is "GET /rest/bug/1 anonymous: the keys of 033" "$(py keys 033-bug-1-anon.json "$WORK/body")" "same"
is "  the bug's fields and types of 033" "$(py same 033-bug-1-anon.json bugs.0 "$WORK/body" bugs.0)" "same"
fetch "$URL/rest/bug/1?$ADMIN" >/dev/null
is "GET /rest/bug/1 as admin: fields of 034 (update_token, time tracking)" \
	"$(py same 034-bug-1-admin.json bugs.0 "$WORK/body" bugs.0)" "same"
fetch "$URL/rest/bug/1?$ADMIN&include_fields=id,summary,status,resolution,last_change_time,cf_regression" >/dev/null
is "include_fields gives exactly the fields of 036" \
	"$(py same 036-bug-1-include-fields.json bugs.0 "$WORK/body" bugs.0)" "same"
fetch "$URL/rest/bug/1?$ADMIN&include_fields=_all" >/dev/null
is "include_fields=_all gives the fields of 037 (tags too)" \
	"$(py same 037-bug-1-include-all.json bugs.0 "$WORK/body" bugs.0)" "same"
fetch "$URL/rest/bug/1?$ADMIN&exclude_fields=cc_detail,creator_detail,assigned_to_detail,qa_contact_detail,flags" >/dev/null
is "exclude_fields keeps the *_detail fields but drops flags, as 038" \
	"$(py same 038-bug-1-exclude-fields.json bugs.0 "$WORK/body" bugs.0)" "same"
fetch "$URL/rest/bug/usb-hub" >/dev/null
is "a bug by alias, as 039" "$(py same 039-bug-by-alias.json "" "$WORK/body" "")" "same"
is "  is that bug" "$(jq_ 'd["bugs"][0]["id"]')" "2"
fetch "$URL/rest/bug?id=1,2,5&$ADMIN" >/dev/null
is "search by an id list: the shape of 040 (no faults)" "$(py same 040-bug-multiple-ids.json "" "$WORK/body" "")" "same"
is "  the three bugs" "$(jq_ '[b["id"] for b in d["bugs"]]')" "[1, 2, 5]"
fetch "$URL/rest/bug" >/dev/null
is "a search with no criteria: the keys of 093" "$(py same 093-search-no-criteria.json "" "$WORK/body" "")" "same"
is "  every bug the anonymous user may see, by id" "$(jq_ '[b["id"] for b in d["bugs"]]')" \
	"[1, 2, 4, 5, 6, 7, 8, 9, 10]"
fetch "$URL/rest/bug?product=NoSuchProduct" >/dev/null
is "an unknown product gives an empty list, as 092" "$(cat "$WORK/body")" "$(cat "$FIX/092-search-unknown-product.json")"
fetch "$URL/rest/bug/5?include_fields=depends_on" >/dev/null
is "blocks/depends_on are two-sided" "$(jq_ 'd["bugs"][0]["depends_on"]')" "[1]"

compare_error "a missing bug is 101, HTTP 404" 042-bug-nonexistent.json "$URL/rest/bug/99999"
is "  with the message of 042" "$(jq_ 'd["message"]')" "$(py json 042-bug-nonexistent.json 'd["message"]')"
compare_error "an invalid bug id is 100, HTTP 400" 043-bug-invalid-id.json "$URL/rest/bug/abc"
is "  and closes the connection, as Apache did" "$(header Connection)" "close"
compare_error "permissive=1 still fails for a missing id" 041-bug-get-multiple-permissive.json \
	"$URL/rest/bug/1?ids=4&ids=99999&permissive=1&include_fields=id,summary"
compare_error "an unknown resource is 32614, HTTP 404" 008-resource-not-found.json "$URL/rest/nonexistent"
is "  with the message of 008" "$(jq_ 'd["message"]')" "$(py json 008-resource-not-found.json 'd["message"]')"
compare_error "a wrong method is 32614 too" 009-wrong-method.json -X DELETE "$URL/rest/version"
is "  with the message of 009" "$(jq_ 'd["message"]')" "$(py json 009-wrong-method.json 'd["message"]')"
compare_error "an invalid last_change_time is 56" 083-search-last-change-time-invalid.json \
	"$URL/rest/bug?last_change_time=not-a-date"
is "  with the message of 083" "$(jq_ 'd["message"]')" "$(py json 083-search-last-change-time-invalid.json 'd["message"]')"

# --- authentication ----------------------------------------------------------------
compare_error "a bad api_key is 306, HTTP 400" 015-bug-1-bad-api-key.json \
	"$URL/rest/bug/1?api_key=ThisIsNotAValidKey0000000000000000000000"
is "  with the message of 015" "$(jq_ 'd["message"]')" "$(py json 015-bug-1-bad-api-key.json 'd["message"]')"
fetch -H "X-BUGZILLA-API-KEY: KEY-OF-ADMIN" "$URL/rest/bug/1/comment" >/dev/null
is "5.2 ignores X-BUGZILLA-API-KEY: the shape of 016" \
	"$(py same 016-bug-1-api-key-in-header-ignored.json "" "$WORK/body" "")" "same"
is "  and serves the request as anonymous (no private comment)" \
	"$(jq_ '[c["is_private"] for c in d["bugs"]["1"]["comments"]]')" "[false, false, false]"
is "a bad key in the header is ignored too" \
	"$(fetch -H "X-BUGZILLA-API-KEY: nonsense" "$URL/rest/bug/1")" "200"
fetch "$URL/rest/bug/1?Bugzilla_api_key=KEY-OF-ADMIN&include_fields=id,summary" >/dev/null
is "Bugzilla_api_key works as api_key (017)" \
	"$(py same 017-bug-1-bugzilla-api-key-param.json "" "$WORK/body" "")" "same"
is "  and logs in" "$(fetch "$URL/rest/bug/1/comment?Bugzilla_api_key=KEY-OF-ADMIN" >/dev/null; jq_ 'len(d["bugs"]["1"]["comments"])')" "4"
fetch "$URL/rest/login?login=admin%40example.com&password=wrong" >/dev/null
is "a bad password is 300 (014)" "$(jq_ 'd["code"]')" "300"
fetch "$URL/rest/user?names=alice.reporter%40example.com" >/dev/null
is "a user anonymously: the fields of 019" "$(py same 019-user-by-name-anon.json "" "$WORK/body" "")" "same"
fetch "$URL/rest/user?names=admin%40example.com&$ADMIN" >/dev/null
is "oneself with a key: the fields of 018" "$(py same 018-user-admin.json "" "$WORK/body" "")" "same"
compare_error "an unknown user is 51, HTTP 404" 020-user-nonexistent.json \
	"$URL/rest/user?names=nobody%40example.com&$ADMIN"

# --- comments ----------------------------------------------------------------------
fetch "$URL/rest/bug/1/comment" >/dev/null
is "comments anonymously: the shape of 047" "$(py same 047-bug-1-comments-anon.json "" "$WORK/body" "")" "same"
is "  without the private one" "$(jq_ '[c["count"] for c in d["bugs"]["1"]["comments"]]')" "[0, 1, 3]"
fetch "$URL/rest/bug/1/comment?$ADMIN" >/dev/null
is "comments for an insider: the shape of 048" "$(py same 048-bug-1-comments-admin.json "" "$WORK/body" "")" "same"
is "  with the private one" "$(jq_ '[c["count"] for c in d["bugs"]["1"]["comments"]]')" "[0, 1, 2, 3]"
fetch "$URL/rest/bug/1/comment?api_key=KEY-OF-DAVE" >/dev/null
is "comments for a user who is no insider (049): no private one" \
	"$(jq_ '[c["count"] for c in d["bugs"]["1"]["comments"]]')" "[0, 1, 3]"
fetch "$URL/rest/bug/2/comment?ids=4&ids=1&$ADMIN" >/dev/null
is "comments of several bugs in one request: the shape of 053" \
	"$(py same 053-comments-multiple-bugs.json "" "$WORK/body" "")" "same"
is "  keyed by bug id" "$(jq_ 'sorted(d["bugs"])')" '["1", "2", "4"]'
fetch "$URL/rest/bug/4/comment?new_since=2026-12-03T08:30:00Z" >/dev/null
is "new_since is strictly after (050)" "$(jq_ '[c["text"] for c in d["bugs"]["4"]["comments"]]')" '["one second later"]'
is "  with the keys of 050" "$(py keys 050-bug-1-comments-new-since.json "$WORK/body")" "same"
fetch "$URL/rest/bug/1/comment?$ADMIN&new_since=2030-01-01T00:00:00Z" >/dev/null
is "new_since in the future: what 051 shows" "$(jq_ 'd')" "$(py json 051-bug-1-comments-new-since-future.json 'd')"
compare_error "an invalid new_since is 56" 052-bug-1-comments-new-since-invalid.json \
	"$URL/rest/bug/1/comment?$ADMIN&new_since=yesterday-ish"
is "  with the message of 052" "$(jq_ 'd["message"]')" "$(py json 052-bug-1-comments-new-since-invalid.json 'd["message"]')"
compare_error "/rest/bug/comment?ids= is no route: 100" 054-comment-path-without-id.json \
	"$URL/rest/bug/comment?ids=2&ids=4&$ADMIN"
fetch "$URL/rest/bug/comment/2?$ADMIN" >/dev/null
is "a comment by id: the shape of 055" "$(py same 055-comment-by-id.json "" "$WORK/body" "")" "same"
compare_error "a private comment by id, anonymously: 110, HTTP 401" 056-comment-private-by-id-anon.json \
	"$URL/rest/bug/comment/3"
compare_error "a comment that does not exist: 111" 057-comment-nonexistent.json \
	"$URL/rest/bug/comment/999999?$ADMIN"
is "  with the message of 057" "$(jq_ 'd["message"]')" "$(py json 057-comment-nonexistent.json 'd["message"]')"
compare_error "comments of a missing bug: 101" 058-bug-nonexistent-comments.json "$URL/rest/bug/99999/comment"

# --- attachments -------------------------------------------------------------------
fetch "$URL/rest/bug/1/attachment?$ADMIN" >/dev/null
is "attachments with data: the shape of 059" "$(py same 059-bug-1-attachments-admin.json "" "$WORK/body" "")" "same"
is "  the data is base64 of the bytes" \
	"$(jq_ '__import__("hashlib").sha256(__import__("base64").b64decode(d["bugs"]["1"][1]["data"])).hexdigest()')" "$BLOB_SHA"
is "  and size counts them" "$(jq_ 'd["bugs"]["1"][1]["size"]')" "4096"
fetch "$URL/rest/bug/1/attachment" >/dev/null
is "attachments anonymously (060): no private one" "$(jq_ '[a["id"] for a in d["bugs"]["1"]]')" "[1, 2]"
fetch "$URL/rest/bug/1/attachment?$ADMIN&exclude_fields=data" >/dev/null
is "exclude_fields=data: the shape of 061" "$(py same 061-bug-1-attachments-no-data.json "" "$WORK/body" "")" "same"
is "  no data at all" "$(jq_ 'any("data" in a for a in d["bugs"]["1"])')" "false"
fetch "$URL/rest/bug/attachment/1" >/dev/null
is "an attachment by id: the shape of 063" "$(py same 063-attachment-1-text.json "" "$WORK/body" "")" "same"
compare_error "a private attachment anonymously: 304, HTTP 401" 064-attachment-3-private-anon.json \
	"$URL/rest/bug/attachment/3"
fetch "$URL/rest/bug/attachment/3?$ADMIN" >/dev/null
is "  an insider gets it, as 065" "$(py same 065-attachment-3-private-admin.json "" "$WORK/body" "")" "same"
fetch "$URL/rest/bug/attachment/99999" >/dev/null
is "a missing attachment is left out, as 066" "$(jq_ 'd')" "$(py json 066-attachment-nonexistent.json 'd')"
fetch "$URL/rest/bug/attachment/1?attachment_ids=2&attachment_ids=99&exclude_fields=data" >/dev/null
is "several attachments by id: the shape of 067" "$(py same 067-attachments-by-ids.json "" "$WORK/body" "")" "same"
is "  the ones that exist" "$(jq_ 'sorted(d["attachments"])')" '["1", "2"]'

code=$(curl -s -o "$WORK/raw.bin" -D "$WORK/headers.raw" -w '%{http_code}' "$URL/attachment.cgi?id=2")
tr -d '\r' <"$WORK/headers.raw" >"$WORK/headers"
is "attachment.cgi: the raw bytes" "$code $(sha256_of "$WORK/raw.bin")" "200 $BLOB_SHA"
is "  typed as 070 is" "$(header Content-Type)" \
	"$(tr -d '\r' <"$FIX/070-attachment-cgi-2-raw-binary.headers" | grep -i '^Content-Type:' | cut -d' ' -f2-)"
is "  named as 070 is" "$(header Content-Disposition)" \
	"$(tr -d '\r' <"$FIX/070-attachment-cgi-2-raw-binary.headers" | grep -i '^Content-disposition:' | cut -d' ' -f2-)"
is "  with its length" "$(header Content-Length)" "4096"
is "a text attachment, typed as 071 is" "$(fetch "$URL/attachment.cgi?id=1")$(header Content-Type)" \
	"200$(tr -d '\r' <"$FIX/071-attachment-cgi-1-raw-text.headers" | grep -i '^Content-Type:' | cut -d' ' -f2-)"
fixture_message() { sed -n '/id="error_msg"/,/<\/div>/p' "$FIX/$1" | sed 's/<[^>]*>//g' | tr -s ' \n' ' ' | sed 's/^ *//; s/ *$//'; }
our_message() { sed -n '/id="error_msg"/,/<\/div>/p' "$WORK/body" | sed 's/<[^>]*>//g' | tr -s ' \n' ' ' | sed 's/^ *//; s/ *$//'; }
is "a private attachment from attachment.cgi: an HTML error with status 200 (073)" \
	"$(fetch "$URL/attachment.cgi?id=3") $(header Content-Type)" "200 text/html; charset=UTF-8"
fetch "$URL/attachment.cgi?id=3&$ADMIN" >/dev/null
is "  saying what 073 says (API keys do not work on CGIs)" "$(our_message)" \
	"$(fixture_message 073-attachment-cgi-3-private-anon.html)"
fetch "$URL/attachment.cgi?id=99999" >/dev/null
is "a missing attachment from attachment.cgi: the message of 074" "$(our_message)" \
	"$(fixture_message 074-attachment-cgi-nonexistent.html)"

# --- history ----------------------------------------------------------------------
fetch "$URL/rest/bug/1/history?$ADMIN" >/dev/null
is "history: the shape of 075" "$(py same 075-bug-1-history.json "" "$WORK/body" "")" "same"
is "  three entries for an insider" "$(jq_ 'len(d["bugs"][0]["history"])')" "3"
fetch "$URL/rest/bug/1/history" >/dev/null
is "  the private attachment's change hidden from others" "$(jq_ 'len(d["bugs"][0]["history"])')" "2"
fetch "$URL/rest/bug/1/history?$ADMIN&new_since=2026-12-03T08:02:03Z" >/dev/null
is "history new_since is strictly after (077)" "$(jq_ '[h["when"] for h in d["bugs"][0]["history"]]')" '["2026-12-03T08:02:06Z"]'
compare_error "history of a missing bug: 101" 079-bug-nonexistent-history.json "$URL/rest/bug/99999/history"

# --- privacy: a bug in a group -------------------------------------------------------
fetch "$URL/rest/bug/3" >/dev/null
is "a bug in a group, anonymously: 102, HTTP 401" "$(jq_ 'd["code"]') $(fetch "$URL/rest/bug/3")" "102 401"
is "  a user outside the group: 102" "$(fetch "$URL/rest/bug/3?api_key=KEY-OF-DAVE" >/dev/null; jq_ 'd["code"]')" "102"
is "  its reporter sees it" "$(fetch "$URL/rest/bug/3?api_key=KEY-OF-ALICE")" "200"
is "  so does the admin" "$(fetch "$URL/rest/bug/3?$ADMIN")" "200"
is "  a search leaves it out for others" \
	"$(fetch "$URL/rest/bug?product=File%20System&api_key=KEY-OF-DAVE" >/dev/null; jq_ '3 in [b["id"] for b in d["bugs"]]')" "false"
is "  and has it for the reporter" \
	"$(fetch "$URL/rest/bug?product=File%20System&api_key=KEY-OF-ALICE" >/dev/null; jq_ '3 in [b["id"] for b in d["bugs"]]')" "true"
is "  its comments are refused too" "$(fetch "$URL/rest/bug/3/comment")" "401"

# --- search semantics ----------------------------------------------------------------
fetch "$URL/rest/bug?last_change_time=2026-12-03T08:40:00Z&include_fields=id,summary,status,last_change_time" >/dev/null
is "last_change_time is at or after (080)" "$(jq_ '[b["id"] for b in d["bugs"]]')" "[5, 6, 8, 9]"
is "  include_fields as 081" "$(py same 081-search-last-change-time-fields.json "" "$WORK/body" "")" "same"
fetch "$URL/rest/bug?product=File%20System&order=changeddate,bug_id&include_fields=id,last_change_time" >/dev/null
is "order=changeddate,bug_id (155)" "$(jq_ '[b["id"] for b in d["bugs"]]')" "[10, 7, 5, 6, 9, 8]"
is "  the shape of 155" "$(py same 155-search-sync-query.json "" "$WORK/body" "")" "same"
pages=""
for offset in 0 2 4 6; do
	fetch "$URL/rest/bug?product=File%20System&order=changeddate,bug_id&limit=2&offset=$offset&include_fields=id" >/dev/null
	pages="$pages$(jq_ '" ".join(str(b["id"]) for b in d["bugs"])')|"
done
is "limit/offset pages through it (085)" "$pages" "10 7|5 6|9 8||"
fetch "$URL/rest/bug?product=File%20System&limit=5&offset=5&order=bug_id&include_fields=id,summary" >/dev/null
is "  the shape of 085" "$(py same 085-search-product-limit-offset.json "" "$WORK/body" "")" "same"
fetch "$URL/rest/bug?status=RESOLVED&status=VERIFIED&include_fields=id,status,resolution,dupe_of" >/dev/null
is "a repeated status means any of them (086)" "$(jq_ '[b["id"] for b in d["bugs"]]')" "[7, 10]"
is "  the shape of 086" "$(py same 086-search-status-resolved.json "" "$WORK/body" "")" "same"
fetch "$URL/rest/bug?cf_regression=Yes&resolution=---&include_fields=id,summary,status,cf_regression" >/dev/null
is "a custom field and resolution=--- search (087)" "$(jq_ '[b["id"] for b in d["bugs"]]')" "[1, 5, 8]"
fetch "$URL/rest/bug?f1=cf_regression&o1=equals&v1=Yes&f2=product&o2=equals&v2=File%20System&include_fields=id,summary,cf_regression" >/dev/null
is "a boolean chart (088)" "$(jq_ '[b["id"] for b in d["bugs"]]')" "[5, 8]"
fetch "$URL/rest/bug?product=Drivers&component=USB&component=Network&include_fields=id,summary,status" >/dev/null
is "product and repeated component (084)" "$(jq_ '[b["id"] for b in d["bugs"]]')" "[1, 2, 4]"
fetch "$URL/rest/bug?creation_time=2026-12-03T08:29:00Z&product=Drivers&include_fields=id" >/dev/null
is "creation_time is at or after (089)" "$(jq_ '[b["id"] for b in d["bugs"]]')" "[4]"
fetch "$URL/rest/bug?alias=usb-hub&include_fields=id,alias,summary" >/dev/null
is "alias search (091)" "$(py same 091-search-alias.json "" "$WORK/body" "")$(jq_ '[b["id"] for b in d["bugs"]]')" "same[2]"

# --- ETag --------------------------------------------------------------------------
fetch "$URL/rest/bug/1" >/dev/null
etag=$(header ETag)
like "GET answers carry an ETag like Bugzilla's" "$etag" '^[A-Za-z0-9+/]{22}$'
is "If-None-Match with it is 304 (035)" "$(fetch -H "If-None-Match: $etag" "$URL/rest/bug/1")" "304"
check "  with an empty body" test ! -s "$WORK/body"
is "  and the ETag" "$(header ETag)" "$etag"
is "a quoted ETag matches too" "$(fetch -H "If-None-Match: \"$etag\"" "$URL/rest/bug/1")" "304"
is "another ETag is 200" "$(fetch -H 'If-None-Match: "abc"' "$URL/rest/bug/1")" "200"

# --- writes ------------------------------------------------------------------------
admin clock '{"now": "2026-12-03T09:10:00Z"}' >/dev/null
fetch -X POST --data-binary @"$FIX/122-add-comment-public.request.json" \
	"$URL/rest/bug/1/comment?api_key=KEY-OF-BOB" >"$WORK/code"
is "POST a comment: 201 as 122" "$(cat "$WORK/code") $(py keys 122-add-comment-public.json "$WORK/body")" "201 same"
comment_id=$(jq_ 'd["id"]')
fetch "$URL/rest/bug/1/comment?new_since=2026-12-03T09:09:59Z" >/dev/null
is "  the comment is there, timed by the server clock" \
	"$(jq_ '[(c["id"], c["creator"], c["creation_time"]) for c in d["bugs"]["1"]["comments"]]')" \
	"[[$comment_id, \"bob.netdev@example.com\", \"2026-12-03T09:10:00Z\"]]"
is "  and the bug's last_change_time moved" \
	"$(fetch "$URL/rest/bug/1?include_fields=last_change_time" >/dev/null; jq_ 'd["bugs"][0]["last_change_time"]')" "2026-12-03T09:10:00Z"
is "  so the ETag changed" "$(fetch -H "If-None-Match: $etag" "$URL/rest/bug/1")" "200"
fetch -X POST --data-binary @"$FIX/123-add-comment-private.request.json" \
	"$URL/rest/bug/1/comment?api_key=KEY-OF-BOB" >"$WORK/code"
is "an insider's private comment: 201 (123)" "$(cat "$WORK/code")" "201"
is "  hidden from anonymous readers" \
	"$(fetch "$URL/rest/bug/1/comment?new_since=2026-12-03T09:09:59Z" >/dev/null; jq_ 'len(d["bugs"]["1"]["comments"])')" "1"
compare_error "a private comment by a non-insider: 113" 124-add-comment-private-by-non-insider.json \
	-X POST --data-binary @"$FIX/124-add-comment-private-by-non-insider.request.json" \
	"$URL/rest/bug/1/comment?api_key=KEY-OF-DAVE"
compare_error "an empty comment: 50" 125-add-comment-empty.json \
	-X POST --data-binary @"$FIX/125-add-comment-empty.request.json" "$URL/rest/bug/1/comment?api_key=KEY-OF-BOB"
is "  with the message of 125" "$(jq_ 'd["message"]')" "$(py json 125-add-comment-empty.json 'd["message"]')"
compare_error "a comment on a missing bug: 101" 126-add-comment-nonexistent-bug.json \
	-X POST --data-binary @"$FIX/126-add-comment-nonexistent-bug.request.json" \
	"$URL/rest/bug/99999/comment?api_key=KEY-OF-BOB"
compare_error "a comment without a key: 410, HTTP 401" 127-add-comment-anon.json \
	-X POST --data-binary @"$FIX/127-add-comment-anon.request.json" "$URL/rest/bug/1/comment"
is "  with the message of 127" "$(jq_ 'd["message"]')" "$(py json 127-add-comment-anon.json 'd["message"]')"
compare_error "a comment with the key in the header only (5.2): 410" 127-add-comment-anon.json \
	-X POST -H "X-BUGZILLA-API-KEY: KEY-OF-BOB" --data-binary '{"comment": "x"}' "$URL/rest/bug/1/comment"
is "a comment with the key in the JSON body works" \
	"$(fetch -X POST --data-binary '{"comment": "body key", "api_key": "KEY-OF-BOB"}' "$URL/rest/bug/4/comment")" "201"

# bug creation, with the recorded request bodies
fetch -X POST --data-binary @"$FIX/113-create-bug.request.json" "$URL/rest/bug?api_key=KEY-OF-ALICE" >"$WORK/code"
is "POST /rest/bug creates a bug: 200 as 113" "$(cat "$WORK/code") $(py keys 113-create-bug.json "$WORK/body")" "200 same"
new_bug=$(jq_ 'd["id"]')
is "  with the next id" "$new_bug" "11"
fetch "$URL/rest/bug/$new_bug?$ADMIN" >/dev/null
is "  readable like 156" "$(py same 156-bug-new-after-writes.json bugs.0 "$WORK/body" bugs.0)" "same"
is "  unconfirmed, reported by the key's user, now" \
	"$(jq_ '[d["bugs"][0][k] for k in ("status", "creator", "creation_time", "cf_regression")]')" \
	'["UNCONFIRMED", "alice.reporter@example.com", "2026-12-03T09:10:00Z", "Yes"]'
fetch "$URL/rest/bug/$new_bug/comment" >/dev/null
is "  its description is comment 0 (157)" "$(py same 157-bug-new-comments.json "" "$WORK/body" "")$(jq_ 'd["bugs"]["11"]["comments"][0]["count"]')" "same0"
for f in 114-create-bug-missing-op_sys 115-create-bug-missing-summary 116-create-bug-invalid-component \
	117-create-bug-invalid-product 118-create-bug-invalid-cf_regression; do
	compare_error "create: $(echo "$f" | cut -d- -f4-)" "$f.json" -X POST \
		--data-binary @"$FIX/$f.request.json" "$URL/rest/bug?api_key=KEY-OF-ALICE"
	is "  with the message of $f" "$(jq_ 'd["message"]')" "$(py json "$f.json" 'd["message"]')"
done
compare_error "create without a key: 410" 119-create-bug-anon.json -X POST \
	--data-binary @"$FIX/119-create-bug-anon.request.json" "$URL/rest/bug"
compare_error "create with a bad key: 306" 120-create-bug-bad-api-key.json -X POST \
	--data-binary @"$FIX/120-create-bug-bad-api-key.request.json" \
	"$URL/rest/bug?api_key=ThisIsNotAValidKey0000000000000000000000"
compare_error "malformed JSON: 32000" 121-create-bug-malformed-json.json -X POST \
	--data-binary @"$FIX/121-create-bug-malformed-json.request.body" "$URL/rest/bug?api_key=KEY-OF-ALICE"

# attachments
"$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["ids"] = [1]; print(json.dumps(d))' \
	"$FIX/128-add-attachment-binary.request.json" >"$WORK/att.json"
fetch -X POST --data-binary @"$WORK/att.json" "$URL/rest/bug/1/attachment?api_key=KEY-OF-ALICE" >"$WORK/code"
is "POST an attachment: 201 as 128" "$(cat "$WORK/code") $(py keys 128-add-attachment-binary.json "$WORK/body")" "201 same"
new_att=$(jq_ 'd["ids"][0]')
"$PYTHON" -c 'import base64, json, sys; open(sys.argv[2], "wb").write(base64.b64decode(json.load(open(sys.argv[1]))["data"]))' \
	"$WORK/att.json" "$WORK/att.want"
curl -s -o "$WORK/att.got" "$URL/attachment.cgi?id=$new_att"
is "  attachment.cgi gives back the bytes sent" "$(sha256_of "$WORK/att.got")" "$(sha256_of "$WORK/att.want")"
fetch "$URL/rest/bug/1/comment?new_since=2026-12-03T09:09:59Z" >/dev/null
like "  with the \"Created attachment\" comment Bugzilla adds (147)" \
	"$(jq_ 'd["bugs"]["1"]["comments"][-1]["text"]')" "^Created attachment $new_att
gzip-compressed trace"
is "  pointing at it" "$(jq_ 'd["bugs"]["1"]["comments"][-1]["attachment_id"]')" "$new_att"
fetch "$URL/rest/bug/attachment/$new_att" >/dev/null
is "  and listed like 151" "$(py same 151-attachment-new-binary.json "" "$WORK/body" "")" "same"
for f in 131-add-attachment-missing-content-type 132-add-attachment-missing-summary 133-add-attachment-empty-data; do
	compare_error "attachment: $(echo "$f" | cut -d- -f4-)" "$f.json" -X POST \
		--data-binary @"$FIX/$f.request.json" "$URL/rest/bug/1/attachment?api_key=KEY-OF-ALICE"
done
compare_error "attachment on a missing bug: 101" 134-add-attachment-nonexistent-bug.json -X POST \
	--data-binary '{"file_name": "x.txt", "summary": "x", "content_type": "text/plain", "data": "YWJj"}' \
	"$URL/rest/bug/99999/attachment?api_key=KEY-OF-ALICE"
fetch -X PUT --data-binary '{"is_obsolete": true, "comment": "Superseded."}' \
	"$URL/rest/bug/attachment/1?api_key=KEY-OF-BOB" >/dev/null
is "PUT an attachment: the shape of 135" "$(py same 135-update-attachment-obsolete.json "" "$WORK/body" "")" "same"
is "  is_obsolete changed" "$(jq_ 'd["attachments"][0]["changes"]')" '{"is_obsolete": {"added": "1", "removed": "0"}}'

# bug updates
admin clock '{"advance": 60}' >/dev/null
fetch -X PUT --data-binary @"$FIX/137-update-bug-1-status-resolved-fixed.request.json" \
	"$URL/rest/bug/1?api_key=KEY-OF-BOB" >/dev/null
is "PUT status/resolution: the shape of 137" "$(py same 137-update-bug-1-status-resolved-fixed.json "" "$WORK/body" "")" "same"
is "  the changes of 137" "$(jq_ 'd["bugs"][0]["changes"]')" \
	"$(py json 137-update-bug-1-status-resolved-fixed.json 'd["bugs"][0]["changes"]')"
is "  at the server clock" "$(jq_ 'd["bugs"][0]["last_change_time"]')" "2026-12-03T09:11:00Z"
admin clock '{"advance": 60}' >/dev/null
fetch -X PUT --data-binary @"$FIX/138-update-bug-1-same-status-again.request.json" \
	"$URL/rest/bug/1?api_key=KEY-OF-BOB" >/dev/null
is "the same update again changes nothing (138)" \
	"$(jq_ '[d["bugs"][0]["changes"], d["bugs"][0]["last_change_time"]]')" '[{}, "2026-12-03T09:11:00Z"]'
compare_error "an unknown status: 51, HTTP 404" 139-update-bug-1-invalid-status.json -X PUT \
	--data-binary @"$FIX/139-update-bug-1-invalid-status.request.json" "$URL/rest/bug/1?api_key=KEY-OF-BOB"
is "  with the message of 139" "$(jq_ 'd["message"]')" "$(py json 139-update-bug-1-invalid-status.json 'd["message"]')"
compare_error "a resolution on an open bug: 122" 140-update-bug-new-resolution-without-status.json -X PUT \
	--data-binary '{"resolution": "FIXED"}' "$URL/rest/bug/$new_bug?api_key=KEY-OF-BOB"
compare_error "a change by someone without the right: 115" 141-update-bug-1-not-authorized.json -X PUT \
	--data-binary @"$FIX/141-update-bug-1-not-authorized.request.json" "$URL/rest/bug/1?api_key=KEY-OF-DAVE"
"$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["ids"] = [int(sys.argv[2])]; d["blocks"] = {"add": [5]}; print(json.dumps(d))' \
	"$FIX/142-update-bug-new-triage.request.json" "$new_bug" >"$WORK/triage.json"
fetch -X PUT --data-binary @"$WORK/triage.json" "$URL/rest/bug/$new_bug?api_key=KEY-OF-BOB" >/dev/null
is "triage: the changes of 142" "$(jq_ 'd["bugs"][0]["changes"]')" \
	"$(py json 142-update-bug-new-triage.json 'd["bugs"][0]["changes"]' | sed 's/"25"/"5"/')"
fetch "$URL/rest/bug/$new_bug/history?$ADMIN" >/dev/null
is "  recorded in the history like 158" "$(py same 158-bug-new-history.json "" "$WORK/body" "")" "same"
is "  and the other bug's depends_on changed" \
	"$(fetch "$URL/rest/bug/5?include_fields=depends_on" >/dev/null; jq_ 'd["bugs"][0]["depends_on"]')" "[1, $new_bug]"
compare_error "an update of a missing bug: 101" 144-update-bug-nonexistent.json -X PUT \
	--data-binary '{"priority": "High"}' "$URL/rest/bug/99999?api_key=KEY-OF-BOB"
fetch -X PUT --data-binary '{"dupe_of": 1, "comment": {"body": "Same root cause as bug 1."}}' \
	"$URL/rest/bug/4?api_key=KEY-OF-BOB" >/dev/null
is "marking a duplicate: the changes of 145" "$(jq_ 'sorted(d["bugs"][0]["changes"])')" \
	"$(py json 145-update-bug-mark-duplicate.json 'sorted(d["bugs"][0]["changes"])')"
is "  dupe_of as 145" "$(jq_ 'd["bugs"][0]["changes"]["dupe_of"]')" \
	"$(py json 145-update-bug-mark-duplicate.json 'd["bugs"][0]["changes"]["dupe_of"]')"
fetch "$URL/rest/bug/1/comment?new_since=2026-12-03T09:11:59Z" >/dev/null
is "  the original gets Bugzilla's comment (147)" "$(jq_ 'd["bugs"]["1"]["comments"][-1]["text"]')" \
	"*** Bug 4 has been marked as a duplicate of this bug. ***"
fetch "$URL/rest/bug?last_change_time=2026-12-03T09:12:00Z&include_fields=id,summary,status,resolution,cf_regression,last_change_time&$ADMIN" >/dev/null
is "a search after the writes finds what changed (153)" "$(jq_ '[b["id"] for b in d["bugs"]]')" "[1, 4, 5, $new_bug]"
is "  in the shape of 153" "$(py same 153-search-last-change-time-after-writes.json "" "$WORK/body" "")" "same"

# --- the XML export ----------------------------------------------------------------
fetch "$URL/show_bug.cgi?ctype=xml&id=1&id=99999&excludefield=attachmentdata" >/dev/null
is "show_bug.cgi?ctype=xml: application/xml" "$(header Content-Type)" "application/xml; charset=UTF-8"
is "  the root element of 096" "$(py xml "$WORK/body" 'root.tag + " " + " ".join(sorted(root.attrib))')" \
	"$(py xml 096-xml-multiple-with-missing.xml 'root.tag + " " + " ".join(sorted(root.attrib))')"
is "  a missing id answers as 096 does" \
	"$(py xml "$WORK/body" '[(b.get("error"), b.findtext("bug_id")) for b in root if b.get("error")]')" \
	"$(py xml 096-xml-multiple-with-missing.xml '[(b.get("error"), b.findtext("bug_id")) for b in root if b.get("error")]')"
is "  bug 1 has the elements bug 1 has in 094" \
	"$(py xml "$WORK/body" 'sorted({c.tag for c in root[0]})')" \
	"$(py xml 094-xml-bug-1-anon.xml 'sorted({c.tag for c in root[0]})')"
is "  comments have the elements of 094's" \
	"$(py xml "$WORK/body" 'sorted({c.tag for l in root[0].iter("long_desc") for c in l})')" \
	"$(py xml 094-xml-bug-1-anon.xml 'sorted({c.tag for l in root[0].iter("long_desc") for c in l})')"
is "  attachments have those of 095 (no data)" \
	"$(py xml "$WORK/body" 'sorted({c.tag for a in root[0].iter("attachment") for c in a} | set(root[0].find("attachment").attrib))')" \
	"$(py xml 095-xml-bug-1-no-attachmentdata.xml 'sorted({c.tag for a in root[0].iter("attachment") for c in a} | set(root[0].find("attachment").attrib))')"
is "  no private comment, logins without @domain (anonymous)" \
	"$(py xml "$WORK/body" '[(l.findtext("comment_count"), l.findtext("who")) for l in root[0].iter("long_desc")][:4]')" \
	'[["0", "alice.reporter"], ["1", "bob.netdev"], ["3", "alice.reporter"], ["4", "bob.netdev"]]'
is "  no private attachment" "$(py xml "$WORK/body" '[a.findtext("attachid") for a in root[0].iter("attachment")]')" \
	"[\"1\", \"2\", \"$new_att\"]"
fetch "$URL/show_bug.cgi?ctype=xml&id=2,1" >/dev/null
is "with attachment data: its base64 is the bytes" \
	"$(py xml "$WORK/body" '__import__("hashlib").sha256(__import__("base64").b64decode([a for a in root[1].iter("attachment") if a.findtext("attachid") == "2"][0].findtext("data"))).hexdigest()')" "$BLOB_SHA"
is "  several ids, comma-separated, in order" "$(py xml "$WORK/body" '[b.findtext("bug_id") for b in root]')" '["2", "1"]'
fetch "$URL/show_bug.cgi?ctype=xml&id=abc" >/dev/null
is "an invalid id as 098" "$(py xml "$WORK/body" '[(b.get("error"), b.findtext("bug_id")) for b in root]')" \
	"$(py xml 098-xml-invalid-id.xml '[(b.get("error"), b.findtext("bug_id")) for b in root]')"
fetch "$URL/show_bug.cgi?ctype=xml&id=3" >/dev/null
is "a hidden bug is NotPermitted" "$(py xml "$WORK/body" '[b.get("error") for b in root]')" '["NotPermitted"]'
fetch "$URL/show_bug.cgi?ctype=xml&id=2&field=bug_id&field=short_desc&field=bug_status&field=delta_ts&field=long_desc" >/dev/null
is "field= selects elements as 099" "$(py xml "$WORK/body" 'sorted({c.tag for c in root[0]})')" \
	"$(py xml 099-xml-field-subset.xml 'sorted({c.tag for c in root[0]})')"

# --- Bugzilla 5.1: the header works ---------------------------------------------------
URL52=$URL
if start_fake fake51 --state "$WORK/state.json" --version 5.1.2; then
	is "--version 5.1.2: /rest/version says so" "$(fetch "$URL/rest/version" >/dev/null; jq_ 'd["version"]')" "5.1.2"
	fetch -H "X-BUGZILLA-API-KEY: KEY-OF-ADMIN" "$URL/rest/bug/1/comment" >/dev/null
	is "  X-BUGZILLA-API-KEY logs in (private comment shown)" "$(jq_ 'len(d["bugs"]["1"]["comments"])')" "4"
	is "  a bad key in the header is 306" \
		"$(fetch -H "X-BUGZILLA-API-KEY: nonsense" "$URL/rest/bug/1" >/dev/null; jq_ 'd["code"]')" "306"
	is "  and writes work with it" \
		"$(fetch -X POST -H "X-BUGZILLA-API-KEY: KEY-OF-BOB" --data-binary '{"comment": "x"}' "$URL/rest/bug/1/comment")" "201"
	stop_fake "$PID"
else
	not_ok "--version 5.1.2 starts"
fi
URL=$URL52

# --- the request log ---------------------------------------------------------------
is "POST /__admin/reset_log" "$(admin reset_log '{}' | py json /dev/stdin 'sorted(d)')" '["cleared"]'
curl -s -o /dev/null -o /dev/null "$URL/rest/bug/1?api_key=KEY-OF-BOB" "$URL/rest/bug/2/comment"
curl -s -o /dev/null -H "X-BUGZILLA-API-KEY: KEY-OF-ADMIN" "$URL/rest/time"
curl -s "$URL/__admin/log" >"$WORK/log.json"
is "every request is logged" "$(py json "$WORK/log.json" 'd["count"]')" "3"
is "  with method, path, query (no key), key flag, user, status" \
	"$(py json "$WORK/log.json" '[(e["method"], e["path"], e["query"], e["api_key"], e["api_key_via"], e["user"], e["status"]) for e in d["requests"]]')" \
	'[["GET", "/rest/bug/1", {}, true, "param", "bob.netdev@example.com", 200], ["GET", "/rest/bug/2/comment", {}, false, null, null, 200], ["GET", "/rest/time", {}, true, "header", null, 200]]'
is "  two requests of one curl share a kept-alive connection" \
	"$(py json "$WORK/log.json" 'd["requests"][0]["conn"] == d["requests"][1]["conn"] != d["requests"][2]["conn"]')" "true"
is "  counted by path prefix" "$(curl -s "$URL/__admin/log?path_prefix=/rest/bug" | py json /dev/stdin 'd["count"]')" "2"
is "  and by method" "$(curl -s "$URL/__admin/log?method=POST" | py json /dev/stdin 'd["count"]')" "0"
unlike "no API key reaches the log file" "$(cat "$WORK/fake.log")" "KEY-OF-"
is "the log file has one JSON line per request" \
	"$(tail -3 "$WORK/fake.log" | "$PYTHON" -c 'import json, sys; print([json.loads(l)["path"] for l in sys.stdin])')" \
	"['/rest/bug/1', '/rest/bug/2/comment', '/rest/time']"

# --- failure injection -----------------------------------------------------------------
admin fail '{"count": 1, "status": 401, "path_prefix": "/rest/bug"}' >/dev/null
is "fail 401 on /rest/bug: other paths still work" "$(fetch "$URL/rest/version")" "200"
is "  the next /rest/bug request is 401" "$(fetch "$URL/rest/bug/1")" "401"
is "  with a Bugzilla error" "$(jq_ 'd["code"]')" "410"
is "  only once" "$(fetch "$URL/rest/bug/1")" "200"
admin fail '{"count": 2, "status": 429, "retry_after": 7}' >/dev/null
is "fail 429 with Retry-After" "$(fetch "$URL/rest/bug/1") $(header Retry-After)" "429 7"
is "  count 2: twice" "$(fetch "$URL/rest/time") $(header Retry-After)" "429 7"
is "  then fine" "$(fetch "$URL/rest/time")" "200"
admin fail '{"status": 500}' >/dev/null
is "fail 500: an HTML error page" "$(fetch "$URL/rest/bug/1") $(header Content-Type)" "500 text/html; charset=iso-8859-1"
admin fail '{"status": 503, "retry_after": "Thu, 03 Dec 2026 10:00:00 GMT"}' >/dev/null
is "fail 503 with an HTTP-date Retry-After" "$(fetch "$URL/rest/bug/1") $(header Retry-After)" "503 Thu, 03 Dec 2026 10:00:00 GMT"
admin fail '{"status": 500, "skip": 1, "path_prefix": "/rest/bug/2"}' >/dev/null
is "skip 1: the first matching request passes" "$(fetch "$URL/rest/bug/2")" "200"
is "  the second fails" "$(fetch "$URL/rest/bug/2")" "500"
admin fail '{"mode": "truncate"}' >/dev/null
curl -s -o "$WORK/cut" -D "$WORK/headers.raw" "$URL/rest/bug/1?$ADMIN"
is "truncate: curl sees a partial body (exit 18)" "$?" "18"
tr -d '\r' <"$WORK/headers.raw" >"$WORK/headers"
is "  half of what Content-Length promised" "$(($(header Content-Length) / 2))" "$(wc -c <"$WORK/cut" | tr -d ' ')"
admin fail '{"mode": "invalid_json"}' >/dev/null
is "invalid_json: 200 application/json" "$(fetch "$URL/rest/bug/1") $(header Content-Type)" "200 application/json; charset=UTF-8"
check "  that is not JSON" sh -c "! '$PYTHON' -c 'import json, sys; json.load(open(sys.argv[1]))' '$WORK/body' 2>/dev/null"
count_comments() { fetch "$URL/rest/bug/2/comment" >/dev/null; jq_ 'len(d["bugs"]["2"]["comments"])'; }
before=$(count_comments)
admin fail '{"mode": "drop", "method": "POST"}' >/dev/null
curl -s -o /dev/null -X POST --data-binary '{"comment": "dropped"}' "$URL/rest/bug/2/comment?api_key=KEY-OF-BOB"
is "drop: no answer at all (curl exit 52)" "$?" "52"
is "  and the request was not done" "$(count_comments)" "$before"
admin fail '{"mode": "drop_after", "method": "POST"}' >/dev/null
curl -s -o /dev/null -X POST --data-binary '{"comment": "done, unanswered"}' "$URL/rest/bug/2/comment?api_key=KEY-OF-BOB"
is "drop_after: no answer either" "$?" "52"
is "  but the comment was added" "$(count_comments)" "$((before + 1))"
admin fail '{"mode": "reset"}' >/dev/null
curl -s -o /dev/null "$URL/rest/bug/1"
is "reset: the connection is reset (curl exit 56)" "$?" "56"
admin fail '{"mode": "slow", "delay": 1.5, "path_prefix": "/rest/time"}' >/dev/null
curl -s -o /dev/null -m 0.5 "$URL/rest/time"
is "slow: a client with a 0.5 s timeout gives up (curl exit 28)" "$?" "28"
sleep 1.2     # the slow answer is logged once it is sent
is "the failures are in the log" \
	"$(curl -s "$URL/__admin/log" | py json /dev/stdin '[e["injected"] for e in d["requests"] if e["injected"]]')" \
	'["status", "status", "status", "status", "status", "status", "truncate", "invalid_json", "drop", "drop_after", "reset", "slow"]'
is "an unknown mode is refused" "$(fetch -X POST --data-binary '{"mode": "explode"}' "$URL/__admin/fail")" "400"

# --- the mod_perl quirk ------------------------------------------------------------------
admin quirks '{"reset_every": 2}' >/dev/null
out=$("$PYTHON" - "${URL#http://127.0.0.1:}" <<'EOF'
import http.client, sys
conn = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
for i in range(3):
    try:
        conn.request("GET", "/rest/version")
        answer = conn.getresponse()
        answer.read()
        print(answer.status, end=" ")
    except (ConnectionResetError, http.client.RemoteDisconnected) as e:
        print(type(e).__name__, end=" ")
EOF
)
is "reset_every 2: the third request on a kept-alive connection is reset" "$out" "200 200 ConnectionResetError "
curl -s -o /dev/null -o /dev/null -o /dev/null "$URL/rest/version" "$URL/rest/version" "$URL/rest/version"
is "  libcurl retries that on a fresh connection" "$?" "0"
admin quirks '{"reset_every": 0}' >/dev/null

# --- admin API -------------------------------------------------------------------------
is "POST /__admin/clock advance" "$(admin clock '{"advance": 3600}' | py json /dev/stdin 'd["now"]')" "2026-12-03T10:12:00Z"
is "  /rest/time follows" "$(fetch "$URL/rest/time" >/dev/null; jq_ 'd["db_time"]')" "2026-12-03T10:12:00Z"
out=$(admin bug '{"summary": "added by the test", "product": "Drivers", "component": "USB", "creator": "erin.triage@example.com", "description": "first words"}')
added=$(echo "$out" | py json /dev/stdin 'd["id"]')
is "POST /__admin/bug adds a bug at the server clock" "$(echo "$out" | py json /dev/stdin 'd["last_change_time"]')" "2026-12-03T10:12:00Z"
is "  a sync search finds it" \
	"$(fetch "$URL/rest/bug?last_change_time=2026-12-03T10:12:00Z&include_fields=id" >/dev/null; jq_ '[b["id"] for b in d["bugs"]]')" "[$added]"
is "  with its description as comment 0" \
	"$(fetch "$URL/rest/bug/$added/comment" >/dev/null; jq_ '[(c["count"], c["text"]) for c in d["bugs"][str('"$added"')]["comments"]]')" '[[0, "first words"]]'
admin clock '{"advance": 5}' >/dev/null
is "POST /__admin/comment bumps the bug" \
	"$(admin comment "{\"bug_id\": $added, \"text\": \"later\", \"creator\": \"dave.user@example.com\"}" | py json /dev/stdin 'd["last_change_time"]')" "2026-12-03T10:12:05Z"
out=$(admin attachment "{\"bug_id\": $added, \"file_name\": \"x.txt\", \"summary\": \"log\", \"text\": \"hello\\n\", \"comment\": \"see\"}")
att=$(echo "$out" | py json /dev/stdin 'd["id"]')
is "POST /__admin/attachment serves the bytes" "$(curl -s "$URL/attachment.cgi?id=$att")" "hello"
is "  with Bugzilla's comment" \
	"$(fetch "$URL/rest/bug/$added/comment" >/dev/null; jq_ 'd["bugs"][str('"$added"')]["comments"][-1]["text"]')" \
	"Created attachment $att
log

see"
is "POST /__admin/bug merge changes one field" \
	"$(admin bug "{\"id\": $added, \"merge\": true, \"status\": \"IN_PROGRESS\"}" >/dev/null; fetch "$URL/rest/bug/$added?include_fields=status,summary" >/dev/null; jq_ '[d["bugs"][0]["status"], d["bugs"][0]["summary"]]')" \
	'["IN_PROGRESS", "added by the test"]'
is "a bad admin body is 400" "$(fetch -X POST --data-binary '{"bug_id": 999}' "$URL/__admin/comment")" "400"
curl -s "$URL/__admin/state" >"$WORK/dump.json"
fetch "$URL/rest/bug?$ADMIN&include_fields=_all&exclude_fields=update_token" >/dev/null
cp "$WORK/body" "$WORK/before.json"
is "GET /__admin/state, POSTed back, loads" "$(curl -s -X POST --data-binary @"$WORK/dump.json" "$URL/__admin/state" | py json /dev/stdin 'd["bugs"]')" "12"
fetch "$URL/rest/bug?$ADMIN&include_fields=_all&exclude_fields=update_token" >/dev/null
check "  to the same bugs" cmp "$WORK/before.json" "$WORK/body"
is "POST /__admin/state replaces everything" \
	"$(admin state '{"bugs": [{"id": 7, "summary": "alone", "product": "P", "component": "C"}]}' | py json /dev/stdin 'd["bugs"]')" "1"
is "  only that bug is left" "$(fetch "$URL/rest/bug" >/dev/null; jq_ '[b["id"] for b in d["bugs"]]')" "[7]"

# --- stopping --------------------------------------------------------------------------
"$PYTHON" -c 'import socket, sys, time; s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); time.sleep(30)' \
	"${URL#http://127.0.0.1:}" &
idle=$!
sleep 0.3
stop_fake "$SERVER"
is "SIGTERM stops it with exit 0, an idle connection open" "$?" "0"
kill "$idle" 2>/dev/null
wait "$idle" 2>/dev/null
check "  removing its port file" test ! -e "$WORK/fake.port"
check "  and its pid file" test ! -e "$WORK/fake.pid"

# --- tests/lib/fakebz.h ---------------------------------------------------------------
CC_FOR_TEST=${CC:-cc}
if command -v "$CC_FOR_TEST" >/dev/null 2>&1; then
	cat >"$WORK/fakebz-test.c" <<'EOF'
#include "fakebz.h"

int main(int argc, char **argv)
{
	struct fakebz fb;
	char *body = NULL;
	long before, after;
	int status;

	(void)argc;
	if (fakebz_start(argv[1], argv[2], &fb) != 0)
		return 1;
	printf("port %s\n", fb.port > 0 && strncmp(fb.url, "http://127.0.0.1:", 17) == 0 ? "ok" : "bad");
	before = fakebz_request_count(&fb, "/rest/bug");
	status = fakebz_http(&fb, "GET", "/rest/bug/2", NULL, &body);
	printf("get %d %s\n", status, body && strstr(body, "\"usb-hub\"") ? "usb-hub" : "?");
	free(body);
	after = fakebz_request_count(&fb, "/rest/bug");
	printf("count %ld\n", after - before);
	printf("admin %d\n", fakebz_admin(&fb, "/__admin/clock", "{\"advance\": 1}"));
	printf("admin-bad %d\n", fakebz_admin(&fb, "/__admin/nothing", "{}"));
	printf("stop %d\n", fakebz_stop(&fb));
	return 0;
}
EOF
	if $CC_FOR_TEST -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
		-Wmissing-prototypes -Wwrite-strings -Wvla -Werror -I"$top_srcdir/tests/lib" \
		-o "$WORK/fakebz-test" "$WORK/fakebz-test.c" 2>"$WORK/cc.out"; then
		ok "fakebz.h compiles with the project's warnings as errors"
		mkdir -p "$WORK/cwork"
		out=$("$WORK/fakebz-test" "$WORK/state.json" "$WORK/cwork" 2>"$WORK/cwork.err")
		is "  fakebz_start/http/request_count/admin/stop work" "$out" "port ok
get 200 usb-hub
count 1
admin 0
admin-bad -1
stop 0"
		check "  keeping the request log in the work folder" test -s "$WORK/cwork/fakebz-log.jsonl"
	else
		not_ok "fakebz.h compiles with the project's warnings as errors"
		sed 's/^/#   /' "$WORK/cc.out" | head -20
	fi
else
	ok "# SKIP no C compiler for the fakebz.h check"
fi

done_testing
