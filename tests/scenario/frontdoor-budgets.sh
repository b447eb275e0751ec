#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The front door's budgets keyed as an attacker cannot dodge them: an IPv6
# client counts as its /64 (one host commonly has a whole /64 to pick
# addresses from), and confirmation mails are counted per recipient
# address, whoever files the reports ([frontdoor] confirm_limit, default
# 3 a day), in the state database so that a restart forgets nothing.
#
# A real server on [::1].  Distinct addresses of one /64 cannot be bound
# on loopback without routes, so the /64 is tested through X-Forwarded-For
# from ::1 as a trusted proxy (the same client address the budgets see
# behind a real proxy), and a request from ::1 without it is keyed by its
# own /64, "::/64".  Mail goes to the local Maildir, where it is counted.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
PORT=$(python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0)); print(s.getsockname()[1])' 2>/dev/null) ||
	skip_all "no IPv6 loopback (::1) here"

BASE="http://[::1]:$PORT"
write_config <<EOF
log_file = $WORK/bb.log
[blob]
base_url = $BASE
[server]
listen = [::1]:$PORT
trusted_proxies = ::1
[mail]
domain = bridge.example.org
from = Bridge <bridge@example.org>
[routing]
default_lists = linux-kernel@vger.kernel.org
[frontdoor]
enabled = true
base_url = $BASE
rate_limit = 3
EOF
server=""
start_server() {
	rm -f "$WORK/port"
	"$BUGBRIDGE" serve --port-file "$WORK/port" >/dev/null 2>>"$WORK/serve.log" &
	server=$!
	CLEANUP_PIDS="$CLEANUP_PIDS $server"
	wait_for_port "$WORK/port" "$server"
}
start_server || { cat "$WORK/serve.log"; not_ok "the server starts on [::1]"; done_testing; exit 1; }
ok "the server starts on [::1]:$PORT"

# sql QUERY: one value from the state database
sql() { python3 -c 'import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()
print(r[0] if r else "")' "$WORK/data/bugbridge.db" "$1"; }
# report CLIENT EMAIL TITLE: the status of a report filed from CLIENT (an
# X-Forwarded-For value; "-": none, the peer ::1 itself)
report() {
	if [ "$1" = - ]; then xff=; else xff="X-Forwarded-For: $1"; fi
	curl -s -g --max-time 30 -o "$WORK/last.html" -D "$WORK/last.headers" -w '%{http_code}' \
		-H "Origin: $BASE" ${xff:+-H "$xff"} -F "email=$2" -F "title=$3" \
		-F description=d "$BASE/report"
}
# until COMMAND...: until it succeeds (bounded: 10 s)
until_ok() {
	i=0
	until "$@"; do
		[ $i -ge 100 ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
}

# --- one /64, many addresses ----------------------------------------------------------------
codes=""
for n in 1 2 3 4 5; do
	codes="$codes $(report "2001:db8:1:2::$n" "v6-$n@example.org" "from ::$n")"
done
is "five reports from five addresses of one /64 (rate_limit 3): 3 taken, 2 refused" \
	"$codes" " 202 202 202 429 429"
like "  the refusal carries Retry-After" "$(tr -d '\r' <"$WORK/last.headers")" "^Retry-After: [0-9]+$"
is "  the budget rows are keyed on the /64" \
	"$(sql "SELECT group_concat(DISTINCT client) FROM fd_budget WHERE client LIKE '2001:db8:1:2:%'")" \
	"2001:db8:1:2::/64"
is "  while each report keeps its own address" \
	"$(sql "SELECT group_concat(client, ' ') FROM (SELECT client FROM fd_report WHERE email LIKE 'v6-%' ORDER BY id)")" \
	"2001:db8:1:2::1 2001:db8:1:2::2 2001:db8:1:2::3"
like "  the log names the client and its key" "$(cat "$WORK/bb.log")" \
	"event=frontdoor\.rate_limited client=2001:db8:1:2::4 key=2001:db8:1:2::/64 budget=hour"
is "another /64 has a budget of its own" "$(report "2001:db8:1:3::1" v6-other@example.org other)" "202"
is "an IPv4 client is keyed on its address" \
	"$(report 198.51.100.7 v4@example.org v4)$(sql "SELECT count(*) FROM fd_budget WHERE client = '198.51.100.7'")" "2021"
codes=""
for n in 1 2 3 4; do
	codes="$codes $(report - "loop-$n@example.org" "loopback $n")"
done
is "the peer ::1 itself, without X-Forwarded-For: 3 taken, then 429" "$codes" " 202 202 202 429"
is "  counted under ::/64" "$(sql "SELECT count(*) FROM fd_budget WHERE client = '::/64'")" "3"

# --- confirmation mails per recipient ----------------------------------------------------------
# five reports to one victim from five different clients (no client over
# its budget), the address spelled five ways
codes=""
n=0
for to in victim@example.net Victim@Example.NET victim+a@example.net VICTIM+b@example.net victim@example.net; do
	n=$((n + 1))
	codes="$codes $(report "203.0.113.$n" "$to" "to the victim $n")"
done
is "five reports to one address from five clients: 3 taken, then 429 (confirm_limit 3)" \
	"$codes" " 202 202 202 429 429"
like "  the refusal says why" "$(cat "$WORK/last.html")" "Too many confirmation mails went to this e-mail address"
like "  with Retry-After (within a day)" "$(tr -d '\r' <"$WORK/last.headers")" "^Retry-After: [0-9]{4,5}$"
is "  3 reports stored for it" \
	"$(sql "SELECT count(*) FROM fd_report WHERE lower(email) LIKE 'victim%@example.net'")" "3"
until_ok test "$(grep -lis '^To: victim' "$WORK"/data/mail/new/* | wc -l)" -ge 3
sleep 1 # a fourth would have come with them
is "  3 confirmation mails delivered to it" \
	"$(grep -lis '^To: victim' "$WORK"/data/mail/new/* | wc -l | tr -d ' ')" "3"
is "  refused forms count in their clients' budgets, as any form does" \
	"$(sql "SELECT count(*) FROM fd_budget WHERE client IN ('203.0.113.4', '203.0.113.5')")" "2"
like "  the refusal is logged" "$(cat "$WORK/bb.log")" "event=frontdoor\.confirm_limited client=203\.0\.113\.4"
unlike "  without the address" "$(grep confirm_limited "$WORK/bb.log")" "victim"
is "another address is still mailed" "$(report 203.0.113.6 bystander@example.net other)" "202"

stop_server "$server"
is "the server stops" "$?" "0"
start_server || not_ok "the server starts again"
is "after a restart the victim's count stands: 429" \
	"$(report 203.0.113.7 victim@example.net "after restart")" "429"
is "  and the /64's budget too" "$(report "2001:db8:1:2::99" v6-late@example.org late)" "429"
stop_server "$server"
is "the server stops again" "$?" "0"

done_testing
