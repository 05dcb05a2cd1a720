"""Cards, card notation and card sets.

A card is written suit letter + rank letter (docs/RULES.md, preamble): suits ``C S H D``, ranks
``A K Q J T 9 8 7``. A :class:`Card` has no ordering, because its strength depends on the trump
suit and the led suit (see :mod:`brandeln.engine.trick_rules`). A :class:`CardSet` is an immutable
set of cards stored as a 32-bit mask, bit ``card.index`` = ``suit * 8 + rank``.

>>> card = Card.parse("HJ")
>>> card.suit, card.rank, card.index
(<Suit.HEARTS: 2>, <Rank.JACK: 4>, 20)
>>> card is Card(Suit.HEARTS, Rank.JACK)
True
>>> hand = CardSet(parse_cards("HJ H7 CA"))
>>> str(hand), len(hand), Card.parse("CA") in hand
('CA H7 HJ', 3, True)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from enum import IntEnum
from typing import Final

from brandeln.engine.errors import CardParseError

__all__ = [
    "CARDS",
    "CARD_COUNT",
    "DECK_28",
    "FULL_DECK_32",
    "RANKS_28",
    "RANKS_32",
    "RANK_COUNT",
    "SUIT_COUNT",
    "SUIT_MASKS",
    "Card",
    "CardParseError",
    "CardSet",
    "Rank",
    "Suit",
    "deck_of",
    "format_cards",
    "parse_card",
    "parse_cards",
]

SUIT_COUNT: Final = 4
RANK_COUNT: Final = 8  # ranks 7..A of the 32-card pack; the 28-card pack leaves the 8s out
CARD_COUNT: Final = SUIT_COUNT * RANK_COUNT
_SUIT_BITS: Final = (1 << RANK_COUNT) - 1  # the mask of one suit's eight cards at bit 0


class Suit(IntEnum):
    """The four suits in canonical order C S H D (docs/RULES.md R12.3)."""

    CLUBS = 0
    SPADES = 1
    HEARTS = 2
    DIAMONDS = 3

    @property
    def letter(self) -> str:
        """The notation letter: ``Suit.HEARTS.letter == "H"``."""
        return _SUIT_LETTERS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """The suit for a letter (``"H"``) or a name (``"hearts"``), case-insensitive.

        >>> Suit.parse("h"), Suit.parse("Clubs")
        (<Suit.HEARTS: 2>, <Suit.CLUBS: 0>)
        """
        key = text.strip().upper()
        if key in _SUIT_LETTERS:
            return cls(_SUIT_LETTERS.index(key))
        if key in cls.__members__:
            return cls[key]
        raise CardParseError(
            f"{text!r} is not a suit: use one of {' '.join(_SUIT_LETTERS)} "
            "(clubs, spades, hearts, diamonds)"
        )


class Rank(IntEnum):
    """The eight ranks, numbered in natural order 7 < 8 < ... < A (R2.3)."""

    SEVEN = 0
    EIGHT = 1
    NINE = 2
    TEN = 3
    JACK = 4
    QUEEN = 5
    KING = 6
    ACE = 7

    @property
    def letter(self) -> str:
        """The notation letter: ``Rank.TEN.letter == "T"``."""
        return _RANK_LETTERS[self]


_SUIT_LETTERS: Final = ("C", "S", "H", "D")
_RANK_LETTERS: Final = ("7", "8", "9", "T", "J", "Q", "K", "A")
_NOTATION_HELP: Final = (
    "a card is a suit letter (C S H D) followed by a rank letter (A K Q J T 9 8 7), e.g. HJ"
)


class Card:
    """One playing card; the 32 instances are interned, so ``is`` and ``==`` agree.

    >>> Card(Suit.CLUBS, Rank.TEN)
    Card.parse('CT')
    >>> str(Card.parse("ct")), Card.parse("CT").index
    ('CT', 3)
    """

    __slots__ = ("index", "rank", "suit")

    suit: Suit
    rank: Rank
    index: int

    def __new__(cls, suit: Suit, rank: Rank) -> Card:
        suit_number, rank_number = int(suit), int(rank)
        if not (0 <= suit_number < SUIT_COUNT and 0 <= rank_number < RANK_COUNT):
            raise ValueError(f"no card with suit {suit!r} and rank {rank!r}")
        index = suit_number * RANK_COUNT + rank_number
        if index < len(_INTERNED):
            return _INTERNED[index]
        # Only reached while the module builds the interned table below.
        card = super().__new__(cls)
        object.__setattr__(card, "suit", Suit(suit_number))
        object.__setattr__(card, "rank", Rank(rank_number))
        object.__setattr__(card, "index", index)
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Card is immutable")

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return self is other

    def __str__(self) -> str:
        return _NAMES[self.index]

    def __repr__(self) -> str:
        return f"Card.parse('{_NAMES[self.index]}')"

    def __reduce__(self) -> tuple[type[Card], tuple[Suit, Rank]]:
        # Unpickling goes through __new__, which returns the interned instance.
        return (Card, (self.suit, self.rank))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    @property
    def bit(self) -> int:
        """This card's bit in a :class:`CardSet` mask."""
        return 1 << self.index

    @staticmethod
    def parse(text: str) -> Card:
        """The card written ``text`` (case-insensitive), e.g. ``Card.parse("HJ")``."""
        return parse_card(text)

    @staticmethod
    def from_index(index: int) -> Card:
        """The card with ``index`` = suit * 8 + rank (0..31)."""
        if not 0 <= index < CARD_COUNT:
            raise ValueError(f"card index {index} is outside 0..{CARD_COUNT - 1}")
        return CARDS[index]


