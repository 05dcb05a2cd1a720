"""The ladder's only way to the referee: a ``grpc.aio`` client of the ``Admin`` service.

Every call carries ``authorization: Bearer <admin token>``; gRPC failures become
:class:`~ladder.errors.RefereeError` with a message that says what to check. This module is
also the ladder's one place that turns ladder values into protobuf messages and back.

>>> async def example(address: str, token: str) -> None:      # doctest: +SKIP
...     async with AdminClient(address, token) as admin:
...         bot_id, bot_token = await admin.register_bot("random")
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from enum import StrEnum
from types import TracebackType

import grpc
from grpc import aio

from brandeln.v1 import admin_pb2, admin_pb2_grpc, cards_pb2
from engine.cards import Suit
from ladder.config import SeasonConfig, TimeControl
from ladder.duplicate import DecisionLatency, MatchOutcome, MatchPlan
from ladder.errors import (
    BlockFailedError,
    BotNameTakenError,
    MatchUnavailableError,
    RefereeCallError,
    RefereeError,
    RefereeNotFoundError,
)
from ladder.tally import MatchTally

__all__ = [
    "AdminClient",
    "MatchStatus",
    "SessionCount",
    "latency_of",
    "suit_permutation_message",
    "time_control_message",
    "time_control_of",
]


class MatchStatus(StrEnum):
    """``MatchSummary.status`` as the wire carries it (PROTOCOL.md: a string field)."""

    RUNNING = "running"
    FINISHED = "finished"
    ABORTED = "aborted"


# Bound every message the referee may send (a full match log can be several megabytes).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024


def suit_permutation_message(images: str) -> list[cards_pb2.Suit.ValueType]:
    """The protobuf form of a permutation written as the images of C S H D ("SHDC").

    >>> suit_permutation_message("SHDC") == [cards_pb2.SUIT_SPADES, cards_pb2.SUIT_HEARTS,
    ...     cards_pb2.SUIT_DIAMONDS, cards_pb2.SUIT_CLUBS]
    True
    """
    # By name (SUIT_HEARTS for Suit.HEARTS): no enum offset is computed outside the codec.
    return [cards_pb2.Suit.Value(f"SUIT_{Suit.parse(letter).name}") for letter in images]


def time_control_message(time_control: TimeControl) -> cards_pb2.TimeControl:
    """The ladder's time control as the protocol's message: the one conversion that way.

    >>> time_control_message(TimeControl(move_ms=200, max_strikes=3)).move_ms
    200
    """
    return cards_pb2.TimeControl(
        move_ms=time_control.move_ms,
        bank_ms=time_control.bank_ms,
        max_strikes=time_control.max_strikes,
        reconnect_ms=time_control.reconnect_ms,
    )


def time_control_of(message: cards_pb2.TimeControl) -> TimeControl:
    """The protocol's time control as the ladder's: the one conversion back (0 stays "the
    referee's default", as in a season file).

    >>> time_control_of(time_control_message(TimeControl(bank_ms=5000)))
    TimeControl(move_ms=0, bank_ms=5000, max_strikes=0, reconnect_ms=0)
    """
    return TimeControl(
        move_ms=message.move_ms,
        bank_ms=message.bank_ms,
        max_strikes=message.max_strikes,
        reconnect_ms=message.reconnect_ms,
    )


def latency_of(summary: admin_pb2.MatchSummary) -> tuple[DecisionLatency, ...]:
    """The summary's latency by seat (empty from a referee that does not report it)."""
    return tuple(
        DecisionLatency(seat.decisions, seat.p50_ms, seat.p95_ms, seat.max_ms)
        for seat in summary.latency
    )


@dataclass(frozen=True, slots=True)
class SessionCount:
    """How many seat sessions a bot has connected, by state."""

    bot_id: str
    lobby: int = 0
    seated: int = 0
    disconnected: int = 0

    @property
    def connected(self) -> int:
        return self.lobby + self.seated


def _describe_rpc_error(address: str, what: str, error: grpc.aio.AioRpcError) -> RefereeError:
    code = error.code()
    details = error.details() or ""
    if code == grpc.StatusCode.UNAUTHENTICATED:
        hint = "the referee refused the admin token (check BRANDELN_ADMIN_TOKEN)"
    elif code == grpc.StatusCode.UNAVAILABLE:
        # Either the referee is unreachable or (RunMatch) a bot had no free session in time.
        hint = f"unavailable at {address}: {details}"
    elif code == grpc.StatusCode.DEADLINE_EXCEEDED:
        hint = f"the referee at {address} did not answer in time"
    else:
        hint = f"{code.name}: {details}"
    return RefereeError(f"{what}: {hint}")


def _call_error(address: str, error: grpc.aio.AioRpcError) -> RefereeCallError:
    """``referee ADDRESS: STATUS: details``: the status name stays in the message, so a user
    who reads records through ``--referee`` sees what the referee said (UNAUTHENTICATED...)."""
    code = error.code()
    kind = RefereeNotFoundError if code == grpc.StatusCode.NOT_FOUND else RefereeCallError
    return kind(f"referee {address}: {code.name}: {error.details()}")


class AdminClient:
    """An open channel to a referee's Admin service."""

    def __init__(
        self,
        address: str,
        admin_token: str,
        *,
        root_certificates: bytes | None = None,
        call_timeout_s: float = 30.0,
    ) -> None:
        self.address = address
        options = [
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ]
        if root_certificates is None:
            self._channel = aio.insecure_channel(address, options=options)
        else:
            credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
            self._channel = aio.secure_channel(address, credentials, options=options)
        self._stub = admin_pb2_grpc.AdminStub(self._channel)
        self._metadata = (("authorization", f"Bearer {admin_token}"),)
        self._timeout = call_timeout_s

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> AdminClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def register_bot(self, name: str) -> tuple[str, str]:
        """Register a bot identity; returns (bot_id, token).

        Raises :class:`BotNameTakenError` when the name is taken, else :class:`RefereeError`.
        """
        try:
            response = await self._stub.RegisterBot(
                admin_pb2.RegisterBotRequest(name=name),
                metadata=self._metadata,
                timeout=self._timeout,
            )
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.ALREADY_EXISTS:
                raise BotNameTakenError(f"a bot named {name!r} is already registered") from None
            raise _describe_rpc_error(self.address, f"registering bot {name!r}", error) from None
        return response.bot_id, response.token

    async def rotate_bot_token(self, bot_id: str) -> str | None:
        """A new token for a registered bot (its old one is refused from now on).

        None when the referee cannot give one: it does not know the bot, the bot is revoked,
        or it is a referee without ``RotateBotToken``; the caller then registers the bot anew.
        Raises :class:`RefereeError` on any other failure.
        """
        try:
            response = await self._stub.RotateBotToken(
                admin_pb2.RotateBotTokenRequest(bot_id=bot_id),
                metadata=self._metadata,
                timeout=self._timeout,
            )
        except grpc.aio.AioRpcError as error:
            if error.code() in {
                grpc.StatusCode.NOT_FOUND,
                grpc.StatusCode.FAILED_PRECONDITION,
                grpc.StatusCode.UNIMPLEMENTED,
            }:
                return None
            raise _describe_rpc_error(self.address, f"new token for bot {bot_id}", error) from None
        return response.token

    async def known_bot_ids(self) -> set[str] | None:
        """The ids of the registered, unrevoked bots; None if the referee has no ListBots."""
        try:
            response = await self._stub.ListBots(
                admin_pb2.ListBotsRequest(), metadata=self._metadata, timeout=self._timeout
            )
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.UNIMPLEMENTED:
                return None
            raise _describe_rpc_error(self.address, "listing bots", error) from None
        return {bot.bot_id for bot in response.bots if not bot.revoked}

    async def list_bots(self) -> list[admin_pb2.BotInfo]:
        """Every registered bot, revoked ones included.

        Raises :class:`RefereeCallError` when the referee answers with an error status.
        """
        try:
            response = await self._stub.ListBots(
                admin_pb2.ListBotsRequest(), metadata=self._metadata, timeout=self._timeout
            )
        except grpc.aio.AioRpcError as error:
            raise _call_error(self.address, error) from None
        return list(response.bots)

    async def list_matches(
        self, *, limit: int, bot_id: str = "", match_id_prefix: str = ""
    ) -> list[admin_pb2.MatchSummary]:
        """The referee's matches, newest first: of ``bot_id``, or whose id starts with
        ``match_id_prefix`` (a referee older than that field ignores it: filter again).

        Raises :class:`RefereeCallError` when the referee answers with an error status.
        """
        request = admin_pb2.ListMatchesRequest(
            bot_id=bot_id, match_id_prefix=match_id_prefix, limit=limit
        )
        try:
            response = await self._stub.ListMatches(
                request, metadata=self._metadata, timeout=self._timeout
            )
        except grpc.aio.AioRpcError as error:
            raise _call_error(self.address, error) from None
        return list(response.matches)

    async def get_match(self, match_id: str) -> admin_pb2.GetMatchResponse:
        """A match's summary and its whole log.

        Raises :class:`RefereeNotFoundError` for an unknown id, :class:`RefereeCallError` for
        any other error status.
        """
        try:
            return await self._stub.GetMatch(
                admin_pb2.GetMatchRequest(match_id=match_id),
                metadata=self._metadata,
                timeout=self._timeout,
            )
        except grpc.aio.AioRpcError as error:
            raise _call_error(self.address, error) from None

    async def watch_match(self, match_id: str) -> AsyncIterator[cards_pb2.GameEvent]:
        """The public events of a running match: those so far from seq 1, then each as it
        happens, until the match ends (spectators never see a hand before ``DealEnded``).

        Raises :class:`RefereeNotFoundError` when no match with that id is running,
        :class:`RefereeCallError` for any other error status. Closing the iterator ends the
        call.
        """
        call = self._stub.WatchMatch(
            admin_pb2.WatchMatchRequest(match_id=match_id), metadata=self._metadata
        )
        try:
            async for event in call:
                yield event
        except grpc.aio.AioRpcError as error:
            raise _call_error(self.address, error) from None
        finally:
            call.cancel()  # a no-op once the stream ended; stops it if the reader goes away

    async def session_counts(self) -> dict[str, SessionCount]:
        """The connected seat sessions, counted per bot id."""
        try:
            response = await self._stub.ListSessions(
                admin_pb2.ListSessionsRequest(), metadata=self._metadata, timeout=self._timeout
            )
        except grpc.aio.AioRpcError as error:
            raise _describe_rpc_error(self.address, "listing sessions", error) from None
        counts: dict[str, dict[str, int]] = {}
        for session in response.sessions:
            states = counts.setdefault(session.bot_id, {"lobby": 0, "seated": 0, "disconnected": 0})
            if session.state in states:
                states[session.state] += 1
        return {bot_id: SessionCount(bot_id, **states) for bot_id, states in counts.items()}

    async def run_match(
        self,
        config: SeasonConfig,
        plan: MatchPlan,
        bot_ids: dict[str, str],
        *,
        on_deal: Callable[[], None] | None = None,
        on_started: Callable[[str], None] | None = None,
        where: str | None = None,
    ) -> MatchOutcome:
        """Play one match of a block through ``RunMatch`` and return its outcome.

        ``bot_ids`` maps season bot names to referee bot ids. ``on_deal`` is called after every
        ``DealEnded``, ``on_started`` with the match id once it started. ``where`` names the
        match in errors (default: its block and rotation). Raises :class:`BlockFailedError`
        when the match does not finish.
        """
        request = admin_pb2.RunMatchRequest(
            summary_updates=True,  # the tally needs contracts, deal ends and penalties only
            bot_ids=[bot_ids[bot] for bot in plan.bots],
            ruleset=config.ruleset,
            deals=config.deals_per_match,
            seed=plan.seed,
            first_dealer=0,
            time_control=time_control_message(config.time_control),
            suit_permutation=suit_permutation_message(plan.suit_permutation),
            seat_wait_ms=config.seat_wait_ms,
            options=dict(config.options),
        )
        tally = MatchTally(config.players)
        summary: admin_pb2.MatchSummary | None = None
        match_id = ""
        if where is None:
            where = f"block {plan.block} rotation {plan.rotation} ({', '.join(plan.bots)})"
        call = self._stub.RunMatch(request, metadata=self._metadata)
        try:
            async for update in call:
                kind = update.WhichOneof("kind")
                if kind == "started":
                    match_id = update.started.match_id
                    if on_started is not None:
                        on_started(match_id)
                elif kind == "event":
                    tally.add(update.event)
                    if on_deal is not None and update.event.WhichOneof("kind") == "deal_ended":
                        on_deal()
                elif kind == "result":
                    summary = update.result
        except grpc.aio.AioRpcError as error:
            failure = _describe_rpc_error(self.address, f"match of {where}", error)
            unavailable = error.code() == grpc.StatusCode.UNAVAILABLE
            error_kind = MatchUnavailableError if unavailable else BlockFailedError
            raise error_kind(str(failure)) from None
        finally:
            call.cancel()  # a no-op once the stream ended; stops the match if we are cancelled
        if summary is None:
            raise BlockFailedError(f"match {match_id or '?'} of {where}: the stream ended early")
        if summary.status != MatchStatus.FINISHED:
            raise BlockFailedError(
                f"match {summary.match_id} of {where} ended {summary.status!r}, not finished "
                f"(inspect it: brandeln matches show {summary.match_id})"
            )
        players = config.players
        if len(summary.balances) != players:
            raise BlockFailedError(
                f"match {summary.match_id} of {where}: {len(summary.balances)} balances "
                f"for {players} seats"
            )
        return MatchOutcome(
            plan=plan,
            match_id=summary.match_id,
            balances=tuple(summary.balances),
            forfeited=frozenset(summary.forfeited),
            deals_played=summary.deals_played or tally.deals_ended,
            tallies=tally.seats(summary.strikes),
            latency=latency_of(summary),
        )

    async def play(
        self,
        request: admin_pb2.RunMatchRequest,
        on_event: Callable[[cards_pb2.GameEvent], None] | None = None,
    ) -> admin_pb2.MatchSummary:
        """Play one match through ``RunMatch``, calling ``on_event`` for each event streamed;
        its finished summary. Raises :class:`BlockFailedError` when it does not finish."""
        summary: admin_pb2.MatchSummary | None = None
        call = self._stub.RunMatch(request, metadata=self._metadata)
        try:
            async for update in call:
                if update.WhichOneof("kind") == "event" and on_event is not None:
                    on_event(update.event)
                elif update.WhichOneof("kind") == "result":
                    summary = update.result
        except grpc.aio.AioRpcError as error:
            raise BlockFailedError(str(_describe_rpc_error(self.address, "match", error))) from None
        finally:
            call.cancel()  # stops the match if we are cancelled
        if summary is None:
            raise BlockFailedError("a match's stream ended before its result")
        if summary.status != MatchStatus.FINISHED:
            raise BlockFailedError(
                f"match {summary.match_id} ended {summary.status!r}, not finished "
                f"(inspect it: brandeln matches show {summary.match_id})"
            )
        return summary
