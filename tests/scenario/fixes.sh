#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Ordinary mirrored bugs follow their fixes: a commit on a watched tree
# whose Closes:/Link: names a bug's URL leaves one comment per tree ("Fixed
# by commit ... in next", then "... in mainline"), and on a tree of
# [bugzilla] close_on_fix sets the bug RESOLVED FIXED; a [PATCH] on the
# list naming it leaves one comment linking the patch, a list mail citing
# its URL one per thread linking the mail.  Restricted and
# unmirrored bugs hear nothing, a regression's bug only the regression
# tracker's note, a crash never makes anything twice.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/lib/listlab.sh"

command -v git >/dev/null 2>&1 || skip_all "git is not installed"
listlab_start

cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs", "security"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "fields": {"cf_regression": {"description": "Regression", "values": ["---", "No", "Yes"],
                               "default": "---"}},
  "products": [{"name": "Drivers", "components": ["USB"]}, {"name": "Other", "components": ["Misc"]}],
  "bugs": [
    {"id": 401, "summary": "usb: port dies", "product": "Drivers", "component": "USB",
     "status": "NEW", "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "The port dies."}]},
    {"id": 402, "summary": "usb: secret", "product": "Drivers", "component": "USB",
     "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Private."}]},
    {"id": 403, "summary": "misc: not mirrored", "product": "Other", "component": "Misc",
     "status": "NEW", "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Elsewhere."}]},
    {"id": 404, "summary": "usb: hang since 6.7", "product": "Drivers", "component": "USB",
     "status": "NEW", "creator": "ines@example.net", "cf_regression": "Yes",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Worked in 6.6."}]},
    {"id": 405, "summary": "usb: hub flaps", "product": "Drivers", "component": "USB",
     "status": "NEW", "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "The hub flaps."}]}
  ]
}
EOF2
fakebz_start state.json

export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.org \
	GIT_COMMITTER_NAME=Dev GIT_COMMITTER_EMAIL=dev@example.org
git init -q -b master linux
g() { git -C "$WORK/linux" "$@"; }
g commit -q --allow-empty -m "Linux 6.7"
# the commits the fixes below name in Fixes: lines
GIT_AUTHOR_NAME="Olga Old" GIT_AUTHOR_EMAIL=olga@example.org \
g commit -q --allow-empty -m "usb: core: power the port down early

Signed-off-by: Olga Old <olga@example.org>"
port_culprit=$(g rev-parse --short=12 HEAD)
GIT_AUTHOR_NAME="Hugo Hub" GIT_AUTHOR_EMAIL=hugo@example.org \
g commit -q --allow-empty -m "usb: hub: shorter debounce

Signed-off-by: Hugo Hub <hugo@example.org>
Acked-by: Ada Ack <ada@example.org>"
hub_culprit=$(g rev-parse --short=12 HEAD)
g branch next

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
EOF2
sed -i 's/^products = Drivers$/&\nclose_on_fix = mainline/' "$WORK/bugbridge.conf"

# comments BUG PATTERN: how many of the bug's comments contain PATTERN
comments() {
	curl -sf "$bz/rest/bug/$1/comment?api_key=bridgekey0123" | python3 -c '
import json, sys
print(sum(sys.argv[2] in c["text"] for c in json.load(sys.stdin)["bugs"][sys.argv[1]]["comments"]))' "$1" "$2"
}
status() {
	curl -sf "$bz/rest/bug/$1?api_key=bridgekey0123&include_fields=status,resolution" |
		python3 -c 'import json,sys; b=json.load(sys.stdin)["bugs"][0]; print(b["status"], b["resolution"])'
}
# sync_killed HOOK: a sync killed at the test hook
sync_killed() { BUGBRIDGE_CRASH_AT=$1 "$BUGBRIDGE" sync >"$WORK/killed.out" 2>&1; test $? -eq 137; }

admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }

check "first sync mirrors the bugs" bb sync
is "402 is mirrored, 403 (another product) is not" \
	"$(reg "select group_concat(id || ':' || restricted, ' ') from bz_bug where id in (402, 403)")" "402:0"
