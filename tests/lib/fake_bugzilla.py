#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A fake Bugzilla 5.x for bugbridge's tests: the REST API, attachment.cgi and
the show_bug.cgi XML export, answering with the shapes, field names, error
codes and HTTP statuses that a real Bugzilla 5.2 gave when it was recorded
(shared/fixtures/bugzilla-5/, notes in shared/notes/bugzilla-5.md), plus a
test-control API under /__admin/ to change its data, its clock and to make
it fail on purpose.  Python 3 standard library only.

Usage
-----
  fake_bugzilla.py --state FILE.json --port-file PATH [--pid-file PATH]
                   [--log FILE.jsonl] [--host 127.0.0.1] [--port 0]
                   [--version 5.2|5.1|5.1.2...] [--reset-every N] [--verbose]

It binds HOST:PORT (port 0: any free port), then writes the bound port to
--port-file (atomically: a temporary file renamed into place), so a test
waits for that file.  SIGTERM or SIGINT stop it cleanly (exit 0) and remove
the port and pid files.  HTTP/1.1 with keep-alive; every response has a
Content-Length.

Versions: "5.2" (the default; the release the fixtures come from) ignores
the X-BUGZILLA-API-KEY header, as 5.2 does (the request is anonymous); a
"5.1..." version (bugzilla.kernel.org runs 5.1.x) accepts it as well.
Both accept the api_key and Bugzilla_api_key parameters (query string or
JSON body), a token= from GET /rest/login, and Bugzilla_login plus
Bugzilla_password.  A key that matches no user is error 306 (HTTP 400),
never a silent anonymous request.

State file (JSON; every key optional)
-------------------------------------
  {
    "version": "5.2",                 # overridden by --version
    "urlbase": "http://bugzilla.example/",  # default: this server's own URL
    "maintainer": "admin@example.com",
    "clock": {"now": "2026-12-03T09:00:00Z"}       # frozen until advanced
           | {"now": "...", "running": true}        # starts there, then runs
           | {"offset": -3600},                     # real time + offset
    "params": {"insidergroup": "insiders",          # Bugzilla parameters
               "timetrackinggroup": "editbugs",
               "defaultopsys": "", "defaultplatform": "",
               "usetargetmilestone": "0",  # "1": a move keeps the
                                           # milestone, which the new
                                           # product must have
               "strict_isolation": false},          # a CC must be able to edit the
                                                    # bug's product (canedit_groups)
    "quirks": {"reset_every": 0,                    # see Quirks below
               "reset_style": "next_request",
               "keepalive_timeout": 5,
               "max_keepalive_requests": 100,
               "xml_missing_error": "InvalidBugId"},
    "workflow": "5.2",                # or "kernel.org": the old workflow (below)
    "transitions": {"CONFIRMED": ["NEEDINFO"]},   # more than the workflow's (an admin's)
    "keywords": ["needinfo"],         # the keywords defined (default: none, as stock 5.2;
                                      # then any keyword goes unchecked)
    "flag_types": [{"name": "needinfo", "is_requesteeble": true}],  # bug flag types of
                                      # every component (default: none, as stock 5.2)
    "statuses": {"open": ["UNCONFIRMED", "CONFIRMED", "IN_PROGRESS"],
                 "closed": ["RESOLVED", "VERIFIED"]},
    "resolutions": ["FIXED", "INVALID", "WONTFIX", "DUPLICATE", "WORKSFORME"],
    "groups": [{"name": "security", "description": "..."}],
    "users": [{"login": "admin@example.com",       # required
               "id": 1, "real_name": "Admin", "email": "...(= login)",
               "api_key": "secret", "password": "...",
               "insider": true,                      # or member of insidergroup
               "groups": ["admin", "editbugs"],      # "admin": member of every group
               "can_login": true}],
    "products": [{"name": "Drivers", "id": 2, "description": "...",
                  "classification": "Unclassified",
                  "versions": ["unspecified"], "milestones": ["---"],
                  "canedit_groups": ["drivers-devs"],  # CANEDIT group controls: only
                                                    # members of each edit its bugs
                  "components": ["Network",          # a name, or an object:
                                 {"name": "USB", "description": "...",
                                  "default_assigned_to": "bob@example.com",
                                  "default_qa_contact": ""}]}],
    "fields": {"cf_regression": {"description": "Regression",
                                 "values": ["---", "No", "Yes"],
                                 "default": "---"}},
    "bugs": [{"id": 1,                               # default: next free id
              "summary": "...", "product": "Drivers", "component": "Network",
              "status": "CONFIRMED", "resolution": "",
              "severity": "normal", "priority": "---", "version": "unspecified",
              "op_sys": "Linux", "platform": "All",
              "creator": "alice@example.com", "assigned_to": "bob@example.com",
              "qa_contact": "", "cc": [], "keywords": [], "groups": [],
              "alias": [], "blocks": [], "depends_on": [], "see_also": [],
              "flags": [], "dupe_of": null, "url": "", "whiteboard": "",
              "target_milestone": "---", "deadline": null,
              "is_confirmed": true, "is_creator_accessible": true,
              "is_cc_accessible": true,
              "creation_time": "2026-12-03T08:01:55Z",
              "last_change_time": "2026-12-03T08:02:29Z",
              "cf_regression": "Yes", "cf_subsystem": "...",  # any cf_* field
              "description": "...",       # becomes comment 0 if no comments
              "comments": [...],          # as the top-level "comments" below
              "attachments": [...],       # as the top-level "attachments"
              "history": [{"when": "...", "who": "login",
                           "changes": [{"field_name": "status",
                                        "removed": "NEW", "added": "CONFIRMED"}]}]}],
    "comments": [{"bug_id": 1,                       # required at top level
                  "id": 5, "count": 4,               # default: next id / count
                  "creator": "alice@example.com",
                  "creation_time": "..." (or "time"), "text": "...",
                  "is_private": false, "attachment_id": null, "tags": []}],
    "attachments": [{"bug_id": 1, "id": 3,
                     "file_name": "dmesg.txt", "summary": "dmesg",
                     "content_type": "text/plain",   # default octet-stream,
                                                     # text/plain for a patch
                     "data": "<base64>" | "text": "raw text" | "data_file": "x.bin",
                     "creator": "...", "creation_time": "...",
                     "last_change_time": "...",
                     "is_private": false, "is_obsolete": false, "is_patch": false,
                     "flags": []}]
  }

Defaults: a bug's creator is its first comment's author or the first user;
assigned_to and qa_contact are the component's defaults (assigned_to
falls back to the creator); creation_time defaults to the first comment's
time, else last_change_time, else the server clock; last_change_time to
the latest of creation, comments and attachments; a comment or attachment
without a time is as old as the bug (the first comment) or as its last
change (the others).  Every bug has a comment 0 (its description; empty
if none is given).  Comment and attachment ids are global, as in Bugzilla.
Users named anywhere in the state but not listed are created (real_name
"").  Products, components,
statuses and resolutions that seeded bugs use are made legal.  A cf_*
field that is not declared under "fields" is free text (default "").
"workflow": "kernel.org" is a Bugzilla that kept the old workflow, as
bugzilla.kernel.org: statuses UNCONFIRMED, NEW, ASSIGNED, REOPENED /
RESOLVED, VERIFIED, CLOSED (unless "statuses" says otherwise), Bugzilla
4's default transitions, priorities P1..P5, and new bugs start NEW.
Times are UTC, "YYYY-MM-DDTHH:MM:SSZ", one-second resolution.  data_file
paths are relative to the state file.

Privacy, as Bugzilla: private comments and attachments are absent unless
the user is an insider; a bug in groups is visible only to members of all
its groups, its reporter (is_creator_accessible), its cc list
(is_cc_accessible), its assignee and QA contact; otherwise a direct fetch
is error 102 and a search leaves it out.  attachment.cgi and show_bug.cgi
serve every request as anonymous (Bugzilla 5 takes API keys only on its
web services), and an anonymous XML export shows logins without @domain.

REST endpoints (under /rest/ and /rest.cgi/)
--------------------------------------------
  GET  version, time, timezone, extensions, whoami, login, logout, valid_login
  GET  user?names=..&ids=..   user/<name or id>
  GET  product?names=..&ids=..   product/<name or id>   product_accessible
       product_selectable   product_enterable
  GET  field/bug[?names=..]   field/bug/<name>   field/bug/<name>/values
       (the fields of a stock 5.2, the state's cf_* fields, the default
       workflow in bug_status's can_change_to)
  GET  bug  (search: id=1,2 product component status/bug_status resolution
       severity priority version op_sys platform creator assigned_to
       qa_contact alias keywords summary whiteboard url cf_*
       last_change_time/creation_time (at or after), quicksearch,
       f1/o1/v1 boolean charts (OP/jN/CP groups, flagtypes.name = a flag's
       name and status, "bugbot+"), limit, offset, order=changeddate,bug_id,
       include_fields/exclude_fields with _default/_all/_custom/_extra)
  POST bug                               create: 200 {"id": N}
  GET  bug/<id or alias>[?ids=..]        {"bugs": [...], "faults": []}
  PUT  bug/<id>                          {"bugs": [{"id", "alias", "changes",
                                                    "last_change_time"}]}
                                         (comment_is_private: {"<comment id>":
                                         bool}, insiders only: the history gets
                                         longdescs.isprivate with comment_id)
  GET  bug/<id>/comment[?ids=..&comment_ids=..&new_since=T]
                                         {"bugs": {"<id>": {"comments": [...]}},
                                          "comments": {}}
  POST bug/<id>/comment                  201 {"id": N}
  GET  bug/comment/<comment id>          {"comments": {"<id>": {...}}, "bugs": {}}
  GET  bug/<id>/attachment[?ids=..&attachment_ids=..&exclude_fields=data]
                                         {"bugs": {"<id>": [...]}, "attachments": {}}
  GET  bug/attachment/<id>[?attachment_ids=..]
                                         {"bugs": {}, "attachments": {"<id>": {...}}}
  POST bug/<id>/attachment               201 {"ids": [N]}
  PUT  bug/attachment/<id>               {"attachments": [{"id", "changes",
                                                          "last_change_time"}]}
  GET  bug/<id>/history[?new_since=T]    {"bugs": [{"id", "alias", "history"}]}
Errors: {"error": true, "code": N, "message": "...", "documentation": "..."}
with HTTP 404 (codes 51, 101, 32614), 401 (102, 106, 109, 110, 113, 115,
120, 300-304, 410, 504, 505) or 400 (every other code); a 400 also closes
the connection, as Apache does.  GET answers carry an ETag (unquoted, as
Bugzilla's); If-None-Match with it gives 304 and an empty body.

Other pages
-----------
  GET /attachment.cgi?id=N       the raw bytes, typed and named like Bugzilla
                                 (RFC 2047 Q-encoded name); an HTML error page
                                 with status 200 for a missing or private one
  GET /show_bug.cgi?ctype=xml&id=N[&id=M|,M][&excludefield=attachmentdata]
                                 [&field=NAME...]
                                 the XML export; <bug error="InvalidBugId"> for
                                 an id that does not exist (what 5.2 answers,
                                 fixture 096), "NotPermitted" for a hidden bug

Admin API (test control; never logged, never failed on purpose)
---------------------------------------------------------------
  POST /__admin/state        body: a whole state (as the file), clock included
                             (real time if it has none)  -> {"bugs": n}
  GET  /__admin/state        the current state, in the file's format
  POST /__admin/bug          body: a bug (as in the state, with comments and
                             attachments); replaces the bug with that id, or
                             with "merge": true changes only the given fields
                             and appends the given comments/attachments.
                             last_change_time becomes the server clock
                             unless given.            -> {"id", "last_change_time"}
  POST /__admin/comment      body: {"bug_id", "text", "creator", "is_private",
                             "creation_time", "attachment_id"}; the bug's
                             last_change_time becomes the comment's time
                                   -> {"id", "count", "last_change_time"}
  POST /__admin/attachment   body: an attachment (as in the state) plus
                             "comment": text; adds the "Created attachment N"
                             comment as Bugzilla does ("with_comment": false
                             to skip it); bumps the bug like a comment
                                   -> {"id", "comment_id", "last_change_time"}
  POST /__admin/user         body: a user (as in the state); add or replace
  POST /__admin/clock        {"now": T} | {"advance": S} | {"offset": S}
                             | {"now": T, "running": true} | {"real": true}
                                                        -> {"now": T}
  POST /__admin/fail         {"count": 1, "status": 401|429|500|503|...,
                              "retry_after": S or an HTTP date,
                              "mode": "status"|"truncate"|"drop"|"drop_after"
                                      |"reset"|"slow"|"invalid_json"|"db_down",
                              "delay": S, "path_prefix": "/rest/bug",
                              "method": "GET", "skip": 0, "body": "...",
                              "content_type": "..."}
                             the next COUNT requests that match (after SKIP
                             matching ones) fail that way; {"clear": true}
                             removes every rule.         -> {"rules": n}
  POST /__admin/quirks       {"reset_every": N, "reset_style": ..., ...}
                             (merged into the quirks)   -> the quirks
  GET  /__admin/fail         the rules still armed
  GET  /__admin/log[?path_prefix=P&method=M]
                             {"count": n, "requests": [...]}
  POST /__admin/reset_log                                -> {"cleared": n}
Admin errors are HTTP 400 {"error": "message"}.

Failure modes: "status" answers STATUS without doing the request (a JSON
error for 401 and other 4xx, an HTML page for 5xx and 429) with
Retry-After if given; "truncate" does the request and sends its headers
with the full Content-Length but only half the body, then closes;
"drop" closes the connection without an answer and without doing the
request; "drop_after" does the request, then closes without an answer (the
effect happened, the client cannot know); "reset" is "drop" with a TCP
reset; "slow" waits DELAY seconds, then answers normally (DELAY applies
before any mode); "invalid_json" answers 200 application/json with an
HTML body, without doing the request; "db_down" answers as Bugzilla 5.2
does with its database down, without doing the request: /rest/version
still answers; any other call with credentials the server reads (and any
call outside /rest/) gets HTTP 200 with an empty body; an anonymous REST
call (or one with only the key header, which 5.2 ignores) gets HTTP 200
with {"error": true, "code": 100500, "message": "DBI connect(...)
failed: ..."}, JSON::RPC's internal error (the message names a database
password, as a site's may).

Quirks: "reset_every": N imitates mod_perl's Apache2::SizeLimit: after
every Nth answer (counted over all connections from when the quirk was
set) the server process is gone, so the next request on that
kept-alive connection is reset (read, not done, then a TCP reset;
"reset_style": "close" closes the connection right after the Nth answer
instead).  A kept-alive connection closes when idle for
"keepalive_timeout" seconds and after "max_keepalive_requests" answers, as
Apache's KeepAliveTimeout / MaxKeepAliveRequests do.

Request log: every request outside /__admin/ is one entry, in memory and as
one JSON line in --log: {"seq", "time" (server clock), "conn" (connection
number: equal for requests on one kept-alive connection), "method", "path",
"query" (name -> list of values), "api_key" (whether a key, token or
password was presented: never its value, which is left out of "query" and
"body" too), "api_key_via" ("param"|"header"|"body"|"token"|"login"|null),
"user" (the login the request was served as, or null), "body" (a JSON
request body, long strings shortened), "status" (0: no answer),
"bytes" (body bytes sent), "injected" (the failure mode, "reset_every"
for the quirk, or null)}.
The entry is written before the answer is sent, so a client that has its
answer can count on the entry being there.
"""

import argparse
import base64
import binascii
import calendar
import copy
import email.utils
import hashlib
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# ---------------------------------------------------------------------------
# What Bugzilla 5 is like
# ---------------------------------------------------------------------------

DOCUMENTATION = "https://bugzilla.readthedocs.org/en/5.0/api/"

# Bugzilla::WebService::Server::REST's map from error code to HTTP status;
# every other code is 400.
HTTP_STATUS_OF_CODE = {
    51: 404, 101: 404, 32614: 404,
    102: 401, 106: 401, 109: 401, 110: 401, 113: 401, 115: 401, 120: 401,
    300: 401, 301: 401, 302: 401, 303: 401, 304: 401, 410: 401, 504: 401, 505: 401,
}

# HTTP statuses after which Apache closes the connection
# (ap_status_drops_connection); the fixtures' 400 answers say
# "Connection: close".
STATUSES_THAT_CLOSE = {400, 408, 411, 413, 414, 500, 501, 503}

DEFAULT_OPEN_STATUSES = ["UNCONFIRMED", "CONFIRMED", "IN_PROGRESS"]
DEFAULT_CLOSED_STATUSES = ["RESOLVED", "VERIFIED"]
# Statuses that mean "closed" when a seeded bug brings one we do not know.
CLOSED_LOOKING_STATUSES = {"RESOLVED", "VERIFIED", "CLOSED"}
DEFAULT_RESOLUTIONS = ["FIXED", "INVALID", "WONTFIX", "DUPLICATE", "WORKSFORME"]
# "workflow": "kernel.org" (a Bugzilla that kept the pre-5.0 workflow)
OLD_OPEN_STATUSES = ["UNCONFIRMED", "NEW", "ASSIGNED", "REOPENED"]
OLD_CLOSED_STATUSES = ["RESOLVED", "VERIFIED", "CLOSED"]
WORKFLOWS = ("5.2", "kernel.org")

# Bug fields in a REST answer's _default set, in a fixed order (Bugzilla's
# own order is Perl hash order, i.e. random).  *_detail fields follow their
# parent field and are not filtered on their own (fixture 038: excluding
# cc_detail does not remove it).
DEFAULT_BUG_FIELDS = [
    "id", "alias", "summary", "product", "component", "classification", "version",
    "platform", "op_sys", "status", "resolution", "dupe_of", "is_open", "is_confirmed",
    "severity", "priority", "target_milestone", "creator", "assigned_to", "qa_contact",
    "cc", "creation_time", "last_change_time", "keywords", "groups", "flags", "url",
    "whiteboard", "see_also", "blocks", "depends_on", "deadline",
    "is_cc_accessible", "is_creator_accessible",
]
TIMETRACKING_FIELDS = ["estimated_time", "remaining_time", "actual_time"]
EXTRA_BUG_FIELDS = ["tags"]

# Stored list fields of a bug, and stored text fields with their defaults.
BUG_LIST_FIELDS = ["alias", "cc", "keywords", "groups", "flags", "see_also", "blocks",
                   "depends_on", "tags"]
BUG_TEXT_DEFAULTS = {
    "summary": "", "product": "", "component": "", "version": "unspecified",
    "platform": "All", "op_sys": "Linux", "status": "CONFIRMED", "resolution": "",
    "severity": "normal", "priority": "---", "target_milestone": "---",
    "qa_contact": "", "url": "", "whiteboard": "", "classification": "Unclassified",
}

# Names used in messages (Bugzilla's field descriptions).
FIELD_DESCRIPTIONS = {
    "summary": "Summary", "product": "Product", "component": "Component",
    "version": "Version", "platform": "Hardware", "op_sys": "OS", "status": "Status",
    "resolution": "Resolution", "severity": "Severity", "priority": "Priority",
    "target_milestone": "Target Milestone", "assigned_to": "Assignee",
    "qa_contact": "QA Contact", "url": "URL", "whiteboard": "Whiteboard",
    "keywords": "Keywords", "dupe_of": "Duplicate", "blocks": "Blocks",
    "depends_on": "Depends on", "see_also": "See Also", "alias": "Alias",
    "groups": "Group", "deadline": "Deadline", "is_confirmed": "Ever confirmed",
    "is_cc_accessible": "CC list accessible",
    "is_creator_accessible": "Reporter accessible",
}

# Search parameters of Bug.search: parameter -> (bug field, how to match).
SEARCH_PARAMS = {
    "id": ("id", "id"), "bug_id": ("id", "id"),
    "alias": ("alias", "list"), "product": ("product", "exact"),
    "component": ("component", "exact"), "classification": ("classification", "exact"),
    "status": ("status", "exact"), "bug_status": ("status", "exact"),
    "resolution": ("resolution", "resolution"),
    "severity": ("severity", "exact"), "bug_severity": ("severity", "exact"),
    "priority": ("priority", "exact"), "version": ("version", "exact"),
    "op_sys": ("op_sys", "exact"), "platform": ("platform", "exact"),
    "rep_platform": ("platform", "exact"),
    "target_milestone": ("target_milestone", "exact"),
    "creator": ("creator", "exact"), "reporter": ("creator", "exact"),
    "assigned_to": ("assigned_to", "exact"), "qa_contact": ("qa_contact", "exact"),
    "summary": ("summary", "substring"), "short_desc": ("summary", "substring"),
    "whiteboard": ("whiteboard", "substring"), "url": ("url", "substring"),
    "keywords": ("keywords", "list"), "cc": ("cc", "list"),
    "dupe_of": ("dupe_of", "exact"),
    "last_change_time": ("last_change_time", "since"),
    "creation_time": ("creation_time", "since"),
}

# Boolean chart (f1/o1/v1) field names -> bug fields.
CHART_FIELDS = {
    "bug_id": "id", "alias": "alias", "short_desc": "summary", "product": "product",
    "component": "component", "classification": "classification", "version": "version",
    "rep_platform": "platform", "op_sys": "op_sys", "bug_status": "status",
    "resolution": "resolution", "bug_severity": "severity", "priority": "priority",
    "target_milestone": "target_milestone", "reporter": "creator",
    "assigned_to": "assigned_to", "qa_contact": "qa_contact", "cc": "cc",
    "keywords": "keywords", "status_whiteboard": "whiteboard", "bug_file_loc": "url",
    "delta_ts": "last_change_time", "creation_ts": "creation_time",
    "dependson": "depends_on", "blocked": "blocks", "bug_group": "groups",
    "dup_id": "dupe_of", "see_also": "see_also",
}

# order= column names -> bug fields.
ORDER_COLUMNS = {
    "bug_id": "id", "changeddate": "last_change_time", "delta_ts": "last_change_time",
    "last_change_time": "last_change_time", "opendate": "creation_time",
    "creation_ts": "creation_time", "creation_time": "creation_time",
    "priority": "priority", "bug_severity": "severity", "severity": "severity",
    "bug_status": "status", "status": "status", "product": "product",
    "component": "component", "assigned_to": "assigned_to", "short_desc": "summary",
    "summary": "summary", "resolution": "resolution", "reporter": "creator",
}

CONTENT_TYPE_RE = re.compile(
    r"^(application|audio|image|message|model|multipart|text|video)/[^\s/=?\"',;]+$")

# Parameters whose values are secrets: never logged.
SECRET_PARAMS = {"api_key", "Bugzilla_api_key", "token", "Bugzilla_token",
                 "password", "Bugzilla_password"}

MAX_REQUEST_BODY = 256 * 1024 * 1024


# ---------------------------------------------------------------------------
# Time
# ---------------------------------------------------------------------------

_TIME_RE = re.compile(
    r"^(\d{4})-?(\d{2})-?(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?)?"
    r"\s*(Z|UTC|[+-]\d{2}:?\d{2})?$")
_RELATIVE_RE = re.compile(r"^([+-]?)(\d+)([hdwmy])$")


def parse_time(text, now=None):
    """Epoch seconds for a Bugzilla date, or None if it is not one.

    Accepts what Bugzilla's datetime_from() does in practice:
    2026-12-03T08:01:55Z, 2026-12-03 08:01:55, 2026-12-03, 20261203T08:01:55
    (XML-RPC), with an optional Z/UTC/+hh:mm zone (UTC when absent: the
    server runs in UTC).  With now given, also the search forms "now",
    "-1d", "2h" (ago) that Search.pm takes."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    if now is not None:
        if text.lower() == "now":
            return now
        m = _RELATIVE_RE.match(text)
        if m:
            amount = int(m.group(2))
            unit = {"h": 3600, "d": 86400, "w": 7 * 86400, "m": 30 * 86400,
                    "y": 365 * 86400}[m.group(3)]
            return now + amount * unit if m.group(1) == "+" else now - amount * unit
    m = _TIME_RE.match(text)
    if not m:
        return None
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    hour = int(m.group(4) or 0)
    minute = int(m.group(5) or 0)
    second = int(m.group(6) or 0)
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60
            and second < 61):
        return None
    if day > calendar.monthrange(year, month)[1]:
        return None
    epoch = calendar.timegm((year, month, day, hour, minute, min(second, 59), 0, 0, 0))
    zone = m.group(7)
    if zone and zone not in ("Z", "UTC"):
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        epoch -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    return epoch


def format_time(epoch):
    """Bugzilla's REST time: 2026-12-03T08:01:55Z."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def format_xml_time(epoch):
    """The XML export's time: 2026-12-03 08:01:55 +0000."""
    return time.strftime("%Y-%m-%d %H:%M:%S +0000", time.gmtime(epoch))


class Clock:
    """The server's clock: real UTC time, real time plus an offset, or
    frozen at a given second until a test advances it."""

    def __init__(self):
        self.frozen = None
        self.offset = 0

    def now(self):
        if self.frozen is not None:
            return self.frozen
        return int(time.time()) + self.offset

    def configure(self, spec):
        """Applies {"now": T [, "running": true]} | {"offset": S} |
        {"advance": S} | {"real": true}; raises ValueError if malformed."""
        if not isinstance(spec, dict):
            raise ValueError("clock: expected an object")
        if spec.get("real"):
            self.frozen, self.offset = None, 0
        if "now" in spec:
            when = parse_time(spec["now"])
            if when is None:
                raise ValueError("clock: 'now' is not a time: %r" % (spec["now"],))
            if spec.get("running"):
                self.frozen, self.offset = None, when - int(time.time())
            else:
                self.frozen = when
        if "offset" in spec:
            self.frozen, self.offset = None, int(spec["offset"])
        if "advance" in spec:
            step = int(spec["advance"])
            if self.frozen is not None:
                self.frozen += step
            else:
                self.offset += step

    def describe(self):
        if self.frozen is not None:
            return {"now": format_time(self.frozen)}
        if self.offset:
            return {"offset": self.offset}
        return {}


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

class BugzillaError(Exception):
    """A Bugzilla web-service error: becomes the JSON error object."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def http_status(self):
        return HTTP_STATUS_OF_CODE.get(self.code, 400)

    def to_json(self):
        return {"error": True, "code": self.code, "message": self.message,
                "documentation": DOCUMENTATION}


class StateError(ValueError):
    """A malformed state or admin request."""


def bug_does_not_exist(bug_id):
    return BugzillaError(101, "Bug #%s does not exist." % bug_id)


def invalid_bug_id(text):
    return BugzillaError(100, "'%s' is not a valid bug number nor an alias to a bug." % text)


def not_a_legal_date(text):
    return BugzillaError(56, "'%s' is not a legal date." % text)


def login_required():
    return BugzillaError(410, "You must log in before using this part of Bugzilla.")


def no_such_user(name):
    return BugzillaError(51, "There is no user named '%s'. Either you mis-typed the name or "
                             "that user has not yet registered for a Bugzilla account." % name)


def param_required(name):
    return BugzillaError(50, "The function requires a %s argument, and that argument was "
                             "not set." % name)


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------

def as_bool(value):
    """JSON/form truth: true, 1, "1", "true" are true."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def as_list(value):
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def split_commas(values):
    """Flattens a list of (possibly comma-separated) values."""
    out = []
    for value in values:
        if isinstance(value, str):
            out.extend(part.strip() for part in value.split(",") if part.strip())
        elif value is not None:
            out.append(value)
    return out


def is_integer_text(value):
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, str) and re.fullmatch(r"\s*\d+\s*", value) is not None


def change_text(value):
    """A value as Bugzilla writes it in "changes" and history."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (list, tuple)):
        return ", ".join(change_text(v) for v in value)
    return str(value)


def json_bytes(obj):
    """Compact UTF-8 JSON, as Bugzilla sends it."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def etag_of(obj, content_type):
    """Bugzilla's ETag: an unpadded base64 MD5 of the serialised answer and
    its content type (Bugzilla hashes a Data::Dumper dump; we hash JSON with
    sorted keys, which is as stable)."""
    data = json.dumps(obj, ensure_ascii=False, sort_keys=True).encode("utf-8")
    digest = hashlib.md5(data + content_type.encode("ascii")).digest()
    return base64.b64encode(digest).decode("ascii").rstrip("=")


def etag_matches(if_none_match, etag):
    """Bugzilla::CGI::check_etag: a comma/space-separated list, quotes
    stripped, "*" matches anything."""
    for candidate in re.split(r"[\s,]+", if_none_match or ""):
        candidate = candidate.strip()
        if candidate.startswith("W/"):
            candidate = candidate[2:]
        candidate = candidate.strip('"')
        if candidate and (candidate == etag or candidate == "*"):
            return True
    return False


def xml_quote(text):
    """Bugzilla::Util::xml_quote: escapes markup and deletes the characters
    XML 1.0 forbids, except NUL, which it lets through."""
    text = str(text)
    text = (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))
    return re.sub("[\u0001-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]",
                  "", text)


