#!/bin/sh
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

done_testing
