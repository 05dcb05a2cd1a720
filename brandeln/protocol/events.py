"""The public events of a match as its log records them, one dataclass per kind, and a seat's
penalty (the log's layout: ``brandeln.arena.matchlog``).

A log keeps each public event in a compact form: cards and suits in notation, the deal's
result without the hands (the ``deal`` record has them). The referee makes an
:class:`EventRecord` from the engine's event (:meth:`EventRecord.of`) and writes its
``to_json``; a reader of a log gets the same classes back (:meth:`EventRecord.from_json`,
after ``brandeln.arena.logschema`` has validated the line), and a reader of a live stream too
(:func:`brandeln.protocol.decode.event_from_pb`), so every reader takes the fields by name instead
of rebuilding them from keys. A kind this reader does not know (a newer writer's) reads as
:class:`OtherEvent`, kept as it is.

>>> from brandeln.engine.events import TrumpNamed
>>> from brandeln.engine.cards import Suit
>>> record = EventRecord.of(TrumpNamed(Suit.HEARTS), seq=7, deal=1)
>>> record.to_json()
{'type': 'event', 'seq': 7, 'deal': 1, 'kind': 'trump_named', 'suit': 'H'}
>>> EventRecord.from_json(record.to_json()) == record
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from brandeln.engine.cards import format_cards
from brandeln.engine.events import (
    BidMade,
    CardPlayed,
    ContractSet,
    DealEnded,
    Event,
    TrickTaken,
    TrumpNamed,
)
from brandeln.protocol.statuses import SeatOutcome

__all__ = [
    "BidMadeRecord",
    "CardPlayedRecord",
    "ContractSetRecord",
    "DealEndedRecord",
    "EventBody",
    "EventRecord",
    "OtherEvent",
    "Penalty",
    "TrickTakenRecord",
    "TrumpNamedRecord",
]

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class BidMadeRecord:
    """A bid or a pass (``bid``: the contract id or ``pass``)."""

    kind: ClassVar[str] = "bid_made"
    seat: int
    bid: str

    def fields(self) -> Json:
        return {"seat": self.seat, "bid": self.bid}


@dataclass(frozen=True, slots=True)
class ContractSetRecord:
    """The auction's result."""

    kind: ClassVar[str] = "contract_set"
    soloist: int | None
    contract: str | None
    passed_out: bool

    def fields(self) -> Json:
        return {"soloist": self.soloist, "contract": self.contract, "passed_out": self.passed_out}


@dataclass(frozen=True, slots=True)
class TrumpNamedRecord:
    """The trump suit named (its letter)."""

    kind: ClassVar[str] = "trump_named"
    suit: str

    def fields(self) -> Json:
        return {"suit": self.suit}


@dataclass(frozen=True, slots=True)
class CardPlayedRecord:
    """A card played (in notation, ``HJ``)."""

    kind: ClassVar[str] = "card_played"
    seat: int
    card: str

    def fields(self) -> Json:
        return {"seat": self.seat, "card": self.card}


@dataclass(frozen=True, slots=True)
class TrickTakenRecord:
    """A trick taken: its number (from 1), leader, cards in play order, winner."""

    kind: ClassVar[str] = "trick_taken"
    trick: int
    leader: int
    cards: str
    winner: int

    def fields(self) -> Json:
        return {
            "trick": self.trick,
            "leader": self.leader,
            "cards": self.cards,
            "winner": self.winner,
        }


@dataclass(frozen=True, slots=True)
class DealEndedRecord:
    """A deal's result. A log's record stops there (the hands are in the deal's ``deal``
    record); one read from the wire also has the match balances after the deal, the Haferl
    pool and every hand as dealt (the blind last in ``three-player``), which ``to_json``
    writes only when present."""

    kind: ClassVar[str] = "deal_ended"
    soloist: int | None
    contract: str | None
    trump: str | None
    passed_out: bool
    tricks_won: tuple[int, ...]
    made: bool | None
    payments: tuple[int, ...]
    balances: tuple[int, ...] = ()
    hands: tuple[str, ...] = ()
    pool: int | None = None

    def fields(self) -> Json:
        fields: Json = {
            "soloist": self.soloist,
            "contract": self.contract,
            "trump": self.trump,
            "passed_out": self.passed_out,
            "tricks_won": list(self.tricks_won),
            "made": self.made,
            "payments": list(self.payments),
        }
        if self.balances:
            fields["balances"] = list(self.balances)
        if self.hands:
            fields["hands"] = list(self.hands)
        if self.pool is not None:
            fields["pool"] = self.pool
        return fields


