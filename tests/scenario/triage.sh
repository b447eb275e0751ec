#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bugbridge triage: what a report says and which MAINTAINERS sections it
# points at, from a file or standard input, as text or JSON; MAINTAINERS
# from --maintainers or [routing] maintainers_file; nothing without it but
# the findings.
. "$top_srcdir/tests/lib/common.sh"

reports=$top_srcdir/tests/triage/reports
check_exit "triage --help exits 0" 0 bb triage --help
like "and shows its usage" "$(cat check.out)" 'usage: bugbridge triage'
check_exit "triage without a file is a usage error" 64 bb triage
check_exit "an unreadable report is EX_NOINPUT" 66 bb triage --maintainers x "$WORK/nowhere.txt"
check_exit "--max 0 is a usage error" 64 bb triage --max 0 -

cat >MAINTAINERS <<'MNT'
THE REST
M:	Linus Torvalds <torvalds@linux-foundation.org>
L:	linux-kernel@vger.kernel.org
F:	*
F:	*/

INTEL WIRELESS WIFI LINK (iwlwifi)
M:	Miri Korenblit <miriam.rachel.korenblit@intel.com>
L:	linux-wireless@vger.kernel.org
F:	drivers/net/wireless/intel/iwlwifi/

NETWORKING DRIVERS (WIRELESS)
L:	linux-wireless@vger.kernel.org
F:	drivers/net/wireless/
MNT
write_config <<CONF
[routing]
maintainers_file = $WORK/MAINTAINERS
CONF

check_exit "triage of an iwlmvm oops" 0 bb triage "$reports/003-iwlmvm-null-deref-fedora.txt"
out=$(cat check.out)
like "names the distribution kernel" "$out" '^kernel: 6\.6\.9-200\.fc39\.x86_64 \(distribution, Fedora, based on v6\.6\.9; line 6\)'
like "the oops's first line" "$out" '^bug \(line 1\): BUG: kernel NULL pointer dereference'
like "its pc and module" "$out" '^  pc: iwl_mvm_rx_tx_cmd \[iwlmvm\]'
like "the machine" "$out" '^machine: Framework Laptop 13'
like "iwlwifi first, from the configuration's MAINTAINERS" "$out" '^  1\. INTEL WIRELESS WIFI LINK \(iwlwifi\)'
like "with its list" "$out" 'list: linux-wireless@vger\.kernel\.org'
like "and why" "$out" 'why: line [0-9]+: .*matched F: drivers/net/wireless/intel/iwlwifi/'

bb triage --json --max 2 --maintainers "$WORK/MAINTAINERS" - \
	<"$reports/001-iwlwifi-fw-missing.txt" >out.json 2>err.txt
check "JSON from standard input" python3 - out.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1, d["version"]
r = d["report"]
assert r["kernel"]["version"] == "6.7.4-arch1-1" and r["kernel"]["kind"] == "distribution"
fw = r["firmware"][0]
assert fw["file"] == "iwlwifi-so-a0-gf-a0-89.ucode" and fw["failed"] and fw["error"] == -2, fw
assert {"bus": "pci", "id": "8086:51f0"} in r["devices"], r["devices"]
assert len(d["sections"]) <= 2
assert d["sections"][0]["section"] == "INTEL WIRELESS WIFI LINK (iwlwifi)", d["sections"]
assert d["sections"][0]["lists"] == ["linux-wireless@vger.kernel.org"]
PY

BUGBRIDGE_CONFIG=$WORK/none.conf bb triage "$reports/054-f2fs-arm64-bug.txt" >out.txt 2>err.txt
is "without MAINTAINERS the findings still print" "$?" 0
like "with the taint decoded" "$(cat out.txt)" '^  S: kernel running on an out of specification system'
unlike "and no sections" "$(cat out.txt)" '^sections:'
like "saying why" "$(cat err.txt)" 'no MAINTAINERS file'

shared=${BUGBRIDGE_SHARED:-$top_srcdir/../shared}
if [ -f "$shared/corpus/maintainers/MAINTAINERS" ]; then
	bb triage --json --maintainers "$shared/corpus/maintainers/MAINTAINERS" \
		"$reports/048-hid-logitech-dj-oops.txt" >shared.json
	check "the kernel's MAINTAINERS: a Logitech receiver oops goes to HID LOGITECH DRIVERS" \
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=[x["section"] for x in d["sections"]]; assert s[0] == "HID LOGITECH DRIVERS", s' shared.json
else
	ok "# SKIP no shared MAINTAINERS under $shared"
fi
done_testing
