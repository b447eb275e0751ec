# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the scenario tests: TAP output, a private work folder, helpers.
# Source it, then call ok/not_ok/check, and done_testing at the end.
set -u

: "${BUGBRIDGE:?BUGBRIDGE must name the bugbridge binary (run through make check)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"

TAP_N=0
TAP_FAILED=0
TEST_NAME=$(basename "$0" .sh)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bugbridge-$TEST_NAME.XXXXXX")
export HOME="$WORK/home"
mkdir -p "$HOME"
export TZ=UTC
cd "$WORK" || exit 99
CLEANUP_PIDS=""

cleanup() {
	for pid in $CLEANUP_PIDS; do
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	if [ "$TAP_FAILED" -eq 0 ] && [ -z "${KEEP_WORK:-}" ]; then
		rm -rf "$WORK"
	else
		echo "# work folder kept: $WORK"
	fi
}
trap cleanup EXIT

ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $*"; }
not_ok() { TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1)); echo "not ok $TAP_N - $*"; }
diag() { echo "# $*"; }
skip_all() { echo "1..0 # SKIP $*"; trap - EXIT; rm -rf "$WORK"; exit 0; }

# check "name" command...: ok if the command succeeds.
check() {
	local name=$1; shift
	if "$@" >"$WORK/check.out" 2>&1; then
		ok "$name"
	else
		not_ok "$name"
		sed 's/^/#   /' "$WORK/check.out" | head -20
	fi
}

# check_fails "name" CODE command...: ok if the command exits with CODE.
check_exit() {
	local name=$1 want=$2; shift 2
	"$@" >"$WORK/check.out" 2>&1
	local got=$?
	if [ "$got" -eq "$want" ]; then
		ok "$name"
	else
		not_ok "$name (exit $got, want $want)"
		sed 's/^/#   /' "$WORK/check.out" | head -20
	fi
}

# is "name" GOT WANT
is() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; diag "got:  '$2'"; diag "want: '$3'"; fi
}

# like "name" TEXT PATTERN (grep -E)
like() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"; else not_ok "$1"; diag "no match for /$3/ in:"; printf '%s\n' "$2" | head -20 | sed 's/^/#   /'; fi
}

unlike() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then not_ok "$1"; diag "unexpected /$3/ in:"; printf '%s\n' "$2" | head -20 | sed 's/^/#   /'; else ok "$1"; fi
}

# A config in $WORK with data under $WORK/data; extra lines may follow.
write_config() {
	{
		echo "[core]"
		echo "data_dir = $WORK/data"
		echo "log_level = warn"
		cat
	} >"$WORK/bugbridge.conf"
	chmod 600 "$WORK/bugbridge.conf"
	export BUGBRIDGE_CONFIG="$WORK/bugbridge.conf"
}

bb() { "$BUGBRIDGE" "$@"; }

# notify_start NAME: a stand-in for systemd's socket; sets $notify_log
notify_start() {
	notify_log="$WORK/$1.notify"
	/usr/bin/python3 "$top_srcdir/tests/lib/notify_sink.py" --socket "$WORK/$1.sock" \
		--log "$notify_log" --pid-file "$WORK/$1.notify.pid" >"$WORK/$1.notify.out" 2>&1 &
	CLEANUP_PIDS="$CLEANUP_PIDS $!"
	for _ in $(seq 1 100); do [ -s "$WORK/$1.notify.pid" ] && break; sleep 0.05; done
	: >>"$notify_log"
}
# wait_for FILE PATTERN [COUNT]: until FILE has COUNT lines matching (20 s at most)
wait_for() {
	for _ in $(seq 1 400); do
		[ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "${3:-1}" ] && return 0
		sleep 0.05
	done
	return 1
}

# fakebz_bridge_config [OPTION]...: the head of a bridge configuration most
# scenario tests share, for the fake Bugzilla at $bz (its "bridgekey0123"
# user): [bugzilla] mirroring the bugs it already holds (first_sync = all,
# which would mail more than the default backfill_confirm without sync
# --yes) of product Drivers, and [mail] from bugbridge.test; a test appends
# only what is its own.  Options:
#   --key-in          api_key_in = param (the key as a URL parameter)
#   --products LIST   instead of Drivers ("": no products line, every product)
#   --bugzilla LINE   one more [bugzilla] line (repeatable)
#   --domain DOMAIN   [mail] domain (default bugbridge.test)
#   --from ADDRESS    [mail] from (default Bugzilla bridge <bridge@bugbridge.test>)
#   --mail LINE       one more [mail] line (repeatable)
#   --maildir DIR     [smtp] maildir = DIR
#   --smtp PORT       [smtp] host 127.0.0.1, that port, no STARTTLS
#   --lists LIST      [routing] default_lists = LIST
fakebz_bridge_config() {
	local key_in="" products="Drivers" bz_lines="" domain="bugbridge.test"
	local from="Bugzilla bridge <bridge@bugbridge.test>" mail_lines="" smtp="" lists=""
	while [ $# -gt 0 ]; do
		case $1 in
		--key-in) key_in="api_key_in = param"; shift; continue ;;
		--products) products=$2 ;;
		--bugzilla) bz_lines="$bz_lines$2
" ;;
		--domain) domain=$2 ;;
		--from) from=$2 ;;
		--mail) mail_lines="$mail_lines$2
