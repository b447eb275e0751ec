#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Mirrors a real public-inbox v2 inbox for make bench-epoch
# (BENCH_EPOCH_INBOX): by default lore's platform-driver-x86 list
# (40,596 mails in one epoch), of which GitHub keeps a copy.  Writes
# DIR/git/0.git, ... (DIR: $1, default /tmp/bugbridge-bench-inbox), or brings
# a mirror made before up to date, then prints how to run the bench.
#
#   BENCH_EPOCH_URL  the epochs' URL without the epoch number and ".git"
#                    (default https://github.com/linux-mailinglist-archives/
#                    platform-driver-x86.vger.kernel.org.); epochs 0, 1, ...
#                    are fetched until one is not there
# The mirror is the inbox's data: keep it out of the source tree.
set -u
dir=${1:-${TMPDIR:-/tmp}/bugbridge-bench-inbox}
url=${BENCH_EPOCH_URL:-https://github.com/linux-mailinglist-archives/platform-driver-x86.vger.kernel.org.}
mkdir -p "$dir/git" || exit 1
e=0
while :; do
	repo=$dir/git/$e.git
	if [ -d "$repo" ]; then
		echo "updating epoch $e in $repo"
		git --git-dir="$repo" fetch -q --prune origin '+refs/*:refs/*' || exit 1
	elif git ls-remote --exit-code "$url$e" HEAD >/dev/null 2>&1; then
		echo "mirroring epoch $e from $url$e into $repo"
		git clone -q --mirror "$url$e" "$repo" || { rm -rf "$repo"; exit 1; }
	else
		break
	fi
	e=$((e + 1))
done
if [ "$e" = 0 ]; then
	echo "bench-epoch-fetch: no epoch at ${url}0" >&2
	exit 1
fi
echo "$e epoch(s), $(du -sh "$dir" | cut -f1); run: make bench-epoch BENCH_EPOCH_INBOX=$dir"
