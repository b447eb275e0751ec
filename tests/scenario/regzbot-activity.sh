#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The tracker counts activity as regzbot (kernelci/regzbot) counts it, end
# to end through a real public-inbox list (issue 33, items 1-4): the report
# mail counts even when it carries the directive, a [PATCH] linking the
# report counts with its replies, a poke and bugbridge's own mail do not
# (the issue's example: 6 activities); a patch whose Link:/Closes: names
# the report on another Bugzilla, or a duplicate report (dup:), is the
# regression's; a patch whose Fixes: names the culprit leaves a history
# note and is no activity; ^introduced takes the reported time, the
# reporter and the first activity from the parent mail, and logs the URL
# beside it.  The weekly report prints each duplicate URL once.  Checked
# with `bugbridge regressions show --json`.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

listlab_tracker_start
day() { echo "Date: $1 Dec 2026 $2 +0000"; }

check "first sync: the archive is read from its end" bb sync

# 1. the issue's example: a report carrying the directive, three plain
# replies, a poke, a patch linking the report with one reply: 6; and a
# mail bugbridge sent into the thread, which is none
printf 'Since 6.7 the display flickers.\n\n#regzbot introduced: v6.6..v6.7\n' |
	send "Ines <ines@example.net>" a1@example.net "" "[REGRESSION] display flickers" "$(day 01 10:00:00)"
for i in 1 2 3; do
	printf 'Reply %s.\n' "$i" |
		send "Other$i <o$i@example.net>" "a1-r$i@example.net" a1@example.net "Re: display flickers" "$(day 01 1$i:00:00)"
done
printf 'Any news?\n\n#regzbot poke\n' |
	send "Tracker <t@example.org>" a1-p@example.org a1-r3@example.net "Re: display flickers" "$(day 01 14:00:00)"
printf 'Fix the flicker.\n\nLink: https://lore.kernel.org/r/a1@example.net/\nSigned-off-by: Dev <dev@example.org>\n' |
	send "Dev <dev@example.org>" pa1@example.org "" "[PATCH] drm: fix flicker" "$(day 01 15:00:00)"
printf 'Works here.\n' |
	send "Ines <ines@example.net>" pa1-r@example.net pa1@example.org "Re: [PATCH] drm: fix flicker" "$(day 01 16:00:00)"
printf 'A comment mirrored from Bugzilla.\n' |
	send "Bugzilla bridge <bridge@bugbridge.test>" a1-own@bugbridge.test a1-r1@example.net "Re: display flickers" "$(day 01 17:00:00)" "X-Bugbridge-Loop: bugbridge.test"

# 2. a report on another Bugzilla (not the configured one), a duplicate
# report elsewhere; patches that link them
printf '#regzbot introduced: v5.18..v5.19 https://bugzilla.kernel.org/show_bug.cgi?id=216000\n' |
	send "Tracker <t@example.org>" b1@example.org "" "Fwd: Bug 216000 - usb hangs" "$(day 01 10:00:00)"
printf 'Fix the hang.\n\nCloses: http://Bugzilla.Kernel.org/show_bug.cgi?id=216000#c3\nSigned-off-by: Dev <dev@example.org>\n' |
	send "Dev <dev@example.org>" pb1@example.org "" "[PATCH] usb: fix hang" "$(day 02 10:00:00)"
printf 'Fan is loud.\n\n#regzbot introduced: v6.6..v6.7\n' |
	send "Finn <finn@example.net>" c1@example.net "" "fan loud" "$(day 01 10:00:00)"
printf '#regzbot dup: https://github.com/example/linux/issues/7\n' |
	send "Tracker <t@example.org>" c1-d@example.org c1@example.net "Re: fan loud" "$(day 01 11:00:00)"
printf 'Quiet the fan.\n\nLink: https://github.com/example/linux/issues/7/ # the same report\nSigned-off-by: Dev <dev@example.org>\n' |
	send "Dev <dev@example.org>" pc1@example.org "" "[PATCH] fan: quiet" "$(day 02 10:00:00)"

# 3. a culprit; a list patch whose Fixes: names it, one that also links the
# report, and a reply to a patch with such a line
printf 'Boot hangs since this commit.\n\n#regzbot introduced: 1234567890ab\n' |
	send "Dora <dora@example.net>" d1@example.net "" "boot hangs" "$(day 01 10:00:00)"
printf 'Fix the boot.\n\nFixes: 1234567890abcdef ("x: add y")\nSigned-off-by: Dev <dev@example.org>\n' |
	send "Dev <dev@example.org>" pd1@example.org "" "[PATCH] x: fix boot hang" "$(day 02 10:00:00)"
