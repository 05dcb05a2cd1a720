"""The one place where protobuf messages and engine values meet.

Every conversion between `brandeln.v1` messages and engine values goes through this module, so the
rest of the arena speaks either protocol or engine, never both (ARCHITECTURE.md). Decoding what a
bot sent is defensive: an unset enum, a card outside the deck or a missing oneof raises
:class:`CodecError` with a reason fit to send back in an ``ActionRejected``.

The protocol's enums start at 1 (0 is ``*_UNSPECIFIED``); the engine's start at 0.

Building a ``DecisionRequest`` is on the referee's hot path (one per decision, with a snapshot
that holds every completed trick), so cards, choices, bids and completed tricks are built once
and kept as shared *templates*. A template is only ever passed to a message constructor, to
``extend`` or to ``CopyFrom``, which copy it; it is never handed out or mutated.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar

from google.protobuf.descriptor import Descriptor

from arena.limits import ProtocolLimits, quote_prefix
from brandeln.v1 import bot_pb2, cards_pb2
from engine.actions import Action, Bid, NameTrump, PlayCard
from engine.cards import CARDS, Card, CardSet, Rank, Suit
from engine.events import (
    BidMade,
    CardPlayed,
    ContractSet,
    DealEnded,
    Event,
    TrickTaken,
    TrumpNamed,
)
from engine.phase import Phase
from engine.rulesets import Ruleset
from engine.trick_rules import canonical_indices
from engine.view import PlayerView

__all__ = [
    "CodecError",
    "action_to_choice",
    "card_from_pb",
    "card_to_pb",
    "cards_to_pb",
    "choice_to_action",
    "event_to_pb",
    "hands_to_pb",
    "phase_to_pb",
    "ruleset_to_pb",
    "suit_from_pb",
    "suit_to_pb",
    "view_to_pb",
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


def card_from_pb(message: cards_pb2.Card) -> Card:
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
    return PlayCard(card_from_pb(choice.card))


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


# Completed tricks and bids recur in every snapshot of a deal, as the very same (frozen) engine
# objects: their messages (and serialized view fragments) are built once and kept, keyed by
# identity, which is cheaper than hashing the values. A cache holds each object it keys on, so
# an id cannot be reused by another object while its entry lives; it is emptied when full.
_TEMPLATE_CACHE_LIMIT = 8192
K = TypeVar("K")
V = TypeVar("V")


class _IdentityCache(Generic[K, V]):
    __slots__ = ("_build", "_entries")

    def __init__(self, build: Callable[[K], V]) -> None:
        self._build = build
        self._entries: dict[int, tuple[K, V]] = {}

    def __call__(self, key: K) -> V:
        entry = self._entries.get(id(key))
        if entry is not None and entry[0] is key:
            return entry[1]
        value = self._build(key)
        if len(self._entries) >= _TEMPLATE_CACHE_LIMIT:
            self._entries.clear()
        self._entries[id(key)] = (key, value)
        return value


def _build_trick(trick: TrickTaken) -> cards_pb2.TrickTaken:
    return cards_pb2.TrickTaken(
        trick_number=trick.trick_number,
        leader=trick.leader,
        cards=_card_templates(trick.cards),
        winner=trick.winner,
    )


def _build_bid_made(event: BidMade) -> cards_pb2.BidMade:
    return cards_pb2.BidMade(seat=event.seat, bid=cards_pb2.Bid(contract=event.bid.contract))


_trick_to_pb = _IdentityCache(_build_trick)
_bid_made_to_pb = _IdentityCache(_build_bid_made)
# The same, serialized as one element of PlayerView.tricks / PlayerView.auction: a view's
# bytes are its other fields' bytes followed by these (concatenated messages merge, and
# repeated fields append: the protobuf encoding guarantees it).
_trick_fragment: _IdentityCache[TrickTaken, bytes] = _IdentityCache(
    lambda trick: cards_pb2.PlayerView(tricks=[_trick_to_pb(trick)]).SerializeToString()
)
_bid_made_fragment: _IdentityCache[BidMade, bytes] = _IdentityCache(
    lambda event: cards_pb2.PlayerView(auction=[_bid_made_to_pb(event)]).SerializeToString()
)


def event_to_pb(
    event: Event,
    seq: int,
    deal_number: int,
    balances: Sequence[int] = (),
    pool: int = 0,
) -> cards_pb2.GameEvent:
    """A public engine event as a numbered GameEvent.

    ``balances`` and ``pool`` are match-level facts the engine's deal events do not carry; they
    fill ``DealEnded``.
    """
    message = cards_pb2.GameEvent(seq=seq, deal_number=deal_number)
    if isinstance(event, BidMade):
        message.bid_made.CopyFrom(_bid_made_to_pb(event))
    elif isinstance(event, ContractSet):
        message.contract_set.contract = event.contract or ""
        message.contract_set.passed_out = event.passed_out
        if event.soloist is not None:
            message.contract_set.soloist = event.soloist
    elif isinstance(event, TrumpNamed):
        message.trump_named.suit = suit_to_pb(event.suit)
    elif isinstance(event, CardPlayed):
        message.card_played.seat = event.seat
        message.card_played.card.CopyFrom(_CARD_TEMPLATES[event.card.index])
    elif isinstance(event, TrickTaken):
        message.trick_taken.CopyFrom(_trick_to_pb(event))
    elif isinstance(event, DealEnded):
        ended = message.deal_ended
        ended.deal_number = deal_number
        outcome = event
        if outcome.soloist is not None:
            ended.soloist = outcome.soloist
        ended.contract = outcome.contract or ""
        if outcome.trump is not None:
            ended.trump = suit_to_pb(outcome.trump)
        ended.tricks_won.extend(outcome.tricks_won)
        ended.made = bool(outcome.made)
        ended.payments.extend(outcome.payments)
        ended.balances.extend(balances)
        ended.hands.extend(hands_to_pb(event.hands, event.blind))
        ended.pool = pool
    else:  # pragma: no cover - the Event union is closed
        raise TypeError(f"unknown engine event {event!r}")
    return message


def view_to_pb(
    view: PlayerView, match_balances: Sequence[int] = (), deal_number: int = 0
) -> cards_pb2.PlayerView:
    """A deal's view with the match layer's fields, which the deal does not know."""
    message = cards_pb2.PlayerView()
    _fill_view(message, view, match_balances, deal_number)
    return message


def _fill_view(
    message: cards_pb2.PlayerView,
    view: PlayerView,
    match_balances: Sequence[int],
    deal_number: int,
) -> None:
    """Write ``view`` into an empty ``message`` in place (a request holds its view, so building
    it there spares copying the whole snapshot twice), with the match layer's fields."""
    message.seat = view.seat
    message.dealer = view.dealer
    message.forehand = view.forehand
    message.hand.extend(_hand_templates(view))
    message.auction.extend([_bid_made_to_pb(bid) for bid in view.auction])
    message.contract = view.contract or ""
    message.tricks.extend([_trick_to_pb(trick) for trick in view.tricks])
    message.current_trick_leader = view.current_trick_leader or 0
    message.current_trick.extend(_card_templates(view.current_trick))
    message.tricks_won.extend(view.tricks_won)
    message.deal_payments.extend(view.deal_payments)
    message.match_balances.extend(match_balances)
    message.deal_number = deal_number
    if view.soloist is not None:
        message.soloist = view.soloist
    if view.trump is not None:
        message.trump = suit_to_pb(view.trump)


