"""Seasons on PostgreSQL, end to end: the real CLI (`season run --db`), real bot processes,
a real PostgreSQL server; two runners at once, a runner killed with SIGKILL (a server that
goes away mid-season: tests/ladder/test_season_postgres_outage.py).

The bots are the deterministic heuristic sample bot, so a season's block results, and so its
ratings, are the same in every run: a resumed or shared season can be compared with one
uninterrupted run.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.ladder.bots.processes import stop_orphans
from brandeln.ladder.errors import LadderError, StorageError
from brandeln.ladder.ratings.order import blocks_to_rate
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.store.database import LadderStore
from brandeln.ladder.store.schema import ClaimState
from tests import pg_server
from tests.conftest import PROJECT_PYTHONPATH, ROOT

# Whole seasons in processes of their own, whose waits allow 300 s: so does pytest (its
# default is 120 s), for a loaded machine.
pytestmark = [pytest.mark.timeout(300), pytest.mark.early]
runner = CliRunner()
BOTS = tuple(f"h{n}" for n in range(1, 5))


def heuristic_season(name: str, *, blocks: int, deals: int = 8, concurrency: int = 2) -> str:
    bots = "".join(
        f'[[bots]]\nname = "{bot}"\n'
        'command = ["python", "-m", "brandeln.cli", "bot", "run", "heuristic"]\n'
        for bot in BOTS
    )
    return (
        f'name = "{name}"\nseed = 3\nblocks = {blocks}\ndeals_per_match = {deals}\n'
        f"concurrency = {concurrency}\nconnect_timeout_ms = 30000\n"
        "[time_control]\nmove_ms = 2000\nbank_ms = 20000\n" + bots
    )


def start_season(
    file: Path, data: Path, db: str, log: Path, attempts: int | None = None
) -> subprocess.Popen[bytes]:
    """`brandeln season run FILE --db DB` in a process of its own (output to ``log``), each
    transaction given ``attempts`` (``BRANDELN_DB_ATTEMPTS``; the default's 25 s else)."""
    tries = {} if attempts is None else {"BRANDELN_DB_ATTEMPTS": str(attempts)}
    with log.open("wb") as out:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "brandeln.cli",
                "season",
                "run",
                str(file),
                "--data",
                str(data),
                "--db",
                db,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": PROJECT_PYTHONPATH, "BRANDELN_DB": "", **tries},
        )


def blocks_recorded(db: str, season: str) -> int:
    try:
        with LadderStore.open(db, create=False) as store:
            return (
                len(store.blocks.finished_blocks(season))
                if season in store.seasons.season_names()
                else 0
            )
    except StorageError:
        return 0


def wait_for_blocks(
    db: str, season: str, count: int, process: subprocess.Popen[bytes], log: Path
) -> None:
    deadline = time.monotonic() + 120
    while blocks_recorded(db, season) < count:
        assert process.poll() is None, log.read_text()
        assert time.monotonic() < deadline, f"no {count} blocks in time: {log.read_text()}"
        time.sleep(0.05)


def board(db: str, season: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["ratings", "--db", db, "--season", season, "--json"])
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.output)["leaderboard"]
    for row in rows:  # how long the bots thought is timing, not a result
        row.pop("latency")
    return rows


def uninterrupted_board(tmp_path: Path, text: str, season: str) -> list[dict[str, Any]]:
    """The leaderboard of the same season played in one run, on SQLite."""
    file = tmp_path / "reference.toml"
    file.write_text(text)
    data = tmp_path / "reference"
    result = runner.invoke(app, ["season", "run", str(file), "--data", str(data)])
    assert result.exit_code == 0, result.output
    return board(str(data / "ladder.db"), season)


