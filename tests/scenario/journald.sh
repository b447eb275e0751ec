#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Logging to journald: when standard error is the stream systemd connected
# to the journal (JOURNAL_STREAM=<dev>:<inode> of it) and journald's socket
# is there, records go over the native protocol with a PRIORITY from the
# level, MESSAGE the logfmt text and each field as BB_<KEY>; nothing is
# written to standard error in logfmt.  A JOURNAL_STREAM that names another
# file, a socket nobody reads and a missing socket all leave the lines on
# standard error.  A Unix datagram socket in a private mount namespace
# (unshare -rm) stands in for /run/systemd/journal/socket.
. "$top_srcdir/tests/lib/common.sh"

command -v unshare >/dev/null 2>&1 || skip_all "no unshare(1) to make a private mount namespace"
unshare -rm true >/dev/null 2>&1 ||
	skip_all "unshare -rm is not allowed here (no unprivileged user namespaces?): cannot stand in for journald's socket"
command -v python3 >/dev/null 2>&1 || skip_all "no python3 for the journald stand-in"

# Where the stand-in socket's tmpfs goes: the deepest of these that exists
# (in the namespace only); the work folder must not be under it.
for mnt in /run/systemd/journal /run/systemd /run; do
	[ -d "$mnt" ] && break
	mnt=
done
[ -n "$mnt" ] || skip_all "no /run to put journald's socket under"
case "$WORK/" in "$mnt"/*) skip_all "the work folder $WORK is under $mnt, which the test mounts over" ;; esac
# shellcheck disable=SC2016
unshare -rm sh -c 'mount -t tmpfs tmpfs "$1"' sh "$mnt" >/dev/null 2>&1 ||
	skip_all "unshare -rm cannot mount a tmpfs on $mnt here: cannot stand in for journald's socket"

# journald's side: binds the socket, writes each datagram as one JSON line
# {"fields": [[KEY, VALUE], ...], "binary": [KEY...], "fds": N}.  Fields
# come as KEY=VALUE\n, or KEY\n<64-bit LE length><VALUE>\n when the value
# holds a newline; a large record may come as a memfd (SCM_RIGHTS) instead.
cat >journal_sink.py <<'EOF2'
import array, json, os, signal, socket, struct, sys

def parse(data):
    fields, binary, pos = [], [], 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            fields.append(["!TRAILING", data[pos:].decode("utf-8", "backslashreplace")])
            break
        line = data[pos:nl]
        if b"=" in line:
            k, v = line.split(b"=", 1)
            pos = nl + 1
        else:
            k = line
            (n,) = struct.unpack("<Q", data[nl + 1:nl + 9])
            v = data[nl + 9:nl + 9 + n]
            if data[nl + 9 + n:nl + 10 + n] != b"\n":
                fields.append(["!BADBINARY", k.decode("utf-8", "backslashreplace")])
            binary.append(k.decode())
            pos = nl + 10 + n
        fields.append([k.decode("utf-8", "backslashreplace"),
                       v.decode("utf-8", "backslashreplace")])
    return fields, binary

def serve(path, out, ready):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    with open(ready, "w") as f:
        f.write("%d\n" % os.getpid())
    fdsize = socket.CMSG_SPACE(16 * array.array("i").itemsize)
    while True:
        data, anc, _, _ = s.recvmsg(1 << 20, fdsize)
        fds = array.array("i")
        for level, kind, cdata in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(cdata[:len(cdata) - len(cdata) % fds.itemsize])
        for fd in fds:
            chunks = []
            while True:
                c = os.pread(fd, 1 << 20, sum(map(len, chunks)))
                if not c:
                    break
                chunks.append(c)
            os.close(fd)
            data += b"".join(chunks)
        fields, binary = parse(data)
        with open(out, "a") as f:
            f.write(json.dumps({"fields": fields, "binary": binary, "fds": len(fds)}) + "\n")

serve(*sys.argv[1:4])
EOF2

# journal.txt: the records, one a line, "KEY=VALUE|KEY=VALUE|...", a
# newline in a value shown as <NL>, then "|!binary=KEY,..." naming the
# fields framed as binary and "|!dup" if a field came twice
journal_text() {
	python3 - "$WORK/journal.jsonl" >"$WORK/journal.txt" <<'EOF3'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    keys = [k for k, v in r["fields"]]
    print("|".join("%s=%s" % (k, v.replace("\n", "<NL>")) for k, v in r["fields"])
          + "|!binary=" + ",".join(r["binary"]) + ("|!dup" if len(set(keys)) != len(keys) else "")
          + ("|!fds=%d" % r["fds"] if r["fds"] else ""))
EOF3
}
# record EVENT [RUN]: the first record of EVENT (of that run)
record() { grep "|BB_EVENT=$1|BB_RUN=${2:-}" "$WORK/journal.txt" | head -1; }
# run_of FILE: the run id of the first logfmt line in FILE
run_of() { sed -n 's/^ts=[^ ]* level=[a-z]* run=\([0-9a-f]*\) .*/\1/p' "$1" | head -1; }

