#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The command line: help, version, exit codes, configuration handling.
. "$top_srcdir/tests/lib/common.sh"

out=$(bb --version)
like "--version prints the version" "$out" '^bugbridge [0-9]+\.[0-9]+\.[0-9]+$'
out=$(bb --help)
like "--help names the configuration lookup as it is" "$(printf '%s' "$out" | tr -s ' \n' ' ')" \
	"BUGBRIDGE_CONFIG, ./bugbridge.conf, the user's, then the system's bugbridge.conf"
like "and --as-owner" "$out" "--as-owner"
for cmd in blob serve demo config check reload version help; do
	like "--help lists $cmd" "$out" "^  $cmd +[a-z]"
done
check_exit "no command is a usage error" 64 bb
check_exit "an unknown command is a usage error" 64 bb frobnicate
unlike "with no guess when nothing is close" "$(cat check.out)" "did you mean"
check_exit "a mistyped command too" 64 bb sycn
like "which names what was meant" "$(cat check.out)" 'no such command: sycn; did you mean "sync"\?'
check_exit "an unknown global option is a usage error" 64 bb --frob blob ls

for cmd in blob serve demo config version help; do
	check_exit "bugbridge $cmd --help exits 0" 0 bb "$cmd" --help
done
for sub in put get ls show verify gc pin; do
	out=$(bb blob "$sub" --help 2>&1)
	like "blob $sub --help shows its usage" "$out" "usage: bugbridge blob $sub"
done
check_exit "an unknown blob subcommand is a usage error" 64 bb blob frob
out=$(bb help blob)
like "help blob shows the blob usage" "$out" 'usage: bugbridge blob <subcommand>'

# --help works even when the configuration is broken
printf '[core]\nbogus = 1\n' >broken.conf
check_exit "--help needs no valid configuration" 0 bb --config broken.conf blob put --help
check_exit "a broken configuration is EX_CONFIG" 78 bb --config broken.conf blob ls
like "and the message names the key" "$(cat "$WORK/check.out")" 'unknown key "bogus" in \[core\]'
check_exit "a missing --config file is EX_NOINPUT" 66 bb --config nowhere.conf blob ls

# secrets in a file others can read are refused
printf '[server]\nupload_token = hunter2hunter2\n' >secret.conf
chmod 644 secret.conf
check_exit "a world-readable secret is refused with EX_CONFIG" 78 bb --config secret.conf config
out=$(cat "$WORK/check.out")
like "the refusal explains itself" "$out" 'holds a secret .* readable by others'
unlike "the refusal does not print the secret" "$out" 'hunter2'
chmod 600 secret.conf
out=$(bb --config secret.conf config)
like "a private secret file is accepted and the token is hidden" "$out" 'upload_token = <set>'
unlike "config never prints the secret" "$out" 'hunter2'

# built-in defaults without any file
out=$(env -u BUGBRIDGE_CONFIG "$BUGBRIDGE" config)
like "defaults come from the built-in table" "$out" '# from built-in defaults'
like "default data folder: ./bugbridge-data, shown absolute" "$out" "data_dir = $(pwd)/bugbridge-data\$"
out=$(env -u BUGBRIDGE_CONFIG "$BUGBRIDGE" config --json)
is "config --json is valid JSON with a version" \
	"$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["version"], d["settings"]["server"]["listen"])')" \
	"1 127.0.0.1:8080"
out=$(bb config --keys)
like "config --keys documents every key" "$out" 'archive_max_ratio = 200'

# ./bugbridge.conf and $BUGBRIDGE_CONFIG
mkdir -p here && printf '[core]\nlog_level = debug\n' >here/bugbridge.conf
out=$(cd here && env -u BUGBRIDGE_CONFIG "$BUGBRIDGE" config)
like "./bugbridge.conf is read" "$out" 'log_level = debug'
printf '[core]\nlog_level = error\n' >env.conf
out=$(cd here && BUGBRIDGE_CONFIG="$WORK/env.conf" "$BUGBRIDGE" config)
like "\$BUGBRIDGE_CONFIG wins over ./bugbridge.conf" "$out" 'log_level = error'

# writing to a closed standard output is an error, not silence
write_config </dev/null
bb blob put "$top_srcdir/demo/dmesg-6.6.1-suspend.txt" >/dev/null 2>&1
if "$BUGBRIDGE" blob ls >/dev/full 2>/dev/null; then
	not_ok "a full standard output makes the command fail"
else
	ok "a full standard output makes the command fail"
fi

# blobs may be named by a unique prefix of 7 or more hex digits, as git does
full=$(sha256sum "$top_srcdir/demo/dmesg-6.6.1-suspend.txt" | cut -c1-64)
like "blob show takes an abbreviated hash" "$(bb blob show "$(printf %.7s "$full")" 2>&1)" "sha256:$full"
check "blob get too" sh -c "'$BUGBRIDGE' blob get $(printf %.10s "$full") | cmp - '$top_srcdir/demo/dmesg-6.6.1-suspend.txt'"
check_exit "a prefix no blob has is not found" 66 bb blob show 0000000
check_exit "six digits are not a hash" 65 bb blob show "$(printf %.6s "$full")"

done_testing
