#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of one large mail (make bench): a BENCH_BIGMAIL_MB megabyte mail
# (default 50) in a local Maildir read by `bugbridge sync`, against the fake
# Bugzilla, in five shapes: plain text, CRLF text, HTML only and a base64
# attachment, each carrying a #regzbot line, so the tracker decodes it
# whole; and a plain text reply to a mirrored bug ("reply"), which becomes
# a comment cut to Bugzilla's 65,535 characters before it is posted.
# Prints the peak RSS of the sync (/usr/bin/time's maximum resident set)
# and its ratio to the mail's size (goal: a small multiple, at most 5; for
# the reply, under 3), and for the reply the size of the comment posted
# and of the database; asserts nothing.
#
#   BENCH_BIGMAIL_MB   the mail's size in MB (default 50)
#   BENCH_BIGMAIL_SHAPES  which shapes (default "text crlf html base64 reply")
#   BENCH_DIR          where to work (default: a new folder in $TMPDIR or /tmp)
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
: "${BUGBRIDGE:?set BUGBRIDGE to the bugbridge binary (make bench does)}"
PY=${PY:-python3}
mb=${BENCH_BIGMAIL_MB:-50}
make_work bugbridge-bench-bigmail
cleanup() { stop "${bz_pid:-}"; rm -rf "$work"; }

cat >state.json <<'EOF2'
{"version": "5.2",
 "users": [{"login": "bridge@example.org", "real_name": "Bridge",
            "api_key": "benchkey0123456789", "groups": ["editbugs"]}],
 "products": [{"name": "Drivers", "components": ["Network"]}],
 "bugs": [{"id": 1, "summary": "a bug the big reply answers", "product": "Drivers",
           "component": "Network", "status": "NEW", "creator": "bridge@example.org",
           "comments": [{"creator": "bridge@example.org", "text": "The report."}]}]}
EOF2
start_bugzilla state.json
{
	bench_config_head
	printf '[routing]\ndefault_lists = bench-list@lists.test\n'
	printf '[archive]\nkind = maildir\npath = %s/md\n' "$work"
} >bench.conf
chmod 600 bench.conf
export BUGBRIDGE_CONFIG="$work/bench.conf"

printf '%d MB mail, bugbridge sync:\n' "$mb"
for shape in ${BENCH_BIGMAIL_SHAPES:-text crlf html base64 reply}; do
	rm -rf md data && mkdir -p md/new md/cur md/tmp
	# the first sync starts the archive (an empty Maildir), the second reads the mail
	if ! "$BUGBRIDGE" sync --once >first.out 2>&1; then
		echo "bench: the first sync failed:" >&2
		cat first.out >&2
		exit 1
	fi
	SHAPE=$shape MB=$mb "$PY" - <<'PY' || exit 1
import base64, os
shape, size = os.environ["SHAPE"], int(os.environ["MB"]) * 1000 * 1000
with open("md/new/1.big.bench", "w", newline="") as f:
    f.write("From: a@bench.test\nMessage-ID: <big@bench.test>\n")
    f.write("Subject: Re: [Bug 1] big\n" if shape == "reply" else "Subject: big\n")
    if shape == "base64":
        f.write("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n--B\n"
                "Content-Type: text/plain\n\n#regzbot introduced: v6.1..v6.2\n--B\n"
                "Content-Type: application/octet-stream\nContent-Disposition: attachment; "
                "filename=dump.bin\nContent-Transfer-Encoding: base64\n\n")
        f.write(base64.encodebytes(os.urandom(size * 3 // 4 - 1000)).decode())
        f.write("--B--\n")
    else:
        kind = "html" if shape == "html" else "plain"
        eol = "\r\n" if shape == "crlf" else "\n"
        f.write(f"Content-Type: text/{kind}; charset=utf-8{eol}{eol}")
        if shape == "html":
            f.write("<p>#regzbot introduced: v6.1..v6.2</p>\n")
            line = "<p>" + "x" * 63 + "</p>\n"
        elif shape == "reply":
            line = "x" * 70 + eol
        else:
            f.write("#regzbot introduced: v6.1..v6.2" + eol)
            line = "x" * (71 - len(eol)) + eol
        f.write(line * (size // 71))
PY
	size=$(stat -c %s md/new/1.big.bench)
	run_timed second.out second.err "$BUGBRIDGE" sync --once
	if [ "$run_rc" != 0 ] || ! grep -q "1 mail read" second.out second.err; then
		echo "bench: $shape: the sync failed or did not read the mail:" >&2
		cat second.out second.err >&2
		continue
	fi
	printf '  %-7s %5.1f MiB mail: %6.2f s, peak RSS %6.1f MiB (%s x the mail)\n' "$shape" \
		"$(echo "$size / 1048576" | bc -l)" "$run_secs" "$(mib "$run_rss")" \
		"$(quotient %.1f "$run_rss * 1024" "$size")"
	if [ "$shape" = reply ]; then
		posted=$(curl -sf "$bz_url/rest/bug/1/comment?api_key=benchkey0123456789" |
			"$PY" -c 'import json,sys; c=json.load(sys.stdin)["bugs"]["1"]["comments"]
print(len(c[-1]["text"]) if len(c) > 1 else "none")')
		printf '          the comment posted: %s characters; the database: %s KiB (+ WAL %s KiB)\n' \
			"$posted" "$(du -k data/bugbridge.db | cut -f1)" \
			"$( (du -k data/bugbridge.db-wal 2>/dev/null || echo 0) | cut -f1)"
	fi
done
