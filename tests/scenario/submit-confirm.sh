#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The submit box's mails from senders not authenticated: one whose From:
# domain passed DMARC at the box's MTA ([submit] trusted_authserv_id) waits
# in the front door's quarantine for its sender's one-time link (mailed
# through the real SMTP server, the list lab); confirmed on the front door
# (bugbridge serve), it is filed (create_bugs) and its report reaches the
# list; never confirmed, it expires leaving nothing (no bug, no blob, no
# quarantined file, the link 410).  A dmarc=fail or a mail without the
# MTA's word gets no mail at all; confirm_limit is the front door's, per
# address.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

listlab_start
fakebz_minimal_state state.json
# Drivers has a version besides "unspecified", for the mail's @version
sed -i 's/"components": \["USB"\]}/"components": ["USB"], "versions": ["unspecified", "6.8"]}/' state.json
fakebz_start state.json
PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"

mkdir -p "$WORK/submit/new" "$WORK/submit/cur" "$WORK/submit/tmp"
# deliver FROM MSGID DMARC [ATTACHMENT]: the box's MTA (mx.lab) delivers an
# unsigned mail with its own Received: and Authentication-Results (DMARC
# result DMARC; "none": no results at all)
cat >"$WORK/deliver.py" <<'EOF2'
import email.utils, os, sys, time
from email.message import EmailMessage
box, sender, msgid, dmarc = sys.argv[1:5]
msg = EmailMessage()
msg["From"] = sender
msg["To"] = "bugs@bugbridge.test"
msg["Subject"] = "usb: hub resets in a loop"
msg["Date"] = email.utils.formatdate()
msg["Message-ID"] = "<%s>" % msgid
msg.set_content("@component USB\n@version 6.8\n@severity major\n\nThe hub resets every second.\n")
for path in sys.argv[5:]:
    msg.add_attachment(open(path, "rb").read(), maintype="application", subtype="octet-stream",
                       filename=os.path.basename(path))
raw = msg.as_bytes(policy=msg.policy.clone(linesep="\r\n"))
domain = email.utils.parseaddr(sender)[1].rpartition("@")[2]
if dmarc != "none":
    raw = ("Received: from client.example (localhost [127.0.0.1])\r\n\tby mx.lab with ESMTP id X1;"
           " %s\r\nAuthentication-Results: mx.lab; dmarc=%s header.from=%s;"
           " spf=pass smtp.mailfrom=%s\r\n" % (email.utils.formatdate(), dmarc, domain,
                                               domain)).encode() + raw
name = "%d.%s.submit" % (time.time() * 1000000, msgid.split("@")[0])
with open(os.path.join(box, "tmp", name), "wb") as f:
    f.write(raw)
