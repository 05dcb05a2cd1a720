"""Protobuf wire encoding by hand for the referee's hottest messages (see :mod:`arena.codec`).

A request's snapshot and the common public events (a bid, the trump, a card, a trick) are
written here as bytes from cached pieces, without building message objects: the bytes are the
ones ``SerializeToString`` gives for the same message (fields in number order, proto3 defaults
left out, packed repeated scalars), so a bot sees exactly the protocol's messages
(tests/arena/test_codec.py holds both to the same bytes on random deals of every ruleset).

The encoding, for the record: a field is its tag (``number << 3 | wire type``, a varint) and
its value; a varint is 7 bits a byte, low first; a length-delimited value (a message, a
string, a packed list) is its length as a varint, then its bytes; an ``int64`` below zero is
its two's complement on 64 bits (ten bytes).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from engine.actions import Action, NameTrump, PlayCard
from engine.cards import CARDS, Card, CardSet, Suit
from engine.events import BidMade, ContractSet, DealEnded, TrickTaken
from engine.phase import Phase
from engine.rulesets import TrumpOrder
from engine.trick_rules import canonical_indices
from engine.view import PlayerView

__all__ = [
    "bid_made_event",
    "card_played_event",
    "contract_set_event",
    "deal_ended_event",
    "deal_started",
    "decision_request",
    "length_delimited",
    "trick_taken_event",
    "trump_named_event",
    "varint",
]

_ENUM_OFFSET = 1  # a proto enum value is the engine's + 1 (0 is *_UNSPECIFIED)
_WIRE_VARINT = 0
_WIRE_LENGTH = 2


def _encode_varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64  # int64: two's complement
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL = tuple(_encode_varint(n) for n in range(1 << 14))  # every one- and two-byte varint
# Larger values recur too: a request's bank (20 s by default) is a three-byte varint that changes
# only when a move takes more than the move time.
_larger_varint = functools.lru_cache(maxsize=1024)(_encode_varint)


def varint(value: int) -> bytes:
    """``value`` as a varint (an ``int64`` below zero on ten bytes)."""
    if 0 <= value < 16384:
        return _SMALL[value]
    return _larger_varint(value)


def _tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def length_delimited(tag: bytes, payload: bytes) -> bytes:
    n = len(payload)
    return tag + (_SMALL[n] if n < 16384 else _encode_varint(n)) + payload


def _packed(tag: bytes, values: Sequence[int]) -> bytes:
    """A packed repeated scalar field (nothing when empty)."""
    if not values:
        return b""
    small = _SMALL
    payload = b"".join([small[v] if 0 <= v < 16384 else _encode_varint(v) for v in values])
    return length_delimited(tag, payload)


def _uint(tag: bytes, value: int) -> bytes:
    """A proto3 scalar field: left out at zero."""
    return tag + varint(value) if value else b""


# Card { suit = 1; rank = 2 }: both set on every real card (1-based enums).
_CARD_BYTES = tuple(
    bytes((1 << 3, int(card.suit) + _ENUM_OFFSET, 2 << 3, int(card.rank) + _ENUM_OFFSET))
    for card in CARDS
)


def _card_fields(number: int) -> tuple[bytes, ...]:
    """Each card as a field ``number`` holding a Card, by card index."""
    tag = _tag(number, _WIRE_LENGTH)
    return tuple(length_delimited(tag, data) for data in _CARD_BYTES)


# --- PlayerView -------------------------------------------------------------------------------
_VIEW_SEAT = _tag(1, _WIRE_VARINT)
_VIEW_DEALER = _tag(2, _WIRE_VARINT)
_VIEW_FOREHAND = _tag(3, _WIRE_VARINT)
_VIEW_HAND = _card_fields(4)
_VIEW_AUCTION = _tag(5, _WIRE_LENGTH)
_VIEW_SOLOIST = _tag(6, _WIRE_VARINT)
_VIEW_CONTRACT = _tag(7, _WIRE_LENGTH)
_VIEW_TRUMP = _tag(8, _WIRE_VARINT)
_VIEW_TRICKS = _tag(9, _WIRE_LENGTH)
_VIEW_LEADER = _tag(10, _WIRE_VARINT)
_VIEW_CURRENT_TRICK = _card_fields(11)
_VIEW_TRICKS_WON = _tag(12, _WIRE_LENGTH)
_VIEW_DEAL_PAYMENTS = _tag(13, _WIRE_LENGTH)
_VIEW_MATCH_BALANCES = _tag(14, _WIRE_LENGTH)
_VIEW_DEAL_NUMBER = _tag(15, _WIRE_VARINT)

# --- events ------------------------------------------------------------------------------------
# BidMade { seat = 1; Bid bid = 2 }, Bid { contract = 1 }
_BID_CONTRACT = _tag(1, _WIRE_LENGTH)
_BID_MADE_SEAT = _tag(1, _WIRE_VARINT)
_BID_MADE_BID = _tag(2, _WIRE_LENGTH)
# CardPlayed { seat = 1; Card card = 2 }
_CARD_PLAYED_SEAT = _tag(1, _WIRE_VARINT)
_CARD_PLAYED_CARD = _card_fields(2)
# TrickTaken { trick_number = 1; leader = 2; repeated Card cards = 3; winner = 4 }
_TRICK_NUMBER = _tag(1, _WIRE_VARINT)
_TRICK_LEADER = _tag(2, _WIRE_VARINT)
_TRICK_CARDS = _card_fields(3)
_TRICK_WINNER = _tag(4, _WIRE_VARINT)
# ContractSet { optional uint32 soloist = 1; string contract = 2; bool passed_out = 3 }
_CONTRACT_SET_SOLOIST = _tag(1, _WIRE_VARINT)
_CONTRACT_SET_CONTRACT = _tag(2, _WIRE_LENGTH)
_CONTRACT_SET_PASSED_OUT = _tag(3, _WIRE_VARINT)
# Hand { seat = 1; repeated Card cards = 2 }
_HAND_SEAT = _tag(1, _WIRE_VARINT)
_HAND_CARDS = _card_fields(2)
# DealEnded { deal_number = 1; optional soloist = 2; contract = 3; trump = 4; tricks_won = 5;
# made = 6; payments = 7; balances = 8; repeated Hand hands = 9; int64 pool = 10 }
_ENDED_DEAL_NUMBER = _tag(1, _WIRE_VARINT)
_ENDED_SOLOIST = _tag(2, _WIRE_VARINT)
_ENDED_CONTRACT = _tag(3, _WIRE_LENGTH)
_ENDED_TRUMP = _tag(4, _WIRE_VARINT)
_ENDED_TRICKS_WON = _tag(5, _WIRE_LENGTH)
_ENDED_MADE = _tag(6, _WIRE_VARINT)
_ENDED_PAYMENTS = _tag(7, _WIRE_LENGTH)
_ENDED_BALANCES = _tag(8, _WIRE_LENGTH)
_ENDED_HANDS = _tag(9, _WIRE_LENGTH)
_ENDED_POOL = _tag(10, _WIRE_VARINT)
# GameEvent { seq = 1; oneof kind { bid_made = 2; contract_set = 3; trump_named = 4;
# card_played = 5; trick_taken = 6; deal_ended = 7 ... }; deal_number = 9 }
_EVENT_SEQ = _tag(1, _WIRE_VARINT)
_EVENT_BID_MADE = _tag(2, _WIRE_LENGTH)
_EVENT_CONTRACT_SET = _tag(3, _WIRE_LENGTH)
_EVENT_TRUMP_NAMED = _tag(4, _WIRE_LENGTH)
_EVENT_CARD_PLAYED = _tag(5, _WIRE_LENGTH)
_EVENT_TRICK_TAKEN = _tag(6, _WIRE_LENGTH)
_EVENT_DEAL_ENDED = _tag(7, _WIRE_LENGTH)
_EVENT_DEAL_NUMBER = _tag(9, _WIRE_VARINT)

# --- DealStarted -------------------------------------------------------------------------------
# DealStarted { deal_number = 1; dealer = 2; forehand = 3; repeated Card hand = 4 }
_STARTED_DEAL_NUMBER = _tag(1, _WIRE_VARINT)
_STARTED_DEALER = _tag(2, _WIRE_VARINT)
_STARTED_FOREHAND = _tag(3, _WIRE_VARINT)
_STARTED_HAND = _card_fields(4)

# --- DecisionRequest ---------------------------------------------------------------------------
_REQUEST_ID = _tag(1, _WIRE_VARINT)
_REQUEST_PHASE = _tag(2, _WIRE_VARINT)
_REQUEST_LEGAL = _tag(3, _WIRE_LENGTH)
_REQUEST_VIEW = _tag(4, _WIRE_LENGTH)
_REQUEST_MOVE_MS = _tag(5, _WIRE_VARINT)
_REQUEST_BANK_MS = _tag(6, _WIRE_VARINT)
_REQUEST_STRIKES = _tag(7, _WIRE_VARINT)
_REQUEST_LAST_RTT_MS = _tag(8, _WIRE_VARINT)
# Phase: PHASE_BID = 1, PHASE_TRUMP = 2, PHASE_CARD = 3 (cards.proto)
_PHASES = {Phase.AUCTION: 1, Phase.TRUMP: 2, Phase.PLAY: 3}
# Choice { oneof kind { Bid bid = 1; Suit trump = 2; Card card = 3 } }, each as a legal entry
_LEGAL_CARDS = tuple(
    length_delimited(_REQUEST_LEGAL, length_delimited(_tag(3, _WIRE_LENGTH), data))
    for data in _CARD_BYTES
)
_LEGAL_TRUMPS = {
    suit: length_delimited(_REQUEST_LEGAL, _tag(2, _WIRE_VARINT) + varint(int(suit) + 1))
    for suit in Suit
}


def _string(tag: bytes, text: str) -> bytes:
    return length_delimited(tag, text.encode()) if text else b""


@functools.lru_cache(maxsize=256)
def _legal_bid(contract: str) -> bytes:
    return length_delimited(
        _REQUEST_LEGAL, length_delimited(_tag(1, _WIRE_LENGTH), _string(_BID_CONTRACT, contract))
    )


def _legal(action: Action) -> bytes:
    if isinstance(action, PlayCard):
        return _LEGAL_CARDS[action.card.index]
    if isinstance(action, NameTrump):
        return _LEGAL_TRUMPS[action.suit]
    return _legal_bid(action.contract)


@functools.lru_cache(maxsize=1024)
def _bid_made(seat: int, contract: str) -> bytes:
    """A BidMade's fields (not wrapped)."""
    bid = _string(_BID_CONTRACT, contract)
    return _uint(_BID_MADE_SEAT, seat) + length_delimited(_BID_MADE_BID, bid)


