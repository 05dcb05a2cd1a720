"""Addresses that must get a 4xx and nothing else from the web front, and a raw ASGI request.

The same lists go to the app in-process (Starlette's TestClient where it can send them,
:func:`asgi_get` where a client library would normalise or refuse them) and to a real
`brandeln web` process over a socket (tests/web/web_process.py).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote

from starlette.types import ASGIApp, Message

# What the in-process tests give the TestClient as its base: a name the app answers to
# (brandeln.services.trusted_hosts: the loopback names at the server's port, 80 here), not its
# default "testserver", which the app refuses as it would a rebound name.
APP_BASE: Final = "http://127.0.0.1"

# Ways out of /static/ towards the package's code, the data or /etc/passwd.
STATIC_ESCAPES: Final = (
    b"/static/../app.py",
    b"/static/../../web/app.py",
    b"/static/vendor/../../app.py",
    b"/static/%2e%2e/app.py",
    b"/static/%2e%2e/%2e%2e/etc/passwd",
    b"/static/%2E%2E/%2E%2E/%2E%2E/%2E%2E/%2E%2E/etc/passwd",
    b"/static/%252e%252e/app.py",
    b"/static/%252e%252e/%252e%252e/etc/passwd",
    b"/static/..%2fapp.py",
    b"/static/..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd",
    b"/static/..\\app.py",
    b"/static/..%5capp.py",
    b"/static/..%5c..%5c..%5c..%5cetc%5cpasswd",
    b"/static//etc/passwd",
    b"/static/%2fetc%2fpasswd",
    b"/static/%2Fetc/passwd",
    b"/static/style.css%00",
    b"/static/%00../app.py",
    b"/static/.%00./app.py",
)
# Ids and names in the path (a match, a bot, a season) that look like files.
PATH_IDS: Final = (
    b"../../etc/passwd",
    b"..%2F..%2Fetc%2Fpasswd",
    b"..%2f..%2fetc",
    b"%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    b"%252e%252e%252fetc",
    b"..",
    b"%2e%2e",
    b".",
    b"..%5c..%5cetc%5cpasswd",
    b"..\\..\\etc\\passwd",
    b"%2fetc%2fpasswd",
    b"%00",
    b"m_0123%00.jsonl",
    b"%ff%fe",
    b"%zz",
    b"C:%5cWindows%5cwin.ini",
    b"x" * 10_000,
)
PATH_KINDS: Final = ("matches", "bots", "seasons", "live")
# Query strings every paged page must refuse with a 4xx (not a page 1 served as if asked).
BAD_PAGES: Final = (
    b"page=abc",
    b"page=-1",
    b"page=0",
    b"page=",
    b"page=1e999",
    b"page=1.5",
    b"page=%20%201",
    b"page=99999999999999999999999",
    b"page=" + b"9" * 5000,
    b"page=%zz",
    b"page=%00",
    b"page=%ff%fe",
    b"page=%EF%BC%91",  # a fullwidth 1: a digit to str.isdigit, no page number
    b"page=1&page=2",
    b"page=2&page=2",
)
HUGE_QUERY: Final = b"a=" + b"x" * 100_000
# An error page's line, or the head to head's on its leaderboard.
ERROR_LINE: Final = re.compile(
    r'<p (?:class="error" id="error-message"|id="versus-result" class="error")>(.*?)</p>', re.S
)


@dataclass(frozen=True)
class AsgiReply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


async def asgi_get(
    app: ASGIApp,
    target: bytes,
    headers: Sequence[tuple[bytes, bytes]] = (),
    host: bytes | None = b"127.0.0.1",
) -> AsgiReply:
    """``GET target`` straight into the app, its path decoded as uvicorn decodes it; ``host``
    its Host header (the server's port is 80; None: the request names none but in
    ``headers``)."""
    raw_path, _, query = target.partition(b"?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": unquote(raw_path.decode("ascii")),
        "raw_path": raw_path,
        "root_path": "",
        "query_string": query,
        "headers": [*([(b"host", host)] if host is not None else []), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }
    status = 0
    reply_headers: dict[str, str] = {}
    body: list[bytes] = []
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            for name, value in message.get("headers", []):
                reply_headers[name.decode("latin-1")] = value.decode("latin-1")
        elif message["type"] == "http.response.body":
            body.append(message.get("body", b""))

    await app(scope, receive, send)
    return AsgiReply(status, reply_headers, b"".join(body))


def no_file_content(body: str) -> bool:
    """No line of /etc/passwd, of our Python, or of a trace is in ``body``."""
    marks = ("root:x:", "root:*:", "from __future__", "def create_app", "Traceback")
    return not any(mark in body for mark in marks)


def refusal_line(status: int, content_type: str, text: str) -> str:
    """The one line a 4xx answer says why in (its page's error line, or its plain text)."""
    assert 400 <= status < 500, (status, text[:300])
    assert no_file_content(text), text[:300]
    if content_type.startswith("text/html"):
        found = ERROR_LINE.search(text)
        assert found is not None, text[:300]
        line = html.unescape(found.group(1))
    else:  # ours, or the server's own for a request line it cannot parse
        assert content_type.startswith("text/plain"), content_type
        line = text.removesuffix("\n")
    assert line.strip()
    assert "\n" not in line
    return line
