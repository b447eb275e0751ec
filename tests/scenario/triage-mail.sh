#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Routing from the report itself ([routing] by_content): a bug whose log
# names an iwlwifi symbol and firmware is mailed with the triage block
# (kernel from the logs and from the field, taint, machine, firmware,
# first oops, the sections) and, with by_content = route and no [route]
# rule, to the wireless list too; the block is posted once as a comment on
# the bug, which is never mailed back, not even after a crash.  A private
# comment never feeds the block.  Mail goes to the data folder's Maildir.
. "$top_srcdir/tests/lib/common.sh"

cat >MAINTAINERS <<'EOF2'
List of maintainers
-------------------

INTEL WIRELESS WIFI LINK (iwlwifi)
M:	Wifi Keeper <wifi@example.org>
L:	linux-wireless@vger.kernel.org
S:	Supported
F:	drivers/net/wireless/intel/iwlwifi/

INTEL DRM I915 DRIVER
M:	Gfx Keeper <gfx@example.org>
L:	intel-gfx@lists.freedesktop.org
S:	Supported
F:	drivers/gpu/drm/i915/

NETWORKING DRIVERS
L:	netdev@vger.kernel.org
S:	Odd Fixes
F:	drivers/net/

THE REST
L:	linux-kernel@vger.kernel.org
S:	Buried alive in reporters
F:	*
F:	*/
EOF2

python3 - "$WORK" <<'EOF2'
import json, sys
log = """Wi-Fi dies after resume on 6.8, worked in 6.7.

Linux version 6.8.0-arch1-1 (linux@archlinux) (gcc (GCC) 13.2.1) #1 SMP PREEMPT_DYNAMIC
[    3.101] iwlwifi 0000:00:14.3: Direct firmware load for iwlwifi-so-a0-gf-a0-89.ucode failed with error -2
[    3.140] iwlwifi 0000:00:14.3: loaded firmware version 86.fb5c9aeb.0 so-a0-gf-a0-86.ucode op_mode iwlmvm
[  812.551] BUG: kernel NULL pointer dereference, address: 0000000000000008
[  812.551] #PF: supervisor read access in kernel mode
[  812.551] Oops: 0000 [#1] PREEMPT SMP NOPTI
[  812.551] CPU: 2 PID: 1234 Comm: kworker/2:1 Tainted: P           O       6.8.0-arch1-1 #1
[  812.551] Hardware name: LENOVO 21CB/21CB, BIOS R23ET65W 11/15/2023
[  812.551] RIP: 0010:iwl_mvm_rx_tx_cmd+0x1a/0x3c0 [iwlmvm]
[  812.551] Call Trace:
[  812.551]  <TASK>
[  812.551]  iwl_mvm_rx_common+0x9c/0x2a0 [iwlmvm]
[  812.551]  iwl_pcie_rx_handle+0x3b0/0x9a0 [iwlwifi]
[  812.551]  process_one_work+0x171/0x340
[  812.551]  </TASK>
"""
private = """From my other machine, the real log:
WARNING: CPU: 1 PID: 99 at drivers/gpu/drm/i915/gt/intel_engine_cs.c:1234 intel_engine_reset+0x10/0x20 [i915]
Hardware name: SECRET-BOX 9000
"""
state = {
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"},
            {"login": "dev@example.org", "real_name": "Dev", "insider": True,
             "api_key": "devkey0123"}],
  "products": [{"name": "Drivers", "components": ["Other"]}],
  "bugs": [
    {"id": 701, "summary": "wifi dies after resume", "product": "Drivers", "component": "Other",
     "status": "NEW", "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
     "cf_kernel_version": "6.7.0", "cf_regression": "Yes",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": log},
                  {"creator": "dev@example.org", "creation_time": "2026-12-03T08:10:00Z",
                   "text": private, "is_private": True}],
     "attachments": [{"file_name": "dmesg-boot.txt", "summary": "boot log",
                      "content_type": "text/plain", "creator": "ines@example.net",
                      "creation_time": "2026-12-03T08:00:00Z",
                      "text": "[    2.0] DMI: LENOVO 21CB/21CB, BIOS R23ET65W 11/15/2023\\n[    2.5] Bluetooth: hci0: Direct firmware load for intel/ibt-0040-0041.sfi failed with error -2\\n"},
                     {"file_name": "secret.txt", "summary": "vendor log", "is_private": True,
                      "content_type": "text/plain", "creator": "dev@example.org",
                      "creation_time": "2026-12-03T08:00:00Z",
                      "text": "[    9.0] nouveau 0000:01:00.0: Direct firmware load for nvidia/SECRETFW.bin failed with error -2\\n"}]}
  ]
}
json.dump(state, open(sys.argv[1] + "/state.json", "w"))
EOF2
fakebz_start state.json
admin() { curl -sf -X POST --data-binary "$2" "$bz/__admin/$1" >/dev/null; }
mails() { find "$WORK/data/mail" -type f 2>/dev/null | sort; }
count() { mails | xargs -r grep -l -i -E -- "$1" 2>/dev/null | wc -l; }
report() { mails | xargs -r grep -l -i -F -- "Message-ID: <bug-701@bugbridge.test>" 2>/dev/null | head -1; }
# triage_comment BUG: the text of the bug's triage comment
triage_comment() {
	curl -sf "$bz/rest/bug/$1/comment?api_key=bridgekey0123" | python3 -c '
import json, sys
print("".join(c["text"] for c in json.load(sys.stdin)["bugs"][sys.argv[1]]["comments"] if "[bugbridge triage of bug" in c["text"]))' "$1"
}
comments() {
	curl -sf "$bz/rest/bug/$1/comment?api_key=bridgekey0123" | python3 -c '
import json, sys
print(sum(sys.argv[2] in c["text"] for c in json.load(sys.stdin)["bugs"][sys.argv[1]]["comments"]))' "$1" "$2"
}

