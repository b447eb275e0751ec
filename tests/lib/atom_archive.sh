# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2154 # top_srcdir and WORK are common.sh's
# shellcheck shell=sh
# A list archive the bridge reads over HTTP ([archive] kind = atom), for the
# scenario tests; sourced after common.sh, in the test's work folder:
#
#   . "$top_srcdir/tests/lib/atom_archive.sh"
#   atom_archive_start          # $arch: the list's URL, an empty new.atom
#   atom_reply FROM MSGID PARENT BODY
#   $(atom_archive_config)      # in a write_config here-document
#
# atom_archive_start serves $WORK/arch with tests/lib/atom_archive.py
# (stopped with the test: CLEANUP_PIDS) and skips the test if it does not
# come up; atom_reply adds a reply to a bridge mail (PARENT, bug-<n>@...)
# at the top of new.atom ($ATOM_REPLY_SUBJECT, with {bug}, names it).
atom_archive_start() {
	mkdir -p "$WORK/arch/list"
	printf '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>list</title></feed>\n' \
		>"$WORK/arch/list/new.atom"
	/usr/bin/python3 "$top_srcdir/tests/lib/atom_archive.py" serve "$WORK/arch" "$WORK/arch.port" \
		>"$WORK/arch.out" 2>&1 &
	arch_pid=$!
	CLEANUP_PIDS="$CLEANUP_PIDS $arch_pid"
	wait_for_port "$WORK/arch.port" "$arch_pid" ||
		{ cat "$WORK/arch.out"; skip_all "the archive server did not start"; }
	arch="http://127.0.0.1:$(cat "$WORK/arch.port")/list"
}

# atom_archive_config: the [archive] and [inbound] sections of a bridge
# reading this archive: kind atom at $arch, mail taken without
# authentication, Lead <lead@example.org> allowed to give commands (more
# [inbound] keys may follow)
atom_archive_config() {
	printf '[archive]\nkind = atom\nurl = %s\n' "$arch"
	printf '[inbound]\nauthenticate = none\nallow = Lead <lead@example.org>\n'
}

atom_reply() {
	/usr/bin/python3 "$top_srcdir/tests/lib/atom_archive.py" reply "$WORK/arch/list" "$arch" "$@"
}
