"""`season run --rerun-top K` through Typer's runner: a rerun that cannot be played is refused in
one line before anything is opened, and why a rerun stopped is said on the terminal and in
``--json``, for both reasons. `season run` calls asyncio.run, so the fake referee serves from a
thread of its own (tests.ladder.test_season_cli.ThreadedFake)."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from brandeln.cli.main import app
from brandeln.ladder.store.database import LadderStore
from tests.ladder import test_season_cli
from tests.ladder.fake_referee import ADMIN_TOKEN, FakeReferee
from tests.ladder.season_helpers import season_text

SIX = ("a", "b", "c", "d", "e", "f")
SEASON = "test-season"
SEATS = "(a rerun block seats top bots only)"


# The fake referee on a thread of its own, the fixture of test_season_cli (found by its name).
threaded_fake = test_season_cli.threaded_fake


def season_run(data: Path, file: Path, *options: str) -> Result:
    return CliRunner().invoke(app, ["season", "run", str(file), "--data", str(data), *options])


def refused(tmp_path: Path, text: str, *options: str) -> Result:
    """``season run`` of a season file of ``text`` with ``options``: refused with a usage
    code, and nothing opened or created for it."""
    file = tmp_path / "season.toml"
    file.write_text(text)
    data = tmp_path / "data"
    result = season_run(data, file, *options)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert not data.exists()
    return result


def words(text: str) -> str:
    """``text`` as read, whatever the width the terminal output was wrapped at."""
    return " ".join(text.split())


# -- refused before anything starts -----------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--rerun-top", "1"],
            f"--rerun-top must be at least the 4 seats of a table {SEATS}, got 1",
        ),
        (
            ["--rerun-top", "3"],
            f"--rerun-top must be at least the 4 seats of a table {SEATS}, got 3",
        ),
        (["--rerun-top", "9"], "--rerun-top must be at most the season's 6 bots, got 9"),
        (["--rerun-max-blocks", "4"], "--rerun-max-blocks caps a rerun: give --rerun-top K too"),
    ],
)
def test_a_rerun_the_options_cannot_play_is_refused_in_one_line(
    tmp_path: Path, options: list[str], message: str
) -> None:
    result = refused(tmp_path, season_text(SIX), *options)
    assert result.output.strip() == f"error: {message}"


@pytest.mark.parametrize(
    ("options", "option"),
    [(["--rerun-max-blocks", "0"], "--rerun-max-blocks"), (["--rerun-top", "four"], "--rerun-top")],
)
def test_a_value_that_is_no_count_is_a_usage_error(
    tmp_path: Path, options: list[str], option: str
) -> None:
    # Click's own check, as for every counted option of the CLI: its usage, then one line.
    result = refused(tmp_path, season_text(SIX), "--rerun-top", "4", *options)
    assert result.output.strip().splitlines()[-1].startswith(f"Error: Invalid value for '{option}'")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("[rerun]\ntop = 3", f"rerun.top: must be at least the 4 seats of a table {SEATS}, got 3"),
        ("[rerun]\ntop = 7", "rerun.top: must be at most the season's 6 bots, got 7"),
        ('[rerun]\ntop = "four"', "rerun.top: expected an integer, got a string ('four')"),
        ("[rerun]\ntop = true", "rerun.top: expected an integer, got a boolean (True)"),
        ("[rerun]\nmax_blocks = 3", "rerun.top: missing (required)"),
        (
            "[rerun]\ntop = 4\nmax_blocks = 0",
            "rerun.max_blocks: must be between 1 and 1000000, got 0",
        ),
        ("[rerun]\ntop = 4\ncap = 3", "rerun.cap: unknown key; known keys: top, max_blocks"),
        ("rerun = 4", "rerun: expected a table, got an integer (4)"),
    ],
)
def test_a_bad_rerun_table_in_the_season_file_is_refused_in_one_line(
    tmp_path: Path, table: str, message: str
) -> None:
    file = tmp_path / "season.toml"
    # With the options as well: the file is read, and refused, before they are looked at.
    for options in ([], ["--rerun-top", "4"]):
        result = refused(tmp_path, season_text(SIX, extra=f"{table}\n"), *options)
        assert result.output.strip() == f"error: {file}: {message}"


# -- why it stopped, on the terminal and in --json --------------------------------------------


def said_twice(
    fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *options: str
) -> tuple[dict[str, Any], str]:
    """Play the season of ``tmp_path/season.toml`` and its rerun with ``--json``, then run it
    again on the terminal (nothing left to play): the first run's ``run.rerun`` and the second
    run's output, its words joined by single spaces."""
    monkeypatch.setenv("BRANDELN_ADMIN_TOKEN", ADMIN_TOKEN)
    file, data = tmp_path / "season.toml", tmp_path / "data"
    command = ["--referee", fake.address, *options]

    played = season_run(data, file, "--json", *command)
    assert played.exit_code == 0, played.output
    rerun: dict[str, Any] = json.loads(played.stdout)["run"]["rerun"]
    # Why it stopped, also beside the JSON, where the progress bar was.
    assert rerun["message"] in words(played.stderr)

    requests = len(fake.requests)
    again = season_run(data, file, *command)
    assert again.exit_code == 0, again.output
    assert len(fake.requests) == requests
    said = words(again.output)
    # The verdict is the stored blocks' fit (a fixed bootstrap seed): the same words again.
    assert rerun["message"] in said
    assert f"rerun: 0 blocks played now ({rerun['blocks_done']} in all, cap {rerun['cap']})" in said
    assert "nothing to play: every block was already recorded and the rerun had stopped" in said
    return rerun, said


