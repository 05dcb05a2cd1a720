"""Protobuf wire encoding by hand for the referee's hottest messages (see
:mod:`brandeln.arena.codec`).

A request's snapshot and the common public events (a bid, the trump, a card, a trick) are
written here as bytes from cached pieces, without building message objects: the bytes are the
ones ``SerializeToString`` gives for the same message (fields in number order, proto3 defaults
left out, packed repeated scalars), so a bot sees exactly the protocol's messages
(tests/arena/test_codec.py holds both to the same bytes on random deals of every ruleset).

The encoding's primitives are in :mod:`brandeln.arena.codec.protowire`; the pieces a deal repeats
are kept by identity (:mod:`brandeln.arena.codec.identity_cache`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from brandeln.arena.codec.identity_cache import ByIdentity
from brandeln.arena.codec.protowire import (
    ENUM_OFFSET,
    WIRE_LENGTH,
    WIRE_VARINT,
    length_delimited,
    packed,
    string,
    tag,
    uint,
    varint,
)
from brandeln.engine.actions import Action, NameTrump, PlayCard
from brandeln.engine.cards import CARDS, Card, CardSet, Suit
from brandeln.engine.events import BidMade, ContractSet, DealEnded, TrickTaken
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import TrumpOrder
from brandeln.engine.trick_rules import canonical_indices
from brandeln.engine.view import PlayerView

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


# Card { suit = 1; rank = 2 }: both set on every real card (1-based enums).
_CARD_BYTES = tuple(
    bytes((1 << 3, int(card.suit) + ENUM_OFFSET, 2 << 3, int(card.rank) + ENUM_OFFSET))
    for card in CARDS
)


def _card_fields(number: int) -> tuple[bytes, ...]:
    """Each card as a field ``number`` holding a Card, by card index."""
    field = tag(number, WIRE_LENGTH)
    return tuple(length_delimited(field, data) for data in _CARD_BYTES)


# --- PlayerView -------------------------------------------------------------------------------
_VIEW_SEAT = tag(1, WIRE_VARINT)
_VIEW_DEALER = tag(2, WIRE_VARINT)
_VIEW_FOREHAND = tag(3, WIRE_VARINT)
_VIEW_HAND = _card_fields(4)
_VIEW_AUCTION = tag(5, WIRE_LENGTH)
_VIEW_SOLOIST = tag(6, WIRE_VARINT)
_VIEW_CONTRACT = tag(7, WIRE_LENGTH)
_VIEW_TRUMP = tag(8, WIRE_VARINT)
_VIEW_TRICKS = tag(9, WIRE_LENGTH)
_VIEW_LEADER = tag(10, WIRE_VARINT)
_VIEW_CURRENT_TRICK = _card_fields(11)
_VIEW_TRICKS_WON = tag(12, WIRE_LENGTH)
_VIEW_DEAL_PAYMENTS = tag(13, WIRE_LENGTH)
_VIEW_MATCH_BALANCES = tag(14, WIRE_LENGTH)
_VIEW_DEAL_NUMBER = tag(15, WIRE_VARINT)

# --- events ------------------------------------------------------------------------------------
# BidMade { seat = 1; Bid bid = 2 }, Bid { contract = 1 }
_BID_CONTRACT = tag(1, WIRE_LENGTH)
_BID_MADE_SEAT = tag(1, WIRE_VARINT)
_BID_MADE_BID = tag(2, WIRE_LENGTH)
# CardPlayed { seat = 1; Card card = 2 }
_CARD_PLAYED_SEAT = tag(1, WIRE_VARINT)
_CARD_PLAYED_CARD = _card_fields(2)
# TrickTaken { trick_number = 1; leader = 2; repeated Card cards = 3; winner = 4 }
_TRICK_NUMBER = tag(1, WIRE_VARINT)
_TRICK_LEADER = tag(2, WIRE_VARINT)
_TRICK_CARDS = _card_fields(3)
_TRICK_WINNER = tag(4, WIRE_VARINT)
# ContractSet { optional uint32 soloist = 1; string contract = 2; bool passed_out = 3 }
_CONTRACT_SET_SOLOIST = tag(1, WIRE_VARINT)
_CONTRACT_SET_CONTRACT = tag(2, WIRE_LENGTH)
_CONTRACT_SET_PASSED_OUT = tag(3, WIRE_VARINT)
# Hand { seat = 1; repeated Card cards = 2 }
_HAND_SEAT = tag(1, WIRE_VARINT)
_HAND_CARDS = _card_fields(2)
# DealEnded { deal_number = 1; optional soloist = 2; contract = 3; trump = 4; tricks_won = 5;
# made = 6; payments = 7; balances = 8; repeated Hand hands = 9; int64 pool = 10;
# bool passed_out = 11 }
_ENDED_DEAL_NUMBER = tag(1, WIRE_VARINT)
_ENDED_SOLOIST = tag(2, WIRE_VARINT)
_ENDED_CONTRACT = tag(3, WIRE_LENGTH)
_ENDED_TRUMP = tag(4, WIRE_VARINT)
_ENDED_TRICKS_WON = tag(5, WIRE_LENGTH)
_ENDED_MADE = tag(6, WIRE_VARINT)
_ENDED_PAYMENTS = tag(7, WIRE_LENGTH)
_ENDED_BALANCES = tag(8, WIRE_LENGTH)
_ENDED_HANDS = tag(9, WIRE_LENGTH)
_ENDED_POOL = tag(10, WIRE_VARINT)
_ENDED_PASSED_OUT = tag(11, WIRE_VARINT)
# GameEvent { seq = 1; oneof kind { bid_made = 2; contract_set = 3; trump_named = 4;
# card_played = 5; trick_taken = 6; deal_ended = 7 ... }; deal_number = 9 }
_EVENT_SEQ = tag(1, WIRE_VARINT)
_EVENT_BID_MADE = tag(2, WIRE_LENGTH)
_EVENT_CONTRACT_SET = tag(3, WIRE_LENGTH)
_EVENT_TRUMP_NAMED = tag(4, WIRE_LENGTH)
_EVENT_CARD_PLAYED = tag(5, WIRE_LENGTH)
_EVENT_TRICK_TAKEN = tag(6, WIRE_LENGTH)
_EVENT_DEAL_ENDED = tag(7, WIRE_LENGTH)
_EVENT_DEAL_NUMBER = tag(9, WIRE_VARINT)

# --- DealStarted -------------------------------------------------------------------------------
# DealStarted { deal_number = 1; dealer = 2; forehand = 3; repeated Card hand = 4 }
_STARTED_DEAL_NUMBER = tag(1, WIRE_VARINT)
_STARTED_DEALER = tag(2, WIRE_VARINT)
_STARTED_FOREHAND = tag(3, WIRE_VARINT)
_STARTED_HAND = _card_fields(4)

# --- DecisionRequest ---------------------------------------------------------------------------
_REQUEST_ID = tag(1, WIRE_VARINT)
_REQUEST_PHASE = tag(2, WIRE_VARINT)
_REQUEST_LEGAL = tag(3, WIRE_LENGTH)
_REQUEST_VIEW = tag(4, WIRE_LENGTH)
_REQUEST_MOVE_MS = tag(5, WIRE_VARINT)
_REQUEST_BANK_MS = tag(6, WIRE_VARINT)
_REQUEST_STRIKES = tag(7, WIRE_VARINT)
_REQUEST_LAST_RTT_MS = tag(8, WIRE_VARINT)
# Phase: PHASE_BID = 1, PHASE_TRUMP = 2, PHASE_CARD = 3 (cards.proto)
_PHASES = {Phase.AUCTION: 1, Phase.TRUMP: 2, Phase.PLAY: 3}
# Choice { oneof kind { Bid bid = 1; Suit trump = 2; Card card = 3 } }, each as a legal entry
_LEGAL_CARDS = tuple(
    length_delimited(_REQUEST_LEGAL, length_delimited(tag(3, WIRE_LENGTH), data))
    for data in _CARD_BYTES
)
_LEGAL_TRUMPS = {
    suit: length_delimited(_REQUEST_LEGAL, tag(2, WIRE_VARINT) + varint(int(suit) + 1))
    for suit in Suit
}


@functools.lru_cache(maxsize=256)
def _legal_bid(contract: str) -> bytes:
    return length_delimited(
        _REQUEST_LEGAL, length_delimited(tag(1, WIRE_LENGTH), string(_BID_CONTRACT, contract))
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
    bid = string(_BID_CONTRACT, contract)
    return uint(_BID_MADE_SEAT, seat) + length_delimited(_BID_MADE_BID, bid)


def _trick(trick: TrickTaken) -> bytes:
    """A TrickTaken's fields (not wrapped)."""
    cards = _TRICK_CARDS
    return b"".join(
        [
            uint(_TRICK_NUMBER, trick.trick_number),
            uint(_TRICK_LEADER, trick.leader),
            *[cards[card.index] for card in trick.cards],
            uint(_TRICK_WINNER, trick.winner),
        ]
    )


