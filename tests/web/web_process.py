"""A real `brandeln web` process for the tests, and raw HTTP requests to it.

:func:`web_process` starts the command on 127.0.0.1 with ``--port 0``, waits for the line that
prints its address (never a fixed sleep: the socket listens before that line is printed, so a
request sent after it is answered once uvicorn runs), and stops it by its PID afterwards.
:func:`raw_get` sends a request line exactly as given (``..``, ``%00``, a backslash, 100 KB),
which an HTTP client library would normalise or refuse.
"""

from __future__ import annotations

import re
import signal
import socket
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final

from tests.cli_process import CliProcess, cli_process

ADDRESS: Final = re.compile(r"http://127\.0\.0\.1:(\d+)/")
STARTED: Final = "; Ctrl-C stops it)"  # the end of the last line `brandeln web` prints at start
WAIT_S: Final = 120.0  # for an answer: generous, the suite runs beside CPU hogs


@dataclass
class WebProcess(CliProcess):
    port: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def address_line(self) -> str:
        """The line that printed its address (Python may warn before it)."""
        return next(line for line in self.lines if ADDRESS.search(line))


@contextmanager
def web_process(
    args: Sequence[str], env: dict[str, str] | None = None, *, ignoring: Sequence[int] = ()
) -> Iterator[WebProcess]:
    """`brandeln web ARGS --port 0`, started and stopped (SIGINT, then SIGKILL) by its PID;
    ``ignoring``: signals it starts with ignored (:func:`tests.cli_process.cli_process`)."""
    command = ["web", *args, "--port", "0"]
    with cli_process(command, env, stop=signal.SIGINT, ignoring=ignoring) as running:
        web = WebProcess(running.process, running.lines, running._queue)
        web.wait_for(STARTED)
        found = next((ADDRESS.search(line) for line in web.lines if ADDRESS.search(line)), None)
        assert found, f"`brandeln web` printed no address: {''.join(web.lines)}"
        web.port = int(found.group(1))
        yield web


@dataclass(frozen=True)
class RawReply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def raw_get(
    port: int, target: bytes, headers: Sequence[tuple[str, str]] = (), *, host: str | None = None
) -> RawReply:
    """``GET target`` over a new connection to 127.0.0.1:``port``, byte for byte; ``host`` its
    Host header (by default ``127.0.0.1:port``, as a browser names it)."""
    named = (host if host is not None else f"127.0.0.1:{port}").encode("latin-1")
    request = b"GET " + target + b" HTTP/1.1\r\nHost: " + named + b"\r\nConnection: close\r\n"
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
