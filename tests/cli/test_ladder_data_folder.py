"""Which data folder the ladder's commands read, through Typer's runner: run from a folder
that is not the running ladder's, `challenge`, `ladder status` and `bots version` say in one
line which database they searched (an absolute path, and what chose it) and how to point at
the running ladder, never a season command; `bots version add` prints the address the
running ladder listens on (a real `brandeln ladder serve`), or how to find it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.ladder.living.config import LadderConfig
from brandeln.ladder.store.database import LadderStore
from tests.cli.patched_brandeln import MODULE as PATCHED
from tests.cli_process import cli_process
from tests.ladder.ladder_process import SERVING, ladder_process, ladder_serve_args
from tests.pg_server import free_port

runner = CliRunner()
POINTERS = ("--data DIR", "$BRANDELN_DATA", "--db URL", "$BRANDELN_DB")
# The ladder commands that read one ladder, each with the option that names it.
LADDER_COMMANDS = (
    ("challenge", "a", "b", "--deals", "2"),
    ("ladder", "status"),
    ("bots", "version", "list"),
    ("bots", "version", "add", "a", "1"),
    ("bots", "version", "retire", "a@1"),
)


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory that is not the running ladder's, no data folder or database named
    by the environment."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.delenv("BRANDELN_DATA", raising=False)
    monkeypatch.delenv("BRANDELN_DB", raising=False)
    return folder


def _error(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output  # one line, no traceback
    return lines[0]


def _points_at_the_running_ladder(line: str) -> None:
    assert all(pointer in line for pointer in POINTERS), line
    assert "season run" not in line, line  # a ladder is no season to run


@pytest.mark.parametrize("command", LADDER_COMMANDS, ids=" ".join)
def test_from_a_folder_without_a_database_the_absolute_path_searched_is_named(
    elsewhere: Path, command: tuple[str, ...]
) -> None:
    line = _error(*command)
    searched = elsewhere / "brandeln-data" / "ladder.db"
    assert f"no ladder database at {searched} (the default ./brandeln-data)" in line
    _points_at_the_running_ladder(line)


def test_a_data_folder_from_the_environment_is_named_as_such(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRANDELN_DATA", "relative")
    line = _error("challenge", "a", "b")
    assert f"no ladder database at {elsewhere / 'relative' / 'ladder.db'} ($BRANDELN_DATA)" in line
    _points_at_the_running_ladder(line)


@pytest.mark.parametrize("command", LADDER_COMMANDS, ids=" ".join)
def test_from_a_folder_with_a_database_of_its_own_the_ladders_there_are_named(
    elsewhere: Path, command: tuple[str, ...]
) -> None:
    config = LadderConfig(name="weekend")
    database = elsewhere / "brandeln-data" / "ladder.db"
    with LadderStore.open(database) as store:
        store.ladders.ensure_ladder(config.name, config.settings(), 4, {"challenges_per_hour": 1})
    line = _error(*command)
    assert f"no always-on ladder named 'ladder' in {database} (the default ./brandeln-data)" in line
    option = "--name" if command[0] == "ladder" else "--ladder"
    assert f"which holds the ladders 'weekend' ({option} NAME)" in line
    _points_at_the_running_ladder(line)


def test_a_database_named_by_db_is_named_absolute(elsewhere: Path) -> None:
    line = _error("challenge", "a", "b", "--db", "nowhere.db")
    assert f"no ladder database at {elsewhere / 'nowhere.db'} (--db)" in line
    _points_at_the_running_ladder(line)
    with LadderStore.open(elsewhere / "other.db"):
        pass  # a ladder database without a ladder
    line = _error("ladder", "status", "--db", "other.db")
    assert f"no always-on ladder named 'ladder' in {elsewhere / 'other.db'} (--db)" in line
    _points_at_the_running_ladder(line)


def test_version_add_prints_where_the_running_ladder_listens(tmp_path: Path) -> None:
    data = tmp_path / "A"
    port = free_port()
    with ladder_process(ladder_serve_args(data, None, port, move_ms=20000)):
        result = runner.invoke(app, ["bots", "version", "add", "alpha", "1", "--data", str(data)])
        assert result.exit_code == 0, result.output
        assert f"--server 127.0.0.1:{port} --token <the token>" in result.output
        assert "HOST:PORT" not in result.output
        args = ["bots", "version", "add", "beta", "1", "--data", str(data), "--json"]
        added = json.loads(runner.invoke(app, args).output)
        assert added["server"] == f"127.0.0.1:{port}"


def test_from_the_line_saying_the_ladder_serves_versions_can_be_added(tmp_path: Path) -> None:
    # The ladder's loop held: only what `ladder serve` stored before its "is serving" line is
    # there, and that must be enough for an author who acts on the line.
    data = tmp_path / "A"
    args = [
        "hold_serve",
        "ladder",
        "serve",
        *ladder_serve_args(data, None, free_port(), move_ms=20000),
    ]
    with cli_process(args, module=PATCHED) as ladder:
        ladder.wait_for(SERVING)
        result = runner.invoke(app, ["bots", "version", "add", "alpha", "1", "--data", str(data)])
    assert result.exit_code == 0, result.output


def test_version_add_without_a_known_address_says_where_to_find_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    config = LadderConfig()
    with LadderStore.open(data / "ladder.db") as store:  # as a ladder served before runs kept it
        store.ladders.ensure_ladder(config.name, config.settings(), 4, {"challenges_per_hour": 1})
    result = runner.invoke(app, ["bots", "version", "add", "alpha", "1", "--data", str(data)])
    assert result.exit_code == 0, result.output
    assert 'the address `brandeln ladder serve` printed as "referee listening on"' in " ".join(
        result.output.split()
    )
    added = json.loads(
        runner.invoke(
            app, ["bots", "version", "add", "beta", "1", "--data", str(data), "--json"]
        ).output
    )
    assert added["server"] is None