def html_quote(text):
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def mime_q_encode(name):
    """RFC 2047 Q encoding as Bugzilla's attachment.cgi writes file names:
    =?UTF-8?Q?rtl8168h-2-fw-dump=2Ebin?= (fixture 070)."""
    safe = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!*+-/")
    out = []
    for byte in name.encode("utf-8"):
        out.append(chr(byte) if byte in safe else "=%02X" % byte)
    return "=?UTF-8?Q?" + "".join(out) + "?="


def shorten_for_log(value, limit=200):
    """A request body for the log: secrets removed, long strings cut."""
    if isinstance(value, dict):
        return {k: shorten_for_log(v, limit) for k, v in value.items()
                if k not in SECRET_PARAMS}
    if isinstance(value, list):
        return [shorten_for_log(v, limit) for v in value]
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + "...(%d chars)" % len(value)
    return value


def wants_field(name, include, exclude, types=("default",), prefix=None):
    """Bugzilla::WebService::Util::filter_wants.  include/exclude are sets
    of names; an empty include means _default."""
    include = include or {"_default"}
    path = "%s.%s" % (prefix, name) if prefix else name
    if path in exclude:
        return False
    if path in include:
        return True
    if "_all" in exclude:
        return False
    if "_all" in include:
        return True
    for kind in types:
        if "_" + kind in exclude:
            return False
        if "_" + kind in include:
            return True
    if prefix:
        return prefix in include
    return any(key.startswith(name + ".") for key in include)


def filter_fields(obj, include, exclude, types_of=None):
    """Applies include_fields/exclude_fields to one answer object."""
    types_of = types_of or {}
    return {key: value for key, value in obj.items()
            if wants_field(key, include, exclude, types_of.get(key, ("default",)))}


# ---------------------------------------------------------------------------
# The data: users, products, bugs with their comments and attachments
# ---------------------------------------------------------------------------