@dataclass(frozen=True, slots=True)
class OtherEvent:
    """An event of a kind this reader does not know, its fields kept as they are."""

    kind: str
    values: Json

    def fields(self) -> Json:
        return dict(self.values)


EventBody: TypeAlias = (
    BidMadeRecord
    | ContractSetRecord
    | TrumpNamedRecord
    | CardPlayedRecord
    | TrickTakenRecord
    | DealEndedRecord
    | OtherEvent
)


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One public event of the log: its number in the match, its deal, and what happened."""

    seq: int
    deal: int
    body: EventBody

    @property
    def kind(self) -> str:
        return self.body.kind

    def to_json(self) -> Json:
        return {
            "type": "event",
            "seq": self.seq,
            "deal": self.deal,
            "kind": self.body.kind,
            **self.body.fields(),
        }

    @classmethod
    def of(cls, event: Event, seq: int, deal: int) -> EventRecord:
        """The record of an engine event."""
        return cls(seq, deal, _body_of(event))

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> EventRecord:
        """The record of a validated ``event`` line (brandeln.arena.logschema)."""
        return cls(int(record["seq"]), int(record["deal"]), _body_from_json(record))


@dataclass(frozen=True, slots=True)
class Penalty:
    """A strike or a forfeit of a seat, with its (clipped) reason: a log's ``penalty`` record,
    and what a ``SeatPenalized`` event tells (without its number in the match)."""

    deal: int
    seat: int
    code: SeatOutcome
    reason: str
    strikes: int  # the seat's strikes after this one

    def to_json(self) -> Json:
        return {
            "type": "penalty",
            "deal": self.deal,
            "seat": self.seat,
            "code": self.code.value,
            "reason": self.reason,
            "strikes": self.strikes,
        }

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> Penalty:
        """A validated ``penalty`` line (an unknown ``code``: ValueError)."""
        return cls(
            record["deal"],
            record["seat"],
            SeatOutcome(record["code"]),
            record["reason"],
            record["strikes"],
        )


def _body_of(event: Event) -> EventBody:
    if isinstance(event, BidMade):
        return BidMadeRecord(event.seat, event.bid.contract)
    if isinstance(event, ContractSet):
        return ContractSetRecord(event.soloist, event.contract, event.passed_out)
    if isinstance(event, TrumpNamed):
        return TrumpNamedRecord(event.suit.letter)
    if isinstance(event, CardPlayed):
        return CardPlayedRecord(event.seat, str(event.card))
    if isinstance(event, TrickTaken):
        return TrickTakenRecord(
            event.trick_number, event.leader, format_cards(event.cards), event.winner
        )
    if isinstance(event, DealEnded):
        return DealEndedRecord(
            soloist=event.soloist,
            contract=event.contract,
            trump=None if event.trump is None else event.trump.letter,
            passed_out=event.passed_out,
            tricks_won=tuple(event.tricks_won),
            made=event.made,
            payments=tuple(event.payments),
        )
    raise TypeError(f"not a public event: {event!r}")


def _body_from_json(record: Mapping[str, Any]) -> EventBody:
    kind = str(record["kind"])
    if kind == "bid_made":
        return BidMadeRecord(record["seat"], record["bid"])
    if kind == "contract_set":
        return ContractSetRecord(record["soloist"], record["contract"], record["passed_out"])
    if kind == "trump_named":
        return TrumpNamedRecord(record["suit"])
    if kind == "card_played":
        return CardPlayedRecord(record["seat"], record["card"])
    if kind == "trick_taken":
        return TrickTakenRecord(
            record["trick"], record["leader"], record["cards"], record["winner"]
        )
    if kind == "deal_ended":
        return DealEndedRecord(
            soloist=record["soloist"],
            contract=record["contract"],
            trump=record["trump"],
            passed_out=record["passed_out"],
            tricks_won=tuple(record["tricks_won"]),
            made=record["made"],
            payments=tuple(record["payments"]),
            balances=tuple(record.get("balances", ())),
            hands=tuple(record.get("hands", ())),
            pool=record.get("pool"),
        )
    values = {k: v for k, v in record.items() if k not in ("type", "seq", "deal", "kind")}
    return OtherEvent(kind, values)