os.rename(os.path.join(box, "tmp", name), os.path.join(box, "new", name))
EOF2
deliver() { /usr/bin/python3 "$WORK/deliver.py" "$WORK/submit" "$@"; }
sql() { reg "$1"; }
# to ADDR: the mails the lab received for ADDR, one file a line
to() { grep -l "\"$1\"" "$WORK"/listlab/received/*.json 2>/dev/null | sed 's/\.json$/.eml/'; }
bugs() { curl -sf "$bz/rest/bug?product=Drivers&include_fields=id,summary&api_key=bridgekey0123" |
	python3 -c 'import json,sys; [print(b["id"], b["summary"]) for b in json.load(sys.stdin)["bugs"]]'; }

config() {
	write_config <<EOF2
$(serve_config_head)
$(listlab_bridge_config)
[frontdoor]
enabled = true
create_bugs = true
confirm_limit = 2
confirm_window = $1
[inbound]
track_product = Drivers
track_component = USB
[submit]
path = $WORK/submit
address = bugs@bugbridge.test
trusted_authserv_id = mx.lab
EOF2
}
start_server() {
	serve_start
}
config 1h

random_bytes 4096 7 >usb.bin
deliver "Sam Sender <sam@example.net>" c-1@example.net pass usb.bin
deliver "Forged <victim@example.net>" c-2@example.net fail
deliver "Nobody <nobody@example.net>" c-3@example.net none
check "sync reads the three mails" bb sync
is "nothing is filed before a confirmation" "$(bugs | grep -c .)" "0"
is "no mail to the dmarc=fail From:" "$(to victim@example.net | grep -c .)" "0"
is "none to the From: the MTA said nothing of" "$(to nobody@example.net | grep -c .)" "0"
m=$(to sam@example.net)
is "one mail to the sender whose domain passed DMARC" "$(echo "$m" | grep -c .)" "1"
link=$(grep -o "$BASE/confirm/[0-9a-f]*" "$m" | head -1)
like "it holds the front door's link" "$link" "/confirm/[0-9a-f]{32}\$"
id=$(sql "SELECT id FROM fd_report WHERE email = 'sam@example.net'")
is "a front door report waits" "$(sql "SELECT state, product, component, bz_version, severity FROM fd_report WHERE id = $id")" \
	"unconfirmed|Drivers|USB|6.8|major"
is "its attachment is in the quarantine" "$(sha256_of "$WORK/data/quarantine/$id/1")" "$(sha256_of usb.bin)"
check_exit "but not in the blob store" 66 bb blob show "$(sha256_of usb.bin)"

start_server
code=$(curl -s -H "Origin: $BASE" -o confirm.html -w '%{http_code}' -d confirm=1 "$link")
is "the link confirms the report" "$code" "200"
is "the report is sent" "$(sql "SELECT state FROM fd_report WHERE id = $id")" "sent"
is "its bug is filed" "$(bugs | cut -d' ' -f2-)" "usb: hub resets in a loop"
is "with the mail's @version and @severity" \
	"$(curl -sf "$bz/rest/bug?product=Drivers&include_fields=version,severity&api_key=bridgekey0123" |
		python3 -c 'import json,sys; b = json.load(sys.stdin)["bugs"][0]; print(b["version"], b["severity"])')" \
	"6.8 major"
for _ in $(seq 1 100); do [ -n "$(to "$LISTLAB_LIST")" ] && break; sleep 0.1; done
like "the report reached the list" "$(cat $(to "$LISTLAB_LIST"))" "The hub resets every second"
is "the attachment left the quarantine for the blob store" \
	"$(bb blob show --json "$(sha256_of usb.bin)" | python3 -c 'import json,sys; print(json.load(sys.stdin)["blob"]["size"])')" "4096"
stop_server "$server"

# never confirmed: it expires and leaves nothing
random_bytes 2048 8 >left.bin
deliver "Una Confirmed <una@example.net>" c-4@example.net pass left.bin
check "sync with a mail never confirmed" bb sync
uid=$(sql "SELECT id FROM fd_report WHERE email = 'una@example.net'")
ulink=$(grep -o "$BASE/confirm/[0-9a-f]*" $(to una@example.net) | head -1)
is "it waits in the quarantine" "$(ls "$WORK/data/quarantine/$uid")" "1"
config 1s
sleep 2
start_server
for _ in $(seq 1 100); do
	[ "$(sql "SELECT state FROM fd_report WHERE id = $uid")" = expired ] && break
	sleep 0.1
done
is "the window passed: it expired" "$(sql "SELECT state FROM fd_report WHERE id = $uid")" "expired"
is "its attachment is gone" "$(ls "$WORK/data/quarantine/$uid" 2>/dev/null)" ""
check_exit "and never entered the blob store" 66 bb blob show "$(sha256_of left.bin)"
is "its link is gone" "$(curl -s -o /dev/null -w '%{http_code}' "$ulink")" "410"
is "no bug was filed for it" "$(bugs | grep -c .)" "1"
stop_server "$server"

# the front door's confirm_limit counts the box's links too, per address
config 1h
deliver "Sam Sender <sam+usb@example.net>" c-5@example.net pass
deliver "Sam Sender <sam@example.net>" c-6@example.net pass
check "sync with two more mails from sam" bb sync
answered() { grep -l "^In-Reply-To: <$1>" "$WORK"/listlab/received/*.eml 2>/dev/null | grep -c .; }
is "past confirm_limit (2 a day, +tags one address) no more links go out" \
	"$(answered c-5@example.net) $(answered c-6@example.net)" "1 0"
like "the second is recorded, with the reason" \
	"$(sql "SELECT state, reason FROM in_mail WHERE message_id = 'c-6@example.net'")" "confirm_limit"

done_testing
