"""What one seat may know about a deal (docs/RULES.md R12.1; docs/PROTOCOL.md ``PlayerView``).

>>> from brandeln.engine.rulesets import find_ruleset
>>> from brandeln.engine.dealing import deal_cards
>>> from brandeln.engine.state import DealState
>>> ruleset = find_ruleset("standard")
>>> view = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=5)).view(0)
>>> view.seat, view.dealer, view.forehand, len(view.hand), view.contract
(0, 3, 0, 7, None)

``hand`` is a set; :meth:`PlayerView.hand_in_order` lists it the way legal lists are sorted
(R12.3), which is what the protocol sends.
"""

from __future__ import annotations

from dataclasses import dataclass

from brandeln.engine.cards import Card, CardSet, Suit
from brandeln.engine.events import BidMade, TrickTaken
from brandeln.engine.rulesets import TrumpOrder
from brandeln.engine.trick_rules import canonical_cards

__all__ = ["PlayerView"]


@dataclass(frozen=True, slots=True)
class PlayerView:
    """Everything ``seat`` may know, and nothing more: never another seat's cards (nor the
    blind) while the deal is live. ``current_trick_leader`` is set during the play only;
    ``deal_payments`` is empty until the deal is settled. ``trump_order`` is the ruleset's order
    inside the trump suit, for :meth:`hand_in_order`.

    The match's balances and the deal's number are not part of a deal's view: the deal does not
    know them. Whoever sends a view to a bot takes them from the match (``MatchState``) and
    passes them alongside (the arena's codec takes them as arguments)."""

    seat: int
    dealer: int
    forehand: int
    hand: CardSet
    auction: tuple[BidMade, ...]
    soloist: int | None
    contract: str | None
    trump: Suit | None
    tricks: tuple[TrickTaken, ...]
    current_trick_leader: int | None
    current_trick: tuple[Card, ...]
    tricks_won: tuple[int, ...]
    deal_payments: tuple[int, ...] = ()
    trump_order: TrumpOrder = TrumpOrder.JACK_SEVEN_FIRST

    def hand_in_order(self) -> list[Card]:
        """The hand in canonical order (R12.3), as legal lists come: by suit C S H D, then low
        to high by this deal's strength, so once trump is named the trump suit goes by R2.2
        (J and 7 last, as the highest); before that, and without trump, the natural order."""
        return canonical_cards(self.hand, self.trump, self.trump_order)
