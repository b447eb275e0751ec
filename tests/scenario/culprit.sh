#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Culprit known → the right people: when a bug's bisect field names a
# commit that a watched tree has, the bug's next mail is Cc'd to the
# commit's author and the people of its Signed-off-by, Reviewed-by and
# Acked-by trailers (not to a name in its body text), each once per bug;
# so is a commit a Fixes: line in a public comment names (not a private one);
# a bug tracked as a regression is Cc'd to [tracker] regressions_list
# once.  A sync killed after it queued such a mail but before its
# transaction ended Cc's nobody twice.  Mail goes to the data folder's
# Maildir (no [smtp]).
. "$top_srcdir/tests/lib/common.sh"

command -v git >/dev/null 2>&1 || skip_all "git is not installed"

cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "fields": {"cf_regression": {"description": "Regression", "values": ["---", "No", "Yes"],
                               "default": "---"}},
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
    {"id": 601, "summary": "wifi: firmware crash since 6.8", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "cf_regression": "Yes", "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Worked in 6.7."}]},
    {"id": 602, "summary": "wifi: slow scan", "product": "Drivers", "component": "Wireless",
     "status": "NEW", "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Scans take ten seconds."}]},
    {"id": 603, "summary": "wifi: stable 6.7.2 drops the link", "product": "Drivers",
     "component": "Wireless", "status": "NEW", "creator": "ines@example.net",
     "cf_regression": "Yes", "cf_bisect_commit": "STABLE_CULPRIT",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "Worked in 6.7.1."}]}
  ]
}
EOF2
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.org \
	GIT_COMMITTER_NAME=Dev GIT_COMMITTER_EMAIL=dev@example.org
git init -q -b master linux
g() { git -C "$WORK/linux" "$@"; }
g commit -q --allow-empty -m "Linux 6.7"
# a stable branch with a backport gone wrong that mainline never had
g checkout -q -b linux-6.7.y
g commit -q --allow-empty -m "wifi: mac80211: backport a fix badly

Signed-off-by: Stable Backporter <stable@example.org>"
stable_culprit=$(g rev-parse --short=12 HEAD)
g checkout -q master
sed -i "s/STABLE_CULPRIT/$stable_culprit/" state.json
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
# cc_of BUG: the Cc lines of the bug's mails, one line per mail, newest last
# (the mail's envelope in the outbox must agree)
cc_of() {
	reg "select group_concat(recipients, ' // ') from (select recipients from outbox where bug_id = $1 order by id)"
}
# cc_count BUG ADDRESS: how many of the bug's queued mails are sent to ADDRESS
cc_count() {
	reg "select count(*) from outbox where bug_id = $1 and (',' || replace(recipients, ' ', '') || ',') like '%$2%'"
}

GIT_AUTHOR_NAME="Carl Culprit" GIT_AUTHOR_EMAIL=Carl@Example.org \
g commit -q --allow-empty -m "wifi: iwlwifi: load the new firmware first

As Nora Body <nora@example.org> suggested in review.

Signed-off-by: Carl Culprit <carl@example.org>
Reviewed-by: Rita Reviewer <rita@example.org>
Acked-by: Ann Acker <ann@example.org>
Cc: Cary Cc <cary@example.org>
Signed-off-by: Max Maintainer <max@example.org>"
culprit=$(g rev-parse --short=12 HEAD)
g commit -q --allow-empty -m "Linux 6.8"

write_config <<EOF2
$(fakebz_bridge_config)
[routing]
default_lists = wireless@lists.test
default_people = Max Maintainer <max@example.org>
[tracker]
regressions_list = regressions@lists.test
[tree mainline]
path = $WORK/linux
ref = master
[tree linux-6.7.y]
path = $WORK/linux
ref = linux-6.7.y
upstream = mainline
EOF2

check "first sync" bb sync
is "the regression's report is Cc'd to the regressions list" "$(cc_count 601 regressions@lists.test)" "1"
is "the ordinary bug's is not" "$(cc_count 602 regressions@lists.test)" "0"

# bisected: the field names the culprit, a comment says so
admin clock '{"advance": 600}'
admin bug "{\"id\": 601, \"merge\": true, \"cf_bisect_commit\": \"$culprit\"}"
admin comment '{"bug_id": 601, "creator": "ines@example.net", "text": "Bisected, see the field."}'
admin bug "{\"id\": 602, \"merge\": true, \"cf_bisect_commit\": \"$culprit\"}"
admin comment '{"bug_id": 602, "creator": "ines@example.net", "text": "Bisected too."}'
check "a sync killed before the mails' transaction ended" \
	sh -c 'BUGBRIDGE_CRASH_AT=sync.bug "$BUGBRIDGE" sync >/dev/null 2>&1; test $? -eq 137'
is "nothing is recorded of it" "$(reg "select count(*) from bug_cc where address <> '' and bug_id in (601, 602)")" "1"
check "the next sync" bb sync
for who in carl@example.org rita@example.org ann@example.org; do
	is "the bisected regression's next mail is Cc'd to $who once" "$(cc_count 601 "$who")" "1"
	is "so is the bisected ordinary bug's" "$(cc_count 602 "$who")" "1"
done
is "and to both at once: their newest mails" \
	"$(reg "select count(*) from outbox o where id = (select max(id) from outbox where bug_id = o.bug_id) and recipients like '%carl@example.org%' and bug_id in (601, 602)")" "2"
