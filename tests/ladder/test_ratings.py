"""TrueSkill golden values: computed once with trueskill 0.4.5 through RatingModel, committed."""

from __future__ import annotations

import pytest
import trueskill

from brandeln.ladder.ratings.trueskill_model import Rating, RatingModel
from brandeln.ladder.season.config import RatingParams

DEFAULT = RatingModel(RatingParams())
START = {name: DEFAULT.initial() for name in "abcd"}

GOLDEN: list[tuple[dict[str, int], dict[str, tuple[float, float]]]] = [
    (
        {"a": 1, "b": 2, "c": 3, "d": 4},
        {
            "a": (33.20668096563102, 6.348109169807742),
            "b": (27.40145469384325, 5.7871629348447815),
            "c": (22.598545306188456, 5.78716293484137),
            "d": (16.7933190343615, 6.348109169814532),
        },
    ),
    (
        {"a": 1, "b": 2, "c": 2, "d": 4},
        {
            "a": (31.563972498314694, 6.404703459289884),
            "b": (24.99309357445012, 5.559361854854173),
            "c": (25.006906425490623, 5.559361854854239),
            "d": (18.436027501744583, 6.404703459346161),
        },
    ),
    (
        {"a": 1, "b": 1, "c": 1, "d": 1},
        {
            "a": (25.000000000000004, 5.280335258988771),
            "b": (25.0, 5.2748071639047245),
            "c": (25.000000000000007, 5.27480716390472),
            "d": (25.000000000000004, 5.280335258988775),
        },
    ),
    (  # a three-player block
        {"a": 1, "b": 2, "c": 3},
        {
            "a": (31.675352419171958, 6.655985377620712),
            "b": (25.00000000000392, 6.207896641224336),
            "c": (18.32464758082412, 6.65598537762185),
        },
    ),
]


def assert_ratings(actual: dict[str, Rating], expected: dict[str, tuple[float, float]]) -> None:
    assert sorted(actual) == sorted(expected)
    for name, (mu, sigma) in expected.items():
        assert actual[name].mu == pytest.approx(mu, abs=1e-9), name
        assert actual[name].sigma == pytest.approx(sigma, abs=1e-9), name


@pytest.mark.parametrize(("ranking", "expected"), GOLDEN)
def test_golden_values_for_fixed_rankings(
    ranking: dict[str, int], expected: dict[str, tuple[float, float]]
) -> None:
    assert_ratings(DEFAULT.rate_block(START, ranking), expected)


def test_golden_values_of_a_second_block_start_from_the_first() -> None:
    first = DEFAULT.rate_block(START, {"a": 1, "b": 2, "c": 3, "d": 4})
    second = DEFAULT.rate_block(first, {"a": 4, "b": 3, "c": 2, "d": 1})
    assert_ratings(
        second,
        {
            "a": (23.268260365824062, 4.725067158746204),
            "b": (24.677565267903038, 4.297020895366501),
            "c": (25.322434732034807, 4.297020895355867),
            "d": (26.731739634216925, 4.72506715877634),
        },
    )


def test_the_season_parameters_are_used_not_the_global_setup() -> None:
    model = RatingModel(RatingParams(mu=1500, sigma=500, beta=250, tau=5, draw_probability=0.0))
    start = {name: model.initial() for name in "abc"}
    assert_ratings(
        model.rate_block(start, {"a": 2, "b": 1, "c": 3}),
        {
            "a": (1500.0000612474898, 374.32398893979126),
            "b": (1878.7041251837095, 401.9470645056838),
            "c": (1121.2958135688007, 401.947025528441),
        },
    )
    # The trueskill module's global environment is untouched.
    assert trueskill.global_env().mu == 25.0


def test_missing_ratings_start_at_the_initial_rating() -> None:
    assert DEFAULT.rate_block({}, {"a": 1, "b": 2, "c": 3, "d": 4}) == DEFAULT.rate_block(
        START, {"a": 1, "b": 2, "c": 3, "d": 4}
    )


def test_bots_outside_the_block_are_not_returned() -> None:
    rated = DEFAULT.rate_block(START, {"a": 1, "b": 2, "c": 3})
    assert "d" not in rated


def test_conservative_rating_is_mu_minus_three_sigma() -> None:
    assert Rating(30.0, 2.0).conservative == 24.0
    assert DEFAULT.initial().conservative == pytest.approx(0.0)


def test_a_block_of_one_bot_cannot_be_rated() -> None:
    with pytest.raises(ValueError, match="at least 2 bots"):
        DEFAULT.rate_block(START, {"a": 1})
