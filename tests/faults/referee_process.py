"""A referee process for the hardening tests, and the calls a legitimate peer makes to it.

``Referee.serve(...)`` runs ``brandeln serve``; ``Referee.limited(...)`` runs
``tests/faults/limited_referee.py`` (the same server with connection limits short enough to see
act within a test). Either may start under a lowered RLIMIT_NOFILE, as an operator's shell with
the usual soft limit would start it.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import IO, Final

import grpc
from grpc_health.v1 import health_pb2

from brandeln.v1 import admin_pb2, admin_pb2_grpc, bot_pb2, bot_pb2_grpc

ROOT: Final = Path(__file__).resolve().parents[2]
ADMIN_TOKEN: Final = "hardening-admin-token"
_LISTENING: Final = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
# A legitimate client retries a refused connection quickly, so a test sees the moment the
# referee can take it again instead of gRPC's default backoff (1 s, growing). (Not
# min_reconnect_backoff_ms: gRPC also takes it as the time one connection attempt may take.)
FAST_RECONNECT: Final = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 300),
)


# Sets RLIMIT_NOFILE (soft, hard; "-": keep the hard limit), then becomes the command: the
# limit is in place before the referee starts, without a preexec_fn in this threaded process.
_WITH_OPEN_FILES = """
import os, resource, sys
soft, hard = sys.argv[1], sys.argv[2]
keep = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (int(soft), keep if hard == "-" else int(hard)))
os.execv(sys.argv[3], sys.argv[3:])
"""


class RefereeUnderTest:
    """A started referee process: its port, its stderr, and how to stop it."""

    def __init__(
        self,
        args: Sequence[str],
        data_dir: Path,
        *,
        open_files: tuple[int, int | None] | None = None,
        admin_token: str = ADMIN_TOKEN,
    ) -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        self.admin_token = admin_token
        self.data_dir = data_dir
        self.stderr_path = data_dir / "referee.err"
        self._stderr: IO[bytes] = self.stderr_path.open("wb")
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "BRANDELN_ADMIN_TOKEN": admin_token,
            "COLUMNS": "200",
        }
        command = list(args)
        if open_files is not None:
            soft, hard = open_files
            limit = ["-" if hard is None else str(hard)]
            command = [sys.executable, "-c", _WITH_OPEN_FILES, str(soft), *limit, *command]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            env=env,
            cwd=ROOT,
        )
        self.port = self._wait_for_port()

    @classmethod
    def serve(
        cls, data_dir: Path, *extra: str, open_files: tuple[int, int | None] | None = None
    ) -> RefereeUnderTest:
        args = [sys.executable, "-m", "brandeln.cli", "serve", "--port", "0"]
        args += ["--db", str(data_dir / "referee.db"), "--logs", str(data_dir / "logs"), *extra]
        return cls(args, data_dir, open_files=open_files)

    @classmethod
    def limited(
        cls,
        data_dir: Path,
        *,
        handshake_ms: int = 5_000,
        streams: int = 1280,
        idle_ms: int = 30_000,
        open_files: tuple[int, int | None] | None = None,
    ) -> RefereeUnderTest:
        script = Path(__file__).with_name("limited_referee.py")
        args = [sys.executable, str(script), str(data_dir), str(handshake_ms), str(streams)]
        return cls([*args, str(idle_ms)], data_dir, open_files=open_files)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def _wait_for_port(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while True:
            found = _LISTENING.search(self.stderr)
            if found:
                return int(found.group(1))
            if self.process.poll() is not None:
                raise RuntimeError(f"the referee exited: {self.stderr}")
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"the referee did not start: {self.stderr}")
            time.sleep(0.05)

    def wait_for_stderr(self, needle: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while needle not in (text := self.stderr):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} not in the referee's stderr: {text}")
            time.sleep(0.05)
        return text

    def terminate(self, timeout: float = 30.0) -> int:
        """SIGTERM, then the exit code (SIGKILL if it does not stop in time)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        finally:
            self._stderr.close()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._stderr.close()


def idle_sockets(port: int, count: int, first_bytes: bytes = b"") -> list[socket.socket]:
    """``count`` TCP connections that send ``first_bytes`` (nothing: not even the preface)."""
    sockets = []
    for _ in range(count):
        peer = socket.create_connection(("127.0.0.1", port), timeout=10)
        if first_bytes:
            peer.sendall(first_bytes)
        peer.setblocking(False)
        sockets.append(peer)
    return sockets


def still_open(sockets: Sequence[socket.socket]) -> list[socket.socket]:
    """The sockets the referee has not closed yet (it sends its SETTINGS first: read past)."""
    alive = []
    for peer in sockets:
        try:
            while True:
                if peer.recv(65536) == b"":
                    break
        except BlockingIOError:
            alive.append(peer)
        except OSError:
            pass  # reset by the referee: closed too
    return alive


async def wait_until_closed(sockets: Sequence[socket.socket], timeout: float) -> int:
    """Wait up to ``timeout`` s for the referee to close every socket; how many stay open."""
    deadline = time.monotonic() + timeout
    alive = still_open(sockets)
    while alive and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
        alive = still_open(alive)
    return len(alive)


def channel(address: str) -> grpc.aio.Channel:
    """A channel on a connection of its own (gRPC would share one between channels to the
    same address, and with it the connection's stream cap)."""
    options = [*FAST_RECONNECT, ("grpc.use_local_subchannel_pool", 1)]
    return grpc.aio.insecure_channel(address, options=options)


async def health(address: str, timeout: float = 10.0) -> int:
    """The referee's overall health status (waiting up to ``timeout`` s for a connection)."""
    async with channel(address) as ch:
        check = ch.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )
        response = await check(
            health_pb2.HealthCheckRequest(), timeout=timeout, wait_for_ready=True
        )
        return int(response.status)


async def register_bot(address: str, name: str, timeout: float = 10.0) -> str:
    """An Admin call: register ``name``; its token."""
    async with channel(address) as ch:
        response = await admin_pb2_grpc.AdminStub(ch).RegisterBot(
            admin_pb2.RegisterBotRequest(name=name),
            metadata=(("authorization", f"Bearer {ADMIN_TOKEN}"),),
            timeout=timeout,
            wait_for_ready=True,
        )
        return str(response.token)


async def _messages(*messages: bot_pb2.BotMessage) -> AsyncIterator[bot_pb2.BotMessage]:
    for message in messages:
        yield message
    await asyncio.Event().wait()  # keep the bot's side open


def hello_message(token: str, **strings: str) -> bot_pb2.BotMessage:
    """A protocol-1 Hello with ``token`` and the given string fields set."""
    message = bot_pb2.Hello(token=token, protocol_version=1)
    for name, value in strings.items():
        setattr(message, name, value)
    return bot_pb2.BotMessage(hello=message)


async def hello(
    address: str, message: bot_pb2.BotMessage, timeout: float = 10.0
) -> bot_pb2.RefereeMessage:
    """Open a Play stream, send ``message`` (a hello); the referee's first answer (AioRpcError
    if it refuses)."""
    async with channel(address) as ch:
        stub = bot_pb2_grpc.RefereeStub(ch)
        call = stub.Play(_messages(message), timeout=timeout, wait_for_ready=True)
        try:
            async for answer in call:
                return answer
        finally:
            call.cancel()
    raise AssertionError("the stream ended without an answer")
