"""A peer with no token must not lock out registered bots and operators.

Seen: under the usual soft open-file limit of 1024, 1,100 idle TCP connections that never sent
the HTTP/2 preface made every new health check, Admin call and bot connection time out until
they closed (gRPC waits 120 s for a handshake, and accepts connections until the process runs
out of descriptors). Each test starts a real referee process under a lowered RLIMIT_NOFILE and
opens raw loopback sockets to it from this process.
"""

from __future__ import annotations

import asyncio
import resource
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2

from brandeln.arena.connection_guard import HIGH_WATER, LOW_WATER
from brandeln.v1 import admin_pb2, admin_pb2_grpc, bot_pb2, bot_pb2_grpc
from tests.faults.referee_process import (
    ADMIN_TOKEN,
    RefereeUnderTest,
    channel,
    health,
    hello,
    hello_message,
    idle_sockets,
    register_bot,
    still_open,
    wait_until_closed,
)

# The HTTP/2 client preface and an empty SETTINGS frame: a finished handshake, then nothing.
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
# Each legitimate call may wait this long for a connection (a refused one is retried fast).
CALL_TIMEOUT_S = 8.0


@pytest.fixture
def referees() -> Iterator[list[RefereeUnderTest]]:
    started: list[RefereeUnderTest] = []
    yield started
    for referee in started:
        referee.kill()


async def _bots_and_operators_get_through(referee: RefereeUnderTest, name: str) -> None:
    """A health check, an Admin call and a bot's Hello, each answered."""
    assert await health(referee.address, CALL_TIMEOUT_S) == health_pb2.HealthCheckResponse.SERVING
    token = await register_bot(referee.address, name, CALL_TIMEOUT_S)
    answer = await hello(referee.address, hello_message(token, bot_name=name), CALL_TIMEOUT_S)
    assert answer.WhichOneof("kind") == "welcome"


async def test_serve_raises_its_open_file_limit_so_idle_sockets_lock_no_one_out(
    tmp_path: Path, referees: list[RefereeUnderTest]
) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 1024:
        pytest.skip(f"the hard open-file limit ({hard}) leaves nothing to raise to")
    # Started the way a shell with a low soft limit starts it; the hard limit is left as is.
    referee = RefereeUnderTest.serve(tmp_path, open_files=(128, None))
    referees.append(referee)
    expected = hard if hard != resource.RLIM_INFINITY else ""
    referee.wait_for_stderr(f"open-file limit raised from 128 to {expected}")
    flood = idle_sockets(referee.port, 200)  # more than the 128 it was started with
    try:
        await _bots_and_operators_get_through(referee, "raised")
    finally:
        for peer in flood:
            peer.close()


def _own_files_for(count: int) -> None:
    """Let this test process hold ``count`` sockets (raising its soft limit), or skip."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < count:
        if hard != resource.RLIM_INFINITY and hard < count:
            pytest.skip(f"this process may open only {hard} files; the test needs {count}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (count, hard))


async def test_more_silent_connections_than_the_hard_limit_lock_no_one_out(
    tmp_path: Path, referees: list[RefereeUnderTest]
) -> None:
    """Soft and hard limit 1,024, as on many hosts, and 1,100 TCP connections that say
    nothing, held throughout: health, Admin and a bot's Hello are all answered. Once the
    first 768 filled the connection cap for the 5 s handshake deadline and every other call
    was closed at the door (DEADLINE_EXCEEDED for a health check with a 3 s deadline)."""
    _own_files_for(1100 + 256)
    referee = RefereeUnderTest.serve(tmp_path, open_files=(1024, 1024))
    referees.append(referee)
    referee.wait_for_stderr("open-file limit 1024 (hard limit 1024)")
    flood = idle_sockets(referee.port, 1100)
    try:
        # Well inside the handshake deadline that used to free the cap.
        calls = _bots_and_operators_get_through(referee, "silent-flood")
        await asyncio.wait_for(calls, timeout=3.0)
        assert len(still_open(flood)) == len(flood)  # the flood was held all along
    finally:
        for peer in flood:
            peer.close()


async def test_idle_http2_connections_past_the_cap_make_room_oldest_first(
    tmp_path: Path, referees: list[RefereeUnderTest]
) -> None:
    """Soft and hard limit 1,024 and 1,100 connections that finish the HTTP/2 handshake and
    then call nothing (as a script that opens channels and sits on them does): the kernel
    hands these over, and gRPC held 768 of them, the cap, closing every later health check,
    Admin call and bot at the door (UNAVAILABLE) until its 30 s idle timeout. Now the
    referee closes idle connections, oldest first, once they near the cap: health, Admin and
    a bot get in, and a bot seated in the lobby before the flood keeps its session."""
    _own_files_for(1100 + 256)
    referee = RefereeUnderTest.serve(tmp_path, open_files=(1024, 1024))
    referees.append(referee)
    referee.wait_for_stderr("open-file limit 1024 (hard limit 1024)")
    token = await register_bot(referee.address, "seated-before")
    async with channel(referee.address) as ch:
        seated = bot_pb2_grpc.RefereeStub(ch).Play(_one_then_wait(hello_message(token)))
        welcome = await seated.read()
        assert isinstance(welcome, bot_pb2.RefereeMessage)
        assert welcome.WhichOneof("kind") == "welcome"
        flood = idle_sockets(referee.port, 1100, first_bytes=HTTP2_PREFACE)
        try:
            await _bots_and_operators_get_through(referee, "http2-flood")
            # The oldest idle ones went first, and only as many as made room: down to
            # LOW_WATER of the cap (the few others are this test's own connections).
            assert not still_open(flood[:100])
            held = len(still_open(flood))
            assert int(768 * LOW_WATER) - 16 <= held <= int(768 * HIGH_WATER), held
            sessions = await _sessions(referee)
            assert "seated-before" in [s.bot_name for s in sessions]
            assert seated.done() is False
        finally:
            seated.cancel()
            for peer in flood:
                peer.close()


async def _one_then_wait(message: bot_pb2.BotMessage) -> AsyncIterator[bot_pb2.BotMessage]:
    """A Play stream's requests: ``message``, then nothing until the call is cancelled."""
    yield message
    await asyncio.Event().wait()


