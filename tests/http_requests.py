"""An HTTP request to a server the tests started on 127.0.0.1, naming in ``Host`` whatever
the test chooses: a loopback name, one the operator allowed, or a hostile site's name that its
DNS points here (DNS rebinding), as the browser on that site's page would send it.

(``tests/web/web_process.py``'s ``raw_get`` sends a request line byte for byte, for what a
client library would refuse.)
"""

from __future__ import annotations

import http.client
from collections.abc import Mapping
from typing import Final

WAIT_S: Final = 120.0  # for an answer: generous, the suite runs beside CPU hogs


def request_to(
    port: int,
    host: str,
    path: str,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    body: str | None = None,
) -> tuple[int, str]:
    """``method path`` to 127.0.0.1:``port`` with ``Host: host``; its status and text."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
    try:
        connection.request(method, path, body=body, headers={"Host": host, **(headers or {})})
        reply = connection.getresponse()
        return reply.status, reply.read().decode()
    finally:
        connection.close()
