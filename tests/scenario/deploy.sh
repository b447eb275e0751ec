#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An install as an admin makes it, no container needed: the installed tree
# (make install DESTDIR=..., or the Debian package unpacked with dpkg-deb -x
# when $DEPLOY_ROOT names it, as .ci/run does) runs the daemon unit's own
# ExecStart line as the service's user, with its StateDirectory= in
# $STATE_DIRECTORY and working directory, and the unit's configuration and
# state folders bind-mounted from a scratch root in a private mount
# namespace; the sample configuration, copied as the admin does, is
# completed with a Bugzilla and a key in a 0600 file.  Then, from other
# working directories: status, regressions and config as an admin of the
# service's group, who may not read the key, and sync as the service's
# user (refused by the lock): all see the daemon's one data folder.
# Existing unprivileged ids stand in for the users (nobody, nogroup,
# daemon): nothing is added to the machine.  Root only; skipped without.
. "$top_srcdir/tests/lib/common.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root (a mount namespace, commands as other users); make check as root, or CI, runs it"
command -v setpriv >/dev/null 2>&1 || skip_all "needs setpriv(1) from util-linux"
unshare -m true 2>/dev/null || skip_all "unshare -m is not permitted here"
SVC=$(id -u nobody 2>/dev/null) && GRP=$(getent group nogroup | cut -d: -f3) &&
	ADMIN=$(id -u daemon 2>/dev/null) || skip_all "needs the users nobody and daemon and the group nogroup"

chmod 0711 "$WORK"
root=${DEPLOY_ROOT:-}
if [ -z "$root" ]; then
	root="$WORK/root"
	if ! make -C "$top_builddir" install DESTDIR="$root" >install.log 2>&1; then
		not_ok "make install"
		sed 's/^/#   /' install.log | tail -20
		done_testing
		exit 1
	fi
	what="make install DESTDIR"
else
	what="the package unpacked"
fi
unit=$(find "$root" -name bugbridge-daemon.service | head -1)
sample=$(find "$root" -name bugbridge.conf.sample | head -1)
if [ -z "$unit" ] || [ -z "$sample" ]; then
	not_ok "the tree has the daemon unit and the sample"
	done_testing
	exit 1
fi
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
prog=${exec_start%% *}
args=${exec_start#* }
conf=$(printf '%s\n' "$args" | sed -n 's/^--config \([^ ]*\) .*/\1/p')
etc_dir=$(dirname "$conf")
state_dir=/var/lib/$(sed -n 's/^StateDirectory=//p' "$unit")
# the configured folders must be reachable by the service's user, as /etc
# is (make distcheck installs under a private _inst folder: skipped there)
near=$etc_dir
while [ ! -d "$near" ]; do near=$(dirname "$near"); done
setpriv --reuid="$SVC" --regid="$GRP" --clear-groups -- test -x "$near" ||
	skip_all "the configured $etc_dir is under a folder other users cannot reach (a private prefix, as make distcheck's)"
ok "installed tree: $what ($root)"
like "ExecStart runs the installed program with the system's configuration" "$exec_start" \
	"^/[^ ]*/bin/bugbridge --config /[^ ]*/bugbridge/bugbridge\\.conf daemon\$"
is "StateDirectory= is /var/lib/bugbridge" "$state_dir" "/var/lib/bugbridge"

# the package itself, as Debian expects it (Policy 10.8, dh defaults), when
# .ci/run hands it over
if [ -n "${DEPLOY_DEB:-}" ]; then
	like "the package depends on git (the tracker and the archive reader run it)" \
		"$(dpkg-deb -f "$DEPLOY_DEB" Depends)" "(^|, )git(,|\$| )"
	mkdir -p control && dpkg-deb -e "$DEPLOY_DEB" control
	like "its prerm stops both units on remove" "$(tr '\n' ' ' <control/prerm 2>/dev/null)" \
		'remove.*deb-systemd-invoke stop bugbridge-daemon\.service bugbridge-serve\.service'
	like "its postrm removes /var/log/bugbridge on purge" "$(tr '\n' ' ' <control/postrm 2>/dev/null)" \
		'purge.*rm -rf /var/log/bugbridge'
	like "its copyright is machine-readable GPL-2.0-or-later" \
		"$(cat "$root/usr/share/doc/bugbridge/copyright" 2>/dev/null)" '^License: GPL-2\+$'
	like "README.Debian says what purge keeps" \
		"$(cat "$root/usr/share/doc/bugbridge/README.Debian" 2>/dev/null)" 'keeps, on purpose'
fi
binary="$root$prog"
check "the installed program is there" test -x "$binary"

cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "deploykey0123"},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
    {"id": 101, "summary": "iwlwifi: firmware crash after resume", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Wi-Fi dies after every resume."}]}
  ]
}
EOF2
fakebz_start state.json

# the scratch root: the admin's copy of the sample, completed; the key in a
# file only the service's user reads; the folders as tmpfiles.d and
# StateDirectory= make them
s="$WORK/scratch"
mkdir -p "$s$etc_dir" "$s$state_dir"
sed -e "s|^\\[bugzilla\\]\$|[bugzilla]\\nurl = $bz\\napi_key_file = api_key\\napi_key_in = param\\nproducts = Drivers\\nfirst_sync = all|" \
	-e 's|^\[routing\]$|[routing]\ndefault_lists = linux-wireless@vger.kernel.org|' \
	"$sample" >"$s$conf"
