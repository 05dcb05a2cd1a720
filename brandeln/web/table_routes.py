"""The tables' pages: where a person opens a table, takes a seat and plays, and others watch.

- ``GET /tables``: the new-table form (ruleset, deals, who sits where) and the tables kept;
  ``POST /tables`` opens one, its first person seat taken by the poster.
- ``GET /tables/ID``: for a person who sits there, the table as that seat sees it
  (``brandeln/web/static/table.js``, fed by the seat's stream); for anyone else the seats, a form to
  take an open one, and while the match plays the live table (public information only: the
  referee's ``WatchMatch``, :mod:`brandeln.web.live`); ``POST /tables/ID/seats`` takes an open seat.
- ``GET /tables/ID/events``: the seat's server-sent events, one snapshot of its view each
  time it changes (:meth:`brandeln.web.seat_view.SeatView.snapshot`), for the seat's person only.
- ``POST /tables/ID/act``: a move (``request``: the decision's id, ``action``: its notation),
  sent to the referee as the seat's action (:meth:`brandeln.web.table_room.TableRoom.act`).

**Who is who.** No account: taking a seat sets a cookie holding the seat's secret, HttpOnly
(no script reads it), ``SameSite=Strict`` (no other site's page sends it) and scoped to the
table's path. A cookie rather than the address's fragment, so the table's address can be
shared as it is (whoever opens it watches, or takes an open seat) without giving the seat
away. Every post must come from a page of this site (:func:`brandeln.web.form_posts.own_origin`):
with the strict cookie that keeps other sites from acting for a person. A server on a shared
machine may ask for a people token (``brandeln web --people-token``) to open a table or take
a seat; the page says how to get it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from http import HTTPStatus
from typing import Any, Final
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.ladder.errors import RefereeError
from brandeln.services.play.sample_players import SAMPLE_BOTS
from brandeln.web.data import PageNotFoundError
from brandeln.web.form_posts import own_origin, parse_fields, read_form
from brandeln.web.inputs import ID_PATTERN, shown
from brandeln.web.live import (
    KEEPALIVE,
    KEEPALIVE_S,
    RETRY_MS,
    EventStreamResponse,
    LiveSource,
    sse_message,
)
from brandeln.web.replay_model import match_shell
from brandeln.web.stream_cap import Capped, StreamPlace, StreamSlots
from brandeln.web.table_form import (
    MAX_FIELDS,
    MAX_FORM_BYTES,
    person_name,
    read_table,
    single_field,
)
from brandeln.web.table_room import TableRefusedError, TableRoom
from brandeln.web.tables import PersonAtTable, TableStatus, WebTable

__all__ = ["COOKIE_PREFIX", "table_routes"]

COOKIE_PREFIX: Final = "brandeln_seat_"
MAX_MOVE_BYTES: Final = 512
MAX_MOVE_FIELDS: Final = 4
# A page that posts: a browser names its origin in a post's Origin header (which the posts'
# check needs) only under a policy that lets it; "same-origin" still sends no address to other
# sites (brandeln.web.guard's default is "no-referrer", under which Origin is "null").
REFERRER_POLICY: Final = "same-origin"
LOBBY_REFRESH_S: Final = 3  # a watcher's page of a table that waits for its people
MAX_REQUEST_DIGITS: Final = 20

Render = Callable[[Request, str, dict[str, Any], HTTPStatus], Response]


def table_routes(
    room: TableRoom | None,
    *,
    render: Render,
    live: LiveSource | None,
    slots: StreamSlots,
    off_reason: str = "",
    keepalive_s: float = KEEPALIVE_S,
) -> list[Route]:
    """The tables' routes; with ``room`` None the pages say why there are no tables
    (``off_reason``) and every post is refused."""

    def root(request: Request) -> str:
        return str(request.scope.get("root_path", "")).rstrip("/")

    def find(table_id: str) -> WebTable:
        table = (
            room.table(table_id) if room is not None and ID_PATTERN.fullmatch(table_id) else None
        )
        if table is None:
            raise PageNotFoundError(
                f"no table {shown(table_id)} (tables live as long as the server)"
            )
        return table

    def sitting(request: Request, table: WebTable) -> PersonAtTable | None:
        return table.person(request.cookies.get(COOKIE_PREFIX + table.table_id))

    def listing(request: Request, error: TableRefusedError | None = None) -> Response:
        rulesets = [(ruleset, find_ruleset(ruleset).players) for ruleset in RULESET_IDS]
        context = {
            "room": room is not None,
            "off_reason": off_reason,
            "rulesets": rulesets,
            "samples": SAMPLE_BOTS,
            "registered": room is not None and not room.referee.embedded,
            "token_needed": room is not None and room.people_token is not None,
            "tables": [table.json() for table in room.listed()] if room is not None else [],
            "error": error.reason if error is not None else "",
        }
        status = error.status if error is not None else HTTPStatus.OK
        return _posting_page(render(request, "tables.html", context, status))

    async def form(request: Request, max_bytes: int, max_fields: int) -> dict[str, list[str]]:
        if room is None:
            raise TableRefusedError(HTTPStatus.FORBIDDEN, f"no tables here: {off_reason}")
        if not own_origin(request):
            raise TableRefusedError(
                HTTPStatus.FORBIDDEN, "a table takes posts from this site's own pages only"
            )
        body = await read_form(
            request, max_bytes=max_bytes, what="the form", refused=TableRefusedError
        )
        return parse_fields(body, max_fields=max_fields, refused=TableRefusedError)

    def seated(request: Request, table: WebTable, person: PersonAtTable) -> Response:
        # 303: the browser follows with a GET, so a reload does not post the form again.
        path = f"{root(request)}/tables/{quote(table.table_id, safe='')}"
        response = RedirectResponse(path, status_code=HTTPStatus.SEE_OTHER)
        response.set_cookie(
            COOKIE_PREFIX + table.table_id,
            person.secret,
            path=path,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
        return response

    async def tables_page(request: Request) -> Response:
        return listing(request)

    async def open_table(request: Request) -> Response:
        try:
            fields = await form(request, MAX_FORM_BYTES, MAX_FIELDS)
            assert room is not None  # form() refuses posts without one
            room.check_token(single_field(fields, "token"))
            plan, name = read_table(
                fields, samples=SAMPLE_BOTS, registered=not room.referee.embedded
            )
            table, person = await room.open(plan, name)
        except TableRefusedError as refused:
            return listing(request, refused)
        return seated(request, table, person)

    async def table_page(request: Request) -> Response:
        table = find(request.path_params["table_id"])
        person = sitting(request, table)
        path = f"{root(request)}/tables/{quote(table.table_id, safe='')}"
        if person is not None:
            data = {
                "events": f"{path}/events",
                "act": f"{path}/act",
                "matches": f"{root(request)}/matches/",
                "seat": person.seat,
            }
            context = {"table": table.json(person.seat), "data": data}
            return _posting_page(render(request, "table.html", context, HTTPStatus.OK))
        return await watching(request, table)

    async def watching(
        request: Request, table: WebTable, error: TableRefusedError | None = None
    ) -> Response:
        replay, note = None, ""
        if live is not None and table.status is TableStatus.PLAYING and table.match_id:
            try:
                replay = match_shell(await live.header(table.match_id))
                replay["live"] = {"events": f"{root(request)}/live/{table.match_id}/events"}
            except RefereeError as trouble:
                note = f"the live table cannot be shown now: {trouble}"
        waiting = table.status in {TableStatus.WAITING, TableStatus.STARTING}
        context = {
            "table": table.json(),
            "replay": replay,
            "note": note,
            "token_needed": room is not None and room.people_token is not None,
            "refresh": LOBBY_REFRESH_S if waiting and error is None else None,
            "error": error.reason if error is not None else "",
        }
        status = error.status if error is not None else HTTPStatus.OK
        return _posting_page(render(request, "table_watch.html", context, status))

    async def sit(request: Request) -> Response:
        table = find(request.path_params["table_id"])
        try:
            fields = await form(request, MAX_FORM_BYTES, MAX_FIELDS)
            assert room is not None
            if sitting(request, table) is not None:
                raise TableRefusedError(HTTPStatus.CONFLICT, "you already sit at this table")
            room.check_token(single_field(fields, "token"))
            person = await room.sit(table, person_name(fields))
        except TableRefusedError as refused:
            return await watching(request, table, refused)
        return seated(request, table, person)

    async def events(request: Request, place: StreamPlace) -> Response:
        table = find(request.path_params["table_id"])
        person = sitting(request, table)
        if person is None:
            return PlainTextResponse(
                "only a person who sits at this table reads its seat's events\n",
                status_code=HTTPStatus.FORBIDDEN,
            )
        gone = asyncio.Event()
        return EventStreamResponse(stream(table, person, gone, place), gone)

    async def stream(
        table: WebTable, person: PersonAtTable, gone: asyncio.Event, place: StreamPlace
    ) -> AsyncGenerator[str, None]:
        yield f"retry: {RETRY_MS}\n\n"
        seen = -1
        while not gone.is_set():
            if table.pulse.version != seen:
                seen = table.pulse.version
                final = table.status.over and person.view.final
                snapshot = {"table": table.json(person.seat), **person.view.snapshot()}
                snapshot["final"] = final
                if final:
                    place.give_back()  # free before the last message, as the live table's
                yield sse_message("seat", snapshot, seen)
                if final:
                    return
            if not await table.pulse.wait(seen, keepalive_s, gone) and not gone.is_set():
                yield KEEPALIVE

    async def act(request: Request) -> Response:
        table = find(request.path_params["table_id"])
        try:
            person = sitting(request, table)
            if person is None:
                raise TableRefusedError(HTTPStatus.FORBIDDEN, "you hold no seat at this table")
            fields = await form(request, MAX_MOVE_BYTES, MAX_MOVE_FIELDS)
            assert room is not None
            text = single_field(fields, "request")
            if not (text.isascii() and text.isdigit() and len(text) <= MAX_REQUEST_DIGITS):
                raise TableRefusedError(
                    HTTPStatus.BAD_REQUEST, "request takes the decision's id, a whole number"
                )
            action = room.act(table, person, int(text), single_field(fields, "action"))
        except TableRefusedError as refused:
            return PlainTextResponse(f"{refused.reason}\n", status_code=refused.status)
        return PlainTextResponse(f"sent: {action}\n", status_code=HTTPStatus.ACCEPTED)

    return [
        Route("/tables", tables_page, name="tables"),
        Route("/tables", open_table, methods=["POST"], name="open_table"),
        Route("/tables/{table_id}", table_page, name="table"),
        Route("/tables/{table_id}/seats", sit, methods=["POST"], name="table_seats"),
        Route("/tables/{table_id}/events", Capped(events, slots), name="table_events"),
        Route("/tables/{table_id}/act", act, methods=["POST"], name="table_act"),
    ]


def _posting_page(response: Response) -> Response:
    response.headers["referrer-policy"] = REFERRER_POLICY
    return response
