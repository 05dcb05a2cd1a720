"""The rule "ratings update in block order", in one place above the storage.

With concurrency a later block may finish first. Its results are stored at once, but its
rating waits, unrated, until every earlier block is in: so the ratings are a function of the
block results alone, the same for an interrupted and resumed season as for one played in a
single run. The store keeps what it is given (a block, and the ratings it unlocks, in one
transaction); which blocks a finished block unlocks, and in what order they are rated, is
decided here.

>>> from brandeln.ladder.ratings.trueskill_model import Rating
>>> def plus_rank(before, ranking):  # a toy rating: mu grows by each rank
...     return {bot: Rating(before[bot].mu + rank, 1.0) for bot, rank in ranking.items()}
>>> start = {"a": Rating(0.0, 1.0)}
>>> [block.index for block in blocks_to_rate(1, {2: {"a": 1}}, start, plus_rank)]
[]
>>> [(b.index, b.ratings["a"].mu) for b in blocks_to_rate(1, {1: {"a": 1}, 2: {"a": 2}},
...                                                        start, plus_rank)]
[(1, 1.0), (2, 3.0)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from brandeln.ladder.ratings.trueskill_model import Rating
from brandeln.ladder.store.database import LadderStore, RatedBlock

if TYPE_CHECKING:
    from brandeln.ladder.season.duplicate import BlockPlan, BotBlockResult, MatchOutcome

__all__ = ["RateBlock", "RatedBlock", "blocks_to_rate", "record_and_rate"]

# (every bot's rating before the block, the block's ranking by bot) -> the ranked bots' ratings.
RateBlock = Callable[[Mapping[str, Rating], Mapping[str, int]], dict[str, Rating]]


def blocks_to_rate(
    next_to_rate: int,
    rankings: Mapping[int, Mapping[str, int]],
    ratings: Mapping[str, Rating],
    rate: RateBlock,
) -> list[RatedBlock]:
    """The blocks rated now, in block order: ``next_to_rate`` and every block after it without
    a gap, each rated on the ratings the ones before it left.

    ``rankings`` are the finished, unrated blocks' rankings by block index (an empty one: a
    block played unrated, which keeps its place and moves no rating); ``ratings`` every bot's
    rating before ``next_to_rate``. Empty while ``next_to_rate`` itself is missing.
    """
    current = dict(ratings)
    rated: list[RatedBlock] = []
    index = next_to_rate
    while index in rankings:
        updated = rate(current, rankings[index]) if rankings[index] else {}
        current.update(updated)
        rated.append(RatedBlock(index, updated))
        index += 1
    return rated


def record_and_rate(
    store: LadderStore,
    season: str,
    plan: BlockPlan,
    outcomes: Sequence[MatchOutcome],
    results: Mapping[str, BotBlockResult],
    rate: RateBlock,
) -> list[int]:
    """Record a finished block with the ratings it unlocks, in one transaction of the store
    that holds the season's lock (so two runners recording at once still rate in order).

    Returns the indexes of the blocks rated now (in order; empty when an earlier block is still
    missing, or when this very block was recorded already). Raises
    :class:`~brandeln.ladder.errors.StorageError` if the block is stored with other matches.
    """

    def unlocked(
        next_to_rate: int,
        rankings: Mapping[int, Mapping[str, int]],
        ratings: Mapping[str, Rating],
    ) -> list[RatedBlock]:
        return blocks_to_rate(next_to_rate, rankings, ratings, rate)

    return store.blocks.record_and_rate(season, plan, outcomes, results, unlocked)
