"""TrueSkill ratings behind a small typed adapter.

Every rating goes through one explicit ``trueskill.TrueSkill(...)`` environment built from the
season's :class:`~brandeln.ladder.season.config.RatingParams`; the module-level global setup of the
trueskill package is never touched, so two seasons with different parameters can live in one
process.

A duplicate block is one free-for-all: each bot is a team of one, ranked by its block result
(1 is best, equal ranks are draws).

>>> model = RatingModel(RatingParams())
>>> start = {name: model.initial() for name in "abcd"}
>>> after = model.rate_block(start, {"a": 1, "b": 2, "c": 2, "d": 4})
>>> [round(after[name].mu, 1) for name in "abcd"]  # the tie is equal up to TrueSkill's iteration
[31.6, 25.0, 25.0, 18.4]
>>> round(model.initial().conservative, 6)
0.0
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import trueskill

from brandeln.ladder.season.config import RatingParams

__all__ = ["CONSERVATIVE_SIGMAS", "Rating", "RatingModel"]

CONSERVATIVE_SIGMAS: Final = 3
"""The leaderboard ranks by mu - 3 sigma: a bot is at least this good with ~99.7% confidence."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A bot's skill belief: mean ``mu`` and uncertainty ``sigma``."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """mu - 3 sigma, the value the leaderboard sorts by."""
        return self.mu - CONSERVATIVE_SIGMAS * self.sigma


class RatingModel:
    """One TrueSkill environment and the two operations the ladder needs."""

    def __init__(self, params: RatingParams) -> None:
        self.params = params
        self._env = trueskill.TrueSkill(
            mu=params.mu,
            sigma=params.sigma,
            beta=params.beta,
            tau=params.tau,
            draw_probability=params.draw_probability,
            backend=None,  # the package's own pure-Python math: no scipy/mpmath differences
        )

    def initial(self) -> Rating:
        """The rating of a bot that has played no block."""
        return Rating(self.params.mu, self.params.sigma)

    def rate_block(
        self, ratings: Mapping[str, Rating], ranking: Mapping[str, int]
    ) -> dict[str, Rating]:
        """The new ratings of the bots in ``ranking`` after one block.

        ``ranking`` maps each bot of the block to its rank (1 is best; ties share a rank);
        ``ratings`` holds their ratings before the block (a bot missing from it starts at
        :meth:`initial`). Bots not in ``ranking`` are not returned.
        """
        if len(ranking) < 2:
            raise ValueError(f"a block needs at least 2 bots to rate, got {sorted(ranking)}")
        names = sorted(ranking)  # a fixed order: the result must not depend on dict order
        groups = [
            (self._env.create_rating(r.mu, r.sigma),)
            for r in (ratings.get(name, self.initial()) for name in names)
        ]
        rated = self._env.rate(groups, ranks=[ranking[name] for name in names])
        return {
            name: Rating(float(group[0].mu), float(group[0].sigma))
            for name, group in zip(names, rated, strict=True)
        }
