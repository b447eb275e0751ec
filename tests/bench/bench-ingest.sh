#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of the inbound bridge (make bench): BENCH_MAILS list mails, built
# from the real mail corpus with fresh Message-IDs (tests/bench/bench-ingest-gen.py),
# appended to a local mbox that `bugbridge sync` reads as its [archive]
# (kind = mbox), against the fake Bugzilla (tests/lib/fake_bugzilla.py)
# with BENCH_BUGS bugs already mirrored.  About 0.5% of the mails answer one
# of those bugs, one in ten of them with a #bugbridge command.
#
#  1. `bugbridge sync --dry-run`: the archive read, every mail's header
#     pass, match and raw command scan, the full decode of the mails that
#     need it; nothing recorded, nothing posted;
#  2. `bugbridge sync`: the same mails for real - each recorded with the
#     archive cursor, the matched ones posted to Bugzilla, commands done;
#  3. `bugbridge sync` again with nothing new;
#  4. the baseline, in the same run on the same mbox: Python's standard
#     `email` package parsing each mail, looking up Message-ID, In-Reply-To,
#     References, From and Subject and extracting the text body
#     (tests/bench/bench-ingest-py.py), with the modern policy
#     (email.policy.default) and the legacy default (compat32);
#  5. with listlab (tests/lib/listlab.sh: a real public-inbox) if it can
#     start here: a poll of a public-inbox source with nothing new, and the
#     git processes it ran.
#
# Wall time, messages/s, MB/s (of the mbox bytes, 1 MB = 10^6 bytes), peak
# RSS; ratios bugbridge / Python (above 1: bugbridge is faster).  Prints
# figures; asserts nothing.
#
#   BENCH_MAILS        mails (default 100000)
#   BENCH_BUGS         mirrored bugs the replies go to (default 100)
#   BENCH_COMMENTS     comments per bug, the description included (default 10)
#   BENCH_MATCH_SHARE  share of mails that answer a mirrored bug (default 0.005)
#   BENCH_RUNS         rounds of the dry run and each baseline, run one
#                      after the other; the medians are reported (default 3)
#   BENCH_LISTLAB      0 to leave out the public-inbox poll (default 1)
#   BENCH_BASELINE     another bugbridge binary (say, one built from an older
#                      commit: git worktree add, ./autogen.sh, configure,
#                      make bugbridge) whose dry run is measured in the same
#                      rounds, on the same mbox, with its own data folder;
#                      the report gives this build's dry run against it
#   BENCH_DIR          where to work (default: a new folder in $TMPDIR or /tmp)
#   BENCH_KEEP         non-empty: keep the work folder
#   BUGBRIDGE_SHARED   the shared folder with corpus/mail (default
#                      $top_srcdir/../shared)
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
: "${BUGBRIDGE:?set BUGBRIDGE to the bugbridge binary (make bench does)}"
nmails=${BENCH_MAILS:-100000}
nbugs=${BENCH_BUGS:-100}
ncomments=${BENCH_COMMENTS:-10}
share=${BENCH_MATCH_SHARE:-0.005}
runs=${BENCH_RUNS:-3}
shared=${BUGBRIDGE_SHARED:-$top_srcdir/../shared}
corpus=$shared/corpus/mail
PY=/usr/bin/python3 # Debian's: the baseline is the distribution's email package

echo "bugbridge inbound benchmark: $nmails list mails through parse, match and command scan"
if [ ! -d "$corpus" ]; then
	echo "skipped: no mail corpus at $corpus (set BUGBRIDGE_SHARED to the folder holding corpus/mail)"
	exit 0
fi
bz_pid="" listlab_up=""
# shellcheck disable=SC2317 # run by the exit trap
cleanup() {
	stop "$bz_pid"
	[ -n "$listlab_up" ] && listlab_stop >/dev/null 2>&1
	if [ -n "${BENCH_KEEP:-}" ]; then echo "work folder kept: $work"; else rm -rf "$work"; fi
}
make_work bugbridge-bench-ingest
export TZ=UTC HOME="$work/home"
mkdir -p "$HOME"

ratio() { quotient %.1f "$1" "$2"; }
per_s() { quotient %.0f "$1" "$2"; }
mb_s() { if [ "$(echo "$2 > 0" | bc -l)" = 1 ]; then printf '%.1f' "$(echo "$1 / $2 / 1000000" | bc -l)"; else echo "-"; fi; }

