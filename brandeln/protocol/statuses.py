"""The closed sets of the protocol, one enum each; their values are the words the wire's string
fields and the match logs carry (docs/PROTOCOL.md).

The wire also carries each as a protobuf enum beside the old string field (added in version 1,
so clients that read the strings keep working): :func:`match_status_from_pb` and friends read
the enum, falling back to the string a referee older than the enum sent.

>>> MatchStatus("finished") is MatchStatus.FINISHED
True
>>> SeatOutcome.TIMEOUT.is_strike, SeatOutcome.FORFEITED.is_strike
(True, False)
>>> match_status_from_pb(match_status_to_pb(MatchStatus.ABORTED))
<MatchStatus.ABORTED: 'aborted'>
>>> match_status_from_pb(0, "running")  # a referee older than the enum
<MatchStatus.RUNNING: 'running'>
"""

from __future__ import annotations

import enum

from brandeln.v1 import admin_pb2, cards_pb2

__all__ = [
    "MatchStatus",
    "SeatOutcome",
    "SessionState",
    "match_status_from_pb",
    "match_status_to_pb",
    "seat_outcome_from_pb",
    "seat_outcome_to_pb",
    "session_state_from_pb",
    "session_state_to_pb",
]


class MatchStatus(enum.StrEnum):
    """A match's state: ``MatchSummary.status`` on the wire, the footer's in a log."""

    RUNNING = "running"
    FINISHED = "finished"
    ABORTED = "aborted"


class SeatOutcome(enum.StrEnum):
    """How a decision ended (a closed set; the detail goes in a separate field): a decision
    record's ``status`` and a penalty's ``code`` (``SeatPenalized.code`` on the wire)."""

    OK = "ok"
    TIMEOUT = "timeout"
    ILLEGAL = "illegal"
    MALFORMED = "malformed"
    PROTOCOL_ERROR = "protocol_error"
    DISCONNECTED = "disconnected"
    FORFEITED = "forfeited"

    @property
    def is_strike(self) -> bool:
        """Whether a penalty of this code counts a strike (a forfeit and a disconnect do not)."""
        return self in _STRIKES


_STRIKES = frozenset(
    {SeatOutcome.TIMEOUT, SeatOutcome.ILLEGAL, SeatOutcome.MALFORMED, SeatOutcome.PROTOCOL_ERROR}
)


class SessionState(enum.StrEnum):
    """Where a seat session is: ``SessionInfo.state`` on the wire."""

    LOBBY = "lobby"
    SEATED = "seated"
    CLOSED = "closed"


# The wire's enum of each: the same member names, prefixed (MATCH_STATUS_FINISHED...).


def match_status_to_pb(status: MatchStatus) -> cards_pb2.MatchStatus.ValueType:
    return cards_pb2.MatchStatus.Value(f"MATCH_STATUS_{status.name}")


def match_status_from_pb(value: int, word: str = "") -> MatchStatus:
    """The status of a ``MatchSummary``: its enum, else (an older referee) its word; a value
    this side does not know reads as ValueError."""
    if value:
        return MatchStatus[
            cards_pb2.MatchStatus.Name(cards_pb2.MatchStatus.ValueType(value)).removeprefix(
                "MATCH_STATUS_"
            )
        ]
    return MatchStatus(word)


def seat_outcome_to_pb(outcome: SeatOutcome) -> cards_pb2.SeatOutcome.ValueType:
    return cards_pb2.SeatOutcome.Value(f"SEAT_OUTCOME_{outcome.name}")


def seat_outcome_from_pb(value: int, word: str = "") -> SeatOutcome:
    """The code of a ``SeatPenalized``: its enum, else its word (ValueError if unknown)."""
    if value:
        return SeatOutcome[
            cards_pb2.SeatOutcome.Name(cards_pb2.SeatOutcome.ValueType(value)).removeprefix(
                "SEAT_OUTCOME_"
            )
        ]
    return SeatOutcome(word)


def session_state_to_pb(state: SessionState) -> admin_pb2.SessionState.ValueType:
    return admin_pb2.SessionState.Value(f"SESSION_STATE_{state.name}")


def session_state_from_pb(value: int, word: str = "") -> SessionState:
    """The state of a ``SessionInfo``: its enum, else its word (ValueError if unknown)."""
    if value:
        return SessionState[
            admin_pb2.SessionState.Name(admin_pb2.SessionState.ValueType(value)).removeprefix(
                "SESSION_STATE_"
            )
        ]
    return SessionState(word)
