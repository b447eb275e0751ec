#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# "Still happening?" (issue 38, item 2), time driven forward with
# BUGBRIDGE_TEST_NOW and the fake Bugzilla's clock together.  A watched
# tree's newest release commit ("Linux 6.9") is the release asked about;
# an open bug quiet for [aging] ping_after (180 days) whose kernel (its
# cf_kernel_version, else the version the report reader finds) is older
# gets one mail on its thread; at most [aging] daily_limit (2 here) a list
# and UTC day, the bugs quiet longest first; unanswered [aging] ping_close
# (60 days), the bug is closed with a comment, and a reply from its
# reporter reopens it.  Once per bug and release: a newer release asks
# again.  A bug whose kernel is not older, a regression, an active bug, a
# restricted bug (before the ping, or after it: then it is not closed) are
# never asked, nor a bug muted with "#bugbridge no-reminders" (which, not
# muted, would be asked about v6.11).  Each step is first killed (SIGKILL
# through BUGBRIDGE_CRASH_AT) where it has done half its work, then run again:
# each mail goes out once, each change is made once.
#
# The archive is static files (kind atom), as in needinfo.sh.
. "$top_srcdir/tests/lib/common.sh"
command -v git >/dev/null 2>&1 || skip_all "git is not installed"

DAY=86400
START=$(date +%s)
# iso DAYS: the time DAYS days from the start (negative: before), as Bugzilla writes it
iso() { date -u -d "@$((START + $1 * DAY))" +%Y-%m-%dT%H:%M:%SZ; }

# bug ID COMPONENT QUIET_DAYS EXTRA DESCRIPTION: one bug of the state, its
# last change QUIET_DAYS before the start
bug() {
	printf '    {"id": %s, "summary": "bug %s", "product": "Drivers", "component": "%s",
     "status": "CONFIRMED", "creator": "ines@example.net", %s
     "creation_time": "%s", "last_change_time": "%s",
     "comments": [{"creator": "ines@example.net", "creation_time": "%s", "text": "%s"}]}' \
		"$1" "$1" "$2" "$4" "$(iso "-$(($3 + 5))")" "$(iso "-$3")" "$(iso "-$(($3 + 5))")" "$5"
}
cat >state.json <<EOF
{
  "clock": {"now": "$(iso 0)"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "editusers"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "lead@example.org", "real_name": "Lead"}],
  "groups": [{"name": "vendor", "description": "a group the bridge is not in"}],
  "fields": {"cf_regression": {"description": "Regression", "values": ["---", "No", "Yes"],
                               "default": "---"},
             "cf_kernel_version": {"description": "Kernel Version"}},
  "products": [{"name": "Drivers", "components": ["Wireless", "USB"]}],
  "bugs": [
$(bug 501 Wireless 300 '"cf_kernel_version": "6.6.9",' "Wi-Fi dies.")
,
$(bug 502 Wireless 290 '' "Wi-Fi slow.\\n\\n[    0.000000] Linux version 6.6.1-arch1-1 (linux@archlinux) (gcc (GCC) 13.2.1) #1 SMP PREEMPT_DYNAMIC")
,
$(bug 503 Wireless 280 '"cf_kernel_version": "6.10",' "Wi-Fi on the newest kernel.")
,
$(bug 504 Wireless 270 '"cf_kernel_version": "6.6", "cf_regression": "Yes",' "A regression.")
,
$(bug 505 Wireless 260 '"cf_kernel_version": "6.6", "groups": ["vendor"],' "Restricted from the start.")
,
$(bug 506 Wireless 250 '"cf_kernel_version": "6.6",' "Restricted before the ping.")
,
$(bug 507 Wireless 20 '"cf_kernel_version": "6.6",' "Active.")
,
$(bug 508 Wireless 240 '"cf_kernel_version": "6.9.3",' "On a stable kernel after 6.9.")
,
$(bug 511 USB 400 '"cf_kernel_version": "6.1",' "USB one.")
,
$(bug 512 USB 390 '"cf_kernel_version": "6.1",' "USB two.")
,
$(bug 513 USB 380 '"cf_kernel_version": "6.1",' "USB three.")
,
$(bug 514 USB 370 '"cf_kernel_version": "6.1",' "USB four.")
  ]
}
EOF
fakebz_start state.json

export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.org \
	GIT_COMMITTER_NAME=Dev GIT_COMMITTER_EMAIL=dev@example.org
git init -q -b master linux
g() { git -C "$WORK/linux" "$@"; }
g commit -q --allow-empty -m "Linux 6.8"
g commit -q --allow-empty -m "wifi: a fix"
g commit -q --allow-empty -m "Linux 6.9"
g commit -q --allow-empty -m "Linux 6.10-rc1"

