"""The phases of a deal: auction (R5), naming trump (R7), play (R8), done (R9).

>>> [phase.name for phase in Phase]
['AUCTION', 'TRUMP', 'PLAY', 'DONE']
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Phase"]


class Phase(Enum):
    """Where a deal stands; ``DealState.phase`` holds one."""

    AUCTION = "auction"
    TRUMP = "trump"
    PLAY = "play"
    DONE = "done"

    @property
    def noun(self) -> str:
        """How an error message names the phase: "the auction", "the play"."""
        return _NOUNS[self]


_NOUNS = {
    Phase.AUCTION: "the auction",
    Phase.TRUMP: "the naming of trump",
    Phase.PLAY: "the play",
    Phase.DONE: "over",
}
