"""Focused regression tests for the bugs the hostile fleet found, in process and deterministic
(the fleet shows each end to end; these pin the mechanism).

- A Play handler cancelled a second time while cleaning up left its session in the lobby as a
  "closed" ghost for ever (seen as 0.3 % of 2,000 streams cancelled at once).
- A session closed as a slow reader while its write was blocked on the bot never ended its
  call: the handler sat in the blocked write, holding the session and its 512 queued messages.
- A seated session's messages waited in its seat's inbox without bound (a forfeited seat never
  reads them again): 20,000 logs of 15 KiB held 300 MB of the referee's memory.
- A restarted referee numbered its sessions from s1 again: hellos collided with the session
  history in its database and failed (UNKNOWN) until the numbers passed the last run's.
- ``brandeln bots revoke``: the way to revoke a token (the fleet's revoked bot uses it).
- A resuming hello found its seat, then waited for the lobby's lock (busy while RunMatch calls
  look for seats) before taking it: a match that ended meanwhile left the session seated at a
  finished table for ever, and a seat whose reconnect time ran out meanwhile forfeited with
  the hello in hand.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, cast

import grpc
import pytest
from typer.testing import CliRunner

from brandeln.arena import referee as referee_module
from brandeln.arena import session as session_module
from brandeln.arena.orders import HelloRequest, MatchOrder, TimeControlOrder
from brandeln.arena.referee import Referee, RefereeConfig
from brandeln.arena.seat import Seat
from brandeln.arena.servicers import RefereeServicer
from brandeln.arena.session import SeatSession
from brandeln.arena.store.database import RefereeStore
from brandeln.arena.timecontrol import SeatClock
from brandeln.cli.main import app
from brandeln.protocol.statuses import SessionState
from brandeln.v1 import bot_pb2


class AbortedError(Exception):
    """What the fake context's abort raises (grpc.aio raises AbortError)."""


class FakeContext:
    """The part of grpc.aio.ServicerContext that Play uses; ``write`` may block for ever."""

    def __init__(self, *, block_writes: bool = False) -> None:
        self.written: list[bot_pb2.RefereeMessage] = []
        self.block_writes = block_writes
        self.aborted: tuple[grpc.StatusCode, str] | None = None

    def peer(self) -> str:
        return "ipv4:127.0.0.1:1"

    async def write(self, message: bot_pb2.RefereeMessage) -> None:
        self.written.append(message)
        if self.block_writes and len(self.written) > 1:
            await asyncio.Event().wait()  # the bot stopped reading: the write never completes

    async def abort(self, code: grpc.StatusCode, details: str = "") -> None:
        self.aborted = (code, details)
        raise AbortedError(details)


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    made = Referee(
        RefereeConfig(db_path=tmp_path / "referee.db", logs_dir=tmp_path / "logs", admin_token="t")
    )
    yield made
    made.close()


def _hello(token: str) -> bot_pb2.BotMessage:
    return bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token, protocol_version=1))


def _hello_request(token: str, resume_match_id: str = "") -> HelloRequest:
    """The Hello of :func:`_hello` as the referee takes it in process."""
    return HelloRequest(token=token, protocol_version=1, resume_match_id=resume_match_id)


async def _messages(*messages: bot_pb2.BotMessage) -> AsyncIterator[bot_pb2.BotMessage]:
    for message in messages:
        yield message
    await asyncio.Event().wait()  # the bot keeps its side open