" ;;
		--maildir) smtp="maildir = $2" ;;
		--smtp) smtp="host = 127.0.0.1
port = $2
starttls = no" ;;
		--lists) lists=$2 ;;
		*) echo "fakebz_bridge_config: unknown option $1" >&2; return 64 ;;
		esac
		shift 2
	done
	echo "[bugzilla]"
	echo "url = $bz"
	echo "api_key = bridgekey0123"
	[ -z "$key_in" ] || echo "$key_in"
	[ -z "$products" ] || echo "products = $products"
	echo "first_sync = all"
	echo "backfill_confirm = 100000"
	printf '%s' "$bz_lines"
	echo "[mail]"
	echo "domain = $domain"
	echo "from = $from"
	printf '%s' "$mail_lines"
	[ -z "$smtp" ] || printf '[smtp]\n%s\n' "$smtp"
	[ -z "$lists" ] || printf '[routing]\ndefault_lists = %s\n' "$lists"
}

# reg SQL: the first row SQL gives on the bridge's database, its columns
# joined by '|' ("" when there is none)
reg() {
	/usr/bin/python3 -c 'import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()
print("" if r is None else "|".join(str(x) for x in r))' "$WORK/data/bugbridge.db" "$1"
}

# fakebz_minimal_state FILE: a state with the bridge's user (key
# "bridgekey0123"), product Drivers with component USB and no bug, on the
# fake clock of 2026-12-03 09:00 UTC
fakebz_minimal_state() {
	cat >"$1" <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]}],
  "products": [{"name": "Drivers", "components": ["USB"]}],
  "bugs": []
}
EOF2
}

# serve_config_head: the start of a config for `bugbridge serve` listening
# on $PORT, its blobs under $BASE, logging to $WORK/bb.log (more [server]
# keys may follow)
serve_config_head() {
	cat <<EOF2
log_file = $WORK/bb.log
[blob]
base_url = $BASE
[server]
listen = 127.0.0.1:$PORT
EOF2
}

# frontdoor_bridge_config: the fake Bugzilla at $bz (its "bridgekey0123"
# user, the key as a parameter, every product), mail from
# bridge.example.org written to $WORK/mail, every bug to
# linux-kernel@vger.kernel.org
frontdoor_bridge_config() {
	fakebz_bridge_config --key-in --products "" --domain bridge.example.org \
		--from "Bridge <bridge@example.org>" --maildir "$WORK/mail" \
		--lists linux-kernel@vger.kernel.org
}

# fakebz_start STATE-FILE: starts the fake Bugzilla (tests/lib/fake_bugzilla.py)
# with that state on a free port, logging to $WORK/bz.log; sets $bz to its
# URL.  It is stopped by pid when the test ends.
fakebz_start() {
	/usr/bin/python3 "$top_srcdir/tests/lib/fake_bugzilla.py" --state "$1" \
		--port-file "$WORK/bz.port" --log "$WORK/bz.log" >"$WORK/bz.out" 2>&1 &
	CLEANUP_PIDS="$CLEANUP_PIDS $!"
	for _ in $(seq 1 100); do [ -s "$WORK/bz.port" ] && break; sleep 0.1; done
	[ -s "$WORK/bz.port" ] || { cat "$WORK/bz.out" >&2; skip_all "the fake Bugzilla did not start"; }
	bz="http://127.0.0.1:$(cat "$WORK/bz.port")"
}

# wait_for_port FILE PID: until FILE (a port or pid file) is not empty,
# while PID lives (bounded: 10 s)
wait_for_port() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	test -s "$1"
}

# serve_start [ARGUMENT...]: `bugbridge serve` with those arguments, its
# port written to $WORK/port, its log to $WORK/serve.log; sets $server (its
# pid: stopped at cleanup, or by stop_server) once the port is written, and
# skips the test when it does not start
serve_start() {
	rm -f "$WORK/port"
	"$BUGBRIDGE" serve --port-file "$WORK/port" "$@" >/dev/null 2>"$WORK/serve.log" &
	server=$!
	CLEANUP_PIDS="$CLEANUP_PIDS $server"
	wait_for_port "$WORK/port" "$server" || { cat "$WORK/serve.log"; skip_all "the server did not start"; }
}

# stop_server PID: SIGTERM, then its exit status (137 if it had to be
# killed after 15 s); it is no longer stopped at cleanup
stop_server() {
	kill -TERM "$1"
	( sleep 15; kill -KILL "$1" 2>/dev/null ) >/dev/null 2>&1 &
	watchdog=$!
	wait "$1"
	stop_rc=$?
	kill "$watchdog" 2>/dev/null
	CLEANUP_PIDS=$(printf '%s\n' $CLEANUP_PIDS | grep -vx "$1" | tr '\n' ' ')
	return $stop_rc
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# random_bytes N [SEED]: N pseudo-random bytes, the same on every run, so a
# type guessed from the bytes (libmagic) cannot change from run to run.
random_bytes() {
	python3 -c 'import random, sys; r = random.Random(int(sys.argv[2])); sys.stdout.buffer.write(r.randbytes(int(sys.argv[1])))' "$1" "${2:-1}"
}

# A free TCP port on 127.0.0.1 (racy by nature; servers here prefer port 0).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

done_testing() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}
