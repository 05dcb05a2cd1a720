"""Relabelling suits: every rule treats the four suits alike, so a deal with its suits
permuted (and its actions permuted the same way) must end the same way. Used for duplicate
play and for testing that symmetry.

>>> from brandeln.engine.cards import Card, Suit
>>> swap = SuitPermutation([Suit.HEARTS, Suit.SPADES, Suit.CLUBS, Suit.DIAMONDS])
>>> swap.apply_card(Card.parse("CJ")), swap.inverse().apply_card(Card.parse("HJ"))
(Card.parse('HJ'), Card.parse('CJ'))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from brandeln.engine.actions import Action, Bid, NameTrump, PlayCard
from brandeln.engine.cards import CARDS, RANK_COUNT, SUIT_COUNT, Card, CardSet, Suit
from brandeln.engine.dealing import Deal

__all__ = ["SuitPermutation"]

_SUIT_BITS: Final = (1 << RANK_COUNT) - 1
_IDENTITY_IMAGES: Final = tuple(Suit)


class SuitPermutation:
    """A bijection of the suits, given as the images of C S H D (in that order).

    >>> from brandeln.engine.cards import Suit
    >>> SuitPermutation([Suit.CLUBS] * 4)
    Traceback (most recent call last):
    ...
    ValueError: not a permutation of the four suits: C C C C
    """

    __slots__ = ("_images",)

    def __init__(self, images: Iterable[Suit]) -> None:
        suits = tuple(Suit(s) for s in images)
        if len(suits) != SUIT_COUNT or set(suits) != set(Suit):
            letters = " ".join(s.letter for s in suits)
            raise ValueError(f"not a permutation of the four suits: {letters}")
        self._images = suits

    @classmethod
    def identity(cls) -> SuitPermutation:
        """The permutation that changes nothing."""
        return cls(Suit)

    @property
    def images(self) -> tuple[Suit, ...]:
        """The images of C S H D."""
        return self._images

    def apply_suit(self, suit: Suit) -> Suit:
        """The image of ``suit``."""
        return self._images[suit]

    def apply_card(self, card: Card) -> Card:
        """The card of the same rank in the image suit."""
        return CARDS[self._images[card.suit] * RANK_COUNT + card.rank]

    def apply_set(self, cards: CardSet) -> CardSet:
        """Every card of ``cards`` mapped."""
        mask = cards.mask
        mapped = 0
        for suit, image in enumerate(self._images):
            mapped |= (mask >> (suit * RANK_COUNT) & _SUIT_BITS) << (image * RANK_COUNT)
        return CardSet.from_mask(mapped)

    def apply_action(self, action: Action) -> Action:
        """The action with its suit or card mapped (bids have none)."""
        if isinstance(action, PlayCard):
            return PlayCard(self.apply_card(action.card))
        if isinstance(action, NameTrump):
            return NameTrump(self.apply_suit(action.suit))
        assert isinstance(action, Bid)
        return action

    def apply_deal(self, deal: Deal) -> Deal:
        """The deal with every hand and the blind mapped (same dealer and seed)."""
        if self._images == _IDENTITY_IMAGES:
            return deal  # most matches permute nothing, and a Deal is immutable
        return Deal(
            dealer=deal.dealer,
            hands=tuple(self.apply_set(hand) for hand in deal.hands),
            blind=self.apply_set(deal.blind),
            seed=deal.seed,
        )

    def inverse(self) -> SuitPermutation:
        """The permutation that undoes this one."""
        images = [Suit.CLUBS] * SUIT_COUNT
        for suit, image in enumerate(self._images):
            images[image] = Suit(suit)
        return SuitPermutation(images)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SuitPermutation) and self._images == other._images

    def __hash__(self) -> int:
        return hash(self._images)

    def __repr__(self) -> str:
        return f"SuitPermutation({' '.join(s.letter for s in self._images)})"
