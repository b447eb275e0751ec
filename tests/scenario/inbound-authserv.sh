#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# [inbound] authenticate = authserv, end to end, against a receiving server
# laid out as vger's mail reaches lore (tests/lib/listlab.py --authserv-id):
# two "Received: ... by lists.lab" hops, its dmarc= and spf= results below
# the delivery hop, dkim= only in ARC-Authentication-Results, and whatever
# Authentication-Results a sender wrote left in place.  The server's
# dmarc=pass authenticates a command only with the author's DKIM signature
# fit for commands; a result a sender put on top of its mail is no evidence
# (not counted, or in conflict with the server's own); a mail with a second
# Message-ID, In-Reply-To or References never acts.  Each refused mail's
# words still become a comment.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

# example.org's SPF lists the lab (an unsigned mail of its passes DMARC by
# SPF alone); example.net publishes no DMARC record (dmarc=none)
listlab_start_dkim example.org example.net -- --spf-pass example.org --dmarc-none example.net

cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "editusers"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "lead@example.org", "real_name": "Lead"},
            {"login": "wendy@example.net", "real_name": "Wendy"}],
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
    {"id": 201, "summary": "iwlwifi: firmware crash after resume", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z", "description": "Wi-Fi dies after resume."},
    {"id": 202, "summary": "iwlwifi: scan fails", "product": "Drivers",
     "component": "Wireless", "status": "CONFIRMED", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z", "description": "No networks found."}
  ]
}
EOF2
fakebz_start state.json
field() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0][sys.argv[1]])' "$2"
}
comments() {
	curl -sf "$bz/rest/bug/$1/comment?api_key=bridgekey0123" |
		python3 -c 'import json,sys; b=json.load(sys.stdin)["bugs"]; [print(json.dumps(c["text"])) for c in list(b.values())[0]["comments"]]'
}
# note MSGID: what became of the first command of that mail, and why
note() {
	/usr/bin/python3 -c 'import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute("select c.state, c.note from in_command c join in_mail m on m.id=c.mail where m.message_id=? order by c.seq", (sys.argv[2],)).fetchone(); print("%s: %s" % (r[0], r[1] or "") if r else "none")' data/bugbridge.db "$1"
}
# send_raw MAIL-FROM FILE: the file, as it is, to the list (envelope sender MAIL-FROM)
send_raw() {
	/usr/bin/python3 - "$LISTLAB_SMTP_PORT" "$LISTLAB_LIST" "$1" "$2" <<'EOF2'
import smtplib, sys
port, lst, mail_from, path = sys.argv[1:5]
msg = open(path, "rb").read().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
with smtplib.SMTP("127.0.0.1", int(port)) as s:
    s.sendmail(mail_from, [lst], msg)
EOF2
}
# unsigned FROM MSGID BUG [HEADER]... <BODY: an unsigned mail on the bug's
# thread whose first headers are the HEADERs given, into $WORK/raw.eml
unsigned() {
	_from=$1 _id=$2 _bug=$3
	shift 3
	{
		for _h in "$@"; do printf '%s\n' "$_h"; done
		printf 'From: %s\nTo: %s\nSubject: Re: [Bug %s] iwlwifi\nDate: %s\nMessage-ID: <%s>\n' \
			"$_from" "$LISTLAB_LIST" "$_bug" "$(date -R)" "$_id"
		printf 'In-Reply-To: <bug-%s@bugbridge.test>\nReferences: <bug-%s@bugbridge.test>\n' \
			"$_bug" "$_bug"
		printf 'MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n'
		cat
	} >"$WORK/raw.eml"
}

write_config <<EOF2
$(listlab_bridge_config)
[route wireless]
component = Wireless
lists = $LISTLAB_LIST
[archive]
url = $LISTLAB_URL
[inbound]
authenticate = authserv
trusted_authserv_id = lists.lab
allow = Lead <lead@example.org>, Wendy <wendy@example.net>
reopen_status = CONFIRMED
EOF2

check "first sync: the bugs go to the list" bb sync

# The maintainer's signed command: the server's dmarc=pass, and her signature fits
printf 'Fixed by the firmware update.\n\n#bugbridge close\n' |
	listlab_send "Lead <lead@example.org>" cmd-1@example.org bug-201@bugbridge.test \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after a signed command" bb sync
