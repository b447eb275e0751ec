#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bugbridge triage with a watched git tree: a symbol is mapped to the file
# that defines it (git grep at the tree's ref, a bare mirror's too) and a
# module to the folder its Makefile builds it in (Kbuild's obj-... +=
# name.o; its single file when it has no name-y line), so a report whose
# names share nothing with their folders still ranks the right section
# first, saying "git grep"; without the tree, or with --no-tree, the names
# are matched by name as before.  Names that are no plain identifiers
# never reach git; a tree whose grep fails is logged and the next is used.
. "$top_srcdir/tests/lib/common.sh"

command -v git >/dev/null 2>&1 || skip_all "git is not installed"
. "$top_srcdir/tests/lib/tiny_kernel.sh"
tiny_kernel

# a git that records what it is asked, in front of the real one
real_git=$(command -v git)
mkdir bin
cat >bin/git <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$WORK/git-args.log"
exec "$real_git" "\$@"
EOF
chmod +x bin/git
PATH=$WORK/bin:$PATH
export PATH

# -- without a tree: the names alone
write_config <<CONF
[routing]
maintainers_file = $WORK/MAINTAINERS
CONF
bb triage symbol.txt >plain-symbol.txt 2>&1
is "no tree: triage runs" "$?" 0
unlike "no tree: the symbol's folder is not found" "$(cat plain-symbol.txt)" '^  1\. FOO BAR DRIVER'
unlike "and git is not asked" "$(cat plain-symbol.txt)" 'git grep'
bb triage module.txt >plain-module.txt 2>&1
like "no tree: the module goes by its name (drivers/weird/)" "$(cat plain-module.txt)" \
	'^  1\. WEIRD DRIVERS'
bb triage driver.txt >plain-driver.txt 2>&1
unlike "no tree: the driver's folder is not found" "$(cat plain-driver.txt)" '^  1\. SINGLE DRIVERS'
[ ! -e git-args.log ]
is "no git ran without a tree" "$?" 0

# -- with the tree: a missing one first (logged, skipped), then the bare mirror
write_config <<CONF
[routing]
maintainers_file = $WORK/MAINTAINERS
[tree gone]
path = $WORK/nowhere.git
ref = master
[tree mainline]
path = $WORK/mirror.git
ref = master
CONF
check_exit "tree: triage of the symbol report" 0 bb triage symbol.txt
out=$(cat check.out)
like "the defining file's section is first" "$out" '^  1\. FOO BAR DRIVER'
like "saying how it was found" "$out" \
	'why: line 4: pc zorp_frobnicate: defined in drivers/foo/bar/core\.c \(git grep\): matched F: drivers/foo/bar/'
unlike "not the prototype, the tool or arm64" "$out" 'OTHER DRIVERS|ZORP TOOL|ARM64 PORT'
like "the tree that is not there is logged" "$out" 'locate\.tree_failed.*tree=gone'

check_exit "tree: the same oops on arm64" 0 bb triage symbol-arm64.txt
like "takes arm64's own copy" "$(cat check.out)" \
	'why: .*defined in arch/arm64/kernel/zorp\.c \(git grep\)'

: >git-args.log
bb triage --json module.txt >module.json 2>module.err
is "tree: triage of the module report" "$?" 0
is "one grep per report for the symbols, one for the modules" \
	"$(grep -c ' grep ' git-args.log)" 2
check "the Makefile's folder ranks first" python3 - "$WORK/module.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sections"]
assert s[0]["section"] == "GIZMO WM DRIVER", s
assert "module weird_mod built in drivers/gizmo/wm/ (git grep)" in s[0]["reason"], s[0]
PY

check_exit "tree: triage of the driver's lines" 0 bb triage driver.txt
like "a single-file module is its dir/name.c" "$(cat check.out)" \
	'why: .*module lone-drv built in drivers/single/lone-drv\.c \(git grep\): matched F: drivers/single/'
like "and its section is first" "$(cat check.out)" '^  1\. SINGLE DRIVERS'

bb triage --no-tree symbol.txt >notree-symbol.txt 2>&1
bb triage --no-tree module.txt >notree-module.txt 2>&1
is "--no-tree gives the old answer (symbol)" "$(cat notree-symbol.txt)" "$(cat plain-symbol.txt)"
is "--no-tree gives the old answer (module)" "$(cat notree-module.txt)" "$(cat plain-module.txt)"
check_exit "--no-tree is in --help" 0 bb triage --help
like "documented" "$(cat check.out)" '--no-tree'

: >git-args.log
check_exit "tree: hostile names do not break triage" 0 bb triage hostile.txt
out=$(cat check.out)
like "the compiler's clone is looked up as its function" "$out" \
	'frame zorp_frobnicate\.isra\.0: defined in drivers/foo/bar/core\.c \(git grep\)'
args=$(cat git-args.log)
unlike "a name with '\$' is not passed to git" "$args" 'a\$b'
unlike "nor a 200-byte one" "$args" "$long"
unlike "nor a dotted one" "$args" 'x\.y|x\|y|\(x\)'
like "the grep asked only for the plain name" "$args" '\(zorp_frobnicate\)\\\('

# -- the sync's first mail: the same lookup routes the bug
python3 - "$WORK" <<'PY'
import json, sys
log = open(sys.argv[1] + "/symbol.txt").read()
state = {
  "clock": {"now": "2026-12-03T09:00:00Z"},
  "users": [{"login": "bridge@example.org", "real_name": "Bridge", "api_key": "bridgekey0123",
             "groups": ["editbugs"]},
            {"login": "ines@example.net", "real_name": "Ines Reporter"}],
  "products": [{"name": "Drivers", "components": ["Other"]}],
  "bugs": [
    {"id": 801, "summary": "oops in a worker", "product": "Drivers", "component": "Other",
     "status": "NEW", "creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
     "comments": [{"creator": "ines@example.net", "creation_time": "2026-12-03T08:00:00Z",
                   "text": "It crashed:\n" + log}]}
  ]
}
json.dump(state, open(sys.argv[1] + "/state.json", "w"))
PY
fakebz_start state.json
write_config <<CONF
$(fakebz_bridge_config)
[routing]
maintainers_file = $WORK/MAINTAINERS
default_lists = triage@lists.test
by_content = route
[tree mainline]
path = $WORK/mirror.git
ref = master
CONF
check "a sync with the tree" bb sync
r=$(find "$WORK/data/mail" -type f | xargs grep -l -i -F "Message-ID: <bug-801@bugbridge.test>" | head -1)
like "the report goes to the defining file's list" "$(grep -i '^To:' "$r")" "foo@lists\.test"
like "its triage block ranks that section first" "$(cat "$r")" "Sections: +1\. FOO BAR DRIVER"
like "saying it was found with git grep" "$(cat "$r")" "defined in drivers/foo/bar/core\.c \(git grep\)"
is "the section route chose is recorded once for the bug" \
	"$(reg "select section from bug_content_route where bug_id = 801")" "FOO BAR DRIVER"

# a later change: the same recipients, and the reader and the tree are not asked again
: >git-args.log
curl -sf -X POST --data-binary '{"bug_id": 801, "creator": "ines@example.net", "text": "Still there in 6.9."}' \
	"$bz/__admin/comment" >/dev/null
check "a sync after a comment" bb sync
r=$(find "$WORK/data/mail" -type f | xargs grep -l -F "Still there in 6.9." | head -1)
like "the comment goes to the same list" "$(grep -i '^To:' "$r")" "foo@lists\.test"
is "without a grep of the tree" "$(grep -c ' grep ' git-args.log)" "0"

done_testing
