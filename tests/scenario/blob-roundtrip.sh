#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# blob put/get/ls/show/verify/gc round trips with the real binary.
. "$top_srcdir/tests/lib/common.sh"

write_config <<'EOF2'
[blob]
base_url = https://bugs.example.org/files
EOF2

random_bytes 300000 2 >fw.bin
printf 'line one\nline two\n' >log.txt
fw_hash=$(sha256_of fw.bin)
log_hash=$(sha256_of log.txt)

out=$(bb blob put fw.bin 2>err.txt)
is "put prints sha256:<hex> and the URL" "$out" "sha256:$fw_hash
https://bugs.example.org/files/blob/sha256/$fw_hash/fw.bin"
like "put says what it stored" "$(cat err.txt)" "fw.bin: stored, 293.0 KiB, application/octet-stream"
file="$WORK/data/blobs/sha256/$(echo "$fw_hash" | cut -c1-2)/$(echo "$fw_hash" | cut -c3-)"
check "the blob file is at blobs/sha256/ab/cdef..." test -f "$file"
check "with the same bytes" cmp fw.bin "$file"

before=$(stat -c %Y.%i "$file")
out=$(bb blob put --name firmware.bin fw.bin 2>err.txt)
like "storing again reports already stored" "$(cat err.txt)" "already stored"
is "storing again does not rewrite the file" "$(stat -c %Y.%i "$file")" "$before"
is "one file in the tree" "$(find data/blobs/sha256 -type f | wc -l)" "1"

out=$(bb blob put --name from-stdin.txt --type text/html - <log.txt 2>/dev/null | head -1)
is "put from standard input" "$out" "sha256:$log_hash"

bb blob get "sha256:$fw_hash" >got.bin
check "get writes the bytes to standard output" cmp fw.bin got.bin
check "get -o writes a file" bb blob get "$fw_hash" -o got2.bin
check "get -o content matches" cmp fw.bin got2.bin
check_exit "get of a malformed hash is EX_DATAERR" 65 bb blob get 'sha256:../../etc/passwd'
check_exit "get of an unknown blob is EX_NOINPUT" 66 bb blob get 0000000000000000000000000000000000000000000000000000000000000000

json=$(bb blob ls --json)
is "ls --json lists both blobs with version 1" \
	"$(printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["version"], sorted(b["hash"] for b in d["blobs"]) == sorted(["'"$fw_hash"'","'"$log_hash"'"]))')" \
	"1 True"
is "ls --json records every name of a blob" \
	"$(printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(",".join(n["name"] for b in d["blobs"] if b["hash"]=="'"$fw_hash"'" for n in b["names"]))')" \
	"fw.bin,firmware.bin"
is "the claimed type is recorded but the type comes from the bytes" \
	"$(printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); b=[b for b in d["blobs"] if b["hash"]=="'"$log_hash"'"][0]; print(b["content_type"], b["names"][0]["declared_type"])')" \
	"text/plain; charset=us-ascii text/html"
out=$(bb blob ls)
like "ls prints one line per blob" "$out" "sha256:$fw_hash .* fw.bin"
out=$(bb blob show "$fw_hash")
like "show prints metadata" "$out" "size: +300000"
like "show prints names with origin" "$out" "upload +firmware.bin +ref=cli"
check "show --json is valid JSON" sh -c "'$BUGBRIDGE' blob show --json $fw_hash | python3 -m json.tool"

check_exit "put of a missing file is EX_NOINPUT" 66 bb blob put no-such-file
like "with the file named" "$(cat "$WORK/check.out")" "no-such-file: No such file"
check_exit "put of a folder is EX_DATAERR" 65 bb blob put "$WORK"
check_exit "one bad file among good ones still fails" 66 bb blob put log.txt no-such-file fw.bin
mkdir -p locked && printf 'secret' >locked/unreadable && chmod 000 locked/unreadable
if [ "$(id -u)" -ne 0 ]; then
	check_exit "put of an unreadable file is EX_NOPERM" 77 bb blob put locked/unreadable
