"""The deal as OpenSpiel chance nodes: one card at a time, round the rows clockwise from
forehand (the ``three-player`` blind is the last row), as OpenSpiel's ``oh_hell`` and
``bridge`` deal.

Each chance node draws one of the undealt cards with equal probability, so every hand comes
out uniformly at random, as R3.1's shuffle deals them; R3.2's packets decide which deck
position a card comes from, not the distribution, so dealing card by card changes nothing a
player could observe.

>>> from brandeln.engine.rulesets import find_ruleset
>>> plan = DealPlan.of(find_ruleset("standard"), dealer=3)
>>> plan.seat_of_row, [plan.row_of(position) for position in range(6)]
((0, 1, 2, 3), [0, 1, 2, 3, 0, 1])
>>> deal = plan.deal_of(plan.rows_of(plan.deck))  # the deck in order: card k to row k mod 4
>>> [len(hand) for hand in deal.hands], deal.dealer
([7, 7, 7, 7], 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from brandeln.engine.cards import CardSet
from brandeln.engine.dealing import Deal, trusted_card_set
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.seats import seat_at_distance

__all__ = ["BLIND", "DealPlan", "pack_card", "unpack_cards"]

BLIND = -1
"""The seat of the ``three-player`` blind row, which no player holds."""

_NO_CARDS = CardSet()
_CARD_BITS = 5  # a card index (0-31) in 5 bits
_ONE_CARD = (1 << _CARD_BITS) - 1


def pack_card(packed: int, card: int) -> int:
    """The cards dealt so far as one int, ``card`` appended: a chance node adds a card by one
    shift where a tuple would be copied whole.

    >>> unpack_cards(pack_card(pack_card(0, 20), 7), 2)
    [20, 7]
    """
    return packed << _CARD_BITS | card


def unpack_cards(packed: int, dealt: int) -> list[int]:
    """The ``dealt`` cards of ``packed`` in the order dealt."""
    return [packed >> _CARD_BITS * (dealt - 1 - at) & _ONE_CARD for at in range(dealt)]


@dataclass(frozen=True, slots=True)
class DealPlan:
    """How one game deals: the deck (card indices, ascending) and the seat of each row."""

    ruleset: Ruleset
    dealer: int
    deck: tuple[int, ...]
    seat_of_row: tuple[int, ...]

    @staticmethod
    def of(ruleset: Ruleset, dealer: int) -> DealPlan:
        """The plan of a deal of ``ruleset`` dealt by ``dealer``."""
        players = ruleset.players
        seats = [seat_at_distance(dealer, row, players) for row in range(players)]
        seats += [BLIND] * (ruleset.deal_rows - players)
        deck = tuple(card.index for card in ruleset.deck())
        return DealPlan(ruleset, dealer, deck, tuple(seats))

    @property
    def rows(self) -> int:
        """How many rows are dealt (the seats, and the blind in ``three-player``)."""
        return len(self.seat_of_row)

    def row_of(self, position: int) -> int:
        """The row the ``position``-th card dealt goes to."""
        return position % len(self.seat_of_row)

    def row_of_seat(self, seat: int) -> int:
        """The row ``seat`` is dealt."""
        return self.seat_of_row.index(seat)

    def rows_of_packed(self, packed: int, dealt: int) -> tuple[int, ...]:
        """:meth:`rows_of` the first ``dealt`` cards packed by :func:`pack_card`."""
        return self.rows_of(unpack_cards(packed, dealt))

    def rows_of(self, cards: Sequence[int]) -> tuple[int, ...]:
        """The mask of each row once ``cards`` are dealt, in that order."""
        rows = self.rows
        masks = [0] * rows
        for position, card in enumerate(cards):
            masks[position % rows] |= 1 << card
        return tuple(masks)

    def deal_of(self, rows: Sequence[int]) -> Deal:
        """The engine's deal once every card is out: ``rows[r]`` is the mask of row ``r``."""
        hands = [_NO_CARDS] * self.ruleset.players
        blind = _NO_CARDS
        for seat, mask in zip(self.seat_of_row, rows, strict=True):
            if seat == BLIND:
                blind = trusted_card_set(mask)
            else:
                hands[seat] = trusted_card_set(mask)
        return Deal(dealer=self.dealer, hands=tuple(hands), blind=blind)

    def order_of(self, rows: Sequence[Sequence[int]]) -> list[int]:
        """The cards in the order dealt when row ``r`` receives ``rows[r]``, in that order (the
        inverse of :meth:`deal_of`)."""
        taken = [0] * self.rows
        order = []
        for position in range(sum(len(row) for row in rows)):
            row = position % self.rows
            order.append(rows[row][taken[row]])
            taken[row] += 1
        return order
