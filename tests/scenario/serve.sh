#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bugbridge serve: blobs over HTTP (ranges, caching, safe headers, refused
# paths) and uploads (token, size limit, truncation, concurrency, forms),
# driven with curl against the real binary on a free port.
. "$top_srcdir/tests/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"

TOKEN=tok-$$-0123456789abcdef
PROBE="python3 $top_srcdir/tests/lib/http_probe.py"

write_config <<EOF2
[server]
listen = 127.0.0.1:0
upload_token = $TOKEN
max_upload_size = 1M
threads = 4
EOF2

# --- blobs stored with the CLI first ----------------------------------------
random_bytes 300000 7 >fw.bin
printf '<!DOCTYPE html>\n<html><head><title>x</title></head><body><script>alert(1)</script></body></html>\n' >page.html
printf '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><script>alert(1)</script></svg>\n' >pic.svg
printf 'plain text, line one\nline two\n' >notes.txt
python3 -c '
import struct, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
rows = b"".join(b"\0" + b"\xff\0\0" * 4 for _ in range(4))
open("dot.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
                            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))'

fw=$(sha256_of fw.bin)
out=$(bb blob put fw.bin 2>/dev/null)
like "blob put prints sha256:<hex> then the URL" "$out" "^sha256:$fw\$"
for f in page.html pic.svg notes.txt dot.png; do
	bb blob put "$f" >/dev/null 2>&1 || not_ok "blob put $f"
done

count_blobs() {
	bb blob ls --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["blobs"]))'
}
count_files() { find "$WORK/data/blobs/sha256" -type f | wc -l | tr -d ' '; }
is "five blobs stored" "$(count_blobs)" "5"

# --- the command line ---------------------------------------------------------
out=$(bb serve --help)
like "serve --help shows the options" "$out" "--listen ADDR:PORT"
check_exit "a malformed --listen is refused" 65 bb serve --listen nonsense
check_exit "an unbracketed IPv6 --listen is refused" 65 bb serve --listen ::1:0
check_exit "an extra argument is a usage error" 64 bb serve extra

# wait_for_port FILE PID: waits until the server wrote its port file


if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
	"$BUGBRIDGE" serve --listen '[::1]:0' --port-file "$WORK/port6" >/dev/null 2>"$WORK/serve6.log" &
	server6=$!
	CLEANUP_PIDS="$server6"
	if wait_for_port "$WORK/port6" "$server6"; then
		port6=$(cat "$WORK/port6")
		is "--listen [::1]:0 serves on IPv6" \
			"$(curl -s -g "http://[::1]:$port6/blob/sha256/$fw" | sha256sum | cut -d' ' -f1)" "$fw"
		like "  and says so" "$(cat "$WORK/serve6.log")" "on http://\[::1\]:$port6/"
	else
		not_ok "--listen [::1]:0 serves on IPv6"
		sed 's/^/#   /' "$WORK/serve6.log"
	fi
	stop_server "$server6"
	is "  and stops on SIGTERM with exit 0" "$?" "0"
	CLEANUP_PIDS=$(printf '%s\n' $CLEANUP_PIDS | grep -vx "$server6" | tr '\n' ' ')
	check "  removing its port file" test ! -e "$WORK/port6"
else
	ok "# SKIP no IPv6 loopback here"
fi

# --- start the server (-v: every request is logged) ---------------------------
"$BUGBRIDGE" -v serve --port-file "$WORK/port" --pid-file "$WORK/pid" >/dev/null 2>"$WORK/serve.log" &
SERVER=$!
CLEANUP_PIDS="$SERVER"
if ! wait_for_port "$WORK/port" "$SERVER"; then
	not_ok "serve writes its port file"
	sed 's/^/#   /' "$WORK/serve.log"
	done_testing
	exit 1
fi
PORT=$(cat "$WORK/port")
URL="http://127.0.0.1:$PORT"
ok "serve writes its port file ($PORT)"
is "and its pid file" "$(cat "$WORK/pid")" "$SERVER"
like "serve says where it serves" "$(cat "$WORK/serve.log")" \
	"bugbridge: serving $WORK/data/blobs on http://127.0.0.1:$PORT/"
like "a pool unless told otherwise, of threads = 4 threads" \
	"$(cat "$WORK/serve.log")" "event=http.started .*threading=pool threads=4"

# fetch ARGS...: body to $WORK/body, headers (no CR) to $WORK/headers,
# status code printed
fetch() {
	rm -f "$WORK/body" "$WORK/headers.raw"
	curl -s -o "$WORK/body" -D "$WORK/headers.raw" -w '%{http_code}' "$@"
	tr -d '\r' <"$WORK/headers.raw" >"$WORK/headers" 2>/dev/null
}
header() { grep -i "^$1:" "$WORK/headers" | head -1 | cut -d' ' -f2-; }
json_field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/body" "$1"; }