# Each view field of a deal's bids, tricks and numbers, kept by identity
# (brandeln.arena.codec.identity_cache).
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
    lambda values: packed(_VIEW_TRICKS_WON, values), sequences=True
)
_balances_field: ByIdentity[Sequence[int], bytes] = ByIdentity(
    lambda values: packed(_VIEW_MATCH_BALANCES, values), sequences=True
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
            uint(_STARTED_DEAL_NUMBER, deal_number),
            uint(_STARTED_DEALER, dealer),
            uint(_STARTED_FOREHAND, forehand),
            _cards(_STARTED_HAND, hand),
        ]
    )


def view(view: PlayerView, match_balances: Sequence[int], deal_number: int) -> bytes:
    """A PlayerView's bytes, with the match layer's fields (as ``view_to_pb``)."""
    current = _VIEW_CURRENT_TRICK
    trump = view.trump
    parts = [
        uint(_VIEW_SEAT, view.seat),
        uint(_VIEW_DEALER, view.dealer),
        uint(_VIEW_FOREHAND, view.forehand),
        _hand(view.hand.mask, trump, view.trump_order),
        _auction_field(view.auction),
    ]
    if view.soloist is not None:
        parts.append(_VIEW_SOLOIST + varint(view.soloist))
    if view.contract:
        parts.append(string(_VIEW_CONTRACT, view.contract))
    if trump is not None:
        parts.append(_VIEW_TRUMP + varint(int(trump) + ENUM_OFFSET))
    parts.append(_tricks_field(view.tricks))
    if view.current_trick_leader:
        parts.append(_VIEW_LEADER + varint(view.current_trick_leader))
    parts += [current[card.index] for card in view.current_trick]
    parts.append(_tricks_won_field(view.tricks_won))
    if view.deal_payments:
        parts.append(packed(_VIEW_DEAL_PAYMENTS, view.deal_payments))
    parts.append(_balances_field(match_balances))
    parts.append(uint(_VIEW_DEAL_NUMBER, deal_number))
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
            uint(_REQUEST_ID, request_id),
            _REQUEST_PHASE + varint(_PHASES[phase]),
            *[_legal(action) for action in legal],
            length_delimited(_REQUEST_VIEW, view(player_view, match_balances, deal_number)),
            uint(_REQUEST_MOVE_MS, move_ms),
            uint(_REQUEST_BANK_MS, bank_ms),
            uint(_REQUEST_STRIKES, strikes),
            uint(_REQUEST_LAST_RTT_MS, last_rtt_ms),
        ]
    )


