"""A count of one reads in the singular in what the commands print: "1 block", "1 deal".

A season of one block and a match of one deal are real runs (random bot processes on an
embedded referee); the summaries, titles and verdicts printed of them are read back.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.engine.plurals import plural
from tests.ladder.test_season_e2e import random_bots_season

runner = CliRunner(env={"COLUMNS": "80"})


def ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_plural_puts_the_noun_in_the_singular_for_one_only() -> None:
    assert [plural(n, "block") for n in (0, 1, 2)] == ["0 blocks", "1 block", "2 blocks"]
    assert [plural(n, "match") for n in (1, 2)] == ["1 match", "2 matches"]
    assert plural(1, "person", "people") == "1 person"
    assert plural(3, "person", "people") == "3 people"


def test_a_season_of_one_block_is_told_in_the_singular(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    season = tmp_path / "one.toml"
    season.write_text(random_bots_season("one", blocks=1, deals=4))
    played = ok("season", "run", str(season), "--data", data)
    assert "season one: 4 bots, 1 block of 4 matches x 4 deals, on the embedded referee" in played
    assert "1 block played now (1 of 1 in all), 16 deals in" in played
    assert "season one (standard): 1 of 1 block" in played
    rated = ok("ratings", "--data", data)
    assert "batch ratings (Plackett-Luce, all 1 rated block at once)" in rated
    verified = ok("season", "verify", "one", "--data", data)
    assert "verified: season one: 1 block, 4 matches, 16 deals" in verified
    assert "the match rows and results of 1 block equal the logs'" in verified
    # ("1/1 blocks" is the progress bar's count of its total: not a count of one)
    assert not re.search(r"(?<![/\d])1 blocks", played + rated + verified)


@pytest.mark.parametrize("deals", [1])
def test_a_match_of_one_deal_replays_in_the_singular(tmp_path: Path, deals: int) -> None:
    data = str(tmp_path / "data")
    run = ok("match", "run", *["random"] * 4, "--deals", str(deals), "--seed", "2", "--data", data)
    match_id = re.findall(r"\bm_[0-9a-f]{16}\b", run)[0]
    assert "reproduced: 1 deal replayed;" in ok("matches", "verify", match_id, "--data", data)