is "the signed command acts" "$(field 201 status)" "RESOLVED"
like "authenticated by the server's dmarc=pass and her signature" "$(note cmd-1@example.org)" "^done"
raw=$(listlab_raw cmd-1@example.org | tr -d '\r')
is "the lab as vger: two hops by the server" "$(printf '%s\n' "$raw" | grep -c '^	by lists.lab ')" "2"
like "the re-injection's empty Authentication-Results" "$raw" "Authentication-Results: lists.lab;
X-Original-To: $LISTLAB_LIST"
like "dmarc= below the delivery hop" "$raw" "
Authentication-Results: lists.lab; dmarc=pass (p=none dis=none) header.from=example.org
Authentication-Results: lists.lab; spf=pass smtp.mailfrom=example.org
DKIM-Signature:"
unlike "dkim= only in ARC-Authentication-Results" "$raw" "
Authentication-Results: lists.lab;[^
]*dkim="
like "where it is" "$raw" "ARC-Authentication-Results: i=1; lists.lab;
	dkim=pass header.d=example.org"

printf '#bugbridge reopen\n' |
	listlab_send "Lead <lead@example.org>" cmd-2@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after a signed reopen" bb sync
is "reopened" "$(field 201 status)" "CONFIRMED"

# 1. What a sender writes on top of its unsigned mail is no evidence
printf 'Works now, closing.\n\n#bugbridge close\n' |
	unsigned "Wendy <wendy@example.net>" forged-1@attacker.example 201 \
		"Authentication-Results: lists.lab; dkim=pass header.d=example.net"
send_raw mallory@attacker.example "$WORK/raw.eml"
printf 'Really closing.\n\n#bugbridge close\n' |
	unsigned "Wendy <wendy@example.net>" forged-2@attacker.example 201 \
		"Received: from mx.attacker.example by lists.lab (Postfix) with ESMTP id 1" \
		"Authentication-Results: lists.lab; dmarc=pass header.from=example.net"
send_raw mallory@attacker.example "$WORK/raw.eml"
# a dmarc=pass by SPF alone vouches for no header of the mail
printf 'Closing by SPF.\n\n#bugbridge close\n' |
	LISTLAB_DKIM_DIR= listlab_send "Lead <lead@example.org>" spf-1@example.org cmd-1@example.org \
		"Re: [Bug 201] iwlwifi: firmware crash after resume"
check "sync after forged results and an unsigned mail" bb sync
is "none of them acts" "$(field 201 status)" "CONFIRMED"
like "a forged dkim=pass on top: not counted (the server writes dkim= only in ARC)" \
	"$(note forged-1@attacker.example)" \
	"^refused: the sender is not authenticated: lists.lab reports no dmarc=pass aligned with the From: domain example.net"
like "a forged Received: and dmarc=pass on top: two dmarc= results" "$(note forged-2@attacker.example)" \
	"^refused: the sender is not authenticated: conflicting Authentication-Results"
like "a dmarc=pass by SPF alone: no signature fit for commands" "$(note spf-1@example.org)" \
	"^refused: .*lists.lab reports dmarc=pass, but the mail has no DKIM signature fit for commands .no DKIM signature."
like "their words are comments still" "$(comments 201 | tr '\n' ' ')" "Works now, closing.*Really closing.*Closing by SPF"

# 2. The maintainer's archived close, replayed under a second Message-ID
listlab_raw cmd-1@example.org | sed '1{/^From /d}' >"$WORK/archived.eml"
{ printf 'Message-ID: <replay-1@attacker.example>\n'; cat "$WORK/archived.eml"; } >"$WORK/raw.eml"
send_raw mallory@attacker.example "$WORK/raw.eml"
check "sync after a replay under a new Message-ID" bb sync
is "the replay does not act" "$(field 201 status)" "CONFIRMED"
like "refused: two Message-ID fields" "$(note replay-1@attacker.example)" \
	"^refused: the sender is not authenticated: more than one Message-ID: field"

# 3. The same close aimed at another bug: its thread's headers prepended
{ printf 'Message-ID: <replay-2@attacker.example>\nIn-Reply-To: <bug-202@bugbridge.test>\nReferences: <bug-202@bugbridge.test>\n'
  cat "$WORK/archived.eml"; } >"$WORK/raw.eml"
send_raw mallory@attacker.example "$WORK/raw.eml"
check "sync after a command aimed at another bug" bb sync
is "bug 202 is not closed" "$(field 202 status)" "CONFIRMED"
like "refused" "$(note replay-2@attacker.example)" "^refused: the sender is not authenticated: more than one "

done_testing
