#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A list mail's sender is checked (its DKIM keys asked of DNS) before any
# transaction opens, within [inbound] dns_timeout for all of the mail's
# lookups together.  A mail whose keys DNS does not give waits (in_wait):
# its comment and commands are handled in a later round once DNS answers,
# exactly once (a crash in between repeats nothing), and after 24 hours of
# waiting its commands are refused ("DNS did not answer").
#
# The resolver is pointed at a nameserver that never answers: in a private
# user, mount and network namespace (unshare -rmn), a UDP socket on
# 127.0.0.1:53 that reads queries and answers none (or, when told, answers
# with the keys), and a resolv.conf naming it bind-mounted over
# /etc/resolv.conf, with the resolver's defaults (5 s, 2 attempts): 10 s a
# lookup, 80 s for a mail of 8 signatures, without the deadline.  The
# fake Bugzilla runs in the namespace too.
if [ -z "${BB_DNS_INSIDE:-}" ]; then
	command -v unshare >/dev/null 2>&1 || { echo "1..0 # SKIP no unshare(1)"; exit 0; }
	command -v ip >/dev/null 2>&1 || { echo "1..0 # SKIP no ip(8) to bring up the namespace's loopback"; exit 0; }
	if ! unshare -rmn sh -c 'ip link set lo up' >/dev/null 2>&1; then
		echo "1..0 # SKIP unshare -rmn is not allowed here (no unprivileged user namespaces?): cannot stand in for a silent nameserver"
		exit 0
	fi
	BB_DNS_INSIDE=1 exec unshare -rmn /bin/sh "$0" "$@"
fi
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/mailwork.sh"

ip link set lo up || skip_all "cannot bring up the namespace's loopback"
command -v openssl >/dev/null 2>&1 || skip_all "no openssl to make a DKIM key"
/usr/bin/python3 -c 'import dkim' 2>/dev/null || skip_all "no python3-dkim to sign mail"
unset RES_OPTIONS LOCALDOMAIN
printf 'nameserver 127.0.0.1\noptions timeout:5 attempts:2\n' >resolv.conf
mount --bind "$WORK/resolv.conf" /etc/resolv.conf 2>/dev/null ||
	skip_all "cannot bind-mount a resolv.conf over /etc/resolv.conf in the namespace"

# the key of every signature: s1._domainkey.k<N>.example.org, N = 1..8
openssl genrsa -out key.pem 2048 2>/dev/null || skip_all "openssl cannot make a key"
: >keys
for n in 1 2 3 4 5 6 7 8; do
	printf 's1._domainkey.k%s.example.org v=DKIM1; k=rsa; p=%s\n' "$n" \
		"$(openssl rsa -in key.pem -pubout -outform DER 2>/dev/null | base64 -w0)" >>keys
done

# The nameserver on 127.0.0.1:53: logs each query's name to dns.log; while
# dns.mode says "silent" it answers none, with "answer" it answers from
# the keys file (NXDOMAIN for other names).
cat >silent_ns.py <<'EOF2'
import socket, struct, sys
keys = dict(line.rstrip("\n").split(" ", 1) for line in open(sys.argv[1]) if " " in line)
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", 53))
open(sys.argv[3], "w").write("ready\n")
log = open(sys.argv[2], "a")
while True:
    data, peer = sock.recvfrom(4096)
    i, labels = 12, []
    while i < len(data) and data[i]:
        labels.append(data[i + 1:i + 1 + data[i]].decode("ascii", "replace"))
        i += 1 + data[i]
    name = ".".join(labels).lower()
    log.write(name + "\n")
    log.flush()
    if open(sys.argv[4]).read().strip() != "answer":
        continue
    question = data[12:i + 5]
    record = keys.get(name)
    if record:
        record = record.encode()
        rdata = b"".join(bytes([len(c)]) + c for c in
                         (record[j:j + 255] for j in range(0, len(record), 255)))
        answer = b"\xc0\x0c" + struct.pack(">HHIH", 16, 1, 60, len(rdata)) + rdata
        header = data[:2] + struct.pack(">HHHHH", 0x8180, 1, 1, 0, 0)
    else:
        answer = b""
        header = data[:2] + struct.pack(">HHHHH", 0x8183, 1, 0, 0, 0)
    sock.sendto(header + question + answer, peer)
EOF2
echo silent >dns.mode
/usr/bin/python3 silent_ns.py keys dns.log dns.ready dns.mode >dns.out 2>&1 &
dns_pid=$!
CLEANUP_PIDS="$CLEANUP_PIDS $dns_pid"
wait_for_port dns.ready "$dns_pid" || { cat dns.out; skip_all "cannot bind 127.0.0.1:53 in the namespace"; }

cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "dev@example.org", "real_name": "Dev Eloper", "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "products": [{"name": "Drivers", "components": ["USB"]}],
  "bugs": [
    {"id": 201, "summary": "usb: hub stops after resume", "product": "Drivers",
     "component": "USB", "status": "NEW", "priority": "P3", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "The hub stops after every resume."}]}
  ]
}
EOF2
fakebz_start state.json
comments() {
	curl -sf "$bz/rest/bug/$1/comment?api_key=bridgekey0123" |
		/usr/bin/python3 -c 'import json,sys; b=json.load(sys.stdin)["bugs"]; print(len(list(b.values())[0]["comments"]))'
}
field() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123" |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0][sys.argv[1]])' "$2"
}

# signed_mail MSGID SUBJECT TEXT [PARENT]: a mail of dev@example.org (a
# reply to PARENT if given) with 8 DKIM signatures, d=k1..k8.example.org
# from the top (all aligned with From:), selector $SELECTOR (default s1),
# appended to the archive
signed_mail() {
	/usr/bin/python3 - "$@" <<'EOF2' >>"$WORK/list.mbox"
import os, sys, dkim, email.utils
key = open("key.pem", "rb").read()
selector = os.environ.get("SELECTOR", "s1").encode()
parent = sys.argv[4] if len(sys.argv) > 4 else ""
msg = ("From: Dev Eloper <dev@example.org>\r\nTo: list@lists.test\r\n"
       "Subject: %s\r\nDate: %s\r\nMessage-ID: <%s>\r\n%s\r\n%s\r\n"
       % (sys.argv[2], email.utils.formatdate(), sys.argv[1],
          "In-Reply-To: <%s>\r\nReferences: <%s>\r\n" % (parent, parent) if parent else "",
          sys.argv[3].replace("\n", "\r\n"))).encode()
sigs = b""
for n in range(8, 0, -1):
    sigs = dkim.sign(msg, selector, b"k%d.example.org" % n, key,
                     include_headers=[b"from", b"subject", b"date", b"message-id",
                                      b"in-reply-to", b"references"]) + sigs
print("From dev@example.org Thu Dec  3 09:30:00 2026")
sys.stdout.write((sigs + msg).decode().replace("\r\n", "\n"))
print()
EOF2
}

: >list.mbox
write_config <<EOF2
$(fakebz_bridge_config)
[smtp]
maildir = $WORK/mail
[routing]
default_lists = list@lists.test
[archive]
kind = mbox
path = $WORK/list.mbox
[inbound]
allow = Dev Eloper <dev@example.org>
dns_timeout = 2s
EOF2
sed -i 's/^log_level = warn$/log_level = info/' "$WORK/bugbridge.conf"

check "a first round mirrors bug 201 (the empty archive read from its end)" \
	sh -c '"$BUGBRIDGE" sync >first.log 2>&1'

# --- 1. DNS never answers: the round asks for about dns_timeout a mail,
# without a lock: a regression report (a #regzbot directive, whose sender
# the tracker is told of; it was checked inside the round's batch
# transaction), then a reply to bug 201 with a command
signed_mail reg-1@example.org "[REGRESSION] usb: hub gone" 'Since 6.7 the hub is gone.

#regzbot introduced: v6.6..v6.7'
signed_mail wait-1@example.org "Re: [Bug 201] usb: hub stops after resume" 'Still broken here.

#bugbridge title: usb: hub stops after resume (checked once DNS answered)' bug-201@bugbridge.test
: >dns.log
start=$(date +%s)
"$BUGBRIDGE" sync >silent.log 2>&1 &
sync_pid=$!
for _ in $(seq 1 100); do [ -s dns.log ] && break; sleep 0.1; done
is "the sender's check asked the silent nameserver" "$(head -n 1 dns.log)" "s1._domainkey.k1.example.org"
# the state is not locked meanwhile: a write transaction starts at once
is "while DNS is asked, another process takes the store's write lock at once" \
	"$(/usr/bin/python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
try:
    c.execute("BEGIN IMMEDIATE"); c.execute("ROLLBACK"); print("free")
except sqlite3.OperationalError as e:
    print(e)' "$WORK/data/bugbridge.db")" "free"
wait "$sync_pid"
is "the round succeeds" "$?" "0"
took=$(($(date +%s) - start))
diag "the round took $took s (10 s a signature, 80 s, without the deadline)"
ok_if() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
ok_if "it took about dns_timeout (2 s) a mail, not 10 s a signature" "[ $took -le 8 ]"
ok_if "the lookups stopped at each mail's deadline: at most 2 of its 8 keys were asked for" \
	"[ $(sort -u dns.log | wc -l) -le 4 ]"
like "the reply waits, saying why" "$(grep inbound.dns_wait silent.log)" \
	"message_id=wait-1@example.org .*DNS did not answer for the DKIM key of k1.example.org"
is "both wait in in_wait; the reply is not recorded in in_mail" \
	"$(reg "select (select count(*) from in_wait),
		(select count(*) from in_mail where message_id = 'wait-1@example.org')")" "2|0"
is "the regression is not tracked yet" "$(reg "select count(*) from reg_regression")" "0"
is "bugbridge status counts them" "$(bb status --json | /usr/bin/python3 -c 'import json, sys
print(json.load(sys.stdin)["archive"]["waiting_for_dns"])')" "2"
is "nothing was posted to the bug" "$(comments 201)" "1"
is "the title is as it was" "$(field 201 summary)" "usb: hub stops after resume"

