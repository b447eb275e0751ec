#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Running as a service: the daemon and the server tell systemd when they are
# ready, what they are doing and when they stop (sd_notify, through a
# stand-in notification socket); SIGHUP reopens the log file (logrotate) and
# makes the daemon read its configuration again, keeping the old one when
# the new file is bad; an idle round writes nothing at the default level.
. "$top_srcdir/tests/lib/common.sh"

cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123"},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
    {"id": 101, "summary": "iwlwifi: firmware crash after resume", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Wi-Fi dies after every resume."}]}
  ]
}
EOF2
fakebz_start state.json

# nothing listens on the SMTP port: mail is queued and deferred, rounds go on
config_body() {
	cat <<EOF2
log_file = $WORK/bb.log
$(fakebz_bridge_config --key-in --smtp "$(free_port)" --lists linux-wireless@lists.lab)
[sync]
retry_min = 1s
retry_max = 2s
EOF2
}
# log_level = info: the default a service runs with
config_body >body.conf
write_config <body.conf
sed -i 's/^log_level = warn$/log_level = info/' "$BUGBRIDGE_CONFIG"

notify_start daemon
# as the unit runs it: its RuntimeDirectory= (where a reload's answer goes)
mkdir -p "$WORK/run-daemon"
RUNTIME_DIRECTORY="$WORK/run-daemon" NOTIFY_SOCKET="$WORK/daemon.sock" "$BUGBRIDGE" daemon --interval 1s \
	>daemon.out 2>daemon.err &
dpid=$!
CLEANUP_PIDS="$CLEANUP_PIDS $dpid"
check "the daemon tells systemd it is ready" wait_for "$notify_log" "READY=1"
check "and after each round what it did" wait_for "$notify_log" "STATUS=last round: 1 bugs changed, 1 mails queued" 1
check "three rounds run" wait_for "$notify_log" "STATUS=last round" 3

# Bugzilla's database goes down: 5.2 answers 200 with an empty body.  That
# is temporary: the daemon backs off and goes on, it does not exit.
fails=$(grep -c "STATUS=last round failed" "$notify_log")
curl -sf -X POST --data-binary '{"count": 3, "mode": "db_down"}' "$bz/__admin/fail" >/dev/null
check "a database outage fails a round" wait_for "$notify_log" "STATUS=last round failed" $((fails + 1))
like "and says why" "$(grep 'STATUS=last round failed' "$notify_log" | tail -1)" "empty answer"
rounds=$(grep -c "STATUS=last round:" "$notify_log")
check "once it is back, rounds succeed again" wait_for "$notify_log" "STATUS=last round:" $((rounds + 1))
check "and the daemon never stopped" kill -0 "$dpid"
is "at the default level only the round with news is logged; idle rounds write nothing" \
	"$(grep -c 'event=sync.round' bb.log)" "1"
unlike "nor an idle inbound or empty line" "$(cat bb.log)" "event=inbound.round"
is "the log file is 0640, whatever the umask" "$(stat -c %a bb.log)" "640"

# logrotate: the file is moved away, SIGHUP reopens it
check_exit "a second daemon on the same data folder is refused (75)" 75 bb daemon --interval 1s
like "naming the one that holds it" "$(cat check.out)" "in use by another bugbridge \(pid $dpid, bugbridge daemon\)"
check_exit "so is a sync" 75 bb sync
check "a dry run may still look" bb sync --dry-run

mv bb.log bb.log.1
kill -HUP "$dpid"
check "SIGHUP: a new log file is opened" wait_for bb.log "event=log.reopened"
check "the configuration is read again" wait_for bb.log "event=config.reloaded"
like "systemd hears RELOADING=1 then READY=1" "$(tr '\n' '~' <"$notify_log")" \
	"RELOADING=1[^~]*~READY=1"
is "the new file is 0640 too" "$(stat -c %a bb.log)" "640"

