#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make install puts everything in place, and the installed program runs.
. "$top_srcdir/tests/lib/common.sh"

: "${top_builddir:?top_builddir must be set (run through make check)}"
dest="$WORK/dest"
if ! make -C "$top_builddir" install DESTDIR="$dest" >install.log 2>&1; then
	not_ok "make install"
	sed 's/^/#   /' install.log | tail -20
	done_testing
	exit 1
fi
ok "make install"
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
root="$dest$prefix"
check "the program is installed" test -x "$root/bin/bugbridge"
check "bugbridge(1) is installed" test -f "$root/share/man/man1/bugbridge.1"
check "bugbridge.conf(5) is installed" test -f "$root/share/man/man5/bugbridge.conf.5"
sysconfdir=$(sed -n 's/^sysconfdir = //p' "$top_builddir/Makefile" | sed "s|\${prefix}|$prefix|")
for page in man1/bugbridge.1 man5/bugbridge.conf.5; do
	unlike "$page names real paths, no SYSCONFDIR or placeholder" \
		"$(cat "$root/share/man/$page")" "SYSCONFDIR|LOCALSTATEDIR|@[a-z]+@"
	like "$page names the configured $sysconfdir/bugbridge/bugbridge.conf" \
		"$(cat "$root/share/man/$page")" "$sysconfdir/bugbridge/bugbridge\.conf"
done
check "the sample configuration is installed" test -f "$root/share/doc/bugbridge/examples/bugbridge.conf.sample"
unit=$(find "$dest" -name bugbridge-serve.service | head -1)
check "the systemd unit of the server is installed" test -n "$unit"
like "the unit runs the installed program" "$(cat "$unit")" "ExecStart=$prefix/bin/bugbridge .*serve"
unlike "the unit has no unsubstituted placeholders" "$(cat "$unit")" "@[a-z]+@"
dunit=$(find "$dest" -name bugbridge-daemon.service | head -1)
check "the systemd unit of the daemon is installed" test -n "$dunit"
like "the daemon unit runs bugbridge daemon" "$(cat "$dunit")" "ExecStart=$prefix/bin/bugbridge .*daemon"
sysusers=$(find "$dest" -path '*sysusers.d/bugbridge.conf' | head -1)
check "a sysusers.d entry creates the one service user" test -n "$sysusers"
like "named bugbridge" "$(cat "$sysusers" 2>/dev/null)" "^u bugbridge "
tmpfiles=$(find "$dest" -path '*tmpfiles.d/bugbridge.conf' | head -1)
like "tmpfiles.d makes the configuration root:bugbridge 0640" "$(cat "$tmpfiles" 2>/dev/null)" \
	"z $(sed -n 's/^sysconfdir = //p' "$top_builddir/Makefile" | sed "s|\${prefix}|$prefix|")/bugbridge/bugbridge.conf 0640 root bugbridge"
for u in "$unit" "$dunit"; do
	name=$(basename "$u")
	like "$name: both units run as the same user" "$(cat "$u")" "User=bugbridge"
	unlike "$name: no DynamicUser (two units would take the state folder from each other)" \
		"$(cat "$u")" "DynamicUser=yes"
	like "$name: tells systemd when it is ready" "$(cat "$u")" "Type=notify"
	like "$name: reload waits for the answer (bugbridge reload)" "$(cat "$u")" \
		"ExecReload=.*/bugbridge --config .* reload \\\$MAINPID"
	like "$name: damage, a permission problem or a configuration error is not restarted forever" \
		"$(cat "$u")" "RestartPreventExitStatus=65 77 78"
	like "$name: has a log folder it may write" "$(cat "$u")" "LogsDirectory=bugbridge"
	if command -v systemd-analyze >/dev/null 2>&1; then
		# a copy whose programs point into the installed tree (DESTDIR),
		# where they are; everything else as installed
		mkdir -p verify && sed "s#$prefix/#$root/#g" "$u" >"verify/$name"
		check "$name: systemd-analyze verify finds nothing to say" \
			sh -c "systemd-analyze verify --man=no 'verify/$name' >verify.out 2>&1; ! grep -q . verify.out || { cat verify.out >&2; exit 1; }"
	else
		ok "# SKIP systemd-analyze is not installed"
	fi
	if command -v systemd-analyze >/dev/null 2>&1 &&
	   systemd-analyze security --offline=true "$u" >analyze.out 2>&1; then
		exposure=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' analyze.out)
		check "$name: systemd-analyze security rates it $exposure (2.0 or less: OK)" \
			systemd-analyze security --offline=true --threshold=20 "$u"
	else
		ok "# SKIP systemd-analyze security --offline is not available"
	fi
done
for f in dmesg-6.6.1-suspend.txt iwlwifi-debug.bin crash-bundle.tar.gz bugzilla-sample.xml MAINTAINERS-sample; do
	check "demo file $f is installed" cmp "$top_srcdir/demo/$f" "$root/share/bugbridge/demo/$f"
done
if command -v groff >/dev/null 2>&1; then
	for page in man1/bugbridge.1 man5/bugbridge.conf.5; do
		out=$(groff -man -ww -z "$root/share/man/$page" 2>&1)
		is "$page renders without warnings" "$out" ""
	done
else
	ok "# SKIP groff not installed"
fi
is "the installed program runs" "$("$root/bin/bugbridge" --version)" "bugbridge $(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")"
mkdir -p run && cd run
out=$(BUGBRIDGE_DEMO_DIR="$root/share/bugbridge/demo" env -u BUGBRIDGE_CONFIG "$root/bin/bugbridge" demo 2>&1)
like "the installed program runs the demo on the installed data" "$out" "All 3 blobs stored and served intact"
# two bugs mirrored: each its report and one backlog summary
like "the demo mirrors the sample export to mail" "$out" "4 mails delivered"
cd "$WORK"
make -C "$top_builddir" uninstall DESTDIR="$dest" >/dev/null 2>&1
is "make uninstall removes the files again" "$(find "$dest" -type f | wc -l)" "0"

done_testing
