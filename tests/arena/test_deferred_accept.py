"""`brandeln.arena.deferred_accept` and `brandeln.arena.proc_sockets`: the referee's listeners found
by port, and deferred."""

from __future__ import annotations

import socket

import pytest

from brandeln.arena.deferred_accept import defer_accept
from brandeln.arena.proc_sockets import listening_descriptors

pytestmark = pytest.mark.skipif(
    not hasattr(socket, "TCP_DEFER_ACCEPT"), reason="TCP_DEFER_ACCEPT is Linux's"
)


def test_the_listener_on_a_port_is_found_and_deferred_and_no_other_socket() -> None:
    with socket.socket() as listener, socket.socket() as other:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        other.bind(("127.0.0.1", 0))  # bound, not listening: left alone
        port = listener.getsockname()[1]
        assert listening_descriptors(port) == [listener.fileno()]
        assert listening_descriptors(other.getsockname()[1]) == []
        assert defer_accept(port, seconds=30) == 1
        # The kernel keeps it as SYN-ACK retransmits; it reads back as a number of seconds.
        assert listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_DEFER_ACCEPT) > 0
        assert other.getsockopt(socket.IPPROTO_TCP, socket.TCP_DEFER_ACCEPT) == 0
        listener.settimeout(0.2)
        # A client that speaks first is accepted; the listener still works after the option.
        with socket.create_connection(("127.0.0.1", port)) as client:
            client.sendall(b"PRI")
            accepted, _ = listener.accept()
            accepted.close()


def test_a_port_nobody_listens_on_has_no_listener() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert defer_accept(port) == 0