cat >config-body <<EOF2
[bugzilla]
first_sync = all
backfill_confirm = 100000
url = http://127.0.0.1:$(free_port)
products = Drivers
[inbound]
authenticate = none
[sync]
retry_min = 1s
retry_max = 2s
EOF2
write_config <config-body
cp "$BUGBRIDGE_CONFIG" good.conf
# a data folder with a newline in its name (the file's \n): a field value
# holding a newline, which the native protocol frames as binary
sed 's|^data_dir = .*|data_dir = '"$WORK"'/new\\nline|' good.conf >newline.conf

# In the namespace: a tmpfs over $mnt, the stand-in socket in it, then
# bugbridge with the journal's stream and without.  Everything it starts
# is stopped by pid before it returns; the checks are made outside.
cat >inner.sh <<'EOF2'
set -u
cd "$WORK" || exit 1
rpid= dpid=
stop() {
	[ -n "$dpid" ] && kill -KILL "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	[ -n "$rpid" ] && kill -TERM "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null
	dpid= rpid=
}
trap stop EXIT
fail() { echo "$*" >>ns.fail; exit 1; }
mount -t tmpfs -o mode=0755 tmpfs "$MNT" || fail "cannot mount a tmpfs on $MNT"
mkdir -p /run/systemd/journal || fail "cannot make /run/systemd/journal"
sock=/run/systemd/journal/socket
: >journal.jsonl
python3 journal_sink.py "$sock" journal.jsonl sink.ready 2>sink.err &
rpid=$!
for _ in $(seq 1 200); do [ -s sink.ready ] && break; sleep 0.05; done
[ -S "$sock" ] || fail "the journald stand-in did not start"
# wait_for PATTERN: until a record matches (10 s at most)
wait_for() {
	for _ in $(seq 1 200); do
		grep -q -- "$1" journal.jsonl && return 0
		sleep 0.05
	done
	fail "no record matching $1"
}
# stream FILE: its <device>:<inode>, as systemd puts them in JOURNAL_STREAM
stream() { stat -c %d:%i "$1"; }

# 1. the daemon, standard error the journal's stream: info (-v), the
# warning of every start and a failed round; then an error: a reload fails
: >daemon.err
JOURNAL_STREAM=$(stream daemon.err) "$BUGBRIDGE" -v daemon --interval 1s >daemon.out 2>>daemon.err &
dpid=$!
wait_for '"BB_EVENT", "daemon.round_failed"'
printf '[bugzilla\nurl = \n' >>"$BUGBRIDGE_CONFIG"
kill -HUP "$dpid"
wait_for '"BB_EVENT", "config.reload_failed"'
cp good.conf "$BUGBRIDGE_CONFIG"
kill -TERM "$dpid"
wait "$dpid"
echo $? >daemon.rc
dpid=

# 2. JOURNAL_STREAM names another file than standard error, or is garbage
: >other.err
: >elsewhere
JOURNAL_STREAM=$(stream elsewhere) "$BUGBRIDGE" blob ls >/dev/null 2>>other.err
echo $? >other.rc
: >garbage.err
JOURNAL_STREAM="$(stream garbage.err)x" "$BUGBRIDGE" blob ls >/dev/null 2>>garbage.err
echo $? >garbage.rc