write_config <<EOF2
$(fakebz_bridge_config)
[routing]
maintainers_file = $WORK/MAINTAINERS
default_lists = triage@lists.test
by_content = route
EOF2

check "a sync killed once the triage comment was posted, before that was recorded" \
	sh -c 'BUGBRIDGE_CRASH_AT=tracker.posted "$BUGBRIDGE" sync >/dev/null 2>&1; test $? -eq 137'
check "the next sync" bb sync
r=$(report)
is "the report is mailed once" "$(count 'Message-ID: <bug-701@bugbridge.test>')" "1"
like "to the default list and the wireless list (no rule matched)" \
	"$(grep -i '^To:' "$r")" "triage@lists.test, linux-wireless@vger.kernel.org"
like "with the triage block" "$(cat "$r")" "Triage \\(read from the report by bugbridge; it may be wrong\\):"
like "the kernel from the logs, a distribution build" "$(cat "$r")" "Kernel: +6.8.0-arch1-1 \\(Arch Linux build, based on v6.8\\), from the logs"
like "and from the bug's field, which differs" "$(cat "$r")" "6.7.0, from the bug's field"
like "the taint as a plain warning" "$(cat "$r")" "tainted: P \\(proprietary module was loaded\\)"
like "the machine" "$(cat "$r")" "Machine: +LENOVO 21CB/21CB"
like "the firmware that failed" "$(cat "$r")" "iwlwifi-so-a0-gf-a0-89.ucode \\(failed to load, error -2\\)"
like "also from the public text attachment" "$(cat "$r")" "intel/ibt-0040-0041.sfi \\(failed to load"
like "the first oops" "$(cat "$r")" "First oops: +BUG: kernel NULL pointer dereference"
like "the section first, with why" "$(cat "$r")" "Sections: +1. INTEL WIRELESS WIFI LINK \\(iwlwifi\\)"
unlike "nothing from the private comment or attachment" "$(cat "$r")" "i915|SECRET|intel_engine"
is "the bug gets the block once as a comment" "$(comments 701 "[bugbridge triage of bug 701]")" "1"
like "the comment is the block" "$(triage_comment 701)" "Sections: +1. INTEL WIRELESS WIFI LINK"
unlike "without the private comment's or attachment's text" "$(triage_comment 701)" "i915|SECRET|intel_engine"

# the bug is a regression: regressions show has its triage block too
like "regressions show carries the triage block" "$(bb regressions show 1)" "Sections: +1. INTEL WIRELESS WIFI LINK"
is "and its JSON" "$(bb regressions show --json 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["regression"]["triage"].splitlines()[0])')" \
	"Triage (read from the report by bugbridge; it may be wrong):"

admin clock '{"advance": 600}'
check "another sync" bb sync
is "the triage comment is not mailed back" "$(count 'triage of bug 701')" "0"
is "nor posted twice" "$(comments 701 "[bugbridge triage of bug 701]")" "1"

# a comment by someone else that ends with the marker is mailed like any other
admin comment '{"bug_id": 701, "creator": "ines@example.net", "text": "Me too.\n[bugbridge triage of bug 701]"}'
admin clock '{"advance": 600}'
check "a sync after a forged marker" bb sync
is "a forged marker on a comment that is not the bridge's note still goes out" "$(count 'Me too')" "1"

# the admin's local view: bugbridge triage --bug N reads what the key sees,
# private comments and attachments included, and says so
sed 's/^api_key = bridgekey0123$/api_key = devkey0123/' "$BUGBRIDGE_CONFIG" >admin.conf
chmod 600 admin.conf
check "triage --bug with an insider's key" sh -c \
	'"$BUGBRIDGE" --config admin.conf triage --bug 701 >triage.out 2>triage.err'
like "reads the private comment too" "$(cat triage.out)" "INTEL DRM I915 DRIVER"
like "and the private attachment" "$(cat triage.out)" "SECRETFW"
like "and warns that the output is private" "$(cat triage.err)" "private comment.*for you only"
check "triage --bug with the bridge's key" sh -c '"$BUGBRIDGE" triage --bug 701 >triage2.out 2>&1'
unlike "sees no private text" "$(cat triage2.out)" "I915|SECRET"
check_exit "a bug that does not exist" 66 bb triage --bug 999

done_testing
