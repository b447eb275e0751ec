#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Read-only use as another user: the data folder is laid out as the
# service leaves it (owner the service user, group the service's group,
# folder 0750, database and log 0640, configuration root:group 0640) and a
# member of that group who is not its owner runs every read-only command:
# each works, and nothing in the data folder, the log folder or the user's
# home changes, -wal and -shm files included, also while the service holds
# the database open and when another tool has removed -wal and -shm.
# Writing commands as that user fail clearly; a user outside the group is
# refused with "Permission denied".
. "$top_srcdir/tests/lib/common.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to run commands as other users"
command -v setpriv >/dev/null 2>&1 || skip_all "needs setpriv(1) from util-linux"

# numeric ids no passwd or group entry names
free_id() {
	n=$1
	while getent passwd "$n" >/dev/null 2>&1 || getent group "$n" >/dev/null 2>&1; do
		n=$((n + 1))
	done
	echo "$n"
}
GRP=$(free_id 64123)          # the service's group
SVC=$(free_id $((GRP + 1)))   # the service user
RDR=$(free_id $((SVC + 1)))   # an admin in the service's group
OUT=$(free_id $((RDR + 1)))   # a user outside it (and its own group)

# (the system's python3 starts faster than a version manager's shim)
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
command -v "$PY" >/dev/null 2>&1 || skip_all "python3 is not installed"

# the sanitizer runtimes' own files would be writes too: no log_path
ASAN_OPTIONS=$(printf '%s' "${ASAN_OPTIONS:-}" | sed 's/\(^\|:\)log_path=[^:]*//g')
export ASAN_OPTIONS