# a bad new file is logged and the old one kept: rounds go on
cp "$BUGBRIDGE_CONFIG" good.conf
printf '[bugzilla\nurl = \n' >>"$BUGBRIDGE_CONFIG"
rounds=$(grep -c "STATUS=last round" "$notify_log")
kill -HUP "$dpid"
check "a broken file is refused and logged" wait_for bb.log "event=config.reload_failed"
like "with what was wrong and what stays" "$(grep reload_failed bb.log)" "kept=\"the configuration in effect\""
check "the daemon goes on with the old one" wait_for "$notify_log" "STATUS=last round" $((rounds + 2))

# a new file that moves data_dir needs a restart: refused
sed "s|^data_dir = .*|data_dir = $WORK/elsewhere|" good.conf >"$BUGBRIDGE_CONFIG"
kill -HUP "$dpid"
check "moving data_dir is refused until a restart" wait_for bb.log "data_dir changed" 1
test ! -e "$WORK/elsewhere"
is "and no new data folder appears" "$?" "0"
cp good.conf "$BUGBRIDGE_CONFIG"

# systemctl reload: the unit's own ExecReload= line (its program and
# configuration made this test's, $MAINPID the daemon) waits for the answer
# and fails on a refused file (before, /bin/kill -HUP succeeded whatever
# became of the file)
exec_reload=$(sed -n 's/^ExecReload=//p' "$top_builddir/config/bugbridge-daemon.service")
like "the unit reloads through bugbridge reload" "$exec_reload" \
	'bugbridge --config .*/bugbridge/bugbridge\.conf reload \$MAINPID$'
like "  and gives both a RuntimeDirectory= for the answer" \
	"$(grep -h '^RuntimeDirectory=' "$top_builddir/config/bugbridge-daemon.service" \
		"$top_builddir/config/bugbridge-serve.service" | tr '\n' ' ')" \
	"^RuntimeDirectory=bugbridge-daemon RuntimeDirectory=bugbridge-serve $"
line=$(printf '%s\n' "$exec_reload" | sed -e "s|^[^ ]*bugbridge |$BUGBRIDGE |" \
	-e "s|--config [^ ]*|--config $BUGBRIDGE_CONFIG|" -e "s|\\\$MAINPID|$dpid|")
# as systemd runs it: with the unit's $RUNTIME_DIRECTORY, as the daemon has
run_exec_reload() { RUNTIME_DIRECTORY="$WORK/run-daemon" sh -c "$line"; }
check_exit "ExecReload with a good file: 0" 0 run_exec_reload
like "  saying so" "$(cat check.out)" "process $dpid reloaded its configuration"
printf '[bugzilla\nurl = \n' >>"$BUGBRIDGE_CONFIG"
check_exit "ExecReload with a broken file fails: 78 (systemctl reload fails)" 78 run_exec_reload
like "  with the reason" "$(cat check.out)" "refused the new configuration and keeps the one in effect: config .*bugbridge.conf"
check "systemd hears STATUS=reload refused" wait_for "$notify_log" "STATUS=reload refused: config "
cp good.conf "$BUGBRIDGE_CONFIG"
check_exit "and once the file is mended: 0" 0 run_exec_reload
check_exit "a process that is not there: 66" 66 bb reload 999999
printf '[bugzilla\nurl = \n' >>"$BUGBRIDGE_CONFIG"
check_exit "outside systemd (the answer in the data folder), a broken file: 78 at once" 78 \
	bb reload "$dpid"
like "  naming what is wrong with it" "$(cat check.out)" "will refuse the new configuration.*bugbridge.conf"
check "  and the daemon refused it too" wait_for "$notify_log" "STATUS=reload refused: config " 2
cp good.conf "$BUGBRIDGE_CONFIG"

kill -TERM "$dpid"
wait "$dpid"
is "SIGTERM still stops it cleanly" "$?" "0"
test ! -e "$WORK/run-daemon/reload-$dpid"
is "and removes its reload answer" "$?" "0"
like "systemd hears STOPPING=1" "$(cat "$notify_log")" "STOPPING=1"
is "nothing went to stderr but what belongs there" "$(grep -c 'event=' daemon.err)" "0"
like "the round with news printed its summary" "$(cat daemon.err)" "1 bug changed"
unlike "an idle round none (it wrote two lines to the journal every round)" "$(cat daemon.err)" \
	"0 bugs changed|delivery: 0 sent, 0 deferred, 0 failed"

