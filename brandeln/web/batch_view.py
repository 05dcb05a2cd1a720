"""The batch ratings on a season's leaderboard page: each bot's Plackett-Luce strength with its
95% interval, P(rank 1) and its rank probabilities drawn as a row of bars.

The figures are :func:`brandeln.ladder.ratings.season_batch.batch_ratings_of`'s, the same as
``brandeln ratings`` prints. A fit takes a few tenths of a second on a long season, so the app keeps
the fits of the last seasons it showed, keyed by the blocks themselves: a season that records a
block has other blocks, hence a fit of its own, and two stores with the same blocks share one.

The bars are an inline SVG (each rect's size in attributes: the pages' CSP allows no style
attribute), one bar per rank, its height the share of the resamples that put the bot there.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final

from brandeln.ladder.ratings.batch import BatchRating, BatchRatings
from brandeln.ladder.ratings.season_batch import SeasonBlocks, rank_interval_text, season_blocks
from brandeln.web.stores import Stores

__all__ = ["BAR_HEIGHT", "BatchRow", "BatchView", "RankBar", "batch_view"]

BAR_WIDTH: Final = 8  # px, each rank's bar
BAR_GAP: Final = 2
BAR_HEIGHT: Final = 24  # px, a share of 1
_FITS_KEPT: Final = 16


@dataclass(frozen=True, slots=True)
class RankBar:
    """One rank's bar: where it stands in the SVG and what its tooltip says."""

    rank: int
    share: float
    x: int
    y: float
    height: float

    @property
    def percent(self) -> str:
        return f"{100 * self.share:.1f}%"


@dataclass(frozen=True, slots=True)
class BatchRow:
    """One bot's batch figures as the leaderboard's row shows them."""

    rating: BatchRating
    bars: tuple[RankBar, ...]

    @property
    def ranks_text(self) -> str:
        """The ranks it took in the middle 95% of the resamples."""
        return rank_interval_text(self.rating)

    @property
    def summary(self) -> str:
        """Every rank's share in words (the chart's accessible name)."""
        return ", ".join(f"rank {bar.rank} {bar.percent}" for bar in self.bars)


@dataclass(frozen=True, slots=True)
class BatchView:
    ratings: BatchRatings
    rows: dict[str, BatchRow]  # by bot
    chart_width: int
    bar_width: int = BAR_WIDTH
    bar_height: int = BAR_HEIGHT

    def row(self, bot: str) -> BatchRow | None:
        return self.rows.get(bot)


def batch_view(stores: Stores, season: str) -> BatchView | None:
    """The batch ratings of ``season``'s rated blocks; None without a ladder store."""
    if stores.ladder is None:
        return None
    ratings = _fit(season_blocks(stores.ladder, season))
    bots = len(ratings.bots)
    rows = {bot.bot: BatchRow(bot, _bars(bot)) for bot in ratings.bots}
    return BatchView(ratings, rows, max(bots * (BAR_WIDTH + BAR_GAP) - BAR_GAP, 0))


@functools.lru_cache(maxsize=_FITS_KEPT)
def _fit(blocks: SeasonBlocks) -> BatchRatings:
    """The fit of ``blocks`` (a pure function of them: the cache is keyed by content)."""
    return blocks.fit()


def _bars(rating: BatchRating) -> tuple[RankBar, ...]:
    bars = []
    for rank, share in enumerate(rating.rank_probabilities, start=1):
        height = round(BAR_HEIGHT * share, 2)
        x = (rank - 1) * (BAR_WIDTH + BAR_GAP)
        bars.append(RankBar(rank, share, x, round(BAR_HEIGHT - height, 2), height))
    return tuple(bars)
