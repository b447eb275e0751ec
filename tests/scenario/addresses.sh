#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# No login address in what bugbridge publishes unless [mail] show_addresses
# is on: the regression reports (HTML, regressions.json, the Atom feed,
# weekly.txt and its mail), `regressions list/show --json` and
# `export json` (without --include-private) name people, never their
# addresses; with show_addresses on, the addresses are back.
. "$top_srcdir/tests/lib/common.sh"

command -v sqlite3 >/dev/null || skip_all "no sqlite3 program"
cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "ines.secret@example.net", "real_name": "Ines Reporter"},
            {"login": "noname.login@example.com", "real_name": ""},
            {"login": "dev.hidden@example.org", "real_name": "Dev Eloper"}],
  "fields": {"cf_regression": {"description": "Regression", "values": ["---", "No", "Yes"],
                               "default": "---"}},
  "products": [{"name": "Drivers", "components": ["USB"]}],
  "bugs": [
    {"id": 401, "summary": "usb: xhci hangs on resume since 6.7", "product": "Drivers",
     "component": "USB", "status": "NEW", "creator": "ines.secret@example.net",
     "cf_regression": "Yes", "creation_time": "2026-12-03T08:00:00Z",
     "cc": ["dev.hidden@example.org"],
     "flags": [{"name": "needinfo", "status": "?", "setter": "dev.hidden@example.org",
                "requestee": "ines.secret@example.net", "id": 1, "type_id": 1}],
     "history": [{"when": "2026-12-03T08:30:00Z", "who": "dev.hidden@example.org",
                  "changes": [{"field_name": "cc", "removed": "", "added": "dev.hidden@example.org"}]}],
     "comments": [{"creator": "ines.secret@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Worked in 6.6."},
                  {"creator": "dev.hidden@example.org", "creation_time": "2026-12-03T08:20:00Z",
                   "text": "Bisecting."}]},
    {"id": 402, "summary": "usb: a regression filed by someone without a name", "product": "Drivers",
     "component": "USB", "status": "NEW", "creator": "noname.login@example.com",
     "cf_regression": "Yes", "creation_time": "2026-12-03T08:40:00Z",
     "comments": [{"creator": "noname.login@example.com", "creation_time": "2026-12-03T08:40:00Z",
                   "text": "Broken since 6.7."}]}
  ]
}
EOF2
fakebz_start state.json
LOGINS='ines\.secret@|dev\.hidden@|noname\.login@'
# clean WHAT FILE...: no login address in the files
clean() {
	what=$1
	shift
	if grep -EHn "$LOGINS" "$@" >"$WORK/leak" 2>/dev/null; then
		not_ok "$what: no login address"
		sed 's/^/#   /' "$WORK/leak" | head -5
	else
		ok "$what: no login address"
	fi
}

config() {
	write_config <<EOF2
$(fakebz_bridge_config --key-in --mail "show_addresses = $1" --maildir "$WORK/mail" \
	--lists list@lists.test)
[tracker]
report_lists = regressions@lists.test
EOF2
}
config false

check "sync mirrors the bugs and tracks the regressions" bb sync
is "two regressions from Bugzilla" "$(sqlite3 "$WORK/data/bugbridge.db" 'SELECT count(*) FROM reg_regression')" 2
like "the tracker keeps the reporter's address for itself" \
	"$(sqlite3 "$WORK/data/bugbridge.db" 'SELECT reporter FROM reg_regression WHERE bug_id = 401')" "ines.secret@example.net"

# a directive from the list that could not be acted on, naming someone
sqlite3 "$WORK/data/bugbridge.db" "INSERT INTO reg_unhandled (time, message_id, line, reason)
	VALUES (strftime('%s', 'now'), 'odd@lists.test', '#regzbot from: Dev <dev.hidden@example.org> twice', 'unknown verb')"
check "regressions report --send" bb regressions report --send
R=$WORK/data/reports
for f in index.html regressions.json changes.atom weekly.txt regression/1.html regression/2.html; do
	[ -f "$R/$f" ] || not_ok "the report has $f"
done
like "regressions.json names the reporter" "$(cat "$R/regressions.json")" '"reporter":"Ines Reporter"'
like "without a name, the login's local part" "$(cat "$R/regressions.json")" '"reporter":"noname.login"'
like "the directive not acted on is listed, without the address" "$(cat "$R/index.html" "$R/weekly.txt")" "#regzbot from: Dev &lt;dev.hidden&gt; twice|#regzbot from: Dev <dev.hidden> twice"
like "the HTML page names the reporter" "$(cat "$R/regression/1.html" "$R/regression/2.html")" "Ines Reporter"
clean "regressions.json" "$R/regressions.json"
clean "the HTML pages" "$R"/*.html "$R"/regression/*.html
clean "the Atom feed" "$R/changes.atom"
clean "weekly.txt" "$R/weekly.txt"
weekly=$(grep -l "regressions-report" "$WORK"/mail/new/* 2>/dev/null | head -1)
[ -n "$weekly" ] && ok "the weekly mail was sent" || not_ok "the weekly mail was sent"
clean "the weekly mail" ${weekly:-/dev/null}
clean "the mirrored mails" "$WORK"/mail/new/*

bb regressions list --json >list.json
bb regressions show 1 --json >show.json
bb regressions show 1 >show.txt
like "list --json names the reporter" "$(cat list.json)" '"reporter":"Ines Reporter"'
clean "regressions list --json" list.json
clean "regressions show --json" show.json
clean "regressions show" show.txt

check "import the bugs" bb import --from "$bz"
check "export json" sh -c "'$BUGBRIDGE' export json >all.json"
clean "export json" all.json
check "export json names people" python3 - all.json <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
b = [b for b in d["bugs"] if b["id"] == 401][0]
assert b["reporter"] == {"name": "Ines Reporter"}, b["reporter"]
# REST gives comment authors by login only: one name per person, the real
# name the bug gives that login elsewhere (dev.hidden is Dev Eloper in cc)
assert [c["author"]["name"] for c in b["comments"]] == ["Ines Reporter", "Dev Eloper"], b["comments"]
assert all("login" not in c["author"] for c in b["comments"])
assert b["history"][0]["who"] == "Dev Eloper", b["history"]
assert b["flags"][0]["setter"] == "Dev Eloper", b["flags"]
assert b["flags"][0]["requestee"] == "Ines Reporter", b["flags"]
assert "dev.hidden" not in json.dumps(b), "a login's local part where the name is known"
n = [b for b in d["bugs"] if b["id"] == 402][0]
assert n["reporter"] == {"name": "noname.login"}, n["reporter"]
EOF2
check "export json --include-private" sh -c "'$BUGBRIDGE' export json --include-private >private.json"
like "an admin's export keeps the logins" "$(cat private.json)" '"login": "ines.secret@example.net"'

# --- show_addresses on: the addresses are published ---------------------------------
config true
check "regressions report with show_addresses" bb regressions report
like "regressions.json shows the address" "$(cat "$R/regressions.json")" "Ines Reporter <ines.secret@example.net>"
check "export json with show_addresses" sh -c "'$BUGBRIDGE' export json >shown.json"
like "export json shows the logins" "$(cat shown.json)" '"login": "ines.secret@example.net"'

done_testing
