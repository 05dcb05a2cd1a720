"""The three kinds of action a seat can take: a bid, naming trump, playing a card.

>>> str(PASS), str(Bid("brand")), str(NameTrump(Suit.HEARTS)), str(PlayCard(Card.parse("HJ")))
('pass', 'brand', 'trump H', 'HJ')
>>> parse_action("trump h"), parse_action("CA", Phase.PLAY)
(NameTrump(suit=<Suit.HEARTS: 2>), PlayCard(card=Card.parse('CA')))
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, TypeAlias

from brandeln.engine.cards import CARDS, Card, Suit
from brandeln.engine.errors import ActionParseError, CardParseError
from brandeln.engine.phase import Phase

__all__ = [
    "NAME_TRUMPS",
    "PASS",
    "PASS_ID",
    "PLAY_CARDS",
    "Action",
    "ActionParseError",
    "Bid",
    "NameTrump",
    "PlayCard",
    "parse_action",
]

PASS_ID: Final = "pass"


@dataclass(frozen=True, slots=True)
class Bid:
    """An auction action: a contract id of the ruleset, or ``"pass"`` (R5.1)."""

    contract: str

    @property
    def is_pass(self) -> bool:
        """True for the pass."""
        return self.contract == PASS_ID

    def __str__(self) -> str:
        return self.contract


PASS: Final = Bid(PASS_ID)
"""The pass (R5.2: final for the deal)."""


@dataclass(frozen=True, slots=True)
class NameTrump:
    """The soloist names the trump suit (R7.1)."""

    suit: Suit

    def __str__(self) -> str:
        return f"trump {self.suit.letter}"


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play a card to the current trick (R8)."""

    card: Card

    def __str__(self) -> str:
        return str(self.card)


Action: TypeAlias = Bid | NameTrump | PlayCard

PLAY_CARDS: Final[tuple[PlayCard, ...]] = tuple(PlayCard(card) for card in CARDS)
"""One shared ``PlayCard`` per card, indexed by ``card.index`` (saves allocations)."""
NAME_TRUMPS: Final[tuple[NameTrump, ...]] = tuple(NameTrump(suit) for suit in Suit)
"""One shared ``NameTrump`` per suit, in canonical order C S H D."""

_WORD: Final = re.compile(r"[a-z0-9][a-z0-9_-]*")


def parse_action(text: str, phase: Phase | None = None) -> Action:
    """The action written ``text``; ``phase`` (if given) says which kind is expected.

    Notation: ``pass`` or a contract id in the auction; ``trump H`` (or just ``H`` in the
    trump phase) for naming trump; a card (``HJ``) in the play.

    >>> parse_action("Brand"), parse_action("H", Phase.TRUMP)
    (Bid(contract='brand'), NameTrump(suit=<Suit.HEARTS: 2>))
    >>> parse_action("XX", Phase.PLAY)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    brandeln.engine.errors.ActionParseError: 'XX' is not a card: a card is a suit letter (C S H ...
    """
    words = text.split()
    if not words:
        raise ActionParseError("an empty text is not an action")
    first = words[0].lower()
    try:
        if first == "trump" and len(words) == 2 and phase in (None, Phase.TRUMP):
            return NAME_TRUMPS[Suit.parse(words[1])]
        if len(words) != 1:
            raise ActionParseError(f"{text!r} is not an action: expected one word or 'trump X'")
        if phase is Phase.TRUMP:
            return NAME_TRUMPS[Suit.parse(words[0])]
        if phase is Phase.PLAY or (phase is None and len(first) == 2):
            return PLAY_CARDS[Card.parse(words[0]).index]
    except CardParseError as error:
        raise ActionParseError(str(error)) from None
    if phase is Phase.DONE or not _WORD.fullmatch(first):
        raise ActionParseError(f"{text!r} is not a bid: expected 'pass' or a contract id")
    return PASS if first == PASS_ID else Bid(first)
