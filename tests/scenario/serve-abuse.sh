#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bugbridge serve against hostile clients: slow connections from one address
# (the per-client limit, the header deadline) while a probe from another
# address is still answered in time; a full server answering 503 at once;
# trusted proxies and X-Forwarded-For; libmicrohttpd's own 414/431/505
# reflecting no input; tokens kept out of the log; scriptable blobs sent as
# inert downloads from a separate blob origin.  Real server on 127.0.0.1
# port 0, clients in python3 (tests/lib/http_abuse.py) and curl, bound to
# other loopback addresses (127.0.0.2 and up) to be other clients.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.2", 0))' 2>/dev/null ||
	skip_all "cannot bind to 127.0.0.2 (no loopback /8 here)"

ABUSE="python3 $top_srcdir/tests/lib/http_abuse.py"
TOKEN=tok-$$-abcdef0123456789
HEADER_TIMEOUT=4
# the bound every probe is answered in: generous for a loaded 2-core machine
# running sanitizers; unpatched, the probe is not answered at all
BOUND=5

# field JSON EXPR: a Python expression over the JSON object j
field() { printf '%s' "$1" | python3 -c 'import json, sys; j = json.load(sys.stdin); print(eval(sys.argv[1]))' "$2"; }



# start_server NAME: serve with $BUGBRIDGE_CONFIG, -v (every request is
# logged) to $WORK/NAME.log; sets SERVER and PORT
start_server() {
	rm -f "$WORK/$1.port"
	"$BUGBRIDGE" -v serve --port-file "$WORK/$1.port" >/dev/null 2>"$WORK/$1.log" &
	SERVER=$!
	CLEANUP_PIDS="$CLEANUP_PIDS $SERVER"
	if ! wait_for_port "$WORK/$1.port" "$SERVER"; then
		not_ok "serve ($1) starts"
		sed 's/^/#   /' "$WORK/$1.log"
		done_testing
		exit 1
	fi
	PORT=$(cat "$WORK/$1.port")
}

# --- a config error is named ---------------------------------------------------
write_config <<EOF2
[server]
listen = 127.0.0.1:0
trusted_proxies = 127.0.0.1, 10.0.0.0/33
EOF2
check_exit "a malformed trusted_proxies entry is refused (EX_CONFIG)" 78 bb serve
like "  naming the entry" "$(cat "$WORK/check.out")" 'trusted_proxies: "10\.0\.0\.0/33"'

# --- the server under attack ---------------------------------------------------------
write_config <<EOF2
[server]
listen = 127.0.0.1:0
upload_token = $TOKEN
threads = 2
max_connections = 24
max_connections_per_client = 8
header_timeout = ${HEADER_TIMEOUT}s
body_timeout = 30s
trusted_proxies = 127.0.0.6, ::1/128
EOF2
start_server serve
URL="http://127.0.0.1:$PORT"
ok "serve starts with small limits (port $PORT)"

# 40 connections from 127.0.0.1, each sending a header line every second
# and never ending its headers, for 10 s; a probe from 127.0.0.2 meanwhile
out=$($ABUSE slow "$PORT" 127.0.0.1 40 1 10 127.0.0.2 "$BOUND")
diag "slow: $out"
is "a probe from another address is answered throughout" \
	"$(field "$out" 'j["probes"] >= 5 and j["probes_ok"] == j["probes"]')" "True"
is "  each within ${BOUND} s" "$(field "$out" 'j["probe_slowest"] is not None and j["probe_slowest"] < '"$BOUND")" "True"
is "one address holds at most max_connections_per_client (8) connections" \
	"$(field "$out" '1 <= j["most_held_at_once"] <= 8 and 1 <= j["held"] <= 8')" "True"
is "  the rest are closed as soon as they are accepted" "$(field "$out" 'j["refused"] >= 32')" "True"
is "the held ones are cut after header_timeout (${HEADER_TIMEOUT} s), though they kept sending" \
	"$(field "$out" 'all(t is not None and '"$HEADER_TIMEOUT"' - 0.5 <= t <= '"$HEADER_TIMEOUT"' + 5 for t in j["held_lifetimes"])')" "True"

