"""The gRPC servicers: thin adapters from `brandeln.v1` RPCs to the :class:`Referee`.

Arena errors become gRPC status codes here and nowhere else
(``brandeln.arena.errors.status_code_for``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
from google.protobuf.message import DecodeError

from brandeln.arena import codec
from brandeln.arena.errors import (
    ArenaError,
    BotProtocolError,
    CloseReason,
    CorruptDataError,
    HelloTimeoutError,
    NotFoundError,
    status_code_for,
)
from brandeln.arena.limits import (
    DRAIN_TIMEOUT_S,
    HELLO_TIMEOUT_S,
    LOBBY_MESSAGE_LIMIT,
    MAX_BOT_MESSAGE_BYTES,
)
from brandeln.arena.referee import Referee
from brandeln.arena.seat import Outgoing
from brandeln.arena.session import SeatSession
from brandeln.arena.summaries import summary_of
from brandeln.protocol.statuses import session_state_to_pb
from brandeln.v1 import admin_pb2, admin_pb2_grpc, bot_pb2, bot_pb2_grpc, cards_pb2

__all__ = ["MAX_BOT_MESSAGE_BYTES", "AdminServicer", "RefereeServicer"]

T = TypeVar("T")


async def _abort(context: grpc.aio.ServicerContext[Any, Any], error: ArenaError) -> None:
    await context.abort(status_code_for(error), str(error))


def _seen(task: asyncio.Task[None]) -> None:
    """Mark a stream task's failure as retrieved. The Play handler reports it while it runs (a
    write that failed ends the stream with its error); a handler cancelled again while it
    cleans up (the server stopping) never reads it, and asyncio would print it at exit, after
    the command's own last line, as "Task exception was never retrieved"."""
    if not task.cancelled():
        task.exception()


