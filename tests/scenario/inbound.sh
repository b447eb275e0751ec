#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# End to end, the inbound bridge: replies sent over SMTP to a real
# public-inbox list become comments in the fake Bugzilla, exactly once;
# commands act on the bug for allowed senders only, and only when the mail
# authenticates them (a DKIM signature aligned with From:, made by
# python3-dkim once per mail as it is sent, verified by bugbridge); the list
# lab is the receiving server "lists.lab" too, writing its own
# Authentication-Results; #bugbridge track turns a list thread into a bug.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/mailwork.sh"
. "$top_srcdir/tests/lib/listlab.sh"

listlab_start_dkim example.org example.net attacker.example

cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "editusers"]},
            {"login": "dev@example.org", "real_name": "Dev Eloper", "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "lead@example.org", "real_name": "Lead"}],
  "products": [{"name": "Drivers", "components": ["Wireless", "USB"]}],
  "bugs": [
    {"id": 201, "summary": "iwlwifi: firmware crash after resume", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Wi-Fi dies after every resume since 6.6.1."}]}
  ]
}
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
# comments BUG: the texts of the bug's comments, one JSON string per line
comments() {
	curl -sf "$bz/rest/bug/$1/comment?api_key=bridgekey0123" |
		python3 -c 'import json,sys; b=json.load(sys.stdin)["bugs"]; [print(json.dumps(c["text"])) for c in list(b.values())[0]["comments"]]'
}
field() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0][sys.argv[1]])' "$2"
}
archived() { ls "$WORK"/listlab/received/*.eml 2>/dev/null | wc -l; }


write_config <<EOF2
$(listlab_bridge_config)
[route wireless]
component = Wireless
lists = $LISTLAB_LIST
people = Wendy Maintainer <wendy@example.org>
$(listlab_dkim_config)
allow = Lead <lead@example.org>
allow_group = editbugs
track_product = Drivers
track_component = USB
reopen_status = CONFIRMED
attachments = bugzilla
answer_limit = 7
[blob]
base_url = http://blobs.test
EOF2

check "first sync: the bug goes to the list, the archive is read from its end" bb sync
raw=$(listlab_raw bug-201@bugbridge.test)
like "the bug's thread is in the archive" "$raw" "Subject: \[Bug 201\]"
is "Bugzilla has one comment" "$(comments 201 | wc -l)" "1"

printf 'Thanks, I can reproduce this.\n\nOn Thu, Ines wrote:\n> Wi-Fi dies after every resume since 6.6.1.\n\nCould you send the dmesg?\n\n-- \nWendy\n' |
	listlab_send "Wendy Maintainer <wendy@example.org>" reply-1@example.org bug-201@bugbridge.test \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
archived_before=$(archived)
check "sync after a reply on the list" bb sync
all=$(comments 201)
is "the reply became a comment" "$(printf '%s\n' "$all" | wc -l)" "2"
last=$(printf '%s\n' "$all" | tail -1)
like "attributed to its writer" "$last" "Wendy Maintainer replied on the list to the bug report"
like "with the reply's words" "$last" "Thanks, I can reproduce this"
like "and the words after the quote" "$last" "Could you send the dmesg"
like "with the quote kept for context" "$last" "> Wi-Fi dies after every resume"
unlike "without the signature" "$last" "Wendy\\\\n\$"
like "linking the archived mail" "$last" "$LISTLAB_URL/reply-1@example.org/"
check "another sync" bb sync
is "posts nothing twice" "$(comments 201 | wc -l)" "2"
is "and the bridge's own comment is not mailed back" "$(archived)" "$archived_before"

# In one poll: a mail naming a reply not archived yet, the reply, and an
# answer to the reply that names nothing else: once the reply is matched,
# its answer is matched through it (what the round remembered as unknown
# is forgotten when a Message-ID becomes known).
printf 'Answering a mail the archive does not have yet.\n' |
	listlab_send "Ines Reporter <ines@example.net>" chain-x@example.org chain-a@example.org \
		"Re: iwlwifi: firmware crash"
printf 'Same crash here with firmware 77.\n' |
	listlab_send "Wendy Maintainer <wendy@example.org>" chain-a@example.org reply-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
printf 'And here, on a second laptop.\n' |
	listlab_send "Other User <other@example.net>" chain-b@example.org chain-a@example.org \
		"Re: iwlwifi: firmware crash"
curl -sf -X POST -d '{}' "$bz/__admin/reset_log" >/dev/null
check "sync after a chain of replies" bb sync
# before posting each, the bridge looks for its comment on the bug (one a
# crash or an older backup forgot): all the bug's comments, asked once a
# round, not once a reply
is "the bug's comments were fetched whole once for both replies" \
	"$(curl -sf "$bz/__admin/log" | python3 -c '
import json, sys
print(sum(1 for e in json.load(sys.stdin)["requests"] if e["method"] == "GET" and
          e["path"] == "/rest/bug/201/comment" and "new_since" not in e["query"]))')" "1"
all=$(comments 201)
is "the reply and its answer became comments" "$(printf '%s\n' "$all" | wc -l)" "4"
like "the reply" "$(printf '%s\n' "$all" | sed -n 3p)" "Same crash here with firmware 77"
like "its answer, matched through the reply" "$(printf '%s\n' "$all" | sed -n 4p)" "on a second laptop"
archived_before=$(archived)

# Commands
printf 'Fixed by the firmware update.\n\n#bugbridge close\n#bugbridge title iwlwifi: firmware 77 crashes after resume\n' |
	listlab_send "Wendy Maintainer <wendy@example.org>" cmd-1@example.org bug-201@bugbridge.test \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after commands from the bug's maintainer" bb sync
is "close sets the status" "$(field 201 status)" "RESOLVED"
is "with the default resolution" "$(field 201 resolution)" "FIXED"
is "title sets the summary" "$(field 201 summary)" "iwlwifi: firmware 77 crashes after resume"
last=$(comments 201 | tail -1)
like "the mail's other words are a comment" "$last" "Fixed by the firmware update"
unlike "without the command lines" "$last" "#bugbridge"
# answer MSGID: the bridge's answer to that mail on the thread (its file)
answer() { grep -l "In-Reply-To: <$1>" "$WORK"/listlab/received/*.eml 2>/dev/null | xargs -r grep -l "X-Bugbridge-Loop"; }
# rcpt MSGID: the envelope recipients of the answer to that mail
rcpt() {
	f=$(answer "$1" | head -1)
	[ -n "$f" ] && python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["rcpt_tos"]))' "${f%.eml}.json"
}
a=$(answer cmd-1@example.org)
is "the commands get one answer on the thread" "$(echo "$a" | grep -c .)" "1"
# flat FILE: the file on one line, its line ends as ~
flat() { tr -d '\r' <"$1" | tr '\n' '~'; }
like "saying what became of each" "$(flat $a)" "#bugbridge close~ +done~ +#bugbridge title iwlwifi[^~]*~ +done~"
like "Cc'd to the authenticated sender" "$(cat $a)" "^Cc: .*wendy@example.org"
like "and sent to her" "$(rcpt cmd-1@example.org)" "wendy@example.org"
like "and to the list" "$(rcpt cmd-1@example.org)" "$LISTLAB_LIST"
unlike "quoting no other words" "$(cat $a)" "Fixed by the firmware update"

printf '#bugbridge reopen\n' |
	listlab_send "Mallory <mallory@example.net>" cmd-2@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after a command from a stranger" bb sync
is "the stranger's command is ignored" "$(field 201 status)" "RESOLVED"
is "and recorded as refused" "$(/usr/bin/python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select c.state from in_command c join in_mail m on m.id=c.mail where m.message_id=?", ("cmd-2@example.org",)).fetchone()[0])' data/bugbridge.db)" "refused"
like "the stranger (authenticated: signed by example.net) is told why on the thread" \
	"$(cat $(answer cmd-2@example.org))" "refused: the sender may not act on this bug"

# note MSGID: why the first command of that mail was refused
note() {
	/usr/bin/python3 -c 'import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute("select c.state, c.note from in_command c join in_mail m on m.id=c.mail where m.message_id=? order by c.seq", (sys.argv[2],)).fetchone(); print("%s: %s" % r if r else "none")' data/bugbridge.db "$1"
}
# Who may act: the allowed maintainer's address in From: is not enough
printf '#bugbridge reopen\n' |
	LISTLAB_DKIM_TAMPER=1 listlab_send "Wendy Maintainer <wendy@example.org>" cmd-3a@example.org \
		cmd-1@example.org "Re: [Bug 201] iwlwifi: firmware crash after resume"
printf '#bugbridge reopen\n' |
	LISTLAB_DKIM_AS=attacker.example listlab_send "Wendy Maintainer <wendy@example.org>" \
		cmd-3b@example.org cmd-1@example.org "Re: [Bug 201] iwlwifi: firmware crash after resume"
printf '#bugbridge reopen\n' |
	LISTLAB_DKIM_DIR= listlab_send "Wendy Maintainer <wendy@example.org>" cmd-3c@example.org \
		cmd-1@example.org "Re: [Bug 201] iwlwifi: firmware crash after resume"
printf '#bugbridge reopen\n' |
	LISTLAB_DKIM_TAMPER=1 listlab_send "Wendy Maintainer <wendy@example.org>" cmd-3@example.org \
		cmd-1@example.org "Re: [Bug 201] iwlwifi: firmware crash after resume" \
		"Authentication-Results: lists.lab; dmarc=pass (p=reject) header.from=example.org"
check "sync after commands that do not authenticate" bb -v sync
cp "$WORK/check.out" sync.log
is "none of them is obeyed" "$(field 201 status)" "RESOLVED"
like "body changed after signing: refused, with the reason" "$(note cmd-3a@example.org)" \
	"^refused: the sender is not authenticated: the DKIM signature of example.org does not verify .body hash mismatch."
like "d= of another domain: refused" "$(note cmd-3b@example.org)" \
	"^refused: .*the DKIM signature of attacker.example is not aligned with the From: domain example.org"
like "and the real server's dmarc says fail: its dkim=pass for that domain is not aligned with From:" \
	"$(note cmd-3b@example.org)" "lists.lab says dmarc=fail for example.org"
like "no signature: refused" "$(note cmd-3c@example.org)" "^refused: the sender is not authenticated: no DKIM signature"
like "a forged dmarc=pass below the server's real fail: refused" "$(note cmd-3@example.org)" \
	"^refused: .*does not verify.*lists.lab says dmarc=fail for example.org"
like "the forged header is logged as ignored" "$(cat sync.log)" "auth.results_ignored.*authserv_id=lists.lab"
like "refusals are logged with the reason" "$(cat sync.log)" "inbound.command_refused.*reason=.the sender is not authenticated"
is "and none of them gets mail: no answer on the thread, none to the sender" \
	"$(for id in cmd-3a cmd-3b cmd-3c cmd-3; do answer $id@example.org; done | grep -c .)" "0"

# The archive's history never acts: a signed command from the maintainer,
# dated before bugbridge first read the archive (as a backfill or a re-read
# would bring it), is refused.
printf '#bugbridge reopen\n' |
	listlab_send "Wendy Maintainer <wendy@example.org>" old-1@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume" "Date: Mon, 01 Jun 2026 10:00:00 +0000"
check "sync after a command from the archive's history" bb sync
is "a command in a mail from before the archive was first read does not act" "$(field 201 status)" "RESOLVED"
like "and is refused with the reason" "$(note old-1@example.org)" "^refused: the mail is from the archive's history"
is "without an answer" "$(answer old-1@example.org | grep -c .)" "0"

printf '#bugbridge frobnicate now\n#bugbridge reopen\n' |
	listlab_send "Lead <lead@example.org>" cmd-4@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after an unknown command" bb sync
is "the allowed sender's valid command acts" "$(field 201 status)" "CONFIRMED"
notice=$(answer cmd-4@example.org)
check "the unknown command gets a reply on the thread" test -n "$notice"
like "saying what was not understood" "$(flat "$notice")" "#bugbridge frobnicate now~ +not understood: "
like "and what was done" "$(flat "$notice")" "#bugbridge reopen~ +done~"
like "with the list of commands" "$(cat "$notice" 2>/dev/null)" "Commands, each on a line of its own"
like "  all of them (subscribe, needinfo, the digest's form)" "$(cat "$notice" 2>/dev/null)" \
	"#bugbridge subscribe +#bugbridge unsubscribe"

printf '#bugbridge reassign No Such Part\n' |
	listlab_send "Lead <lead@example.org>" cmd-5@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after a reassign to a component Bugzilla does not have" bb sync
like "the refusal is answered on the thread, with the product's components" "$(cat $(answer cmd-5@example.org))" \
	"refused: no component \"No Such Part\" in product \"Drivers\"; it has: "
printf '#bugbridge reassign USB\n#bugbridge assign me\n#bugbridge severity major\n' |
	listlab_send "Lead <lead@example.org>" cmd-6@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after reassign, assign and severity" bb sync
is "reassign moves the bug" "$(field 201 component)" "USB"
is "assign me takes it" "$(field 201 assigned_to)" "lead@example.org"
is "severity sets it" "$(field 201 severity)" "major"
is "a mail of commands only makes no comment" "$(comments 201 | grep -c 'reassign USB')" "0"

printf '#bugbridge severity critical\n' |
	listlab_send "Dev Eloper <dev@example.org>" cmd-7@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after a command from a member of allow_group" bb sync
is "a member of the group may act" "$(field 201 severity)" "critical"

# Answers quote only the command lines, each cut to 200 characters, and a
# thread gets at most answer_limit (7) of them an hour: cmd-1, cmd-2 and
# cmd-4 to cmd-7 had six (the unauthenticated and the history mails none),
# this is the seventh, the next one gets none.
long=$(printf 'x%.0s' $(seq 1 300))
printf 'Words of my own that an answer must not quote.\n\n#bugbridge frobnicate %s\n' "$long" |
	listlab_send "Lead <lead@example.org>" cmd-8@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after an overlong unknown command" bb sync
notice=$(answer cmd-8@example.org)
check "it is answered on the thread" test -n "$notice"
notice_text=$(cat "$notice" 2>/dev/null)
like "the line is quoted cut at 200 characters" "$notice_text" "^  #bugbridge frobnicate x{178}( \[\.\.\.\])?[[:space:]]*$"
unlike "not whole" "$notice_text" "x{179}"
unlike "and no other words of the mail" "$notice_text" "Words of my own"
printf '#bugbridge frobnicate again\n' |
	listlab_send "Lead <lead@example.org>" cmd-9@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after one command too many for the thread" bb -v sync
cp "$WORK/check.out" sync.log
is "past answer_limit the thread gets no answer" \
	"$(grep -l "In-Reply-To: <cmd-9@example.org>" "$WORK"/listlab/received/*.eml | wc -l)" "0"
like "which is logged" "$(cat sync.log)" "inbound.answer_limited.*bug=201"

# Backscatter: a thousand bad command lines under a forged From: get no
# mail to that address, and no answer on the thread either.
seq 1 1000 | sed 's/^/#bugbridge frobnicate /' |
	LISTLAB_DKIM_DIR= listlab_send "Victim <victim@example.net>" bs-1@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after a forged mail full of bad commands" bb sync
is "no mail goes to the forged sender" "$(/usr/bin/python3 -c '
import json, sys
print(sum("victim@example.net" in json.load(open(f))["rcpt_tos"] for f in sys.argv[1:]))' "$WORK"/listlab/received/*.json)" "0"
is "and no answer to the thread" "$(grep -l "In-Reply-To: <bs-1@example.org>" "$WORK"/listlab/received/*.eml | wc -l)" "0"
like "its commands are refused as unauthenticated" "$(note bs-1@example.org)" "^refused: the sender is not authenticated: no DKIM signature"

# A reply with an attachment: into the blob store, linked, and uploaded
random_bytes 3000 21 >fw.bin
fw_hash=$(sha256_of fw.bin)
/usr/bin/python3 - "$LISTLAB_SMTP_PORT" "$LISTLAB_LIST" <<'EOF2'
import smtplib, sys, email.utils
from email.message import EmailMessage
m = EmailMessage()
m["From"] = "Wendy Maintainer <wendy@example.org>"
m["To"] = sys.argv[2]
m["Subject"] = "Re: [Bug 201] iwlwifi: firmware crash after resume"
m["Date"] = email.utils.formatdate()
m["Message-ID"] = "<att-1@example.org>"
m["In-Reply-To"] = m["References"] = "<bug-201@bugbridge.test>"
m.set_content("The firmware image I tested with is attached.\n")
m.add_attachment(open("fw.bin", "rb").read(), maintype="application",
                 subtype="x-firmware", filename="iwlwifi-77.ucode")
with smtplib.SMTP("127.0.0.1", int(sys.argv[1])) as s:
    s.send_message(m)
EOF2
check "sync after a reply with an attachment" bb sync
last=$(comments 201 | tail -1)
like "the comment names the attachment" "$last" "Attachment: iwlwifi-77.ucode"
like "with its hash" "$last" "sha256:$fw_hash"
like "and its URL" "$last" "http://blobs.test/blob/sha256/$fw_hash/iwlwifi-77.ucode"
check "the blob store has the bytes" sh -c "'$BUGBRIDGE' blob get $fw_hash | cmp - fw.bin"
got=$(curl -sf "$bz/rest/bug/201/attachment?api_key=bridgekey0123" | python3 -c '
import json, sys, base64, hashlib
for a in list(json.load(sys.stdin)["bugs"].values())[0]:
    if a["file_name"] == "iwlwifi-77.ucode":
        print(hashlib.sha256(base64.b64decode(a["data"])).hexdigest(), a["summary"])')
like "and it was uploaded to the bug" "$got" "^$fw_hash iwlwifi-77.ucode .from the list mail <att-1@example.org>.$"
check "another sync" bb sync
is "uploads nothing twice" "$(curl -sf "$bz/rest/bug/201/attachment?api_key=bridgekey0123&exclude_fields=data" |
	python3 -c 'import json,sys; print(sum(a["file_name"] == "iwlwifi-77.ucode" for a in list(json.load(sys.stdin)["bugs"].values())[0]))')" "1"

# What is never posted
n=$(comments 201 | wc -l)
printf 'I am out of the office until Monday.\n' |
	listlab_send "Wendy Maintainer <wendy@example.org>" auto-1@example.org bug-201@bugbridge.test \
		"Out of office: [Bug 201]" "Auto-Submitted: auto-replied"
printf 'A mail that claims to come from the bridge.\n' |
	listlab_send "Bugzilla bridge <bridge@bugbridge.test>" loop-1@example.org bug-201@bugbridge.test \
		"Re: [Bug 201] loop" "X-Bugbridge-Loop: bugbridge.test"
check "sync after an auto-reply and a looped mail" bb sync
is "neither is posted" "$(comments 201 | wc -l)" "$n"

printf 'My mail client lost the thread, but this is about the bug.\n' |
	listlab_send "Ines Reporter <ines@example.net>" nothread-1@example.org "" \
		"[Bug 201] more details"
check "sync after a reply without threading headers" bb sync
like "[Bug N] in the subject still finds the bug" "$(comments 201 | tail -1)" "lost the thread"
# but a signed command found by its subject alone does not act: the
# signature covers the threading headers, not the subject
printf '#bugbridge severity minor\n' |
	listlab_send "Lead <lead@example.org>" nothread-2@example.org "" "[Bug 201] severity"
check "sync after a signed command outside the bug's thread" bb sync
is "it does not act" "$(field 201 severity)" "critical"
like "and is refused with the reason" "$(note nothread-2@example.org)" \
	"^refused: the mail is not in the bug's thread"

# Crash safety: a reply is posted exactly once, wherever the run stops.
for point in inbound.recorded inbound.post inbound.posted sync.committed; do
	n=$(comments 201 | wc -l)
	printf 'A reply while the bridge stops at %s.\n' "$point" |
		listlab_send "Wendy Maintainer <wendy@example.org>" "crash-$point@example.org" bug-201@bugbridge.test \
			"Re: [Bug 201] iwlwifi: firmware crash after resume"
	BUGBRIDGE_CRASH_AT=$point "$BUGBRIDGE" sync >/dev/null 2>&1
	check "sync after stopping at $point" bb sync
	bb sync >/dev/null 2>&1
	is "the reply is posted exactly once ($point)" \
		"$(comments 201 | grep -c "stops at $point")" "1"
	is "and nothing else was posted ($point)" "$(comments 201 | wc -l)" "$((n + 1))"
done

# #bugbridge track: a list thread becomes a bug
printf 'The hub at 1-1 resets every second since 6.7.\n' |
	listlab_send "Ines Reporter <ines@example.net>" usb-1@example.org "" "usb: hub resets in a loop"
printf 'Same here on a different board.\n' |
	listlab_send "Other User <other@example.net>" usb-2@example.org usb-1@example.org "Re: usb: hub resets in a loop"
printf 'Let us track this.\n\n#bugbridge track\n' |
	listlab_send "Lead <lead@example.org>" usb-3@example.org usb-2@example.org "Re: usb: hub resets in a loop"
check "sync after #bugbridge track" bb sync
new=$(curl -sf "$bz/rest/bug?summary=hub%20resets&api_key=bridgekey0123" |
	python3 -c 'import json,sys; b=json.load(sys.stdin)["bugs"]; print(b[0]["id"] if b else "")')
check "a bug was created from the thread" test -n "$new"
is "with the thread's subject" "$(field "$new" summary)" "usb: hub resets in a loop"
is "in the configured component" "$(field "$new" component)" "USB"
like "its description is the first mail" "$(comments "$new" | head -1)" "resets every second since 6.7"
like "the later mails are comments" "$(comments "$new" | sed -n 2p)" "Same here on a different board"
like "the track mail's words too" "$(comments "$new" | sed -n 3p)" "Let us track this"
is "nothing more" "$(comments "$new" | wc -l)" "3"
check "one more sync" bb sync
is "the new bug's comments are not mailed to the list as a second thread" \
	"$(grep -l "Same here on a different board" "$WORK"/listlab/received/*.eml | wc -l)" "1"
printf 'A later reply in the tracked thread.\n' |
	listlab_send "Other User <other@example.net>" usb-4@example.org usb-3@example.org "Re: usb: hub resets in a loop"
check "sync after a later reply" bb sync
like "later replies in the thread reach the new bug" "$(comments "$new" | tail -1)" "later reply in the tracked thread"
a=$(answer usb-3@example.org)
is "the track gets one answer, on the mail's own thread" "$(echo "$a" | grep -c .)" "1"
like "naming the new bug" "$(cat $a)" "done: this thread is bug $new now"
like "to its sender" "$(rcpt usb-3@example.org)" "lead@example.org"

# a crash while the bug is created: resumed, one bug and each comment once
for point in inbound.create inbound.created inbound.post inbound.posted; do
	printf 'Touchpad stops after suspend (%s).\n' "$point" |
		listlab_send "Ines Reporter <ines@example.net>" "tp-$point@example.org" "" "input: touchpad dead after suspend $point"
	printf 'Reproduced.\n\n#bugbridge track\n' |
		listlab_send "Lead <lead@example.org>" "tp-track-$point@example.org" "tp-$point@example.org" \
			"Re: input: touchpad dead after suspend $point"
	BUGBRIDGE_CRASH_AT=$point "$BUGBRIDGE" sync >/dev/null 2>&1
	check "sync after stopping at $point while tracking" bb sync
	ids=$(curl -sf "$bz/rest/bug?summary=suspend%20$point&api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(" ".join(str(b["id"]) for b in json.load(sys.stdin)["bugs"]))')
	is "one bug for the thread ($point)" "$(echo "$ids" | wc -w)" "1"
	is "with the description and one comment ($point)" "$(comments "$ids" | wc -l)" "2"
	is "and one answer ($point)" "$(answer "tp-track-$point@example.org" | grep -c .)" "1"
done

printf '#bugbridge track\n' |
	listlab_send "Mallory <mallory@example.net>" other-1@example.org "" "Please track my thread"
printf '#bugbridge track\n' |
	LISTLAB_DKIM_DIR= listlab_send "Lead <lead@example.org>" forged-track@example.org "" "Please track this too"
check "sync after a track from a stranger and a forged one" bb sync
is "creates no bug" "$(curl -sf "$bz/rest/bug?summary=track&api_key=bridgekey0123" |
	python3 -c 'import json,sys; print(len(json.load(sys.stdin)["bugs"]))')" "0"
a=$(answer other-1@example.org)
like "the (authenticated) stranger is told on the mail's own thread" "$(cat $a)" \
	"refused: the sender may not create bugs"
like "under the bridge's subject, not the sender's" "$(cat $a)" "Subject: bugbridge: your command"
like "sent to the list and the sender" "$(rcpt other-1@example.org)" "mallory@example.net"
is "the forged one gets no mail at all" "$(answer forged-track@example.org | grep -c .)" "0"

# A crash right after a reply is posted, before it is recorded: the next
# round's outbound pass sees the new comment first, and must not mail the
# list its own words back (it carries the list mail's Message-ID)
echo_before=$(grep -l "posted just before a crash" "$WORK"/listlab/received/*.eml 2>/dev/null | wc -l)
printf 'A reply posted just before a crash.\n' |
	listlab_send "Ines Reporter <ines@example.net>" crash-1@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
curl -sf -X POST --data-binary '{"advance": 60}' "$bz/__admin/clock" >/dev/null
BUGBRIDGE_CRASH_AT=inbound.posted "$BUGBRIDGE" sync >/dev/null 2>&1
curl -sf -X POST --data-binary '{"advance": 60}' "$bz/__admin/clock" >/dev/null
check "sync after a crash right after posting a reply" bb sync
check "and one more" bb sync
is "the reply is on the bug once" "$(comments 201 | grep -c 'posted just before a crash')" "1"
is "and the list got it once, from its sender: no echo" \
	"$(grep -l "posted just before a crash" "$WORK"/listlab/received/*.eml | wc -l)" "$((echo_before + 1))"

# One bad reply never blocks the others.  A reply longer than Bugzilla
# takes (65,535 characters: error 114) is posted cut, with a note, its
# archive link and marker kept; a reply Bugzilla refuses for good is
# recorded as refused with its words, and the round goes on.
python3 -c 'print("A very long trace follows.\n" + "trace line\n" * 9000, end="")' |
	listlab_send "Ines Reporter <ines@example.net>" long-1@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after a reply over Bugzilla's comment limit" bb sync
last=$(comments 201 | tail -1)
like "it is posted cut, with a note" "$last" "the reply is longer than Bugzilla takes"
like "keeping its archive link and marker" "$last" "Message-ID: <long-1@example.org>"
like "and linking the whole text in the blob store" "$last" "The whole text: http://blobs.test/blob/sha256/[0-9a-f]{64}/reply.txt"
whole=$(printf '%s' "$last" | grep -oE 'sha256:[0-9a-f]{64}' | tail -1 | cut -d: -f2)
is "which holds every line of it" "$(bb blob get "$whole" 2>/dev/null | grep -c '^trace line$')" "9000"
# (on the tracked bug's thread: bug 201's answers for this hour are used up)
curl -sf -X POST --data-binary '{"count": 1, "status": 400, "method": "POST",
	"path_prefix": "/rest/bug/'"$new"'/comment"}' "$bz/__admin/fail" >/dev/null
printf 'A reply Bugzilla will refuse.\n' |
	listlab_send "Ines Reporter <ines@example.net>" refused-1@example.org usb-3@example.org \
		"Re: usb: hub resets in a loop"
printf 'A reply after the refused one.\n' |
	listlab_send "Ines Reporter <ines@example.net>" after-1@example.org usb-3@example.org \
		"Re: usb: hub resets in a loop"
check "a reply Bugzilla refuses for good does not fail the round" bb sync
like "the reply after it is posted" "$(comments "$new" | tail -1)" "A reply after the refused one"
is "the refused one is recorded as refused" "$(/usr/bin/python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select state from in_mail where message_id=?", ("refused-1@example.org",)).fetchone()[0])' data/bugbridge.db)" "refused"
a=$(answer refused-1@example.org)
is "the sender learns it on the thread: one answer" "$(echo "$a" | grep -c .)" "1"
like "saying Bugzilla refused it" "$(flat "$a")" "could not post the mail above to bug $new:~~ +Bugzilla refused it: "
# a reply without commands has its sender checked by nobody (DKIM is
# verified only for mails with commands), so the answer goes to the list only
is "to the list, not to an unverified sender" "$(rcpt refused-1@example.org)" "$LISTLAB_LIST"
check "the next round does not try it again" bb sync
is "status counts it" "$(bb status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["archive"]["replies_refused"])')" "1"

# A temporary failure backs off that reply alone: Bugzilla failing for
# bug 201 (503, more than the client's retries) holds up no reply to the
# other bug; sync exits 75 (temporary); once the reply is due again (made
# due here instead of waiting its minute), it is posted, once
curl -sf -X POST --data-binary '{"count": 30, "status": 503, "method": "POST",
	"path_prefix": "/rest/bug/201/comment"}' "$bz/__admin/fail" >/dev/null
printf 'DEFER-ONE: a reply Bugzilla cannot take just now.\n' |
	listlab_send "Ines Reporter <ines@example.net>" defer-1@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
printf 'DEFER-TWO: a reply to the other bug.\n' |
	listlab_send "Ines Reporter <ines@example.net>" defer-2@example.org usb-3@example.org \
		"Re: usb: hub resets in a loop"
check_exit "sync with one bug failing for now exits 75" 75 bb sync
like "saying the reply is deferred" "$(cat "$WORK/check.out")" "1 reply deferred"
like "the other bug's reply is posted all the same" "$(comments "$new" | tail -1)" "DEFER-TWO"
is "the failing one is not, yet" "$(comments 201 | grep -c DEFER-ONE)" "0"
curl -sf -X POST --data-binary '{"clear": true}' "$bz/__admin/fail" >/dev/null
check "a sync before it is due" bb sync
is "does not try it" "$(comments 201 | grep -c DEFER-ONE)" "0"
/usr/bin/python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("update in_mail set next_attempt = 0 where message_id = ?", ("defer-1@example.org",)); c.commit()' data/bugbridge.db
check "a sync once it is due" bb sync
is "posts it once" "$(comments 201 | grep -c DEFER-ONE)" "1"
check "and another" bb sync
is "only once" "$(comments 201 | grep -c DEFER-ONE)" "1"

# #regzbot directives stay open to anyone (regzbot's model), but what an
# unauthenticated sender's directive did is marked so
printf 'Since 6.7 the card reader is gone.\n\n#regzbot introduced: v6.6..v6.7\n' |
	listlab_send "Wendy Maintainer <wendy@example.org>" reg-signed@example.org "" "[REGRESSION] card reader gone"
printf 'Since 6.7 the fan spins all the time.\n\n#regzbot introduced: v6.6..v6.7\n' |
	LISTLAB_DKIM_DIR= listlab_send "Wendy Maintainer <wendy@example.org>" reg-forged@example.org "" "[REGRESSION] fan always on"
check "sync after two regression reports, one signed, one not" bb sync
# regid TITLE-WORD: the id of the regression whose title has it
regid() { bb regressions --json | python3 -c 'import json,sys; print([r["id"] for r in json.load(sys.stdin)["regressions"] if sys.argv[1] in r["title"]][0])' "$1"; }
signed=$(regid "card reader")
forged=$(regid "fan always")
check "both are tracked" test -n "$signed" -a -n "$forged"
like "the unauthenticated sender's directive is marked in regressions show" \
	"$(bb regressions show "$forged")" "introduced.*\[sender not authenticated: no DKIM signature"
unlike "the authenticated one's is not" "$(bb regressions show "$signed")" "not authenticated"
is "and in the JSON" "$(bb regressions show --json "$forged" | python3 -c '
import json, sys
r = json.load(sys.stdin)
r = r.get("regression", r)
print(sorted({bool(e["sender_unverified"]) for e in r["history"] if e["message_id"] == "reg-forged@example.org"}))')" "[True]"
is "the signed one's history carries no mark" "$(bb regressions show --json "$signed" | python3 -c '
import json, sys
r = json.load(sys.stdin)
r = r.get("regression", r)
print(sorted({e["sender_unverified"] for e in r["history"]}))')" "['']"

# a directive mail of the archive's history (dated before its reading
# began) is not checked: a backfill would ask DNS for each one's key, of
# years ago; its directive is marked as not checked, even when signed
printf 'Since 6.5 the webcam is dark.\n\n#regzbot introduced: v6.4..v6.5\n' |
	listlab_send "Wendy Maintainer <wendy@example.org>" reg-old@example.org "" \
		"[REGRESSION] webcam dark" "Date: Mon, 01 Jun 2026 10:00:00 +0000"
check "sync after a signed regression report from the archive's history" \
	sh -c '"$BUGBRIDGE" --verbose sync >old-reg.log 2>&1'
old=$(regid "webcam dark")
check "it is tracked" test -n "$old"
is "its directive is marked as not checked" "$(bb regressions show --json "$old" | python3 -c '
import json, sys
r = json.load(sys.stdin)
r = r.get("regression", r)
print(sorted({e["sender_unverified"] for e in r["history"] if e["message_id"] == "reg-old@example.org"}))')" \
	"[\"not checked: the mail is from the archive's history\"]"
like "a live one's sender is checked and logged" "$(cat sync.log)" "inbound.sender_checked"
unlike "this one's is not" "$(grep 'reg-old@example.org' old-reg.log)" "sender_checked"

out=$(bb status --json)
is "status counts replies, commands and pending work" "$(printf '%s' "$out" | python3 -c '
import json, sys
a = json.load(sys.stdin)["archive"]
print(a["replies_posted"] > 5, a["commands_done"] >= 6, a["commands_refused"], a["pending"], a["value"].startswith("git:0:"))')" \
	"True True 43 0 True"
like "status shows the archive" "$(bb status)" "replies: +[0-9]+ posted"
is "status --json names each refusal's reason" "$(printf '%s' "$out" | python3 -c '
import json, sys
r = [x for x in json.load(sys.stdin)["archive"]["latest_refusals"] if x["message_id"] == "bs-1@example.org"][0]
print(r["reason"], "|", r["command"], "|", r["bug_id"], "|", r["from"])')" \
	"the sender is not authenticated: no DKIM signature; lists.lab says dmarc=fail for example.net | #bugbridge frobnicate 1 | 201 | victim@example.net"
like "and so does status" "$(bb status)" "<bs-1@example.org> from victim@example.net: #bugbridge frobnicate 1"

# each kind of mail this scenario sends was read once (tests/lib/mailwork.sh)
mailwork_seen "plain replies to a bug were handled" \
	'/ bug=[1-9]/ && / commands=0 / && / directive=0 / && / track=0 /'
mailwork_seen "replies with commands were handled" '/ bug=[1-9]/ && !/ commands=0 /'
mailwork_seen "#bugbridge track mails were handled" '/ track=1 /'
mailwork_seen "mails read for their commands, then for a bug, had their attachments decoded after their text" \
	'/ bug=[1-9]/ && / decodes=1 wholes=0 attachments=1 /'
mailwork_once

done_testing