log=$(cat "$WORK/serve.log")
like "the refusals and cuts are counted in one log line" "$log" \
	"event=http\.limits refused_per_client=[0-9]+ refused_overload=[0-9]+ cut_slow_headers=[0-9]+"
is "  not a warning per connection" "$(grep -c 'level=warn.*event=http\.server' "$WORK/serve.log")" "0"

# 8 connections from each of three more addresses fill max_connections (24)
out=$($ABUSE hold "$PORT" 127.0.0.3,127.0.0.4,127.0.0.5 8 127.0.0.2 "$BOUND")
diag "hold: $out"
is "all 24 are taken" "$(field "$out" 'j["held"]')" "24"
is "then a newcomer is answered 503 at once" "$(field "$out" 'j["code"]')" "503"
is "  with Retry-After" "$(field "$out" 'j["retry_after"]')" "5"
is "  within ${BOUND} s" "$(field "$out" 'j["seconds"] < '"$BOUND")" "True"
is "once they are gone, it is served again" "$(curl -s -o /dev/null -w '%{http_code}' --max-time "$BOUND" "$URL/")" "200"

# a trusted proxy carries many clients: the per-client limit is not its
out=$($ABUSE slow "$PORT" 127.0.0.6 12 1 2 127.0.0.2 "$BOUND")
diag "proxy: $out"
is "a trusted proxy (127.0.0.6) may hold more than 8 connections" "$(field "$out" 'j["held"]')" "12"

# --- X-Forwarded-For ---------------------------------------------------------------
code=$(curl -s -o /dev/null -w '%{http_code}' --interface 127.0.0.1 \
	-H 'X-Forwarded-For: 203.0.113.9' "$URL/xff-untrusted")
is "a request with a forged X-Forwarded-For from an untrusted peer" "$code" "404"
code=$(curl -s -o /dev/null -w '%{http_code}' --interface 127.0.0.6 \
	-H 'X-Forwarded-For: 198.51.100.1, 203.0.113.7, 127.0.0.6' "$URL/xff-trusted")
is "a request through the trusted proxy" "$code" "404"
curl -s -o /dev/null --interface 127.0.0.6 -H 'X-Forwarded-For: 192.0.2.44' \
	-H 'X-Forwarded-For: 127.0.0.6' "$URL/xff-two-lines"
curl -s -o /dev/null --interface 127.0.0.6 -H 'X-Forwarded-For: 192.0.2.45, not-an-address' \
	"$URL/xff-garbage"
curl -s -o /dev/null --interface 127.0.0.6 -H 'X-Forwarded-For: [2001:db8::5]:4711' \
	"$URL/xff-v6"
sleep 0.5
log=$(cat "$WORK/serve.log")
like "  an untrusted peer's X-Forwarded-For is ignored: the client is the peer" "$log" \
	"event=http.request client=127\.0\.0\.1 method=GET path=/xff-untrusted "
unlike "  and the forged address appears nowhere" "$log" "203\.0\.113\.9"
like "  a trusted proxy's is read right to left, past trusted hops" "$log" \
	"event=http.request client=203\.0\.113\.7 method=GET path=/xff-trusted .*peer=127\.0\.0\.6"
unlike "  and what the client itself wrote further left is not believed" "$log" "client=198\.51\.100\.1"
like "  several header lines read as one list" "$log" \
	"event=http.request client=192\.0\.2\.44 method=GET path=/xff-two-lines "
like "  an entry that is no address stops the walk at the proxy" "$log" \
	"event=http.request client=127\.0\.0\.6 method=GET path=/xff-garbage "
like "  IPv6 with a port is understood" "$log" \
	"event=http.request client=2001:db8::5 method=GET path=/xff-v6 "

