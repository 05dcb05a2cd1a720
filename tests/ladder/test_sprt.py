"""The SPRT of `brandeln ab` on synthetic streams with known answers (seeded, deterministic).

Error rates are checked by simulation: with the true mean at H0's bound the test must accept
H1 at most alpha of the time, with it at H1's bound accept H0 at most beta of the time (plus
three binomial standard errors of the simulation's own noise), and it must decide.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable

import pytest

from brandeln.ladder.ratings.sprt import MIN_OBSERVATIONS, Sprt, Verdict, elo_score

RUNS = 300
CAP = 20_000  # observations per run: far more than the test needs to decide


def run(make: Callable[[], Sprt], draw: Callable[[random.Random], float], seed: int) -> Verdict:
    rng = random.Random(seed)
    test = make()
    while test.n < CAP:
        test.add(draw(rng))
        if test.verdict is not Verdict.UNDECIDED:
            return test.verdict
    return Verdict.UNDECIDED


def verdicts(make: Callable[[], Sprt], draw: Callable[[random.Random], float]) -> Counter[Verdict]:
    return Counter(run(make, draw, seed) for seed in range(RUNS))


def tolerance(rate: float) -> float:
    return rate + 3 * math.sqrt(rate * (1 - rate) / RUNS)


def chips_test() -> Sprt:
    return Sprt.chips(0.0, 1.0, alpha=0.05, beta=0.05)


@pytest.mark.parametrize("sigma", [3.0, 8.0])
def test_chips_type_one_error_holds_when_b_gains_nothing(sigma: float) -> None:
    counts = verdicts(chips_test, lambda rng: rng.gauss(0.0, sigma))
    assert counts[Verdict.H1] / RUNS <= tolerance(0.05)
    assert counts[Verdict.UNDECIDED] == 0
    assert counts[Verdict.H0] / RUNS >= 0.9


@pytest.mark.parametrize("sigma", [3.0, 8.0])
def test_chips_type_two_error_holds_when_b_gains_the_threshold(sigma: float) -> None:
    counts = verdicts(chips_test, lambda rng: rng.gauss(1.0, sigma))
    assert counts[Verdict.H0] / RUNS <= tolerance(0.05)
    assert counts[Verdict.UNDECIDED] == 0


def test_unequal_alpha_and_beta_are_each_respected() -> None:
    def make() -> Sprt:
        return Sprt.chips(0.0, 1.0, alpha=0.02, beta=0.2)

    under_h0 = verdicts(make, lambda rng: rng.gauss(0.0, 4.0))
    under_h1 = verdicts(make, lambda rng: rng.gauss(1.0, 4.0))
    assert under_h0[Verdict.H1] / RUNS <= tolerance(0.02)
    assert under_h1[Verdict.H0] / RUNS <= tolerance(0.2)


def trinomial(score: float, draws: float = 0.3) -> Callable[[random.Random], float]:
    """Paired differences whose win/draw/loss frequencies give B the expected ``score``."""
    wins = score - draws / 2

    def draw(rng: random.Random) -> float:
        u = rng.random()
        if u < wins:
            return float(rng.randint(1, 12))
        if u < wins + draws:
            return 0.0
        return -float(rng.randint(1, 12))

    return draw


def test_elo_error_rates_hold_on_won_drawn_lost_deals() -> None:
    def make() -> Sprt:
        return Sprt.elo(0.0, 50.0, alpha=0.05, beta=0.05)

    under_h0 = verdicts(make, trinomial(elo_score(0.0)))
    under_h1 = verdicts(make, trinomial(elo_score(50.0)))
    assert under_h0[Verdict.H1] / RUNS <= tolerance(0.05)
    assert under_h1[Verdict.H0] / RUNS <= tolerance(0.05)
    assert under_h0[Verdict.UNDECIDED] == under_h1[Verdict.UNDECIDED] == 0


def test_a_clear_difference_is_found_quickly_and_no_difference_is_not_called_better() -> None:
    better = chips_test()
    rng = random.Random(1)
    while better.verdict is Verdict.UNDECIDED:
        better.add(rng.gauss(3.0, 6.0))
    assert better.verdict is Verdict.H1
    assert better.n < 300
    same = chips_test()
    while same.verdict is Verdict.UNDECIDED:
        same.add(rng.gauss(0.0, 6.0))
    assert same.verdict is Verdict.H0


def test_llr_is_the_normal_approximation_formula() -> None:
    test = Sprt.chips(0.0, 2.0, alpha=0.05, beta=0.1)
    data = [1.0, 3.0, -2.0, 4.0, 0.0]
    for x in data:
        test.add(x)
    n, mean = len(data), sum(data) / len(data)
    variance = sum((x - mean) ** 2 for x in data) / (n - 1)
    assert test.llr == pytest.approx(n * 2.0 * (2 * mean - 2.0) / (2 * variance))
    assert test.bounds == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


def test_no_verdict_before_the_minimum_number_of_deals() -> None:
    test = chips_test()
    for _ in range(MIN_OBSERVATIONS - 1):
        test.add(50.0)
    before = test.verdict
    test.add(50.0)
    assert before is Verdict.UNDECIDED
    assert test.verdict is Verdict.H1  # identical deals: the variance floor keeps it finite


def test_chips_interval_is_mean_plus_minus_1_96_standard_errors() -> None:
    test = Sprt.elo(0.0, 10.0, alpha=0.05, beta=0.05)
    for x in (1.0, 2.0, 3.0):
        test.add(x)
    mean, low, high = test.chips_interval()
    assert mean == pytest.approx(2.0)
    assert high - mean == pytest.approx(1.96 / math.sqrt(3))
    assert mean - low == pytest.approx(1.96 / math.sqrt(3))


@pytest.mark.parametrize(
    ("alpha", "beta", "low", "high"),
    [(0.0, 0.05, 0, 1), (0.05, 1.0, 0, 1), (0.6, 0.5, 0, 1), (0.05, 0.05, 1, 1)],
)
def test_bad_parameters_are_refused(alpha: float, beta: float, low: float, high: float) -> None:
    with pytest.raises(ValueError, match=r"alpha|bound"):
        Sprt.chips(low, high, alpha=alpha, beta=beta)
