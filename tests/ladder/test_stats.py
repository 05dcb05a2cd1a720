"""Chips per deal with a 95% interval over blocks, and contracts made."""

from __future__ import annotations

import math
from typing import Any

import pytest

from brandeln.ladder.ratings.leaderboard import leaderboard
from brandeln.ladder.ratings.stats import chips_per_deal, made_percent, mean_ci95
from brandeln.ladder.ratings.trueskill_model import Rating
from brandeln.ladder.season.duplicate import BotBlockResult
from brandeln.ladder.store.database import RatingRow


def result(bot: str, chips: int, deals: int, **counts: int) -> BotBlockResult:
    names = ("timeouts", "illegal", "strikes", "contracts_bid", "contracts_made")
    fields: dict[str, Any] = dict.fromkeys(names, 0)
    fields.update(counts)
    return BotBlockResult(bot=bot, rank=1, chips=chips, deals=deals, forfeited=False, **fields)


def test_mean_ci95_is_mean_plus_minus_1_96_standard_errors() -> None:
    samples = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
    interval = mean_ci95(samples)
    sample_sd = math.sqrt(sum((x - 5.0) ** 2 for x in samples) / 7)
    assert interval.mean == 5.0
    half_width = 1.96 * sample_sd / math.sqrt(8)
    assert interval.half_width == pytest.approx(half_width)
    assert interval.low == pytest.approx(5.0 - half_width)
    assert interval.high == pytest.approx(5.0 + half_width)


def test_one_sample_has_no_interval_and_no_samples_is_an_error() -> None:
    single = mean_ci95([3.0])
    assert (single.mean, single.half_width, single.low, single.n) == (3.0, None, None, 1)
    with pytest.raises(ValueError, match="no samples"):
        mean_ci95([])


def test_chips_per_deal_takes_one_sample_per_block() -> None:
    interval = chips_per_deal([result("a", 32, 32), result("a", -32, 32), result("a", 64, 32)])
    assert interval is not None
    assert interval.n == 3
    assert interval.mean == pytest.approx((1 - 1 + 2) / 3)
    assert chips_per_deal([]) is None
    assert chips_per_deal([result("a", 0, 0)]) is None


def test_made_percent() -> None:
    assert made_percent(4, 3) == 75.0
    assert made_percent(0, 0) is None


def test_leaderboard_ranks_by_conservative_rating_and_sums_the_counts() -> None:
    ratings = [
        RatingRow("wide", Rating(30.0, 8.0), 2),  # conservative 6
        RatingRow("sure", Rating(27.0, 2.0), 2),  # conservative 21
        RatingRow("same", Rating(26.0, 1.0), 2),  # conservative 23
    ]
    results = [
        (0, result("sure", 16, 32, contracts_bid=4, contracts_made=3, timeouts=1)),
        (1, result("sure", -8, 32, contracts_bid=4, contracts_made=1, illegal=2)),
        (0, result("wide", 0, 32)),
    ]
    rows = leaderboard(ratings, results)
    assert [(row.rank, row.bot) for row in rows] == [(1, "same"), (2, "sure"), (3, "wide")]
    sure = rows[1]
    assert (sure.blocks, sure.deals, sure.chips) == (2, 64, 8)
    assert (sure.contracts_bid, sure.contracts_made, sure.made_percent) == (8, 4, 50.0)
    assert (sure.timeouts, sure.illegal) == (1, 2)
    assert sure.chips_per_deal is not None
    assert sure.chips_per_deal.mean == pytest.approx(0.125)
    assert rows[0].chips_per_deal is None  # no results
    as_json = sure.to_json()
    assert as_json["conservative"] == pytest.approx(21.0)
    assert as_json["chips_per_deal_ci95"] == [sure.chips_per_deal.low, sure.chips_per_deal.high]
    assert as_json["contracts_made_percent"] == 50.0
