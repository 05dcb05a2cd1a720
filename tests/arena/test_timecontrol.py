"""Time control with a fake clock: timeouts, the bank, strikes and forfeits, without sleeping."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from brandeln.arena.mailbox import Mailbox
from brandeln.arena.session import SeatSession
from brandeln.arena.spec import MatchSpec
from brandeln.arena.store.database import RefereeStore
from brandeln.arena.table import Table
from brandeln.arena.timecontrol import SeatClock, TimeControlSettings
from brandeln.engine.permutation import SuitPermutation
from brandeln.engine.rulesets import find_ruleset
from brandeln.v1 import bot_pb2

T = TypeVar("T")


class FakeClock:
    """Time moves only when a wait finds nothing: then by the whole timeout."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.waited = 0.0

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds

    async def get(self, queue: Mailbox[T], timeout: float) -> T | None:
        await asyncio.sleep(0)  # let other tasks run, as a real wait would
        if not queue.empty():
            return queue.get_nowait()
        self.t += max(0.0, timeout)
        self.waited += max(0.0, timeout)
        return None


# A policy maps a request to (latency in ms, answer) or None for silence.
Policy = Callable[[bot_pb2.DecisionRequest], tuple[int, bot_pb2.BotMessage] | None]


class ScriptedSession(SeatSession):
    """A session whose bot answers synchronously, after a simulated latency."""

    policy: Policy
    clock: FakeClock

    def send(self, message: bot_pb2.RefereeMessage | bytes) -> None:
        super().send(message)
        if isinstance(message, bytes):
            message = bot_pb2.RefereeMessage.FromString(message)
        if message.WhichOneof("kind") != "request" or self.seat is None:
            return
        answer = self.policy(message.request)
        if answer is not None:
            latency_ms, reply = answer
            self.clock.advance(latency_ms / 1000)
            self.seat.inbox.put_nowait(reply)


def first_legal(latency_ms: int) -> Policy:
    def policy(request: bot_pb2.DecisionRequest) -> tuple[int, bot_pb2.BotMessage]:
        action = bot_pb2.Action(request_id=request.request_id, choice=request.legal[0])
        return latency_ms, bot_pb2.BotMessage(action=action)

    return policy


def silent(request: bot_pb2.DecisionRequest) -> None:
    return None


def make_table(
    tmp_path: Path, clock: FakeClock, policies: list[Policy], tc: TimeControlSettings, deals: int
) -> Table:
    sessions = []
    for n, policy in enumerate(policies):
        session = ScriptedSession(
            session_id=f"s{n}",
            bot_id=f"b{n}",
            bot_name=f"bot{n}",
            bot_version="t",
            rulesets=frozenset(),
            snapshot_only=True,
        )
        session.policy = policy
        session.clock = clock
        sessions.append(session)
    spec = MatchSpec(
        match_id="m_test",
        ruleset=find_ruleset("standard"),
        bot_ids=tuple(f"b{n}" for n in range(4)),
        deals=deals,
        seed=1,
        first_dealer=0,
        fixed_deals=(),
        permutation=SuitPermutation.identity(),
        time_control=tc,
    )
    store = RefereeStore(tmp_path / "referee.db")
    return Table(spec, sessions, store, tmp_path / "logs", clock, "test")


def test_seat_clock_draws_on_the_bank_only_beyond_the_move_time() -> None:
    clock = SeatClock(move_ms=100, bank_ms=500)
    assert clock.charge(100) is False
    assert clock.bank_ms == 500
    assert clock.charge(350) is False
    assert clock.bank_ms == 250
    assert clock.charge(351) is True
    assert clock.bank_ms == 0


def test_time_control_settings_reject_nonsense() -> None:
    with pytest.raises(ValueError, match="max_strikes"):
        TimeControlSettings(max_strikes=0)
    with pytest.raises(ValueError, match="move_ms"):
        TimeControlSettings(move_ms=-1)


async def test_a_silent_seat_times_out_three_times_then_forfeits(tmp_path: Path) -> None:
    clock = FakeClock()
    tc = TimeControlSettings(move_ms=1000, bank_ms=3000, max_strikes=3)
    table = make_table(tmp_path, clock, [silent, *[first_legal(10)] * 3], tc, deals=4)
    summary = await table.run()
    assert summary.status == "finished"
    assert list(summary.forfeited) == [0]
    assert list(summary.strikes) == [3, 0, 0, 0]
    # First timeout waits move + whole bank, later ones only the move time: the bank is spent.
    assert clock.waited == pytest.approx(4.0 + 1.0 + 1.0)
    codes = [p.code for p in table.penalties]
    assert codes == ["timeout", "timeout", "timeout", "forfeited"]


async def test_slow_answers_drain_the_bank_until_a_timeout(tmp_path: Path) -> None:
    clock = FakeClock()
    tc = TimeControlSettings(move_ms=100, bank_ms=1000, max_strikes=3)
    # 600 ms a decision: 500 ms of bank each time, so the third decision times out.
    table = make_table(tmp_path, clock, [first_legal(600), *[first_legal(1)] * 3], tc, deals=4)
    summary = await table.run()
    assert summary.strikes[0] >= 1
    assert table.seats[0].clock.bank_ms == 0
    assert table.penalties[0].code == "timeout"
    assert all(s == 0 for s in summary.strikes[1:])


async def test_answers_within_the_move_time_never_touch_the_bank(tmp_path: Path) -> None:
    clock = FakeClock()
    tc = TimeControlSettings(move_ms=100, bank_ms=1000)
    table = make_table(tmp_path, clock, [first_legal(99)] * 4, tc, deals=4)
    summary = await table.run()
    assert list(summary.strikes) == [0, 0, 0, 0]
    assert [seat.clock.bank_ms for seat in table.seats] == [1000] * 4
    assert clock.waited == 0
