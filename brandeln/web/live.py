"""The live table: a running match in the browser, fed by ``Admin.WatchMatch``.

``live_routes(source)`` gives two routes: the page ``/live/{match_id}`` (the replay partial in
live mode) and its server-sent events ``/live/{match_id}/events``. The stream carries only
what a spectator may know (docs/RULES.md R12.1): while a deal is live no hand, only the cards
already played; at ``DealEnded`` the whole deal, every hand revealed, rebuilt through the
engine (:func:`brandeln.web.replay_model.deal_model`). The events come decoded: the protocol's
records (:mod:`brandeln.protocol.decode`) that ``AdminClient.watch_match`` yields, never a protobuf
message.

Each message's SSE ``id`` is the event's ``seq`` (from 1 per match, without gaps, and
``WatchMatch`` sends a late spectator the whole history first), so a browser that reconnects
with ``Last-Event-ID`` gets every event after it once: the stream folds the history again
(the live deal needs it) but sends only what comes after that id.

Each stream holds a ``WatchMatch`` call to the referee and a connection, so at most
:data:`~brandeln.web.stream_cap.MAX_STREAMS` are open at once (:mod:`brandeln.web.stream_cap`): one
more gets a
503. A stream gives its place back when it ends, and when its browser closes it or just goes
away: the disconnect is watched for, even while the match is silent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Final, Protocol

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from brandeln.arena.logreader import MatchLogError, read_log
from brandeln.arena.logrecords import HeaderRecord
from brandeln.engine.cards import Card, parse_cards
from brandeln.ladder.errors import RefereeError, RefereeNotFoundError
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.protocol.decode import LiveEvent, LivePenalty
from brandeln.protocol.events import DealEndedRecord
from brandeln.protocol.statuses import MatchStatus
from brandeln.web.inputs import ID_PATTERN
from brandeln.web.replay_model import Json, LiveDeal, deal_model, match_shell, new_match_state
from brandeln.web.stream_cap import Capped, StreamPlace, StreamSlots
from brandeln.web.templating import environment

__all__ = [
    "KEEPALIVE",
    "EventStreamResponse",
    "LiveMatch",
    "LiveSource",
    "RefereeLiveSource",
    "live_routes",
    "sse_message",
]

RETRY_MS: Final = 2000  # how long a browser waits before it reconnects (SSE ``retry:``)
KEEPALIVE_S: Final = 15.0
KEEPALIVE: Final = ": keep-alive\n\n"  # an SSE comment: EventSource ignores it


class LiveSource(Protocol):
    """Where the live table reads a running match (a referee's Admin service), as values."""

    async def header(self, match_id: str) -> HeaderRecord:
        """The match log's header; raises RefereeNotFoundError for an unknown match."""
        ...

    def watch(self, match_id: str) -> AsyncGenerator[LiveEvent, None]:
        """The match's public events from seq 1, read off the wire
        (``AdminClient.watch_match``); RefereeNotFoundError when it is not running."""
        ...

    async def status(self, match_id: str) -> tuple[MatchStatus, list[int]]:
        """The match's status and balances (once it ended)."""
        ...


@dataclass(frozen=True)
class RefereeLiveSource:
    """A referee's Admin service (``--referee HOST:PORT`` of ``brandeln web``)."""

    address: str
    admin_token: str
    root_certificates: bytes | None = None

    def _client(self) -> AdminClient:
        return AdminClient(self.address, self.admin_token, root_certificates=self.root_certificates)

    async def header(self, match_id: str) -> HeaderRecord:
        async with self._client() as admin:
            _, log_text = await admin.get_match(match_id)
        # The header alone: the deals that follow are the stream's to tell.
        first = log_text.split("\n", 1)[0]
        try:
            return read_log(first, f"referee {self.address}: {match_id}").header
        except MatchLogError as error:
            raise RefereeError(
                f"match {match_id}: its log does not start with a header: {error}"
            ) from None

    async def watch(self, match_id: str) -> AsyncGenerator[LiveEvent, None]:
        async with self._client() as admin:
            async for event in admin.watch_match(match_id):
                yield event

    async def status(self, match_id: str) -> tuple[MatchStatus, list[int]]:
        async with self._client() as admin:
            match, _ = await admin.get_match(match_id)
        return match.status, list(match.balances)


class LiveMatch:
    """A running match folded from its public events: one SSE message per event at most."""

    def __init__(self, header: HeaderRecord) -> None:
        self.match = new_match_state(header)
        self.players = self.match.ruleset.players
        self.deal: LiveDeal | None = None

    def add(self, event: LiveEvent) -> tuple[str, Json] | None:
        """The message an event gives: ``("deal", model)`` when a deal starts (its live model,
        no hand) or ends (every hand revealed), ``("step", {"deal", "step"})`` otherwise."""
        if isinstance(event, LivePenalty):
            return None
        number = event.deal or self.match.deal_number + 1
        starting = self.deal is None or self.deal.number != number
        if starting:
            self.deal = LiveDeal(self.match, number)
        deal = self.deal
        assert deal is not None
        if isinstance(event.body, DealEndedRecord):
            return "deal", self._ended(deal, event.body)
        step = deal.add(event.body)
        if starting:
            return "deal", deal.model()
        if step is None:
            return None
        return "step", {"deal": number, "step": step}

    def _ended(self, deal: LiveDeal, ended: DealEndedRecord) -> Json:
        # Read off the wire, the hands are by seat, the blind (three-player) after them.
        dealt = [parse_cards(hand) for hand in ended.hands]
        hands: list[list[Card]] = [[] for _ in range(self.players)]
        hands[: len(dealt)] = dealt[: self.players]
        blind = dealt[self.players] if len(dealt) > self.players else []
        model, self.match = deal_model(self.match, deal.number, hands, blind, deal.actions)
        self.deal = None
        return model


def sse_message(name: str, data: Any, event_id: int | None = None) -> str:
    """One server-sent event; ``data`` as JSON on one line (json escapes every newline)."""
    head = "" if event_id is None else f"id: {event_id}\n"
    return f"{head}event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


async def _with_keepalive(
    events: AsyncGenerator[LiveEvent, None], every_s: float, gone: asyncio.Event
) -> AsyncGenerator[LiveEvent | None, None]:
    """``events``, with a None after each ``every_s`` without one, until they end or ``gone``
    is set. The pending read is kept across a silence (cancelling it would end the stream),
    and closing this closes ``events`` (the WatchMatch call with it)."""
    pending: asyncio.Future[LiveEvent] | None = None
    stop: asyncio.Future[Any] = asyncio.ensure_future(gone.wait())
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(events))
            waiting: set[asyncio.Future[Any]] = {pending, stop}
            done, _ = await asyncio.wait(
                waiting, timeout=every_s, return_when=asyncio.FIRST_COMPLETED
            )
            if stop in done:
                return
            if not done:
                yield None
                continue
            try:
                event = pending.result()
            except StopAsyncIteration:
                return
            pending = None
            yield event
    finally:
        unfinished: tuple[asyncio.Future[Any] | None, ...] = (pending, stop)
        for future in unfinished:
            if future is not None and not future.done():
                future.cancel()
                with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                    await future
        await events.aclose()