def _event(seq: int, kind: bytes, deal_number: int) -> bytes:
    return b"".join([uint(_EVENT_SEQ, seq), kind, uint(_EVENT_DEAL_NUMBER, deal_number)])


@functools.lru_cache(maxsize=1024)
def _card_played(seat: int, index: int) -> bytes:
    fields = uint(_CARD_PLAYED_SEAT, seat) + _CARD_PLAYED_CARD[index]
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
    kind = length_delimited(_EVENT_TRUMP_NAMED, tag(1, WIRE_VARINT) + varint(int(suit) + 1))
    return _event(seq, kind, deal_number)


def trick_taken_event(seq: int, deal_number: int, trick: TrickTaken) -> bytes:
    """A GameEvent{trick_taken}'s bytes."""
    return _event(seq, length_delimited(_EVENT_TRICK_TAKEN, _trick(trick)), deal_number)


def contract_set_event(seq: int, deal_number: int, event: ContractSet) -> bytes:
    """A GameEvent{contract_set}'s bytes."""
    fields = b"".join(
        [
            b"" if event.soloist is None else _CONTRACT_SET_SOLOIST + varint(event.soloist),
            string(_CONTRACT_SET_CONTRACT, event.contract or ""),
            uint(_CONTRACT_SET_PASSED_OUT, int(event.passed_out)),
        ]
    )
    return _event(seq, length_delimited(_EVENT_CONTRACT_SET, fields), deal_number)


def _hand_message(seat: int, cards: CardSet) -> bytes:
    return length_delimited(_ENDED_HANDS, uint(_HAND_SEAT, seat) + _cards(_HAND_CARDS, cards))


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
            uint(_ENDED_DEAL_NUMBER, deal_number),
            b"" if event.soloist is None else _ENDED_SOLOIST + varint(event.soloist),
            string(_ENDED_CONTRACT, event.contract or ""),
            b"" if trump is None else _ENDED_TRUMP + varint(int(trump) + ENUM_OFFSET),
            packed(_ENDED_TRICKS_WON, event.tricks_won),
            uint(_ENDED_MADE, int(bool(event.made))),
            packed(_ENDED_PAYMENTS, event.payments),
            packed(_ENDED_BALANCES, balances),
            *hands,
            uint(_ENDED_POOL, pool),
            uint(_ENDED_PASSED_OUT, int(event.passed_out)),
        ]
    )
    return _event(seq, length_delimited(_EVENT_DEAL_ENDED, fields), deal_number)
