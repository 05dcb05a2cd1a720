"""Matchmaking for an always-on ladder: which bot versions play the next block.

A pure function of its inputs (no I/O, no clock, no RNG): the same candidates, pair counts,
seats and block index always give the same block, whatever order the candidates come in (they
are sorted by name first, and every tie is broken by name).

The inputs: the candidates (the active, connected bot versions), each with its rating (mu,
sigma), its rated blocks and the index of the last block it played (or never); how many blocks
each pair of candidates has played together; the number of seats S; the next block's index.
The block is S names in sorted order, or None when fewer than S candidates are connected.

The rule, with N candidates, S seats, beta the TrueSkill performance noise and the fair
interval I = N / S (the blocks between two plays of a version if the seats went round evenly):

1. *Staleness*: the next block's index minus the index of the candidate's last block (never
   played: the next index + 1). *Overdue*: a staleness of at least OVERDUE_INTERVALS x I.
2. *Need*: ``sigma / beta + STALENESS_WEIGHT x min(staleness / I, OVERDUE_INTERVALS)``.
3. *Placement* first: a candidate with fewer than PLACEMENT_BLOCKS rated blocks is in
   placement. If 1 to S candidates are, all of them are seated and the other seats are filled
   from the rest (step 5). If more than S are, the anchor is the one with the fewest rated
   blocks (then the greatest need) and the other seats are filled from the others in
   placement.
4. Otherwise the anchor is the overdue candidate with the greatest staleness (then the
   greatest need) or, when none is overdue, the candidate with the greatest need; the other
   seats are filled from everyone else.
5. The seats are filled with the players that give the block G the greatest *score*::

       mean of need_i over G  +  CLOSENESS_WEIGHT x mean of q_ij over G's pairs
                              -  PAIR_WEIGHT x mean of excess_ij over G's pairs

   ``q_ij = exp(-(mu_i - mu_j)^2 / (2 (2 beta^2 + sigma_i^2 + sigma_j^2)))`` is the closeness
   of two means (TrueSkill's match quality without its sigma factor: 1 for equal means, less
   as the means part, measured against the block's noise and their uncertainty);
   ``excess_ij = together_ij - min(blocks_i, blocks_j) x (S-1)/(N-1)`` is how many more blocks
   the pair played together than an even draw of seats would have given it while both played
   (with the pair counts of a recent window, blocks_i is the candidate's ``recent_blocks``).
   Every completion of the free seats is scored while there are at most EXHAUSTIVE_LIMIT of
   them, else the seats are filled one at a time by the candidate that adds the most. Ties go
   to the names first in sorted order (the first completion in lexicographic order).

Why it learns the most: a block moves uncertain ratings most (sigma in need), and its ranking
says most when it is least predictable (close means); staleness spreads the blocks over every
version, and the overdue anchor bounds the wait: with no version in placement, every version
plays at least once in any ``ceil(OVERDUE_INTERVALS x I) + N - 1`` consecutive blocks (once it
is overdue, only candidates that have waited at least as long can take the anchor before it,
at most N - 1 of them, each once). The pair term costs a pair more with every extra meeting, so
no pair runs far from its fair share, however close its means.

>>> fresh = Rating(25.0, 25.0 / 3)
>>> choose_block([Candidate(name, fresh) for name in "edcba"], {}, seats=4, next_block=0)
('a', 'b', 'c', 'd')
>>> settled = [Candidate(n, Rating(mu, 1.5), 40, 99) for n, mu in [("x", 18), ("y", 26), ("z", 30)]]
>>> choose_block([*settled, Candidate("new", fresh)], {}, seats=3, next_block=100)
('new', 'y', 'z')
>>> choose_block(settled[:2], {}, seats=3, next_block=100) is None
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from brandeln.ladder.ratings.trueskill_model import Rating
from brandeln.ladder.season.settings import RatingParams

__all__ = [
    "CLOSENESS_WEIGHT",
    "DEFAULT_BETA",
    "EXHAUSTIVE_LIMIT",
    "OVERDUE_INTERVALS",
    "PAIR_WEIGHT",
    "PLACEMENT_BLOCKS",
    "STALENESS_WEIGHT",
    "Candidate",
    "choose_block",
]

PLACEMENT_BLOCKS: Final = 3
"""Blocks a new version plays before anything else. After three 4-player blocks (nine pairwise
results) a fresh sigma of 8.3 is down to about 3.4 (0.8 beta, simulated): its mean is near
its level, so the close-means rule can find it useful opponents; more would hold everyone
else back for blocks that sigma alone already seats."""

STALENESS_WEIGHT: Final = 0.5
"""Need per fair interval waited: the cap (two intervals) is worth one beta of sigma, more than
a just-placed sigma (0.8 beta) has over a settled one (0.2 beta), so a settled version that
waited its two intervals outranks a newcomer fresh from placement. Simulated: 0 tripled the
pairs' spread and let waits reach 8-9 blocks (13 versions, 4 seats); 1 learnt no faster."""

