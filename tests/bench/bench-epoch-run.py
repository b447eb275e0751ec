# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs a command and writes, into the file named first, one line:
wall user system own children (seconds), as /usr/bin/time gives the first
three (user and system of the command and the children it reaped), with
the command's own CPU and its reaped children's apart.

Those two are read from /proc/PID/stat once the command has ended and
before it is reaped (waitid with WNOWAIT leaves it a zombie, whose stat
holds its final utime, stime, cutime and cstime): sampling the file while
it runs misses the last samples' worth of its own CPU, and a child reaped
after the last sample entirely.

    bench-epoch-run.py TIMES-FILE COMMAND [ARGUMENT...]
Writes the command's process ID into TIMES-FILE.pid as it starts (for its
memory to be sampled); exits with the command's status."""
import os
import sys
import time


def main():
    out, argv = sys.argv[1], sys.argv[2:]
    hz = os.sysconf("SC_CLK_TCK")
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    with open(out + ".pid.new", "w") as f:
        f.write("%d\n" % pid)
    os.rename(out + ".pid.new", out + ".pid")
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    wall = time.monotonic() - start
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # (after the name: state is field 3, utime 14 ... cstime 17)
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    _, status, usage = os.wait4(pid, 0)
    with open(out, "w") as f:
        f.write("%.3f %.3f %.3f %.3f %.3f\n" % (
            wall, usage.ru_utime, usage.ru_stime, (utime + stime) / hz,
            (cutime + cstime) / hz))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
