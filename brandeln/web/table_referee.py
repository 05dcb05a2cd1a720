"""The referee the tables play at, and the spectators' view of it.

Two kinds, chosen by ``brandeln web``:

- :class:`RunningReferee` (``--referee HOST:PORT``, the admin token from the environment):
  a referee that runs anyway; registered bots connect to it by themselves, and its matches
  are read from it.
- :class:`EmbeddedTablesReferee` (a local data folder): a referee of the web app's own on
  127.0.0.1, started when the first table opens and stopped once no table has needed it for
  :data:`IDLE_STOP_S`, with its matches and logs in the data folder's embedded store
  (``DATA/embedded``, as ``brandeln season run`` keeps them), so a finished table's match is
  in the match list and has its replay. It takes the folder's lock only while it runs: a
  season can run in the same folder whenever no table plays.

A table :meth:`~TablesReferee.acquire`\\ s the referee before its first person sits and
:meth:`~TablesReferee.release`\\ s it when it ends. :class:`TablesLiveSource` lets the live table
(:mod:`brandeln.web.live`, spectators: public information only, the referee's ``WatchMatch``) follow
a table's match at whichever referee runs now.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Final, Protocol

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.errors import StoreError
from brandeln.arena.logrecords import HeaderRecord
from brandeln.ladder.errors import RefereeNotFoundError
from brandeln.protocol.decode import LiveEvent
from brandeln.protocol.statuses import MatchStatus
from brandeln.services import data_folder
from brandeln.web.live import RefereeLiveSource
from brandeln.web.referee_link import RefereeLink

__all__ = [
    "IDLE_STOP_S",
    "EmbeddedTablesReferee",
    "RefereeLink",
    "RefereeUnavailableError",
    "RunningReferee",
    "TablesLiveSource",
    "TablesReferee",
]

IDLE_STOP_S: Final = 60.0  # spectators of a match just ended still read its end from it
OWNER: Final = "brandeln web (its tables)"


class RefereeUnavailableError(Exception):
    """The tables' referee cannot be had now (one line: why, and what to do)."""


class TablesReferee(Protocol):
    """The referee the tables play at."""

    embedded: bool

    async def acquire(self) -> RefereeLink:
        """The referee, started if need be (:class:`RefereeUnavailableError` if it cannot)."""
        ...

    async def release(self) -> None:
        """One table no longer needs it."""
        ...

    def link(self) -> RefereeLink | None:
        """The referee if it runs now (the spectators' streams ask it)."""
        ...

    async def close(self) -> None:
        """The app stops: so does a referee of its own."""
        ...


class RunningReferee:
    """A referee that runs anyway (``--referee``)."""

    embedded = False

    def __init__(self, address: str, admin_token: str) -> None:
        self._link = RefereeLink(address, admin_token)

    async def acquire(self) -> RefereeLink:
        return self._link

    async def release(self) -> None:
        return None

    def link(self) -> RefereeLink | None:
        return self._link

    async def close(self) -> None:
        return None


class EmbeddedTablesReferee:
    """The web app's own referee over ``data``'s embedded store (see the module docstring)."""

    embedded = True

    def __init__(self, data: Path, idle_stop_s: float = IDLE_STOP_S) -> None:
        self.data = data
        self.idle_stop_s = idle_stop_s
        self._referee: EmbeddedReferee | None = None
        self._leases = 0
        self._lock = asyncio.Lock()
        self._stopper: asyncio.Task[None] | None = None

    async def acquire(self) -> RefereeLink:
        async with self._lock:
            self._cancel_stopper()
            if self._referee is None:
                referee = EmbeddedReferee(data_folder.embedded_dir(self.data), owner=OWNER)
                try:
                    await referee.start()
                except StoreError as error:  # DataInUseError among them: a season runs there
                    raise RefereeUnavailableError(
                        f"the tables' referee cannot start: {error}; or start brandeln web "
                        "--referee HOST:PORT to play at a running referee"
                    ) from None
                self._referee = referee
            self._leases += 1
            return RefereeLink(self._referee.address, self._referee.admin_token)

    async def release(self) -> None:
        async with self._lock:
            self._leases = max(0, self._leases - 1)
            if self._leases == 0 and self._referee is not None:
                self._cancel_stopper()
                self._stopper = asyncio.ensure_future(self._stop_when_idle())

    def link(self) -> RefereeLink | None:
        referee = self._referee
        return None if referee is None else RefereeLink(referee.address, referee.admin_token)

    async def close(self) -> None:
        async with self._lock:
            self._cancel_stopper()
            await self._stop()

    def _cancel_stopper(self) -> None:
        if self._stopper is not None and not self._stopper.done():
            self._stopper.cancel()
        self._stopper = None

    async def _stop_when_idle(self) -> None:
        await asyncio.sleep(self.idle_stop_s)
        async with self._lock:
            if self._leases == 0:
                await self._stop()

    async def _stop(self) -> None:
        referee, self._referee = self._referee, None
        if referee is not None:
            await referee.stop()


class TablesLiveSource:
    """The live table's source (:class:`brandeln.web.live.LiveSource`) at the tables' referee."""

    def __init__(self, referee: TablesReferee) -> None:
        self.referee = referee

    def _source(self) -> RefereeLiveSource:
        link = self.referee.link()
        if link is None:
            raise RefereeNotFoundError("no table plays now")
        return RefereeLiveSource(link.address, link.admin_token)

    async def header(self, match_id: str) -> HeaderRecord:
        return await self._source().header(match_id)

    async def watch(self, match_id: str) -> AsyncGenerator[LiveEvent, None]:
        events = self._source().watch(match_id)
        async with contextlib.aclosing(events):
            async for event in events:
                yield event

    async def status(self, match_id: str) -> tuple[MatchStatus, list[int]]:
        return await self._source().status(match_id)