class Model:
    """Everything the fake Bugzilla knows, loaded from a state object.

    Bugs are stored with REST field names; times as epoch seconds;
    attachment bodies as bytes.  The caller holds Server.lock around every
    use (the HTTP server is threaded)."""

    def __init__(self, state, clock, base_dir="."):
        if not isinstance(state, dict):
            raise StateError("the state must be a JSON object")
        self.clock = clock
        self.base_dir = base_dir
        self.version = str(state.get("version") or "5.2")
        self.urlbase = state.get("urlbase")
        self.maintainer = state.get("maintainer") or "admin@example.com"
        self.params = {"insidergroup": "insiders", "timetrackinggroup": "editbugs",
                       "defaultopsys": "", "defaultplatform": ""}
        self.params.update(state.get("params") or {})
        self.quirks = dict(state.get("quirks") or {})
        if "clock" in state and state["clock"] is not None:
            try:
                clock.configure(state["clock"])
            except ValueError as e:
                raise StateError(str(e))
        self.workflow = str(state.get("workflow") or "5.2")
        if self.workflow not in WORKFLOWS:
            raise StateError("workflow must be one of %s" % ", ".join(WORKFLOWS))
        self.transitions = {str(k): [str(t) for t in v]
                            for k, v in (state.get("transitions") or {}).items()}
        self.keywords = ([str(k) for k in state["keywords"]]
                         if state.get("keywords") is not None else None)
        self.flag_types = []
        for i, spec in enumerate(state.get("flag_types") or []):
            spec = spec if isinstance(spec, dict) else {"name": str(spec)}
            self.flag_types.append({
                "id": int(spec.get("id") or i + 1), "name": str(spec["name"]),
                "description": str(spec.get("description") or spec["name"]),
                "type": "bug", "is_active": as_bool(spec.get("is_active", True)),
                "is_requestable": as_bool(spec.get("is_requestable", True)),
                "is_requesteeble": as_bool(spec.get("is_requesteeble", True)),
                "is_multiplicable": as_bool(spec.get("is_multiplicable", False))})
        old = self.workflow == "kernel.org"
        statuses = state.get("statuses") or {}
        self.open_statuses = list(statuses.get("open") or (
            OLD_OPEN_STATUSES if old else DEFAULT_OPEN_STATUSES))
        self.closed_statuses = list(statuses.get("closed") or (
            OLD_CLOSED_STATUSES if old else DEFAULT_CLOSED_STATUSES))
        self.resolutions = list(state.get("resolutions") or DEFAULT_RESOLUTIONS)
        self.groups = {}        # name -> {"id", "name", "description"}
        for group in state.get("groups") or []:
            self._group(group["name"] if isinstance(group, dict) else group,
                        group.get("description", "") if isinstance(group, dict) else "")
        self.users = {}         # login -> user
        self.next_user_id = 1
        for user in state.get("users") or []:
            self.put_user(user)
        self.fields = {}        # cf_* name -> {"description", "values", "default", "id"}
        for name, spec in (state.get("fields") or {}).items():
            self.declare_field(name, spec or {})
        self.products = {}      # name -> product
        for product in state.get("products") or []:
            self._put_product(product)
        self.bugs = {}          # id -> bug
        self.comments = {}      # comment id -> comment (also in bug["comments"])
        self.attachments = {}   # attachment id -> attachment (also in bug["attachments"])
        self.next_bug_id = 1
        self.next_comment_id = 1
        self.next_attachment_id = 1
        self.tokens = {}        # login token -> login
        bugs = [copy.deepcopy(b) for b in state.get("bugs") or []]
        self.next_bug_id = max([int(b["id"]) for b in bugs if "id" in b] + [0]) + 1
        loose_comments = {}
        for comment in state.get("comments") or []:
            loose_comments.setdefault(int(comment["bug_id"]), []).append(comment)
        loose_attachments = {}
        for attachment in state.get("attachments") or []:
            loose_attachments.setdefault(int(attachment["bug_id"]), []).append(attachment)
        for bug in bugs:
            bug_id = int(bug["id"]) if "id" in bug else None
            if bug_id is not None:
                bug.setdefault("comments", []).extend(loose_comments.pop(bug_id, []))
                bug.setdefault("attachments", []).extend(loose_attachments.pop(bug_id, []))
            self.put_bug(bug, bump=False)
        self.link_dependencies()
        if loose_comments or loose_attachments:
            missing = sorted(set(loose_comments) | set(loose_attachments))
            raise StateError("comments or attachments for bugs not in the state: %s" % missing)

    # --- users and groups -------------------------------------------------

    def _group(self, name, description=""):
        if name not in self.groups:
            self.groups[name] = {"id": len(self.groups) + 1, "name": name,
                                 "description": description or name}
        return self.groups[name]

    def put_user(self, spec):
        """Adds or replaces a user (state format)."""
        if not isinstance(spec, dict) or not spec.get("login"):
            raise StateError("a user needs a login")
        login = spec["login"]
        old = self.users.get(login)
        user_id = int(spec.get("id") or (old["id"] if old else self.next_user_id))
        self.next_user_id = max(self.next_user_id, user_id + 1)
        user = {
            "id": user_id, "login": login, "email": spec.get("email") or login,
            "real_name": spec.get("real_name") or "",
            "api_key": spec.get("api_key"), "password": spec.get("password"),
            "insider": bool(spec.get("insider", False)),
            "groups": list(spec.get("groups") or []),
            "can_login": bool(spec.get("can_login", True)),
        }
        for group in user["groups"]:
            self._group(group)
        self.users[login] = user
        return user

    def user(self, login, create=True):
        """The user with that login; unknown ones are created when loading."""
        if not login:
            return None
        if login not in self.users and create:
            self.put_user({"login": login})
        return self.users.get(login)

    def user_by_id(self, user_id):
        for user in self.users.values():
            if user["id"] == user_id:
                return user
        return None

    def user_by_api_key(self, key):
        for user in self.users.values():
            if user["api_key"] and user["api_key"] == key:
                return user
        return None

    def in_group(self, user, group):
        """Bugzilla's admin account is a member of every group."""
        return bool(user) and (group in user["groups"] or "admin" in user["groups"])

    def is_insider(self, user):
        return bool(user) and (user["insider"]
                               or self.in_group(user, self.params.get("insidergroup")))

    def is_timetracker(self, user):
        group = self.params.get("timetrackinggroup")
        return bool(user) and bool(group) and self.in_group(user, group)

    def can_edit_bugs(self, user):
        return self.in_group(user, "editbugs")

    def user_detail(self, login):
        user = self.user(login, create=False) or {"id": 0, "email": login, "login": login,
                                                   "real_name": ""}
        return {"id": user["id"], "email": user["email"], "name": user["login"],
                "real_name": user["real_name"]}

    # --- products and fields ---------------------------------------------

    def _put_product(self, spec):
        if isinstance(spec, str):
            spec = {"name": spec}
        name = spec["name"]
        product = self.products.get(name)
        if product is None:
            product = {"id": int(spec.get("id") or len(self.products) + 1), "name": name,
                       "description": spec.get("description", ""),
                       "classification": spec.get("classification", "Unclassified"),
                       "is_active": bool(spec.get("is_active", True)),
                       "versions": [], "milestones": [], "components": {}}
            self.products[name] = product
        product["canedit_groups"] = list(spec.get("canedit_groups")
                                         or product.get("canedit_groups") or [])
        for version in spec.get("versions") or ["unspecified"]:
            if version not in product["versions"]:
                product["versions"].append(version)
        for milestone in spec.get("milestones") or ["---"]:
            if milestone not in product["milestones"]:
                product["milestones"].append(milestone)
        for component in spec.get("components") or []:
            self._put_component(product, component)
        return product

    def _put_component(self, product, spec):
        if isinstance(spec, str):
            spec = {"name": spec}
        if spec["name"] in product["components"]:
            return product["components"][spec["name"]]
        component_id = sum(len(p["components"]) for p in self.products.values()) + 1
        component = {"id": int(spec.get("id") or component_id), "name": spec["name"],
                     "description": spec.get("description", ""),
                     "default_assigned_to": spec.get("default_assigned_to", ""),
                     "default_qa_contact": spec.get("default_qa_contact", ""),
                     "is_active": bool(spec.get("is_active", True))}
        product["components"][spec["name"]] = component
        return component

    def declare_field(self, name, spec):
        if name in self.fields:
            return self.fields[name]
        values = spec.get("values")
        field = {"id": 60 + len(self.fields), "name": name,
                 "description": spec.get("description") or name,
                 "values": list(values) if values else None,
                 "default": spec.get("default", "---" if values else ""),
                 "multiple": bool(spec.get("multiple", False))}
        self.fields[name] = field
        return field

    def _legal_status(self, status):
        if status not in self.open_statuses and status not in self.closed_statuses:
            if status in CLOSED_LOOKING_STATUSES:
                self.closed_statuses.append(status)
            else:
                self.open_statuses.append(status)

    def is_open_status(self, status):
        return status not in self.closed_statuses

    # --- bugs, comments, attachments (state format in, stored format) -----

    def state_time(self, value, what, default=None):
        if value is None:
            return default
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return int(value)
        when = parse_time(value)
        if when is None:
            raise StateError("%s: not a time: %r" % (what, value))
        return when

    def put_bug(self, spec, bump=True, merge=False):
        """Adds or replaces a bug from a state-format object, or (merge)
        changes the fields spec gives and appends its comments and
        attachments.  bump: last_change_time becomes the clock unless spec
        gives one.  Everything is checked before anything changes.  Returns
        the stored bug."""
        if not isinstance(spec, dict):
            raise StateError("a bug must be an object")
        spec = dict(spec)
        now = self.clock.now()
        bug_id = int(spec["id"]) if spec.get("id") is not None else self.next_bug_id
        old = self.bugs.get(bug_id)
        if merge and old is None:
            raise StateError("bug %d does not exist (merge)" % bug_id)
        comments_in = [dict(c) for c in spec.pop("comments", None) or []]
        attachments_in = [dict(a) for a in spec.pop("attachments", None) or []]
        history_in = spec.pop("history", None) or []
        description = spec.pop("description", None)
        spec.pop("merge", None)
        for key in ("creation_time", "last_change_time"):
            if key in spec:
                spec[key] = self.state_time(spec[key], key)
        self._check_children(None if merge else old, comments_in, attachments_in, history_in)

        if merge:
            bug = dict(old)
            bug.update(copy.deepcopy(spec))
        else:
            bug = copy.deepcopy(spec)
            bug.update({"id": bug_id, "comments": [], "attachments": [], "history": []})
            comment_times = [c["creation_time"] for c in comments_in
                             if c.get("creation_time") is not None]
            if "creation_time" not in bug:
                bug["creation_time"] = (min(comment_times) if comment_times
                                        else bug.get("last_change_time", now))
            if not bug.get("creator"):
                if comments_in and comments_in[0].get("creator"):
                    bug["creator"] = comments_in[0]["creator"]
                else:
                    bug["creator"] = next(iter(self.users), "nobody@example.com")
        self._normalise_bug(bug)
        # children without a time: the description is as old as the bug,
        # the rest as recent as the bug's last change
        later = bug.get("last_change_time") or now
        for i, comment in enumerate(comments_in):
            if comment.get("creation_time") is None:
                comment["creation_time"] = bug["creation_time"] if i == 0 and not merge \
                    else later
        for attachment in attachments_in:
            if attachment.get("creation_time") is None:
                attachment["creation_time"] = later

        if old is not None and not merge:
            self._forget_bug(old)
        self.bugs[bug_id] = bug
        self.next_bug_id = max(self.next_bug_id, bug_id + 1)
        for entry in history_in:
            bug["history"].append({"when": entry["when"],
                                   "who": entry.get("who") or bug["creator"],
                                   "changes": [dict(c) for c in entry.get("changes") or []]})
        for comment in comments_in:
            self.add_comment(bug, comment, bump=False)
        if not bug["comments"]:
            self.add_comment(bug, {"text": description or "", "creator": bug["creator"],
                                   "creation_time": bug["creation_time"]}, bump=False)
        for attachment in attachments_in:
            self.add_attachment(bug, attachment, bump=False, with_comment=False)
        if "last_change_time" in spec:
            bug["last_change_time"] = spec["last_change_time"]
        elif bump:
            bug["last_change_time"] = now
        elif "last_change_time" not in bug:
            bug["last_change_time"] = max(
                [bug["creation_time"]] + [c["creation_time"] for c in bug["comments"]]
                + [a["last_change_time"] for a in bug["attachments"]])
        return bug

    def _check_children(self, replaced, comments, attachments, history):
        """Validates comments, attachments and history of a bug before it
        is stored (parsing their times and attachment data in place);
        replaced: the bug they replace, whose ids may be used again."""
        reusable_comments = {c["id"] for c in replaced["comments"]} if replaced else set()
        reusable_attachments = ({a["id"] for a in replaced["attachments"]}
                                if replaced else set())
        for comment in comments:
            if comment.get("creation_time", comment.get("time")) is not None:
                comment["creation_time"] = self.state_time(
                    comment.pop("creation_time", None) or comment.get("time"),
                    "comment time")
            if comment.get("id") is not None and int(comment["id"]) in self.comments \
                    and int(comment["id"]) not in reusable_comments:
                raise StateError("comment %s exists already" % comment["id"])
        for attachment in attachments:
            for key in ("creation_time", "last_change_time"):
                if attachment.get(key) is not None:
                    attachment[key] = self.state_time(attachment[key], "attachment " + key)
            attachment["data"] = self._attachment_bytes(attachment)
            attachment.pop("text", None)
            attachment.pop("data_file", None)
            if attachment.get("id") is not None \
                    and int(attachment["id"]) in self.attachments \
                    and int(attachment["id"]) not in reusable_attachments:
                raise StateError("attachment %s exists already" % attachment["id"])
        for entry in history:
            if not isinstance(entry, dict):
                raise StateError("a history entry must be an object")
            entry["when"] = self.state_time(entry.get("when"), "history when",
                                            self.clock.now())

    def link_dependencies(self):
        """Makes blocks/depends_on two-sided, as Bugzilla keeps them."""
        for bug in self.bugs.values():
            for name, other_name in (("blocks", "depends_on"), ("depends_on", "blocks")):
                for other_id in bug[name]:
                    other = self.bugs.get(other_id)
                    if other is not None and bug["id"] not in other[other_name]:
                        other[other_name].append(bug["id"])

    def _normalise_bug(self, bug):
        """Fills defaults and makes the field types Bugzilla's."""
        qa_contact_given = bug.get("qa_contact") is not None
        for key, default in BUG_TEXT_DEFAULTS.items():
            if bug.get(key) is None:
                bug[key] = default
        if bug["resolution"] == "---":
            bug["resolution"] = ""
        for key in BUG_LIST_FIELDS:
            value = bug.get(key)
            if value is None or value == "":
                bug[key] = []
            elif not isinstance(value, list):
                bug[key] = [value]
        bug["blocks"] = [int(x) for x in bug["blocks"]]
        bug["depends_on"] = [int(x) for x in bug["depends_on"]]
        if bug.get("dupe_of") in ("", 0):
            bug["dupe_of"] = None
        bug.setdefault("dupe_of", None)
        if bug["dupe_of"] is not None:
            bug["dupe_of"] = int(bug["dupe_of"])
        bug.setdefault("deadline", None)
        for key in ("is_cc_accessible", "is_creator_accessible"):
            bug[key] = bool(bug.get(key, True))
        if "is_confirmed" not in bug:
            bug["is_confirmed"] = bug["status"] != "UNCONFIRMED"
        bug["is_confirmed"] = bool(bug["is_confirmed"])
        for key in TIMETRACKING_FIELDS:
            bug.setdefault(key, 0)
        self._legal_status(bug["status"])
        if bug["resolution"] and bug["resolution"] not in self.resolutions:
            self.resolutions.append(bug["resolution"])
        product = self.products.get(bug["product"]) or self._put_product(
            {"name": bug["product"]})
        bug["classification"] = bug.get("classification") or product["classification"]
        component = self._put_component(product, {"name": bug["component"]})
        if bug["version"] not in product["versions"]:
            product["versions"].append(bug["version"])
        if not bug.get("assigned_to"):
            bug["assigned_to"] = component["default_assigned_to"] or bug["creator"]
        if not qa_contact_given:
            bug["qa_contact"] = component["default_qa_contact"]
        for login in [bug["creator"], bug["assigned_to"], bug["qa_contact"]] + bug["cc"]:
            self.user(login)
        for group in bug["groups"]:
            self._group(group)
        for key in list(bug):
            if key.startswith("cf_"):
                self.declare_field(key, {})
        for name, field in self.fields.items():
            if name not in bug:
                bug[name] = [] if field["multiple"] else field["default"]

    def _forget_bug(self, bug):
        for c in bug["comments"]:
            self.comments.pop(c["id"], None)
        for a in bug["attachments"]:
            self.attachments.pop(a["id"], None)

    def add_comment(self, bug, spec, bump=True):
        """Appends a comment (state format) to bug; returns it."""
        now = self.clock.now()
        if "id" in spec and spec["id"] is not None:
            comment_id = int(spec["id"])
            if comment_id in self.comments:
                raise StateError("comment %d exists already" % comment_id)
        else:
            comment_id = self.next_comment_id
        self.next_comment_id = max(self.next_comment_id, comment_id + 1)
        when = self.state_time(spec.get("creation_time", spec.get("time")), "comment time", now)
        counts = [c["count"] for c in bug["comments"]]
        count = int(spec["count"]) if spec.get("count") is not None else (
            max(counts) + 1 if counts else 0)
        attachment_id = spec.get("attachment_id")
        comment = {
            "id": comment_id, "bug_id": bug["id"], "count": count,
            "creator": spec.get("creator") or bug["creator"],
            "creation_time": when, "text": spec.get("text", ""),
            "is_private": as_bool(spec.get("is_private", False)),
            "attachment_id": int(attachment_id) if attachment_id else None,
            "tags": list(spec.get("tags") or []),
        }
        self.user(comment["creator"])
        bug["comments"].append(comment)
        bug["comments"].sort(key=lambda c: (c["count"], c["id"]))
        self.comments[comment_id] = comment
        if bump:
            bug["last_change_time"] = max(bug.get("last_change_time") or 0, when)
        return comment

    def _attachment_bytes(self, spec):
        if spec.get("data") is not None:
            data = spec["data"]
            if isinstance(data, bytes):
                return data
            try:
                return base64.b64decode(data, validate=False)
            except (binascii.Error, ValueError) as e:
                raise StateError("attachment data is not base64: %s" % e)
        if spec.get("text") is not None:
            return spec["text"].encode("utf-8")
        if spec.get("data_file"):
            path = os.path.join(self.base_dir, spec["data_file"])
            try:
                with open(path, "rb") as f:
                    return f.read()
            except OSError as e:
                raise StateError("attachment data_file: %s" % e)
        return b""

    def add_attachment(self, bug, spec, bump=True, with_comment=True, comment_text=None):
        """Adds an attachment (state format) to bug; with_comment also adds
        the "Created attachment N" comment Bugzilla makes.  Returns it."""
        now = self.clock.now()
        if spec.get("id") is not None:
            attachment_id = int(spec["id"])
            if attachment_id in self.attachments:
                raise StateError("attachment %d exists already" % attachment_id)
        else:
            attachment_id = self.next_attachment_id
        self.next_attachment_id = max(self.next_attachment_id, attachment_id + 1)
        data = self._attachment_bytes(spec)
        is_patch = as_bool(spec.get("is_patch", False))
        when = self.state_time(spec.get("creation_time"), "attachment time", now)
        attachment = {
            "id": attachment_id, "bug_id": bug["id"],
            "file_name": spec.get("file_name") or "attachment-%d" % attachment_id,
            "summary": spec.get("summary", spec.get("description", "")),
            "content_type": spec.get("content_type") or (
                "text/plain" if is_patch else "application/octet-stream"),
            "creator": spec.get("creator") or bug["creator"],
            "creation_time": when,
            "last_change_time": self.state_time(spec.get("last_change_time"),
                                           "attachment time", when),
            "is_private": as_bool(spec.get("is_private", False)),
            "is_obsolete": as_bool(spec.get("is_obsolete", False)),
            "is_patch": is_patch,
            "flags": list(spec.get("flags") or []),
            "data": data,
        }
        self.user(attachment["creator"])
        bug["attachments"].append(attachment)
        bug["attachments"].sort(key=lambda a: a["id"])
        self.attachments[attachment_id] = attachment
        if with_comment:
            text = "Created attachment %d\n%s" % (attachment_id, attachment["summary"])
            if comment_text:
                text += "\n\n" + comment_text
            self.add_comment(bug, {"text": text, "creator": attachment["creator"],
                                   "creation_time": when,
                                   "is_private": attachment["is_private"],
                                   "attachment_id": attachment_id}, bump=False)
        if bump:
            bug["last_change_time"] = max(bug.get("last_change_time") or 0, when)
        return attachment

    # --- the state, out ----------------------------------------------------

    def dump(self):
        """The whole state in the state file's format."""
        def bug_out(bug):
            out = {k: copy.deepcopy(v) for k, v in bug.items()
                   if k not in ("comments", "attachments", "history")}
            out["creation_time"] = format_time(bug["creation_time"])
            out["last_change_time"] = format_time(bug["last_change_time"])
            out["comments"] = [dict(c, creation_time=format_time(c["creation_time"]))
                               for c in bug["comments"]]
            out["attachments"] = [
                dict(a, creation_time=format_time(a["creation_time"]),
                     last_change_time=format_time(a["last_change_time"]),
                     data=base64.b64encode(a["data"]).decode("ascii"))
                for a in bug["attachments"]]
            out["history"] = [dict(h, when=format_time(h["when"])) for h in bug["history"]]
            return out
        products = []
        for p in self.products.values():
            products.append({"name": p["name"], "id": p["id"], "description": p["description"],
                             "classification": p["classification"],
                             "versions": p["versions"], "milestones": p["milestones"],
                             "components": [dict(c) for c in p["components"].values()]})
        return {
            "version": self.version, "urlbase": self.urlbase, "maintainer": self.maintainer,
            "clock": self.clock.describe(), "params": self.params, "quirks": self.quirks,
            "workflow": self.workflow, "transitions": self.transitions,
            "keywords": self.keywords, "flag_types": self.flag_types,
            "statuses": {"open": self.open_statuses, "closed": self.closed_statuses},
            "resolutions": self.resolutions,
            "groups": list(self.groups.values()),
            "users": [{k: v for k, v in u.items()} for u in self.users.values()],
            "products": products,
            "fields": {n: {"description": f["description"], "values": f["values"],
                           "default": f["default"], "multiple": f["multiple"]}
                       for n, f in self.fields.items()},
            "bugs": [bug_out(b) for b in sorted(self.bugs.values(), key=lambda b: b["id"])],
        }

    # --- visibility ---------------------------------------------------------

    def can_see_bug(self, user, bug):
        """Bugzilla::User::can_see_bug: in every group of the bug, or its
        reporter/cc (when accessible), assignee or QA contact."""
        if not bug["groups"]:
            return True
        if not user:
            return False
        if all(self.in_group(user, g) for g in bug["groups"]):
            return True
        login = user["login"]
        if bug["is_creator_accessible"] and bug["creator"] == login:
            return True
        if bug["is_cc_accessible"] and login in bug["cc"]:
            return True
        return login in (bug["assigned_to"], bug["qa_contact"])

    def bug_by_text(self, text):
        """A bug from an id or alias as the user typed it, or raises 100/101."""
        text = str(text).strip()
        if text.startswith("#"):
            text = text[1:]
        if is_integer_text(text):
            bug = self.bugs.get(int(text))
            if bug is None:
                raise bug_does_not_exist(int(text))
            return bug
        for bug in self.bugs.values():
            if text and text in bug["alias"]:
                return bug
        raise invalid_bug_id(text)

    def visible_bug(self, user, text):
        """bug_by_text, then 102 if the user may not see it."""
        bug = self.bug_by_text(text)
        if not self.can_see_bug(user, bug):
            message = "You are not authorized to access bug #%d." % bug["id"]
            if not user:
                message += (" To see this bug, you must first log in to an account with "
                            "the appropriate permissions.")
            raise BugzillaError(102, message)
        return bug


# ---------------------------------------------------------------------------
# One request, as the application sees it
# ---------------------------------------------------------------------------

