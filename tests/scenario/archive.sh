#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The list archive readers (mail/archive.c) on a real public-inbox: the git
# epochs (first poll, idle poll, new mail, a stop midway, tail, a new epoch),
# t.mbox.gz threads, new.atom; a Maildir and an mbox; and broken inputs from
# a server made to fail.  Driven through tests/unit/archive-dump.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

DUMP="$top_builddir/tests/unit/archive-dump"
[ -x "$DUMP" ] || skip_all "tests/unit/archive-dump is not built"
command -v git >/dev/null 2>&1 || skip_all "git is not installed"
listlab_start
U=$LISTLAB_URL

# send MSGID SUBJECT [IN-REPLY-TO]: a mail to the list, archived before the 250.
# The body has lines an mbox must quote.
send() {
	/usr/bin/python3 - "$LISTLAB_SMTP_PORT" "$LISTLAB_LIST" "$@" <<'EOF'
import smtplib, sys, email.utils
port, lst, mid, subject = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
irt = sys.argv[5] if len(sys.argv) > 5 else None
m = ("From: Tess Ter <tess@example.org>\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\n"
     "Message-ID: <%s>\r\n" % (lst, subject, email.utils.formatdate(), mid))
if irt:
    m += "In-Reply-To: <%s>\r\nReferences: <%s>\r\n" % (irt, irt)
m += "\r\nHello %s\r\nFrom the start of a line\r\n>From quoted once\r\n\r\n" % mid
with smtplib.SMTP("127.0.0.1", port) as s:
    s.sendmail("tess@example.org", [lst], m)
EOF
}

# dump ARGS...: runs archive-dump, output in $out; ids: the Message-IDs read.
dump() {
	out=$("$DUMP" "$@" 2>&1)
	case $out in
	*Sanitizer*|*"runtime error"*)
		not_ok "archive-dump $* ran clean"
		printf '%s\n' "$out" | head -30 | sed 's/^/#   /' ;;
	esac
	ids=$(printf '%s\n' "$out" | sed -n 's/^msg \([^ ]*\) .*/\1/p' | tr '\n' ' ' | sed 's/ $//')
}
stat_of() { printf '%s\n' "$out" | awk -v k="$1" '$1 == "stats" { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }'; }
hash_of() { printf '%s\n' "$out" | awk -v id="$1" '$1 == "msg" && $2 == id { print $3 }'; }
ms() { printf '%s\n' "$out" | sed -n 's/^time_ms //p'; }

for i in 1 2 3; do
	send "m$i@example.org" "message $i" ${prev:+"$prev"}
	prev="m$i@example.org"
done

# --- public-inbox git epochs ----------------------------------------------------
dump --state state --cursor-file git.cur public-inbox "$U"
is "first poll reads every message, oldest first" "$ids" "m1@example.org m2@example.org m3@example.org"
is "by cloning epoch 0 and asking once for epoch 1" "$(stat_of clones) $(stat_of probes) $(stat_of fetches)" "1 1 0"
like "the cursor names epoch 0 and a commit" "$(cat git.cur)" '^git:0:[0-9a-f]{40}$'
diag "first poll, 3 messages: $(ms) ms"
h1=$(hash_of m1@example.org)

dump --state state --cursor-file git.cur public-inbox "$U"
is "a poll with nothing new reads no message" "$(stat_of messages)" "0"
is "and costs one git fetch, no clone, no probe" \
	"$(stat_of fetches) $(stat_of clones) $(stat_of probes) $(stat_of http)" "1 0 0 0"
is "two git processes in all (fetch, rev-list)" "$(stat_of git)" "2"
diag "idle poll: $(ms) ms"

send m4@example.org "message 4" m1@example.org
dump --state state --cursor-file git.cur public-inbox "$U"
is "new mail: only it is read" "$ids" "m4@example.org"
is "with one fetch" "$(stat_of fetches)" "1"
diag "poll with one new message: $(ms) ms"

send m5@example.org "message 5"
send m6@example.org "message 6"
before=$(cat git.cur)
dump --state state --cursor-file git.cur --stop-after 1 public-inbox "$U"
is "a handler that stops after one message" "$ids" "m5@example.org"
like "stops the poll" "$out" "^stopped interrupted"
pos5=$(printf '%s\n' "$out" | awk '$1 == "msg" { print $4 }')
is "the caller keeps that message's position" "$(cat git.cur)" "$pos5"
dump --state state --cursor-file git.cur public-inbox "$U"
is "the next poll goes on from there" "$ids" "m6@example.org"

