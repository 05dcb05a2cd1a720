"""`brandeln ratings --versus A --versus B`: the head to head of two bots (or groups of copies)
on a stored season, in the table output and in JSON, and its one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.ladder.ratings.order import record_and_rate
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.store.database import LadderStore
from tests.ladder.season_helpers import finished_block, season_config

runner = CliRunner(env={"COLUMNS": "80"})
BOTS = ("a", "b", "c", "d")
CONFIG = season_config(BOTS, blocks=3)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Three blocks in which a gains 6 chips a rotation, b 2, c -2 and d -6 (8 deals each)."""
    model = RatingModel(CONFIG.rating)
    with LadderStore.open(tmp_path / "ladder.db") as store:
        store.seasons.ensure_season(CONFIG, model.initial())
        for index in range(3):
            chips_by_seat = (index, -index, 2 * index, -2 * index)  # seat luck, cancelling
            block = finished_block(index, BOTS, chips_by_seat)
            record_and_rate(store, CONFIG.name, *block, model.rate_block)
    return tmp_path


def _ratings(data: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["ratings", "--data", str(data), *args])
    return result.exit_code, result.stdout, result.stderr


def test_the_head_to_head_follows_the_tables(data: Path) -> None:
    code, out, _ = _ratings(data, "--versus", "a", "--versus", "d")
    assert code == 0
    # a: 24 chips over 32 deals a block, d: -24: +1.50 every block, so no spread.
    assert " ".join(out.split()).endswith(
        "a against d: +1.50 ± 0.00 chips per deal (95% CI over 3 blocks)"
    )


def test_groups_of_copies_and_json(data: Path) -> None:
    code, out, _ = _ratings(data, "--versus", "a,b", "--versus", "c, d", "--json")
    assert code == 0
    versus = json.loads(out)["versus"]
    assert versus["a"] == ["a", "b"]
    assert versus["b"] == ["c", "d"]
    assert versus["blocks"] == 3
    assert versus["chips_per_deal"] == pytest.approx(1.0)  # (24 + 8) / 64 against -(24 + 8) / 64
    assert versus["chips_per_deal_ci95"] == pytest.approx([1.0, 1.0])


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--versus", "a"], 2, "--versus is given twice, once per side (got 1)"),
        (["--versus", "a", "--versus", "[red]x"], 1, "no results for [red]x in the season"),
        (["--versus", "a,b", "--versus", "b"], 1, "a bot on both sides: b"),
    ],
)
def test_a_bad_side_is_one_line_on_stderr(
    data: Path, args: list[str], code: int, message: str
) -> None:
    exit_code, out, err = _ratings(data, *args)
    assert exit_code == code
    assert out == ""
    assert len(err.splitlines()) == 1
    assert message in err
