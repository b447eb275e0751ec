# SPDX-License-Identifier: GPL-2.0-or-later
# A real mailing list for scenario tests (tests/lib/listlab.py): source this
# after common.sh, then `listlab_start`; it sets LISTLAB_SMTP_PORT,
# LISTLAB_HTTP_PORT, LISTLAB_LIST and LISTLAB_URL, and the server is stopped
# by pid when the test ends.  Skips the whole test when public-inbox or
# Debian's python3-aiosmtpd is missing.  Arguments go to listlab.py
# (--authserv-id ID --dkim-keys FILE: the lab is the receiving server too).

listlab_start() {
	command -v public-inbox-mda >/dev/null 2>&1 ||
		skip_all "public-inbox is not installed (apt-get install public-inbox)"
	/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null ||
		skip_all "Debian's python3-aiosmtpd is not installed"
	mkdir -p "$WORK/listlab"
	/usr/bin/python3 "$top_srcdir/tests/lib/listlab.py" --dir "$WORK/listlab" "$@" \
		>"$WORK/listlab/listlab.log" 2>&1 &
	LISTLAB_PID=$!
	CLEANUP_PIDS="$CLEANUP_PIDS $LISTLAB_PID"
	for _ in $(seq 1 200); do
		[ -f "$WORK/listlab/listlab.json" ] && break
		if ! kill -0 "$LISTLAB_PID" 2>/dev/null; then
			cat "$WORK/listlab/listlab.log" >&2
			skip_all "the list lab did not start"
		fi
		sleep 0.1
	done
	[ -f "$WORK/listlab/listlab.json" ] || skip_all "the list lab did not start in time"
	eval "$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print("LISTLAB_SMTP_PORT=%d LISTLAB_HTTP_PORT=%d LISTLAB_LIST=%s LISTLAB_URL=%s" %
      (d["smtp_port"], d["http_port"], d["list"], d["inbox_url"]))' "$WORK/listlab/listlab.json")"
	export LISTLAB_SMTP_PORT LISTLAB_HTTP_PORT LISTLAB_LIST LISTLAB_URL
}

