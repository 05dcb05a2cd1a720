"""Cards, suits, phases, choices and actions, rulesets and hands (see :mod:`brandeln.arena.codec`).

A card, a choice and a bid's message are built once and kept as shared *templates* (the hot
path, :mod:`brandeln.arena.codec.snapshots`, reuses them). A template is only ever passed to a
message constructor, to ``extend`` or to ``CopyFrom``, which copy it; it is never handed out or
mutated.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from brandeln.arena.limits import ProtocolLimits, quote_prefix
from brandeln.engine.actions import Action, Bid, NameTrump, PlayCard
from brandeln.engine.cards import CARDS, Card, CardSet, Rank, Suit
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.trick_rules import canonical_indices
from brandeln.engine.view import PlayerView
from brandeln.v1 import cards_pb2

__all__ = [
    "CodecError",
    "action_to_choice",
    "card_from_pb",
    "card_to_pb",
    "cards_to_pb",
    "choice_to_action",
    "hands_to_pb",
    "phase_to_pb",
    "ruleset_to_pb",
    "suit_from_pb",
    "suit_to_pb",
]

# The proto enum value of an engine enum member is its value + 1 (0 is UNSPECIFIED).
_DEFAULT_LIMITS = ProtocolLimits()
_ENUM_OFFSET = 1


class CodecError(ValueError):
    """A protocol message that does not decode to an engine value (the message says why)."""


def suit_to_pb(suit: Suit) -> cards_pb2.Suit.ValueType:
    return cards_pb2.Suit.ValueType(int(suit) + _ENUM_OFFSET)


def suit_from_pb(value: int) -> Suit:
    if value == cards_pb2.SUIT_UNSPECIFIED:
        raise CodecError("suit is unset (SUIT_UNSPECIFIED)")
    try:
        return Suit(value - _ENUM_OFFSET)
    except ValueError:
        raise CodecError(f"suit {value} is not a Suit value") from None


def card_to_pb(card: Card) -> cards_pb2.Card:
    return cards_pb2.Card(
        suit=cards_pb2.Suit.ValueType(int(card.suit) + _ENUM_OFFSET),
        rank=cards_pb2.Rank.ValueType(int(card.rank) + _ENUM_OFFSET),
    )


def cards_to_pb(cards: Iterable[Card]) -> list[cards_pb2.Card]:
    return [card_to_pb(card) for card in cards]


# Templates (see the module docstring): never mutate them, never return them.
_CARD_TEMPLATES: tuple[cards_pb2.Card, ...] = tuple(card_to_pb(card) for card in CARDS)
_SUIT_CHOICE_TEMPLATES: dict[Suit, cards_pb2.Choice] = {
    suit: cards_pb2.Choice(trump=suit_to_pb(suit)) for suit in Suit
}
_CARD_CHOICE_TEMPLATES: tuple[cards_pb2.Choice, ...] = tuple(
    cards_pb2.Choice(card=template) for template in _CARD_TEMPLATES
)


def _card_templates(cards: Iterable[Card]) -> list[cards_pb2.Card]:
    templates = _CARD_TEMPLATES
    return [templates[card.index] for card in cards]


def _hand_templates(view: PlayerView) -> list[cards_pb2.Card]:
    """The view's hand in canonical order (R12.3), as its legal cards are sorted: once trump
    is named the trump suit goes by its strength in this deal (table lookups, no sorting)."""
    templates = _CARD_TEMPLATES
    return [templates[i] for i in canonical_indices(view.hand.mask, view.trump, view.trump_order)]


# Every real card by its (suit, rank) proto values: a valid card is one lookup.
_CARDS_BY_PB: dict[tuple[int, int], Card] = {
    (int(card.suit) + _ENUM_OFFSET, int(card.rank) + _ENUM_OFFSET): card for card in CARDS
}
_PLAY_CARDS: tuple[PlayCard, ...] = tuple(PlayCard(card) for card in CARDS)  # frozen values


def card_from_pb(message: cards_pb2.Card) -> Card:
    card = _CARDS_BY_PB.get((message.suit, message.rank))
    if card is not None:
        return card
    suit = suit_from_pb(message.suit)
    if message.rank == cards_pb2.RANK_UNSPECIFIED:
        raise CodecError("card rank is unset (RANK_UNSPECIFIED)")
    try:
        rank = Rank(message.rank - _ENUM_OFFSET)
    except ValueError:
        raise CodecError(f"rank {message.rank} is not a Rank value") from None
    return Card(suit, rank)


_PHASES: dict[Phase, cards_pb2.Phase.ValueType] = {
    Phase.AUCTION: cards_pb2.PHASE_BID,
    Phase.TRUMP: cards_pb2.PHASE_TRUMP,
    Phase.PLAY: cards_pb2.PHASE_CARD,
}


def phase_to_pb(phase: Phase) -> cards_pb2.Phase.ValueType:
    return _PHASES[phase]


def action_to_choice(action: Action) -> cards_pb2.Choice:
    if isinstance(action, Bid):
        return cards_pb2.Choice(bid=cards_pb2.Bid(contract=action.contract))
    if isinstance(action, NameTrump):
        return cards_pb2.Choice(trump=suit_to_pb(action.suit))
    return cards_pb2.Choice(card=card_to_pb(action.card))


@functools.lru_cache(maxsize=256)
def _bid_choice_template(contract: str) -> cards_pb2.Choice:
    return cards_pb2.Choice(bid=cards_pb2.Bid(contract=contract))


def _choice_template(action: Action) -> cards_pb2.Choice:
    """A template (see the module docstring) of ``action_to_choice(action)``."""
    if isinstance(action, PlayCard):
        return _CARD_CHOICE_TEMPLATES[action.card.index]
    if isinstance(action, NameTrump):
        return _SUIT_CHOICE_TEMPLATES[action.suit]
    return _bid_choice_template(action.contract)


_CHOICE_FOR_PHASE = {Phase.AUCTION: "bid", Phase.TRUMP: "trump", Phase.PLAY: "card"}


class WrongPhaseError(CodecError):
    """A well-formed choice of the wrong kind for the request's phase."""


