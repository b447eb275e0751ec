#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Archive inspection through the real binary, on archives made by the real
# tools: listing, hashes, bombs, nesting, and members stored as blobs.
. "$top_srcdir/tests/lib/common.sh"

write_config <<'EOF2'
[blob]
archive_max_ratio = 200
archive_max_depth = 3
EOF2

mkdir -p src/firmware
random_bytes 70000 4 >src/firmware/iwlwifi.ucode
printf 'dmesg line 1\ndmesg line 2\n' >src/dmesg.txt
fw_hash=$(sha256_of src/firmware/iwlwifi.ucode)
log_hash=$(sha256_of src/dmesg.txt)

# members of archive $1 as "path size hash" lines, from blob show --json
members() {
	hash=$(bb blob put "$1" 2>/dev/null | head -1)
	bb blob show --json "$hash" | python3 -c '
import json, sys
d = json.load(sys.stdin)["blob"]
a = d["archive"] or {}
print("status", a.get("status"))
for m in a.get("members", []):
    print(m["path"].lstrip("./"), m["size"], m["hash"])'
}

have() { command -v "$1" >/dev/null 2>&1; }

check_listing() {
	name=$1
	out=$(members "$name")
	like "$name: inspected" "$out" "^status ok"
	like "$name: firmware member with its size and sha256" "$out" "firmware/iwlwifi.ucode 70000 $fw_hash"
	like "$name: log member with its size and sha256" "$out" "dmesg.txt 26 $log_hash"
}

tar -C src -cf plain.tar firmware dmesg.txt && check_listing plain.tar
tar -C src -czf gz.tar.gz firmware dmesg.txt && check_listing gz.tar.gz
tar -C src -cJf xz.tar.xz firmware dmesg.txt && check_listing xz.tar.xz
tar -C src -cjf bz.tar.bz2 firmware dmesg.txt && check_listing bz.tar.bz2
if have zstd; then
	tar -C src -cf - firmware dmesg.txt | zstd -q -o zst.tar.zst && check_listing zst.tar.zst
else
	ok "# SKIP zstd not installed"
fi
if have zip; then
	(cd src && zip -qr ../archive.zip firmware dmesg.txt) && check_listing archive.zip
else
	ok "# SKIP zip not installed"
fi
if have cpio; then
	(cd src && find firmware dmesg.txt | cpio -o -H newc --quiet >../archive.cpio) && check_listing archive.cpio
else
	ok "# SKIP cpio not installed"
fi
if have 7z; then
	(cd src && 7z a -bd -bso0 ../archive.7z firmware dmesg.txt) && check_listing archive.7z
else
	ok "# SKIP 7z not installed"
fi
gzip -c src/dmesg.txt >dmesg.txt.gz
out=$(members dmesg.txt.gz)
like "a lone .gz lists as one member with the content's hash" "$out" " 26 $log_hash"

# not an archive
out=$(members src/dmesg.txt)
like "plain text is not an archive" "$out" "^status None"

# damaged archive: cut in the middle
head -c 40000 gz.tar.gz >cut.tar.gz
out=$(members cut.tar.gz)
like "a truncated archive is recorded as damaged" "$out" "^status damaged"
check "and its blob is still stored and verifies" bb blob verify

# a bomb: 300 MiB of zeros in a small gzip, far past the ratio limit
head -c 314572800 /dev/zero | gzip -9 >bomb.bin.gz
start=$(date +%s)
out=$(members bomb.bin.gz)
took=$(( $(date +%s) - start ))
like "a compression bomb is recorded as too large" "$out" "^status too-large"
hash=$(sha256_of bomb.bin.gz)
like "with a note on the ratio" "$(bb blob show "$hash")" "too-large: .*ratio"
diag "bomb inspection took ${took}s"

# deep nesting: zip in zip in zip ...
if have zip; then
	cp src/dmesg.txt level0.txt
	prev=level0.txt
	for i in 1 2 3 4 5; do
		zip -q "level$i.zip" "$prev"
		prev="level$i.zip"
	done
	out=$(members level5.zip)
	like "nested archives are listed inside" "$out" "level4.zip!/level3.zip"
	unlike "but not below the depth limit" "$out" "level1.zip!/level0.txt"
	like "the depth limit is noted" "$(bb blob show level5.zip 2>/dev/null; bb blob show "$(sha256_of level5.zip)")" "depth"
else
	ok "# SKIP zip not installed"
fi

# members stored as blobs: one firmware file in two archives is stored once
rm -rf "$WORK/data"
write_config <<'EOF2'
[blob]
store_archive_members = true
EOF2
mkdir -p other && cp src/firmware/iwlwifi.ucode other/renamed.ucode && printf 'other\n' >other/readme
tar -C other -czf other.tar.gz renamed.ucode readme
bb blob put gz.tar.gz other.tar.gz >/dev/null 2>&1
check "the firmware member is a blob of its own" bb blob show "$fw_hash"
is "stored once, under both member names" \
	"$(bb blob show --json "$fw_hash" | python3 -c 'import json,sys; print(sorted(n["name"].lstrip("./") for n in json.load(sys.stdin)["blob"]["names"]))')" \
	"['firmware/iwlwifi.ucode', 'renamed.ucode']"
is "one file for it in the store" "$(find data/blobs/sha256 -type f -name "$(echo "$fw_hash" | cut -c3-)" | wc -l)" "1"
check "the member blob has the member's bytes" sh -c "'$BUGBRIDGE' blob get $fw_hash | cmp - src/firmware/iwlwifi.ucode"
check "the whole store verifies" bb blob verify

done_testing
