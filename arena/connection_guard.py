"""Idle connections closed before they fill the connection cap, so newcomers always get in.

gRPC closes a new connection at once when the referee holds its cap of them
(``ConnectionLimits.connection_cap``: 768 under an open-file limit of 1,024). A peer that
completes the HTTP/2 handshake on that many connections and then calls nothing (a flood
script, or a client that opens channels and sits on them) holds every place until
``max_connection_idle_ms`` closes them, and can open them again: meanwhile every health check,
Admin call and bot is closed at the door (UNAVAILABLE). ``TCP_DEFER_ACCEPT``
(``brandeln.arena.deferred_accept``) keeps only *silent* connections out.

The guard keeps room. Every :data:`PERIOD_S` it counts the process's descriptors (cheap);
once the connections reach :data:`HIGH_WATER` of the cap it lists them
(``brandeln.arena.proc_sockets``) and closes idle ones (no call open on them) until they are down to
:data:`LOW_WATER`: those of the address holding the most connections first, within it the one that
has received nothing for longest first (:func:`heard_at_ms`: the kernel's ``tcpi_last_data_recv``
taken from the monotonic clock read beside it; the socket's inode breaks ties). Not the inode alone:
the kernel hands inode numbers out in per-CPU batches, so on a busy machine a lower one is not
always an older connection. Nor the kernel's age alone: a sweep that a loaded machine slows
down reads the last sockets it lists later, so they would look older than they are. A
connection with
a call open (a bot's Play stream, a running Admin call, a health Watch) is never closed; an
idle client that is closed reconnects on its next call, as after ``max_connection_idle_ms``.
Calls are counted by a server interceptor (:class:`OpenCalls`), per call, not per message.

Closing is ``shutdown()`` on a duplicate of gRPC's descriptor (the socket, not the descriptor,
is shut): gRPC reads end-of-file and closes the connection as if the peer had.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import math
import os
import socket
import struct
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final
from urllib.parse import unquote

import grpc

from brandeln.arena.proc_sockets import AcceptedSocket, accepted_sockets, descriptor_count

__all__ = [
    "HIGH_WATER",
    "LOW_WATER",
    "PERIOD_S",
    "ConnectionGuard",
    "OpenCalls",
    "heard_at_ms",
    "idle_ms",
    "peer_address",
]

PERIOD_S: Final = 0.25
# Fractions of the cap: a sweep starts at the first and closes idle connections down to the
# second, leaving a quarter of the cap for whoever comes next.
HIGH_WATER: Final = 0.8
LOW_WATER: Final = 0.55

# struct tcp_info (linux/tcp.h): eight one-byte fields, then __u32s; tcpi_last_data_recv, the
# milliseconds since the socket last received data, is the 12th of them.
_TCP_INFO_BYTES: Final = 60
_LAST_DATA_RECV: Final = struct.Struct("=I")
_LAST_DATA_RECV_OFFSET: Final = 8 + 11 * 4

_log = logging.getLogger(__name__)

Peer = tuple[str, int]


def peer_address(peer: str) -> Peer | None:
    """gRPC's ``context.peer()`` as (host, port); None for a Unix socket or the unknown.

    >>> peer_address("ipv4:127.0.0.1:5000"), peer_address("ipv6:%5B::1%5D:80")
    (('127.0.0.1', 5000), ('::1', 80))
    """
    kind, _, rest = unquote(peer).partition(":")
    if kind not in ("ipv4", "ipv6") or ":" not in rest:
        return None
    host, _, port = rest.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if host.startswith("::ffff:") and "." in host:  # an IPv4 peer of a dual-stack listener
        host = host.removeprefix("::ffff:")
    try:
        return host, int(port)
    except ValueError:
        return None


class OpenCalls(grpc.aio.ServerInterceptor):
    """How many calls each peer address has open: a server interceptor that wraps every
    handler once per call (the messages of a stream pass straight through, except for a
    handler written as an async generator, which the stock services rarely are)."""

    def __init__(self) -> None:
        self.open: Counter[Peer] = Counter()

    def busy(self, peer: Peer) -> bool:
        return self.open[peer] > 0

    def _enter(self, context: grpc.aio.ServicerContext[Any, Any]) -> Peer | None:
        peer = peer_address(context.peer())
        if peer is not None:
            self.open[peer] += 1
        return peer

    def _leave(self, peer: Peer | None) -> None:
        if peer is not None:
            self.open[peer] -= 1
            if self.open[peer] <= 0:
                del self.open[peer]

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        changes = {}
        for kind in ("unary_unary", "unary_stream", "stream_unary", "stream_stream"):
            behaviour = getattr(handler, kind, None)
            if behaviour is not None:
                changes[kind] = self._counted(behaviour)
        # The handlers grpc makes (grpc.*_rpc_method_handler) are named tuples.
        return handler._replace(**changes)  # type: ignore[attr-defined, no-any-return]

    def _counted(self, behaviour: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.isasyncgenfunction(behaviour):

            async def streamed(request: Any, context: Any) -> AsyncIterator[Any]:
                peer = self._enter(context)
                try:
                    async for response in behaviour(request, context):
                        yield response
                finally:
                    self._leave(peer)

            return streamed
        if not inspect.iscoroutinefunction(behaviour):
            return behaviour  # a synchronous handler returns at once: nothing to hold

        async def awaited(request: Any, context: Any) -> Any:
            peer = self._enter(context)
            try:
                return await behaviour(request, context)
            finally:
                self._leave(peer)

        return awaited


class ConnectionGuard:
    """Keeps a quarter of the connection ``cap`` on ``port`` free (see the module's text)."""

    def __init__(self, port: int, cap: int, calls: OpenCalls) -> None:
        self.port = port
        self.cap = cap
        self.calls = calls
        self.closed = 0  # connections closed so far (tests and logs read it)
        # Descriptors that are not connections (database, logs, gRPC's pipes and epoll).
        self._baseline = descriptor_count()

    def sweep(self) -> int:
        """Close idle connections if the cap is near; how many were closed."""
        high = int(self.cap * HIGH_WATER)
        if descriptor_count() - self._baseline < high:
            return 0
        held = accepted_sockets(self.port)
        if len(held) < high:
            return 0
        per_host = Counter(found.peer_host for found in held)
        idle = [found for found in held if not self.calls.busy((found.peer_host, found.peer_port))]
        heard = {found.inode: heard_at_ms(found) for found in idle}
        # The address holding the most connections loses its first; the longest idle go first.
        idle.sort(key=lambda found: (-per_host[found.peer_host], heard[found.inode], found.inode))
        closed = sum(_shut(found) for found in idle[: len(held) - int(self.cap * LOW_WATER)])
        if closed:
            self.closed += closed
            _log.warning(
                "connections near the cap (%d of %d): closed %d idle ones, oldest first",
                len(held),
                self.cap,
                closed,
                extra={
                    "event": "connections_closed",
                    "connections": len(held),
                    "cap": self.cap,
                    "closed": closed,
                },
            )
        return closed

    async def run(self) -> None:
        """Sweep every :data:`PERIOD_S` until cancelled."""
        while True:
            await asyncio.sleep(PERIOD_S)
            try:
                self.sweep()
            except Exception:  # the guard must not die of one bad reading of /proc
                _log.exception(
                    "the connection guard's sweep failed", extra={"event": "guard_failed"}
                )


def idle_ms(found: AcceptedSocket) -> int:
    """How long the connection has received nothing, in ms, as the kernel counts it (0 if it
    is gone or the kernel does not say)."""
    reading = _quiet_reading(found)
    return 0 if reading is None else reading[1]


def heard_at_ms(found: AcceptedSocket) -> float:
    """When the connection last received data, in ms of ``time.monotonic()`` (infinity if it
    is gone or the kernel does not say): the kernel's age of it, taken from the clock read just
    before the kernel is asked. Ages read one after another are not comparable on a loaded
    machine, where reading a few hundred sockets can take a second."""
    reading = _quiet_reading(found)
    if reading is None:
        return math.inf
    read_at, quiet = reading
    return read_at - quiet


def _quiet_reading(found: AcceptedSocket) -> tuple[float, int] | None:
    """(the monotonic clock in ms, the kernel's ms since the connection last received data),
    read one right after the other; None if the connection is gone or the kernel does not say."""
    connection = _duplicate(found)
    if connection is None:
        return None
    with connection:  # closing it closes the duplicate, not gRPC's descriptor
        try:
            read_at = time.monotonic() * 1000
            info = connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_BYTES)
        except OSError:
            return None
    if len(info) < _LAST_DATA_RECV_OFFSET + _LAST_DATA_RECV.size:
        return None
    (quiet,) = _LAST_DATA_RECV.unpack_from(info, _LAST_DATA_RECV_OFFSET)
    return read_at, int(quiet)


def _shut(found: AcceptedSocket) -> bool:
    """Shut the connection's socket down (gRPC then closes it); False if it is gone."""
    connection = _duplicate(found)
    if connection is None:
        return False
    # Closing it closes the duplicate, not gRPC's descriptor.
    with connection, contextlib.suppress(OSError):
        connection.shutdown(socket.SHUT_RDWR)
    return True


def _duplicate(found: AcceptedSocket) -> socket.socket | None:
    """A socket object on a duplicate of gRPC's descriptor; None if the connection is gone."""
    try:
        duplicate = os.dup(found.fd)
    except OSError:
        return None
    try:
        # The descriptor may have been closed, and its number reused, since it was listed.
        if os.fstat(duplicate).st_ino != found.inode:
            raise OSError("not the listed socket")
        return socket.socket(fileno=duplicate)
    except OSError:
        os.close(duplicate)
        return None
