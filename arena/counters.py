"""What the referee counts besides its decisions: sessions, matches, hello timeouts.

Plain ints and dictionaries on the :class:`brandeln.arena.referee.Referee`, written on its event
loop where each event happens (a session opens or ends, a match starts or ends); the decisions'
own counts are :class:`brandeln.arena.decision_counts.DecisionCounts`, on the per-decision path.
Nothing here knows Prometheus: ``brandeln.services.metrics.referee`` reads these when it is scraped
(from its HTTP thread: each read is of an int or a copy made by one C call).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from brandeln.arena.decision_counts import DecisionCounts
from brandeln.arena.errors import CloseReason
from brandeln.protocol.statuses import MatchStatus

__all__ = ["RefereeCounts", "SessionEnd"]


class SessionEnd(enum.StrEnum):
    """How a seat session ended: the referee's :class:`CloseReason` (same names), or its
    stream ended from the other side (the bot closed it, or its connection went)."""

    STREAM_ENDED = "stream_ended"
    PROTOCOL = "protocol"
    TOKEN_ROTATED = "token_rotated"
    SHUTDOWN = "shutdown"
    SLOW_READER = "slow_reader"
    DROPPED = "dropped"

    @classmethod
    def of(cls, kind: CloseReason | None) -> SessionEnd:
        """The end of a session whose ``close_kind`` is ``kind`` (None: not closed by us)."""
        return cls.STREAM_ENDED if kind is None else cls[kind.name]


def _ended_statuses() -> dict[MatchStatus, int]:
    return {status: 0 for status in MatchStatus if status is not MatchStatus.RUNNING}


@dataclass(eq=False)
class RefereeCounts:
    """The referee's counters since it started (gauges are read from its state instead)."""

    decisions: DecisionCounts = field(default_factory=DecisionCounts)
    matches_started: int = 0
    matches_ended: dict[MatchStatus, int] = field(default_factory=_ended_statuses)
    sessions_opened: int = 0
    sessions_closed: dict[SessionEnd, int] = field(
        default_factory=lambda: dict.fromkeys(SessionEnd, 0)
    )
    hello_timeouts: int = 0

    def match_ended(self, status: MatchStatus) -> None:
        self.matches_ended[status] = self.matches_ended.get(status, 0) + 1

    def session_closed(self, end: SessionEnd) -> None:
        self.sessions_closed[end] += 1
