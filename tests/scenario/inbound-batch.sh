#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# List mails that belong to no bug are committed in batches: of 8,000 mails,
# or of what a batch read before it grew 500 ms old (it holds the store's
# write lock, which the web front door may wait for).  A crash costs at most
# the open batch, read again: the archive's cursor commits with it.
#
# The log's "inbound.batch" events say how many mails each batch held and
# what ended it.  $BUGBRIDGE_TEST_BATCH_MS sets the time limit: a day, so
# that only the count ends a batch however slow the machine; 0, so that a
# batch ends at its first look at the clock (after 64 mails).
. "$top_srcdir/tests/lib/common.sh"

cat >state.json <<'EOF2'
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "products": [{"name": "Drivers", "components": ["USB"]}],
  "bugs": [
    {"id": 201, "summary": "usb: hub stops after resume", "product": "Drivers",
     "component": "USB", "status": "NEW", "creator": "ines@example.net",
     "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "The hub stops after every resume."}]}
  ]
}
EOF2
fakebz_start state.json

# mbox FILE FIRST COUNT: COUNT unrelated mails numbered from FIRST
mbox() {
	/usr/bin/python3 - "$@" <<'EOF2'
import sys
path, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "a") as f:
    for i in range(first, first + count):
        f.write("From tess@example.org Thu Dec  3 08:00:00 2026\n"
                "From: Tess Ter <tess@example.org>\nTo: list@lists.test\n"
                "Subject: unrelated %d\nDate: Thu, 03 Dec 2026 08:00:00 +0000\n"
                "Message-ID: <filler-%d@example.org>\n\nHello.\n\n" % (i, i))
EOF2
}

# batches FILE: the batches the log FILE tells of, "MAILS:ENDED" each
batches() {
	sed -n 's/.*event=inbound\.batch mails=\([0-9]*\) ms=[0-9]* ended=\(.*\)$/\1:\2/p' "$1" |
		tr -d '"' | tr '\n' ' ' | sed 's/ $//'
}
# mails_read FILE: the mails the round of log FILE read
mails_read() { sed -n 's/.*inbound\.round.* mails=\([0-9]*\).*/\1/p' "$1" | tail -n 1; }

mbox "$WORK/list.mbox" 1 8100
write_config <<EOF2
$(fakebz_bridge_config)
[smtp]
maildir = $WORK/mail
[routing]
default_lists = list@lists.test
[archive]
kind = mbox
path = $WORK/list.mbox
EOF2
sed -i 's/^log_level = warn$/log_level = debug/' "$WORK/bugbridge.conf"
cp "$WORK/bugbridge.conf" "$WORK/bugbridge.conf.orig"

# 1. the count: 8,100 mails make a batch of 8,000 and one of 100
BUGBRIDGE_TEST_BATCH_MS=86400000 "$BUGBRIDGE" sync --from-start >read1.log 2>&1
is "the history read succeeds" "$?" "0"
is "8,100 mails: a full batch of 8,000, then the 100 left at the round's end" \
	"$(batches read1.log)" "8000:full 100:the round's end"
is "the round read 8,100 mails" "$(mails_read read1.log)" "8100"

# 2. a crash before the last commit loses the 100 mails of the open batch
# only: the next round reads them again, and no more
rm -rf "$WORK/data"
BUGBRIDGE_TEST_BATCH_MS=86400000 BUGBRIDGE_CRASH_AT=inbound.batch:2 \
	"$BUGBRIDGE" sync --from-start >crash.log 2>&1
is "the crash came at the second commit" "$(grep -c 'test hook inbound.batch reached' crash.log)" "1"
is "the first batch was committed before it" "$(batches crash.log)" "8000:full"
BUGBRIDGE_TEST_BATCH_MS=86400000 "$BUGBRIDGE" sync >after.log 2>&1
is "the round after the crash succeeds" "$?" "0"
is "it reads the 100 mails of the lost batch again, and no more" "$(mails_read after.log)" "100"
is "in one batch" "$(batches after.log)" "100:the round's end"

# 3. the time: a batch ends once it is old, whatever its count; new mail
# appended to the archive is read in batches of 64 when each look at the
# clock finds the batch old enough
mbox "$WORK/list.mbox" 8101 200
BUGBRIDGE_TEST_BATCH_MS=0 "$BUGBRIDGE" sync >time.log 2>&1
is "the round with a time limit of 0 succeeds" "$?" "0"
is "200 mails: three batches ended by time at 64 mails, 8 at the round's end" \
	"$(batches time.log)" "64:time 64:time 64:time 8:the round's end"
is "the round read 200 mails" "$(mails_read time.log)" "200"
is "every mail of the archive moved the cursor once: the next round reads none" \
	"$("$BUGBRIDGE" sync >none.log 2>&1; mails_read none.log)" "0"

# 4. a reply to a mirrored bug commits the batch before it (what it does to
# Bugzilla needs what came before on disk), and a new batch starts after
# it: with a count of its own
rm -rf "$WORK/data" "$WORK/list.mbox"
: >"$WORK/list.mbox"
check "a first round mirrors bug 201 (the empty archive read from its end)" \
	sh -c '"$BUGBRIDGE" sync >mirror.log 2>&1'
is "bug 201 is mirrored" "$(reg "select mirrored from bz_bug where id = 201")" "1"
mbox "$WORK/list.mbox" 1 100
cat >>"$WORK/list.mbox" <<'EOF2'
From tess@example.org Thu Dec  3 08:00:00 2026
From: Tess Ter <tess@example.org>
To: list@lists.test
Subject: Re: [Bug 201] a bug
Date: Thu, 03 Dec 2026 08:00:00 +0000
Message-ID: <reply-1@example.org>
In-Reply-To: <bug-201@bugbridge.test>
References: <bug-201@bugbridge.test>

It happens here too.

EOF2
mbox "$WORK/list.mbox" 101 8001
BUGBRIDGE_TEST_BATCH_MS=86400000 "$BUGBRIDGE" sync >bug.log 2>&1
is "the round with a reply to a bug succeeds" "$?" "0"
is "the reply is posted to bug 201" \
	"$(reg "select bug_id, state from in_mail where message_id = 'reply-1@example.org'")" "201|posted"
is "100 mails, committed before the reply; 8,000 counted from it; the last one" \
	"$(batches bug.log)" "100:a mail of a bug 8000:full 2:the round's end"

done_testing