def test_a_separated_top_stops_the_rerun_and_says_after_how_many_blocks(
    threaded_fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threaded_fake.skill = {"a": 9, "b": 6, "c": 3, "d": 0, "e": -3, "f": -6}
    (tmp_path / "season.toml").write_text(season_text(SIX, concurrency=4))
    rerun, said = said_twice(
        threaded_fake, tmp_path, monkeypatch, "--rerun-top", "4", "--rerun-max-blocks", "12"
    )
    assert rerun["stopped"] == "separated"
    assert (rerun["top"], rerun["after"], rerun["cap"]) == (["a", "b", "c", "d"], 3, 12)
    done = rerun["blocks_done"]
    assert 0 < rerun["blocks_played"] == done < 12
    assert rerun["overlapping"] == []
    intervals = rerun["intervals"]
    assert [interval["bot"] for interval in intervals] == ["a", "b", "c", "d"]
    for one, other in combinations(intervals, 2):  # strongest first, and every pair apart
        assert one["low"] > other["high"]
    blocks = "1 rerun block" if done == 1 else f"{done} rerun blocks"
    assert rerun["message"].startswith(
        f"rerun stopped: the top 4 are separated after {blocks} (a +"
    )
    assert "4 deals, then a rerun among the top 4, on the referee" in said

    # Another K than the rerun began with: refused in one line, nothing played.
    file, data = tmp_path / "season.toml", tmp_path / "data"
    other = season_run(data, file, "--referee", threaded_fake.address, "--rerun-top", "5")
    assert other.exit_code == 1, other.output
    assert other.output.strip().splitlines()[-1] == (
        f"error: season '{SEASON}' has a rerun among its top 4 (a, b, c, d): ask for the top 4 "
        "to go on with it"
    )
    with LadderStore.open(data / "ladder.db", create=False) as store:
        assert store.blocks.finished_blocks(SEASON) == set(range(3 + done))


def test_a_top_that_stays_close_stops_at_the_cap_and_says_which_still_overlap(
    threaded_fake: FakeReferee, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threaded_fake.skill = {"a": 6, "b": 6, "c": -2, "d": -10}
    # The file asks for the rerun; the option lowers its cap.
    extra = "[rerun]\ntop = 4\nmax_blocks = 9\n"
    (tmp_path / "season.toml").write_text(season_text(blocks=2, concurrency=4, extra=extra))
    rerun, said = said_twice(threaded_fake, tmp_path, monkeypatch, "--rerun-max-blocks", "2")
    assert rerun["stopped"] == "cap"
    assert (rerun["after"], rerun["cap"], rerun["blocks_played"], rerun["blocks_done"]) == (
        2,
        2,
        2,
        2,
    )
    assert {frozenset(pair) for pair in rerun["overlapping"]} == {frozenset("ab")}
    one, other = rerun["overlapping"][0]
    assert rerun["message"].startswith(
        f"rerun stopped at its cap of 2 blocks: {one} and {other} still overlap ("
    )
    assert "then a rerun among the top 4" in said
    with LadderStore.open(tmp_path / "data" / "ladder.db", create=False) as store:
        assert store.blocks.finished_blocks(SEASON) == set(range(4))