def _trick(trick: TrickTaken) -> bytes:
    """A TrickTaken's fields (not wrapped)."""
    cards = _TRICK_CARDS
    return b"".join(
        [
            _uint(_TRICK_NUMBER, trick.trick_number),
            _uint(_TRICK_LEADER, trick.leader),
            *[cards[card.index] for card in trick.cards],
            _uint(_TRICK_WINNER, trick.winner),
        ]
    )


# The bids and tricks of a deal recur in every later snapshot as the very same (frozen) engine
# objects, and so do the tuples that hold them (a deal's state keeps its auction, its completed
# tricks and its tricks won until the next bid or trick, and the match its balances until the
# deal ends): their view fields are kept, keyed by identity, which is cheaper than hashing the
# values. Only immutable keys are kept (frozen events, tuples: a list is encoded afresh each
# time). An entry holds its object, so an id cannot be reused while the entry lives; a cache
# is emptied when full.
_CACHE_LIMIT = 8192
K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    """``build(key)``, kept by the key's identity (see above); also the protobuf templates'
    cache of :mod:`arena.codec.snapshots`."""

    __slots__ = ("_build", "_entries", "_sequences")

    def __init__(self, build: Callable[[K], V], *, sequences: bool = False) -> None:
        self._build = build
        self._entries: dict[int, tuple[K, V]] = {}
        self._sequences = sequences  # keys are sequences: only tuples are kept

    def __call__(self, key: K) -> V:
        if self._sequences and type(key) is not tuple:
            return self._build(key)
        entry = self._entries.get(id(key))
        if entry is not None and entry[0] is key:
            return entry[1]
        data = self._build(key)
        if len(self._entries) >= _CACHE_LIMIT:
            self._entries.clear()
        self._entries[id(key)] = (key, data)
        return data


