#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Following and leaving one bug by mail (issue 37, item 2): "#bugbridge
# subscribe" from an authenticated sender on a bug's thread Cc's the
# sender on the bug's next mails and puts the address on Bugzilla's CC
# list; "#bugbridge unsubscribe" (or "uncc") takes it off both, also when
# the bridge Cc'd it itself (the route's person, a culprit's author, the
# reporter) and keeps it off.  An unauthenticated sender's command is
# refused and never answered.  Bugzilla's refusal (strict_isolation: the
# person cannot edit the product) and an address without an account are
# said in the answer.  [mail] cc_reporter asks the reporter once, in a
# mail of their own; the reporter is Cc'd only after answering with
# subscribe.  A run killed after Bugzilla's change, before its record,
# acts once.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

command -v git >/dev/null 2>&1 || skip_all "git is not installed"
listlab_start_dkim example.org example.net example.com

export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.org \
	GIT_COMMITTER_NAME=Dev GIT_COMMITTER_EMAIL=dev@example.org
git init -q -b master linux
g() { git -C "$WORK/linux" "$@"; }
g commit -q --allow-empty -m "Linux 6.7"
GIT_AUTHOR_NAME="Carl Culprit" GIT_AUTHOR_EMAIL=carl@example.org \
g commit -q --allow-empty -m "wifi: iwlwifi: load the new firmware first

Signed-off-by: Carl Culprit <carl@example.org>
Reviewed-by: Rita Reviewer <rita@example.org>"
culprit=$(g rev-parse --short=12 HEAD)
g commit -q --allow-empty -m "Linux 6.8"

cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "params": {"strict_isolation": true},
  "groups": [{"name": "drivers-devs", "description": "may edit Drivers"}],
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "drivers-devs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter", "groups": ["drivers-devs"]},
            {"login": "lead@example.org", "real_name": "Lead", "groups": ["drivers-devs"]},
            {"login": "fan@example.com", "real_name": "Fan", "groups": ["drivers-devs"]},
            {"login": "outsider@example.com", "real_name": "Outsider"},
            {"login": "eve@unsigned.test", "real_name": "Eve", "groups": ["drivers-devs"]}],
  "products": [{"name": "Drivers", "components": ["Wireless"], "canedit_groups": ["drivers-devs"]}],
  "bugs": [
    {"id": 701, "summary": "iwlwifi: firmware crash after resume", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z", "description": "Wi-Fi dies after resume."},
    {"id": 702, "summary": "iwlwifi: scan fails", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z", "description": "No networks found."},
    {"id": 703, "summary": "iwlwifi: filed by mail", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "bridge@example.org",
     "url": "mid:filed-1@example.net",
     "creation_time": "2026-12-03T08:00:00Z", "description": "Filed at the submit box."}
  ]
}
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
# bz_cc BUG: Bugzilla's CC list of the bug, sorted, space-separated
bz_cc() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin)["bugs"][0]["cc"])))'
}
# last_cc BUG: the Cc: header of the bug's newest comment mail (lower case,
# one space between entries) and, after " // ", its envelope recipients
last_cc() {
	/usr/bin/python3 - "$WORK/data/bugbridge.db" "$1" <<'EOF2'
import email, sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute(
    "select message, recipients from outbox where bug_id = ? and comment_id is not null"
    " order by id desc limit 1", (int(sys.argv[2]),)).fetchone()
m = email.message_from_bytes(bytes(r[0]))
print(" ".join((m["Cc"] or "").split()).lower(), "//", r[1])
EOF2
}
# answer MSGID: the bridge's answer to that mail (its file); flat: on one line
answer() { grep -l "In-Reply-To: <$1>" "$WORK"/listlab/received/*.eml 2>/dev/null | xargs -r grep -l "X-Bugbridge-Loop"; }
flat() { tr -d '\r' <"$1" | tr '\n' '~'; }
# say FROM BUG MSGID [PARENT] <BODY: FROM's mail on the bug's thread
say() {
	listlab_send "$1" "$3" "${4:-bug-$2@bugbridge.test}" "Re: [Bug $2] iwlwifi"
}
# comment BUG TEXT: a new comment in Bugzilla, ten minutes on
comment() {
	admin clock '{"advance": 600}'
	admin comment "{\"bug_id\": $1, \"creator\": \"lead@example.org\", \"text\": \"$2\"}"
}

write_config <<EOF2
$(listlab_bridge_config --mail "cc_reporter = true")
[route wireless]
component = Wireless
lists = $LISTLAB_LIST
people = Max Maintainer <max@example.org>
$(listlab_dkim_config)
allow = Lead <lead@example.org>
answer_limit = 100
[tree mainline]
path = $WORK/linux
ref = master
EOF2

check "first sync: the bugs go to the list" bb sync
# bug 704 as the front door files it: its fd_report row names the reporter
check "the front door's report is recorded" /usr/bin/python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("insert into fd_report (token, email, title, description, state, bug_id, created)"
           " values (?, ?, ?, ?, ?, ?, ?)", ("t0", "webby@example.net", "filed on the front door",
           "Filed on the web form.", "sent", 704, 1))
db.commit()' "$WORK/data/bugbridge.db"
admin bug '{"id": 704, "summary": "iwlwifi: filed on the front door", "product": "Drivers", "component": "Wireless", "status": "CONFIRMED", "creator": "bridge@example.org", "creation_time": "2026-12-03T08:00:00Z", "description": "Filed on the web form."}'
check "sync: the front door's bug goes to the list" bb sync
is "the reporter of a bug filed on the front door is asked, not the bridge's account" \
	"$(reg "select recipients from outbox where message_id = 'bug-704-r3000000000000@bugbridge.test'")" "webby@example.net"
is "the sender of a bug filed at the submit box is not asked (answered there)" \
	"$(reg "select count(*) from outbox where message_id = 'bug-703-r3000000000000@bugbridge.test'")" "0"
is "the bridge's own account is never asked" "$(reg "select count(*) from outbox where recipients like '%bridge@example.org%'")" "0"
ask=bug-701-r3000000000000@bugbridge.test
is "the reporter is asked once, in a mail to the reporter alone" \
	"$(reg "select recipients from outbox where message_id = '$ask'")" "ines@example.net"
like "it says how to be Cc'd" "$(reg "select cast(message as text) from outbox where message_id = '$ask'" | tr '\n' '~')" \
	"reply to the thread, sending your reply to $LISTLAB_LIST~from this address \\(ines@example.net\\), with this line of its own:~~  #bugbridge subscribe~"
like "it answers the bug's thread" "$(reg "select cast(message as text) from outbox where message_id = '$ask'")" \
	"In-Reply-To: <bug-701@bugbridge.test>"
is "the report mails do not reach the reporter" \
	"$(reg "select count(*) from outbox where bug_id in (701, 702) and message_id not like '%-r3000000000000@%' and recipients like '%ines@%'")" "0"
is "the reporter is recorded as asked" "$(reg "select state from follow where bug_id = 701 and address = 'ines@example.net'")" "asked"

comment 701 "Any logs?"
check "sync after a comment" bb sync
like "the comment's mail is Cc'd to the route's person" "$(last_cc 701)" "max maintainer <max@example.org>"
unlike "not to the reporter, who has not answered" "$(last_cc 701)" "ines@"
is "and the reporter is not asked again" "$(reg "select count(*) from outbox where message_id like '%-r3000000000000@%'")" "3"

# the commands: the reporter consents in reply to the question; others
# follow or leave
printf 'Yes please.\n\n#bugbridge subscribe\n' | say "Ines Reporter <ines@example.net>" 701 ines-1@example.net "$ask"
printf '#bugbridge subscribe\n' | say "Fan <fan@example.com>" 701 fan-1@example.com
printf '#bugbridge subscribe\n' | say "Outsider <outsider@example.com>" 701 out-1@example.com
printf '#bugbridge subscribe\n' | say "No Account <noacct@example.com>" 701 noacct-1@example.com
printf '#bugbridge subscribe\n' | say "Eve <eve@unsigned.test>" 701 eve-1@unsigned.test
printf 'Not mine.\n#bugbridge uncc\n' | say "Max Maintainer <max@example.org>" 701 max-1@example.org
printf '#bugbridge unsubscribe\n' | say "Carl Culprit <carl@example.org>" 702 carl-1@example.org
check "a sync reads the commands" bb sync

a=$(answer ines-1@example.net)
is "the reporter's subscribe is answered once" "$(echo "$a" | grep -c .)" "1"
like "done: Cc'd, and on Bugzilla's CC list" "$(flat "$a")" \
	"#bugbridge subscribe~ +Cc'd on this bug's mails from now on, ines@example.net; and on Bugzilla's CC list~"
like "the answer is Cc'd to the sender" "$(cat "$a")" "^Cc: .*ines@example.net"
a=$(answer fan-1@example.com)
like "anyone authenticated may follow a bug" "$(flat "$a")" \
	"#bugbridge subscribe~ +Cc'd on this bug's mails from now on, fan@example.com; and on Bugzilla's CC list~"
a=$(answer out-1@example.com)
like "Bugzilla's refusal of the CC add is said" "$(flat "$a")" \
	"#bugbridge subscribe~ +Cc'd on this bug's mails from now on, outsider@example.com; Bugzilla refused to add this address to its CC list: Bugzilla error 504 \\(HTTP 401\\): User 'outsider@example.com' is not able to edit the 'Drivers' Product, and so cannot be involved with bug 701\\."
a=$(answer noacct-1@example.com)
like "an address without an account: the mails only" "$(flat "$a")" \
	"#bugbridge subscribe~ +Cc'd on this bug's mails from now on, noacct@example.com; no Bugzilla account has this address, so Bugzilla's CC list is as it was~"
a=$(answer max-1@example.org)
like "uncc is unsubscribe" "$(flat "$a")" \
	"#bugbridge uncc~ +off this bug's mails from now on, max@example.org; no Bugzilla account has this address, so Bugzilla's CC list is as it was~"
a=$(answer carl-1@example.org)
like "leaving a bug nobody Cc'd you on yet" "$(flat "$a")" "#bugbridge unsubscribe~ +off this bug's mails from now on, carl@example.org"
is "the unauthenticated subscribe is refused" \
	"$(reg "select c.state from in_command c join in_mail m on m.id = c.mail where m.message_id = 'eve-1@unsigned.test'")" "refused"
is "and never answered" "$(answer eve-1@unsigned.test | grep -c .)" "0"
is "nothing ever goes to that sender" "$(reg "select count(*) from outbox where recipients like '%eve@%'")" "0"
is "Bugzilla's CC list: the two it took" "$(bz_cc 701)" "fan@example.com ines@example.net"

comment 701 "Try this patch."
admin bug "{\"id\": 702, \"merge\": true, \"cf_bisect_commit\": \"$culprit\"}"
comment 702 "Bisected."
check "sync after new comments" bb sync
cc=$(last_cc 701)
for who in ines@example.net fan@example.com outsider@example.com noacct@example.com; do
	like "the next mail is Cc'd to $who" "${cc%% //*}" "(^|, )$who(,|\$)"
	like "and sent to $who" "${cc##*// }" "(^|, )$who(,|\$)"