# --- the fake Bugzilla with the bugs the replies answer ---------------------
"$PY" - "$nbugs" "$ncomments" >state.json <<'EOF'
import json, sys, time
nbugs, ncomments = int(sys.argv[1]), int(sys.argv[2])
now = 1796288400                      # 2026-12-03T09:00:00Z, the frozen clock
def t(s): return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(s))
users = [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "benchkey0123456789",
          "groups": ["editbugs"]},
         {"login": "lead@bench.test", "real_name": "Bench Lead"}]
users += [{"login": "reporter%d@example.net" % i, "real_name": "Reporter %d" % i}
          for i in range(10)]
bugs = []
for i in range(1, nbugs + 1):
    created = now - 86400 + i * 60
    reporter = "reporter%d@example.net" % (i % 10)
    bugs.append({"id": i, "summary": "bench bug %d: firmware timeout after resume" % i,
                 "product": "Drivers", "component": "Network", "status": "CONFIRMED",
                 "creator": reporter, "creation_time": t(created),
                 "comments": [{"creator": reporter, "creation_time": t(created + k * 5),
                               "text": "Comment %d: the machine locks up after resume (bug %d)."
                                       % (k, i)} for k in range(max(ncomments, 1))]})
json.dump({"version": "5.2", "clock": {"now": t(now)}, "users": users,
           "products": [{"name": "Drivers", "components": ["Network"]}],
           "bugs": bugs}, sys.stdout)
EOF
start_bugzilla state.json
requests() { curl -sf "$bz_url/__admin/log" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["count"])'; }

# No [smtp] host: the outbound side delivers to data_dir/mail, a Maildir.
{
	bench_config_head
	cat <<EOF
[routing]
default_lists = bench-list@lists.test
[archive]
kind = mbox
path = $work/list.mbox
[inbound]
allow = Bench Lead <lead@bench.test>
dkim_key_file = $work/dkim/keys
EOF
} >bench.conf
# the command mails are DKIM-signed, so verification (the default policy)
# is part of what is measured, on the mails that carry a command
mkdir -p dkim
openssl genrsa -out dkim/bench.test.pem 2048 2>/dev/null || { echo "bench: openssl genrsa failed" >&2; exit 1; }
printf 's1._domainkey.bench.test v=DKIM1; k=rsa; p=%s\n' \
	"$(openssl rsa -in dkim/bench.test.pem -pubout -outform DER 2>/dev/null | base64 -w0)" >dkim/keys
chmod 600 bench.conf
export BUGBRIDGE_CONFIG="$work/bench.conf"

# The first sync mirrors the bugs and starts the archive at its end (an
# empty mbox); the mails are appended after it.
: >list.mbox
if ! "$BUGBRIDGE" sync --once >first.out 2>first.err; then
	echo "bench: the first sync failed:" >&2
	tail -5 first.err >&2
	exit 1
fi
# the baseline build: its own data folder, and no keys it may not know
base=${BENCH_BASELINE:-}
if [ -n "$base" ]; then
	sed -e "s#^data_dir = .*#data_dir = $work/data-base#" -e '/^dkim_key_file/d' bench.conf >base.conf
	chmod 600 base.conf
	if ! BUGBRIDGE_CONFIG="$work/base.conf" "$base" sync --once >base-first.out 2>base-first.err; then
		echo "bench: the baseline's first sync failed:" >&2
		tail -5 base-first.err >&2
		exit 1
	fi
fi
gen_start=$(now)
gen=$("$PY" "$top_srcdir/tests/bench/bench-ingest-gen.py" --corpus "$corpus" --count "$nmails" \
	--out list.mbox --domain bench.test --bugs "$nbugs" --match-share "$share" \
	--command-from "Bench Lead <lead@bench.test>" --dkim-key dkim/bench.test.pem) || exit 1
gen_time=$(echo "$(now) - $gen_start" | bc -l)
read -r _ _ _ mbox_bytes _ matched _ commands _ sources <<<"$gen"
echo "machine: $(nproc) cores, $(uname -r); $(sqlite3 --version 2>/dev/null | cut -d' ' -f1 | sed 's/^/SQLite /')"
echo "mbox: $nmails mails, $(echo "scale=1; $mbox_bytes / 1000000" | bc -l) MB, from $sources corpus mails" \
	"(fuzzer-made inputs left out); $matched answer one of $nbugs mirrored bugs ($ncomments comments each), $commands" \
	"with a #bugbridge command; built in $(printf '%.1f' "$gen_time") s"
cat list.mbox >/dev/null # in the page cache for every reader alike

