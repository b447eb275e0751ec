#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bugbridge import: from the fake Bugzilla (REST, with and without an API
# key) and from the XML exports of $BUGBRIDGE_SHARED/corpus/bugzilla:
# counts, attachment hashes, private comments, history, flags, custom
# fields, progress lines, the summary, idempotence, a changed instance, and
# interrupted imports (BUGBRIDGE_CRASH_AT=import.batch:N) that resume to
# the same result.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"

command -v sqlite3 >/dev/null || skip_all "no sqlite3 program"
BATCH=4

# --- a Bugzilla with everything an import must carry -------------------------
python3 - "$WORK" <<'EOF'
import base64, hashlib, json, random, sys
work = sys.argv[1]
r = random.Random(7)
binary = r.randbytes(300000)
text = ("[  12.345678] r8169 0000:03:00.0 eth0: link up\n" * 200).encode()
users = [{"login": "admin@example.com", "real_name": "Admin", "api_key": "importkey0123456789",
          "insider": True, "groups": ["admin"]},
         {"login": "alice@example.com", "real_name": "Alice Reporter"},
         {"login": "bob@example.com", "real_name": "Bob Netdev"},
         {"login": "carol@example.com", "real_name": "Carol QA"}]
bugs, expect_att = [], {}
att_id = 100
for i in range(1, 31):
    comments = [{"creator": "alice@example.com", "creation_time": "2026-11-%02dT10:00:00Z" % (i % 28 + 1),
                 "text": "Description of bug %d" % i}]
    for k in range(1, 1 + i % 4):
        comments.append({"creator": "bob@example.com",
                         "creation_time": "2026-11-%02dT11:%02d:00Z" % (i % 28 + 1, k),
                         "text": "comment %d of bug %d" % (k, i),
                         "is_private": (i % 5 == 0 and k == 1)})
    bug = {"id": i, "summary": "bug %d: NETDEV WATCHDOG after resume" % i,
           "product": "Drivers", "component": "Network", "status": "CONFIRMED",
           "creator": "alice@example.com", "assigned_to": "bob@example.com",
           "cc": ["bob@example.com"] if i % 2 else [],
           "keywords": ["regression"] if i % 3 == 0 else [],
           "cf_regression": "Yes" if i % 3 == 0 else "No",
           "cf_subsystem": "net/r8169",
           "creation_time": "2026-11-%02dT10:00:00Z" % (i % 28 + 1),
           "comments": comments, "attachments": []}
    if i == 6:
        bug["flags"] = [{"name": "needinfo", "status": "?", "setter": "bob@example.com",
                         "requestee": "alice@example.com", "id": 1, "type_id": 1}]
    if i == 7:
        bug["groups"] = ["security"]
        bug["summary"] = "bug 7: EMBARGOED-HOLE in the ring buffer"
        bug["blocks"] = [25]
    # the structure a migration keeps (the fake links blocks/depends_on
    # both ways): 25 tracks 1, 3 and the restricted 7; 3 blocks two bugs
    if i == 1:
        bug.update({"qa_contact": "carol@example.com", "target_milestone": "6.14",
                    "op_sys": "Windows", "platform": "PC", "alias": ["r8169-resume"]})
    if i == 2:
        bug["alias"] = ["first-alias", "second-alias"]
    if i == 3:
        bug["blocks"] = [25, 26]
    if i == 25:
        bug["depends_on"] = [1]
        bug["alias"] = ["tracker-25"]
    if i % 4 == 1:
        bug["history"] = [{"when": "2026-11-%02dT12:00:00Z" % (i % 28 + 1), "who": "bob@example.com",
                           "changes": [{"field_name": "status", "removed": "NEW", "added": "CONFIRMED"},
                                       {"field_name": "cc", "removed": "", "added": "bob@example.com"}]}]
    if i in (2, 3, 11, 12):
        att_id += 1
        data = binary if i in (3, 12) else text
        priv = (i == 12)
        bug["attachments"].append({"id": att_id, "file_name": "dump-%d.bin" % i,
                                   "summary": "dump", "content_type": "application/octet-stream",
                                   "data": base64.b64encode(data).decode(),
                                   "creator": "alice@example.com", "is_private": priv,
                                   "creation_time": "2026-11-%02dT10:30:00Z" % (i % 28 + 1)})
        expect_att[att_id] = (hashlib.sha256(data).hexdigest(), priv)
    bugs.append(bug)