# 402 is restricted after it was mirrored
admin bug '{"id": 402, "merge": true, "groups": ["security"]}'

g checkout -q next
g commit -q --allow-empty -m "usb: core: keep the port alive

Closes: $bz/show_bug.cgi?id=401
Link: $bz/show_bug.cgi?id=402
Closes: $bz/show_bug.cgi?id=403
Closes: $bz/show_bug.cgi?id=404
Fixes: $port_culprit (\"usb: core: power the port down early\")
Signed-off-by: Dev <dev@example.org>"
g checkout -q master
fix=$(g rev-parse --short=12 next)
check "a sync killed after the note was recorded, before it was posted" sync_killed tracker.post
is "nothing posted yet" "$(comments 401 "Fixed by commit")" "0"
is "the store knows 402 is restricted now" "$(reg "select restricted from bz_bug where id = 402")" "1"
check "the next sync" bb sync
is "the bug hears of the fix in next once" \
	"$(comments 401 "Fixed by commit $fix (\"usb: core: keep the port alive\") in next")" "1"
is "and stays open" "$(status 401)" "NEW "
is "the restricted bug hears nothing" "$(comments 402 "Fixed by commit")" "0"
is "nor the unmirrored one" "$(comments 403 "Fixed by commit")" "0"
is "the regression's fix is incoming" "$(reg "select state from reg_regression where bug_id = 404")" "fix-incoming"
is "its bug hears nothing yet" "$(comments 404 "$fix")" "0"

g merge -q --ff-only next
check "a sync killed once the first note was posted, before it was recorded" sync_killed tracker.posted
check "the next sync" bb sync
is "the bug hears of the fix in mainline once" \
	"$(comments 401 "Fixed by commit $fix (\"usb: core: keep the port alive\") in mainline")" "1"
is "and is closed as fixed" "$(status 401)" "RESOLVED FIXED"
is "the regression is fixed" "$(reg "select state from reg_regression where bug_id = 404")" "fixed"
is "its bug gets the tracker's note once, and no other" \
	"$(comments 404 "saw the fix land")/$(comments 404 "Fixed by commit")" "1/0"
is "restricted and unmirrored bugs still hear nothing" \
	"$(comments 402 "$fix")/$(comments 403 "$fix")/$(status 402)" "0/0/NEW "

# a patch naming a bug; a reply to it and a patch naming the restricted bug do nothing
printf 'Stop the hub from flapping.\n\nFixes: %s ("usb: hub: shorter debounce")\nCloses: %s/show_bug.cgi?id=405\nSigned-off-by: Dev <dev@example.org>\n---\n drivers/usb/core/hub.c | 2 +-\n' "$hub_culprit" "$bz" |
	listlab_send "Dev <dev@example.org>" patch-405@example.org "" "[PATCH] usb: hub: debounce"
printf 'Looks good.\n\nFixes: %s ("usb: core: power the port down early")\nCloses: %s/show_bug.cgi?id=405\n' "$port_culprit" "$bz" |
	listlab_send "Rev <rev@example.org>" patch-405-re@example.org patch-405@example.org "Re: [PATCH] usb: hub: debounce"
printf 'Secret fix.\n\nCloses: %s/show_bug.cgi?id=402\n---\n' "$bz" |
	listlab_send "Dev <dev@example.org>" patch-402@example.org "" "[PATCH] usb: secret"
check "sync after the patches" bb sync
check "one more sync" bb sync
is "the bug hears of the patch once, with its link" \
	"$(comments 405 "A patch was posted: [PATCH] usb: hub: debounce http://127.0.0.1:$LISTLAB_HTTP_PORT/r/patch-405@example.org/")" "1"
is "and of nothing else" "$(comments 405 "patch-405-re")/$(comments 405 "Fixed by")/$(status 405)" "0/0/NEW "
is "the restricted bug hears nothing of its patch" "$(comments 402 "A patch was posted")" "0"
is "the patch's Fixes: names the bug's culprit, the reply's does not" \
	"$(reg "select group_concat(commit_hash || ' ' || source, ',') from bug_culprit where bug_id = 405")" \
	"$hub_culprit patch <patch-405@example.org>"
is "the fix commit's Fixes: names its bugs' culprit" \
	"$(reg "select group_concat(bug_id || ' ' || commit_hash || ' ' || source, ',') from bug_culprit where bug_id in (401, 404)")" \
	"401 $port_culprit commit $fix in next,404 $port_culprit commit $fix in next"
# outbox_to BUG ADDRESS: how many of the bug's queued mails go to ADDRESS
outbox_to() { reg "select count(*) from outbox where bug_id = $1 and recipients like '%$2%'"; }
is "the bug's next mail (the patch note) is Cc'd to the culprit's people once" \
	"$(outbox_to 405 hugo@example.org)/$(outbox_to 405 ada@example.org)" "1/1"
is "the fixed bug's mail to its culprit's author once" "$(outbox_to 401 olga@example.org)" "1"

# a plain list mail citing a bug (the short link, then the full URL in
# brackets with a full stop) leaves one note on it per thread; quoted lines,
# a listing of many bugs, a restricted bug and the bug's own thread do not
printf 'The hub flaps here as well, see %s/405 for the logs.\nAnd maybe (%s/show_bug.cgi?id=401#c1).\n' "$bz" "$bz" |
	listlab_send "User <user@example.org>" mention-1@example.org "" "usb hubs flapping on 6.8"
printf '> see %s/404 and %s/402\nSame for me, %s/405.\n' "$bz" "$bz" "$bz" |
	listlab_send "Other <other@example.org>" mention-2@example.org mention-1@example.org "Re: usb hubs flapping on 6.8"
printf 'Open bugs: %s/401 %s/402 %s/404 %s/405\n' "$bz" "$bz" "$bz" "$bz" |
	listlab_send "Lister <lister@example.org>" mention-3@example.org "" "weekly digest"
printf 'Anyone seen %s/show_bug.cgi?id=402 ?\n' "$bz" |
	listlab_send "User <user@example.org>" mention-4@example.org "" "usb secret question"
# a top-post quoting the other mail without '>' (Outlook's "-----Original
# Message-----") cites for that mail too
printf 'Adding the team.\n\n-----Original Message-----\nFrom: User <user@example.org>\nSent: Monday\nSubject: hub\n\nSee %s/401 for the logs.\n' "$bz" |
	listlab_send "Boss <boss@example.org>" mention-5@example.org "" "FW: usb hub logs"
check "sync after the mentions" bb sync
is "each cited bug hears of the thread once, with the mail's link" \
	"$(comments 405 "Mentioned on the list: usb hubs flapping on 6.8 http://127.0.0.1:$LISTLAB_HTTP_PORT/r/mention-1@example.org/")/$(comments 401 "Mentioned on the list: usb hubs flapping on 6.8")" "1/1"
is "not of the reply in the same thread, nor of quoted or listed bugs" \
	"$(comments 405 "Mentioned on the list")/$(comments 404 "Mentioned")/$(comments 401 "weekly digest")" "1/0/0"
is "the restricted bug hears nothing" "$(comments 402 "Mentioned")" "0"
is "nor of a bug cited in the original a top-post quotes" "$(comments 401 "usb hub logs")" "0"

check "a last sync" bb sync
is "nothing twice" "$(comments 401 "Fixed by commit")/$(comments 404 "saw the fix land")/$(comments 405 "A patch was posted")" "2/1/1"
is "every note recorded once" "$(reg "select count(*) || ' ' || sum(state = 'posted') from reg_push")" "6 6"
# the notes are ordinary comments on the list: each mailed once
is "the notes were mailed to the list once each" \
	"$(reg "select count(*) from bz_comment c join reg_push p on p.comment_id = c.id where c.message_id is not null and p.regression = 0")" "5"

done_testing
