#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What holds private data is private: the data folder, the database with its
# -wal and -shm files, and the log, whatever the umask of whoever ran first.
. "$top_srcdir/tests/lib/common.sh"

mode_of() { stat -c '%a' "$1" 2>/dev/null || echo missing; }

write_config <<EOF
log_file = $WORK/log/bugbridge.log
EOF
mkdir -p "$WORK/log"
printf 'a kernel log\n' >"$WORK/dmesg.txt"

# the widest umask there is: nothing may come out world-readable
(umask 000 && bb blob put "$WORK/dmesg.txt" >/dev/null 2>&1)
is "the data folder is 0750 under umask 000" "$(mode_of "$WORK/data")" 750
is "the database is 0640 under umask 000" "$(mode_of "$WORK/data/bugbridge.db")" 640
is "the log is 0640 under umask 000" "$(mode_of "$WORK/log/bugbridge.log")" 640

# a narrow umask does not take the group's read bit (the service's group
# runs read-only commands)
rm -rf "$WORK/data" "$WORK/log/bugbridge.log"
(umask 077 && bb blob put "$WORK/dmesg.txt" >/dev/null 2>&1)
is "the data folder is 0750 under umask 077" "$(mode_of "$WORK/data")" 750
is "the database is 0640 under umask 077" "$(mode_of "$WORK/data/bugbridge.db")" 640
is "the log is 0640 under umask 077" "$(mode_of "$WORK/log/bugbridge.log")" 640

# files an older version left world-readable are narrowed when next opened
chmod 0666 "$WORK/data/bugbridge.db" "$WORK/log/bugbridge.log"
bb blob ls >/dev/null 2>&1
is "a world-readable database is narrowed to 0640" "$(mode_of "$WORK/data/bugbridge.db")" 640
is "a world-readable log is narrowed to 0640" "$(mode_of "$WORK/log/bugbridge.log")" 640

# -wal and -shm exist while a process has the database open: hold it open
# with a running server and look
chmod 0644 "$WORK/data/bugbridge.db"
(umask 000 && exec "$BUGBRIDGE" serve --listen 127.0.0.1:0 --port-file "$WORK/port" \
	>/dev/null 2>"$WORK/serve.log") &
server=$!
CLEANUP_PIDS="$CLEANUP_PIDS $server"
for _ in $(seq 1 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
if [ -s "$WORK/port" ]; then
	# a blob put from another process writes through the WAL
	(umask 000 && bb blob put "$WORK/dmesg.txt" >/dev/null 2>&1)
	printf 'other\n' >"$WORK/other.txt"
	(umask 000 && bb blob put "$WORK/other.txt" >/dev/null 2>&1)
	is "the -wal file is 0640" "$(mode_of "$WORK/data/bugbridge.db-wal")" 640
	is "the -shm file is 0640" "$(mode_of "$WORK/data/bugbridge.db-shm")" 640
else
	not_ok "serve started"
	sed 's/^/#   /' "$WORK/serve.log"
fi
kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
CLEANUP_PIDS=$(printf '%s\n' $CLEANUP_PIDS | grep -vx "$server" | tr '\n' ' ')

# Read-only commands create nothing: status in a folder with no data
mkdir -p "$WORK/elsewhere"
(cd "$WORK/elsewhere" && env -u BUGBRIDGE_CONFIG "$BUGBRIDGE" status >status.out 2>&1)
is "status with no data exits 0" "$?" "0"
like "and says there is no database yet" "$(cat "$WORK/elsewhere/status.out")" "does not exist yet"
is "but creates no data folder" "$(ls "$WORK/elsewhere")" "status.out"
(cd "$WORK/elsewhere" && env -u BUGBRIDGE_CONFIG "$BUGBRIDGE" regressions >/dev/null 2>&1;
 env -u BUGBRIDGE_CONFIG "$BUGBRIDGE" blob ls >/dev/null 2>&1)
is "nor do regressions or blob ls" "$(ls "$WORK/elsewhere")" "status.out"

# A member of the service's group (here: another user in the data's group)
# runs read-only commands against the files as they are: 0750 folder,
# 0640 database, nothing of theirs to write
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 0755 "$WORK"
	chmod 0644 "$WORK/bugbridge.conf"
	group=$(stat -c %g "$WORK/data")
	as_member() { setpriv --reuid=65534 --regid="$group" --clear-groups -- "$@"; }
	before=$(ls -la "$WORK/data" | md5sum)
	out=$(as_member "$BUGBRIDGE" status --json 2>&1)
	like "another user of the group runs status" "$out" '"database_exists": *true'
	out=$(as_member "$BUGBRIDGE" blob ls 2>&1)
	like "and blob ls, which lists what is stored" "$out" "dmesg.txt"
	unlike "without 'attempt to write a readonly database'" "$out" "readonly"
	is "and changes nothing in the data folder" "$(ls -la "$WORK/data" | md5sum)" "$before"
	check_exit "a writing command as that user is refused (77, permission)" 77 as_member "$BUGBRIDGE" blob put "$WORK/dmesg.txt"
	chmod 0700 "$WORK"
	chmod 0600 "$WORK/bugbridge.conf"
else
	ok "# SKIP needs root and setpriv(1) to act as another user"
	for n in 2 3 4 5; do ok "# SKIP needs root and setpriv(1)"; done
fi

# an existing folder that the admin made keeps its mode
mkdir -p "$WORK/shared-data" && chmod 0755 "$WORK/shared-data"
printf '[core]\ndata_dir = %s/shared-data\n' "$WORK" >"$WORK/other.conf"
bb --config "$WORK/other.conf" blob put "$WORK/dmesg.txt" >/dev/null 2>&1
is "an existing data folder keeps the mode its admin gave it" "$(mode_of "$WORK/shared-data")" 755
is "  but the database in it is 0640" "$(mode_of "$WORK/shared-data/bugbridge.db")" 640

done_testing
