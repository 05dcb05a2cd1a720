"""Batch ratings: a season's bots rated from all its blocks at once, whatever their order.

TrueSkill (:mod:`brandeln.ladder.ratings.trueskill_model`) updates block after block, so the same
blocks in another order give other ratings. Batch ratings fit one model to every block together:
Plackett-Luce on each block's ranking, ties by Breslow's approximation, the posterior mode under a
weak Gaussian prior that centres the log-strengths and keeps an unbeaten bot finite
(:mod:`brandeln.ladder.ratings.batch_model` says how), and a bootstrap over blocks for the intervals
and the rank probabilities. Shuffling the blocks changes nothing, to the last bit: they are put in a
canonical order first.

**Why ranks and not chips.** A block's ranking is what the block decides, and it is what
TrueSkill is fed, so the two ratings rest on the same evidence and can be set side by side.
Chips are heavy-tailed (one big contract outweighs many deals), so a Bradley-Terry or
least-squares model on them would be driven by a few deals; ranks cap each block's say.

**Reading a strength.** A strength is a natural log-strength, centred (its mean over the rated
bots is 0). In the model, a bot of strength ``x`` finishes above one of strength ``y`` in a
two-bot block with probability ``1 / (1 + exp(y - x))``: a gap of 1 is 73%, 2 is 88%.

**The bootstrap.** The block is the independent unit (its deals are not: duplicate play), so
each resample draws the season's blocks with replacement (``numpy.random.default_rng(seed)``,
so a seed gives the same figures) and refits, from the full fit's solution. A bot's interval is
the 2.5 and 97.5 percentiles of its resampled strengths; its rank in a resample is 1 + the
number of bots with a greater strength there (to 6 decimals; equal strengths share a rank, as
in a block), and ``rank_probabilities[r - 1]`` is the share of resamples where it ranked ``r``.
A bot absent from a resample has no evidence there and sits at the centre, 0.

**Edge cases.** A block of fewer than two bots compares nothing and is left out (``blocks``
counts the others). A bot that played no block against another bot (named only in ``bots``, or
seen only alone) gets no rating: it is listed in ``unrated``. No such block at all: no ratings.
With fewer than two blocks (or ``resamples=0``) there is no bootstrap: ``resamples`` is 0,
``low`` and ``high`` are None and ``rank_probabilities`` is empty, as
:mod:`brandeln.ladder.ratings.stats` gives no interval for one block. A bot that wins (or loses)
every block is placed by the prior (4.2 above the field after 40 blocks of four), and as every
resample says the same its interval is narrow: read it as "at least". If the bots split into groups
that never met, not even through others, ``connected`` is False: each group is centred on its own,
and strengths compare only within a group.

>>> season = [{"a": 1, "b": 2, "c": 3}, {"a": 1, "c": 2, "b": 3}, {"b": 1, "a": 2, "c": 3},
...           {"a": 1, "b": 2, "c": 2}]
>>> ratings = fit_batch_ratings(season, resamples=200, seed=1)
>>> [(rating.rank, rating.bot, round(rating.strength, 2)) for rating in ratings.bots]
[(1, 'a', 1.09), (2, 'b', -0.34), (3, 'c', -0.75)]
>>> best = ratings.bots[0]
>>> best.low < best.strength < best.high, round(sum(best.rank_probabilities), 6)
(True, 1.0)
>>> fit_batch_ratings(season[:1], bots=["a", "b", "c", "z"]).unrated
('z',)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits

from brandeln.ladder.ratings.batch_model import (
    PRIOR_SD,
    Terms,
    Vector,
    comparison_blocks,
    fit_strengths,
    season_terms,
)
from brandeln.ladder.season.duplicate import BotBlockResult

__all__ = [
    "PRIOR_SD",
    "BatchRating",
    "BatchRatings",
    "blocks_from_results",
    "fit_batch_ratings",
]

_RANK_DECIMALS = 6  # strengths equal to this many decimals share a rank (the fit is good to ~1e-7)


@dataclass(frozen=True, slots=True)
class BatchRating:
    """One bot's batch rating (see the module's docstring for how to read each figure)."""

    bot: str
    strength: float  # centred log-strength at the posterior mode
    low: float | None  # the 95% percentile interval of the bootstrap; None without one
    high: float | None
    rank: int  # by strength, 1 is best; equal strengths share a rank
    rank_probabilities: tuple[float, ...]  # P(rank r) at index r - 1; empty without bootstrap
    blocks: int  # the blocks it played against another bot

    @property
    def p_first(self) -> float | None:
        """The probability of rank 1 over the resamples; None without bootstrap."""
        return self.rank_probabilities[0] if self.rank_probabilities else None


@dataclass(frozen=True, slots=True)
class BatchRatings:
    """A season's batch ratings, best first (by rank, then name)."""

    bots: tuple[BatchRating, ...]
    resamples: int  # bootstrap resamples made (0: none)
    blocks: int  # the blocks fitted: those with two bots or more
    seed: int
    prior_sd: float = PRIOR_SD
    unrated: tuple[str, ...] = ()  # bots without a block against another bot, sorted
    connected: bool = True  # False: groups of bots that never met, each centred on its own

    def rating(self, bot: str) -> BatchRating | None:
        """The rating of ``bot``; None for an unrated or unknown bot."""
        return next((rating for rating in self.bots if rating.bot == bot), None)


