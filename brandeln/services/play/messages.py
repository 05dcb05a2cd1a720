"""What a seat session hears from the referee, as values (:mod:`brandeln.services.play.seat` reads
them off the wire): the web front holds a person's seat without touching a message.

Each is what one ``RefereeMessage`` says to that seat and nothing more: its own hand, its own
view, the public events (the protocol's records, :mod:`brandeln.protocol.decode`), the referee's
answers to its actions, and the match's result.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from brandeln.engine.actions import Action
from brandeln.engine.cards import Card
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.view import PlayerView
from brandeln.protocol.decode import LiveEvent
from brandeln.protocol.statuses import MatchStatus

__all__ = [
    "Asked",
    "DealBegan",
    "MatchBegan",
    "MatchOver",
    "RejectCode",
    "Rejected",
    "SeatMessage",
    "SessionEnded",
    "Welcomed",
]


class RejectCode(enum.StrEnum):
    """Why the referee did not accept an action (``ActionRejected.code``)."""

    ILLEGAL = "illegal"
    STALE_REQUEST = "stale request"
    WRONG_PHASE = "wrong phase"
    MALFORMED = "malformed"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Welcomed:
    """The referee took the Hello: the session waits in its lobby."""

    session_id: str
    bot_id: str


@dataclass(frozen=True, slots=True)
class MatchBegan:
    """Seated: the match, this seat, every seat's name (its Hello name, else its registered
    one), the rules and the time control."""

    match_id: str
    seat: int
    players: tuple[str, ...]
    ruleset: Ruleset
    deals: int
    move_ms: int
    bank_ms: int
    max_strikes: int


@dataclass(frozen=True, slots=True)
class DealBegan:
    """A deal starts: this seat's own cards."""

    deal: int
    dealer: int
    forehand: int
    hand: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Asked:
    """A decision is this seat's: the legal choices in canonical order (R12.3), the seat's
    view, the time left when the request was sent, and its strikes so far."""

    request_id: int
    phase: Phase
    legal: tuple[Action, ...]
    view: PlayerView
    deal: int
    balances: tuple[int, ...]
    move_ms: int
    bank_ms: int
    strikes: int


@dataclass(frozen=True, slots=True)
class Rejected:
    """The referee did not accept an action: the request stays open while its time lasts."""

    request_id: int
    code: RejectCode
    reason: str


@dataclass(frozen=True, slots=True)
class MatchOver:
    """The match's end: balances and ranks by seat, the seats that forfeited."""

    match_id: str
    status: MatchStatus
    balances: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeited: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SessionEnded:
    """The stream ended (``reason`` one line): no more messages come."""

    reason: str


SeatMessage = (
    Welcomed | MatchBegan | DealBegan | Asked | LiveEvent | Rejected | MatchOver | SessionEnded
)