dump --state state2 --tail public-inbox "$U"
is "tail on a fresh state folder reads nothing" "$(stat_of messages)" "0"
is "and ends where the caught-up cursor is" "$(printf '%s\n' "$out" | sed -n 's/^cursor //p')" "$(cat git.cur)"
printf '%s\n' "$out" | sed -n 's/^cursor //p' >tail.cur
send m7@example.org "message 7"
dump --state state2 --cursor-file tail.cur public-inbox "$U"
is "after the tail, only new mail" "$ids" "m7@example.org"

# Lost state: the mirrors are a cache.
rm -rf state2
dump --state state2 --cursor-file tail.cur public-inbox "$U"
is "without its mirrors a cursor still reads nothing twice" "$(stat_of messages) $(stat_of clones)" "0 1"

dump --state state --cursor-file git.cur public-inbox "$U"
is "the first state folder catches up too" "$ids" "m7@example.org"

# A new epoch.  public-inbox starts one when the current passes ~1 GB;
# here public-inbox-mda runs with that limit at zero, once.
L=$WORK/listlab
new_epoch_mail() {
	printf 'From: Tess Ter <tess@example.org>\nTo: %s\nSubject: into a new epoch\nDate: %s\nMessage-ID: <%s>\n\nepoch\n' \
		"$LISTLAB_LIST" "$(date -R)" "$1" |
	env HOME="$L/home" TMPDIR="$L/tmp" PI_CONFIG="$L/home/pi-config" PI_EMERGENCY="$L/emergency" \
		GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$L/home/gitconfig" ORIGINAL_RECIPIENT="$LISTLAB_LIST" \
		perl -e 'use PublicInbox::V2Writable; $PublicInbox::V2Writable::PACKING_FACTOR = 1e15;
			 do "/usr/bin/public-inbox-mda"; die $@ if $@; exit 0' >"$WORK/mda.log" 2>&1
}
if new_epoch_mail e1@example.org && git ls-remote "$U/1" >/dev/null 2>&1; then
	dump --state state --cursor-file git.cur public-inbox "$U"
	is "a new epoch is not probed for before the interval" "$(stat_of messages) $(stat_of probes)" "0 0"
	dump --state state --cursor-file git.cur --probe-interval -1 public-inbox "$U"
	is "once due, the message in epoch 1 is read" "$ids" "e1@example.org"
	is "epoch 1 cloned, epoch 0 fetched once more, epochs 1 and 2 asked for" \
		"$(stat_of clones) $(stat_of fetches) $(stat_of probes)" "1 2 2"
	like "the cursor is in epoch 1" "$(cat git.cur)" '^git:1:'
	send m8@example.org "message 8"
	dump --state state --cursor-file git.cur public-inbox "$U"
	is "later mail goes to epoch 1 and is read from there" "$ids" "m8@example.org"
	is "with one fetch" "$(stat_of fetches) $(stat_of clones)" "1 0"
	dump --state state3 public-inbox "$U"
	is "a first poll reads both epochs in order" "$ids" \
		"m1@example.org m2@example.org m3@example.org m4@example.org m5@example.org m6@example.org m7@example.org e1@example.org m8@example.org"
	all_git=$out
else
	ok "# SKIP cannot make a second epoch here"
	cat "$WORK/mda.log" | sed 's/^/#   /'
	send m8@example.org "message 8"
	dump --state state3 public-inbox "$U"
	all_git=$out
fi
is "the message bytes are the archive's" "$(curl -sf "$U/m1@example.org/raw" | sed '1d; $d; s/^>\(>*From \)/\1/' | sha256sum | cut -c1-16)" "$h1"

# --- threads: t.mbox.gz --------------------------------------------------------
dump --state state --thread '<m1@example.org>' public-inbox "$U"
is "a thread download has the whole thread" "$ids" "m1@example.org m2@example.org m3@example.org m4@example.org"
is "with the same bytes as the git epochs (mboxrd quoting undone)" "$(hash_of m1@example.org)" "$h1"
is "in one request" "$(stat_of http)" "1"
dump --state state --thread 'nobody@example.org' public-inbox "$U"
like "a thread the archive does not have: not found" "$out" "^error not-found give-up HTTP 404"

