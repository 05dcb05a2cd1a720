"""Batch ratings: Plackett-Luce on the blocks' rankings, fitted at once, bootstrapped by block.

The statistical tests simulate seasons from the model itself, seeded: a block seats four bots at
random and ranks them by log-strength plus Gumbel noise, which draws a Plackett-Luce ranking
exactly (the Gumbel-max trick).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import approx_fprime, check_grad  # type: ignore[import-untyped, unused-ignore]

import brandeln.ladder.ratings.batch_model
from brandeln.ladder.ratings.batch import BatchRatings, blocks_from_results, fit_batch_ratings
from brandeln.ladder.ratings.batch_model import log_likelihood, season_terms
from brandeln.ladder.season.duplicate import BotBlockResult

Block = dict[str, int]


def simulate(
    rng: np.random.Generator,
    truth: Sequence[float] | npt.NDArray[np.float64],
    blocks: int,
    seats: int = 4,
) -> list[Block]:
    """``blocks`` blocks of ``seats`` bots drawn from Plackett-Luce; bot i is "b{i}"."""
    season = []
    for _ in range(blocks):
        seated = rng.choice(len(truth), seats, replace=False)
        noisy = np.asarray(truth)[seated] + rng.gumbel(size=seats)
        season.append({f"b{bot}": place for place, bot in enumerate(seated[np.argsort(-noisy)], 1)})
    return season


def strengths(ratings: BatchRatings) -> dict[str, float]:
    return {rating.bot: rating.strength for rating in ratings.bots}


def assert_well_formed(ratings: BatchRatings) -> None:
    """What every result holds: finite figures, centred strengths, ranks by strength, rank
    probabilities that sum to 1 (or none without bootstrap)."""
    for rating in ratings.bots:
        figures = [rating.strength, *rating.rank_probabilities]
        if ratings.resamples:
            assert rating.low is not None
            assert rating.high is not None
            assert rating.low <= rating.high
            figures += [rating.low, rating.high]
            assert len(rating.rank_probabilities) == len(ratings.bots)
            assert math.fsum(rating.rank_probabilities) == pytest.approx(1.0)
        else:
            assert (rating.low, rating.high, rating.rank_probabilities) == (None, None, ())
        assert all(math.isfinite(figure) for figure in figures)
        # Strengths equal to 6 decimals share a rank, as the module rounds them.
        assert rating.rank == 1 + sum(
            np.round(other.strength, 6) > np.round(rating.strength, 6) for other in ratings.bots
        )
    assert math.fsum(rating.strength for rating in ratings.bots) == pytest.approx(0.0, abs=1e-9)
    assert [rating.rank for rating in ratings.bots] == sorted(r.rank for r in ratings.bots)


# ---------------------------------------------------------------- recovery and calibration


def test_a_long_simulated_season_recovers_the_true_order_and_strengths() -> None:
    truth = [-1.5, -0.9, -0.3, 0.3, 0.9, 1.5]  # centred, 0.6 apart
    season = simulate(np.random.default_rng(2024), truth, blocks=300)
    fitted = strengths(fit_batch_ratings(season, resamples=0))
    # 200 blocks a bot: a strength's standard error is ~0.09, so 0.25 is nearly three.
    for bot, true in enumerate(truth):
        assert fitted[f"b{bot}"] == pytest.approx(true, abs=0.25)
    assert sorted(fitted, key=fitted.__getitem__) == [f"b{bot}" for bot in range(6)]


def test_more_blocks_bring_the_fit_closer_to_the_truth() -> None:
    truth = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    rng = np.random.default_rng(7)
    season = simulate(rng, truth, blocks=1000)

    def error(blocks: int) -> float:
        fitted = strengths(fit_batch_ratings(season[:blocks], resamples=0))
        return float(np.sqrt(np.mean([(fitted[f"b{i}"] - t) ** 2 for i, t in enumerate(truth)])))

    assert error(1000) < error(100) < error(10)
    assert error(1000) < 0.1


def test_the_95_percent_intervals_cover_the_true_strengths_about_95_percent_of_the_time() -> None:
    # 30 seasons of 100 blocks (four of ten bots at a table, true strengths drawn from N(0, 1)
    # and centred), 200 resamples each: 300 (season, bot) cases from 6,000 fits, 3 to 4 s of CPU.
    #
    # What to expect: over 600 seasons of this very design (6,000 cases, seeds apart from this
    # test's) the intervals covered 93.6%. Percentile intervals run a little short of 95%: their
    # ends lie near the 5th and 195th of 200 draws, and the bootstrap's skew for the strongest and
    # weakest bots leans them outward (in a smaller design, 1,500 cases: 94-95% for the bots
    # with |strength| < 1, 91-92% for the others).
    # The tolerance: a binomial share of 300 cases at p = 0.936 has a standard deviation of
    # 1.4%; a season's cases share its resampling noise, which made the variance of a season's
    # covered count 1.21 times the binomial one, hence 1.55%. The test accepts 93.6% ± 4.6%
    # (three standard deviations), [0.89, 0.98]: intervals a quarter too narrow (±1.5 standard
    # errors, ~85%) or half too wide (±3, ~99.7%) fall outside.
    rng = np.random.default_rng(95)
    covered = cases = 0
    for season_number in range(30):
        truth = rng.normal(0.0, 1.0, 10)
        truth -= truth.mean()
        ratings = fit_batch_ratings(
            simulate(rng, truth, blocks=100), resamples=200, seed=season_number
        )
        for rating in ratings.bots:
            assert rating.low is not None
            assert rating.high is not None
            covered += rating.low <= truth[int(rating.bot[1:])] <= rating.high
            cases += 1
    assert cases == 300
    assert 0.89 <= covered / cases <= 0.98, f"covered {covered} of {cases}"


# ---------------------------------------------------------------- order and ties

bot_names = st.sampled_from("abcdef")
rankings = st.dictionaries(bot_names, st.integers(min_value=1, max_value=4), max_size=5)
seasons = st.lists(rankings, max_size=12)


@settings(max_examples=60, deadline=None)
@given(season=seasons, order_seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_shuffling_the_blocks_and_their_bots_gives_exactly_the_same_ratings(
    season: list[Block], order_seed: int
) -> None:
    shuffler = random.Random(order_seed)
    shuffled = [dict(shuffler.sample(list(block.items()), len(block))) for block in season]
    shuffler.shuffle(shuffled)
    original = fit_batch_ratings(season, resamples=20, seed=3)
    assert fit_batch_ratings(shuffled, resamples=20, seed=3) == original
    assert_well_formed(original)


@settings(max_examples=40, deadline=None)
@given(season=st.lists(rankings, min_size=1, max_size=10))
def test_swapping_two_bots_everywhere_swaps_their_ratings(season: list[Block]) -> None:
    swap = {"a": "b", "b": "a"}
    swapped = [{swap.get(bot, bot): rank for bot, rank in block.items()} for block in season]
    before, after = (
        strengths(fit_batch_ratings(season, resamples=0)),
        strengths(fit_batch_ratings(swapped, resamples=0)),
    )
    assert after.keys() == {swap.get(bot, bot) for bot in before}
    for bot, strength in before.items():
        assert after[swap.get(bot, bot)] == pytest.approx(strength, abs=1e-6)


def test_two_bots_always_tied_get_one_strength_and_their_listed_order_does_not_matter() -> None:
    season = [{"a": 1, "b": 1, "c": 3, "d": 4}, {"c": 1, "b": 2, "a": 2, "d": 4}] * 5
    listed_otherwise = [{"b": 1, "a": 1, "c": 3, "d": 4}, {"c": 1, "a": 2, "b": 2, "d": 4}] * 5
    ratings = fit_batch_ratings(season, resamples=50)
    assert fit_batch_ratings(listed_otherwise, resamples=50) == ratings
    fitted = strengths(ratings)
    assert fitted["a"] == pytest.approx(fitted["b"], abs=1e-6)
    tied = [rating for rating in ratings.bots if rating.bot in "ab"]
    assert tied[0].rank == tied[1].rank  # equal strengths share a rank
    assert tied[0].rank_probabilities == pytest.approx(tied[1].rank_probabilities, abs=1e-9)
    assert fitted["c"] > fitted["a"] > fitted["d"]


def test_a_tie_sits_between_a_win_and_a_loss() -> None:
    others = [{"a": 1, "c": 2}, {"c": 1, "a": 2}, {"b": 1, "c": 2}, {"c": 1, "b": 2}]

    def gap(head_to_head: Block) -> float:
        fitted = strengths(fit_batch_ratings([*others, head_to_head] * 3, resamples=0))
        return fitted["a"] - fitted["b"]

    assert gap({"a": 1, "b": 2}) > 0.1
    assert gap({"a": 1, "b": 1}) == pytest.approx(0.0, abs=1e-6)
    assert gap({"b": 1, "a": 2}) == pytest.approx(-gap({"a": 1, "b": 2}), abs=1e-6)


def test_ties_follow_breslow_each_tied_bot_chosen_from_the_same_risk_set() -> None:
    theta = {"a": 0.4, "b": -0.1, "c": 0.7, "d": -1.0}

    def log_share(bot: str, risk: str) -> float:
        return theta[bot] - math.log(sum(math.exp(theta[other]) for other in risk))

    tie_for_second = {"a": 1, "b": 2, "c": 2, "d": 4}
    expected = log_share("a", "abcd") + log_share("b", "bcd") + log_share("c", "bcd")
    assert log_likelihood([tie_for_second], theta) == pytest.approx(expected)
    tie_for_last = {"a": 1, "b": 2, "c": 2}  # the tie counts even at the bottom
    expected = log_share("a", "abc") + log_share("b", "bc") + log_share("c", "bc")
    assert log_likelihood([tie_for_last], theta) == pytest.approx(expected)
    strict = {"d": 1, "c": 2, "b": 3, "a": 4}  # the last place is no choice: no term
    expected = log_share("d", "abcd") + log_share("c", "abc") + log_share("b", "ab")
    assert log_likelihood([strict], theta) == pytest.approx(expected)
    assert log_likelihood([{"a": 1}, {}], theta) == 0.0


# ---------------------------------------------------------------- the fit itself


@settings(max_examples=30, deadline=None)
@given(season=st.lists(rankings, min_size=1, max_size=10), prior_sd=st.sampled_from([0.5, 2.0]))
def test_the_fit_is_the_posterior_mode_of_the_model_as_written(
    season: list[Block], prior_sd: float
) -> None:
    # The plain-Python likelihood plus the prior is flat at the fit (checked numerically),
    # and no nearby point is higher: the vectorised terms fit the Breslow model as written.
    ratings = fit_batch_ratings(season, resamples=0, prior_sd=prior_sd)
    bots = [rating.bot for rating in ratings.bots]
    fitted = np.array([rating.strength for rating in ratings.bots])

    def posterior(theta: np.ndarray) -> float:
        prior = -0.5 * float(theta @ theta) / prior_sd**2
        return log_likelihood(season, dict(zip(bots, map(float, theta), strict=True))) + prior

    if bots:
        assert np.abs(approx_fprime(fitted, posterior, 1e-7)).max() < 1e-4
        probe = np.random.default_rng(0).normal(0.0, 0.05, (5, len(bots)))
        assert all(posterior(fitted + step) <= posterior(fitted) + 1e-12 for step in probe)


def test_the_gradient_is_the_objectives_in_both_ways_of_computing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    season = simulate(np.random.default_rng(3), [0.5, -0.2, 0.1, -0.4, 0.0], blocks=30)
    season.append({"b0": 1, "b1": 1, "b2": 3})
    terms = season_terms(season)
    counts = np.random.default_rng(4).integers(0, 3, terms.blocks)
    weights = terms.weights(counts)
    picked = np.bincount(terms.chosen, weights=weights, minlength=len(terms.bots)).astype(
        np.float64
    )
    objective = brandeln.ladder.ratings.batch_model._negative_log_posterior
    rng = np.random.default_rng(5)
    for theta in [rng.normal(0.0, 1.0, 5) for _ in range(3)] + [np.array([0, 900, 0, -5, 3.0])]:
        shared = objective(theta, terms, weights, picked, 0.25)
        assert check_grad(
            lambda t: objective(t, terms, weights, picked, 0.25)[0],
            lambda t: objective(t, terms, weights, picked, 0.25)[1],
            theta,
        ) < 1e-4 * max(1.0, float(np.abs(shared[1]).max()))
        monkeypatch.setattr(
            brandeln.ladder.ratings.batch_model, "_SPREAD", 0.0
        )  # each risk set shifted alone
        one_by_one = objective(theta, terms, weights, picked, 0.25)
        monkeypatch.undo()
        assert one_by_one[0] == pytest.approx(shared[0], rel=1e-12)
        assert one_by_one[1] == pytest.approx(shared[1], rel=1e-9, abs=1e-9)


def test_the_same_seed_gives_the_same_intervals_and_another_seed_others() -> None:
    season = simulate(np.random.default_rng(8), [0.6, 0.2, -0.2, -0.6, 0.0], blocks=20)
    first = fit_batch_ratings(season, resamples=100, seed=1)
    assert fit_batch_ratings(season, resamples=100, seed=1) == first
    other = fit_batch_ratings(season, resamples=100, seed=2)
    assert strengths(other) == strengths(first)  # the fit does not use the seed
    assert [(r.low, r.high) for r in other.bots] != [(r.low, r.high) for r in first.bots]
    assert (first.resamples, first.blocks, first.seed) == (100, 20, 1)
    assert_well_formed(first)


def test_a_clear_favourite_is_first_in_nearly_every_resample() -> None:
    truth = [2.0, 0.0, 0.0, 0.0, 0.0, -2.0]
    ratings = fit_batch_ratings(simulate(np.random.default_rng(9), truth, 80), resamples=300)
    first, *_, last = ratings.bots
    assert (first.bot, last.bot) == ("b0", "b5")
    assert first.p_first is not None
    assert first.p_first > 0.95
    assert last.rank_probabilities[-1] > 0.9
    assert all(rating.p_first is not None and rating.p_first < 0.05 for rating in ratings.bots[1:])
    assert_well_formed(ratings)


# ---------------------------------------------------------------- edge cases


def test_a_season_without_blocks_has_no_ratings() -> None:
    ratings = fit_batch_ratings([], resamples=100, seed=4)
    assert ratings == BatchRatings(bots=(), resamples=0, blocks=0, seed=4)
    named = fit_batch_ratings([], bots=["x", "y"])
    assert (named.bots, named.unrated) == ((), ("x", "y"))


def test_a_bot_that_never_played_is_unrated_not_rated() -> None:
    season = [{"a": 1, "b": 2}, {"b": 1, "a": 2}, {"a": 1, "b": 2}]
    ratings = fit_batch_ratings(season, bots=["a", "b", "idle"], resamples=50)
    assert [rating.bot for rating in ratings.bots] == ["a", "b"]
    assert ratings.unrated == ("idle",)
    assert ratings.rating("idle") is None
    assert len(ratings.bots[0].rank_probabilities) == 2  # ranks among the rated bots
    assert ratings == fit_batch_ratings(season, resamples=50, bots=["idle"])


def test_blocks_of_one_bot_compare_nothing_and_change_nothing() -> None:
    season = [{"a": 1, "b": 2, "c": 3}, {"b": 1, "c": 2, "a": 3}, {"a": 1, "c": 2, "b": 3}]
    padded = [{"solo": 1}, *season, {"a": 1}, {}]
    plain = fit_batch_ratings(season, resamples=200)
    with_singles = fit_batch_ratings(padded, resamples=200)
    assert with_singles.bots == plain.bots
    assert (with_singles.blocks, with_singles.unrated) == (3, ("solo",))
    assert fit_batch_ratings([{"solo": 1}]).bots == ()


def test_one_block_gives_strengths_but_no_bootstrap() -> None:
    ratings = fit_batch_ratings([{"a": 2, "b": 1, "c": 3}], resamples=500)
    assert [(rating.rank, rating.bot) for rating in ratings.bots] == [(1, "b"), (2, "a"), (3, "c")]
    assert (ratings.resamples, ratings.blocks) == (0, 1)
    assert all(rating.p_first is None for rating in ratings.bots)
    assert_well_formed(ratings)
    assert_well_formed(fit_batch_ratings([{"a": 2, "b": 1}, {"a": 1, "b": 2}], resamples=0))


def test_a_bot_that_always_wins_or_always_loses_stays_finite() -> None:
    season = [{"top": 1, "x": 2, "y": 3, "bottom": 4}, {"top": 1, "y": 2, "x": 3, "bottom": 4}]
    for prior_sd in (2.0, 1e6):  # even a prior that hardly holds anything back
        ratings = fit_batch_ratings(season * 20, resamples=30, prior_sd=prior_sd)
        assert [ratings.bots[0].bot, ratings.bots[-1].bot] == ["top", "bottom"]
        assert ratings.bots[0].p_first == 1.0
        assert_well_formed(ratings)
        if prior_sd == 2.0:  # the prior, not the data, sets how far above: ~4.2 here
            assert 3.0 < ratings.bots[0].strength < 6.0
    everyone_tied = fit_batch_ratings([{"a": 1, "b": 1, "c": 1}] * 3, resamples=10)
    assert all(rating.strength == pytest.approx(0.0, abs=1e-9) for rating in everyone_tied.bots)
    assert {rating.rank for rating in everyone_tied.bots} == {1}


def test_bots_that_never_met_are_centred_group_by_group() -> None:
    season = [{"a": 1, "b": 2}, {"a": 1, "b": 2}, {"c": 2, "d": 1}, {"d": 1, "c": 2}]
    ratings = fit_batch_ratings(season, resamples=20)
    assert not ratings.connected
    fitted = strengths(ratings)
    assert fitted["a"] + fitted["b"] == pytest.approx(0.0, abs=1e-6)
    assert fitted["a"] == pytest.approx(fitted["d"], abs=1e-6)
    assert fit_batch_ratings([*season, {"b": 1, "c": 2}], resamples=0).connected


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"resamples": -1}, "resamples"),
        ({"prior_sd": 0.0}, "prior_sd"),
        ({"prior_sd": math.nan}, "prior_sd"),
    ],
)
def test_nonsense_options_are_refused(options: Mapping[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fit_batch_ratings([{"a": 1, "b": 2}], **options)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(season=seasons, bots=st.lists(bot_names | st.just("idle"), max_size=3))
def test_any_season_gives_well_formed_ratings(season: list[Block], bots: list[str]) -> None:
    ratings = fit_batch_ratings(season, resamples=15, seed=1, bots=bots)
    assert_well_formed(ratings)
    played = {bot for block in season if len(block) >= 2 for bot in block}
    assert {rating.bot for rating in ratings.bots} == played
    assert set(ratings.unrated) == (set(bots) | {bot for b in season for bot in b}) - played
    assert ratings.blocks == sum(len(block) >= 2 for block in season)


# ---------------------------------------------------------------- from the store's results


def played(bot: str, rank: int) -> BotBlockResult:
    return BotBlockResult(bot, rank, 0, 8, False, 0, 0, 0, 0, 0)


def test_blocks_from_results_groups_the_store_pairs_by_block() -> None:
    results = [(2, played("a", 2)), (0, played("a", 1)), (0, played("b", 2)), (2, played("b", 1))]
    assert blocks_from_results(results) == [{"a": 1, "b": 2}, {"a": 2, "b": 1}]
    assert blocks_from_results([]) == []
    with pytest.raises(ValueError, match="two results of bot 'a'"):
        blocks_from_results([(0, played("a", 1)), (0, played("a", 2))])
