"""A ladder replayed in simulation: known strengths, seeded play, matchmaking, TrueSkill.

For the tests of :mod:`brandeln.ladder.living.matchmaking` and the README's figure. Each block, the
chooser picks the players among the connected bots; each player's performance is drawn from
Normal(true strength, beta) and the block ranks them by it (1 is best); TrueSkill
(:class:`~brandeln.ladder.ratings.trueskill_model.RatingModel`) updates the players' ratings.
Everything is seeded, so a replay is reproducible.

>>> history = simulate_ladder({"a": 30.0, "b": 25.0, "c": 20.0, "d": 15.0, "e": 10.0}, 40, seed=1)
>>> len(history), len(history[0].players)
(40, 4)
>>> kendall_tau(history[-1].ratings, {"a": 30.0, "b": 25.0, "c": 20.0, "d": 15.0, "e": 10.0})
1.0
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from typing import Final

from brandeln.ladder.living.matchmaking import Candidate, choose_block
from brandeln.ladder.ratings.trueskill_model import Rating, RatingModel
from brandeln.ladder.season.settings import RatingParams

__all__ = [
    "Chooser",
    "SimulatedBlock",
    "converged_at",
    "kendall_tau",
    "random_chooser",
    "simulate_ladder",
]

Chooser = Callable[
    [Sequence[Candidate], Mapping[frozenset[str], int], int, int], tuple[str, ...] | None
]
"""(candidates, pair counts, seats, next block) -> the block's players, like choose_block."""

_DEFAULT_PARAMS: Final = RatingParams()


@dataclass(frozen=True, slots=True)
class SimulatedBlock:
    """One simulated block: its players, their ranking, and every joined bot's rating after it."""

    index: int
    players: tuple[str, ...]
    ranking: Mapping[str, int]
    ratings: Mapping[str, Rating]


def simulate_ladder(
    strengths: Mapping[str, float],
    blocks: int,
    *,
    seats: int = 4,
    seed: int = 0,
    params: RatingParams = _DEFAULT_PARAMS,
    chooser: Chooser | None = None,
    arrivals: Mapping[str, int] | None = None,
) -> list[SimulatedBlock]:
    """``blocks`` blocks among bots of true ``strengths`` (rating units), from fresh ratings.

    ``chooser`` defaults to :func:`~brandeln.ladder.living.matchmaking.choose_block` with
    ``params.beta``; ``arrivals`` names the block from which a bot is connected (default 0). Raises
    ValueError if a block finds fewer connected bots than seats.
    """
    pick = chooser or partial(choose_block, beta=params.beta)
    joins = {name: (arrivals or {}).get(name, 0) for name in strengths}
    rng = random.Random(f"brandeln-matchmaking-sim:{seed}")
    model = RatingModel(params)
    ratings: dict[str, Rating] = {}
    played: Counter[str] = Counter()
    last: dict[str, int] = {}
    pairs: Counter[frozenset[str]] = Counter()
    history: list[SimulatedBlock] = []
    for index in range(blocks):
        connected = sorted(name for name in strengths if joins[name] <= index)
        for name in connected:
            ratings.setdefault(name, model.initial())
        candidates = [
            Candidate(name, ratings[name], played[name], last.get(name)) for name in connected
        ]
        players = pick(candidates, pairs, seats, index)
        if players is None:
            raise ValueError(f"block {index}: {len(connected)} bots connected for {seats} seats")
        # Sorted before drawing: the draws must not depend on the chooser's order.
        performance = {name: rng.gauss(strengths[name], params.beta) for name in sorted(players)}
        order = sorted(players, key=lambda name: -performance[name])
        ranking = {name: rank for rank, name in enumerate(order, start=1)}
        ratings.update(model.rate_block(ratings, ranking))
        for name in players:
            played[name] += 1
            last[name] = index
        for pair in combinations(players, 2):
            pairs[frozenset(pair)] += 1
        history.append(SimulatedBlock(index, tuple(players), ranking, dict(ratings)))
    return history


def random_chooser(seed: int) -> Chooser:
    """A baseline chooser: ``seats`` connected bots drawn uniformly (seeded), sorted."""
    rng = random.Random(f"brandeln-matchmaking-random:{seed}")

    def choose(
        candidates: Sequence[Candidate],
        pair_counts: Mapping[frozenset[str], int],
        seats: int,
        next_block: int,
    ) -> tuple[str, ...] | None:
        names = sorted(candidate.name for candidate in candidates)
        return None if len(names) < seats else tuple(sorted(rng.sample(names, seats)))

    return choose


def kendall_tau(ratings: Mapping[str, Rating], strengths: Mapping[str, float]) -> float:
    """Kendall's tau between the order by conservative rating and the true order (1: equal)."""
    names = sorted(ratings)
    agree = 0
    for a, b in combinations(names, 2):
        rated = ratings[a].conservative - ratings[b].conservative
        true = strengths[a] - strengths[b]
        agree += 1 if rated * true > 0 else -1 if rated * true < 0 else 0
    return agree / (len(names) * (len(names) - 1) / 2)


def converged_at(
    history: Sequence[SimulatedBlock], strengths: Mapping[str, float], threshold: float = 1.0
) -> int | None:
    """Blocks played until Kendall's tau reached ``threshold`` for good (None: not at the end).

    The count of blocks after which every later block of ``history`` keeps tau >= threshold.
    """
    reached: int | None = None
    for block in history:
        if kendall_tau(block.ratings, strengths) >= threshold:
            reached = block.index + 1 if reached is None else reached
        else:
            reached = None
    return reached