# --- GET, HEAD, ranges, caching --------------------------------------------------
is "GET / is the tiny index" "$(fetch "$URL/")" "200"
is "  saying what it is" "$(cat "$WORK/body")" "bugbridge blob server"

is "GET of a blob is 200" "$(fetch "$URL/blob/sha256/$fw")" "200"
is "  with the stored bytes" "$(sha256_of "$WORK/body")" "$fw"
is "  ETag is \"sha256:<hex>\"" "$(header ETag)" "\"sha256:$fw\""
is "  Cache-Control is immutable" "$(header Cache-Control)" "public, max-age=31536000, immutable"
is "  nosniff" "$(header X-Content-Type-Options)" "nosniff"
is "  Accept-Ranges: bytes" "$(header Accept-Ranges)" "bytes"
is "  a sandboxing Content-Security-Policy" "$(header Content-Security-Policy)" "default-src 'none'; sandbox"
is "  Content-Length" "$(header Content-Length)" "300000"

upper=$(echo "$fw" | tr 'a-f' 'A-F')
is "upper-case hex is accepted" "$(fetch "$URL/blob/sha256/$upper")" "200"
is "  and the ETag is lower case" "$(header ETag)" "\"sha256:$fw\""

out=$($PROBE raw "$PORT" HEAD "/blob/sha256/$fw")
like "HEAD is 200" "$out" "^HTTP/1.1 200"
like "  and sends no body" "$out" "^body-bytes: 0\$"
is "HEAD gives the Content-Length" "$(fetch -I "$URL/blob/sha256/$fw")$(header Content-Length)" "200300000"

is "Range bytes=10-19 is 206" "$(fetch -H 'Range: bytes=10-19' "$URL/blob/sha256/$fw")" "206"
is "  with 10 bytes" "$(wc -c <"$WORK/body" | tr -d ' ')" "10"
is "  the right ones" "$(od -An -tx1 "$WORK/body" | tr -d ' \n')" \
	"$(dd if=fw.bin bs=1 skip=10 count=10 2>/dev/null | od -An -tx1 | tr -d ' \n')"
is "  and Content-Range" "$(header Content-Range)" "bytes 10-19/300000"

is "suffix range bytes=-5 is 206" "$(fetch -H 'Range: bytes=-5' "$URL/blob/sha256/$fw")" "206"
is "  with the last 5 bytes" "$(od -An -tx1 "$WORK/body" | tr -d ' \n')" \
	"$(tail -c 5 fw.bin | od -An -tx1 | tr -d ' \n')"
is "  and Content-Range" "$(header Content-Range)" "bytes 299995-299999/300000"

is "open range bytes=299990- is 206" "$(fetch -H 'Range: bytes=299990-' "$URL/blob/sha256/$fw")$(wc -c <"$WORK/body" | tr -d ' ')" "20610"
is "a range past the end is 416" "$(fetch -H 'Range: bytes=300000-300010' "$URL/blob/sha256/$fw")" "416"
is "  with Content-Range: bytes */size" "$(header Content-Range)" "bytes */300000"
is "  and a JSON error" "$(json_field error)" "invalid"
is "several ranges get the whole blob" "$(fetch -H 'Range: bytes=0-1,5-6' "$URL/blob/sha256/$fw")$(sha256_of "$WORK/body")" "200$fw"
is "If-Range with another ETag gets the whole blob" \
	"$(fetch -H 'Range: bytes=0-1' -H 'If-Range: "sha256:0000"' "$URL/blob/sha256/$fw")" "200"

is "If-None-Match with the ETag is 304" "$(fetch -H "If-None-Match: \"sha256:$fw\"" "$URL/blob/sha256/$fw")" "304"
check "  with no body" test ! -s "$WORK/body"
is "  and the ETag" "$(header ETag)" "\"sha256:$fw\""
is "a weak or listed match is 304 too" \
	"$(fetch -H "If-None-Match: \"x\", W/\"sha256:$fw\"" "$URL/blob/sha256/$fw")" "304"
is "another ETag is 200" "$(fetch -H 'If-None-Match: "sha256:00"' "$URL/blob/sha256/$fw")" "200"