def decision_request(
    request_id: int,
    phase: Phase,
    legal: Sequence[Action],
    view: PlayerView,
    move_ms: int,
    bank_ms: int,
    strikes: int,
    last_rtt_ms: int,
    *,
    match_balances: Sequence[int] = (),
    deal_number: int = 0,
) -> bot_pb2.RefereeMessage:
    """A ``DecisionRequest``; ``match_balances`` and ``deal_number`` are the match layer's
    fields of the view (a deal's ``PlayerView`` does not hold them)."""
    message = bot_pb2.RefereeMessage()
    # Built in place: nested messages given to constructors would be copied on the way in.
    request = message.request
    request.SetInParent()
    request.request_id = request_id
    request.phase = phase_to_pb(phase)
    request.legal.extend([_choice_template(action) for action in legal])
    request.view.SetInParent()
    _fill_view(request.view, view, match_balances, deal_number)
    request.move_ms = move_ms
    request.bank_ms = bank_ms
    request.strikes = strikes
    request.last_rtt_ms = last_rtt_ms
    return message


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _length_delimited(tag: bytes, payload: bytes) -> bytes:
    return tag + _varint(len(payload)) + payload


def _tag(descriptor: Descriptor, field: str) -> bytes:
    number = descriptor.fields_by_name[field].number
    return _varint(number << 3 | 2)  # wire type 2: length-delimited


_REQUEST_TAG = _tag(bot_pb2.RefereeMessage.DESCRIPTOR, "request")
_EVENT_TAG = _tag(bot_pb2.RefereeMessage.DESCRIPTOR, "event")
_VIEW_TAG = _tag(bot_pb2.DecisionRequest.DESCRIPTOR, "view")


def decision_request_bytes(
    request_id: int,
    phase: Phase,
    legal: Sequence[Action],
    view: PlayerView,
    move_ms: int,
    bank_ms: int,
    strikes: int,
    last_rtt_ms: int,
    *,
    match_balances: Sequence[int],
    deal_number: int,
) -> bytes:
    """The serialized ``RefereeMessage`` of :func:`decision_request`, built for the hot path.

    A snapshot repeats every earlier bid and trick of the deal; their encodings are cached and
    concatenated behind the view's other fields instead of being copied message by message.
    Parsing the result gives a message equal to :func:`decision_request`'s (a test checks).
    """
    head = cards_pb2.PlayerView(
        seat=view.seat,
        dealer=view.dealer,
        forehand=view.forehand,
        contract=view.contract or "",
        current_trick_leader=view.current_trick_leader or 0,
        tricks_won=view.tricks_won,
        deal_payments=view.deal_payments,
        match_balances=match_balances,
        deal_number=deal_number,
    )
    head.hand.extend(_hand_templates(view))
    head.current_trick.extend(_card_templates(view.current_trick))
    if view.soloist is not None:
        head.soloist = view.soloist
    if view.trump is not None:
        head.trump = suit_to_pb(view.trump)
    view_bytes = b"".join(
        [
            head.SerializeToString(),
            *[_bid_made_fragment(bid) for bid in view.auction],
            *[_trick_fragment(trick) for trick in view.tricks],
        ]
    )
    request = bot_pb2.DecisionRequest(
        request_id=request_id,
        phase=phase_to_pb(phase),
        move_ms=move_ms,
        bank_ms=bank_ms,
        strikes=strikes,
        last_rtt_ms=last_rtt_ms,
    )
    request.legal.extend([_choice_template(action) for action in legal])
    request_bytes = request.SerializeToString() + _length_delimited(_VIEW_TAG, view_bytes)
    return _length_delimited(_REQUEST_TAG, request_bytes)


def event_message_bytes(event: cards_pb2.GameEvent) -> bytes:
    """A serialized ``RefereeMessage{event}``: serialized once, sent to every seat."""
    return _length_delimited(_EVENT_TAG, event.SerializeToString())