def assert_every_block_once(db: str, season: str, blocks: int) -> None:
    """Each block recorded exactly once, with one match per rotation, four results, four
    rating updates; every claim done; the ratings those of the results in block order."""
    with LadderStore.open(db, create=False) as store:
        assert store.blocks.finished_blocks(season) == set(range(blocks))
        matches = store.reads.matches(season)
        assert [(m.block_index, m.rotation) for m in matches] == [
            (block, rotation) for block in range(blocks) for rotation in range(4)
        ]
        assert len({m.match_id for m in matches}) == 4 * blocks
        results = store.reads.results(season)
        assert len(results) == 4 * blocks
        history = store.reads.rating_history(season)
        assert [(index, bot) for index, bot, _ in history] == [
            (block, bot) for block in range(blocks) for bot in BOTS
        ]
        assert sum(row.blocks for row in store.reads.ratings(season)) == 4 * blocks
        assert {state for state, _ in store.blocks.claims(season).values()} == {ClaimState.DONE}
        # Rated in block order: exactly what rating the stored rankings one by one gives.
        model = RatingModel(season_config_rating())
        rankings: dict[int, dict[str, int]] = {}
        for index, result in results:
            rankings.setdefault(index, {})[result.bot] = result.rank
        replay = blocks_to_rate(0, rankings, dict.fromkeys(BOTS, model.initial()), model.rate_block)
        final = {bot: rating for block in replay for bot, rating in block.ratings.items()}
        assert {row.bot: row.rating for row in store.reads.ratings(season)} == final


def season_config_rating() -> Any:
    from brandeln.ladder.season.config import parse_season  # noqa: PLC0415

    return parse_season(heuristic_season("x", blocks=1), "x.toml").rating


@pytest.fixture
def pg_db(postgres: pg_server.PostgresServer) -> Iterator[str]:
    from tests.conftest import create_database, drop_database  # noqa: PLC0415

    name = f"season_{os.getpid()}_{time.monotonic_ns()}"
    url = create_database(postgres, name)
    try:
        yield url
    finally:
        drop_database(postgres, name)