like "by name, in the mail's Cc:" "$(reg "select cast(message as text) from outbox where bug_id = 601 order by id desc limit 1" |
	python3 -c 'import email, sys; print(" ".join(email.message_from_string(sys.stdin.read())["Cc"].split()).lower())')" \
	"max maintainer <max@example.org>, carl culprit <carl@example.org>, rita reviewer <rita@example.org>, ann acker <ann@example.org>"
is "not the author's address twice (case)" "$(reg "select count(*) from bug_cc where bug_id = 601 and address = 'carl@example.org'")" "1"
is "not a name in the body, not a Cc: trailer" "$(cc_count 601 nora@example.org)/$(cc_count 601 cary@example.org)" "0/0"
is "the regressions list not again" "$(cc_count 601 regressions@lists.test)" "1"

admin clock '{"advance": 600}'
admin comment '{"bug_id": 601, "creator": "ines@example.net", "text": "Any news?"}'
check "a sync after another comment" bb sync
is "the culprit's people are not Cc'd again" "$(cc_count 601 carl@example.org)/$(cc_count 601 rita@example.org)" "1/1"
is "the route's people still are" "$(cc_count 601 max@example.org)" "$(reg "select count(*) from outbox where bug_id = 601")"
is "git was asked once per bug and culprit" "$(reg "select count(*) from bug_cc where address = '' and reason = 'culprit $culprit'")" "2"

# a culprit no watched tree has: nobody, and the mail still goes out
admin clock '{"advance": 600}'
admin bug '{"id": 602, "merge": true, "cf_bisect_commit": "0123456789ab"}'
admin comment '{"bug_id": 602, "creator": "ines@example.net", "text": "Wrong bisect, it is another."}'
check "a sync with an unknown culprit" bb sync
is "its mail is queued" "$(reg "select count(*) from outbox where bug_id = 602 and cast(message as text) like '%Wrong bisect%'")" "1"
is "Cc'd to nobody new" "$(reg "select count(*) from bug_cc where bug_id = 602 and address <> ''")" "3"

# a Fixes: in a public comment (a patch pasted into the bug, indented) names
# another culprit; one in a private comment never feeds a mail
GIT_AUTHOR_NAME="Fay Fixes" GIT_AUTHOR_EMAIL=fay@example.org \
g commit -q --allow-empty -m "wifi: iwlwifi: rework the scan timer

Signed-off-by: Fay Fixes <fay@example.org>
Reviewed-by: Ron Review <ron@example.org>"
scan_culprit=$(g rev-parse --short=12 HEAD)
GIT_AUTHOR_NAME="Sam Secret" GIT_AUTHOR_EMAIL=sam@example.org \
g commit -q --allow-empty -m "wifi: iwlwifi: a change only a private comment names

Signed-off-by: Sam Secret <sam@example.org>"
secret_culprit=$(g rev-parse --short=12 HEAD)
admin clock '{"advance": 600}'
admin comment "{\"bug_id\": 602, \"creator\": \"ines@example.net\", \"is_private\": true, \"text\": \"Vendor says:\\nFixes: $secret_culprit (\\\"wifi: iwlwifi: secret\\\")\"}"
admin comment "{\"bug_id\": 602, \"creator\": \"ines@example.net\", \"text\": \"This patch helps:\\n\\n    wifi: iwlwifi: stop the scan timer\\n\\n    Fixes: $scan_culprit (\\\"wifi: iwlwifi: rework the scan timer\\\")\\n    Signed-off-by: Pat <pat@example.org>\\n> Fixes: 0123456789abcdef (\\\"quoted, not this one\\\")\"}"
check "a sync after a comment naming a Fixes: commit" bb sync
is "the comment's culprit is recorded from the public comment alone" \
	"$(reg "select group_concat(commit_hash || ' ' || substr(source, 1, 7), ',') from bug_culprit where bug_id = 602")" \
	"$scan_culprit comment"
is "the comment's own mail is Cc'd to its author and reviewer" \
	"$(reg "select count(*) from outbox where bug_id = 602 and cast(message as text) like '%This patch helps%' and recipients like '%fay@example.org%' and recipients like '%ron@example.org%'")" "1"
is "the private comment's culprit is Cc'd nothing" "$(cc_count 602 sam@example.org)" "0"
admin clock '{"advance": 600}'
admin comment "{\"bug_id\": 602, \"creator\": \"ines@example.net\", \"text\": \"Fixes: $scan_culprit again, and Fixes: $(echo "$scan_culprit" | cut -c1-8) short\"}"
check "a sync after the same culprit named again" bb sync
is "named once, Cc'd once" "$(reg "select count(*) from bug_culprit where bug_id = 602")/$(cc_count 602 fay@example.org)" "1/1"

# one branch rule: the tree that holds the culprit
is "a regression whose culprit mainline has lives on mainline" \
	"$(reg "select branch from reg_regression where bug_id = 601")" "mainline"
is "one whose culprit only the stable branch has lives there" \
	"$(reg "select branch from reg_regression where bug_id = 603")" "linux-6.7.y"
is "each culprit was looked up in the trees once" \
	"$(reg "select count(*) from reg_regression where culprit <> '' and culprit_checked = culprit")" "2"

done_testing
