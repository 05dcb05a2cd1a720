"""What the referee shows and lets an operator do besides running matches (the ``Admin``
service's reads, and bot identities): a part of :class:`brandeln.arena.referee.Referee`, kept apart
by topic. The servicers call these methods; they never reach into the store, the lobby or a
table themselves.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from brandeln.arena.errors import CloseReason, InvalidRequestError, NotFoundError
from brandeln.arena.matchlog import running_log
from brandeln.arena.session import Lobby
from brandeln.arena.store.database import BotRecord, MatchRecord, RefereeStore
from brandeln.arena.table import Table
from brandeln.protocol.statuses import SessionState
from brandeln.v1 import cards_pb2

__all__ = ["RefereeViews", "SessionView"]


@dataclass(frozen=True, slots=True)
class SessionView:
    """An open seat session as an operator sees it (``SessionInfo``)."""

    session_id: str
    bot_id: str
    bot_name: str
    state: SessionState
    match_id: str  # the running match it is seated at; "" in the lobby
    hello_name: str  # what its Hello called the bot


class RefereeViews:
    """The operator's side of the referee (see the module docstring)."""

    store: RefereeStore
    lobby: Lobby
    tables: dict[str, Table]
    hello_names: dict[str, str]  # what each open session's Hello called its bot

    def bots(self) -> list[BotRecord]:
        """Every registered bot, revoked ones included (``ListBots``)."""
        return self.store.bots()

    def sessions(self) -> list[SessionView]:
        """The seat sessions now open (``ListSessions``); a session's match only while that
        match runs (a finished table releases its seats)."""
        return [
            SessionView(
                session.session_id,
                session.bot_id,
                session.bot_name,
                session.state,
                session.match_id if session.match_id in self.tables else "",
                self.hello_names.get(session.session_id, ""),
            )
            for session in self.lobby.sessions()
        ]

    def matches(self, bot_id: str = "", limit: int = 50, id_prefix: str = "") -> list[MatchRecord]:
        """The match index, newest first (``ListMatches``)."""
        return self.store.matches(bot_id, limit, id_prefix)

    def match(self, match_id: str) -> MatchRecord:
        """One match's index row (NotFoundError if there is none)."""
        return self.store.match(match_id)

    def watch(self, match_id: str) -> asyncio.Queue[cards_pb2.GameEvent | None]:
        """A running match's public events for a spectator (``WatchMatch``): those so far, then
        each as it is published; None once the match is over. NotFoundError if it is not
        running."""
        table = self.tables.get(match_id)
        if table is None:
            raise NotFoundError(f"no running match with id {match_id!r}")
        queue: asyncio.Queue[cards_pb2.GameEvent | None] = asyncio.Queue()
        for event in table.audience.history():
            queue.put_nowait(event)
        table.audience.watchers.append(queue)
        return queue

    def register_bot(self, name: str) -> tuple[BotRecord, str]:
        try:
            return self.store.register_bot(name)
        except ValueError as error:
            raise InvalidRequestError(str(error)) from None

    def rotate_bot_token(self, bot_id: str) -> str:
        """Give a bot a new token; the old one is refused from now on, and every session opened
        with it is ended (a process still holding the old token plays no more)."""
        token = self.store.rotate_token(bot_id)
        for session in self.lobby.sessions():
            if session.bot_id == bot_id:
                session.close(
                    CloseReason.TOKEN_ROTATED,
                    "the bot's token was replaced; connect with the new one",
                )
        return token

    async def match_log(self, record: MatchRecord) -> bytes:
        """A match's log as far as it may be read now (``GetMatch``).

        A running match's stops at its last finished deal (the file holds no more, and a flush
        under way is not read half); the seed is only in the footer: nothing in it tells the
        cards of the deal in play or of those to come. Raises OSError if the file is unreadable.
        The bytes are the file's: the caller checks that they are UTF-8.
        """
        table = self.tables.get(record.match_id)
        if table is None or table.done.is_set():
            return await asyncio.to_thread(self.store.read_log, record.log_path)
        committed = table.log.committed
        data = await asyncio.to_thread(self.store.read_log, record.log_path)
        return running_log(data[:committed], table.header)
