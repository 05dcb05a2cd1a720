"""A seat session held for a person: one ``Referee.Play`` stream, opened the way any bot opens
it, so the referee cannot tell the person from a bot and enforces every rule alike.

:class:`PersonSeat` says ``Hello`` with the identity's token, waits for ``Welcome``, then reads
every message of the stream as a value (:mod:`brandeln.services.play.messages`, through the arena's
codec and :mod:`brandeln.protocol.decode`) and hands it to its listener; :meth:`PersonSeat.act`
sends an ``Action`` on the person's behalf. What the listener gets is exactly what the referee sent
this seat: its own hand and view, the public events, never another seat's cards.

>>> async def example(address: str, token: str) -> None:         # doctest: +SKIP
...     seat = PersonSeat(address, token, "ann", print)
...     await seat.open()
...     seat.act(request_id, PASS)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Final

import grpc
from grpc import aio

from brandeln.arena.codec.seat_side import (
    cards_from_pb,
    legal_from_pb,
    phase_from_pb,
    ruleset_from_pb,
    view_from_pb,
)
from brandeln.arena.codec.values import CodecError, action_to_choice
from brandeln.engine.actions import Action
from brandeln.engine.rulesets import Ruleset
from brandeln.protocol.decode import event_from_pb
from brandeln.protocol.statuses import match_status_from_pb
from brandeln.services.play.messages import (
    Asked,
    DealBegan,
    MatchBegan,
    MatchOver,
    RejectCode,
    Rejected,
    SeatMessage,
    SessionEnded,
    Welcomed,
)
from brandeln.v1 import bot_pb2, bot_pb2_grpc

__all__ = ["PROTOCOL_VERSION", "PersonSeat", "SeatSessionError"]

PROTOCOL_VERSION: Final = 1
HELLO_VERSION: Final = "web"  # the Hello's bot_version: a person at the web's table
HANDSHAKE_TIMEOUT_S: Final = 30.0
_REJECT_CODES: Final = {
    bot_pb2.REJECT_CODE_ILLEGAL: RejectCode.ILLEGAL,
    bot_pb2.REJECT_CODE_STALE_REQUEST: RejectCode.STALE_REQUEST,
    bot_pb2.REJECT_CODE_WRONG_PHASE: RejectCode.WRONG_PHASE,
    bot_pb2.REJECT_CODE_MALFORMED: RejectCode.MALFORMED,
}

Listener = Callable[[SeatMessage], None]


class SeatSessionError(Exception):
    """The session could not be opened (one line: what the referee said)."""


class PersonSeat:
    """One seat session for a person at the referee at ``address`` (see the module
    docstring); ``name`` is the Hello's bot name, as other seats are shown it."""

    def __init__(
        self,
        address: str,
        token: str,
        name: str,
        listener: Listener,
        *,
        root_certificates: bytes | None = None,
        handshake_timeout_s: float = HANDSHAKE_TIMEOUT_S,
    ) -> None:
        self.address = address
        self.listener = listener
        self._hello = bot_pb2.Hello(
            token=token,
            bot_name=name,
            bot_version=HELLO_VERSION,
            protocol_version=PROTOCOL_VERSION,
        )
        if root_certificates is None:
            self._channel = aio.insecure_channel(address)
        else:
            credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
            self._channel = aio.secure_channel(address, credentials)
        self._outbox: asyncio.Queue[bot_pb2.BotMessage | None] = asyncio.Queue()
        self._call: aio.StreamStreamCall[bot_pb2.BotMessage, bot_pb2.RefereeMessage] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._timeout = handshake_timeout_s
        self._ruleset: Ruleset | None = None

    async def open(self) -> Welcomed:
        """Say Hello and wait for Welcome; then the stream is read in the background.

        Raises :class:`SeatSessionError` when the referee refuses the session or does not
        answer within the handshake time.
        """
        stub = bot_pb2_grpc.RefereeStub(self._channel)
        self._outbox.put_nowait(bot_pb2.BotMessage(hello=self._hello))
        self._call = call = stub.Play(self._outgoing())
        try:
            first = await asyncio.wait_for(call.read(), self._timeout)
        except TimeoutError:
            await self.close()
            raise SeatSessionError(
                f"the referee at {self.address} sent no Welcome within {self._timeout:g} s"
            ) from None
        except grpc.aio.AioRpcError as error:
            await self.close()
            raise SeatSessionError(
                f"the referee at {self.address} refused the seat: "
                f"{error.code().name}: {error.details()}"
            ) from None
        if not isinstance(first, bot_pb2.RefereeMessage) or first.WhichOneof("kind") != "welcome":
            await self.close()
            raise SeatSessionError(f"the referee at {self.address} did not welcome the seat")
        welcomed = Welcomed(first.welcome.session_id, first.welcome.bot_id)
        self._reader = asyncio.ensure_future(self._read(call))
        return welcomed

    def act(self, request_id: int, action: Action) -> None:
        """Send ``action`` as the answer to request ``request_id`` (the referee judges it)."""
        choice = action_to_choice(action)
        self._outbox.put_nowait(
            bot_pb2.BotMessage(action=bot_pb2.Action(request_id=request_id, choice=choice))
        )

    async def close(self) -> None:
        """End the stream (a seated session's seat then plays by the referee's fallback)."""
        self._outbox.put_nowait(None)
        if self._call is not None:
            self._call.cancel()
        reader, self._reader = self._reader, None
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        await self._channel.close()

    async def _outgoing(self) -> AsyncIterator[bot_pb2.BotMessage]:
        while (message := await self._outbox.get()) is not None:
            yield message

    async def _read(
        self, call: aio.StreamStreamCall[bot_pb2.BotMessage, bot_pb2.RefereeMessage]
    ) -> None:
        reason = "the referee ended the session"
        try:
            while True:
                message = await call.read()
                if not isinstance(message, bot_pb2.RefereeMessage):  # aio.EOF
                    break
                read = self._message(message)
                if read is not None:
                    self.listener(read)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                reason = f"the session dropped: {error.code().name}: {error.details()}"
        except ValueError as error:  # CodecError, DecodeError, a status this side does not know
            reason = f"the referee sent what this side cannot read: {error}"
            call.cancel()
        self.listener(SessionEnded(reason))

    def _message(self, message: bot_pb2.RefereeMessage) -> SeatMessage | None:
        """One message as a value (None for a kind this side does not know)."""
        kind = message.WhichOneof("kind")
        if kind == "request":
            return self._asked(message.request)
        if kind == "event":
            return event_from_pb(message.event)
        if kind == "deal_started":
            dealt = message.deal_started
            hand = cards_from_pb(dealt.hand)
            return DealBegan(dealt.deal_number, dealt.dealer, dealt.forehand, hand)
        if kind == "match_started":
            return self._began(message.match_started)
        if kind == "rejected":
            rejected = message.rejected
            code = _REJECT_CODES.get(rejected.code, RejectCode.UNKNOWN)
            return Rejected(rejected.request_id, code, rejected.reason)
        if kind == "match_ended":
            ended = message.match_ended
            return MatchOver(
                ended.match_id,
                match_status_from_pb(ended.match_status, ended.status),
                tuple(ended.balances),
                tuple(ended.ranks),
                tuple(ended.forfeited),
            )
        return None

    def _began(self, started: bot_pb2.MatchStarted) -> MatchBegan:
        self._ruleset = ruleset_from_pb(started.ruleset)
        control = started.time_control
        return MatchBegan(
            started.match_id,
            started.seat,
            tuple(player.hello_name or player.bot_name for player in started.players),
            self._ruleset,
            started.deals,
            control.move_ms,
            control.bank_ms,
            control.max_strikes,
        )

    def _asked(self, request: bot_pb2.DecisionRequest) -> Asked:
        if self._ruleset is None:
            raise CodecError("a request came before the match started")
        phase = phase_from_pb(request.phase)
        view = request.view
        return Asked(
            request.request_id,
            phase,
            legal_from_pb(request.legal, phase),
            view_from_pb(view, self._ruleset, phase),
            view.deal_number,
            tuple(view.match_balances),
            request.move_ms,
            request.bank_ms,
            request.strikes,
        )
