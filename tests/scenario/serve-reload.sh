#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bugbridge serve and SIGHUP: the configuration is read again; what may
# change while serving (here the upload token and max_upload_size) changes
# for the next requests, a changed listen is logged as needing a restart
# and the old socket stays, a broken file keeps the old configuration.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"

conf() { # TOKEN MAX LISTEN
	write_config <<EOF2
log_file = $WORK/serve.log
[server]
listen = $3
upload_token = $1
max_upload_size = $2
threads = 2
EOF2
	sed -i 's/^log_level = warn$/log_level = info/' "$WORK/bugbridge.conf"
}

# wait_log PATTERN [COUNT]: until the log has COUNT (1) lines matching
wait_log() {
	for _ in $(seq 1 200); do
		[ "$(grep -c -- "$1" "$WORK/serve.log" 2>/dev/null)" -ge "${2:-1}" ] && return 0
		sleep 0.05
	done
	return 1
}

port=$(free_port)
conf tok-old-$$ 1000 "127.0.0.1:$port"
bb blob ls >/dev/null 2>&1
"$BUGBRIDGE" serve --pid-file "$WORK/pid" >/dev/null 2>"$WORK/serve.err" &
SERVER=$!
CLEANUP_PIDS="$SERVER"
wait_for_port "$WORK/pid" "$SERVER" || { cat "$WORK/serve.err"; skip_all "the server did not start"; }
url="http://127.0.0.1:$port"

head -c 2000 /dev/zero >big.bin
put() { # TOKEN FILE: the HTTP status of PUT /upload
	curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" -T "$2" "$url/upload/x.bin"
}
is "the old token uploads" "$(printf 'small\n' >small.bin; put tok-old-$$ small.bin)" "201"
is "2000 bytes are over max_upload_size = 1000" "$(put tok-old-$$ big.bin)" "413"

# --- a good new file: token and size limit change ----------------------------
conf tok-new-$$ 1M "127.0.0.1:$port"
kill -HUP "$SERVER"
check "SIGHUP: config.reloaded is logged" wait_log "event=config.reloaded"
is "the old token no longer uploads" "$(put tok-old-$$ small.bin)" "401"
is "the new one does" "$(printf 'other\n' >small2.bin; put tok-new-$$ small2.bin)" "201"
is "and the new size limit holds" "$(put tok-new-$$ big.bin)" "201"
unlike "nothing needed a restart" "$(cat "$WORK/serve.log")" "event=config.restart_needed"

# --- a changed listen: needs a restart, the old port still answers -----------
other=$(free_port)
conf tok-new-$$ 1M "127.0.0.1:$other"
kill -HUP "$SERVER"
check "SIGHUP again: reloaded" wait_log "event=config.reloaded" 2
like "a changed listen is named as needing a restart" \
	"$(grep restart_needed "$WORK/serve.log")" "keys=server.listen"
is "the server still answers on the old port" \
	"$(curl -s -o /dev/null -w '%{http_code}' "$url/blob/sha256/$(printf '%064d' 0)")" "404"
is "  and not on the new one" \
	"$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$other/" || true)" "000"

# --- a broken file: logged, the old configuration stays -------------------------
printf '[server]\nno_such_key = 1\n' >>"$WORK/bugbridge.conf"
kill -HUP "$SERVER"
check "a broken file logs config.reload_failed" wait_log "event=config.reload_failed"
like "  with the error" "$(grep reload_failed "$WORK/serve.log")" "error=.*no_such_key"
is "the token in effect still uploads" "$(printf 'third\n' >s3.bin; put tok-new-$$ s3.bin)" "201"

# --- a changed data_dir is refused, as the daemon does --------------------------
conf tok-new-$$ 1M "127.0.0.1:$port"
sed -i "s|^data_dir = .*|data_dir = $WORK/elsewhere|" "$WORK/bugbridge.conf"
kill -HUP "$SERVER"
check "a moved data_dir is refused" wait_log "event=config.reload_failed" 2
like "  as needing a restart" "$(grep reload_failed "$WORK/serve.log" | tail -1)" "data_dir changed"

stop_server "$SERVER"
is "SIGTERM stops it cleanly" "$?" "0"
unlike "no errors from the server on stderr" "$(cat "$WORK/serve.err")" "ERROR|runtime error|Sanitizer"

done_testing
