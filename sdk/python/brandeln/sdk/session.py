"""Connect a bot to the referee: Hello, the session loop, resumes, several tables, errors.

:func:`run` (blocking) and :func:`play` (async) open one ``Referee.Play`` stream per table.
Each stream is one seat session: it says ``Hello``, answers every ``DecisionRequest`` with an
``Action``, and waits in the lobby between matches. When a stream drops, the session opens a
new one with the same token (and ``resume_match_id`` while a match runs, within the match's
``reconnect_ms``), backing off between attempts. Errors the bot cannot fix by retrying are
raised as :class:`BotKitError` subclasses with a message saying what to do.

>>> from brandeln.sdk import FunctionBot
>>> # run(lambda: FunctionBot(lambda request: 0), server="localhost:50051", token="...")
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import traceback
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import grpc
from grpc import aio

from brandeln.sdk.bot import Bot, InvalidAnswerError, resolve_answer
from brandeln.v1 import bot_pb2, bot_pb2_grpc

PROTOCOL_VERSION: Final = 1
DEFAULT_CONNECT_TIMEOUT_S: Final = 120.0  # long enough to start the referee after the bots
DEFAULT_RECONNECT_MS: Final = 10_000  # PROTOCOL.md: the referee keeps a dropped seat this long
LOG_TEXT_CAP: Final = 4_000  # characters per BotLog message; the referee caps the total
_BACKOFF_FIRST_S: Final = 0.1
_BACKOFF_MAX_S: Final = 2.0

logger = logging.getLogger("brandeln.sdk")


class BotKitError(Exception):
    """A session cannot go on; the message says why and what to check."""


class BadTokenError(BotKitError):
    """The referee does not know the token (``UNAUTHENTICATED``)."""


class ProtocolVersionError(BotKitError):
    """The referee does not speak this protocol version (``FAILED_PRECONDITION``)."""


class ProtocolError(BotKitError):
    """The referee refused a message as malformed (``INVALID_ARGUMENT`` and the like)."""


class UnreachableError(BotKitError):
    """The referee could not be reached (or reached again) in time."""


_RETRYABLE: Final = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)


def error_for_status(error: grpc.aio.AioRpcError, server: str) -> BotKitError:
    """The :class:`BotKitError` for a status the bot cannot fix by retrying."""
    code, details = error.code(), error.details() or ""
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return BadTokenError(
            f"bad token: the referee at {server} rejected it ({details}); check --token or "
            "BRANDELN_TOKEN (tokens come from `brandeln bots add` / Admin.RegisterBot)"
        )
    if code == grpc.StatusCode.FAILED_PRECONDITION:
        return ProtocolVersionError(
            f"protocol version {PROTOCOL_VERSION} refused by the referee at {server}: {details}"
        )
    if code == grpc.StatusCode.UNIMPLEMENTED:
        return ProtocolError(
            f"{server} does not serve brandeln.v1.Referee/Play (is it a Brandeln referee?): "
            f"{details}"
        )
    return ProtocolError(f"the referee at {server} ended the session: {code.name}: {details}")


@dataclass
class SessionOptions:
    """How to reach the referee and how long to keep trying.

    ``ca`` is a PEM file of the CA that signed the referee's certificate (implies TLS); ``tls``
    uses TLS with the system's roots. ``retry_for_s`` is how long a session keeps trying to reach
    the referee (at start, and after a drop outside a match) before it gives up (the first
    failed attempt is logged once as a warning, the retries only at debug level);
    ``handshake_timeout_s`` how long one attempt waits for the ``Welcome``. ``max_matches``
    ends each session after that many matches (``None``: play until stopped).
    """

    server: str
    token: str
    ca: Path | None = None
    tls: bool = False
    retry_for_s: float = DEFAULT_CONNECT_TIMEOUT_S
    handshake_timeout_s: float = 10.0
    max_matches: int | None = None


@dataclass
class SessionStats:
    """What one session did (for logs and tests)."""

    table: int
    matches: int = 0
    requests: int = 0
    answers: int = 0
    fallbacks: int = 0
    rejections: int = 0
    streams: int = 0
    resumes: int = 0
    match_ids: list[str] = field(default_factory=list)


class _StreamDroppedError(Exception):
    """The stream ended or dropped in a way worth retrying."""

    def __init__(self, reason: str, welcomed: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.welcomed = welcomed


class Session:
    """One seat session of one bot; survives dropped streams. Use :func:`play` normally."""

    def __init__(
        self, bot: Bot, options: SessionOptions, channel: aio.Channel, table: int = 0
    ) -> None:
        self.bot = bot
        self.options = options
        self.stats = SessionStats(table=table)
        self._stub = bot_pb2_grpc.RefereeStub(channel)
        self._outbox: asyncio.Queue[bot_pb2.BotMessage | None] = asyncio.Queue()
        self._match_id = ""
        self._reconnect_ms = DEFAULT_RECONNECT_MS
        self._open_request: bot_pb2.DecisionRequest | None = None
        self._fell_back: set[int] = set()
        self._decision: asyncio.Task[None] | None = None
        self._done = False
        self._loop: asyncio.AbstractEventLoop | None = None

    # --- the loop over streams ---------------------------------------------------------
    async def run(self) -> SessionStats:
        """Play until ``max_matches`` are done (or forever); raise :class:`BotKitError`."""
        self._loop = asyncio.get_running_loop()
        self.bot._log_sink = self._log_threadsafe
        tag = f"table {self.stats.table}"
        failing_since: float | None = None
        dropped_in_match_at: float | None = None
        delay = _BACKOFF_FIRST_S
        retrying = False  # a failure was logged: the retries after it are debug lines
        try:
            while not self._done:
                resume = self._match_id
                try:
                    welcomed = await self._one_stream(resume)
                    reason = "the referee closed the stream"
                except _StreamDroppedError as ended:
                    welcomed, reason = ended.welcomed, ended.reason
                if self._done:
                    break
                now = time.monotonic()
                if welcomed:
                    failing_since, delay = None, _BACKOFF_FIRST_S
                    if retrying:
                        logger.info("%s: reached the referee at %s again", tag, self.options.server)
                    retrying = False
                failing_since = failing_since if failing_since is not None else now
                if self._match_id:
                    dropped_in_match_at = dropped_in_match_at or now
                    if (now - dropped_in_match_at) * 1000 > self._reconnect_ms:
                        logger.error(
                            "%s: could not resume match %s within %d ms; it is forfeited",
                            tag,
                            self._match_id,
                            self._reconnect_ms,
                        )
                        self._forget_match()
                        dropped_in_match_at = None
                else:
                    dropped_in_match_at = None
                    if now - failing_since > self.options.retry_for_s:
                        raise UnreachableError(
                            f"cannot reach the referee at {self.options.server} "
                            f"(tried for {self.options.retry_for_s:g} s): {reason}; is it "
                            "running there? (--server / BRANDELN_SERVER, --connect-timeout / "
                            "BRANDELN_CONNECT_TIMEOUT)"
                        )
                if retrying:
                    logger.debug("%s: %s; reconnecting in %.1f s", tag, reason, delay)
                else:
                    # One line, not one per attempt: a wrong port would print dozens.
                    logger.warning(
                        "%s: %s; retrying for up to %.0f s",
                        tag,
                        reason,
                        self.options.retry_for_s
                        if not self._match_id
                        else self._reconnect_ms / 1000,
                    )
                    retrying = True
                await asyncio.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, _BACKOFF_MAX_S)
                if self._match_id:
                    # Stay well inside reconnect_ms while a match waits for this seat.
                    delay = min(delay, max(_BACKOFF_FIRST_S, self._reconnect_ms / 4000))
        finally:
            await self._cancel_decision()
            await self.bot.close()
        return self.stats

    async def _one_stream(self, resume_match_id: str) -> bool:
        """Run one stream to its end; True when the referee welcomed it."""
        self._outbox = asyncio.Queue()
        hello = bot_pb2.Hello(
            token=self.options.token,
            bot_name=self.bot.name,
            bot_version=self.bot.version,
            protocol_version=PROTOCOL_VERSION,
            rulesets=list(self.bot.rulesets),
            resume_match_id=resume_match_id,
            snapshot_only=not self.bot.wants_events,
        )
        self._outbox.put_nowait(bot_pb2.BotMessage(hello=hello))
        self.stats.streams += 1
        if resume_match_id:
            self.stats.resumes += 1
        call = self._stub.Play(self._outgoing(self._outbox))
        welcomed = False
        try:
            while True:
                if welcomed:
                    message = await call.read()
                else:  # a server that accepts the connection but never answers is a drop too
                    try:
                        message = await asyncio.wait_for(
                            call.read(), self.options.handshake_timeout_s
                        )
                    except TimeoutError:
                        raise _StreamDroppedError(
                            f"no Welcome within {self.options.handshake_timeout_s:.1f} s", False
                        ) from None
                if message is aio.EOF:
                    break
                assert isinstance(message, bot_pb2.RefereeMessage)
                if message.WhichOneof("kind") == "welcome":
                    welcomed = True
                await self._handle(message)
                if self._done:
                    return welcomed
        except grpc.aio.AioRpcError as error:
            if error.code() not in _RETRYABLE:
                raise error_for_status(error, self.options.server) from None
            raise _StreamDroppedError(
                f"stream dropped ({error.code().name}: {error.details()})", welcomed
            ) from None
        finally:
            self._outbox.put_nowait(None)
            call.cancel()
            await self._cancel_decision()
        return welcomed

    @staticmethod
    async def _outgoing(
        outbox: asyncio.Queue[bot_pb2.BotMessage | None],
    ) -> AsyncIterator[bot_pb2.BotMessage]:
        while (message := await outbox.get()) is not None:
            yield message

    # --- one message from the referee --------------------------------------------------
    async def _handle(self, message: bot_pb2.RefereeMessage) -> None:
        kind = message.WhichOneof("kind")
        bot = self.bot
        if kind == "welcome":
            logger.info(
                "table %d: welcomed as bot %s (session %s, referee %s)",
                self.stats.table,
                message.welcome.bot_id,
                message.welcome.session_id,
                message.welcome.server_version,
            )
            bot.on_welcome(message.welcome)
        elif kind == "match_started":
            started = message.match_started
            if started.match_id != self._match_id:
                self.stats.match_ids.append(started.match_id)
            self._match_id = started.match_id
            self._reconnect_ms = started.time_control.reconnect_ms or DEFAULT_RECONNECT_MS
            self._fell_back.clear()
            bot.match, bot.deal = started, None
            bot.on_match_start(started)
        elif kind == "deal_started":
            bot.deal = message.deal_started
            bot.on_deal_start(message.deal_started)
        elif kind == "request":
            await self._cancel_decision()  # a new request makes any older one stale
            self.stats.requests += 1
            self._open_request = message.request
            self._decision = asyncio.create_task(self._decide(message.request))
        elif kind == "event":
            bot.on_event(message.event)
        elif kind == "rejected":
            self._on_rejected(message.rejected)
        elif kind == "match_ended":
            await self._cancel_decision()
            self.stats.matches += 1
            bot.on_match_end(message.match_ended)
            self._forget_match()
            limit = self.options.max_matches
            if limit is not None and self.stats.matches >= limit:
                self._done = True
        else:
            logger.warning("table %d: ignoring an unknown message kind %r", self.stats.table, kind)

    def _forget_match(self) -> None:
        self._match_id = ""
        self._open_request = None
        self.bot.match, self.bot.deal = None, None

    async def _decide(self, request: bot_pb2.DecisionRequest) -> None:
        try:
            choice = resolve_answer(request, await self.bot.decide_async(request))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a bot bug must not cost a strike: answer the fallback
            detail = (
                str(error)
                if isinstance(error, InvalidAnswerError)
                else "".join(traceback.format_exception(error)).rstrip()
            )
            logger.error(
                "table %d: decide() failed, answering the first legal choice: %s",
                self.stats.table,
                detail,
            )
            self._send_log(f"decide() failed: {detail}")
            self.stats.fallbacks += 1
            if not request.legal:
                return
            choice = request.legal[0]
        self.stats.answers += 1
        self._send(
            bot_pb2.BotMessage(action=bot_pb2.Action(request_id=request.request_id, choice=choice))
        )

    def _on_rejected(self, rejected: bot_pb2.ActionRejected) -> None:
        self.stats.rejections += 1
        logger.warning(
            "table %d: action for request %d rejected (%s): %s",
            self.stats.table,
            rejected.request_id,
            bot_pb2.RejectCode.Name(rejected.code),
            rejected.reason,
        )
        self.bot.on_rejected(rejected)
        request = self._open_request
        if (
            request is not None
            and request.request_id == rejected.request_id
            and rejected.code != bot_pb2.REJECT_CODE_STALE_REQUEST
            and request.request_id not in self._fell_back
            and request.legal
        ):
            # The request stays open: one more try with the referee's own fallback avoids a
            # second strike for a timeout.
            self._fell_back.add(request.request_id)
            self.stats.fallbacks += 1
            self._send(
                bot_pb2.BotMessage(
                    action=bot_pb2.Action(request_id=request.request_id, choice=request.legal[0])
                )
            )

    async def _cancel_decision(self) -> None:
        task, self._decision = self._decision, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # --- sending -------------------------------------------------------------------------
    def _send(self, message: bot_pb2.BotMessage) -> None:
        self._outbox.put_nowait(message)

    def _send_log(self, text: str) -> None:
        if len(text) > LOG_TEXT_CAP:
            text = text[: LOG_TEXT_CAP - 15] + " ...[truncated]"
        self._send(bot_pb2.BotMessage(log=bot_pb2.BotLog(text=text)))

    def _log_threadsafe(self, text: str) -> None:
        loop = self._loop
        if loop is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._send_log(text)
        else:
            loop.call_soon_threadsafe(self._send_log, text)


def open_channel(options: SessionOptions) -> aio.Channel:
    """A grpc.aio channel to ``options.server``: TLS with ``options.ca`` (or system roots when
    ``options.tls``), insecure otherwise."""
    if options.ca is not None or options.tls:
        roots = options.ca.read_bytes() if options.ca is not None else None
        credentials = grpc.ssl_channel_credentials(root_certificates=roots)
        return aio.secure_channel(options.server, credentials)
    return aio.insecure_channel(options.server)


async def play(
    bot_factory: Callable[[], Bot], options: SessionOptions, tables: int = 1
) -> list[SessionStats]:
    """Run ``tables`` seat sessions at once, one fresh bot each; return their stats.

    The first session to fail with a :class:`BotKitError` stops the others and is raised.
    """
    if tables < 1:
        raise ValueError(f"tables must be at least 1, not {tables}")
    if options.ca is not None and not options.ca.is_file():
        raise BotKitError(f"--ca {options.ca}: no such file")
    channel = open_channel(options)
    try:
        sessions = [Session(bot_factory(), options, channel, table) for table in range(tables)]
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(session.run()) for session in sessions]
        return [task.result() for task in tasks]
    except* BotKitError as errors:
        raise errors.exceptions[0] from None
    finally:
        await channel.close()


__all__ = [
    "DEFAULT_CONNECT_TIMEOUT_S",
    "PROTOCOL_VERSION",
    "BadTokenError",
    "BotKitError",
    "ProtocolError",
    "ProtocolVersionError",
    "Session",
    "SessionOptions",
    "SessionStats",
    "UnreachableError",
    "error_for_status",
    "open_channel",
    "play",
]
