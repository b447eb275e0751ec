#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# #bugbridge commands that must not do what a naive reading of them would,
# end to end through a real public-inbox list and the fake Bugzilla:
#  - a command whose change the bug already has sends nothing to Bugzilla
#    and is answered "already ..." (reopen of an open bug, close of a bug
#    closed so, assign to the assignee, reassign to its component, its
#    priority, severity and title, stop twice, track of a bug's thread);
#  - commands and #regzbot directives in a forwarded or Outlook-quoted mail
#    below its marker line (or desktop Outlook's From: and Sent: lines) are
#    not the forwarding maintainer's;
#  - refused #bugbridge track answers, each on a thread of its own, stop at
#    [inbound] answer_limit for their sender, and for a thread where several
#    senders send them, under the bridge's subject, quoting nothing of the
#    sender's but the command.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

listlab_start_dkim example.org example.net

cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "editusers"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "wendy@example.org", "real_name": "Wendy Maintainer"},
            {"login": "lead@example.org", "real_name": "Lead"},
            {"login": "dev@example.org", "real_name": "Dev"}],
  "products": [{"name": "Drivers", "components": ["Wireless", "USB"]}],
  "bugs": [
    {"id": 401, "summary": "iwlwifi: firmware crash after resume", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "assigned_to": "wendy@example.org", "priority": "High", "severity": "major",
     "creation_time": "2026-12-03T08:00:00Z", "description": "Wi-Fi dies after resume."},
    {"id": 402, "summary": "iwlwifi: scan fails", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z", "description": "No networks found."},
    {"id": 403, "summary": "iwlwifi: scan fails too", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "severity": "major", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z", "description": "Same here."},
    {"id": 404, "summary": "iwlwifi: link drops", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z", "description": "Link drops every hour."},
    {"id": 405, "summary": "iwlwifi: slow", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z", "description": "Throughput is low."}
  ]
}
EOF2
fakebz_start state.json
field() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0][sys.argv[1]])' "$2"
}
# puts BUG: how many updates of the bug reached the fake Bugzilla
puts() { curl -sf "$bz/__admin/log?path_prefix=/rest/bug/$1&method=PUT" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'; }
# comments BUG: the texts of the bug's comments, one JSON string per line
comments() {
	curl -sf "$bz/rest/bug/$1/comment?api_key=bridgekey0123" |
		python3 -c 'import json,sys; b=json.load(sys.stdin)["bugs"]; [print(json.dumps(c["text"])) for c in list(b.values())[0]["comments"]]'
}
# answer MSGID: the bridge's answers to that mail (their files); flat: on one line
answer() { grep -l "In-Reply-To: <$1>" "$WORK"/listlab/received/*.eml 2>/dev/null | xargs -r grep -l "X-Bugbridge-Loop"; }
flat() { tr -d '\r' <"$1" | tr '\n' '~'; }
# cmd_mail BUG MSGID [FROM] <BODY: an allowed maintainer's signed mail on the
# bug's thread (Lead's unless FROM); each sender gets answer_limit answers an hour
cmd_mail() {
	listlab_send "${3:-Lead <lead@example.org>}" "$2" "bug-$1@bugbridge.test" "Re: [Bug $1] words of mine"
}

write_config <<EOF2
$(listlab_bridge_config)
[route wireless]
component = Wireless
lists = $LISTLAB_LIST
$(listlab_dkim_config)
allow = Lead <lead@example.org>, dev@example.org
track_product = Drivers
track_component = USB
answer_limit = 4
EOF2

check "first sync: the bugs go to the list" bb sync
# someone closes two of them on Bugzilla
put() { curl -sf -X PUT -H 'Content-Type: application/json' --data "$2" \
	"$bz/rest/bug/$1?api_key=bridgekey0123" >/dev/null; }
check "402 is closed on Bugzilla" put 402 '{"status": "RESOLVED", "resolution": "FIXED"}'
check "403 is closed as its duplicate" put 403 '{"status": "RESOLVED", "resolution": "DUPLICATE", "dupe_of": 402}'
check "sync: the bridge reads the changes" bb sync

# --- 10: a change the bug already has is not sent ---------------------------

printf '#bugbridge reopen\n#bugbridge assign wendy@example.org\n#bugbridge reassign wireless\n#bugbridge priority high\n#bugbridge severity major\n#bugbridge title iwlwifi: firmware crash after resume\n#bugbridge track\n' |
	cmd_mail 401 same-1@example.org
printf '#bugbridge close\n#bugbridge close fixed\n' | cmd_mail 402 same-2@example.org
printf '#bugbridge close DUPLICATE 402\n' | cmd_mail 403 same-3@example.org
check "sync after commands the bugs already obey" bb sync
is "no update of 401 reached Bugzilla" "$(puts 401)" "0"
is "nor of 402 (but the one closing it)" "$(puts 402)" "1"
is "nor of 403 (but the one closing it)" "$(puts 403)" "1"
is "401 is still CONFIRMED (a reopen moved it to IN_PROGRESS)" "$(field 401 status)" "CONFIRMED"
is "402 is still RESOLVED" "$(field 402 status)" "RESOLVED"
a=$(answer same-1@example.org)
is "one answer for 401" "$(echo "$a" | grep -c .)" "1"
like "reopen: already open" "$(flat "$a")" "#bugbridge reopen~ +already open: CONFIRMED~"
like "assign: already the assignee" "$(flat "$a")" \
	"#bugbridge assign wendy@example.org~ +already assigned to wendy@example.org~"
like "reassign: already its component" "$(flat "$a")" \
	"#bugbridge reassign wireless~ +already in Drivers/Wireless~"
like "priority: already" "$(flat "$a")" "#bugbridge priority high~ +already of priority High~"
like "severity: already" "$(flat "$a")" "#bugbridge severity major~ +already of severity major~"
like "title: already" "$(flat "$a")" \
	"#bugbridge title iwlwifi: firmware crash after resume~ +already titled so~"
like "track in a bug's thread: already" "$(flat "$a")" "#bugbridge track~ +already: this thread is bug 401~"
unlike "nothing is said done" "$(flat "$a")" "~ +done~"
like "the answer's subject is the bug's title, not the mail's" "$(cat "$a")" \
	"^Subject: Re: \[Bug 401\] iwlwifi: firmware crash after resume"
a=$(answer same-2@example.org)
like "close: already closed" "$(flat "$a")" "#bugbridge close~ +already closed: RESOLVED FIXED~"
like "close FIXED: already closed" "$(flat "$a")" "#bugbridge close fixed~ +already closed: RESOLVED FIXED~"
a=$(answer same-3@example.org)
like "close DUPLICATE of the same bug: already" "$(flat "$a")" \
	"#bugbridge close DUPLICATE 402~ +already closed: RESOLVED DUPLICATE, a duplicate of bug 402~"

# what the bug does not have yet is sent as before, in the same mail as
# what it has
printf '#bugbridge priority low\n#bugbridge severity major\n#bugbridge close DUPLICATE 401\n' |
	cmd_mail 403 change-1@example.org "Dev <dev@example.org>"
printf '#bugbridge stop\n#bugbridge stop\n' | cmd_mail 404 stop-1@example.org "Dev <dev@example.org>"
check "sync after a mix of new and had changes, and two stops" bb sync
is "the new priority and duplicate reached Bugzilla, the severity did not" "$(puts 403)" "3"
is "403 is Low" "$(field 403 priority)" "Low"
is "403 is a duplicate of 401 now" "$(field 403 dupe_of)" "401"
a=$(answer change-1@example.org)
like "priority low done" "$(flat "$a")" "#bugbridge priority low~ +done~"
like "severity: already" "$(flat "$a")" "#bugbridge severity major~ +already of severity major~"
like "another duplicate done" "$(flat "$a")" "#bugbridge close DUPLICATE 401~ +done~"
# (a stopped bug's thread gets no answer: what was done is in the store)
is "the first stop is done, the second already" \
	"$(reg "select group_concat(c.state || ' ' || coalesce(c.note, '-'), '; ') from in_command c
		join in_mail m on m.id = c.mail where m.message_id = 'stop-1@example.org'")" \
	"done -; done already: bugbridge mirrors the bug no more"
is "no update of 404 reached Bugzilla" "$(puts 404)" "0"

# --- 9: a forwarded or Outlook-quoted mail's commands are not the sender's ---

n=0
for marker in '---------- Forwarded message ---------' '-------- Forwarded Message --------' \
	'Begin forwarded message:' '-----Original Message-----' '________________________________'; do
	n=$((n + 1))
	printf 'FYI, see below.\n\n%s\nFrom: Mallory <mallory@example.net>\nSubject: pwn\n\n#bugbridge close INVALID\n#bugbridge title pwned\n' "$marker" |
		cmd_mail 405 "fwd-$n@example.org"
done
printf 'Agreed.\n\nFrom: Mallory <mallory@example.net>\nSent: Monday, December 7, 2026 9:00 AM\nTo: list\nSubject: pwn\n\n#bugbridge close INVALID\n' |
	cmd_mail 405 fwd-6@example.org
printf 'Forwarding a report.\n\n---------- Forwarded message ---------\nFrom: Ines <ines@example.net>\n\nThe touchpad died with 6.7.\n\n#regzbot introduced: v6.6..v6.7\n' |
	listlab_send "Lead <lead@example.org>" fwd-reg@example.org "" "Fwd: touchpad died"
printf 'The touchscreen died with 6.7.\n\n#regzbot introduced: v6.6..v6.7\n' |
	listlab_send "Lead <lead@example.org>" own-reg@example.org "" "touchscreen died"
check "sync after forwarded and Outlook-quoted commands" bb sync
is "none of them reached Bugzilla" "$(puts 405)" "0"
is "405 is still open" "$(field 405 status)" "CONFIRMED"
is "and keeps its title" "$(field 405 summary)" "iwlwifi: slow"
is "no answer: those mails have no command" "$(for i in 1 2 3 4 5 6; do answer "fwd-$i@example.org"; done | grep -c .)" "0"
is "a forwarded mail is kept in the comment, an Outlook quote is not" \
	"$(comments 405 | grep -c 'From: Mallory.*Subject: pwn')" "3"
is "a forwarded #regzbot directive tracks nothing" \
	"$(reg "select count(*) from reg_regression where report_msgid = 'fwd-reg@example.org'")" "0"
is "the sender's own directive does (the control)" \
	"$(reg "select count(*) from reg_regression where report_msgid = 'own-reg@example.org'")" "1"

# --- 8: refused tracks: answer_limit per sender, the bridge's subject -------

for i in 1 2 3 4 5 6; do
	printf 'Buy cheap pills at http://spam.example/%s today.\n\n#bugbridge track\n' "$i" |
		listlab_send "Mallory <mallory@example.net>" "t-$i@example.net" "" "CHEAP PILLS $i http://spam.example/"
done
check "sync after six refused tracks, each a thread of its own" bb -v sync
cp "$WORK/check.out" sync.log
answers=$(for i in 1 2 3 4 5 6; do answer "t-$i@example.net"; done)
is "answer_limit (4) answers go out for the sender, not six" "$(echo "$answers" | grep -c .)" "4"
like "the rest is logged" "$(cat sync.log)" "inbound.answer_limited.*from=mallory@example.net"
is "each answer has the bridge's subject" \
	"$(for f in $answers; do grep -m1 '^Subject:' "$f"; done | sort -u | tr -d '\r')" "Subject: bugbridge: your command"
is "none repeats the sender's subject or words" \
	"$(for f in $answers; do grep -ci 'pills\|spam\.example' "$f"; done | sort -u)" "0"
like "it quotes the command and says why" "$(flat "$(echo "$answers" | head -1)")" \
	"#bugbridge track~ +refused: the sender may not create bugs~"
is "no bug was created" "$(curl -sf "$bz/rest/bug?summary=PILLS&api_key=bridgekey0123" |
	python3 -c 'import json,sys; print(len(json.load(sys.stdin)["bugs"]))')" "0"

# and per thread: two senders, three refused tracks each (under their own
# limit), all in one list thread, get answer_limit answers between them
printf '#bugbridge track\n' |
	listlab_send "Trudy <trudy@example.net>" th-1@example.net "" "a thread"
for i in 2 3 4 5 6; do
	[ "$i" -le 3 ] && who="Trudy <trudy@example.net>" || who="Oscar <oscar@example.net>"
	printf '#bugbridge track\n' |
		listlab_send "$who" "th-$i@example.net" "th-$((i - 1))@example.net" "Re: a thread"
done
check "sync after six refused tracks in one thread" bb sync
is "the thread gets answer_limit (4) answers, not six" \
	"$(for i in 1 2 3 4 5 6; do answer "th-$i@example.net"; done | grep -c .)" "4"

done_testing
