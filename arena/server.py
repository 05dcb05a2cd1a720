"""The grpc.aio server: both services, the standard health service and server reflection."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import resource
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from brandeln.arena.connection_guard import ConnectionGuard, OpenCalls
from brandeln.arena.deferred_accept import defer_accept
from brandeln.arena.limits import ConnectionLimits
from brandeln.arena.referee import Referee
from brandeln.arena.servicers import AdminServicer, RefereeServicer
from brandeln.v1 import admin_pb2, admin_pb2_grpc, bot_pb2

__all__ = [
    "OpenFileLimit",
    "TlsFiles",
    "create_server",
    "raise_open_file_limit",
    "server_options",
    "stop_server",
]

# gRPC's own cap on a received message; the servicer enforces the protocol's smaller cap with a
# clear INVALID_ARGUMENT (gRPC's would be RESOURCE_EXHAUSTED).
GRPC_MAX_RECEIVE_BYTES = 1024 * 1024

TlsFiles = tuple[bytes, bytes]  # (certificate chain PEM, private key PEM)

# How long :func:`stop_server` waits for the handlers of the calls the stop cancelled: a hang
# guard far above their clean-up (a Play stream's takes a few loop turns), not a pace.
CALLS_END_WAIT_S: Final = 60.0


@dataclass(frozen=True)
class OpenFileLimit:
    """RLIMIT_NOFILE before and after :func:`raise_open_file_limit`."""

    before: int
    after: int
    hard: int  # resource.RLIM_INFINITY when unlimited


def raise_open_file_limit() -> OpenFileLimit:
    """Raise the soft limit on open files to the hard limit.

    Every connection holds a file descriptor, and the usual soft limit (1024) is low enough for
    a peer to exhaust; the hard limit is what the operator allows the process.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard
    if target == resource.RLIM_INFINITY:
        target = max(soft, 1 << 20)  # some systems refuse an infinite soft limit
    if soft != resource.RLIM_INFINITY and soft < target:
        # The kernel may cap it lower (macOS: kern.maxfilesperproc): then keep what we have.
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return OpenFileLimit(soft, resource.getrlimit(resource.RLIMIT_NOFILE)[0], hard)


def _open_file_limit() -> int:
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 1 << 20 if soft == resource.RLIM_INFINITY else soft


def connection_cap(limits: ConnectionLimits) -> int:
    """The connections served at once under the process's current open-file limit."""
    return limits.connection_cap(_open_file_limit())


