#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# "#bugbridge needinfo" and what time does to it (issue 38, item 1), time
# driven forward with BUGBRIDGE_TEST_NOW (core/clock.h) and the fake
# Bugzilla's clock together: a question is mailed on the thread; unanswered
# 14 days, one reminder; unanswered 30 days more, the bug is closed with the
# first of INSUFFICIENT_DATA, INVALID the stock 5.2 has (INVALID) and a
# comment saying a reply reopens it; a reply from the person asked (or an
# allowed sender) reopens it, to an open status the 5.2 workflow allows
# (CONFIRMED); a reply from anyone else is only a comment.  A reply from
# the person asked in time ends it; a bug restricted meanwhile gets no
# reminder and is not closed.  Bugzilla shows the waiting where it can
# (the stock 5.2 cannot): a needinfo flag asked of the person asked, when
# the server has such a flag type; else a NEEDINFO status the workflow
# allows; else a needinfo keyword; each is taken off once answered (the
# flag with the closing PUT when none came).  Every step is first killed
# (SIGKILL through BUGBRIDGE_CRASH_AT) where it has recorded, or done, half
# of its work,
# then run again: each mail goes out once, each change is made once.
#
# The archive is static files (kind atom) as in inbound-crash.sh; senders
# are believed from From: ([inbound] authenticate = none; signing is
# tested in inbound.sh), so "allowed" is [inbound] allow.
. "$top_srcdir/tests/lib/common.sh"

DAY=86400
cat >state.json <<EOF
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "editusers"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "olaf@example.net", "real_name": "Olaf Owner"},
            {"login": "lead@example.org", "real_name": "Lead"}],
  "groups": [{"name": "vendor", "description": "a group the bridge is not in"}],
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
$(for id in 401 402 403 404; do
	[ $id = 401 ] || printf ',\n'
	printf '    {"id": %s, "summary": "iwlwifi: crash %s", "product": "Drivers", "component": "Wireless",
     "status": "CONFIRMED", "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
     "description": "Wi-Fi dies (%s)."}' $id $id $id
done)
  ]
}
EOF
fakebz_start state.json

. "$top_srcdir/tests/lib/atom_archive.sh"
ATOM_REPLY_SUBJECT='Re: [Bug {bug}] iwlwifi: crash {bug}'
export ATOM_REPLY_SUBJECT
atom_archive_start
# mail FROM MSGID PARENT BODY
mail() { atom_reply "$@"; }