# --- libmicrohttpd's own answers -----------------------------------------------------
MARK="zq<script>alert(7)</script>"
out=$($ABUSE bad "$PORT" "$MARK")
for kind in long_uri:414 long_headers:431 http3:505; do
	name=${kind%:*}
	want=${kind#*:}
	like "libmicrohttpd answers $name with $want" "$(field "$out" "j['$name']['status']")" "^HTTP/1\.1 $want "
	is "  reflecting none of the input" \
		"$(field "$out" "'zq' in j['$name']['body'] or 'zq' in j['$name']['header_values']")" "False"
	is "  with a fixed text" "$(field "$out" "j['$name']['body'] in (
		'<html><head><title>Request too big</title></head><body>Your HTTP header was too big for the memory constraints of this webserver.</body></html>',
		'<html><head><title>Requested HTTP version is not supported</title></head><body>Requested HTTP version is not supported.</body></html>')")" "True"
done
is "  and none of them is a warning in the log" "$(grep -c 'level=warn.*event=http\.server' "$WORK/serve.log")" "0"
is "the server still answers after them" "$(curl -s -o /dev/null -w '%{http_code}' "$URL/")" "200"

# --- tokens never reach the log --------------------------------------------------------
SECRET=c0nf1rmt0k3n$$
curl -s -o /dev/null "$URL/confirm/$SECRET"
curl -s -o /dev/null "$URL/confirm/$SECRET?token=q$SECRET"
curl -s -o /dev/null "$URL/upload?token=u$SECRET"
sleep 0.5
log=$(cat "$WORK/serve.log")
like "a /confirm/<token> request is logged" "$log" "event=http.request client=127\.0\.0\.1 method=GET path=\"?/confirm/"
unlike "  without its token" "$log" "$SECRET"

stop_server "$SERVER"
is "SIGTERM stops the server with exit 0" "$?" "0"
unlike "  having logged no sanitizer report" "$(cat "$WORK/serve.log")" "Sanitizer"

# --- blobs on a separate origin, scriptable ones as inert downloads ---------------------
# the blob origin is http://localhost:PORT, the pages' http://127.0.0.1:PORT
BLOB_PORT=$(free_port)
write_config <<EOF2
[blob]
base_url = http://localhost:$BLOB_PORT
[server]
listen = 127.0.0.1:$BLOB_PORT
upload_token = $TOKEN
[frontdoor]
base_url = http://127.0.0.1:$BLOB_PORT
EOF2
start_server origin
auth="Authorization: Bearer $TOKEN"
printf 'fetch("/report", {method: "POST"});\n' >evil.js
printf '{"a": "</script><script>alert(1)</script>"}\n' >data.json
printf 'just a log line\n' >plain.log
for f in evil.js:text/javascript data.json:application/json plain.log:text/plain; do
	name=${f%%:*}
	type=${f#*:}
	url=$(curl -s -H "$auth" -H "Content-Type: $type" --data-binary "@$name" \
		"http://127.0.0.1:$PORT/upload?name=$name" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["url"])')
	like "$name: its link is on the blob origin" "$url" "^http://localhost:$BLOB_PORT/blob/sha256/[0-9a-f]{64}/$name\$"
	rm -f headers body
	code=$(curl -s -D headers -o body -w '%{http_code}' "$url")
	is "  and is served there" "$code$(sha256_of body)" "200$(sha256_of "$name")"
	headers=$(tr -d '\r' <headers)
	if [ "$type" = text/plain ]; then
		like "  text/plain stays text/plain" "$headers" "^Content-Type: text/plain"
		like "  inline" "$headers" "^Content-Disposition: inline"
	else
		like "  $type goes out as application/octet-stream" "$headers" "^Content-Type: application/octet-stream\$"
		like "  as an attachment" "$headers" "^Content-Disposition: attachment"
	fi
	like "  nosniff" "$headers" "^X-Content-Type-Options: nosniff\$"
	like "  and a CSP that allows nothing" "$headers" "^Content-Security-Policy: default-src 'none'"
done
stop_server "$SERVER"
is "the second server stops with exit 0" "$?" "0"

done_testing
