#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Filing a bug by mail ([submit]): a DKIM-signed mail delivered to the
# submit Maildir becomes a Bugzilla bug on the fake Bugzilla 5.2 (Subject,
# body, @product/@component/@version/@severity pseudo-headers checked
# against GET /rest/field/bug), its 50 MiB attachment stored in the blob
# store and linked, its small one uploaded to the bug as well; the sender
# alone gets one answer through the real SMTP server (the list lab), per
# pseudo-header and attachment; the bug's report then goes to the list.
# A mail whose sender is not authenticated files nothing and is answered
# nothing.  kill -9 after the bug is filed, and after its attachment is
# uploaded, files nothing twice and answers once.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

listlab_dkim_key "$WORK/dkim" example.org || skip_all "openssl cannot make a key"
/usr/bin/python3 -c 'import dkim' 2>/dev/null || skip_all "python3-dkim is not installed"
listlab_start --authserv-id lists.lab --dkim-keys "$WORK/dkim/keys"

cat >state.json <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "editusers"]}],
  "products": [{"name": "Drivers", "components": ["Wireless", "USB"],
                "versions": ["unspecified", "6.8"]}],
  "bugs": []
}
EOF2
fakebz_start state.json

mkdir -p "$WORK/submit/new" "$WORK/submit/cur" "$WORK/submit/tmp"
# deliver FROM MSGID SUBJECT BODY-FILE [ATTACHMENT...]: an MTA's delivery to
# the submit Maildir, DKIM-signed when the From: domain has a key (h= lists
# In-Reply-To and References, absent, as a command's signature must)
cat >"$WORK/deliver.py" <<'EOF2'
import email.utils, os, sys, time
from email.message import EmailMessage
keydir, box, sender, msgid, subject, body_file = sys.argv[1:7]
msg = EmailMessage()
msg["From"] = sender
msg["To"] = "bugs@bugbridge.test"
msg["Subject"] = subject
msg["Date"] = email.utils.formatdate()
msg["Message-ID"] = "<%s>" % msgid
msg.set_content(open(body_file, encoding="utf-8").read())
for path in sys.argv[7:]:
    data = open(path, "rb").read()
    maintype, subtype = ("text", "plain") if path.endswith(".txt") else ("application", "octet-stream")
    msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=os.path.basename(path))
raw = msg.as_bytes(policy=msg.policy.clone(linesep="\r\n"))
domain = email.utils.parseaddr(sender)[1].rpartition("@")[2]
pem = os.path.join(keydir, domain + ".pem")
if os.path.exists(pem):
    import dkim
    raw = dkim.sign(raw, b"s1", domain.encode(), open(pem, "rb").read(),
                    include_headers=[b"from", b"to", b"subject", b"date", b"message-id",
                                     b"in-reply-to", b"references"]) + raw
name = "%d.%s.submit" % (time.time() * 1000000, msgid.split("@")[0])
with open(os.path.join(box, "tmp", name), "wb") as f:
    f.write(raw)