. "$top_srcdir/tests/lib/atom_archive.sh"
atom_archive_start
# mail FROM MSGID PARENT BODY
mail() { atom_reply "$@"; }

write_config <<EOF
$(fakebz_bridge_config --key-in --bugzilla "kernel_field = cf_kernel_version" \
	--maildir "$WORK/data/mail" --lists list@lists.test)
$(atom_archive_config)
[route usb]
component = USB
lists = usb@lists.test
people = Max Maintainer <max@example.org>
[aging]
daily_limit = 2
[tree mainline]
path = $WORK/linux
ref = master
EOF
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
field() {
	curl -sf "$bz/__admin/state" |
		python3 -c 'import json,sys; print([b for b in json.load(sys.stdin)["bugs"] if b["id"] == int(sys.argv[1])][0][sys.argv[2]])' "$1" "$2"
}
# pings BUG: delivered pings of the bug (their Message-IDs bug-<id>-r2...)
pings() { cat data/mail/new/* 2>/dev/null | grep -ciE "^Message-ID: <bug-$1-r2[0-9]{12}@bugbridge.test>"; }
# all_pings: "bug:count" of every bug pinged
all_pings() {
	cat data/mail/new/* 2>/dev/null | sed -nE 's/^Message-ID: <bug-([0-9]+)-r2[0-9]{12}@.*/\1/Ip' |
		sort | uniq -c | awk '{printf "%s%s:%s", sep, $2, $1; sep=" "}'
}
ping_file() { grep -liE "^Message-ID: <bug-$1-r2[0-9]{12}@" data/mail/new/* | head -1; }
puts() { curl -sf "$bz/__admin/log?path_prefix=/rest/bug/$1&method=PUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'; }
comments() {
	curl -sf "$bz/rest/bug/$1/comment?api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(sum(sys.argv[2] in c["text"] for c in json.load(sys.stdin)["bugs"][sys.argv[1]]["comments"]))' "$1" "$2"
}
# crash HOOK: a round killed at HOOK (it must be reached), then one to the end
crash() {
	BUGBRIDGE_CRASH_AT=$1 "$BUGBRIDGE" --quiet sync >crash.log 2>&1
	is "a round killed at $1" "$?" "137"
	check "the next round after $1" bb --quiet sync
}
at() {
	BUGBRIDGE_TEST_NOW=$((START + $1 * DAY))
	export BUGBRIDGE_TEST_NOW
	admin clock "{\"now\": \"$(iso "$1")\"}"
}

at 0
check "first round: the bugs are mirrored, the tree scanned" bb --quiet sync
is "no ping before a release is known" "$(all_pings)" ""
admin bug '{"id": 506, "merge": true, "groups": ["vendor"]}'

# --- the pings: two a list today, oldest first; bug 512's mails have a
# follower, and the route's person left them
mail "Fan <fan@example.com>" fan-512@example.com bug-512@bugbridge.test "#bugbridge subscribe"
mail "Max Maintainer <max@example.org>" max-512@example.org bug-512@bugbridge.test "#bugbridge uncc"
crash aging.pinged
is "pinged: on list@, 501 and 502; on usb@, the two quiet longest" "$(all_pings)" "501:1 502:1 511:1 512:1"
p1=$(ping_file 501)
flat() { tr -d '\r' <"$1" | tr '\n' ' '; }
like "it asks about the newest release" "$(flat "$p1")" "reported on Linux 6.6.9, and v6.9 has been released since"
like "whether it still happens" "$(flat "$p1")" "Does it still happen with v6.9"
like "and when the bug is closed without an answer" "$(flat "$p1")" "the bug is closed on $(date -u -d "@$((START + 60 * DAY))" +%Y-%m-%d)"
like "on the bug's thread" "$(cat "$p1")" "In-Reply-To: <bug-501@bugbridge.test>"
like "to its list" "$(sed '/^$/q' "$p1")" "To: list@lists.test"
unlike "the reporter's address is in no header" "$(sed '/^$/q' "$p1")" "ines@example.net"
like "bug 502's kernel is the report reader's" "$(flat "$(ping_file 502)")" "reported on Linux 6.6.1-arch1-1"
like "bug 511 goes to its own list" "$(sed '/^$/q' "$(ping_file 511)")" "To: usb@lists.test"
like "bug 512's ping is Cc'd to its follower" "$(sed '/^$/q' "$(ping_file 512)")" "Cc: .*fan@example.com"
unlike "not to the route's person who left it" "$(sed '/^$/q' "$(ping_file 512)")" "max@example.org"
# the envelope: RCPT TO as the outbox hands it to SMTP
is "and sent to the list, the follower and (envelope only) the reporter" \
	"$(reg "select recipients from outbox where message_id glob 'bug-512-r2????????????@*'")" "usb@lists.test, fan@example.com, ines@example.net"
like "bug 511's ping is Cc'd to the route's person, who did not leave it" "$(sed '/^$/q' "$(ping_file 511)")" "Cc: .*max@example.org"
is "and sent to the route's person" \
	"$(reg "select recipients from outbox where message_id glob 'bug-511-r2????????????@*'")" "usb@lists.test, max@example.org, ines@example.net"
check "another round today" bb --quiet sync
is "nothing more today: each once, the limit reached" "$(all_pings)" "501:1 502:1 511:1 512:1"

at 1
check "the next day" bb --quiet sync
is "the rest of usb@'s bugs; 503 (6.10), 504 (a regression), 505 and 506 (restricted), 507 (active), 508 (6.9.3) never" \
	"$(all_pings)" "501:1 502:1 511:1 512:1 513:1 514:1"
check "another round" bb --quiet sync
is "still each once" "$(all_pings)" "501:1 502:1 511:1 512:1 513:1 514:1"
is "no PUT to Bugzilla for a ping" "$(puts 501) $(puts 511)" "0 0"

# --- answers and restrictions meanwhile
at 20
mail "Ines Reporter <ines@example.net>" answer-502@example.org bug-502@bugbridge.test "Still happens on 6.9."
check "a round reads the answer" bb --quiet sync
admin bug '{"id": 512, "merge": true, "groups": ["vendor"]}'

# --- the closing: killed before the PUT, then after it
at 61
BUGBRIDGE_CRASH_AT=aging.closing "$BUGBRIDGE" --quiet sync >crash.log 2>&1
is "a round killed once a closing is recorded" "$?" "137"
is "not closed yet" "$(field 501 status)" "CONFIRMED"
crash aging.close_put
is "bug 501 closed" "$(field 501 status) $(field 501 resolution)" "RESOLVED INVALID"
for id in 511 513 514; do
	is "bug $id closed" "$(field $id status) $(field $id resolution)" "RESOLVED INVALID"
done
is "bug 502 (answered) not closed" "$(field 502 status)" "CONFIRMED"
is "bug 512 (restricted after its ping) not closed" "$(field 512 status)" "CONFIRMED"
is "one PUT closed bug 501" "$(puts 501)" "1"
is "one closing comment" "$(comments 501 "Closed for want of an answer")" "1"
like "it says what was asked and that a reply reopens it" "$(curl -sf "$bz/rest/bug/501/comment?api_key=bridgekey0123")" \
	"whether it still happens with v6.9, and nobody answered.*A reply from the reporter on the bug's mail thread reopens it"
check "another round" bb --quiet sync
is "still one PUT each" "$(puts 501) $(puts 511) $(puts 513) $(puts 514)" "1 1 1 1"

# --- a reply from the reporter reopens it
at 62
mail "Ines Reporter <ines@example.net>" back-501@example.org bug-501@bugbridge.test "Yes, still on 6.9."
check "a round reads the reply" bb --quiet sync
check "and reopens" bb --quiet sync
is "bug 501 reopened" "$(field 501 status)" "CONFIRMED"
is "one PUT reopened it" "$(puts 501)" "2"

# --- once per release: a new one asks again of a bug now older than it
g commit -q --allow-empty -m "Linux 6.10"
at 63
check "the tree shows v6.10" bb --quiet sync
check "a round with it" bb --quiet sync
is "bug 508 (6.9.3) is asked about v6.10; 503 (6.10) still not" "$(all_pings)" "501:1 502:1 508:1 511:1 512:1 513:1 514:1"
like "about v6.10" "$(flat "$(ping_file 508)")" "Does it still happen with v6.10"
check "another round" bb --quiet sync
is "once" "$(pings 508)" "1"

# --- a muted bug ("#bugbridge no-reminders", bridge/digest.h) is not asked
mail "Lead <lead@example.org>" mute-503@example.org bug-503@bugbridge.test "#bugbridge no-reminders"
check "a round reads the command" bb --quiet sync
g commit -q --allow-empty -m "Linux 6.11"
at 64
check "the tree shows v6.11" bb --quiet sync
check "a round with it" bb --quiet sync
is "bug 503 (6.10), muted, is not asked about v6.11" "$(pings 503)" "0"
is "no mail went out twice" "$(cat data/mail/new/* | grep -i "^Message-ID:" | sort | uniq -d | wc -l)" "0"

done_testing
