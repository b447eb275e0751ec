#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of one large mail (make bench): a BENCH_BIGMAIL_MB megabyte mail
# (default 50) in a local Maildir read by `bugbridge sync`, against the fake
# Bugzilla, in four shapes: plain text, CRLF text, HTML only and a base64
# attachment.  Each carries a #regzbot line, so the tracker decodes it
# whole.  Prints the peak RSS of the sync and its ratio to the mail's size
# (goal: a small multiple, at most 5); asserts nothing.
#
#   BENCH_BIGMAIL_MB   the mail's size in MB (default 50)
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
 "products": [{"name": "Drivers", "components": ["Network"]}], "bugs": []}
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
for shape in text crlf html base64; do
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
    f.write("From: a@bench.test\nMessage-ID: <big@bench.test>\nSubject: big\n")
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
done
