"""Which tables an app has, decided once as it is made (:func:`brandeln.web.app.create_app`).

- With ``--referee`` (and its admin token) the tables play there (:class:`RunningReferee`);
  the sample bots' output goes to the data folder (``DATA/tables/ID/bots``) if the app has
  one, else to a temporary folder.
- With a data folder only, at a referee of the app's own on 127.0.0.1 over the folder's
  embedded store (:class:`EmbeddedTablesReferee`), started with the first table.
- With ``--db`` only, none: the tables' referee would have no folder of its own (serve one and
  give ``--referee``); nor with ``--no-tables``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from starlette.routing import Route

from brandeln.services import data_folder
from brandeln.web.data import StorageLocation
from brandeln.web.live import KEEPALIVE_S, LiveSource, live_routes
from brandeln.web.stream_cap import StreamSlots
from brandeln.web.table_referee import (
    EmbeddedTablesReferee,
    RunningReferee,
    TablesLiveSource,
    TablesReferee,
)
from brandeln.web.table_room import TableRoom
from brandeln.web.table_routes import Render, table_routes

__all__ = ["Tables", "tables_for"]

OFF: str = "this server was started with --no-tables"
NO_FOLDER: str = (
    "a database (--db) gives the tables no referee: start brandeln web with a data folder "
    "(--data) or --referee HOST:PORT"
)


@dataclass
class Tables:
    """The app's tables: its room (None: none, ``off_reason`` says why) and the spectators'
    live source at their referee."""

    room: TableRoom | None
    off_reason: str
    live: LiveSource | None

    async def close(self) -> None:
        if self.room is not None:
            await self.room.close()

    def routes(
        self,
        render: Render,
        slots: StreamSlots,
        *,
        live_mounted: bool,
        keepalive_s: float = KEEPALIVE_S,
    ) -> list[Route]:
        """The tables' pages, and the live table's for their spectators unless the app mounts
        it anyway (``live_mounted``: at the same referee, ``--referee``); ``keepalive_s`` the
        longest silence on their event streams."""
        routes = table_routes(
            self.room,
            render=render,
            live=self.live,
            slots=slots,
            off_reason=self.off_reason,
            keepalive_s=keepalive_s,
        )
        if self.live is not None and not live_mounted:
            routes += live_routes(self.live, slots=slots, keepalive_s=keepalive_s)
        return routes


def tables_for(
    location: StorageLocation,
    referee: str | None,
    admin_token: str | None,
    *,
    enabled: bool = True,
    people_token: str | None = None,
) -> Tables:
    """The tables of an app over ``location`` (see the module docstring)."""
    if not enabled:
        return Tables(None, OFF, None)
    found: TablesReferee
    if referee is not None and admin_token:
        found = RunningReferee(referee, admin_token)
    elif location.data is not None:
        found = EmbeddedTablesReferee(location.data)
    else:
        return Tables(None, NO_FOLDER, None)
    data = location.data
    bots_dir = None if data is None else partial(data_folder.table_bots_dir, data)
    room = TableRoom(found, bots_dir=bots_dir, people_token=people_token)
    return Tables(room, "", TablesLiveSource(found))
