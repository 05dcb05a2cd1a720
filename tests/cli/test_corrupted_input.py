"""Damaged match logs and databases: every CLI command that reads one says, on one line, which
file and what is wrong (never a traceback), exits 1, and leaves the file exactly as it was."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from brandeln.cli.main import app
from tests.cli.conftest import MatchCopy
from tests.ladder.season_helpers import season_text

runner = CliRunner()

Records = list[dict[str, Any]]


def assert_one_line_error(result: Result, *expected: str) -> None:
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: "), lines
    for part in expected:
        assert part in lines[0], (part, lines[0])


# --- match logs ---------------------------------------------------------------------------------
def drop_ruleset(records: Records) -> None:
    del records[0]["ruleset"]


def drop_deal_number(records: Records) -> None:
    del next(r for r in records if r["type"] == "deal")["deal_number"]


def drop_payments(records: Records) -> None:
    del next(r for r in records if r.get("kind") == "deal_ended")["payments"]


def seat_out_of_range(records: Records) -> None:
    next(r for r in records if r["type"] == "penalty")["seat"] = 7


def text_for_a_count(records: Records) -> None:
    records[-1]["deals_played"] = "four"


LOG_DAMAGE: list[tuple[Callable[[Records], None], int, str]] = [
    (drop_ruleset, 1, "the header has no 'ruleset'"),
    (drop_deal_number, 2, "the deal record has no 'deal_number'"),
    (drop_payments, 0, "the deal_ended event has no 'payments'"),
    (seat_out_of_range, 0, "the penalty record: 'seat' is 7, not a seat 0..3"),
    (text_for_a_count, 0, "the footer: 'deals_played' should be an integer, not 'four'"),
]
COMMANDS = ["show", "export", "verify"]


def _line_of(copy: MatchCopy, damage: Callable[[Records], None]) -> int:
    """The 1-based line of the record ``damage`` changes."""
    before = copy.records()
    after = copy.records()
    damage(after)
    return next(n for n, (a, b) in enumerate(zip(before, after, strict=True), 1) if a != b)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    ("damage", "line", "problem"), LOG_DAMAGE, ids=[d.__name__ for d, _, _ in LOG_DAMAGE]
)
def test_a_log_missing_a_key_is_one_line_naming_file_line_and_key(
    match_copy: MatchCopy,
    command: str,
    damage: Callable[[Records], None],
    line: int,
    problem: str,
) -> None:
    line = line or _line_of(match_copy, damage)
    match_copy.edit(damage)
    before = match_copy.log.read_bytes()
    result = runner.invoke(
        app, ["matches", command, match_copy.match_id, "--data", str(match_copy.data)]
    )
    assert_one_line_error(result, f"{match_copy.log}, line {line}: {problem}")
    assert match_copy.log.read_bytes() == before


@pytest.mark.parametrize("command", COMMANDS)
def test_a_log_that_is_not_utf8_is_one_line_naming_file_and_line(
    match_copy: MatchCopy, command: str
) -> None:
    lines = match_copy.log.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"action":"', b'"action":"\xff', 1)
    match_copy.log.write_bytes(b"".join(lines))
    before = match_copy.log.read_bytes()
    result = runner.invoke(
        app, ["matches", command, match_copy.match_id, "--data", str(match_copy.data)]
    )
    assert_one_line_error(result, f"{match_copy.log}, line 3: not UTF-8 text")
    assert result.stdout == ""  # export prints nothing of a log it cannot read
    assert match_copy.log.read_bytes() == before


def test_export_prints_a_valid_log_byte_for_byte(match_copy: MatchCopy) -> None:
    result = runner.invoke(
        app, ["matches", "export", match_copy.match_id, "--data", str(match_copy.data)]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == match_copy.log.read_bytes()


def test_a_damaged_index_row_is_one_line_naming_the_database(match_copy: MatchCopy) -> None:
    db_path = match_copy.data / "referee.db"
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE matches SET bot_names='[\"unterminated'")
    db.close()
    before = db_path.read_bytes()
    result = runner.invoke(app, ["matches", "list", "--data", str(match_copy.data)])
    assert_one_line_error(result, str(db_path), match_copy.match_id, "damaged")
    assert db_path.read_bytes() == before


# --- databases ----------------------------------------------------------------------------------
def versioned_but_empty(path: Path) -> None:
    """What a crash, a wrong copy or another tool can leave: user_version 1 and no tables."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 1")
    db.close()


