#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Private bytes are never served: bugbridge import keeps the bytes of
# private attachments and of attachments of bugs in groups out of the
# served blob store (hash only by default, the private store
# <data_dir>/private-blobs with --include-private), and an import over a
# store an older version filled moves such blobs out, so that serve
# answers 404 for them.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"

command -v sqlite3 >/dev/null || skip_all "no sqlite3 program"
random_bytes 3000 1 >"$WORK/pub.bin"
random_bytes 4000 2 >"$WORK/priv.bin"
random_bytes 5000 3 >"$WORK/restr.bin"
pub=$(sha256_of "$WORK/pub.bin") priv=$(sha256_of "$WORK/priv.bin") restr=$(sha256_of "$WORK/restr.bin")

cat >"$WORK/state.json" <<EOF2
{
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "admin@example.com", "real_name": "Admin", "api_key": "importkey0123456789",
             "insider": true, "groups": ["admin"]},
            {"login": "alice@example.com", "real_name": "Alice Reporter"}],
  "groups": [{"name": "security", "description": "embargoed"}],
  "products": [{"name": "Drivers", "components": ["Wireless"]}],
  "bugs": [
    {"id": 1, "summary": "a public bug", "product": "Drivers", "component": "Wireless",
     "status": "NEW", "creator": "alice@example.com", "creation_time": "2026-12-01T08:00:00Z",
     "comments": [{"creator": "alice@example.com", "creation_time": "2026-12-01T08:00:00Z",
                   "text": "public description"}],
     "attachments": [
       {"id": 11, "file_name": "pub.bin", "summary": "public", "content_type": "application/octet-stream",
        "data": "$(base64 -w0 "$WORK/pub.bin")", "creator": "alice@example.com",
        "creation_time": "2026-12-01T08:00:00Z"},
       {"id": 12, "file_name": "priv.bin", "summary": "private", "content_type": "application/octet-stream",
        "data": "$(base64 -w0 "$WORK/priv.bin")", "creator": "admin@example.com", "is_private": true,
        "creation_time": "2026-12-01T08:05:00Z"}]},
    {"id": 2, "summary": "an embargoed bug", "product": "Drivers", "component": "Wireless",
     "status": "NEW", "creator": "alice@example.com", "groups": ["security"],
     "creation_time": "2026-12-02T08:00:00Z",
     "comments": [{"creator": "alice@example.com", "creation_time": "2026-12-02T08:00:00Z",
                   "text": "embargoed description"}],
     "attachments": [
       {"id": 21, "file_name": "restr.bin", "summary": "restricted", "content_type": "application/octet-stream",
        "data": "$(base64 -w0 "$WORK/restr.bin")", "creator": "alice@example.com",
        "creation_time": "2026-12-02T08:00:00Z"}]}
  ]
}
EOF2
fakebz_start "$WORK/state.json"
export BUGBRIDGE_API_KEY=importkey0123456789
# mkconf DIR: a config with its data in DIR
mkconf() {
	mkdir -p "$1"
	printf '[core]\ndata_dir = %s\nlog_level = warn\n[bugzilla]\napi_key_in = param\n' "$1" >"$1.conf"
	chmod 600 "$1.conf"
}
in_tree() { [ -f "$1/sha256/${2:0:2}/${2:2}" ]; }
# serve_start DIR: serves DIR's store; sets $URL
serve_start() {
	rm -f "$WORK/port"
	"$BUGBRIDGE" --config "$1.conf" serve --port-file "$WORK/port" >/dev/null 2>"$WORK/serve.log" &
	SERVER=$!
	CLEANUP_PIDS="$CLEANUP_PIDS $SERVER"
	for _ in $(seq 1 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
	[ -s "$WORK/port" ] || { cat "$WORK/serve.log"; skip_all "the server did not start"; }
	URL="http://127.0.0.1:$(cat "$WORK/port")"
}
serve_stop() { kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; }
status_of() { curl -s -o /dev/null -w '%{http_code}' "$URL/blob/sha256/$1"; }

# --- default: private bytes are hashed, never kept ----------------------------
A=$WORK/a
mkconf "$A"
adb() { sqlite3 "$A/bugbridge.db" "$@"; }
check "import without --include-private" bb --config "$A.conf" import --from "$bz"
is "the public attachment is stored" "$(adb "SELECT state || ' ' || blob_hash FROM imp_attachment WHERE id = 11")" "stored $pub"
is "the private attachment: its hash only" "$(adb "SELECT state || ' ' || blob_hash FROM imp_attachment WHERE id = 12")" "hash-only $priv"
is "the restricted bug's attachment: its hash only" "$(adb "SELECT state || ' ' || blob_hash FROM imp_attachment WHERE id = 21")" "hash-only $restr"
check "the public bytes are in the served store" in_tree "$A/blobs" "$pub"
in_tree "$A/blobs" "$priv" && not_ok "private bytes not in the served store" || ok "private bytes not in the served store"
in_tree "$A/blobs" "$restr" && not_ok "restricted bytes not in the served store" || ok "restricted bytes not in the served store"
in_tree "$A/private-blobs" "$priv" && not_ok "nor, by default, in the private store" || ok "nor, by default, in the private store"
is "the served store holds one blob" "$(adb 'SELECT count(*) FROM blob')" 1

# --- --include-private: the bytes go to the private store ---------------------
B=$WORK/b
mkconf "$B"
check "import --include-private" bb --config "$B.conf" import --from "$bz" --include-private
bdb() { sqlite3 "$B/bugbridge.db" "$@"; }
is "private attachments are kept privately" "$(bdb "SELECT group_concat(id || ':' || state, ' ') FROM imp_attachment ORDER BY id")" "11:stored 12:private 21:private"
check "the private bytes are in the private store" cmp "$B/private-blobs/sha256/${priv:0:2}/${priv:2}" "$WORK/priv.bin"
check "and the restricted bug's" cmp "$B/private-blobs/sha256/${restr:0:2}/${restr:2}" "$WORK/restr.bin"
in_tree "$B/blobs" "$priv" && not_ok "and not in the served store" || ok "and not in the served store"
is "the private store is 0750" "$(stat -c %a "$B/private-blobs")" 750
is "with its own metadata" "$(sqlite3 "$B/private-blobs/blobs.db" 'SELECT count(*) FROM blob')" 2
serve_start "$B"
is "serve: a public blob is served" "$(status_of "$pub")" 200
is "serve: a private blob fetched by its hash is 404" "$(status_of "$priv")" 404
is "serve: a restricted bug's blob is 404" "$(status_of "$restr")" 404
serve_stop

# --- a store an older import filled: private blobs are moved out -------------
# what bugbridge before this change left: the bytes in the served store,
# referenced by their attachments, state "stored"
bb --config "$A.conf" blob put "$WORK/priv.bin" "$WORK/restr.bin" >/dev/null
adb "UPDATE imp_attachment SET state = 'stored' WHERE id IN (12, 21);
     INSERT INTO blob_ref (hash, kind, ref, created) VALUES
       ('$priv', 'bug-attachment', 'bug:1/attachment:12', 0),
       ('$restr', 'bug-attachment', 'bug:2/attachment:21', 0);"
serve_start "$A"
is "before: the old store serves a private blob" "$(status_of "$priv")" 200
check "import again" bb --config "$A.conf" import --from "$bz"
is "after: a private blob fetched by its hash is 404" "$(status_of "$priv")" 404
is "after: a restricted bug's blob is 404" "$(status_of "$restr")" 404
is "the public one is still served" "$(status_of "$pub")" 200
serve_stop
in_tree "$A/blobs" "$priv" && not_ok "the file left the served tree" || ok "the file left the served tree"
check "the bytes moved to the private store" cmp "$A/private-blobs/sha256/${priv:0:2}/${priv:2}" "$WORK/priv.bin"
is "the attachments now say private" "$(adb "SELECT group_concat(state, ' ') FROM imp_attachment WHERE id IN (12, 21) ORDER BY id")" "private private"
is "their hashes are kept" "$(adb "SELECT blob_hash FROM imp_attachment WHERE id = 12")" "$priv"

done_testing