printf 'Fix the boot again.\n\nFixes: 1234567890ab ("x: add y")\nLink: https://lore.kernel.org/r/d1@example.net/\nSigned-off-by: Dev <dev@example.org>\n' |
	send "Dev <dev@example.org>" pd2@example.org "" "[PATCH v2] x: fix boot hang" "$(day 02 11:00:00)"
printf 'Needs:\n\nFixes: 1234567890ab ("x: add y")\n' |
	send "Rev <rev@example.org>" pd1-r@example.org pd1@example.org "Re: [PATCH] x: fix boot hang" "$(day 02 12:00:00)"

# 4. a plain report, a reply, then ^introduced in a reply to the report
# with the report's URL elsewhere beside it
printf 'The keyboard is dead after boot.\n' |
	send "Kai <kai@example.net>" e1@example.net "" "keyboard dead on 6.7" "$(day 01 09:00:00)"
printf 'Same here.\n' |
	send "Lea <lea@example.net>" e1-a@example.net e1@example.net "Re: keyboard dead on 6.7" "$(day 01 10:00:00)"
printf '#regzbot ^introduced: v6.6..v6.7 https://bugzilla.kernel.org/show_bug.cgi?id=217001\n' |
	send "Tracker <t@example.org>" e1-t@example.org e1@example.net "Re: keyboard dead on 6.7" "$(day 02 09:00:00)"

check "one sync reads them all, in order" bb sync
a1=$(id_of a1@example.net) c1=$(id_of c1@example.net) d1=$(id_of d1@example.net)
e1=$(id_of e1@example.net)
b1=$(reg "select id from reg_regression where report_url = 'https://bugzilla.kernel.org/show_bug.cgi?id=216000'")

# 1
is "the issue's example: the report, three replies, the patch and its reply are 6 activities" \
	"$(show "$a1" 'd["activity_count"], d["last_activity_message_id"]')" "(6, 'pa1-r@example.net')"
is "the patch linking the report is in its history" \
	"$(show "$a1" '[e["message_id"] for e in d["history"] if e["kind"] == "patch"]')" \
	"['pa1@example.org']"

# 2
is "a patch closing the report on another Bugzilla is the regression's (and activity)" \
	"$(show "$b1" '[e["message_id"] for e in d["history"] if e["kind"] == "patch"], d["activity_count"]')" \
	"(['pb1@example.org'], 1)"
is "a patch linking a duplicate report is the regression's" \
	"$(show "$c1" '[e["message_id"] for e in d["history"] if e["kind"] == "patch"]')" \
	"['pc1@example.org']"
is "and its mails count: the report, the dup: mail and the patch" \
	"$(show "$c1" 'd["activity_count"]')" "3"

# 3
is "one note, for the patch that does not link the report; a reply's Fixes: is none" \
	"$(show "$d1" '[e["message_id"] for e in d["history"] if e["kind"] == "fixes-culprit"]')" \
	"['pd1@example.org']"
like "the note names the patch and its Fixes: line" \
	"$(show "$d1" '[e["text"] for e in d["history"] if e["kind"] == "fixes-culprit"]')" \
	'\[PATCH\] x: fix boot hang.*/r/pd1@example.org/.*says Fixes: 1234567890abcdef'
is "that patch is no activity (it may fix another bug of the commit); the linking one is" \
	"$(show "$d1" 'd["activity_count"], d["last_activity_message_id"]')" "(2, 'pd2@example.org')"

# 4
is "^introduced: reported by the parent's sender, when it was sent" \
	"$(reg "select reporter from reg_regression where id = $e1")|$(show "$e1" 'd["created"][:16]')" \
	"Kai <kai@example.net>|2026-12-01T09:00"
is "the parent is the first activity: the report, its reply and the directive's mail" \
	"$(show "$e1" 'd["activity_count"], d["last_activity_message_id"]')" "(3, 'e1-t@example.org')"
is "the reported event has the report's time" \
	"$(show "$e1" '[e["time"][:16] for e in d["history"] if e["kind"] == "reported"]')" \
	"['2026-12-01T09:00']"
is "the URL beside ^introduced is a history event and a duplicate report" \
	"$(show "$e1" '[e["text"] for e in d["history"] if e["kind"] == "dup"], [l["url"] for l in d["links"] if l["kind"] == "duplicate"]')" \
	"(['https://bugzilla.kernel.org/show_bug.cgi?id=217001'], ['https://bugzilla.kernel.org/show_bug.cgi?id=217001'])"

# the weekly report: a duplicate URL once
check "the reports are written" bb regressions report --dir "$WORK/reports"
is "the weekly report prints each duplicate URL once" \
	"$(grep -c 'github.com/example/linux/issues/7' "$WORK/reports/weekly.txt")" "1"
is "and the report's own URL once" \
	"$(grep -c 'show_bug.cgi?id=217001' "$WORK/reports/weekly.txt")" "1"
done_testing