_auction_fragment: ByIdentity[BidMade, bytes] = ByIdentity(
    lambda event: length_delimited(_VIEW_AUCTION, _bid_made(event.seat, event.bid.contract))
)
_trick_fragment: ByIdentity[TrickTaken, bytes] = ByIdentity(
    lambda trick: length_delimited(_VIEW_TRICKS, _trick(trick))
)
# Whole fields of a view: every bid so far, every completed trick, the packed numbers.
_auction_field: ByIdentity[tuple[BidMade, ...], bytes] = ByIdentity(
    lambda auction: b"".join([_auction_fragment(bid) for bid in auction]), sequences=True
)
_tricks_field: ByIdentity[tuple[TrickTaken, ...], bytes] = ByIdentity(
    lambda tricks: b"".join([_trick_fragment(trick) for trick in tricks]), sequences=True
)
_tricks_won_field: ByIdentity[Sequence[int], bytes] = ByIdentity(
    lambda values: _packed(_VIEW_TRICKS_WON, values), sequences=True
)
_balances_field: ByIdentity[Sequence[int], bytes] = ByIdentity(
    lambda values: _packed(_VIEW_MATCH_BALANCES, values), sequences=True
)


@functools.lru_cache(maxsize=4096)
def _hand(mask: int, trump: Suit | None, order: TrumpOrder) -> bytes:
    """A view's hand field in canonical order (R12.3) for a deal with ``trump``."""
    hand = _VIEW_HAND
    return b"".join([hand[i] for i in canonical_indices(mask, trump, order)])


