"""What an always-on ladder has done since it started
(:class:`brandeln.ladder.living.ladder.LivingLadder`), in plain numbers: the ladder adds to them as
it plays, and its metrics endpoint (:mod:`brandeln.services.metrics.ladder`) reads them from another
thread when Prometheus scrapes. A recorded block changes three numbers at once, under a lock that
the scrape's :meth:`LadderCounts.blocks` takes too, so the histogram's count always equals the
blocks counted (a lock is no cost here: a block takes seconds).
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Final

__all__ = ["BLOCK_SECONDS_BUCKETS", "LadderCounts"]

# A block is 4 (or 3) matches of a few deals: from seconds (fast bots, few deals) to many
# minutes (slow bots, long russian matches).
BLOCK_SECONDS_BUCKETS: Final = (1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)


@dataclass
class LadderCounts:
    """Counters of one ladder run (a restart starts them at zero, as Prometheus expects)."""

    blocks_rated: int = 0
    blocks_unrated: int = 0  # unrated challenges
    blocks_given_back: int = 0
    challenges_played: int = 0
    challenges_refused: int = 0
    waits: int = 0  # looks that found too few versions connected
    errors: int = 0  # a look or a block the store failed (the ladder goes on)
    versions_active: int = 0  # as of the last look at the referee
    versions_connected: int = 0  # idle or playing, as of the last look
    in_flight: int = 0  # blocks being played now
    block_buckets: list[int] = field(default_factory=lambda: [0] * (len(BLOCK_SECONDS_BUCKETS) + 1))
    block_seconds: float = 0.0  # the sum of the recorded blocks' durations
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def block_played(self, seconds: float, *, rated: bool) -> None:
        """A block recorded, ``seconds`` after it was planned."""
        with self._lock:
            if rated:
                self.blocks_rated += 1
            else:
                self.blocks_unrated += 1
            self.block_buckets[bisect_left(BLOCK_SECONDS_BUCKETS, seconds)] += 1
            self.block_seconds += seconds

    def blocks(self) -> tuple[int, int, list[int], float]:
        """Rated and unrated blocks, the duration buckets and their sum, as of one moment."""
        with self._lock:
            return (
                self.blocks_rated,
                self.blocks_unrated,
                self.block_buckets.copy(),
                self.block_seconds,
            )
