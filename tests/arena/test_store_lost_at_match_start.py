"""A store that gives up as a match starts (PostgreSQL gone for good between two matches).

The match's first records (its header, its index row) cannot be written: the match ends there,
aborted, with a result for its caller, and its seats, told of no match, are told of no end.
Before, the failure escaped the table before it had a result, and the referee's task died on an
assertion that the run printed after its own last line (a fresh-clone `make test` saw it in
tests/ladder/test_season_postgres.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from brandeln.arena.config import AdminTokenScope, RefereeConfig
from brandeln.arena.errors import StoreError
from brandeln.arena.orders import HelloRequest, MatchOrder
from brandeln.arena.referee import Referee
from brandeln.arena.session import SeatSession
from brandeln.arena.store.match_index import MatchRecord
from brandeln.v1 import bot_pb2

PLAYERS = 4


@pytest.fixture
async def referee(tmp_path: Path) -> AsyncIterator[Referee]:
    opened = Referee(
        RefereeConfig(
            db_path=tmp_path / "referee.db",
            logs_dir=tmp_path / "logs",
            admin_token_scope=AdminTokenScope.THIS_RUN,
        )
    )
    yield opened
    opened.close()


async def _seated_bots(referee: Referee) -> tuple[list[str], list[SeatSession]]:
    ids, sessions = [], []
    for seat in range(PLAYERS):
        record, token = referee.register_bot(f"bot-{seat}")
        hello = HelloRequest(token=token, protocol_version=1, bot_name=record.name)
        session = await referee.open_session(hello, "in-process")
        assert _sent(session) == ["welcome"]
        sessions.append(session)
        ids.append(record.bot_id)
    return ids, sessions


def _kind(message: bot_pb2.RefereeMessage | bytes | None) -> str:
    if isinstance(message, bytes):
        message = bot_pb2.RefereeMessage.FromString(message)
    return "" if message is None else str(message.WhichOneof("kind"))


def _sent(session: SeatSession) -> list[str]:
    """The kinds of the messages queued for the session's bot, taken off its queue."""
    kinds = []
    while not session.outbox.empty():
        kinds.append(_kind(session.outbox.get_nowait()))
    return [kind for kind in kinds if kind]


async def test_a_store_gone_as_a_match_starts_ends_it_aborted_with_a_result(
    referee: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids, sessions = await _seated_bots(referee)

    def gone(match: MatchRecord) -> None:
        raise StoreError(f"cannot record match {match.match_id}: the database is gone")

    monkeypatch.setattr(referee.store, "record_match", gone)
    table = await referee.start_match(
        MatchOrder(bot_ids=tuple(ids), ruleset="standard", deals=1, seed=3)
    )
    summary = await referee._tasks[table.spec.match_id]

    assert summary.status == "aborted"
    assert summary.deals_played == 0
    assert table.done.is_set()
    # Told of no match, the seats hear of no end either; they are free for the next one.
    for session in sessions:
        assert _sent(session) == []
        assert session.seat is None
    assert table.spec.match_id not in referee.tables


async def test_a_store_gone_mid_match_still_tells_the_seats_it_ended(
    referee: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other side of the rule above: seats told of the match are told of its end."""
    ids, sessions = await _seated_bots(referee)
    calls = []

    def gone_after_the_start(match: MatchRecord) -> None:
        calls.append(match.status)
        if len(calls) > 1:
            raise StoreError("cannot record the result: the database is gone")

    monkeypatch.setattr(referee.store, "record_match", gone_after_the_start)
    # No bot answers: the match waits on its first request until the referee aborts it, and
    # the index then fails as the match ends.
    table = await referee.start_match(
        MatchOrder(bot_ids=tuple(ids), ruleset="standard", deals=1, seed=3)
    )
    # The table runs to its first wait once started: with the first message out, it waits.
    first = await asyncio.wait_for(sessions[0].outbox.get(), 10)
    await referee.abort_all()

    assert table.summary is not None
    assert table.summary.status == "aborted"
    assert _kind(first) == "match_started"
    for session in sessions:
        kinds = _sent(session)
        assert session is sessions[0] or kinds[0] == "match_started"
        assert kinds[-1] == "match_ended"