def _cards(fields: tuple[bytes, ...], cards: CardSet) -> bytes:
    """A repeated Card field of a set, low index first (as a CardSet iterates)."""
    return b"".join([fields[card.index] for card in cards])


def deal_started(deal_number: int, dealer: int, forehand: int, hand: CardSet) -> bytes:
    """A DealStarted's bytes (not wrapped in its RefereeMessage): one seat's hand."""
    return b"".join(
        [
            _uint(_STARTED_DEAL_NUMBER, deal_number),
            _uint(_STARTED_DEALER, dealer),
            _uint(_STARTED_FOREHAND, forehand),
            _cards(_STARTED_HAND, hand),
        ]
    )


def view(view: PlayerView, match_balances: Sequence[int], deal_number: int) -> bytes:
    """A PlayerView's bytes, with the match layer's fields (as ``view_to_pb``)."""
    current = _VIEW_CURRENT_TRICK
    trump = view.trump
    parts = [
        _uint(_VIEW_SEAT, view.seat),
        _uint(_VIEW_DEALER, view.dealer),
        _uint(_VIEW_FOREHAND, view.forehand),
        _hand(view.hand.mask, trump, view.trump_order),
        _auction_field(view.auction),
    ]
    if view.soloist is not None:
        parts.append(_VIEW_SOLOIST + varint(view.soloist))
    if view.contract:
        parts.append(_string(_VIEW_CONTRACT, view.contract))
    if trump is not None:
        parts.append(_VIEW_TRUMP + varint(int(trump) + _ENUM_OFFSET))
    parts.append(_tricks_field(view.tricks))
    if view.current_trick_leader:
        parts.append(_VIEW_LEADER + varint(view.current_trick_leader))
    parts += [current[card.index] for card in view.current_trick]
    parts.append(_tricks_won_field(view.tricks_won))
    if view.deal_payments:
        parts.append(_packed(_VIEW_DEAL_PAYMENTS, view.deal_payments))
    parts.append(_balances_field(match_balances))
    parts.append(_uint(_VIEW_DEAL_NUMBER, deal_number))
    return b"".join(parts)