declare -A t r
# measure NAME CMD...: wall time and peak RSS (KiB) of one run, appended to
# t[NAME] and r[NAME]; standard output in NAME.out, errors in NAME.err.
measure() {
	local name=$1
	shift
	run_timed "$name.out" "$name.err" "$@"
	t[$name]="${t[$name]:-} $run_secs"
	r[$name]="${r[$name]:-} $run_rss"
	if [ "$run_rc" -ne 0 ]; then
		echo "bench: $name failed (exit $run_rc):" >&2
		grep -v '^Command exited' "$name.err" | tail -5 >&2
	fi
}
# archive_line NAME: the "archive: ..." report of a sync run
archive_line() { sed -n 's/^bugbridge: archive: //p' "$1.err" | tail -1; }
# mails_read NAME: "N mails read" of that report
mails_read() { archive_line "$1" | sed 's/,.*//'; }

# --- 1. dry run and 4. Python, interleaved: one of each per round, so a
# busy spell of the machine falls on both sides alike ---------------------------
round_ratios=()
for _ in $(seq 1 "$runs"); do
	measure dry "$BUGBRIDGE" sync --dry-run
	[ -n "$base" ] && measure dry-base env BUGBRIDGE_CONFIG="$work/base.conf" "$base" sync --dry-run
	measure py-default "$PY" "$top_srcdir/tests/bench/bench-ingest-py.py" list.mbox default
	measure py-compat32 "$PY" "$top_srcdir/tests/bench/bench-ingest-py.py" list.mbox compat32
	# shellcheck disable=SC2206
	d=(${t[dry]}) p=(${t[py-default]})
	round_ratios+=("$(echo "${p[-1]} / ${d[-1]}" | bc -l)")
done
# --- 2. real sync, 3. nothing new ---------------------------------------------
admin reset_log '{}'
measure sync "$BUGBRIDGE" sync --once
sync_requests=$(requests)
admin reset_log '{}'
measure idle "$BUGBRIDGE" sync --once
idle_requests=$(requests)

declare -A every
# shellcheck disable=SC2086
for k in "${!t[@]}"; do
	every[$k]=${t[$k]}
	t[$k]=$(median ${t[$k]})
	r[$k]=$(median ${r[$k]})
done

echo
printf '%-46s %9s %10s %8s %9s\n' "$nmails mails (median of $runs run(s) where repeated)" \
	"seconds" "mails/s" "MB/s" "RSS MiB"
row() {
	printf '%-46s %9.2f %10s %8s %9s\n' "$1" "${t[$2]}" "$(per_s "$nmails" "${t[$2]}")" \
		"$(mb_s "$mbox_bytes" "${t[$2]}")" "$(mib "${r[$2]}")"
}
row "bugbridge sync --dry-run (parse, match, scan)" dry
row "bugbridge sync (recorded, replies posted)" sync
row "python3 email, policy.default" py-default
row "python3 email, compat32" py-compat32
echo
if [ "$runs" -gt 1 ]; then
	for k in dry ${base:+dry-base} py-default py-compat32; do
		# shellcheck disable=SC2086
		printf '%-26s every run: %s s\n' "$k" "$(printf '%.2f ' ${every[$k]})"
	done
	echo
fi
echo "bugbridge sync --dry-run: $(archive_line dry)"
echo "bugbridge sync:           $(archive_line sync)"
echo "                          $sync_requests Bugzilla requests (the outbound poll included)"
echo "python3 policy.default:   $(cat py-default.out)"
echo "python3 compat32:         $(cat py-compat32.out)"
echo
echo "ratios bugbridge / Python in mails/s (above 1: bugbridge is faster; goal: 30):"
echo "  dry run (parse, match, scan)  vs policy.default = $(ratio "${t[py-default]}" "${t[dry]}")x," \
	"vs compat32 = $(ratio "${t[py-compat32]}" "${t[dry]}")x"
if [ "$runs" -gt 1 ]; then
	echo "  dry run vs policy.default, round by round: $(printf '%.1fx ' "${round_ratios[@]}")" \
		"(median $(printf '%.1f' "$(median "${round_ratios[@]}")")x)"
fi
if [ -n "$base" ]; then
	echo "  dry run vs the baseline build ($base): this build takes" \
		"$(printf '%+.1f' "$(echo "(${t[dry]} / ${t[dry-base]} - 1) * 100" | bc -l)")% of its wall time" \
		"(${t[dry]} s against ${t[dry-base]} s, medians)"
	echo "  baseline dry run: $(archive_line dry-base)"
fi
echo "  whole sync (recorded, posted) vs policy.default = $(ratio "${t[py-default]}" "${t[sync]}")x," \
	"vs compat32 = $(ratio "${t[py-compat32]}" "${t[sync]}")x"
