#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bugbridge serve against bodies that crawl: connections from several
# addresses send complete headers and then one body byte a second, holding
# every slot of max_connections so that a probe is answered 503; [server]
# min_body_rate cuts them once their body has taken the grace time
# ($BUGBRIDGE_TEST_BODY_GRACE_MS, 10 s outside tests), and the probe is
# served again; an honest upload at a few KB a second is not cut.  Scaled
# down: max_connections 24, three loopback addresses of 8 connections.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.2", 0))' 2>/dev/null ||
	skip_all "cannot bind to 127.0.0.2 (no loopback /8 here)"

ABUSE="python3 $top_srcdir/tests/lib/http_abuse.py"
TOKEN=tok-$$-abcdef0123456789
GRACE=3
# the bound a probe is answered in once the slow bodies are cut: generous
# for a loaded 2-core machine running sanitizers
BOUND=4

# field JSON EXPR: a Python expression over the JSON object j
field() { printf '%s' "$1" | python3 -c 'import json, sys; j = json.load(sys.stdin); print(eval(sys.argv[1]))' "$2"; }

write_config <<EOF2
[server]
listen = 127.0.0.1:0
upload_token = $TOKEN
# a thread per connection, so its slow bodies are tested as serve-abuse.sh's
# are with the default pool
threading = per-connection
max_connections = 24
max_connections_per_client = 8
header_timeout = 4s
body_timeout = 30s
min_body_rate = 1K
EOF2
rm -f "$WORK/serve.port"
BUGBRIDGE_TEST_BODY_GRACE_MS=$((GRACE * 1000)) \
	"$BUGBRIDGE" -v serve --port-file "$WORK/serve.port" >/dev/null 2>"$WORK/serve.log" &
SERVER=$!
CLEANUP_PIDS="$CLEANUP_PIDS $SERVER"
if ! wait_for_port "$WORK/serve.port" "$SERVER"; then
	not_ok "serve starts"
	sed 's/^/#   /' "$WORK/serve.log"
	done_testing
	exit 1
fi
PORT=$(cat "$WORK/serve.port")
URL="http://127.0.0.1:$PORT"
ok "serve starts with max_connections 24, min_body_rate 1K, a grace of $GRACE s (port $PORT)"

# --- slow bodies ----------------------------------------------------------------------
# 8 connections from each of 127.0.0.3-5 (24: all of max_connections), one
# body byte a second each (never idle for body_timeout), for 12 s; a probe
# from 127.0.0.2 every half second meanwhile
out=$($ABUSE slowbody "$PORT" 127.0.0.3,127.0.0.4,127.0.0.5 8 1 12 127.0.0.2 "$BOUND")
diag "slowbody: $(field "$out" '{k: v for k, v in j.items() if k != "probe_log"}')"
diag "probes (s since the attack began, status, s taken): $(field "$out" '[[round(t, 1), c, round(s, 2)] for t, c, s in j["probe_log"]]')"
is "all 24 slow bodies get in and fill the server" "$(field "$out" 'j["held"] == 24 and j["most_held_at_once"] == 24')" "True"
is "  meanwhile a probe is answered 503" \
	"$(field "$out" 'any(c == 503 for t, c, s in j["probe_log"] if 1 <= t < '"$GRACE"')')" "True"
is "each is cut once its body has taken $GRACE s at under 1K a second (not at body_timeout, 30 s)" \
	"$(field "$out" 'all(t is not None and '"$GRACE"' - 0.5 <= t <= '"$GRACE"' + 3 for t in j["held_lifetimes"])')" "True"
is "then a probe is answered 200 within $BOUND s" \
	"$(field "$out" 'any(c == 200 and t + s <= '"$GRACE + $BOUND"' for t, c, s in j["probe_log"])')" "True"
is "  and every probe after that too" \
	"$(field "$out" 'all(c == 200 for t, c, s in j["probe_log"] if t >= '"$GRACE + $BOUND"')')" "True"

sleep 1.5 # the sweeper's log line
log=$(cat "$WORK/serve.log")
like "the cut bodies are counted in the http.limits line" "$log" \
	"event=http\.limits .*cut_slow_bodies=[1-9][0-9]*"
is "  all 24 of them" "$(grep -o 'cut_slow_bodies=[0-9]*' "$WORK/serve.log" | awk -F= '{ n += $2 } END { print n }')" "24"
is "  each request logged once, its end slow-body" \
	"$(grep -c 'event=http\.request .*end=slow-body' "$WORK/serve.log")" "24"
is "  no warning per connection" "$(grep -c 'level=warn.*event=http\.server' "$WORK/serve.log")" "0"

# --- an honest upload is not cut ---------------------------------------------------------
# 24 KB at 4 KB a second: twice the grace, four times the floor
head -c 24576 /dev/urandom >honest.bin
start=$(date +%s)
answer=$(curl -s --interface 127.0.0.7 --limit-rate 4K -w '\n%{http_code}' \
	-H "Authorization: Bearer $TOKEN" --data-binary @honest.bin "$URL/upload?name=honest.bin")
took=$(( $(date +%s) - start ))
code=$(printf '%s\n' "$answer" | tail -n 1)
is "an upload at 4K a second over ${took} s is taken" "$code" "201"
like "  and stored whole" "$answer" "$(sha256_of honest.bin)"
if [ "$took" -gt "$GRACE" ]; then
	ok "  it took longer than the grace ($took s > $GRACE s)"
else
	not_ok "  it took longer than the grace ($took s > $GRACE s)"
fi

stop_server "$SERVER"
is "SIGTERM stops the server with exit 0" "$?" "0"
unlike "  having logged no sanitizer report" "$(cat "$WORK/serve.log")" "Sanitizer"

done_testing
