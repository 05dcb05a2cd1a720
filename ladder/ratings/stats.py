"""Season statistics: chips per deal with a 95% confidence interval, contracts made.

**The unit of the interval is the block, not the deal.** Inside a duplicate block the same deals
are played once per seat rotation, so a bot's deal results there are not independent (that is
the point of duplicate play: the luck of the cards cancels out across rotations). Blocks use
different seeds and are independent, so a bot's chips per deal is estimated from one sample per
block, ``chips / deals`` of that block, as mean ± 1.96·s/√n over its n blocks (the normal
approximation; it is optimistic for a handful of blocks, and there is no interval for n < 2).

>>> interval = mean_ci95([1.0, 2.0, 3.0])
>>> round(interval.mean, 3), round(interval.half_width or 0, 3), interval.n
(2.0, 1.132, 3)
>>> mean_ci95([4.0]).half_width is None
True
>>> made_percent(bid=8, made=6)
75.0
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from brandeln.ladder.season.duplicate import BotBlockResult

__all__ = [
    "Z_95",
    "MeanInterval",
    "chips_per_deal",
    "chips_per_deal_json",
    "made_percent",
    "mean_ci95",
    "mean_ci95_from_sums",
]

Z_95: Final = 1.96


@dataclass(frozen=True, slots=True)
class MeanInterval:
    """A sample mean and the half width of its 95% interval (None when n < 2)."""

    mean: float
    half_width: float | None
    n: int

    @property
    def low(self) -> float | None:
        return None if self.half_width is None else self.mean - self.half_width

    @property
    def high(self) -> float | None:
        return None if self.half_width is None else self.mean + self.half_width


def mean_ci95(samples: Sequence[float]) -> MeanInterval:
    """Mean ± 1.96·s/√n of ``samples`` (s = the sample standard deviation)."""
    if not samples:
        raise ValueError("no samples")
    mean = statistics.fmean(samples)
    if len(samples) < 2:
        return MeanInterval(mean, None, len(samples))
    return MeanInterval(
        mean, Z_95 * statistics.stdev(samples) / math.sqrt(len(samples)), len(samples)
    )


def mean_ci95_from_sums(n: int, total: float, total_sq: float) -> MeanInterval | None:
    """:func:`mean_ci95` from the samples' count, sum and sum of squares (what the store keeps
    per bot, so a long season's leaderboard reads one row per bot); None for no samples.

    >>> interval = mean_ci95_from_sums(3, 6.0, 14.0)  # the samples 1, 2, 3
    >>> round(interval.mean, 3), round(interval.half_width or 0, 3), interval.n
    (2.0, 1.132, 3)
    """
    if n <= 0:
        return None
    mean = total / n
    if n < 2:
        return MeanInterval(mean, None, n)
    # Rounding can leave a hair below zero for identical samples.
    variance = max(0.0, (total_sq - total * total / n) / (n - 1))
    return MeanInterval(mean, Z_95 * math.sqrt(variance / n), n)


def chips_per_deal(results: Iterable[BotBlockResult]) -> MeanInterval | None:
    """One bot's chips per deal over its blocks (one sample per block); None without deals."""
    samples = [result.chips / result.deals for result in results if result.deals]
    return mean_ci95(samples) if samples else None


def chips_per_deal_json(interval: MeanInterval | None) -> dict[str, Any]:
    """The ``chips_per_deal`` and ``chips_per_deal_ci95`` (``[low, high]``) fields of the JSON
    documents, None where there is no figure or no interval."""
    return {
        "chips_per_deal": None if interval is None else interval.mean,
        "chips_per_deal_ci95": (
            None
            if interval is None or interval.half_width is None
            else [interval.low, interval.high]
        ),
    }


def made_percent(bid: int, made: int) -> float | None:
    """The share of contracts bid that were made, in percent; None when none were bid."""
    return 100.0 * made / bid if bid else None
