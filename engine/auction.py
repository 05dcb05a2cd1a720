"""The rules core of the auction (docs/RULES.md R5, R6), on plain ints, shared by the public state
and the fast playouts.

Contracts are referred to by *level*: their position in the ruleset's ladder (0 = lowest);
``NO_BID`` before anyone has bid. ``passed`` is a bitmask of the seats that have passed.
:class:`AuctionState` is the auction so far as a value (``DealState.auction_state``), so that a
playout can carry on from any state's auction without replaying it.

>>> lowest_legal_level(0, holder=0, seat=1, dealer=3, players=4, holds=True)  # T33
1
>>> lowest_legal_level(1, holder=1, seat=0, dealer=3, players=4, holds=True)  # T32
1
>>> next_to_speak(seat=0, passed=0b0110, holder=0, players=4)
3
>>> from brandeln.engine.rulesets import find_ruleset
>>> soloist, contract, passed_out, leader = auction_result(find_ruleset("standard"), None, 0, 3)
>>> soloist, contract.id, passed_out, leader  # R6.1: forehand must play the lowest contract
(0, 'brandle', True, 0)
"""

from __future__ import annotations

from typing import Final, NamedTuple

from brandeln.engine.events import BidMade
from brandeln.engine.rulesets import Contract, PassOut, Ruleset
from brandeln.engine.seats import forehand_of, left_of, seniority

__all__ = [
    "NO_BID",
    "AuctionState",
    "auction_result",
    "lowest_legal_level",
    "next_to_speak",
]

NO_BID: Final = -1


class AuctionState(NamedTuple):
    """The auction so far (R5): who holds the contract at which level, who has passed (a
    bitmask of seats), and every auction action in order."""

    holder: int | None
    level: int
    passed: int
    bids: tuple[BidMade, ...]


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


def auction_result(
    ruleset: Ruleset, holder: int | None, level: int, dealer: int
) -> tuple[int | None, Contract | None, bool, int | None]:
    """``(soloist, contract, passed_out, leader)`` once nobody is left to speak.

    R5.5: the holder plays the contract bid. A pass-out (R6) follows the ruleset's policy:
    Muss-Spiel gives forehand the lowest contract (R6.1); the russian free play has no soloist
    and the dealer leads; otherwise the deal ends unplayed (``leader`` is ``None``). The leader
    of the first trick is the soloist (R8.1), who first names trump in a trump contract (R7.1).
    """
    if holder is not None:
        return holder, ruleset.contracts[level], False, holder
    policy = ruleset.pass_out
    if policy is PassOut.MUSS:
        forehand = forehand_of(dealer, ruleset.players)
        return forehand, ruleset.contracts[0], True, forehand
    if policy is PassOut.FREE_PLAY:
        return None, None, True, dealer
    return None, None, True, None
