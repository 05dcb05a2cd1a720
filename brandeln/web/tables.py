"""The tables where people play, as state: who sits where, what the table waits for, how it
ended. :mod:`brandeln.web.table_room` moves a table on; :mod:`brandeln.web.table_routes` shows it.

A table is planned with a ruleset and one :class:`SeatPlan` per seat: a person, a sample bot
(by name) or a registered bot (by id, at a running referee). It waits for its people
(:attr:`TableStatus.WAITING`), then plays one match at the referee and ends. A person's seat
(:class:`PersonAtTable`) holds its secret (the browser's cookie, the only key to that seat's
view and moves), the seat session held for it and the fold of what that session heard
(:class:`brandeln.web.seat_view.SeatView`).

Everything here runs on the server's event loop; :class:`Pulse` tells the pages' event
streams that something changed.
"""

from __future__ import annotations

import asyncio
import enum
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from brandeln.web.seat_view import SeatView

if TYPE_CHECKING:
    from brandeln.services.play.seat import PersonSeat

__all__ = [
    "PersonAtTable",
    "Pulse",
    "SeatKind",
    "SeatPlan",
    "TablePlan",
    "TableStatus",
    "WebTable",
    "new_secret",
    "new_table_id",
]

TABLE_ID_BYTES: Final = 8  # 16 hex digits: the table's address, not a secret
SECRET_BYTES: Final = 24  # a seat's key: as long as a bot's token


def new_table_id() -> str:
    return secrets.token_hex(TABLE_ID_BYTES)


def new_secret() -> str:
    return secrets.token_urlsafe(SECRET_BYTES)


class SeatKind(enum.StrEnum):
    PERSON = "person"
    SAMPLE = "sample bot"
    REGISTERED = "registered bot"


class TableStatus(enum.StrEnum):
    """Where a table stands; the last three are its ends."""

    WAITING = "waiting for people"
    STARTING = "starting the bots"
    PLAYING = "playing"
    FINISHED = "finished"
    FAILED = "failed"
    CLOSED = "closed"

    @property
    def over(self) -> bool:
        return self in {TableStatus.FINISHED, TableStatus.FAILED, TableStatus.CLOSED}


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """Who a seat is for: a person, a sample bot (``bot`` its name) or a registered bot
    (``bot`` its id)."""

    kind: SeatKind
    bot: str = ""

    @property
    def label(self) -> str:
        return "a person" if self.kind is SeatKind.PERSON else self.bot


@dataclass(frozen=True, slots=True)
class TablePlan:
    """A table's match: its ruleset, its deals (None: the ruleset's) and its seats."""

    ruleset: str
    deals: int | None
    seats: tuple[SeatPlan, ...]

    @property
    def person_seats(self) -> tuple[int, ...]:
        return tuple(n for n, seat in enumerate(self.seats) if seat.kind is SeatKind.PERSON)


@dataclass
class PersonAtTable:
    """A person's seat, once taken."""

    seat: int
    name: str
    secret: str
    view: SeatView
    session: PersonSeat | None = None
    bot_id: str = ""  # the identity registered for the seat


class Pulse:
    """A version number that grows with each change, and a wait for the next one."""

    def __init__(self) -> None:
        self.version = 0
        self._changed = asyncio.Event()

    def beat(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait(self, seen: int, timeout_s: float, gone: asyncio.Event) -> bool:
        """Until the version passes ``seen`` (True), ``gone`` is set or ``timeout_s`` passes
        (False)."""
        if self.version != seen:
            return True
        changed = asyncio.ensure_future(self._changed.wait())
        left = asyncio.ensure_future(gone.wait())
        try:
            await asyncio.wait({changed, left}, timeout=timeout_s, return_when="FIRST_COMPLETED")
        finally:
            for waiting in (changed, left):
                waiting.cancel()
        return self.version != seen


@dataclass
class WebTable:
    """One table (see the module docstring)."""

    table_id: str
    plan: TablePlan
    status: TableStatus = TableStatus.WAITING
    people: dict[int, PersonAtTable] = field(default_factory=dict)
    match_id: str = ""
    error: str = ""
    pulse: Pulse = field(default_factory=Pulse)
    seated: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def players(self) -> int:
        return len(self.plan.seats)

    def open_seats(self) -> list[int]:
        if self.status is not TableStatus.WAITING:
            return []
        return [seat for seat in self.plan.person_seats if seat not in self.people]

    def person(self, secret: str | None) -> PersonAtTable | None:
        """The person whose secret this is (compared in constant time), or None."""
        if not secret:
            return None
        for person in self.people.values():
            if secrets.compare_digest(person.secret, secret):
                return person
        return None

    def move_to(self, status: TableStatus, *, match_id: str = "", error: str = "") -> None:
        if self.status.over:
            return  # an end is final
        self.status = status
        self.match_id = match_id or self.match_id
        self.error = error or self.error
        self.pulse.beat()

    def seats_json(self, you: int | None = None) -> list[dict[str, object]]:
        """The seats as the pages list them (a person's name is theirs to choose: text)."""
        rows: list[dict[str, object]] = []
        for n, plan in enumerate(self.plan.seats):
            person = self.people.get(n)
            rows.append(
                {
                    "seat": n,
                    "kind": str(plan.kind),
                    "name": person.name if person is not None else plan.label,
                    "taken": plan.kind is not SeatKind.PERSON or person is not None,
                    "you": n == you,
                }
            )
        return rows

    def json(self, you: int | None = None) -> dict[str, object]:
        return {
            "id": self.table_id,
            "status": str(self.status),
            "over": self.status.over,
            "ruleset": self.plan.ruleset,
            "seats": self.seats_json(you),
            "open_seats": self.open_seats(),
            "match_id": self.match_id,
            "error": self.error,
        }
