# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# A real browser for the scenario tests that look at pages as people see
# them (frontdoor.sh, frontdoor-abuse.sh, regressions-web.sh): Debian's
# headless Chromium.  Sourced after tests/lib/common.sh, which gives WORK.
#
#   browser_find           sets CHROMIUM to the first browser installed
#                          (chromium, chromium-browser, google-chrome);
#                          fails, CHROMIUM empty, when there is none
#   browser_dump URL       the DOM after the page loaded, as Chromium built
#                          it, on standard output (its messages go to
#                          $WORK/chromium.log)
#   dom_check FILE TEXT [TAG...]
#                          "fine" when the DOM in FILE holds TEXT and nothing
#                          that came from input became an element (script,
#                          img, iframe, object, and each TAG given), a
#                          handler or a javascript: link, or ran (a
#                          data-pwned attribute, the title PWNED); else what
#                          is wrong.  A page whose script ran alert() holds
#                          --dump-dom until the timeout and leaves an empty
#                          DOM, which is wrong too.

CHROMIUM=""

browser_find() {
	CHROMIUM=""
	for c in chromium chromium-browser google-chrome; do
		if command -v "$c" >/dev/null 2>&1; then
			CHROMIUM=$c
			return 0
		fi
	done
	return 1
}

browser_dump() {
	timeout 60 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--no-first-run --no-default-browser-check --disable-extensions \
		--user-data-dir="$WORK/chromium" --dump-dom "$1" 2>>"$WORK/chromium.log"
}

dom_check() {
	python3 "$top_srcdir/tests/lib/dom_check.py" "$@"
}