# --- Atom ---------------------------------------------------------------------
dump --cursor-file atom.cur atom "$U"
is "Atom: the first poll reads the feed, oldest first" \
	"$(printf '%s\n' "$out" | grep -c '^msg ')" "$(printf '%s\n' "$all_git" | grep -c '^msg ')"
is "the same messages as git" "$(printf '%s\n' "$out" | awk '$1 == "msg" { print $2, $3 }' | sort)" \
	"$(printf '%s\n' "$all_git" | awk '$1 == "msg" { print $2, $3 }' | sort)"
dump --cursor-file atom.cur atom "$U"
is "a second poll reads nothing, with one request" "$(stat_of messages) $(stat_of http)" "0 1"
send m9@example.org "message 9" m3@example.org
dump --cursor-file atom.cur atom "$U"
is "new mail: only it, with two requests (feed, raw)" "$ids $(stat_of http)" "m9@example.org 2"

# --- Maildir ------------------------------------------------------------------
mkdir -p Maildir/new Maildir/cur Maildir/tmp saved
dump --state state3 --save-dir saved public-inbox "$U"
n=0
for f in $(ls saved | sort -n); do
	n=$((n + 1))
	cp "saved/$f" "Maildir/new/$((1000000 + n)).M$n.host"
	touch -d "@$(( $(date +%s) - 1000 + n ))" "Maildir/new/$((1000000 + n)).M$n.host"
done
dump --cursor-file md.cur maildir Maildir
is "Maildir: all $n messages" "$(stat_of messages)" "$n"
is "in delivery order" "$(printf '%s\n' "$out" | awk '$1 == "msg" { print $2 }' | head -3 | tr '\n' ' ')" \
	"m1@example.org m2@example.org m3@example.org "
dump --cursor-file md.cur maildir Maildir
is "nothing new" "$(stat_of messages)" "0"
mv Maildir/new/1000001.M1.host "Maildir/cur/1000001.M1.host:2,S"
cp saved/1.eml Maildir/new/2000000.new.host
sed -i 's/^Message-ID: <m1@example.org>/Message-ID: <md-new@example.org>/' Maildir/new/2000000.new.host
dump --cursor-file md.cur maildir Maildir
is "a new file is read; one moved to cur/ with a flag is not" "$ids" "md-new@example.org"
dump maildir "$WORK/no-such-maildir"
like "a missing Maildir: not found" "$out" "^error not-found"

# --- mbox ---------------------------------------------------------------------
# mboxrd from the saved messages, as an MTA would append them
to_mbox() {
	python3 - "$@" <<'EOF'
import re, sys
out = open(sys.argv[1], "ab")
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    out.write(b"From tess@example.org Thu Dec  3 09:00:00 2026\n")
    out.write(re.sub(rb"(?m)^(>*From )", rb">\1", data))
    out.write(b"\n")
EOF
}
to_mbox list.mbox saved/1.eml saved/2.eml saved/3.eml
dump --cursor-file mbox.cur mbox list.mbox
is "mbox: three messages" "$ids" "m1@example.org m2@example.org m3@example.org"
is "the same bytes as from git (quoting undone)" "$(hash_of m1@example.org)" "$h1"
dump --cursor-file mbox.cur mbox list.mbox
is "nothing new" "$(stat_of messages)" "0"
to_mbox list.mbox saved/4.eml
printf 'From tess@example.org Thu Dec  3 09:00:00 2026\nMessage-ID: <half@x>\nSubject: half wri' >>list.mbox
cp mbox.cur mbox.cur.before
dump --cursor-file mbox.cur mbox list.mbox
is "the appended message is read" "$ids" "m4@example.org"
like "one still being written: retry later" "$out" "^error temporary retry-later .*incomplete"
dump --cursor-file mbox.cur mbox list.mbox
is "and not read again" "$(stat_of messages)" "0"
printf 'tten\n\nbody\n\n' >>list.mbox
dump --cursor-file mbox.cur mbox list.mbox
is "once complete it is read" "$ids" "half@x"
printf 'From x\nMessage-ID: <other@x>\n\nrewritten\n\n' >list.mbox
dump --cursor-file mbox.cur mbox list.mbox
is "a rewritten mbox is read again from its start" "$ids $(stat_of rewinds)" "other@x 1"
printf 'Subject: no mbox\n\n' >not.mbox
dump mbox not.mbox
like "a file that is no mbox: invalid" "$out" "^error invalid give-up not an mbox"

