#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# [bugzilla] api_key_in as the log shows it.  api_key_in = header against a
# Bugzilla whose /rest/version says 5.2 (or older, but 5.1.x) warns once a
# run that such a server ignores the X-BUGZILLA-API-KEY header and the
# requests run anonymously; against a 5.1.x it says nothing.  The log line
# of api_key_in = auto shows the mode it chose (it is no secret, and was
# once redacted as one).
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"

cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
    {"id": 701, "summary": "wifi: dies after resume", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Wi-Fi dies after resume."}]},
    {"id": 702, "summary": "usb: hub resets", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:10:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:10:00Z",
                   "text": "The hub resets."}]}
  ]
}
EOF2
fakebz_start state.json
# the same Bugzilla as a 5.1.2, which reads the header
/usr/bin/python3 "$top_srcdir/tests/lib/fake_bugzilla.py" --state state.json --version 5.1.2 \
	--port-file "$WORK/bz51.port" --log "$WORK/bz51.log" >"$WORK/bz51.out" 2>&1 &
CLEANUP_PIDS="$CLEANUP_PIDS $!"
for _ in $(seq 1 100); do [ -s "$WORK/bz51.port" ] && break; sleep 0.1; done
[ -s "$WORK/bz51.port" ] || skip_all "the second fake Bugzilla did not start"
bz51="http://127.0.0.1:$(cat "$WORK/bz51.port")"

# config URL MODE: the bridge against URL, api_key_in = MODE (none: left to auto)
config() {
	rm -rf "$WORK/data"
	if [ "$2" = none ]; then
		key_in='&'
	else
		key_in="&\\napi_key_in = $2"
	fi
	write_config <<EOF2
$(fakebz_bridge_config | sed -e "s|^url = .*|url = $1|" -e "s|^api_key = .*|$key_in|")
[routing]
default_lists = drivers@lists.test
EOF2
}
version_requests() {
	curl -sf "$1/__admin/log?path_prefix=/rest/version" | python3 -c '
import json, sys
print(len(json.load(sys.stdin)["requests"]))'
}
reset_log() { curl -sf -X POST -d '{}' "$1/__admin/reset_log" >/dev/null; }

# --- header against 5.2 ----------------------------------------------------------
config "$bz" header
reset_log "$bz"
bb -v sync >sync1.out 2>sync1.err
is "a sync with api_key_in = header against 5.2 succeeds (anonymously)" "$?" 0
is "it warns once, though the round makes many requests" \
	"$(grep -c 'event=bz.key_in_ignored' sync1.err)" 1
like "at the warning level" "$(grep 'event=bz.key_in_ignored' sync1.err)" "level=warn"
like "naming the version" "$(grep 'event=bz.key_in_ignored' sync1.err)" "version=5.2"
like "saying the header is ignored and requests run anonymously" \
	"$(grep 'event=bz.key_in_ignored' sync1.err)" "ignores the X-BUGZILLA-API-KEY header.*anonymously"
like "and what to set" "$(grep 'event=bz.key_in_ignored' sync1.err)" "api_key_in = param or auto"
is "/rest/version asked once" "$(version_requests "$bz")" 1
unlike "the key is in no log line" "$(cat sync1.err)" "bridgekey0123"

# --- header against 5.1.2: it reads the header --------------------------------------
config "$bz51" header
check "a sync with api_key_in = header against 5.1.2" sh -c "'$BUGBRIDGE' -v sync 2>sync2.err"
unlike "does not warn" "$(cat sync2.err)" "key_in_ignored"

# --- param: nothing to warn about, no version asked -------------------------------
config "$bz" param
reset_log "$bz"
check "a sync with api_key_in = param" sh -c "'$BUGBRIDGE' -v sync 2>sync3.err"
unlike "does not warn" "$(cat sync3.err)" "key_in_ignored"
is "asks no version" "$(version_requests "$bz")" 0

# --- auto: the log line shows the mode chosen ---------------------------------------
config "$bz" none
check "a sync with api_key_in = auto against 5.2" sh -c "'$BUGBRIDGE' -v sync 2>sync4.err"
like "the log line shows the mode: the parameter" "$(grep 'event=bz.api_key_in' sync4.err)" \
	"version=5.2 key_in=param"
unlike "nothing redacted in it" "$(grep 'event=bz.api_key_in' sync4.err)" "redacted"
unlike "no warning" "$(cat sync4.err)" "key_in_ignored"
config "$bz51" none
check "a sync with api_key_in = auto against 5.1.2" sh -c "'$BUGBRIDGE' -v sync 2>sync5.err"
like "the log line shows the header" "$(grep 'event=bz.api_key_in' sync5.err)" \
	"version=5.1.2 key_in=header"
unlike "no warning" "$(cat sync5.err)" "key_in_ignored"

done_testing
