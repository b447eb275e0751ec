#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile HTTP clients for tests/scenario/serve-abuse.sh and
serve-slow-body.sh.  Each command
prints one JSON object; the shell test asserts on it.  Standard library
only; the server is on 127.0.0.1, and client sockets are bound to the
loopback address given (any 127.x.y.z works on Linux), so that the server
sees distinct peers.

  http_abuse.py slow PORT SOURCE COUNT INTERVAL DURATION PROBE_SOURCE BOUND
      Opens COUNT connections from SOURCE that send a request line and then
      one header line every INTERVAL seconds, never ending the headers, for
      DURATION seconds.  Meanwhile a probe from PROBE_SOURCE asks GET / every
      0.5 s, each with BOUND seconds to be answered.  Prints, for the slow
      connections, how many the server closed within 1 s ("refused"), how
      many it held longer ("held"), the most held at once, and how long each
      held one lived (null: still open at the end); for the probe, how many
      were sent, answered with 200, and the slowest answer.

  http_abuse.py hold PORT SOURCES PER_SOURCE PROBE_SOURCE BOUND
      Opens PER_SOURCE slow connections from each of the comma-separated
      SOURCES, waits until they are in, then probes GET / once from
      PROBE_SOURCE: its status, Retry-After and time to answer.

  http_abuse.py slowbody PORT SOURCES PER_SOURCE INTERVAL DURATION PROBE_SOURCE BOUND
      Opens PER_SOURCE connections from each of the comma-separated SOURCES
      that send complete headers of a GET / with a body of 1 MB, then one
      body byte every INTERVAL seconds, for DURATION seconds.  Meanwhile a
      probe from PROBE_SOURCE asks GET / every 0.5 s, each with BOUND
      seconds to be answered.  Prints what "slow" prints, and "probe_log":
      [seconds since the attack began, status, seconds taken] per probe.

  http_abuse.py bad PORT MARKER
      Sends three requests libmicrohttpd answers itself: a request line
      with a 100 KB URI, a header block of 100 KB, and HTTP/3.0; each
      carries MARKER.  Prints the status line, header names and body of
      each answer.