# listlab_tracker_start: what the regression tracker's tests start from:
# the lab, the fake Bugzilla with no bug (fakebz_minimal_state) and a bridge
# reading the lab's archive; and three helpers for them: id_of MSGID (the
# regression a report made), show ID EXPR (EXPR of `bugbridge regressions
# show --json ID`, d its JSON) and send (listlab_send)
listlab_tracker_start() {
	listlab_start
	fakebz_minimal_state "$WORK/state.json"
	fakebz_start "$WORK/state.json"
	write_config <<EOF2
$(listlab_bridge_config)
[archive]
url = $LISTLAB_URL
EOF2
	id_of() { reg "select id from reg_regression where report_msgid = '$1'"; }
	show() { bb regressions show --json "$1" >show.json && /usr/bin/python3 -c 'import json,sys
d = json.load(open("show.json"))["regression"]; print(eval(sys.argv[1]))' "$2"; }
	send() { listlab_send "$@"; }
}

# listlab_raw MSGID: the archived message, or nothing (exit 1) if absent.
listlab_raw() {
	curl -sf "$LISTLAB_URL/$1/raw"
}

# listlab_send FROM MESSAGE-ID IN-REPLY-TO SUBJECT [HEADER: VALUE]... <BODY
# Sends a plain-text mail to the list (IN-REPLY-TO may be empty; a Date:
# among the extra headers replaces the current date, a Content-Type: the
# text/plain one, for a BODY that is a MIME body of that type).  With LISTLAB_DKIM_DIR
# set, a mail whose From: domain has a key there (<domain>.pem, selector s1,
# see listlab_dkim_key) is DKIM-signed by python3-dkim, once, as it is sent;
# LISTLAB_DKIM_AS=DOMAIN signs with that domain's key instead, and
# LISTLAB_DKIM_TAMPER=1 changes the body after signing.
listlab_send() {
	cat >"$WORK/body.txt"
	/usr/bin/python3 - "$LISTLAB_SMTP_PORT" "$LISTLAB_LIST" "$WORK/body.txt" "$@" <<'EOF2'
import os, smtplib, sys, email.utils
port, lst, body_file, sender, msgid, parent, subject = sys.argv[1:8]
extra = sys.argv[8:]
body = open(body_file, encoding="utf-8").read()
head = ["From: %s" % sender, "To: %s" % lst, "Subject: %s" % subject,
        "Message-ID: <%s>" % msgid, "MIME-Version: 1.0"]
if not any(h.lower().startswith("content-type:") for h in extra):
    head.append("Content-Type: text/plain; charset=utf-8")
if not any(h.lower().startswith("date:") for h in extra):
    head.append("Date: %s" % email.utils.formatdate())
if parent:
    head += ["In-Reply-To: <%s>" % parent, "References: <%s>" % parent]
head += extra
msg = "\r\n".join(head) + "\r\n\r\n" + body.replace("\n", "\r\n")
addr = email.utils.parseaddr(sender)[1]
keydir = os.environ.get("LISTLAB_DKIM_DIR")
domain = os.environ.get("LISTLAB_DKIM_AS") or addr.rpartition("@")[2].lower()
if keydir and os.path.exists(os.path.join(keydir, domain + ".pem")):
    import dkim
    key = open(os.path.join(keydir, domain + ".pem"), "rb").read()
    sig = dkim.sign(msg.encode(), b"s1", domain.encode(), key,
                    include_headers=[b"from", b"to", b"subject", b"date", b"message-id",
                                     b"in-reply-to", b"references"])
    msg = sig.decode() + msg
    if os.environ.get("LISTLAB_DKIM_TAMPER"):
        msg = msg.replace("#bugbridge", "#bugbridge  ", 1) + "tampered\r\n"
with smtplib.SMTP("127.0.0.1", int(port)) as s:
    s.sendmail(addr, [lst], msg.encode())
EOF2
}

# listlab_start_dkim DOMAIN... [-- ARGUMENT...]: the lab as the receiving
# server lists.lab that checks DKIM: a key for each DOMAIN in $WORK/dkim
# (a mail from one is signed as it is sent: LISTLAB_DKIM_DIR, exported),
# published in $WORK/dkim/keys; the ARGUMENTs go to listlab_start too.
# Skips the test when openssl cannot make a key.
listlab_start_dkim() {
	_domains=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_domains="$_domains $1"
		shift
	done
	[ $# -eq 0 ] || shift
	# shellcheck disable=SC2086 # one word a domain
	listlab_dkim_key "$WORK/dkim" $_domains || skip_all "openssl cannot make a key"
	LISTLAB_DKIM_DIR="$WORK/dkim"
	export LISTLAB_DKIM_DIR
	listlab_start --authserv-id lists.lab --dkim-keys "$WORK/dkim/keys" "$@"
}

# listlab_dkim_config: the [archive] and [inbound] sections of a bridge that
# reads the lab started by listlab_start_dkim and trusts its verdicts (more
# [inbound] keys may follow)
listlab_dkim_config() {
	printf '[archive]\nurl = %s\n' "$LISTLAB_URL"
	printf '[inbound]\ntrusted_authserv_id = lists.lab\ndkim_key_file = %s\n' "$WORK/dkim/keys"
}

# listlab_dkim_key DIR DOMAIN...: makes a key (openssl) for each domain in
# DIR/<domain>.pem and publishes it, selector s1, in DIR/keys (the file
# query format both python3-dkim here and OpenDKIM in bugbridge read).
listlab_dkim_key() {
	_dir=$1
	shift
	mkdir -p "$_dir"
	for _d in "$@"; do
		openssl genrsa -out "$_dir/$_d.pem" 2048 2>/dev/null || return 1
		printf 's1._domainkey.%s v=DKIM1; k=rsa; p=%s\n' "$_d" \
			"$(openssl rsa -in "$_dir/$_d.pem" -pubout -outform DER 2>/dev/null | base64 -w0)" \
			>>"$_dir/keys"
	done
}

# listlab_bridge_config: the sections of a bridge between the fake Bugzilla
# at $bz (product Drivers, the API key bridgekey0123) and the list lab, for
# a write_config here-document: $(listlab_bridge_config), more sections.
# shellcheck disable=SC2120 # the tests pass fakebz_bridge_config's options
listlab_bridge_config() {
	fakebz_bridge_config --key-in --smtp "$LISTLAB_SMTP_PORT" --lists "$LISTLAB_LIST" "$@"
}