# Exit codes cron and monitoring can read: a deferred mail is 75, a mail
# the relay refused for good 65
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
admin clock '{"advance": 60}'
admin comment '{"bug_id": 101, "creator": "ines@example.net", "text": "Still broken in 6.7."}'
check_exit "sync exits 75 when its mail is deferred (nothing listens on the SMTP port)" 75 bb sync
curl -sf -X POST --data-binary '{"count": 1, "mode": "db_down"}' "$bz/__admin/fail" >/dev/null
check_exit "and 75 when Bugzilla's database is down (200, empty body)" 75 bb sync
like "naming the empty answer" "$(cat check.out)" "empty answer where JSON was expected"
/usr/bin/python3 "$top_srcdir/tests/lib/smtp_sink.py" --port-file refuse.port --dir refuse \
	--fail-rcpt 550:1000 >refuse.out 2>&1 &
CLEANUP_PIDS="$CLEANUP_PIDS $!"
for _ in $(seq 1 100); do [ -s refuse.port ] && break; sleep 0.05; done
sed -i "s/^port = .*/port = $(cat refuse.port)/" "$BUGBRIDGE_CONFIG"
admin clock '{"advance": 60}'
admin comment '{"bug_id": 101, "creator": "ines@example.net", "text": "And in 6.8."}'
check_exit "sync exits 65 when the relay refuses its mail for good" 65 bb sync
# the mails deferred above come due within retry_max (2 s) and are refused
# too: deliver until none is left queued, then nothing is due
for _ in $(seq 1 20); do
	[ "$(bb outbox --state queued --json |
		python3 -c 'import json,sys; print(len(json.load(sys.stdin)["mails"]))')" = 0 ] && break
	sleep 0.5
	bb outbox deliver >/dev/null 2>&1
done
check_exit "outbox deliver with nothing due exits 0" 0 bb outbox deliver
is "the refused mail is listed as failed" "$(bb outbox --state failed --json |
	python3 -c 'import json,sys; print(len(json.load(sys.stdin)["mails"]) >= 1)')" "True"

# The server: READY=1 once it listens, SIGHUP reopens its log
notify_start serve
NOTIFY_SOCKET="$WORK/serve.sock" "$BUGBRIDGE" serve --listen 127.0.0.1:0 --port-file serve.port \
	>serve.out 2>serve.err &
spid=$!
CLEANUP_PIDS="$CLEANUP_PIDS $spid"
check "the server tells systemd it is ready" wait_for "$notify_log" "READY=1"
like "with the port it serves on" "$(cat "$notify_log")" "STATUS=serving on port $(cat serve.port 2>/dev/null)"
mv bb.log bb.log.2
kill -HUP "$spid"
check "SIGHUP makes the server reopen its log" wait_for bb.log "event=serve.sighup"
is "the server still answers" "$(curl -s -o /dev/null -w '%{http_code}' \
	"http://127.0.0.1:$(cat serve.port)/blob/sha256/$(printf '%064d' 0)")" "404"
kill -TERM "$spid"
wait "$spid"
is "the server stops cleanly" "$?" "0"
like "after STOPPING=1" "$(cat "$notify_log")" "STOPPING=1"

# Where the configuration is found: --config, $BUGBRIDGE_CONFIG,
# ./bugbridge.conf, then the user's ($XDG_CONFIG_HOME), then the system's
mkdir -p lookup/xdg/bugbridge lookup/cwd
printf '[core]\nlog_level = warn\n' >lookup/xdg/bugbridge/bugbridge.conf
look() { (cd lookup/cwd && env -u BUGBRIDGE_CONFIG XDG_CONFIG_HOME="$WORK/lookup/xdg" \
	XDG_STATE_HOME="$WORK/lookup/state" "$BUGBRIDGE" "$@" config); }
out=$(look)
like "with none of those, the user's file under \$XDG_CONFIG_HOME is read" "$out" \
	"# from $WORK/lookup/xdg/bugbridge/bugbridge.conf"
like "and data_dir defaults to \$XDG_STATE_HOME/bugbridge" "$out" \
	"data_dir = $WORK/lookup/state/bugbridge"
