#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Crash safety of the outbound bridge.  A scenario of two sync rounds (new
# bugs; then a new attachment, a new comment and a status change) runs once
# to a reference archive.  Then, for every test hook and every N, the binary
# is killed the Nth time it reaches the hook (BUGBRIDGE_CRASH_AT), counting
# over both rounds, and resumed; the archive must end up holding exactly the
# reference mail: none missing, none twice, the same bytes; and no row of
# the outbox may be left queued or failed.  N goes up until a whole scenario
# reaches the hook fewer than N times.
#
# One fake Bugzilla and one list lab (SMTP -> public-inbox) serve every run.
# Each run has its own data folder and its own [mail] domain, so its
# Message-IDs (bug-N@DOMAIN, ...) are its own in the archive.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

HOOKS="sync.fetched blob.write blob.synced blob.placed blob.recorded sync.bug
sync.committed outbox.accepted outbox.marked"

listlab_start
epoch="$WORK/listlab/inbox/git/0.git"

random_bytes 3000 21 >fw.bin
random_bytes 2000 22 >dump2.bin
cat >state1.json <<EOF
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123"},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "dev@example.org", "real_name": "Dev Eloper", "insider": true}],
  "products": [{"name": "Drivers", "components": ["Wireless", "USB"]}],
  "bugs": [
    {"id": 201, "summary": "iwlwifi: firmware crash after resume", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Wi-Fi dies after every resume since 6.6.1."},
                  {"creator": "dev@example.org", "creation_time": "2026-12-03T08:10:00Z",
                   "text": "PRIVATE-SECRET-NOTE do not mail", "is_private": true}],
     "attachments": [{"file_name": "fw-dump.bin", "summary": "firmware dump",
                      "content_type": "application/octet-stream",
                      "data": "$(base64 -w0 fw.bin)",
                      "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z"}]},
    {"id": 202, "summary": "xhci: port resets after hotplug", "product": "Drivers",
     "component": "USB", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:20:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:20:00Z",
                   "text": "Every hotplug resets the other ports."},
                  {"creator": "dev@example.org", "creation_time": "2026-12-03T08:30:00Z",
                   "text": "Which controller is it?"}]}
  ]
}
EOF
/usr/bin/python3 "$top_srcdir/tests/lib/fake_bugzilla.py" --state state1.json \
	--port-file bz.port --log bz.log >bz.out 2>&1 &
CLEANUP_PIDS="$CLEANUP_PIDS $!"
for _ in $(seq 1 100); do [ -s bz.port ] && break; sleep 0.1; done
bz="http://127.0.0.1:$(cat bz.port)"
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }

# What a run left: every archived message of DOMAIN (its Message-ID and the
# SHA-256 of its bytes, DOMAIN and the mark's value replaced by placeholders
# and header lines unfolded), sorted, then the outbox's counts by state.  A message archived
# twice shows up twice.  Given a FILE, appends to it how many rows were
# refused as duplicates.
cat >snapshot.py <<'EOF'
import hashlib, re, sqlite3, subprocess, sys
epoch, domain, db = sys.argv[1:4]
lines = []
revs = subprocess.run(["git", "--git-dir", epoch, "rev-list", "--reverse", "HEAD"],
                      capture_output=True, text=True).stdout.split()
if revs:
    out = subprocess.run(["git", "--git-dir", epoch, "cat-file", "--batch"],
                         input="".join(r + ":m\n" for r in revs).encode(),
                         capture_output=True, check=True).stdout
    pos = 0
    while pos < len(out):
        nl = out.index(b"\n", pos)
        size = int(out[pos:nl].split()[2])
        blob = out[nl + 1:nl + 1 + size].replace(b"\r\n", b"\n")
        pos = nl + 1 + size + 1
        head, _, body = blob.partition(b"\n\n")
        ids = re.findall(rb"(?im)^message-id:\s*<([^>]*)>", head)
        mine = [i for i in ids if i.endswith(b"@" + domain.encode())]
        if not mine:
            continue
        # header lines fold where the domain's length puts them; each run's
        # state has its own key, so X-Bugbridge-Mark's value is its own
        head = re.sub(rb"\n[ \t]+", b" ", head.replace(domain.encode(), b"DOMAIN"))
        head = re.sub(rb"(?im)^(x-bugbridge-mark:) *[0-9a-f]{32}$", rb"\1 MARK", head)
        blob = head + b"\n\n" + body.replace(domain.encode(), b"DOMAIN")
        lines.append("%s %s" % (mine[0].decode().replace(domain, "DOMAIN"),
                                hashlib.sha256(blob).hexdigest()[:16]))