def choice_to_action(
    choice: cards_pb2.Choice, phase: Phase, limits: ProtocolLimits = _DEFAULT_LIMITS
) -> Action:
    """Decode a bot's choice for a request of ``phase``.

    Raises :class:`WrongPhaseError` for a choice of another kind and :class:`CodecError` for a
    malformed one (a contract string longer than any contract id is malformed, and quoted only
    in part). Legality is the engine's business, not the codec's.
    """
    kind = choice.WhichOneof("kind")
    if kind is None:
        raise CodecError("choice is empty: set one of bid, trump, card")
    expected = _CHOICE_FOR_PHASE.get(phase)
    if kind != expected:
        raise WrongPhaseError(f"the request asks for a {expected}, the choice holds a {kind}")
    if kind == "bid":
        contract = choice.bid.contract
        if not contract:
            raise CodecError('bid.contract is empty: name a contract id or "pass"')
        if len(contract) > limits.contract_id_chars:
            raise CodecError(
                f"bid.contract is longer than any contract id (at most "
                f"{limits.contract_id_chars} characters): "
                f"{quote_prefix(contract, limits.quoted_prefix_chars)}"
            )
        return Bid(contract)
    if kind == "trump":
        return NameTrump(suit_from_pb(choice.trump))
    return _PLAY_CARDS[card_from_pb(choice.card).index]


def ruleset_to_pb(ruleset: Ruleset) -> cards_pb2.Ruleset:
    return cards_pb2.Ruleset(
        id=ruleset.id,
        players=ruleset.players,
        tricks=ruleset.tricks,
        contracts=[
            cards_pb2.ContractInfo(
                id=contract.id,
                goal=str(contract.goal),
                tricks=contract.tricks,
                trump=contract.trump,
                value=contract.value,
            )
            for contract in ruleset.contracts
        ],
        options=ruleset.options(),
    )


def hands_to_pb(hands: Sequence[CardSet], blind: CardSet) -> list[cards_pb2.Hand]:
    """Every seat's hand, then the blind (seat = players) where the ruleset has one."""
    messages = [
        cards_pb2.Hand(seat=seat, cards=cards_to_pb(hand)) for seat, hand in enumerate(hands)
    ]
    if blind:
        messages.append(cards_pb2.Hand(seat=len(hands), cards=cards_to_pb(blind)))
    return messages
