# SPDX-License-Identifier: GPL-2.0-or-later
# One list mail is read once (issue 36, item 1): its header section parsed
# once, its body decoded at most once, its sender checked at most once, by
# every step from the archive reader to Bugzilla together (matching, the
# comment, the commands, "#bugbridge track", the tracker feed, the outbox
# echo check).
#
# Sourced (after common.sh) by the scenarios that handle every kind of
# list mail: inbound.sh (plain replies, commands, "#bugbridge track" with
# its thread), tracker.sh (#regzbot directives) and inbound-dns.sh (mails
# whose sender's check waits for DNS).  The mail object counts its work
# per mail; $BUGBRIDGE_TEST_MAIL_WORK names the file it appends one line
# to per mail handled (the numbers the debug log's inbound.mail_work event
# gives; fields in bridge/inbound_mail.c).  Before done_testing the
# scenario asserts that each kind it sends was seen (mailwork_seen) and the
# counts of every line (mailwork_once).
MAILWORK="$WORK/mail-work"
: >"$MAILWORK"
BUGBRIDGE_TEST_MAIL_WORK=$MAILWORK
export BUGBRIDGE_TEST_MAIL_WORK

# mailwork_seen DESCRIPTION AWK-PATTERN: some mail's line matched it
mailwork_seen() {
	_n=$(awk "$2" "$MAILWORK" | grep -c .)
	if [ "$_n" -gt 0 ]; then ok "mail work: $1 ($_n)"; else not_ok "mail work: $1"; fi
}

# mailwork_once: every mail's headers parsed once, its body decoded at most
# once (its text alone first, when a step needs only that: its attachments
# at most once after; or the whole of it at once) and its sender checked at
# most once per handling
mailwork_once() {
	is "mail work: every mail's headers parsed once" "$(awk '!/ parses=1 /' "$MAILWORK")" ""
	is "mail work: every mail's body decoded at most once" \
		"$(awk '!/ decodes=[01] /' "$MAILWORK")" ""
	is "mail work: every mail's attachments decoded at most once, after its text" \
		"$(awk '!/ attachments=0 / && !/ decodes=1 wholes=0 attachments=1 /' "$MAILWORK")" ""
	is "mail work: a whole decode is a mail's first and only one" \
		"$(awk '!/ wholes=0 / && !/ decodes=1 wholes=1 attachments=0 /' "$MAILWORK")" ""
	is "mail work: every mail's sender checked at most once per handling" \
		"$(awk '!/ checks=[01]$/' "$MAILWORK")" ""
}