def decision_request(
    request_id: int,
    phase: Phase,
    legal: Sequence[Action],
    player_view: PlayerView,
    move_ms: int,
    bank_ms: int,
    strikes: int,
    last_rtt_ms: int,
    match_balances: Sequence[int],
    deal_number: int,
) -> bytes:
    """A DecisionRequest's bytes (not wrapped in its RefereeMessage)."""
    return b"".join(
        [
            _uint(_REQUEST_ID, request_id),
            _REQUEST_PHASE + _SMALL[_PHASES[phase]],
            *[_legal(action) for action in legal],
            length_delimited(_REQUEST_VIEW, view(player_view, match_balances, deal_number)),
            _uint(_REQUEST_MOVE_MS, move_ms),
            _uint(_REQUEST_BANK_MS, bank_ms),
            _uint(_REQUEST_STRIKES, strikes),
            _uint(_REQUEST_LAST_RTT_MS, last_rtt_ms),
        ]
    )


def _event(seq: int, kind: bytes, deal_number: int) -> bytes:
    return b"".join([_uint(_EVENT_SEQ, seq), kind, _uint(_EVENT_DEAL_NUMBER, deal_number)])


@functools.lru_cache(maxsize=1024)
def _card_played(seat: int, index: int) -> bytes:
    fields = _uint(_CARD_PLAYED_SEAT, seat) + _CARD_PLAYED_CARD[index]
    return length_delimited(_EVENT_CARD_PLAYED, fields)


def card_played_event(seq: int, deal_number: int, seat: int, card: Card) -> bytes:
    """A GameEvent{card_played}'s bytes."""
    return _event(seq, _card_played(seat, card.index), deal_number)


def bid_made_event(seq: int, deal_number: int, event: BidMade) -> bytes:
    """A GameEvent{bid_made}'s bytes."""
    kind = length_delimited(_EVENT_BID_MADE, _bid_made(event.seat, event.bid.contract))
    return _event(seq, kind, deal_number)


def trump_named_event(seq: int, deal_number: int, suit: Suit) -> bytes:
    """A GameEvent{trump_named}'s bytes."""
    kind = length_delimited(_EVENT_TRUMP_NAMED, _tag(1, _WIRE_VARINT) + varint(int(suit) + 1))
    return _event(seq, kind, deal_number)


def trick_taken_event(seq: int, deal_number: int, trick: TrickTaken) -> bytes:
    """A GameEvent{trick_taken}'s bytes."""
    return _event(seq, length_delimited(_EVENT_TRICK_TAKEN, _trick(trick)), deal_number)


def contract_set_event(seq: int, deal_number: int, event: ContractSet) -> bytes:
    """A GameEvent{contract_set}'s bytes."""
    fields = b"".join(
        [
            b"" if event.soloist is None else _CONTRACT_SET_SOLOIST + varint(event.soloist),
            _string(_CONTRACT_SET_CONTRACT, event.contract or ""),
            _uint(_CONTRACT_SET_PASSED_OUT, int(event.passed_out)),
        ]
    )
    return _event(seq, length_delimited(_EVENT_CONTRACT_SET, fields), deal_number)


def _hand_message(seat: int, cards: CardSet) -> bytes:
    return length_delimited(_ENDED_HANDS, _uint(_HAND_SEAT, seat) + _cards(_HAND_CARDS, cards))


def deal_ended_event(
    seq: int, deal_number: int, event: DealEnded, balances: Sequence[int], pool: int
) -> bytes:
    """A GameEvent{deal_ended}'s bytes: the outcome, the match's ``balances`` and ``pool``
    after it, and every hand (the blind last, as seat ``players``, where there is one)."""
    hands = [_hand_message(seat, hand) for seat, hand in enumerate(event.hands)]
    if event.blind:
        hands.append(_hand_message(len(event.hands), event.blind))
    trump = event.trump
    fields = b"".join(
        [
            _uint(_ENDED_DEAL_NUMBER, deal_number),
            b"" if event.soloist is None else _ENDED_SOLOIST + varint(event.soloist),
            _string(_ENDED_CONTRACT, event.contract or ""),
            b"" if trump is None else _ENDED_TRUMP + varint(int(trump) + _ENUM_OFFSET),
            _packed(_ENDED_TRICKS_WON, event.tricks_won),
            _uint(_ENDED_MADE, int(bool(event.made))),
            _packed(_ENDED_PAYMENTS, event.payments),
            _packed(_ENDED_BALANCES, balances),
            *hands,
            _uint(_ENDED_POOL, pool),
        ]
    )
    return _event(seq, length_delimited(_EVENT_DEAL_ENDED, fields), deal_number)
