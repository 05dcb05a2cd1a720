"""Card strength and trick winners, without the engine (docs/RULES.md R2 and R8.4).

Bots often need to know which card is winning the current trick. The rules are small enough
to restate here so a bot needs only the protocol stubs:

- in the trump suit the order is **J 7 A K Q T 9** (R2.2), except in the Russian rulesets, which
  keep the natural order A K Q J T 9 (8) 7 in every suit;
- every other suit, and every suit of a no-trump contract, goes A K Q J T 9 (8) 7 (R2.3);
- any trump beats any non-trump; a card of neither trump nor the led suit never wins (R2.5).

"Low to high" in the protocol's lists (legal choices, and the view's hand once trump is named)
means by this strength: :meth:`TrickRules.in_order` sorts cards that way and
:meth:`TrickRules.strength_table` numbers each card's place in its suit.

>>> from brandeln.sdk.notation import cards_text, parse_card
>>> spades = TrickRules(trump=cards_pb2.SUIT_SPADES)
>>> cards_text(spades.in_order(parse_card(c) for c in "C9 CA S7 S9 SJ HJ HQ".split()))
['C9', 'CA', 'S9', 'S7', 'SJ', 'HJ', 'HQ']
>>> rules = TrickRules(trump=cards_pb2.SUIT_HEARTS)
>>> trick = [parse_card(c) for c in ("HA", "H7", "HJ", "HK")]
>>> trick_winner(trick, rules)
2
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from brandeln.sdk.notation import card_text
from brandeln.v1 import cards_pb2

_TRUMP_BONUS = 100
_LED_BONUS = 50


def natural_strength(rank: cards_pb2.Rank.ValueType) -> int:
    """The natural order 7 < 8 < 9 < T < J < Q < K < A as numbers 1..8 (the proto values)."""
    return int(rank)


def trump_strength(rank: cards_pb2.Rank.ValueType, jack_seven_on_top: bool = True) -> int:
    """A trump's strength: J above 7 above A K Q T 9 (8) when ``jack_seven_on_top`` (R2.2)."""
    if jack_seven_on_top:
        if rank == cards_pb2.RANK_JACK:
            return 20
        if rank == cards_pb2.RANK_SEVEN:
            return 19
    return int(rank)


@dataclass(frozen=True)
class TrickRules:
    """What decides a trick: the trump suit (``SUIT_UNSPECIFIED`` for none) and its order."""

    trump: cards_pb2.Suit.ValueType = cards_pb2.SUIT_UNSPECIFIED
    jack_seven_on_top: bool = True

    @staticmethod
    def for_deal(ruleset: cards_pb2.Ruleset | None, trump: cards_pb2.Suit.ValueType) -> TrickRules:
        """The rules of a deal of ``ruleset`` with ``trump`` (the view's ``trump`` field)."""
        if ruleset is None:
            return TrickRules(trump=trump)
        # The referee sends the order as option "trump_order"; older ones only the id.
        order = ruleset.options.get("trump_order")
        natural = order == "natural" if order else ruleset.id.startswith("russian")
        return TrickRules(trump=trump, jack_seven_on_top=not natural)

    def is_trump(self, card: cards_pb2.Card) -> bool:
        """Whether ``card`` is a trump in this deal."""
        return self.trump != cards_pb2.SUIT_UNSPECIFIED and card.suit == self.trump

    def rank_strength(self, card: cards_pb2.Card) -> int:
        """The card's strength within its own suit (trump order for trumps)."""
        if self.is_trump(card):
            return trump_strength(card.rank, self.jack_seven_on_top)
        return natural_strength(card.rank)

    def strength(self, card: cards_pb2.Card, led_suit: cards_pb2.Suit.ValueType) -> int:
        """The card's power in a trick led with ``led_suit``: 0 when it cannot win (R2.5)."""
        if self.is_trump(card):
            return _TRUMP_BONUS + self.rank_strength(card)
        if card.suit == led_suit:
            return _LED_BONUS + self.rank_strength(card)
        return 0

    def in_order(self, cards: Iterable[cards_pb2.Card]) -> list[cards_pb2.Card]:
        """``cards`` in the referee's canonical order (R12.3), as legal lists come: by suit
        C S H D, then low to high by strength in this deal (so with spades trump under the
        standard order: S9 ST SQ SK SA S7 SJ)."""
        return sorted(cards, key=lambda card: (card.suit, self.rank_strength(card)))

    def strength_table(self, deck: Iterable[cards_pb2.Card]) -> dict[str, int]:
        """Each card of ``deck`` (e.g. ``situation.deck(ruleset)``) by notation, numbered by
        its place in its suit in this deal: 1 for the lowest, up to 7 (8 in a 32-card pack).
        Compare numbers within a suit; any trump beats any non-trump whatever the number.

        >>> from brandeln.sdk.notation import parse_card
        >>> table = TrickRules(trump=cards_pb2.SUIT_HEARTS).strength_table(
        ...     [parse_card(c) for c in ("HA", "HJ", "H7", "H9", "CA", "C7")])
        >>> table["HJ"], table["H7"], table["HA"], table["H9"], table["CA"], table["C7"]
        (4, 3, 2, 1, 2, 1)
        """
        table: dict[str, int] = {}
        place: dict[int, int] = {}
        for card in self.in_order(deck):
            place[card.suit] = place.get(card.suit, 0) + 1
            table[card_text(card)] = place[card.suit]
        return table

    def beats(self, card: cards_pb2.Card, winning: cards_pb2.Card) -> bool:
        """Whether ``card`` beats the card now winning a trick (the led suit is ``winning``'s
        suit when it does not trump, and a trump's otherwise)."""
        return self.strength(card, winning.suit) > self.strength(winning, winning.suit)


def trick_winner(cards: Sequence[cards_pb2.Card], rules: TrickRules) -> int:
    """The index in ``cards`` (play order, leader first) of the card winning the trick so far."""
    if not cards:
        raise ValueError("an empty trick has no winner")
    led = cards[0].suit
    best = 0
    for index in range(1, len(cards)):
        if rules.strength(cards[index], led) > rules.strength(cards[best], led):
            best = index
    return best