# --- broken inputs ------------------------------------------------------------
cat >faults.py <<'EOF'
import gzip, http.server, os, sys
good = b"From mboxrd@z Thu Jan  1 00:00:00 1970\nMessage-ID: <t1@x>\nSubject: t\n\nbody\n\n"
gz = gzip.compress(good)
crc = bytearray(gz); crc[-6] ^= 0x40
feed = (b"<feed xmlns='http://www.w3.org/2005/Atom'><entry><id>urn:a</id>"
        b"<link href='http://elsewhere.example/x/a@x/'/></entry></feed>")
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        with open("faults.log", "a") as f: f.write(self.path + "\n")
    def send(self, code, body, ctype="text/plain", extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra: self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        p = self.path
        if p.startswith("/html/"):
            return self.send(200, b"<html><body>Welcome</body></html>\n", "text/html")
        if p == "/e500/new.atom": return self.send(500, b"oops\n")
        if p == "/e429/new.atom": return self.send(429, b"slow\n", extra=[("Retry-After", "120")])
        if p == "/bad/new.atom": return self.send(200, b"<feed xmlns='http://www.w3.org/2005/Atom'><entry><id>x", "application/atom+xml")
        if p in ("/gone/new.atom", "/cut/new.atom"): return self.send(200, feed, "application/atom+xml")
        if p == "/cut/a@x/raw":   # the connection drops mid-body
            self.send_response(200); self.send_header("Content-Length", "1000"); self.end_headers()
            self.wfile.write(good[:30]); self.wfile.flush(); self.close_connection = True
            return
        if p.endswith("/t.mbox.gz"):
            mid = p.split("/")[-2]
            body = {"trunc@x": gz[:len(gz) // 2], "crc@x": bytes(crc), "plain@x": good}.get(mid)
            if body is not None: return self.send(200, body, "application/gzip")
        self.send(404, b"not found\n")
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open("faults.port.tmp", "w") as f: f.write(str(s.server_address[1]))
os.rename("faults.port.tmp", "faults.port")
s.serve_forever()
EOF
python3 faults.py >faults.out 2>&1 &
CLEANUP_PIDS="$CLEANUP_PIDS $!"
for _ in $(seq 1 100); do [ -s faults.port ] && break; sleep 0.1; done
F="http://127.0.0.1:$(cat faults.port)"

dump --state state4 public-inbox "$F/html/site"
like "a URL that is no git repository: protocol error" "$out" "^error protocol-error give-up git clone .*not valid: is this a git repository"
dump --state state4 public-inbox "${U%/*}/no-such-inbox"
like "an inbox the server does not have: not found" "$out" "^error not-found give-up no git epoch at .*public-inbox v2 inbox"
dump --state state4 public-inbox "http://127.0.0.1:$(free_port)/test"
like "a server that is not there: retry later" "$out" "^error temporary retry-later git clone .*(connect|Connection refused)"
echo 'atom:0123456789abcdef' >atom-bad.cur
cp atom-bad.cur atom-bad.cur.before
dump --cursor-file atom-bad.cur atom "$F/e500"
like "HTTP 500 for the feed: retry later" "$out" "^error temporary retry-later HTTP 500"
check "and the cursor is kept" cmp atom-bad.cur atom-bad.cur.before
dump --cursor-file atom-bad.cur atom "$F/e429"
like "HTTP 429: retry later" "$out" "^error temporary retry-later HTTP 429"
dump --cursor-file atom-bad.cur atom "$F/bad"
like "a broken feed: protocol error" "$out" "^error protocol-error give-up .*not an Atom feed"
dump --cursor-file atom-bad.cur atom "$F/cut"
like "a message cut off mid-transfer: retry later" "$out" "^error temporary retry-later"
check "and the cursor is kept" cmp atom-bad.cur atom-bad.cur.before
dump atom "$F/gone"
is "an entry whose message is gone is skipped, not fatal" "$(stat_of skipped) $(stat_of messages)" "1 0"
like "and its raw URL stays on the configured server" "$(cat faults.log)" "^/gone/a@x/raw$"
for bad in trunc crc plain; do
	dump --thread "$bad@x" atom "$F/t"
	like "t.mbox.gz that is $bad: protocol error" "$out" "^error protocol-error give-up .*gzip"
	is "and nothing handed over" "$(stat_of messages)" "0"
done
dump --cursor-file git.cur atom "$U"
like "a cursor of another kind: invalid" "$out" "^error invalid give-up not an Atom cursor"

# --- a local public-inbox ([archive] path), read in place ----------------------
dump --state state-url public-inbox "$U"
over_http=$ids
dump --state state-local --cursor-file local.cur public-inbox "$WORK/listlab/inbox"
is "a local inbox gives the same messages as its URL" "$ids" "$over_http"
is "read in place: nothing cloned, fetched or probed over HTTP" \
	"$(stat_of clones) $(stat_of fetches) $(stat_of http)" "0 0 0"
like "with the same kind of cursor" "$(cat local.cur)" '^git:[0-9]+:[0-9a-f]{40}$'
send "local1@example.org" "after the local read"
dump --state state-local --cursor-file local.cur public-inbox "$WORK/listlab/inbox"
is "the next poll reads only the new mail" "$ids" "local1@example.org"
check "nothing was written into the inbox" test ! -e "$WORK/listlab/inbox/git/lock"
dump --state state-nowhere public-inbox "$WORK/no-such-inbox"
like "a folder that is no inbox: not found" "$out" "^error not-found .*public-inbox v2 inbox \\(or a v1 one\\)"

# --- a local v1 inbox (one repository, a file per message), read in place ----
v1env() { env HOME="$WORK" PI_CONFIG="$WORK/v1.config" PI_EMERGENCY="$WORK/v1.emergency" \
	ORIGINAL_RECIPIENT=v1@lists.test "$@"; }
v1env public-inbox-init -V1 v1test "$WORK/v1inbox" http://127.0.0.1/v1test v1@lists.test
git config -f "$WORK/v1.config" publicinboxmda.spamcheck none
v1send() {
	printf 'From: Tess Ter <tess@example.org>\nTo: v1@lists.test\nSubject: %s\nMessage-ID: <%s>\nDate: Tue, 01 Dec 2026 10:00:00 +0000\n\nHello %s\n' \
		"$2" "$1" "$1" >"$WORK/v1.eml"
	v1env public-inbox-${3:-mda} ${3:+rm} ${3:---no-precheck} <"$WORK/v1.eml"
}
v1send v1-a@example.org "first v1 mail"
v1send v1-b@example.org "second v1 mail"
dump --state state-v1 --cursor-file v1.cur public-inbox "$WORK/v1inbox"
is "a v1 inbox is read in place, oldest first" "$ids" "v1-a@example.org v1-b@example.org"
is "nothing cloned, fetched or asked over HTTP" "$(stat_of clones) $(stat_of fetches) $(stat_of http)" "0 0 0"
like "its cursor names the commit" "$(cat v1.cur)" '^git:0:[0-9a-f]{40}$'
v1send v1-c@example.org "third v1 mail"
v1send v1-b@example.org "second v1 mail" learn
dump --state state-v1 --cursor-file v1.cur public-inbox "$WORK/v1inbox"
is "the next poll reads only the new mail (a removal adds none)" "$ids" "v1-c@example.org"
is "and passes the removal" "$(cat v1.cur)" "git:0:$(git --git-dir="$WORK/v1inbox" rev-parse HEAD)"
dump --state state-v1 --cursor-file v1.cur public-inbox "$WORK/v1inbox"
is "then nothing" "$ids $(stat_of messages)" " 0"
dump --state state-v1b --tail public-inbox "$WORK/v1inbox"
like "--tail: the cursor is the inbox's HEAD" "$out" "cursor git:0:$(git --git-dir="$WORK/v1inbox" rev-parse HEAD)"
echo "git:0:0123456789abcdef0123456789abcdef01234567" >v1-gone.cur
dump --state state-v1 --cursor-file v1-gone.cur public-inbox "$WORK/v1inbox"
is "a cursor whose commit the inbox lacks: read again from its start" \
	"$ids $(stat_of rewinds)" "v1-a@example.org v1-b@example.org v1-c@example.org 1"

# --- a broken inbox: commits whose message is no file --------------------------
# fast-import writes what public-inbox never would: "m" as a folder or as a
# submodule (v2), a v1 message path that is a submodule.  The mails around
# them are read, each bad commit is logged and passed, and the next poll
# starts after them.
# odd_inbox V2|V1 GITDIR: mails odd-a@, then the bad commits, then odd-b@,
# odd-c@; in V2 then a removal (public-inbox's "d" file, no "m") and odd-a@
# again (the same blob as the first commit's)
odd_inbox() {
	git init -q --bare "$2" && /usr/bin/python3 - "$1" <<'EOF' | git --git-dir="$2" fast-import --quiet --done
import hashlib, sys
v1 = sys.argv[1] == "V1"
out = sys.stdout.buffer
n = 0
def path(mid):
    h = hashlib.sha1(mid).hexdigest().encode()
    return h[:2] + b"/" + h[2:] if v1 else b"m"
def commit(entries):
    global n
    n += 1
    out.write(b"commit refs/heads/master\ncommitter T <t@example.org> %d +0000\ndata 2\nm\n" % (1790000000 + n))
    if not v1:
        out.write(b"deleteall\n")
    for e in entries:
        out.write(e)
def mail(mid):
    data = b"From: T <t@example.org>\nSubject: odd\nMessage-ID: <%s>\n\nodd\n" % mid
    return b"M 100644 inline %s\ndata %d\n%s\n" % (path(mid), len(data), data)
gitlink = b"M 160000 0123456789abcdef0123456789abcdef01234567 %s\n"
commit([mail(b"odd-a@example.org")])
if v1:
    commit([gitlink % path(b"odd-gone@example.org")])
else:
    commit([b"M 100644 inline m/inner\ndata 3\nab\n\n"])
    commit([gitlink % b"m"])
commit([mail(b"odd-b@example.org")])
commit([mail(b"odd-c@example.org")])
if not v1:
    commit([mail(b"odd-c@example.org").replace(b" m\n", b" d\n", 1)])
    commit([mail(b"odd-a@example.org")])
out.write(b"done\n")
EOF
}
mkdir -p "$WORK/odd2/git"
odd_inbox V2 "$WORK/odd2/git/0.git"
dump --state state-odd2 --cursor-file odd2.cur public-inbox "$WORK/odd2"
is "v2: the mails around a folder and a submodule named m are read, and a mail added again" "$ids" \
	"odd-a@example.org odd-b@example.org odd-c@example.org odd-a@example.org"
unlike "with no error" "$out" "^error"
is "the two bad commits and the removal are passed as skipped" "$(stat_of skipped)" 3
is "and the cursor is the epoch's HEAD" "$(cat odd2.cur)" \
	"git:0:$(git --git-dir="$WORK/odd2/git/0.git" rev-parse HEAD)"
dump --state state-odd2 --cursor-file odd2.cur public-inbox "$WORK/odd2"
is "the next poll reads nothing" "$ids $(stat_of messages)" " 0"
# a commit whose message is the cursor's commit's blob (which git rev-list
# --objects leaves out, as the cursor's tree holds it) is still read
printf 'commit refs/heads/master\ncommitter T <t@example.org> 1790000100 +0000\ndata 2\nm\nfrom %s\nM 100644 %s m\n\ndone\n' \
	"$(git --git-dir="$WORK/odd2/git/0.git" rev-parse HEAD)" \
	"$(git --git-dir="$WORK/odd2/git/0.git" rev-parse HEAD:m)" |
	git --git-dir="$WORK/odd2/git/0.git" fast-import --quiet --done
dump --state state-odd2 --cursor-file odd2.cur public-inbox "$WORK/odd2"
is "a later commit of the cursor's blob is read" "$ids $(stat_of messages)" "odd-a@example.org 1"
# a broken repository: a message's blob, and another commit's tree, are
# gone (loose objects deleted); the walk passes their commits, it does not
# fail on them
B=$WORK/broken/git/0.git
mkdir -p "$WORK/broken/git"
odd_inbox V2 "$B"
for pack in "$B"/objects/pack/*.pack; do   # (fast-import leaves few objects loose)
	[ -e "$pack" ] || continue
	mv "$pack" "$WORK/broken.pack" && rm -f "${pack%.pack}".* &&
		git --git-dir="$B" unpack-objects -q <"$WORK/broken.pack"
done
# the first commit's blob (which the last commit's message is too) and the
# fourth commit's tree (odd-b@'s)
gone_blob=$(git --git-dir="$B" rev-parse 'HEAD~6:m') gone_tree=$(git --git-dir="$B" rev-parse 'HEAD~3^{tree}')
for gone in "$gone_blob" "$gone_tree"; do
	rm -f "$B/objects/$(printf %s "$gone" | sed 's#^..#&/#')"
done
dump --state state-broken public-inbox "$WORK/broken"
is "broken repository: the mail whose objects are there is read" "$ids" "odd-c@example.org"
unlike "with no error" "$out" "^error"
is "each commit whose message or tree is gone is passed as skipped" "$(stat_of skipped)" 6
# tree entries whose names are longer than any line the walk reads, one
# longer than a read of git's output and one than the longest line read
# elsewhere (a hostile inbox): passed over, the mails around them read
L=$WORK/longpath/git/0.git
git init -q --bare "$L"
long_commit() {   # long_commit MSGID NAME-LENGTH PARENT...
	blob=$(printf 'From: T <t@example.org>\nSubject: long\nMessage-ID: <%s>\n\nlong\n' "$1" |
		git --git-dir="$L" hash-object -w --stdin)
	other=$(echo x | git --git-dir="$L" hash-object -w --stdin)
	tree=$( { [ "$2" = 0 ] || { printf '100644 blob %s\t' "$other"; head -c "$2" /dev/zero | tr '\0' a; echo; }
		  printf '100644 blob %s\tm\n' "$blob"; } | git --git-dir="$L" mktree)
	shift 2
	echo m | GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=T \
		GIT_COMMITTER_EMAIL=t@example.org git --git-dir="$L" commit-tree "$tree" ${1:+-p "$1"}
}
c1=$(long_commit long-a@example.org 1200000)
c2=$(long_commit long-b@example.org 300000 "$c1")
c3=$(long_commit long-c@example.org 0 "$c2")
git --git-dir="$L" update-ref refs/heads/master "$c3"
dump --state state-longpath public-inbox "$WORK/longpath"
is "paths longer than any line the walk reads: the mails are read" "$ids" \
	"long-a@example.org long-b@example.org long-c@example.org"
unlike "with no error" "$out" "^error"
odd_inbox V1 "$WORK/odd1"
dump --state state-odd1 --cursor-file odd1.cur public-inbox "$WORK/odd1"
is "v1: the mails around a submodule at a message's path are read" "$ids" \
	"odd-a@example.org odd-b@example.org odd-c@example.org"
unlike "with no error" "$out" "^error"
is "and its cursor is the inbox's HEAD" "$(cat odd1.cur)" \
	"git:0:$(git --git-dir="$WORK/odd1" rev-parse HEAD)"
# a signed commit, and the inbox's own configuration asking git log to
# check signatures with a program of its choice: that program never runs
printf 'tree %s\nparent %s\nauthor T <t@example.org> 1790000100 +0000\ncommitter T <t@example.org> 1790000100 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n' \
	"$(git --git-dir="$WORK/odd1" rev-parse 'HEAD^{tree}')" \
	"$(git --git-dir="$WORK/odd1" rev-parse HEAD)" >signed.txt
signed=$(git --git-dir="$WORK/odd1" hash-object -t commit -w signed.txt)
git --git-dir="$WORK/odd1" update-ref HEAD "$signed"
printf '#!/bin/sh\n: >"%s/gpg-ran"\nexit 1\n' "$WORK" >"$WORK/fake-gpg"
chmod +x "$WORK/fake-gpg"
git --git-dir="$WORK/odd1" config log.showSignature true
git --git-dir="$WORK/odd1" config gpg.program "$WORK/fake-gpg"
dump --state state-odd1 --cursor-file odd1.cur public-inbox "$WORK/odd1"
is "a signed commit that adds no message: nothing read" "$ids $(stat_of messages)" " 0"
check "the program the inbox's configuration names is not run" test ! -e "$WORK/gpg-ran"
is "and the cursor passes the commit" "$(cat odd1.cur)" "git:0:$signed"

# --- a v1 commit that adds several messages ---------------------------------
# (public-inbox adds one a commit; an import may add more): each is read,
# all but the last with the commit before as their position, so a stop
# inside the commit reads the whole commit again
git init -q --bare "$WORK/multi1"
/usr/bin/python3 - <<'EOF' | git --git-dir="$WORK/multi1" fast-import --quiet --done
import hashlib, sys
out = sys.stdout.buffer
def mail(mid):
    h = hashlib.sha1(mid).hexdigest().encode()
    data = b"From: T <t@example.org>\nSubject: multi\nMessage-ID: <%s>\n\nx\n" % mid
    return b"M 100644 inline %s/%s\ndata %d\n%s\n" % (h[:2], h[2:], len(data), data)
for n, mids in enumerate([[b"one-a@example.org"],
                          [b"two-a@example.org", b"two-b@example.org", b"two-c@example.org"],
                          [b"three-a@example.org"]]):
    out.write(b"commit refs/heads/master\ncommitter T <t@example.org> %d +0000\ndata 2\nm\n"
              % (1790000000 + n))
    for mid in mids:
        out.write(mail(mid))
out.write(b"done\n")
EOF
multi_commit() { git --git-dir="$WORK/multi1" rev-parse "HEAD~$1"; }
positions() { printf '%s\n' "$out" | awk '$1 == "msg" { print $4 }' | tr '\n' ' '; }
dump --state state-multi1 public-inbox "$WORK/multi1"
is "v1: every message of a commit that adds three is read" \
	"$(printf '%s\n' $ids | sort | tr '\n' ' ')" \
	"one-a@example.org three-a@example.org two-a@example.org two-b@example.org two-c@example.org "
is "the first two of the three with the commit before as their position, the last with its own" \
	"$(positions)" "git:0:$(multi_commit 2) git:0:$(multi_commit 2) git:0:$(multi_commit 2) git:0:$(multi_commit 1) git:0:$(multi_commit 0) "
dump --state state-multi1 --cursor-file multi1.cur --stop-after 2 public-inbox "$WORK/multi1"
is "stopped after the first of the three: the cursor is the commit before them" \
	"$(cat multi1.cur)" "git:0:$(multi_commit 2)"
dump --state state-multi1 --cursor-file multi1.cur public-inbox "$WORK/multi1"
is "the next poll reads all three again, then the rest" \
	"$(positions)" "git:0:$(multi_commit 2) git:0:$(multi_commit 2) git:0:$(multi_commit 1) git:0:$(multi_commit 0) "

# --- a local mirror of the newest epochs only (public-inbox-clone --epoch=~1) --
mkdir -p "$WORK/partial/git"
for e in 3 4; do
	git init -q --bare "$WORK/partial/git/$e.git"
	/usr/bin/python3 - "$e" <<'EOF' | git --git-dir="$WORK/partial/git/$e.git" fast-import --quiet --done
import sys
e, out = int(sys.argv[1]), sys.stdout.buffer
for i in range(2):
    data = b"From: T <t@example.org>\nSubject: partial\nMessage-ID: <part-%d-%d@example.org>\n\nx\n" % (e, i)
    out.write(b"commit refs/heads/master\ncommitter T <t@example.org> %d +0000\ndata 2\nm\n" % (1790000000 + 10 * e + i))
    out.write(b"deleteall\nM 100644 inline m\ndata %d\n%s\n" % (len(data), data))
out.write(b"done\n")
EOF
done
dump --state state-partial --cursor-file partial.cur public-inbox "$WORK/partial"
is "epochs 3 and 4 alone: their mails are read from the start" "$ids" \
	"part-3-0@example.org part-3-1@example.org part-4-0@example.org part-4-1@example.org"
unlike "with no error for the epochs it lacks" "$out" "^error"
is "and the cursor is in the newest" "$(cat partial.cur)" \
	"git:4:$(git --git-dir="$WORK/partial/git/4.git" rev-parse HEAD)"
rm -rf "$WORK/partial/git" && mkdir -p "$WORK/partial/git"
dump --state state-partial2 public-inbox "$WORK/partial"
like "a folder with no epoch at all is still an error" "$out" "^error not-found .*no epoch 0"

done_testing