write_config <<EOF
$(fakebz_bridge_config --key-in --maildir "$WORK/data/mail" --lists list@lists.test)
$(atom_archive_config)
EOF
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
field() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0][sys.argv[1]])' "$2"
}
# delivered ID-PATTERN: how many mails in the Maildir have a Message-ID
# matching the extended regex
delivered() { cat data/mail/new/* 2>/dev/null | grep -ciE "^Message-ID: <($1)>"; }
# mails WORD: how many delivered mails carry WORD
mails() { grep -l -- "$1" data/mail/new/* 2>/dev/null | wc -l; }
# puts BUG: PUTs to the bug, as the fake Bugzilla logged them
puts() { curl -sf "$bz/__admin/log?path_prefix=/rest/bug/$1&method=PUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'; }
# comments BUG WORD: comments of the bug that carry WORD
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
# at DAYS: the bridge's and the fake Bugzilla's clock DAYS days after the start
START=$(date +%s)
at() {
	BUGBRIDGE_TEST_NOW=$((START + $1 * DAY))
	export BUGBRIDGE_TEST_NOW
	admin clock "{\"now\": \"$(date -u -d "@$((START + $1 * DAY))" +%Y-%m-%dT%H:%M:%SZ)\"}"
}

at 0
check "first round: the bugs are mirrored" bb --quiet sync

# --- the questions
mail "Lead <lead@example.org>" ask-401@example.org bug-401@bugbridge.test \
	"$(printf 'Which firmware do you run?\n\n#bugbridge needinfo reporter Which firmware file is loaded (dmesg | grep iwlwifi)?\n')"
mail "Lead <lead@example.org>" ask-402@example.org bug-402@bugbridge.test \
	"$(printf '#bugbridge needinfo <olaf@example.net> Does 6.8 still crash?\n')"
mail "Lead <lead@example.org>" ask-403@example.org bug-403@bugbridge.test \
	"$(printf '#bugbridge needinfo Is this on battery only?\n')"
mail "Lead <lead@example.org>" ask-404@example.org bug-404@bugbridge.test \
	"$(printf '#bugbridge needinfo reporter Which laptop?\n')"
mail "Other User <other@example.net>" ask-bad@example.org bug-404@bugbridge.test \
	"$(printf '#bugbridge needinfo reporter Which laptop, again?\n')"
crash needinfo.asked
Q1=bug-401-r1000000000011@bugbridge.test
is "the question to the reporter was mailed once" "$(delivered "$Q1")" "1"
for id in 402 403 404; do
	is "bug $id: its question mailed once" "$(delivered "bug-$id-r10000000000[0-9]1@bugbridge.test")" "1"
done
q1=$(grep -il "Message-ID: <$Q1>" data/mail/new/*)
flat() { tr -d '\r' <"$1" | tr '\n' '~'; }
like "it quotes the question, saying who asks whom" "$(flat "$q1")" "lead@example.org asks the reporter:~~  Which firmware file is loaded"
like "and says when the reminder and the closing come" "$(cat "$q1")" "a reminder follows on $(date -u -d "@$((START + 14 * DAY))" +%Y-%m-%d), and the bug is closed on $(date -u -d "@$((START + 44 * DAY))" +%Y-%m-%d)"
like "it answers the asking mail" "$(cat "$q1")" "In-Reply-To: <ask-401@example.org>"
unlike "the reporter's address is in no header of the list mail" "$(sed '/^$/q' "$q1")" "ines@example.net"
q2=$(grep -il "Message-ID: <bug-402-r10000000000[0-9]1@" data/mail/new/*)
like "an address asked is Cc'd" "$(sed '/^$/q' "$q2")" "Cc: olaf@example.net"
like "the command's answer says it is done" "$(cat $(grep -l "In-Reply-To: <ask-401@example.org>" data/mail/new/* | xargs grep -l "answer to the commands"))" \
	"asked the reporter; without an answer, a reminder on"
is "an answer to ask-401, once" "$(grep -l "In-Reply-To: <ask-401@example.org>" data/mail/new/* | xargs grep -l "answer to the commands" | wc -l)" "1"
is "a sender who may not act asks nothing" "$(delivered "bug-404-r10000000000[0-9]{2}@bugbridge.test")" "1"
is "no PUT to Bugzilla for a question: stock 5.2 has no needinfo status, flag or keyword" "$(puts 401)" "0"

# --- before the reminder: the reporter of 404 answers; 403 is restricted
at 3
mail "Ines Reporter <ines@example.net>" answer-404@example.org "bug-404-r1000000000041@bugbridge.test" "A ThinkPad X1."
check "a round reads the answer" bb --quiet sync
admin bug '{"id": 403, "merge": true, "groups": ["vendor"]}'
at 13
check "day 13: nothing is due" bb --quiet sync
is "no reminder before its time" "$(delivered "bug-40[0-9]-r10000000000[0-9]2@bugbridge.test")" "0"

# --- the reminder
at 15
crash needinfo.reminded
is "bug 401: one reminder" "$(delivered "bug-401-r10000000000[0-9]2@bugbridge.test")" "1"
is "bug 402: one reminder" "$(delivered "bug-402-r10000000000[0-9]2@bugbridge.test")" "1"
is "bug 403 (restricted): no reminder" "$(delivered "bug-403-r10000000000[0-9]2@bugbridge.test")" "0"
is "bug 404 (answered): no reminder" "$(delivered "bug-404-r10000000000[0-9]2@bugbridge.test")" "0"
r1=$(grep -il "Message-ID: <bug-401-r10000000000[0-9]2@" data/mail/new/*)
like "the reminder answers the question" "$(cat "$r1")" "In-Reply-To: <$Q1>"
like "and says when the bug is closed" "$(cat "$r1")" "the bug is closed on $(date -u -d "@$((START + 45 * DAY))" +%Y-%m-%d)"
check "another round at day 16" bb --quiet sync
is "still one reminder" "$(delivered "bug-401-r10000000000[0-9]2@bugbridge.test")" "1"

# --- the closing: killed before the PUT, then after it
at 46
BUGBRIDGE_CRASH_AT=needinfo.closing "$BUGBRIDGE" --quiet sync >crash.log 2>&1
is "a round killed once a closing is recorded" "$?" "137"
is "not closed yet" "$(field 401 status)" "CONFIRMED"
crash needinfo.close_put
is "bug 401 closed" "$(field 401 status) $(field 401 resolution)" "RESOLVED INVALID"
is "bug 402 closed" "$(field 402 status) $(field 402 resolution)" "RESOLVED INVALID"
is "bug 403 (restricted) not closed" "$(curl -sf "$bz/__admin/state" | python3 -c 'import json,sys; print([b["status"] for b in json.load(sys.stdin)["bugs"] if b["id"] == 403][0])')" "CONFIRMED"
is "bug 404 (answered) not closed" "$(field 404 status)" "CONFIRMED"
is "one PUT closed bug 401" "$(puts 401)" "1"
is "one closing comment on bug 401" "$(comments 401 "Closed for want of an answer")" "1"
like "it says that a reply reopens it" "$(curl -sf "$bz/rest/bug/401/comment?api_key=bridgekey0123")" "A reply from the reporter on the bug's mail thread reopens it"
is "the closing comment was mailed on the thread once" "$(mails "Closed for want of an answer: the reporter")" "1"
check "another round" bb --quiet sync
is "still one PUT" "$(puts 401)" "1"

# --- replies: from someone else (a comment only), then the person asked
at 50
mail "Other User <other@example.net>" other-401@example.org bug-401@bugbridge.test "Same here."
check "a reply from someone else" bb --quiet sync
is "does not reopen" "$(field 401 status)" "RESOLVED"
mail "Ines Reporter <ines@example.net>" back-401@example.org "$Q1" "iwlwifi-ty-a0-gf-a0-77.ucode"
mail "Other User <other@example.net>" other-402@example.org bug-402@bugbridge.test "No idea."
crash needinfo.reopen_put
is "the reporter's reply reopened bug 401, to the 5.2 workflow's open status" "$(field 401 status)" "CONFIRMED"
is "bug 402: not by a reply of someone not allowed" "$(field 402 status)" "RESOLVED"
is "one PUT reopened it" "$(puts 401)" "2"
is "one comment says so" "$(comments 401 "Reopened: the answer came in the list mail <back-401@example.org>")" "1"
is "and was mailed once" "$(mails "Reopened: the answer came in the list mail <back-401@example.org>")" "1"
is "the reply itself is a comment" "$(comments 401 "iwlwifi-ty-a0-gf-a0-77.ucode")" "1"
mail "Lead <lead@example.org>" lead-402@example.org bug-402@bugbridge.test "Olaf is away; reopening."
check "an allowed sender's reply" bb --quiet sync
is "reopens bug 402" "$(field 402 status)" "CONFIRMED"
check "another round" bb --quiet sync
is "each bug was changed twice, no more" "$(puts 401) $(puts 402)" "2 2"
is "no mail went out twice" "$(cat data/mail/new/* | grep -i "^Message-ID:" | sort | uniq -d | wc -l)" "0"

# --- a Bugzilla with a NEEDINFO status (an admin added it): the waiting
# shows there, and is taken back to the status before once answered
curl -sf "$bz/__admin/state" | python3 -c '
import json, sys
d = json.load(sys.stdin)
d["statuses"]["open"].append("NEEDINFO")
d["transitions"] = {"CONFIRMED": ["NEEDINFO"]}
print(json.dumps(d))' >state2.json
check "the fake Bugzilla gets a NEEDINFO status" curl -sf -X POST --data-binary @state2.json "$bz/__admin/state"
at 60
before=$(puts 404)
mail "Lead <lead@example.org>" ask2-404@example.org bug-404@bugbridge.test \
	"$(printf '#bugbridge needinfo reporter Does 6.9 fix it?\n')"
crash needinfo.mark_put
is "bug 404 is NEEDINFO" "$(field 404 status)" "NEEDINFO"
is "set by one PUT" "$(( $(puts 404) - before ))" "1"
mail "Ines Reporter <ines@example.net>" answer2-404@example.org bug-404@bugbridge.test "It does."
check "the answer is read" bb --quiet sync
check "and the status taken back" bb --quiet sync
is "bug 404 is CONFIRMED again" "$(field 404 status)" "CONFIRMED"
is "two PUTs in all" "$(( $(puts 404) - before ))" "2"

# --- a Bugzilla with a needinfo flag type too: the flag wins, asked of the
# person asked; unanswered, the closing PUT clears it
# flags BUG: the bug's flags, "name status requestee" each
flags() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(";".join("%s %s %s" % (f["name"], f["status"], f.get("requestee", "")) for f in json.load(sys.stdin)["bugs"][0]["flags"]))'
}
# shape KEY JSON: one key of the fake Bugzilla's state set to JSON
shape() {
	curl -sf "$bz/__admin/state" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); d[sys.argv[1]]=json.loads(sys.argv[2]); print(json.dumps(d))' "$1" "$2" >shape.json &&
		curl -sf -X POST --data-binary @shape.json "$bz/__admin/state" >/dev/null
}
check "the fake Bugzilla gets a needinfo flag type" shape flag_types '[{"name": "needinfo", "is_requesteeble": true}]'
at 61
before=$(puts 401)
mail "Lead <lead@example.org>" ask3-401@example.org bug-401@bugbridge.test \
	"$(printf '#bugbridge needinfo reporter Which kernel did you try last?\n')"
crash needinfo.mark_put
is "bug 401 has the needinfo flag asked of its reporter" "$(flags 401)" "needinfo ? ines@example.net"
is "the flag, not the status" "$(field 401 status)" "CONFIRMED"
is "set by one PUT" "$(( $(puts 401) - before ))" "1"
at 76
check "the reminder" bb --quiet sync
at 107
crash needinfo.close_put
is "bug 401 closed" "$(field 401 status) $(field 401 resolution)" "RESOLVED INVALID"
is "the closing PUT took the flag off" "$(flags 401)" ""
is "two PUTs in all" "$(( $(puts 401) - before ))" "2"
check "another round" bb --quiet sync
is "still two" "$(( $(puts 401) - before ))" "2"

# --- a Bugzilla with a needinfo keyword only (no flag type, no NEEDINFO
# status): the keyword is added, and removed once answered
check "the fake Bugzilla: no flag type" shape flag_types '[]'
check "no NEEDINFO status" shape statuses '{"open": ["UNCONFIRMED", "CONFIRMED", "IN_PROGRESS"], "closed": ["RESOLVED", "VERIFIED"]}'
check "a needinfo keyword" shape keywords '["needinfo", "regression"]'
at 108
before=$(puts 402)
mail "Lead <lead@example.org>" ask4-402@example.org bug-402@bugbridge.test \
	"$(printf '#bugbridge needinfo <olaf@example.net> Is the firmware current?\n')"
crash needinfo.mark_put
is "bug 402 has the keyword" "$(field 402 keywords)" "['needinfo']"
is "added by one PUT" "$(( $(puts 402) - before ))" "1"
mail "Olaf Owner <olaf@example.net>" answer4-402@example.org bug-402@bugbridge.test "It is."
crash needinfo.mark_put
is "the answer took it off" "$(field 402 keywords)" "[]"
is "two PUTs in all" "$(( $(puts 402) - before ))" "2"
is "no mail went out twice, in all" "$(cat data/mail/new/* | grep -i "^Message-ID:" | sort | uniq -d | wc -l)" "0"

done_testing
