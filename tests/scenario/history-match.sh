#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A history read (sync --from-start) matches a reply to a reply of a bug's
# thread when both come after hundreds of other mails in one batch: the
# lookups of list mails in in_mail and bz_comment are answered from a set
# of their Message-IDs (store_keys_may_hold()) once a transaction has asked
# often, and a mail recorded in that transaction must be in the set.  An
# mbox of 400 unrelated mails, then a reply to bug 201's thread, then a
# reply to that reply alone (matched only through the first one's row);
# again with the mails of a second mbox read in the next round.
. "$top_srcdir/tests/lib/common.sh"

fakebz_minimal_state state.json
fakebz_start state.json

# mbox FILE FIRST COUNT THREAD...: COUNT unrelated mails numbered from
# FIRST, then for each THREAD "ID:PARENT" a reply ID to PARENT (its
# References naming PARENT alone)
mbox() {
	/usr/bin/python3 - "$@" <<'EOF2'
import sys
path, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "w") as f:
    def mail(mid, subject, parent=None):
        f.write("From tess@example.org Thu Dec  3 08:00:00 2026\n")
        f.write("From: Tess Ter <tess@example.org>\nTo: list@lists.test\n")
        f.write("Subject: %s\nDate: Thu, 03 Dec 2026 08:00:00 +0000\n" % subject)
        f.write("Message-ID: <%s>\n" % mid)
        if parent:
            f.write("In-Reply-To: <%s>\nReferences: <%s>\n" % (parent, parent))
        f.write("\nHello.\n\n")
    for i in range(first, first + count):
        mail("filler-%d@example.org" % i, "unrelated %d" % i)
    for t in sys.argv[4:]:
        mid, parent = t.split(":", 1)
        mail(mid, "Re: [Bug 201] a bug", parent)
EOF2
}

mbox "$WORK/list.mbox" 1 400 reply-1@example.org:bug-201@bugbridge.test \
	reply-2@example.org:reply-1@example.org
write_config <<EOF2
$(fakebz_bridge_config)
[archive]
kind = mbox
path = $WORK/list.mbox
EOF2

# bug_of ID: the bug the list mail ID was recorded for ("" if none)
bug_of() { reg "select bug_id from in_mail where message_id = '$1'"; }

check "sync --from-start reads the mbox" sh -c '"$BUGBRIDGE" sync --from-start >sync1.out 2>&1'
is "the reply to the bug's thread is recorded for bug 201" "$(bug_of reply-1@example.org)" "201"
is "the reply to that reply, read in the same batch, is recorded for bug 201" \
	"$(bug_of reply-2@example.org)" "201"
is "no unrelated mail is recorded" "$(reg "select count(*) from in_mail")" "2"

# the next round: more mail, a reply to the last round's reply and one to it
mbox "$WORK/more.mbox" 401 400 reply-3@example.org:reply-2@example.org \
	reply-4@example.org:reply-3@example.org
cat "$WORK/more.mbox" >>"$WORK/list.mbox"
check "the next sync reads the new mails" sh -c '"$BUGBRIDGE" sync >sync2.out 2>&1'
is "a reply to the last round's reply is recorded" "$(bug_of reply-3@example.org)" "201"
is "a reply to it, in the same batch, is recorded" "$(bug_of reply-4@example.org)" "201"
is "still only the bug's mails are recorded" "$(reg "select count(*) from in_mail")" "4"

done_testing