"""
import json
import socket
import sys
import threading
import time


def connect(port, source, timeout):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", int(port)))
    return sock


def read_answer(sock):
    """Reads to the end of the connection; (status line, headers, body)."""
    answer = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return lines[0], headers, body


def probe(port, source, bound):
    """GET / with Connection: close: (status code or 0, seconds taken)."""
    start = time.monotonic()
    try:
        sock = connect(port, source, bound)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n")
        status, headers, _ = read_answer(sock)
        sock.close()
        code = int(status.split(" ")[1]) if status.startswith("HTTP/") else 0
    except (OSError, ValueError, IndexError):
        code, headers = 0, {}
    return code, time.monotonic() - start, headers


class Slow:
    """One connection that never finishes its headers."""

    def __init__(self, port, source):
        self.opened = time.monotonic()
        self.closed = None
        self.sock = connect(port, source, 5)
        self.sock.setblocking(False)
        self.send(b"GET / HTTP/1.1\r\nHost: slow\r\n")

    def send(self, data):
        if self.closed is not None:
            return
        try:
            self.sock.sendall(data)
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self.close()

    def poll(self):
        """Notices the server closing the connection."""
        if self.closed is not None:
            return
        try:
            data = self.sock.recv(4096)
            if not data:
                self.close()
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self.close()

    def close(self):
        if self.closed is None:
            self.closed = time.monotonic()
            self.sock.close()

    def lifetime(self):
        return None if self.closed is None else self.closed - self.opened


class SlowBody(Slow):
    """One connection whose headers are complete and whose body crawls."""

    def __init__(self, port, source):
        self.opened = time.monotonic()
        self.closed = None
        self.sock = connect(port, source, 5)
        self.sock.setblocking(False)
        self.send(b"GET / HTTP/1.1\r\nHost: slow\r\nContent-Length: 1000000\r\n\r\n")


def cmd_slow(port, source, count, interval, duration, probe_source, bound, body=False):
    interval, duration, bound = float(interval), float(duration), float(bound)
    start = time.monotonic()
    if body:
        conns = [SlowBody(port, s) for s in source.split(",") for _ in range(int(count))]
    else:
        conns = [Slow(port, source) for _ in range(int(count))]
    results = []
    stop = threading.Event()

    def prober():
        while not stop.is_set():
            began = time.monotonic() - start
            code, secs, _ = probe(port, probe_source, bound)
            results.append((code, secs, began))
            stop.wait(0.5)

    thread = threading.Thread(target=prober)
    thread.start()
    next_line = start + interval
    most_held = 0
    n = 0
    while time.monotonic() - start < duration:
        for c in conns:
            c.poll()
        now = time.monotonic()
        held = sum(1 for c in conns if c.closed is None and now - c.opened >= 1.0)
        most_held = max(most_held, held)
        if now >= next_line:
            n += 1
            for c in conns:
                c.send(b"x" if body else b"X-Slow-%d: %d\r\n" % (n, n))
            next_line += interval
        time.sleep(0.05)
    stop.set()
    thread.join()
    lifetimes = [c.lifetime() for c in conns]
    held = [t for t in lifetimes if t is None or t >= 1.0]
    for c in conns:
        c.close()
    out = {
        "refused": sum(1 for t in lifetimes if t is not None and t < 1.0),
        "held": len(held),
        "most_held_at_once": most_held,
        "held_lifetimes": held,
        "probes": len(results),
        "probes_ok": sum(1 for code, _, _ in results if code == 200),
        "probe_codes": sorted(set(code for code, _, _ in results)),
        "probe_slowest": max((secs for _, secs, _ in results), default=None),
    }
    if body:
        out["probe_log"] = [[began, code, secs] for code, secs, began in results]
    print(json.dumps(out))
    return 0


def cmd_slowbody(port, sources, per_source, interval, duration, probe_source, bound):
    return cmd_slow(port, sources, per_source, interval, duration, probe_source, bound, True)


def cmd_hold(port, sources, per_source, probe_source, bound):
    conns = []
    for source in sources.split(","):
        conns.extend(Slow(port, source) for _ in range(int(per_source)))
    time.sleep(0.5)
    for c in conns:
        c.poll()
    code, secs, headers = probe(port, probe_source, float(bound))
    open_now = sum(1 for c in conns if c.closed is None)
    for c in conns:
        c.close()
    print(json.dumps({"held": open_now, "code": code, "seconds": secs,
                      "retry_after": headers.get("retry-after")}))
    return 0


def cmd_bad(port, marker):
    m = marker.encode("latin-1")
    requests = {
        "long_uri": b"GET /" + m + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        "long_headers": b"GET / HTTP/1.1\r\nHost: x\r\n"
        + b"".join(b"X-" + m + b"-%d: " % i + m * 20 + b"\r\n" for i in range(2000)) + b"\r\n",
        "http3": b"GET /" + m + b" HTTP/3.0\r\nHost: " + m + b"\r\n\r\n",
    }
    out = {}
    for name, data in requests.items():
        sock = connect(port, "127.0.0.1", 10)
        try:
            sock.sendall(data)
        except OSError:
            pass  # the server may answer and close before taking it all
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        status, headers, body = read_answer(sock)
        sock.close()
        out[name] = {"status": status, "headers": sorted(headers),
                     "header_values": " ".join(headers.values()),
                     "body": body.decode("latin-1")}
    print(json.dumps(out))
    return 0


def main(argv):
    commands = {"slow": (cmd_slow, 7), "slowbody": (cmd_slowbody, 7), "hold": (cmd_hold, 5),
                "bad": (cmd_bad, 2)}
    if len(argv) >= 2 and argv[1] in commands and len(argv) - 2 == commands[argv[1]][1]:
        return commands[argv[1]][0](*argv[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
