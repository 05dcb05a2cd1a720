"""One real match, played once per test session, that CLI tests copy and then damage or edit.

The match is played by an embedded referee over loopback gRPC with four minimal bot processes.
One of them answers its first request with an illegal bid, and the time control allows a single
strike, so the log holds a strike, a forfeit and the fallback decisions of a forfeited seat, as
well as contracts, tricks and payments.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.v1 import admin_pb2, cards_pb2
from tests.conftest import MINIMAL_BOT, AdminClient, BotProcesses, copy_data_folder, made_once

BEHAVIOURS = ("illegal", "first", "last", "first")


@dataclass(frozen=True)
class RecordedMatch:
    data: Path
    match_id: str


async def _play(data: Path, bots: BotProcesses) -> str:
    async with EmbeddedReferee(data) as referee:
        admin = AdminClient(referee.address, referee.admin_token)
        try:
            ids = []
            for n, behaviour in enumerate(BEHAVIOURS):
                reply = await admin.register(f"{behaviour}-{n}")
                bots.start([MINIMAL_BOT, referee.address, reply.token, behaviour], name=behaviour)
                ids.append(reply.bot_id)
            await admin.wait_for_sessions(ids, timeout=90)  # bot processes start slowly under load
            request = admin_pb2.RunMatchRequest(
                bot_ids=ids,
                deals=4,
                seed=8,
                time_control=cards_pb2.TimeControl(max_strikes=1),
            )
            _, result = await admin.run_match(request)
        finally:
            await admin.close()
    assert result.status == "finished"
    assert list(result.forfeited) == [0]
    return result.match_id


def _record(root: Path) -> dict[str, str]:
    bots = BotProcesses(root)
    try:
        return {"match_id": asyncio.run(_play(root / "data", bots))}
    finally:
        bots.stop()


@pytest.fixture(scope="session")
def recorded_match(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> RecordedMatch:
    root, facts = made_once(tmp_path_factory, worker_id, "recorded", _record)
    return RecordedMatch(root / "data", facts["match_id"])


@dataclass(frozen=True)
class MatchCopy:
    """A copy of the recorded match's data folder, its index pointing at the copied log."""

    data: Path
    match_id: str

    @property
    def log(self) -> Path:
        return self.data / "logs" / f"{self.match_id}.jsonl"

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def edit(self, change: Callable[[list[dict[str, Any]]], None]) -> None:
        """Rewrite the log after ``change`` edited its records in place."""
        records = self.records()
        change(records)
        self.log.write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.fixture
def match_copy(recorded_match: RecordedMatch, tmp_path: Path) -> MatchCopy:
    data = tmp_path / "data"
    copy_data_folder(recorded_match.data, data)
    copy = MatchCopy(data, recorded_match.match_id)
    with sqlite3.connect(data / "referee.db") as db:
        db.execute("UPDATE matches SET log_path=?", (str(copy.log),))
    db.close()
    return copy
