#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `blob show` and `blob ls` print what came from outside (archive member
# names, file names, refs) with control and format characters escaped: an
# ESC sequence or U+202E in a member name never reaches the terminal.
. "$top_srcdir/tests/lib/common.sh"

write_config </dev/null
python3 - <<'EOF2'
import io, tarfile
with tarfile.open("hostile.tar", "w") as t:
    for name in ("\x1b]0;pwned\x07title.txt", "red-\x1b[31mALERT\x1b[0m.txt",
                 "invoice-\u202egnp.exe", "bell\x07-and-del\x7f-and-c1\u0085.txt", "back\\x1b-slash.txt"):
        data = b"member " + name.encode("utf-8", "surrogateescape")
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
EOF2
hash=$(bb blob put --name "$(printf 'up\033[2Jload\342\200\256fdp.exe')" --ref "$(printf 'ref\033[1m')" hostile.tar | head -1)
like "the archive is stored" "$hash" "^sha256:[0-9a-f]{64}$"

bb blob show "$hash" >show.txt
is "blob show succeeds" "$?" 0
# raw: no ESC, BEL, DEL, C1 NEL or U+202E byte sequences in the output
raw_bad() { python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
bad = [b for b in (b"\x1b", b"\x07", b"\x7f", b"\xc2\x85", b"\xe2\x80\xae") if b in data]
print(" ".join(repr(b) for b in bad) or "none")' "$1"; }
is "blob show prints no control or bidi character" "$(raw_bad show.txt)" none
like "the ESC of a member name is shown escaped" "$(cat show.txt)" 'red-\\x1b\[31mALERT\\x1b\[0m\.txt'
like "the OSC title sequence too" "$(cat show.txt)" '\\x1b\]0;pwned\\x07title\.txt'
like "U+202E is shown as \\u202e" "$(cat show.txt)" 'invoice-\\u202egnp\.exe'
like "DEL and C1 are shown escaped" "$(cat show.txt)" 'bell\\x07-and-del\\x7f-and-c1\\x85\.txt'
like "a backslash in a name is doubled, so escapes cannot be faked" "$(cat show.txt)" 'back\\\\x1b-slash\.txt'
like "the recorded name is escaped" "$(cat show.txt)" 'up\\x1b\[2Jload\\u202efdp\.exe'
like "and the ref" "$(cat show.txt)" 'ref=ref\\x1b\[1m'

bb blob ls >ls.txt
is "blob ls succeeds" "$?" 0
is "blob ls prints no control or bidi character" "$(raw_bad ls.txt)" none
like "blob ls shows the name escaped" "$(cat ls.txt)" 'up\\x1b\[2Jload\\u202efdp\.exe'

# --json keeps the names exact (JSON escapes them itself)
bb blob show --json "$hash" >show.json
check "blob show --json keeps the exact names" python3 -c '
import json, sys
d = json.load(open("show.json"))["blob"]
paths = [m["path"] for m in d["archive"]["members"]]
assert "invoice-\u202egnp.exe" in paths, paths
assert "red-\x1b[31mALERT\x1b[0m.txt" in paths, paths'
is "and prints no raw control byte" "$(raw_bad show.json)" none

done_testing
