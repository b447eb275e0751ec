# SPDX-License-Identifier: GPL-2.0-or-later
"""Public-inbox archives of vger lists, for triage_select.py and triage_read.py.

An archive is a public-inbox v2 epoch: a git repository with one commit per
mail and the raw mail in the blob "m" of the commit's tree.  It is found
under any of the roots (BENCH_TRIAGE_INBOXES, ':'-separated) as one of:
  ROOT/LIST/git/N.git             (public-inbox-clone, grokmirror of lore)
  ROOT/LIST/N.git
  ROOT/*LIST.vger.kernel.org.N/repo, ROOT/*LIST.vger.kernel.org.N
                                  (a GitHub mirror, one repository an epoch)
"""
import email
import email.header
import email.policy
import glob
import os
import re
import subprocess

# The lists of the set, in the order triage_select.py draws them.
LISTS = [
    "linux-usb", "linux-pci", "linux-pm", "linux-block", "linux-btrfs",
    "linux-scsi", "linux-gpio", "linux-i2c", "linux-spi", "linux-serial",
    "linux-hwmon", "linux-iio", "linux-nfs", "linux-xfs", "linux-crypto",
    "linux-rdma", "linux-input", "linux-bluetooth", "linux-wireless",
    "linux-acpi", "linux-ext4", "platform-driver-x86",
]


def address(lst):
    return lst + "@vger.kernel.org"


def _is_git(path):
    return os.path.isfile(os.path.join(path, "HEAD")) and \
        os.path.isdir(os.path.join(path, "objects"))


def epochs(roots, lst):
    """{epoch: git dir} of lst under the roots."""
    found = {}
    for root in roots:
        if not root:
            continue
        pats = [(os.path.join(root, lst, "git", "*.git"), r"(\d+)\.git$"),
                (os.path.join(root, lst, "*.git"), r"(\d+)\.git$"),
                (os.path.join(root, "*" + lst + ".vger.kernel.org.*", "repo"),
                 re.escape(lst) + r"\.vger\.kernel\.org\.(\d+)/repo$"),
                (os.path.join(root, "*" + lst + ".vger.kernel.org.*"),
                 re.escape(lst) + r"\.vger\.kernel\.org\.(\d+)$")]
        for pat, rx in pats:
            for path in sorted(glob.glob(pat)):
                m = re.search(rx, path)
                if not m or not _is_git(path):
                    continue
                base = os.path.basename(os.path.dirname(path)) \
                    if path.endswith("/repo") else os.path.basename(path)
                # "foo+linux-usb.vger..." must not be taken for "usb"
                if ".vger.kernel.org." in base and not re.search(
                        r"(^|[+/_])" + re.escape(lst) + r"\.vger", base):
                    continue
                found.setdefault(int(m.group(1)), path)
    return found


def newest_epoch(roots, lst):
    e = epochs(roots, lst)
    if not e:
        return None
    n = max(e)
    return n, e[n]


class Reader:
    """Raw mails of one epoch by commit, through one git cat-file --batch."""

    def __init__(self, git):
        self.git = git
        self.p = None

    def __enter__(self):
        self.p = subprocess.Popen(["git", "--git-dir", self.git, "cat-file", "--batch"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        return self

    def __exit__(self, *exc):
        self.p.stdin.close()
        self.p.stdout.read()
        self.p.wait()

    def blob(self, commit):
        """The raw mail of commit, or None (a deletion, an unknown commit)."""
        self.p.stdin.write((commit + ":m\n").encode())
        self.p.stdin.flush()
        head = self.p.stdout.readline().split()
        if len(head) != 3:
            return None
        data = self.p.stdout.read(int(head[2]))
        self.p.stdout.read(1)
        return data


def parse(raw):
    return email.message_from_bytes(raw, policy=email.policy.compat32)


def _decode(value):
    if value is None:
        return ""
    try:
        text = str(email.header.make_header(email.header.decode_header(str(value))))
    except (UnicodeError, LookupError, email.errors.HeaderParseError):
        text = str(value)
    return " ".join(text.split())


def subject(msg):
    return _decode(msg.get("Subject"))


def message_id(msg):
    m = re.search(r"<([^<>\s]+)>", str(msg.get("Message-ID") or ""))
    return m.group(1) if m else None


def plain_body(msg):
    """The text/plain parts (and text/x-log attachments), in order."""
    out = []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_type() not in ("text/plain", "text/x-log"):
            continue
        data = part.get_payload(decode=True) or b""
        charset = part.get_content_charset() or "utf-8"
        try:
            text = data.decode(charset, "replace")
        except LookupError:
            text = data.decode("utf-8", "replace")
        out.append(text.replace("\r\n", "\n"))
    return "\n".join(out)


def report_text(msg):
    """What the matcher sees: the Subject, a blank line, the plain body."""
    return subject(msg) + "\n\n" + plain_body(msg)


def bot(msg):
    sender = _decode(msg.get("From")).lower()
    if "syzbot" in sender or "syzkaller" in sender:
        return "syzbot"
    if "kernel test robot" in sender or "lkp@intel.com" in sender:
        return "lkp"
    return ""
