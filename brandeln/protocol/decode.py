"""A streamed ``GameEvent`` read into the protocol's records: the reverse of the referee's
``brandeln.arena.codec.event_to_pb``, for whoever watches a match over the wire (the ladder's tally,
``brandeln watch``, the web's live table).

A live event is the log's record of it (:class:`brandeln.protocol.events.EventRecord`) or a penalty
(:class:`LivePenalty`), plus what only the wire tells at a deal's end: the match balances,
the Haferl pool and every hand (:class:`brandeln.protocol.events.DealEndedRecord` carries them).

>>> from brandeln.v1 import cards_pb2
>>> event = event_from_pb(cards_pb2.GameEvent(seq=3, deal_number=1,
...     card_played=cards_pb2.CardPlayed(seat=2, card=cards_pb2.Card(
...         suit=cards_pb2.SUIT_HEARTS, rank=cards_pb2.RANK_JACK))))
>>> event
EventRecord(seq=3, deal=1, body=CardPlayedRecord(seat=2, card='HJ'))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from brandeln.engine.cards import Card, Rank, Suit, format_cards
from brandeln.protocol.events import (
    BidMadeRecord,
    CardPlayedRecord,
    ContractSetRecord,
    DealEndedRecord,
    EventBody,
    EventRecord,
    Penalty,
    TrickTakenRecord,
    TrumpNamedRecord,
)
from brandeln.protocol.statuses import seat_outcome_from_pb
from brandeln.v1 import cards_pb2

__all__ = ["DecodeError", "LiveEvent", "LivePenalty", "event_from_pb"]

# The protocol's enums count from 1 (0 is *_UNSPECIFIED); the engine's from 0.
_ENUM_OFFSET = 1


class DecodeError(ValueError):
    """A streamed event that does not read as one of the protocol's (the message says why)."""


@dataclass(frozen=True, slots=True)
class LivePenalty:
    """A ``SeatPenalized`` event: the penalty and its number in the match."""

    kind: ClassVar[str] = "seat_penalized"
    seq: int
    penalty: Penalty


LiveEvent = EventRecord | LivePenalty


def _suit(value: int) -> str:
    try:
        return Suit(value - _ENUM_OFFSET).letter
    except ValueError:
        raise DecodeError(f"suit {value} is not a Suit value") from None


def _card(card: cards_pb2.Card) -> Card:
    try:
        return Card(Suit(card.suit - _ENUM_OFFSET), Rank(card.rank - _ENUM_OFFSET))
    except ValueError:
        raise DecodeError(f"card ({card.suit}, {card.rank}) is not a card") from None


def _cards(cards: Iterable[cards_pb2.Card]) -> str:
    return format_cards([_card(card) for card in cards])


def event_from_pb(event: cards_pb2.GameEvent) -> LiveEvent | None:
    """The record of one streamed public event; None for a kind this side does not know (a
    newer referee's). Raises :class:`DecodeError` for a card or suit out of range."""
    seq, deal = int(event.seq), int(event.deal_number)
    kind = event.WhichOneof("kind")
    if kind == "bid_made":
        body: EventBody = BidMadeRecord(event.bid_made.seat, event.bid_made.bid.contract)
    elif kind == "contract_set":
        contract = event.contract_set
        body = ContractSetRecord(
            contract.soloist if contract.HasField("soloist") else None,
            contract.contract or None,
            contract.passed_out,
        )
    elif kind == "trump_named":
        body = TrumpNamedRecord(_suit(event.trump_named.suit))
    elif kind == "card_played":
        body = CardPlayedRecord(event.card_played.seat, str(_card(event.card_played.card)))
    elif kind == "trick_taken":
        trick = event.trick_taken
        body = TrickTakenRecord(trick.trick_number, trick.leader, _cards(trick.cards), trick.winner)
    elif kind == "deal_ended":
        body = _deal_ended(event.deal_ended)
        deal = deal or int(event.deal_ended.deal_number)
    elif kind == "seat_penalized":
        penalized = event.seat_penalized
        try:
            code = seat_outcome_from_pb(penalized.outcome, penalized.code)
        except ValueError:
            raise DecodeError(f"penalty code {penalized.code!r} is not a seat outcome") from None
        return LivePenalty(
            seq, Penalty(deal, penalized.seat, code, penalized.reason, penalized.strikes)
        )
    else:
        return None
    return EventRecord(seq, deal, body)


def _deal_ended(ended: cards_pb2.DealEnded) -> DealEndedRecord:
    soloist = ended.soloist if ended.HasField("soloist") else None
    hands = sorted(ended.hands, key=lambda hand: hand.seat)
    return DealEndedRecord(
        soloist=soloist,
        contract=ended.contract or None,
        trump=_suit(ended.trump) if ended.trump else None,
        passed_out=ended.passed_out,
        tricks_won=tuple(ended.tricks_won),
        made=ended.made if soloist is not None else None,
        payments=tuple(ended.payments),
        balances=tuple(ended.balances),
        hands=tuple(_cards(hand.cards) for hand in hands),
        pool=int(ended.pool),
    )