async def _sessions(referee: RefereeUnderTest) -> list[admin_pb2.SessionInfo]:
    async with channel(referee.address) as ch:
        reply = await admin_pb2_grpc.AdminStub(ch).ListSessions(
            admin_pb2.ListSessionsRequest(),
            metadata=(("authorization", f"Bearer {ADMIN_TOKEN}"),),
            timeout=CALL_TIMEOUT_S,
            wait_for_ready=True,
        )
    return list(reply.sessions)


async def test_connections_past_the_cap_or_the_handshake_deadline_are_closed(
    tmp_path: Path, referees: list[RefereeUnderTest]
) -> None:
    # The hard limit too: raising cannot help, the connection cap and the deadline must.
    referee = RefereeUnderTest.limited(tmp_path, handshake_ms=1000, open_files=(256, 256))
    referees.append(referee)
    # More than the process may have files open, each sending one byte and then nothing: a
    # silent connection the kernel keeps from accept() (the test above); these reach gRPC.
    flood = idle_sockets(referee.port, 400, first_bytes=b"P")
    try:
        await _bots_and_operators_get_through(referee, "capped")
        # Those over the cap are closed at once, the others at the handshake deadline.
        assert await wait_until_closed(flood, timeout=1.0 + 5.0) == 0
        await _bots_and_operators_get_through(referee, "after")
    finally:
        for peer in flood:
            peer.close()


async def test_a_connection_that_only_sends_the_preface_is_closed_when_idle(
    tmp_path: Path, referees: list[RefereeUnderTest]
) -> None:
    referee = RefereeUnderTest.limited(tmp_path, handshake_ms=1000, idle_ms=2000)
    referees.append(referee)
    quiet = idle_sockets(referee.port, 20, first_bytes=HTTP2_PREFACE)
    try:
        assert await wait_until_closed(quiet, timeout=2.0 + 5.0) == 0
    finally:
        for peer in quiet:
            peer.close()


async def test_streams_past_the_per_connection_cap_wait_for_a_free_one(
    tmp_path: Path, referees: list[RefereeUnderTest]
) -> None:
    referee = RefereeUnderTest.limited(tmp_path, streams=4)
    referees.append(referee)
    token = await register_bot(referee.address, "streams")
    async with channel(referee.address) as ch:
        stub = bot_pb2_grpc.RefereeStub(ch)
        outboxes = [asyncio.Queue[bot_pb2.BotMessage]() for _ in range(5)]

        async def sent(
            queue: asyncio.Queue[bot_pb2.BotMessage],
        ) -> AsyncIterator[bot_pb2.BotMessage]:
            while True:
                yield await queue.get()

        calls = [stub.Play(sent(q)) for q in outboxes]
        for queue in outboxes:
            queue.put_nowait(hello_message(token))
        firsts: dict[asyncio.Future[object], grpc.aio.Call] = {
            asyncio.ensure_future(call.read()): call for call in calls
        }
        welcomed: set[asyncio.Future[object]] = set()
        async with asyncio.timeout(CALL_TIMEOUT_S):
            while len(welcomed) < 4:
                done, _ = await asyncio.wait(
                    set(firsts) - welcomed, return_when=asyncio.FIRST_COMPLETED
                )
                welcomed |= done
        await asyncio.sleep(0.3)  # time for a fifth stream to arrive, had it been let through
        async with channel(referee.address) as other:  # this connection's streams are taken
            sessions = await admin_pb2_grpc.AdminStub(other).ListSessions(
                admin_pb2.ListSessionsRequest(),
                metadata=(("authorization", f"Bearer {ADMIN_TOKEN}"),),
                timeout=CALL_TIMEOUT_S,
            )
        assert len(sessions.sessions) == 4
        (waiting,) = set(firsts) - welcomed
        assert not waiting.done()
        firsts[next(iter(welcomed))].cancel()  # a stream ends: the fifth gets its turn
        answer = await asyncio.wait_for(waiting, CALL_TIMEOUT_S)
        assert isinstance(answer, bot_pb2.RefereeMessage)
        assert answer.WhichOneof("kind") == "welcome"
        for call in calls:
            call.cancel()
