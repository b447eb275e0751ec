#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Raw HTTP probes for the scenario tests, for what curl will not do.

  http_probe.py raw PORT METHOD PATH [HEADER: VALUE ...]
      Sends the request line exactly as given (no path normalisation) with
      "Connection: close", reads the answer to the end of the connection and
      prints the status line, "body-bytes: N" (bytes after the header block)
      and then the body.

  http_probe.py truncate PORT PATH TOKEN DECLARED SENT
      Starts a POST of DECLARED bytes (Content-Length) with the bearer TOKEN,
      sends only SENT bytes of it and closes the connection.  Prints the
      SHA-256 the whole upload would have had, had it been complete.

Standard library only; the server is always 127.0.0.1.
"""
import hashlib
import socket
import sys


def connect(port):
    sock = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
    return sock


def cmd_raw(port, method, path, *headers):
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
    lines.extend(headers)
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    sock = connect(port)
    sock.sendall(request)
    answer = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        answer += chunk
    sock.close()
    head, sep, body = answer.partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0].decode("latin-1")
    sys.stdout.write(status + "\n")
    sys.stdout.write(f"body-bytes: {len(body) if sep else 0}\n")
    sys.stdout.flush()
    sys.stdout.buffer.write(body)
    return 0


def cmd_truncate(port, path, token, declared, sent):
    declared, sent = int(declared), int(sent)
    # a pattern unlike anything else the tests store
    data = bytes((i * 7 + 13) % 251 for i in range(declared))
    head = (
        f"POST {path} HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {token}\r\n"
        "Content-Type: application/octet-stream\r\n"
        f"Content-Length: {declared}\r\n"
        "\r\n"
    ).encode("latin-1")
    sock = connect(port)
    sock.sendall(head + data[:sent])
    sock.shutdown(socket.SHUT_RDWR)
    sock.close()
    print(hashlib.sha256(data).hexdigest())
    return 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "raw":
        return cmd_raw(*argv[2:])
    if len(argv) == 7 and argv[1] == "truncate":
        return cmd_truncate(*argv[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