class Request:
    """A parsed request: method, decoded path, query parameters (name ->
    list of values, in order), the raw body and, for JSON bodies, the
    object; user is filled by authentication."""

    def __init__(self, method, target, headers, body):
        self.method = method
        parts = urllib.parse.urlsplit(target)
        self.path = urllib.parse.unquote(parts.path)
        self.query = {}
        for name, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True):
            self.query.setdefault(name, []).append(value)
        self.headers = headers
        self.body = body or b""
        self.json = None
        self.json_error = None
        if self.body and method in ("POST", "PUT", "PATCH"):
            try:
                self.json = json.loads(self.body.decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as e:
                self.json_error = str(e)
        self.user = None
        # Whether credentials came with the request, and how; authentication
        # refines key_via to the credentials it used ("token", "login").
        self.key_via = None
        if any(name in SECRET_PARAMS for name in self.query):
            self.key_via = "param"
        elif any(name in SECRET_PARAMS for name in self.body_params()):
            self.key_via = "body"
        elif headers.get("X-BUGZILLA-API-KEY") is not None:
            self.key_via = "header"
        self.key_presented = self.key_via is not None

    def body_params(self):
        return self.json if isinstance(self.json, dict) else {}

    def values(self, name):
        """Every value of a parameter: query string first, then JSON body."""
        values = list(self.query.get(name, []))
        body = self.body_params()
        if name in body:
            values.extend(as_list(body[name]))
        return values

    def value(self, name, default=None):
        values = self.values(name)
        return values[0] if values else default

    def fields_filter(self):
        """(include, exclude) sets from include_fields/exclude_fields."""
        include = set(split_commas(self.values("include_fields")))
        exclude = set(split_commas(self.values("exclude_fields")))
        return include, exclude

    def log_query(self):
        return {k: v for k, v in self.query.items() if k not in SECRET_PARAMS}


class Response:
    """What the application answers; the HTTP layer sends it."""

    def __init__(self, status, body=b"", content_type=None, headers=None, etag=None,
                 close=False):
        self.status = status
        self.body = body
        self.content_type = content_type
        self.headers = list(headers or [])
        self.etag = etag
        self.close = close


JSON_TYPE = "application/json; charset=UTF-8"


def json_response(status, obj, headers=None):
    return Response(status, json_bytes(obj), JSON_TYPE, headers=headers,
                    etag=etag_of(obj, JSON_TYPE))


def html_error_page(title, message, clock_now):
    """An HTML error page as Bugzilla's CGIs send it: status 200."""
    page = ("<!DOCTYPE html>\n<html lang=\"en\">\n  <head>\n    <title>%s</title>\n"
            "    <meta http-equiv=\"Content-Type\" content=\"text/html; charset=UTF-8\">\n"
            "  </head>\n  <body>\n    <div id=\"titles\">\n"
            "      <span id=\"title\">Bugzilla &ndash; %s</span>\n    </div>\n"
            "  <div id=\"bugzilla-body\">\n\n<div id=\"error_msg\" class=\"throw_error\">\n"
            "    %s\n</div>\n  </div>\n  </body>\n</html>\n"
            % (html_quote(title), html_quote(title), html_quote(message)))
    day = time.strftime("%Y-%m-%d", time.gmtime(clock_now))
    return Response(200, page.encode("utf-8"), "text/html; charset=UTF-8",
                    headers=[("Content-Disposition",
                              'inline; filename="error-%s.html"' % day)])


# ---------------------------------------------------------------------------
# The Bugzilla application: REST, attachment.cgi, show_bug.cgi
# ---------------------------------------------------------------------------

REST_ROUTES = []


def route(pattern, *methods):
    """Registers a REST handler for a path (after /rest) and methods."""
    regex = re.compile(pattern + r"\Z")

    def register(function):
        REST_ROUTES.append((regex, methods, function))
        return function
    return register


class Bugzilla:
    """Answers requests from a Model.  Every method runs under the
    server's lock."""

    def __init__(self, model, server_url):
        self.model = model
        self.server_url = server_url

    @property
    def version(self):
        return self.model.version

    def header_keys_accepted(self):
        """5.1 reads X-BUGZILLA-API-KEY; 5.0 and 5.2 (from the 5.0 line) do not."""
        return self.version.startswith("5.1")

    def urlbase(self):
        return self.model.urlbase or (self.server_url + "/")

    # --- dispatch -----------------------------------------------------------

    def handle(self, req):
        if req.path.startswith("/rest/") or req.path.startswith("/rest.cgi/"):
            return self.handle_rest(req)
        if req.path in ("/rest", "/rest.cgi"):
            return self.handle_rest(req)
        if req.path == "/attachment.cgi":
            return self.attachment_cgi(req)
        if req.path == "/show_bug.cgi":
            return self.show_bug_cgi(req)
        if req.path in ("/", "/index.cgi"):
            page = "<!DOCTYPE html>\n<html><head><title>Bugzilla Main Page</title></head>" \
                   "<body><p>fake Bugzilla %s</p></body></html>\n" % html_quote(self.version)
            return Response(200, page.encode("utf-8"), "text/html; charset=UTF-8")
        page = ("<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n"
                "<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n"
                "<p>The requested URL was not found on this server.</p>\n</body></html>\n")
        return Response(404, page.encode("ascii"), "text/html; charset=iso-8859-1")

    def handle_rest(self, req):
        resource = re.sub(r"^/rest(\.cgi)?", "", req.path) or "/"
        method = "GET" if req.method == "HEAD" else req.method
        try:
            for regex, methods, function in REST_ROUTES:
                m = regex.match(resource)
                if not m or method not in methods:
                    continue
                if req.json_error is not None:
                    raise BugzillaError(
                        32000, "Could not parse the 'params' argument as valid JSON. "
                               "Error: %s Value:" % req.json_error)
                if req.json is not None and not isinstance(req.json, dict):
                    raise BugzillaError(32000, "Could not parse the 'params' argument as "
                                               "valid JSON. Error: not an object Value:")
                self.authenticate(req)
                status, obj = function(self, req, *m.groups())
                return json_response(status, obj)
            raise BugzillaError(32614, "A REST API resource was not found for '%s %s'."
                                % (req.method, resource))
        except BugzillaError as e:
            response = json_response(e.http_status, e.to_json())
            response.close = e.http_status in STATUSES_THAT_CLOSE
            return response

    def authenticate(self, req):
        """Finds who the request is from; raises 306/300 for bad credentials."""
        model = self.model
        key, via = None, None
        for name in ("api_key", "Bugzilla_api_key"):     # an empty one is no key
            if req.query.get(name, [""])[0]:
                key, via = req.query[name][0], "param"
                break
            if req.body_params().get(name):
                key, via = str(req.body_params()[name]), "body"
                break
        header_key = req.headers.get("X-BUGZILLA-API-KEY")
        if key is None and header_key is not None and self.header_keys_accepted():
            key, via = header_key, "header"      # 5.2 ignores the header
        if key is not None:
            req.key_via = via
            user = model.user_by_api_key(key)
            if user is None or not user["can_login"]:
                raise BugzillaError(306, "The API key you specified is invalid. Please check "
                                         "that you typed it correctly.")
            req.user = user
            return
        token = req.value("token") or req.value("Bugzilla_token")
        if token:
            req.key_via = "token"
            login = model.tokens.get(token)
            if login is None or login not in model.users:
                # (no fixture recorded this one; the code is a guess)
                raise BugzillaError(32000, "The token you specified is invalid or has "
                                           "expired. Please log in again.")
            req.user = model.users[login]
            return
        login = req.value("Bugzilla_login")
        if login is not None:
            req.key_via = "login"
            req.user = self.check_password(login, req.value("Bugzilla_password"))

    def check_password(self, login, password):
        user = self.model.users.get(login)
        if user is None or not user["password"] or user["password"] != password \
                or not user["can_login"]:
            raise BugzillaError(300, "The login or password you entered is not valid.")
        return user

    def require_login(self, req):
        if not req.user:
            raise login_required()
        return req.user

    # --- answer objects -------------------------------------------------------

    def update_token(self, bug, user):
        now = self.model.clock.now()
        seed = "%d:%d:%s" % (bug["id"], bug["last_change_time"], user["login"])
        digest = base64.urlsafe_b64encode(hashlib.sha256(seed.encode()).digest())
        return "%d-%s" % (now, digest.decode("ascii").rstrip("=")[:43])

    def bug_json(self, bug, req, include, exclude, for_get=True):
        model = self.model
        user = req.user
        out = {}
        for name in DEFAULT_BUG_FIELDS:
            if not wants_field(name, include, exclude):
                continue
            if name == "is_open":
                value = model.is_open_status(bug["status"])
            elif name in ("creation_time", "last_change_time"):
                value = format_time(bug[name])
            else:
                value = copy.deepcopy(bug.get(name))
            out[name] = value
            if name in ("creator", "assigned_to"):
                out[name + "_detail"] = model.user_detail(bug[name])
            elif name == "qa_contact" and bug["qa_contact"]:
                out["qa_contact_detail"] = model.user_detail(bug["qa_contact"])
            elif name == "cc":
                out["cc_detail"] = [model.user_detail(login) for login in bug["cc"]]
        for name in sorted(model.fields):
            if wants_field(name, include, exclude, ("default", "custom")):
                out[name] = copy.deepcopy(bug.get(name))
        if model.is_timetracker(user):
            for name in TIMETRACKING_FIELDS:
                if wants_field(name, include, exclude):
                    out[name] = bug.get(name, 0)
        if for_get and user and wants_field("update_token", include, exclude):
            out["update_token"] = self.update_token(bug, user)
        for name in EXTRA_BUG_FIELDS:
            if wants_field(name, include, exclude, ("extra",)):
                out[name] = copy.deepcopy(bug.get(name, []))
        return out

    @staticmethod
    def comment_json(comment, include, exclude):
        out = {"id": comment["id"], "bug_id": comment["bug_id"], "count": comment["count"],
               "creator": comment["creator"],
               "creation_time": format_time(comment["creation_time"]),
               "time": format_time(comment["creation_time"]), "text": comment["text"],
               "is_private": comment["is_private"],
               "attachment_id": comment["attachment_id"], "tags": list(comment["tags"])}
        return filter_fields(out, include, exclude)

    @staticmethod
    def attachment_json(attachment, include, exclude):
        out = {"id": attachment["id"], "bug_id": attachment["bug_id"],
               "file_name": attachment["file_name"], "summary": attachment["summary"],
               "content_type": attachment["content_type"], "creator": attachment["creator"],
               "creation_time": format_time(attachment["creation_time"]),
               "last_change_time": format_time(attachment["last_change_time"]),
               "is_private": int(attachment["is_private"]),
               "is_obsolete": int(attachment["is_obsolete"]),
               "is_patch": int(attachment["is_patch"]),
               "flags": copy.deepcopy(attachment["flags"]),
               "size": len(attachment["data"])}
        if wants_field("data", include, exclude):
            out["data"] = base64.b64encode(attachment["data"]).decode("ascii")
        return filter_fields(out, include, exclude)

    def bugs_from(self, req, first=None, name="ids"):
        """The bugs a request names (path id first, then ids=...), each
        checked: 100 for junk, 101 for a missing one, 102 for a hidden one."""
        texts = ([first] if first is not None else []) + split_commas(req.values(name))
        bugs, seen = [], set()
        for text in texts:
            bug = self.model.visible_bug(req.user, text)
            if bug["id"] not in seen:
                seen.add(bug["id"])
                bugs.append(bug)
        return bugs

    def new_since(self, req):
        text = req.value("new_since")
        if text is None or text == "":
            return None
        when = parse_time(text)
        if when is None:
            raise not_a_legal_date(text)
        return when

    # --- updates ------------------------------------------------------------

    def _list_update(self, name, old, spec):
        """New value of a list field from {"add", "remove", "set"} or a list."""
        if isinstance(spec, dict):
            if "set" in spec:
                new = list(as_list(spec["set"]))
            else:
                new = list(old)
                for item in as_list(spec.get("add")):
                    if item not in new:
                        new.append(item)
                remove = as_list(spec.get("remove"))
                new = [item for item in new if item not in remove]
        else:
            new = list(as_list(spec))
        if name in ("blocks", "depends_on"):
            new = [int(x) if is_integer_text(x) else x for x in new]
        return new

    def _flags_update(self, old, specs, user, now):
        """A bug's flags after Bug.update's "flags" list: each item names an
        existing flag (id, or its type's name when the bug has one such
        flag) or a type for a new one; status "X" clears it."""
        model = self.model
        flags = copy.deepcopy(old)
        for spec in as_list(specs):
            if not isinstance(spec, dict) or not spec.get("status"):
                raise BugzillaError(32000, "Flag updates need a status.")
            status = str(spec["status"])
            if status not in ("?", "+", "-", "X"):
                raise BugzillaError(32000, "The flag status '%s' is not valid." % status)
            ftype = next((t for t in model.flag_types
                          if t["name"] == spec.get("name")
                          or t["id"] == spec.get("type_id")), None)
            same = [f for f in flags if spec.get("id") is not None and f.get("id") == spec["id"]
                    or spec.get("id") is None and not as_bool(spec.get("new", False))
                    and ftype is not None and f.get("name") == ftype["name"]]
            if spec.get("id") is None and len(same) > 1:
                raise BugzillaError(32000, "You must specify the id of the %s flag to change."
                                    % ftype["name"])
            if same:
                flag = same[0]
                if status == "X":
                    flags.remove(flag)
                    continue
            elif status == "X":
                continue
            elif ftype is None or not ftype["is_active"]:
                raise BugzillaError(1, "There is no flag type named '%s'."
                                    % (spec.get("name") or spec.get("type_id")))
            else:
                flag = {"id": max([f.get("id") or 0 for b in model.bugs.values()
                                   for f in b["flags"]] + [0]) + 1,
                        "name": ftype["name"], "type_id": ftype["id"],
                        "creation_date": format_time(now)}
                flags.append(flag)
            requestee = spec.get("requestee") or ""
            if requestee:
                if ftype is not None and not ftype["is_requesteeble"]:
                    raise BugzillaError(1, "The %s flag does not take a requestee."
                                        % ftype["name"])
                if requestee not in model.users:
                    raise no_such_user(requestee)
            flag.update({"status": status, "setter": user["login"], "requestee": requestee,
                         "modification_date": format_time(now)})
        return flags

    def plan_update(self, bug, p, user, now):
        """Validates an update of one bug (Bug.update parameters p) and
        returns the plan commit_update() carries out; raises before anything
        changed, so a failed update changes nothing."""
        model = self.model
        new = {k: copy.deepcopy(v) for k, v in bug.items()
               if k not in ("comments", "attachments", "history")}
        changes = {}
        list_changes = {}

        def set_field(name, value):
            if new.get(name) != value:
                changes[name] = {"removed": change_text(new.get(name)),
                                 "added": change_text(value)}
                new[name] = value

        for name in ("summary", "version", "platform", "op_sys", "severity", "priority",
                     "target_milestone", "url", "whiteboard"):
            if name in p:
                set_field(name, "" if p[name] is None else str(p[name]))
        if "summary" in p and not new["summary"].strip():
            raise BugzillaError(107, "You must enter a summary for this bug.")
        if "deadline" in p:
            set_field("deadline", p["deadline"] or None)
        if "product" in p or "component" in p:
            product = model.products.get(p.get("product", new["product"]))
            if product is None:
                raise BugzillaError(106, "Sorry, either the product %s does not exist or you "
                                         "aren't authorized to enter a bug into it."
                                    % p.get("product"))
            component = p.get("component", new["component"])
            if component not in product["components"]:
                raise BugzillaError(51, "There is no component named '%s' in the '%s' "
                                        "product." % (component, product["name"]))
            set_field("product", product["name"])
            set_field("component", component)
        if "product" in p or "version" in p:
            # as Bugzilla::Bug::set_product() outside the browser: the bug's
            # version (or the one given) must be one of the product's
            product = model.products[new["product"]]
            if new["version"] not in product["versions"]:
                raise BugzillaError(51, "There is no version named '%s' in the '%s' product."
                                    % (new["version"], product["name"]))
        if "product" in p or "target_milestone" in p:
            # and the milestone: with usetargetmilestone on, the bug's (or
            # the one given) must be one of the product's; with it off, a
            # move to another product resets it to the product's default
            product = model.products[new["product"]]
            if "target_milestone" not in p and new["product"] != bug["product"] \
                    and not as_bool(model.params.get("usetargetmilestone", "0")):
                set_field("target_milestone", (product["milestones"] or ["---"])[0])
            elif new["target_milestone"] not in product["milestones"]:
                raise BugzillaError(51, "There is no milestone named '%s' in the '%s' product."
                                    % (new["target_milestone"], product["name"]))
        for name in ("assigned_to", "qa_contact"):
            if as_bool(p.get("reset_" + name, False)):
                product = model.products[new["product"]]
                default = product["components"][new["component"]]["default_" + (
                    "assigned_to" if name == "assigned_to" else "qa_contact")]
                set_field(name, default or (new["creator"] if name == "assigned_to" else ""))
            elif name in p:
                login = p[name] or ""
                if login and login not in model.users:
                    raise no_such_user(login)
                set_field(name, login)

        # status, resolution and duplicates, as Bugzilla::Bug::set_bug_status
        target = None
        if p.get("dupe_of") not in (None, ""):
            target = model.visible_bug(user, p["dupe_of"])
            if target["id"] == bug["id"]:
                raise BugzillaError(118, "You can't mark a bug as a duplicate of itself.")
        status = p.get("status")
        if status is not None and status not in model.open_statuses \
                and status not in model.closed_statuses:
            raise BugzillaError(51, "There is no status named '%s'." % status)
        final_status = status if status is not None else new["status"]
        if target is not None and model.is_open_status(final_status):
            final_status = "RESOLVED"
        resolution = p.get("resolution")
        if target is not None:
            resolution = "DUPLICATE"
        if resolution is not None:
            resolution = "" if resolution in (None, "---") else str(resolution)
            if resolution and resolution not in model.resolutions:
                raise BugzillaError(51, "There is no resolution named '%s'." % resolution)
        if model.is_open_status(final_status):
            if resolution:
                raise BugzillaError(122, "You cannot set a resolution for open bugs.")
            final_resolution = ""
        else:
            final_resolution = resolution if resolution is not None else new["resolution"]
            if not final_resolution:
                raise BugzillaError(121, "You must specify a resolution when changing the "
                                         "status of a bug to %s." % final_status)
        if final_resolution == "DUPLICATE" and target is None and new["dupe_of"] is None:
            raise BugzillaError(119, "If you are going to mark a bug as a duplicate, you "
                                     "must specify the bug number it is a duplicate of.")
        set_field("status", final_status)
        set_field("resolution", final_resolution)
        if target is not None:
            set_field("dupe_of", target["id"])
        elif final_resolution != "DUPLICATE" and new["dupe_of"] is not None:
            set_field("dupe_of", None)
        if model.is_open_status(final_status) and final_status != "UNCONFIRMED" \
                and not new["is_confirmed"]:
            set_field("is_confirmed", True)

        for name in ("cc", "keywords", "groups", "see_also", "alias", "blocks", "depends_on"):
            if name not in p:
                continue
            old_list = new[name]
            new_list = self._list_update(name, old_list, p[name])
            if name in ("blocks", "depends_on"):
                for other in new_list:
                    if other not in old_list:
                        model.visible_bug(user, other)
            if name == "cc":
                for login in new_list:
                    if login not in model.users:
                        raise no_such_user(login)
                # Bug::remove_cc (5.2): each name removed is a user
                # (User->check), and only a user who can edit the bug
                # (editbugs, its assignee or QA contact; not its reporter)
                # takes another person off, even one not on the list:
                # cc_remove_denied, which has no code of its own
                removing = as_list(p[name].get("remove")) if isinstance(p[name], dict) else []
                for login in removing:
                    if login not in model.users:
                        raise no_such_user(login)
                # Bug::add_cc -> _check_strict_isolation_for_user: with
                # strict_isolation, a user added must be able to edit the
                # product (User::can_edit_product: in each CANEDIT group)
                product = model.products.get(new["product"]) or {}
                for login in new_list:
                    if login not in old_list and model.params.get("strict_isolation") and \
                            not all(model.in_group(model.users[login], g)
                                    for g in product.get("canedit_groups") or []):
                        raise BugzillaError(
                            504, "User '%s' is not able to edit the '%s' Product, and so "
                                 "cannot be involved with bug %d." % (login, new["product"],
                                                                      bug["id"]))
                canedit = model.can_edit_bugs(user) or user["login"] in (
                    bug["assigned_to"], bug["qa_contact"])
                if not canedit and any(login != user["login"] for login in removing):
                    raise BugzillaError(32000, "You do not have permission to remove other "
                                               "people from the CC list.")
            added = [x for x in new_list if x not in old_list]
            removed = [x for x in old_list if x not in new_list]
            if added or removed:
                changes[name] = {"removed": change_text(removed), "added": change_text(added)}
                list_changes[name] = (added, removed)
                new[name] = new_list
        if model.keywords is not None and "keywords" in p:
            for keyword in new["keywords"]:
                if keyword not in model.keywords:
                    raise BugzillaError(51, "There is no keyword named '%s'." % keyword)
        if "flags" in p:
            flags = self._flags_update(new["flags"], p["flags"], user, now)
            if flags != new["flags"]:
                old_text = ", ".join(f["name"] + f["status"] for f in new["flags"])
                changes["flagtypes.name"] = {
                    "removed": old_text,
                    "added": ", ".join(f["name"] + f["status"] for f in flags)}
                new["flags"] = flags
        for name in ("is_cc_accessible", "is_creator_accessible"):
            if name in p:
                set_field(name, as_bool(p[name]))
        for name, value in p.items():
            if not name.startswith("cf_"):
                continue
            field = model.fields.get(name) or model.declare_field(name, {})
            if field["values"] is not None:
                for item in as_list(value):
                    if item not in field["values"]:
                        raise BugzillaError(51, "There is no %s named '%s'."
                                            % (field["description"], item))
            set_field(name, value)

        privileged = model.can_edit_bugs(user) or user["login"] in (
            bug["creator"], bug["assigned_to"], bug["qa_contact"])
        if not privileged:
            for name, change in changes.items():
                if name == "cc":
                    continue
                raise BugzillaError(
                    115, "You tried to change the %s field from %s to %s, but only the "
                         "assignee or reporter of the bug, or a user with the required "
                         "permissions may change that field."
                    % (FIELD_DESCRIPTIONS.get(name, name), change["removed"] or "(nothing)",
                       change["added"] or "(nothing)"))

        comment = None
        spec = p.get("comment")
        if isinstance(spec, str):
            spec = {"body": spec}
        if isinstance(spec, dict):
            text = spec.get("body", spec.get("comment", spec.get("text"))) or ""
            is_private = as_bool(spec.get("is_private", False))
            if is_private and not model.is_insider(user):
                raise BugzillaError(113, "Sorry, but you are not allowed to (un)mark comments "
                                         "or attachments as private.")
            if len(text) > 65535:
                raise BugzillaError(114, "Comments cannot be longer than 65,535 characters.")
            if text.strip() or target is not None:
                comment = {"text": text, "is_private": is_private}
        elif target is not None:
            comment = {"text": "", "is_private": False}
        if target is not None:
            line = "*** This bug has been marked as a duplicate of bug %d ***" % target["id"]
            comment["text"] = comment["text"] + "\n\n" + line if comment["text"] else line
        # comment_is_private: {"<comment id>": true|false}, insiders only, as 5.2
        privacy = []
        for cid, value in (p.get("comment_is_private") or {}).items():
            if not model.is_insider(user):
                raise BugzillaError(113, "Sorry, but you are not allowed to (un)mark comments "
                                         "or attachments as private.")
            found = [c for c in bug["comments"] if str(c["id"]) == str(cid)]
            if not found:
                raise BugzillaError(133, "Comment #%s does not belong to bug %d." % (cid, bug["id"]))
            if found[0]["is_private"] != as_bool(value):
                privacy.append((found[0], as_bool(value)))
        return {"bug": bug, "new": new, "changes": changes, "list_changes": list_changes,
                "comment": comment, "dupe_target": target, "privacy": privacy}

    def commit_update(self, plan, user, now):
        """Carries out a plan from plan_update(); returns the answer item."""
        model = self.model
        bug = plan["bug"]
        for key, value in plan["new"].items():
            bug[key] = value
        changes = plan["changes"]
        if changes:
            bug["history"].append({"when": now, "who": user["login"], "changes": [
                {"field_name": name, "removed": c["removed"], "added": c["added"]}
                for name, c in changes.items()]})
        if plan["comment"]:
            model.add_comment(bug, {"text": plan["comment"]["text"], "creator": user["login"],
                                    "creation_time": now,
                                    "is_private": plan["comment"]["is_private"]}, bump=False)
        for comment, value in plan.get("privacy") or []:
            # as bugs_activity has it: longdescs.isprivate with the comment
            comment["is_private"] = value
            bug["history"].append({"when": now, "who": user["login"], "changes": [
                {"field_name": "longdescs.isprivate", "removed": "0" if value else "1",
                 "added": "1" if value else "0", "comment_id": comment["id"],
                 "comment_count": comment.get("count", 0)}]})
        if changes or plan["comment"] or plan.get("privacy"):
            bug["last_change_time"] = now
        target = plan["dupe_target"]
        if target is not None:
            model.add_comment(target, {
                "text": "*** Bug %d has been marked as a duplicate of this bug. ***" % bug["id"],
                "creator": user["login"], "creation_time": now}, bump=False)
            target["last_change_time"] = now
        # dependencies are two-sided: the other bug changes too
        for name, other_name in (("blocks", "depends_on"), ("depends_on", "blocks")):
            added, removed = plan["list_changes"].get(name, ([], []))
            for other_id, adding in [(x, True) for x in added] + [(x, False) for x in removed]:
                other = model.bugs.get(int(other_id))
                if other is None:
                    continue
                if adding and bug["id"] not in other[other_name]:
                    other[other_name].append(bug["id"])
                elif not adding and bug["id"] in other[other_name]:
                    other[other_name].remove(bug["id"])
                else:
                    continue
                other["history"].append({"when": now, "who": user["login"], "changes": [
                    {"field_name": other_name, "removed": "" if adding else str(bug["id"]),
                     "added": str(bug["id"]) if adding else ""}]})
                other["last_change_time"] = now
        return {"id": bug["id"], "alias": list(bug["alias"]),
                "changes": {name: dict(c) for name, c in changes.items()},
                "last_change_time": format_time(bug["last_change_time"])}

    # --- searching ------------------------------------------------------------

    @staticmethod
    def _field_strings(bug, field):
        if field == "flagtypes.name":
            return [change_text(f.get("name")) + change_text(f.get("status"))
                    for f in bug.get("flags") or [] if isinstance(f, dict)]
        value = bug.get(field)
        if field in ("creation_time", "last_change_time") and value is not None:
            return [format_time(value)]
        if isinstance(value, list):
            return [change_text(v) for v in value]
        if isinstance(value, bool):
            return ["1" if value else "0"]
        return [change_text(value)]

    def _chart_predicate(self, field, op, value, now):
        """One boolean-chart term (fN/oN/vN) as a predicate on a bug."""
        if field.startswith("cf_"):
            bug_field = field
        elif field == "flagtypes.name":
            # a flag's name and status run together ("bugbot+"), as
            # Bugzilla::Search's CONCAT(flagtypes.name, flags.status)
            bug_field = "flagtypes.name"
        else:
            bug_field = CHART_FIELDS.get(field)
        if bug_field is None:
            raise BugzillaError(108, "Can't use %s as a field name." % field)
        words = value.split()
        values = [v.strip() for v in value.split(",")]
        time_field = bug_field in ("creation_time", "last_change_time")

        def as_number(text):
            if time_field:
                return parse_time(text, now) if isinstance(text, str) else text
            try:
                return float(text)
            except (TypeError, ValueError):
                return text

        def test(bug):
            strings = self._field_strings(bug, bug_field)
            if bug_field == "resolution":
                strings = [s or "---" for s in strings]
            joined = " ".join(strings)
            lower = [s.lower() for s in strings]
            if op == "equals":
                return value.lower() in lower
            if op == "notequals":
                return value.lower() not in lower
            if op == "anyexact":
                return any(v.lower() in lower for v in values)
            if op == "substring":
                return value.lower() in joined.lower()
            if op == "casesubstring":
                return value in joined
            if op == "notsubstring":
                return value.lower() not in joined.lower()
            if op in ("regexp", "notregexp"):
                found = any(re.search(value, s, re.I) for s in strings)
                return found if op == "regexp" else not found
            if op in ("anywordssubstr", "allwordssubstr"):
                hits = [w.lower() in joined.lower() for w in words]
                return any(hits) if op == "anywordssubstr" else all(hits)
            if op in ("anywords", "allwords", "nowords"):
                tokens = set(re.split(r"[\s,]+", joined.lower()))
                hits = [w.lower() in tokens for w in words]
                if op == "nowords":
                    return not any(hits)
                return any(hits) if op == "anywords" else all(hits)
            if op == "isempty":
                return not joined.strip()
            if op == "isnotempty":
                return bool(joined.strip())
            if op in ("lessthan", "lessthaneq", "greaterthan", "greaterthaneq",
                      "changedafter", "changedbefore"):
                raw = bug.get(bug_field)
                left = raw if time_field else as_number(strings[0] if strings else "")
                right = as_number(value)
                if left is None or right is None or type(left) is not type(right) \
                        and not (isinstance(left, (int, float))
                                 and isinstance(right, (int, float))):
                    return False
                if op in ("lessthan", "changedbefore"):
                    return left < right
                if op == "lessthaneq":
                    return left <= right
                if op in ("greaterthan", "changedafter"):
                    return left > right
                return left >= right
            raise BugzillaError(108, "Can't use %s as a search operator." % op)
        return test

    def search(self, req):
        """Bug.search: the bugs a GET /rest/bug matches, ordered and paged."""
        model = self.model
        now = model.clock.now()
        tests = []
        for name, values in req.query.items():
            if name in SEARCH_PARAMS:
                field, kind = SEARCH_PARAMS[name]
            elif name.startswith("cf_"):
                field, kind = name, "exact"
            else:
                continue
            values = [v for v in values if v != ""] if kind != "exact" else values
            if not values:
                continue
            if kind == "id":
                wanted = set()
                for text in split_commas(values):
                    if is_integer_text(text):
                        wanted.add(int(text))
                    else:
                        try:
                            wanted.add(model.bug_by_text(text)["id"])
                        except BugzillaError:
                            pass
                tests.append(lambda bug, wanted=wanted: bug["id"] in wanted)
            elif kind == "since":
                when = parse_time(values[0], now)
                if when is None:
                    raise not_a_legal_date(values[0])
                tests.append(lambda bug, f=field, w=when: bug[f] >= w)
            elif kind == "substring":
                lowered = [v.lower() for v in values]
                tests.append(lambda bug, f=field, vs=lowered:
                             any(v in str(bug.get(f) or "").lower() for v in vs))
            elif kind == "resolution":
                wanted = {"" if v == "---" else v.lower() for v in values}
                tests.append(lambda bug, ws=wanted: bug["resolution"].lower() in ws)
            else:   # exact and list: any value, case-insensitively
                wanted = {v.lower() for v in values}
                tests.append(lambda bug, f=field, ws=wanted: any(
                    s.lower() in ws for s in self._field_strings(bug, f)))
        quick = req.value("quicksearch")
        if quick:
            words = quick.lower().split()

            def quick_test(bug, words=words):
                hay = " ".join([bug["summary"], " ".join(bug["alias"]), bug["whiteboard"],
                                " ".join(bug["keywords"])]).lower()
                return all(w in hay or (w.isdigit() and int(w) == bug["id"]) for w in words)
            tests.append(quick_test)
        # The custom search: fN/oN/vN terms in the order of N; fN=OP opens
        # a group joined by its jN (AND unless OR), fN=CP closes it; the top
        # level is joined by j_top; nN negates a term or a group.
        def joined(terms, joiner):
            if joiner == "OR":
                return lambda bug, ts=terms: any(t(bug) for t in ts)
            return lambda bug, ts=terms: all(t(bug) for t in ts)
        numbers = sorted(int(m.group(1)) for m in
                         (re.fullmatch(r"f(\d+)", name) for name in req.query) if m)
        stack = [((req.value("j_top") or "AND").upper(), [], False)]
        for number in numbers:
            n = str(number)
            field = req.query["f" + n][0]
            negate = as_bool(req.value("n" + n, False))
            if field == "OP":
                stack.append(((req.value("j" + n) or "AND").upper(), [], negate))
                continue
            if field == "CP":
                if len(stack) > 1:
                    joiner, terms, negated = stack.pop()
                    test = joined(terms, joiner)
                    if negated:
                        test = (lambda t: lambda bug: not t(bug))(test)
                    if terms:
                        stack[-1][1].append(test)
                continue
            if field in ("", "noop"):
                continue
            test = self._chart_predicate(field, req.value("o" + n, "equals"),
                                         req.value("v" + n, ""), now)
            if negate:
                test = (lambda t: lambda bug: not t(bug))(test)
            stack[-1][1].append(test)
        while len(stack) > 1:      # an unclosed group closes at the end
            joiner, terms, negated = stack.pop()
            if terms:
                test = joined(terms, joiner)
                stack[-1][1].append((lambda t: lambda bug: not t(bug))(test)
                                    if negated else test)
        if stack[0][1]:
            tests.append(joined(stack[0][1], stack[0][0]))

        found = [bug for bug in model.bugs.values()
                 if model.can_see_bug(req.user, bug) and all(t(bug) for t in tests)]
        found.sort(key=lambda bug: bug["id"])
        order = req.value("order")
        if order:
            terms = []
            for term in order.split(","):
                words = term.split()
                if not words:
                    continue
                field = ORDER_COLUMNS.get(words[0])
                if field is not None:
                    terms.append((field, len(words) > 1 and words[1].upper() == "DESC"))
            for field, descending in reversed(terms):     # stable sorts, last key first
                if field in ("id", "creation_time", "last_change_time"):
                    found.sort(key=lambda bug, f=field: bug[f], reverse=descending)
                else:
                    found.sort(key=lambda bug, f=field: str(bug.get(f) or "").lower(),
                               reverse=descending)

        def number(name):
            text = req.value(name)
            return int(text) if text is not None and is_integer_text(text) else 0
        offset, limit = number("offset"), number("limit")
        if offset:
            found = found[offset:]
        if limit:
            found = found[:limit]
        return found

    # --- the XML export -------------------------------------------------------

    def show_bug_cgi(self, req):
        model = self.model
        ids = []
        for value in req.query.get("id", []):
            ids.extend(part.strip() for part in value.split(",") if part.strip())
        if req.value("ctype") != "xml":
            if not ids:
                return html_error_page("Search by bug number",
                                       "You may find a single bug by entering its bug id.",
                                       model.clock.now())
            try:
                bug = model.visible_bug(None, ids[0])
            except BugzillaError as e:
                return html_error_page("Invalid Bug ID", e.message, model.clock.now())
            page = "<!DOCTYPE html>\n<html><head><title>%d &ndash; %s</title></head>" \
                   "<body></body></html>\n" % (bug["id"], html_quote(bug["summary"]))
            return Response(200, page.encode("utf-8"), "text/html; charset=UTF-8")
        excluded = set(req.query.get("excludefield", []))
        fields = set(req.query.get("field", []))
        out = ['<?xml version="1.0" encoding="UTF-8" standalone="yes" ?>',
               '<!DOCTYPE bugzilla SYSTEM "%spage.cgi?id=bugzilla.dtd">' % xml_quote(
                   self.urlbase()),
               "",
               '<bugzilla version="%s"' % xml_quote(self.version),
               '          urlbase="%s"' % xml_quote(self.urlbase()),
               "          ",
               '          maintainer="%s"' % xml_quote(model.maintainer),
               ">", ""]
        missing_error = model.quirks.get("xml_missing_error") or "InvalidBugId"
        for text in ids:
            error, bug = None, None
            try:
                bug = model.bug_by_text(text)
            except BugzillaError as e:
                error = missing_error if e.code == 101 else "InvalidBugId"
            if bug is not None and not model.can_see_bug(None, bug):
                error, text = "NotPermitted", str(bug["id"])
            if error:
                out += ['    <bug error="%s">' % error,
                        "      <bug_id>%s</bug_id>" % xml_quote(text), "    </bug>"]
            else:
                out += self.xml_bug(bug, excluded, fields)
        out += ["", "</bugzilla>", ""]
        return Response(200, "\n".join(out).encode("utf-8"), "application/xml; charset=UTF-8")

    def xml_bug(self, bug, excluded, fields):
        """One <bug> of an anonymous export (logins shown without @domain,
        private comments and attachments left out)."""
        model = self.model

        def email(login):
            return login.split("@", 1)[0]

        def person(tag, login, indent="          "):
            user = model.user(login, create=False)
            name = user["real_name"] if user else ""
            attr = ' name="%s"' % xml_quote(name) if name else ""
            return (tag, '%s<%s%s>%s</%s>' % (indent, tag, attr, xml_quote(email(login)), tag))

        def el(tag, value):
            return (tag, "          <%s>%s</%s>" % (tag, xml_quote(change_text(value)), tag))

        parts = [el("bug_id", bug["id"])]
        parts += [el("alias", a) for a in bug["alias"]]
        parts += [el("creation_ts", format_xml_time(bug["creation_time"])),
                  el("short_desc", bug["summary"]),
                  el("delta_ts", format_xml_time(bug["last_change_time"])),
                  el("reporter_accessible", int(bug["is_creator_accessible"])),
                  el("cclist_accessible", int(bug["is_cc_accessible"])),
                  el("classification_id", 1), el("classification", bug["classification"]),
                  el("product", bug["product"]), el("component", bug["component"]),
                  el("version", bug["version"]), el("rep_platform", bug["platform"]),
                  el("op_sys", bug["op_sys"]), el("bug_status", bug["status"]),
                  el("resolution", bug["resolution"])]
        if bug["dupe_of"] is not None:
            parts.append(el("dup_id", bug["dupe_of"]))
        parts += [el("see_also", s) for s in bug["see_also"]]
        parts += [el("bug_file_loc", bug["url"]), el("status_whiteboard", bug["whiteboard"]),
                  el("keywords", ", ".join(bug["keywords"])), el("priority", bug["priority"]),
                  el("bug_severity", bug["severity"]),
                  el("target_milestone", bug["target_milestone"])]
        parts += [el("dependson", d) for d in bug["depends_on"]]
        parts += [el("blocked", b) for b in bug["blocks"]]
        parts += [el("everconfirmed", int(bug["is_confirmed"])),
                  person("reporter", bug["creator"]), person("assigned_to", bug["assigned_to"])]
        parts += [("cc", "          <cc>%s</cc>" % xml_quote(email(c))) for c in bug["cc"]]
        if bug["qa_contact"]:
            parts.append(person("qa_contact", bug["qa_contact"]))
        for name in sorted(model.fields):
            parts += [el(name, v) for v in as_list(bug.get(name))]
        for group in bug["groups"]:
            info = model.groups.get(group) or {"id": 0}
            parts.append(("group", '          <group id="%d">%s</group>'
                          % (info["id"], xml_quote(group))))
        for flag in bug["flags"]:
            attrs = " ".join('%s="%s"' % (k, xml_quote(change_text(flag[k])))
                             for k in ("name", "id", "type_id", "status", "setter",
                                       "requestee") if k in flag)
            parts.append(("flag", "          <flag %s\n          />" % attrs))
        comments = []
        for c in bug["comments"]:
            if c["is_private"]:
                continue
            lines = ['          <long_desc isprivate="0" >',
                     "    <commentid>%d</commentid>" % c["id"],
                     "    <comment_count>%d</comment_count>" % c["count"]]
            if c["attachment_id"]:
                lines.append("      <attachid>%d</attachid>" % c["attachment_id"])
            lines += [person("who", c["creator"], "    ")[1],
                      "    <bug_when>%s</bug_when>" % format_xml_time(c["creation_time"]),
                      "    <thetext>%s</thetext>" % xml_quote(c["text"]),
                      "  </long_desc>"]
            comments.append("\n".join(lines))
        if comments:
            parts.append(("long_desc", "\n          <comment_sort_order>oldest_to_newest"
                          "</comment_sort_order>  \n" + "".join(comments)))
        for a in bug["attachments"]:
            if a["is_private"]:
                continue
            lines = ["          <attachment",
                     '              isobsolete="%d"' % a["is_obsolete"],
                     '              ispatch="%d"' % a["is_patch"],
                     '              isprivate="0"',
                     "          >",
                     "            <attachid>%d</attachid>" % a["id"],
                     "            <date>%s</date>" % format_xml_time(a["creation_time"]),
                     "            <delta_ts>%s</delta_ts>" % format_xml_time(
                         a["last_change_time"]),
                     "            <desc>%s</desc>" % xml_quote(a["summary"]),
                     "            <filename>%s</filename>" % xml_quote(a["file_name"]),
                     "            <type>%s</type>" % xml_quote(a["content_type"]),
                     "            <size>%d</size>" % len(a["data"]),
                     person("attacher", a["creator"], "            ")[1],
                     "            "]
            if "attachmentdata" not in excluded:
                lines.append('              <data encoding="base64">%s</data>'
                             % base64.encodebytes(a["data"]).decode("ascii"))
            lines += ["", "          </attachment>"]
            parts.append(("attachment", "\n".join(lines)))
        if fields:
            parts = [p for p in parts if p[0] in fields or p[0] == "bug_id"]
        parts = [p for p in parts if p[0] not in excluded or p[0] == "bug_id"]
        return ["    <bug>"] + [p[1] for p in parts] + ["", "    </bug>"]

    # --- attachment.cgi ---------------------------------------------------------

    def attachment_cgi(self, req):
        """Raw attachment bytes; always anonymous (Bugzilla 5 reads API keys
        only on its web services)."""
        model = self.model
        now = model.clock.now()
        text = req.value("id")
        if text is None or not is_integer_text(text):
            return html_error_page("Invalid Attachment ID",
                                   "The attachment id %s is invalid." % (text or ""), now)
        attachment = model.attachments.get(int(text))
        if attachment is None:
            return html_error_page("Invalid Attachment ID",
                                   "The attachment id %d is invalid." % int(text), now)
        bug = model.bugs[attachment["bug_id"]]
        if not model.can_see_bug(None, bug):
            return html_error_page("Authorization Required",
                                   "You are not authorized to access bug #%d. To see this "
                                   "bug, you must first log in to an account with the "
                                   "appropriate permissions." % bug["id"], now)
        if attachment["is_private"]:
            return html_error_page("Authorization Required",
                                   "Sorry, you are not authorized to access attachment #%d."
                                   % attachment["id"], now)
        name = mime_q_encode(attachment["file_name"])
        return Response(200, attachment["data"],
                        '%s; name="%s"; charset=' % (attachment["content_type"], name),
                        headers=[("Content-Disposition", 'attachment; filename="%s"' % name)])


# ---------------------------------------------------------------------------
# REST resources (paths after /rest); each returns (HTTP status, object)
# ---------------------------------------------------------------------------

@route(r"/version", "GET")
def rest_version(app, req):
    return 200, {"version": app.version}


@route(r"/time", "GET")
def rest_time(app, req):
    now = format_time(app.model.clock.now())
    return 200, {"db_time": now, "web_time": now, "web_time_utc": now, "tz_name": "UTC",
                 "tz_offset": "+0000", "tz_short_name": "UTC"}


@route(r"/timezone", "GET")
def rest_timezone(app, req):
    return 200, {"timezone": "+0000"}


@route(r"/extensions", "GET")
def rest_extensions(app, req):
    return 200, {"extensions": {}}


@route(r"/parameters", "GET")
def rest_parameters(app, req):
    params = {"maintainer": app.model.maintainer, "urlbase": app.urlbase(),
              "requirelogin": "0", "allowemailchange": "1", "maxattachmentsize": "1000",
              "defaultopsys": app.model.params.get("defaultopsys", ""),
              "defaultplatform": app.model.params.get("defaultplatform", ""),
              "usetargetmilestone": app.model.params.get("usetargetmilestone", "0")}
    if req.user:
        params["insidergroup"] = app.model.params.get("insidergroup")
        params["timetrackinggroup"] = app.model.params.get("timetrackinggroup")
    return 200, {"parameters": params}


@route(r"/login", "GET", "POST")
def rest_login(app, req):
    login, password = req.value("login"), req.value("password")
    if not login:
        raise param_required("login")
    user = app.check_password(login, password)
    token = "%d-%s" % (user["id"], hashlib.sha256(os.urandom(16)).hexdigest()[:10])
    app.model.tokens[token] = user["login"]
    return 200, {"id": user["id"], "token": token}


@route(r"/logout", "GET", "POST")
def rest_logout(app, req):
    app.model.tokens.pop(req.value("token") or "", None)
    return 200, {"result": None}


@route(r"/valid_login", "GET")
def rest_valid_login(app, req):
    token, login = req.value("token") or "", req.value("login") or ""
    return 200, {"result": app.model.tokens.get(token) == login}


@route(r"/whoami", "GET")
def rest_whoami(app, req):
    user = app.require_login(req)
    return 200, {"id": user["id"], "real_name": user["real_name"], "name": user["login"],
                 "login": user["login"]}


# --- users ----------------------------------------------------------------

def user_json(app, user, req):
    out = {"id": user["id"], "real_name": user["real_name"], "name": user["login"]}
    viewer = req.user
    if viewer:
        out["email"] = user["email"]
        out["can_login"] = user["can_login"]
        if viewer["login"] == user["login"] or app.model.in_group(viewer, "editusers"):
            out["email_enabled"] = True
            out["login_denied_text"] = "" if user["can_login"] else "disabled"
            out["groups"] = [dict(app.model.groups[g]) for g in user["groups"]
                             if g in app.model.groups]
            out["saved_searches"] = []
            out["saved_reports"] = []
    return out


@route(r"/user", "GET")
@route(r"/user/([^/]+)", "GET")
def rest_user(app, req, who=None):
    model = app.model
    names, ids = list(req.values("names")), list(req.values("ids"))
    if who is not None:
        (ids if is_integer_text(who) else names).append(who)
    for argument, values in (("ids", ids), ("match", req.values("match"))):
        if values and not req.user:
            raise BugzillaError(505, "Logged-out users cannot use the '%s' argument to this "
                                     "function to access any user information." % argument)
    users, seen = [], set()
    for name in names:
        user = model.users.get(name)
        if user is None:
            raise no_such_user(name)
        if user["login"] not in seen:
            seen.add(user["login"])
            users.append(user)
    for text in ids:
        user = model.user_by_id(int(text)) if is_integer_text(text) else None
        if user is None:
            raise BugzillaError(51, "There is no user with the id '%s'." % text)
        if user["login"] not in seen:
            seen.add(user["login"])
            users.append(user)
    for pattern in req.values("match"):
        for user in model.users.values():
            hay = (user["login"] + " " + user["real_name"]).lower()
            if pattern.lower() in hay and user["login"] not in seen:
                seen.add(user["login"])
                users.append(user)
    include, exclude = req.fields_filter()
    return 200, {"users": [filter_fields(user_json(app, u, req), include, exclude)
                           for u in users]}


# --- products and fields ----------------------------------------------------

def product_json(product, flag_types=()):
    return {
        "id": product["id"], "name": product["name"], "description": product["description"],
        "classification": product["classification"], "is_active": product["is_active"],
        "default_milestone": (product["milestones"] or ["---"])[0], "has_unconfirmed": True,
        "components": [{"id": c["id"], "name": c["name"], "description": c["description"],
                        "default_assigned_to": c["default_assigned_to"],
                        "default_qa_contact": c["default_qa_contact"], "sort_key": 0,
                        "is_active": c["is_active"],
                        "flag_types": {"bug": [flag_type_json(t) for t in flag_types],
                                       "attachment": []}}
                       for c in product["components"].values()],
        "versions": [{"id": i + 1, "name": v, "sort_key": 0, "is_active": True}
                     for i, v in enumerate(product["versions"])],
        "milestones": [{"id": i + 1, "name": m, "sort_key": 0, "is_active": True}
                       for i, m in enumerate(product["milestones"])],
    }


@route(r"/product", "GET")
@route(r"/product/([^/]+)", "GET")
def rest_product(app, req, which=None):
    products = app.model.products
    names, ids = list(req.values("names")), [str(i) for i in req.values("ids")]
    if which is not None:
        (ids if is_integer_text(which) else names).append(which)
    wanted = [p for p in products.values()
              if p["name"] in names or str(p["id"]) in ids]
    include, exclude = req.fields_filter()
    return 200, {"products": [filter_fields(product_json(p, app.model.flag_types), include, exclude)
                              for p in wanted]}


def flag_type_json(ftype):
    return {"id": ftype["id"], "name": ftype["name"], "description": ftype["description"],
            "type": "bug", "cc_list": [], "sort_key": 0, "is_active": ftype["is_active"],
            "is_requestable": ftype["is_requestable"],
            "is_requesteeble": ftype["is_requesteeble"],
            "is_multiplicable": ftype["is_multiplicable"], "grant_group": None,
            "request_group": None, "inclusions": {"0:0": "__Any__:__Any__"}, "exclusions": {}}


@route(r"/flag_type/([^/]+)", "GET")
@route(r"/flag_type/([^/]+)/([^/]+)", "GET")
def rest_flag_types(app, req, product_name, component=None):
    """FlagType.get (Bugzilla 5.0): the flag types of a product's
    component; here every component has the state's flag_types."""
    product = app.model.products.get(product_name)
    if product is None or component is not None and component not in product["components"]:
        raise BugzillaError(106, "Sorry, either the product %s does not exist or you aren't "
                                 "authorized to enter a bug into it." % product_name)
    return 200, {"bug": [flag_type_json(t) for t in app.model.flag_types if t["is_active"]],
                 "attachment": []}


@route(r"/product_accessible", "GET")
@route(r"/product_selectable", "GET")
@route(r"/product_enterable", "GET")
def rest_product_ids(app, req):
    return 200, {"ids": [p["id"] for p in app.model.products.values()]}


DEFAULT_FIELD_VALUES = {   # as a stock 5.2 has them (fixture 026)
    "priority": ["Highest", "High", "Normal", "Low", "Lowest", "---"],
    "bug_severity": ["blocker", "critical", "major", "normal", "minor", "trivial",
                     "enhancement"],
    "op_sys": ["All", "Windows", "Mac OS", "Linux", "Other"],
    "rep_platform": ["All", "PC", "Macintosh", "Other"],
}
STANDARD_FIELDS = {   # field name -> (id, display name, bug field)
    "bug_status": (9, "Status", "status"), "resolution": (12, "Resolution", "resolution"),
    "priority": (14, "Priority", "priority"), "bug_severity": (13, "Severity", "severity"),
    "op_sys": (8, "OS/Version", "op_sys"), "rep_platform": (6, "Platform", "platform"),
}
# The other fields of a stock 5.2's GET /rest/field/bug (fixture 026), in id
# order: name, id, display name, type (0 plain, 2 select, 5 datetime,
# 7 bug URLs, 8 keywords); select ones (2) take their values from the state.
OTHER_FIELDS = [
    ("bug_id", 1, "Bug #", 0), ("short_desc", 2, "Summary", 0),
    ("classification", 3, "Classification", 2), ("product", 4, "Product", 2),
    ("version", 5, "Version", 0), ("bug_file_loc", 7, "URL", 0),
    ("status_whiteboard", 10, "Status Whiteboard", 0), ("keywords", 11, "Keywords", 8),
    ("component", 15, "Component", 2), ("assigned_to", 16, "AssignedTo", 0),
    ("reporter", 17, "ReportedBy", 0), ("qa_contact", 18, "QAContact", 0),
    ("assigned_to_realname", 19, "AssignedToName", 0),
    ("reporter_realname", 20, "ReportedByName", 0),
    ("qa_contact_realname", 21, "QAContactName", 0), ("cc", 22, "CC", 0),
    ("dependson", 23, "Depends on", 0), ("blocked", 24, "Blocks", 0),
    ("attachments.description", 25, "Attachment description", 0),
    ("attachments.filename", 26, "Attachment filename", 0),
    ("attachments.mimetype", 27, "Attachment mime type", 0),
    ("attachments.ispatch", 28, "Attachment is patch", 0),
    ("attachments.isobsolete", 29, "Attachment is obsolete", 0),
    ("attachments.isprivate", 30, "Attachment is private", 0),
    ("attachments.submitter", 31, "Attachment creator", 0),
    ("target_milestone", 32, "Target Milestone", 0), ("creation_ts", 33, "Creation date", 0),
    ("delta_ts", 34, "Last changed date", 0), ("longdesc", 35, "Comment", 0),
    ("longdescs.isprivate", 36, "Comment is private", 0),
    ("longdescs.count", 37, "Number of Comments", 0), ("alias", 38, "Alias", 0),
    ("everconfirmed", 39, "Ever Confirmed", 0),
    ("reporter_accessible", 40, "Reporter Accessible", 0),
    ("cclist_accessible", 41, "CC Accessible", 0), ("bug_group", 42, "Group", 0),
    ("estimated_time", 43, "Estimated Hours", 0), ("remaining_time", 44, "Remaining Hours", 0),
    ("deadline", 45, "Deadline", 5), ("commenter", 46, "Commenter", 0),
    ("flagtypes.name", 47, "Flags", 0), ("requestees.login_name", 48, "Flag Requestee", 0),
    ("setters.login_name", 49, "Flag Setter", 0), ("work_time", 50, "Hours Worked", 0),
    ("percentage_complete", 51, "Percentage Complete", 0), ("content", 52, "Content", 0),
    ("attach_data.thedata", 53, "Attachment data", 0),
    ("owner_idle_time", 54, "Time Since Assignee Touched", 0),
    ("see_also", 55, "See Also", 7), ("tag", 56, "Personal Tags", 8),
    ("last_visit_ts", 57, "Last Visit", 5), ("comment_tag", 58, "Comment Tag", 0),
    ("days_elapsed", 59, "Days since bug changed", 0),
]
MANDATORY_FIELDS = {"short_desc", "product", "version", "component"}
# The default workflow of a 5.2 (fixture 028): status -> statuses it may
# change to; None is a new bug.  A status the state adds may go anywhere.
DEFAULT_WORKFLOW = {
    None: ["UNCONFIRMED", "CONFIRMED", "IN_PROGRESS"],
    "UNCONFIRMED": ["CONFIRMED", "IN_PROGRESS", "RESOLVED"],
    "CONFIRMED": ["IN_PROGRESS", "RESOLVED"],
    "IN_PROGRESS": ["CONFIRMED", "RESOLVED"],
    "RESOLVED": ["UNCONFIRMED", "CONFIRMED", "VERIFIED"],
    "VERIFIED": ["UNCONFIRMED", "CONFIRMED"],
}
# "workflow": "kernel.org": Bugzilla 4's default workflow and priorities.
OLD_WORKFLOW = {
    None: ["UNCONFIRMED", "NEW", "ASSIGNED"],
    "UNCONFIRMED": ["NEW", "ASSIGNED", "RESOLVED"],
    "NEW": ["ASSIGNED", "RESOLVED"],
    "ASSIGNED": ["NEW", "RESOLVED"],
    "REOPENED": ["NEW", "ASSIGNED", "RESOLVED"],
    "RESOLVED": ["UNCONFIRMED", "REOPENED", "VERIFIED", "CLOSED"],
    "VERIFIED": ["UNCONFIRMED", "REOPENED", "CLOSED"],
    "CLOSED": ["UNCONFIRMED", "REOPENED"],
}
OLD_FIELD_VALUES = dict(DEFAULT_FIELD_VALUES, priority=["P1", "P2", "P3", "P4", "P5"])


def _field_object(field_id, name, display, type_, values, custom=False, entry=False):
    out = {"id": field_id, "name": name, "display_name": display, "type": type_,
           "is_custom": custom, "is_mandatory": name in MANDATORY_FIELDS,
           "is_on_bug_entry": entry, "visibility_field": None, "visibility_values": []}
    if values is not None:
        out["value_field"] = None
        out["values"] = values
    return out


def _other_field_values(model, name):
    products = list(model.products.values())
    if name == "classification":
        names = sorted({p["classification"] for p in products}) or ["Unclassified"]
    elif name == "component":
        names = [c for p in products for c in p["components"]]
    elif name == "version":
        names = [v for p in products for v in p["versions"]]
    elif name == "target_milestone":
        names = [m for p in products for m in p["milestones"]]
    else:
        names = []
    return [{"name": v, "sort_key": 0, "sortkey": 0, "visibility_values": []} for v in names]


def field_json(app, name):
    """Bug.fields for one field, or None if there is no such field."""
    model = app.model
    if name in model.fields:
        field = model.fields[name]
        values = field["values"]
        return _field_object(field["id"], name, field["description"],
                             2 if values is not None else 1,
                             [{"name": v, "sort_key": i * 10, "sortkey": i * 10,
                               "visibility_values": []} for i, v in enumerate(values or [])],
                             custom=True, entry=True)
    for other, field_id, display, type_ in OTHER_FIELDS:
        if other == name and name == "keywords" and model.keywords is not None:
            return _field_object(field_id, name, display, type_,
                                 [{"name": k, "description": k, "sort_key": 0,
                                   "sortkey": 0, "visibility_values": []}
                                  for k in model.keywords])
        if other == name:
            return _field_object(field_id, name, display, type_,
                                 _other_field_values(model, name)
                                 if name in ("classification", "product", "component",
                                             "version", "target_milestone") else None)
    if name not in STANDARD_FIELDS:
        return None
    field_id, display, bug_field = STANDARD_FIELDS[name]
    if name == "bug_status":
        all_statuses = model.open_statuses + model.closed_statuses
        workflow = OLD_WORKFLOW if model.workflow == "kernel.org" else DEFAULT_WORKFLOW
        values = []
        for s in [None] + all_statuses:
            targets = workflow.get(s)
            if targets is None or s is None and any(t not in workflow
                                                    for t in all_statuses):
                targets = [t for t in all_statuses if t != s and t in all_statuses
                           and (s is not None or model.is_open_status(t))]
            targets = targets + [t for t in model.transitions.get(s, []) if t not in targets]
            targets = [t for t in targets if t in all_statuses]
            value = {"name": s, "can_change_to": [{"name": t, "comment_required": False}
                                                  for t in targets]}
            if s is not None:
                value["is_open"] = model.is_open_status(s)
            values.append(value)
    else:
        names = list(model.resolutions) if name == "resolution" else list(
            (OLD_FIELD_VALUES if model.workflow == "kernel.org" else DEFAULT_FIELD_VALUES)[name])
        if name == "resolution":
            names.insert(0, "")
        for bug in model.bugs.values():
            if bug[bug_field] and bug[bug_field] not in names:
                names.append(bug[bug_field])
        values = [{"name": v} for v in names]
    for i, value in enumerate(values):
        value.update({"sort_key": i * 100, "sortkey": i * 100, "visibility_values": []})
    return _field_object(field_id, name, display, 2, values)


@route(r"/field/bug", "GET")
@route(r"/field/bug/([^/]+)", "GET")
def rest_fields(app, req, which=None):
    names = list(req.values("names")) + ([which] if which else [])
    if not names:
        ids = {n: i for n, i, _, _ in OTHER_FIELDS}
        ids.update({n: v[0] for n, v in STANDARD_FIELDS.items()})
        names = sorted(ids, key=ids.get) + sorted(app.model.fields)
    out = []
    for name in names:
        field = field_json(app, name)
        if field is None:
            raise BugzillaError(51, "There is no field named '%s'." % name)
        out.append(field)
    return 200, {"fields": out}


@route(r"/field/bug/([^/]+)/values", "GET")
def rest_field_values(app, req, which):
    if which == "component":
        raise BugzillaError(50, "The function Bug.legal_values requires a product_id "
                                "argument, and that argument was not set.")
    field = field_json(app, which)
    if field is None:
        raise BugzillaError(51, "There is no field named '%s'." % which)
    return 200, {"values": [v["name"] for v in field["values"]]}


# --- bugs -------------------------------------------------------------------

@route(r"/bug", "GET")
def rest_search(app, req):
    include, exclude = req.fields_filter()
    return 200, {"bugs": [app.bug_json(b, req, include, exclude, for_get=False)
                          for b in app.search(req)]}


@route(r"/bug/([^/]+)", "GET")
def rest_bug_get(app, req, bug_text):
    include, exclude = req.fields_filter()
    return 200, {"bugs": [app.bug_json(b, req, include, exclude)
                          for b in app.bugs_from(req, bug_text)],
                 "faults": []}


@route(r"/bug", "POST")
def rest_bug_create(app, req):
    model = app.model
    user = app.require_login(req)
    p = req.body_params()
    product = model.products.get(p.get("product") or "")
    if product is None:
        raise BugzillaError(106, "Sorry, either the product %s does not exist or you aren't "
                                 "authorized to enter a bug into it." % p.get("product"))
    if not p.get("component"):
        raise BugzillaError(50, "You must select/enter a component.")
    if p["component"] not in product["components"]:
        raise BugzillaError(51, "There is no component named '%s' in the '%s' product."
                            % (p["component"], product["name"]))
    component = product["components"][p["component"]]
    if not str(p.get("summary") or "").strip():
        raise BugzillaError(107, "You must enter a summary for this bug.")
    version = p.get("version") or (product["versions"][0]
                                   if len(product["versions"]) == 1 else None)
    if not version:
        raise BugzillaError(50, "You must select/enter a version.")
    if version not in product["versions"]:
        raise BugzillaError(51, "There is no version named '%s' in the '%s' product."
                            % (version, product["name"]))
    op_sys = p.get("op_sys") or model.params.get("defaultopsys")
    if not op_sys:
        raise BugzillaError(50, "You must select/enter a OS.")
    platform = p.get("platform") or model.params.get("defaultplatform")
    if not platform:
        raise BugzillaError(50, "You must select/enter a platform.")
    for name, value in p.items():
        field = model.fields.get(name)
        if field and field["values"] is not None:
            for item in as_list(value):
                if item not in field["values"]:
                    raise BugzillaError(51, "There is no %s named '%s'."
                                        % (field["description"], item))
    can_confirm = model.can_edit_bugs(user) or model.in_group(user, "canconfirm")
    status = p.get("status") or (("NEW" if model.workflow == "kernel.org" else "CONFIRMED")
                                 if can_confirm else "UNCONFIRMED")
    if status not in model.open_statuses:
        raise BugzillaError(51, "There is no status named '%s'." % status)
    for name in ("assigned_to", "qa_contact"):
        if p.get(name) and p[name] not in model.users:
            raise no_such_user(p[name])
    for login in as_list(p.get("cc")):
        if login not in model.users:
            raise no_such_user(login)
    for other in as_list(p.get("blocks")) + as_list(p.get("depends_on")):
        model.visible_bug(user, other)
    description = p.get("description", "")
    if p.get("comment_is_private") and not model.is_insider(user):
        raise BugzillaError(113, "Sorry, but you are not allowed to (un)mark comments or "
                                 "attachments as private.")
    now = model.clock.now()
    spec = {
        "product": product["name"], "component": component["name"], "version": version,
        "op_sys": op_sys, "platform": platform, "summary": p["summary"],
        "status": status, "resolution": "",
        "severity": p.get("severity") or "normal", "priority": p.get("priority") or "---",
        "creator": user["login"],
        "assigned_to": p.get("assigned_to") or component["default_assigned_to"]
        or user["login"],
        "qa_contact": p.get("qa_contact") or component["default_qa_contact"] or "",
        "cc": as_list(p.get("cc")), "keywords": as_list(p.get("keywords")),
        "groups": as_list(p.get("groups")), "alias": as_list(p.get("alias")),
        "blocks": as_list(p.get("blocks")), "depends_on": as_list(p.get("depends_on")),
        "url": p.get("url") or "", "whiteboard": p.get("whiteboard") or "",
        "target_milestone": p.get("target_milestone") or product["milestones"][0],
        "creation_time": now, "last_change_time": now,
        "comments": [{"text": description, "creator": user["login"], "creation_time": now,
                      "is_private": as_bool(p.get("comment_is_private", False))}],
    }
    for name, value in p.items():
        if name.startswith("cf_"):
            spec[name] = value
    bug = model.put_bug(spec, bump=False)
    for name, other_name in (("blocks", "depends_on"), ("depends_on", "blocks")):
        for other_id in bug[name]:
            other = model.bugs.get(other_id)
            if other is not None and bug["id"] not in other[other_name]:
                other[other_name].append(bug["id"])
                other["last_change_time"] = now
    return 200, {"id": bug["id"]}


@route(r"/bug/([^/]+)", "PUT")
def rest_bug_update(app, req, bug_text):
    user = app.require_login(req)
    bugs = app.bugs_from(req, bug_text)
    now = app.model.clock.now()
    plans = [app.plan_update(bug, req.body_params(), user, now) for bug in bugs]
    return 200, {"bugs": [app.commit_update(plan, user, now) for plan in plans]}


# --- comments ---------------------------------------------------------------

def comments_by_id(app, req, texts, include, exclude):
    model = app.model
    out = {}
    for text in split_commas(texts):
        comment = model.comments.get(int(text)) if is_integer_text(text) else None
        if comment is None:
            raise BugzillaError(111, "%s is not a valid comment id." % text)
        model.visible_bug(req.user, comment["bug_id"])
        if comment["is_private"] and not model.is_insider(req.user):
            raise BugzillaError(110, "Comment id %d is private." % comment["id"])
        out[str(comment["id"])] = app.comment_json(comment, include, exclude)
    return out


def comments_of_bugs(app, req, bugs, include, exclude):
    since = app.new_since(req)
    insider = app.model.is_insider(req.user)
    return {str(bug["id"]): {"comments": [
        app.comment_json(c, include, exclude) for c in bug["comments"]
        if (insider or not c["is_private"]) and (since is None or c["creation_time"] > since)]}
        for bug in bugs}


@route(r"/bug/([^/]+)/comment", "GET")
def rest_comments(app, req, bug_text):
    include, exclude = req.fields_filter()
    app.new_since(req)                        # 56 before anything else
    bugs = app.bugs_from(req, bug_text)
    return 200, {"bugs": comments_of_bugs(app, req, bugs, include, exclude),
                 "comments": comments_by_id(app, req, req.values("comment_ids"),
                                            include, exclude)}


@route(r"/bug/comment/([^/]+)", "GET")
def rest_comment_by_id(app, req, comment_text):
    include, exclude = req.fields_filter()
    bugs = app.bugs_from(req)
    return 200, {"comments": comments_by_id(app, req, [comment_text]
                                            + req.values("comment_ids"), include, exclude),
                 "bugs": comments_of_bugs(app, req, bugs, include, exclude)}


@route(r"/bug/([^/]+)/comment", "POST")
def rest_add_comment(app, req, bug_text):
    model = app.model
    user = app.require_login(req)
    bug = model.visible_bug(user, bug_text)
    text = req.value("comment")
    if not isinstance(text, str) or not text.strip():
        raise param_required("comment")
    if len(text) > 65535:
        raise BugzillaError(114, "Comments cannot be longer than 65,535 characters.")
    is_private = as_bool(req.value("is_private", False))
    if is_private and not model.is_insider(user):
        raise BugzillaError(113, "Sorry, but you are not allowed to (un)mark comments or "
                                 "attachments as private.")
    now = model.clock.now()
    comment = model.add_comment(bug, {"text": text, "creator": user["login"],
                                      "creation_time": now, "is_private": is_private},
                                bump=False)
    bug["last_change_time"] = now
    return 201, {"id": comment["id"]}


# --- attachments ------------------------------------------------------------

def attachments_by_id(app, req, texts, include, exclude):
    """Attachments by id; ids that do not exist are left out (fixture 066)."""
    model = app.model
    out = {}
    for text in split_commas(texts):
        attachment = model.attachments.get(int(text)) if is_integer_text(text) else None
        if attachment is None:
            continue
        model.visible_bug(req.user, attachment["bug_id"])
        if attachment["is_private"] and not model.is_insider(req.user):
            raise BugzillaError(304, "Sorry, you are not authorized to access attachment #%d."
                                % attachment["id"])
        out[str(attachment["id"])] = app.attachment_json(attachment, include, exclude)
    return out


def attachments_of_bugs(app, req, bugs, include, exclude):
    insider = app.model.is_insider(req.user)
    return {str(bug["id"]): [app.attachment_json(a, include, exclude)
                             for a in bug["attachments"] if insider or not a["is_private"]]
            for bug in bugs}


@route(r"/bug/([^/]+)/attachment", "GET")
def rest_attachments(app, req, bug_text):
    include, exclude = req.fields_filter()
    bugs = app.bugs_from(req, bug_text)
    return 200, {"bugs": attachments_of_bugs(app, req, bugs, include, exclude),
                 "attachments": attachments_by_id(app, req, req.values("attachment_ids"),
                                                  include, exclude)}


@route(r"/bug/attachment/([^/]+)", "GET")
def rest_attachment_by_id(app, req, attachment_text):
    include, exclude = req.fields_filter()
    bugs = app.bugs_from(req)
    return 200, {"bugs": attachments_of_bugs(app, req, bugs, include, exclude),
                 "attachments": attachments_by_id(app, req, [attachment_text]
                                                  + req.values("attachment_ids"),
                                                  include, exclude)}


def check_content_type(content_type):
    if not CONTENT_TYPE_RE.match(content_type or ""):
        raise BugzillaError(
            601, "The content type is invalid. Valid types must be of the form foo/bar where "
                 "foo is one of application, audio, image, message, model, multipart, text, "
                 "video and bar must not contain any special characters (such as \"=\", "
                 "\"?\", ...).")


@route(r"/bug/([^/]+)/attachment", "POST")
def rest_add_attachment(app, req, bug_text):
    model = app.model
    user = app.require_login(req)
    bugs = app.bugs_from(req, bug_text)
    p = req.body_params()
    if p.get("data") is None:
        raise param_required("data")
    try:
        data = base64.b64decode(str(p["data"]), validate=False)
    except (binascii.Error, ValueError):
        data = b""
    if not data:
        raise BugzillaError(606, "The file you are trying to attach is empty, does not "
                                 "exist, or you don't have permission to read it.")
    if not p.get("file_name"):
        raise param_required("file_name")
    if not str(p.get("summary") or "").strip():
        raise BugzillaError(604, "You must enter a description for the attachment.")
    is_patch = as_bool(p.get("is_patch", False))
    content_type = "text/plain" if is_patch else p.get("content_type")
    check_content_type(content_type)
    is_private = as_bool(p.get("is_private", False))
    if is_private and not model.is_insider(user):
        raise BugzillaError(113, "Sorry, but you are not allowed to (un)mark comments or "
                                 "attachments as private.")
    now = model.clock.now()
    ids = []
    for bug in bugs:
        attachment = model.add_attachment(bug, {
            "data": data, "file_name": p["file_name"], "summary": p["summary"],
            "content_type": content_type, "is_patch": is_patch, "is_private": is_private,
            "creator": user["login"], "creation_time": now},
            bump=False, with_comment=True, comment_text=p.get("comment") or None)
        bug["last_change_time"] = now
        ids.append(attachment["id"])
    return 201, {"ids": ids}


ATTACHMENT_HISTORY_NAMES = {
    "is_obsolete": "attachments.isobsolete", "is_private": "attachments.isprivate",
    "is_patch": "attachments.ispatch", "summary": "attachments.description",
    "file_name": "attachments.filename", "content_type": "attachments.mimetype",
}


@route(r"/bug/attachment/([^/]+)", "PUT")
def rest_update_attachment(app, req, attachment_text):
    model = app.model
    user = app.require_login(req)
    p = req.body_params()
    now = model.clock.now()
    plans = []
    for text in [attachment_text] + split_commas(as_list(p.get("ids"))):
        attachment = model.attachments.get(int(text)) if is_integer_text(text) else None
        if attachment is None:
            raise BugzillaError(100, "Attachment #%s does not exist." % text)
        if any(plan[0] is attachment for plan in plans):
            continue
        bug = model.visible_bug(user, attachment["bug_id"])
        if attachment["is_private"] and not model.is_insider(user):
            raise BugzillaError(304, "Sorry, you are not authorized to access attachment #%d."
                                % attachment["id"])
        if not (model.can_edit_bugs(user) or attachment["creator"] == user["login"]):
            raise BugzillaError(304, "Sorry, you are not authorized to edit attachment #%d."
                                % attachment["id"])
        changes = {}
        for name in ("is_obsolete", "is_private", "is_patch"):
            if name in p and as_bool(p[name]) != attachment[name]:
                if name == "is_private" and not model.is_insider(user):
                    raise BugzillaError(113, "Sorry, but you are not allowed to (un)mark "
                                             "comments or attachments as private.")
                changes[name] = {"removed": change_text(attachment[name]),
                                 "added": change_text(as_bool(p[name]))}
        for name in ("summary", "file_name", "content_type"):
            if name in p and str(p[name]) != attachment[name]:
                if name == "content_type":
                    check_content_type(p[name])
                changes[name] = {"removed": attachment[name], "added": str(p[name])}
        plans.append((attachment, bug, changes))
    results = []
    for attachment, bug, changes in plans:
        for name, change in changes.items():
            attachment[name] = (as_bool(p[name]) if name.startswith("is_") else str(p[name]))
        comment = p.get("comment")
        if isinstance(comment, dict):
            comment = comment.get("body") or comment.get("comment")
        if changes:
            bug["history"].append({"when": now, "who": user["login"], "changes": [
                {"field_name": ATTACHMENT_HISTORY_NAMES[name], "removed": c["removed"],
                 "added": c["added"], "attachment_id": attachment["id"]}
                for name, c in changes.items()]})
        if comment:
            model.add_comment(bug, {
                "text": "Comment on attachment %d\n%s\n\n%s"
                        % (attachment["id"], attachment["summary"], comment),
                "creator": user["login"], "creation_time": now,
                "attachment_id": attachment["id"]}, bump=False)
        if changes or comment:
            attachment["last_change_time"] = now
            bug["last_change_time"] = now
        results.append({"id": attachment["id"], "changes": changes,
                        "last_change_time": format_time(attachment["last_change_time"])})
    return 200, {"attachments": results}


# --- history ----------------------------------------------------------------

@route(r"/bug/([^/]+)/history", "GET")
def rest_history(app, req, bug_text):
    model = app.model
    since = app.new_since(req)
    bugs = app.bugs_from(req, bug_text)
    insider = model.is_insider(req.user)
    out = []
    for bug in bugs:
        entries = []
        for entry in bug["history"]:
            if since is not None and entry["when"] <= since:
                continue
            changes = []
            for change in entry["changes"]:
                attachment = model.attachments.get(change.get("attachment_id") or 0)
                if attachment is not None and attachment["is_private"] and not insider:
                    continue
                changes.append(dict(change))
            if changes:
                entries.append({"when": format_time(entry["when"]), "who": entry["who"],
                                "changes": changes})
        out.append({"id": bug["id"], "alias": list(bug["alias"]), "history": entries})
    return 200, {"bugs": out}


# ---------------------------------------------------------------------------
# Failure injection and the request log
# ---------------------------------------------------------------------------

FAILURE_MODES = {"status", "truncate", "drop", "drop_after", "reset", "slow", "invalid_json",
                 "db_down"}


class FailureRule:
    """A failure rule: the next COUNT requests that match METHOD and
    PATH_PREFIX, after SKIP of them, fail in MODE."""

    def __init__(self, spec):
        if not isinstance(spec, dict):
            raise StateError("fail: expected an object")
        self.count = int(spec.get("count", 1))
        self.skip = int(spec.get("skip", 0))
        self.status = int(spec.get("status", 500))
        self.mode = spec.get("mode") or ("slow" if spec.get("delay") and "status" not in spec
                                         else "status")
        if self.mode not in FAILURE_MODES:
            raise StateError("fail: unknown mode %r (one of %s)"
                             % (self.mode, ", ".join(sorted(FAILURE_MODES))))
        self.retry_after = spec.get("retry_after")
        self.delay = float(spec.get("delay", 0))
        self.path_prefix = spec.get("path_prefix") or ""
        self.method = (spec.get("method") or "").upper() or None
        self.body = spec.get("body")
        self.content_type = spec.get("content_type")

    def matches(self, method, path):
        return path.startswith(self.path_prefix) and self.method in (None, method)

    def describe(self):
        return {"count": self.count, "skip": self.skip, "mode": self.mode,
                "status": self.status, "path_prefix": self.path_prefix,
                "method": self.method}

    def response(self):
        """The answer of a "status" failure."""
        headers = []
        if self.retry_after is not None:
            headers.append(("Retry-After", str(self.retry_after)))
        status = self.status
        if self.body is not None:
            body = self.body.encode("utf-8") if isinstance(self.body, str) else json_bytes(
                self.body)
            return Response(status, body, self.content_type or "text/plain; charset=UTF-8",
                            headers=headers)
        if 400 <= status < 500 and status != 429:
            code = {401: 410, 403: 102, 404: 32614}.get(status, 32000)
            error = BugzillaError(code, {410: "You must log in before using this part of "
                                              "Bugzilla.",
                                         102: "You are not authorized to access this.",
                                         32614: "A REST API resource was not found."}.get(
                code, "Injected failure (HTTP %d)." % status))
            return Response(status, json_bytes(error.to_json()), JSON_TYPE, headers=headers)
        reason = BaseHTTPRequestHandler.responses.get(status, ("Error",))[0]
        page = ("<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n"
                "<title>%d %s</title>\n</head><body>\n<h1>%s</h1>\n<p>The server is "
                "temporarily unable to service your request.</p>\n</body></html>\n"
                % (status, reason, reason))
        return Response(status, page.encode("utf-8"), "text/html; charset=iso-8859-1",
                        headers=headers)


class FailureInjector:
    def __init__(self):
        self.lock = threading.Lock()
        self.rules = []

    def add(self, spec):
        with self.lock:
            if spec.get("clear"):
                self.rules = []
            else:
                self.rules.append(FailureRule(spec))
            return len(self.rules)

    def take(self, method, path):
        """The rule this request falls under, if any (its count used up)."""
        with self.lock:
            for rule in self.rules:
                if rule.count <= 0 or not rule.matches(method, path):
                    continue
                if rule.skip > 0:
                    rule.skip -= 1
                    return None
                rule.count -= 1
                if rule.count <= 0:
                    self.rules.remove(rule)
                return rule
            return None


class RequestLog:
    """Every real request, in memory and as JSON lines in a file."""

    def __init__(self, path=None):
        self.lock = threading.Lock()
        self.entries = []
        self.seq = 0
        self.file = open(path, "a", encoding="utf-8") if path else None

    def record(self, entry):
        with self.lock:
            self.seq += 1
            entry["seq"] = self.seq
            self.entries.append(entry)
            if self.file:
                self.file.write(json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n")
                self.file.flush()

    def select(self, path_prefix="", method=None):
        with self.lock:
            return [dict(e) for e in self.entries
                    if e["path"].startswith(path_prefix)
                    and (method is None or e["method"] == method)]

    def clear(self):
        with self.lock:
            count = len(self.entries)
            self.entries = []
            return count


# ---------------------------------------------------------------------------
# The test-control API under /__admin/
# ---------------------------------------------------------------------------

class AdminApi:
    def __init__(self, server):
        self.server = server

    def handle(self, req):
        try:
            body = req.json if req.json is not None else {}
            if req.json_error is not None:
                raise StateError("the body is not JSON: %s" % req.json_error)
            name = req.path[len("/__admin/"):].strip("/")
            function = getattr(self, "%s_%s" % (req.method.lower(), name), None)
            if function is None:
                return json_response(404, {"error": "no admin resource %s %s"
                                                    % (req.method, req.path)})
            with self.server.lock:
                return json_response(200, function(req, body))
        except (StateError, ValueError, KeyError, TypeError) as e:
            return json_response(400, {"error": "%s: %s" % (type(e).__name__, e)})

    def post_state(self, req, body):
        self.server.load_state(body, self.server.state_dir)
        return {"bugs": len(self.server.app.model.bugs)}

    def get_state(self, req, body):
        return self.server.app.model.dump()

    def post_bug(self, req, body):
        model = self.server.app.model
        bug = model.put_bug(body, bump=True, merge=as_bool(body.get("merge")))
        model.link_dependencies()
        return {"id": bug["id"], "last_change_time": format_time(bug["last_change_time"])}

    def post_comment(self, req, body):
        model = self.server.app.model
        bug = model.bugs.get(int(body["bug_id"]))
        if bug is None:
            raise StateError("no bug %s" % body["bug_id"])
        comment = model.add_comment(bug, body, bump=False)
        bug["last_change_time"] = comment["creation_time"] if "last_change_time" not in body \
            else model.state_time(body["last_change_time"], "last_change_time")
        return {"id": comment["id"], "count": comment["count"],
                "last_change_time": format_time(bug["last_change_time"])}

    def post_attachment(self, req, body):
        model = self.server.app.model
        bug = model.bugs.get(int(body["bug_id"]))
        if bug is None:
            raise StateError("no bug %s" % body["bug_id"])
        attachment = model.add_attachment(bug, body, bump=False,
                                          with_comment=as_bool(body.get("with_comment", True)),
                                          comment_text=body.get("comment"))
        bug["last_change_time"] = attachment["creation_time"]
        created = [c["id"] for c in bug["comments"] if c["attachment_id"] == attachment["id"]]
        return {"id": attachment["id"], "comment_id": created[-1] if created else None,
                "last_change_time": format_time(bug["last_change_time"])}

    def post_user(self, req, body):
        user = self.server.app.model.put_user(body)
        return {"id": user["id"], "login": user["login"]}

    def post_clock(self, req, body):
        clock = self.server.clock
        clock.configure(body)
        return {"now": format_time(clock.now())}

    def post_fail(self, req, body):
        return {"rules": self.server.injector.add(body)}

    def get_fail(self, req, body):
        with self.server.injector.lock:
            return {"rules": [r.describe() for r in self.server.injector.rules]}

    def post_quirks(self, req, body):
        self.server.app.model.quirks.update(body)
        if "reset_every" in body:
            with self.server.counter_lock:       # count from now on
                self.server.answers = 0
        return dict(self.server.app.model.quirks)

    def get_log(self, req, body):
        entries = self.server.log.select(req.value("path_prefix") or "",
                                         (req.value("method") or "").upper() or None)
        return {"count": len(entries), "requests": entries}

    def post_reset_log(self, req, body):
        return {"cleared": self.server.log.clear()}


# ---------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    """One connection: HTTP/1.1 requests, kept alive, each answered with a
    Content-Length; the failure modes and the mod_perl quirk act here."""

    protocol_version = "HTTP/1.1"
    server_version = "Apache/2.4.62 (Debian) fake_bugzilla"
    sys_version = ""
    # Headers and body go out in two writes; with Nagle's algorithm the body
    # of every answer on a kept-alive connection after the first waited for
    # the client's delayed ACK (40 ms on Linux), which Apache never does.
    disable_nagle_algorithm = True

    def setup(self):
        quirks = self.server.app.model.quirks
        self.timeout = float(quirks.get("keepalive_timeout", 5)) or None
        super().setup()
        self.conn_id = self.server.next_connection_id()
        self.answered = 0
        self.doomed = False

    def log_message(self, format, *args):
        if self.server.verbose:
            sys.stderr.write("fake_bugzilla: %s\n" % (format % args))

    def do_GET(self):
        self.dispatch()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET

    def read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks, total = [], 0
            while True:
                line = self.rfile.readline(1024)
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                total += size
                if total > MAX_REQUEST_BODY:
                    raise ValueError("request body too large")
                chunks.append(self.rfile.read(size))
                self.rfile.readline(1024)
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BODY:
            raise ValueError("request body too large")
        return self.rfile.read(length) if length > 0 else b""

    def dispatch(self):
        server = self.server
        try:
            body = self.read_body()
        except (ValueError, OSError):
            self.close_connection = True
            self.send_error(400, "Bad request body")
            return
        req = Request(self.command, self.path, self.headers, body)
        if req.path.startswith("/__admin/"):
            self.send(server.admin.handle(req), req)
            return

        self.answered += 1
        entry = {"time": format_time(server.clock.now()), "conn": self.conn_id,
                 "method": req.method, "path": req.path, "query": req.log_query(),
                 "api_key": False, "api_key_via": None, "user": None,
                 "body": shorten_for_log(req.json) if req.json is not None else None,
                 "status": 0, "bytes": 0, "injected": None}

        if self.doomed:                  # mod_perl's child is gone: reset
            entry["injected"] = "reset_every"
            server.log.record(entry)
            self.abort(reset=True)
            return
        rule = server.injector.take(req.method, req.path)
        if rule is not None:
            entry["injected"] = rule.mode
            if rule.delay > 0:
                time.sleep(rule.delay)
            if rule.mode in ("drop", "reset"):
                server.log.record(entry)
                self.abort(reset=rule.mode == "reset")
                return
            if rule.mode == "status":
                response = rule.response()
            elif rule.mode == "db_down" and not req.path.startswith("/rest/version"):
                response = self.db_down_answer(req)
            elif rule.mode == "invalid_json":
                response = Response(200, b"<html><body><h1>Software error:</h1><pre>Can't "
                                         b"locate object method</pre></body></html>\n",
                                    JSON_TYPE)
            else:
                response = self.serve(req)
        else:
            response = self.serve(req)

        entry["api_key"] = req.key_presented
        entry["api_key_via"] = req.key_via
        entry["user"] = req.user["login"] if req.user else None
        if rule is not None and rule.mode == "drop_after":
            server.log.record(entry)
            self.abort(reset=False)
            return
        truncate = rule is not None and rule.mode == "truncate"
        self.send(response, req, entry, truncate=truncate)

        # Apache2::SizeLimit: after every Nth answer the child exits
        every = int(server.app.model.quirks.get("reset_every") or 0)
        if every > 0 and server.count_answer() % every == 0 and not self.close_connection:
            if server.app.model.quirks.get("reset_style") == "close":
                self.close_connection = True
            else:
                self.doomed = True

    # The message of the DBI failure an anonymous caller gets; a site's
    # message may carry the database password (shared/notes/bugzilla-5.md),
    # so this one does, for tests that check it is never logged.
    DB_DOWN_MESSAGE = ("DBI connect('database=bugs;host=localhost;port=3306','bugs',"
                       "'DB-PASSWORD-f00dfeed') failed: Can't connect to local server through "
                       "socket '/run/mysqld/mysqld.sock' (2) at Bugzilla/DB.pm line 1356.")

    def db_down_answer(self, req):
        """Bugzilla 5.2 with its database down: HTTP 200 with an empty body
        for a call with credentials it reads (it fails logging them in); an
        anonymous call (a 5.2 ignores the key header) gets JSON::RPC's
        internal error, 100000 + 500, still with HTTP 200."""
        credentialed = req.key_via in ("param", "body") or (
            req.key_via == "header" and self.server.app.header_keys_accepted())
        if credentialed or not req.path.startswith("/rest/"):
            return Response(200, b"", JSON_TYPE)
        return json_response(200, {"error": True, "code": 100500,
                                   "message": self.DB_DOWN_MESSAGE})

    def serve(self, req):
        with self.server.lock:
            return self.server.app.handle(req)

    def send(self, response, req, entry=None, truncate=False):
        """Sends response (304 for a matching If-None-Match on GET), after
        recording entry in the log."""
        quirks = self.server.app.model.quirks
        status, body = response.status, response.body
        headers = [("Date", email.utils.formatdate(self.server.clock.now(), usegmt=True)),
                   ("Server", self.server_version)]
        if response.content_type and response.content_type.startswith("application/json"):
            headers += [("Access-Control-Allow-Headers",
                         "origin, content-type, accept, x-requested-with"),
                        ("Access-Control-Allow-Origin", "*")]
        headers += [("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "SAMEORIGIN"),
                    ("X-XSS-Protection", "1; mode=block")]
        headers += response.headers
        if response.etag:
            headers.append(("ETag", response.etag))
            if req.method in ("GET", "HEAD") and status == 200 and etag_matches(
                    req.headers.get("If-None-Match"), response.etag):
                status, body = 304, b""
        close = response.close or status in STATUSES_THAT_CLOSE or self.close_connection
        limit = int(quirks.get("max_keepalive_requests", 100) or 0)
        if limit and self.answered >= limit:
            close = True
        if close:
            headers.append(("Connection", "close"))
            self.close_connection = True
        if status != 304:
            if response.content_type:
                headers.append(("Content-Type", response.content_type))
            headers.append(("Content-Length", str(len(body))))
        sent = body if req.method != "HEAD" and status != 304 else b""
        if truncate:
            sent = sent[:len(sent) // 2]
            self.close_connection = True
        if entry is not None:
            entry["status"] = status
            entry["bytes"] = len(sent)
            self.server.log.record(entry)
        try:
            self.send_response_only(status)
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            if sent:
                self.wfile.write(sent)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def abort(self, reset):
        """Ends the connection without an answer; reset: with a TCP RST."""
        self.close_connection = True
        if reset:
            try:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                           struct.pack("ii", 1, 0))
            except OSError:
                pass
            self.server.abort_next_shutdown()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, state, state_dir, version, log_path, verbose):
        self.lock = threading.RLock()
        self.clock = Clock()
        self.state_dir = state_dir
        self.version_override = version
        self.verbose = verbose
        self.log = RequestLog(log_path)
        self.injector = FailureInjector()
        self.admin = AdminApi(self)
        self.answers = 0
        self.connections = 0
        self.counter_lock = threading.Lock()
        self.local = threading.local()
        self.app = None
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)
        host, port = self.server_address[:2]
        self.url = "http://%s:%d" % ("[%s]" % host if ":" in host else host, port)
        self.load_state(state, state_dir)

    def load_state(self, state, state_dir):
        """Replaces the whole state (the clock is set anew from it)."""
        clock = Clock()
        model = Model(state, clock, state_dir)
        self.clock = clock
        if self.version_override:
            model.version = self.version_override
        if self.app is not None and self.app.model.quirks and "quirks" not in state:
            model.quirks = self.app.model.quirks
        self.app = Bugzilla(model, self.url)

    def next_connection_id(self):
        with self.counter_lock:
            self.connections += 1
            return self.connections

    def count_answer(self):
        with self.counter_lock:
            self.answers += 1
            return self.answers

    def abort_next_shutdown(self):
        self.local.abort = True

    def shutdown_request(self, request):
        """A reset connection is closed without the FIN of shutdown()."""
        if getattr(self.local, "abort", False):
            self.local.abort = False
            try:
                request.close()
            except OSError:
                pass
            return
        super().shutdown_request(request)

    def handle_error(self, request, client_address):
        if self.verbose:
            super().handle_error(request, client_address)


def write_atomically(path, text):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description="A fake Bugzilla 5.x for tests.")
    parser.add_argument("--state", help="state file (JSON); none: an empty Bugzilla")
    parser.add_argument("--port-file", required=True, help="written with the bound port")
    parser.add_argument("--pid-file")
    parser.add_argument("--log", help="request log, one JSON object a line")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--version", help="Bugzilla version to be (5.2, 5.1, 5.1.2...)")
    parser.add_argument("--reset-every", type=int, help="the mod_perl quirk (see --help)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)

    state, state_dir = {}, "."
    if args.state:
        state_dir = os.path.dirname(os.path.abspath(args.state))
        try:
            with open(args.state, encoding="utf-8") as f:
                state = json.load(f)
        except (OSError, ValueError) as e:
            sys.stderr.write("fake_bugzilla: %s: %s\n" % (args.state, e))
            return 2
    try:
        server = Server((args.host, args.port), state, state_dir, args.version, args.log,
                        args.verbose)
    except (StateError, ValueError, KeyError, TypeError) as e:
        sys.stderr.write("fake_bugzilla: bad state: %s: %s\n" % (type(e).__name__, e))
        return 2
    except OSError as e:
        sys.stderr.write("fake_bugzilla: cannot listen on %s:%d: %s\n"
                         % (args.host, args.port, e))
        return 1
    if args.reset_every is not None:
        server.app.model.quirks["reset_every"] = args.reset_every

    def stop(signum, frame):
        threading.Thread(target=server.shutdown, daemon=True).start()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    if args.pid_file:
        write_atomically(args.pid_file, "%d\n" % os.getpid())
    write_atomically(args.port_file, "%d\n" % server.server_address[1])
    if args.verbose:
        sys.stderr.write("fake_bugzilla: Bugzilla %s on %s\n" % (server.app.version, server.url))
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        for path in (args.port_file, args.pid_file):
            if path:
                try:
                    os.unlink(path)
                except OSError:
                    pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
