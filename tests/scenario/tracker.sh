#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The regression tracker end to end: #regzbot directives in mail sent
# through the real public-inbox pipeline, fixes found in git trees the test
# makes (next, mainline, two stable branches), a regression flagged in the
# fake Bugzilla.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/mailwork.sh"
. "$top_srcdir/tests/lib/listlab.sh"

command -v git >/dev/null 2>&1 || skip_all "git is not installed"
listlab_start

cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "fields": {"cf_regression": {"description": "Regression", "values": ["---", "No", "Yes"],
                               "default": "---"}},
  "products": [{"name": "Drivers", "components": ["Wireless", "USB"]}],
  "bugs": [
    {"id": 301, "summary": "usb: xhci hangs on resume since 6.7", "product": "Drivers",
     "component": "USB", "status": "NEW", "creator": "ines@example.net",
     "cf_regression": "Yes", "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Worked in 6.6."}]}
  ]
}
EOF2
fakebz_start state.json

# one repository, four branches: next feeds mainline, mainline the stables
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.org \
	GIT_COMMITTER_NAME=Dev GIT_COMMITTER_EMAIL=dev@example.org
git init -q -b master linux
g() { git -C "$WORK/linux" "$@"; }
g commit -q --allow-empty -m "Linux 6.7"
g tag v6.7
for b in next linux-6.1.y linux-6.6.y; do g branch "$b"; done
# commit BRANCH MESSAGE: a commit on BRANCH
commit() { g checkout -q "$1" && g commit -q --allow-empty -m "$2" && g checkout -q master; }

write_config <<EOF2
$(listlab_bridge_config)
[archive]
url = $LISTLAB_URL
[tree next]
path = $WORK/linux
ref = next
[tree mainline]
path = $WORK/linux
ref = master
upstream = next
[tree linux-6.1.y]
path = $WORK/linux
ref = linux-6.1.y
upstream = mainline
[tree linux-6.6.y]
path = $WORK/linux
ref = linux-6.6.y
upstream = mainline
EOF2

state_of() { reg "select state from reg_regression where report_msgid = '$1'"; }

check "first sync: the archive is read from its end, the trees from their heads" bb sync
is "the flagged Bugzilla bug is a regression" \
	"$(reg "select title, state, report_url from reg_regression where bug_id = 301")" \
	"usb: xhci hangs on resume since 6.7|open|$bz/show_bug.cgi?id=301"

# A report, with the culprit
printf 'Since 6.7 Wi-Fi dies after resume.\n\n#regzbot introduced: 1234abcd5678..v6.7\n' |
	listlab_send "Ines Reporter <ines@example.net>" r1@example.net "" "[REGRESSION] wifi dies after resume"
printf 'Same here.\n\n#regzbot title: iwlwifi: firmware crash after resume\n#regzbot link: https://bugzilla.example.org/show_bug.cgi?id=7 the distro bug\n' |
	listlab_send "Other <other@example.net>" r1-reply@example.net r1@example.net "Re: [REGRESSION] wifi dies after resume"
check "sync after a report" bb sync
is "the report is tracked, open, on mainline" "$(reg "select state, branch, introduced, culprit from reg_regression where report_msgid = 'r1@example.net'")" \
	"open|mainline|1234abcd5678..v6.7|"
is "the reply renamed it" "$(reg "select title from reg_regression where report_msgid = 'r1@example.net'")" \
	"iwlwifi: firmware crash after resume"
is "and added a link" "$(reg "select l.title from reg_link l join reg_regression r on r.id = l.regression where r.report_msgid = 'r1@example.net'")" \
	"the distro bug"
is "the report and the reply count as activity" "$(reg "select activity_count, last_activity_by from reg_regression where report_msgid = 'r1@example.net'")" \
	"2|Other <other@example.net>"

# A fix is posted as a patch that closes the report; the commit that
# lands links to the patch mail (as b4 writes it), and that is enough.
printf 'Restore the firmware state on resume.\n\nCloses: https://lore.kernel.org/all/r1-reply%%40example.net/T/#u\nSigned-off-by: Dev <dev@example.org>\n---\n drivers/net/wireless/intel/iwlwifi/pcie/drv.c | 2 ++\n' |
	listlab_send "Dev <dev@example.org>" patch-1@example.org "" "[PATCH] wifi: iwlwifi: restore firmware state on resume"
