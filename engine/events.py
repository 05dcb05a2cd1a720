"""The public events of a deal: what every seat is told, in order (docs/PROTOCOL.md, events).

``DealState.step(action)`` returns the events an action caused; the referee maps them one to
one to protocol messages.

>>> from brandeln.engine.cards import Card
>>> str(CardPlayed(seat=2, card=Card.parse("HJ")))
'seat 2 plays HJ'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from brandeln.engine.actions import Bid
from brandeln.engine.cards import Card, Suit, format_cards
from brandeln.engine.outcome import DealOutcome

__all__ = [
    "BidMade",
    "CardPlayed",
    "ContractSet",
    "DealEnded",
    "Event",
    "TrickTaken",
    "TrumpNamed",
]


@dataclass(frozen=True, slots=True)
class BidMade:
    """``seat`` passed or bid in the auction."""

    seat: int
    bid: Bid

    def __str__(self) -> str:
        return f"seat {self.seat} bids {self.bid}"


@dataclass(frozen=True, slots=True)
class ContractSet:
    """The auction's result. After a pass-out ``passed_out`` is true; the soloist is then
    forehand (Muss-Spiel, R6.1) or ``None`` (Haferl, thrown in, russian free play)."""

    soloist: int | None
    contract: str | None
    passed_out: bool

    def __str__(self) -> str:
        if self.soloist is None:
            return "all passed: no soloist"
        prefix = "all passed: " if self.passed_out else ""
        return f"{prefix}seat {self.soloist} plays {self.contract}"


@dataclass(frozen=True, slots=True)
class TrumpNamed:
    """The soloist named ``suit`` trumps (R7.1)."""

    suit: Suit

    def __str__(self) -> str:
        return f"trump {self.suit.letter}"


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """``seat`` played ``card``."""

    seat: int
    card: Card

    def __str__(self) -> str:
        return f"seat {self.seat} plays {self.card}"


@dataclass(frozen=True, slots=True)
class TrickTaken:
    """Trick ``trick_number`` (1-based), led by ``leader``, ``cards`` in play order, went to
    ``winner`` (R8.4)."""

    trick_number: int
    leader: int
    cards: tuple[Card, ...]
    winner: int

    def __str__(self) -> str:
        return (
            f"trick {self.trick_number} ({format_cards(self.cards)}, led by seat {self.leader})"
            f" to seat {self.winner}"
        )


@dataclass(frozen=True, slots=True)
class DealEnded(DealOutcome):
    """The deal is over; the fields are those of :class:`DealOutcome` (hands now revealed)."""

    @classmethod
    def of(cls, outcome: DealOutcome) -> DealEnded:
        """The event announcing ``outcome``."""
        return cls(
            dealer=outcome.dealer,
            soloist=outcome.soloist,
            contract=outcome.contract,
            trump=outcome.trump,
            passed_out=outcome.passed_out,
            tricks_won=outcome.tricks_won,
            made=outcome.made,
            payments=outcome.payments,
            pool_delta=outcome.pool_delta,
            unplayed=outcome.unplayed,
            hands=outcome.hands,
            blind=outcome.blind,
        )

    def __str__(self) -> str:
        return f"deal ended: payments {list(self.payments)}"


Event: TypeAlias = BidMade | ContractSet | TrumpNamed | CardPlayed | TrickTaken | DealEnded