# Longer than any seq (a uint64 has 20 digits): a longer header is no event id.
_EVENT_ID_DIGITS: Final = 20


def _last_event_id(request: Request) -> int:
    text = request.headers.get("last-event-id", "")
    # ASCII digits only: str.isdigit takes "²" too, which int() refuses.
    if text.isascii() and text.isdigit() and len(text) <= _EVENT_ID_DIGITS:
        return int(text)
    return 0


class EventStreamResponse(StreamingResponse):
    """An event stream that sees its browser go even while the match is silent (a server
    tells of a disconnect only when asked for the request's next message), and then ends
    cleanly: ``gone`` stops the events, which close their WatchMatch call themselves (a
    table's seat stream, brandeln.web.table_routes, is one too)."""

    def __init__(self, events: AsyncGenerator[str, None], gone: asyncio.Event) -> None:
        super().__init__(
            events,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        self.events = events
        self.gone = gone

    async def _watch(self, receive: Receive) -> None:
        await self.listen_for_disconnect(receive)
        self.gone.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        watcher = asyncio.ensure_future(self._watch(receive))
        try:
            await self.stream_response(send)
        except OSError:
            pass  # the browser went while a message was on its way
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            # A failed send leaves the events at a yield: close them (and WatchMatch) now.
            await self.events.aclose()


def live_routes(
    source: LiveSource,
    *,
    static_prefix: str = "/static",
    root_path: str = "",
    keepalive_s: float = KEEPALIVE_S,
    slots: StreamSlots | None = None,
) -> list[Route]:
    """The live table's page and its event stream, for a Starlette app.

    ``static_prefix`` is where the app serves web/static (replay.js, replay.css, style.css),
    ``root_path`` the app's mount point; ``keepalive_s`` the longest silence on a stream
    (a comment line then keeps proxies from closing it); ``slots`` caps the streams open at
    once (:data:`brandeln.web.stream_cap.MAX_STREAMS` by default).
    """
    slots = StreamSlots() if slots is None else slots

    async def page(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        if not ID_PATTERN.fullmatch(match_id):
            return _no_such_match()
        try:
            header = await source.header(match_id)
        except RefereeNotFoundError:
            return _no_such_match()
        except RefereeError as error:
            return _unreachable(error)
        replay = match_shell(header)
        replay["live"] = {"events": f"{root_path}/live/{match_id}/events"}
        html = (
            environment()
            .get_template("live.html")
            .render(replay=replay, static_prefix=static_prefix, root_path=root_path)
        )
        return HTMLResponse(html)

    async def stream(
        match_id: str, header: HeaderRecord, after: int, gone: asyncio.Event, place: StreamPlace
    ) -> AsyncGenerator[str, None]:
        yield f"retry: {RETRY_MS}\n\n"
        live = LiveMatch(header)
        watched = _with_keepalive(source.watch(match_id), keepalive_s, gone)
        try:
            async with contextlib.aclosing(watched):
                async for event in watched:
                    if event is None:
                        yield KEEPALIVE
                        continue
                    message = live.add(event)
                    if message is not None and event.seq > after:
                        yield sse_message(message[0], message[1], event.seq)
        except RefereeNotFoundError:
            pass  # not running (any more): the match page has its replay
        if gone.is_set():
            return  # no one left to tell how the match ended
        status, balances = await source.status(match_id)
        # Free before the last message: a browser that has read it can open the next stream.
        place.give_back()
        yield sse_message("end", {"status": status.value, "balances": balances})

    async def events(request: Request, place: StreamPlace) -> Response:
        match_id = request.path_params["match_id"]
        if not ID_PATTERN.fullmatch(match_id):
            return Response(status_code=HTTPStatus.NO_CONTENT)
        try:
            header = await source.header(match_id)
        except RefereeNotFoundError:
            # 204 tells EventSource not to reconnect
            return Response(status_code=HTTPStatus.NO_CONTENT)
        except RefereeError as error:
            return _unreachable(error)
        gone = asyncio.Event()
        after = _last_event_id(request)
        return EventStreamResponse(stream(match_id, header, after, gone, place), gone)

    return [
        Route("/live/{match_id}", page, name="live_table"),
        Route("/live/{match_id}/events", Capped(events, slots), name="live_events"),
    ]


def _no_such_match() -> Response:
    # One plain line, as the app's other refusals of a bad address (not a page without one).
    return PlainTextResponse("no match with that id\n", status_code=HTTPStatus.NOT_FOUND)


def _unreachable(error: RefereeError) -> Response:
    return PlainTextResponse(
        f"the referee cannot be asked: {error}\n", status_code=HTTPStatus.BAD_GATEWAY
    )
