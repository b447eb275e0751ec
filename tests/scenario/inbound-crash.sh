#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Crash safety of the inbound bridge: list replies become Bugzilla comments
# exactly once and are never mailed back to the list, wherever the process
# is killed (SIGKILL through BUGBRIDGE_CRASH_AT=hook:N, core/fsutil.h).
#
# One shared setup, made once: the fake Bugzilla with two mirrored bugs,
# and a list archive of the kind "atom" served as static files by a small
# Python server (new.atom, <msgid>/raw, <msgid>/t.mbox.gz: no public-inbox,
# no git), holding a few replies to the bugs' threads: a plain reply, an
# answer to it, a reply with an attachment, a reply with #bugbridge
# commands from an allowed sender, and a list thread that a #bugbridge
# track turns into a bug.  (The local kinds, maildir and mbox, cannot fetch
# a thread, so a track cannot be tested with them; atom can, and costs one
# HTTP request to a static server per round.)  The senders are believed
# from From: ([inbound] authenticate = none): signing is tested in
# inbound.sh; here it would only cost time.
#
# The data folder and the fake Bugzilla's state are saved right before the
# round that reads the replies.  The reference run restores both and runs
# three rounds; then for every hook on that path and every N, the Nth hit
# of the hook kills the first of the three rounds; the state after the
# three must be the reference's: every reply posted once, every command
# applied once, every answer mailed once, and no comment of the bridge's own
# mailed back to the list.
. "$top_srcdir/tests/lib/common.sh"

# (INBOUND_CRASH_HOOKS: only these, when debugging)
HOOKS=${INBOUND_CRASH_HOOKS:-"inbound.recorded inbound.post inbound.posted inbound.create
inbound.created inbound.batch sync.fetched sync.bug sync.committed blob.write blob.synced blob.placed
blob.recorded outbox.accepted outbox.marked tracker.post tracker.posted"}
# the hooks the round must reach (tracker.* are reached only with regression
# notes to push: tried, in case)
MUST="inbound.recorded inbound.post inbound.posted inbound.create inbound.created inbound.batch
sync.fetched sync.bug sync.committed blob.write blob.synced blob.placed blob.recorded
outbox.accepted outbox.marked"

started=$(date +%s)
random_bytes 3000 21 >fw.bin
cat >state.json <<EOF
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "editusers"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "lead@example.org", "real_name": "Lead"}],
  "products": [{"name": "Drivers", "components": ["Wireless", "USB"]}],
  "bugs": [
    {"id": 201, "summary": "iwlwifi: firmware crash after resume", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Wi-Fi dies after every resume since 6.6.1."}]},
    {"id": 202, "summary": "xhci: port resets after hotplug", "product": "Drivers",
     "component": "USB", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:20:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:20:00Z",
                   "text": "Every hotplug resets the other ports."}]}
  ]
}
EOF
fakebz_start state.json

# The archive: static files under arch/list, served over HTTP
. "$top_srcdir/tests/lib/atom_archive.sh"
atom_archive_start

write_config <<EOF
$(fakebz_bridge_config --key-in --maildir "$WORK/data/mail" --lists list@lists.test)
$(atom_archive_config)
track_product = Drivers
track_component = USB
attachments = bugzilla
[blob]
base_url = http://blobs.test
EOF
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }

# The first round mirrors the bugs and starts reading the (empty) archive.
check "first round: the bugs are mirrored" bb --quiet sync

# The replies, dated after that first reading (older commands never act).
/usr/bin/python3 - "$WORK/arch/list" "$arch" <<'EOF'
import email.utils, gzip, os, sys, time
from email.message import EmailMessage
root, url = sys.argv[1:3]
date = email.utils.formatdate(time.time() + 5)
msgs = []
def mail(frm, mid, parent, subject, text, attach=None):
    m = EmailMessage()
    m["From"] = frm
    m["To"] = "list@lists.test"
    m["Subject"] = subject
    m["Date"] = date
    m["Message-ID"] = "<%s>" % mid
    if parent:
        m["In-Reply-To"] = m["References"] = "<%s>" % parent
    m.set_content(text)
    if attach:
        m.add_attachment(open(attach, "rb").read(), maintype="application",
                         subtype="x-firmware", filename="iwlwifi-77.ucode")
    msgs.append((mid, m.as_bytes()))
