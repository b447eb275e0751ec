#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""dom_check.py FILE TEXT [TAG...]: prints "fine" when the DOM Chromium
dumped to FILE holds TEXT and nothing that came from input became markup
or ran; else the problems found (see tests/lib/browser.sh)."""
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.text = [], [], []
        self.title, self.in_title = "", False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]
        self.in_title = tag == "title"

    def handle_endtag(self, tag):
        self.in_title = False

    def handle_data(self, data):
        self.text.append(data)
        if self.in_title:
            self.title += data


def main():
    path, want, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(path, encoding="utf-8") as f:
        dom = f.read()
    page = Page()
    page.feed(dom)
    problems = []
    if not dom.strip():
        problems.append("empty DOM")
    for tag in ["script", "img", "iframe", "object"] + extra:
        if tag in page.tags:
            problems.append("a %s element" % tag)
    for tag, k, v in page.attrs:
        if k.startswith("on"):
            problems.append("handler %s on %s" % (k, tag))
        if k in ("href", "src") and v.strip().lower().startswith("javascript:"):
            problems.append("javascript: " + k)
        if k == "data-pwned":
            problems.append("a handler ran")
    if page.title.strip() == "PWNED":
        problems.append("a script ran")
    if want not in "".join(page.text):
        problems.append("text missing")
    print(" ".join(problems) or "fine")


if __name__ == "__main__":
    main()