# 3. a one-shot command on the journal's stream, a newline in a value; the
# socket keeps datagrams in order: once this is read, so is all before it
: >newline.err
JOURNAL_STREAM=$(stream newline.err) "$BUGBRIDGE" -v --config newline.conf blob ls \
	>/dev/null 2>>newline.err
echo $? >newline.rc
wait_for 'new\\nline'

# 4. the right stream, but nobody reads the socket, then no socket at all
kill -TERM "$rpid"
wait "$rpid"
rpid=
: >refused.err
JOURNAL_STREAM=$(stream refused.err) "$BUGBRIDGE" blob ls >/dev/null 2>>refused.err
echo $? >refused.rc
rm -f "$sock"
: >nosocket.err
JOURNAL_STREAM=$(stream nosocket.err) "$BUGBRIDGE" blob ls >/dev/null 2>>nosocket.err
echo $? >nosocket.rc
exit 0
EOF2

start=$(date +%s)
export WORK BUGBRIDGE BUGBRIDGE_CONFIG
MNT=$mnt timeout -s KILL 60 unshare -rm sh inner.sh >inner.out 2>&1
inner_rc=$?
diag "the namespace part took $(($(date +%s) - start)) s"
if [ -s ns.fail ] || [ "$inner_rc" -ne 0 ]; then
	not_ok "the namespace part ran (exit $inner_rc)"
	cat ns.fail inner.out sink.err 2>/dev/null | head -20 | sed 's/^/#   /'
else
	ok "the namespace part ran"
fi
journal_text

# --- 1. the daemon on the journal's stream
is "the daemon stopped cleanly" "$(cat daemon.rc 2>/dev/null)" "0"
run=$(sed -n 's/.*|BB_EVENT=daemon\.start|BB_RUN=\([^|]*\)|.*/\1/p' journal.txt)
like "the stand-in journal got its records, one run id (8 hex digits)" "$run" '^[0-9a-f]{8}$'
is "every record names bugbridge (SYSLOG_IDENTIFIER)" \
	"$(grep -vc '|SYSLOG_IDENTIFIER=bugbridge|' journal.txt)" "0"
is "no record has a field twice, nor one that does not parse" \
	"$(grep -c '|!dup\||!\(TRAILING\|BADBINARY\)=' journal.txt)" "0"

r=$(record config.reload_failed "$run")
like "an error: PRIORITY=3" "$r" '\|PRIORITY=3\|'
like "MESSAGE is the logfmt text from the event on" "$r" \
	'^MESSAGE=config\.reload_failed error="[^|]+" kept="the configuration in effect"\|'
like "each field as BB_<KEY>, unquoted" "$r" \
	'\|BB_ERROR=config [^|"]+\|BB_KEPT=the configuration in effect\|'
like "and the event in BB_EVENT" "$r" '\|BB_EVENT=config\.reload_failed\|'

r=$(record daemon.round_failed "$run")
like "a warning: PRIORITY=4" "$r" '\|PRIORITY=4\|'
like "with its fields: BB_ERROR, BB_RETRY" "$r" \
	'\|BB_ERROR=http://127\.0\.0\.1:[0-9]+/[^|]*\|BB_RETRY=retry-later\|'
r=$(record inbound.authenticate_none "$run")
like "the warning of every start: PRIORITY=4, BB_WHY" "$r" \
	'\|PRIORITY=4\|.*\|BB_WHY=\[inbound\] authenticate = none: anyone'
like "quoted in MESSAGE as logfmt quotes it" "$r" \
	'^MESSAGE=inbound\.authenticate_none why="\[inbound\] authenticate = none: anyone'
like "info: PRIORITY=6" "$(record daemon.start "$run")" '\|PRIORITY=6\|.*\|BB_INTERVAL=1\|'
like "debug (-v): PRIORITY=7" "$(grep "|BB_RUN=$run|" journal.txt)" '\|PRIORITY=7\|'
like "the daemon's last words too" "$(record daemon.stop "$run")" '\|PRIORITY=6\|.*\|BB_SIGNAL=15\|'
is "nothing went to standard error" "$(cat daemon.err)" ""

