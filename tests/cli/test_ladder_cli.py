"""`brandeln bots version`, `brandeln challenge` and `brandeln ladder status` through Typer's
runner, on a ladder made in the test's data folder (the serving itself: tests/ladder/
test_ladder_serve_e2e.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.ladder.living.config import LadderConfig
from brandeln.ladder.store.database import LadderStore
from brandeln.ladder.store.schema import Presence

runner = CliRunner()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    config = LadderConfig()
    with LadderStore.open(folder / "ladder.db") as store:
        store.ladders.ensure_ladder(config.name, config.settings(), 4, {"challenges_per_hour": 1})
    return folder


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _error(*args: str, code: int = 1) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output  # one line, no traceback
    return lines[0]


def test_a_version_is_registered_once_with_its_token_and_listed(data: Path) -> None:
    out = _ok("bots", "version", "add", "alpha", "1.0", "--data", str(data), "--json")
    added = json.loads(out)
    assert added["name"] == "alpha@1.0"
    assert len(added["token"]) >= 32
    shown = _ok("bots", "version", "add", "alpha", "1.1", "--data", str(data))
    assert "token (shown once)" in shown
    assert "alpha@1.1 is the active version of alpha" in shown
    assert "the version before's rating, widened" in shown
    listed = json.loads(_ok("bots", "version", "list", "--data", str(data), "--json"))
    assert [(v["name"], v["status"]) for v in listed] == [
        ("alpha@1.0", "retired"),
        ("alpha@1.1", "active"),
    ]
    # Its referee identity is the version's: `bots list` shows it.
    assert "alpha@1.1" in _ok("bots", "list", "--data", str(data))
    line = _error("bots", "version", "add", "alpha", "1.1", "--data", str(data))
    assert line == "error: alpha@1.1 is in ladder 'ladder' already"


@pytest.mark.parametrize(
    ("bot", "version", "says"),
    [
        ("a@b", "1", "may not be empty nor hold '@'"),
        ("alpha", "1 0", "a version is 1 to 40 of letters"),
        ("alpha", "x" * 41, "a version is 1 to 40 of letters"),
        ("alpha", "\x1b[31m", "a version is 1 to 40 of letters"),
    ],
)
def test_a_name_the_ladder_could_not_tell_apart_is_refused(
    data: Path, bot: str, version: str, says: str
) -> None:
    assert says in _error("bots", "version", "add", bot, version, "--data", str(data), code=2)


def test_without_a_ladder_the_commands_say_how_to_start_one(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with LadderStore.open(tmp_path / "empty" / "ladder.db"):
        pass  # a ladder database without the ladder
    line = _error("bots", "version", "add", "a", "1", "--data", str(tmp_path / "empty"))
    assert "no always-on ladder named 'ladder' in" in line
    assert f"start it there with brandeln ladder serve --data {tmp_path / 'empty'}" in line
    for command in (["ladder", "status"], ["challenge", "a", "b"]):
        line = _error(*command, "--data", str(tmp_path / "empty"))
        assert "no always-on ladder named 'ladder'" in line
    line = _error("ladder", "status", "--data", str(tmp_path / "nowhere"))
    assert "nowhere" in line  # the database it looked for


def test_a_challenge_names_active_versions_within_the_limit(data: Path) -> None:
    for family in "abcde":
        _ok("bots", "version", "add", family, "1", "--data", str(data))
    out = _ok("challenge", "a", "b@1", "--deals", "2", "--unrated", "--data", str(data))
    assert "challenge #1 queued (unrated, 2 deals a match): a@1, b@1" in out
    line = _error("challenge", "a", "c", "--data", str(data))
    assert "a@1 was challenged 1 time in the last hour" in line
    assert "no version 'zz'" in _error("challenge", "zz", "--data", str(data))
    assert "named twice" in _error("challenge", "c", "c@1", "--data", str(data))
    line = _error("challenge", "a", "b", "c", "d", "e", "--data", str(data))
    assert line == "error: ladder 'ladder' seats 4; 5 bots named"
    status = json.loads(_ok("ladder", "status", "--data", str(data), "--json"))
    assert status["queue"] == [{"challenge": 1, "bots": ["a@1", "b@1"], "state": "queued"}]


def test_status_shows_presence_and_escapes_what_a_bot_caused(data: Path) -> None:
    _ok("bots", "version", "add", "a", "1", "--data", str(data))
    _ok("bots", "version", "add", "b", "1", "--data", str(data))
    with LadderStore.open(data / "ladder.db") as store:
        store.presence.see_versions("ladder", {"a@1": (Presence.IDLE, 1)})
        store.presence.version_error("ladder", "a@1", "block 2: \x1b[2Jcleared [bold]x[/bold]")
    out = _ok("ladder", "status", "--data", str(data))
    assert "\x1b" not in out
    assert "[bold]x[/bold]" in out  # shown as text, not as markup
    rows = {line.split()[0]: line.split() for line in out.splitlines() if "@1" in line[:6]}
    assert rows["a@1"][1:3] == ["active", "idle"]
    assert rows["b@1"][1:3] == ["active", "unseen"]
    assert "last errors:" in out
    retired = _ok("bots", "version", "retire", "b@1", "--data", str(data))
    assert "retired b@1" in retired
    assert "no version 'b@9'" in _error("bots", "version", "retire", "b@9", "--data", str(data))
