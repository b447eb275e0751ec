#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A first run never floods a list.  A data folder that never synced starts
# from now (the server's clock): 60 open bugs last changed in 2015 are not
# mailed, what changes after is.  History is asked for ([bugzilla]
# first_sync = all or a date, sync --since) and counted first: above
# backfill_confirm, sync says how many bugs, comments and mails it would
# send, sends nothing and exits 78 until it is run with --yes; the daemon,
# which cannot answer, logs the count and exits 78 naming the command.
. "$top_srcdir/tests/lib/common.sh"

python3 - >state.json <<'EOF2'
import json
bugs = []
for i in range(60):
    t = "2015-03-%02dT10:00:00Z" % (1 + i % 28)
    bugs.append({"id": 1000 + i, "summary": "old bug %d" % i, "product": "Drivers",
                 "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
                 "creation_time": t, "last_change_time": t,
                 "comments": [{"creator": "ines@example.net", "creation_time": t,
                               "text": "It broke in 2015 (%d)." % i}]})
print(json.dumps({
    "clock": {"now": "2026-12-03T09:00:00Z"},
    "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123"},
              {"login": "ines@example.net", "real_name": "Ines Reporter"}],
    "products": [{"name": "Drivers", "components": ["Wireless"]}],
    "bugs": bugs}))
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
mails() { find "$1/mail" -type f 2>/dev/null | wc -l; }
# conf DIR LINES: a configuration with its data in DIR, LINES added to [bugzilla]
conf() {
	cat >"$1.conf" <<EOF2
[core]
data_dir = $WORK/$1
log_level = warn
[bugzilla]
url = $bz
api_key = bridgekey0123
products = Drivers
$2
[mail]
domain = bugbridge.test
from = Bugzilla bridge <bridge@bugbridge.test>
[routing]
default_lists = wireless@lists.test
EOF2
	chmod 600 "$1.conf"
}

# the default: start from now
conf fresh ""
check_exit "a first sync with the defaults" 0 bb --config fresh.conf sync
is "mails none of the 60 bugs of 2015" "$(mails fresh)" "0"
like "status shows the cursor at the server's time" "$(bb --config fresh.conf status 2>&1)" \
	"2026-12-03T09:00:00Z"
admin clock '{"advance": 60}'
admin comment '{"bug_id": 1007, "creator": "ines@example.net", "text": "Still broken in 6.18."}'
check_exit "the next sync" 0 bb --config fresh.conf sync
is "mails the bug that changed since (report and the new comment's backlog)" \
	"$(find fresh/mail -type f | xargs grep -l 'Bug 1007' | wc -l)" "$(mails fresh)"
like "and only it" "$(find fresh/mail -type f | xargs grep -h '^Subject:' | sort -u)" "Bug 1007"

# history: first_sync = all, above backfill_confirm
conf history "first_sync = all"
check_exit "a first sync with first_sync = all and 60 bugs to mail: 78" 78 bb --config history.conf sync
like "  saying how many bugs, comments and mails" "$(cat "$WORK/check.out")" \
	"would mail the history of 6[01] bugs \([0-9]+ comments, [0-9]+ mails\), more than \[bugzilla\] backfill_confirm = 50"
like "  and the command that sends it" "$(cat "$WORK/check.out")" \
	"bugbridge --config history.conf sync --yes"
is "  nothing was mailed" "$(mails history)" "0"
is "  no bug is recorded as mirrored and the cursor is not set" "$(bb --config history.conf status --json 2>/dev/null | \
	python3 -c 'import json,sys; d = json.load(sys.stdin); print(d["bugs_mirrored"], d["bugzilla_cursor"]["value"])' 2>&1)" "0 None"
notify_start daemon
NOTIFY_SOCKET="$WORK/daemon.sock" bb --config history.conf daemon --interval 1s >daemon.out 2>daemon.err
is "the daemon cannot ask: it exits 78" "$?" "78"
like "  naming the command to run" "$(cat daemon.err)" "sync --yes"
is "  having mailed nothing" "$(mails history)" "0"
check_exit "sync --yes sends it" 0 bb --config history.conf sync --yes
is "  every bug's report" "$(find history/mail -type f | xargs grep -l '^Subject: \[Bug 10[0-9][0-9]\]' | wc -l)" "60"
check_exit "the next round is an ordinary one" 0 bb --config history.conf sync

# a date, below the limit: goes ahead, and says so in the log
conf dated "first_sync = 2015-03-27
backfill_confirm = 10"
check_exit "first_sync = 2015-03-27 (5 bugs, under the limit) mails without --yes" 0 \
	bb --config dated.conf -v sync
like "  logging the count" "$(cat "$WORK/check.out")" "event=sync.backfill bugs=5 .*confirmed=no"
is "  the bugs changed since that date" \
	"$(find dated/mail -type f | xargs grep -h '^Subject:' | sed 's/^Subject: \(Re: \)*\[Bug \([0-9]*\)\].*/\2/' | sort -u | tr '\n' ' ')" \
	"1007 1026 1027 1054 1055 "
# sync --since on a data folder that has synced is history too
check_exit "sync --since 2015-01-01 would mail the rest: 78" 78 bb --config dated.conf sync --since 2015-01-01
like "  saying so, with --since in the command" "$(cat "$WORK/check.out")" "sync --yes --since DATE"

conf bad "first_sync = yesterday"
check_exit "a first_sync that is no date is a configuration error (78)" 78 bb --config bad.conf config
like "  saying what it may be" "$(cat "$WORK/check.out")" "first_sync: \"yesterday\" is not now, all or a date"

done_testing