# --- what a browser may render is an attachment ------------------------------
disposition() {
	fetch "$URL/blob/sha256/$(sha256_of "$1")/$1" >/dev/null
	header Content-Disposition
}
like "HTML is an attachment" "$(disposition page.html)" "^attachment; filename=\"page.html\""
is "  sent as application/octet-stream, not text/html" "$(header Content-Type)" "application/octet-stream"
like "SVG is an attachment" "$(disposition pic.svg)" "^attachment; filename=\"pic.svg\""
is "  sent as application/octet-stream, not image/svg+xml" "$(header Content-Type)" "application/octet-stream"
like "PNG is inline" "$(disposition dot.png)" "^inline; filename=\"dot.png\""
is "  typed image/png" "$(header Content-Type)" "image/png"
like "plain text is inline" "$(disposition notes.txt)" "^inline"
like "  typed text/plain" "$(header Content-Type)" "^text/plain"
fetch "$URL/blob/sha256/$(sha256_of notes.txt)/notes.html" >/dev/null
is "plain text named .html is an attachment" "$(header Content-Disposition | cut -d';' -f1)" "attachment"
is "  sent as application/octet-stream" "$(header Content-Type)" "application/octet-stream"
fetch "$URL/blob/sha256/$(sha256_of page.html)/r%C3%A9sum%C3%A9%20%22x%22.html" >/dev/null
is "a non-ASCII name is RFC 6266 encoded" "$(header Content-Disposition)" \
	"attachment; filename=\"r__sum__ _x_.html\"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22x%22.html"
is "no name: attachment alone" "$(fetch "$URL/blob/sha256/$(sha256_of page.html)")$(header Content-Disposition)" "200attachment"
# a small blob's whole answer is kept for the next GET by the same name:
# another name, a HEAD, a range or a conditional GET each get their own
notes=$(sha256_of notes.txt)
like "the same small blob by its first name again: inline, as before" \
	"$(fetch "$URL/blob/sha256/$notes/notes.txt")$(header Content-Disposition)" "^200inline"
is "  the same bytes" "$(sha256_of "$WORK/body")" "$notes"
is "  by the .html name again: still an attachment" \
	"$(fetch "$URL/blob/sha256/$notes/notes.html")$(header Content-Disposition | cut -d';' -f1)" \
	"200attachment"
is "  a HEAD is a HEAD" "$(fetch -I "$URL/blob/sha256/$notes/notes.txt") $(header Content-Length)" \
	"200 $(wc -c <notes.txt | tr -d ' ')"
is "  a range is a range" \
	"$(fetch -H 'Range: bytes=0-2' "$URL/blob/sha256/$notes/notes.txt")$(wc -c <"$WORK/body" | tr -d ' ')" "2063"
is "  If-None-Match is 304" "$(fetch -H "If-None-Match: \"sha256:$notes\"" "$URL/blob/sha256/$notes/notes.txt")" "304"

# --- malformed and hostile paths ----------------------------------------------
is "a short hash is 400" "$(fetch "$URL/blob/sha256/abc123")" "400"
is "  with a JSON error" "$(json_field error)" "invalid"
is "a 65-digit hash is 400" "$(fetch "$URL/blob/sha256/${fw}0")" "400"
is "a non-hex hash is 400" "$(fetch "$URL/blob/sha256/$(echo "$fw" | sed 's/^./g/')")" "400"
is "another algorithm is 400" "$(fetch "$URL/blob/md5/d41d8cd98f00b204e9800998ecf8427e")" "400"
for path in "/blob/sha256/../../etc/passwd" "/blob/sha256/%2e%2e/%2e%2e/etc/passwd" \
	"/blob/sha256/$fw/.." "/blob/sha256/$fw/%2E%2e" "/blob/sha256/$fw/..%2f..%2fetc%2fpasswd" \
	"/blob/sha256/$fw/a%00b" "/blob/sha256/$fw/a/b" "/../../../../etc/passwd" \
	"/blob/sha256/$fw/%2e%2e%5cwin.ini" "/blob/sha256/$fw/"; do
	code=$(fetch --path-as-is "$URL$path")
	case $code in
	400|404) ok "$path is $code" ;;
	*) not_ok "$path is $code" ;;
	esac
	like "  with a JSON error" "$(cat "$WORK/body")" '^\{"error":"(invalid|not-found)","message":'
	unlike "  and never file contents" "$(cat "$WORK/body")" "root:|\[fonts\]"
done
out=$($PROBE raw "$PORT" GET "/blob/sha256/../../../../../etc/passwd")
like "a raw request line with .. is 400" "$out" "^HTTP/1.1 400"
unlike "  and shows no file" "$out" "root:"
is "an unknown blob is 404" "$(fetch "$URL/blob/sha256/$(echo "$fw" | tr '0-9a-f' '1-9a-f0')")" "404"
is "  with a JSON error" "$(json_field error)" "not-found"
is "an unknown path is 404" "$(fetch "$URL/etc/passwd")" "404"
is "  with a JSON error" "$(json_field error)" "not-found"
is "POST to a blob is 405" "$(fetch -X POST --data-binary x "$URL/blob/sha256/$fw")" "405"
is "  with Allow" "$(header Allow)" "GET, HEAD"
is "GET /upload is 405" "$(fetch "$URL/upload")" "405"
is "  with Allow" "$(header Allow)" "POST, PUT"