OVERDUE_INTERVALS: Final = 2.0
"""Fair intervals after which a version is overdue and anchored before any need: twice its fair
share of waiting, late enough that sigma and close means choose most blocks (no version waited
that long in simulation), early enough to bound every wait (the module docstring)."""

CLOSENESS_WEIGHT: Final = 1.0
"""A block of equal means scores this much more than one of distant means: one beta of sigma
on every member, so closeness and uncertainty weigh alike. Simulated, blocks to the true order
of 8 / 12 bots: 31.6 / 72.9 with 1, 49.5 / 89 with 0, 36 / 62.9 with 2."""

PAIR_WEIGHT: Final = 0.25
"""Score lost per meeting above a pair's fair share: four meetings cancel a perfect closeness,
so the close pairs closeness favours run only a few meetings ahead (at most 6 in 800
simulated blocks). With 0 the same close groups replay (pairs 61 meetings from the mean, the
true order found three times later); with 1 the true order of 12 bots took 103 blocks, not 73."""

EXHAUSTIVE_LIMIT: Final = 5000
"""Completions of a block scored one by one at most (about 1 ms for 32 candidates at 4 seats);
beyond it the seats are filled greedily (50 candidates at 4 seats: 18,424 completions, 0.2 ms)."""

DEFAULT_BETA: Final = RatingParams().beta
"""TrueSkill's beta (performance noise per block) when the caller's parameters are the defaults."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """An active, connected bot version: its rating, rated blocks and last block (None: never)."""

    name: str
    rating: Rating
    blocks_played: int = 0
    last_block: int | None = None
    # Its blocks within the window the pair counts cover, when they cover a window rather than
    # the whole history (None: blocks_played). A ladder whose versions come and go counts
    # pairs over its recent blocks: a pair's meetings from when there were fewer versions
    # would otherwise read as overplay forever.
    recent_blocks: int | None = None


def choose_block(
    candidates: Sequence[Candidate],
    pair_counts: Mapping[frozenset[str], int],
    seats: int,
    next_block: int,
    *,
    beta: float = DEFAULT_BETA,
) -> tuple[str, ...] | None:
    """The players of block ``next_block`` (sorted names), or None if fewer than ``seats``.

    ``pair_counts`` maps a pair of names (``frozenset``) to the blocks they played together;
    a missing pair never met. The rule is the module docstring's.
    """
    pool = sorted(candidates, key=lambda candidate: candidate.name)
    _check(pool, seats, next_block, beta)
    if len(pool) < seats:
        return None
    count = len(pool)
    interval = count / seats
    staleness = [
        next_block + 1 if c.last_block is None else next_block - c.last_block for c in pool
    ]
    need = [
        c.rating.sigma / beta + STALENESS_WEIGHT * min(wait / interval, OVERDUE_INTERVALS)
        for c, wait in zip(pool, staleness, strict=True)
    ]
    everyone = range(count)
    placement = [i for i in everyone if pool[i].blocks_played < PLACEMENT_BLOCKS]
    if 0 < len(placement) <= seats:
        forced, choices = placement, [i for i in everyone if i not in placement]
    elif placement:
        anchor = min(placement, key=lambda i: (pool[i].blocks_played, -need[i], i))
        forced, choices = [anchor], [i for i in placement if i != anchor]
    else:
        overdue = OVERDUE_INTERVALS * interval
        # Overdue first, the longest wait first; then the greatest need; then the name.
        anchor = min(
            everyone,
            key=lambda i: (
                staleness[i] < overdue,
                -staleness[i] if staleness[i] >= overdue else 0,
                -need[i],
                i,
            ),
        )
        forced, choices = [anchor], [i for i in everyone if i != anchor]
    chosen = _complete(forced, choices, seats, need, _Pairs(pool, pair_counts, seats, beta))
    return tuple(pool[i].name for i in sorted(chosen))


def _check(pool: Sequence[Candidate], seats: int, next_block: int, beta: float) -> None:
    """Reject inputs the rule has no meaning for (a caller's bug, not a ladder state)."""
    if seats < 2:
        raise ValueError(f"a block needs at least 2 seats, got {seats}")
    if next_block < 0:
        raise ValueError(f"the next block's index cannot be negative, got {next_block}")
    if not beta > 0:
        raise ValueError(f"beta must be positive, got {beta}")
    names = [candidate.name for candidate in pool]
    if len(set(names)) != len(names):
        raise ValueError(f"candidate names must be unique: {', '.join(names)}")
    for candidate in pool:
        if candidate.blocks_played < 0 or (candidate.recent_blocks or 0) < 0:
            raise ValueError(f"{candidate.name}: negative blocks played")
        if candidate.last_block is not None and not 0 <= candidate.last_block < next_block:
            raise ValueError(
                f"{candidate.name}: last block {candidate.last_block} is not before {next_block}"
            )
        if not (math.isfinite(candidate.rating.mu) and candidate.rating.sigma > 0):
            raise ValueError(f"{candidate.name}: rating {candidate.rating} is not usable")


class _Pairs:
    """Each pair's share of a block's score (closeness minus overplay), computed on demand."""

    def __init__(
        self,
        pool: Sequence[Candidate],
        pair_counts: Mapping[frozenset[str], int],
        seats: int,
        beta: float,
    ) -> None:
        self._names = [candidate.name for candidate in pool]
        self._mu = [candidate.rating.mu for candidate in pool]
        self._var = [candidate.rating.sigma**2 for candidate in pool]
        self._blocks = [
            candidate.blocks_played if candidate.recent_blocks is None else candidate.recent_blocks
            for candidate in pool
        ]
        self._counts = pair_counts
        self._noise = 2 * beta**2
        self._share = (seats - 1) / (len(pool) - 1)  # a pair's fair share of a version's blocks
        self._pairs = seats * (seats - 1) / 2

    def row(self, i: int, others: Sequence[int]) -> list[float]:
        """The values of the pairs (i, j) for j in ``others``: one comprehension, the hot loop."""
        mu, var, blocks, name = self._mu[i], self._var[i], self._blocks[i], self._names[i]
        spread = self._noise + var  # plus the other's variance: the outcome's spread
        met, all_mu, all_var, all_blocks, names = (
            self._counts.get,
            self._mu,
            self._var,
            self._blocks,
            self._names,
        )
        return [
            (
                CLOSENESS_WEIGHT * math.exp(-((mu - all_mu[j]) ** 2) / (2 * (spread + all_var[j])))
                - PAIR_WEIGHT
                * (met(frozenset((name, names[j])), 0) - min(blocks, all_blocks[j]) * self._share)
            )
            / self._pairs
            for j in others
        ]


def _complete(
    forced: Sequence[int], choices: Sequence[int], seats: int, need: Sequence[float], pairs: _Pairs
) -> list[int]:
    """``forced`` plus the best-scoring choices for the free seats (module docstring, step 5)."""
    free = seats - len(forced)
    if free == 0:
        return list(forced)
    # What each choice adds to the forced players; pairs among the choices come on top.
    gains = [need[i] / seats for i in choices]
    for f in forced:
        gains = [gain + value for gain, value in zip(gains, pairs.row(f, choices), strict=True)]
    if math.comb(len(choices), free) <= EXHAUSTIVE_LIMIT:
        return [*forced, *(choices[t] for t in _best_combination(gains, free, choices, pairs))]
    chosen = list(forced)
    left = list(range(len(choices)))  # positions in choices, in name order
    while len(chosen) < seats:
        scores = [gains[t] for t in left]
        pick = left.pop(scores.index(max(scores)))  # index() finds the first, in name order
        chosen.append(choices[pick])
        for t, value in zip(
            left, pairs.row(choices[pick], [choices[t] for t in left]), strict=True
        ):
            gains[t] += value
    return chosen


def _best_combination(
    gains: Sequence[float], free: int, choices: Sequence[int], pairs: _Pairs
) -> tuple[int, ...]:
    """The ``free`` positions of ``choices`` with the greatest total; the first of equals wins.

    A depth-first walk in lexicographic order carrying, for every later position, what it would
    add to the positions picked so far: each leaf costs one addition, not a sum over its pairs.
    """
    size = len(choices)
    best: tuple[int, ...] = ()
    best_score = -math.inf
    rows: dict[int, list[float]] = {}  # a position's pair values with every later position

    def walk(picked: tuple[int, ...], total: float, adds: Sequence[float]) -> None:
        nonlocal best, best_score
        start = picked[-1] + 1 if picked else 0
        stop = size - (free - len(picked)) + 1  # leave room for the seats still to fill
        if len(picked) == free - 1:
            for t in range(start, stop):
                if total + adds[t] > best_score:
                    best, best_score = (*picked, t), total + adds[t]
            return
        for t in range(start, stop):
            if t not in rows:
                rows[t] = pairs.row(choices[t], choices[t + 1 :])
            row = rows[t]
            later = [*([0.0] * (t + 1)), *(adds[u] + row[u - t - 1] for u in range(t + 1, size))]
            walk((*picked, t), total + adds[t], later)

    walk((), 0.0, gains)
    return best
