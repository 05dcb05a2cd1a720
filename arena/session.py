"""Seat sessions (one per `Referee.Play` stream) and the lobby where they wait to be seated.

A session's outgoing messages go through a bounded queue so the referee never blocks on a bot
that does not read: a session whose queue overflows is closed (a slow reader must not stall its
table, nor hold the referee's memory).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from mypy_extensions import mypyc_attr

from brandeln.arena.errors import CloseReason, SeatUnavailableError
from brandeln.arena.limits import OUTBOX_LIMIT
from brandeln.arena.mailbox import Mailbox
from brandeln.arena.seat import Outgoing, Seat
from brandeln.protocol.statuses import SessionState

__all__ = ["OUTBOX_LIMIT", "SHUTDOWN_REASON", "Lobby", "Outgoing", "SeatSession", "SessionState"]

# The close reason of the sessions a stopping referee ends (their streams end UNAVAILABLE, the
# code a client retries on).
SHUTDOWN_REASON = "the referee is shutting down"


# Compiled (setup.py), a class is closed to Python subclasses unless it says otherwise; tests
# subclass this one to script a bot in process.
@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(eq=False)
class SeatSession:
    """One connected seat session of a bot."""

    session_id: str
    bot_id: str
    bot_name: str
    bot_version: str
    rulesets: frozenset[str]
    snapshot_only: bool
    state: SessionState = SessionState.LOBBY
    # Where the session sits, if seated: the match (the referee maps it to its table) and the
    # seat. The session knows no table, so the table and the session do not import each other.
    match_id: str = ""
    seat: Seat | None = None
    # Messages, or their serialized bytes (the hot path serializes a fan-out once for all seats).
    outbox: Mailbox[Outgoing | None] = field(default_factory=Mailbox)
    # Why the referee closed the stream (None: it ended on the bot's side), and the detail.
    close_kind: CloseReason | None = None
    close_detail: str = ""
    # Set by close(): the Play handler waits on it, since a write blocked on a bot that does
    # not read would never reach the outbox's close sentinel.
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    slow_reader: bool = False

    def seat_at(self, match_id: str, seat: Seat) -> None:
        self.match_id = match_id
        self.seat = seat

    def unseat(self) -> None:
        self.match_id = ""
        self.seat = None

    def plays(self, ruleset_id: str) -> bool:
        return not self.rulesets or ruleset_id in self.rulesets

    def send(self, message: Outgoing) -> None:
        """Queue a message without blocking; close the session if the bot stopped reading."""
        if self.state is SessionState.CLOSED:
            return
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            self.slow_reader = True
            self.close(CloseReason.SLOW_READER, "the bot stopped reading the referee's messages")
            return
        self.outbox.put_nowait(message)

    @property
    def close_reason(self) -> str:
        """The close reason as the stream's end reports it ("protocol: ...")."""
        if self.close_kind is None:
            return ""
        if self.close_kind is CloseReason.SHUTDOWN:
            return SHUTDOWN_REASON
        return f"{self.close_kind}: {self.close_detail}"

    def close(self, kind: CloseReason | None = None, detail: str = "") -> None:
        """End the stream: the Play handler sees the sentinel and returns."""
        if self.state is SessionState.CLOSED:
            return
        self.state = SessionState.CLOSED
        self.close_kind = kind
        self.close_detail = detail
        self.outbox.put_nowait(None)
        self.closed.set()


class Lobby:
    """The connected sessions, and the wait for a free one of a given bot."""

    def __init__(
        self, first_session_number: int = 1, next_number: Callable[[], int] | None = None
    ) -> None:
        """Session ids ``s<n>`` count on from ``first_session_number``, or are numbered by
        ``next_number`` (a database sequence several referees share)."""
        self._sessions: dict[str, SeatSession] = {}
        self._changed = asyncio.Condition()
        self._next_number = next_number or itertools.count(first_session_number).__next__

    def new_session_id(self) -> str:
        return f"s{self._next_number()}"

    def sessions(self) -> list[SeatSession]:
        return list(self._sessions.values())

    def add(self, session: SeatSession) -> None:
        """Count a session as connected without telling the RunMatch calls waiting for one
        (synchronous: a session seated at once is no free session for them)."""
        self._sessions[session.session_id] = session

    async def join(self, session: SeatSession) -> None:
        """Add a session and wake the RunMatch calls waiting for a free one."""
        self.add(session)
        await self.notify()

    def leave(self, session: SeatSession) -> None:
        """Forget a session (synchronous, so a cancelled Play handler cannot skip it; no one
        waits for a session to go, so there is nothing to notify)."""
        self._sessions.pop(session.session_id, None)

    def bot_ids(self) -> set[str]:
        """The bots with a session open."""
        return {session.bot_id for session in self._sessions.values()}

    def count(self, bot_id: str) -> int:
        """The connected sessions of a bot."""
        return sum(1 for session in self._sessions.values() if session.bot_id == bot_id)

    async def notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def _free(self, bot_id: str, ruleset_id: str, taken: set[str]) -> SeatSession | None:
        for session in self._sessions.values():
            if (
                session.bot_id == bot_id
                and session.state is SessionState.LOBBY
                and session.session_id not in taken
                and session.plays(ruleset_id)
            ):
                return session
        return None

    async def claim(
        self, bot_ids: Iterable[str], ruleset_id: str, timeout: float
    ) -> list[SeatSession]:
        """Claim one free session per seat (a bot named twice needs two sessions).

        Waits up to ``timeout`` seconds for the sessions to be free; the claimed sessions are
        marked seated at once, so two matches never share one.
        """
        wanted = list(bot_ids)

        def find_all() -> list[SeatSession] | None:
            taken: set[str] = set()
            found = []
            for bot_id in wanted:
                session = self._free(bot_id, ruleset_id, taken)
                if session is None:
                    return None
                taken.add(session.session_id)
                found.append(session)
            return found

        try:
            async with asyncio.timeout(timeout), self._changed:
                found = await self._changed.wait_for(find_all)
        except TimeoutError:
            raise SeatUnavailableError(self._missing_report(wanted, ruleset_id, timeout)) from None
        assert found is not None
        for session in found:
            session.state = SessionState.SEATED
        return found

    def _missing_report(self, wanted: list[str], ruleset_id: str, timeout: float) -> str:
        lacking = []
        for bot_id in dict.fromkeys(wanted):
            need = wanted.count(bot_id)
            mine = [s for s in self._sessions.values() if s.bot_id == bot_id]
            free = [s for s in mine if s.state is SessionState.LOBBY and s.plays(ruleset_id)]
            if len(free) < need:
                lacking.append(
                    f"{bot_id} needs {need} free session(s) for {ruleset_id!r}, has "
                    f"{len(free)} free of {len(mine)} connected"
                )
        return f"no seat after {timeout:g} s: " + "; ".join(lacking or ["sessions were busy"])

    async def release(self, sessions: Iterable[SeatSession]) -> None:
        """Send seated sessions back to the lobby after a match."""
        for session in sessions:
            if session.state is SessionState.SEATED:
                session.state = SessionState.LOBBY
            session.unseat()
        await self.notify()
