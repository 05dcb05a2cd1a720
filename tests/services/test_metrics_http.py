"""The metrics endpoint (brandeln.services.metrics.endpoint) answers only to the names it is reached
by: a hostile site's name pointed at this machine (DNS rebinding) gets a 421 with one line, never
the metrics; the loopback names at its port, and the operator's own, get them."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from brandeln.services.metrics.endpoint import MetricsServer
from brandeln.services.trusted_hosts import HostRefusal, TrustedHosts
from tests.http_requests import WAIT_S, request_to


@pytest.fixture
def loopback_metrics() -> Iterator[MetricsServer]:
    server = MetricsServer([], "127.0.0.1", 0)
    try:
        yield server
    finally:
        server.stop()


def scrape(port: int, host: str) -> tuple[int, str]:
    """``/metrics`` on 127.0.0.1:``port``, the request naming ``host`` in its Host header."""
    return request_to(port, host, "/metrics")


def test_a_rebound_name_gets_one_line_and_no_metrics(loopback_metrics: MetricsServer) -> None:
    port = loopback_metrics.port
    status, text = scrape(port, f"rebind.example:{port}")
    assert status == 421
    assert text == f"{HostRefusal.FOREIGN_HOST.value}\n"
    assert "process_cpu_seconds" not in text


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "[::1]"])
def test_the_loopback_names_at_its_port_get_the_metrics(
    loopback_metrics: MetricsServer, name: str
) -> None:
    port = loopback_metrics.port
    status, text = scrape(port, f"{name}:{port}")
    assert status == 200
    assert "process_cpu_seconds" in text
    assert scrape(port, f"{name}:{port + 1}")[0] == 421


def test_a_request_without_a_host_is_refused(loopback_metrics: MetricsServer) -> None:
    with socket.create_connection(("127.0.0.1", loopback_metrics.port), timeout=WAIT_S) as peer:
        peer.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
        reply = b"".join(iter(lambda: peer.recv(65536), b""))
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 400 ")
    assert body.decode() == f"{HostRefusal.NO_HOST.value}\n"


def test_off_loopback_it_answers_ip_addresses_and_the_names_allowed() -> None:
    # As `--metrics-host 0.0.0.0 --metrics-allowed-host prometheus.lan` would, bound to
    # loopback here: nothing listens beyond it in a test.
    trusted = TrustedHosts.for_bind("0.0.0.0", ["prometheus.lan"])
    server = MetricsServer([], "127.0.0.1", 0, trusted)
    try:
        port = server.port
        assert scrape(port, f"prometheus.lan:{port}")[0] == 200
        assert scrape(port, f"10.0.0.5:{port}")[0] == 200
        assert scrape(port, f"rebind.example:{port}")[0] == 421
    finally:
        server.stop()