check "sync after the fix was posted" bb sync
is "the patch is noted on the regression" "$(reg "select e.text from reg_event e join reg_regression r on r.id = e.regression where r.report_msgid = 'r1@example.net' and e.kind = 'patch'")" \
	"[PATCH] wifi: iwlwifi: restore firmware state on resume"
is "which is still open" "$(state_of r1@example.net)" "open"
commit next "wifi: iwlwifi: restore firmware state on resume

Signed-off-by: Dev <dev@example.org>
Link: https://patch.msgid.link/patch-1@example.org"
check "sync after the fix reached next" bb sync
is "the fix is incoming" "$(state_of r1@example.net)" "fix-incoming"
is "seen in next" "$(reg "select fix_tree from reg_regression where report_msgid = 'r1@example.net'")" "next"
g merge -q --ff-only next
check "sync after the fix reached mainline" bb sync
is "the regression is fixed" "$(state_of r1@example.net)" "fixed"
is "by that commit in mainline" "$(reg "select fix_tree, fix_subject from reg_regression where report_msgid = 'r1@example.net'")" \
	"mainline|wifi: iwlwifi: restore firmware state on resume"

# A stable regression: a fix in another stable branch does not count
printf 'Suspend broke between 6.1.15 and 6.1.20.\n\n#regzbot introduced: v6.1.15..v6.1.20\n' |
	listlab_send "Ines Reporter <ines@example.net>" r2@example.net "" "[REGRESSION 6.1.y] suspend broken"
check "sync after a stable report" bb sync
is "it lives on linux-6.1.y" "$(reg "select branch from reg_regression where report_msgid = 'r2@example.net'")" "linux-6.1.y"
commit linux-6.6.y "PM: fix suspend on 6.6

Link: https://lore.kernel.org/r/r2@example.net"
check "sync after a fix in linux-6.6.y" bb sync
is "a fix in linux-6.6.y fixes no linux-6.1.y regression" "$(state_of r2@example.net)" "open"
commit master "PM: fix suspend

Link: https://lore.kernel.org/r/r2@example.net"
check "sync after the fix reached mainline" bb sync
is "upstream of linux-6.1.y: incoming" "$(state_of r2@example.net)" "fix-incoming"
commit linux-6.1.y "PM: fix suspend

commit 0123456789abcdef0123456789abcdef01234567 upstream.

Link: https://lore.kernel.org/r/r2@example.net"
check "sync after the backport" bb sync
is "the backport fixes it" "$(state_of r2@example.net)" "fixed"

# Duplicates, inconclusive, back burner, a fix named by subject
printf 'Wi-Fi gone after resume.\n\n#regzbot introduced: v6.7..\n' |
	listlab_send "Third <third@example.net>" r3@example.net "" "wifi gone"
printf 'Display flickers.\n\n#regzbot introduced: v6.7..\n' |
	listlab_send "Fourth <fourth@example.net>" r4@example.net "" "display flickers"
printf 'Fan is loud.\n\n#regzbot introduced: deadbeef12\n' |
	listlab_send "Fifth <fifth@example.net>" r5@example.net "" "fan is loud"
printf 'Audio crackles.\n\n#regzbot introduced: v6.7..\n' |
	listlab_send "Sixth <sixth@example.net>" r6@example.net "" "audio crackles"
check "sync after four reports" bb sync
printf '#regzbot dup-of: https://lore.kernel.org/r/r1@example.net\n' |
	listlab_send "Dev <dev@example.org>" r3-dup@example.org r3@example.net "Re: wifi gone"
printf '#regzbot inconclusive: cannot reproduce, reporter gone\n' |
	listlab_send "Dev <dev@example.org>" r4-inc@example.org r4@example.net "Re: display flickers"
printf '#regzbot backburner: needs rare hardware\n' |
	listlab_send "Dev <dev@example.org>" r5-bb@example.org r5@example.net "Re: fan is loud"
printf '#regzbot fix: ALSA: hda: fix crackling on resume\n' |
	listlab_send "Dev <dev@example.org>" r6-fix@example.org r6@example.net "Re: audio crackles"
check "sync after directives" bb sync
is "dup" "$(reg "select r.state, d.report_msgid from reg_regression r join reg_regression d on d.id = r.dup_of where r.report_msgid = 'r3@example.net'")" \
	"duplicate|r1@example.net"
