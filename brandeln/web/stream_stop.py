"""Event streams ended when the server stops, as if each one's browser had gone.

A server-sent event stream (a live table, a person's seat) never ends by itself. A server's
graceful stop waits for its responses to end, so uvicorn would wait out its
``timeout_graceful_shutdown`` and then cancel the stream, which it logs as an error with a
traceback ("Exception in ASGI application") on a stop that is no trouble at all.

:class:`EndStreamsAtStop` is a middleware of the app (``app.add_middleware(EndStreamsAtStop,
stop=stop)``); once :meth:`StreamStop.stop` is called (by the server, as it begins to stop),
every response that is an event stream reads a disconnect (``http.disconnect``) from its
request, as when its browser closes the page, and the streams
(``brandeln.web.live.EventStreamResponse``) end cleanly, their last chunk sent. Every other request
is left to finish as the server's graceful stop lets it.
"""

from __future__ import annotations

import asyncio
from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["EndStreamsAtStop", "StreamStop"]

EVENT_STREAM: Final = b"text/event-stream"
_DISCONNECT: Final[Message] = {"type": "http.disconnect"}


class StreamStop:
    """The server's side: :meth:`stop` ends every event stream open now or started later."""

    def __init__(self) -> None:
        self.stopping = False
        self.streams: set[asyncio.Event] = set()  # each open stream's "it ends now"

    def stop(self) -> None:
        self.stopping = True
        for ends in self.streams:
            ends.set()


class EndStreamsAtStop:
    """The app's side, an ASGI middleware: see the module's text."""

    def __init__(self, app: ASGIApp, stop: StreamStop) -> None:
        self.app = app
        self.stop = stop

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        ends = asyncio.Event()

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start" and _is_event_stream(message):
                self.stop.streams.add(ends)
                if self.stop.stopping:
                    ends.set()
            await send(message)

        async def receiving() -> Message:
            if ends.is_set():
                return _DISCONNECT
            message = asyncio.ensure_future(receive())
            ended = asyncio.ensure_future(ends.wait())
            try:
                await asyncio.wait({message, ended}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                ended.cancel()
                if not message.done():
                    message.cancel()
            if message.done() and not message.cancelled():
                return message.result()
            return _DISCONNECT

        try:
            await self.app(scope, receiving, sending)
        finally:
            self.stop.streams.discard(ends)


def _is_event_stream(start: Message) -> bool:
    for name, value in start.get("headers", ()):
        if name.lower() == b"content-type":
            return bool(value.split(b";")[0].strip().lower() == EVENT_STREAM)
    return False
