"""A sequential probability ratio test on paired per-deal results: is B better than A?

Each observation is one deal played twice on the same cards, once with A in a seat and once
with B there (``brandeln ab``): ``x = chips_B - chips_A``. The test is the normal-approximation
generalised SPRT that engine testers use (fishtest's and cutechess-cli's "GSPRT"): with n
observations of mean ``x̄`` and variance ``s²``, the log-likelihood ratio of H1 (mean = mu1)
against H0 (mean = mu0) is

    LLR = n (mu1 - mu0) (2 x̄ - mu0 - mu1) / (2 s²)

and the test stops when it leaves Wald's bounds ``ln(beta / (1 - alpha))`` (accept H0: B is not
better by the threshold) and ``ln((1 - beta) / alpha)`` (accept H1: B is better).

Two ways to state the hypotheses: in **chips per deal** (``mu0, mu1`` directly, on ``x``), or in
**Elo** on the deal's outcome for B (1 won the pair, 1/2 equal, 0 lost), whose expected score
under Elo difference ``e`` is ``1 / (1 + 10^(-e/400))`` (the logistic model of chess ratings),
so ``mu0, mu1`` are the scores of elo0 and elo1 and each deal counts as its score.

The test is pure arithmetic (no I/O, no clock, no randomness): tests/ladder/test_sprt.py
checks its error rates on seeded synthetic streams.

>>> test = Sprt.chips(0.0, 1.0, alpha=0.05, beta=0.05)
>>> [round(b, 3) for b in test.bounds]
[-2.944, 2.944]
>>> for x in [3, -1, 2, 4, 0, 5, 1, 2] * 4:
...     test.add(x)
>>> test.verdict, round(test.llr, 2)
(<Verdict.H1: 'H1'>, 13.29)
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Final

from brandeln.ladder.ratings.stats import Z_95

__all__ = ["MIN_OBSERVATIONS", "Scale", "Sprt", "Verdict", "elo_score", "pair_score"]

# Before this many deals the variance estimate is too rough to stop on (a run of equal deals
# would give a variance near zero and an LLR off the scale).
MIN_OBSERVATIONS: Final = 30
# The variance is never taken below this share of the hypotheses' gap squared, for the same
# reason (a stream of identical differences).
_MIN_VARIANCE_SHARE: Final = 1e-3


class Verdict(enum.StrEnum):
    H0 = "H0"  # B is not better than A by the threshold (mean <= mu0)
    H1 = "H1"  # B is better (mean >= mu1)
    UNDECIDED = "undecided"  # still inside the bounds (or stopped at the cap)


class Scale(enum.StrEnum):
    CHIPS = "chips"  # hypotheses in chips per deal
    ELO = "elo"  # hypotheses in Elo on each deal's won/equal/lost outcome


def elo_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic, 400 per decade).

    >>> elo_score(0.0), round(elo_score(400.0), 4)
    (0.5, 0.9091)
    """
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def pair_score(difference: float) -> float:
    """B's score on one paired deal: 1 if it won more chips than A did, 1/2 if equal, else 0."""
    if difference > 0:
        return 1.0
    return 0.5 if difference == 0 else 0.0


@dataclass
class _Moments:
    """Running mean and variance (Welford), so a long test costs O(1) per deal."""

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)

    @property
    def variance(self) -> float:
        return self.m2 / (self.n - 1) if self.n > 1 else 0.0


@dataclass
class Sprt:
    """The test's state; :meth:`add` one paired difference (chips) per deal."""

    scale: Scale
    mu0: float  # on the test's scale: chips per deal, or an expected score
    mu1: float
    alpha: float
    beta: float
    elo0: float | None = None  # what the user gave, for reports
    elo1: float | None = None
    _test: _Moments = field(default_factory=_Moments)  # on the test's scale
    _chips: _Moments = field(default_factory=_Moments)  # the chip differences themselves

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1 or not 0 < self.beta < 1:
            raise ValueError("alpha and beta must be between 0 and 1")
        if self.alpha + self.beta >= 1:
            raise ValueError("alpha + beta must be below 1")
        if self.mu1 <= self.mu0:
            raise ValueError(
                "the H1 bound must be above the H0 bound (elo1 > elo0, chips1 > chips0)"
            )

    @classmethod
    def chips(cls, chips0: float, chips1: float, *, alpha: float, beta: float) -> Sprt:
        """H0: B gains ``chips0`` per deal over A; H1: it gains ``chips1``."""
        return cls(Scale.CHIPS, chips0, chips1, alpha, beta)

    @classmethod
    def elo(cls, elo0: float, elo1: float, *, alpha: float, beta: float) -> Sprt:
        """H0: B is ``elo0`` Elo stronger than A on a deal's outcome; H1: ``elo1``."""
        return cls(Scale.ELO, elo_score(elo0), elo_score(elo1), alpha, beta, elo0, elo1)

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's (lower, upper) bounds on the LLR."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    @property
    def n(self) -> int:
        return self._test.n

    def add(self, chip_difference: float) -> None:
        """One deal: B's chips minus A's on the same cards in the same seat."""
        self._chips.add(chip_difference)
        value = pair_score(chip_difference) if self.scale is Scale.ELO else chip_difference
        self._test.add(value)

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 against H0 so far (0 before two observations)."""
        moments = self._test
        if moments.n < 2:  # a variance needs two
            return 0.0
        gap = self.mu1 - self.mu0
        variance = max(moments.variance, _MIN_VARIANCE_SHARE * gap * gap)
        return moments.n * gap * (2 * moments.mean - self.mu0 - self.mu1) / (2 * variance)

    @property
    def verdict(self) -> Verdict:
        if self.n < MIN_OBSERVATIONS:
            return Verdict.UNDECIDED
        lower, upper = self.bounds
        llr = self.llr
        if llr >= upper:
            return Verdict.H1
        if llr <= lower:
            return Verdict.H0
        return Verdict.UNDECIDED

    def chips_interval(self) -> tuple[float, float, float]:
        """Mean chip difference per deal and its 95% interval (normal approximation)."""
        moments = self._chips
        half = Z_95 * math.sqrt(moments.variance / moments.n) if moments.n > 1 else math.inf
        return moments.mean, moments.mean - half, moments.mean + half
