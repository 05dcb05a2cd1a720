"""Convert between protocol messages and the card notation ``"HJ"``, without the engine.

A card is a suit letter (``C S H D``) and a rank letter (``A K Q J T 9 8 7``); a suit is its
letter; a bid is its contract id (``"pass"``, ``"brandle"``, ...). A ``Choice``
is written as the one thing it holds, so ``"HJ"`` (a card), ``"H"`` (a trump suit) and
``"brand"`` (a bid) never collide: cards have two characters, suits one, contract ids are
lower-case words.

>>> card_text(parse_card("hj"))
'HJ'
>>> [choice_text(parse_choice(text)) for text in ("brandle", "D", "C7")]
['brandle', 'D', 'C7']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from brandeln.v1 import cards_pb2

SUIT_LETTERS: Final = "CSHD"
"""Suit letters in canonical order C S H D; ``SUIT_LETTERS[suit - 1]`` for a proto ``Suit``."""
RANK_LETTERS: Final = "789TJQKA"
"""Rank letters in natural order 7..A; ``RANK_LETTERS[rank - 1]`` for a proto ``Rank``."""

PASS: Final = "pass"
"""The bid that passes."""


class NotationError(ValueError):
    """Text that does not name a card, suit or choice (the message says what is expected)."""


def suit_letter(suit: cards_pb2.Suit.ValueType) -> str:
    """The letter of a proto suit: ``suit_letter(cards_pb2.SUIT_HEARTS) == "H"``."""
    if not 1 <= suit <= len(SUIT_LETTERS):
        raise NotationError(f"suit value {suit} is not a suit (SUIT_UNSPECIFIED or unknown)")
    return SUIT_LETTERS[suit - 1]


def parse_suit(text: str) -> cards_pb2.Suit.ValueType:
    """The proto suit written ``text`` (one letter of C S H D, case-insensitive).

    >>> parse_suit("h") == cards_pb2.SUIT_HEARTS
    True
    """
    key = text.strip().upper()
    if len(key) != 1 or key not in SUIT_LETTERS:
        raise NotationError(f"{text!r} is not a suit: use one of C S H D")
    return cards_pb2.Suit.ValueType(SUIT_LETTERS.index(key) + 1)


def rank_letter(rank: cards_pb2.Rank.ValueType) -> str:
    """The letter of a proto rank: ``rank_letter(cards_pb2.RANK_TEN) == "T"``."""
    if not 1 <= rank <= len(RANK_LETTERS):
        raise NotationError(f"rank value {rank} is not a rank (RANK_UNSPECIFIED or unknown)")
    return RANK_LETTERS[rank - 1]


def card_text(card: cards_pb2.Card) -> str:
    """The notation of a proto card, e.g. ``"HJ"``."""
    return suit_letter(card.suit) + rank_letter(card.rank)


def parse_card(text: str) -> cards_pb2.Card:
    """The proto card written ``text`` (suit letter + rank letter, case-insensitive)."""
    key = text.strip().upper()
    if len(key) != 2 or key[0] not in SUIT_LETTERS or key[1] not in RANK_LETTERS:
        raise NotationError(
            f"{text!r} is not a card: a suit letter (C S H D) then a rank letter "
            "(A K Q J T 9 8 7), e.g. HJ"
        )
    return cards_pb2.Card(
        suit=cards_pb2.Suit.ValueType(SUIT_LETTERS.index(key[0]) + 1),
        rank=cards_pb2.Rank.ValueType(RANK_LETTERS.index(key[1]) + 1),
    )


def cards_text(cards: Iterable[cards_pb2.Card]) -> list[str]:
    """The notation of several cards, in the order given."""
    return [card_text(card) for card in cards]


def choice_text(choice: cards_pb2.Choice) -> str:
    """A choice as text: the contract id of a bid, the letter of a trump suit, or a card."""
    kind = choice.WhichOneof("kind")
    if kind == "bid":
        return choice.bid.contract
    if kind == "trump":
        return suit_letter(choice.trump)
    if kind == "card":
        return card_text(choice.card)
    raise NotationError("the choice is empty (none of bid, trump, card is set)")


def parse_choice(text: str) -> cards_pb2.Choice:
    """The choice written ``text``: a card (``"HJ"``), a suit (``"H"``) or a bid (``"brand"``)."""
    key = text.strip()
    if len(key) == 2 and key[0].upper() in SUIT_LETTERS and key[1].upper() in RANK_LETTERS:
        return cards_pb2.Choice(card=parse_card(key))
    if len(key) == 1:
        return cards_pb2.Choice(trump=parse_suit(key))
    if not key:
        raise NotationError("an empty string is not a choice")
    return cards_pb2.Choice(bid=cards_pb2.Bid(contract=key))


def bid_choice(contract: str) -> cards_pb2.Choice:
    """The choice that bids ``contract`` (or passes, with ``"pass"``)."""
    return cards_pb2.Choice(bid=cards_pb2.Bid(contract=contract))


def trump_choice(suit: cards_pb2.Suit.ValueType) -> cards_pb2.Choice:
    """The choice that names ``suit`` as trump."""
    return cards_pb2.Choice(trump=suit)


def card_choice(card: cards_pb2.Card) -> cards_pb2.Choice:
    """The choice that plays ``card``."""
    return cards_pb2.Choice(card=card)