printf '[core]\nlog_level = error\n' >lookup/cwd/bugbridge.conf
like "./bugbridge.conf comes first" "$(look)" "# from bugbridge.conf"
like "--config before everything" "$(look --config "$WORK/lookup/xdg/bugbridge/bugbridge.conf")" \
	"# from $WORK/lookup/xdg/bugbridge/bugbridge.conf"
test ! -e lookup/state
is "config creates no data folder" "$?" "0"

# A file that sets no data_dir keeps its state in one place whatever folder
# a command starts in (before, the default ./bugbridge-data was the working
# directory's: the daemon and the CLI used different databases, and a sync
# started in /tmp mirrored everything again beside the daemon)
mkdir -p place/etc place/a place/b place/state
printf '[core]\nlog_level = warn\n' >place/etc/bugbridge.conf
data_of() { sed -n 's/^data_dir = //p'; }
da=$(cd place/a && env -u STATE_DIRECTORY -u BUGBRIDGE_CONFIG "$BUGBRIDGE" --config ../etc/bugbridge.conf config | data_of)
db=$(cd place/b && env -u STATE_DIRECTORY -u BUGBRIDGE_CONFIG BUGBRIDGE_CONFIG="$WORK/place/etc/bugbridge.conf" "$BUGBRIDGE" config | data_of)
is "a file without data_dir: its data folder is beside it" "$da" "$WORK/place/etc/bugbridge-data"
is "the same from another working directory" "$db" "$da"
is "\$STATE_DIRECTORY (the unit's StateDirectory=) comes first" \
	"$(cd place/a && STATE_DIRECTORY="$WORK/place/state" "$BUGBRIDGE" --config ../etc/bugbridge.conf config | data_of)" \
	"$WORK/place/state"
is "with no file at all, config prints the absolute ./bugbridge-data" \
	"$(cd place/b && env -u STATE_DIRECTORY -u BUGBRIDGE_CONFIG XDG_CONFIG_HOME="$WORK/place/none" "$BUGBRIDGE" config | data_of)" \
	"$WORK/place/b/bugbridge-data"
# the lock is in that folder: a sync started in another folder is refused
mkdir -p place/etc/bugbridge-data
: >place/etc/bugbridge-data/bugbridge.lock
flock place/etc/bugbridge-data/bugbridge.lock sleep 60 &
holder=$!
wait_for_lock() { i=0; while flock -n place/etc/bugbridge-data/bugbridge.lock true; do
	i=$((i + 1)); [ $i -lt 100 ] || return 1; sleep 0.05; done; }
wait_for_lock
out=$(cd place/b && env -u STATE_DIRECTORY "$BUGBRIDGE" --config "$WORK/place/etc/bugbridge.conf" sync 2>&1)
is "sync from another folder is refused while the data folder is locked (75)" "$?" "75"
like "and says which folder is in use" "$out" "$WORK/place/etc/bugbridge-data is in use"
kill "$holder"
wait "$holder" 2>/dev/null
test ! -e place/a/bugbridge-data && test ! -e place/b/bugbridge-data
is "no data folder appears in the working directories" "$?" "0"

# config shows [route] and [tree] sections too, as text and JSON
printf '[route usb]\ncomponent = USB\nlists = linux-usb@vger.kernel.org\n[tree mainline]\npath = /srv/linux\nref = master\n' \
	>lookup/routes.conf
out=$(bb --config lookup/routes.conf config)
like "config prints a [route] section" "$(printf "%s" "$out" | tr "\n" ".")" "\[route usb\].component = USB.lists = linux-usb@vger.kernel.org"
like "and a [tree] section" "$(printf '%s' "$out" | tr '\n' '.')" "\[tree mainline\].path = /srv/linux.ref = master"
is "config --json has them" "$(bb --config lookup/routes.conf config --json | python3 -c \
	'import json,sys; d=json.load(sys.stdin); print(d["routes"]["usb"]["lists"], d["trees"]["mainline"]["ref"])')" \
	"linux-usb@vger.kernel.org master"
like "config --keys lists their keys" "$(bb config --keys)" "\[route NAME\] maintainers_section"

done_testing
