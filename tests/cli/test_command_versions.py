"""Command versions (`brandeln bots version add ... --command`): checked like a season file's
command, kept with the version on both backends, listed as launched by the ladder (the
launching itself: tests/ladder/test_command_versions_e2e.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.datastore.engine import open_engine, write_transaction
from brandeln.ladder.bots.version_commands import VersionCommand, parse_command
from brandeln.ladder.errors import LadderError
from brandeln.ladder.living.config import LadderConfig, new_version_rating
from brandeln.ladder.store.base import SIDE, database_url
from brandeln.ladder.store.database import LadderStore
from brandeln.ladder.store.schema import SEASON_BOTS

runner = CliRunner()
CONFIG = LadderConfig()
SAMPLE = "python -m brandeln.sample_bots random --server {server} --token {token} --tables {tables}"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    with LadderStore.open(folder / "ladder.db") as store:
        store.ladders.ensure_ladder(CONFIG.name, CONFIG.settings(), 4, {"challenges_per_hour": 1})
    return folder


def _run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result.output


def test_a_command_version_is_kept_with_its_command_and_listed_as_launched(data: Path) -> None:
    out = _run(
        "bots", "version", "add", "rnd", "1", "--command", SAMPLE, "--tables", "2",
        "--data", str(data), "--json",
    )  # fmt: skip
    added = json.loads(out)
    assert added["command"][:3] == ["python", "-m", "brandeln.sample_bots"]
    shown = _run("bots", "version", "add", "own", "1", "--data", str(data))
    assert "token (shown once)" in shown  # one that connects by itself, as before
    launched = _run("bots", "version", "add", "rnd", "2", "--command", SAMPLE, "--data", str(data))
    assert "launched by the ladder with 1 table (starts at" in launched
    assert "token (shown once)" not in launched  # the ladder hands it a fresh one each run
    listed = json.loads(_run("bots", "version", "list", "--data", str(data), "--json"))
    by_name = {v["name"]: v for v in listed}
    assert by_name["rnd@1"]["tables"] == 2
    assert by_name["rnd@2"]["command"] == SAMPLE.split()
    assert by_name["own@1"]["command"] is None
    table = _run("bots", "version", "list", "--data", str(data))
    assert "the ladder (2 tables)" in table
    assert "itself" in table


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--command", ""], "--command: the command must name a program"),
        (["--command", "bot 'unclosed"], "--command: cannot split the command"),
        (["--command", "bot", "--tables", "1025"], "tables must be a whole number from 1 to"),
        (["--tables", "2"], "--tables is a launched version's: give --command too"),
    ],
)
def test_a_command_that_cannot_be_launched_is_refused_in_one_line(
    data: Path, args: list[str], says: str
) -> None:
    out = _run("bots", "version", "add", "rnd", "1", *args, "--data", str(data), code=2)
    assert len(out.strip().splitlines()) == 1, out  # no traceback
    assert says in out
    with LadderStore.open(data / "ladder.db", create=False) as store:
        assert store.ladders.versions(CONFIG.name) == []  # nothing half-added


def test_a_version_command_round_trips_on_both_backends(db_url: str) -> None:
    start, widen = new_version_rating(CONFIG)
    command = parse_command(SAMPLE, 3)
    with LadderStore.open(db_url) as store:
        store.ladders.ensure_ladder(CONFIG.name, CONFIG.settings(), 4, {})
        store.ladders.add_version(CONFIG.name, "a", "1", "bot_a", start, widen, command)
        store.ladders.add_version(CONFIG.name, "b", "1", "bot_b", start, widen)
        versions = {v.name: v for v in store.ladders.versions(CONFIG.name)}
    assert versions["a@1"].command == command
    assert versions["b@1"].command is None


def test_a_corrupted_stored_command_is_a_one_line_ladder_error(db_url: str) -> None:
    start, widen = new_version_rating(CONFIG)
    with LadderStore.open(db_url) as store:
        store.ladders.ensure_ladder(CONFIG.name, CONFIG.settings(), 4, {})
        store.ladders.add_version(
            CONFIG.name, "a", "1", "bot_a", start, widen, parse_command("x", 1)
        )
    # A row edited by hand, through the store's own engine (its PostgreSQL schema).
    engine = open_engine(database_url(db_url), side=SIDE)
    try:
        with write_transaction(engine) as db:
            db.execute(sqlalchemy.update(SEASON_BOTS).values(command_json='{"command": 3}'))
    finally:
        engine.dispose()
    with LadderStore.open(db_url) as store, pytest.raises(LadderError, match="not readable"):
        store.ladders.versions(CONFIG.name)


@pytest.mark.parametrize(
    "text",
    ['{"command": ["x"], "tables": true}', '{"command": [1], "tables": 1}', "[]", "nope"],
)
def test_only_what_to_json_wrote_reads_back(text: str) -> None:
    with pytest.raises(LadderError):
        VersionCommand.from_json(text)