s201 = "Re: [Bug 201] iwlwifi: firmware crash after resume"
s202 = "Re: [Bug 202] xhci: port resets after hotplug"
mail("Wendy Maintainer <wendy@example.org>", "reply-1@example.org", "bug-201@bugbridge.test",
     s201, "Thanks, I can reproduce this REPLY-ONE.\n\nOn Thu, Ines wrote:\n> Wi-Fi dies after every resume since 6.6.1.\n\nCould you send the dmesg?\n")
mail("Other User <other@example.net>", "reply-2@example.org", "reply-1@example.org",
     s201, "And here too, on a second laptop REPLY-TWO.\n")
mail("Ines Reporter <ines@example.net>", "att-1@example.org", "bug-202@bugbridge.test",
     s202, "The firmware image I tested with is attached REPLY-ATT.\n", "fw.bin")
mail("Lead <lead@example.org>", "cmd-1@example.org", "bug-201@bugbridge.test", s201,
     "Confirmed on my side REPLY-CMD.\n\n#bugbridge severity major\n"
     "#bugbridge title iwlwifi: firmware 77 crashes after resume\n#bugbridge frobnicate\n")
mail("Ines Reporter <ines@example.net>", "usb-1@example.org", None, "usb: hub resets in a loop",
     "The hub at 1-1 resets every second since 6.7 REPLY-T1.\n")
mail("Other User <other@example.net>", "usb-2@example.org", "usb-1@example.org",
     "Re: usb: hub resets in a loop", "Same here on a different board REPLY-T2.\n")
mail("Lead <lead@example.org>", "usb-3@example.org", "usb-2@example.org",
     "Re: usb: hub resets in a loop", "Let us track this REPLY-T3.\n\n#bugbridge track\n")
thread = b"".join(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + raw + b"\n"
                  for mid, raw in msgs if mid.startswith("usb-"))
entries = []
for mid, raw in msgs:
    os.makedirs(os.path.join(root, mid))
    with open(os.path.join(root, mid, "raw"), "wb") as f:
        f.write(raw)
    if mid.startswith("usb-"):
        with open(os.path.join(root, mid, "t.mbox.gz"), "wb") as f:
            f.write(gzip.compress(thread))
    entries.insert(0, '<entry><id>urn:msg:%s</id><link href="%s/%s/"/></entry>' % (mid, url, mid))
with open(os.path.join(root, "new.atom.tmp"), "w") as f:
    f.write('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
            "<title>list</title>%s</feed>\n" % "".join(entries))
os.rename(os.path.join(root, "new.atom.tmp"), os.path.join(root, "new.atom"))
EOF
REPLIES="REPLY-ONE REPLY-TWO REPLY-ATT REPLY-CMD REPLY-T1 REPLY-T2 REPLY-T3"

# and a comment in Bugzilla, so the round's outbound side has work too
admin clock '{"advance": 60}'
admin comment '{"bug_id": 202, "creator": "ines@example.net", "text": "Still there with 6.8."}'

# The shared setup: the data folder and the fake Bugzilla as they are now.
cp -a data saved-data
curl -sf "$bz/__admin/state" >saved-state.json

# What a run left, as sorted text: the bugs (fields, comments, attachments)
# in the fake Bugzilla; every outbound mail (the outbox's rows with a hash
# of the message without its Date: and its X-Bugbridge-Mark's value, and
# how many times each Message-ID was delivered to the Maildir); the inbound
# records; and the echoes: outbound mails that carry a list reply's words or
# a comment of the bridge's own.
cat >snapshot.py <<'EOF'
import collections, glob, hashlib, json, re, sqlite3, sys, urllib.request
bz, data, words = sys.argv[1], sys.argv[2], sys.argv[3].split()
state = json.load(urllib.request.urlopen(bz + "/__admin/state"))
for b in sorted(state["bugs"], key=lambda b: b["id"]):
    print("bug %s %s | %s | %s | %s | %s" % (b["id"], b.get("summary"), b.get("status"),
          b.get("resolution", ""), b.get("severity", ""), b.get("component")))
    for c in b.get("comments", []):
        # the heading says what the reply answers as far as the bridge knew
        # it then ("replied on the list to comment #1" once the comment's
        # number came back, else "wrote on the list"): a resumed round may
        # know more than the reference did
        text = re.sub(r"^(.*?) (replied on the list to [^\n]*|wrote on the list):\n",
                      r"\1 on the list:\n", c.get("text") or "")
        print("  comment by %s: %s" % (c.get("creator"), json.dumps(text)))
    for a in b.get("attachments", []):
        print("  attachment %s %s" % (a.get("file_name"),
              hashlib.sha256(a.get("data", "").encode()).hexdigest()[:16]))