def server_options(limits: ConnectionLimits) -> list[tuple[str, int]]:
    """The gRPC server options for ``limits`` under the process's current open-file limit."""
    return [
        ("grpc.max_receive_message_length", GRPC_MAX_RECEIVE_BYTES),
        # Notice dead peers (a bot machine that vanished) within about a minute.
        ("grpc.keepalive_time_ms", 30_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
        ("grpc.keepalive_permit_without_calls", 1),
        # A peer that connects and says nothing is closed after this (gRPC's default: 120 s).
        ("grpc.server_handshake_timeout_ms", limits.handshake_timeout_ms),
        # Past the cap gRPC closes a new connection at once, so the descriptors the referee's
        # own files need are never taken by connections.
        ("grpc.max_allowed_incoming_connections", connection_cap(limits)),
        ("grpc.max_concurrent_streams", limits.max_streams_per_connection),
        ("grpc.max_connection_idle_ms", limits.max_connection_idle_ms),
    ]


class _CallTasks(grpc.aio.ServerInterceptor):
    """The task of every call's handler while it runs, so a stop can wait for them to end."""

    def __init__(self) -> None:
        self.running: set[asyncio.Task[Any]] = set()

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        # Interceptors run in the call's own task (grpc.aio's "HandleExceptions"), which then
        # runs the handler.
        task = asyncio.current_task()
        if task is not None and not task.done():
            self.running.add(task)
            task.add_done_callback(self.running.discard)
        return await continuation(handler_call_details)


# Each server's call tasks (create_server's), for stop_server.
_calls_of: weakref.WeakKeyDictionary[grpc.aio.Server, _CallTasks] = weakref.WeakKeyDictionary()


async def stop_server(server: grpc.aio.Server, grace: float | None) -> None:
    """Stop ``server`` (:meth:`grpc.aio.Server.stop`: the calls still open ``grace`` seconds
    later are cancelled) and wait for their handlers to end.

    ``server.stop`` returns once gRPC's core has let go of the calls, while their handlers may
    still be cleaning up (a Play stream the stop cut ends its seat session). If the event loop
    ended then, asyncio would cancel gRPC's task around each of them, and gRPC writes that
    cancellation as an error with a raw traceback on stderr ("Exception not handled by
    _handle_exceptions"). Each such task resumes as soon as its handler's task is done, ahead
    of this wait: so once the handlers are done, nothing of the calls is left to cancel.
    """
    await server.stop(grace)
    calls = _calls_of.get(server)
    if calls is not None and calls.running:
        await asyncio.wait(set(calls.running), timeout=CALLS_END_WAIT_S)


def _serialize(message: bot_pb2.RefereeMessage | bytes) -> bytes:
    """Messages the referee serialized itself (once for several seats) go out as they are."""
    return message if isinstance(message, bytes) else message.SerializeToString()


def _referee_handler(servicer: RefereeServicer) -> grpc.GenericRpcHandler:
    """`brandeln.v1.Referee`, registered like the generated code does but with a serializer
    that passes bytes through (the generated ``add_RefereeServicer_to_server`` cannot)."""
    play = grpc.stream_stream_rpc_method_handler(
        servicer.Play,
        request_deserializer=bot_pb2.BotMessage.FromString,
        response_serializer=_serialize,
    )
    service = bot_pb2.DESCRIPTOR.services_by_name["Referee"].full_name
    return grpc.method_handlers_generic_handler(service, {"Play": play})


async def create_server(
    address: str, referee: Referee, tls: TlsFiles | None = None
) -> tuple[grpc.aio.Server, int]:
    """Build and start a server on ``address`` ("127.0.0.1:0" picks a free port).

    Returns the server and the port it is bound to.
    """
    calls = OpenCalls()
    call_tasks = _CallTasks()
    server = grpc.aio.server(
        options=server_options(referee.config.connections), interceptors=[calls, call_tasks]
    )
    _calls_of[server] = call_tasks
    server.add_generic_rpc_handlers((_referee_handler(RefereeServicer(referee)),))
    admin_pb2_grpc.add_AdminServicer_to_server(AdminServicer(referee), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    # A draining referee answers NOT_SERVING (and keeps to it) until its port closes.
    referee.on_drain.append(health_servicer.enter_graceful_shutdown)
    service_names = (
        bot_pb2.DESCRIPTOR.services_by_name["Referee"].full_name,
        admin_pb2.DESCRIPTOR.services_by_name["Admin"].full_name,
        health.SERVICE_NAME,
        reflection.SERVICE_NAME,
    )
    reflection.enable_server_reflection(service_names, server)
    if tls is None:
        port = server.add_insecure_port(address)
    else:
        credentials = grpc.ssl_server_credentials([(tls[1], tls[0])])
        port = server.add_secure_port(address, credentials)
    if port == 0:
        raise OSError(f"cannot bind {address}")
    await server.start()
    # Silent TCP peers wait in the kernel, not under the connection cap
    # (brandeln.arena.deferred_accept), and idle connections are closed before they fill it
    # (brandeln.arena.connection_guard).
    defer_accept(port)
    guard = ConnectionGuard(port, connection_cap(referee.config.connections), calls)
    referee.on_close.append(asyncio.create_task(guard.run(), name="connection guard").cancel)
    # What start-up built (modules, the store, the server) lives as long as the process: kept
    # out of the collector's passes, a full collection walks only what play allocates.
    gc.freeze()
    for name in ("", *service_names[:2]):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, port
