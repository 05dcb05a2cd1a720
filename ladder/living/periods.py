"""An always-on ladder's seed periods: every ``period_blocks`` planned blocks deal from a seed
of their own, drawn and committed (:mod:`brandeln.ladder.season.commitment`) when the period's first
block is planned, before any of its blocks is played, and read out once all its blocks are recorded.
A ladder has no end to reveal a seed at; a period does. The store keeps them
(:mod:`brandeln.ladder.store.periods`); a block's deal seed is ``block_seed(period seed, index)``.

>>> period = SeedPeriod(2, first_block=200, blocks=100, recorded=100,
...     commitment=Commitment("ab" * 32, "{}", SeedState.REVEALED, 0, "00" * 32))
>>> period.last_block, period.holds(299), period.holds(300), period.complete
(299, True, False, True)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from brandeln.ladder.season.commitment import Commitment, SeedState

__all__ = ["DEFAULT_PERIOD_BLOCKS", "SeedPeriod", "announce_period"]

DEFAULT_PERIOD_BLOCKS: Final = 100
"""Blocks per period: a seed is read out this often, and a bot could know the deals of the
period's recorded blocks only once the period is over."""

log = logging.getLogger("brandeln.ladder.living")


@dataclass(frozen=True, slots=True)
class SeedPeriod:
    """A period of a ladder: its blocks (``first_block`` on, ``blocks`` of them), how many of
    them are recorded, and its committed seed (read out once ``complete``)."""

    period: int
    first_block: int
    blocks: int
    recorded: int
    commitment: Commitment

    @property
    def last_block(self) -> int:
        return self.first_block + self.blocks - 1

    @property
    def complete(self) -> bool:
        """Every block of it is recorded: its seed is revealed."""
        return self.recorded >= self.blocks

    def holds(self, index: int) -> bool:
        return self.first_block <= index <= self.last_block

    @property
    def revealed(self) -> bool:
        return self.commitment.state is SeedState.REVEALED


def announce_period(
    period_of_block: Callable[[str, int], SeedPeriod | None], ladder: str, index: int
) -> SeedPeriod | None:
    """Log the commitment of the period block ``index`` opens (just planned, not yet played),
    found by ``period_of_block`` (the store's); None (and nothing logged) when the block is
    not a period's first."""
    period = period_of_block(ladder, index)
    if period is None or period.first_block != index:
        return None
    log.info(
        "period %d committed (blocks %d-%d): %s",
        period.period,
        period.first_block,
        period.last_block,
        period.commitment.digest,
        extra={
            "event": "ladder_period_committed",
            "period": period.period,
            "first_block": period.first_block,
            "blocks": period.blocks,
            "commitment": period.commitment.digest,
        },
    )
    return period
