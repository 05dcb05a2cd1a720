"""What every request is checked for, and every response carries, around the pages.

- Where it goes and where it comes from (:mod:`brandeln.services.trusted_hosts`, against DNS
  rebinding): a ``Host`` the server does not answer to is a 421, none or a malformed one a
  400, and a post (any unsafe method) whose ``Origin`` is not the request's own a 403; before
  routing, so no page, stream, static file or form sees it.
- A path longer than :data:`MAX_PATH_BYTES` or a query string longer than
  :data:`MAX_QUERY_BYTES` is a 414, a path holding a control character (``%00``...) a 400:
  one line of plain text before routing, so no page, store or file sees it.
- Every response tells the browser how to treat it: a Content-Security-Policy that runs only
  the app's own script files (so bot text that a mistake left unescaped still could not run),
  ``nosniff`` (a plain-text error is never read as HTML), and no address sent on to other
  sites.
"""

from __future__ import annotations

import re
from enum import Enum
from http import HTTPStatus
from typing import Final

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from brandeln.services.trusted_hosts import LOOPBACK_ONLY, Arrival, HostRefusal, TrustedHosts

__all__ = ["MAX_PATH_BYTES", "MAX_QUERY_BYTES", "Guard", "Refusal"]

# Far beyond any page's address (ids are 20 characters, season names 64), far below a
# server's own limits.
MAX_PATH_BYTES: Final = 2048
MAX_QUERY_BYTES: Final = 8192  # the head to head's two sides of bot names, percent-encoded
CONTENT_SECURITY_POLICY: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS: Final = (
    ("content-security-policy", CONTENT_SECURITY_POLICY),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
)
_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f]")


class Refusal(Enum):
    """Why a request is refused before routing."""

    LONG_PATH = f"the address is too long (at most {MAX_PATH_BYTES} bytes before the ?)"
    LONG_QUERY = f"the query string is too long (at most {MAX_QUERY_BYTES} bytes)"
    CONTROL_CHARACTER = "the address holds a control character"

    @property
    def status(self) -> HTTPStatus:
        if self is Refusal.CONTROL_CHARACTER:
            return HTTPStatus.BAD_REQUEST
        return HTTPStatus.REQUEST_URI_TOO_LONG


def refusal(scope: Scope, trusted: TrustedHosts = LOOPBACK_ONLY) -> Refusal | HostRefusal | None:
    """Why the request of ``scope`` is refused; None if it may be routed. ``trusted``: the
    names the server answers to."""
    headers = Headers(scope=scope)
    server = scope.get("server")
    arrival = Arrival(
        method=scope["method"],
        scheme=scope["scheme"],
        server_port=None if server is None else int(server[1]),
        hosts=headers.getlist("host"),
        origins=headers.getlist("origin"),
    )
    misdirected = trusted.refusal(arrival)
    if misdirected is not None:
        return misdirected
    path: str = scope["path"]
    raw_path = scope.get("raw_path") or path.encode("utf-8", "surrogateescape")
    if len(raw_path) > MAX_PATH_BYTES:
        return Refusal.LONG_PATH
    if len(scope.get("query_string", b"")) > MAX_QUERY_BYTES:
        return Refusal.LONG_QUERY
    if _CONTROL.search(path):
        return Refusal.CONTROL_CHARACTER
    return None


class Guard:
    """The middleware: refuses requests to names the server does not answer to, posts from
    other sites and malformed addresses; adds the security headers."""

    def __init__(self, app: ASGIApp, trusted_hosts: TrustedHosts = LOOPBACK_ONLY) -> None:
        self.app = app
        self.trusted_hosts = trusted_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS:
                    headers.setdefault(name, value)
            await send(message)

        reason = refusal(scope, self.trusted_hosts)
        if reason is not None:
            reply = PlainTextResponse(f"{reason.value}\n", status_code=reason.status)
            await reply(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)