else
	ok "# SKIP unreadable-file check (running as root)"
fi
is "failed puts left no extra blobs" "$(bb blob ls | wc -l)" "2"

check "verify passes on a healthy store" bb blob verify
# corruption: flip one byte
chmod u+w "$file"
printf 'X' | dd of="$file" bs=1 seek=1000 conv=notrunc 2>/dev/null
check_exit "verify finds the flipped byte (EX_DATAERR)" 65 bb blob verify
like "and names the corrupt blob" "$(cat "$WORK/check.out")" "sha256:$fw_hash corrupt"
check_exit "verify of just the healthy blob passes" 0 bb blob verify "$log_hash"
check_exit "get of a corrupt blob fails (EX_DATAERR)" 65 bb blob get "$fw_hash" -o corrupt-out.bin
check "and leaves no output file" test ! -e corrupt-out.bin
rm -f "$file"
check_exit "verify finds the missing file" 65 bb blob verify "$fw_hash"
like "and says missing" "$(cat "$WORK/check.out")" "missing"
out=$(bb blob verify --json 2>/dev/null)
is "verify --json reports the counts" \
	"$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["checked"], d["bad"])')" "2 1"
out=$(bb blob put fw.bin 2>&1)
check "putting the content again repairs the missing file" cmp fw.bin "$file"
check "verify passes again" bb blob verify

# gc
check "pin the log" bb blob pin "$log_hash"
out=$(bb blob gc 2>&1)
like "gc within the grace period removes nothing" "$out" "would remove 0 items"
out=$(bb blob gc --grace 0 2>&1)
like "gc --grace 0 is a dry run by default" "$out" "would remove sha256:$fw_hash"
check "dry run left the file" test -f "$file"
out=$(bb blob gc --grace 0 --yes 2>&1)
like "gc --yes removes the unreferenced blob" "$out" "removed sha256:$fw_hash"
check "the file is gone" test ! -e "$file"
check_exit "its metadata is gone" 66 bb blob show "$fw_hash"
check "the pinned blob stays" bb blob show "$log_hash"
check "unpin" bb blob unpin "$log_hash"
out=$(bb blob gc --grace 0 --yes --json)
is "gc --json counts what it removed" \
	"$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["dry_run"], d["removed"])')" "False 1"
is "the store is empty" "$(bb blob ls | wc -l)" "0"

# a full disk: a 1 MiB tmpfs in a private mount namespace
if unshare -rm true 2>/dev/null; then
	random_bytes 3000000 3 >big.bin
	cat >enospc.sh <<EOF2
mkdir -p "$WORK/small"
mount -t tmpfs -o size=1m tmpfs "$WORK/small" || exit 99
printf '[core]\ndata_dir = $WORK/small/data\n' >"$WORK/small.conf"
"$BUGBRIDGE" --config "$WORK/small.conf" blob put "$WORK/big.bin"
echo "rc=\$?"
echo "files=\$(find "$WORK/small/data/blobs" -type f | wc -l)"
echo "rows=\$("$BUGBRIDGE" --config "$WORK/small.conf" blob ls | wc -l)"
"$BUGBRIDGE" --config "$WORK/small.conf" blob put "$WORK/log.txt" >/dev/null 2>&1
echo "small=\$?"
EOF2
	out=$(unshare -rm sh enospc.sh 2>&1)
	like "a full disk fails with EX_TEMPFAIL" "$out" "rc=75"
	like "with a clear message" "$out" "disk full while storing a blob"
	like "and leaves no blob file" "$out" "files=0"
	like "and no metadata" "$out" "rows=0"
	like "a small blob still fits afterwards" "$out" "small=0"
else
	ok "# SKIP disk-full checks: no private mount namespace here"
fi

done_testing
