"""Idle TCP peers kept out of the referee's file descriptors, by the kernel (Linux).

gRPC accepts every TCP connection at once: each takes a file descriptor and a place under the
connection cap until its handshake deadline. A peer that opens more connections than the cap
and sends nothing on them fills it, and while it holds them every new health check, Admin call
and bot is closed at the door. ``TCP_DEFER_ACCEPT`` on the listening socket makes the kernel
hand a connection to ``accept()`` only once its first bytes arrive: every gRPC client speaks
first (the HTTP/2 preface, or a TLS ClientHello), so they are served at once, while a silent
connection waits in the kernel's queue, holding no descriptor and no place under the cap.

gRPC's Python API does not expose the listening socket it creates, so it is found by its port
in ``/proc/self/net/tcp{,6}`` and among this process's descriptors, and the option is set on
a duplicate of that descriptor (a socket option belongs to the socket, not the descriptor).
"""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path

__all__ = ["DEFER_ACCEPT_S", "defer_accept", "listening_descriptors"]

# How long the kernel keeps a silent connection away from accept(). Long, so that a flood of
# idle connections expires in the kernel's queue rather than reaching the cap all at once; a
# real client sends its first bytes within a round trip.
DEFER_ACCEPT_S = 600
_LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp's state column
_PROC = Path("/proc/self")


def _listening_inodes(port: int) -> set[str]:
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        with contextlib.suppress(OSError):
            for line in (_PROC / "net" / table).read_text().splitlines()[1:]:
                fields = line.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state == _LISTEN and int(local.rsplit(":", 1)[1], 16) == port:
                    inodes.add(inode)
    return inodes


def listening_descriptors(port: int) -> list[int]:
    """This process's descriptors of TCP sockets listening on ``port`` (none off Linux)."""
    inodes = _listening_inodes(port)
    found = []
    with contextlib.suppress(OSError):
        for name in os.listdir(_PROC / "fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(_PROC / "fd" / name)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    found.append(int(name))
    return sorted(found)


def defer_accept(port: int, seconds: int = DEFER_ACCEPT_S) -> int:
    """Set TCP_DEFER_ACCEPT on this process's listeners on ``port``; how many were set.

    0 where the platform has no such option (or no /proc): the connection cap and gRPC's
    handshake deadline still bound what silent peers hold.
    """
    option = getattr(socket, "TCP_DEFER_ACCEPT", None)
    if option is None:
        return 0
    done = 0
    for fd in listening_descriptors(port):
        with contextlib.suppress(OSError), socket.socket(fileno=os.dup(fd)) as listener:
            listener.setsockopt(socket.IPPROTO_TCP, option, seconds)
            done += 1
    return done
