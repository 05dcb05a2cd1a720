"""Crash safety: SIGKILL during a season run against a referee process, then resume.

Three kills, each at a random point of a real season (`brandeln season run --referee`) between
random-bot processes and a `brandeln serve` process:

- the referee: the season run fails at once, clearly ("unavailable"); the restarted referee
  records the matches the kill cut short as aborted; running the season again finishes it;
- the season runner: the referee plays on; running the season again stops the orphaned bots
  and finishes it;
- one bot process: the runner notices at once and fails clearly, naming the bot, its exit
  code and its log, and stops the other bots (the matches it leaves play on at the referee
  with their seats forfeited, and are not counted); running the season again finishes it.

After each: no finished result lost (every match of a recorded block is in the referee's
index, finished, with the same balances), none doubled (each block has its 4 matches once),
both databases pass ``PRAGMA integrity_check``, and the log of every recorded match replays
(``brandeln matches verify``).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brandeln.arena.store.database import RefereeStore
from brandeln.cli.main import app
from brandeln.engine.plurals import plural
from brandeln.ladder.bots.processes import find_bot_processes, find_orphans, stop_orphans
from brandeln.ladder.store.database import LadderStore
from tests.faults.fleet import CLI, ROOT, RefereeProcess
from tests.ladder.test_season_e2e import blocks_recorded, random_bots_season

ADMIN_TOKEN = "crash-safety-admin-token"
BLOCKS = 5
runner = CliRunner()


@dataclass
class Season:
    """One season file, its ladder data and the referee it plays on."""

    name: str
    file: Path
    data: Path  # the ladder's data folder (ladder.db, bot logs)
    referee: RefereeProcess

    @property
    def ladder_db(self) -> Path:
        return self.data / "ladder.db"

    def start(self, log: Path) -> subprocess.Popen[bytes]:
        """`brandeln season run FILE --data DIR --referee ADDRESS` as a process."""
        with log.open("ab") as out:
            return subprocess.Popen(
                [
                    *CLI,
                    *("season", "run", str(self.file)),
                    *("--data", str(self.data), "--referee", self.referee.address),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={
                    **os.environ,
                    "PYTHONPATH": str(ROOT),
                    "BRANDELN_ADMIN_TOKEN": ADMIN_TOKEN,
                    "COLUMNS": "200",
                },
            )

    def blocks_done(self) -> int:
        return blocks_recorded(self.ladder_db, self.name)

    def token_hashes(self) -> list[str]:
        with LadderStore.open(self.ladder_db, create=False) as store:
            return [
                i.token_hash for i in store.bots.bot_identities(self.name).values() if i.token_hash
            ]


async def _season(tmp_path: Path, name: str) -> AsyncIterator[Season]:
    referee = RefereeProcess(tmp_path / "referee", ADMIN_TOKEN)
    await referee.start()
    file = tmp_path / f"{name}.toml"
    # Random bots, short matches: a block takes about a second; the kill lands mid-season.
    file.write_text(random_bots_season(name, blocks=BLOCKS, deals=12, concurrency=4))
    season = Season(name, file, tmp_path / "ladder", referee)
    try:
        yield season
    finally:
        hashes = season.token_hashes() if season.ladder_db.exists() else []
        await stop_orphans(hashes, grace_s=1.0)
        referee.stop()


@pytest.fixture
async def season(tmp_path: Path) -> AsyncIterator[Season]:
    async for made in _season(tmp_path, "crash"):
        yield made


async def _run_until_a_block_is_recorded(season: Season, log: Path) -> subprocess.Popen[bytes]:
    process = season.start(log)
    deadline = time.monotonic() + 90
    while season.blocks_done() < 1:
        assert process.poll() is None, log.read_text()
        assert time.monotonic() < deadline, "no block finished in time"
        await asyncio.sleep(0.02)
    return process


async def _wait(process: subprocess.Popen[bytes], timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while process.poll() is None:
        assert time.monotonic() < deadline, "the season run did not end"
        await asyncio.sleep(0.05)
    return process.returncode


async def _resume(season: Season, log: Path, done_before: int) -> None:
    """Run the same season again: it must finish, playing only the missing blocks."""
    process = season.start(log)
    assert await _wait(process, timeout=120) == 0, log.read_text()
    played = BLOCKS - done_before
    assert f"{plural(played, 'block')} played now ({BLOCKS} of {BLOCKS} in all)" in log.read_text()


def _check_nothing_lost_nothing_doubled(season: Season) -> None:
    with LadderStore.open(season.ladder_db, create=False) as store:
        assert store.blocks.finished_blocks(season.name) == set(range(BLOCKS))
        matches = store.reads.matches(season.name)
        assert [(m.block_index, m.rotation) for m in matches] == [
            (block, rotation) for block in range(BLOCKS) for rotation in range(4)
        ]
        assert len({m.match_id for m in matches}) == len(matches)
        assert len(store.reads.results(season.name)) == 4 * BLOCKS
        assert sum(row.blocks for row in store.reads.ratings(season.name)) == 4 * BLOCKS
    for db in (season.ladder_db, season.referee.db_path):
        with sqlite3.connect(db) as connection:
            assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    referee_store = RefereeStore(season.referee.db_path)
    try:
        for match in matches:
            record = referee_store.match(match.match_id)
            assert record.status == "finished"
            assert record.balances == match.balances
            assert record.deals_played == match.deals_played
    finally:
        referee_store.close()
    for match in matches:
        verified = runner.invoke(
            app, ["matches", "verify", match.match_id, "--data", str(season.referee.data_dir)]
        )
        assert verified.exit_code == 0, verified.output
        assert "reproduced" in verified.output


def _statuses(season: Season) -> dict[str, int]:
    with sqlite3.connect(season.referee.db_path) as connection:
        rows = connection.execute("SELECT status, count(*) FROM matches GROUP BY status")
        return {str(status): int(count) for status, count in rows}


async def test_sigkill_of_the_referee_mid_season(season: Season, tmp_path: Path) -> None:
    first_log = tmp_path / "first.log"
    first = await _run_until_a_block_is_recorded(season, first_log)
    season.referee.kill()
    # The run fails at once, saying what went wrong; its bots are stopped.
    assert await _wait(first) == 1
    output = first_log.read_text()
    assert "unavailable" in output
    assert "Traceback" not in output
    assert find_bot_processes(season.token_hashes()) == []
    done = season.blocks_done()
    assert 1 <= done < BLOCKS, "the kill must land mid-season"
    cut_short = _statuses(season).get("running", 0)
    assert cut_short >= 1  # the matches the kill interrupted, left as they were

    await season.referee.start()  # the same port, database and logs
    assert _statuses(season).get("running", 0) == 0
    assert _statuses(season)["aborted"] >= cut_short
    await _resume(season, tmp_path / "second.log", done)
    _check_nothing_lost_nothing_doubled(season)


async def test_sigkill_of_the_season_runner_mid_season(season: Season, tmp_path: Path) -> None:
    first = await _run_until_a_block_is_recorded(season, tmp_path / "first.log")
    first.send_signal(signal.SIGKILL)
    first.wait()
    done = season.blocks_done()
    assert 1 <= done < BLOCKS, "the kill must land mid-season"
    # The referee plays on; the killed run's bots are orphans the next run stops.
    orphans = season.token_hashes()  # the resume gives the bots new tokens: keep the old
    assert find_orphans(orphans)
    await _resume(season, tmp_path / "second.log", done)
    assert find_bot_processes(orphans) == []
    assert find_bot_processes(season.token_hashes()) == []
    _check_nothing_lost_nothing_doubled(season)
    assert season.referee.alive()


async def test_sigkill_of_a_bot_mid_season(season: Season, tmp_path: Path) -> None:
    first_log = tmp_path / "first.log"
    first = await _run_until_a_block_is_recorded(season, first_log)
    with LadderStore.open(season.ladder_db, create=False) as store:
        victim = store.bots.bot_identities(season.name)["random-2"].token_hash
    assert victim is not None
    pids = find_bot_processes([victim])  # a live run's bot: no orphan
    assert pids
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    # The runner watches its bots: the season fails at once and says which one died.
    assert await _wait(first) == 1
    output = first_log.read_text()
    assert "bot 'random-2' exited with code -9 during the season" in output
    assert "Traceback" not in output
    assert find_bot_processes(season.token_hashes()) == []  # the other bots were stopped
    done = season.blocks_done()
    assert 1 <= done < BLOCKS, "the kill must land mid-season"
    await _resume(season, tmp_path / "second.log", done)
    _check_nothing_lost_nothing_doubled(season)
    assert season.referee.alive()
