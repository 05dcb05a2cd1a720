"""A real `brandeln web` process for the tests, and raw HTTP requests to it.

:func:`web_process` starts the command on 127.0.0.1 with ``--port 0``, waits for the line that
prints its address (never a fixed sleep: the socket listens before that line is printed, so a
request sent after it is answered once uvicorn runs), and stops it by its PID afterwards.
:func:`raw_get` sends a request line exactly as given (``..``, ``%00``, a backslash, 100 KB),
which an HTTP client library would normalise or refuse.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final

from tests.conftest import ROOT

ADDRESS: Final = re.compile(r"http://127\.0\.0\.1:(\d+)/")
STARTED: Final = "(read-only; Ctrl-C stops it)"  # the last line `brandeln web` prints at start
WAIT_S: Final = 120.0  # for a line or an answer: generous, the suite runs beside CPU hogs


@dataclass
class WebProcess:
    process: subprocess.Popen[str]
    port: int = 0
    lines: list[str] = field(default_factory=list)  # what it printed until it started
    _queue: queue.Queue[str | None] = field(default_factory=queue.Queue)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def address_line(self) -> str:
        """The line that printed its address (Python may warn before it)."""
        return next(line for line in self.lines if ADDRESS.search(line))

    def next_line(self) -> str | None:
        """Its next line of output (None at its end)."""
        try:
            return self._queue.get(timeout=WAIT_S)
        except queue.Empty:
            raise AssertionError(f"`brandeln web` printed nothing for {WAIT_S} s") from None

    def rest(self) -> str:
        """What it printed after starting, once it has stopped."""
        lines = []
        while (line := self._queue.get(timeout=WAIT_S)) is not None:
            lines.append(line)
        return "".join(lines)


def _pump(stream: Iterator[str], into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


@contextmanager
def web_process(args: Sequence[str], env: dict[str, str] | None = None) -> Iterator[WebProcess]:
    """`brandeln web ARGS --port 0`, started and stopped (SIGINT, then SIGKILL) by its PID."""
    environment = {
        **{k: v for k, v in os.environ.items() if k != "BRANDELN_ADMIN_TOKEN"},
        "PYTHONPATH": str(ROOT),
        **(env or {}),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "brandeln_cli", "web", *args, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment,
        cwd=ROOT,
    )
    web = WebProcess(process)
    assert process.stdout is not None
    reader = threading.Thread(target=_pump, args=(process.stdout, web._queue), daemon=True)
    reader.start()
    try:
        while (line := web.next_line()) is not None:
            web.lines.append(line)
            if found := ADDRESS.search(line):
                web.port = int(found.group(1))
            if line.strip() == STARTED:
                break
        assert web.port, f"`brandeln web` printed no address: {''.join(web.lines)}"
        yield web
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
        reader.join(timeout=30)


@dataclass(frozen=True)
class RawReply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def raw_get(port: int, target: bytes, headers: Sequence[tuple[str, str]] = ()) -> RawReply:
    """``GET target`` over a new connection to 127.0.0.1:``port``, byte for byte."""
    request = b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    request += b"".join(f"{name}: {value}\r\n".encode("latin-1") for name, value in headers)
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as connection:
        connection.sendall(request + b"\r\n")
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    parsed = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        parsed[name.strip().lower()] = value.strip()
    if parsed.get("transfer-encoding") == "chunked":
        body = _unchunk(body)
    return RawReply(int(status_line.split()[1]), parsed, body)


def _unchunk(body: bytes) -> bytes:
    out = []
    while body:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out.append(body[:size])
        body = body[size + 2 :]
    return b"".join(out)
