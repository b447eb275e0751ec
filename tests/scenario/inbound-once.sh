#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One list mail is read once (issue 36, item 1): its header section parsed
# once, its body decoded at most once, its sender checked at most once, by
# every step from the archive reader to Bugzilla together (matching, the
# comment, the commands, "#bugbridge track", the tracker feed, the outbox
# echo check).
#
# The mail object counts that work per mail; $BUGBRIDGE_TEST_MAIL_WORK
# names a file it appends one line to per mail handled (the same numbers
# the debug log's inbound.mail_work event gives).  This test runs the
# scenarios that handle every kind of list mail with it set: inbound.sh
# (plain replies, replies with commands, "#bugbridge track" with its
# thread), tracker.sh (#regzbot directives) and inbound-dns.sh (mails
# whose sender's check waits for DNS, resumed in a later round: each
# handling is one line, so such a mail is checked once when first read
# and once more in each round that reads it again from in_wait: the
# allowed second check), and asserts the counts of every line and that
# each kind of mail was seen.
. "$top_srcdir/tests/lib/common.sh"

work="$WORK/mail-work"
: >"$work"
dns_ran=0
for t in inbound tracker inbound-dns; do
	BUGBRIDGE_TEST_MAIL_WORK="$work" sh "$top_srcdir/tests/scenario/$t.sh" >"$t.tap" 2>&1
	rc=$?
	is "$t.sh passes with the counters on" "$rc $(grep -c '^not ok' "$t.tap")" "0 0"
	[ "$t" = inbound-dns ] && ! grep -q '^1\.\.0 # SKIP' "$t.tap" && dns_ran=1
done

# kinds: the line's fields (see bridge/inbound_mail.c)
kind_count() { awk "$1" "$work" | grep -c .; }
ok_if() { if [ "$2" -gt 0 ]; then ok "$1 ($2)"; else not_ok "$1"; fi; }
ok_if "plain replies to a bug were handled" \
	"$(kind_count '/ bug=[1-9]/ && / commands=0 / && / directive=0 / && / track=0 /')"
ok_if "replies with commands were handled" "$(kind_count '/ bug=[1-9]/ && !/ commands=0 /')"
ok_if "mails with a #regzbot directive were handled" "$(kind_count '/ directive=1 /')"
ok_if "#bugbridge track mails were handled" "$(kind_count '/ track=1 /')"
if [ "$dns_ran" = 1 ]; then
	ok_if "mails waiting for DNS were resumed" "$(kind_count '/ waited=1 /')"
else
	ok "# SKIP inbound-dns.sh cannot run here"
fi

is "every mail's headers parsed once" \
	"$(awk '!/ parses=1 /' "$work")" ""
is "every mail's body decoded at most once" \
	"$(awk '!/ decodes=[01] /' "$work")" ""
is "every mail's sender checked at most once per handling" \
	"$(awk '!/ checks=[01]$/' "$work")" ""
if [ "$dns_ran" = 1 ]; then
	# a resumed mail: checked when first read (DNS did not answer), and
	# once again in each later round that reads it from in_wait (still
	# waiting, or resumed): once per handling, never twice in one
	is "a mail waiting for DNS is checked once when read and once each time it is resumed" \
		"$(awk '{ n[$1] += substr($NF, 8); h[$1]++ } / waited=1 / { w[$1] = 1 }
			END { for (m in w) if (n[m] != h[m] || h[m] < 2) print m, n[m], h[m] }' \
			"$work")" ""
fi
done_testing