for line in sorted(lines):
    print(line)
# A mail sent again after a crash between the server's 250 and the commit
# is the same message: the archive keeps one copy and the list answers 250.
counts = {"queued": 0, "sent": 0, "failed": 0}
for mid, state, attempts in sqlite3.connect(db).execute(
        "SELECT message_id, state, attempts FROM outbox"):
    counts[state] = counts.get(state, 0) + 1
print("outbox: queued=%(queued)d sent=%(sent)d failed=%(failed)d" % counts)
EOF

# sync_round CRASH: one round (sync --once), with BUGBRIDGE_CRASH_AT=CRASH
# when given; a killed round is resumed without it.  Sets KILLED (0/1);
# RUN_ERROR names anything else that went wrong.
sync_round() {
	KILLED=0
	if [ -n "$1" ]; then
		BUGBRIDGE_CRASH_AT=$1 "$BUGBRIDGE" sync --once >>"$run/sync.log" 2>&1
	else
		"$BUGBRIDGE" sync --once >>"$run/sync.log" 2>&1
	fi
	rc=$?
	if [ "$rc" -eq 137 ]; then
		KILLED=1
		"$BUGBRIDGE" sync --once >>"$run/sync.log" 2>&1
		rc=$?
		[ "$rc" -eq 0 ] || RUN_ERROR="$RUN_ERROR; the resumed sync exited $rc"
	elif [ "$rc" -ne 0 ]; then
		RUN_ERROR="$RUN_ERROR; sync with crash point '$1' exited $rc"
	fi
}

# scenario NAME HOOK N: both rounds under the domain NAME.crash.test, with
# the hook's Nth hit killing the binary (HOOK "" for no crash).  The hits of
# round 1 count first: once a round 1 does not die, it reached the hook
# ROUND1_HITS = N - 1 times, and round 2 dies at hit N - ROUND1_HITS.  Sets
# SNAP1 and SNAP2 (snapshots after each round) and WHERE (which round died).
scenario() {
	run="$WORK/runs/$1"
	dom="$1.crash.test"
	RUN_ERROR=""
	WHERE="none"
	mkdir -p "$run"
	cat >"$run/bugbridge.conf" <<EOF
[core]
data_dir = $run/data
log_level = warn
$(listlab_bridge_config --domain "$dom")
[blob]
base_url = http://blobs.test
EOF
	chmod 600 "$run/bugbridge.conf"
	export BUGBRIDGE_CONFIG="$run/bugbridge.conf"

	curl -sf -X POST --data-binary @state1.json "$bz/__admin/state" >/dev/null ||
		RUN_ERROR="$RUN_ERROR; loading state1.json failed"
	sync_round "${2:+$2:$3}"
	if [ "$KILLED" = 1 ]; then
		WHERE="round 1"
	elif [ -n "$2" ] && [ -z "${ROUND1_HITS:-}" ]; then
		ROUND1_HITS=$(($3 - 1))
	fi
	SNAP1=$(python3 snapshot.py "$epoch" "$dom" "$run/data/bugbridge.db" 2>&1)

	if [ ! -f state2.json ]; then
		# the reference run makes round 2's changes and keeps the result
		admin clock '{"advance": 60}'
		admin attachment "{\"bug_id\": 201, \"file_name\": \"fw-dump-2.bin\",
			\"summary\": \"second dump\", \"content_type\": \"application/octet-stream\",
			\"data\": \"$(base64 -w0 dump2.bin)\", \"creator\": \"ines@example.net\",
			\"comment\": \"The same crash with 6.7-rc2.\"}"
		admin comment '{"bug_id": 201, "creator": "dev@example.org",
			"text": "(In reply to Ines Reporter from comment #2)\nThanks, that narrows it down."}'
		admin clock '{"advance": 60}'
		admin bug '{"id": 202, "merge": true, "status": "RESOLVED", "resolution": "FIXED"}'
		curl -sf "$bz/__admin/state" >state2.json
	fi
	curl -sf -X POST --data-binary @state2.json "$bz/__admin/state" >/dev/null ||
		RUN_ERROR="$RUN_ERROR; loading state2.json failed"
	crash2=""
	if [ -n "$2" ] && [ "$WHERE" = "none" ]; then
		crash2="$2:$(($3 - ROUND1_HITS))"
	fi
	sync_round "$crash2"
	[ "$KILLED" = 1 ] && WHERE="round 2 (hit $(($3 - ROUND1_HITS)))"
	SNAP2=$(python3 snapshot.py "$epoch" "$dom" "$run/data/bugbridge.db" 2>&1)
}

