"""The tables of one web app: opening them, seating people, their moves, and each table's match.

A person opens a table (:meth:`TableRoom.open`): the room takes the tables' referee
(:mod:`brandeln.web.table_referee`), registers an identity for the person's seat through Admin
(``RegisterBot``, as for any bot) and opens a seat session with its token
(:class:`brandeln.services.play.seat.PersonSeat`), which waits in the referee's lobby. Other people
take the table's other open seats the same way (:meth:`TableRoom.sit`). Once every person sits,
the table's match is played as ``brandeln match run`` plays one
(:func:`brandeln.ladder.season.one_match.play_one_match`): the sample bots are launched as processes
(and stopped by PID when the match ends, or the app does), registered bots are seated from the
lobby, and the people's sessions are seated like theirs: the referee cannot tell them apart.

A move (:meth:`TableRoom.act`) is sent as the seat's ``Action`` if the decision it answers is
the one open, once per answer; whether it is legal is the referee's to judge, and a rejection
comes back on the session like any bot's (a strike, the request open again). An action
outside the decision's legal list is refused before it is sent (a 422 with the rule's reason):
the page never offers one, and a request made by hand costs the person no strike.

The time control is relaxed for people (:data:`PEOPLE_TIME_CONTROL`): a minute a move and five
more in the bank, the same for every seat of the match.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Final

from brandeln.engine.actions import Action, parse_action
from brandeln.engine.errors import ActionParseError
from brandeln.engine.phase import Phase
from brandeln.engine.plurals import plural
from brandeln.ladder.errors import LadderError
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.season.config import BotSpec, ExternalBot, TimeControl
from brandeln.ladder.season.one_match import OneMatch, play_one_match
from brandeln.services.play.messages import SeatMessage
from brandeln.services.play.sample_players import sample_bot
from brandeln.services.play.seat import PersonSeat, SeatSessionError
from brandeln.web.seat_view import SeatView
from brandeln.web.table_referee import RefereeLink, RefereeUnavailableError, TablesReferee
from brandeln.web.tables import (
    PersonAtTable,
    SeatKind,
    SeatPlan,
    TablePlan,
    TableStatus,
    WebTable,
    new_secret,
    new_table_id,
)

__all__ = [
    "MAX_OPEN_TABLES",
    "PEOPLE_TIME_CONTROL",
    "PEOPLE_TOKEN_ENV",
    "TableRefusedError",
    "TableRoom",
]

PEOPLE_TIME_CONTROL: Final = TimeControl(move_ms=60_000, bank_ms=300_000, max_strikes=3)
MAX_OPEN_TABLES: Final = 8  # each runs up to three bot processes: a small machine's worth
KEEP_ENDED: Final = 32  # ended tables kept for their pages (their matches stay in the store)
WAIT_FOR_PEOPLE_S: Final = 1800.0  # an open seat nobody takes: the table closes
HEARD_THE_END_S: Final = 10.0  # for the people's sessions to read MatchEnded
PEOPLE_TOKEN_ENV: Final = "BRANDELN_PEOPLE_TOKEN"
SEED_BITS: Final = 32
_NOTATION: Final = {
    Phase.AUCTION: "pass or a contract's id (as the buttons name them)",
    Phase.TRUMP: "trump and a suit's letter (trump H)",
    Phase.PLAY: "a card of your hand (HJ: the jack of hearts)",
}


class TableRefusedError(Exception):
    """A table or a move refused: ``status`` and one line saying why."""

    def __init__(self, status: HTTPStatus, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass
class _Running:
    """What an open table holds: its referee, an Admin client to it, its task."""

    link: RefereeLink
    admin: AdminClient
    task: asyncio.Task[None] | None = None


class TableRoom:
    """The tables of one app at ``referee``; ``bots_dir(table_id)`` (None: a temporary
    folder) receives a table's sample bots' output; ``people_token``: what a person must give
    to open a table or take a seat (None: nothing, a local arena)."""

    def __init__(
        self,
        referee: TablesReferee,
        *,
        bots_dir: Callable[[str], Path] | None = None,
        people_token: str | None = None,
        max_open: int = MAX_OPEN_TABLES,
        time_control: TimeControl = PEOPLE_TIME_CONTROL,
        wait_for_people_s: float = WAIT_FOR_PEOPLE_S,
    ) -> None:
        self.referee = referee
        self.people_token = people_token or None
        self.max_open = max_open
        self.time_control = time_control
        self.wait_for_people_s = wait_for_people_s
        self.tables: dict[str, WebTable] = {}
        self._running: dict[str, _Running] = {}
        self._scratch: Path | None = None
        self._bots_dir = bots_dir

    # -- reading ------------------------------------------------------------------------

    def table(self, table_id: str) -> WebTable | None:
        return self.tables.get(table_id)

    def listed(self) -> list[WebTable]:
        """Every table kept, newest first."""
        return list(reversed(self.tables.values()))

    def check_token(self, given: str) -> None:
        """Refuse a person without the people token, when the server asks one (403)."""
        wanted = self.people_token
        if wanted is not None and not secrets.compare_digest(given.encode(), wanted.encode()):
            raise TableRefusedError(
                HTTPStatus.FORBIDDEN,
                "this server asks for its people token to open a table or take a seat: ask "
                "its operator for it (who set it with brandeln web --people-token or "
                f"${PEOPLE_TOKEN_ENV})",
            )

    # -- opening and sitting --------------------------------------------------------------

    async def open(self, plan: TablePlan, name: str) -> tuple[WebTable, PersonAtTable]:
        """A new table, its first open seat taken by ``name``."""
        if sum(not table.status.over for table in self.tables.values()) >= self.max_open:
            raise TableRefusedError(
                HTTPStatus.SERVICE_UNAVAILABLE,
                f"{plural(self.max_open, 'table')} open on this server, the most it takes: "
                "wait for one to end",
            )
        try:
            link = await self.referee.acquire()
        except RefereeUnavailableError as error:
            raise TableRefusedError(HTTPStatus.SERVICE_UNAVAILABLE, str(error)) from None
        table = WebTable(new_table_id(), plan)
        running = _Running(link, AdminClient(link.address, link.admin_token))
        try:
            person = await self._seat(table, running, name)
        except BaseException:
            await running.admin.close()
            await self.referee.release()
            raise
        self._keep(table)
        self._running[table.table_id] = running
        running.task = asyncio.ensure_future(self._run(table, running))
        return table, person

    async def sit(self, table: WebTable, name: str) -> PersonAtTable:
        """``name`` takes the table's first open seat (409 when none is left)."""
        running = self._running.get(table.table_id)
        if running is None or not table.open_seats():
            raise TableRefusedError(HTTPStatus.CONFLICT, "this table has no open seat")
        return await self._seat(table, running, name)

    async def _seat(self, table: WebTable, running: _Running, name: str) -> PersonAtTable:
        seat = table.open_seats()[0]
        person = PersonAtTable(seat, name, new_secret(), SeatView(seat))
        table.people[seat] = person  # taken now: a second person waits for no other's await
        try:
            identity = f"{name}@table-{table.table_id[:8]}-{seat}"
            try:
                person.bot_id, token = await running.admin.register_bot(identity)
            except LadderError as error:
                raise TableRefusedError(
                    HTTPStatus.BAD_GATEWAY, f"the referee did not register the seat: {error}"
                ) from None

            def heard(message: SeatMessage) -> None:
                person.view.add(message)
                table.pulse.beat()

            session = PersonSeat(running.link.address, token, name, heard)
            try:
                await session.open()
            except SeatSessionError as error:
                raise TableRefusedError(HTTPStatus.BAD_GATEWAY, str(error)) from None
        except BaseException:
            del table.people[seat]
            raise
        person.session = session
        table.pulse.beat()
        if not table.open_seats():
            table.seated.set()
        return person

    # -- moves ----------------------------------------------------------------------------

    def act(self, table: WebTable, person: PersonAtTable, request_id: int, text: str) -> Action:
        """Send ``text`` (an action's notation: ``pass``, ``brand``, ``trump H``, ``HJ``) as
        the answer to the open decision ``request_id``; the action sent."""
        opened = person.view.open_request()
        if opened is None or person.session is None:
            raise TableRefusedError(HTTPStatus.CONFLICT, "no decision is yours now")
        asked, sent = opened
        if request_id != asked.request_id:
            raise TableRefusedError(
                HTTPStatus.CONFLICT,
                f"decision {request_id} is not open; the open one is {asked.request_id}",
            )
        if sent:
            raise TableRefusedError(
                HTTPStatus.CONFLICT, "your answer to this decision is on its way to the referee"
            )
        try:
            action = parse_action(text, asked.phase)
        except ActionParseError:
            # Not the engine's message: it quotes the text, and a refusal echoes nothing sent.
            raise TableRefusedError(
                HTTPStatus.BAD_REQUEST, f"action takes {_NOTATION[asked.phase]} now"
            ) from None
        if action not in asked.legal:
            # Refused here, with the rule's reason, rather than sent for the referee to strike:
            # the page never offers it, so only a request made by hand gets this far.
            raise TableRefusedError(
                HTTPStatus.UNPROCESSABLE_ENTITY,
                f"{action} is not yours to play now: {person.view.why_not(action)}",
            )
        person.session.act(asked.request_id, action)
        person.view.sent()
        table.pulse.beat()
        return action

    # -- a table's match ----------------------------------------------------------------------

    async def _run(self, table: WebTable, running: _Running) -> None:
        try:
            try:
                await asyncio.wait_for(table.seated.wait(), self.wait_for_people_s)
            except TimeoutError:
                minutes = round(self.wait_for_people_s / 60)
                table.move_to(
                    TableStatus.CLOSED, error=f"nobody took the open seats within {minutes} min"
                )
                return
            table.move_to(TableStatus.STARTING)
            match = OneMatch(
                bots=tuple(self._player(table, n, plan) for n, plan in enumerate(table.plan.seats)),
                ruleset=table.plan.ruleset,
                deals=table.plan.deals,
                seed=secrets.randbits(SEED_BITS),
                time_control=self.time_control,
            )
            result = await play_one_match(
                running.admin,
                running.link.address,
                match,
                self._logs(table.table_id),
                on_started=lambda match_id: table.move_to(TableStatus.PLAYING, match_id=match_id),
                die_with_parent=True,  # a web server killed outright leaves no bot behind
            )
            await self._heard_the_end(table)
            table.move_to(TableStatus.FINISHED, match_id=result.match_id)
        except LadderError as error:
            table.move_to(TableStatus.FAILED, error=str(error))
        except asyncio.CancelledError:
            table.move_to(TableStatus.CLOSED, error="the web server stopped")
            raise
        finally:
            await self._end(table, running)

    def _player(self, table: WebTable, seat: int, plan: SeatPlan) -> BotSpec:
        """The seat as the match's bot: people and registered bots by id, sample bots by
        command (each named after its seat: names are unique in a match)."""
        if plan.kind is SeatKind.SAMPLE:
            return sample_bot(plan.bot, f"{plan.bot}-{seat}")
        if plan.kind is SeatKind.REGISTERED:
            return ExternalBot(name=f"bot-{seat}", bot_id=plan.bot)
        return ExternalBot(name=f"person-{seat}", bot_id=table.people[seat].bot_id)

    async def _heard_the_end(self, table: WebTable) -> None:
        """Wait (a while at most) until every person's page can show how the match ended."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + HEARD_THE_END_S
        seen = table.pulse.version
        while not all(person.view.final for person in table.people.values()):
            if loop.time() >= deadline:
                return
            gone = asyncio.Event()
            await table.pulse.wait(seen, deadline - loop.time(), gone)
            seen = table.pulse.version

    async def _end(self, table: WebTable, running: _Running) -> None:
        for person in table.people.values():
            if person.session is not None:
                await person.session.close()
        await running.admin.close()
        await self.referee.release()
        self._running.pop(table.table_id, None)
        table.pulse.beat()

    def _keep(self, table: WebTable) -> None:
        self.tables[table.table_id] = table
        ended = [key for key, kept in self.tables.items() if kept.status.over]
        for key in ended[: max(0, len(ended) - KEEP_ENDED)]:
            del self.tables[key]

    def _logs(self, table_id: str) -> Path:
        if self._bots_dir is not None:
            return self._bots_dir(table_id)
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="brandeln-tables-"))
        return self._scratch / table_id

    async def close(self) -> None:
        """End every table (their bots are stopped), then the referee of the app's own."""
        tasks = [running.task for running in self._running.values() if running.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.referee.close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
