#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The digest per list (issue 38, item 3; bridge/digest.h): each list with
# open bugs gets one mail a period, its bugs numbered oldest first with age,
# last activity, needinfo state, regression flag and link, the bugs not in
# its previous digest marked [new], the counts on top; a list in [digest]
# exclude_lists gets none; a closed, a muted ("#bugbridge no-reminders") or
# a private bug is in none; a muted bug gets no needinfo reminder either.
# The schedule mails the first digest a whole
# period after it was turned on (time moved with BUGBRIDGE_TEST_NOW); a run
# killed (SIGKILL) right after it queued mails each digest once all the
# same.  A reply "#bugbridge 3 <command>" acts on entry 3 of that digest,
# with the answer a command on the bug's thread gets; one whose sender is
# not authenticated (no DKIM signature) is refused and answered to nobody.
. "$top_srcdir/tests/lib/common.sh"
command -v sqlite3 >/dev/null || skip_all "no sqlite3 program"

DAY=86400
cat >state.json <<EOF
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "editusers"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "lead@example.org", "real_name": "Lead"}],
  "groups": [{"name": "vendor", "description": "a group the bridge is not in"}],
  "products": [{"name": "Drivers", "components": ["Wireless", "USB", "Sound"]}],
  "bugs": [
$(n=0; for spec in 501:Wireless:CONFIRMED 502:Wireless:CONFIRMED 503:Wireless:CONFIRMED \
	504:Wireless:RESOLVED 505:Wireless:CONFIRMED 506:USB:CONFIRMED 507:Sound:CONFIRMED; do
	id=${spec%%:*}; rest=${spec#*:}; comp=${rest%%:*}; status=${rest#*:}; n=$((n + 1))
	[ $n = 1 ] || printf ',\n'
	res=''; [ "$status" = RESOLVED ] && res=', "resolution": "FIXED"'
	reg=''; [ "$id" = 503 ] && reg=', "cf_regression": "Yes"'
	printf '    {"id": %s, "summary": "%s trouble %s", "product": "Drivers", "component": "%s",
     "status": "%s"%s%s, "creator": "ines@example.net", "creation_time": "2026-11-0%sT08:00:00Z",
     "description": "It breaks (%s)."}' $id $comp $id $comp $status "$res" "$reg" $n $id
done)
  ]
}
EOF
fakebz_start state.json

. "$top_srcdir/tests/lib/atom_archive.sh"
. "$top_srcdir/tests/lib/listlab.sh"   # (for listlab_dkim_key)
/usr/bin/python3 -c 'import dkim' 2>/dev/null || skip_all "no python3-dkim"
listlab_dkim_key "$WORK/dkim" example.org || skip_all "openssl cannot make a key"
ATOM_REPLY_SUBJECT='Re: [Bug {bug}] trouble {bug}'
export ATOM_REPLY_SUBJECT
atom_archive_start

