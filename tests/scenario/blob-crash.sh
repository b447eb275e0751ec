#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Crash safety of blob put: the process is killed at every step of storing
# a blob (test hooks), and once from outside in the middle of a write.  Each
# time the store must hold no partial blob and no metadata without a file,
# and a later put must succeed and give the same result as an undisturbed
# run.
. "$top_srcdir/tests/lib/common.sh"

write_config </dev/null
random_bytes 6000000 11 >fw.bin
want=$(sha256_of fw.bin)
file="$WORK/data/blobs/sha256/$(echo "$want" | cut -c1-2)/$(echo "$want" | cut -c3-)"

state() {
	files=$(find "$WORK/data/blobs/sha256" -type f 2>/dev/null | wc -l)
	tmps=$(find "$WORK/data/blobs/tmp" -type f 2>/dev/null | wc -l)
	rows=$(bb blob ls 2>/dev/null | wc -l)
	echo "files=$files tmps=$tmps rows=$rows"
}

# reference run
bb blob put fw.bin >/dev/null 2>&1
is "reference run stores one blob" "$(state)" "files=1 tmps=0 rows=1"
rm -rf "$WORK/data"

for point in blob.write:1 blob.write:3 blob.synced blob.placed blob.recorded; do
	rm -rf "$WORK/data"
	BUGBRIDGE_CRASH_AT=$point "$BUGBRIDGE" blob put fw.bin >/dev/null 2>crash.err
	rc=$?
	is "killed at $point (SIGKILL)" "$rc" "137"
	after=$(state)
	case $point in
	blob.write*|blob.synced)
		is "killed at $point: no blob, no temp file, no metadata" "$after" "files=0 tmps=0 rows=0" ;;
	blob.placed)
		is "killed at $point: the file is in place, no metadata yet" "$after" "files=1 tmps=0 rows=0" ;;
	blob.recorded)
		is "killed at $point: everything was recorded" "$after" "files=1 tmps=0 rows=1" ;;
	esac
	check "verify after a crash at $point" bb blob verify
	out=$(bb blob put fw.bin 2>/dev/null | head -1)
	is "put after a crash at $point gives the same hash" "$out" "sha256:$want"
	is "and the store matches the reference run" "$(state)" "files=1 tmps=0 rows=1"
	check "and the blob verifies" bb blob verify "$want"
	check "and has the right bytes" cmp fw.bin "$file"
done

# killed from outside while reading a slow pipe
rm -rf "$WORK/data"
mkfifo slow.fifo
"$BUGBRIDGE" blob put - <slow.fifo >/dev/null 2>&1 &
pid=$!
CLEANUP_PIDS="$CLEANUP_PIDS $pid"
{
	head -c 3000000 fw.bin
	sleep 30
} >slow.fifo &
feeder=$!
CLEANUP_PIDS="$CLEANUP_PIDS $feeder"
# wait until the data folder exists and some data went in
for i in $(seq 1 50); do
	[ -d "$WORK/data/blobs/tmp" ] && break
	sleep 0.1
done
sleep 1
kill -9 "$pid"
wait "$pid" 2>/dev/null
kill "$feeder" 2>/dev/null
wait "$feeder" 2>/dev/null
is "a put killed mid-write from outside leaves nothing" "$(state)" "files=0 tmps=0 rows=0"
out=$(bb blob put - <fw.bin 2>/dev/null | head -1)
is "a later put of the same data succeeds" "$out" "sha256:$want"

# an archive whose members are stored too: they are made durable in
# batches (one syncfs for their data, then their names, one more); killed
# at each batch's steps, the store holds no partial member and no row
# without a file, and a later put stores them all
rm -rf "$WORK/data"
printf '[blob]\nstore_archive_members = true\n' | write_config
python3 -c '
import zipfile, sys
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for i in range(100):
        z.writestr("logs/dmesg-%03d.txt" % i, "boot %d\n" % i * (i + 1))' logs.zip
bb blob put logs.zip >/dev/null 2>&1
is "reference run: the archive and its 100 members" "$(state)" "files=101 tmps=0 rows=101"
for point in blob.synced:2 blob.placed:2 blob.synced:3 blob.placed:3; do
	rm -rf "$WORK/data"
	BUGBRIDGE_CRASH_AT=$point "$BUGBRIDGE" blob put logs.zip >/dev/null 2>crash.err
	is "members: killed at $point (SIGKILL)" "$?" "137"
	case $point in
	blob.synced:2) want_files=1 ;;    # the archive alone
	blob.placed:2) want_files=65 ;;   # and the first batch of 64
	*) want_files=101 ;;
	esac
	[ "$point" = blob.synced:3 ] && want_files=65
	is "members: killed at $point: files in place, no metadata, no temp file" \
		"$(state)" "files=$want_files tmps=0 rows=0"
	check "members: verify after a crash at $point" bb blob verify
	check "members: put after a crash at $point" bb blob put logs.zip
	is "members: and the store matches the reference run" "$(state)" "files=101 tmps=0 rows=101"
	check "members: every blob verifies" bb blob verify
done

done_testing