done
unlike "not to the one who left the route's Cc" "$cc" "max@"
unlike "not to the unauthenticated sender" "$cc" "eve@"
cc=$(last_cc 702)
like "the culprit's reviewer is Cc'd on the bisected bug" "$cc" "rita@example.org"
unlike "its author, who left the bug, is not" "$cc" "carl@"

# leaving: the subscribers, the reporter among them; a crash between
# Bugzilla's change and its record acts once
printf '#bugbridge uncc\n' | say "Fan <fan@example.com>" 701 fan-2@example.com
printf '#bugbridge unsubscribe\n' | say "Ines Reporter <ines@example.net>" 701 ines-2@example.net
BUGBRIDGE_CRASH_AT=follow.bugzilla "$BUGBRIDGE" --quiet sync >crash.log 2>&1
is "a sync killed after Bugzilla's CC change" "$?" "137"
is "the command is not recorded done" \
	"$(reg "select c.state from in_command c join in_mail m on m.id = c.mail where m.message_id = 'fan-2@example.com'")" "intent"
check "the next sync finishes it" bb sync
is "Bugzilla's CC list is empty again" "$(bz_cc 701)" ""
is "each leaving is recorded once" "$(reg "select group_concat(address || '=' || state, ' ') from (select * from follow where bug_id = 701 order by address)")" \
	"fan@example.com=out ines@example.net=out max@example.org=out noacct@example.com=in outsider@example.com=in"
