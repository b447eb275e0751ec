#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A Maildir whose mails share mtime seconds, read in batches (of 64 mails:
# $BUGBRIDGE_TEST_BATCH_MS=0) with a crash between two of them.  The
# cursor of a Maildir names every mail of its window, and a batch keeps
# the last mail's cursor up to date by adding only that mail's name to it
# (archive_position_kept()): what it commits must be exactly the position
# after the batch's last mail, as the archive gave it, across the cursor
# window's move too, so the round after the crash reads again the mails of
# the lost batch, and no other, and none is skipped.
. "$top_srcdir/tests/lib/common.sh"
DUMP="$top_builddir/tests/unit/archive-dump"
[ -x "$DUMP" ] || skip_all "tests/unit/archive-dump is not built"

fakebz_minimal_state state.json
fakebz_start state.json

# 1,000 mails of one mtime second, then 1,000 of another 300 s later (the
# cursor's window moves past the first ones)
/usr/bin/python3 - "$WORK/md" <<'EOF2'
import os, sys, time
md = sys.argv[1]
for sub in ("new", "cur", "tmp"):
    os.makedirs(os.path.join(md, sub))
base = int(time.time()) - 7200
for i in range(2000):
    sub, flags = ("cur", ":2,S") if i % 3 == 0 else ("new", "")
    path = os.path.join(md, sub, "%d.M%dP%d.test%s" % (base, (i * 7919) % 100003, i, flags))
    with open(path, "w") as f:
        f.write("From: Tess Ter <tess@example.org>\nTo: list@lists.test\n"
                "Subject: unrelated %d\nMessage-ID: <md-%d@example.org>\n\nHello.\n" % (i, i))
    t = base if i < 1000 else base + 300
    os.utime(path, (t, t))
EOF2
write_config <<EOF2
$(fakebz_bridge_config)
[smtp]
maildir = $WORK/mail
[routing]
default_lists = list@lists.test
[archive]
kind = maildir
path = $WORK/md
EOF2
sed -i 's/^log_level = warn$/log_level = debug/' "$WORK/bugbridge.conf"

# the position after each mail, in the order read, as the archive gives it
"$DUMP" maildir "$WORK/md" >dump.out
is "archive-dump reads the 2,000 mails" "$(grep -c '^msg ' dump.out)" "2000"

# mails_read FILE: the mails the round of log FILE read
mails_read() { sed -n 's/.*inbound\.round.* mails=\([0-9]*\).*/\1/p' "$1" | tail -n 1; }
cursor() { reg "select value from cursor where source = 'archive:$WORK/md'"; }

# a crash at the 20th commit: 19 batches of 64 (1,216 mails) are committed
BUGBRIDGE_TEST_BATCH_MS=0 BUGBRIDGE_CRASH_AT=inbound.batch:20 \
	"$BUGBRIDGE" sync --from-start >crash.log 2>&1
is "the crash came at the 20th commit" "$(grep -c 'test hook inbound.batch reached' crash.log)" "1"
is "19 batches were committed before it" "$(grep -c 'event=inbound.batch ' crash.log)" "19"
is "the cursor committed is the archive's position after the 1,216th mail" \
	"$(cursor)" "$(sed -n '1216s/^msg [^ ]* [^ ]* //p' dump.out)"
BUGBRIDGE_TEST_BATCH_MS=0 "$BUGBRIDGE" sync >after.log 2>&1
is "the round after the crash succeeds" "$?" "0"
is "it reads the 784 mails after them, no more, no fewer" "$(mails_read after.log)" "784"
is "the cursor is then the archive's position after the last mail" \
	"$(cursor)" "$(sed -n '2000s/^msg [^ ]* [^ ]* //p' dump.out)"
"$BUGBRIDGE" sync >again.log 2>&1
is "and the next round reads none" "$(mails_read again.log)" "0"

done_testing
