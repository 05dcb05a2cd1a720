"""The rules core of the auction (docs/RULES.md R5), on plain ints, shared by the public state and
the fast playouts.

Contracts are referred to by *level*: their position in the ruleset's ladder (0 = lowest);
``NO_BID`` before anyone has bid. ``passed`` is a bitmask of the seats that have passed.

>>> lowest_legal_level(0, holder=0, seat=1, dealer=3, players=4, holds=True)  # T33
1
>>> lowest_legal_level(1, holder=1, seat=0, dealer=3, players=4, holds=True)  # T32
1
>>> next_to_speak(seat=0, passed=0b0110, holder=0, players=4)
3
"""

from __future__ import annotations

from typing import Final

from engine.seats import left_of, seniority

__all__ = ["NO_BID", "lowest_legal_level", "next_to_speak"]

NO_BID: Final = -1


def lowest_legal_level(
    level: int, holder: int | None, seat: int, *, dealer: int, players: int, holds: bool
) -> int:
    """The lowest contract level ``seat`` may bid now (every higher level is legal too).

    R5.3: any contract when nobody has bid; otherwise strictly higher, or equal (a hold) for a
    player senior to the holder, where holds exist (russian has none).
    """
    if holder is None:
        return 0
    if holds and seniority(seat, dealer, players) < seniority(holder, dealer, players):
        return level
    return level + 1


def next_to_speak(seat: int, passed: int, holder: int | None, players: int) -> int | None:
    """The next seat clockwise after ``seat`` that has not passed and does not hold the
    contract (R5.4), or ``None`` when the auction is over (R5.5)."""
    candidate = seat
    for _ in range(players):
        candidate = left_of(candidate, players)
        if not passed >> candidate & 1 and candidate != holder:
            return candidate
    return None