os.rename(os.path.join(box, "tmp", name), os.path.join(box, "new", name))
EOF2
deliver() { /usr/bin/python3 "$WORK/deliver.py" "$WORK/dkim" "$WORK/submit" "$@"; }
# bug_of MSGID: the bug filed for the submitted mail (its URL is mid:MSGID), one id a line
bug_of() {
	curl -sf "$bz/rest/bug?url=mid:$1&include_fields=id&api_key=bridgekey0123" |
		python3 -c 'import json,sys; [print(b["id"]) for b in json.load(sys.stdin)["bugs"]]'
}
field() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0][sys.argv[1]])' "$2"
}
description() {
	curl -sf "$bz/rest/bug/$1/comment?api_key=bridgekey0123" |
		python3 -c 'import json,sys; b=json.load(sys.stdin)["bugs"]; print(list(b.values())[0]["comments"][0]["text"])'
}
attachments() {
	curl -sf "$bz/rest/bug/$1/attachment?api_key=bridgekey0123&exclude_fields=data" |
		python3 -c 'import json,sys; b=json.load(sys.stdin)["bugs"]; print(" ".join(a["file_name"] for a in list(b.values())[0]))'
}
# answers MSGID: the mails the lab received In-Reply-To that mail, one file a line
answers() { grep -l "^In-Reply-To: <$1>" "$WORK"/listlab/received/*.eml 2>/dev/null; }
rcpts() { python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["rcpt_tos"]))' "${1%.eml}.json"; }
flat() { tr -d '\r' <"$1" | tr '\n' '~'; }

write_config <<EOF2
$(listlab_bridge_config)
[route wireless]
component = Wireless
lists = $LISTLAB_LIST
[blob]
base_url = https://files.example.org
[inbound]
dkim_key_file = $WORK/dkim/keys
track_product = Drivers
track_component = USB
[submit]
path = $WORK/submit
address = bugs@bugbridge.test
EOF2

check "a first sync with an empty box" bb sync

# 1. a signed mail with pseudo-headers, a small and a 50 MiB attachment
printf '\n@product Drivers\n@component wireless\n@severity urgent\n@version 6.8\n@priority P1\n\nThe Wi-Fi dies after every resume.\nSince 6.8.\n' >body1.txt
printf '[  12.345] iwlwifi 0000:00:14.3: Microcode SW error detected\n' >dmesg.txt
head -c 52428800 /dev/urandom >dump.bin
big=$(sha256sum dump.bin | cut -d' ' -f1)
deliver "Ines Reporter <ines@example.org>" sub-1@example.org "iwlwifi: firmware crash on resume" body1.txt dmesg.txt dump.bin
BUGBRIDGE_CRASH_AT=submit.created bb sync >crash1.out 2>&1
like "killed right after Bugzilla filed the bug" "$(cat crash1.out)" "test hook submit.created reached"
is "no answer before the mail's row is committed" "$(answers sub-1@example.org | wc -l)" "0"
BUGBRIDGE_CRASH_AT=submit.attached bb sync >crash2.out 2>&1
like "killed again right after the small attachment was uploaded" "$(cat crash2.out)" "test hook submit.attached reached"
check "the sync after the crashes" bb sync
bug=$(bug_of sub-1@example.org)
is "one bug for the mail, filed once over two kills" "$(echo "$bug" | grep -c .)" "1"
is "its summary is the Subject" "$(field "$bug" summary)" "iwlwifi: firmware crash on resume"
is "@product" "$(field "$bug" product)" "Drivers"
is "@component wireless is the Bugzilla's Wireless" "$(field "$bug" component)" "Wireless"
is "@version" "$(field "$bug" version)" "6.8"
is "@severity urgent is not a severity: the default stands" "$(field "$bug" severity)" "normal"
d=$(description "$bug")
like "the description is the body" "$d" "The Wi-Fi dies after every resume."
unlike "without the pseudo-header lines" "$d" "@product"
like "the 50 MiB attachment is linked with its hash" "$d" "sha256:$big"
like "with its blob URL" "$d" "https://files.example.org/blob/sha256/$big/dump.bin"
like "the reporter is named" "$d" "Reported by Ines Reporter <ines@example.org> by mail to bugs@bugbridge.test"
is "the 50 MiB attachment is in the blob store" "$(bb blob show --json "$big" | python3 -c 'import json,sys; print(json.load(sys.stdin)["blob"]["size"])')" "52428800"
is "only the small attachment is in Bugzilla, uploaded once" "$(attachments "$bug")" "dmesg.txt"
a=$(answers sub-1@example.org)
is "one answer" "$(echo "$a" | grep -c .)" "1"
is "to the sender alone" "$(rcpts "$a")" "ines@example.org"
like "@product done" "$(flat "$a")" "@product Drivers~ +done~"
like "@severity refused with the legal severities" "$(flat "$a")" \
	"@severity urgent~ +refused: no severity \"urgent\" on this Bugzilla; it has: blocker, critical, major, normal, minor, trivial, enhancement~"
like "@priority is not understood" "$(flat "$a")" "@priority P1~ +not understood"
like "the small attachment is attached" "$(flat "$a")" "attachment dmesg\\.txt \\(61 bytes\\)~ +done: attached to the bug"
like "the large one is in the blob store" "$(flat "$a")" "attachment dump\\.bin \\(50\\.0 MiB\\)~ +done: in the blob store"
like "the bug's number, link and thread" "$(flat "$a")" \
	"done: filed as bug $bug, $bz/show_bug\\.cgi\\?id=$bug~ +its report goes to $LISTLAB_LIST as <bug-$bug@bugbridge\\.test>"
report=$(grep -l "^Message-I[dD]: <bug-$bug@bugbridge.test>" "$WORK"/listlab/received/*.eml)
is "the bug's report went to the list" "$(rcpts "$report")" "$LISTLAB_LIST"
check "a sync with nothing new" bb sync
is "still one bug" "$(bug_of sub-1@example.org | grep -c .)" "1"
is "still one answer" "$(answers sub-1@example.org | wc -l)" "1"

# 2. an unsigned mail: nothing filed, nothing answered
printf '@product Drivers\n\nPlease file this.\n' >body2.txt
deliver "Someone <someone@example.net>" sub-2@example.net "forged report" body2.txt
check "sync with an unsigned mail" bb sync
is "no bug" "$(bug_of sub-2@example.net | grep -c .)" "0"
is "no answer to an unauthenticated sender" "$(answers sub-2@example.net | wc -l)" "0"
like "recorded, with the reason" "$(reg "SELECT state, reason FROM in_mail WHERE message_id = 'sub-2@example.net'")" \
	"^rejected|submit: sender not authenticated"

# 3. a signed mail that names a product the Bugzilla lacks, without a
# default: refused, answered, nothing filed
printf '@product Nonsense\n@component Wireless\n\nText.\n' >body3.txt
deliver "Ines Reporter <ines@example.org>" sub-3@example.org "wrong product" body3.txt
sed -i '/^track_product/d' "$WORK/bugbridge.conf"
check "sync with a product the Bugzilla lacks" bb sync
is "nothing filed" "$(bug_of sub-3@example.org | grep -c .)" "0"
a=$(answers sub-3@example.org)
is "answered once, to the sender" "$(rcpts "$a")" "ines@example.org"
like "the product is not used" "$(flat "$a")" "@product Nonsense~ +not used: no bug was filed~"
like "Bugzilla's refusal is the answer" "$(flat "$a")" \
	"failed: Bugzilla refused the bug: .*the product Nonsense does not exist"

# 4. without a product at all: refused before Bugzilla is asked
printf 'No pseudo-headers.\n' >body4.txt
deliver "Ines Reporter <ines@example.org>" sub-4@example.org "no product" body4.txt
check "sync with no product" bb sync
a=$(answers sub-4@example.org)
is "answered once" "$(echo "$a" | grep -c .)" "1"
like "refused, saying what is missing" "$(flat "$a")" "refused: no bug was filed: say which @product and @component"
is "Bugzilla was not asked to file it (two bugs asked for in all: 1. and 3.)" \
	"$(grep -c '"method": "POST", "path": "/rest/bug"' "$WORK/bz.log")" "2"

done_testing