state = {"clock": {"now": "2026-12-03T09:00:00Z"}, "users": users,
         "groups": [{"name": "security", "description": "Security"}],
         "params": {"insidergroup": "insiders"},
         "fields": {"cf_regression": {"description": "Regression", "values": ["---", "No", "Yes"]}},
         "bugs": bugs}
json.dump(state, open(work + "/state.json", "w"))
with open(work + "/expect-att", "w") as f:
    for k, (h, p) in sorted(expect_att.items()):
        f.write("%d|%s|%d\n" % (k, h, p))
n_comments = sum(len(b["comments"]) for b in bugs)
n_private = sum(1 for b in bugs for c in b["comments"] if c.get("is_private"))
n_hist = sum(len(c["changes"]) for b in bugs for c in b.get("history", []))
open(work + "/expect-counts", "w").write("%d %d %d %d\n" % (len(bugs), n_comments, n_private, n_hist))
EOF
read -r n_bugs n_comments n_private n_hist <"$WORK/expect-counts"
fakebz_start "$WORK/state.json"
# Bugzilla 5.2 (as the fake) takes the key only as a parameter
printf '[bugzilla]\napi_key_in = param\n' | write_config
# mkconf DIR: a config with its data in DIR
mkconf() {
	mkdir -p "$1"
	printf '[core]\ndata_dir = %s\nlog_level = warn\n[bugzilla]\napi_key_in = param\n' "$1" >"$1.conf"
	chmod 600 "$1.conf"
}
export BUGBRIDGE_API_KEY=importkey0123456789
db() { sqlite3 "$WORK/data/bugbridge.db" "$@"; }
admin() { curl -sf -X POST -H 'Content-Type: application/json' --data "$2" "$bz/__admin/$1" >/dev/null; }
requests() { curl -sf "$bz/__admin/log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'; }
# everything an import wrote, without the times of the import itself
dump() {
	local d=$1
	sqlite3 "$d/bugbridge.db" \
		"SELECT id, source, summary, product, component, status, resolution, severity,
		        priority, version, reporter, reporter_name, assigned_to, url, dupe_of,
		        creation_time, last_change_time, keywords, cc, groups, flags, fields,
		        complete, alias, qa_contact, target_milestone, op_sys, platform,
		        depends_on, blocks FROM imp_bug ORDER BY id;
		 SELECT * FROM imp_comment ORDER BY id;
		 SELECT * FROM imp_attachment ORDER BY id;
		 SELECT * FROM imp_history ORDER BY bug_id, seq;
		 SELECT source, bug_id, what, ref, reason FROM imp_skip ORDER BY source, bug_id, what, ref;"
	(cd "$d/blobs" 2>/dev/null && find sha256 -type f | sort)
}

# --- REST with an insider's key -----------------------------------------------
curl -sf -X POST "$bz/__admin/reset_log" >/dev/null
bb import --from "$bz" --batch $BATCH >"$WORK/out1" 2>"$WORK/err1"
is "REST import succeeds" "$?" 0
is "every bug" "$(db 'SELECT count(*) FROM imp_bug')" "$n_bugs"
is "every comment" "$(db 'SELECT count(*) FROM imp_comment')" "$n_comments"
is "private comments kept, marked private" "$(db 'SELECT count(*) FROM imp_comment WHERE is_private')" "$n_private"
is "every history change" "$(db 'SELECT count(*) FROM imp_history')" "$n_hist"
is "history in order" "$(db "SELECT field || ':' || removed || '>' || added FROM imp_history WHERE bug_id = 5 ORDER BY seq" | tr '\n' ' ')" \
	"status:NEW>CONFIRMED cc:>bob@example.com "
is "every public attachment stored" "$(db "SELECT count(*) FROM imp_attachment WHERE state = 'stored'")" "$(grep -c '|0$' "$WORK/expect-att")"
# the private one's bytes are those of bug 3's public one: served for bug 3's sake
is "the private one: its hash only" "$(db "SELECT count(*) FROM imp_attachment WHERE state = 'hash-only' AND is_private")" "$(grep -c '|1$' "$WORK/expect-att")"
bad=0
while IFS='|' read -r id hash priv; do
	got=$(db "SELECT blob_hash || '|' || is_private || '|' || size FROM imp_attachment WHERE id = $id")
	file=$(ls "$WORK/data/blobs/sha256/${hash:0:2}/"* 2>/dev/null | grep -c "${hash:2}")
	[ "${got%|*}" = "$hash|$priv" ] && [ "$file" = 1 ] &&
		[ "$(sha256_of "$WORK/data/blobs/sha256/${hash:0:2}/${hash:2}")" = "$hash" ] || { bad=1; diag "attachment $id: $got"; }
done <"$WORK/expect-att"
is "every attachment's hash matches, private one marked" "$bad" 0
like "flags" "$(db 'SELECT flags FROM imp_bug WHERE id = 6')" '"name":"needinfo","status":"\?","setter":"bob@example.com","requestee":"alice@example.com"'
like "custom fields" "$(db 'SELECT fields FROM imp_bug WHERE id = 3')" '"cf_regression":"Yes".*"cf_subsystem":"net/r8169"|"cf_subsystem":"net/r8169".*"cf_regression":"Yes"'
is "keywords" "$(db 'SELECT keywords FROM imp_bug WHERE id = 3')" '["regression"]'
is "cc list" "$(db 'SELECT cc FROM imp_bug WHERE id = 1')" '["bob@example.com"]'
is "restricted bug with its group" "$(db 'SELECT groups FROM imp_bug WHERE id = 7')" '["security"]'
is "source recorded" "$(db 'SELECT DISTINCT source FROM imp_bug')" "$bz"
like "summary: counts" "$(cat "$WORK/out1")" "bugs: $n_bugs read, $n_bugs written, 0 unchanged"
like "summary: comments" "$(cat "$WORK/out1")" "comments: $n_comments \\($n_private private\\)"
like "summary: skipped" "$(cat "$WORK/out1")" "skipped: 0"
like "progress lines when not a terminal" "$(cat "$WORK/err1")" '^bugbridge: import: [0-9]+/[0-9]+ bug ids \(100%\)'
unlike "no terminal control codes in them" "$(cat "$WORK/err1")" $'\r|\033'
batched=$(requests)
diag "first import: $batched requests"
[ "$batched" -lt 60 ] && ok "requests are batched ($batched)" || not_ok "requests are batched ($batched)"
dump "$WORK/data" >"$WORK/dump.ref"

# --- again: nothing changes ---------------------------------------------------
before=$(db 'SELECT group_concat(imported) FROM imp_bug')
sleep 1
curl -sf -X POST "$bz/__admin/reset_log" >/dev/null
bb import --from "$bz" --batch $BATCH >"$WORK/out2" 2>"$WORK/err2"
is "second import succeeds" "$?" 0
like "second import writes nothing" "$(cat "$WORK/out2")" "0 written"
is "imp_bug.imported unchanged" "$(db 'SELECT group_concat(imported) FROM imp_bug')" "$before"
dump "$WORK/data" >"$WORK/dump.2"
check "tables and blobs unchanged" cmp "$WORK/dump.ref" "$WORK/dump.2"
n=$(requests)
[ "$n" -le 5 ] && ok "second import: few requests ($n)" || not_ok "second import: few requests ($n)"

# --- the instance changes: only the changes are picked up ----------------------
admin clock '{"advance": 60}'
admin comment '{"bug_id": 9, "text": "a new comment", "creator": "bob@example.com"}'
admin comment '{"bug_id": 25, "text": "an insider note", "creator": "bob@example.com", "is_private": true}'
admin bug '{"id": 14, "merge": true, "summary": "bug 14: renamed", "flags": [{"name": "review", "status": "+", "setter": "bob@example.com"}]}'
curl -sf -X POST "$bz/__admin/reset_log" >/dev/null
sleep 1
bb import --from "$bz" --batch $BATCH >"$WORK/out3" 2>"$WORK/err3"
is "import after changes succeeds" "$?" 0
like "only the 3 changed bugs written" "$(cat "$WORK/out3")" "bugs: 3 read, 3 written, 0 unchanged"
is "the new comments are in" "$(db 'SELECT count(*) FROM imp_comment')" "$((n_comments + 2))"
is "the new private one stays private" "$(db "SELECT is_private FROM imp_comment WHERE text = 'an insider note'")" 1
is "the new summary" "$(db 'SELECT summary FROM imp_bug WHERE id = 14')" "bug 14: renamed"
like "the new flag" "$(db 'SELECT flags FROM imp_bug WHERE id = 14')" '"name":"review","status":"\+"'
is "other bugs untouched" "$(db "SELECT count(*) FROM imp_bug WHERE imported IN ($before)")" "$((n_bugs - 3))"
n=$(requests)
[ "$n" -le 10 ] && ok "incremental import: few requests ($n)" || not_ok "incremental import: few requests ($n)"

# --- anonymous: public data only -------------------------------------------------
mkconf "$WORK/anon"
BUGBRIDGE_API_KEY= bb --config "$WORK/anon.conf" import --from "$bz" >"$WORK/out4" 2>&1
is "anonymous import succeeds" "$?" 0
adb() { sqlite3 "$WORK/anon/bugbridge.db" "$@"; }
is "anonymous: no private comment" "$(adb 'SELECT count(*) FROM imp_comment WHERE is_private')" 0
is "anonymous: no restricted bug" "$(adb 'SELECT count(*) FROM imp_bug WHERE id = 7')" 0
is "anonymous: no private attachment" "$(adb 'SELECT count(*) FROM imp_attachment WHERE is_private')" 0

# --- the structure: dependencies, blocks, alias, QA contact, milestone, OS ----------
is "REST: depends_on" "$(db 'SELECT depends_on FROM imp_bug WHERE id = 25')" '[1,3,7]'
is "REST: a bug blocking two others" "$(db 'SELECT blocks FROM imp_bug WHERE id = 3')" '[25,26]'
is "REST: empty depends_on" "$(db 'SELECT depends_on FROM imp_bug WHERE id = 3')" '[]'
is "REST: two aliases" "$(db 'SELECT alias FROM imp_bug WHERE id = 2')" '["first-alias","second-alias"]'
is "REST: QA contact, milestone, OS, platform" \
	"$(db "SELECT alias || '|' || qa_contact || '|' || target_milestone || '|' || op_sys || '|' || platform FROM imp_bug WHERE id = 1")" \
	'["r8169-resume"]|carol@example.com|6.14|Windows|PC'
is "REST: defaults of the rest" "$(db "SELECT DISTINCT target_milestone || '|' || op_sys || '|' || platform FROM imp_bug WHERE id > 1")" '---|Linux|All'
# the same instance as an XML export (show_bug.cgi, anonymous: logins
# without @domain, the restricted bug 7 not permitted)
curl -sf "$bz/show_bug.cgi?ctype=xml&id=$(seq -s, 1 $n_bugs)" >"$WORK/instance.xml"
mkconf "$WORK/sx"
bb --config "$WORK/sx.conf" import --from-xml "$WORK/instance.xml" >"$WORK/sxout" 2>&1
is "XML export of the instance imported" "$?" 0
sdb() { sqlite3 "$WORK/sx/bugbridge.db" "$@"; }
is "XML: depends_on, 7 named though not permitted" "$(sdb 'SELECT depends_on FROM imp_bug WHERE id = 25')" '[1,3,7]'
is "XML: blocks two" "$(sdb 'SELECT blocks FROM imp_bug WHERE id = 3')" '[25,26]'
is "XML: two aliases" "$(sdb 'SELECT alias FROM imp_bug WHERE id = 2')" '["first-alias","second-alias"]'
is "XML: the restricted bug is not in it" "$(sdb 'SELECT count(*) FROM imp_bug WHERE id = 7')" 0
# export json of both: the structure equal (addresses hidden: the QA contact
# by name of login on both paths), no trace of the restricted bug
structure() {
	python3 -c '
import json, sys
doc = json.load(sys.stdin)
keys = ("alias", "depends_on", "blocks", "qa_contact", "target_milestone", "op_sys", "platform")
for b in doc["bugs"]:
    print(b["id"], json.dumps({k: b[k] for k in keys}, sort_keys=True))'
}
bb export json >"$WORK/rest.json" 2>"$WORK/rest.json.err"
is "export json after the REST import" "$?" 0
bb --config "$WORK/sx.conf" export json >"$WORK/xml.json" 2>"$WORK/xml.json.err"
is "export json after the XML import" "$?" 0
structure <"$WORK/rest.json" >"$WORK/rest.structure"
structure <"$WORK/xml.json" >"$WORK/xml.structure"
check "export json: the structure is the same from REST and XML" cmp "$WORK/rest.structure" "$WORK/xml.structure"
like "export json: the dependency graph" "$(grep '^25 ' "$WORK/rest.structure")" '"blocks": \[\], "depends_on": \[1, 3, 7\]'
like "export json: the rest of bug 1" "$(grep '^1 ' "$WORK/rest.structure")" '"alias": \["r8169-resume"\], "blocks": \[25\], "depends_on": \[\], "op_sys": "Windows", "platform": "PC", "qa_contact": "carol", "target_milestone": "6.14"'
unlike "export json: the restricted bug's summary does not leak" "$(cat "$WORK/rest.json" "$WORK/xml.json")" 'EMBARGOED'
unlike "export json: no QA contact's address" "$(cat "$WORK/rest.json")" 'carol@'
like "export json --include-private: the QA contact's address" \
	"$(bb export json --include-private 2>/dev/null | structure | grep '^1 ')" '"qa_contact": "carol@example.com"'
# bugs imported before schema 9 (alias '' marks them) are read again
sdb "UPDATE imp_bug SET alias = '', depends_on = '[]', blocks = '[]'"
bb --config "$WORK/sx.conf" import --from-xml "$WORK/instance.xml" >"$WORK/sxout2" 2>&1
like "XML: bugs of an older import read again" "$(cat "$WORK/sxout2")" " 0 unchanged"
is "XML: their structure is back" "$(sdb 'SELECT depends_on FROM imp_bug WHERE id = 25')" '[1,3,7]'

# --- interrupted after each batch, then resumed: the same result -------------------
dump "$WORK/data" >"$WORK/dump.full"
crash_ok=0 crash_runs=0
for n in 1 2 3 5 8; do
	d="$WORK/crash$n"
	mkconf "$d"
	BUGBRIDGE_CRASH_AT=import.batch:$n bb --config "$d.conf" import --from "$bz" --batch $BATCH >/dev/null 2>&1
	rc=$?
	bb --config "$d.conf" import --from "$bz" --batch $BATCH >"$d.out" 2>&1
	rc2=$?
	crash_runs=$((crash_runs + 1))
	if [ "$rc" -ne 0 ] && [ "$rc2" -eq 0 ] && grep -q "(resumed)" "$d.out" &&
	   dump "$d" | cmp -s - "$WORK/dump.full"; then
		crash_ok=$((crash_ok + 1))
	else
		diag "crash at batch $n: exit $rc then $rc2"; dump "$d" | diff - "$WORK/dump.full" | head -5
	fi
done
is "interrupted REST imports resume to the same tables and blobs ($crash_runs points)" "$crash_ok" "$crash_runs"

# --- XML exports --------------------------------------------------------------------
corpus="${BUGBRIDGE_SHARED:-$top_srcdir/../shared}/corpus/bugzilla"
if [ ! -d "$corpus" ]; then
	diag "SKIP: no Bugzilla corpus at $corpus (set BUGBRIDGE_SHARED)"
	done_testing
	exit
fi
cp -r "$corpus" "$WORK/corpus"
# what the exports hold: bug ids, not-found ids, and attachment hashes
python3 - "$WORK/corpus" >"$WORK/xml-expect" <<'EOF'
import base64, hashlib, os, re, sys
root = sys.argv[1]
ids, missing, atts = set(), set(), {}
for d, _, files in os.walk(root):
    for f in files:
        if not f.endswith(".xml"):
            continue
        raw = open(os.path.join(d, f), "rb").read()
        if b"<bugzilla" not in raw or b"not_valid" in f.encode():
            continue
        for m in re.finditer(rb"<bug( [^>]*)?>(.*?)</bug>", raw, re.S):
            attrs, body = m.group(1) or b"", m.group(2)
            bid = re.search(rb"<bug_id>(\d+)</bug_id>", body)
            if b"error=" in attrs:
                missing.add(int(bid.group(1)) if bid else 0)
                continue
            ids.add(int(bid.group(1)))
            for a in re.finditer(rb"<attachment[^>]*>(.*?)</attachment>", body, re.S):
                aid = re.search(rb"<attachid>(\d+)</attachid>", a.group(1))
                data = re.search(rb"<data[^>]*>(.*?)</data>", a.group(1), re.S)
                if aid and data:
                    atts[int(aid.group(1))] = hashlib.sha256(base64.b64decode(re.sub(rb"\s", b"", data.group(1)))).hexdigest()
print(len(ids), " ".join(map(str, sorted(missing))))
for k, v in sorted(atts.items()):
    print("%d %s" % (k, v))
EOF
read -r xml_bugs xml_missing <"$WORK/xml-expect"
mkconf "$WORK/x"
xdb() { sqlite3 "$WORK/x/bugbridge.db" "$@"; }
bb --config "$WORK/x.conf" import --from-xml "$WORK/corpus" --batch 3 >"$WORK/xout1" 2>"$WORK/xerr1"
is "XML import of the corpus succeeds" "$?" 0
got=$(xdb 'SELECT count(*) FROM imp_bug')
[ "$got" -ge "$xml_bugs" ] && ok "XML: every bug of the well-formed exports ($got >= $xml_bugs)" || not_ok "XML: every bug ($got < $xml_bugs)"
is "XML: NUL bytes repaired (perceval bug 25299, 11 comments)" "$(xdb 'SELECT count(*) FROM imp_comment WHERE bug_id = 25299')" 11
like "XML: NUL became U+FFFD" "$(xdb "SELECT count(*) FROM imp_comment WHERE bug_id = 25299 AND text LIKE '%calculate' || char(65533) || ' would%'")" '^1$'
is "XML: undeclared Latin-1 read (cyrus 1721)" "$(xdb "SELECT count(*) FROM imp_comment WHERE bug_id = 1721 AND author_name = 'J' || char(246) || 'rn Dreyer'")" "$(xdb "SELECT count(*) FROM imp_comment WHERE bug_id = 1721 AND author_name LIKE 'J%rn Dreyer'")"
like "XML: bug flags (cyrus 3288)" "$(xdb 'SELECT flags FROM imp_bug WHERE id = 3288')" '"name":"releng-backport","status":"\?".*"name":"releng-backport","status":"\+"'
like "XML: custom fields (bugzilla2gitlab 103)" "$(xdb 'SELECT fields FROM imp_bug WHERE id = 103')" '"cf_drop_down":"---"'
for m in $xml_missing; do
	is "XML: not-found bug $m recorded as skipped" "$(xdb "SELECT count(*) FROM imp_skip WHERE what = 'bug' AND ref = '$m'")" 1
done
like "XML: the summary names the not-found bug" "$(cat "$WORK/xout1")" "skipped bug 100: .*NotFound"
like "XML: the broken file is named with its reason" "$(cat "$WORK/xout1")" "skipped file perceval/bugzilla_bugs_details_not_valid.xml: .*line"
bad=0 natt=0
while read -r id hash; do
	natt=$((natt + 1))
	got=$(xdb "SELECT blob_hash FROM imp_attachment WHERE id = $id")
	[ "$got" = "$hash" ] && [ -f "$WORK/x/blobs/sha256/${hash:0:2}/${hash:2}" ] || { bad=1; diag "attachment $id: $got, want $hash"; }
done < <(tail -n +2 "$WORK/xml-expect")
is "XML: every attachment with data stored under its hash ($natt)" "$bad" 0
like "XML: progress lines" "$(cat "$WORK/xerr1")" 'bugbridge: import: [0-9]+/[0-9]+ files'
bb --config "$WORK/x.conf" import --from-xml "$WORK/corpus" --batch 3 >"$WORK/xout2" 2>&1
like "XML: second import writes nothing" "$(cat "$WORK/xout2")" " 0 written"
dump "$WORK/x" >"$WORK/xdump.ref"
# a single file
mkconf "$WORK/one"
bb --config "$WORK/one.conf" import --from-xml "$WORK/corpus/perceval/bugzilla_bugs_details.xml" >"$WORK/oneout" 2>&1
is "XML: one file with several bugs" "$(sqlite3 "$WORK/one/bugbridge.db" 'SELECT count(*) FROM imp_bug')" 5
# interrupted XML imports
crash_ok=0 crash_runs=0
for n in 1 4 9 15; do
	d="$WORK/xcrash$n"
	mkconf "$d"
	BUGBRIDGE_CRASH_AT=import.batch:$n bb --config "$d.conf" import --from-xml "$WORK/corpus" --batch 3 >/dev/null 2>&1
	rc=$?
	bb --config "$d.conf" import --from-xml "$WORK/corpus" --batch 3 >"$d.out" 2>&1
	rc2=$?
	crash_runs=$((crash_runs + 1))
	if [ "$rc" -ne 0 ] && [ "$rc2" -eq 0 ] && dump "$d" | cmp -s - "$WORK/xdump.ref"; then
		crash_ok=$((crash_ok + 1))
	else
		diag "XML crash at batch $n: exit $rc then $rc2"; dump "$d" | diff - "$WORK/xdump.ref" | head -5
	fi
done
is "interrupted XML imports resume to the same tables and blobs ($crash_runs points)" "$crash_ok" "$crash_runs"

# --- errors ----------------------------------------------------------------------------
check_exit "a missing path is an error" 66 bb import --from-xml "$WORK/nonexistent"
check_exit "both sources is a usage error" 64 bb import --from "$bz" --from-xml "$WORK/corpus"

done_testing
