"""`brandeln db copy`: a data folder to PostgreSQL and back, every row and every log the same;
a destination that holds data is refused unless --force."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brandeln.arena.store.database import RefereeStore
from brandeln.cli.main import app
from tests.ladder.test_season_e2e import random_bots_season

runner = CliRunner()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder as `season run` leaves it: the embedded referee's database and logs."""
    folder = tmp_path_factory.mktemp("played")
    season = folder / "season.toml"
    season.write_text(random_bots_season("copied", blocks=2, deals=4))
    result = runner.invoke(app, ["season", "run", str(season), "--data", str(folder / "data")])
    assert result.exit_code == 0, result.output
    return folder / "data"


def _rows(db: Path, table: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as connection:
        rows = connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
    connection.close()
    return rows


def _logs(db: Path) -> dict[str, bytes]:
    store = RefereeStore(db)
    try:
        return {m.match_id: store.read_log(m.log_path) for m in store.matches(limit=1000)}
    finally:
        store.close()


def test_a_copy_to_postgresql_and_back_holds_every_row_and_log(
    played: Path, pg_url: str, tmp_path: Path
) -> None:
    there = runner.invoke(app, ["db", "copy", str(played), pg_url])
    assert there.exit_code == 0, there.output
    assert "copied and verified" in there.stdout
    assert "referee.matches" in there.stdout
    assert "referee match logs" in there.stdout
    logs = _logs(played / "embedded" / "referee.db")
    assert len(logs) == 8
    # Read from the database: the logs are there, not in the folder.
    listed = runner.invoke(app, ["matches", "list", "--db", pg_url, "--limit", "100"])
    assert listed.exit_code == 0, listed.output
    assert all(match_id in listed.stdout for match_id in logs)
    for match_id in list(logs)[:2]:
        verified = runner.invoke(app, ["matches", "verify", match_id, "--db", pg_url])
        assert verified.exit_code == 0, verified.output

    back = tmp_path / "back"
    returned = runner.invoke(app, ["db", "copy", pg_url, str(back)])
    assert returned.exit_code == 0, returned.output
    # A database's referee lands where `brandeln serve` keeps one: DATA/referee.db, DATA/logs.
    source, copy = played / "embedded" / "referee.db", back / "referee.db"
    for table in ("bots", "settings", "sessions", "match_bots"):
        assert _rows(copy, table) == _rows(source, table), table
    original = {row[0]: row for row in _rows(source, "matches")}
    copied = {row[0]: row for row in _rows(copy, "matches")}
    assert original.keys() == copied.keys()
    for key, row in original.items():
        # The same row but where its log is: the copy's own file.
        assert copied[key][:12] == row[:12]
        assert copied[key][12] == str(back.resolve() / "logs" / f"{key}.jsonl")
    assert _logs(copy) == logs
    # The ladder's side went there and back too: every row, and the same leaderboard.
    assert "ladder.results" in there.stdout
    for table in ("seasons", "season_bots", "blocks", "matches", "results", "ratings"):
        assert _rows(back / "ladder.db", table) == _rows(played / "ladder.db", table), table
    boards = [
        runner.invoke(app, ["ratings", *where, "--season", "copied", "--json"])
        for where in (["--data", str(played)], ["--db", pg_url], ["--data", str(back)])
    ]
    assert all(board.exit_code == 0 for board in boards), [b.output for b in boards]
    assert boards[0].stdout == boards[1].stdout == boards[2].stdout


def test_a_destination_with_data_is_refused_unless_forced(played: Path, pg_url: str) -> None:
    assert runner.invoke(app, ["db", "copy", str(played), pg_url]).exit_code == 0
    again = runner.invoke(app, ["db", "copy", str(played), pg_url])
    assert again.exit_code == 1
    errors = again.stderr.strip().splitlines()
    assert len(errors) == 1
    assert "is not empty" in errors[0]
    assert "--force" in errors[0]
    forced = runner.invoke(app, ["db", "copy", str(played), pg_url, "--force"])
    assert forced.exit_code == 0, forced.output


def test_a_copy_from_a_folder_without_stores_says_so(tmp_path: Path, pg_url: str) -> None:
    result = runner.invoke(app, ["db", "copy", str(tmp_path), pg_url])
    assert result.exit_code == 1
    assert "no referee or ladder database to copy" in result.stderr


def test_a_ladder_db_of_an_older_version_is_adopted_and_copied(tmp_path: Path, pg_url: str) -> None:
    # A folder as an older brandeln left it (schema version 2, no Alembic table): the copy
    # opens it as the ladder does, migrating it, instead of refusing it.
    folder = tmp_path / "old"
    folder.mkdir()
    legacy = Path(__file__).resolve().parent.parent / "data" / "ladder_v2.db"
    (folder / "ladder.db").write_bytes(legacy.read_bytes())
    results = _rows(folder / "ladder.db", "results")
    copied = runner.invoke(app, ["db", "copy", str(folder), pg_url])
    assert copied.exit_code == 0, copied.output
    back = tmp_path / "back"
    assert runner.invoke(app, ["db", "copy", pg_url, str(back)]).exit_code == 0
    assert [row[:12] for row in _rows(back / "ladder.db", "results")] == [
        row[:12] for row in results
    ]