echo "  (wall times of whole processes; bugbridge's include its outbound poll of the fake"
echo "   Bugzilla and, in the real sync, one SQLite transaction per mail and a request"
echo "   or more per matched mail; Python's baseline posts and records nothing)"
echo
printf 'a poll with nothing new (mbox): %.3f s; %s; %s Bugzilla requests (the outbound poll)\n' \
	"${t[idle]}" "$(mails_read idle)" "$idle_requests"

# --- 5. public-inbox: nothing new costs one git fetch -----------------------
if [ "${BENCH_LISTLAB:-1}" = 0 ]; then
	echo "a poll with nothing new (public-inbox): left out (BENCH_LISTLAB=0)"
	exit 0
fi
# listlab.sh is written for the scenario tests: it needs WORK, CLEANUP_PIDS
# and skip_all.
# shellcheck disable=SC2034 # WORK is read by listlab.sh
WORK=$work CLEANUP_PIDS=""
# shellcheck disable=SC2317 # called by listlab.sh
skip_all() {
	echo "a poll with nothing new (public-inbox): left out, $*"
	exit 0
}
# shellcheck source=/dev/null
. "$top_srcdir/tests/lib/listlab.sh"
listlab_start >listlab.out 2>&1
listlab_up=1
# shellcheck disable=SC2317 # called by cleanup
listlab_stop() { for pid in $CLEANUP_PIDS; do stop "$pid"; done; }
send_to_list() {
	"$PY" - "$LISTLAB_SMTP_PORT" "$LISTLAB_LIST" "$1" <<'EOF2'
import smtplib, sys, email.utils
port, lst, mid = sys.argv[1:4]
msg = ("From: Tess Ter <tess@example.org>\r\nTo: %s\r\nSubject: bench %s\r\nDate: %s\r\n"
       "Message-ID: <%s>\r\n\r\nA list mail.\r\n" % (lst, mid, email.utils.formatdate(), mid))
with smtplib.SMTP("127.0.0.1", int(port)) as s:
    s.sendmail("tess@example.org", [lst], msg.encode())
EOF2
}
# Every git process bugbridge starts goes through this wrapper (it finds git
# on PATH), which notes its subcommand.
mkdir -p bin
cat >bin/git <<EOF2
#!/bin/sh
# notes the subcommand (after --git-dir=... and -c NAME=VALUE), runs git
sub=
skip=
for a in "\$@"; do
	if [ -n "\$skip" ]; then skip=; continue; fi
	case \$a in
	-c|-C) skip=1 ;;
	-*) ;;
	*) sub=\$a; break ;;
	esac
done
echo "\$sub" >>"$work/git.log"
exec "$(command -v git)" "\$@"
EOF2
chmod +x bin/git
sed -e '/^\[archive\]/,$d' -e "s#^data_dir = .*#data_dir = $work/data-pi#" bench.conf >bench-pi.conf
printf '[archive]\nurl = %s\n' "$LISTLAB_URL" >>bench-pi.conf
chmod 600 bench-pi.conf
for i in 1 2 3; do send_to_list "pi-$i@example.org" || { echo "bench: listlab refused a mail" >&2; exit 0; }; done
pi_sync() { env BUGBRIDGE_CONFIG="$work/bench-pi.conf" PATH="$work/bin:$PATH" "$@"; }
if ! pi_sync "$BUGBRIDGE" sync --once >pi-first.out 2>pi-first.err; then
	echo "a poll with nothing new (public-inbox): the first sync failed:"
	tail -3 pi-first.err | sed 's/^/  /'
	exit 0
fi
git_counts() { sort git.log | uniq -c | awk '{printf "%s%s x%d", sep, $2, $1; sep=", "}'; }
pi_sync "$BUGBRIDGE" sync --once >/dev/null 2>&1 # the outbound side settles
: >git.log
measure pi-idle env BUGBRIDGE_CONFIG="$work/bench-pi.conf" PATH="$work/bin:$PATH" "$BUGBRIDGE" sync --once
idle_git=$(git_counts)
send_to_list pi-4@example.org
: >git.log
measure pi-one env BUGBRIDGE_CONFIG="$work/bench-pi.conf" PATH="$work/bin:$PATH" "$BUGBRIDGE" sync --once
one_git=$(git_counts)
printf 'a poll with nothing new (public-inbox via listlab): %.3f s; git: %s; %s\n' \
	"${t[pi-idle]}" "$idle_git" "$(mails_read pi-idle)"
printf 'a poll with one new mail (public-inbox via listlab):  %.3f s; git: %s; %s\n' \
	"${t[pi-one]}" "$one_git" "$(mails_read pi-one)"
echo "  (whole \`bugbridge sync\` runs, the outbound poll of the fake Bugzilla included)"
exit 0