db = sqlite3.connect(data + "/bugbridge.db")
outbound = []
for mid, state_, msg in db.execute("SELECT message_id, state, message FROM outbox ORDER BY message_id"):
    msg = msg if isinstance(msg, bytes) else msg.encode()
    outbound.append(msg)
    # a change notice is named by the change's time (bug-N-u<time>), a
    # round later after a crash: the fake Bugzilla's clock moved on (and
    # so does its X-Bugbridge-Mark, made of the Message-ID)
    msg = re.sub(rb"-u[0-9]+@", b"-uTIME@", re.sub(rb"(?im)^date:.*\n", b"", msg))
    msg = re.sub(rb"(?im)^(x-bugbridge-mark:) *[0-9a-f]{32}$", rb"\1 MARK", msg)
    print("outbox %s %s %s" % (re.sub(r"-u[0-9]+@", "-uTIME@", mid), state_,
                               hashlib.sha256(msg).hexdigest()[:16]))
delivered = collections.Counter()
for f in glob.glob(data + "/mail/*/*"):
    raw = open(f, "rb").read()
    m = re.search(rb"(?im)^message-id:\s*<([^>]*)>", raw)
    delivered[re.sub(r"-u[0-9]+@", "-uTIME@", m.group(1).decode()) if m else "?"] += 1
for mid, n in sorted(delivered.items()):
    print("delivered %s x%d" % (mid, n))
for row in db.execute("SELECT message_id, bug_id, parent, state, reason FROM in_mail ORDER BY message_id"):
    print("in_mail %s bug=%s parent=%s %s %s" % row)
for row in db.execute("SELECT m.message_id, c.seq, c.bug_id, c.line, c.state, c.note FROM in_command c"
                      " JOIN in_mail m ON m.id = c.mail ORDER BY m.message_id, c.seq"):
    print("in_command %s #%s bug=%s %r %s %s" % row)
# the bridge's comments: a reply posted, an attachment uploaded from a mail
for w in words + ["replied on the list", "wrote on the list", "(from the list mail <"]:
    n = sum(w.encode() in raw for raw in outbound)
    if n:
        print("ECHO: %d outbound mail(s) carry %r" % (n, w))
EOF

# round CRASH: from a copy of the shared setup, three rounds, the first
# with BUGBRIDGE_CRASH_AT=CRASH (none when empty); the fake Bugzilla's
# clock moves on a minute between rounds.  Sets KILLED (0/1), RUN_ERROR
# and SNAP.  A first round that is not killed ran as the reference's did:
# the other two are left out.
round() {
	RUN_ERROR=""
	KILLED=0
	SNAP=""
	rm -rf data
	cp -a saved-data data
	curl -sf -X POST --data-binary @saved-state.json "$bz/__admin/state" >/dev/null ||
		RUN_ERROR="restoring the fake Bugzilla's state failed"
	: >sync.log
	BUGBRIDGE_CRASH_AT=$1 "$BUGBRIDGE" --quiet sync >>sync.log 2>&1
	rc=$?
	if [ "$rc" -eq 137 ]; then
		KILLED=1
	elif [ "$rc" -ne 0 ]; then
		RUN_ERROR="$RUN_ERROR; the first round exited $rc"
	elif [ -n "$1" ]; then
		return
	fi
	for i in 2 3; do
		admin clock '{"advance": 60}'
		"$BUGBRIDGE" --quiet sync >>sync.log 2>&1 ||
			RUN_ERROR="$RUN_ERROR; round $i exited $?"
	done
	SNAP=$(/usr/bin/python3 -S snapshot.py "$bz" "$WORK/data" "$REPLIES" 2>&1)
}