# --- uploads -----------------------------------------------------------------
random_bytes 200000 8 >up.bin
up=$(sha256_of up.bin)
auth="Authorization: Bearer $TOKEN"
is "upload without a token is 401" "$(fetch --data-binary @up.bin "$URL/upload?name=up.bin")" "401"
like "  with WWW-Authenticate: Bearer" "$(header WWW-Authenticate)" "^Bearer"
is "  and a JSON error" "$(json_field error)" "unauthorized"
is "upload with a wrong token is 401" \
	"$(fetch -H "Authorization: Bearer ${TOKEN}x" --data-binary @up.bin "$URL/upload")" "401"
is "upload with a token of the right length but wrong is 401" \
	"$(fetch -H "Authorization: Bearer $(echo "$TOKEN" | tr 'a-f' 'b-g')" --data-binary @up.bin "$URL/upload")" "401"
is "nothing was stored by refused uploads" "$(fetch "$URL/blob/sha256/$up")" "404"

is "upload with the token is 201" \
	"$(fetch -H "$auth" -H 'Content-Type: application/x-firmware' --data-binary @up.bin "$URL/upload?name=up.bin")" "201"
is "  JSON hash" "$(json_field hash)" "sha256:$up"
is "  JSON size" "$(json_field size)" "200000"
like "  JSON url" "$(json_field url)" "/blob/sha256/$up/up\.bin\$"
is "  JSON content_type" "$(json_field content_type)" "application/octet-stream"
like "  Location" "$(header Location)" "/blob/sha256/$up/up\.bin\$"
is "the upload can be fetched" "$(fetch "$URL/blob/sha256/$up/up.bin")$(sha256_of "$WORK/body")" "200$up"
is "the same content again is 200" "$(fetch -H "$auth" --data-binary @up.bin "$URL/upload?name=again.bin")" "200"
is "  with the same hash" "$(json_field hash)" "sha256:$up"
is "PUT /upload/NAME stores too" "$(fetch -H "$auth" -T notes.txt "$URL/upload/put%20name.txt")" "200"
is "  (the content was there)" "$(json_field hash)" "sha256:$(sha256_of notes.txt)"
names=$(bb blob ls --json | python3 -c '
import json, sys
for b in json.load(sys.stdin)["blobs"]:
    for n in b["names"]:
        print(b["hash"], n["name"], n["declared_type"] or "-", n["origin"], n["origin_ref"])')
like "the upload origin is recorded" "$names" "^$up up\.bin application/x-firmware upload http\$"
like "a second name is recorded" "$names" "^$up again\.bin "
like "a PUT name is recorded" "$names" "^$(sha256_of notes.txt) put name\.txt - upload http\$"

# over the limit
random_bytes 1500000 9 >big.bin
big=$(sha256_of big.bin)
blobs_before=$(count_blobs)
is "an upload over max_upload_size is 413" "$(fetch -H "$auth" --data-binary @big.bin "$URL/upload")" "413"
is "  with a JSON error" "$(json_field error)" "too-large"
is "a chunked upload over the limit is 413" \
	"$(fetch -H "$auth" -H 'Transfer-Encoding: chunked' --data-binary @big.bin "$URL/upload")" "413"
is "  and nothing is stored" "$(fetch "$URL/blob/sha256/$big")" "404"
is "  nor listed" "$(count_blobs)" "$blobs_before"

# a client that goes away half way
files_before=$(count_files)
trunc=$($PROBE truncate "$PORT" "/upload?name=cut.bin" "$TOKEN" 100000 1000)
i=0
while ! grep -q 'event=http.upload_aborted' "$WORK/serve.log" && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
like "a truncated upload is aborted" "$(cat "$WORK/serve.log")" "event=http.upload_aborted .*path=\"?/upload"
is "  and leaves no blob" "$(fetch "$URL/blob/sha256/$trunc")" "404"
is "  no file" "$(count_files)" "$files_before"
is "  no metadata" "$(count_blobs)" "$blobs_before"
is "  and no temporary file" "$(find "$WORK/data/blobs/tmp" -type f | wc -l | tr -d ' ')" "0"

# eight clients at once with the same new content
random_bytes 400000 10 >same.bin
same=$(sha256_of same.bin)
n=1
pids=""
while [ $n -le 8 ]; do
	curl -s -o "$WORK/conc.$n" -w '%{http_code}' -H "$auth" --data-binary @same.bin \
		"$URL/upload?name=same-$n.bin" >"$WORK/conc.$n.code" &
	pids="$pids $!"
	n=$((n + 1))
done
for pid in $pids; do wait "$pid"; done
codes=$(for n in 1 2 3 4 5 6 7 8; do cat "$WORK/conc.$n.code"; echo; done | sort | uniq -c | awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }')
created=0
stored=0
for n in 1 2 3 4 5 6 7 8; do
	case $(cat "$WORK/conc.$n.code") in
	201) created=$((created + 1)) ;;
	200) stored=$((stored + 1)) ;;
	esac