printf 'deploykey0123\n' >"$s$etc_dir/api_key"
chown "0:$GRP" "$s$etc_dir" "$s$conf" && chmod 0750 "$s$etc_dir" && chmod 0640 "$s$conf"
chown "$SVC:$GRP" "$s$etc_dir/api_key" && chmod 0600 "$s$etc_dir/api_key"
chown "$SVC:$GRP" "$s$state_dir" && chmod 0750 "$s$state_dir"
mkdir -p "$WORK/elsewhere" "$WORK/admin-cwd" && chmod 0777 "$WORK/elsewhere" "$WORK/admin-cwd"

# mount points on the machine, made (and removed after) only if missing
made=""
for d in "$etc_dir" "$state_dir"; do
	[ -d "$d" ] || { mkdir -p "$d" && made="$made $d"; }
done
# shellcheck disable=SC2064
trap "for d in $made; do rmdir \"\$d\" 2>/dev/null; done; cleanup" EXIT

# In the namespace: the daemon as the unit runs it, then the other
# commands; each writes its output and exit status for the checks below.
cat >inner.sh <<'EOF2'
set -u
cd "$WORK" || exit 1
mount --bind "$S$ETC_DIR" "$ETC_DIR" && mount --bind "$S$STATE_DIR" "$STATE_DIR" || exit 90
as() { u=$1 g=$2 dir=$3; shift 3
	(cd "$dir" && exec env -i PATH=/usr/bin:/bin HOME=/nonexistent setpriv --reuid="$u" --regid="$g" --clear-groups -- "$@"); }
# ExecStart=, the program from the installed tree; WorkingDirectory=%S/bugbridge
(cd "$STATE_DIR" && exec env -i PATH=/usr/bin:/bin HOME=/nonexistent STATE_DIRECTORY="$STATE_DIR" \
	setpriv --reuid="$SVC" --regid="$GRP" --clear-groups -- "$BINARY" $ARGS) >daemon.out 2>daemon.err &
dpid=$!
i=0
until [ -n "$(ls "$STATE_DIR/mail/new" 2>/dev/null)" ] || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
as "$ADMIN" "$GRP" "$WORK/admin-cwd" "$BINARY" status >status.out 2>status.err; echo $? >status.rc
as "$ADMIN" "$GRP" "$WORK/admin-cwd" "$BINARY" status --json >status.json 2>>status.err
as "$ADMIN" "$GRP" "$WORK/admin-cwd" "$BINARY" regressions >reg.out 2>reg.err; echo $? >reg.rc
as "$ADMIN" "$GRP" "$WORK/admin-cwd" "$BINARY" config >config.out 2>config.err; echo $? >config.rc
as "$SVC" "$GRP" "$WORK/elsewhere" "$BINARY" sync >sync.out 2>sync.err; echo $? >sync.rc
ls -A "$WORK/elsewhere" "$WORK/admin-cwd" >stray.lst 2>&1
kill -TERM "$dpid"
wait "$dpid"
echo $? >daemon.rc
EOF2
WORK="$WORK" S="$s" ETC_DIR="$etc_dir" STATE_DIR="$state_dir" SVC="$SVC" GRP="$GRP" ADMIN="$ADMIN" \
	BINARY="$binary" ARGS="$args" unshare -m sh inner.sh
is "the namespace was set up" "$?" "0"

is "the daemon ran as the unit runs it and stopped cleanly" "$(cat daemon.rc 2>/dev/null)" "0"
check "it mirrored the bug into its StateDirectory" test -n "$(ls "$s$state_dir/mail/new" 2>/dev/null)"
is "status as an admin of the group, from another folder: 0" "$(cat status.rc 2>/dev/null)" "0"
is "  sees the daemon's database" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["database"])' \
	status.json 2>&1)" "$state_dir/bugbridge.db"
like "  and its mirrored bug" "$(cat status.out)" "mirrored: +1 bug"
is "regressions as the admin: 0" "$(cat reg.rc 2>/dev/null)" "0"
is "config as the admin: 0" "$(cat config.rc 2>/dev/null)" "0"
like "  the data folder is the unit's" "$(cat config.out)" "^data_dir = $state_dir\$"
like "  the configuration is the system's" "$(cat config.out)" "^# from $conf\$"
unlike "  the admin was not asked for the key it may not read" "$(cat status.err reg.err config.err)" \
	"api_key|Permission denied|warning"
is "sync as the service's user from another folder is refused by the lock (75)" \
	"$(cat sync.rc 2>/dev/null)" "75"
like "  naming the daemon's data folder" "$(cat sync.err)" "$state_dir is in use by another bugbridge"
is "no data folder appeared in the working directories" "$(grep -v ':$' stray.lst | grep -cv '^$')" "0"
is "the mail went out once" "$(ls "$s$state_dir/mail/new" | wc -l)" "1"
unlike "nothing in the state is root's" "$(find "$s$state_dir" -uid 0)" "."

done_testing
