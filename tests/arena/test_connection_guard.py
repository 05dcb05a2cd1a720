"""The connection guard's order (brandeln.arena.connection_guard): idle connections that have
received nothing for longest go first, whatever their inode numbers say (the kernel hands those out
in per-CPU batches, so a lower one is not always older) and however slowly the sweep reads them
(a loaded machine). The whole guard against a real referee and a flood:
tests/faults/test_connection_limits.py."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator

import pytest

from brandeln.arena import connection_guard
from brandeln.arena.connection_guard import ConnectionGuard, OpenCalls, heard_at_ms, idle_ms
from brandeln.arena.proc_sockets import AcceptedSocket, accepted_sockets

WAIT_S = 60.0  # a hang guard only


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    server = socket.create_server(("127.0.0.1", 0))
    yield server
    server.close()


def _connect(server: socket.socket) -> tuple[socket.socket, socket.socket]:
    client = socket.create_connection(server.getsockname())
    client.sendall(b"hello")
    accepted, _ = server.accept()
    return client, accepted


def _found(port: int, accepted: socket.socket) -> AcceptedSocket:
    inode = os.fstat(accepted.fileno()).st_ino
    return next(found for found in accepted_sockets(port) if found.inode == inode)


def test_idle_ms_grows_while_nothing_arrives_and_restarts_when_data_does(
    listener: socket.socket,
) -> None:
    port = listener.getsockname()[1]
    client, accepted = _connect(listener)
    with client, accepted:
        found = _found(port, accepted)
        deadline = time.monotonic() + WAIT_S
        while idle_ms(found) < 20:  # the kernel counts in jiffies: wait for a few
            assert time.monotonic() < deadline
            time.sleep(0.01)
        before = idle_ms(found)
        client.sendall(b"more")
        received = b""
        while not received.endswith(b"more"):  # the kernel has it (and "hello" before it)
            received += accepted.recv(64)
        assert idle_ms(found) < before


def test_a_gone_connection_reads_as_never_idle_and_never_heard_from(
    listener: socket.socket,
) -> None:
    port = listener.getsockname()[1]
    client, accepted = _connect(listener)
    found = _found(port, accepted)
    client.close()
    accepted.close()
    assert idle_ms(found) == 0
    assert heard_at_ms(found) == float("inf")  # sorted after every live one: never closed first


def test_the_sweep_closes_the_longest_idle_first_not_the_lowest_inode(
    listener: socket.socket, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = listener.getsockname()[1]
    pairs = [_connect(listener) for _ in range(4)]
    try:
        # The oldest two have been quiet for longest: wait until the kernel says so.
        deadline = time.monotonic() + WAIT_S
        while True:
            for client, _ in pairs[2:]:
                client.sendall(b"x")
            quiet = [idle_ms(_found(port, accepted)) for _, accepted in pairs]
            if min(quiet[:2]) > max(quiet[2:]):
                break
            assert time.monotonic() < deadline, quiet
            time.sleep(0.01)
        found = [_found(port, accepted) for _, accepted in pairs]
        # Inodes as if the kernel had numbered the newest connections lowest.
        reversed_inodes = [
            AcceptedSocket(f.fd, 10**9 - n, f.peer_host, f.peer_port) for n, f in enumerate(found)
        ]
        monkeypatch.setattr(
            "brandeln.arena.connection_guard.accepted_sockets", lambda _: reversed_inodes
        )
        heard = {n: -float(age) for n, age in enumerate(quiet)}  # the older, the earlier
        monkeypatch.setattr(
            "brandeln.arena.connection_guard.heard_at_ms", lambda f: heard[found_index(f)]
        )

        def found_index(f: AcceptedSocket) -> int:
            return next(n for n, one in enumerate(reversed_inodes) if one.inode == f.inode)

        shut: list[int] = []

        def record(f: AcceptedSocket) -> bool:
            shut.append(found_index(f))
            return True

        monkeypatch.setattr("brandeln.arena.connection_guard._shut", record)
        # A cap of 4: the sweep starts at 3 connections and keeps 2.
        guard = ConnectionGuard(port, cap=4, calls=OpenCalls())
        monkeypatch.setattr("brandeln.arena.connection_guard.descriptor_count", lambda: 10**6)
        assert guard.sweep() == 2
        assert sorted(shut) == [0, 1]
    finally:
        for client, accepted in pairs:
            client.close()
            accepted.close()


def test_a_sweep_slowed_down_between_its_readings_still_closes_the_older_connection(
    listener: socket.socket, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seen under load: a flood's first connections were left open while newer ones were
    # closed. The sweep read each connection's age in turn; the readings a loaded machine
    # delayed made the connections read last look older than they were.
    port = listener.getsockname()[1]
    older, newer = _connect(listener), _connect(listener)
    try:
        gap_ms = 300
        deadline = time.monotonic() + WAIT_S
        while idle_ms(_found(port, older[1])) < gap_ms:  # the kernel's own count
            assert time.monotonic() < deadline
            time.sleep(0.01)
        newer[0].sendall(b"x")  # the newer one last heard from at least gap_ms later
        received = b""
        while not received.endswith(b"x"):
            received += newer[1].recv(64)
        listed = [_found(port, older[1]), _found(port, newer[1])]  # the newer one read last
        # A cap of 2: the sweep starts at 1 connection and keeps 1.
        guard = ConnectionGuard(port, cap=2, calls=OpenCalls())
        monkeypatch.setattr("brandeln.arena.connection_guard.accepted_sockets", lambda _: listed)
        monkeypatch.setattr("brandeln.arena.connection_guard.descriptor_count", lambda: 10**6)
        duplicate = connection_guard._duplicate
        readings = 0

        def slowed(found: AcceptedSocket) -> socket.socket | None:
            nonlocal readings
            readings += 1
            if readings == 2:  # between the two readings: three times the gap
                time.sleep(3 * gap_ms / 1000)
            return duplicate(found)

        monkeypatch.setattr("brandeln.arena.connection_guard._duplicate", slowed)
        shut: list[AcceptedSocket] = []

        def record(found: AcceptedSocket) -> bool:
            shut.append(found)
            return True

        monkeypatch.setattr("brandeln.arena.connection_guard._shut", record)
        assert guard.sweep() == 1
        assert shut == [listed[0]]
    finally:
        for client, accepted in (older, newer):
            client.close()
            accepted.close()