# --- 2. still silent: the next round checks it again, and it goes on waiting
check "a round with DNS still silent succeeds" sh -c '"$BUGBRIDGE" sync >silent2.log 2>&1'
is "it was checked twice and still waits" \
	"$(reg "select checks from in_wait where message_id = 'wait-1@example.org'")" "2"
is "still nothing posted" "$(comments 201)" "1"

# --- 3. DNS answers: the mail is handled, once, even across a crash
echo answer >dns.mode
BUGBRIDGE_CRASH_AT=inbound.recorded:1 "$BUGBRIDGE" sync >crash.log 2>&1
is "the round crashed once the mail was recorded" \
	"$(grep -c 'test hook inbound.recorded reached' crash.log)" "1"
is "its row left in_wait in the transaction that recorded it" \
	"$(reg "select (select count(*) from in_wait), (select state || ' ' || authenticated
		from in_mail where message_id = 'wait-1@example.org')")" "0|intent 1"
check "the round after the crash succeeds" sh -c '"$BUGBRIDGE" sync >after.log 2>&1'
is "the command acted" "$(field 201 summary)" "usb: hub stops after resume (checked once DNS answered)"
is "the reply was posted once" "$(comments 201)" "2"
is "the mail is posted, its command done" \
	"$(reg "select m.state, c.state from in_mail m join in_command c on c.mail = m.id
		where m.message_id = 'wait-1@example.org'")" "posted|done"
check "one more round" sh -c '"$BUGBRIDGE" sync >again.log 2>&1'
is "posts nothing again" "$(comments 201)" "2"
is "the regression is tracked, its sender authenticated" \
	"$(reg "select count(*) > 0, group_concat(unverified, '') from reg_event")" "1|"

# --- 4. 24 hours without an answer: the commands are refused
echo silent >dns.mode
signed_mail wait-2@example.org "Re: [Bug 201] usb: hub stops after resume" 'Raising it.

#bugbridge priority P1' bug-201@bugbridge.test
check "a round with DNS silent again succeeds" sh -c '"$BUGBRIDGE" sync >silent3.log 2>&1'
is "the second mail waits" "$(reg "select count(*) from in_wait where message_id = 'wait-2@example.org'")" "1"
/usr/bin/python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("update in_wait set since = since - 86400"); c.commit()' \
	"$WORK/data/bugbridge.db"
check "a round a day later succeeds" sh -c '"$BUGBRIDGE" sync >day.log 2>&1'
like "its command is refused: DNS did not answer" \
	"$(reg "select c.state, c.note from in_command c join in_mail m on c.mail = m.id
		where m.message_id = 'wait-2@example.org'")" \
	"^refused|the sender is not authenticated: DNS did not answer for 24 hours"
is "the priority is as it was" "$(field 201 priority)" "P3"
is "its reply was posted all the same" "$(comments 201)" "3"
is "nothing waits any more" "$(reg "select count(*) from in_wait")" "0"

# --- 5. the round's time for DNS: once spent, a mail waits unasked
# ($BUGBRIDGE_TEST_DNS_ROUND_MS: 2.5 s instead of ten dns_timeout)
for n in 1 2 3; do
	SELECTOR=b$n signed_mail budget-$n@example.org "Re: [Bug 201] usb: hub stops after resume" \
		"Mail $n.

#bugbridge priority P2" bug-201@bugbridge.test
done
: >dns.log
start=$(date +%s)
BUGBRIDGE_TEST_DNS_ROUND_MS=2500 "$BUGBRIDGE" sync >budget.log 2>&1
is "the round with three mails to check succeeds" "$?" "0"
took=$(($(date +%s) - start))
ok_if "it took about the round's 2.5 s for DNS ($took s)" "[ $took -le 7 ]"
is "all three wait" "$(reg "select count(*) from in_wait")" "3"
is "the first two were asked for, the third not" \
	"$(sed 's/\..*//' dns.log | sort -u | tr '\n' ' ')" "b1 b2 "
like "the third says why" "$(reg "select reason from in_wait where message_id = 'budget-3@example.org'")" \
	"^not checked: this round waited [0-9]+ s for DNS already"

# each mail read once (tests/lib/mailwork.sh); a resumed mail is checked
# when first read (DNS did not answer) and once again in each later round
# that reads it from in_wait (still waiting, or resumed): once per
# handling, never twice in one
mailwork_seen "mails waiting for DNS were resumed" '/ waited=1 /'
mailwork_once
is "mail work: a mail waiting for DNS is checked once when read and once each time it is resumed" \
	"$(awk '{ n[$1] += substr($NF, 8); h[$1]++ } / waited=1 / { w[$1] = 1 }
		END { for (m in w) if (n[m] != h[m] || h[m] < 2) print m, n[m], h[m] }' \
		"$MAILWORK")" ""

done_testing