def blocks_from_results(results: Iterable[tuple[int, BotBlockResult]]) -> list[dict[str, int]]:
    """The blocks ``{bot: rank}`` of a season's ``(block index, bot result)`` pairs (as
    :meth:`brandeln.ladder.store.reads.ReadModelStore.results` gives them), by block index.

    >>> def played(bot: str, rank: int) -> BotBlockResult:
    ...     return BotBlockResult(bot, rank, 0, 4, False, 0, 0, 0, 0, 0)
    >>> blocks_from_results([(3, played("b", 2)), (0, played("a", 1)), (3, played("a", 1))])
    [{'a': 1}, {'b': 2, 'a': 1}]
    """
    by_block: dict[int, dict[str, int]] = {}
    for index, result in results:
        block = by_block.setdefault(index, {})
        if result.bot in block:
            raise ValueError(f"block {index} holds two results of bot {result.bot!r}")
        block[result.bot] = result.rank
    return [by_block[index] for index in sorted(by_block)]


def fit_batch_ratings(
    blocks: Sequence[Mapping[str, int]],
    *,
    resamples: int = 1000,
    seed: int = 0,
    bots: Iterable[str] = (),
    prior_sd: float = PRIOR_SD,
) -> BatchRatings:
    """The batch ratings of a season's ``blocks``, each ``{bot: rank}`` (1 is best, equal
    ranks are ties; only the order of the ranks matters), with ``resamples`` bootstrap
    resamples drawn from ``seed``. ``bots`` may name bots that did not play (they are listed
    as unrated); ``prior_sd`` is the prior's standard deviation on each log-strength."""
    if resamples < 0:
        raise ValueError(f"resamples must be 0 or more, got {resamples}")
    if not (math.isfinite(prior_sd) and prior_sd > 0):
        raise ValueError(f"prior_sd must be a positive number, got {prior_sd}")
    terms = season_terms(blocks)
    named = set(bots).union(*(block.keys() for block in blocks))
    unrated = tuple(sorted(named - set(terms.bots)))
    done = resamples if terms.blocks >= 2 else 0
    # One BLAS thread: scipy's L-BFGS-B calls into OpenBLAS, whose helper threads spin as long
    # as the fit itself runs on vectors this small (scipy issues 22438 and 23191): two cores
    # busy for one core's work, and much slower beside other work.
    with threadpool_limits(1, user_api="blas"):
        strengths = fit_strengths(terms, terms.weights(), start=terms.zeros(), prior_sd=prior_sd)
        samples = _bootstrap(terms, strengths, done, seed, prior_sd)
    ranks = _ranks(strengths)
    if done:
        low, high = np.percentile(samples, [2.5, 97.5], axis=0)
        sample_ranks = _ranks(samples)
    ratings = [
        BatchRating(
            bot=bot,
            strength=float(strengths[column]),
            low=float(low[column]) if done else None,
            high=float(high[column]) if done else None,
            rank=int(ranks[column]),
            rank_probabilities=_shares(sample_ranks[:, column], len(terms.bots)) if done else (),
            blocks=terms.blocks_played[column],
        )
        for column, bot in enumerate(terms.bots)
    ]
    return BatchRatings(
        bots=tuple(sorted(ratings, key=lambda rating: (rating.rank, rating.bot))),
        resamples=done,
        blocks=terms.blocks,
        seed=seed,
        prior_sd=prior_sd,
        unrated=unrated,
        connected=_connected(comparison_blocks(blocks)),
    )


def _bootstrap(
    terms: Terms, strengths: Vector, resamples: int, seed: int, prior_sd: float
) -> npt.NDArray[np.float64]:
    """The strengths refitted on ``resamples`` resamples of the blocks (one row each)."""
    rng = np.random.default_rng(seed)
    samples = np.empty((resamples, len(terms.bots)))
    for row in range(resamples):
        drawn = rng.integers(0, terms.blocks, size=terms.blocks)
        counts = np.bincount(drawn, minlength=terms.blocks)
        samples[row] = fit_strengths(
            terms, terms.weights(counts), start=strengths, prior_sd=prior_sd
        )
    return samples


def _ranks(strengths: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """Competition ranks along the last axis: 1 + the number of strictly greater strengths."""
    rounded = np.round(strengths, _RANK_DECIMALS)
    above: npt.NDArray[np.intp] = (rounded[..., None, :] > rounded[..., :, None]).sum(axis=-1)
    return 1 + above


def _shares(ranks: npt.NDArray[np.intp], bots: int) -> tuple[float, ...]:
    """The share of each rank 1..bots among ``ranks``."""
    counts = np.bincount(ranks, minlength=bots + 1)[1:]
    return tuple(float(count) / len(ranks) for count in counts)


def _connected(blocks: Iterable[Mapping[str, int]]) -> bool:
    """Whether every bot of ``blocks`` is linked to every other by a chain of shared blocks."""
    groups: list[set[str]] = []
    for block in blocks:
        merged = set(block)
        for group in [group for group in groups if group & merged]:
            merged |= group
            groups.remove(group)
        groups.append(merged)
    return len(groups) <= 1
