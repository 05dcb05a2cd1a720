"""Events, views and decision requests: the referee's hot path (see the package docstring).

Building a ``DecisionRequest`` happens once per decision, with a snapshot that holds every
completed trick, so cards, choices, bids and completed tricks are built once and kept as shared
*templates*; a fan-out's event is serialized once for every seat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from google.protobuf.descriptor import Descriptor

from arena.codec.values import (
    _CARD_TEMPLATES,
    _card_templates,
    _choice_template,
    _hand_templates,
    hands_to_pb,
    phase_to_pb,
    suit_to_pb,
)
from brandeln.v1 import bot_pb2, cards_pb2
from engine.actions import Action
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
from engine.view import PlayerView

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