is "inconclusive, with the reason" "$(reg "select state, resolution from reg_regression where report_msgid = 'r4@example.net'")" \
	"inconclusive|cannot reproduce, reporter gone"
is "back burner" "$(reg "select backburner, state from reg_regression where report_msgid = 'r5@example.net'")" "1|open"
is "a single commit is the culprit" "$(reg "select culprit from reg_regression where report_msgid = 'r5@example.net'")" "deadbeef12"
is "a named fix makes it incoming" "$(state_of r6@example.net)" "fix-incoming"
commit master "ALSA: hda: fix crackling on resume

Fixes: deadbeef1234 (\"platform: fan curve\")
Signed-off-by: Dev <dev@example.org>"
check "sync after the named fix landed" bb sync
is "the fix found by its subject fixes it" "$(state_of r6@example.net)" "fixed"
is "Fixes: naming a culprit is noted" "$(reg "select count(*) from reg_event e join reg_regression r on r.id = e.regression where r.report_msgid = 'r5@example.net' and e.kind = 'fixes-culprit'")" "1"

# A fix named after it landed (by subject, by hash): found in the history
# already scanned
printf 'Old webcams fail to probe.\n\n#regzbot introduced: v6.7..\n' |
	listlab_send "Seventh <seventh@example.net>" r9@example.net "" "webcam probe fails"
printf 'Touchpad jumps.\n\n#regzbot introduced: v6.7..\n' |
	listlab_send "Eighth <eighth@example.net>" r10@example.net "" "touchpad jumps"
commit master "media: uvc: fix probe of old cameras"
commit master "HID: i2c: filter touchpad noise"
touchpad_fix=$(g rev-parse master)
check "sync after two reports and two commits" bb sync
is "a commit nobody named yet fixes nothing" "$(state_of r9@example.net)|$(state_of r10@example.net)" "open|open"
printf '#regzbot fix: media: uvc: fix probe of old cameras\n' |
	listlab_send "Dev <dev@example.org>" r9-fix@example.org r9@example.net "Re: webcam probe fails"
printf '#regzbot fix: %s\n' "$(printf '%.12s' "$touchpad_fix")" |
	listlab_send "Dev <dev@example.org>" r10-fix@example.org r10@example.net "Re: touchpad jumps"
check "sync after naming fixes already in mainline" bb sync
is "the subject is found in mainline's history: fixed" "$(state_of r9@example.net)" "fixed"
is "so is the hash" "$(state_of r10@example.net)" "fixed"
lookups() { reg "select count(*) || ' ' || count(distinct l.regression || ' ' || l.tree) from reg_fix_lookup l join reg_regression r on r.id = l.regression where r.report_msgid in ('r9@example.net', 'r10@example.net')"; }
looked=$(lookups)
like "each fix was looked up once in each tree it was looked for in" "$looked" "^([0-9]+) \\1\$"
check "one more sync" bb sync
is "each fix event once" "$(reg "select count(*) from reg_event e join reg_regression r on r.id = e.regression where r.report_msgid in ('r9@example.net', 'r10@example.net') and e.kind = 'fixed'")" "2"
is "and no fix looked up again" "$(lookups)" "$looked"

# Unhandled directives are kept, never dropped
printf '#regzbot frobnicate now\n' |
	listlab_send "Dev <dev@example.org>" r1-unk@example.org r1@example.net "Re: [REGRESSION] wifi dies after resume"
printf 'Unrelated thread.\n\n#regzbot title: something\n' |
	listlab_send "Dev <dev@example.org>" stray@example.org "" "a thread nobody tracks"
check "sync after unhandled directives" bb sync
is "an unknown verb is kept as unhandled" "$(reg "select reason from reg_unhandled where message_id = 'r1-unk@example.org'")" \
	"unknown command"
like "a directive outside a tracked thread too" "$(reg "select reason from reg_unhandled where message_id = 'stray@example.org'")" \
	"not in the thread of a tracked regression"

# Stale: no activity for 90 days
printf 'Old problem.\n\n#regzbot introduced: v6.7..\n' |
	listlab_send "Old <old@example.net>" r7@example.net "" "an old regression" "Date: Mon, 01 Jun 2026 10:00:00 +0000"
check "sync after an old report" bb sync
is "its last activity is its report's date" "$(reg "select last_activity < strftime('%s','now') - 90*86400 from reg_regression where report_msgid = 'r7@example.net'")" "1"

# The Bugzilla regression is fixed by a commit closing the bug
commit master "usb: xhci: fix hang on resume

Closes: $bz/show_bug.cgi?id=301"
check "sync after a commit closing the bug" bb sync
is "the bug's regression is fixed" "$(reg "select state from reg_regression where bug_id = 301")" "fixed"
note=$(curl -sf "$bz/rest/bug/301/comment?api_key=bridgekey0123" | python3 -c '
import json, sys
print([c["text"] for c in json.load(sys.stdin)["bugs"]["301"]["comments"]][-1])')
like "and the bug is told so" "$note" "saw the fix land in mainline"
like "naming the commit" "$note" "usb: xhci: fix hang on resume"

check "one more sync" bb sync
is "the bug hears of its fix once" "$(curl -sf "$bz/rest/bug/301/comment?api_key=bridgekey0123" |
	python3 -c 'import json,sys; print(sum("saw the fix land" in c["text"] for c in json.load(sys.stdin)["bugs"]["301"]["comments"]))')" "1"
# the report, the reply, the patch that closes it and the reply with an
# unknown verb, once each
is "nothing is counted twice" "$(reg "select activity_count from reg_regression where report_msgid = 'r1@example.net'")" "4"
is "no fix event twice" "$(reg "select count(*) from reg_event e join reg_regression r on r.id = e.regression where r.report_msgid = 'r1@example.net' and e.kind = 'fixed'")" "1"

# A regression reported on another Bugzilla (not the configured one) and
# one with a duplicate report there: commits whose Closes:/Link: name those
# pages (in another form: http, #c2) fix them, as regzbot's tree scan finds
# a report by its URL
printf '#regzbot introduced: v6.6..v6.7 https://bugzilla.kernel.org/show_bug.cgi?id=216999\n' |
	listlab_send "Tracker <t@example.org>" r21@example.org "" "Fwd: Bug 216999 - audio crackles"
printf 'Camera is dark.\n\n#regzbot introduced: v6.6..v6.7\n' |
	listlab_send "Ines Reporter <ines@example.net>" r22@example.net "" "camera dark"
printf '#regzbot dup: https://github.com/example/linux/issues/9\n' |
	listlab_send "Tracker <t@example.org>" r22-d@example.org r22@example.net "Re: camera dark"
check "sync after reports elsewhere" bb sync
commit master "sound: fix crackles

Closes: http://bugzilla.kernel.org/show_bug.cgi?id=216999#c2"
commit master "media: fix dark camera

Link: https://github.com/example/linux/issues/9/ # the second report"
check "sync after the commits naming them" bb sync
is "a commit closing the report on another Bugzilla fixes its regression" \
	"$(reg "select state, fix_subject from reg_regression where report_url = 'https://bugzilla.kernel.org/show_bug.cgi?id=216999'")" \
	"fixed|sound: fix crackles"
is "a commit linking a duplicate report fixes the regression" \
	"$(reg "select state, fix_subject from reg_regression where report_msgid = 'r22@example.net'")" \
	"fixed|media: fix dark camera"

# A report of no bug with a directive and a binary attachment: the
# directive is read from the text alone, and the sender's check that a
# directive asks for needs only the text too; the attachment, which only a
# mail of a bug keeps, is never decoded
printf '%s\n' '--b23' 'Content-Type: text/plain; charset=utf-8' '' 'Wifi drops every minute.' '' \
	'#regzbot introduced: v6.6..v6.7' '--b23' 'Content-Type: application/octet-stream' \
	'Content-Disposition: attachment; filename="fw.bin"' 'Content-Transfer-Encoding: base64' '' \
	'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=' '--b23--' |
	listlab_send "Ines Reporter <ines@example.net>" r23@example.net "" "wifi drops" \
		"Content-Type: multipart/mixed; boundary=b23"
check "sync after a report with an attachment" bb sync
is "a report with an attachment is tracked from its text" \
	"$(reg "select count(*) from reg_regression where report_msgid = 'r23@example.net'")" "1"
is "its attachment is not decoded for the directive nor for the sender's check" \
	"$(awk '$1 == "r23@example.net" { print $4, $8, $9, $10 }' "$MAILWORK")" \
	"directive=1 decodes=1 wholes=0 attachments=0"

# each mail read once (tests/lib/mailwork.sh)
mailwork_seen "mails with a #regzbot directive were handled" '/ directive=1 /'
mailwork_once

done_testing