# --- 2. another stream than standard error's
other=$(run_of other.err)
like "a JOURNAL_STREAM that is not standard error's: logfmt on standard error" "$(cat other.err)" \
	'^ts=[0-9TZ:-]+ level=warn run=[0-9a-f]{8} event=inbound\.authenticate_none why="'
is "and the journal got nothing of it" "$(grep -c "|BB_RUN=$other|" journal.txt)" "0"
is "the command works as ever" "$(cat other.rc 2>/dev/null)" "0"
garbage=$(run_of garbage.err)
like "so does one that is not <dev>:<inode>" "$(cat garbage.err)" \
	'level=warn .*event=inbound\.authenticate_none'
is "the journal got nothing of that either" "$(grep -c "|BB_RUN=$garbage|" journal.txt)" "0"
is "and the command works" "$(cat garbage.rc 2>/dev/null)" "0"

# --- 3. a one-shot command, a newline in a value
is "a one-shot command on the journal's stream works" "$(cat newline.rc 2>/dev/null)" "0"
is "and writes nothing to standard error" "$(cat newline.err)" ""
r=$(grep -m1 '|BB_PATH=[^|]*/new<NL>line/' journal.txt)
like "a value with a newline arrives whole, framed as binary" "$r" '\|!binary=BB_PATH$'
like "while MESSAGE has it escaped, as logfmt does" "$r" '^MESSAGE=[^|]* path="[^|"]*/new\\nline/'
is "all records came from the two runs on the journal's stream" \
	"$(sed -n 's/.*|BB_RUN=\([^|]*\)|.*/\1/p' journal.txt | sort -u | wc -l)" "2"

# --- 4. journald gone
like "a socket nobody reads: the line is not lost, it goes to standard error" \
	"$(cat refused.err)" 'level=warn .*event=inbound\.authenticate_none'
is "and the command works" "$(cat refused.rc 2>/dev/null)" "0"
like "no socket at all (a stale JOURNAL_STREAM): standard error too" \
	"$(cat nosocket.err)" 'level=warn .*event=inbound\.authenticate_none'
like "  with its priority first, which journald reads (<4>: warning)" \
	"$(cat nosocket.err)" '^<4>ts=[^ ]+ level=warn .*event=inbound\.authenticate_none'
is "and the command works" "$(cat nosocket.rc 2>/dev/null)" "0"

# --- 5. the program's own messages on the journal's stream carry their
# priority ("<N>", which journald reads and strips), so that
# journalctl -p warning shows why a unit did not start; before logging is
# set up too, and a fatal configuration error is crit with file:line
printf '[core]\ndata_dir = %s/data\ndata_dri = x\n' "$WORK" >typo.conf
: >crit.err
JOURNAL_STREAM=$(stat -c %d:%i crit.err) "$BUGBRIDGE" --config typo.conf daemon >/dev/null 2>>crit.err
is "a configuration error at start: 78" "$?" "78"
like "  a crit line, naming the file and line" "$(cat crit.err)" \
	'^<2>bugbridge: config (.*/)?typo\.conf:3: unknown key "data_dri" in \[core\]'
: >err.err
JOURNAL_STREAM=$(stat -c %d:%i err.err) "$BUGBRIDGE" blob get "$(printf '%064d' 0)" >/dev/null 2>>err.err
like "an error: err" "$(cat err.err)" '^<3>bugbridge: '
unlike "  every line of it" "$(cat err.err)" '^[^<]'
printf '[core]\ndata_dir = %s/data\nlog_file = %s/no/such/folder/bb.log\n' "$WORK" "$WORK" >nolog.conf
: >warn.err
JOURNAL_STREAM=$(stat -c %d:%i warn.err) "$BUGBRIDGE" --config nolog.conf blob ls >/dev/null 2>>warn.err
like "a warning: warning" "$(cat warn.err)" '^<4>bugbridge: warning: cannot open log file'
"$BUGBRIDGE" --config typo.conf status >/dev/null 2>plain.err
like "on a terminal or a file, no prefix" "$(cat plain.err)" '^bugbridge: config '

done_testing