_NAMES: Final = tuple(s + r for s in _SUIT_LETTERS for r in _RANK_LETTERS)
_INTERNED: list[Card] = []
_INTERNED.extend(Card(Suit(i // RANK_COUNT), Rank(i % RANK_COUNT)) for i in range(CARD_COUNT))
CARDS: Final[tuple[Card, ...]] = tuple(_INTERNED)
"""All 32 cards, indexed by ``card.index``."""
_BY_NAME: Final = {name: CARDS[i] for i, name in enumerate(_NAMES)}
_TOKEN_SPLIT: Final = re.compile(r"[\s,]+")

SUIT_MASKS: Final[tuple[int, ...]] = tuple(
    _SUIT_BITS << (suit * RANK_COUNT) for suit in range(SUIT_COUNT)
)
"""The mask of every card of a suit, indexed by suit."""


def parse_card(text: str) -> Card:
    """The card written ``text``: suit letter + rank letter, case-insensitive.

    >>> parse_card("sa")
    Card.parse('SA')
    """
    card = _BY_NAME.get(text.strip().upper())
    if card is None:
        raise CardParseError(f"{text!r} is not a card: {_NOTATION_HELP}")
    return card


def parse_cards(text: str) -> list[Card]:
    """The cards in ``text``, separated by whitespace and/or commas, in the order written.

    >>> parse_cards("HJ H7, CA")
    [Card.parse('HJ'), Card.parse('H7'), Card.parse('CA')]
    >>> parse_cards("  ")
    []
    """
    return [parse_card(token) for token in _TOKEN_SPLIT.split(text.strip()) if token]


def format_cards(cards: Iterable[Card]) -> str:
    """The cards in notation, space-separated, in the order given.

    >>> format_cards(parse_cards("HJ,CA"))
    'HJ CA'
    """
    return " ".join(_NAMES[card.index] for card in cards)


class CardSet:
    """An immutable set of cards, stored as a bitmask (bit ``card.index``).

    Iteration is in ascending index order (suits C S H D, then 7 up to A).

    >>> a = CardSet(parse_cards("HJ CA"))
    >>> b = CardSet.from_mask(Card.parse("CA").bit)
    >>> str(a - b), str(a & b), len(a | b), bool(CardSet())
    ('HJ', 'CA', 2, False)
    >>> str(a.of_suit(Suit.HEARTS))
    'HJ'
    """

    __slots__ = ("mask",)

    mask: int

    def __init__(self, cards: Iterable[Card] = ()) -> None:
        mask = 0
        for card in cards:
            mask |= 1 << card.index
        object.__setattr__(self, "mask", mask)

    @classmethod
    def from_mask(cls, mask: int) -> CardSet:
        """The set whose bits are ``mask`` (only bits 0..31 may be set)."""
        if mask < 0 or mask >> CARD_COUNT:
            raise ValueError(f"card mask {mask:#x} has bits outside 0..{CARD_COUNT - 1}")
        cardset = object.__new__(cls)
        object.__setattr__(cardset, "mask", mask)
        return cardset

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("CardSet is immutable")

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (CardSet.from_mask, (self.mask,))

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and bool(self.mask >> card.index & 1)

    def __iter__(self) -> Iterator[Card]:
        mask = self.mask
        while mask:
            low = mask & -mask
            yield CARDS[low.bit_length() - 1]
            mask ^= low

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return bool(self.mask)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask & ~other.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and self.mask == other.mask

    def __hash__(self) -> int:
        return hash(("CardSet", self.mask))

    def __str__(self) -> str:
        return format_cards(self)

    def __repr__(self) -> str:
        return f"CardSet(parse_cards('{self}'))"

    def of_suit(self, suit: Suit) -> CardSet:
        """The cards of ``suit`` in this set."""
        return CardSet.from_mask(self.mask & SUIT_MASKS[suit])

    def isdisjoint(self, other: CardSet) -> bool:
        """True when the two sets share no card."""
        return not self.mask & other.mask

    def issubset(self, other: CardSet) -> bool:
        """True when every card of this set is in ``other``."""
        return not self.mask & ~other.mask


RANKS_32: Final[tuple[Rank, ...]] = tuple(Rank)
RANKS_28: Final[tuple[Rank, ...]] = tuple(r for r in Rank if r is not Rank.EIGHT)  # R2.1


def deck_of(ranks: Iterable[Rank]) -> CardSet:
    """The deck holding every suit in ``ranks`` (a ruleset's deck: ``ruleset.deck()``).

    >>> len(deck_of(RANKS_28)), len(deck_of(RANKS_32))
    (28, 32)
    """
    rank_bits = 0
    for rank in ranks:
        rank_bits |= 1 << rank
    return CardSet.from_mask(sum(rank_bits << (s * RANK_COUNT) for s in range(SUIT_COUNT)))


FULL_DECK_32: Final = deck_of(RANKS_32)
DECK_28: Final = deck_of(RANKS_28)
