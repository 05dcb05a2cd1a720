"""A stored season's batch ratings: what ``brandeln ratings`` and the season's leaderboard page
show beside TrueSkill, and what any other reader of a season's strengths calls
(:func:`batch_ratings_of`).

The blocks are the season's rated blocks (those TrueSkill has rated, so both ratings rest on the
same evidence), each as the block's ranking of its bots (``BotBlockResult.rank``); the fit is
:func:`brandeln.ladder.ratings.batch.fit_batch_ratings` (Plackett-Luce, every block at once, so the
order in which blocks were played or recorded changes nothing). The bootstrap draws from a fixed
seed (:data:`BATCH_SEED`) with :data:`BATCH_RESAMPLES` resamples, so the same season always
shows the same figures.

**Why** :data:`BATCH_RESAMPLES` **= 500.** A resample is one refit (about 0.8 ms for a season
of 100 blocks of 4 seats among 8 bots, on one core here): 500 take ~0.4 s, which keeps
``brandeln ratings`` near a second on such a season, and give P(rank 1) to about ±2 percentage
points (its standard error is at most √(0.25/500)) and each 95% interval from the 12 most
extreme resamples on each side.

>>> ranks = [(0, "a", 1), (0, "b", 2), (1, "a", 1), (1, "b", 2), (2, "b", 1), (2, "a", 2)]
>>> blocks = SeasonBlocks.of(ranks, ["a", "b", "c"])
>>> ratings = blocks.fit(resamples=50)
>>> [(rating.bot, round(rating.strength, 3)) for rating in ratings.bots], ratings.unrated
([('a', 0.293), ('b', -0.293)], ('c',))
>>> rank_interval(ratings.bots[0]), rank_interval_text(ratings.bots[0])
((1, 2), '1–2')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from brandeln.ladder.ratings.batch import BatchRating, BatchRatings, fit_batch_ratings
from brandeln.ladder.store.database import LadderStore

__all__ = [
    "BATCH_RESAMPLES",
    "BATCH_SEED",
    "SeasonBlocks",
    "batch_json",
    "batch_ratings_of",
    "rank_interval",
    "rank_interval_text",
    "season_blocks",
]

BATCH_RESAMPLES: Final = 500
BATCH_SEED: Final = 0  # one fixed seed: a season's page and command always agree

# A rank interval leaves out this share of the resamples on each side (a 95% interval).
_TAIL: Final = 0.025
# The shares are counts over the resamples: a sum within this of a bound is on it.
_ROUNDING: Final = 1e-9


@dataclass(frozen=True, slots=True)
class SeasonBlocks:
    """A season's blocks as the fit reads them, hashable (a page may keep the fit of each).

    ``blocks`` holds one ``((bot, rank), ...)`` per block, by block index, each sorted by bot;
    ``bots`` every bot of the season, sorted (the ones without a block are listed unrated).
    """

    blocks: tuple[tuple[tuple[str, int], ...], ...]
    bots: tuple[str, ...]

    @classmethod
    def of(cls, ranks: Iterable[tuple[int, str, int]], bots: Iterable[str]) -> SeasonBlocks:
        """From ``(block index, bot, rank)`` triples and the season's bots."""
        by_block: dict[int, dict[str, int]] = {}
        for index, bot, rank in ranks:
            by_block.setdefault(index, {})[bot] = rank
        return cls(
            tuple(tuple(sorted(by_block[index].items())) for index in sorted(by_block)),
            tuple(sorted(set(bots))),
        )

    def fit(self, *, resamples: int = BATCH_RESAMPLES, seed: int = BATCH_SEED) -> BatchRatings:
        """The batch ratings of these blocks
        (:func:`brandeln.ladder.ratings.batch.fit_batch_ratings`)."""
        return fit_batch_ratings(
            [dict(block) for block in self.blocks], resamples=resamples, seed=seed, bots=self.bots
        )


def season_blocks(store: LadderStore, season: str) -> SeasonBlocks:
    """The rated blocks of ``season`` and its bots, read from ``store``."""
    results = store.reads.results(season, rated_only=True)
    return SeasonBlocks.of(
        ((index, result.bot, result.rank) for index, result in results),
        (row.bot for row in store.reads.ratings(season)),
    )


def batch_ratings_of(
    store: LadderStore,
    season: str,
    *,
    resamples: int = BATCH_RESAMPLES,
    seed: int = BATCH_SEED,
) -> BatchRatings:
    """The batch ratings of the stored ``season``'s rated blocks: each bot's log-strength with
    its 95% bootstrap interval and its rank probabilities (see
    :mod:`brandeln.ladder.ratings.batch`)."""
    return season_blocks(store, season).fit(resamples=resamples, seed=seed)


def rank_interval(rating: BatchRating) -> tuple[int, int] | None:
    """The ranks the bot took in the middle 95% of the resamples (the first rank reaching 2.5%
    of them, cumulated from the best, to the first reaching 97.5%); None without bootstrap."""
    if not rating.rank_probabilities:
        return None
    low = high = 0
    cumulated = 0.0
    for rank, share in enumerate(rating.rank_probabilities, start=1):
        cumulated += share
        if not low and cumulated > _TAIL + _ROUNDING:
            low = rank
        if cumulated >= 1 - _TAIL - _ROUNDING:
            high = rank
            break
    return low, high or len(rating.rank_probabilities)


def rank_interval_text(rating: BatchRating) -> str:
    """:func:`rank_interval` as ``1``, ``2–4``, or ``-`` without bootstrap."""
    ranks = rank_interval(rating)
    if ranks is None:
        return "-"
    low, high = ranks
    return str(low) if low == high else f"{low}–{high}"


def batch_json(ratings: BatchRatings) -> dict[str, Any]:
    """The batch ratings as JSON-ready data (``ratings --json``, under ``batch``)."""
    return {
        "model": "plackett-luce",
        "blocks": ratings.blocks,
        "resamples": ratings.resamples,
        "seed": ratings.seed,
        "prior_sd": ratings.prior_sd,
        "connected": ratings.connected,
        "unrated": list(ratings.unrated),
        "bots": [
            {
                "rank": rating.rank,
                "bot": rating.bot,
                "strength": rating.strength,
                "strength_ci95": None if rating.low is None else [rating.low, rating.high],
                "p_rank_1": rating.p_first,
                "rank_probabilities": list(rating.rank_probabilities),
                "rank_ci95": _listed(rank_interval(rating)),
                "blocks": rating.blocks,
            }
            for rating in ratings.bots
        ],
    }


def _listed(pair: tuple[int, int] | None) -> list[int] | None:
    return None if pair is None else list(pair)