is "and answered once" "$(answer fan-2@example.com | grep -c .)/$(answer ines-2@example.net | grep -c .)" "1/1"
like "the reporter left" "$(flat "$(answer ines-2@example.net)")" \
	"#bugbridge unsubscribe~ +off this bug's mails from now on, ines@example.net; and off Bugzilla's CC list~"
comment 701 "Fixed in next."
check "sync after another comment" bb sync
cc=$(last_cc 701)
unlike "the next mail is not Cc'd to the one who left" "$cc" "fan@"
unlike "nor to the reporter" "$cc" "ines@"
like "the others still are" "$cc" "noacct@example.com"
is "the reporter was asked once in all" "$(reg "select count(*) from outbox where message_id like 'bug-701-r3000000000000@%'")" "1"

# the answers' other outcomes: a subscribe that only its subject puts on
# the bug is refused, and said; a bridge account that may not edit the bug
# cannot take another person off Bugzilla's CC list (stock 5.2's
# cc_remove_denied): the mails stop, the answer says Bugzilla refused
printf '#bugbridge subscribe\n' |
	listlab_send "Fan <fan@example.com>" fan-3@example.com "" "Re: [Bug 701] iwlwifi"
admin user '{"login": "gus@example.com", "real_name": "Gus", "groups": ["drivers-devs"]}'
printf '#bugbridge subscribe\n' | say "Gus <gus@example.com>" 701 gus-1@example.com
check "sync after a subject-only subscribe and Gus's" bb sync
like "the subject-only subscribe is refused on the thread" "$(flat "$(answer fan-3@example.com)")" \
	"#bugbridge subscribe~ +refused: the mail is not in the bug's thread"
is "Gus is on Bugzilla's CC list" "$(bz_cc 701)" "gus@example.com"
admin user '{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123", "groups": ["drivers-devs"]}'
printf '#bugbridge unsubscribe\n' | say "Gus <gus@example.com>" 701 gus-2@example.com
check "sync after Gus leaves, the bridge without editbugs" bb sync
like "Bugzilla's refusal to take him off is said" "$(flat "$(answer gus-2@example.com)")" \
	"#bugbridge unsubscribe~ +off this bug's mails from now on, gus@example.com; Bugzilla refused to take this address off its CC list: .*You do not have permission to remove other people from the CC list\\."
is "Bugzilla's CC list still has him" "$(bz_cc 701)" "gus@example.com"
is "the mails do not" "$(reg "select state from follow where bug_id = 701 and address = 'gus@example.com'")" "out"

# the needinfo question goes to the bug's followers as its other mails
# do: Cc'd (and in the SMTP envelope) to those who follow, not to those
# who left; the reporter asked is in the envelope only
printf '#bugbridge needinfo reporter Does it still happen on 6.8?\n' | say "Lead <lead@example.org>" 701 lead-ni@example.org
check "sync after a needinfo question" bb sync
q=$(grep -liE "^Message-ID: <bug-701-r1[0-9]{12}@bugbridge.test>" "$WORK"/listlab/received/*.eml | head -1)
is "the question is delivered once" "$(grep -liE "^Message-ID: <bug-701-r1[0-9]{12}@bugbridge.test>" "$WORK"/listlab/received/*.eml | wc -l)" "1"
hdr=$(sed '/^\r*$/q' "$q" | tr -d '\r' | sed -n '/^Cc:/,/^[^ \t]/p' | tr '\n' ' ')
rcpt=$(python3 -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1]))["rcpt_tos"])))' "${q%.eml}.json")
for who in noacct@example.com outsider@example.com; do
	like "the question is Cc'd to $who, who follows the bug" "$hdr" "$who"
	like "and sent to $who" " $rcpt " " $who "
done
for who in max@example.org fan@example.com gus@example.com; do
	unlike "not Cc'd to $who, who left it" "$hdr" "$who"
	unlike "nor sent to $who" "$rcpt" "$who"
done
like "the reporter asked is in the envelope" " $rcpt " " ines@example.net "
unlike "not in the headers" "$hdr" "ines@"

done_testing
