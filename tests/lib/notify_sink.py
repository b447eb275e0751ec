#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in for systemd's notification socket (sd_notify(3)).

Binds an AF_UNIX datagram socket at PATH and appends every message it gets
to LOG, one line per message with its newlines shown as " | ".  Tests point
NOTIFY_SOCKET at PATH and read LOG.  Runs until SIGTERM; writes its pid to
--pid-file once the socket is bound.
"""
import argparse
import os
import signal
import socket
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--socket", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--pid-file", required=True)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(args.socket)
    with open(args.pid_file + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(args.pid_file + ".tmp", args.pid_file)
    try:
        while True:
            data = s.recv(65536)
            line = data.decode("utf-8", "replace").strip("\n").replace("\n", " | ")
            with open(args.log, "a") as f:
                f.write(line + "\n")
    finally:
        os.unlink(args.socket)


if __name__ == "__main__":
    main()
