#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Integrity: bugbridge check finds a database damaged in the middle (pages
# that status, sync and blob verify never read) and a corrupt blob, and says
# what; the daemon checks its database once it has told systemd it is ready
# and stops on damage (65, which the units do not restart); a database file
# that is empty or not SQLite's is refused by every command, never taken for
# a new database (which would mirror every bug again); and a new database
# is made whole before it appears, so a crash leaves no empty file.
. "$top_srcdir/tests/lib/common.sh"

command -v sqlite3 >/dev/null 2>&1 || skip_all "needs the sqlite3 shell"
write_config <<EOF2
[bugzilla]
url = http://127.0.0.1:9/
EOF2
DB="$WORK/data/bugbridge.db"
printf 'a log\n' >log.txt
bb blob put log.txt >/dev/null 2>&1
hash=$(bb blob ls 2>/dev/null | awk 'NR == 1 { print $1 }' | sed 's/^sha256://')

check_exit "check on a sound data folder exits 0" 0 bb check
like "  saying the database is ok" "$(cat "$WORK/check.out")" "database $DB: ok"
like "  and the blobs" "$(cat "$WORK/check.out")" "blobs: 1 checked, 0 bad"

# one page of an index in the middle of the file, one no command here reads
sqlite3 "$DB" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
page=$(sqlite3 "$DB" "SELECT rootpage FROM sqlite_master WHERE name = 'imp_attachment_by_bug'")
psize=$(sqlite3 "$DB" 'PRAGMA page_size')
pages=$(sqlite3 "$DB" 'PRAGMA page_count')
ok "the page is in the middle of the file (page $page of $pages)"
python3 -c "import sys; f = open(sys.argv[1], 'r+b'); f.seek((int(sys.argv[2]) - 1) * int(sys.argv[3])); f.write(b'\xa5' * int(sys.argv[3]))" \
	"$DB" "$page" "$psize"
check_exit "status does not notice" 0 bb status
check_exit "nor does blob verify" 0 bb blob verify
check_exit "check does: 65" 65 bb check
like "  naming the database and the damaged page" "$(cat "$WORK/check.out")" \
	"database $DB: damaged"
like "  with SQLite's finding" "$(cat "$WORK/check.out")" "Page $page"
bb check --json >check.json 2>/dev/null
is "check --json too: 65" "$?" "65"
is "  as JSON" "$(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print(d["database"]["ok"], d["blobs"]["bad"])' \
	check.json 2>&1)" "False 0"

notify_start daemon
NOTIFY_SOCKET="$WORK/daemon.sock" bb daemon --interval 1s >daemon.out 2>daemon.err
is "the daemon stops on damage: 65" "$?" "65"
like "  saying what is damaged" "$(cat daemon.err)" "database $DB is damaged \(PRAGMA quick_check\)"
like "  after telling systemd it is ready (a long check must not miss the start timeout)" \
	"$(tr '\n' ' ' <"$notify_log")" "READY=1.*STATUS=checking the database.*STATUS=stopped: the database .* is damaged"
unlike "  and before any round" "$(cat "$notify_log")" "first round|last round"

# a corrupt blob, on a sound database
rm -f "$DB" "$DB-wal" "$DB-shm"
bb blob put log.txt >/dev/null 2>&1
blobfile="$WORK/data/blobs/sha256/$(echo "$hash" | cut -c1-2)/$(echo "$hash" | cut -c3-)"
chmod u+w "$blobfile" 2>/dev/null
printf 'A log\n' >"$blobfile"
check_exit "check finds a corrupt blob: 65" 65 bb check
like "  naming it" "$(cat "$WORK/check.out")" "sha256:$hash corrupt"
check_exit "check --database-only skips the blobs" 0 bb check --database-only
printf 'a log\n' >"$blobfile"

# a database file that is empty, or not SQLite's
rm -f "$DB" "$DB-wal" "$DB-shm"
: >"$DB"
for cmd in "blob put log.txt" status check sync "outbox retry"; do
	# shellcheck disable=SC2086
	check_exit "an empty (0-byte) database: $cmd refuses it (65)" 65 bb $cmd
done
like "  saying what it is and what to do" "$(cat "$WORK/check.out")" \
	"the database $DB is empty \(0 bytes\), not a bugbridge database: restore it from a backup"
is "  and leaves it as it is" "$(stat -c %s "$DB")" "0"
printf 'not a database, just text that happens to be longer than a header\n' >"$DB"
check_exit "a file without SQLite's header is refused too (65)" 65 bb status
like "  saying so" "$(cat "$WORK/check.out")" "is not an SQLite database"
is "  unchanged" "$(head -c 14 "$DB")" "not a database"

# a crash while a new database is made leaves no empty file: it appears
# only whole (its header written under a temporary name, then linked)
rm -f "$DB" "$DB-wal" "$DB-shm"
BUGBRIDGE_CRASH_AT=store.create bb blob put log.txt >/dev/null 2>&1
is "killed while a new database is made" "$?" "137"
test ! -e "$DB"
is "  it leaves no database file, empty or not" "$?" "0"
check_exit "and the next command makes it whole" 0 bb blob put log.txt
ls "$WORK/data" | grep -q '\.new-' && not_ok "no temporary database is left" || ok "no temporary database is left"
check_exit "which check finds sound" 0 bb check

done_testing