def someone_elses(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
    db.close()


def not_sqlite(path: Path) -> None:
    path.write_bytes(b"these are not the tables you are looking for\n" * 20)


DATABASES: list[tuple[Callable[[Path], None], str]] = [
    (versioned_but_empty, "no table"),
    (someone_elses, "an SQLite file, but not a"),
    (not_sqlite, "not a usable"),
]


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


REFEREE_COMMANDS = [
    ["matches", "list"],
    ["matches", "show", "m_1"],
    ["matches", "verify", "m_1"],
    ["bots", "list"],
    ["bots", "add", "newbot"],
    ["bots", "revoke", "somebot"],
]


@pytest.mark.parametrize(("damage", "problem"), DATABASES, ids=[d.__name__ for d, _ in DATABASES])
@pytest.mark.parametrize("command", REFEREE_COMMANDS, ids=" ".join)
def test_an_unusable_referee_database_is_one_line_and_left_as_it_was(
    tmp_path: Path, command: list[str], damage: Callable[[Path], None], problem: str
) -> None:
    db_path = tmp_path / "referee.db"
    damage(db_path)
    before = _files(tmp_path)
    result = runner.invoke(app, [*command, "--data", str(tmp_path)])
    assert_one_line_error(result, str(db_path), problem)
    assert _files(tmp_path) == before  # no table created, no journal mode set, no WAL left


@pytest.mark.parametrize(("damage", "problem"), DATABASES, ids=[d.__name__ for d, _ in DATABASES])
def test_serve_refuses_an_unusable_database_and_leaves_it_as_it_was(
    tmp_path: Path, damage: Callable[[Path], None], problem: str
) -> None:
    db_path = tmp_path / "referee.db"
    damage(db_path)
    before = _files(tmp_path)
    result = runner.invoke(
        app, ["serve", "--db", str(db_path), "--logs", str(tmp_path / "logs"), "--port", "0"]
    )
    assert_one_line_error(result, str(db_path), problem)
    assert _files(tmp_path) == before


LADDER_COMMANDS = [["ratings"], ["season", "list"], ["matches", "list", "--season", "s"]]


@pytest.mark.parametrize(("damage", "problem"), DATABASES, ids=[d.__name__ for d, _ in DATABASES])
@pytest.mark.parametrize("command", LADDER_COMMANDS, ids=" ".join)
def test_an_unusable_ladder_database_is_one_line_and_left_as_it_was(
    tmp_path: Path, command: list[str], damage: Callable[[Path], None], problem: str
) -> None:
    db_path = tmp_path / "ladder.db"
    damage(db_path)
    before = _files(tmp_path)
    result = runner.invoke(app, [*command, "--data", str(tmp_path)])
    assert_one_line_error(result, str(db_path), problem)
    assert _files(tmp_path) == before


@pytest.mark.parametrize("command", LADDER_COMMANDS, ids=" ".join)
def test_a_ladder_database_given_by_db_is_the_one_read(tmp_path: Path, command: list[str]) -> None:
    # `matches list --season` read $BRANDELN_DB or DATA/ladder.db, never --db itself.
    db_path = tmp_path / "given.db"
    versioned_but_empty(db_path)
    data = tmp_path / "data"
    result = runner.invoke(app, [*command, "--db", str(db_path), "--data", str(data)])
    assert_one_line_error(result, str(db_path), "")
    assert not data.exists()


def test_season_run_refuses_an_unusable_ladder_database(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    versioned_but_empty(data / "ladder.db")
    season = tmp_path / "season.toml"
    season.write_text(season_text(blocks=1))
    before = _files(data)
    result = runner.invoke(app, ["season", "run", str(season), "--data", str(data)])
    assert "Traceback" not in result.output
    assert result.exit_code == 1, result.output
    assert result.stderr.strip().splitlines() == [
        f"error: {data / 'ladder.db'}: not a usable ladder database (schema version 1 but no "
        "table 'seasons'); restore it from a backup or move it away to start afresh"
    ]
    assert _files(data) == before


def test_season_run_refuses_an_unusable_referee_database(tmp_path: Path) -> None:
    data = tmp_path / "data"
    # The embedded referee of `season run` keeps its own database under DATA/embedded/.
    db = data / "embedded" / "referee.db"
    db.parent.mkdir(parents=True)
    versioned_but_empty(db)
    season = tmp_path / "season.toml"
    season.write_text(season_text(blocks=1))
    before = db.read_bytes()
    result = runner.invoke(app, ["season", "run", str(season), "--data", str(data)])
    assert "Traceback" not in result.output
    assert result.exit_code == 1, result.output
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1, errors
    assert f"{db}: not a usable referee database" in errors[0]
    assert db.read_bytes() == before
