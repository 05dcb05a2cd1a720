"""Referees on one PostgreSQL, end to end with real processes: two `brandeln serve --db URL`
at once, each driven by its own `brandeln season run --referee` with real bot processes, never
lose, double or interleave a result; SIGKILL of a referee mid-season loses nothing recorded,
its restart marks the match cut short aborted and the season's resume replays that block."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlalchemy
from typer.testing import CliRunner

from brandeln.arena.logrecords import MatchStatus
from brandeln.arena.store.database import RefereeStore
from brandeln.cli.main import app
from brandeln.ladder.bots.processes import find_bot_processes, stop_orphans
from brandeln.ladder.store.database import LadderStore
from tests.faults.fleet import RefereeProcess
from tests.faults.test_crash_safety import (
    ADMIN_TOKEN,
    BLOCKS,
    Season,
    _resume,
    _run_until_a_block_is_recorded,
    _wait,
)
from tests.ladder.test_season_e2e import random_bots_season

runner = CliRunner()
pytestmark = pytest.mark.early  # a few minutes of seasons: begun first (tests/conftest.py)


async def _seasons(tmp_path: Path, url: str, names: list[str]) -> AsyncIterator[list[Season]]:
    made = []
    for name in names:
        referee = RefereeProcess(tmp_path / f"referee-{name}", ADMIN_TOKEN, database=url)
        file = tmp_path / f"{name}.toml"
        file.write_text(random_bots_season(name, blocks=BLOCKS, deals=12, concurrency=4))
        made.append(Season(name, file, tmp_path / f"ladder-{name}", referee))
    try:
        yield made
    finally:
        for season in made:
            hashes = season.token_hashes() if season.ladder_db.exists() else []
            await stop_orphans(hashes, grace_s=1.0)
            if season.referee.process is not None:
                season.referee.stop()


def _statuses(url: str) -> dict[str, int]:
    engine = sqlalchemy.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect() as db:
        rows = db.exec_driver_sql("SELECT status, count(*) FROM referee.matches GROUP BY status")
        found = {str(status): int(count) for status, count in rows}
    engine.dispose()
    return found


def _check_nothing_lost_nothing_doubled(season: Season, url: str) -> set[str]:
    """The ladder's record of the season against the referees' shared database; returns the
    referee ids that played its matches."""
    with LadderStore.open(season.ladder_db, create=False) as store:
        assert store.blocks.finished_blocks(season.name) == set(range(BLOCKS))
        matches = store.reads.matches(season.name)
        assert [(m.block_index, m.rotation) for m in matches] == [
            (block, rotation) for block in range(BLOCKS) for rotation in range(4)
        ]
        assert len(store.reads.results(season.name)) == 4 * BLOCKS
    referee_store = RefereeStore(url)
    try:
        for match in matches:
            record = referee_store.match(match.match_id)
            assert record.status is MatchStatus.FINISHED
            assert record.balances == match.balances
            assert record.deals_played == match.deals_played
        with referee_store.engine.connect() as db:
            owners = {
                str(row[0])
                for row in db.execute(
                    sqlalchemy.text(
                        "SELECT DISTINCT referee_id FROM matches WHERE match_id = ANY(:ids)"
                    ),
                    {"ids": [m.match_id for m in matches]},
                )
            }
    finally:
        referee_store.close()
    for match in matches:
        # The replay fails on a log with another match's records in it (interleaved).
        verified = runner.invoke(app, ["matches", "verify", match.match_id, "--db", url])
        assert verified.exit_code == 0, verified.output
        assert "reproduced" in verified.output
    return owners


async def test_two_referees_on_one_postgresql_play_two_seasons_at_once(
    tmp_path: Path, pg_url: str
) -> None:
    async for one, two in _seasons(tmp_path, pg_url, ["north", "south"]):
        await one.referee.start()
        first = await _run_until_a_block_is_recorded(one, tmp_path / "north.log")
        # The second referee starts while the first has matches running: its start-up
        # recovery must leave them alone (they are a live referee's, not a dead one's).
        assert _statuses(pg_url).get("running", 0) >= 1
        await two.referee.start()
        second = two.start(tmp_path / "south.log")
        assert await _wait(first, timeout=180) == 0, (tmp_path / "north.log").read_text()
        assert await _wait(second, timeout=180) == 0, (tmp_path / "south.log").read_text()
        assert _statuses(pg_url) == {"finished": 2 * 4 * BLOCKS}
        north = _check_nothing_lost_nothing_doubled(one, pg_url)
        south = _check_nothing_lost_nothing_doubled(two, pg_url)
        assert len(north) == 1
        assert len(south) == 1
        assert north != south  # each season was played by its own referee process


async def test_sigkill_of_a_referee_on_postgresql_mid_season(tmp_path: Path, pg_url: str) -> None:
    async for (season,) in _seasons(tmp_path, pg_url, ["killed"]):
        await season.referee.start()
        first_log = tmp_path / "first.log"
        first = await _run_until_a_block_is_recorded(season, first_log)
        season.referee.kill()
        assert await _wait(first) == 1
        output = first_log.read_text()
        assert "unavailable" in output
        assert "Traceback" not in output
        assert find_bot_processes(season.token_hashes()) == []
        done = season.blocks_done()
        assert 1 <= done < BLOCKS, "the kill must land mid-season"
        cut_short = _statuses(pg_url).get("running", 0)
        assert cut_short >= 1  # the matches the kill interrupted, left as they were

        await season.referee.start()  # the same port and database
        after = _statuses(pg_url)
        assert after.get("running", 0) == 0
        assert after["aborted"] >= cut_short
        await _resume(season, tmp_path / "second.log", done)
        _check_nothing_lost_nothing_doubled(season, pg_url)