ETC="$WORK/etc"
DATA="$WORK/state%41"     # a '%' in the name: SQLite URIs must not decode it
LOGDIR="$WORK/log"
NOHOME="$WORK/nohome"     # HOME and working folder: nobody but root writes it
RUN="$WORK/run"           # the service's runtime folder (a port file)
mkdir -p "$ETC" "$DATA" "$LOGDIR" "$NOHOME" "$RUN" "$WORK/demo"
chmod 0711 "$WORK"
chmod 0755 "$NOHOME" "$WORK/demo"
cp "$top_srcdir"/demo/* "$WORK/demo/" && chmod a+r "$WORK"/demo/*
# as systemd makes them: StateDirectory= and LogsDirectory= 0750 user:group,
# the tmpfiles.d entry /etc/bugbridge root:group 0750 and the file 0640
chown "$SVC:$GRP" "$DATA" "$LOGDIR" "$RUN"
chmod 0750 "$DATA" "$LOGDIR" "$RUN"
chown "0:$GRP" "$ETC"
chmod 0750 "$ETC"
CONF="$ETC/bugbridge.conf"
cat >"$CONF" <<EOF
[core]
data_dir = $DATA
log_file = $LOGDIR/bugbridge.log
log_level = info
[bugzilla]
first_sync = all
backfill_confirm = 100000
api_key_file = api_key
EOF
chown "0:$GRP" "$CONF"
chmod 0640 "$CONF"
# the secret where the docs put it: a file only the service's user reads
# (the group member's commands that need no secret never open it)
printf 'readonlysecret0123\n' >"$ETC/api_key"
chown "$SVC:$GRP" "$ETC/api_key"
chmod 0600 "$ETC/api_key"
unset BUGBRIDGE_CONFIG

# as UID GID command...: with no supplementary groups, HOME and the working
# folder where that user cannot write, and no XDG folders
as() {
	u=$1 g=$2
	shift 2
	(cd "$NOHOME" && exec env -u XDG_CONFIG_HOME -u XDG_STATE_HOME -u XDG_RUNTIME_DIR HOME="$NOHOME" \
		setpriv --reuid="$u" --regid="$g" --clear-groups -- "$@")
}
service() { as "$SVC" "$GRP" sh -c 'umask 0027 && exec "$@"' sh "$BUGBRIDGE" --config "$CONF" "$@"; }
reader() { as "$RDR" "$GRP" "$BUGBRIDGE" --config "$CONF" "$@"; }

# a build folder other users cannot reach (CI's clone is in a 0700 folder):
# the program is self-contained, so a copy in the work folder serves
if ! as "$RDR" "$GRP" test -x "$BUGBRIDGE"; then
	mkdir -p "$WORK/bin" && cp "$BUGBRIDGE" "$WORK/bin/bugbridge" && chmod 0755 "$WORK/bin" &&
		BUGBRIDGE="$WORK/bin/bugbridge"
	as "$RDR" "$GRP" test -x "$BUGBRIDGE" ||
		skip_all "another user cannot run $BUGBRIDGE (a folder on its path is not searchable by others)"
fi
as "$RDR" "$GRP" test -r "$CONF" ||
	skip_all "another user cannot reach $WORK (a folder above it is not searchable by others)"

# --- the service makes its data --------------------------------------------------
BUGBRIDGE_DEMO_DIR="$WORK/demo"
export BUGBRIDGE_DEMO_DIR
check "the service user runs the demo (blobs, mirrored bugs, outbox, a regression)" service demo
printf 'one more attachment\n' >"$WORK/more.txt"
chmod 0644 "$WORK/more.txt"
check "and stores one more blob" service blob put "$WORK/more.txt"
is "the data folder is 0750 $SVC:$GRP" "$(stat -c '%a %u:%g' "$DATA")" "750 $SVC:$GRP"
is "the database is 0640" "$(stat -c %a "$DATA/bugbridge.db")" 640
is "the log is 0640" "$(stat -c %a "$LOGDIR/bugbridge.log")" 640
is "the service's last command leaves -wal and -shm behind, 0640" \
	"$(stat -c %a "$DATA/bugbridge.db-wal" "$DATA/bugbridge.db-shm" 2>&1 | tr '\n' ' ')" "640 640 "

DMESG="$WORK/demo/dmesg-6.6.1-suspend.txt"
FW="$WORK/demo/iwlwifi-debug.bin"
dmesg_hash=$(sha256_of "$DMESG")
fw_hash=$(sha256_of "$FW")

snapshot() {
	find "$DATA" "$LOGDIR" "$ETC" "$NOHOME" -printf '%p %s %T@ %C@ %m %u %g\n' | sort
}
# unchanged NAME: the snapshot is still $before
unchanged() {
	now=$(snapshot)
	if [ "$now" = "$before" ]; then
		ok "$1"
	else
		not_ok "$1"
		printf '%s\n' "$before" >"$WORK/before.lst"
		printf '%s\n' "$now" >"$WORK/after.lst"
		diff "$WORK/before.lst" "$WORK/after.lst" | head -20 | sed 's/^/#   /'
	fi
}
# stderr of a read-only command: at most the note that the log file is not
# this user's to write
NOTE="warning: cannot open log file $LOGDIR/bugbridge.log; logging to standard error"
quiet_stderr() { grep -vF -- "$NOTE" "$1"; }

# ro NAME ARGS...: a read-only command as the group member: exit 0, stdout in
# $WORK/ro.out, nothing else on stderr
ro() {
	name=$1
	shift
	reader "$@" >"$WORK/ro.out" 2>"$WORK/ro.err"
	rc=$?
	extra=$(quiet_stderr "$WORK/ro.err")
	if [ "$rc" -eq 0 ] && [ -z "$extra" ]; then
		ok "$name"
	else
		not_ok "$name (exit $rc)"
		sed 's/^/#   /' "$WORK/ro.err" | head -10
	fi
}

# every read-only command; CASE names the state of the data folder
read_everything() {
	ro "status $1" status
	like "  which sees the mirrored bugs" "$(cat "$WORK/ro.out")" "mirrored: +2 bugs"
	ro "status --json $1" status --json
	is "  database_exists" "$("$PY" -c 'import json,sys; print(json.load(sys.stdin)["database_exists"])' \
		<"$WORK/ro.out" 2>&1)" "True"
	ro "config $1" config
	like "  shows the group-readable file, the secret's file named, never read" \
		"$(cat "$WORK/ro.out")" "api_key_file = api_key"
	ro "outbox $1" outbox
	like "  lists the demo's mail" "$(cat "$WORK/ro.out")" "^sent +bug 218104"
	ro "outbox --json $1" outbox --json
	ro "blob ls $1" blob ls
	like "  lists the stored blobs" "$(cat "$WORK/ro.out")" "more\.txt"
	ro "blob show $1" blob show "$dmesg_hash"
	like "  shows the blob" "$(cat "$WORK/ro.out")" "^hash: +sha256:$dmesg_hash"
	ro "blob get $1" blob get "$dmesg_hash"
	check "  gives the same bytes" cmp "$WORK/ro.out" "$DMESG"
	ro "blob get of a binary blob $1" blob get "$fw_hash"
	check "  gives the same bytes" cmp "$WORK/ro.out" "$FW"
	ro "regressions $1" regressions
	like "  lists the demo's regression" "$(cat "$WORK/ro.out")" "^ +1 +open +mainline"
	ro "regressions --json $1" regressions --json
	is "  as JSON" "$("$PY" -c 'import json,sys; print(json.load(sys.stdin)["regressions"][0]["id"])' \
		<"$WORK/ro.out" 2>&1)" "1"
	ro "regressions show $1" regressions show 1
	like "  shows it" "$(cat "$WORK/ro.out")" "^Regression #1:"
}

# the commands that read the database, once each (when the full round is
# above)
read_database() {
	ro "status $1" status
	like "  which sees the mirrored bugs" "$(cat "$WORK/ro.out")" "mirrored: +2 bugs"
	ro "outbox $1" outbox
	like "  lists the demo's mail" "$(cat "$WORK/ro.out")" "^sent +bug 218104"
	ro "blob ls $1" blob ls
	like "  lists the stored blobs" "$(cat "$WORK/ro.out")" "more\.txt"
	ro "blob get $1" blob get "$fw_hash"
	check "  gives the same bytes" cmp "$WORK/ro.out" "$FW"
	ro "regressions $1" regressions
	like "  lists the demo's regression" "$(cat "$WORK/ro.out")" "^ +1 +open +mainline"
}

# --- read-only as a member of the group ------------------------------------------
before=$(snapshot)
read_everything "(as a group member)"
unchanged "the group member changed nothing: data, log, configuration, home (sizes, times, modes, owners)"

# --- writing as a member of the group: refused, nothing changes ------------------
check_exit "blob put as the group member is refused (77)" 77 reader blob put "$WORK/more.txt"
like "  saying why" "$(cat "$WORK/check.out")" "readonly database|Permission denied"
check_exit "sync as the group member is refused: permission denied (77)" 77 reader sync
like "  saying why" "$(cat "$WORK/check.out")" "Permission denied"
check_exit "outbox retry as the group member is refused (77)" 77 reader outbox retry
like "  saying why" "$(cat "$WORK/check.out")" "readonly database|Permission denied"
unchanged "the refused writes changed nothing"

# --- a secret written in the group-readable file: accepted, with a warning
sed 's/^api_key_file = api_key$/api_key = readonlysecret0123/' "$CONF" >"$ETC/inline.conf"
chown "0:$GRP" "$ETC/inline.conf"
chmod 0640 "$ETC/inline.conf"
as "$RDR" "$GRP" "$BUGBRIDGE" --config "$ETC/inline.conf" config >/dev/null 2>"$WORK/inline.err"
like "config warns of a secret the group may read" "$(cat "$WORK/inline.err")" \
	"warning: \\[bugzilla\\] api_key is written in $ETC/inline.conf, which its group may read"
unlike "  without printing it" "$(cat "$WORK/inline.err")" "readonlysecret0123"
chmod 0640 "$ETC/api_key"
as "$RDR" "$GRP" "$BUGBRIDGE" --config "$CONF" config >/dev/null 2>"$WORK/inline.err"
like "so does a secret's file the group may read" "$(cat "$WORK/inline.err")" \
	"warning: \\[bugzilla\\] api_key_file: $ETC/api_key may be read by its group"
chmod 0600 "$ETC/api_key"
# the API key is read only by the commands that use it: a sync given its
# own data folder (past the lock) is refused for the key alone, 77
sed "s|^data_dir = .*|data_dir = $WORK/readers-own|" "$CONF" >"$ETC/own.conf"
chown "0:$GRP" "$ETC/own.conf"
chmod 0640 "$ETC/own.conf"
mkdir -p "$WORK/readers-own" && chown "$RDR:$GRP" "$WORK/readers-own"
check_exit "a sync needs the API key, which the group member may not read (77)" 77 \
	as "$RDR" "$GRP" "$BUGBRIDGE" --config "$ETC/own.conf" sync
like "  saying so" "$(cat "$WORK/check.out")" "api_key_file: .*Permission denied"
rm -rf "$WORK/readers-own" "$ETC/own.conf" "$ETC/inline.conf"
before=$(snapshot)

# --- the data folder on a read-only file system, as the service user: 77, the
# code the units' RestartPreventExitStatus= names (73 before: systemd
# restarted the daemon every 30 s forever) ---------------------------------------
# on_ro_data CMD...: CMD with $DATA bind-mounted read-only in a mount namespace
on_ro_data() {
	unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"' \
		sh "$DATA" setpriv --reuid="$SVC" --regid="$GRP" --clear-groups -- \
		"$BUGBRIDGE" --config "$CONF" "$@"
}
if unshare -m true 2>/dev/null; then
	check_exit "sync on a read-only data folder: permission problem (77)" 77 on_ro_data sync
	like "  saying why" "$(cat "$WORK/check.out")" "Read-only file system"
	check_exit "daemon on a read-only data folder: 77, not restarted by the unit" 77 on_ro_data daemon
	for unit in bugbridge-daemon.service bugbridge-serve.service; do
		like "$unit does not restart on 65, 77 or 78" \
			"$(grep '^RestartPreventExitStatus=' "$top_builddir/config/$unit")" "=65 77 78\$"
	done
	like "bugbridge(1) says so" "$(grep -ci 'the systemd units do not restart on \(65\|77\|78\)' \
		"$top_builddir/man/bugbridge.1")" "^3\$"
else
	ok "read-only data folder # SKIP unshare -m is not permitted here"
fi

# --- root on the service's data folder: refused, naming the command to
# use; with --as-owner it runs as the service's user and leaves nothing
# root-owned (before, sudo bugbridge blob put left root-owned folders the
# service could not write)
printf 'a blob root stores\n' >"$WORK/root.txt"
chmod 0644 "$WORK/root.txt"
(cd "$NOHOME" && "$BUGBRIDGE" --config "$CONF" blob put "$WORK/root.txt") >"$WORK/check.out" 2>&1
is "root's blob put on the service's data folder is refused (77)" "$?" "77"
like "  naming the command to run instead" "$(cat "$WORK/check.out")" \
	"belongs to (uid )?$SVC.*(sudo -u|setpriv --reuid=$SVC).*blob put .*or add --as-owner"
unchanged "  and root changed nothing"
(cd "$NOHOME" && "$BUGBRIDGE" --config "$CONF" status) >"$WORK/check.out" 2>&1
is "so is root's status (its reads could make -wal and -shm files of root's)" "$?" "77"
check "with --as-owner, root's blob put runs as the owner" \
	sh -c 'cd "$1" && shift && exec "$@"' sh "$NOHOME" "$BUGBRIDGE" --as-owner --config "$CONF" \
	blob put "$WORK/root.txt"
is "  nothing in the data folder or the log folder is root's" \
	"$(find "$DATA" "$LOGDIR" -uid 0 | wc -l)" "0"
like "  the blob is the owner's" "$(find "$DATA/blobs" -newer "$WORK/root.txt" -type f -printf '%u\n' | sort -u)" \
	"^$SVC\$"
check "root may still look at the configuration" sh -c 'cd "$1" && exec "$2" --config "$3" config' sh \
	"$NOHOME" "$BUGBRIDGE" "$CONF"
before=$(snapshot)

# --- a user outside the group ----------------------------------------------------
check_exit "outside the group, the service's configuration cannot be read: permission denied (77)" 77 \
	as "$OUT" "$OUT" "$BUGBRIDGE" --config "$CONF" status
like "  saying why" "$(cat "$WORK/check.out")" "Permission denied"
sed '/^\[bugzilla\]/,$d' "$CONF" >"$WORK/outsider.conf"
chmod 0644 "$WORK/outsider.conf"
for cmd in status "blob ls" regressions outbox; do
	# shellcheck disable=SC2086 # the subcommand is two words
	check_exit "outside the group, $cmd with a readable configuration is refused (77)" 77 \
		as "$OUT" "$OUT" "$BUGBRIDGE" --config "$WORK/outsider.conf" $cmd
	like "  saying why" "$(cat "$WORK/check.out")" "Permission denied"
done
check_exit "and blob get too (77)" 77 as "$OUT" "$OUT" "$BUGBRIDGE" --config "$WORK/outsider.conf" \
	blob get "$dmesg_hash"
unchanged "the outsider changed nothing"

# --- while the service holds the database open -----------------------------------
# (one process from & to the server, so that stop_server signals the server)
(cd "$NOHOME" && exec setpriv --reuid="$SVC" --regid="$GRP" --clear-groups -- \
	"$BUGBRIDGE" --config "$CONF" serve --listen 127.0.0.1:0 --port-file "$RUN/port" \
	>"$WORK/serve.out" 2>&1) &
spid=$!
CLEANUP_PIDS="$CLEANUP_PIDS $spid"
if wait_for_port "$RUN/port" "$spid"; then
	ok "the service's server runs"
	printf 'stored while serving\n' >"$WORK/live.txt"
	chmod 0644 "$WORK/live.txt"
	check "the service stores a blob while its server has the database open" service blob put "$WORK/live.txt"
	before=$(snapshot)
	ro "blob ls while the service runs" blob ls
	like "  sees the blob still in the -wal file" "$(cat "$WORK/ro.out")" "live\.txt"
	ro "status while the service runs" status
	ro "regressions while the service runs" regressions
	unchanged "and changes nothing"
else
	not_ok "the service's server runs"
	sed 's/^/#   /' "$WORK/serve.out" | head -10
fi
stop_server "$spid"
is "the server stops cleanly" "$?" "0"

# --- -wal and -shm removed by another tool (the sqlite3 shell, a restore) --------
if as "$SVC" "$GRP" "$PY" -c 'import sqlite3' 2>/dev/null; then
	as "$SVC" "$GRP" "$PY" -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("SELECT count(*) FROM sqlite_master").fetchall(); c.close()' \
		"$DATA/bugbridge.db"
	check "another tool's last close removes -wal and -shm" \
		test ! -e "$DATA/bugbridge.db-wal" -a ! -e "$DATA/bugbridge.db-shm"
	before=$(snapshot)
	read_database "(no -wal, no -shm)"
	unchanged "the group member created no -wal or -shm and changed nothing"
	check "the service's next write" service blob put "$WORK/more.txt"
	is "brings -wal and -shm back, 0640" \
		"$(stat -c %a "$DATA/bugbridge.db-wal" "$DATA/bugbridge.db-shm" 2>&1 | tr '\n' ' ')" "640 640 "
	before=$(snapshot)
	ro "and the group member reads again" blob ls
	unchanged "  changing nothing"
else
	ok "# SKIP the service user cannot run $PY (with sqlite3) to remove -wal and -shm"
fi

done_testing
