"""`brandeln ratings`: the batch ratings beside TrueSkill, in the table (80 columns) and in JSON,
reproducible, and blind to the order of the blocks (TrueSkill is not)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.ladder.ratings.batch import fit_batch_ratings
from brandeln.ladder.ratings.order import record_and_rate
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.store.database import LadderStore
from tests.ladder.season_helpers import finished_block, season_config

runner = CliRunner(env={"COLUMNS": "80"})
BOTS = ("alpha", "bravo", "charlie", "a-rather-long-bot-name")
CONFIG = season_config(BOTS, blocks=8)
# Each block's finishing order, best first: alpha wins most, the long name loses most.
ORDERS = (
    ("alpha", "bravo", "charlie", "a-rather-long-bot-name"),
    ("bravo", "alpha", "charlie", "a-rather-long-bot-name"),
    ("alpha", "charlie", "bravo", "a-rather-long-bot-name"),
    ("charlie", "alpha", "a-rather-long-bot-name", "bravo"),
    ("alpha", "bravo", "a-rather-long-bot-name", "charlie"),
    ("bravo", "charlie", "alpha", "a-rather-long-bot-name"),
    ("alpha", "a-rather-long-bot-name", "bravo", "charlie"),
    ("a-rather-long-bot-name", "alpha", "charlie", "bravo"),
)


def record_season(data: Path, orders: Sequence[tuple[str, ...]], recorded: Sequence[int]) -> Path:
    """A season whose block ``i`` finishes in ``orders[i]``, recorded in the order
    ``recorded`` (TrueSkill rates in block order whatever the recording order)."""
    model = RatingModel(CONFIG.rating)
    with LadderStore.open(data / "ladder.db") as store:
        store.seasons.ensure_season(CONFIG, model.initial())
        for index in recorded:
            block = finished_block(index, orders[index], (0, 0, 0, 0))
            record_and_rate(store, CONFIG.name, *block, model.rate_block)
    return data


def ratings(data: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["ratings", "--data", str(data), *args])
    return result.exit_code, result.stdout, result.stderr


def document(data: Path, *args: str) -> dict[str, Any]:
    code, out, err = ratings(data, "--json", *args)
    assert code == 0, err
    parsed: dict[str, Any] = json.loads(out)
    return parsed


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return record_season(tmp_path, ORDERS, range(len(ORDERS)))


def test_the_table_shows_the_batch_ratings_beside_trueskill_in_80_columns(data: Path) -> None:
    code, out, _ = ratings(data)
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "…" not in out
    assert "batch ratings (Plackett-Luce, all 8 rated blocks at once)" in out
    lines = out.splitlines()
    header = lines.index(
        next(line for line in lines if line.split()[:4] == ["#", "bot", "strength", "95%"])
    )
    batch = document(data)["batch"]
    trueskill = {row["bot"]: row["rank"] for row in document(data)["leaderboard"]}
    # One row per bot, best first: rank, name (the long one folds), strength, interval, P(#1),
    # ranks 95%, and its TrueSkill rank.
    shown = " ".join(" ".join(lines[header + 1 : header + 12]).split())
    for rating in batch["bots"]:
        low, high = rating["strength_ci95"]
        assert f"{rating['strength']:+.2f} [{low:+.2f}, {high:+.2f}]" in shown, (
            f"{rating['bot']}: {shown}"
        )
    first = batch["bots"][0]
    assert first["bot"] == "alpha"
    assert lines[header + 1].split()[:3] == ["1", "alpha", f"{first['strength']:+.2f}"]
    assert lines[header + 1].split()[-1] == str(trueskill["alpha"])
    assert "over 500 resamples of" in " ".join(out.split())


def test_the_json_holds_every_figure_and_the_rank_probabilities_sum_to_one(data: Path) -> None:
    batch = document(data)["batch"]
    assert batch["model"] == "plackett-luce"
    assert (batch["blocks"], batch["resamples"], batch["seed"]) == (8, 500, 0)
    assert batch["connected"] is True
    assert batch["unrated"] == []
    bots = batch["bots"]
    assert sorted(rating["bot"] for rating in bots) == sorted(BOTS)
    assert [rating["rank"] for rating in bots] == sorted(rating["rank"] for rating in bots)
    assert math.fsum(rating["strength"] for rating in bots) == pytest.approx(0, abs=1e-9)
    # P(rank 1) over the bots, and each bot's probabilities over the ranks, are distributions.
    assert math.fsum(rating["p_rank_1"] for rating in bots) == pytest.approx(1)
    for rating in bots:
        assert set(rating) == {
            "rank",
            "bot",
            "strength",
            "strength_ci95",
            "p_rank_1",
            "rank_probabilities",
            "rank_ci95",
            "blocks",
        }
        assert len(rating["rank_probabilities"]) == len(BOTS)
        assert math.fsum(rating["rank_probabilities"]) == pytest.approx(1)
        assert rating["p_rank_1"] == rating["rank_probabilities"][0]
        low, high = rating["strength_ci95"]
        assert low <= rating["strength"] <= high
        first, last = rating["rank_ci95"]
        assert 1 <= first <= last <= len(BOTS)
        assert rating["blocks"] == 8
    # The figures are the fit's own, on the blocks' rankings.
    fitted = fit_batch_ratings(
        [{bot: place for place, bot in enumerate(order, 1)} for order in ORDERS],
        resamples=500,
        seed=0,
    )
    assert [r.bot for r in fitted.bots] == [rating["bot"] for rating in bots]
    for fit, rating in zip(fitted.bots, bots, strict=True):
        assert fit.strength == pytest.approx(rating["strength"], abs=1e-12)


def test_the_blocks_in_another_order_give_the_same_batch_ratings(tmp_path: Path) -> None:
    # The same blocks, dealt to other block indexes and recorded last to first: TrueSkill
    # (which learns block after block) moves, the batch ratings do not.
    shuffled = ORDERS[3:] + ORDERS[:3]
    one = record_season(tmp_path / "one", ORDERS, range(len(ORDERS)))
    other = record_season(tmp_path / "other", shuffled, range(len(ORDERS))[::-1])
    first, second = document(one), document(other)
    assert first["batch"] == second["batch"]
    mu = [{row["bot"]: row["mu"] for row in doc["leaderboard"]} for doc in (first, second)]
    assert mu[0] != mu[1]
    # And the table prints them alike, run after run.
    assert (
        ratings(one)[1].split("batch ratings")[1].split("decisions")[0]
        == (ratings(other)[1].split("batch ratings")[1].split("decisions")[0])
    )


def test_no_batch_leaves_them_out(data: Path) -> None:
    code, out, _ = ratings(data, "--no-batch")
    assert code == 0
    assert "batch ratings" not in out
    assert "batch" not in document(data, "--no-batch")


def test_a_season_of_one_block_has_strengths_but_no_interval(tmp_path: Path) -> None:
    data = record_season(tmp_path, ORDERS, [0])
    code, out, _ = ratings(data)
    assert code == 0
    assert "one rated block: no interval without a second one to resample" in out
    batch = document(data)["batch"]
    assert batch["resamples"] == 0
    assert all(rating["strength_ci95"] is None for rating in batch["bots"])
    assert all(rating["p_rank_1"] is None for rating in batch["bots"])
    assert all(rating["rank_ci95"] is None for rating in batch["bots"])


def test_a_season_without_a_rated_block_rates_no_bot(tmp_path: Path) -> None:
    # Block 1 waits for block 0: nothing is rated, by TrueSkill or by the batch fit.
    data = record_season(tmp_path, ORDERS, [1])
    batch = document(data)["batch"]
    assert (batch["blocks"], batch["bots"]) == (0, [])
    assert batch["unrated"] == sorted(BOTS)
    code, out, _ = ratings(data)
    assert code == 0
    assert "not batch-rated (no block against another bot): " in " ".join(out.split())
