"""What a table counts for the metrics and tells the log as it plays: a match of scripted seats
on the fake clock (tests/arena/test_timecontrol.py), one of them answering first with text no
terminal should see, then legally."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from brandeln.arena import codec
from brandeln.arena.logreader import read_log
from brandeln.arena.logrecords import DecisionRecord
from brandeln.arena.timecontrol import TimeControlSettings
from brandeln.protocol.statuses import SeatOutcome
from brandeln.services.logs.formatters import JsonFormatter
from brandeln.v1 import bot_pb2, cards_pb2
from tests.arena.test_timecontrol import FakeClock, ScriptedSession, first_legal, make_table

# A contract id as a hostile bot might send it: a terminal command, a line of its own.
HOSTILE_CONTRACT = "\x1b[2J\u2028\x9b\n{}"


def _hostile_first(session: ScriptedSession) -> None:
    """Seat 0 answers its first request with HOSTILE_CONTRACT, then (at once) legally."""
    plain_send = session.send
    sent_hostile = False

    def send(message: bot_pb2.RefereeMessage | bytes) -> None:
        nonlocal sent_hostile
        parsed = (
            bot_pb2.RefereeMessage.FromString(message) if isinstance(message, bytes) else message
        )
        if parsed.WhichOneof("kind") == "request" and not sent_hostile and session.seat:
            sent_hostile = True
            request = parsed.request
            bid = cards_pb2.Choice(bid=cards_pb2.Bid(contract=HOSTILE_CONTRACT))
            action = bot_pb2.Action(request_id=request.request_id, choice=bid)
            session.seat.inbox.put_nowait(bot_pb2.BotMessage(action=action))
        plain_send(message)

    session.send = send  # type: ignore[method-assign]


async def test_the_table_counts_its_decisions_rejections_and_penalties_and_logs_the_penalty(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()
    tc = TimeControlSettings(move_ms=1000, bank_ms=1000, max_strikes=3)
    table = make_table(tmp_path, clock, [first_legal(3)] * 4, tc, deals=2)
    sessions = [seat.session for seat in table.seats]
    assert isinstance(sessions[0], ScriptedSession)
    _hostile_first(sessions[0])
    with caplog.at_level(logging.INFO, logger="brandeln.arena"):
        summary = await table.run()
    assert summary.status == "finished"

    log = read_log(table.store.read_log(table.log_path).decode())
    decisions = [r for r in log.records if isinstance(r, DecisionRecord)]
    outcomes, buckets, latency_s, rejections, penalties = table.decider.counts.snapshot()
    assert sum(outcomes.values()) == len(decisions)
    assert outcomes[SeatOutcome.OK] == len(decisions)
    assert sum(buckets) == len(decisions)  # every seat was asked
    assert latency_s == pytest.approx(0.003 * len(decisions))  # the fake clock's 3 ms each
    assert sum(rejections.values()) == 1
    (logged,) = log.penalties()
    assert penalties[logged.code] == 1
    assert rejections[codec.Rejection.ILLEGAL] + rejections[codec.Rejection.MALFORMED] == 1

    (record,) = [r for r in caplog.records if getattr(r, "event", "") == "penalty"]
    line = JsonFormatter().format(record)
    assert all(" " <= char <= "~" for char in line), line  # inert, whatever the bot sent
    entry = json.loads(line)
    assert entry["match_id"] == "m_test"
    assert entry["seat"] == 0
    assert entry["bot_id"] == "b0"
    assert entry["code"] == str(logged.code)
    assert entry["strikes"] == 1
    assert entry["reason"] == logged.reason  # the same reason the log and the seats got
    assert logged.reason.isprintable(), logged.reason  # quoted, never the bot's raw escapes
    assert logged.reason.startswith("'\\x1b[2J\\u2028"), logged.reason
    assert entry["level"] == "info"