write_config <<EOF
$(fakebz_bridge_config --key-in --maildir "$WORK/data/mail" --lists other@lists.test)
[route wifi]
component = Wireless
lists = Wifi List <wifi@lists.test>
[route usb]
component = USB
lists = usb@lists.test
[route sound]
component = Sound
lists = sound@lists.test
[archive]
kind = atom
url = $arch
[inbound]
authenticate = dkim
dkim_key_file = $WORK/dkim/keys
allow = Lead <lead@example.org>
[digest]
exclude_lists = Sound <sound@lists.test>
EOF
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
field() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0][sys.argv[1]])' "$2"
}
delivered() { cat data/mail/new/* 2>/dev/null | grep -ciE "^Message-ID: <($1)>"; }
# the lines of an answer that say what became of each command
transcript() { tr -d '\r' <"$1" | awk '/^  #bugbridge/ { on = 1 } on && /^$/ { exit } on'; }
digest_of() { grep -il "^Message-ID: <$1>" data/mail/new/* | head -1; }
# the entries of a digest mail: "n bug [new]" a line
entries() { tr -d '\r' <"$1" | sed -n 's/^ *\([0-9]*\)\. \(\[new\] \)\{0,1\}Bug \([0-9]*\) .*/\1 \2\3/p'; }
START=$(date -u -d 2026-12-03T09:00:00Z +%s)
at() {
	BUGBRIDGE_TEST_NOW=$(date -u -d "$1" +%s)
	export BUGBRIDGE_TEST_NOW
	admin clock "{\"now\": \"$1\"}"
}
at 2026-12-03T09:00:00Z
# signed FROM MSGID PARENT BODY: a reply DKIM-signed for FROM's domain
# (python3-dkim, the key in dkim/keys, which the bridge reads); reply: one
# not signed, which nobody vouches for
reply() { atom_reply "$@"; }
cat >sign.py <<'PYEOF'
import sys, dkim
path, domain, pem = sys.argv[1:4]
raw = open(path, "rb").read().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
sig = dkim.sign(raw, b"s1", domain.encode(), open(pem, "rb").read(),
                include_headers=[b"from", b"to", b"subject", b"date", b"message-id",
                                 b"in-reply-to", b"references"])
open(path, "wb").write(sig + raw)
PYEOF
signed() {
	atom_reply "$@"
	/usr/bin/python3 sign.py "$WORK/arch/list/$2/raw" example.org "$WORK/dkim/example.org.pem"
}

check "first round: the bugs are mirrored" bb --quiet sync
signed "Lead <lead@example.org>" ask-502@example.org bug-502@bugbridge.test \
	"$(printf '#bugbridge needinfo reporter Which card is it?\n')"
signed "Lead <lead@example.org>" ask-505@example.org bug-505@bugbridge.test \
	"$(printf '#bugbridge needinfo reporter Which kernel?\n')"
check "a round: 502 and 505 wait for an answer" bb --quiet sync
before=$(ls data/mail/new | wc -l)

# --- a dry run prints and mails nothing
check "digest --dry-run" bb digest --dry-run
is "a dry run mails nothing" "$(ls data/mail/new | wc -l)" "$before"
like "it prints the digest" "$(cat check.out)" "To: wifi@lists.test"
is "nothing recorded" "$(sqlite3 data/bugbridge.db 'SELECT count(*) FROM digest')" "0"

# --- the digests, killed right after the first was queued
BUGBRIDGE_CRASH_AT=digest.queued "$BUGBRIDGE" --quiet digest >crash.log 2>&1
is "a digest run killed once it queued" "$?" "137"
bb --quiet digest --json >json.out
is "digest --json" "$?" "0"
D1="digest-2026-12-03-wifi-at-lists.test@bugbridge.test"
is "the wifi list's digest mailed once" "$(delivered "$D1")" "1"
is "the usb list's digest mailed once" "$(delivered "digest-2026-12-03-usb-at-lists.test@bugbridge.test")" "1"
is "an excluded list gets none" "$(delivered "digest-2026-12-03-sound-at-lists.test@bugbridge.test")" "0"
is "a list without open bugs gets none" "$(delivered "digest-.*-other-at-.*")" "0"
d1=$(digest_of "$D1")
is "oldest first, the closed bug left out" "$(entries "$d1" | tr '\n' ,)" "1 501,2 502,3 503,4 505,"
like "the counts" "$(tr -d '\r' <"$d1")" "Open: 4; new since the last digest: 0; waiting for an answer: 2;
regressions: 1."
like "502: needinfo" "$(tr -d '\r' <"$d1" | grep -A1 'Bug 502 ')" "needinfo: waiting since 2026-12-03"
like "503: a regression" "$(tr -d '\r' <"$d1" | grep -A1 'Bug 503 ')" "age 30 days, last activity 2026-11-03, regression"
like "with its link" "$(tr -d '\r' <"$d1" | grep -A2 'Bug 501 ')" "$bz/show_bug.cgi.id=501"
like "to the list" "$(sed '/^$/q' "$d1")" "To: wifi@lists.test"
like "json: the entries" "$(python3 -c 'import json,sys; d=json.load(open("json.out"))["digests"]; print(" ".join("%s:%s" % (x["list"], ",".join(str(e["bug"]) for e in x["entries"])) for x in d))')" \
	"wifi@lists.test:501,502,503,505 usb@lists.test:506"
check "a second run in the same period" bb digest
is "mails nothing more" "$(delivered "digest-2026-12-03-.*")" "2"

# --- a week later: a new bug, one made private, one muted
at 2026-12-10T09:00:00Z
admin bug '{"id": 508, "summary": "Wireless trouble 508", "product": "Drivers", "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net", "creation_time": "2026-12-09T08:00:00Z", "description": "Also (508)."}'
admin bug '{"id": 503, "merge": true, "groups": ["vendor"]}'
signed "Lead <lead@example.org>" mute-505@example.org bug-505@bugbridge.test \
	"$(printf '#bugbridge no-reminders\n')"
check "a round" bb --quiet sync
check "the next digests" bb digest
D2="digest-2026-12-10-wifi-at-lists.test@bugbridge.test"
d2=$(digest_of "$D2")
is "the private and the muted bug left out, the new one marked" "$(entries "$d2" | tr '\n' ,)" "1 501,2 502,3 [new] 508,"
like "counted" "$(tr -d '\r' <"$d2")" "Open: 3; new since the last digest: 1;"

# --- a reply acting on entry 3, and one nobody vouches for
signed "Lead <lead@example.org>" act-3@example.org "$D2" \
	"$(printf 'Looked at these.\n\n#bugbridge 3 needinfo reporter Which firmware?\n#bugbridge 9 reopen\n')"
reply "Lead <lead@example.org>" forged-1@example.org "$D2" \
	"$(printf '#bugbridge 1 close INVALID\n')"
# replies none of whose lines acts on an entry: a number the digest lacks,
# none, a line naming no command, an entry whose bug is private since
signed "Lead <lead@example.org>" bad-9@example.org "$D2" \
	"$(printf '#bugbridge 9 reopen\n#bugbridge reopen\n#bugbridge 2 frobnicate\n')"
signed "Lead <lead@example.org>" gone-3@example.org "$D1" \
	"$(printf '#bugbridge 3 close INVALID\n')"
reply "Lead <lead@example.org>" forged-9@example.org "$D2" \
	"$(printf '#bugbridge 9 reopen\n#bugbridge reopen\n')"
BUGBRIDGE_CRASH_AT=inbound.recorded "$BUGBRIDGE" --quiet sync >crash.log 2>&1
is "a round killed once it recorded the reply" "$?" "137"
# the next one killed once it recorded forged-1 and bad-9, before bad-9's answer
BUGBRIDGE_CRASH_AT=inbound.recorded:2 "$BUGBRIDGE" --quiet sync >crash.log 2>&1
is "a round killed once it recorded the reply acting on no entry" "$?" "137"
is "which is not answered yet" "$(sqlite3 data/bugbridge.db "SELECT m.state || ':' || count(o.message_id) FROM in_mail m LEFT JOIN outbox o ON o.message_id = 'answer-r' || m.id || '@bugbridge.test' WHERE m.message_id = 'bad-9@example.org'")" "intent:0"
check "the next round reads the replies" bb --quiet sync
is "entry 3 (bug 508) asked, once" "$(sqlite3 data/bugbridge.db "SELECT count(*) FROM needinfo WHERE bug_id = 508")" "1"
is "its question mailed once" "$(delivered "bug-508-r10+[0-9]1@bugbridge.test")" "1"
like "on bug 508's thread" "$(cat "$(grep -liE "^Message-ID: <bug-508-r10+[0-9]1@bugbridge.test>" data/mail/new/* | head -1)")" "lead@example.org asks the reporter"
answer=$(grep -l "In-Reply-To: <act-3@example.org>" data/mail/new/* | xargs grep -l "answer to the commands")
is "the reply gets one answer" "$(printf '%s\n' "$answer" | grep -c .)" "1"
is "it says what became of each line" "$(transcript "$answer")" "  #bugbridge 3 needinfo reporter Which firmware?
    asked the reporter; without an answer, a reminder on 2026-12-24, closed on 2027-01-23
  #bugbridge 9 reopen
    refused: no entry 9 in this digest; it has entries 1-3"
like "on the bug's thread, to its list" "$(sed '/^$/q' "$answer")" "To: wifi@lists.test"
unlike "the reply's own words are on no bug" "$(curl -sf "$bz/rest/bug/508/comment?api_key=bridgekey0123")" "Looked at these"
reply "Wendy <wendy@example.org>" talk-3@example.org act-3@example.org "Thanks, that firmware question helps."
check "a round reads a reply to the reply" bb --quiet sync
unlike "the talk under a digest is on no bug" "$(curl -sf "$bz/rest/bug/508/comment?api_key=bridgekey0123")" "firmware question helps"
is "the command nobody vouched for did nothing" "$(field 501 status)" "CONFIRMED"
is "it was refused" "$(sqlite3 data/bugbridge.db "SELECT c.state FROM in_command c JOIN in_mail m ON m.id = c.mail WHERE m.message_id = 'forged-1@example.org'")" "refused"
is "and answered to nobody" "$(grep -l "In-Reply-To: <forged-1@example.org>" data/mail/new/* | wc -l)" "0"
answered() { grep -l "In-Reply-To: <$1>" data/mail/new/* 2>/dev/null; }
answer=$(answered bad-9@example.org)
is "a reply acting on no entry gets one answer" "$(printf '%s\n' "$answer" | grep -c .)" "1"
is "saying what became of each line" "$(transcript "$answer")" "  #bugbridge 9 reopen
    refused: no entry 9 in this digest; it has entries 1-3
  #bugbridge reopen
    refused: name the digest's entry: #bugbridge <n> <command>
  #bugbridge 2 frobnicate
    not understood: unknown command"
like "on the digest's thread, to its list, Cc'd to the sender" "$(tr -d '\r' <"$answer" | sed '/^$/q')" "To: wifi@lists.test
Cc: lead@example.org"
like "as an answer of its own" "$(tr -d '\r' <"$answer" | sed '/^$/q')" "Message-I[Dd]: <answer-r[0-9]+@bugbridge.test>"
answer=$(answered gone-3@example.org)
is "an entry whose bug went private: one answer" "$(printf '%s\n' "$answer" | grep -c .)" "1"
is "which refuses it" "$(transcript "$answer")" "  #bugbridge 3 close INVALID
    refused: the bug is not public (not mirrored, or restricted to groups)"
like "on that digest's thread, not the bug's" "$(tr -d '\r' <"$answer" | sed '/^$/q')" "To: wifi@lists.test"
is "nothing on the private bug's thread" "$(delivered "bug-503-r.*")" "0"
is "nor anything done to it" "$(sqlite3 data/bugbridge.db "SELECT c.state FROM in_command c JOIN in_mail m ON m.id = c.mail WHERE m.message_id = 'gone-3@example.org'")" "refused"
is "a sender nobody vouches for: nothing mailed" "$(answered forged-9@example.org | wc -l)" "0"
is "both its lines recorded as refused" "$(sqlite3 data/bugbridge.db "SELECT group_concat(c.state, ',') FROM in_command c JOIN in_mail m ON m.id = c.mail WHERE m.message_id = 'forged-9@example.org' AND c.note LIKE 'the sender is not authenticated: %'")" "refused,refused"

# --- the schedule: the first digest a whole week after it is turned on
cat >>"$BUGBRIDGE_CONFIG" <<EOF
schedule = weekly
day = 1
hour = 8
EOF
at 2026-12-16T09:00:00Z   # a Wednesday: turned on
check "a round turns the schedule on" bb --quiet sync
at 2026-12-21T09:00:00Z   # Monday after: less than a week since
check "a round on the first Monday" bb --quiet sync
is "no digest yet" "$(delivered "digest-2026-W52-.*")" "0"
at 2026-12-28T07:59:00Z
check "a round before the hour" bb --quiet sync
is "none before 08:00" "$(delivered "digest-2026-W53-.*|digest-2026-W52-.*")" "0"
at 2026-12-28T08:30:00Z
BUGBRIDGE_CRASH_AT=digest.queued "$BUGBRIDGE" --quiet sync >crash.log 2>&1
is "a round killed once it queued a digest" "$?" "137"
check "the next round" bb --quiet sync
check "and one more" bb --quiet sync
is "the week's digests mailed once each" "$(delivered "digest-2026-W53-wifi-at-lists.test@bugbridge.test")" "1"
is "to each list" "$(delivered "digest-2026-W53-usb-at-lists.test@bugbridge.test")" "1"

# the needinfo reminders those rounds sent: 502's, not muted 505's
is "a question's reminder" "$(delivered "bug-502-r10+[0-9]+2@bugbridge.test")" "1"
is "none for the muted bug" "$(delivered "bug-505-r10+[0-9]+2@bugbridge.test")" "0"
is "whose question still waits" "$(sqlite3 data/bugbridge.db "SELECT state FROM needinfo WHERE bug_id = 505")" "waiting"

# --- a digest's thread gets [inbound] answer_limit answers an hour between
# all its senders, as a bug's thread does: each of these senders got none
# yet, so only the thread's limit holds the last one back
had=$(sqlite3 data/bugbridge.db "SELECT count(*) FROM outbox o JOIN in_mail m ON o.message_id = 'answer-r' || m.id || '@bugbridge.test' WHERE m.parent = '$D2'")
sed -i "s/^\[inbound\]\$/[inbound]\nanswer_limit = $((had + 2))/" "$BUGBRIDGE_CONFIG"
for who in ann bob cid; do
	signed "${who} <${who}@example.org>" "limit-$who@example.org" "$D2" \
		"$(printf '#bugbridge 9 reopen\n')"
done
"$BUGBRIDGE" sync >sync.log 2>&1
is "a round reads three replies to the digest from three senders" "$?" "0"
is "answer_limit ($((had + 2))) answers on the digest's thread: two more, not three" \
	"$(for who in ann bob cid; do answered "limit-$who@example.org"; done | grep -c .)" "2"
like "the third is logged, naming the digest" "$(cat sync.log)" \
	"inbound.answer_limited.*digest=$D2"

done_testing
