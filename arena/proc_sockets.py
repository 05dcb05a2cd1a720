"""This process's TCP sockets on a port, read from ``/proc`` (Linux; elsewhere: none).

gRPC's Python API hides the sockets it listens and serves on. Two guards need them: the
listener (``brandeln.arena.deferred_accept`` sets an option on it) and the connections it accepted
(``brandeln.arena.connection_guard`` closes idle ones). Both are found the same way: the socket's
inode in ``/proc/self/net/tcp{,6}`` (by local port and state) matched with this process's
descriptors (``/proc/self/fd``, whose links read ``socket:[INODE]``).

>>> parse_address("0100007F:1F90"), parse_address("00000000000000000000000001000000:0050")
(('127.0.0.1', 8080), ('::1', 80))
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

__all__ = [
    "AcceptedSocket",
    "TcpState",
    "accepted_sockets",
    "descriptor_count",
    "listening_descriptors",
    "parse_address",
]

_PROC: Final = Path("/proc/self")
_TABLES: Final = ("tcp", "tcp6")


class TcpState(StrEnum):
    """The state column of /proc/net/tcp (the kernel's TCP_* numbers, in hex)."""

    ESTABLISHED = "01"
    LISTEN = "0A"


@dataclass(frozen=True, slots=True)
class AcceptedSocket:
    """One connection this process serves on the port: its descriptor, its socket's inode
    and the peer's address."""

    fd: int
    inode: int
    peer_host: str
    peer_port: int


def parse_address(text: str) -> tuple[str, int]:
    """``HEXADDR:HEXPORT`` of /proc/net/tcp{,6} as (host, port); an IPv4 address mapped into
    IPv6 reads as the IPv4 one (a dual-stack listener's IPv4 peers)."""
    address, port = text.rsplit(":", 1)
    raw = bytes.fromhex(address)
    # The kernel prints each 32-bit word of the address in host (little-endian) order.
    ordered = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    host: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(ordered)
    if isinstance(host, ipaddress.IPv6Address) and host.ipv4_mapped is not None:
        host = host.ipv4_mapped
    return str(host), int(port, 16)


def _rows(port: int, state: TcpState) -> Iterator[tuple[int, tuple[str, int]]]:
    """(inode, peer address) of each socket on local ``port`` in ``state``."""
    for table in _TABLES:
        with contextlib.suppress(OSError):
            for line in (_PROC / "net" / table).read_text().splitlines()[1:]:
                fields = line.split()
                local, remote, row_state, inode = fields[1], fields[2], fields[3], fields[9]
                if row_state == state and int(local.rsplit(":", 1)[1], 16) == port:
                    yield int(inode), parse_address(remote)


def _descriptors_of(inodes: set[int]) -> dict[int, int]:
    """This process's descriptors of the sockets with these inodes: inode -> descriptor."""
    found: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for name in os.listdir(_PROC / "fd"):
            with contextlib.suppress(OSError, ValueError):
                target = os.readlink(_PROC / "fd" / name)
                if target.startswith("socket:[") and int(target[8:-1]) in inodes:
                    found[int(target[8:-1])] = int(name)
    return found


def listening_descriptors(port: int) -> list[int]:
    """This process's descriptors of TCP sockets listening on ``port``."""
    inodes = {inode for inode, _ in _rows(port, TcpState.LISTEN)}
    return sorted(_descriptors_of(inodes).values())


def accepted_sockets(port: int) -> list[AcceptedSocket]:
    """The connections this process holds on local ``port``, oldest first (by inode)."""
    peers = dict(_rows(port, TcpState.ESTABLISHED))
    descriptors = _descriptors_of(set(peers))
    return sorted(
        (
            AcceptedSocket(fd, inode, *peers[inode])
            for inode, fd in descriptors.items()
            if inode in peers
        ),
        key=lambda found: found.inode,
    )


def descriptor_count() -> int:
    """How many descriptors this process has open (0 where /proc is missing): a cheap
    reading, where :func:`accepted_sockets` reads the host's whole TCP table."""
    try:
        return len(os.listdir(_PROC / "fd"))
    except OSError:
        return 0
