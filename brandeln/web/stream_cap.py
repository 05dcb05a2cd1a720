r"""The cap on the live tables' event streams open at once (``brandeln web --max-streams``).

Each stream holds a ``WatchMatch`` call to the referee and a connection for as long as its
match plays, so a server counts them: a stream :meth:`StreamSlots.take`\ s a place before it
asks the referee anything; past the cap it gets a 503 with ``Retry-After`` and one line
(:func:`busy`). The place is given back once however the stream ends (:class:`Capped` holds
it for the whole response; the stream gives it back before its last message, so a browser
that has read that message finds it free).
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Final

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import Receive, Scope, Send

__all__ = ["BUSY_RETRY_AFTER_S", "MAX_STREAMS", "Capped", "StreamPlace", "StreamSlots", "busy"]

# Each is a WatchMatch call to the referee, and a browser tab keeps its stream for the whole
# match: enough for a room of spectators, few enough for one referee to feed.
MAX_STREAMS: Final = 64
BUSY_RETRY_AFTER_S: Final = 10  # what a stream past the cap is told (``Retry-After``)


class StreamSlots:
    r"""At most ``cap`` event streams open at once: a stream :meth:`take`\ s a place before it
    starts (None: none is free) and gives it back (:meth:`StreamPlace.give_back`) when it
    ends."""

    def __init__(self, cap: int = MAX_STREAMS) -> None:
        if cap < 1:
            raise ValueError(f"the cap of live streams must be at least 1, not {cap}")
        self.cap = cap
        self._open = 0
        # A condition, not an asyncio lock: the count is read from other threads (tests, a
        # server's shutdown) as well as from the event loop.
        self._changed = threading.Condition()

    @property
    def open(self) -> int:
        with self._changed:
            return self._open

    def take(self) -> StreamPlace | None:
        with self._changed:
            if self._open >= self.cap:
                return None
            self._open += 1
            self._changed.notify_all()
            return StreamPlace(self)

    def _give_back(self, place: StreamPlace) -> None:
        with self._changed:
            if place.held:
                place.held = False
                self._open -= 1
                self._changed.notify_all()

    def wait_until_open(self, count: int, timeout: float) -> bool:
        """Block (a thread, not the event loop) until exactly ``count`` streams are open;
        False if ``timeout`` seconds pass first."""
        with self._changed:
            return self._changed.wait_for(lambda: self._open == count, timeout)


class StreamPlace:
    """One stream's place under the cap; given back once however often it is given back."""

    def __init__(self, slots: StreamSlots) -> None:
        self.slots = slots
        self.held = True

    def give_back(self) -> None:
        self.slots._give_back(self)


def busy(cap: int) -> Response:
    """The answer past the cap: a 503, when to retry, and why in one line."""
    return PlainTextResponse(
        f"too many live streams: this server serves {cap} at once; try again shortly\n",
        status_code=HTTPStatus.SERVICE_UNAVAILABLE,
        headers={"Retry-After": str(BUSY_RETRY_AFTER_S)},
    )


class Capped:
    """An ASGI endpoint (Starlette calls a function with the request, an object with the
    ASGI triple) that holds a place of ``slots`` for the whole response: taken before the
    referee is asked, given back however the response ends (the match over, the browser
    gone, an error)."""

    def __init__(
        self,
        handler: Callable[[Request, StreamPlace], Awaitable[Response]],
        slots: StreamSlots,
    ) -> None:
        self.handler = handler
        self.slots = slots

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        place = self.slots.take()
        if place is None:
            await busy(self.slots.cap)(scope, receive, send)
            return
        try:
            response = await self.handler(Request(scope, receive), place)
            await response(scope, receive, send)
        finally:
            place.give_back()
