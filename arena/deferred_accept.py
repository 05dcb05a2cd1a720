"""Idle TCP peers kept out of the referee's file descriptors, by the kernel (Linux).

gRPC accepts every TCP connection at once: each takes a file descriptor and a place under the
connection cap until its handshake deadline. A peer that opens more connections than the cap
and sends nothing on them fills it, and while it holds them every new health check, Admin call
and bot is closed at the door. ``TCP_DEFER_ACCEPT`` on the listening socket makes the kernel
hand a connection to ``accept()`` only once its first bytes arrive: every gRPC client speaks
first (the HTTP/2 preface, or a TLS ClientHello), so they are served at once, while a silent
connection waits in the kernel's queue, holding no descriptor and no place under the cap.

gRPC's Python API does not expose the listening socket it creates, so it is found by its port
(``brandeln.arena.proc_sockets``), and the option is set on a duplicate of that descriptor (a socket
option belongs to the socket, not the descriptor).
"""

from __future__ import annotations

import contextlib
import os
import socket

from brandeln.arena.proc_sockets import listening_descriptors

__all__ = ["DEFER_ACCEPT_S", "defer_accept"]

# How long the kernel keeps a silent connection away from accept(). Long, so that a flood of
# idle connections expires in the kernel's queue rather than reaching the cap all at once; a
# real client sends its first bytes within a round trip.
DEFER_ACCEPT_S = 600


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
