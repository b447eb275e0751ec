#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fill in and submit a form in a headless Chromium through the DevTools
protocol, with nothing but the standard library (a minimal WebSocket client).

  cdp_submit.py CHROMIUM PROFILE_DIR URL FILE_TO_ATTACH FIELD=VALUE...

Loads URL, sets each field (by id) to its value, puts FILE_TO_ATTACH into the
file input #attachment (DOM.setFileInputFiles, as a user choosing the file;
"-" for none, e.g. to press a page's only button),
clicks #submit, waits for the next page and prints its title, a tab, and
its text (with CDP_DOM=FILE in the environment, that page's DOM goes to
FILE too).  Exit status 0 on success, 1 on any failure (with the reason on
standard error).
"""
import base64
import json
import os
import re
import socket
import struct
import subprocess
import sys
import time
import urllib.request


class WebSocket:
    def __init__(self, url):
        m = re.match(r"ws://([^/:]+):(\d+)(/.*)", url)
        host, port, path = m.group(1), int(m.group(2)), m.group(3)
        self.sock = socket.create_connection((host, port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n" % (path, host, port, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise OSError("websocket handshake: connection closed")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise OSError("websocket handshake refused: %r" % head[:80])
        self.pending = b""

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            header = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 65536:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        while len(self.pending) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError("websocket closed")
            self.pending += chunk
        out, self.pending = self.pending[:n], self.pending[n:]
        return out

    def recv(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 8:
                raise OSError("websocket closed by the browser")
            if opcode in (0, 1, 2):
                message += payload
                if b0 & 0x80:
                    return message.decode()


class Page:
    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my_id:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, name, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for i, e in enumerate(self.events):
                if e.get("method") == name:
                    del self.events[i]
                    return e
            self.events.append(json.loads(self.ws.recv()))
        raise RuntimeError("no %s within %ss" % (name, timeout))

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return r.get("result", {}).get("value")


def main():
    chromium, profile, url, attach = sys.argv[1:5]
    fields = dict(a.split("=", 1) for a in sys.argv[5:])
    proc = subprocess.Popen([chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                             "--disable-dev-shm-usage", "--no-first-run",
                             "--no-default-browser-check", "--disable-extensions",
                             "--remote-debugging-port=0", "--user-data-dir=" + profile,
                             "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.1)
        port = int(open(port_file).read().split()[0])
        targets = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port))
        ws_url = [t for t in targets if t.get("type") == "page"][0]["webSocketDebuggerUrl"]
        page = Page(WebSocket(ws_url))
        page.call("Page.enable")
        page.call("Runtime.enable")
        page.call("Page.navigate", url=url)
        page.wait_event("Page.loadEventFired")
        for key, value in fields.items():
            page.evaluate("document.getElementById(%s).value = %s" % (json.dumps(key),
                                                                     json.dumps(value)))
        if attach != "-":
            doc = page.call("DOM.getDocument")
            node = page.call("DOM.querySelector", nodeId=doc["root"]["nodeId"],
                             selector="#attachment")["nodeId"]
            page.call("DOM.setFileInputFiles", nodeId=node, files=[os.path.abspath(attach)])
        page.evaluate("document.getElementById('submit').click()")
        page.wait_event("Page.loadEventFired", timeout=120)
        title = page.evaluate("document.title")
        text = page.evaluate("document.body.innerText")
        if os.environ.get("CDP_DOM"):  # the next page's DOM, for dom_check.py
            with open(os.environ["CDP_DOM"], "w", encoding="utf-8") as f:
                f.write(page.evaluate("document.documentElement.outerHTML"))
        print("%s\t%s" % (title, text.replace("\n", " ")))
        return 0
    except Exception as e:  # the test prints why
        print("cdp_submit: %s" % e, file=sys.stderr)
        return 1
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    sys.exit(main())