done
is "8 concurrent uploads all succeed ($codes)" "$((created + stored))" "8"
ok_hashes=$(for n in 1 2 3 4 5 6 7 8; do python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["hash"])' "$WORK/conc.$n"; done | sort -u)
is "  all with the same hash" "$ok_hashes" "sha256:$same"
is "  exactly one blob file for it" \
	"$(find "$WORK/data/blobs/sha256" -type f -name "$(echo "$same" | cut -c3-)" | wc -l | tr -d ' ')" "1"
is "  and one file per blob in the tree" "$(count_files)" "$(count_blobs)"
is "  no temporary files left" "$(find "$WORK/data/blobs/tmp" -type f | wc -l | tr -d ' ')" "0"
is "  all eight names recorded" \
	"$(bb blob ls --json | python3 -c 'import json, sys; print(sum(len(b["names"]) for b in json.load(sys.stdin)["blobs"] if b["hash"] == sys.argv[1]))' "$same")" "8"

# multipart/form-data
printf 'kernel: oops at 0xdeadbeef\n' >oops.log
oops=$(sha256_of oops.log)
is "multipart POST with curl -F is 201" \
	"$(fetch -H "$auth" -F comment=hello -F "file=@oops.log;type=text/x-log" "$URL/upload")" "201"
is "  the hash of the file field" "$(json_field hash)" "sha256:$oops"
like "  the URL names the file" "$(json_field url)" "/blob/sha256/$oops/oops\.log\$"
like "  the file name and type are recorded" \
	"$(bb blob ls --json | python3 -c 'import json, sys; [print(n["name"], n["declared_type"]) for b in json.load(sys.stdin)["blobs"] if b["hash"] == sys.argv[1] for n in b["names"]]' "$oops")" \
	"^oops\.log text/x-log\$"
is "  and served back" "$(fetch "$URL/blob/sha256/$oops")$(sha256_of "$WORK/body")" "200$oops"
is "a form without a file is 400" "$(fetch -H "$auth" -F comment=hello "$URL/upload")" "400"
is "an upload name with a slash is 400" "$(fetch -H "$auth" --data-binary x "$URL/upload?name=a%2fb")" "400"

# a blob whose file went missing behind the store's back
rm -f "$WORK/data/blobs/sha256/$(echo "$oops" | cut -c1-2)/$(echo "$oops" | cut -c3-)"
is "a recorded blob without its file is 404" "$(fetch "$URL/blob/sha256/$oops")" "404"
like "  and the server logs it" "$(cat "$WORK/serve.log")" "event=http.blob_missing hash=$oops"
unlike "  without telling the client where files live" "$(cat "$WORK/body")" "$WORK"

# --- the log -----------------------------------------------------------------
log=$(cat "$WORK/serve.log")
like "one log line per request" "$log" \
	"event=http.request client=127.0.0.1 method=GET path=/blob/sha256/$fw status=206 bytes=10 "
like "  uploads with their status and size" "$log" \
	"event=http.request client=127.0.0.1 method=POST path=/upload status=201 bytes=[0-9]+ received=200000 end=ok"
like "  refused ones too" "$log" "event=http.request client=127.0.0.1 method=POST path=/upload status=401 "
unlike "the token never reaches the log" "$log" "$TOKEN"
unlike "nor does the Authorization header" "$log" "Bearer"

# --- shutdown ----------------------------------------------------------------
stop_server "$SERVER"
rc=$?
CLEANUP_PIDS=$(printf '%s\n' $CLEANUP_PIDS | grep -vx "$SERVER" | tr '\n' ' ')
is "SIGTERM stops the server with exit 0" "$rc" "0"
check "  and it removed its pid file" test ! -e "$WORK/pid"
unlike "  having logged no sanitizer report" "$(cat "$WORK/serve.log")" "Sanitizer"

done_testing