# same NAME POINT: ok when the run ended as the reference did.  After a
# crash at outbox.accepted the one mail the Maildir had taken before its
# row was marked sent is delivered again with the same Message-ID
# (mail/outbox.h: the list archive keeps one copy): that one is allowed.
same() {
	got=$SNAP
	case $2 in
	outbox.accepted:*)
		again=$(printf '%s\n' "$SNAP" | grep -c '^delivered .* x2$')
		[ "$again" -le 1 ] || RUN_ERROR="$RUN_ERROR; $again mails delivered again"
		got=$(printf '%s\n' "$SNAP" | sed 's/^\(delivered .*\) x2$/\1 x1/') ;;
	esac
	if [ -z "$RUN_ERROR" ] && [ "$got" = "$REF" ]; then
		ok "$1"
		return
	fi
	not_ok "$1"
	[ -n "$RUN_ERROR" ] && diag "${RUN_ERROR#; }"
	printf '%s\n' "$REF" >ref.txt
	printf '%s\n' "$got" >got.txt
	diff -u ref.txt got.txt | tail -n +3 | sed 's/^/#   /'
	grep -v '^bugbridge: test hook' sync.log | tail -5 | sed 's/^/#   sync: /'
	failed="$WORK/failed/$(echo "$2" | tr .: --)"
	mkdir -p "$failed" && cp -a data sync.log got.txt "$failed/"
}

# --- the reference ---------------------------------------------------------
round ""
REF=$SNAP
is "reference: three rounds run without trouble" "$RUN_ERROR" ""
printf '%s\n' "$REF" >reference.txt
for w in $REPLIES; do
	case $w in
	REPLY-TWO) bug=201 ;;
	REPLY-T*) bug=203 ;;
	REPLY-ATT) bug=202 ;;
	*) bug=201 ;;
	esac
	is "reference: $w is on bug $bug once" \
		"$(grep -c "^  comment by .*$w" reference.txt)/$(sed -n "/^bug $bug /,/^bug /p" reference.txt | grep -c "$w")" "1/1"
done
like "reference: the commands acted" "$(grep '^bug 201 ' reference.txt)" \
	"^bug 201 iwlwifi: firmware 77 crashes after resume \\| NEW \\| .* \\| major \\| Wireless$"
like "reference: the tracked thread is bug 203" "$(grep '^bug 203 ' reference.txt)" \
	"^bug 203 usb: hub resets in a loop \\| .* \\| USB$"
is "reference: the attachment was uploaded" "$(grep -c '^  attachment iwlwifi-77.ucode' reference.txt)" "1"
like "reference: the commands got one answer" "$(grep '^delivered bug-201-r' reference.txt)" \
	"^delivered bug-201-r[0-9]+@bugbridge.test x1$"
like "reference: the track got one answer" "$(grep '^delivered bug-203-r' reference.txt)" \
	"^delivered bug-203-r[0-9]+@bugbridge.test x1$"
is "reference: every delivered mail once" "$(grep '^delivered ' reference.txt | grep -vc ' x1$')" "0"
is "reference: no outbound mail is stuck" "$(grep '^outbox ' reference.txt | grep -vc ' sent ')" "0"
is "reference: no echo: no outbound mail carries a list mail's words or a comment the bridge made of one" \
	"$(grep '^ECHO' reference.txt)" ""
is "reference: no mail left as an intent" "$(grep -c '^in_mail .* intent\|^in_mail .* track\|^in_command .* intent' reference.txt)" "0"

# --- every crash point -----------------------------------------------------
points=0
for hook in $HOOKS; do
	n=1
	while [ "$n" -le 50 ]; do
		round "$hook:$n"
		if [ "$KILLED" = 0 ]; then
			if [ -n "$RUN_ERROR" ]; then
				not_ok "$hook:$n is not reached ($((n - 1)) hits), but: ${RUN_ERROR#; }"
			else
				ok "$hook:$n is not reached ($((n - 1)) hits)"
			fi
			break
		fi
		points=$((points + 1))
		same "killed at $hook:$n, resumed: each reply, command and answer once, no echo" "$hook:$n"
		n=$((n + 1))
	done
	[ "$n" -le 50 ] || not_ok "$hook is still reached after 50 hits"
	if [ "$n" -eq 1 ]; then
		case " $(echo $MUST) " in
		*" $hook "*) not_ok "$hook is never reached" ;;
		*) diag "$hook is not on this path" ;;
		esac
	fi
done
diag "$points crash points in $(($(date +%s) - started)) s"

done_testing
