"""A service's ``/metrics`` over HTTP (the referee's, the always-on ladder's), served by
prometheus_client on a thread of its own.

A thread, not the service's event loop: a scrape's work (the process metrics read from
/proc, the text written out) and a slow or hostile HTTP client never hold up a decision or a
block, and no ASGI server comes into the process. The thread reads the service through its
collectors (:mod:`brandeln.services.metrics.referee`, :mod:`brandeln.services.metrics.ladder`), each
written to be read from another thread.

The port may be as reachable as the referee's, so what a peer can hold there is bounded: at
most :data:`MAX_REQUESTS` requests at once (one more is closed at once), each with
:data:`REQUEST_TIMEOUT_S` for each read and write; nothing it sends reaches stderr (no access
log; a failed request is a debug record). A browser's page is no scraper: a request whose
``Host`` the server does not answer to (a hostile site's name pointed here by its DNS) is a
421 with one line, as the web pages' (:mod:`brandeln.services.trusted_hosts`).
"""

from __future__ import annotations

import logging
import socket
import socketserver
import threading
from collections.abc import Callable, Iterable
from typing import Any, Final
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from prometheus_client import CollectorRegistry, make_wsgi_app
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from brandeln.services.trusted_hosts import Arrival, TrustedHosts

__all__ = ["MAX_REQUESTS", "REQUEST_TIMEOUT_S", "MetricsServer", "metrics_registry"]

MAX_REQUESTS: Final = 8
REQUEST_TIMEOUT_S: Final = 10.0

_log = logging.getLogger(__name__)

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def metrics_registry(collectors: Iterable[Collector]) -> CollectorRegistry:
    """The service's metrics and the usual process, platform and garbage-collector ones, in a
    registry of their own (not prometheus_client's global one: a test process may run several
    referees)."""
    registry = CollectorRegistry()
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    GCCollector(registry=registry)
    for collector in collectors:
        registry.register(collector)
    return registry


class _QuietHandler(WSGIRequestHandler):
    """No access log on stderr (the referee's stderr may be JSON lines), a timeout on each
    read and write."""

    timeout = REQUEST_TIMEOUT_S

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _BoundedServer(socketserver.ThreadingMixIn, WSGIServer):
    """A thread per request, at most MAX_REQUESTS of them."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], family: socket.AddressFamily) -> None:
        self.address_family = family
        self._slots = threading.BoundedSemaphore(MAX_REQUESTS)
        super().__init__(address, _QuietHandler)

    def server_bind(self) -> None:
        # HTTPServer's own would look its host's name up (socket.getfqdn: DNS) at every start.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), self.server_address[1]
        self.setup_environ()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # socketserver would print the traceback on stderr (a client that timed out, or reset).
        _log.debug(
            "a metrics request from %s failed",
            client_address,
            exc_info=True,
            extra={"event": "metrics_request_failed"},
        )


def _guarded(app: WsgiApp) -> WsgiApp:
    """``app``, its failure a 500 and an error record (wsgiref would print it on stderr)."""

    def guarded(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        try:
            return app(environ, start_response)
        except Exception:
            _log.exception("collecting the metrics failed", extra={"event": "metrics_failed"})
            start_response("500 Internal Server Error", [("Content-Type", "text/plain")])
            return [b"collecting the metrics failed\n"]

    return guarded


def _trusted(app: WsgiApp, trusted: TrustedHosts) -> WsgiApp:
    """``app`` for the names the server answers to only; any other a one-line refusal."""

    def checked(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        # wsgiref joins repeated headers with a comma: two Hosts are one malformed value.
        arrival = Arrival(
            method=str(environ.get("REQUEST_METHOD", "")),
            scheme=str(environ.get("wsgi.url_scheme", "")),
            server_port=int(environ["SERVER_PORT"]),
            hosts=[environ["HTTP_HOST"]] if "HTTP_HOST" in environ else [],
            origins=[environ["HTTP_ORIGIN"]] if "HTTP_ORIGIN" in environ else [],
        )
        refusal = trusted.refusal(arrival)
        if refusal is None:
            return app(environ, start_response)
        status = refusal.status
        start_response(
            f"{status.value} {status.phrase}", [("Content-Type", "text/plain; charset=utf-8")]
        )
        return [f"{refusal.value}\n".encode()]

    return checked


class MetricsServer:
    """``/metrics`` of ``collectors`` on ``host:port`` (port 0: a free one), served until
    :meth:`stop` to the names of ``trusted_hosts`` (by default those a server on ``host``
    answers to, :meth:`TrustedHosts.for_bind`). Binding raises OSError (a port in use, an
    unknown host)."""

    def __init__(
        self,
        collectors: Iterable[Collector],
        host: str,
        port: int,
        trusted_hosts: TrustedHosts | None = None,
    ) -> None:
        # Brackets as in a URL ("[::1]") or not: either names the address.
        bare = host.removeprefix("[").removesuffix("]")
        family, _, _, _, address = socket.getaddrinfo(
            bare, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        self._server = _BoundedServer((str(address[0]), int(address[1])), family)
        trusted = trusted_hosts if trusted_hosts is not None else TrustedHosts.for_bind(bare)
        served = _guarded(make_wsgi_app(metrics_registry(collectors)))
        self._server.set_app(_trusted(served, trusted))
        self.trusted_hosts = trusted
        self.host = bare
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="metrics server", daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def stop(self) -> None:
        """Stop serving and close the port (blocks up to half a second: the serving loop's
        poll)."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
