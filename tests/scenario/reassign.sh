#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Handing a bug over by mail (issue 37, items 3 and 4): "#bugbridge
# reassign <product>/<component>", a route or MAINTAINERS section name, or
# a component moves the bug in Bugzilla (product and component); when the
# re-computed route gives other lists, the new list gets one hand-over
# mail (who, why, the content routing suggestion when it differs, the
# report and the public comments), with a Message-ID of the bug and its
# hand-over number, the old thread a one-line pointer, and later mails of
# the bug answer the hand-over mail.  An unknown product or component is
# refused, the answer listing the legal ones; an unauthenticated sender's
# reassign is refused and never answered.  Killed (SIGKILL) after the
# hand-over is recorded, after Bugzilla's change and after the mails are
# queued, the next run mails the hand-over and the pointer once each.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

listlab_start_dkim example.org example.net example.com

bug() {
	printf '{"id": %s, "summary": "iwlwifi: bug %s", "product": "Drivers", "component": "Wireless",
	  "status": "CONFIRMED", "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
	  "description": "Wi-Fi dies after resume (bug %s)."}' "$1" "$1" "$1"
}
cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "lead@example.org", "real_name": "Lead"}],
  "params": {"usetargetmilestone": "1"},
  "products": [{"name": "Drivers", "components": ["Wireless", "USB"], "milestones": ["---", "6.9"]},
               {"name": "Net", "components": ["Ethernet", "Core"]}],
  "bugs": [$(bug 801), $(bug 802), $(bug 803), $(bug 804), $(bug 805), $(bug 806),
           $(bug 807 | sed 's/"product"/"version": "6.8", "product"/'),
           $(bug 808 | sed 's/"product"/"target_milestone": "6.9", "product"/')]
}
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
field() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0][sys.argv[1]])' "$2"
}
# sent MSGID-GLOB: the files of the SMTP sink's mails of that Message-ID
sent() { grep -liE "^Message-ID: <$1>" "$WORK"/listlab/received/*.eml 2>/dev/null; }
# rcpt FILE: the RCPT TO of a mail of the sink, sorted
rcpt() { python3 -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1]))["rcpt_tos"])))' "${1%.eml}.json"; }
hand() { sent "bug-$1-r40000000000$2@bugbridge.test" | grep -c .; }
pointer() { sent "bug-$1-r40000000000$(($2 + 1))@bugbridge.test" | grep -c .; }
answer() { grep -l "In-Reply-To: <$1>" "$WORK"/listlab/received/*.eml 2>/dev/null | xargs -r grep -l "X-Bugbridge-Loop"; }
flat() { tr -d '\r' <"$1" | tr '\n' '~'; }
say() { listlab_send "$1" "$3" "bug-$2@bugbridge.test" "Re: [Bug $2] iwlwifi"; }

printf 'USB SUBSYSTEM\nM:\tGreg <greg@example.org>\nL:\tusb@lists.lab\nS:\tSupported\nF:\tdrivers/usb/\n' >MAINTAINERS
write_config <<EOF2
$(listlab_bridge_config --products "Drivers, Net")
maintainers_file = $WORK/MAINTAINERS
[route wireless]
product = Drivers
component = Wireless
lists = $LISTLAB_LIST
[route usb]
product = Drivers
component = USB
lists = usb@lists.lab
maintainers_section = USB SUBSYSTEM
[route ethernet]
product = Net
component = Ethernet
lists = netdev@lists.lab
people = Nick Netdev <nick@example.org>
$(listlab_dkim_config)
allow = Lead <lead@example.org>
answer_limit = 100
EOF2

check "first sync: the bugs go to the list" bb sync
admin comment '{"bug_id": 801, "creator": "lead@example.org", "text": "Seen on the e1000e too, so not Wi-Fi."}'
admin comment '{"bug_id": 801, "creator": "lead@example.org", "text": "A private note.", "is_private": true}'
check "a sync mails the comments" bb sync
# content routing's suggestion for bug 801, as [routing] by_content records it
check "content routing's suggestion is recorded" /usr/bin/python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("insert into bug_content_route (bug_id, section, chosen) values (801, ?, 1)",
           ("INTEL ETHERNET DRIVERS",))
db.commit()' "$WORK/data/bugbridge.db"

printf 'It is the wired driver: the trace is in e1000e_poll.\n\n#bugbridge reassign Net/Ethernet\n' |
	say "Lead <lead@example.org>" 801 lead-1@example.org
printf '#bugbridge reassign Drivers/Bluetooth\n#bugbridge reassign NoSuch/Thing\n' |
	say "Lead <lead@example.org>" 802 lead-2@example.org
printf '#bugbridge reassign Net/Core\n' | say "Eve <eve@unsigned.test>" 802 eve-1@unsigned.test
check "a sync reads the commands" bb sync

is "bug 801 is in Net/Ethernet" "$(field 801 product)/$(field 801 component)" "Net/Ethernet"
h=$(sent 'bug-801-r4000000000010@bugbridge.test')
is "one hand-over mail, numbered by bug and hand-over" "$(echo "$h" | grep -c .)" "1"
is "to the new list and its route's person" "$(rcpt "$h")" "netdev@lists.lab nick@example.org"
hdr=$(sed '/^\r*$/q' "$h" | tr -d '\r')
unlike "a thread of its own" "$hdr" "In-Reply-To:"
like "under the bug's subject" "$hdr" "Subject: \\[Bug 801\\] iwlwifi: bug 801"
body=$(flat "$h")
like "it says who handed it over, from where" "$body" \
	"Bug 801 \\(Net/Ethernet\\) is handed over to this list by lead@example.org,~from $LISTLAB_LIST:~~  #bugbridge reassign Net/Ethernet"
like "and why, in the mail's words" "$body" "Why, in the words of lead@example.org:~~  It is the wired driver: the trace is in e1000e_poll\\.~~Content routing suggested"
like "content routing's other suggestion is named" "$body" "section \"INTEL ETHERNET DRIVERS\""
like "the report" "$body" "The report, by .*Wi-Fi dies after resume \\(bug 801\\)\\."
like "the public comments, summarised" "$body" "Its 1 public comment,.*Comment #1 by .*Seen on the e1000e too, so not Wi-Fi\\."
unlike "not the private one" "$body" "A private note"
p=$(sent 'bug-801-r4000000000011@bugbridge.test')
is "one pointer on the old thread" "$(echo "$p" | grep -c .)" "1"
is "to the old list" "$(rcpt "$p")" "$LISTLAB_LIST"
like "in the old thread" "$(tr -d '\r' <"$p")" "In-Reply-To: <bug-801@bugbridge.test>"
like "one line: where, by whom, which mail" "$(flat "$p")" \
	"Bug 801 handed over to netdev@lists.lab by lead@example.org: <bug-801-r4000000000010@bugbridge.test>~"
like "the command's answer says it" "$(flat "$(answer lead-1@example.org)")" \
	"#bugbridge reassign Net/Ethernet~ +moved to Net/Ethernet, handed over to netdev@lists.lab~"

a=$(flat "$(answer lead-2@example.org)")
like "an unknown component is refused, listing the product's" "$a" \
	"#bugbridge reassign Drivers/Bluetooth~ +refused: no component \"Bluetooth\" in product \"Drivers\"; it has: Wireless, USB~"
like "an unknown product is refused, listing the products" "$a" \
	"#bugbridge reassign NoSuch/Thing~ +refused: no product \"NoSuch\" on this Bugzilla; the products mirrored here: Drivers, Net~"
is "bug 802 stays" "$(field 802 product)/$(field 802 component)" "Drivers/Wireless"
is "an unauthenticated reassign is refused" \
	"$(reg "select c.state from in_command c join in_mail m on m.id = c.mail where m.message_id = 'eve-1@unsigned.test'")" "refused"
is "and never answered" "$(answer eve-1@unsigned.test | grep -c .)" "0"
is "nothing goes to its sender" "$(reg "select count(*) from outbox where recipients like '%eve@%'")" "0"

# later mails of the bug: on the new list, under the hand-over mail
admin clock '{"advance": 600}'
admin comment '{"bug_id": 801, "creator": "lead@example.org", "text": "Patch posted."}'
check "a sync after a new comment" bb sync
c=$(grep -l "Patch posted" "$WORK"/listlab/received/*.eml | head -1)
is "the comment goes to the new list" "$(rcpt "$c")" "netdev@lists.lab nick@example.org"
like "under the hand-over mail" "$(tr -d '\r' <"$c")" "References: .*<bug-801-r4000000000010@bugbridge.test>"
is "still one hand-over and one pointer" "$(hand 801 10)/$(pointer 801 10)" "1/1"
is "no change notice after it: the hand-over mail said the move" \
	"$(sent 'bug-801-u[0-9]*@bugbridge.test' | grep -c .)" "0"

# a route's name, to a list of the same product; and the same once more;
# a move whose route keeps the lists (Net/Core: [routing] default_lists)
printf '#bugbridge reassign usb subsystem\n' | say "Lead <lead@example.org>" 802 lead-3@example.org
printf '#bugbridge reassign net/core\n' | say "Lead <lead@example.org>" 806 lead-6@example.org
printf '#bugbridge reassign Net/Ethernet\n' | say "Lead <lead@example.org>" 807 lead-7@example.org
printf '#bugbridge reassign Net/Ethernet\n' | say "Lead <lead@example.org>" 808 lead-8@example.org
check "a sync reads a reassign by section name" bb sync
is "bug 806 is in Net/Core" "$(field 806 product)/$(field 806 component)" "Net/Core"
like "the answer says its mails still go to the same list" "$(flat "$(answer lead-6@example.org)")" \
	"#bugbridge reassign net/core~ +moved to Net/Core; its mails still go to $LISTLAB_LIST~"
is "no hand-over, no pointer" "$(sent 'bug-806-r4[0-9]*@bugbridge.test' | grep -c .)" "0"
like "the list hears of the move from the change notice" \
	"$(flat "$(sent 'bug-806-u[0-9]*@bugbridge.test')")" "Product: Drivers → Net~Component: Wireless → Core~"
# a stock 5.2 moves a bug only to a product that has its version
is "bug 807 (version 6.8, which Net lacks) is in Net/Ethernet" \
	"$(field 807 product)/$(field 807 component)/$(field 807 version)" "Net/Ethernet/unspecified"
like "the answer says the version changed" "$(flat "$(answer lead-7@example.org)")" \
	"#bugbridge reassign Net/Ethernet~ +moved to Net/Ethernet \\(version unspecified: Net has no 6.8\\), handed over to netdev@lists.lab~"
# with usetargetmilestone on, only to a product that has its milestone
is "bug 808 (milestone 6.9, which Net lacks) is in Net/Ethernet" \
	"$(field 808 product)/$(field 808 component)/$(field 808 target_milestone)" "Net/Ethernet/---"
like "the answer says the milestone changed" "$(flat "$(answer lead-8@example.org)")" \
	"#bugbridge reassign Net/Ethernet~ +moved to Net/Ethernet \\(target milestone ---: Net has no 6.9\\), handed over to netdev@lists.lab~"
is "bug 802 is in Drivers/USB" "$(field 802 product)/$(field 802 component)" "Drivers/USB"
is "handed over to usb@ and the section's maintainer" "$(rcpt "$(sent 'bug-802-r4000000000010@bugbridge.test')")" "greg@example.org usb@lists.lab"
printf '#bugbridge reassign Drivers/usb\n' | say "Lead <lead@example.org>" 802 lead-4@example.org
check "a sync reads a reassign where it is" bb sync
like "already there: said, nothing mailed" "$(flat "$(answer lead-4@example.org)")" \
	"#bugbridge reassign Drivers/usb~ +already in Drivers/USB~"
is "no second hand-over" "$(sent 'bug-802-r40000000000[2-9]0@bugbridge.test' | grep -c .)" "0"

# killed at each step of a hand-over, then run to the end: once each
for step in handover.pending handover.bugzilla handover.done; do
	case $step in
	handover.pending) b=803 ;; handover.bugzilla) b=804 ;; *) b=805 ;;
	esac
	printf '#bugbridge reassign Net/Ethernet\n' | say "Lead <lead@example.org>" $b lead-$b@example.org
	BUGBRIDGE_CRASH_AT=$step "$BUGBRIDGE" --quiet sync >crash.log 2>&1
	is "a sync killed at $step" "$?" "137"
	check "the next sync after $step" bb --quiet sync
	is "after $step: one hand-over, one pointer" "$(hand $b 10)/$(pointer $b 10)" "1/1"
	is "after $step: the bug moved" "$(field $b product)/$(field $b component)" "Net/Ethernet"
	is "after $step: answered once" "$(answer lead-$b@example.org | grep -c .)" "1"
done
is "no change notice for a bug handed over, killed or not" \
	"$(sent 'bug-80[2-5]-u[0-9]*@bugbridge.test' | grep -c .)" "0"
is "no mail went out twice" \
	"$(cat "$WORK"/listlab/received/*.eml | grep -i "^Message-ID:" | sort | uniq -d | wc -l)" "0"

done_testing
