"""Events, views and decision requests: the referee's hot path (see the package docstring).

Building a ``DecisionRequest`` happens once per decision, with a snapshot that holds every
completed trick: the hot path (``decision_request_bytes``, ``event_bytes``) writes the bytes
from cached pieces (:mod:`brandeln.arena.codec.wire`) and a fan-out's event is serialized once for
every seat. The message builders (``decision_request``, ``event_to_pb``) keep cards, choices, bids
and completed tricks as shared *templates*; they are the reference the bytes are tested against.
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.descriptor import Descriptor

from brandeln.arena.codec import wire
from brandeln.arena.codec.identity_cache import ByIdentity
from brandeln.arena.codec.values import (
    _CARD_TEMPLATES,
    _card_templates,
    _choice_template,
    _hand_templates,
    hands_to_pb,
    phase_to_pb,
    suit_to_pb,
)
from brandeln.engine.actions import Action
from brandeln.engine.dealing import Deal
from brandeln.engine.events import (
    BidMade,
    CardPlayed,
    ContractSet,
    DealEnded,
    Event,
    TrickTaken,
    TrumpNamed,
)
from brandeln.engine.phase import Phase
from brandeln.engine.seats import forehand_of
from brandeln.engine.view import PlayerView
from brandeln.v1 import bot_pb2, cards_pb2

# Completed tricks and bids recur in every snapshot of a deal, as the very same (frozen) engine
# objects: their messages (and serialized view fragments) are built once and kept, keyed by
# identity, which is cheaper than hashing the values. A cache holds each object it keys on, so
# an id cannot be reused by another object while its entry lives; it is emptied when full.


def _build_trick(trick: TrickTaken) -> cards_pb2.TrickTaken:
    return cards_pb2.TrickTaken(
        trick_number=trick.trick_number,
        leader=trick.leader,
        cards=_card_templates(trick.cards),
        winner=trick.winner,
    )


def _build_bid_made(event: BidMade) -> cards_pb2.BidMade:
    return cards_pb2.BidMade(seat=event.seat, bid=cards_pb2.Bid(contract=event.bid.contract))


_trick_to_pb = ByIdentity(_build_trick)
_bid_made_to_pb = ByIdentity(_build_bid_made)


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
        ended.passed_out = outcome.passed_out
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


def _tag(descriptor: Descriptor, field: str) -> bytes:
    number = descriptor.fields_by_name[field].number
    return wire.varint(number << 3 | 2)  # wire type 2: length-delimited


_REQUEST_TAG = _tag(bot_pb2.RefereeMessage.DESCRIPTOR, "request")
_DEAL_STARTED_TAG = _tag(bot_pb2.RefereeMessage.DESCRIPTOR, "deal_started")
_EVENT_TAG = _tag(bot_pb2.RefereeMessage.DESCRIPTOR, "event")


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

    Written as bytes from cached pieces (:mod:`brandeln.arena.codec.wire`): a snapshot repeats every
    earlier bid and trick of the deal, whose encodings are kept. The bytes are those of
    :func:`decision_request`'s message (a test checks).
    """
    request = wire.decision_request(
        request_id,
        phase,
        legal,
        view,
        move_ms,
        bank_ms,
        strikes,
        last_rtt_ms,
        match_balances,
        deal_number,
    )
    return wire.length_delimited(_REQUEST_TAG, request)


def deal_started_bytes(deal_number: int, deal: Deal, seat: int, players: int) -> bytes:
    """The serialized ``RefereeMessage`` of :func:`brandeln.arena.codec.deal_started`, from cached
    card encodings (a deal's start sends every seat its hand: four messages a deal)."""
    started = wire.deal_started(
        deal_number, deal.dealer, forehand_of(deal.dealer, players), deal.hands[seat]
    )
    return wire.length_delimited(_DEAL_STARTED_TAG, started)


def event_bytes(
    event: Event,
    seq: int,
    deal_number: int,
    balances: Sequence[int] = (),
    pool: int = 0,
) -> bytes:
    """:func:`event_to_pb`'s message serialized, written as bytes (:mod:`brandeln.arena.codec.wire`)
    without a message object; ``DealEnded`` too, which carries every hand (built as messages
    it cost more than a whole trick's decisions)."""
    if isinstance(event, CardPlayed):
        return wire.card_played_event(seq, deal_number, event.seat, event.card)
    if isinstance(event, BidMade):
        return wire.bid_made_event(seq, deal_number, event)
    if isinstance(event, TrickTaken):
        return wire.trick_taken_event(seq, deal_number, event)
    if isinstance(event, TrumpNamed):
        return wire.trump_named_event(seq, deal_number, event.suit)
    if isinstance(event, ContractSet):
        return wire.contract_set_event(seq, deal_number, event)
    if isinstance(event, DealEnded):
        return wire.deal_ended_event(seq, deal_number, event, balances, pool)
    raise TypeError(f"unknown engine event {event!r}")  # pragma: no cover - a closed union


_EVENT_KINDS: dict[type[Event], str] = {
    BidMade: "bid_made",
    ContractSet: "contract_set",
    TrumpNamed: "trump_named",
    CardPlayed: "card_played",
    TrickTaken: "trick_taken",
    DealEnded: "deal_ended",
}


def event_kind(event: Event) -> str:
    """The ``GameEvent.kind`` field an engine event fills."""
    return _EVENT_KINDS[type(event)]


def event_message_bytes(event: cards_pb2.GameEvent | bytes) -> bytes:
    """A serialized ``RefereeMessage{event}`` of an event or of its bytes: serialized once,
    sent to every seat."""
    data = event if isinstance(event, bytes) else event.SerializeToString()
    return wire.length_delimited(_EVENT_TAG, data)
