"""What a referee's Admin service tells the ladder, as values
(``brandeln.ladder.referee.admin_client`` reads them off the wire; the CLI and the web front show
them without touching protobuf).

>>> match = RefereeMatch(match_id="m_1", ruleset="standard", bot_ids=("a", "b", "c", "d"),
...     status=MatchStatus.FINISHED)
>>> match.finished, match.names
(True, ('a', 'b', 'c', 'd'))
"""

from __future__ import annotations

from dataclasses import dataclass

from brandeln.ladder.season.duplicate import DecisionLatency
from brandeln.protocol.statuses import MatchStatus, SessionState

__all__ = ["MatchStatus", "RefereeBot", "RefereeMatch", "RefereeSession", "SessionState"]


@dataclass(frozen=True, slots=True)
class RefereeBot:
    """A registered bot (``BotInfo``)."""

    bot_id: str
    name: str
    created_at: int = 0  # milliseconds since the Unix epoch
    revoked: bool = False


@dataclass(frozen=True, slots=True)
class RefereeSession:
    """An open seat session (``SessionInfo``)."""

    session_id: str
    bot_id: str
    bot_name: str
    state: SessionState
    match_id: str = ""  # the running match it is seated at
    hello_name: str = ""  # what its Hello called the bot


@dataclass(frozen=True, slots=True)
class RefereeMatch:
    """A match as the referee's index holds it (``MatchSummary``), running or ended."""

    match_id: str
    ruleset: str
    bot_ids: tuple[str, ...]
    status: MatchStatus
    bot_names: tuple[str, ...] = ()
    balances: tuple[int, ...] = ()
    ranks: tuple[int, ...] = ()
    forfeited: tuple[int, ...] = ()
    strikes: tuple[int, ...] = ()
    deals_played: int = 0
    started_at: int = 0  # milliseconds since the Unix epoch
    ended_at: int = 0  # 0 while running
    latency: tuple[DecisionLatency, ...] = ()  # by seat; only in a RunMatch result

    @property
    def finished(self) -> bool:
        return self.status is MatchStatus.FINISHED

    @property
    def names(self) -> tuple[str, ...]:
        """The bots' registered names by seat (their ids from a referee that sends none)."""
        return self.bot_names or self.bot_ids