async def _until(condition: Any, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():  # noqa: ASYNC110 - polling state the referee changes
            await asyncio.sleep(0.001)


async def test_a_handler_cancelled_twice_leaves_no_session_behind(referee: Referee) -> None:
    _, token = referee.register_bot("twice")
    context = FakeContext()
    play = asyncio.ensure_future(
        RefereeServicer(referee).Play(_messages(_hello(token)), cast(Any, context))
    )
    await _until(lambda: len(referee.lobby.sessions()) == 1)
    # gRPC cancels a handler whose client went away; a second cancellation can land while the
    # handler awaits its cleanup. Neither may skip forgetting the session.
    play.cancel()
    await asyncio.sleep(0)
    play.cancel()
    with pytest.raises(asyncio.CancelledError):
        await play
    assert referee.lobby.sessions() == []


async def test_a_slow_reader_whose_write_is_blocked_is_dropped(referee: Referee) -> None:
    _, token = referee.register_bot("slow")
    context = FakeContext(block_writes=True)
    play = asyncio.ensure_future(
        RefereeServicer(referee).Play(_messages(_hello(token)), cast(Any, context))
    )
    await _until(lambda: len(context.written) == 1)  # the Welcome
    (session,) = referee.lobby.sessions()
    message = bot_pb2.RefereeMessage(rejected=bot_pb2.ActionRejected(reason="x"))
    session.send(message)
    await _until(lambda: len(context.written) == 2)  # this write never completes
    for _ in range(session_module.OUTBOX_LIMIT + 1):
        session.send(message)
    assert session.slow_reader
    async with asyncio.timeout(5):
        with pytest.raises(AbortedError):
            await play
    assert context.aborted is not None
    assert context.aborted[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert referee.lobby.sessions() == []


def _seat(*, request_open: bool) -> Seat:
    # A real seat: the session's seat is typed, and checked where brandeln.arena.session is
    # compiled.
    seat = Seat(0, "bot", "bot", "1", SeatClock(move_ms=0, bank_ms=0))
    seat.pending = bot_pb2.RefereeMessage() if request_open else None
    return seat


def _seated(seat: Seat) -> SeatSession:
    session = SeatSession("s1", "bot", "bot", "1", frozenset(), False, SessionState.SEATED)
    session.seat = seat
    return session


@pytest.mark.parametrize(
    ("request_open", "limit"),
    [
        (False, referee_module.SEAT_INBOX_LIMIT),
        (True, referee_module.OPEN_REQUEST_INBOX_LIMIT),
    ],
)
def test_a_seats_unread_messages_are_bounded(
    referee: Referee, request_open: bool, limit: int
) -> None:
    seat = _seat(request_open=request_open)
    session = _seated(seat)
    log = bot_pb2.BotMessage(log=bot_pb2.BotLog(text="z" * 15_000))
    for _ in range(limit + 1000):
        referee.on_message(session, log)
    assert seat.inbox.qsize() == limit
    assert session.state is SessionState.CLOSED
    assert session.close_reason == f"protocol: more than {limit} unread messages for this seat"


def test_bots_revoke_refuses_the_token_from_then_on(tmp_path: Path) -> None:
    runner = CliRunner()
    added = runner.invoke(app, ["bots", "add", "leaky", "--data", str(tmp_path)])
    assert added.exit_code == 0, added.output
    token = added.output.split("token (shown once): ")[1].split()[0]
    store = RefereeStore(tmp_path / "referee.db")
    assert store.bot_for_token(token) is not None
    revoked = runner.invoke(app, ["bots", "revoke", "leaky", "--data", str(tmp_path)])
    assert revoked.exit_code == 0, revoked.output
    assert "revoked leaky" in revoked.output
    assert store.bot_for_token(token) is None
    store.close()
    listed = runner.invoke(app, ["bots", "list", "--json", "--data", str(tmp_path)])
    assert [bot["revoked"] for bot in json.loads(listed.output)] == [True]
    unknown = runner.invoke(app, ["bots", "revoke", "nobody", "--data", str(tmp_path)])
    assert unknown.exit_code == 1
    assert "nobody" in unknown.output


async def test_a_restarted_referee_numbers_its_sessions_on(tmp_path: Path) -> None:
    """After a kill, the first hellos of the next referee collided with the session history
    (UNIQUE constraint failed: sessions.session_id) and were answered UNKNOWN."""
    config = RefereeConfig(db_path=tmp_path / "referee.db", logs_dir=tmp_path / "logs")
    first = Referee(config)
    _, token = first.register_bot("again")
    hello = _hello_request(token)
    before = [await first.open_session(hello, "peer") for _ in range(3)]
    first.store.close()  # killed: no session was closed
    second = Referee(config)
    try:
        after = await second.open_session(hello, "peer")
        assert after.session_id not in {s.session_id for s in before}
        with second.store.engine.connect() as db:
            open_rows = db.exec_driver_sql(
                "SELECT count(*) FROM sessions WHERE closed_at IS NULL"
            ).scalar()
        assert open_rows == 1  # the dead referee's sessions are recorded as over
    finally:
        second.close()


async def test_a_resume_takes_its_seat_at_once_while_the_lobby_is_busy(referee: Referee) -> None:
    tokens = [referee.register_bot(f"resume-{n}")[1] for n in range(4)]
    for token in tokens:
        await referee.open_session(_hello_request(token), "peer")
    # No answer is needed: the first request waits a minute, a dropped seat as long.
    slow = TimeControlOrder(move_ms=60_000, bank_ms=1, max_strikes=3, reconnect_ms=60_000)
    table = await referee.start_match(
        MatchOrder(
            bot_ids=tuple(s.bot_id for s in referee.lobby.sessions()), deals=1, time_control=slow
        )
    )
    match_id = table.spec.match_id
    dropped = table.seats[0].session
    assert isinstance(dropped, SeatSession)
    referee.close_session(dropped)
    resume = _hello_request(tokens[0], resume_match_id=match_id)
    async with referee.lobby._changed:  # held as RunMatch calls hold it while they look
        opening = asyncio.ensure_future(referee.open_session(resume, "peer"))
        for _ in range(3):
            await asyncio.sleep(0)
        # The match ends (aborted here) while the lobby is still busy.
        referee._tasks[match_id].cancel()
        for _ in range(3):
            await asyncio.sleep(0)
    session = await opening
    await _until(lambda: match_id not in referee.tables)
    await asyncio.sleep(0)  # the table's last step: its sessions back to the lobby
    # The seat was taken at once, so the match's end sent the session back to the lobby.
    assert session.seat is None
    assert session.state is SessionState.LOBBY