def test_a_season_runs_on_postgresql_from_the_cli_and_the_read_commands_find_it(
    tmp_path: Path, pg_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "season.toml"
    file.write_text(heuristic_season("on-pg", blocks=2))
    data = tmp_path / "data"
    result = runner.invoke(app, ["season", "run", str(file), "--data", str(data), "--db", pg_db])
    assert result.exit_code == 0, result.output
    assert "season on-pg (standard): 2 of 2 blocks" in result.output
    assert not (data / "ladder.db").exists()  # the ladder lives in PostgreSQL
    assert_every_block_once(pg_db, "on-pg", 2)
    # BRANDELN_DB is --db's default for the read commands too.
    monkeypatch.setenv("BRANDELN_DB", pg_db)
    listed = runner.invoke(app, ["season", "list", "--data", str(tmp_path / "elsewhere")])
    assert listed.exit_code == 0, listed.output
    assert "on-pg" in listed.output
    rows = json.loads(runner.invoke(app, ["ratings", "--json"]).output)["leaderboard"]
    assert [row["blocks"] for row in rows] == [2, 2, 2, 2]
    # The logs live in PostgreSQL too: the card play is judged from there.
    judged = runner.invoke(app, ["ratings", "--json", "--double-dummy"])
    assert judged.exit_code == 0, judged.output
    card_play = json.loads(judged.output)["double_dummy"]
    with LadderStore.open(pg_db, create=False) as store:
        deals = sum(match.deals_played for match in store.reads.matches("on-pg"))
    assert (card_play["deals"], card_play["unread"]) == (deals, [])
    assert sum(row["defender_cards"] for row in card_play["bots"]) > 0


def _claimed(db: str, season: str) -> bool:
    try:
        with LadderStore.open(db, create=False) as store:
            return any(
                state is ClaimState.CLAIMED for state, _ in store.blocks.claims(season).values()
            )
    except LadderError:  # the season is not created yet
        return False


def test_two_runners_on_one_postgresql_share_the_blocks_and_play_none_twice(
    tmp_path: Path, pg_db: str
) -> None:
    blocks = 8
    text = heuristic_season("shared", blocks=blocks, deals=4)  # what is shared is blocks
    file = tmp_path / "season.toml"
    file.write_text(text)
    logs = [tmp_path / "runner-1.log", tmp_path / "runner-2.log"]
    # Each runner with its own data folder, the ladder (and the referees' records) shared.
    # The second joins once the first plays (has claimed a block): two runs that start at the
    # very same moment may both rotate the stored bot tokens and cut each other's bots off
    # (the storage page says so); one that joins a running season registers bots of its own.
    processes = [start_season(file, tmp_path / "data-0", pg_db, logs[0])]
    try:
        deadline = time.monotonic() + 120
        while not _claimed(pg_db, "shared"):
            assert processes[0].poll() is None, logs[0].read_text()
            assert time.monotonic() < deadline, "the first runner claimed no block"
            time.sleep(0.05)
        processes.append(start_season(file, tmp_path / "data-1", pg_db, logs[1]))
        for process, log in zip(processes, logs, strict=True):
            assert process.wait(timeout=300) == 0, log.read_text()
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
    played = [int(re.findall(r"(\d+) blocks? played now", log.read_text())[0]) for log in logs]
    assert sum(played) == blocks, played  # nothing played twice
    assert_every_block_once(pg_db, "shared", blocks)
    assert board(pg_db, "shared") == uninterrupted_board(tmp_path, text, "shared")


def test_resume_after_sigkill_of_the_runner_on_postgresql(tmp_path: Path, pg_db: str) -> None:
    blocks = 6
    text = heuristic_season("killed", blocks=blocks, deals=8)
    file = tmp_path / "season.toml"
    file.write_text(text)
    data = tmp_path / "data"
    log = tmp_path / "first.log"
    first = start_season(file, data, pg_db, log)
    try:
        wait_for_blocks(pg_db, "killed", 1, first, log)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()
    with LadderStore.open(pg_db, create=False) as store:
        done = store.blocks.finished_blocks("killed")
        claimed = {
            index
            for index, (state, _) in store.blocks.claims("killed").items()
            if state is ClaimState.CLAIMED
        }
        hashes = [
            i.token_hash for i in store.bots.bot_identities("killed").values() if i.token_hash
        ]
    assert 1 <= len(done) < blocks, f"the kill must land mid-season; done: {sorted(done)}"
    assert claimed, "the killed runner held claims on the blocks it was playing"
    try:
        result = runner.invoke(
            app, ["season", "run", str(file), "--data", str(data), "--db", pg_db]
        )
        assert result.exit_code == 0, result.output
        assert f"({blocks} of {blocks} in all)" in result.output
    finally:
        asyncio.run(stop_orphans(hashes, grace_s=1.0))
    assert_every_block_once(pg_db, "killed", blocks)
    assert board(pg_db, "killed") == uninterrupted_board(tmp_path, text, "killed")


def test_postgresql_down_at_start_is_one_line_naming_host_and_port(tmp_path: Path) -> None:
    port = pg_server.free_port()
    file = tmp_path / "season.toml"
    file.write_text(heuristic_season("down", blocks=1))
    url = f"postgresql://ladder:secret@127.0.0.1:{port}/arena"
    result = runner.invoke(app, ["season", "run", str(file), "--data", str(tmp_path), "--db", url])
    assert result.exit_code == 1
    assert f"cannot reach PostgreSQL at 127.0.0.1:{port}" in result.output
    assert "secret" not in result.output
    assert len(result.output.strip().splitlines()) == 2  # the season line, then the error


def test_a_missing_database_and_a_bad_url_are_named(
    tmp_path: Path, postgres: pg_server.PostgresServer
) -> None:
    missing = f"postgresql://{postgres.user}@127.0.0.1:{postgres.port}/nosuchdb"
    result = runner.invoke(app, ["ratings", "--db", missing])
    assert result.exit_code == 1
    assert "database 'nosuchdb' does not exist" in result.output
    bad = runner.invoke(app, ["ratings", "--db", "mysql://u:pw@h/db"])
    assert bad.exit_code == 2
    assert "unsupported database 'mysql'" in bad.output
    assert "pw@" not in bad.output