# same NAME: ok when both snapshots match the reference's.
same() {
	if [ -z "$RUN_ERROR" ] && [ "$SNAP1" = "$REF1" ] && [ "$SNAP2" = "$REF2" ]; then
		ok "$1"
		return
	fi
	not_ok "$1"
	[ -n "$RUN_ERROR" ] && diag "${RUN_ERROR#; }"
	printf '%s\n' "$REF1" >"$run/ref1"; printf '%s\n' "$SNAP1" >"$run/got1"
	printf '%s\n' "$REF2" >"$run/ref2"; printf '%s\n' "$SNAP2" >"$run/got2"
	diff -u "$run/ref1" "$run/got1" | sed 's/^/#   after round 1: /'
	diff -u "$run/ref2" "$run/got2" | sed 's/^/#   after round 2: /'
	tail -5 "$run/sync.log" | sed 's/^/#   sync: /'
}

# --- the reference ---------------------------------------------------------
started=$(date +%s)
scenario ref "" 0
REF1=$SNAP1
REF2=$SNAP2
is "reference: both rounds run without trouble" "$RUN_ERROR" ""
is "reference: round 1 archives the two bugs and the public comment (in a backlog summary: it predates the mirror)" \
	"$(printf '%s\n' "$REF1" | cut -d' ' -f1 | tr '\n' ' ')" \
	"bug-201@DOMAIN bug-202-s1@DOMAIN bug-202@DOMAIN outbox: "
like "reference: round 2 archives the attachment's comment, the reply and the status change" \
	"$(printf '%s\n' "$REF2" | cut -d' ' -f1 | tr '\n' ' ')" \
	"^bug-201-c2@DOMAIN bug-201-c3@DOMAIN bug-201@DOMAIN bug-202-s1@DOMAIN bug-202-u[0-9]+@DOMAIN bug-202@DOMAIN outbox: $"
is "reference: every row of the outbox is sent" "$(printf '%s\n' "$REF2" | tail -1)" \
	"outbox: queued=0 sent=6 failed=0"
ref_all=$(for id in bug-201 bug-201-c2 bug-201-c3; do listlab_raw "$id@ref.crash.test"; done)
like "reference: the first attachment is linked by its hash" "$ref_all" "sha256:$(sha256_of fw.bin)"
like "reference: the second one too" "$ref_all" "sha256:$(sha256_of dump2.bin)"
unlike "reference: the private comment is not mailed" "$ref_all" "PRIVATE-SECRET-NOTE"

# --- every crash point -----------------------------------------------------
points=0
for hook in $HOOKS; do
	ROUND1_HITS=""
	n=1
	while [ "$n" -le 50 ]; do
		scenario "$(echo "$hook" | tr . -)-$n" "$hook" "$n"
		if [ "$WHERE" = "none" ]; then
			same "$hook:$n is not reached ($ROUND1_HITS + $((n - 1 - ROUND1_HITS)) hits): the run matches the reference"
			break
		fi
		points=$((points + 1))
		same "killed at $hook:$n in $WHERE, resumed: the archive holds exactly the reference mail"
		n=$((n + 1))
	done
	[ "$n" -le 50 ] || not_ok "$hook is still reached after 50 hits"
	[ "$n" -gt 1 ] || not_ok "$hook is never reached"
done
diag "$points crash points in $(($(date +%s) - started)) s"

done_testing