class RefereeServicer(bot_pb2_grpc.RefereeServicer):
    """`brandeln.v1.Referee`: one Play stream is one seat session."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    # grpc.aio serves a stream-stream handler written as a coroutine that calls
    # ``context.write``; the generated stub types only the generator form.
    async def Play(  # type: ignore[override]  # noqa: N802 - the RPC's name is the protocol's
        self,
        request_iterator: AsyncIterator[bot_pb2.BotMessage],
        context: grpc.aio.ServicerContext[bot_pb2.BotMessage, Outgoing],
    ) -> None:
        messages = aiter(request_iterator)
        try:
            async with asyncio.timeout(HELLO_TIMEOUT_S):
                first = await anext(messages)
        except StopAsyncIteration:
            return
        except TimeoutError:
            self.referee.counts.hello_timeouts += 1
            await _abort(context, HelloTimeoutError(f"no hello within {HELLO_TIMEOUT_S:g} s"))
            return
        except DecodeError as error:
            await _abort(
                context, BotProtocolError(f"the first message is not a BotMessage: {error}")
            )
            return
        try:
            self._check_size(first)
            if first.WhichOneof("kind") != "hello":
                raise BotProtocolError("the first message of a session must be hello")
            session = await self.referee.open_session(
                codec.hello_from_pb(first.hello), context.peer()
            )
        except ArenaError as error:
            await _abort(context, error)
            return
        reader = asyncio.create_task(self._read(session, messages))
        writer = asyncio.create_task(self._write(session, context))
        for task in (reader, writer):
            task.add_done_callback(_seen)
        try:
            await self._until_closed(session, writer)
        finally:
            # Synchronous, before any await: a handler cancelled (again) while it cleans up
            # must not leave its session behind in the lobby.
            self.referee.close_session(session)
            reader.cancel()
            writer.cancel()
            await asyncio.gather(reader, writer, return_exceptions=True)
        if session.close_kind is not None:
            # A protocol breach is told as its detail alone (the code already says the kind).
            message = (
                session.close_detail
                if session.close_kind is CloseReason.PROTOCOL
                else session.close_reason
            )
            await context.abort(status_code_for(session.close_kind), message)

    @staticmethod
    async def _write(
        session: SeatSession,
        context: grpc.aio.ServicerContext[bot_pb2.BotMessage, Outgoing],
    ) -> None:
        """Send the session's outbox in order, up to the close sentinel."""
        while True:
            message = await session.outbox.get()
            if message is None:
                return
            await context.write(message)

    @staticmethod
    async def _until_closed(session: SeatSession, writer: asyncio.Task[None]) -> None:
        """Wait for the session to close, then let the writer send what was queued before the
        close, unless the bot does not read (a write blocked on it would never finish)."""
        closed = asyncio.ensure_future(session.closed.wait())
        try:
            await asyncio.wait({closed, writer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            closed.cancel()
        if writer.done():
            writer.result()  # a write that failed ends the stream with its error
            return
        if session.slow_reader:
            return
        await asyncio.wait({writer}, timeout=DRAIN_TIMEOUT_S)

    def _check_size(self, message: bot_pb2.BotMessage) -> None:
        size = message.ByteSize()
        if size > MAX_BOT_MESSAGE_BYTES:
            raise BotProtocolError(
                f"message of {size} bytes is over the {MAX_BOT_MESSAGE_BYTES}-byte cap"
            )

    async def _read(
        self, session: SeatSession, messages: AsyncIterator[bot_pb2.BotMessage]
    ) -> None:
        """Route the bot's messages until its stream ends or breaks the protocol."""
        unseated = 0
        try:
            async for message in messages:
                try:
                    self._check_size(message)
                    if message.WhichOneof("kind") == "hello":
                        raise BotProtocolError("hello was already sent on this session")
                    if message.WhichOneof("kind") is None:
                        raise BotProtocolError("empty message: set hello, action or log")
                except BotProtocolError as error:
                    session.close(CloseReason.PROTOCOL, str(error))
                    return
                if session.seat is None:
                    unseated += 1
                    if unseated > LOBBY_MESSAGE_LIMIT:
                        session.close(CloseReason.PROTOCOL, "too many messages while not seated")
                        return
                else:
                    unseated = 0
                self.referee.on_message(session, message)
        except (grpc.aio.AioRpcError, asyncio.CancelledError):
            raise
        except Exception as error:
            session.close(CloseReason.PROTOCOL, f"unreadable stream: {error}")
            return
        # The bot closed its side: the session ends (a seated seat waits for a resume).
        session.close()


class AdminServicer(admin_pb2_grpc.AdminServicer):
    """`brandeln.v1.Admin`, guarded by the admin token."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    async def _guard(
        self,
        context: grpc.aio.ServicerContext[object, object],
        call: Callable[[], Awaitable[T]],
    ) -> T:
        try:
            self.referee.check_admin(_bearer(context))
            return await call()
        except ArenaError as error:
            await _abort(context, error)
            raise AssertionError("unreachable") from None

    async def RegisterBot(  # noqa: N802
        self,
        request: admin_pb2.RegisterBotRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> admin_pb2.RegisterBotResponse:
        async def call() -> admin_pb2.RegisterBotResponse:
            record, token = self.referee.register_bot(request.name)
            return admin_pb2.RegisterBotResponse(bot_id=record.bot_id, token=token)

        return await self._guard(context, call)

    async def ListBots(  # noqa: N802
        self,
        request: admin_pb2.ListBotsRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> admin_pb2.ListBotsResponse:
        async def call() -> admin_pb2.ListBotsResponse:
            return admin_pb2.ListBotsResponse(
                bots=[
                    admin_pb2.BotInfo(
                        bot_id=b.bot_id, name=b.name, created_at=b.created_at, revoked=b.revoked
                    )
                    for b in self.referee.bots()
                ]
            )

        return await self._guard(context, call)

    async def RotateBotToken(  # noqa: N802
        self,
        request: admin_pb2.RotateBotTokenRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> admin_pb2.RotateBotTokenResponse:
        async def call() -> admin_pb2.RotateBotTokenResponse:
            token = self.referee.rotate_bot_token(request.bot_id)
            return admin_pb2.RotateBotTokenResponse(bot_id=request.bot_id, token=token)

        return await self._guard(context, call)

    async def ListSessions(  # noqa: N802
        self,
        request: admin_pb2.ListSessionsRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> admin_pb2.ListSessionsResponse:
        async def call() -> admin_pb2.ListSessionsResponse:
            infos = [
                admin_pb2.SessionInfo(
                    session_id=session.session_id,
                    bot_id=session.bot_id,
                    bot_name=session.bot_name,
                    state=str(session.state),  # the word, for clients before the enum
                    session_state=session_state_to_pb(session.state),
                    match_id=session.match_id,
                    hello_name=session.hello_name,
                )
                for session in self.referee.sessions()
            ]
            return admin_pb2.ListSessionsResponse(sessions=infos)

        return await self._guard(context, call)

    async def RunMatch(  # noqa: N802
        self,
        request: admin_pb2.RunMatchRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> AsyncIterator[admin_pb2.MatchUpdate]:
        updates: asyncio.Queue[admin_pb2.MatchUpdate] = asyncio.Queue()

        async def call() -> None:
            order = codec.match_order_from_pb(request)
            await self.referee.start_match(order, updates.put_nowait)

        await self._guard(context, call)
        # The match runs on its own task: a caller that goes away does not abort it.
        while True:
            update = await updates.get()
            yield update
            if update.WhichOneof("kind") == "result":
                return

    async def WatchMatch(  # noqa: N802
        self,
        request: admin_pb2.WatchMatchRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> AsyncIterator[cards_pb2.GameEvent]:
        async def call() -> asyncio.Queue[cards_pb2.GameEvent | None]:
            return self.referee.watch(request.match_id)

        queue = await self._guard(context, call)
        while True:
            event = await queue.get()
            if event is None:
                return
            yield event

    async def ListMatches(  # noqa: N802
        self,
        request: admin_pb2.ListMatchesRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> admin_pb2.ListMatchesResponse:
        async def call() -> admin_pb2.ListMatchesResponse:
            limit = request.limit or 50
            records = self.referee.matches(request.bot_id, limit, request.match_id_prefix)
            return admin_pb2.ListMatchesResponse(matches=[summary_of(r) for r in records])

        return await self._guard(context, call)

    async def GetMatch(  # noqa: N802
        self,
        request: admin_pb2.GetMatchRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> admin_pb2.GetMatchResponse:
        async def call() -> admin_pb2.GetMatchResponse:
            record = self.referee.match(request.match_id)
            try:
                # A running match's log only up to its last finished deal (Referee.match_log).
                data = await self.referee.match_log(record)
            except OSError as error:
                raise NotFoundError(
                    f"the log of match {record.match_id} is unreadable: {error}"
                ) from None
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as error:
                # A string field must be UTF-8: the damaged log cannot be sent as it is.
                raise CorruptDataError(
                    f"{record.log_path}: not UTF-8 text (byte {error.start}: {error.reason})"
                ) from None
            return admin_pb2.GetMatchResponse(summary=summary_of(record), log_jsonl=text)

        return await self._guard(context, call)


def _bearer(context: grpc.aio.ServicerContext[object, object]) -> str | None:
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value.removeprefix("Bearer ").strip()
    return None
