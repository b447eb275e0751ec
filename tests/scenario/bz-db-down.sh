#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bugzilla 5.2 with its database down answers an anonymous REST call with
# HTTP 200 and JSON error 100500 (JSON::RPC's internal error, its message
# DBI's, which may hold the database's password); a call with a key gets an
# empty body instead (service.sh).  For an anonymous bridge that is
# temporary too: sync exits 75, the daemon backs off and goes on, and the
# DBI message is shown nowhere.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"

cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "products": [{"name": "Drivers", "components": ["USB"]}],
  "bugs": [
    {"id": 101, "summary": "xhci: hub resets", "product": "Drivers", "component": "USB",
     "status": "NEW", "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "The hub resets every minute."}]}
  ]
}
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }

# no api_key: anonymous
write_config <<EOF2
log_file = $WORK/bb.log
[bugzilla]
url = $bz
products = Drivers
[mail]
domain = bugbridge.test
from = Bugzilla bridge <bridge@bugbridge.test>
[smtp]
maildir = $WORK/mail
[routing]
default_lists = linux-usb@vger.kernel.org
[sync]
retry_min = 1s
retry_max = 2s
EOF2

check "an anonymous first sync" bb sync

admin fail '{"count": 1, "mode": "db_down"}'
check_exit "sync exits 75 when Bugzilla's database is down (anonymous: 200, error 100500)" 75 bb sync
like "naming the error" "$(cat check.out)" "Bugzilla error 100500"
unlike "without the DBI message and its password" "$(cat check.out)" "DB-PASSWORD|DBI connect"
is "the server did answer 100500 (200, JSON) to an anonymous call" \
	"$(curl -sf "$bz/__admin/log" | python3 -c '
import json, sys
r = [e for e in json.load(sys.stdin)["requests"] if e["injected"] == "db_down"]
print(len(r), r[0]["status"], r[0]["api_key"])')" "1 200 False"
check "the next sync succeeds" bb sync

# the daemon: rounds fail while the database is down, then go on
admin fail '{"count": 2, "mode": "db_down", "path_prefix": "/rest/time"}'
sed -i 's/^log_level = warn$/log_level = debug/' "$BUGBRIDGE_CONFIG"
rounds=$(grep -c "event=sync.round" bb.log)
"$BUGBRIDGE" daemon --interval 1s >daemon.out 2>daemon.err &
dpid=$!
CLEANUP_PIDS="$CLEANUP_PIDS $dpid"
# wait_for PATTERN COUNT: until bb.log has COUNT lines matching (20 s at most)
wait_for() {
	for _ in $(seq 1 400); do
		[ "$(grep -c -- "$1" bb.log 2>/dev/null)" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}
check "two rounds fail while the database is down" wait_for "event=daemon.round_failed" 2
like "as temporary ones, retried later" "$(grep 'event=daemon.round_failed' bb.log | tail -1)" \
	"100500.*retry=retry-later"
check "once it is back a round succeeds" wait_for "event=sync.round" $((rounds + 1))
check "and the daemon is still running" kill -0 "$dpid"
unlike "the DBI message is in no log" "$(cat bb.log daemon.out daemon.err)" "DB-PASSWORD|DBI connect"
stop_server "$dpid"
is "SIGTERM stops it cleanly" "$?" "0"

done_testing
