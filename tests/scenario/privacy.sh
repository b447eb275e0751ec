#!/bin/sh
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

# an existing folder that the admin made keeps its mode
mkdir -p "$WORK/shared-data" && chmod 0755 "$WORK/shared-data"
printf '[core]\ndata_dir = %s/shared-data\n' "$WORK" >"$WORK/other.conf"
bb --config "$WORK/other.conf" blob ls >/dev/null 2>&1
is "an existing data folder keeps the mode its admin gave it" "$(mode_of "$WORK/shared-data")" 755
is "  but the database in it is 0640" "$(mode_of "$WORK/shared-data/bugbridge.db")" 640

done_testing
